// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: ops the engine computes as a few of its
 * operations -- Where with a constant condition (copies), LRN (a 1 x 1
 * convolution with a band of ones over the squares, then POW and DIV)
 * and MeanVarianceNormalization (REDUCE MEAN, the squared differences'
 * mean, SQRT, DIV).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"
#include "ox_ops.h"

/* Copies a Where may take: one for Y, one per run of true conditions. */
#define WHERE_COPIES	64

/*
 * Where(C, X, Y), C constant: Y broadcast into the output, then X's
 * elements copied over it along each run of true conditions within a row
 * of W -- the values moved, their bits unchanged, never a product.
 */
static int lw_where(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *c = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	struct ane_net_view_desc cv, xv, yv;
	uint32_t y4[4];
	int64_t row, rows, w, runs = 0;
	int err = ane__ox_out_ok(L, n), i, id, xid;

	for (i = 1; i < 3 && !err; i++)
		err = ane__ox_check_float(L, n, i);
	if (err)
		return err;
	if (!c->konst)
		return ane__ox_why(L, "input 0 '%s' must be a constant: the engine's Where selects by a constant condition",
				   c->name);
	if (y->rank > 4 || ane__ox_shape4(y->rank, y->dims, y4) ||
	    ane__ox_bcast_view(c, y4, &cv) || ane__ox_bcast_view(ane__ox_in(L->c, n, 1), y4, &xv) ||
	    ane__ox_bcast_view(ane__ox_in(L->c, n, 2), y4, &yv))
		return ane__ox_why(L, "inputs that do not broadcast to the output in rank 4");
	rows = (int64_t)y4[0] * y4[1] * y4[2];
	for (row = 0; row < rows; row++) {
		int64_t base = row / (y4[1] * y4[2]) * cv.stride[0] +
			       row / y4[2] % y4[1] * cv.stride[1] + row % y4[2] * cv.stride[2];

		for (w = 0; w < y4[3]; w++)
			if (ane__ox_get_i(c->konst, (size_t)(base + w * cv.stride[3])) &&
			    (w == 0 || !ane__ox_get_i(c->konst,
						      (size_t)(base + (w - 1) * cv.stride[3]))))
				runs++;
	}
	if (runs + 1 > WHERE_COPIES)
		return ane__ox_why(L, "a condition of %lld runs; the engine's Where takes %d copies",
				   (long long)runs, WHERE_COPIES);
	if (L->dry)
		return 0;
	id = ane_net_copy(ox_net(L), ane__ox_get(L, n->in[2], NULL), &yv, -1, NULL);
	xid = ane__ox_get(L, n->in[1], NULL);
	for (row = 0; row < rows && id >= 0; row++) {
		int64_t nn = row / (y4[1] * y4[2]), cc = row / y4[2] % y4[1], hh = row % y4[2];
		int64_t base = nn * cv.stride[0] + cc * cv.stride[1] + hh * cv.stride[2];

		for (w = 0; w < y4[3] && id >= 0; w++) {
			int64_t e = w;
			struct ane_net_view_desc s = xv, d;

			if (!ane__ox_get_i(c->konst, (size_t)(base + w * cv.stride[3])))
				continue;
			while (e + 1 < y4[3] &&
			       ane__ox_get_i(c->konst, (size_t)(base + (e + 1) * cv.stride[3])))
				e++;
			s.dim[0] = s.dim[1] = s.dim[2] = 1;
			s.dim[3] = (uint32_t)(e - w + 1);
			s.offset = nn * xv.stride[0] + cc * xv.stride[1] + hh * xv.stride[2] +
				   w * xv.stride[3];
			d = (struct ane_net_view_desc){
				.dim = { 1, 1, 1, (uint32_t)(e - w + 1) },
				.stride = { 0, 0, 0, 1 },
				.offset = row * y4[3] + w,
			};
			id = ane_net_copy(ox_net(L), xid, &s, id, &d);
			w = e;
		}
	}
	return ane__ox_done(L, n, id);
}

/*
 * LRN over channels: y = x / (bias + alpha / size * S)^beta, S the sum
 * of the squares over the channels c - (size - 1) / 2 .. c + size / 2:
 * a 1 x 1 convolution of x * x with a band of alpha / size.
 */
static int lw_lrn(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	float alpha = ane__ox_attr_f(n, "alpha", 1e-4f), beta = ane__ox_attr_f(n, "beta", 0.75f);
	float bias = ane__ox_attr_f(n, "bias", 1.0f);
	int64_t size = ane__ox_attr_i(n, "size", 0), c, o, i;
	uint32_t x4[4];
	int err = ane__ox_check_float(L, n, 0), sq, id;
	float *band;

	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (ane__ox_channel_view(x, x4))
		return ane__ox_why(L, "an LRN of rank %d", x->rank);
	c = x4[1];
	if (size < 1 || c > 16384)
		return ane__ox_why(L, "size %lld over %lld channels", (long long)size,
				   (long long)c);
	if (!(bias >= -65504.0f && bias <= 65504.0f) || !(beta >= -65504.0f && beta <= 65504.0f) ||
	    !(alpha / (float)size >= -65504.0f && alpha / (float)size <= 65504.0f))
		return ane__ox_why(L, "alpha, beta or bias beyond fp16's range");
	if (L->dry)
		return 0;
	band = calloc((size_t)(c * c), sizeof(float));
	if (!band)
		return -ENOMEM;
	for (o = 0; o < c; o++)
		for (i = o - (size - 1) / 2; i <= o + size / 2; i++)
			if (i >= 0 && i < c)
				band[o * c + i] = alpha / (float)size;
	id = ane__ox_get(L, n->in[0], x4);
	sq = ane_net_eltwise(ox_net(L), ANE_NET_MUL, id, id, ANE_NET_ACT_NONE);
	sq = ane_net_conv(ox_net(L), sq,
			  ane_net_const(ox_net(L), "lrn_band", (uint32_t)c, (uint32_t)c, 1, 1, band),
			  -1, NULL);
	free(band);
	sq = ane_net_eltwise(ox_net(L), ANE_NET_ADD, sq, ane__ox_lit(L, bias), ANE_NET_ACT_NONE);
	sq = ane_net_eltwise(ox_net(L), ANE_NET_POW, sq, ane__ox_lit(L, beta), ANE_NET_ACT_NONE);
	return ane__ox_done(L, n, ane_net_eltwise(ox_net(L), ANE_NET_DIV, id, sq,
						  ANE_NET_ACT_NONE));
}

/*
 * MeanVarianceNormalization over @axes (default 0, 2, 3): (x - mean) /
 * sqrt(mean((x - mean)^2)), the differences' mean rather than ONNX's
 * E[x^2] - E[x]^2 (the same value, without its cancellation).  ONNX adds
 * 1e-9 to the deviation, which fp16 cannot hold: a constant row gives
 * 0 / 0 = NaN where ONNX gives 0.
 */
static int lw_mvn(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_attr *a = ane__ox_attr(n, "axes");
	unsigned char on[OX_MAX_RANK] = { 0 };
	uint32_t v4[4], axes;
	int err = ane__ox_check_float(L, n, 0), i, id, mean, d, var;

	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (a) {
		for (i = 0; i < (int)a->n; i++) {
			int64_t k = a->ints[i] < 0 ? a->ints[i] + x->rank : a->ints[i];

			if (k < 0 || k >= x->rank)
				return ane__ox_why(L, "axis %lld", (long long)a->ints[i]);
			on[k] = 1;
		}
	} else {
		for (i = 0; i < x->rank; i++)
			on[i] = i != 1;
	}
	err = ane__ox_reduce_view(L, x, on, v4, &axes);
	if (!err && !axes)	/* no axis: each element its own mean, 0 / 0 */
		err = ane__ox_why(L, "no axis to normalize over");
	if (err || L->dry)
		return err;
	id = ane__ox_get(L, n->in[0], v4);
	mean = ane_net_reduce(ox_net(L), id, ANE_NET_REDUCE_MEAN, axes, ANE_NET_ACT_NONE);
	d = ane_net_eltwise(ox_net(L), ANE_NET_SUB, id, mean, ANE_NET_ACT_NONE);
	var = ane_net_eltwise(ox_net(L), ANE_NET_MUL, d, d, ANE_NET_ACT_NONE);
	var = ane_net_reduce(ox_net(L), var, ANE_NET_REDUCE_MEAN, axes, ANE_NET_ACT_SQRT);
	return ane__ox_done(L, n, ane_net_eltwise(ox_net(L), ANE_NET_DIV, d, var,
						  ANE_NET_ACT_NONE));
}

const struct ox_lowering ane__ox_lw_misc[] = {
	{ "Where", lw_where }, { "LRN", lw_lrn },
	{ "MeanVarianceNormalization", lw_mvn },
};

const size_t ane__ox_lw_misc_n = sizeof(ane__ox_lw_misc) / sizeof(ane__ox_lw_misc[0]);
