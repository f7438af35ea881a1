// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the loader.  protobuf-c parses the bytes with
 * the code it generated at build time from ONNX's own onnx.proto
 * (Debian's libonnx-dev); this file turns the ModelProto into a struct
 * ox_graph -- tensors, initializers (inline or in external data files),
 * nodes with their attributes -- and orders the nodes topologically.
 * Everything read is checked: a file that is not a ModelProto, a
 * truncated one, a cycle, a tensor nobody produces, a dtype or a shape
 * that makes no sense is refused with a message that names the node, its
 * op type and the field.  Documentation/accel/ane/onnx.rst.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "ox.h"
#include "ox_load.h"

#define OX_MAX_TENSORS	(1 << 20)
#define OX_MAX_NODES	(1 << 20)

int ane__ox_load_fail(struct ox_ctx *c, int err, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->err_len) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->err_len, fmt, ap);
		va_end(ap);
	}
	return -err;
}

static char *dup_str(const char *s)
{
	return strdup(s ? s : "");
}

/* ------------------------------------------------------------ graph */

void ane__ox_graph_free(struct ox_graph *g)
{
	int i, j;
	size_t k;

	if (!g)
		return;
	for (i = 0; i < g->n_t; i++) {
		free(g->t[i].name);
		ane__ox_value_free(g->t[i].konst);
	}
	for (i = 0; i < g->n_nodes; i++) {
		struct ox_node *n = &g->nodes[i];

		free(n->name);
		free(n->op_type);
		free(n->domain);
		for (j = 0; j < n->n_attrs; j++) {
			struct ox_attr *a = &n->attrs[j];

			free(a->name);
			free(a->s);
			free(a->floats);
			free(a->ints);
			for (k = 0; a->strings && k < a->n; k++)
				free(a->strings[k]);
			free(a->strings);
			ane__ox_value_free(a->t);
		}
		free(n->attrs);
	}
	free(g->t);
	free(g->nodes);
	free(g->name);
	free(g);
}

/* A tensor's index by name; -1 if there is none. */
struct name_map {
	char **names;
	int *idx;
	size_t cap;		/* a power of two */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int map_find(const struct name_map *m, const char *s)
{
	size_t i = hash_str(s) & (m->cap - 1);

	while (m->names[i]) {
		if (!strcmp(m->names[i], s))
			return m->idx[i];
		i = (i + 1) & (m->cap - 1);
	}
	return -1;
}

static void map_put(struct name_map *m, char *s, int idx)
{
	size_t i = hash_str(s) & (m->cap - 1);

	while (m->names[i]) {
		if (!strcmp(m->names[i], s)) {
			m->idx[i] = idx;
			return;
		}
		i = (i + 1) & (m->cap - 1);
	}
	m->names[i] = s;
	m->idx[i] = idx;
}

static int add_tensor(struct ox_ctx *c, struct name_map *m, const char *name)
{
	struct ox_graph *g = c->g;
	struct ox_tensor *t;

	if (g->n_t >= OX_MAX_TENSORS)
		return ane__ox_load_fail(c, E2BIG, "more than %d tensors", OX_MAX_TENSORS);
	if (g->n_t == g->cap_t) {
		int cap = g->cap_t ? g->cap_t * 2 : 64;
		void *p = realloc(g->t, sizeof(*g->t) * (size_t)cap);

		if (!p)
			return ane__ox_load_fail(c, ENOMEM, "out of memory");
		g->t = p;
		g->cap_t = cap;
	}
	t = &g->t[g->n_t];
	memset(t, 0, sizeof(*t));
	t->name = dup_str(name);
	if (!t->name)
		return ane__ox_load_fail(c, ENOMEM, "out of memory");
	t->rank = -1;
	t->producer = -1;
	t->last_use = -1;
	map_put(m, t->name, g->n_t);
	return g->n_t++;
}

static int conv_attr(struct ox_ctx *c, const Onnx__NodeProto *np, int idx,
		     const Onnx__AttributeProto *ap, struct ox_attr *a)
{
	size_t i;
	int err;

	a->name = dup_str(ap->name);
	if (!a->name)
		return ane__ox_load_fail(c, ENOMEM, "out of memory");
	a->type = ap->has_type ? (int)ap->type : OX_ATTR_UNDEFINED;
	if (ap->ref_attr_name && ap->ref_attr_name[0])
		return ane__ox_load_fail(c, EOPNOTSUPP,
				 "node %d '%s' (%s): attribute '%s' refers to a function attribute",
				 idx, np->name ? np->name : "", np->op_type, a->name);
	switch (a->type) {
	case OX_ATTR_FLOAT:
		a->f = ap->f;
		break;
	case OX_ATTR_INT:
		a->i = ap->i;
		break;
	case OX_ATTR_STRING:
		a->s = malloc(ap->s.len + 1);
		if (!a->s)
			return ane__ox_load_fail(c, ENOMEM, "out of memory");
		if (ap->s.len)
			memcpy(a->s, ap->s.data, ap->s.len);
		a->s[ap->s.len] = '\0';
		a->s_len = ap->s.len;
		break;
	case OX_ATTR_FLOATS:
		a->n = ap->n_floats;
		a->floats = malloc(sizeof(float) * (a->n ? a->n : 1));
		if (!a->floats)
			return ane__ox_load_fail(c, ENOMEM, "out of memory");
		for (i = 0; i < a->n; i++)
			a->floats[i] = ap->floats[i];
		break;
	case OX_ATTR_INTS:
		a->n = ap->n_ints;
		a->ints = malloc(sizeof(int64_t) * (a->n ? a->n : 1));
		if (!a->ints)
			return ane__ox_load_fail(c, ENOMEM, "out of memory");
		for (i = 0; i < a->n; i++)
			a->ints[i] = ap->ints[i];
		break;
	case OX_ATTR_STRINGS:
		a->strings = calloc(ap->n_strings ? ap->n_strings : 1,
				    sizeof(char *));
		if (!a->strings)
			return ane__ox_load_fail(c, ENOMEM, "out of memory");
		for (i = 0; i < ap->n_strings; i++) {
			a->strings[i] = malloc(ap->strings[i].len + 1);
			if (!a->strings[i])
				return ane__ox_load_fail(c, ENOMEM, "out of memory");
			a->n = i + 1;
			if (ap->strings[i].len)
				memcpy(a->strings[i], ap->strings[i].data,
				       ap->strings[i].len);
			a->strings[i][ap->strings[i].len] = '\0';
		}
		break;
	case OX_ATTR_TENSOR:
		if (!ap->t)
			return ane__ox_load_fail(c, EINVAL,
					 "node %d '%s' (%s): attribute '%s' is a tensor without one",
					 idx, np->name ? np->name : "", np->op_type,
					 a->name);
		err = ane__ox_tensor_from_proto(c, ap->t, NULL, &a->t);
		if (err) {
			char tmp[512];

			snprintf(tmp, sizeof(tmp), "%s", c->err);
			return ane__ox_load_fail(c, -err,
					 "node %d '%s' (%s): attribute '%s': %s",
					 idx, np->name ? np->name : "",
					 np->op_type, a->name, tmp);
		}
		break;
	default:
		/* Graphs, sparse tensors, type protos: kept by type only. */
		break;
	}
	return 0;
}

static int add_node(struct ox_ctx *c, const Onnx__NodeProto *np, int idx)
{
	struct ox_graph *g = c->g;
	struct ox_node *n = &g->nodes[idx];
	size_t i;
	int err;

	memset(n, 0, sizeof(*n));
	n->segment = -1;
	n->name = dup_str(np->name);
	n->op_type = dup_str(np->op_type);
	n->domain = dup_str(np->domain);
	if (!n->name || !n->op_type || !n->domain)
		return ane__ox_load_fail(c, ENOMEM, "out of memory");
	if (!np->op_type || !np->op_type[0])
		return ane__ox_load_fail(c, EINVAL, "node %d '%s': op_type is empty",
				 idx, n->name);
	if (np->n_input > OX_MAX_IO || np->n_output > OX_MAX_IO)
		return ane__ox_load_fail(c, E2BIG,
				 "node %d '%s' (%s): %zu inputs and %zu outputs, more than %d",
				 idx, n->name, n->op_type, np->n_input,
				 np->n_output, OX_MAX_IO);
	if (np->n_attribute > 1024)
		return ane__ox_load_fail(c, E2BIG,
				 "node %d '%s' (%s): %zu attributes",
				 idx, n->name, n->op_type, np->n_attribute);
	n->attrs = calloc(np->n_attribute ? np->n_attribute : 1,
			  sizeof(*n->attrs));
	if (!n->attrs)
		return ane__ox_load_fail(c, ENOMEM, "out of memory");
	for (i = 0; i < np->n_attribute; i++) {
		n->n_attrs = (int)i + 1;
		err = conv_attr(c, np, idx, np->attribute[i], &n->attrs[i]);
		if (err)
			return err;
	}
	n->n_in = (int)np->n_input;
	n->n_out = (int)np->n_output;
	return 0;
}

/* Kahn's algorithm over node indices; a cycle names one of its nodes. */
static int topo_sort(struct ox_ctx *c)
{
	struct ox_graph *g = c->g;
	size_t nn = (size_t)g->n_nodes + 1, nt = (size_t)g->n_t + 1, edges = 0;
	int *indeg, *order, *remap, *first, *cons;
	int i, j, head = 0, done = 0, err = 0;
	struct ox_node *sorted;

	for (i = 0; i < g->n_nodes; i++)
		edges += (size_t)g->nodes[i].n_in;
	indeg = calloc(nn, sizeof(int));
	order = calloc(nn, sizeof(int));
	remap = calloc(nn, sizeof(int));
	first = calloc(nt + 1, sizeof(int));
	cons = calloc(edges + 1, sizeof(int));
	sorted = calloc(nn, sizeof(*sorted));
	if (!indeg || !order || !remap || !first || !cons || !sorted) {
		err = ane__ox_load_fail(c, ENOMEM, "out of memory");
		goto out;
	}
	/* The consumers of each tensor, as compressed rows. */
	for (i = 0; i < g->n_nodes; i++)
		for (j = 0; j < g->nodes[i].n_in; j++) {
			int t = g->nodes[i].in[j];

			if (t >= 0 && g->t[t].producer >= 0) {
				indeg[i]++;
				first[t + 1]++;
			}
		}
	for (i = 0; i < g->n_t; i++)
		first[i + 1] += first[i];
	{
		int *fill = calloc(nt, sizeof(int));

		if (!fill) {
			err = ane__ox_load_fail(c, ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < g->n_nodes; i++)
			for (j = 0; j < g->nodes[i].n_in; j++) {
				int t = g->nodes[i].in[j];

				if (t >= 0 && g->t[t].producer >= 0)
					cons[first[t] + fill[t]++] = i;
			}
		free(fill);
	}
	/* order[] is the queue: nodes with no pending inputs, file order. */
	for (i = 0; i < g->n_nodes; i++)
		if (!indeg[i])
			order[done++] = i;
	while (head < done) {
		int u = order[head++];

		for (j = 0; j < g->nodes[u].n_out; j++) {
			int t = g->nodes[u].out[j], k;

			if (t < 0)
				continue;
			for (k = first[t]; k < first[t + 1]; k++)
				if (!--indeg[cons[k]])
					order[done++] = cons[k];
		}
	}
	if (done < g->n_nodes) {
		for (i = 0; i < g->n_nodes && indeg[i] == 0; i++)
			;
		err = ane__ox_load_fail(c, ELOOP,
				"node %d '%s' (%s): the graph has a cycle through it (its inputs depend on its own outputs)",
				i, g->nodes[i].name, g->nodes[i].op_type);
		goto out;
	}
	for (i = 0; i < g->n_nodes; i++) {
		sorted[i] = g->nodes[order[i]];
		remap[order[i]] = i;
	}
	for (i = 0; i < g->n_t; i++)
		if (g->t[i].producer >= 0)
			g->t[i].producer = remap[g->t[i].producer];
	free(g->nodes);
	g->nodes = sorted;
	g->cap_nodes = g->n_nodes;
	sorted = NULL;
out:
	free(indeg);
	free(order);
	free(remap);
	free(first);
	free(cons);
	free(sorted);
	return err;
}

static const struct ox_shape_fix *find_fix(const struct ox_load_opts *o,
					   const char *name)
{
	unsigned int i;

	for (i = 0; o && i < o->n_shapes; i++)
		if (!strcmp(o->shapes[i].name, name))
			return &o->shapes[i];
	return NULL;
}

/* A graph input's type and static shape, or the caller's fixed one. */
static int input_type(struct ox_ctx *c, const Onnx__ValueInfoProto *vi,
		      const struct ox_load_opts *o, struct ox_tensor *t)
{
	const struct ox_shape_fix *fix = find_fix(o, t->name);
	const Onnx__TypeProto__Tensor *tt;
	size_t i;

	if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !vi->type->tensor_type)
		return ane__ox_load_fail(c, EOPNOTSUPP,
				 "input '%s': not a tensor (sequence, map, optional and sparse inputs are not supported)",
				 t->name);
	tt = vi->type->tensor_type;
	t->dtype = tt->has_elem_type ? tt->elem_type : OX_UNDEFINED;
	if (!ane__ox_dtype_size(t->dtype))
		return ane__ox_load_fail(c, EOPNOTSUPP,
				 "input '%s': elem_type %d (%s) is not supported",
				 t->name, t->dtype, ane__ox_dtype_name(t->dtype));
	if (fix) {
		if (tt->shape && tt->shape->n_dim != (size_t)fix->rank)
			return ane__ox_load_fail(c, EINVAL,
					 "input '%s': the given shape has rank %d, the model says %zu",
					 t->name, fix->rank, tt->shape->n_dim);
		for (i = 0; tt->shape && i < tt->shape->n_dim; i++) {
			const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];

			if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
			    d->dim_value != fix->dims[i])
				return ane__ox_load_fail(c, EINVAL,
						 "input '%s': the given dims[%zu] is %lld, the model fixes it at %lld",
						 t->name, i, (long long)fix->dims[i],
						 (long long)d->dim_value);
		}
		t->rank = fix->rank;
		memcpy(t->dims, fix->dims, sizeof(t->dims));
		return ane__ox_check_dims(c, "input", t->name, (size_t)t->rank, t->dims);
	}
	if (!tt->shape)
		return ane__ox_load_fail(c, EINVAL,
				 "input '%s': the model gives no shape; fix one (ane-run --shape %s=1x3x224x224)",
				 t->name, t->name);
	if (tt->shape->n_dim > OX_MAX_RANK)
		return ane__ox_load_fail(c, EOPNOTSUPP,
				 "input '%s': rank %zu, more than the %d supported",
				 t->name, tt->shape->n_dim, OX_MAX_RANK);
	t->rank = (int)tt->shape->n_dim;
	for (i = 0; i < tt->shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];

		if (d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
			const char *p = d->value_case ==
				ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
				d->dim_param ? d->dim_param : "?";

			return ane__ox_load_fail(c, EINVAL,
					 "input '%s': dims[%zu] is dynamic ('%s'); shapes must be static: fix it (ane-run --shape %s=...)",
					 t->name, i, p, t->name);
		}
		t->dims[i] = d->dim_value;
	}
	return ane__ox_check_dims(c, "input", t->name, (size_t)t->rank, t->dims);
}

static int build_graph(struct ox_ctx *c, const Onnx__ModelProto *mp,
		       const struct ox_load_opts *o)
{
	const Onnx__GraphProto *gp = mp->graph;
	struct ox_graph *g = c->g;
	struct name_map m = { 0 };
	size_t i, j, want;
	int err = 0, idx;

	want = gp->n_initializer + gp->n_input + gp->n_node * 4 + 16;
	for (i = 0; i < gp->n_node; i++)
		want += gp->node[i]->n_output;
	for (m.cap = 64; m.cap < want * 2; m.cap *= 2)
		;
	m.names = calloc(m.cap, sizeof(*m.names));
	m.idx = calloc(m.cap, sizeof(*m.idx));
	if (!m.names || !m.idx) {
		err = ane__ox_load_fail(c, ENOMEM, "out of memory");
		goto out;
	}
	if (gp->n_node > OX_MAX_NODES || gp->n_input > 256 || gp->n_output > 256) {
		err = ane__ox_load_fail(c, E2BIG,
				"the graph has %zu nodes, %zu inputs and %zu outputs (at most %d, 256, 256)",
				gp->n_node, gp->n_input, gp->n_output, OX_MAX_NODES);
		goto out;
	}
	if (gp->n_sparse_initializer) {
		err = ane__ox_load_fail(c, EOPNOTSUPP,
				"sparse initializers are not supported (%s)",
				gp->sparse_initializer[0]->values &&
				gp->sparse_initializer[0]->values->name ?
				gp->sparse_initializer[0]->values->name : "");
		goto out;
	}

	/* Initializers: constants. */
	for (i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *tp = gp->initializer[i];

		if (!tp->name || !tp->name[0]) {
			err = ane__ox_load_fail(c, EINVAL, "initializer %zu has no name", i);
			goto out;
		}
		if (map_find(&m, tp->name) >= 0) {
			err = ane__ox_load_fail(c, EINVAL,
					"initializer '%s' is given twice", tp->name);
			goto out;
		}
		idx = add_tensor(c, &m, tp->name);
		if (idx < 0) {
			err = idx;
			goto out;
		}
		err = ane__ox_tensor_from_proto(c, tp, o, &g->t[idx].konst);
		if (err)
			goto out;
		g->t[idx].dtype = g->t[idx].konst->dtype;
		g->t[idx].rank = g->t[idx].konst->rank;
		memcpy(g->t[idx].dims, g->t[idx].konst->dims, sizeof(g->t[idx].dims));
	}
	/*
	 * Inputs.  One that is also an initializer (IR version < 4 lists
	 * them all) is a constant: its initializer is its value.
	 */
	for (i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];

		if (!vi->name || !vi->name[0]) {
			err = ane__ox_load_fail(c, EINVAL, "graph input %zu has no name", i);
			goto out;
		}
		idx = map_find(&m, vi->name);
		if (idx >= 0) {
			if (g->t[idx].is_input) {
				err = ane__ox_load_fail(c, EINVAL,
						"input '%s' is listed twice", vi->name);
				goto out;
			}
			continue;
		}
		idx = add_tensor(c, &m, vi->name);
		if (idx < 0) {
			err = idx;
			goto out;
		}
		g->t[idx].is_input = 1;
		err = input_type(c, vi, o, &g->t[idx]);
		if (err)
			goto out;
		g->inputs[g->n_inputs++] = idx;
	}
	if (o) {
		for (i = 0; i < o->n_shapes; i++) {
			idx = map_find(&m, o->shapes[i].name);
			if (idx < 0 || !g->t[idx].is_input) {
				err = ane__ox_load_fail(c, ENOENT,
						"--shape names '%s', which is not an input of the graph",
						o->shapes[i].name);
				goto out;
			}
		}
	}

	/* Nodes: their outputs first, so inputs may name later nodes. */
	g->nodes = calloc(gp->n_node ? gp->n_node : 1, sizeof(*g->nodes));
	if (!g->nodes) {
		err = ane__ox_load_fail(c, ENOMEM, "out of memory");
		goto out;
	}
	g->cap_nodes = (int)gp->n_node;
	for (i = 0; i < gp->n_node; i++) {
		const Onnx__NodeProto *np = gp->node[i];

		g->n_nodes = (int)i + 1;
		err = add_node(c, np, (int)i);
		if (err)
			goto out;
		for (j = 0; j < np->n_output; j++) {
			const char *name = np->output[j];

			if (!name || !name[0]) {
				g->nodes[i].out[j] = -1;
				continue;
			}
			idx = map_find(&m, name);
			if (idx >= 0) {
				err = ane__ox_load_fail(c, EINVAL,
						"node %zu '%s' (%s): output %zu '%s' is already %s",
						i, g->nodes[i].name, g->nodes[i].op_type, j, name,
						g->t[idx].producer >= 0 ? "the output of another node" :
						g->t[idx].is_input ? "a graph input" : "an initializer");
				goto out;
			}
			idx = add_tensor(c, &m, name);
			if (idx < 0) {
				err = idx;
				goto out;
			}
			g->t[idx].producer = (int)i;
			g->nodes[i].out[j] = idx;
		}
	}
	for (i = 0; i < gp->n_node; i++) {
		const Onnx__NodeProto *np = gp->node[i];

		for (j = 0; j < np->n_input; j++) {
			const char *name = np->input[j];

			if (!name || !name[0]) {
				g->nodes[i].in[j] = -1;
				continue;
			}
			idx = map_find(&m, name);
			if (idx < 0) {
				err = ane__ox_load_fail(c, ENOENT,
						"node %zu '%s' (%s): input %zu '%s' is no graph input, initializer or node output",
						i, g->nodes[i].name, g->nodes[i].op_type, j, name);
				goto out;
			}
			g->nodes[i].in[j] = idx;
			g->t[idx].n_uses++;
		}
	}

	for (i = 0; i < gp->n_output; i++) {
		const char *name = gp->output[i]->name;

		idx = name ? map_find(&m, name) : -1;
		if (idx < 0) {
			err = ane__ox_load_fail(c, ENOENT,
					"graph output %zu '%s' is no input, initializer or node output",
					i, name ? name : "");
			goto out;
		}
		g->t[idx].is_output = 1;
		g->outputs[g->n_outputs++] = idx;
	}
	if (!g->n_outputs)
		err = ane__ox_load_fail(c, EINVAL, "the graph has no outputs");
	else
		err = topo_sort(c);
out:
	free(m.names);
	free(m.idx);
	return err;
}

int ane__ox_load(const void *buf, size_t len, const struct ox_load_opts *o,
		 struct ox_graph **out, char *err, size_t err_len)
{
	struct ox_ctx c = { .err = err, .err_len = err_len };
	Onnx__ModelProto *mp;
	size_t i;
	int r;

	*out = NULL;
	if (err && err_len)
		err[0] = '\0';
	if (!buf || !len)
		return ane__ox_load_fail(&c, EINVAL, "not an ONNX model: the file is empty");
	mp = onnx__model_proto__unpack(NULL, len, buf);
	if (!mp)
		return ane__ox_load_fail(&c, EBADMSG,
				 "not an ONNX model: the protobuf does not parse as a ModelProto (truncated, or another kind of file)");
	if (!mp->graph) {
		onnx__model_proto__free_unpacked(mp, NULL);
		return ane__ox_load_fail(&c, EBADMSG,
				 "not an ONNX model: the ModelProto has no graph");
	}
	c.g = calloc(1, sizeof(*c.g));
	if (!c.g) {
		onnx__model_proto__free_unpacked(mp, NULL);
		return ane__ox_load_fail(&c, ENOMEM, "out of memory");
	}
	c.g->ir_version = mp->has_ir_version ? mp->ir_version : 0;
	c.g->opset = -1;
	c.g->name = dup_str(mp->graph->name);
	for (i = 0; i < mp->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *os = mp->opset_import[i];

		if (!os->domain || !os->domain[0] || !strcmp(os->domain, "ai.onnx"))
			c.g->opset = os->has_version ? os->version : 0;
	}
	/* IR version 1 and 2 models have no opset_import: opset 1. */
	if (c.g->opset < 0)
		c.g->opset = mp->n_opset_import ? 0 : 1;
	if (c.g->opset < ANE_OX_OPSET_MIN || c.g->opset > ANE_OX_OPSET_MAX)
		r = ane__ox_load_fail(&c, EOPNOTSUPP,
			      "the model imports opset %lld of the default domain; opsets %d to %d are supported",
			      (long long)c.g->opset, ANE_OX_OPSET_MIN, ANE_OX_OPSET_MAX);
	else if (mp->n_functions)
		r = ane__ox_load_fail(&c, EOPNOTSUPP,
			      "the model defines %zu local functions ('%s'); they are not supported",
			      mp->n_functions, mp->functions[0]->name);
	else
		r = build_graph(&c, mp, o);
	onnx__model_proto__free_unpacked(mp, NULL);
	if (r) {
		ane__ox_graph_free(c.g);
		return r;
	}
	*out = c.g;
	return 0;
}
