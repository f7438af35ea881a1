// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: programs on the engine.  The whole firmware boots behind the
 * emulated hardware with a real DART (no identity test memory): the
 * shared region and the program image live in the base context, a
 * client's buffers in an isolation context on its own stream.  A loaded
 * matmul + relu program computes through DART-mapped buffers; a missing
 * or short bar, a DART fault, an image refused at LOAD_PROGRAM, the
 * aperture base moving per load, the deadline inside a procedure, and the
 * firmware's memory coming back at unload and at reset, and the firmware
 * accepting commands while the engine computes.
 *
 * fp16 values are written as bit patterns of small integers: no floating
 * point here.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/regmap.h>
#include <linux/vmalloc.h>

#include <drm/ane_accel.h>

#include "driver/ane_dart.h"
#include "driver/ane_drv.h"
#include "driver/ane_host.h"
#include "firmware/hw/ane_board.h"
#include "firmware/hw/ane_engine.h"
#include "firmware/spec/ane_platform.h"
#include "firmware/ane_fw.h"
#include "firmware/hw/engine/ane_math.h"

#define EX_FRAME_ORDER	(ANE_DART_PAGE_SHIFT - PAGE_SHIFT)
#define EX_MAX_BUFS	16
#define EX_WAIT_MS	20000
#define EX_PRIO		4	/* runs on hardware queue 4 */

/* A buffer of whole 16 KB frames, mapped in a DART context. */
struct ex_buf {
	struct page **frames;
	phys_addr_t *pa;
	u32 n;
	void *va;
	u64 iova;
	u64 size;
};

struct ex_env {
	struct ane_board *board;
	struct regmap *regs[ANE_NUM_BANKS];
	int dart_irq;
	struct ane_device *adev;
	struct ane_dart *dart;
	struct ane_dart_ctx *iso;
	u32 sid;
	struct ane_host *h;
	atomic_t state;
	struct ex_buf *bufs[EX_MAX_BUFS];
	u32 nbufs;
};

static u16 f16(int v)
{
	u32 a = v < 0 ? -v : v, e;

	if (!a)
		return 0;
	e = fls(a) - 1;		/* |v| < 2048: exact */
	return (v < 0 ? 0x8000 : 0) | (e + 15) << 10 | ((a << (10 - e)) & 0x3ff);
}

static void ex_buf_free(struct ex_buf *b)
{
	u32 i;

	if (b->va)
		vunmap(b->va);
	for (i = 0; i < b->n; i++)
		if (b->frames[i])
			__free_pages(b->frames[i], EX_FRAME_ORDER);
	kfree(b->frames);
	kfree(b->pa);
	kfree(b);
}

/* @bytes rounded up to frames, zeroed, mapped in @ctx. */
static struct ex_buf *ex_buf_new(struct kunit *test, struct ane_dart_ctx *ctx,
				 u64 bytes, u32 usage)
{
	struct ex_env *e = test->priv;
	u32 per = 1 << EX_FRAME_ORDER, i, j;
	struct ane_dart_mapping *map;
	struct page **pages;
	struct ex_buf *b;

	KUNIT_ASSERT_LT(test, e->nbufs, EX_MAX_BUFS);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	e->bufs[e->nbufs++] = b;
	b->n = DIV_ROUND_UP(bytes, ANE_DART_PAGE_SIZE);
	b->size = (u64)b->n * ANE_DART_PAGE_SIZE;
	b->frames = kcalloc(b->n, sizeof(*b->frames), GFP_KERNEL);
	b->pa = kcalloc(b->n, sizeof(*b->pa), GFP_KERNEL);
	pages = kcalloc(b->n * per, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->frames);
	KUNIT_ASSERT_NOT_NULL(test, b->pa);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < b->n; i++) {
		b->frames[i] = alloc_pages(GFP_KERNEL | __GFP_ZERO,
					   EX_FRAME_ORDER);
		if (!b->frames[i])
			break;
		b->pa[i] = page_to_phys(b->frames[i]);
		for (j = 0; j < per; j++)
			pages[i * per + j] = nth_page(b->frames[i], j);
	}
	if (i == b->n)
		b->va = vmap(pages, b->n * per, VM_MAP, PAGE_KERNEL);
	kfree(pages);
	KUNIT_ASSERT_NOT_NULL(test, b->va);
	map = ane_dart_map(ctx, b->pa, b->n, usage, ANE_PROT_READ_WRITE, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, map);
	b->iova = map->iova;
	return b;
}

static u32 ex_rd(struct ex_env *e, u32 off)
{
	unsigned int v = 0;

	regmap_read(e->regs[ANE_BANK_ANE], off, &v);
	return v;
}

static struct ane_fw *ex_fw(struct ex_env *e)
{
	return ane_board_kunit_sram(e->board);
}

/* The most bytes one task staged on the engine. */
static u32 ex_stage_peak(struct ex_env *e)
{
	return ex_rd(e, ANE_REG_ENG_STAGE_PEAK);
}

static int ex_init(struct kunit *test)
{
	struct ex_buf *shared, *heap;
	struct device *dev;
	struct ex_env *e;
	int ret;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	test->priv = e;
	dev = kunit_device_register(test, "ane-fw-exec-kunit");
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	e->board = ane_board_kunit_create(dev, true);
	if (IS_ERR(e->board))
		return PTR_ERR(e->board);
	ret = ane_regmaps_init(dev, ane_board_kunit_pdata(e->board), e->regs);
	if (ret)
		return ret;
	e->adev = kzalloc(sizeof(*e->adev), GFP_KERNEL);
	if (!e->adev)
		return -ENOMEM;
	ret = ane_dart_init(e->adev, e->regs[ANE_BANK_PTD]);
	if (ret)
		return ret;
	e->dart = e->adev->dart;
	ret = request_irq(ane_board_kunit_irq(e->board, ANE_IRQ_DART),
			  ane_dart_irq, 0, "ane-fw-exec-kunit:dart", e->dart);
	if (ret)
		return ret;
	e->dart_irq = ane_board_kunit_irq(e->board, ANE_IRQ_DART);
	e->iso = ane_dart_ctx_create(e->dart);
	if (IS_ERR(e->iso)) {
		ret = PTR_ERR(e->iso);
		e->iso = NULL;
		return ret;
	}
	ret = ane_dart_bind(e->iso);
	if (ret < 0)
		return ret;
	e->sid = ret;

	shared = ex_buf_new(test, e->dart->base, ANE_HOST_SHARED_SIZE,
			    ANE_USAGE_FW_SHARED);
	heap = ex_buf_new(test, e->dart->base, ANE_HOST_HEAP_SIZE,
			  ANE_USAGE_FW_HEAP);
	e->h = kzalloc(sizeof(*e->h), GFP_KERNEL);
	if (!e->h)
		return -ENOMEM;
	e->h->shared_va = shared->va;
	e->h->shared_iova = shared->iova;
	e->h->shared_size = shared->size;
	e->h->heap_iova = heap->iova;
	e->h->heap_size = heap->size;
	ret = ane_host_setup(e->h, dev, e->regs,
			     ane_board_kunit_pdata(e->board)->boot_addr,
			     ane_board_kunit_irq(e->board, ANE_IRQ_HOST),
			     &e->state);
	if (ret)
		return ret;
	down_write(&e->h->gate);
	ret = ane_host_boot(e->h, false);
	up_write(&e->h->gate);
	return ret;
}

static void ex_exit(struct kunit *test)
{
	struct ex_env *e = test->priv;
	u32 i;

	if (!e)
		return;
	if (e->h && e->h->regs[ANE_BANK_ANE])
		ane_host_teardown(e->h);
	kfree(e->h);
	if (e->dart_irq)
		free_irq(e->dart_irq, e->dart);
	/* the firmware is halted: nothing reaches the buffers any more */
	ane_dart_ctx_put(e->iso);
	if (e->adev)
		ane_dart_fini(e->adev);
	for (i = 0; i < e->nbufs; i++)
		ex_buf_free(e->bufs[i]);
	kfree(e->adev);
	ane_regmaps_exit(e->regs);
	ane_board_kunit_destroy(e->board);
}

/* ------------------------------------------------------------ commands */

static int ex_wait(struct ane_host_hreq *rq)
{
	if (!wait_for_completion_timeout(&rq->done,
					 msecs_to_jiffies(EX_WAIT_MS)))
		return -ETIME;
	return rq->status;
}

static int ex_ctl(struct kunit *test, u32 id, s32 prog, s32 proc,
		  const void *body, u32 len)
{
	struct ex_env *e = test->priv;
	struct ane_fw_cmd_hdr hdr = { .id = id, .size = len,
				      .program_id = prog, .process_id = proc };
	struct ane_host_hreq *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, rq);
	ret = ane_host_send(e->h, rq, ANE_FW_CH_BUF_H2T, &hdr, body);
	return ret ?: ex_wait(rq);
}

static int ex_load(struct kunit *test, s32 slot, u32 proc_nbr, u64 iova,
		   u64 size)
{
	struct ane_fw_load_program lp = { .proc_nbr = proc_nbr,
					  .image_iova = iova,
					  .image_size = size };

	return ex_ctl(test, ANE_CTL_LOAD_PROGRAM, slot, -1, &lp, sizeof(lp));
}

/*
 * Send a procedure call with @nbars custom bars: on BUF_H2T as the
 * control command 0x41, on IO as 0x20c (0x204 without bars).
 */
static int ex_call_send_prio(struct kunit *test, u32 chan, s32 prog,
			     s32 proc, const struct ane_fw_bar *bars,
			     u32 nbars, u32 prio, struct ane_host_hreq *rq)
{
	struct ex_env *e = test->priv;
	struct ane_fw_cmd_hdr hdr = { .priority = prio, .program_id = prog,
				      .process_id = proc };
	struct ane_fw_proc_call *pc;
	u8 *body;
	u32 len;

	body = kunit_kzalloc(test, ANE_FW_PROC_CALL_MAX_BODY, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, body);
	pc = (void *)body;
	*pc = (struct ane_fw_proc_call){ .nbr_output_buffer_sets = 1,
					 .nbr_event_masks = 1,
					 .nbr_td_partitions = 1,
					 .task_queue = 3,
					 .nbr_custom_bars = nbars };
	memcpy(pc + 1, bars, nbars * sizeof(*bars));
	len = sizeof(*pc) + nbars * sizeof(*bars);
	if (nbars) {
		/* the 0x20c variant carries a custom execute order */
		pc->nbr_custom_exec_order = 1;
		pc->custom_exec_order_offset = len;
		len += sizeof(u32);
	}
	hdr.size = len;
	if (chan == ANE_FW_CH_IO)
		hdr.id = nbars ? ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS :
				 ANE_CMD_PROCEDURE_CALL;
	else
		hdr.id = ANE_CTL_PROCEDURE_CALL;
	return ane_host_send(e->h, rq, chan, &hdr, body);
}

static int ex_call_send(struct kunit *test, u32 chan, s32 prog, s32 proc,
			const struct ane_fw_bar *bars, u32 nbars,
			struct ane_host_hreq *rq)
{
	return ex_call_send_prio(test, chan, prog, proc, bars, nbars, EX_PRIO,
				 rq);
}

static int ex_call(struct kunit *test, u32 chan, s32 prog, s32 proc,
		   const struct ane_fw_bar *bars, u32 nbars, s32 *fw_status)
{
	struct ane_host_hreq *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, rq);
	ret = ex_call_send(test, chan, prog, proc, bars, nbars, rq);
	if (!ret)
		ret = ex_wait(rq);
	if (fw_status)
		*fw_status = rq->fw_status;
	return ret;
}

static struct ane_fw_bar ex_bar(u32 slot, u32 sid, u64 iova, u64 size)
{
	return (struct ane_fw_bar){ .type = ANE_CUSTOM_BAR_GENERIC,
				    .config = ANE_CUSTOM_BAR_HW_32BIT,
				    .bar_id = slot, .sid = sid, .value = iova,
				    .buf_size = size };
}

/* ----------------------------------------------- the matmul + relu program */

/*
 * One procedure of two tasks, as in the ane_image suite: input 0 (2x3)
 * times the weights (3x2) into the intermediate, then relu into output 0.
 */
#define MM_SIZE		(ANE_DART_PAGE_SIZE + 16)
#define MM_PROCS	128
#define MM_BARS		160
#define MM_TDS		256
#define MM_RWS		544
#define MM_WEIGHTS	ANE_DART_PAGE_SIZE
#define MM_IN		0
#define MM_OUT		1
#define MM_W		5
#define MM_MID		7

static const int mm_a[6] = { 1, -2, 3, 4, 5, 1 };
static const int mm_w[6] = { 1, 2, 3, -4, 5, 6 };
static const int mm_mid[4] = { 10, 28, 24, -6 };	/* a x w */
static const int mm_out[4] = { 10, 28, 24, 0 };		/* relu */

static void ex_dims(u32 *w, u32 n, u32 c, u32 h, u32 x)
{
	w[0] = n;
	w[1] = c;
	w[2] = h;
	w[3] = x;
}

static void ex_rw(struct ane_img_rw *rw, u32 td, u32 reg, u32 bar, u32 len)
{
	*rw = (struct ane_img_rw){ .td = td, .reg = reg, .bar = bar,
				   .length_lo = len };
}

static void mm_build(u8 *b)
{
	struct ane_img_header *h = (void *)b;
	struct ane_img_procedure *p = (void *)(b + MM_PROCS);
	struct ane_img_bar *bar = (void *)(b + MM_BARS);
	struct ane_img_td *td = (void *)(b + MM_TDS);
	struct ane_img_rw *rw = (void *)(b + MM_RWS);
	u16 *w = (void *)(b + MM_WEIGHTS);
	int i;

	memset(b, 0, MM_SIZE);
	*h = (struct ane_img_header){
		.magic = ANE_IMG_MAGIC, .version_major = 1, .header_size = 128,
		.image_size = MM_SIZE,
		.num_procedures = 1, .procedures_offset = MM_PROCS,
		.num_tds = 2, .tds_offset = MM_TDS,
		.num_rws = 5, .rws_offset = MM_RWS,
		.num_bars = 4, .bars_offset = MM_BARS,
		.weights_offset = MM_WEIGHTS, .weights_size = 12,
		.intermediate_size = ANE_DART_PAGE_SIZE,
	};
	*p = (struct ane_img_procedure){ .num_tds = 2, .num_rws = 5,
					 .num_inputs = 1, .num_outputs = 1,
					 .partitions = 1 };
	bar[0] = (struct ane_img_bar){ .slot = MM_IN, .usage = 1, .size = 12 };
	bar[1] = (struct ane_img_bar){ .slot = MM_OUT, .usage = 2, .size = 8 };
	bar[2] = (struct ane_img_bar){ .slot = MM_W, .usage = 8, .size = 12 };
	bar[3] = (struct ane_img_bar){ .slot = MM_MID, .usage = 7, .size = 64 };

	td[0].words[ANE_TD_OP] = ANE_OP_MATMUL;
	ex_dims(&td[0].words[ANE_TD_SRC0_DIMS], 1, 1, 2, 3);
	ex_dims(&td[0].words[ANE_TD_SRC1_DIMS], 1, 1, 3, 2);
	ex_dims(&td[0].words[ANE_TD_DST_DIMS], 1, 1, 2, 2);
	td[1].words[ANE_TD_OP] = ANE_OP_ACT;
	td[1].words[ANE_TD_ACT] = ANE_ACT_RELU;
	ex_dims(&td[1].words[ANE_TD_SRC0_DIMS], 1, 1, 2, 2);
	ex_dims(&td[1].words[ANE_TD_DST_DIMS], 1, 1, 2, 2);

	ex_rw(&rw[0], 0, ANE_TD_REG_SRC0, MM_IN, 12);
	ex_rw(&rw[1], 0, ANE_TD_REG_SRC1, MM_W, 12);
	ex_rw(&rw[2], 0, ANE_TD_REG_DST, MM_MID, 8);
	ex_rw(&rw[3], 1, ANE_TD_REG_SRC0, MM_MID, 8);
	ex_rw(&rw[4], 1, ANE_TD_REG_DST, MM_OUT, 8);

	for (i = 0; i < 6; i++)
		w[i] = f16(mm_w[i]);
}

/* A loaded matmul program: its image and the client's buffers. */
struct mm {
	struct ex_buf *img, *in, *out, *mid;
	struct ane_fw_bar bars[4];
};

static void mm_setup(struct kunit *test, struct mm *m)
{
	struct ex_env *e = test->priv;
	u16 *a;
	int i;

	m->img = ex_buf_new(test, e->dart->base, MM_SIZE, ANE_USAGE_PROGRAM);
	m->in = ex_buf_new(test, e->iso, 12, ANE_USAGE_INPUT);
	m->out = ex_buf_new(test, e->iso, 8, ANE_USAGE_OUTPUT);
	m->mid = ex_buf_new(test, e->iso, 64, ANE_USAGE_INTERMEDIATE);
	mm_build(m->img->va);
	a = m->in->va;
	for (i = 0; i < 6; i++)
		a[i] = f16(mm_a[i]);
	memset(m->out->va, 0xee, 8);
	m->bars[0] = ex_bar(MM_IN, e->sid, m->in->iova, m->in->size);
	m->bars[1] = ex_bar(MM_OUT, e->sid, m->out->iova, m->out->size);
	m->bars[2] = ex_bar(MM_W, 0, m->img->iova + MM_WEIGHTS, 12);
	m->bars[3] = ex_bar(MM_MID, e->sid, m->mid->iova, m->mid->size);
}

/* Load @m into @slot and run process @proc of it. */
static void mm_load(struct kunit *test, struct mm *m, s32 slot, s32 proc)
{
	KUNIT_ASSERT_EQ(test, ex_load(test, slot, 1, m->img->iova, MM_SIZE), 0);
	KUNIT_ASSERT_EQ(test, ex_ctl(test, ANE_CTL_CREATE_PROCESS, slot, proc,
				     NULL, 0), 0);
}

static void mm_unload(struct kunit *test, s32 slot, s32 proc)
{
	KUNIT_ASSERT_EQ(test, ex_ctl(test, ANE_CTL_TERMINATE_PROCESS, slot,
				     proc, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, ex_ctl(test, ANE_CTL_UNLOAD_PROGRAM, slot, -1,
				     NULL, 0), 0);
}

static void mm_expect(struct kunit *test, const u16 *got, const int *want)
{
	int i;

	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], f16(want[i]), "element %d", i);
}

static void mm_expect_untouched(struct kunit *test, struct mm *m)
{
	const u8 *o = m->out->va;
	int i;

	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, o[i], 0xee);
}

/* ---------------------------------------------------------------- tests */

static void ane_fw_exec_matmul_relu_through_the_dart(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_fw *fw = ex_fw(e);
	struct mm m;
	s32 st = -1;

	mm_setup(test, &m);
	KUNIT_ASSERT_EQ(test, fw->mem_allocs, 0);
	mm_load(test, &m, 2, 6);
	KUNIT_EXPECT_EQ(test, fw->mem_allocs, 1);	/* the program's copy */

	/* the control channel's 0x41 with bars runs as 0x20c */
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_BUF_H2T, 2, 6, m.bars, 4,
				      &st), 0);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_OK);
	mm_expect(test, m.mid->va, mm_mid);
	mm_expect(test, m.out->va, mm_out);
	/* nothing staged is left behind */
	KUNIT_EXPECT_EQ(test, fw->mem_allocs, 1);
	KUNIT_EXPECT_GT(test, ex_stage_peak(e), 0);
	KUNIT_EXPECT_LE(test, ex_stage_peak(e), ANE_ENGINE_STAGE_MAX);

	/* and the execution-loop channel's 0x20c, bars in any order */
	memset(m.out->va, 0, 8);
	swap(m.bars[0], m.bars[3]);
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 2, 6, m.bars, 4, &st),
			0);
	mm_expect(test, m.out->va, mm_out);
	KUNIT_EXPECT_EQ(test, fw->mem_allocs, 1);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
}

static void ane_fw_exec_missing_or_short_bar_is_invalid(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_fw_bar bars[4];
	struct mm m;
	s32 st = -1;

	mm_setup(test, &m);
	mm_load(test, &m, 0, 0);

	/* no weights bar */
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 0, 0, m.bars, 3, &st),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_INVALID);
	/* a weights bar smaller than the image's slot */
	memcpy(bars, m.bars, sizeof(bars));
	bars[2].buf_size = 10;
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 0, 0, bars, 4, &st),
			-EINVAL);
	/* the same slot twice */
	bars[2] = m.bars[1];
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 0, 0, bars, 4, &st),
			-EINVAL);
	/* no bars at all */
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_BUF_H2T, 0, 0, NULL, 0,
				      &st), -EINVAL);
	/* a stream the DART does not have */
	memcpy(bars, m.bars, sizeof(bars));
	bars[0].sid = ANE_FW_NUM_STREAMS;
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 0, 0, bars, 4, &st),
			-EINVAL);
	mm_expect_untouched(test, &m);

	/* the program is fine */
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 0, 0, m.bars, 4, &st),
			0);
	mm_expect(test, m.out->va, mm_out);
	KUNIT_EXPECT_EQ(test, ex_fw(e)->mem_allocs, 1);
}

static void ane_fw_exec_dart_fault_fails_only_its_request(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_host_hreq *bad, *good;
	struct ane_dart_fault f = { };
	struct ane_fw_bar bars[4];
	u64 errors = e->h->errors;
	u64 hole;
	struct mm m;
	s32 st = -1;

	mm_setup(test, &m);
	mm_load(test, &m, 5, 7);
	/* a page nobody mapped, past every buffer of the context */
	hole = m.mid->iova + 64 * ANE_DART_PAGE_SIZE;

	/* the output faults: the matmul ran, the relu's write did not land */
	memcpy(bars, m.bars, sizeof(bars));
	bars[1] = ex_bar(MM_OUT, e->sid, hole, ANE_DART_PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 5, 7, bars, 4, &st),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_FAULT);
	KUNIT_ASSERT_TRUE(test, ane_dart_last_fault(e->dart, e->iso->id, &f));
	KUNIT_EXPECT_EQ(test, f.address, hole);
	KUNIT_EXPECT_EQ(test, f.sid, e->sid);
	KUNIT_EXPECT_TRUE(test, f.is_write);
	KUNIT_EXPECT_GT(test, e->h->errors, errors);

	/* the input faults: nothing after it runs */
	memset(m.mid->va, 0, 64);
	bars[1] = m.bars[1];
	bars[0].value = hole;
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 5, 7, bars, 4, &st),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, *(u16 *)m.mid->va, 0);
	mm_expect_untouched(test, &m);
	/* the right address on a stream no context is bound to */
	bars[0] = m.bars[0];
	bars[0].sid = ANE_FW_NUM_STREAMS - 1;
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 5, 7, bars, 4, &st),
			-EFAULT);
	mm_expect_untouched(test, &m);

	/* a faulting and a good request back to back: only one fails */
	bars[0] = m.bars[0];
	bars[1].value = hole;
	bad = kunit_kzalloc(test, sizeof(*bad), GFP_KERNEL);
	good = kunit_kzalloc(test, sizeof(*good), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bad);
	KUNIT_ASSERT_NOT_NULL(test, good);
	KUNIT_ASSERT_EQ(test, ex_call_send(test, ANE_FW_CH_IO, 5, 7, bars, 4,
					   bad), 0);
	KUNIT_ASSERT_EQ(test, ex_call_send(test, ANE_FW_CH_IO, 5, 7, m.bars, 4,
					   good), 0);
	KUNIT_EXPECT_EQ(test, ex_wait(bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, ex_wait(good), 0);
	mm_expect(test, m.out->va, mm_out);
	KUNIT_EXPECT_EQ(test, ex_fw(e)->mem_allocs, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_READY);
}

static void ane_fw_exec_unload_frees_the_program(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_fw *fw = ex_fw(e);
	struct mm m;
	int i;

	mm_setup(test, &m);
	KUNIT_ASSERT_EQ(test, fw->mem_allocs, 0);
	KUNIT_ASSERT_EQ(test, fw->mem_bytes, 0);
	mm_load(test, &m, 1, 1);
	KUNIT_EXPECT_EQ(test, fw->mem_allocs, 1);
	KUNIT_EXPECT_GT(test, fw->mem_bytes, 2 * sizeof(struct ane_img_td) +
			5 * sizeof(struct ane_img_rw));
	/* bounded by the tables, not by the image (weights stay out) */
	KUNIT_EXPECT_LT(test, fw->mem_bytes, 4096);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 1, 1, m.bars,
					      4, NULL), 0);
	KUNIT_EXPECT_EQ(test, fw->mem_allocs, 1);
	/* refused while its process runs */
	KUNIT_EXPECT_EQ(test, ex_ctl(test, ANE_CTL_UNLOAD_PROGRAM, 1, -1, NULL,
				     0), -EBUSY);
	mm_unload(test, 1, 1);
	KUNIT_EXPECT_EQ(test, fw->mem_allocs, 0);
	KUNIT_EXPECT_EQ(test, fw->mem_bytes, 0);
	/* its calls are refused now */
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 1, 1, m.bars, 4, NULL),
			-ENOENT);

	/* a reset drops what the firmware holds, and frees it */
	mm_load(test, &m, 1, 1);
	mm_load(test, &m, 2, 2);
	KUNIT_EXPECT_EQ(test, fw->mem_allocs, 2);
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "reboot", 0), 0);
	KUNIT_EXPECT_EQ(test, fw->mem_allocs, 0);
	KUNIT_EXPECT_EQ(test, fw->mem_bytes, 0);
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 1, 1, m.bars, 4, NULL),
			-ENOENT);
}

static void ane_fw_exec_rebase_moves_at_each_load(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_fw *fw = ex_fw(e);
	u32 base[3], i;
	struct mm m;

	mm_setup(test, &m);
	for (i = 0; i < 3; i++) {
		mm_load(test, &m, 0, 0);
		base[i] = fw->programs[0].mapped_base;
		/* the firmware aperture of ch. 28: high half 0x1bc4 */
		KUNIT_EXPECT_EQ(test, base[i] >> 16, 0x1bc4);
		if (i)
			KUNIT_EXPECT_NE(test, base[i], base[i - 1]);
		memset(m.out->va, 0, 8);
		KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 0, 0, m.bars,
					      4, NULL), 0);
		mm_expect(test, m.out->va, mm_out);
		/* the bar registers hold the rebased buffers, not the IOVAs */
		KUNIT_EXPECT_EQ(test, ex_rd(e, ANE_REG_Q_BAR(EX_PRIO, MM_OUT)),
				base[i]);
		KUNIT_EXPECT_NE(test, (u64)base[i], m.out->iova);
		mm_unload(test, 0, 0);
	}
	/* another slot, another window; all below the 32-bit ceiling */
	mm_load(test, &m, 143, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_NE(test, fw->programs[143].mapped_base, base[i]);
	KUNIT_EXPECT_LT(test, (u64)fw->programs[143].mapped_base +
			m.out->size, BIT_ULL(32));
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 143, 3, m.bars, 4,
				      NULL), 0);
}

static void ane_fw_exec_corrupt_image_is_refused(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_img_header *h;
	struct ane_img_procedure *p;
	struct ane_img_bar *bar;
	struct ane_img_rw *rw;
	struct mm m;

	mm_setup(test, &m);
	h = m.img->va;
	p = m.img->va + MM_PROCS;
	bar = m.img->va + MM_BARS;
	rw = m.img->va + MM_RWS;

	h->magic ^= 1;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	h->magic ^= 1;
	/* the size the driver says is not the header's */
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE + 16),
			-EINVAL);
	/* nor the procedure count */
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 2, m.img->iova, MM_SIZE), -EINVAL);
	/* a table past the end of the image */
	h->num_rws = 400;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	h->num_rws = 5;
	h->version_major = 2;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	h->version_major = 1;
	/* a procedure outside the task table */
	p->first_td = 1;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	p->first_td = 0;
	/* a bar slot twice */
	bar[1].slot = MM_IN;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	bar[1].slot = MM_OUT;
	/*
	 * Weights or constants past the end of the image: the firmware
	 * builds a chained run's stream-0 bar from them.
	 */
	h->weights_offset = MM_SIZE - 8;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	h->weights_offset = U64_MAX - 4;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	h->weights_offset = MM_WEIGHTS;
	h->constants_offset = MM_WEIGHTS;
	h->constants_size = 17;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	h->constants_offset = 0;
	h->constants_size = 0;
	/*
	 * A destination in the weights (stream 0, the image itself): the
	 * engine writes only outputs and intermediates.
	 */
	rw[4].bar = MM_W;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	rw[4].bar = MM_IN;
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova, MM_SIZE), -EINVAL);
	rw[4].bar = MM_OUT;
	/* an image nobody mapped */
	KUNIT_EXPECT_EQ(test, ex_load(test, 3, 1, m.img->iova + 64 *
				      ANE_DART_PAGE_SIZE, MM_SIZE), -EFAULT);
	KUNIT_EXPECT_EQ(test, ex_fw(e)->mem_allocs, 0);

	/* the slot is still free */
	mm_load(test, &m, 3, 4);
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 3, 4, m.bars, 4, NULL),
			0);
	mm_expect(test, m.out->va, mm_out);
}

/*
 * A long procedure: a 256x2048 by 2048x256 matmul (128 Mi multiply-adds,
 * seconds under TCG), then relu in place on the output; the deadline is
 * checked between its tasks and between the chunks of each.
 */
#define LONG_M		256
#define LONG_K		2048
#define LONG_SIZE	1024

static void long_build(u8 *b)
{
	struct ane_img_header *h = (void *)b;
	struct ane_img_procedure *p = (void *)(b + 128);
	struct ane_img_bar *bar = (void *)(b + 160);
	struct ane_img_td *td = (void *)(b + 256);
	struct ane_img_rw *rw = (void *)(b + 544);
	u32 in = LONG_M * LONG_K * 2, out = LONG_M * LONG_M * 2;

	memset(b, 0, LONG_SIZE);
	*h = (struct ane_img_header){
		.magic = ANE_IMG_MAGIC, .version_major = 1, .header_size = 128,
		.image_size = LONG_SIZE,
		.num_procedures = 1, .procedures_offset = 128,
		.num_tds = 2, .tds_offset = 256,
		.num_rws = 5, .rws_offset = 544,
		.num_bars = 3, .bars_offset = 160,
	};
	*p = (struct ane_img_procedure){ .num_tds = 2, .num_rws = 5,
					 .num_inputs = 2, .num_outputs = 1,
					 .partitions = 1 };
	bar[0] = (struct ane_img_bar){ .slot = 0, .usage = 1, .size = in };
	bar[1] = (struct ane_img_bar){ .slot = 1, .usage = 1, .io_index = 1,
				       .size = in };
	bar[2] = (struct ane_img_bar){ .slot = 2, .usage = 2, .size = out };
	td[0].words[ANE_TD_OP] = ANE_OP_MATMUL;
	ex_dims(&td[0].words[ANE_TD_SRC0_DIMS], 1, 1, LONG_M, LONG_K);
	ex_dims(&td[0].words[ANE_TD_SRC1_DIMS], 1, 1, LONG_K, LONG_M);
	ex_dims(&td[0].words[ANE_TD_DST_DIMS], 1, 1, LONG_M, LONG_M);
	td[1].words[ANE_TD_OP] = ANE_OP_ACT;
	td[1].words[ANE_TD_ACT] = ANE_ACT_RELU;
	ex_dims(&td[1].words[ANE_TD_SRC0_DIMS], 1, 1, LONG_M, LONG_M);
	ex_dims(&td[1].words[ANE_TD_DST_DIMS], 1, 1, LONG_M, LONG_M);
	ex_rw(&rw[0], 0, ANE_TD_REG_SRC0, 0, in);
	ex_rw(&rw[1], 0, ANE_TD_REG_SRC1, 1, in);
	ex_rw(&rw[2], 0, ANE_TD_REG_DST, 2, out);
	ex_rw(&rw[3], 1, ANE_TD_REG_SRC0, 2, out);
	ex_rw(&rw[4], 1, ANE_TD_REG_DST, 2, out);
}

static void ane_fw_exec_deadline_aborts_a_long_procedure(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ex_buf *img, *a, *b, *c;
	struct ane_fw_bar bars[3];
	unsigned long t0;
	u64 aborts;
	struct mm m;
	u16 *x;
	s32 st = -1;
	int i;

	img = ex_buf_new(test, e->dart->base, LONG_SIZE, ANE_USAGE_PROGRAM);
	a = ex_buf_new(test, e->iso, LONG_M * LONG_K * 2, ANE_USAGE_INPUT);
	b = ex_buf_new(test, e->iso, LONG_M * LONG_K * 2, ANE_USAGE_INPUT);
	c = ex_buf_new(test, e->iso, LONG_M * LONG_M * 2, ANE_USAGE_OUTPUT);
	long_build(img->va);
	/* a = 1, b = 1: every output element is K */
	for (x = a->va, i = 0; i < LONG_M * LONG_K; i++)
		x[i] = f16(1);
	for (x = b->va, i = 0; i < LONG_M * LONG_K; i++)
		x[i] = f16(1);
	bars[0] = ex_bar(0, e->sid, a->iova, a->size);
	bars[1] = ex_bar(1, e->sid, b->iova, b->size);
	bars[2] = ex_bar(2, e->sid, c->iova, c->size);
	KUNIT_ASSERT_EQ(test, ex_load(test, 8, 1, img->iova, LONG_SIZE), 0);
	KUNIT_ASSERT_EQ(test, ex_ctl(test, ANE_CTL_CREATE_PROCESS, 8, 8, NULL,
				     0), 0);

	aborts = ex_fw(e)->deadline_aborts;
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "deadline", 1), 0);
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 8, 8, bars, 3, &st),
			-ETIMEDOUT);
	/* aborted inside the matmul, not after it */
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t0), 1000);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_TIMEOUT);
	KUNIT_EXPECT_EQ(test, ex_fw(e)->deadline_aborts, aborts + 1);
	KUNIT_EXPECT_EQ(test, ex_fw(e)->mem_allocs, 1);
	x = c->va;
	KUNIT_EXPECT_EQ(test, x[0], 0);		/* nothing written back */

	/* the engine carries on */
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "deadline",
					      ANE_FW_DEADLINE_MS), 0);
	mm_setup(test, &m);
	mm_load(test, &m, 9, 9);
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 9, 9, m.bars, 4, &st),
			0);
	mm_expect(test, m.out->va, mm_out);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_READY);
}

/*
 * A one-procedure image of one task, a relu of an @hgt x @wid fp16 plane
 * (bar 0 in, bar 1 out), in the LONG_SIZE buffer at @va.
 */
static void ex_relu_image(void *va, u32 hgt, u32 wid)
{
	struct ane_img_header *h = va;
	struct ane_img_procedure *p = va + 128;
	struct ane_img_bar *bar = va + 160;
	struct ane_img_td *td = va + 256;
	struct ane_img_rw *rw = va + 400;
	u32 bytes = 2 * hgt * wid;

	*h = (struct ane_img_header){
		.magic = ANE_IMG_MAGIC, .version_major = 1, .header_size = 128,
		.image_size = LONG_SIZE,
		.num_procedures = 1, .procedures_offset = 128,
		.num_tds = 1, .tds_offset = 256,
		.num_rws = 2, .rws_offset = 400,
		.num_bars = 2, .bars_offset = 160,
	};
	*p = (struct ane_img_procedure){ .num_tds = 1, .num_rws = 2,
					 .num_inputs = 1, .num_outputs = 1,
					 .partitions = 1 };
	bar[0] = (struct ane_img_bar){ .slot = 0, .usage = 1, .size = bytes };
	bar[1] = (struct ane_img_bar){ .slot = 1, .usage = 2, .size = bytes };
	td->words[ANE_TD_OP] = ANE_OP_ACT;
	td->words[ANE_TD_ACT] = ANE_ACT_RELU;
	ex_dims(&td->words[ANE_TD_SRC0_DIMS], 1, 1, hgt, wid);
	ex_dims(&td->words[ANE_TD_DST_DIMS], 1, 1, hgt, wid);
	ex_rw(&rw[0], 0, ANE_TD_REG_SRC0, 0, bytes);
	ex_rw(&rw[1], 0, ANE_TD_REG_DST, 1, bytes);
}

/* A relu of 64 MiB into another 64 MiB: twice the staging cap. */
#define BIG_H		8192
#define BIG_W		4096
#define BIG_BYTES	(2ull * BIG_H * BIG_W)

static void ane_fw_exec_staging_is_capped(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_fw_bar bars[2];
	struct ex_buf *img, *buf;
	u64 peak;
	s32 st = -1;
	int ret;

	static_assert(BIG_BYTES <= ANE_ENGINE_STAGE_MAX);
	static_assert(2 * BIG_BYTES > ANE_ENGINE_STAGE_MAX);
	img = ex_buf_new(test, e->dart->base, LONG_SIZE, ANE_USAGE_PROGRAM);
	buf = ex_buf_new(test, e->iso, ANE_DART_PAGE_SIZE, ANE_USAGE_INPUT);
	ex_relu_image(img->va, BIG_H, BIG_W);
	KUNIT_ASSERT_EQ(test, ex_load(test, 11, 1, img->iova, LONG_SIZE), 0);
	KUNIT_ASSERT_EQ(test, ex_ctl(test, ANE_CTL_CREATE_PROCESS, 11, 11,
				     NULL, 0), 0);

	/* refused before anything is allocated or moved */
	peak = ex_stage_peak(e);
	bars[0] = ex_bar(0, e->sid, buf->iova, BIG_BYTES);
	bars[1] = ex_bar(1, e->sid, buf->iova + BIG_BYTES, BIG_BYTES);
	ret = ex_call(test, ANE_FW_CH_IO, 11, 11, bars, 2, &st);
	KUNIT_EXPECT_LT(test, ret, 0);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_TOO_BIG);
	KUNIT_EXPECT_EQ(test, ex_stage_peak(e), peak);
	KUNIT_EXPECT_EQ(test, ex_fw(e)->mem_allocs, 1);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
}

/* Queues the engine ended in softirq context and in its worker. */
static void ex_ran(struct ex_env *e, u64 *softirq, u64 *task)
{
	ane_engine_test_ran(ane_board_kunit_engine(e->board), softirq, task);
}

/*
 * A small block runs in softirq context: the matmul + relu program (two
 * tiny tasks) ends in the engine's softirq job, none on its worker, and
 * computes.
 */
static void ane_fw_exec_small_block_runs_in_softirq(struct kunit *test)
{
	struct ex_env *e = test->priv;
	u64 bh0, wk0, bh, wk;
	struct mm m;
	s32 st = -1;

	mm_setup(test, &m);
	mm_load(test, &m, 2, 6);
	ex_ran(e, &bh0, &wk0);
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 2, 6, m.bars, 4, &st),
			0);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_OK);
	mm_expect(test, m.mid->va, mm_mid);
	mm_expect(test, m.out->va, mm_out);
	ex_ran(e, &bh, &wk);
	KUNIT_EXPECT_EQ(test, bh, bh0 + 1);
	KUNIT_EXPECT_EQ(test, wk, wk0);
}

/* A relu of 256 KiB into another: over the softirq job's arena. */
#define MID_H		256
#define MID_W		512
#define MID_BYTES	(2u * MID_H * MID_W)

/*
 * A block over the softirq path's bound runs on the engine's worker: the
 * softirq job scans it, gives it back untouched, and the worker computes
 * it.
 */
static void ane_fw_exec_large_block_runs_on_the_worker(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_fw_bar bars[2];
	struct ex_buf *img, *in, *out;
	u64 bh0, wk0, bh, wk;
	u16 *x, *y;
	s32 st = -1;
	u32 i;

	img = ex_buf_new(test, e->dart->base, LONG_SIZE, ANE_USAGE_PROGRAM);
	in = ex_buf_new(test, e->iso, MID_BYTES, ANE_USAGE_INPUT);
	out = ex_buf_new(test, e->iso, MID_BYTES, ANE_USAGE_OUTPUT);
	ex_relu_image(img->va, MID_H, MID_W);
	for (x = in->va, i = 0; i < MID_H * MID_W; i++)
		x[i] = f16(i % 7 - 3);
	KUNIT_ASSERT_EQ(test, ex_load(test, 12, 1, img->iova, LONG_SIZE), 0);
	KUNIT_ASSERT_EQ(test, ex_ctl(test, ANE_CTL_CREATE_PROCESS, 12, 12,
				     NULL, 0), 0);

	ex_ran(e, &bh0, &wk0);
	bars[0] = ex_bar(0, e->sid, in->iova, MID_BYTES);
	bars[1] = ex_bar(1, e->sid, out->iova, MID_BYTES);
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 12, 12, bars, 2,
				      &st), 0);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_OK);
	ex_ran(e, &bh, &wk);
	KUNIT_EXPECT_EQ(test, bh, bh0);
	KUNIT_EXPECT_EQ(test, wk, wk0 + 1);
	for (y = out->va, i = 0; i < MID_H * MID_W; i++)
		if (y[i] != f16(max(i % 7, 3u) - 3)) {
			KUNIT_FAIL(test, "element %u: 0x%04x", i, y[i]);
			break;
		}
	KUNIT_EXPECT_GE(test, ex_stage_peak(e), 2 * MID_BYTES);
}

/* Wait up to a second for hardware queue @q to be busy. */
static bool ex_queue_busy(struct ex_env *e, u32 q)
{
	unsigned long end = jiffies + HZ;

	do {
		if (ex_rd(e, ANE_REG_Q_STATUS(q)) & ANE_Q_BUSY)
			return true;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, end));
	return false;
}

/*
 * The firmware goes on while the engine computes.  With every submission
 * held 1.5 s on the engine (ENG_LATENCY_NS), a call is in flight on
 * hardware queue 4; meanwhile the firmware answers a ping, answers a call
 * it refuses at acceptance, refuses another on a free hardware queue at
 * dispatch, and accepts a call at another priority and dispatches it to
 * its own hardware queue -- all before the first call completes.  A
 * firmware that computed in its own thread would answer none of them
 * until the first call was done (and would not hold a queue busy for
 * ENG_LATENCY_NS at all).
 */
static void ane_fw_exec_firmware_goes_on_while_the_engine_computes(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_host_hreq *a, *c;
	struct mm m;
	s32 st = -1;

	mm_setup(test, &m);
	mm_load(test, &m, 4, 4);
	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, c);
	/* the engine runs one queue at a time: the last call waits 3 s */
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "deadline", 10000), 0);
	regmap_write(e->regs[ANE_BANK_ANE], ANE_REG_ENG_LATENCY_NS,
		     1500 * NSEC_PER_MSEC);

	KUNIT_ASSERT_EQ(test, ex_call_send(test, ANE_FW_CH_IO, 4, 4, m.bars, 4,
					   a), 0);
	KUNIT_EXPECT_TRUE(test, ex_queue_busy(e, EX_PRIO));
	/* a control command is answered */
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&a->done));
	/* a call of a program nobody loaded is refused at once */
	KUNIT_EXPECT_LT(test, ex_call(test, ANE_FW_CH_IO, 6, 6, m.bars, 4, &st),
			0);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_NOENT);
	KUNIT_EXPECT_FALSE(test, completion_done(&a->done));
	/*
	 * a call without its weights bar, at another priority, is dispatched
	 * to its free queue and refused there
	 */
	KUNIT_ASSERT_EQ(test, ex_call_send_prio(test, ANE_FW_CH_IO, 4, 4,
						m.bars, 3, EX_PRIO + 1, c), 0);
	KUNIT_EXPECT_EQ(test, ex_wait(c), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->fw_status, ANE_FW_ST_INVALID);
	KUNIT_EXPECT_FALSE(test, completion_done(&a->done));
	memset(c, 0, sizeof(*c));
	/* a call at another priority is queued on its own hardware queue */
	KUNIT_ASSERT_EQ(test, ex_call_send_prio(test, ANE_FW_CH_IO, 4, 4,
						m.bars, 4, EX_PRIO + 1, c), 0);
	KUNIT_EXPECT_TRUE(test, ex_queue_busy(e, EX_PRIO + 1));
	KUNIT_EXPECT_FALSE(test, completion_done(&a->done));

	/* then both complete, and compute */
	KUNIT_EXPECT_EQ(test, ex_wait(a), 0);
	KUNIT_EXPECT_EQ(test, ex_wait(c), 0);
	mm_expect(test, m.out->va, mm_out);
	regmap_write(e->regs[ANE_BANK_ANE], ANE_REG_ENG_LATENCY_NS, 0);
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "deadline",
					      ANE_FW_DEADLINE_MS), 0);
	KUNIT_EXPECT_EQ(test, ex_fw(e)->mem_allocs, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_READY);
}

/*
 * A controller crash while the engine computes: the engine is inside a
 * job on its worker (held there by ENG_LATENCY_NS) when the firmware
 * dies.  The call in flight ends -EIO, the recovery's reset of the
 * controller stops the engine and waits for it to leave the job (no
 * deadlock, nothing running on the queue afterwards), the firmware boots
 * again, and the engine computes for it.
 */
static void ane_fw_exec_crash_while_the_engine_computes(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_host_hreq *a;
	unsigned long end;
	struct mm m;
	s32 st = -1;

	mm_setup(test, &m);
	mm_load(test, &m, 4, 4);
	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	regmap_write(e->regs[ANE_BANK_ANE], ANE_REG_ENG_LATENCY_NS,
		     1500 * NSEC_PER_MSEC);
	KUNIT_ASSERT_EQ(test, ex_call_send(test, ANE_FW_CH_IO, 4, 4, m.bars, 4,
					   a), 0);
	KUNIT_ASSERT_TRUE(test, ex_queue_busy(e, EX_PRIO));

	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	KUNIT_EXPECT_EQ(test, ex_wait(a), -EIO);
	end = jiffies + msecs_to_jiffies(10000);
	while (atomic_read(&e->state) != ANE_FW_STATE_READY &&
	       time_before(jiffies, end))
		usleep_range(10000, 20000);
	KUNIT_ASSERT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_READY);
	KUNIT_EXPECT_EQ(test, e->h->recoveries, 1);
	KUNIT_EXPECT_FALSE(test, ex_rd(e, ANE_REG_Q_STATUS(EX_PRIO)) &
			   ANE_Q_BUSY);

	/* the rebooted firmware forgot the program; loaded again, it runs */
	regmap_write(e->regs[ANE_BANK_ANE], ANE_REG_ENG_LATENCY_NS, 0);
	memset(m.out->va, 0xee, 8);
	mm_load(test, &m, 4, 4);
	KUNIT_EXPECT_EQ(test, ex_call(test, ANE_FW_CH_IO, 4, 4, m.bars, 4, &st),
			0);
	KUNIT_EXPECT_EQ(test, st, ANE_FW_ST_OK);
	mm_expect(test, m.out->va, mm_out);
}

/*
 * Send @m's call as PROCEDURE_CALL_WITH_EVENTS on IO with @nwait wait
 * records (@ids, @vals) and one signal record.
 */
static struct ane_host_hreq *ex_event_call(struct kunit *test, struct mm *m,
					   const u64 *ids, const u64 *vals,
					   u32 nwait)
{
	struct ex_env *e = test->priv;
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CMD_PROCEDURE_CALL_WITH_EVENTS,
				      .priority = EX_PRIO, .program_id = 2,
				      .process_id = 6 };
	struct ane_host_hreq *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	struct ane_fw_proc_call *pc;
	struct ane_fw_event *ev;
	u8 *body;
	u32 i;

	body = kunit_kzalloc(test, ANE_FW_PROC_CALL_MAX_BODY, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, body);
	KUNIT_ASSERT_NOT_NULL(test, rq);
	pc = (void *)body;
	*pc = (struct ane_fw_proc_call){ .nbr_output_buffer_sets = 1,
					 .nbr_event_masks = 1,
					 .nbr_td_partitions = 1,
					 .task_queue = 3, .nbr_custom_bars = 4,
					 .nbr_wait_events = nwait,
					 .nbr_signal_events = 1 };
	memcpy(pc + 1, m->bars, 4 * sizeof(m->bars[0]));
	ev = (void *)((struct ane_fw_bar *)(pc + 1) + 4);
	for (i = 0; i < nwait; i++)
		ev[i] = (struct ane_fw_event){ .type = ANE_FW_EVENT_WAIT,
					       .target_mask = 1, .id = ids[i],
					       .value = vals[i] };
	ev[nwait] = (struct ane_fw_event){ .type = ANE_FW_EVENT_SIGNAL,
					   .target_mask = 1, .value = 1 };
	hdr.size = sizeof(*pc) + 4 * sizeof(m->bars[0]) +
		   (nwait + 1) * sizeof(*ev);
	KUNIT_ASSERT_EQ(test, ane_host_send(e->h, rq, ANE_FW_CH_IO, &hdr, body),
			0);
	return rq;
}

static int ex_signal(struct kunit *test, u64 id, u64 value, s32 status)
{
	struct ane_fw_event_signal es = { .id = id, .value = value,
					  .status = status };

	return ex_ctl(test, ANE_CTL_EVENT_SIGNAL, -1, -1, &es, sizeof(es));
}

static int ex_shared(struct kunit *test, u32 num)
{
	struct ane_fw_shared_event_init se = { .num_events = num };

	return ex_ctl(test, ANE_CTL_SHARED_EVENT_INIT, -1, -1, &se, sizeof(se));
}

/* Not completed after 50 ms: the firmware holds it. */
static bool ex_held(struct ane_host_hreq *rq)
{
	msleep(50);
	return !completion_done(&rq->done);
}

/*
 * Wait records (ABI 1.3): a call is held until each event reaches its
 * value, released by EVENT_SIGNAL; a failed event ends it CANCELED
 * without running; an event already reached holds nothing; a shared
 * event not active, or deactivated under the wait, cancels it; bad
 * signals are refused.
 */
static void ane_fw_exec_wait_records_hold_the_call(struct kunit *test)
{
	struct ex_env *e = test->priv;
	struct ane_fw *fw = ex_fw(e);
	struct ane_host_hreq *rq, *rq2;
	u64 ids[2] = { 5, 900 }, vals[2] = { 7, 2 };
	struct mm m;

	mm_setup(test, &m);
	mm_load(test, &m, 2, 6);

	rq = ex_event_call(test, &m, ids, vals, 2);
	KUNIT_EXPECT_TRUE(test, ex_held(rq));
	KUNIT_EXPECT_EQ(test, fw->waiting, 1u);
	KUNIT_EXPECT_EQ(test, ex_signal(test, 5, 6, ANE_FW_ST_OK), 0);
	KUNIT_EXPECT_EQ(test, ex_signal(test, 900, 2, ANE_FW_ST_OK), 0);
	KUNIT_EXPECT_TRUE(test, ex_held(rq));		/* 5 is at 6 of 7 */
	mm_expect_untouched(test, &m);
	KUNIT_EXPECT_EQ(test, ex_signal(test, 5, 7, ANE_FW_ST_OK), 0);
	KUNIT_EXPECT_EQ(test, ex_wait(rq), 0);
	KUNIT_EXPECT_EQ(test, rq->fw_status, ANE_FW_ST_OK);
	mm_expect(test, m.out->va, mm_out);
	KUNIT_EXPECT_EQ(test, fw->waiting, 0u);

	/* reached already (a lower signal changes nothing): runs at once */
	KUNIT_EXPECT_EQ(test, ex_signal(test, 5, 3, ANE_FW_ST_OK), 0);
	vals[0] = 6;
	rq = ex_event_call(test, &m, ids, vals, 1);
	KUNIT_EXPECT_EQ(test, ex_wait(rq), 0);

	/* a failed event: CANCELED, nothing runs */
	memset(m.out->va, 0xee, 8);
	ids[0] = 11;
	vals[0] = 1;
	rq = ex_event_call(test, &m, ids, vals, 1);
	KUNIT_EXPECT_TRUE(test, ex_held(rq));
	KUNIT_EXPECT_EQ(test, ex_signal(test, 11, 1, ANE_FW_ST_CANCELED), 0);
	KUNIT_EXPECT_EQ(test, ex_wait(rq), -ECANCELED);
	KUNIT_EXPECT_EQ(test, rq->fw_status, ANE_FW_ST_CANCELED);
	mm_expect_untouched(test, &m);

	/* the shared event: not active, active and held, deactivated */
	ids[0] = ANE_FW_EVENT_SHARED(0);
	rq = ex_event_call(test, &m, ids, vals, 1);
	KUNIT_EXPECT_EQ(test, ex_wait(rq), -ECANCELED);
	KUNIT_EXPECT_EQ(test, ex_shared(test, 1), 0);
	rq = ex_event_call(test, &m, ids, vals, 1);
	rq2 = ex_event_call(test, &m, ids, vals, 1);
	KUNIT_EXPECT_TRUE(test, ex_held(rq2));
	KUNIT_EXPECT_EQ(test, fw->waiting, 2u);
	KUNIT_EXPECT_EQ(test, ex_shared(test, 0), 0);
	KUNIT_EXPECT_EQ(test, ex_wait(rq), -ECANCELED);
	KUNIT_EXPECT_EQ(test, ex_wait(rq2), -ECANCELED);
	KUNIT_EXPECT_EQ(test, fw->waiting, 0u);
	mm_expect_untouched(test, &m);
	KUNIT_EXPECT_EQ(test, ex_shared(test, 2), -EINVAL);

	/* EVENT_SIGNAL's own checks */
	KUNIT_EXPECT_EQ(test, ex_signal(test, ANE_FW_NUM_EVENTS, 1, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, ex_signal(test, ANE_FW_EVENT_SHARED(0), 1, 0),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, ex_signal(test, 5, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ex_signal(test, 5, 9, ANE_FW_ST_BUSY), -EINVAL);
	mm_unload(test, 2, 6);
}

static struct kunit_case ane_fw_exec_cases[] = {
	KUNIT_CASE(ane_fw_exec_matmul_relu_through_the_dart),
	KUNIT_CASE(ane_fw_exec_wait_records_hold_the_call),
	KUNIT_CASE(ane_fw_exec_missing_or_short_bar_is_invalid),
	KUNIT_CASE(ane_fw_exec_dart_fault_fails_only_its_request),
	KUNIT_CASE(ane_fw_exec_unload_frees_the_program),
	KUNIT_CASE(ane_fw_exec_rebase_moves_at_each_load),
	KUNIT_CASE(ane_fw_exec_corrupt_image_is_refused),
	KUNIT_CASE_SLOW(ane_fw_exec_deadline_aborts_a_long_procedure),
	KUNIT_CASE(ane_fw_exec_staging_is_capped),
	KUNIT_CASE(ane_fw_exec_small_block_runs_in_softirq),
	KUNIT_CASE(ane_fw_exec_large_block_runs_on_the_worker),
	KUNIT_CASE_SLOW(ane_fw_exec_firmware_goes_on_while_the_engine_computes),
	KUNIT_CASE_SLOW(ane_fw_exec_crash_while_the_engine_computes),
	{}
};

static struct kunit_suite ane_fw_exec_suite = {
	.name = "ane_fw_exec",
	.init = ex_init,
	.exit = ex_exit,
	.test_cases = ane_fw_exec_cases,
};

kunit_test_suite(ane_fw_exec_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
