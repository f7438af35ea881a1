// SPDX-License-Identifier: MIT
/*
 * libane: the builder's reductions and normalizations over W -- REDUCE
 * over any set of axes, and NORM's kinds and epsilon (image minor 4) --
 * each checking its operand and parameters and appending one task.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <string.h>

#include "ane_internal.h"

static const char *const ane__reduce_name[] = {
	"ANE_NET_REDUCE_SUM", "ANE_NET_REDUCE_MEAN", "ANE_NET_REDUCE_MAX",
	"ANE_NET_REDUCE_MIN", "ANE_NET_REDUCE_PROD", "ANE_NET_REDUCE_SUM_SQUARE",
	"ANE_NET_REDUCE_L1", "ANE_NET_REDUCE_L2", "ANE_NET_REDUCE_LOG_SUM",
	"ANE_NET_REDUCE_LOG_SUM_EXP",
};

int ane__net_norm(const struct ane__op_ctx *o, int x, enum ane_net_norm_kind kind,
		  float eps)
{
	const struct ane__tensor *tx;
	struct ane__op op;
	uint32_t bits = 0;
	int ret;

	if (eps != 0.0f)
		memcpy(&bits, &eps, sizeof(bits));
	if ((ret = ane__get_operand(o, "x", x, &tx)))
		return ret;
	if ((uint32_t)kind > ANE_NET_NORM_LOG_SOFTMAX)
		return ane__op_fail(o, "kind %u is unknown (ANE_NET_NORM_SOFTMAX 0, ANE_NET_NORM_LAYER 1, ANE_NET_NORM_LOG_SOFTMAX 2)",
			       (uint32_t)kind);
	if (bits && kind != ANE_NET_NORM_LAYER)
		return ane__op_fail(o, "eps %g is for ANE_NET_NORM_LAYER only; kind %u takes 0",
			       (double)eps, (uint32_t)kind);
	/* finite, above zero: the bits of a positive fp32 below infinity */
	if (bits >= 0x7f800000u)
		return ane__op_fail(o, "eps %g must be finite and greater than 0 (0 for 1e-5)",
			       (double)eps);
	if (tx->dim[3] > ANE__MAX_SOFTMAX)
		return ane__op_fail(o, "x '%s' is %s: a normalization runs over at most %u elements of W",
			       tx->name, ane__shp(tx->dim).s, ANE__MAX_SOFTMAX);
	ane__op_init(&op, ANE__OP_NORM);
	op.subop = (uint32_t)kind;
	op.norm_eps = bits;
	return ane__add_like(o, &op, x, tx);
}

int ane_net_norm_eps(struct ane_net *net, int x, enum ane_net_norm_kind kind,
		     float eps)
{
	struct ane__op_ctx o = { net, "ane_net_norm_eps", net ? net->n_ops : 0 };

	return net ? ane__net_norm(&o, x, kind, eps) : -EINVAL;
}

int ane_net_reduce(struct ane_net *net, int x, enum ane_net_reduce_kind kind,
		   uint32_t axes, enum ane_net_act act)
{
	struct ane__op_ctx o = { net, "ane_net_reduce", net ? net->n_ops : 0 };
	const struct ane__tensor *tx;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = ane__get_operand(&o, "x", x, &tx)))
		return ret;
	if ((uint32_t)kind > ANE_NET_REDUCE_LOG_SUM_EXP)
		return ane__op_fail(&o, "kind %u is unknown (%s .. %s = 0..9)", (uint32_t)kind,
			       ane__reduce_name[0], ane__reduce_name[9]);
	if (!axes || axes > 0xfu)
		return ane__op_fail(&o, "axes 0x%x must be a nonzero mask of bits 0..3 (N 0x1, C 0x2, H 0x4, W 0x8)",
			       axes);
	if ((ret = ane__check_act(&o, (uint32_t)act)))
		return ret;
	ane__op_init(&op, ANE__OP_REDUCE);
	op.act = (uint32_t)act;
	op.subop = (uint32_t)kind;
	op.flags = axes;
	op.src[0] = x;
	for (i = 0; i < 4; i++)
		d[i] = (axes >> i) & 1u ? 1 : tx->dim[i];
	return ane__add_op(&o, &op, d);
}
