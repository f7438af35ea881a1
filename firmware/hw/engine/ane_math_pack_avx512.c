// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVX-512 GEMM's B packers (ane_math_avx512.c calls them): the
 * implicit im2col matrix of a convolution, or a MATMUL's B, into the fp32
 * panels of ANE_NR_AVX2 columns every path's kernels read, with masked
 * 16-lane fp16 loads where the AVX2 packer gathers element by element.
 * Built and entered as ane_math_avx512.c is (the same flags, inside
 * kernel_fpu_begin() / kernel_fpu_end() from ane_op_run()); masked loads
 * never touch the lanes their mask clears, so a segment at the edge of
 * the input reads nothing outside it.  The packed values are the input's
 * fp16 exactly, zero where a window reads padding: the same as the AVX2
 * packer's, bit for bit.
 *
 * Copyright (C) 2026 The ane authors
 */

#define ANE_MATH_FPU
#include "ane_math_impl.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && \
	defined(__AVX512VL__) && defined(__AVX2__) && defined(__FMA__) && \
	defined(__F16C__)

#include "ane_math_avx512.h"

typedef int32_t ane_i16 __attribute__((vector_size(64)));

/* How many channels (rows of a MATMUL's B) ahead the B packer prefetches. */
#define ANE_PF_AHEAD	8u

/*
 * Pack column panels [u0, u1) of columns [n0, n0 + nlen) of the implicit B
 * (see struct ane_gemm) as ane_pack_b_avx2() does, pb[panel][k][j].  With
 * unit strides along the row (sw and x_sw 1, the usual convolution and
 * every MATMUL) the sixteen columns of a panel fall into a few output-row
 * segments; for each tap (kh, kw) each segment is one masked load of
 * contiguous fp16 per input channel, lanes outside the input or past nlen
 * left zero, then one conversion and one 64-byte store.  With a stride of
 * 2 along the row (sw 2, x_sw 1: ResNet's downsampling convolutions and
 * its stem) a segment's lanes read every other element: one masked load
 * of 32 contiguous fp16, the even ones kept (VPMOVDW of the pairs).  Only
 * input channels [ci0, ci1) (all: 0, cin) are packed, except that panels
 * of more than ANE_SEGS segments go whole to the AVX2 packer when ci0 is 0
 * (and are skipped otherwise), as do all panels with other strides.
 */
#define ANE_SEGS	4

typedef short ane_h32 __attribute__((vector_size(64)));

/* The bits of @m spread to the even bits of 32: lane j to lane 2 j. */
static inline uint32_t ane_even_bits(uint32_t m)
{
	m = (m | (m << 8)) & 0x00ff00ffu;
	m = (m | (m << 4)) & 0x0f0f0f0fu;
	m = (m | (m << 2)) & 0x33333333u;
	return (m | (m << 1)) & 0x55555555u;
}

void ane_pack_b_avx512(const struct ane_gemm *g, uint32_t K, uint32_t n0,
		       uint32_t nlen, float *pb, uint32_t u0, uint32_t u1,
		       uint32_t ci0, uint32_t ci1)
{
	const uint32_t nr = ANE_NR_AVX2;
	uint32_t npanels = (nlen + nr - 1) / nr, jp, kh, kw, ci, s;
	uint64_t kstep = (uint64_t)g->kh * g->kw * nr;
	int pf1 = g->kh == 1 && g->kw == 1;

	if (u1 > npanels)
		u1 = npanels;
	if ((g->sw != 1 && g->sw != 2) || g->x_sw != 1) {
		/* whole panels only (see ane_gemm_chunk_avx512()) */
		ane_pack_b_avx2(g, K, n0, nlen, pb, u0, u1);
		return;
	}
	for (jp = u0; jp < u1; jp++) {
		uint32_t oh[ANE_SEGS], ow[ANE_SEGS], j0[ANE_SEGS], len[ANE_SEGS];
		uint32_t col = n0 + jp * nr, left = nlen - jp * nr, nseg = 0;
		float *panel = pb + (uint64_t)jp * nr * K;

		if (left > nr)
			left = nr;
		/* the panel's output-row segments */
		while (left) {
			uint32_t r = col / g->wo, c = col % g->wo;
			uint32_t l = g->wo - c < left ? g->wo - c : left;

			if (nseg == ANE_SEGS)
				break;
			oh[nseg] = r;
			ow[nseg] = c;
			j0[nseg] = nseg ? j0[nseg - 1] + len[nseg - 1] : 0;
			len[nseg] = l;
			nseg++;
			col += l;
			left -= l;
		}
		if (left) {
			/* all of the panel's rows, once: by the first part */
			if (!ci0)
				ane_pack_b_avx2(g, K, n0, nlen, pb, jp, jp + 1);
			continue;
		}
		for (kh = 0; kh < g->kh; kh++) {
			for (kw = 0; kw < g->kw; kw++) {
				float *dst = panel + ((uint64_t)kh * g->kw + kw) * nr +
					     ci0 * kstep;
				int64_t off[ANE_SEGS], pf = 0;
				uint32_t mask[ANE_SEGS], nact = 0;
				const uint16_t *pc = g->x + ci0 * g->x_sc;

				for (s = 0; s < nseg; s++) {
					int64_t ih = (int64_t)oh[s] * g->sh - g->pt +
						     (int64_t)kh * g->dh;
					int64_t iw = (int64_t)ow[s] * g->sw - g->pl +
						     (int64_t)kw * g->dw;
					/* lane j0 + t reads element iw + sw t */
					int64_t lo = 0, hi = len[s];
					uint32_t m;

					if (ih < 0 || ih >= g->h)
						continue;
					/* lanes whose input is inside [0, w) */
					if (iw < 0)
						lo = (-iw + g->sw - 1) / g->sw;
					if (iw + (hi - 1) * g->sw >= g->w)
						hi = g->w > iw ? (g->w - iw + g->sw - 1) / g->sw : 0;
					if (lo >= hi)
						continue;
					/* lanes j0 + lo .. j0 + hi - 1 */
					m = (uint32_t)(hi - lo);
					m = (m >= 16 ? 0xffffu : (1u << m) - 1u) <<
					    (j0[s] + (uint32_t)lo);
					mask[nact] = g->sw == 2 ? ane_even_bits(m) : m;
					/* lane j reads element off + sw j */
					off[nact] = ih * (int64_t)g->x_sh + iw -
						    (int64_t)g->sw * j0[s];
					if (!nact)
						pf = ih * (int64_t)g->x_sh + iw + lo * g->sw;
					nact++;
				}
				for (ci = ci0; ci < ci1; ci++,
				     pc += g->x_sc, dst += kstep) {
					ane_h16 h = { 0 };
					ane_v16 v;

					/*
					 * Without a window each row is read
					 * once, and rows are x_sc apart (a
					 * MATMUL's B rows: often a page or
					 * more), beyond what the hardware
					 * prefetchers follow: ask for the
					 * row ANE_PF_AHEAD channels on.  A
					 * window's taps reread rows that are
					 * in cache already.
					 */
					if (pf1 && nact && ci + ANE_PF_AHEAD < ci1)
						__builtin_prefetch(pc + pf +
								   ANE_PF_AHEAD * g->x_sc);
					if (g->sw == 2) {
						ane_h32 h2 = { 0 };

						for (s = 0; s < nact; s++)
							h2 = __builtin_ia32_loaddquhi512_mask(
								(const short *)(pc + off[s]),
								h2, mask[s]);
						h = __builtin_ia32_pmovdw512_mask(
							(ane_i16)h2, h, (uint16_t)0xffff);
					} else {
						for (s = 0; s < nact; s++)
							h = __builtin_ia32_loaddquhi256_mask(
								(const short *)(pc + off[s]),
								h, (uint16_t)mask[s]);
					}
					v = __builtin_ia32_vcvtph2ps512_mask(
						h, ane_splat16(0.0f),
						(uint16_t)0xffff, 4);
					ane_store16(dst, v);
				}
			}
		}
	}
}

/*
 * A MATMUL's B (no window: B(k, j) = x[k x_sc + j], columns contiguous),
 * rows [@k0, @k1) of every panel of columns [@n0, @n0 + @nlen), prefetching
 * @pf rows ahead: ANE_ROWS_GROUP rows at a time, and within a group panel
 * by panel, so that each row's columns are read once, in order, and each
 * panel gets ANE_ROWS_GROUP consecutive 64-byte lines (512 bytes) at a
 * time.  The panel-major order of ane_pack_b_avx512() reads 32 bytes of
 * every row per panel, rows pages apart, and stalled on those loads
 * (perf: about 70% of the packer's samples on them, the packer 15% of the
 * encoder).  One row at a time across the panels, the order before, wrote
 * one line to each panel per row: panels K x 64 bytes apart, a multiple
 * of 4 KiB when K is a multiple of 64, so every line of the row fell into
 * the same L1 set (32 lines at N = 512 against its 12 ways), and packing
 * B took a twentieth of MATMUL 512^3 (6.5 us a chunk against 1.9 now).
 * The same values, zero past @nlen, as ane_pack_b_avx512().
 */
#define ANE_ROWS_GROUP	8u

void ane_pack_b_rows_avx512(const struct ane_gemm *g, uint32_t K, uint32_t n0,
			    uint32_t nlen, float *pb, uint32_t k0, uint32_t k1,
			    uint32_t pf)
{
	const uint32_t nr = ANE_NR_AVX2, full = nlen / nr, rem = nlen % nr;
	const uint64_t pstep = (uint64_t)nr * K;
	const uint16_t rmask = (uint16_t)((1u << rem) - 1u);
	uint32_t k, kg, kk, jp, l;

	for (k = k0; k < k1; k += kg) {
		const uint16_t *row = g->x + (uint64_t)k * g->x_sc + n0;
		float *dst = pb + (uint64_t)k * nr;

		kg = k1 - k < ANE_ROWS_GROUP ? k1 - k : ANE_ROWS_GROUP;
		for (kk = 0; kk < kg; kk++)
			if (k + kk + pf < k1)
				for (l = 0; l < nlen; l += 32)
					__builtin_prefetch(row + (pf + kk) * g->x_sc + l);
		for (jp = 0; jp < full; jp++, dst += pstep)
			for (kk = 0; kk < kg; kk++) {
				ane_h16 h;

				__builtin_memcpy(&h, row + kk * g->x_sc + jp * nr,
						 sizeof(h));
				ane_store16(dst + kk * nr,
					    __builtin_ia32_vcvtph2ps512_mask(h,
						ane_splat16(0.0f), (uint16_t)0xffff, 4));
			}
		for (kk = 0; rem && kk < kg; kk++) {
			ane_h16 h = { 0 };

			h = __builtin_ia32_loaddquhi256_mask(
				(const short *)(row + kk * g->x_sc + full * nr),
				h, rmask);
			ane_store16(dst + kk * nr, __builtin_ia32_vcvtph2ps512_mask(
					h, ane_splat16(0.0f), (uint16_t)0xffff, 4));
		}
	}
}

#endif
