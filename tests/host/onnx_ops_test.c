// SPDX-License-Identifier: MIT
/*
 * The ONNX front end's CPU kernels (lib/onnx/ox_ops_*.c): hand-made
 * graphs that check infer()'s messages and run()'s values, and the models
 * of Debian's ONNX test data when it is installed, run node by node on the
 * CPU by a small interpreter here (each node inferred, then run; a node
 * whose inputs are all constant is folded, so shape inputs computed from
 * constants are constants; a graph input an op needs as a constant is
 * bound from the test's input).
 *
 *   onnx_ops_test                 the unit cases and the test data's models
 *   onnx_ops_test [-v] DIR...     only the models in DIR/ (or DIR itself)
 *
 * Copyright (C) 2026 The ane authors
 */

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "onnx/ox_load.h"
#include "onnx/ox_ops.h"

static int verbose;

static void *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long sz;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc((size_t)sz + 1);
	if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	*len = (size_t)sz;
out:
	fclose(f);
	return buf;
}

/* ------------------------------------------------------------ interpreter */

struct interp {
	struct ox_graph *g;
	struct ox_value **val;	/* per tensor: computed (not constant) values */
	char err[1024];
};

static const struct ox_value *tval(const struct interp *ip, int t)
{
	if (t < 0)
		return NULL;
	return ip->g->t[t].konst ? ip->g->t[t].konst : ip->val[t];
}

/* Infers node @i, binding graph inputs it needs as constants from @bind. */
static int infer_node(struct interp *ip, int i, const struct ox_op *op,
		      struct ox_value **bind)
{
	struct ox_ctx c = { .g = ip->g, .err = ip->err, .err_len = sizeof(ip->err) };
	int tries, r = 0;

	for (tries = 0; tries < OX_MAX_IO + 1; tries++) {
		c.need_const = -1;
		r = op->infer(&c, &ip->g->nodes[i]);
		if (!r || c.need_const < 0 || !bind[c.need_const])
			return r;
		ip->g->t[c.need_const].konst = bind[c.need_const];
		bind[c.need_const] = NULL;
	}
	return r;
}

static int exec_node(struct interp *ip, int i)
{
	struct ox_node *n = &ip->g->nodes[i];
	struct ox_ctx c = { .g = ip->g, .err = ip->err, .err_len = sizeof(ip->err),
			    .need_const = -1 };
	const struct ox_value *in[OX_MAX_IO];
	struct ox_value *out[OX_MAX_IO];
	const struct ox_op *op = ane__ox_find_op(n->op_type);
	int k, r, folded = 1;

	for (k = 0; k < n->n_in; k++) {
		in[k] = tval(ip, n->in[k]);
		if (n->in[k] >= 0 && !ip->g->t[n->in[k]].konst)
			folded = 0;
	}
	for (k = 0; k < n->n_out; k++) {
		struct ox_tensor *t = ane__ox_out(&c, n, k);

		out[k] = t ? ane__ox_value_new(t->dtype, t->rank, t->dims) : NULL;
		if (t && !out[k]) {
			snprintf(ip->err, sizeof(ip->err),
				 "node %d (%s): output %d: no memory", i, n->op_type, k);
			r = -ENOMEM;
			goto fail;
		}
	}
	r = op->run(&c, n, in, out);
	if (r)
		goto fail;
	for (k = 0; k < n->n_out; k++) {
		if (!out[k])
			continue;
		if (ip->g->t[n->out[k]].konst)	/* infer() made it (Shape) */
			ane__ox_value_free(out[k]);
		else if (folded && n->domain[0] == '\0')
			ip->g->t[n->out[k]].konst = out[k];
		else
			ip->val[n->out[k]] = out[k];
	}
	return 0;
fail:
	for (k = 0; k < n->n_out; k++)
		ane__ox_value_free(out[k]);
	return r;
}

static int interp_run(struct interp *ip, struct ox_value **bind)
{
	int i, r;

	for (i = 0; i < ip->g->n_nodes; i++) {
		struct ox_node *n = &ip->g->nodes[i];
		const struct ox_op *op = n->domain[0] ? NULL :
					 ane__ox_find_op(n->op_type);

		if (!op) {
			snprintf(ip->err, sizeof(ip->err), "op %s%s%s is not supported",
				 n->domain, n->domain[0] ? "." : "", n->op_type);
			return -EOPNOTSUPP;
		}
		r = infer_node(ip, i, op, bind);
		if (!r)
			r = exec_node(ip, i);
		if (r)
			return r;
	}
	return 0;
}

static int close_enough(const struct ox_value *got, const struct ox_value *want,
			char *msg, size_t len)
{
	size_t i;

	if (got->dtype != want->dtype) {
		snprintf(msg, len, "dtype %s, expected %s", ane__ox_dtype_name(got->dtype),
			 ane__ox_dtype_name(want->dtype));
		return 0;
	}
	if (got->rank != want->rank ||
	    memcmp(got->dims, want->dims, sizeof(int64_t) * (size_t)got->rank)) {
		snprintf(msg, len, "shape rank %d [%lld %lld ...], expected rank %d [%lld %lld ...]",
			 got->rank, (long long)got->dims[0], (long long)got->dims[1],
			 want->rank, (long long)want->dims[0], (long long)want->dims[1]);
		return 0;
	}
	for (i = 0; i < got->count; i++) {
		if (ox_is_float(got->dtype)) {
			double a = ane__ox_get_f(got, i), b = ane__ox_get_f(want, i);

			if (a != a && b != b)
				continue;
			if (a == b || fabs(a - b) <= 1e-5 + 1e-3 * fabs(b))
				continue;
			snprintf(msg, len, "element %zu is %.9g, expected %.9g", i, a, b);
			return 0;
		}
		if (ane__ox_get_i(got, i) != ane__ox_get_i(want, i)) {
			snprintf(msg, len, "element %zu is %lld, expected %lld", i,
				 (long long)ane__ox_get_i(got, i),
				 (long long)ane__ox_get_i(want, i));
			return 0;
		}
	}
	return 1;
}

/* Runs one test set of the model at @dir: 1 passed, 0 failed, -1 skipped. */
static int run_set(const char *dir, const char *set, char *msg, size_t len)
{
	struct ox_load_opts o = { .base_dir = dir };
	struct interp ip = { 0 };
	struct ox_value **bind = NULL;
	char path[2048];
	void *buf;
	size_t sz;
	int i, r, res = 0;

	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	buf = read_all(path, &sz);
	if (!buf) {
		snprintf(msg, len, "cannot read %s", path);
		return 0;
	}
	r = ane__ox_load(buf, sz, &o, &ip.g, ip.err, sizeof(ip.err));
	free(buf);
	if (r) {
		snprintf(msg, len, "load: %s", ip.err);
		return -1;
	}
	ip.val = calloc((size_t)ip.g->n_t, sizeof(*ip.val));
	bind = calloc((size_t)ip.g->n_t, sizeof(*bind));
	if (!ip.val || !bind) {
		snprintf(msg, len, "no memory");
		goto out;
	}
	for (i = 0; i < ip.g->n_inputs; i++) {
		int t = ip.g->inputs[i];

		snprintf(path, sizeof(path), "%s/%s/input_%d.pb", dir, set, i);
		buf = read_all(path, &sz);
		if (!buf) {
			snprintf(msg, len, "no %s", path);
			goto out;
		}
		r = ane__ox_tensor_parse(buf, sz, &bind[t], ip.err, sizeof(ip.err));
		free(buf);
		if (r) {
			snprintf(msg, len, "%s: %s", path, ip.err);
			goto out;
		}
		/* onnx 1.12 writes bfloat16 test data as uint16. */
		if (bind[t]->dtype == OX_UINT16 && ip.g->t[t].dtype == OX_BFLOAT16)
			bind[t]->dtype = OX_BFLOAT16;
		if (bind[t]->rank != ip.g->t[t].rank ||
		    memcmp(bind[t]->dims, ip.g->t[t].dims,
			   sizeof(int64_t) * (size_t)bind[t]->rank)) {
			/* The model's declared shape is not the data's: take it. */
			ip.g->t[t].rank = bind[t]->rank;
			memcpy(ip.g->t[t].dims, bind[t]->dims, sizeof(bind[t]->dims));
		}
		ip.val[t] = bind[t];
	}
	r = interp_run(&ip, bind);
	if (r) {
		snprintf(msg, len, "%s", ip.err);
		res = r == -EOPNOTSUPP ? -1 : 0;
		goto out;
	}
	res = 1;
	for (i = 0; i < ip.g->n_outputs && res == 1; i++) {
		const struct ox_value *got = tval(&ip, ip.g->outputs[i]);
		struct ox_value *want = NULL;

		snprintf(path, sizeof(path), "%s/%s/output_%d.pb", dir, set, i);
		buf = read_all(path, &sz);
		if (!buf || ane__ox_tensor_parse(buf, sz, &want, ip.err, sizeof(ip.err))) {
			snprintf(msg, len, "cannot read %s", path);
			res = 0;
		} else if (want->dtype == OX_UINT16 && got &&
			   got->dtype == OX_BFLOAT16) {
			want->dtype = OX_BFLOAT16;	/* onnx 1.12's test data */
		}
		if (res == 1 && !got) {
			snprintf(msg, len, "output %d has no value", i);
			res = 0;
		} else if (res == 1 && !close_enough(got, want, msg, len)) {
			size_t l = strlen(msg);

			snprintf(msg + l, len - l, " (output %d '%s')", i,
				 ip.g->t[ip.g->outputs[i]].name);
			res = 0;
		}
		free(buf);
		ane__ox_value_free(want);
	}
out:
	for (i = 0; ip.g && i < ip.g->n_t; i++) {
		if (bind && bind[i])
			ane__ox_value_free(bind[i]);
		else if (ip.val && !ip.g->t[i].is_input)
			ane__ox_value_free(ip.val[i]);
	}
	free(bind);
	free(ip.val);
	ane__ox_graph_free(ip.g);
	return res;
}

static unsigned int m_pass, m_fail, m_skip;

static void run_model(const char *dir)
{
	char msg[8192];
	struct dirent **sets;
	int n, i, res = 1, any = 0;

	n = scandir(dir, &sets, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (res == 1 && !strncmp(sets[i]->d_name, "test_data_set_", 14)) {
			any = 1;
			msg[0] = '\0';
			res = run_set(dir, sets[i]->d_name, msg, sizeof(msg));
		}
		free(sets[i]);
	}
	if (n >= 0)
		free(sets);
	if (!any)
		return;
	if (res == 1)
		m_pass++;
	else if (res < 0)
		m_skip++;
	else
		m_fail++;
	if (res == 0 || verbose)
		printf("%s %s: %s\n", res == 1 ? "pass" : res < 0 ? "skip" : "FAIL",
		       dir, msg);
}

/* Every model in @dir (a directory of model directories), or @dir's own. */
static void run_models(const char *dir)
{
	char path[4096];
	struct dirent **ents;
	struct stat st;
	int n, i;

	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	if (!stat(path, &st)) {
		run_model(dir);
		return;
	}
	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			run_model(path);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* ------------------------------------------------------------ unit cases */

#include "onnx_ops_cases.h"

int main(int argc, char **argv)
{
	int i;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		argc--;
		argv++;
	}
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			run_models(argv[i]);
		printf("models: %u passed, %u failed, %u skipped\n", m_pass,
		       m_fail, m_skip);
		return m_fail ? 1 : 0;
	}
	run_unit_cases();
	return t_summary("onnx_ops");
}
