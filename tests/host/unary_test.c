// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the engine's unary math and DIV/POW (image minor version
 * 4, firmware/hw/engine/ane_math_fn.c): every activation from SILU to
 * THRESHOLDED_RELU over all 65536 fp16 inputs, DIV and POW over a grid
 * of fp16 pairs, each against libane's reference executor
 * (lib/ane_reference_fn.c, its own elementary functions) and against the
 * C library's double functions, within the fp16 ulps engine.rst states;
 * the IEEE special values; sqrt correctly rounded in fp32; the fp32
 * accuracy of the functions, sin and cos far beyond 2^20 included; the
 * same bits on every instruction-set path, chunked and split; the
 * validator's refusals and the task-descriptor words.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ane_math.h"
#include "engine_isa.h"
#include "ane_internal.h"
#include "firmware/spec/ane_td.h"

#define NACT	(ANE_ACT_COUNT - ANE_ACT_SILU)

/* Each new act's parameters in the sweeps, and its tolerance in fp16 ulps. */
static const struct {
	const char *name;
	float alpha, beta;
	unsigned int ulps;
} acts[NACT] = {
	[ANE_ACT_SILU - ANE_ACT_SILU] = { "silu", 0, 0, 1 },
	[ANE_ACT_EXP - ANE_ACT_SILU] = { "exp", 0, 0, 1 },
	[ANE_ACT_LOG - ANE_ACT_SILU] = { "log", 0, 0, 1 },
	[ANE_ACT_SQRT - ANE_ACT_SILU] = { "sqrt", 0, 0, 0 },
	[ANE_ACT_RECIP - ANE_ACT_SILU] = { "recip", 0, 0, 0 },
	[ANE_ACT_ERF - ANE_ACT_SILU] = { "erf", 0, 0, 1 },
	[ANE_ACT_ABS - ANE_ACT_SILU] = { "abs", 0, 0, 0 },
	[ANE_ACT_NEG - ANE_ACT_SILU] = { "neg", 0, 0, 0 },
	[ANE_ACT_SOFTPLUS - ANE_ACT_SILU] = { "softplus", 0, 0, 1 },
	[ANE_ACT_SOFTSIGN - ANE_ACT_SILU] = { "softsign", 0, 0, 1 },
	[ANE_ACT_HARDSWISH - ANE_ACT_SILU] = { "hardswish", 0, 0, 1 },
	[ANE_ACT_SIN - ANE_ACT_SILU] = { "sin", 0, 0, 1 },
	[ANE_ACT_COS - ANE_ACT_SILU] = { "cos", 0, 0, 1 },
	[ANE_ACT_ELU - ANE_ACT_SILU] = { "elu", 1.0f, 0, 1 },
	[ANE_ACT_SELU - ANE_ACT_SILU] = { "selu", 1.67326324f, 1.05070098f, 1 },
	[ANE_ACT_LEAKY - ANE_ACT_SILU] = { "leaky", 0.01f, 0, 1 },
	[ANE_ACT_CLIP - ANE_ACT_SILU] = { "clip", -2.5f, 6.0f, 0 },
	[ANE_ACT_HARDSIGMOID - ANE_ACT_SILU] = { "hardsigmoid", 0.2f, 0.5f, 1 },
	[ANE_ACT_CELU - ANE_ACT_SILU] = { "celu", 1.5f, 0, 1 },
	[ANE_ACT_THRESHOLDED_RELU - ANE_ACT_SILU] = { "thresholded_relu", 1.0f, 0, 0 },
};

static uint32_t f_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bits_f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static double h2d(uint16_t h)
{
	return bits_f(ane_fp16_to_fp32_bits(h));
}

/* fp16 ulps between @a and @b: 0 for two NaNs or two zeros, huge for NaN and not. */
static unsigned int h_ulps(uint16_t a, uint16_t b)
{
	int na = (a & 0x7fff) > 0x7c00, nb = (b & 0x7fff) > 0x7c00;
	int32_t oa = a & 0x8000 ? -(int32_t)(a & 0x7fff) : a;
	int32_t ob = b & 0x8000 ? -(int32_t)(b & 0x7fff) : b;

	if (na || nb)
		return na && nb ? 0 : 100000;
	return (unsigned int)(oa > ob ? oa - ob : ob - oa);
}

/* The C library's value of act @act (ANE_ACT_SILU on), a third opinion. */
static double libm_act(uint32_t act, double a, double b, double x)
{
	switch (act) {
	case ANE_ACT_SILU:
		return x < -745 ? -0.0 : x / (1 + exp(-x));
	case ANE_ACT_EXP:
		return exp(x);
	case ANE_ACT_LOG:
		return log(x);
	case ANE_ACT_SQRT:
		return sqrt(x);
	case ANE_ACT_RECIP:
		return 1 / x;
	case ANE_ACT_ERF:
		return erf(x);
	case ANE_ACT_ABS:
		return fabs(x);
	case ANE_ACT_NEG:
		return -x;
	case ANE_ACT_SOFTPLUS:
		return fmax(x, 0) + log1p(exp(-fabs(x)));
	case ANE_ACT_SOFTSIGN:
		return isinf(x) ? copysign(1, x) : x / (1 + fabs(x));
	case ANE_ACT_HARDSWISH:
		return x <= -3 ? 0 : x >= 3 ? x : x * (x + 3) / 6;
	case ANE_ACT_SIN:
		return sin(x);
	case ANE_ACT_COS:
		return cos(x);
	case ANE_ACT_ELU:
		return x > 0 ? x : a * expm1(x);
	case ANE_ACT_SELU:
		return b * (x > 0 ? x : a * expm1(x));
	case ANE_ACT_LEAKY:
		return x >= 0 ? x : a * x;
	case ANE_ACT_CLIP:
		return isnan(x) ? x : fmin(fmax(x, a), b);
	case ANE_ACT_HARDSIGMOID:
		return isnan(a * x + b) ? a * x + b : fmax(0, fmin(1, a * x + b));
	case ANE_ACT_CELU:
		return x > 0 ? x : a * expm1(x / a);
	default:	/* THRESHOLDED_RELU */
		return isnan(x) ? x : x > a ? x : 0;
	}
}

/* An ACT descriptor of @act over the 65536 fp16 values in @x into @y. */
static void act_desc(struct ane_op_desc *d, uint32_t act, uint16_t *x,
		     uint16_t *y, uint32_t h, uint32_t w)
{
	memset(d, 0, sizeof(*d));
	d->op = ANE_OP_ACT;
	d->act = act;
	ane_tensor_dense(&d->src[0], x, 1, 1, h, w);
	ane_tensor_dense(&d->dst, y, 1, 1, h, w);
	if (ane_act_is_parametric(act)) {
		d->p.act.alpha = f_bits(acts[act - ANE_ACT_SILU].alpha);
		d->p.act.beta = f_bits(acts[act - ANE_ACT_SILU].beta);
	}
}

/*
 * The SSE2 path's outputs of every act, which the other paths must match
 * (T_RUN_EVERY_ISA runs SSE2 first).
 */
static uint16_t *sse2_out[NACT];

static void test_every_fp16_input_every_act(void)
{
	uint16_t *x = malloc(65536 * 2), *y = malloc(65536 * 2);
	uint32_t act, i;

	for (i = 0; i < 65536; i++)
		x[i] = (uint16_t)i;
	for (act = ANE_ACT_SILU; act < ANE_ACT_COUNT; act++) {
		unsigned int k = act - ANE_ACT_SILU, worst = 0, wlibm = 0, u;
		double a = acts[k].alpha, b = acts[k].beta;
		struct ane_op_desc d;
		uint32_t off = 0, at = 0;

		act_desc(&d, act, x, y, 256, 256);
		memset(y, 0xa5, 65536 * 2);
		T_EQ(t_run_op(&d), 0);
		for (i = 0; i < 65536; i++) {
			uint16_t r = ane__fp16_from_double(ane__ref_act(act, a, b, h2d(x[i])));
			uint16_t l = ane__fp16_from_double(libm_act(act, a, b, h2d(x[i])));

			u = h_ulps(y[i], r);
			off += u > 0;
			if (u > worst) {
				worst = u;
				at = i;
			}
			u = h_ulps(y[i], l);
			wlibm = u > wlibm ? u : wlibm;
		}
		printf("#   %-16s worst %u ulp (at 0x%04x: engine 0x%04x), %u off by one; against libm %u\n",
		       acts[k].name, worst, at, y[at], off, wlibm);
		T_CHECK(worst <= acts[k].ulps, "%s: %u ulps from the reference at 0x%04x",
			acts[k].name, worst, at);
		T_CHECK(wlibm <= acts[k].ulps, "%s: %u ulps from libm", acts[k].name, wlibm);
		if (!sse2_out[k]) {	/* the first run, SSE2's */
			sse2_out[k] = malloc(65536 * 2);
			memcpy(sse2_out[k], y, 65536 * 2);
		} else {
			T_CHECK(!memcmp(sse2_out[k], y, 65536 * 2), "%s: not SSE2's bits",
				acts[k].name);
		}
	}
	free(x);
	free(y);
}

/* A grid of fp16 values: every 64th pattern and the special ones. */
static uint32_t grid(uint16_t *g, int pow_b)
{
	static const uint16_t sp[] = {
		0x0000, 0x8000, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4200, 0xc200,
		0x3800, 0xb800, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8001, 0x7bff,
		0xfbff, 0x4400, 0xc400, 0x3555, 0x5640, 0xd640,
	};
	uint32_t n = 0, i;

	for (i = 0; i < sizeof(sp) / sizeof(sp[0]); i++)
		g[n++] = sp[i];
	for (i = 0; i < 65536; i += pow_b ? 509 : 67)
		g[n++] = (uint16_t)i;
	return n;
}

static uint16_t *sse2_bin[2];

static void test_div_and_pow_over_a_grid(void)
{
	uint16_t *a = malloc(1200 * 2), *b = malloc(200 * 2), *y;
	uint32_t na = grid(a, 0), nb = grid(b, 1), op, i, j;

	y = malloc((size_t)na * nb * 2);
	for (op = ANE_ELT_DIV; op <= ANE_ELT_POW; op++) {
		struct ane_op_desc d = { .op = ANE_OP_ELTWISE };
		unsigned int worst = 0, wlibm = 0, shown = 0, u;
		size_t n = (size_t)na * nb;

		ane_tensor_dense(&d.src[0], a, 1, 1, na, 1);
		ane_tensor_dense(&d.src[1], b, 1, 1, 1, nb);
		ane_tensor_dense(&d.dst, y, 1, 1, na, nb);
		d.p.eltwise.op = op;
		T_EQ(t_run_op(&d), 0);
		for (i = 0; i < na; i++)
			for (j = 0; j < nb; j++) {
				double va = h2d(a[i]), vb = h2d(b[j]);
				double r = op == ANE_ELT_DIV ? va / vb : ane__ref_pow(va, vb);
				double l = op == ANE_ELT_DIV ? va / vb : pow(va, vb);
				uint16_t got = y[(size_t)i * nb + j];

				u = h_ulps(got, ane__fp16_from_double(r));
				if (u && shown++ < 4)
					printf("#   %s(%g, %g): engine %g, reference %g\n",
					       op == ANE_ELT_DIV ? "div" : "pow", va, vb,
					       h2d(got), r);
				worst = u > worst ? u : worst;
				u = h_ulps(got, ane__fp16_from_double(l));
				wlibm = u > wlibm ? u : wlibm;
			}
		printf("#   %s: %u x %u, worst %u ulp, against libm %u\n",
		       op == ANE_ELT_DIV ? "div" : "pow", na, nb, worst, wlibm);
		T_CHECK(worst <= (op == ANE_ELT_POW), "%u ulps", worst);
		T_CHECK(wlibm <= (op == ANE_ELT_POW), "%u ulps from libm", wlibm);
		if (!sse2_bin[op - ANE_ELT_DIV]) {	/* SSE2's, run first */
			sse2_bin[op - ANE_ELT_DIV] = malloc(n * 2);
			memcpy(sse2_bin[op - ANE_ELT_DIV], y, n * 2);
		} else {
			T_CHECK(!memcmp(sse2_bin[op - ANE_ELT_DIV], y, n * 2),
				"op %u: not SSE2's bits", op);
		}
	}
	free(a);
	free(b);
	free(y);
}

#define INF	INFINITY

/* The IEEE special values, fp32 in and out (ane_act_fn(), ane_powf()). */
static void test_special_values(void)
{
	const float nan = NAN;

	T_CHECK(isnan(ane_logf(-1)) && ane_logf(0) == -INF && ane_logf(-0.0f) == -INF &&
		ane_logf(INF) == INF && isnan(ane_logf(-INF)) && ane_logf(1) == 0, "log");
	T_CHECK(isnan(ane_sqrtf(-1)) && isnan(ane_sqrtf(-INF)) && ane_sqrtf(INF) == INF &&
		f_bits(ane_sqrtf(-0.0f)) == 0x80000000u && ane_sqrtf(4) == 2, "sqrt");
	T_CHECK(isnan(ane_sqrtf(nan)) && isnan(ane_logf(nan)), "NaN in");
	T_CHECK(ane_act_fn(ANE_ACT_RECIP, 0, 0, 0) == INF &&
		ane_act_fn(ANE_ACT_RECIP, 0, 0, -0.0f) == -INF &&
		f_bits(ane_act_fn(ANE_ACT_RECIP, 0, 0, -INF)) == 0x80000000u, "recip");
	T_CHECK(ane_act_fn(ANE_ACT_EXP, 0, 0, -INF) == 0 &&
		ane_act_fn(ANE_ACT_EXP, 0, 0, INF) == INF &&
		ane_act_fn(ANE_ACT_EXP, 0, 0, 89) == INF, "exp");
	T_CHECK(ane_act_fn(ANE_ACT_SOFTPLUS, 0, 0, -INF) == 0 &&
		ane_act_fn(ANE_ACT_SOFTPLUS, 0, 0, INF) == INF &&
		ane_act_fn(ANE_ACT_SOFTPLUS, 0, 0, 1e30f) == 1e30f, "softplus");
	T_CHECK(ane_act_fn(ANE_ACT_SOFTSIGN, 0, 0, INF) == 1 &&
		ane_act_fn(ANE_ACT_SOFTSIGN, 0, 0, -INF) == -1, "softsign");
	T_CHECK(ane_act_fn(ANE_ACT_SILU, 0, 0, -INF) == 0 &&
		ane_act_fn(ANE_ACT_SILU, 0, 0, INF) == INF, "silu");
	T_CHECK(ane_act_fn(ANE_ACT_HARDSWISH, 0, 0, -INF) == 0 &&
		ane_act_fn(ANE_ACT_HARDSWISH, 0, 0, INF) == INF, "hardswish");
	T_CHECK(ane_erff(INF) == 1 && ane_erff(-INF) == -1 &&
		f_bits(ane_erff(-0.0f)) == 0x80000000u, "erf");
	T_CHECK(isnan(ane_sinf(INF)) && isnan(ane_cosf(-INF)) &&
		f_bits(ane_sinf(-0.0f)) == 0x80000000u && ane_cosf(0) == 1, "sin, cos");
	T_CHECK(f_bits(ane_act_fn(ANE_ACT_ABS, 0, 0, -0.0f)) == 0 &&
		f_bits(ane_act_fn(ANE_ACT_NEG, 0, 0, 0.0f)) == 0x80000000u, "abs, neg of 0");
	T_CHECK(ane_act_fn(ANE_ACT_ELU, 1, 0, -INF) == -1 &&
		ane_act_fn(ANE_ACT_CELU, 2, 0, -INF) == -2 &&
		ane_act_fn(ANE_ACT_SELU, 2, 3, -INF) == -6, "elu, celu, selu at -inf");
	T_CHECK(ane_act_fn(ANE_ACT_CLIP, -1, 1, INF) == 1 &&
		isnan(ane_act_fn(ANE_ACT_CLIP, -1, 1, nan)), "clip");
	T_CHECK(ane_act_fn(ANE_ACT_HARDSIGMOID, 0.2f, 0.5f, INF) == 1 &&
		ane_act_fn(ANE_ACT_HARDSIGMOID, 0.2f, 0.5f, -INF) == 0, "hardsigmoid");
	T_CHECK(ane_act_fn(ANE_ACT_LEAKY, 0.1f, 0, -INF) == -INF, "leaky");
	T_CHECK(ane_act_fn(ANE_ACT_THRESHOLDED_RELU, 1, 0, 1) == 0 &&
		ane_act_fn(ANE_ACT_THRESHOLDED_RELU, 1, 0, INF) == INF, "thresholded");
	/* NaN passes every one */
	{
		uint32_t act;

		for (act = ANE_ACT_SILU; act < ANE_ACT_COUNT; act++)
			T_CHECK(isnan(ane_act_fn(act, 1, 1, nan)), "act %u keeps NaN", act);
	}
	/* pow: C99 F.9.4.4 */
	T_CHECK(ane_powf(nan, 0) == 1 && ane_powf(nan, -0.0f) == 1 &&
		ane_powf(1, nan) == 1 && ane_powf(-1, INF) == 1 && ane_powf(-1, -INF) == 1,
		"pow ones");
	T_CHECK(isnan(ane_powf(nan, 1)) && isnan(ane_powf(2, nan)) &&
		isnan(ane_powf(-8, 1.0f / 3)) && isnan(ane_powf(-2, 0.5f)), "pow NaN");
	T_CHECK(ane_powf(-2, 3) == -8 && ane_powf(-2, 2) == 4 && ane_powf(-2, -1) == -0.5f &&
		ane_powf(2, 10) == 1024 && ane_powf(3, 5) == 243 && ane_powf(4, 0.5f) == 2,
		"pow exact");
	T_CHECK(ane_powf(0, -1) == INF && ane_powf(-0.0f, -1) == -INF &&
		ane_powf(-0.0f, -2) == INF && ane_powf(0, -0.5f) == INF &&
		f_bits(ane_powf(-0.0f, 3)) == 0x80000000u && f_bits(ane_powf(-0.0f, 2)) == 0 &&
		ane_powf(0, 2) == 0, "pow zeros");
	T_CHECK(ane_powf(0.5f, -INF) == INF && ane_powf(2, -INF) == 0 &&
		ane_powf(0.5f, INF) == 0 && ane_powf(2, INF) == INF, "pow inf exponent");
	T_CHECK(f_bits(ane_powf(-INF, -3)) == 0x80000000u && ane_powf(-INF, -2) == 0 &&
		ane_powf(-INF, 3) == -INF && ane_powf(-INF, 2) == INF &&
		ane_powf(INF, -1) == 0 && ane_powf(INF, 0.5f) == INF, "pow inf base");
	T_CHECK(ane_powf(10, 39) == INF && ane_powf(10, -46) == 0 &&
		ane_powf(-3, 1e30f) == INF, "pow over/underflow, huge even exponent");
	/* the reference agrees on every one of these */
	T_CHECK(ane__ref_pow(-0.0, -1) == -INF && ane__ref_pow(NAN, 0) == 1 &&
		isnan(ane__ref_pow(-8, 1.0 / 3)) && ane__ref_pow(-2, 3) == -8, "reference pow");
}

/* sqrt is correctly rounded: a sample of 2^32 / 97 fp32 values against libm. */
static void test_sqrt_is_correctly_rounded(void)
{
	uint64_t u;
	size_t bad = 0;

	for (u = 0; u < 0x7f800000u; u += 97) {
		float x = bits_f((uint32_t)u), want = (float)sqrt((double)x);

		if (f_bits(ane_sqrtf(x)) != f_bits(want) && bad++ < 4)
			printf("#   sqrt(%a) = %a, want %a\n", x, ane_sqrtf(x), want);
	}
	T_CHECK(bad == 0, "%zu wrong", bad);
}

/* fp32 ulps of @got from the double @want. */
static double f_ulps(float got, double want)
{
	double ulp;

	if (isnan(want) || isinf(want))
		return isnan(want) ? (isnan(got) ? 0 : 1e9) : (got == want ? 0 : 1e9);
	ulp = fabs(want) < 0x1p-126 ? 0x1p-149 : ldexp(1, ilogb(want) - 23);
	return fabs(got - want) / ulp;
}

/* The functions' fp32 accuracy, before the rounding to fp16 (engine.rst). */
static void test_fp32_accuracy(void)
{
	double ws = 0, wc = 0, wl = 0, we = 0, wp = 0, wf = 0;
	uint32_t i;

	for (i = 0; i < 2000000; i++) {
		float x = (float)t_rngf(-20, 20), big = bits_f((uint32_t)(t_rng() & 0x7f7fffffu));
		float p = (float)t_rngf(0, 8), q = (float)t_rngf(-12, 12);

		ws = fmax(ws, f_ulps(ane_sinf(x), sin(x)));
		ws = fmax(ws, f_ulps(ane_sinf(big), sin(big)));
		wc = fmax(wc, f_ulps(ane_cosf(x), cos(x)));
		wc = fmax(wc, f_ulps(ane_cosf(-big), cos(-big)));
		wl = fmax(wl, f_ulps(ane_logf(big), log(big)));
		we = fmax(we, f_ulps(ane_act_fn(ANE_ACT_EXP, 0, 0, x * 4), exp(x * 4)));
		if (fabs(pow(p, q)) <= FLT_MAX)		/* else inf, as it should */
			wp = fmax(wp, f_ulps(ane_powf(p, q), pow(p, q)));
		wf = fmax(wf, f_ulps(ane_erff(x / 4), erf(x / 4)));
	}
	printf("#   fp32 ulps: sin %.3f, cos %.3f (to 3.4e38), log %.3f, exp %.3f, pow %.3f, erf %.3f\n",
	       ws, wc, wl, we, wp, wf);
	T_CHECK(ws <= 0.51 && wc <= 0.51 && wl <= 0.51 && we <= 0.51 && wp <= 0.51,
		"sin %g cos %g log %g exp %g pow %g", ws, wc, wl, we, wp);
	T_CHECK(wf <= 0.6, "erf %g", wf);	/* 1 - erfc from 2 on */
}

/* Chunked finely and split over cores: the same bits. */
static void test_chunked_and_split_same_bits(void)
{
	uint16_t *x = malloc(65536 * 2), *y0 = malloc(65536 * 2), *y1 = malloc(65536 * 2);
	uint32_t act, i, parts;

	for (i = 0; i < 65536; i++)
		x[i] = (uint16_t)(i * 40503u);
	for (act = ANE_ACT_SILU; act < ANE_ACT_COUNT; act += 3) {
		struct ane_op_desc d;

		act_desc(&d, act, x, y0, 64, 1024);
		T_EQ(t_run_op(&d), 0);
		act_desc(&d, act, x, y1, 64, 1024);
		d.chunk_work = 777;
		T_EQ(t_run_op(&d), 0);
		T_CHECK(!memcmp(y0, y1, 65536 * 2), "act %u chunked", act);
		for (parts = 2; parts <= 4; parts++) {
			memset(y1, 0, 65536 * 2);
			act_desc(&d, act, x, y1, 64, 1024);
			T_EQ(t_run_split(&d, parts), 0);
			T_CHECK(!memcmp(y0, y1, 65536 * 2), "act %u split %u", act, parts);
		}
		/* in place */
		memcpy(y1, x, 65536 * 2);
		act_desc(&d, act, y1, y1, 64, 1024);
		T_EQ(t_run_op(&d), 0);
		T_CHECK(!memcmp(y0, y1, 65536 * 2), "act %u in place", act);
	}
	free(x);
	free(y0);
	free(y1);
}

/* Every refusal of ane_op_validate() for the new fields. */
static void test_validator_refusals(void)
{
	uint16_t x[64] = { 0 }, w[9] = { 0 }, y[64];
	struct ane_op_desc d, g;
	uint32_t act;

	act_desc(&g, ANE_ACT_ELU, x, y, 8, 8);
	T_EQ(ane_op_validate(&g), 0);
	for (act = ANE_ACT_ELU; act < ANE_ACT_COUNT; act++) {
		d = g;
		d.act = act;
		T_EQ(ane_op_validate(&d), 0);
		d.p.act.alpha = 0x7fc00000u;		/* NaN alpha */
		T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
		d.p.act.alpha = f_bits(1);
		d.p.act.beta = 0xff800000u;		/* -inf beta */
		T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	}
	d = g;
	d.act = ANE_ACT_CELU;
	d.p.act.alpha = 0x80000000u;			/* -0 */
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d.p.act.alpha = 0;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* parameters on an activation that takes none */
	for (act = 0; act < ANE_ACT_ELU; act++) {
		d = g;
		d.act = act;
		d.p.act.alpha = 0;
		d.p.act.beta = 0;
		T_EQ(ane_op_validate(&d), 0);
		d.p.act.beta = f_bits(1);
		T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	}
	/* a parametric act fused into another operation */
	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_CONV;
	ane_tensor_dense(&d.src[0], x, 1, 1, 8, 8);
	ane_tensor_dense(&d.src[1], w, 1, 1, 3, 3);
	ane_tensor_dense(&d.dst, y, 1, 1, 6, 6);
	d.p.conv.stride[0] = d.p.conv.stride[1] = 1;
	d.p.conv.dilation[0] = d.p.conv.dilation[1] = 1;
	d.p.conv.groups = 1;
	d.act = ANE_ACT_SIN;
	T_EQ(ane_op_workspace_size(&d, &(uint64_t){ 0 }), 0);
	d.act = ANE_ACT_LEAKY;
	T_EQ(ane_op_workspace_size(&d, &(uint64_t){ 0 }), -ANE_MATH_EINVAL);
	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_ELTWISE;
	d.p.eltwise.op = ANE_ELT_POW;
	ane_tensor_dense(&d.src[0], x, 1, 1, 8, 8);
	ane_tensor_dense(&d.src[1], x + 8, 1, 1, 1, 8);
	ane_tensor_dense(&d.dst, y, 1, 1, 8, 8);
	d.act = ANE_ACT_COS;
	T_EQ(ane_op_validate(&d), 0);
	d.act = ANE_ACT_CLIP;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d.act = ANE_ACT_NONE;
	d.p.eltwise.op = ANE_ELT_COUNT;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* a softmax has no parameters */
	act_desc(&d, ANE_ACT_NONE, x, y, 8, 8);
	d.op = ANE_OP_SOFTMAX;
	T_EQ(ane_op_workspace_size(&d, &(uint64_t){ 0 }), 0);
	d.p.act.alpha = 1;
	T_EQ(ane_op_workspace_size(&d, &(uint64_t){ 0 }), -ANE_MATH_EINVAL);
}

/* ane_td_bad_word() and ane_image_td_desc(): words 4 and 5. */
static void test_td_words(void)
{
	struct ane_img_td td = { 0 };
	struct ane_op_desc d;

	td.words[ANE_TD_OP] = ANE_OP_ACT;
	td.words[ANE_TD_ACT] = ANE_ACT_HARDSIGMOID;
	td.words[ANE_TD_ACT_ALPHA] = f_bits(0.2f);
	td.words[ANE_TD_ACT_BETA] = f_bits(0.5f);
	T_EQ(ane_td_bad_word(&td), -1);
	T_EQ(ane_image_td_desc(&td, &d), 0);
	T_EQ(d.p.act.alpha, f_bits(0.2f));
	T_EQ(d.p.act.beta, f_bits(0.5f));
	td.words[ANE_TD_ACT] = ANE_ACT_SOFTPLUS;	/* takes none */
	T_EQ(ane_td_bad_word(&td), ANE_TD_ACT_ALPHA);
	td.words[ANE_TD_ACT_ALPHA] = 0;
	T_EQ(ane_td_bad_word(&td), ANE_TD_ACT_BETA);
	td.words[ANE_TD_OP] = ANE_OP_SOFTMAX;
	td.words[ANE_TD_ACT] = ANE_ACT_ELU;	/* (refused later, by the engine) */
	T_EQ(ane_td_bad_word(&td), ANE_TD_ACT_BETA);
	td.words[ANE_TD_ACT_BETA] = 0;
	td.words[ANE_TD_OP] = ANE_OP_ELTWISE;
	td.words[ANE_TD_SUBOP] = ANE_ELT_POW;
	T_EQ(ane_td_bad_word(&td), -1);
	td.words[ANE_TD_ACT_ALPHA] = 1;
	T_EQ(ane_td_bad_word(&td), ANE_TD_ACT_ALPHA);
}

int main(void)
{
	uint32_t k;

	T_RUN_EVERY_ISA(test_every_fp16_input_every_act);
	T_RUN_EVERY_ISA(test_div_and_pow_over_a_grid);
	T_RUN_EVERY_ISA(test_chunked_and_split_same_bits);
	T_RUN(test_special_values);
	T_RUN(test_sqrt_is_correctly_rounded);
	T_RUN(test_fp32_accuracy);
	T_RUN(test_validator_refusals);
	T_RUN(test_td_words);
	for (k = 0; k < NACT; k++)
		free(sse2_out[k]);
	free(sse2_bin[0]);
	free(sse2_bin[1]);
	return t_summary("unary");
}
