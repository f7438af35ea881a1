// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the compute engine inside the kernel -- operations run in short
 * kernel_fpu_begin()/end() sections, one chunk each, and give exact
 * results on integer-valued fp16 data; bad descriptors are refused before
 * any floating point runs.
 *
 * This file itself uses no floating point: values are fp16 bit patterns.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include "firmware/ane_fw_engine.h"

/* fp16 of a small integer, exactly (|v| < 2048). */
static u16 h(int v)
{
	u32 a = v < 0 ? -v : v, e = 0, f32;

	if (!a)
		return v < 0 ? 0x8000 : 0;
	while ((a >> e) > 1)
		e++;
	f32 = ((u32)(v < 0) << 31) | ((e + 127) << 23) | ((a << (23 - e)) & 0x7fffff);
	return ane_fp16_from_fp32_bits(f32);
}

static u16 *buf(struct kunit *test, const int *vals, unsigned int n)
{
	u16 *b = kunit_kcalloc(test, n, sizeof(*b), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (i = 0; vals && i < n; i++)
		b[i] = h(vals[i]);
	return b;
}

static void expect_values(struct kunit *test, const u16 *got, const int *want,
			  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], h(want[i]), "element %u", i);
}

static void ane_engine_matmul_runs_in_fpu_sections(struct kunit *test)
{
	static const int a[] = { 1, 2, 3, 4, 5, 6 };		/* 2 x 3 */
	static const int b[] = { 1, 0, 0, 1, 1, 1 };		/* 3 x 2 */
	static const int c[] = { 4, 5, 10, 11 };		/* 2 x 2 */
	struct ane_op_desc d = { .op = ANE_OP_MATMUL };
	u64 wsize;
	u16 *dst;

	ane_tensor_dense(&d.src[0], buf(test, a, 6), 1, 1, 2, 3);
	ane_tensor_dense(&d.src[1], buf(test, b, 6), 1, 1, 3, 2);
	dst = buf(test, NULL, 4);
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 2);
	KUNIT_ASSERT_EQ(test, ane_op_workspace_size(&d, &wsize), 0);
	if (wsize) {
		d.work = kunit_kzalloc(test, wsize, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, d.work);
		d.work_size = wsize;
	}
	KUNIT_ASSERT_EQ(test, ane_fw_engine_run(&d), 0);
	expect_values(test, dst, c, 4);
}

static void ane_engine_conv_with_bias_and_relu(struct kunit *test)
{
	/* 1x1x3x3 input, one 2x2 kernel of ones, bias -10, relu. */
	static const int in[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const int wt[] = { 1, 1, 1, 1 };
	static const int bias[] = { -10 };
	static const int out[] = { 2, 6, 14, 18 };		/* sums 12 16 24 28 */
	struct ane_op_desc d = { .op = ANE_OP_CONV, .act = ANE_ACT_RELU };
	u64 wsize;
	u16 *dst;

	d.p.conv.stride[0] = 1;
	d.p.conv.stride[1] = 1;
	d.p.conv.dilation[0] = 1;
	d.p.conv.dilation[1] = 1;
	d.p.conv.groups = 1;
	ane_tensor_dense(&d.src[0], buf(test, in, 9), 1, 1, 3, 3);
	ane_tensor_dense(&d.src[1], buf(test, wt, 4), 1, 1, 2, 2);
	ane_tensor_dense(&d.bias, buf(test, bias, 1), 1, 1, 1, 1);
	dst = buf(test, NULL, 4);
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 2);
	KUNIT_ASSERT_EQ(test, ane_op_workspace_size(&d, &wsize), 0);
	if (wsize) {
		d.work = kunit_kzalloc(test, wsize, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, d.work);
		d.work_size = wsize;
	}
	KUNIT_ASSERT_EQ(test, ane_fw_engine_run(&d), 0);
	expect_values(test, dst, out, 4);
}

static void ane_engine_splits_work_into_chunks(struct kunit *test)
{
	/* 64 x 64 by 64 x 64 with tiny chunks: many FPU sections, same result. */
	struct ane_op_desc d = { .op = ANE_OP_MATMUL, .chunk_work = 4096 };
	unsigned int i, n = 64;
	int *ones, *want;
	u64 wsize;
	u16 *dst;

	ones = kunit_kcalloc(test, n * n, sizeof(*ones), GFP_KERNEL);
	want = kunit_kcalloc(test, n * n, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ones);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < n * n; i++) {
		ones[i] = 1;
		want[i] = n;
	}
	ane_tensor_dense(&d.src[0], buf(test, ones, n * n), 1, 1, n, n);
	ane_tensor_dense(&d.src[1], buf(test, ones, n * n), 1, 1, n, n);
	dst = buf(test, NULL, n * n);
	ane_tensor_dense(&d.dst, dst, 1, 1, n, n);
	KUNIT_ASSERT_EQ(test, ane_op_workspace_size(&d, &wsize), 0);
	if (wsize) {
		d.work = kunit_kzalloc(test, wsize, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, d.work);
		d.work_size = wsize;
	}
	KUNIT_EXPECT_GT(test, ane_op_chunks(&d), 1ull);
	KUNIT_ASSERT_EQ(test, ane_fw_engine_run(&d), 0);
	expect_values(test, dst, want, n * n);
}

static void ane_engine_refuses_bad_descriptors_before_running(struct kunit *test)
{
	struct ane_op_desc d = { .op = ANE_OP_MATMUL };
	u16 *a = buf(test, NULL, 6), *dst = buf(test, NULL, 4);

	ane_tensor_dense(&d.src[0], a, 1, 1, 2, 3);
	ane_tensor_dense(&d.src[1], a, 1, 1, 2, 3);	/* K mismatch */
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 2);
	KUNIT_EXPECT_EQ(test, ane_fw_engine_run(&d), -EINVAL);

	ane_tensor_dense(&d.src[1], a, 1, 1, 3, 2);
	d.dst.size = 2;					/* buffer too small */
	KUNIT_EXPECT_EQ(test, ane_fw_engine_run(&d), -ENOSPC);

	d.op = ANE_OP_COUNT;
	KUNIT_EXPECT_EQ(test, ane_fw_engine_run(&d), -EINVAL);
	KUNIT_EXPECT_EQ(test, ane_fw_engine_errno(-ANE_MATH_EOVERFLOW), -EOVERFLOW);
}

static struct kunit_case ane_engine_cases[] = {
	KUNIT_CASE(ane_engine_matmul_runs_in_fpu_sections),
	KUNIT_CASE(ane_engine_conv_with_bias_and_relu),
	KUNIT_CASE(ane_engine_splits_work_into_chunks),
	KUNIT_CASE(ane_engine_refuses_bad_descriptors_before_running),
	{}
};

static struct kunit_suite ane_engine_suite = {
	.name = "ane_engine",
	.test_cases = ane_engine_cases,
};

kunit_test_suite(ane_engine_suite);
