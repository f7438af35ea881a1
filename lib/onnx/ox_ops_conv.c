// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: convolutions -- the window geometry shared
 * with the pools (ane__ox_geom(), ane__ox_win_table()), Conv,
 * ConvTranspose, ConvInteger and QLinearConv.  They run in double over
 * a table of the input positions each output position reads.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };

/* An INTS attribute of @s values >= @lo, or @def everywhere. */
static int spatial_ints(struct ox_ctx *c, const struct ox_node *n,
			const char *name, int s, int64_t def, int64_t lo,
			int64_t *v)
{
	const int64_t *a;
	size_t cnt;
	int k, err = ane__ox_a_ints(c, n, name, &a, &cnt);

	if (err)
		return err;
	if (a && cnt != (size_t)s)
		return ane__ox_fail(c, n, EINVAL,
				    "attribute '%s' has %zu values; the input has %d spatial dims",
				    name, cnt, s);
	for (k = 0; k < s; k++) {
		v[k] = a ? a[k] : def;
		if (v[k] < lo || v[k] > (1ll << 32))
			return ane__ox_fail(c, n, EINVAL,
					    "attribute '%s'[%d] is %lld, outside [%lld, 2^32]",
					    name, k, (long long)v[k], (long long)lo);
	}
	return 0;
}

static int geom_attrs(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_tensor *x, const int64_t *k,
		      struct ox_geom *g, int *autopad)
{
	static const char *const pads[] = { "NOTSET", "SAME_UPPER", "SAME_LOWER",
					    "VALID", NULL };
	const int64_t *p;
	const char *ap;
	size_t cnt;
	int i, err;

	memset(g, 0, sizeof(*g));
	g->s = x->rank - 2;
	memcpy(g->in, x->dims + 2, sizeof(int64_t) * (size_t)g->s);
	if (k) {
		memcpy(g->k, k, sizeof(int64_t) * (size_t)g->s);
		err = ane__ox_a_ints(c, n, "kernel_shape", &p, &cnt);
		if (!err && p && (cnt != (size_t)g->s ||
				  memcmp(p, k, sizeof(int64_t) * cnt)))
			err = ane__ox_fail(c, n, EINVAL,
					   "attribute 'kernel_shape' is not the weights' spatial shape");
	} else if (!ane__ox_attr(n, "kernel_shape")) {
		err = ane__ox_fail(c, n, EINVAL, "attribute 'kernel_shape' is missing");
	} else {
		err = spatial_ints(c, n, "kernel_shape", g->s, 1, 1, g->k);
	}
	err = err ?: spatial_ints(c, n, "strides", g->s, 1, 1, g->st) ?:
	      spatial_ints(c, n, "dilations", g->s, 1, 1, g->dil) ?:
	      ane__ox_a_str(c, n, "auto_pad", "NOTSET", pads, &ap) ?:
	      ane__ox_a_ints(c, n, "pads", &p, &cnt);
	if (err)
		return err;
	if (p && cnt != (size_t)g->s * 2)
		return ane__ox_fail(c, n, EINVAL,
				    "attribute 'pads' has %zu values; it needs %d", cnt,
				    g->s * 2);
	for (i = 0; p && i < g->s * 2; i++)
		if (p[i] < 0 || p[i] > (1ll << 32))
			return ane__ox_fail(c, n, EINVAL, "attribute 'pads'[%d] is %lld",
					    i, (long long)p[i]);
	for (i = 0; p && i < g->s; i++) {
		g->pb[i] = p[i];
		g->pe[i] = p[i + g->s];
	}
	for (i = 0; pads[i]; i++)
		if (!strcmp(pads[i], ap))
			*autopad = i;
	return 0;
}

int ane__ox_geom(struct ox_ctx *c, const struct ox_node *n,
		 const struct ox_tensor *x, const int64_t *k, int ceil_ok,
		 struct ox_geom *g)
{
	int64_t cm = 0;
	int i, ap = PAD_NOTSET;
	int err = geom_attrs(c, n, x, k, g, &ap);

	if (!err && ceil_ok)
		err = ane__ox_a_int(c, n, "ceil_mode", 0, 0, 1, &cm);
	for (i = 0; !err && i < g->s; i++) {
		int64_t ext = (g->k[i] - 1) * g->dil[i] + 1, tot, o;

		if (ap == PAD_SAME_UPPER || ap == PAD_SAME_LOWER) {
			o = (g->in[i] + g->st[i] - 1) / g->st[i];
			tot = (o - 1) * g->st[i] + ext - g->in[i];
			tot = tot < 0 ? 0 : tot;
			g->pb[i] = ap == PAD_SAME_UPPER ? tot / 2 : tot - tot / 2;
			g->pe[i] = tot - g->pb[i];
		} else if (ap == PAD_VALID) {
			g->pb[i] = g->pe[i] = 0;
		}
		tot = g->in[i] + g->pb[i] + g->pe[i] - ext;
		if (tot < 0)
			return ane__ox_fail(c, n, EINVAL,
					    "the window (%lld) is larger than spatial dim %d (%lld padded)",
					    (long long)ext, i,
					    (long long)(g->in[i] + g->pb[i] + g->pe[i]));
		o = tot / g->st[i] + 1;
		if (cm && tot % g->st[i]) {
			o++;
			if ((o - 1) * g->st[i] >= g->in[i] + g->pb[i])
				o--;
		}
		g->out[i] = o;
	}
	return err;
}

int64_t *ane__ox_win_table(const struct ox_geom *g, const int64_t *from,
			   const int64_t *to, size_t *np, size_t *nk)
{
	int64_t fi[OX_MAX_SPATIAL] = { 0 }, ki[OX_MAX_SPATIAL], *t;
	size_t P = (size_t)ane__ox_prod(from, 0, g->s);
	size_t K = (size_t)ane__ox_prod(g->k, 0, g->s), p, q;
	int d;

	*np = P;
	*nk = K;
	if (K && P > (SIZE_MAX / sizeof(*t)) / K)
		return NULL;
	t = malloc(sizeof(*t) * (P * K + 1));
	for (p = 0; t && p < P; p++) {
		memset(ki, 0, sizeof(ki));
		for (q = 0; q < K; q++) {
			int64_t pos = 0;

			for (d = 0; d < g->s && pos >= 0; d++) {
				int64_t v = fi[d] * g->st[d] - g->pb[d] + ki[d] * g->dil[d];

				pos = v < 0 || v >= to[d] ? -1 : pos * to[d] + v;
			}
			t[p * K + q] = pos;
			for (d = g->s - 1; d >= 0 && ++ki[d] == g->k[d]; d--)
				ki[d] = 0;
		}
		for (d = g->s - 1; d >= 0 && ++fi[d] == from[d]; d--)
			fi[d] = 0;
	}
	return t;
}

/* ------------------------------------------------------------ Conv */

struct conv {
	int64_t N, C, M, group;
	size_t P, K, XP;	/* output positions, kernel, input positions */
	int64_t *tab;
};

static int conv_check(struct ox_ctx *c, const struct ox_node *n, int xi,
		      int wi, unsigned int mask, int transposed, int64_t *group)
{
	struct ox_tensor *x = ane__ox_in(c, n, xi), *w = ane__ox_in(c, n, wi);
	int64_t wc;
	int err = ane__ox_chk_in(c, n, xi, "X", mask, 3, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, wi, "W", mask, x->rank, x->rank) ?:
		  ane__ox_a_int(c, n, "group", 1, 1, 1 << 30, group);

	if (err)
		return err;
	wc = transposed ? w->dims[0] : w->dims[1] * *group;
	if (wc != x->dims[1])
		return ane__ox_fail(c, n, EINVAL,
				    "input W has %lld input channels for group %lld; X has %lld",
				    (long long)wc, (long long)*group, (long long)x->dims[1]);
	if (!transposed && w->dims[0] % *group)
		return ane__ox_fail(c, n, EINVAL,
				    "input W's %lld output channels do not divide into %lld groups",
				    (long long)w->dims[0], (long long)*group);
	return 0;
}

static int conv_bias(struct ox_ctx *c, const struct ox_node *n, int bi,
		     unsigned int mask, int64_t m)
{
	struct ox_tensor *b = ane__ox_in(c, n, bi);
	int err;

	if (!b)
		return 0;
	err = ane__ox_chk_in(c, n, bi, "B", mask, 1, 1);
	if (!err && b->dims[0] != m)
		err = ane__ox_fail(c, n, EINVAL, "input B has %lld values for %lld channels",
				   (long long)b->dims[0], (long long)m);
	return err;
}

static int conv_shape(struct ox_ctx *c, const struct ox_node *n, int xi,
		      int wi, int dtype, struct ox_geom *g)
{
	struct ox_tensor *x = ane__ox_in(c, n, xi), *w = ane__ox_in(c, n, wi);
	int64_t dims[OX_MAX_RANK];
	int err = ane__ox_geom(c, n, x, w->dims + 2, 0, g);

	if (err)
		return err;
	dims[0] = x->dims[0];
	dims[1] = w->dims[0];
	memcpy(dims + 2, g->out, sizeof(int64_t) * (size_t)g->s);
	return ane__ox_set_out(c, n, 0, dtype, x->rank, dims);
}

static int infer_conv(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_geom g;
	int64_t group;
	int err = ane__ox_n_in(c, n, 2, 3) ?:
		  conv_check(c, n, 0, 1, OXM_FLOAT, 0, &group) ?:
		  ane__ox_same_dtype(c, n, 1, 0) ?:
		  conv_bias(c, n, 2, OXM_FLOAT, ane__ox_in(c, n, 1)->dims[0]);

	return err ? err : conv_shape(c, n, 0, 1, ane__ox_in(c, n, 0)->dtype, &g);
}

static void conv_core(const struct conv *a, const double *x, const double *w,
		      const double *b, double *y)
{
	int64_t cg = a->C / a->group, mg = a->M / a->group, nn, m, ch;
	size_t p, q;

	for (nn = 0; nn < a->N; nn++)
		for (m = 0; m < a->M; m++) {
			int64_t g = m / mg;
			double *yo = y + (size_t)(nn * a->M + m) * a->P;

			for (p = 0; p < a->P; p++) {
				const int64_t *t = a->tab + p * a->K;
				double s = b ? b[m] : 0.0;

				for (ch = 0; ch < cg; ch++) {
					const double *xc = x + (size_t)(nn * a->C + g * cg + ch) * a->XP;
					const double *wc = w + (size_t)(m * cg + ch) * a->K;

					for (q = 0; q < a->K; q++)
						if (t[q] >= 0)
							s += wc[q] * xc[t[q]];
				}
				yo[p] = s;
			}
		}
}

/* Sets up @a for X (@x), W (@w) and output @y; the table is malloc'd. */
static int conv_setup(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *x, const struct ox_value *w,
		      const struct ox_value *y, struct conv *a)
{
	struct ox_tensor xt = { .rank = x->rank };
	struct ox_geom g;
	int err;

	memcpy(xt.dims, x->dims, sizeof(xt.dims));
	err = ane__ox_geom(c, n, &xt, w->dims + 2, 0, &g);
	if (err)
		return err;
	a->N = x->dims[0];
	a->C = x->dims[1];
	a->M = w->dims[0];
	a->group = ane__ox_attr_i(n, "group", 1);
	a->XP = (size_t)ane__ox_prod(x->dims, 2, x->rank);
	a->tab = ane__ox_win_table(&g, y->dims + 2, x->dims + 2, &a->P, &a->K);
	return a->tab ? 0 : ane__ox_nomem(c, n);
}

/* Runs the convolution of doubles @x, @w, @b (of X @xv, W @wv) into @y. */
static int conv_doubles(struct ox_ctx *c, const struct ox_node *n,
			const struct ox_value *xv, const struct ox_value *wv,
			const double *x, const double *w, const double *b,
			double *y, const struct ox_value *out)
{
	struct conv a;
	int err = conv_setup(c, n, xv, wv, out, &a);

	if (err)
		return err;
	conv_core(&a, x, w, b, y);
	free(a.tab);
	return 0;
}

/* Loads @v into doubles less its zero point @zp (per channel along dim 0). */
static double *load_centered(const struct ox_value *v, const struct ox_value *zp)
{
	double *x = ane__ox_load_f(v);
	size_t i, per = v->dims[0] ? v->count / (size_t)v->dims[0] : 0;

	for (i = 0; x && zp && zp->count && i < v->count; i++)
		x[i] -= ane__ox_get_f(zp, zp->count == 1 ? 0 : i / per);
	return x;
}

static int run_conv(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	int integer = !strcmp(n->op_type, "ConvInteger");
	const struct ox_value *xz = integer && n->n_in > 2 ? in[2] : NULL;
	const struct ox_value *wz = integer && n->n_in > 3 ? in[3] : NULL;
	double *x = load_centered(in[0], xz), *w = load_centered(in[1], wz);
	double *b = !integer && n->n_in > 2 && in[2] ? ane__ox_load_f(in[2]) : NULL;
	double *y = malloc(sizeof(double) * (out[0]->count + 1));
	int err;

	if (!x || !w || !y || (!integer && n->n_in > 2 && in[2] && !b))
		err = ane__ox_nomem(c, n);
	else
		err = conv_doubles(c, n, in[0], in[1], x, w, b, y, out[0]);
	if (!err)
		ane__ox_store_f(out[0], y);
	free(x);
	free(w);
	free(b);
	free(y);
	return err;
}

/* ------------------------------------------------------------ ConvInteger, QLinearConv */

static int chk_zp(struct ox_ctx *c, const struct ox_node *n, int i, int like,
		  int64_t per)
{
	struct ox_tensor *z = ane__ox_in(c, n, i);
	int err;

	if (!z)
		return 0;
	err = ane__ox_chk_in(c, n, i, "zero_point", OXM(OX_UINT8) | OXM(OX_INT8), 0, 1) ?:
	      ane__ox_same_dtype(c, n, i, like);
	if (!err && z->rank == 1 && z->dims[0] != 1 && z->dims[0] != per)
		err = ane__ox_fail(c, n, EINVAL, "input %d '%s' has %lld values; 1 or %lld",
				   i, z->name, (long long)z->dims[0], (long long)per);
	return err;
}

static int infer_convint(struct ox_ctx *c, const struct ox_node *n)
{
	unsigned int q8 = OXM(OX_UINT8) | OXM(OX_INT8);
	struct ox_geom g;
	int64_t group;
	int err = ane__ox_n_in(c, n, 2, 4) ?:
		  conv_check(c, n, 0, 1, q8, 0, &group) ?:
		  chk_zp(c, n, 2, 0, 1) ?:
		  chk_zp(c, n, 3, 1, ane__ox_in(c, n, 1)->dims[0]);

	return err ? err : conv_shape(c, n, 0, 1, OX_INT32, &g);
}

static int infer_qlconv(struct ox_ctx *c, const struct ox_node *n)
{
	unsigned int q8 = OXM(OX_UINT8) | OXM(OX_INT8);
	struct ox_tensor *w = ane__ox_in(c, n, 3);
	struct ox_geom g;
	int64_t group;
	int err = ane__ox_n_in(c, n, 8, 9) ?:
		  conv_check(c, n, 0, 3, q8, 0, &group) ?:
		  ane__ox_chk_in(c, n, 1, "x_scale", OXM(OX_FLOAT), 0, 1) ?:
		  ane__ox_chk_in(c, n, 4, "w_scale", OXM(OX_FLOAT), 0, 1) ?:
		  ane__ox_chk_in(c, n, 6, "y_scale", OXM(OX_FLOAT), 0, 1) ?:
		  chk_zp(c, n, 2, 0, 1) ?: chk_zp(c, n, 5, 3, w->dims[0]) ?:
		  ane__ox_chk_in(c, n, 7, "y_zero_point", q8, 0, 1) ?:
		  conv_bias(c, n, 8, OXM(OX_INT32), w->dims[0]);

	return err ? err : conv_shape(c, n, 0, 3, ane__ox_in(c, n, 7)->dtype, &g);
}

static int run_qlconv(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	const struct ox_value *ws = in[4];
	double *x = load_centered(in[0], in[2]), *w = load_centered(in[3], in[5]);
	double *b = n->n_in > 8 && in[8] ? ane__ox_load_f(in[8]) : NULL;
	double *y = malloc(sizeof(double) * (out[0]->count + 1));
	double xs = ane__ox_get_f(in[1], 0), ys = ane__ox_get_f(in[6], 0);
	size_t i, per = (size_t)ane__ox_prod(out[0]->dims, 2, out[0]->rank);
	int err;

	if (!x || !w || !y || (n->n_in > 8 && in[8] && !b))
		err = ane__ox_nomem(c, n);
	else
		err = conv_doubles(c, n, in[0], in[3], x, w, b, y, out[0]);
	for (i = 0; !err && i < out[0]->count; i++) {
		size_t m = per ? (i / per) % (size_t)out[0]->dims[1] : 0;
		double s = xs * ane__ox_get_f(ws, ws->count == 1 ? 0 : m) / ys;

		ane__ox_set_i(out[0], i, ane__ox_quant(y[i] * s, ane__ox_get_i(in[7], 0),
						       out[0]->dtype));
	}
	free(x);
	free(w);
	free(b);
	free(y);
	return err;
}

/* ------------------------------------------------------------ ConvTranspose */

int ane__ox_convt_geom(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_tensor *x, const int64_t *k, struct ox_geom *g)
{
	int64_t op[OX_MAX_SPATIAL], os[OX_MAX_SPATIAL];
	int ap = PAD_NOTSET, i;
	int err = geom_attrs(c, n, x, k, g, &ap) ?:
		  spatial_ints(c, n, "output_padding", g->s, 0, 0, op);
	int has_os = ane__ox_attr(n, "output_shape") != NULL;

	if (!err && has_os)
		err = spatial_ints(c, n, "output_shape", g->s, 0, 0, os);
	for (i = 0; !err && i < g->s; i++) {
		int64_t ext = (g->k[i] - 1) * g->dil[i] + 1, full, tot;

		if (op[i] >= g->st[i] && op[i] >= g->dil[i])
			return ane__ox_fail(c, n, EINVAL,
					    "attribute 'output_padding'[%d] is %lld, not below the stride or dilation",
					    i, (long long)op[i]);
		full = g->st[i] * (g->in[i] - 1) + op[i] + ext;
		if (has_os || ap == PAD_SAME_UPPER || ap == PAD_SAME_LOWER) {
			g->out[i] = has_os ? os[i] : g->in[i] * g->st[i];
			tot = full - g->out[i];
			tot = tot < 0 ? 0 : tot;
			g->pb[i] = ap == PAD_SAME_UPPER ? tot / 2 : tot - tot / 2;
			g->pe[i] = tot - g->pb[i];
		} else {
			g->out[i] = full - g->pb[i] - g->pe[i];
		}
		if (g->out[i] < 0)
			return ane__ox_fail(c, n, EINVAL, "spatial dim %d of the output is %lld",
					    i, (long long)g->out[i]);
	}
	return err;
}

static int infer_convt(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *w = ane__ox_in(c, n, 1);
	int64_t group, dims[OX_MAX_RANK];
	struct ox_geom g;
	int err = ane__ox_n_in(c, n, 2, 3) ?:
		  conv_check(c, n, 0, 1, OXM_FLOAT, 1, &group) ?:
		  ane__ox_same_dtype(c, n, 1, 0) ?:
		  conv_bias(c, n, 2, OXM_FLOAT, ane__ox_in(c, n, 1)->dims[1] * group) ?:
		  ane__ox_convt_geom(c, n, x, w->dims + 2, &g);

	if (err)
		return err;
	dims[0] = x->dims[0];
	dims[1] = w->dims[1] * group;
	memcpy(dims + 2, g.out, sizeof(int64_t) * (size_t)g.s);
	return ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims);
}

static int run_convt(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in,
		     struct ox_value *const *out)
{
	struct ox_tensor xt = { .rank = in[0]->rank };
	const struct ox_value *xv = in[0], *wv = in[1];
	int64_t C = xv->dims[1], M = out[0]->dims[1], nn, ch, m;
	int64_t group = ane__ox_attr_i(n, "group", 1), cg = C / group, mg = M / group;
	size_t P, K, OP = (size_t)ane__ox_prod(out[0]->dims, 2, out[0]->rank), p, q;
	double *x = ane__ox_load_f(xv), *w = ane__ox_load_f(wv);
	double *y = calloc(out[0]->count + 1, sizeof(double));
	int64_t *tab = NULL;
	struct ox_geom g;
	int err;

	memcpy(xt.dims, xv->dims, sizeof(xt.dims));
	err = ane__ox_convt_geom(c, n, &xt, wv->dims + 2, &g);
	if (!err && x && w && y)
		tab = ane__ox_win_table(&g, xv->dims + 2, out[0]->dims + 2, &P, &K);
	if (!err && !tab)
		err = ane__ox_nomem(c, n);
	for (nn = 0; !err && nn < xv->dims[0]; nn++)
		for (ch = 0; ch < C; ch++)
			for (m = 0; m < mg; m++) {
				const double *xc = x + (size_t)(nn * C + ch) * P;
				const double *wc = w + (size_t)(ch * mg + m) * K;
				double *yc = y + (size_t)(nn * M + ch / cg * mg + m) * OP;

				for (p = 0; p < P; p++)
					for (q = 0; q < K; q++)
						if (tab[p * K + q] >= 0)
							yc[tab[p * K + q]] += xc[p] * wc[q];
			}
	for (p = 0; !err && n->n_in > 2 && in[2] && p < out[0]->count; p++)
		y[p] += ane__ox_get_f(in[2], (p / OP) % (size_t)M);
	if (!err)
		ane__ox_store_f(out[0], y);
	free(tab);
	free(x);
	free(w);
	free(y);
	return err;
}

static const struct ox_op ops[] = {
	{ "Conv", infer_conv, run_conv },
	{ "ConvInteger", infer_convint, run_conv },
	{ "QLinearConv", infer_qlconv, run_qlconv },
	{ "ConvTranspose", infer_convt, run_convt },
};

OX_TABLE(ane__ox_ops_conv, ops);
