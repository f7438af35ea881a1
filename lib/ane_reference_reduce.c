// SPDX-License-Identifier: MIT
/*
 * libane: the reference executor's reductions (REDUCE) and the natural
 * logarithm it shares with NORM's log-softmax.  As the rest of the
 * reference: double precision from the fp16 operands, plain loops in the
 * obvious order, elementary functions of our own (no libm), written
 * apart from the engine's (firmware/hw/engine/ane_math_reduce.c) so that the
 * two check each other.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <string.h>

#include "ane_internal.h"

static double rr_bits(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static uint64_t rr_u64(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

#define RR_INF	rr_bits(0x7ff0000000000000ull)
#define RR_NAN	rr_bits(0x7ff8000000000000ull)

/*
 * log(x): x = 2^k m, m in [sqrt(1/2), sqrt(2)), and log(m) = 2 atanh(t),
 * t = (m - 1) / (m + 1), |t| < 0.172, by its series to t^41.
 */
double ane__ref_log(double x)
{
	double m, t, t2, term, sum;
	uint64_t b;
	int k = 0, i;

	if (x != x || x == RR_INF)
		return x;
	if (x == 0)
		return -RR_INF;
	if (x < 0)
		return RR_NAN;
	if (x < 0x1p-1000) {		/* subnormal or nearly: scale up */
		x *= 0x1p100;
		k = -100;
	}
	b = rr_u64(x);
	k += (int)(b >> 52) - 1023;
	m = rr_bits((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
	if (m > 1.4142135623730951) {
		m *= 0.5;
		k++;
	}
	t = (m - 1.0) / (m + 1.0);
	t2 = t * t;
	term = t;
	sum = 0.0;
	for (i = 1; i <= 41; i += 2) {
		sum += term / i;
		term *= t2;
	}
	return 2.0 * sum + k * 0.6931471805599453094;
}

/* e^x for x <= 0: x = k ln2 + r, the Taylor series of e^r, times 2^k. */
static double rr_exp(double x)
{
	double kd, r, term = 1.0, sum = 1.0;
	int i, k;

	if (x != x)
		return x;
	if (x < -745.2)
		return 0.0;
	kd = x * 1.4426950408889634;
	k = (int)(kd - 0.5);
	r = x - k * 0.6931471805599453094;
	for (i = 1; i <= 20; i++) {
		term *= r / i;
		sum += term;
	}
	/* 2^k in two halves, each a normal double */
	return sum * rr_bits((uint64_t)(k / 2 + 1023) << 52) *
	       rr_bits((uint64_t)(k - k / 2 + 1023) << 52);
}

/* sqrt(x), x >= 0: half the exponent, then Newton's x/y averages. */
static double rr_sqrt(double x)
{
	double y;
	int i;

	if (x != x || x == 0 || x == RR_INF)
		return x;
	y = rr_bits((rr_u64(x) >> 1) + 0x1ff8000000000000ull);
	for (i = 0; i < 8; i++)
		y = 0.5 * (y + x / y);
	return y;
}

double ane__ref_reduce_at(const struct ane__op *op, const struct ane__tensor *t,
			  const float *x, uint64_t o)
{
	const uint32_t *S = t[op->src[0]].dim, *D = t[op->dst].dim;
	uint64_t lo[4], hi[4], i[4], n = 1, j;
	double acc = op->subop == ANE_NET_REDUCE_PROD ? 1.0 : 0.0, m;
	int k, nan = 0, pass;

	for (k = 3; k >= 0; k--) {
		lo[k] = o % D[k];
		o /= D[k];
		hi[k] = (op->flags >> k) & 1u ? S[k] : lo[k] + 1;
		n *= hi[k] - lo[k];
	}
	m = op->subop == ANE_NET_REDUCE_MIN ? RR_INF : -RR_INF;
	/* LOG_SUM_EXP: the maximum first, then the exponentials */
	for (pass = 0; pass < (op->subop == ANE_NET_REDUCE_LOG_SUM_EXP ? 2 : 1); pass++) {
		if (pass && (nan || m == RR_INF || m == -RR_INF))
			break;
		/* the reduced elements in NCHW order: j's digits, W fastest */
		for (j = 0; j < n; j++) {
			uint64_t r = j;
			double v;

			for (k = 3; k >= 0; k--) {
				i[k] = lo[k] + r % (hi[k] - lo[k]);
				r /= hi[k] - lo[k];
			}
			v = x[((i[0] * S[1] + i[1]) * S[2] + i[2]) * S[3] + i[3]];
			switch (op->subop) {
			case ANE_NET_REDUCE_SUM:
			case ANE_NET_REDUCE_MEAN:
			case ANE_NET_REDUCE_LOG_SUM:
				acc += v;
				break;
			case ANE_NET_REDUCE_PROD:
				acc *= v;
				break;
			case ANE_NET_REDUCE_SUM_SQUARE:
			case ANE_NET_REDUCE_L2:
				acc += v * v;
				break;
			case ANE_NET_REDUCE_L1:
				acc += v < 0 ? -v : v;
				break;
			case ANE_NET_REDUCE_MIN:
				nan |= v != v;
				m = v < m ? v : m;
				break;
			default:	/* MAX; LOG_SUM_EXP */
				if (pass) {
					acc += rr_exp(v - m);
					break;
				}
				nan |= v != v;
				m = v > m ? v : m;
				break;
			}
		}
	}
	switch (op->subop) {
	case ANE_NET_REDUCE_MEAN:
		return acc / (double)n;
	case ANE_NET_REDUCE_MAX:
	case ANE_NET_REDUCE_MIN:
		return nan ? RR_NAN : m;
	case ANE_NET_REDUCE_L2:
		return rr_sqrt(acc);
	case ANE_NET_REDUCE_LOG_SUM:
		return ane__ref_log(acc);
	case ANE_NET_REDUCE_LOG_SUM_EXP:
		if (nan)
			return RR_NAN;
		if (m == RR_INF || m == -RR_INF)
			return m;
		return m + ane__ref_log(acc);
	default:
		return acc;
	}
}
