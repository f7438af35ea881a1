// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the engine's data-movement and reduction operations inside the
 * kernel -- the strided copy (ANE_OP_COPY) with signed strides, a
 * destination view and a fill, run in kernel_fpu_begin()/end() sections
 * on every instruction set the CPU has, and refused with its errno when
 * a view leaves its buffer or overlaps; the reductions (ANE_OP_REDUCE)
 * over every axis mask, LOG_SUM_EXP's passes over a workspace and the
 * special values; the log-softmax and layer normalization's epsilon;
 * the unary math of image minor version 4 (exact values, IEEE
 * specials, DIV and POW, the same bits on every path, the refusals of
 * parameters); and the gather (ANE_OP_GATHER) by int16 indices, negative
 * and out of range ones included, on every path, and its refusals.
 *
 * This file itself uses no floating point: values are fp16 bit patterns.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "firmware/hw/ane_engine.h"

static u16 *bits(struct kunit *test, unsigned int n, u16 first)
{
	u16 *b = kunit_kcalloc(test, n, sizeof(*b), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (i = 0; i < n; i++)
		b[i] = first + i;
	return b;
}

static void copy_tensor(struct ane_tensor *t, u16 *buf, u64 elems,
			u32 n, u32 c, u32 h, u32 w, s64 sn, s64 sc, s64 sh, s64 sw)
{
	*t = (struct ane_tensor){
		.base = buf, .size = elems * 2, .dim = { n, c, h, w },
		.stride = { (u64)sn, (u64)sc, (u64)sh, (u64)sw },
	};
}

/* Put the boot-time choice back after a test that forced another. */
static void restore_isa(void *unused)
{
	ane_engine_isa_init();
}

/*
 * x [1, 2, 3, 4] (0x100 + i), C and W reversed and H and W swapped, into
 * every other element of a destination whose other elements keep 0xffff:
 * the same bits on every path the CPU has.
 */
static void ane_engine_copy_walks_signed_strides(struct kunit *test)
{
	u16 *x = bits(test, 24, 0x100), *y = bits(test, 48, 0);
	struct ane_op_desc d = { .op = ANE_OP_COPY };
	u32 isa, n, c, h, w;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	/* view [1, 2, 4, 3]: element [0][c][h][w] = x[0][1 - c][3 - h][w]^T */
	copy_tensor(&d.src[0], x, 24, 1, 2, 4, 3, 24, -12, -1, 4);
	d.p.copy.src_offset = 12 + 3;
	copy_tensor(&d.dst, y, 48, 1, 2, 4, 3, 48, 24, 6, 2);
	d.p.copy.dst_offset = 1;
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa > ane_engine_widest_isa() || ane_math_set_isa(isa))
			continue;
		memset(y, 0xff, 48 * 2);
		KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
		for (c = 0; c < 2; c++)
			for (h = 0; h < 4; h++)
				for (w = 0; w < 3; w++)
					KUNIT_EXPECT_EQ_MSG(test, y[1 + c * 24 + h * 6 + w * 2],
							    0x100 + (1 - c) * 12 + w * 4 + 3 - h,
							    "isa %u [%u][%u][%u]", isa, c, h, w);
		for (n = 0; n < 48; n++)
			if (n % 2 == 0)
				KUNIT_EXPECT_EQ_MSG(test, y[n], 0xffff,
						    "isa %u: element %u outside the view", isa, n);
	}
}

/* A fill: one element broadcast by 0 strides; the bits (a NaN) unchanged. */
static void ane_engine_copy_fills_from_one_element(struct kunit *test)
{
	u16 nan = 0x7d55, *y = bits(test, 60, 0);
	struct ane_op_desc d = { .op = ANE_OP_COPY };
	unsigned int i;

	copy_tensor(&d.src[0], &nan, 1, 3, 4, 5, 1, 0, 0, 0, 0);
	copy_tensor(&d.dst, y, 60, 3, 4, 5, 1, 20, 5, 1, 1);
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
	for (i = 0; i < 60; i++)
		KUNIT_EXPECT_EQ_MSG(test, y[i], 0x7d55, "element %u", i);
	/* chunked finely: the same */
	memset(y, 0, 120);
	d.chunk_work = 1;
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
	KUNIT_EXPECT_GT(test, ane_op_chunks(&d), 1ull);
	for (i = 0; i < 60; i++)
		KUNIT_EXPECT_EQ_MSG(test, y[i], 0x7d55, "chunked element %u", i);
}

/* Refused before anything runs, each with its errno. */
static void ane_engine_copy_refuses_views_outside_their_buffers(struct kunit *test)
{
	u16 *x = bits(test, 64, 0), *y = bits(test, 64, 0);
	struct ane_op_desc d = { .op = ANE_OP_COPY }, g;

	copy_tensor(&d.src[0], x, 24, 1, 2, 3, 4, 24, 12, 4, 1);
	copy_tensor(&d.dst, y, 24, 1, 2, 3, 4, 24, 12, 4, 1);
	g = d;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), 0);
	/* backwards from element 0: before the buffer */
	g.src[0].stride[ANE_W] = (u64)-1;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -ENOSPC);
	g.p.copy.src_offset = 3;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), 0);
	/* past the end */
	g = d;
	g.p.copy.dst_offset = 1;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -ENOSPC);
	/* the index computation overflows */
	g = d;
	g.src[0].dim[ANE_N] = 4;
	g.dst.dim[ANE_N] = 4;
	g.src[0].stride[ANE_N] = (u64)S64_MAX;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EOVERFLOW);
	/* a destination stride below 0, two elements in one place */
	g = d;
	g.dst.stride[ANE_C] = (u64)-12;
	g.p.copy.dst_offset = 12;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	g = d;
	g.dst.stride[ANE_C] = 8;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	/* the source's and the destination's ranges overlap */
	g = d;
	g.dst.base = x + 20;
	g.dst.size = 88;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	g.dst.base = x + 24;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), 0);
	/* an activation, a second source: fields a copy does not use */
	g = d;
	g.act = ANE_ACT_RELU;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	g = d;
	g.src[1] = d.src[0];
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
}

/*
 * A gather of table [2, 1, 5, 3] (0x100 + i, with a NaN payload and -0)
 * by eight int16 indices -- in range, from the end, out of range by one
 * either way, the extremes -- on every path, whole and chunked: rows
 * moved bit for bit, a row of 0x7e00 for each index out of range, and
 * ane_op_gather_oob() counting them.
 */
static void ane_engine_gather_rows_on_every_isa(struct kunit *test)
{
	static const s16 idx[8] = { 4, -1, -5, 5, -6, 0, S16_MAX, S16_MIN };
	u16 *x = bits(test, 30, 0x100), *y = bits(test, 48, 0);
	struct ane_op_desc d = { .op = ANE_OP_GATHER };
	u32 isa, e;
	u64 work;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	x[4] = 0x7d01;		/* a signalling NaN's payload */
	x[20] = 0x8000;		/* -0 */
	ane_tensor_dense(&d.src[0], x, 2, 1, 5, 3);
	ane_tensor_dense(&d.src[1], (void *)idx, 1, 1, 1, 8);
	ane_tensor_dense(&d.dst, y, 2, 1, 8, 3);
	KUNIT_EXPECT_EQ(test, ane_op_gather_oob(&d), 4ull);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa > ane_engine_widest_isa() || ane_math_set_isa(isa))
			continue;
		for (work = 0; work < 2; work++) {
			memset(y, 0, 48 * 2);
			d.chunk_work = work;
			KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
			for (e = 0; e < 48; e++) {
				u32 n = e / 24, k = e / 3 % 8, w = e % 3;
				int i = idx[k] < 0 ? idx[k] + 5 : idx[k];
				u16 want = i < 0 || i >= 5 ? 0x7e00 : x[n * 15 + i * 3 + w];

				KUNIT_EXPECT_EQ_MSG(test, y[e], want,
						    "isa %u chunked %llu [%u][%u][%u]",
						    isa, work, n, k, w);
			}
		}
	}
	KUNIT_EXPECT_GT(test, ane_op_chunks(&d), 1ull);
}

/* A bad gather is refused before anything runs, with its errno. */
static void ane_engine_gather_refusals(struct kunit *test)
{
	u16 *x = bits(test, 64, 0), *ix = bits(test, 8, 0), *y = bits(test, 64, 0);
	struct ane_op_desc d = { .op = ANE_OP_GATHER }, g;

	ane_tensor_dense(&d.src[0], x, 1, 2, 4, 8);
	ane_tensor_dense(&d.src[1], ix, 1, 1, 1, 3);
	ane_tensor_dense(&d.dst, y, 1, 2, 3, 8);
	g = d;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), 0);
	ane_tensor_dense(&g.src[1], ix, 1, 1, 3, 1);	/* not [1, 1, 1, K] */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	g = d;
	g.src[1].size = 4;				/* K int16 need 6 bytes */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -ENOSPC);
	g = d;
	ane_tensor_dense(&g.dst, y, 1, 2, 4, 8);	/* its H is K */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	g = d;
	g.src[0].dim[ANE_H] = ANE_MATH_MAX_GATHER_H + 1;	/* int16 cannot name it */
	g.src[0].stride[ANE_H] = 0;
	g.src[0].stride[ANE_C] = 0;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	g.src[0].dim[ANE_H] = ANE_MATH_MAX_GATHER_H;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), 0);
	g = d;
	g.act = ANE_ACT_RELU;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	g = d;
	g.bias = d.src[1];
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
	g = d;
	g.dst.base = x + 8;				/* onto the table */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&g), -EINVAL);
}

/* The fp16 bits of a small integer, |v| < 2048 (exact). */
static u16 fp16_int(int v)
{
	u32 a = v < 0 ? -v : v, e = 0;

	if (!a)
		return 0;
	while (a >> (e + 1))
		e++;
	return (v < 0 ? 0x8000 : 0) | (e + 15) << 10 | ((a << (10 - e)) & 0x3ff);
}

static void reduce_desc(struct ane_op_desc *d, u16 *x, u16 *y, u32 kind, u32 axes)
{
	static const u32 xd[4] = { 2, 3, 4, 5 };
	u32 yd[4], i;

	*d = (struct ane_op_desc){ .op = ANE_OP_REDUCE };
	for (i = 0; i < 4; i++)
		yd[i] = axes & ANE_REDUCE_AXIS(i) ? 1 : xd[i];
	ane_tensor_dense(&d->src[0], x, 2, 3, 4, 5);
	ane_tensor_dense(&d->dst, y, yd[0], yd[1], yd[2], yd[3]);
	d->p.reduce.kind = kind;
	d->p.reduce.axes = axes;
}

/*
 * What @kind over @axes gives at output @o (dst extents @yd) of the
 * integers @v of [2, 3, 4, 5], computed in integers.
 */
static int reduce_want(const int *v, u32 kind, u32 axes, const u32 *yd, u32 o)
{
	int want = kind == ANE_REDUCE_MAX ? -99 : kind == ANE_REDUCE_MIN ? 99 : 0;
	u32 j, q, t;

	for (j = 0; j < 120; j++) {
		u32 c[4] = { j / 60, j / 20 % 3, j / 5 % 4, j % 5 };
		bool in = true;

		/* element j is output o's when they agree on every kept axis */
		for (q = 4, t = o; q-- > 0; t /= yd[q])
			if (!(axes & ANE_REDUCE_AXIS(q)))
				in &= c[q] == t % yd[q];
		if (!in)
			continue;
		if (kind == ANE_REDUCE_MAX)
			want = max(want, v[j]);
		else if (kind == ANE_REDUCE_MIN)
			want = min(want, v[j]);
		else
			want += kind == ANE_REDUCE_L1 ? abs(v[j]) : v[j];
	}
	return want;
}

/*
 * SUM, MAX, MIN and L1 of small integers over every axis mask of
 * [2, 3, 4, 5]: exact, so the fp16 of the integer result, on every path
 * the CPU has; chunked finely, the same.
 */
static void ane_engine_reduce_over_every_mask_on_every_isa(struct kunit *test)
{
	static const u32 kinds[] = { ANE_REDUCE_SUM, ANE_REDUCE_MAX, ANE_REDUCE_MIN,
				     ANE_REDUCE_L1 };
	u16 *x = bits(test, 120, 0), *y = bits(test, 120, 0);
	void *work = kunit_kzalloc(test, 64, GFP_KERNEL);
	u32 isa, axes, k, o, outs, i, cw;
	struct ane_op_desc d;
	int v[120];

	KUNIT_ASSERT_NOT_NULL(test, work);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	for (i = 0; i < 120; i++) {
		v[i] = (int)((i * 37) % 11) - 5;
		x[i] = fp16_int(v[i]);
	}
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa > ane_engine_widest_isa() || ane_math_set_isa(isa))
			continue;
		for (k = 0; k < ARRAY_SIZE(kinds) * 15 * 2; k++) {
			axes = k / 2 % 15 + 1;
			cw = k % 2;
			reduce_desc(&d, x, y, kinds[k / 30], axes);
			/* chunked: segments of 2, the accumulator in the workspace */
			d.chunk_work = cw ? 16 : 0;
			d.work = work;
			d.work_size = 64;
			KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
			outs = d.dst.dim[0] * d.dst.dim[1] * d.dst.dim[2] * d.dst.dim[3];
			for (o = 0; o < outs; o++)
				KUNIT_EXPECT_EQ_MSG(test, y[o],
						    fp16_int(reduce_want(v, kinds[k / 30], axes,
									 d.dst.dim, o)),
						    "isa %u kind %u axes %#x chunked %u [%u]",
						    isa, kinds[k / 30], axes, cw, o);
		}
	}
}

/*
 * LOG_SUM_EXP's two passes, its special values, and the canonical NaN of
 * MAX, with a workspace; chunked finely, the same bits.
 */
static void ane_engine_reduce_log_sum_exp_and_nan(struct kunit *test)
{
	u16 *x = bits(test, 120, 0), *y = bits(test, 120, 0), *y2 = bits(test, 120, 0);
	void *work = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct ane_op_desc d;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, work);
	for (i = 0; i < 120; i++)
		x[i] = fp16_int((int)(i % 9) - 4);
	reduce_desc(&d, x, y, ANE_REDUCE_LOG_SUM_EXP, 0x3);
	/* an element takes two units: a workspace, or the descriptor is refused */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	d.work = work;
	d.work_size = 64;
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
	d.dst.base = y2;
	d.chunk_work = 1;
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
	KUNIT_EXPECT_GT(test, ane_op_chunks(&d), 40ull);
	KUNIT_EXPECT_EQ(test, memcmp(y, y2, 20 * 2), 0);
	/* all -inf: -inf; a +inf: +inf; a NaN: NaN */
	for (i = 0; i < 6; i++)
		x[i * 20] = 0xfc00;
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
	KUNIT_EXPECT_EQ(test, y2[0], 0xfc00);
	x[20 + 1] = 0x7c00;
	x[20 + 2] = 0x7e00;
	x[0] = 0x7c00;
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
	KUNIT_EXPECT_EQ(test, y2[0], 0x7c00);
	KUNIT_EXPECT_EQ(test, y2[2], 0x7e00);
	reduce_desc(&d, x, y, ANE_REDUCE_MAX, 0x3);
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
	KUNIT_EXPECT_EQ(test, y[0], 0x7c00);
	KUNIT_EXPECT_EQ(test, y[1], 0x7c00);
	KUNIT_EXPECT_EQ(test, y[2], 0x7e00);
}

/* Each malformed reduction or epsilon refused before anything runs. */
static void ane_engine_reduce_and_norm_refusals(struct kunit *test)
{
	u16 *x = bits(test, 120, 0), *y = bits(test, 120, 0);
	void *work = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct ane_op_desc d;

	KUNIT_ASSERT_NOT_NULL(test, work);
	reduce_desc(&d, x, y, ANE_REDUCE_MEAN, 0);
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	reduce_desc(&d, x, y, ANE_REDUCE_MEAN, 0x11);
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	reduce_desc(&d, x, y, ANE_REDUCE_COUNT, 0x1);
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	reduce_desc(&d, x, y, ANE_REDUCE_MEAN, 0x1);
	d.dst.dim[ANE_N] = 2;	/* N reduced: 1 */
	d.dst.size = 240;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	reduce_desc(&d, x, y, ANE_REDUCE_MEAN, 0x1);
	d.act = ANE_ACT_FIRST_PARAM;	/* parametric: ACT's only */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	d.act = ANE_ACT_COS;		/* any other fuses */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), 0);
	/* layer normalization: an epsilon finite and > 0; none for softmax */
	d = (struct ane_op_desc){ .op = ANE_OP_NORM, .work = work, .work_size = 64 };
	ane_tensor_dense(&d.src[0], x, 1, 2, 3, 5);
	ane_tensor_dense(&d.dst, y, 1, 2, 3, 5);
	d.p.norm.kind = ANE_NORM_LAYER;
	d.p.norm.eps = 0x7fc00000;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	d.p.norm.eps = 0xbf800000;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	d.p.norm.eps = 0x3f800000;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), 0);
	d.p.norm.kind = ANE_NORM_SOFTMAX;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	d.p.norm.kind = ANE_NORM_LOG_SOFTMAX;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	d.p.norm.eps = 0;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), 0);
}

/*
 * Log-softmax of equal values is -log W (W 4: -1.386, fp16 0xbd8c) on
 * every path; layer normalization of rows {0, 2} with epsilon 3 is
 * {-0.5, 0.5}.
 */
static void ane_engine_norm_log_softmax_and_eps(struct kunit *test)
{
	u16 *x = bits(test, 8, 0), *y = bits(test, 8, 0);
	void *work = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct ane_op_desc d = { .op = ANE_OP_NORM };
	unsigned int i;
	u32 isa;

	KUNIT_ASSERT_NOT_NULL(test, work);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	d.work = work;
	d.work_size = 64;
	for (i = 0; i < 8; i++)
		x[i] = 0x4500;	/* 5 */
	ane_tensor_dense(&d.src[0], x, 1, 1, 2, 4);
	ane_tensor_dense(&d.dst, y, 1, 1, 2, 4);
	d.p.norm.kind = ANE_NORM_LOG_SOFTMAX;
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa > ane_engine_widest_isa() || ane_math_set_isa(isa))
			continue;
		memset(y, 0, 16);
		KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
		for (i = 0; i < 8; i++)
			KUNIT_EXPECT_EQ_MSG(test, y[i], 0xbd8c, "isa %u [%u]", isa, i);
	}
	ane_tensor_dense(&d.src[0], x, 1, 1, 4, 2);
	ane_tensor_dense(&d.dst, y, 1, 1, 4, 2);
	for (i = 0; i < 8; i++)
		x[i] = i % 2 ? 0x4000 : 0;
	d.p.norm.kind = ANE_NORM_LAYER;
	d.p.norm.eps = 0x40400000;	/* 3.0f */
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, y[i], i % 2 ? 0x3800 : 0xb800, "[%u]", i);
}

/* ------------------------------------------------------------ unary math */

#define H_NAN	0x7e00u		/* any NaN: checked by class */

static bool h_isnan(u16 h)
{
	return (h & 0x7fffu) > 0x7c00u;
}

/* One activation's exact cases: alpha, beta (fp32 bits), input, output. */
static const struct {
	u32 act, alpha, beta;
	u16 x, y;
} ane_unary_exact[] = {
	{ ANE_ACT_SQRT, 0, 0, 0x4400, 0x4000 },		/* sqrt 4 = 2 */
	{ ANE_ACT_SQRT, 0, 0, 0x4080, 0x3e00 },		/* sqrt 2.25 = 1.5 */
	{ ANE_ACT_SQRT, 0, 0, 0xbc00, H_NAN },		/* sqrt -1 */
	{ ANE_ACT_SQRT, 0, 0, 0x8000, 0x8000 },		/* sqrt -0 = -0 */
	{ ANE_ACT_SQRT, 0, 0, 0x7c00, 0x7c00 },
	{ ANE_ACT_LOG, 0, 0, 0x3c00, 0x0000 },		/* log 1 = 0 */
	{ ANE_ACT_LOG, 0, 0, 0x0000, 0xfc00 },		/* log 0 = -inf */
	{ ANE_ACT_LOG, 0, 0, 0x8000, 0xfc00 },
	{ ANE_ACT_LOG, 0, 0, 0xbc00, H_NAN },
	{ ANE_ACT_EXP, 0, 0, 0x0000, 0x3c00 },
	{ ANE_ACT_EXP, 0, 0, 0xfc00, 0x0000 },
	{ ANE_ACT_EXP, 0, 0, 0x4a00, 0x7c00 },		/* e^12 > 65504 */
	{ ANE_ACT_RECIP, 0, 0, 0x4400, 0x3400 },	/* 1/4 */
	{ ANE_ACT_RECIP, 0, 0, 0x0000, 0x7c00 },
	{ ANE_ACT_RECIP, 0, 0, 0x8000, 0xfc00 },
	{ ANE_ACT_ABS, 0, 0, 0xc000, 0x4000 },
	{ ANE_ACT_ABS, 0, 0, 0x8000, 0x0000 },
	{ ANE_ACT_NEG, 0, 0, 0x0000, 0x8000 },
	{ ANE_ACT_NEG, 0, 0, 0x4200, 0xc200 },
	{ ANE_ACT_SIN, 0, 0, 0x8000, 0x8000 },
	{ ANE_ACT_SIN, 0, 0, 0x7c00, H_NAN },
	{ ANE_ACT_COS, 0, 0, 0x0000, 0x3c00 },
	{ ANE_ACT_ERF, 0, 0, 0x4600, 0x3c00 },		/* erf 6 = 1 */
	{ ANE_ACT_ERF, 0, 0, 0xfc00, 0xbc00 },
	{ ANE_ACT_SOFTSIGN, 0, 0, 0x3c00, 0x3800 },	/* 1/2 */
	{ ANE_ACT_SOFTSIGN, 0, 0, 0x7c00, 0x3c00 },
	{ ANE_ACT_HARDSWISH, 0, 0, 0x4200, 0x4200 },	/* 3 */
	{ ANE_ACT_HARDSWISH, 0, 0, 0xc200, 0x8000 },	/* -3: -0 */
	{ ANE_ACT_SILU, 0, 0, 0x0000, 0x0000 },
	{ ANE_ACT_SILU, 0, 0, 0xfc00, 0x8000 },
	{ ANE_ACT_SOFTPLUS, 0, 0, 0xfc00, 0x0000 },
	{ ANE_ACT_SOFTPLUS, 0, 0, 0x7c00, 0x7c00 },
	{ ANE_ACT_CLIP, 0xbf800000, 0x40000000, 0x4200, 0x4000 },	/* [-1, 2] */
	{ ANE_ACT_CLIP, 0xbf800000, 0x40000000, 0xc500, 0xbc00 },
	{ ANE_ACT_CLIP, 0xbf800000, 0x40000000, 0x7e01, H_NAN },
	{ ANE_ACT_LEAKY, 0x3f000000, 0, 0xc000, 0xbc00 },	/* 0.5 * -2 */
	{ ANE_ACT_LEAKY, 0x3f000000, 0, 0x4200, 0x4200 },
	{ ANE_ACT_THRESHOLDED_RELU, 0x3f800000, 0, 0x3c00, 0x0000 },
	{ ANE_ACT_THRESHOLDED_RELU, 0x3f800000, 0, 0x4000, 0x4000 },
	{ ANE_ACT_HARDSIGMOID, 0x3f000000, 0x3f000000, 0x0000, 0x3800 },
	{ ANE_ACT_HARDSIGMOID, 0x3f000000, 0x3f000000, 0x4000, 0x3c00 },
	{ ANE_ACT_ELU, 0x3f800000, 0, 0xfc00, 0xbc00 },		/* -1 */
	{ ANE_ACT_SELU, 0x40000000, 0x40400000, 0xfc00, 0xc600 },	/* -6 */
	{ ANE_ACT_SELU, 0x40000000, 0x40400000, 0x3c00, 0x4200 },	/* 3 */
	{ ANE_ACT_CELU, 0x40000000, 0, 0xfc00, 0xc000 },	/* -2 */
	{ ANE_ACT_CELU, 0x40000000, 0, 0x4500, 0x4500 },
};

/* An ACT of @x [1, 1, @h, @w] into @y with @alpha and @beta. */
static void unary_desc(struct ane_op_desc *d, u32 act, u32 alpha, u32 beta,
		       u16 *x, u16 *y, u32 h, u32 w)
{
	*d = (struct ane_op_desc){ .op = ANE_OP_ACT, .act = act };
	ane_tensor_dense(&d->src[0], x, 1, 1, h, w);
	ane_tensor_dense(&d->dst, y, 1, 1, h, w);
	d->p.act.alpha = alpha;
	d->p.act.beta = beta;
}

static void ane_engine_unary_exact_values_on_every_path(struct kunit *test)
{
	u16 *x = bits(test, 64, 0), *y = bits(test, 64, 0);
	struct ane_op_desc d;
	unsigned int k, i;
	u32 isa;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa > ane_engine_widest_isa() || ane_math_set_isa(isa))
			continue;
		for (k = 0; k < ARRAY_SIZE(ane_unary_exact); k++) {
			for (i = 0; i < 64; i++)
				x[i] = ane_unary_exact[k].x;
			unary_desc(&d, ane_unary_exact[k].act, ane_unary_exact[k].alpha,
				   ane_unary_exact[k].beta, x, y, 1, 64);
			KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
			for (i = 0; i < 64; i++) {
				u16 want = ane_unary_exact[k].y;

				if (want == H_NAN)
					KUNIT_EXPECT_TRUE_MSG(test, h_isnan(y[i]),
							      "isa %u case %u: %#x", isa, k, y[i]);
				else
					KUNIT_EXPECT_EQ_MSG(test, y[i], want, "isa %u case %u [%u]",
							    isa, k, i);
			}
		}
	}
}

/* DIV and POW: exact quotients and powers, IEEE and C99 special cases. */
static void ane_engine_div_pow_specials(struct kunit *test)
{
	static const struct { u32 op; u16 a, b, y; } c[] = {
		{ ANE_ELT_DIV, 0x4600, 0x4200, 0x4000 },	/* 6 / 3 = 2 */
		{ ANE_ELT_DIV, 0x3c00, 0x0000, 0x7c00 },	/* 1 / 0 */
		{ ANE_ELT_DIV, 0x0000, 0x0000, H_NAN },
		{ ANE_ELT_DIV, 0xbc00, 0x7c00, 0x8000 },	/* -1 / inf = -0 */
		{ ANE_ELT_POW, 0x4000, 0x4900, 0x6400 },	/* 2^10 = 1024 */
		{ ANE_ELT_POW, 0xc000, 0x4200, 0xc800 },	/* (-2)^3 = -8 */
		{ ANE_ELT_POW, 0x7e00, 0x0000, 0x3c00 },	/* NaN^0 = 1 */
		{ ANE_ELT_POW, 0x3c00, 0x7e00, 0x3c00 },	/* 1^NaN = 1 */
		{ ANE_ELT_POW, 0xc800, 0x3800, H_NAN },		/* (-8)^0.5 */
		{ ANE_ELT_POW, 0x0000, 0xbc00, 0x7c00 },	/* 0^-1 = inf */
		{ ANE_ELT_POW, 0x8000, 0xbc00, 0xfc00 },	/* -0^-1 = -inf */
		{ ANE_ELT_POW, 0x4400, 0x3800, 0x4000 },	/* 4^0.5 = 2 */
	};
	u16 *a = bits(test, 64, 0), *b = bits(test, 64, 0), *y = bits(test, 64, 0);
	struct ane_op_desc d = { .op = ANE_OP_ELTWISE };
	unsigned int k, i;
	u32 isa;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	ane_tensor_dense(&d.src[0], a, 1, 1, 1, 64);
	ane_tensor_dense(&d.src[1], b, 1, 1, 1, 64);
	ane_tensor_dense(&d.dst, y, 1, 1, 1, 64);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa > ane_engine_widest_isa() || ane_math_set_isa(isa))
			continue;
		for (k = 0; k < ARRAY_SIZE(c); k++) {
			for (i = 0; i < 64; i++) {
				a[i] = c[k].a;
				b[i] = c[k].b;
			}
			d.p.eltwise.op = c[k].op;
			KUNIT_ASSERT_EQ(test, ane_engine_run_op(&d), 0);
			for (i = 0; i < 64; i++) {
				if (c[k].y == H_NAN)
					KUNIT_EXPECT_TRUE_MSG(test, h_isnan(y[i]), "isa %u case %u",
							      isa, k);
				else
					KUNIT_EXPECT_EQ_MSG(test, y[i], c[k].y, "isa %u case %u",
							    isa, k);
			}
		}
	}
}

/*
 * Every fourth fp16 pattern through every new activation, and POW over
 * a grid, on each path the CPU has: the same bits as the SSE2 path.
 */
static void ane_engine_unary_same_bits_on_every_path(struct kunit *test)
{
	const unsigned int n = 16384;
	u16 *x = bits(test, n, 0), *y = bits(test, n, 0), *ref;
	struct ane_op_desc d;
	u32 act, isa, i;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	ref = kunit_kcalloc(test, (size_t)n * (ANE_ACT_COUNT - ANE_ACT_SILU + 1), 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	for (i = 0; i < n; i++)
		x[i] = (u16)(i * 4 + (i & 3));
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa > ane_engine_widest_isa() || ane_math_set_isa(isa))
			continue;
		for (act = ANE_ACT_SILU; act <= ANE_ACT_COUNT; act++) {
			u16 *r = ref + (size_t)(act - ANE_ACT_SILU) * n;

			if (act < ANE_ACT_COUNT) {
				unary_desc(&d, act, 0, 0, x, y, 128, n / 128);
				if (ane_act_is_parametric(act)) {
					d.p.act.alpha = 0x3fc00000;	/* 1.5 */
					d.p.act.beta = 0x40200000;	/* 2.5 */
				}
			} else {		/* POW: x[128] ^ x[0..127] */
				d = (struct ane_op_desc){ .op = ANE_OP_ELTWISE };
				d.p.eltwise.op = ANE_ELT_POW;
				ane_tensor_dense(&d.src[0], x, 1, 1, 128, 1);
				ane_tensor_dense(&d.src[1], x + 200, 1, 1, 1, 128);
				ane_tensor_dense(&d.dst, y, 1, 1, 128, 128);
			}
			KUNIT_ASSERT_EQ_MSG(test, ane_engine_run_op(&d), 0, "act %u", act);
			if (!isa)
				memcpy(r, y, (size_t)n * 2);
			else
				KUNIT_EXPECT_EQ_MSG(test, memcmp(r, y, (size_t)n * 2), 0,
						    "isa %u act %u: not SSE2's bits", isa, act);
		}
	}
}

/* Parameters where they do not belong, or not finite: -EINVAL. */
static void ane_engine_unary_refuses_bad_parameters(struct kunit *test)
{
	u16 *x = bits(test, 64, 0), *y = bits(test, 64, 0);
	struct ane_op_desc d;

	unary_desc(&d, ANE_ACT_ELU, 0x3f800000, 0, x, y, 1, 64);
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), 0);
	d.p.act.alpha = 0x7fc00000;			/* NaN */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	unary_desc(&d, ANE_ACT_CLIP, 0, 0xff800000, x, y, 1, 64);	/* -inf */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	unary_desc(&d, ANE_ACT_CELU, 0x80000000, 0, x, y, 1, 64);	/* -0 */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	unary_desc(&d, ANE_ACT_SILU, 0, 0x3f800000, x, y, 1, 64);	/* takes none */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	unary_desc(&d, ANE_ACT_COUNT, 0, 0, x, y, 1, 64);
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	/* a parametric activation fused into an elementwise operation */
	d = (struct ane_op_desc){ .op = ANE_OP_ELTWISE, .act = ANE_ACT_LEAKY };
	ane_tensor_dense(&d.src[0], x, 1, 1, 1, 64);
	ane_tensor_dense(&d.src[1], x, 1, 1, 1, 64);
	ane_tensor_dense(&d.dst, y, 1, 1, 1, 64);
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	d.act = ANE_ACT_SIN;
	d.p.eltwise.op = ANE_ELT_DIV;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), 0);
	d.p.eltwise.op = ANE_ELT_COUNT;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
}

static int ane_engine_ops_suite_init(struct kunit_suite *suite)
{
	ane_engine_isa_init();
	return 0;
}

static struct kunit_case ane_engine_ops_cases[] = {
	KUNIT_CASE(ane_engine_copy_walks_signed_strides),
	KUNIT_CASE(ane_engine_copy_fills_from_one_element),
	KUNIT_CASE(ane_engine_copy_refuses_views_outside_their_buffers),
	KUNIT_CASE(ane_engine_reduce_over_every_mask_on_every_isa),
	KUNIT_CASE(ane_engine_reduce_log_sum_exp_and_nan),
	KUNIT_CASE(ane_engine_reduce_and_norm_refusals),
	KUNIT_CASE(ane_engine_norm_log_softmax_and_eps),
	KUNIT_CASE(ane_engine_unary_exact_values_on_every_path),
	KUNIT_CASE(ane_engine_div_pow_specials),
	KUNIT_CASE(ane_engine_unary_same_bits_on_every_path),
	KUNIT_CASE(ane_engine_unary_refuses_bad_parameters),
	KUNIT_CASE(ane_engine_gather_rows_on_every_isa),
	KUNIT_CASE(ane_engine_gather_refusals),
	{}
};

static struct kunit_suite ane_engine_ops_suite = {
	.name = "ane_engine_ops",
	.suite_init = ane_engine_ops_suite_init,
	.test_cases = ane_engine_ops_cases,
};

kunit_test_suite(ane_engine_ops_suite);
