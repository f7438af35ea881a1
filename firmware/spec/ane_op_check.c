// SPDX-License-Identifier: GPL-2.0-only
/*
 * The instruction set's operation checks (ane_isa.h): every tensor's
 * extent against its buffer with every product checked for overflow, the
 * shape rules of each operation, the parameters' ranges, unused fields
 * zero, and which tensors may share memory.  Part of the specification:
 * the driver's image validator, the task-descriptor decoder (ane_td.c)
 * and the engine (its workspace and plan, firmware/hw/engine/) all ask the
 * same question.  No floating point and no kernel header but through
 * ane_isa.h: built into the module and into the engine's userspace
 * builds alike.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_isa.h"

/* ------------------------------------------------------------ tensors */

static int ane_mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}

static int ane_add_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

/* Output extent of a window op along one axis (0 if the window never fits). */
static uint64_t ane_window_out(uint64_t in, uint64_t pad_lo, uint64_t pad_hi,
			       uint64_t kernel, uint64_t dilation,
			       uint64_t stride)
{
	uint64_t span = dilation * (kernel - 1) + 1;
	uint64_t full = in + pad_lo + pad_hi;

	if (full < span)
		return 0;
	return (full - span) / stride + 1;
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
int ane_tensor_extent(const struct ane_tensor *t, uint64_t *bytes)
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

/*
 * An activation's parameters (image minor version 4): a parametric one
 * only as the operation of ACT, its alpha and beta finite (CELU's alpha
 * not zero: it divides by it); the others' zero.  On the fp32 bits: no
 * floating point here.
 */
static int ane_check_act_params(const struct ane_op_desc *d)
{
	const struct ane_act_params *ap = &d->p.act;

	if (!ane_act_is_parametric(d->act))
		return d->op != ANE_OP_ACT || (!ap->alpha && !ap->beta) ? 0 :
		       -ANE_MATH_EINVAL;
	if (d->op != ANE_OP_ACT)
		return -ANE_MATH_EINVAL;
	if ((ap->alpha & 0x7f800000u) == 0x7f800000u ||
	    (ap->beta & 0x7f800000u) == 0x7f800000u)
		return -ANE_MATH_EINVAL;
	if (d->act == ANE_ACT_CELU && !(ap->alpha & 0x7fffffffu))
		return -ANE_MATH_EINVAL;
	return 0;
}

static int ane_check_unary(const struct ane_op_desc *d)
{
	size_t used = d->op == ANE_OP_ACT ? sizeof(d->p.act) : 0;

	if (!ane_params_tail_zero(d, used) || !ane_tensor_is_zero(&d->src[1]) ||
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
	/* an epsilon: layer normalization's, finite and > 0 (0: 1e-5) */
	if (d->p.norm.eps && (d->p.norm.kind != ANE_NORM_LAYER ||
			      d->p.norm.eps >= 0x7f800000u))
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

/*
 * REDUCE: a known kind, axes 1 .. 15, dst src[0]'s extents with 1 along
 * each reduced axis, an activation without parameters.
 */
static int ane_check_reduce(const struct ane_op_desc *d)
{
	const struct ane_reduce_params *rp = &d->p.reduce;
	unsigned int i;

	if (!ane_params_tail_zero(d, sizeof(*rp)) ||
	    !ane_tensor_is_zero(&d->src[1]) || !ane_tensor_is_zero(&d->bias))
		return -ANE_MATH_EINVAL;
	if (rp->kind >= ANE_REDUCE_COUNT || !rp->axes ||
	    (rp->axes & ~ANE_REDUCE_AXES_ALL) || d->act >= ANE_ACT_COUNT ||
	    ane_act_is_parametric(d->act))
		return -ANE_MATH_EINVAL;
	for (i = 0; i < ANE_NDIM; i++)
		if (d->dst.dim[i] != ((rp->axes & ANE_REDUCE_AXIS(i)) ? 1 :
				      d->src[0].dim[i]))
			return -ANE_MATH_EINVAL;
	return 0;
}

/*
 * GATHER: no parameters, no activation, no bias; indices [1, 1, 1, K]; a
 * table of at most ANE_MATH_MAX_GATHER_H rows; dst [N, C, K, W].
 */
static int ane_check_gather(const struct ane_op_desc *d)
{
	const struct ane_tensor *x = &d->src[0], *ix = &d->src[1], *y = &d->dst;

	if (!ane_params_tail_zero(d, 0) || d->act != ANE_ACT_NONE ||
	    !ane_tensor_is_zero(&d->bias))
		return -ANE_MATH_EINVAL;
	if (ix->dim[ANE_N] != 1 || ix->dim[ANE_C] != 1 || ix->dim[ANE_H] != 1 ||
	    x->dim[ANE_H] > ANE_MATH_MAX_GATHER_H)
		return -ANE_MATH_EINVAL;
	if (y->dim[ANE_N] != x->dim[ANE_N] || y->dim[ANE_C] != x->dim[ANE_C] ||
	    y->dim[ANE_H] != ix->dim[ANE_W] || y->dim[ANE_W] != x->dim[ANE_W])
		return -ANE_MATH_EINVAL;
	return 0;
}

/* ------------------------------------------------------------ copy */

int ane_view_range(const struct ane_tensor *t, uint64_t offset, int is_signed,
		   int64_t *lo, int64_t *hi)
{
	int64_t l, h, term;
	uint64_t elems = 1;
	unsigned int i;

	if (offset > ANE_MATH_MAX_COPY_OFFSET)
		return -ANE_MATH_EOVERFLOW;
	l = (int64_t)offset;
	h = l;
	for (i = 0; i < ANE_NDIM; i++) {
		int64_t s = (int64_t)t->stride[i];

		if (t->dim[i] < 1 || t->dim[i] > ANE_MATH_MAX_DIM)
			return -ANE_MATH_EINVAL;
		if (!is_signed && s < 0)
			return -ANE_MATH_EINVAL;
		if (!ane_mul_ok(elems, t->dim[i], &elems))
			return -ANE_MATH_EOVERFLOW;
		if (t->dim[i] == 1)
			continue;
		if (__builtin_mul_overflow((int64_t)t->dim[i] - 1, s, &term) ||
		    __builtin_add_overflow(term < 0 ? l : h, term,
					   term < 0 ? &l : &h))
			return -ANE_MATH_EOVERFLOW;
	}
	if (elems > ANE_MATH_MAX_ELEMS)
		return -ANE_MATH_EOVERFLOW;
	*lo = l;
	*hi = h;
	return 0;
}

/*
 * A COPY's view of its buffer @t from element @offset: every element
 * inside [base, base + size), the buffer's end not wrapping; its byte
 * range [*@first, *@end) as addresses.
 */
static int ane_copy_view_check(const struct ane_tensor *t, uint64_t offset,
			       int is_signed, uint64_t *first, uint64_t *end)
{
	uint64_t b0 = (uint64_t)(uintptr_t)t->base, top;
	int64_t lo, hi;
	int ret;

	if (!t->base || (b0 & 1u))
		return -ANE_MATH_EINVAL;
	ret = ane_view_range(t, offset, is_signed, &lo, &hi);
	if (ret)
		return ret;
	if (!ane_add_ok(b0, t->size, &top) || top > (uint64_t)(uintptr_t)-1)
		return -ANE_MATH_EOVERFLOW;
	/* hi < 2^63 / 2: its byte offset does not wrap */
	if (lo < 0 || (uint64_t)hi >= t->size / 2)
		return -ANE_MATH_ENOSPC;
	*first = b0 + 2 * (uint64_t)lo;
	*end = b0 + 2 * (uint64_t)hi + 2;
	return 0;
}

static int ane_check_copy(const struct ane_op_desc *d)
{
	const struct ane_copy_params *cp = &d->p.copy;
	uint64_t s0, s1, d0, d1;
	int ret;

	if (!ane_params_tail_zero(d, sizeof(*cp)) || d->act != ANE_ACT_NONE ||
	    !ane_tensor_is_zero(&d->src[1]) || !ane_tensor_is_zero(&d->bias))
		return -ANE_MATH_EINVAL;
	ret = ane_copy_view_check(&d->src[0], cp->src_offset, 1, &s0, &s1);
	if (!ret)
		ret = ane_copy_view_check(&d->dst, cp->dst_offset, 0, &d0, &d1);
	if (ret)
		return ret;
	if (!ane_dims_equal(&d->src[0], &d->dst) ||
	    !ane_tensor_no_self_overlap(&d->dst))
		return -ANE_MATH_EINVAL;
	if (s0 < d1 && d0 < s1)
		return -ANE_MATH_EINVAL;
	return 0;
}

/* Everything but the buffers' contents and the workspace. */
int ane_op_check(const struct ane_op_desc *d)
{
	unsigned int nsrc = 1, i;
	int ret, inplace_ok;

	if (!d || d->op == ANE_OP_NONE || d->op >= ANE_OP_COUNT ||
	    d->act >= ANE_ACT_COUNT)
		return -ANE_MATH_EINVAL;
	ret = ane_check_act_params(d);
	if (ret)
		return ret;
	/* a COPY's tensors are buffers with views in them */
	if (d->op == ANE_OP_COPY)
		return ane_check_copy(d);
	if (d->op == ANE_OP_CONV || d->op == ANE_OP_MATMUL ||
	    d->op == ANE_OP_ELTWISE || d->op == ANE_OP_GATHER)
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
	case ANE_OP_REDUCE:
		ret = ane_check_reduce(d);
		break;
	case ANE_OP_GATHER:
		ret = ane_check_gather(d);
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
