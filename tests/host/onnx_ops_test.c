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
#include <unistd.h>

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
	struct ox_value *out[OX_MAX_IO] = { NULL };
	const struct ox_op *op = ane__ox_find_op(n->op_type);
	int k, r, folded = 1;

	for (k = 0; k < n->n_in; k++) {
		in[k] = tval(ip, n->in[k]);
		if (n->in[k] >= 0 && !ip->g->t[n->in[k]].konst)
			folded = 0;
	}
	for (k = 0; k < n->n_out; k++) {
		struct ox_tensor *t = ane__ox_out(&c, n, k);

		/* The test data's outputs are small: a huge one is a scrambled input's. */
		if (t && ane__ox_shape_count(t->rank, t->dims) > (1 << 24)) {
			snprintf(ip->err, sizeof(ip->err), "node %d (%s): output %d is huge",
				 i, n->op_type, k);
			r = -EFBIG;
			goto fail;
		}
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

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

/* Random values of every size and sign (ONNX_OPS_RANDOM_INPUTS: robustness). */
static void scramble(struct ox_value *v)
{
	static const double pick[] = { 0, -1, 1, 1e30, -1e30, NAN, INFINITY, 7, -300,
				       65536, 2147483648.0, -9.3e18 };
	size_t i;

	for (i = 0; i < v->count; i++)
		ane__ox_set_f(v, i, pick[rnd(sizeof(pick) / sizeof(pick[0]))]);
}

/*
 * Runs one test set of the model at @dir: 1 passed, 0 failed, -1 skipped.
 * @all: every graph input bound as a constant (the whole graph folds).
 */
static int run_set(const char *dir, const char *set, int all, char *msg,
		   size_t len)
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
		if (getenv("ONNX_OPS_RANDOM_INPUTS"))
			scramble(bind[t]);
		ip.val[t] = bind[t];
		if (all) {
			ip.g->t[t].konst = bind[t];
			bind[t] = NULL;
		}
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
			res = run_set(dir, sets[i]->d_name, 0, msg, sizeof(msg));
			/*
			 * A shape computed from a graph input (Range over a
			 * Cast of one): bind them all, as ane-run --const would.
			 */
			if (!res && strstr(msg, "must be a constant"))
				res = run_set(dir, sets[i]->d_name, 1, msg, sizeof(msg));
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

/* A one-node graph built by hand: tensors 0.. are its inputs, then outputs. */
struct mini {
	struct ox_graph g;
	struct ox_tensor t[16];
	struct ox_value *val[16];	/* every input's value (konst or not) */
	struct ox_node n;
	struct ox_attr a[12];
	int64_t ints[12][8];
	char err[512];
	struct ox_ctx c;
};

static void mini_init(struct mini *m, const char *op, int opset)
{
	memset(m, 0, sizeof(*m));
	m->g.t = m->t;
	m->g.nodes = &m->n;
	m->g.n_nodes = 1;
	m->g.opset = opset;
	m->n.name = "n";
	m->n.op_type = (char *)op;
	m->n.domain = "";
	m->n.attrs = m->a;
	m->c.g = &m->g;
	m->c.err = m->err;
	m->c.err_len = sizeof(m->err);
	m->c.need_const = -1;
}

/* An input of @dtype and shape with values @v (cycled); @konst: a constant. */
static void mini_in(struct mini *m, int dtype, int rank, const int64_t *dims,
		    const double *v, size_t nv, int konst)
{
	int k = m->g.n_t++;
	struct ox_tensor *t = &m->t[k];
	size_t i;

	t->name = "in";
	t->dtype = dtype;
	t->rank = rank;
	t->producer = -1;
	t->is_input = !konst;
	memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
	m->val[k] = ane__ox_value_new(dtype, rank, dims);
	for (i = 0; m->val[k] && nv && i < m->val[k]->count; i++)
		ane__ox_set_f(m->val[k], i, v[i % nv]);
	if (konst)
		t->konst = m->val[k];
	m->n.in[m->n.n_in++] = k;
}

static void mini_skip_in(struct mini *m)
{
	m->n.in[m->n.n_in++] = -1;
}

static struct ox_attr *mini_attr(struct mini *m, const char *name, int type)
{
	struct ox_attr *a = &m->a[m->n.n_attrs++];

	a->name = (char *)name;
	a->type = type;
	return a;
}

static void mini_attr_i(struct mini *m, const char *name, int64_t v)
{
	mini_attr(m, name, OX_ATTR_INT)->i = v;
}

static void mini_attr_s(struct mini *m, const char *name, const char *v)
{
	struct ox_attr *a = mini_attr(m, name, OX_ATTR_STRING);

	a->s = (char *)v;
	a->s_len = strlen(v);
}

static void mini_attr_ints(struct mini *m, const char *name, const int64_t *v,
			   size_t n)
{
	struct ox_attr *a = mini_attr(m, name, OX_ATTR_INTS);

	memcpy(m->ints[m->n.n_attrs - 1], v, sizeof(*v) * n);
	a->ints = m->ints[m->n.n_attrs - 1];
	a->n = n;
}

/* Infers and runs the node with @n_out outputs into @out; 0 or -errno. */
static int mini_run(struct mini *m, int n_out, struct ox_value **out)
{
	const struct ox_op *op = ane__ox_find_op(m->n.op_type);
	const struct ox_value *in[OX_MAX_IO];
	int k, r;

	for (k = 0; k < n_out; k++) {
		int t = m->g.n_t++;

		m->t[t].name = "out";
		m->t[t].rank = -1;
		m->t[t].producer = 0;
		m->n.out[m->n.n_out++] = t;
		out[k] = NULL;
	}
	if (!op)
		return -ENOENT;
	r = op->infer(&m->c, &m->n);
	if (r)
		return r;
	for (k = 0; k < m->n.n_in; k++)
		in[k] = m->n.in[k] < 0 ? NULL : m->val[m->n.in[k]];
	for (k = 0; k < n_out; k++) {
		struct ox_tensor *t = &m->t[m->n.out[k]];

		if (t->rank < 0)
			continue;
		out[k] = ane__ox_value_new(t->dtype, t->rank, t->dims);
		if (!out[k])
			return -ENOMEM;
	}
	return op->run(&m->c, &m->n, in, out);
}

static void mini_free(struct mini *m, struct ox_value **out, int n_out)
{
	int k;

	for (k = 0; k < 16; k++) {
		ane__ox_value_free(m->val[k]);
		if (m->t[k].konst && m->t[k].konst != m->val[k])
			ane__ox_value_free(m->t[k].konst);	/* Shape's */
	}
	for (k = 0; k < n_out; k++)
		ane__ox_value_free(out[k]);
}

static int has(const char *err, const char *what)
{
	if (strstr(err, what))
		return 1;
	printf("#   message: %s\n#   wanted:  %s\n", err, what);
	return 0;
}

static int64_t d1[1] = { 4 }, d2x3[2] = { 2, 3 };

/* Runs @m's node, which must fail with @err and a message with @msg. */
static void expect_fail(struct mini *m, int err, const char *msg)
{
	struct ox_value *out[1];

	T_EQ(mini_run(m, 1, out), err);
	T_CHECK(has(m->err, msg), "");
	mini_free(m, out, 1);
}

static void axis_out_of_range_is_named(void)
{
	static const int64_t d4[4] = { 1, 2, 3, 4 };
	struct ox_value *out[1];
	struct mini m;

	mini_init(&m, "Softmax", 13);
	mini_in(&m, OX_FLOAT, 4, d4, NULL, 0, 0);
	mini_attr_i(&m, "axis", 5);
	T_EQ(mini_run(&m, 1, out), -EINVAL);
	T_CHECK(has(m.err, "attribute 'axis' is 5, outside [-4, 3]"), "");
	T_CHECK(has(m.err, "node 0 'n' (Softmax)"), "");
	mini_free(&m, out, 1);
}

static void a_shape_input_must_be_constant(void)
{
	static const double shape[2] = { 3, 2 };
	int64_t two = 2;
	struct ox_value *out[1];
	struct mini m;

	mini_init(&m, "Reshape", 13);
	mini_in(&m, OX_FLOAT, 2, d2x3, NULL, 0, 0);
	mini_in(&m, OX_INT64, 1, &two, shape, 2, 0);
	T_EQ(mini_run(&m, 1, out), -EINVAL);
	T_CHECK(has(m.err, "must be a constant"), "");
	T_EQ(m.c.need_const, 1);
	mini_free(&m, out, 1);

	mini_init(&m, "Reshape", 13);
	mini_in(&m, OX_FLOAT, 2, d2x3, NULL, 0, 0);
	mini_in(&m, OX_INT64, 1, &two, shape, 2, 1);
	T_EQ(mini_run(&m, 1, out), 0);
	T_EQ(out[0]->rank, 2);
	T_EQ(out[0]->dims[0], 3);
	mini_free(&m, out, 1);
}

static void gather_index_out_of_range_fails_the_run(void)
{
	static const double idx[2] = { 1, 7 };
	int64_t two = 2, three = 3;
	struct mini m;

	mini_init(&m, "Gather", 13);
	mini_in(&m, OX_FLOAT, 1, &three, NULL, 0, 0);
	mini_in(&m, OX_INT64, 1, &two, idx, 2, 0);
	expect_fail(&m, -EINVAL, "indices[1] is 7, outside [-3, 2]");
}

/* Runs a binary op over int32 [4] inputs, checks the int results. */
static void int_binary(const char *op, const double *a, const double *b,
		       const int64_t *want, const char *attr, int64_t av)
{
	struct ox_value *out[1];
	struct mini m;
	int i;

	mini_init(&m, op, 13);
	mini_in(&m, OX_INT32, 1, d1, a, 4, 0);
	mini_in(&m, OX_INT32, 1, d1, b, 4, 0);
	if (attr)
		mini_attr_i(&m, attr, av);
	T_EQ(mini_run(&m, 1, out), 0);
	for (i = 0; out[0] && i < 4; i++)
		T_CHECK(ane__ox_get_i(out[0], (size_t)i) == want[i],
			"%s: element %d is %lld, expected %lld", op, i,
			(long long)ane__ox_get_i(out[0], (size_t)i), (long long)want[i]);
	mini_free(&m, out, 1);
}

static void integer_div_truncates_and_mod_follows_fmod(void)
{
	static const double a[4] = { -7, 7, 5, -2147483648.0 }, b[4] = { 2, -2, 0, -1 };
	static const double ma[4] = { -7, 7, -7, 7 }, mb[4] = { 3, -3, -3, 3 };
	static const int64_t div[4] = { -3, -3, 0, INT32_MIN };
	static const int64_t mod[4] = { 2, -2, -1, 1 }, fmod[4] = { -1, 1, -1, 1 };

	int_binary("Div", a, b, div, NULL, 0);
	int_binary("Mod", ma, mb, mod, NULL, 0);
	int_binary("Mod", ma, mb, fmod, "fmod", 1);
}

static void float_unary(const char *op, const double *x, const double *want, int cnt)
{
	int64_t d = cnt;
	struct ox_value *out[1];
	struct mini m;
	int i;

	mini_init(&m, op, 13);
	mini_in(&m, OX_FLOAT, 1, &d, x, (size_t)cnt, 0);
	T_EQ(mini_run(&m, 1, out), 0);
	for (i = 0; out[0] && i < cnt; i++) {
		double g = ane__ox_get_f(out[0], (size_t)i);

		T_CHECK(g == want[i] || (g != g && want[i] != want[i]),
			"%s: element %d is %g, expected %g", op, i, g, want[i]);
	}
	mini_free(&m, out, 1);
}

static void round_is_half_to_even(void)
{
	static const double x[6] = { 0.5, 1.5, 2.5, -0.5, -1.5, 2.4 };
	static const double y[6] = { 0, 2, 2, 0, -2, 2 };

	float_unary("Round", x, y, 6);
}

static void max_and_min_propagate_nan(void)
{
	static const double a[4] = { NAN, 1, 2, -1 }, b[4] = { 0, NAN, 1, 3 };
	struct ox_value *out[1];
	struct mini m;

	mini_init(&m, "Max", 13);
	mini_in(&m, OX_FLOAT, 1, d1, a, 4, 0);
	mini_in(&m, OX_FLOAT, 1, d1, b, 4, 0);
	T_EQ(mini_run(&m, 1, out), 0);
	T_CHECK(out[0] && isnan(ane__ox_get_f(out[0], 0)) && isnan(ane__ox_get_f(out[0], 1)) &&
		ane__ox_get_f(out[0], 2) == 2 && ane__ox_get_f(out[0], 3) == 3, "Max");
	mini_free(&m, out, 1);
}

static void bitshift_past_the_width_is_zero(void)
{
	static const double a[4] = { 1, 255, 16, 3 }, b[4] = { 9, 1, 2, 70 };
	struct ox_value *out[1];
	struct mini m;

	mini_init(&m, "BitShift", 13);
	mini_in(&m, OX_UINT8, 1, d1, a, 4, 0);
	mini_in(&m, OX_UINT8, 1, d1, b, 4, 0);
	mini_attr_s(&m, "direction", "LEFT");
	T_EQ(mini_run(&m, 1, out), 0);
	T_CHECK(out[0] && ane__ox_get_i(out[0], 0) == 0 && ane__ox_get_i(out[0], 1) == 254 &&
		ane__ox_get_i(out[0], 2) == 64 && ane__ox_get_i(out[0], 3) == 3 - 3, "LEFT");
	mini_free(&m, out, 1);

	mini_init(&m, "BitShift", 13);
	mini_in(&m, OX_UINT8, 1, d1, a, 4, 0);
	mini_in(&m, OX_UINT8, 1, d1, b, 4, 0);
	mini_attr_s(&m, "direction", "UP");
	expect_fail(&m, -EINVAL, "attribute 'direction' is 'UP'");
}

static void legacy_broadcast_places_b_at_axis(void)
{
	static const int64_t da[3] = { 2, 3, 2 };
	static const double b[3] = { 10, 20, 30 };
	static const double one[1] = { 1 };
	int64_t three = 3;
	struct ox_value *out[1];
	struct mini m;

	mini_init(&m, "Add", 6);
	mini_in(&m, OX_FLOAT, 3, da, one, 1, 0);
	mini_in(&m, OX_FLOAT, 1, &three, b, 3, 0);
	mini_attr_i(&m, "broadcast", 1);
	mini_attr_i(&m, "axis", 1);
	T_EQ(mini_run(&m, 1, out), 0);
	T_CHECK(out[0] && ane__ox_get_f(out[0], 0) == 11 && ane__ox_get_f(out[0], 3) == 21 &&
		ane__ox_get_f(out[0], 11) == 31, "axis 1");
	mini_free(&m, out, 1);

	mini_init(&m, "Add", 6);
	mini_in(&m, OX_FLOAT, 3, da, one, 1, 0);
	mini_in(&m, OX_FLOAT, 1, &three, b, 3, 0);
	expect_fail(&m, -EINVAL, "attribute 'broadcast' is 0");
}

static void softmax_before_13_is_over_the_flattened_tail(void)
{
	static const int64_t d[3] = { 1, 2, 2 };
	static const double x[4] = { 0, 0, 0, 0 };
	struct ox_value *out[1];
	struct mini m;
	int i;

	mini_init(&m, "Softmax", 11);
	mini_in(&m, OX_FLOAT, 3, d, x, 4, 0);
	T_EQ(mini_run(&m, 1, out), 0);
	for (i = 0; out[0] && i < 4; i++)
		T_CHECK(fabs(ane__ox_get_f(out[0], (size_t)i) - 0.25) < 1e-7, "opset 11");
	mini_free(&m, out, 1);

	mini_init(&m, "Softmax", 13);
	mini_in(&m, OX_FLOAT, 3, d, x, 4, 0);
	T_EQ(mini_run(&m, 1, out), 0);
	for (i = 0; out[0] && i < 4; i++)
		T_CHECK(fabs(ane__ox_get_f(out[0], (size_t)i) - 0.5) < 1e-7, "opset 13");
	mini_free(&m, out, 1);
}

static void squeeze_of_a_dim_not_one_is_refused(void)
{
	static const int64_t ax[1] = { 1 };
	struct mini m;

	mini_init(&m, "Squeeze", 11);
	mini_in(&m, OX_FLOAT, 2, d2x3, NULL, 0, 0);
	mini_attr_ints(&m, "axes", ax, 1);
	expect_fail(&m, -EINVAL, "axes names dim 1, which is 3, not 1");
}

static void data_dependent_shapes_are_refused(void)
{
	static const double cond[2] = { 1, 0 };
	int64_t two = 2;
	struct ox_value *out[1];
	struct mini m;

	mini_init(&m, "Compress", 13);
	mini_in(&m, OX_FLOAT, 2, d2x3, NULL, 0, 0);
	mini_in(&m, OX_BOOL, 1, &two, cond, 2, 0);
	mini_attr_i(&m, "axis", 0);
	expect_fail(&m, -EOPNOTSUPP, "the output's shape would depend on its values");

	mini_init(&m, "Compress", 13);
	mini_in(&m, OX_FLOAT, 2, d2x3, cond, 2, 0);
	mini_in(&m, OX_BOOL, 1, &two, cond, 2, 1);
	mini_attr_i(&m, "axis", 0);
	T_EQ(mini_run(&m, 1, out), 0);
	T_CHECK(out[0] && out[0]->dims[0] == 1 && out[0]->dims[1] == 3, "constant");
	mini_free(&m, out, 1);
}

static void huge_shapes_overflow_or_run_out_of_memory(void)
{
	static const double huge[3] = { 1 << 30, 1 << 30, 1 << 30 };
	int64_t three = 3;
	struct ox_value *out[1];
	struct mini m;

	mini_init(&m, "ConstantOfShape", 13);
	mini_in(&m, OX_INT64, 1, &three, huge, 3, 1);
	T_EQ(mini_run(&m, 1, out), -EOVERFLOW);
	mini_free(&m, out, 1);

	mini_init(&m, "ConstantOfShape", 13);
	mini_in(&m, OX_INT64, 1, &three, huge, 3, 1);
	ane__ox_set_i(m.val[0], 0, 1 << 20);
	ane__ox_set_i(m.val[0], 1, 1 << 20);
	ane__ox_set_i(m.val[0], 2, 64);
	T_EQ(mini_run(&m, 1, out), -ENOMEM);	/* 2^66 bytes */
	mini_free(&m, out, 1);
}

static void cast_truncates_to_bfloat16_and_toward_zero(void)
{
	static const double x[4] = { 3.7, -3.7, NAN, 1.00390625 };
	struct ox_value *out[1];
	struct mini m;

	mini_init(&m, "Cast", 13);
	mini_in(&m, OX_FLOAT, 1, d1, x, 4, 0);
	mini_attr_i(&m, "to", OX_INT8);
	T_EQ(mini_run(&m, 1, out), 0);
	T_CHECK(out[0] && ane__ox_get_i(out[0], 0) == 3 && ane__ox_get_i(out[0], 1) == -3,
		"int8");
	mini_free(&m, out, 1);

	mini_init(&m, "Cast", 13);
	mini_in(&m, OX_FLOAT, 1, d1, x, 4, 0);
	mini_attr_i(&m, "to", OX_BFLOAT16);
	T_EQ(mini_run(&m, 1, out), 0);
	T_CHECK(out[0] && ane__ox_get_f(out[0], 3) == 1.0, "bfloat16 truncates");
	mini_free(&m, out, 1);

	mini_init(&m, "Cast", 13);
	mini_in(&m, OX_FLOAT, 1, d1, x, 4, 0);
	mini_attr_i(&m, "to", OX_STRING);
	T_EQ(mini_run(&m, 1, out), -EOPNOTSUPP);
	mini_free(&m, out, 1);
}

/* ------------------------------------------------------------ fuzz */

static const char *const all_ops[] = {
	"Identity", "Abs", "Neg", "Sign", "Relu", "Shrink", "Sqrt", "Exp", "Log",
	"Reciprocal", "Ceil", "Floor", "Round", "Sigmoid", "Tanh", "Erf", "Sin",
	"Cos", "Softplus", "HardSwish", "Elu", "LeakyRelu", "Celu", "Selu",
	"HardSigmoid", "IsNaN", "IsInf", "Not", "Clip", "Cast", "CastLike", "Add",
	"Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "And", "Or", "Xor", "Equal",
	"Greater", "Less", "GreaterOrEqual", "LessOrEqual", "PRelu", "Max", "Min",
	"Sum", "Mean", "Where", "Constant", "ConstantOfShape", "Range", "EyeLike",
	"Dropout", "HannWindow", "Shape", "Size", "Reshape", "Flatten", "Squeeze",
	"Unsqueeze", "Transpose", "Concat", "Split", "Expand", "Tile", "Slice",
	"Pad", "DepthToSpace", "SpaceToDepth", "Trilu", "ReverseSequence",
	"Gather", "GatherElements", "ScatterElements", "Scatter", "GatherND",
	"ScatterND", "OneHot", "Compress", "NonZero", "Unique", "ReduceSum",
	"ReduceMean", "ReduceMax", "ReduceProd", "ReduceLogSumExp", "ArgMax",
	"Softmax", "LogSoftmax", "Hardmax", "CumSum", "TopK", "LpNormalization",
	"Conv", "ConvInteger", "QLinearConv", "ConvTranspose", "MaxPool",
	"AveragePool", "LpPool", "GlobalAveragePool", "MaxUnpool",
	"BatchNormalization", "InstanceNormalization",
	"MeanVarianceNormalization", "LayerNormalization", "LRN",
	"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "MatMul",
	"MatMulInteger", "QLinearMatMul", "Gemm", "Det", "Einsum",
	"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "Resize",
	"Upsample", "GridSample", "RoiAlign", "RNN", "GRU", "LSTM",
};

/* Random attributes of the names ops take, with small values. */
static void fuzz_attrs(struct mini *m)
{
	static const char *const ints[] = { "axis", "keepdims", "group", "k", "to",
		"blocksize", "upper", "fmod", "batch_dims", "hidden_size", "size",
		"exclusive", "reverse", "p", "transA", "ceil_mode", "allowzero" };
	static const char *const lists[] = { "axes", "perm", "kernel_shape",
		"strides", "pads", "dilations", "split", "starts", "ends",
		"output_shape", "output_padding", "shape" };
	static const char *const strs[][2] = { { "mode", "reflect" },
		{ "direction", "LEFT" }, { "auto_pad", "SAME_UPPER" },
		{ "reduction", "mean" }, { "equation", "ij,jk->ik" },
		{ "mode", "linear" }, { "direction", "bidirectional" } };
	int k, cnt = (int)rnd(4);

	for (k = 0; k < cnt; k++) {
		unsigned int what = rnd(3);

		if (what == 0) {
			mini_attr_i(m, ints[rnd(sizeof(ints) / sizeof(ints[0]))],
				    (int64_t)rnd(9) - 4);
		} else if (what == 1) {
			int64_t v[8];
			size_t n = rnd(5), i;

			for (i = 0; i < n; i++)
				v[i] = (int64_t)rnd(7) - 2;
			mini_attr_ints(m, lists[rnd(sizeof(lists) / sizeof(lists[0]))], v, n);
		} else {
			unsigned int s = rnd(sizeof(strs) / sizeof(strs[0]));

			mini_attr_s(m, strs[s][0], strs[s][1]);
		}
	}
}

static void fuzz_one(const char *op)
{
	static const int dts[] = { OX_FLOAT, OX_INT64, OX_INT32, OX_UINT8, OX_BOOL,
				   OX_DOUBLE, OX_FLOAT16, OX_INT8 };
	static const double vals[6] = { 1, -2, 3, 0, 2, 0.5 };
	struct ox_value *out[3] = { NULL, NULL, NULL };
	struct mini m;
	int k, n_in = (int)rnd(5), r;

	mini_init(&m, op, 7 + (int)rnd(11));
	for (k = 0; k < n_in; k++) {
		int64_t dims[4];
		int rank = (int)rnd(5), d;

		for (d = 0; d < rank; d++)
			dims[d] = 1 + (int64_t)rnd(3);
		if (rnd(8) == 0)
			mini_skip_in(&m);
		else
			mini_in(&m, dts[rnd(8)], rank, dims, vals + rnd(3), 3, (int)rnd(2));
	}
	fuzz_attrs(&m);
	if (getenv("ONNX_OPS_FUZZ_TRACE")) {
		printf("# %s opset %lld:", op, (long long)m.g.opset);
		for (k = 0; k < m.n.n_in; k++) {
			struct ox_tensor *t = m.n.in[k] < 0 ? NULL : &m.t[m.n.in[k]];
			int d;

			printf(" %s%s[", t ? ane__ox_dtype_name(t->dtype) : "-",
			       t && t->konst ? "(c)" : "");
			for (d = 0; t && d < t->rank; d++)
				printf("%s%lld", d ? "," : "", (long long)t->dims[d]);
			printf("]");
		}
		for (k = 0; k < m.n.n_attrs; k++)
			printf(" %s", m.a[k].name);
		printf("\n");
		fflush(stdout);
	}
	r = mini_run(&m, 1 + (int)rnd(3), out);
	T_CHECK(r <= 0 && (!r || m.err[0]), "%s returned %d without a message", op, r);
	mini_free(&m, out, 3);
}

static void no_op_crashes_on_random_nodes(void)
{
	size_t i;
	int t;

	for (i = 0; i < sizeof(all_ops) / sizeof(all_ops[0]); i++) {
		T_CHECK(ane__ox_find_op(all_ops[i]), "%s is not in the table", all_ops[i]);
		for (t = 0; t < 400; t++)
			fuzz_one(all_ops[i]);
	}
}

#define TEST_DATA "/usr/share/libonnx-testdata/data"

/* Every model of Debian's ONNX test data that is installed passes or is refused. */
static void the_test_data_models_pass(void)
{
	static const char *const dirs[] = { "node", "pytorch-converted",
					    "pytorch-operator", "simple" };
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", TEST_DATA, dirs[i]);
		run_models(path);
	}
	printf("# test data: %u models passed, %u failed, %u refused\n", m_pass,
	       m_fail, m_skip);
	T_EQ(m_fail, 0);
}

static void run_unit_cases(void)
{
	T_RUN(axis_out_of_range_is_named);
	T_RUN(a_shape_input_must_be_constant);
	T_RUN(gather_index_out_of_range_fails_the_run);
	T_RUN(integer_div_truncates_and_mod_follows_fmod);
	T_RUN(round_is_half_to_even);
	T_RUN(max_and_min_propagate_nan);
	T_RUN(bitshift_past_the_width_is_zero);
	T_RUN(legacy_broadcast_places_b_at_axis);
	T_RUN(softmax_before_13_is_over_the_flattened_tail);
	T_RUN(squeeze_of_a_dim_not_one_is_refused);
	T_RUN(data_dependent_shapes_are_refused);
	T_RUN(huge_shapes_overflow_or_run_out_of_memory);
	T_RUN(cast_truncates_to_bfloat16_and_toward_zero);
	T_RUN(no_op_crashes_on_random_nodes);
	if (!access(TEST_DATA, R_OK))
		T_RUN(the_test_data_models_pass);
	else
		printf("# %s is not installed (libonnx-testdata): its models not run\n",
		       TEST_DATA);
}

int main(int argc, char **argv)
{
	const char *seed = getenv("ONNX_OPS_FUZZ_SEED");
	int i;

	if (seed)
		rng = strtoull(seed, NULL, 0) | 1;

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
