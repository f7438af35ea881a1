// SPDX-License-Identifier: MIT
/*
 * libane: IEEE binary16 conversions, on bit patterns (no libm, no FPU
 * rounding mode assumptions), bit for bit as the engine converts.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <string.h>

#include "ane_internal.h"

/*
 * A double to fp16, rounded once to nearest even.  Every float is exactly
 * a double, so this is also the float conversion, and the reference
 * executor rounds its double results with it without double rounding.
 */
uint16_t ane__fp16_from_double(double d)
{
	uint64_t b, a, m, full, r, rem, half;
	uint16_t sign;
	unsigned int shift;
	int e;

	memcpy(&b, &d, sizeof(b));
	sign = (uint16_t)((b >> 48) & 0x8000u);
	a = b & 0x7fffffffffffffffull;
	e = (int)(a >> 52);
	m = a & ((1ull << 52) - 1);
	if (e == 0x7ff)			/* inf, or NaN made quiet */
		return m ? (uint16_t)(sign | 0x7e00u | ((m >> 42) & 0x3ffu)) :
			   (uint16_t)(sign | 0x7c00u);
	if (e == 0)			/* zero or a double subnormal */
		return sign;
	e -= 1023;
	if (e > 15)
		return (uint16_t)(sign | 0x7c00u);
	full = m | (1ull << 52);
	/* Normal results keep 11 significant bits; subnormals count 2^-24s. */
	shift = e >= -14 ? 42u : (unsigned int)(28 - e);
	if (shift >= 64)
		return sign;
	r = full >> shift;
	rem = full & ((1ull << shift) - 1);
	half = 1ull << (shift - 1);
	if (rem > half || (rem == half && (r & 1)))
		r++;
	if (e >= -14)	/* r in [1024, 2048]: 2048 carries into the exponent */
		r += (uint64_t)(e + 14) << 10;
	if (r >= 0x7c00u)
		return (uint16_t)(sign | 0x7c00u);
	return (uint16_t)(sign | r);
}

uint16_t ane_fp16_from_float(float f)
{
	return ane__fp16_from_double((double)f);
}

float ane_float_from_fp16(uint16_t h)
{
	uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
	uint32_t e = ((uint32_t)h >> 10) & 0x1fu;
	uint32_t m = (uint32_t)h & 0x3ffu, bits;
	float f;

	if (e == 0x1fu) {
		bits = sign | 0x7f800000u | (m << 13);
	} else if (e) {
		bits = sign | ((e + 112u) << 23) | (m << 13);
	} else if (!m) {
		bits = sign;
	} else {
		/* subnormal: normalise */
		e = 113u;
		while (!(m & 0x400u)) {
			m <<= 1;
			e--;
		}
		bits = sign | (e << 23) | ((m & 0x3ffu) << 13);
	}
	memcpy(&f, &bits, sizeof(f));
	return f;
}

#if defined(__x86_64__) && defined(__GNUC__)
typedef float ane__v8f __attribute__((vector_size(32)));
typedef short ane__v8h __attribute__((vector_size(16)));

/* Whether the CPU converts with F16C (and the AVX its 256-bit form needs). */
static int ane__have_f16c(void)
{
	static int have = -1;
	int v = __atomic_load_n(&have, __ATOMIC_RELAXED);

	if (v < 0) {
		__builtin_cpu_init();
		v = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
		__atomic_store_n(&have, v, __ATOMIC_RELAXED);
	}
	return v;
}

/*
 * Eight floats a step with VCVTPS2PH told to round to nearest even: the
 * same bits as ane__fp16_from_double() for every float (IEEE's rounding,
 * overflow to infinity, a NaN made quiet with its payload's top ten bits;
 * MXCSR's flush-to-zero does not apply to it), the rest one by one.
 * Returns how many it converted.
 */
__attribute__((target("avx,f16c")))
static size_t ane__fp16_from_float_f16c(uint16_t *dst, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		ane__v8f v;
		ane__v8h h;

		memcpy(&v, src + i, sizeof(v));
		h = __builtin_ia32_vcvtps2ph256(v, 0);
		memcpy(dst + i, &h, sizeof(h));
	}
	return i;
}
#endif

void ane_fp16_from_float_array(uint16_t *dst, const float *src, size_t n)
{
	size_t i = 0;

#if defined(__x86_64__) && defined(__GNUC__)
	if (ane__have_f16c())
		i = ane__fp16_from_float_f16c(dst, src, n);
#endif
	for (; i < n; i++)
		dst[i] = ane_fp16_from_float(src[i]);
}

void ane_float_from_fp16_array(float *dst, const uint16_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = ane_float_from_fp16(src[i]);
}

uint16_t ane_index_from_float(float f)
{
	double d = f;
	int32_t v;

	if (!(d > -32768.5))		/* below, or NaN */
		v = -32768;
	else if (d >= 32767.5)
		v = 32767;
	else			/* to nearest, halfway away from zero */
		v = d < 0 ? -(int32_t)(0.5 - d) : (int32_t)(d + 0.5);
	return (uint16_t)v;
}

void ane_index_from_float_array(uint16_t *dst, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = ane_index_from_float(src[i]);
}
