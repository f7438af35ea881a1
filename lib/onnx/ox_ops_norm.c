// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: normalizations -- BatchNormalization (in
 * inference: the running statistics; opset < 7's 'spatial'),
 * InstanceNormalization, LayerNormalization, LRN and
 * MeanVarianceNormalization.  Statistics in double.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

/* ------------------------------------------------------------ BatchNormalization */

static int bn_params(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_tensor *x, int *spatial)
{
	int64_t sp = 1, v;
	float f;
	int i, err = ane__ox_a_float(c, n, "epsilon", 1e-5f, &f) ?:
		     ane__ox_a_float(c, n, "momentum", 0.9f, &f);

	if (!err && OX_OPSET(c) < 7)
		err = ane__ox_a_int(c, n, "spatial", 1, 0, 1, &sp) ?:
		      ane__ox_a_int(c, n, "is_test", 0, 0, 1, &v);
	if (!err && OX_OPSET(c) >= 14) {
		err = ane__ox_a_int(c, n, "training_mode", 0, 0, 1, &v);
		if (!err && v)
			err = ane__ox_fail(c, n, EOPNOTSUPP,
					   "attribute 'training_mode' is 1: training is not supported");
	}
	*spatial = (int)sp;
	for (i = 1; !err && i < 5; i++) {
		struct ox_tensor *t = ane__ox_in(c, n, i);
		int r = sp ? 1 : x->rank - 1;

		err = ane__ox_chk_in(c, n, i, "scale/B/mean/var", OXM_FLOAT, r, r);
		if (!err && memcmp(t->dims, x->dims + 1, sizeof(int64_t) * (size_t)r))
			err = ane__ox_fail(c, n, EINVAL,
					   "input %d '%s' is not of X's %s shape", i, t->name,
					   sp ? "channel" : "per-example");
	}
	return err;
}

static int infer_bn(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int spatial, i;
	int err = ane__ox_n_in(c, n, 5, 5) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 2, OX_MAX_RANK) ?:
		  bn_params(c, n, x, &spatial) ?:
		  ane__ox_out_like(c, n, 0, 0);

	/* The other outputs, when listed: the running mean and variance. */
	for (i = 1; !err && i < n->n_out; i++)
		err = i > 4 ? ane__ox_fail(c, n, EINVAL, "%d outputs", n->n_out) :
		      ane__ox_out_like(c, n, i, i % 2 ? 3 : 4);
	return err;
}

static int run_bn(struct ox_ctx *c, const struct ox_node *n,
		  const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	double eps = ane__ox_attr_f(n, "epsilon", 1e-5f);
	int spatial = OX_OPSET(c) >= 7 || ane__ox_attr_i(n, "spatial", 1);
	size_t inner = (size_t)ane__ox_prod(x->dims, spatial ? 2 : x->rank, x->rank);
	size_t per = in[1]->count, i;

	for (i = 0; i < x->count; i++) {
		size_t k = (i / inner) % per;
		double s = ane__ox_get_f(in[1], k), b = ane__ox_get_f(in[2], k);
		double m = ane__ox_get_f(in[3], k), v = ane__ox_get_f(in[4], k);

		ane__ox_set_f(out[0], i, s * (ane__ox_get_f(x, i) - m) / sqrt(v + eps) + b);
	}
	for (i = 1; i < (size_t)n->n_out; i++)
		if (out[i])
			ane__ox_copy_all(out[i], in[i % 2 ? 3 : 4]);
	return 0;
}

/* ------------------------------------------------------------ InstanceNormalization, MVN */

/*
 * Normalizes @x in place over the axes in @mask: (x - mean) / (sqrt(var
 * + @eps) + @add).  @mean/@inv (NULL or one per group) get the statistics.
 */
static int normalize(double *x, int rank, const int64_t *dims,
		     unsigned int mask, double eps, double add, double *mean,
		     double *inv)
{
	int64_t kd[OX_MAX_RANK], st[OX_MAX_RANK], os[OX_MAX_RANK];
	size_t total = (size_t)ane__ox_prod(dims, 0, rank), groups, i;
	double *s, *q, cnt;
	struct ox_it it;
	int k;

	for (k = 0; k < rank; k++)
		kd[k] = mask & (1u << k) ? 1 : dims[k];
	groups = (size_t)ane__ox_prod(kd, 0, rank);
	ane__ox_strides(rank, kd, os);
	for (k = 0; k < rank; k++)
		st[k] = mask & (1u << k) ? 0 : os[k];
	s = calloc(groups + 1, sizeof(*s));
	q = calloc(groups + 1, sizeof(*q));
	if (!s || !q) {
		free(s);
		free(q);
		return -ENOMEM;
	}
	cnt = groups ? (double)total / (double)groups : 1;
	ane__ox_it_init(&it, rank, dims);
	ane__ox_it_add_strides(&it, st);
	for (i = 0; i < total; i++, ane__ox_it_next(&it))
		s[it.off[0]] += x[i];
	for (i = 0; i < groups; i++)
		s[i] /= cnt;
	for (i = 0; i < total; i++, ane__ox_it_next(&it))
		q[it.off[0]] += (x[i] - s[it.off[0]]) * (x[i] - s[it.off[0]]);
	for (i = 0; i < groups; i++) {
		q[i] = 1.0 / (sqrt(q[i] / cnt + eps) + add);
		if (mean)
			mean[i] = s[i];
		if (inv)
			inv[i] = q[i];
	}
	for (i = 0; i < total; i++, ane__ox_it_next(&it))
		x[i] = (x[i] - s[it.off[0]]) * q[it.off[0]];
	free(s);
	free(q);
	return 0;
}

static int infer_in(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	float f;
	int i, err = ane__ox_n_in(c, n, 3, 3) ?:
		     ane__ox_chk_in(c, n, 0, "input", OXM_FLOAT, 3, OX_MAX_RANK) ?:
		     ane__ox_a_float(c, n, "epsilon", 1e-5f, &f);

	for (i = 1; !err && i < 3; i++) {
		err = ane__ox_chk_in(c, n, i, i == 1 ? "scale" : "B", OXM_FLOAT, 1, 1);
		if (!err && ane__ox_in(c, n, i)->dims[0] != x->dims[1])
			err = ane__ox_fail(c, n, EINVAL,
					   "input %d has %lld values for %lld channels", i,
					   (long long)ane__ox_in(c, n, i)->dims[0],
					   (long long)x->dims[1]);
	}
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_in(struct ox_ctx *c, const struct ox_node *n,
		  const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *v = in[0];
	double *x = ane__ox_load_f(v);
	size_t inner = (size_t)ane__ox_prod(v->dims, 2, v->rank), i;
	unsigned int mask = ((1u << v->rank) - 1) & ~3u;

	if (!x || normalize(x, v->rank, v->dims, mask,
			    ane__ox_attr_f(n, "epsilon", 1e-5f), 0, NULL, NULL)) {
		free(x);
		return ane__ox_nomem(c, n);
	}
	for (i = 0; i < v->count; i++) {
		size_t ch = (i / inner) % (size_t)v->dims[1];

		x[i] = x[i] * ane__ox_get_f(in[1], ch) + ane__ox_get_f(in[2], ch);
	}
	ane__ox_store_f(out[0], x);
	free(x);
	return 0;
}

static int mvn_mask(struct ox_ctx *c, const struct ox_node *n, int rank,
		    unsigned int *mask)
{
	static const int64_t def[3] = { 0, 2, 3 };
	const int64_t *a;
	size_t cnt;
	int err = ane__ox_a_ints(c, n, "axes", &a, &cnt);

	if (err)
		return err;
	return ane__ox_axes_mask(c, n, "attribute 'axes'", a ? a : def,
				 a ? cnt : 3, rank, mask);
}

static int infer_mvn(struct ox_ctx *c, const struct ox_node *n)
{
	unsigned int mask;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 1, OX_MAX_RANK) ?:
		  mvn_mask(c, n, ane__ox_in(c, n, 0)->rank, &mask);

	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_mvn(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	double *x = ane__ox_load_f(in[0]);
	unsigned int mask;
	int err = mvn_mask(c, n, in[0]->rank, &mask);

	if (!err && (!x || normalize(x, in[0]->rank, in[0]->dims, mask, 0, 1e-9,
				     NULL, NULL)))
		err = ane__ox_nomem(c, n);
	if (!err)
		ane__ox_store_f(out[0], x);
	free(x);
	return err;
}

/* ------------------------------------------------------------ LayerNormalization */

static int infer_ln(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t st, dims[OX_MAX_RANK];
	int axis, i, k, err = ane__ox_n_in(c, n, 2, 3) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 1, OX_MAX_RANK) ?:
		  ane__ox_axis_attr(c, n, "axis", -1, x->rank, &axis) ?:
		  ane__ox_a_int(c, n, "stash_type", 1, 1, 1, &st);
	float f;

	err = err ?: ane__ox_a_float(c, n, "epsilon", 1e-5f, &f);
	for (i = 1; !err && i < 3; i++) {
		struct ox_tensor *t = ane__ox_in(c, n, i);

		if (!t)
			continue;
		err = ane__ox_chk_in(c, n, i, i == 1 ? "Scale" : "B", OXM_FLOAT, 0,
				     x->rank - axis);
		for (k = 0; !err && k < t->rank; k++)
			if (t->dims[k] != 1 && t->dims[k] != x->dims[x->rank - t->rank + k])
				err = ane__ox_fail(c, n, EINVAL,
						   "input %d '%s' does not broadcast to X's normalized dims",
						   i, t->name);
	}
	if (err)
		return err;
	memcpy(dims, x->dims, sizeof(dims));
	for (k = axis; k < x->rank; k++)
		dims[k] = 1;
	return ane__ox_out_like(c, n, 0, 0) ?:
	       ane__ox_set_out(c, n, 1, OX_FLOAT, x->rank, dims) ?:
	       ane__ox_set_out(c, n, 2, OX_FLOAT, x->rank, dims);
}

static int run_ln(struct ox_ctx *c, const struct ox_node *n,
		  const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *v = in[0], *b = n->n_in > 2 ? in[2] : NULL;
	size_t groups = out[1] ? out[1]->count : out[2] ? out[2]->count : 0, i;
	double *x = ane__ox_load_f(v);
	double *mean = calloc(v->count + 1, sizeof(double));
	double *inv = calloc(v->count + 1, sizeof(double));
	int axis = 0, err = ane__ox_axis_attr(c, n, "axis", -1, v->rank, &axis);
	unsigned int mask = ((1u << v->rank) - 1) & ~((1u << axis) - 1);
	struct ox_it it;

	if (!err && (!x || !mean || !inv ||
		     normalize(x, v->rank, v->dims, mask,
			       ane__ox_attr_f(n, "epsilon", 1e-5f), 0, mean, inv)))
		err = ane__ox_nomem(c, n);
	ane__ox_it_init(&it, v->rank, v->dims);
	ane__ox_it_add(&it, in[1]);
	if (b)
		ane__ox_it_add(&it, b);
	for (i = 0; !err && i < v->count; i++, ane__ox_it_next(&it))
		x[i] = x[i] * ane__ox_get_f(in[1], it.off[0]) +
		       (b ? ane__ox_get_f(b, it.off[1]) : 0.0);
	if (!err)
		ane__ox_store_f(out[0], x);
	for (i = 0; !err && i < groups; i++) {
		if (n->n_out > 1 && out[1])
			ane__ox_set_f(out[1], i, mean[i]);
		if (n->n_out > 2 && out[2])
			ane__ox_set_f(out[2], i, inv[i]);
	}
	free(x);
	free(mean);
	free(inv);
	return err;
}

/* ------------------------------------------------------------ LRN */

static int infer_lrn(struct ox_ctx *c, const struct ox_node *n)
{
	int64_t size;
	float f;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 3, OX_MAX_RANK) ?:
		  ane__ox_a_int(c, n, "size", 0, 1, 1 << 20, &size) ?:
		  ane__ox_a_float(c, n, "alpha", 1e-4f, &f) ?:
		  ane__ox_a_float(c, n, "beta", 0.75f, &f) ?:
		  ane__ox_a_float(c, n, "bias", 1.0f, &f);

	if (!err && !ane__ox_attr(n, "size"))
		err = ane__ox_fail(c, n, EINVAL, "attribute 'size' is missing");
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_lrn(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *v = in[0];
	int64_t size = ane__ox_attr_i(n, "size", 1), C = v->dims[1];
	int64_t inner = ane__ox_prod(v->dims, 2, v->rank), i;
	double alpha = ane__ox_attr_f(n, "alpha", 1e-4f);
	double beta = ane__ox_attr_f(n, "beta", 0.75f);
	double bias = ane__ox_attr_f(n, "bias", 1.0f);
	double *x = ane__ox_load_f(v), *y = malloc(sizeof(double) * (v->count + 1));

	if (!x || !y) {
		free(x);
		free(y);
		return ane__ox_nomem(c, n);
	}
	for (i = 0; i < (int64_t)v->count; i++) {
		int64_t ch = (i / inner) % C, lo = ch - (size - 1) / 2;
		int64_t hi = ch + size / 2, j;
		double s = 0;

		for (j = lo < 0 ? 0 : lo; j <= hi && j < C; j++) {
			double e = x[i + (j - ch) * inner];

			s += e * e;
		}
		y[i] = x[i] / pow(bias + alpha / (double)size * s, beta);
	}
	ane__ox_store_f(out[0], y);
	free(x);
	free(y);
	return 0;
}

static const struct ox_op ops[] = {
	{ "BatchNormalization", infer_bn, run_bn },
	{ "InstanceNormalization", infer_in, run_in },
	{ "MeanVarianceNormalization", infer_mvn, run_mvn },
	{ "LayerNormalization", infer_ln, run_ln },
	{ "LRN", infer_lrn, run_lrn },
};

OX_TABLE(ane__ox_ops_norm, ops);
