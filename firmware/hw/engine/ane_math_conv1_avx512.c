// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVX-512 path's kernel for a GEMM whose B is the input itself: a 1 x 1
 * convolution with stride 1 and no padding, or a MATMUL whose B rows are
 * contiguous.  The output channels (GEMM rows) are in the vector lanes and
 * the pixels (GEMM columns) are broadcast, so nothing is transposed on the
 * way in but the weights, once per operation:
 *
 *  - A (the weights, M x K, rows contiguous in k) is packed by the first
 *    compute chunk of each A block in blocks of 16 rows, k-major and still
 *    in fp16: pa[block][k][16], with a 16 x 16 transpose of pairs of k in
 *    registers per 32 k; rows past the block's end are zero.  The kernel
 *    converts it, sixteen values a load.
 *  - B is converted to fp32 as it lies: pb[k][j], ANE_C1_LDB(nlen) floats
 *    per k, sixteen fp16 values per conversion; packing chunk i of n
 *    converts the rows [K i / n, K (i + 1) / n).
 *  - The register block is up to ANE_C1_NP (14) pixels by 32 channels, in
 *    28 accumulators: per k two loads of A (each converting sixteen fp16
 *    values) and one broadcast of B per pixel (an operand of the fused
 *    multiply-add), 28 fused multiply-adds.
 *  - The epilogue works on the accumulators where they are: it adds the
 *    bias (sixteen channels a vector), applies ReLU/ReLU6 in the lanes,
 *    rounds each pixel's 32 channels to fp16 into one vector (a channel
 *    pair in each 32-bit lane), transposes those lanes 16 x 16, separates
 *    each pair with a 16-bit permute and stores each channel's pixels
 *    with a masked fp16 store; other activations and outputs that are not
 *    contiguous go through ane_gemm_store_tile().
 *
 * Every element of C is summed in k order 0, 1, ... K - 1 with one fused
 * multiply-add per step from zero, as on the AVX2 path and in
 * ane_math_avx512.c: the same bits.  The plan (chunks, their rows and
 * columns, the workspace) is the one every path follows; this file only
 * lays out the two pack areas differently, and ane_conv1_avx512_fits()
 * (which depends on the operation and the plan, never on the chunk) says
 * for both the packing and the compute chunks of an operation whether it
 * is used.  Built and run as ane_math_avx512.c is: the same flags, within
 * kernel_fpu_begin() / kernel_fpu_end(), no intrinsics header.
 *
 * Copyright (C) 2026 The ane authors
 */

#define ANE_MATH_FPU
#include "ane_math_impl.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && \
	defined(__AVX512VL__) && defined(__AVX2__) && defined(__FMA__) && \
	defined(__F16C__)

#include "ane_math_avx512.h"

typedef double ane_d8 __attribute__((vector_size(64)));
typedef short ane_h32 __attribute__((vector_size(64)));
typedef long long ane_q8 __attribute__((vector_size(64)));
typedef long long ane_q4 __attribute__((vector_size(32)));

/*
 * The 16-bit lanes of @v dealt into halves: the even ones (0, 2, ... 30)
 * in the lower, the odd ones in the upper (VPERMW).
 */
static inline ane_h32 ane_c1_deal(ane_h32 v)
{
	const ane_h32 idx = { 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24,
			      26, 28, 30, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
			      21, 23, 25, 27, 29, 31 };

	return __builtin_ia32_permvarhi512_mask(v, idx, v, 0xffffffffu);
}

/* The lower (@hi 0) or upper (@hi 1) 256 bits of @v. */
#define ANE_C1_HALF(v, hi)	((ane_h16)__builtin_ia32_extracti64x4_mask( \
	(ane_q8)(v), (hi), (ane_q4){ 0 }, 0xff))

/* @lo and @hi side by side in one vector. */
static inline ane_h32 ane_c1_join(ane_h16 lo, ane_h16 hi)
{
	ane_q8 q = { 0 };

	q = __builtin_ia32_inserti64x4_mask(q, (ane_q4)lo, 0, q, 0xff);
	q = __builtin_ia32_inserti64x4_mask(q, (ane_q4)hi, 1, q, 0xff);
	return (ane_h32)q;
}

/* Pixels per register block, and B's row length for @nlen columns. */
#define ANE_C1_NP		14u
#define ANE_C1_LDB(nlen)	(((nlen) + 15u) / 16u * 16u)

/* @n (at most 16) fp16 values at @p to fp32, the lanes past @n zero. */
static inline ane_v16 ane_c1_h2f(const uint16_t *p, uint32_t n)
{
	uint16_t m = (uint16_t)(n >= 16 ? 0xffffu : (1u << n) - 1u);
	ane_h16 h = __builtin_ia32_loaddquhi256_mask((const short *)p,
						     (ane_h16){ 0 }, m);

	return __builtin_ia32_vcvtph2ps512_mask(h, ane_splat16(0.0f),
						(uint16_t)0xffff, 4);
}

/*
 * Transpose the 16 x 16 matrix whose rows are r[0..15]: 32-bit then
 * 64-bit interleaves within the 128-bit lanes, then two rounds of 128-bit
 * lane shuffles.  Always inlined, so r stays in registers.
 */
#define ANE_C1_UNPLO(a, b)	__builtin_ia32_unpcklps512_mask(a, b, a, 0xffff)
#define ANE_C1_UNPHI(a, b)	__builtin_ia32_unpckhps512_mask(a, b, a, 0xffff)
#define ANE_C1_UNPLO2(a, b)	((ane_v16)__builtin_ia32_unpcklpd512_mask( \
	(ane_d8)(a), (ane_d8)(b), (ane_d8)(a), 0xff))
#define ANE_C1_UNPHI2(a, b)	((ane_v16)__builtin_ia32_unpckhpd512_mask( \
	(ane_d8)(a), (ane_d8)(b), (ane_d8)(a), 0xff))
#define ANE_C1_LANES(a, b, i)	__builtin_ia32_shuf_f32x4_mask(a, b, i, a, 0xffff)

static __attribute__((always_inline)) inline void ane_c1_transpose(ane_v16 *r)
{
	ane_v16 t[16], u[16];
	uint32_t i, e;

#pragma GCC unroll 8
	for (i = 0; i < 8; i++) {
		t[2 * i] = ANE_C1_UNPLO(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = ANE_C1_UNPHI(r[2 * i], r[2 * i + 1]);
	}
	/* u[4 g + e], lane L: column 4 L + e of rows 4 g .. 4 g + 3 */
#pragma GCC unroll 4
	for (i = 0; i < 4; i++) {
		u[4 * i] = ANE_C1_UNPLO2(t[4 * i], t[4 * i + 2]);
		u[4 * i + 1] = ANE_C1_UNPHI2(t[4 * i], t[4 * i + 2]);
		u[4 * i + 2] = ANE_C1_UNPLO2(t[4 * i + 1], t[4 * i + 3]);
		u[4 * i + 3] = ANE_C1_UNPHI2(t[4 * i + 1], t[4 * i + 3]);
	}
#pragma GCC unroll 4
	for (e = 0; e < 4; e++) {
		ane_v16 v0 = ANE_C1_LANES(u[e], u[4 + e], 0x88);
		ane_v16 v1 = ANE_C1_LANES(u[e], u[4 + e], 0xdd);
		ane_v16 w0 = ANE_C1_LANES(u[8 + e], u[12 + e], 0x88);
		ane_v16 w1 = ANE_C1_LANES(u[8 + e], u[12 + e], 0xdd);

		r[e] = ANE_C1_LANES(v0, w0, 0x88);
		r[4 + e] = ANE_C1_LANES(v1, w1, 0x88);
		r[8 + e] = ANE_C1_LANES(v0, w0, 0xdd);
		r[12 + e] = ANE_C1_LANES(v1, w1, 0xdd);
	}
}

/* ------------------------------------------------------------ routing */

/*
 * Bytes of the A area this kernel sets apart for @mc rows (blocks of 16)
 * of depth @K, 4 per element (A packed in fp16 takes the first half;
 * fp32 before session 10, and where the tile lies and which operations
 * take this kernel stay as they were).  The plan sizes the A area for
 * SSE2's 16 bytes per element; the 64-byte aligned space after these
 * bytes holds the accumulators of one register block
 * (ANE_C1_NP * 32 floats), a 16 x 16 tile for ane_gemm_store_tile() and
 * the block's 32 biases in fp32: more than a kernel stack frame of 2 KiB
 * would hold beside the rest.
 */
#define ANE_C1_AREA(mc, K)	(((uint64_t)(mc) + 15u) / 16u * 16u * (K) * 4u)
#define ANE_C1_TILE		(ANE_C1_NP * 32u + 16u * 16u + 32u)

int ane_conv1_avx512_fits(const struct ane_gemm *g,
			  const struct ane_gemm_chunk *c)
{
	/*
	 * B is the input as it lies: no window, no stride, no padding (on
	 * any side: the output as wide and as tall as the input, which
	 * ane_op_validate() already ensures for a 1 x 1 window)
	 */
	if (c->pc)	/* depth blocks: its kernel starts from zero */
		return 0;
	if (g->kh != 1 || g->kw != 1 || g->sh != 1 || g->sw != 1 ||
	    g->pt || g->pl || g->wo != g->w ||
	    c->N != (uint64_t)g->h * g->wo || g->x_sw != 1 || g->a_sc != 1)
		return 0;
	/* the accumulators' tile after the packed A (see above) */
	if ((uint64_t)c->mc * c->K * 16 <
	    ANE_C1_AREA(c->mc, c->K) + ANE_C1_TILE * 4)
		return 0;
	/*
	 * The shapes where it was measured faster (performance.rst): depth
	 * at most 512, and A blocks of whole 16-channel vectors (or one
	 * block) -- MATMUL 512^3's blocks of 60 rows waste 4 lanes in 64
	 * and run no faster than ane_math_avx512.c.
	 */
	return c->K <= 512 && (c->mc % 16 == 0 || c->mc >= c->M);
}

/* ------------------------------------------------------------ packing */

/*
 * Rows [k0, k1) of B, columns [n0, n0 + nlen): column j is output pixel
 * (j / wo, j % wo), input element (j / wo) x_sh + j % wo of row k (stride
 * 1, no padding), so each output row's segment is contiguous.
 */
static void ane_c1_pack_b(const struct ane_gemm *g, uint32_t n0, uint32_t nlen,
			  float *pb, uint32_t k0, uint32_t k1)
{
	uint64_t ldb = ANE_C1_LDB(nlen);
	uint32_t k, j, len, n;

	for (k = k0; k < k1; k++) {
		const uint16_t *row = g->x + (uint64_t)k * g->x_sc;
		float *dst = pb + k * ldb;

		for (j = 0; j < nlen; j += len) {
			uint32_t col = n0 + j, oh = col / g->wo, ow = col % g->wo;
			const uint16_t *src = row + (uint64_t)oh * g->x_sh + ow;

			len = nlen - j;
			/* rows back to back (a MATMUL has only one) */
			if (g->x_sh != g->wo && g->wo - ow < len)
				len = g->wo - ow;
			for (n = 0; n + 16 <= len; n += 16)
				ane_store16(dst + j + n, ane_c1_h2f(src + n, 16));
			if (n < len)
				__builtin_ia32_storeups512_mask(dst + j + n,
					ane_c1_h2f(src + n, len - n),
					(uint16_t)((1u << (len - n)) - 1u));
		}
	}
}

/*
 * Rows [m0, m0 + mlen) of A into pa[block][k][16], still fp16 (the kernel
 * converts sixteen a load, which costs it nothing: the conversions do
 * not compete with its fused multiply-adds): for each block of 16 rows
 * and each 32 k, sixteen masked 64-byte loads (rows past mlen and k past
 * K read nothing and are zero), one 16 x 16 transpose of the 32-bit lanes
 * (pairs of k), a 16-bit permute per vector that puts k and k + 1 in its
 * two halves, and one store per pair of k (the last k of an odd K: the
 * lower half).
 */
static void ane_c1_pack_a(const struct ane_gemm *g, uint32_t K, uint32_t m0,
			  uint32_t mlen, uint16_t *pa)
{
	uint32_t ib, i, k, kn;

	for (ib = 0; ib < mlen; ib += 16) {
		uint32_t rows = mlen - ib < 16 ? mlen - ib : 16;
		const uint16_t *a = g->a + (uint64_t)(m0 + ib) * g->a_sm;
		uint16_t *dst = pa + (uint64_t)ib * K;

		for (k = 0; k < K; k += 32, dst += 512) {
			uint32_t m;
			ane_v16 r[16];

			kn = K - k < 32 ? K - k : 32;
			m = kn >= 32 ? 0xffffffffu : (1u << kn) - 1u;
#pragma GCC unroll 16
			for (i = 0; i < 16; i++)
				r[i] = i < rows ? (ane_v16)__builtin_ia32_loaddquhi512_mask(
					(const short *)(a + (uint64_t)i * g->a_sm + k),
					(ane_h32){ 0 }, m) : ane_splat16(0.0f);
			ane_c1_transpose(r);
#pragma GCC unroll 16
			for (i = 0; i < 16; i++) {
				ane_h32 d = ane_c1_deal((ane_h32)r[i]);

				if (2 * i + 2 <= kn)
					__builtin_memcpy(dst + 32 * i, &d, sizeof(d));
				else if (2 * i < kn)
					__builtin_memcpy(dst + 32 * i, &d, sizeof(d) / 2);
			}
		}
	}
}

/* ------------------------------------------------------------ store */

/*
 * Where a register block's outputs go when they are contiguous in dst
 * (unit column stride, the block within one output row or rows back to
 * back) and the activation is none, ReLU or ReLU6: @y is channel 0,
 * pixel 0 of the block, channels @y_sm apart; @bias is NULL or the
 * block's @rows (at most 32) biases in fp32.
 */
struct ane_c1_out {
	uint16_t *y;
	uint64_t y_sm;
	const float *bias;
	uint32_t rows, act;
};

/*
 * Bias, activation and rounding of one pixel's 32 channels, @lo channels
 * 0 - 15 and @hi 16 - 31 (the biases @b0, @b1 when @o has them): bias and
 * ReLU/ReLU6 in the lanes (the same operations as ane_store_tile_avx512()
 * and ane_gemm_store_tile(), so the same values), then both rounded to
 * fp16 (nearest even) into one vector, channel c in 16-bit lane c: a
 * 32-bit lane holds channels 2 i and 2 i + 1.
 */
static __attribute__((always_inline)) inline ane_v16
ane_c1_round(ane_v16 lo, ane_v16 hi, ane_v16 b0, ane_v16 b1,
	     const struct ane_c1_out *o)
{
	const ane_v16 zero = ane_splat16(0.0f), six = ane_splat16(6.0f);
	ane_v16 v[2] = { lo, hi };
	ane_h16 h[2];
	uint32_t i;

#pragma GCC unroll 2
	for (i = 0; i < 2; i++) {
		if (o->bias)
			v[i] += i ? b1 : b0;
		/*
		 * Masks from ordered comparisons: NaN fails both and
		 * passes, -0 is not below 0 and stays -0.
		 */
		if (o->act != ANE_ACT_NONE)
			v[i] = __builtin_ia32_blendmps_512_mask(v[i], zero,
				__builtin_ia32_cmpps512_mask(v[i], zero,
					1 /* LT_OS */, 0xffff, 4));
		if (o->act == ANE_ACT_RELU6)
			v[i] = __builtin_ia32_blendmps_512_mask(v[i], six,
				__builtin_ia32_cmpps512_mask(v[i], six,
					14 /* GT_OS */, 0xffff, 4));
		h[i] = __builtin_ia32_vcvtps2ph512_mask(v[i], 0, (ane_h16){ 0 },
							(uint16_t)0xffff);
	}
	return (ane_v16)ane_c1_join(h[0], h[1]);
}

/*
 * Store one register block of @np pixels from @r, pixel p's 32 rounded
 * channels in r[p] as ane_c1_round() left them (r[np..15] zero): one
 * 16 x 16 transpose of the 32-bit lanes (channel pairs), after which r[i]
 * holds channels 2 i and 2 i + 1 pixel by pixel, interleaved; a 16-bit
 * permute puts each channel's pixels in one half, and each half goes to
 * its channel with a masked fp16 store.  Half the transposes of rounding
 * after the transpose, and no round trip of the accumulators through
 * memory.
 */
static __attribute__((always_inline)) inline void
ane_c1_store_fast(ane_v16 *r, const uint32_t np, const struct ane_c1_out *o)
{
	uint16_t pmask = (uint16_t)((1u << np) - 1u);
	uint32_t i;

	ane_c1_transpose(r);
#pragma GCC unroll 16
	for (i = 0; i < 16; i++) {
		ane_h32 d = ane_c1_deal((ane_h32)r[i]);
		ane_h16 c0 = ANE_C1_HALF(d, 0), c1 = ANE_C1_HALF(d, 1);

		if (2 * i < o->rows)
			__builtin_ia32_storedquhi256_mask((short *)(o->y +
				2 * i * o->y_sm), c0, pmask);
		if (2 * i + 1 < o->rows)
			__builtin_ia32_storedquhi256_mask((short *)(o->y +
				(2 * i + 1) * o->y_sm), c1, pmask);
	}
}

/*
 * The other blocks: @rows channels from @m by @np pixels from GEMM column
 * @col, transposed into the 16 x 16 tile after @tile and stored by
 * ane_gemm_store_tile() (any activation, any output strides).
 */
static __attribute__((__noinline__)) void
ane_c1_store_slow(const struct ane_gemm *g, float *tile, uint32_t np,
		  uint32_t m, uint32_t rows, uint32_t col)
{
	float *t = tile + ANE_C1_NP * 32;
	uint32_t h, i;

	for (h = 0; h < rows; h += 16) {
		ane_v16 r[16];

#pragma GCC unroll 16
		for (i = 0; i < 16; i++)
			r[i] = i < np ? ane_load16(tile + 32 * i + h) :
			       ane_splat16(0.0f);
		ane_c1_transpose(r);
#pragma GCC unroll 16
		for (i = 0; i < 16; i++)
			ane_store16(t + 16 * i, r[i]);
		ane_gemm_store_tile(g, t, 16, NULL, m + h,
				    rows - h < 16 ? rows - h : 16, col, np);
	}
}

/* ------------------------------------------------------------ kernel */

/*
 * Up to ANE_C1_NP pixels (@np) by 16 @nv channels over the whole depth K:
 * the A blocks at @a and @a + 16 K, pixel p of row k at @b[k @ldb + p].
 * With @o->y set the block is stored from the registers
 * (ane_c1_store_fast()); otherwise the accumulators go to @tile,
 * pixel-major: pixel p's channels at @tile + 32 p, for
 * ane_c1_store_slow().  Named accumulators, not an array (see
 * ane_math_avx512.c); always inlined into one function per shape, so
 * that the unused ones vanish.
 */
#define ANE_C1_FOR(f)	do {						\
	f(0); f(1); f(2); f(3); f(4); f(5); f(6);			\
	f(7); f(8); f(9); f(10); f(11); f(12); f(13);			\
} while (0)

#define ANE_C1_ZERO(p)	do {						\
	c0_##p = ane_splat16(0.0f);					\
	c1_##p = c0_##p;						\
} while (0)

#define ANE_C1_STEP(p)	do {						\
	if (np > (p)) {							\
		ane_v16 b_ = ane_splat16(b[p]);				\
									\
		c0_##p = ane_fma16(a0, b_, c0_##p);			\
		if (nv == 2)						\
			c1_##p = ane_fma16(a1, b_, c1_##p);		\
	}								\
} while (0)

#define ANE_C1_ROUND(p)	do {						\
	if (np > (p))							\
		r[p] = ane_c1_round(c0_##p, c1_##p, b0, b1, o);		\
} while (0)

#define ANE_C1_OUT(p)	do {						\
	if (np > (p)) {							\
		ane_store16(tile + 32 * (p), c0_##p);			\
		if (nv == 2)						\
			ane_store16(tile + 32 * (p) + 16, c1_##p);	\
	}								\
} while (0)

static __attribute__((always_inline)) inline void
ane_c1_kernel(uint32_t K, const uint16_t *a, const float *b, uint64_t ldb,
	      float *tile, const uint32_t np, const uint32_t nv,
	      const struct ane_c1_out *o)
{
	const uint16_t *a1p = a + (uint64_t)16 * K;
	ane_v16 c0_0, c0_1, c0_2, c0_3, c0_4, c0_5, c0_6;
	ane_v16 c0_7, c0_8, c0_9, c0_10, c0_11, c0_12, c0_13;
	ane_v16 c1_0, c1_1, c1_2, c1_3, c1_4, c1_5, c1_6;
	ane_v16 c1_7, c1_8, c1_9, c1_10, c1_11, c1_12, c1_13;
	uint32_t k;

	ANE_C1_FOR(ANE_C1_ZERO);
	for (k = 0; k < K; k++, a += 16, a1p += 16, b += ldb) {
		ane_v16 a0 = ane_c1_h2f(a, 16), a1 = a0;

		if (nv == 2)
			a1 = ane_c1_h2f(a1p, 16);
		ANE_C1_FOR(ANE_C1_STEP);
	}
	if (o->y) {
		ane_v16 r[16], b0 = ane_splat16(0.0f), b1 = b0;
		uint32_t i;

		if (o->bias) {
			b0 = ane_load16(o->bias);
			b1 = ane_load16(o->bias + 16);
		}
		ANE_C1_FOR(ANE_C1_ROUND);
#pragma GCC unroll 16
		for (i = np; i < 16; i++)
			r[i] = ane_splat16(0.0f);
		ane_c1_store_fast(r, np, o);
		return;
	}
	ANE_C1_FOR(ANE_C1_OUT);
}

/* One function per shape (spelt __noinline__, as in ane_math_avx512.c). */
#define ANE_C1_KERNEL(np)						\
static __attribute__((__noinline__)) void				\
ane_c1_kernel_##np(uint32_t K, const uint16_t *a, const float *b,	\
		   uint64_t ldb, float *tile, uint32_t nv,		\
		   const struct ane_c1_out *o)				\
{									\
	if (nv == 2)							\
		ane_c1_kernel(K, a, b, ldb, tile, np, 2, o);		\
	else								\
		ane_c1_kernel(K, a, b, ldb, tile, np, 1, o);		\
}

ANE_C1_KERNEL(1)
ANE_C1_KERNEL(2)
ANE_C1_KERNEL(3)
ANE_C1_KERNEL(4)
ANE_C1_KERNEL(5)
ANE_C1_KERNEL(6)
ANE_C1_KERNEL(7)
ANE_C1_KERNEL(8)
ANE_C1_KERNEL(9)
ANE_C1_KERNEL(10)
ANE_C1_KERNEL(11)
ANE_C1_KERNEL(12)
ANE_C1_KERNEL(13)
ANE_C1_KERNEL(14)

#define ANE_C1_CASE(np)							\
	case np:							\
		ane_c1_kernel_##np(K, a, b, ldb, tile, nv, o);		\
		break

static void ane_c1_kernel_any(uint32_t np, uint32_t nv, uint32_t K,
			      const uint16_t *a, const float *b, uint64_t ldb,
			      float *tile, const struct ane_c1_out *o)
{
	switch (np) {
	ANE_C1_CASE(1);
	ANE_C1_CASE(2);
	ANE_C1_CASE(3);
	ANE_C1_CASE(4);
	ANE_C1_CASE(5);
	ANE_C1_CASE(6);
	ANE_C1_CASE(7);
	ANE_C1_CASE(8);
	ANE_C1_CASE(9);
	ANE_C1_CASE(10);
	ANE_C1_CASE(11);
	ANE_C1_CASE(12);
	ANE_C1_CASE(13);
	default:
		ane_c1_kernel_14(K, a, b, ldb, tile, nv, o);
		break;
	}
}

/* ------------------------------------------------------------ chunk */

void ane_gemm_chunk_conv1_avx512(const struct ane_gemm *g,
				 const struct ane_gemm_chunk *c)
{
	float *tile = c->pa + ANE_C1_AREA(c->mc, c->K) / 4;
	float *bias = tile + ANE_C1_NP * 32 + 16 * 16;
	uint64_t ldb = ANE_C1_LDB(c->nlen);
	uint32_t K = c->K, ir, jr, np, nv, nblk, len, blk, i;
	int fast = g->y_sw == 1 && (g->act == ANE_ACT_NONE ||
				    g->act == ANE_ACT_RELU ||
				    g->act == ANE_ACT_RELU6);
	struct ane_c1_out o = { .y_sm = g->y_sm, .act = g->act };

	if (!c->compute) {
		uint32_t parts = c->parts ? c->parts : 1;

		ane_c1_pack_b(g, c->n0, c->nlen, c->pb,
			      (uint32_t)((uint64_t)K * c->part / parts),
			      (uint32_t)((uint64_t)K * (c->part + 1) / parts));
		return;
	}
	/* The first chunk of an A block packs it for the ones that follow. */
	if (c->pack_a)
		ane_c1_pack_a(g, K, c->m0, c->mlen, (uint16_t *)c->pa);
	/* a short last B block leaves the last column ranges empty */
	if (c->c1 <= c->c0)
		return;
	len = c->c1 - c->c0;
	nblk = (len + ANE_C1_NP - 1) / ANE_C1_NP;
	for (ir = 0; ir < c->mlen; ir += 32) {
		nv = c->mlen - ir > 16 ? 2 : 1;
		o.rows = c->mlen - ir < 32 ? c->mlen - ir : 32;
		if (fast && g->bias) {
			uint16_t hb[32] = { 0 };

			for (i = 0; i < o.rows; i++)
				hb[i] = g->bias[(uint64_t)(c->m0 + ir + i) * g->bias_s];
			ane_store16(bias, ane_c1_h2f(hb, 16));
			ane_store16(bias + 16, ane_c1_h2f(hb + 16, 16));
			o.bias = bias;
		}
		/* balanced pixel blocks: the first len % nblk one longer */
		for (blk = 0, jr = c->c0; blk < nblk; blk++, jr += np) {
			uint32_t col = c->n0 + jr, oh = col / g->wo, ow = col % g->wo;

			np = len / nblk + (blk < len % nblk);
			o.y = NULL;
			if (fast && (ow + np <= g->wo || g->y_sh == g->wo))
				o.y = g->y + (uint64_t)(c->m0 + ir) * g->y_sm +
				      (uint64_t)oh * g->y_sh + ow;
			ane_c1_kernel_any(np, nv, K,
					  (const uint16_t *)c->pa + (uint64_t)ir * K,
					  c->pb + jr, ldb, tile, &o);
			if (!o.y)
				ane_c1_store_slow(g, tile, np, c->m0 + ir, o.rows,
						  col);
		}
	}
}

#endif /* x86_64 with AVX-512 F/BW/VL, AVX2, FMA and F16C enabled */
