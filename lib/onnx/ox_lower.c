// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: ONNX ops lowered to the engine's operations
 * through libane's builder -- elementwise arithmetic and activations,
 * views, softmax and normalizations.  The convolution, matrix products
 * and pooling are in ox_lower_nn.c.  Each lowering checks first (the
 * dry run) and emits only what it checked (ox_lower.h).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"

int ane__ox_lit(struct lower *L, float v)
{
	return ane_net_const(ox_net(L), "literal", 1, 1, 1, 1, &v);
}

int ane__ox_out_ok(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	uint32_t d[4];
	int j;

	if (!y)
		return ane__ox_why(L, "output 0 is omitted");
	for (j = 1; j < n->n_out; j++)
		if (n->out[j] >= 0 && (L->c->g->t[n->out[j]].n_uses ||
				       L->c->g->t[n->out[j]].is_output))
			return ane__ox_why(L, "its output %d is used; the engine computes only output 0",
					   j);
	if (y->dtype != OX_FLOAT && y->dtype != OX_FLOAT16)
		return ane__ox_why(L, "output '%s' is %s, not float", y->name,
				   ane__ox_dtype_name(y->dtype));
	if (ane__ox_shape4(y->rank, y->dims, d))
		return ane__ox_why(L, "output '%s' has a dimension the engine cannot hold",
				   y->name);
	return 0;
}

/* ------------------------------------------------------------ activations */

/*
 * An activation node the engine fuses into the operation before it: its
 * ANE_NET_ACT_*, or -1.  Clip is one when its bounds are constant 0 and
 * 6 (relu6) or 0 and none (relu).
 */
/* A Clip's bounds (-inf, inf where absent); -1 if one is computed. */
static int clip_bounds(struct lower *L, const struct ox_node *m, double *lo_out,
		       double *hi_out)
{
	const struct ox_value *lo = NULL, *hi = NULL;
	double a = -INFINITY, b = INFINITY;

	if (L->c->g->opset < 11) {
		a = ane__ox_attr_f(m, "min", -INFINITY);
		b = ane__ox_attr_f(m, "max", INFINITY);
	} else {
		const struct ox_tensor *tl = ane__ox_in(L->c, m, 1);
		const struct ox_tensor *th = ane__ox_in(L->c, m, 2);

		if ((tl && !tl->konst) || (th && !th->konst))
			return -1;
		lo = tl ? tl->konst : NULL;
		hi = th ? th->konst : NULL;
		if ((lo && lo->count != 1) || (hi && hi->count != 1))
			return -1;
		if (lo)
			a = ane__ox_get_f(lo, 0);
		if (hi)
			b = ane__ox_get_f(hi, 0);
	}
	*lo_out = a;
	*hi_out = b;
	return 0;
}

int ane__ox_act_of(struct lower *L, const struct ox_node *m)
{
	double a, b;

	if (!strcmp(m->op_type, "Relu"))
		return ANE_NET_ACT_RELU;
	if (!strcmp(m->op_type, "Sigmoid"))
		return ANE_NET_ACT_SIGMOID;
	static const struct {
		const char *op;
		enum ane_net_act act;
	} unary[] = {
		{ "Exp", ANE_NET_ACT_EXP }, { "Log", ANE_NET_ACT_LOG },
		{ "Sqrt", ANE_NET_ACT_SQRT }, { "Reciprocal", ANE_NET_ACT_RECIP },
		{ "Erf", ANE_NET_ACT_ERF }, { "Softplus", ANE_NET_ACT_SOFTPLUS },
		{ "Softsign", ANE_NET_ACT_SOFTSIGN }, { "HardSwish", ANE_NET_ACT_HARDSWISH },
		{ "Sin", ANE_NET_ACT_SIN }, { "Cos", ANE_NET_ACT_COS },
	};
	size_t i;

	if (!strcmp(m->op_type, "Tanh"))
		return ANE_NET_ACT_TANH;
	for (i = 0; i < sizeof(unary) / sizeof(unary[0]); i++)
		if (!strcmp(m->op_type, unary[i].op))
			return unary[i].act;
	if (strcmp(m->op_type, "Clip") || clip_bounds(L, m, &a, &b))
		return -1;
	if (a == 0.0 && b == 6.0)
		return ANE_NET_ACT_RELU6;
	if (a == 0.0 && b == INFINITY)
		return ANE_NET_ACT_RELU;
	return -1;
}

/*
 * The activation right after @n that the engine can fuse into it, or
 * ANE_NET_ACT_NONE; with one, L->absorbed counts it.
 */
int ane__ox_fuse_act(struct lower *L, const struct ox_node *n)
{
	int k = ane__ox_sole_next(L, n), act;
	const struct ox_node *m;

	if (k < 0)
		return ane__ox_fuse_silu(L, n) ? ANE_NET_ACT_SILU : ANE_NET_ACT_NONE;
	m = &L->c->g->nodes[k];
	act = ane__ox_act_of(L, m);
	if (act < 0 || ane__ox_out_ok(L, m))
		return ANE_NET_ACT_NONE;
	L->absorbed++;
	return act;
}

/* The result of node @n (output 0) is builder tensor @id, or an error. */
int ane__ox_done(struct lower *L, const struct ox_node *n, int id)
{
	const struct ox_graph *g = L->c->g;
	int last = L->node + L->absorbed;

	if (id < 0)
		return id;
	/* A fused node's output is what the segment writes. */
	ane__ox_set(L, g->nodes[last].out[0], id);
	if (last != L->node)
		ane__ox_set(L, n->out[0], id);
	return 0;
}

int ane__ox_lw_act(struct lower *L, const struct ox_node *n)
{
	int act = ane__ox_act_of(L, n), err, id;
	double lo, hi;

	if (act < 0 && clip_bounds(L, n, &lo, &hi)) {
		int i = ane__ox_in(L->c, n, 1) && !ane__ox_in(L->c, n, 1)->konst ? 1 : 2;

		return ane__ox_why(L, "input %d '%s' must be a constant: the engine's Clip bounds are",
				   i, ane__ox_in(L->c, n, i)->name);
	}
	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err || L->dry)
		return err;
	if (act < 0) {
		/*
		 * Any other bounds: a MAX and a MIN with them (each skipped
		 * where it is beyond fp16's range), which pass a NaN on as
		 * Clip does; the values are the input's or a bound's.
		 */
		id = ane__ox_get(L, n->in[0], NULL);
		if (lo >= -65504.0)
			id = ane_net_eltwise(ox_net(L), ANE_NET_MAX, id,
					     ane__ox_lit(L, (float)lo), ANE_NET_ACT_NONE);
		if (hi <= 65504.0)
			id = ane_net_eltwise(ox_net(L), ANE_NET_MIN, id,
					     ane__ox_lit(L, (float)hi), ANE_NET_ACT_NONE);
		if (lo < -65504.0 && hi > 65504.0)
			id = ane_net_activation(ox_net(L), id, ANE_NET_ACT_NONE);
		return ane__ox_done(L, n, id);
	}
	return ane__ox_done(L, n,
			    ane_net_activation(ox_net(L), ane__ox_get(L, n->in[0], NULL),
					       (enum ane_net_act)act));
}

/* ------------------------------------------------------------ eltwise */

static int same_dims(const struct ox_tensor *a, const struct ox_tensor *b)
{
	return a->rank == b->rank &&
	       !memcmp(a->dims, b->dims, sizeof(*a->dims) * (size_t)a->rank);
}

/*
 * A binary node's operands of rank above 4, numpy-aligned: the output's
 * axes merged where both operands are, on both axes, either whole or
 * broadcast (each group's extent the product of its axes'; an axis of
 * extent 1 joins any), so that a [2, 3, 4, 5, 6] and a [1, 3, 1, 1, 1]
 * are read as [1, 2, 3, 120] and [1, 1, 3, 1].  The rows stay in order:
 * the views are reshapes.  -1 when more than 4 groups are needed.
 */
static int merged4(struct lower *L, const struct ox_node *n, int i, uint32_t a[4])
{
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	int64_t ext[OX_MAX_RANK];
	int mask[OX_MAX_RANK], g = 0, k, j, r = y->rank;

	for (k = 0; k < r; k++) {
		int m = 0;

		if (y->dims[k] == 1)
			continue;
		for (j = 0; j < 2; j++) {
			const struct ox_tensor *t = ane__ox_in(L->c, n, j);
			int at = k - (r - t->rank);
			int64_t d = at >= 0 ? t->dims[at] : 1;

			if (d == y->dims[k])
				m |= 1 << j;
			else if (d != 1)
				return -1;
		}
		if (!g || mask[g - 1] != m) {
			if (g == 4)
				return -1;
			mask[g] = m;
			ext[g++] = 1;
		}
		ext[g - 1] *= y->dims[k];
		if (ext[g - 1] > (1 << 24))
			return -1;
	}
	for (k = 0; k < 4; k++)
		a[k] = 1;
	for (k = 0; k < g; k++)
		a[4 - g + k] = mask[k] & (1 << i) ? (uint32_t)ext[k] : 1;
	return 0;
}

/*
 * The dims input @i is read with, aligned to the output's: numpy's
 * right alignment, or an old opset's broadcast attribute with its axis.
 * -EOPNOTSUPP when the engine cannot broadcast it so.
 */
static int aligned4(struct lower *L, const struct ox_node *n, int i,
		    uint32_t a[4], int *moved)
{
	const struct ox_tensor *t = ane__ox_in(L->c, n, i);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	int64_t d[OX_MAX_RANK];
	uint32_t y4[4];
	int k, axis, rank = t->rank;

	*moved = 0;
	ane__ox_shape4(y->rank, y->dims, y4);
	if (y->rank > 4 && !(same_dims(t, y) && (n->n_in != 2 ||
						 same_dims(ane__ox_in(L->c, n, !i), y)))) {
		if (n->n_in != 2 || (L->c->g->opset < 7 && ane__ox_attr_i(n, "broadcast", 0)) ||
		    merged4(L, n, i, a))
			return ane__ox_why(L, "a broadcast of rank %d that needs more than 4 dims on the engine",
					   y->rank);
		return 0;
	}
	if (i == 1 && L->c->g->opset < 7 && ane__ox_attr_i(n, "broadcast", 0) &&
	    ane__ox_attr(n, "axis")) {
		axis = (int)ane__ox_attr_i(n, "axis", 0);
		if (axis < 0 || axis + t->rank > y->rank)
			return ane__ox_why(L, "broadcast axis %d does not fit", axis);
		for (k = 0; k < y->rank; k++)
			d[k] = k >= axis && k < axis + t->rank ? t->dims[k - axis] : 1;
		rank = y->rank;
		*moved = axis + t->rank != y->rank;
	} else {
		memcpy(d, t->dims, sizeof(d));
	}
	if (ane__ox_shape4(rank, d, a))
		return ane__ox_why(L, "input '%s' has a dimension the engine cannot hold",
				   t->name);
	for (k = 0; k < 4; k++)
		if (a[k] != y4[k] && a[k] != 1)
			return ane__ox_why(L, "input '%s' does not broadcast to the output on the engine",
					   t->name);
	if (*moved && !t->konst)
		return ane__ox_why(L, "an old-opset broadcast along axis of a computed tensor is not on the engine");
	return 0;
}

static int elt_kind(const char *op)
{
	if (!strcmp(op, "Add") || !strcmp(op, "Sum"))
		return ANE_NET_ADD;
	if (!strcmp(op, "Sub"))
		return ANE_NET_SUB;
	if (!strcmp(op, "Mul") || !strcmp(op, "Div"))
		return ANE_NET_MUL;
	if (!strcmp(op, "Max"))
		return ANE_NET_MAX;
	if (!strcmp(op, "Min"))
		return ANE_NET_MIN;
	if (!strcmp(op, "Pow"))
		return ANE_NET_POW;
	return -1;
}

/*
 * Max, Min, Sum and Mean of any number of inputs of the output's shape
 * (or constants that broadcast to it): a chain of the engine's binary
 * operations, Mean's sum times 1/n.  One input is a copy.
 */
static int lw_variadic(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	const int mean = !strcmp(n->op_type, "Mean");
	int kind = mean ? ANE_NET_ADD : elt_kind(n->op_type), err, i, k, id = -1;
	uint32_t y4[4], a4[4];

	if (kind < 0 || (kind == ANE_NET_SUB) || !strcmp(n->op_type, "Div") ||
	    !strcmp(n->op_type, "Mul") || n->n_in < 1)
		return ane__ox_why(L, "%d inputs: the engine's %s takes two", n->n_in,
				   n->op_type);
	err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	ane__ox_shape4(y->rank, y->dims, y4);
	for (i = 0; i < n->n_in; i++) {
		const struct ox_tensor *t = ane__ox_in(L->c, n, i);

		err = ane__ox_check_float(L, n, i);
		if (err)
			return err;
		if (y->rank > 4 || t->rank > 4)
			return ane__ox_why(L, "broadcasting beyond rank 4 is not on the engine");
		ane__ox_shape4(t->rank, t->dims, a4);
		for (k = 0; k < 4; k++)
			if (a4[k] != y4[k] && (a4[k] != 1 || !t->konst))
				return ane__ox_why(L, "input '%s' is not of the output's shape",
						   t->name);
		if (t->konst && (err = ane__ox_check_const_f16(L, n, t->konst, t->name)))
			return err;
	}
	if (L->dry)
		return 0;
	id = ane__ox_get(L, n->in[0], NULL);
	for (i = 1; i < n->n_in; i++)
		id = ane_net_eltwise(ox_net(L), (enum ane_net_eltwise_op)kind, id,
				     ane__ox_get(L, n->in[i], NULL), ANE_NET_ACT_NONE);
	if (n->n_in == 1)
		id = ane_net_activation(ox_net(L), id, ANE_NET_ACT_NONE);
	if (mean)
		id = ane_net_eltwise(ox_net(L), ANE_NET_MUL, id,
				     ane__ox_lit(L, 1.0f / (float)n->n_in), ANE_NET_ACT_NONE);
	return ane__ox_done(L, n, id);
}

/* A divisor's reciprocal, a new constant with @a's dims. */
static int reciprocal(struct lower *L, const struct ox_value *v,
		      const uint32_t a[4])
{
	float *f = malloc(sizeof(float) * (v->count ? v->count : 1));
	size_t i;
	int id;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < v->count; i++)
		f[i] = (float)(1.0 / ane__ox_get_f(v, i));
	id = ane_net_const(ox_net(L), "reciprocal", a[0], a[1], a[2], a[3], f);
	free(f);
	return id;
}

int ane__ox_lw_eltwise(struct lower *L, const struct ox_node *n)
{
	int kind = elt_kind(n->op_type), err, i, moved[2], id[2];
	const int is_div = !strcmp(n->op_type, "Div");
	uint32_t a[2][4];

	if (n->n_in != 2)
		return lw_variadic(L, n);
	err = ane__ox_out_ok(L, n);
	for (i = 0; i < 2 && !err; i++) {
		err = ane__ox_check_float(L, n, i);
		if (!err)
			err = aligned4(L, n, i, a[i], &moved[i]);
		if (!err && ane__ox_in(L->c, n, i)->konst)
			err = ane__ox_check_const_f16(L, n, ane__ox_in(L->c, n, i)->konst,
						      ane__ox_in(L->c, n, i)->name);
	}
	if (err)
		return err;
	/* by a constant: times its reciprocal; by a computed tensor: DIV */
	if (is_div && !ane__ox_in(L->c, n, 1)->konst)
		kind = ANE_NET_DIV;
	if (L->dry)
		return 0;
	for (i = 0; i < 2; i++) {
		const struct ox_tensor *t = ane__ox_in(L->c, n, i);
		uint32_t c4[4];

		ane__ox_shape4(t->rank, t->dims, c4);
		if (i == 1 && is_div && kind == ANE_NET_MUL)
			id[i] = reciprocal(L, t->konst, a[i]);
		else
			id[i] = ane__ox_get(L, n->in[i],
					    memcmp(a[i], c4, sizeof(c4)) ? a[i] : NULL);
		if (id[i] < 0)
			return id[i];
	}
	return ane__ox_done(L, n, ane_net_eltwise(ox_net(L), (enum ane_net_eltwise_op)kind,
						  id[0], id[1],
						  (enum ane_net_act)ane__ox_fuse_act(L, n)));
}

/* -x as x * -1; |x| as max(x, -x). */
static int lw_neg_abs(struct lower *L, const struct ox_node *n)
{
	int err = ane__ox_check_float(L, n, 0), x, neg;

	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err || L->dry)
		return err;
	x = ane__ox_get(L, n->in[0], NULL);
	neg = ane_net_eltwise(ox_net(L), ANE_NET_MUL, x, ane__ox_lit(L, -1.0f),
			      ANE_NET_ACT_NONE);
	if (!strcmp(n->op_type, "Neg"))
		return ane__ox_done(L, n, neg);
	return ane__ox_done(L, n, ane_net_eltwise(ox_net(L), ANE_NET_MAX, x, neg,
						  ANE_NET_ACT_NONE));
}

/*
 * LeakyRelu and PRelu with slopes in [0, 1]: max(x, slope * x).  A PRelu
 * slope of one value per channel (opset 6's, or any [C] or [C, 1, ..]) is
 * read per channel of x viewed as N x C x R x 1.
 */
static int per_channel(const struct ox_tensor *x, const struct ox_tensor *s)
{
	int i;

	if (x->rank < 2 || !s->konst || s->konst->count != (size_t)x->dims[1] ||
	    s->rank < 1 || s->dims[0] != x->dims[1])
		return 0;
	for (i = 1; i < s->rank; i++)
		if (s->dims[i] != 1)
			return 0;
	return 1;
}

static int lw_leaky(struct lower *L, const struct ox_node *n)
{
	const int prelu = !strcmp(n->op_type, "PRelu");
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *s = prelu ? ane__ox_in(L->c, n, 1) : NULL;
	float alpha = ane__ox_attr_f(n, "alpha", 0.01f);
	uint32_t a[4], x4[4], *xv = NULL;
	int err = ane__ox_check_float(L, n, 0), xid, m, moved, chan = 0;
	int unit = 1;	/* every slope in [0, 1]: max(x, s x) */
	size_t i;

	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (prelu) {
		if (!s)
			return ane__ox_why(L, "a PRelu without a slope");
		if (!s->konst && (err = ane__ox_check_float(L, n, 1)))
			return err;
		for (i = 0; s->konst && i < s->konst->count; i++) {
			double v = ane__ox_get_f(s->konst, i);

			unit &= v >= 0.0 && v <= 1.0;
		}
		if (s->konst && (err = ane__ox_check_const_f16(L, n, s->konst, s->name)))
			return err;
		unit &= s->konst != NULL;
		chan = per_channel(x, s) && !ane__ox_channel_view(x, x4) &&
		       (L->c->g->opset < 7 || s->rank == x->rank - 1 || s->rank == 1);
		if (chan) {
			memset(a, 0, sizeof(a));
			a[0] = a[2] = a[3] = 1;
			a[1] = x4[1];
			xv = x4;
		} else if ((err = aligned4(L, n, 1, a, &moved)) ||
			   (err = aligned4(L, n, 0, x4, &moved))) {
			return err;
		} else {
			xv = x4;
		}
	} else {
		if (!(alpha >= -65504.0f && alpha <= 65504.0f))
			return ane__ox_why(L, "LeakyRelu alpha %g is beyond fp16's range", alpha);
		unit = alpha >= 0.0f && alpha <= 1.0f;
	}
	if (L->dry)
		return 0;
	xid = ane__ox_get(L, n->in[0], xv);
	if (unit) {
		m = ane_net_eltwise(ox_net(L), ANE_NET_MUL, xid,
				    prelu ? ane__ox_get(L, n->in[1], a) : ane__ox_lit(L, alpha),
				    ANE_NET_ACT_NONE);
		return ane__ox_done(L, n, ane_net_eltwise(ox_net(L), ANE_NET_MAX, xid, m,
							  ANE_NET_ACT_NONE));
	}
	/*
	 * Any other slope: relu(x) + s min(x, 0), one of the two terms 0,
	 * so the sum is the rounded product or x itself.
	 */
	m = ane_net_eltwise(ox_net(L), ANE_NET_MIN, xid, ane__ox_lit(L, 0.0f), ANE_NET_ACT_NONE);
	m = ane_net_eltwise(ox_net(L), ANE_NET_MUL, m,
			    prelu ? ane__ox_get(L, n->in[1], a) : ane__ox_lit(L, alpha),
			    ANE_NET_ACT_NONE);
	return ane__ox_done(L, n, ane_net_eltwise(ox_net(L), ANE_NET_ADD,
						  ane_net_activation(ox_net(L), xid,
								     ANE_NET_ACT_RELU),
						  m, ANE_NET_ACT_NONE));
}

/* ------------------------------------------------------------ views */

/*
 * Identity, Dropout at inference, Reshape, Flatten, Squeeze, Unsqueeze:
 * the output is the input's data, no copy: the builder's reshape, or a
 * new input of the segment with the output's dims.
 */
static int lw_alias(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	uint32_t b[4];
	int err, id;

	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (x->konst)
		return ane__ox_why(L, "a view of a constant is folded");
	if (!strcmp(n->op_type, "Dropout")) {
		const struct ox_tensor *tm = ane__ox_in(L->c, n, 2);

		if (ane__ox_attr_i(n, "training_mode", 0) ||
		    (tm && (!tm->konst || ane__ox_get_i(tm->konst, 0))))
			return ane__ox_why(L, "Dropout in training mode");
	}
	ane__ox_shape4(y->rank, y->dims, b);
	if (L->dry)
		return 0;
	id = ane__ox_get(L, n->in[0], b);
	if (id < 0)
		return id;
	ane__ox_alias(L, n->out[0], id, b);
	return 0;
}

/* Cast and CastLike between fp32 and fp16: the engine's values are fp16. */
static int lw_cast(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);

	if (y->dtype != OX_FLOAT && y->dtype != OX_FLOAT16)
		return ane__ox_why(L, "a cast to %s", ane__ox_dtype_name(y->dtype));
	return lw_alias(L, n);
}

/*
 * ReduceSum and ReduceMean over one block of consecutive axes (all of
 * them when none are given): x viewed as 1 x A x R x S (A the axes before
 * the block, R the block, S those after) times a row of R ones (1/R for a
 * mean) on the left, a matrix product the engine accumulates in fp32:
 * 1 x A x 1 x S.
 */
int ane__ox_lw_reduce(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const int mean = !strcmp(n->op_type, "ReduceMean");
	int64_t a = 1, r = 1, sz = 1;
	int i, err, lo = OX_MAX_RANK, hi = -1, id;
	uint32_t x4[4], o4[4] = { 1, 1, 1, 1 };
	unsigned char on[OX_MAX_RANK];
	float *ones;

	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	err = ane__ox_reduce_axes(L, n, on);
	if (err < 0)
		return err;
	if (err == 1)		/* nothing reduced: a copy */
		return ane__ox_lw_reduce_any(L, n);
	for (i = 0; i < x->rank; i++) {
		if (on[i]) {
			lo = i < lo ? i : lo;
			hi = i > hi ? i : hi;
		}
	}
	for (i = 0; i < x->rank; i++) {
		if (i >= lo && i <= hi && !on[i])	/* the engine's REDUCE */
			return ane__ox_lw_reduce_any(L, n);
		if (i < lo)
			a *= x->dims[i];
		else if (i <= hi)
			r *= x->dims[i];
		else
			sz *= x->dims[i];
	}
	if (r > 16384 || a > (1 << 24) || sz > (1 << 24))
		return ane__ox_lw_reduce_any(L, n);
	x4[0] = 1;
	x4[1] = (uint32_t)a;
	x4[2] = (uint32_t)r;
	x4[3] = (uint32_t)sz;
	if (L->dry)
		return 0;
	ones = malloc(sizeof(float) * (size_t)r);
	if (!ones)
		return -ENOMEM;
	for (i = 0; i < r; i++)
		ones[i] = mean ? 1.0f / (float)r : 1.0f;
	o4[3] = (uint32_t)r;
	id = ane_net_const(ox_net(L), mean ? "mean" : "ones", o4[0], o4[1], o4[2],
			   o4[3], ones);
	free(ones);
	id = ane_net_matmul(ox_net(L), id, ane__ox_get(L, n->in[0], x4), 0,
			    (enum ane_net_act)ane__ox_fuse_act(L, n));
	return ane__ox_done(L, n, id);
}

/* ------------------------------------------------------------ softmax, norms */

/* ------------------------------------------------------------ table */

static const struct ox_lowering lowerings[] = {
	{ "Add", ane__ox_lw_eltwise }, { "Sub", ane__ox_lw_eltwise }, { "Mul", ane__ox_lw_eltwise },
	{ "Div", ane__ox_lw_div }, { "Max", ane__ox_lw_eltwise }, { "Min", ane__ox_lw_eltwise },
	{ "Sum", ane__ox_lw_eltwise }, { "Mean", lw_variadic }, { "Pow", ane__ox_lw_eltwise },
	{ "Relu", ane__ox_lw_act }, { "Sigmoid", ane__ox_lw_sigmoid }, { "Tanh", ane__ox_lw_act },
	{ "Exp", ane__ox_lw_act }, { "Log", ane__ox_lw_act }, { "Sqrt", ane__ox_lw_act }, { "Reciprocal", ane__ox_lw_act },
	{ "Erf", ane__ox_lw_act }, { "Softplus", ane__ox_lw_act }, { "Softsign", ane__ox_lw_act },
	{ "HardSwish", ane__ox_lw_act }, { "Sin", ane__ox_lw_act }, { "Cos", ane__ox_lw_act },
	{ "Elu", ane__ox_lw_act_param }, { "Selu", ane__ox_lw_act_param },
	{ "Celu", ane__ox_lw_act_param }, { "HardSigmoid", ane__ox_lw_act_param },
	{ "ThresholdedRelu", ane__ox_lw_act_param },
	{ "Clip", ane__ox_lw_act },
	{ "Neg", lw_neg_abs }, { "Abs", lw_neg_abs },
	{ "LeakyRelu", lw_leaky }, { "PRelu", lw_leaky },
	{ "Identity", lw_alias }, { "Dropout", lw_alias },
	{ "Reshape", lw_alias }, { "Flatten", lw_alias },
	{ "Squeeze", lw_alias }, { "Unsqueeze", lw_alias },
	{ "Cast", lw_cast }, { "CastLike", lw_cast },
	{ "ReduceSum", ane__ox_lw_reduce }, { "ReduceMean", ane__ox_lw_reducemean },
	{ "ReduceMax", ane__ox_lw_reduce_any }, { "ReduceMin", ane__ox_lw_reduce_any },
	{ "ReduceProd", ane__ox_lw_reduce_any }, { "ReduceSumSquare", ane__ox_lw_reduce_any },
	{ "ReduceL1", ane__ox_lw_reduce_any }, { "ReduceL2", ane__ox_lw_reduce_any },
	{ "ReduceLogSum", ane__ox_lw_reduce_any },
	{ "ReduceLogSumExp", ane__ox_lw_reduce_any },
	{ "Conv", ane__ox_lw_conv }, { "ConvTranspose", ane__ox_lw_convtranspose },
	{ "Gemm", ane__ox_lw_gemm }, { "MatMul", ane__ox_lw_matmul },
	{ "MaxPool", ane__ox_lw_pool }, { "AveragePool", ane__ox_lw_pool },
	{ "GlobalMaxPool", ane__ox_lw_pool },
	{ "GlobalAveragePool", ane__ox_lw_pool },
	{ "BatchNormalization", ane__ox_lw_bn },
};

ox_lower_fn ane__ox_lower_find(const char *op_type)
{
	static const struct {
		const struct ox_lowering *t;
		const size_t *n;
	} tables[] = {
		{ ane__ox_lw_norm, &ane__ox_lw_norm_n }, { ane__ox_lw_misc, &ane__ox_lw_misc_n },
		{ ane__ox_lw_move, &ane__ox_lw_move_n }, { ane__ox_lw_shape, &ane__ox_lw_shape_n },
	};
	size_t i, k;

	for (i = 0; i < sizeof(lowerings) / sizeof(lowerings[0]); i++)
		if (!strcmp(lowerings[i].op, op_type))
			return lowerings[i].fn;
	for (k = 0; k < sizeof(tables) / sizeof(tables[0]); k++)
		for (i = 0; i < *tables[k].n; i++)
			if (!strcmp(tables[k].t[i].op, op_type))
				return tables[k].t[i].fn;
	return NULL;
}
