// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's row operations: elementwise, softmax and normalization, and
 * the dispatch of every ROWS plan (convolution by output rows,
 * ane_math_conv_rows.c; pooling, ane_math_pool.c), each a segment of a
 * row per work unit of the plan.
 *
 * Floating point: built and run as ane_math.c is (see there and
 * Documentation/accel/ane/engine.rst).
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_fpu.h"

/* sparse cannot parse the vector types (see ane_math.c). */
#ifndef __CHECKER__

/* ------------------------------------------------------------ row ops */

/* @n fp16 at stride @s to fp32, exactly. */
void ane_h2f_row(const uint16_t *x, uint64_t s, uint32_t n, float *v)
{
	uint32_t i;

#ifdef ANE_MATH_AVX2
	if (s == 1 && ane_rows_wide()) {
		ane_h2f_row_avx2(x, n, v);
		return;
	}
#endif
	for (i = 0; i < n; i++)
		v[i] = ane_h2f(x[(uint64_t)i * s]);
}

/* y[i * s] = fp16(v[i] * mul) for @n values. */
void ane_f2h_row(const float *v, float mul, uint32_t n, uint16_t *y,
			uint64_t s)
{
	uint32_t i;

#ifdef ANE_MATH_AVX512
	if (s == 1 && ane_math_isa == ANE_MATH_ISA_AVX512) {
		ane_f2h_row_avx512(v, mul, n, y);
		return;
	}
#endif
#ifdef ANE_MATH_AVX2
	if (s == 1 && ane_rows_wide()) {
		ane_f2h_row_avx2(v, mul, n, y);
		return;
	}
#endif
	for (i = 0; i < n; i++)
		y[(uint64_t)i * s] = ane_f2h(v[i] * mul);
}

/*
 * The sum of @n floats (of their squares with @sq) in eight interleaved
 * partial sums, element i into sum i % 8, combined pairwise at the end:
 * no chain of @n dependent additions, and the same order, so the same
 * bits, on every ISA.
 */
static float ane_sum8(const float *e, uint32_t n, int sq)
{
	ane_v4 lo = { 0, 0, 0, 0 }, hi = { 0, 0, 0, 0 }, x;
	float t[8];
	uint32_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__builtin_memcpy(&x, e + i, 16);
		lo += sq ? x * x : x;
		__builtin_memcpy(&x, e + i + 4, 16);
		hi += sq ? x * x : x;
	}
	__builtin_memcpy(t, &lo, 16);
	__builtin_memcpy(t + 4, &hi, 16);
	for (; i < n; i++)
		t[i % 8] += sq ? e[i] * e[i] : e[i];
	return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

/*
 * ane_f2h() on four lanes, the same operations lane by lane (so the same
 * bits): each lane's fp16 in its low 16 bits, the high bits zero.
 */
static inline ane_u4 ane_f2h4(ane_v4 f)
{
	const ane_u4 lo = { 0x71000000u, 0x71000000u, 0x71000000u, 0x71000000u };
	ane_u4 w = (ane_u4)f, two_w = w + w, bias = two_w & 0xff000000u, bits;
	ane_u4 nan = (ane_u4)(two_w > 0xff000000u), small = (ane_u4)(bias < lo);
	ane_v4 base = (ane_v4)(w & 0x7fffffffu) * ane_bits_f(0x77800000u);

	base *= ane_bits_f(0x08800000u);
	bias = (lo & small) | (bias & ~small);
	base += (ane_v4)((bias >> 1) + 0x07800000u);
	bits = (ane_u4)base;
	bits = ((bits >> 13) & 0x7c00u) + (bits & 0x0fffu);
	bits = (nan & (0x7e00u | ((w >> 13) & 0x3ffu))) | (~nan & bits);
	return ((w >> 16) & 0x8000u) | bits;
}

/*
 * A block of @len fp16 values at stride @s (in elements; 0 broadcasts
 * one value) to fp32.  With @perm, each whole group of eight
 * consecutive values (@s 1) lands as its evens then its odds
 * (ane_h2f8()'s order, no shuffle); ane_store_blk() with @perm undoes
 * it.  Elementwise work does not care about the order, as long as every
 * operand of the block has the same one: with @perm every stride is 0
 * or 1 (a broadcast value is the same in every order).
 */
static void ane_load_blk(const uint16_t *x, uint64_t s, uint32_t len,
			 float *v, int perm)
{
	uint32_t i = 0;

	if (!s) {
		float f = ane_h2f(x[0]);

		for (; i < len; i++)
			v[i] = f;
		return;
	}
	if (perm)
		for (; i + 8 <= len; i += 8) {
			ane_v4 e, o;

			ane_h2f8(x + i, &e, &o);
			__builtin_memcpy(v + i, &e, 16);
			__builtin_memcpy(v + i + 4, &o, 16);
		}
	for (; i < len; i++)
		v[i] = ane_h2f(x[(uint64_t)i * s]);
}

/* The inverse of ane_load_blk() for a destination (@s is not 0). */
static void ane_store_blk(uint16_t *y, uint64_t s, uint32_t len,
			  const float *v, int perm)
{
	uint32_t i = 0;

	if (perm)
		for (; i + 8 <= len; i += 8) {
			ane_v4 e, o;
			ane_u4 r;

			__builtin_memcpy(&e, v + i, 16);
			__builtin_memcpy(&o, v + i + 4, 16);
			r = ane_f2h4(e) | (ane_f2h4(o) << 16);
			__builtin_memcpy(y + i, &r, 16);
		}
	for (; i < len; i++)
		y[(uint64_t)i * s] = ane_f2h(v[i]);
}

/*
 * y[i] = act(a[i] OP b[i]) (or act(a[i]) without @b) for @len elements
 * at strides @as, @bs (0 broadcasts) and @ys, in blocks of ANE_BLOCK:
 * ELTWISE, ACT and the MATMUL bias epilogue.  Contiguous rows convert
 * eight values a step.  Each block is read before it is written, so @y
 * may be @a or @b itself (the in-place cases).
 */
static void ane_elt_row(uint32_t op, uint32_t act, const uint16_t *a,
			uint64_t as, const uint16_t *b, uint64_t bs,
			uint16_t *y, uint64_t ys, uint32_t len)
{
	int perm = as <= 1 && bs <= 1 && ys == 1;
	float va[ANE_BLOCK], vb[ANE_BLOCK];
	uint32_t i0 = 0, n;

#ifdef ANE_MATH_AVX512
	if (perm && ane_math_isa == ANE_MATH_ISA_AVX512)
		i0 = ane_elt_row_avx512(op, act, a, as, b, bs, y, len);
#endif
#ifdef ANE_MATH_AVX2
	/* the AVX-512 loop's tail (or all, for AVX2) eight at a time */
	if (perm && ane_math_isa >= ANE_MATH_ISA_AVX2_FMA)
		i0 += ane_elt_row_avx2(op, act, a + i0 * as, as,
				       b ? b + i0 * bs : NULL, bs, y + i0,
				       len - i0);
#endif
	for (; i0 < len; i0 += n) {
		n = len - i0 < ANE_BLOCK ? len - i0 : ANE_BLOCK;
		ane_load_blk(a + i0 * as, as, n, va, perm);
		if (b) {
			ane_load_blk(b + i0 * bs, bs, n, vb, perm);
			ane_elt_vec(op, va, vb, n);
		}
		ane_act_vec(act, va, n);
		ane_store_blk(y + i0 * ys, ys, n, va, perm);
	}
}

/* Elements [o0, o1) of dst row (n, c, h) of ELTWISE or ACT. */
static void ane_eltwise_seg(const struct ane_op_desc *d, uint64_t row,
			    uint32_t o0, uint32_t o1)
{
	const struct ane_tensor *y = &d->dst, *a = &d->src[0], *b = &d->src[1];
	uint64_t h = row % y->dim[ANE_H], t = row / y->dim[ANE_H];
	uint64_t c = t % y->dim[ANE_C], n = t / y->dim[ANE_C];
	uint64_t as = ane_bstride(a, ANE_W), bs = 0, ys = y->stride[ANE_W];
	uint16_t *yr = (uint16_t *)y->base + n * y->stride[ANE_N] +
		       c * y->stride[ANE_C] + h * y->stride[ANE_H];
	const uint16_t *ar = ane_src(a) + n * ane_bstride(a, ANE_N) +
			     c * ane_bstride(a, ANE_C) + h * ane_bstride(a, ANE_H);
	const uint16_t *br = NULL;

	if (d->op == ANE_OP_ELTWISE) {
		br = ane_src(b) + n * ane_bstride(b, ANE_N) +
		     c * ane_bstride(b, ANE_C) + h * ane_bstride(b, ANE_H) +
		     o0 * ane_bstride(b, ANE_W);
		bs = ane_bstride(b, ANE_W);
	}
	if (ane_act_is_parametric(d->act))	/* ACT's only, with parameters */
		ane_act_param_row(d->act, &d->p.act, ar + o0 * as, as,
				  yr + o0 * ys, ys, o1 - o0);
	else	/* (an ACT's p.eltwise.op, its p.act.alpha, is 0: ADD) */
		ane_elt_row(d->p.eltwise.op, d->act, ar + o0 * as, as, br, bs,
			    yr + o0 * ys, ys, o1 - o0);
}

/*
 * How many of the @left rows from dst row @row of ELTWISE or ACT (rows
 * of whole width) run as one: those up to the end of its (n, c) plane
 * when every operand's rows follow one another in memory, so that the
 * rows are one contiguous run (the same operations on each element).
 */
static uint64_t ane_eltwise_run(const struct ane_op_desc *d, uint64_t row,
				uint64_t left)
{
	const struct ane_tensor *y = &d->dst, *a = &d->src[0], *b = &d->src[1];
	uint64_t w = y->dim[ANE_W], n = y->dim[ANE_H] - row % y->dim[ANE_H];

	if (y->stride[ANE_W] != 1 || y->stride[ANE_H] != w ||
	    ane_bstride(a, ANE_W) != 1 || ane_bstride(a, ANE_H) != w ||
	    (d->op == ANE_OP_ELTWISE &&
	     (ane_bstride(b, ANE_W) != 1 || ane_bstride(b, ANE_H) != w)))
		return 1;
	if (n > left)
		n = left;
	/* a run's length is a uint32_t */
	if (n > ((uint64_t)1 << 24) / w)
		n = ((uint64_t)1 << 24) / w;
	return n ? n : 1;
}

/*
 * The epilogue of a MATMUL with a bias, run by ane_op_run() right after
 * GEMM chunk @chunk has stored its part of dst (rounded to fp16, without
 * the activation): dst = act(dst + bias) over that part, while it is
 * still in the cache.  The same bits as an ELTWISE ADD with the
 * activation after a plain MATMUL.  The part is worked out from the plan
 * as ane_run_gemm() does (ane_plan_gemm_at()): rows [m0, m0 + mlen) by
 * columns [n0 + c0, n0 + c1) of problem (n, c); a B packing chunk, and a
 * compute chunk of a depth block but the last, stores nothing.
 */
void ane_gemm_epilogue(const struct ane_op_desc *d, const struct ane_plan *p,
		       uint64_t chunk)
{
	const struct ane_tensor *y = &d->dst, *b = &d->bias;
	uint64_t ys = y->stride[ANE_W], bs = ane_bstride(b, ANE_W), n, c;
	struct ane_gemm_at at;
	const uint16_t *bp;
	uint32_t m0, m1;
	uint16_t *yp;

	ane_plan_gemm_at(p, chunk, &at);
	/* only the last depth block's compute chunks store */
	if (at.pack || at.kb + 1 != p->kblocks || at.c1 <= at.c0)
		return;
	m0 = at.m0;
	m1 = at.m0 + at.mlen;
	n = at.prob / y->dim[ANE_C];
	c = at.prob % y->dim[ANE_C];
	yp = (uint16_t *)y->base + n * y->stride[ANE_N] + c * y->stride[ANE_C] +
	     (uint64_t)(at.n0 + at.c0) * ys;
	bp = ane_src(b) + n * ane_bstride(b, ANE_N) + c * ane_bstride(b, ANE_C) +
	     (uint64_t)(at.n0 + at.c0) * bs;
	for (; m0 < m1; m0++)
		ane_elt_row(ANE_ELT_ADD, d->act, yp + m0 * y->stride[ANE_H], ys,
			    bp + m0 * ane_bstride(b, ANE_H), bs,
			    yp + m0 * y->stride[ANE_H], ys, at.c1 - at.c0);
}

/*
 * 1 / sqrt(x) for x > 0 without libm: the integer estimate, then three
 * Newton steps (relative error about 2e-7; NaN stays NaN).
 */
static float ane_rsqrtf(float x)
{
	float y = ane_bits_f(0x5f375a86u - (ane_f_bits(x) >> 1));
	int i;

	for (i = 0; i < 3; i++)
		y = y * (1.5f - 0.5f * x * y * y);
	return y;
}

/* e[i] = ane_expf(e[i] - mx), eight at a time where the CPU can. */
static void ane_exp_sub(float *e, uint32_t n, float mx)
{
	uint32_t i;

#ifdef ANE_MATH_AVX512
	if (ane_math_isa == ANE_MATH_ISA_AVX512) {
		ane_exp_sub_avx512(e, n, mx);
		return;
	}
#endif
#ifdef ANE_MATH_AVX2
	if (ane_math_isa >= ANE_MATH_ISA_AVX2_FMA) {
		ane_exp_sub_avx2(e, n, mx);
		return;
	}
#endif
	for (i = 0; i < n; i++)
		e[i] = ane_expf(e[i] - mx);
}

/*
 * The largest of @e[0, @n) that is not NaN, -inf if none: what
 * a = e[w] > a ? e[w] : a over w gives, eight lanes at a time, except for
 * the sign of a zero maximum, which no caller sees (e - +0 and e - -0 are
 * the same bits but for e = 0, whose exponential is 1 either way).  The
 * chain of W dependent compares took most of a 128-wide softmax row.
 */
static float ane_max_row(const float *e, uint32_t n)
{
	typedef int32_t ane_m4 __attribute__((vector_size(16)));
	ane_v4 m0 = { -ANE_INF, -ANE_INF, -ANE_INF, -ANE_INF }, m1 = m0, v;
	float a = -ANE_INF;
	uint32_t i, l;

	for (i = 0; i + 8 <= n; i += 8) {
		ane_m4 k;

		__builtin_memcpy(&v, e + i, 16);
		k = v > m0;
		m0 = (ane_v4)(((ane_m4)v & k) | ((ane_m4)m0 & ~k));
		__builtin_memcpy(&v, e + i + 4, 16);
		k = v > m1;
		m1 = (ane_v4)(((ane_m4)v & k) | ((ane_m4)m1 & ~k));
	}
	for (l = 0; l < 4; l++) {
		a = m0[l] > a ? m0[l] : a;
		a = m1[l] > a ? m1[l] : a;
	}
	for (; i < n; i++)
		a = e[i] > a ? e[i] : a;
	return a;
}

/*
 * Softmax over C at one position (n, h, w); @e holds C floats.  The
 * maximum and the exponentials by the NORM rows' loops (vectors where the
 * CPU has them, the same bits), the sum one chain over c in order.
 */
static void ane_softmax_pos(const struct ane_op_desc *d, uint64_t pos,
			    float *e)
{
	const struct ane_tensor *x = &d->src[0], *y = &d->dst;
	uint64_t w = pos % y->dim[ANE_W], t = pos / y->dim[ANE_W];
	uint64_t h = t % y->dim[ANE_H], n = t / y->dim[ANE_H];
	uint32_t C = y->dim[ANE_C], c;
	const uint16_t *xw = ane_src(x) + n * x->stride[ANE_N] +
			     h * x->stride[ANE_H] + w * x->stride[ANE_W];
	uint16_t *yw = (uint16_t *)y->base + n * y->stride[ANE_N] +
		       h * y->stride[ANE_H] + w * y->stride[ANE_W];
	float mx, sum = 0.0f;

	ane_h2f_row(xw, x->stride[ANE_C], C, e);
	mx = ane_max_row(e, C);
	/* subtract the max: every exponent <= 0, the sum in [1, C] */
	ane_exp_sub(e, C, mx);
	for (c = 0; c < C; c++)
		sum += e[c];
	ane_f2h_row(e, 1.0f / sum, C, yw, y->stride[ANE_C]);
}

/*
 * A SOFTMAX over C from position @pos on, @left positions of the plan's
 * unit left: a whole number of vectors of the positions along W of the
 * same (n, h) when x and y are contiguous along W and the CPU has a wide
 * path (ane_softmax_cols_avx2/_avx512(), the same bits), else the one
 * position.  Returns how many positions it did.
 */
static uint64_t ane_softmax_run(const struct ane_op_desc *d, uint64_t pos,
				uint64_t left, float *e)
{
	const struct ane_tensor *x = &d->src[0], *y = &d->dst;
	uint64_t W = y->dim[ANE_W], w = pos % W, t = pos / W;
	uint64_t h = t % y->dim[ANE_H], n = t / y->dim[ANE_H], k, i;
	uint32_t lanes = 0;

#ifdef ANE_MATH_AVX2
	if (ane_rows_wide())
		lanes = 8;
#endif
#ifdef ANE_MATH_AVX512
	if (ane_math_isa == ANE_MATH_ISA_AVX512)
		lanes = 16;
#endif
	k = W - w < left ? W - w : left;
	if (!lanes || k < lanes || x->stride[ANE_W] != 1 || y->stride[ANE_W] != 1) {
		ane_softmax_pos(d, pos, e);
		return 1;
	}
	k -= k % lanes;
	for (i = 0; i < k; i += lanes) {
		const uint16_t *xw = ane_src(x) + n * x->stride[ANE_N] +
				     h * x->stride[ANE_H] + w + i;
		uint16_t *yw = (uint16_t *)y->base + n * y->stride[ANE_N] +
			       h * y->stride[ANE_H] + w + i;

#ifdef ANE_MATH_AVX512
		if (lanes == 16) {
			ane_softmax_cols_avx512(xw, x->stride[ANE_C], yw,
						y->stride[ANE_C], y->dim[ANE_C]);
			continue;
		}
#endif
#ifdef ANE_MATH_AVX2
		ane_softmax_cols_avx2(xw, x->stride[ANE_C], yw, y->stride[ANE_C],
				      y->dim[ANE_C]);
#endif
	}
	return k;
}

/*
 * The wide paths' row of a NORM over W (ane_math_rows_avx2.c and
 * _avx512.c): the softmax's exponentials in @e and their sum in @s (the
 * maximum in @a), or the layer normalization's deviations and their sum
 * of squares in @s; 0 when the path or the row's stride has none.
 */
static int ane_norm_row_wide(int layer, const uint16_t *x, uint64_t xs,
			     uint32_t n, float *e, float *a, float *s)
{
#ifdef ANE_MATH_AVX512
	if (xs == 1 && ane_math_isa == ANE_MATH_ISA_AVX512) {
		*s = layer ? ane_layer_row_avx512(x, n, e) :
		     ane_softmax_row_avx512(x, n, e, a);
		return 1;
	}
#endif
#ifdef ANE_MATH_AVX2
	if (xs == 1 && ane_rows_wide()) {
		*s = layer ? ane_layer_row_avx2(x, n, e) :
		     ane_softmax_row_avx2(x, n, e, a);
		return 1;
	}
#endif
	return 0;
}

/* Softmax, log-softmax or layer normalization over W of one row (n, c, h); @e: W floats. */
static void ane_norm_row(const struct ane_op_desc *d, uint64_t row, float *e)
{
	const struct ane_tensor *x = &d->src[0], *y = &d->dst;
	uint64_t c = row % y->dim[ANE_C], t = row / y->dim[ANE_C];
	uint64_t h = t % y->dim[ANE_H], n = t / y->dim[ANE_H];
	uint32_t W = y->dim[ANE_W], w;
	const uint16_t *xr = ane_src(x) + n * x->stride[ANE_N] +
			     c * x->stride[ANE_C] + h * x->stride[ANE_H];
	uint16_t *yr = (uint16_t *)y->base + n * y->stride[ANE_N] +
		       c * y->stride[ANE_C] + h * y->stride[ANE_H];
	int layer = d->p.norm.kind == ANE_NORM_LAYER;
	float a = 0.0f, s, mul;

	if (!ane_norm_row_wide(layer, xr, x->stride[ANE_W], W, e, &a, &s)) {
		ane_h2f_row(xr, x->stride[ANE_W], W, e);
		if (!layer) {
			a = ane_max_row(e, W);	/* every exponent <= 0 */
			ane_exp_sub(e, W, a);
			s = ane_sum8(e, W, 0);
		} else {
			a = ane_sum8(e, W, 0) / (float)W;	/* the mean */
			for (w = 0; w < W; w++)
				e[w] -= a;
			s = ane_sum8(e, W, 1);
		}
	}
	if (layer)
		mul = ane_rsqrtf(s / (float)W + ane_norm_eps(&d->p.norm));
	else
		mul = d->p.norm.kind == ANE_NORM_SOFTMAX ? 1.0f / s :
		      ane_log_softmax_row(e, xr, x->stride[ANE_W], W, a, s);
	ane_f2h_row(e, mul, W, yr, y->stride[ANE_W]);
}

/* Work units [chunk * per, ...) of a ROWS plan: a row segment each. */
void ane_run_rows(const struct ane_op_desc *d, const struct ane_plan *p,
		  uint64_t chunk)
{
	uint64_t u = chunk * p->rows_per_chunk;
	uint64_t end = u + p->rows_per_chunk < p->rows ? u + p->rows_per_chunk :
		       p->rows;
	float *work = (float *)d->work;

	if (d->op == ANE_OP_CONV) {
		ane_conv_rows(d, p, u, end);
		return;
	}
	for (; u < end; u++) {
		uint64_t row = u / p->nseg;
		uint32_t o0 = (uint32_t)(u % p->nseg) * p->seg_w;
		uint32_t o1 = o0 + p->seg_w < p->width ? o0 + p->seg_w : p->width;

		switch (d->op) {
		case ANE_OP_POOL:
			ane_pool_seg(d, row, o0, o1);
			break;
		case ANE_OP_SOFTMAX:
			u += ane_softmax_run(d, row, end - u, work) - 1;
			break;
		case ANE_OP_NORM:
			ane_norm_row(d, row, work);
			break;
		default: {
			uint64_t n = p->nseg == 1 ?
				     ane_eltwise_run(d, row, end - u) : 1;

			ane_eltwise_seg(d, row, o0,
					(uint32_t)(o1 + (n - 1) * p->width));
			u += n - 1;
			break;
		}
		}
	}
}

#endif /* __CHECKER__ */
