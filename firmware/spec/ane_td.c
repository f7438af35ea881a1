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
	case ANE_OP_NORM:
		return BIT(ANE_TD_SUBOP);
	case ANE_OP_POOL:
		return BIT(ANE_TD_SUBOP) | BIT(ANE_TD_FLAGS) |
		       GENMASK(ANE_TD_PAD_RIGHT, ANE_TD_STRIDE_H) |
		       BIT(ANE_TD_KERNEL_H) | BIT(ANE_TD_KERNEL_W);
	default:
		return 0;
	}
}

static void ane_td_dims(struct ane_tensor *t, const u32 *w)
{
	unsigned int i;

	for (i = 0; i < ANE_NDIM; i++)
		t->dim[i] = w[i];
}

/**
 * ane_image_td_desc() - decode a task descriptor into an engine descriptor
 * @td: the task descriptor.
 * @d: filled with the operation, its parameters and the tensors' extents;
 *	tensor bases, sizes and strides are left to the caller.
 *
 * Return: 0, or -EINVAL if the operation is unknown, a word the operation
 * does not use is not zero, or the padding is not zero.
 */
int ane_image_td_desc(const struct ane_img_td *td, struct ane_op_desc *d)
{
	const u32 *w = td->words;
	u32 used, i;

	memset(d, 0, sizeof(*d));
	if (td->pad || !w[ANE_TD_OP] || w[ANE_TD_OP] >= ANE_OP_COUNT)
		return -EINVAL;
	used = ane_td_param_words(w[ANE_TD_OP]);
	for (i = ANE_TD_SUBOP; i < ANE_TD_SRC0_DIMS; i++)
		if (!(used & BIT(i)) && w[i])
			return -EINVAL;
	for (i = ANE_TD_RESERVED; i < ANE_TD_WORDS; i++)
		if (w[i])
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
	}
	ane_td_dims(&d->src[0], &w[ANE_TD_SRC0_DIMS]);
	ane_td_dims(&d->src[1], &w[ANE_TD_SRC1_DIMS]);
	ane_td_dims(&d->bias, &w[ANE_TD_BIAS_DIMS]);
	ane_td_dims(&d->dst, &w[ANE_TD_DST_DIMS]);
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
