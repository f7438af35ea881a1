// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: ops that make or reshape tensors -- Constant,
 * ConstantOfShape, Range, EyeLike, Shape, Size, Reshape, Flatten,
 * Squeeze, Unsqueeze, Transpose, Concat, Split, Expand, Tile, Dropout.
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

/* ------------------------------------------------------------ Constant */

/* The one value attribute of a Constant, opset 12's as well. */
static const struct ox_attr *constant_attr(struct ox_ctx *c,
					   const struct ox_node *n, int *err)
{
	static const char *const names[] = {
		"value", "value_float", "value_floats", "value_int",
		"value_ints", "value_string", "value_strings", "sparse_value",
	};
	const struct ox_attr *a = NULL, *b;
	size_t i;

	*err = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		b = ane__ox_attr(n, names[i]);
		if (b && a) {
			*err = ane__ox_fail(c, n, EINVAL,
					    "attributes '%s' and '%s' are both given; one value is",
					    a->name, b->name);
			return NULL;
		}
		a = b ? b : a;
	}
	if (!a)
		*err = ane__ox_fail(c, n, EINVAL, "attribute 'value' is missing");
	else if (i = strlen(a->name), a->name[i - 1] == 'g' || a->name[i - 2] == 'g' ||
		 a->name[0] == 's')
		*err = ane__ox_fail(c, n, EOPNOTSUPP,
				    "attribute '%s': string and sparse constants are not supported",
				    a->name);
	else if (!strcmp(a->name, "value") && a->type != OX_ATTR_TENSOR)
		*err = ane__ox_fail(c, n, EINVAL, "attribute 'value' is not a tensor");
	else if (OX_OPSET(c) < 12 && strcmp(a->name, "value"))
		*err = ane__ox_fail(c, n, EINVAL,
				    "attribute '%s' is from opset 12; the model's is %lld",
				    a->name, (long long)OX_OPSET(c));
	else if (a->type != OX_ATTR_TENSOR &&
		 a->type != (a->name[6] == 'f' ? (a->name[11] ? OX_ATTR_FLOATS : OX_ATTR_FLOAT) :
			     (a->name[9] ? OX_ATTR_INTS : OX_ATTR_INT)))
		*err = ane__ox_fail(c, n, EINVAL, "attribute '%s' has type %d",
				    a->name, a->type);
	return *err ? NULL : a;
}

static int infer_constant(struct ox_ctx *c, const struct ox_node *n)
{
	const struct ox_attr *a;
	int64_t len;
	int err;

	if (n->n_in)
		return ane__ox_fail(c, n, EINVAL, "%d inputs; it takes none", n->n_in);
	a = constant_attr(c, n, &err);
	if (!a)
		return err;
	if (a->type == OX_ATTR_TENSOR) {
		if (!(OXM(a->t->dtype) & OXM_ALL))
			return ane__ox_fail(c, n, EOPNOTSUPP, "a %s constant is not supported",
					    ane__ox_dtype_name(a->t->dtype));
		return ane__ox_set_out(c, n, 0, a->t->dtype, a->t->rank, a->t->dims);
	}
	len = (int64_t)a->n;
	if (a->type == OX_ATTR_FLOATS || a->type == OX_ATTR_INTS)
		return ane__ox_set_out(c, n, 0, a->type == OX_ATTR_INTS ? OX_INT64 :
				       OX_FLOAT, 1, &len);
	return ane__ox_set_out(c, n, 0, a->type == OX_ATTR_INT ? OX_INT64 : OX_FLOAT,
			       0, NULL);
}

static int run_constant(struct ox_ctx *c, const struct ox_node *n,
			const struct ox_value *const *in,
			struct ox_value *const *out)
{
	const struct ox_attr *a;
	size_t i;
	int err;

	(void)in;
	a = constant_attr(c, n, &err);
	if (!a)
		return err;
	if (a->type == OX_ATTR_TENSOR)
		ane__ox_copy_all(out[0], a->t);
	else if (a->type == OX_ATTR_FLOAT)
		ane__ox_set_f(out[0], 0, a->f);
	else if (a->type == OX_ATTR_INT)
		ane__ox_set_i(out[0], 0, a->i);
	for (i = 0; a->type == OX_ATTR_FLOATS && i < a->n; i++)
		ane__ox_set_f(out[0], i, a->floats[i]);
	for (i = 0; a->type == OX_ATTR_INTS && i < a->n; i++)
		ane__ox_set_i(out[0], i, a->ints[i]);
	return 0;
}

/* ------------------------------------------------------------ ConstantOfShape */

static int infer_cos(struct ox_ctx *c, const struct ox_node *n)
{
	const struct ox_attr *a = ane__ox_attr(n, "value");
	int64_t dims[OX_MAX_RANK + 1];
	size_t cnt, k;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_const_ints(c, n, 0, "input", dims, OX_MAX_RANK + 1, &cnt);

	if (err)
		return err;
	if (ane__ox_in(c, n, 0)->dtype != OX_INT64)
		return ane__ox_fail(c, n, EINVAL, "input 0 (input) must be int64");
	for (k = 0; k < cnt; k++)
		if (dims[k] < 0)
			return ane__ox_fail(c, n, EINVAL, "input 0 (input) [%zu] is %lld, negative",
					    k, (long long)dims[k]);
	if (a && (a->type != OX_ATTR_TENSOR || a->t->count != 1 ||
		  !(OXM(a->t->dtype) & OXM_ALL)))
		return ane__ox_fail(c, n, EINVAL,
				    "attribute 'value' must be a one-element numeric or bool tensor");
	return ane__ox_set_out(c, n, 0, a ? a->t->dtype : OX_FLOAT, (int)cnt, dims);
}

static int run_cos(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_attr *a = ane__ox_attr(n, "value");
	size_t i, es = ane__ox_dtype_size(out[0]->dtype);

	(void)c;
	(void)in;
	for (i = 0; a && i < out[0]->count; i++)
		ox_copy_el(out[0], i, a->t, 0, es);
	return 0;
}

/* ------------------------------------------------------------ Range */

static int infer_range(struct ox_ctx *c, const struct ox_node *n)
{
	unsigned int mask = OXM(OX_FLOAT) | OXM(OX_DOUBLE) | OXM(OX_INT16) |
			    OXM_I32_64;
	const struct ox_value *v[3];
	int64_t len;
	int err = ane__ox_n_in(c, n, 3, 3), i;

	for (i = 0; !err && i < 3; i++)
		err = ane__ox_chk_in(c, n, i, i ? i == 1 ? "limit" : "delta" : "start",
				     mask, 0, 1) ?: ane__ox_same_dtype(c, n, i, 0);
	for (i = 0; !err && i < 3; i++) {
		v[i] = ane__ox_const_in(c, n, i, "a bound of the range");
		if (!v[i])
			return -EINVAL;
		if (v[i]->count != 1)
			return ane__ox_fail(c, n, EINVAL, "input %d is not a scalar", i);
	}
	if (err)
		return err;
	if (ox_is_float(v[0]->dtype)) {
		double s = ane__ox_get_f(v[0], 0), l = ane__ox_get_f(v[1], 0),
		       d = ane__ox_get_f(v[2], 0), q = ceil((l - s) / d);

		if (d == 0 || q != q || q > 9e18)
			return ane__ox_fail(c, n, EINVAL,
					    "input 2 (delta) is %g: the range is empty or endless", d);
		len = q > 0 ? (int64_t)q : 0;
	} else {
		int64_t s = ane__ox_get_i(v[0], 0), l = ane__ox_get_i(v[1], 0),
			d = ane__ox_get_i(v[2], 0);
		double q = ceil(((double)l - (double)s) / (double)d);

		if (!d)
			return ane__ox_fail(c, n, EINVAL, "input 2 (delta) is 0");
		len = q > 0 ? (int64_t)q : 0;
	}
	return ane__ox_set_out(c, n, 0, v[0]->dtype, 1, &len);
}

static int run_range(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in,
		     struct ox_value *const *out)
{
	size_t i;

	(void)c;
	(void)n;
	for (i = 0; i < out[0]->count; i++) {
		if (ox_is_float(in[0]->dtype))
			ane__ox_set_f(out[0], i, ane__ox_get_f(in[0], 0) +
				      (double)i * ane__ox_get_f(in[2], 0));
		else
			ane__ox_set_i(out[0], i, ane__ox_get_i(in[0], 0) +
				      (int64_t)i * ane__ox_get_i(in[2], 0));
	}
	return 0;
}

/* ------------------------------------------------------------ EyeLike */

static int infer_eyelike(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t dt, k;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 2, 2) ?:
		  ane__ox_a_int(c, n, "k", 0, INT64_MIN, INT64_MAX, &k) ?:
		  ane__ox_a_int(c, n, "dtype", x->dtype, 1, OX_DTYPE_COUNT - 1, &dt);

	if (!err && !(OXM(dt) & OXM_ALL))
		err = ane__ox_fail(c, n, EINVAL, "attribute 'dtype' is %lld (%s)",
				   (long long)dt, ane__ox_dtype_name((int)dt));
	return err ? err : ane__ox_set_out(c, n, 0, (int)dt, 2, x->dims);
}

static int run_eyelike(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_value *const *in,
		       struct ox_value *const *out)
{
	int64_t k = ane__ox_attr_i(n, "k", 0), r, rows = out[0]->dims[0],
		cols = out[0]->dims[1];

	(void)c;
	(void)in;
	for (r = 0; r < rows; r++)
		if (r + k >= 0 && r + k < cols)
			ane__ox_set_i(out[0], (size_t)(r * cols + r + k), 1);
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
		if (sz[k] < 0)
			return ane__ox_fail(c, n, EINVAL, "split[%d] is negative", k);
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

/* ------------------------------------------------------------ Dropout */

/* Inference: the input, and a mask of ones; training mode is refused. */
static int infer_dropout(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t v;
	float r;
	int err = ane__ox_n_in(c, n, 1, OX_OPSET(c) >= 12 ? 3 : 1) ?:
		  ane__ox_chk_in(c, n, 0, "data", OXM_FLOAT, 0, OX_MAX_RANK);

	if (!err && OX_OPSET(c) < 12)
		err = ane__ox_a_float(c, n, "ratio", 0.5f, &r);
	if (!err && OX_OPSET(c) < 7)
		err = ane__ox_a_int(c, n, "is_test", 0, 0, 1, &v);
	if (!err && OX_OPSET(c) >= 12)
		err = ane__ox_a_int(c, n, "seed", 0, INT64_MIN, INT64_MAX, &v);
	if (!err && ane__ox_in(c, n, 2)) {
		const struct ox_value *t = ane__ox_const_in(c, n, 2, "training_mode");

		if (!t)
			return -EINVAL;
		if (t->count != 1 || t->dtype != OX_BOOL)
			return ane__ox_fail(c, n, EINVAL,
					    "input 2 (training_mode) must be a bool scalar");
		if (ane__ox_get_i(t, 0))
			return ane__ox_fail(c, n, EOPNOTSUPP,
					    "input 2 (training_mode) is true: random dropout is not supported");
	}
	if (!err && n->n_out > 2)
		err = ane__ox_fail(c, n, EINVAL, "%d outputs; it has 2", n->n_out);
	if (!err)
		err = ane__ox_out_like(c, n, 0, 0);
	if (!err)
		err = ane__ox_set_out(c, n, 1, OX_OPSET(c) >= 10 ? OX_BOOL : x->dtype,
				      x->rank, x->dims);
	return err;
}

static int run_dropout(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_value *const *in,
		       struct ox_value *const *out)
{
	size_t i;

	run_copy(c, n, in, out);
	for (i = 0; n->n_out > 1 && out[1] && i < out[1]->count; i++)
		ane__ox_set_i(out[1], i, 1);
	return 0;
}

static const struct ox_op ops[] = {
	{ "Constant", infer_constant, run_constant },
	{ "ConstantOfShape", infer_cos, run_cos },
	{ "Range", infer_range, run_range },
	{ "EyeLike", infer_eyelike, run_eyelike },
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
	{ "Dropout", infer_dropout, run_dropout },
};

OX_TABLE(ane__ox_ops_shape, ops);
