/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the engine's math: how an operation is cut into chunks.  The
 * plan is computed by ane_math_plan.c (integer only) and followed by
 * ane_math.c; both derive it from the descriptor alone, so the chunk count
 * the caller loops over and the work each chunk does always agree.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_MATH_IMPL_H
#define ANE_MATH_IMPL_H

#include "ane_math.h"

/*
 * The core of ane_expf() and its vector forms (ane_math_vec.h), written
 * once so that they do the same operations in the same order (the same
 * bits): with @fn the rounded x / ln2, r = x - fn ln2 (ln2 in two parts,
 * Cody-Waite) and @p = e^r = 1 + r + r^2 P(r), Cephes' expf polynomial.
 * Works on a float or a float vector; @r and @z are scratch.
 */
#define ANE_EXPF_CORE(x, fn, r, z, p)					\
	do {								\
		(r) = (x) - (fn) * 0.693359375f;			\
		(r) = (r) + (fn) * 2.12194440e-4f;			\
		(z) = (r) * (r);					\
		(p) = ((((1.9875691500e-4f * (r) + 1.3981999507e-3f) *	\
			 (r) + 8.3334519073e-3f) * (r) +		\
			4.1665795894e-2f) * (r) + 1.6666665459e-1f) *	\
		      (r) + 5.0000001201e-1f;				\
		(p) = (p) * (z) + (r) + 1.0f;				\
	} while (0)

/*
 * The GEMM register blocks: ANE_MR rows of A by ANE_NR columns of B on the
 * SSE2 path, ANE_MR by ANE_NR_AVX2 on the AVX2 path, two of those by two
 * on the AVX-512 path (12 x 32).  The plan cuts the columns in units of
 * ANE_NU, which every panel width divides and which is the AVX-512
 * block's width (so that a chunk's columns never leave it a lone
 * 16-column panel), so that the chunk count and the workspace do not
 * depend on the ISA (see ane_math_set_isa()).
 */
#define ANE_MR		6u
#define ANE_NR		8u
#define ANE_NR_AVX2	16u
#define ANE_NU		32u

/*
 * Packed-block budgets.  A B block (K x nc fp32) is packed once per
 * column block and serves every row block; an A block (mc x K fp32, each
 * element stored as a broadcast quadruple on the SSE2 path, once on the
 * AVX2 path) is packed once per row block of a column block.  So each fp16
 * element of B is converted once, each of A once per column block, and the
 * inner kernel streams A from L2 while one B panel stays in L1.  B
 * blocks are ANE_PACK_B_WIDE_BYTES when there is only one A block or A
 * has at least ANE_PACK_B_WIDE_MK elements, since A is converted once per
 * B block: 4 MiB, not 1, took a MATMUL of 2048^3 from 194 to 219-225
 * GFLOP/s on the AVX-512 path (100 to 116 on AVX2, 42 to 43-46 on SSE2),
 * while the 3.6 MiB blocks it would give a 3 x 3 convolution of 56 x 56,
 * 64 -> 64 (two A blocks) no longer stay in L2 (197 to 170-181).
 */
#define ANE_PACK_A_BYTES	(512u * 1024u)
#define ANE_PACK_B_BYTES	(1024u * 1024u)
#define ANE_PACK_B_WIDE_BYTES	(4096u * 1024u)
#define ANE_PACK_B_WIDE_MK	(256u * 1024u)
#define ANE_MC_MIN		(2u * ANE_MR)
/*
 * Small M: when all of A fits ANE_PACK_A_ONCE_BYTES (SSE2's layout; a
 * quarter of it on the AVX paths), it is one A block packed once per
 * problem, by the first B block, and the B blocks are ANE_PACK_B_SMALL_BYTES
 * so that each packed block stays in L2 while every row of A passes it.
 */
#define ANE_PACK_A_ONCE_BYTES	(4096u * 1024u)
#define ANE_PACK_B_SMALL_BYTES	(256u * 1024u)
/*
 * Small M and deep (a MATMUL whose A does not fit ANE_PACK_A_ONCE_BYTES,
 * with at most ANE_KB_MAX_M rows): the depth is cut into blocks of at
 * most ANE_KB_KC (a multiple of ANE_KB_UNIT), each a GEMM of its own
 * over all the rows at once -- its A block (M x kc) stays in L2 and each
 * B panel's slice (kc x 32) in L1 while every row passes it, where one
 * A block of 12 rows over the whole depth would stream all of B from L3
 * for every 12 rows.  B blocks are at most ANE_KB_B_BYTES; the columns
 * are grouped in C blocks of as many B blocks as the fp32 partial sums
 * of their outputs, round_up(M, 12) floats a column, fit
 * ANE_KB_C_BYTES (at least one).  A C block runs depth block by depth
 * block, and each depth block B block by B block, so that the depth
 * block's A is packed once per C block; the partial sums wait in the
 * workspace between depth blocks.
 */
#define ANE_KB_MAX_M		256u
#define ANE_KB_KC		256u
#define ANE_KB_UNIT		16u
#define ANE_KB_B_BYTES		(128u * 1024u)
#define ANE_KB_C_BYTES		(512u * 1024u)

/*
 * Cost weights, in multiply-add equivalents (one inner-kernel MAC, about
 * 0.05-0.1 ns) per unit of work, measured on the host: they size chunks so
 * that each takes about the same time whatever the operation.
 */
#define ANE_COST_STORE		64u	/* one GEMM output: bias, act, round, store */
#define ANE_COST_PACK		64u	/* one element converted and packed */
#define ANE_COST_ELT		64u	/* one elementwise / ACT element */
#define ANE_COST_ACT_TRANS	256u	/* extra for sigmoid/tanh/GELU */
#define ANE_COST_SOFTMAX	128u	/* one softmax element */
#define ANE_COST_POOL		24u	/* one pooling window element */
#define ANE_COST_DIRECT		16u	/* one direct-convolution tap */
#define ANE_COST_COPY		8u	/* one element of a COPY */
#define ANE_COST_REDUCE		8u	/* one element a REDUCE reads */
#define ANE_COST_REDUCE_EXP	48u	/* one of LOG_SUM_EXP's exponentials */
#define ANE_COST_ACT_SCALAR	64u	/* extra for a cheap act run scalar */
#define ANE_COST_ACT_FN		512u	/* extra for log, sin, cos, erf, pow */

/*
 * Convolutions with at most this many output channels per group
 * (depthwise and the like) run as direct convolution, where a GEMM would
 * waste most of its ANE_MR-row register block; the rest run as GEMM with
 * an implicit im2col.
 */
#define ANE_DIRECT_MAX_COUT	2u

/*
 * The depthwise rows of the AVX2 and AVX-512 paths (ane_math_conv_rows.c):
 * a direct convolution with one input channel per group, W contiguous, a
 * W stride of at most ANE_DW_MAX_SW and at most ANE_DW_TAPS taps.  Each
 * input row an output row reads is converted to fp32 into ANE_DW_MAX_SW
 * or fewer phase rows (column c of phase p holds input column c * stride
 * + p) of ane_dw_phase_len() floats in the workspace, which the plan
 * sizes so on every path (the workspace may not depend on the ISA).
 */
#define ANE_DW_TAPS	64u
#define ANE_DW_MAX_SW	2u

static inline int ane_conv_dw_fits(const struct ane_op_desc *d)
{
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1];

	return x->dim[ANE_C] == d->p.conv.groups && x->stride[ANE_W] == 1 &&
	       d->p.conv.stride[1] <= ANE_DW_MAX_SW &&
	       (uint64_t)w->dim[ANE_H] * w->dim[ANE_W] <= ANE_DW_TAPS;
}

/*
 * Floats of one phase row for @n outputs, a multiple of sixteen: the
 * vector loop reads whole groups of sixteen (the widest) from each tap's
 * first column, at most (KW - 1) * dilation / stride columns in, and 16
 * more let the conversion store whole groups too.
 */
static inline uint64_t ane_dw_phase_len(const struct ane_op_desc *d, uint64_t n)
{
	uint64_t reach = ((uint64_t)d->src[1].dim[ANE_W] - 1) *
			 d->p.conv.dilation[1] / d->p.conv.stride[1];

	return (((n + 15) & ~15ull) + reach + 16 + 15) & ~15ull;
}

/*
 * One output row of the depthwise rows (see ane_conv_dw_fits()): for
 * each of @n outputs i, acc[i] = @bias + the sum over the taps t, in
 * order, of wt[t] * x[t][i], each product rounded and then added, tap t
 * counting only for @lo[t] <= i < @hi[t] (a padded tap is skipped, as the
 * scalar loop skips it).  All taps count for [@full_lo, @full_hi).
 * x[t][i] is readable for every i below @n rounded up to sixteen, and
 * acc holds as many floats.  With @y, the sums go through @act and are
 * rounded into y[i] instead, as ane_act_vec() and ane_f2h_row() would.
 */
struct ane_dw_taps {
	uint32_t n, taps, full_lo, full_hi;
	float bias;
	uint32_t act;		/* with @y: ANE_ACT_NONE, _RELU or _RELU6 */
	uint16_t *y;		/* NULL, or the outputs' contiguous fp16 row */
	const float *x[ANE_DW_TAPS];
	float wt[ANE_DW_TAPS];
	int32_t lo[ANE_DW_TAPS], hi[ANE_DW_TAPS];
};

/*
 * The depthwise rows' workspace after the plan's accumulators: the
 * channel's KH x KW weights in fp32 (ANE_DW_TAPS floats), the row's
 * struct ane_dw_taps, then KH x stride phase rows.
 */
#define ANE_DW_HDR_FLOATS	(ANE_DW_TAPS + \
				 ((sizeof(struct ane_dw_taps) + 63) & ~(size_t)63) / 4)

enum ane_plan_kind {
	ANE_PLAN_GEMM = 1,	/* MATMUL, CONV with Cout/groups > ANE_DIRECT_MAX_COUT */
	ANE_PLAN_ROWS,		/* everything else, split by output rows */
};

/**
 * struct ane_plan - how a validated descriptor is executed
 * @kind: enum ane_plan_kind.
 * @chunks: total chunks.
 * @work_size: workspace bytes needed.
 * @M: GEMM rows (MATMUL: M; CONV: Cout / groups).
 * @N: GEMM columns (MATMUL: N; CONV: Ho * Wo).
 * @K: GEMM depth (MATMUL: K; CONV: Cin / groups * KH * KW).
 * @problems: independent GEMMs (MATMUL: N * C of dst; CONV: N * groups).
 * @nc: columns per B block (multiple of ANE_NU).
 * @mc: rows per A block (multiple of ANE_MR).
 * @ncc: columns per chunk within a block (multiple of ANE_NU).
 * @nblocks: B blocks per problem.
 * @mblocks: A blocks per B block.
 * @nsub: compute chunks per A block.
 * @nbpack: chunks that pack one B block.
 * @bppc: column units (of ANE_NU columns) of B packed per packing chunk.
 * @a_once: one A block, packed by the first B block.
 * @kblocks: depth blocks per B block (1 but for the small-M deep MATMUL,
 *	see ANE_KB_KC).
 * @kc: depth per depth block (the last: what is left; @K when @kblocks
 *	is 1).
 * @nbc: with depth blocks, B blocks per C block (the last C block: what
 *	is left); 1 otherwise.
 * @b_off: byte offset of the B pack area in the workspace (A is at 0);
 *	for direct convolution, of the input row buffer.
 * @rows: ROWS plans: units of work, each a segment of a dst row (for
 *	SOFTMAX, one position (n, h, w); for REDUCE, see ane_run_reduce()).
 * @rows_per_chunk: ROWS plans: units per chunk.
 * @width: ROWS plans: elements in a row (dst W; 1 for SOFTMAX).
 * @seg_w: ROWS plans: elements per segment.
 * @nseg: ROWS plans: segments per row; unit u is segment u % nseg of
 *	row u / nseg.
 *
 * GEMM chunks run problem by problem and B block by B block (with depth
 * blocks: C block by C block, in each depth block by depth block, in each
 * B block by B block); each (depth block of a) B block is @nbpack chunks
 * that pack it, then @mblocks * @nsub compute chunks, A block by A
 * block.  The first compute chunk of an A block packs it (at most
 * ANE_PACK_A_BYTES / 16 elements, or the depth block's round_up(M, 6) x
 * @kc), only in the first B block with @a_once or depth blocks.
 */
struct ane_plan {
	uint32_t kind, a_once;
	uint64_t chunks;
	uint64_t work_size;
	uint32_t M, N, K, kblocks;
	uint64_t problems;
	uint32_t nc, mc, ncc, kc;
	uint32_t nblocks, mblocks, nsub;
	uint32_t nbpack, bppc, width;
	uint64_t b_off;
	uint64_t rows;
	uint64_t rows_per_chunk;
	uint32_t seg_w, nseg, nbc;
};

/*
 * With depth blocks, the byte offset of the fp32 partial sums of the C
 * block's outputs in the workspace (round_up(M, 12) x nbc x nc floats),
 * after the B pack area.
 */
static inline uint64_t ane_plan_c_off(const struct ane_plan *p)
{
	uint64_t end = p->b_off + (uint64_t)p->nc * p->kc * 4;


	return (end + ANE_MATH_WORK_ALIGN - 1) / ANE_MATH_WORK_ALIGN *
	       ANE_MATH_WORK_ALIGN;
}

/*
 * Derive the plan of a descriptor whose shapes have been checked (by
 * ane_op_workspace_size() or ane_op_validate()).  Pure integer arithmetic.
 * It does not depend on the ISA selected.
 */
void ane_plan_make(const struct ane_op_desc *d, struct ane_plan *p);

/**
 * struct ane_gemm_at - where GEMM chunk number @chunk of a plan works
 * @prob: the problem (see struct ane_plan's @problems).
 * @jb: the B block: columns [@n0, @n0 + @nlen) of the problem.
 * @kb: the depth block: depth [@k0, @k0 + @kn) (all of K but for a plan
 *	with depth blocks).
 * @pack: 1 for a chunk that packs part @part of the B block (of the
 *	plan's @nbpack), 0 for a compute chunk.
 * @pcol: with depth blocks, the B block's first column in its C block.
 * @sub: compute: the chunk's number within its A block.
 * @pack_a: compute: the chunk packs the A block first.
 * @m0: compute: rows [@m0, @m0 + @mlen) (the A block).
 * @c0: compute: block columns [@c0, @c1) (relative to @n0; empty for
 *	the last chunks of a short last B block).
 */
struct ane_gemm_at {
	uint64_t prob;
	uint32_t jb, kb, pack, part, pcol, sub, pack_a;
	uint32_t n0, nlen, k0, kn;
	uint32_t m0, mlen, c0, c1;
};

/* Decode @chunk of GEMM plan @p (integer only, ane_math_plan.c). */
void ane_plan_gemm_at(const struct ane_plan *p, uint64_t chunk,
		      struct ane_gemm_at *at);

/*
 * The chunks of a COPY's ROWS plan (ane_math_copy.c): integer only, so
 * callable anywhere, though ane_op_run() calls it as it calls the others.
 */
void ane_run_copy(const struct ane_op_desc *d, const struct ane_plan *p,
		  uint64_t chunk);

/*
 * The chunks of a GATHER's ROWS plan (ane_math_gather.c), a unit a
 * segment of a dst row (n, c, k): integer only, as ane_run_copy().
 */
void ane_run_gather(const struct ane_op_desc *d, const struct ane_plan *p,
		    uint64_t chunk);

/*
 * REDUCE's plan (ane_math_plan.c): each dst element's reduced elements,
 * @count of them in NCHW order, are cut into @p->nseg segments of
 * @p->seg_w (the last: what is left), read once, or twice for
 * LOG_SUM_EXP (its maximum, then its exponentials): unit u is segment
 * u % nseg of pass u / nseg % passes of dst element u / (nseg * passes).
 * The segments of one element share the accumulator in the workspace.
 */
static inline uint32_t ane_reduce_passes(const struct ane_op_desc *d)
{
	return d->p.reduce.kind == ANE_REDUCE_LOG_SUM_EXP ? 2 : 1;
}

/* The ISA ane_op_run() uses (enum ane_math_isa); see ane_math_set_isa(). */
extern uint32_t ane_math_isa;

/*
 * The ISAs this build of ane_math.o can run, one bit per enum ane_math_isa
 * value: SSE2 always, AVX2_FMA when ane_math.c is built with ANE_MATH_AVX2
 * defined and linked with ane_math_avx2.o.  Data, so that the integer
 * object can read it.
 */
extern const uint32_t ane_math_isas_built;

/*
 * The exact GELU's pieces (ane_math.c): the upper tail Q(a) = erfc(a /
 * sqrt 2) / 2 on [0, 6) in ANE_GELU_PIECES pieces of 3/16, piece j a
 * polynomial of degree ANE_GELU_DEG in d = a - (j + 1/2) 3/16; row k
 * holds every piece's coefficient of d^k.
 */
#define ANE_GELU_PIECES	32
#define ANE_GELU_DEG	6
extern const float ane_gelu_tab[ANE_GELU_DEG + 1][ANE_GELU_PIECES];

/*
 * A GEMM problem C (M x N) = A (M x K) * B (K x N) in the shape of a
 * convolution, which covers MATMUL as a 1x1 convolution:
 *   A(m, k) = a[m*a_sm + ci*a_sc + kh*a_sh + kw*a_sw], k = (ci, kh, kw);
 *   B(k, j) = x[ci*x_sc + ih*x_sh + iw*x_sw] (0 outside H x W), with
 *	j = (oh, ow), ih = oh*sh - pt + kh*dh, iw = ow*sw - pl + kw*dw;
 *   C(m, j) -> y[m*y_sm + oh*y_sh + ow*y_sw].
 * MATMUL: Cin = K, KH = KW = 1, H = 1, W = Wo = N.
 */
struct ane_gemm {
	const uint16_t *a;
	uint64_t a_sm, a_sc, a_sh, a_sw;
	const uint16_t *x;
	uint64_t x_sc, x_sh, x_sw;
	uint32_t cin, kh, kw, h, w;
	uint32_t sh, sw, dh, dw, pt, pl, wo;
	uint16_t *y;
	uint64_t y_sm, y_sh, y_sw;
	const uint16_t *bias;	/* NULL or one element per row m */
	uint64_t bias_s;
	uint32_t act;
};

/*
 * One GEMM chunk, as ane_math.c hands it to an ISA path: either pack
 * column units [u0, u1) of the B block (columns [n0, n0 + nlen) of the
 * problem) into @pb, or (@compute) compute rows [m0, m0 + mlen) by block
 * columns [c0, c1), packing that A block into @pa first if @pack_a.  The
 * A area at @pa is the plan's, sized for @mc rows of SSE2's layout (16
 * bytes per element).  A packing chunk is number @part of its block's
 * @parts (a path may split the block's packing its own way, as long as
 * the @parts chunks together pack all of it).  @M and @N are the problem's
 * rows and columns.  @nc, @blk (the B block's number in its problem) and
 * compute chunk @idx of the block's @count are for a path that divides
 * the block's work its own way (ane_conv_chunk_avx512()).
 *
 * With depth blocks (@pc not NULL; MATMUL only) @K is the depth block's
 * and the problem's A and x start at its first k, so that the chunk is a
 * GEMM of its own; but each register tile of C starts from the fp32
 * partial sums the previous depth block left at @pc (unless @kfirst), and
 * is stored to dst only by the last depth block (@klast), to @pc
 * otherwise.  The C block's partial sums are round_up(@M, 12) x @ldc
 * floats, the B block's from column @pcol; a path lays its tiles out
 * there as it likes: a tile of rows from ir and block columns from jr at
 * @pc + ir @ldc + (@pcol + jr) x (the tile's rows) fits, for tiles of 6
 * or 12 rows and 8, 16 or 32 columns.
 */
struct ane_gemm_chunk {
	uint32_t M, N, K, n0, nlen;
	uint32_t compute, pack_a;
	uint32_t u0, u1, part, parts;
	uint32_t m0, mlen, c0, c1, mc;
	uint32_t nc, blk, idx, count;
	uint32_t kfirst, klast, ldc, pcol;
	float *pa, *pb, *pc;
};

/*
 * Whether the AVX-512 path runs a GEMM on ane_math_conv1_avx512.c's
 * kernel for a B that is the input as it lies (1 x 1 convolutions with
 * stride 1 and no padding, MATMULs with contiguous B rows): the same
 * answer for every chunk of an operation, from the problem and the plan
 * (@c's M, N, K and mc) alone.  Integer only; built with that path (x86_64).
 */
int ane_conv1_avx512_fits(const struct ane_gemm *g,
			  const struct ane_gemm_chunk *c);

#ifdef ANE_MATH_FPU
/*
 * Bias, activation and rounding of one tile of C computed by an inner
 * kernel: @rows x @cols values, row i at @tile + i * @ld, column j of the
 * tile at position @pos[j] (NULL: at j).  Rows from @m, columns from @col
 * (a GEMM column index).  In ane_math.c, shared by the ISA paths.
 */
void ane_gemm_store_tile(const struct ane_gemm *g, const float *tile,
			 uint32_t ld, const uint8_t *pos, uint32_t m,
			 uint32_t rows, uint32_t col, uint32_t cols);

/*
 * The input origin (top-left tap, padding included) of each of the @nr
 * columns of panel @jp of columns [n0, n0 + nlen) of a GEMM's implicit B:
 * row @ih0[j], column @iw0[j]; a column past @nlen gets a row no tap can
 * reach.  Returns 1 when all @nr columns lie in one output row at unit
 * strides, so that each tap's inputs are @nr consecutive elements.
 */
static inline int ane_panel_origins(const struct ane_gemm *g, uint32_t n0,
				    uint32_t nlen, uint32_t jp, uint32_t nr,
				    int64_t *ih0, int64_t *iw0)
{
	uint32_t j;

	for (j = 0; j < nr; j++) {
		uint32_t col = jp * nr + j;

		if (col < nlen) {
			col += n0;
			ih0[j] = (int64_t)(col / g->wo) * g->sh - g->pt;
			iw0[j] = (int64_t)(col % g->wo) * g->sw - g->pl;
		} else {
			ih0[j] = -((int64_t)1 << 40);	/* never valid */
			iw0[j] = 0;
		}
	}
	return jp * nr + nr <= nlen && ih0[nr - 1] == ih0[0] &&
	       g->sw == 1 && g->x_sw == 1;
}

/* The AVX2 + FMA + F16C path of one GEMM chunk (ane_math_avx2.c). */
void ane_gemm_chunk_avx2(const struct ane_gemm *g,
			 const struct ane_gemm_chunk *c);

/*
 * The AVX2 path's packing and stores, which the AVX-512 path shares (a CPU
 * with AVX-512 has AVX2, FMA and F16C; see ane_engine_widest_isa()):
 * A in panels of ANE_MR rows, pa[panel][k][i]; B in panels of ANE_NR_AVX2
 * columns, pb[panel][k][j], panels [u0, u1); one ANE_MR x ANE_NR_AVX2
 * tile of C (row-major, 16 per row) biased, activated, rounded and stored.
 */
void ane_pack_a_avx2(const struct ane_gemm *g, uint32_t K,
		     uint32_t m0, uint32_t mlen, float *pa);
void ane_pack_b_avx2(const struct ane_gemm *g, uint32_t K, uint32_t n0,
		     uint32_t nlen, float *pb, uint32_t u0, uint32_t u1);
void ane_store_tile_avx2(const struct ane_gemm *g, const float *tile,
			 uint32_t m, uint32_t rows, uint32_t col,
			 uint32_t cols);

/* The AVX-512 path of one GEMM chunk (ane_math_avx512.c). */
void ane_gemm_chunk_avx512(const struct ane_gemm *g,
			   const struct ane_gemm_chunk *c);

/* One chunk on the AVX-512 1 x 1 path (see ane_conv1_avx512_fits()). */
void ane_gemm_chunk_conv1_avx512(const struct ane_gemm *g,
				 const struct ane_gemm_chunk *c);

/*
 * The AVX-512 path's direct convolution (ane_math_conv_avx512.c): runs the
 * chunk and returns 1 when the convolution is one it takes (the same
 * answer for every chunk of a run), else returns 0 having done nothing.
 */
int ane_conv_chunk_avx512(const struct ane_gemm *g,
			  const struct ane_gemm_chunk *c);

/*
 * The AVX2 + F16C row loops (ane_math_rows_avx2.c), the same bits as
 * ane_math_rows.c's: y = act(a OP b) over the whole groups of eight of a
 * contiguous row (returns how many elements it did), a softmax's
 * exponentials, contiguous fp16 rows to fp32 and back (times a factor),
 * and y += a x.
 */
uint32_t ane_elt_row_avx2(uint32_t op, uint32_t act, const uint16_t *a,
			  uint64_t as, const uint16_t *b, uint64_t bs,
			  uint16_t *y, uint32_t len);
void ane_exp_sub_avx2(float *e, uint32_t n, float mx);
void ane_h2f_row_avx2(const uint16_t *x, uint32_t n, float *v);
void ane_f2h_row_avx2(const float *v, float mul, uint32_t n, uint16_t *y);
void ane_axpy_avx2(float *y, const float *x, float a, uint32_t n);
/*
 * The rows of a NORM over W from @n contiguous fp16 at @x, the fp32
 * results in @e (ane_norm_row()): a softmax's exponentials of x - max,
 * returning their sum (the maximum in @mx), or a layer normalization's
 * x - mean, returning the sum of their squares; each sum ane_sum8()'s.
 */
float ane_softmax_row_avx2(const uint16_t *x, uint32_t n, float *e, float *mx);
float ane_layer_row_avx2(const uint16_t *x, uint32_t n, float *e);
/*
 * A SOFTMAX over @c channels (@xs, @ys apart) at eight (sixteen)
 * contiguous positions, a lane each: ane_softmax_pos()'s bits.
 */
void ane_softmax_cols_avx2(const uint16_t *x, uint64_t xs, uint16_t *y,
			   uint64_t ys, uint32_t c);
/* A direct convolution's taps on whole groups of eight outputs. */
uint32_t ane_dw_row_avx2(const uint16_t *const *x, const float *wt, uint32_t taps,
			 uint32_t sw, float *acc, uint32_t n);
/* A pool's column step over whole groups of eight (ane_math_pool.c). */
uint32_t ane_pool_cols_avx2(const uint16_t *x, uint64_t xs, uint32_t rows,
			    float *cols, uint32_t n, int max);

void ane_dw_taps_avx2(const struct ane_dw_taps *k, float *acc);
void ane_dw_taps_avx512(const struct ane_dw_taps *k, float *acc);
/*
 * @pairs pairs of fp16 at @x to fp32, the first of each at @even, the
 * second at @odd; @even and @odd take whole groups of eight (sixteen).
 */
void ane_h2f_split_avx2(const uint16_t *x, uint32_t pairs, float *even,
			float *odd);
void ane_h2f_split_avx512(const uint16_t *x, uint32_t pairs, float *even,
			  float *odd);

/*
 * ane_elt_row_avx2() and ane_exp_sub_avx2() sixteen values a step
 * (ane_math_rows_avx512.c).
 */
uint32_t ane_elt_row_avx512(uint32_t op, uint32_t act, const uint16_t *a,
			    uint64_t as, const uint16_t *b, uint64_t bs,
			    uint16_t *y, uint32_t len);
void ane_exp_sub_avx512(float *e, uint32_t n, float mx);
float ane_softmax_row_avx512(const uint16_t *x, uint32_t n, float *e, float *mx);
void ane_softmax_cols_avx512(const uint16_t *x, uint64_t xs, uint16_t *y,
			     uint64_t ys, uint32_t c);
float ane_layer_row_avx512(const uint16_t *x, uint32_t n, float *e);
void ane_f2h_row_avx512(const float *v, float mul, uint32_t n, uint16_t *y);
uint32_t ane_pool_cols_avx512(const uint16_t *x, uint64_t xs, uint32_t rows,
			      float *cols, uint32_t n, int max);
uint32_t ane_dw_row_avx512(const uint16_t *const *x, const float *wt, uint32_t taps,
			   uint32_t sw, float *acc, uint32_t n);
#endif

/* ------------------------------------------------------------ fp16 bits */

/* fp32 bits -> fp16, round to nearest even; NaN stays NaN (quiet). */
static inline uint16_t ane_f2h_bits(uint32_t f)
{
	uint32_t sign = (f >> 16) & 0x8000u;
	uint32_t a = f & 0x7fffffffu;
	uint32_t e, m, shift, r, rem, half;

	if (a >= 0x7f800000u) {
		if (a == 0x7f800000u)
			return (uint16_t)(sign | 0x7c00u);
		/* NaN: quiet, keep the top payload bits. */
		return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
	}
	if (a >= 0x477ff000u)		/* >= 65520 rounds to infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (a >= 0x38800000u) {		/* normal fp16: >= 2^-14 */
		a -= 0x38000000u;	/* rebias 127 -> 15 */
		a += 0xfffu + ((a >> 13) & 1u);
		return (uint16_t)(sign | (a >> 13));
	}
	if (a <= 0x33000000u)		/* <= 2^-25: ties to even zero */
		return (uint16_t)sign;
	/* Subnormal fp16: value / 2^-24, rounded to nearest even. */
	e = a >> 23;			/* 102 .. 112 */
	m = (a & 0x7fffffu) | 0x800000u;
	shift = 126u - e;		/* 14 .. 24 */
	r = m >> shift;
	rem = m & ((1u << shift) - 1u);
	half = 1u << (shift - 1u);
	if (rem > half || (rem == half && (r & 1u)))
		r++;
	return (uint16_t)(sign | r);
}

/* fp16 -> fp32 bits, exact. */
static inline uint32_t ane_h2f_bits(uint16_t h)
{
	uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
	uint32_t e = ((uint32_t)h >> 10) & 0x1fu;
	uint32_t m = (uint32_t)h & 0x3ffu;

	if (e == 0x1fu)
		return sign | 0x7f800000u | (m << 13);
	if (e)
		return sign | ((e + 112u) << 23) | (m << 13);
	if (!m)
		return sign;
	/* Subnormal: normalise. */
	e = 113u;
	while (!(m & 0x400u)) {
		m <<= 1;
		e--;
	}
	return sign | (e << 23) | ((m & 0x3ffu) << 13);
}

#endif /* ANE_MATH_IMPL_H */
