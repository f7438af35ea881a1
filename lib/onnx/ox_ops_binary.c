// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: elementwise ops of two or more tensors with
 * numpy broadcasting (and opset < 7's 'broadcast'/'axis'): arithmetic,
 * Pow, Mod, BitShift, logic, comparisons, PRelu, the variadic
 * Max/Min/Sum/Mean and Where.  Floating point runs in double; integers
 * in 64 bits wrapping to the dtype as numpy does, division truncating.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

struct binop {
	const char *op;
	double (*f)(double a, double b);
	int64_t (*i)(int64_t a, int64_t b);
	uint64_t (*u)(uint64_t a, uint64_t b);
	unsigned int mask;	/* dtypes of the inputs */
	int cmp;		/* the output is bool */
	int legacy;		/* opset < 7 'broadcast' and 'axis' */
};

static double f_add(double a, double b) { return a + b; }
static double f_sub(double a, double b) { return a - b; }
static double f_mul(double a, double b) { return a * b; }
static double f_div(double a, double b) { return a / b; }
static double f_pow(double a, double b) { return pow(a, b); }
static double f_fmod(double a, double b) { return fmod(a, b); }
static double f_and(double a, double b) { return a != 0 && b != 0; }
static double f_or(double a, double b) { return a != 0 || b != 0; }
static double f_xor(double a, double b) { return (a != 0) != (b != 0); }
static double f_eq(double a, double b) { return a == b; }
static double f_gt(double a, double b) { return a > b; }
static double f_lt(double a, double b) { return a < b; }
static double f_ge(double a, double b) { return a >= b; }
static double f_le(double a, double b) { return a <= b; }
static double f_prelu(double a, double b) { return a < 0 ? a * b : a; }

static double f_max(double a, double b)
{
	return a != a ? a : b != b ? b : a > b ? a : b;
}

static double f_min(double a, double b)
{
	return a != a ? a : b != b ? b : a < b ? a : b;
}

static int64_t i_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t i_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t i_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t i_eq(int64_t a, int64_t b) { return a == b; }
static int64_t i_gt(int64_t a, int64_t b) { return a > b; }
static int64_t i_lt(int64_t a, int64_t b) { return a < b; }
static int64_t i_ge(int64_t a, int64_t b) { return a >= b; }
static int64_t i_le(int64_t a, int64_t b) { return a <= b; }
static int64_t i_max(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t i_min(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t i_prelu(int64_t a, int64_t b) { return a < 0 ? i_mul(a, b) : a; }

static int64_t i_div(int64_t a, int64_t b)
{
	if (!b)
		return 0;
	return b == -1 ? i_sub(0, a) : a / b;
}

static int64_t i_fmod(int64_t a, int64_t b)
{
	return !b || b == -1 ? 0 : a % b;
}

/* Python's %: the sign of the divisor. */
static int64_t i_mod(int64_t a, int64_t b)
{
	int64_t r = i_fmod(a, b);

	return r && (r < 0) != (b < 0) ? r + b : r;
}

static int64_t i_pow(int64_t a, int64_t b)
{
	uint64_t r = 1, x = (uint64_t)a;

	if (b < 0)
		return a == 1 ? 1 : a == -1 ? (b & 1 ? -1 : 1) : 0;
	for (; b; b >>= 1, x *= x)
		if (b & 1)
			r *= x;
	return (int64_t)r;
}

static uint64_t u_add(uint64_t a, uint64_t b) { return a + b; }
static uint64_t u_sub(uint64_t a, uint64_t b) { return a - b; }
static uint64_t u_mul(uint64_t a, uint64_t b) { return a * b; }
static uint64_t u_div(uint64_t a, uint64_t b) { return b ? a / b : 0; }
static uint64_t u_mod(uint64_t a, uint64_t b) { return b ? a % b : 0; }
static uint64_t u_pow(uint64_t a, uint64_t b) { return (uint64_t)i_pow((int64_t)a, (int64_t)(b & INT64_MAX)); }
static uint64_t u_shl(uint64_t a, uint64_t b) { return b >= 64 ? 0 : a << b; }
static uint64_t u_shr(uint64_t a, uint64_t b) { return b >= 64 ? 0 : a >> b; }
static uint64_t u_eq(uint64_t a, uint64_t b) { return a == b; }
static uint64_t u_gt(uint64_t a, uint64_t b) { return a > b; }
static uint64_t u_lt(uint64_t a, uint64_t b) { return a < b; }
static uint64_t u_ge(uint64_t a, uint64_t b) { return a >= b; }
static uint64_t u_le(uint64_t a, uint64_t b) { return a <= b; }
static uint64_t u_max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t u_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

#define B_CMP(name, s, m, leg) \
	{ name, f_##s, i_##s, u_##s, m, 1, leg }

static const struct binop binops[] = {
	{ "Add", f_add, i_add, u_add, OXM_NUM, 0, 1 },
	{ "Sub", f_sub, i_sub, u_sub, OXM_NUM, 0, 1 },
	{ "Mul", f_mul, i_mul, u_mul, OXM_NUM, 0, 1 },
	{ "Div", f_div, i_div, u_div, OXM_NUM, 0, 1 },
	{ "Pow", f_pow, i_pow, u_pow, OXM_NUM, 0, 1 },
	{ "Mod", f_fmod, i_mod, u_mod, OXM_NUM, 0, 0 },
	{ "Mod/fmod", f_fmod, i_fmod, u_mod, OXM_NUM, 0, 0 },
	{ "BitShift/LEFT", NULL, NULL, u_shl, OXM_UINT, 0, 0 },
	{ "BitShift/RIGHT", NULL, NULL, u_shr, OXM_UINT, 0, 0 },
	{ "And", f_and, NULL, NULL, OXM(OX_BOOL), 1, 1 },
	{ "Or", f_or, NULL, NULL, OXM(OX_BOOL), 1, 1 },
	{ "Xor", f_xor, NULL, NULL, OXM(OX_BOOL), 1, 1 },
	B_CMP("Equal", eq, OXM_ALL, 1),
	B_CMP("Greater", gt, OXM_NUM, 1),
	B_CMP("Less", lt, OXM_NUM, 1),
	B_CMP("GreaterOrEqual", ge, OXM_NUM, 0),
	B_CMP("LessOrEqual", le, OXM_NUM, 0),
	{ "PRelu", f_prelu, i_prelu, NULL, OXM_FLOAT | OXM_SINT, 0, 0 },
	{ "Max", f_max, i_max, u_max, OXM_NUM, 0, 0 },
	{ "Min", f_min, i_min, u_min, OXM_NUM, 0, 0 },
	{ "Sum", f_add, i_add, u_add, OXM_NUM, 0, 0 },
	{ "Mean", f_add, NULL, NULL, OXM_FLOAT, 0, 0 },
};

/* The op's entry; Mod and BitShift by their attribute. */
static const struct binop *find_binop(const struct ox_node *n)
{
	char name[48];
	size_t i;

	if (!strcmp(n->op_type, "Mod") && ane__ox_attr_i(n, "fmod", 0))
		snprintf(name, sizeof(name), "Mod/fmod");
	else if (!strcmp(n->op_type, "BitShift"))
		snprintf(name, sizeof(name), "BitShift/%s",
			 ane__ox_attr_s(n, "direction", ""));
	else
		snprintf(name, sizeof(name), "%s", n->op_type);
	for (i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (!strcmp(binops[i].op, name))
			return &binops[i];
	return NULL;
}

static int check_attrs(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_tensor *a)
{
	static const char *const dirs[] = { "LEFT", "RIGHT", NULL };
	const char *s;
	int64_t v;
	int err = 0;

	if (!strcmp(n->op_type, "Mod")) {
		err = ane__ox_a_int(c, n, "fmod", 0, 0, 1, &v);
		if (!err && !v && ox_is_float(a->dtype))
			err = ane__ox_fail(c, n, EINVAL,
					   "attribute 'fmod' is 0 and the inputs are %s; it must be 1 for floating point",
					   ane__ox_dtype_name(a->dtype));
	} else if (!strcmp(n->op_type, "BitShift")) {
		err = ane__ox_a_str(c, n, "direction", NULL, dirs, &s);
		if (!err && !s)
			err = ane__ox_fail(c, n, EINVAL,
					   "attribute 'direction' is missing");
	}
	return err;
}

/* Input 1's dtype: Pow's exponent may differ from the base from opset 12. */
static int check_b(struct ox_ctx *c, const struct ox_node *n,
		   const struct binop *b)
{
	if (!strcmp(b->op, "Pow") && OX_OPSET(c) >= 12)
		return ane__ox_chk_in(c, n, 1, "Y", OXM_NUM, 0, OX_MAX_RANK);
	return ane__ox_chk_in(c, n, 1, "B", b->mask, 0, OX_MAX_RANK) ?:
	       ane__ox_same_dtype(c, n, 1, 0);
}

/* Opset < 7's PRelu: a slope of X's channel count applies along dim 1. */
static int prelu_channels(int64_t opset, const struct binop *b, int xrank,
			  const int64_t *xd, int srank, const int64_t *sd)
{
	return opset < 7 && !strcmp(b->op, "PRelu") && srank == 1 && xrank >= 2 &&
	       sd[0] == xd[1] && sd[0] != 1;
}

static int infer_binary(struct ox_ctx *c, const struct ox_node *n)
{
	const struct binop *b = find_binop(n);
	struct ox_tensor *x = ane__ox_in(c, n, 0), *y = ane__ox_in(c, n, 1);
	int64_t dims[OX_MAX_RANK], db[OX_MAX_RANK];
	int err, rank, rb;

	err = ane__ox_n_in(c, n, 2, 2);
	if (!err)
		err = ane__ox_chk_in(c, n, 0, "A", b ? b->mask : OXM_UINT, 0,
				     OX_MAX_RANK);
	if (!err)
		err = check_attrs(c, n, x);
	if (!err)
		err = check_b(c, n, b);
	if (err)
		return err;
	if (b->legacy && OX_OPSET(c) < 7) {
		err = ane__ox_legacy_bcast(c, n, x, y, &rb, db);
		if (err)
			return err;
		return ane__ox_set_out(c, n, 0, b->cmp ? OX_BOOL : x->dtype,
				       x->rank, x->dims);
	}
	if (prelu_channels(OX_OPSET(c), b, x->rank, x->dims, y->rank, y->dims))
		return ane__ox_out_like(c, n, 0, 0);
	err = ane__ox_bcast(c, n, x->rank, x->dims, y->rank, y->dims, &rank,
			    dims);
	if (err)
		return err;
	if (!strcmp(b->op, "PRelu") &&
	    (rank != x->rank || memcmp(dims, x->dims, sizeof(int64_t) * (size_t)rank)))
		return ane__ox_fail(c, n, EINVAL,
				    "input 1 'slope' does not broadcast to input 0 'X''s shape");
	return ane__ox_set_out(c, n, 0, b->cmp ? OX_BOOL : x->dtype, rank, dims);
}

/* @z op= @x at the broadcast offsets (or @z = @x op @y). */
static void bin_loop(const struct binop *b, const struct ox_value *x,
		     const struct ox_value *y, struct ox_value *z)
{
	int fl = ox_is_float(x->dtype) || ox_is_float(y->dtype) || !b->i;
	int un = ox_is_uint(x->dtype) && b->u;
	struct ox_it it;
	size_t i;

	ane__ox_it_init(&it, z->rank, z->dims);
	ane__ox_it_add(&it, x);
	ane__ox_it_add(&it, y);
	for (i = 0; i < z->count; i++, ane__ox_it_next(&it)) {
		size_t ia = it.off[0], ib = it.off[1];

		if (un)
			ane__ox_set_i(z, i, (int64_t)b->u(ane__ox_get_u(x, ia),
							  ane__ox_get_u(y, ib)));
		else if (fl && b->cmp)
			ane__ox_set_i(z, i, b->f(ane__ox_get_f(x, ia),
						 ane__ox_get_f(y, ib)) != 0);
		else if (fl)
			ane__ox_set_f(z, i, b->f(ane__ox_get_f(x, ia),
						 ane__ox_get_f(y, ib)));
		else
			ane__ox_set_i(z, i, b->i(ane__ox_get_i(x, ia),
						 ane__ox_get_i(y, ib)));
	}
}

/* Opset < 7: B's dims placed at 'axis' of A's, padded with ones. */
static void legacy_view(const struct ox_node *n, const struct ox_value *a,
			const struct ox_value *b, struct ox_value *v)
{
	int64_t axis = ane__ox_attr_i(n, "axis", a->rank - b->rank);
	int k;

	*v = *b;
	v->rank = a->rank;
	for (k = 0; k < a->rank; k++)
		v->dims[k] = 1;
	for (k = 0; k < b->rank; k++)
		v->dims[axis + k] = b->dims[k];
}

static int run_binary(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	const struct binop *b = find_binop(n);
	struct ox_value view;
	int k;

	if (prelu_channels(OX_OPSET(c), b, in[0]->rank, in[0]->dims, in[1]->rank,
			   in[1]->dims)) {
		view = *in[1];
		view.rank = in[0]->rank;
		for (k = 0; k < view.rank; k++)
			view.dims[k] = k == 1 ? in[1]->dims[0] : 1;
		bin_loop(b, in[0], &view, out[0]);
	} else if (b->legacy && OX_OPSET(c) < 7 && ane__ox_attr_i(n, "broadcast", 0)) {
		legacy_view(n, in[0], in[1], &view);
		bin_loop(b, in[0], &view, out[0]);
	} else {
		bin_loop(b, in[0], in[1], out[0]);
	}
	return 0;
}

/* ------------------------------------------------------------ variadic */

static int infer_variadic(struct ox_ctx *c, const struct ox_node *n)
{
	const struct binop *b = find_binop(n);
	unsigned int mask = b->mask;
	struct ox_tensor *t;
	int64_t dims[OX_MAX_RANK] = { 0 };
	int err, i, rank = 0;

	if ((!strcmp(b->op, "Max") || !strcmp(b->op, "Min")) && OX_OPSET(c) < 12)
		mask = OXM_FLOAT;
	if (!strcmp(b->op, "Sum"))
		mask = OXM_FLOAT;
	err = ane__ox_n_in(c, n, 1, OX_MAX_IO);
	for (i = 0; !err && i < n->n_in; i++) {
		err = ane__ox_chk_in(c, n, i, "data_0", mask, 0, OX_MAX_RANK) ?:
		      ane__ox_same_dtype(c, n, i, 0);
		if (err)
			break;
		t = ane__ox_in(c, n, i);
		if (!i) {
			rank = t->rank;
			memcpy(dims, t->dims, sizeof(dims));
		} else if (OX_OPSET(c) < 8) {
			if (t->rank != rank ||
			    memcmp(t->dims, dims, sizeof(int64_t) * (size_t)rank))
				err = ane__ox_fail(c, n, EINVAL,
						   "input %d '%s' differs in shape from input 0; opset %lld does not broadcast",
						   i, t->name, (long long)OX_OPSET(c));
		} else {
			err = ane__ox_bcast(c, n, rank, dims, t->rank, t->dims,
					    &rank, dims);
		}
	}
	return err ? err : ane__ox_set_out(c, n, 0, ane__ox_in(c, n, 0)->dtype,
					   rank, dims);
}

static int run_variadic(struct ox_ctx *c, const struct ox_node *n,
			const struct ox_value *const *in,
			struct ox_value *const *out)
{
	const struct binop *b = find_binop(n);
	struct ox_value *z = out[0];
	struct ox_it it;
	size_t i;
	int k;

	(void)c;
	ane__ox_it_init(&it, z->rank, z->dims);
	ane__ox_it_add(&it, in[0]);
	for (i = 0; i < z->count; i++, ane__ox_it_next(&it))
		ox_copy_el(z, i, in[0], it.off[0], ane__ox_dtype_size(z->dtype));
	for (k = 1; k < n->n_in; k++)
		bin_loop(b, z, in[k], z);
	if (!strcmp(b->op, "Mean"))
		for (i = 0; i < z->count; i++)
			ane__ox_set_f(z, i, ane__ox_get_f(z, i) / n->n_in);
	return 0;
}

/* ------------------------------------------------------------ Where */

static int infer_where(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *t;
	int64_t dims[OX_MAX_RANK] = { 0 };
	int err, i, rank = 0;

	err = ane__ox_n_in(c, n, 3, 3) ?:
	      ane__ox_chk_in(c, n, 0, "condition", OXM(OX_BOOL), 0, OX_MAX_RANK) ?:
	      ane__ox_chk_in(c, n, 1, "X", OXM_ALL, 0, OX_MAX_RANK) ?:
	      ane__ox_chk_in(c, n, 2, "Y", OXM_ALL, 0, OX_MAX_RANK) ?:
	      ane__ox_same_dtype(c, n, 2, 1);
	for (i = 0; !err && i < 3; i++) {
		t = ane__ox_in(c, n, i);
		err = ane__ox_bcast(c, n, rank, dims, t->rank, t->dims, &rank,
				    dims);
	}
	return err ? err : ane__ox_set_out(c, n, 0, ane__ox_in(c, n, 1)->dtype,
					   rank, dims);
}

static int run_where(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in,
		     struct ox_value *const *out)
{
	size_t es = ane__ox_dtype_size(out[0]->dtype), i;
	const uint8_t *cond = in[0]->data;
	struct ox_it it;

	(void)c;
	(void)n;
	ane__ox_it_init(&it, out[0]->rank, out[0]->dims);
	ane__ox_it_add(&it, in[0]);
	ane__ox_it_add(&it, in[1]);
	ane__ox_it_add(&it, in[2]);
	for (i = 0; i < out[0]->count; i++, ane__ox_it_next(&it)) {
		if (cond[it.off[0]])
			ox_copy_el(out[0], i, in[1], it.off[1], es);
		else
			ox_copy_el(out[0], i, in[2], it.off[2], es);
	}
	return 0;
}

static const struct ox_op ops[] = {
	{ "Add", infer_binary, run_binary },
	{ "Sub", infer_binary, run_binary },
	{ "Mul", infer_binary, run_binary },
	{ "Div", infer_binary, run_binary },
	{ "Pow", infer_binary, run_binary },
	{ "Mod", infer_binary, run_binary },
	{ "BitShift", infer_binary, run_binary },
	{ "And", infer_binary, run_binary },
	{ "Or", infer_binary, run_binary },
	{ "Xor", infer_binary, run_binary },
	{ "Equal", infer_binary, run_binary },
	{ "Greater", infer_binary, run_binary },
	{ "Less", infer_binary, run_binary },
	{ "GreaterOrEqual", infer_binary, run_binary },
	{ "LessOrEqual", infer_binary, run_binary },
	{ "PRelu", infer_binary, run_binary },
	{ "Max", infer_variadic, run_variadic },
	{ "Min", infer_variadic, run_variadic },
	{ "Sum", infer_variadic, run_variadic },
	{ "Mean", infer_variadic, run_variadic },
	{ "Where", infer_where, run_where },
};

OX_TABLE(ane__ox_ops_binary, ops);
