// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reductions (ANE_OP_REDUCE) and what the normalizations over W added in
 * image minor 4 need (the log-softmax's logarithm, layer normalization's
 * epsilon).
 *
 * Every dst element combines its reduced elements one by one in NCHW
 * order (W fastest) in a double accumulator -- a sum, a product, a
 * maximum -- the same operations in the same order whatever the chunks,
 * the cores or the instruction set: this file has no vector path, and
 * its segments hand the accumulator on in the workspace rather than
 * combine partial results.  The sums of fp16 values are exact in double
 * for up to 2^13 terms (each is a multiple of 2^-24 below 2^16).  The
 * result is rounded to fp16 once: through fp32 by round-to-odd, which
 * gives the double's own nearest-even fp16, or, with an activation, to
 * fp32, the activation in fp32 and then to fp16, as every operation's.
 *
 * Floating point: built and run as ane_math.c is (see there and
 * Documentation/accel/ane/engine.rst).
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_fpu.h"

/* sparse cannot parse the vector types (see ane_math.c). */
#ifndef __CHECKER__

#define ANE_QNAN_F	ane_bits_f(0x7fc00000u)

/*
 * log(x) in fp32 without libm (Cephes' logf): x = 2^e m with m in
 * [sqrt(1/2), sqrt(2)), log(m) = f - f^2/2 + f^3 P(f) for f = m - 1, and
 * e ln 2 added in two parts; about 1 ulp.  log(0) = -inf, NaN below 0.
 */
static float ane_reduce_logf(float x)
{
	uint32_t u = ane_f_bits(x);
	float f, z, y, fe;
	int e;

	if (x != x || x == ANE_INF)
		return x;
	if (x == 0.0f)
		return -ANE_INF;
	if (u & 0x80000000u)
		return ANE_QNAN_F;
	e = 0;
	if (u < 0x00800000u) {		/* subnormal: scale by 2^25 */
		x *= 33554432.0f;
		u = ane_f_bits(x);
		e = -25;
	}
	e += (int)(u >> 23) - 126;	/* x = 2^e m, m in [0.5, 1) */
	f = ane_bits_f((u & 0x007fffffu) | 0x3f000000u);
	if (f < 0.70710678118654752440f) {
		e--;
		f = f + f - 1.0f;
	} else {
		f = f - 1.0f;
	}
	z = f * f;
	y = ((((((((7.0376836292e-2f * f - 1.1514610310e-1f) * f +
		   1.1676998740e-1f) * f - 1.2420140846e-1f) * f +
		 1.4249322787e-1f) * f - 1.6668057665e-1f) * f +
	       2.0000714765e-1f) * f - 2.4999993993e-1f) * f +
	     3.3333331174e-1f) * f * z;
	fe = (float)e;
	y += -2.12194440e-4f * fe;
	y += -0.5f * z;
	return f + y + 0.693359375f * fe;
}

/*
 * sqrt(x) in double for x >= 0 a sum of squares of fp16 values (so
 * between 2^-48 and 2^73 when not 0): 1 / sqrt(x) from the integer
 * estimate and five Newton steps, then x y with one correction.
 */
static double ane_reduce_sqrt(double x)
{
	float f = (float)x;
	double y, r;
	int i;

	if (x != x || x == 0.0 || x == (double)ANE_INF)
		return x;
	y = ane_bits_f(0x5f375a86u - (ane_f_bits(f) >> 1));
	for (i = 0; i < 5; i++)
		y = y * (1.5 - 0.5 * x * y * y);
	r = x * y;
	return r + 0.5 * y * (x - r * r);
}

/* A double rounded to fp16 once: to fp32 by round-to-odd, then to fp16. */
static uint16_t ane_d2h(double v)
{
	float f = (float)v;
	uint32_t b = ane_f_bits(f);
	double af = f < 0 ? -(double)f : (double)f, av = v < 0 ? -v : v;

	/* inexact and even: the odd one of the two fp32 around v */
	if ((double)f != v && v == v && !(b & 1u))
		b = av > af ? b + 1 : b - 1;
	return ane_f2h(ane_bits_f(b));
}

/* One dst element's reduction so far (in the workspace between units). */
struct ane_reduce_acc {
	double s;	/* sum, product or sum of exponentials */
	float m;	/* maximum (MAX, LOG_SUM_EXP) or minimum */
	uint32_t nan;	/* a NaN seen (MAX, MIN, LOG_SUM_EXP) */
};

static void ane_reduce_init(uint32_t kind, struct ane_reduce_acc *a)
{
	a->s = kind == ANE_REDUCE_PROD ? 1.0 : 0.0;
	a->m = kind == ANE_REDUCE_MIN ? ANE_INF : -ANE_INF;
	a->nan = 0;
}

/* @len elements of @x at stride @s into @a: pass @pass of @kind. */
static void ane_reduce_elems(uint32_t kind, uint32_t pass,
			     struct ane_reduce_acc *a, const uint16_t *x,
			     uint64_t s, uint64_t len)
{
	double acc = a->s, m = a->m;
	float mx = a->m;
	uint32_t nan = a->nan;
	uint64_t i;
	float v;

	switch (kind) {
	case ANE_REDUCE_SUM:
	case ANE_REDUCE_MEAN:
	case ANE_REDUCE_LOG_SUM:
		for (i = 0; i < len; i++)
			acc += (double)ane_h2f(x[i * s]);
		break;
	case ANE_REDUCE_SUM_SQUARE:
	case ANE_REDUCE_L2:
		for (i = 0; i < len; i++) {
			double t = (double)ane_h2f(x[i * s]);

			acc += t * t;
		}
		break;
	case ANE_REDUCE_L1:
		for (i = 0; i < len; i++)
			acc += (double)ane_fabsf(ane_h2f(x[i * s]));
		break;
	case ANE_REDUCE_PROD:
		for (i = 0; i < len; i++)
			acc *= (double)ane_h2f(x[i * s]);
		break;
	case ANE_REDUCE_MIN:
		for (i = 0; i < len; i++) {
			v = ane_h2f(x[i * s]);
			nan |= v != v;
			mx = v < mx ? v : mx;
		}
		break;
	default:	/* MAX, and LOG_SUM_EXP's first pass */
		if (pass) {
			/* x - max exact in double; every exponent <= 0 */
			for (i = 0; i < len; i++)
				acc += (double)ane_expf((float)((double)ane_h2f(x[i * s]) - m));
			break;
		}
		for (i = 0; i < len; i++) {
			v = ane_h2f(x[i * s]);
			nan |= v != v;
			mx = v > mx ? v : mx;
		}
		break;
	}
	a->s = acc;
	a->m = mx;
	a->nan = nan;
}

/* The shape of one REDUCE: its reduced axes, outermost first. */
struct ane_reduce_shape {
	uint32_t nr;
	uint32_t ext[ANE_NDIM];
	uint64_t str[ANE_NDIM];
};

/*
 * Reduced elements [@k0, @k1) of the element whose first reduced element
 * is @x0, in runs along the innermost reduced axis.
 */
static void ane_reduce_span(uint32_t kind, uint32_t pass,
			    const struct ane_reduce_shape *sh,
			    const uint16_t *x0, uint64_t k0, uint64_t k1,
			    struct ane_reduce_acc *a)
{
	uint64_t idx[ANE_NDIM], k = k0, off, run;
	uint32_t in = sh->nr - 1, j;

	for (j = sh->nr; j-- > 0;) {
		idx[j] = k % sh->ext[j];
		k /= sh->ext[j];
	}
	for (k = k0; k < k1; k += run) {
		run = sh->ext[in] - idx[in];
		if (run > k1 - k)
			run = k1 - k;
		for (off = 0, j = 0; j < sh->nr; j++)
			off += idx[j] * sh->str[j];
		ane_reduce_elems(kind, pass, a, x0 + off, sh->str[in], run);
		idx[in] += run;
		for (j = in; j > 0 && idx[j] == sh->ext[j]; j--) {
			idx[j] = 0;
			idx[j - 1]++;
		}
	}
}

/* The result of a finished accumulator, in double. */
static double ane_reduce_result(uint32_t kind, const struct ane_reduce_acc *a,
				uint64_t count)
{
	double r;

	switch (kind) {
	case ANE_REDUCE_MEAN:
		r = a->s / (double)count;
		break;
	case ANE_REDUCE_MAX:
	case ANE_REDUCE_MIN:
		r = a->nan ? ANE_QNAN_F : a->m;
		break;
	case ANE_REDUCE_L2:
		r = ane_reduce_sqrt(a->s);
		break;
	case ANE_REDUCE_LOG_SUM:
		r = ane_reduce_logf((float)a->s);
		break;
	case ANE_REDUCE_LOG_SUM_EXP:
		/* all -inf: -inf; a +inf: +inf */
		if (a->nan)
			r = ANE_QNAN_F;
		else if (a->m == ANE_INF || a->m == -ANE_INF)
			r = a->m;
		else
			r = a->m + ane_reduce_logf((float)a->s);
		break;
	default:	/* SUM, PROD, SUM_SQUARE, L1 */
		r = a->s;
		break;
	}
	return r != r ? (double)ANE_QNAN_F : r;
}

/*
 * Units [chunk * per, ...) of a REDUCE plan (see ane_reduce_passes()):
 * dst element o is the o-th in NCHW order; its reduced elements start
 * at src[0]'s element of the same coordinates along the axes kept.
 */
void ane_run_reduce(const struct ane_op_desc *d, const struct ane_plan *p,
		    uint64_t chunk)
{
	const struct ane_tensor *x = &d->src[0], *y = &d->dst;
	uint32_t kind = d->p.reduce.kind, passes = ane_reduce_passes(d);
	uint64_t u = chunk * p->rows_per_chunk, per = (uint64_t)passes * p->nseg;
	uint64_t end = u + p->rows_per_chunk < p->rows ? u + p->rows_per_chunk :
		       p->rows;
	struct ane_reduce_acc local, *a = per > 1 ? d->work : &local;
	struct ane_reduce_shape sh = { 0 };
	uint64_t count = 1;
	uint32_t i;

	for (i = 0; i < ANE_NDIM; i++) {
		if (!(d->p.reduce.axes & ANE_REDUCE_AXIS(i)))
			continue;
		sh.ext[sh.nr] = x->dim[i];
		sh.str[sh.nr++] = x->stride[i];
		count *= x->dim[i];
	}
	for (; u < end; u++) {
		uint64_t o = u / per, r = u % per, t = o, xo = 0, yo = 0, k0;
		uint32_t pass = (uint32_t)(r / p->nseg);
		uint64_t sg = r % p->nseg;
		float f;

		for (i = ANE_NDIM; i-- > 0;) {
			xo += t % y->dim[i] * x->stride[i];
			yo += t % y->dim[i] * y->stride[i];
			t /= y->dim[i];
		}
		if (!r)
			ane_reduce_init(kind, a);
		k0 = sg * p->seg_w;
		/* the exponentials only of a finite maximum */
		if (!pass || (!a->nan && a->m != -ANE_INF && a->m != ANE_INF))
			ane_reduce_span(kind, pass, &sh, ane_src(x) + xo, k0,
					k0 + p->seg_w < count ? k0 + p->seg_w : count,
					a);
		if (r + 1 < per)
			continue;
		if (d->act == ANE_ACT_NONE) {
			((uint16_t *)y->base)[yo] =
				ane_d2h(ane_reduce_result(kind, a, count));
			continue;
		}
		f = (float)ane_reduce_result(kind, a, count);
		ane_act_vec(d->act, &f, 1);
		((uint16_t *)y->base)[yo] = ane_f2h(f);
	}
}

/* ------------------------------------------------------------ norm */

float ane_norm_eps(const struct ane_norm_params *np)
{
	return ane_bits_f(np->eps ? np->eps : ANE_NORM_EPS_DEFAULT);
}

/*
 * x - max exact in fp32 or not, the same operations on every path: the
 * row converted by ane_h2f_row() (F16C where the CPU has it, exact
 * either way), then two subtractions per element in a loop the compiler
 * vectorizes (IEEE subtractions: the same bits in any width).
 */
float ane_log_softmax_row(float *e, const uint16_t *x, uint64_t s, uint32_t n,
			  float mx, float sum)
{
	float l = ane_reduce_logf(sum);
	uint32_t i;

	ane_h2f_row(x, s, n, e);
	for (i = 0; i < n; i++)
		e[i] = (e[i] - mx) - l;
	return 1.0f;
}

#endif /* __CHECKER__ */
