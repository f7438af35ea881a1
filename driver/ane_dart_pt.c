// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DART, driver half: the page-table format in memory.  Allocating and
 * freeing 16 KB table pages, the two-level walk from a context's L2 table
 * to a leaf PTE (allocating L3 tables on demand), writing and clearing
 * leaf PTEs for runs of frames, and invalidating the translation cache of
 * the slot a context is bound to after its tables change.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/gfp.h>
#include <linux/iopoll.h>
#include <linux/mm.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "ane_dart_internal.h"
#include "ane_drv.h"

/* A page-table page is one 16 KB granule. */
#define ANE_DART_TABLE_ORDER	(ANE_DART_PAGE_SHIFT - PAGE_SHIFT)

/**
 * ane_dart_table_alloc() - a zeroed page-table page
 * @pa: filled with its physical address, for a TTBR or table descriptor.
 *
 * Return: the table's kernel address, or NULL.
 */
u64 *ane_dart_table_alloc(phys_addr_t *pa)
{
	struct page *p;

	p = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_ZERO, ANE_DART_TABLE_ORDER);
	if (!p)
		return NULL;
	*pa = page_to_phys(p);
	return page_address(p);
}

/**
 * ane_dart_table_free() - free a page-table page
 * @table: the table from ane_dart_table_alloc(), or NULL.
 */
void ane_dart_table_free(u64 *table)
{
	if (table)
		free_pages((unsigned long)table, ANE_DART_TABLE_ORDER);
}

/**
 * ane_dart_flush_ctx() - invalidate the translation cache of @ctx's slot
 * @ctx: the context; nothing is done if it is bound to no slot.
 *
 * Issues the TLB flush command for the slot and polls its status, as on
 * silicon.
 */
void ane_dart_flush_ctx(struct ane_dart_ctx *ctx)
{
	struct ane_dart *dart = ctx->dart;
	int slot = READ_ONCE(ctx->slot);
	u32 status;

	/*
	 * Detached: the registers may be the next binding's (ane_dart.c).
	 * Read unlocked: a flush that races the detach is harmless.
	 */
	if (slot < 0 || READ_ONCE(dart->detached))
		return;
	ane_dart_wr(dart, ANE_DART_TLB_CMD, ANE_DART_TLB_FLUSH | BIT(slot));
	/* The emulated flush is synchronous; poll as on silicon anyway. */
	if (regmap_read_poll_timeout_atomic(dart->regs, ANE_DART_TLB_STATUS,
					    status, !(status & ANE_DART_TLB_BUSY),
					    0, 1000))
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

/**
 * ane_dart_clear_range() - clear @n leaf PTEs at @iova
 * @ctx: the context, locked.
 * @iova: first device address, 16 KB aligned.
 * @n: pages.
 *
 * Pages already invalid are skipped.  The caller flushes the translation
 * cache.
 */
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
