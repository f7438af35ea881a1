// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's unary math and the binary POW (image minor version 4):
 * SiLU, exp, log, sqrt, reciprocal, erf, abs, neg, softplus, softsign,
 * hard-swish, sin, cos and the parametric activations (ELU, SELU, leaky
 * ReLU, clip, hard sigmoid, CELU, thresholded ReLU), one scalar function
 * each.  Every instruction set runs these same functions -- the vector
 * row loops (ane_math_vec.h) return 0 for them and the GEMM stores go
 * through ane_act_vec() -- so the bits are the same on every path.
 *
 * Most are evaluated in double precision from the fp32 argument and
 * rounded to fp32 once, then to fp16 by the caller as every activation
 * is; sqrt is correctly rounded in fp32 with integers only (fdlibm's
 * bit-by-bit method: __builtin_sqrtf would call sqrtf() for a negative
 * argument, to set errno, which the kernel cannot link).  No libm.
 *
 * Floating point: built and run as ane_math.c is (see there and
 * Documentation/accel/ane/engine.rst, "Unary math").
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_fpu.h"

/* sparse cannot parse the vector types of ane_math_fpu.h (see ane_math.c). */
#ifndef __CHECKER__

static inline double ane_bits_d(uint64_t u)
{
	union { uint64_t u; double d; } v = { .u = u };

	return v.d;
}

static inline uint64_t ane_d_bits(double d)
{
	union { double d; uint64_t u; } v = { .d = d };

	return v.u;
}

#define ANE_NANF	ane_bits_f(0x7fc00000u)
#define ANE_INF_D	ane_bits_d(0x7ff0000000000000ull)

/* 2^n for -1022 <= n <= 1023. */
static inline double ane_pow2i(int n)
{
	return ane_bits_d((uint64_t)(n + 1023) << 52);
}

/*
 * e^x in double: x = k ln2 + r (ln2 in two parts, Cody-Waite, k ln2_hi
 * exact), |r| <= ln2/2, e^r by its Taylor polynomial of degree 13 (the
 * remainder below 4e-18), scaled by 2^k in two steps (subnormal results
 * need no special case).
 */
static double ane_exp_d(double x)
{
	double kd, r, p;
	int64_t k;
	int k1, i;

	if (x != x)
		return x;
	if (x > 709.782712893384)
		return ANE_INF_D;
	if (x < -745.2)
		return 0.0;
	kd = x * 1.4426950408889634;
	k = (int64_t)(kd + (kd < 0 ? -0.5 : 0.5));
	r = x - (double)k * 6.93147180369123816490e-01;
	r -= (double)k * 1.90821492927058770002e-10;
	p = 1.0;
	for (i = 13; i >= 1; i--)
		p = 1.0 + p * r / i;
	k1 = (int)(k / 2);
	return p * ane_pow2i(k1) * ane_pow2i((int)k - k1);
}

/* e^x - 1 without cancellation near 0 (Taylor, degree 16, below 0.35). */
static double ane_expm1_d(double x)
{
	double p = 1.0;
	int i;

	if (!(x > -0.35 && x < 0.35))
		return ane_exp_d(x) - 1.0;	/* NaN too */
	for (i = 16; i >= 2; i--)
		p = 1.0 + p * x / i;
	return p * x;
}

/*
 * log(x) in double for x > 0 finite (a normal double): x = 2^k m, m in
 * [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s|
 * <= 0.1716, by its series to s^21 (remainder below 1e-17); m - 1 is
 * exact, so there is no cancellation near 1.
 */
static double ane_log_d(double x)
{
	uint64_t u = ane_d_bits(x);
	int k = (int)(u >> 52) - 1023, i;
	double m, f, s, z, t;

	m = ane_bits_d((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
	if (m > 1.4142135623730951) {
		m *= 0.5;
		k++;
	}
	f = m - 1.0;
	s = f / (2.0 + f);
	z = s * s;
	t = 0.0;
	for (i = 21; i >= 3; i -= 2)
		t = (t + 1.0 / i) * z;
	return (double)k * 6.93147180369123816490e-01 +
	       ((double)k * 1.90821492927058770002e-10 + (2.0 * s + 2.0 * s * t));
}

/* log(1 + y) for y >= 0, without losing y's digits below 1 + y's ulp. */
static double ane_log1p_d(double y)
{
	double u = 1.0 + y;

	if (u == 1.0)
		return y;
	return ane_log_d(u) * (y / (u - 1.0));
}

/*
 * sqrt, correctly rounded (to nearest even) in fp32, integers only: the
 * bit-by-bit square root of the significand (fdlibm's e_sqrtf.c), its
 * remainder deciding the last bit's rounding (no tie is possible).
 */
float ane_sqrtf(float x)
{
	int32_t ix = (int32_t)ane_f_bits(x), m, s, q, t, i;
	uint32_t r;

	if ((ix & 0x7f800000) == 0x7f800000)	/* inf, NaN */
		return ix == (int32_t)0xff800000u ? ANE_NANF : x;
	if (ix <= 0) {
		if (!(ix & 0x7fffffff))
			return x;			/* +-0 */
		return ANE_NANF;			/* negative */
	}
	m = ix >> 23;
	if (!m) {				/* subnormal: normalize */
		for (i = 0; !(ix & 0x00800000); i++)
			ix <<= 1;
		m -= i - 1;
	}
	m -= 127;
	ix = (ix & 0x007fffff) | 0x00800000;
	if (m & 1)				/* odd exponent: twice the significand */
		ix += ix;
	m >>= 1;				/* floor(m / 2) */
	ix += ix;
	q = 0;
	s = 0;
	for (r = 0x01000000u; r; r >>= 1) {	/* q = sqrt(ix), one bit a step */
		t = s + (int32_t)r;
		if (t <= ix) {
			s = t + (int32_t)r;
			ix -= t;
			q += (int32_t)r;
		}
		ix += ix;
	}
	if (ix)					/* inexact: round the last bit */
		q += q & 1;
	ix = (q >> 1) + 0x3f000000;
	return ane_bits_f((uint32_t)ix + ((uint32_t)m << 23));
}

float ane_logf(float x)
{
	if (x != x)
		return x;
	if (x < 0)
		return ANE_NANF;
	if (x == 0)
		return -ANE_INF;
	if (x == ANE_INF)
		return x;
	return (float)ane_log_d(x);
}

/*
 * erf: below 2 its Maclaurin series in double (32 terms, the remainder
 * below 1e-16, the terms' rounding below 1e-15 of the sum; no
 * cancellation near 0, where 1 - erfc would), from 2 on 1 - erfc(|x|)
 * with ane_erfcf() (its 1.2e-7 relative error times erfc(2) = 4.7e-3:
 * below 6e-10 of erf >= 0.995), odd.
 */
float ane_erff(float x)
{
	double xd = x, z = xd * xd, p = 0.0, term = 1.0;
	float a = ane_fabsf(x), r;
	int n;

	if (x != x)
		return x;
	if (a < 2.0f) {
		for (n = 0; n < 32; n++) {
			p += term / (2 * n + 1);
			term *= -z / (n + 1);
		}
		return (float)(1.1283791670955126 * xd * p);
	}
	r = 1.0f - ane_erfcf(a);
	return x < 0 ? -r : r;
}

/*
 * sin and cos: x = n pi/2 + r, |r| <= pi/4, then the Taylor polynomials
 * of sin r (to r^17) and cos r (to r^18) in double (remainders below
 * 2e-17), the quadrant n choosing which and the sign.  Below 2^20 (every
 * fp16 value) r is x - n pi/2 in double with pi/2 in three parts (33, 33
 * and 53 bits, fdlibm's pio2_1, pio2_2, pio2_2t: Cody-Waite), n times the
 * first two exact, so r is good to about 2^-100 absolute; from 2^20 on
 * (a fused activation's fp32 sum may be anything) by Payne and Hanek's
 * reduction in integers: the 24-bit significand times the 96 bits of 2/pi
 * that matter at its exponent (ane_2_over_pi, 256 bits of it), modulo 4
 * -- exact but for the 2/pi bits left out, below 2^-70 of pi/2.  So the
 * result is accurate over every fp32 input.
 */
static const uint32_t ane_2_over_pi[8] = {
	0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0,
	0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
};

/* Bits @pos .. @pos + 31 of 2/pi after the point (0 first; < 0: zeros). */
static uint32_t ane_2_over_pi_bits(int pos)
{
	uint64_t v;

	if (pos <= -32)
		return 0;
	if (pos < 0)
		return ane_2_over_pi_bits(0) >> -pos;
	v = (uint64_t)ane_2_over_pi[pos / 32] << 32 | ane_2_over_pi[pos / 32 + 1];
	return (uint32_t)(v >> (32 - pos % 32));
}

/*
 * |x| = M 2^E (M the 24-bit significand) at least 2^20, so E >= -3 and
 * E <= 104: x 2/pi mod 4 is M times the bits E - 1 .. E + 94 of 2/pi
 * (counted from 1 after the point), modulo 2^96, over 2^94 -- the bits
 * before contribute multiples of 4.  Returns r, sets *@n the quadrant.
 */
static double ane_reduce_big(float x, int64_t *n)
{
	uint32_t u = ane_f_bits(x), m = (u & 0x007fffffu) | 0x00800000u;
	int e = (int)((u >> 23) & 0xff) - 150, pos = e - 2;
	uint64_t p2 = (uint64_t)m * ane_2_over_pi_bits(pos + 64);
	uint64_t p1 = (uint64_t)m * ane_2_over_pi_bits(pos + 32) + (p2 >> 32);
	uint32_t hi = (uint32_t)((uint64_t)m * ane_2_over_pi_bits(pos) + (p1 >> 32));
	double f = (double)(hi & 0x3fffffffu) * 9.313225746154785e-10 +	/* 2^-30 */
		   (double)(uint32_t)p1 * 2.168404344971009e-19 +		/* 2^-62 */
		   (double)(uint32_t)p2 * 5.048709793414476e-29;		/* 2^-94 */
	int64_t q = hi >> 30;

	if (f >= 0.5) {
		f -= 1.0;
		q++;
	}
	f *= 1.57079632679489661923;
	*n = x < 0 ? -q : q;
	return x < 0 ? -f : f;
}

static double ane_sin_poly(double r)
{
	double z = r * r, p = 1.0;
	int i;

	for (i = 17; i >= 3; i -= 2)
		p = 1.0 - p * z / ((double)i * (i - 1));
	return r * p;
}

static double ane_cos_poly(double r)
{
	double z = r * r, p = 1.0;
	int i;

	for (i = 18; i >= 2; i -= 2)
		p = 1.0 - p * z / ((double)i * (i - 1));
	return p;
}

static float ane_sincos(float x, int cos)
{
	double xd = x, nd, r;
	int64_t n;

	if (x != x)
		return x;
	if (ane_fabsf(x) == ANE_INF)
		return ANE_NANF;
	if (ane_fabsf(x) < 0.7853981f) {
		n = 0;
		r = xd;
	} else if (ane_fabsf(x) < 1048576.0f) {		/* 2^20 */
		nd = xd * 6.36619772367581382433e-01;
		n = (int64_t)(nd < 0 ? nd - 0.5 : nd + 0.5);
		nd = (double)n;
		r = xd - nd * 1.57079632673412561417e+00;
		r -= nd * 6.07710050630396597660e-11;
		r -= nd * 2.02226624879595063154e-21;
	} else {
		r = ane_reduce_big(x, &n);
	}
	switch ((n + cos) & 3) {
	case 0:
		return (float)ane_sin_poly(r);
	case 1:
		return (float)ane_cos_poly(r);
	case 2:
		return (float)-ane_sin_poly(r);
	default:
		return (float)-ane_cos_poly(r);
	}
}

float ane_sinf(float x)
{
	return ane_sincos(x, 0);
}

float ane_cosf(float x)
{
	return ane_sincos(x, 1);
}

/* Whether @y is an integer (1: odd, 2: even; 0: not, or not finite). */
static int ane_int_kind(float y)
{
	float a = ane_fabsf(y);
	int32_t i;

	if (!(a < ANE_INF))
		return 0;
	if (a >= 16777216.0f)		/* 2^24: every float is an even integer */
		return 2;
	i = (int32_t)a;
	if ((float)i != a)
		return 0;
	return i & 1 ? 1 : 2;
}

/*
 * a^b with C99 pow()'s special cases: pow(x, +-0) = 1 and pow(1, y) = 1
 * for any x, y (NaN too); otherwise NaN in, NaN out; a negative finite
 * base with a non-integer finite exponent is NaN, with an integer one
 * |a|^b with the sign of a if b is odd; zeros and infinities as C99
 * says.  |a|^b itself is e^(b log |a|) in double (b log |a| good to
 * 2^-52 relative, so the result to about 3e-14 relative before its
 * rounding to fp32): exact powers come out exact.
 */
float ane_powf(float a, float b)
{
	float aa = ane_fabsf(a), ab = ane_fabsf(b), r;
	int kind = ane_int_kind(b), neg = a < 0 && kind == 1;

	if (b == 0 || a == 1.0f)
		return 1.0f;
	if (a != a || b != b)
		return a + b;			/* NaN */
	if (ab == ANE_INF) {
		if (aa == 1.0f)
			return 1.0f;		/* (-1)^+-inf */
		return (aa < 1.0f) == (b < 0) ? ANE_INF : 0.0f;
	}
	if (a == 0) {				/* +-0 */
		r = b < 0 ? ANE_INF : 0.0f;
		return neg || (kind == 1 && ane_f_bits(a) >> 31) ? -r : r;
	}
	if (aa == ANE_INF) {
		r = b < 0 ? 0.0f : ANE_INF;
		return a < 0 && kind == 1 ? -r : r;
	}
	if (a < 0 && !kind)
		return ANE_NANF;
	r = (float)ane_exp_d((double)b * ane_log_d(aa));
	return neg ? -r : r;
}

/* The activations of this file on @x, @alpha and @beta their parameters. */
float ane_act_fn(uint32_t act, float alpha, float beta, float x)
{
	double xd = x, r;

	if (x != x && act != ANE_ACT_ABS && act != ANE_ACT_NEG)
		return x;			/* NaN passes through every one */
	switch (act) {
	case ANE_ACT_SILU:			/* x / (1 + e^-x) */
		if (x < -800.0f)
			return -0.0f;		/* below e^-745: -0 */
		return (float)(xd / (1.0 + ane_exp_d(-xd)));
	case ANE_ACT_EXP:
		return (float)ane_exp_d(xd);
	case ANE_ACT_LOG:
		return ane_logf(x);
	case ANE_ACT_SQRT:
		return ane_sqrtf(x);
	case ANE_ACT_RECIP:
		return 1.0f / x;
	case ANE_ACT_ERF:
		return ane_erff(x);
	case ANE_ACT_ABS:
		return ane_fabsf(x);
	case ANE_ACT_NEG:
		return ane_bits_f(ane_f_bits(x) ^ 0x80000000u);
	case ANE_ACT_SOFTPLUS:			/* max(x, 0) + log(1 + e^-|x|) */
		r = ane_log1p_d(ane_exp_d(-ane_fabsf(x)));
		return (float)((x > 0 ? xd : 0.0) + r);
	case ANE_ACT_SOFTSIGN:
		if (ane_fabsf(x) == ANE_INF)
			return x < 0 ? -1.0f : 1.0f;
		return (float)(xd / (1.0 + ane_fabsf(x)));
	case ANE_ACT_HARDSWISH:			/* x relu6(x + 3) / 6 */
		if (x <= -3.0f)
			return -0.0f;
		if (x >= 3.0f)
			return x;
		return (float)(xd * (xd + 3.0) / 6.0);
	case ANE_ACT_SIN:
		return ane_sinf(x);
	case ANE_ACT_COS:
		return ane_cosf(x);
	case ANE_ACT_ELU:
		return x > 0 ? x : (float)(alpha * ane_expm1_d(xd));
	case ANE_ACT_SELU:
		r = x > 0 ? xd : alpha * ane_expm1_d(xd);
		return (float)(beta * r);
	case ANE_ACT_LEAKY:
		return x >= 0 ? x : (float)(alpha * xd);
	case ANE_ACT_CLIP:
		x = x < alpha ? alpha : x;
		return x > beta ? beta : x;
	case ANE_ACT_HARDSIGMOID:
		r = alpha * xd + beta;		/* the product exact */
		if (r != r)
			return (float)r;	/* 0 * inf */
		return (float)(r < 0 ? 0.0 : r > 1 ? 1.0 : r);
	case ANE_ACT_CELU:
		return x > 0 ? x : (float)(alpha * ane_expm1_d(xd / alpha));
	case ANE_ACT_THRESHOLDED_RELU:
		return x > alpha ? x : 0.0f;
	default:
		return x;
	}
}

/* ane_act_fn() over an array. */
void ane_act_fn_vec(uint32_t act, float alpha, float beta, float *v,
		    uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		v[i] = ane_act_fn(act, alpha, beta, v[i]);
}

/*
 * a[i] = a[i] OP b[i] (ELTWISE's scalar loop, ane_math_rows.c's
 * ane_elt_row() on every path); MAX and MIN let a NaN in either operand
 * through, DIV is IEEE division (so the vector loops may do it too), POW
 * ane_powf().
 */
void ane_elt_vec(uint32_t op, float *a, const float *b, uint32_t n)
{
	uint32_t i;

	switch (op) {
	case ANE_ELT_ADD:
		for (i = 0; i < n; i++)
			a[i] += b[i];
		break;
	case ANE_ELT_SUB:
		for (i = 0; i < n; i++)
			a[i] -= b[i];
		break;
	case ANE_ELT_MUL:
		for (i = 0; i < n; i++)
			a[i] *= b[i];
		break;
	case ANE_ELT_MAX:
		for (i = 0; i < n; i++) {
			float r = a[i] > b[i] ? a[i] : b[i];	/* NaN in b wins */

			a[i] = a[i] != a[i] ? a[i] : r;		/* NaN in a wins */
		}
		break;
	case ANE_ELT_DIV:
		for (i = 0; i < n; i++)
			a[i] /= b[i];
		break;
	case ANE_ELT_POW:
		for (i = 0; i < n; i++)
			a[i] = ane_powf(a[i], b[i]);
		break;
	default:	/* ANE_ELT_MIN */
		for (i = 0; i < n; i++) {
			float r = a[i] < b[i] ? a[i] : b[i];

			a[i] = a[i] != a[i] ? a[i] : r;
		}
		break;
	}
}


/*
 * y[i] = act(x[i]) with act's parameters @ap, for @len elements at
 * strides @xs and @ys (ANE_OP_ACT with a parametric activation, which
 * no vector loop has): converted with the scalar fp16 conversions, which
 * agree with the vector ones bit for bit.  A block is read before it is
 * written, so @y may be @x (in place).
 */
void ane_act_param_row(uint32_t act, const struct ane_act_params *ap,
		       const uint16_t *x, uint64_t xs, uint16_t *y,
		       uint64_t ys, uint32_t len)
{
	float alpha = ane_bits_f(ap->alpha), beta = ane_bits_f(ap->beta);
	float v[ANE_BLOCK];
	uint32_t i0, i, n;

	for (i0 = 0; i0 < len; i0 += n) {
		n = len - i0 < ANE_BLOCK ? len - i0 : ANE_BLOCK;
		for (i = 0; i < n; i++)
			v[i] = ane_h2f(x[(uint64_t)(i0 + i) * xs]);
		ane_act_fn_vec(act, alpha, beta, v, n);
		for (i = 0; i < n; i++)
			y[(uint64_t)(i0 + i) * ys] = ane_f2h(v[i]);
	}
}

#endif /* __CHECKER__ */
