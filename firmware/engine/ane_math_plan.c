// SPDX-License-Identifier: GPL-2.0-only
/*
 * The integer half of the engine's math: fp16 bit conversions, descriptor
 * validation, workspace sizes and the chunk plan.  No floating point here:
 * in the kernel this object is built without FPU flags and may be called
 * from anywhere; on the host it is built with -mgeneral-regs-only to prove
 * it.
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

/* ------------------------------------------------------------ tensors */

static int ane_mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}

static int ane_add_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

static int ane_tensor_is_zero(const struct ane_tensor *t)
{
	unsigned int i;

	if (t->base || t->size)
		return 0;
	for (i = 0; i < ANE_NDIM; i++)
		if (t->dim[i] || t->stride[i])
			return 0;
	return 1;
}

/* Bytes from base to one past the last element of @t. */
static int ane_tensor_extent(const struct ane_tensor *t, uint64_t *bytes)
{
	uint64_t last = 0, elems = 1, term;
	unsigned int i;

	for (i = 0; i < ANE_NDIM; i++) {
		if (t->dim[i] < 1 || t->dim[i] > ANE_MATH_MAX_DIM)
			return -ANE_MATH_EINVAL;
		if (!ane_mul_ok(elems, t->dim[i], &elems))
			return -ANE_MATH_EOVERFLOW;
		if (t->dim[i] == 1)
			continue;
		if (!ane_mul_ok(t->dim[i] - 1, t->stride[i], &term) ||
		    !ane_add_ok(last, term, &last))
			return -ANE_MATH_EOVERFLOW;
	}
	if (elems > ANE_MATH_MAX_ELEMS)
		return -ANE_MATH_EOVERFLOW;
	if (!ane_add_ok(last, 1, &last) || !ane_mul_ok(last, 2, bytes))
		return -ANE_MATH_EOVERFLOW;
	return 0;
}

/* A present tensor: dimensions, alignment, and everything inside size. */
static int ane_tensor_check(const struct ane_tensor *t)
{
	uint64_t bytes, end;
	int ret;

	if (!t->base || ((uintptr_t)t->base & 1u))
		return -ANE_MATH_EINVAL;
	ret = ane_tensor_extent(t, &bytes);
	if (ret)
		return ret;
	if (!ane_add_ok((uint64_t)(uintptr_t)t->base, t->size, &end) ||
	    end > (uint64_t)(uintptr_t)-1)
		return -ANE_MATH_EOVERFLOW;
	if (bytes > t->size)
		return -ANE_MATH_ENOSPC;
	return 0;
}

/*
 * No two elements of an output share memory: with the non-trivial
 * dimensions sorted by stride, each stride exceeds the span of all the
 * smaller ones.
 */
static int ane_tensor_no_self_overlap(const struct ane_tensor *t)
{
	uint64_t s[ANE_NDIM], d[ANE_NDIM], span = 0, term;
	unsigned int n = 0, i, j;

	for (i = 0; i < ANE_NDIM; i++) {
		if (t->dim[i] == 1)
			continue;
		/* insertion sort by stride */
		for (j = n; j > 0 && s[j - 1] > t->stride[i]; j--) {
			s[j] = s[j - 1];
			d[j] = d[j - 1];
		}
		s[j] = t->stride[i];
		d[j] = t->dim[i];
		n++;
	}
	for (i = 0; i < n; i++) {
		if (s[i] <= span)
			return 0;
		/* cannot overflow: ane_tensor_extent() bounded the sum */
		term = (d[i] - 1) * s[i];
		span += term;
	}
	return 1;
}

static int ane_tensor_same_view(const struct ane_tensor *a,
				const struct ane_tensor *b)
{
	unsigned int i;

	if (a->base != b->base)
		return 0;
	for (i = 0; i < ANE_NDIM; i++)
		if (a->dim[i] != b->dim[i] ||
		    (a->dim[i] > 1 && a->stride[i] != b->stride[i]))
			return 0;
	return 1;
}

/* Do the byte ranges the two (checked) views reach intersect? */
static int ane_tensor_overlap(const struct ane_tensor *a,
			      const struct ane_tensor *b)
{
	uint64_t ea, eb, a0 = (uint64_t)(uintptr_t)a->base;
	uint64_t b0 = (uint64_t)(uintptr_t)b->base;

	if (ane_tensor_extent(a, &ea) || ane_tensor_extent(b, &eb))
		return 1;
	return a0 < b0 + eb && b0 < a0 + ea;
}

static int ane_dims_equal(const struct ane_tensor *a,
			  const struct ane_tensor *b)
{
	unsigned int i;

	for (i = 0; i < ANE_NDIM; i++)
		if (a->dim[i] != b->dim[i])
			return 0;
	return 1;
}

/* Bytes of the parameter union past the op's own member must be zero. */
static int ane_params_tail_zero(const struct ane_op_desc *d, size_t used)
{
	const unsigned char *p = (const unsigned char *)&d->p;
	size_t i;

	for (i = used; i < sizeof(d->p); i++)
		if (p[i])
			return 0;
	return 1;
}

/* ------------------------------------------------------------ shapes */

static int ane_check_conv(const struct ane_op_desc *d)
{
	const struct ane_conv_params *cp = &d->p.conv;
	const struct ane_tensor *x = &d->src[0], *w = &d->src[1], *y = &d->dst;
	uint32_t cin = x->dim[ANE_C], cout = y->dim[ANE_C], g = cp->groups;
	uint64_t k, ho, wo, plane;
	unsigned int i;

	if (!ane_params_tail_zero(d, sizeof(*cp)))
		return -ANE_MATH_EINVAL;
	if (g < 1 || cin % g || cout % g)
		return -ANE_MATH_EINVAL;
	if (w->dim[ANE_N] != cout || w->dim[ANE_C] != cin / g ||
	    y->dim[ANE_N] != x->dim[ANE_N])
		return -ANE_MATH_EINVAL;
	for (i = 0; i < 2; i++) {
		uint32_t kk = w->dim[ANE_H + i];

		if (kk > ANE_MATH_MAX_KERNEL ||
		    cp->stride[i] < 1 || cp->stride[i] > ANE_MATH_MAX_KERNEL ||
		    cp->dilation[i] < 1 || cp->dilation[i] > ANE_MATH_MAX_KERNEL)
			return -ANE_MATH_EINVAL;
		if (cp->pad[2 * i] >= cp->dilation[i] * (kk - 1) + 1 ||
		    cp->pad[2 * i + 1] >= cp->dilation[i] * (kk - 1) + 1)
			return -ANE_MATH_EINVAL;
	}
	k = (uint64_t)(cin / g) * w->dim[ANE_H] * w->dim[ANE_W];
	if (k > ANE_MATH_MAX_REDUCE)
		return -ANE_MATH_EINVAL;
	ho = ane_window_out(x->dim[ANE_H], cp->pad[ANE_PAD_TOP],
			    cp->pad[ANE_PAD_BOTTOM], w->dim[ANE_H],
			    cp->dilation[0], cp->stride[0]);
	wo = ane_window_out(x->dim[ANE_W], cp->pad[ANE_PAD_LEFT],
			    cp->pad[ANE_PAD_RIGHT], w->dim[ANE_W],
			    cp->dilation[1], cp->stride[1]);
	if (!ho || !wo || y->dim[ANE_H] != ho || y->dim[ANE_W] != wo)
		return -ANE_MATH_EINVAL;
	plane = ho * wo;
	if (plane > 0x7fffffffu)
		return -ANE_MATH_EOVERFLOW;
	if (d->bias.base) {
		if (d->bias.dim[ANE_N] != 1 || d->bias.dim[ANE_C] != cout ||
		    d->bias.dim[ANE_H] != 1 || d->bias.dim[ANE_W] != 1)
			return -ANE_MATH_EINVAL;
	} else if (!ane_tensor_is_zero(&d->bias)) {
		return -ANE_MATH_EINVAL;
	}
	return 0;
}

static int ane_batch_ok(uint32_t src, uint32_t dst)
{
	return src == dst || src == 1;
}

static int ane_check_matmul(const struct ane_op_desc *d)
{
	const struct ane_tensor *a = &d->src[0], *b = &d->src[1], *y = &d->dst;
	int tb = !!(d->p.matmul.flags & ANE_MATMUL_TRANS_B);
	uint32_t m = y->dim[ANE_H], n = y->dim[ANE_W], k = a->dim[ANE_W], i;

	if (!ane_params_tail_zero(d, sizeof(d->p.matmul)) ||
	    (d->p.matmul.flags & ~ANE_MATMUL_TRANS_B))
		return -ANE_MATH_EINVAL;
	if (a->dim[ANE_H] != m ||
	    b->dim[tb ? ANE_W : ANE_H] != k || b->dim[tb ? ANE_H : ANE_W] != n)
		return -ANE_MATH_EINVAL;
	if (!ane_batch_ok(a->dim[ANE_N], y->dim[ANE_N]) ||
	    !ane_batch_ok(a->dim[ANE_C], y->dim[ANE_C]) ||
	    !ane_batch_ok(b->dim[ANE_N], y->dim[ANE_N]) ||
	    !ane_batch_ok(b->dim[ANE_C], y->dim[ANE_C]))
		return -ANE_MATH_EINVAL;
	if (k > ANE_MATH_MAX_REDUCE)
		return -ANE_MATH_EINVAL;
	/* the optional bias broadcasts onto dst as an ELTWISE operand does */
	if (d->bias.base) {
		for (i = 0; i < ANE_NDIM; i++)
			if (!ane_batch_ok(d->bias.dim[i], y->dim[i]))
				return -ANE_MATH_EINVAL;
	} else if (!ane_tensor_is_zero(&d->bias)) {
		return -ANE_MATH_EINVAL;
	}
	return 0;
}

static int ane_check_eltwise(const struct ane_op_desc *d)
{
	unsigned int s, i;

	if (!ane_params_tail_zero(d, sizeof(d->p.eltwise)) ||
	    d->p.eltwise.op >= ANE_ELT_COUNT)
		return -ANE_MATH_EINVAL;
	for (s = 0; s < 2; s++)
		for (i = 0; i < ANE_NDIM; i++)
			if (!ane_batch_ok(d->src[s].dim[i], d->dst.dim[i]))
				return -ANE_MATH_EINVAL;
	if (!ane_tensor_is_zero(&d->bias))
		return -ANE_MATH_EINVAL;
	return 0;
}

static int ane_check_unary(const struct ane_op_desc *d)
{
	if (!ane_params_tail_zero(d, 0) || !ane_tensor_is_zero(&d->src[1]) ||
	    !ane_tensor_is_zero(&d->bias))
		return -ANE_MATH_EINVAL;
	if (!ane_dims_equal(&d->src[0], &d->dst))
		return -ANE_MATH_EINVAL;
	if (d->op == ANE_OP_SOFTMAX &&
	    (d->act != ANE_ACT_NONE || d->dst.dim[ANE_C] > ANE_MATH_MAX_SOFTMAX))
		return -ANE_MATH_EINVAL;
	return 0;
}

static int ane_check_norm(const struct ane_op_desc *d)
{
	if (!ane_params_tail_zero(d, sizeof(d->p.norm)) ||
	    !ane_tensor_is_zero(&d->src[1]) || !ane_tensor_is_zero(&d->bias))
		return -ANE_MATH_EINVAL;
	if (d->p.norm.kind >= ANE_NORM_COUNT || d->act != ANE_ACT_NONE)
		return -ANE_MATH_EINVAL;
	if (!ane_dims_equal(&d->src[0], &d->dst) ||
	    d->dst.dim[ANE_W] > ANE_MATH_MAX_SOFTMAX)
		return -ANE_MATH_EINVAL;
	return 0;
}

static int ane_check_pool(const struct ane_op_desc *d)
{
	const struct ane_pool_params *pp = &d->p.pool;
	const struct ane_tensor *x = &d->src[0], *y = &d->dst;
	uint64_t ho, wo;
	unsigned int i;

	if (!ane_params_tail_zero(d, sizeof(*pp)) ||
	    !ane_tensor_is_zero(&d->src[1]) || !ane_tensor_is_zero(&d->bias))
		return -ANE_MATH_EINVAL;
	if (pp->kind >= ANE_POOL_COUNT || (pp->flags & ~ANE_POOL_AVG_INCLUDE_PAD) ||
	    (pp->flags && pp->kind != ANE_POOL_AVG))
		return -ANE_MATH_EINVAL;
	for (i = 0; i < 2; i++) {
		if (pp->kernel[i] < 1 || pp->kernel[i] > ANE_MATH_MAX_KERNEL ||
		    pp->stride[i] < 1 || pp->stride[i] > ANE_MATH_MAX_KERNEL ||
		    pp->pad[2 * i] >= pp->kernel[i] ||
		    pp->pad[2 * i + 1] >= pp->kernel[i])
			return -ANE_MATH_EINVAL;
	}
	if (y->dim[ANE_N] != x->dim[ANE_N] || y->dim[ANE_C] != x->dim[ANE_C])
		return -ANE_MATH_EINVAL;
	ho = ane_window_out(x->dim[ANE_H], pp->pad[ANE_PAD_TOP],
			    pp->pad[ANE_PAD_BOTTOM], pp->kernel[0], 1,
			    pp->stride[0]);
	wo = ane_window_out(x->dim[ANE_W], pp->pad[ANE_PAD_LEFT],
			    pp->pad[ANE_PAD_RIGHT], pp->kernel[1], 1,
			    pp->stride[1]);
	if (!ho || !wo || y->dim[ANE_H] != ho || y->dim[ANE_W] != wo)
		return -ANE_MATH_EINVAL;
	return 0;
}

/* Everything but the buffers' contents and the workspace. */
static int ane_check_shapes(const struct ane_op_desc *d)
{
	unsigned int nsrc = 1, i;
	int ret, inplace_ok;

	if (!d || d->op == ANE_OP_NONE || d->op >= ANE_OP_COUNT ||
	    d->act >= ANE_ACT_COUNT)
		return -ANE_MATH_EINVAL;
	if (d->op == ANE_OP_CONV || d->op == ANE_OP_MATMUL ||
	    d->op == ANE_OP_ELTWISE)
		nsrc = 2;

	/* Every present tensor: dimensions, extents, sizes. */
	for (i = 0; i < nsrc; i++) {
		ret = ane_tensor_check(&d->src[i]);
		if (ret)
			return ret;
	}
	ret = ane_tensor_check(&d->dst);
	if (ret)
		return ret;
	if ((d->op == ANE_OP_CONV || d->op == ANE_OP_MATMUL) &&
	    d->bias.base) {
		ret = ane_tensor_check(&d->bias);
		if (ret)
			return ret;
	}
	if (!ane_tensor_no_self_overlap(&d->dst))
		return -ANE_MATH_EINVAL;

	switch (d->op) {
	case ANE_OP_CONV:
		ret = ane_check_conv(d);
		break;
	case ANE_OP_MATMUL:
		ret = ane_check_matmul(d);
		break;
	case ANE_OP_ELTWISE:
		ret = ane_check_eltwise(d);
		break;
	case ANE_OP_POOL:
		ret = ane_check_pool(d);
		break;
	case ANE_OP_NORM:
		ret = ane_check_norm(d);
		break;
	default:	/* ACT, SOFTMAX */
		ret = ane_check_unary(d);
		break;
	}
	if (ret)
		return ret;

	/* The output may alias an input only where that is well defined. */
	inplace_ok = d->op == ANE_OP_ELTWISE || d->op == ANE_OP_ACT ||
		     d->op == ANE_OP_SOFTMAX || d->op == ANE_OP_NORM;
	for (i = 0; i < nsrc; i++) {
		if (!ane_tensor_overlap(&d->dst, &d->src[i]))
			continue;
		if (!inplace_ok || !ane_tensor_same_view(&d->dst, &d->src[i]))
			return -ANE_MATH_EINVAL;
	}
	if ((d->op == ANE_OP_CONV || d->op == ANE_OP_MATMUL) &&
	    d->bias.base &&
	    ane_tensor_overlap(&d->dst, &d->bias))
		return -ANE_MATH_EINVAL;
	return 0;
}

/* ------------------------------------------------------------ plan */

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
	return act >= ANE_ACT_SIGMOID ? ANE_COST_ACT_TRANS : 0;
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
	default:	/* ELTWISE, ACT */
		cost = ANE_COST_ELT + ane_act_cost(d->act);
		ane_plan_rows(p, budget, rows, y->dim[ANE_W], cost);
		break;
	}
}

/* ------------------------------------------------------------ API */

int ane_op_workspace_size(const struct ane_op_desc *d, uint64_t *size)
{
	struct ane_plan p;
	int ret = ane_check_shapes(d);

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
	int ret = ane_check_shapes(d);

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
