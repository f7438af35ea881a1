// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's pooling (POOL), max and average: each output row of a
 * window takes its rows' columns first -- the maximum, or the sum in row
 * order, of every column the row's windows touch, in fp32 -- then each
 * window the maximum or the sum in column order of its columns.  The
 * column step runs eight or sixteen columns at a time on the AVX2 and
 * AVX-512 paths (ane_pool_cols_avx2(), ane_pool_cols_avx512()), the same
 * operations per column as the scalar loop here, so every path gives the
 * same bits; a window of a row shares its columns' work with the windows
 * beside it, which a stride smaller than the window reads again.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_fpu.h"

#ifndef __CHECKER__

/* Columns of one step, on the stack: windows of at most 64 fit. */
#define ANE_POOL_COLS	256u

/* The column step: @n columns @xw apart, @rows rows @xs apart. */
static void ane_pool_cols(const uint16_t *x, uint64_t xs, uint64_t xw,
			  uint32_t rows, float *cols, uint32_t n, int max)
{
	uint32_t i = 0, r;

#ifdef ANE_MATH_AVX512
	if (xw == 1 && ane_math_isa == ANE_MATH_ISA_AVX512)
		i = ane_pool_cols_avx512(x, xs, rows, cols, n, max);
#endif
#ifdef ANE_MATH_AVX2
	if (xw == 1 && ane_math_isa >= ANE_MATH_ISA_AVX2_FMA)
		i += ane_pool_cols_avx2(x + i, xs, rows, cols + i, n - i, max);
#endif
	for (; i < n; i++) {
		const uint16_t *p = x + i * xw;
		float acc = ane_h2f(p[0]);
		uint32_t nan = acc != acc;

		for (r = 1; r < rows; r++) {
			float v = ane_h2f(p[r * xs]);

			if (max) {
				nan |= v != v;
				acc = v > acc ? v : acc;
			} else {
				acc = acc + v;
			}
		}
		cols[i] = max && nan ? ane_bits_f(0x7fc00000u) : acc;
	}
}

void ane_pool_seg(const struct ane_op_desc *d, uint64_t row, uint32_t o0,
		  uint32_t o1)
{
	const struct ane_pool_params *pp = &d->p.pool;
	const struct ane_tensor *x = &d->src[0], *y = &d->dst;
	uint64_t oh = row % y->dim[ANE_H], t = row / y->dim[ANE_H];
	uint64_t c = t % y->dim[ANE_C], n = t / y->dim[ANE_C];
	uint64_t xs_h = x->stride[ANE_H], xs_w = x->stride[ANE_W];
	const uint16_t *xp = ane_src(x) + n * x->stride[ANE_N] + c * x->stride[ANE_C];
	uint16_t *yr = (uint16_t *)y->base + n * y->stride[ANE_N] +
		       c * y->stride[ANE_C] + oh * y->stride[ANE_H];
	int64_t H = x->dim[ANE_H], W = x->dim[ANE_W];
	int64_t h0 = (int64_t)oh * pp->stride[0] - pp->pad[ANE_PAD_TOP];
	int64_t h1 = h0 + pp->kernel[0], hl = h0 < 0 ? 0 : h0, hh = h1 > H ? H : h1;
	int64_t sw = pp->stride[1], kw = pp->kernel[1], pl = pp->pad[ANE_PAD_LEFT];
	/* outputs per step: their columns fit ANE_POOL_COLS */
	uint32_t step = (uint32_t)((ANE_POOL_COLS - kw) / sw + 1);
	float full = (float)(pp->kernel[0] * pp->kernel[1]);
	float cols[ANE_POOL_COLS], out[ANE_BLOCK];
	int max = pp->kind == ANE_POOL_MAX;
	uint32_t ow, j, ob;

	if (step > ANE_BLOCK)
		step = ANE_BLOCK;
	for (; o0 < o1; o0 = ob) {
		int64_t c0 = (int64_t)o0 * sw - pl, c1;

		ob = o1 - o0 > step ? o0 + step : o1;
		c1 = (int64_t)(ob - 1) * sw - pl + kw;
		c0 = c0 < 0 ? 0 : c0;
		c1 = c1 > W ? W : c1;
		ane_pool_cols(xp + hl * xs_h + c0 * xs_w, xs_h, xs_w, (uint32_t)(hh - hl),
			      cols, (uint32_t)(c1 - c0), max);
		for (ow = o0; ow < ob; ow++) {
			int64_t w0 = (int64_t)ow * sw - pl, w1 = w0 + kw, iw;
			int64_t wl = w0 < 0 ? 0 : w0, wh = w1 > W ? W : w1;
			float r = cols[wl - c0];

			if (max) {
				uint32_t nan = r != r;

				for (iw = wl + 1; iw < wh; iw++) {
					float v = cols[iw - c0];

					nan |= v != v;
					r = v > r ? v : r;
				}
				if (nan)
					r = ane_bits_f(0x7fc00000u);
			} else {
				for (iw = wl + 1; iw < wh; iw++)
					r = r + cols[iw - c0];
				r = r / ((pp->flags & ANE_POOL_AVG_INCLUDE_PAD) ? full :
					 (float)((hh - hl) * (wh - wl)));
			}
			out[ow - o0] = r;
		}
		ane_act_vec(d->act, out, ob - o0);
		for (j = o0; j < ob; j++)
			yr[j * y->stride[ANE_W]] = ane_f2h(out[j - o0]);
	}
}

#endif /* __CHECKER__ */
