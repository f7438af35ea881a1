// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: ops that make tensors -- Constant,
 * ConstantOfShape, Range, EyeLike, the window functions (HannWindow,
 * HammingWindow, BlackmanWindow) -- and Dropout in inference.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

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

/* ------------------------------------------------------------ Dropout */

/*
 * Training mode (opset 12's input 2) is random unless the ratio is a
 * constant 0: refused then.  Otherwise the input, and a mask of ones.
 */
static int dropout_training(struct ox_ctx *c, const struct ox_node *n)
{
	const struct ox_value *t = ane__ox_const_in(c, n, 2, "training_mode"), *r;

	if (!t)
		return -EINVAL;
	if (t->count != 1 || t->dtype != OX_BOOL)
		return ane__ox_fail(c, n, EINVAL,
				    "input 2 (training_mode) must be a bool scalar");
	if (!ane__ox_get_i(t, 0))
		return 0;
	r = ane__ox_in(c, n, 1) ? ane__ox_const_in(c, n, 1, "ratio") : NULL;
	if (!r || r->count != 1 || ane__ox_get_f(r, 0) != 0)
		return ane__ox_fail(c, n, EOPNOTSUPP,
				    "input 2 (training_mode) is true and the ratio is not a constant 0: random dropout is not supported");
	return 0;
}

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
	if (!err && ane__ox_in(c, n, 1))
		err = ane__ox_chk_in(c, n, 1, "ratio", OXM_FLOAT, 0, 0);
	if (!err && ane__ox_in(c, n, 2))
		err = dropout_training(c, n);
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

	(void)c;
	ane__ox_copy_all(out[0], in[0]);
	for (i = 0; n->n_out > 1 && out[1] && i < out[1]->count; i++)
		ane__ox_set_i(out[1], i, 1);
	return 0;
}

/* ------------------------------------------------------------ windows */

static int infer_window(struct ox_ctx *c, const struct ox_node *n)
{
	const struct ox_value *sz;
	int64_t dt, per, len;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "size", OXM_I32_64, 0, 0) ?:
		  ane__ox_a_int(c, n, "output_datatype", OX_FLOAT, 1, OX_DTYPE_COUNT - 1, &dt) ?:
		  ane__ox_a_int(c, n, "periodic", 1, 0, 1, &per);

	if (!err && !(OXM(dt) & OXM_NUM))
		err = ane__ox_fail(c, n, EINVAL, "attribute 'output_datatype' is %lld",
				   (long long)dt);
	if (err)
		return err;
	sz = ane__ox_const_in(c, n, 0, "size");
	if (!sz)
		return -EINVAL;
	len = ane__ox_get_i(sz, 0);
	if (len < 0)
		return ane__ox_fail(c, n, EINVAL, "input 0 (size) is %lld", (long long)len);
	return ane__ox_set_out(c, n, 0, (int)dt, 1, &len);
}

static int run_window(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	int per = (int)ane__ox_attr_i(n, "periodic", 1);
	double N = (double)out[0]->count - (per ? 0 : 1), a0 = 0.5, a1 = 0.5, a2 = 0;
	size_t i;

	(void)c;
	(void)in;
	if (!strcmp(n->op_type, "HammingWindow"))
		a0 = 25.0 / 46, a1 = 21.0 / 46;
	else if (!strcmp(n->op_type, "BlackmanWindow"))
		a0 = 0.42, a2 = 0.08;
	for (i = 0; i < out[0]->count; i++) {
		double x = N > 0 ? 2 * M_PI * (double)i / N : 0;

		ane__ox_set_f(out[0], i, a0 - a1 * cos(x) + a2 * cos(2 * x));
	}
	return 0;
}

static const struct ox_op ops[] = {
	{ "Constant", infer_constant, run_constant },
	{ "ConstantOfShape", infer_cos, run_cos },
	{ "Range", infer_range, run_range },
	{ "EyeLike", infer_eyelike, run_eyelike },
	{ "Dropout", infer_dropout, run_dropout },
	{ "HannWindow", infer_window, run_window },
	{ "HammingWindow", infer_window, run_window },
	{ "BlackmanWindow", infer_window, run_window },
};

OX_TABLE(ane__ox_ops_make, ops);
