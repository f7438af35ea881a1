// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the runtime.  Nodes run in their topological
 * order: a CPU node through its op's kernel, an engine segment -- the
 * consecutive nodes compiled into one program -- through the executor
 * the caller gives (the device, or a CPU executor of program images).
 * Each value is freed after its last reader.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libane.h"
#include "ox.h"
#include "ox_graph.h"

struct run_state {
	struct ox_value **val;
	unsigned char *owned;
	int n_t;
};

static void drop(struct run_state *r, int t)
{
	if (t >= 0 && r->owned[t]) {
		ane__ox_value_free(r->val[t]);
		r->val[t] = NULL;
		r->owned[t] = 0;
	}
}

/* Free the inputs of nodes [first, last] whose last reader is in there. */
static void drop_dead(struct run_state *r, const struct ox_graph *g,
		      int first, int last)
{
	int i, j;

	for (i = first; i <= last; i++) {
		const struct ox_node *n = &g->nodes[i];

		for (j = 0; j < n->n_in; j++) {
			int t = n->in[j];

			if (t >= 0 && !g->t[t].is_output &&
			    g->t[t].last_use <= last)
				drop(r, t);
		}
	}
}

static int new_out(struct ox_ctx *c, struct run_state *r,
		   const struct ox_node *n, int t)
{
	const struct ox_tensor *tt = &c->g->t[t];

	drop(r, t);	/* a segment's output the CPU computes again after a guard */
	r->val[t] = ane__ox_value_new(tt->dtype, tt->rank, tt->dims);
	if (!r->val[t])
		return ane__ox_fail(c, n, ENOMEM, "output '%s': out of memory",
				    tt->name);
	r->owned[t] = 1;
	return 0;
}

static int run_cpu(struct ox_ctx *c, struct run_state *r,
		   const struct ox_node *n)
{
	const struct ox_value *in[OX_MAX_IO] = { 0 };
	struct ox_value *out[OX_MAX_IO] = { 0 };
	const struct ox_op *op = ane__ox_find_op(n->op_type);
	int j, err;

	if (!op)
		return ane__ox_fail(c, n, EOPNOTSUPP, "no CPU kernel");
	for (j = 0; j < n->n_in; j++) {
		if (n->in[j] < 0)
			continue;
		in[j] = r->val[n->in[j]];
		if (!in[j])
			return ane__ox_fail(c, n, EINVAL,
					    "input %d '%s' has no value", j,
					    c->g->t[n->in[j]].name);
	}
	for (j = 0; j < n->n_out; j++) {
		if (n->out[j] < 0)
			continue;
		err = new_out(c, r, n, n->out[j]);
		if (err)
			return err;
		out[j] = r->val[n->out[j]];
	}
	return op->run(c, n, in, out);
}

/* fp32 views of a value: its own data when it is fp32, else a copy. */
static float *as_f32(const struct ox_value *v, int *copied)
{
	float *f;
	size_t i;

	*copied = 0;
	if (v->dtype == OX_FLOAT)
		return v->data;
	f = malloc(sizeof(float) * (v->count ? v->count : 1));
	if (!f)
		return NULL;
	for (i = 0; i < v->count; i++)
		f[i] = (float)ane__ox_get_f(v, i);
	*copied = 1;
	return f;
}

/*
 * The numeric guard (onnx.rst, "Numeric guard"): fp16 keeps 11 bits, so
 * values that differ by less than fp16's spacing at their magnitude lose
 * their differences at the segment's door (10000 and 10001 are both 10000
 * in fp16), and a value beyond 65504 becomes infinite.  For an input
 * that an op of the segment differences (Sub, softmax, normalizations:
 * ox_compile.c marks them), the guard trips when, in some row (the
 * elements along the last axis), the rounding moves an element by more
 * than 1/64 of the row's spread (max - min), or makes a finite value
 * infinite.
 */
static int guard_trips(const float *x, size_t n, size_t row, double *err_out,
		       double *spread)
{
	size_t i, j;

	if (!row)
		return 0;
	for (i = 0; i + row <= n; i += row) {
		double lo = x[i], hi = x[i], worst = 0;

		for (j = i; j < i + row; j++) {
			float h = ane_float_from_fp16(ane_fp16_from_float(x[j]));

			if (x[j] != x[j])
				continue;
			if (isinf(h) && !isinf(x[j])) {
				*err_out = INFINITY;
				*spread = 0;
				return 1;
			}
			if (x[j] < lo)
				lo = x[j];
			if (x[j] > hi)
				hi = x[j];
			if (fabs((double)h - x[j]) > worst)
				worst = fabs((double)h - x[j]);
		}
		if (worst > (hi - lo) / 64.0 && hi > lo) {
			*err_out = worst;
			*spread = hi - lo;
			return 1;
		}
	}
	return 0;
}

static int all_finite(const float *x, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (!isfinite(x[k]))
			return 0;
	return 1;
}

/* The first output holding an infinity from finite inputs, or -1. */
static int nonfinite_out(const struct ox_seg *s,
			 const struct run_state *r, const float *const *in,
			 float *const *out)
{
	int i;

	for (i = 0; i < s->n_in; i++)
		if (!all_finite(in[i], r->val[s->in_t[i]]->count))
			return -1;
	for (i = 0; i < s->n_out; i++) {
		size_t k, n = r->val[s->out_t[i]]->count;

		for (k = 0; k < n; k++)
			if (isinf(out[i][k]))
				return i;
	}
	return -1;
}

static int run_seg(struct ox_ctx *c, struct run_state *r,
		   const struct ox_seg *s, ox_exec_fn exec, void *exec_ctx)
{
	const float *in[OX_SEG_MAX_IO] = { 0 };
	float *out[OX_SEG_MAX_IO] = { 0 };
	int in_copy[OX_SEG_MAX_IO] = { 0 }, out_copy[OX_SEG_MAX_IO] = { 0 };
	const struct ox_node *n0 = &c->g->nodes[s->first];
	char msg[512];
	int i, err = 0;

	for (i = 0; i < s->n_in; i++) {
		const struct ox_value *v = r->val[s->in_t[i]];

		if (!v) {
			err = ane__ox_fail(c, n0, EINVAL,
					   "engine input '%s' has no value",
					   c->g->t[s->in_t[i]].name);
			goto out;
		}
		in[i] = as_f32(v, &in_copy[i]);
		if (!in[i]) {
			err = ane__ox_fail(c, n0, ENOMEM, "out of memory");
			goto out;
		}
	}
	for (i = 0; i < s->n_in; i++) {
		const struct ox_value *v = r->val[s->in_t[i]];
		double e, spread;

		if (!s->guard[i] || !guard_trips(in[i], v->count,
				 v->rank ? (size_t)v->dims[v->rank - 1] : 1, &e, &spread))
			continue;
		err = ane__ox_fail(c, n0, ERANGE,
				   "engine input '%s' does not survive fp16: rounding moves a value by %g where its row spans %g (onnx.rst, \"Numeric guard\")",
				   c->g->t[s->in_t[i]].name, e, spread);
		goto out;
	}
	for (i = 0; i < s->n_out; i++) {
		err = new_out(c, r, n0, s->out_t[i]);
		if (err)
			goto out;
		out[i] = as_f32(r->val[s->out_t[i]], &out_copy[i]);
		if (!out[i]) {
			err = ane__ox_fail(c, n0, ENOMEM, "out of memory");
			goto out;
		}
	}
	msg[0] = '\0';
	err = exec(exec_ctx, s, in, out, msg, sizeof(msg));
	if (err) {
		ane__ox_fail(c, n0, -err, "engine segment of nodes %d..%d: %s",
			     s->first, s->last, msg[0] ? msg : "failed");
		goto out;
	}
	/*
	 * The overflow guard: an infinity in an output where every input is
	 * finite is most likely fp16's range (65504) exceeded on the way;
	 * the CPU recomputes the segment in fp32 (or, engine-only, the run
	 * is refused).  A true infinity (log 0) costs a rerun; a NaN (the
	 * square root of a negative) is the answer, not an overflow.
	 */
	i = nonfinite_out(s, r, in, out);
	if (i >= 0) {
		err = ane__ox_fail(c, n0, ERANGE,
				   "engine output '%s' holds an infinity from finite inputs: fp16's range (65504) was exceeded (onnx.rst, \"Numeric guard\")",
				   c->g->t[s->out_t[i]].name);
		goto out;
	}
	for (i = 0; i < s->n_out; i++) {
		struct ox_value *v = r->val[s->out_t[i]];
		size_t k;

		if (!out_copy[i])
			continue;
		for (k = 0; k < v->count; k++)
			ane__ox_set_f(v, k, out[i][k]);
	}
out:
	for (i = 0; i < s->n_in; i++)
		if (in_copy[i])
			free((void *)in[i]);
	for (i = 0; i < s->n_out; i++)
		if (out_copy[i])
			free(out[i]);
	return err;
}

static int check_input(struct ox_ctx *c, const struct ox_tensor *t,
		       const struct ox_value *v)
{
	if (!v)
		return ane__ox_fail(c, NULL, EINVAL, "input '%s' is not given",
				    t->name);
	if (v->dtype != t->dtype)
		return ane__ox_fail(c, NULL, EINVAL,
				    "input '%s' is %s, the model takes %s",
				    t->name, ane__ox_dtype_name(v->dtype),
				    ane__ox_dtype_name(t->dtype));
	if (v->rank != t->rank ||
	    memcmp(v->dims, t->dims, sizeof(*v->dims) * (size_t)t->rank))
		return ane__ox_fail(c, NULL, EINVAL,
				    "input '%s' has another shape than the model's (rank %d, the model's %d)",
				    t->name, v->rank, t->rank);
	return 0;
}

int ane__ox_run(struct ox_ctx *c, const struct ox_plan *p,
		const struct ox_value *const *in, struct ox_value **out,
		ox_exec_fn exec, void *exec_ctx)
{
	struct ox_graph *g = p->g;
	struct run_state r = { .n_t = g->n_t };
	int i, err = 0;

	r.val = calloc((size_t)g->n_t + 1, sizeof(*r.val));
	r.owned = calloc((size_t)g->n_t + 1, 1);
	if (!r.val || !r.owned) {
		err = ane__ox_fail(c, NULL, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < g->n_t; i++)
		if (g->t[i].konst)
			r.val[i] = g->t[i].konst;
	for (i = 0; i < g->n_inputs; i++) {
		const struct ox_tensor *t = &g->t[g->inputs[i]];

		err = check_input(c, t, in[i]);
		if (err)
			goto out;
		r.val[g->inputs[i]] = (struct ox_value *)in[i];
	}
	for (i = 0; i < g->n_nodes; i++) {
		const struct ox_node *n = &g->nodes[i];

		if (n->placement == OX_PLACE_FOLDED)
			continue;
		if (n->placement == OX_PLACE_ENGINE) {
			const struct ox_seg *s = &p->segs[n->segment];

			if (!exec) {
				err = ane__ox_fail(c, n, EINVAL,
						   "no engine to run segment %d on",
						   n->segment);
				goto out;
			}
			err = run_seg(c, &r, s, exec, exec_ctx);
			/* Tripped guard: the segment's nodes on the CPU, if allowed. */
			if (err == -ERANGE && !(p->flags & OX_PLAN_ENGINE_ONLY)) {
				int k;

				for (k = s->first, err = 0; k <= s->last && !err; k++)
					err = run_cpu(c, &r, &g->nodes[k]);
			}
			if (err)
				goto out;
			drop_dead(&r, g, s->first, s->last);
			i = s->last;
			continue;
		}
		err = run_cpu(c, &r, n);
		if (err)
			goto out;
		drop_dead(&r, g, i, i);
	}
	for (i = 0; i < g->n_outputs; i++) {
		const struct ox_value *v = r.val[g->outputs[i]];

		out[i] = v ? ane__ox_value_clone(v) : NULL;
		if (!out[i]) {
			err = ane__ox_fail(c, NULL, v ? ENOMEM : EINVAL,
					   "output '%s': %s",
					   g->t[g->outputs[i]].name,
					   v ? "out of memory" : "no value computed");
			while (i--) {
				ane__ox_value_free(out[i]);
				out[i] = NULL;
			}
			goto out;
		}
	}
out:
	for (i = 0; r.owned && i < g->n_t; i++)
		drop(&r, i);
	free(r.val);
	free(r.owned);
	return err;
}
