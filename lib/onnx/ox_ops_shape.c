// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: ops that reshape or repeat tensors -- Shape,
 * Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split,
 * Expand, Tile.
 * Shape-giving inputs must be constants (ane__ox_const_in()).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

static int run_copy(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	(void)c;
	(void)n;
	ane__ox_copy_all(out[0], in[0]);
	return 0;
}

/* ------------------------------------------------------------ Shape, Size */

static int run_shape(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in,
		     struct ox_value *const *out)
{
	int64_t s = ane__ox_attr_i(n, "start", 0);
	int r = in[0]->rank;
	size_t i;

	(void)c;
	if (!strcmp(n->op_type, "Size")) {
		ane__ox_set_i(out[0], 0, (int64_t)in[0]->count);
		return 0;
	}
	s = s < 0 ? s + r : s;
	s = s < 0 ? 0 : s;
	for (i = 0; i < out[0]->count; i++)
		ane__ox_set_i(out[0], i, in[0]->dims[s + (int64_t)i]);
	return 0;
}

/*
 * Shape and Size read only the input's static shape: their output is a
 * constant as soon as it is inferred, so that the shapes computed from it
 * (Shape -> Gather -> Concat -> Reshape) fold.  The value is made here.
 */
static int shape_konst(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_tensor *x)
{
	struct ox_tensor *y = ane__ox_out(c, n, 0);
	struct ox_value xv = { .dtype = x->dtype, .rank = x->rank }, *v;
	const struct ox_value *in[1] = { &xv };

	xv.count = (size_t)ane__ox_shape_count(x->rank, x->dims);
	memcpy(xv.dims, x->dims, sizeof(xv.dims));
	v = ane__ox_value_new(y->dtype, y->rank, y->dims);
	if (!v)
		return ane__ox_nomem(c, n);
	run_shape(c, n, in, &v);
	ane__ox_value_free(y->konst);
	y->konst = v;
	return 0;
}

static int infer_shape(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t s, e, len = 0;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 0, OX_MAX_RANK) ?:
		  ane__ox_a_int(c, n, "start", 0, INT64_MIN, INT64_MAX, &s) ?:
		  ane__ox_a_int(c, n, "end", x->rank, INT64_MIN, INT64_MAX, &e);

	if (err)
		return err;
	if (!strcmp(n->op_type, "Size"))
		return ane__ox_set_out(c, n, 0, OX_INT64, 0, NULL) ?:
		       shape_konst(c, n, x);
	s = s < 0 ? s + x->rank : s;
	e = e < 0 ? e + x->rank : e;
	s = s < 0 ? 0 : s > x->rank ? x->rank : s;
	e = e < 0 ? 0 : e > x->rank ? x->rank : e;
	len = e > s ? e - s : 0;
	return ane__ox_set_out(c, n, 0, OX_INT64, 1, &len) ?:
	       shape_konst(c, n, x);
}

/* ------------------------------------------------------------ Reshape */

static int reshape_dims(struct ox_ctx *c, const struct ox_node *n,
			const struct ox_tensor *x, int64_t *dims, size_t cnt)
{
	int64_t allow0, known = 1, total = ane__ox_prod(x->dims, 0, x->rank);
	int neg = -1, err;
	size_t k;

	err = ane__ox_a_int(c, n, "allowzero", 0, 0, 1, &allow0);
	if (err)
		return err;
	for (k = 0; k < cnt; k++) {
		if (dims[k] == 0 && !allow0) {
			if ((int)k >= x->rank)
				return ane__ox_fail(c, n, EINVAL,
						    "shape[%zu] is 0 (copy), beyond the input's rank %d",
						    k, x->rank);
			dims[k] = x->dims[k];
		}
		if (dims[k] == -1) {
			if (neg >= 0)
				return ane__ox_fail(c, n, EINVAL, "shape has two -1 dims");
			neg = (int)k;
			continue;
		}
		if (dims[k] < 0)
			return ane__ox_fail(c, n, EINVAL, "shape[%zu] is %lld",
					    k, (long long)dims[k]);
		if (dims[k] && known > INT64_MAX / dims[k])
			return ane__ox_fail(c, n, EOVERFLOW, "shape overflows");
		known *= dims[k];
	}
	if (neg >= 0) {
		if (!known || total % known)
			return ane__ox_fail(c, n, EINVAL,
					    "shape's -1 cannot be inferred: %lld elements over %lld",
					    (long long)total, (long long)known);
		dims[neg] = total / known;
	} else if (known != total) {
		return ane__ox_fail(c, n, EINVAL,
				    "shape has %lld elements; the input has %lld",
				    (long long)known, (long long)total);
	}
	return 0;
}

static int infer_reshape(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t dims[OX_MAX_RANK];
	const int64_t *a;
	size_t cnt;
	int old = OX_OPSET(c) < 5;
	int err = ane__ox_n_in(c, n, old ? 1 : 2, old ? 1 : 2) ?:
		  ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 0, OX_MAX_RANK);

	if (!err && old) {
		err = ane__ox_a_ints(c, n, "shape", &a, &cnt);
		if (!err && cnt > OX_MAX_RANK)
			err = ane__ox_fail(c, n, EOPNOTSUPP,
					   "attribute 'shape' has %zu dims", cnt);
		if (!err && cnt)
			memcpy(dims, a, sizeof(*a) * cnt);
	} else if (!err) {
		err = ane__ox_const_ints(c, n, 1, "shape", dims, OX_MAX_RANK, &cnt);
		if (!err && ane__ox_in(c, n, 1)->rank != 1)
			err = ane__ox_fail(c, n, EINVAL, "input 1 (shape) must be 1-D");
	}
	if (!err)
		err = reshape_dims(c, n, x, dims, cnt);
	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, (int)cnt, dims);
}

static int infer_flatten(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t axis, dims[2];
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 0, OX_MAX_RANK);

	if (!err)
		err = ane__ox_a_int(c, n, "axis", 1, OX_OPSET(c) < 11 ? 0 : -x->rank,
				    x->rank, &axis);
	if (!err && axis > x->rank)
		err = ane__ox_fail(c, n, EINVAL,
				   "attribute 'axis' is %lld (the default), more than the input's rank %d",
				   (long long)axis, x->rank);
	if (err)
		return err;
	axis = axis < 0 ? axis + x->rank : axis;
	dims[0] = ane__ox_prod(x->dims, 0, (int)axis);
	dims[1] = ane__ox_prod(x->dims, (int)axis, x->rank);
	return ane__ox_set_out(c, n, 0, x->dtype, 2, dims);
}

/* ------------------------------------------------------------ Squeeze, Unsqueeze */

/* The axes: an attribute before opset 13, the optional input 1 from it. */
static int get_axes(struct ox_ctx *c, const struct ox_node *n, int64_t *axes,
		    size_t *cnt, int *given)
{
	const int64_t *a;
	int err;

	*given = 0;
	*cnt = 0;
	if (OX_OPSET(c) >= 13) {
		err = ane__ox_n_in(c, n, 1, 2);
		if (err || !ane__ox_in(c, n, 1))
			return err;
		*given = 1;
		return ane__ox_const_ints(c, n, 1, "axes", axes, OX_MAX_RANK * 2, cnt);
	}
	err = ane__ox_n_in(c, n, 1, 1) ?: ane__ox_a_ints(c, n, "axes", &a, cnt);
	if (!err && *cnt > OX_MAX_RANK * 2)
		err = ane__ox_fail(c, n, EINVAL, "attribute 'axes' has %zu values", *cnt);
	if (err)
		return err;
	*given = a != NULL;
	if (*cnt)
		memcpy(axes, a, sizeof(*a) * *cnt);
	return 0;
}

static int infer_squeeze(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t axes[OX_MAX_RANK * 2], dims[OX_MAX_RANK];
	unsigned int mask;
	size_t cnt;
	int err, given, k, r = 0;

	err = get_axes(c, n, axes, &cnt, &given) ?:
	      ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 0, OX_MAX_RANK);
	if (!err)
		err = ane__ox_axes_mask(c, n, "axes", axes, cnt, x->rank, &mask);
	if (err)
		return err;
	for (k = 0; k < x->rank; k++) {
		if (given && (mask & (1u << k)) && x->dims[k] != 1)
			return ane__ox_fail(c, n, EINVAL,
					    "axes names dim %d, which is %lld, not 1",
					    k, (long long)x->dims[k]);
		if (given ? !(mask & (1u << k)) : x->dims[k] != 1)
			dims[r++] = x->dims[k];
	}
	return ane__ox_set_out(c, n, 0, x->dtype, r, dims);
}

static int infer_unsqueeze(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t axes[OX_MAX_RANK * 2], dims[OX_MAX_RANK];
	unsigned int mask;
	size_t cnt;
	int err, given, k, j = 0, r;

	err = get_axes(c, n, axes, &cnt, &given) ?:
	      ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 0, OX_MAX_RANK);
	if (!err && !given)
		err = ane__ox_fail(c, n, EINVAL, "axes are missing");
	if (err)
		return err;
	r = x->rank + (int)cnt;
	if (r > OX_MAX_RANK)
		return ane__ox_fail(c, n, EOPNOTSUPP, "the output's rank %d is over %d",
				    r, OX_MAX_RANK);
	err = ane__ox_axes_mask(c, n, "axes", axes, cnt, r, &mask);
	if (err)
		return err;
	for (k = 0; k < r; k++)
		dims[k] = mask & (1u << k) ? 1 : x->dims[j++];
	return ane__ox_set_out(c, n, 0, x->dtype, r, dims);
}

/* ------------------------------------------------------------ Transpose */

static int get_perm(struct ox_ctx *c, const struct ox_node *n, int rank,
		    int *perm)
{
	const int64_t *p;
	unsigned int seen = 0;
	size_t cnt;
	int k, err = ane__ox_a_ints(c, n, "perm", &p, &cnt);

	if (err)
		return err;
	if (p && cnt != (size_t)rank)
		return ane__ox_fail(c, n, EINVAL,
				    "attribute 'perm' has %zu values; the input's rank is %d",
				    cnt, rank);
	for (k = 0; k < rank; k++) {
		int64_t v = p ? p[k] : rank - 1 - k;

		if (v < 0 || v >= rank || (seen & (1u << v)))
			return ane__ox_fail(c, n, EINVAL,
					    "attribute 'perm' is no permutation of [0, %d)",
					    rank);
		seen |= 1u << v;
		perm[k] = (int)v;
	}
	return 0;
}

static int infer_transpose(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t dims[OX_MAX_RANK];
	int perm[OX_MAX_RANK], k;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 0, OX_MAX_RANK) ?:
		  get_perm(c, n, x->rank, perm);

	if (err)
		return err;
	for (k = 0; k < x->rank; k++)
		dims[k] = x->dims[perm[k]];
	return ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims);
}

static int run_transpose(struct ox_ctx *c, const struct ox_node *n,
			 const struct ox_value *const *in,
			 struct ox_value *const *out)
{
	int64_t st[OX_MAX_RANK], pst[OX_MAX_RANK];
	int perm[OX_MAX_RANK], k, err = get_perm(c, n, in[0]->rank, perm);

	if (err)
		return err;
	ane__ox_strides(in[0]->rank, in[0]->dims, st);
	for (k = 0; k < in[0]->rank; k++)
		pst[k] = st[perm[k]];
	ane__ox_copy_view(out[0], out[0]->rank, out[0]->dims, in[0], 0, pst);
	return 0;
}

/* ------------------------------------------------------------ Concat, Split */

static int infer_concat(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *t;
	int64_t dims[OX_MAX_RANK];
	int err = ane__ox_n_in(c, n, 1, OX_MAX_IO), axis = 0, i, k;

	if (!err)
		err = ane__ox_chk_in(c, n, 0, "inputs", OXM_ALL, 1, OX_MAX_RANK);
	if (!err && OX_OPSET(c) >= 4 && !ane__ox_attr(n, "axis"))
		err = ane__ox_fail(c, n, EINVAL, "attribute 'axis' is missing");
	if (!err)
		err = OX_OPSET(c) < 11 ?
		      ane__ox_a_int(c, n, "axis", 1, 0, x->rank - 1, dims) :
		      ane__ox_axis_attr(c, n, "axis", 1, x->rank, &axis);
	if (err)
		return err;
	if (OX_OPSET(c) < 11)
		axis = (int)dims[0];
	memcpy(dims, x->dims, sizeof(dims));
	for (i = 1; i < n->n_in; i++) {
		err = ane__ox_chk_in(c, n, i, "inputs", OXM_ALL, x->rank, x->rank) ?:
		      ane__ox_same_dtype(c, n, i, 0);
		if (err)
			return err;
		t = ane__ox_in(c, n, i);
		for (k = 0; k < x->rank; k++)
			if (k != axis && t->dims[k] != x->dims[k])
				return ane__ox_fail(c, n, EINVAL,
						    "input %d '%s' dims[%d] is %lld; input 0's is %lld",
						    i, t->name, k, (long long)t->dims[k],
						    (long long)x->dims[k]);
		dims[axis] += t->dims[axis];
	}
	return ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims);
}

/* Copies the [@lo, @lo + @len) slice along @axis of @src into/out of @dst. */
static void copy_slab(const struct ox_value *big, const struct ox_value *small,
		      int axis, int64_t lo, int into_big)
{
	int64_t outer = ane__ox_prod(big->dims, 0, axis);
	int64_t inner = ane__ox_prod(big->dims, axis + 1, big->rank);
	size_t es = ane__ox_dtype_size(big->dtype);
	size_t row = (size_t)(small->dims[axis] * inner) * es;
	int64_t o;

	for (o = 0; o < outer && row; o++) {
		char *b = (char *)big->data +
			  (size_t)((o * big->dims[axis] + lo) * inner) * es;
		char *s = (char *)small->data + (size_t)o * row;

		if (into_big)
			memcpy(b, s, row);
		else
			memcpy(s, b, row);
	}
}

static int run_concat(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	int64_t axis = ane__ox_attr_i(n, "axis", 1), lo = 0;
	int i;

	(void)c;
	axis = axis < 0 ? axis + out[0]->rank : axis;
	for (i = 0; i < n->n_in; i++) {
		copy_slab(out[0], in[i], (int)axis, lo, 1);
		lo += in[i]->dims[axis];
	}
	return 0;
}

/* The sizes of the parts: 'split' attribute, or input 1 (opset 1, 13+). */
static int split_sizes(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_tensor *x, int axis, int64_t *sz)
{
	const int64_t *a = NULL;
	int64_t sum = 0;
	size_t cnt = 0;
	int k, err;

	if (ane__ox_in(c, n, 1)) {
		err = ane__ox_const_ints(c, n, 1, "split", sz, OX_MAX_IO, &cnt);
	} else {
		err = ane__ox_a_ints(c, n, "split", &a, &cnt);
		if (!err && cnt > OX_MAX_IO)
			err = ane__ox_fail(c, n, EINVAL, "attribute 'split' is too long");
		if (!err && cnt)
			memcpy(sz, a, sizeof(*a) * cnt);
	}
	if (err)
		return err;
	if (!cnt) {
		if (x->dims[axis] % n->n_out)
			return ane__ox_fail(c, n, EINVAL,
					    "dim %d (%lld) does not split into %d equal parts",
					    axis, (long long)x->dims[axis], n->n_out);
		for (k = 0; k < n->n_out; k++)
			sz[k] = x->dims[axis] / n->n_out;
		return 0;
	}
	if ((int)cnt != n->n_out)
		return ane__ox_fail(c, n, EINVAL, "split has %zu sizes for %d outputs",
				    cnt, n->n_out);
	for (k = 0; k < n->n_out; k++) {
		if (sz[k] < 0 || sz[k] > x->dims[axis])
			return ane__ox_fail(c, n, EINVAL, "split[%d] is %lld, outside [0, %lld]",
					    k, (long long)sz[k], (long long)x->dims[axis]);
		sum += sz[k];
	}
	if (sum != x->dims[axis])
		return ane__ox_fail(c, n, EINVAL,
				    "split's sizes add up to %lld; dim %d is %lld",
				    (long long)sum, axis, (long long)x->dims[axis]);
	return 0;
}

static int infer_split(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t sz[OX_MAX_IO], dims[OX_MAX_RANK];
	int two = OX_OPSET(c) < 2 || OX_OPSET(c) >= 13, axis, k;
	int err = ane__ox_n_in(c, n, 1, two ? 2 : 1) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 1, OX_MAX_RANK) ?:
		  ane__ox_axis_attr(c, n, "axis", 0, x->rank, &axis) ?:
		  split_sizes(c, n, x, axis, sz);

	for (k = 0; !err && k < n->n_out; k++) {
		memcpy(dims, x->dims, sizeof(dims));
		dims[axis] = sz[k];
		err = ane__ox_set_out(c, n, k, x->dtype, x->rank, dims);
	}
	return err;
}

static int run_split(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in,
		     struct ox_value *const *out)
{
	int64_t sz[OX_MAX_IO], lo = 0;
	int axis = 0, k, err;

	err = ane__ox_axis_attr(c, n, "axis", 0, in[0]->rank, &axis) ?:
	      split_sizes(c, n, ane__ox_in(c, n, 0), axis, sz);
	for (k = 0; !err && k < n->n_out; k++) {
		if (out[k])
			copy_slab(in[0], out[k], axis, lo, 0);
		lo += sz[k];
	}
	return err;
}

/* ------------------------------------------------------------ Expand, Tile */

static int infer_expand(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t shape[OX_MAX_RANK], dims[OX_MAX_RANK];
	size_t cnt;
	int rank;
	int err = ane__ox_n_in(c, n, 2, 2) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 0, OX_MAX_RANK) ?:
		  ane__ox_const_ints(c, n, 1, "shape", shape, OX_MAX_RANK, &cnt) ?:
		  ane__ox_bcast(c, n, x->rank, x->dims, (int)cnt, shape, &rank, dims);

	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, rank, dims);
}

static int run_expand(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	struct ox_it it;
	size_t i, es = ane__ox_dtype_size(out[0]->dtype);

	(void)c;
	(void)n;
	ane__ox_it_init(&it, out[0]->rank, out[0]->dims);
	ane__ox_it_add(&it, in[0]);
	for (i = 0; i < out[0]->count; i++, ane__ox_it_next(&it))
		ox_copy_el(out[0], i, in[0], it.off[0], es);
	return 0;
}

static int infer_tile(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t rep[OX_MAX_RANK], dims[OX_MAX_RANK];
	size_t cnt;
	int k, err;

	if (OX_OPSET(c) < 6)
		return ane__ox_fail(c, n, EOPNOTSUPP,
				    "opset %lld's Tile (tiles and axis inputs) is not supported",
				    (long long)OX_OPSET(c));
	err = ane__ox_n_in(c, n, 2, 2) ?:
	      ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 0, OX_MAX_RANK) ?:
	      ane__ox_chk_in(c, n, 1, "repeats", OXM(OX_INT64), 1, 1) ?:
	      ane__ox_const_ints(c, n, 1, "repeats", rep, OX_MAX_RANK, &cnt);
	if (err)
		return err;
	if ((int)cnt != x->rank)
		return ane__ox_fail(c, n, EINVAL,
				    "input 1 (repeats) has %zu values; the input's rank is %d",
				    cnt, x->rank);
	for (k = 0; k < x->rank; k++) {
		if (rep[k] < 0)
			return ane__ox_fail(c, n, EINVAL, "repeats[%d] is %lld",
					    k, (long long)rep[k]);
		if (rep[k] && x->dims[k] > INT64_MAX / rep[k])
			return ane__ox_fail(c, n, EOVERFLOW, "repeats[%d] overflows", k);
		dims[k] = x->dims[k] * rep[k];
	}
	return ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims);
}

static int run_tile(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	size_t i, es = ane__ox_dtype_size(x->dtype);
	int64_t st[OX_MAX_RANK];
	struct ox_it it;
	int k;

	(void)c;
	(void)n;
	ane__ox_strides(x->rank, x->dims, st);
	ane__ox_it_init(&it, out[0]->rank, out[0]->dims);
	for (i = 0; i < out[0]->count; i++, ane__ox_it_next(&it)) {
		size_t off = 0;

		for (k = 0; k < x->rank; k++)
			off += (size_t)((it.idx[k] % x->dims[k]) * st[k]);
		ox_copy_el(out[0], i, x, off, es);
	}
	return 0;
}

static const struct ox_op ops[] = {
	{ "Shape", infer_shape, run_shape },
	{ "Size", infer_shape, run_shape },
	{ "Reshape", infer_reshape, run_copy },
	{ "Flatten", infer_flatten, run_copy },
	{ "Squeeze", infer_squeeze, run_copy },
	{ "Unsqueeze", infer_unsqueeze, run_copy },
	{ "Transpose", infer_transpose, run_transpose },
	{ "Concat", infer_concat, run_concat },
	{ "Split", infer_split, run_split },
	{ "Expand", infer_expand, run_expand },
	{ "Tile", infer_tile, run_tile },
};

OX_TABLE(ane__ox_ops_shape, ops);
