// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: ops that read or write at indices given as
 * data -- Gather, GatherElements, GatherND, Scatter, ScatterElements,
 * ScatterND, OneHot -- and those whose output's shape is the data's
 * (Compress, NonZero: only of constants; Unique: refused).  An index out
 * of range fails the run with a message.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

/* Index @i of @ind, negative ones counted from @dim; -1 out of range. */
static int get_index(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *ind, size_t i, int64_t dim,
		     int64_t *out)
{
	int64_t v = ane__ox_get_i(ind, i);

	if (v < -dim || v >= dim)
		return ane__ox_fail(c, n, EINVAL,
				    "indices[%zu] is %lld, outside [%lld, %lld]",
				    i, (long long)v, (long long)-dim,
				    (long long)dim - 1);
	*out = v < 0 ? v + dim : v;
	return 0;
}

/* ------------------------------------------------------------ Gather */

static int infer_gather(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *ind = ane__ox_in(c, n, 1);
	int64_t dims[OX_MAX_RANK * 2];
	int axis, r;
	int err = ane__ox_n_in(c, n, 2, 2) ?:
		  ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 1, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, "indices", OXM_I32_64, 0, OX_MAX_RANK) ?:
		  ane__ox_axis_attr(c, n, "axis", 0, x->rank, &axis);

	if (err)
		return err;
	r = x->rank - 1 + ind->rank;
	if (r > OX_MAX_RANK)
		return ane__ox_fail(c, n, EOPNOTSUPP, "the output's rank %d is over %d",
				    r, OX_MAX_RANK);
	memcpy(dims, x->dims, sizeof(int64_t) * (size_t)axis);
	memcpy(dims + axis, ind->dims, sizeof(int64_t) * (size_t)ind->rank);
	memcpy(dims + axis + ind->rank, x->dims + axis + 1,
	       sizeof(int64_t) * (size_t)(x->rank - axis - 1));
	return ane__ox_set_out(c, n, 0, x->dtype, r, dims);
}

static int run_gather(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	const struct ox_value *x = in[0], *ind = in[1];
	int64_t axis = ane__ox_attr_i(n, "axis", 0), o, j, outer, inner, d;
	size_t es = ane__ox_dtype_size(x->dtype), row;
	char *dst = out[0]->data;
	int err;

	axis = axis < 0 ? axis + x->rank : axis;
	outer = ane__ox_prod(x->dims, 0, (int)axis);
	inner = ane__ox_prod(x->dims, (int)axis + 1, x->rank);
	d = x->dims[axis];
	row = (size_t)inner * es;
	for (o = 0; o < outer; o++)
		for (j = 0; j < (int64_t)ind->count; j++) {
			int64_t k = 0;

			err = get_index(c, n, ind, (size_t)j, d, &k);
			if (err)
				return err;
			if (row)
				memcpy(dst, (const char *)x->data +
				       (size_t)((o * d + k) * inner) * es, row);
			dst += row;
		}
	return 0;
}

/* ------------------------------------------------------------ GatherElements, ScatterElements */

/*
 * Scatter/ScatterElements (data, indices, updates) and GatherElements
 * (data, indices): indices of the data's rank, no larger than the data
 * off the axis.
 */
static int check_elements(struct ox_ctx *c, const struct ox_node *n,
			  int scatter, int *axis)
{
	static const char *const reds[] = { "none", "add", "mul", NULL };
	struct ox_tensor *x = ane__ox_in(c, n, 0), *ind = ane__ox_in(c, n, 1);
	const char *red;
	int k, err = ane__ox_n_in(c, n, 2 + scatter, 2 + scatter) ?:
		     ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 1, OX_MAX_RANK) ?:
		     ane__ox_chk_in(c, n, 1, "indices", OXM_I32_64, x->rank, x->rank) ?:
		     ane__ox_axis_attr(c, n, "axis", 0, x->rank, axis);

	if (!err && scatter)
		err = ane__ox_chk_in(c, n, 2, "updates", OXM_ALL, x->rank, x->rank) ?:
		      ane__ox_same_dtype(c, n, 2, 0) ?:
		      ane__ox_a_str(c, n, "reduction", "none", reds, &red);
	if (!err && scatter &&
	    memcmp(ane__ox_in(c, n, 2)->dims, ind->dims, sizeof(int64_t) * (size_t)x->rank))
		err = ane__ox_fail(c, n, EINVAL,
				   "input 2 (updates) differs in shape from input 1 (indices)");
	for (k = 0; !err && k < x->rank; k++)
		if (k != *axis && ind->dims[k] > x->dims[k])
			err = ane__ox_fail(c, n, EINVAL,
					   "indices dims[%d] is %lld, more than the data's %lld",
					   k, (long long)ind->dims[k], (long long)x->dims[k]);
	return err;
}

static int infer_gather_el(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *ind = ane__ox_in(c, n, 1);
	int axis, err = check_elements(c, n, 0, &axis);

	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, ind->rank, ind->dims);
}

static int infer_scatter_el(struct ox_ctx *c, const struct ox_node *n)
{
	int axis, err = check_elements(c, n, 1, &axis);

	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

/* Combines update @u into element @i of @y by the reduction. */
static void reduce_into(struct ox_value *y, size_t i, const struct ox_value *u,
			size_t j, const char *red)
{
	if (!strcmp(red, "add") && ox_is_float(y->dtype))
		ane__ox_set_f(y, i, ane__ox_get_f(y, i) + ane__ox_get_f(u, j));
	else if (!strcmp(red, "mul") && ox_is_float(y->dtype))
		ane__ox_set_f(y, i, ane__ox_get_f(y, i) * ane__ox_get_f(u, j));
	else if (!strcmp(red, "add"))
		ane__ox_set_i(y, i, (int64_t)((uint64_t)ane__ox_get_i(y, i) +
					      (uint64_t)ane__ox_get_i(u, j)));
	else if (!strcmp(red, "mul"))
		ane__ox_set_i(y, i, (int64_t)((uint64_t)ane__ox_get_i(y, i) *
					      (uint64_t)ane__ox_get_i(u, j)));
	else
		ox_copy_el(y, i, u, j, ane__ox_dtype_size(y->dtype));
}

static int run_elements(struct ox_ctx *c, const struct ox_node *n,
			const struct ox_value *const *in,
			struct ox_value *const *out)
{
	const struct ox_value *x = in[0], *ind = in[1];
	int scatter = n->n_in == 3, axis = 0, err;
	const char *red = ane__ox_attr_s(n, "reduction", "none");
	int64_t xst[OX_MAX_RANK];
	struct ox_it it;
	size_t i;

	err = ane__ox_axis_attr(c, n, "axis", 0, x->rank, &axis);
	if (err)
		return err;
	if (scatter)
		ane__ox_copy_all(out[0], x);
	ane__ox_strides(x->rank, x->dims, xst);
	ane__ox_it_init(&it, ind->rank, ind->dims);
	ane__ox_it_add_strides(&it, xst);
	for (i = 0; i < ind->count; i++, ane__ox_it_next(&it)) {
		int64_t k = 0;
		size_t off;

		err = get_index(c, n, ind, i, x->dims[axis], &k);
		if (err)
			return err;
		off = it.off[0] + (size_t)((k - it.idx[axis]) * xst[axis]);
		if (scatter)
			reduce_into(out[0], off, in[2], i, red);
		else
			ox_copy_el(out[0], i, x, off, ane__ox_dtype_size(x->dtype));
	}
	return 0;
}

/* ------------------------------------------------------------ GatherND, ScatterND */

static int infer_nd(struct ox_ctx *c, const struct ox_node *n)
{
	static const char *const reds[] = { "none", "add", "mul", NULL };
	struct ox_tensor *x = ane__ox_in(c, n, 0), *ind = ane__ox_in(c, n, 1);
	int scatter = !strcmp(n->op_type, "ScatterND"), k, r;
	int64_t b = 0, last, dims[OX_MAX_RANK * 2];
	const char *red;
	int err = ane__ox_n_in(c, n, 2 + scatter, 2 + scatter) ?:
		  ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 1, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, "indices", OXM(OX_INT64), 1, OX_MAX_RANK);

	if (!err && !scatter)
		err = ane__ox_a_int(c, n, "batch_dims", 0, 0,
				    (x->rank < ind->rank ? x->rank : ind->rank) - 1, &b);
	if (!err && scatter)
		err = ane__ox_a_str(c, n, "reduction", "none", reds, &red) ?:
		      ane__ox_chk_in(c, n, 2, "updates", OXM_ALL, 0, OX_MAX_RANK) ?:
		      ane__ox_same_dtype(c, n, 2, 0);
	if (err)
		return err;
	last = ind->dims[ind->rank - 1];
	if (last < 1 || last > x->rank - b)
		return ane__ox_fail(c, n, EINVAL,
				    "indices' last dim is %lld, outside [1, %lld]",
				    (long long)last, (long long)(x->rank - b));
	for (k = 0; k < b; k++)
		if (ind->dims[k] != x->dims[k])
			return ane__ox_fail(c, n, EINVAL,
					    "batch dim %d differs between data and indices", k);
	r = ind->rank - 1 + x->rank - (int)(b + last);
	memcpy(dims, ind->dims, sizeof(int64_t) * (size_t)(ind->rank - 1));
	memcpy(dims + ind->rank - 1, x->dims + b + last,
	       sizeof(int64_t) * (size_t)(x->rank - b - last));
	if (scatter) {
		struct ox_tensor *u = ane__ox_in(c, n, 2);

		if (u->rank != r || memcmp(u->dims, dims, sizeof(int64_t) * (size_t)r))
			return ane__ox_fail(c, n, EINVAL,
					    "input 2 (updates) is not of the shape indices.shape[:-1] + data.shape[k:]");
		return ane__ox_out_like(c, n, 0, 0);
	}
	return ane__ox_set_out(c, n, 0, x->dtype, r, dims);
}

static int run_nd(struct ox_ctx *c, const struct ox_node *n,
		  const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0], *ind = in[1];
	int scatter = n->n_in == 3, k;
	int64_t b = ane__ox_attr_i(n, "batch_dims", 0), xst[OX_MAX_RANK];
	int64_t last = ind->dims[ind->rank - 1];
	int64_t nb = ane__ox_prod(ind->dims, 0, (int)b);
	int64_t per = ane__ox_prod(ind->dims, (int)b, ind->rank - 1);
	int64_t slab = ane__ox_prod(x->dims, (int)(b + last), x->rank);
	int64_t xb = ane__ox_prod(x->dims, (int)b, x->rank), bi, j, e;
	const char *red = ane__ox_attr_s(n, "reduction", "none");
	size_t es = ane__ox_dtype_size(x->dtype);

	if (scatter)
		ane__ox_copy_all(out[0], x);
	ane__ox_strides(x->rank, x->dims, xst);
	for (bi = 0; bi < nb; bi++)
		for (j = 0; j < per; j++) {
			size_t t = (size_t)((bi * per + j) * last), off = (size_t)(bi * xb);

			for (k = 0; k < last; k++) {
				int64_t v = 0;
				int err = get_index(c, n, ind, t + (size_t)k,
						    x->dims[b + k], &v);

				if (err)
					return err;
				off += (size_t)(v * xst[b + k]);
			}
			for (e = 0; e < slab; e++) {
				size_t o = (size_t)((bi * per + j) * slab + e);

				if (scatter)
					reduce_into(out[0], off + (size_t)e, in[2], o, red);
				else
					ox_copy_el(out[0], o, x, off + (size_t)e, es);
			}
		}
	return 0;
}

/* ------------------------------------------------------------ OneHot */

static int infer_onehot(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *ind = ane__ox_in(c, n, 0), *val = ane__ox_in(c, n, 2);
	const struct ox_value *d;
	int64_t depth, axis, dims[OX_MAX_RANK];
	int r, k, j = 0;
	int err = ane__ox_n_in(c, n, 3, 3) ?:
		  ane__ox_chk_in(c, n, 0, "indices", OXM_NUM, 0, OX_MAX_RANK - 1) ?:
		  ane__ox_chk_in(c, n, 1, "depth", OXM_NUM, 0, 1) ?:
		  ane__ox_chk_in(c, n, 2, "values", OXM_ALL, 1, 1);

	if (err)
		return err;
	r = ind->rank + 1;
	err = ane__ox_a_int(c, n, "axis", -1, -r, r - 1, &axis);
	if (err)
		return err;
	axis = axis < 0 ? axis + r : axis;
	if (val->dims[0] != 2)
		return ane__ox_fail(c, n, EINVAL,
				    "input 2 (values) has %lld values; it must be [off, on]",
				    (long long)val->dims[0]);
	d = ane__ox_const_in(c, n, 1, "depth");
	if (!d)
		return -EINVAL;
	depth = d->count == 1 ? ane__ox_get_i(d, 0) : 0;
	if (depth < 1)
		return ane__ox_fail(c, n, EINVAL, "input 1 (depth) is %lld; it must be positive",
				    (long long)depth);
	for (k = 0; k < r; k++)
		dims[k] = k == axis ? depth : ind->dims[j++];
	return ane__ox_set_out(c, n, 0, val->dtype, r, dims);
}

static int run_onehot(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	const struct ox_value *ind = in[0];
	int r = ind->rank + 1;
	int64_t axis = ane__ox_attr_i(n, "axis", -1), depth, inner, o, i;
	size_t es = ane__ox_dtype_size(out[0]->dtype), k;

	(void)c;
	axis = axis < 0 ? axis + r : axis;
	depth = out[0]->dims[axis];
	inner = ane__ox_prod(ind->dims, (int)axis, ind->rank);
	for (k = 0; k < out[0]->count; k++)
		ox_copy_el(out[0], k, in[2], 0, es);
	for (k = 0; k < ind->count; k++) {
		i = ane__ox_get_i(ind, k);
		i = i < 0 ? i + depth : i;
		if (i < 0 || i >= depth)
			continue;
		o = (int64_t)k / inner;
		ox_copy_el(out[0], (size_t)((o * depth + i) * inner + (int64_t)k % inner),
			   in[2], 1, es);
	}
	return 0;
}

/* ------------------------------------------------------------ Compress, NonZero, Unique */

/*
 * Input @i, whose values give the output's shape, as a constant; else
 * NULL and the op refused (a graph input is recorded for binding).
 */
static const struct ox_value *data_const(struct ox_ctx *c,
					 const struct ox_node *n, int i,
					 const char *what)
{
	const struct ox_value *v = ane__ox_const_in(c, n, i, what);

	if (!v)
		ane__ox_fail(c, n, EOPNOTSUPP,
			     "input %d (%s) is not a constant: the output's shape would depend on its values%s",
			     i, what, c->need_const == n->in[i] ?
			     " (bind its value: ane-run --const NAME=FILE.npy)" : "");
	return v;
}

static int infer_compress(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	const struct ox_value *cond;
	int64_t dims[OX_MAX_RANK], len, kept = 0;
	int axis = -1, err = ane__ox_n_in(c, n, 2, 2) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 1, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, "condition", OXM(OX_BOOL), 1, 1);
	size_t k;

	if (!err && ane__ox_attr(n, "axis"))
		err = ane__ox_axis_attr(c, n, "axis", 0, x->rank, &axis);
	if (err)
		return err;
	cond = data_const(c, n, 1, "condition");
	if (!cond)
		return -EOPNOTSUPP;
	len = axis < 0 ? ane__ox_prod(x->dims, 0, x->rank) : x->dims[axis];
	for (k = 0; k < cond->count && (int64_t)k < len; k++)
		kept += ((const uint8_t *)cond->data)[k] != 0;
	if (axis < 0)
		return ane__ox_set_out(c, n, 0, x->dtype, 1, &kept);
	memcpy(dims, x->dims, sizeof(dims));
	dims[axis] = kept;
	return ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims);
}

static int run_compress(struct ox_ctx *c, const struct ox_node *n,
			const struct ox_value *const *in,
			struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	const uint8_t *cond = in[1]->data;
	int flat = !ane__ox_attr(n, "axis"), axis = 0;
	int64_t outer, inner, d, o, j, e;
	size_t es = ane__ox_dtype_size(x->dtype), w = 0;

	if (!flat)
		ane__ox_axis_attr(c, n, "axis", 0, x->rank, &axis);
	outer = flat ? 1 : ane__ox_prod(x->dims, 0, axis);
	d = flat ? (int64_t)x->count : x->dims[axis];
	inner = flat ? 1 : ane__ox_prod(x->dims, axis + 1, x->rank);
	for (o = 0; o < outer; o++)
		for (j = 0; j < d && j < (int64_t)in[1]->count; j++) {
			if (!cond[j])
				continue;
			for (e = 0; e < inner; e++)
				ox_copy_el(out[0], w++, x, (size_t)((o * d + j) * inner + e), es);
		}
	return 0;
}

static int infer_nonzero(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t dims[2];
	size_t k;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_ALL, 0, OX_MAX_RANK);

	if (err)
		return err;
	if (!data_const(c, n, 0, "X"))
		return -EOPNOTSUPP;
	dims[0] = x->rank;
	dims[1] = 0;
	for (k = 0; k < x->konst->count; k++)
		dims[1] += ane__ox_get_f(x->konst, k) != 0;
	return ane__ox_set_out(c, n, 0, OX_INT64, 2, dims);
}

static int run_nonzero(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_value *const *in,
		       struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	size_t k, w = 0, cnt = out[0]->count / (x->rank ? (size_t)x->rank : 1);
	struct ox_it it;
	int d;

	(void)c;
	(void)n;
	ane__ox_it_init(&it, x->rank, x->dims);
	for (k = 0; k < x->count; k++, ane__ox_it_next(&it)) {
		if (ane__ox_get_f(x, k) == 0)
			continue;
		for (d = 0; d < x->rank; d++)
			ane__ox_set_i(out[0], (size_t)d * cnt + w, it.idx[d]);
		w++;
	}
	return 0;
}

static int infer_unique(struct ox_ctx *c, const struct ox_node *n)
{
	return ane__ox_fail(c, n, EOPNOTSUPP,
			    "its outputs' shapes depend on the input's values");
}

static int run_unique(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	(void)in;
	(void)out;
	return infer_unique(c, n);
}

static const struct ox_op ops[] = {
	{ "Gather", infer_gather, run_gather },
	{ "GatherElements", infer_gather_el, run_elements },
	{ "ScatterElements", infer_scatter_el, run_elements },
	{ "Scatter", infer_scatter_el, run_elements },
	{ "GatherND", infer_nd, run_nd },
	{ "ScatterND", infer_nd, run_nd },
	{ "OneHot", infer_onehot, run_onehot },
	{ "Compress", infer_compress, run_compress },
	{ "NonZero", infer_nonzero, run_nonzero },
	{ "Unique", infer_unique, run_unique },
};

OX_TABLE(ane__ox_ops_index, ops);
