// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the DART at the 16 KB granule -- PTE format and index math,
 * map/unmap/translate, -EEXIST, aperture and ceiling faults and their
 * records, the translation cache, isolation and slot switching, LRU
 * eviction and the in-use rule, the outstanding-request cap, table memory
 * and the firmware rebase arithmetic.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/workqueue.h>
#include <linux/gfp.h>
#include <linux/interrupt.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/regmap.h>
#include <linux/string.h>

#include "driver/ane_dart.h"
#include "driver/ane_drv.h"
#include "firmware/hw/ane_board.h"
#include "firmware/spec/ane_platform.h"
#include "firmware/spec/ane_rebase.h"

#define FRAME_ORDER	(ANE_DART_PAGE_SHIFT - PAGE_SHIFT)

struct dart_fixture {
	struct ane_board *board;
	struct regmap *regs[ANE_NUM_BANKS];
	int irq;
	struct ane_device *adev;
	struct ane_dart *dart;
	struct page *frames[4];
	phys_addr_t pa[4];
};

static int dart_test_init(struct kunit *test)
{
	struct dart_fixture *fx;
	struct device *dev;
	int i;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	test->priv = fx;
	dev = kunit_device_register(test, "ane-dart-kunit");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	/* The controller of a board, the driver's half on its registers. */
	fx->board = ane_board_kunit_create(dev, true);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fx->board);
	KUNIT_ASSERT_EQ(test, ane_regmaps_init(dev, ane_board_kunit_pdata(fx->board),
					       fx->regs), 0);
	fx->adev = kunit_kzalloc(test, sizeof(*fx->adev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx->adev);
	KUNIT_ASSERT_EQ(test, ane_dart_init(fx->adev, fx->regs[ANE_BANK_PTD]), 0);
	fx->dart = fx->adev->dart;
	KUNIT_ASSERT_EQ(test, request_irq(ane_board_kunit_irq(fx->board, ANE_IRQ_DART),
					  ane_dart_irq, 0, "ane-dart-kunit:dart",
					  fx->dart), 0);
	fx->irq = ane_board_kunit_irq(fx->board, ANE_IRQ_DART);
	for (i = 0; i < ARRAY_SIZE(fx->frames); i++) {
		fx->frames[i] = alloc_pages(GFP_KERNEL | __GFP_ZERO, FRAME_ORDER);
		KUNIT_ASSERT_NOT_NULL(test, fx->frames[i]);
		fx->pa[i] = page_to_phys(fx->frames[i]);
		memset(page_address(fx->frames[i]), 0xa0 + i, ANE_DART_PAGE_SIZE);
	}
	test->priv = fx;
	return 0;
}

static void dart_test_exit(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	int i;

	if (fx->irq)
		free_irq(fx->irq, fx->dart);
	if (fx->dart)
		ane_dart_fini(fx->adev);
	ane_regmaps_exit(fx->regs);
	ane_board_kunit_destroy(fx->board);
	for (i = 0; i < ARRAY_SIZE(fx->frames); i++)
		if (fx->frames[i])
			__free_pages(fx->frames[i], FRAME_ORDER);
}

/* An engine access through the controller, on stream @sid. */
static int hw_dma(struct dart_fixture *fx, u32 sid, u64 iova, void *buf,
		  size_t len, bool write)
{
	return ane_board_kunit_dma(fx->board, sid, iova, buf, len, write);
}

/* A register of the PTD window, as the driver reads it. */
static u32 dart_rd(struct dart_fixture *fx, u32 off)
{
	unsigned int v = 0;

	regmap_read(fx->regs[ANE_BANK_PTD], off, &v);
	return v;
}

static struct ane_dart_ctx *new_ctx(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx = ane_dart_ctx_create(fx->dart);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	return ctx;
}

/* Map the first @n fixture frames into @ctx; the test stops on failure. */
static struct ane_dart_mapping *map_frames(struct kunit *test, struct ane_dart_ctx *ctx,
					   u32 n, u32 usage, u8 prot)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_mapping *map = ane_dart_map(ctx, fx->pa, n, usage, prot, NULL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, map);
	return map;
}

static void ane_dart_pte_is_table_28_4(struct kunit *test)
{
	u64 pte = ane_dart_make_pte(0x10022324000ull);

	KUNIT_EXPECT_EQ(test, pte, 0x8000010022324000ull);
	KUNIT_EXPECT_EQ(test, pte & ANE_DART_PAGE_MASK, 0ull);
	/* Aux protection bits 62, 60, 59 are never set on the engine path. */
	KUNIT_EXPECT_EQ(test, pte & (BIT_ULL(62) | BIT_ULL(60) | BIT_ULL(59)), 0ull);
	KUNIT_EXPECT_EQ(test, ANE_DART_PAGE_SIZE, 16384ul);
}

static void ane_dart_index_math_covers_the_aperture(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ane_dart_l2_index(0x0), 0u);
	KUNIT_EXPECT_EQ(test, ane_dart_l3_index(0x4000), 1u);
	KUNIT_EXPECT_EQ(test, ane_dart_l3_index(0x1ffc000), 2047u);
	KUNIT_EXPECT_EQ(test, ane_dart_l2_index(0x2000000), 1u);
	KUNIT_EXPECT_EQ(test, ane_dart_l3_index(0x2000000), 0u);
	KUNIT_EXPECT_EQ(test, ane_dart_l2_index(0xdfffc000), 111u);
	KUNIT_EXPECT_EQ(test, ane_dart_l3_index(0xdfffc000), 2047u);
	KUNIT_EXPECT_EQ(test, ANE_DART_L2_USED, 112ull);
}

static void ane_dart_map_translates_through_the_tables(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx = new_ctx(test);
	struct ane_dart_mapping *map;
	u8 buf[64];
	int slot;

	map = map_frames(test, ctx, 3, ANE_USAGE_INPUT, ANE_PROT_READ_WRITE);
	KUNIT_EXPECT_EQ(test, map->iova & ANE_DART_PAGE_MASK, 0ull);
	KUNIT_EXPECT_GE(test, map->iova, (u64)ANE_DART_ALLOC_START);
	KUNIT_EXPECT_LT(test, map->iova + map->size, ANE_DART_APERTURE_END);
	KUNIT_EXPECT_EQ(test, map->size, 3ull * ANE_DART_PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ctx->mapped_pages, 3ull);
	/* The leaf words are exactly the frames with bit 63. */
	KUNIT_EXPECT_EQ(test, ctx->l3[ane_dart_l2_index(map->iova)]
				[ane_dart_l3_index(map->iova + ANE_DART_PAGE_SIZE)],
			ane_dart_make_pte(fx->pa[1]));

	slot = ane_dart_bind(ctx);
	KUNIT_ASSERT_GE(test, slot, 1);
	/* Read across the frame 0 / frame 1 boundary. */
	KUNIT_ASSERT_EQ(test, hw_dma(fx, slot, map->iova + ANE_DART_PAGE_SIZE - 32,
				     buf, sizeof(buf), false), 0);
	KUNIT_EXPECT_EQ(test, buf[0], 0xa0);
	KUNIT_EXPECT_EQ(test, buf[63], 0xa1);
	/* A write lands in the physical frame. */
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_ASSERT_EQ(test, hw_dma(fx, slot, map->iova + 2 * ANE_DART_PAGE_SIZE + 8,
				     buf, 4, true), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(fx->frames[2]))[8], 0x5a);

	KUNIT_EXPECT_EQ(test, ane_dart_unmap(map), 0);
	KUNIT_EXPECT_EQ(test, ctx->mapped_pages, 0ull);
	KUNIT_EXPECT_EQ(test, hw_dma(fx, slot, map->iova, buf, 4, false), -EFAULT);
	ane_dart_ctx_put(ctx);
}

static void ane_dart_mapping_a_valid_page_is_eexist(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx = new_ctx(test);
	u64 iova = 0x100000;

	mutex_lock(&ctx->lock);
	KUNIT_EXPECT_EQ(test, ane_dart_set_range(ctx, iova + ANE_DART_PAGE_SIZE, &fx->pa[0], 1), 0);
	/* Three pages over a valid middle one: refused, nothing changed. */
	KUNIT_EXPECT_EQ(test, ane_dart_set_range(ctx, iova, fx->pa, 3), -EEXIST);
	KUNIT_EXPECT_EQ(test, ctx->mapped_pages, 1ull);
	KUNIT_EXPECT_EQ(test, ctx->l3[0][ane_dart_l3_index(iova)], 0ull);
	KUNIT_EXPECT_EQ(test, ctx->l3[0][ane_dart_l3_index(iova + ANE_DART_PAGE_SIZE)],
			ane_dart_make_pte(fx->pa[0]));
	/* A frame that is not 16 KB aligned is refused too. */
	KUNIT_EXPECT_EQ(test, ane_dart_set_range(ctx, iova + 0x10000,
						 &(phys_addr_t){ fx->pa[1] + 0x1000 }, 1),
			-EINVAL);
	ane_dart_clear_range(ctx, iova + ANE_DART_PAGE_SIZE, 1);
	mutex_unlock(&ctx->lock);
	ane_dart_ctx_put(ctx);
}

static void expect_fault(struct kunit *test, struct ane_dart_ctx *ctx, u64 iova,
			 bool write, u32 code)
{
	struct ane_dart_fault f = {};
	u32 word = 0;

	KUNIT_EXPECT_EQ(test, ane_dart_ctx_dma(ctx, iova, &word, sizeof(word), write, &f),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, f.hw_error, code);
	KUNIT_EXPECT_EQ(test, f.address, iova);
	KUNIT_EXPECT_EQ(test, f.is_write, write);
	KUNIT_EXPECT_EQ(test, f.ctx_id, ctx->id);
	KUNIT_EXPECT_EQ(test, f.sid, (u32)ctx->slot);
	KUNIT_EXPECT_EQ(test, f.ttbr_index, (u32)ctx->slot);
	KUNIT_EXPECT_EQ(test, f.l2_index, ane_dart_l2_index(iova));
	KUNIT_EXPECT_EQ(test, f.l3_index, ane_dart_l3_index(iova));
	KUNIT_EXPECT_TRUE(test, f.hw_status & ANE_DART_ERR_FLAG);
	KUNIT_EXPECT_EQ(test, f.hw_status & ANE_DART_ERR_CODE_MASK, code);
	KUNIT_EXPECT_EQ(test, (f.hw_status & ANE_DART_ERR_SID_MASK) >> ANE_DART_ERR_SID_SHIFT,
			(u32)ctx->slot);
	KUNIT_EXPECT_NOT_NULL(test, f.type);
	KUNIT_EXPECT_GT(test, f.seq, 0ull);
}

static void ane_dart_faults_are_captured_and_contained(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx = new_ctx(test);
	struct ane_dart_mapping *map;
	u32 word;

	map = map_frames(test, ctx, 1, ANE_USAGE_OUTPUT, ANE_PROT_DEVICE_WRITE);

	expect_fault(test, ctx, 0x0, false, ANE_DART_FAULT_L3_INVALID);
	expect_fault(test, ctx, 0x40000000, true, ANE_DART_FAULT_L2_INVALID);
	expect_fault(test, ctx, map->iova + ANE_DART_PAGE_SIZE, false,
		     ANE_DART_FAULT_L3_INVALID);
	expect_fault(test, ctx, ANE_DART_APERTURE_END, false, ANE_DART_FAULT_APERTURE);
	expect_fault(test, ctx, ANE_DART_CEILING, true, ANE_DART_FAULT_CEILING);
	KUNIT_EXPECT_EQ(test, ctx->faults, 5u);

	/* The latch was cleared each time; good accesses still work. */
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ERROR_STATUS), 0u);
	KUNIT_EXPECT_EQ(test, ane_dart_ctx_dma(ctx, map->iova, &word, sizeof(word), false, NULL),
			0);
	KUNIT_EXPECT_EQ(test, word, 0xa0a0a0a0u);

	KUNIT_EXPECT_EQ(test, ane_dart_unmap(map), 0);
	ane_dart_ctx_put(ctx);
}

static void ane_dart_fault_latch_is_single_shot(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	u32 word;

	/* A disabled stream faults; the first fault stays latched... */
	ane_board_kunit_dart_poke(fx->board, ANE_DART_ERROR_STATUS,
				  ANE_DART_ERR_FLAG | 0x42);
	KUNIT_EXPECT_EQ(test, hw_dma(fx, 9, 0x4000, &word, 4, false), -EFAULT);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ERROR_STATUS),
			ANE_DART_ERR_FLAG | 0x42);
	/* ...until it is cleared by writing the flag. */
	regmap_write(fx->regs[ANE_BANK_PTD], ANE_DART_ERROR_STATUS, ANE_DART_ERR_FLAG);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ERROR_STATUS), 0u);
	KUNIT_EXPECT_EQ(test, hw_dma(fx, 9, 0x4000, &word, 4, false), -EFAULT);
	/* The interrupt recorded it and cleared the latch. */
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ERROR_STATUS), 0u);
	KUNIT_EXPECT_EQ(test, fx->dart->faults[(fx->dart->fault_head + ANE_DART_FAULT_LOG - 1) %
						ANE_DART_FAULT_LOG].hw_error,
			(u32)ANE_DART_FAULT_STREAM);
}

static void ane_dart_translation_cache_needs_explicit_invalidation(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx = new_ctx(test);
	struct ane_dart_mapping *map;
	u32 word, hits, misses;
	int slot;

	map = map_frames(test, ctx, 1, ANE_USAGE_INPUT, ANE_PROT_READ_WRITE);
	slot = ane_dart_bind(ctx);
	KUNIT_ASSERT_GE(test, slot, 1);
	KUNIT_ASSERT_EQ(test, hw_dma(fx, slot, map->iova, &word, 4, false), 0);
	hits = dart_rd(fx, ANE_DART_TLB_HITS_LO);
	misses = dart_rd(fx, ANE_DART_TLB_MISSES_LO);
	KUNIT_EXPECT_GE(test, misses, 1u);

	/* Clear the PTE behind the hardware's back: the cached entry serves. */
	mutex_lock(&ctx->lock);
	ane_dart_clear_range(ctx, map->iova, 1);
	mutex_unlock(&ctx->lock);
	KUNIT_EXPECT_EQ(test, hw_dma(fx, slot, map->iova, &word, 4, false), 0);
	/* The counter registers saw the hit. */
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_TLB_HITS_LO), hits + 1);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_TLB_HITS_HI), 0u);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_TLB_MISSES_LO), misses);

	/* After the driver's flush the walk sees the cleared entry. */
	regmap_write(fx->regs[ANE_BANK_PTD], ANE_DART_TLB_CMD, ANE_DART_TLB_FLUSH | BIT(slot));
	KUNIT_EXPECT_EQ(test, hw_dma(fx, slot, map->iova, &word, 4, false), -EFAULT);

	KUNIT_EXPECT_EQ(test, ane_dart_unmap(map), 0);
	KUNIT_EXPECT_EQ(test, ctx->mapped_pages, 0ull);
	ane_dart_ctx_put(ctx);
}

static void ane_dart_contexts_are_isolated(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *a = new_ctx(test), *b = new_ctx(test);
	struct ane_dart_mapping *ma, *mb;
	struct ane_dart_fault f;
	u32 word;

	ma = ane_dart_map(a, &fx->pa[0], 1, ANE_USAGE_INPUT, ANE_PROT_READ_WRITE, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ma);
	/* B's first page is at the same address as A's, with B's own frame. */
	mb = ane_dart_map(b, &fx->pa[1], 1, ANE_USAGE_INPUT, ANE_PROT_READ_WRITE, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mb);
	KUNIT_EXPECT_EQ(test, ma->iova, mb->iova);
	KUNIT_EXPECT_EQ(test, ane_dart_ctx_dma(a, ma->iova, &word, 4, false, NULL), 0);
	KUNIT_EXPECT_EQ(test, word, 0xa0a0a0a0u);
	KUNIT_EXPECT_EQ(test, ane_dart_ctx_dma(b, mb->iova, &word, 4, false, NULL), 0);
	KUNIT_EXPECT_EQ(test, word, 0xa1a1a1a1u);
	KUNIT_EXPECT_NE(test, a->slot, b->slot);

	/* A's other pages do not exist for B by any address. */
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(mb), 0);
	KUNIT_EXPECT_EQ(test, ane_dart_ctx_dma(b, ma->iova, &word, 4, false, &f), -ENXIO);
	KUNIT_EXPECT_EQ(test, f.ctx_id, b->id);
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(ma), 0);
	ane_dart_ctx_put(a);
	ane_dart_ctx_put(b);
}

/*
 * An unplugged device's controller runs until the binding's teardown
 * halts it: a context released in between leaves its slot (stream
 * disabled, TTBR cleared) before its tables are freed, so the engine gets
 * a fault instead of walking freed pages.  Once detached, the registers
 * are the next binding's and are left alone.
 */
static void ane_dart_slots_are_cleared_until_the_controller_is_halted(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx = new_ctx(test), *late = new_ctx(test);
	struct ane_dart_mapping *map;
	u32 word = 0, ttbr;
	u64 iova;
	int slot, late_slot;

	map = map_frames(test, ctx, 1, ANE_USAGE_INPUT, ANE_PROT_READ_WRITE);
	iova = map->iova;
	slot = ane_dart_bind(ctx);
	KUNIT_ASSERT_GE(test, slot, 1);
	late_slot = ane_dart_bind(late);
	KUNIT_ASSERT_GE(test, late_slot, 1);
	KUNIT_ASSERT_EQ(test, hw_dma(fx, slot, iova, &word, 4, false), 0);
	KUNIT_EXPECT_EQ(test, word, 0xa0a0a0a0u);

	/* Unplugged (drm_dev_unplug()), the controller still running. */
	fx->adev->drm.unplugged = true;
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(map), 0);
	/* The unmap flushed the cached translation. */
	KUNIT_EXPECT_EQ(test, hw_dma(fx, slot, iova, &word, 4, false), -EFAULT);
	ane_dart_ctx_put(ctx);
	KUNIT_ASSERT_FALSE(test, dart_rd(fx, ANE_DART_ENABLED_STREAMS) & BIT(slot));
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_TTBR(slot)), 0u);
	/* A late access of the slot faults on the disabled stream. */
	KUNIT_EXPECT_EQ(test, hw_dma(fx, slot, iova, &word, 4, false), -EFAULT);

	/* Halted: what is released later leaves the registers alone. */
	ane_dart_detach(fx->dart);
	ttbr = dart_rd(fx, ANE_DART_TTBR(late_slot));
	KUNIT_EXPECT_NE(test, ttbr, 0u);
	ane_dart_ctx_put(late);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_TTBR(late_slot)), ttbr);
	KUNIT_EXPECT_TRUE(test, dart_rd(fx, ANE_DART_ENABLED_STREAMS) & BIT(late_slot));
	/* The fixture's teardown finds a device as an unbind leaves it. */
}

/* A request of @release_ctx ends later, from a work item. */
static struct ane_dart_ctx *release_ctx;

static void release_fn(struct work_struct *w)
{
	ane_request_pool_put(release_ctx);
}

static DECLARE_DELAYED_WORK(release_work, release_fn);

static void ane_dart_more_clients_than_slots_switch_ttbr(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx[ANE_DART_NUM_SLOTS + 1];
	int i, slot;

	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		ctx[i] = new_ctx(test);
	/* iso1..iso7 fill up. */
	for (i = 0; i < ANE_DART_NUM_SLOTS - 1; i++)
		KUNIT_EXPECT_EQ(test, ane_dart_bind(ctx[i]), i + 1);
	/* The eighth client takes over the slot bound longest ago (iso1). */
	slot = ane_dart_bind(ctx[7]);
	KUNIT_EXPECT_EQ(test, slot, 1);
	KUNIT_EXPECT_EQ(test, ctx[0]->slot, -1);
	KUNIT_EXPECT_EQ(test, fx->dart->slot_switches, 1ull);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_TTBR(1)),
			(u32)(ANE_DART_TTBR_VALID | (virt_to_phys(ctx[7]->l2) >> 12)));

	/*
	 * With every slot's context busy, a ninth waits for a slot, and
	 * gets -EBUSY when none comes free in the wait time.
	 */
	for (i = 1; i < ANE_DART_NUM_SLOTS; i++)
		KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx[i]), 0);
	fx->dart->slot_wait_ms = 50;
	KUNIT_EXPECT_EQ(test, ane_dart_bind(ctx[0]), -EBUSY);
	/* One goes idle while it waits: it gets that slot. */
	fx->dart->slot_wait_ms = 5000;
	release_ctx = ctx[3];
	schedule_delayed_work(&release_work, msecs_to_jiffies(100));
	KUNIT_EXPECT_EQ(test, ane_dart_bind(ctx[0]), 4);
	flush_delayed_work(&release_work);
	for (i = 1; i < ANE_DART_NUM_SLOTS; i++)
		if (i != 3)
			ane_request_pool_put(ctx[i]);
	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		ane_dart_ctx_put(ctx[i]);
	/* Every slot but the base context's is free again. */
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ENABLED_STREAMS), 1u);
}

/* A bind in a thread of its own, for the waiting-order case. */
struct bind_waiter {
	struct ane_dart_ctx *ctx;
	int slot;
	struct completion done;
};

static int bind_waiter_fn(void *data)
{
	struct bind_waiter *bw = data;

	bw->slot = ane_dart_bind(bw->ctx);
	complete(&bw->done);
	return 0;
}

static unsigned int slot_waiters(struct ane_dart *dart)
{
	struct list_head *pos;
	unsigned int n = 0;

	spin_lock_irq(&dart->wait_lock);
	list_for_each(pos, &dart->slot_waiters)
		n++;
	spin_unlock_irq(&dart->wait_lock);
	return n;
}

/* Start a bind of @bw->ctx and wait until it is the @nth in line. */
static void start_waiter(struct kunit *test, struct bind_waiter *bw, unsigned int nth)
{
	struct dart_fixture *fx = test->priv;
	int i;

	init_completion(&bw->done);
	bw->slot = INT_MIN;
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(bind_waiter_fn, bw, "ane-kunit-bind")));
	for (i = 0; i < 250 && slot_waiters(fx->dart) < nth; i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, slot_waiters(fx->dart), nth);
}

/*
 * @n new contexts in @ctx; the first seven bound to iso1..iso7, each
 * with a request outstanding.
 */
static void busy_slots(struct kunit *test, struct ane_dart_ctx **ctx, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ctx[i] = new_ctx(test);
	for (i = 0; i < ANE_DART_NUM_SLOTS - 1; i++) {
		KUNIT_ASSERT_EQ(test, ane_dart_bind(ctx[i]), i + 1);
		KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx[i]), 0);
	}
}

/*
 * More busy clients than slots: the binds that wait are served in the
 * order they came, one per context that goes idle, and a bind that comes
 * while others wait queues behind them instead of taking the slot.
 */
static void ane_dart_slot_waiters_are_served_in_order(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx[ANE_DART_NUM_SLOTS + 2];
	struct bind_waiter a, b;
	int i;

	busy_slots(test, ctx, ARRAY_SIZE(ctx));
	/* as a submit does, each binds with its request's pins held */
	KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx[7]), 0);
	KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx[8]), 0);
	fx->dart->slot_wait_ms = 5000;
	a.ctx = ctx[7];
	start_waiter(test, &a, 1);
	b.ctx = ctx[8];
	start_waiter(test, &b, 2);

	/* iso5's context goes idle: the first in line gets it, only it. */
	ane_request_pool_put(ctx[4]);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&a.done, 5 * HZ));
	KUNIT_EXPECT_EQ(test, a.slot, 5);
	KUNIT_EXPECT_FALSE(test, completion_done(&b.done));
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 1u);

	/* A newcomer while one waits: in line, not first (it times out). */
	fx->dart->slot_wait_ms = 50;
	KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx[4]), 0);
	KUNIT_EXPECT_EQ(test, ane_dart_bind(ctx[4]), -EBUSY);
	ane_request_pool_put(ctx[4]);
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 1u);

	/* iso2's context goes idle: the second in line gets it. */
	ane_request_pool_put(ctx[1]);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&b.done, 5 * HZ));
	KUNIT_EXPECT_EQ(test, b.slot, 2);
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 0u);
	KUNIT_EXPECT_EQ(test, fx->dart->slot_waits, 3ull);

	for (i = 0; i < ANE_DART_NUM_SLOTS + 1; i++)
		if (i != 1 && i != 4)
			ane_request_pool_put(ctx[i]);
	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		ane_dart_ctx_put(ctx[i]);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ENABLED_STREAMS), 1u);
}

/*
 * A request's bind while others wait for a slot: a bound context whose
 * only work is that request gives its slot to the first in line and
 * queues behind, after ANE_DART_TURN_BINDS such binds; one with other
 * work, or a plain bind, keeps its slot.
 */
static void ane_dart_a_request_bind_takes_its_turn(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx[ANE_DART_NUM_SLOTS];
	struct ane_dart_mapping *m;
	struct bind_waiter a;
	int i;

	busy_slots(test, ctx, ARRAY_SIZE(ctx));
	KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx[7]), 0);
	fx->dart->slot_wait_ms = 5000;
	a.ctx = ctx[7];
	start_waiter(test, &a, 1);

	/* A plain bind of a bound context keeps its slot. */
	for (i = 0; i <= ANE_DART_TURN_BINDS; i++)
		KUNIT_EXPECT_EQ(test, ane_dart_bind(ctx[0]), 1);
	/* Pins besides the request's own: other work, no turn. */
	m = ane_dart_map(ctx[1], &fx->pa[0], 1, ANE_USAGE_INPUT, ANE_PROT_READ_WRITE, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m);
	KUNIT_ASSERT_EQ(test, ane_dart_use(m), 0);
	for (i = 0; i <= ANE_DART_TURN_BINDS; i++)
		KUNIT_EXPECT_EQ(test, ane_dart_bind_turn(ctx[1], 0), 2);
	ane_dart_unuse(m);
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(m), 0);
	/* Two requests outstanding: no turn either. */
	KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx[2]), 0);
	for (i = 0; i <= ANE_DART_TURN_BINDS; i++)
		KUNIT_EXPECT_EQ(test, ane_dart_bind_turn(ctx[2], 0), 3);
	ane_request_pool_put(ctx[2]);
	KUNIT_EXPECT_FALSE(test, completion_done(&a.done));
	KUNIT_EXPECT_EQ(test, fx->dart->slot_turns, 0ull);

	/*
	 * ctx[0]'s one request is the one binding: it keeps its slot for
	 * ANE_DART_TURN_BINDS - 1 such binds, then the slot goes to the
	 * first in line and it waits behind (here in vain: -EBUSY).
	 */
	for (i = 1; i < ANE_DART_TURN_BINDS; i++)
		KUNIT_EXPECT_EQ(test, ane_dart_bind_turn(ctx[0], 0), 1);
	KUNIT_EXPECT_FALSE(test, completion_done(&a.done));
	fx->dart->slot_wait_ms = 50;
	KUNIT_EXPECT_EQ(test, ane_dart_bind_turn(ctx[0], 0), -EBUSY);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&a.done, 5 * HZ));
	KUNIT_EXPECT_EQ(test, a.slot, 1);
	KUNIT_EXPECT_EQ(test, ctx[0]->slot, -1);
	KUNIT_EXPECT_EQ(test, fx->dart->slot_turns, 1ull);
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 0u);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_TTBR(1)),
			(u32)(ANE_DART_TTBR_VALID | (virt_to_phys(ctx[7]->l2) >> 12)));
	/* With nobody in line it binds again at once. */
	ane_request_pool_put(ctx[1]);
	KUNIT_EXPECT_EQ(test, ane_dart_bind_turn(ctx[0], 0), 2);

	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		if (i != 1)
			ane_request_pool_put(ctx[i]);
	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		ane_dart_ctx_put(ctx[i]);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ENABLED_STREAMS), 1u);
}

/* A parked request of the test: where and in which order it started. */
struct parked_req {
	struct ane_dart_waiter w;
	int slot;
	int order;
	struct completion done;
};

static atomic_t parked_order;

static void parked_run(struct ane_dart_waiter *w, int slot)
{
	struct parked_req *pr = container_of(w, struct parked_req, w);

	pr->slot = slot;
	pr->order = atomic_inc_return(&parked_order);
	complete(&pr->done);
}

/* A request of @ctx that finds no slot at once parks as a submit does. */
static void park_req(struct kunit *test, struct ane_dart_ctx *ctx, struct parked_req *pr)
{
	init_completion(&pr->done);
	pr->slot = INT_MIN;
	KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx), 0);
	KUNIT_ASSERT_EQ(test, ane_dart_bind_or_park(ctx, 0), -EAGAIN);
	ane_dart_park(ctx, 0, &pr->w, parked_run);
}

/*
 * Requests that find no slot park in the line instead of waiting in the
 * call: they start in the order they came, each when a context goes idle
 * -- by the next submitter's dispatch, or by the work item a tick later
 * when none comes -- and one that gets no slot by its deadline starts
 * with -EBUSY.  A bound context whose only work is the request binding
 * gives its slot to the first in line and parks behind; a context whose
 * only requests are parked is idle, its slot may be taken.
 */
static void ane_dart_parked_requests_start_in_turn(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx[ANE_DART_NUM_SLOTS + 1];
	struct parked_req a, b, c, d;
	int i;

	atomic_set(&parked_order, 0);
	busy_slots(test, ctx, ARRAY_SIZE(ctx));
	fx->dart->slot_wait_ms = 5000;
	park_req(test, ctx[7], &a);
	park_req(test, ctx[8], &b);
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 2u);
	KUNIT_EXPECT_FALSE(test, completion_done(&a.done));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx[7]->parked), 1);

	/* iso5's context goes idle; the next submitter's dispatch starts a. */
	ane_request_pool_put(ctx[4]);
	ane_dart_dispatch(fx->dart);
	KUNIT_EXPECT_TRUE(test, completion_done(&a.done));
	KUNIT_EXPECT_EQ(test, a.slot, 5);
	KUNIT_EXPECT_EQ(test, a.order, 1);
	KUNIT_EXPECT_EQ(test, ctx[7]->slot, 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx[7]->parked), 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&b.done));

	/*
	 * ctx[0]'s one request is the one binding while b waits: it gives
	 * iso1 up and parks behind b, and b starts on iso1 at once.
	 */
	KUNIT_EXPECT_EQ(test, ane_dart_bind_or_park(ctx[0], 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fx->dart->slot_turns, 1ull);
	init_completion(&c.done);
	c.slot = INT_MIN;
	ane_dart_park(ctx[0], 0, &c.w, parked_run);
	KUNIT_EXPECT_TRUE(test, completion_done(&b.done));
	KUNIT_EXPECT_EQ(test, b.slot, 1);
	KUNIT_EXPECT_EQ(test, b.order, 2);
	KUNIT_EXPECT_FALSE(test, completion_done(&c.done));

	/* Nobody submits: the work item starts c a tick after iso2 is idle. */
	ane_request_pool_put(ctx[1]);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&c.done, 5 * HZ));
	KUNIT_EXPECT_EQ(test, c.slot, 2);
	KUNIT_EXPECT_EQ(test, c.order, 3);
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 0u);

	/* Every slot busy: d gets none by its deadline, starts with -EBUSY. */
	fx->dart->slot_wait_ms = 50;
	park_req(test, ctx[1], &d);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&d.done, 5 * HZ));
	KUNIT_EXPECT_EQ(test, d.slot, -EBUSY);
	KUNIT_EXPECT_EQ(test, fx->dart->parked_failed, 1ull);
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 0u);
	KUNIT_EXPECT_EQ(test, fx->dart->slot_waits, 4ull);

	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		if (i != 4)
			ane_request_pool_put(ctx[i]);
	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		ane_dart_ctx_put(ctx[i]);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ENABLED_STREAMS), 1u);
}

/*
 * While others wait, a bound context with a request in flight parks its
 * next one behind them and keeps its slot; once the one in flight ends,
 * its only request and pins are parked ones, it is idle, and its slot
 * goes to the first in line -- a client with many requests in flight
 * does not hold a slot while others wait.
 */
static void ane_dart_a_busy_context_yields_when_its_work_ends(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx[ANE_DART_NUM_SLOTS + 1];
	struct ane_dart_mapping *m;
	struct parked_req a, b;
	int i;

	atomic_set(&parked_order, 0);
	busy_slots(test, ctx, ARRAY_SIZE(ctx));
	fx->dart->slot_wait_ms = 5000;
	park_req(test, ctx[7], &a);

	/* ctx[0]'s second request, with a pin of its own: it parks behind a. */
	KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx[0]), 0);
	KUNIT_EXPECT_EQ(test, ane_dart_bind_or_park(ctx[0], 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, ctx[0]->slot, 1);
	KUNIT_EXPECT_EQ(test, fx->dart->slot_turns, 0ull);
	m = map_frames(test, ctx[0], 1, ANE_USAGE_INPUT, ANE_PROT_READ_WRITE);
	KUNIT_ASSERT_EQ(test, ane_dart_use(m), 0);
	init_completion(&b.done);
	b.slot = INT_MIN;
	ane_dart_park(ctx[0], 1, &b.w, parked_run);
	KUNIT_EXPECT_FALSE(test, completion_done(&a.done));
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 2u);

	/* Its first request ends: a takes iso1. */
	ane_request_pool_put(ctx[0]);
	ane_dart_dispatch(fx->dart);
	KUNIT_EXPECT_TRUE(test, completion_done(&a.done));
	KUNIT_EXPECT_EQ(test, a.slot, 1);
	KUNIT_EXPECT_EQ(test, ctx[0]->slot, -1);
	KUNIT_EXPECT_FALSE(test, completion_done(&b.done));

	/* b has its turn when iso2's context goes idle. */
	ane_request_pool_put(ctx[1]);
	ane_dart_dispatch(fx->dart);
	KUNIT_EXPECT_TRUE(test, completion_done(&b.done));
	KUNIT_EXPECT_EQ(test, b.slot, 2);
	KUNIT_EXPECT_EQ(test, b.order, 2);
	KUNIT_EXPECT_EQ(test, slot_waiters(fx->dart), 0u);

	ane_dart_unuse(m);
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(m), 0);
	for (i = 0; i < ARRAY_SIZE(ctx) - 1; i++)
		if (i != 1)
			ane_request_pool_put(ctx[i]);
	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		ane_dart_ctx_put(ctx[i]);
	KUNIT_EXPECT_EQ(test, dart_rd(fx, ANE_DART_ENABLED_STREAMS), 1u);
}

#define BIG_FRAMES	4096	/* 64 MiB per mapping */

static void ane_dart_eviction_is_lru_and_spares_mappings_in_use(struct kunit *test)
{
	struct dart_fixture *fx = test->priv;
	struct ane_dart_ctx *ctx = new_ctx(test);
	struct ane_dart_mapping **maps, *m;
	phys_addr_t *frames;
	int i, n = 0;

	frames = kunit_kmalloc_array(test, BIG_FRAMES, sizeof(*frames), GFP_KERNEL);
	maps = kunit_kcalloc(test, 64, sizeof(*maps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frames);
	KUNIT_ASSERT_NOT_NULL(test, maps);
	for (i = 0; i < BIG_FRAMES; i++)
		frames[i] = fx->pa[i % 4];

	/* Fill the aperture: 55 mappings of 64 MiB fit below 3.5 GiB. */
	for (n = 0; n < 55; n++) {
		maps[n] = ane_dart_map(ctx, frames, BIG_FRAMES, ANE_USAGE_WEIGHTS,
				       ANE_PROT_READ_WRITE, NULL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, maps[n]);
	}
	KUNIT_EXPECT_EQ(test, ctx->evictions, 0ull);
	/* A fully mapped context costs at most 2 MiB of tables. */
	KUNIT_EXPECT_LE(test, ctx->table_bytes, 2ull << 20);
	/* More than the whole aperture fails at once, evicting nothing. */
	KUNIT_EXPECT_PTR_EQ(test, ane_dart_map(ctx, frames, (ANE_DART_APERTURE_END >>
							    ANE_DART_PAGE_SHIFT), ANE_USAGE_WEIGHTS,
					       ANE_PROT_READ_WRITE, NULL), ERR_PTR(-ENOSPC));
	KUNIT_EXPECT_EQ(test, ctx->evictions, 0ull);

	/* maps[0] is in use, maps[1] was used recently: maps[2] goes first. */
	KUNIT_ASSERT_EQ(test, ane_dart_use(maps[0]), 0);
	KUNIT_ASSERT_EQ(test, ane_dart_use(maps[1]), 0);
	ane_dart_unuse(maps[1]);
	m = ane_dart_map(ctx, frames, BIG_FRAMES, ANE_USAGE_WEIGHTS, ANE_PROT_READ_WRITE, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 1ull);
	KUNIT_EXPECT_FALSE(test, maps[0]->evicted);
	KUNIT_EXPECT_FALSE(test, maps[1]->evicted);
	KUNIT_EXPECT_TRUE(test, maps[2]->evicted);
	KUNIT_EXPECT_EQ(test, m->iova, maps[2]->iova);
	/* An evicted mapping cannot be used; it can still be unmapped. */
	KUNIT_EXPECT_EQ(test, ane_dart_use(maps[2]), -ESTALE);
	/*
	 * A kernel-managed one is placed again instead: that evicts the least
	 * recently used idle mapping (maps[3]) and takes its address.
	 */
	KUNIT_ASSERT_EQ(test, ane_dart_use_placed(maps[2]), 0);
	KUNIT_EXPECT_FALSE(test, maps[2]->evicted);
	KUNIT_EXPECT_TRUE(test, maps[3]->evicted);
	KUNIT_EXPECT_EQ(test, maps[2]->iova, maps[3]->iova);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 2ull);
	KUNIT_EXPECT_EQ(test, atomic_read(&maps[2]->users), 1);
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(maps[2]), -EBUSY);
	ane_dart_unuse(maps[2]);
	/* Not evicted: placing is a plain use. */
	KUNIT_ASSERT_EQ(test, ane_dart_use_placed(maps[1]), 0);
	KUNIT_EXPECT_EQ(test, ctx->evictions, 2ull);
	ane_dart_unuse(maps[1]);
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(maps[2]), 0);
	maps[2] = m;
	/* A mapping in use is never unmapped. */
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(maps[0]), -EBUSY);
	ane_dart_unuse(maps[0]);

	for (i = 0; i < 55; i++)
		KUNIT_EXPECT_EQ(test, ane_dart_unmap(maps[i]), 0);
	KUNIT_EXPECT_EQ(test, ctx->mapped_pages, 0ull);
	ane_dart_ctx_put(ctx);
}

static void ane_dart_pool_caps_outstanding_requests_at_127(struct kunit *test)
{
	struct ane_dart_ctx *ctx = new_ctx(test);
	struct ane_dart_mapping *map;
	int i;

	map = map_frames(test, ctx, 1, ANE_USAGE_INPUT, ANE_PROT_READ_WRITE);
	for (i = 0; i < ANE_DART_MAX_INFLIGHT; i++)
		KUNIT_ASSERT_EQ(test, ane_request_pool_get(ctx), 0);
	KUNIT_EXPECT_EQ(test, ane_request_pool_get(ctx), -ENOBUFS);
	/* Pins are not requests: one mapping used by each of them, thrice. */
	for (i = 0; i < 3 * ANE_DART_MAX_INFLIGHT; i++)
		KUNIT_ASSERT_EQ(test, ane_dart_use(map), 0);
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(map), -EBUSY);
	for (i = 0; i < 3 * ANE_DART_MAX_INFLIGHT; i++)
		ane_dart_unuse(map);
	ane_request_pool_put(ctx);
	KUNIT_EXPECT_EQ(test, ane_request_pool_get(ctx), 0);
	for (i = 0; i < ANE_DART_MAX_INFLIGHT; i++)
		ane_request_pool_put(ctx);
	KUNIT_EXPECT_EQ(test, ane_dart_unmap(map), 0);
	ane_dart_ctx_put(ctx);
}

static void ane_dart_usage_and_protection_follow_table_28_5(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ane_dart_prot_from_dir(2), ANE_PROT_DEVICE_WRITE);
	/* Read-only (class 2) collapses to read-write on the M1. */
	KUNIT_EXPECT_EQ(test, ane_dart_prot_from_dir(1), ANE_PROT_READ_WRITE);
	KUNIT_EXPECT_EQ(test, ane_dart_prot_from_dir(3), ANE_PROT_READ_WRITE);
	KUNIT_EXPECT_EQ(test, ane_dart_prot_from_dir(0), ANE_PROT_READ_WRITE);

	KUNIT_EXPECT_EQ(test, ane_dart_usage_check(ANE_USAGE_INPUT, false), 0);
	KUNIT_EXPECT_EQ(test, ane_dart_usage_check(ANE_USAGE_CONSTANTS, false), 0);
	KUNIT_EXPECT_EQ(test, ane_dart_usage_check(ANE_USAGE_FW_SHARED, false), -EPERM);
	KUNIT_EXPECT_EQ(test, ane_dart_usage_check(ANE_USAGE_FW_HEAP, true), 0);
	KUNIT_EXPECT_EQ(test, ane_dart_usage_check(3, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, ane_dart_usage_check(0, true), -EINVAL);
}

static void ane_rebase_is_one_subtract_and_one_add(struct kunit *test)
{
	struct ane_aperture_cfg cfg = {
		.dva_base = 0x8000000, .region_size = 0x100000, .mapped_base = 0x1bc40000,
	};
	u32 out = 0;

	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x8000000, 1, &out), 0);
	KUNIT_EXPECT_EQ(test, out, 0x1bc40000u);
	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x8012344, 0x10, &out), 0);
	KUNIT_EXPECT_EQ(test, out, 0x1bc52344u);
	/* Range checks against the mapped region. */
	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x7ffffff, 1, &out), -EFAULT);
	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x8100000, 1, &out), -EFAULT);
	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x80fffff, 2, &out), -EFAULT);
	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x8000000, 0, &out), -EFAULT);
	/* The bases move per load: the same IOVA rebases elsewhere. */
	cfg.mapped_base = 0x1bc80000;
	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x8012344, 4, &out), 0);
	KUNIT_EXPECT_EQ(test, out, 0x1bc92344u);
	/* Nothing at or past the 32-bit ceiling reaches a bar register. */
	cfg.mapped_base = 0xfffff000;
	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x8000000, 0x1000, &out), 0);
	KUNIT_EXPECT_EQ(test, ane_rebase(&cfg, 0x8000000, 0x1001, &out), -ERANGE);
}

static struct kunit_case ane_dart_cases[] = {
	KUNIT_CASE(ane_dart_pte_is_table_28_4),
	KUNIT_CASE(ane_dart_index_math_covers_the_aperture),
	KUNIT_CASE(ane_dart_map_translates_through_the_tables),
	KUNIT_CASE(ane_dart_mapping_a_valid_page_is_eexist),
	KUNIT_CASE(ane_dart_faults_are_captured_and_contained),
	KUNIT_CASE(ane_dart_fault_latch_is_single_shot),
	KUNIT_CASE(ane_dart_translation_cache_needs_explicit_invalidation),
	KUNIT_CASE(ane_dart_contexts_are_isolated),
	KUNIT_CASE(ane_dart_slots_are_cleared_until_the_controller_is_halted),
	KUNIT_CASE(ane_dart_more_clients_than_slots_switch_ttbr),
	KUNIT_CASE(ane_dart_slot_waiters_are_served_in_order),
	KUNIT_CASE(ane_dart_a_request_bind_takes_its_turn),
	KUNIT_CASE(ane_dart_parked_requests_start_in_turn),
	KUNIT_CASE(ane_dart_a_busy_context_yields_when_its_work_ends),
	KUNIT_CASE(ane_dart_eviction_is_lru_and_spares_mappings_in_use),
	KUNIT_CASE(ane_dart_pool_caps_outstanding_requests_at_127),
	KUNIT_CASE(ane_dart_usage_and_protection_follow_table_28_5),
	KUNIT_CASE(ane_rebase_is_one_subtract_and_one_add),
	{}
};

static struct kunit_suite ane_dart_suite = {
	.name = "ane_dart",
	.init = dart_test_init,
	.exit = dart_test_exit,
	.test_cases = ane_dart_cases,
};

kunit_test_suite(ane_dart_suite);
