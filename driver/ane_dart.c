// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DART, driver half: the isolation contexts (creation, release, the
 * base context), their usage codes and protection classes, DMA on behalf
 * of a context (a software walk of its tables), and setup.  The
 * controller is reached only through its registers and its interrupt.
 * Binding contexts to hardware slots and the line of parked requests are
 * in ane_dart_slot.c, the page tables in ane_dart_pt.c, the address
 * allocator and eviction in ane_dart_evict.c, the fault interrupt and
 * fault records in ane_dart_fault.c, the debugfs views in
 * ane_dart_debugfs.c.  Kernel buffers in the base context are surfaces'
 * business (ane_gem.c), a request's count against the firmware's pool
 * the request's (ane_request.c).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/io.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "ane_dart_internal.h"
#include "ane_drv.h"
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

/* Hold off slot stealing while the engine works for @ctx. */
static void ane_dart_ctx_pin(struct ane_dart_ctx *ctx)
{
	mutex_lock(&ctx->lock);
	atomic_inc(&ctx->inflight);
	mutex_unlock(&ctx->lock);
}

static void ane_dart_ctx_unpin(struct ane_dart_ctx *ctx)
{
	if (atomic_dec_and_test(&ctx->inflight))
		ane_dart_ctx_went_idle(ctx);
}

/*
 * The walk the controller does, in software over the context's own
 * tables: the physical address of @iova, or the fault code the hardware
 * would latch.  Called under &ane_dart_ctx.lock.
 */
static enum ane_dart_fault_code
ane_dart_ctx_walk(struct ane_dart_ctx *ctx, u64 iova, phys_addr_t *pa)
{
	u32 l2i = ane_dart_l2_index(iova);
	u64 pte;

	lockdep_assert_held(&ctx->lock);
	if (iova >= ANE_DART_CEILING)
		return ANE_DART_FAULT_CEILING;
	if (iova >= ANE_DART_APERTURE_END)
		return ANE_DART_FAULT_APERTURE;
	if (!(ctx->l2[l2i] & ANE_DART_PTE_VALID) || !ctx->l3[l2i])
		return ANE_DART_FAULT_L2_INVALID;
	pte = ctx->l3[l2i][ane_dart_l3_index(iova)];
	if (!(pte & ANE_DART_PTE_VALID))
		return ANE_DART_FAULT_L3_INVALID;
	*pa = (pte & ANE_DART_PTE_PA_MASK) + (iova & ANE_DART_PAGE_MASK);
	return ANE_DART_FAULT_NONE;
}

/**
 * ane_dart_ctx_dma() - DMA on behalf of a context (DRM_IOCTL_ANE_DMA)
 * @ctx: the context.
 * @iova: device address.
 * @buf: kernel buffer.
 * @len: bytes.
 * @write: true to write memory.
 * @fault: filled with the fault record when the access faults (may be
 *	NULL).
 *
 * Binds @ctx to a slot, as an engine access would, and walks the
 * context's tables in software page by page, copying through the kernel
 * mapping of each frame.  The tables are the ones the controller walks
 * and the driver flushes the controller's cache whenever it changes them,
 * so the result is what the engine would see.  A fault stops the copy at
 * the faulting page and is recorded as the fault interrupt records one
 * (the status word the controller would latch, for the bound slot).
 *
 * Return: 0; -ENXIO on a translation fault; -EBUSY if no slot can be had.
 */
int ane_dart_ctx_dma(struct ane_dart_ctx *ctx, u64 iova, void *buf,
		     size_t len, bool write, struct ane_dart_fault *fault)
{
	enum ane_dart_fault_code code = ANE_DART_FAULT_NONE;
	u8 *p = buf;
	int slot, ret = 0;

	ane_dart_ctx_pin(ctx);
	slot = ane_dart_bind(ctx);
	if (slot < 0) {
		ane_dart_ctx_unpin(ctx);
		return slot;
	}
	/* The lock keeps each frame mapped while it is copied. */
	mutex_lock(&ctx->lock);
	while (len) {
		size_t chunk = min_t(size_t, len, ANE_DART_PAGE_SIZE -
				     (iova & ANE_DART_PAGE_MASK));
		phys_addr_t pa;
		void *va;

		code = ane_dart_ctx_walk(ctx, iova, &pa);
		if (code != ANE_DART_FAULT_NONE)
			break;
		/* A 16 KB frame is contiguous and linearly mapped. */
		va = phys_to_virt(pa);
		if (write)
			memcpy(va, p, chunk);
		else
			memcpy(p, va, chunk);
		iova += chunk;
		p += chunk;
		len -= chunk;
	}
	if (code != ANE_DART_FAULT_NONE)
		ctx->faults++;
	mutex_unlock(&ctx->lock);

	if (code != ANE_DART_FAULT_NONE) {
		ane_dart_record(ctx->dart, ANE_DART_ERR_FLAG |
				(write ? ANE_DART_ERR_WRITE : 0) |
				(slot << ANE_DART_ERR_SID_SHIFT) | code, iova);
		if (fault)
			ane_dart_last_fault(ctx->dart, ctx->id, fault);
		ret = -ENXIO;
	}
	ane_dart_ctx_unpin(ctx);
	return ret;
}

/* ------------------------------------------------------------ init */

/**
 * ane_dart_init() - the driver's DART state, the base context in slot 0
 * @adev: the device.
 * @regs: the PTD bank.
 *
 * Every stream is disabled and every cache flushed first: a previous
 * binding may have left slots programmed.
 *
 * Return: 0 or a negative errno.
 */
int ane_dart_init(struct ane_device *adev, struct regmap *regs)
{
	struct ane_dart *dart;
	struct ane_dart_ctx *base;

	dart = kvzalloc(sizeof(*dart), GFP_KERNEL);
	if (!dart)
		return -ENOMEM;
	dart->adev = adev;
	dart->regs = regs;
	spin_lock_init(&dart->fault_lock);
	mutex_init(&dart->ctx_lock);
	ane_dart_slots_init(dart);
	INIT_LIST_HEAD(&dart->ctx_list);
	adev->dart = dart;

	base = ane_dart_ctx_create(dart);
	if (IS_ERR(base)) {
		adev->dart = NULL;
		ane_dart_slots_fini(dart);
		mutex_destroy(&dart->ctx_lock);
		kvfree(dart);
		return PTR_ERR(base);
	}
	dart->base = base;
	ane_dart_wr(dart, ANE_DART_ENABLED_STREAMS, 0);
	ane_dart_wr(dart, ANE_DART_TLB_CMD, ANE_DART_TLB_FLUSH |
		    GENMASK(ANE_DART_NUM_STREAMS - 1, 0));
	ane_dart_slots_bind_base(dart, base);
	return 0;
}

/**
 * ane_dart_detach() - the binding's controller is halted: hands off
 * @dart: the driver's DART state.
 *
 * Called by the unbinding once the controller and its engine are in reset
 * (after ane_host_teardown()), before the device can be bound again: from
 * then on the registers may be the next binding's, and contexts released
 * later (files closed after the unbind) leave them alone.  Until then,
 * unplugged or not, slots are cleared and caches flushed as usual.
 */
void ane_dart_detach(struct ane_dart *dart)
{
	mutex_lock(&dart->ctx_lock);
	dart->detached = true;
	mutex_unlock(&dart->ctx_lock);
}

void ane_dart_fini(struct ane_device *adev)
{
	struct ane_dart *dart = adev->dart;

	if (!dart)
		return;
	ane_dart_slots_fini(dart);
	ane_dart_ctx_put(dart->base);
	WARN_ON(!list_empty(&dart->ctx_list));
	mutex_destroy(&dart->ctx_lock);
	kvfree(dart);
	adev->dart = NULL;
}
