// SPDX-License-Identifier: MIT
/*
 * libane: the reference executor's unary math (image minor version 4) --
 * SiLU, exp, log, sqrt, reciprocal, erf, abs, neg, softplus, softsign,
 * hard-swish, sin, cos, the parametric activations and pow -- in double
 * precision with elementary functions of its own, written apart from the
 * engine's (firmware/hw/engine/ane_math_fn.c) so that one checks the other:
 * exp by scaling and squaring, log by Halley's iteration on it, sqrt by
 * Newton's, erf by its series and continued fraction, sin and cos
 * reduced by pi/2 in 24-bit parts.  No libm.  Each is good to a few
 * double ulps over the arguments fp16 and the engine's sums give, far
 * below fp16's resolution.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <stdint.h>
#include <string.h>

#include "ane_internal.h"

static double fn_bits(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static double fn_inf(void)
{
	return fn_bits(0x7ff0000000000000ull);
}

static double fn_nan(void)
{
	return fn_bits(0x7ff8000000000000ull);
}

static double fn_abs(double x)
{
	return x < 0 ? -x : x;
}

/* 2^n, -1022 <= n <= 1023 */
static double fn_pow2(int n)
{
	return fn_bits((uint64_t)(n + 1023) << 52);
}

/* e^x: x = k ln2 + r, e^(r/16) by 18 Taylor terms, squared four times. */
static double fn_exp(double x)
{
	double kd, r, s = 1.0, t = 1.0;
	long k;
	int i, k1;

	if (x != x)
		return x;
	if (x > 709.79)
		return fn_inf();
	if (x < -745.3)
		return 0.0;
	kd = x / 0.6931471805599453;
	k = (long)(kd < 0 ? kd - 0.5 : kd + 0.5);
	r = (x - (double)k * 0.693145751953125) - (double)k * 1.4286068203094173e-06;
	r /= 16.0;
	for (i = 1; i <= 18; i++) {
		t *= r / i;
		s += t;
	}
	s *= s;
	s *= s;
	s *= s;
	s *= s;
	k1 = (int)(k / 2);
	return s * fn_pow2(k1) * fn_pow2((int)k - k1);
}

/* e^x - 1: the series below 0.5, where e^x - 1 would cancel. */
static double fn_expm1(double x)
{
	double t = x, s = x;
	int i;

	if (!(x < 0.5 && x > -0.5))
		return fn_exp(x) - 1.0;
	for (i = 2; i <= 22; i++) {
		t *= x / i;
		s += t;
	}
	return s;
}

/*
 * log x, x > 0 finite: x = 2^k m, m in [1, 2); log m by Halley's
 * iteration y += 2 (m - e^y) / (m + e^y) from the first two terms of its
 * series (cubic convergence: four steps).  Near 1 the series itself,
 * where m - e^y would lose digits.
 */
static double fn_log(double x)
{
	uint64_t u;
	double m, y, e, f, t, s;
	int k, i;

	memcpy(&u, &x, sizeof(u));
	if (!(u >> 52)) {			/* subnormal */
		x *= fn_pow2(60);
		memcpy(&u, &x, sizeof(u));
		k = (int)(u >> 52) - 1023 - 60;
	} else {
		k = (int)(u >> 52) - 1023;
	}
	m = fn_bits((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
	if (m > 1.5) {
		m /= 2;
		k++;
	}
	f = m - 1.0;				/* exact, |f| <= 0.5 */
	if (fn_abs(f) < 0.0625) {		/* log(1 + f) = f - f^2/2 + ... */
		t = f;
		s = 0.0;
		for (i = 1; i <= 24; i++) {
			s += (i % 2 ? t : -t) / i;
			t *= f;
		}
		return s + k * 0.6931471805599453;
	}
	y = f - f * f / 2;
	for (i = 0; i < 4; i++) {
		e = fn_exp(y);
		y += 2.0 * (m - e) / (m + e);
	}
	return y + k * 0.6931471805599453;
}

/* log(1 + r) for 0 <= r <= 1: its series below 1/16, where 1 + r rounds. */
static double fn_log1p(double r)
{
	double t = r, s = 0.0;
	int i;

	if (r >= 0.0625)
		return fn_log(1.0 + r);
	for (i = 1; i <= 24; i++) {
		s += (i % 2 ? t : -t) / i;
		t *= r;
	}
	return s;
}

/* sqrt x, x > 0 finite: Newton on 1/sqrt, then one step on sqrt itself. */
static double fn_sqrt(double x)
{
	double y, s;
	int k = 0, i;

	while (x >= 1.0) {			/* into [1/4, 1), exactly */
		x /= 4.0;
		k++;
	}
	while (x < 0.25) {
		x *= 4.0;
		k--;
	}
	y = 1.5;				/* x y^2 < 3: converges */
	for (i = 0; i < 8; i++)
		y = y * (1.5 - 0.5 * x * y * y);
	s = x * y;
	s = 0.5 * (s + x / s);
	for (; k > 0; k--)
		s *= 2.0;
	for (; k < 0; k++)
		s /= 2.0;
	return s;
}

/* erf: its Maclaurin series below 2.5, 1 - erfc's continued fraction above. */
static double fn_erf(double x)
{
	double a = fn_abs(x), z = a * a, t, s, f;
	int n;

	if (x != x)
		return x;
	if (a >= 6.0)
		return x < 0 ? -1.0 : 1.0;
	if (a < 2.5) {
		t = x;
		s = x;
		for (n = 1; n < 120; n++) {
			t *= -z / n;
			s += t / (2 * n + 1);
		}
		return 1.1283791670955126 * s;
	}
	f = a;
	for (n = 160; n >= 1; n--)
		f = a + (n / 2.0) / f;
	s = 1.0 - fn_exp(-z) * 0.5641895835477563 / f;
	return x < 0 ? -s : s;
}

/*
 * sin (@c 0) or cos (@c 1): x = k pi/2 + r, pi/2 in 24-bit parts (k
 * times each exact for |k| < 2^29) and a tail, then Taylor series.
 */
static double fn_sincos(double x, int c)
{
	double kd, r, z, t, s;
	long k;
	int n, i;

	if (x != x || fn_abs(x) == fn_inf())
		return fn_nan();
	kd = x / 1.5707963267948966;
	k = (long)(kd < 0 ? kd - 0.5 : kd + 0.5);
	kd = (double)k;
	r = x - kd * 1.5707963705062866;
	r -= kd * -4.371138828673793e-08;
	r -= kd * -1.7151245100058819e-15;
	r -= kd * 1.0562999066987428e-23;
	n = (int)(((k % 4) + 4 + c) % 4);
	z = r * r;
	if (n % 2) {				/* cos r */
		t = 1.0;
		s = 1.0;
		for (i = 2; i <= 30; i += 2) {
			t *= -z / ((double)i * (i - 1));
			s += t;
		}
	} else {				/* sin r */
		t = r;
		s = r;
		for (i = 3; i <= 31; i += 2) {
			t *= -z / ((double)i * (i - 1));
			s += t;
		}
	}
	return n >= 2 ? -s : s;
}

/* Whether @y is an integer: 1 odd, 2 even, 0 not (or not finite). */
static int fn_int(double y)
{
	double a = fn_abs(y), h;

	if (a != a || a == fn_inf())
		return 0;
	if (a >= 9007199254740992.0)		/* 2^53 */
		return 2;
	if ((double)(int64_t)a != a)
		return 0;
	h = a / 2;
	return (double)(int64_t)h == h ? 2 : 1;
}

double ane__ref_pow(double a, double b)
{
	int ik = fn_int(b), odd = ik == 1;
	double r;

	if (b == 0 || a == 1.0)
		return 1.0;
	if (a != a || b != b)
		return fn_nan();
	if (fn_abs(b) == fn_inf()) {
		if (fn_abs(a) == 1.0)
			return 1.0;
		return (fn_abs(a) < 1.0) == (b < 0) ? fn_inf() : 0.0;
	}
	if (a == 0) {
		r = b < 0 ? fn_inf() : 0.0;
		return odd && (1.0 / a < 0) ? -r : r;	/* -0 to an odd power */
	}
	if (fn_abs(a) == fn_inf()) {
		r = b < 0 ? 0.0 : fn_inf();
		return a < 0 && odd ? -r : r;
	}
	if (a < 0 && !ik)
		return fn_nan();
	r = fn_exp(b * fn_log(fn_abs(a)));
	return a < 0 && odd ? -r : r;
}

double ane__ref_act(uint32_t act, double alpha, double beta, double x)
{
	double r;

	if (x != x)
		return x;
	switch (act) {
	case ANE_NET_ACT_SILU:
		return x < -745 ? -0.0 : x / (1.0 + fn_exp(-x));
	case ANE_NET_ACT_EXP:
		return fn_exp(x);
	case ANE_NET_ACT_LOG:
		if (x < 0)
			return fn_nan();
		if (x == 0)
			return -fn_inf();
		return x == fn_inf() ? x : fn_log(x);
	case ANE_NET_ACT_SQRT:
		if (x < 0)
			return fn_nan();
		return x == 0 || x == fn_inf() ? x : fn_sqrt(x);
	case ANE_NET_ACT_RECIP:
		return 1.0 / x;
	case ANE_NET_ACT_ERF:
		return fn_erf(x);
	case ANE_NET_ACT_ABS:
		return fn_abs(x);
	case ANE_NET_ACT_NEG:
		return -x;
	case ANE_NET_ACT_SOFTPLUS:		/* log(1 + e^x) */
		if (x > 40)
			return x + fn_exp(-x);	/* log1p(e^-x) = e^-x to 1e-35 */
		if (x < -40)
			return fn_exp(x);
		return fn_log1p(fn_exp(x));
	case ANE_NET_ACT_SOFTSIGN:
		if (fn_abs(x) == fn_inf())
			return x < 0 ? -1.0 : 1.0;
		return x / (1.0 + fn_abs(x));
	case ANE_NET_ACT_HARDSWISH:
		r = x + 3 < 0 ? 0 : x + 3 > 6 ? 6 : x + 3;
		return x <= -3 ? -0.0 : x >= 3 ? x : x * r / 6;
	case ANE_NET_ACT_SIN:
		return fn_sincos(x, 0);
	case ANE_NET_ACT_COS:
		return fn_sincos(x, 1);
	case ANE_NET_ACT_ELU:
		return x > 0 ? x : alpha * fn_expm1(x);
	case ANE_NET_ACT_SELU:
		return beta * (x > 0 ? x : alpha * fn_expm1(x));
	case ANE_NET_ACT_LEAKY:
		return x >= 0 ? x : alpha * x;
	case ANE_NET_ACT_CLIP:
		r = x < alpha ? alpha : x;
		return r > beta ? beta : r;
	case ANE_NET_ACT_HARDSIGMOID:
		r = alpha * x + beta;
		return r != r ? r : r < 0 ? 0.0 : r > 1 ? 1.0 : r;
	case ANE_NET_ACT_CELU:
		r = alpha * fn_expm1(x / alpha);
		return (x > 0 ? x : 0.0) + (r < 0 ? r : 0.0);
	case ANE_NET_ACT_THRESHOLDED_RELU:
		return x > alpha ? x : 0.0;
	default:
		return x;
	}
}
