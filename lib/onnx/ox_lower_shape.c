// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: rearrangements and resampling on the engine --
 * DepthToSpace, SpaceToDepth and Tile as the COPY task's strided views,
 * and every separable Resize (linear, cubic, nearest that is not a whole
 * factor) as matrix products with constant interpolation matrices:
 * y = Rh x Rw^T, one product per resized axis of H and W.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"
#include "ox_ops.h"

/* Dense strides of NCHW dims @d. */
static void dense(const uint32_t d[4], int64_t s[4])
{
	s[3] = 1;
	s[2] = d[3];
	s[1] = (int64_t)d[2] * d[3];
	s[0] = (int64_t)d[1] * s[1];
}

/*
 * DepthToSpace and SpaceToDepth: one copy per (i, j) of the block, the
 * channels of one block offset to every bs-th element of the space.
 * DCR: depth index (i * bs + j) * C' + c; CRD: c * bs * bs + i * bs + j.
 */
static int lw_space(struct lower *L, const struct ox_node *n)
{
	int to_space = !strcmp(n->op_type, "DepthToSpace");
	int64_t bs = ane__ox_attr_i(n, "blocksize", 0), xs[4], ys[4];
	const char *mode = to_space ? ane__ox_attr_s(n, "mode", "DCR") : "DCR";
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	uint32_t x4[4], y4[4], sp[4];
	int err = ane__ox_move_ok(L, n, x4, y4), crd, id, xid, i, j;

	if (err)
		return err;
	if (x->rank != 4)
		return ane__ox_why(L, "an input of rank %d; %s takes rank 4", x->rank, n->op_type);
	if (bs < 1 || bs > 8)
		return ane__ox_why(L, "blocksize %lld; the engine's copies take 1 to 8",
				   (long long)bs);
	crd = !strcmp(mode, "CRD");
	if (!crd && strcmp(mode, "DCR"))
		return ane__ox_why(L, "mode '%s'", mode);
	if (L->dry)
		return 0;
	/* sp: the extents of one block's part, in the space's terms */
	memcpy(sp, to_space ? y4 : x4, sizeof(sp));
	sp[1] = to_space ? y4[1] : x4[1];
	sp[2] /= (uint32_t)bs;
	sp[3] /= (uint32_t)bs;
	dense(x4, xs);
	dense(y4, ys);
	xid = ane__ox_get(L, n->in[0], NULL);
	id = ane_net_empty(ox_net(L), n->op_type, y4[0], y4[1], y4[2], y4[3]);
	for (i = 0; i < bs && id >= 0; i++)
		for (j = 0; j < bs && id >= 0; j++) {
			int64_t blk = i * bs + j;
			/* the depth side's view of block (i, j) */
			struct ane_net_view_desc dv = {
				.dim = { sp[0], sp[1], sp[2], sp[3] },
			};
			/* the space side's: every bs-th row and column */
			struct ane_net_view_desc sv = dv;
			const int64_t *ds = to_space ? xs : ys, *ss = to_space ? ys : xs;
			uint32_t sw = to_space ? y4[3] : x4[3];

			dv.stride[0] = ds[0];
			dv.stride[1] = crd ? ds[1] * bs * bs : ds[1];
			dv.stride[2] = ds[2];
			dv.stride[3] = 1;
			dv.offset = crd ? blk * ds[1] : blk * sp[1] * ds[1];
			sv.stride[0] = ss[0];
			sv.stride[1] = ss[1];
			sv.stride[2] = ss[2] * bs;
			sv.stride[3] = bs;
			sv.offset = i * (int64_t)sw + j;
			id = to_space ? ane_net_copy(ox_net(L), xid, &dv, id, &sv) :
					ane_net_copy(ox_net(L), xid, &sv, id, &dv);
		}
	return ane__ox_done(L, n, id);
}

/* Tile: along each repeated axis, one copy per repeat (64 in all at most). */
static int lw_tile(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *rt = ane__ox_in(L->c, n, 1);
	uint32_t x4[4], y4[4], cur[4], rep[4] = { 1, 1, 1, 1 };
	int err = ane__ox_move_ok(L, n, x4, y4), k, id, copies = 0;
	int64_t r;
	uint32_t q;

	if (err)
		return err;
	if (!rt || !rt->konst || rt->konst->count != (size_t)x->rank)
		return ane__ox_why(L, "computed repeats");
	for (k = 0; k < x->rank; k++) {
		r = ane__ox_get_i(rt->konst, (size_t)k);
		if (r < 1)
			return ane__ox_why(L, "repeats[%d] is %lld", k, (long long)r);
		if (r > 64)
			return ane__ox_why(L, "repeats[%d] is %lld; the engine tiles 64 times at most",
					   k, (long long)r);
		rep[4 - x->rank + k] = (uint32_t)r;
		copies += r > 1 ? (int)r : 0;
	}
	if (copies > 64)
		return ane__ox_why(L, "%d copies; the engine's tiling makes 64 at most", copies);
	if (L->dry)
		return 0;
	id = ane__ox_get(L, n->in[0], NULL);
	memcpy(cur, x4, sizeof(cur));
	for (k = 0; k < 4 && id >= 0; k++) {
		int64_t ds[4];
		uint32_t nd[4];
		int out;

		if (rep[k] == 1)
			continue;
		memcpy(nd, cur, sizeof(nd));
		nd[k] *= rep[k];
		dense(nd, ds);
		out = ane_net_empty(ox_net(L), "tile", nd[0], nd[1], nd[2], nd[3]);
		for (q = 0; q < rep[k] && out >= 0; q++) {
			struct ane_net_view_desc dv = {
				.dim = { cur[0], cur[1], cur[2], cur[3] },
				.stride = { ds[0], ds[1], ds[2], ds[3] },
				.offset = (int64_t)q * cur[k] * ds[k],
			};

			out = ane_net_copy(ox_net(L), id, NULL, out, &dv);
		}
		id = out;
		memcpy(cur, nd, sizeof(cur));
	}
	return ane__ox_done(L, n, id);
}

/* The engine's limit on one side of an interpolation matrix. */
#define RESIZE_MAX	4096

/*
 * Resize as products: x [N, C, H, W] times Rw^T [1, 1, W, Wo] gives
 * [N, C, H, Wo]; Rh [1, 1, Ho, H] times that gives [N, C, Ho, Wo].  The
 * weights are rounded to fp16 (a linear or cubic weight's error is at
 * most 2^-11 of it) and each product is rounded to fp16 once.  An axis
 * whose matrix is the identity is skipped.  The weights of nearest are
 * 0 and 1: the values are the input's, except that a product sums
 * 0 * every other element of the row, so an infinity or NaN there makes
 * the result NaN (onnx.rst, "Supported operators").
 */
int ane__ox_lw_resize_mm(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	uint32_t x4[4], y4[4];
	int err = ane__ox_move_ok(L, n, x4, y4), ax, id, off;
	float *m[2] = { NULL, NULL }, *e = NULL;
	unsigned char *ext[2] = { NULL, NULL };
	int skip[2] = { 1, 1 }, extrap = 0;
	double ev = 0;

	if (err)
		return err;
	off = 4 - x->rank;
	if (!strcmp(ane__ox_attr_s(n, "coordinate_transformation_mode", ""),
		    "tf_crop_and_resize") && n->n_in > 1 && ane__ox_in(L->c, n, 1) &&
	    !ane__ox_in(L->c, n, 1)->konst)
		return ane__ox_why(L, "input 1 '%s' (roi) must be a constant: its interpolation matrices are",
				   ane__ox_in(L->c, n, 1)->name);
	for (ax = 0; ax < 2; ax++)
		if (y4[ax] != x4[ax])
			return ane__ox_why(L, "a resize along N or C");
	for (ax = 0; ax < 2; ax++) {
		uint32_t in = x4[2 + ax], out = y4[2 + ax], o, i;
		int d = 2 + ax - off;

		if (in > RESIZE_MAX || out > RESIZE_MAX) {
			err = ane__ox_why(L, "an axis of %u resized to %u; the engine's matrices are %u at most",
					  in, out, RESIZE_MAX);
			goto out;
		}
		if (d < 0)	/* an axis the rank does not have: extent 1 */
			continue;
		m[ax] = malloc(sizeof(float) * in * out);
		if (!m[ax]) {
			err = -ENOMEM;
			goto out;
		}
		ext[ax] = calloc(out, 1);
		if (!ext[ax]) {
			err = -ENOMEM;
			goto out;
		}
		err = ane__ox_resize_matrix(L->c, n, x->rank, x->dims, d, m[ax], ext[ax], &ev);
		if (err) {
			err = ane__ox_why(L, "its scales, sizes or roi are not constants the engine can take");
			goto out;
		}
		for (o = 0; o < out; o++)
			for (i = 0; i < in; i++) {
				float w = m[ax][o * in + i];

				if (w != (o == i && in == out ? 1.0f : 0.0f))
					skip[ax] = 0;
				extrap |= ext[ax][o] && ev != 0;
				if (!(w >= -65504.0f && w <= 65504.0f)) {
					err = ane__ox_why(L, "a weight beyond fp16's range");
					goto out;
				}
			}
	}
	if (extrap && !(ev >= -65504.0 && ev <= 65504.0)) {
		err = ane__ox_why(L, "an extrapolation value beyond fp16's range");
		goto out;
	}
	if (L->dry)
		goto out;
	id = ane__ox_get(L, n->in[0], x4);
	if (!skip[1]) {
		/* Rw^T: [W, Wo], element [i][o] = Rw[o][i] */
		uint32_t in = x4[3], out = y4[3], o, i;
		float *t = malloc(sizeof(float) * in * out);

		if (!t) {
			err = -ENOMEM;
			goto out;
		}
		for (o = 0; o < out; o++)
			for (i = 0; i < in; i++)
				t[i * out + o] = m[1][o * in + i];
		id = ane_net_matmul(ox_net(L), id,
				    ane_net_const(ox_net(L), "resize_w", 1, 1, in, out, t),
				    0, ANE_NET_ACT_NONE);
		free(t);
	}
	if (!skip[0])
		id = ane_net_matmul(ox_net(L),
				    ane_net_const(ox_net(L), "resize_h", 1, 1, y4[2], x4[2], m[0]),
				    id, 0, ANE_NET_ACT_NONE);
	if (extrap) {
		/*
		 * The coordinates outside the roi: their rows of the matrices
		 * are 0, so the products give them 0 (exactly, from finite
		 * inputs); adding the value there and 0 elsewhere sets them
		 * and leaves every other output's bits as they are.
		 */
		uint32_t oh, ow;

		e = malloc(sizeof(float) * y4[2] * y4[3]);
		if (!e) {
			err = -ENOMEM;
			goto out;
		}
		for (oh = 0; oh < y4[2]; oh++)
			for (ow = 0; ow < y4[3]; ow++)
				e[oh * y4[3] + ow] = (ext[0] && ext[0][oh]) ||
						     (ext[1] && ext[1][ow]) ? (float)ev : 0.0f;
		id = ane_net_eltwise(ox_net(L), ANE_NET_ADD, id,
				     ane_net_const(ox_net(L), "resize_extrapolation", 1, 1,
						   y4[2], y4[3], e),
				     ANE_NET_ACT_NONE);
	} else if (skip[0] && skip[1]) {
		id = ane_net_activation(ox_net(L), id, ANE_NET_ACT_NONE);
	}
	err = ane__ox_done(L, n, id);
out:
	free(m[0]);
	free(m[1]);
	free(ext[0]);
	free(ext[1]);
	free(e);
	return err;
}

const struct ox_lowering ane__ox_lw_shape[] = {
	{ "DepthToSpace", lw_space }, { "SpaceToDepth", lw_space },
	{ "Tile", lw_tile },
};

const size_t ane__ox_lw_shape_n = sizeof(ane__ox_lw_shape) / sizeof(ane__ox_lw_shape[0]);
