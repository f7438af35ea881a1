/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the floating-point objects of the engine's math
 * (ane_math.c, ane_math_gemm.c, ane_math_rows.c, ane_math_reduce.c): the
 * vector types, the
 * fp16 and scalar helpers every hot loop inlines, the tensor helpers and
 * what the three objects call of each other.  Only for code built with
 * the FPU flags (see ane_math.c); sparse does not see it (__CHECKER__).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_MATH_FPU_H
#define ANE_MATH_FPU_H

#define ANE_MATH_FPU
#include "ane_math_impl.h"

#ifndef __CHECKER__

typedef float ane_v4 __attribute__((vector_size(16)));

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

/* ane_math.c */
void ane_act_vec(uint32_t act, float *v, uint32_t n);

/* ane_math_fn.c: the activations from ANE_ACT_SILU on, and POW */
float ane_act_fn(uint32_t act, float alpha, float beta, float x);
void ane_act_fn_vec(uint32_t act, float alpha, float beta, float *v,
		    uint32_t n);
void ane_elt_vec(uint32_t op, float *a, const float *b, uint32_t n);
void ane_act_param_row(uint32_t act, const struct ane_act_params *ap,
		       const uint16_t *x, uint64_t xs, uint16_t *y,
		       uint64_t ys, uint32_t len);

/* ane_math_gemm.c: the chunks of a GEMM plan */
void ane_run_gemm(const struct ane_op_desc *d, const struct ane_plan *p,
		  uint64_t chunk);

/* Whether the AVX2 + F16C row loops may run (ane_math_rows_avx2.c). */
static inline int ane_rows_wide(void)
{
#ifdef ANE_MATH_AVX2
	return ane_math_isa >= ANE_MATH_ISA_AVX2_FMA;
#else
	return 0;
#endif
}

/* ane_math_rows.c: @n fp16 at stride @s to fp32, exactly */
void ane_h2f_row(const uint16_t *x, uint64_t s, uint32_t n, float *v);
/* ane_math_rows.c: y[i * s] = fp16(v[i] * mul) for @n values */
void ane_f2h_row(const float *v, float mul, uint32_t n, uint16_t *y,
		 uint64_t s);

/*
 * ane_math_conv_rows.c: work units [u, end) of a CONV's ROWS plan, the
 * plan's workspace at d->work (see ane_plan_make())
 */
void ane_conv_rows(const struct ane_op_desc *d, const struct ane_plan *p,
		   uint64_t u, uint64_t end);

/* ane_math_rows.c: the chunks of a ROWS plan */
void ane_run_rows(const struct ane_op_desc *d, const struct ane_plan *p,
		  uint64_t chunk);

/* ane_math_rows.c: a MATMUL's bias and activation after GEMM chunk @chunk */
void ane_gemm_epilogue(const struct ane_op_desc *d, const struct ane_plan *p,
		       uint64_t chunk);

/* ane_math_pool.c: outputs [o0, o1) of dst row @row of POOL */
void ane_pool_seg(const struct ane_op_desc *d, uint64_t row, uint32_t o0,
		  uint32_t o1);

/* ane_math_reduce.c: the chunks of a REDUCE plan */
void ane_run_reduce(const struct ane_op_desc *d, const struct ane_plan *p,
		    uint64_t chunk);
/* ane_math_reduce.c: layer normalization's epsilon (0: 1e-5) */
float ane_norm_eps(const struct ane_norm_params *np);
/*
 * ane_math_reduce.c: a log-softmax's row of @n from @x at stride @s:
 * e[i] = (x[i] - mx) - log(sum); returns 1, the factor of the row's store.
 */
float ane_log_softmax_row(float *e, const uint16_t *x, uint64_t s, uint32_t n,
			  float mx, float sum);

#endif /* __CHECKER__ */
#endif /* ANE_MATH_FPU_H */
