// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the engine's data-movement and reduction operations inside the
 * kernel -- the strided copy (ANE_OP_COPY) with signed strides, a
 * destination view and a fill, run in kernel_fpu_begin()/end() sections
 * on every instruction set the CPU has, and refused with its errno when
 * a view leaves its buffer or overlaps.
 *
 * This file itself uses no floating point: values are fp16 bit patterns.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/slab.h>

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

static int ane_engine_ops_suite_init(struct kunit_suite *suite)
{
	ane_engine_isa_init();
	return 0;
}

static struct kunit_case ane_engine_ops_cases[] = {
	KUNIT_CASE(ane_engine_copy_walks_signed_strides),
	KUNIT_CASE(ane_engine_copy_fills_from_one_element),
	KUNIT_CASE(ane_engine_copy_refuses_views_outside_their_buffers),
	{}
};

static struct kunit_suite ane_engine_ops_suite = {
	.name = "ane_engine_ops",
	.suite_init = ane_engine_ops_suite_init,
	.test_cases = ane_engine_ops_cases,
};

kunit_test_suite(ane_engine_ops_suite);
