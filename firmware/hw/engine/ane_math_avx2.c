// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVX2 + FMA + F16C path of the engine's GEMM (MATMUL, and CONV with
 * more than ANE_DIRECT_MAX_COUT output channels per group): B and A
 * packing with the fp16 -> fp32 conversion done by F16C, a 6 x 16
 * register-blocked inner kernel with fused multiply-adds, and stores that
 * round to fp16 with F16C.  ane_math.c calls ane_gemm_chunk_avx2() for
 * each GEMM chunk when ane_math_isa is ANE_MATH_ISA_AVX2_FMA (and it was
 * built with ANE_MATH_AVX2); everything else stays in ane_math.c.
 *
 * Built with $(CC_FLAGS_FPU) -mavx2 -mfma -mf16c in the kernel (and
 * -mavx2 -mfma -mf16c on the host), and run only from ane_op_run(), so
 * inside kernel_fpu_begin()/kernel_fpu_end(), which save the full AVX
 * state.  Like ane_math.c it includes no intrinsics header (the kernel has
 * none): GCC's vector extension and its __builtin_ia32_* builtins, no
 * kernel or libm calls.  Vectors meet memory through __builtin_memcpy
 * (unaligned) or in the 64-byte-aligned workspace, so the kernel's 8-byte
 * stack alignment costs nothing but a realigned frame where GCC spills.
 *
 * Relies on the default MXCSR (round to nearest, no flush-to-zero, no
 * denormals-are-zero), which kernel_fpu_begin() loads: VCVTPS2PH is told
 * to round to nearest even whatever MXCSR says, VCVTPH2PS is exact.
 *
 * Copyright (C) 2026 The ane authors
 */

#define ANE_MATH_FPU
#include "ane_math_impl.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__) && \
	defined(__F16C__)

typedef float ane_v8 __attribute__((vector_size(32)));
typedef int32_t ane_i8 __attribute__((vector_size(32)));
typedef float ane_v4 __attribute__((vector_size(16)));
typedef short ane_h8 __attribute__((vector_size(16)));

#define ANE_FMA(a, b, c)	__builtin_ia32_vfmaddps256((a), (b), (c))

static inline ane_v8 ane_splat8(float x)
{
	return (ane_v8){ x, x, x, x, x, x, x, x };
}

/* Eight fp16 at @p (any alignment) to fp32, exactly. */
static inline ane_v8 ane_h2f8(const uint16_t *p)
{
	ane_h8 h;

	__builtin_memcpy(&h, p, 16);
	return __builtin_ia32_vcvtph2ps256(h);
}

/* One fp16 to fp32, exactly. */
static inline float ane_h2f1(uint16_t x)
{
	ane_h8 h = { (short)x };
	ane_v4 f = __builtin_ia32_vcvtph2ps(h);

	return f[0];
}

/*
 * Eight fp32 to fp16 at @p, round to nearest even (immediate 0, not
 * MXCSR), overflow to infinity, subnormals kept, NaN quieted with its top
 * payload bits: the same bits as ane_fp16_from_fp32_bits() but for a
 * signalling NaN, which comes out quiet.
 */
static inline void ane_f2h8(uint16_t *p, ane_v8 v)
{
	ane_h8 h = __builtin_ia32_vcvtps2ph256(v, 0);

	__builtin_memcpy(p, &h, 16);
}

/* ------------------------------------------------------------ packing */

/*
 * Pack rows [m0, m0 + mlen) of A into fp32 panels of ANE_MR rows, k-major:
 * pa[panel][k][i], 24 bytes per k (the kernel broadcasts from memory).
 * A last, partial panel repeats its last row; those results are computed
 * and never stored.
 */
void ane_pack_a_avx2(const struct ane_gemm *g, uint32_t K,
		     uint32_t m0, uint32_t mlen, float *pa)
{
	/* is A(m, k) at row + k, k = (ci, kh, kw) with kw fastest? */
	int dense = (g->kw == 1 || g->a_sw == 1) &&
		    (g->kh == 1 || g->a_sh == g->kw) &&
		    (g->cin == 1 || g->a_sc == (uint64_t)g->kh * g->kw);
	uint32_t ip, i, k, l, ci, kh, kw;

	for (ip = 0; ip < mlen; ip += ANE_MR) {
		const uint16_t *r[ANE_MR];
		float *dst = pa + (uint64_t)ip * K;

		for (i = 0; i < ANE_MR; i++) {
			uint32_t m = ip + i < mlen ? ip + i : mlen - 1;

			r[i] = g->a + (uint64_t)(m0 + m) * g->a_sm;
		}
		if (dense) {
			for (k = 0; k + 8 <= K; k += 8, dst += 8 * ANE_MR) {
				float t[ANE_MR][8];

				for (i = 0; i < ANE_MR; i++) {
					ane_v8 v = ane_h2f8(r[i] + k);

					__builtin_memcpy(t[i], &v, 32);
				}
				for (l = 0; l < 8; l++)
					for (i = 0; i < ANE_MR; i++)
						dst[l * ANE_MR + i] = t[i][l];
			}
			for (; k < K; k++, dst += ANE_MR)
				for (i = 0; i < ANE_MR; i++)
					dst[i] = ane_h2f1(r[i][k]);
			continue;
		}
		for (ci = 0; ci < g->cin; ci++)
			for (kh = 0; kh < g->kh; kh++)
				for (kw = 0; kw < g->kw; kw++, dst += ANE_MR) {
					uint64_t off = ci * g->a_sc + kh * g->a_sh +
						       kw * g->a_sw;

					for (i = 0; i < ANE_MR; i++)
						dst[i] = ane_h2f1(r[i][off]);
				}
	}
}

/*
 * Pack column units [u0, u1) of columns [n0, n0 + nlen) of the implicit B
 * (see struct ane_gemm) into fp32 panels of ANE_NR_AVX2 columns, k-major
 * in natural column order: pb[panel][k][j], zero where the window reads
 * padding and in columns past nlen.  Sixteen contiguous in-bounds inputs
 * (MATMUL, and most of a stride-1 convolution's rows) convert with two
 * loads; anything else is gathered, without branches, into sixteen fp16
 * first.
 */
void ane_pack_b_avx2(const struct ane_gemm *g, uint32_t K, uint32_t n0,
		     uint32_t nlen, float *pb, uint32_t u0, uint32_t u1)
{
	const uint32_t nr = ANE_NR_AVX2;
	uint32_t npanels = (nlen + nr - 1) / nr, jp, j, ci, kh, kw;
	uint64_t kstep = (uint64_t)g->kh * g->kw * nr;

	if (u1 > npanels)
		u1 = npanels;
	for (jp = u0; jp < u1; jp++) {
		int64_t ih0[ANE_NR_AVX2], iw0[ANE_NR_AVX2];
		float *panel = pb + (uint64_t)jp * nr * K;
		/* all sixteen columns in one output row, sw 1? */
		int row = ane_panel_origins(g, n0, nlen, jp, nr, ih0, iw0);
		for (kh = 0; kh < g->kh; kh++) {
			for (kw = 0; kw < g->kw; kw++) {
				int64_t ih = ih0[0] + (int64_t)kh * g->dh;
				int64_t iw = iw0[0] + (int64_t)kw * g->dw;
				float *dst = panel + ((uint64_t)kh * g->kw + kw) * nr;
				const uint16_t *pc = g->x;
				uint64_t off[ANE_NR_AVX2];
				uint16_t valid[ANE_NR_AVX2];

				if (row && ih >= 0 && ih < g->h && iw >= 0 &&
				    iw + nr <= g->w) {
					/* fast path: sixteen contiguous, in-bounds */
					pc += ih * g->x_sh + iw;
					for (ci = 0; ci < g->cin; ci++,
					     pc += g->x_sc, dst += kstep) {
						ane_v8 lo = ane_h2f8(pc);
						ane_v8 hi = ane_h2f8(pc + 8);

						__builtin_memcpy(dst, &lo, 32);
						__builtin_memcpy(dst + 8, &hi, 32);
					}
					continue;
				}
				/* where each column reads, or element 0 and a mask */
				for (j = 0; j < nr; j++) {
					int64_t y = ih0[j] + (int64_t)kh * g->dh;
					int64_t x = iw0[j] + (int64_t)kw * g->dw;
					int ok = y >= 0 && y < g->h && x >= 0 && x < g->w;

					off[j] = ok ? (uint64_t)y * g->x_sh +
						      (uint64_t)x * g->x_sw : 0;
					valid[j] = ok ? 0xffffu : 0;
				}
				for (ci = 0; ci < g->cin; ci++,
				     pc += g->x_sc, dst += kstep) {
					uint16_t h[ANE_NR_AVX2];
					ane_v8 lo, hi;

					for (j = 0; j < nr; j++)
						h[j] = pc[off[j]] & valid[j];
					lo = ane_h2f8(h);
					hi = ane_h2f8(h + 8);
					__builtin_memcpy(dst, &lo, 32);
					__builtin_memcpy(dst + 8, &hi, 32);
				}
			}
		}
	}
}

/* ------------------------------------------------------------ kernel */

/*
 * The register-blocked inner kernel: a 6 x 16 fp32 block of C in twelve
 * eight-float accumulators, from an A panel (6 floats per k, broadcast
 * from memory) and a B panel (16 floats per k, two aligned loads) over the
 * whole depth K (of a depth block: from the sums @tile holds, with @acc),
 * written to @tile (row-major, 16 per row).  Per k: 2
 * loads, 6 broadcasts, 12 fused multiply-adds.  Every element is summed in
 * k order 0, 1, ... K - 1, one rounding per step, whatever the blocking
 * around it.  Not inlined, so that it has all sixteen ymm registers to
 * itself (spelt __noinline__: the kernel defines noinline as a macro, and
 * this file is shared with userspace).
 */
#define ANE_KSTEP(ap, bp) do {						\
	ane_v8 b0_ = *(const ane_v8 *)(bp);				\
	ane_v8 b1_ = *(const ane_v8 *)((bp) + 8);			\
	ane_v8 a_;							\
									\
	a_ = ane_splat8((ap)[0]);					\
	c00 = ANE_FMA(a_, b0_, c00);					\
	c01 = ANE_FMA(a_, b1_, c01);					\
	a_ = ane_splat8((ap)[1]);					\
	c10 = ANE_FMA(a_, b0_, c10);					\
	c11 = ANE_FMA(a_, b1_, c11);					\
	a_ = ane_splat8((ap)[2]);					\
	c20 = ANE_FMA(a_, b0_, c20);					\
	c21 = ANE_FMA(a_, b1_, c21);					\
	a_ = ane_splat8((ap)[3]);					\
	c30 = ANE_FMA(a_, b0_, c30);					\
	c31 = ANE_FMA(a_, b1_, c31);					\
	a_ = ane_splat8((ap)[4]);					\
	c40 = ANE_FMA(a_, b0_, c40);					\
	c41 = ANE_FMA(a_, b1_, c41);					\
	a_ = ane_splat8((ap)[5]);					\
	c50 = ANE_FMA(a_, b0_, c50);					\
	c51 = ANE_FMA(a_, b1_, c51);					\
} while (0)

/* The twelve accumulators and their place in the tile. */
#define ANE_ACCS(f) do {						\
	f(c00, 0); f(c01, 8); f(c10, 16); f(c11, 24);			\
	f(c20, 32); f(c21, 40); f(c30, 48); f(c31, 56);			\
	f(c40, 64); f(c41, 72); f(c50, 80); f(c51, 88);			\
} while (0)
#define ANE_ACC_IN(c, o)	__builtin_memcpy(&(c), tile + (o), 32)
#define ANE_ACC_OUT(c, o)	__builtin_memcpy(tile + (o), &(c), 32)

static __attribute__((__noinline__)) void
ane_kernel_6x16(uint32_t K, const float *a, const float *b, float *tile,
		int acc)
{
	ane_v8 c00 = { 0 }, c01 = { 0 }, c10 = { 0 }, c11 = { 0 };
	ane_v8 c20 = { 0 }, c21 = { 0 }, c30 = { 0 }, c31 = { 0 };
	ane_v8 c40 = { 0 }, c41 = { 0 }, c50 = { 0 }, c51 = { 0 };
	uint32_t k;

	/* a depth block after the first: from the partial sums */
	if (acc)
		ANE_ACCS(ANE_ACC_IN);

	/* four steps per iteration: less loop overhead, same order of sums */
	for (k = 0; k + 4 <= K; k += 4, a += 4 * ANE_MR, b += 4 * 16) {
		ANE_KSTEP(a, b);
		ANE_KSTEP(a + ANE_MR, b + 16);
		ANE_KSTEP(a + 2 * ANE_MR, b + 32);
		ANE_KSTEP(a + 3 * ANE_MR, b + 48);
	}
	for (; k < K; k++, a += ANE_MR, b += 16)
		ANE_KSTEP(a, b);
	ANE_ACCS(ANE_ACC_OUT);
}

/* ------------------------------------------------------------ store */

/*
 * ReLU and ReLU6 on eight lanes as ane_math.c does them on one: masks
 * from ordered comparisons, so NaN passes and -0 stays -0.
 */
static inline ane_v8 ane_relu8(ane_v8 x)
{
	ane_i8 neg = (ane_i8)(x < ane_splat8(0.0f));

	return (ane_v8)((ane_i8)x & ~neg);
}

static inline ane_v8 ane_relu6_8(ane_v8 x)
{
	ane_i8 big = (ane_i8)(x > ane_splat8(6.0f));

	x = ane_relu8(x);
	return (ane_v8)(((ane_i8)x & ~big) | ((ane_i8)ane_splat8(6.0f) & big));
}

/*
 * Bias, activation and rounding of one 6 x 16 tile: sixteen outputs
 * contiguous in dst (in one row, or across the rows of a dense plane, as
 * a 1 x 1 convolution's 7 x 7 and 14 x 14 outputs are) with ReLU, ReLU6
 * or no activation take the vector path; anything else goes through ane_gemm_store_tile(), which computes
 * the same values (the bias added, the activation applied, in fp32, then
 * rounded once).
 */
void ane_store_tile_avx2(const struct ane_gemm *g, const float *tile,
			 uint32_t m, uint32_t rows, uint32_t col,
			 uint32_t cols)
{
	uint32_t oh = col / g->wo, ow = col % g->wo, i;
	uint16_t *y;

	if (cols != 16 || g->y_sw != 1 || (ow + 16 > g->wo && g->y_sh != g->wo) ||
	    (g->act != ANE_ACT_NONE && g->act != ANE_ACT_RELU &&
	     g->act != ANE_ACT_RELU6)) {
		ane_gemm_store_tile(g, tile, 16, NULL, m, rows, col, cols);
		return;
	}
	y = g->y + (uint64_t)m * g->y_sm + (uint64_t)oh * g->y_sh + ow;
	for (i = 0; i < rows; i++, y += g->y_sm, tile += 16) {
		ane_v8 lo, hi;

		__builtin_memcpy(&lo, tile, 32);
		__builtin_memcpy(&hi, tile + 8, 32);
		if (g->act != ANE_ACT_NONE || g->bias) {
			float bias = g->bias ?
				ane_h2f1(g->bias[(uint64_t)(m + i) * g->bias_s]) :
				0.0f;

			lo += ane_splat8(bias);
			hi += ane_splat8(bias);
			if (g->act == ANE_ACT_RELU) {
				lo = ane_relu8(lo);
				hi = ane_relu8(hi);
			} else if (g->act == ANE_ACT_RELU6) {
				lo = ane_relu6_8(lo);
				hi = ane_relu6_8(hi);
			}
		}
		ane_f2h8(y, lo);
		ane_f2h8(y + 8, hi);
	}
}

/* ------------------------------------------------------------ chunk */

void ane_gemm_chunk_avx2(const struct ane_gemm *g,
			 const struct ane_gemm_chunk *c)
{
	uint32_t K = c->K, ir, jr;
	float tile[ANE_MR * 16], *t;

	if (!c->compute) {
		ane_pack_b_avx2(g, K, c->n0, c->nlen, c->pb, c->u0, c->u1);
		return;
	}
	/* The first chunk of an A block packs it for the ones that follow. */
	if (c->pack_a)
		ane_pack_a_avx2(g, K, c->m0, c->mlen, c->pa);
	for (jr = c->c0; jr < c->c1; jr += ANE_NR_AVX2) {
		const float *bp = c->pb + (uint64_t)jr * K;
		uint32_t cols = c->c1 - jr < ANE_NR_AVX2 ? c->c1 - jr : ANE_NR_AVX2;

		for (ir = 0; ir < c->mlen; ir += ANE_MR) {
			uint32_t rows = c->mlen - ir < ANE_MR ? c->mlen - ir : ANE_MR;

			/* with depth blocks the tile's partial sums wait at pc */
			t = c->pc ? c->pc + (uint64_t)ir * c->ldc +
				    (uint64_t)(c->pcol + jr) * ANE_MR : tile;
			ane_kernel_6x16(K, c->pa + (uint64_t)ir * K, bp, t,
					c->pc && !c->kfirst);
			if (!c->pc || c->klast)
				ane_store_tile_avx2(g, t, c->m0 + ir, rows,
						    c->n0 + jr, cols);
		}
	}
}

#endif /* x86_64 with AVX2, FMA and F16C enabled */
