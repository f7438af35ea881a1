// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: Einsum (explicit and implicit output, '...',
 * repeated labels for diagonals) and the quantization ops --
 * QuantizeLinear, DequantizeLinear (per tensor or per axis) and
 * DynamicQuantizeLinear.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

/* ------------------------------------------------------------ Einsum */

#define EIN_LABELS	(52 + OX_MAX_RANK)	/* a-z A-Z, then '...' dims */

struct ein {
	int n_in;
	int lab[OX_MAX_IO][OX_MAX_RANK];	/* each input dim's label */
	int out[OX_MAX_RANK], n_out;		/* the output's labels */
	int64_t size[EIN_LABELS];
	int used[EIN_LABELS];
	int ell;				/* '...' dims */
};

static int ein_letter(char ch)
{
	return ch >= 'a' && ch <= 'z' ? ch - 'a' : ch >= 'A' && ch <= 'Z' ?
	       26 + ch - 'A' : -1;
}

/* One term's labels for a tensor of @rank dims into @lab; -1 on error. */
static int ein_term(const char *s, size_t len, int rank, int *lab, int *ell)
{
	int letters = 0, k = 0, e, dots = 0;
	size_t i;

	for (i = 0; i < len; i++)
		letters += ein_letter(s[i]) >= 0;
	for (i = 0; i < len; i++) {
		if (s[i] == ' ')
			continue;
		if (s[i] == '.' && i + 2 < len && s[i + 1] == '.' && s[i + 2] == '.' && !dots) {
			dots = 1;
			*ell = rank - letters;
			if (*ell < 0)
				return -1;
			for (e = 0; e < *ell; e++)
				lab[k++] = 52 + OX_MAX_RANK - *ell + e;
			i += 2;
			continue;
		}
		if (ein_letter(s[i]) < 0 || k >= rank)
			return -1;
		lab[k++] = ein_letter(s[i]);
	}
	return k == rank ? 0 : -1;
}

static int ein_parse(struct ox_ctx *c, const struct ox_node *n, struct ein *e)
{
	const char *eq = ane__ox_attr_s(n, "equation", NULL), *p, *arrow;
	int i, k, ell = 0, cnt[EIN_LABELS] = { 0 };

	memset(e, 0, sizeof(*e));
	if (!eq)
		return ane__ox_fail(c, n, EINVAL, "attribute 'equation' is missing");
	arrow = strstr(eq, "->");
	p = eq;
	for (i = 0; i < n->n_in; i++) {
		const char *end = strchr(p, ',');
		struct ox_tensor *t = ane__ox_in(c, n, i);
		int te = 0;

		if (!end || (arrow && end > arrow))
			end = arrow ? arrow : p + strlen(p);
		if ((i < n->n_in - 1) != (*end == ',') ||
		    ein_term(p, (size_t)(end - p), t->rank, e->lab[i], &te))
			return ane__ox_fail(c, n, EINVAL,
					    "attribute 'equation' '%s': term %d does not fit input %d's rank %d",
					    eq, i, i, t->rank);
		ell = te > ell ? te : ell;
		for (k = 0; k < t->rank; k++) {
			int l = e->lab[i][k];
			int64_t d = t->dims[k];

			cnt[l]++;
			if (e->used[l] && e->size[l] != d && d != 1 && e->size[l] != 1)
				return ane__ox_fail(c, n, EINVAL,
						    "attribute 'equation': a label is %lld and %lld long",
						    (long long)e->size[l], (long long)d);
			if (!e->used[l] || e->size[l] == 1)
				e->size[l] = d;
			e->used[l] = 1;
		}
		p = end + 1;
	}
	e->n_in = n->n_in;
	e->ell = ell;
	if (arrow) {
		int dummy = 0;
		size_t len = strlen(arrow + 2);
		int r = 0;

		for (k = 0; k < (int)len; k++)
			r += ein_letter(arrow[2 + k]) >= 0;
		r += strstr(arrow + 2, "...") ? ell : 0;
		if (r > OX_MAX_RANK || ein_term(arrow + 2, len, r, e->out, &dummy))
			return ane__ox_fail(c, n, EINVAL,
					    "attribute 'equation' '%s': the output term is not valid", eq);
		e->n_out = r;
		for (k = 0; k < r; k++)
			if (!e->used[e->out[k]])
				return ane__ox_fail(c, n, EINVAL,
						    "attribute 'equation' '%s': an output label is in no input",
						    eq);
		return 0;
	}
	for (k = 0; k < ell; k++)
		e->out[e->n_out++] = 52 + OX_MAX_RANK - ell + k;
	for (k = 26; k < 52 + 26; k++) {
		int l = k % 52;

		if (cnt[l] == 1 && e->n_out < OX_MAX_RANK)
			e->out[e->n_out++] = l;
	}
	return 0;
}

static int infer_einsum(struct ox_ctx *c, const struct ox_node *n)
{
	int64_t dims[OX_MAX_RANK];
	struct ein e;
	int i, err = ane__ox_n_in(c, n, 1, OX_MAX_IO);

	for (i = 0; !err && i < n->n_in; i++)
		err = ane__ox_chk_in(c, n, i, "Inputs", OXM_NUM, 0, OX_MAX_RANK) ?:
		      ane__ox_same_dtype(c, n, i, 0);
	if (!err)
		err = ein_parse(c, n, &e);
	if (err)
		return err;
	for (i = 0; i < e.n_out; i++)
		dims[i] = e.size[e.out[i]];
	return ane__ox_set_out(c, n, 0, ane__ox_in(c, n, 0)->dtype, e.n_out, dims);
}

static int run_einsum(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	int order[EIN_LABELS], nl = 0, i, k, l, err;
	int64_t idx[EIN_LABELS] = { 0 }, st[OX_MAX_IO][EIN_LABELS], ost[EIN_LABELS];
	int64_t xs[OX_MAX_RANK];
	double *y;
	struct ein e;

	err = ein_parse(c, n, &e);
	if (err)
		return err;
	memset(st, 0, sizeof(st));
	memset(ost, 0, sizeof(ost));
	for (k = 0; k < e.n_out; k++)
		order[nl++] = e.out[k];
	for (l = 0; l < EIN_LABELS; l++) {
		for (k = 0; k < e.n_out && e.out[k] != l; k++)
			;
		if (e.used[l] && k == e.n_out)
			order[nl++] = l;
	}
	ane__ox_strides(out[0]->rank, out[0]->dims, xs);
	for (k = 0; k < e.n_out; k++)
		ost[e.out[k]] += xs[k];
	for (i = 0; i < e.n_in; i++) {
		ane__ox_strides(in[i]->rank, in[i]->dims, xs);
		for (k = 0; k < in[i]->rank; k++)
			if (in[i]->dims[k] != 1)
				st[i][e.lab[i][k]] += xs[k];
	}
	y = calloc(out[0]->count + 1, sizeof(*y));
	if (!y)
		return ane__ox_nomem(c, n);
	for (;;) {
		double p = 1;
		int64_t o = 0;

		for (k = 0; k < nl && e.size[order[k]]; k++)
			;
		if (k < nl)
			break;	/* an empty label: nothing to add */
		for (i = 0; i < e.n_in; i++) {
			int64_t off = 0;

			for (k = 0; k < nl; k++)
				off += idx[order[k]] * st[i][order[k]];
			p *= ane__ox_get_f(in[i], (size_t)off);
		}
		for (k = 0; k < e.n_out; k++)
			o += idx[e.out[k]] * ost[e.out[k]];
		y[o] += p;
		for (k = nl - 1; k >= 0 && ++idx[order[k]] == e.size[order[k]]; k--)
			idx[order[k]] = 0;
		if (k < 0)
			break;
	}
	ane__ox_store_f(out[0], y);
	free(y);
	return 0;
}

/* ------------------------------------------------------------ Quantize, Dequantize */

/* Scale and zero point: scalars, or 1-D along 'axis' (opset 13). */
static int q_params(struct ox_ctx *c, const struct ox_node *n, int *axis)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *s = ane__ox_in(c, n, 1);
	struct ox_tensor *z = ane__ox_in(c, n, 2);
	int err = ane__ox_chk_in(c, n, 1, "scale", OXM(OX_FLOAT), 0, 1);

	*axis = -1;
	if (!err && z)
		err = ane__ox_chk_in(c, n, 2, "zero_point",
				     OXM(OX_UINT8) | OXM(OX_INT8) | OXM(OX_INT32), 0, 1);
	if (!err && z && (z->rank != s->rank || (s->rank && z->dims[0] != s->dims[0])))
		err = ane__ox_fail(c, n, EINVAL, "inputs 1 and 2 differ in shape");
	if (err || !s->rank || (s->dims[0] == 1 && OX_OPSET(c) < 13))
		return err;
	if (OX_OPSET(c) < 13)
		return ane__ox_fail(c, n, EINVAL, "input 1 (scale) must be a scalar in opset %lld",
				    (long long)OX_OPSET(c));
	err = ane__ox_axis_attr(c, n, "axis", 1, x->rank, axis);
	if (!err && s->dims[0] != x->dims[*axis])
		err = ane__ox_fail(c, n, EINVAL,
				   "input 1 (scale) has %lld values; axis %d is %lld",
				   (long long)s->dims[0], *axis, (long long)x->dims[*axis]);
	return err;
}

static int infer_quant(struct ox_ctx *c, const struct ox_node *n)
{
	int q = !strcmp(n->op_type, "QuantizeLinear"), axis;
	struct ox_tensor *x = ane__ox_in(c, n, 0), *z = ane__ox_in(c, n, 2);
	int err = ane__ox_n_in(c, n, 2, 3) ?:
		  ane__ox_chk_in(c, n, 0, "x", q ? OXM(OX_FLOAT) | OXM(OX_INT32) :
				 OXM(OX_UINT8) | OXM(OX_INT8) | OXM(OX_INT32), 0,
				 OX_MAX_RANK) ?:
		  q_params(c, n, &axis);

	if (!err && !q && z)
		err = ane__ox_same_dtype(c, n, 2, 0);
	if (!err && q && z && z->dtype == OX_INT32)
		err = ane__ox_fail(c, n, EINVAL, "input 2 (y_zero_point) must be uint8 or int8");
	if (err)
		return err;
	return ane__ox_set_out(c, n, 0, q ? z ? z->dtype : OX_UINT8 : OX_FLOAT,
			       x->rank, x->dims);
}

static int run_quant(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0], *s = in[1], *z = n->n_in > 2 ? in[2] : NULL;
	int q = !strcmp(n->op_type, "QuantizeLinear"), axis = -1;
	size_t inner = 1, i;

	if (s->count > 1 || (s->rank && OX_OPSET(c) >= 13)) {
		ane__ox_axis_attr(c, n, "axis", 1, x->rank, &axis);
		inner = (size_t)ane__ox_prod(x->dims, axis + 1, x->rank);
	}
	for (i = 0; i < x->count; i++) {
		size_t k = s->count > 1 ? (i / inner) % s->count : 0;
		double sc = ane__ox_get_f(s, k);
		int64_t zp = z ? ane__ox_get_i(z, k) : 0;

		/* x / scale in float, as the reference rounds it. */
		if (q && x->dtype == OX_FLOAT)
			ane__ox_set_i(out[0], i, ane__ox_quant((float)ane__ox_get_f(x, i) /
							       (float)sc, zp, out[0]->dtype));
		else if (q)
			ane__ox_set_i(out[0], i, ane__ox_quant(ane__ox_get_f(x, i) / sc, zp,
							       out[0]->dtype));
		else
			ane__ox_set_f(out[0], i, (double)(ane__ox_get_i(x, i) - zp) * sc);
	}
	return 0;
}

static int infer_dynq(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "x", OXM(OX_FLOAT), 0, OX_MAX_RANK);

	return err ? err : ane__ox_set_out(c, n, 0, OX_UINT8, x->rank, x->dims) ?:
	       ane__ox_set_out(c, n, 1, OX_FLOAT, 0, NULL) ?:
	       ane__ox_set_out(c, n, 2, OX_UINT8, 0, NULL);
}

static int run_dynq(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	float lo = 0, hi = 0, sc;
	int64_t zp;
	size_t i;

	(void)c;
	for (i = 0; i < x->count; i++) {
		float v = ((const float *)x->data)[i];

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	sc = (hi - lo) / 255.0f;
	zp = sc ? ane__ox_quant(-lo / sc, 0, OX_UINT8) : 0;
	for (i = 0; i < x->count; i++)
		ane__ox_set_i(out[0], i, sc ? ane__ox_quant(((const float *)x->data)[i] / sc,
							    zp, OX_UINT8) : zp);
	if (n->n_out > 1 && out[1])
		ane__ox_set_f(out[1], 0, sc);
	if (n->n_out > 2 && out[2])
		ane__ox_set_i(out[2], 0, zp);
	return 0;
}

static const struct ox_op ops[] = {
	{ "Einsum", infer_einsum, run_einsum },
	{ "QuantizeLinear", infer_quant, run_quant },
	{ "DequantizeLinear", infer_quant, run_quant },
	{ "DynamicQuantizeLinear", infer_dynq, run_dynq },
};

OX_TABLE(ane__ox_ops_misc, ops);
