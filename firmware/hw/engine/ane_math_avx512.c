// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVX-512 path of the engine's GEMM (MATMUL, and CONV with more than
 * ANE_DIRECT_MAX_COUT output channels per group): a 12 x 32 register
 * block in twenty-four sixteen-float accumulators, with the B packers of
 * ane_math_pack_avx512.c, which read the implicit im2col matrix of a
 * convolution with masked loads, row segment by row segment, instead of
 * element by element.
 *
 * It keeps the AVX2 path's data layout, so that the plan, the chunks and
 * the workspace are those of every other path: A in panels of ANE_MR (6)
 * rows, B in panels of ANE_NR_AVX2 (16) columns.  The 12 x 32 kernel
 * reads two A panels and two B panels side by side; at the edges it runs
 * as 12 x 16, 6 x 32 or 6 x 16.  A is packed sixteen k at a time with a
 * permute-and-blend transpose; the stores are masked 16-lane conversions.
 * A remainder of at most four columns runs with rows in the lanes
 * (ane_kernel_tail()).  What these do not cover (A not contiguous in k, B with strides or more
 * than four row segments per panel, activations other than ReLU/ReLU6,
 * non-contiguous outputs) goes to the AVX2 path's functions
 * (ane_math_avx2.c): a CPU with AVX-512 F/BW/VL has AVX2, FMA and F16C,
 * which ane_engine_widest_isa() and the userspace callers check.
 *
 * ane_math_gemm.c calls ane_gemm_chunk_avx512() for each GEMM chunk when
 * ane_math_isa is ANE_MATH_ISA_AVX512 (and it was built with
 * ANE_MATH_AVX512).  Built with $(CC_FLAGS_FPU) -mavx2 -mfma -mf16c
 * -mavx512f -mavx512bw -mavx512vl in the kernel (the same on the host),
 * and run only from ane_op_run(), so inside kernel_fpu_begin() /
 * kernel_fpu_end(), which save the full extended state, ZMM and opmask
 * registers included.  Like ane_math_avx2.c: no intrinsics header, no
 * kernel or libm call; vectors meet memory through __builtin_memcpy or
 * masked loads, which never touch the lanes their mask clears (so a
 * segment at the edge of the input reads nothing outside it).
 *
 * Every element of C is summed in k order 0, 1, ... K - 1 with one fused
 * multiply-add per step, exactly as on the AVX2 path: the two paths give
 * the same bits.
 *
 * Copyright (C) 2026 The ane authors
 */

#define ANE_MATH_FPU
#include "ane_math_impl.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && \
	defined(__AVX512VL__) && defined(__AVX2__) && defined(__FMA__) && \
	defined(__F16C__)

#include "ane_math_avx512.h"

/* One fp16 to fp32, exactly. */
static inline float ane_fp16_to_fp32_avx512(uint16_t x)
{
	ane_h16 h = { (short)x };
	ane_v16 f = __builtin_ia32_vcvtph2ps512_mask(h, ane_splat16(0.0f),
						     (uint16_t)0xffff, 4);

	return f[0];
}

/* ------------------------------------------------------------ packing */

typedef int32_t ane_i16 __attribute__((vector_size(64)));

/*
 * How many rows ahead ane_pack_b_rows_avx512() prefetches, within the
 * chunk's rows: ANE_PF_ROWS, or ANE_PF_ROWS_KB for a depth block of the
 * plan's (ANE_KB_KC), whose 256-row packing chunk 64 rows left half
 * unprefetched (ane-mathbench ffn2 195 -> 228 - 231 GFLOP/s with 32;
 * 32 took matmul512 from 235 - 241 to 231 - 233); and the narrowest
 * block it packs (at 32 columns, one line a row, the panel-major order
 * measured faster: FFN2 1.37 against 1.44 ms).
 */
#define ANE_ROWS_MIN_COLS	64u
#define ANE_PF_ROWS	64u
#define ANE_PF_ROWS_KB	32u

/*
 * Pack rows [m0, m0 + mlen) of A as ane_pack_a_avx2() does -- panels of
 * ANE_MR rows, k-major, pa[panel][k][i], a partial panel repeating its last
 * row -- sixteen k at a time where the rows are contiguous in k (MATMUL,
 * dense weights): six 16-lane conversions, then the 6 x 16 transpose into
 * six output vectors, each built from the row pairs (0, 1), (2, 3), (4, 5)
 * with a two-source permute and put together with two masked blends.
 * Other layouts, and the last K % 16 k, as the AVX2 packer does them.
 */
static void ane_pack_a_avx512(const struct ane_gemm *g, uint32_t K,
			      uint32_t m0, uint32_t mlen, float *pa)
{
	int dense = (g->kw == 1 || g->a_sw == 1) &&
		    (g->kh == 1 || g->a_sh == g->kw) &&
		    (g->cin == 1 || g->a_sc == (uint64_t)g->kh * g->kw);
	ane_i16 idx[ANE_MR];
	uint16_t m23[ANE_MR], m45[ANE_MR];
	uint32_t ip, i, j, t, k;

	if (!dense || K < 16) {
		ane_pack_a_avx2(g, K, m0, mlen, pa);
		return;
	}
	/* output vector j, lane t: element e = 16 j + t, k = e / 6, row e % 6 */
	for (j = 0; j < ANE_MR; j++) {
		m23[j] = 0;
		m45[j] = 0;
		for (t = 0; t < 16; t++) {
			uint32_t e = 16 * j + t, r = e % ANE_MR;

			idx[j][t] = (int32_t)(e / ANE_MR + (r & 1u) * 16u);
			if (r == 2 || r == 3)
				m23[j] |= (uint16_t)(1u << t);
			if (r == 4 || r == 5)
				m45[j] |= (uint16_t)(1u << t);
		}
	}
	for (ip = 0; ip < mlen; ip += ANE_MR) {
		const uint16_t *r[ANE_MR];
		float *dst = pa + (uint64_t)ip * K;

		for (i = 0; i < ANE_MR; i++) {
			uint32_t m = ip + i < mlen ? ip + i : mlen - 1;

			r[i] = g->a + (uint64_t)(m0 + m) * g->a_sm;
		}
		for (k = 0; k + 16 <= K; k += 16, dst += 16 * ANE_MR) {
			ane_v16 v[ANE_MR];

			for (i = 0; i < ANE_MR; i++) {
				ane_h16 h;

				__builtin_memcpy(&h, r[i] + k, 32);
				v[i] = __builtin_ia32_vcvtph2ps512_mask(
					h, ane_splat16(0.0f), (uint16_t)0xffff, 4);
			}
			for (j = 0; j < ANE_MR; j++) {
				ane_v16 p01, p23, p45, o;

				p01 = __builtin_ia32_vpermt2varps512_mask(idx[j], v[0],
									  v[1], 0xffff);
				p23 = __builtin_ia32_vpermt2varps512_mask(idx[j], v[2],
									  v[3], 0xffff);
				p45 = __builtin_ia32_vpermt2varps512_mask(idx[j], v[4],
									  v[5], 0xffff);
				o = __builtin_ia32_blendmps_512_mask(p01, p23, m23[j]);
				o = __builtin_ia32_blendmps_512_mask(o, p45, m45[j]);
				ane_store16(dst + 16 * j, o);
			}
		}
		for (; k < K; k++, dst += ANE_MR)
			for (i = 0; i < ANE_MR; i++)
				dst[i] = ane_fp16_to_fp32_avx512(r[i][k]);
	}
}

/* ------------------------------------------------------------ kernel */

/*
 * The register-blocked inner kernel: up to 12 x 32 of C in up to 24
 * accumulators: rows from @na A panels (6 rows each, @a and @a + 6 K),
 * columns from @nb B panels (16 columns each, @b and @b + 16 K), over
 * the whole depth K.  Per k: @nb loads of B, 6 @na broadcasts of A
 * (folded into the multiply-adds), 6 @na @nb fused multiply-adds.  The
 * result goes to @tile as (A panel, B panel) subtiles of 6 x 16, row-major,
 * subtile (p, q) at @tile + (2 p + q) * 96.  Always inlined into one
 * function per shape, with @na and @nb constant, so that the unused
 * accumulators vanish.
 */
#define ANE_ROW(p, i)	do {						\
	ane_v16 a_ = ane_splat16(ap##p[i]);				\
	c##p##0_##i = ane_fma16(a_, b0, c##p##0_##i);			\
	if (nb == 2)							\
		c##p##1_##i = ane_fma16(a_, b1, c##p##1_##i);		\
} while (0)

#define ANE_SIX(f)	do {						\
	f(0); f(1); f(2); f(3); f(4); f(5);				\
} while (0)

#define ANE_ROW0(i)	ANE_ROW(0, i)
#define ANE_ROW1(i)	ANE_ROW(1, i)
#define ANE_PANEL(p)	ANE_SIX(ANE_ROW##p)

#define ANE_ZERO(i)	do {						\
	c00_##i = ane_splat16(0.0f);					\
	c01_##i = c00_##i;						\
	c10_##i = c00_##i;						\
	c11_##i = c00_##i;						\
} while (0)

#define ANE_IN(i)	do {						\
	c00_##i = ane_load16(tile + (i) * 16);				\
	c01_##i = nb == 2 ? ane_load16(tile + 96 + (i) * 16) : c00_##i;	\
	c10_##i = na == 2 ? ane_load16(tile + 192 + (i) * 16) : c00_##i;	\
	c11_##i = na == 2 && nb == 2 ?					\
		  ane_load16(tile + 288 + (i) * 16) : c00_##i;		\
} while (0)

#define ANE_OUT(i)	do {						\
	ane_store16(tile + (i) * 16, c00_##i);				\
	if (nb == 2)							\
		ane_store16(tile + 96 + (i) * 16, c01_##i);		\
	if (na == 2)							\
		ane_store16(tile + 192 + (i) * 16, c10_##i);		\
	if (na == 2 && nb == 2)						\
		ane_store16(tile + 288 + (i) * 16, c11_##i);		\
} while (0)

static __attribute__((always_inline)) inline void
ane_kernel_avx512(uint32_t kc, uint32_t K, const float *a, const float *b,
		  float *tile, int acc, const int na, const int nb)
{
	const float *ap0 = a, *ap1 = a + (uint64_t)ANE_MR * K;
	const float *bp0 = b, *bp1 = b + (uint64_t)ANE_NR_AVX2 * K;
	/*
	 * Twenty-four named accumulators, not arrays: an array indexed by
	 * constants lives in registers only when the compiler can scalarise
	 * it, which KASAN's stack instrumentation prevents.
	 */
	ane_v16 c00_0, c00_1, c00_2, c00_3, c00_4, c00_5;
	ane_v16 c01_0, c01_1, c01_2, c01_3, c01_4, c01_5;
	ane_v16 c10_0, c10_1, c10_2, c10_3, c10_4, c10_5;
	ane_v16 c11_0, c11_1, c11_2, c11_3, c11_4, c11_5;
	uint32_t k;

	if (acc)
		ANE_SIX(ANE_IN);
	else
		ANE_SIX(ANE_ZERO);
	for (k = 0; k < kc; k++) {
		ane_v16 b0 = ane_load16(bp0), b1 = b0;

		if (nb == 2)
			b1 = ane_load16(bp1);
		ANE_PANEL(0);
		if (na == 2)
			ANE_PANEL(1);
		ap0 += ANE_MR;
		ap1 += ANE_MR;
		bp0 += ANE_NR_AVX2;
		bp1 += ANE_NR_AVX2;
	}
	ANE_SIX(ANE_OUT);
}

/*
 * One function per shape (spelt __noinline__, as in ane_math_avx2.c):
 * depth @kc of panels whose full depth is @K (the second A panel at
 * @a + 6 K, the second B panel at @b + 16 K), C from zero or, with @acc,
 * from the partial sums @tile holds.
 */
#define ANE_KERNEL(name, na, nb)					\
static __attribute__((__noinline__)) void				\
name(uint32_t kc, uint32_t K, const float *a, const float *b,		\
     float *tile, int acc)						\
{									\
	ane_kernel_avx512(kc, K, a, b, tile, acc, na, nb);		\
}

ANE_KERNEL(ane_kernel_12x32, 2, 2)
ANE_KERNEL(ane_kernel_12x16, 2, 1)
ANE_KERNEL(ane_kernel_6x32, 1, 2)
ANE_KERNEL(ane_kernel_6x16, 1, 1)

/* The kernel of the right shape for @na A panels and @nb B panels. */
static void ane_kernel_any(uint32_t na, uint32_t nb, uint32_t kc, uint32_t K,
			   const float *a, const float *b, float *tile, int acc)
{
	if (na == 2 && nb == 2)
		ane_kernel_12x32(kc, K, a, b, tile, acc);
	else if (na == 2)
		ane_kernel_12x16(kc, K, a, b, tile, acc);
	else if (nb == 2)
		ane_kernel_6x32(kc, K, a, b, tile, acc);
	else
		ane_kernel_6x16(kc, K, a, b, tile, acc);
}

/*
 * A remainder of at most four columns (N = 196 leaves 4 after six 32-column
 * pairs): instead of 16 lanes per row, 4 rows x 4 columns per vector.  For
 * each k, the column values b[k][0..3] fill the four quarters of one vector
 * (a 128-bit broadcast) and a panel's six A values a[k][0..5] go to lanes
 * 4 i + j as a[k][i] (rows 0-3 and rows 4-5, two permutes of one masked
 * load), so each panel takes 2 fused multiply-adds per k instead of 6.  Up
 * to ANE_TAIL_PANELS (@np) panels at once, eight independent accumulator
 * chains.  Each element is still one FMA per k, in k order, from zero: the
 * same bits.  The subtiles go to @tile as the 12 x 32 kernel's would (6 x
 * 16, row-major, columns 4..15 zero), for ane_store_tile_avx512(); @tile
 * holds ANE_TAIL_PANELS subtiles, as the 12 x 32 kernel's does.
 */
#define ANE_TAIL_COLS	4u
#define ANE_TAIL_PANELS	4u

static __attribute__((__noinline__)) void
ane_kernel_tail(uint32_t np, uint32_t K, const float *a, const float *b,
		float *tile)
{
	const ane_i16 lo = { 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3 };
	const ane_i16 hi = { 4, 4, 4, 4, 5, 5, 5, 5, 4, 4, 4, 4, 5, 5, 5, 5 };
	ane_v16 c0[ANE_TAIL_PANELS], c1[ANE_TAIL_PANELS];
	const float *ap[ANE_TAIL_PANELS];
	uint16_t am[ANE_TAIL_PANELS];
	float acc[ANE_TAIL_PANELS * 32];
	uint32_t p, k, i, j;

	for (p = 0; p < ANE_TAIL_PANELS; p++) {
		c0[p] = ane_splat16(0.0f);
		c1[p] = c0[p];
		/* panels past @np read nothing (and are not stored) */
		am[p] = p < np ? (uint16_t)0x3f : 0;
		ap[p] = a + (uint64_t)(p < np ? p : 0) * ANE_MR * K;
	}
	for (k = 0; k < K; k++, b += ANE_NR_AVX2) {
		ane_v16 bq = __builtin_ia32_broadcastf32x4_512(
			*(const float __attribute__((vector_size(16), aligned(4))) *)b,
			ane_splat16(0.0f), (uint16_t)0xffff);

#pragma GCC unroll 4
		for (p = 0; p < ANE_TAIL_PANELS; p++) {
			ane_v16 av = __builtin_ia32_loadups512_mask(
				ap[p] + (uint64_t)k * ANE_MR, ane_splat16(0.0f),
				am[p]);

			c0[p] = ane_fma16(__builtin_ia32_permvarsf512_mask(av, lo, av,
									     (uint16_t)0xffff), bq,
					  c0[p]);
			c1[p] = ane_fma16(__builtin_ia32_permvarsf512_mask(av, hi, av,
									     (uint16_t)0xffff), bq,
					  c1[p]);
		}
	}
#pragma GCC unroll 4
	for (p = 0; p < ANE_TAIL_PANELS; p++) {
		ane_store16(acc + 32 * p, c0[p]);
		ane_store16(acc + 32 * p + 16, c1[p]);
	}
	for (p = 0; p < np; p++) {
		float *t = tile + p * ANE_MR * 16;

		for (i = 0; i < ANE_MR; i++)
			for (j = 0; j < 16; j++)
				t[i * 16 + j] = j < ANE_TAIL_COLS ?
						acc[32 * p + 4 * i + j] : 0.0f;
	}
}

/* ------------------------------------------------------------ store */

/*
 * Bias, activation and rounding of one 6 x 16 subtile (row-major, 16 per
 * row), @cols <= 16 columns from GEMM column @col: when those outputs are
 * contiguous in dst -- unit column stride, and either within one output
 * row or rows packed back to back (y_sh == wo, a dense convolution output)
 * -- and the activation is none, ReLU or ReLU6, sixteen lanes at a time
 * with a masked store of the @cols lanes; otherwise as the AVX2 path does
 * it.  The same values either way (the bias added, the activation applied,
 * in fp32, then rounded once, to nearest even).
 */
static void ane_store_tile_avx512(const struct ane_gemm *g, const float *tile,
				  uint32_t m, uint32_t rows, uint32_t col,
				  uint32_t cols)
{
	uint32_t oh = col / g->wo, ow = col % g->wo, i;
	uint16_t mask = (uint16_t)(cols >= 16 ? 0xffffu : (1u << cols) - 1u);
	const ane_v16 zero = ane_splat16(0.0f), six = ane_splat16(6.0f);
	uint16_t *y;

	if (g->y_sw != 1 || (ow + cols > g->wo && g->y_sh != g->wo) ||
	    (g->act != ANE_ACT_NONE && g->act != ANE_ACT_RELU &&
	     g->act != ANE_ACT_RELU6)) {
		ane_store_tile_avx2(g, tile, m, rows, col, cols);
		return;
	}
	y = g->y + (uint64_t)m * g->y_sm + (uint64_t)oh * g->y_sh + ow;
	for (i = 0; i < rows; i++, y += g->y_sm, tile += 16) {
		ane_v16 v = ane_load16(tile);
		ane_h16 h;

		if (g->bias)
			v += ane_splat16(ane_fp16_to_fp32_avx512(
				g->bias[(uint64_t)(m + i) * g->bias_s]));
		/*
		 * Masks from ordered comparisons, as ane_math.c does it: NaN
		 * fails both and passes, -0 is not below 0 and stays -0.
		 */
		if (g->act == ANE_ACT_RELU || g->act == ANE_ACT_RELU6)
			v = __builtin_ia32_blendmps_512_mask(v, zero,
				__builtin_ia32_cmpps512_mask(v, zero, 1 /* LT_OS */,
							     (uint16_t)0xffff, 4));
		if (g->act == ANE_ACT_RELU6)
			v = __builtin_ia32_blendmps_512_mask(v, six,
				__builtin_ia32_cmpps512_mask(v, six, 14 /* GT_OS */,
							     (uint16_t)0xffff, 4));
		h = __builtin_ia32_vcvtps2ph512_mask(v, 0, (ane_h16){ 0 },
						     (uint16_t)0xffff);
		__builtin_ia32_storedquhi256_mask((short *)y, h, mask);
	}
}

/* ------------------------------------------------------------ chunk */

/* Store the (A panel, B panel) subtiles of one 12 x 32 tile. */
static void ane_store_tiles(const struct ane_gemm *g,
			    const struct ane_gemm_chunk *c, const float *tile,
			    uint32_t ir, uint32_t jr, uint32_t na, uint32_t nb)
{
	uint32_t rows = c->mlen - ir, cols = c->c1 - jr, p, q;

	for (p = 0; p < na; p++) {
		uint32_t r = rows - p * ANE_MR;

		for (q = 0; q < nb; q++) {
			uint32_t n = cols - q * ANE_NR_AVX2;

			ane_store_tile_avx512(g, tile + (2 * p + q) * 96,
					      c->m0 + ir + p * ANE_MR,
					      r < ANE_MR ? r : ANE_MR,
					      c->n0 + jr + q * ANE_NR_AVX2,
					      n < ANE_NR_AVX2 ? n : ANE_NR_AVX2);
		}
	}
}

/*
 * Depth blocking: from ANE_KC_MIN on, the depth is cut into balanced
 * slices of at most ANE_KC, so that the slice of a B panel pair (32 x
 * ANE_KC fp32, 32 KiB) stays in L1 while the A slices of the chunk's rows
 * stream past it.  The partial sums of the chunk's tiles wait, in fp32, in
 * the part of the A area that this path's packing leaves unused (the plan
 * sizes it for SSE2's four copies of each element; checked here, else no
 * blocking).  Every element still gets its k terms in order 0, 1, ...
 * K - 1, one FMA each, so the bits are the same as without blocking.
 */
#define ANE_KC		256u
#define ANE_KC_MIN	512u

void ane_gemm_chunk_avx512(const struct ane_gemm *g,
			   const struct ane_gemm_chunk *c)
{
	uint32_t K = c->K, ir, jr, na, nb, k0, kc, nk;
	uint64_t used, avail, ntiles;
	float tile[4 * ANE_MR * 16], *cbuf, *t;

	if (!c->compute) {
		/*
		 * Without a window (MATMUL, 1x1) packing chunk i of n packs
		 * the rows [K i / n, K (i + 1) / n) of every panel of the
		 * block, not whole panels: B's rows are often pages apart,
		 * and a chunk of whole panels (32 columns of every row)
		 * would touch every page of the block for 64 bytes.
		 */
		if (g->kh == 1 && g->kw == 1 && g->sw == 1 && g->x_sw == 1 &&
		    g->h == 1 && g->w == g->wo && !g->pt && !g->pl && c->parts &&
		    c->nlen >= ANE_ROWS_MIN_COLS)
			ane_pack_b_rows_avx512(g, K, c->n0, c->nlen, c->pb,
					       (uint32_t)((uint64_t)K * c->part / c->parts),
					       (uint32_t)((uint64_t)K * (c->part + 1) /
							  c->parts),
					       c->pc ? ANE_PF_ROWS_KB : ANE_PF_ROWS);
		else if (g->kh == 1 && g->kw == 1 && g->sw == 1 && g->x_sw == 1 &&
			 c->parts)
			ane_pack_b_avx512(g, K, c->n0, c->nlen, c->pb, 0,
					  (c->nlen + ANE_NR_AVX2 - 1) / ANE_NR_AVX2,
					  (uint32_t)((uint64_t)K * c->part / c->parts),
					  (uint32_t)((uint64_t)K * (c->part + 1) /
						     c->parts));
		else
			ane_pack_b_avx512(g, K, c->n0, c->nlen, c->pb, c->u0,
					  c->u1, 0, g->cin);
		return;
	}
	/* The first chunk of an A block packs it for the ones that follow. */
	if (c->pack_a)
		ane_pack_a_avx512(g, K, c->m0, c->mlen, c->pa);

	if (c->pc) {
		/*
		 * A depth block of the plan's (see ANE_KB_KC): each 12 x 32
		 * tile starts from, and but for the last depth block ends
		 * in, its partial sums at pc; B panel pairs outside, so that
		 * the pair's slice stays in L1 while every row passes it.
		 * No tail kernel (it starts from zero): the 16-wide ones.
		 */
		for (jr = c->c0; jr < c->c1; jr += 2 * ANE_NR_AVX2) {
			nb = c->c1 - jr > ANE_NR_AVX2 ? 2 : 1;
			for (ir = 0; ir < c->mlen; ir += 2 * ANE_MR) {
				na = c->mlen - ir > ANE_MR ? 2 : 1;
				t = c->pc + (uint64_t)ir * c->ldc +
				    (uint64_t)(c->pcol + jr) * 2 * ANE_MR;
				ane_kernel_any(na, nb, K, K, c->pa + (uint64_t)ir * K,
					       c->pb + (uint64_t)jr * K, t,
					       !c->kfirst);
				if (c->klast)
					ane_store_tiles(g, c, t, ir, jr, na, nb);
			}
		}
		return;
	}
	used = ((uint64_t)(c->mlen + ANE_MR - 1) / ANE_MR * ANE_MR * K + 15) / 16 * 16;
	avail = (uint64_t)c->mc * K * 4;
	ntiles = (uint64_t)((c->mlen + 2 * ANE_MR - 1) / (2 * ANE_MR)) *
		 ((c->c1 - c->c0 + 2 * ANE_NR_AVX2 - 1) / (2 * ANE_NR_AVX2));
	if (K < ANE_KC_MIN || used + ntiles * 4 * ANE_MR * 16 > avail) {
		for (jr = c->c0; jr < c->c1; jr += 2 * ANE_NR_AVX2) {
			nb = c->c1 - jr > ANE_NR_AVX2 ? 2 : 1;
			if (c->c1 - jr <= ANE_TAIL_COLS) {
				for (ir = 0; ir < c->mlen;
				     ir += ANE_TAIL_PANELS * ANE_MR) {
					uint32_t np = (c->mlen - ir + ANE_MR - 1) / ANE_MR, p;

					if (np > ANE_TAIL_PANELS)
						np = ANE_TAIL_PANELS;
					ane_kernel_tail(np, K, c->pa + (uint64_t)ir * K,
							c->pb + (uint64_t)jr * K, tile);
					for (p = 0; p < np; p++) {
						uint32_t r = c->mlen - ir - p * ANE_MR;

						ane_store_tile_avx512(g, tile + p * ANE_MR * 16,
								      c->m0 + ir + p * ANE_MR,
								      r < ANE_MR ? r : ANE_MR,
								      c->n0 + jr, c->c1 - jr);
					}
				}
				continue;
			}
			for (ir = 0; ir < c->mlen; ir += 2 * ANE_MR) {
				na = c->mlen - ir > ANE_MR ? 2 : 1;
				ane_kernel_any(na, nb, K, K, c->pa + (uint64_t)ir * K,
					       c->pb + (uint64_t)jr * K, tile, 0);
				ane_store_tiles(g, c, tile, ir, jr, na, nb);
			}
		}
		return;
	}
	cbuf = c->pa + used;
	nk = (K + ANE_KC - 1) / ANE_KC;
	kc = (K + nk - 1) / nk;
	for (k0 = 0; k0 < K; k0 += kc) {
		uint32_t kn = K - k0 < kc ? K - k0 : kc;
		int last = k0 + kn == K;

		t = cbuf;
		for (jr = c->c0; jr < c->c1; jr += 2 * ANE_NR_AVX2) {
			nb = c->c1 - jr > ANE_NR_AVX2 ? 2 : 1;
			for (ir = 0; ir < c->mlen; ir += 2 * ANE_MR,
			     t += 4 * ANE_MR * 16) {
				na = c->mlen - ir > ANE_MR ? 2 : 1;
				ane_kernel_any(na, nb, kn, K,
					       c->pa + (uint64_t)ir * K + (uint64_t)k0 * ANE_MR,
					       c->pb + (uint64_t)jr * K + (uint64_t)k0 * ANE_NR_AVX2,
					       t, k0 > 0);
				if (last)
					ane_store_tiles(g, c, t, ir, jr, na, nb);
			}
		}
	}
}

#endif /* x86_64 with AVX-512 F/BW/VL, AVX2, FMA and F16C enabled */
