// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the engine's instruction sets against each other, as kernel
 * code.  The AVX-512 path gives the AVX2 path's bits for MATMULs and
 * convolutions through its GEMM, its 1 x 1 kernel and its direct
 * convolution (whose packed weights in the workspace show that it ran);
 * the AVX2 and AVX-512 paths stay within one fp16 ulp of the SSE2 path
 * (which rounds twice where FMA rounds once) on data without
 * cancellation; and the elementwise rows give SSE2's bits on every path.
 * Built into the engine-only User-Mode Linux kernel
 * (tools/kunit/run-kunit.sh --arch um), which runs it on the host's CPU;
 * on a CPU without AVX-512 (or AVX2) the cases that need it skip, saying
 * so.
 *
 * No floating point here: values are fp16 bit patterns.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/align.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "firmware/hw/ane_engine.h"
#include "tests/engine_rows.h"

static void kvfree_action(void *p)
{
	kvfree(p);
}

/* @n zeroed bytes, freed at the end of the test (kvmalloc: large GEMMs). */
static void *zalloc(struct kunit *test, size_t n)
{
	void *p = kvzalloc(n, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kvfree_action, p), 0);
	return p;
}

/* Skip, saying why, when @isa is beyond what this CPU and kernel run. */
static void need_isa(struct kunit *test, u32 isa)
{
	u32 widest = ane_engine_widest_isa();

	if (isa > widest)
		kunit_skip(test, "the %s path: this CPU (or kernel) runs at most %s",
			   ane_engine_isa_name(isa), ane_engine_isa_name(widest));
}

static void restore_isa(void *unused)
{
	ane_engine_isa_init();
}

/*
 * Run @d on @isa with a fresh, aligned workspace, which stays in d->work
 * for the caller to look at.
 */
static void run_on(struct kunit *test, struct ane_op_desc *d, u32 isa)
{
	u64 wsize;

	KUNIT_ASSERT_EQ(test, ane_math_set_isa(isa), 0);
	KUNIT_ASSERT_EQ(test, ane_op_workspace_size(d, &wsize), 0);
	d->work = NULL;
	d->work_size = wsize;
	if (wsize)
		d->work = PTR_ALIGN((u8 *)zalloc(test, wsize + ANE_MATH_WORK_ALIGN),
				    ANE_MATH_WORK_ALIGN);
	KUNIT_ASSERT_EQ(test, ane_engine_run_op(d), 0);
}

static u32 lcg(u32 *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 8;
}

/*
 * A random fp16 of magnitude in [2^-6, 2): exponent field 9 .. 15 and
 * any mantissa; negative half the time unless @positive.
 */
static u16 rnd_h(u32 *seed, bool positive)
{
	u32 r = lcg(seed);

	return (positive ? 0 : (r & 1) << 15) | ((9 + (r >> 11) % 7) << 10) |
	       ((r >> 1) & 0x3ff);
}

/* fp16 of @v * 2^-6, exactly (|v| <= 64). */
static u16 h_64th(int v)
{
	u32 a = abs(v), e = 0;

	if (!a)
		return 0;
	while ((a >> e) > 1)
		e++;
	return (u16)((v < 0) << 15 | (e + 15 - 6) << 10 | ((a << (10 - e)) & 0x3ff));
}

static bool is_nan16(u16 h)
{
	return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

/* -------------------------------------------- MATMULs and convolutions */

/*
 * MATMUL (kh 0): M K N in cin h w.  CONV: cin h w cout kh kw, strides,
 * dilations, padding (top bottom left right), groups, activation, bias,
 * and whether the AVX-512 direct convolution takes it (1), leaves it to
 * the GEMM (0) or either (-1, not looked at: 1 x 1 windows).
 */
struct isa_shape {
	const char *desc;
	u32 cin, h, w, cout, kh, kw, sh, sw, dh, dw, pad[4], groups, act, bias;
	int direct;
};

static const struct isa_shape isa_shapes[] = {
	{ "matmul 1x1x1", 1, 1, 1, 0, 0, 0, .direct = -1 },
	{ "matmul 12x64x32", 12, 64, 32, 0, 0, 0, .direct = -1 },
	{ "matmul 13x511x33", 13, 511, 33, 0, 0, 0, .direct = -1 },
	{ "matmul 25x512x47", 25, 512, 47, 0, 0, 0, .direct = -1 },
	{ "matmul 37x1100x100", 37, 1100, 100, 0, 0, 0, .direct = -1 },
	{ "matmul 6x2049x16", 6, 2049, 16, 0, 0, 0, .direct = -1 },
	{ "matmul 100x200x66", 100, 200, 66, 0, 0, 0, .direct = -1 },
	{ "matmul 47x300x36", 47, 300, 36, 0, 0, 0, .direct = -1 },
	{ "matmul 5x40x3", 5, 40, 3, 0, 0, 0, .direct = -1 },
	{ "conv 1x1 64->30 14x14", 64, 14, 14, 30, 1, 1, 1, 1, 1, 1, { 0, 0, 0, 0 },
	  1, ANE_ACT_NONE, 1, -1 },
	{ "conv 1x1 256->40 14x14 relu6", 256, 14, 14, 40, 1, 1, 1, 1, 1, 1, { 0, 0, 0, 0 },
	  1, ANE_ACT_RELU6, 1, -1 },
	{ "conv 1x1 300->13 5x3", 300, 5, 3, 13, 1, 1, 1, 1, 1, 1, { 0, 0, 0, 0 },
	  1, ANE_ACT_NONE, 0, -1 },
	{ "conv 3x3 64->64 56x56 relu", 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, { 1, 1, 1, 1 },
	  1, ANE_ACT_RELU, 1, 1 },
	{ "conv 3x3 3->16 13x29 asymmetric pad", 3, 13, 29, 16, 3, 3, 1, 1, 1, 1,
	  { 0, 2, 1, 0 }, 1, ANE_ACT_NONE, 0, 1 },
	{ "conv 3x3 8->48 9x57 row stride 2 relu6", 8, 9, 57, 48, 3, 3, 2, 1, 1, 1,
	  { 1, 1, 1, 1 }, 1, ANE_ACT_RELU6, 1, 1 },
	{ "conv 5x3 5->32 10x7 dilation 2", 5, 10, 7, 32, 5, 3, 1, 1, 2, 2,
	  { 2, 2, 2, 2 }, 1, ANE_ACT_NONE, 1, 1 },
	{ "conv 3x3 7->32 12x30 sigmoid", 7, 12, 30, 32, 3, 3, 1, 1, 1, 1,
	  { 1, 1, 1, 1 }, 1, ANE_ACT_SIGMOID, 1, 1 },
	{ "conv 3x3 300->16 5x9", 300, 5, 9, 16, 3, 3, 1, 1, 1, 1, { 1, 1, 1, 1 },
	  1, ANE_ACT_NONE, 1, 1 },
	{ "conv 3x3 8->32 11x15 groups 2 relu6", 8, 11, 15, 32, 3, 3, 1, 1, 1, 1,
	  { 1, 1, 1, 1 }, 2, ANE_ACT_RELU6, 1, -1 },
	{ "conv 3x3 8->32 9x20 column stride 2", 8, 9, 20, 32, 3, 3, 1, 2, 1, 1,
	  { 1, 1, 1, 1 }, 1, ANE_ACT_NONE, 1, 0 },
	{ "conv 3x3 8->24 9x20", 8, 9, 20, 24, 3, 3, 1, 1, 1, 1, { 1, 1, 1, 1 },
	  1, ANE_ACT_NONE, 1, 0 },
};

static void isa_shape_desc(const struct isa_shape *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(isa_shape, isa_shapes, isa_shape_desc);

struct isa_op {
	struct ane_op_desc d;
	u16 *x, *w, *b, *y;
	size_t nx, nw, nb, ny;
};

/* @o for shape @c: tensors allocated, filled by isa_fill(). */
static void isa_op_init(struct kunit *test, struct isa_op *o, const struct isa_shape *c)
{
	struct ane_op_desc *d = &o->d;

	memset(o, 0, sizeof(*o));
	if (!c->kh) {
		o->nx = (size_t)c->cin * c->h;
		o->nw = (size_t)c->h * c->w;
		o->ny = (size_t)c->cin * c->w;
		d->op = ANE_OP_MATMUL;
	} else {
		u32 ho = (c->h + c->pad[0] + c->pad[1] - c->dh * (c->kh - 1) - 1) / c->sh + 1;
		u32 wo = (c->w + c->pad[2] + c->pad[3] - c->dw * (c->kw - 1) - 1) / c->sw + 1;

		o->nx = (size_t)c->cin * c->h * c->w;
		o->nw = (size_t)c->cout * (c->cin / c->groups) * c->kh * c->kw;
		o->ny = (size_t)c->cout * ho * wo;
		o->nb = c->bias ? c->cout : 0;
		d->op = ANE_OP_CONV;
		d->act = c->act;
		d->p.conv = (struct ane_conv_params){
			.stride = { c->sh, c->sw }, .dilation = { c->dh, c->dw },
			.pad = { c->pad[0], c->pad[1], c->pad[2], c->pad[3] },
			.groups = c->groups,
		};
		o->y = zalloc(test, o->ny * 2);
		ane_tensor_dense(&d->dst, o->y, 1, c->cout, ho, wo);
	}
	o->x = zalloc(test, o->nx * 2);
	o->w = zalloc(test, o->nw * 2);
	if (!c->kh) {
		o->y = zalloc(test, o->ny * 2);
		ane_tensor_dense(&d->src[0], o->x, 1, 1, c->cin, c->h);
		ane_tensor_dense(&d->src[1], o->w, 1, 1, c->h, c->w);
		ane_tensor_dense(&d->dst, o->y, 1, 1, c->cin, c->w);
		return;
	}
	ane_tensor_dense(&d->src[0], o->x, 1, c->cin, c->h, c->w);
	ane_tensor_dense(&d->src[1], o->w, c->cout, c->cin / c->groups, c->kh, c->kw);
	if (o->nb) {
		o->b = zalloc(test, o->nb * 2);
		ane_tensor_dense(&d->bias, o->b, 1, c->cout, 1, 1);
	}
}

/* Random data; signed with an infinity and a NaN, or positive and finite. */
static void isa_fill(struct isa_op *o, u32 seed, bool positive)
{
	size_t i;

	for (i = 0; i < o->nx; i++)
		o->x[i] = rnd_h(&seed, positive);
	for (i = 0; i < o->nw; i++)
		o->w[i] = rnd_h(&seed, positive);
	for (i = 0; i < o->nb; i++)
		o->b[i] = rnd_h(&seed, positive);
	if (!positive) {
		o->x[o->nx / 2] = 0x7c00;		/* +inf */
		o->w[o->nw / 3 + 1] = 0x7e00;		/* NaN */
	}
}

/*
 * Shape @c in @o, filled, after the test is skipped unless the CPU runs
 * @need; a copy of its result on @ref_isa is returned.
 */
static u16 *isa_ref(struct kunit *test, struct isa_op *o, const struct isa_shape *c,
		    u32 need, u32 ref_isa, u32 seed, bool positive)
{
	u16 *ref;

	need_isa(test, need);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	isa_op_init(test, o, c);
	isa_fill(o, seed, positive);
	ref = zalloc(test, o->ny * 2);
	run_on(test, &o->d, ref_isa);
	memcpy(ref, o->y, o->ny * 2);
	return ref;
}

/*
 * @y has @ref's bits (a NaN's payload aside), or the test fails naming
 * the first few that differ.
 */
static void expect_same_bits(struct kunit *test, const u16 *y, const u16 *ref,
			     size_t n, const char *what)
{
	unsigned int diff = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (y[i] != ref[i] && !(is_nan16(y[i]) && is_nan16(ref[i])) &&
		    diff++ < 4)
			KUNIT_FAIL(test, "%s: [%zu] %#06x, reference %#06x", what, i,
				   y[i], ref[i]);
	KUNIT_EXPECT_EQ_MSG(test, diff, 0, "%s: values differ", what);
}

/*
 * The AVX-512 path gives the AVX2 path's bits, at three chunk sizes
 * (packing and compute cut differently), NaN payloads aside; and where
 * the shape says so, its direct convolution ran, which leaves the packed
 * weights at the start of the workspace: the first weight of the last
 * group's output channels 0 .. 15, as fp32.
 */
static void ane_engine_isa_avx512_same_bits_as_avx2(struct kunit *test)
{
	static const u64 works[] = { 0, 3000, 40000 };
	const struct isa_shape *c = test->param_value;
	char what[48];
	struct isa_op o;
	unsigned int r;
	u16 *ref;

	ref = isa_ref(test, &o, c, ANE_MATH_ISA_AVX512, ANE_MATH_ISA_AVX2_FMA,
		      7 + c->cin * 31 + c->w, false);
	for (r = 0; r < ARRAY_SIZE(works); r++) {
		o.d.chunk_work = works[r];
		memset(o.y, 0x55, o.ny * 2);
		run_on(test, &o.d, ANE_MATH_ISA_AVX512);
		snprintf(what, sizeof(what), "avx512 at chunk_work %llu against avx2",
			 works[r]);
		expect_same_bits(test, o.y, ref, o.ny, what);

		if (c->direct >= 0) {
			u32 cin_g = c->cin / c->groups, cout_g = c->cout / c->groups;
			const u32 *f = o.d.work;
			bool packed = f && o.d.work_size >= 16 * sizeof(*f);
			u32 j;

			for (j = 0; packed && j < 16; j++) {
				u32 m = (c->groups - 1) * cout_g + j;
				u16 wh = o.w[(size_t)m * cin_g * c->kh * c->kw];

				if (j >= cout_g)
					packed = false;
				else if (!is_nan16(wh) && f[j] != ane_fp16_to_fp32_bits(wh))
					packed = false;
			}
			KUNIT_EXPECT_EQ_MSG(test, packed, !!c->direct,
					    "the direct convolution %s (chunk_work %llu)",
					    c->direct ? "did not run" : "ran", works[r]);
		}
	}
}

/* Ulps between two positive finite fp16 values. */
static u32 ulps(u16 a, u16 b)
{
	return a > b ? a - b : b - a;
}

/*
 * On positive data (no cancellation) FMA's single rounding and SSE2's
 * two keep the fp32 sums far closer than an fp16 ulp: the AVX2 and
 * AVX-512 results are within one ulp of the SSE2 path's.
 */
static void ane_engine_isa_within_an_ulp_of_sse2(struct kunit *test)
{
	const struct isa_shape *c = test->param_value;
	u32 isa, widest = ane_engine_widest_isa();
	struct isa_op o;
	unsigned int bad;
	u16 *ref;
	size_t i;

	ref = isa_ref(test, &o, c, ANE_MATH_ISA_AVX2_FMA, ANE_MATH_ISA_SSE2,
		      11 + c->cout * 17 + c->h, true);
	for (isa = ANE_MATH_ISA_AVX2_FMA; isa <= widest; isa++) {
		memset(o.y, 0x55, o.ny * 2);
		run_on(test, &o.d, isa);
		for (i = 0, bad = 0; i < o.ny; i++)
			if ((o.y[i] & 0x8000) || (o.y[i] & 0x7c00) == 0x7c00 ||
			    ulps(o.y[i], ref[i]) > 1) {
				if (bad++ < 4)
					KUNIT_FAIL(test, "[%zu] %s 0x%04x, sse2 0x%04x", i,
						   ane_engine_isa_name(isa), o.y[i], ref[i]);
			}
		KUNIT_EXPECT_EQ_MSG(test, bad, 0, "%s", ane_engine_isa_name(isa));
	}
	kunit_info(test, "compared %s .. %s with sse2\n",
		   ane_engine_isa_name(ANE_MATH_ISA_AVX2_FMA), ane_engine_isa_name(widest));
}

/* ------------------------------------------------------------ rows */

static const u32 row_isas[] = { ANE_MATH_ISA_AVX2_FMA, ANE_MATH_ISA_AVX512 };

static void row_isa_desc(const u32 *isa, char *desc)
{
	strscpy(desc, ane_engine_isa_name(*isa), KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(row_isa, row_isas, row_isa_desc);

/* ane_test_row_desc()'s operation @op on @isa. */
static void row_op(struct kunit *test, u16 *x, u16 *bias, u16 *y, u32 n,
		   unsigned int op, u32 isa)
{
	struct ane_op_desc d;

	ane_test_row_desc(&d, x, bias, y, n, op);
	run_on(test, &d, isa);
}

/*
 * The elementwise rows give the SSE2 path's bits on the AVX2 and AVX-512
 * paths: GELU and ADD + GELU (the MATMUL epilogue's loop) of every fp16
 * value, and softmax over W of rows of them, 128 and 37 wide.
 */
static void ane_engine_isa_rows_same_bits_as_sse2(struct kunit *test)
{
	static const char * const what[ANE_TEST_ROW_OPS] = {
		"gelu", "add+gelu", "softmax 128", "softmax 37",
	};
	const u32 *isa = test->param_value, n = 65536;
	u16 *x, *bias, *ref, *y;
	unsigned int op;
	u32 i;

	need_isa(test, *isa);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_isa, NULL), 0);
	x = zalloc(test, n * 2);
	bias = zalloc(test, 64 * 2);
	ref = zalloc(test, n * 2);
	y = zalloc(test, n * 2);
	for (i = 0; i < n; i++)
		x[i] = i;
	/* -0.5 .. 0.484375 by 1/64 */
	for (i = 0; i < 64; i++)
		bias[i] = h_64th((int)i - 32);
	for (op = 0; op < ARRAY_SIZE(what); op++) {
		/* the same bytes in the gaps between the rows of 37 */
		memset(ref, 0x55, n * 2);
		memset(y, 0x55, n * 2);
		row_op(test, x, bias, ref, n, op, ANE_MATH_ISA_SSE2);
		row_op(test, x, bias, y, n, op, *isa);
		/* [i] is the input 0x<i>; the reference is sse2 */
		expect_same_bits(test, y, ref, n, what[op]);
	}
}

static struct kunit_case ane_engine_isa_cases[] = {
	KUNIT_CASE_PARAM(ane_engine_isa_avx512_same_bits_as_avx2, isa_shape_gen_params),
	KUNIT_CASE_PARAM(ane_engine_isa_within_an_ulp_of_sse2, isa_shape_gen_params),
	KUNIT_CASE_PARAM(ane_engine_isa_rows_same_bits_as_sse2, row_isa_gen_params),
	{}
};

static int ane_engine_isa_suite_init(struct kunit_suite *suite)
{
	ane_engine_isa_init();
	return 0;
}

static struct kunit_suite ane_engine_isa_suite = {
	.name = "ane_engine_isa",
	.suite_init = ane_engine_isa_suite_init,
	.test_cases = ane_engine_isa_cases,
};

kunit_test_suite(ane_engine_isa_suite);
