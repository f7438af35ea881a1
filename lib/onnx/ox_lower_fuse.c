// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the patterns exporters write for ops an older
 * opset lacks, lowered as the one engine operation they compute.
 *
 *   LayerNormalization (before opset 17):
 *     m = ReduceMean(x, -1); d = x - m; v = ReduceMean(d ^ 2, -1);
 *     y = d / Sqrt(v + eps) [* gamma [+ beta]]
 *   GELU, exact:
 *     y = x * (Erf(x / sqrt 2) + 1) * 0.5
 *   SiLU (swish):
 *     y = x * Sigmoid(x)
 *
 * The nodes must follow one another (Constant nodes between them are
 * folded), each intermediate read only inside the pattern and none a
 * graph output.  Anything else is lowered node by node.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"

struct pat {
	struct lower *L;
	int at;		/* the last node matched */
};

/* The next node after the last matched that is not folded, if of @op. */
static const struct ox_node *next(struct pat *p, const char *op)
{
	const struct ox_graph *g = p->L->c->g;
	int k = p->at + 1;

	while (k < g->n_nodes && g->nodes[k].placement == OX_PLACE_FOLDED)
		k++;
	if (k >= g->n_nodes || strcmp(g->nodes[k].op_type, op))
		return NULL;
	p->at = k;
	return &g->nodes[k];
}

/* Output 0 of @n: read @uses times, by the pattern only; no graph output. */
static int inner(const struct pat *p, const struct ox_node *n, int uses)
{
	const struct ox_tensor *t = ane__ox_out(p->L->c, n, 0);

	return t && !t->is_output && t->n_uses == uses && n->n_out == 1;
}

/* The other input of a binary @n that has tensor @t as one; -1 if none. */
static int other(const struct ox_node *n, int t)
{
	if (n->n_in != 2)
		return -1;
	if (n->in[0] == t)
		return n->in[1];
	return n->in[1] == t ? n->in[0] : -1;
}

/* A constant tensor of one value, that value; NAN otherwise. */
static double scalar(const struct lower *L, int t)
{
	const struct ox_value *v = t >= 0 ? L->c->g->t[t].konst : NULL;

	return v && v->count == 1 ? ane__ox_get_f(v, 0) : NAN;
}

/* ReduceMean over the last axis only, keepdims. */
static int last_axis_mean(const struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_attr *a = ane__ox_attr(n, "axes");

	return x && a && a->n == 1 && ane__ox_attr_i(n, "keepdims", 1) &&
	       (a->ints[0] == -1 || a->ints[0] == x->rank - 1);
}

/* The end of a LayerNormalization pattern from ReduceMean @n, else -1. */
static int match_layernorm(struct lower *L, const struct ox_node *n, int *gamma,
			   int *beta, float *eps)
{
	struct pat p = { L, (int)(n - L->c->g->nodes) };
	const struct ox_node *sub, *pw, *m2, *add, *sq, *dv, *mul, *ad2;
	int x = n->in[0], eps_t, g, save;

	*gamma = *beta = -1;
	if (!last_axis_mean(L, n) || !inner(&p, n, 1))
		return -1;
	sub = next(&p, "Sub");
	if (!sub || sub->in[0] != x || sub->in[1] != n->out[0] || !inner(&p, sub, 2))
		return -1;
	pw = next(&p, "Pow");
	if (!pw || pw->in[0] != sub->out[0] || scalar(L, pw->in[1]) != 2.0 ||
	    !inner(&p, pw, 1))
		return -1;
	m2 = next(&p, "ReduceMean");
	if (!m2 || m2->in[0] != pw->out[0] || !last_axis_mean(L, m2) || !inner(&p, m2, 1))
		return -1;
	add = next(&p, "Add");
	eps_t = add ? other(add, m2->out[0]) : -1;
	*eps = (float)scalar(L, eps_t);
	if (eps_t < 0 || !(*eps > 0.0f && *eps <= 65504.0f) || !inner(&p, add, 1))
		return -1;
	sq = next(&p, "Sqrt");
	if (!sq || sq->in[0] != add->out[0] || !inner(&p, sq, 1))
		return -1;
	dv = next(&p, "Div");
	if (!dv || dv->in[0] != sub->out[0] || dv->in[1] != sq->out[0])
		return -1;
	/* Then a constant scale and a constant shift, each optional. */
	if (!inner(&p, dv, 1))
		return p.at;
	save = p.at;
	mul = next(&p, "Mul");
	g = mul ? other(mul, dv->out[0]) : -1;
	if (g < 0 || !L->c->g->t[g].konst)
		return save;
	*gamma = g;
	if (!inner(&p, mul, 1))
		return p.at;
	save = p.at;
	ad2 = next(&p, "Add");
	g = ad2 ? other(ad2, mul->out[0]) : -1;
	if (g < 0 || !L->c->g->t[g].konst)
		return save;
	*beta = g;
	return p.at;
}

/* The last node of a pattern is its result: the tensor the graph reads. */
static int finish(struct lower *L, const struct ox_node *n, int last, int id)
{
	L->absorbed = last - L->node;
	return ane__ox_done(L, n, id);
}

int ane__ox_lw_reducemean(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	float eps = 1e-5f;
	int gamma, beta, last = match_layernorm(L, n, &gamma, &beta, &eps), err, id;
	uint32_t x4[4], w4[4] = { 1, 1, 1, 1 };

	if (last < 0 || x->rank < 1)
		return ane__ox_lw_reduce(L, n);
	err = ane__ox_check_float(L, n, 0);
	if (err)
		return err;
	ane__ox_shape4(x->rank, x->dims, x4);
	w4[3] = x4[3];
	if (x4[3] > 65536)
		return ane__ox_lw_reduce(L, n);
	if ((gamma >= 0 && L->c->g->t[gamma].konst->count != x4[3]) ||
	    (beta >= 0 && L->c->g->t[beta].konst->count != x4[3]))
		return ane__ox_lw_reduce(L, n);
	if ((gamma >= 0 && (err = ane__ox_check_const_f16(L, n, L->c->g->t[gamma].konst,
							 "LayerNorm's scale"))) ||
	    (beta >= 0 && (err = ane__ox_check_const_f16(L, n, L->c->g->t[beta].konst,
							"LayerNorm's shift"))))
		return err;
	if (L->dry)
		return 0;
	id = ane_net_norm_eps(ox_net(L), ane__ox_get(L, n->in[0], NULL), ANE_NET_NORM_LAYER,
			      eps);
	if (gamma >= 0)
		id = ane_net_eltwise(ox_net(L), ANE_NET_MUL, id, ane__ox_get(L, gamma, w4),
				     ANE_NET_ACT_NONE);
	if (beta >= 0)
		id = ane_net_eltwise(ox_net(L), ANE_NET_ADD, id, ane__ox_get(L, beta, w4),
				     ANE_NET_ACT_NONE);
	return finish(L, n, last, id);
}

/* The end of an exact GELU pattern from Div @n, else -1. */
static int match_gelu(struct lower *L, const struct ox_node *n)
{
	struct pat p = { L, (int)(n - L->c->g->nodes) };
	const struct ox_node *erf, *add, *m1, *m2;
	int x = n->in[0];

	if (n->n_in != 2 || fabs(scalar(L, n->in[1]) - 1.4142135623730951) > 1e-6 ||
	    !inner(&p, n, 1))
		return -1;
	erf = next(&p, "Erf");
	if (!erf || erf->in[0] != n->out[0] || !inner(&p, erf, 1))
		return -1;
	add = next(&p, "Add");
	if (!add || scalar(L, other(add, erf->out[0])) != 1.0 || !inner(&p, add, 1))
		return -1;
	m1 = next(&p, "Mul");
	if (!m1 || other(m1, add->out[0]) != x || !inner(&p, m1, 1))
		return -1;
	m2 = next(&p, "Mul");
	if (!m2 || scalar(L, other(m2, m1->out[0])) != 0.5)
		return -1;
	return p.at;
}

/*
 * A pattern from @n to node @last that computes activation @act of n's
 * input 0: that one engine activation, the pattern's nodes absorbed.
 */
static int pattern_act(struct lower *L, const struct ox_node *n, int last,
		       enum ane_net_act act)
{
	int err = ane__ox_check_float(L, n, 0);

	if (!err)
		err = ane__ox_out_ok(L, &L->c->g->nodes[last]);
	if (err || L->dry)
		return err;
	return finish(L, n, last, ane_net_activation(ox_net(L), ane__ox_get(L, n->in[0], NULL),
						     act));
}

int ane__ox_lw_div(struct lower *L, const struct ox_node *n)
{
	int last = match_gelu(L, n);

	return last < 0 ? ane__ox_lw_eltwise(L, n) : pattern_act(L, n, last, ANE_NET_ACT_GELU);
}

/* The end of a SiLU, Sigmoid @n and the Mul of its input by it, else -1. */
static int match_silu(struct lower *L, const struct ox_node *n)
{
	struct pat p = { L, (int)(n - L->c->g->nodes) };
	const struct ox_node *mul;

	if (n->n_in != 1 || !inner(&p, n, 1))
		return -1;
	mul = next(&p, "Mul");
	if (!mul || other(mul, n->out[0]) != n->in[0])
		return -1;
	return p.at;
}

int ane__ox_lw_sigmoid(struct lower *L, const struct ox_node *n)
{
	int last = match_silu(L, n);

	return last < 0 ? ane__ox_lw_act(L, n) : pattern_act(L, n, last, ANE_NET_ACT_SILU);
}

/*
 * A SiLU after @n: Sigmoid of n's output, then the Mul of the two, next
 * in order, n's output read by those two only: 1 (the two nodes are
 * absorbed into @n's task), else 0.
 */
int ane__ox_fuse_silu(struct lower *L, const struct ox_node *n)
{
	struct pat p = { L, (int)(n - L->c->g->nodes) };
	const struct ox_node *sig;
	int last;

	if (!inner(&p, n, 2))
		return 0;
	sig = next(&p, "Sigmoid");
	if (!sig || sig->in[0] != n->out[0])
		return 0;
	last = match_silu(L, sig);
	if (last < 0 || ane__ox_out_ok(L, &L->c->g->nodes[last]))
		return 0;
	L->absorbed += last - (int)(n - L->c->g->nodes);
	return 1;
}
