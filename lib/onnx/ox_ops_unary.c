// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: elementwise ops of one tensor -- math and
 * activations (in double, stored to the dtype), their integer forms,
 * IsNaN/IsInf/Not, Clip, Cast and CastLike.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

/* Attribute parameters of an activation, in the order of p[]. */
struct unary {
	const char *op;
	double (*f)(double x, const double *p);
	int64_t (*fi)(int64_t x);	/* integer form, or NULL */
	unsigned int mask;		/* dtypes of the input */
	const char *pn[2];		/* parameter attributes */
	float pd[2];			/* and their defaults */
};

static double f_abs(double x, const double *p) { (void)p; return fabs(x); }
static double f_neg(double x, const double *p) { (void)p; return -x; }
static double f_sqrt(double x, const double *p) { (void)p; return sqrt(x); }
static double f_exp(double x, const double *p) { (void)p; return exp(x); }
static double f_log(double x, const double *p) { (void)p; return log(x); }
static double f_recip(double x, const double *p) { (void)p; return 1.0 / x; }
static double f_ceil(double x, const double *p) { (void)p; return ceil(x); }
static double f_floor(double x, const double *p) { (void)p; return floor(x); }
static double f_round(double x, const double *p) { (void)p; return nearbyint(x); }
static double f_tanh(double x, const double *p) { (void)p; return tanh(x); }
static double f_erf(double x, const double *p) { (void)p; return erf(x); }
static double f_sin(double x, const double *p) { (void)p; return sin(x); }
static double f_cos(double x, const double *p) { (void)p; return cos(x); }
static double f_tan(double x, const double *p) { (void)p; return tan(x); }
static double f_asin(double x, const double *p) { (void)p; return asin(x); }
static double f_acos(double x, const double *p) { (void)p; return acos(x); }
static double f_atan(double x, const double *p) { (void)p; return atan(x); }
static double f_sinh(double x, const double *p) { (void)p; return sinh(x); }
static double f_cosh(double x, const double *p) { (void)p; return cosh(x); }
static double f_asinh(double x, const double *p) { (void)p; return asinh(x); }
static double f_acosh(double x, const double *p) { (void)p; return acosh(x); }
static double f_atanh(double x, const double *p) { (void)p; return atanh(x); }

static double f_sign(double x, const double *p)
{
	(void)p;
	return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
}

static double f_sigmoid(double x, const double *p)
{
	(void)p;
	return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

static double f_relu(double x, const double *p)
{
	(void)p;
	return x > 0 ? x : x != x ? x : 0.0;
}

static double f_softplus(double x, const double *p)
{
	(void)p;
	return x > 30 ? x : log1p(exp(x));
}

static double f_softsign(double x, const double *p)
{
	(void)p;
	return x / (1.0 + fabs(x));
}

static double f_elu(double x, const double *p)
{
	return x < 0 ? p[0] * expm1(x) : x;
}

static double f_selu(double x, const double *p)
{
	return x > 0 ? p[1] * x : p[1] * (p[0] * exp(x) - p[0]);
}

static double f_leaky(double x, const double *p)
{
	return x < 0 ? p[0] * x : x;
}

static double f_hsigmoid(double x, const double *p)
{
	return fmax(0.0, fmin(1.0, p[0] * x + p[1]));
}

static double f_hswish(double x, const double *p)
{
	(void)p;
	return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
}

static double f_threlu(double x, const double *p)
{
	return x > p[0] ? x : 0.0;
}

static double f_celu(double x, const double *p)
{
	return fmax(0.0, x) + fmin(0.0, p[0] * expm1(x / p[0]));
}

static double f_shrink(double x, const double *p)
{
	return x < -p[1] ? x + p[0] : x > p[1] ? x - p[0] : 0.0;
}

static int64_t i_abs(int64_t x) { return x < 0 ? (int64_t)(0 - (uint64_t)x) : x; }
static int64_t i_neg(int64_t x) { return (int64_t)(0 - (uint64_t)x); }
static int64_t i_sign(int64_t x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
static int64_t i_relu(int64_t x) { return x > 0 ? x : 0; }

#define F_ONLY(name, fn) { name, fn, NULL, OXM_FLOAT, { NULL, NULL }, { 0, 0 } }
#define F_P1(name, fn, a, d) { name, fn, NULL, OXM_FLOAT, { a, NULL }, { d, 0 } }

static const struct unary unaries[] = {
	{ "Abs", f_abs, i_abs, OXM_NUM, { NULL, NULL }, { 0, 0 } },
	{ "Neg", f_neg, i_neg, OXM_FLOAT | OXM_SINT, { NULL, NULL }, { 0, 0 } },
	{ "Sign", f_sign, i_sign, OXM_NUM, { NULL, NULL }, { 0, 0 } },
	{ "Relu", f_relu, i_relu, OXM_FLOAT | OXM_SINT, { NULL, NULL }, { 0, 0 } },
	{ "Shrink", f_shrink, NULL, OXM_NUM, { "bias", "lambd" }, { 0.0f, 0.5f } },
	F_ONLY("Sqrt", f_sqrt), F_ONLY("Exp", f_exp), F_ONLY("Log", f_log),
	F_ONLY("Reciprocal", f_recip), F_ONLY("Ceil", f_ceil),
	F_ONLY("Floor", f_floor), F_ONLY("Round", f_round),
	F_ONLY("Sigmoid", f_sigmoid), F_ONLY("Tanh", f_tanh),
	F_ONLY("Erf", f_erf), F_ONLY("Sin", f_sin), F_ONLY("Cos", f_cos),
	F_ONLY("Tan", f_tan), F_ONLY("Asin", f_asin), F_ONLY("Acos", f_acos),
	F_ONLY("Atan", f_atan), F_ONLY("Sinh", f_sinh), F_ONLY("Cosh", f_cosh),
	F_ONLY("Asinh", f_asinh), F_ONLY("Acosh", f_acosh),
	F_ONLY("Atanh", f_atanh), F_ONLY("Softplus", f_softplus),
	F_ONLY("Softsign", f_softsign), F_ONLY("HardSwish", f_hswish),
	F_P1("Elu", f_elu, "alpha", 1.0f),
	F_P1("LeakyRelu", f_leaky, "alpha", 0.01f),
	F_P1("ThresholdedRelu", f_threlu, "alpha", 1.0f),
	F_P1("Celu", f_celu, "alpha", 1.0f),
	{ "Selu", f_selu, NULL, OXM_FLOAT, { "alpha", "gamma" },
	  { 1.67326319217681884765625f, 1.05070102214813232421875f } },
	{ "HardSigmoid", f_hsigmoid, NULL, OXM_FLOAT, { "alpha", "beta" },
	  { 0.2f, 0.5f } },
};

static const struct unary *find_unary(const char *op)
{
	size_t i;

	for (i = 0; i < sizeof(unaries) / sizeof(unaries[0]); i++)
		if (!strcmp(unaries[i].op, op))
			return &unaries[i];
	return NULL;
}

static int infer_unary(struct ox_ctx *c, const struct ox_node *n)
{
	const struct unary *u = find_unary(n->op_type);
	float f;
	int err, k;

	err = ane__ox_n_in(c, n, 1, 1);
	if (!err)
		err = ane__ox_chk_in(c, n, 0, "X", u->mask, 0, OX_MAX_RANK);
	for (k = 0; !err && k < 2 && u->pn[k]; k++)
		err = ane__ox_a_float(c, n, u->pn[k], u->pd[k], &f);
	if (!err && !strcmp(u->op, "Celu") && f == 0.0f)
		err = ane__ox_fail(c, n, EINVAL, "attribute 'alpha' is 0");
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_unary(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in,
		     struct ox_value *const *out)
{
	const struct unary *u = find_unary(n->op_type);
	const struct ox_value *x = in[0];
	struct ox_value *y = out[0];
	double p[2] = { 0, 0 };
	size_t i;
	int k;

	(void)c;
	for (k = 0; k < 2 && u->pn[k]; k++)
		p[k] = ane__ox_attr_f(n, u->pn[k], u->pd[k]);
	if (ox_is_uint(x->dtype) && u->fi) {
		/* Abs, Sign, Relu of unsigned values (Neg takes none). */
		for (i = 0; i < x->count; i++) {
			uint64_t v = ane__ox_get_u(x, i);

			ane__ox_set_i(y, i, u->fi == i_sign ? v != 0 : (int64_t)v);
		}
	} else if (!ox_is_float(x->dtype) && u->fi) {
		for (i = 0; i < x->count; i++)
			ane__ox_set_i(y, i, u->fi(ane__ox_get_i(x, i)));
	} else if (x->dtype == OX_FLOAT) {
		const float *xp = x->data;
		float *yp = y->data;

		for (i = 0; i < x->count; i++)
			yp[i] = (float)u->f(xp[i], p);
	} else {
		for (i = 0; i < x->count; i++)
			ane__ox_set_f(y, i, u->f(ane__ox_get_f(x, i), p));
	}
	return 0;
}

/* ------------------------------------------------------------ predicates */

static int infer_isx(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t v;
	int err = ane__ox_n_in(c, n, 1, 1);

	if (!err)
		err = ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 0, OX_MAX_RANK);
	if (!err && !strcmp(n->op_type, "IsInf"))
		err = ane__ox_a_int(c, n, "detect_negative", 1, 0, 1, &v) ?:
		      ane__ox_a_int(c, n, "detect_positive", 1, 0, 1, &v);
	return err ? err : ane__ox_set_out(c, n, 0, OX_BOOL, x->rank, x->dims);
}

static int run_isx(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	int nan = !strcmp(n->op_type, "IsNaN");
	int neg = (int)ane__ox_attr_i(n, "detect_negative", 1);
	int pos = (int)ane__ox_attr_i(n, "detect_positive", 1);
	uint8_t *y = out[0]->data;
	size_t i;

	(void)c;
	for (i = 0; i < in[0]->count; i++) {
		double v = ane__ox_get_f(in[0], i);

		y[i] = nan ? v != v : isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
	}
	return 0;
}

static int infer_not(struct ox_ctx *c, const struct ox_node *n)
{
	int err = ane__ox_n_in(c, n, 1, 1);

	if (!err)
		err = ane__ox_chk_in(c, n, 0, "X", OXM(OX_BOOL), 0, OX_MAX_RANK);
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_not(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	const uint8_t *x = in[0]->data;
	uint8_t *y = out[0]->data;
	size_t i;

	(void)c;
	(void)n;
	for (i = 0; i < in[0]->count; i++)
		y[i] = !x[i];
	return 0;
}

/* ------------------------------------------------------------ Clip */

static int infer_clip(struct ox_ctx *c, const struct ox_node *n)
{
	unsigned int mask = OX_OPSET(c) >= 12 ? OXM_NUM : OXM_FLOAT;
	float f;
	int err, i;

	err = ane__ox_n_in(c, n, 1, OX_OPSET(c) >= 11 ? 3 : 1);
	if (!err)
		err = ane__ox_chk_in(c, n, 0, "input", mask, 0, OX_MAX_RANK);
	for (i = 1; !err && i < 3; i++)
		if (ane__ox_in(c, n, i))
			err = ane__ox_chk_in(c, n, i, i == 1 ? "min" : "max",
					     mask, 0, 1) ?:
			      ane__ox_same_dtype(c, n, i, 0);
	for (i = 1; !err && i < 3; i++) {
		struct ox_tensor *t = ane__ox_in(c, n, i);

		if (t && t->rank == 1 && t->dims[0] != 1)
			err = ane__ox_fail(c, n, EINVAL,
					   "input %d '%s' has %lld values; it must be a scalar",
					   i, t->name, (long long)t->dims[0]);
	}
	if (!err && OX_OPSET(c) < 11)
		err = ane__ox_a_float(c, n, "min", -FLT_MAX, &f) ?:
		      ane__ox_a_float(c, n, "max", FLT_MAX, &f);
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_clip(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0], *lo = n->n_in > 1 ? in[1] : NULL,
			      *hi = n->n_in > 2 ? in[2] : NULL;
	size_t i;

	(void)c;
	if (ox_is_float(x->dtype) || OX_OPSET(c) < 11) {
		double a = lo ? ane__ox_get_f(lo, 0) : OX_OPSET(c) < 11 ?
			   ane__ox_attr_f(n, "min", -FLT_MAX) : -INFINITY;
		double b = hi ? ane__ox_get_f(hi, 0) : OX_OPSET(c) < 11 ?
			   ane__ox_attr_f(n, "max", FLT_MAX) : INFINITY;

		for (i = 0; i < x->count; i++) {
			double v = ane__ox_get_f(x, i);

			v = v < a ? a : v;
			ane__ox_set_f(out[0], i, v > b ? b : v);
		}
	} else if (ox_is_uint(x->dtype)) {
		uint64_t a = lo ? ane__ox_get_u(lo, 0) : 0;
		uint64_t b = hi ? ane__ox_get_u(hi, 0) : UINT64_MAX;

		for (i = 0; i < x->count; i++) {
			uint64_t v = ane__ox_get_u(x, i);

			v = v < a ? a : v;
			ane__ox_set_i(out[0], i, (int64_t)(v > b ? b : v));
		}
	} else {
		int64_t a = lo ? ane__ox_get_i(lo, 0) : INT64_MIN;
		int64_t b = hi ? ane__ox_get_i(hi, 0) : INT64_MAX;

		for (i = 0; i < x->count; i++) {
			int64_t v = ane__ox_get_i(x, i);

			v = v < a ? a : v;
			ane__ox_set_i(out[0], i, v > b ? b : v);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ Cast */

/* Opset 1's Cast names the dtype as a string ("FLOAT"). */
static int cast_to_name(const char *s)
{
	static const char *const names[OX_DTYPE_COUNT] = {
		[OX_FLOAT] = "FLOAT", [OX_UINT8] = "UINT8", [OX_INT8] = "INT8",
		[OX_UINT16] = "UINT16", [OX_INT16] = "INT16",
		[OX_INT32] = "INT32", [OX_INT64] = "INT64",
		[OX_STRING] = "STRING", [OX_BOOL] = "BOOL",
		[OX_FLOAT16] = "FLOAT16", [OX_DOUBLE] = "DOUBLE",
		[OX_UINT32] = "UINT32", [OX_UINT64] = "UINT64",
		[OX_BFLOAT16] = "BFLOAT16",
	};
	int i;

	for (i = 1; i < OX_DTYPE_COUNT; i++)
		if (names[i] && !strcasecmp(names[i], s))
			return i;
	return -1;
}

static int cast_target(struct ox_ctx *c, const struct ox_node *n, int *dt)
{
	const struct ox_attr *a = ane__ox_attr(n, "to");
	int64_t v;

	if (!a)
		return ane__ox_fail(c, n, EINVAL, "attribute 'to' is missing");
	if (a->type == OX_ATTR_STRING) {
		*dt = cast_to_name(a->s);
		if (*dt < 0)
			return ane__ox_fail(c, n, EINVAL,
					    "attribute 'to' is '%s', no dtype", a->s);
	} else {
		int err = ane__ox_a_int(c, n, "to", 0, 1, OX_DTYPE_COUNT - 1, &v);

		if (err)
			return err;
		*dt = (int)v;
	}
	if (!(OXM(*dt) & OXM_ALL))
		return ane__ox_fail(c, n, EOPNOTSUPP,
				    "attribute 'to' is %d (%s), which is not supported",
				    *dt, ane__ox_dtype_name(*dt));
	return 0;
}

static int infer_cast(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int err, dt = 0, like = !strcmp(n->op_type, "CastLike");

	err = ane__ox_n_in(c, n, like ? 2 : 1, like ? 2 : 1);
	if (!err)
		err = ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 0, OX_MAX_RANK);
	if (!err && like) {
		err = ane__ox_chk_in(c, n, 1, "target_type", OXM_ALL, 0,
				     OX_MAX_RANK);
		dt = err ? 0 : ane__ox_in(c, n, 1)->dtype;
	} else if (!err) {
		err = cast_target(c, n, &dt);
	}
	return err ? err : ane__ox_set_out(c, n, 0, dt, x->rank, x->dims);
}

static int run_cast(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	struct ox_value *y = out[0];
	size_t i;

	(void)c;
	(void)n;
	if (x->dtype == y->dtype) {
		if (x->count)
			memcpy(y->data, x->data,
			       x->count * ane__ox_dtype_size(x->dtype));
	} else if (y->dtype == OX_BFLOAT16) {
		/* onnx 1.12 (and its tests) truncate float to bfloat16. */
		for (i = 0; i < x->count; i++) {
			float f = (float)ane__ox_get_f(x, i);
			uint32_t b;

			memcpy(&b, &f, sizeof(b));
			((uint16_t *)y->data)[i] = (uint16_t)(b >> 16);
		}
	} else if (ox_is_float(x->dtype) || ox_is_float(y->dtype)) {
		for (i = 0; i < x->count; i++)
			ane__ox_set_f(y, i, ane__ox_get_f(x, i));
	} else {
		for (i = 0; i < x->count; i++)
			ane__ox_set_i(y, i, ane__ox_get_i(x, i));
	}
	return 0;
}

static const struct ox_op ops[] = {
	{ "Abs", infer_unary, run_unary },
	{ "Neg", infer_unary, run_unary },
	{ "Sign", infer_unary, run_unary },
	{ "Relu", infer_unary, run_unary },
	{ "Shrink", infer_unary, run_unary },
	{ "Sqrt", infer_unary, run_unary },
	{ "Exp", infer_unary, run_unary },
	{ "Log", infer_unary, run_unary },
	{ "Reciprocal", infer_unary, run_unary },
	{ "Ceil", infer_unary, run_unary },
	{ "Floor", infer_unary, run_unary },
	{ "Round", infer_unary, run_unary },
	{ "Sigmoid", infer_unary, run_unary },
	{ "Tanh", infer_unary, run_unary },
	{ "Erf", infer_unary, run_unary },
	{ "Sin", infer_unary, run_unary },
	{ "Cos", infer_unary, run_unary },
	{ "Tan", infer_unary, run_unary },
	{ "Asin", infer_unary, run_unary },
	{ "Acos", infer_unary, run_unary },
	{ "Atan", infer_unary, run_unary },
	{ "Sinh", infer_unary, run_unary },
	{ "Cosh", infer_unary, run_unary },
	{ "Asinh", infer_unary, run_unary },
	{ "Acosh", infer_unary, run_unary },
	{ "Atanh", infer_unary, run_unary },
	{ "Softplus", infer_unary, run_unary },
	{ "Softsign", infer_unary, run_unary },
	{ "HardSwish", infer_unary, run_unary },
	{ "Elu", infer_unary, run_unary },
	{ "LeakyRelu", infer_unary, run_unary },
	{ "ThresholdedRelu", infer_unary, run_unary },
	{ "Celu", infer_unary, run_unary },
	{ "Selu", infer_unary, run_unary },
	{ "HardSigmoid", infer_unary, run_unary },
	{ "IsNaN", infer_isx, run_isx },
	{ "IsInf", infer_isx, run_isx },
	{ "Not", infer_not, run_not },
	{ "Clip", infer_clip, run_clip },
	{ "Cast", infer_cast, run_cast },
	{ "CastLike", infer_cast, run_cast },
};

OX_TABLE(ane__ox_ops_unary, ops);
