// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the recurrent layers -- RNN, GRU and LSTM,
 * forward, reverse and bidirectional, with sequence_lens, initial
 * states, LSTM peepholes, 'clip', GRU's linear_before_reset, opset 14's
 * batch-major layout and the activations ONNX names.  In double.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

enum { K_RNN, K_GRU, K_LSTM };

struct act {
	int f;
	double a, b;
};

struct rnn {
	int kind, G, dirs, layout, lbr, coupled, n_act;
	int64_t T, B, I, H;
	double clip;
	struct act act[2][3];
};

static const char *const act_names[] = {
	"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu",
	"ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus", NULL,
};

/* The default alpha and beta of each activation. */
static const double act_def[][2] = {
	{ 0, 0 }, { 0, 0 }, { 0, 0 }, { 1, 0 }, { 0.01, 0 }, { 1, 0 },
	{ 1, 1 }, { 0.2, 0.5 }, { 1, 0 }, { 0, 0 }, { 0, 0 },
};

static double act_apply(const struct act *a, double x)
{
	switch (a->f) {
	case 0: return x > 0 ? x : 0;
	case 1: return tanh(x);
	case 2: return 1.0 / (1.0 + exp(-x));
	case 3: return a->a * x + a->b;
	case 4: return x < 0 ? a->a * x : x;
	case 5: return x > a->a ? x : 0;
	case 6: return a->a * tanh(a->b * x);
	case 7: return fmax(0, fmin(1, a->a * x + a->b));
	case 8: return x < 0 ? a->a * expm1(x) : x;
	case 9: return x / (1 + fabs(x));
	default: return x > 30 ? x : log1p(exp(x));
	}
}

static int rnn_acts(struct ox_ctx *c, const struct ox_node *n, struct rnn *r)
{
	static const int defs[3][3] = { { 1 }, { 2, 1 }, { 2, 1, 1 } };
	const struct ox_attr *a = ane__ox_attr(n, "activations");
	const float *al, *be;
	size_t na, nb, k, ia = 0, ib = 0;
	int d, j, err = ane__ox_a_floats(c, n, "activation_alpha", &al, &na) ?:
			ane__ox_a_floats(c, n, "activation_beta", &be, &nb);

	if (err)
		return err;
	if (a && (a->type != OX_ATTR_STRINGS || a->n != (size_t)(r->n_act * r->dirs)))
		return ane__ox_fail(c, n, EINVAL,
				    "attribute 'activations' must name %d functions",
				    r->n_act * r->dirs);
	for (d = 0; d < r->dirs; d++)
		for (j = 0; j < r->n_act; j++) {
			struct act *x = &r->act[d][j];
			int f = defs[r->kind][j], i;

			if (a) {
				k = (size_t)(d * r->n_act + j);
				for (i = 0; act_names[i] && strcasecmp(act_names[i], a->strings[k]); i++)
					;
				if (!act_names[i])
					return ane__ox_fail(c, n, EOPNOTSUPP,
							    "activation '%s' is not supported",
							    a->strings[k]);
				f = i;
			}
			x->f = f;
			x->a = act_def[f][0];
			x->b = act_def[f][1];
			if (a && (f == 3 || f == 4 || f == 5 || f == 6 || f == 7 || f == 8) &&
			    ia < na)
				x->a = al[ia++];
			if (a && (f == 3 || f == 6 || f == 7) && ib < nb)
				x->b = be[ib++];
		}
	return 0;
}

static int rnn_attrs(struct ox_ctx *c, const struct ox_node *n, struct rnn *r)
{
	static const char *const dirs[] = { "forward", "reverse", "bidirectional", NULL };
	const char *dir;
	int64_t hs, lbr, ifg, lay;
	float clip;
	int err;

	memset(r, 0, sizeof(*r));
	r->kind = !strcmp(n->op_type, "GRU") ? K_GRU : !strcmp(n->op_type, "LSTM") ?
		  K_LSTM : K_RNN;
	r->G = r->kind == K_GRU ? 3 : r->kind == K_LSTM ? 4 : 1;
	r->n_act = r->kind == K_GRU ? 2 : r->kind == K_LSTM ? 3 : 1;
	err = ane__ox_a_str(c, n, "direction", "forward", dirs, &dir) ?:
	      ane__ox_a_int(c, n, "hidden_size", 0, 1, 1 << 24, &hs) ?:
	      ane__ox_a_int(c, n, "linear_before_reset", 0, 0, 1, &lbr) ?:
	      ane__ox_a_int(c, n, "input_forget", 0, 0, 1, &ifg) ?:
	      ane__ox_a_int(c, n, "layout", 0, 0, OX_OPSET(c) >= 14 ? 1 : 0, &lay) ?:
	      ane__ox_a_float(c, n, "clip", 0.0f, &clip);
	if (!err && !ane__ox_attr(n, "hidden_size"))
		err = ane__ox_fail(c, n, EINVAL, "attribute 'hidden_size' is missing");
	if (!err && ane__ox_attr(n, "clip") && !(clip > 0))
		err = ane__ox_fail(c, n, EINVAL, "attribute 'clip' must be positive");
	if (err)
		return err;
	r->dirs = !strcmp(dir, "bidirectional") ? 2 : 1;
	r->H = hs;
	r->lbr = (int)lbr;
	r->coupled = (int)ifg;
	r->layout = (int)lay;
	r->clip = ane__ox_attr(n, "clip") ? clip : 0;
	return rnn_acts(c, n, r);
}

/* An optional input of the shape d0 x d1 x d2 (d2 < 0: two dims). */
static int rnn_in(struct ox_ctx *c, const struct ox_node *n, int i,
		  const char *what, int64_t d0, int64_t d1, int64_t d2)
{
	struct ox_tensor *t = ane__ox_in(c, n, i);
	int r = d2 < 0 ? 2 : 3;
	int err;

	if (!t)
		return 0;
	err = ane__ox_chk_in(c, n, i, what, OXM_FLOAT, r, r) ?: ane__ox_same_dtype(c, n, i, 0);
	if (!err && (t->dims[0] != d0 || t->dims[1] != d1 || (r == 3 && t->dims[2] != d2)))
		err = ane__ox_fail(c, n, EINVAL, "input %d (%s) has the wrong shape", i, what);
	return err;
}

static int infer_rnn(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t dims[4];
	struct rnn r;
	int i, err = ane__ox_n_in_any(c, n, 3, 8) ?: rnn_attrs(c, n, &r) ?:
		     ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 3, 3);

	if (err)
		return err;
	r.T = x->dims[r.layout];
	r.B = x->dims[1 - r.layout];
	r.I = x->dims[2];
	err = rnn_in(c, n, 1, "W", r.dirs, r.G * r.H, r.I) ?:
	      rnn_in(c, n, 2, "R", r.dirs, r.G * r.H, r.H) ?:
	      rnn_in(c, n, 3, "B", r.dirs, 2 * r.G * r.H, -1) ?:
	      (r.layout ? rnn_in(c, n, 5, "initial_h", r.B, r.dirs, r.H) :
	       rnn_in(c, n, 5, "initial_h", r.dirs, r.B, r.H));
	if (!err && r.kind == K_LSTM)
		err = (r.layout ? rnn_in(c, n, 6, "initial_c", r.B, r.dirs, r.H) :
		       rnn_in(c, n, 6, "initial_c", r.dirs, r.B, r.H)) ?:
		      rnn_in(c, n, 7, "P", r.dirs, 3 * r.H, -1);
	if (!err && n->n_in > (r.kind == K_LSTM ? 8 : 6))
		err = ane__ox_fail(c, n, EINVAL, "%d inputs", n->n_in);
	if (!err && ane__ox_in(c, n, 4))
		err = ane__ox_chk_in(c, n, 4, "sequence_lens", OXM(OX_INT32), 1, 1);
	if (!err && ane__ox_in(c, n, 4) && ane__ox_in(c, n, 4)->dims[0] != r.B)
		err = ane__ox_fail(c, n, EINVAL, "input 4 (sequence_lens) is not [batch]");
	if (err)
		return err;
	if (r.layout) {
		dims[0] = r.B, dims[1] = r.T, dims[2] = r.dirs, dims[3] = r.H;
	} else {
		dims[0] = r.T, dims[1] = r.dirs, dims[2] = r.B, dims[3] = r.H;
	}
	err = ane__ox_set_out(c, n, 0, x->dtype, 4, dims);
	dims[0] = r.layout ? r.B : r.dirs;
	dims[1] = r.layout ? r.dirs : r.B;
	dims[2] = r.H;
	for (i = 1; !err && i < n->n_out; i++)
		err = i > (r.kind == K_LSTM ? 2 : 1) ?
		      ane__ox_fail(c, n, EINVAL, "%d outputs", n->n_out) :
		      ane__ox_set_out(c, n, i, x->dtype, 3, dims);
	return err;
}

struct rnn_io {
	const double *x, *w, *rw, *b, *p;	/* W, R, B, P of one direction */
	double *h, *cs;				/* state [B, H] */
	double *g;				/* gate scratch [G * H] */
};

static double clipv(const struct rnn *r, double v)
{
	return r->clip ? fmax(-r->clip, fmin(r->clip, v)) : v;
}

/* One step for batch row @b of input row @xt; updates h (and c). */
static void rnn_step(const struct rnn *r, const struct rnn_io *io, int d,
		     int64_t b, const double *xt)
{
	int64_t H = r->H, G = r->G, j, k, gi;
	double *h = io->h + b * H, *cs = io->cs + b * H, *g = io->g;
	const struct act *a = r->act[d];

	for (gi = 0; gi < G; gi++)
		for (j = 0; j < H; j++) {
			const double *wr = io->w + (gi * H + j) * r->I;
			const double *rr = io->rw + (gi * H + j) * H;
			double s = io->b ? io->b[gi * H + j] : 0, t = 0;

			for (k = 0; k < r->I; k++)
				s += wr[k] * xt[k];
			for (k = 0; k < H; k++)
				t += rr[k] * h[k];
			t += io->b ? io->b[G * H + gi * H + j] : 0;
			/* GRU's h gate keeps its recurrent part apart. */
			if (r->kind == K_GRU && gi == 2) {
				g[gi * H + j] = s;
				g[G * H + j] = t;
			} else {
				g[gi * H + j] = s + t;
			}
		}
	if (r->kind == K_RNN) {
		for (j = 0; j < H; j++)
			h[j] = act_apply(&a[0], clipv(r, g[j]));
		return;
	}
	if (r->kind == K_GRU) {
		for (j = 0; j < H; j++) {
			double z = act_apply(&a[0], clipv(r, g[j]));
			double rt = act_apply(&a[0], clipv(r, g[H + j]));
			double hh;

			if (r->lbr) {
				hh = g[2 * H + j] + rt * g[3 * H + j];
			} else {
				const double *rr = io->rw + (2 * H + j) * H;

				hh = g[2 * H + j] + (io->b ? io->b[5 * H + j] : 0);
				for (k = 0; k < H; k++)
					hh += rr[k] * rt * h[k];
			}
			g[3 * H + j] = (1 - z) * act_apply(&a[1], clipv(r, hh)) + z * h[j];
		}
		for (j = 0; j < H; j++)
			h[j] = g[3 * H + j];
		return;
	}
	for (j = 0; j < H; j++) {
		double pi = io->p ? io->p[j] : 0, po = io->p ? io->p[H + j] : 0;
		double pf = io->p ? io->p[2 * H + j] : 0;
		double it = act_apply(&a[0], clipv(r, g[j] + pi * cs[j]));
		double ft = r->coupled ? 1 - it :
			    act_apply(&a[0], clipv(r, g[2 * H + j] + pf * cs[j]));
		double ct = act_apply(&a[1], clipv(r, g[3 * H + j]));
		double ot;

		cs[j] = ft * cs[j] + it * ct;
		ot = act_apply(&a[0], clipv(r, g[H + j] + po * cs[j]));
		h[j] = ot * act_apply(&a[2], cs[j]);
	}
}

/* Offset of (t, d, b) in Y, or of (d, b) in Y_h/Y_c when @t < 0. */
static size_t rnn_off(const struct rnn *r, int64_t t, int d, int64_t b)
{
	if (t < 0)
		return (size_t)((r->layout ? b * r->dirs + d : d * r->B + b) * r->H);
	return (size_t)((r->layout ? (b * r->T + t) * r->dirs + d :
			 (t * r->dirs + d) * r->B + b) * r->H);
}

static void rnn_dir(const struct rnn *r, struct rnn_io *io, int d, int rev,
		    const int32_t *lens, double *y)
{
	int64_t b, s, j;

	for (b = 0; b < r->B; b++) {
		int64_t len = lens ? lens[b] : r->T;

		len = len < 0 ? 0 : len > r->T ? r->T : len;
		for (s = 0; s < len; s++) {
			int64_t t = rev ? len - 1 - s : s;
			const double *xt = io->x + (r->layout ? b * r->T + t : t * r->B + b) * r->I;

			rnn_step(r, io, d, b, xt);
			for (j = 0; y && j < r->H; j++)
				y[rnn_off(r, t, d, b) + (size_t)j] = io->h[b * r->H + j];
		}
	}
}

static int run_rnn(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	const char *dir = ane__ox_attr_s(n, "direction", "forward");
	double *v[8] = { 0 }, *y = NULL, *hs = NULL, *cs = NULL, *g = NULL;
	const int32_t *lens = n->n_in > 4 && in[4] ? in[4]->data : NULL;
	struct rnn r;
	int i, d, err = rnn_attrs(c, n, &r);
	int64_t b, j;

	if (err)
		return err;
	r.T = in[0]->dims[r.layout];
	r.B = in[0]->dims[1 - r.layout];
	r.I = in[0]->dims[2];
	for (i = 0; i < n->n_in && i < 8; i++)
		if (in[i] && i != 4 && !(v[i] = ane__ox_load_f(in[i])))
			err = -ENOMEM;
	y = calloc(out[0] ? out[0]->count + 1 : 1, sizeof(double));
	hs = calloc((size_t)(r.B * r.H + 1), sizeof(double));
	cs = calloc((size_t)(r.B * r.H + 1), sizeof(double));
	g = calloc((size_t)((r.G + 1) * r.H + 1), sizeof(double));
	if (err || !y || !hs || !cs || !g) {
		err = ane__ox_nomem(c, n);
		goto out;
	}
	for (d = 0; d < r.dirs; d++) {
		struct rnn_io io = {
			.x = v[0], .w = v[1] + d * r.G * r.H * r.I,
			.rw = v[2] + d * r.G * r.H * r.H,
			.b = v[3] ? v[3] + d * 2 * r.G * r.H : NULL,
			.p = v[7] ? v[7] + d * 3 * r.H : NULL, .h = hs, .cs = cs, .g = g,
		};
		int rev = d || !strcmp(dir, "reverse");

		for (b = 0; b < r.B; b++)
			for (j = 0; j < r.H; j++) {
				hs[b * r.H + j] = v[5] ? v[5][rnn_off(&r, -1, d, b) + (size_t)j] : 0;
				cs[b * r.H + j] = v[6] ? v[6][rnn_off(&r, -1, d, b) + (size_t)j] : 0;
			}
		rnn_dir(&r, &io, d, rev, lens, out[0] ? y : NULL);
		for (b = 0; b < r.B; b++)
			for (j = 0; j < r.H; j++) {
				size_t o = rnn_off(&r, -1, d, b) + (size_t)j;

				if (n->n_out > 1 && out[1])
					ane__ox_set_f(out[1], o, hs[b * r.H + j]);
				if (n->n_out > 2 && out[2])
					ane__ox_set_f(out[2], o, cs[b * r.H + j]);
			}
	}
	if (out[0])
		ane__ox_store_f(out[0], y);
out:
	for (i = 0; i < 8; i++)
		free(v[i]);
	free(y);
	free(hs);
	free(cs);
	free(g);
	return err;
}

static const struct ox_op ops[] = {
	{ "RNN", infer_rnn, run_rnn },
	{ "GRU", infer_rnn, run_rnn },
	{ "LSTM", infer_rnn, run_rnn },
};

OX_TABLE(ane__ox_ops_rnn, ops);
