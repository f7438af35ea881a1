// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DART, driver half: translation contexts (creation, release, the
 * base context), binding contexts to hardware slots, engine DMA on behalf
 * of a context, fault records, kernel buffers in the base context, and
 * setup.  The page tables are in ane_dart_pt.c, the address allocator and
 * eviction in ane_dart_evict.c, the debugfs views in ane_dart_debugfs.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_print.h>

#include "ane_dart_internal.h"
#include "ane_drv.h"
#include "ane_gem.h"
#include "ane_trace.h"

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
	unsigned long flags;
	u64 addr;
	u32 sid;

	if (!(status & ANE_DART_ERR_FLAG))
		return;
	addr = (u64)ane_dart_reg_read(dart, ANE_DART_ERROR_ADDR_HI) << 32 |
	       ane_dart_reg_read(dart, ANE_DART_ERROR_ADDR_LO);
	sid = (status & ANE_DART_ERR_SID_MASK) >> ANE_DART_ERR_SID_SHIFT;

	spin_lock_irqsave(&dart->fault_lock, flags);
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
	trace_ane_dart_fault(dart->adev->drm.dev, f);
	spin_unlock_irqrestore(&dart->fault_lock, flags);

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

	spin_lock_irq(&dart->fault_lock);
	for (i = 1; i <= dart->fault_count; i++) {
		idx = (dart->fault_head + ANE_DART_FAULT_LOG - i) % ANE_DART_FAULT_LOG;
		if (dart->faults[idx].ctx_id == ctx_id) {
			*out = dart->faults[idx];
			found = true;
			break;
		}
	}
	spin_unlock_irq(&dart->fault_lock);
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
