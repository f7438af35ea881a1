// SPDX-License-Identifier: MIT
/*
 * libane: the builder's data movement.  Every call here is made of the
 * engine's COPY task -- a strided view of one tensor's storage into a
 * view of another's, the fp16 bits unchanged -- or of none at all (a
 * reshape is a dense view of the same storage).  Views are checked
 * against their tensors here, element range and self-overlap, with
 * messages that name the call, the op and the field; the image then
 * passes driver/ane_image.c's checks of the same rules.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_internal.h"

#define STRIDE_LIMIT	(1ll << 31)	/* |stride| below it: a __s32 word */

/* The dense NCHW strides of extents @d. */
static void dense_strides(const uint32_t *d, int64_t *s)
{
	s[3] = 1;
	s[2] = d[3];
	s[1] = (int64_t)d[2] * d[3];
	s[0] = (int64_t)d[1] * s[1];
}

/* The least and greatest element a view reaches (bounded: no overflow). */
static void view_range(const uint32_t *dim, const int64_t *stride, int64_t off,
		       int64_t *lo, int64_t *hi)
{
	unsigned int i;

	*lo = *hi = off;
	for (i = 0; i < 4; i++) {
		int64_t t = (int64_t)(dim[i] - 1) * stride[i];

		if (t < 0)
			*lo += t;
		else
			*hi += t;
	}
}

/*
 * Whether two elements of a view with non-negative strides are one: with
 * the extents above 1 sorted by stride, each stride must exceed the span
 * of the smaller ones (the engine's rule).
 */
static int view_self_overlaps(const uint32_t *dim, const int64_t *stride)
{
	int64_t s[4], span = 0;
	uint32_t d[4];
	unsigned int n = 0, i, j;

	for (i = 0; i < 4; i++) {
		if (dim[i] == 1)
			continue;
		for (j = n; j > 0 && s[j - 1] > stride[i]; j--) {
			s[j] = s[j - 1];
			d[j] = d[j - 1];
		}
		s[j] = stride[i];
		d[j] = dim[i];
		n++;
	}
	for (i = 0; i < n; i++) {
		if (s[i] <= span)
			return 1;
		span += (int64_t)(d[i] - 1) * s[i];
	}
	return 0;
}

/* View @v of tensor @t (@role in messages), a source or (@dst) a destination. */
static int check_view(const struct ane__op_ctx *o, const char *role,
		      const struct ane__tensor *t,
		      const struct ane_net_view_desc *v, int dst)
{
	uint64_t elems = ane__elems(t->dim);
	int64_t lo, hi;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (v->dim[i] < 1 || v->dim[i] > ANE__MAX_DIM)
			return ane__op_fail(o, "%s view: dim[%u] (%c) is %u; every extent must be 1..%u",
					    role, i, ane__dim_name[i], v->dim[i],
					    ANE__MAX_DIM);
		if (v->stride[i] <= -STRIDE_LIMIT || v->stride[i] >= STRIDE_LIMIT)
			return ane__op_fail(o, "%s view: stride[%u] (%c) is %lld; a stride is below 2^31 in magnitude",
					    role, i, ane__dim_name[i],
					    (long long)v->stride[i]);
		if (dst && v->stride[i] < 0)
			return ane__op_fail(o, "%s view: stride[%u] (%c) is %lld; a destination's strides are not negative",
					    role, i, ane__dim_name[i],
					    (long long)v->stride[i]);
	}
	if (v->offset < 0 || (uint64_t)v->offset >= elems)
		return ane__op_fail(o, "%s view: offset %lld is not an element of '%s' (%s, %llu elements)",
				    role, (long long)v->offset, t->name,
				    ane__shp(t->dim).s, (unsigned long long)elems);
	view_range(v->dim, v->stride, v->offset, &lo, &hi);
	if (lo < 0 || (uint64_t)hi >= elems)
		return ane__op_fail(o, "%s view: it reaches element %lld of '%s' (%s, elements 0..%llu)",
				    role, (long long)(lo < 0 ? lo : hi), t->name,
				    ane__shp(t->dim).s, (unsigned long long)elems - 1);
	if (dst && view_self_overlaps(v->dim, v->stride))
		return ane__op_fail(o, "%s view: two of its elements are one element of '%s' (strides %lld, %lld, %lld, %lld over %s)",
				    role, t->name, (long long)v->stride[0],
				    (long long)v->stride[1], (long long)v->stride[2],
				    (long long)v->stride[3], ane__shp(v->dim).s);
	return 0;
}

/* All of @t, densely. */
static void whole(const struct ane__tensor *t, struct ane_net_view_desc *v)
{
	memcpy(v->dim, t->dim, sizeof(v->dim));
	dense_strides(t->dim, v->stride);
	v->offset = 0;
}

/* The first element of tensor @id in its storage: a dense view's offset. */
static int64_t storage_off(const struct ane_net *net, int id)
{
	return net->t[id].kind == ANE__T_VIEW ? net->t[id].voff : 0;
}

/*
 * The COPY of view @sv of @x (not a strided view) into view @dv of @dst
 * (-1: a new dense tensor of @sv's extents; else a writable tensor, not
 * a strided view), both checked; returns the destination's id.
 */
static int copy_op(const struct ane__op_ctx *o, int x,
		   const struct ane_net_view_desc *sv, int dst,
		   const struct ane_net_view_desc *dv)
{
	struct ane_net *net = o->net;
	struct ane__op op;
	unsigned int i;

	ane__op_init(&op, ANE__OP_COPY);
	op.src[0] = x;
	memcpy(op.vdim, sv->dim, sizeof(op.vdim));
	for (i = 0; i < 4; i++)
		op.vstride[0][i] = sv->stride[i];
	op.voff[0] = storage_off(net, x) + sv->offset;
	if (dst < 0) {
		uint64_t d[4];

		dense_strides(sv->dim, op.vstride[1]);
		for (i = 0; i < 4; i++)
			d[i] = sv->dim[i];
		return ane__add_op(o, &op, d);
	}
	for (i = 0; i < 4; i++)
		op.vstride[1][i] = dv->stride[i];
	op.voff[1] = storage_off(net, dst) + dv->offset;
	if (ane__storage(net->t, x) == ane__storage(net->t, dst)) {
		int64_t s0, s1, d0, d1;

		view_range(sv->dim, op.vstride[0], op.voff[0], &s0, &s1);
		view_range(dv->dim, op.vstride[1], op.voff[1], &d0, &d1);
		if (s0 <= d1 && d0 <= s1)
			return ane__op_fail(o, "the source and destination views share elements %lld..%lld of '%s'; a copy reads and writes disjoint ranges",
					    (long long)(s0 > d0 ? s0 : d0),
					    (long long)(s1 < d1 ? s1 : d1),
					    net->t[ane__storage(net->t, x)].name);
	}
	op.dst = dst;
	return ane__add_op_into(o, &op);
}

int ane__materialize(struct ane_net *net, const char *fn, int id)
{
	struct ane__op_ctx o = { net, fn, net->n_ops };
	const struct ane__tensor *v = &net->t[id];
	uint64_t plane = v->plane ? v->plane : (uint64_t)v->dim[2] * v->row;
	struct ane_net_view_desc sv;
	struct ane__op op;
	uint64_t d[4];
	unsigned int i;

	/* element [n][c][h][w] at voff + n C plane + c plane + h row + w */
	ane__op_init(&op, ANE__OP_COPY);
	op.src[0] = id;
	op.vstride[0][0] = (int64_t)(v->dim[1] * plane);
	op.vstride[0][1] = (int64_t)plane;
	op.vstride[0][2] = v->row;
	op.vstride[0][3] = 1;
	op.voff[0] = v->voff;
	memcpy(op.vdim, v->dim, sizeof(op.vdim));
	whole(v, &sv);
	memcpy(op.vstride[1], sv.stride, sizeof(sv.stride));
	for (i = 0; i < 4; i++)
		d[i] = v->dim[i];
	return ane__add_op(&o, &op, d);
}

/*
 * The destination @dst of @o's copy: a tensor that the program writes
 * and that is dense in its storage; its view @dv (NULL: all of it, then
 * of @sv's extents) checked, into *@out.
 */
static int get_dst(const struct ane__op_ctx *o, int dst,
		   const struct ane_net_view_desc *dv,
		   const struct ane_net_view_desc *sv,
		   struct ane_net_view_desc *out)
{
	const struct ane__tensor *t, *s;
	int ret = ane__get_operand_view(o, "dst", dst, &t);

	if (ret)
		return ret;
	if (ane__is_strided_view(t))
		return ane__op_fail(o, "dst '%s' is a view (ane_net_view()); a copy writes a dense tensor or a reshape of one",
				    t->name);
	s = &o->net->t[ane__storage(o->net->t, dst)];
	if (s->kind != ANE__T_OP)
		return ane__op_fail(o, "dst '%s' is %s, which the program never writes; copy into an operation's result or an ane_net_empty() tensor",
				    t->name, s->kind == ANE__T_INPUT ? "an input" :
				    "a constant");
	if (!dv) {
		if (memcmp(t->dim, sv->dim, sizeof(t->dim)))
			return ane__op_fail(o, "the source view is %s but dst '%s' is %s (give a dst_view for a part of it)",
					    ane__shp(sv->dim).s, t->name,
					    ane__shp(t->dim).s);
		whole(t, out);
		return 0;
	}
	ret = check_view(o, "dst", t, dv, 1);
	if (ret)
		return ret;
	if (memcmp(dv->dim, sv->dim, sizeof(dv->dim)))
		return ane__op_fail(o, "the views differ in shape: the source's is %s, the destination's %s",
				    ane__shp(sv->dim).s, ane__shp(dv->dim).s);
	*out = *dv;
	return 0;
}

/* @x for a copy's source: a strided view is made dense first. */
static int get_src(struct ane__op_ctx *o, int *x)
{
	const struct ane__tensor *t;
	int ret = ane__get_operand_view(o, "x", *x, &t);

	if (ret)
		return ret;
	if (ane__is_strided_view(t)) {
		ret = ane__materialize(o->net, o->fn, *x);
		if (ret < 0)
			return ret;
		*x = ret;
		o->idx = o->net->n_ops;
	}
	return 0;
}

int ane_net_copy(struct ane_net *net, int x, const struct ane_net_view_desc *src,
		 int dst, const struct ane_net_view_desc *dst_view)
{
	struct ane__op_ctx o = { net, "ane_net_copy", net ? net->n_ops : 0 };
	struct ane_net_view_desc sv, dv;
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = get_src(&o, &x)))
		return ret;
	if (src) {
		ret = check_view(&o, "source", &net->t[x], src, 0);
		if (ret)
			return ret;
		sv = *src;
	} else {
		whole(&net->t[x], &sv);
	}
	if (dst == -1) {
		if (dst_view)
			return ane__op_fail(&o, "dst is -1 (a new dense tensor) but a dst_view is given; a view is of a tensor that exists");
		return copy_op(&o, x, &sv, -1, NULL);
	}
	ret = get_dst(&o, dst, dst_view, &sv, &dv);
	return ret ? ret : copy_op(&o, x, &sv, dst, &dv);
}

int ane_net_transpose(struct ane_net *net, int x, const uint32_t perm[4])
{
	struct ane__op_ctx o = { net, "ane_net_transpose", net ? net->n_ops : 0 };
	struct ane_net_view_desc sv;
	int64_t ds[4];
	unsigned int i, seen = 0;
	int ret;

	if (!net)
		return -EINVAL;
	if (!perm)
		return ane__op_fail(&o, "perm is NULL");
	for (i = 0; i < 4; i++) {
		if (perm[i] > 3 || (seen & (1u << perm[i])))
			return ane__op_fail(&o, "perm {%u, %u, %u, %u} is not a permutation of 0..3",
					    perm[0], perm[1], perm[2], perm[3]);
		seen |= 1u << perm[i];
	}
	if ((ret = get_src(&o, &x)))
		return ret;
	dense_strides(net->t[x].dim, ds);
	for (i = 0; i < 4; i++) {
		sv.dim[i] = net->t[x].dim[perm[i]];
		sv.stride[i] = ds[perm[i]];
	}
	sv.offset = 0;
	return copy_op(&o, x, &sv, -1, NULL);
}

int ane_net_reshape(struct ane_net *net, int x, uint32_t n, uint32_t c,
		    uint32_t h, uint32_t w)
{
	const uint32_t d[4] = { n, c, h, w };
	const char *fn = "ane_net_reshape";
	struct ane__tensor *t;
	char what[64];
	int ret, id;

	if (!net)
		return -EINVAL;
	ret = ane__net_tensor(net, fn, x);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "%s: the new shape", fn);
	ret = ane__check_dims(net, what, d);
	if (ret)
		return ret;
	if (ane__elems(d) != ane__elems(net->t[x].dim))
		return ane__net_fail(net, EINVAL, "%s: '%s' is %s, %llu elements; %s has %llu",
				     fn, net->t[x].name, ane__shp(net->t[x].dim).s,
				     (unsigned long long)ane__elems(net->t[x].dim),
				     ane__shp(d).s, (unsigned long long)ane__elems(d));
	if (ane__is_strided_view(&net->t[x])) {
		x = ane__materialize(net, fn, x);
		if (x < 0)
			return x;
	}
	t = ane__new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: out of memory", fn);
	id = (int)net->n_t++;
	t->kind = ANE__T_VIEW;
	t->parent = net->t[x].kind == ANE__T_VIEW ? net->t[x].parent : x;
	t->voff = net->t[x].kind == ANE__T_VIEW ? net->t[x].voff : 0;
	memcpy(t->dim, d, sizeof(d));
	snprintf(t->name, sizeof(t->name), "reshape%d", id);
	ane__net_changed(net);
	ane__net_ok(net);
	return id;
}

int ane_net_empty(struct ane_net *net, const char *name, uint32_t n,
		  uint32_t c, uint32_t h, uint32_t w)
{
	const uint32_t d[4] = { n, c, h, w };
	struct ane__tensor *t;
	char what[96];
	int ret, id;

	if (!net)
		return -EINVAL;
	snprintf(what, sizeof(what), "ane_net_empty: '%s'",
		 name && name[0] ? name : "unnamed");
	ret = ane__check_dims(net, what, d);
	if (ret)
		return ret;
	t = ane__new_tensor(net);
	if (!t)
		return ane__net_fail(net, ENOMEM, "%s: out of memory", what);
	id = (int)net->n_t++;
	t->kind = ANE__T_OP;
	t->index = -1;
	t->empty = 1;
	memcpy(t->dim, d, sizeof(d));
	if (name && name[0])
		snprintf(t->name, sizeof(t->name), "%s", name);
	else
		snprintf(t->name, sizeof(t->name), "empty%d", id);
	ane__net_changed(net);
	ane__net_ok(net);
	return id;
}

int ane_net_fill(struct ane_net *net, int dst,
		 const struct ane_net_view_desc *dst_view, float value)
{
	struct ane__op_ctx o = { net, "ane_net_fill", net ? net->n_ops : 0 };
	struct ane_net_view_desc sv = { { 1, 1, 1, 1 }, { 0, 0, 0, 0 }, 0 }, dv;
	uint16_t h = ane_fp16_from_float(value);
	char name[32];
	int ret, k;

	if (!net)
		return -EINVAL;
	if ((h & 0x7fffu) == 0x7c00u && value == value && value - value == 0.0f)
		return ane__op_fail(&o, "value %g overflows fp16, whose largest finite value is 65504",
				    (double)value);
	if (dst_view) {
		memcpy(sv.dim, dst_view->dim, sizeof(sv.dim));
	} else {
		const struct ane__tensor *t;

		ret = ane__get_operand_view(&o, "dst", dst, &t);
		if (ret)
			return ret;
		memcpy(sv.dim, t->dim, sizeof(sv.dim));
	}
	ret = get_dst(&o, dst, dst_view, &sv, &dv);
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "fill%u", net->n_consts);
	k = ane_net_const(net, name, 1, 1, 1, 1, &value);
	if (k < 0)
		return k;
	return copy_op(&o, k, &sv, dst, &dv);
}

int ane_net_concat(struct ane_net *net, const int *xs, unsigned int n,
		   unsigned int axis)
{
	struct ane__op_ctx o = { net, "ane_net_concat", net ? net->n_ops : 0 };
	const struct ane__tensor *t0, *t;
	uint32_t d[4];
	int64_t ds[4], at = 0;
	unsigned int i, k;
	int y, ret;

	if (!net)
		return -EINVAL;
	if (!xs || !n || n > 64)
		return ane__op_fail(&o, "%u inputs%s; a concatenation takes 1..64",
				    n, xs ? "" : " (xs is NULL)");
	if (axis > 3)
		return ane__op_fail(&o, "axis %u is not one of 0..3 (N, C, H, W)", axis);
	if ((ret = ane__get_operand_view(&o, "xs[0]", xs[0], &t0)))
		return ret;
	memcpy(d, t0->dim, sizeof(d));
	d[axis] = 0;
	for (i = 0; i < n; i++) {
		char role[32];

		snprintf(role, sizeof(role), "xs[%u]", i);
		if ((ret = ane__get_operand_view(&o, role, xs[i], &t)))
			return ret;
		for (k = 0; k < 4; k++)
			if (k != axis && t->dim[k] != net->t[xs[0]].dim[k])
				return ane__op_fail(&o, "xs[%u] '%s' is %s but xs[0] '%s' is %s: only dimension %c may differ",
						    i, t->name, ane__shp(t->dim).s,
						    net->t[xs[0]].name,
						    ane__shp(net->t[xs[0]].dim).s,
						    ane__dim_name[axis]);
		if ((uint64_t)d[axis] + t->dim[axis] > ANE__MAX_DIM)
			return ane__op_fail(&o, "the result's dimension %c would exceed %u",
					    ane__dim_name[axis], ANE__MAX_DIM);
		d[axis] += t->dim[axis];
	}
	y = ane_net_empty(net, NULL, d[0], d[1], d[2], d[3]);
	if (y < 0)
		return y;
	dense_strides(d, ds);
	for (i = 0; i < n; i++) {
		struct ane_net_view_desc sv, dv;
		int x = xs[i];

		o.idx = net->n_ops;
		if ((ret = get_src(&o, &x)))
			return ret;
		whole(&net->t[x], &sv);
		memcpy(dv.dim, sv.dim, sizeof(dv.dim));
		memcpy(dv.stride, ds, sizeof(ds));
		dv.offset = at * ds[axis];
		at += sv.dim[axis];
		ret = copy_op(&o, x, &sv, y, &dv);
		if (ret < 0)
			return ret;
	}
	return y;
}

int ane_net_slice(struct ane_net *net, int x, const int64_t start[4],
		  const int64_t step[4], const uint32_t dims[4])
{
	struct ane__op_ctx o = { net, "ane_net_slice", net ? net->n_ops : 0 };
	struct ane_net_view_desc sv;
	int64_t ds[4];
	unsigned int k;
	int ret;

	if (!net)
		return -EINVAL;
	if (!start || !step || !dims)
		return ane__op_fail(&o, "start, step and dims must not be NULL");
	if ((ret = get_src(&o, &x)))
		return ret;
	dense_strides(net->t[x].dim, ds);
	sv.offset = 0;
	for (k = 0; k < 4; k++) {
		int64_t X = net->t[x].dim[k], last;

		if (dims[k] < 1 || dims[k] > ANE__MAX_DIM)
			return ane__op_fail(&o, "dims[%u] (%c) is %u; every extent must be 1..%u",
					    k, ane__dim_name[k], dims[k], ANE__MAX_DIM);
		if (step[k] <= -STRIDE_LIMIT || step[k] >= STRIDE_LIMIT)
			return ane__op_fail(&o, "step[%u] (%c) is %lld; a step is below 2^31 in magnitude",
					    k, ane__dim_name[k], (long long)step[k]);
		last = start[k] + (int64_t)(dims[k] - 1) * step[k];
		if (start[k] < 0 || start[k] >= X || last < 0 || last >= X)
			return ane__op_fail(&o, "along %c, indices %lld + i x %lld for i < %u reach %lld, outside '%s' (%s)",
					    ane__dim_name[k], (long long)start[k],
					    (long long)step[k], dims[k],
					    (long long)(start[k] < 0 || start[k] >= X ?
							start[k] : last),
					    net->t[x].name, ane__shp(net->t[x].dim).s);
		sv.dim[k] = dims[k];
		sv.stride[k] = step[k] * ds[k];
		sv.offset += start[k] * ds[k];
	}
	for (k = 0; k < 4; k++)
		if (sv.stride[k] <= -STRIDE_LIMIT || sv.stride[k] >= STRIDE_LIMIT)
			return ane__op_fail(&o, "along %c the step of %lld elements is 2^31 or more",
					    ane__dim_name[k], (long long)sv.stride[k]);
	return copy_op(&o, x, &sv, -1, NULL);
}

/*
 * Region @r (per axis: 0 before, 1 inside, 2 after) of a padding of @x
 * into @y: the part of @y it is and the view of @x it takes.
 */
static int pad_region(const struct ane__op_ctx *o, int x, int y,
		      const uint32_t *pads, enum ane_net_pad_mode mode,
		      const unsigned int *r)
{
	const uint32_t *xd = o->net->t[x].dim, *yd = o->net->t[y].dim;
	struct ane_net_view_desc sv = { .offset = 0 }, dv = { .offset = 0 };
	int64_t xs[4], ys[4];
	unsigned int k;

	dense_strides(xd, xs);
	dense_strides(yd, ys);
	for (k = 0; k < 4; k++) {
		int64_t b = pads[k], e = pads[4 + k], X = xd[k], first, dir;

		switch (r[k]) {
		case 0:		/* before: y index i < b */
			sv.dim[k] = (uint32_t)b;
			first = mode == ANE_NET_PAD_EDGE ? 0 :
				mode == ANE_NET_PAD_REFLECT ? b : X - b;
			dir = mode == ANE_NET_PAD_EDGE ? 0 :
			      mode == ANE_NET_PAD_REFLECT ? -1 : 1;
			break;
		case 1:
			sv.dim[k] = (uint32_t)X;
			dv.offset += b * ys[k];
			first = 0;
			dir = 1;
			break;
		default:	/* after: y index b + X + i, i < e */
			sv.dim[k] = (uint32_t)e;
			dv.offset += (b + X) * ys[k];
			first = mode == ANE_NET_PAD_EDGE ? X - 1 :
				mode == ANE_NET_PAD_REFLECT ? X - 2 : 0;
			dir = mode == ANE_NET_PAD_EDGE ? 0 :
			      mode == ANE_NET_PAD_REFLECT ? -1 : 1;
			break;
		}
		if (!sv.dim[k])
			return 0;	/* an empty region */
		sv.stride[k] = dir * xs[k];
		sv.offset += first * xs[k];
		dv.dim[k] = sv.dim[k];
		dv.stride[k] = ys[k];
	}
	return copy_op(o, x, &sv, y, &dv);
}

int ane_net_pad(struct ane_net *net, int x, const uint32_t pads[8],
		enum ane_net_pad_mode mode, float value)
{
	struct ane__op_ctx o = { net, "ane_net_pad", net ? net->n_ops : 0 };
	unsigned int k, r[4];
	uint32_t d[4];
	int y, ret;

	if (!net)
		return -EINVAL;
	if (!pads)
		return ane__op_fail(&o, "pads is NULL");
	if ((uint32_t)mode > ANE_NET_PAD_WRAP)
		return ane__op_fail(&o, "mode %u is unknown (ANE_NET_PAD_CONSTANT 0, EDGE 1, REFLECT 2, WRAP 3)",
				    (uint32_t)mode);
	if ((ret = get_src(&o, &x)))
		return ret;
	for (k = 0; k < 4; k++) {
		uint64_t X = net->t[x].dim[k], sum = X + pads[k] + pads[4 + k];

		if (sum > ANE__MAX_DIM)
			return ane__op_fail(&o, "along %c the result would be %llu; at most %u",
					    ane__dim_name[k], (unsigned long long)sum,
					    ANE__MAX_DIM);
		if (mode == ANE_NET_PAD_REFLECT &&
		    (pads[k] >= X || pads[4 + k] >= X))
			return ane__op_fail(&o, "along %c, pads %u and %u: a reflection pads less than the extent, %llu",
					    ane__dim_name[k], pads[k], pads[4 + k],
					    (unsigned long long)X);
		if (mode == ANE_NET_PAD_WRAP && (pads[k] > X || pads[4 + k] > X))
			return ane__op_fail(&o, "along %c, pads %u and %u: a wrap pads at most the extent, %llu",
					    ane__dim_name[k], pads[k], pads[4 + k],
					    (unsigned long long)X);
		d[k] = (uint32_t)sum;
	}
	y = ane_net_empty(net, NULL, d[0], d[1], d[2], d[3]);
	if (y < 0)
		return y;
	if (mode == ANE_NET_PAD_CONSTANT) {
		ret = ane_net_fill(net, y, NULL, value);
		if (ret < 0)
			return ret;
		o.idx = net->n_ops;
		r[0] = r[1] = r[2] = r[3] = 1;
		ret = pad_region(&o, x, y, pads, mode, r);
		return ret < 0 ? ret : y;
	}
	for (r[0] = 0; r[0] < 3; r[0]++)
		for (r[1] = 0; r[1] < 3; r[1]++)
			for (r[2] = 0; r[2] < 3; r[2]++)
				for (r[3] = 0; r[3] < 3; r[3]++) {
					o.idx = net->n_ops;
					ret = pad_region(&o, x, y, pads, mode, r);
					if (ret < 0)
						return ret;
				}
	return y;
}
