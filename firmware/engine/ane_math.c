// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floating-point half of the engine's math: the scalar functions
 * (fp16 conversion, exp, tanh, sigmoid, erfc, the activations) and the
 * entry points that run a chunk; the GEMM is in ane_math_gemm.c, the row
 * operations (convolution by rows, elementwise, pooling, softmax) in
 * ane_math_rows.c, what they share in ane_math_fpu.h.  All three are
 * built the same way.
 *
 * In the kernel each object is built with $(CC_FLAGS_FPU) and without
 * $(CC_FLAGS_NO_FPU), and everything here runs between kernel_fpu_begin()
 * and kernel_fpu_end().  So: no kernel calls, no libm, no <linux/fpu.h>;
 * only SSE/SSE2 on x86_64, which GCC's vector extension (ane_v4, four
 * floats) maps onto without intrinsics headers.  Built with ANE_MATH_AVX2
 * defined, the GEMM hands its chunks to ane_math_avx2.c when ane_math_isa says
 * so (see ane_math_set_isa()), and built with ANE_MATH_AVX512 as well, to
 * ane_math_avx512.c; the plan, and so the chunks and the
 * workspace, are the same either way.  The kernel's FPU code
 * runs with an 8-byte preferred stack boundary: vectors meet memory through
 * __builtin_memcpy (unaligned) or in the 64-byte-aligned workspace, and
 * where GCC spills one it realigns that function's frame itself.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_fpu.h"

/*
 * sparse cannot parse GCC vector extensions, which the hot loops here are
 * made of.  Nothing in this file is what sparse checks for: it calls no
 * kernel function, holds no lock, and has no __user, __iomem or endian
 * annotated data (see Documentation/accel/ane/engine.rst), so the checker
 * sees an empty unit.
 */
#ifndef __CHECKER__

/* The ISAs this object can run (see ane_math_set_isa()). */
const uint32_t ane_math_isas_built = (1u << ANE_MATH_ISA_SSE2)
#ifdef ANE_MATH_AVX2
	| (1u << ANE_MATH_ISA_AVX2_FMA)
#endif
#ifdef ANE_MATH_AVX512
	| (1u << ANE_MATH_ISA_AVX512)
#endif
	;

/* ------------------------------------------------------------ scalars */

float ane_fp16_to_fp32(uint16_t h)
{
	return ane_h2f(h);
}

uint16_t ane_fp32_to_fp16(float f)
{
	return ane_f2h(f);
}

/*
 * e^(hi + lo): (hi + lo) = n ln2 + r with ln2 in two parts (Cody-Waite),
 * hi - n ln2_hi formed first, and |r| <= ln2/2, then e^r = 1 + r + r^2
 * P(r) (Cephes' expf polynomial, about 1 ulp), scaled by 2^n in two steps
 * so that results in the subnormal range and n = 128 need no special
 * case; 0 below -103.97.  The GELU passes hi = -xh^2 / 2, exact (xh has
 * 12 significant bits) and as low as -200, and lo the rest of the erfc's
 * exponent (|lo| < 2): hi - n ln2_hi is exact (both are multiples of
 * 2^-16 and their difference is below 2), so the large hi adds no
 * rounding, and one exponential does what e^hi e^lo did with two.
 */
static float ane_exp2f(float hi, float lo)
{
	float x = hi + lo, fn, r, z, p;
	int n, n1;

	if (x < -103.97208404541015625f)
		return 0.0f;
	fn = x * 1.44269504088896341f;
	n = (int)(fn + (fn < 0 ? -0.5f : 0.5f));
	fn = (float)n;
	r = (hi - fn * 0.693359375f) + lo;
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

/*
 * exp(x), ane_exp2f(x, 0): adding the zero changes only the sign of a
 * zero r, whose e^r is 1 either way, so the bits are those of the
 * polynomial on x alone.
 */
float ane_expf(float x)
{
	if (x != x)
		return x;
	if (x > 88.72283935546875f)
		return ANE_INF;
	return ane_exp2f(x, 0.0f);
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
	r = t * ane_exp2f(-0.5f * xh * xh, r);	/* erfc(|x|/sqrt 2) */
	return x >= 0 ? x - 0.5f * x * r : 0.5f * x * r;
}

typedef int32_t ane_i4 __attribute__((vector_size(16)));

/* ane_sel4(), ane_expf4(), ane_gelu4() */
#define ANE_VF		ane_v4
#define ANE_VI		ane_i4
#define ANE_VN(name)	name##4
#define ANE_VSPLAT(x)	((ane_v4){ (x), (x), (x), (x) })
#include "ane_math_vec.h"
#undef ANE_VF
#undef ANE_VI
#undef ANE_VN
#undef ANE_VSPLAT

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
void ane_act_vec(uint32_t act, float *v, uint32_t n)
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
		for (i = 0; i + 4 <= n; i += 4) {	/* four lanes at a time */
			ane_v4 x;

			__builtin_memcpy(&x, v + i, sizeof(x));
			x = ane_gelu4(x);
			__builtin_memcpy(v + i, &x, sizeof(x));
		}
		for (; i < n; i++)
			v[i] = ane_gelu(v[i]);
		break;
	default:	/* ANE_ACT_GELU_TANH */
		for (i = 0; i < n; i++)
			v[i] = ane_gelu_tanh(v[i]);
		break;
	}
}

/* ------------------------------------------------------------ API */

static int ane_op_run_plan(const struct ane_op_desc *d,
			   const struct ane_plan *p, uint64_t chunk)
{
	if (chunk >= p->chunks)
		return -ANE_MATH_EINVAL;
	if (p->kind == ANE_PLAN_GEMM && d->op == ANE_OP_MATMUL && d->bias.base) {
		/* the GEMM stores the plain product; the epilogue adds the rest */
		struct ane_op_desc g = *d;

		g.act = ANE_ACT_NONE;
		ane_run_gemm(&g, p, chunk);
		ane_gemm_epilogue(d, p, chunk);
	} else if (p->kind == ANE_PLAN_GEMM) {
		ane_run_gemm(d, p, chunk);
	} else
		ane_run_rows(d, p, chunk);
	return 0;
}

int ane_op_run(const struct ane_op_desc *d, uint64_t chunk)
{
	struct ane_plan p;

	ane_plan_make(d, &p);
	return ane_op_run_plan(d, &p, chunk);
}

int ane_op_run_planned(const struct ane_op_desc *d,
		       const struct ane_op_plan *plan, uint64_t chunk)
{
	struct ane_plan p;

	__builtin_memcpy(&p, plan, sizeof(p));
	return ane_op_run_plan(d, &p, chunk);
}

int ane_op_run_all(const struct ane_op_desc *d)
{
	struct ane_plan p;
	uint64_t i;
	int ret;

	ane_plan_make(d, &p);
	for (i = 0; i < p.chunks; i++) {
		ret = ane_op_run_plan(d, &p, i);
		if (ret)
			return ret;
	}
	return 0;
}

#endif /* __CHECKER__ */
