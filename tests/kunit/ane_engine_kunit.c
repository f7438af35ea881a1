// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the compute engine inside the kernel -- operations run in short
 * kernel_fpu_begin()/end() sections, one chunk each, and give exact
 * results on integer-valued fp16 data; bad descriptors are refused before
 * any floating point runs; the instruction set picked at boot is the
 * widest the CPU has; convolutions follow IEEE arithmetic with infinite
 * and NaN weights and inputs, over zero padding too, on every path.
 *
 * This file itself uses no floating point: values are fp16 bit patterns.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/slab.h>

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/fpu/types.h>
#endif

#include "firmware/hw/ane_engine.h"

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
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(d), 0);
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

/*
 * A MATMUL with a bias (one value per column) and ReLU: the epilogue runs
 * after each GEMM chunk, here over many tiny chunks, on the ISA picked
 * at boot; exact integers.
 */
static void ane_engine_matmul_with_bias_and_relu(struct kunit *test)
{
	static const int a[] = { 1, 2, 3, 4, 5, 6 };		/* 2 x 3 */
	static const int b[] = { 1, 0, 0, 1, 1, 1 };		/* 3 x 2 */
	static const int bias[] = { -5, 1 };
	static const int c[] = { 0, 6, 5, 12 };		/* 4 5 10 11 + bias */
	struct ane_op_desc d = { .op = ANE_OP_MATMUL, .act = ANE_ACT_RELU };
	unsigned int i, n = 64;
	int *ones, *col, *want;
	u16 *dst;

	ane_tensor_dense(&d.src[0], buf(test, a, 6), 1, 1, 2, 3);
	ane_tensor_dense(&d.src[1], buf(test, b, 6), 1, 1, 3, 2);
	ane_tensor_dense(&d.bias, buf(test, bias, 2), 1, 1, 1, 2);
	dst = buf(test, NULL, 4);
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 2);
	run(test, &d);
	expect_values(test, dst, c, 4);

	/* 64 x 64 ones squared (64 each) plus j - 70 in column j, chunked */
	ones = kunit_kcalloc(test, n * n, sizeof(*ones), GFP_KERNEL);
	want = kunit_kcalloc(test, n * n, sizeof(*want), GFP_KERNEL);
	col = kunit_kcalloc(test, n, sizeof(*col), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ones);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, col);
	for (i = 0; i < n; i++)
		col[i] = (int)i - 70;
	for (i = 0; i < n * n; i++) {
		ones[i] = 1;
		want[i] = i % n < 6 ? 0 : (int)(i % n) - 6;
	}
	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_MATMUL;
	d.act = ANE_ACT_RELU;
	d.chunk_work = 4096;
	ane_tensor_dense(&d.src[0], buf(test, ones, n * n), 1, 1, n, n);
	ane_tensor_dense(&d.src[1], buf(test, ones, n * n), 1, 1, n, n);
	ane_tensor_dense(&d.bias, buf(test, col, n), 1, 1, 1, n);
	dst = buf(test, NULL, n * n);
	ane_tensor_dense(&d.dst, dst, 1, 1, n, n);
	KUNIT_EXPECT_GE(test, ane_op_chunks(&d), 4ull);	/* packing and compute chunks */
	run(test, &d);
	expect_values(test, dst, want, n * n);
}

/*
 * Run MATMUL @d of @a (@m x @k) by @b (@k x @n), which must take more
 * than @chunks chunks, and expect @want.
 */
static void run_matmul(struct kunit *test, struct ane_op_desc *d,
		       const int *a, const int *b, const int *want,
		       unsigned int m, unsigned int k, unsigned int n,
		       u64 chunks)
{
	u16 *dst = buf(test, NULL, m * n);

	ane_tensor_dense(&d->src[0], buf(test, a, m * k), 1, 1, m, k);
	ane_tensor_dense(&d->src[1], buf(test, b, k * n), 1, 1, k, n);
	ane_tensor_dense(&d->dst, dst, 1, 1, m, n);
	KUNIT_EXPECT_GT(test, ane_op_chunks(d), chunks);
	run(test, d);
	expect_values(test, dst, want, m * n);
}

static void ane_engine_splits_work_into_chunks(struct kunit *test)
{
	/* 64 x 64 by 64 x 64 with tiny chunks: many FPU sections, same result. */
	struct ane_op_desc d = { .op = ANE_OP_MATMUL, .chunk_work = 4096 };
	unsigned int i, n = 64;
	int *ones, *want;

	ones = kunit_kcalloc(test, n * n, sizeof(*ones), GFP_KERNEL);
	want = kunit_kcalloc(test, n * n, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ones);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < n * n; i++) {
		ones[i] = 1;
		want[i] = n;
	}
	run_matmul(test, &d, ones, ones, want, n, n, n, 1);
}

/*
 * A small-M deep MATMUL (17 x 16384 by 16384 x 20) runs in depth blocks,
 * its fp32 partial sums kept in the workspace from one chunk's FPU section
 * to the next: A all ones, B(k, j) one for k < 64 (j + 1), so output
 * (i, j) is 64 (j + 1), exact in fp16.
 */
static void ane_engine_deep_matmul_keeps_partial_sums(struct kunit *test)
{
	struct ane_op_desc d = { .op = ANE_OP_MATMUL };
	unsigned int m = 17, k = 16384, n = 20, i, j;
	int *a, *b, *want;

	a = kunit_kcalloc(test, m * k, sizeof(*a), GFP_KERNEL);
	b = kunit_kcalloc(test, k * n, sizeof(*b), GFP_KERNEL);
	want = kunit_kcalloc(test, m * n, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < m * k; i++)
		a[i] = 1;
	for (i = 0; i < k; i++)
		for (j = 0; j < n; j++)
			b[i * n + j] = i < 64 * (j + 1);
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			want[i * n + j] = 64 * (j + 1);
	/* a chunk per depth block and more: sums carried between them */
	run_matmul(test, &d, a, b, want, m, k, n, 64);
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

static void ane_engine_norm_over_w(struct kunit *test)
{
	/*
	 * Rows [-3 -1 1 3] and [5 5 5 9]: layer normalization (mean 0, var 5;
	 * mean 6, var 3) gives +-1.3416 +-0.4472 and -0.5773 x3, 1.7320,
	 * whose fp16 values numpy gives; softmax of [7 7 7 7] is 0.25 each.
	 */
	static const int in[] = { -3, -1, 1, 3, 5, 5, 5, 9 }, same[] = { 7, 7, 7, 7 };
	static const u16 want[] = { 0xbd5e, 0xb728, 0x3728, 0x3d5e,
				    0xb89e, 0xb89e, 0xb89e, 0x3eee };
	struct ane_op_desc d = { .op = ANE_OP_NORM };
	u16 *dst = buf(test, NULL, 8);
	unsigned int i;

	d.p.norm.kind = ANE_NORM_LAYER;
	ane_tensor_dense(&d.src[0], buf(test, in, 8), 1, 1, 2, 4);
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 4);
	run(test, &d);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, dst[i], want[i], "layer norm element %u", i);

	d.p.norm.kind = ANE_NORM_SOFTMAX;
	ane_tensor_dense(&d.src[0], buf(test, same, 4), 1, 1, 1, 4);
	ane_tensor_dense(&d.dst, dst, 1, 1, 1, 4);
	run(test, &d);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, dst[i], 0x3400, "softmax element %u", i);

	d.p.norm.kind = ANE_NORM_COUNT;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	d.p.norm.kind = ANE_NORM_LAYER;
	d.act = ANE_ACT_RELU;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
}

static void ane_engine_refuses_bad_descriptors_before_running(struct kunit *test)
{
	struct ane_op_desc d = { .op = ANE_OP_MATMUL };
	u16 *a = buf(test, NULL, 6), *dst = buf(test, NULL, 4);

	ane_tensor_dense(&d.src[0], a, 1, 1, 2, 3);
	ane_tensor_dense(&d.src[1], a, 1, 1, 2, 3);	/* K mismatch */
	ane_tensor_dense(&d.dst, dst, 1, 1, 2, 2);
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);

	ane_tensor_dense(&d.src[1], a, 1, 1, 3, 2);
	d.dst.size = 2;					/* buffer too small */
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -ENOSPC);

	d.op = ANE_OP_COUNT;
	KUNIT_EXPECT_EQ(test, ane_engine_run_op(&d), -EINVAL);
	KUNIT_EXPECT_EQ(test, ane_engine_errno(-ANE_MATH_EOVERFLOW), -EOVERFLOW);
}

/* ------------------------------------------------ instruction sets */

/*
 * What the CPU's features allow of @isa, stated as properties rather than
 * as a copy of the pick: a path needs its features, and the AVX2 path
 * (the widest TCG offers) is never passed over when the CPU has it.
 */
static void expect_isa_fits_cpu(struct kunit *test, u32 isa)
{
#ifdef CONFIG_X86_64
	bool avx2 = boot_cpu_has(X86_FEATURE_AVX2) && boot_cpu_has(X86_FEATURE_FMA) &&
		    boot_cpu_has(X86_FEATURE_F16C) && boot_cpu_has(X86_FEATURE_OSXSAVE);

	if (isa >= ANE_MATH_ISA_AVX2_FMA)
		KUNIT_EXPECT_TRUE(test, avx2);
	if (isa == ANE_MATH_ISA_AVX512)
		KUNIT_EXPECT_TRUE(test, boot_cpu_has(X86_FEATURE_AVX512F) &&
				  boot_cpu_has(X86_FEATURE_AVX512BW) &&
				  boot_cpu_has(X86_FEATURE_AVX512VL));
	if (avx2 && ane_math_isa_built(ANE_MATH_ISA_AVX2_FMA))
		KUNIT_EXPECT_GE(test, isa, (u32)ANE_MATH_ISA_AVX2_FMA);
#else
	KUNIT_EXPECT_EQ(test, isa, (u32)ANE_MATH_ISA_SSE2);
#endif
}

/* Put the boot-time choice back after a test that forced another. */
static void restore_isa(void *unused)
{
	ane_engine_isa_init();
}

/*
 * The pick the firmware makes at boot is the widest path the CPU offers,
 * whatever was set before, and operations then run on it.
 */
static void ane_engine_init_picks_the_widest_isa(struct kunit *test)
{
	static const int a[] = { 1, 2 }, b[] = { 3, 4 }, c[] = { 11 };
	struct ane_op_desc d = { .op = ANE_OP_MATMUL };
	u32 want = ane_engine_widest_isa();
	u16 *dst = buf(test, NULL, 1);

	expect_isa_fits_cpu(test, want);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	KUNIT_ASSERT_EQ(test, ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
	KUNIT_EXPECT_EQ(test, ane_engine_isa_init(), want);
	KUNIT_EXPECT_EQ(test, ane_math_get_isa(), want);
	/* again: the same choice, nothing changes */
	KUNIT_EXPECT_EQ(test, ane_engine_isa_init(), want);
	kunit_info(test, "engine isa: %s\n", ane_engine_isa_name(want));
	ane_tensor_dense(&d.src[0], buf(test, a, 2), 1, 1, 1, 2);
	ane_tensor_dense(&d.src[1], buf(test, b, 2), 1, 1, 2, 1);
	ane_tensor_dense(&d.dst, dst, 1, 1, 1, 1);
	run(test, &d);
	expect_values(test, dst, c, 1);
	KUNIT_EXPECT_EQ(test, ane_math_get_isa(), want);
	KUNIT_EXPECT_STREQ(test, ane_engine_isa_name(ANE_MATH_ISA_SSE2), "sse2");
	KUNIT_EXPECT_STREQ(test, ane_engine_isa_name(ANE_MATH_ISA_AVX2_FMA),
			   "avx2+fma+f16c");
	KUNIT_EXPECT_STREQ(test, ane_engine_isa_name(ANE_MATH_ISA_AVX512),
			   "avx512");
	KUNIT_EXPECT_STREQ(test, ane_engine_isa_name(ANE_MATH_ISA_COUNT), "?");
}

/* ------------------------------------------------ IEEE special values */

/*
 * Values of the specials tests: small integers, exact in fp16 and in every
 * sum here, or one of these codes.
 */
#define V_PINF	10000
#define V_NINF	(-10000)
#define V_NAN	20000

static u16 hs(int v)
{
	return v == V_PINF ? 0x7c00 : v == V_NINF ? 0xfc00 : v == V_NAN ? 0x7e00 : h(v);
}

/* A value of the explicit reference: finite (@v) or special. */
enum { R_FIN, R_PINF, R_NINF, R_NAN };
struct rv {
	int kind;
	int v;
};

static struct rv rv_of(int v)
{
	return (struct rv){ v == V_PINF ? R_PINF : v == V_NINF ? R_NINF :
			    v == V_NAN ? R_NAN : R_FIN, v };
}

/* IEEE multiplication: NaN wins, inf * 0 is NaN, signs multiply. */
static struct rv rv_mul(struct rv a, struct rv b)
{
	int neg;

	if (a.kind == R_NAN || b.kind == R_NAN)
		return (struct rv){ R_NAN, 0 };
	if (a.kind == R_FIN && b.kind == R_FIN)
		return (struct rv){ R_FIN, a.v * b.v };
	if ((a.kind == R_FIN && !a.v) || (b.kind == R_FIN && !b.v))
		return (struct rv){ R_NAN, 0 };
	neg = (a.kind == R_NINF || (a.kind == R_FIN && a.v < 0)) !=
	      (b.kind == R_NINF || (b.kind == R_FIN && b.v < 0));
	return (struct rv){ neg ? R_NINF : R_PINF, 0 };
}

/* IEEE addition: NaN wins, inf - inf is NaN. */
static struct rv rv_add(struct rv a, struct rv b)
{
	if (a.kind == R_NAN || b.kind == R_NAN)
		return (struct rv){ R_NAN, 0 };
	if (a.kind == R_FIN && b.kind == R_FIN)
		return (struct rv){ R_FIN, a.v + b.v };
	if (a.kind == R_FIN)
		return b;
	if (b.kind == R_FIN || a.kind == b.kind)
		return a;
	return (struct rv){ R_NAN, 0 };
}

struct ieee_case {
	const char *desc;
	u32 isa;
	u32 cin, h, w, cout, k, stride, dil, pad, groups;
};

/* name, isa, then: cin h w cout k stride dilation pad groups */
static const struct ieee_case ieee_cases[] = {
	{ "direct depthwise 3x3 pad 1 [sse2]", ANE_MATH_ISA_SSE2,
	  3, 5, 6, 3, 3, 1, 1, 1, 3 },
	{ "direct depthwise 3x3 pad 1 [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  3, 5, 6, 3, 3, 1, 1, 1, 3 },
	{ "direct x2 3x3 stride 2 pad 1 [sse2]", ANE_MATH_ISA_SSE2,
	  2, 7, 6, 4, 3, 2, 1, 1, 2 },
	{ "direct x2 3x3 stride 2 pad 1 [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  2, 7, 6, 4, 3, 2, 1, 1, 2 },
	{ "direct depthwise dilated pad 2 [sse2]", ANE_MATH_ISA_SSE2,
	  2, 6, 7, 2, 3, 1, 2, 2, 2 },
	{ "direct depthwise dilated pad 2 [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  2, 6, 7, 2, 3, 1, 2, 2, 2 },
	{ "direct depthwise unpadded [sse2]", ANE_MATH_ISA_SSE2,
	  2, 5, 5, 2, 3, 1, 1, 0, 2 },
	{ "direct depthwise unpadded [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  2, 5, 5, 2, 3, 1, 1, 0, 2 },
	{ "gemm 3x3 pad 1 [sse2]", ANE_MATH_ISA_SSE2,
	  2, 5, 6, 6, 3, 1, 1, 1, 1 },
	{ "gemm 3x3 pad 1 [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  2, 5, 6, 6, 3, 1, 1, 1, 1 },
	{ "gemm 3x3 pad 1 [avx512]", ANE_MATH_ISA_AVX512,
	  2, 5, 6, 6, 3, 1, 1, 1, 1 },
	{ "gemm 3x3 stride 2 dilation 2 pad 2 [sse2]", ANE_MATH_ISA_SSE2,
	  2, 7, 8, 6, 3, 2, 2, 2, 1 },
	{ "gemm 3x3 stride 2 dilation 2 pad 2 [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  2, 7, 8, 6, 3, 2, 2, 2, 1 },
	{ "gemm 3x3 stride 2 dilation 2 pad 2 [avx512]", ANE_MATH_ISA_AVX512,
	  2, 7, 8, 6, 3, 2, 2, 2, 1 },
	{ "gemm grouped 3x3 pad 1 [sse2]", ANE_MATH_ISA_SSE2,
	  4, 5, 5, 8, 3, 1, 1, 1, 2 },
	{ "gemm grouped 3x3 pad 1 [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  4, 5, 5, 8, 3, 1, 1, 1, 2 },
	{ "gemm grouped 3x3 pad 1 [avx512]", ANE_MATH_ISA_AVX512,
	  4, 5, 5, 8, 3, 1, 1, 1, 2 },
	{ "gemm 3x3 unpadded [sse2]", ANE_MATH_ISA_SSE2,
	  2, 5, 6, 6, 3, 1, 1, 0, 1 },
	{ "gemm 3x3 unpadded [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  2, 5, 6, 6, 3, 1, 1, 0, 1 },
	{ "gemm 3x3 unpadded [avx512]", ANE_MATH_ISA_AVX512,
	  2, 5, 6, 6, 3, 1, 1, 0, 1 },
	{ "gemm 1x1 [sse2]", ANE_MATH_ISA_SSE2,
	  3, 4, 5, 6, 1, 1, 1, 0, 1 },
	{ "gemm 1x1 [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  3, 4, 5, 6, 1, 1, 1, 0, 1 },
	{ "gemm 1x1 [avx512]", ANE_MATH_ISA_AVX512,
	  3, 4, 5, 6, 1, 1, 1, 0, 1 },
	/* 14 rows, 45 columns: the 12 x 32 block and every edge shape */
	{ "gemm 3x3 pad 1 wide [sse2]", ANE_MATH_ISA_SSE2,
	  2, 5, 9, 14, 3, 1, 1, 1, 1 },
	{ "gemm 3x3 pad 1 wide [avx2]", ANE_MATH_ISA_AVX2_FMA,
	  2, 5, 9, 14, 3, 1, 1, 1, 1 },
	{ "gemm 3x3 pad 1 wide [avx512]", ANE_MATH_ISA_AVX512,
	  2, 5, 9, 14, 3, 1, 1, 1, 1 },
};

static void ieee_desc(const struct ieee_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ane_ieee, ieee_cases, ieee_desc);

/*
 * The explicit reference of output (@co, @oh, @ow): the bias plus every
 * tap, in IEEE arithmetic; a padded tap is weight * 0.
 */
static struct rv ieee_ref(const struct ieee_case *c, const int *x,
			  const int *w, int bias, u32 co, u32 oh, u32 ow)
{
	u32 cin_g = c->cin / c->groups, g = co / (c->cout / c->groups);
	struct rv s = { R_FIN, bias };
	u32 ci, kh, kw;

	for (ci = 0; ci < cin_g; ci++)
		for (kh = 0; kh < c->k; kh++)
			for (kw = 0; kw < c->k; kw++) {
				int ih = (int)(oh * c->stride + kh * c->dil) - (int)c->pad;
				int iw = (int)(ow * c->stride + kw * c->dil) - (int)c->pad;
				int xv = 0;	/* zero padding */

				if (ih >= 0 && ih < (int)c->h && iw >= 0 && iw < (int)c->w)
					xv = x[((g * cin_g + ci) * c->h + ih) * c->w + iw];
				s = rv_add(s, rv_mul(rv_of(xv),
						     rv_of(w[((co * cin_g + ci) * c->k + kh) *
							     c->k + kw])));
			}
	return s;
}

/*
 * Convolutions with +inf, -inf and NaN in the weights and the inputs,
 * against an explicit IEEE reference in which a padded tap adds
 * weight * 0 (NaN for an infinite or NaN weight): on the direct path (at
 * most two output channels per group) and the GEMM, padded and not, on
 * each instruction set the CPU has.
 */
static void ane_engine_conv_ieee_specials(struct kunit *test)
{
	const struct ieee_case *c = test->param_value;
	u32 cin_g = c->cin / c->groups, ext = c->dil * (c->k - 1) + 1;
	u32 ho = (c->h + 2 * c->pad - ext) / c->stride + 1;
	u32 wo = (c->w + 2 * c->pad - ext) / c->stride + 1;
	u32 nx = c->cin * c->h * c->w, nw = c->cout * cin_g * c->k * c->k;
	u32 ny = c->cout * ho * wo, i, co, oh, ow, seed = 12345;
	struct ane_op_desc d = { .op = ANE_OP_CONV };
	int *x, *w, *bias;
	u16 *dst;

	if (c->isa > ane_engine_widest_isa())
		kunit_skip(test, "this CPU (or kernel) lacks the %s path",
			   ane_engine_isa_name(c->isa));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	KUNIT_ASSERT_EQ(test, ane_math_set_isa(c->isa), 0);

	x = kunit_kcalloc(test, nx, sizeof(*x), GFP_KERNEL);
	w = kunit_kcalloc(test, nw, sizeof(*w), GFP_KERNEL);
	bias = kunit_kcalloc(test, c->cout, sizeof(*bias), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, bias);
	for (i = 0; i < nx; i++) {
		seed = seed * 1103515245 + 12345;
		x[i] = (int)((seed >> 16) % 7) - 3;		/* -3 .. 3 */
	}
	for (i = 0; i < nw; i++) {
		seed = seed * 1103515245 + 12345;
		w[i] = (int)((seed >> 16) % 5) - 2;		/* -2 .. 2 */
	}
	for (i = 0; i < c->cout; i++)
		bias[i] = (int)i - 1;
	/*
	 * Channel 0: +inf in its top-left tap (reads the top and left
	 * padding); channel 1: -inf in its bottom-right tap; channel 2 (if
	 * any): NaN in its middle-left tap; the rest finite.  Inputs: +inf,
	 * -inf and NaN inside the image, some under zero weights.
	 */
	w[0] = V_PINF;
	w[cin_g * c->k * c->k + cin_g * c->k * c->k - 1] = V_NINF;
	if (c->cout > 2)
		w[2 * cin_g * c->k * c->k + (c->k / 2) * c->k] = V_NAN;
	x[c->w + 1] = V_PINF;				/* [0][1][1] */
	x[nx - 1] = V_NINF;				/* last element */
	x[(c->cin - 1) * c->h * c->w + (c->h / 2) * c->w + c->w / 2] = V_NAN;

	d.p.conv.stride[0] = c->stride;
	d.p.conv.stride[1] = c->stride;
	d.p.conv.dilation[0] = c->dil;
	d.p.conv.dilation[1] = c->dil;
	for (i = 0; i < 4; i++)
		d.p.conv.pad[i] = c->pad;
	d.p.conv.groups = c->groups;
	ane_tensor_dense(&d.src[0], buf(test, NULL, nx), 1, c->cin, c->h, c->w);
	ane_tensor_dense(&d.src[1], buf(test, NULL, nw), c->cout, cin_g, c->k, c->k);
	ane_tensor_dense(&d.bias, buf(test, bias, c->cout), 1, c->cout, 1, 1);
	for (i = 0; i < nx; i++)
		((u16 *)d.src[0].base)[i] = hs(x[i]);
	for (i = 0; i < nw; i++)
		((u16 *)d.src[1].base)[i] = hs(w[i]);
	dst = buf(test, NULL, ny);
	ane_tensor_dense(&d.dst, dst, 1, c->cout, ho, wo);
	run(test, &d);

	for (co = 0; co < c->cout; co++)
		for (oh = 0; oh < ho; oh++)
			for (ow = 0; ow < wo; ow++) {
				struct rv r = ieee_ref(c, x, w, bias[co], co, oh, ow);
				u16 got = dst[(co * ho + oh) * wo + ow], want;
				bool ok;

				switch (r.kind) {
				case R_NAN:
					want = 0x7e00;
					ok = (got & 0x7c00) == 0x7c00 && (got & 0x3ff);
					break;
				case R_PINF:
					want = 0x7c00;
					ok = got == want;
					break;
				case R_NINF:
					want = 0xfc00;
					ok = got == want;
					break;
				default:
					want = h(r.v);
					ok = got == want || (!r.v && !(got & 0x7fff));
					break;
				}
				KUNIT_EXPECT_TRUE_MSG(test, ok,
						      "[%u,%u,%u]: got 0x%04x, want 0x%04x",
						      co, oh, ow, got, want);
			}
}

static int ane_engine_suite_init(struct kunit_suite *suite)
{
	ane_engine_isa_init();	/* as the engine does at reset */
	return 0;
}

static struct kunit_case ane_engine_cases[] = {
	KUNIT_CASE(ane_engine_matmul_runs_in_fpu_sections),
	KUNIT_CASE(ane_engine_conv_with_bias_and_relu),
	KUNIT_CASE(ane_engine_matmul_with_bias_and_relu),
	KUNIT_CASE(ane_engine_splits_work_into_chunks),
	KUNIT_CASE(ane_engine_deep_matmul_keeps_partial_sums),
	KUNIT_CASE_PARAM(ane_engine_eltwise_broadcasts_per_channel, ane_eltwise_gen_params),
	KUNIT_CASE(ane_engine_activations_hit_exact_points),
	KUNIT_CASE(ane_engine_pools_max_and_average),
	KUNIT_CASE(ane_engine_softmax_over_channels),
	KUNIT_CASE(ane_engine_norm_over_w),
	KUNIT_CASE(ane_engine_refuses_bad_descriptors_before_running),
	KUNIT_CASE(ane_engine_init_picks_the_widest_isa),
	KUNIT_CASE_PARAM(ane_engine_conv_ieee_specials, ane_ieee_gen_params),
	{}
};

static struct kunit_suite ane_engine_suite = {
	.name = "ane_engine",
	.suite_init = ane_engine_suite_init,
	.test_cases = ane_engine_cases,
};

kunit_test_suite(ane_engine_suite);
