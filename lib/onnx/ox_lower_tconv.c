// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: ConvTranspose on the engine, as a convolution
 * of the input spread out with zeros.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"
#include "ox_ops.h"

/* Terms of one dot product (ANE_MATH_MAX_REDUCE). */
#define MAX_REDUCE	16384

/* ------------------------------------------------------------ conv transpose */

/*
 * ConvTranspose as a convolution: x spread out with zeros between its
 * elements (the stride) and around them (the kernel's extent less the
 * pads, plus output_padding at the end) -- an ane_net_empty() tensor, a
 * fill of 0 and a strided copy -- then a stride-1 convolution with the
 * kernel flipped and its channel axes swapped per group.
 */
struct tconv {
	int nsp;
	int64_t g, cin, cout_g, k[2], s[2], d[2], pb[2], pe[2], in[2];
};

static int tconv_geometry(struct lower *L, const struct ox_node *n,
			  const struct ox_tensor *x, const struct ox_tensor *w,
			  const struct ox_tensor *y, struct tconv *t)
{
	const struct ox_attr *op = ane__ox_attr(n, "output_padding");
	struct ox_geom g;
	int i, off;

	t->nsp = x->rank - 2;
	if (ane__ox_convt_geom(L->c, n, x, w->dims + 2, &g))
		return ane__ox_why(L, "its geometry");
	t->g = ane__ox_attr_i(n, "group", 1);
	t->cin = x->dims[1];
	t->cout_g = w->dims[1];
	if (t->g < 1 || t->cin % t->g || w->dims[0] != t->cin)
		return ane__ox_why(L, "groups %lld do not match the channels", (long long)t->g);
	off = 2 - t->nsp;
	for (i = 0; i < 2; i++) {
		t->k[i] = 1;
		t->s[i] = t->d[i] = 1;
		t->pb[i] = t->pe[i] = 0;
		t->in[i] = 1;
	}
	for (i = 0; i < t->nsp; i++) {
		int64_t opad = op && op->n == (size_t)t->nsp ? op->ints[i] : 0;
		int a = off + i;

		t->k[a] = g.k[i];
		t->in[a] = x->dims[2 + i];
		t->s[a] = g.st[i];
		t->d[a] = g.dil[i];
		if (t->s[a] < 1 || t->s[a] > 64 || t->d[a] < 1 || t->d[a] > 64 ||
		    t->k[a] < 1 || t->k[a] > 64)
			return ane__ox_why(L, "a kernel, stride or dilation outside 1..64");
		/*
		 * The spread-out input's zeros: the kernel's extent less the
		 * pads before; after, whatever gives the output's size (the
		 * extent less the pads, plus output_padding, or an
		 * output_shape past the last window: outputs no input
		 * reaches, which are the bias alone).
		 */
		t->pb[a] = t->d[a] * (t->k[a] - 1) - g.pb[i];
		t->pe[a] = y->dims[2 + i] + t->d[a] * (t->k[a] - 1) -
			   (t->in[a] - 1) * t->s[a] - 1 - t->pb[a];
		if (t->pb[a] < 0 || t->pe[a] < 0 || opad < 0)
			return ane__ox_why(L, "pads beyond the kernel's extent (a crop)");
	}
	if ((t->cin / t->g) * t->k[0] * t->k[1] > MAX_REDUCE)
		return ane__ox_why(L, "too many products per output");
	return 0;
}

int ane__ox_lw_convtranspose(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	const struct ox_tensor *wt = ane__ox_in(L->c, n, 1);
	const struct ox_tensor *bt = n->n_in > 2 ? ane__ox_in(L->c, n, 2) : NULL;
	const struct ox_value *w = wt ? wt->konst : NULL, *b = bt ? bt->konst : NULL;
	struct ane_net_conv_params cp = { 0 };
	struct ane_net_view_desc dv;
	int64_t cout, hz, wz, o, i, ky, kx, cin_g;
	float *wf = NULL, *bf = NULL;
	struct tconv t = { 0 };
	int err, xz, id, wid, bid;

	err = ane__ox_check_float(L, n, 0);
	if (!err && !w)
		err = ane__ox_check_float(L, n, 1);
	if (!err && bt && !b)
		err = ane__ox_check_float(L, n, 2);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (x->rank != 4 && x->rank != 3)
		return ane__ox_why(L, "a %d-D transposed convolution", x->rank - 2);
	if (!wt || wt->rank != x->rank)
		return ane__ox_why(L, "weights of rank %d", wt ? wt->rank : 0);
	err = tconv_geometry(L, n, x, wt, y, &t);
	if (err)
		return err;
	cin_g = t.cin / t.g;
	cout = t.cout_g * t.g;
	hz = (t.in[0] - 1) * t.s[0] + 1 + t.pb[0] + t.pe[0];
	wz = (t.in[1] - 1) * t.s[1] + 1 + t.pb[1] + t.pe[1];
	if (hz > (1 << 24) || wz > (1 << 24))
		return ane__ox_why(L, "a spread-out input too large");
	if (!w && t.g > 64)
		return ane__ox_why(L, "computed weights in %lld groups; the engine flips 64 at most",
				   (long long)t.g);
	wf = malloc(sizeof(float) * (size_t)(cout * cin_g * t.k[0] * t.k[1]));
	bf = calloc((size_t)cout, sizeof(float));
	if (!wf || !bf) {
		err = -ENOMEM;
		goto out;
	}
	/* W'[g*Cout/g + o][i][y][x] = W[g*Cin/g + i][o][kh-1-y][kw-1-x]. */
	for (o = 0; w && o < cout; o++)
		for (i = 0; i < cin_g; i++)
			for (ky = 0; ky < t.k[0]; ky++)
				for (kx = 0; kx < t.k[1]; kx++) {
					int64_t gi = o / t.cout_g, oo = o % t.cout_g;
					int64_t src = (((gi * cin_g + i) * t.cout_g + oo) *
						       t.k[0] + (t.k[0] - 1 - ky)) * t.k[1] +
						      (t.k[1] - 1 - kx);

					wf[((o * cin_g + i) * t.k[0] + ky) * t.k[1] + kx] =
						(float)ane__ox_get_f(w, (size_t)src);
				}
	for (o = 0; b && o < cout; o++)
		bf[o] = (float)ane__ox_get_f(b, (size_t)o);
	if ((w && !ane__ox_f16_ok(wf, (size_t)(cout * cin_g * t.k[0] * t.k[1]))) ||
	    !ane__ox_f16_ok(bf, (size_t)cout)) {
		err = ane__ox_why(L, "weights or bias beyond fp16's range (65504)");
		goto out;
	}
	if (L->dry)
		goto out;
	xz = ane_net_empty(ox_net(L), "spread", (uint32_t)x->dims[0], (uint32_t)t.cin,
			   (uint32_t)hz, (uint32_t)wz);
	xz = ane_net_fill(ox_net(L), xz, NULL, 0.0f);
	dv = (struct ane_net_view_desc){
		.dim = { (uint32_t)x->dims[0], (uint32_t)t.cin, (uint32_t)t.in[0],
			 (uint32_t)t.in[1] },
		.stride = { t.cin * hz * wz, hz * wz, t.s[0] * wz, t.s[1] },
		.offset = t.pb[0] * wz + t.pb[1],
	};
	{
		uint32_t x4[4] = { (uint32_t)x->dims[0], (uint32_t)t.cin,
				   (uint32_t)t.in[0], (uint32_t)t.in[1] };

		xz = ane_net_copy(ox_net(L), ane__ox_get(L, n->in[0], x4), NULL, xz, &dv);
	}
	cp.dilation_h = (uint32_t)t.d[0];
	cp.dilation_w = (uint32_t)t.d[1];
	cp.groups = (uint32_t)t.g;
	cp.act = (enum ane_net_act)ane__ox_fuse_act(L, n);
	if (w) {
		wid = ane_net_const(ox_net(L), "flipped", (uint32_t)cout, (uint32_t)cin_g,
				    (uint32_t)t.k[0], (uint32_t)t.k[1], wf);
	} else {
		/* the same flip and swap as one copy of a view per group */
		int64_t kk = t.k[0] * t.k[1], gi;
		uint32_t w4[4] = { (uint32_t)t.cin, (uint32_t)t.cout_g, (uint32_t)t.k[0],
				   (uint32_t)t.k[1] };
		int src = ane__ox_get(L, n->in[1], w4);

		wid = ane_net_empty(ox_net(L), "flipped", (uint32_t)cout, (uint32_t)cin_g,
				    (uint32_t)t.k[0], (uint32_t)t.k[1]);
		for (gi = 0; gi < t.g && wid >= 0; gi++) {
			struct ane_net_view_desc sv = {
				.dim = { (uint32_t)t.cout_g, (uint32_t)cin_g,
					 (uint32_t)t.k[0], (uint32_t)t.k[1] },
				.stride = { kk, t.cout_g * kk, -t.k[1], -1 },
				.offset = gi * cin_g * t.cout_g * kk + kk - 1,
			};
			struct ane_net_view_desc wv = {
				.dim = { (uint32_t)t.cout_g, (uint32_t)cin_g,
					 (uint32_t)t.k[0], (uint32_t)t.k[1] },
				.stride = { cin_g * kk, kk, t.k[1], 1 },
				.offset = gi * t.cout_g * cin_g * kk,
			};

			wid = ane_net_copy(ox_net(L), src, &sv, wid, &wv);
		}
	}
	if (bt && !b) {
		uint32_t b4[4] = { 1, (uint32_t)cout, 1, 1 };

		bid = ane__ox_get(L, n->in[2], b4);
	} else {
		bid = ane_net_const(ox_net(L), "bias", 1, (uint32_t)cout, 1, 1, bf);
	}
	id = ane_net_conv(ox_net(L), xz, wid, bid, &cp);
	err = ane__ox_done(L, n, id);
out:
	free(wf);
	free(bf);
	return err;
}
