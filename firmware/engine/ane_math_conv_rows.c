// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's convolution by output rows, for the shapes the GEMM does
 * not take (at most ANE_DIRECT_MAX_COUT outputs per group: depthwise and
 * narrow grouped convolutions): a segment of one output row per work unit
 * of a ROWS plan (ane_run_rows()).  Each output sums its taps in
 * (ci, kh, kw) order after the bias, every product rounded and then added,
 * on every path.
 *
 * Floating point: built and run as ane_math.c is (see there and
 * Documentation/accel/ane/engine.rst).
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_fpu.h"

/* sparse cannot parse the vector types (see ane_math.c). */
#ifndef __CHECKER__

/* y[i] += a * x[i], four at a time; the same operations as the scalar loop. */
static void ane_axpy(float *y, const float *x, float a, uint32_t n)
{
	ane_v4 av = { a, a, a, a }, xv, yv;
	uint32_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		__builtin_memcpy(&xv, x + i, 16);
		__builtin_memcpy(&yv, y + i, 16);
		yv += av * xv;
		__builtin_memcpy(y + i, &yv, 16);
	}
	for (; i < n; i++)
		y[i] += a * x[i];
}

/* ane_axpy(), eight at a time where the CPU can: the same bits. */
static void ane_axpy_row(float *y, const float *x, float a, uint32_t n)
{
#ifdef ANE_MATH_AVX2
	if (ane_rows_wide()) {
		ane_axpy_avx2(y, x, a, n);
		return;
	}
#endif
	ane_axpy(y, x, a, n);
}

/* Whether an fp16 is infinite or NaN: its exponent all ones. */
static inline int ane_h_nonfinite(uint16_t h)
{
	return (h & 0x7c00u) == 0x7c00u;
}

/* Whether output channel @co has an infinite or NaN weight (see @nf). */
static __attribute__((__noinline__)) uint32_t
ane_conv_w_nonfinite(const struct ane_tensor *w, uint32_t co, uint32_t cin_g,
		     struct ane_conv_nf *nf)
{
	const uint16_t *wc = ane_src(w) + (uint64_t)co * w->stride[ANE_N];
	uint32_t ci, kh, kw, any = 0;

	if (nf->co == co)
		return nf->any;
	for (ci = 0; ci < cin_g; ci++, wc += w->stride[ANE_C])
		for (kh = 0; kh < w->dim[ANE_H]; kh++)
			for (kw = 0; kw < w->dim[ANE_W]; kw++)
				any |= ane_h_nonfinite(wc[kh * w->stride[ANE_H] +
							  kw * w->stride[ANE_W]]);
	nf->co = co;
	nf->any = any;
	return any;
}

/*
 * The padded taps of outputs [o0, o1) of row (co, oh) whose weight is
 * infinite or NaN: each adds weight * 0, a NaN, as the GEMM's zero-packed
 * padding does.  Padded taps of finite weights add +-0, which changes no
 * sum, so ane_conv_seg() skips every padded tap and this adds back the
 * ones that matter; it runs only for a segment that reads padding of a
 * channel with a non-finite weight.
 */
static __attribute__((__noinline__)) void
ane_conv_pad_nonfinite(const struct ane_op_desc *d, uint32_t co, uint32_t oh,
		       uint32_t o0, uint32_t o1, float *acc)
{
	const struct ane_conv_params *cp = &d->p.conv;
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1];
	uint32_t cin_g = x->dim[ANE_C] / cp->groups, ci, kh, kw, ow;
	int64_t H = x->dim[ANE_H], W = x->dim[ANE_W];
	const uint16_t *wc = ane_src(w) + (uint64_t)co * w->stride[ANE_N];

	for (ci = 0; ci < cin_g; ci++, wc += w->stride[ANE_C])
		for (kh = 0; kh < w->dim[ANE_H]; kh++) {
			int64_t ih = (int64_t)oh * cp->stride[0] -
				     cp->pad[ANE_PAD_TOP] +
				     (int64_t)kh * cp->dilation[0];
			int row_pad = ih < 0 || ih >= H;

			for (kw = 0; kw < w->dim[ANE_W]; kw++) {
				uint16_t wb = wc[kh * w->stride[ANE_H] +
						 kw * w->stride[ANE_W]];
				int64_t off = (int64_t)kw * cp->dilation[1] -
					      cp->pad[ANE_PAD_LEFT];
				float nan;

				if (!ane_h_nonfinite(wb))
					continue;
				nan = ane_h2f(wb) * 0.0f;
				for (ow = o0; ow < o1; ow++) {
					int64_t iw = (int64_t)ow * cp->stride[1] + off;

					if (row_pad || iw < 0 || iw >= W)
						acc[ow - o0] += nan;
				}
			}
		}
}

/*
 * Direct convolution of outputs [o0, o1) of one output row (n, co, oh):
 * depthwise and kin.  @acc holds the outputs, @in one input row segment
 * in fp32.  Each output sums its taps in (ci, kh, kw) order after the bias.
 * Padded taps are skipped (they add weight * 0) unless the weight is
 * infinite or NaN, when they make the output NaN, as in IEEE arithmetic.
 */
/* acc[ow - o0] += wt * in[ow * sw + off] for ow in [lo, hi). */
static inline void ane_conv_tap(float *acc, const float *in, float wt, int64_t lo,
				int64_t hi, int64_t off, int64_t sw, uint32_t o0)
{
	int64_t ow;

	if (lo >= hi)
		return;
	if (sw == 1) {
		ane_axpy_row(acc + (lo - o0), in + (lo + off), wt, (uint32_t)(hi - lo));
		return;
	}
	for (ow = lo; ow < hi; ow++)
		acc[ow - o0] += wt * in[ow * sw + off];
}

/*
 * Input columns [i_lo, i_hi) of row @xr to fp32 in @in (@in[0] is column
 * i_lo), but those only outputs [va, vb) read: the left edge's outputs
 * [o0, va) reach up to column (va - 1) * sw + @reach, the right edge's
 * [vb, o1) start at vb * sw - @pl.
 */
static void ane_conv_in(const uint16_t *xr, uint64_t xs, int64_t i_lo, int64_t i_hi,
			uint32_t va, uint32_t vb, uint32_t o0, uint32_t o1, int64_t sw,
			int64_t reach, int64_t pl, float *in)
{
	int64_t a, b;

	if (va == vb) {
		ane_h2f_row(xr + i_lo * xs, xs, (uint32_t)(i_hi - i_lo), in);
		return;
	}
	if (va > o0) {
		b = (int64_t)(va - 1) * sw + reach + 1;
		b = b < i_hi ? b : i_hi;
		if (b > i_lo)
			ane_h2f_row(xr + i_lo * xs, xs, (uint32_t)(b - i_lo), in);
	}
	if (vb < o1) {
		a = (int64_t)vb * sw - pl;
		a = a > i_lo ? a : i_lo;
		if (a < i_hi)
			ane_h2f_row(xr + a * xs, xs, (uint32_t)(i_hi - a), in + (a - i_lo));
	}
}

/* Taps of a direct convolution the vector rows take at most. */
#define ANE_DW_TAPS	64u

/*
 * Outputs of [o0, o1) of row @oh whose every tap of channel @xc (weights
 * @wc) lies inside the row, all taps added eight or sixteen at a time
 * (ane_dw_row_avx2(), ane_dw_row_avx512()) in the scalar loop's order:
 * sets *@va to the first, returns one past the last (*@va, nothing done,
 * when the ISA, the layout, the stride or the taps do not allow it).
 */
static uint32_t ane_conv_vec(const struct ane_op_desc *d, const uint16_t *xc,
			     const uint16_t *wc, uint32_t oh, uint32_t o0, uint32_t o1,
			     float *acc, uint32_t *va)
{
#ifdef ANE_MATH_AVX2
	const struct ane_conv_params *cp = &d->p.conv;
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1];
	uint32_t kh_n = w->dim[ANE_H], kw_n = w->dim[ANE_W], kh, kw, taps = 0, done = 0;
	int64_t sw = cp->stride[1], dw = cp->dilation[1], pl = cp->pad[ANE_PAD_LEFT];
	int64_t W = x->dim[ANE_W], lo, hi;
	const uint16_t *xt[ANE_DW_TAPS];
	float wt[ANE_DW_TAPS];

	*va = o0;
	if (!ane_rows_wide() || x->stride[ANE_W] != 1 || sw > 2 ||
	    kh_n * kw_n > ANE_DW_TAPS)
		return o0;
	lo = (pl + sw - 1) / sw;
	lo = lo > o0 ? lo : o0;
	hi = W - sw - (int64_t)(kw_n - 1) * dw + pl;	/* the last read, in the row */
	if (hi < 0)
		return o0;
	hi = hi / sw + 1;
	hi = hi < o1 ? hi : o1;
	if (hi - lo < 8)
		return o0;
	for (kh = 0; kh < kh_n; kh++) {
		int64_t ih = (int64_t)oh * cp->stride[0] - cp->pad[ANE_PAD_TOP] +
			     (int64_t)kh * cp->dilation[0];

		if (ih < 0 || ih >= x->dim[ANE_H])
			continue;
		for (kw = 0; kw < kw_n; kw++, taps++) {
			xt[taps] = xc + (uint64_t)ih * x->stride[ANE_H] + lo * sw + kw * dw - pl;
			wt[taps] = ane_h2f(wc[kh * w->stride[ANE_H] + kw * w->stride[ANE_W]]);
		}
	}
	if (!taps)
		return o0;
#ifdef ANE_MATH_AVX512
	if (ane_math_isa == ANE_MATH_ISA_AVX512) {
		done = ane_dw_row_avx512(xt, wt, taps, (uint32_t)sw, acc + (lo - o0),
					 (uint32_t)(hi - lo));
		for (kh = 0; kh < taps; kh++)
			xt[kh] += done * sw;
	}
#endif
	done += ane_dw_row_avx2(xt, wt, taps, (uint32_t)sw, acc + (lo - o0) + done,
				(uint32_t)(hi - lo) - done);
	*va = (uint32_t)lo;
	return (uint32_t)lo + done;
#else
	(void)d; (void)xc; (void)wc; (void)oh; (void)o1; (void)acc;
	*va = o0;
	return o0;
#endif
}

void ane_conv_seg(const struct ane_op_desc *d, uint64_t row,
			 uint32_t o0, uint32_t o1, float *acc, float *in,
			 struct ane_conv_nf *nf)
{
	const struct ane_conv_params *cp = &d->p.conv;
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1], *y = &d->dst;
	uint32_t ho = y->dim[ANE_H], cout = y->dim[ANE_C];
	uint32_t oh = (uint32_t)(row % ho), co = (uint32_t)(row / ho % cout);
	uint64_t n = row / ho / cout;
	uint32_t cin_g = x->dim[ANE_C] / cp->groups;
	uint32_t cout_g = cout / cp->groups, gi = co / cout_g;
	uint32_t kh_n = w->dim[ANE_H], kw_n = w->dim[ANE_W];
	int64_t W = x->dim[ANE_W], sw = cp->stride[1], dw = cp->dilation[1];
	int64_t pl = cp->pad[ANE_PAD_LEFT];
	/* the input columns this segment can reach, clipped to the row */
	int64_t i_lo = (int64_t)o0 * sw - pl;
	int64_t i_hi = (int64_t)(o1 - 1) * sw - pl + (kw_n - 1) * dw + 1;
	int64_t ih_lo = (int64_t)oh * cp->stride[0] - cp->pad[ANE_PAD_TOP];
	int64_t ih_hi = ih_lo + (int64_t)(kh_n - 1) * cp->dilation[0];
	/* does any output of the segment read padding? */
	int padded = i_lo < 0 || i_hi > W || ih_lo < 0 || ih_hi >= x->dim[ANE_H];
	uint32_t ci, kh, kw, i, len = o1 - o0;
	uint16_t *yr;
	float bias = 0.0f;

	if (i_lo < 0)
		i_lo = 0;
	if (i_hi > W)
		i_hi = W;
	/* Start from the bias (a runtime value, so no memset call either). */
	if (d->bias.base)
		bias = ane_h2f(ane_src(&d->bias)[(uint64_t)co * d->bias.stride[ANE_C]]);
	for (i = 0; i < len; i++)
		acc[i] = bias;
	for (ci = 0; ci < cin_g && i_lo < i_hi; ci++) {
		const uint16_t *xc = ane_src(x) + n * x->stride[ANE_N] +
				     (uint64_t)(gi * cin_g + ci) * x->stride[ANE_C];
		const uint16_t *wc = ane_src(w) + (uint64_t)co * w->stride[ANE_N] +
				     (uint64_t)ci * w->stride[ANE_C];
		/* outputs [va, vb) take this channel's taps eight or sixteen at a time */
		uint32_t va, vb = ane_conv_vec(d, xc, wc, oh, o0, o1, acc, &va);

		for (kh = 0; kh < kh_n; kh++) {
			int64_t ih = (int64_t)oh * cp->stride[0] - cp->pad[ANE_PAD_TOP] +
				     (int64_t)kh * cp->dilation[0];
			const uint16_t *xr;

			if (ih < 0 || ih >= x->dim[ANE_H] || (va == o0 && vb == o1))
				continue;
			xr = xc + (uint64_t)ih * x->stride[ANE_H];
			ane_conv_in(xr, x->stride[ANE_W], i_lo, i_hi, va, vb, o0, o1, sw,
				    (kw_n - 1) * dw - pl, pl, in);
			for (kw = 0; kw < kw_n; kw++) {
				float wt = ane_h2f(wc[kh * w->stride[ANE_H] +
						      kw * w->stride[ANE_W]]);
				int64_t off = (int64_t)kw * dw - pl, lo = o0, hi = o1;

				/* ow such that 0 <= ow*sw + off < W (no division at stride 1) */
				if (W - off <= 0)
					continue;
				if (sw == 1) {
					lo = -off > lo ? -off : lo;
					hi = W - off < hi ? W - off : hi;
				} else {
					if (off < 0 && (-off + sw - 1) / sw > lo)
						lo = (-off + sw - 1) / sw;
					if ((W - off + sw - 1) / sw < hi)
						hi = (W - off + sw - 1) / sw;
				}
				/* the outputs before [va, vb), then those after */
				ane_conv_tap(acc, in, wt, lo, hi < va ? hi : va, off - i_lo, sw, o0);
				ane_conv_tap(acc, in, wt, lo > vb ? lo : vb, hi, off - i_lo, sw, o0);
			}
		}
	}
	if (padded && ane_conv_w_nonfinite(w, co, cin_g, nf))
		ane_conv_pad_nonfinite(d, co, oh, o0, o1, acc);
	yr = (uint16_t *)y->base + n * y->stride[ANE_N] +
	     (uint64_t)co * y->stride[ANE_C] + (uint64_t)oh * y->stride[ANE_H];
	ane_act_vec(d->act, acc, len);
	ane_f2h_row(acc, 1.0f, len, yr + (uint64_t)o0 * y->stride[ANE_W],
		    y->stride[ANE_W]);
}

#endif /* __CHECKER__ */
