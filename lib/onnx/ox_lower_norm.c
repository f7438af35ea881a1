// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: normalizations on the engine -- Softmax and
 * LogSoftmax over any axis, LayerNormalization over any trailing axes
 * with any epsilon (and its Mean and InvStdDev outputs), and
 * InstanceNormalization.  The engine normalizes over W (its NORM task),
 * so the input is viewed as [1, outer, mid, inner] around the axis (a
 * reshape, no copy); when inner is not 1 the axis is brought to W and
 * back by two copies.  Softmax over a middle axis is the engine's
 * SOFTMAX over C instead, which needs no copy.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"
#include "ox_ops.h"

/* The engine's longest normalized row. */
#define NORM_MAX	65536u
/* The engine's largest extent of one dimension. */
#define DIM_MAX		(1u << 24)

/* prod(dims[lo:hi]) into @p; -1 when it passes DIM_MAX. */
static int prod(const struct ox_tensor *x, int lo, int hi, uint32_t *p)
{
	uint64_t v = 1;
	int i;

	for (i = lo; i < hi; i++) {
		v *= (uint64_t)x->dims[i];
		if (v > DIM_MAX)
			return -1;
	}
	*p = (uint32_t)v;
	return 0;
}

static int norm_axis(struct lower *L, const struct ox_node *n, int def)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	int64_t axis = ane__ox_attr_i(n, "axis", def);

	return (int)(axis < 0 ? axis + x->rank : axis);
}

/*
 * NORM of @kind over the mid extent of x viewed [1, outer, mid, inner]:
 * over W directly when inner is 1, else between two copies that swap H
 * and W.  The result has the view's dims.
 */
static int norm_mid(struct lower *L, int xid, const uint32_t v[4],
		    enum ane_net_norm_kind kind, float eps)
{
	static const uint32_t swap[4] = { 0, 1, 3, 2 };
	int id;

	if (v[3] == 1)
		return ane_net_norm_eps(ox_net(L),
					ane_net_reshape(ox_net(L), xid, 1, 1, v[1], v[2]),
					kind, eps);
	id = ane_net_transpose(ox_net(L), xid, swap);
	id = ane_net_norm_eps(ox_net(L), id, kind, eps);
	return ane_net_transpose(ox_net(L), id, swap);
}

/*
 * Softmax, LogSoftmax: opset 13's over one axis; before it over the
 * input flattened to 2-D at the axis (inner 1).
 */
static int lw_softmax_any(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const int logsm = !strcmp(n->op_type, "LogSoftmax");
	const int coerced = L->c->g->opset < 13;
	int err = ane__ox_check_float(L, n, 0), axis, id, xid;
	uint32_t v[4] = { 1, 1, 1, 1 };

	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	axis = norm_axis(L, n, coerced ? 1 : -1);
	if (axis < 0 || axis >= (x->rank ? x->rank : 1))
		return ane__ox_why(L, "axis %d of rank %d", axis, x->rank);
	if (prod(x, 0, axis, &v[1]) ||
	    prod(x, axis, coerced ? x->rank : axis + 1, &v[2]) ||
	    prod(x, coerced ? x->rank : axis + 1, x->rank, &v[3]))
		return ane__ox_why(L, "a %s whose outer or inner extent passes %u",
				   n->op_type, DIM_MAX);
	if (v[2] > NORM_MAX)
		return ane__ox_why(L, "a %s over %u elements; the engine's are at most %u",
				   n->op_type, v[2], NORM_MAX);
	if (L->dry)
		return 0;
	xid = ane__ox_get(L, n->in[0], v);
	if (!logsm && v[3] != 1)	/* the engine's softmax over C */
		id = ane_net_softmax(ox_net(L), ane_net_reshape(ox_net(L), xid, v[1], v[2],
								v[3], 1));
	else
		id = norm_mid(L, xid, v, logsm ? ANE_NET_NORM_LOG_SOFTMAX :
				ANE_NET_NORM_SOFTMAX, 0.0f);
	return ane__ox_done(L, n, id);
}

/* Is output @j of @n read (by a node or as a graph output)? */
static int out_used(const struct lower *L, const struct ox_node *n, int j)
{
	return j < n->n_out && n->out[j] >= 0 &&
	       (L->c->g->t[n->out[j]].n_uses || L->c->g->t[n->out[j]].is_output);
}

/*
 * Output 0 float and of the engine's dims; the others may be read only
 * where @stats allows (LayerNormalization's Mean and InvStdDev).
 */
static int outs_ok(struct lower *L, const struct ox_node *n, int stats)
{
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	uint32_t d[4];
	int j;

	if (!y)
		return ane__ox_why(L, "output 0 is omitted");
	for (j = 1; j < n->n_out; j++)
		if (out_used(L, n, j) && (!stats || j > 2))
			return ane__ox_why(L, "its output %d is used; the engine computes only output 0",
					   j);
	for (j = 0; j < n->n_out && j < 3; j++) {
		const struct ox_tensor *t = ane__ox_out(L->c, n, j);

		if (!t || (j && !out_used(L, n, j)))
			continue;
		if (t->dtype != OX_FLOAT && t->dtype != OX_FLOAT16)
			return ane__ox_why(L, "output '%s' is %s, not float", t->name,
					   ane__ox_dtype_name(t->dtype));
		if (ane__ox_shape4(t->rank, t->dims, d))
			return ane__ox_why(L, "output '%s' has a dimension the engine cannot hold",
					   t->name);
	}
	return 0;
}

/*
 * A scale or bias operand of a normalization over the trailing @inner
 * elements: its values one per element (a constant fitting fp16, or
 * computed).
 */
static int affine_ok(struct lower *L, const struct ox_node *n, int i, uint32_t inner)
{
	const struct ox_tensor *t = ane__ox_in(L->c, n, i);
	int64_t cnt = 1;
	int k, err;

	if (!t)
		return 0;
	err = ane__ox_check_float(L, n, i);
	if (err)
		return err;
	for (k = 0; k < t->rank; k++)
		cnt *= t->dims[k];
	if (cnt != inner)
		return ane__ox_why(L, "a %s of %lld elements for rows of %u",
				   i == 1 ? "scale" : "bias", (long long)cnt, inner);
	return t->konst ? ane__ox_check_const_f16(L, n, t->konst, t->name) : 0;
}

/*
 * LayerNormalization over the axes from @axis on: x viewed [1, 1, outer,
 * inner], the engine's NORM with the node's epsilon, then the scale and
 * bias as [1, 1, 1, inner].  Mean and InvStdDev, when read: REDUCE MEAN,
 * then the mean of the squared differences, + epsilon, SQRT and RECIP.
 */
static int lw_layernorm_any(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *b = n->n_in > 2 ? ane__ox_in(L->c, n, 2) : NULL;
	float eps = ane__ox_attr_f(n, "epsilon", 1e-5f);
	uint32_t v[4] = { 1, 1, 1, 1 }, w4[4] = { 1, 1, 1, 1 };
	int err = ane__ox_check_float(L, n, 0), axis, id, xid;

	if (!err)
		err = outs_ok(L, n, 1);
	if (err)
		return err;
	axis = norm_axis(L, n, -1);
	if (axis < 0 || axis >= x->rank)
		return ane__ox_why(L, "axis %d of rank %d", axis, x->rank);
	if (prod(x, 0, axis, &v[2]) || prod(x, axis, x->rank, &v[3]))
		return ane__ox_why(L, "a layer normalization of more than %u rows", DIM_MAX);
	if (v[3] > NORM_MAX)
		return ane__ox_why(L, "a layer normalization over %u elements; at most %u",
				   v[3], NORM_MAX);
	if (!(eps > 0.0f) || eps > 65504.0f)
		return ane__ox_why(L, "epsilon %g", eps);
	if (!ane__ox_in(L->c, n, 1))
		return ane__ox_why(L, "no scale");
	err = affine_ok(L, n, 1, v[3]);
	if (!err && b)
		err = affine_ok(L, n, 2, v[3]);
	if (err || L->dry)
		return err;
	w4[3] = v[3];
	xid = ane__ox_get(L, n->in[0], v);
	id = ane_net_norm_eps(ox_net(L), xid, ANE_NET_NORM_LAYER, eps);
	id = ane_net_eltwise(ox_net(L), ANE_NET_MUL, id, ane__ox_get(L, n->in[1], w4),
			     ANE_NET_ACT_NONE);
	if (b)
		id = ane_net_eltwise(ox_net(L), ANE_NET_ADD, id, ane__ox_get(L, n->in[2], w4),
				     ANE_NET_ACT_NONE);
	err = ane__ox_done(L, n, id);
	if (!err && (out_used(L, n, 1) || out_used(L, n, 2))) {
		int mean = ane_net_reduce(ox_net(L), xid, ANE_NET_REDUCE_MEAN, 1u << 3,
					  ANE_NET_ACT_NONE);
		int d = ane_net_eltwise(ox_net(L), ANE_NET_SUB, xid, mean, ANE_NET_ACT_NONE);
		int var;

		var = ane_net_reduce(ox_net(L), ane_net_eltwise(ox_net(L), ANE_NET_MUL, d, d,
								ANE_NET_ACT_NONE),
				     ANE_NET_REDUCE_MEAN, 1u << 3, ANE_NET_ACT_NONE);
		var = ane_net_eltwise(ox_net(L), ANE_NET_ADD, var, ane__ox_lit(L, eps),
				      ANE_NET_ACT_SQRT);
		var = ane_net_activation(ox_net(L), var, ANE_NET_ACT_RECIP);
		if (mean < 0 || var < 0)
			return mean < 0 ? mean : var;
		if (out_used(L, n, 1))
			ane__ox_set(L, n->out[1], mean);
		if (out_used(L, n, 2))
			ane__ox_set(L, n->out[2], var);
	}
	return err;
}

/*
 * InstanceNormalization: each (n, c) plane normalized, x viewed [N, C,
 * 1, H * W ...], then the per-channel scale and bias.
 */
static int lw_instancenorm(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	float eps = ane__ox_attr_f(n, "epsilon", 1e-5f);
	uint32_t v[4] = { 1, 1, 1, 1 }, c4[4] = { 1, 1, 1, 1 };
	int err = ane__ox_check_float(L, n, 0), id, i;

	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (x->rank < 3)
		return ane__ox_why(L, "an input of rank %d", x->rank);
	if (prod(x, 0, 1, &v[0]) || prod(x, 1, 2, &v[1]) || prod(x, 2, x->rank, &v[3]))
		return ane__ox_why(L, "an input too large");
	if (v[3] > NORM_MAX)
		return ane__ox_why(L, "planes of %u elements; the engine normalizes %u at most",
				   v[3], NORM_MAX);
	if (!(eps > 0.0f) || eps > 65504.0f)
		return ane__ox_why(L, "epsilon %g", eps);
	for (i = 1; i <= 2; i++) {
		const struct ox_tensor *t = ane__ox_in(L->c, n, i);

		if (!t || t->rank != 1 || t->dims[0] != (int64_t)v[1])
			return ane__ox_why(L, "a %s that is not one per channel",
					   i == 1 ? "scale" : "bias");
		err = ane__ox_check_float(L, n, i);
		if (!err && t->konst)
			err = ane__ox_check_const_f16(L, n, t->konst, t->name);
		if (err)
			return err;
	}
	if (L->dry)
		return 0;
	c4[1] = v[1];
	id = ane_net_norm_eps(ox_net(L), ane__ox_get(L, n->in[0], v), ANE_NET_NORM_LAYER, eps);
	id = ane_net_eltwise(ox_net(L), ANE_NET_MUL, id, ane__ox_get(L, n->in[1], c4),
			     ANE_NET_ACT_NONE);
	id = ane_net_eltwise(ox_net(L), ANE_NET_ADD, id, ane__ox_get(L, n->in[2], c4),
			     (enum ane_net_act)ane__ox_fuse_act(L, n));
	return ane__ox_done(L, n, id);
}

const struct ox_lowering ane__ox_lw_norm[] = {
	{ "Softmax", lw_softmax_any }, { "LogSoftmax", lw_softmax_any },
	{ "LayerNormalization", lw_layernorm_any },
	{ "InstanceNormalization", lw_instancenorm },
};

const size_t ane__ox_lw_norm_n = sizeof(ane__ox_lw_norm) / sizeof(ane__ox_lw_norm[0]);
