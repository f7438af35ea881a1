// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: reductions -- Reduce* (axes an attribute
 * before opset 13, ReduceSum's an input from it), ArgMax/ArgMin,
 * Softmax/LogSoftmax/Hardmax (2-D coercion before opset 13), CumSum,
 * TopK and LpNormalization.  Sums accumulate in double, or in 64-bit
 * integers for integer dtypes.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

enum red_kind { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM,
		R_LOGSUMEXP, R_SUMSQ };

static const char *const red_names[] = {
	"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
	"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
	"ReduceSumSquare",
};

static int red_kind(const struct ox_node *n)
{
	int k;

	for (k = 0; k < (int)(sizeof(red_names) / sizeof(red_names[0])); k++)
		if (!strcmp(red_names[k], n->op_type))
			return k;
	return R_SUM;
}

/* The reduced axes as a mask; 0 with *@noop set: the identity. */
static int red_axes(struct ox_ctx *c, const struct ox_node *n, int rank,
		    unsigned int *mask, int *noop)
{
	int64_t axes[OX_MAX_RANK * 2], nwe;
	const int64_t *a;
	size_t cnt = 0;
	int from_input = red_kind(n) == R_SUM && OX_OPSET(c) >= 13, err;

	*noop = 0;
	err = ane__ox_n_in(c, n, 1, from_input ? 2 : 1) ?:
	      ane__ox_a_int(c, n, "noop_with_empty_axes", 0, 0, 1, &nwe);
	if (err)
		return err;
	if (from_input && ane__ox_in(c, n, 1)) {
		err = ane__ox_const_ints(c, n, 1, "axes", axes, OX_MAX_RANK * 2, &cnt);
	} else if (!from_input) {
		err = ane__ox_a_ints(c, n, "axes", &a, &cnt);
		if (!err && cnt > OX_MAX_RANK * 2)
			err = ane__ox_fail(c, n, EINVAL, "attribute 'axes' has %zu values", cnt);
		if (!err && cnt)
			memcpy(axes, a, sizeof(*a) * cnt);
	}
	if (err)
		return err;
	if (!cnt) {
		*noop = (int)nwe;
		*mask = nwe ? 0 : (1u << rank) - 1;
		return 0;
	}
	return ane__ox_axes_mask(c, n, "axes", axes, cnt, rank, mask);
}

/* Output dims of reducing @mask: kept as 1 or dropped. */
static int red_dims(int rank, const int64_t *dims, unsigned int mask,
		    int keep, int64_t *out)
{
	int k, r = 0;

	for (k = 0; k < rank; k++)
		if (!(mask & (1u << k)))
			out[r++] = dims[k];
		else if (keep)
			out[r++] = 1;
	return r;
}

static int infer_reduce(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t keep, dims[OX_MAX_RANK];
	unsigned int mask;
	int noop, err = ane__ox_n_in(c, n, 1, 2) ?:
		  ane__ox_chk_in(c, n, 0, "data", OXM_NUM, 0, OX_MAX_RANK) ?:
		  ane__ox_a_int(c, n, "keepdims", 1, 0, 1, &keep) ?:
		  red_axes(c, n, x->rank, &mask, &noop);

	if (err)
		return err;
	return ane__ox_set_out(c, n, 0, x->dtype,
			       red_dims(x->rank, x->dims, mask, (int)keep, dims), dims);
}

static double red_init(int kind)
{
	return kind == R_MAX ? -INFINITY : kind == R_MIN ? INFINITY :
	       kind == R_PROD ? 1.0 : 0.0;
}

static double red_step(int kind, double acc, double v)
{
	switch (kind) {
	case R_MAX: return v != v || acc != acc ? NAN : v > acc ? v : acc;
	case R_MIN: return v != v || acc != acc ? NAN : v < acc ? v : acc;
	case R_PROD: return acc * v;
	case R_L1: return acc + fabs(v);
	case R_L2: case R_SUMSQ: return acc + v * v;
	case R_LOGSUMEXP: return acc + exp(v);
	default: return acc + v;
	}
}

static int64_t red_step_i(int kind, int64_t acc, int64_t v)
{
	uint64_t a = (uint64_t)acc, b = (uint64_t)v;

	switch (kind) {
	case R_MAX: return v > acc ? v : acc;
	case R_MIN: return v < acc ? v : acc;
	case R_PROD: return (int64_t)(a * b);
	case R_L1: return (int64_t)(a + (v < 0 ? 0 - b : b));
	case R_L2: case R_SUMSQ: return (int64_t)(a + b * b);
	default: return (int64_t)(a + b);
	}
}

static void red_finish(int kind, double *acc, size_t cnt, double per)
{
	size_t i;

	for (i = 0; i < cnt; i++)
		acc[i] = kind == R_MEAN ? acc[i] / per : kind == R_L2 ? sqrt(acc[i]) :
			 kind == R_LOGSUM ? log(acc[i]) : acc[i];
}

static int run_reduce(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	struct ox_value *y = out[0];
	int kind = red_kind(n), noop, k, exact;
	int64_t ost[OX_MAX_RANK], kd[OX_MAX_RANK], st[OX_MAX_RANK];
	unsigned int mask;
	struct ox_it it;
	double *acc, *mx = NULL;
	int64_t *iacc;
	size_t i;
	int err = red_axes(c, n, x->rank, &mask, &noop);

	if (err)
		return err;
	if (noop) {
		ane__ox_copy_all(y, x);
		return 0;
	}
	red_dims(x->rank, x->dims, mask, 1, kd);
	ane__ox_strides(x->rank, kd, ost);
	for (k = 0; k < x->rank; k++)
		st[k] = mask & (1u << k) ? 0 : ost[k];
	exact = !ox_is_float(x->dtype) && kind != R_MEAN && kind != R_LOGSUM &&
		kind != R_LOGSUMEXP && kind != R_L2;
	acc = malloc(sizeof(*acc) * (y->count + 1));
	iacc = malloc(sizeof(*iacc) * (y->count + 1));
	if (kind == R_LOGSUMEXP)
		mx = malloc(sizeof(*mx) * (y->count + 1));
	if (!acc || !iacc || (kind == R_LOGSUMEXP && !mx)) {
		free(acc);
		free(iacc);
		free(mx);
		return ane__ox_nomem(c, n);
	}
	for (i = 0; i < y->count; i++) {
		acc[i] = red_init(kind);
		iacc[i] = kind == R_MAX ? INT64_MIN : kind == R_MIN ? INT64_MAX :
			  kind == R_PROD;
		if (mx)
			mx[i] = -INFINITY;
	}
	ane__ox_it_init(&it, x->rank, x->dims);
	ane__ox_it_add_strides(&it, st);
	/* LogSumExp: the maxima first, so that exp() does not overflow. */
	for (i = 0; mx && i < x->count; i++, ane__ox_it_next(&it))
		mx[it.off[0]] = fmax(mx[it.off[0]], ane__ox_get_f(x, i));
	for (i = 0; i < x->count; i++, ane__ox_it_next(&it)) {
		size_t o = it.off[0];

		if (exact)
			iacc[o] = red_step_i(kind, iacc[o], ane__ox_get_i(x, i));
		else
			acc[o] = red_step(kind, acc[o], ane__ox_get_f(x, i) -
					  (mx && isfinite(mx[o]) ? mx[o] : 0.0));
	}
	red_finish(kind, acc, y->count,
		   y->count ? (double)x->count / (double)y->count : 1.0);
	for (i = 0; i < y->count; i++) {
		if (exact)
			ane__ox_set_i(y, i, iacc[i]);
		else if (mx)
			ane__ox_set_f(y, i, log(acc[i]) + (isfinite(mx[i]) ? mx[i] : 0.0));
		else
			ane__ox_set_f(y, i, acc[i]);
	}
	free(acc);
	free(iacc);
	free(mx);
	return 0;
}

/* ------------------------------------------------------------ ArgMax, ArgMin */

static int infer_arg(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t keep, last, dims[OX_MAX_RANK];
	int axis = 0, err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "data", OXM_NUM, 1, OX_MAX_RANK) ?:
		  ane__ox_a_int(c, n, "keepdims", 1, 0, 1, &keep) ?:
		  ane__ox_a_int(c, n, "select_last_index", 0, 0, 1, &last) ?:
		  ane__ox_axis_attr(c, n, "axis", 0, x->rank, &axis);

	if (err)
		return err;
	return ane__ox_set_out(c, n, 0, OX_INT64,
			       red_dims(x->rank, x->dims, 1u << axis, (int)keep, dims),
			       dims);
}

static int run_arg(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	int mx = !strcmp(n->op_type, "ArgMax"), axis = 0;
	int last = (int)ane__ox_attr_i(n, "select_last_index", 0);
	int64_t outer, d, inner, o, e, j;

	ane__ox_axis_attr(c, n, "axis", 0, x->rank, &axis);
	outer = ane__ox_prod(x->dims, 0, axis);
	d = x->dims[axis];
	inner = ane__ox_prod(x->dims, axis + 1, x->rank);
	for (o = 0; o < outer; o++)
		for (e = 0; e < inner; e++) {
			int64_t best = 0;
			double bv = ane__ox_get_f(x, (size_t)(o * d * inner + e));

			for (j = 1; j < d; j++) {
				double v = ane__ox_get_f(x, (size_t)((o * d + j) * inner + e));
				int better = mx ? v > bv : v < bv;

				if (better || (last && v == bv)) {
					best = j;
					bv = v;
				}
			}
			ane__ox_set_i(out[0], (size_t)(o * inner + e), best);
		}
	return 0;
}

/* ------------------------------------------------------------ Softmax & co */

/* outer x d x inner: the axis alone from opset 13, else [axis, rank) as one. */
static int sm_shape(struct ox_ctx *c, const struct ox_node *n, int rank,
		    const int64_t *dims, int64_t *shape)
{
	int new = OX_OPSET(c) >= 13, axis = 0;
	int err = ane__ox_axis_attr(c, n, "axis", new ? -1 : 1, rank, &axis);

	if (err)
		return err;
	shape[0] = ane__ox_prod(dims, 0, axis);
	shape[1] = new ? dims[axis] : ane__ox_prod(dims, axis, rank);
	shape[2] = new ? ane__ox_prod(dims, axis + 1, rank) : 1;
	return 0;
}

static int infer_softmax(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t shape[3];
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_FLOAT, 1, OX_MAX_RANK) ?:
		  sm_shape(c, n, x->rank, x->dims, shape);

	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

/* Softmax (log: LogSoftmax) of @d values @x apart by @st, in place. */
void ane__ox_softmax(double *x, int64_t d, int64_t st, int log_out)
{
	double m = -INFINITY, s = 0;
	int64_t j;

	for (j = 0; j < d; j++)
		m = fmax(m, x[j * st]);
	for (j = 0; j < d; j++)
		s += exp(x[j * st] - m);
	for (j = 0; j < d; j++)
		x[j * st] = log_out ? x[j * st] - m - log(s) : exp(x[j * st] - m) / s;
}

static int run_softmax(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_value *const *in,
		       struct ox_value *const *out)
{
	int64_t sh[3], o, e, j;
	double *x;
	int err = sm_shape(c, n, in[0]->rank, in[0]->dims, sh);

	if (err)
		return err;
	x = ane__ox_load_f(in[0]);
	if (!x)
		return ane__ox_nomem(c, n);
	for (o = 0; o < sh[0]; o++)
		for (e = 0; e < sh[2]; e++) {
			double *p = x + o * sh[1] * sh[2] + e;

			if (!strcmp(n->op_type, "Hardmax")) {
				int64_t best = 0;

				for (j = 1; j < sh[1]; j++)
					best = p[j * sh[2]] > p[best * sh[2]] ? j : best;
				for (j = 0; j < sh[1]; j++)
					p[j * sh[2]] = j == best;
			} else {
				ane__ox_softmax(p, sh[1], sh[2],
						!strcmp(n->op_type, "LogSoftmax"));
			}
		}
	ane__ox_store_f(out[0], x);
	free(x);
	return 0;
}

/* ------------------------------------------------------------ CumSum */

static int cumsum_axis(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_value *a, int rank, int *axis)
{
	if (a->count != 1)
		return ane__ox_fail(c, n, EINVAL, "input 1 (axis) must be a scalar");
	return ane__ox_axis(c, n, "input 1 (axis)", ane__ox_get_i(a, 0), rank, axis);
}

static int infer_cumsum(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *a = ane__ox_in(c, n, 1);
	int64_t v;
	int axis, err = ane__ox_n_in(c, n, 2, 2) ?:
		  ane__ox_chk_in(c, n, 0, "x", OXM_NUM, 1, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, "axis", OXM_I32_64, 0, 1) ?:
		  ane__ox_a_int(c, n, "exclusive", 0, 0, 1, &v) ?:
		  ane__ox_a_int(c, n, "reverse", 0, 0, 1, &v);

	if (!err && a->konst)
		err = cumsum_axis(c, n, a->konst, x->rank, &axis);
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_cumsum(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	int excl = (int)ane__ox_attr_i(n, "exclusive", 0);
	int rev = (int)ane__ox_attr_i(n, "reverse", 0), axis;
	int64_t outer, d, inner, o, e, j;
	int err = cumsum_axis(c, n, in[1], x->rank, &axis);

	if (err)
		return err;
	outer = ane__ox_prod(x->dims, 0, axis);
	d = x->dims[axis];
	inner = ane__ox_prod(x->dims, axis + 1, x->rank);
	for (o = 0; o < outer; o++)
		for (e = 0; e < inner; e++) {
			double s = 0;
			int64_t si = 0;

			for (j = 0; j < d; j++) {
				int64_t jj = rev ? d - 1 - j : j;
				size_t i = (size_t)((o * d + jj) * inner + e);
				double v = ane__ox_get_f(x, i);
				int64_t vi = ane__ox_get_i(x, i);

				if (excl) {
					ane__ox_set_f(out[0], i, s);
					if (!ox_is_float(x->dtype))
						ane__ox_set_i(out[0], i, si);
				}
				s += v;
				si = (int64_t)((uint64_t)si + (uint64_t)vi);
				if (!excl && ox_is_float(x->dtype))
					ane__ox_set_f(out[0], i, s);
				else if (!excl)
					ane__ox_set_i(out[0], i, si);
			}
		}
	return 0;
}

/* ------------------------------------------------------------ TopK */

struct kv {
	double v;
	int64_t i;
};

static int kv_desc(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v || y->v != y->v ? -1 : 1;
	return x->i < y->i ? -1 : 1;
}

static int kv_asc(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v || y->v != y->v ? -1 : 1;
	return x->i < y->i ? -1 : 1;
}

static int topk_params(struct ox_ctx *c, const struct ox_node *n, int rank,
		       const int64_t *dims, int *axis, int64_t *k)
{
	int64_t v, buf[1];
	size_t cnt;
	int err = ane__ox_axis_attr(c, n, "axis", -1, rank, axis);

	if (!err && OX_OPSET(c) < 10)
		err = ane__ox_a_int(c, n, "k", 0, 0, INT64_MAX, k);
	else if (!err)
		err = ane__ox_const_ints(c, n, 1, "K", buf, 1, &cnt);
	if (err)
		return err;
	if (OX_OPSET(c) >= 10) {
		if (cnt != 1)
			return ane__ox_fail(c, n, EINVAL, "input 1 (K) must have one value");
		*k = buf[0];
	}
	if (*k < 0 || *k > dims[*axis])
		return ane__ox_fail(c, n, EINVAL, "k is %lld, outside [0, %lld]",
				    (long long)*k, (long long)dims[*axis]);
	return ane__ox_a_int(c, n, "largest", 1, 0, 1, &v) ?:
	       ane__ox_a_int(c, n, "sorted", 1, 0, 1, &v);
}

static int infer_topk(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t k, dims[OX_MAX_RANK];
	int axis, err = ane__ox_n_in(c, n, OX_OPSET(c) >= 10 ? 2 : 1,
				     OX_OPSET(c) >= 10 ? 2 : 1) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_NUM, 1, OX_MAX_RANK) ?:
		  topk_params(c, n, x->rank, x->dims, &axis, &k);

	if (err)
		return err;
	memcpy(dims, x->dims, sizeof(dims));
	dims[axis] = k;
	return ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims) ?:
	       ane__ox_set_out(c, n, 1, OX_INT64, x->rank, dims);
}

static int run_topk(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	int largest = (int)ane__ox_attr_i(n, "largest", 1), axis;
	int64_t k, outer, d, inner, o, e, j;
	size_t es = ane__ox_dtype_size(x->dtype);
	struct kv *kv;
	int err = topk_params(c, n, x->rank, x->dims, &axis, &k);

	if (err)
		return err;
	outer = ane__ox_prod(x->dims, 0, axis);
	d = x->dims[axis];
	inner = ane__ox_prod(x->dims, axis + 1, x->rank);
	kv = malloc(sizeof(*kv) * (size_t)(d ? d : 1));
	if (!kv)
		return ane__ox_nomem(c, n);
	for (o = 0; o < outer; o++)
		for (e = 0; e < inner; e++) {
			for (j = 0; j < d; j++) {
				kv[j].v = ane__ox_get_f(x, (size_t)((o * d + j) * inner + e));
				kv[j].i = j;
			}
			qsort(kv, (size_t)d, sizeof(*kv), largest ? kv_desc : kv_asc);
			for (j = 0; j < k; j++) {
				size_t w = (size_t)((o * k + j) * inner + e);

				if (out[0])
					ox_copy_el(out[0], w, x, (size_t)((o * d + kv[j].i) *
						   inner + e), es);
				if (n->n_out > 1 && out[1])
					ane__ox_set_i(out[1], w, kv[j].i);
			}
		}
	free(kv);
	return 0;
}

/* ------------------------------------------------------------ LpNormalization */

static int infer_lpnorm(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t p;
	int axis, err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_FLOAT, 1, OX_MAX_RANK) ?:
		  ane__ox_axis_attr(c, n, "axis", -1, x->rank, &axis) ?:
		  ane__ox_a_int(c, n, "p", 2, 1, 2, &p);

	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_lpnorm(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	int64_t p = ane__ox_attr_i(n, "p", 2), outer, d, inner, o, e, j;
	int axis = 0;
	double *x;

	ane__ox_axis_attr(c, n, "axis", -1, in[0]->rank, &axis);
	outer = ane__ox_prod(in[0]->dims, 0, axis);
	d = in[0]->dims[axis];
	inner = ane__ox_prod(in[0]->dims, axis + 1, in[0]->rank);
	x = ane__ox_load_f(in[0]);
	if (!x)
		return ane__ox_nomem(c, n);
	for (o = 0; o < outer; o++)
		for (e = 0; e < inner; e++) {
			double *q = x + o * d * inner + e, s = 0;

			for (j = 0; j < d; j++)
				s += p == 1 ? fabs(q[j * inner]) : q[j * inner] * q[j * inner];
			s = p == 1 ? s : sqrt(s);
			for (j = 0; j < d; j++)
				q[j * inner] = s ? q[j * inner] / s : 0.0;
		}
	ane__ox_store_f(out[0], x);
	free(x);
	return 0;
}

static const struct ox_op ops[] = {
	{ "ReduceSum", infer_reduce, run_reduce },
	{ "ReduceMean", infer_reduce, run_reduce },
	{ "ReduceMax", infer_reduce, run_reduce },
	{ "ReduceMin", infer_reduce, run_reduce },
	{ "ReduceProd", infer_reduce, run_reduce },
	{ "ReduceL1", infer_reduce, run_reduce },
	{ "ReduceL2", infer_reduce, run_reduce },
	{ "ReduceLogSum", infer_reduce, run_reduce },
	{ "ReduceLogSumExp", infer_reduce, run_reduce },
	{ "ReduceSumSquare", infer_reduce, run_reduce },
	{ "ArgMax", infer_arg, run_arg },
	{ "ArgMin", infer_arg, run_arg },
	{ "Softmax", infer_softmax, run_softmax },
	{ "LogSoftmax", infer_softmax, run_softmax },
	{ "Hardmax", infer_softmax, run_softmax },
	{ "CumSum", infer_cumsum, run_cumsum },
	{ "TopK", infer_topk, run_topk },
	{ "LpNormalization", infer_lpnorm, run_lpnorm },
};

OX_TABLE(ane__ox_ops_reduce, ops);
