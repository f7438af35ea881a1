// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVX2 + F16C path of the engine's row operations: ELTWISE and ACT
 * rows, the bias epilogue of a MATMUL (ane_math_rows.c), the loads,
 * stores and exponentials of a NORM over W and the direct convolution's
 * rows, eight values a step, converted by F16C.  ane_math_rows.c calls it when ane_math_isa is AVX2_FMA or
 * AVX512 (and it was built with ANE_MATH_AVX2).
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

static inline ane_v8 ane_sel8(ane_i8 m, ane_v8 a, ane_v8 b)
{
	return (ane_v8)(((ane_i8)a & m) | ((ane_i8)b & ~m));
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

/* ane_expf4() on eight lanes (ane_math.c): not NaN, at most 88.72. */
static inline ane_v8 ane_expf8(ane_v8 x)
{
	const ane_v8 zero = ane_splat8(0.0f);
	ane_i8 under = x < -103.97208404541015625f, n, n1;
	ane_v8 fn, r, z, p;

	x = ane_sel8(under, zero, x);
	fn = x * 1.44269504088896341f;
	n = __builtin_convertvector(fn + ane_sel8(fn < 0.0f, ane_splat8(-0.5f),
						  ane_splat8(0.5f)), ane_i8);
	fn = __builtin_convertvector(n, ane_v8);
	r = x - fn * 0.693359375f;
	r = r + fn * 2.12194440e-4f;
	z = r * r;
	p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r +
	       8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
	     1.6666665459e-1f) * r + 5.0000001201e-1f;
	p = p * z + r + 1.0f;
	n1 = n / 2;
	p *= (ane_v8)((n1 + 127) << 23);
	p = p * (ane_v8)((n - n1 + 127) << 23);
	return ane_sel8(under, zero, p);
}

/* ane_gelu4() on eight lanes. */
static inline ane_v8 ane_gelu8(ane_v8 x)
{
	const ane_v8 zero = ane_splat8(0.0f);
	ane_i8 in = (x >= -20.0f) & (x <= 20.0f), lo = x < -20.0f;
	ane_v8 xc = ane_sel8(in, x, zero);
	ane_v8 z, t, xh, xl, r, res;

	z = (ane_v8)((ane_i8)xc & 0x7fffffff) * 0.70710678118654752f;
	t = 1.0f / (1.0f + 0.5f * z);
	xh = (ane_v8)((ane_i8)xc & (int32_t)0xfffff000u);
	xl = xc - xh;
	r = -(xh * xl + 0.5f * xl * xl) - 1.26551223f +
		t * (1.00002368f + t * (0.37409196f + t * (0.09678418f +
		t * (-0.18628806f + t * (0.27886807f + t * (-1.13520398f +
		t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
	r = t * ane_expf8(-0.5f * xh * xh) * ane_expf8(r);
	res = ane_sel8(xc >= 0.0f, xc - 0.5f * xc * r, 0.5f * xc * r);
	res = ane_sel8(in, res, x);
	return ane_sel8(lo, ane_splat8(-0.0f), res);
}

/*
 * y[i] = act(a[i] OP b[i]) (act(a[i]) without @b) for the whole groups of
 * eight of @len elements: @y contiguous, @as and @bs 1 or 0 (broadcast).
 * Returns how many it did (a multiple of 8; 0 for an activation it does
 * not have: sigmoid, tanh, GELU's tanh form).
 */
uint32_t ane_elt_row_avx2(uint32_t op, uint32_t act, const uint16_t *a,
			  uint64_t as, const uint16_t *b, uint64_t bs,
			  uint16_t *y, uint32_t len)
{
	uint32_t i;

	if (act != ANE_ACT_NONE && act != ANE_ACT_RELU &&
	    act != ANE_ACT_RELU6 && act != ANE_ACT_GELU)
		return 0;
	for (i = 0; i + 8 <= len; i += 8) {
		ane_v8 va = ane_ld8(a + i * as, as), vb, r;
		ane_h8 h;

		if (b) {
			vb = ane_ld8(b + i * bs, bs);
			switch (op) {
			case ANE_ELT_ADD:
				va = va + vb;
				break;
			case ANE_ELT_SUB:
				va = va - vb;
				break;
			case ANE_ELT_MUL:
				va = va * vb;
				break;
			case ANE_ELT_MAX:
				r = ane_sel8(va > vb, va, vb);
				va = ane_sel8(va != va, va, r);
				break;
			default:	/* ANE_ELT_MIN */
				r = ane_sel8(va < vb, va, vb);
				va = ane_sel8(va != va, va, r);
				break;
			}
		}
		switch (act) {
		case ANE_ACT_RELU:
			va = (ane_v8)((ane_i8)va & ~(va < 0.0f));
			break;
		case ANE_ACT_RELU6:
			va = (ane_v8)((ane_i8)va & ~(va < 0.0f));
			va = ane_sel8(va > 6.0f, ane_splat8(6.0f), va);
			break;
		case ANE_ACT_GELU:
			va = ane_gelu8(va);
			break;
		}
		h = __builtin_ia32_vcvtps2ph256(va, 0);
		__builtin_memcpy(y + i, &h, 16);
	}
	return i;
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
	ane_v8 m = ane_splat8(mx), v;
	uint32_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__builtin_memcpy(&v, e + i, 32);
		v = v - m;
		v = ane_sel8(v != v, v, ane_expf8(v));
		__builtin_memcpy(e + i, &v, 32);
	}
	for (; i < n; i++)
		e[i] = ane_expf(e[i] - mx);
}

#endif
