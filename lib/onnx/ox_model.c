// SPDX-License-Identifier: MIT
/*
 * libane: the model API (ane_model_*), ONNX in: load, infer, fold,
 * partition and compile (ox_*.c), then run on a device, on the CPU
 * reference executor or through the caller's executor.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ane_internal.h"
#include "ox.h"
#include "ox_graph.h"
#include "ox_load.h"

struct ane_model {
	struct ox_graph *g;
	struct ox_plan plan;
	char err[2048];
	ane_model_exec_fn exec;
	void *exec_ctx;
	struct ane_dev *dev;	/* during ane_model_run() */
};

static int copy_msg(char *dst, size_t len, const char *src, int err)
{
	if (dst && len)
		snprintf(dst, len, "%s", src);
	return err;
}

/* Graph inputs the caller fixed to a value become constants. */
static int bind_consts(struct ox_ctx *c, const struct ane_model_options *o)
{
	struct ox_graph *g = c->g;
	unsigned int k;
	int i, j;

	for (k = 0; o && k < o->n_consts; k++) {
		const struct ane_model_tensor *mt = &o->consts[k];
		struct ox_tensor *t = NULL;
		struct ox_value *v;

		for (i = 0; i < g->n_inputs; i++)
			if (mt->name && !strcmp(g->t[g->inputs[i]].name, mt->name))
				t = &g->t[g->inputs[i]];
		if (!t)
			return ane__ox_fail(c, NULL, ENOENT,
					    "--const names '%s', which is not an input of the graph",
					    mt->name ? mt->name : "(null)");
		if (mt->dtype != t->dtype || mt->rank > OX_MAX_RANK)
			return ane__ox_fail(c, NULL, EINVAL,
					    "--const '%s' is %s, the input is %s",
					    t->name, ane__ox_dtype_name(mt->dtype),
					    ane__ox_dtype_name(t->dtype));
		v = ane__ox_value_new(mt->dtype, (int)mt->rank, mt->dims);
		if (!v)
			return ane__ox_fail(c, NULL, ENOMEM,
					    "--const '%s': out of memory", t->name);
		if (mt->size != v->count * ane__ox_dtype_size(v->dtype) ||
		    (v->count && !mt->data)) {
			ane__ox_value_free(v);
			return ane__ox_fail(c, NULL, EINVAL,
					    "--const '%s': %zu bytes of data for its shape's %zu",
					    t->name, mt->size,
					    v->count * ane__ox_dtype_size(mt->dtype));
		}
		if (v->count)
			memcpy(v->data, mt->data, mt->size);
		t->konst = v;
		t->rank = v->rank;
		memcpy(t->dims, v->dims, sizeof(t->dims));
		t->is_input = 0;
		for (i = j = 0; i < g->n_inputs; i++)
			if (&g->t[g->inputs[i]] != t)
				g->inputs[j++] = g->inputs[i];
		g->n_inputs = j;
	}
	return 0;
}

/* ANE_MODEL_ONE_PROGRAM: one segment, the graph's inputs and outputs. */
static int one_program(struct ox_ctx *c, const struct ox_plan *p)
{
	const struct ox_graph *g = c->g;
	const struct ox_seg *s = p->segs;
	int i;

	if (p->n_segs != 1)
		return ane__ox_fail(c, NULL, EOPNOTSUPP,
				    "one program: the model compiles to %d engine segments (a node on the CPU, or more than 16 inputs or outputs, ends a segment)",
				    p->n_segs);
	if (s->n_in != g->n_inputs || s->n_out != g->n_outputs)
		return ane__ox_fail(c, NULL, EOPNOTSUPP,
				    "one program: the program has %d inputs and %d outputs, the graph %d and %d",
				    s->n_in, s->n_out, g->n_inputs, g->n_outputs);
	for (i = 0; i < s->n_in; i++)
		if (s->in_t[i] != g->inputs[i])
			return ane__ox_fail(c, NULL, EOPNOTSUPP,
					    "one program: the program's input %d is '%s', the graph's '%s'",
					    i, g->t[s->in_t[i]].name,
					    g->t[g->inputs[i]].name);
	for (i = 0; i < s->n_out; i++)
		if (s->out_t[i] != g->outputs[i])
			return ane__ox_fail(c, NULL, EOPNOTSUPP,
					    "one program: the program's output %d is '%s', the graph's '%s'",
					    i, g->t[s->out_t[i]].name,
					    g->t[g->outputs[i]].name);
	return 0;
}

int ane_model_load_onnx(const void *bytes, size_t len,
			const struct ane_model_options *opt,
			struct ane_model **out, char *err, size_t err_len)
{
	struct ox_shape_fix fix[64];
	struct ox_load_opts lo = { 0 };
	struct ane_model *m;
	struct ox_ctx c;
	unsigned int i;
	int r;

	if (!out)
		return copy_msg(err, err_len, "ane_model_load_onnx: out is NULL", -EINVAL);
	*out = NULL;
	if (opt && opt->n_shapes > 64)
		return copy_msg(err, err_len, "ane_model_load_onnx: more than 64 shapes",
				-E2BIG);
	if ((opt && opt->flags & ~(ANE_MODEL_ENGINE_ONLY | ANE_MODEL_CPU_ONLY |
				   ANE_MODEL_ONE_PROGRAM)) ||
	    (opt && (opt->flags & ANE_MODEL_ENGINE_ONLY) &&
	     (opt->flags & ANE_MODEL_CPU_ONLY)) ||
	    (opt && (opt->flags & ANE_MODEL_ONE_PROGRAM) &&
	     !(opt->flags & ANE_MODEL_ENGINE_ONLY)))
		return copy_msg(err, err_len,
				"ane_model_load_onnx: flags: unknown bits, ENGINE_ONLY with CPU_ONLY, or ONE_PROGRAM without ENGINE_ONLY",
				-EINVAL);
	m = calloc(1, sizeof(*m));
	if (!m)
		return copy_msg(err, err_len, "out of memory", -ENOMEM);
	if (opt) {
		lo.base_dir = opt->base_dir;
		for (i = 0; i < opt->n_shapes; i++) {
			const struct ane_model_tensor *s = &opt->shapes[i];

			if (!s->name || s->rank > OX_MAX_RANK) {
				free(m);
				return copy_msg(err, err_len,
						"ane_model_load_onnx: a shape without a name or of rank above 8",
						-EINVAL);
			}
			fix[i].name = s->name;
			fix[i].rank = (int)s->rank;
			memset(fix[i].dims, 0, sizeof(fix[i].dims));
			memcpy(fix[i].dims, s->dims, sizeof(*s->dims) * s->rank);
		}
		lo.shapes = fix;
		lo.n_shapes = opt->n_shapes;
	}
	r = ane__ox_load(bytes, len, &lo, &m->g, m->err, sizeof(m->err));
	c = (struct ox_ctx){ .g = m->g, .err = m->err, .err_len = sizeof(m->err),
			     .need_const = -1 };
	if (!r)
		r = bind_consts(&c, opt);
	if (!r)
		r = ane__ox_infer(&c);
	if (!r) {
		m->plan.flags = (opt && (opt->flags & ANE_MODEL_ENGINE_ONLY) ?
				 OX_PLAN_ENGINE_ONLY : 0) |
				(opt && (opt->flags & ANE_MODEL_CPU_ONLY) ?
				 OX_PLAN_CPU_ONLY : 0);
		m->plan.max_flops = opt && opt->max_segment_flops > 0 ?
				    opt->max_segment_flops : 0;
		r = ane__ox_plan(&c, &m->plan);
	}
	if (!r && opt && (opt->flags & ANE_MODEL_ONE_PROGRAM))
		r = one_program(&c, &m->plan);
	if (r) {
		copy_msg(err, err_len, m->err, r);
		ane_model_destroy(m);
		return r;
	}
	m->err[0] = '\0';
	*out = m;
	return 0;
}

/* Models are read whole; their weights may be up to 4 GiB. */
#define MODEL_MAX_BYTES	(4ull << 30)

int ane_model_load_onnx_file(const char *path,
			     const struct ane_model_options *opt,
			     struct ane_model **out, char *err, size_t err_len)
{
	struct ane_model_options o = { 0 };
	char dir[PATH_MAX];
	struct stat st;
	size_t done = 0;
	char *buf, *slash;
	ssize_t got;
	int fd, r;

	if (!path || !out)
		return copy_msg(err, err_len, "ane_model_load_onnx_file: NULL argument",
				-EINVAL);
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (err && err_len)
			snprintf(err, err_len, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > MODEL_MAX_BYTES) {
		close(fd);
		if (err && err_len)
			snprintf(err, err_len, "%s: not a regular file of at most 4 GiB",
				 path);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return copy_msg(err, err_len, "out of memory", -ENOMEM);
	}
	while (done < (size_t)st.st_size) {
		got = read(fd, buf + done, (size_t)st.st_size - done);
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	close(fd);
	if (opt)
		o = *opt;
	if (!o.base_dir) {
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			snprintf(dir, sizeof(dir), ".");
		o.base_dir = dir;
	}
	r = ane_model_load_onnx(buf, done, &o, out, err, err_len);
	free(buf);
	if (r && err && err_len) {
		char tmp[2048];

		snprintf(tmp, sizeof(tmp), "%s", err);
		snprintf(err, err_len, "%s: %s", path, tmp);
	}
	return r;
}

void ane_model_destroy(struct ane_model *m)
{
	if (!m)
		return;
	ane__ox_plan_free(&m->plan);
	ane__ox_graph_free(m->g);
	free(m);
}

const char *ane_model_errmsg(const struct ane_model *m)
{
	return m ? m->err : "ane_model: no model (NULL)";
}

unsigned int ane_model_num_inputs(const struct ane_model *m)
{
	return m ? (unsigned int)m->g->n_inputs : 0;
}

unsigned int ane_model_num_outputs(const struct ane_model *m)
{
	return m ? (unsigned int)m->g->n_outputs : 0;
}

static void tensor_info(const struct ox_tensor *t, struct ane_model_tensor *info)
{
	memset(info, 0, sizeof(*info));
	info->name = t->name;
	info->dtype = t->dtype;
	info->rank = (uint32_t)t->rank;
	memcpy(info->dims, t->dims, sizeof(info->dims));
	info->size = (size_t)ane__ox_shape_count(t->rank, t->dims) *
		     ane__ox_dtype_size(t->dtype);
}

int ane_model_input(const struct ane_model *m, unsigned int i,
		    struct ane_model_tensor *info)
{
	if (!m || !info || i >= (unsigned int)m->g->n_inputs)
		return -EINVAL;
	tensor_info(&m->g->t[m->g->inputs[i]], info);
	return 0;
}

int ane_model_output(const struct ane_model *m, unsigned int i,
		     struct ane_model_tensor *info)
{
	if (!m || !info || i >= (unsigned int)m->g->n_outputs)
		return -EINVAL;
	tensor_info(&m->g->t[m->g->outputs[i]], info);
	return 0;
}

unsigned int ane_model_num_nodes(const struct ane_model *m)
{
	return m ? (unsigned int)m->g->n_nodes : 0;
}

int ane_model_node(const struct ane_model *m, unsigned int i,
		   struct ane_model_node_info *info)
{
	const struct ox_node *n;

	if (!m || !info || i >= (unsigned int)m->g->n_nodes)
		return -EINVAL;
	n = &m->g->nodes[i];
	info->name = n->name;
	info->op_type = n->op_type;
	info->place = n->placement;
	info->segment = n->segment;
	info->flops = n->flops;
	info->why = n->placement == OX_PLACE_CPU && m->plan.why ? m->plan.why[i] : "";
	return 0;
}

void ane_model_get_stats(const struct ane_model *m, struct ane_model_stats *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	if (!m)
		return;
	st->nodes = (unsigned int)m->g->n_nodes;
	st->segments = (unsigned int)m->plan.n_segs;
	for (i = 0; i < m->g->n_nodes; i++) {
		const struct ox_node *n = &m->g->nodes[i];

		if (n->placement == OX_PLACE_FOLDED) {
			st->folded_nodes++;
			continue;
		}
		st->flops += n->flops;
		if (n->placement == OX_PLACE_ENGINE) {
			st->engine_nodes++;
			st->engine_flops += n->flops;
		} else {
			st->cpu_nodes++;
		}
	}
}

unsigned int ane_model_num_segments(const struct ane_model *m)
{
	return m ? (unsigned int)m->plan.n_segs : 0;
}

int ane_model_segment_image(const struct ane_model *m, unsigned int seg,
			    const void **image, size_t *size)
{
	if (!m || !image || !size || seg >= (unsigned int)m->plan.n_segs)
		return -EINVAL;
	*image = m->plan.segs[seg].image;
	*size = m->plan.segs[seg].image_size;
	return 0;
}

void ane_model_set_executor(struct ane_model *m, ane_model_exec_fn fn, void *ctx)
{
	if (!m)
		return;
	m->exec = fn;
	m->exec_ctx = ctx;
}

/* The executor ane__ox_run() calls: the caller's, the device or the CPU. */
static int exec_seg(void *ctx, const struct ox_seg *s, const float *const *in,
		    float *const *out, char *err, size_t err_len)
{
	struct ane_model *m = ctx;
	int r;

	if (m->exec)
		return m->exec(m->exec_ctx, (unsigned int)(s - m->plan.segs),
			       s->image, s->image_size, in, out, err, err_len);
	if (m->dev) {
		r = ane_net_run(m->dev, s->net, in, out);
		if (r)
			snprintf(err, err_len, "%s", ane_errmsg(m->dev));
		return r;
	}
	r = ane_net_reference(s->net, in, out);
	if (r)
		snprintf(err, err_len, "%s", ane_net_errmsg(s->net));
	return r;
}

int ane_model_run(struct ane_model *m, struct ane_dev *dev,
		  const struct ane_model_tensor *inputs,
		  struct ane_model_tensor *outputs)
{
	struct ox_value inv[256], *outv[256] = { 0 };
	const struct ox_value *inp[256];
	struct ox_ctx c;
	int i, r;

	if (!m)
		return -EINVAL;
	if ((m->g->n_inputs && !inputs) || !outputs) {
		snprintf(m->err, sizeof(m->err), "ane_model_run: %s is NULL",
			 !outputs ? "outputs" : "inputs");
		return -EINVAL;
	}
	c = (struct ox_ctx){ .g = m->g, .err = m->err, .err_len = sizeof(m->err),
			     .need_const = -1 };
	for (i = 0; i < m->g->n_inputs; i++) {
		const struct ane_model_tensor *t = &inputs[i];
		const struct ox_tensor *gt = &m->g->t[m->g->inputs[i]];
		size_t want = (size_t)ane__ox_shape_count(gt->rank, gt->dims) *
			      ane__ox_dtype_size(gt->dtype);

		if (t->rank > OX_MAX_RANK || t->size != want || (want && !t->data))
			return ane__ox_fail(&c, NULL, EINVAL,
					    "input %d '%s': %zu bytes given, its %s shape takes %zu",
					    i, gt->name, t->size,
					    ane__ox_dtype_name(gt->dtype), want);
		memset(&inv[i], 0, sizeof(inv[i]));
		inv[i].dtype = t->dtype;
		inv[i].rank = (int)t->rank;
		memcpy(inv[i].dims, t->dims, sizeof(*t->dims) * t->rank);
		inv[i].count = want / (ane__ox_dtype_size(gt->dtype) ?
				       ane__ox_dtype_size(gt->dtype) : 1);
		inv[i].data = t->data;
		inp[i] = &inv[i];
	}
	m->dev = dev;
	r = ane__ox_run(&c, &m->plan, inp, outv, exec_seg, m);
	m->dev = NULL;
	for (i = 0; !r && i < m->g->n_outputs; i++) {
		struct ane_model_tensor *o = &outputs[i];
		size_t bytes = outv[i]->count * ane__ox_dtype_size(outv[i]->dtype);

		if (!o->data || o->size < bytes) {
			r = ane__ox_fail(&c, NULL, ENOSPC,
					 "output %d '%s': a buffer of %zu bytes for its %zu",
					 i, m->g->t[m->g->outputs[i]].name, o->size, bytes);
			break;
		}
		o->name = m->g->t[m->g->outputs[i]].name;
		o->dtype = outv[i]->dtype;
		o->rank = (uint32_t)outv[i]->rank;
		memcpy(o->dims, outv[i]->dims, sizeof(o->dims));
		if (bytes)
			memcpy(o->data, outv[i]->data, bytes);
		o->size = bytes;
	}
	for (i = 0; i < m->g->n_outputs; i++)
		ane__ox_value_free(outv[i]);
	if (!r)
		m->err[0] = '\0';
	return r;
}
