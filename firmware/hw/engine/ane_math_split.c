// SPDX-License-Identifier: GPL-2.0-only
/*
 * Splitting one operation over several cores: the neural engine's cores
 * (the device model's workers in the kernel, threads on the host) each run
 * a part of one large operation, an ordinary descriptor of its own over a
 * slice of the output.  Integer only, like ane_math_plan.c.
 *
 * A part is a view: the slice's tensors point into the whole's buffers,
 * with the same strides, so the parts write disjoint parts of the output
 * and read the inputs in place.  Every output element is computed by
 * exactly the code and in exactly the order the whole operation would use
 * (the kernels zero-pad partial tiles, so a tile boundary never changes a
 * result), which makes a split run bit-identical to an unsplit one; the
 * KUnit and host suites check that for every operation.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_impl.h"

/* A part smaller than this many multiply-adds is not worth a core. */
#define ANE_SPLIT_MIN_WORK	(256ull * 1024)

/*
 * Narrow @t to [@lo, @lo + @len) along dimension @k, unless @t broadcasts
 * along it (extent 1 while the output's is not) or is absent.
 */
static void ane_split_view(struct ane_tensor *t, uint32_t k, uint32_t lo,
			   uint32_t len, uint32_t whole)
{
	uint64_t off;

	if (!t->base || t->dim[k] != whole)
		return;
	off = 2 * (uint64_t)lo * t->stride[k];
	t->base = (uint8_t *)t->base + off;
	t->size -= off;
	t->dim[k] = len;
}

/*
 * The dimension of @d's output to split along and the size of its unit
 * (a part covers whole units): 0 when the operation cannot be split.
 */
static uint32_t ane_split_axis(const struct ane_op_desc *d, uint32_t *axis,
			       uint32_t *unit)
{
	const uint32_t *dim = d->dst.dim;
	uint32_t k;

	*unit = 1;
	switch (d->op) {
	case ANE_OP_CONV:
		/*
		 * Batch, then output rows, then (whole groups of) output
		 * channels: a part of the rows packs only the input its rows
		 * reach, while a part of the channels would pack all of it.
		 */
		if (dim[0] > 1) {
			*axis = 0;
			return dim[0];
		}
		if (dim[2] < 2) {
			*axis = 1;
			if (d->p.conv.groups == 1)
				return dim[1];
			*unit = dim[1] / d->p.conv.groups;
			return d->p.conv.groups;
		}
		*axis = 2;
		return dim[2];
	case ANE_OP_MATMUL:
	case ANE_OP_POOL:
		/* batch dimensions, then (matmul) the rows of M */
		for (k = 0; k < (d->op == ANE_OP_MATMUL ? 3u : 2u); k++)
			if (dim[k] > 1) {
				*axis = k;
				return dim[k];
			}
		return 0;
	case ANE_OP_SOFTMAX:
	case ANE_OP_ELTWISE:
	case ANE_OP_ACT:
	case ANE_OP_COPY:
	case ANE_OP_REDUCE:
	case ANE_OP_GATHER:
		/*
		 * any dimension but softmax's C: the outermost that splits
		 * (a reduced one is 1 in dst; a gather's H is its indices)
		 */
		for (k = 0; k < ANE_NDIM; k++)
			if (dim[k] > 1 && !(d->op == ANE_OP_SOFTMAX && k == 1)) {
				*axis = k;
				return dim[k];
			}
		return 0;
	}
	return 0;
}

/* Multiply-adds (or element operations) of @d, roughly: what a core gets. */
static uint64_t ane_split_work(const struct ane_op_desc *d)
{
	const uint32_t *y = d->dst.dim;
	uint64_t out = (uint64_t)y[0] * y[1] * y[2] * y[3];

	switch (d->op) {
	case ANE_OP_MATMUL:
		return out * d->src[0].dim[3];
	case ANE_OP_CONV:
		return out * (d->src[0].dim[1] / d->p.conv.groups) *
		       d->src[1].dim[2] * d->src[1].dim[3];
	case ANE_OP_POOL:
		return out * d->p.pool.kernel[0] * d->p.pool.kernel[1];
	case ANE_OP_SOFTMAX:
		return out * 4;
	case ANE_OP_REDUCE:
		return (uint64_t)d->src[0].dim[0] * d->src[0].dim[1] *
		       d->src[0].dim[2] * d->src[0].dim[3];
	default:
		return out;
	}
}

/**
 * ane_op_split_parts() - how many parts an operation is worth splitting into
 * @d: a validated descriptor.
 * @cores: the cores available.
 *
 * Return: 1 .. @cores: no more parts than the output has units along the
 * axis the operation splits on, and none smaller than
 * %ANE_SPLIT_MIN_WORK multiply-adds.
 */
uint32_t ane_op_split_parts(const struct ane_op_desc *d, uint32_t cores)
{
	uint32_t axis, unit, units = ane_split_axis(d, &axis, &unit);
	uint64_t most = ane_split_work(d) / ANE_SPLIT_MIN_WORK;

	if (units < 2 || cores < 2 || most < 2)
		return 1;
	if (cores > units)
		cores = units;
	return most < cores ? (uint32_t)most : cores;
}

/**
 * ane_op_split() - the descriptor of one part of a split operation
 * @d: a validated descriptor.
 * @part: the part, 0 .. @parts - 1.
 * @parts: from ane_op_split_parts().
 * @sub: filled in: a descriptor for the part, without a workspace (size
 *	one with ane_op_workspace_size()).  Parts cover the output once,
 *	in order, as evenly as whole units allow.
 *
 * Return: 0, or -ANE_MATH_EINVAL when @part or @parts is out of range.
 */
int ane_op_split(const struct ane_op_desc *d, uint32_t part, uint32_t parts,
		 struct ane_op_desc *sub)
{
	uint32_t axis = 0, unit = 1, units = ane_split_axis(d, &axis, &unit);
	uint32_t u0, u1, lo, len, whole;

	*sub = *d;
	sub->work = NULL;
	sub->work_size = 0;
	if (parts == 1 && part == 0)
		return 0;
	if (!parts || part >= parts || parts > units)
		return -ANE_MATH_EINVAL;
	u0 = (uint32_t)((uint64_t)units * part / parts);
	u1 = (uint32_t)((uint64_t)units * (part + 1) / parts);
	whole = d->dst.dim[axis];
	lo = u0 * unit;
	len = (u1 - u0) * unit;

	if (d->op == ANE_OP_COPY) {
		/* the views move inside their buffers: the offsets, signed */
		sub->p.copy.src_offset += (uint64_t)((int64_t)lo *
						     (int64_t)d->src[0].stride[axis]);
		sub->p.copy.dst_offset += (uint64_t)lo * d->dst.stride[axis];
		sub->src[0].dim[axis] = len;
		sub->dst.dim[axis] = len;
		return 0;
	}
	ane_split_view(&sub->dst, axis, lo, len, whole);
	if (d->op == ANE_OP_GATHER) {
		/* dst's H is the indices' W; the table keeps all its rows */
		if (axis == ANE_H)
			ane_split_view(&sub->src[1], ANE_W, lo, len, whole);
		else
			ane_split_view(&sub->src[0], axis, lo, len, whole);
		return 0;
	}
	if (d->op != ANE_OP_CONV) {
		/* sources follow the output along the axis unless they broadcast */
		ane_split_view(&sub->src[0], axis, lo, len, whole);
		/* and a MATMUL's bias, which broadcasts onto the output */
		ane_split_view(&sub->bias, axis, lo, len, whole);
		if (d->op == ANE_OP_ELTWISE)
			ane_split_view(&sub->src[1], axis, lo, len, whole);
		else if (d->op == ANE_OP_MATMUL && axis < 2)
			ane_split_view(&sub->src[1], axis, lo, len, whole);
		return 0;
	}
	if (axis == 0) {
		ane_split_view(&sub->src[0], 0, lo, len, whole);
	} else if (axis == 1) {
		/* the parts' weights and bias; grouped: their input channels */
		ane_split_view(&sub->src[1], 0, lo, len, whole);
		ane_split_view(&sub->bias, 1, lo, len, whole);
		if (d->p.conv.groups > 1) {
			uint32_t in_unit = d->src[0].dim[1] / d->p.conv.groups;

			ane_split_view(&sub->src[0], 1, u0 * in_unit, (u1 - u0) * in_unit,
				       d->src[0].dim[1]);
			sub->p.conv.groups = u1 - u0;
		}
	} else {
		/*
		 * Output rows [lo, lo + len): the input rows their windows
		 * reach, the padding they reach becoming the part's own.
		 */
		const struct ane_conv_params *c = &d->p.conv;
		int64_t ext = (int64_t)c->dilation[0] * (d->src[1].dim[2] - 1) + 1;
		int64_t r0 = (int64_t)lo * c->stride[0] - c->pad[ANE_PAD_TOP];
		int64_t r1 = (int64_t)(lo + len - 1) * c->stride[0] -
			     c->pad[ANE_PAD_TOP] + ext;
		int64_t h = d->src[0].dim[2];
		int64_t in0 = r0 < 0 ? 0 : r0, in1 = r1 > h ? h : r1;

		sub->p.conv.pad[ANE_PAD_TOP] = r0 < 0 ? (uint32_t)-r0 : 0;
		sub->p.conv.pad[ANE_PAD_BOTTOM] = r1 > h ? (uint32_t)(r1 - h) : 0;
		ane_split_view(&sub->src[0], 2, (uint32_t)in0, (uint32_t)(in1 - in0),
			       (uint32_t)h);
	}
	return 0;
}
