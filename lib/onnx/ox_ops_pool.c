// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: pools -- MaxPool (with its Indices output),
 * AveragePool, LpPool, their Global forms, and MaxUnpool -- over the
 * window geometry of ox_ops_conv.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

enum { P_MAX, P_AVG, P_LP };

static int pool_kind(const struct ox_node *n)
{
	const char *s = n->op_type;

	if (!strncmp(s, "Global", 6))
		s += 6;
	return !strcmp(s, "MaxPool") ? P_MAX : !strcmp(s, "AveragePool") ? P_AVG : P_LP;
}

static int lp_p(struct ox_ctx *c, const struct ox_node *n, double *p)
{
	const struct ox_attr *a = ane__ox_attr(n, "p");

	*p = 2;
	if (!a)
		return 0;
	*p = a->type == OX_ATTR_FLOAT ? a->f : (double)a->i;
	if ((a->type != OX_ATTR_FLOAT && a->type != OX_ATTR_INT) || !(*p > 0))
		return ane__ox_fail(c, n, EINVAL, "attribute 'p' must be a positive number");
	return 0;
}

/* The geometry; the Global pools' window is the whole input. */
static int pool_geom(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_tensor *x, struct ox_geom *g)
{
	int k;

	if (strncmp(n->op_type, "Global", 6))
		return ane__ox_geom(c, n, x, NULL, OX_OPSET(c) >= 10, g);
	memset(g, 0, sizeof(*g));
	g->s = x->rank - 2;
	for (k = 0; k < g->s; k++) {
		g->in[k] = g->k[k] = x->dims[k + 2];
		g->st[k] = g->dil[k] = g->out[k] = 1;
	}
	return 0;
}

static int infer_pool(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int kind = pool_kind(n);
	unsigned int mask = kind == P_MAX && OX_OPSET(c) >= 12 ?
			    OXM_FLOAT | OXM(OX_INT8) | OXM(OX_UINT8) : OXM_FLOAT;
	int64_t dims[OX_MAX_RANK], v;
	struct ox_geom g;
	double p;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "X", mask, 3, OX_MAX_RANK) ?:
		  pool_geom(c, n, x, &g);

	if (!err && kind == P_AVG)
		err = ane__ox_a_int(c, n, "count_include_pad", 0, 0, 1, &v);
	if (!err && kind == P_MAX)
		err = ane__ox_a_int(c, n, "storage_order", 0, 0, 1, &v);
	if (!err && kind == P_LP)
		err = lp_p(c, n, &p);
	if (!err && n->n_out > (kind == P_MAX && OX_OPSET(c) >= 8 ? 2 : 1))
		err = ane__ox_fail(c, n, EINVAL, "%d outputs", n->n_out);
	if (err)
		return err;
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	memcpy(dims + 2, g.out, sizeof(int64_t) * (size_t)g.s);
	return ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims) ?:
	       ane__ox_set_out(c, n, 1, OX_INT64, x->rank, dims);
}

/* Positions of the padded input the window at @p covers (count_include_pad). */
static double padded_count(const struct ox_geom *g, size_t p, const int64_t *out)
{
	double cnt = 1;
	int d;

	for (d = g->s - 1; d >= 0; d--) {
		int64_t o = (int64_t)p % out[d], k, in = 0;

		p /= (size_t)out[d];
		for (k = 0; k < g->k[d]; k++) {
			int64_t v = o * g->st[d] - g->pb[d] + k * g->dil[d];

			in += v >= -g->pb[d] && v < g->in[d] + g->pe[d];
		}
		cnt *= (double)in;
	}
	return cnt;
}

/* A flat spatial position, row-major, as column-major (storage_order 1). */
static int64_t col_major(const struct ox_geom *g, int64_t pos)
{
	int64_t r = 0, m = 1;
	int d;

	for (d = 0; d < g->s; d++) {
		int64_t below = ane__ox_prod(g->in, d + 1, g->s);

		r += (pos / below) % g->in[d] * m;
		m *= g->in[d];
	}
	return r;
}

struct pool_run {
	const struct ox_geom *g;
	const int64_t *tab;
	size_t P, K, XP;
	int kind, incl, order;
	double p;
};

static void pool_plane(const struct pool_run *r, const double *x, double *y,
		       struct ox_value *ind, size_t plane)
{
	size_t p, q;

	for (p = 0; p < r->P; p++) {
		const int64_t *t = r->tab + p * r->K;
		double acc = r->kind == P_MAX ? -INFINITY : 0, cnt = 0;
		int64_t arg = -1;

		for (q = 0; q < r->K; q++) {
			double v;

			if (t[q] < 0)
				continue;
			v = x[t[q]];
			cnt++;
			if (r->kind == P_MAX && (v > acc || arg < 0)) {
				acc = v;
				arg = t[q];
			} else if (r->kind == P_AVG) {
				acc += v;
			} else if (r->kind == P_LP) {
				acc += pow(fabs(v), r->p);
			}
		}
		if (r->kind == P_AVG)
			acc /= r->incl ? padded_count(r->g, p, r->g->out) : cnt ? cnt : 1;
		else if (r->kind == P_LP)
			acc = pow(acc, 1.0 / r->p);
		y[p] = acc;
		if (ind && arg >= 0)
			ane__ox_set_i(ind, plane * r->P + p, (int64_t)(plane * r->XP) +
				      (r->order ? col_major(r->g, arg) : arg));
	}
}

static int run_pool(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	struct ox_tensor xt = { .rank = in[0]->rank };
	struct pool_run r = { .kind = pool_kind(n) };
	struct ox_geom g;
	double *x = NULL, *y = NULL;
	int64_t *tab = NULL;
	size_t planes, pl;
	int err;

	memcpy(xt.dims, in[0]->dims, sizeof(xt.dims));
	err = pool_geom(c, n, &xt, &g) ?: (r.kind == P_LP ? lp_p(c, n, &r.p) : 0);
	if (err)
		return err;
	r.g = &g;
	r.incl = (int)ane__ox_attr_i(n, "count_include_pad", 0);
	r.order = (int)ane__ox_attr_i(n, "storage_order", 0);
	r.XP = (size_t)ane__ox_prod(in[0]->dims, 2, in[0]->rank);
	tab = ane__ox_win_table(&g, g.out, g.in, &r.P, &r.K);
	x = ane__ox_load_f(in[0]);
	y = malloc(sizeof(double) * (out[0]->count + 1));
	if (!tab || !x || !y) {
		err = ane__ox_nomem(c, n);
		goto out;
	}
	r.tab = tab;
	planes = (size_t)(in[0]->dims[0] * in[0]->dims[1]);
	for (pl = 0; pl < planes; pl++)
		pool_plane(&r, x + pl * r.XP, y + pl * r.P,
			   n->n_out > 1 ? out[1] : NULL, pl);
	ane__ox_store_f(out[0], y);
out:
	free(tab);
	free(x);
	free(y);
	return err;
}

/* ------------------------------------------------------------ MaxUnpool */

static int unpool_dims(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_tensor *x, int given, int64_t *dims)
{
	struct ox_geom g;
	size_t cnt;
	int k, err = ane__ox_geom(c, n, x, NULL, 0, &g);

	if (err)
		return err;
	if (given && ane__ox_in(c, n, 2)) {
		err = ane__ox_const_ints(c, n, 2, "output_shape", dims, OX_MAX_RANK, &cnt);
		if (!err && (cnt != (size_t)x->rank || dims[0] != x->dims[0] ||
			     dims[1] != x->dims[1]))
			err = ane__ox_fail(c, n, EINVAL,
					   "input 2 (output_shape) does not match X's batch and channels");
		for (k = 0; !err && k < x->rank; k++)
			if (dims[k] < 0)
				err = ane__ox_fail(c, n, EINVAL, "output_shape[%d] is negative", k);
		return err;
	}
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (k = 0; k < g.s; k++)
		dims[k + 2] = (g.in[k] - 1) * g.st[k] + g.k[k] - g.pb[k] - g.pe[k];
	return 0;
}

static int infer_unpool(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *i = ane__ox_in(c, n, 1);
	int64_t dims[OX_MAX_RANK];
	int err = ane__ox_n_in(c, n, 2, 3) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 3, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, "I", OXM(OX_INT64), x->rank, x->rank);

	if (!err && memcmp(i->dims, x->dims, sizeof(int64_t) * (size_t)x->rank))
		err = ane__ox_fail(c, n, EINVAL, "input 1 (I) differs in shape from X");
	if (!err)
		err = unpool_dims(c, n, x, 1, dims);
	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims);
}

/*
 * I indexes the unpooled tensor of the default shape; a given
 * output_shape pads it: each element keeps its coordinates.
 */
static int run_unpool(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	struct ox_tensor xt = { .rank = in[0]->rank };
	size_t es = ane__ox_dtype_size(in[0]->dtype), i;
	int64_t def[OX_MAX_RANK], total;
	int d, err;

	memcpy(xt.dims, in[0]->dims, sizeof(xt.dims));
	err = unpool_dims(c, n, &xt, 0, def);
	total = ane__ox_prod(def, 0, xt.rank);
	for (i = 0; !err && i < in[0]->count; i++) {
		int64_t t = ane__ox_get_i(in[1], i), r = t, o = 0, m = 1;

		if (t < 0 || t >= total)
			return ane__ox_fail(c, n, EINVAL,
					    "I[%zu] is %lld, outside the unpooled %lld elements",
					    i, (long long)t, (long long)total);
		for (d = xt.rank - 1; d >= 0; d--) {
			int64_t v = r % def[d];

			r /= def[d];
			if (v >= out[0]->dims[d])
				return ane__ox_fail(c, n, EINVAL,
						    "I[%zu] is outside the output_shape", i);
			o += v * m;
			m *= out[0]->dims[d];
		}
		ox_copy_el(out[0], (size_t)o, in[0], i, es);
	}
	return err;
}

static const struct ox_op ops[] = {
	{ "MaxPool", infer_pool, run_pool },
	{ "AveragePool", infer_pool, run_pool },
	{ "LpPool", infer_pool, run_pool },
	{ "GlobalMaxPool", infer_pool, run_pool },
	{ "GlobalAveragePool", infer_pool, run_pool },
	{ "GlobalLpPool", infer_pool, run_pool },
	{ "MaxUnpool", infer_unpool, run_unpool },
};

OX_TABLE(ane__ox_ops_pool, ops);
