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

/* Run @d, with a workspace if it needs one. */
static void run(struct kunit *test, struct ane_op_desc *d)
{
	u64 wsize;

	KUNIT_ASSERT_EQ(test, ane_op_workspace_size(d, &wsize), 0);
	if (wsize) {
		d->work = kunit_kzalloc(test, wsize, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, d->work);
		d->work_size = wsize;
	}
	KUNIT_ASSERT_EQ(test, ane_fw_engine_run(d), 0);
}

static void ane_engine_matmul_runs_in_fpu_sections(struct kunit *test)
{
	static const int a[] = { 1, 2, 3, 4, 5, 6 };		/* 2 x 3 */
	static const int b[] = { 1, 0, 0, 1, 1, 1 };		/* 3 x 2 */
	static const int c[] = { 4, 5, 10, 11 };		/* 2 x 2 */
	struct ane_op_desc d = { .op = ANE_OP_MATMUL };
	u16 *dst;

	ane_tensor_dense(&d.src[0], buf(test, a, 6), 1, 1, 2, 3);
	ane_tensor_dense(&d.src[1], buf(test, b, 6), 1, 1, 3, 2);
	dst = buf(test, NULL, 4);
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 2);
	run(test, &d);
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
	run(test, &d);
	expect_values(test, dst, out, 4);
}

static void ane_engine_splits_work_into_chunks(struct kunit *test)
{
	/* 64 x 64 by 64 x 64 with tiny chunks: many FPU sections, same result. */
	struct ane_op_desc d = { .op = ANE_OP_MATMUL, .chunk_work = 4096 };
	unsigned int i, n = 64;
	int *ones, *want;
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
	KUNIT_EXPECT_GT(test, ane_op_chunks(&d), 1ull);
	run(test, &d);
	expect_values(test, dst, want, n * n);
}

struct eltwise_case {
	const char *desc;
	u32 op;
	int want[4];
};

/* a = [1 -2 3 -4] (1x1x2x2) op b = per-channel 3 (broadcast). */
static const struct eltwise_case eltwise_cases[] = {
	{ "add", ANE_ELT_ADD, { 4, 1, 6, -1 } },
	{ "sub", ANE_ELT_SUB, { -2, -5, 0, -7 } },
	{ "mul", ANE_ELT_MUL, { 3, -6, 9, -12 } },
	{ "max", ANE_ELT_MAX, { 3, 3, 3, 3 } },
	{ "min", ANE_ELT_MIN, { 1, -2, 3, -4 } },
};

static void eltwise_desc(const struct eltwise_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ane_eltwise, eltwise_cases, eltwise_desc);

static void ane_engine_eltwise_broadcasts_per_channel(struct kunit *test)
{
	static const int a[] = { 1, -2, 3, -4 }, b[] = { 3 };
	const struct eltwise_case *c = test->param_value;
	struct ane_op_desc d = { .op = ANE_OP_ELTWISE };
	u16 *dst = buf(test, NULL, 4);

	d.p.eltwise.op = c->op;
	ane_tensor_dense(&d.src[0], buf(test, a, 4), 1, 1, 2, 2);
	ane_tensor_dense(&d.src[1], buf(test, b, 1), 1, 1, 1, 1);
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 2);
	run(test, &d);
	expect_values(test, dst, c->want, 4);
}

static void ane_engine_activations_hit_exact_points(struct kunit *test)
{
	static const int x[] = { -3, 0, 5, 8 };
	struct ane_op_desc d = { .op = ANE_OP_ACT };
	u16 *src = buf(test, x, 4), *dst = buf(test, NULL, 4);

	ane_tensor_dense(&d.src[0], src, 1, 1, 1, 4);
	ane_tensor_dense(&d.dst, dst, 1, 1, 1, 4);
	d.act = ANE_ACT_RELU;
	run(test, &d);
	expect_values(test, dst, (const int[]){ 0, 0, 5, 8 }, 4);
	d.act = ANE_ACT_RELU6;
	run(test, &d);
	expect_values(test, dst, (const int[]){ 0, 0, 5, 6 }, 4);
	/* sigmoid(0) = 0.5 (0x3800); tanh(0) = gelu(0) = 0, exactly. */
	d.act = ANE_ACT_SIGMOID;
	run(test, &d);
	KUNIT_EXPECT_EQ(test, dst[1], 0x3800);
	d.act = ANE_ACT_TANH;
	run(test, &d);
	KUNIT_EXPECT_EQ(test, dst[1], 0);
	d.act = ANE_ACT_GELU;
	run(test, &d);
	KUNIT_EXPECT_EQ(test, dst[1] & 0x7fff, 0);
}

static void ane_engine_pools_max_and_average(struct kunit *test)
{
	/* 1x1x4x4 of 1..16, 2x2 windows, stride 2. */
	static const int in[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct ane_op_desc d = { .op = ANE_OP_POOL };
	u16 *dst = buf(test, NULL, 4);

	d.p.pool.kernel[0] = 2;
	d.p.pool.kernel[1] = 2;
	d.p.pool.stride[0] = 2;
	d.p.pool.stride[1] = 2;
	ane_tensor_dense(&d.src[0], buf(test, in, 16), 1, 1, 4, 4);
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 2);
	d.p.pool.kind = ANE_POOL_MAX;
	run(test, &d);
	expect_values(test, dst, (const int[]){ 6, 8, 14, 16 }, 4);
	/* Averages 3.5, 5.5, 11.5, 13.5: twice them are the integers. */
	d.p.pool.kind = ANE_POOL_AVG;
	run(test, &d);
	KUNIT_EXPECT_EQ(test, dst[0], 0x4300);	/* 3.5 */
	KUNIT_EXPECT_EQ(test, dst[1], 0x4580);	/* 5.5 */
	KUNIT_EXPECT_EQ(test, dst[2], 0x49c0);	/* 11.5 */
	KUNIT_EXPECT_EQ(test, dst[3], 0x4ac0);	/* 13.5 */
}

static void ane_engine_softmax_over_channels(struct kunit *test)
{
	/* Four equal channels at each of two positions: 0.25 (0x3400) each. */
	static const int in[] = { 7, -1, 7, -1, 7, -1, 7, -1 };
	struct ane_op_desc d = { .op = ANE_OP_SOFTMAX };
	u16 *dst = buf(test, NULL, 8);
	unsigned int i;

	ane_tensor_dense(&d.src[0], buf(test, in, 8), 1, 4, 1, 2);
	ane_tensor_dense(&d.dst, dst, 1, 4, 1, 2);
	run(test, &d);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, dst[i], 0x3400, "element %u", i);
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
	KUNIT_CASE_PARAM(ane_engine_eltwise_broadcasts_per_channel, ane_eltwise_gen_params),
	KUNIT_CASE(ane_engine_activations_hit_exact_points),
	KUNIT_CASE(ane_engine_pools_max_and_average),
	KUNIT_CASE(ane_engine_softmax_over_channels),
	KUNIT_CASE(ane_engine_refuses_bad_descriptors_before_running),
	{}
};

static struct kunit_suite ane_engine_suite = {
	.name = "ane_engine",
	.test_cases = ane_engine_cases,
};

kunit_test_suite(ane_engine_suite);
