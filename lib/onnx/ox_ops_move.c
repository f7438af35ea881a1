// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: ops that move elements by index arithmetic --
 * Slice, Pad, DepthToSpace, SpaceToDepth, Trilu, ReverseSequence.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

/* ------------------------------------------------------------ Slice */

/* starts/ends/axes/steps: attributes before opset 10, inputs from it. */
static int slice_lists(struct ox_ctx *c, const struct ox_node *n,
		       int64_t (*v)[OX_MAX_RANK], size_t *cnt)
{
	static const char *const names[4] = { "starts", "ends", "axes", "steps" };
	const int64_t *a;
	int i, err = 0;

	for (i = 0; i < 4 && !err; i++) {
		cnt[i] = 0;
		if (OX_OPSET(c) >= 10) {
			if (ane__ox_in(c, n, i + 1))
				err = ane__ox_const_ints(c, n, i + 1, names[i], v[i],
							 OX_MAX_RANK, &cnt[i]);
			continue;
		}
		if (i == 3)
			break;
		err = ane__ox_a_ints(c, n, names[i], &a, &cnt[i]);
		if (!err && cnt[i] > OX_MAX_RANK)
			err = ane__ox_fail(c, n, EINVAL, "attribute '%s' has %zu values",
					   names[i], cnt[i]);
		if (!err && cnt[i])
			memcpy(v[i], a, sizeof(*a) * cnt[i]);
	}
	if (err)
		return err;
	if (cnt[0] != cnt[1] || (ane__ox_attr(n, "axes") || ane__ox_in(c, n, 3) ?
				 cnt[2] != cnt[0] : 0) ||
	    (ane__ox_in(c, n, 4) && cnt[3] != cnt[0]))
		return ane__ox_fail(c, n, EINVAL,
				    "starts, ends, axes and steps differ in length (%zu, %zu, %zu, %zu)",
				    cnt[0], cnt[1], cnt[2], cnt[3]);
	return 0;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int ane__ox_slice_params(struct ox_ctx *c, const struct ox_node *n, int rank,
			 const int64_t *dims, struct ox_slice *s)
{
	int64_t v[4][OX_MAX_RANK];
	unsigned int seen = 0;
	size_t cnt[4], k;
	int ax, err = slice_lists(c, n, v, cnt);

	for (ax = 0; ax < rank; ax++) {
		s->start[ax] = 0;
		s->step[ax] = 1;
		s->dims[ax] = dims[ax];
	}
	for (k = 0; !err && k < cnt[0]; k++) {
		int64_t st = cnt[3] ? v[3][k] : 1, b = v[0][k], e = v[1][k], d;
		char what[32];

		snprintf(what, sizeof(what), "axes[%zu]", k);
		err = ane__ox_axis(c, n, what, cnt[2] ? v[2][k] : (int64_t)k, rank, &ax);
		if (!err && (seen & (1u << ax)))
			err = ane__ox_fail(c, n, EINVAL, "axis %d is sliced twice", ax);
		if (!err && !st)
			err = ane__ox_fail(c, n, EINVAL, "steps[%zu] is 0", k);
		if (err)
			break;
		seen |= 1u << ax;
		d = dims[ax];
		if (!d) {
			s->step[ax] = st;
			continue;
		}
		b = b < 0 ? b + d : b;
		e = e < 0 ? e + d : e;
		if (st > 0) {
			b = clamp64(b, 0, d);
			e = clamp64(e, 0, d);
			d = e > b ? (e - b - 1) / st + 1 : 0;
		} else {
			b = clamp64(b, 0, d - 1);
			e = clamp64(e, -1, d - 1);
			d = b > e ? (b - e - 1) / -(st == INT64_MIN ? INT64_MAX : st) + 1 : 0;
		}
		s->start[ax] = d ? b : 0;
		s->step[ax] = st;
		s->dims[ax] = d;
	}
	return err;
}

static int infer_slice(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	struct ox_slice s;
	int i, err = OX_OPSET(c) >= 10 ? ane__ox_n_in(c, n, 3, 5) :
		     ane__ox_n_in(c, n, 1, 1);

	if (!err)
		err = ane__ox_chk_in(c, n, 0, "data", OXM_ALL, 1, OX_MAX_RANK);
	for (i = 1; !err && i < n->n_in; i++)
		if (ane__ox_in(c, n, i))
			err = ane__ox_chk_in(c, n, i, "starts/ends/axes/steps",
					     OXM_I32_64, 1, 1);
	if (!err && OX_OPSET(c) < 10 &&
	    (!ane__ox_attr(n, "starts") || !ane__ox_attr(n, "ends")))
		err = ane__ox_fail(c, n, EINVAL, "attributes 'starts' and 'ends' are required");
	if (!err)
		err = ane__ox_slice_params(c, n, x->rank, x->dims, &s);
	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, x->rank, s.dims);
}

static int run_slice(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in,
		     struct ox_value *const *out)
{
	int64_t st[OX_MAX_RANK], vst[OX_MAX_RANK];
	size_t base = 0;
	struct ox_slice s;
	int k, err = ane__ox_slice_params(c, n, in[0]->rank, in[0]->dims, &s);

	if (err)
		return err;
	ane__ox_strides(in[0]->rank, in[0]->dims, st);
	for (k = 0; k < in[0]->rank; k++) {
		base += (size_t)(s.start[k] * st[k]);
		/* A dim of one element never steps (its step may be huge). */
		vst[k] = s.dims[k] > 1 ? s.step[k] * st[k] : 0;
	}
	ane__ox_copy_view(out[0], out[0]->rank, out[0]->dims, in[0], base, vst);
	return 0;
}

/* ------------------------------------------------------------ Pad */

enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE };

static int pad_params(struct ox_ctx *c, const struct ox_node *n, int rank,
		      int64_t *pads, int *mode)
{
	static const char *const modes[] = { "constant", "reflect", "edge", NULL };
	const char *m;
	const int64_t *a;
	size_t cnt;
	int err;

	err = ane__ox_a_str(c, n, "mode", "constant", modes, &m);
	if (err)
		return err;
	*mode = !strcmp(m, "constant") ? PAD_CONSTANT :
		!strcmp(m, "reflect") ? PAD_REFLECT : PAD_EDGE;
	if (OX_OPSET(c) >= 11) {
		err = ane__ox_const_ints(c, n, 1, "pads", pads, 2 * OX_MAX_RANK, &cnt);
	} else {
		err = ane__ox_a_ints(c, n, OX_OPSET(c) < 2 ? "paddings" : "pads",
				     &a, &cnt);
		if (!err && cnt && cnt == (size_t)rank * 2)
			memcpy(pads, a, sizeof(*a) * cnt);
	}
	if (!err && cnt != (size_t)rank * 2)
		err = ane__ox_fail(c, n, EINVAL,
				   "pads has %zu values; the input's rank %d wants %d",
				   cnt, rank, rank * 2);
	return err;
}

static int infer_pad(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t pads[2 * OX_MAX_RANK], dims[OX_MAX_RANK];
	float f;
	int k, mode;
	int err = ane__ox_n_in(c, n, 1, OX_OPSET(c) >= 11 ? 3 : 1) ?:
		  ane__ox_chk_in(c, n, 0, "data", OX_OPSET(c) >= 11 ? OXM_ALL : OXM_FLOAT,
				 0, OX_MAX_RANK) ?:
		  pad_params(c, n, x->rank, pads, &mode);

	if (!err && ane__ox_in(c, n, 2))
		err = ane__ox_chk_in(c, n, 2, "constant_value", OXM_ALL, 0, 1) ?:
		      ane__ox_same_dtype(c, n, 2, 0);
	if (!err && OX_OPSET(c) < 11)
		err = ane__ox_a_float(c, n, "value", 0.0f, &f);
	for (k = 0; !err && k < x->rank; k++) {
		if (llabs(pads[k] / 2) > (1ll << 40) ||
		    llabs(pads[k + x->rank] / 2) > (1ll << 40)) {
			err = ane__ox_fail(c, n, EOVERFLOW, "pads of dim %d are over 2^41", k);
			break;
		}
		dims[k] = x->dims[k] + pads[k] + pads[k + x->rank];
		if (dims[k] < 0 || pads[k] < -x->dims[k] || pads[k + x->rank] < -x->dims[k])
			err = ane__ox_fail(c, n, EINVAL,
					   "pads crop dim %d (%lld) below zero", k,
					   (long long)x->dims[k]);
		else if (mode != PAD_CONSTANT && !x->dims[k] && dims[k])
			err = ane__ox_fail(c, n, EINVAL,
					   "dim %d is empty: nothing to %s", k,
					   mode == PAD_EDGE ? "repeat" : "reflect");
	}
	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, x->rank, dims);
}

/* The input coordinate for output coordinate @o; -1: the constant. */
static int64_t pad_src(int64_t o, int64_t before, int64_t d, int mode)
{
	int64_t i = o - before, p;

	if (i >= 0 && i < d)
		return i;
	if (mode == PAD_CONSTANT)
		return -1;
	if (mode == PAD_EDGE || d == 1)
		return i < 0 ? 0 : d - 1;
	p = 2 * (d - 1);
	i %= p;
	i = i < 0 ? i + p : i;
	return i >= d ? p - i : i;
}

static int run_pad(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	int64_t pads[2 * OX_MAX_RANK], st[OX_MAX_RANK];
	size_t i, es = ane__ox_dtype_size(x->dtype);
	double val = OX_OPSET(c) < 11 ? ane__ox_attr_f(n, "value", 0.0f) : 0.0;
	const struct ox_value *cv = n->n_in > 2 ? in[2] : NULL;
	struct ox_it it;
	int k, mode, err = pad_params(c, n, x->rank, pads, &mode);

	if (err)
		return err;
	ane__ox_strides(x->rank, x->dims, st);
	ane__ox_it_init(&it, out[0]->rank, out[0]->dims);
	for (i = 0; i < out[0]->count; i++, ane__ox_it_next(&it)) {
		size_t off = 0;

		for (k = 0; k < x->rank; k++) {
			int64_t s = pad_src(it.idx[k], pads[k], x->dims[k], mode);

			if (s < 0)
				break;
			off += (size_t)(s * st[k]);
		}
		if (k < x->rank && cv && cv->count)
			ox_copy_el(out[0], i, cv, 0, es);
		else if (k < x->rank)
			ane__ox_set_f(out[0], i, val);
		else
			ox_copy_el(out[0], i, x, off, es);
	}
	return 0;
}

/* ------------------------------------------------------------ DepthToSpace, SpaceToDepth */

/*
 * Both are a reshape to 6-D and a transpose: the output seen as 6-D
 * (@vd) reads the input's 6-D view (@id, row-major) permuted by @perm.
 */
struct d2s {
	int64_t vd[6], id[6];
	int perm[6];
};

static int d2s_params(struct ox_ctx *c, const struct ox_node *n,
		      const int64_t *x, int64_t *odims, struct d2s *p)
{
	static const char *const modes[] = { "DCR", "CRD", NULL };
	static const int dcr[6] = { 0, 3, 4, 1, 5, 2 }, crd[6] = { 0, 1, 4, 2, 5, 3 },
			 s2d[6] = { 0, 3, 5, 1, 2, 4 };
	int to_space = !strcmp(n->op_type, "DepthToSpace");
	const char *m = "DCR";
	int64_t b, k;
	int err = ane__ox_a_int(c, n, "blocksize", 0, 1, 1 << 20, &b);

	if (!err && !ane__ox_attr(n, "blocksize"))
		err = ane__ox_fail(c, n, EINVAL, "attribute 'blocksize' is missing");
	if (!err && to_space && OX_OPSET(c) >= 11)
		err = ane__ox_a_str(c, n, "mode", "DCR", modes, &m);
	if (err)
		return err;
	if (to_space ? x[1] % (b * b) : x[2] % b || x[3] % b)
		return ane__ox_fail(c, n, EINVAL,
				    "the input's %s is not a multiple of blocksize %lld%s",
				    to_space ? "channels" : "height or width",
				    (long long)b, to_space ? " squared" : "");
	if (to_space) {
		int64_t cc = x[1] / (b * b), crd_mode = !strcmp(m, "CRD");
		int64_t id[6] = { x[0], b, b, cc, x[2], x[3] };
		int64_t idc[6] = { x[0], cc, b, b, x[2], x[3] };

		memcpy(p->id, crd_mode ? idc : id, sizeof(id));
		memcpy(p->perm, crd_mode ? crd : dcr, sizeof(dcr));
		odims[0] = x[0], odims[1] = cc, odims[2] = x[2] * b, odims[3] = x[3] * b;
	} else {
		int64_t id[6] = { x[0], x[1], x[2] / b, b, x[3] / b, b };

		memcpy(p->id, id, sizeof(id));
		memcpy(p->perm, s2d, sizeof(s2d));
		odims[0] = x[0], odims[1] = x[1] * b * b, odims[2] = x[2] / b,
		odims[3] = x[3] / b;
	}
	for (k = 0; k < 6; k++)
		p->vd[k] = p->id[p->perm[k]];
	return 0;
}

static int infer_d2s(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int64_t dims[4];
	struct d2s p;
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 4, 4) ?:
		  d2s_params(c, n, x->dims, dims, &p);

	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, 4, dims);
}

static int run_d2s(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	int64_t dims[4], st[6], pst[6];
	struct d2s p;
	int k, err = d2s_params(c, n, in[0]->dims, dims, &p);

	if (err)
		return err;
	ane__ox_strides(6, p.id, st);
	for (k = 0; k < 6; k++)
		pst[k] = st[p.perm[k]];
	ane__ox_copy_view(out[0], 6, p.vd, in[0], 0, pst);
	return 0;
}

/* ------------------------------------------------------------ Trilu */

static int infer_trilu(struct ox_ctx *c, const struct ox_node *n)
{
	int64_t up;
	int err = ane__ox_n_in(c, n, 1, 2) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 2, OX_MAX_RANK) ?:
		  ane__ox_a_int(c, n, "upper", 1, 0, 1, &up);

	if (!err && ane__ox_in(c, n, 1))
		err = ane__ox_chk_in(c, n, 1, "k", OXM(OX_INT64), 0, 1);
	if (!err && ane__ox_in(c, n, 1) && ane__ox_in(c, n, 1)->rank == 1 &&
	    ane__ox_in(c, n, 1)->dims[0] != 1)
		err = ane__ox_fail(c, n, EINVAL, "input 1 (k) must be a scalar");
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_trilu(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_value *const *in,
		     struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	int64_t k = n->n_in > 1 && in[1] ? ane__ox_get_i(in[1], 0) : 0;
	int64_t rows = x->dims[x->rank - 2], cols = x->dims[x->rank - 1], r, j;
	int up = (int)ane__ox_attr_i(n, "upper", 1);
	size_t es = ane__ox_dtype_size(x->dtype), m, mats = x->count ?
		    x->count / (size_t)(rows * cols) : 0;

	(void)c;
	for (m = 0; m < mats; m++)
		for (r = 0; r < rows; r++)
			for (j = 0; j < cols; j++) {
				size_t i = m * (size_t)(rows * cols) + (size_t)(r * cols + j);
				int keep = up ? j - r >= k : j - r <= k;

				/* k may be near INT64_MIN/MAX: j - r cannot overflow. */
				if (keep)
					ox_copy_el(out[0], i, x, i, es);
			}
	return 0;
}

/* ------------------------------------------------------------ ReverseSequence */

static int infer_revseq(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *l = ane__ox_in(c, n, 1);
	int64_t ba, ta;
	int err = ane__ox_n_in(c, n, 2, 2) ?:
		  ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 2, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, "sequence_lens", OXM(OX_INT64), 1, 1) ?:
		  ane__ox_a_int(c, n, "batch_axis", 1, 0, 1, &ba) ?:
		  ane__ox_a_int(c, n, "time_axis", 0, 0, 1, &ta);

	if (!err && ba == ta)
		err = ane__ox_fail(c, n, EINVAL,
				   "attributes 'batch_axis' and 'time_axis' are both %lld",
				   (long long)ba);
	if (!err && l->dims[0] != x->dims[ba])
		err = ane__ox_fail(c, n, EINVAL,
				   "input 1 (sequence_lens) has %lld values; the batch is %lld",
				   (long long)l->dims[0], (long long)x->dims[ba]);
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_revseq(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	const struct ox_value *x = in[0];
	int ba = (int)ane__ox_attr_i(n, "batch_axis", 1), ta = 1 - ba;
	int64_t st[OX_MAX_RANK], inner = ane__ox_prod(x->dims, 2, x->rank);
	size_t es = ane__ox_dtype_size(x->dtype);
	int64_t b, t, e;

	ane__ox_strides(x->rank, x->dims, st);
	for (b = 0; b < x->dims[ba]; b++) {
		int64_t len = ane__ox_get_i(in[1], (size_t)b);

		if (len < 0 || len > x->dims[ta])
			return ane__ox_fail(c, n, EINVAL,
					    "sequence_lens[%lld] is %lld, outside [0, %lld]",
					    (long long)b, (long long)len,
					    (long long)x->dims[ta]);
		for (t = 0; t < x->dims[ta]; t++) {
			int64_t s = t < len ? len - 1 - t : t;

			for (e = 0; e < inner; e++)
				ox_copy_el(out[0], (size_t)(b * st[ba] + t * st[ta] + e), x,
					   (size_t)(b * st[ba] + s * st[ta] + e), es);
		}
	}
	return 0;
}

static const struct ox_op ops[] = {
	{ "Slice", infer_slice, run_slice },
	{ "Pad", infer_pad, run_pad },
	{ "DepthToSpace", infer_d2s, run_d2s },
	{ "SpaceToDepth", infer_d2s, run_d2s },
	{ "Trilu", infer_trilu, run_trilu },
	{ "ReverseSequence", infer_revseq, run_revseq },
};

OX_TABLE(ane__ox_ops_move, ops);
