// SPDX-License-Identifier: MIT
/*
 * libane: the net builder.  Tensors and operations in, shape inference
 * with messages a person can act on, and one program image out that
 * follows every rule of the kernel's validation (driver/ane_image.c and
 * the engine's descriptor check): see Documentation/accel/ane/libane.rst.
 *
 * This file holds the net, its inputs, constants and outputs, and what
 * every operation shares; the compute operations are
 * ane_builder_ops.c, data movement ane_builder_move.c, the image
 * ane_builder_image.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_internal.h"

const char ane__dim_name[4] = { 'N', 'C', 'H', 'W' };

/* ------------------------------------------------------------ messages */

static void net_vmsg(struct ane_net *net, const char *fmt, va_list ap)
{
	vsnprintf(net->err, sizeof(net->err), fmt, ap);
}

/* A failure that leaves the net as it was (queries, build). */
int ane__net_err(struct ane_net *net, int err, const char *fmt, ...)
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

void ane__net_ok(struct ane_net *net)
{
	net->err[0] = '\0';
}

/* Any change drops the last image. */
void ane__net_changed(struct ane_net *net)
{
	free(net->image);
	net->image = NULL;
	net->image_size = 0;
}

struct ane__shape_str ane__shp(const uint32_t *d)
{
	struct ane__shape_str r;

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
struct ane__tensor *ane__new_tensor(struct ane_net *net)
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
int ane__check_dims(struct ane_net *net, const char *what, const uint32_t *d)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (d[i] < 1 || d[i] > ANE__MAX_DIM)
			return ane__net_fail(net, EINVAL,
					     "%s: dimension %c is %u; every dimension must be 1..%u",
					     what, ane__dim_name[i], d[i], ANE__MAX_DIM);
	if (ane__elems(d) * 2 > ANE__MAX_BUFFER)
		return ane__net_fail(net, EINVAL,
				     "%s: %s is %llu bytes as fp16; a buffer holds at most 1 GiB",
				     what, ane__shp(d).s,
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

/* The next input, of fp16 values or (@is_index) of int16 indices. */
static int net_input(struct ane_net *net, const char *fn, const char *name,
		     const uint32_t *d, int is_index)
{
	struct ane__tensor *t;
	char what[96];
	int ret;

	if (!net)
		return -EINVAL;
	snprintf(what, sizeof(what), "%s: input %u ('%s')", fn,
		 net->n_inputs, name && name[0] ? name : "unnamed");
	if (net->n_inputs == ANE_IMG_MAX_IO)
		return ane__net_fail(net, EINVAL,
				     "%s: a procedure takes at most %u inputs",
				     what, ANE_IMG_MAX_IO);
	ret = ane__check_dims(net, what, d);
	if (ret)
		return ret;
	t = ane__new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: out of memory", what);
	memcpy(t->dim, d, sizeof(t->dim));
	t->kind = ANE__T_INPUT;
	t->index = (int)net->n_inputs;
	t->is_index = is_index;
	set_name(t, name, "input", net->n_inputs);
	net->inputs[net->n_inputs++] = (int)net->n_t;
	ane__net_changed(net);
	ane__net_ok(net);
	return (int)net->n_t++;
}

int ane_net_input(struct ane_net *net, const char *name, uint32_t n,
		  uint32_t c, uint32_t h, uint32_t w)
{
	const uint32_t d[4] = { n, c, h, w };

	return net_input(net, "ane_net_input", name, d, 0);
}

int ane_net_input_index(struct ane_net *net, const char *name, uint32_t n,
			uint32_t c, uint32_t h, uint32_t w)
{
	const uint32_t d[4] = { n, c, h, w };

	return net_input(net, "ane_net_input_index", name, d, 1);
}

int ane_net_input_is_index(const struct ane_net *net, unsigned int i)
{
	if (!net || i >= net->n_inputs)
		return -EINVAL;
	return net->t[net->inputs[i]].is_index;
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
	ret = ane__check_dims(net, what, d);
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
	t = ane__new_tensor(net);
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
	ane__net_changed(net);
	ane__net_ok(net);
	return (int)net->n_t++;
}

/* ------------------------------------------------------------ operations */

int ane__op_fail(const struct ane__op_ctx *o, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ane__net_fail(o->net, EINVAL, "%s: op %zu: %s", o->fn, o->idx, msg);
}

/* An operand: a tensor of this net, a view included. */
int ane__get_operand_view(const struct ane__op_ctx *o, const char *role, int id,
			    const struct ane__tensor **t)
{
	if (id < 0)
		return ane__op_fail(o, "%s is %d, not a tensor: the call that should have made it failed (%s)",
			       role, id, o->net->failed ? o->net->first_err :
			       "no earlier failure recorded");
	if ((size_t)id >= o->net->n_t)
		return ane__op_fail(o, "%s is %d, but the net has no tensor %d (it has %zu)",
			       role, id, id, o->net->n_t);
	*t = &o->net->t[id];
	return ane__refuse_index(o, role, id);
}

int ane__get_operand(const struct ane__op_ctx *o, const char *role, int id,
		     const struct ane__tensor **t)
{
	int ret = ane__get_operand_view(o, role, id, t);

	if (!ret && ane__is_strided_view(*t))
		return ane__op_fail(o, "%s '%s' is a view (ane_net_view()); only ane_net_matmul() reads views (ane_net_copy() makes a dense copy of it)",
				    role, (*t)->name);
	return ret;
}

int ane__check_act(const struct ane__op_ctx *o, uint32_t act)
{
	if (act >= ANE__NUM_ACTS)
		return ane__op_fail(o, "activation %u is unknown (ANE_NET_ACT_NONE .. ANE_NET_ACT_THRESHOLDED_RELU = 0..26)",
			       act);
	if (act >= ANE__FIRST_PARAM_ACT)
		return ane__op_fail(o, "activation %u takes parameters (ANE_NET_ACT_ELU .. ANE_NET_ACT_THRESHOLDED_RELU = 20..26): use ane_net_activation_param(), never fused",
			       act);
	return 0;
}

int ane__check_range(const struct ane__op_ctx *o, const char *what, uint32_t v)
{
	if (v < 1 || v > ANE__MAX_KERNEL)
		return ane__op_fail(o, "%s %u is out of range 1..%u", what, v, ANE__MAX_KERNEL);
	return 0;
}

/* Room for one more operation; 0 or -errno (recorded). */
static int grow_ops(const struct ane__op_ctx *o)
{
	struct ane_net *net = o->net;
	struct ane__op *ops;
	size_t cap;

	if (net->n_ops >= ANE_IMG_MAX_TDS)
		return ane__op_fail(o, "a program holds at most %u operations", ANE_IMG_MAX_TDS);
	if (net->n_ops < net->cap_ops)
		return 0;
	cap = net->cap_ops ? 2 * net->cap_ops : 16;
	ops = realloc(net->ops, cap * sizeof(*ops));
	if (!ops)
		return ane__net_fail(net, ENOMEM, "%s: op %zu: out of memory",
				     o->fn, o->idx);
	net->ops = ops;
	net->cap_ops = cap;
	return 0;
}

/* Append @op with a new result tensor of shape @d; returns its id. */
int ane__add_like(const struct ane__op_ctx *o, struct ane__op *op, int x,
		  const struct ane__tensor *tx)
{
	uint64_t d[4];
	unsigned int i;

	op->src[0] = x;
	for (i = 0; i < 4; i++)
		d[i] = tx->dim[i];
	return ane__add_op(o, op, d);
}

int ane__add_op(const struct ane__op_ctx *o, struct ane__op *op, const uint64_t *d)
{
	struct ane_net *net = o->net;
	struct ane__tensor *t;
	uint32_t dim[4];
	unsigned int i;
	int ret;

	for (i = 0; i < 4; i++) {
		if (d[i] > ANE__MAX_DIM)
			return ane__op_fail(o, "the result's dimension %c would be %llu; at most %u",
				       ane__dim_name[i], (unsigned long long)d[i], ANE__MAX_DIM);
		dim[i] = (uint32_t)d[i];
	}
	if (ane__elems(dim) * 2 > ANE__MAX_BUFFER)
		return ane__op_fail(o, "the result, %s, is %llu bytes as fp16; a buffer holds at most 1 GiB",
			       ane__shp(dim).s, (unsigned long long)ane__elems(dim) * 2);
	ret = grow_ops(o);
	if (ret)
		return ret;
	t = ane__new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: op %zu: out of memory", o->fn, o->idx);
	memcpy(t->dim, dim, sizeof(dim));
	t->kind = ANE__T_OP;
	t->index = (int)net->n_ops;
	snprintf(t->name, sizeof(t->name), "op%zu", net->n_ops);
	op->dst = (int)net->n_t;
	net->ops[net->n_ops++] = *op;
	ane__net_changed(net);
	ane__net_ok(net);
	return (int)net->n_t++;
}

int ane__add_op_into(const struct ane__op_ctx *o, struct ane__op *op)
{
	struct ane_net *net = o->net;
	int ret = grow_ops(o);

	if (ret)
		return ret;
	net->ops[net->n_ops++] = *op;
	ane__net_changed(net);
	ane__net_ok(net);
	return op->dst;
}

void ane__op_init(struct ane__op *op, uint32_t kind)
{
	memset(op, 0, sizeof(*op));
	op->op = kind;
	op->src[0] = op->src[1] = op->bias = op->dst = -1;
}

/* Tensor @x of @net for @fn; -EINVAL (recorded) if there is none. */
int ane__net_tensor(struct ane_net *net, const char *fn, int x)
{
	if (x < 0 || (size_t)x >= net->n_t)
		return ane__net_fail(net, EINVAL, "%s: x is %d, not a tensor of this net (%s)",
				     fn, x, net->failed ? net->first_err :
				     "no earlier failure recorded");
	return 0;
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
	if (t->kind == ANE__T_VIEW && !ane__is_strided_view(t) &&
	    net->t[t->parent].kind == ANE__T_OP && !t->voff &&
	    ane__elems(t->dim) == ane__elems(net->t[t->parent].dim)) {
		/* a reshape of a result: the result's storage is the output */
		struct ane__tensor *p = &net->t[t->parent];

		if (p->output >= 0 || t->output >= 0)
			return ane__net_fail(net, EINVAL,
					     "ane_net_output: tensor %d ('%s') is a reshape of '%s', which is already output %d",
					     tensor, t->name, p->name,
					     p->output >= 0 ? p->output : t->output);
		if (net->n_outputs == ANE_IMG_MAX_IO)
			return ane__net_fail(net, EINVAL,
					     "ane_net_output: tensor %d ('%s'): a procedure has at most %u outputs",
					     tensor, t->name, ANE_IMG_MAX_IO);
		p->output = t->output = (int)net->n_outputs;
		net->outputs[net->n_outputs] = tensor;
		ane__net_changed(net);
		ane__net_ok(net);
		return (int)net->n_outputs++;
	}
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
	ane__net_changed(net);
	ane__net_ok(net);
	return (int)net->n_outputs++;
}
