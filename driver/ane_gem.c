// SPDX-License-Identifier: GPL-2.0-only
/*
 * Surfaces: GEM buffer objects whose every engine page is a physically
 * contiguous, 16 KB-aligned 16 KB frame, so the DART's leaf PTE can hold
 * the frame unshifted (Table 28.4); and the driver's kernel buffers, a
 * buffer object mapped in the DART's base context for the firmware
 * (ane_kbuf_alloc()).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_gem.h"

#define ANE_PAGES_PER_FRAME	(ANE_DART_PAGE_SIZE / PAGE_SIZE)
#define ANE_FRAME_ORDER		(ANE_DART_PAGE_SHIFT - PAGE_SHIFT)

/*
 * Surface memory is charged to the caller's memory cgroup, and a request
 * the machine or the cgroup cannot satisfy fails with -ENOMEM, quietly,
 * instead of waking the OOM killer: a client's allocation is not worth a
 * process of someone else's (security.rst).
 */
#define ANE_BO_GFP	(GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)

static void ane_bo_free(struct drm_gem_object *obj)
{
	struct ane_bo *bo = to_ane_bo(obj);
	struct ane_account *acct = bo->acct;
	u64 charged = bo->charged;
	u32 i, npages = bo->nframes * ANE_PAGES_PER_FRAME;

	if (bo->vaddr)
		vunmap(bo->vaddr);
	if (obj->import_attach) {
		drm_prime_gem_destroy(obj, bo->sgt);
	} else if (bo->pages) {
		for (i = 0; i < npages; i++)
			if (bo->pages[i])
				__free_page(bo->pages[i]);
	}
	kvfree(bo->pages);
	kvfree(bo->frame_pa);
	drm_gem_object_release(obj);
	kfree(bo);
	/* The charge goes back once the memory has. */
	if (acct) {
		ane_account_uncharge(acct, charged);
		ane_account_put(acct);
	}
}

static struct sg_table *ane_bo_get_sg_table(struct drm_gem_object *obj)
{
	struct ane_bo *bo = to_ane_bo(obj);
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages(sgt, bo->pages,
					bo->nframes * ANE_PAGES_PER_FRAME, 0,
					obj->size, GFP_KERNEL);
	if (ret) {
		kfree(sgt);
		return ERR_PTR(ret);
	}
	return sgt;
}

static vm_fault_t ane_bo_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct ane_bo *bo = to_ane_bo(vma->vm_private_data);
	pgoff_t pgoff = (vmf->address - vma->vm_start) >> PAGE_SHIFT;

	if (pgoff >= bo->nframes * ANE_PAGES_PER_FRAME)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vma, vmf->address, page_to_pfn(bo->pages[pgoff]));
}

static const struct vm_operations_struct ane_bo_vm_ops = {
	.fault = ane_bo_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

/*
 * Surfaces are ordinary cached memory: map them cached, page by page on
 * fault, instead of DRM's write-combined default for PFN mappings.
 */
static int ane_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	return 0;
}

/* A handle goes away: its file's cached request mappings of @obj go too. */
static void ane_bo_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct ane_file *af = file->driver_priv;

	if (af)
		ane_file_surface_close(af, obj);
}

/* A surface's frames are allocated with it and never move (fdinfo). */
static enum drm_gem_object_status ane_bo_status(struct drm_gem_object *obj)
{
	return DRM_GEM_OBJECT_RESIDENT;
}

static const struct drm_gem_object_funcs ane_bo_funcs = {
	.free = ane_bo_free,
	.close = ane_bo_close,
	.status = ane_bo_status,
	.get_sg_table = ane_bo_get_sg_table,
	.mmap = ane_bo_mmap,
	.vm_ops = &ane_bo_vm_ops,
};

static struct ane_bo *ane_bo_alloc(struct ane_device *adev, u64 size)
{
	struct ane_bo *bo;
	u32 npages;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->nframes = size >> ANE_DART_PAGE_SHIFT;
	npages = bo->nframes * ANE_PAGES_PER_FRAME;
	bo->frame_pa = kvcalloc(bo->nframes, sizeof(*bo->frame_pa), ANE_BO_GFP);
	bo->pages = kvcalloc(npages, sizeof(*bo->pages), ANE_BO_GFP);
	if (!bo->frame_pa || !bo->pages) {
		kvfree(bo->frame_pa);
		kvfree(bo->pages);
		kfree(bo);
		return ERR_PTR(-ENOMEM);
	}
	bo->base.funcs = &ane_bo_funcs;
	drm_gem_private_object_init(&adev->drm, &bo->base, size);
	return bo;
}

/**
 * ane_bo_create() - a surface backed by 16 KB frames
 * @adev: the device.
 * @size: bytes, rounded up to 16 KB.
 *
 * Each frame is one naturally aligned order-2 allocation (on 4 KB-page
 * kernels), split into individually refcounted pages for mmap.  The
 * memory is charged to the caller's memory cgroup; a client's own limits
 * are charged by the caller (ane_account_charge()).
 *
 * Return: the surface with one reference, or ERR_PTR(-EINVAL) for a zero
 * size, -E2BIG above %ANE_BO_MAX_SIZE, or -ENOMEM.
 */
struct ane_bo *ane_bo_create(struct ane_device *adev, u64 size)
{
	struct ane_bo *bo;
	u32 i, j;

	if (!size)
		return ERR_PTR(-EINVAL);
	if (size > ANE_BO_MAX_SIZE)
		return ERR_PTR(-E2BIG);
	size = round_up(size, ANE_DART_PAGE_SIZE);

	bo = ane_bo_alloc(adev, size);
	if (IS_ERR(bo))
		return bo;
	for (i = 0; i < bo->nframes; i++) {
		struct page *p;

		p = alloc_pages(ANE_BO_GFP | __GFP_ZERO, ANE_FRAME_ORDER);
		if (!p) {
			drm_gem_object_put(&bo->base);
			return ERR_PTR(-ENOMEM);
		}
		split_page(p, ANE_FRAME_ORDER);
		for (j = 0; j < ANE_PAGES_PER_FRAME; j++)
			bo->pages[i * ANE_PAGES_PER_FRAME + j] = p + j;
		bo->frame_pa[i] = page_to_phys(p);
	}
	return bo;
}

/**
 * ane_bo_vmap() - kernel mapping of a surface, made once
 * @bo: the surface.
 *
 * Return: the mapping, or NULL.
 */
void *ane_bo_vmap(struct ane_bo *bo)
{
	if (!bo->vaddr)
		bo->vaddr = vmap(bo->pages, bo->nframes * ANE_PAGES_PER_FRAME,
				 VM_MAP, PAGE_KERNEL);
	return bo->vaddr;
}

/**
 * ane_gem_sg_check() - does an imported buffer meet the DART granule?
 * @sgt: the importer's scatter list.
 * @size: the buffer's size.
 *
 * Every segment must start on a 16 KB-aligned page and span whole 16 KB
 * frames, and the segments must cover the buffer.
 *
 * Return: 0 or -EINVAL.
 */
int ane_gem_sg_check(struct sg_table *sgt, u64 size)
{
	struct scatterlist *sg;
	u64 total = 0;
	unsigned int i;

	if (!size || size & ANE_DART_PAGE_MASK)
		return -EINVAL;
	for_each_sgtable_sg(sgt, sg, i) {
		struct page *p = sg_page(sg);

		if (!p || sg->offset || sg->length & ANE_DART_PAGE_MASK ||
		    page_to_phys(p) & ANE_DART_PAGE_MASK)
			return -EINVAL;
		total += sg->length;
	}
	return total >= size ? 0 : -EINVAL;
}

struct drm_gem_object *
ane_gem_import_sg_table(struct drm_device *dev, struct dma_buf_attachment *attach,
			struct sg_table *sgt)
{
	u64 size = attach->dmabuf->size;
	struct scatterlist *sg;
	struct ane_bo *bo;
	u32 f = 0, pg = 0, i, j;

	if (ane_gem_sg_check(sgt, size)) {
		drm_dbg_prime(dev,
			      "import of %llu bytes refused: segments are not whole 16 KB frames\n",
			      size);
		return ERR_PTR(-EINVAL);
	}
	bo = ane_bo_alloc(to_ane_device(dev), size);
	if (IS_ERR(bo))
		return ERR_CAST(bo);
	for_each_sgtable_sg(sgt, sg, i) {
		struct page *p = sg_page(sg);

		for (j = 0; j < sg->length >> PAGE_SHIFT && pg < size >> PAGE_SHIFT; j++) {
			if (!(j % ANE_PAGES_PER_FRAME))
				bo->frame_pa[f++] = page_to_phys(p + j);
			bo->pages[pg++] = p + j;
		}
	}
	bo->sgt = sgt;
	return &bo->base;
}

/* DRM_IOCTL_ANE_SURFACE_CREATE */
int ane_gem_create_ioctl(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct drm_ane_surface_create *args = data;
	struct ane_file *af = file->driver_priv;
	struct ane_account *acct;
	struct ane_bo *bo;
	u64 bytes;
	int ret;

	if (args->flags || args->reserved || args->handle || args->offset ||
	    !args->size)
		return -EINVAL;
	if (args->size > ane_limit_surface_size())
		return -E2BIG;
	acct = ane_file_account(af);
	if (IS_ERR(acct))
		return PTR_ERR(acct);
	/* Charged before anything is allocated: a refusal costs nothing. */
	bytes = round_up(args->size, ANE_DART_PAGE_SIZE);
	ret = ane_account_charge(acct, bytes);
	if (ret)
		return ret;
	bo = ane_bo_create(to_ane_device(dev), args->size);
	if (IS_ERR(bo)) {
		ane_account_uncharge(acct, bytes);
		return PTR_ERR(bo);
	}
	ane_bo_set_charge(bo, acct, bytes);
	ret = drm_gem_create_mmap_offset(&bo->base);
	if (!ret)
		ret = drm_gem_handle_create(file, &bo->base, &args->handle);
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&bo->base.vma_node);
	drm_gem_object_put(&bo->base);
	return ret;
}

/* ------------------------------------------------------ kernel buffers */

/**
 * ane_kbuf_alloc() - a kernel buffer mapped in the base context
 * @adev: the device.
 * @size: bytes, rounded up to 16 KB.
 * @usage: usage code (firmware codes allowed).
 * @kb: the buffer.
 *
 * Return: 0 or a negative errno.
 */
int ane_kbuf_alloc(struct ane_device *adev, size_t size, u32 usage,
		   struct ane_kbuf *kb)
{
	struct ane_dart_mapping *map;
	struct ane_bo *bo;
	int ret;

	ret = ane_dart_usage_check(usage, true);
	if (ret)
		return ret;
	bo = ane_bo_create(adev, size);
	if (IS_ERR(bo))
		return PTR_ERR(bo);
	kb->vaddr = ane_bo_vmap(bo);
	if (!kb->vaddr) {
		ret = -ENOMEM;
		goto err_put;
	}
	map = ane_dart_map(adev->dart->base, bo->frame_pa, bo->nframes, usage,
			   ANE_PROT_READ_WRITE, bo);
	if (IS_ERR(map)) {
		ret = PTR_ERR(map);
		goto err_put;
	}
	kb->bo = bo;
	kb->map = map;
	kb->iova = map->iova;
	kb->size = map->size;
	return 0;

err_put:
	drm_gem_object_put(&bo->base);
	return ret;
}

void ane_kbuf_free(struct ane_device *adev, struct ane_kbuf *kb)
{
	if (!kb->bo)
		return;
	WARN_ON(ane_dart_unmap(kb->map));
	drm_gem_object_put(&kb->bo->base);
	memset(kb, 0, sizeof(*kb));
}
