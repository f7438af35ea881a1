// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: convolutions (with the BatchNormalization
 * after them folded into their weights and bias, and the activation
 * after that fused), Gemm and MatMul (bias and activation fused), and
 * pooling, lowered to the engine through libane's builder.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"
#include "ox_ops.h"

#define MAX_KERNEL	64
#define MAX_REDUCE	16384
/* A stride or dilation the copies of a pool's taps take. */
#define MAX_STEP	(1 << 20)

static const struct ox_value *konst_in(struct lower *L, const struct ox_node *n,
				       int i)
{
	const struct ox_tensor *t = ane__ox_in(L->c, n, i);

	return t ? t->konst : NULL;
}

/* The values of @v as a new fp32 array; NULL if out of memory. */
static float *to_f32(const struct ox_value *v)
{
	float *f = malloc(sizeof(float) * (v->count ? v->count : 1));
	size_t i;

	if (f)
		for (i = 0; i < v->count; i++)
			f[i] = (float)ane__ox_get_f(v, i);
	return f;
}

/* @f [rows, cols] transposed into a new array, or NULL without memory. */
static float *transpose2(const float *f, uint32_t rows, uint32_t cols)
{
	size_t r, c, n = (size_t)rows * cols;
	float *t = malloc(sizeof(float) * (n ? n : 1));

	if (t)
		for (r = 0; r < rows; r++)
			for (c = 0; c < cols; c++)
				t[c * rows + r] = f[r * cols + c];
	return t;
}

int ane__ox_f16_ok(const float *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isfinite(f[i]) && fabsf(f[i]) > 65504.0f)
			return 0;
	return 1;
}

/*
 * The window of a 2-D conv or pool: kernel, strides, dilations and the
 * padding of each side (top, bottom, left, right) from the attributes.
 */
struct window {
	uint32_t k[2], s[2], d[2], pad[4];
};

/*
 * @nsp spatial axes (1 or 2) of @in_hw and @k, as the engine's H and W: a
 * 1-D window is 1 x K over 1 x L.
 */
static int get_window(struct lower *L, const struct ox_node *n, int nsp,
		      const int64_t *in_sp, const int64_t *k_sp, struct window *w,
		      int64_t *in_hw)
{
	const struct ox_attr *a;
	const char *ap = ane__ox_attr_s(n, "auto_pad", "NOTSET");
	int64_t k[2] = { 1, 1 };
	int i, off = 2 - nsp;

	in_hw[0] = in_hw[1] = 1;
	for (i = 0; i < nsp; i++) {
		in_hw[off + i] = in_sp[i];
		k[off + i] = k_sp[i];
	}
	for (i = 0; i < 2; i++) {
		w->k[i] = (uint32_t)k[i];
		w->s[i] = w->d[i] = 1;
	}
	w->pad[0] = w->pad[1] = w->pad[2] = w->pad[3] = 0;
	/* strides and dilations past the engine's 64: a pool's copies take them */
	if ((a = ane__ox_attr(n, "strides")) && a->n == (size_t)nsp)
		for (i = 0; i < nsp; i++)
			w->s[off + i] = a->ints[i] > 0 && a->ints[i] <= MAX_STEP ?
					(uint32_t)a->ints[i] : 0;
	if ((a = ane__ox_attr(n, "dilations")) && a->n == (size_t)nsp)
		for (i = 0; i < nsp; i++)
			w->d[off + i] = a->ints[i] > 0 && a->ints[i] <= MAX_STEP ?
					(uint32_t)a->ints[i] : 0;
	for (i = 0; i < 2; i++)
		if (!w->s[i] || !w->d[i] || k[i] < 1 || k[i] > MAX_KERNEL)
			return ane__ox_why(L, "a kernel outside 1..%d, or a stride or dilation outside 1..%d",
					   MAX_KERNEL, MAX_STEP);
	if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
		for (i = 0; i < 2; i++) {
			int64_t o = (in_hw[i] + w->s[i] - 1) / w->s[i];
			int64_t span = (int64_t)w->d[i] * (w->k[i] - 1) + 1;
			int64_t tot = (o - 1) * w->s[i] + span - in_hw[i];

			if (tot < 0)
				tot = 0;
			w->pad[2 * i] = (uint32_t)(ap[5] == 'U' ? tot / 2 : tot - tot / 2);
			w->pad[2 * i + 1] = (uint32_t)(tot - w->pad[2 * i]);
		}
	} else if (strcmp(ap, "VALID")) {
		if (strcmp(ap, "NOTSET"))
			return ane__ox_why(L, "auto_pad '%s'", ap);
		if ((a = ane__ox_attr(n, "pads"))) {
			if (a->n != (size_t)(2 * nsp))
				return ane__ox_why(L, "pads of %zu values", a->n);
			for (i = 0; i < 2 * nsp; i++)
				if (a->ints[i] < 0 || a->ints[i] > MAX_KERNEL * MAX_KERNEL)
					return ane__ox_why(L, "a negative or huge pad");
			/* ONNX: the begins of each axis, then the ends. */
			for (i = 0; i < nsp; i++) {
				w->pad[2 * (off + i)] = (uint32_t)a->ints[i];
				w->pad[2 * (off + i) + 1] = (uint32_t)a->ints[nsp + i];
			}
		}
	}
	return 0;
}

/* Every pad below the dilated kernel extent; the output size agreed. */
static int check_window(struct lower *L, const struct window *w,
			const int64_t *in_hw, const int64_t *out_hw)
{
	int i;

	for (i = 0; i < 2; i++)
		if (w->s[i] > MAX_KERNEL || w->d[i] > MAX_KERNEL)
			return ane__ox_why(L, "a stride or dilation of %u; the engine's are 1..%d",
					   w->s[i] > MAX_KERNEL ? w->s[i] : w->d[i], MAX_KERNEL);
	for (i = 0; i < 4; i++) {
		int ax = i / 2;
		uint32_t span = w->d[ax] * (w->k[ax] - 1) + 1;

		if (w->pad[i] >= span)
			return ane__ox_why(L, "a pad of %u, not below the kernel extent %u",
					   w->pad[i], span);
	}
	for (i = 0; i < 2; i++) {
		int64_t span = (int64_t)w->d[i] * (w->k[i] - 1) + 1;
		int64_t o = (in_hw[i] + w->pad[2 * i] + w->pad[2 * i + 1] - span) /
			    w->s[i] + 1;

		if (o != out_hw[i])
			return ane__ox_why(L, "an output size of %lld where the engine's window gives %lld (ceil_mode)",
					   (long long)out_hw[i], (long long)o);
	}
	return 0;
}

/* ------------------------------------------------------------ conv */

/* A BatchNormalization the engine folds: constant, spatial, inference. */
static int bn_params(struct lower *L, const struct ox_node *m, const float **p,
		     size_t c)
{
	int i;

	if (strcmp(m->op_type, "BatchNormalization") ||
	    ane__ox_attr_i(m, "training_mode", 0) ||
	    !ane__ox_attr_i(m, "spatial", 1) || m->n_in != 5)
		return -1;
	for (i = 1; i < 5; i++) {
		const struct ox_value *v = konst_in(L, m, i);

		if (!v || v->count != c || v->dtype != OX_FLOAT)
			return -1;
		p[i - 1] = v->data;
	}
	return ane__ox_out_ok(L, m) ? -1 : 0;
}

static void conv_params(const struct window *win, uint32_t groups,
			struct ane_net_conv_params *cp)
{
	memset(cp, 0, sizeof(*cp));
	cp->stride_h = win->s[0];
	cp->stride_w = win->s[1];
	cp->dilation_h = win->d[0];
	cp->dilation_w = win->d[1];
	cp->pad_top = win->pad[0];
	cp->pad_bottom = win->pad[1];
	cp->pad_left = win->pad[2];
	cp->pad_right = win->pad[3];
	cp->groups = groups;
}

/*
 * A convolution whose weights or bias are computed (graph inputs, other
 * nodes' results): the engine reads them as they come, fp16, with no
 * BatchNormalization folded into them.
 */
static int conv_computed(struct lower *L, const struct ox_node *n,
			 const struct window *win, const uint32_t *x4, uint32_t cout,
			 uint32_t cin_g, uint32_t kh, uint32_t kw)
{
	const uint32_t w4[4] = { cout, cin_g, kh, kw }, b4[4] = { 1, cout, 1, 1 };
	struct ane_net_conv_params cp;
	int xid, wid, bid = -1;

	if (L->dry)
		return 0;
	conv_params(win, x4[1] / cin_g, &cp);
	cp.act = (enum ane_net_act)ane__ox_fuse_act(L, n);
	xid = ane__ox_get(L, n->in[0], x4);
	wid = ane__ox_get(L, n->in[1], w4);
	if (n->n_in > 2 && n->in[2] >= 0)
		bid = ane__ox_get(L, n->in[2], b4);
	return ane__ox_done(L, n, ane_net_conv(ox_net(L), xid, wid, bid, &cp));
}

int ane__ox_lw_conv(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	const struct ox_tensor *wt = ane__ox_in(L->c, n, 1);
	const struct ox_value *w = konst_in(L, n, 1), *b = konst_in(L, n, 2);
	struct ane_net_conv_params cp = { 0 };
	const float *bn[4] = { 0 };
	int64_t cout, cin_g, kh, kw, o, i, g = ane__ox_attr_i(n, "group", 1);
	float *wf = NULL, *bf = NULL;
	struct window win;
	int64_t in_hw[2], out_hw[2];
	uint32_t x4[4];
	int err, k, xid, wid, bid, id, nsp;

	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (x->rank != 4 && x->rank != 3)
		return ane__ox_why(L, "a %d-D convolution; the engine's are 1-D and 2-D",
				   x->rank - 2);
	if (wt->rank != x->rank)
		return ane__ox_why(L, "weights of another rank than the input");
	if (!w && (err = ane__ox_check_float(L, n, 1)))
		return err;
	if (n->n_in > 2 && n->in[2] >= 0 &&
	    ((err = ane__ox_check_float(L, n, 2)) || ane__ox_in(L->c, n, 2)->rank != 1))
		return err ? err : ane__ox_why(L, "a bias of rank other than 1");
	nsp = x->rank - 2;
	cout = wt->dims[0];
	cin_g = wt->dims[1];
	kh = nsp == 2 ? wt->dims[2] : 1;
	kw = wt->dims[x->rank - 1];
	if (g < 1 || x->dims[1] % g || cout % g || cin_g * g != x->dims[1])
		return ane__ox_why(L, "groups %lld do not match the channels", (long long)g);
	if (cin_g * kh * kw > MAX_REDUCE)
		return ane__ox_why(L, "%lld products per output; the engine sums at most %d",
				   (long long)(cin_g * kh * kw), MAX_REDUCE);
	err = get_window(L, n, nsp, &x->dims[2], &wt->dims[2], &win, in_hw);
	out_hw[0] = nsp == 2 ? y->dims[2] : 1;
	out_hw[1] = y->dims[y->rank - 1];
	if (!err)
		err = check_window(L, &win, in_hw, out_hw);
	if (err)
		return err;
	x4[0] = (uint32_t)x->dims[0];
	x4[1] = (uint32_t)x->dims[1];
	x4[2] = (uint32_t)in_hw[0];
	x4[3] = (uint32_t)in_hw[1];
	L->absorbed = 0;
	if (!w || (n->n_in > 2 && n->in[2] >= 0 && !b))
		return conv_computed(L, n, &win, x4, (uint32_t)cout, (uint32_t)cin_g,
				     (uint32_t)kh, (uint32_t)kw);
	k = ane__ox_sole_next(L, n);
	if (k >= 0 && bn_params(L, &L->c->g->nodes[k], bn, (size_t)cout) == 0)
		L->absorbed = 1;

	wf = to_f32(w);
	bf = calloc((size_t)cout, sizeof(float));
	if (!wf || !bf) {
		err = -ENOMEM;
		goto out;
	}
	for (o = 0; o < cout; o++)
		bf[o] = b ? (float)ane__ox_get_f(b, (size_t)o) : 0.0f;
	if (L->absorbed) {
		float eps = ane__ox_attr_f(&L->c->g->nodes[k], "epsilon", 1e-5f);
		int64_t per = cin_g * kh * kw;

		for (o = 0; o < cout; o++) {
			double gm = bn[0][o] / sqrt((double)bn[3][o] + eps);

			for (i = 0; i < per; i++)
				wf[o * per + i] = (float)(wf[o * per + i] * gm);
			bf[o] = (float)((bf[o] - bn[2][o]) * gm + bn[1][o]);
		}
	}
	if (!ane__ox_f16_ok(wf, w->count) || !ane__ox_f16_ok(bf, (size_t)cout)) {
		err = ane__ox_why(L, "weights or bias beyond fp16's range (65504)");
		goto out;
	}
	if (L->dry) {
		L->absorbed = 0;
		goto out;
	}
	conv_params(&win, (uint32_t)g, &cp);
	{
		/* The activation after the conv, or after its folded BN. */
		const struct ox_node *last = &L->c->g->nodes[L->node + L->absorbed];

		cp.act = (enum ane_net_act)ane__ox_fuse_act(L, last);
	}
	xid = ane__ox_get(L, n->in[0], x4);
	wid = ane_net_const(ox_net(L), L->c->g->t[n->in[1]].name, (uint32_t)cout,
			    (uint32_t)cin_g, (uint32_t)kh, (uint32_t)kw, wf);
	bid = ane_net_const(ox_net(L), "bias", 1, (uint32_t)cout, 1, 1, bf);
	id = ane_net_conv(ox_net(L), xid, wid, bid, &cp);
	err = ane__ox_done(L, n, id);
	/* The folded BN's output is the conv's too (ane__ox_done() set the last). */
	if (!err && L->absorbed >= 1)
		ane__ox_set(L, L->c->g->nodes[L->node + 1].out[0], id);
out:
	free(wf);
	free(bf);
	return err;
}

/* ------------------------------------------------------------ matmul */

int ane__ox_lw_matmul(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *a = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *b = ane__ox_in(L->c, n, 1);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	uint32_t a4[4], b4[4], y4[4];
	int err, i;

	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_check_float(L, n, 1);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (a->rank < 2 || b->rank < 2 || y->rank > 4)
		return ane__ox_why(L, "a matrix product of a vector or beyond rank 4");
	ane__ox_shape4(a->rank, a->dims, a4);
	ane__ox_shape4(b->rank, b->dims, b4);
	ane__ox_shape4(y->rank, y->dims, y4);
	for (i = 0; i < 2; i++)
		if ((a4[i] != y4[i] && a4[i] != 1) || (b4[i] != y4[i] && b4[i] != 1))
			return ane__ox_why(L, "batch dimensions that do not broadcast");
	if (a4[3] > MAX_REDUCE)
		return ane__ox_why(L, "an inner dimension of %u; the engine sums at most %d",
				   a4[3], MAX_REDUCE);
	if (b->konst && (err = ane__ox_check_const_f16(L, n, b->konst, b->name)))
		return err;
	if (a->konst && (err = ane__ox_check_const_f16(L, n, a->konst, a->name)))
		return err;
	if (L->dry)
		return 0;
	return ane__ox_done(L, n,
			    ane_net_matmul(ox_net(L), ane__ox_get(L, n->in[0], NULL),
					   ane__ox_get(L, n->in[1], NULL), 0,
					   (enum ane_net_act)ane__ox_fuse_act(L, n)));
}

/*
 * Gemm: alpha * A' B' + beta * C.  A untransposed (or constant), B with
 * transB as the engine's transpose flag, alpha folded into a constant B
 * (else a multiplication), C a bias the engine fuses into the product.
 */
int ane__ox_lw_gemm(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *a = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *b = ane__ox_in(L->c, n, 1);
	const struct ox_tensor *cc = ane__ox_in(L->c, n, 2);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	float alpha = ane__ox_attr_f(n, "alpha", 1.0f);
	float beta = ane__ox_attr_f(n, "beta", 1.0f);
	int ta = (int)ane__ox_attr_i(n, "transA", 0);
	int tb = (int)ane__ox_attr_i(n, "transB", 0);
	uint32_t c4[4] = { 1, 1, 1, 1 }, y4[4], bh, bw;
	int64_t k;
	float *bf = NULL, *cf = NULL;
	int err, aid, bid, id, act, i;

	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_check_float(L, n, 1);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (a->rank != 2 || b->rank != 2)
		return ane__ox_why(L, "Gemm operands of rank other than 2");
	k = a->dims[ta ? 0 : 1];
	if (k > MAX_REDUCE)
		return ane__ox_why(L, "an inner dimension of %lld; at most %d",
				   (long long)k, MAX_REDUCE);
	ane__ox_shape4(y->rank, y->dims, y4);
	if (cc) {
		if (cc->dtype != OX_FLOAT || cc->rank > 2)
			return ane__ox_why(L, "a C of rank %d", cc->rank);
		if (ane__ox_shape4(cc->rank, cc->dims, c4))
			return ane__ox_why(L, "an empty C");
		for (i = 2; i < 4; i++)
			if (c4[i] != y4[i] && c4[i] != 1)
				return ane__ox_why(L, "a C that does not broadcast");
		if (!cc->konst && !(beta >= -65504.0f && beta <= 65504.0f))
			return ane__ox_why(L, "beta %g beyond fp16's range", beta);
	}
	if (!b->konst && !(alpha >= -65504.0f && alpha <= 65504.0f))
		return ane__ox_why(L, "alpha %g beyond fp16's range", alpha);
	if (b->konst) {
		bf = to_f32(b->konst);
		if (!bf)
			return -ENOMEM;
		for (i = 0; i < (int)b->konst->count; i++)
			bf[i] *= alpha;
		if (!ane__ox_f16_ok(bf, b->konst->count)) {
			free(bf);
			return ane__ox_why(L, "B beyond fp16's range");
		}
	}
	if (cc && cc->konst) {
		cf = to_f32(cc->konst);
		if (!cf) {
			free(bf);
			return -ENOMEM;
		}
		for (i = 0; i < (int)cc->konst->count; i++)
			cf[i] *= beta;
		if (!ane__ox_f16_ok(cf, cc->konst->count)) {
			free(bf);
			free(cf);
			return ane__ox_why(L, "C beyond fp16's range");
		}
	}
	if (L->dry) {
		free(bf);
		free(cf);
		return 0;
	}
	aid = ane__ox_get(L, n->in[0], NULL);
	if (ta) {	/* A^T: a copy */
		static const uint32_t swap[4] = { 0, 1, 3, 2 };

		aid = ane_net_transpose(ox_net(L), aid, swap);
	}
	bh = (uint32_t)b->dims[0];
	bw = (uint32_t)b->dims[1];
	if (bf && tb) {
		/*
		 * A constant B^T stored as B, [K, N]: the same products in the
		 * same order, but the engine packs it by rows, not by a strided
		 * gather of every column (a CNN's classifier: 1000 x 1280).
		 */
		float *t = transpose2(bf, bh, bw);

		free(bf);
		if (!t) {
			free(cf);
			return -ENOMEM;
		}
		bf = t;
		tb = 0;
		bh = bw;
		bw = (uint32_t)b->dims[0];
	}
	bid = bf ? ane_net_const(ox_net(L), b->name, 1, 1, bh, bw, bf) :
		   ane__ox_get(L, n->in[1], NULL);
	if (!bf && alpha != 1.0f)	/* a computed B: alpha B first */
		bid = ane_net_eltwise(ox_net(L), ANE_NET_MUL, bid, ane__ox_lit(L, alpha),
				      ANE_NET_ACT_NONE);
	act = ane__ox_fuse_act(L, n);
	id = ane_net_matmul(ox_net(L), aid, bid, tb ? ANE_NET_TRANSPOSE_B : 0,
			    cc ? ANE_NET_ACT_NONE : (enum ane_net_act)act);
	if (cc) {
		int cid = cf ? ane_net_const(ox_net(L), cc->name, c4[0], c4[1],
					     c4[2], c4[3], cf) :
			  ane__ox_get(L, n->in[2], NULL);

		if (!cf && beta != 1.0f)	/* a computed C: beta C first */
			cid = ane_net_eltwise(ox_net(L), ANE_NET_MUL, cid, ane__ox_lit(L, beta),
					      ANE_NET_ACT_NONE);
		id = ane_net_eltwise(ox_net(L), ANE_NET_ADD, id, cid,
				     (enum ane_net_act)act);
	}
	free(bf);
	free(cf);
	return ane__ox_done(L, n, id);
}

/* ------------------------------------------------------------ pooling */

/*
 * ceil_mode: an output position more than the floor gives is a window
 * that runs past the input's end; padding at the end makes it.  Padding
 * never wins a max, and an average that does not count padding divides
 * by the real elements: what ceil_mode computes (@ok: the pool is one of
 * those).
 */
static void ceil_pads(struct window *w, const int64_t *in_hw, const int64_t *out_hw,
		      int ok)
{
	int i;

	for (i = 0; ok && i < 2; i++) {
		int64_t span = (int64_t)w->d[i] * (w->k[i] - 1) + 1;
		int64_t have = in_hw[i] + w->pad[2 * i] + w->pad[2 * i + 1];
		int64_t need = (out_hw[i] - 1) * w->s[i] + span;

		if (need > have && need - have < span)
			w->pad[2 * i + 1] += (uint32_t)(need - have);
	}
}

int ane__ox_lw_pool(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	const int global = !strncmp(n->op_type, "Global", 6);
	const int avg = strstr(n->op_type, "Average") != NULL;
	struct ane_net_pool_params pp = { 0 };
	const struct ox_attr *ks = ane__ox_attr(n, "kernel_shape");
	struct window win;
	int64_t k[2], in_hw[2], out_hw[2];
	uint32_t x4[4];
	int err, nsp;

	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (x->rank != 4 && x->rank != 3)
		return ane__ox_why(L, "%d-D pooling; the engine's is 1-D or 2-D",
				   x->rank - 2);
	nsp = x->rank - 2;
	in_hw[0] = nsp == 2 ? x->dims[2] : 1;
	in_hw[1] = x->dims[x->rank - 1];
	out_hw[0] = nsp == 2 ? y->dims[2] : 1;
	out_hw[1] = y->dims[y->rank - 1];
	if (global) {
		k[0] = in_hw[0];
		k[1] = in_hw[1];
		if (k[0] > MAX_KERNEL || k[1] > MAX_KERNEL)
			return ane__ox_why(L, "a global pool over %lldx%lld; the engine's window is at most %dx%d",
					   (long long)k[0], (long long)k[1],
					   MAX_KERNEL, MAX_KERNEL);
		memset(&win, 0, sizeof(win));
		win.k[0] = (uint32_t)k[0];
		win.k[1] = (uint32_t)k[1];
		win.s[0] = win.s[1] = win.d[0] = win.d[1] = 1;
	} else {
		if (!ks || ks->n != (size_t)nsp)
			return ane__ox_why(L, "a kernel_shape of other than %d values", nsp);
		err = get_window(L, n, nsp, &x->dims[2], ks->ints, &win, in_hw);
		if (err)
			return err;
		if (ane__ox_attr_i(n, "storage_order", 0))
			return ane__ox_why(L, "storage_order 1");
		ceil_pads(&win, in_hw, out_hw, !avg || !ane__ox_attr_i(n, "count_include_pad", 0));
		if (win.d[0] != 1 || win.d[1] != 1 || win.s[0] > MAX_KERNEL ||
		    win.s[1] > MAX_KERNEL) {	/* copies of the taps */
			x4[0] = (uint32_t)x->dims[0];
			x4[1] = (uint32_t)x->dims[1];
			x4[2] = (uint32_t)in_hw[0];
			x4[3] = (uint32_t)in_hw[1];
			return ane__ox_pool_taps(L, n, win.k, win.s, win.d, win.pad, x4, out_hw,
						 avg, (int)ane__ox_attr_i(n, "count_include_pad", 0));
		}
	}
	err = check_window(L, &win, in_hw, out_hw);
	if (err)
		return err;
	x4[0] = (uint32_t)x->dims[0];
	x4[1] = (uint32_t)x->dims[1];
	x4[2] = (uint32_t)in_hw[0];
	x4[3] = (uint32_t)in_hw[1];
	if (L->dry)
		return 0;
	pp.kind = avg ? ANE_NET_POOL_AVG : ANE_NET_POOL_MAX;
	pp.kernel_h = win.k[0];
	pp.kernel_w = win.k[1];
	pp.stride_h = win.s[0];
	pp.stride_w = win.s[1];
	pp.pad_top = win.pad[0];
	pp.pad_bottom = win.pad[1];
	pp.pad_left = win.pad[2];
	pp.pad_right = win.pad[3];
	pp.count_pad = avg && ane__ox_attr_i(n, "count_include_pad", 0);
	pp.act = (enum ane_net_act)ane__ox_fuse_act(L, n);
	return ane__ox_done(L, n, ane_net_pool(ox_net(L),
					       ane__ox_get(L, n->in[0], x4), &pp));
}

/* ------------------------------------------------------------ batchnorm */

/*
 * The engine's view of a tensor with channels at axis 1: N x C x R x 1,
 * R the product of the remaining dimensions (a per-channel constant is
 * then 1 x C x 1 x 1 whatever the rank).  -1 if a dimension is too large.
 */
int ane__ox_channel_view(const struct ox_tensor *x, uint32_t v[4])
{
	int64_t r = 1;
	int i;

	if (x->rank < 2)
		return -1;
	for (i = 2; i < x->rank; i++) {
		if (x->dims[i] < 1 || r > (1ll << 24) / x->dims[i])
			return -1;
		r *= x->dims[i];
	}
	if (x->dims[0] > (1ll << 24) || x->dims[1] > (1ll << 24) ||
	    x->dims[0] < 1 || x->dims[1] < 1)
		return -1;
	v[0] = (uint32_t)x->dims[0];
	v[1] = (uint32_t)x->dims[1];
	v[2] = (uint32_t)r;
	v[3] = 1;
	return 0;
}

/*
 * Computed statistics: g = scale * recip(sqrt(var + eps)) and
 * B - mean * g on the engine (C elements each), then as below.
 */
static int bn_computed(struct lower *L, const struct ox_node *n, const uint32_t x4[4])
{
	float eps = ane__ox_attr_f(n, "epsilon", 1e-5f);
	uint32_t c4[4] = { 1, x4[1], 1, 1 };
	int i, err, id, g, sh;

	if (strcmp(n->op_type, "BatchNormalization") || ane__ox_attr_i(n, "training_mode", 0) ||
	    !ane__ox_attr_i(n, "spatial", 1) || n->n_in != 5)
		return ane__ox_why(L, "training-mode or non-spatial parameters");
	if (!(eps >= 0.0f && eps <= 65504.0f))
		return ane__ox_why(L, "epsilon %g", eps);
	for (i = 1; i < 5; i++) {
		const struct ox_tensor *t = ane__ox_in(L->c, n, i);

		err = ane__ox_check_float(L, n, i);
		if (!err && t->konst)
			err = ane__ox_check_const_f16(L, n, t->konst, t->name);
		if (err)
			return err;
		if (t->rank != 1 || t->dims[0] != (int64_t)x4[1])
			return ane__ox_why(L, "input %d of other than one value per channel", i);
	}
	if (L->dry)
		return 0;
	g = ane_net_eltwise(ox_net(L), ANE_NET_ADD, ane__ox_get(L, n->in[4], c4),
			    ane__ox_lit(L, eps), ANE_NET_ACT_SQRT);
	g = ane_net_eltwise(ox_net(L), ANE_NET_DIV, ane__ox_get(L, n->in[1], c4), g,
			    ANE_NET_ACT_NONE);
	sh = ane_net_eltwise(ox_net(L), ANE_NET_MUL, ane__ox_get(L, n->in[3], c4), g,
			     ANE_NET_ACT_NONE);
	sh = ane_net_eltwise(ox_net(L), ANE_NET_SUB, ane__ox_get(L, n->in[2], c4), sh,
			     ANE_NET_ACT_NONE);
	id = ane_net_eltwise(ox_net(L), ANE_NET_MUL, ane__ox_get(L, n->in[0], x4), g,
			     ANE_NET_ACT_NONE);
	id = ane_net_eltwise(ox_net(L), ANE_NET_ADD, id, sh,
			     (enum ane_net_act)ane__ox_fuse_act(L, n));
	return ane__ox_done(L, n, id);
}

/* y = x * g + (B - mean * g), g = scale / sqrt(var + eps), per channel. */
int ane__ox_lw_bn(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const float *bn[4];
	uint32_t c4[4] = { 1, 1, 1, 1 }, x4[4];
	float *g, *sh;
	int64_t c, i;
	int err, id;

	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (ane__ox_channel_view(x, x4))
		return ane__ox_why(L, "a batch normalization of rank %d", x->rank);
	c = x->dims[1];
	if (bn_params(L, n, bn, (size_t)c))
		return bn_computed(L, n, x4);
	c4[1] = (uint32_t)c;
	g = malloc(sizeof(float) * (size_t)c);
	sh = malloc(sizeof(float) * (size_t)c);
	if (!g || !sh) {
		free(g);
		free(sh);
		return -ENOMEM;
	}
	for (i = 0; i < c; i++) {
		double gm = bn[0][i] / sqrt((double)bn[3][i] +
					    ane__ox_attr_f(n, "epsilon", 1e-5f));

		g[i] = (float)gm;
		sh[i] = (float)(bn[1][i] - bn[2][i] * gm);
	}
	if (!ane__ox_f16_ok(g, (size_t)c) || !ane__ox_f16_ok(sh, (size_t)c)) {
		err = ane__ox_why(L, "its scale or shift is beyond fp16's range");
	} else if (!L->dry) {
		id = ane_net_eltwise(ox_net(L), ANE_NET_MUL,
				     ane__ox_get(L, n->in[0], x4),
				     ane_net_const(ox_net(L), "bn_scale", c4[0], c4[1],
						   c4[2], c4[3], g),
				     ANE_NET_ACT_NONE);
		id = ane_net_eltwise(ox_net(L), ANE_NET_ADD, id,
				     ane_net_const(ox_net(L), "bn_shift", c4[0], c4[1],
						   c4[2], c4[3], sh),
				     (enum ane_net_act)ane__ox_fuse_act(L, n));
		err = ane__ox_done(L, n, id);
	}
	free(g);
	free(sh);
	return err;
}
