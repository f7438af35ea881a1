// SPDX-License-Identifier: GPL-2.0-only
/*
 * The integer half of the engine's math: fp16 bit conversions, workspace
 * sizes and the chunk plan (descriptor validation is the specification's,
 * firmware/spec/ane_op_check.c).
 * No floating point here: in the kernel this object is built without FPU
 * flags and may be called from anywhere; on the host it is built with
 * -mgeneral-regs-only to prove it.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_impl.h"

/* ------------------------------------------------------------ ISA */

uint32_t ane_math_isa = ANE_MATH_ISA_SSE2;

int ane_math_isa_built(uint32_t isa)
{
	return isa < ANE_MATH_ISA_COUNT && ((ane_math_isas_built >> isa) & 1u);
}

int ane_math_set_isa(uint32_t isa)
{
	if (!ane_math_isa_built(isa))
		return -ANE_MATH_EINVAL;
	ane_math_isa = isa;
	return 0;
}

uint32_t ane_math_get_isa(void)
{
	return ane_math_isa;
}

/* ------------------------------------------------------------ fp16 bits */

uint16_t ane_fp16_from_fp32_bits(uint32_t f)
{
	return ane_f2h_bits(f);
}

uint32_t ane_fp16_to_fp32_bits(uint16_t h)
{
	return ane_h2f_bits(h);
}

void ane_tensor_dense(struct ane_tensor *t, void *base, uint32_t n,
		      uint32_t c, uint32_t h, uint32_t w)
{
	t->base = base;
	t->dim[ANE_N] = n;
	t->dim[ANE_C] = c;
	t->dim[ANE_H] = h;
	t->dim[ANE_W] = w;
	t->stride[ANE_W] = 1;
	t->stride[ANE_H] = w;
	t->stride[ANE_C] = (uint64_t)h * w;
	t->stride[ANE_N] = (uint64_t)c * h * w;
	t->size = (uint64_t)n * c * h * w * 2;
}

/* ------------------------------------------------------------ plan */

static int ane_add_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

static uint64_t ane_round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

static uint64_t ane_clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Split @len into the fewest blocks of at most @cap (a multiple of @unit,
 * at least @unit), balanced, each a multiple of @unit.  Returns the block.
 */
static uint64_t ane_balance(uint64_t len, uint64_t cap, uint64_t unit,
			    uint32_t *blocks)
{
	uint64_t n;

	cap = cap / unit * unit;
	if (cap < unit)
		cap = unit;
	n = (len + cap - 1) / cap;
	*blocks = (uint32_t)n;
	return ane_round_up((len + n - 1) / n, unit);
}

static void ane_plan_gemm(struct ane_plan *p, uint64_t budget, int matmul)
{
	uint64_t k4 = (uint64_t)p->K * 4, nc, mc, ncc, cap, unit, m2, m12;
	uint32_t nb;
	int wide;

	p->kblocks = 1;
	p->kc = p->K;
	p->nbc = 1;

	/*
	 * The same plan serves both ISA paths: columns in units of ANE_NU
	 * (two SSE2 panels, one AVX2 panel), the A area sized for SSE2's
	 * broadcast quadruples (16 bytes per element; AVX2 uses a quarter).
	 */
	mc = ANE_PACK_A_BYTES / (k4 * 4);
	if (mc < ANE_MC_MIN)
		mc = ANE_MC_MIN;
	if (matmul && ane_round_up(p->M, ANE_MR) * k4 * 4 <= ANE_PACK_A_ONCE_BYTES) {
		/* small M: A packed once, B in blocks that stay in L2 */
		mc = ane_balance(p->M, ane_round_up(p->M, ANE_MR), ANE_MR,
				 &p->mblocks);
		p->a_once = 1;
		nc = ane_balance(p->N, ANE_PACK_B_SMALL_BYTES / k4, ANE_NU,
				 &p->nblocks);
	} else if (matmul && ane_round_up(p->M, ANE_MR) <= ANE_KB_MAX_M &&
		   p->K > ANE_KB_KC) {
		/*
		 * Small M and deep: depth blocks of all the rows (see
		 * ANE_KB_KC); the last block takes what is left, never
		 * nothing.
		 */
		p->kc = (uint32_t)ane_balance(p->K, ANE_KB_KC, ANE_KB_UNIT,
					      &p->kblocks);
		p->kblocks = (p->K + p->kc - 1) / p->kc;
		k4 = (uint64_t)p->kc * 4;
		mc = ane_round_up(p->M, ANE_MR);
		p->mblocks = 1;
		m12 = ane_round_up(p->M, 2 * ANE_MR);
		nc = ane_balance(p->N, ANE_KB_B_BYTES / k4, ANE_NU, &p->nblocks);
		p->nbc = (uint32_t)ane_clamp(ANE_KB_C_BYTES / (m12 * 4 * nc), 1,
					     p->nblocks);
		/* A packed by each depth block's first B block */
		p->a_once = 1;
	} else {
		cap = mc;
		mc = ane_balance(p->M, cap, ANE_MR, &p->mblocks);
		/*
		 * Blocks that end inside a 16-row group move their
		 * boundaries to 96 (else 48) rows where that takes no more
		 * blocks and no more than the budget: whole 12-row tiles
		 * and whole 32- (16-) channel vectors of the AVX-512 1 x 1
		 * kernel (ane_math_conv1_avx512.c), whose lanes past a
		 * block's end are computed for nothing.  M 256, K 256: 96,
		 * 96, 64, not 90, 90, 76.
		 */
		for (unit = 96; p->mblocks > 1 && mc % 16 && unit >= 48;
		     unit /= 2) {
			m2 = ane_balance(p->M, cap, unit, &nb);
			if (nb == p->mblocks && m2 <= cap) {
				mc = m2;
				break;
			}
		}
		/*
		 * A is packed once per B block, B read once per A block:
		 * wide B blocks when there is one A block, or when A is so
		 * large that converting it again costs more than reading
		 * B from L3.
		 */
		wide = p->mblocks == 1 ||
		       (uint64_t)p->M * p->K >= ANE_PACK_B_WIDE_MK;
		nc = ane_balance(p->N, (wide ? ANE_PACK_B_WIDE_BYTES :
					ANE_PACK_B_BYTES) / k4,
				 ANE_NU, &p->nblocks);
	}
	ncc = ane_balance(nc, budget / (mc * (p->kc + ANE_COST_STORE)), ANE_NU,
			  &p->nsub);
	/*
	 * One B block whose last column chunk would be a sliver (N 196:
	 * 64, 64, 64 and 4): the chunk before takes it (64, 64, 68), so
	 * that no chunk reads its A block again for a few columns.  A
	 * block's last chunk always ends at its last column (see
	 * ane_plan_gemm_at()).
	 */
	if (p->nblocks == 1 && p->nsub > 1 &&
	    p->N - (uint64_t)(p->nsub - 1) * ncc <= ANE_NU / 2)
		p->nsub--;
	p->bppc = (uint32_t)ane_balance(nc / ANE_NU,
					budget / (k4 / 4 * ANE_NU * ANE_COST_PACK),
					1, &p->nbpack);
	p->nc = (uint32_t)nc;
	p->mc = (uint32_t)mc;
	p->ncc = (uint32_t)ncc;
	p->chunks = p->problems * p->nblocks * p->kblocks *
		    ((uint64_t)p->nbpack + (uint64_t)p->mblocks * p->nsub);
	p->b_off = ane_round_up(mc * k4 * 4, ANE_MATH_WORK_ALIGN);
	p->work_size = p->b_off + nc * k4;
	if (p->kblocks > 1) {
		p->work_size = ane_plan_c_off(p) +
			       ane_round_up(p->M, 2 * ANE_MR) * p->nbc * nc * 4;
	}
}

void ane_plan_gemm_at(const struct ane_plan *p, uint64_t chunk,
		      struct ane_gemm_at *at)
{
	uint64_t per = (uint64_t)p->nbpack + (uint64_t)p->mblocks * p->nsub;
	uint64_t t = chunk % per, r = chunk / per;
	uint64_t pb = (uint64_t)p->nblocks * p->kblocks, q = r % pb;
	uint64_t full = (uint64_t)p->nbc * p->kblocks, cb = q / full;
	uint64_t rem = q % full, gsz = p->nblocks - cb * p->nbc;
	uint32_t ib;

	/* C block cb of at most nbc B blocks, depth-block-major */
	*at = (struct ane_gemm_at){ 0 };
	if (gsz > p->nbc)
		gsz = p->nbc;
	at->prob = r / pb;
	at->kb = (uint32_t)(rem / gsz);
	at->jb = (uint32_t)(cb * p->nbc + rem % gsz);
	at->pcol = (uint32_t)(rem % gsz) * p->nc;
	at->n0 = at->jb * p->nc;
	at->nlen = p->N - at->n0 < p->nc ? p->N - at->n0 : p->nc;
	at->k0 = at->kb * p->kc;
	at->kn = p->K - at->k0 < p->kc ? p->K - at->k0 : p->kc;
	if (t < p->nbpack) {
		at->pack = 1;
		at->part = (uint32_t)t;
		return;
	}
	t -= p->nbpack;
	at->sub = (uint32_t)(t % p->nsub);
	ib = (uint32_t)(t / p->nsub);
	at->m0 = ib * p->mc;
	at->mlen = p->M - at->m0 < p->mc ? p->M - at->m0 : p->mc;
	at->c0 = at->sub * p->ncc;
	at->c1 = at->c0 + p->ncc < at->nlen && at->sub + 1 < p->nsub ?
		 at->c0 + p->ncc : at->nlen;
	if (at->c1 < at->c0)
		at->c1 = at->c0;
	/* with a_once, by the first B block (of the C block: pcol 0) */
	at->pack_a = at->sub == 0 && (!p->a_once || (p->kblocks > 1 ?
						       !at->pcol : !at->jb));
}

/*
 * Row operations: @rows rows of @width elements costing @cost each.  A row
 * longer than the budget is cut into balanced segments; a chunk is as
 * many segments as fit the budget (at least one).
 */
static void ane_plan_rows(struct ane_plan *p, uint64_t budget, uint64_t rows,
			  uint32_t width, uint64_t cost)
{
	uint64_t seg, upc;

	if (!cost)
		cost = 1;
	seg = ane_balance(width, budget / cost, 1, &p->nseg);
	p->kind = ANE_PLAN_ROWS;
	p->width = width;
	p->seg_w = (uint32_t)seg;
	p->rows = rows * p->nseg;
	upc = budget / (seg * cost);
	p->rows_per_chunk = ane_clamp(upc, 1, p->rows);
	p->chunks = (p->rows + p->rows_per_chunk - 1) / p->rows_per_chunk;
}

static uint64_t ane_act_cost(uint32_t act)
{
	switch (act) {
	case ANE_ACT_NONE:
	case ANE_ACT_RELU:
	case ANE_ACT_RELU6:
		return 0;
	case ANE_ACT_RECIP:
	case ANE_ACT_ABS:
	case ANE_ACT_NEG:
	case ANE_ACT_SOFTSIGN:
	case ANE_ACT_HARDSWISH:
	case ANE_ACT_LEAKY:
	case ANE_ACT_CLIP:
	case ANE_ACT_HARDSIGMOID:
	case ANE_ACT_THRESHOLDED_RELU:
		return ANE_COST_ACT_SCALAR;	/* one scalar step each */
	case ANE_ACT_LOG:
	case ANE_ACT_SQRT:
	case ANE_ACT_ERF:
	case ANE_ACT_SOFTPLUS:
	case ANE_ACT_SIN:
	case ANE_ACT_COS:
		return ANE_COST_ACT_FN;		/* in double, or bit by bit */
	default:	/* sigmoid, tanh, GELU, the exponentials */
		return ANE_COST_ACT_TRANS;
	}
}

/*
 * REDUCE: a unit is a segment of one pass over one dst element's reduced
 * elements (see ane_reduce_passes()), at most 2^30 of them and at least
 * count / 2^30 so that the segments number at most 2^30; a chunk is as
 * many units as fit the budget.  The accumulator waits in the workspace
 * when an element takes more than one unit.
 */
static void ane_plan_reduce(const struct ane_op_desc *d, struct ane_plan *p,
			    uint64_t budget)
{
	const uint32_t *x = d->src[0].dim, *y = d->dst.dim;
	uint64_t outs = (uint64_t)y[0] * y[1] * y[2] * y[3];
	uint64_t count = (uint64_t)x[0] * x[1] * x[2] * x[3] / outs;
	uint64_t passes = ane_reduce_passes(d), cost, cap, seg;

	cost = passes > 1 ? ANE_COST_REDUCE_EXP : ANE_COST_REDUCE;
	cap = ane_clamp(budget / cost, (count >> 30) + 1, 1u << 30);
	seg = ane_balance(count, cap, 1, &p->nseg);
	p->kind = ANE_PLAN_ROWS;
	p->width = 1;
	p->seg_w = (uint32_t)seg;
	p->rows = outs * passes * p->nseg;
	p->rows_per_chunk = ane_clamp(budget / (seg * cost), 1, p->rows);
	p->chunks = (p->rows + p->rows_per_chunk - 1) / p->rows_per_chunk;
	if (passes * p->nseg > 1)
		p->work_size = ANE_MATH_WORK_ALIGN;
}

void ane_plan_make(const struct ane_op_desc *d, struct ane_plan *p)
{
	const struct ane_tensor *y = &d->dst, *x = &d->src[0];
	uint64_t budget = d->chunk_work ? d->chunk_work :
			  ANE_MATH_CHUNK_WORK_DEFAULT;
	uint64_t ydim_nc = (uint64_t)y->dim[ANE_N] * y->dim[ANE_C];
	uint64_t rows = ydim_nc * y->dim[ANE_H];
	uint64_t cost;

	*p = (struct ane_plan){ 0 };
	switch (d->op) {
	case ANE_OP_MATMUL:
		p->kind = ANE_PLAN_GEMM;
		p->M = y->dim[ANE_H];
		p->N = y->dim[ANE_W];
		p->K = x->dim[ANE_W];
		p->problems = ydim_nc;
		ane_plan_gemm(p, budget, 1);
		break;
	case ANE_OP_CONV: {
		const struct ane_tensor *w = &d->src[1];
		uint32_t g = d->p.conv.groups;
		uint64_t cin_g = x->dim[ANE_C] / g;
		uint64_t taps = cin_g * w->dim[ANE_H] * w->dim[ANE_W];

		if (y->dim[ANE_C] / g <= ANE_DIRECT_MAX_COUT) {
			uint64_t span;

			cost = taps * ANE_COST_DIRECT + ANE_COST_ELT +
			       ane_act_cost(d->act);
			ane_plan_rows(p, budget, rows, y->dim[ANE_W], cost);
			/* acc[seg_w], then the input columns a segment reaches */
			span = ((uint64_t)p->seg_w - 1) * d->p.conv.stride[1] +
			       ((uint64_t)w->dim[ANE_W] - 1) * d->p.conv.dilation[1] + 1;
			p->b_off = ane_round_up((uint64_t)p->seg_w * 4,
						ANE_MATH_WORK_ALIGN);
			/* or the depthwise rows' phase rows, if more */
			if (ane_conv_dw_fits(d)) {
				uint64_t ph = ANE_DW_HDR_FLOATS +
					      (uint64_t)w->dim[ANE_H] *
					      d->p.conv.stride[1] *
					      ane_dw_phase_len(d, p->seg_w);

				span = ph > span ? ph : span;
			}
			p->work_size = p->b_off + ane_round_up(span * 4,
							       ANE_MATH_WORK_ALIGN);
			break;
		}
		p->kind = ANE_PLAN_GEMM;
		p->M = y->dim[ANE_C] / g;
		p->N = y->dim[ANE_H] * y->dim[ANE_W];
		p->K = (uint32_t)taps;
		p->problems = (uint64_t)y->dim[ANE_N] * g;
		ane_plan_gemm(p, budget, 0);
		break;
	}
	case ANE_OP_POOL:
		cost = (uint64_t)d->p.pool.kernel[0] * d->p.pool.kernel[1] *
		       ANE_COST_POOL + ANE_COST_ELT + ane_act_cost(d->act);
		ane_plan_rows(p, budget, rows, y->dim[ANE_W], cost);
		break;
	case ANE_OP_SOFTMAX:
		cost = (uint64_t)y->dim[ANE_C] * ANE_COST_SOFTMAX;
		ane_plan_rows(p, budget, (uint64_t)y->dim[ANE_N] * y->dim[ANE_H] *
			      y->dim[ANE_W], 1, cost);
		p->work_size = ane_round_up((uint64_t)y->dim[ANE_C] * 4,
					    ANE_MATH_WORK_ALIGN);
		break;
	case ANE_OP_NORM:
		/* a row of W per unit, W floats of workspace */
		cost = (uint64_t)y->dim[ANE_W] * ANE_COST_SOFTMAX;
		ane_plan_rows(p, budget, (uint64_t)y->dim[ANE_N] * y->dim[ANE_C] *
			      y->dim[ANE_H], 1, cost);
		p->work_size = ane_round_up((uint64_t)y->dim[ANE_W] * 4,
					    ANE_MATH_WORK_ALIGN);
		break;
	case ANE_OP_COPY:
	case ANE_OP_GATHER:	/* rows: dst's (n, c, k) */
		ane_plan_rows(p, budget, rows, y->dim[ANE_W], ANE_COST_COPY);
		break;
	case ANE_OP_REDUCE:
		ane_plan_reduce(d, p, budget);
		break;
	default:	/* ELTWISE, ACT */
		cost = ANE_COST_ELT + ane_act_cost(d->act);
		if (d->op == ANE_OP_ELTWISE && d->p.eltwise.op == ANE_ELT_POW)
			cost += ANE_COST_ACT_FN;
		ane_plan_rows(p, budget, rows, y->dim[ANE_W], cost);
		break;
	}
}

/* ------------------------------------------------------------ API */

int ane_op_workspace_size(const struct ane_op_desc *d, uint64_t *size)
{
	struct ane_plan p;
	int ret = ane_op_check(d);

	if (ret)
		return ret;
	ane_plan_make(d, &p);
	*size = p.work_size;
	return 0;
}

/* The opaque plan holds the engine's (a negative size fails the build). */
typedef char ane_op_plan_fits[sizeof(struct ane_plan) <=
			      sizeof(struct ane_op_plan) ? 1 : -1];

/* ane_op_validate(), the plan made on the way into *@p. */
static int ane_op_validate_plan(const struct ane_op_desc *d,
				struct ane_plan *p)
{
	uint64_t end;
	unsigned int i;
	int ret = ane_op_check(d);

	if (ret)
		return ret;
	ane_plan_make(d, p);
	if (!p->work_size)
		return 0;
	if (!d->work || ((uintptr_t)d->work & (ANE_MATH_WORK_ALIGN - 1)))
		return -ANE_MATH_EINVAL;
	if (d->work_size < p->work_size)
		return -ANE_MATH_ENOSPC;
	if (!ane_add_ok((uint64_t)(uintptr_t)d->work, p->work_size, &end) ||
	    end > (uint64_t)(uintptr_t)-1)
		return -ANE_MATH_EOVERFLOW;
	/* The workspace must not be any tensor's memory. */
	for (i = 0; i < 4; i++) {
		const struct ane_tensor *t = i < 2 ? &d->src[i] :
					     i == 2 ? &d->bias : &d->dst;
		uint64_t e, t0 = (uint64_t)(uintptr_t)t->base;
		uint64_t w0 = (uint64_t)(uintptr_t)d->work;

		if (!t->base || ane_tensor_extent(t, &e))
			continue;
		if (t0 < w0 + p->work_size && w0 < t0 + e)
			return -ANE_MATH_EINVAL;
	}
	return 0;
}

int ane_op_validate(const struct ane_op_desc *d)
{
	struct ane_plan p;

	return ane_op_validate_plan(d, &p);
}

int ane_op_prepare(const struct ane_op_desc *d, struct ane_op_plan *plan)
{
	struct ane_plan p;
	int ret = ane_op_validate_plan(d, &p);

	if (!ret)
		__builtin_memcpy(plan, &p, sizeof(p));
	return ret;
}

uint64_t ane_op_plan_chunks(const struct ane_op_plan *plan)
{
	struct ane_plan p;

	__builtin_memcpy(&p, plan, sizeof(p));
	return p.chunks;
}

uint64_t ane_op_chunks(const struct ane_op_desc *d)
{
	struct ane_plan p;

	ane_plan_make(d, &p);
	return p.chunks;
}
