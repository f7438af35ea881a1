// SPDX-License-Identifier: MIT
/*
 * libane: the builder's compute operations -- convolution, matrix
 * multiply (and the strided views it reads, the heads it writes),
 * elementwise, activation, pooling, softmax, normalization -- each
 * checking its operands' shapes and appending one task.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_internal.h"

/* Output extent of a window along one axis, 0 if the window never fits. */
static uint64_t window_out(uint64_t in, uint64_t lo, uint64_t hi,
			   uint64_t kernel, uint64_t dilation, uint64_t stride)
{
	uint64_t span = dilation * (kernel - 1) + 1, full = in + lo + hi;

	return full < span ? 0 : (full - span) / stride + 1;
}

int ane_net_conv(struct ane_net *net, int x, int weights, int bias,
		 const struct ane_net_conv_params *p)
{
	static const struct ane_net_conv_params none;
	struct ane__op_ctx o = { net, "ane_net_conv", net ? net->n_ops : 0 };
	const struct ane__tensor *tx, *tw, *tb = NULL;
	uint32_t cin, cout, g, kh, kw, i;
	uint64_t d[4], taps;
	struct ane__op op;
	int ret;

	if (!net)
		return -EINVAL;
	if (!p)
		p = &none;
	if ((ret = ane__get_operand(&o, "x", x, &tx)) ||
	    (ret = ane__get_operand(&o, "weights", weights, &tw)))
		return ret;
	if (bias != -1 && (ret = ane__get_operand(&o, "bias (-1 for none)", bias, &tb)))
		return ret;
	ane__op_init(&op, ANE__OP_CONV);
	op.act = (uint32_t)p->act;
	op.stride[0] = p->stride_h ? p->stride_h : 1;
	op.stride[1] = p->stride_w ? p->stride_w : 1;
	op.dilation[0] = p->dilation_h ? p->dilation_h : 1;
	op.dilation[1] = p->dilation_w ? p->dilation_w : 1;
	op.pad[0] = p->pad_top;
	op.pad[1] = p->pad_bottom;
	op.pad[2] = p->pad_left;
	op.pad[3] = p->pad_right;
	op.groups = g = p->groups ? p->groups : 1;
	if ((ret = ane__check_act(&o, op.act)) ||
	    (ret = ane__check_range(&o, "stride_h", op.stride[0])) ||
	    (ret = ane__check_range(&o, "stride_w", op.stride[1])) ||
	    (ret = ane__check_range(&o, "dilation_h", op.dilation[0])) ||
	    (ret = ane__check_range(&o, "dilation_w", op.dilation[1])))
		return ret;

	cin = tx->dim[1];
	cout = tw->dim[0];
	kh = tw->dim[2];
	kw = tw->dim[3];
	if (cin % g)
		return ane__op_fail(&o, "groups %u does not divide the %u channels of x '%s' (%s)",
			       g, cin, tx->name, ane__shp(tx->dim).s);
	if (tw->dim[1] != cin / g)
		return ane__op_fail(&o, "weights '%s' are %s (Cout x Cin/groups x KH x KW) but x '%s' is %s with groups %u: the weights need %u channels, not %u",
			       tw->name, ane__shp(tw->dim).s, tx->name, ane__shp(tx->dim).s,
			       g, cin / g, tw->dim[1]);
	if (cout % g)
		return ane__op_fail(&o, "groups %u does not divide the %u output channels (weights '%s' are %s)",
			       g, cout, tw->name, ane__shp(tw->dim).s);
	if (kh > ANE__MAX_KERNEL || kw > ANE__MAX_KERNEL)
		return ane__op_fail(&o, "the kernel of weights '%s' is %ux%u; the engine allows at most %ux%u",
			       tw->name, kh, kw, ANE__MAX_KERNEL, ANE__MAX_KERNEL);
	for (i = 0; i < 4; i++) {
		static const char *const pn[4] = { "pad_top", "pad_bottom",
						   "pad_left", "pad_right" };
		uint32_t k = i < 2 ? kh : kw, dl = op.dilation[i / 2];
		uint64_t span = (uint64_t)dl * (k - 1) + 1;

		if (op.pad[i] >= span)
			return ane__op_fail(&o, "%s %u must be smaller than the dilated kernel %s, %llu",
				       pn[i], op.pad[i], i < 2 ? "height" : "width",
				       (unsigned long long)span);
	}
	taps = (uint64_t)(cin / g) * kh * kw;
	if (taps > ANE__MAX_REDUCE)
		return ane__op_fail(&o, "each output sums Cin/groups x KH x KW = %u x %u x %u = %llu products; the engine allows at most %u",
			       cin / g, kh, kw, (unsigned long long)taps, ANE__MAX_REDUCE);
	d[0] = tx->dim[0];
	d[1] = cout;
	d[2] = window_out(tx->dim[2], op.pad[0], op.pad[1], kh, op.dilation[0], op.stride[0]);
	d[3] = window_out(tx->dim[3], op.pad[2], op.pad[3], kw, op.dilation[1], op.stride[1]);
	if (!d[2] || !d[3])
		return ane__op_fail(&o, "the %ux%u kernel (dilation %ux%u) does not fit x '%s', %ux%u padded to %llux%llu",
			       kh, kw, op.dilation[0], op.dilation[1], tx->name,
			       tx->dim[2], tx->dim[3],
			       (unsigned long long)tx->dim[2] + op.pad[0] + op.pad[1],
			       (unsigned long long)tx->dim[3] + op.pad[2] + op.pad[3]);
	if (tb && (tb->dim[0] != 1 || tb->dim[1] != cout || tb->dim[2] != 1 ||
		   tb->dim[3] != 1))
		return ane__op_fail(&o, "bias '%s' is %s; it must be 1x%ux1x1, one value per output channel",
			       tb->name, ane__shp(tb->dim).s, cout);
	op.src[0] = x;
	op.src[1] = weights;
	op.bias = tb ? bias : -1;
	return ane__add_op(&o, &op, d);
}

int ane_net_matmul(struct ane_net *net, int a, int b, uint32_t flags,
		   enum ane_net_act act)
{
	struct ane__op_ctx o = { net, "ane_net_matmul", net ? net->n_ops : 0 };
	const struct ane__tensor *ta, *tb;
	uint32_t k, kb, n;
	int tr = !!(flags & ANE_NET_TRANSPOSE_B), ret;
	unsigned int i;
	struct ane__op op;
	uint64_t d[4];

	if (!net)
		return -EINVAL;
	if ((ret = ane__get_operand_view(&o, "a", a, &ta)) ||
	    (ret = ane__get_operand_view(&o, "b", b, &tb)) ||
	    (ret = ane__check_act(&o, (uint32_t)act)))
		return ret;
	if (flags & ~ANE_NET_TRANSPOSE_B)
		return ane__op_fail(&o, "flags 0x%x: only ANE_NET_TRANSPOSE_B (0x1) is defined", flags);
	k = ta->dim[3];
	kb = tr ? tb->dim[3] : tb->dim[2];
	n = tr ? tb->dim[2] : tb->dim[3];
	if (k != kb) {
		if (tr)
			return ane__op_fail(&o, "inner dimensions differ: a is %ux%u, b is %ux%u (transposed: %ux%u)",
				       ta->dim[2], ta->dim[3], tb->dim[2], tb->dim[3],
				       tb->dim[3], tb->dim[2]);
		return ane__op_fail(&o, "inner dimensions differ: a is %ux%u, b is %ux%u",
			       ta->dim[2], ta->dim[3], tb->dim[2], tb->dim[3]);
	}
	if (k > ANE__MAX_REDUCE)
		return ane__op_fail(&o, "the inner dimension is %u; the engine sums at most %u products",
			       k, ANE__MAX_REDUCE);
	for (i = 0; i < 2; i++)
		if (ta->dim[i] != tb->dim[i] && ta->dim[i] != 1 && tb->dim[i] != 1)
			return ane__op_fail(&o, "batch dimension %c differs: a '%s' is %s, b '%s' is %s (each must be equal or 1)",
				       ane__dim_name[i], ta->name, ane__shp(ta->dim).s,
				       tb->name, ane__shp(tb->dim).s);
	ane__op_init(&op, ANE__OP_MATMUL);
	op.act = (uint32_t)act;
	op.flags = tr ? ANE_NET_TRANSPOSE_B : 0;
	op.src[0] = a;
	op.src[1] = b;
	d[0] = ta->dim[0] > tb->dim[0] ? ta->dim[0] : tb->dim[0];
	d[1] = ta->dim[1] > tb->dim[1] ? ta->dim[1] : tb->dim[1];
	d[2] = ta->dim[2];
	d[3] = n;
	return ane__add_op(&o, &op, d);
}


int ane_net_view(struct ane_net *net, int x, uint32_t col, uint32_t width,
		 uint32_t heads)
{
	const char *fn = "ane_net_view";
	const struct ane__tensor *tx;
	struct ane__tensor *t;
	int ret;

	if (!net)
		return -EINVAL;
	ret = ane__net_tensor(net, fn, x);
	if (ret)
		return ret;
	tx = &net->t[x];
	if (ane__is_strided_view(tx))
		return ane__net_fail(net, EINVAL, "%s: x '%s' is itself a view; take the view of its tensor",
				     fn, tx->name);
	if (ane__is_index(net->t, x))
		return ane__net_fail(net, EINVAL, "%s: x '%s' is an index tensor (ane_net_input_index()): its elements are int16 indices, which only ane_net_gather() reads",
				     fn, tx->name);
	if (!width || !heads || (uint64_t)heads * width > tx->dim[3] ||
	    col > tx->dim[3] - (uint64_t)heads * width)
		return ane__net_fail(net, EINVAL, "%s: columns %u + %u x %u do not fit in '%s' (%s, W %u)",
				     fn, col, heads, width, tx->name,
				     ane__shp(tx->dim).s, tx->dim[3]);
	if (col % 8)
		return ane__net_fail(net, EINVAL, "%s: column %u is not a multiple of 8: a view starts 16-byte aligned",
				     fn, col);
	if (tx->dim[3] > 0xffff)
		return ane__net_fail(net, EINVAL, "%s: '%s' has rows of %u elements; a view's row stride is at most 65535",
				     fn, tx->name, tx->dim[3]);
	if (heads > 1 && (tx->dim[0] != 1 || tx->dim[1] != 1))
		return ane__net_fail(net, EINVAL, "%s: '%s' is %s; heads as channels need x of N = C = 1",
				     fn, tx->name, ane__shp(tx->dim).s);
	t = ane__new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: out of memory", fn);
	tx = &net->t[x];	/* ane__new_tensor() may move the array */
	t->kind = ANE__T_VIEW;
	/* of a reshape: of its storage, with the reshape's extents */
	t->parent = tx->kind == ANE__T_VIEW ? tx->parent : x;
	t->voff = (tx->kind == ANE__T_VIEW ? tx->voff : 0) + col;
	t->row = tx->dim[3];
	t->plane = heads > 1 ? width : 0;	/* 0: H rows, as x's */
	t->dim[0] = tx->dim[0];
	t->dim[1] = heads > 1 ? heads : tx->dim[1];
	t->dim[2] = tx->dim[2];
	t->dim[3] = width;
	snprintf(t->name, sizeof(t->name), "view%zu", net->n_t);
	ane__net_changed(net);
	ane__net_ok(net);
	return (int)net->n_t++;
}

int ane_net_merge_heads(struct ane_net *net, int x)
{
	const char *fn = "ane_net_merge_heads";
	struct ane__tensor *t, *tx;
	size_t i;
	int id;

	if (!net)
		return -EINVAL;
	id = ane__net_tensor(net, fn, x);
	if (id)
		return id;
	tx = &net->t[x];
	if (tx->kind != ANE__T_OP || net->ops[tx->index].op != ANE__OP_MATMUL)
		return ane__net_fail(net, EINVAL, "%s: '%s' is not the result of a matmul; only a matmul writes a strided destination",
				     fn, tx->name);
	if (tx->output >= 0)
		return ane__net_fail(net, EINVAL, "%s: '%s' is output %d; an output stays dense (merge first, then output the result)",
				     fn, tx->name, tx->output);
	for (i = 0; i < net->n_ops; i++) {
		const struct ane__op *op = &net->ops[i];

		if (op->src[0] == x || op->src[1] == x || op->bias == x)
			return ane__net_fail(net, EINVAL, "%s: '%s' is already read by op %zu; merge it before any operation reads it",
					     fn, tx->name, i);
	}
	for (i = 0; i < net->n_t; i++)
		if (net->t[i].kind == ANE__T_VIEW && net->t[i].parent == x)
			return ane__net_fail(net, EINVAL, "%s: '%s' has a view, tensor %zu; merge it before taking views of it",
					     fn, tx->name, i);
	if (tx->dim[0] != 1 || tx->dim[3] % 8 ||
	    (uint64_t)tx->dim[1] * tx->dim[3] > 0xffff)
		return ane__net_fail(net, EINVAL, "%s: '%s' is %s; heads merge from [1, C, H, W] with W a multiple of 8 and C x W at most 65535",
				     fn, tx->name, ane__shp(tx->dim).s);
	t = ane__new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: out of memory", fn);
	id = (int)net->n_t++;
	tx = &net->t[x];	/* ane__new_tensor() may move the array */
	t->kind = ANE__T_OP;
	t->index = tx->index;	/* written by x's matmul */
	t->dim[0] = 1;
	t->dim[1] = 1;
	t->dim[2] = tx->dim[2];
	t->dim[3] = tx->dim[1] * tx->dim[3];
	snprintf(t->name, sizeof(t->name), "merged%d", id);
	tx->kind = ANE__T_VIEW;
	tx->parent = id;
	tx->voff = 0;
	tx->row = t->dim[3];
	tx->plane = tx->dim[3];
	ane__net_changed(net);
	ane__net_ok(net);
	return id;
}

int ane_net_eltwise(struct ane_net *net, enum ane_net_eltwise_op eop, int a,
		    int b, enum ane_net_act act)
{
	struct ane__op_ctx o = { net, "ane_net_eltwise", net ? net->n_ops : 0 };
	const struct ane__tensor *ta, *tb;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = ane__get_operand_view(&o, "a", a, &ta)) ||
	    (ret = ane__get_operand_view(&o, "b", b, &tb)) ||
	    (ret = ane__check_act(&o, (uint32_t)act)))
		return ret;
	/* a strided view is copied into a dense tensor first */
	if (ane__is_strided_view(ta) &&
	    (a = ane__materialize(net, o.fn, a)) < 0)
		return a;
	if (ane__is_strided_view(&net->t[b]) &&
	    (b = ane__materialize(net, o.fn, b)) < 0)
		return b;
	o.idx = net->n_ops;
	ta = &net->t[a];
	tb = &net->t[b];
	if ((uint32_t)eop > ANE_NET_POW)
		return ane__op_fail(&o, "operation %u is unknown (ANE_NET_ADD .. ANE_NET_POW = 0..6)",
			       (uint32_t)eop);
	for (i = 0; i < 4; i++) {
		if (ta->dim[i] != tb->dim[i] && ta->dim[i] != 1 && tb->dim[i] != 1)
			return ane__op_fail(&o, "shapes do not broadcast: a '%s' is %s, b '%s' is %s (dimension %c: %u vs %u; each must be equal or 1)",
				       ta->name, ane__shp(ta->dim).s, tb->name,
				       ane__shp(tb->dim).s, ane__dim_name[i], ta->dim[i],
				       tb->dim[i]);
		d[i] = ta->dim[i] > tb->dim[i] ? ta->dim[i] : tb->dim[i];
	}
	ane__op_init(&op, ANE__OP_ELTWISE);
	op.act = (uint32_t)act;
	op.subop = (uint32_t)eop;
	op.src[0] = a;
	op.src[1] = b;
	return ane__add_op(&o, &op, d);
}

/* Whether fp32 @v is NaN or infinite (on its bits). */
static int act_param_bad(float v, uint32_t *bits)
{
	memcpy(bits, &v, sizeof(*bits));
	return (*bits & 0x7f800000u) == 0x7f800000u;
}

/*
 * ACT of @act on @x: with @param (ane_net_activation_param()) any act and
 * its alpha and beta, else (ane_net_activation()) one without parameters.
 */
static int act_op(struct ane__op_ctx *o, int x, uint32_t a, int param, float alpha,
		  float beta)
{
	const struct ane__tensor *tx;
	struct ane__op op;
	uint32_t ab, bb;
	int ret;

	if ((ret = ane__get_operand(o, "x", x, &tx)))
		return ret;
	if (!param && (ret = ane__check_act(o, a)))
		return ret;
	if (a >= ANE__NUM_ACTS)
		return ane__op_fail(o, "act %u is unknown (ANE_NET_ACT_NONE .. ANE_NET_ACT_THRESHOLDED_RELU = 0..26)",
				    a);
	if (act_param_bad(alpha, &ab))
		return ane__op_fail(o, "alpha is %g: not finite", (double)alpha);
	if (act_param_bad(beta, &bb))
		return ane__op_fail(o, "beta is %g: not finite", (double)beta);
	if (a < ANE__FIRST_PARAM_ACT && (ab || bb))
		return ane__op_fail(o, "%s is %g: activation %u takes no parameters (alpha and beta must be 0)",
				    ab ? "alpha" : "beta", (double)(ab ? alpha : beta), a);
	if (a == ANE_NET_ACT_CELU && alpha == 0)
		return ane__op_fail(o, "alpha is 0: CELU divides by it");
	ane__op_init(&op, ANE__OP_ACT);
	op.act = a;
	if (a >= ANE__FIRST_PARAM_ACT) {
		op.act_param[0] = ab;
		op.act_param[1] = bb;
	}
	return ane__add_like(o, &op, x, tx);
}

int ane_net_activation(struct ane_net *net, int x, enum ane_net_act act)
{
	struct ane__op_ctx o = { net, "ane_net_activation", net ? net->n_ops : 0 };

	return net ? act_op(&o, x, (uint32_t)act, 0, 0.0f, 0.0f) : -EINVAL;
}

int ane_net_activation_param(struct ane_net *net, int x, enum ane_net_act act,
			     float alpha, float beta)
{
	struct ane__op_ctx o = { net, "ane_net_activation_param",
				 net ? net->n_ops : 0 };

	return net ? act_op(&o, x, (uint32_t)act, 1, alpha, beta) : -EINVAL;
}

int ane_net_pool(struct ane_net *net, int x, const struct ane_net_pool_params *p)
{
	struct ane__op_ctx o = { net, "ane_net_pool", net ? net->n_ops : 0 };
	const struct ane__tensor *tx;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = ane__get_operand(&o, "x", x, &tx)))
		return ret;
	if (!p)
		return ane__op_fail(&o, "the parameters are NULL; at least the window size is needed");
	if ((ret = ane__check_act(&o, (uint32_t)p->act)))
		return ret;
	if ((uint32_t)p->kind > ANE_NET_POOL_AVG)
		return ane__op_fail(&o, "kind %u is unknown (ANE_NET_POOL_MAX 0, ANE_NET_POOL_AVG 1)",
			       (uint32_t)p->kind);
	if (p->count_pad && p->kind != ANE_NET_POOL_AVG)
		return ane__op_fail(&o, "count_pad applies to average pooling only");
	ane__op_init(&op, ANE__OP_POOL);
	op.act = (uint32_t)p->act;
	op.subop = (uint32_t)p->kind;
	op.flags = p->count_pad ? 1u : 0u;
	op.kernel[0] = p->kernel_h;
	op.kernel[1] = p->kernel_w;
	op.stride[0] = p->stride_h ? p->stride_h : p->kernel_h;
	op.stride[1] = p->stride_w ? p->stride_w : p->kernel_w;
	op.pad[0] = p->pad_top;
	op.pad[1] = p->pad_bottom;
	op.pad[2] = p->pad_left;
	op.pad[3] = p->pad_right;
	if ((ret = ane__check_range(&o, "kernel_h", op.kernel[0])) ||
	    (ret = ane__check_range(&o, "kernel_w", op.kernel[1])) ||
	    (ret = ane__check_range(&o, "stride_h", op.stride[0])) ||
	    (ret = ane__check_range(&o, "stride_w", op.stride[1])))
		return ret;
	for (i = 0; i < 4; i++) {
		static const char *const pn[4] = { "pad_top", "pad_bottom",
						   "pad_left", "pad_right" };

		if (op.pad[i] >= op.kernel[i / 2])
			return ane__op_fail(&o, "%s %u must be smaller than the window %s, %u",
				       pn[i], op.pad[i], i < 2 ? "height" : "width",
				       op.kernel[i / 2]);
	}
	d[0] = tx->dim[0];
	d[1] = tx->dim[1];
	d[2] = window_out(tx->dim[2], op.pad[0], op.pad[1], op.kernel[0], 1, op.stride[0]);
	d[3] = window_out(tx->dim[3], op.pad[2], op.pad[3], op.kernel[1], 1, op.stride[1]);
	if (!d[2] || !d[3])
		return ane__op_fail(&o, "the %ux%u window does not fit x '%s', %ux%u padded to %llux%llu",
			       op.kernel[0], op.kernel[1], tx->name, tx->dim[2], tx->dim[3],
			       (unsigned long long)tx->dim[2] + op.pad[0] + op.pad[1],
			       (unsigned long long)tx->dim[3] + op.pad[2] + op.pad[3]);
	op.src[0] = x;
	return ane__add_op(&o, &op, d);
}

int ane_net_softmax(struct ane_net *net, int x)
{
	struct ane__op_ctx o = { net, "ane_net_softmax", net ? net->n_ops : 0 };
	const struct ane__tensor *tx;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = ane__get_operand(&o, "x", x, &tx)))
		return ret;
	if (tx->dim[1] > ANE__MAX_SOFTMAX)
		return ane__op_fail(&o, "x '%s' is %s: a softmax runs over at most %u channels",
			       tx->name, ane__shp(tx->dim).s, ANE__MAX_SOFTMAX);
	ane__op_init(&op, ANE__OP_SOFTMAX);
	op.src[0] = x;
	for (i = 0; i < 4; i++)
		d[i] = tx->dim[i];
	return ane__add_op(&o, &op, d);
}

int ane_net_norm(struct ane_net *net, int x, enum ane_net_norm_kind kind)
{
	struct ane__op_ctx o = { net, "ane_net_norm", net ? net->n_ops : 0 };

	return net ? ane__net_norm(&o, x, kind, 0.0f) : -EINVAL;
}
