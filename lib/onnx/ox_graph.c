// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: shape inference through the graph and
 * constant folding.  Each node's op checks its inputs and attributes and
 * gives its outputs' dtypes and static shapes (ox_ops*.c); a node whose
 * inputs are all known at load time is computed then, on the CPU, and its
 * outputs become constants (a Shape of a static tensor, a Constant, the
 * arithmetic of a reshape target).  Documentation/accel/ane/onnx.rst.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ox.h"
#include "ox_graph.h"

/* Ops never folded: their value is not a function of their inputs. */
static int nondeterministic(const char *op)
{
	static const char *const ops[] = {
		"RandomNormal", "RandomNormalLike", "RandomUniform",
		"RandomUniformLike", "Multinomial", "Bernoulli",
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}

static int64_t out_bytes(const struct ox_graph *g, const struct ox_node *n)
{
	int64_t sum = 0, k;
	int j;

	for (j = 0; j < n->n_out; j++) {
		const struct ox_tensor *t;

		if (n->out[j] < 0)
			continue;
		t = &g->t[n->out[j]];
		k = ane__ox_shape_count(t->rank, t->dims);
		if (k < 0)
			return -1;
		sum += k * (int64_t)ane__ox_dtype_size(t->dtype);
	}
	return sum;
}

/* Every present output's value is known already. */
static int outputs_known(const struct ox_graph *g, const struct ox_node *n)
{
	int j, k = 0;

	for (j = 0; j < n->n_out; j++) {
		if (n->out[j] < 0)
			continue;
		if (!g->t[n->out[j]].konst)
			return 0;
		k++;
	}
	return k > 0;
}

/* Run @n on the CPU now: its inputs are all constants. */
static int fold(struct ox_ctx *c, const struct ox_op *op, struct ox_node *n)
{
	const struct ox_value *in[OX_MAX_IO] = { 0 };
	struct ox_value *out[OX_MAX_IO] = { 0 };
	struct ox_graph *g = c->g;
	int j, err = 0;

	for (j = 0; j < n->n_in; j++)
		in[j] = n->in[j] >= 0 ? g->t[n->in[j]].konst : NULL;
	for (j = 0; j < n->n_out; j++) {
		struct ox_tensor *t;

		if (n->out[j] < 0)
			continue;
		t = &g->t[n->out[j]];
		out[j] = ane__ox_value_new(t->dtype, t->rank, t->dims);
		if (!out[j]) {
			err = ane__ox_fail(c, n, ENOMEM,
					   "output %d '%s': out of memory", j,
					   t->name);
			goto fail;
		}
	}
	err = op->run(c, n, in, out);
	if (err)
		goto fail;
	for (j = 0; j < n->n_out; j++)
		if (out[j])
			g->t[n->out[j]].konst = out[j];
	n->placement = OX_PLACE_FOLDED;
	return 0;
fail:
	for (j = 0; j < n->n_out; j++)
		ane__ox_value_free(out[j]);
	return err;
}

int ane__ox_infer(struct ox_ctx *c)
{
	struct ox_graph *g = c->g;
	int i, j, err;

	for (i = 0; i < g->n_nodes; i++) {
		struct ox_node *n = &g->nodes[i];
		const struct ox_op *op;
		int all_const = 1;

		n->placement = OX_PLACE_CPU;
		n->segment = -1;
		if (n->domain[0] && strcmp(n->domain, "ai.onnx"))
			return ane__ox_fail(c, n, EOPNOTSUPP,
					    "domain '%s' is not supported (only ONNX's default domain is)",
					    n->domain);
		op = ane__ox_find_op(n->op_type);
		if (!op)
			return ane__ox_fail(c, n, EOPNOTSUPP,
					    "op '%s' is not supported (Documentation/accel/ane/onnx.rst lists the ops)",
					    n->op_type);
		for (j = 0; j < n->n_in; j++) {
			const struct ox_tensor *t;

			if (n->in[j] < 0)
				continue;
			t = &g->t[n->in[j]];
			if (t->rank < 0)
				return ane__ox_fail(c, n, EINVAL,
						    "input %d '%s' has no known shape",
						    j, t->name);
			if (!t->konst)
				all_const = 0;
		}
		err = op->infer(c, n);
		if (err)
			return err;
		for (j = 0; j < n->n_out; j++) {
			const struct ox_tensor *t;

			if (n->out[j] < 0)
				continue;
			t = &g->t[n->out[j]];
			if (t->rank < 0 || t->rank > OX_MAX_RANK ||
			    !ane__ox_dtype_size(t->dtype) ||
			    ane__ox_shape_count(t->rank, t->dims) < 0)
				return ane__ox_fail(c, n, EINVAL,
						    "output %d '%s': no valid shape or dtype inferred",
						    j, t->name);
		}
		if (outputs_known(g, n)) {
			/* infer() knew the values (a Shape of a static tensor). */
			n->placement = OX_PLACE_FOLDED;
			continue;
		}
		if (all_const && !nondeterministic(n->op_type) &&
		    out_bytes(g, n) >= 0 && out_bytes(g, n) <= OX_FOLD_MAX_BYTES) {
			err = fold(c, op, n);
			if (err)
				return err;
		}
	}
	return 0;
}

void ane__ox_liveness(struct ox_graph *g)
{
	int i, j;

	for (i = 0; i < g->n_t; i++)
		g->t[i].last_use = -1;
	for (i = 0; i < g->n_nodes; i++) {
		const struct ox_node *n = &g->nodes[i];

		if (n->placement == OX_PLACE_FOLDED)
			continue;
		for (j = 0; j < n->n_in; j++)
			if (n->in[j] >= 0)
				g->t[n->in[j]].last_use = i;
	}
}
