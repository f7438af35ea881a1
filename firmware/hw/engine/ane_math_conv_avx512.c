// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVX-512 path's direct convolution: a convolution with a window
 * (KH * KW > 1), unit column stride and a multiple of 16 output channels
 * per group runs here instead of as a GEMM over a packed im2col matrix.
 *
 * The output channels are in the vector lanes.  A register block is 14
 * output pixels of one output row by 32 output channels, in 28 sixteen-
 * float accumulators; per tap (ci, kh, kw) it loads the 32 weights (two
 * vectors) and broadcasts each of the 14 input values once from memory
 * into two fused multiply-adds.  So there is no im2col matrix and no
 * unaligned vector load of the input, only 4-byte broadcasts.
 *
 * It follows the GEMM plan of every other path (struct ane_plan: the
 * chunk count, the blocks of output pixels, the workspace size), and
 * uses the two packed areas its own way:
 *
 * * the A area holds the weights as [oc block of 32][k][32] fp32, k =
 *   (ci, kh, kw) as in the GEMM, zero past the last channel, packed by the
 *   packing chunks of the first B block of each problem (16 x 16
 *   transposes of 16 channels by 16 k), then a 2 KiB scratch tile;
 * * the B area holds, per B block, a zero-padded fp32 copy of the input
 *   rows its output rows reach ([ci][row][column], wo + (KW - 1) DW
 *   columns), packed by the block's packing chunks, channel range by
 *   channel range;
 * * compute chunk i of the block's n computes the i-th of n runs of the
 *   block's 14-pixel slots (an output row segment is cut into 14-pixel
 *   slots, the last narrower), every output channel.
 *
 * Whether a convolution runs here depends on the descriptor and the plan
 * only (ane_conv_direct()), so all the chunks of one run agree.  Every
 * output is summed in k order 0, 1, ... K - 1, one fused multiply-add
 * per tap from zero, the padding's zeros included, as the GEMM kernels
 * do: the same bits as the AVX2 and AVX-512 GEMMs.  The store adds the
 * bias, applies the activation and rounds as ane_math_avx512.c's store
 * does (ReLU and ReLU6 here, the rest through ane_store_tile_avx2()).
 *
 * Built and run as ane_math_avx512.c is (the same flags, no intrinsics
 * header, inside kernel_fpu_begin() / kernel_fpu_end()).
 *
 * Copyright (C) 2026 The ane authors
 */

#define ANE_MATH_FPU
#include "ane_math_impl.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && \
	defined(__AVX512VL__) && defined(__AVX2__) && defined(__FMA__) && \
	defined(__F16C__)

#include "ane_math_avx512.h"

typedef int32_t ane_i16 __attribute__((vector_size(64)));

/* Pixels and output channels of the register block. */
#define ANE_CONV_PX	14u
#define ANE_CONV_OC	32u
/* The scratch tile after the weights: ANE_CONV_PX rows of 32, padded. */
#define ANE_CONV_SCRATCH	(16u * ANE_CONV_OC)

static inline ane_v16 ane_cv_h2f(ane_h16 h)
{
	return __builtin_ia32_vcvtph2ps512_mask(h, ane_splat16(0.0f),
						(uint16_t)0xffff, 4);
}

static inline uint16_t ane_cv_mask(uint32_t n)
{
	return (uint16_t)(n >= 16 ? 0xffffu : (1u << n) - 1u);
}

/* ------------------------------------------------------------ geometry */

/*
 * The direct path's layout for the chunk's B block: the copy's rows and
 * width, its channel stride, and the oc blocks.  Zero when the
 * convolution does not run here: no window, column stride not 1,
 * channels not a multiple of 16, or the weights or the copy of the
 * largest block a plan's nc columns can reach not fitting the plan's
 * areas -- a test of the descriptor and the plan only, so that every
 * chunk of a run gives the same answer.
 */
struct ane_conv_geo {
	uint32_t rows, wp, ocb;
	uint64_t cs;
};

static int ane_conv_direct(const struct ane_gemm *g,
			   const struct ane_gemm_chunk *c,
			   struct ane_conv_geo *q)
{
	uint64_t span, wbytes, xbytes;

	if ((uint64_t)g->kh * g->kw < 2 || g->sw != 1 || !c->M ||
	    c->M % 16 || !c->nc)
		return 0;
	/* output rows a block of nc pixels can reach, wherever it starts */
	span = (c->nc + g->wo - 2) / g->wo;
	q->rows = (uint32_t)(span * g->sh + (uint64_t)(g->kh - 1) * g->dh + 1);
	q->wp = g->wo + (g->kw - 1) * g->dw;
	q->cs = (uint64_t)q->rows * q->wp;
	q->ocb = (c->M + ANE_CONV_OC - 1) / ANE_CONV_OC;
	wbytes = ((uint64_t)q->ocb * ANE_CONV_OC * c->K + ANE_CONV_SCRATCH +
		  c->parts) * 4;
	xbytes = (uint64_t)g->cin * q->cs * 4;
	if (wbytes > (uint64_t)c->mc * c->K * 16 ||
	    xbytes > (uint64_t)c->nc * c->K * 4)
		return 0;
	/* this block's copy: the rows its own output rows reach */
	span = (c->n0 + c->nlen - 1) / g->wo - c->n0 / g->wo;
	q->rows = (uint32_t)(span * g->sh + (uint64_t)(g->kh - 1) * g->dh + 1);
	q->cs = (uint64_t)q->rows * q->wp;
	return 1;
}

/*
 * After the weights and the scratch tile: one word per packing chunk,
 * nonzero when the weights it packed hold an infinity or a NaN.
 */
static uint32_t *ane_cv_special(const struct ane_gemm_chunk *c,
				const struct ane_conv_geo *q)
{
	return (uint32_t *)(c->pa + (uint64_t)q->ocb * ANE_CONV_OC * c->K +
			    ANE_CONV_SCRATCH);
}

/* ------------------------------------------------------------ packing */

/*
 * r = r transposed: lane c of row i becomes lane i of row c.  Four
 * butterfly stages; stage h swaps, for each row pair (i, i + h) with i & h
 * clear, the lanes c of row i with c & h set and the lanes c - h of row
 * i + h, so that after all four row and lane numbers have traded every
 * bit.  Constant shuffles, which the compiler turns into in-lane and
 * lane-crossing shuffles as it sees fit.
 */
#define ANE_CV_LO1	{ 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30 }
#define ANE_CV_HI1	{ 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31 }
#define ANE_CV_LO2	{ 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29 }
#define ANE_CV_HI2	{ 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31 }
#define ANE_CV_LO4	{ 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27 }
#define ANE_CV_HI4	{ 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31 }
#define ANE_CV_LO8	{ 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23 }
#define ANE_CV_HI8	{ 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31 }

#define ANE_CV_STAGE(h)	do {						\
	_Pragma("GCC unroll 16")					\
	for (i = 0; i < 16; i++) {					\
		ane_v16 a, b;						\
									\
		if (i & (h))						\
			continue;					\
		a = r[i];						\
		b = r[i | (h)];						\
		r[i] = __builtin_shuffle(a, b, (ane_i16)ANE_CV_LO##h);	\
		r[i | (h)] = __builtin_shuffle(a, b, (ane_i16)ANE_CV_HI##h); \
	}								\
} while (0)

static __attribute__((always_inline)) inline void ane_cv_tr16(ane_v16 *r)
{
	uint32_t i;

	ANE_CV_STAGE(1);
	ANE_CV_STAGE(2);
	ANE_CV_STAGE(4);
	ANE_CV_STAGE(8);
}

/* A(m, k) of the problem, k = (ci, kh, kw). */
static uint16_t ane_cv_a(const struct ane_gemm *g, uint32_t m, uint32_t k)
{
	uint32_t taps = g->kh * g->kw, ci = k / taps, t = k % taps;

	return g->a[(uint64_t)m * g->a_sm + (uint64_t)ci * g->a_sc +
		    (uint64_t)(t / g->kw) * g->a_sh + (uint64_t)(t % g->kw) * g->a_sw];
}

/*
 * Weights units [u0, u1) of 16 channels by 16 k: wp[ob][k][32], lanes of
 * channels past M zero.  Sixteen rows of 16 k are converted and
 * transposed when the weights are dense in k (the usual layout), else
 * gathered one by one.
 */
static int ane_cv_pack_w(const struct ane_gemm *g, uint32_t M, uint32_t K,
			 float *wp, uint64_t u0, uint64_t u1)
{
	const ane_h16 expo = { 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00,
			       0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00,
			       0x7c00, 0x7c00, 0x7c00, 0x7c00 };
	ane_h16 special = { 0 };
	int dense = (g->kw == 1 || g->a_sw == 1) &&
		    (g->kh == 1 || g->a_sh == g->kw) &&
		    (g->cin == 1 || g->a_sc == (uint64_t)g->kh * g->kw);
	uint64_t kb = (K + 15) / 16, u;
	uint32_t i, j;

	for (u = u0; u < u1; u++) {
		uint32_t m0 = (uint32_t)(u / kb) * 16, k0 = (uint32_t)(u % kb) * 16;
		uint32_t kn = K - k0 < 16 ? K - k0 : 16;
		float *dst = wp + (uint64_t)(m0 / ANE_CONV_OC) * ANE_CONV_OC * K +
			     (uint64_t)k0 * ANE_CONV_OC + m0 % ANE_CONV_OC;
		ane_v16 r[16];

#pragma GCC unroll 16
		for (i = 0; i < 16; i++) {
			ane_h16 h = { 0 };

			if (m0 + i < M && dense) {
				/* this row two units (64 k) on */
				__builtin_prefetch(g->a + (uint64_t)(m0 + i) * g->a_sm +
						   k0 + 64);
				h = __builtin_ia32_loaddquhi256_mask(
					(const short *)(g->a + (uint64_t)(m0 + i) * g->a_sm + k0),
					h, ane_cv_mask(kn));
			} else if (m0 + i < M) {
				for (j = 0; j < kn; j++)
					h[j] = (short)ane_cv_a(g, m0 + i, k0 + j);
			}
			/* all exponent bits set: an infinity or a NaN */
			special |= (ane_h16)((h & expo) == expo);
			r[i] = ane_cv_h2f(h);
		}
		ane_cv_tr16(r);
		for (j = 0; j < kn; j++)
			ane_store16(dst + (uint64_t)j * ANE_CONV_OC, r[j]);
	}
	for (i = 0; i < 16; i++)
		if (special[i])
			return 1;
	return 0;
}

#define ANE_CV_PF	4u

/* Vectors of a copy row that ane_cv_pack_x() masks once for all rows. */
#define ANE_CV_ROWV	8u

/*
 * Channels [ci0, ci1) of the block's padded input copy: row r of channel
 * ci is input row oh0 * sh - pt + r, column c input column c - pl, zero
 * outside the input.  A row of at most ANE_CV_ROWV vectors from an input
 * with unit column stride (the usual case) is a masked load, a
 * conversion and a masked store per 16 columns, the masks worked out once.
 */
static void ane_cv_pack_x(const struct ane_gemm *g, const struct ane_conv_geo *q,
			  uint32_t oh0, float *xp, uint32_t ci0, uint32_t ci1)
{
	uint32_t ci, r, c, nvec = (q->wp + 15) / 16, v;
	uint16_t lm[ANE_CV_ROWV], sm[ANE_CV_ROWV];

	if (g->x_sw == 1 && nvec <= ANE_CV_ROWV) {
		for (v = 0; v < nvec; v++) {
			int64_t iw = (int64_t)v * 16 - g->pl;
			uint32_t n = q->wp - v * 16 < 16 ? q->wp - v * 16 : 16;
			int64_t a = iw < 0 ? 0 : iw;
			int64_t b = iw + n > g->w ? g->w : iw + n;

			lm[v] = a < b ? (uint16_t)(ane_cv_mask((uint32_t)(b - a)) <<
						   (uint32_t)(a - iw)) : 0;
			sm[v] = ane_cv_mask(n);
		}
		for (ci = ci0; ci < ci1; ci++) {
			const uint16_t *pc = g->x + (uint64_t)ci * g->x_sc;
			float *d = xp + ci * q->cs;

			for (r = 0; r < q->rows; r++, d += q->wp) {
				int64_t ih = (int64_t)oh0 * g->sh - g->pt + r;
				const short *src;

				if (ih < 0 || ih >= g->h) {
					for (v = 0; v < nvec; v++)
						__builtin_ia32_storeups512_mask(d + v * 16,
										ane_splat16(0.0f),
										sm[v]);
					continue;
				}
				/* the same row ANE_CV_PF channels on (below) */
				if (ci + ANE_CV_PF < g->cin)
					for (c = 0; c < g->w; c += 32)
						__builtin_prefetch(pc + ANE_CV_PF * g->x_sc +
								   ih * g->x_sh + c);
				/* lanes before column 0 are masked off */
				src = (const short *)(pc + ih * g->x_sh) - g->pl;
				for (v = 0; v < nvec; v++)
					__builtin_ia32_storeups512_mask(d + v * 16,
						ane_cv_h2f(__builtin_ia32_loaddquhi256_mask(
							src + v * 16, (ane_h16){ 0 }, lm[v])),
						sm[v]);
			}
		}
		return;
	}
	for (ci = ci0; ci < ci1; ci++) {
		const uint16_t *pc = g->x + (uint64_t)ci * g->x_sc;

		for (r = 0; r < q->rows; r++) {
			float *d = xp + ci * q->cs + (uint64_t)r * q->wp;
			int64_t ih = (int64_t)oh0 * g->sh - g->pt + r;

			/*
			 * The same row ANE_CV_PF channels on, past this
			 * chunk's channels too: a chunk packs only one or
			 * two of them, and the next chunks follow at once.
			 */
			if (ci + ANE_CV_PF < g->cin && ih >= 0 && ih < g->h)
				for (c = 0; c < g->w; c += 32)
					__builtin_prefetch(pc + ANE_CV_PF * g->x_sc +
							   ih * g->x_sh + c * g->x_sw);

			for (c = 0; c < q->wp; c += 16) {
				uint32_t n = q->wp - c < 16 ? q->wp - c : 16;
				int64_t iw = (int64_t)c - g->pl;
				ane_h16 h = { 0 };
				uint32_t j;

				if (ih >= 0 && ih < g->h && g->x_sw == 1) {
					int64_t a = iw < 0 ? 0 : iw;
					int64_t b = iw + n > g->w ? g->w : iw + n;

					if (a < b)
						h = __builtin_ia32_loaddquhi256_mask(
							(const short *)(pc + ih * g->x_sh + iw),
							h, (uint16_t)(ane_cv_mask((uint32_t)(b - a)) <<
								      (uint32_t)(a - iw)));
				} else if (ih >= 0 && ih < g->h) {
					for (j = 0; j < n; j++)
						if (iw + j >= 0 && iw + j < g->w)
							h[j] = (short)pc[ih * g->x_sh +
									 (iw + j) * g->x_sw];
				}
				__builtin_ia32_storeups512_mask(d + c, ane_cv_h2f(h),
								ane_cv_mask(n));
			}
		}
	}
}

/* ------------------------------------------------------------ kernel */

/*
 * One register block: @np (constant) pixels at @x (the copy at the
 * block's first pixel, tap (0, 0, 0)) by 16 @nv (constant) channels, the
 * weights at @w ([k][32]), over the taps of window rows [@r0, @r1) of
 * every channel; the sums go to @s, pixel j at @s + 32 j.  With @edge
 * (constant), the first pixel leaves out the window columns before @tf
 * and the last those from @tl on (taps that read the padding's zeros).
 * Named accumulators, not an array (see ane_math_avx512.c).
 */
#define ANE_CV_PX(f)	do {						\
	f(0); f(1); f(2); f(3); f(4); f(5); f(6);			\
	f(7); f(8); f(9); f(10); f(11); f(12); f(13);			\
} while (0)

#define ANE_CV_DECL(j)	ane_v16 c##j##_0 = ane_splat16(0.0f), c##j##_1 = c##j##_0

#define ANE_CV_FMA(j)	do {						\
	if ((j) < np && (!edge || (((j) != 0 || t >= tf) &&		\
				   ((j) != np - 1 || t < tl)))) {	\
		ane_v16 x_ = ane_splat16(xs[j]);			\
		c##j##_0 = ane_fma16(w0, x_, c##j##_0);		\
		if (nv == 2)						\
			c##j##_1 = ane_fma16(w1, x_, c##j##_1);	\
	}								\
} while (0)

#define ANE_CV_OUT(j)	do {						\
	if ((j) < np) {							\
		ane_store16(s + 32 * (j), c##j##_0);			\
		if (nv == 2)						\
			ane_store16(s + 32 * (j) + 16, c##j##_1);	\
	}								\
} while (0)

/* Weights prefetched this many floats (16 taps of 32 channels) ahead. */
#define ANE_CV_WPF	512

static __attribute__((always_inline)) inline void
ane_cv_kernel(const struct ane_gemm *g, const struct ane_conv_geo *q,
	      const float *w, const float *x, float *s, uint32_t r0,
	      uint32_t r1, uint32_t tf, uint32_t tl, const int np,
	      const int nv, const int edge)
{
	uint64_t rstep = (uint64_t)g->dh * q->wp;
	uint64_t skip0 = (uint64_t)r0 * g->kw * ANE_CONV_OC;
	uint64_t skip1 = (uint64_t)(g->kh - r1) * g->kw * ANE_CONV_OC;
	uint32_t ci, r, t;
	ANE_CV_DECL(0); ANE_CV_DECL(1); ANE_CV_DECL(2); ANE_CV_DECL(3);
	ANE_CV_DECL(4); ANE_CV_DECL(5); ANE_CV_DECL(6); ANE_CV_DECL(7);
	ANE_CV_DECL(8); ANE_CV_DECL(9); ANE_CV_DECL(10); ANE_CV_DECL(11);
	ANE_CV_DECL(12); ANE_CV_DECL(13);

	for (ci = 0; ci < g->cin; ci++, x += q->cs) {
		const float *xr = x + r0 * rstep;

		w += skip0;
		for (r = r0; r < r1; r++, xr += rstep) {
			const float *xs = xr;

			for (t = 0; t < g->kw; t++, xs += g->dw, w += ANE_CONV_OC) {
				ane_v16 w0 = ane_load16(w), w1 = w0;

				__builtin_prefetch(w + ANE_CV_WPF);
				if (nv == 2)
					w1 = ane_load16(w + 16);
				ANE_CV_PX(ANE_CV_FMA);
			}
		}
		w += skip1;
	}
	ANE_CV_PX(ANE_CV_OUT);
}

#define ANE_CV_KERNEL(np, nv)						\
static __attribute__((__noinline__)) void				\
ane_cv_kernel_##np##_##nv(const struct ane_gemm *g,			\
			  const struct ane_conv_geo *q, const float *w,	\
			  const float *x, float *s, uint32_t r0,	\
			  uint32_t r1)					\
{									\
	ane_cv_kernel(g, q, w, x, s, r0, r1, 0, 0, np, nv, 0);		\
}

/* The 14-pixel block at a row's edge: see ane_cv_kernel()'s @edge. */
#define ANE_CV_EDGE(nv)							\
static __attribute__((__noinline__)) void				\
ane_cv_edge_##nv(const struct ane_gemm *g,				\
		 const struct ane_conv_geo *q, const float *w,		\
		 const float *x, float *s, uint32_t r0, uint32_t r1,	\
		 uint32_t tf, uint32_t tl)				\
{									\
	ane_cv_kernel(g, q, w, x, s, r0, r1, tf, tl, ANE_CONV_PX, nv, 1); \
}

ANE_CV_EDGE(2)
ANE_CV_EDGE(1)

ANE_CV_KERNEL(14, 2)
ANE_CV_KERNEL(8, 2)
ANE_CV_KERNEL(4, 2)
ANE_CV_KERNEL(2, 2)
ANE_CV_KERNEL(1, 2)
ANE_CV_KERNEL(14, 1)
ANE_CV_KERNEL(8, 1)
ANE_CV_KERNEL(4, 1)
ANE_CV_KERNEL(2, 1)
ANE_CV_KERNEL(1, 1)

typedef void ane_cv_kernel_fn(const struct ane_gemm *g,
			      const struct ane_conv_geo *q, const float *w,
			      const float *x, float *s, uint32_t r0,
			      uint32_t r1);

/* By vectors (2, 1) and pixels (14, 8, 4, 2, 1). */
static ane_cv_kernel_fn *const ane_cv_kernels[2][5] = {
	{ ane_cv_kernel_14_2, ane_cv_kernel_8_2, ane_cv_kernel_4_2,
	  ane_cv_kernel_2_2, ane_cv_kernel_1_2 },
	{ ane_cv_kernel_14_1, ane_cv_kernel_8_1, ane_cv_kernel_4_1,
	  ane_cv_kernel_2_1, ane_cv_kernel_1_1 },
};

/* The kernel for @np pixels (14, 8, 4, 2 or 1) and @nv vectors. */
static void ane_cv_kernel_any(const struct ane_gemm *g,
			      const struct ane_conv_geo *q, const float *w,
			      const float *x, float *s, uint32_t r0, uint32_t r1,
			      uint32_t np, uint32_t nv)
{
	uint32_t i = np == 14 ? 0 : np == 8 ? 1 : np == 4 ? 2 : np == 2 ? 3 : 4;

	ane_cv_kernels[nv == 2 ? 0 : 1][i](g, q, w, x, s, r0, r1);
}

/* ------------------------------------------------------------ store */

/*
 * Store @np pixels from GEMM column @col by 16 @nv channels from @m, the
 * sums at @s (pixel j at @s + 32 j): each group of 16 channels transposed
 * to channel rows of pixels, then biased, activated, rounded and stored
 * as ane_math_avx512.c's ane_store_tile_avx512() does -- a masked store
 * of the @np lanes of each channel row when they are contiguous in dst
 * and the activation is none, ReLU or ReLU6, else by
 * ane_store_tile_avx2(), six rows at a time.
 */
static __attribute__((__noinline__)) void
ane_cv_store_block(const struct ane_gemm *g, const float *s, uint32_t m,
		   uint32_t col, uint32_t np, uint32_t nv)
{
	uint32_t oh = col / g->wo, ow = col % g->wo, v, i;
	uint16_t mask = ane_cv_mask(np);
	const ane_v16 zero = ane_splat16(0.0f), six = ane_splat16(6.0f);
	int fast = g->y_sw == 1 &&
		   (g->act == ANE_ACT_NONE || g->act == ANE_ACT_RELU ||
		    g->act == ANE_ACT_RELU6);

	for (v = 0; v < nv; v++) {
		ane_v16 r[16];
		uint16_t *y = g->y + (uint64_t)(m + 16 * v) * g->y_sm +
			      (uint64_t)oh * g->y_sh + ow;

#pragma GCC unroll 16
		for (i = 0; i < 16; i++)
			r[i] = i < np ? ane_load16(s + 32 * i + 16 * v) : zero;
		ane_cv_tr16(r);
		if (!fast) {
			float tile[ANE_MR * 16];

			for (i = 0; i < 16; i += ANE_MR) {
				uint32_t n = 16 - i < ANE_MR ? 16 - i : ANE_MR, l;

				for (l = 0; l < n; l++)
					ane_store16(tile + 16 * l, r[i + l]);
				ane_store_tile_avx2(g, tile, m + 16 * v + i, n, col, np);
			}
			continue;
		}
#pragma GCC unroll 16
		for (i = 0; i < 16; i++, y += g->y_sm) {
			ane_v16 x = r[i];
			ane_h16 h;

			if (g->bias)
				x += ane_splat16(ane_cv_h2f((ane_h16){
					(short)g->bias[(uint64_t)(m + 16 * v + i) *
						       g->bias_s] })[0]);
			/* ordered comparisons: NaN and -0 pass (ane_math.c) */
			if (g->act == ANE_ACT_RELU || g->act == ANE_ACT_RELU6)
				x = __builtin_ia32_blendmps_512_mask(x, zero,
					__builtin_ia32_cmpps512_mask(x, zero, 1 /* LT_OS */,
								     (uint16_t)0xffff, 4));
			if (g->act == ANE_ACT_RELU6)
				x = __builtin_ia32_blendmps_512_mask(x, six,
					__builtin_ia32_cmpps512_mask(x, six, 14 /* GT_OS */,
								     (uint16_t)0xffff, 4));
			h = __builtin_ia32_vcvtps2ph512_mask(x, 0, (ane_h16){ 0 },
							     (uint16_t)0xffff);
			__builtin_ia32_storedquhi256_mask((short *)y, h, mask);
		}
	}
}

/* ------------------------------------------------------------ chunk */

/*
 * Prefetch (channel, row) pairs [p, p1) of input rows ih0 .. ih0 + rows - 1
 * of every channel, numbered channel by channel, into L2.
 */
static void ane_cv_prefetch_rows(const struct ane_gemm *g, int64_t ih0,
				 uint32_t rows, uint64_t p, uint64_t p1)
{
	uint64_t ci = p / rows;
	uint32_t col, r = (uint32_t)(p % rows);

	for (; p < p1; p++) {
		int64_t ih = ih0 + r;
		const uint16_t *row = g->x + ci * g->x_sc;

		if (++r == rows) {
			r = 0;
			ci++;
		}
		if (ih < 0 || ih >= g->h)
			continue;
		row += ih * g->x_sh;
		for (col = 0; col < g->w; col += 32)
			__builtin_prefetch(row + (uint64_t)col * g->x_sw, 0, 3);
		__builtin_prefetch(row + (uint64_t)(g->w - 1) * g->x_sw, 0, 3);
	}
}

/*
 * Ask for the input rows the next B block's copy will read, a share of
 * them per compute chunk, into L2: the copy's loads then hit, where
 * otherwise they wait on memory one channel row at a time while nothing
 * else runs.
 */
static void ane_cv_prefetch_next(const struct ane_gemm *g,
				 const struct ane_gemm_chunk *c,
				 const struct ane_conv_geo *q)
{
	int64_t ih0 = (int64_t)((c->n0 + c->nlen) / g->wo) * g->sh - g->pt;
	uint64_t pairs = (uint64_t)g->cin * q->rows;

	ane_cv_prefetch_rows(g, ih0, q->rows, pairs * c->idx / c->count,
			     pairs * (c->idx + 1) / c->count);
}

/*
 * The window rows [*r0, *r1) of output row @oh that reach input rows: the
 * others read only the padding's zeros.
 */
static void ane_cv_rows(const struct ane_gemm *g, uint32_t oh, uint32_t *r0,
			uint32_t *r1)
{
	int64_t base = (int64_t)oh * g->sh - g->pt, last = (int64_t)g->h - 1 - base;
	uint64_t a = base >= 0 ? 0 : ((uint64_t)-base + g->dh - 1) / g->dh;
	uint64_t b = last < 0 ? 0 : (uint64_t)last / g->dh + 1;

	*r0 = (uint32_t)(a < g->kh ? a : g->kh);
	*r1 = (uint32_t)(b < g->kh ? b : g->kh);
	if (*r1 < *r0)
		*r1 = *r0;
}

/*
 * For the ANE_CONV_PX-pixel block from output column @ow: the window
 * columns [0, *tf) of its first pixel and [*tl, kw) of its last that read
 * only the padding's zeros (left and right of the input).
 */
static void ane_cv_cols(const struct ane_gemm *g, uint32_t ow, uint32_t *tf,
			uint32_t *tl)
{
	int64_t first = (int64_t)ow * g->sw - g->pl;
	int64_t last = first + (int64_t)(ANE_CONV_PX - 1) * g->sw;
	uint64_t a = first >= 0 ? 0 : ((uint64_t)-first + g->dw - 1) / g->dw;
	uint64_t b = g->w - last <= 0 ? 0 :
		     ((uint64_t)(g->w - last) + g->dw - 1) / g->dw;

	*tf = (uint32_t)(a < g->kw ? a : g->kw);
	*tl = (uint32_t)(b < g->kw ? b : g->kw);
}

/*
 * Compute chunk c->idx of c->count of the block: its run of the block's
 * 14-pixel slots (the block's pixels cut at output-row ends, each row
 * segment into slots of ANE_CONV_PX, the last narrower and run as 8, 4, 2
 * and 1 pixel blocks), every channel block for each slot.
 */
static void ane_cv_compute(const struct ane_gemm *g,
			   const struct ane_gemm_chunk *c,
			   const struct ane_conv_geo *q)
{
	uint32_t oh0 = c->n0 / g->wo, col, end = c->n0 + c->nlen, ob, i;
	uint64_t slots = 0, s0, s1, sl = 0;
	float *scratch = c->pa + (uint64_t)q->ocb * ANE_CONV_OC * c->K;
	const uint32_t *special = ane_cv_special(c, q);
	int skip = 1;

	/* a weight that is infinite or NaN makes the padding's taps count */
	for (i = 0; i < c->parts; i++)
		if (special[i])
			skip = 0;

	for (col = c->n0; col < end;) {
		uint32_t len = g->wo - col % g->wo;

		if (len > end - col)
			len = end - col;
		slots += (len + ANE_CONV_PX - 1) / ANE_CONV_PX;
		col += len;
	}
	s0 = slots * c->idx / c->count;
	s1 = slots * (c->idx + 1) / c->count;
	ane_cv_prefetch_next(g, c, q);
	for (col = c->n0; col < end && sl < s1;) {
		uint32_t len = g->wo - col % g->wo, ow, oh = col / g->wo, r0 = 0;
		uint32_t r1 = g->kh;

		if (len > end - col)
			len = end - col;
		if (skip)
			ane_cv_rows(g, oh, &r0, &r1);
		for (ow = col % g->wo; len && sl < s1; sl++) {
			uint32_t n = len < ANE_CONV_PX ? len : ANE_CONV_PX, done = 0;

			if (sl >= s0) {
				while (done < n) {
					uint32_t left = n - done, np, tf = 0, tl = g->kw;
					const float *x;

					np = left >= 14 ? 14 : left >= 8 ? 8 :
					     left >= 4 ? 4 : left >= 2 ? 2 : 1;
					x = c->pb + (uint64_t)(oh - oh0) * g->sh * q->wp +
					    ow + done;
					if (skip && np == ANE_CONV_PX)
						ane_cv_cols(g, ow + done, &tf, &tl);
					for (ob = 0; ob < q->ocb; ob++) {
						uint32_t nv = c->M - ob * ANE_CONV_OC >= ANE_CONV_OC ?
							      2 : 1;
						const float *w = c->pa + (uint64_t)ob *
								 ANE_CONV_OC * c->K;

						if (tf || tl < g->kw)
							(nv == 2 ? ane_cv_edge_2 : ane_cv_edge_1)
								(g, q, w, x, scratch, r0, r1, tf, tl);
						else
							ane_cv_kernel_any(g, q, w, x, scratch,
									  r0, r1, np, nv);
						ane_cv_store_block(g, scratch,
								   ob * ANE_CONV_OC,
								   oh * g->wo + ow + done,
								   np, nv);
					}
					done += np;
				}
			}
			ow += n;
			len -= n;
			col += n;
		}
	}
}

int ane_conv_chunk_avx512(const struct ane_gemm *g,
			  const struct ane_gemm_chunk *c)
{
	struct ane_conv_geo q;

	if (!ane_conv_direct(g, c, &q))
		return 0;
	if (!c->compute) {
		uint64_t wu = (uint64_t)q.ocb * (ANE_CONV_OC / 16) *
			      ((c->K + 15) / 16);
		uint32_t ci0 = (uint32_t)((uint64_t)g->cin * c->part / c->parts);
		uint32_t ci1 = (uint32_t)((uint64_t)g->cin * (c->part + 1) /
					  c->parts);

		/*
		 * The first block's first rows, which nothing asked for
		 * before (later blocks' rows are prefetched by the compute
		 * chunks before them), while the weights are packed.
		 */
		if (!c->blk && !c->part)
			ane_cv_prefetch_rows(g, (int64_t)(c->n0 / g->wo) * g->sh - g->pt,
					     q.rows, 0, (uint64_t)q.rows *
					     (g->cin < ANE_CV_PF ? g->cin : ANE_CV_PF));
		/*
		 * The weights once per problem, in its first block, and
		 * whether this part of them has an infinity or a NaN.
		 */
		if (!c->blk)
			ane_cv_special(c, &q)[c->part] =
				(uint32_t)ane_cv_pack_w(g, c->M, c->K, c->pa,
							wu * c->part / c->parts,
							wu * (c->part + 1) / c->parts);
		ane_cv_pack_x(g, &q, c->n0 / g->wo, c->pb, ci0, ci1);
		return 1;
	}
	ane_cv_compute(g, c, &q);
	return 1;
}

#endif /* x86_64 with AVX-512 F/BW/VL, AVX2, FMA and F16C enabled */
