// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVX2 + F16C path of the engine's row operations: ELTWISE and ACT
 * rows, the bias epilogue of a MATMUL (ane_math_rows.c), the rows of a
 * NORM over W (softmax and layer normalization in two fused passes over
 * the row and a store) and of a SOFTMAX over C, and the direct
 * convolution's rows, eight values a step, converted by F16C.
 * ane_math_rows.c calls it when ane_math_isa is AVX2_FMA or AVX512 (and
 * it was built with ANE_MATH_AVX2).
 *
 * Every function here does, lane by lane, the operations of the scalar
 * (or four-lane) code in ane_math.c and ane_math_rows.c in the same
 * order, so the results are the same bits on every instruction set (but
 * for which NaN a NaN is: of two NaN operands the CPU passes on the
 * first, and the compiler orders commutative operands freely).  So
 * it is built without -mfma: GCC must not contract a multiply and an add
 * into one rounding.  F16C rounds to nearest even as ane_f2h() does and
 * quiets a NaN keeping its top payload bits as ane_f2h() does.
 *
 * Built with $(CC_FLAGS_FPU) -mavx2 -mf16c in the kernel (-mavx2 -mf16c
 * on the host), and run only from ane_op_run(), inside
 * kernel_fpu_begin()/kernel_fpu_end().  As ane_math_avx2.c: no
 * intrinsics header, GCC's vector extension and __builtin_ia32_*
 * builtins, vectors meet memory through __builtin_memcpy.
 *
 * Copyright (C) 2026 The ane authors
 */

#define ANE_MATH_FPU
#include "ane_math_impl.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__F16C__) && \
	!defined(__FMA__) && !defined(__CHECKER__)

typedef float ane_v8 __attribute__((vector_size(32)));
typedef int32_t ane_i8 __attribute__((vector_size(32)));
typedef short ane_h8 __attribute__((vector_size(16)));

static inline ane_v8 ane_splat8(float x)
{
	return (ane_v8){ x, x, x, x, x, x, x, x };
}

/* Eight fp16 at @p, or one fp16 eight times (@s 0), to fp32. */
static inline ane_v8 ane_ld8(const uint16_t *p, uint64_t s)
{
	ane_h8 h;

	if (!s) {
		short v = (short)p[0];

		h = (ane_h8){ v, v, v, v, v, v, v, v };
	} else {
		__builtin_memcpy(&h, p, 16);
	}
	return __builtin_ia32_vcvtph2ps256(h);
}

/* ane_sel8(), ane_expf8(), ane_gelu8(): ane_math.c's four-lane ones */
#define ANE_VF		ane_v8
#define ANE_VI		ane_i8
#define ANE_VN(name)	name##8
#define ANE_VSPLAT(x)	ane_splat8(x)
#define ANE_VLANES	8u
#define ANE_VLOAD(p, s)	ane_ld8((p), (s))

/* @v rounded to fp16 (to nearest even) at @y. */
static inline void ane_st8(uint16_t *y, ane_v8 v)
{
	ane_h8 h = __builtin_ia32_vcvtps2ph256(v, 0);

	__builtin_memcpy(y, &h, 16);
}

/*
 * Row @t of ane_gelu_tab at every lane's @j: VPERMPS over each quarter,
 * the halves chosen by j's bit 3 and the quarters by bit 4.
 */
static inline ane_v8 ane_tab8(const float *t, ane_i8 j)
{
	ane_v8 q0, q1, q2, q3, lo, hi;

	__builtin_memcpy(&q0, t, 32);
	__builtin_memcpy(&q1, t + 8, 32);
	__builtin_memcpy(&q2, t + 16, 32);
	__builtin_memcpy(&q3, t + 24, 32);
	lo = __builtin_shuffle(q0, q1, j);
	hi = __builtin_shuffle(q2, q3, j);
	return (ane_v8)((((ane_i8)hi) & -((j >> 4) & 1)) |
			(((ane_i8)lo) & ~-((j >> 4) & 1)));
}

#define ANE_VSTORE(y, v)	ane_st8((y), (v))
#define ANE_VTAB(t, j)	ane_tab8((t), (j))
/* the NORM rows' eight partial sums: one vector, a lane each */
#define ANE_VACC	ane_v8
#define ANE_VACC_ADD(acc, v)	((acc) += (v))
#include "ane_math_vec.h"

/* ane_elt_row8(): the row loop of ane_math_vec.h, eight lanes */
uint32_t ane_elt_row_avx2(uint32_t op, uint32_t act, const uint16_t *a,
			  uint64_t as, const uint16_t *b, uint64_t bs,
			  uint16_t *y, uint32_t len)
{
	return ane_elt_row8(op, act, a, as, b, bs, y, len);
}

uint32_t ane_dw_row_avx2(const uint16_t *const *x, const float *wt, uint32_t taps,
			 uint32_t sw, float *acc, uint32_t n)
{
	return ane_dw_row8(x, wt, taps, sw, acc, n);
}

uint32_t ane_pool_cols_avx2(const uint16_t *x, uint64_t xs, uint32_t rows,
			    float *cols, uint32_t n, int max)
{
	return ane_pool_cols8(x, xs, rows, cols, n, max);
}

/* @n fp16 at @x, contiguous, to fp32 at @v, exactly. */
void ane_h2f_row_avx2(const uint16_t *x, uint32_t n, float *v)
{
	uint32_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		ane_v8 f = ane_ld8(x + i, 1);

		__builtin_memcpy(v + i, &f, 32);
	}
	for (; i < n; i++) {
		ane_h8 h = { (short)x[i] };
		ane_v8 f = __builtin_ia32_vcvtph2ps256(h);

		v[i] = f[0];
	}
}

/* y[i] = fp16(v[i] * mul) for @n values, @y contiguous. */
void ane_f2h_row_avx2(const float *v, float mul, uint32_t n, uint16_t *y)
{
	ane_v8 m = ane_splat8(mul), f;
	uint32_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		ane_h8 h;

		__builtin_memcpy(&f, v + i, 32);
		h = __builtin_ia32_vcvtps2ph256(f * m, 0);
		__builtin_memcpy(y + i, &h, 16);
	}
	for (; i < n; i++) {
		ane_h8 h;

		f = ane_splat8(v[i] * mul);
		h = __builtin_ia32_vcvtps2ph256(f, 0);
		y[i] = (uint16_t)h[0];
	}
}

/* y[i] += a * x[i], a product then a sum (no FMA), as ane_axpy(). */
void ane_axpy_avx2(float *y, const float *x, float a, uint32_t n)
{
	ane_v8 av = ane_splat8(a), xv, yv;
	uint32_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__builtin_memcpy(&xv, x + i, 32);
		__builtin_memcpy(&yv, y + i, 32);
		yv += av * xv;
		__builtin_memcpy(y + i, &yv, 32);
	}
	for (; i < n; i++)
		y[i] += a * x[i];
}

/*
 * e[i] = ane_expf(e[i] - mx) for @n values, every e[i] <= mx (a NaN
 * difference, from a NaN or infinite input, stays itself as there).
 */
void ane_exp_sub_avx2(float *e, uint32_t n, float mx)
{
	uint32_t i = ane_exp_sub8(e, n, mx);

	for (; i < n; i++)
		e[i] = ane_expf(e[i] - mx);
}

float ane_softmax_row_avx2(const uint16_t *x, uint32_t n, float *e, float *mx)
{
	return ane_softmax_row8(x, n, e, mx);
}

void ane_softmax_cols_avx2(const uint16_t *x, uint64_t xs, uint16_t *y,
			   uint64_t ys, uint32_t c)
{
	ane_softmax_cols8(x, xs, y, ys, c);
}

float ane_layer_row_avx2(const uint16_t *x, uint32_t n, float *e)
{
	return ane_layer_row8(x, n, e);
}

void ane_dw_taps_avx2(const struct ane_dw_taps *k, float *acc)
{
	ane_dw_taps8(k, acc);
}

void ane_h2f_split_avx2(const uint16_t *x, uint32_t pairs, float *even,
			   float *odd)
{
	ane_h2f_split8(x, pairs, even, odd);
}

#endif
