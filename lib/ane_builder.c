// SPDX-License-Identifier: MIT
/*
 * libane: the net builder.  Tensors and operations in, shape inference
 * with messages a person can act on, and one program image out that
 * follows every rule of the kernel's validation (driver/ane_image.c and
 * the engine's descriptor check): see Documentation/accel/ane/libane.rst.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_internal.h"

/* The engine's limits (firmware/engine/ane_math.h). */
#define MAX_DIM		(1u << 24)	/* any one dimension */
#define MAX_REDUCE	(1u << 14)	/* terms in one dot product */
#define MAX_SOFTMAX	(1u << 16)	/* channels of a softmax */
#define MAX_KERNEL	64u		/* window side, stride, dilation */
#define NUM_ACTS	7u

static const char dim_name[4] = { 'N', 'C', 'H', 'W' };

/* ------------------------------------------------------------ messages */

static void net_vmsg(struct ane_net *net, const char *fmt, va_list ap)
{
	vsnprintf(net->err, sizeof(net->err), fmt, ap);
}

/* A failure that leaves the net as it was (queries, build). */
__attribute__((format(printf, 3, 4)))
static int net_err(struct ane_net *net, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	net_vmsg(net, fmt, ap);
	va_end(ap);
	return -err;
}

/* A failure to add something: sticky, the first one is kept. */
int ane__net_fail(struct ane_net *net, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	net_vmsg(net, fmt, ap);
	va_end(ap);
	if (!net->failed) {
		net->failed = 1;
		memcpy(net->first_err, net->err, sizeof(net->first_err) - 1);
		net->first_err[sizeof(net->first_err) - 1] = '\0';
	}
	return -err;
}

static void net_ok(struct ane_net *net)
{
	net->err[0] = '\0';
}

/* Any change drops the last image. */
static void net_changed(struct ane_net *net)
{
	free(net->image);
	net->image = NULL;
	net->image_size = 0;
}

struct shape_str {
	char s[64];
};

static struct shape_str shp(const uint32_t *d)
{
	struct shape_str r;

	snprintf(r.s, sizeof(r.s), "%ux%ux%ux%u", d[0], d[1], d[2], d[3]);
	return r;
}

/* ------------------------------------------------------------ net */

int ane_net_create(struct ane_net **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void ane_net_destroy(struct ane_net *net)
{
	size_t i;

	if (!net)
		return;
	for (i = 0; i < net->n_t; i++)
		free(net->t[i].data);
	free(net->t);
	free(net->ops);
	free(net->image);
	free(net);
}

const char *ane_net_errmsg(const struct ane_net *net)
{
	return net ? net->err : "ane_net: no net (NULL)";
}

unsigned int ane_net_num_inputs(const struct ane_net *net)
{
	return net ? net->n_inputs : 0;
}

unsigned int ane_net_num_outputs(const struct ane_net *net)
{
	return net ? net->n_outputs : 0;
}

unsigned int ane_net_num_ops(const struct ane_net *net)
{
	return net ? (unsigned int)net->n_ops : 0;
}

int ane_net_input_tensor(const struct ane_net *net, unsigned int i)
{
	return net && i < net->n_inputs ? net->inputs[i] : -EINVAL;
}

int ane_net_output_tensor(const struct ane_net *net, unsigned int i)
{
	return net && i < net->n_outputs ? net->outputs[i] : -EINVAL;
}

int ane_net_shape(const struct ane_net *net, int tensor,
		  struct ane_net_shape *shape)
{
	const struct ane__tensor *t;

	if (!net || !shape || tensor < 0 || (size_t)tensor >= net->n_t)
		return -EINVAL;
	t = &net->t[tensor];
	shape->n = t->dim[0];
	shape->c = t->dim[1];
	shape->h = t->dim[2];
	shape->w = t->dim[3];
	return 0;
}

/* Room for one more tensor; the caller fills it. */
static struct ane__tensor *new_tensor(struct ane_net *net)
{
	struct ane__tensor *t;

	if (net->n_t == net->cap_t) {
		size_t cap = net->cap_t ? 2 * net->cap_t : 16;

		t = realloc(net->t, cap * sizeof(*t));
		if (!t)
			return NULL;
		net->t = t;
		net->cap_t = cap;
	}
	t = &net->t[net->n_t];
	memset(t, 0, sizeof(*t));
	t->output = -1;
	t->last_use = -1;
	return t;
}

/*
 * Dimensions of a new input or constant: each 1 .. 2^24, and the tensor
 * at most 1 GiB of fp16 (the largest surface).  @what names it.
 */
static int check_dims(struct ane_net *net, const char *what, const uint32_t *d)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (d[i] < 1 || d[i] > MAX_DIM)
			return ane__net_fail(net, EINVAL,
					     "%s: dimension %c is %u; every dimension must be 1..%u",
					     what, dim_name[i], d[i], MAX_DIM);
	if (ane__elems(d) * 2 > ANE__MAX_BUFFER)
		return ane__net_fail(net, EINVAL,
				     "%s: %s is %llu bytes as fp16; a buffer holds at most 1 GiB",
				     what, shp(d).s,
				     (unsigned long long)ane__elems(d) * 2);
	return 0;
}

static void set_name(struct ane__tensor *t, const char *name,
		     const char *fallback, unsigned int idx)
{
	if (name && name[0])
		snprintf(t->name, sizeof(t->name), "%s", name);
	else
		snprintf(t->name, sizeof(t->name), "%s%u", fallback, idx);
}

int ane_net_input(struct ane_net *net, const char *name, uint32_t n,
		  uint32_t c, uint32_t h, uint32_t w)
{
	const uint32_t d[4] = { n, c, h, w };
	struct ane__tensor *t;
	char what[96];
	int ret;

	if (!net)
		return -EINVAL;
	snprintf(what, sizeof(what), "ane_net_input: input %u ('%s')",
		 net->n_inputs, name && name[0] ? name : "unnamed");
	if (net->n_inputs == ANE_IMG_MAX_IO)
		return ane__net_fail(net, EINVAL,
				     "%s: a procedure takes at most %u inputs",
				     what, ANE_IMG_MAX_IO);
	ret = check_dims(net, what, d);
	if (ret)
		return ret;
	t = new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: out of memory", what);
	memcpy(t->dim, d, sizeof(d));
	t->kind = ANE__T_INPUT;
	t->index = (int)net->n_inputs;
	set_name(t, name, "input", net->n_inputs);
	net->inputs[net->n_inputs++] = (int)net->n_t;
	net_changed(net);
	net_ok(net);
	return (int)net->n_t++;
}

int ane_net_const(struct ane_net *net, const char *name, uint32_t n,
		  uint32_t c, uint32_t h, uint32_t w, const float *data)
{
	const uint32_t d[4] = { n, c, h, w };
	struct ane__tensor *t;
	uint64_t i, elems;
	uint16_t *v;
	char what[96];
	int ret;

	if (!net)
		return -EINVAL;
	snprintf(what, sizeof(what), "ane_net_const: constant %u ('%s')",
		 net->n_consts, name && name[0] ? name : "unnamed");
	ret = check_dims(net, what, d);
	if (ret)
		return ret;
	if (!data)
		return ane__net_fail(net, EINVAL, "%s: data is NULL", what);
	elems = ane__elems(d);
	v = malloc(elems * 2);
	if (!v)
		return ane__net_fail(net, ENOMEM, "%s: out of memory for %llu values",
				     what, (unsigned long long)elems);
	for (i = 0; i < elems; i++) {
		v[i] = ane_fp16_from_float(data[i]);
		if ((v[i] & 0x7fffu) == 0x7c00u && data[i] == data[i] &&
		    data[i] - data[i] == 0.0f) {
			free(v);
			return ane__net_fail(net, EINVAL,
					     "%s: element %llu (%g) overflows fp16, whose largest finite value is 65504",
					     what, (unsigned long long)i, (double)data[i]);
		}
	}
	t = new_tensor(net);
	if (!t) {
		free(v);
		return ane__net_fail(net, ENOMEM, "%s: out of memory", what);
	}
	memcpy(t->dim, d, sizeof(d));
	t->kind = ANE__T_CONST;
	t->index = (int)net->n_consts;
	t->data = v;
	set_name(t, name, "const", net->n_consts);
	net->n_consts++;
	net_changed(net);
	net_ok(net);
	return (int)net->n_t++;
}

/* ------------------------------------------------------------ operations */

/* "<fn>: op <i>" for messages. */
struct op_ctx {
	struct ane_net *net;
	const char *fn;
	size_t idx;
};

__attribute__((format(printf, 2, 3)))
static int op_fail(const struct op_ctx *o, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ane__net_fail(o->net, EINVAL, "%s: op %zu: %s", o->fn, o->idx, msg);
}

/* An operand: a tensor of this net, a view included. */
static int get_operand_view(const struct op_ctx *o, const char *role, int id,
			    const struct ane__tensor **t)
{
	if (id < 0)
		return op_fail(o, "%s is %d, not a tensor: the call that should have made it failed (%s)",
			       role, id, o->net->failed ? o->net->first_err :
			       "no earlier failure recorded");
	if ((size_t)id >= o->net->n_t)
		return op_fail(o, "%s is %d, but the net has no tensor %d (it has %zu)",
			       role, id, id, o->net->n_t);
	*t = &o->net->t[id];
	return 0;
}

/* An operand of anything but a matmul: a tensor of this net, no view. */
static int get_operand(const struct op_ctx *o, const char *role, int id,
		       const struct ane__tensor **t)
{
	int ret = get_operand_view(o, role, id, t);

	if (!ret && (*t)->kind == ANE__T_VIEW)
		return op_fail(o, "%s '%s' is a view (ane_net_view()); only ane_net_matmul() reads views",
			       role, (*t)->name);
	return ret;
}

static int check_act(const struct op_ctx *o, uint32_t act)
{
	if (act >= NUM_ACTS)
		return op_fail(o, "activation %u is unknown (ANE_NET_ACT_NONE .. ANE_NET_ACT_GELU_TANH = 0..6)",
			       act);
	return 0;
}

static int check_range(const struct op_ctx *o, const char *what, uint32_t v)
{
	if (v < 1 || v > MAX_KERNEL)
		return op_fail(o, "%s %u is out of range 1..%u", what, v, MAX_KERNEL);
	return 0;
}

/* Output extent of a window along one axis, 0 if the window never fits. */
static uint64_t window_out(uint64_t in, uint64_t lo, uint64_t hi,
			   uint64_t kernel, uint64_t dilation, uint64_t stride)
{
	uint64_t span = dilation * (kernel - 1) + 1, full = in + lo + hi;

	return full < span ? 0 : (full - span) / stride + 1;
}

/* Append @op with a new result tensor of shape @d; returns its id. */
static int add_op(const struct op_ctx *o, struct ane__op *op, const uint64_t *d)
{
	struct ane_net *net = o->net;
	struct ane__tensor *t;
	uint32_t dim[4];
	unsigned int i;

	if (net->n_ops >= ANE_IMG_MAX_TDS)
		return op_fail(o, "a program holds at most %u operations", ANE_IMG_MAX_TDS);
	for (i = 0; i < 4; i++) {
		if (d[i] > MAX_DIM)
			return op_fail(o, "the result's dimension %c would be %llu; at most %u",
				       dim_name[i], (unsigned long long)d[i], MAX_DIM);
		dim[i] = (uint32_t)d[i];
	}
	if (ane__elems(dim) * 2 > ANE__MAX_BUFFER)
		return op_fail(o, "the result, %s, is %llu bytes as fp16; a buffer holds at most 1 GiB",
			       shp(dim).s, (unsigned long long)ane__elems(dim) * 2);
	if (net->n_ops == net->cap_ops) {
		size_t cap = net->cap_ops ? 2 * net->cap_ops : 16;
		struct ane__op *ops = realloc(net->ops, cap * sizeof(*ops));

		if (!ops)
			return ane__net_fail(net, ENOMEM, "%s: op %zu: out of memory",
					     o->fn, o->idx);
		net->ops = ops;
		net->cap_ops = cap;
	}
	t = new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: op %zu: out of memory", o->fn, o->idx);
	memcpy(t->dim, dim, sizeof(dim));
	t->kind = ANE__T_OP;
	t->index = (int)net->n_ops;
	snprintf(t->name, sizeof(t->name), "op%zu", net->n_ops);
	op->dst = (int)net->n_t;
	net->ops[net->n_ops++] = *op;
	net_changed(net);
	net_ok(net);
	return (int)net->n_t++;
}

static void op_init(struct ane__op *op, uint32_t kind)
{
	memset(op, 0, sizeof(*op));
	op->op = kind;
	op->src[0] = op->src[1] = op->bias = op->dst = -1;
}

int ane_net_conv(struct ane_net *net, int x, int weights, int bias,
		 const struct ane_net_conv_params *p)
{
	static const struct ane_net_conv_params none;
	struct op_ctx o = { net, "ane_net_conv", net ? net->n_ops : 0 };
	const struct ane__tensor *tx, *tw, *tb = NULL;
	uint32_t cin, cout, g, kh, kw, i;
	uint64_t d[4], taps;
	struct ane__op op;
	int ret;

	if (!net)
		return -EINVAL;
	if (!p)
		p = &none;
	if ((ret = get_operand(&o, "x", x, &tx)) ||
	    (ret = get_operand(&o, "weights", weights, &tw)))
		return ret;
	if (bias != -1 && (ret = get_operand(&o, "bias (-1 for none)", bias, &tb)))
		return ret;
	op_init(&op, ANE__OP_CONV);
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
	if ((ret = check_act(&o, op.act)) ||
	    (ret = check_range(&o, "stride_h", op.stride[0])) ||
	    (ret = check_range(&o, "stride_w", op.stride[1])) ||
	    (ret = check_range(&o, "dilation_h", op.dilation[0])) ||
	    (ret = check_range(&o, "dilation_w", op.dilation[1])))
		return ret;

	cin = tx->dim[1];
	cout = tw->dim[0];
	kh = tw->dim[2];
	kw = tw->dim[3];
	if (cin % g)
		return op_fail(&o, "groups %u does not divide the %u channels of x '%s' (%s)",
			       g, cin, tx->name, shp(tx->dim).s);
	if (tw->dim[1] != cin / g)
		return op_fail(&o, "weights '%s' are %s (Cout x Cin/groups x KH x KW) but x '%s' is %s with groups %u: the weights need %u channels, not %u",
			       tw->name, shp(tw->dim).s, tx->name, shp(tx->dim).s,
			       g, cin / g, tw->dim[1]);
	if (cout % g)
		return op_fail(&o, "groups %u does not divide the %u output channels (weights '%s' are %s)",
			       g, cout, tw->name, shp(tw->dim).s);
	if (kh > MAX_KERNEL || kw > MAX_KERNEL)
		return op_fail(&o, "the kernel of weights '%s' is %ux%u; the engine allows at most %ux%u",
			       tw->name, kh, kw, MAX_KERNEL, MAX_KERNEL);
	for (i = 0; i < 4; i++) {
		static const char *const pn[4] = { "pad_top", "pad_bottom",
						   "pad_left", "pad_right" };
		uint32_t k = i < 2 ? kh : kw, dl = op.dilation[i / 2];
		uint64_t span = (uint64_t)dl * (k - 1) + 1;

		if (op.pad[i] >= span)
			return op_fail(&o, "%s %u must be smaller than the dilated kernel %s, %llu",
				       pn[i], op.pad[i], i < 2 ? "height" : "width",
				       (unsigned long long)span);
	}
	taps = (uint64_t)(cin / g) * kh * kw;
	if (taps > MAX_REDUCE)
		return op_fail(&o, "each output sums Cin/groups x KH x KW = %u x %u x %u = %llu products; the engine allows at most %u",
			       cin / g, kh, kw, (unsigned long long)taps, MAX_REDUCE);
	d[0] = tx->dim[0];
	d[1] = cout;
	d[2] = window_out(tx->dim[2], op.pad[0], op.pad[1], kh, op.dilation[0], op.stride[0]);
	d[3] = window_out(tx->dim[3], op.pad[2], op.pad[3], kw, op.dilation[1], op.stride[1]);
	if (!d[2] || !d[3])
		return op_fail(&o, "the %ux%u kernel (dilation %ux%u) does not fit x '%s', %ux%u padded to %llux%llu",
			       kh, kw, op.dilation[0], op.dilation[1], tx->name,
			       tx->dim[2], tx->dim[3],
			       (unsigned long long)tx->dim[2] + op.pad[0] + op.pad[1],
			       (unsigned long long)tx->dim[3] + op.pad[2] + op.pad[3]);
	if (tb && (tb->dim[0] != 1 || tb->dim[1] != cout || tb->dim[2] != 1 ||
		   tb->dim[3] != 1))
		return op_fail(&o, "bias '%s' is %s; it must be 1x%ux1x1, one value per output channel",
			       tb->name, shp(tb->dim).s, cout);
	op.src[0] = x;
	op.src[1] = weights;
	op.bias = tb ? bias : -1;
	return add_op(&o, &op, d);
}

int ane_net_matmul(struct ane_net *net, int a, int b, uint32_t flags,
		   enum ane_net_act act)
{
	struct op_ctx o = { net, "ane_net_matmul", net ? net->n_ops : 0 };
	const struct ane__tensor *ta, *tb;
	uint32_t k, kb, n;
	int tr = !!(flags & ANE_NET_TRANSPOSE_B), ret;
	unsigned int i;
	struct ane__op op;
	uint64_t d[4];

	if (!net)
		return -EINVAL;
	if ((ret = get_operand_view(&o, "a", a, &ta)) ||
	    (ret = get_operand_view(&o, "b", b, &tb)) ||
	    (ret = check_act(&o, (uint32_t)act)))
		return ret;
	if (flags & ~ANE_NET_TRANSPOSE_B)
		return op_fail(&o, "flags 0x%x: only ANE_NET_TRANSPOSE_B (0x1) is defined", flags);
	k = ta->dim[3];
	kb = tr ? tb->dim[3] : tb->dim[2];
	n = tr ? tb->dim[2] : tb->dim[3];
	if (k != kb) {
		if (tr)
			return op_fail(&o, "inner dimensions differ: a is %ux%u, b is %ux%u (transposed: %ux%u)",
				       ta->dim[2], ta->dim[3], tb->dim[2], tb->dim[3],
				       tb->dim[3], tb->dim[2]);
		return op_fail(&o, "inner dimensions differ: a is %ux%u, b is %ux%u",
			       ta->dim[2], ta->dim[3], tb->dim[2], tb->dim[3]);
	}
	if (k > MAX_REDUCE)
		return op_fail(&o, "the inner dimension is %u; the engine sums at most %u products",
			       k, MAX_REDUCE);
	for (i = 0; i < 2; i++)
		if (ta->dim[i] != tb->dim[i] && ta->dim[i] != 1 && tb->dim[i] != 1)
			return op_fail(&o, "batch dimension %c differs: a '%s' is %s, b '%s' is %s (each must be equal or 1)",
				       dim_name[i], ta->name, shp(ta->dim).s,
				       tb->name, shp(tb->dim).s);
	op_init(&op, ANE__OP_MATMUL);
	op.act = (uint32_t)act;
	op.flags = tr ? ANE_NET_TRANSPOSE_B : 0;
	op.src[0] = a;
	op.src[1] = b;
	d[0] = ta->dim[0] > tb->dim[0] ? ta->dim[0] : tb->dim[0];
	d[1] = ta->dim[1] > tb->dim[1] ? ta->dim[1] : tb->dim[1];
	d[2] = ta->dim[2];
	d[3] = n;
	return add_op(&o, &op, d);
}

/* Tensor @x of @net for @fn; -EINVAL (recorded) if there is none. */
static int net_tensor(struct ane_net *net, const char *fn, int x)
{
	if (x < 0 || (size_t)x >= net->n_t)
		return ane__net_fail(net, EINVAL, "%s: x is %d, not a tensor of this net (%s)",
				     fn, x, net->failed ? net->first_err :
				     "no earlier failure recorded");
	return 0;
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
	ret = net_tensor(net, fn, x);
	if (ret)
		return ret;
	tx = &net->t[x];
	if (tx->kind == ANE__T_VIEW)
		return ane__net_fail(net, EINVAL, "%s: x '%s' is itself a view; take the view of its tensor",
				     fn, tx->name);
	if (!width || !heads || (uint64_t)heads * width > tx->dim[3] ||
	    col > tx->dim[3] - (uint64_t)heads * width)
		return ane__net_fail(net, EINVAL, "%s: columns %u + %u x %u do not fit in '%s' (%s, W %u)",
				     fn, col, heads, width, tx->name,
				     shp(tx->dim).s, tx->dim[3]);
	if (col % 8)
		return ane__net_fail(net, EINVAL, "%s: column %u is not a multiple of 8: a view starts 16-byte aligned",
				     fn, col);
	if (tx->dim[3] > 0xffff)
		return ane__net_fail(net, EINVAL, "%s: '%s' has rows of %u elements; a view's row stride is at most 65535",
				     fn, tx->name, tx->dim[3]);
	if (heads > 1 && (tx->dim[0] != 1 || tx->dim[1] != 1))
		return ane__net_fail(net, EINVAL, "%s: '%s' is %s; heads as channels need x of N = C = 1",
				     fn, tx->name, shp(tx->dim).s);
	t = new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: out of memory", fn);
	tx = &net->t[x];	/* new_tensor() may move the array */
	t->kind = ANE__T_VIEW;
	t->parent = x;
	t->voff = col;
	t->row = tx->dim[3];
	t->plane = heads > 1 ? width : 0;	/* 0: H rows, as x's */
	t->dim[0] = tx->dim[0];
	t->dim[1] = heads > 1 ? heads : tx->dim[1];
	t->dim[2] = tx->dim[2];
	t->dim[3] = width;
	snprintf(t->name, sizeof(t->name), "view%zu", net->n_t);
	net_changed(net);
	net_ok(net);
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
	id = net_tensor(net, fn, x);
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
				     fn, tx->name, shp(tx->dim).s);
	t = new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: out of memory", fn);
	id = (int)net->n_t++;
	tx = &net->t[x];	/* new_tensor() may move the array */
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
	net_changed(net);
	net_ok(net);
	return id;
}

int ane_net_eltwise(struct ane_net *net, enum ane_net_eltwise_op eop, int a,
		    int b, enum ane_net_act act)
{
	struct op_ctx o = { net, "ane_net_eltwise", net ? net->n_ops : 0 };
	const struct ane__tensor *ta, *tb;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = get_operand_view(&o, "a", a, &ta)) ||
	    (ret = get_operand_view(&o, "b", b, &tb)) ||
	    (ret = check_act(&o, (uint32_t)act)))
		return ret;
	if ((uint32_t)eop > ANE_NET_MIN)
		return op_fail(&o, "operation %u is unknown (ANE_NET_ADD .. ANE_NET_MIN = 0..4)",
			       (uint32_t)eop);
	for (i = 0; i < 4; i++) {
		if (ta->dim[i] != tb->dim[i] && ta->dim[i] != 1 && tb->dim[i] != 1)
			return op_fail(&o, "shapes do not broadcast: a '%s' is %s, b '%s' is %s (dimension %c: %u vs %u; each must be equal or 1)",
				       ta->name, shp(ta->dim).s, tb->name,
				       shp(tb->dim).s, dim_name[i], ta->dim[i],
				       tb->dim[i]);
		d[i] = ta->dim[i] > tb->dim[i] ? ta->dim[i] : tb->dim[i];
	}
	op_init(&op, ANE__OP_ELTWISE);
	op.act = (uint32_t)act;
	op.subop = (uint32_t)eop;
	op.src[0] = a;
	op.src[1] = b;
	return add_op(&o, &op, d);
}

int ane_net_activation(struct ane_net *net, int x, enum ane_net_act act)
{
	struct op_ctx o = { net, "ane_net_activation", net ? net->n_ops : 0 };
	const struct ane__tensor *tx;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = get_operand(&o, "x", x, &tx)) ||
	    (ret = check_act(&o, (uint32_t)act)))
		return ret;
	op_init(&op, ANE__OP_ACT);
	op.act = (uint32_t)act;
	op.src[0] = x;
	for (i = 0; i < 4; i++)
		d[i] = tx->dim[i];
	return add_op(&o, &op, d);
}

int ane_net_pool(struct ane_net *net, int x, const struct ane_net_pool_params *p)
{
	struct op_ctx o = { net, "ane_net_pool", net ? net->n_ops : 0 };
	const struct ane__tensor *tx;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = get_operand(&o, "x", x, &tx)))
		return ret;
	if (!p)
		return op_fail(&o, "the parameters are NULL; at least the window size is needed");
	if ((ret = check_act(&o, (uint32_t)p->act)))
		return ret;
	if ((uint32_t)p->kind > ANE_NET_POOL_AVG)
		return op_fail(&o, "kind %u is unknown (ANE_NET_POOL_MAX 0, ANE_NET_POOL_AVG 1)",
			       (uint32_t)p->kind);
	if (p->count_pad && p->kind != ANE_NET_POOL_AVG)
		return op_fail(&o, "count_pad applies to average pooling only");
	op_init(&op, ANE__OP_POOL);
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
	if ((ret = check_range(&o, "kernel_h", op.kernel[0])) ||
	    (ret = check_range(&o, "kernel_w", op.kernel[1])) ||
	    (ret = check_range(&o, "stride_h", op.stride[0])) ||
	    (ret = check_range(&o, "stride_w", op.stride[1])))
		return ret;
	for (i = 0; i < 4; i++) {
		static const char *const pn[4] = { "pad_top", "pad_bottom",
						   "pad_left", "pad_right" };

		if (op.pad[i] >= op.kernel[i / 2])
			return op_fail(&o, "%s %u must be smaller than the window %s, %u",
				       pn[i], op.pad[i], i < 2 ? "height" : "width",
				       op.kernel[i / 2]);
	}
	d[0] = tx->dim[0];
	d[1] = tx->dim[1];
	d[2] = window_out(tx->dim[2], op.pad[0], op.pad[1], op.kernel[0], 1, op.stride[0]);
	d[3] = window_out(tx->dim[3], op.pad[2], op.pad[3], op.kernel[1], 1, op.stride[1]);
	if (!d[2] || !d[3])
		return op_fail(&o, "the %ux%u window does not fit x '%s', %ux%u padded to %llux%llu",
			       op.kernel[0], op.kernel[1], tx->name, tx->dim[2], tx->dim[3],
			       (unsigned long long)tx->dim[2] + op.pad[0] + op.pad[1],
			       (unsigned long long)tx->dim[3] + op.pad[2] + op.pad[3]);
	op.src[0] = x;
	return add_op(&o, &op, d);
}

int ane_net_softmax(struct ane_net *net, int x)
{
	struct op_ctx o = { net, "ane_net_softmax", net ? net->n_ops : 0 };
	const struct ane__tensor *tx;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = get_operand(&o, "x", x, &tx)))
		return ret;
	if (tx->dim[1] > MAX_SOFTMAX)
		return op_fail(&o, "x '%s' is %s: a softmax runs over at most %u channels",
			       tx->name, shp(tx->dim).s, MAX_SOFTMAX);
	op_init(&op, ANE__OP_SOFTMAX);
	op.src[0] = x;
	for (i = 0; i < 4; i++)
		d[i] = tx->dim[i];
	return add_op(&o, &op, d);
}

int ane_net_norm(struct ane_net *net, int x, enum ane_net_norm_kind kind)
{
	struct op_ctx o = { net, "ane_net_norm", net ? net->n_ops : 0 };
	const struct ane__tensor *tx;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = get_operand(&o, "x", x, &tx)))
		return ret;
	if ((uint32_t)kind > ANE_NET_NORM_LAYER)
		return op_fail(&o, "kind %u is unknown (ANE_NET_NORM_SOFTMAX 0, ANE_NET_NORM_LAYER 1)",
			       (uint32_t)kind);
	if (tx->dim[3] > MAX_SOFTMAX)
		return op_fail(&o, "x '%s' is %s: a normalization runs over at most %u elements of W",
			       tx->name, shp(tx->dim).s, MAX_SOFTMAX);
	op_init(&op, ANE__OP_NORM);
	op.subop = (uint32_t)kind;
	op.src[0] = x;
	for (i = 0; i < 4; i++)
		d[i] = tx->dim[i];
	return add_op(&o, &op, d);
}

int ane_net_output(struct ane_net *net, int tensor)
{
	struct ane__tensor *t;

	if (!net)
		return -EINVAL;
	if (tensor < 0)
		return ane__net_fail(net, EINVAL,
				     "ane_net_output: output %u: tensor %d is not a tensor: the call that should have made it failed (%s)",
				     net->n_outputs, tensor,
				     net->failed ? net->first_err : "no earlier failure recorded");
	if ((size_t)tensor >= net->n_t)
		return ane__net_fail(net, EINVAL,
				     "ane_net_output: output %u: the net has no tensor %d (it has %zu)",
				     net->n_outputs, tensor, net->n_t);
	t = &net->t[tensor];
	if (t->kind != ANE__T_OP)
		return ane__net_fail(net, EINVAL,
				     "ane_net_output: output %u: tensor %d ('%s') is %s: the program never writes it, so an output must be an operation's result (copy it with ane_net_activation(net, x, ANE_NET_ACT_NONE))",
				     net->n_outputs, tensor, t->name,
				     t->kind == ANE__T_INPUT ? "an input" :
				     t->kind == ANE__T_VIEW ? "a view" : "a constant");
	if (t->output >= 0)
		return ane__net_fail(net, EINVAL,
				     "ane_net_output: tensor %d ('%s') is already output %d",
				     tensor, t->name, t->output);
	if (net->n_outputs == ANE_IMG_MAX_IO)
		return ane__net_fail(net, EINVAL,
				     "ane_net_output: tensor %d ('%s'): a procedure has at most %u outputs",
				     tensor, t->name, ANE_IMG_MAX_IO);
	t->output = (int)net->n_outputs;
	net->outputs[net->n_outputs] = tensor;
	net_changed(net);
	net_ok(net);
	return (int)net->n_outputs++;
}

/* ------------------------------------------------------------ build */

void ane__net_liveness(struct ane_net *net)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < net->n_t; i++)
		net->t[i].last_use = -1;
	for (i = 0; i < net->n_ops; i++) {
		const struct ane__op *op = &net->ops[i];
		const int ids[3] = { op->src[0], op->src[1], op->bias };

		for (k = 0; k < 3; k++)
			if (ids[k] >= 0)	/* a view reads its parent */
				net->t[ane__storage(net->t, ids[k])].last_use = (int)i;
	}
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

struct live {
	uint64_t start, end;
	int tensor;
};

/*
 * Place every intermediate result in the intermediate buffer, first fit,
 * reusing the space of results no later operation reads.  A result is
 * placed while its operation's sources are still live, so it never
 * overlaps them.  Returns the peak size, or UINT64_MAX if out of memory.
 */
static uint64_t place_intermediates(struct ane_net *net)
{
	struct live *live = calloc(net->n_ops + 1, sizeof(*live));
	size_t n_live = 0, i, j, k;
	uint64_t peak = 0;

	if (!live)
		return UINT64_MAX;
	for (i = 0; i < net->n_ops; i++) {
		/* a strided destination's storage: ane_net_merge_heads() */
		int id = ane__storage(net->t, net->ops[i].dst);
		struct ane__tensor *t = &net->t[id];
		uint64_t size = align_up(ane__elems(t->dim) * 2, 16), at = 0;

		if (t->output < 0) {
			/* first fit among the live ranges, kept sorted */
			for (j = 0; j < n_live; j++) {
				if (at + size <= live[j].start)
					break;
				if (live[j].end > at)
					at = live[j].end;
			}
			memmove(&live[j + 1], &live[j], (n_live - j) * sizeof(*live));
			live[j] = (struct live){ at, at + size, id };
			n_live++;
			t->offset = at;
			if (at + size > peak)
				peak = at + size;
		}
		/* free what op i read last, and its result if nobody reads it */
		for (j = 0, k = 0; j < n_live; j++) {
			const struct ane__tensor *l = &net->t[live[j].tensor];

			if (l->last_use > (int)i)
				live[k++] = live[j];
		}
		n_live = k;
	}
	free(live);
	return peak;
}

static void td_dims(uint32_t *w, const uint32_t *d)
{
	memcpy(w, d, 4 * sizeof(*w));
}

/*
 * Fold a bias into the MATMUL that produces what it is added to: a
 * MATMUL without bias or activation whose result is no output and is
 * read only by the next operation, an ELTWISE ADD of it and a tensor
 * that broadcasts onto it, becomes one MATMUL with that tensor as its
 * bias and the ADD's activation (engine.rst, "MATMUL bias"): the same
 * bits, one pass over memory fewer.  Writes the operations to @out and
 * returns how many.
 */
static size_t fuse_ops(const struct ane_net *net, struct ane__op *out)
{
	size_t i, n = 0;
	unsigned int k;
	int *uses = calloc(net->n_t ? net->n_t : 1, sizeof(*uses));

	if (!uses)
		return 0;
	for (i = 0; i < net->n_ops; i++) {
		const struct ane__op *op = &net->ops[i];
		const int ids[3] = { op->src[0], op->src[1], op->bias };

		for (k = 0; k < 3; k++)
			if (ids[k] >= 0)	/* a view reads its parent */
				uses[ane__storage(net->t, ids[k])]++;
	}
	for (i = 0; i < net->n_ops; i++) {
		const struct ane__op *op = &net->ops[i], *nx = op + 1;
		const struct ane__tensor *r = &net->t[op->dst];

		out[n] = *op;
		if (op->op == ANE__OP_MATMUL && op->act == ANE_NET_ACT_NONE &&
		    op->bias < 0 && r->output < 0 && uses[op->dst] == 1 &&
		    i + 1 < net->n_ops && nx->op == ANE__OP_ELTWISE &&
		    nx->subop == ANE_NET_ADD &&
		    (nx->src[0] == op->dst) != (nx->src[1] == op->dst) &&
		    !memcmp(net->t[nx->dst].dim, r->dim, sizeof(r->dim))) {
			out[n].bias = nx->src[nx->src[0] == op->dst ? 1 : 0];
			out[n].act = nx->act;
			out[n].dst = nx->dst;
			i++;
		}
		n++;
	}
	free(uses);
	return n;
}

static int build_image(struct ane_net *net, const void **image, size_t *size);

int ane_net_build(struct ane_net *net, const void **image, size_t *size)
{
	struct ane__op *ops, *fused;
	size_t n_ops, swap;
	int ret;

	if (!net || !image || !size)
		return -EINVAL;
	*image = NULL;
	*size = 0;
	if (net->failed)
		return net_err(net, EINVAL, "ane_net_build: the net is incomplete because a call failed; the first failure: %s",
			       net->first_err);
	if (!net->n_ops)
		return net_err(net, EINVAL, "ane_net_build: the net has no operations");
	if (!net->n_outputs)
		return net_err(net, EINVAL, "ane_net_build: the net has no outputs: mark at least one result with ane_net_output()");
	if (net->image) {
		*image = net->image;
		*size = net->image_size;
		net_ok(net);
		return 0;
	}
	fused = malloc(net->n_ops * sizeof(*fused));
	n_ops = fused ? fuse_ops(net, fused) : 0;
	if (!n_ops) {
		free(fused);
		return net_err(net, ENOMEM, "ane_net_build: out of memory");
	}
	/* build from the fused list; the net keeps its own */
	ops = net->ops;
	net->ops = fused;
	swap = net->n_ops;
	net->n_ops = n_ops;
	ret = build_image(net, image, size);
	net->ops = ops;
	net->n_ops = swap;
	free(fused);
	return ret;
}

static int build_image(struct ane_net *net, const void **image, size_t *size)
{
	unsigned int nin, nout, nbars, slot_w, slot_i, i, k;
	uint64_t wsize = 0, isize, off, procs_off, bars_off, rws_off, tds_off;
	uint64_t weights_off = 0, total;
	size_t nrws = 0, r;
	struct ane_img_header *h;
	struct ane_img_procedure *pr;
	struct ane_img_bar *bars;
	struct ane_img_rw *rws;
	struct ane_img_td *tds;
	uint8_t *img;

	nin = net->n_inputs;
	nout = net->n_outputs;
	ane__net_liveness(net);

	/* The weights section: every constant, 16-byte aligned. */
	for (r = 0; r < net->n_t; r++) {
		struct ane__tensor *t = &net->t[r];

		if (t->kind != ANE__T_CONST)
			continue;
		t->offset = wsize;
		wsize = align_up(wsize + ane__elems(t->dim) * 2, 16);
	}
	isize = place_intermediates(net);
	if (isize == UINT64_MAX)
		return net_err(net, ENOMEM, "ane_net_build: out of memory");
	if (isize > ANE__MAX_BUFFER)
		return net_err(net, EINVAL, "ane_net_build: the intermediate results need %llu bytes at their peak; the intermediate buffer holds at most 1 GiB",
			       (unsigned long long)isize);

	nbars = nin + nout + (wsize ? 1 : 0) + (isize ? 1 : 0);
	if (nbars > ANE_IMG_MAX_BARS)
		return net_err(net, EINVAL, "ane_net_build: %u inputs, %u outputs%s%s need %u bars; an image has at most %u",
			       nin, nout, wsize ? ", the weights" : "",
			       isize ? ", the intermediates" : "", nbars,
			       ANE_IMG_MAX_BARS);
	slot_w = nin + nout;
	slot_i = slot_w + (wsize ? 1 : 0);
	for (r = 0; r < net->n_ops; r++) {
		const struct ane__op *op = &net->ops[r];

		nrws += 2 + (op->src[1] >= 0) + (op->bias >= 0);
	}

	/* Layout: header, procedure, bars, register writes, TDs, weights. */
	procs_off = sizeof(*h);
	bars_off = align_up(procs_off + sizeof(*pr), 16);
	rws_off = align_up(bars_off + (uint64_t)nbars * sizeof(*bars), 16);
	tds_off = align_up(rws_off + (uint64_t)nrws * sizeof(*rws), 256);
	off = tds_off + (uint64_t)net->n_ops * sizeof(*tds);
	if (wsize) {
		weights_off = align_up(off, ANE__PAGE_SIZE);
		off = weights_off + wsize;
	}
	total = off;
	if (total > ANE_IMG_MAX_SIZE)
		return net_err(net, EINVAL, "ane_net_build: the image would be %llu bytes (weights %llu); an image holds at most %u MiB",
			       (unsigned long long)total, (unsigned long long)wsize,
			       ANE_IMG_MAX_SIZE >> 20);
	img = calloc(1, total);
	if (!img)
		return net_err(net, ENOMEM, "ane_net_build: out of memory for a %llu-byte image",
			       (unsigned long long)total);

	h = (struct ane_img_header *)img;
	h->magic = ANE_IMG_MAGIC;
	h->version_major = ANE_IMG_VERSION_MAJOR;
	h->version_minor = ANE_IMG_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->image_size = total;
	h->num_procedures = 1;
	h->procedures_offset = (uint32_t)procs_off;
	h->num_tds = (uint32_t)net->n_ops;
	h->tds_offset = (uint32_t)tds_off;
	h->num_rws = (uint32_t)nrws;
	h->rws_offset = (uint32_t)rws_off;
	h->num_bars = nbars;
	h->bars_offset = (uint32_t)bars_off;
	h->weights_offset = weights_off;
	h->weights_size = wsize;
	h->intermediate_size = isize;

	pr = (struct ane_img_procedure *)(img + procs_off);
	pr->first_td = 0;
	pr->num_tds = (uint32_t)net->n_ops;
	pr->first_rw = 0;
	pr->num_rws = (uint32_t)nrws;
	pr->num_inputs = (uint16_t)nin;
	pr->num_outputs = (uint16_t)nout;
	pr->partitions = 1;
	pr->content_type = 0;

	bars = (struct ane_img_bar *)(img + bars_off);
	for (i = 0; i < nin; i++) {
		const struct ane__tensor *t = &net->t[net->inputs[i]];

		bars[i] = (struct ane_img_bar){ .slot = i, .usage = ANE__USAGE_INPUT,
						.io_index = i,
						.size = ane__elems(t->dim) * 2 };
	}
	for (i = 0; i < nout; i++) {
		const struct ane__tensor *t = &net->t[net->outputs[i]];

		bars[nin + i] = (struct ane_img_bar){ .slot = nin + i,
						      .usage = ANE__USAGE_OUTPUT,
						      .io_index = i,
						      .size = ane__elems(t->dim) * 2 };
	}
	if (wsize)
		bars[slot_w] = (struct ane_img_bar){ .slot = slot_w,
						     .usage = ANE__USAGE_WEIGHTS,
						     .size = wsize };
	if (isize)
		bars[slot_i] = (struct ane_img_bar){ .slot = slot_i,
						     .usage = ANE__USAGE_INTERMEDIATE,
						     .size = isize };

	for (r = 0; r < net->n_t; r++) {
		const struct ane__tensor *t = &net->t[r];

		if (t->kind == ANE__T_CONST)
			memcpy(img + weights_off + t->offset, t->data,
			       ane__elems(t->dim) * 2);
	}

	tds = (struct ane_img_td *)(img + tds_off);
	rws = (struct ane_img_rw *)(img + rws_off);
	nrws = 0;
	for (r = 0; r < net->n_ops; r++) {
		const struct ane__op *op = &net->ops[r];
		uint32_t *w = tds[r].words;
		const int ids[4] = { op->src[0], op->src[1], op->bias, op->dst };

		w[ANE_TD_OP] = op->op;
		w[ANE_TD_ACT] = op->act;
		switch (op->op) {
		case ANE__OP_CONV:
			w[ANE_TD_STRIDE_H] = op->stride[0];
			w[ANE_TD_STRIDE_W] = op->stride[1];
			w[ANE_TD_DILATION_H] = op->dilation[0];
			w[ANE_TD_DILATION_W] = op->dilation[1];
			for (k = 0; k < 4; k++)
				w[ANE_TD_PAD_TOP + k] = op->pad[k];
			w[ANE_TD_GROUPS] = op->groups;
			break;
		case ANE__OP_MATMUL:
			w[ANE_TD_FLAGS] = op->flags;
			break;
		case ANE__OP_ELTWISE:
		case ANE__OP_NORM:
			w[ANE_TD_SUBOP] = op->subop;
			break;
		case ANE__OP_POOL:
			w[ANE_TD_SUBOP] = op->subop;
			w[ANE_TD_FLAGS] = op->flags;
			w[ANE_TD_STRIDE_H] = op->stride[0];
			w[ANE_TD_STRIDE_W] = op->stride[1];
			for (k = 0; k < 4; k++)
				w[ANE_TD_PAD_TOP + k] = op->pad[k];
			w[ANE_TD_KERNEL_H] = op->kernel[0];
			w[ANE_TD_KERNEL_W] = op->kernel[1];
			break;
		}
		td_dims(&w[ANE_TD_SRC0_DIMS], net->t[op->src[0]].dim);
		if (op->src[1] >= 0)
			td_dims(&w[ANE_TD_SRC1_DIMS], net->t[op->src[1]].dim);
		if (op->bias >= 0)
			td_dims(&w[ANE_TD_BIAS_DIMS], net->t[op->bias].dim);
		td_dims(&w[ANE_TD_DST_DIMS], net->t[op->dst].dim);
		for (k = 0; k < 4; k++) {
			const struct ane__tensor *t;

			if (ids[k] < 0 || net->t[ids[k]].kind != ANE__T_VIEW)
				continue;
			t = &net->t[ids[k]];
			w[ANE_TD_SRC0_LAYOUT + k] = ANE_TD_LAYOUT(t->row, t->plane);
		}

		/* One register write per operand the task uses. */
		for (k = 0; k < 4; k++) {
			const struct ane__tensor *t;
			struct ane_img_rw *rw;
			uint64_t len, o = 0;
			uint32_t bar;

			if (ids[k] < 0)
				continue;
			t = &net->t[ane__storage(net->t, ids[k])];
			len = ane__elems(t->dim) * 2;
			if (net->t[ids[k]].kind == ANE__T_VIEW) {
				/* from the view's first element to its parent's end */
				o = (uint64_t)net->t[ids[k]].voff * 2;
				len -= o;
			}
			switch (t->kind) {
			case ANE__T_INPUT:
				bar = (uint32_t)t->index;
				break;
			case ANE__T_CONST:
				bar = slot_w;
				o += t->offset;
				break;
			default:
				if (t->output >= 0) {
					bar = nin + (uint32_t)t->output;
				} else {
					bar = slot_i;
					o += t->offset;
				}
				break;
			}
			rw = &rws[nrws++];
			rw->td = (uint32_t)r;
			rw->reg = k;
			rw->bar = bar;
			rw->offset_lo = (uint32_t)o;
			rw->offset_hi = (uint32_t)(o >> 32);
			rw->length_lo = (uint32_t)len;
			rw->length_hi = (uint32_t)(len >> 32);
		}
	}

	net->image = img;
	net->image_size = (size_t)total;
	*image = img;
	*size = (size_t)total;
	net_ok(net);
	return 0;
}
