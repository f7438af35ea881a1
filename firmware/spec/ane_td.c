// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task descriptors: decoding the 35-word register block of a program
 * image's task (uapi/drm/ane_accel.h) into an engine operation.
 *
 * Pure code shared by both sides of the boundary, like the ABI headers:
 * the driver decodes to validate an image, the firmware to execute it.
 * It calls nothing.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "ane_td.h"

/* The TD words each operation uses besides OP, ACT and its tensors. */
static u32 ane_td_param_words(u32 op)
{
	switch (op) {
	case ANE_OP_CONV:
		return GENMASK(ANE_TD_GROUPS, ANE_TD_STRIDE_H);
	case ANE_OP_MATMUL:
		return BIT(ANE_TD_FLAGS);
	case ANE_OP_ELTWISE:
		return BIT(ANE_TD_SUBOP);
	case ANE_OP_NORM:
		return BIT(ANE_TD_SUBOP) | BIT(ANE_TD_NORM_EPS);
	case ANE_OP_REDUCE:
		return BIT(ANE_TD_SUBOP) | BIT(ANE_TD_FLAGS);
	case ANE_OP_POOL:
		return BIT(ANE_TD_SUBOP) | BIT(ANE_TD_FLAGS) |
		       GENMASK(ANE_TD_PAD_RIGHT, ANE_TD_STRIDE_H) |
		       BIT(ANE_TD_KERNEL_H) | BIT(ANE_TD_KERNEL_W);
	case ANE_OP_COPY:
		return GENMASK(ANE_TD_COPY_DST_OFFSET, ANE_TD_COPY_SRC_STRIDE);
	default:
		return 0;
	}
}

/* First word of each operand's extents, by &enum ane_td_operand. */
static const u8 ane_td_dims_word[] = {
	ANE_TD_SRC0_DIMS, ANE_TD_SRC1_DIMS, ANE_TD_BIAS_DIMS, ANE_TD_DST_DIMS,
};

/*
 * The extents of operand @reg, and its strides: dense, or as its layout
 * word says (ane_td_layout_ok() has passed), or a copy's stride words
 * (the source's sign-extended).
 */
static void ane_td_dims(struct ane_tensor *t, const u32 *w, u32 reg)
{
	const u32 *dim = &w[ane_td_dims_word[reg]];
	u32 lw = w[ANE_TD_SRC0_LAYOUT + reg];
	u64 row, plane;
	unsigned int i;

	for (i = 0; i < ANE_NDIM; i++)
		t->dim[i] = dim[i];
	if (!(dim[0] | dim[1] | dim[2] | dim[3]))
		return;		/* absent: all zero */
	if (w[ANE_TD_OP] == ANE_OP_COPY) {
		u32 first = reg == ANE_TD_REG_DST ? ANE_TD_COPY_DST_STRIDE :
			    ANE_TD_COPY_SRC_STRIDE;

		for (i = 0; i < ANE_NDIM; i++)
			t->stride[i] = (u64)(s64)(s32)w[first + i];
		return;
	}
	row = ANE_TD_LAYOUT_ROW(lw) ? ANE_TD_LAYOUT_ROW(lw) : dim[ANE_W];
	plane = ANE_TD_LAYOUT_PLANE(lw) ? ANE_TD_LAYOUT_PLANE(lw) :
		row * dim[ANE_H];
	t->stride[ANE_W] = 1;
	t->stride[ANE_H] = row;
	t->stride[ANE_C] = plane;
	t->stride[ANE_N] = plane * dim[ANE_C];
}

/**
 * ane_td_layout_ok() - whether an operand's layout word is well formed
 * @td: the task descriptor.
 * @reg: &enum ane_td_operand, at most %ANE_TD_REG_DST.
 *
 * Zero (dense) always is.  Otherwise only a matmul's present operand has
 * one: a row stride of 0 or at least its W, and a plane stride of 0 or
 * at least its W.  That the strided extent fits its binding, and that a
 * destination's elements do not share memory, is the engine's check
 * (ane_op_validate()) once the operand is bound.
 *
 * Return: true if it is.
 */
bool ane_td_layout_ok(const struct ane_img_td *td, u32 reg)
{
	const u32 *w = td->words;
	u32 lw = w[ANE_TD_SRC0_LAYOUT + reg];
	u32 width = w[ane_td_dims_word[reg] + ANE_W];
	u32 row = ANE_TD_LAYOUT_ROW(lw), plane = ANE_TD_LAYOUT_PLANE(lw);

	if (!lw)
		return true;
	if (w[ANE_TD_OP] != ANE_OP_MATMUL || !width)
		return false;
	return (!row || row >= width) && (!plane || plane >= width);
}

/**
 * ane_td_span() - bytes an operand reaches from its first element
 * @t: a decoded operand (extents and strides), present.
 *
 * Return: 2 * (1 + the sum of (dim - 1) * stride), or 0 if that
 * overflows 64 bits.
 */
__u64 ane_td_span(const struct ane_tensor *t)
{
	__u64 last = 0, term;
	unsigned int i;

	for (i = 0; i < ANE_NDIM; i++) {
		if (!t->dim[i])
			return 0;
		if (check_mul_overflow((__u64)(t->dim[i] - 1), t->stride[i], &term) ||
		    check_add_overflow(last, term, &last))
			return 0;
	}
	if (check_add_overflow(last, (__u64)1, &last) ||
	    check_mul_overflow(last, (__u64)2, &last))
		return 0;
	return last;
}

/**
 * ane_td_reach() - the elements of its binding a decoded operand reaches
 * @d: the decoded task (ane_image_td_desc()).
 * @reg: &enum ane_td_operand, at most %ANE_TD_REG_DST, a present operand.
 * @first: set to the least element index, from the binding's start, the
 *	operand reaches: 0 but for a copy, whose views start at an offset
 *	and whose source may walk backwards (then negative: before the
 *	binding).
 *
 * Return: the bytes from the binding's start to the end of the last
 * element the operand reaches, or 0 if that overflows or a copy's view
 * is out of range.
 */
__u64 ane_td_reach(const struct ane_op_desc *d, u32 reg, __s64 *first)
{
	const struct ane_tensor *t = reg == ANE_TD_REG_SRC0 ? &d->src[0] :
				     reg == ANE_TD_REG_SRC1 ? &d->src[1] :
				     reg == ANE_TD_REG_BIAS ? &d->bias : &d->dst;
	s64 lo, hi;

	*first = 0;
	if (d->op != ANE_OP_COPY)
		return ane_td_span(t);
	if (reg == ANE_TD_REG_DST ?
	    ane_view_range(t, d->p.copy.dst_offset, 0, &lo, &hi) :
	    ane_view_range(t, d->p.copy.src_offset, 1, &lo, &hi))
		return 0;
	*first = lo;
	/* |hi| is below 2^62 (ANE_MATH_MAX_COPY_OFFSET and the extents) */
	return hi < 0 ? 0 : 2 * ((__u64)hi + 1);
}

/**
 * ane_td_dense() - whether an operand's layout word is zero
 * @td: the task descriptor.
 * @reg: &enum ane_td_operand, at most %ANE_TD_REG_DST.
 *
 * Return: true if operand @reg is dense NCHW.
 */
bool ane_td_dense(const struct ane_img_td *td, u32 reg)
{
	return !td->words[ANE_TD_SRC0_LAYOUT + reg];
}

/**
 * ane_td_bad_word() - the first word of a task descriptor that is wrong
 * @td: the task descriptor, of a known operation (1 .. %ANE_OP_COUNT - 1).
 *
 * A word of 2 .. 14 the operation does not use must be zero (an
 * activation's parameter words, 4 and 5, are used only by ACT with a
 * parametric activation: image minor version 4); a copy's destination
 * strides are non-negative; a reduction's kind is known and its axes are
 * 1 .. 15; a normalization's epsilon is zero, or a finite fp32 above zero
 * for a layer normalization.
 *
 * Return: the word's index, or -1 if none is.
 */
int ane_td_bad_word(const struct ane_img_td *td)
{
	const u32 *w = td->words;
	u32 used = ane_td_param_words(w[ANE_TD_OP]), i;

	if (w[ANE_TD_OP] == ANE_OP_ACT && ane_act_is_parametric(w[ANE_TD_ACT]))
		used |= BIT(ANE_TD_ACT_ALPHA) | BIT(ANE_TD_ACT_BETA);
	for (i = ANE_TD_SUBOP; i < ANE_TD_SRC0_DIMS; i++)
		if (!(used & BIT(i)) && w[i])
			return i;
	if (w[ANE_TD_OP] == ANE_OP_COPY)
		for (i = 0; i < ANE_NDIM; i++)
			if ((s32)w[ANE_TD_COPY_DST_STRIDE + i] < 0)
				return ANE_TD_COPY_DST_STRIDE + i;
	if (w[ANE_TD_OP] == ANE_OP_REDUCE) {
		if (w[ANE_TD_SUBOP] >= ANE_REDUCE_COUNT)
			return ANE_TD_SUBOP;
		if (!w[ANE_TD_FLAGS] || (w[ANE_TD_FLAGS] & ~ANE_REDUCE_AXES_ALL))
			return ANE_TD_FLAGS;
	}
	if (w[ANE_TD_OP] == ANE_OP_NORM && w[ANE_TD_NORM_EPS] &&
	    (w[ANE_TD_SUBOP] != ANE_NORM_LAYER || w[ANE_TD_NORM_EPS] >= 0x7f800000u))
		return ANE_TD_NORM_EPS;
	return -1;
}

/**
 * ane_image_td_desc() - decode a task descriptor into an engine descriptor
 * @td: the task descriptor.
 * @d: filled with the operation, its parameters, the tensors' extents
 *	and their strides (dense, or as a matmul operand's layout word says);
 *	tensor bases and sizes are left to the caller.
 *
 * Return: 0, or -EINVAL if the operation is unknown, a word is wrong
 * (ane_td_bad_word()), a layout word is malformed (ane_td_layout_ok()),
 * or the padding is not zero.
 */
int ane_image_td_desc(const struct ane_img_td *td, struct ane_op_desc *d)
{
	const u32 *w = td->words;
	u32 i;

	memset(d, 0, sizeof(*d));
	if (td->pad || !w[ANE_TD_OP] || w[ANE_TD_OP] >= ANE_OP_COUNT)
		return -EINVAL;
	if (ane_td_bad_word(td) >= 0)
		return -EINVAL;
	for (i = ANE_TD_REG_SRC0; i <= ANE_TD_REG_DST; i++)
		if (!ane_td_layout_ok(td, i))
			return -EINVAL;

	d->op = w[ANE_TD_OP];
	d->act = w[ANE_TD_ACT];
	switch (d->op) {
	case ANE_OP_CONV:
		d->p.conv.stride[0] = w[ANE_TD_STRIDE_H];
		d->p.conv.stride[1] = w[ANE_TD_STRIDE_W];
		d->p.conv.dilation[0] = w[ANE_TD_DILATION_H];
		d->p.conv.dilation[1] = w[ANE_TD_DILATION_W];
		for (i = 0; i < 4; i++)
			d->p.conv.pad[i] = w[ANE_TD_PAD_TOP + i];
		d->p.conv.groups = w[ANE_TD_GROUPS];
		break;
	case ANE_OP_MATMUL:
		d->p.matmul.flags = w[ANE_TD_FLAGS];
		break;
	case ANE_OP_ELTWISE:
		d->p.eltwise.op = w[ANE_TD_SUBOP];
		break;
	case ANE_OP_NORM:
		d->p.norm.kind = w[ANE_TD_SUBOP];
		d->p.norm.eps = w[ANE_TD_NORM_EPS];
		break;
	case ANE_OP_REDUCE:
		d->p.reduce.kind = w[ANE_TD_SUBOP];
		d->p.reduce.axes = w[ANE_TD_FLAGS];
		break;
	case ANE_OP_POOL:
		d->p.pool.kind = w[ANE_TD_SUBOP];
		d->p.pool.flags = w[ANE_TD_FLAGS];
		d->p.pool.kernel[0] = w[ANE_TD_KERNEL_H];
		d->p.pool.kernel[1] = w[ANE_TD_KERNEL_W];
		d->p.pool.stride[0] = w[ANE_TD_STRIDE_H];
		d->p.pool.stride[1] = w[ANE_TD_STRIDE_W];
		for (i = 0; i < 4; i++)
			d->p.pool.pad[i] = w[ANE_TD_PAD_TOP + i];
		break;
	case ANE_OP_COPY:
		d->p.copy.src_offset = w[ANE_TD_COPY_SRC_OFFSET];
		d->p.copy.dst_offset = w[ANE_TD_COPY_DST_OFFSET];
		break;
	case ANE_OP_ACT:	/* zero but for a parametric act (bad_word) */
		d->p.act.alpha = w[ANE_TD_ACT_ALPHA];
		d->p.act.beta = w[ANE_TD_ACT_BETA];
		break;
	}
	for (i = ANE_TD_REG_SRC0; i <= ANE_TD_REG_DST; i++)
		ane_td_dims(ane_td_operand(d, i), w, i);
	return 0;
}

/**
 * ane_td_operand() - the tensor an operand register of a task names
 * @d: the decoded task.
 * @reg: &enum ane_td_operand, at most %ANE_TD_REG_DST.
 *
 * Return: the tensor in @d.
 */
struct ane_tensor *ane_td_operand(struct ane_op_desc *d, u32 reg)
{
	switch (reg) {
	case ANE_TD_REG_SRC0:
		return &d->src[0];
	case ANE_TD_REG_SRC1:
		return &d->src[1];
	case ANE_TD_REG_BIAS:
		return &d->bias;
	default:
		return &d->dst;
	}
}
