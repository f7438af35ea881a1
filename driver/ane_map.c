// SPDX-License-Identifier: GPL-2.0-only
/*
 * Client mappings: each client's DART isolation context, the direct-path
 * MemoryMapRequest and MemoryUnMapRequest selectors, and the driver's
 * engine-DMA and fault ioctls.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_gem.h"
#include "ane_selector.h"

/**
 * struct ane_umap - a client's MemoryMapRequest mapping
 * @map: the DART mapping.
 * @link: entry in &ane_file.umaps.
 * @nbos: surfaces in @bos.
 * @bos: references on the mapped surfaces, held until unmapped.
 */
struct ane_umap {
	struct ane_dart_mapping *map;
	struct list_head link;
	u32 nbos;
	struct drm_gem_object *bos[] __counted_by(nbos);
};

/**
 * struct ane_smap - a surface's mapping for requests, kept across requests
 * @link: entry in &ane_file.smaps.
 * @obj: the surface; a reference is held while the entry exists.
 * @map: the mapping in the client's context (may have been evicted).
 * @usage: usage code it was made for.
 * @prot: protection class it was made with.
 * @closed: the handle was closed while a request used the mapping.
 * @last_used: jiffies when a request last took the mapping.
 */
struct ane_smap {
	struct list_head link;
	struct drm_gem_object *obj;
	struct ane_dart_mapping *map;
	u32 usage;
	u8 prot;
	bool closed;
	unsigned long last_used;
};

/* Idle entries kept per client beyond which the least recent goes. */
#define ANE_SMAP_KEEP	32

/* The client's isolation context, created on first use. */
struct ane_dart_ctx *ane_file_ctx(struct ane_file *af)
{
	struct ane_dart_ctx *ctx;

	mutex_lock(&af->ctx_lock);
	if (!af->ctx) {
		ctx = ane_dart_ctx_create(af->adev->dart);
		if (!IS_ERR(ctx))
			af->ctx = ctx;
	}
	ctx = af->ctx ?: ERR_PTR(-ENOMEM);
	mutex_unlock(&af->ctx_lock);
	return ctx;
}

static void ane_umap_free(struct ane_umap *um)
{
	u32 i;

	for (i = 0; i < um->nbos; i++)
		drm_gem_object_put(um->bos[i]);
	kfree(um);
}

/* Unmap and forget @sm unless a request uses it; 0 or -EBUSY. */
static int ane_smap_drop(struct ane_file *af, struct ane_smap *sm)
{
	lockdep_assert_held(&af->smap_lock);
	if (sm->map && ane_dart_unmap(sm->map))
		return -EBUSY;
	if (sm->closed)
		af->smaps_closed--;
	list_del(&sm->link);
	drm_gem_object_put(sm->obj);
	kfree(sm);
	return 0;
}

static void ane_smaps_reap_locked(struct ane_file *af)
{
	struct ane_smap *sm, *tmp;

	list_for_each_entry_safe(sm, tmp, &af->smaps, link)
		if (sm->closed)
			ane_smap_drop(af, sm);
}

/* Make room: drop the least recently used idle entries beyond the cap. */
static void ane_smaps_trim_locked(struct ane_file *af)
{
	struct ane_smap *sm, *tmp;
	u32 n = 0;

	list_for_each_entry_safe(sm, tmp, &af->smaps, link)
		if (++n > ANE_SMAP_KEEP && !ane_smap_drop(af, sm))
			n--;
}

/*
 * Unmap the idle cached entries: every one, or with @expired_only those
 * the device's DART cache time-to-live has run out for.  Returns how many.
 */
static u32 ane_smaps_flush_locked(struct ane_file *af, bool expired_only)
{
	u32 ttl = READ_ONCE(af->adev->dart_ttl_ms);
	struct ane_smap *sm, *tmp;
	u32 n = 0;

	if (expired_only && !ttl)
		return 0;
	list_for_each_entry_safe(sm, tmp, &af->smaps, link) {
		if (sm->closed)
			continue;
		if (expired_only &&
		    time_before(jiffies, sm->last_used + msecs_to_jiffies(ttl)))
			continue;
		if (!ane_smap_drop(af, sm))
			n++;
	}
	return n;
}

/**
 * ane_file_surface_map() - the pinned mapping a request uses for a surface
 * @af: the client.
 * @obj: the surface, referenced by the caller.
 * @usage: usage code (Table 28.5).
 * @prot: protection class.
 *
 * A surface keeps its mapping in the client's context from one request to
 * the next, so a request maps nothing it already had: the entry is made
 * on first use, found again by (surface, usage, protection), placed again
 * if the DART evicted it meanwhile, and goes when the client closes the
 * surface's handle (or the client goes).
 *
 * Return: the mapping, pinned with ane_dart_use() for the caller; or an
 * ERR_PTR: -ENOMEM, -ENOSPC when the context has no room, -EBUSY when the
 * context has %ANE_DART_MAX_INFLIGHT uses outstanding.
 */
struct ane_dart_mapping *ane_file_surface_map(struct ane_file *af,
					      struct drm_gem_object *obj,
					      u32 usage, u8 prot)
{
	struct ane_dart_ctx *ctx = ane_file_ctx(af);
	struct ane_bo *bo = to_ane_bo(obj);
	struct ane_dart_mapping *map;
	struct ane_smap *sm;
	int ret;

	if (IS_ERR(ctx))
		return ERR_CAST(ctx);
	mutex_lock(&af->smap_lock);
	if (af->smaps_closed)
		ane_smaps_reap_locked(af);
	ane_smaps_flush_locked(af, true);
	list_for_each_entry(sm, &af->smaps, link) {
		if (sm->obj != obj || sm->usage != usage || sm->prot != prot ||
		    sm->closed)
			continue;
		list_move(&sm->link, &af->smaps);
		/* evicted under address pressure: placed again */
		ret = ane_dart_use_placed(sm->map);
		goto out;
	}
	sm = kzalloc(sizeof(*sm), GFP_KERNEL_ACCOUNT);
	if (!sm) {
		mutex_unlock(&af->smap_lock);
		return ERR_PTR(-ENOMEM);
	}
	drm_gem_object_get(obj);
	sm->obj = obj;
	sm->usage = usage;
	sm->prot = prot;
	list_add(&sm->link, &af->smaps);
	ane_smaps_trim_locked(af);
	map = ane_dart_map(ctx, bo->frame_pa, bo->nframes, usage, prot, obj);
	if (IS_ERR(map)) {
		ret = PTR_ERR(map);
		ane_smap_drop(af, sm);
		goto unlock;
	}
	sm->map = map;
	ret = ane_dart_use(map);
out:
	sm->last_used = jiffies;
	map = sm->map;
unlock:
	mutex_unlock(&af->smap_lock);
	return ret ? ERR_PTR(ret) : map;
}

/**
 * ane_file_surface_close() - a handle of @obj in @af was closed
 * @af: the client.
 * @obj: the surface.
 *
 * Its cached mappings go now, or, while a request still uses one, once
 * the request is released.
 */
void ane_file_surface_close(struct ane_file *af, struct drm_gem_object *obj)
{
	struct ane_smap *sm, *tmp;

	mutex_lock(&af->smap_lock);
	list_for_each_entry_safe(sm, tmp, &af->smaps, link) {
		if (sm->obj != obj || sm->closed || !ane_smap_drop(af, sm))
			continue;
		sm->closed = true;
		af->smaps_closed++;
	}
	mutex_unlock(&af->smap_lock);
}

/* After a request's release: unmap what was closed while it ran. */
void ane_file_surfaces_reap(struct ane_file *af)
{
	if (!READ_ONCE(af->smaps_closed))
		return;
	mutex_lock(&af->smap_lock);
	ane_smaps_reap_locked(af);
	mutex_unlock(&af->smap_lock);
}

/* At the client's release: every cached mapping goes. */
void ane_file_surfaces_fini(struct ane_file *af)
{
	struct ane_smap *sm, *tmp;

	mutex_lock(&af->smap_lock);
	list_for_each_entry_safe(sm, tmp, &af->smaps, link)
		WARN_ON(ane_smap_drop(af, sm));
	mutex_unlock(&af->smap_lock);
}

/**
 * ane_file_flush_inactive() - FlushInactiveDARTMappings for one client
 * @af: the client.
 *
 * Return: how many cached request mappings no request used were unmapped.
 */
u32 ane_file_flush_inactive(struct ane_file *af)
{
	u32 n;

	mutex_lock(&af->smap_lock);
	n = ane_smaps_flush_locked(af, false);
	mutex_unlock(&af->smap_lock);
	return n;
}

/**
 * ane_file_unmap_buffers() - UnmapDartBuffers for one client
 * @af: the client.
 *
 * Its MemoryMapRequest mappings that no request uses are unmapped (their
 * addresses fault from now on; MemoryUnMapRequest of one is -ESRCH), and
 * so are its idle cached request mappings (made again on next use).
 *
 * Return: how many mappings were unmapped.
 */
u32 ane_file_unmap_buffers(struct ane_file *af)
{
	struct ane_umap *um, *tmp;
	LIST_HEAD(gone);
	u32 n;

	n = ane_file_flush_inactive(af);
	mutex_lock(&af->ctx_lock);
	list_for_each_entry_safe(um, tmp, &af->umaps, link)
		if (!ane_dart_unmap(um->map))
			list_move(&um->link, &gone);
	mutex_unlock(&af->ctx_lock);
	list_for_each_entry_safe(um, tmp, &gone, link) {
		list_del(&um->link);
		ane_umap_free(um);
		n++;
	}
	return n;
}

/**
 * ane_file_map_counts() - a client's mappings, for the diagnostics
 * @af: the client.
 * @umaps: its MemoryMapRequest mappings (output).
 * @smaps: its cached request mappings (output).
 */
void ane_file_map_counts(struct ane_file *af, u32 *umaps, u32 *smaps)
{
	struct ane_umap *um;
	struct ane_smap *sm;

	*umaps = 0;
	*smaps = 0;
	mutex_lock(&af->ctx_lock);
	list_for_each_entry(um, &af->umaps, link)
		(*umaps)++;
	mutex_unlock(&af->ctx_lock);
	mutex_lock(&af->smap_lock);
	list_for_each_entry(sm, &af->smaps, link)
		(*smaps) += !sm->closed;
	mutex_unlock(&af->smap_lock);
}

/* Called at file release: nothing of the client can be in use any more. */
void ane_file_unmap_all(struct ane_file *af)
{
	struct ane_umap *um, *tmp;

	list_for_each_entry_safe(um, tmp, &af->umaps, link) {
		WARN_ON(ane_dart_unmap(um->map));
		list_del(&um->link);
		ane_umap_free(um);
	}
	ane_dart_ctx_put(af->ctx);
	af->ctx = NULL;
}

/*
 * Look up one surface entry and measure its range: the first frame and the
 * frame count.  Takes a reference on the surface into @um.
 */
static int ane_map_measure(struct ane_file *af, const struct drm_ane_map_surface *s,
			   u32 usage, struct ane_umap *um, u32 *first, u32 *count)
{
	struct drm_gem_object *obj;
	u64 size;

	if (s->usage != usage || s->offset & ANE_DART_PAGE_MASK)
		return -EINVAL;
	obj = drm_gem_object_lookup(af->drm_file, s->handle);
	if (!obj)
		return -ENOENT;
	um->bos[um->nbos++] = obj;
	if (s->offset >= obj->size)
		return -ERANGE;
	size = s->size ? round_up(s->size, ANE_DART_PAGE_SIZE) : obj->size - s->offset;
	if (s->size > obj->size || size > obj->size - s->offset)
		return -ERANGE;
	*first = s->offset >> ANE_DART_PAGE_SHIFT;
	*count = size >> ANE_DART_PAGE_SHIFT;
	return 0;
}

/**
 * ane_map_args_check() - field checks of a MemoryMapRequest body
 * @a: the body.
 *
 * Return: 0, or -EINVAL naming no field (the caller logs which).
 */
int ane_map_args_check(const struct drm_ane_memory_map_args *a)
{
	u32 i;

	if (a->flags || a->iova || a->reserved[0] || a->reserved[1])
		return -EINVAL;
	if (!a->num_surfaces || a->num_surfaces > ANE_MAP_MAX_SURFACES)
		return -EINVAL;
	if (a->direction > 3)
		return -EINVAL;
	for (i = a->num_surfaces; i < ANE_MAP_MAX_SURFACES; i++)
		if (memchr_inv(&a->surfaces[i], 0, sizeof(a->surfaces[i])))
			return -EINVAL;
	return ane_dart_usage_check(a->surfaces[0].usage, false);
}

/* Direct-path selector 5. */
int ane_sel_memory_map(struct ane_file *af, const struct ane_selector *sel,
		       void *args)
{
	struct drm_ane_memory_map *mr = args;
	const struct drm_ane_memory_map_args *a = &mr->in;
	u32 first[ANE_MAP_MAX_SURFACES], count[ANE_MAP_MAX_SURFACES];
	u32 usage = a->surfaces[0].usage, nframes = 0, i, j;
	struct ane_dart_mapping *map;
	struct ane_dart_ctx *ctx;
	phys_addr_t *frames;
	struct ane_umap *um;
	int ret;

	if (mr->token != af->token)
		return -EACCES;
	ret = ane_map_args_check(a);
	if (ret) {
		ane_dbg(af->adev, "MemoryMapRequest: bad field (num %u dir %u usage %u): %d\n",
			a->num_surfaces, a->direction, usage, ret);
		return ret;
	}
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	um = kzalloc(struct_size(um, bos, a->num_surfaces), GFP_KERNEL_ACCOUNT);
	if (!um)
		return -ENOMEM;

	for (i = 0; i < a->num_surfaces; i++) {
		ret = ane_map_measure(af, &a->surfaces[i], usage, um, &first[i], &count[i]);
		if (ret) {
			ane_dbg(af->adev, "MemoryMapRequest: surface %u (handle %u): %d\n",
				i, a->surfaces[i].handle, ret);
			goto err;
		}
		nframes += count[i];
	}
	frames = kvmalloc_array(nframes, sizeof(*frames), GFP_KERNEL_ACCOUNT);
	if (!frames) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0, nframes = 0; i < a->num_surfaces; i++)
		for (j = 0; j < count[i]; j++)
			frames[nframes++] = to_ane_bo(um->bos[i])->frame_pa[first[i] + j];

	map = ane_dart_map(ctx, frames, nframes, usage,
			   ane_dart_prot_from_dir(a->direction), um);
	kvfree(frames);
	if (IS_ERR(map)) {
		ret = PTR_ERR(map);
		goto err;
	}
	um->map = map;
	/*
	 * Read before the lock goes: listed, the mapping is another thread's
	 * to unmap (and free) by its address, which is easily guessed.
	 */
	mr->iova = map->iova;
	mutex_lock(&af->ctx_lock);
	list_add_tail(&um->link, &af->umaps);
	mutex_unlock(&af->ctx_lock);
	return 0;

err:
	ane_umap_free(um);
	return ret;
}

/* Direct-path selector 6. */
int ane_sel_memory_unmap(struct ane_file *af, const struct ane_selector *sel,
			 void *args)
{
	struct drm_ane_memory_unmap *ur = args;
	const struct drm_ane_memory_map_args *a = &ur->in;
	struct ane_umap *um, *found = NULL;
	int ret;

	/* Only the address names the mapping: every other field is zero. */
	if (!a->iova || a->num_surfaces || a->direction || a->flags ||
	    a->reserved[0] || a->reserved[1] ||
	    memchr_inv(a->surfaces, 0, sizeof(a->surfaces)))
		return -EINVAL;

	/*
	 * A reclaimed mapping's address may have been handed out again: the
	 * live mapping at an address goes first, then reclaimed ones.
	 */
	mutex_lock(&af->ctx_lock);
	list_for_each_entry(um, &af->umaps, link) {
		if (um->map->iova != a->iova)
			continue;
		if (!found || found->map->evicted)
			found = um;
		if (!um->map->evicted)
			break;
	}
	if (!found) {
		mutex_unlock(&af->ctx_lock);
		return -ESRCH;
	}
	ret = ane_dart_unmap(found->map);
	if (!ret)
		list_del(&found->link);
	mutex_unlock(&af->ctx_lock);
	if (!ret)
		ane_umap_free(found);
	return ret;
}

/* Run @fn for an open client, under its state lock. */
static int ane_file_enter(struct ane_file *af)
{
	down_read(&af->state_lock);
	if (af->state == ANE_CLIENT_OPEN)
		return 0;
	up_read(&af->state_lock);
	return af->state == ANE_CLIENT_NEW ? -ENOTCONN : -ESHUTDOWN;
}

static void ane_file_exit(struct ane_file *af)
{
	up_read(&af->state_lock);
}

/* DRM_IOCTL_ANE_DMA */
int ane_dma_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_ane_dma *args = data;
	struct ane_file *af = file->driver_priv;
	bool write = args->flags & ANE_DMA_WRITE;
	void __user *uptr = u64_to_user_ptr(args->data);
	struct ane_dart_ctx *ctx;
	void *buf;
	int ret;

	if (args->flags & ~ANE_DMA_WRITE || args->reserved)
		return -EINVAL;
	if (!args->size || args->size > ANE_DMA_MAX_SIZE)
		return -EINVAL;
	ret = ane_file_enter(af);
	if (ret)
		return ret;
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out;
	}
	buf = kvmalloc(args->size, GFP_KERNEL_ACCOUNT);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	if (write && copy_from_user(buf, uptr, args->size)) {
		ret = -EFAULT;
		goto out_free;
	}
	ret = ane_dart_ctx_dma(ctx, args->iova, buf, args->size, write, NULL);
	if (!ret && !write && copy_to_user(uptr, buf, args->size))
		ret = -EFAULT;
out_free:
	kvfree(buf);
out:
	ane_file_exit(af);
	return ret;
}

/* DRM_IOCTL_ANE_GET_FAULT */
int ane_get_fault_ioctl(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_ane_get_fault *args = data;
	struct ane_file *af = file->driver_priv;
	struct drm_ane_dart_fault *out = &args->fault;
	struct ane_dart_fault f;
	struct ane_dart_ctx *ctx;
	int ret;

	if (args->flags)
		return -EINVAL;
	ret = ane_file_enter(af);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	args->count = 0;
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out;
	}
	mutex_lock(&ctx->lock);
	args->count = ctx->faults;
	mutex_unlock(&ctx->lock);
	if (ane_dart_last_fault(af->adev->dart, ctx->id, &f)) {
		out->seq = f.seq;
		out->address = f.address;
		out->hw_status = f.hw_status;
		out->hw_error = f.hw_error;
		out->hw_class = f.hw_error == ANE_DART_FAULT_L2_INVALID ||
				f.hw_error == ANE_DART_FAULT_L3_INVALID ? 1 :
				f.hw_error == ANE_DART_FAULT_STREAM ? 3 : 2;
		out->is_write = f.is_write;
		out->sid = f.sid;
		out->ttbr_index = f.ttbr_index;
		out->l2_index = f.l2_index;
		out->l3_index = f.l3_index;
		memcpy(out->axi_id, f.axi_id, sizeof(out->axi_id));
		out->ctx_id = f.ctx_id;
	}
out:
	ane_file_exit(af);
	return ret;
}

/* Faults charged to the client, for GetStatus. */
u32 ane_file_dart_faults(struct ane_file *af)
{
	u32 n = 0;

	mutex_lock(&af->ctx_lock);
	if (af->ctx) {
		mutex_lock(&af->ctx->lock);
		n = af->ctx->faults;
		mutex_unlock(&af->ctx->lock);
	}
	mutex_unlock(&af->ctx_lock);
	return n;
}
