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
 * e^x: x = n ln2 + r with ln2 in two parts (Cody-Waite), |r| <= ln2/2,
 * then e^r = 1 + r + r^2 P(r) (Cephes' expf polynomial, about 1 ulp),
 * scaled by 2^n in two steps so that results in the subnormal range and
 * n = 128 need no special case; 0 below -103.97.
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
	ANE_EXPF_CORE(x, fn, r, z, p);
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
 * The exact GELU's table (ane_math_impl.h): piece j of the upper normal
 * tail Q(a) = erfc(a / sqrt 2) / 2 is the degree-6 polynomial through
 * Q at the seven Chebyshev points of [c - 0.0956, c + 0.0956], c = (j +
 * 1/2) 3/16 (the piece and a little more: a * 5.333333 may index the
 * piece below), fitted in long double and rounded to float.  64-byte
 * aligned, so that a row's two halves are each one cache line.
 */
const float ane_gelu_tab[ANE_GELU_DEG + 1][ANE_GELU_PIECES]
	__attribute__((aligned(64))) = {
	{	/* d^0 */
		4.62653875e-01f, 3.89259338e-01f, 3.19624186e-01f,
		2.55831629e-01f, 1.99404567e-01f, 1.51211798e-01f,
		1.11469544e-01f, 7.98249543e-02f, 5.54960184e-02f,
		3.74358110e-02f, 2.44909041e-02f, 1.55320745e-02f,
		9.54548176e-03f, 5.68284048e-03f, 3.27645568e-03f,
		1.82894536e-03f, 9.88219748e-04f, 5.16740489e-04f,
		2.61442881e-04f, 1.27965890e-04f, 6.05842215e-05f,
		2.77404961e-05f, 1.22830243e-05f, 5.25877840e-06f,
		2.17675461e-06f, 8.71042744e-07f, 3.36929418e-07f,
		1.25972235e-07f, 4.55215563e-08f, 1.58978395e-08f,
		5.36552713e-09f, 1.74991366e-09f,
	},
	{	/* d^1 */
		-3.97192955e-01f, -3.83471757e-01f, -3.57434988e-01f,
		-3.21656674e-01f, -2.79460162e-01f, -2.34411582e-01f,
		-1.89832285e-01f, -1.48420170e-01f, -1.12033419e-01f,
		-8.16458464e-02f, -5.74450269e-02f, -3.90213802e-02f,
		-2.55908463e-02f, -1.62031148e-02f, -9.90476552e-03f,
		-5.84550062e-03f, -3.33066587e-03f, -1.83219730e-03f,
		-9.73072660e-04f, -4.98942100e-04f, -2.46994226e-04f,
		-1.18047108e-04f, -5.44697905e-05f, -2.42654260e-05f,
		-1.04364299e-05f, -4.33358991e-06f, -1.73730291e-06f,
		-6.72411431e-07f, -2.51261810e-07f, -9.06462247e-08f,
		-3.15721955e-08f, -1.06167528e-08f,
	},
	{	/* d^2 */
		1.86184198e-02f, 5.39257154e-02f, 8.37738216e-02f,
		1.05543591e-01f, 1.17897250e-01f, 1.20868474e-01f,
		1.15679048e-01f, 1.04357928e-01f, 8.92766342e-02f,
		7.27158338e-02f, 5.65474518e-02f, 4.20699269e-02f,
		2.99892724e-02f, 2.05070674e-02f, 1.34642897e-02f,
		8.49424303e-03f, 5.15212351e-03f, 3.00594862e-03f,
		1.68767292e-03f, 9.12128482e-04f, 4.74692031e-04f,
		2.37938701e-04f, 1.14897215e-04f, 5.34597639e-05f,
		2.39711735e-05f, 1.03599878e-05f, 4.31611170e-06f,
		1.73356057e-06f, 6.71340047e-07f, 2.50693404e-07f,
		9.02767212e-08f, 3.13525881e-08f,
	},
	{	/* d^3 */
		6.56169206e-02f, 5.88563606e-02f, 4.64828052e-02f,
		3.05217914e-02f, 1.34181296e-02f, -2.47988221e-03f,
		-1.53558385e-02f, -2.41810363e-02f, -2.87559424e-02f,
		-2.95673739e-02f, -2.75350995e-02f, -2.37342119e-02f,
		-1.91639978e-02f, -1.46023370e-02f, -1.05512328e-02f,
		-7.25455629e-03f, -4.75802040e-03f, -2.98239081e-03f,
		-1.78919162e-03f, -1.02849747e-03f, -5.67031326e-04f,
		-3.00053827e-04f, -1.52494584e-04f, -7.44739009e-05f,
		-3.49659022e-05f, -1.57886425e-05f, -6.85883197e-06f,
		-2.86739692e-06f, -1.15390242e-06f, -4.47087189e-07f,
		-1.66818580e-07f, -5.99519581e-08f,
	},
	{	/* d^4 */
		-4.64096153e-03f, -1.31259430e-02f, -1.94094852e-02f,
		-2.25980543e-02f, -2.24799030e-02f, -1.95053779e-02f,
		-1.46010937e-02f, -8.89183581e-03f, -3.42199393e-03f,
		1.04740763e-03f, 4.12784424e-03f, 5.78255625e-03f,
		6.23068120e-03f, 5.82268741e-03f, 4.92748665e-03f,
		3.85517860e-03f, 2.82134395e-03f, 1.94550224e-03f,
		1.27028779e-03f, 7.88091682e-04f, 4.65768244e-04f,
		2.62743037e-04f, 1.41685683e-04f, 7.31284163e-05f,
		3.61614038e-05f, 1.71459615e-05f, 7.80074879e-06f,
		3.40740348e-06f, 1.42968952e-06f, 5.76473610e-07f,
		2.23460532e-07f, 8.33009324e-08f,
	},
	{	/* d^5 */
		-9.73713305e-03f, -8.07609968e-03f, -5.14617609e-03f,
		-1.61397667e-03f, 1.77209603e-03f, 4.38226992e-03f,
		5.84914023e-03f, 6.11712830e-03f, 5.39742596e-03f,
		4.05970123e-03f, 2.50631943e-03f, 1.07005134e-03f,
		-4.15979157e-05f, -7.53303175e-04f, -1.09355280e-03f,
		-1.15073612e-03f, -1.03113789e-03f, -8.29251192e-04f,
		-6.13180513e-04f, -4.22483456e-04f, -2.73475074e-04f,
		-1.67220671e-04f, -9.69624089e-05f, -5.34679020e-05f,
		-2.80996192e-05f, -1.40981510e-05f, -6.76189575e-06f,
		-3.10385030e-06f, -1.36476547e-06f, -5.75274782e-07f,
		-2.32614909e-07f, -9.02794781e-08f,
	},
	{	/* d^6 */
		7.69689621e-04f, 2.12521292e-03f, 2.98498711e-03f,
		3.18409642e-03f, 2.74311122e-03f, 1.84380752e-03f,
		7.56735622e-04f, -2.48333905e-04f, -9.76198062e-04f,
		-1.34274387e-03f, -1.37030135e-03f, -1.15325209e-03f,
		-8.12681916e-04f, -4.57343966e-04f, -1.60857147e-04f,
		4.35197071e-05f, 1.55346424e-04f, 1.93781365e-04f,
		1.84763529e-04f, 1.52040288e-04f, 1.12823756e-04f,
		7.71209016e-05f, 4.91501560e-05f, 2.94288675e-05f,
		1.66405262e-05f, 8.91898071e-06f, 4.54379096e-06f,
		2.20495963e-06f, 1.02092224e-06f, 4.51631280e-07f,
		1.91099431e-07f, 7.74146471e-08f,
	},
};

/*
 * GELU, exact: x Phi(x) = x - x Q(x) for x > 0 and x Q(-x) else, Q
 * the upper normal tail, by pieces of 3/16 on [0, 6) (ane_gelu_tab):
 * no division and no exponential, only a lookup and a degree-6
 * polynomial in the offset from the piece's centre, which is exact.
 * From 6 on the result is x (x Q(x) is below half an ulp of x), below
 * -6 it is -0: |x Phi(x)| < 6e-9 there, under half of fp16's smallest
 * subnormal, so the fp16 result is the exact value's rounding.
 * The vector forms (ane_math_vec.h) do the same operations in the same
 * order on every lane.
 */
static float ane_gelu(float x)
{
	float a = ane_fabsf(x), d, p, r;
	int j, k;

	if (!(a < 6.0f))
		return x < 0 ? -0.0f : x;	/* NaN passes */
	j = (int)(a * 5.33333302f);
	d = a - ((float)j * 0.1875f + 0.09375f);
	p = ane_gelu_tab[ANE_GELU_DEG][j];
	for (k = ANE_GELU_DEG - 1; k >= 0; k--)
		p = p * d + ane_gelu_tab[k][j];
	r = x * p;
	return x > 0 ? x - r : r;	/* -0 stays -0 */
}

typedef int32_t ane_i4 __attribute__((vector_size(16)));

/* ane_sel4(), ane_expf4(), ane_gelu4() */
#define ANE_VF		ane_v4
#define ANE_VI		ane_i4
#define ANE_VN(name)	name##4
#define ANE_VSPLAT(x)	((ane_v4){ (x), (x), (x), (x) })
#include "ane_math_vec.h"
#undef ANE_VTAB
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
	case ANE_ACT_NONE:
		return x;
	default:	/* ANE_ACT_SILU on: ane_math_fn.c */
		return ane_act_fn(act, 0.0f, 0.0f, x);
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
	case ANE_ACT_RELU6:
		/* ane_relu() and ane_relu6()'s masks, four lanes at a time */
		for (i = 0; i + 4 <= n; i += 4) {
			const ane_i4 six = { 0x40c00000, 0x40c00000, 0x40c00000, 0x40c00000 };
			ane_v4 x;
			ane_i4 b, big;

			__builtin_memcpy(&x, v + i, sizeof(x));
			b = (ane_i4)x & ~(x < 0.0f);
			if (act == ANE_ACT_RELU6) {
				big = (ane_v4)b > 6.0f;
				b = (b & ~big) | (six & big);
			}
			__builtin_memcpy(v + i, &b, sizeof(b));
		}
		for (; i < n; i++)
			v[i] = act == ANE_ACT_RELU ? ane_relu(v[i]) : ane_relu6(v[i]);
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
	case ANE_ACT_GELU_TANH:
		for (i = 0; i < n; i++)
			v[i] = ane_gelu_tanh(v[i]);
		break;
	default:	/* ANE_ACT_SILU on, scalar on every path: ane_math_fn.c */
		ane_act_fn_vec(act, 0.0f, 0.0f, v, n);
		break;
	}
}

/* ------------------------------------------------------------ API */

static int ane_op_run_plan(const struct ane_op_desc *d,
			   const struct ane_plan *p, uint64_t chunk)
{
	if (chunk >= p->chunks)
		return -ANE_MATH_EINVAL;
	if (d->op == ANE_OP_COPY) {
		ane_run_copy(d, p, chunk);
	} else if (d->op == ANE_OP_GATHER) {
		ane_run_gather(d, p, chunk);
	} else if (d->op == ANE_OP_REDUCE) {
		ane_run_reduce(d, p, chunk);
	} else if (p->kind == ANE_PLAN_GEMM && d->op == ANE_OP_MATMUL && d->bias.base) {
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
