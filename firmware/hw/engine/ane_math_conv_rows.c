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

/* Input rows a depthwise row keeps converted for the next (ANE_DW_KEEP). */
#define ANE_DW_KEEP	8u

/*
 * What a chunk's convolution rows carry from one row to the next (rows of
 * one channel follow each other within a chunk), on its stack, so that
 * nothing outlives the chunk: whether output channel @co has an infinite
 * or NaN weight (an integer scan of its cin_g x KH x KW taps); the
 * depthwise rows' channel whose weights are in fp32 in the workspace,
 * and which input rows of which channel and segment its phase rows hold.
 */
struct ane_conv_nf {
	int64_t co;		/* the channel @any is for; -1: none yet */
	uint32_t any;
	int64_t wco;		/* the channel of the fp32 weights; -1: none */
	const uint16_t *xc;	/* the input channel of @ih; NULL: none */
	uint32_t o0;		/* and the segment's first output */
	int64_t ih[ANE_DW_KEEP];	/* input row in phase slot s; -1: none */
};

/* A chunk's struct ane_conv_nf before its first row. */
static inline void ane_conv_nf_init(struct ane_conv_nf *nf)
{
	*nf = (struct ane_conv_nf){ .co = -1, .wco = -1 };
}

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

#ifdef ANE_MATH_AVX2
/* ane_h2f_split_avx2() or ane_h2f_split_avx512(), as the ISA says. */
static void ane_h2f_split_wide(const uint16_t *x, uint32_t pairs, float *even,
			       float *odd)
{
#ifdef ANE_MATH_AVX512
	if (ane_math_isa == ANE_MATH_ISA_AVX512) {
		ane_h2f_split_avx512(x, pairs, even, odd);
		return;
	}
#endif
	ane_h2f_split_avx2(x, pairs, even, odd);
}

/*
 * Input row @xr's columns c0 + r, r in [0, sw * P), to fp32 phase rows:
 * column r at ph[(r % sw) * P + r / sw], 0 outside the row (read only by
 * lanes the taps skip, so any value would do; zero keeps them defined).
 * The taps read at most P - 16 columns of each phase (ane_dw_phase_len()),
 * so only those are converted: the vector stores, whole groups of up to
 * sixteen, then stay in their phase row.
 */
static void ane_dw_fill(const uint16_t *xr, int64_t W, int64_t c0, uint32_t sw,
			uint32_t P, float *ph)
{
	int64_t R = (int64_t)sw * P, ra = c0 < 0 ? -c0 : 0, rb = W - c0, r, q;
	float *ev = ph, *od = ph + P;

	rb = rb < R - 16 * sw ? rb : R - 16 * sw;
	rb = rb > ra ? rb : ra;
	if (sw == 1) {
		for (r = 0; r < ra; r++)
			ph[r] = 0.0f;
		ane_h2f_row(xr + c0 + ra, 1, (uint32_t)(rb - ra), ph + ra);
		for (r = rb; r < R; r++)
			ph[r] = 0.0f;
		return;
	}
	/* pairs (2q, 2q + 1) from q = ceil(ra / 2): the odd one before alone */
	for (q = 0; q < (ra + 1) / 2; q++)
		ev[q] = od[q] = 0.0f;
	if (ra & 1)
		od[ra / 2] = ra < rb ? ane_h2f(xr[c0 + ra]) : 0.0f;
	q = (ra + 1) / 2;
	if (2 * q + 1 < rb) {
		ane_h2f_split_wide(xr + c0 + 2 * q, (uint32_t)((rb - 2 * q) / 2),
				   ev + q, od + q);
		q += (rb - 2 * q) / 2;
	}
	/* a lone even column at the end, then zeros */
	if (2 * q < rb) {
		ev[q] = ane_h2f(xr[c0 + 2 * q]);
		od[q++] = 0.0f;
	}
	for (; q < P; q++)
		ev[q] = od[q] = 0.0f;
}
#endif

#ifdef ANE_MATH_AVX2
/*
 * Whether input row @kept (-1: none) is one the output row reading @ih
 * first, or the next one, still needs: a row at least @ih, within the
 * kernel's reach of the next output row.
 */
static inline int ane_dw_wanted(const struct ane_op_desc *d, int64_t kept,
				int64_t ih)
{
	const struct ane_conv_params *cp = &d->p.conv;

	return kept >= ih && kept < ih + cp->stride[0] +
	       ((int64_t)d->src[1].dim[ANE_H] - 1) * cp->dilation[0];
}

/*
 * The phase rows of input row @ih, tap row @kh of the output row being
 * built: a slot that holds it (@nf) or, converted, one the row does not
 * use (@keep: the slots it uses) and the next row will not want; slot
 * @kh, always converted, for a kernel taller than ANE_DW_KEEP.
 */
static float *ane_dw_slot(const struct ane_op_desc *d, const uint16_t *xc,
			  uint32_t kh, int64_t ih, uint32_t o0, uint32_t P,
			  float *rows, struct ane_conv_nf *nf, uint32_t *keep)
{
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1];
	uint32_t sw = d->p.conv.stride[1], s = kh, kh_n = w->dim[ANE_H];

	if (kh_n <= ANE_DW_KEEP) {
		for (s = 0; s < kh_n; s++)
			if (nf->ih[s] == ih) {
				*keep |= 1u << s;
				return rows + (uint64_t)s * sw * P;
			}
		for (s = 0; s < kh_n; s++)
			if (!(*keep & (1u << s)) && !ane_dw_wanted(d, nf->ih[s], ih))
				break;
		if (s == kh_n)	/* all wanted: a row the next one converts again */
			s = (uint32_t)__builtin_ctz(~*keep);
		*keep |= 1u << s;
		nf->ih[s] = ih;
	}
	ane_dw_fill(xc + (uint64_t)ih * x->stride[ANE_H], x->dim[ANE_W],
		    (int64_t)o0 * sw - d->p.conv.pad[ANE_PAD_LEFT], sw, P,
		    rows + (uint64_t)s * sw * P);
	return rows + (uint64_t)s * sw * P;
}
#endif

/*
 * Outputs [o0, o1) of row @oh of depthwise input channel @xc (weights @wc
 * of output channel @co) on the wide paths (see ane_conv_dw_fits()), from
 * @bias, into @acc: each input row the outputs read is converted once into
 * phase rows in the workspace @in, where the next rows of the chunk find
 * it (@nf), then every output takes its taps sixteen (eight) at a time,
 * the padded ones masked off; with @y, through the activation into @y.
 * Returns 0, nothing done, on the SSE2 path.
 */
static int ane_conv_dw_row(const struct ane_op_desc *d, const uint16_t *xc,
			   const uint16_t *wc, uint32_t co, uint32_t oh,
			   uint32_t o0, uint32_t o1, float bias, uint16_t *y,
			   float *acc, float *in, struct ane_conv_nf *nf)
{
#ifdef ANE_MATH_AVX2
	const struct ane_conv_params *cp = &d->p.conv;
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1];
	uint32_t sw = cp->stride[1], n = o1 - o0, kh, kw, keep = 0;
	uint32_t kh_n = w->dim[ANE_H], kw_n = w->dim[ANE_W];
	uint32_t P = (uint32_t)ane_dw_phase_len(d, n);
	int64_t W = x->dim[ANE_W], pl = cp->pad[ANE_PAD_LEFT];
	struct ane_dw_taps *k = (struct ane_dw_taps *)(in + ANE_DW_TAPS);
	int32_t lo[ANE_DW_TAPS], hi[ANE_DW_TAPS];
	uint32_t at[ANE_DW_TAPS];
	float *wf = in;

	if (!ane_rows_wide())
		return 0;
	if (nf->wco != co) {	/* the channel's weights in fp32, once */
		for (kh = 0; kh < kh_n; kh++)
			for (kw = 0; kw < kw_n; kw++)
				wf[kh * kw_n + kw] = ane_h2f(wc[kh * w->stride[ANE_H] +
							       kw * w->stride[ANE_W]]);
		nf->wco = co;
	}
	if (nf->xc != xc || nf->o0 != o0) {	/* no input row kept */
		for (kh = 0; kh < ANE_DW_KEEP; kh++)
			nf->ih[kh] = -1;
		nf->xc = xc;
		nf->o0 = o0;
	}
	/*
	 * Each column tap's outputs and phase column, the same for every
	 * tap row: ceil((pl - off) / sw) <= o0 + i < ceil((W + pl - off) / sw)
	 * (shifts, not divisions: sw is 1 or 2).
	 */
	for (kw = 0; kw < kw_n; kw++) {
		int64_t off = (int64_t)kw * cp->dilation[1], l, h;

		l = sw == 1 ? pl - off : (pl - off + 1) >> 1;
		h = sw == 1 ? W + pl - off : (W + pl - off + 1) >> 1;
		l -= o0;
		h -= o0;
		lo[kw] = (int32_t)(l > 0 ? l : 0);
		hi[kw] = (int32_t)(h < n ? h : n);
		at[kw] = sw == 1 ? (uint32_t)off :
			 (uint32_t)(off & 1) * P + (uint32_t)(off >> 1);
	}
	k->n = n;
	k->taps = 0;
	k->full_lo = 0;
	k->full_hi = n;
	k->bias = bias;
	k->act = d->act;
	k->y = y;
	for (kh = 0; kh < kh_n; kh++) {
		int64_t ih = (int64_t)oh * cp->stride[0] - cp->pad[ANE_PAD_TOP] +
			     (int64_t)kh * cp->dilation[0];
		float *ph;

		if (ih < 0 || ih >= x->dim[ANE_H])
			continue;
		ph = ane_dw_slot(d, xc, kh, ih, o0, P, in + ANE_DW_HDR_FLOATS, nf,
				 &keep);
		for (kw = 0; kw < kw_n; kw++) {
			uint32_t t = k->taps;

			if (lo[kw] >= hi[kw])
				continue;	/* every output skips it */
			k->x[t] = ph + at[kw];
			k->wt[t] = wf[kh * kw_n + kw];
			k->lo[t] = lo[kw];
			k->hi[t] = hi[kw];
			if ((uint32_t)lo[kw] > k->full_lo)
				k->full_lo = (uint32_t)lo[kw];
			if ((uint32_t)hi[kw] < k->full_hi)
				k->full_hi = (uint32_t)hi[kw];
			k->taps++;
		}
	}
#ifdef ANE_MATH_AVX512
	if (ane_math_isa == ANE_MATH_ISA_AVX512) {
		ane_dw_taps_avx512(k, acc);
		return 1;
	}
#endif
	ane_dw_taps_avx2(k, acc);
	return 1;
#else
	(void)d; (void)xc; (void)wc; (void)co; (void)oh; (void)o0; (void)o1;
	(void)bias; (void)y; (void)acc; (void)in; (void)nf;
	return 0;
#endif
}

/*
 * Outputs [o0, o1) of row @oh of output channel @co of batch @n, from
 * @bias, into @acc, by taps: the channels of group @gi in order, each
 * tap's outputs as one axpy over the input row converted at @in, or all
 * its taps eight or sixteen at a time where no output reads padding
 * (ane_conv_vec()).
 */
static void ane_conv_taps(const struct ane_op_desc *d, uint64_t n, uint32_t gi,
			  uint32_t co, uint32_t oh, uint32_t o0, uint32_t o1,
			  float bias, float *acc, float *in)
{
	const struct ane_conv_params *cp = &d->p.conv;
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1];
	uint32_t cin_g = x->dim[ANE_C] / cp->groups;
	uint32_t kh_n = w->dim[ANE_H], kw_n = w->dim[ANE_W];
	int64_t W = x->dim[ANE_W], sw = cp->stride[1], dw = cp->dilation[1];
	int64_t pl = cp->pad[ANE_PAD_LEFT];
	/* the input columns this segment can reach, clipped to the row */
	int64_t i_lo = (int64_t)o0 * sw - pl;
	int64_t i_hi = (int64_t)(o1 - 1) * sw - pl + (kw_n - 1) * dw + 1;
	uint32_t ci, kh, kw, i;

	if (i_lo < 0)
		i_lo = 0;
	if (i_hi > W)
		i_hi = W;
	/* Start from the bias (a runtime value, so no memset call either). */
	for (i = 0; i < o1 - o0; i++)
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
}

/* Outputs [o0, o1) of output row (n, co, oh), @nf as ane_conv_rows()'s. */
static void ane_conv_seg(const struct ane_op_desc *d, uint64_t n, uint32_t co,
			 uint32_t oh, uint32_t o0, uint32_t o1, float *acc,
			 float *in, struct ane_conv_nf *nf)
{
	const struct ane_conv_params *cp = &d->p.conv;
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1], *y = &d->dst;
	uint32_t cout = y->dim[ANE_C];
	uint32_t cin_g = x->dim[ANE_C] / cp->groups;
	uint32_t gi = co / (cout / cp->groups);
	int64_t i_lo = (int64_t)o0 * cp->stride[1] - cp->pad[ANE_PAD_LEFT];
	int64_t i_hi = (int64_t)(o1 - 1) * cp->stride[1] - cp->pad[ANE_PAD_LEFT] +
		       ((int64_t)w->dim[ANE_W] - 1) * cp->dilation[1] + 1;
	int64_t ih_lo = (int64_t)oh * cp->stride[0] - cp->pad[ANE_PAD_TOP];
	int64_t ih_hi = ih_lo + ((int64_t)w->dim[ANE_H] - 1) * cp->dilation[0];
	/* does any output of the segment read padding? */
	int padded = i_lo < 0 || i_hi > x->dim[ANE_W] || ih_lo < 0 ||
		     ih_hi >= x->dim[ANE_H];
	uint32_t len = o1 - o0;
	uint16_t *yr = (uint16_t *)y->base + n * y->stride[ANE_N] +
		       (uint64_t)co * y->stride[ANE_C] + (uint64_t)oh * y->stride[ANE_H] +
		       (uint64_t)o0 * y->stride[ANE_W];
	/* padded taps of an infinite or NaN weight to add back? */
	int fix = padded && ane_conv_w_nonfinite(w, co, cin_g, nf), direct;
	float bias = 0.0f;

	if (d->bias.base)
		bias = ane_h2f(ane_src(&d->bias)[(uint64_t)co * d->bias.stride[ANE_C]]);
	/* a depthwise row straight into dst when nothing comes between */
	direct = !fix && y->stride[ANE_W] == 1 &&
		 (d->act == ANE_ACT_NONE || d->act == ANE_ACT_RELU ||
		  d->act == ANE_ACT_RELU6);
	if (!ane_conv_dw_fits(d) ||
	    !ane_conv_dw_row(d, ane_src(x) + n * x->stride[ANE_N] +
			     (uint64_t)gi * x->stride[ANE_C],
			     ane_src(w) + (uint64_t)co * w->stride[ANE_N], co, oh,
			     o0, o1, bias, direct ? yr : NULL, acc, in, nf))
		ane_conv_taps(d, n, gi, co, oh, o0, o1, bias, acc, in);
	else if (direct)
		return;
	if (fix)
		ane_conv_pad_nonfinite(d, co, oh, o0, o1, acc);
	ane_act_vec(d->act, acc, len);
	ane_f2h_row(acc, 1.0f, len, yr, y->stride[ANE_W]);
}

void ane_conv_rows(const struct ane_op_desc *d, const struct ane_plan *p,
		   uint64_t u, uint64_t end)
{
	uint32_t ho = d->dst.dim[ANE_H], cout = d->dst.dim[ANE_C];
	uint64_t row = u / p->nseg, n = row / ho / cout;
	uint32_t seg = (uint32_t)(u % p->nseg), oh = (uint32_t)(row % ho);
	uint32_t co = (uint32_t)(row / ho % cout);
	float *acc = (float *)d->work;
	float *in = (float *)((char *)d->work + p->b_off);
	struct ane_conv_nf nf;

	ane_conv_nf_init(&nf);
	for (; u < end; u++) {
		uint32_t o0 = seg * p->seg_w;
		uint32_t o1 = o0 + p->seg_w < p->width ? o0 + p->seg_w : p->width;

		ane_conv_seg(d, n, co, oh, o0, o1, acc, in, &nf);
		/* the next unit's row and segment, without dividing */
		if (++seg < p->nseg)
			continue;
		seg = 0;
		if (++oh < ho)
			continue;
		oh = 0;
		if (++co == cout) {
			co = 0;
			n++;
		}
	}
}

#endif /* __CHECKER__ */
