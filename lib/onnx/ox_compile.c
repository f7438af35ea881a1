// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the partitioner and the compiler.  Nodes are
 * taken in topological order; each one the engine can run (its op has a
 * lowering, its dtypes are float, its shapes inside the engine's limits)
 * joins the open segment, and each one it cannot closes the segment and
 * runs on the CPU, as Core ML and ONNX Runtime split a graph.  A segment
 * is compiled by libane's builder into one program image.  With
 * OX_PLAN_ENGINE_ONLY any CPU node is a refusal that lists them all.
 * Documentation/accel/ane/onnx.rst, "Partitioning".
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ox_lower.h"

int ane__ox_why(struct lower *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(L->why, sizeof(L->why), fmt, ap);
	va_end(ap);
	return -EOPNOTSUPP;
}

int ane__ox_shape4(int rank, const int64_t *dims, uint32_t d[4])
{
	int64_t v[4] = { 1, 1, 1, 1 };
	int i, lead = rank > 4 ? rank - 3 : 0;

	if (rank < 0 || rank > OX_MAX_RANK)
		return -1;
	for (i = 0; i < rank; i++) {
		int k = i < lead ? 0 : i - rank + 4;

		if (dims[i] < 1 || v[k] > (1ll << 24) / dims[i])
			return -1;
		v[k] *= dims[i];
	}
	for (i = 0; i < 4; i++)
		d[i] = (uint32_t)v[i];
	return 0;
}

int ane__ox_check_float(struct lower *L, const struct ox_node *n, int i)
{
	const struct ox_tensor *t = ane__ox_in(L->c, n, i);
	uint32_t d[4];

	if (!t)
		return ane__ox_why(L, "input %d is missing", i);
	if (t->dtype != OX_FLOAT && t->dtype != OX_FLOAT16)
		return ane__ox_why(L, "input '%s' is %s; the engine computes in fp16 on float tensors",
				   t->name, ane__ox_dtype_name(t->dtype));
	if (ane__ox_shape4(t->rank, t->dims, d))
		return ane__ox_why(L, "input '%s' has a dimension the engine cannot hold (0, or above 2^24 elements in one of N, C, H, W)",
				   t->name);
	return 0;
}

int ane__ox_check_const_f16(struct lower *L, const struct ox_node *n,
			    const struct ox_value *v, const char *what)
{
	size_t i;

	(void)n;
	for (i = 0; i < v->count; i++) {
		double x = ane__ox_get_f(v, i);

		if (isfinite(x) && fabs(x) > 65504.0)
			return ane__ox_why(L, "%s holds %g, beyond fp16's range (65504): it runs on the CPU",
					   what, x);
	}
	return 0;
}

int ane__ox_get(struct lower *L, int t, const uint32_t *d4)
{
	struct ox_tensor *tt = &L->c->g->t[t];
	struct ane_net *net = ox_net(L);
	uint32_t d[4];
	int id;

	if (d4)
		memcpy(d, d4, sizeof(d));
	else if (ane__ox_shape4(tt->rank, tt->dims, d))
		return -EINVAL;
	if (L->nt[t] >= 0 && !memcmp(L->d4[t], d, sizeof(d)))
		return L->nt[t];
	if (tt->konst) {
		const struct ox_value *v = tt->konst;
		float *f = malloc(sizeof(float) * (v->count ? v->count : 1));
		size_t i;

		if (!f)
			return -ENOMEM;
		for (i = 0; i < v->count; i++)
			f[i] = (float)ane__ox_get_f(v, i);
		id = ane_net_const(net, tt->name, d[0], d[1], d[2], d[3], f);
		free(f);
		if (id >= 0 && L->nt[t] < 0) {
			L->nt[t] = id;
			memcpy(L->d4[t], d, sizeof(d));
		}
		return id;
	}
	/* In this segment with other dims: a reshape, no task, no copy. */
	if (L->nt[t] >= 0)
		return ane_net_reshape(net, L->nt[t], d[0], d[1], d[2], d[3]);
	if (L->s->n_in == OX_SEG_MAX_IO)
		return -EXDEV;
	id = ane_net_input(net, tt->name, d[0], d[1], d[2], d[3]);
	if (id >= 0) {
		L->s->in_t[L->s->n_in++] = t;
		L->nt[t] = id;
		memcpy(L->d4[t], d, sizeof(d));
	}
	return id;
}

int ane__ox_get_index(struct lower *L, int t, uint32_t k)
{
	struct ox_tensor *tt = &L->c->g->t[t];
	int id;

	if (L->nt[t] >= 0)	/* an index input only GATHER reads, once made */
		return ane_net_reshape(ox_net(L), L->nt[t], 1, 1, 1, k);
	if (L->s->n_in == OX_SEG_MAX_IO)
		return -EXDEV;
	id = ane_net_input_index(ox_net(L), tt->name, 1, 1, 1, k);
	if (id >= 0) {
		L->s->in_t[L->s->n_in++] = t;
		L->nt[t] = id;
		L->d4[t][0] = L->d4[t][1] = L->d4[t][2] = 1;
		L->d4[t][3] = k;
	}
	return id;
}

void ane__ox_set(struct lower *L, int t, int id)
{
	struct ane_net_shape sh;

	L->nt[t] = id;
	L->alias[t] = 0;
	if (!ane_net_shape(ox_net(L), id, &sh)) {
		L->d4[t][0] = sh.n;
		L->d4[t][1] = sh.c;
		L->d4[t][2] = sh.h;
		L->d4[t][3] = sh.w;
	}
}

void ane__ox_alias(struct lower *L, int t, int id, const uint32_t d4[4])
{
	L->nt[t] = id;
	memcpy(L->d4[t], d4, sizeof(L->d4[t]));
	L->alias[t] = 1;
}

int ane__ox_sole_next(const struct lower *L, const struct ox_node *n)
{
	const struct ox_graph *g = L->c->g;
	int i = (int)(n - g->nodes), t = n->out[0], j;
	const struct ox_node *m;

	if (n->n_out < 1 || t < 0 || g->t[t].is_output ||
	    g->t[t].n_uses != 1 || i + 1 >= g->n_nodes)
		return -1;
	for (j = 1; j < n->n_out; j++)
		if (n->out[j] >= 0 && g->t[n->out[j]].n_uses)
			return -1;
	m = &g->nodes[i + 1];
	if (m->placement == OX_PLACE_FOLDED || m->n_in < 1 || m->in[0] != t)
		return -1;
	for (j = 1; j < m->n_in; j++)
		if (m->in[j] == t)
			return -1;
	return i + 1;
}

/* ------------------------------------------------------------ flops */

static double elems(const struct ox_tensor *t)
{
	int64_t k = t ? ane__ox_shape_count(t->rank, t->dims) : 0;

	return k > 0 ? (double)k : 0.0;
}

/* Arithmetic of a node, estimated: 2 per multiply-add, 1 per element. */
static double node_flops(struct ox_ctx *c, const struct ox_node *n)
{
	const struct ox_tensor *y = ane__ox_out(c, n, 0);
	const struct ox_tensor *a = ane__ox_in(c, n, 0);
	const struct ox_tensor *w = ane__ox_in(c, n, 1);

	if (!y)
		return 0;
	if ((!strcmp(n->op_type, "Conv") || !strcmp(n->op_type, "ConvTranspose")) &&
	    w && w->rank >= 3) {
		double k = 1;
		int i;

		for (i = 1; i < w->rank; i++)
			k *= (double)w->dims[i];
		if (!strcmp(n->op_type, "ConvTranspose"))
			return 2.0 * elems(a) * k;
		return 2.0 * elems(y) * k;
	}
	if ((!strcmp(n->op_type, "MatMul") || !strcmp(n->op_type, "Gemm")) &&
	    a && a->rank >= 1) {
		double k = (double)a->dims[a->rank - 1];

		if (!strcmp(n->op_type, "Gemm") && ane__ox_attr_i(n, "transA", 0) &&
		    a->rank == 2)
			k = (double)a->dims[0];
		return 2.0 * elems(y) * k;
	}
	return elems(y) > elems(a) ? elems(y) : elems(a);
}

/* ------------------------------------------------------------ segments */

static int open_seg(struct lower *L, int first)
{
	struct ox_plan *p = L->p;
	struct ox_seg *s;
	void *q;
	int i;

	q = realloc(p->segs, sizeof(*p->segs) * (size_t)(p->n_segs + 1));
	if (!q)
		return -ENOMEM;
	p->segs = q;
	s = &p->segs[p->n_segs];
	memset(s, 0, sizeof(*s));
	s->first = s->last = first;
	if (ane_net_create(&s->net))
		return -ENOMEM;
	p->n_segs++;
	L->s = s;
	for (i = 0; i < L->c->g->n_t; i++) {
		L->nt[i] = -1;
		L->alias[i] = 0;
	}
	/* Aliases are in no segment: they begin again as themselves. */
	return 0;
}

/*
 * Tensors of segment @s that the rest of the graph reads, were it to end
 * at node @last.
 */
static int escaping(const struct lower *L, int last, int *list)
{
	const struct ox_graph *g = L->c->g;
	int i, j, k = 0;

	for (i = L->s->first; i <= last; i++) {
		const struct ox_node *n = &g->nodes[i];

		if (n->placement != OX_PLACE_ENGINE || n->segment != L->p->n_segs - 1)
			continue;
		for (j = 0; j < n->n_out; j++) {
			int t = n->out[j];

			if (t < 0 || (!g->t[t].is_output && g->t[t].last_use <= last))
				continue;
			if (list && k < OX_SEG_MAX_IO)
				list[k] = t;
			k++;
		}
	}
	return k;
}

/*
 * Ops whose result is a difference of their inputs' values, which fp16
 * loses first when the values are large and close (onnx.rst, "Numeric
 * guard").
 */
static int differences(const char *op)
{
	static const char *const ops[] = {
		"Sub", "Add", "Sum", "Mean", "Softmax", "LogSoftmax",
		"LayerNormalization", "InstanceNormalization",
		"MeanVarianceNormalization", "BatchNormalization",
		"ReduceLogSumExp",
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}

static void mark_guards(struct lower *L, struct ox_seg *s)
{
	const struct ox_graph *g = L->c->g;
	int i, j, k;

	for (i = 0; i < s->n_in; i++)
		for (k = s->first; k <= s->last && !s->guard[i]; k++) {
			const struct ox_node *n = &g->nodes[k];

			if (!differences(n->op_type))
				continue;
			for (j = 0; j < n->n_in; j++)
				if (n->in[j] == s->in_t[i])
					s->guard[i] = 1;
		}
}

static int close_seg(struct lower *L)
{
	struct ox_seg *s = L->s;
	struct ox_ctx *c = L->c;
	int out[OX_SEG_MAX_IO], n, i, err;

	if (!s)
		return 0;
	n = escaping(L, s->last, out);
	mark_guards(L, s);
	L->s = NULL;
	if (n > OX_SEG_MAX_IO)
		return ane__ox_fail(c, &c->g->nodes[s->last], E2BIG,
				    "engine segment from node %d: %d outputs, more than %d",
				    s->first, n, OX_SEG_MAX_IO);
	for (i = 0; i < n; i++) {
		int id = L->nt[out[i]], j;

		/*
		 * An alias (Identity, a view), or a result that two outputs
		 * name, is written by a copy of its own.
		 */
		for (j = 0; j < i; j++)
			if (L->nt[out[j]] == id)
				break;
		if (L->alias[out[i]] || j < i)
			id = ane_net_activation(s->net, id, ANE_NET_ACT_NONE);
		err = id < 0 ? id : ane_net_output(s->net, id);
		if (err < 0)
			return ane__ox_fail(c, &c->g->nodes[s->last], -err,
					    "engine segment from node %d: output '%s': %s",
					    s->first, c->g->t[out[i]].name,
					    ane_net_errmsg(s->net));
		s->out_t[s->n_out++] = out[i];
	}
	err = ane_net_build(s->net, &s->image, &s->image_size);
	if (err)
		return ane__ox_fail(c, &c->g->nodes[s->last], -err,
				    "engine segment of nodes %d..%d: %s", s->first,
				    s->last, ane_net_errmsg(s->net));
	return 0;
}

/* New segment inputs node @n would need. */
static int new_inputs(const struct lower *L, const struct ox_node *n)
{
	const struct ox_graph *g = L->c->g;
	int j, k = 0;

	for (j = 0; j < n->n_in; j++) {
		int t = n->in[j];

		if (t >= 0 && !g->t[t].konst && (!L->s || L->nt[t] < 0))
			k++;
	}
	return k;
}

static int place_engine(struct lower *L, int i, ox_lower_fn fn)
{
	struct ox_graph *g = L->c->g;
	struct ox_node *n = &g->nodes[i];
	int err, j;

	if (L->s && (L->s->n_in + new_inputs(L, n) > OX_SEG_MAX_IO ||
		     escaping(L, i - 1, NULL) + n->n_out > OX_SEG_MAX_IO ||
		     (L->p->max_flops > 0 &&
		      L->s->flops + n->flops > L->p->max_flops))) {
		err = close_seg(L);
		if (err)
			return err;
	}
	if (!L->s) {
		err = open_seg(L, i);
		if (err)
			return ane__ox_fail(L->c, n, -err, "out of memory");
	}
	n->placement = OX_PLACE_ENGINE;
	n->segment = L->p->n_segs - 1;
	L->dry = 0;
	L->absorbed = 0;
	err = fn(L, n);
	if (err < 0)
		return ane__ox_fail(L->c, n, -err, "lowering to the engine failed: %s",
				    L->why[0] ? L->why : ane_net_errmsg(ox_net(L)));
	for (j = 1; j <= L->absorbed; j++) {
		if (g->nodes[i + j].placement == OX_PLACE_FOLDED)
			continue;	/* a Constant between fused nodes */
		g->nodes[i + j].placement = OX_PLACE_ENGINE;
		g->nodes[i + j].segment = n->segment;
	}
	L->s->last = i + L->absorbed;
	L->s->n_nodes += 1 + L->absorbed;
	for (j = 0; j <= L->absorbed; j++)
		L->s->flops += g->nodes[i + j].flops;
	return L->absorbed;
}

void ane__ox_plan_free(struct ox_plan *p)
{
	int i;

	for (i = 0; i < p->n_segs; i++)
		ane_net_destroy(p->segs[i].net);
	free(p->segs);
	free(p->why);
	p->segs = NULL;
	p->why = NULL;
	p->n_segs = 0;
}

/* The refusal of an engine-only plan: every CPU node and why. */
static int refuse_cpu_nodes(struct ox_ctx *c, const struct ox_plan *p)
{
	const struct ox_graph *g = c->g;
	size_t len = 0;
	int i, k = 0;

	for (i = 0; i < g->n_nodes; i++)
		k += g->nodes[i].placement == OX_PLACE_CPU;
	if (!k)
		return 0;
	len = (size_t)snprintf(c->err, c->err_len,
			       "engine-only: %d of %d nodes cannot run on the engine:",
			       k, g->n_nodes);
	for (i = 0; i < g->n_nodes && len < c->err_len; i++) {
		const struct ox_node *n = &g->nodes[i];

		if (n->placement != OX_PLACE_CPU)
			continue;
		len += (size_t)snprintf(c->err + len, c->err_len - len,
					"\n  node %d '%s' (%s): %s", i, n->name,
					n->op_type, p->why[i]);
	}
	return -EOPNOTSUPP;
}

/*
 * Ops whose result jumps when their input moves a little: rounding,
 * casts to integers, comparisons, quantization.  An fp16 result of the
 * engine feeding one (directly or through other ops) may come out one
 * step off, so such a node's whole upstream runs on the CPU in fp32
 * (onnx.rst, "Exact results").
 */
static int discontinuous(const struct ox_graph *g, const struct ox_node *n)
{
	static const char *const ops[] = {
		"Round", "Floor", "Ceil", "Sign", "Equal", "Less", "Greater",
		"LessOrEqual", "GreaterOrEqual", "QuantizeLinear",
		"DynamicQuantizeLinear", "Mod", "IsInf", "IsNaN",
	};
	const struct ox_tensor *y;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(n->op_type, ops[i]))
			return 1;
	if (strcmp(n->op_type, "Cast") && strcmp(n->op_type, "CastLike"))
		return 0;
	y = n->n_out > 0 && n->out[0] >= 0 ? &g->t[n->out[0]] : NULL;
	return y && y->dtype != OX_FLOAT && y->dtype != OX_FLOAT16 &&
	       y->dtype != OX_DOUBLE && y->dtype != OX_BFLOAT16;
}

/* exact[node]: the index of the discontinuous node it feeds, else -1. */
static void mark_exact(const struct ox_graph *g, int *exact)
{
	int i, j, k, *by_t = malloc(sizeof(int) * ((size_t)g->n_t + 1));

	if (!by_t)
		return;
	for (i = 0; i < g->n_t; i++)
		by_t[i] = -1;
	for (i = g->n_nodes - 1; i >= 0; i--) {
		const struct ox_node *n = &g->nodes[i];
		int why = discontinuous(g, n) ? i : -1;

		for (j = 0; j < n->n_out && why < 0; j++)
			if (n->out[j] >= 0 && by_t[n->out[j]] >= 0)
				why = by_t[n->out[j]];
		exact[i] = why >= 0 && why != i ? why : -1;
		if (why < 0)
			continue;
		for (k = 0; k < n->n_in; k++)
			if (n->in[k] >= 0 && by_t[n->in[k]] < 0)
				by_t[n->in[k]] = why;
	}
	free(by_t);
}

int ane__ox_plan(struct ox_ctx *c, struct ox_plan *p)
{
	struct ox_graph *g = c->g;
	struct lower L = { .c = c, .p = p };
	int i, err = 0;

	p->g = g;
	p->why = calloc((size_t)g->n_nodes + 1, sizeof(*p->why));
	L.nt = calloc((size_t)g->n_t + 1, sizeof(*L.nt));
	L.alias = calloc((size_t)g->n_t + 1, 1);
	L.d4 = calloc((size_t)g->n_t + 1, sizeof(*L.d4));
	if (!p->why || !L.nt || !L.alias || !L.d4) {
		err = ane__ox_fail(c, NULL, ENOMEM, "out of memory");
		goto out;
	}
	ane__ox_liveness(g);
	L.exact = calloc((size_t)g->n_nodes + 1, sizeof(int));
	if (!L.exact) {
		err = ane__ox_fail(c, NULL, ENOMEM, "out of memory");
		goto out;
	}
	mark_exact(g, L.exact);
	for (i = 0; i < g->n_nodes; i++)
		g->nodes[i].flops = node_flops(c, &g->nodes[i]);
	for (i = 0; i < g->n_nodes; i++) {
		struct ox_node *n = &g->nodes[i];
		ox_lower_fn fn;

		if (n->placement == OX_PLACE_FOLDED)
			continue;
		n->placement = OX_PLACE_CPU;
		fn = ane__ox_lower_find(n->op_type);
		L.why[0] = '\0';
		L.node = i;
		if (p->flags & OX_PLAN_CPU_ONLY) {
			snprintf(p->why[i], sizeof(p->why[i]), "CPU-only run");
			err = -EOPNOTSUPP;
		} else if (!fn) {
			snprintf(p->why[i], sizeof(p->why[i]),
				 "the engine has no %s", n->op_type);
			err = -EOPNOTSUPP;
		} else if (L.exact[i] >= 0) {
			snprintf(p->why[i], sizeof(p->why[i]),
				 "its result feeds node %d (%s), whose result jumps with a small change: computed in fp32",
				 L.exact[i], g->nodes[L.exact[i]].op_type);
			err = -EOPNOTSUPP;
		} else {
			L.dry = 1;
			err = fn(&L, n);
			if (err)
				snprintf(p->why[i], sizeof(p->why[i]), "%s",
					 L.why[0] ? L.why : "not supported");
		}
		if (err == -EOPNOTSUPP) {
			err = close_seg(&L);
			if (err)
				goto out;
			continue;
		}
		if (err)
			goto out;
		err = place_engine(&L, i, fn);
		if (err < 0)
			goto out;
		i += err;
		err = 0;
	}
	err = close_seg(&L);
	if (err)
		goto out;
	if (p->flags & OX_PLAN_ENGINE_ONLY)
		err = refuse_cpu_nodes(c, p);
out:
	free(L.nt);
	free(L.alias);
	free(L.d4);
	free(L.exact);
	if (err)
		ane__ox_plan_free(p);
	return err;
}
