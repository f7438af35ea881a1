// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floating-point half of the engine's math: the operations themselves.
 *
 * In the kernel this object is built with $(CC_FLAGS_FPU) and without
 * $(CC_FLAGS_NO_FPU), and everything here runs between kernel_fpu_begin()
 * and kernel_fpu_end().  So: no kernel calls, no libm, no <linux/fpu.h>;
 * only SSE/SSE2 on x86_64, which GCC's vector extension (ane_v4, four
 * floats) maps onto without intrinsics headers.  Built with ANE_MATH_AVX2
 * defined, it hands GEMM chunks to ane_math_avx2.c when ane_math_isa says
 * so (see ane_math_set_isa()); the plan, and so the chunks and the
 * workspace, are the same either way.  The kernel's FPU code
 * runs with an 8-byte preferred stack boundary: vectors meet memory through
 * __builtin_memcpy (unaligned) or in the 64-byte-aligned workspace, and
 * where GCC spills one it realigns that function's frame itself.
 *
 * Copyright (C) 2026 The ane authors
 */

#define ANE_MATH_FPU
#include "ane_math_impl.h"

/*
 * sparse cannot parse GCC vector extensions, which the hot loops here are
 * made of.  Nothing in this file is what sparse checks for: it calls no
 * kernel function, holds no lock, and has no __user, __iomem or endian
 * annotated data (see Documentation/accel/ane/engine.rst), so the checker
 * sees an empty unit.
 */
#ifndef __CHECKER__

typedef float ane_v4 __attribute__((vector_size(16)));

/* The ISAs this object can run (see ane_math_set_isa()). */
const uint32_t ane_math_isas_built = (1u << ANE_MATH_ISA_SSE2)
#ifdef ANE_MATH_AVX2
	| (1u << ANE_MATH_ISA_AVX2_FMA)
#endif
	;

/* ------------------------------------------------------------ scalars */

static inline float ane_bits_f(uint32_t u)
{
	union { uint32_t u; float f; } v = { .u = u };

	return v.f;
}

static inline uint32_t ane_f_bits(float f)
{
	union { float f; uint32_t u; } v = { .f = f };

	return v.u;
}

#define ANE_INF		ane_bits_f(0x7f800000u)

static inline float ane_fabsf(float x)
{
	return ane_bits_f(ane_f_bits(x) & 0x7fffffffu);
}

/*
 * fp16 <-> fp32 for the hot loops, without branches (zeros and small
 * values after a ReLU would make a branchy version mispredict), using the
 * FPU's own round-to-nearest-even: the method of Marat Dukhan's FP16
 * library.  They agree bit for bit with ane_fp16_to_fp32_bits() and
 * ane_fp16_from_fp32_bits() except that a signalling NaN comes out quiet
 * (the tests check every fp16 value and the fp32 ties).  They rely on the
 * default MXCSR (round to nearest, no flush-to-zero), which
 * kernel_fpu_begin() sets.
 */
static inline float ane_h2f(uint16_t h)
{
	uint32_t w = (uint32_t)h << 16, two_w = w + w;
	float norm = ane_bits_f((two_w >> 4) + (0xe0u << 23)) *
		     ane_bits_f(0x07800000u);			/* 2^-112 */
	float denorm = ane_bits_f((two_w >> 17) | (126u << 23)) - 0.5f;

	return ane_bits_f((w & 0x80000000u) |
			  (two_w < (1u << 27) ? ane_f_bits(denorm) :
						ane_f_bits(norm)));
}

static inline uint16_t ane_f2h(float f)
{
	uint32_t w = ane_f_bits(f), two_w = w + w;
	uint32_t bias = two_w & 0xff000000u, bits;
	float base = ane_fabsf(f) * ane_bits_f(0x77800000u);	/* 2^112 */

	base *= ane_bits_f(0x08800000u);			/* 2^-110 */
	if (bias < 0x71000000u)
		bias = 0x71000000u;
	base += ane_bits_f((bias >> 1) + 0x07800000u);
	bits = ane_f_bits(base);
	bits = ((bits >> 13) & 0x7c00u) + (bits & 0x0fffu);
	if (two_w > 0xff000000u)				/* NaN */
		bits = 0x7e00u | ((w >> 13) & 0x3ffu);
	return (uint16_t)((w >> 16 & 0x8000u) | bits);
}

typedef uint32_t ane_u4 __attribute__((vector_size(16)));

/*
 * ane_h2f() on four lanes at once: each lane's low 16 bits hold an fp16
 * (the high bits are ignored).  SSE2 integer and float operations only.
 */
static inline ane_v4 ane_h2f4(ane_u4 h)
{
	const ane_u4 scale = { 0x07800000u, 0x07800000u, 0x07800000u,
			       0x07800000u };			/* 2^-112 */
	const ane_v4 half = { 0.5f, 0.5f, 0.5f, 0.5f };
	ane_u4 w = h << 16, two_w = w + w, sub, r;
	ane_v4 norm, denorm;

	norm = (ane_v4)((two_w >> 4) + (0xe0u << 23)) * (ane_v4)scale;
	denorm = (ane_v4)((two_w >> 17) | (126u << 23)) - half;
	sub = (ane_u4)((two_w >> 27) == 0);
	r = (w & 0x80000000u) | (((ane_u4)denorm & sub) | ((ane_u4)norm & ~sub));
	return (ane_v4)r;
}

/*
 * Eight consecutive fp16 values at @p as fp32, evens in *@even (elements
 * 0, 2, 4, 6) and odds in *@odd: one unaligned 16-byte load, no shuffle.
 */
static inline void ane_h2f8(const uint16_t *p, ane_v4 *even, ane_v4 *odd)
{
	ane_u4 v;

	__builtin_memcpy(&v, p, 16);
	*even = ane_h2f4(v);
	*odd = ane_h2f4(v >> 16);
}

float ane_fp16_to_fp32(uint16_t h)
{
	return ane_h2f(h);
}

uint16_t ane_fp32_to_fp16(float f)
{
	return ane_f2h(f);
}

/*
 * exp(x): x = n ln2 + r with ln2 in two parts (Cody-Waite) and
 * |r| <= ln2/2, then e^r = 1 + r + r^2 P(r) (Cephes' expf polynomial,
 * about 1 ulp), scaled by 2^n in two steps so that results in the
 * subnormal range and n = 128 need no special case.
 */
float ane_expf(float x)
{
	float fn, r, z, p;
	int n, n1;

	if (x != x)
		return x;
	if (x > 88.72283935546875f)
		return ANE_INF;
	if (x < -103.97208404541015625f)
		return 0.0f;
	fn = x * 1.44269504088896341f;
	n = (int)(fn + (fn < 0 ? -0.5f : 0.5f));
	fn = (float)n;
	r = x - fn * 0.693359375f;
	r = r + fn * 2.12194440e-4f;
	z = r * r;
	p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r +
	       8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
	     1.6666665459e-1f) * r + 5.0000001201e-1f;
	p = p * z + r + 1.0f;
	n1 = n / 2;
	p *= ane_bits_f((uint32_t)(n1 + 127) << 23);
	return p * ane_bits_f((uint32_t)(n - n1 + 127) << 23);
}

/* tanh: Cephes' odd polynomial below 0.625, 1 - 2/(e^2|x| + 1) above. */
float ane_tanhf(float x)
{
	float z = ane_fabsf(x), s;

	if (z > 9.0f)		/* tanh(9) rounds to 1 in fp32 */
		return x < 0 ? -1.0f : 1.0f;
	if (z >= 0.625f) {
		s = ane_expf(z + z);
		z = 1.0f - 2.0f / (s + 1.0f);
		return x < 0 ? -z : z;
	}
	s = x * x;
	return ((((-5.70498872745e-3f * s + 2.06390887954e-2f) * s -
		  5.37397155531e-2f) * s + 1.33314422036e-1f) * s -
		3.33332819422e-1f) * s * x + x;
}

/* 1 / (1 + e^-x), written so that neither side cancels or overflows. */
float ane_sigmoidf(float x)
{
	float e;

	if (x >= 0)
		return 1.0f / (1.0f + ane_expf(-x));
	e = ane_expf(x);
	return e / (1.0f + e);
}

/*
 * erfc(x) by the Chebyshev fit of Numerical Recipes ("erfcc"): fractional
 * error below 1.2e-7 for x >= 0; erfc(-x) = 2 - erfc(x).  exp(-z^2) is
 * taken as exp(-zh^2) exp(-(z - zh)(z + zh)) with zh holding the top 12
 * bits of z, so zh^2 is exact and the argument's rounding error does not
 * grow with z^2.
 */
float ane_erfcf(float x)
{
	float z = ane_fabsf(x), zh, t, r;

	if (z > 10.0f)			/* erfc(10) = 2e-45: 0 in fp32 */
		return x != x ? x : x > 0 ? 0.0f : 2.0f;
	zh = ane_bits_f(ane_f_bits(z) & 0xfffff000u);
	t = 1.0f / (1.0f + 0.5f * z);
	r = -(z - zh) * (z + zh) - 1.26551223f +
		t * (1.00002368f + t * (0.37409196f + t * (0.09678418f +
		t * (-0.18628806f + t * (0.27886807f + t * (-1.13520398f +
		t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
	r = t * ane_expf(-zh * zh) * ane_expf(r);
	return x >= 0 ? r : 2.0f - r;
}

/*
 * GELU, exact: x Phi(x) with Phi(x) = erfc(-x/sqrt 2) / 2, erfc as in
 * ane_erfcf().  Here exp(-x^2/2) is split through x = xh + xl (xh the top
 * 12 bits): xh^2/2 is exact and the rest is small, so the tail keeps its
 * relative accuracy.
 */
static float ane_gelu(float x)
{
	float z, t, xh, xl, r;

	if (x < -20.0f)		/* x Phi(x) < 1e-87: -0 in fp32 */
		return -0.0f;
	if (x > 20.0f || x != x)
		return x;
	z = ane_fabsf(x) * 0.70710678118654752f;
	t = 1.0f / (1.0f + 0.5f * z);
	xh = ane_bits_f(ane_f_bits(x) & 0xfffff000u);
	xl = x - xh;
	r = -(xh * xl + 0.5f * xl * xl) - 1.26551223f +
		t * (1.00002368f + t * (0.37409196f + t * (0.09678418f +
		t * (-0.18628806f + t * (0.27886807f + t * (-1.13520398f +
		t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
	r = t * ane_expf(-0.5f * xh * xh) * ane_expf(r);	/* erfc(|x|/sqrt 2) */
	return x >= 0 ? x - 0.5f * x * r : 0.5f * x * r;
}

/*
 * GELU, tanh form: x/2 (1 + tanh(u)) = x sigmoid(2u), which does not
 * cancel for x < 0.  2u grows like x^3, so it is formed in double and
 * e^(2u) taken as e^hi (1 + lo) from its two float halves.
 */
static float ane_gelu_tanh(float x)
{
	double xd = x, a;
	float ah, e;

	if (x < -20.0f)		/* x sigmoid(2u) < 1e-250: -0 in fp32 */
		return -0.0f;
	if (x > 20.0f || x != x)
		return x;
	a = 1.5957691216057308 * (xd + 0.044715 * xd * xd * xd);
	if (a >= 0)
		return x / (1.0f + ane_expf((float)-a));
	ah = (float)a;
	e = ane_expf(ah) * (1.0f + (float)(a - ah));
	return x * e / (1.0f + e);
}

/*
 * ReLU and ReLU6 without branches (data-dependent branches mispredict on
 * real activations): masks from the comparisons.  NaN fails every
 * comparison and so passes through; -0 stays -0.
 */
static inline float ane_relu(float x)
{
	uint32_t neg = -(uint32_t)(x < 0.0f);

	return ane_bits_f(ane_f_bits(x) & ~neg);
}

static inline float ane_relu6(float x)
{
	uint32_t big = -(uint32_t)(x > 6.0f);

	x = ane_relu(x);
	return ane_bits_f((ane_f_bits(x) & ~big) | (0x40c00000u & big));
}

float ane_act(uint32_t act, float x)
{
	switch (act) {
	case ANE_ACT_RELU:
		return ane_relu(x);
	case ANE_ACT_RELU6:
		return ane_relu6(x);
	case ANE_ACT_SIGMOID:
		return ane_sigmoidf(x);
	case ANE_ACT_TANH:
		return ane_tanhf(x);
	case ANE_ACT_GELU:
		return ane_gelu(x);
	case ANE_ACT_GELU_TANH:
		return ane_gelu_tanh(x);
	default:
		return x;
	}
}

/* ane_act() over an array, with the choice made once. */
static void ane_act_vec(uint32_t act, float *v, uint32_t n)
{
	uint32_t i;

	switch (act) {
	case ANE_ACT_NONE:
		break;
	case ANE_ACT_RELU:
		for (i = 0; i < n; i++)
			v[i] = ane_relu(v[i]);
		break;
	case ANE_ACT_RELU6:
		for (i = 0; i < n; i++)
			v[i] = ane_relu6(v[i]);
		break;
	case ANE_ACT_SIGMOID:
		for (i = 0; i < n; i++)
			v[i] = ane_sigmoidf(v[i]);
		break;
	case ANE_ACT_TANH:
		for (i = 0; i < n; i++)
			v[i] = ane_tanhf(v[i]);
		break;
	case ANE_ACT_GELU:
		for (i = 0; i < n; i++)
			v[i] = ane_gelu(v[i]);
		break;
	default:	/* ANE_ACT_GELU_TANH */
		for (i = 0; i < n; i++)
			v[i] = ane_gelu_tanh(v[i]);
		break;
	}
}

/* Elementwise and row operations work through stack blocks of this size. */
#define ANE_BLOCK	64u

/* ------------------------------------------------------------ tensors */

static inline const uint16_t *ane_src(const struct ane_tensor *t)
{
	return (const uint16_t *)t->base;
}

/* Stride along @dim, 0 where the tensor broadcasts (extent 1). */
static inline uint64_t ane_bstride(const struct ane_tensor *t, unsigned int dim)
{
	return t->dim[dim] == 1 ? 0 : t->stride[dim];
}

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
	uint32_t npanels = (nlen + ANE_NR - 1) / ANE_NR, jp, j, ci, kh, kw;

	if (jp1 > npanels)
		jp1 = npanels;
	for (jp = jp0; jp < jp1; jp++) {
		int64_t ih0[ANE_NR], iw0[ANE_NR];
		float *dst = pb + (uint64_t)jp * ANE_NR * K;
		int row = 0;	/* all eight columns in one output row, sw 1 */

		for (j = 0; j < ANE_NR; j++) {
			uint32_t col = jp * ANE_NR + j;

			if (col < nlen) {
				col += n0;
				ih0[j] = (int64_t)(col / g->wo) * g->sh - g->pt;
				iw0[j] = (int64_t)(col % g->wo) * g->sw - g->pl;
			} else {
				ih0[j] = -((int64_t)1 << 40);	/* never valid */
				iw0[j] = 0;
			}
		}
		if (jp * ANE_NR + ANE_NR <= nlen && ih0[ANE_NR - 1] == ih0[0] &&
		    g->sw == 1 && g->x_sw == 1)
			row = 1;
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
 * and a B panel (8 floats per k) over the whole depth K, written to @tile
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
			   float *tile)
{
	const ane_v4 *av = (const ane_v4 *)a, *bv = (const ane_v4 *)b;
	ane_v4 c[2 * ANE_MR] = { { 0 } };
	uint32_t k;

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

static void ane_run_gemm(const struct ane_op_desc *d, const struct ane_plan *p,
			 uint64_t chunk)
{
	uint64_t per_block = (uint64_t)p->nbpack + (uint64_t)p->mblocks * p->nsub;
	uint64_t t = chunk % per_block, pj = chunk / per_block;
	uint32_t jb = (uint32_t)(pj % p->nblocks);
	uint64_t prob = pj / p->nblocks;
	uint32_t K = p->K, n0 = jb * p->nc;
	uint32_t nlen = p->N - n0 < p->nc ? p->N - n0 : p->nc;
	uint32_t sub, ib, m0, mlen, c0, c1, ir, jr;
	float *pa = (float *)d->work;
	float *pb = (float *)((char *)d->work + p->b_off);
	float tile[ANE_MR * ANE_NR];
	struct ane_gemm g;
#ifdef ANE_MATH_AVX2
	int avx2 = ane_math_isa == ANE_MATH_ISA_AVX2_FMA;
	struct ane_gemm_chunk gc = { .K = K, .n0 = n0, .nlen = nlen,
				     .pa = pa, .pb = pb };
#endif

	ane_gemm_setup(d, prob, p, &g);
	if (t < p->nbpack) {
		/* a packing chunk of this B block: units of ANE_NU columns */
		uint32_t u0 = (uint32_t)t * p->bppc, u1 = u0 + p->bppc;

#ifdef ANE_MATH_AVX2
		if (avx2) {
			gc.u0 = u0;
			gc.u1 = u1;
			ane_gemm_chunk_avx2(&g, &gc);
			return;
		}
#endif
		ane_pack_b(&g, K, n0, nlen, pb, u0 * (ANE_NU / ANE_NR),
			   u1 * (ANE_NU / ANE_NR));
		return;
	}
	t -= p->nbpack;
	sub = (uint32_t)(t % p->nsub);
	ib = (uint32_t)(t / p->nsub);
	m0 = ib * p->mc;
	mlen = p->M - m0 < p->mc ? p->M - m0 : p->mc;
	c0 = sub * p->ncc;
	c1 = c0 + p->ncc < nlen ? c0 + p->ncc : nlen;
#ifdef ANE_MATH_AVX2
	if (avx2) {
		gc.compute = 1;
		gc.pack_a = sub == 0;
		gc.m0 = m0;
		gc.mlen = mlen;
		gc.c0 = c0;
		gc.c1 = c1;
		ane_gemm_chunk_avx2(&g, &gc);
		return;
	}
#endif
	/* The first chunk of an A block packs it for the ones that follow. */
	if (sub == 0)
		ane_pack_a(&g, K, m0, mlen, pa);
	for (jr = c0; jr < c1; jr += ANE_NR) {
		const float *bp = pb + (uint64_t)jr * K;
		uint32_t cols = c1 - jr < ANE_NR ? c1 - jr : ANE_NR;

		for (ir = 0; ir < mlen; ir += ANE_MR) {
			uint32_t rows = mlen - ir < ANE_MR ? mlen - ir : ANE_MR;

			ane_kernel_6x8(K, pa + (uint64_t)ir * K * 4, bp, tile);
			ane_gemm_store_tile(&g, tile, ANE_NR, ane_col_pos, m0 + ir,
					    rows, n0 + jr, cols);
		}
	}
}

/* ------------------------------------------------------------ row ops */

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

/* Whether an fp16 is infinite or NaN: its exponent all ones. */
static inline int ane_h_nonfinite(uint16_t h)
{
	return (h & 0x7c00u) == 0x7c00u;
}

/*
 * Whether output channel @co has an infinite or NaN weight, remembered in
 * @nf for the channel of the last call (rows of one channel follow each
 * other within a chunk): an integer scan of its cin_g x KH x KW taps.
 */
struct ane_conv_nf {
	int64_t co;		/* the channel @any is for; -1: none yet */
	uint32_t any;
};

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
static void ane_conv_seg(const struct ane_op_desc *d, uint64_t row,
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
	uint32_t ci, kh, kw, ow, i, len = o1 - o0;
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

		for (kh = 0; kh < kh_n; kh++) {
			int64_t ih = (int64_t)oh * cp->stride[0] - cp->pad[ANE_PAD_TOP] +
				     (int64_t)kh * cp->dilation[0];
			const uint16_t *xr;

			if (ih < 0 || ih >= x->dim[ANE_H])
				continue;
			xr = xc + (uint64_t)ih * x->stride[ANE_H] +
			     (uint64_t)i_lo * x->stride[ANE_W];
			for (i = 0; i < i_hi - i_lo; i++)
				in[i] = ane_h2f(xr[(uint64_t)i * x->stride[ANE_W]]);
			for (kw = 0; kw < kw_n; kw++) {
				float wt = ane_h2f(wc[kh * w->stride[ANE_H] +
						      kw * w->stride[ANE_W]]);
				int64_t off = (int64_t)kw * dw - pl, lo = o0, hi = o1;

				/* ow such that 0 <= ow*sw + off < W */
				if (off < 0 && (-off + sw - 1) / sw > lo)
					lo = (-off + sw - 1) / sw;
				if (W - off <= 0)
					continue;
				if ((W - off + sw - 1) / sw < hi)
					hi = (W - off + sw - 1) / sw;
				if (lo >= hi)
					continue;
				if (sw == 1) {
					ane_axpy(acc + (lo - o0), in + (lo + off - i_lo),
						 wt, (uint32_t)(hi - lo));
					continue;
				}
				for (ow = (uint32_t)lo; ow < hi; ow++)
					acc[ow - o0] += wt * in[(int64_t)ow * sw + off - i_lo];
			}
		}
	}
	if (padded && ane_conv_w_nonfinite(w, co, cin_g, nf))
		ane_conv_pad_nonfinite(d, co, oh, o0, o1, acc);
	yr = (uint16_t *)y->base + n * y->stride[ANE_N] +
	     (uint64_t)co * y->stride[ANE_C] + (uint64_t)oh * y->stride[ANE_H];
	ane_act_vec(d->act, acc, len);
	for (i = 0; i < len; i++)
		yr[(uint64_t)(o0 + i) * y->stride[ANE_W]] = ane_f2h(acc[i]);
}

/* a[i] = a[i] OP b[i]; MAX and MIN let a NaN in either operand through. */
static void ane_elt_vec(uint32_t op, float *a, const float *b, uint32_t n)
{
	uint32_t i;

	switch (op) {
	case ANE_ELT_ADD:
		for (i = 0; i < n; i++)
			a[i] += b[i];
		break;
	case ANE_ELT_SUB:
		for (i = 0; i < n; i++)
			a[i] -= b[i];
		break;
	case ANE_ELT_MUL:
		for (i = 0; i < n; i++)
			a[i] *= b[i];
		break;
	case ANE_ELT_MAX:
		for (i = 0; i < n; i++) {
			float r = a[i] > b[i] ? a[i] : b[i];	/* NaN in b wins */

			a[i] = a[i] != a[i] ? a[i] : r;		/* NaN in a wins */
		}
		break;
	default:	/* ANE_ELT_MIN */
		for (i = 0; i < n; i++) {
			float r = a[i] < b[i] ? a[i] : b[i];

			a[i] = a[i] != a[i] ? a[i] : r;
		}
		break;
	}
}

/* Elements [o0, o1) of dst row (n, c, h) of ELTWISE or ACT, by blocks. */
static void ane_eltwise_seg(const struct ane_op_desc *d, uint64_t row,
			    uint32_t o0, uint32_t o1)
{
	const struct ane_tensor *y = &d->dst, *a = &d->src[0], *b = &d->src[1];
	uint64_t h = row % y->dim[ANE_H], t = row / y->dim[ANE_H];
	uint64_t c = t % y->dim[ANE_C], n = t / y->dim[ANE_C];
	uint16_t *yr = (uint16_t *)y->base + n * y->stride[ANE_N] +
		       c * y->stride[ANE_C] + h * y->stride[ANE_H];
	const uint16_t *ar = ane_src(a) + n * ane_bstride(a, ANE_N) +
			     c * ane_bstride(a, ANE_C) + h * ane_bstride(a, ANE_H);
	const uint16_t *br = NULL;
	uint64_t as = ane_bstride(a, ANE_W), bs = 0, ys = y->stride[ANE_W];
	uint32_t i0, i, len;
	float va[ANE_BLOCK], vb[ANE_BLOCK];

	if (d->op == ANE_OP_ELTWISE) {
		br = ane_src(b) + n * ane_bstride(b, ANE_N) +
		     c * ane_bstride(b, ANE_C) + h * ane_bstride(b, ANE_H);
		bs = ane_bstride(b, ANE_W);
	}
	for (i0 = o0; i0 < o1; i0 += len) {
		len = o1 - i0 < ANE_BLOCK ? o1 - i0 : ANE_BLOCK;
		for (i = 0; i < len; i++)
			va[i] = ane_h2f(ar[(uint64_t)(i0 + i) * as]);
		if (br) {
			for (i = 0; i < len; i++)
				vb[i] = ane_h2f(br[(uint64_t)(i0 + i) * bs]);
			ane_elt_vec(d->p.eltwise.op, va, vb, len);
		}
		ane_act_vec(d->act, va, len);
		for (i = 0; i < len; i++)
			yr[(uint64_t)(i0 + i) * ys] = ane_f2h(va[i]);
	}
}

/* Outputs [o0, o1) of dst row (n, c, oh) of POOL. */
static void ane_pool_seg(const struct ane_op_desc *d, uint64_t row,
			 uint32_t o0, uint32_t o1)
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
	float full = (float)(pp->kernel[0] * pp->kernel[1]);
	float out[ANE_BLOCK];
	uint32_t ow, j;

	for (ow = o0; ow < o1; ow++) {
		int64_t w0 = (int64_t)ow * pp->stride[1] - pp->pad[ANE_PAD_LEFT];
		int64_t w1 = w0 + pp->kernel[1], wl = w0 < 0 ? 0 : w0;
		int64_t wh = w1 > W ? W : w1, ih, iw;
		const uint16_t *xr = xp + hl * xs_h + wl * xs_w;
		float r;

		if (pp->kind == ANE_POOL_MAX) {
			uint32_t nan = 0;

			/* branch-free: maxss, and NaN noted on the side */
			r = -ANE_INF;
			for (ih = hl; ih < hh; ih++, xr += xs_h) {
				const uint16_t *xe = xr;

				for (iw = wl; iw < wh; iw++, xe += xs_w) {
					float v = ane_h2f(*xe);

					nan |= v != v;
					r = v > r ? v : r;
				}
			}
			if (nan)
				r = ane_bits_f(0x7fc00000u);
		} else {
			r = 0.0f;
			for (ih = hl; ih < hh; ih++, xr += xs_h) {
				const uint16_t *xe = xr;

				for (iw = wl; iw < wh; iw++, xe += xs_w)
					r += ane_h2f(*xe);
			}
			r = r / ((pp->flags & ANE_POOL_AVG_INCLUDE_PAD) ? full :
				 (float)((hh - hl) * (wh - wl)));
		}
		out[ow - o0] = r;
		if (ow + 1 - o0 == ANE_BLOCK || ow + 1 == o1) {
			ane_act_vec(d->act, out, ow + 1 - o0);
			for (j = o0; j <= ow; j++)
				yr[j * y->stride[ANE_W]] = ane_f2h(out[j - o0]);
			o0 = ow + 1;
		}
	}
}

/* Softmax over C at one position (n, h, w); @e holds C floats. */
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
	float mx = -ANE_INF, sum = 0.0f, inv;

	for (c = 0; c < C; c++) {
		e[c] = ane_h2f(xw[(uint64_t)c * x->stride[ANE_C]]);
		mx = e[c] > mx ? e[c] : mx;
	}
	/* subtract the max: every exponent <= 0, the sum in [1, C] */
	for (c = 0; c < C; c++) {
		e[c] = ane_expf(e[c] - mx);
		sum += e[c];
	}
	inv = 1.0f / sum;
	for (c = 0; c < C; c++)
		yw[(uint64_t)c * y->stride[ANE_C]] = ane_f2h(e[c] * inv);
}

/* Work units [chunk * per, ...) of a ROWS plan: a row segment each. */
static void ane_run_rows(const struct ane_op_desc *d, const struct ane_plan *p,
			 uint64_t chunk)
{
	uint64_t u = chunk * p->rows_per_chunk;
	uint64_t end = u + p->rows_per_chunk < p->rows ? u + p->rows_per_chunk :
		       p->rows;
	float *work = (float *)d->work;
	struct ane_conv_nf nf = { .co = -1 };

	for (; u < end; u++) {
		uint64_t row = u / p->nseg;
		uint32_t o0 = (uint32_t)(u % p->nseg) * p->seg_w;
		uint32_t o1 = o0 + p->seg_w < p->width ? o0 + p->seg_w : p->width;

		switch (d->op) {
		case ANE_OP_CONV:
			ane_conv_seg(d, row, o0, o1, work,
				     (float *)((char *)d->work + p->b_off), &nf);
			break;
		case ANE_OP_POOL:
			ane_pool_seg(d, row, o0, o1);
			break;
		case ANE_OP_SOFTMAX:
			ane_softmax_pos(d, row, work);
			break;
		default:
			ane_eltwise_seg(d, row, o0, o1);
			break;
		}
	}
}

/* ------------------------------------------------------------ API */

int ane_op_run(const struct ane_op_desc *d, uint64_t chunk)
{
	struct ane_plan p;

	ane_plan_make(d, &p);
	if (chunk >= p.chunks)
		return -ANE_MATH_EINVAL;
	if (p.kind == ANE_PLAN_GEMM)
		ane_run_gemm(d, &p, chunk);
	else
		ane_run_rows(d, &p, chunk);
	return 0;
}

int ane_op_run_all(const struct ane_op_desc *d)
{
	uint64_t n = ane_op_chunks(d), i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ane_op_run(d, i);
		if (ret)
			return ret;
	}
	return 0;
}

#endif /* __CHECKER__ */
