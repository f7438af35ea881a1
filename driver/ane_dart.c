// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DART, driver half: translation contexts, their page tables and
 * device-address space, binding contexts to hardware slots, and fault
 * records.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/iopoll.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_gem.h"

/* A page-table page is one 16 KB granule. */
#define ANE_DART_TABLE_ORDER	(ANE_DART_PAGE_SHIFT - PAGE_SHIFT)

static u64 *ane_dart_table_alloc(phys_addr_t *pa)
{
	struct page *p;

	p = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_ZERO, ANE_DART_TABLE_ORDER);
	if (!p)
		return NULL;
	*pa = page_to_phys(p);
	return page_address(p);
}

static void ane_dart_table_free(u64 *table)
{
	if (table)
		free_pages((unsigned long)table, ANE_DART_TABLE_ORDER);
}

/* Invalidate the translation cache of the slot @ctx is bound to. */
static void ane_dart_flush_ctx(struct ane_dart_ctx *ctx)
{
	struct ane_dart *dart = ctx->dart;
	int slot = READ_ONCE(ctx->slot);
	u32 status;

	if (slot < 0)
		return;
	ane_dart_reg_write(dart, ANE_DART_TLB_CMD, ANE_DART_TLB_FLUSH | BIT(slot));
	/* The emulated flush is synchronous; poll as on silicon anyway. */
	if (read_poll_timeout_atomic(ane_dart_reg_read, status,
				     !(status & ANE_DART_TLB_BUSY), 0, 1000, false,
				     dart, ANE_DART_TLB_STATUS))
		drm_warn_once(&dart->adev->drm, "DART TLB flush timed out\n");
}

/* Leaf-table slot for @iova, allocating the L3 table if @alloc. */
static u64 *ane_dart_pte_slot(struct ane_dart_ctx *ctx, u64 iova, bool alloc)
{
	u32 l2i = ane_dart_l2_index(iova);
	phys_addr_t pa;

	lockdep_assert_held(&ctx->lock);
	if (!ctx->l3[l2i]) {
		if (!alloc)
			return NULL;
		ctx->l3[l2i] = ane_dart_table_alloc(&pa);
		if (!ctx->l3[l2i])
			return NULL;
		ctx->table_bytes += ANE_DART_PAGE_SIZE;
		WRITE_ONCE(ctx->l2[l2i], ane_dart_make_pte(pa));
	}
	return &ctx->l3[l2i][ane_dart_l3_index(iova)];
}

/* Clear @n leaf PTEs at @iova; the caller flushes the translation cache. */
void ane_dart_clear_range(struct ane_dart_ctx *ctx, u64 iova, u32 n)
{
	u32 i;

	lockdep_assert_held(&ctx->lock);
	for (i = 0; i < n; i++) {
		u64 *pte = ane_dart_pte_slot(ctx, iova + (u64)i * ANE_DART_PAGE_SIZE,
					     false);

		if (pte && *pte) {
			WRITE_ONCE(*pte, 0);
			ctx->mapped_pages--;
		}
	}
}

/**
 * ane_dart_set_range() - write leaf PTEs for @n frames at @iova
 * @ctx: the context, locked.
 * @iova: first device address, 16 KB aligned, inside the aperture.
 * @frames: physical address of each 16 KB frame.
 * @n: frames.
 *
 * Mapping a page that is already valid is an error, never an overwrite:
 * the range is left as it was.
 *
 * Return: 0, -EEXIST or -ENOMEM.
 */
int ane_dart_set_range(struct ane_dart_ctx *ctx, u64 iova,
		       const phys_addr_t *frames, u32 n)
{
	u32 i;

	lockdep_assert_held(&ctx->lock);
	for (i = 0; i < n; i++) {
		u64 *pte = ane_dart_pte_slot(ctx, iova + (u64)i * ANE_DART_PAGE_SIZE,
					     true);

		if (!pte || *pte || (frames[i] & ANE_DART_PAGE_MASK)) {
			ane_dart_clear_range(ctx, iova, i);
			return !pte ? -ENOMEM : *pte ? -EEXIST : -EINVAL;
		}
		WRITE_ONCE(*pte, ane_dart_make_pte(frames[i]));
		ctx->mapped_pages++;
	}
	return 0;
}

/**
 * ane_dart_ctx_create() - a new translation context
 * @dart: the controller.
 *
 * Return: the context with one reference, or an ERR_PTR.
 */
struct ane_dart_ctx *ane_dart_ctx_create(struct ane_dart *dart)
{
	struct ane_dart_ctx *ctx;
	phys_addr_t pa;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ctx->l2 = ane_dart_table_alloc(&pa);
	if (!ctx->l2) {
		kfree(ctx);
		return ERR_PTR(-ENOMEM);
	}
	ctx->table_bytes = ANE_DART_PAGE_SIZE;
	ctx->dart = dart;
	kref_init(&ctx->kref);
	mutex_init(&ctx->lock);
	drm_mm_init(&ctx->mm, ANE_DART_ALLOC_START,
		    ANE_DART_APERTURE_END - ANE_DART_ALLOC_START);
	INIT_LIST_HEAD(&ctx->mappings);
	INIT_LIST_HEAD(&ctx->lru);
	ctx->slot = -1;

	mutex_lock(&dart->ctx_lock);
	ctx->id = dart->next_ctx_id++;
	list_add_tail(&ctx->node, &dart->ctx_list);
	mutex_unlock(&dart->ctx_lock);
	return ctx;
}

static void ane_dart_mapping_free(struct ane_dart_mapping *map)
{
	list_del(&map->link);
	kfree(map->frames);
	kfree(map);
}

static void ane_dart_ctx_release(struct kref *kref)
{
	struct ane_dart_ctx *ctx = container_of(kref, struct ane_dart_ctx, kref);
	struct ane_dart *dart = ctx->dart;
	struct ane_dart_mapping *map, *tmp;
	unsigned int i;

	ane_dart_unbind(ctx);

	mutex_lock(&dart->ctx_lock);
	list_del(&ctx->node);
	mutex_unlock(&dart->ctx_lock);

	/* Unbound: no walk can reach these tables any more. */
	list_for_each_entry_safe(map, tmp, &ctx->mappings, link) {
		if (drm_mm_node_allocated(&map->node))
			drm_mm_remove_node(&map->node);
		ane_dart_mapping_free(map);
	}
	drm_mm_takedown(&ctx->mm);
	for (i = 0; i < ANE_DART_L2_USED; i++)
		ane_dart_table_free(ctx->l3[i]);
	ane_dart_table_free(ctx->l2);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}

void ane_dart_ctx_put(struct ane_dart_ctx *ctx)
{
	if (ctx)
		kref_put(&ctx->kref, ane_dart_ctx_release);
}

/**
 * ane_dart_prot_from_dir() - the direction-to-protection mapper
 * @direction: 1 to the device (the engine reads), 2 from the device (the
 *	engine writes), 3 both, 0 none.
 *
 * A device-write output is class 1, a read-only input would be class 2 and
 * read-write or no direction is class 3.  As on the M1, the controller's
 * configuration collapses class 2 into 3.
 *
 * Return: the protection class.
 */
u8 ane_dart_prot_from_dir(u32 direction)
{
	switch (direction) {
	case 2:
		return ANE_PROT_DEVICE_WRITE;
	case 1:		/* ANE_PROT_READ_ONLY, collapsed */
	case 3:
	default:
		return ANE_PROT_READ_WRITE;
	}
}

/**
 * ane_dart_usage_check() - is @usage a Table 28.5 code the caller may use?
 * @usage: the usage code.
 * @kernel: the mapping is the driver's own (firmware codes allowed).
 *
 * Return: 0, -EINVAL for an unknown code, -EPERM for a firmware code from
 * a client.
 */
int ane_dart_usage_check(u32 usage, bool kernel)
{
	switch (usage) {
	case ANE_USAGE_INPUT:
	case ANE_USAGE_OUTPUT:
	case ANE_USAGE_INTERMEDIATE:
	case ANE_USAGE_WEIGHTS:
	case ANE_USAGE_PROGRAM:
	case ANE_USAGE_CONSTANTS:
		return 0;
	case ANE_USAGE_FW_SHARED:
	case ANE_USAGE_FW_HEAP:
		return kernel ? 0 : -EPERM;
	default:
		return -EINVAL;
	}
}

/* Reclaim the least recently used idle mapping.  Return false if none. */
static bool ane_dart_evict_one(struct ane_dart_ctx *ctx)
{
	struct ane_dart_mapping *map;

	lockdep_assert_held(&ctx->lock);
	list_for_each_entry(map, &ctx->lru, lru) {
		if (atomic_read(&map->users))
			continue;
		ane_dart_clear_range(ctx, map->iova, map->nframes);
		ane_dart_flush_ctx(ctx);
		drm_mm_remove_node(&map->node);
		list_del_init(&map->lru);
		map->evicted = true;
		ctx->evictions++;
		return true;
	}
	return false;
}

/*
 * Give @map an address and write its PTEs, reclaiming idle mappings under
 * address pressure; it becomes the most recently used.
 */
static int ane_dart_place_locked(struct ane_dart_ctx *ctx,
				 struct ane_dart_mapping *map)
{
	int ret;

	lockdep_assert_held(&ctx->lock);
	do {
		ret = drm_mm_insert_node_generic(&ctx->mm, &map->node, map->size,
						 ANE_DART_PAGE_SIZE, 0,
						 DRM_MM_INSERT_BEST);
	} while (ret == -ENOSPC && ane_dart_evict_one(ctx));
	if (ret)
		return ret;
	map->iova = map->node.start;
	ret = ane_dart_set_range(ctx, map->iova, map->frames, map->nframes);
	if (ret) {
		drm_mm_remove_node(&map->node);
		return ret;
	}
	map->evicted = false;
	map->last_use = ++ctx->lru_clock;
	list_add_tail(&map->lru, &ctx->lru);
	return 0;
}

/**
 * ane_dart_map() - map frames at a new device address
 * @ctx: the context.
 * @frames: physical address of each 16 KB frame (16 KB aligned).
 * @nframes: frames, at least one.
 * @usage: usage code of Table 28.5.
 * @prot: protection class.
 * @owner: opaque tag of the mapping's owner.
 *
 * The address is allocated 16 KB aligned below the aperture end (and so
 * below the 4 GiB ceiling).  Under address pressure idle mappings are
 * reclaimed, least recently used first; a mapping with users is never.
 *
 * Return: the mapping, or ERR_PTR(-ENOSPC) when even eviction cannot make
 * room, -ENOMEM, or -EEXIST if a page was already valid.
 */
struct ane_dart_mapping *
ane_dart_map(struct ane_dart_ctx *ctx, const phys_addr_t *frames, u32 nframes,
	     u32 usage, u8 prot, void *owner)
{
	struct ane_dart_mapping *map;
	int ret;

	if (!nframes)
		return ERR_PTR(-EINVAL);
	/* Larger than the whole aperture: fail without evicting anything. */
	if ((u64)nframes * ANE_DART_PAGE_SIZE > ANE_DART_APERTURE_END - ANE_DART_ALLOC_START)
		return ERR_PTR(-ENOSPC);
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map)
		return ERR_PTR(-ENOMEM);
	map->frames = kmemdup(frames, nframes * sizeof(*frames),
			      GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!map->frames) {
		kfree(map);
		return ERR_PTR(-ENOMEM);
	}
	map->ctx = ctx;
	map->nframes = nframes;
	map->size = (u64)nframes * ANE_DART_PAGE_SIZE;
	map->usage = usage;
	map->prot = prot;
	map->owner = owner;
	INIT_LIST_HEAD(&map->lru);

	mutex_lock(&ctx->lock);
	ret = ane_dart_place_locked(ctx, map);
	if (ret)
		goto err_unlock;
	list_add_tail(&map->link, &ctx->mappings);
	mutex_unlock(&ctx->lock);
	return map;

err_unlock:
	mutex_unlock(&ctx->lock);
	kfree(map->frames);
	kfree(map);
	return ERR_PTR(ret);
}

/**
 * ane_dart_unmap() - remove a mapping
 * @map: the mapping.
 *
 * The leaf PTEs go back to all-zero and the translation cache of the bound
 * slot is flushed before the address range is reused.
 *
 * Return: 0, or -EBUSY while queued or running work uses the mapping.
 */
int ane_dart_unmap(struct ane_dart_mapping *map)
{
	struct ane_dart_ctx *ctx = map->ctx;

	mutex_lock(&ctx->lock);
	if (atomic_read(&map->users)) {
		mutex_unlock(&ctx->lock);
		return -EBUSY;
	}
	if (!map->evicted) {
		ane_dart_clear_range(ctx, map->iova, map->nframes);
		ane_dart_flush_ctx(ctx);
		drm_mm_remove_node(&map->node);
		list_del(&map->lru);
	}
	ane_dart_mapping_free(map);
	mutex_unlock(&ctx->lock);
	return 0;
}

/**
 * ane_dart_find() - the mapping that starts at @iova
 * @ctx: the context.
 * @iova: the address a map request returned.
 *
 * Return: the mapping (mapped or evicted), or NULL.
 */
struct ane_dart_mapping *ane_dart_find(struct ane_dart_ctx *ctx, u64 iova)
{
	struct ane_dart_mapping *map, *found = NULL;

	mutex_lock(&ctx->lock);
	list_for_each_entry(map, &ctx->mappings, link) {
		if (map->iova == iova) {
			found = map;
			break;
		}
	}
	mutex_unlock(&ctx->lock);
	return found;
}

/* Pin @map; an evicted one fails with -ESTALE or, if @place, is placed. */
static int __ane_dart_use(struct ane_dart_mapping *map, bool place)
{
	struct ane_dart_ctx *ctx = map->ctx;
	int ret = 0;

	mutex_lock(&ctx->lock);
	if (map->evicted)
		ret = place ? ane_dart_place_locked(ctx, map) : -ESTALE;
	if (!ret && atomic_read(&ctx->inflight) >= ANE_DART_MAX_INFLIGHT)
		ret = -EBUSY;
	if (!ret) {
		atomic_inc(&ctx->inflight);
		atomic_inc(&map->users);
		map->last_use = ++ctx->lru_clock;
		list_move_tail(&map->lru, &ctx->lru);
	}
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * ane_dart_use() - pin a mapping for queued or running work
 * @map: the mapping.
 *
 * A used mapping is the most recently used one and is never evicted.
 * Each use also counts against the pool's outstanding-request cap.
 *
 * Return: 0; -ESTALE if the mapping was evicted; -EBUSY if the pool
 * already has %ANE_DART_MAX_INFLIGHT requests outstanding.
 */
int ane_dart_use(struct ane_dart_mapping *map)
{
	return __ane_dart_use(map, false);
}

/**
 * ane_dart_use_placed() - pin a kernel-managed mapping, placing it again
 * @map: the mapping.
 *
 * Like ane_dart_use(), for a mapping whose address no client holds (a
 * request's surfaces, a program's own buffers): one that was evicted is
 * first given an address again, which may differ from the old one.
 *
 * Return: 0; -ENOSPC, -ENOMEM or -EEXIST from placing it; -EBUSY as
 * ane_dart_use().
 */
int ane_dart_use_placed(struct ane_dart_mapping *map)
{
	return __ane_dart_use(map, true);
}

/**
 * ane_dart_unuse() - release a pin taken by ane_dart_use()
 * @map: the mapping.
 *
 * Context: any, including atomic (a request's completion).
 */
void ane_dart_unuse(struct ane_dart_mapping *map)
{
	struct ane_dart_ctx *ctx = map->ctx;

	if (!WARN_ON_ONCE(atomic_dec_if_positive(&map->users) < 0))
		atomic_dec(&ctx->inflight);
}

static void ane_dart_program_slot(struct ane_dart *dart, int slot,
				  struct ane_dart_ctx *ctx)
{
	u32 enabled = ane_dart_reg_read(dart, ANE_DART_ENABLED_STREAMS);

	if (ctx) {
		ane_dart_reg_write(dart, ANE_DART_TTBR(slot), ANE_DART_TTBR_VALID |
				   (u32)(virt_to_phys(ctx->l2) >> ANE_DART_TTBR_SHIFT));
		ane_dart_reg_write(dart, ANE_DART_TCR(slot), ANE_DART_TCR_TRANSLATE);
		enabled |= BIT(slot);
	} else {
		ane_dart_reg_write(dart, ANE_DART_TCR(slot), 0);
		ane_dart_reg_write(dart, ANE_DART_TTBR(slot), 0);
		enabled &= ~BIT(slot);
	}
	ane_dart_reg_write(dart, ANE_DART_ENABLED_STREAMS, enabled);
	ane_dart_reg_write(dart, ANE_DART_TLB_CMD, ANE_DART_TLB_FLUSH | BIT(slot));
}

static bool ane_dart_ctx_idle(struct ane_dart_ctx *ctx)
{
	bool idle;

	mutex_lock(&ctx->lock);
	idle = !atomic_read(&ctx->inflight);
	mutex_unlock(&ctx->lock);
	return idle;
}

/**
 * ane_dart_bind() - bind a context to a hardware slot
 * @ctx: the context.
 *
 * The base context owns slot 0.  A client context takes a free slot of
 * iso1..iso7; with all seven taken it takes over the slot of the context
 * bound longest ago that has no outstanding requests, by switching the
 * slot's TTBR and flushing its translation cache.  More clients than
 * hardware contexts therefore share the slots by time, as long as at
 * most seven have work outstanding at once.
 *
 * Return: the slot, or -EBUSY when every slot's context has outstanding
 * requests.
 */
int ane_dart_bind(struct ane_dart_ctx *ctx)
{
	struct ane_dart *dart = ctx->dart;
	struct ane_dart_ctx *victim = NULL;
	int slot, ret;

	mutex_lock(&dart->ctx_lock);
	if (ctx->slot >= 0) {
		ret = ctx->slot;
		goto out;
	}
	for (slot = 1; slot < ANE_DART_NUM_SLOTS; slot++) {
		struct ane_dart_ctx *c = dart->slots[slot];

		if (!c)
			break;
		if (ane_dart_ctx_idle(c) && (!victim || c->last_bound < victim->last_bound))
			victim = c;
	}
	if (slot == ANE_DART_NUM_SLOTS) {
		if (!victim) {
			ret = -EBUSY;
			goto out;
		}
		slot = victim->slot;
		victim->slot = -1;
		dart->slot_switches++;
	}
	dart->slots[slot] = ctx;
	WRITE_ONCE(dart->sid_ctx[slot], ctx->id);
	ctx->slot = slot;
	ctx->last_bound = ++dart->bind_clock;
	ane_dart_program_slot(dart, slot, ctx);
	ret = slot;
out:
	mutex_unlock(&dart->ctx_lock);
	return ret;
}

void ane_dart_unbind(struct ane_dart_ctx *ctx)
{
	struct ane_dart *dart = ctx->dart;

	mutex_lock(&dart->ctx_lock);
	if (ctx->slot >= 0) {
		ane_dart_program_slot(dart, ctx->slot, NULL);
		dart->slots[ctx->slot] = NULL;
		ctx->slot = -1;
	}
	mutex_unlock(&dart->ctx_lock);
}

/* Hold off slot stealing while the engine works for @ctx. */
static int ane_dart_ctx_pin(struct ane_dart_ctx *ctx)
{
	int ret = 0;

	mutex_lock(&ctx->lock);
	if (atomic_read(&ctx->inflight) >= ANE_DART_MAX_INFLIGHT)
		ret = -EBUSY;
	else
		atomic_inc(&ctx->inflight);
	mutex_unlock(&ctx->lock);
	return ret;
}

static void ane_dart_ctx_unpin(struct ane_dart_ctx *ctx)
{
	atomic_dec(&ctx->inflight);
}

/**
 * ane_dart_ctx_dma() - engine DMA on behalf of a context
 * @ctx: the context.
 * @iova: device address.
 * @buf: kernel buffer.
 * @len: bytes.
 * @write: true to write memory.
 * @fault: filled with the fault record when the access faults (may be
 *	NULL).
 *
 * Binds @ctx to a slot and issues the access on that slot's stream, so it
 * sees exactly what the engine would for this context.
 *
 * Return: 0; -ENXIO on a translation fault; -EBUSY if no slot can be had.
 */
int ane_dart_ctx_dma(struct ane_dart_ctx *ctx, u64 iova, void *buf,
		     size_t len, bool write, struct ane_dart_fault *fault)
{
	int slot, ret;

	ret = ane_dart_ctx_pin(ctx);
	if (ret)
		return ret;
	slot = ane_dart_bind(ctx);
	if (slot < 0) {
		ane_dart_ctx_unpin(ctx);
		return slot;
	}
	ret = ane_dart_dma(ctx->dart, slot, iova, buf, len, write);
	if (ret == -EFAULT) {
		mutex_lock(&ctx->lock);
		ctx->faults++;
		mutex_unlock(&ctx->lock);
		if (fault)
			ane_dart_last_fault(ctx->dart, ctx->id, fault);
		ret = -ENXIO;
	}
	ane_dart_ctx_unpin(ctx);
	return ret;
}

static const char *ane_dart_fault_class(u32 code)
{
	switch (code) {
	case ANE_DART_FAULT_L2_INVALID:
	case ANE_DART_FAULT_L3_INVALID:
		return "translation";
	case ANE_DART_FAULT_APERTURE:
	case ANE_DART_FAULT_CEILING:
		return "aperture";
	default:
		return "stream";
	}
}

/**
 * ane_dart_irq() - the DART interrupt: capture and contain a fault
 * @dart: the controller.
 *
 * Reads the latched error registers, keeps an IODARTErrorInfo-shaped
 * record, and clears the latch.  The fault fails only the access that
 * caused it.  Runs in the context of the faulting access; does not sleep.
 */
void ane_dart_irq(struct ane_dart *dart)
{
	u32 status = ane_dart_reg_read(dart, ANE_DART_ERROR_STATUS);
	struct ane_dart_fault *f;
	u64 addr;
	u32 sid;

	if (!(status & ANE_DART_ERR_FLAG))
		return;
	addr = (u64)ane_dart_reg_read(dart, ANE_DART_ERROR_ADDR_HI) << 32 |
	       ane_dart_reg_read(dart, ANE_DART_ERROR_ADDR_LO);
	sid = (status & ANE_DART_ERR_SID_MASK) >> ANE_DART_ERR_SID_SHIFT;

	spin_lock(&dart->fault_lock);
	f = &dart->faults[dart->fault_head];
	dart->fault_head = (dart->fault_head + 1) % ANE_DART_FAULT_LOG;
	if (dart->fault_count < ANE_DART_FAULT_LOG)
		dart->fault_count++;
	memset(f, 0, sizeof(*f));
	f->type = "DART translation fault";
	f->hw_error = status & ANE_DART_ERR_CODE_MASK;
	f->hw_class = ane_dart_fault_class(f->hw_error);
	f->hw_status = status;
	f->is_write = !!(status & ANE_DART_ERR_WRITE);
	f->sid = sid;
	f->address = addr;
	f->ttbr_index = sid;
	f->l2_index = ane_dart_l2_index(addr);
	f->l3_index = ane_dart_l3_index(addr);
	f->axi_id[0] = sid;
	f->ctx_id = READ_ONCE(dart->sid_ctx[sid]);
	f->seq = ++dart->fault_seq;
	spin_unlock(&dart->fault_lock);

	drm_dbg_driver(&dart->adev->drm,
		       "DART %s fault: sid %u ctx %u iova 0x%llx %s code %u\n",
		       ane_dart_fault_class(status & ANE_DART_ERR_CODE_MASK), sid,
		       READ_ONCE(dart->sid_ctx[sid]), addr,
		       status & ANE_DART_ERR_WRITE ? "write" : "read",
		       (u32)(status & ANE_DART_ERR_CODE_MASK));

	ane_dart_reg_write(dart, ANE_DART_ERROR_STATUS, ANE_DART_ERR_FLAG);
}

/**
 * ane_dart_last_fault() - the newest fault record of a context
 * @dart: the controller.
 * @ctx_id: the context id.
 * @out: the record.
 *
 * Return: true if a record was found.
 */
bool ane_dart_last_fault(struct ane_dart *dart, u32 ctx_id,
			 struct ane_dart_fault *out)
{
	unsigned int i, idx;
	bool found = false;

	spin_lock(&dart->fault_lock);
	for (i = 1; i <= dart->fault_count; i++) {
		idx = (dart->fault_head + ANE_DART_FAULT_LOG - i) % ANE_DART_FAULT_LOG;
		if (dart->faults[idx].ctx_id == ctx_id) {
			*out = dart->faults[idx];
			found = true;
			break;
		}
	}
	spin_unlock(&dart->fault_lock);
	return found;
}

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

/* ------------------------------------------------------------ debugfs */

static int ane_dart_debugfs_summary(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_dart *dart = to_ane_device(entry->dev)->dart;
	struct ane_dart_ctx *ctx;
	int slot;

	mutex_lock(&dart->ctx_lock);
	seq_printf(m, "granule 0x%lx aperture 0x%llx-0x%llx ceiling 0x%llx\n",
		   ANE_DART_PAGE_SIZE, ANE_DART_APERTURE_BASE,
		   ANE_DART_APERTURE_END, ANE_DART_CEILING);
	seq_printf(m, "enabled streams 0x%08x  tlb hits %llu misses %llu  ttbr switches %llu\n",
		   ane_dart_reg_read(dart, ANE_DART_ENABLED_STREAMS),
		   dart->tlb_hits, dart->tlb_misses, dart->slot_switches);
	for (slot = 0; slot < ANE_DART_NUM_SLOTS; slot++) {
		ctx = dart->slots[slot];
		seq_printf(m, "slot %d (%s%d): ttbr 0x%08x tcr 0x%08x ctx %s",
			   slot, slot ? "iso" : "base", slot,
			   ane_dart_reg_read(dart, ANE_DART_TTBR(slot)),
			   ane_dart_reg_read(dart, ANE_DART_TCR(slot)), ctx ? "" : "-\n");
		if (ctx)
			seq_printf(m, "%u\n", ctx->id);
	}
	list_for_each_entry(ctx, &dart->ctx_list, node) {
		mutex_lock(&ctx->lock);
		seq_printf(m, "ctx %u: slot %d pages %llu tables %llu B inflight %u evictions %llu faults %u\n",
			   ctx->id, ctx->slot, ctx->mapped_pages, ctx->table_bytes,
			   atomic_read(&ctx->inflight), ctx->evictions, ctx->faults);
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&dart->ctx_lock);
	return 0;
}

static int ane_dart_debugfs_mappings(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_dart *dart = to_ane_device(entry->dev)->dart;
	struct ane_dart_mapping *map;
	struct ane_dart_ctx *ctx;
	u32 i;

	mutex_lock(&dart->ctx_lock);
	list_for_each_entry(ctx, &dart->ctx_list, node) {
		seq_printf(m, "ctx %u:\n", ctx->id);
		mutex_lock(&ctx->lock);
		list_for_each_entry(map, &ctx->mappings, link) {
			seq_printf(m, "  iova 0x%08llx size 0x%llx usage %u prot %u users %u %s frames",
				   map->iova, map->size, map->usage, map->prot,
				   atomic_read(&map->users), map->evicted ? "evicted" : "mapped");
			for (i = 0; i < map->nframes && i < 8; i++)
				seq_printf(m, " %pa", &map->frames[i]);
			seq_puts(m, map->nframes > 8 ? " ...\n" : "\n");
		}
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&dart->ctx_lock);
	return 0;
}

/* A table walk: valid L2 descriptors and runs of valid leaf PTEs. */
static int ane_dart_debugfs_tables(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_dart *dart = to_ane_device(entry->dev)->dart;
	struct ane_dart_ctx *ctx;
	u32 l2i, l3i, start;

	mutex_lock(&dart->ctx_lock);
	list_for_each_entry(ctx, &dart->ctx_list, node) {
		mutex_lock(&ctx->lock);
		seq_printf(m, "ctx %u: L2 at 0x%llx\n", ctx->id,
			   (u64)virt_to_phys(ctx->l2));
		for (l2i = 0; l2i < ANE_DART_L2_USED; l2i++) {
			u64 *l3 = ctx->l3[l2i];

			if (!l3)
				continue;
			seq_printf(m, "  L2[%4u] = 0x%016llx\n", l2i, ctx->l2[l2i]);
			for (l3i = 0; l3i < ANE_DART_PTES; l3i++) {
				if (!l3[l3i])
					continue;
				start = l3i;
				while (l3i + 1 < ANE_DART_PTES && l3[l3i + 1])
					l3i++;
				seq_printf(m, "    L3[%4u..%4u] iova 0x%08llx first pte 0x%016llx\n",
					   start, l3i,
					   ((u64)l2i << ANE_DART_L2_SHIFT) |
					   ((u64)start << ANE_DART_L3_SHIFT), l3[start]);
			}
		}
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&dart->ctx_lock);
	return 0;
}

static int ane_dart_debugfs_faults(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_dart *dart = to_ane_device(entry->dev)->dart;
	unsigned int i, idx;

	spin_lock(&dart->fault_lock);
	seq_printf(m, "faults %llu (last %u kept)\n", dart->fault_seq, dart->fault_count);
	for (i = dart->fault_count; i >= 1; i--) {
		struct ane_dart_fault *f;

		idx = (dart->fault_head + ANE_DART_FAULT_LOG - i) % ANE_DART_FAULT_LOG;
		f = &dart->faults[idx];
		seq_printf(m, "#%llu %s class=%s error=%u status=0x%08x %s sid=%u ctx=%u addr=0x%llx ttbr=%u l2=%u l3=%u\n",
			   f->seq, f->type, f->hw_class, f->hw_error, f->hw_status,
			   f->is_write ? "write" : "read", f->sid, f->ctx_id,
			   f->address, f->ttbr_index, f->l2_index, f->l3_index);
	}
	spin_unlock(&dart->fault_lock);
	return 0;
}

/*
 * Writing dart_evict reclaims every idle mapping of every client context,
 * as address pressure would: for tests of what must survive eviction.  The
 * base context (kernel and firmware buffers) is never touched.
 */
static ssize_t ane_dart_evict_write(struct file *f, const char __user *ubuf,
				    size_t len, loff_t *pos)
{
	struct ane_device *adev = f->private_data;
	struct ane_dart *dart = adev->dart;
	struct ane_dart_ctx *ctx;
	int idx;

	if (!drm_dev_enter(&adev->drm, &idx))
		return -ENODEV;
	mutex_lock(&dart->ctx_lock);
	list_for_each_entry(ctx, &dart->ctx_list, node) {
		if (ctx == dart->base)
			continue;
		mutex_lock(&ctx->lock);
		while (ane_dart_evict_one(ctx))
			;
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&dart->ctx_lock);
	drm_dev_exit(idx);
	return len;
}

static const struct file_operations ane_dart_evict_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ane_dart_evict_write,
	.llseek = noop_llseek,
};

void ane_dart_debugfs_init(struct ane_device *adev)
{
	debugfs_create_file("dart_evict", 0200, adev->drm.debugfs_root,
			    adev, &ane_dart_evict_fops);
	drm_debugfs_add_file(&adev->drm, "dart", ane_dart_debugfs_summary, NULL);
	drm_debugfs_add_file(&adev->drm, "dart_mappings", ane_dart_debugfs_mappings, NULL);
	drm_debugfs_add_file(&adev->drm, "dart_tables", ane_dart_debugfs_tables, NULL);
	drm_debugfs_add_file(&adev->drm, "dart_faults", ane_dart_debugfs_faults, NULL);
}

/* ------------------------------------------------------------ init */

int ane_dart_init(struct ane_device *adev)
{
	struct ane_dart *dart;
	struct ane_dart_ctx *base;
	int slot;

	dart = kvzalloc(sizeof(*dart), GFP_KERNEL);
	if (!dart)
		return -ENOMEM;
	dart->adev = adev;
	spin_lock_init(&dart->hw_lock);
	spin_lock_init(&dart->fault_lock);
	mutex_init(&dart->ctx_lock);
	INIT_LIST_HEAD(&dart->ctx_list);
	adev->dart = dart;

	base = ane_dart_ctx_create(dart);
	if (IS_ERR(base)) {
		adev->dart = NULL;
		mutex_destroy(&dart->ctx_lock);
		kvfree(dart);
		return PTR_ERR(base);
	}
	dart->base = base;

	/* The base context owns slot 0, stream 0, for the device's lifetime. */
	mutex_lock(&dart->ctx_lock);
	slot = ANE_DART_BASE_SID;
	dart->slots[slot] = base;
	base->slot = slot;
	ane_dart_program_slot(dart, slot, base);
	mutex_unlock(&dart->ctx_lock);
	return 0;
}

void ane_dart_fini(struct ane_device *adev)
{
	struct ane_dart *dart = adev->dart;

	if (!dart)
		return;
	ane_dart_ctx_put(dart->base);
	WARN_ON(!list_empty(&dart->ctx_list));
	mutex_destroy(&dart->ctx_lock);
	kvfree(dart);
	adev->dart = NULL;
}
