// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the engine's reductions (ANE_OP_REDUCE,
 * firmware/hw/engine/ane_math_reduce.c) and the normalizations over W of
 * image minor 4 (ANE_NORM_LOG_SOFTMAX, ANE_NORM_LAYER's epsilon): every
 * kind over every axis mask on an odd shape against a long double
 * reference computed here with libm, NaN and infinities, strided
 * operands, the same bits chunked finely, split over cores and on every
 * instruction-set path, and the validator's refusals with their errnos.
 *
 * Tolerances: SUM, MEAN, MAX, MIN and L1 give the fp16 nearest the exact
 * value, bit for bit (their double sums are exact here); PROD,
 * SUM_SQUARE, L2, LOG_SUM and LOG_SUM_EXP, and the log-softmax, are
 * within one fp16 ulp of the exact value (one of its two fp16
 * neighbours); a layer normalization within 2 ulps plus 2^-10.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ane_math.h"
#include "engine_isa.h"

#define NAN16	0x7e00u

static uint16_t f16(long double v)
{
	_Float16 h = (_Float16)v;
	uint16_t u;

	memcpy(&u, &h, 2);
	return u;
}

static double d16(uint16_t u)
{
	_Float16 h;

	memcpy(&h, &u, 2);
	return (double)h;
}

/* The fp16 after @u (towards +inf); for ulp checks on finite values. */
static double ulp16(double v)
{
	double a = fabs(v);

	if (a < 0x1p-14)
		return 0x1p-24;
	return ldexp(1.0, ilogb(a) - 10);
}

/* A dense tensor [d0..d3] over @buf. */
static void dense(struct ane_tensor *t, uint16_t *buf, const uint32_t *d)
{
	ane_tensor_dense(t, buf, d[0], d[1], d[2], d[3]);
}

static void reduce_desc(struct ane_op_desc *d, uint16_t *x, const uint32_t *xd,
			uint16_t *y, uint32_t kind, uint32_t axes)
{
	uint32_t yd[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		yd[i] = (axes >> i) & 1u ? 1 : xd[i];
	memset(d, 0, sizeof(*d));
	d->op = ANE_OP_REDUCE;
	dense(&d->src[0], x, xd);
	dense(&d->dst, y, yd);
	d->p.reduce.kind = kind;
	d->p.reduce.axes = axes;
}

/* The exact result (long double) of @kind over output @o of @x. */
static long double ref_reduce(const uint16_t *x, const uint32_t *xd,
			      uint32_t kind, uint32_t axes, uint64_t o)
{
	uint64_t lo[4], n[4], i, cnt = 1, j, r;
	long double acc = kind == ANE_REDUCE_PROD ? 1 : 0, m;
	int k, nan = 0;

	for (k = 3; k >= 0; k--) {
		uint32_t dk = (axes >> k) & 1u ? 1 : xd[k];

		lo[k] = o % dk;
		o /= dk;
		n[k] = (axes >> k) & 1u ? xd[k] : 1;
		cnt *= n[k];
	}
	m = kind == ANE_REDUCE_MIN ? INFINITY : -INFINITY;
	for (j = 0; j < cnt; j++) {
		uint64_t c[4];
		long double v;

		for (r = j, k = 3; k >= 0; k--) {
			c[k] = lo[k] + r % n[k];
			r /= n[k];
		}
		i = ((c[0] * xd[1] + c[1]) * xd[2] + c[2]) * xd[3] + c[3];
		v = d16(x[i]);
		nan |= isnan(v);
		switch (kind) {
		case ANE_REDUCE_PROD:
			acc *= v;
			break;
		case ANE_REDUCE_SUM_SQUARE:
		case ANE_REDUCE_L2:
			acc += v * v;
			break;
		case ANE_REDUCE_L1:
			acc += fabsl(v);
			break;
		case ANE_REDUCE_MAX:
		case ANE_REDUCE_LOG_SUM_EXP:
			m = v > m ? v : m;
			break;
		case ANE_REDUCE_MIN:
			m = v < m ? v : m;
			break;
		default:
			acc += v;
			break;
		}
	}
	switch (kind) {
	case ANE_REDUCE_MEAN:
		return acc / cnt;
	case ANE_REDUCE_MAX:
	case ANE_REDUCE_MIN:
		return nan ? NAN : m;
	case ANE_REDUCE_L2:
		return sqrtl(acc);
	case ANE_REDUCE_LOG_SUM:
		return logl(acc);
	case ANE_REDUCE_LOG_SUM_EXP:
		if (nan)
			return NAN;
		if (isinf(m))
			return m;
		for (acc = 0, j = 0; j < cnt; j++) {
			uint64_t c[4];

			for (r = j, k = 3; k >= 0; k--) {
				c[k] = lo[k] + r % n[k];
				r /= n[k];
			}
			i = ((c[0] * xd[1] + c[1]) * xd[2] + c[2]) * xd[3] + c[3];
			acc += expl((long double)d16(x[i]) - m);
		}
		return m + logl(acc);
	default:
		return acc;
	}
}

/* Does @got meet the stated tolerance of @kind for the exact @want? */
static int reduce_ok(uint32_t kind, uint16_t got, long double want)
{
	double g = d16(got);

	if (isnan(want))
		return isnan(g);
	if (kind <= ANE_REDUCE_MIN || kind == ANE_REDUCE_L1)
		return got == f16(want);
	if (isinf(want) || fabsl(want) >= 65520)
		return got == f16(want);
	return fabsl((long double)g - want) < ulp16((double)want);
}

/* Values where @kind's result is well inside fp16: PROD near 1, LOG_SUM > 0. */
static void fill(uint16_t *x, uint64_t n, uint32_t kind)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		double v = kind == ANE_REDUCE_PROD ? t_rngf(0.97, 1.03) :
			   kind == ANE_REDUCE_LOG_SUM ? t_rngf(0.01, 4) :
			   t_rngf(-4, 4);

		x[i] = f16(v);
	}
}

static const uint32_t t_shape[4] = { 3, 5, 7, 9 };

/* Every kind over every axis mask of [3, 5, 7, 9] against the exact value. */
static void test_reduce_every_kind_every_mask(void)
{
	uint64_t n = 3 * 5 * 7 * 9, o, outs, bad;
	uint16_t *x = malloc(n * 2), *y = malloc(n * 2);
	struct ane_op_desc d;
	uint32_t kind, axes;

	for (kind = 0; kind < ANE_REDUCE_COUNT; kind++) {
		fill(x, n, kind);
		for (axes = 1; axes <= 15; axes++) {
			reduce_desc(&d, x, t_shape, y, kind, axes);
			T_EQ(t_run_op(&d), 0);
			outs = (uint64_t)d.dst.dim[0] * d.dst.dim[1] * d.dst.dim[2] *
			       d.dst.dim[3];
			for (o = 0, bad = 0; o < outs; o++) {
				long double want = ref_reduce(x, t_shape, kind, axes, o);

				if (!reduce_ok(kind, y[o], want) && bad++ < 3)
					printf("#   kind %u axes 0x%x [%llu]: %a, want %La\n",
					       kind, axes, (unsigned long long)o,
					       d16(y[o]), want);
			}
			T_CHECK(!bad, "kind %u axes 0x%x: %llu of %llu wrong", kind, axes,
				(unsigned long long)bad, (unsigned long long)outs);
		}
	}
	free(x);
	free(y);
}

/* One reduction of @n values over W: the result. */
static uint16_t reduce_w(const uint16_t *v, uint32_t n, uint32_t kind)
{
	uint32_t xd[4] = { 1, 1, 1, n };
	uint16_t y = 0x1234;
	struct ane_op_desc d;

	reduce_desc(&d, (uint16_t *)v, xd, &y, kind, ANE_REDUCE_AXIS(ANE_W));
	T_EQ(t_run_op(&d), 0);
	return y;
}

/* NaN propagates, infinities are what IEEE makes of them, LSE is stable. */
static void test_reduce_nan_and_infinities(void)
{
	const uint16_t one = 0x3c00, inf = 0x7c00, ninf = 0xfc00, nan = 0x7e01;
	uint16_t v[5] = { one, 0x4000, nan, 0xc000, one };
	uint32_t kind;

	for (kind = 0; kind < ANE_REDUCE_COUNT; kind++)
		T_CHECK(isnan(d16(reduce_w(v, 5, kind))), "kind %u of a NaN", kind);
	/* MAX, MIN, LOG_SUM_EXP: the canonical NaN */
	T_EQ(reduce_w(v, 5, ANE_REDUCE_MAX), NAN16);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_MIN), NAN16);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_LOG_SUM_EXP), NAN16);
	v[2] = inf;
	T_EQ(reduce_w(v, 5, ANE_REDUCE_MAX), inf);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_SUM), inf);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_L2), inf);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_LOG_SUM_EXP), inf);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_MIN), 0xc000);
	v[1] = ninf;
	T_CHECK(isnan(d16(reduce_w(v, 5, ANE_REDUCE_SUM))), "inf - inf");
	T_EQ(reduce_w(v, 5, ANE_REDUCE_MIN), ninf);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_L1), inf);
	/* all -inf: LSE -inf; a -inf among finite values adds nothing */
	v[0] = v[1] = v[2] = v[3] = v[4] = ninf;
	T_EQ(reduce_w(v, 5, ANE_REDUCE_LOG_SUM_EXP), ninf);
	v[0] = one;
	T_EQ(reduce_w(v, 5, ANE_REDUCE_LOG_SUM_EXP), one);
	/* stable: 60000 five times is 60000 + log 5, not inf */
	v[0] = v[1] = v[2] = v[3] = v[4] = f16(60000);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_LOG_SUM_EXP), f16(60000 + logl(5)));
	/* PROD overflows to inf; LOG_SUM of 0 is -inf, of a negative NaN */
	T_EQ(reduce_w(v, 5, ANE_REDUCE_PROD), inf);
	v[0] = v[1] = v[2] = v[3] = v[4] = 0x8000;
	T_EQ(reduce_w(v, 5, ANE_REDUCE_LOG_SUM), ninf);
	T_EQ(reduce_w(v, 5, ANE_REDUCE_SUM), 0);	/* 0 + -0 + ... is +0 */
	T_EQ(reduce_w(v, 5, ANE_REDUCE_MAX), 0x8000);
	v[0] = 0xbc00;
	T_EQ(reduce_w(v, 5, ANE_REDUCE_LOG_SUM), NAN16);
	/* SUM rounds once: 2048 + 1 + 1 is 2050, not 2048 twice */
	v[0] = f16(2048);
	v[1] = v[2] = one;
	v[3] = v[4] = 0;
	T_EQ(reduce_w(v, 5, ANE_REDUCE_SUM), f16(2050));
}

/*
 * Strided operands (a padded source, every other element of the
 * destination) and an activation: the same as a dense run, then the
 * activation of the fp32 result.
 */
static void test_reduce_strided_and_fused_act(void)
{
	uint32_t xd[4] = { 2, 3, 4, 5 };
	uint16_t x[2 * 3 * 4 * 8], xs[120], y[2 * 3 * 4 * 2], yd[24];
	struct ane_op_desc d, dd;
	unsigned int i, j;

	for (i = 0; i < 2 * 3 * 4 * 8; i++)
		x[i] = 0x7bff;	/* a large value where the padding is */
	for (i = 0; i < 120; i++) {
		xs[i] = f16(t_rngf(-3, 3));
		x[i / 5 * 8 + i % 5] = xs[i];
	}
	reduce_desc(&dd, xs, xd, yd, ANE_REDUCE_SUM, ANE_REDUCE_AXIS(ANE_W));
	T_EQ(t_run_op(&dd), 0);
	reduce_desc(&d, x, xd, y, ANE_REDUCE_SUM, ANE_REDUCE_AXIS(ANE_W));
	d.src[0].stride[ANE_H] = 8;
	d.src[0].stride[ANE_C] = 32;
	d.src[0].stride[ANE_N] = 96;
	d.src[0].size = sizeof(x);
	for (i = 0; i < 4; i++)
		d.dst.stride[i] *= 2;
	d.dst.size = sizeof(y);
	memset(y, 0x55, sizeof(y));
	d.act = ANE_ACT_RELU;
	T_EQ(t_run_op(&d), 0);
	for (j = 0; j < 24; j++) {
		uint16_t want = d16(yd[j]) < 0 ? 0 : yd[j];

		T_EQ(y[2 * j], want);
		T_EQ(y[2 * j + 1], 0x5555);
	}
	/* the activation sees the fp32 result: sigmoid of a SUM */
	d.act = ANE_ACT_SIGMOID;
	T_EQ(t_run_op(&d), 0);
	for (j = 0; j < 24; j++) {
		double s = 0;

		for (i = 0; i < 5; i++)
			s += d16(xs[j * 5 + i]);
		s = 1 / (1 + exp(-s));
		T_CHECK(fabs(d16(y[2 * j]) - s) <= ulp16(s), "sigmoid [%u]: %g, want %g",
			j, d16(y[2 * j]), s);
	}
}

/* All kinds and masks on a bigger shape, chunked and split: the same bits. */
static void run_all(uint16_t *x, const uint32_t *xd, uint16_t *out,
		    uint64_t chunk_work, uint32_t parts)
{
	uint64_t n = (uint64_t)xd[0] * xd[1] * xd[2] * xd[3];
	struct ane_op_desc d;
	uint32_t kind, axes;

	for (kind = 0; kind < ANE_REDUCE_COUNT; kind++)
		for (axes = 1; axes <= 15; axes++) {
			uint16_t *y = out + (kind * 16 + axes) * n;

			reduce_desc(&d, x, xd, y, kind, axes);
			d.chunk_work = chunk_work;
			if (parts > 1) {
				/* as many parts as the outermost kept axis allows */
				uint32_t k = 0, p = 1;

				while (k < 4 && d.dst.dim[k] == 1)
					k++;
				if (k < 4)
					p = d.dst.dim[k] < parts ? d.dst.dim[k] : parts;
				T_EQ(t_run_split(&d, p), 0);
			} else {
				T_EQ(t_run_op(&d), 0);
			}
		}
}

static void test_reduce_same_bits_chunked_split_and_every_isa(void)
{
	static const uint32_t xd[4] = { 2, 33, 17, 65 };
	uint64_t n = 2 * 33 * 17 * 65, sz = ANE_REDUCE_COUNT * 16 * n;
	uint16_t *x = malloc(n * 2), *a = calloc(sz, 2), *b = calloc(sz, 2);
	struct ane_op_desc d;
	uint32_t isa;
	uint64_t i;

	for (i = 0; i < n; i++)
		x[i] = f16(t_rngf(-1.5, 1.5));
	x[77] = 0x7c00;		/* an infinity in one row */
	run_all(x, xd, a, 0, 1);
	/* chunks of a few elements: LOG_SUM_EXP's two passes over segments */
	reduce_desc(&d, x, xd, b, ANE_REDUCE_LOG_SUM_EXP, 0xf);
	d.chunk_work = 1000;
	T_CHECK(ane_op_chunks(&d) > 100, "%llu chunks", (unsigned long long)ane_op_chunks(&d));
	memset(b, 0, sz * 2);
	run_all(x, xd, b, 1000, 1);
	T_CHECK(!memcmp(a, b, sz * 2), "chunked differs");
	memset(b, 0, sz * 2);
	run_all(x, xd, b, 0, 3);
	T_CHECK(!memcmp(a, b, sz * 2), "split differs");
	for (isa = 1; isa < ANE_MATH_ISA_COUNT; isa++) {
		const char *why = t_isa_missing(isa);

		if (why) {
			printf("# not compared on isa %s: %s\n", t_isa_name[isa], why);
			continue;
		}
		T_EQ(ane_math_set_isa(isa), 0);
		memset(b, 0, sz * 2);
		run_all(x, xd, b, 5000, 1);
		T_CHECK(!memcmp(a, b, sz * 2), "isa %s differs", t_isa_name[isa]);
	}
	ane_math_set_isa(ANE_MATH_ISA_SSE2);
	free(x);
	free(a);
	free(b);
}

/* The validator: each malformed REDUCE refused with its errno. */
static void test_reduce_validation_refuses(void)
{
	uint32_t xd[4] = { 2, 3, 4, 5 };
	uint16_t x[120], y[120], w[4096];
	struct ane_op_desc d;
	uint64_t ws;

	reduce_desc(&d, x, xd, y, ANE_REDUCE_SUM, 0x6);
	T_EQ(ane_op_workspace_size(&d, &ws), 0);
	T_EQ(ws, 0);
#define REFUSE(stmt, err) do { \
	reduce_desc(&d, x, xd, y, ANE_REDUCE_SUM, 0x6); \
	stmt; \
	T_EQ(ane_op_validate(&d), -(err)); \
} while (0)
	REFUSE(d.p.reduce.axes = 0, ANE_MATH_EINVAL);
	REFUSE(d.p.reduce.axes = 0x16, ANE_MATH_EINVAL);
	REFUSE(d.p.reduce.axes = 0x10, ANE_MATH_EINVAL);
	REFUSE(d.p.reduce.kind = ANE_REDUCE_COUNT, ANE_MATH_EINVAL);
	/* reduced, not 1; kept, but 1 */
	REFUSE(ane_tensor_dense(&d.dst, y, 2, 3, 1, 5), ANE_MATH_EINVAL);
	REFUSE(ane_tensor_dense(&d.dst, y, 2, 1, 1, 1), ANE_MATH_EINVAL);
	REFUSE(d.act = ANE_ACT_FIRST_PARAM, ANE_MATH_EINVAL);	/* parametric */
	REFUSE(d.act = ANE_ACT_COUNT, ANE_MATH_EINVAL);
	REFUSE(d.src[1] = d.src[0], ANE_MATH_EINVAL);
	REFUSE(d.bias = d.src[0], ANE_MATH_EINVAL);
	REFUSE(d.dst.base = x, ANE_MATH_EINVAL);		/* overlaps src */
	REFUSE(d.src[0].size = 100, ANE_MATH_ENOSPC);
	REFUSE(((uint8_t *)&d.p)[9] = 1, ANE_MATH_EINVAL);	/* past the params */
#undef REFUSE
	/* accepted: every activation without parameters */
	reduce_desc(&d, x, xd, y, ANE_REDUCE_SUM, 0x6);
	for (d.act = ANE_ACT_NONE; d.act < ANE_ACT_FIRST_PARAM; d.act++)
		T_EQ(ane_op_validate(&d), 0);
	/* a workspace once an element takes more than one unit */
	reduce_desc(&d, x, xd, y, ANE_REDUCE_LOG_SUM_EXP, 0x1);
	T_EQ(ane_op_workspace_size(&d, &ws), 0);
	T_EQ(ws, ANE_MATH_WORK_ALIGN);
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);		/* none given */
	d.work = (void *)(((uintptr_t)w + 63) & ~(uintptr_t)63);
	d.work_size = 64;
	T_EQ(ane_op_validate(&d), 0);
}

/* ------------------------------------------------------------ norm */

static void norm_desc(struct ane_op_desc *d, uint16_t *x, uint16_t *y,
		      const uint32_t *xd, uint32_t kind, uint32_t eps)
{
	memset(d, 0, sizeof(*d));
	d->op = ANE_OP_NORM;
	dense(&d->src[0], x, xd);
	dense(&d->dst, y, xd);
	d->p.norm.kind = kind;
	d->p.norm.eps = eps;
}

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/*
 * Log-softmax over W against the exact value, within one ulp, rows of
 * 1, 7, 64 and 333, large values (stable), in place; the same bits on
 * every path.
 */
static void test_norm_log_softmax(void)
{
	static const uint32_t widths[] = { 1, 7, 64, 333 };
	uint16_t *x = malloc(6 * 333 * 2), *y = malloc(6 * 333 * 2), *y0 = malloc(6 * 333 * 2);
	struct ane_op_desc d;
	unsigned int wi, r, i, bad = 0;
	uint32_t isa;

	for (wi = 0; wi < 4; wi++) {
		uint32_t W = widths[wi], xd[4] = { 1, 2, 3, W };

		for (i = 0; i < 6 * W; i++)
			x[i] = f16(wi == 3 ? t_rngf(30000, 60000) : t_rngf(-9, 9));
		norm_desc(&d, x, y, xd, ANE_NORM_LOG_SOFTMAX, 0);
		T_EQ(t_run_op(&d), 0);
		for (r = 0; r < 6; r++) {
			long double mx = -INFINITY, s = 0;

			for (i = 0; i < W; i++)
				mx = fmaxl(mx, d16(x[r * W + i]));
			for (i = 0; i < W; i++)
				s += expl(d16(x[r * W + i]) - mx);
			for (i = 0; i < W; i++) {
				long double want = d16(x[r * W + i]) - mx - logl(s);
				double got = d16(y[r * W + i]);

				if (fabsl(got - want) >= ulp16((double)want) && bad++ < 3)
					printf("#   W %u [%u][%u]: %g, want %Lg\n", W, r, i,
					       got, want);
			}
		}
		memcpy(y0, y, 6 * W * 2);
		for (isa = 1; isa < ANE_MATH_ISA_COUNT; isa++) {
			if (t_isa_missing(isa))
				continue;
			T_EQ(ane_math_set_isa(isa), 0);
			memset(y, 0, 6 * W * 2);
			T_EQ(t_run_op(&d), 0);
			T_CHECK(!memcmp(y, y0, 6 * W * 2), "W %u isa %s differs", W,
				t_isa_name[isa]);
		}
		ane_math_set_isa(ANE_MATH_ISA_SSE2);
		/* in place */
		memcpy(y, x, 6 * W * 2);
		norm_desc(&d, y, y, xd, ANE_NORM_LOG_SOFTMAX, 0);
		T_EQ(t_run_op(&d), 0);
		T_CHECK(!memcmp(y, y0, 6 * W * 2), "W %u in place differs", W);
	}
	T_CHECK(!bad, "%u elements off by an ulp or more", bad);
	/* a NaN makes the row NaN, as the softmax's */
	x[3] = 0x7e00;
	norm_desc(&d, x, y, (const uint32_t[4]){ 1, 1, 1, 7 }, ANE_NORM_LOG_SOFTMAX, 0);
	T_EQ(t_run_op(&d), 0);
	for (i = 0; i < 7; i++)
		T_CHECK(isnan(d16(y[i])), "[%u] %g", i, d16(y[i]));
	free(x);
	free(y);
	free(y0);
}

/*
 * Layer normalization's epsilon: 0 and the bits of 1e-5 are the same
 * bits as before; 0.25 and 1e-30 against the exact value.
 */
static void test_norm_layer_eps(void)
{
	static const float epss[] = { 0.25f, 1e-30f, 3.0f };
	uint32_t xd[4] = { 1, 3, 2, 37 };
	uint16_t x[222], y[222], y0[222];
	struct ane_op_desc d;
	unsigned int e, r, i, bad = 0;

	for (i = 0; i < 222; i++)
		x[i] = f16(t_rngf(-2, 2));
	norm_desc(&d, x, y0, xd, ANE_NORM_LAYER, 0);
	T_EQ(t_run_op(&d), 0);
	norm_desc(&d, x, y, xd, ANE_NORM_LAYER, ANE_NORM_EPS_DEFAULT);
	T_EQ(t_run_op(&d), 0);
	T_CHECK(!memcmp(y, y0, sizeof(y)), "eps 1e-5 differs from the default");
	for (e = 0; e < 3; e++) {
		norm_desc(&d, x, y, xd, ANE_NORM_LAYER, f32_bits(epss[e]));
		T_EQ(t_run_op(&d), 0);
		for (r = 0; r < 6; r++) {
			long double m = 0, v = 0;

			for (i = 0; i < 37; i++)
				m += d16(x[r * 37 + i]);
			m /= 37;
			for (i = 0; i < 37; i++)
				v += (d16(x[r * 37 + i]) - m) * (d16(x[r * 37 + i]) - m);
			v = v / 37 + epss[e];
			for (i = 0; i < 37; i++) {
				long double want = (d16(x[r * 37 + i]) - m) / sqrtl(v);
				double got = d16(y[r * 37 + i]);

				if (fabsl(got - want) > 2 * ulp16((double)want) + 0x1p-10 &&
				    bad++ < 3)
					printf("#   eps %g [%u][%u]: %g, want %Lg\n",
					       epss[e], r, i, got, want);
			}
		}
	}
	T_CHECK(!bad, "%u elements off", bad);
	/* a constant row and a large epsilon: zeros, not NaN */
	for (i = 0; i < 37; i++)
		x[i] = 0x3c00;
	norm_desc(&d, x, y, xd, ANE_NORM_LAYER, f32_bits(1.0f));
	T_EQ(t_run_op(&d), 0);
	for (i = 0; i < 37; i++)
		T_EQ(y[i], 0);
}

static void test_norm_validation_refuses(void)
{
	uint32_t xd[4] = { 1, 2, 3, 8 };
	uint16_t x[48], y[48];
	struct ane_op_desc d;
	uint64_t ws;

	/* everything but the workspace */
#define REFUSE(kind, eps) do { \
	norm_desc(&d, x, y, xd, (kind), (eps)); \
	T_EQ(ane_op_workspace_size(&d, &ws), -ANE_MATH_EINVAL); \
} while (0)
	REFUSE(ANE_NORM_LAYER, 0x7fc00000u);		/* NaN */
	REFUSE(ANE_NORM_LAYER, 0x7f800000u);		/* +inf */
	REFUSE(ANE_NORM_LAYER, f32_bits(-1.0f));
	REFUSE(ANE_NORM_LAYER, 0x80000000u);		/* -0 */
	REFUSE(ANE_NORM_SOFTMAX, f32_bits(1e-5f));
	REFUSE(ANE_NORM_LOG_SOFTMAX, f32_bits(1e-5f));
	REFUSE(ANE_NORM_COUNT, 0);
#undef REFUSE
	norm_desc(&d, x, y, xd, ANE_NORM_LAYER, 1);	/* the least subnormal */
	T_EQ(ane_op_workspace_size(&d, &ws), 0);
	norm_desc(&d, x, y, xd, ANE_NORM_LAYER, 0x7f7fffffu);
	T_EQ(ane_op_workspace_size(&d, &ws), 0);
	norm_desc(&d, x, y, xd, ANE_NORM_LOG_SOFTMAX, 0);
	T_EQ(ane_op_workspace_size(&d, &ws), 0);
	T_EQ(ws, 64);
	d.act = ANE_ACT_RELU;
	T_EQ(ane_op_workspace_size(&d, &ws), -ANE_MATH_EINVAL);
}

int main(void)
{
	T_RUN(test_reduce_validation_refuses);
	T_RUN(test_norm_validation_refuses);
	T_RUN_EVERY_ISA(test_reduce_every_kind_every_mask);
	T_RUN_EVERY_ISA(test_reduce_nan_and_infinities);
	T_RUN(test_reduce_strided_and_fused_act);
	T_RUN(test_reduce_same_bits_chunked_split_and_every_isa);
	T_RUN(test_norm_log_softmax);
	T_RUN_EVERY_ISA(test_norm_layer_eps);
	return t_summary("reduce");
}
