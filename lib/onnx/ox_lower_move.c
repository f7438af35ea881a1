// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: data movement lowered to the engine's COPY
 * task through libane's builder -- Transpose, Concat, Slice, Split, Pad,
 * Expand, Gather of constant indices and nearest Resize by whole factors
 * (any other Resize: ox_lower_shape.c) -- each a strided view of one tensor copied
 * into a view of another, the fp16 bits unchanged.  Shapes of rank 4 or
 * less, right-aligned into N, C, H, W.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"
#include "ox_ops.h"

int ane__ox_move_ok(struct lower *L, const struct ox_node *n, uint32_t x4[4],
		    uint32_t y4[4])
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	int err = ane__ox_check_float(L, n, 0);

	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (x->rank > 4 || y->rank > 4)
		return ane__ox_why(L, "a %s of rank %d; the engine's copies are of rank 4 at most",
				   n->op_type, x->rank > y->rank ? x->rank : y->rank);
	ane__ox_shape4(x->rank, x->dims, x4);
	ane__ox_shape4(y->rank, y->dims, y4);
	return 0;
}

/* An axis of a rank-@rank tensor as the engine's (0 N .. 3 W). */
static int axis4(int64_t axis, int rank)
{
	if (axis < 0)
		axis += rank;
	return axis < 0 || axis >= rank ? -1 : (int)axis + 4 - rank;
}

/*
 * A Transpose of rank 5 to 8: the output's smallest axes but four are
 * looped over (64 combinations at most), each combination one copy of a
 * 4-D view, the input's strides permuted.
 */
static int transpose_high(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	const struct ox_attr *a = ane__ox_attr(n, "perm");
	int64_t xs[OX_MAX_RANK], ys[OX_MAX_RANK], p[OX_MAX_RANK], combos = 1;
	int r = x->rank, k, j, loop[OX_MAX_RANK] = { 0 }, nloop = 0, id, xid;
	uint32_t y4[4];

	for (k = 0; k < r; k++) {
		p[k] = a && a->n == (size_t)r ? a->ints[k] : r - 1 - k;
		if (p[k] < 0 || p[k] >= r)
			return ane__ox_why(L, "perm[%d] is %lld", k, (long long)p[k]);
	}
	ane__ox_strides(r, x->dims, xs);
	ane__ox_strides(r, y->dims, ys);
	/* loop over the r - 4 output axes of least extent */
	while (nloop < r - 4) {
		int best = -1;

		for (k = 0; k < r; k++)
			if (!loop[k] && (best < 0 || y->dims[k] < y->dims[best]))
				best = k;
		loop[best] = 1;
		combos *= y->dims[best];
		nloop++;
	}
	if (combos > 64)
		return ane__ox_why(L, "a Transpose of rank %d that takes %lld copies; the engine's take 64 at most",
				   r, (long long)combos);
	if (L->dry)
		return 0;
	ane__ox_shape4(y->rank, y->dims, y4);
	xid = ane__ox_get(L, n->in[0], NULL);
	id = ane_net_empty(ox_net(L), "transpose", y4[0], y4[1], y4[2], y4[3]);
	for (j = 0; j < combos && id >= 0; j++) {
		struct ane_net_view_desc sv = { .offset = 0 }, dv = { .offset = 0 };
		int64_t rest = j;
		int v = 0;

		for (k = r - 1; k >= 0; k--) {
			if (!loop[k])
				continue;
			sv.offset += rest % y->dims[k] * xs[p[k]];
			dv.offset += rest % y->dims[k] * ys[k];
			rest /= y->dims[k];
		}
		for (k = 0; k < r; k++) {
			if (loop[k])
				continue;
			sv.dim[v] = dv.dim[v] = (uint32_t)y->dims[k];
			sv.stride[v] = xs[p[k]];
			dv.stride[v++] = ys[k];
		}
		id = ane_net_copy(ox_net(L), xid, &sv, id, &dv);
	}
	return ane__ox_done(L, n, id);
}

static int lw_transpose(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_attr *a = ane__ox_attr(n, "perm");
	uint32_t x4[4], y4[4], perm[4] = { 0, 1, 2, 3 };
	int err, k, off;

	if (x && x->rank > 4 && x->rank <= OX_MAX_RANK) {
		uint32_t d[4];

		err = ane__ox_check_float(L, n, 0);
		if (!err)
			err = ane__ox_out_ok(L, n);
		if (!err && (ane__ox_shape4(x->rank, x->dims, d) ||
			     ane__ox_shape4(x->rank, ane__ox_out(L->c, n, 0)->dims, d)))
			err = ane__ox_why(L, "a Transpose the engine cannot hold");
		return err ? err : transpose_high(L, n);
	}
	err = ane__ox_move_ok(L, n, x4, y4);
	if (err)
		return err;
	off = 4 - x->rank;
	for (k = 0; k < x->rank; k++) {
		int64_t p = a && a->n == (size_t)x->rank ? a->ints[k] : x->rank - 1 - k;

		if (p < 0 || p >= x->rank)
			return ane__ox_why(L, "perm[%d] is %lld", k, (long long)p);
		perm[off + k] = (uint32_t)(p + off);
	}
	if (L->dry)
		return 0;
	return ane__ox_done(L, n, ane_net_transpose(ox_net(L),
						    ane__ox_get(L, n->in[0], NULL), perm));
}

static int lw_concat(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	int ids[64], err, i, ax;
	uint32_t y4[4];

	if (n->n_in < 1 || n->n_in > 64)
		return ane__ox_why(L, "%d inputs; the engine concatenates 1 to 64", n->n_in);
	err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (y->rank > 4 || ane__ox_shape4(y->rank, y->dims, y4))
		return ane__ox_why(L, "a concatenation of rank %d", y->rank);
	ax = axis4(ane__ox_attr_i(n, "axis", L->c->g->opset < 4 ? 1 : 0), y->rank);
	if (ax < 0)
		return ane__ox_why(L, "its axis is outside the rank");
	for (i = 0; i < n->n_in; i++) {
		const struct ox_tensor *t = ane__ox_in(L->c, n, i);

		err = ane__ox_check_float(L, n, i);
		if (err)
			return err;
		if (t->rank != y->rank)
			return ane__ox_why(L, "inputs of different ranks");
		if (t->konst && (err = ane__ox_check_const_f16(L, n, t->konst, t->name)))
			return err;
	}
	if (L->dry)
		return 0;
	for (i = 0; i < n->n_in; i++)
		ids[i] = ane__ox_get(L, n->in[i], NULL);
	return ane__ox_done(L, n, ane_net_concat(ox_net(L), ids, (unsigned int)n->n_in,
						 (unsigned int)ax));
}

static int lw_slice(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	int64_t start[4] = { 0, 0, 0, 0 }, step[4] = { 1, 1, 1, 1 };
	uint32_t x4[4], y4[4];
	struct ox_slice sl;
	int err = ane__ox_move_ok(L, n, x4, y4), k, off;

	if (err)
		return err;
	err = ane__ox_slice_params(L->c, n, x->rank, x->dims, &sl);
	if (err)
		return ane__ox_why(L, "its bounds are not constants the engine can take");
	off = 4 - x->rank;
	for (k = 0; k < x->rank; k++) {
		start[off + k] = sl.start[k];
		step[off + k] = sl.dims[k] > 1 ? sl.step[k] : 1;
		if (sl.dims[k] != y4[off + k])
			return ane__ox_why(L, "a slice of another extent than its output's");
	}
	if (L->dry)
		return 0;
	return ane__ox_done(L, n, ane_net_slice(ox_net(L), ane__ox_get(L, n->in[0], NULL),
						start, step, y4));
}

/* Split: each output a slice along the axis, one copy each. */
static int lw_split(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	int64_t start[4] = { 0, 0, 0, 0 }, step[4] = { 1, 1, 1, 1 }, at = 0;
	uint32_t x4[4], y4[4];
	int err = ane__ox_check_float(L, n, 0), j, ax, xid = -1;

	if (err)
		return err;
	if (x->rank > 4 || ane__ox_shape4(x->rank, x->dims, x4))
		return ane__ox_why(L, "a split of rank %d", x->rank);
	ax = axis4(ane__ox_attr_i(n, "axis", 0), x->rank);
	if (ax < 0)
		return ane__ox_why(L, "its axis is outside the rank");
	for (j = 0; j < n->n_out; j++) {
		const struct ox_tensor *y = ane__ox_out(L->c, n, j);

		if (!y || y->rank != x->rank || ane__ox_shape4(y->rank, y->dims, y4))
			return ane__ox_why(L, "an output the engine cannot hold (an empty part)");
	}
	if (L->dry)
		return 0;
	for (j = 0; j < n->n_out; j++) {
		const struct ox_tensor *y = ane__ox_out(L->c, n, j);
		int id;

		ane__ox_shape4(y->rank, y->dims, y4);
		if (xid < 0)
			xid = ane__ox_get(L, n->in[0], NULL);
		start[ax] = at;
		at += y4[ax];
		id = ane_net_slice(ox_net(L), xid, start, step, y4);
		if (id < 0)
			return id;
		ane__ox_set(L, n->out[j], id);
	}
	return 0;
}

/* Pad: constant (a fill and a copy), edge or reflect (copies of views). */
static int lw_pad(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const char *mode = ane__ox_attr_s(n, "mode", "constant");
	int64_t pads[2 * OX_MAX_RANK];
	uint32_t x4[4], y4[4], p8[8] = { 0 };
	enum ane_net_pad_mode pm;
	float value = 0.0f;
	size_t np = 0;
	int err = ane__ox_move_ok(L, n, x4, y4), k;

	if (err)
		return err;
	if (!strcmp(mode, "constant"))
		pm = ANE_NET_PAD_CONSTANT;
	else if (!strcmp(mode, "edge"))
		pm = ANE_NET_PAD_EDGE;
	else if (!strcmp(mode, "reflect"))
		pm = ANE_NET_PAD_REFLECT;
	else
		return ane__ox_why(L, "mode '%s'", mode);
	if (L->c->g->opset < 11) {
		const struct ox_attr *a = ane__ox_attr(n, "pads");

		if (!a)
			a = ane__ox_attr(n, "paddings");
		if (!a || a->n != (size_t)(2 * x->rank))
			return ane__ox_why(L, "pads of another length than twice the rank");
		for (k = 0; k < 2 * x->rank; k++)
			pads[k] = a->ints[k];
		value = ane__ox_attr_f(n, "value", 0.0f);
	} else {
		const struct ox_tensor *tp = ane__ox_in(L->c, n, 1);
		const struct ox_tensor *tv = ane__ox_in(L->c, n, 2);

		if (tp && !tp->konst)
			return ane__ox_why(L, "input 1 '%s' (pads) must be a constant: the engine's pads are",
					   tp->name);
		if (tv && !tv->konst)
			return ane__ox_why(L, "input 2 '%s' (constant_value) must be a constant: the engine's pad value is",
					   tv->name);
		if (!tp || tp->konst->count != (size_t)(2 * x->rank) ||
		    (tv && tv->konst->count != 1))
			return ane__ox_why(L, "pads of another length than twice the rank, or a value that is not one number");
		if (n->n_in > 3)
			return ane__ox_why(L, "input 3 (axes): pads on chosen axes are opset 18's");
		for (k = 0; k < 2 * x->rank; k++)
			pads[k] = ane__ox_get_i(tp->konst, (size_t)k);
		if (tv)
			value = (float)ane__ox_get_f(tv->konst, 0);
	}
	np = (size_t)x->rank;
	for (k = 0; k < x->rank; k++) {
		if (pads[k] < 0 || pads[np + k] < 0)
			return ane__ox_why(L, "a negative pad (a crop)");
		if (pm == ANE_NET_PAD_REFLECT &&
		    (pads[k] >= x->dims[k] || pads[np + k] >= x->dims[k]))
			return ane__ox_why(L, "a reflection at least as wide as the axis");
		p8[4 - x->rank + k] = (uint32_t)pads[k];
		p8[8 - x->rank + k] = (uint32_t)pads[np + k];
	}
	if (!(value >= -65504.0f && value <= 65504.0f))
		return ane__ox_why(L, "a pad value beyond fp16's range");
	if (L->dry)
		return 0;
	return ane__ox_done(L, n, ane_net_pad(ox_net(L), ane__ox_get(L, n->in[0], NULL),
					      p8, pm, value));
}

int ane__ox_bcast_view(const struct ox_tensor *t, const uint32_t y4[4],
		       struct ane_net_view_desc *v)
{
	uint32_t t4[4];
	int64_t st = 1;
	int k;

	if (t->rank > 4 || ane__ox_shape4(t->rank, t->dims, t4))
		return -1;
	for (k = 3; k >= 0; k--) {
		if (t4[k] != y4[k] && t4[k] != 1)
			return -1;
		v->dim[k] = y4[k];
		v->stride[k] = t4[k] == 1 ? 0 : st;
		st *= t4[k];
	}
	v->offset = 0;
	return 0;
}

/* Expand: x broadcast to the output, stride 0 along the broadcast axes. */
static int lw_expand(struct lower *L, const struct ox_node *n)
{
	struct ane_net_view_desc v;
	uint32_t x4[4], y4[4];
	int err = ane__ox_move_ok(L, n, x4, y4);

	if (err)
		return err;
	if (ane__ox_bcast_view(ane__ox_in(L->c, n, 0), y4, &v))
		return ane__ox_why(L, "an input that does not broadcast");
	if (L->dry)
		return 0;
	return ane__ox_done(L, n, ane_net_copy(ox_net(L), ane__ox_get(L, n->in[0], NULL),
					       &v, -1, NULL));
}

/* The engine's longest gathered axis: indices are int16. */
#define GATHER_MAX_AXIS	32767

/*
 * Gather of computed indices (an embedding lookup): the engine's GATHER
 * on x viewed [1, outer, axis, inner], the indices an index input of the
 * segment ([1, 1, 1, K], int16 on the engine); the result [1, outer, K,
 * inner] is the output's data.  A negative index counts from the end; one
 * outside the axis gives a row of NaN (ONNX calls it an error).
 */
static int gather_computed(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *ix = ane__ox_in(L->c, n, 1);
	int64_t outer = 1, inner = 1, k = 1;
	uint32_t v[4];
	int ax, i;

	if (ix->dtype != OX_INT64 && ix->dtype != OX_INT32)
		return ane__ox_why(L, "indices of %s", ane__ox_dtype_name(ix->dtype));
	ax = (int)ane__ox_attr_i(n, "axis", 0);
	ax = ax < 0 ? ax + x->rank : ax;
	if (ax < 0 || ax >= x->rank)
		return ane__ox_why(L, "its axis is outside the rank");
	if (x->dims[ax] > GATHER_MAX_AXIS)
		return ane__ox_why(L, "an axis of %lld; the engine's indices reach %d",
				   (long long)x->dims[ax], GATHER_MAX_AXIS);
	for (i = 0; i < x->rank; i++) {
		if (i < ax)
			outer *= x->dims[i];
		else if (i > ax)
			inner *= x->dims[i];
	}
	for (i = 0; i < ix->rank; i++)
		k *= ix->dims[i];
	if (outer > (1 << 24) || inner > (1 << 24) || k < 1 || k > (1 << 24))
		return ane__ox_why(L, "a gather the engine's dims cannot hold");
	if (L->dry)
		return 0;
	v[0] = 1;
	v[1] = (uint32_t)outer;
	v[2] = (uint32_t)x->dims[ax];
	v[3] = (uint32_t)inner;
	return ane__ox_done(L, n, ane_net_gather(ox_net(L), ane__ox_get(L, n->in[0], v),
						 ane__ox_get_index(L, n->in[1], (uint32_t)k)));
}

/*
 * Gather of constant indices along an axis: one copy of each index's
 * slice into its place in the result (at most 64 of them).
 */
static int lw_gather(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	const struct ox_tensor *ix = ane__ox_in(L->c, n, 1);
	const struct ox_tensor *y = ane__ox_out(L->c, n, 0);
	int64_t start[4] = { 0, 0, 0, 0 }, step[4] = { 1, 1, 1, 1 };
	uint32_t x4[4], y4[4], d[4];
	int err = ane__ox_move_ok(L, n, x4, y4), ax, xid, out, id;
	size_t i;

	if (err)
		return err;
	if (ix && !ix->konst)
		return gather_computed(L, n);
	if (!ix || ix->konst->count < 1 || ix->konst->count > 64)
		return ane__ox_why(L, "more than 64 constant indices");
	if (ix->rank > 1 || y->rank != x->rank - 1 + ix->rank)
		return ane__ox_why(L, "indices of rank %d", ix->rank);
	ax = axis4(ane__ox_attr_i(n, "axis", 0), x->rank);
	if (ax < 0)
		return ane__ox_why(L, "its axis is outside the rank");
	for (i = 0; i < ix->konst->count; i++) {
		int64_t k = ane__ox_get_i(ix->konst, i);

		if (k < -(int64_t)x4[ax] || k >= (int64_t)x4[ax])
			return ane__ox_why(L, "index %lld outside the axis", (long long)k);
	}
	if (L->dry)
		return 0;
	memcpy(d, x4, sizeof(d));
	d[ax] = (uint32_t)ix->konst->count;
	xid = ane__ox_get(L, n->in[0], NULL);
	out = ane_net_empty(ox_net(L), y->name, d[0], d[1], d[2], d[3]);
	for (i = 0; i < ix->konst->count && out >= 0; i++) {
		struct ane_net_view_desc dv;
		int64_t k = ane__ox_get_i(ix->konst, i), s = 1;
		uint32_t one[4];
		int j;

		memcpy(one, x4, sizeof(one));
		one[ax] = 1;
		start[ax] = k < 0 ? k + x4[ax] : k;
		id = ane_net_slice(ox_net(L), xid, start, step, one);
		for (j = 3; j >= 0; j--) {
			dv.dim[j] = one[j];
			dv.stride[j] = s;
			s *= d[j];
		}
		dv.offset = (int64_t)i * dv.stride[ax];
		out = ane_net_copy(ox_net(L), id, NULL, out, &dv);
	}
	return ane__ox_done(L, n, out);
}

/*
 * Nearest Resize (and Upsample) by whole factors along H and W: one copy
 * per (i, j) of a factor's grid, x into every factor-th element.
 */
static int lw_resize(struct lower *L, const struct ox_node *n)
{
	uint32_t x4[4], y4[4], f[4];
	const char *mode = ane__ox_attr_s(n, "mode", "nearest");
	const char *ctm = ane__ox_attr_s(n, "coordinate_transformation_mode",
					 "half_pixel");
	int err = ane__ox_move_ok(L, n, x4, y4), k, i, j, id;

	if (err)
		return err;
	/* Anything but nearest by whole factors: matrix products. */
	if (strcmp(mode, "nearest"))
		return ane__ox_lw_resize_mm(L, n);
	for (k = 0; k < 4; k++) {
		if (y4[k] % x4[k] || (k < 2 && y4[k] != x4[k]))
			return ane__ox_lw_resize_mm(L, n);
		f[k] = y4[k] / x4[k];
	}
	if (f[2] * f[3] > 64)
		return ane__ox_lw_resize_mm(L, n);
	/*
	 * With whole factors the engine copies x[floor(o / f)]: what opset
	 * 10's Resize and Upsample pick, an asymmetric transform with floor
	 * rounding, and a half-pixel one rounding to nearest (its source
	 * coordinates are never halfway).
	 */
	if (L->c->g->opset >= 11 && f[2] * f[3] > 1) {
		const char *nm = ane__ox_attr_s(n, "nearest_mode", "round_prefer_floor");
		int half = !strcmp(ctm, "half_pixel") || !strcmp(ctm, "pytorch_half_pixel");

		if (!(half && strncmp(nm, "round_prefer_", 13) == 0) &&
		    !(!strcmp(ctm, "asymmetric") && !strcmp(nm, "floor")))
			return ane__ox_lw_resize_mm(L, n);
	}
	if (L->dry)
		return 0;
	id = ane_net_empty(ox_net(L), "resize", y4[0], y4[1], y4[2], y4[3]);
	for (i = 0; i < (int)f[2]; i++)
		for (j = 0; j < (int)f[3]; j++) {
			struct ane_net_view_desc dv = {
				.dim = { x4[0], x4[1], x4[2], x4[3] },
				.stride = { (int64_t)y4[1] * y4[2] * y4[3],
					    (int64_t)y4[2] * y4[3],
					    (int64_t)f[2] * y4[3], f[3] },
				.offset = (int64_t)i * y4[3] + j,
			};

			id = ane_net_copy(ox_net(L), ane__ox_get(L, n->in[0], NULL), NULL,
					  id, &dv);
		}
	return ane__ox_done(L, n, id);
}

const struct ox_lowering ane__ox_lw_move[] = {
	{ "Transpose", lw_transpose }, { "Concat", lw_concat },
	{ "Slice", lw_slice }, { "Split", lw_split }, { "Pad", lw_pad },
	{ "Expand", lw_expand }, { "Gather", lw_gather },
	{ "Resize", lw_resize }, { "Upsample", lw_resize },
};

const size_t ane__ox_lw_move_n = sizeof(ane__ox_lw_move) / sizeof(ane__ox_lw_move[0]);
