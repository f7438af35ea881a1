// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the compute engine's math (firmware/hw/engine/): every
 * operation against a straightforward double-precision reference, the fp16
 * conversions exhaustively, the activations over a sweep, validation of
 * each class of bad descriptor, and chunked against unchunked execution.
 * Every test that runs an operation runs once per instruction-set path
 * (enum ane_math_isa) this build and CPU have; a path the CPU lacks is
 * reported as skipped.
 *
 * Tolerance of an fp16 result against the exact value r of the same fp16
 * inputs (computed in double):
 *
 *   |got - r| <= 2^-11 |r| (1 + 2^-10)       rounding to fp16, half an ulp
 *             + 2^-24                        fp16 subnormal spacing
 *             + 1.25 (K + 1) 2^-24 S         fp32 accumulation of K terms
 *                                            whose magnitudes sum to S
 *                                            (1.25: activation slopes <= 1.13)
 *             + 4e-6 |r|                     the fp32 exp/tanh/erfc
 *
 * Copyright (C) 2026 The ane authors
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "ane_math.h"
#include "ane_math_impl.h"
#include "engine_rows.h"
#include "libane.h"

/* ------------------------------------------------------------ helpers */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Uniform in [lo, hi). */
static double rngf(double lo, double hi)
{
	return lo + (hi - lo) * (double)(rng() >> 11) / 9007199254740992.0;
}

/* ------------------------------------------------------------ ISA paths */

static const char *const isa_name[ANE_MATH_ISA_COUNT] = {
	[ANE_MATH_ISA_SSE2] = "sse2",
	[ANE_MATH_ISA_AVX2_FMA] = "avx2+fma+f16c",
	[ANE_MATH_ISA_AVX512] = "avx512",
};

/* Why @isa cannot run here, or NULL if it can. */
static const char *isa_missing(uint32_t isa)
{
	if (t_isa_denied(isa_name[isa]))
		return "ANE_TEST_NO_ISA names it";
	if (!ane_math_isa_built(isa))
		return "not built into the engine (not x86_64?)";
	if (isa == ANE_MATH_ISA_AVX2_FMA) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_cpu_init();
		if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
		    !__builtin_cpu_supports("f16c"))
			return "this CPU lacks AVX2, FMA or F16C";
#else
		return "not an x86 CPU";
#endif
	}
	if (isa == ANE_MATH_ISA_AVX512) {
#if defined(__x86_64__)
		__builtin_cpu_init();
		if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
		    !__builtin_cpu_supports("f16c") ||
		    !__builtin_cpu_supports("avx512f") ||
		    !__builtin_cpu_supports("avx512bw") ||
		    !__builtin_cpu_supports("avx512vl"))
			return "this CPU lacks AVX-512 F, BW or VL";
#else
		return "not an x86-64 CPU";
#endif
	}
	return NULL;
}

/* T_RUN with the ISA path in the test's name. */
#define T_RUN_ISA(fn, isa) do { \
	char _tag[32]; \
	snprintf(_tag, sizeof(_tag), " [%s]", isa_name[isa]); \
	if (t_skip_why) { \
		t_skip(#fn, _tag, t_skip_why); \
		break; \
	} \
	t_case_failed = 0; \
	t_case_skipped = NULL; \
	fn(); \
	t_case_end(#fn, _tag); \
} while (0)

static double h2d(uint16_t h)
{
	return ane_fp16_to_fp32(h);
}

static uint16_t d2h(double v)
{
	return ane_fp32_to_fp16((float)v);
}

/* A tensor with its own buffer; pad extra elements after every row. */
struct tt {
	struct ane_tensor t;
	uint16_t *buf;
	size_t elems;
};

#define SENTINEL 0x7bffu	/* 65504, never a result here */

static void tt_alloc(struct tt *x, uint32_t n, uint32_t c, uint32_t h,
		     uint32_t w, uint32_t pad)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	x->t.dim[ANE_N] = n;
	x->t.dim[ANE_C] = c;
	x->t.dim[ANE_H] = h;
	x->t.dim[ANE_W] = w;
	x->t.stride[ANE_W] = 1;
	x->t.stride[ANE_H] = w + pad;
	x->t.stride[ANE_C] = (uint64_t)h * (w + pad);
	x->t.stride[ANE_N] = (uint64_t)c * h * (w + pad);
	x->elems = (size_t)n * c * h * (w + pad);
	x->buf = malloc(x->elems * 2 + 2);
	x->t.base = x->buf;
	x->t.size = x->elems * 2;
	for (i = 0; i < x->elems; i++)
		x->buf[i] = SENTINEL;
}

static size_t t_off(const struct ane_tensor *t, uint32_t n, uint32_t c,
		    uint32_t h, uint32_t w);

/* Random elements; the gaps between rows keep the sentinel. */
static void tt_fill(struct tt *x, double lo, double hi)
{
	uint32_t n, c, h, w;

	for (n = 0; n < x->t.dim[0]; n++)
		for (c = 0; c < x->t.dim[1]; c++)
			for (h = 0; h < x->t.dim[2]; h++)
				for (w = 0; w < x->t.dim[3]; w++)
					x->buf[t_off(&x->t, n, c, h, w)] = d2h(rngf(lo, hi));
}

static void tt_free(struct tt *x)
{
	free(x->buf);
	x->buf = NULL;
}

static size_t t_off(const struct ane_tensor *t, uint32_t n, uint32_t c,
		    uint32_t h, uint32_t w)
{
	/* broadcast: an extent-1 dimension always reads index 0 */
	return (t->dim[0] == 1 ? 0 : n) * t->stride[0] +
	       (t->dim[1] == 1 ? 0 : c) * t->stride[1] +
	       (t->dim[2] == 1 ? 0 : h) * t->stride[2] +
	       (t->dim[3] == 1 ? 0 : w) * t->stride[3];
}

static double tget(const struct ane_tensor *t, uint32_t n, uint32_t c,
		   uint32_t h, uint32_t w)
{
	return h2d(((const uint16_t *)t->base)[t_off(t, n, c, h, w)]);
}

static size_t t_count(const struct ane_tensor *t)
{
	return (size_t)t->dim[0] * t->dim[1] * t->dim[2] * t->dim[3];
}

static double ref_act(uint32_t act, double x)
{
	switch (act) {
	case ANE_ACT_RELU:
		return x < 0 ? 0 : x;
	case ANE_ACT_RELU6:
		return x < 0 ? 0 : x > 6 ? 6 : x;
	case ANE_ACT_SIGMOID:
		return 1 / (1 + exp(-x));
	case ANE_ACT_TANH:
		return tanh(x);
	case ANE_ACT_GELU:
		return 0.5 * x * erfc(-x / sqrt(2.0));
	case ANE_ACT_GELU_TANH:
		return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) *
					   (x + 0.044715 * x * x * x)));
	default:
		return x;
	}
}

static double tolerance(double r, double mag, double k)
{
	return ldexp(fabs(r), -11) * (1 + ldexp(1, -10)) + ldexp(1, -24) +
	       1.25 * (k + 1) * ldexp(1, -24) * mag + 4e-6 * fabs(r);
}

/*
 * Compare every element of @y (dense index order n, c, h, w) with @ref,
 * and check that the gaps between rows still hold the sentinel.
 */
static void check_out(const struct tt *y, const double *ref, const double *mag,
		      double k, const char *what)
{
	const struct ane_tensor *t = &y->t;
	uint32_t n, c, h, w;
	size_t i = 0, bad = 0, j;
	char *touched = calloc(y->elems, 1);

	for (n = 0; n < t->dim[0]; n++)
		for (c = 0; c < t->dim[1]; c++)
			for (h = 0; h < t->dim[2]; h++)
				for (w = 0; w < t->dim[3]; w++, i++) {
					size_t off = t_off(t, n, c, h, w);
					double got = h2d(y->buf[off]);
					double tol = tolerance(ref[i], mag ? mag[i] : fabs(ref[i]), k);
					int ok = isnan(ref[i]) ? isnan(got) :
						 isinf(ref[i]) ? got == ref[i] :
						 fabs(got - ref[i]) <= tol;

					touched[off] = 1;
					if (!ok && bad++ < 5)
						printf("#   %s: [%u,%u,%u,%u] got %.9g want %.9g (tol %.3g)\n",
						       what, n, c, h, w, got, ref[i], tol);
				}
	for (j = 0; j < y->elems; j++)
		if (!touched[j] && y->buf[j] != SENTINEL && bad++ < 5)
			printf("#   %s: gap element %zu overwritten\n", what, j);
	free(touched);
	T_CHECK(bad == 0, "%s: %zu bad elements", what, bad);
}

/* Allocate the workspace, validate, run all chunks; returns validate's code. */
/* @d: @op of @a (and @b) into @y, with @act; every other field zero. */
static void op_desc(struct ane_op_desc *d, uint32_t op, uint32_t act, const struct tt *a,
		    const struct tt *b, const struct tt *y)
{
	memset(d, 0, sizeof(*d));
	d->op = op;
	d->act = act;
	d->src[0] = a->t;
	if (b)
		d->src[1] = b->t;
	d->dst = y->t;
}

/* run_op() that leaves the workspace in d->work (free() it) to be read. */
static int run_op_keep_work(struct ane_op_desc *d)
{
	uint64_t ws = 0;
	int ret = ane_op_workspace_size(d, &ws);

	d->work = NULL;
	if (ret)
		return ret;
	d->work = ws ? aligned_alloc(ANE_MATH_WORK_ALIGN,
				     (ws + ANE_MATH_WORK_ALIGN - 1) /
				     ANE_MATH_WORK_ALIGN * ANE_MATH_WORK_ALIGN) : NULL;
	d->work_size = ws;
	ret = ane_op_validate(d);
	if (!ret)
		ret = ane_op_run_all(d);
	return ret;
}

static int run_op(struct ane_op_desc *d)
{
	int ret = run_op_keep_work(d);

	free(d->work);
	d->work = NULL;
	d->work_size = 0;
	return ret;
}

/* ------------------------------------------------------------ fp16 */

static double fp16_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	if (e == 31)
		v = m ? NAN : INFINITY;
	return (h & 0x8000) ? -v : v;
}

static void test_fp16_all_values_round_trip(void)
{
	uint32_t i, bad = 0;

	for (i = 0; i < 65536; i++) {
		uint16_t h = (uint16_t)i, back;
		float f = ane_fp16_to_fp32(h);
		uint32_t bits;
		double want = fp16_value(h);

		memcpy(&bits, &f, 4);
		/* the FPU path quiets a signalling NaN, as any FP operation would */
		if (bits != (ane_fp16_to_fp32_bits(h) | (isnan(want) ? 0x00400000u : 0)))
			bad++;
		back = ane_fp32_to_fp16(f);
		if (isnan(want)) {
			/* NaN stays NaN, sign and payload kept, made quiet */
			if (!isnan(f) || back != (h | 0x0200))
				bad++;
		} else if ((double)f != want || back != h ||
			   ane_fp16_from_fp32_bits(bits) != h) {
			bad++;
		}
		if (bad && bad < 4 && back != h)
			printf("#   0x%04x -> %g -> 0x%04x\n", h, (double)f, back);
	}
	T_EQ(bad, 0);
}

static uint16_t f2h_of(double v)
{
	return ane_fp32_to_fp16((float)v);
}

static void test_fp16_rounding_ties_and_edges(void)
{
	/* ties go to even */
	T_EQ(f2h_of(1.0 + ldexp(1, -11)), 0x3c00);		/* 1 + half ulp -> 1 */
	T_EQ(f2h_of(1.0 + 3 * ldexp(1, -11)), 0x3c02);	/* -> 1 + 2 ulp */
	T_EQ(f2h_of(1.0 + ldexp(1, -11) + ldexp(1, -20)), 0x3c01);
	T_EQ(f2h_of(-(1.0 + ldexp(1, -11))), 0xbc00);
	/* overflow */
	T_EQ(f2h_of(65504), 0x7bff);
	T_EQ(f2h_of(65519.99), 0x7bff);
	T_EQ(f2h_of(65520), 0x7c00);				/* tie -> even = inf */
	T_EQ(f2h_of(-1e10), 0xfc00);
	T_EQ(f2h_of(INFINITY), 0x7c00);
	T_EQ(f2h_of(-INFINITY), 0xfc00);
	/* subnormals */
	T_EQ(f2h_of(ldexp(1, -24)), 0x0001);
	T_EQ(f2h_of(ldexp(1, -25)), 0x0000);			/* tie -> 0 */
	T_EQ(f2h_of(ldexp(1, -25) * 1.0001), 0x0001);
	T_EQ(f2h_of(ldexp(3, -25)), 0x0002);			/* 1.5 units -> 2 */
	T_EQ(f2h_of(ldexp(5, -25)), 0x0002);			/* 2.5 units -> 2 */
	T_EQ(f2h_of(ldexp(2047, -25)), 0x0400);		/* 1023.5 -> 1024 */
	T_EQ(f2h_of(ldexp(1, -14)), 0x0400);
	T_EQ(f2h_of(-ldexp(1, -30)), 0x8000);
	T_EQ(f2h_of(1e-30), 0x0000);
	T_EQ(f2h_of(-0.0), 0x8000);
	T_EQ(f2h_of(0.0), 0x0000);
	T_CHECK((f2h_of(NAN) & 0x7e00) == 0x7e00, "NaN");
	T_EQ(ane_fp16_from_fp32_bits(0x7f800001u) & 0x7e00, 0x7e00); /* sNaN */
	T_EQ(ane_fp16_to_fp32_bits(0x0001), 0x33800000u);
	T_EQ(ane_fp16_to_fp32_bits(0x03ff), 0x387fc000u);
	T_EQ(ane_fp16_to_fp32_bits(0xfc00), 0xff800000u);
}

/*
 * The FPU conversion (ane_fp32_to_fp16) and the integer one
 * (ane_fp16_from_fp32_bits) agree on a 1-in-61 sample of all 2^32 fp32
 * bit patterns (all of them were checked once by hand, offline).
 */
static void test_fp16_fpu_and_integer_conversions_agree(void)
{
	uint64_t u;
	uint32_t bad = 0;

	for (u = 0; u < (1ull << 32); u += 61) {
		uint32_t bits = (uint32_t)u;
		float f;

		memcpy(&f, &bits, 4);
		if (ane_fp32_to_fp16(f) != ane_fp16_from_fp32_bits(bits) && bad++ < 4)
			printf("#   0x%08x: 0x%04x vs 0x%04x\n", bits,
			       ane_fp32_to_fp16(f), ane_fp16_from_fp32_bits(bits));
	}
	T_EQ(bad, 0);
}

/* Random fp32 inputs: the result is the nearest fp16, ties to even. */
static void test_fp16_rounding_random_is_nearest_even(void)
{
	uint32_t i, bad = 0;

	for (i = 0; i < 400000; i++) {
		uint32_t bits = (uint32_t)rng();
		float f;
		uint16_t h, lo, hi;
		double v, dh, dn;

		/* bias towards the fp16 range: exponents 100 .. 145 */
		bits = (bits & 0x807fffffu) | ((100u + (uint32_t)(rng() % 46)) << 23);
		memcpy(&f, &bits, 4);
		v = f;
		h = ane_fp32_to_fp16(f);
		dh = fp16_value(h);
		if (isinf(dh)) {
			if (fabs(v) < 65520)
				bad++;
			continue;
		}
		/* neighbours of h in magnitude */
		lo = (uint16_t)((h & 0x7fff) ? h - 1 : h);
		hi = (uint16_t)(h + 1);
		if ((h & 0x7fff) == 0)
			lo = h;
		dn = fabs(v - dh);
		if (fabs(v - fp16_value(lo)) < dn ||
		    ((hi & 0x7c00) != 0x7c00 && fabs(v - fp16_value(hi)) < dn))
			bad++;
		/* a tie must land on an even mantissa */
		if ((hi & 0x7c00) != 0x7c00 && fabs(v - fp16_value(hi)) == dn &&
		    (h & 1))
			bad++;
		if ((h & 0x7fff) && fabs(v - fp16_value(lo)) == dn && (h & 1))
			bad++;
#ifdef __FLT16_MAX__
		{	/* the compiler's own conversion as a second reference */
			_Float16 ref = (_Float16)f;
			uint16_t rb;

			memcpy(&rb, &ref, 2);
			if (rb != h)
				bad++;
		}
#endif
	}
	T_EQ(bad, 0);
}

/* ------------------------------------------------------------ activations */

static double rel_err(double got, double want)
{
	if (got == want)
		return 0;
	return fabs(got - want) / fmax(fabs(want), 1e-30);
}

/* The engine's array form of the activations (ane_math_fpu.h, private). */
void ane_act_vec(uint32_t act, float *v, uint32_t n);

/*
 * The four-lane GELU of ane_act_vec() gives ane_act()'s bits on every
 * lane: a dense sweep of fp32 arguments, every fp16 value, and the
 * specials and range edges in every lane position.
 */
static void test_gelu_lanes_match_scalar(void)
{
	static const float edge[] = { -20.0f, 20.0f, -20.000002f, 20.000002f,
		0.0f, -0.0f, 1e-30f, -1e-30f, 1e-45f, -3.4e38f, 3.4e38f,
		-12.0f, -9.3f, -5.5f, 0.5f, -0.5f };
	size_t n = 0, i, bad = 0, cap = 1 << 21;
	float *v = malloc(cap * sizeof(float)), *w = malloc(cap * sizeof(float));
	double x;

	for (x = -25; x <= 25 && n < cap - 65536 - 64; x += 0.00005)
		v[n++] = (float)x;
	for (i = 0; i < 65536; i++)
		v[n++] = (float)h2d((uint16_t)i);
	for (i = 0; i < 4 * (sizeof(edge) / sizeof(edge[0])); i++)
		v[n++] = i % 5 == 0 ? NAN : i % 7 == 0 ? -INFINITY : i % 11 == 0 ?
			 INFINITY : edge[i / 4];
	memcpy(w, v, n * sizeof(float));
	ane_act_vec(ANE_ACT_GELU, w, (uint32_t)n);
	for (i = 0; i < n; i++) {
		float want = ane_act(ANE_ACT_GELU, v[i]);
		uint32_t a, b;

		memcpy(&a, &w[i], 4);
		memcpy(&b, &want, 4);
		if (a != b && !(isnan(w[i]) && isnan(want)) && bad++ < 5)
			printf("#   gelu(%.9g): lanes %.9g (0x%08x), scalar %.9g (0x%08x)\n",
			       v[i], w[i], a, want, b);
	}
	T_CHECK(bad == 0, "%zu of %zu values differ", bad, n);
	free(v);
	free(w);
}

static void test_activation_accuracy_over_a_sweep(void)
{
	double worst[8] = { 0 };
	double x;
	int i;

	for (x = -30; x <= 30; x += 0.00037) {
		float f = (float)x;
		double xd = f;

		if (f > -87 && f < 88)
			worst[0] = fmax(worst[0], rel_err(ane_expf(f), exp(xd)));
		worst[1] = fmax(worst[1], rel_err(ane_tanhf(f), tanh(xd)));
		worst[2] = fmax(worst[2], rel_err(ane_sigmoidf(f), 1 / (1 + exp(-xd))));
		if (xd < 9)
			worst[3] = fmax(worst[3], rel_err(ane_erfcf(f), erfc(xd)));
		/* below -6 the GELU is -0 (test_gelu_accuracy_in_fp32_and_fp16) */
		if (xd >= -6)
			worst[4] = fmax(worst[4], rel_err(ane_act(ANE_ACT_GELU, f),
							  ref_act(ANE_ACT_GELU, xd)));
		/* gelu_tanh(x) = x sigmoid(2u): exact in double, no cancellation */
		{
			double u = sqrt(2 / M_PI) * (xd + 0.044715 * xd * xd * xd);
			double want = xd / (1 + exp(-2 * u));

			if (xd > -12)
				worst[5] = fmax(worst[5], rel_err(ane_act(ANE_ACT_GELU_TANH, f), want));
		}
	}
	/* tiny arguments: the odd polynomials keep their relative accuracy */
	for (i = -40; i < -2; i++) {
		float f = (float)ldexp(1.37, i);

		worst[6] = fmax(worst[6], rel_err(ane_tanhf(f), tanh((double)f)));
		worst[6] = fmax(worst[6], rel_err(ane_tanhf(-f), tanh(-(double)f)));
		worst[6] = fmax(worst[6], rel_err(ane_expf(f), exp((double)f)));
	}
	for (i = 0; i < 7; i++)
		printf("#   activation %d: worst relative error %.3g\n", i, worst[i]);
	T_CHECK(worst[0] <= 1e-6, "expf %.3g", worst[0]);
	T_CHECK(worst[1] <= 1e-6, "tanhf %.3g", worst[1]);
	T_CHECK(worst[2] <= 1e-6, "sigmoid %.3g", worst[2]);
	T_CHECK(worst[3] <= 1e-6, "erfc %.3g", worst[3]);
	T_CHECK(worst[4] <= 1e-6, "gelu %.3g", worst[4]);
	T_CHECK(worst[5] <= 1e-6, "gelu_tanh %.3g", worst[5]);
	T_CHECK(worst[6] <= 1e-6, "tiny %.3g", worst[6]);
}

/*
 * The exact GELU's pieces (ane_gelu_tab): the worst relative error
 * against erfc in double over every 61st fp32 value in (-6, 6), both
 * signs (35 million, every piece and the pieces' edges), and below -6,
 * where it is -0, the exact value under 2^-25 (half of fp16's smallest
 * subnormal).  Then every fp16 input: the fp16 result is the nearest
 * fp16 to the exact value (the float rounded to fp16 of it) except
 * where that lies within 3e-7 of halfway between two fp16 values.
 */
static void test_gelu_accuracy_in_fp32_and_fp16(void)
{
	double worst = 0, wx = 0, e, want, tie;
	uint32_t b, s, h, near = 0, bad = 0;
	float x, got;

	for (b = 0; b < 0x40c00000u; b += 61) {
		for (s = 0; s < 2; s++) {
			uint32_t u = b | (s << 31);

			memcpy(&x, &u, 4);
			want = ref_act(ANE_ACT_GELU, x);
			if (fabs(want) < 0x1p-126)	/* fp32 subnormal */
				continue;
			e = rel_err(ane_act(ANE_ACT_GELU, x), want);
			if (e > worst) {
				worst = e;
				wx = x;
			}
		}
	}
	for (x = -6.0f; x > -40.0f; x -= 0.001f) {
		got = ane_act(ANE_ACT_GELU, x);
		if (got != 0 || !signbit(got) ||
		    fabs(ref_act(ANE_ACT_GELU, x)) >= 0x1p-25)
			bad++;
	}
	for (h = 0; h < 0x10000; h++) {
		uint16_t y, lo;
		double v = h2d((uint16_t)h), w;

		if (v != v || isinf(v))
			continue;
		want = ref_act(ANE_ACT_GELU, v);
		y = ane_fp32_to_fp16(ane_act(ANE_ACT_GELU, (float)v));
		if (y == d2h(want))
			continue;
		/* the two fp16 values around want and their midpoint */
		lo = y < d2h(want) ? y : d2h(want);
		w = h2d(lo) + (h2d((uint16_t)(lo + 1)) - h2d(lo)) / 2;
		tie = fabs(want - w) / fabs(want);
		if (tie < 3e-7)
			near++;
		else if (bad++ < 4)
			printf("#   gelu(%g) = %.9g: fp16 0x%04x, want 0x%04x\n",
			       v, want, y, d2h(want));
	}
	printf("#   gelu: worst relative error %.3g at %.9g; %u fp16 results "
	       "off by one next to a tie\n", worst, wx, near);
	T_CHECK(worst <= 2.5e-7, "gelu %.3g at %.9g", worst, wx);
	T_CHECK(bad == 0, "%u wrong fp16 results or nonzero tails", bad);
}

static void test_activation_extremes_are_finite_and_exact(void)
{
	float inf = INFINITY, big = 1e30f;
	int a;

	T_CHECK(ane_expf(inf) == inf, "exp(inf)");
	T_CHECK(ane_expf(-inf) == 0, "exp(-inf)");
	T_CHECK(ane_expf(100) == inf, "exp(100)");
	T_CHECK(ane_expf(-200) == 0, "exp(-200)");
	T_CHECK(ane_expf(88.7f) < inf && ane_expf(88.7f) > 3e38f, "exp(88.7)");
	T_CHECK(ane_expf(-100) > 0 && rel_err(ane_expf(-100), exp(-100.0)) < 1e-4,
		"subnormal exp");
	T_CHECK(isnan(ane_expf(NAN)), "exp(NaN)");
	T_CHECK(ane_tanhf(big) == 1 && ane_tanhf(-big) == -1, "tanh(+-big)");
	T_CHECK(ane_tanhf(inf) == 1 && ane_tanhf(-inf) == -1, "tanh(+-inf)");
	T_CHECK(ane_sigmoidf(big) == 1 && ane_sigmoidf(-big) == 0, "sigmoid");
	T_CHECK(ane_sigmoidf(inf) == 1 && ane_sigmoidf(-inf) == 0, "sigmoid inf");
	T_CHECK(ane_erfcf(inf) == 0 && ane_erfcf(-inf) == 2, "erfc inf");
	/* (log, sqrt, sin, cos ...: unary_test.c) */
	for (a = 0; a < ANE_ACT_SILU; a++) {
		T_CHECK(!isnan(ane_act(a, big)) && !isnan(ane_act(a, -big)),
			"act %d at +-1e30", a);
		T_CHECK(!isnan(ane_act(a, inf)) && !isnan(ane_act(a, -inf)),
			"act %d at +-inf", a);
		T_CHECK(isnan(ane_act(a, NAN)), "act %d keeps NaN", a);
	}
	T_CHECK(ane_act(ANE_ACT_GELU, -inf) == 0, "gelu(-inf)");
	T_CHECK(ane_act(ANE_ACT_GELU_TANH, inf) == inf, "gelu_tanh(inf)");
	T_CHECK(ane_act(ANE_ACT_RELU6, 7) == 6 && ane_act(ANE_ACT_RELU6, -1) == 0,
		"relu6");
}

/* ------------------------------------------------------------ matmul */

struct mm_case {
	uint32_t n, c, m, k, nn;
	uint32_t an, ac, bn, bc;	/* source batch dims (1 = broadcast) */
	int trans_b;
	uint32_t act;
	uint32_t pad;		/* row padding of every tensor */
};

static void matmul_case(const struct mm_case *mc, const char *what)
{
	struct ane_op_desc d = { 0 };
	struct tt a, b, y;
	double *ref, *mag;
	uint32_t n, c, i, j, k;
	size_t o = 0;

	tt_alloc(&a, mc->an, mc->ac, mc->m, mc->k, mc->pad);
	if (mc->trans_b)
		tt_alloc(&b, mc->bn, mc->bc, mc->nn, mc->k, mc->pad);
	else
		tt_alloc(&b, mc->bn, mc->bc, mc->k, mc->nn, mc->pad);
	tt_alloc(&y, mc->n, mc->c, mc->m, mc->nn, mc->pad);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	d.op = ANE_OP_MATMUL;
	d.act = mc->act;
	d.src[0] = a.t;
	d.src[1] = b.t;
	d.dst = y.t;
	d.p.matmul.flags = mc->trans_b ? ANE_MATMUL_TRANS_B : 0;
	T_EQ(run_op(&d), 0);

	ref = calloc(t_count(&y.t), sizeof(double));
	mag = calloc(t_count(&y.t), sizeof(double));
	for (n = 0; n < mc->n; n++)
		for (c = 0; c < mc->c; c++)
			for (i = 0; i < mc->m; i++)
				for (j = 0; j < mc->nn; j++, o++) {
					double s = 0, s_abs = 0;

					for (k = 0; k < mc->k; k++) {
						double bv = mc->trans_b ? tget(&b.t, n, c, j, k) :
									  tget(&b.t, n, c, k, j);
						double v = tget(&a.t, n, c, i, k) * bv;

						s += v;
						s_abs += fabs(v);
					}
					ref[o] = ref_act(mc->act, s);
					mag[o] = s_abs;
				}
	check_out(&y, ref, mag, mc->k, what);
	free(ref);
	free(mag);
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);
}

static void test_matmul_small_and_odd_shapes(void)
{
	static const struct mm_case cases[] = {
		{ 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0 },
		{ 1, 1, 5, 3, 7, 1, 1, 1, 1, 0, 0, 0 },
		{ 1, 1, 6, 8, 8, 1, 1, 1, 1, 0, 0, 0 },
		{ 1, 1, 13, 29, 17, 1, 1, 1, 1, 0, 0, 3 },
		{ 1, 1, 64, 300, 70, 1, 1, 1, 1, 0, 0, 0 },
		{ 1, 1, 7, 1, 33, 1, 1, 1, 1, 0, 0, 1 },
		/* several row blocks of packed A (mc < M) */
		{ 1, 1, 300, 600, 20, 1, 1, 1, 1, 0, 0, 0 },
		/* the longest K: minimal row block, B panels over the cap */
		{ 1, 1, 7, ANE_MATH_MAX_REDUCE, 9, 1, 1, 1, 1, 1, 0, 0 },
		/* AVX-512: depth-blocked 12 x 32 tiles and every edge shape */
		{ 1, 1, 25, 1030, 70, 1, 1, 1, 1, 0, ANE_ACT_RELU6, 0 },
		/*
		 * Small M, A packed once (one A block, several B blocks):
		 * B packed row by row on the AVX-512 path (a block of at
		 * least 64 columns, one with a partial panel), rows with a
		 * stride; then batched, A repacked for each problem.
		 */
		{ 1, 1, 50, 300, 75, 1, 1, 1, 1, 0, 0, 3 },
		{ 1, 1, 50, 700, 400, 1, 1, 1, 1, 0, 0, 2 },
		{ 2, 3, 20, 520, 300, 1, 3, 2, 1, 0, ANE_ACT_GELU, 5 },
	};
	unsigned int i;
	char name[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "matmul case %u", i);
		matmul_case(&cases[i], name);
	}
}

/*
 * One output of a MATMUL as the current ISA path must compute it: one fp32
 * chain over k = 0 .. K - 1 from zero -- a rounded product then a rounded
 * sum on SSE2, one fused multiply-add per k on the AVX paths -- rounded
 * once to fp16.  Not contracted, whatever the compiler's default.
 */
__attribute__((optimize("fp-contract=off")))
static uint16_t chain_fp16(const struct ane_tensor *a,
			   const struct ane_tensor *b, int tb, uint32_t n,
			   uint32_t c, uint32_t i, uint32_t j, uint32_t K,
			   int fma)
{
	float s = 0.0f;
	uint32_t k;

	for (k = 0; k < K; k++) {
		float av = (float)tget(a, n, c, i, k);
		float bv = (float)(tb ? tget(b, n, c, j, k) : tget(b, n, c, k, j));

		if (fma) {
			s = fmaf(av, bv, s);
		} else {
			float p = av * bv;

			s = s + p;
		}
	}
	return ane_fp32_to_fp16(s);
}

/*
 * The small-M deep MATMUL runs in depth blocks (ANE_KB_KC), the fp32
 * partial sums waiting in the workspace between them: bit for bit the
 * single k-ordered chain of every output, on every ISA path, in one
 * chunk per block part or many; odd M, N and K, three B blocks in a C
 * block, a last depth block of 4 k, a transposed B, two problems; and
 * with a bias and an activation, the
 * bits of the plain MATMUL followed by an ELTWISE ADD (the epilogue runs
 * only after the last depth block).
 */
static void test_matmul_depth_blocks_are_one_fp32_chain(void)
{
	/* M K N, B transposed, problems */
	static const uint32_t sh[][5] = {
		{ 131, 2101, 300, 0, 1 }, { 61, 4100, 40, 0, 1 },
		{ 100, 2700, 33, 1, 1 }, { 40, 7000, 35, 0, 2 },
	};
	static const uint64_t works[2] = { 0, 3000 };
	int fma = ane_math_get_isa() != ANE_MATH_ISA_SSE2;
	struct tt a, b, y, bias, p, y2;
	struct ane_op_desc d;
	struct ane_plan pl;
	uint32_t s, w, n, i, j;
	uint16_t *want;
	size_t bad, o;

	for (s = 0; s < sizeof(sh) / sizeof(sh[0]); s++) {
		uint32_t M = sh[s][0], K = sh[s][1], N = sh[s][2], tb = sh[s][3];
		uint32_t np = sh[s][4];

		tt_alloc(&a, 1, np, M, K, 1);
		if (tb)
			tt_alloc(&b, 1, np, N, K, 3);
		else
			tt_alloc(&b, 1, np, K, N, 3);
		tt_alloc(&y, 1, np, M, N, 2);
		tt_fill(&a, -1, 1);
		tt_fill(&b, -1, 1);
		want = malloc((size_t)np * M * N * sizeof(*want));
		for (o = 0, n = 0; n < np; n++)
			for (i = 0; i < M; i++)
				for (j = 0; j < N; j++, o++)
					want[o] = chain_fp16(&a.t, &b.t, tb, 0, n, i, j, K, fma);
		for (w = 0; w < 2; w++) {
			op_desc(&d, ANE_OP_MATMUL, 0, &a, &b, &y);
			d.p.matmul.flags = tb ? ANE_MATMUL_TRANS_B : 0;
			d.chunk_work = works[w];
			ane_plan_make(&d, &pl);
			T_CHECK(pl.kind == ANE_PLAN_GEMM && pl.kblocks > 1 &&
				pl.mblocks == 1 && pl.kc % ANE_KB_UNIT == 0 &&
				(uint64_t)pl.kc * (pl.kblocks - 1) < K &&
				(uint64_t)pl.kc * pl.kblocks >= K,
				"shape %u: depth blocks (%u of %u)", s, pl.kblocks, pl.kc);
			T_CHECK(s != 1 || K - pl.kc * (pl.kblocks - 1) == 4,
				"shape 1: a last depth block of 4 k");
			T_CHECK(s != 0 || (pl.nblocks == 3 && pl.nbc == 3),
				"shape 0: three B blocks in one C block (%u, %u)",
				pl.nblocks, pl.nbc);
			T_EQ(run_op(&d), 0);
			bad = 0;
			for (o = 0, n = 0; n < np; n++)
				for (i = 0; i < M; i++)
					for (j = 0; j < N; j++, o++) {
						uint16_t got = y.buf[t_off(&y.t, 0, n, i, j)];

						if (got != want[o] && bad++ < 3)
							printf("#   shape %u work %u: (%u, %u, %u) 0x%04x, the chain 0x%04x\n",
							       s, w, n, i, j, got, want[o]);
					}
			T_CHECK(bad == 0, "shape %u work %u: %zu outputs not the k-ordered chain",
				s, w, bad);
		}
		/* with a bias (one per column) and GELU: MATMUL, then ADD */
		tt_alloc(&bias, 1, 1, 1, N, 0);
		tt_fill(&bias, -2, 2);
		tt_alloc(&p, 1, np, M, N, 0);
		tt_alloc(&y2, 1, np, M, N, 2);
		op_desc(&d, ANE_OP_MATMUL, ANE_ACT_GELU, &a, &b, &y);
		d.p.matmul.flags = tb ? ANE_MATMUL_TRANS_B : 0;
		d.bias = bias.t;
		d.chunk_work = 5000;
		T_EQ(run_op(&d), 0);
		op_desc(&d, ANE_OP_MATMUL, 0, &a, &b, &p);
		d.p.matmul.flags = tb ? ANE_MATMUL_TRANS_B : 0;
		T_EQ(run_op(&d), 0);
		op_desc(&d, ANE_OP_ELTWISE, ANE_ACT_GELU, &p, &bias, &y2);
		T_EQ(run_op(&d), 0);
		T_CHECK(!memcmp(y.buf, y2.buf, y.elems * 2),
			"shape %u: the bias epilogue is not MATMUL + ADD", s);
		tt_free(&bias);
		tt_free(&p);
		tt_free(&y2);
		free(want);
		tt_free(&a);
		tt_free(&b);
		tt_free(&y);
	}
}

static void test_matmul_batched_broadcast_transposed_fused(void)
{
	static const struct mm_case cases[] = {
		{ 2, 3, 9, 11, 10, 2, 3, 2, 3, 0, 0, 0 },
		{ 2, 3, 9, 11, 10, 1, 3, 2, 1, 0, 0, 2 },	/* broadcast */
		{ 3, 1, 14, 19, 13, 3, 1, 3, 1, 1, 0, 1 },	/* B^T */
		{ 1, 2, 12, 40, 9, 1, 2, 1, 1, 1, ANE_ACT_RELU, 0 },
		{ 1, 1, 8, 33, 16, 1, 1, 1, 1, 0, ANE_ACT_GELU, 0 },
		{ 1, 1, 8, 33, 16, 1, 1, 1, 1, 0, ANE_ACT_SIGMOID, 0 },
		/* whole 16-column panels and a partial one, vector-stored */
		{ 1, 1, 13, 37, 48, 1, 1, 1, 1, 0, ANE_ACT_RELU6, 0 },
		{ 2, 1, 7, 20, 35, 2, 1, 1, 1, 0, ANE_ACT_RELU, 2 },
		{ 1, 1, 11, 17, 40, 1, 1, 1, 1, 1, ANE_ACT_TANH, 1 },
	};
	unsigned int i;
	char name[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "batched case %u", i);
		matmul_case(&cases[i], name);
	}
}

/*
 * Views the packers and the stores must not take for dense: A stored
 * k-major (a transposed view), the destination transposed (its W stride is
 * not 1), with a bias-free fused ReLU.
 */
static void test_matmul_transposed_a_and_dst(void)
{
	static const uint32_t shapes[][3] = { { 19, 27, 21 }, { 12, 40, 48 } };
	unsigned int si;

	for (si = 0; si < 2; si++) {
		uint32_t m = shapes[si][0], k = shapes[si][1], n = shapes[si][2];
		struct ane_op_desc d = { 0 };
		struct tt a, b, y, yv;
		double *ref = calloc((size_t)m * n, sizeof(double));
		double *mag = calloc((size_t)m * n, sizeof(double));
		uint32_t i, j, l;
		uint64_t t;

		tt_alloc(&a, 1, 1, k, m, 1);		/* A^T in memory */
		tt_alloc(&b, 1, 1, k, n, 0);
		tt_alloc(&y, 1, 1, n, m, 3);		/* Y^T in memory */
		tt_fill(&a, -1, 1);
		tt_fill(&b, -1, 1);
		d.op = ANE_OP_MATMUL;
		d.act = ANE_ACT_RELU;
		d.src[0] = a.t;
		d.src[0].dim[ANE_H] = m;
		d.src[0].dim[ANE_W] = k;
		t = d.src[0].stride[ANE_H];
		d.src[0].stride[ANE_H] = d.src[0].stride[ANE_W];
		d.src[0].stride[ANE_W] = t;
		d.src[1] = b.t;
		yv = y;
		yv.t.dim[ANE_H] = m;
		yv.t.dim[ANE_W] = n;
		t = yv.t.stride[ANE_H];
		yv.t.stride[ANE_H] = yv.t.stride[ANE_W];
		yv.t.stride[ANE_W] = t;
		d.dst = yv.t;
		T_EQ(run_op(&d), 0);
		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++) {
				double sum = 0, sa = 0;

				for (l = 0; l < k; l++) {
					double v = tget(&d.src[0], 0, 0, i, l) *
						   tget(&b.t, 0, 0, l, j);

					sum += v;
					sa += fabs(v);
				}
				ref[i * n + j] = ref_act(ANE_ACT_RELU, sum);
				mag[i * n + j] = sa;
			}
		check_out(&yv, ref, mag, k, si ? "transposed views 1" :
						 "transposed views 0");
		free(ref);
		free(mag);
		tt_free(&a);
		tt_free(&b);
		tt_free(&y);
	}
}

/*
 * Every fp16 value through the GEMM's vectorised packing and back: B as a
 * 1 x 65536 row times A = [1] (each output is 1 * b, exact, NaN stays NaN
 * and quiet, -0 becomes +0),
 * and every finite value as A (7936 x 8) times the 8 x 8 identity.
 */
static void test_matmul_packs_every_fp16_value(void)
{
	struct ane_op_desc d;
	uint16_t one = 0x3c00, *b = malloc(65536 * 2), *y = malloc(65536 * 2);
	uint16_t *a = malloc(63488 * 2), eye[64] = { 0 };
	uint32_t i, n = 0, bad = 0;

	for (i = 0; i < 65536; i++)
		b[i] = (uint16_t)i;
	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_MATMUL;
	ane_tensor_dense(&d.src[0], &one, 1, 1, 1, 1);
	ane_tensor_dense(&d.src[1], b, 1, 1, 1, 65536);
	ane_tensor_dense(&d.dst, y, 1, 1, 1, 65536);
	T_EQ(run_op(&d), 0);
	for (i = 0; i < 65536; i++) {
		double want = fp16_value((uint16_t)i);

		/* the accumulators start at +0, so -0 comes out as +0 */
		if ((isnan(want) ? y[i] != (i | 0x200) :
		     want == 0 ? (y[i] & 0x7fff) != 0 : y[i] != i) && bad++ < 4)
			printf("#   0x%04x -> 0x%04x\n", i, y[i]);
	}
	T_EQ(bad, 0);

	for (i = 0; i < 65536; i++)
		if ((i & 0x7c00) != 0x7c00)
			a[n++] = (uint16_t)i;
	T_EQ(n, 63488);
	for (i = 0; i < 8; i++)
		eye[i * 9] = 0x3c00;
	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_MATMUL;
	ane_tensor_dense(&d.src[0], a, 1, 1, n / 8, 8);
	ane_tensor_dense(&d.src[1], eye, 1, 1, 8, 8);
	ane_tensor_dense(&d.dst, y, 1, 1, n / 8, 8);
	T_EQ(run_op(&d), 0);
	for (i = 0, bad = 0; i < n; i++)
		if (fp16_value(y[i]) != fp16_value(a[i]) && bad++ < 4)	/* -0 == +0 */
			printf("#   0x%04x -> 0x%04x\n", a[i], y[i]);
	T_EQ(bad, 0);
	free(a);
	free(b);
	free(y);
}

/* ------------------------------------------------------------ conv */

struct conv_case {
	uint32_t n, cin, h, w, cout, kh, kw;
	uint32_t sh, sw, dh, dw, pt, pb, pl, pr, groups;
	int bias;
	uint32_t act;
	uint32_t pad;		/* row padding of every tensor */
	uint32_t spec;		/* CONV_SPEC_*: IEEE special values placed */
	uint64_t chunk;		/* chunk_work; 0 for the default */
};

/* conv_case.spec: where conv_specials() puts infinities and NaNs. */
#define CONV_SPEC_W_INF	(1u << 0)	/* +inf, -inf weights in corner taps */
#define CONV_SPEC_W_NAN	(1u << 1)	/* NaN weights in an edge tap */
#define CONV_SPEC_X_INF	(1u << 2)	/* +-inf inputs, and some zero weights */
#define CONV_SPEC_X_NAN	(1u << 3)	/* NaN inputs, one signalling */

#define H_PINF	0x7c00u
#define H_NINF	0xfc00u
#define H_QNAN	0x7e00u
#define H_SNAN	0xfd01u		/* signalling, negative */

/*
 * Put the special values of @cc->spec into the random data: channel co
 * gets, by co % 4, a +inf weight in its top-left tap (which reads the top
 * and left padding), a -inf one in its bottom-right tap (bottom, right
 * padding), a NaN one in its middle-left tap, or nothing (a finite channel
 * next to the others) but, with CONV_SPEC_X_INF, a zero top-left tap (so
 * that inf * 0 occurs over real inputs).  Inputs get infinities on the
 * borders and NaNs inside.
 */
static void conv_specials(const struct conv_case *cc, struct tt *x, struct tt *w)
{
	uint32_t cin_g = cc->cin / cc->groups, co, n, c;

	for (co = 0; co < cc->cout; co++) {
		uint32_t ci = co % cin_g;

		switch (co % 4) {
		case 0:
			if (cc->spec & CONV_SPEC_W_INF)
				w->buf[t_off(&w->t, co, ci, 0, 0)] = H_PINF;
			break;
		case 1:
			if (cc->spec & CONV_SPEC_W_INF)
				w->buf[t_off(&w->t, co, ci, cc->kh - 1, cc->kw - 1)] = H_NINF;
			break;
		case 2:
			if (cc->spec & CONV_SPEC_W_NAN)
				w->buf[t_off(&w->t, co, ci, cc->kh / 2, 0)] = H_QNAN;
			break;
		default:
			if (cc->spec & CONV_SPEC_X_INF)
				w->buf[t_off(&w->t, co, ci, 0, 0)] = 0;
			break;
		}
	}
	for (n = 0; n < cc->n; n++)
		for (c = 0; c < cc->cin; c++) {
			if (cc->spec & CONV_SPEC_X_INF) {
				x->buf[t_off(&x->t, n, c, 0, c % cc->w)] =
					c % 2 ? H_NINF : H_PINF;
				x->buf[t_off(&x->t, n, c, cc->h - 1, cc->w - 1)] = H_PINF;
			}
			if ((cc->spec & CONV_SPEC_X_NAN) && c % 3 == 0)
				x->buf[t_off(&x->t, n, c, cc->h / 2, cc->w / 2)] =
					c % 2 ? H_SNAN : H_QNAN;
		}
}

static void conv_case(const struct conv_case *cc, const char *what)
{
	struct ane_op_desc d = { 0 };
	struct tt x, w, b, y;
	uint32_t ho = (cc->h + cc->pt + cc->pb - (cc->dh * (cc->kh - 1) + 1)) / cc->sh + 1;
	uint32_t wo = (cc->w + cc->pl + cc->pr - (cc->dw * (cc->kw - 1) + 1)) / cc->sw + 1;
	uint32_t cin_g = cc->cin / cc->groups, cout_g = cc->cout / cc->groups;
	uint32_t n, co, oh, ow, ci, kh, kw;
	double *ref, *mag;
	size_t o = 0;

	tt_alloc(&x, cc->n, cc->cin, cc->h, cc->w, cc->pad);
	tt_alloc(&w, cc->cout, cin_g, cc->kh, cc->kw, cc->pad);	/* not dense if pad */
	tt_alloc(&y, cc->n, cc->cout, ho, wo, cc->pad);
	tt_fill(&x, -1, 1);
	tt_fill(&w, -1, 1);
	conv_specials(cc, &x, &w);
	d.op = ANE_OP_CONV;
	d.act = cc->act;
	d.chunk_work = cc->chunk;
	d.src[0] = x.t;
	d.src[1] = w.t;
	d.dst = y.t;
	if (cc->bias) {
		tt_alloc(&b, 1, cc->cout, 1, 1, 0);
		tt_fill(&b, -1, 1);
		d.bias = b.t;
	}
	d.p.conv = (struct ane_conv_params){
		.stride = { cc->sh, cc->sw }, .dilation = { cc->dh, cc->dw },
		.pad = { cc->pt, cc->pb, cc->pl, cc->pr }, .groups = cc->groups,
	};
	T_EQ(run_op(&d), 0);

	ref = calloc(t_count(&y.t), sizeof(double));
	mag = calloc(t_count(&y.t), sizeof(double));
	for (n = 0; n < cc->n; n++)
		for (co = 0; co < cc->cout; co++)
			for (oh = 0; oh < ho; oh++)
				for (ow = 0; ow < wo; ow++, o++) {
					uint32_t g = co / cout_g;
					double s = cc->bias ? tget(&b.t, 0, co, 0, 0) : 0;
					double s_abs = fabs(s);

					for (ci = 0; ci < cin_g; ci++)
						for (kh = 0; kh < cc->kh; kh++)
							for (kw = 0; kw < cc->kw; kw++) {
								long ih = (long)oh * cc->sh - cc->pt + (long)kh * cc->dh;
								long iw = (long)ow * cc->sw - cc->pl + (long)kw * cc->dw;
								double xv = 0, v;

								/* zero padding: a padded tap adds w * 0 */
								if (ih >= 0 && ih < cc->h && iw >= 0 && iw < cc->w)
									xv = tget(&x.t, n, g * cin_g + ci, ih, iw);
								v = xv * tget(&w.t, co, ci, kh, kw);
								s += v;
								s_abs += fabs(v);
							}
					ref[o] = ref_act(cc->act, s);
					mag[o] = s_abs;
				}
	check_out(&y, ref, mag, cin_g * cc->kh * cc->kw + 1, what);
	free(ref);
	free(mag);
	tt_free(&x);
	tt_free(&w);
	tt_free(&y);
	if (cc->bias)
		tt_free(&b);
}

/* n cin h w cout kh kw, sh sw dh dw, pt pb pl pr, groups bias act pad */
#define CONV(...) ((struct conv_case){ __VA_ARGS__, 0, 0 })

static void test_conv_1x1_and_kxk(void)
{
	/* n cin h w cout kh kw | sh sw dh dw | pt pb pl pr | groups bias act pad */
	struct conv_case cases[] = {
		CONV(1, 3, 5, 7, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0),
		CONV(1, 16, 9, 9, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 2),
		CONV(1, 3, 8, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0),
		CONV(2, 5, 11, 13, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, ANE_ACT_RELU, 1),
		CONV(1, 4, 9, 10, 6, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, ANE_ACT_TANH, 0),
		CONV(1, 1, 6, 6, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0),
		CONV(1, 7, 1, 1, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0),
		/* a network-sized layer: several chunks at the default size */
		CONV(1, 32, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_RELU, 0),
		/* rows wider than a 16-column panel, vector-stored and not */
		CONV(1, 8, 6, 40, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_RELU6, 0),
		CONV(2, 6, 3, 37, 10, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1),
		/*
		 * Deep (K >= 512: depth-blocked on AVX-512) with rows narrower
		 * than a panel: two to four row segments per 16 columns
		 * (masked loads and stores), and more than four (AVX2 packer).
		 */
		CONV(1, 70, 9, 11, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_RELU, 0),
		CONV(1, 600, 5, 3, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0),
		CONV(1, 64, 7, 5, 26, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1),
	};
	unsigned int i;
	char name[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "conv case %u", i);
		conv_case(&cases[i], name);
	}
}

static void test_conv_stride_padding_dilation(void)
{
	struct conv_case cases[] = {
		CONV(1, 4, 12, 11, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0),
		CONV(2, 3, 13, 9, 5, 3, 3, 2, 1, 1, 1, 1, 0, 2, 1, 1, 0, 0, 3),
		CONV(1, 3, 14, 14, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 0, 0),
		CONV(1, 2, 10, 9, 7, 2, 4, 3, 2, 1, 2, 1, 0, 3, 2, 1, 1, ANE_ACT_RELU6, 0),
		CONV(1, 3, 7, 7, 4, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 1, 0, 0, 0),
		/*
		 * Stride 2 along rows of 16 outputs and more (the AVX-512
		 * packer's even-lane loads): a 3 x 3 padded and dilated, a
		 * 7 x 7 stem, a 1 x 1 shortcut, odd widths and pads that
		 * cut a panel at either edge.
		 */
		CONV(1, 3, 9, 41, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0),
		CONV(1, 4, 11, 47, 6, 3, 3, 2, 2, 2, 2, 2, 1, 2, 3, 1, 1, 0, 0),
		CONV(2, 3, 20, 69, 8, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, 1, ANE_ACT_RELU, 0),
		CONV(1, 8, 6, 66, 8, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, 0, 2),
	};
	unsigned int i;
	char name[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "conv stride case %u", i);
		conv_case(&cases[i], name);
	}
}

static void test_conv_groups_and_depthwise(void)
{
	struct conv_case cases[] = {
		/* grouped: Cout/groups = 4 and 6 (GEMM) */
		CONV(1, 8, 7, 7, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 0, 0),
		CONV(2, 6, 9, 8, 18, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3, 1, ANE_ACT_GELU_TANH, 1),
		/* depthwise, multiplier 1 and 2 (direct path) and 3 (GEMM) */
		CONV(1, 5, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, 1, 0, 0),
		CONV(2, 4, 10, 10, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4, 1, ANE_ACT_RELU, 2),
		CONV(1, 3, 8, 9, 6, 5, 3, 1, 2, 2, 1, 4, 3, 1, 2, 3, 0, 0, 0),
		CONV(1, 3, 8, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 0, 0),
		CONV(1, 7, 16, 15, 7, 3, 3, 1, 1, 3, 3, 3, 3, 3, 3, 7, 1, ANE_ACT_SIGMOID, 0),
	};
	unsigned int i;
	char name[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "group case %u", i);
		conv_case(&cases[i], name);
	}
}

/*
 * IEEE special values in convolutions, on the direct path (at most two
 * output channels per group) and on the GEMM, padded and not: infinite
 * and NaN weights and inputs against the reference above, in which a
 * padded tap adds weight * 0 -- NaN for an infinite or NaN weight, as
 * PyTorch's zero padding gives.  Each case runs with the default chunks
 * and with tiny ones, which cut the direct path's rows into segments that
 * read padding and segments that do not.
 */
static void test_conv_ieee_specials(void)
{
	/* n cin h w cout kh kw | sh sw dh dw | pt pb pl pr | groups bias act pad */
	static const struct conv_case cases[] = {
		/* direct: depthwise multiplier 1 and 2, Cout 2 over 3 Cin */
		CONV(1, 5, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, 1, 0, 0),
		CONV(2, 4, 10, 10, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4, 1, ANE_ACT_RELU, 2),
		CONV(1, 4, 12, 13, 4, 3, 3, 1, 1, 2, 2, 2, 1, 2, 3, 4, 0, 0, 0),
		CONV(1, 3, 7, 8, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_SIGMOID, 0),
		CONV(1, 4, 6, 37, 4, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 4, 1, 0, 0),
		CONV(1, 5, 8, 9, 5, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 5, 1, 0, 0),
		/* GEMM: kxk, strided and dilated, grouped, depthwise x3, wide */
		CONV(1, 3, 8, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0),
		CONV(1, 3, 14, 14, 8, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 0, 1),
		CONV(1, 8, 7, 7, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, ANE_ACT_RELU, 0),
		CONV(1, 3, 8, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 0, 0),
		CONV(1, 8, 6, 40, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_RELU, 0),
		/* GEMM unpadded: kxk and 1x1 */
		CONV(1, 4, 9, 10, 6, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0),
		CONV(2, 6, 5, 7, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1),
	};
	static const uint32_t specs[] = {
		CONV_SPEC_W_INF, CONV_SPEC_W_NAN, CONV_SPEC_X_INF | CONV_SPEC_X_NAN,
		CONV_SPEC_W_INF | CONV_SPEC_W_NAN | CONV_SPEC_X_INF | CONV_SPEC_X_NAN,
	};
	unsigned int i, j, k;
	char name[48];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (j = 0; j < sizeof(specs) / sizeof(specs[0]); j++)
			for (k = 0; k < 2; k++) {
				struct conv_case cc = cases[i];

				cc.spec = specs[j];
				cc.chunk = k ? 64 : 0;
				snprintf(name, sizeof(name),
					 "ieee case %u spec %#x chunk %llu", i,
					 cc.spec, (unsigned long long)cc.chunk);
				conv_case(&cc, name);
			}
}

/*
 * The case the engine used to get wrong, spelt out: a depthwise 3x3 with
 * padding 1 whose only non-finite weight is +inf in the top-left tap.
 * Outputs in the top row and left column read padding through that tap
 * (inf * 0: NaN); the others read a real input (+-inf, by its sign).
 * The same convolution with four output channels per group runs as a
 * GEMM, and both give the same NaN pattern.
 */
static void test_conv_inf_weight_over_padding_is_nan(void)
{
	uint32_t mult;

	for (mult = 1; mult <= 4; mult += 3) {	/* direct, then GEMM */
		struct ane_op_desc d = { 0 };
		struct tt x, w, y;
		uint32_t c, oh, ow, i;

		tt_alloc(&x, 1, 2, 4, 5, 0);
		tt_alloc(&w, 2 * mult, 1, 3, 3, 0);
		tt_alloc(&y, 1, 2 * mult, 4, 5, 0);
		for (i = 0; i < x.elems; i++)
			x.buf[i] = 0x3c00;		/* 1 */
		for (i = 0; i < w.elems; i++)
			w.buf[i] = 0x3800;		/* 0.5 */
		for (c = 0; c < 2 * mult; c++)
			w.buf[t_off(&w.t, c, 0, 0, 0)] = H_PINF;
		d.op = ANE_OP_CONV;
		d.src[0] = x.t;
		d.src[1] = w.t;
		d.dst = y.t;
		d.p.conv = (struct ane_conv_params){ .stride = { 1, 1 },
			.dilation = { 1, 1 }, .pad = { 1, 1, 1, 1 }, .groups = 2 };
		T_EQ(run_op(&d), 0);
		for (c = 0; c < 2 * mult; c++)
			for (oh = 0; oh < 4; oh++)
				for (ow = 0; ow < 5; ow++) {
					uint16_t got = y.buf[t_off(&y.t, 0, c, oh, ow)];

					if (oh == 0 || ow == 0)
						T_CHECK(isnan(h2d(got)),
							"mult %u [%u,%u,%u]: 0x%04x, want NaN",
							mult, c, oh, ow, got);
					else
						T_CHECK(got == H_PINF,
							"mult %u [%u,%u,%u]: 0x%04x, want +inf",
							mult, c, oh, ow, got);
				}
		tt_free(&x);
		tt_free(&w);
		tt_free(&y);
	}
}

/*
 * libane's CPU reference executor (ane_net_reference()) follows the same
 * rule: a convolution net with infinite and NaN weights over zero padding,
 * run by the reference and by the engine on the same fp16 data, gives NaN
 * and infinity in the same places and the same finite values (within the
 * fp16 tolerance).  Direct (depthwise) and GEMM shapes.
 */
static void test_conv_ieee_reference_agrees(void)
{
	static const struct { uint32_t cin, cout, groups; } shapes[] = {
		{ 4, 4, 4 }, { 3, 8, 1 },
	};
	unsigned int s;

	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		uint32_t cin = shapes[s].cin, cout = shapes[s].cout;
		uint32_t groups = shapes[s].groups, cin_g = cin / groups;
		uint32_t H = 6, W = 7, nx = cin * H * W, nw = cout * cin_g * 9;
		uint32_t ny = cout * H * W, i, bad = 0;
		struct ane_net_conv_params cp = { .pad_top = 1, .pad_bottom = 1,
			.pad_left = 1, .pad_right = 1, .groups = groups };
		struct ane_net *net = NULL;
		struct ane_op_desc d = { 0 };
		float *xf = calloc(nx, sizeof(float)), *wf = calloc(nw, sizeof(float));
		float *ref = calloc(ny, sizeof(float));
		const float *ins[1] = { xf };
		float *outs[1] = { ref };
		struct tt x, w, y;
		int xi, wi;

		tt_alloc(&x, 1, cin, H, W, 0);
		tt_alloc(&w, cout, cin_g, 3, 3, 0);
		tt_alloc(&y, 1, cout, H, W, 0);
		tt_fill(&x, -1, 1);
		tt_fill(&w, -1, 1);
		w.buf[t_off(&w.t, 0, 0, 0, 0)] = H_PINF;
		w.buf[t_off(&w.t, 1, 0, 2, 2)] = H_NINF;
		w.buf[t_off(&w.t, 2, cin_g - 1, 1, 0)] = H_QNAN;
		x.buf[t_off(&x.t, 0, cin - 1, 2, 3)] = H_PINF;	/* a real inf input */
		for (i = 0; i < nx; i++)
			xf[i] = (float)h2d(x.buf[i]);
		for (i = 0; i < nw; i++)
			wf[i] = (float)h2d(w.buf[i]);

		T_EQ(ane_net_create(&net), 0);
		xi = ane_net_input(net, "x", 1, cin, H, W);
		wi = ane_net_const(net, "w", cout, cin_g, 3, 3, wf);
		ane_net_output(net, ane_net_conv(net, xi, wi, -1, &cp));
		T_CHECK(ane_net_reference(net, ins, outs) == 0, "reference: %s",
			ane_net_errmsg(net));

		d.op = ANE_OP_CONV;
		d.src[0] = x.t;
		d.src[1] = w.t;
		d.dst = y.t;
		d.p.conv = (struct ane_conv_params){ .stride = { 1, 1 },
			.dilation = { 1, 1 }, .pad = { 1, 1, 1, 1 },
			.groups = groups };
		T_EQ(run_op(&d), 0);
		for (i = 0; i < ny; i++) {
			double got = h2d(y.buf[i]), want = ref[i];
			int ok = isnan(want) ? isnan(got) : isinf(want) ? got == want :
				 fabs(got - want) <= ldexp(fabs(want), -9) + 1e-3;

			if (!ok && bad++ < 5)
				printf("#   shape %u: element %u: engine %g, reference %g\n",
				       s, i, got, want);
		}
		T_CHECK(bad == 0, "shape %u: %u elements differ", s, bad);
		/* and the padded outputs of channel 0 are NaN in both */
		T_CHECK(isnan(ref[0]) && isnan(h2d(y.buf[0])), "shape %u: [0,0,0,0]", s);
		ane_net_destroy(net);
		tt_free(&x);
		tt_free(&w);
		tt_free(&y);
		free(xf);
		free(wf);
		free(ref);
	}
}

/* A 1x1 convolution is the matmul W (Cout x Cin) * X (Cin x HW). */
static void test_conv_1x1_is_matmul(void)
{
	struct ane_op_desc cd = { 0 }, md = { 0 };
	struct tt x, w, y1, y2;
	uint32_t cin = 19, cout = 23, h = 5, wd = 7;

	tt_alloc(&x, 1, cin, h, wd, 0);
	tt_alloc(&w, cout, cin, 1, 1, 0);
	tt_alloc(&y1, 1, cout, h, wd, 0);
	tt_alloc(&y2, 1, 1, cout, h * wd, 0);
	tt_fill(&x, -2, 2);
	tt_fill(&w, -2, 2);
	cd.op = ANE_OP_CONV;
	cd.src[0] = x.t;
	cd.src[1] = w.t;
	cd.dst = y1.t;
	cd.p.conv = (struct ane_conv_params){ .stride = { 1, 1 },
		.dilation = { 1, 1 }, .groups = 1 };
	T_EQ(run_op(&cd), 0);
	md.op = ANE_OP_MATMUL;
	ane_tensor_dense(&md.src[0], w.buf, 1, 1, cout, cin);
	ane_tensor_dense(&md.src[1], x.buf, 1, 1, cin, h * wd);
	md.dst = y2.t;
	T_EQ(run_op(&md), 0);
	T_CHECK(!memcmp(y1.buf, y2.buf, y1.elems * 2), "conv 1x1 != matmul");
	tt_free(&x);
	tt_free(&w);
	tt_free(&y1);
	tt_free(&y2);
}

/* ------------------------------------------------------------ eltwise */

static double ref_elt(uint32_t op, double a, double b)
{
	switch (op) {
	case ANE_ELT_ADD:
		return a + b;
	case ANE_ELT_SUB:
		return a - b;
	case ANE_ELT_MUL:
		return a * b;
	case ANE_ELT_MAX:
		return a > b ? a : b;
	case ANE_ELT_DIV:
		return a / b;
	case ANE_ELT_POW:
		return pow(a, b);
	default:
		return a < b ? a : b;
	}
}

static void eltwise_case(uint32_t op, uint32_t act, const uint32_t ad[4],
			 const uint32_t bd[4], const uint32_t yd[4], int inplace,
			 const char *what)
{
	struct ane_op_desc d = { 0 };
	struct tt a, b, y;
	double *ref, *mag;
	uint32_t n, c, h, w;
	size_t o = 0;

	tt_alloc(&a, ad[0], ad[1], ad[2], ad[3], 1);
	tt_alloc(&b, bd[0], bd[1], bd[2], bd[3], 0);
	tt_fill(&a, -3, 3);
	tt_fill(&b, -3, 3);
	tt_alloc(&y, yd[0], yd[1], yd[2], yd[3], 1);
	if (inplace)
		memcpy(y.buf, a.buf, a.elems * 2);	/* same shape as a */
	d.op = ANE_OP_ELTWISE;
	d.act = act;
	d.src[0] = inplace ? y.t : a.t;
	d.src[1] = b.t;
	d.dst = y.t;
	d.p.eltwise.op = op;
	T_EQ(run_op(&d), 0);
	ref = calloc(t_count(&y.t), sizeof(double));
	mag = calloc(t_count(&y.t), sizeof(double));
	for (n = 0; n < yd[0]; n++)
		for (c = 0; c < yd[1]; c++)
			for (h = 0; h < yd[2]; h++)
				for (w = 0; w < yd[3]; w++, o++) {
					double av = tget(&a.t, n, c, h, w), bv = tget(&b.t, n, c, h, w);

					ref[o] = ref_act(act, ref_elt(op, av, bv));
					mag[o] = op == ANE_ELT_MUL ? fabs(av * bv) : fabs(av) + fabs(bv);
					if (op >= ANE_ELT_DIV) {	/* one rounding */
						mag[o] = fabs(ref[o]);
						if (mag[o] >= 65520)	/* fp16 overflow */
							ref[o] = copysign(INFINITY, ref[o]);
					}
				}
	check_out(&y, ref, mag, 1, what);
	free(ref);
	free(mag);
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);
}

static void test_eltwise_ops_with_broadcasting(void)
{
	static const uint32_t full[4] = { 2, 3, 5, 7 }, chan[4] = { 1, 3, 1, 1 };
	static const uint32_t scal[4] = { 1, 1, 1, 1 }, row[4] = { 2, 1, 5, 7 };
	static const uint32_t col[4] = { 1, 1, 1, 7 };
	uint32_t op;
	char name[40];

	for (op = 0; op < ANE_ELT_COUNT; op++) {
		snprintf(name, sizeof(name), "elt %u full", op);
		eltwise_case(op, 0, full, full, full, 0, name);
		snprintf(name, sizeof(name), "elt %u per-channel", op);
		eltwise_case(op, 0, full, chan, full, 0, name);
		snprintf(name, sizeof(name), "elt %u scalar", op);
		eltwise_case(op, 0, full, scal, full, 0, name);
	}
	/* both operands broadcast, in different dimensions */
	eltwise_case(ANE_ELT_ADD, 0, row, chan, full, 0, "elt row+chan");
	eltwise_case(ANE_ELT_MUL, 0, chan, col, full, 0, "elt chan*col");
	eltwise_case(ANE_ELT_ADD, ANE_ACT_RELU, full, chan, full, 0, "elt fused relu");
	eltwise_case(ANE_ELT_MUL, ANE_ACT_TANH, full, scal, full, 0, "elt fused tanh");
	eltwise_case(ANE_ELT_SUB, 0, full, chan, full, 1, "elt in place");
}

static void test_eltwise_max_min_propagate_nan(void)
{
	struct ane_op_desc d = { 0 };
	struct tt a, b, y;
	uint32_t op;

	for (op = ANE_ELT_MAX; op <= ANE_ELT_MIN; op++) {
		tt_alloc(&a, 1, 1, 1, 4, 0);
		tt_alloc(&b, 1, 1, 1, 4, 0);
		tt_alloc(&y, 1, 1, 1, 4, 0);
		a.buf[0] = 0x7e00; b.buf[0] = 0x3c00;	/* NaN, 1 */
		a.buf[1] = 0x3c00; b.buf[1] = 0x7e00;	/* 1, NaN */
		a.buf[2] = 0xfc00; b.buf[2] = 0x3c00;	/* -inf, 1 */
		a.buf[3] = 0x7c00; b.buf[3] = 0xbc00;	/* inf, -1 */
		memset(&d, 0, sizeof(d));
		d.op = ANE_OP_ELTWISE;
		d.src[0] = a.t;
		d.src[1] = b.t;
		d.dst = y.t;
		d.p.eltwise.op = op;
		T_EQ(run_op(&d), 0);
		T_CHECK(isnan(h2d(y.buf[0])) && isnan(h2d(y.buf[1])), "op %u NaN", op);
		T_EQ(y.buf[2], op == ANE_ELT_MAX ? 0x3c00 : 0xfc00);
		T_EQ(y.buf[3], op == ANE_ELT_MAX ? 0x7c00 : 0xbc00);
		tt_free(&a);
		tt_free(&b);
		tt_free(&y);
	}
}

/*
 * Random fp16 bits with the specials mixed in: NaN, infinities, zeros of
 * both signs, subnormals, the largest finite values.
 */
static uint16_t rnd_special(void)
{
	static const uint16_t sp[] = { 0x7e00, 0xfe01, 0x7c00, 0xfc00, 0x0000,
				       0x8000, 0x0001, 0x83ff, 0x7bff, 0xfbff };
	uint64_t r = rng();

	if (r % 8 == 0)
		return sp[(r >> 8) % (sizeof(sp) / sizeof(sp[0]))];
	return d2h(rngf(-8, 8));
}

/*
 * Run @d on @isa, then on SSE2, into @y; both outputs' bits must agree,
 * but for which NaN a NaN is (when both operands of a product are NaNs,
 * the one the CPU passes on depends on the compiler's operand order).
 */
static void same_bits_as_sse2(struct ane_op_desc *d, struct tt *y, uint32_t isa,
			      const char *what)
{
	uint16_t *first = malloc(y->elems * 2);
	size_t i, bad = 0;

	for (i = 0; i < y->elems; i++)
		y->buf[i] = SENTINEL;
	T_EQ(ane_math_set_isa(isa), 0);
	T_EQ(run_op(d), 0);
	memcpy(first, y->buf, y->elems * 2);
	for (i = 0; i < y->elems; i++)
		y->buf[i] = SENTINEL;
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
	T_EQ(run_op(d), 0);
	for (i = 0; i < y->elems; i++)
		if (first[i] != y->buf[i] &&
		    !(isnan(h2d(first[i])) && isnan(h2d(y->buf[i]))) && bad++ < 3)
			printf("#   %s: element %zu: 0x%04x on the wide path, 0x%04x on SSE2\n",
			       what, i, first[i], y->buf[i]);
	T_CHECK(bad == 0, "%s: %zu elements differ from SSE2", what, bad);
	T_EQ(ane_math_set_isa(isa), 0);
	free(first);
}

/*
 * The ELTWISE, ACT and softmax rows run eight values a step on the wide
 * paths (ane_math_rows_avx2.c): the same bits as SSE2's, specials
 * included, for every operation and activation, whole groups of eight
 * and the tail, full, per-row and scalar second operands, and in place.
 */
static void test_rows_same_bits_on_every_path(void)
{
	static const uint32_t bshape[3][4] = { { 2, 3, 4, 45 }, { 1, 3, 1, 45 },
					       { 1, 1, 1, 1 } };
	uint32_t isa = ane_math_get_isa(), op, act, k;
	struct ane_op_desc d;
	struct tt a, b, y;
	char what[64];
	size_t i;

	if (isa == ANE_MATH_ISA_SSE2)
		return;		/* the reference path itself */
	tt_alloc(&a, 2, 3, 4, 45, 3);
	tt_alloc(&y, 2, 3, 4, 45, 3);
	for (i = 0; i < a.elems; i++)
		a.buf[i] = rnd_special();
	for (k = 0; k < 3; k++) {
		tt_alloc(&b, bshape[k][0], bshape[k][1], bshape[k][2], bshape[k][3], 0);
		for (i = 0; i < b.elems; i++)
			b.buf[i] = rnd_special();
		for (op = 0; op < ANE_ELT_COUNT; op++)
			for (act = 0; act < ANE_ACT_FIRST_PARAM; act++) {
				op_desc(&d, ANE_OP_ELTWISE, act, &a, &b, &y);
				d.p.eltwise.op = op;
				snprintf(what, sizeof(what), "eltwise %u act %u b %u", op, act, k);
				same_bits_as_sse2(&d, &y, isa, what);
			}
		tt_free(&b);
	}
	for (act = 0; act < ANE_ACT_COUNT; act++) {
		op_desc(&d, ANE_OP_ACT, act, &a, NULL, &y);
		if (ane_act_is_parametric(act)) {
			d.p.act.alpha = 0x3f000000u;	/* 0.5 */
			d.p.act.beta = 0x3fc00000u;	/* 1.5 */
		}
		snprintf(what, sizeof(what), "act %u", act);
		same_bits_as_sse2(&d, &y, isa, what);
	}
	/* in place: dst is src[0] */
	memcpy(y.buf, a.buf, a.elems * 2);
	op_desc(&d, ANE_OP_ACT, ANE_ACT_GELU, &y, NULL, &y);
	T_EQ(ane_math_set_isa(isa), 0);
	T_EQ(run_op(&d), 0);
	memcpy(a.buf, y.buf, y.elems * 2);
	op_desc(&d, ANE_OP_ACT, ANE_ACT_NONE, &y, NULL, &y);
	T_EQ(run_op(&d), 0);
	T_CHECK(!memcmp(a.buf, y.buf, y.elems * 2), "in place");
	/* softmax over W: rows with NaN, infinities and all -inf among them */
	for (i = 0; i < a.elems; i++)
		a.buf[i] = rng() % 4 ? d2h(rngf(-12, 12)) : rnd_special();
	for (i = 0; i < 45; i++)
		a.buf[i] = 0xfc00;
	op_desc(&d, ANE_OP_NORM, 0, &a, NULL, &y);
	d.p.norm.kind = ANE_NORM_SOFTMAX;
	same_bits_as_sse2(&d, &y, isa, "softmax over W");
	tt_free(&a);
	tt_free(&y);
}

/*
 * MATMUL with a bias: act(fp16(A B) + bias), the same bits as a plain
 * MATMUL followed by an ELTWISE ADD with the activation, for biases that
 * broadcast in every way, transposed B, batches, one chunk or many.
 */
static void test_matmul_bias_epilogue_matches_matmul_then_add(void)
{
	static const uint32_t bsh[][4] = {
		{ 1, 1, 1, 70 }, { 1, 3, 1, 70 }, { 2, 3, 13, 70 }, { 1, 1, 13, 1 },
		{ 1, 1, 1, 1 },
	};
	static const uint32_t acts[] = { ANE_ACT_NONE, ANE_ACT_RELU, ANE_ACT_GELU,
					 ANE_ACT_SIGMOID };
	struct tt a, bm, bt, bias, y, p, y2;
	struct ane_op_desc d;
	uint32_t k, j, tr, chunky;
	char what[80];

	tt_alloc(&a, 2, 3, 13, 40, 1);
	tt_alloc(&bm, 1, 3, 40, 70, 2);
	tt_alloc(&bt, 1, 3, 70, 40, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&bm, -1, 1);
	tt_fill(&bt, -1, 1);
	tt_alloc(&y, 2, 3, 13, 70, 1);
	tt_alloc(&p, 2, 3, 13, 70, 0);
	tt_alloc(&y2, 2, 3, 13, 70, 1);
	for (k = 0; k < sizeof(bsh) / sizeof(bsh[0]); k++) {
		tt_alloc(&bias, bsh[k][0], bsh[k][1], bsh[k][2], bsh[k][3], 0);
		tt_fill(&bias, -2, 2);
		for (j = 0; j < sizeof(acts) / sizeof(acts[0]); j++)
			for (tr = 0; tr < 2; tr++)
				for (chunky = 0; chunky < 2; chunky++) {
					snprintf(what, sizeof(what), "bias %u act %u trans %u chunks %u",
						 k, acts[j], tr, chunky);
					/* fused */
					op_desc(&d, ANE_OP_MATMUL, acts[j], &a, tr ? &bt : &bm, &y);
					d.p.matmul.flags = tr ? ANE_MATMUL_TRANS_B : 0;
					d.bias = bias.t;
					d.chunk_work = chunky ? 2000 : 0;
					T_CHECK(run_op(&d) == 0, "%s: run", what);
					T_CHECK(!chunky || ane_op_chunks(&d) > 8, "%s: chunks", what);
					/* MATMUL, then ELTWISE ADD */
					op_desc(&d, ANE_OP_MATMUL, 0, &a, tr ? &bt : &bm, &p);
					d.p.matmul.flags = tr ? ANE_MATMUL_TRANS_B : 0;
					T_EQ(run_op(&d), 0);
					op_desc(&d, ANE_OP_ELTWISE, acts[j], &p, &bias, &y2);
					T_EQ(run_op(&d), 0);
					T_CHECK(!memcmp(y.buf, y2.buf, y.elems * 2),
						"%s: not the bits of MATMUL + ADD", what);
				}
		tt_free(&bias);
	}
	/* refused: a bias that does not broadcast onto dst, or overlaps it */
	op_desc(&d, ANE_OP_MATMUL, 0, &a, &bm, &y);
	tt_alloc(&bias, 1, 1, 1, 71, 0);
	d.bias = bias.t;
	T_EQ(run_op(&d), -ANE_MATH_EINVAL);
	tt_free(&bias);
	tt_alloc(&bias, 1, 1, 2, 70, 0);
	d.bias = bias.t;
	T_EQ(run_op(&d), -ANE_MATH_EINVAL);
	tt_free(&bias);
	tt_alloc(&bias, 3, 1, 1, 70, 0);
	d.bias = bias.t;
	T_EQ(run_op(&d), -ANE_MATH_EINVAL);
	d.bias = y.t;
	d.bias.dim[ANE_N] = d.bias.dim[ANE_C] = d.bias.dim[ANE_H] = 1;
	T_EQ(run_op(&d), -ANE_MATH_EINVAL);
	d.bias = bias.t;
	d.bias.dim[ANE_N] = 1;
	d.bias.size = 138;	/* one element short */
	T_EQ(run_op(&d), -ANE_MATH_ENOSPC);
	d.bias.base = NULL;	/* absent, yet not all zero */
	T_EQ(run_op(&d), -ANE_MATH_EINVAL);
	tt_free(&bias);
	tt_free(&a);
	tt_free(&bm);
	tt_free(&bt);
	tt_free(&y);
	tt_free(&p);
	tt_free(&y2);
}

/* ------------------------------------------------------------ act */

static void test_activation_op_all_kinds(void)
{
	uint32_t act;

	/* the activations of image minor version 4: unary_test.c */
	for (act = 0; act < ANE_ACT_SILU; act++) {
		struct ane_op_desc d = { 0 };
		struct tt x, y;
		double *ref;
		uint32_t n, c, h, w;
		size_t o = 0;
		char name[32];

		tt_alloc(&x, 2, 3, 4, 37, 2);
		tt_alloc(&y, 2, 3, 4, 37, 1);
		tt_fill(&x, -12, 12);
		x.buf[0] = 0x7c00;	/* inf */
		x.buf[1] = 0xfc00;	/* -inf */
		x.buf[2] = 0x7bff;	/* 65504 */
		x.buf[3] = 0xfbff;	/* -65504 */
		x.buf[4] = 0x0001;	/* smallest subnormal */
		d.op = ANE_OP_ACT;
		d.act = act;
		d.src[0] = x.t;
		d.dst = y.t;
		T_EQ(run_op(&d), 0);
		ref = calloc(t_count(&y.t), sizeof(double));
		for (n = 0; n < 2; n++)
			for (c = 0; c < 3; c++)
				for (h = 0; h < 4; h++)
					for (w = 0; w < 37; w++, o++) {
						double v = tget(&x.t, n, c, h, w);

						ref[o] = ref_act(act, v);
						if (isinf(v) && (act == ANE_ACT_GELU ||
								 act == ANE_ACT_GELU_TANH))
							ref[o] = v > 0 ? v : 0;
						if (ref[o] == 0)	/* -0 and +0 compare equal */
							ref[o] = 0;
					}
		snprintf(name, sizeof(name), "act %u", act);
		check_out(&y, ref, NULL, 0, name);
		free(ref);
		tt_free(&x);
		tt_free(&y);
	}
}

/* ------------------------------------------------------------ pool */

struct pool_case {
	uint32_t n, c, h, w, kind, flags, kh, kw, sh, sw, pt, pb, pl, pr;
};

static void pool_case(const struct pool_case *pc, const char *what)
{
	struct ane_op_desc d = { 0 };
	struct tt x, y;
	uint32_t ho = (pc->h + pc->pt + pc->pb - pc->kh) / pc->sh + 1;
	uint32_t wo = (pc->w + pc->pl + pc->pr - pc->kw) / pc->sw + 1;
	uint32_t n, c, oh, ow, i, j;
	double *ref, *mag;
	size_t o = 0;

	tt_alloc(&x, pc->n, pc->c, pc->h, pc->w, 1);
	tt_alloc(&y, pc->n, pc->c, ho, wo, 2);
	tt_fill(&x, -5, 5);
	d.op = ANE_OP_POOL;
	d.src[0] = x.t;
	d.dst = y.t;
	d.p.pool = (struct ane_pool_params){ .kind = pc->kind, .flags = pc->flags,
		.kernel = { pc->kh, pc->kw }, .stride = { pc->sh, pc->sw },
		.pad = { pc->pt, pc->pb, pc->pl, pc->pr } };
	T_EQ(run_op(&d), 0);
	ref = calloc(t_count(&y.t), sizeof(double));
	mag = calloc(t_count(&y.t), sizeof(double));
	for (n = 0; n < pc->n; n++)
		for (c = 0; c < pc->c; c++)
			for (oh = 0; oh < ho; oh++)
				for (ow = 0; ow < wo; ow++, o++) {
					double mx = -INFINITY, s = 0, s_abs = 0;
					int cnt = 0;

					for (i = 0; i < pc->kh; i++)
						for (j = 0; j < pc->kw; j++) {
							long ih = (long)oh * pc->sh - pc->pt + i;
							long iw = (long)ow * pc->sw - pc->pl + j;
							double v;

							if (ih < 0 || ih >= pc->h || iw < 0 || iw >= pc->w)
								continue;
							v = tget(&x.t, n, c, ih, iw);
							mx = v > mx ? v : mx;
							s += v;
							s_abs += fabs(v);
							cnt++;
						}
					if (pc->kind == ANE_POOL_MAX) {
						ref[o] = mx;
						mag[o] = 0;
					} else {
						int div = pc->flags ? (int)(pc->kh * pc->kw) : cnt;

						ref[o] = s / div;
						mag[o] = s_abs / div + fabs(ref[o]);
					}
				}
	check_out(&y, ref, mag, pc->kh * pc->kw, what);
	free(ref);
	free(mag);
	tt_free(&x);
	tt_free(&y);
}

static void test_pool_max_and_average(void)
{
	static const struct pool_case cases[] = {
		{ 1, 2, 8, 8, ANE_POOL_MAX, 0, 2, 2, 2, 2, 0, 0, 0, 0 },
		{ 2, 3, 9, 11, ANE_POOL_MAX, 0, 3, 3, 2, 2, 1, 1, 1, 1 },
		{ 1, 2, 7, 7, ANE_POOL_MAX, 0, 3, 2, 1, 2, 2, 0, 1, 1 },
		{ 1, 2, 8, 8, ANE_POOL_AVG, 0, 2, 2, 2, 2, 0, 0, 0, 0 },
		{ 2, 3, 9, 11, ANE_POOL_AVG, 0, 3, 3, 2, 2, 1, 1, 1, 1 },
		{ 2, 3, 9, 11, ANE_POOL_AVG, ANE_POOL_AVG_INCLUDE_PAD, 3, 3, 2, 2, 1, 1, 1, 1 },
		{ 1, 4, 5, 6, ANE_POOL_AVG, 0, 5, 6, 1, 1, 0, 0, 0, 0 },	/* global */
		{ 1, 1, 13, 10, ANE_POOL_AVG, 0, 4, 3, 3, 2, 3, 2, 1, 2 },
	};
	unsigned int i;
	char name[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "pool case %u", i);
		pool_case(&cases[i], name);
	}
}

/* ------------------------------------------------------------ softmax */

static void softmax_case(uint32_t n, uint32_t c, uint32_t h, uint32_t w,
			 double lo, double hi, int inplace, const char *what)
{
	struct ane_op_desc d = { 0 };
	struct tt x, y;
	double *ref;
	uint32_t in, ic, ih, iw;
	size_t o;
	double worst_sum = 0;

	tt_alloc(&x, n, c, h, w, 1);
	tt_fill(&x, lo, hi);
	tt_alloc(&y, n, c, h, w, 1);
	if (inplace)
		memcpy(y.buf, x.buf, x.elems * 2);
	d.op = ANE_OP_SOFTMAX;
	d.src[0] = inplace ? y.t : x.t;
	d.dst = y.t;
	T_EQ(run_op(&d), 0);
	ref = calloc(t_count(&y.t), sizeof(double));
	for (in = 0; in < n; in++)
		for (ih = 0; ih < h; ih++)
			for (iw = 0; iw < w; iw++) {
				double mx = -INFINITY, s = 0, got = 0;

				for (ic = 0; ic < c; ic++)
					mx = fmax(mx, tget(&x.t, in, ic, ih, iw));
				for (ic = 0; ic < c; ic++)
					s += exp(tget(&x.t, in, ic, ih, iw) - mx);
				for (ic = 0; ic < c; ic++) {
					o = (((size_t)in * c + ic) * h + ih) * w + iw;
					ref[o] = exp(tget(&x.t, in, ic, ih, iw) - mx) / s;
					got += tget(&y.t, in, ic, ih, iw);
				}
				worst_sum = fmax(worst_sum, fabs(got - 1));
			}
	/* each output within half an fp16 ulp, so the sum within 2^-11 */
	T_CHECK(worst_sum <= ldexp(1, -11) + c * ldexp(1, -24),
		"%s: sum off by %g", what, worst_sum);
	check_out(&y, ref, NULL, c, what);
	free(ref);
	tt_free(&x);
	tt_free(&y);
}

static void test_softmax_sums_to_one_and_is_stable(void)
{
	softmax_case(1, 10, 1, 1, -4, 4, 0, "softmax 10");
	softmax_case(2, 37, 3, 5, -8, 8, 0, "softmax 37");
	softmax_case(1, 1, 2, 3, -8, 8, 0, "softmax 1");
	/* large values would overflow exp() without the max subtraction */
	softmax_case(1, 16, 2, 2, 30000, 65000, 0, "softmax large");
	softmax_case(1, 16, 2, 2, -65000, -30000, 0, "softmax very negative");
	softmax_case(2, 9, 2, 7, -3, 3, 1, "softmax in place");
}

/* ------------------------------------------------------------ norm over W */

/*
 * ANE_OP_NORM of an [n, c, h, w] tensor whose rows have @pad elements of
 * gap (which must stay untouched), against a double reference: each
 * output within the fp16 rounding plus the fp32 sums over the row (the
 * mean's error scaled by 1 / std for a layer normalization).
 */
static void norm_case(uint32_t kind, uint32_t n, uint32_t c, uint32_t h,
		      uint32_t w, double lo, double hi, int inplace,
		      const char *what)
{
	struct ane_op_desc d = { 0 };
	uint32_t in, ic, ih, iw;
	double *ref, *mag;
	struct tt x, y;
	size_t o = 0;

	tt_alloc(&x, n, c, h, w, inplace ? 0 : 3);
	tt_fill(&x, lo, hi);
	tt_alloc(&y, n, c, h, w, inplace ? 0 : 3);
	if (inplace)
		memcpy(y.buf, x.buf, x.elems * 2);
	d.op = ANE_OP_NORM;
	d.p.norm.kind = kind;
	d.src[0] = inplace ? y.t : x.t;
	d.dst = y.t;
	T_EQ(run_op(&d), 0);
	ref = calloc(t_count(&y.t), sizeof(double));
	mag = calloc(t_count(&y.t), sizeof(double));
	for (in = 0; in < n; in++)
		for (ic = 0; ic < c; ic++)
			for (ih = 0; ih < h; ih++) {
				double a = kind == ANE_NORM_SOFTMAX ? -INFINITY : 0;
				double s = 0, big = 0;

				for (iw = 0; iw < w; iw++) {
					double v = tget(&x.t, in, ic, ih, iw);

					a = kind == ANE_NORM_SOFTMAX ? fmax(a, v) : a + v;
					big = fmax(big, fabs(v));
				}
				if (kind == ANE_NORM_LAYER)
					a /= w;
				for (iw = 0; iw < w; iw++) {
					double v = tget(&x.t, in, ic, ih, iw) - a;

					s += kind == ANE_NORM_SOFTMAX ? exp(v) : v * v;
				}
				if (kind == ANE_NORM_LAYER)
					s = sqrt(s / w + 1e-5);
				for (iw = 0; iw < w; iw++, o++) {
					double v = tget(&x.t, in, ic, ih, iw) - a;

					ref[o] = kind == ANE_NORM_SOFTMAX ? exp(v) / s : v / s;
					mag[o] = fabs(ref[o]) + (kind == ANE_NORM_LAYER ?
								 2 * big / s : 0);
				}
			}
	check_out(&y, ref, mag, w, what);
	free(ref);
	free(mag);
	tt_free(&x);
	tt_free(&y);
}

static void test_norm_over_w_softmax_and_layer(void)
{
	norm_case(ANE_NORM_SOFTMAX, 2, 3, 4, 37, -8, 8, 0, "softmax over W 37");
	norm_case(ANE_NORM_SOFTMAX, 1, 1, 3, 1, -8, 8, 0, "softmax over W 1");
	norm_case(ANE_NORM_SOFTMAX, 1, 2, 2, 16, 30000, 65000, 0, "softmax over W large");
	norm_case(ANE_NORM_SOFTMAX, 2, 2, 3, 9, -3, 3, 1, "softmax over W in place");
	norm_case(ANE_NORM_LAYER, 2, 3, 4, 37, -8, 8, 0, "layer norm 37");
	norm_case(ANE_NORM_LAYER, 1, 1, 5, 512, -2, 2, 0, "layer norm 512");
	norm_case(ANE_NORM_LAYER, 1, 2, 3, 64, 100, 104, 0, "layer norm offset");
	norm_case(ANE_NORM_LAYER, 1, 1, 2, 1, -8, 8, 0, "layer norm 1");
	norm_case(ANE_NORM_LAYER, 2, 2, 3, 9, -3, 3, 1, "layer norm in place");
}

/* A constant row normalizes to zeros; a NaN or infinity makes NaNs. */
static void test_norm_over_w_specials(void)
{
	struct ane_op_desc d = { 0 };
	struct tt x, y;
	uint32_t i;

	tt_alloc(&x, 1, 1, 3, 8, 0);
	tt_alloc(&y, 1, 1, 3, 8, 0);
	for (i = 0; i < 24; i++)
		x.buf[i] = 0x4200;		/* 3.0 */
	x.buf[8 + 5] = 0x7e00;			/* row 1: a NaN */
	x.buf[16 + 2] = 0x7c00;			/* row 2: +inf */
	d.op = ANE_OP_NORM;
	d.p.norm.kind = ANE_NORM_LAYER;
	d.src[0] = x.t;
	d.dst = y.t;
	T_EQ(run_op(&d), 0);
	for (i = 0; i < 8; i++)
		T_EQ(y.buf[i], 0);
	for (i = 8; i < 24; i++)
		T_CHECK(isnan(h2d(y.buf[i])), "layer norm [%u] = %g", i, h2d(y.buf[i]));
	d.p.norm.kind = ANE_NORM_SOFTMAX;
	T_EQ(run_op(&d), 0);
	for (i = 0; i < 8; i++)
		T_EQ(y.buf[i], 0x3000);		/* 1/8 */
	for (i = 8; i < 24; i++)
		T_CHECK(isnan(h2d(y.buf[i])), "softmax [%u] = %g", i, h2d(y.buf[i]));
	tt_free(&x);
	tt_free(&y);
}

/* ------------------------------------------------------------ chunking */

static void chunk_compare(struct ane_op_desc *d, struct tt *y, const char *what)
{
	static const uint64_t works[] = { 1, 5000, 0, 1ull << 62 };
	uint16_t *first = NULL;
	uint64_t counts[4], i;
	unsigned int k;

	for (k = 0; k < 4; k++) {
		uint64_t ws = 0;

		d->chunk_work = works[k];
		T_EQ(ane_op_workspace_size(d, &ws), 0);
		d->work_size = ws;
		d->work = ws ? aligned_alloc(ANE_MATH_WORK_ALIGN,
					     (ws + 63) / 64 * 64) : NULL;
		memset(y->buf, 0x55, y->elems * 2);
		if (ane_op_validate(d)) {
			T_CHECK(0, "%s: descriptor rejected", what);
			free(d->work);
			free(first);
			return;
		}
		counts[k] = ane_op_chunks(d);
		/* the kernel's loop: one FPU section per chunk */
		for (i = 0; i < counts[k]; i++)
			T_EQ(ane_op_run(d, i), 0);
		T_EQ(ane_op_run(d, counts[k]), (uint64_t)-ANE_MATH_EINVAL);
		free(d->work);
		d->work = NULL;
		if (!first) {
			first = malloc(y->elems * 2);
			memcpy(first, y->buf, y->elems * 2);
		} else {
			T_CHECK(!memcmp(first, y->buf, y->elems * 2),
				"%s: chunk_work %llu differs", what,
				(unsigned long long)works[k]);
		}
	}
	printf("#   %s: %llu / %llu / %llu / %llu chunks\n", what,
	       (unsigned long long)counts[0], (unsigned long long)counts[1],
	       (unsigned long long)counts[2], (unsigned long long)counts[3]);
	T_CHECK(counts[0] > counts[3] && counts[3] >= 1, "%s: chunking", what);
	free(first);
	d->chunk_work = 0;
	d->work_size = 0;
}

static void test_chunked_is_bit_identical_to_unchunked(void)
{
	struct ane_op_desc d;
	struct tt a, b, y;

	/* matmul: several row and column blocks */
	tt_alloc(&a, 1, 2, 150, 90, 0);
	tt_alloc(&b, 1, 2, 90, 131, 0);
	tt_alloc(&y, 1, 2, 150, 131, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_MATMUL, ANE_ACT_GELU, &a, &b, &y);
	chunk_compare(&d, &y, "matmul");
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);

	/* conv GEMM with a long K (several row blocks of A) */
	tt_alloc(&a, 2, 64, 12, 12, 0);
	tt_alloc(&b, 40, 64, 3, 3, 0);
	tt_alloc(&y, 2, 40, 6, 6, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_CONV, ANE_ACT_NONE, &a, &b, &y);
	d.p.conv = (struct ane_conv_params){ .stride = { 2, 2 },
		.dilation = { 1, 1 }, .pad = { 1, 0, 1, 0 }, .groups = 1 };
	chunk_compare(&d, &y, "conv");
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);

	/* depthwise (direct) */
	tt_alloc(&a, 2, 6, 9, 9, 0);
	tt_alloc(&b, 6, 1, 3, 3, 0);
	tt_alloc(&y, 2, 6, 9, 9, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_CONV, ANE_ACT_NONE, &a, &b, &y);
	d.p.conv = (struct ane_conv_params){ .stride = { 1, 1 },
		.dilation = { 1, 1 }, .pad = { 1, 1, 1, 1 }, .groups = 6 };
	chunk_compare(&d, &y, "depthwise");
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);

	/* direct path with stride, dilation, asymmetric padding, multiplier 2 */
	tt_alloc(&a, 1, 4, 11, 13, 1);
	tt_alloc(&b, 8, 1, 3, 3, 0);
	tt_alloc(&y, 1, 8, 5, 4, 2);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_CONV, ANE_ACT_RELU6, &a, &b, &y);
	d.p.conv = (struct ane_conv_params){ .stride = { 2, 3 },
		.dilation = { 2, 2 }, .pad = { 1, 2, 3, 0 }, .groups = 4 };
	chunk_compare(&d, &y, "depthwise strided");
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);

	/* eltwise, pool, softmax */
	tt_alloc(&a, 2, 5, 7, 9, 0);
	tt_alloc(&b, 1, 5, 1, 1, 0);
	tt_alloc(&y, 2, 5, 7, 9, 0);
	tt_fill(&a, -2, 2);
	tt_fill(&b, -2, 2);
	op_desc(&d, ANE_OP_ELTWISE, ANE_ACT_SIGMOID, &a, &b, &y);
	d.p.eltwise.op = ANE_ELT_MUL;
	chunk_compare(&d, &y, "eltwise");
	tt_free(&y);
	memset(&d, 0, sizeof(d));
	tt_alloc(&y, 2, 5, 4, 5, 0);
	d.op = ANE_OP_POOL;
	d.src[0] = a.t;
	d.dst = y.t;
	d.p.pool = (struct ane_pool_params){ .kind = ANE_POOL_AVG,
		.kernel = { 3, 3 }, .stride = { 2, 2 }, .pad = { 1, 1, 1, 1 } };
	chunk_compare(&d, &y, "pool");
	tt_free(&y);
	memset(&d, 0, sizeof(d));
	tt_alloc(&y, 2, 5, 7, 9, 0);
	d.op = ANE_OP_SOFTMAX;
	d.src[0] = a.t;
	d.dst = y.t;
	chunk_compare(&d, &y, "softmax");
	d.op = ANE_OP_NORM;
	d.p.norm.kind = ANE_NORM_LAYER;
	chunk_compare(&d, &y, "layer norm");
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);
}

/*
 * Run @d whole, then split into 2, 3 and 4 parts (as the engine's cores
 * run it), each part a descriptor of its own with its own workspace: the
 * outputs must be bit-identical and cover the whole output.
 */
static void split_compare(struct ane_op_desc *d, struct tt *y, const char *what)
{
	uint16_t *whole = malloc(y->elems * 2);
	uint32_t parts, part;

	memset(y->buf, 0x55, y->elems * 2);
	T_EQ(run_op(d), 0);
	memcpy(whole, y->buf, y->elems * 2);
	for (parts = 2; parts <= 4; parts++) {
		struct ane_op_desc sub;

		/* no more parts than units along the axis (3 batches: 3) */
		if (parts > 2 && ane_op_split(d, 0, parts, &sub))
			break;
		memset(y->buf, 0x55, y->elems * 2);
		for (part = 0; part < parts; part++) {
			T_EQ(ane_op_split(d, part, parts, &sub), 0);
			T_CHECK(run_op(&sub) == 0, "%s: part %u of %u rejected", what,
				part, parts);
		}
		T_CHECK(!memcmp(whole, y->buf, y->elems * 2),
			"%s: %u parts differ from the whole", what, parts);
	}
	free(whole);
}

static void test_split_over_cores_is_bit_identical(void)
{
	struct ane_op_desc d, sub;
	struct tt a, b, c, y;

	/* matmul: the rows of M */
	tt_alloc(&a, 1, 1, 150, 90, 0);
	tt_alloc(&b, 1, 1, 90, 131, 0);
	tt_alloc(&y, 1, 1, 150, 131, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_MATMUL, ANE_ACT_GELU, &a, &b, &y);
	split_compare(&d, &y, "matmul rows");
	/* as many parts as cores, none under 256 K multiply-adds (6 here) */
	T_EQ(ane_op_split_parts(&d, 4), 4);
	T_EQ(ane_op_split_parts(&d, 16), 6);
	T_EQ(ane_op_split_parts(&d, 1), 1);
	T_EQ(ane_op_split(&d, 2, 2, &sub), -ANE_MATH_EINVAL);
	T_EQ(ane_op_split(&d, 0, 151, &sub), -ANE_MATH_EINVAL);
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);

	/* matmul: a batch dimension, B broadcast along it, transposed */
	tt_alloc(&a, 1, 3, 20, 33, 0);
	tt_alloc(&b, 1, 1, 17, 33, 0);
	tt_alloc(&y, 1, 3, 20, 17, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_MATMUL, ANE_ACT_NONE, &a, &b, &y);
	d.p.matmul.flags = ANE_MATMUL_TRANS_B;
	split_compare(&d, &y, "matmul batch");
	/* with a bias per batch entry, split along it */
	tt_alloc(&c, 1, 3, 1, 17, 0);
	tt_fill(&c, -1, 1);
	d.bias = c.t;
	d.act = ANE_ACT_GELU;
	split_compare(&d, &y, "matmul batch, per-batch bias");
	tt_free(&c);
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);

	/* matmul rows with a per-column bias, and with a residual */
	tt_alloc(&a, 1, 1, 150, 90, 0);
	tt_alloc(&b, 1, 1, 90, 131, 0);
	tt_alloc(&y, 1, 1, 150, 131, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	tt_alloc(&c, 1, 1, 1, 131, 0);
	tt_fill(&c, -1, 1);
	op_desc(&d, ANE_OP_MATMUL, ANE_ACT_RELU, &a, &b, &y);
	d.bias = c.t;
	split_compare(&d, &y, "matmul rows, column bias");
	tt_free(&c);
	tt_alloc(&c, 1, 1, 150, 131, 0);
	tt_fill(&c, -1, 1);
	d.bias = c.t;
	split_compare(&d, &y, "matmul rows, residual");
	tt_free(&c);
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);

	/* conv: output channels (GEMM; one output row), with bias */
	tt_alloc(&a, 1, 16, 3, 10, 0);
	tt_alloc(&b, 24, 16, 3, 3, 0);
	tt_alloc(&c, 1, 24, 1, 1, 0);
	tt_alloc(&y, 1, 24, 1, 10, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	tt_fill(&c, -1, 1);
	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_CONV;
	d.act = ANE_ACT_RELU;
	d.src[0] = a.t;
	d.src[1] = b.t;
	d.bias = c.t;
	d.dst = y.t;
	d.p.conv = (struct ane_conv_params){ .stride = { 1, 1 },
		.dilation = { 1, 1 }, .pad = { 0, 0, 1, 1 }, .groups = 1 };
	split_compare(&d, &y, "conv channels");
	tt_free(&y);
	tt_free(&c);
	tt_free(&b);
	tt_free(&a);

	/* conv: output rows, with stride, dilation and uneven padding */
	tt_alloc(&a, 1, 3, 23, 11, 1);
	tt_alloc(&b, 4, 3, 3, 2, 0);
	tt_alloc(&y, 1, 4, 11, 6, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_CONV, ANE_ACT_NONE, &a, &b, &y);
	d.p.conv = (struct ane_conv_params){ .stride = { 2, 2 },
		.dilation = { 2, 1 }, .pad = { 1, 2, 0, 1 }, .groups = 1 };
	split_compare(&d, &y, "conv rows");
	tt_free(&y);
	tt_free(&b);
	tt_free(&a);

	/* conv: whole groups (one output row), and depthwise; a batch */
	tt_alloc(&a, 1, 8, 1, 9, 0);
	tt_alloc(&b, 12, 2, 3, 3, 0);
	tt_alloc(&y, 1, 12, 1, 9, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_CONV, ANE_ACT_NONE, &a, &b, &y);
	d.p.conv = (struct ane_conv_params){ .stride = { 1, 1 },
		.dilation = { 1, 1 }, .pad = { 1, 1, 1, 1 }, .groups = 4 };
	split_compare(&d, &y, "conv groups");
	tt_free(&y);
	tt_free(&b);
	tt_free(&a);
	tt_alloc(&a, 3, 6, 9, 9, 0);
	tt_alloc(&b, 6, 1, 3, 3, 0);
	tt_alloc(&y, 3, 6, 9, 9, 0);
	tt_fill(&a, -1, 1);
	tt_fill(&b, -1, 1);
	op_desc(&d, ANE_OP_CONV, ANE_ACT_NONE, &a, &b, &y);
	d.p.conv = (struct ane_conv_params){ .stride = { 1, 1 },
		.dilation = { 1, 1 }, .pad = { 1, 1, 1, 1 }, .groups = 6 };
	split_compare(&d, &y, "depthwise batch");
	tt_free(&y);
	tt_free(&b);
	tt_free(&a);

	/* eltwise with a per-channel operand, pool, softmax (never over C) */
	tt_alloc(&a, 1, 5, 7, 9, 0);
	tt_alloc(&b, 1, 5, 1, 1, 0);
	tt_alloc(&y, 1, 5, 7, 9, 0);
	tt_fill(&a, -2, 2);
	tt_fill(&b, -2, 2);
	op_desc(&d, ANE_OP_ELTWISE, ANE_ACT_SIGMOID, &a, &b, &y);
	d.p.eltwise.op = ANE_ELT_SUB;
	split_compare(&d, &y, "eltwise");
	tt_free(&y);
	memset(&d, 0, sizeof(d));
	tt_alloc(&y, 1, 5, 4, 5, 0);
	d.op = ANE_OP_POOL;
	d.src[0] = a.t;
	d.dst = y.t;
	d.p.pool = (struct ane_pool_params){ .kind = ANE_POOL_MAX,
		.kernel = { 3, 3 }, .stride = { 2, 2 }, .pad = { 1, 1, 1, 1 } };
	split_compare(&d, &y, "pool");
	tt_free(&y);
	memset(&d, 0, sizeof(d));
	tt_alloc(&y, 1, 5, 7, 9, 0);
	d.op = ANE_OP_SOFTMAX;
	d.src[0] = a.t;
	d.dst = y.t;
	split_compare(&d, &y, "softmax");
	/* too small to be worth a second core */
	T_EQ(ane_op_split_parts(&d, 4), 1);
	tt_free(&a);
	tt_free(&b);
	tt_free(&y);
}

/* ------------------------------------------------------------ validation */

static uint16_t vbuf[6][4096] __attribute__((aligned(64)));
static unsigned char vwork[1 << 16] __attribute__((aligned(64)));

/* A valid descriptor of each op, on static buffers. */
static void good_desc(uint32_t op, struct ane_op_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->op = op;
	switch (op) {
	case ANE_OP_CONV:
		ane_tensor_dense(&d->src[0], vbuf[0], 1, 4, 8, 8);
		ane_tensor_dense(&d->src[1], vbuf[1], 8, 2, 3, 3);
		ane_tensor_dense(&d->bias, vbuf[2], 1, 8, 1, 1);
		ane_tensor_dense(&d->dst, vbuf[3], 1, 8, 4, 4);
		d->p.conv = (struct ane_conv_params){ .stride = { 2, 2 },
			.dilation = { 1, 1 }, .pad = { 1, 0, 1, 0 }, .groups = 2 };
		break;
	case ANE_OP_MATMUL:
		ane_tensor_dense(&d->src[0], vbuf[0], 2, 1, 8, 16);
		ane_tensor_dense(&d->src[1], vbuf[1], 1, 1, 16, 12);
		ane_tensor_dense(&d->dst, vbuf[3], 2, 1, 8, 12);
		break;
	case ANE_OP_ELTWISE:
		ane_tensor_dense(&d->src[0], vbuf[0], 1, 4, 8, 8);
		ane_tensor_dense(&d->src[1], vbuf[1], 1, 4, 1, 1);
		ane_tensor_dense(&d->dst, vbuf[3], 1, 4, 8, 8);
		d->p.eltwise.op = ANE_ELT_ADD;
		break;
	case ANE_OP_POOL:
		ane_tensor_dense(&d->src[0], vbuf[0], 1, 4, 8, 8);
		ane_tensor_dense(&d->dst, vbuf[3], 1, 4, 4, 4);
		d->p.pool = (struct ane_pool_params){ .kind = ANE_POOL_MAX,
			.kernel = { 2, 2 }, .stride = { 2, 2 } };
		break;
	case ANE_OP_REDUCE:
		ane_tensor_dense(&d->src[0], vbuf[0], 1, 4, 8, 8);
		ane_tensor_dense(&d->dst, vbuf[3], 1, 1, 8, 8);
		d->p.reduce = (struct ane_reduce_params){ .kind = ANE_REDUCE_MEAN,
			.axes = ANE_REDUCE_AXIS(ANE_C) };
		break;
	case ANE_OP_GATHER:	/* rows of a table by int16 indices */
		ane_tensor_dense(&d->src[0], vbuf[0], 1, 4, 8, 8);
		ane_tensor_dense(&d->src[1], vbuf[1], 1, 1, 1, 5);
		ane_tensor_dense(&d->dst, vbuf[3], 1, 4, 5, 8);
		break;
	default:	/* ACT, SOFTMAX */
		ane_tensor_dense(&d->src[0], vbuf[0], 1, 4, 8, 8);
		ane_tensor_dense(&d->dst, vbuf[3], 1, 4, 8, 8);
		d->act = op == ANE_OP_ACT ? ANE_ACT_TANH : 0;
		break;
	}
	d->work = vwork;
	d->work_size = sizeof(vwork);
}

static void test_validate_accepts_good_descriptors(void)
{
	struct ane_op_desc d;
	uint32_t op;
	uint64_t ws;

	for (op = ANE_OP_CONV; op < ANE_OP_COUNT; op++) {
		good_desc(op, &d);
		T_EQ(ane_op_validate(&d), 0);
		T_EQ(ane_op_workspace_size(&d, &ws), 0);
		T_CHECK(ws <= sizeof(vwork), "op %u workspace %llu", op,
			(unsigned long long)ws);
		T_CHECK(ane_op_chunks(&d) >= 1, "op %u chunks", op);
		T_EQ(ane_op_run_all(&d), 0);
	}
	/* views: a transposed B, a broadcast (stride 0) input, in place */
	good_desc(ANE_OP_MATMUL, &d);
	d.src[1].dim[ANE_H] = 12;
	d.src[1].dim[ANE_W] = 16;
	d.src[1].stride[ANE_H] = 1;
	d.src[1].stride[ANE_W] = 12;
	d.p.matmul.flags = ANE_MATMUL_TRANS_B;
	T_EQ(ane_op_validate(&d), 0);
	good_desc(ANE_OP_ELTWISE, &d);
	d.src[0].stride[ANE_N] = 0;
	d.src[0].stride[ANE_H] = 0;
	T_EQ(ane_op_validate(&d), 0);
	good_desc(ANE_OP_ACT, &d);
	d.src[0] = d.dst;
	T_EQ(ane_op_validate(&d), 0);
	/* no bias is fine */
	good_desc(ANE_OP_CONV, &d);
	memset(&d.bias, 0, sizeof(d.bias));
	T_EQ(ane_op_validate(&d), 0);
	/* no workspace needed, none given */
	good_desc(ANE_OP_ELTWISE, &d);
	d.work = NULL;
	d.work_size = 0;
	T_EQ(ane_op_validate(&d), 0);
}

#define BAD(op, stmt, want) do {					\
	struct ane_op_desc d_;						\
	good_desc(op, &d_);						\
	{ struct ane_op_desc *d = &d_; stmt; }				\
	int r_ = ane_op_validate(&d_);					\
	T_CHECK(r_ == (want), "%s: got %d, want %d", #stmt, r_, (want)); \
} while (0)

static void test_validate_rejects_bad_op_and_fields(void)
{
	BAD(ANE_OP_ACT, d->op = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->op = ANE_OP_COUNT, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->act = ANE_ACT_COUNT, -ANE_MATH_EINVAL);
	BAD(ANE_OP_SOFTMAX, d->act = ANE_ACT_RELU, -ANE_MATH_EINVAL);
	BAD(ANE_OP_NORM, d->act = ANE_ACT_RELU, -ANE_MATH_EINVAL);
	BAD(ANE_OP_NORM, d->p.norm.kind = ANE_NORM_COUNT, -ANE_MATH_EINVAL);
	BAD(ANE_OP_NORM, d->p.pool.flags = 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_NORM, d->dst.dim[ANE_W] = 4, -ANE_MATH_EINVAL);
	BAD(ANE_OP_NORM, d->src[1] = d->src[0], -ANE_MATH_EINVAL);
	BAD(ANE_OP_NORM, d->bias = d->src[0], -ANE_MATH_EINVAL);
	/* unused tensors and parameters must be zero */
	BAD(ANE_OP_ACT, d->src[1] = d->src[0], -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->bias.stride[0] = 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->src[1].dim[1] = 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->bias = d->src[0], -ANE_MATH_EINVAL);
	BAD(ANE_OP_ELTWISE, d->bias.size = 2, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->p.pool.kind = 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->p.conv.stride[1] = 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ELTWISE, d->p.pool.kernel[0] = 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->bias.base = NULL, -ANE_MATH_EINVAL);
	/* flags */
	BAD(ANE_OP_MATMUL, d->p.matmul.flags = 2, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->p.pool.flags = ANE_POOL_AVG_INCLUDE_PAD, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->p.pool.kind = ANE_POOL_AVG; d->p.pool.flags = 2,
	    -ANE_MATH_EINVAL);
	BAD(ANE_OP_ELTWISE, d->p.eltwise.op = ANE_ELT_COUNT, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->p.pool.kind = ANE_POOL_COUNT, -ANE_MATH_EINVAL);
}

static void test_validate_rejects_bad_tensors(void)
{
	/* dimensions */
	BAD(ANE_OP_ACT, d->src[0].dim[2] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->dst.dim[3] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->dst.dim[3] = ANE_MATH_MAX_DIM + 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ELTWISE, d->src[1].dim[1] = 2, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->src[0].dim[1] = 2, -ANE_MATH_EINVAL);
	/* base */
	BAD(ANE_OP_ACT, d->src[0].base = NULL, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->dst.base = NULL, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->src[1].base = (char *)vbuf[1] + 1, -ANE_MATH_EINVAL);
	/* sizes */
	BAD(ANE_OP_ACT, d->src[0].size -= 2, -ANE_MATH_ENOSPC);
	BAD(ANE_OP_ACT, d->dst.size = 0, -ANE_MATH_ENOSPC);
	BAD(ANE_OP_CONV, d->bias.size = 14, -ANE_MATH_ENOSPC);
	BAD(ANE_OP_ELTWISE, d->src[1].stride[1] = 2, -ANE_MATH_ENOSPC);
	BAD(ANE_OP_ACT, d->src[0].size = UINT64_MAX, -ANE_MATH_EOVERFLOW);
	/* overflowing strides and element counts */
	BAD(ANE_OP_ACT, d->src[0].stride[1] = UINT64_MAX / 2, -ANE_MATH_EOVERFLOW);
	BAD(ANE_OP_ACT, d->src[0].stride[1] = 1ull << 62; d->src[0].stride[2] = 1ull << 62,
	    -ANE_MATH_EOVERFLOW);
	BAD(ANE_OP_ACT,
	    d->src[0].dim[0] = d->src[0].dim[1] = d->src[0].dim[2] = ANE_MATH_MAX_DIM;
	    d->src[0].stride[0] = d->src[0].stride[1] = d->src[0].stride[2] = 0,
	    -ANE_MATH_EOVERFLOW);
	/* the output may not overlap itself ... */
	BAD(ANE_OP_ACT, d->dst.stride[2] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->dst.stride[2] = 4, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->dst.stride[0] = 1, -ANE_MATH_EINVAL);
	/* ... nor an input, except in place with the identical view */
	BAD(ANE_OP_CONV, d->dst.base = vbuf[0], -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->dst.base = vbuf[2], -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->dst.base = (char *)vbuf[1] + 64, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->dst.base = vbuf[0], -ANE_MATH_EINVAL);
	BAD(ANE_OP_ELTWISE, d->dst.base = vbuf[1], -ANE_MATH_EINVAL);
	BAD(ANE_OP_ACT, d->dst.base = (char *)vbuf[0] + 2, -ANE_MATH_EINVAL);
	BAD(ANE_OP_SOFTMAX, d->src[0] = d->dst, 0);
	BAD(ANE_OP_ELTWISE, d->src[0] = d->dst, 0);
}

static void test_validate_rejects_bad_shapes_and_params(void)
{
	/* conv */
	BAD(ANE_OP_CONV, d->p.conv.groups = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->p.conv.groups = 3, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->p.conv.stride[0] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->p.conv.stride[1] = ANE_MATH_MAX_KERNEL + 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->p.conv.dilation[0] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->p.conv.pad[ANE_PAD_BOTTOM] = 3, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->p.conv.pad[ANE_PAD_LEFT] = 1000, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->src[1].dim[ANE_C] = 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->src[1].dim[ANE_N] = 6, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->dst.dim[ANE_H] = 3, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->dst.dim[ANE_W] = 3, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->dst.dim[ANE_N] = 2; d->dst.size *= 2, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->bias.dim[ANE_C] = 4, -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->bias.dim[ANE_W] = 8; d->bias.dim[ANE_C] = 1; d->bias.stride[ANE_W] = 1,
	    -ANE_MATH_EINVAL);
	BAD(ANE_OP_CONV, d->src[1].dim[ANE_W] = ANE_MATH_MAX_KERNEL + 1;
	    d->src[1].stride[ANE_W] = 0, -ANE_MATH_EINVAL);
	/* K over ANE_MATH_MAX_REDUCE (broadcast weights keep the size small) */
	BAD(ANE_OP_CONV, d->src[0].dim[ANE_C] = 2 * 2048; d->src[0].stride[ANE_C] = 0;
	    d->src[1].dim[ANE_C] = 2048; d->src[1].stride[ANE_C] = 0;
	    d->p.conv.groups = 2, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->src[0].dim[ANE_W] = ANE_MATH_MAX_REDUCE + 1;
	    d->src[0].stride[ANE_W] = 0; d->src[1].dim[ANE_H] = ANE_MATH_MAX_REDUCE + 1;
	    d->src[1].stride[ANE_H] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->src[0].dim[ANE_W] = ANE_MATH_MAX_REDUCE;
	    d->src[0].stride[ANE_W] = 0; d->src[1].dim[ANE_H] = ANE_MATH_MAX_REDUCE;
	    d->src[1].stride[ANE_H] = 0; d->work = NULL; d->work_size = 0,
	    -ANE_MATH_EINVAL);
	/* matmul */
	BAD(ANE_OP_MATMUL, d->src[0].dim[ANE_W] = 15, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->src[1].dim[ANE_W] = 11, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->src[0].dim[ANE_H] = 7, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->p.matmul.flags = ANE_MATMUL_TRANS_B, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->src[0].dim[ANE_N] = 3; d->src[0].stride[ANE_N] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->src[1].dim[ANE_C] = 2; d->src[1].stride[ANE_C] = 0, -ANE_MATH_EINVAL);
	/* pool */
	BAD(ANE_OP_POOL, d->p.pool.kernel[0] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->p.pool.stride[1] = 0, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->p.pool.pad[ANE_PAD_TOP] = 2, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->p.pool.kernel[1] = ANE_MATH_MAX_KERNEL + 1, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->dst.dim[ANE_H] = 3, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->dst.dim[ANE_C] = 2, -ANE_MATH_EINVAL);
	BAD(ANE_OP_POOL, d->p.pool.kernel[0] = 9; d->p.pool.kernel[1] = 9, -ANE_MATH_EINVAL);
	/* softmax over too many channels */
	{
		struct ane_op_desc d;
		uint16_t *big = calloc(ANE_MATH_MAX_SOFTMAX + 1, 2);

		good_desc(ANE_OP_SOFTMAX, &d);
		d.work = aligned_alloc(ANE_MATH_WORK_ALIGN, 4 * (ANE_MATH_MAX_SOFTMAX + 64));
		d.work_size = 4 * (ANE_MATH_MAX_SOFTMAX + 64);
		ane_tensor_dense(&d.dst, big, 1, ANE_MATH_MAX_SOFTMAX + 1, 1, 1);
		d.src[0].dim[ANE_C] = ANE_MATH_MAX_SOFTMAX + 1;
		d.src[0].dim[ANE_H] = d.src[0].dim[ANE_W] = 1;
		d.src[0].stride[ANE_C] = 0;
		T_EQ(ane_op_validate(&d), (uint64_t)-ANE_MATH_EINVAL);
		d.dst.dim[ANE_C] = d.src[0].dim[ANE_C] = ANE_MATH_MAX_SOFTMAX;
		T_EQ(ane_op_validate(&d), 0);
		free(d.work);
		free(big);
	}
}

static void test_validate_rejects_bad_workspace(void)
{
	BAD(ANE_OP_MATMUL, d->work = NULL, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->work = vwork + 8, -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->work_size = 64, -ANE_MATH_ENOSPC);
	BAD(ANE_OP_SOFTMAX, d->work_size = 0, -ANE_MATH_ENOSPC);
	BAD(ANE_OP_CONV, d->work = (void *)((((uintptr_t)vbuf[3]) + 63) & ~(uintptr_t)63),
	    -ANE_MATH_EINVAL);
	BAD(ANE_OP_MATMUL, d->work = (void *)(~(uintptr_t)0 & ~(uintptr_t)63), -ANE_MATH_EOVERFLOW);
	/* workspace_size validates the rest */
	{
		struct ane_op_desc d;
		uint64_t ws = 7;

		good_desc(ANE_OP_CONV, &d);
		d.p.conv.groups = 0;
		T_EQ(ane_op_workspace_size(&d, &ws), (uint64_t)-ANE_MATH_EINVAL);
		T_EQ(ws, 7);
		T_EQ(ane_op_validate(NULL), (uint64_t)-ANE_MATH_EINVAL);
	}
}

static int in_field(size_t off, size_t start, size_t len)
{
	return off >= start && off < start + len;
}

static int fuzz_protected(size_t off)
{
	static const size_t tensors[] = {
		offsetof(struct ane_op_desc, src[0]),
		offsetof(struct ane_op_desc, src[1]),
		offsetof(struct ane_op_desc, bias),
		offsetof(struct ane_op_desc, dst),
	};
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (in_field(off, tensors[i] + offsetof(struct ane_tensor, base), 8) ||
		    in_field(off, tensors[i] + offsetof(struct ane_tensor, size), 8))
			return 1;
	return in_field(off, offsetof(struct ane_op_desc, work), 8) ||
	       in_field(off, offsetof(struct ane_op_desc, work_size), 8) ||
	       in_field(off, offsetof(struct ane_op_desc, chunk_work), 8);
}

/* Random descriptors: validation never crashes, and what passes runs. */
static void test_validate_fuzz(void)
{
	unsigned int i, ok = 0;

	for (i = 0; i < 20000; i++) {
		struct ane_op_desc d;
		unsigned char *p = (unsigned char *)&d;
		unsigned int j, flips = 1 + (unsigned int)(rng() % 3);

		good_desc(ANE_OP_CONV + (uint32_t)(rng() % (ANE_OP_COUNT - 1)), &d);
		for (j = 0; j < flips; j++) {
			size_t off = rng() % sizeof(d);

			/*
			 * Pointers and sizes describe the real buffers, as the
			 * kernel's caller guarantees; everything else is fair game.
			 */
			if (fuzz_protected(off))
				continue;
			p[off] = (unsigned char)(rng() & 0xff);
		}
		if (ane_op_validate(&d) == 0) {
			ok++;
			/* validated descriptors stay inside the buffers (ASan) */
			if (ane_op_chunks(&d) <= 64)
				T_EQ(ane_op_run_all(&d), 0);
		}
	}
	printf("#   fuzz: %u of 20000 accepted\n", ok);
	T_CHECK(ok > 0, "nothing accepted");
}

/* ------------------------------------------------------------ ISA */

/*
 * The AVX-512 path sums every output in the AVX2 path's order with one
 * FMA per step, so the two agree bit for bit: matmuls and convolutions
 * with every tile edge, depth-blocked or not, with padding, narrow rows,
 * stride 2 (the AVX2 packer), bias and ReLU6, and IEEE specials in the
 * data; each at the default chunk size and at a small one, where a B
 * block is packed by several chunks (the AVX-512 path splits a MATMUL's
 * or 1x1 convolution's by rows, a panel of more than four row segments
 * whole in the first), so all four runs give the same bits.  Needs a CPU
 * with both paths.
 */
/*
 * The elementwise rows on every ISA give the same bits: an exact GELU
 * (ACT) and an ADD + GELU (ELTWISE, the MATMUL epilogue's loop) of every
 * fp16 value, and a softmax over W (NORM) of rows of them, 128 and 37
 * wide (vector max and exponentials, and their remainders).  The AVX-512 rows were contracted into FMAs by the compiler
 * (AVX-512 F has them even without -mfma) and differed on 2 of 65536.
 */
static int is_nan16(uint16_t h)
{
	return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
}

static void test_rows_agree_bit_for_bit_on_every_isa(void)
{
	const uint32_t n = 65536;
	uint16_t *x = malloc(n * 2), *bias = malloc(64 * 2), *y[ANE_TEST_ROW_OPS][ANE_MATH_ISA_COUNT];
	uint32_t i, isa, op, bad = 0;

	for (i = 0; i < n; i++)
		x[i] = (uint16_t)i;
	for (i = 0; i < 64; i++)
		bias[i] = ane_fp32_to_fp16((float)i / 64.0f - 0.5f);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		for (op = 0; op < ANE_TEST_ROW_OPS; op++) {
			struct ane_op_desc d;
			void *ws = NULL;
			uint64_t wsz;

			y[op][isa] = calloc(n, 2);
			if (isa_missing(isa))
				continue;
			T_EQ(ane_math_set_isa(isa), 0);
			ane_test_row_desc(&d, x, bias, y[op][isa], n, op);
			T_EQ(ane_op_workspace_size(&d, &wsz), 0);
			ws = wsz ? aligned_alloc(64, (wsz + 63) / 64 * 64) : NULL;
			d.work = ws;
			d.work_size = wsz;
			T_EQ(ane_op_run_all(&d), 0);
			free(ws);
		}
	}
	for (isa = 1; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa_missing(isa)) {
			printf("# rows not compared on isa %u: %s\n", isa, isa_missing(isa));
			continue;
		}
		for (op = 0; op < ANE_TEST_ROW_OPS; op++)
			for (i = 0; i < n; i++)
				/* a NaN's payload may differ (rows with a NaN) */
				if (y[op][isa][i] != y[op][0][i] &&
				    !(is_nan16(y[op][isa][i]) && is_nan16(y[op][0][i])) &&
				    bad++ < 4)
					printf("#   %s isa %u, x 0x%04x: 0x%04x, sse2 0x%04x\n",
					       op == 1 ? "add+gelu" : op ? "softmax" : "gelu",
					       isa, x[i], y[op][isa][i], y[op][0][i]);
	}
	T_CHECK(bad == 0, "%u values differ from the SSE2 path", bad);
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
	for (op = 0; op < ANE_TEST_ROW_OPS; op++)
		for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++)
			free(y[op][isa]);
	free(x);
	free(bias);
}

/*
 * The row normalizations on every ISA give the same bits as the SSE2
 * path: NORM's softmax, log-softmax and layer normalization over W (48
 * rows of each length: the fused passes of ane_math_vec.h, sixteen and
 * eight lanes and their remainders) and SOFTMAX over C (16 x 1, 16 x 3
 * and 16 x 37 positions: contiguous and strided channels, and positions
 * in vectors along W with a remainder), rows of every length
 * around the vector widths, with values small, large, negative, huge and
 * negative next to a few ordinary ones, all equal, subnormal, and with
 * an infinity.  (With 3 rows, summing the AVX-512 path's upper eight
 * lanes before the lower went unnoticed; with 48 it differs 13 times.)
 */
#define ANE_TEST_NORM_PATTERNS 8

static uint16_t norm_pattern(uint32_t pat, uint32_t i, uint32_t *rnd)
{
	float u;

	*rnd = *rnd * 1664525u + 1013904223u;
	u = (float)(*rnd >> 8) / 16777216.0f;	/* [0, 1) */
	switch (pat) {
	case 0:
		return ane_fp32_to_fp16(u * 2 - 1);
	case 1:
		return ane_fp32_to_fp16(30000 + u * 35000);
	case 2:
		return ane_fp32_to_fp16(-30000 - u * 35000);
	case 3:		/* -65504 but every seventh */
		return i % 7 == 3 ? ane_fp32_to_fp16(u * 8 - 4) : 0xfbff;
	case 4:
		return 0x4248;				/* 3.140625, every one */
	case 5:
		return (uint16_t)(*rnd >> 16 & 0x83ffu);	/* subnormal +- */
	case 6:		/* a -inf among them */
		return i == 5 ? 0xfc00 : ane_fp32_to_fp16(u * 16 - 8);
	default:
		return ane_fp32_to_fp16(u * 120000 - 60000);
	}
}

/* One row op on @isa: dst written from @x, 0 on success. */
static int norm_row_run(uint32_t isa, uint32_t op, uint32_t kind, uint32_t len,
			uint32_t w, const uint16_t *x, uint16_t *y)
{
	struct ane_op_desc d;
	uint64_t wsz;
	void *ws;
	int ret;

	memset(&d, 0, sizeof(d));
	d.op = op;
	d.p.norm.kind = kind;
	if (op == ANE_OP_NORM) {
		ane_tensor_dense(&d.src[0], (void *)x, 1, 1, 48, len);
		ane_tensor_dense(&d.dst, y, 1, 1, 48, len);
	} else {
		ane_tensor_dense(&d.src[0], (void *)x, 16, len, 1, w);
		ane_tensor_dense(&d.dst, y, 16, len, 1, w);
	}
	if (ane_math_set_isa(isa) || ane_op_workspace_size(&d, &wsz))
		return -1;
	ws = wsz ? aligned_alloc(64, (wsz + 63) / 64 * 64) : NULL;
	d.work = ws;
	d.work_size = wsz;
	ret = ane_op_run_all(&d);
	free(ws);
	return ret;
}

static void test_norm_rows_same_bits_on_every_isa(void)
{
	static const uint32_t lens[] = { 1, 7, 8, 15, 16, 17, 31, 33, 100, 257, 1024 };
	/* NORM softmax, log-softmax, layer; SOFTMAX over C, contiguous, strided */
	static const uint32_t ops[][3] = {
		{ ANE_OP_NORM, ANE_NORM_SOFTMAX, 1 }, { ANE_OP_NORM, ANE_NORM_LOG_SOFTMAX, 1 },
		{ ANE_OP_NORM, ANE_NORM_LAYER, 1 }, { ANE_OP_SOFTMAX, 0, 1 },
		{ ANE_OP_SOFTMAX, 0, 3 }, { ANE_OP_SOFTMAX, 0, 37 },
	};
	/* the most rows of any op: SOFTMAX's 16 x 37 positions */
	const uint32_t rows = 16 * 37;
	uint16_t *x = malloc(rows * 1024 * 2), *ref = malloc(rows * 1024 * 2);
	uint16_t *y = malloc(rows * 1024 * 2);
	uint32_t isa, l, o, pat, i, n, bad = 0, runs = 0, rnd = 12345;

	for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (pat = 0; pat < ANE_TEST_NORM_PATTERNS; pat++) {
			n = rows * lens[l];
			for (i = 0; i < n; i++)
				x[i] = norm_pattern(pat, i % lens[l], &rnd);
			for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
				/* NORM: 48 rows of len; SOFTMAX: 16 x len channels x w */
				n = (ops[o][0] == ANE_OP_NORM ? 48 : 16 * ops[o][2]) * lens[l];
				memset(ref, 0x55, n * 2);
				T_EQ(norm_row_run(ANE_MATH_ISA_SSE2, ops[o][0], ops[o][1],
						  lens[l], ops[o][2], x, ref), 0);
				for (isa = 1; isa < ANE_MATH_ISA_COUNT; isa++) {
					if (isa_missing(isa))
						continue;
					memset(y, 0x55, n * 2);
					T_EQ(norm_row_run(isa, ops[o][0], ops[o][1], lens[l],
							  ops[o][2], x, y), 0);
					runs++;
					for (i = 0; i < n; i++)
						if (y[i] != ref[i] &&
						    !(is_nan16(y[i]) && is_nan16(ref[i])) &&
						    bad++ < 8)
							printf("#   op %u kind %u len %u pattern %u isa %u [%u]: 0x%04x, sse2 0x%04x\n",
							       ops[o][0], ops[o][1], lens[l], pat,
							       isa, i, y[i], ref[i]);
				}
			}
		}
	for (isa = 1; isa < ANE_MATH_ISA_COUNT; isa++)
		if (isa_missing(isa))
			printf("# norm rows not compared on isa %u: %s\n", isa, isa_missing(isa));
	printf("#   %u runs compared with the SSE2 path\n", runs);
	T_CHECK(bad == 0, "%u values differ from the SSE2 path", bad);
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
	free(x);
	free(y);
	free(ref);
}

static void test_avx512_and_avx2_agree_bit_for_bit(void)
{
	/* M K N for MATMUL; for CONV cin h w cout k stride pad (bias, relu6) */
	static const uint32_t mm[][3] = {
		{ 1, 1, 1 }, { 12, 64, 32 }, { 13, 511, 33 }, { 25, 512, 47 },
		{ 37, 1100, 100 }, { 6, 2049, 16 }, { 50, 300, 200 },
		{ 64, 700, 301 }, { 13, 97, 1000 },
		/* 2- and 4-column remainders (the AVX-512 tail kernel) */
		{ 100, 200, 66 }, { 47, 300, 36 }, { 5, 40, 3 },
		/* depth blocks (small M, deep), a 4-column remainder */
		{ 131, 2101, 77 }, { 61, 4100, 36 },
	};
	static const uint32_t cv[][7] = {
		{ 3, 5, 7, 4, 1, 1, 0 }, { 64, 14, 14, 30, 1, 1, 0 },
		{ 64, 9, 20, 14, 3, 1, 1 }, { 70, 6, 5, 25, 3, 1, 1 },
		{ 16, 11, 13, 24, 3, 2, 1 }, { 200, 4, 4, 13, 3, 1, 1 },
		{ 300, 5, 3, 13, 1, 1, 0 }, { 256, 14, 14, 40, 1, 1, 0 },
	};
	static const uint64_t works[2] = { 0, 3000 };
	const char *why = isa_missing(ANE_MATH_ISA_AVX512);
	uint16_t *out[4];
	struct tt x, w, b, y;
	uint32_t i, isa, r;

	if (!why)
		why = isa_missing(ANE_MATH_ISA_AVX2_FMA);
	if (why)
		T_SKIP(why);
	for (i = 0; i < sizeof(mm) / sizeof(mm[0]) + sizeof(cv) / sizeof(cv[0]); i++) {
		struct ane_op_desc d = { 0 };
		int conv = i >= sizeof(mm) / sizeof(mm[0]);
		const uint32_t *c = conv ? cv[i - sizeof(mm) / sizeof(mm[0])] : NULL;
		size_t n;

		if (!conv) {
			tt_alloc(&x, 1, 1, mm[i][0], mm[i][1], 0);
			tt_alloc(&w, 1, 1, mm[i][1], mm[i][2], 0);
			tt_alloc(&y, 1, 1, mm[i][0], mm[i][2], 0);
			d.op = ANE_OP_MATMUL;
		} else {
			uint32_t o = (c[1] + 2 * c[6] - c[4]) / c[5] + 1;
			uint32_t ow = (c[2] + 2 * c[6] - c[4]) / c[5] + 1;

			tt_alloc(&x, 1, c[0], c[1], c[2], 0);
			tt_alloc(&w, c[3], c[0], c[4], c[4], 0);
			tt_alloc(&y, 1, c[3], o, ow, 0);
			tt_alloc(&b, 1, c[3], 1, 1, 0);
			tt_fill(&b, -1, 1);
			d.op = ANE_OP_CONV;
			d.act = ANE_ACT_RELU6;
			d.bias = b.t;
			d.p.conv = (struct ane_conv_params){
				.stride = { c[5], c[5] }, .dilation = { 1, 1 },
				.pad = { c[6], c[6], c[6], c[6] }, .groups = 1,
			};
		}
		tt_fill(&x, -1, 1);
		tt_fill(&w, -1, 1);
		x.buf[x.elems / 2] = H_PINF;
		w.buf[w.elems / 3] = H_QNAN;
		d.src[0] = x.t;
		d.src[1] = w.t;
		d.dst = y.t;
		n = t_count(&y.t);
		for (r = 0; r < 4; r++) {
			isa = r & 1;
			out[r] = malloc(n * sizeof(uint16_t));
			memset(y.buf, 0x55, y.elems * 2);
			d.chunk_work = works[r / 2];
			T_EQ(ane_math_set_isa(isa ? ANE_MATH_ISA_AVX512 :
					      ANE_MATH_ISA_AVX2_FMA), 0);
			T_EQ(run_op(&d), 0);
			memcpy(out[r], y.buf, n * sizeof(uint16_t));
			T_CHECK(!memcmp(out[0], out[r], n * sizeof(uint16_t)),
				"%s %u: %s at chunk_work %llu differs from avx2 at the default",
				conv ? "conv" : "matmul", i, isa ? "avx512" : "avx2",
				(unsigned long long)works[r / 2]);
		}
		for (r = 0; r < 4; r++)
			free(out[r]);
		tt_free(&x);
		tt_free(&w);
		tt_free(&y);
		if (conv)
			tt_free(&b);
	}
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

/*
 * The AVX-512 path's direct convolution (ane_math_conv_avx512.c) against
 * the AVX2 GEMM, bit for bit: the shapes it takes -- odd widths, a row
 * narrower than its 14-pixel block, asymmetric padding, row stride and
 * dilation, a 16-channel tail block (48 outputs), groups, a batch, a
 * strided input and outputs with row gaps or a column stride (the
 * transposed store's slow path), every store epilogue -- and ones it
 * leaves to the GEMM (column stride 2, 24 outputs, a 1x1 window with row
 * stride 2, which the 1 x 1 kernel leaves too: its packed weights would
 * begin as the direct path's do).  Each at three
 * chunk sizes, so B blocks start mid-row and compute chunks get zero,
 * one or many 14-pixel slots.  Whether the direct path ran is read from
 * the workspace, which it leaves holding the packed weights: the first
 * weight of output channels 0 .. 15 as floats 0 .. 15 (the GEMM's A
 * panels hold six rows per k there).  IEEE specials in input and
 * weights.  Each is also split over two to four cores (parts along the
 * rows or the batch), bit for bit the whole.  Needs a CPU with both
 * paths.
 */
static void test_direct_conv_avx512_matches_avx2(void)
{
	/*
	 * cin h w cout kh kw sh sw dh dw pt pb pl pr groups batch act bias
	 * xsw ypad ysw direct
	 */
	static const uint32_t cv[][22] = {
		{ 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_RELU, 1, 1, 0, 1, 1 },
		{ 3, 13, 29, 16, 3, 3, 1, 1, 1, 1, 0, 2, 1, 0, 1, 1, ANE_ACT_NONE, 0, 1, 0, 1, 1 },
		{ 8, 9, 57, 48, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_RELU6, 1, 1, 0, 1, 1 },
		{ 5, 10, 7, 32, 5, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, ANE_ACT_NONE, 1, 1, 0, 1, 1 },
		{ 16, 6, 1, 16, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, ANE_ACT_RELU, 0, 1, 0, 1, 1 },
		{ 8, 11, 15, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, ANE_ACT_RELU6, 1, 1, 0, 1, 1 },
		{ 7, 12, 30, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_SIGMOID, 1, 1, 0, 1, 1 },
		{ 6, 8, 20, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_RELU, 1, 2, 3, 1, 1 },
		{ 6, 8, 20, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_RELU, 1, 1, 0, 2, 1 },
		{ 300, 5, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_NONE, 1, 1, 0, 1, 1 },
		{ 8, 9, 20, 32, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_NONE, 1, 1, 0, 1, 0 },
		{ 8, 9, 20, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ANE_ACT_NONE, 1, 1, 0, 1, 0 },
		{ 64, 9, 20, 32, 1, 1, 2, 1, 1, 1, 0, 0, 0, 0, 1, 1, ANE_ACT_NONE, 1, 1, 0, 1, 0 },
	};
	static const uint64_t works[3] = { 0, 3000, 40000 };
	const char *why = isa_missing(ANE_MATH_ISA_AVX512);
	uint32_t i, r;

	if (!why)
		why = isa_missing(ANE_MATH_ISA_AVX2_FMA);
	if (why)
		T_SKIP(why);
	for (i = 0; i < sizeof(cv) / sizeof(cv[0]); i++) {
		const uint32_t *c = cv[i];
		uint32_t ho = (c[1] + c[10] + c[11] - c[8] * (c[4] - 1) - 1) / c[6] + 1;
		uint32_t wo = (c[2] + c[12] + c[13] - c[9] * (c[5] - 1) - 1) / c[7] + 1;
		struct ane_op_desc d = { 0 };
		uint16_t *ref = NULL;
		struct tt x, w, b, y;
		size_t n;

		tt_alloc(&x, c[15], c[0] * c[18], c[1], c[2], 0);
		/* a column stride of xsw: the W stride, the channels interleaved */
		x.t.dim[ANE_C] = c[0];
		x.t.stride[ANE_W] = c[18];
		x.t.stride[ANE_H] = (uint64_t)c[2] * c[18];
		x.t.stride[ANE_C] = (uint64_t)c[1] * c[2] * c[18];
		x.t.stride[ANE_N] = (uint64_t)c[0] * c[1] * c[2] * c[18];
		tt_alloc(&w, c[3], c[0] / c[14], c[4], c[5], 0);
		tt_alloc(&y, c[15], c[3] * c[20], ho, wo, c[19]);
		y.t.dim[ANE_C] = c[3];
		y.t.stride[ANE_W] = c[20];
		y.t.stride[ANE_H] *= c[20];
		y.t.stride[ANE_C] *= c[20];
		tt_alloc(&b, 1, c[3], 1, 1, 0);
		tt_fill(&x, -1, 1);
		tt_fill(&w, -1, 1);
		tt_fill(&b, -1, 1);
		x.buf[x.elems / 2] = H_PINF;
		w.buf[w.elems / 3 + 1] = H_QNAN;
		d.op = ANE_OP_CONV;
		d.act = c[16];
		if (c[17])
			d.bias = b.t;
		d.p.conv = (struct ane_conv_params){
			.stride = { c[6], c[7] }, .dilation = { c[8], c[9] },
			.pad = { c[10], c[11], c[12], c[13] }, .groups = c[14],
		};
		d.src[0] = x.t;
		d.src[1] = w.t;
		d.dst = y.t;
		n = y.elems;
		for (r = 0; r < 1 + 3; r++) {
			uint64_t ws = 0;
			uint32_t j, packed = 1;
			float *f;

			d.chunk_work = r ? works[r - 1] : 0;
			T_EQ(ane_math_set_isa(r ? ANE_MATH_ISA_AVX512 :
					      ANE_MATH_ISA_AVX2_FMA), 0);
			memset(y.buf, 0x55, n * 2);
			T_EQ(ane_op_workspace_size(&d, &ws), 0);
			d.work = aligned_alloc(ANE_MATH_WORK_ALIGN,
					       (ws + ANE_MATH_WORK_ALIGN - 1) /
					       ANE_MATH_WORK_ALIGN * ANE_MATH_WORK_ALIGN);
			d.work_size = ws;
			T_EQ(ane_op_validate(&d), 0);
			T_EQ(ane_op_run_all(&d), 0);
			if (!r) {
				ref = malloc(n * 2);
				memcpy(ref, y.buf, n * 2);
			} else {
				T_CHECK(!memcmp(ref, y.buf, n * 2),
					"conv %u: avx512 at chunk_work %llu differs from avx2",
					i, (unsigned long long)d.chunk_work);
				/* the last problem's weights (of group groups - 1) */
				f = d.work;
				for (j = 0; j < 16; j++) {
					uint32_t m = (c[14] - 1) * (c[3] / c[14]) + j;
					float want = ane_fp16_to_fp32(w.buf[t_off(&w.t, m, 0, 0, 0)]);

					if (memcmp(&f[j], &want, 4))
						packed = 0;
				}
				T_CHECK(packed == c[21], "conv %u: the direct path %s at chunk_work %llu",
					i, c[21] ? "did not run" : "ran",
					(unsigned long long)d.chunk_work);
			}
			free(d.work);
			d.work = NULL;
			d.work_size = 0;
		}
		/* split over cores (rows, or the batch): each part direct too */
		T_EQ(ane_math_set_isa(ANE_MATH_ISA_AVX512), 0);
		d.chunk_work = 0;
		split_compare(&d, &y, "direct conv");
		free(ref);
		tt_free(&x);
		tt_free(&w);
		tt_free(&y);
		tt_free(&b);
	}
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

/*
 * The AVX-512 path's 1 x 1 kernel (ane_math_conv1_avx512.c: output
 * channels in the lanes, pixels broadcast): 1 x 1 convolutions with
 * stride 1 and no padding and MATMULs whose channel counts end inside a
 * 16-lane vector or on one, whose pixel counts leave every block width
 * from 1 to 14, depths below, at and past a group of 16 k, up to the
 * routing limit (512) and past it; with a bias and every activation
 * (ReLU and ReLU6 in the lanes, the others through the common store);
 * input rows with gaps (packed row segment by row segment) and output
 * rows with gaps (blocks across rows stored by the common path); groups,
 * batches and MATMULs of several problems; and at three chunk sizes (B packed by one chunk or by many, a block's columns
 * cut in many chunks).  The AVX-512 path must give the AVX2 path's bits
 * and leave the gaps of the output alone.
 */
static void test_avx512_1x1_same_bits_as_avx2(void)
{
	/*
	 * cin h w cout xpad ypad bias groups batch; MATMUL (cout 0): M K N,
	 * then C problems side by side in [.][C][.][.] tensors
	 */
	static const uint32_t cv[][9] = {
		{ 256, 14, 14, 256, 0, 0, 1 }, { 17, 5, 7, 33, 0, 0, 1 },
		{ 16, 1, 1, 16, 0, 0, 0 }, { 300, 3, 3, 40, 0, 0, 1 },
		{ 512, 2, 9, 47, 0, 0, 1 }, { 513, 3, 3, 20, 0, 0, 1 },
		{ 64, 6, 11, 100, 3, 0, 1 }, { 40, 7, 9, 20, 0, 5, 1 },
		{ 33, 4, 20, 64, 2, 2, 0 }, { 1, 3, 5, 7, 0, 0, 1 },
		{ 96, 13, 15, 97, 0, 0, 1 }, { 64, 5, 6, 96, 0, 0, 1, 2, 2 },
		{ 48, 3, 7, 40, 1, 0, 1, 4, 3 },
		{ 1, 1, 1, 0, 1 }, { 33, 17, 50, 0, 1 },
		{ 128, 512, 64, 0, 3 }, { 100, 255, 196, 0, 1 },
		{ 31, 16, 13, 0, 2 }, { 96, 100, 15, 0, 1 },
		{ 300, 64, 29, 0, 1 },
		/* odd channel counts: a pair's second channel not stored */
		{ 32, 14, 14, 31, 0, 0, 1 }, { 24, 2, 14, 17, 0, 0, 0 },
		{ 40, 3, 13, 63, 0, 0, 1 },
	};
	static const uint64_t works[3] = { 0, 3000, 40000 };
	const char *why = isa_missing(ANE_MATH_ISA_AVX512);
	struct tt x, w, b, y;
	uint16_t *ref;
	uint32_t i, r;

	if (!why)
		why = isa_missing(ANE_MATH_ISA_AVX2_FMA);
	if (why)
		T_SKIP(why);
	for (i = 0; i < sizeof(cv) / sizeof(cv[0]); i++) {
		const uint32_t *c = cv[i];
		int mm = c[3] == 0;
		struct ane_op_desc d = { 0 };

		if (mm) {
			tt_alloc(&x, 1, c[4], c[0], c[1], 0);
			tt_alloc(&w, 1, c[4], c[1], c[2], 0);
			tt_alloc(&y, 1, c[4], c[0], c[2], 0);
			d.op = ANE_OP_MATMUL;
		} else {
			uint32_t groups = c[7] ? c[7] : 1;

			tt_alloc(&x, c[8] ? c[8] : 1, c[0], c[1], c[2], c[4]);
			tt_alloc(&w, c[3], c[0] / groups, 1, 1, 0);
			tt_alloc(&y, c[8] ? c[8] : 1, c[3], c[1], c[2], c[5]);
			tt_alloc(&b, 1, c[3], 1, 1, 0);
			tt_fill(&b, -1, 1);
			d.op = ANE_OP_CONV;
			if (c[6])
				d.bias = b.t;
			d.p.conv = (struct ane_conv_params){
				.stride = { 1, 1 }, .dilation = { 1, 1 },
				.groups = groups,
			};
		}
		tt_fill(&x, -1, 1);
		tt_fill(&w, -1, 1);
		x.buf[t_off(&x.t, 0, 0, 0, x.t.dim[3] - 1)] = H_PINF;
		w.buf[w.elems / 3] = H_QNAN;
		d.src[0] = x.t;
		d.src[1] = w.t;
		d.dst = y.t;
		d.act = i % ANE_ACT_FIRST_PARAM;	/* parametric ones are ACT's */
		ref = malloc(y.elems * 2);
		for (r = 0; r < 2 * 3; r++) {
			uint32_t isa = r % 2 ? ANE_MATH_ISA_AVX512 : ANE_MATH_ISA_AVX2_FMA;
			size_t j, bad = 0;

			for (j = 0; j < y.elems; j++)
				y.buf[j] = SENTINEL;
			d.chunk_work = works[r / 2];
			T_EQ(ane_math_set_isa(isa), 0);
			T_EQ(run_op(&d), 0);
			if (!r)
				memcpy(ref, y.buf, y.elems * 2);
			for (j = 0; j < y.elems; j++)
				if (y.buf[j] != ref[j] && bad++ < 3)
					printf("#   case %u act %u work %llu %s: element %zu: 0x%04x, 0x%04x on avx2\n",
					       i, d.act, (unsigned long long)d.chunk_work,
					       isa_name[isa], j, y.buf[j], ref[j]);
			T_CHECK(bad == 0, "1x1 case %u: %zu elements differ", i, bad);
		}
		/* the gaps between output rows: still the sentinel */
		if (!mm && c[5])
			T_EQ(y.buf[y.t.dim[3]], SENTINEL);
		free(ref);
		tt_free(&x);
		tt_free(&w);
		tt_free(&y);
		if (!mm)
			tt_free(&b);
	}
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

/*
 * The chunk order of plans with depth blocks, from ane_plan_gemm_at()
 * alone, for shapes too big to multiply here (C blocks of 14, 14 and 4 B
 * blocks): every (problem, B block, depth block) once, its packing chunks
 * before its compute chunks, whose columns cover the block; depth blocks
 * in order within each B block; A packed by the first compute chunk of
 * the first B block of each (C block, depth block) -- before any other
 * compute chunk of it -- and by no other; each B block's partial sums
 * inside the C block's area; the plan's workspace holding it all.
 */
static void test_gemm_depth_block_chunk_order(void)
{
	/* M K N problems */
	static const uint32_t sh[][4] = {
		{ 64, 4096, 4096, 1 }, { 131, 2101, 300, 2 }, { 200, 16384, 999, 1 },
		{ 17, 16384, 33, 3 },
	};
	static const uint64_t works[2] = { 0, 3000 };
	uint32_t s, w;

	for (s = 0; s < sizeof(sh) / sizeof(sh[0]); s++)
		for (w = 0; w < 2; w++) {
			struct ane_op_desc d;
			struct ane_plan p;
			struct ane_gemm_at at;
			uint32_t nb, kbn, *next_kb, *cols, last_jb = ~0u, last_kb = ~0u;
			uint64_t ch, prob = 0, packed_for = ~0ull, c_area;
			uint32_t a_group = ~0u, bad = 0;

			good_desc(ANE_OP_MATMUL, &d);
			d.dst.dim[ANE_N] = 1;
			d.dst.dim[ANE_C] = sh[s][3];
			d.dst.dim[ANE_H] = sh[s][0];
			d.dst.dim[ANE_W] = sh[s][2];
			d.src[0].dim[ANE_W] = sh[s][1];
			d.chunk_work = works[w];
			ane_plan_make(&d, &p);
			T_CHECK(p.kblocks > 1, "shape %u: depth blocks", s);
			T_CHECK(s != 0 || (p.nblocks == 32 && p.nbc == 14),
				"shape 0: C blocks of 14 B blocks (%u, %u)", p.nblocks, p.nbc);
			c_area = (uint64_t)(p.M + 11) / 12 * 12 * p.nbc * p.nc * 4;
			T_CHECK(ane_plan_c_off(&p) >= p.b_off + (uint64_t)p.nc * p.kc * 4 &&
				ane_plan_c_off(&p) + c_area <= p.work_size,
				"shape %u: the partial sums inside the workspace", s);
			nb = p.nblocks;
			kbn = p.kblocks;
			next_kb = calloc(nb, sizeof(*next_kb));
			cols = calloc(nb, sizeof(*cols));
			for (ch = 0; ch < p.chunks; ch++) {
				uint32_t cb;

				ane_plan_gemm_at(&p, ch, &at);
				if (at.prob != prob) {
					/* a new problem: every block of the last done */
					for (cb = 0; cb < nb; cb++)
						bad += next_kb[cb] != kbn;
					memset(next_kb, 0, nb * sizeof(*next_kb));
					prob = at.prob;
				}
				cb = at.jb / p.nbc;
				bad += at.pcol != (at.jb % p.nbc) * p.nc;
				bad += at.pcol + at.nlen > p.nbc * p.nc;
				bad += at.k0 != at.kb * p.kc || at.k0 + at.kn > p.K || !at.kn;
				if (at.jb != last_jb || at.kb != last_kb) {
					/* a new (B block, depth block): packing first */
					bad += !at.pack || at.part != 0;
					bad += at.kb != next_kb[at.jb]++;
					bad += cols[at.jb] != 0;
					last_jb = at.jb;
					last_kb = at.kb;
				}
				if (at.pack)
					continue;
				if (at.c1 > at.c0) {
					bad += at.c0 != cols[at.jb];
					cols[at.jb] = at.c1 >= at.nlen ? 0 : at.c1;
				}
				if (at.pack_a) {
					bad += at.pcol != 0 || at.sub != 0;
					packed_for = at.prob * 1000000 + (uint64_t)cb * 1000 + at.kb;
					a_group = cb;
				}
				/* the A this compute chunk uses was packed for it */
				bad += packed_for != at.prob * 1000000 + (uint64_t)cb * 1000 + at.kb ||
				       a_group != cb;
			}
			for (ch = 0; ch < nb; ch++)
				bad += next_kb[ch] != kbn;
			T_CHECK(bad == 0, "shape %u work %u: %u faults in the chunk order",
				s, (unsigned int)w, bad);
			T_CHECK(prob + 1 == sh[s][3], "shape %u: every problem", s);
			free(next_kb);
			free(cols);
		}
}

/*
 * A GEMM of one B block whose last column chunk would be a sliver of at
 * most ANE_NU / 2 columns (conv 1x1's N 196: 64, 64, 64 and 4) gives
 * those columns to the chunk before (64, 64, 68): from the plan alone,
 * each A block's compute chunks cover its columns once, in order, the
 * last ending at the last column and wider than ANE_NU / 2 when there
 * is more than one (conv 1x1, 256 -> 256 at 14 x 14: 2 packing chunks
 * and 3 A blocks of 3, 11 chunks, where there were 14).  The results
 * are the SSE2 path's at the default chunk size on every path and at
 * chunk sizes that put the sliver elsewhere or nowhere.
 */
static void test_gemm_sliver_chunk_joins_the_one_before(void)
{
	/* M K N for a MATMUL; cin h w cout for a 1 x 1 CONV (cout != 0) */
	static const uint32_t sh[][4] = {
		{ 256, 14, 14, 256 }, { 64, 96, 196, 0 }, { 30, 40, 70, 0 },
		{ 100, 300, 200, 0 }, { 48, 7, 7, 40 }, { 13, 600, 100, 0 },
	};
	static const uint64_t works[4] = { 0, 1, 3000, 20000 };
	uint32_t s, w, isa, slivers = 0;

	for (s = 0; s < sizeof(sh) / sizeof(sh[0]); s++) {
		int conv = sh[s][3] != 0;
		struct tt x, wt, y;
		struct ane_op_desc d;
		uint16_t *ref;

		if (conv) {
			tt_alloc(&x, 1, sh[s][0], sh[s][1], sh[s][2], 0);
			tt_alloc(&wt, sh[s][3], sh[s][0], 1, 1, 0);
			tt_alloc(&y, 1, sh[s][3], sh[s][1], sh[s][2], 0);
		} else {
			tt_alloc(&x, 1, 1, sh[s][0], sh[s][1], 0);
			tt_alloc(&wt, 1, 1, sh[s][1], sh[s][2], 0);
			tt_alloc(&y, 1, 1, sh[s][0], sh[s][2], 0);
		}
		tt_fill(&x, -1, 1);
		tt_fill(&wt, -1, 1);
		op_desc(&d, conv ? ANE_OP_CONV : ANE_OP_MATMUL, ANE_ACT_NONE, &x,
			&wt, &y);
		if (conv)
			d.p.conv = (struct ane_conv_params){
				.stride = { 1, 1 }, .dilation = { 1, 1 }, .groups = 1,
			};
		ref = malloc(y.elems * 2);
		for (w = 0; w < 4; w++) {
			struct ane_plan p;
			struct ane_gemm_at at;
			uint64_t ch, next = 0;
			uint32_t bad = 0, last = 0;

			d.chunk_work = works[w];
			ane_plan_make(&d, &p);
			T_CHECK(p.kind == ANE_PLAN_GEMM, "shape %u: a GEMM plan", s);
			if (s == 0 && w == 0)
				T_CHECK(p.chunks == 11 && p.nsub == 3,
					"conv 1x1 256 x 196 x 256: %llu chunks, %u a block",
					(unsigned long long)p.chunks, p.nsub);
			for (ch = 0; p.nblocks == 1 && ch < p.chunks; ch++) {
				ane_plan_gemm_at(&p, ch, &at);
				if (at.pack)
					continue;
				/* in order from column 0, the last to nlen */
				bad += at.c0 != (at.sub ? next : 0);
				bad += at.c1 < at.c0;
				next = at.c1;
				if (at.sub + 1 == p.nsub) {
					bad += at.c1 != at.nlen;
					if (p.nsub > 1 && at.c1 - at.c0 <= ANE_NU / 2)
						bad++;
					last = at.c1 - at.c0;
				}
			}
			T_CHECK(bad == 0, "shape %u work %llu: %u faults in the columns",
				s, (unsigned long long)works[w], bad);
			/* the sliver the chunk before took */
			slivers += p.nblocks == 1 && p.nsub > 1 && last > p.ncc;
			for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
				if (isa_missing(isa))
					continue;
				T_EQ(ane_math_set_isa(isa), 0);
				memset(y.buf, 0x55, y.elems * 2);
				T_EQ(run_op(&d), 0);
				if (!w && isa == ANE_MATH_ISA_SSE2)
					memcpy(ref, y.buf, y.elems * 2);
				T_CHECK(!memcmp(ref, y.buf, y.elems * 2),
					"shape %u work %llu: %s differs from sse2 at the default",
					s, (unsigned long long)works[w], isa_name[isa]);
			}
		}
		free(ref);
		tt_free(&x);
		tt_free(&wt);
		tt_free(&y);
	}
	T_CHECK(slivers >= 3, "only %u plans had a sliver to take", slivers);
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

/*
 * The AVX-512 path packs a MATMUL's B (no window, at least 64 columns)
 * ANE_ROWS_GROUP rows at a time, panel by panel: packing chunks whose
 * rows are not a multiple of the group (chunk sizes that cut K anywhere),
 * depths of one group and a row, column counts that leave a 4-column and
 * a 3-column panel or none, and a B with gaps between its rows: the AVX2
 * path's bits.  The depths are past 512, so that the 12 x 32 kernel, not
 * the 1 x 1 one, reads these panels, and the B blocks at least 64 columns
 * wide (one block, or a last one of 67 columns), so that they are packed
 * by rows.
 */
static void test_avx512_b_rows_in_groups_same_bits(void)
{
	/* M K N, pad after each row of B */
	static const uint32_t mm[][4] = {
		{ 600, 520, 100, 0 }, { 600, 513, 131, 5 }, { 300, 1031, 77, 0 },
		{ 520, 777, 64, 0 }, { 40, 513, 259, 0 },
	};
	static const uint64_t works[3] = { 0, 3000, 50000 };
	const char *why = isa_missing(ANE_MATH_ISA_AVX512);
	uint32_t i, r;

	if (!why)
		why = isa_missing(ANE_MATH_ISA_AVX2_FMA);
	if (why)
		T_SKIP(why);
	for (i = 0; i < sizeof(mm) / sizeof(mm[0]); i++) {
		struct ane_op_desc d;
		struct tt a, b, y;
		uint16_t *ref;

		tt_alloc(&a, 1, 1, mm[i][0], mm[i][1], 0);
		tt_alloc(&b, 1, 1, mm[i][1], mm[i][2], mm[i][3]);
		tt_alloc(&y, 1, 1, mm[i][0], mm[i][2], 0);
		tt_fill(&a, -1, 1);
		tt_fill(&b, -1, 1);
		b.buf[t_off(&b.t, 0, 0, mm[i][1] - 1, mm[i][2] - 1)] = H_PINF;
		op_desc(&d, ANE_OP_MATMUL, ANE_ACT_NONE, &a, &b, &y);
		ref = malloc(y.elems * 2);
		for (r = 0; r < 2 * 3; r++) {
			uint32_t isa = r % 2 ? ANE_MATH_ISA_AVX512 : ANE_MATH_ISA_AVX2_FMA;

			memset(y.buf, 0x55, y.elems * 2);
			d.chunk_work = works[r / 2];
			T_EQ(ane_math_set_isa(isa), 0);
			T_EQ(run_op(&d), 0);
			if (!r)
				memcpy(ref, y.buf, y.elems * 2);
			T_CHECK(!memcmp(ref, y.buf, y.elems * 2),
				"matmul %u x %u x %u: %s at chunk_work %llu differs from avx2",
				mm[i][0], mm[i][1], mm[i][2], isa_name[isa],
				(unsigned long long)works[r / 2]);
		}
		free(ref);
		tt_free(&a);
		tt_free(&b);
		tt_free(&y);
	}
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

/*
 * Which operations take that kernel: from the plan alone (the packing and
 * the compute chunks must agree), a 1 x 1 convolution with stride 1 and
 * no padding or a MATMUL without a transposed B, depth at most 512, A
 * blocks of whole 16-channel vectors or a single block.
 */
static void test_avx512_1x1_routing(void)
{
#if defined(__x86_64__)
	/* M K N, then kh, stride, pad (top/left), x_sw, a_sc; expected; pad right */
	static const uint32_t rc[][10] = {
		{ 256, 256, 196, 1, 1, 0, 1, 1, 1 },	/* conv1x1: 96-row blocks */
		{ 512, 512, 512, 1, 1, 0, 1, 1, 0 },	/* 60-row blocks */
		{ 128, 512, 2048, 1, 1, 0, 1, 1, 1 },	/* 48-row blocks */
		{ 100, 128, 64, 1, 1, 0, 1, 1, 1 },	/* one block of 102 */
		{ 64, 1024, 4096, 1, 1, 0, 1, 1, 0 },	/* deep */
		{ 64, 576, 3136, 3, 1, 1, 1, 1, 0 },	/* 3 x 3 */
		{ 64, 64, 784, 1, 2, 0, 1, 1, 0 },	/* stride 2 */
		{ 64, 64, 784, 1, 1, 1, 1, 1, 0 },	/* padding */
		{ 64, 64, 784, 1, 1, 0, 64, 1, 0 },	/* B transposed */
		{ 64, 64, 784, 1, 1, 0, 1, 64, 0 },	/* A transposed */
		{ 64, 64, 784, 1, 1, 0, 1, 1, 0, 1 },	/* padding on the right */
	};
	uint32_t i;

	for (i = 0; i < sizeof(rc) / sizeof(rc[0]); i++) {
		struct ane_op_desc d;
		struct ane_plan p;
		struct ane_gemm g = { .kh = rc[i][3], .kw = rc[i][3],
				      .sh = rc[i][4], .sw = rc[i][4],
				      .pt = rc[i][5], .pl = rc[i][5],
				      .x_sw = rc[i][6], .a_sc = rc[i][7],
				      .h = 1, .w = rc[i][2] - rc[i][9],
				      .wo = rc[i][2] };
		struct ane_gemm_chunk c = { 0 };

		good_desc(ANE_OP_MATMUL, &d);
		d.dst.dim[ANE_H] = rc[i][0];
		d.dst.dim[ANE_W] = rc[i][2];
		d.src[0].dim[ANE_W] = rc[i][1];
		ane_plan_make(&d, &p);
		c.M = p.M;
		c.N = p.N;
		c.K = p.K;
		c.mc = p.mc;
		T_CHECK(ane_conv1_avx512_fits(&g, &c) == (int)rc[i][8],
			"routing case %u (M %u K %u, A blocks of %u rows)", i, p.M,
			p.K, p.mc);
	}
#endif
}

/*
 * The direct convolution (ane_math_conv_avx512.c) leaves out the window
 * rows that read only padding, and the window columns of a 14-pixel
 * block's first and last pixels that do, when no weight is infinite or
 * NaN (width 56 and 14 put blocks at both edges, 20, 30 and 17 at the
 * left one only): the same
 * bits as the AVX2 GEMM, which multiplies the padding's zeros (a finite
 * weight times zero adds nothing to a sum that started from +0).  Shapes
 * whose output rows lose the top, the bottom or both (padding 2 on a
 * 3-row window, two input rows, one input row: every output row keeps a
 * single window row), row stride 2, dilation 2 with padding 4, a 5-row
 * window; at three chunk sizes; input infinities, NaNs and
 * -0.  The packing chunks' words in the workspace (after the weights and
 * the 2 KiB tile) must say "finite" then; with one infinite or NaN
 * weight, in the last packing chunk's share or the first's, one of them
 * must not, and the padding rows' outputs must still be the GEMM's NaNs.
 */
/*
 * The vector paths of the direct (depthwise) convolution's taps and of
 * pooling's column step, on rows wide enough to take them (W 20 .. 70),
 * stride 1 and 2, dilation 1 and 2, pads 0 .. 2, with infinities, NaNs
 * and -0 in the input and a -0 bias: the same bits on the AVX2 and
 * AVX-512 paths as on SSE2, whole and chunked.
 */
static void test_window_vector_paths_same_bits(void)
{
	/*
	 * c h w kh kw s d pad (all sides) multiplier; pools: kind.  The
	 * depthwise rows (ane_conv_dw_fits()): rows wider and narrower than
	 * a vector (7, 14), a kernel taller than the rows they keep (9 x 1),
	 * a channel multiplier of 2; the last two with a NaN weight, whose
	 * padded taps make NaNs (no direct store).
	 */
	static const uint32_t cv[][9] = {
		{ 4, 9, 70, 3, 3, 1, 1, 1, 1 }, { 3, 8, 41, 3, 3, 2, 1, 1, 1 },
		{ 2, 7, 64, 5, 5, 1, 2, 2, 1 }, { 5, 6, 33, 3, 3, 2, 2, 0, 1 },
		{ 2, 5, 20, 1, 7, 1, 1, 0, 1 }, { 3, 4, 57, 3, 3, 2, 1, 2, 1 },
		{ 3, 7, 7, 3, 3, 1, 1, 1, 1 }, { 4, 14, 14, 3, 3, 2, 1, 1, 1 },
		{ 2, 12, 14, 9, 1, 1, 1, 0, 1 }, { 3, 10, 19, 3, 3, 1, 1, 1, 2 },
		{ 2, 9, 23, 3, 3, 2, 1, 1, 1 },
	};
	uint32_t i, isa, r, k;

	for (i = 0; i < sizeof(cv) / sizeof(cv[0]); i++) {
		const uint32_t *c = cv[i];
		uint32_t span_h = c[6] * (c[3] - 1) + 1, span_w = c[6] * (c[4] - 1) + 1;
		uint32_t ho = (c[1] + 2 * c[7] - span_h) / c[5] + 1;
		uint32_t wo = (c[2] + 2 * c[7] - span_w) / c[5] + 1;
		struct tt x, w, b, y;
		uint16_t *ref;

		tt_alloc(&x, 1, c[0], c[1], c[2], 0);
		tt_alloc(&w, c[0] * c[8], 1, c[3], c[4], 0);
		tt_alloc(&b, 1, c[0] * c[8], 1, 1, 0);
		tt_alloc(&y, 1, c[0] * c[8], ho, wo, 0);
		ref = malloc(y.elems * 2);
		tt_fill(&x, -2, 2);
		tt_fill(&w, -1, 1);
		tt_fill(&b, -1, 1);
		if (i >= 9)
			w.buf[w.elems - 2] = H_QNAN;
		x.buf[x.elems / 2] = H_PINF;
		x.buf[x.elems / 3] = H_QNAN;
		x.buf[x.elems / 5 + 3] = 0x8000;
		b.buf[0] = 0x8000;
		for (k = 0; k < 3; k++) {	/* conv, max pool, average pool */
			struct ane_op_desc d = { 0 };

			d.src[0] = x.t;
			d.dst = y.t;
			if (!k) {
				d.op = ANE_OP_CONV;
				d.act = i % 3 == 2 ? ANE_ACT_RELU : i % 2 ? ANE_ACT_RELU6 :
					i % 4 == 0 ? ANE_ACT_NONE : ANE_ACT_SIGMOID;
				d.src[1] = w.t;
				d.bias = b.t;
				d.p.conv = (struct ane_conv_params){
					.stride = { c[5], c[5] }, .dilation = { c[6], c[6] },
					.pad = { c[7], c[7], c[7], c[7] }, .groups = c[0],
				};
			} else if (c[6] == 1 && c[8] == 1) {
				d.op = ANE_OP_POOL;
				d.p.pool = (struct ane_pool_params){
					.kind = k == 1 ? ANE_POOL_MAX : ANE_POOL_AVG,
					.flags = i % 2 ? ANE_POOL_AVG_INCLUDE_PAD : 0,
					.kernel = { c[3], c[4] }, .stride = { c[5], c[5] },
					.pad = { c[7], c[7], c[7], c[7] },
				};
				if (k == 1)
					d.p.pool.flags = 0;
			} else {
				continue;
			}
			for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
				if (isa_missing(isa))
					continue;
				for (r = 0; r < 2; r++) {
					uint64_t j, bad = 0;

					d.chunk_work = r ? 700 : 0;
					T_EQ(ane_math_set_isa(isa), 0);
					memset(y.buf, 0x55, y.elems * 2);
					T_EQ(run_op(&d), 0);
					if (!isa && !r) {
						memcpy(ref, y.buf, y.elems * 2);
						continue;
					}
					for (j = 0; j < y.elems; j++)
						bad += y.buf[j] != ref[j];
					T_CHECK(bad == 0, "window case %u op %u isa %u chunked %u: %llu differ from SSE2",
						i, k, isa, r, (unsigned long long)bad);
				}
			}
		}
		free(ref);
		tt_free(&x);
		tt_free(&w);
		tt_free(&b);
		tt_free(&y);
	}
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

static void test_direct_conv_padding_rows_skipped_same_bits(void)
{
	/* cin h w cout kh kw sh dh pt pb pl pr */
	static const uint32_t cv[][12] = {
		{ 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1 },
		{ 16, 7, 20, 32, 3, 3, 1, 1, 2, 2, 1, 1 },
		{ 8, 12, 30, 16, 5, 3, 2, 1, 2, 1, 1, 1 },
		{ 8, 13, 17, 48, 3, 3, 1, 2, 4, 3, 1, 1 },
		{ 3, 2, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1 },
		{ 4, 1, 9, 16, 3, 3, 1, 1, 2, 2, 1, 1 },
		{ 8, 5, 14, 32, 3, 3, 1, 1, 1, 1, 1, 1 },
	};
	static const uint64_t works[3] = { 0, 3000, 40000 };
	uint32_t i, sp, r, isa;

	/* needs both paths */
	for (isa = ANE_MATH_ISA_AVX2_FMA; isa <= ANE_MATH_ISA_AVX512; isa++)
		if (isa_missing(isa)) {
			T_SKIP(isa_missing(isa));
		}
	for (i = 0; i < sizeof(cv) / sizeof(cv[0]); i++) {
		const uint32_t *c = cv[i];
		uint32_t ho = (c[1] + c[8] + c[9] - c[7] * (c[4] - 1) - 1) / c[6] + 1;
		uint32_t wo = c[2] + c[10] + c[11] - c[5] + 1;
		struct ane_op_desc d = { 0 };
		struct tt x, w, b, y;
		uint16_t *ref = malloc((size_t)c[3] * ho * wo * 2);

		tt_alloc(&x, 1, c[0], c[1], c[2], 0);
		tt_alloc(&w, c[3], c[0], c[4], c[5], 0);
		tt_alloc(&y, 1, c[3], ho, wo, 0);
		tt_alloc(&b, 1, c[3], 1, 1, 0);
		tt_fill(&x, -1, 1);
		tt_fill(&b, -1, 1);
		x.buf[x.elems / 2] = H_PINF;
		x.buf[x.elems / 3] = H_QNAN;
		x.buf[x.elems / 5] = 0x8000;	/* -0 */
		d.op = ANE_OP_CONV;
		d.act = i % 2 ? ANE_ACT_NONE : ANE_ACT_RELU;
		d.bias = b.t;
		d.p.conv = (struct ane_conv_params){
			.stride = { c[6], 1 }, .dilation = { c[7], 1 },
			.pad = { c[8], c[9], c[10], c[11] }, .groups = 1,
		};
		d.src[0] = x.t;
		d.dst = y.t;
		/* finite weights, then an infinity last, then a NaN first */
		for (sp = 0; sp < 3; sp++) {
			tt_fill(&w, -1, 1);
			if (sp == 1)
				w.buf[w.elems - 1] = H_PINF;
			if (sp == 2)
				w.buf[0] = H_QNAN;
			d.src[1] = w.t;
			for (r = 0; r < 1 + 3; r++) {
				struct ane_plan p;
				uint64_t off, j, special = 0, bad = 0;

				d.chunk_work = r ? works[r - 1] : 0;
				T_EQ(ane_math_set_isa(r ? ANE_MATH_ISA_AVX512 :
						      ANE_MATH_ISA_AVX2_FMA), 0);
				memset(y.buf, 0x55, y.elems * 2);
				T_EQ(run_op_keep_work(&d), 0);
				if (!r) {
					memcpy(ref, y.buf, y.elems * 2);
				} else {
					for (j = 0; j < y.elems; j++)
						if (y.buf[j] != ref[j] && bad++ < 3)
							printf("#   case %u weights %u work %llu: element %llu: 0x%04x, 0x%04x on avx2\n",
							       i, sp, (unsigned long long)d.chunk_work,
							       (unsigned long long)j, y.buf[j], ref[j]);
					T_CHECK(bad == 0, "padding rows case %u weights %u work %llu: %llu differ",
						i, sp, (unsigned long long)d.chunk_work,
						(unsigned long long)bad);
					ane_plan_make(&d, &p);
					off = (uint64_t)(c[3] + 31) / 32 * 32 * p.K + 16 * 32;
					for (j = 0; j < p.nbpack; j++) {
						uint32_t word;

						memcpy(&word, (char *)d.work + (off + j) * 4, 4);
						special |= word;
					}
					T_CHECK((special != 0) == (sp != 0),
						"padding rows case %u weights %u work %llu: special %llu",
						i, sp, (unsigned long long)d.chunk_work,
						(unsigned long long)special);
				}
				free(d.work);
				d.work = NULL;
				d.work_size = 0;
			}
		}
		free(ref);
		tt_free(&x);
		tt_free(&w);
		tt_free(&y);
		tt_free(&b);
	}
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

/*
 * ELTWISE and ACT run the rows of an (n, c) plane as one run when every
 * operand's rows are contiguous: the same bits, on every path, as the
 * same data with gaps after each row (which runs row by row), at chunk
 * sizes that cut runs inside a plane, in place, and with a second
 * operand broadcast over H or W (which must not be run as one).
 */
static void test_eltwise_plane_runs_same_bits(void)
{
	static const uint32_t shapes[][4] = { { 2, 3, 7, 45 }, { 1, 4, 56, 56 },
					      { 1, 2, 1, 33 } };
	static const uint64_t works[] = { 0, 1, 700, 5000 };
	uint32_t isa, i, k, bc, inplace, op;

	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (isa_missing(isa))
			continue;
		T_EQ(ane_math_set_isa(isa), 0);
		for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (bc = 0; bc < 3; bc++)
		for (inplace = 0; inplace < 2; inplace++)
		for (op = 0; op < 2; op++) {
			const uint32_t *sh = shapes[i];
			uint32_t bh = bc == 1 ? 1 : sh[2], bw = bc == 2 ? 1 : sh[3];
			struct tt a[2], b[2], y[2];
			struct ane_op_desc d[2];
			uint32_t n, c, h, w, v;
			size_t bad = 0;

			for (v = 0; v < 2; v++) {
				tt_alloc(&a[v], sh[0], sh[1], sh[2], sh[3], 3 * v);
				tt_alloc(&b[v], sh[0], sh[1], bh, bw, 3 * v);
				tt_alloc(&y[v], sh[0], sh[1], sh[2], sh[3], 3 * v);
			}
			for (n = 0; n < sh[0]; n++)
			for (c = 0; c < sh[1]; c++)
			for (h = 0; h < sh[2]; h++)
			for (w = 0; w < sh[3]; w++) {
				uint16_t av = rnd_special(), bv = rnd_special();

				for (v = 0; v < 2; v++) {
					a[v].buf[t_off(&a[v].t, n, c, h, w)] = av;
					if (h < bh && w < bw)
						b[v].buf[t_off(&b[v].t, n, c, h, w)] = bv;
				}
			}
			for (v = 0; v < 2; v++) {
				if (inplace)
					memcpy(y[v].buf, a[v].buf, a[v].elems * 2);
				op_desc(&d[v], op ? ANE_OP_ACT : ANE_OP_ELTWISE,
					op ? ANE_ACT_GELU : ANE_ACT_RELU,
					inplace ? &y[v] : &a[v], &b[v], &y[v]);
				d[v].p.eltwise.op = ANE_ELT_ADD;
				if (op)
					d[v].src[1] = (struct ane_tensor){ 0 };
			}
			/* the gapped copy once, the contiguous one at each size */
			T_EQ(run_op(&d[1]), 0);
			for (k = 0; k < sizeof(works) / sizeof(works[0]); k++) {
				if (inplace)
					memcpy(y[0].buf, a[0].buf, a[0].elems * 2);
				d[0].chunk_work = works[k];
				T_EQ(run_op(&d[0]), 0);
				for (n = 0; n < sh[0]; n++)
				for (c = 0; c < sh[1]; c++)
				for (h = 0; h < sh[2]; h++)
				for (w = 0; w < sh[3]; w++) {
					uint16_t g0 = y[0].buf[t_off(&y[0].t, n, c, h, w)];
					uint16_t g1 = y[1].buf[t_off(&y[1].t, n, c, h, w)];

					if (g0 != g1 && !(isnan(h2d(g0)) && isnan(h2d(g1))) &&
					    bad++ < 3)
						printf("#   %s shape %u bc %u inplace %u op %u work %llu: [%u,%u,%u,%u] 0x%04x, 0x%04x row by row\n",
						       isa_name[isa], i, bc, inplace, op,
						       (unsigned long long)works[k], n, c, h, w, g0, g1);
				}
			}
			T_CHECK(bad == 0, "%s shape %u bc %u inplace %u op %u: %zu differ",
				isa_name[isa], i, bc, inplace, op, bad);
			for (v = 0; v < 2; v++) {
				tt_free(&a[v]);
				tt_free(&b[v]);
				tt_free(&y[v]);
			}
		}
	}
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

/*
 * The selection itself: SSE2 until set (this runs first), unknown values
 * refused, and a plan -- chunk count and workspace -- that does not depend
 * on the ISA, so a descriptor validated under one runs under the other.
 */
static void test_isa_default_and_selection(void)
{
	static const uint32_t big[][3] = { { 512, 512, 512 }, { 300, 16384, 9 },
					   { 7, 33, 1000 } };
	struct ane_op_desc d;
	uint64_t ws[ANE_MATH_ISA_COUNT], ch[ANE_MATH_ISA_COUNT];
	uint32_t op, isa, i;

	T_EQ(ane_math_get_isa(), ANE_MATH_ISA_SSE2);
	T_EQ(ane_math_isa_built(ANE_MATH_ISA_SSE2), 1);
	T_EQ(ane_math_isa_built(ANE_MATH_ISA_COUNT), 0);
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_COUNT), (uint64_t)-ANE_MATH_EINVAL);
	T_EQ(ane_math_set_isa(~0u), (uint64_t)-ANE_MATH_EINVAL);
	T_EQ(ane_math_get_isa(), ANE_MATH_ISA_SSE2);
#if defined(__x86_64__)
	T_EQ(ane_math_isa_built(ANE_MATH_ISA_AVX2_FMA), 1);	/* the Makefile builds it */
	T_EQ(ane_math_isa_built(ANE_MATH_ISA_AVX512), 1);
#endif
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_AVX512),
	     ane_math_isa_built(ANE_MATH_ISA_AVX512) ? 0 : (uint64_t)-ANE_MATH_EINVAL);
	T_EQ(ane_math_get_isa(), ane_math_isa_built(ANE_MATH_ISA_AVX512) ?
	     ANE_MATH_ISA_AVX512 : ANE_MATH_ISA_SSE2);
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_AVX2_FMA),
	     ane_math_isa_built(ANE_MATH_ISA_AVX2_FMA) ? 0 : (uint64_t)-ANE_MATH_EINVAL);
	T_EQ(ane_math_get_isa(), ane_math_isa_built(ANE_MATH_ISA_AVX2_FMA) ?
	     ANE_MATH_ISA_AVX2_FMA : ANE_MATH_ISA_SSE2);
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
	T_EQ(ane_math_get_isa(), ANE_MATH_ISA_SSE2);

	for (op = ANE_OP_CONV; op < ANE_OP_COUNT + 3; op++) {
		if (op < ANE_OP_COUNT) {
			good_desc(op, &d);
		} else {	/* large matmuls, only planned: no buffers behind them */
			const uint32_t *s3 = big[op - ANE_OP_COUNT];

			memset(&d, 0, sizeof(d));
			d.op = ANE_OP_MATMUL;
			ane_tensor_dense(&d.src[0], (void *)(uintptr_t)0x10000000, 1, 1,
					 s3[0], s3[1]);
			ane_tensor_dense(&d.src[1], (void *)(uintptr_t)0x20000000, 1, 1,
					 s3[1], s3[2]);
			ane_tensor_dense(&d.dst, (void *)(uintptr_t)0x30000000, 1, 1,
					 s3[0], s3[2]);
		}
		for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
			ws[isa] = ch[isa] = 0;
			if (ane_math_set_isa(isa))
				continue;
			T_EQ(ane_op_workspace_size(&d, &ws[isa]), 0);
			ch[isa] = ane_op_chunks(&d);
		}
		for (i = 1; i < ANE_MATH_ISA_COUNT; i++)
			if (ane_math_isa_built(i))
				T_CHECK(ws[i] == ws[0] && ch[i] == ch[0],
					"op %u: isa %u plans differently", op, i);
	}
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
}

int main(void)
{
	clock_t t0 = clock();
	uint32_t isa;
	const char *why;

	T_RUN(test_isa_default_and_selection);
	T_RUN(test_gemm_depth_block_chunk_order);
	T_RUN(test_fp16_all_values_round_trip);
	T_RUN(test_fp16_rounding_ties_and_edges);
	T_RUN(test_fp16_rounding_random_is_nearest_even);
	T_RUN(test_fp16_fpu_and_integer_conversions_agree);
	T_RUN(test_activation_accuracy_over_a_sweep);
	T_RUN(test_gelu_lanes_match_scalar);
	T_RUN(test_gelu_accuracy_in_fp32_and_fp16);
	T_RUN(test_rows_agree_bit_for_bit_on_every_isa);
	T_RUN(test_norm_rows_same_bits_on_every_isa);
	T_RUN(test_activation_extremes_are_finite_and_exact);
	/* every test that runs an operation, on every ISA path there is */
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		why = isa_missing(isa);
		t_skip_why = why;	/* the path's cases: SKIP, not run */
		if (!why && ane_math_set_isa(isa)) {
			printf("not ok - ane_math_set_isa(%s)\n", isa_name[isa]);
			t_failed++;
			continue;
		}
		printf("# isa path: %s%s%s\n", isa_name[isa], why ? ": skipped, " : "",
		       why ? why : "");
		T_RUN_ISA(test_matmul_small_and_odd_shapes, isa);
		T_RUN_ISA(test_matmul_depth_blocks_are_one_fp32_chain, isa);
		T_RUN_ISA(test_matmul_batched_broadcast_transposed_fused, isa);
		T_RUN_ISA(test_matmul_transposed_a_and_dst, isa);
		T_RUN_ISA(test_matmul_packs_every_fp16_value, isa);
		T_RUN_ISA(test_conv_1x1_and_kxk, isa);
		T_RUN_ISA(test_conv_stride_padding_dilation, isa);
		T_RUN_ISA(test_conv_groups_and_depthwise, isa);
		T_RUN_ISA(test_conv_1x1_is_matmul, isa);
		T_RUN_ISA(test_conv_ieee_specials, isa);
		T_RUN_ISA(test_conv_inf_weight_over_padding_is_nan, isa);
		T_RUN_ISA(test_conv_ieee_reference_agrees, isa);
		T_RUN_ISA(test_eltwise_ops_with_broadcasting, isa);
		T_RUN_ISA(test_eltwise_max_min_propagate_nan, isa);
		T_RUN_ISA(test_rows_same_bits_on_every_path, isa);
		T_RUN_ISA(test_matmul_bias_epilogue_matches_matmul_then_add, isa);
		T_RUN_ISA(test_activation_op_all_kinds, isa);
		T_RUN_ISA(test_pool_max_and_average, isa);
		T_RUN_ISA(test_softmax_sums_to_one_and_is_stable, isa);
		T_RUN_ISA(test_norm_over_w_softmax_and_layer, isa);
		T_RUN_ISA(test_norm_over_w_specials, isa);
		T_RUN_ISA(test_chunked_is_bit_identical_to_unchunked, isa);
		T_RUN_ISA(test_split_over_cores_is_bit_identical, isa);
		T_RUN_ISA(test_validate_accepts_good_descriptors, isa);
		T_RUN_ISA(test_validate_fuzz, isa);
	}
	t_skip_why = NULL;
	T_EQ(ane_math_set_isa(ANE_MATH_ISA_SSE2), 0);
	T_RUN(test_validate_rejects_bad_op_and_fields);
	T_RUN(test_validate_rejects_bad_tensors);
	T_RUN(test_validate_rejects_bad_shapes_and_params);
	T_RUN(test_validate_rejects_bad_workspace);
	T_RUN(test_avx512_and_avx2_agree_bit_for_bit);
	T_RUN(test_direct_conv_avx512_matches_avx2);
	T_RUN(test_avx512_1x1_same_bits_as_avx2);
	T_RUN(test_avx512_1x1_routing);
	T_RUN(test_gemm_sliver_chunk_joins_the_one_before);
	T_RUN(test_avx512_b_rows_in_groups_same_bits);
	T_RUN(test_direct_conv_padding_rows_skipped_same_bits);
	T_RUN(test_window_vector_paths_same_bits);
	T_RUN(test_eltwise_plane_runs_same_bits);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++)
		if ((why = isa_missing(isa)))
			printf("# math: the %s path was SKIPPED (%s)\n",
			       isa_name[isa], why);
	printf("# %.2f s CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
	return t_summary("math");
}
