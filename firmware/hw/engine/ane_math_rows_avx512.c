// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVX-512 path of the engine's elementwise rows: ELTWISE and ACT rows,
 * the MATMUL bias epilogue and the rows of a NORM over W and of a
 * SOFTMAX over C (ane_math_rows.c), sixteen values a step,
 * the loop of ane_math_vec.h as ane_math_rows_avx2.c runs it eight at a
 * time.  ane_math_rows.c calls it when ane_math_isa is AVX512 (and it
 * was built with ANE_MATH_AVX512).
 *
 * The same bits as the SSE2 and AVX2 loops: built without -mfma (no
 * contracted multiply-add), VCVTPH2PS exact, VCVTPS2PH told to round to
 * nearest even.  Built with $(CC_FLAGS_FPU) -mavx2 -mf16c -mavx512f
 * -mavx512bw -mavx512vl in the kernel, run only from ane_op_run() inside
 * kernel_fpu_begin()/kernel_fpu_end(), which save the ZMM and opmask
 * state; no intrinsics header, as ane_math_avx512.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#define ANE_MATH_FPU
#include "ane_math_impl.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__F16C__) && \
	!defined(__FMA__) && !defined(__CHECKER__)

typedef float ane_v16 __attribute__((vector_size(64)));
typedef int32_t ane_i16 __attribute__((vector_size(64)));
typedef short ane_h16 __attribute__((vector_size(32)));
typedef float ane_v8 __attribute__((vector_size(32)));

static inline ane_v16 ane_splat16(float x)
{
	return (ane_v16){ x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x };
}

/* Sixteen fp16 at @p, or one fp16 sixteen times (@s 0), to fp32. */
static inline ane_v16 ane_ld16(const uint16_t *p, uint64_t s)
{
	ane_h16 h;

	if (!s) {
		short v = (short)p[0];

		h = (ane_h16){ v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v };
	} else {
		__builtin_memcpy(&h, p, 32);
	}
	return __builtin_ia32_vcvtph2ps512_mask(h, ane_splat16(0.0f),
						(uint16_t)0xffff, 4);
}

/* @v rounded to fp16 (to nearest even) at @y. */
static inline void ane_st16(uint16_t *y, ane_v16 v)
{
	ane_h16 h = __builtin_ia32_vcvtps2ph512_mask(v, 0, (ane_h16){ 0 },
						     (uint16_t)0xffff);

	__builtin_memcpy(y, &h, 32);
}

/* Row @t of ane_gelu_tab at every lane's @j: one VPERMT2PS. */
static inline ane_v16 ane_tab16(const float *t, ane_i16 j)
{
	ane_v16 lo, hi;

	__builtin_memcpy(&lo, t, 64);
	__builtin_memcpy(&hi, t + 16, 64);
	return __builtin_shuffle(lo, hi, j);
}

/*
 * The sixteen lanes of @v into the eight partial sums of a NORM row:
 * the lower eight, then the upper eight, so that element k of the group
 * goes into partial sum k % 8 in the order of the AVX2 and SSE2 loops.
 */
static inline void ane_acc16(ane_v8 *acc, ane_v16 v)
{
	ane_v8 lo, hi;

	__builtin_memcpy(&lo, &v, 32);
	__builtin_memcpy(&hi, (const char *)&v + 32, 32);
	*acc += lo;
	*acc += hi;
}

/* ane_sel16(), ane_expf16(), ane_gelu16(), ane_exp_sub16(), ane_elt_row16() */
#define ANE_VF		ane_v16
#define ANE_VI		ane_i16
#define ANE_VN(name)	name##16
#define ANE_VSPLAT(x)	ane_splat16(x)
#define ANE_VLANES	16u
#define ANE_VLOAD(p, s)	ane_ld16((p), (s))
#define ANE_VSTORE(y, v)	ane_st16((y), (v))
#define ANE_VTAB(t, j)	ane_tab16((t), (j))
#define ANE_VACC	ane_v8
#define ANE_VACC_ADD(acc, v)	ane_acc16(&(acc), (v))
#include "ane_math_vec.h"

uint32_t ane_elt_row_avx512(uint32_t op, uint32_t act, const uint16_t *a,
			    uint64_t as, const uint16_t *b, uint64_t bs,
			    uint16_t *y, uint32_t len)
{
	return ane_elt_row16(op, act, a, as, b, bs, y, len);
}

uint32_t ane_dw_row_avx512(const uint16_t *const *x, const float *wt, uint32_t taps,
			   uint32_t sw, float *acc, uint32_t n)
{
	return ane_dw_row16(x, wt, taps, sw, acc, n);
}

uint32_t ane_pool_cols_avx512(const uint16_t *x, uint64_t xs, uint32_t rows,
			      float *cols, uint32_t n, int max)
{
	return ane_pool_cols16(x, xs, rows, cols, n, max);
}

void ane_exp_sub_avx512(float *e, uint32_t n, float mx)
{
	uint32_t i = ane_exp_sub16(e, n, mx);

	/* the rest eight or fewer at a time, as the AVX2 path does */
	if (i < n)
		ane_exp_sub_avx2(e + i, n - i, mx);
}

float ane_softmax_row_avx512(const uint16_t *x, uint32_t n, float *e, float *mx)
{
	return ane_softmax_row16(x, n, e, mx);
}

void ane_softmax_cols_avx512(const uint16_t *x, uint64_t xs, uint16_t *y,
			     uint64_t ys, uint32_t c)
{
	ane_softmax_cols16(x, xs, y, ys, c);
}

float ane_layer_row_avx512(const uint16_t *x, uint32_t n, float *e)
{
	return ane_layer_row16(x, n, e);
}

/* y[i] = fp16(v[i] * mul), sixteen at a time, the rest as the AVX2 path. */
void ane_f2h_row_avx512(const float *v, float mul, uint32_t n, uint16_t *y)
{
	ane_v16 m = ane_splat16(mul), f;
	uint32_t i;

	for (i = 0; i + 16 <= n; i += 16) {
		__builtin_memcpy(&f, v + i, 64);
		ane_st16(y + i, f * m);
	}
	if (i < n)
		ane_f2h_row_avx2(v + i, mul, n - i, y + i);
}

void ane_dw_taps_avx512(const struct ane_dw_taps *k, float *acc)
{
	ane_dw_taps16(k, acc);
}

void ane_h2f_split_avx512(const uint16_t *x, uint32_t pairs, float *even,
			     float *odd)
{
	ane_h2f_split16(x, pairs, even, odd);
}

#endif
