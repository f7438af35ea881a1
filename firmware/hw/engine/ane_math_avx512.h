/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the AVX-512 objects of the engine share (ane_math_avx512.c,
 * ane_math_conv1_avx512.c, ane_math_conv_avx512.c): the sixteen-float and sixteen-fp16 vector
 * types and the few helpers every kernel there uses.  Include only from a
 * file built with -mavx512f -mavx512bw -mavx512vl (see Kbuild), after
 * ane_math_impl.h and the check for those features that those files
 * make; no intrinsics header.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_MATH_AVX512_H
#define ANE_MATH_AVX512_H

typedef float ane_v16 __attribute__((vector_size(64)));
typedef short ane_h16 __attribute__((vector_size(32)));

/* @x in all sixteen lanes. */
static inline ane_v16 ane_splat16(float x)
{
	return (ane_v16){ x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x };
}

/* @a * @b + @c, rounded once (VFMADD...PS). */
static inline ane_v16 ane_fma16(ane_v16 a, ane_v16 b, ane_v16 c)
{
	return __builtin_ia32_vfmaddps512_mask(a, b, c, (uint16_t)0xffff, 4);
}

/* Sixteen floats from @p, any alignment. */
static inline ane_v16 ane_load16(const float *p)
{
	ane_v16 v;

	__builtin_memcpy(&v, p, 64);
	return v;
}

/* Sixteen floats to @p, any alignment. */
static inline void ane_store16(float *p, ane_v16 v)
{
	__builtin_memcpy(p, &v, 64);
}

/*
 * The B packers of ane_math_pack_avx512.c: column panels [@u0, @u1) of
 * columns [@n0, @n0 + @nlen), input channels [@ci0, @ci1); and a MATMUL's
 * B rows [@k0, @k1) of every panel, prefetching @pf rows ahead.
 */
struct ane_gemm;
void ane_pack_b_avx512(const struct ane_gemm *g, uint32_t K, uint32_t n0,
		       uint32_t nlen, float *pb, uint32_t u0, uint32_t u1,
		       uint32_t ci0, uint32_t ci1);
void ane_pack_b_rows_avx512(const struct ane_gemm *g, uint32_t K, uint32_t n0,
			    uint32_t nlen, float *pb, uint32_t k0, uint32_t k1,
			    uint32_t pf);

#endif /* ANE_MATH_AVX512_H */
