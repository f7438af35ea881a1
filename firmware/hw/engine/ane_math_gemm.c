// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's GEMM (matrix multiply, and convolution as one): the plan's
 * blocks packed to fp32 panels, the SSE2 6 x 8 kernel, and the hand-off
 * of whole chunks to the AVX2 path (ane_math_avx2.c) or the AVX-512 path
 * (ane_math_avx512.c) when one is chosen.
 *
 * Floating point: built and run as ane_math.c is (see there and
 * Documentation/accel/ane/engine.rst).
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_fpu.h"

/* sparse cannot parse the vector types (see ane_math.c). */
#ifndef __CHECKER__

/* ------------------------------------------------------------ GEMM */

/* struct ane_gemm, the GEMM problem, is in ane_math_impl.h. */

static void ane_gemm_setup(const struct ane_op_desc *d, uint64_t prob,
			   const struct ane_plan *p, struct ane_gemm *g)
{
	const struct ane_tensor *s0 = &d->src[0], *s1 = &d->src[1], *y = &d->dst;

	*g = (struct ane_gemm){ .act = d->act, .sh = 1, .sw = 1, .dh = 1,
				.dw = 1, .kh = 1, .kw = 1, .h = 1 };
	if (d->op == ANE_OP_MATMUL) {
		uint64_t n = prob / y->dim[ANE_C], c = prob % y->dim[ANE_C];
		int tb = !!(d->p.matmul.flags & ANE_MATMUL_TRANS_B);

		g->a = ane_src(s0) + n * ane_bstride(s0, ANE_N) +
		       c * ane_bstride(s0, ANE_C);
		g->a_sm = s0->stride[ANE_H];
		g->a_sc = s0->stride[ANE_W];
		g->x = ane_src(s1) + n * ane_bstride(s1, ANE_N) +
		       c * ane_bstride(s1, ANE_C);
		g->x_sc = s1->stride[tb ? ANE_W : ANE_H];
		g->x_sw = s1->stride[tb ? ANE_H : ANE_W];
		g->cin = p->K;
		g->w = p->N;
		g->wo = p->N;
		g->y = (uint16_t *)y->base + n * y->stride[ANE_N] +
		       c * y->stride[ANE_C];
		g->y_sm = y->stride[ANE_H];
		g->y_sw = y->stride[ANE_W];
	} else {
		const struct ane_conv_params *cp = &d->p.conv;
		uint32_t groups = cp->groups;
		uint64_t n = prob / groups, gi = prob % groups;
		uint64_t cin_g = s0->dim[ANE_C] / groups;

		g->a = ane_src(s1) + gi * p->M * s1->stride[ANE_N];
		g->a_sm = s1->stride[ANE_N];
		g->a_sc = s1->stride[ANE_C];
		g->a_sh = s1->stride[ANE_H];
		g->a_sw = s1->stride[ANE_W];
		g->x = ane_src(s0) + n * s0->stride[ANE_N] +
		       gi * cin_g * s0->stride[ANE_C];
		g->x_sc = s0->stride[ANE_C];
		g->x_sh = s0->stride[ANE_H];
		g->x_sw = s0->stride[ANE_W];
		g->cin = (uint32_t)cin_g;
		g->kh = s1->dim[ANE_H];
		g->kw = s1->dim[ANE_W];
		g->h = s0->dim[ANE_H];
		g->w = s0->dim[ANE_W];
		g->sh = cp->stride[0];
		g->sw = cp->stride[1];
		g->dh = cp->dilation[0];
		g->dw = cp->dilation[1];
		g->pt = cp->pad[ANE_PAD_TOP];
		g->pl = cp->pad[ANE_PAD_LEFT];
		g->wo = y->dim[ANE_W];
		g->y = (uint16_t *)y->base + n * y->stride[ANE_N] +
		       gi * p->M * y->stride[ANE_C];
		g->y_sm = y->stride[ANE_C];
		g->y_sh = y->stride[ANE_H];
		g->y_sw = y->stride[ANE_W];
		if (d->bias.base) {
			g->bias = ane_src(&d->bias) + gi * p->M * d->bias.stride[ANE_C];
			g->bias_s = d->bias.stride[ANE_C];
		}
	}
}

/*
 * Pack rows [m0, m0 + mlen) of A into fp32 panels of ANE_MR rows, each
 * element stored four times (a ready-made broadcast, so the inner kernel
 * needs no shuffle): pa[panel][k][i][0..3].  A last, partial panel repeats
 * its last row; those results are computed and never stored.
 */
static void ane_pack_a(const struct ane_gemm *g, uint32_t K, uint32_t m0,
		       uint32_t mlen, float *pa)
{
	uint32_t ip, i, k, ci, kh, kw;

	for (ip = 0; ip < mlen; ip += ANE_MR) {
		const uint16_t *r[ANE_MR];
		ane_v4 *dst = (ane_v4 *)(pa + (uint64_t)ip * K * 4);

		for (i = 0; i < ANE_MR; i++) {
			uint32_t m = ip + i < mlen ? ip + i : mlen - 1;

			r[i] = g->a + (uint64_t)(m0 + m) * g->a_sm;
		}
		if (g->kh == 1 && g->kw == 1 && g->a_sc == 1) {
			/* MATMUL or 1x1, rows contiguous: eight k at a time */
			for (i = 0; i < ANE_MR; i++) {
				ane_v4 *q = dst + i;

				for (k = 0; k + 8 <= K; k += 8, q += 8 * ANE_MR) {
					ane_v4 e, o;
					uint32_t l;

					ane_h2f8(r[i] + k, &e, &o);
					for (l = 0; l < 4; l++) {
						float ve = e[l], vo = o[l];

						q[2 * l * ANE_MR] =
							(ane_v4){ ve, ve, ve, ve };
						q[(2 * l + 1) * ANE_MR] =
							(ane_v4){ vo, vo, vo, vo };
					}
				}
				for (; k < K; k++, q += ANE_MR) {
					float v = ane_h2f(r[i][k]);

					*q = (ane_v4){ v, v, v, v };
				}
			}
			continue;
		}
		if (g->kh == 1 && g->kw == 1) {		/* MATMUL, 1x1 */
			uint64_t s = g->a_sc, off = 0;

			for (k = 0; k < K; k++, off += s, dst += ANE_MR)
				for (i = 0; i < ANE_MR; i++) {
					float v = ane_h2f(r[i][off]);

					dst[i] = (ane_v4){ v, v, v, v };
				}
			continue;
		}
		for (ci = 0; ci < g->cin; ci++)
			for (kh = 0; kh < g->kh; kh++)
				for (kw = 0; kw < g->kw; kw++, dst += ANE_MR) {
					uint64_t off = ci * g->a_sc + kh * g->a_sh +
						       kw * g->a_sw;

					for (i = 0; i < ANE_MR; i++) {
						float v = ane_h2f(r[i][off]);

						dst[i] = (ane_v4){ v, v, v, v };
					}
				}
	}
}

/*
 * Within a packed B panel the columns are stored evens first:
 * 0, 2, 4, 6, 1, 3, 5, 7, so that eight contiguous fp16 values convert with
 * one load and no shuffle (ane_h2f8()).  ane_col_pos[j] is where column j
 * of the panel sits; the tile the inner kernel writes has the same order.
 */
static const uint8_t ane_col_pos[ANE_NR] = { 0, 4, 1, 5, 2, 6, 3, 7 };

/* One k of a B panel, column by column, with every bounds check. */
static void ane_pack_b_step(const struct ane_gemm *g, const uint16_t *pc,
			    const int64_t *ih0, const int64_t *iw0,
			    int64_t dh, int64_t dw, float *dst)
{
	uint32_t j;

	for (j = 0; j < ANE_NR; j++) {
		int64_t ih = ih0[j] + dh, iw = iw0[j] + dw;
		float v = 0.0f;

		if (ih >= 0 && ih < g->h && iw >= 0 && iw < g->w)
			v = ane_h2f(pc[ih * g->x_sh + iw * g->x_sw]);
		dst[ane_col_pos[j]] = v;
	}
}

/*
 * Pack panels [jp0, jp1) of columns [n0, n0 + nlen) of the implicit B into
 * fp32 panels of ANE_NR columns: pb[panel][k][ane_col_pos[j]], zero where
 * the window reads padding and in columns past nlen.
 */
static void ane_pack_b(const struct ane_gemm *g, uint32_t K, uint32_t n0,
		       uint32_t nlen, float *pb, uint32_t jp0, uint32_t jp1)
{
	uint32_t npanels = (nlen + ANE_NR - 1) / ANE_NR, jp, ci, kh, kw;

	if (jp1 > npanels)
		jp1 = npanels;
	for (jp = jp0; jp < jp1; jp++) {
		int64_t ih0[ANE_NR], iw0[ANE_NR];
		float *dst = pb + (uint64_t)jp * ANE_NR * K;
		/* all eight columns in one output row, sw 1? */
		int row = ane_panel_origins(g, n0, nlen, jp, ANE_NR, ih0, iw0);
		for (ci = 0; ci < g->cin; ci++) {
			const uint16_t *pc = g->x + ci * g->x_sc;

			for (kh = 0; kh < g->kh; kh++) {
				int64_t ih = ih0[0] + (int64_t)kh * g->dh;

				for (kw = 0; kw < g->kw; kw++, dst += ANE_NR) {
					int64_t iw = iw0[0] + (int64_t)kw * g->dw;

					/* fast path: eight contiguous, in-bounds */
					if (row && ih >= 0 && ih < g->h && iw >= 0 &&
					    iw + ANE_NR <= g->w) {
						ane_v4 e, o;

						ane_h2f8(pc + ih * g->x_sh + iw, &e, &o);
						*(ane_v4 *)dst = e;
						*(ane_v4 *)(dst + 4) = o;
						continue;
					}
					ane_pack_b_step(g, pc, ih0, iw0,
							(int64_t)kh * g->dh,
							(int64_t)kw * g->dw, dst);
				}
			}
		}
	}
}

/*
 * The register-blocked inner kernel: a 6 x 8 fp32 block of C, in twelve
 * four-float accumulators, from an A panel (6 broadcast quadruples per k)
 * and a B panel (8 floats per k) over the whole depth K (of a depth
 * block: from the sums @tile holds, with @acc), written to @tile
 * (row-major, ANE_NR per row).  Per k: 8 loads, 12 multiplies, 12 adds
 * and no shuffle.  Every element is summed in k order 0, 1, ... K - 1
 * with separate multiply and add, whatever the blocking around it.
 */
/* One k step of the 6 x 8 block: c[2i + h] += a[i] * b[h]. */
static __attribute__((always_inline)) inline void
ane_kstep(ane_v4 *c, const ane_v4 *a, const ane_v4 *b)
{
	ane_v4 b0 = b[0], b1 = b[1];

	c[0] += a[0] * b0;
	c[1] += a[0] * b1;
	c[2] += a[1] * b0;
	c[3] += a[1] * b1;
	c[4] += a[2] * b0;
	c[5] += a[2] * b1;
	c[6] += a[3] * b0;
	c[7] += a[3] * b1;
	c[8] += a[4] * b0;
	c[9] += a[4] * b1;
	c[10] += a[5] * b0;
	c[11] += a[5] * b1;
}

static void ane_kernel_6x8(uint32_t K, const float *a, const float *b,
			   float *tile, int acc)
{
	const ane_v4 *av = (const ane_v4 *)a, *bv = (const ane_v4 *)b;
	ane_v4 c[2 * ANE_MR] = { { 0 } };
	uint32_t k;

	/* with @acc, C starts from the partial sums in @tile */
	if (acc)
		for (k = 0; k < 2 * ANE_MR; k++)
			__builtin_memcpy(&c[k], tile + 4 * k, 16);

	/* two steps per iteration: less loop overhead, same order of sums */
	for (k = 0; k + 2 <= K; k += 2, av += 2 * ANE_MR, bv += 4) {
		ane_kstep(c, av, bv);
		ane_kstep(c, av + ANE_MR, bv + 2);
	}
	if (k < K)
		ane_kstep(c, av, bv);
	for (k = 0; k < 2 * ANE_MR; k++)
		__builtin_memcpy(tile + 4 * k, &c[k], 16);
}

/* Bias, activation and rounding of one tile (see ane_math_impl.h). */
void ane_gemm_store_tile(const struct ane_gemm *g, const float *tile,
			 uint32_t ld, const uint8_t *pos, uint32_t m,
			 uint32_t rows, uint32_t col, uint32_t cols)
{
	uint64_t coff[ANE_NU];
	uint8_t id[ANE_NU];
	uint32_t i, j, oh = col / g->wo, ow = col % g->wo;
	float v[ANE_NU];

	if (!pos) {
		for (j = 0; j < cols; j++)
			id[j] = (uint8_t)j;
		pos = id;
	}

	for (j = 0; j < cols; j++) {
		coff[j] = (uint64_t)oh * g->y_sh + (uint64_t)ow * g->y_sw;
		if (++ow == g->wo) {
			ow = 0;
			oh++;
		}
	}
	for (i = 0; i < rows; i++) {
		uint16_t *y = g->y + (uint64_t)(m + i) * g->y_sm;
		const float *t = tile + i * ld;
		float bias;

		if (g->act == ANE_ACT_NONE && !g->bias) {
			for (j = 0; j < cols; j++)
				y[coff[j]] = ane_f2h(t[pos[j]]);
			continue;
		}
		bias = g->bias ? ane_h2f(g->bias[(uint64_t)(m + i) * g->bias_s]) :
		       0.0f;
		for (j = 0; j < cols; j++)
			v[j] = t[pos[j]] + bias;
		ane_act_vec(g->act, v, cols);
		for (j = 0; j < cols; j++)
			y[coff[j]] = ane_f2h(v[j]);
	}
}

#ifdef ANE_MATH_AVX2
/* A chunk on the AVX-512 path (@avx512) or the AVX2 one. */
static void ane_gemm_chunk_isa(int avx512, const struct ane_gemm *g,
			       const struct ane_gemm_chunk *c)
{
#ifdef ANE_MATH_AVX512
	if (avx512 && ane_conv1_avx512_fits(g, c)) {
		ane_gemm_chunk_conv1_avx512(g, c);
		return;
	}
	if (avx512) {
		if (!ane_conv_chunk_avx512(g, c))
			ane_gemm_chunk_avx512(g, c);
		return;
	}
#endif
	ane_gemm_chunk_avx2(g, c);
}
#endif

void ane_run_gemm(const struct ane_op_desc *d, const struct ane_plan *p,
		  uint64_t chunk)
{
	struct ane_gemm_at at;
	uint32_t K, ir, jr;
	float *pa = (float *)d->work;
	float *pb = (float *)((char *)d->work + p->b_off);
	float *pc = NULL, *t, tile[ANE_MR * ANE_NR];
	struct ane_gemm g;
	int pack_a;
#ifdef ANE_MATH_AVX2
	int avx2 = ane_math_isa == ANE_MATH_ISA_AVX2_FMA;
#ifdef ANE_MATH_AVX512
	int avx512 = ane_math_isa == ANE_MATH_ISA_AVX512;
#else
	const int avx512 = 0;
#endif
	struct ane_gemm_chunk gc;
#endif

	ane_plan_gemm_at(p, chunk, &at);
	ane_gemm_setup(d, at.prob, p, &g);
	K = at.kn;
	if (p->kblocks > 1) {
		/* a depth block: a GEMM of its own from its first k (MATMUL) */
		g.a += (uint64_t)at.k0 * g.a_sc;
		g.x += (uint64_t)at.k0 * g.x_sc;
		g.cin = K;
		pc = (float *)((char *)d->work + ane_plan_c_off(p));
	}
	/* The first chunk of an A block packs it for the ones that follow. */
	pack_a = !at.pack && at.pack_a;
#ifdef ANE_MATH_AVX2
	if (avx2 || avx512) {
		gc = (struct ane_gemm_chunk){
			.M = p->M, .N = p->N, .K = K, .n0 = at.n0,
			.nlen = at.nlen, .mc = p->mc, .parts = p->nbpack,
			.pa = pa, .pb = pb, .pc = pc, .nc = p->nc, .blk = at.jb,
			.kfirst = at.kb == 0, .klast = at.kb + 1 == p->kblocks,
			.ldc = p->nbc * p->nc, .pcol = at.pcol,
			.count = p->mblocks * p->nsub,
		};
		if (at.pack) {
			/*
			 * a packing chunk of this B block: the AVX paths
			 * count panels of ANE_NR_AVX2 columns
			 */
			gc.part = at.part;
			gc.u0 = at.part * p->bppc * (ANE_NU / ANE_NR_AVX2);
			gc.u1 = gc.u0 + p->bppc * (ANE_NU / ANE_NR_AVX2);
		} else {
			gc.compute = 1;
			gc.pack_a = pack_a;
			gc.idx = (at.m0 / p->mc) * p->nsub + at.sub;
			gc.m0 = at.m0;
			gc.mlen = at.mlen;
			gc.c0 = at.c0;
			gc.c1 = at.c1;
		}
		ane_gemm_chunk_isa(avx512, &g, &gc);
		return;
	}
#endif
	if (at.pack) {
		/* a packing chunk of this B block: units of ANE_NU columns */
		ane_pack_b(&g, K, at.n0, at.nlen, pb,
			   at.part * p->bppc * (ANE_NU / ANE_NR),
			   (at.part + 1) * p->bppc * (ANE_NU / ANE_NR));
		return;
	}
	if (pack_a)
		ane_pack_a(&g, K, at.m0, at.mlen, pa);
	for (jr = at.c0; jr < at.c1; jr += ANE_NR) {
		const float *bp = pb + (uint64_t)jr * K;
		uint32_t cols = at.c1 - jr < ANE_NR ? at.c1 - jr : ANE_NR;

		for (ir = 0; ir < at.mlen; ir += ANE_MR) {
			uint32_t rows = at.mlen - ir < ANE_MR ? at.mlen - ir : ANE_MR;

			/* with depth blocks the tile's partial sums wait at pc */
			t = pc ? pc + (uint64_t)ir * p->nbc * p->nc +
				 (uint64_t)(at.pcol + jr) * ANE_MR : tile;
			ane_kernel_6x8(K, pa + (uint64_t)ir * K * 4, bp, t,
				       pc && at.kb);
			if (!pc || at.kb + 1 == p->kblocks)
				ane_gemm_store_tile(&g, t, ANE_NR, ane_col_pos,
						    at.m0 + ir, rows, at.n0 + jr,
						    cols);
		}
	}
}

#endif /* __CHECKER__ */
