// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: resampling -- Resize (opsets 10, 11, 13:
 * nearest/linear/cubic, every coordinate transformation), Upsample (from
 * opset 7), GridSample and RoiAlign.  Resize is separable: each output
 * coordinate of each dim reads at most four input ones with weights.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

enum { M_NEAREST, M_LINEAR, M_CUBIC };
enum { C_HALF, C_PYTORCH, C_ALIGN, C_ASYM, C_TF_NN, C_TF_CROP };
enum { N_RPF, N_RPC, N_FLOOR, N_CEIL };

struct rs {
	int mode, coord, nearest, excl, rank;
	double a, extrap;
	double scale[OX_MAX_RANK];
	int64_t out[OX_MAX_RANK];
};

static int pick(const char *s, const char *const *names)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return i;
	return 0;
}

static int rs_attrs(struct ox_ctx *c, const struct ox_node *n, struct rs *r)
{
	static const char *const modes[] = { "nearest", "linear", "cubic", NULL };
	static const char *const old_modes[] = { "nearest", "linear", "bilinear", NULL };
	static const char *const coords[] = { "half_pixel", "pytorch_half_pixel",
		"align_corners", "asymmetric", "tf_half_pixel_for_nn",
		"tf_crop_and_resize", NULL };
	static const char *const nears[] = { "round_prefer_floor", "round_prefer_ceil",
					      "floor", "ceil", NULL };
	int modern = !strcmp(n->op_type, "Resize") && OX_OPSET(c) >= 11;
	const char *m, *co = "asymmetric", *ne = "floor";
	int64_t ex = 0;
	float a = -0.75f, ev = 0;
	int err = ane__ox_a_str(c, n, "mode", "nearest", modern ? modes : old_modes, &m);

	if (!err && modern)
		err = ane__ox_a_str(c, n, "coordinate_transformation_mode", "half_pixel",
				    coords, &co) ?:
		      ane__ox_a_str(c, n, "nearest_mode", "round_prefer_floor", nears, &ne) ?:
		      ane__ox_a_float(c, n, "cubic_coeff_a", -0.75f, &a) ?:
		      ane__ox_a_int(c, n, "exclude_outside", 0, 0, 1, &ex) ?:
		      ane__ox_a_float(c, n, "extrapolation_value", 0.0f, &ev);
	if (!err && modern && OX_OPSET(c) >= 13 && !strcmp(co, "tf_half_pixel_for_nn"))
		err = ane__ox_fail(c, n, EINVAL,
				   "attribute 'coordinate_transformation_mode' tf_half_pixel_for_nn is opset 11's only");
	r->mode = !strcmp(m, "nearest") ? M_NEAREST : !strcmp(m, "cubic") ? M_CUBIC : M_LINEAR;
	r->coord = pick(co, coords);
	r->nearest = pick(ne, nears);
	r->excl = (int)ex;
	r->a = a;
	r->extrap = ev;
	return err;
}

/* scales (floats) or sizes (ints), constants; the output's dims. */
static int rs_params(struct ox_ctx *c, const struct ox_node *n, int rank,
		     const int64_t *dims, struct rs *r)
{
	int res = !strcmp(n->op_type, "Resize"), si, k;
	int sizes_i = res && OX_OPSET(c) >= 11 ? 3 : -1;
	const struct ox_value *sv = NULL;
	const float *fa;
	size_t cnt = 0;
	int err = rs_attrs(c, n, r);

	if (err)
		return err;
	r->rank = rank;
	si = !res ? 1 : OX_OPSET(c) >= 11 ? 2 : 1;
	if (!res && OX_OPSET(c) < 9) {
		err = ane__ox_a_floats(c, n, "scales", &fa, &cnt);
		if (!err && cnt != (size_t)rank)
			err = ane__ox_fail(c, n, EINVAL, "attribute 'scales' has %zu values for rank %d",
					   cnt, rank);
		for (k = 0; !err && k < rank; k++)
			r->scale[k] = fa[k];
	} else if (sizes_i > 0 && ane__ox_in(c, n, sizes_i) &&
		   (!ane__ox_in(c, n, si) || (ane__ox_in(c, n, si)->konst &&
					       !ane__ox_in(c, n, si)->konst->count))) {
		int64_t sz[OX_MAX_RANK];

		err = ane__ox_const_ints(c, n, sizes_i, "sizes", sz, OX_MAX_RANK, &cnt);
		if (!err && cnt != (size_t)rank)
			err = ane__ox_fail(c, n, EINVAL, "input %d (sizes) has %zu values for rank %d",
					   sizes_i, cnt, rank);
		for (k = 0; !err && k < rank; k++) {
			if (sz[k] < 0)
				return ane__ox_fail(c, n, EINVAL, "sizes[%d] is negative", k);
			r->out[k] = sz[k];
			r->scale[k] = dims[k] ? (double)sz[k] / (double)dims[k] : 1.0;
		}
		return err;
	} else {
		sv = ane__ox_const_in(c, n, si, "scales");
		if (!sv)
			return -EINVAL;
		if (sv->dtype != OX_FLOAT || sv->count != (size_t)rank)
			return ane__ox_fail(c, n, EINVAL,
					    "input %d (scales) must be %d floats", si, rank);
		for (k = 0; k < rank; k++)
			r->scale[k] = ane__ox_get_f(sv, (size_t)k);
	}
	for (k = 0; !err && k < rank; k++) {
		double o = floor((double)dims[k] * r->scale[k]);

		if (!(r->scale[k] > 0) || o > 1e15)
			return ane__ox_fail(c, n, EINVAL, "scales[%d] is %g", k, r->scale[k]);
		r->out[k] = (int64_t)o;
	}
	return err;
}

static int infer_resize(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int res = !strcmp(n->op_type, "Resize");
	int hi = !res ? (OX_OPSET(c) >= 9 ? 2 : 1) : OX_OPSET(c) >= 11 ? 4 : 2;
	struct rs r;
	int err;

	if (!res && OX_OPSET(c) < 7)
		return ane__ox_fail(c, n, EOPNOTSUPP,
				    "opset %lld's Upsample (height_scale, width_scale) is not supported",
				    (long long)OX_OPSET(c));
	err = ane__ox_n_in(c, n, res && OX_OPSET(c) == 11 ? 3 : hi == 1 ? 1 : 2, hi) ?:
	      ane__ox_chk_in(c, n, 0, "X", OXM_NUM, 1, OX_MAX_RANK) ?:
	      rs_params(c, n, x->rank, x->dims, &r);
	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, x->rank, r.out);
}

static double cubic_w(double d, double a)
{
	d = fabs(d);
	if (d <= 1)
		return ((a + 2) * d - (a + 3)) * d * d + 1;
	if (d < 2)
		return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
	return 0;
}

static double nearest_round(double x, int mode)
{
	switch (mode) {
	case N_RPC: return x == floor(x) + 0.5 ? ceil(x) : nearbyint(x);
	case N_FLOOR: return floor(x);
	case N_CEIL: return ceil(x);
	default: return x == floor(x) + 0.5 ? floor(x) : nearbyint(x);
	}
}

/*
 * The taps of output coordinate @o of dim @d (input length @in): up to 4
 * indices and weights; 0 taps: the extrapolation value.
 */
static int rs_taps(const struct rs *r, int d, int64_t o, int64_t in,
		   const double *roi, int64_t *idx, double *w)
{
	double s = r->scale[d], x, t, sum = 0;
	/* The reference's resized length: in * scale, not floored. */
	double len = s * (double)in;
	int64_t i0, k;
	int nt = 0;

	switch (r->coord) {
	case C_PYTORCH: x = len > 1 ? (o + 0.5) / s - 0.5 : 0; break;
	case C_ALIGN: x = len == 1 ? 0 : o * (double)(in - 1) / (len - 1); break;
	case C_ASYM: x = o / s; break;
	case C_TF_NN: x = (o + 0.5) / s; break;
	case C_TF_CROP:
		x = len > 1 ? roi[d] * (in - 1) + o * (roi[d + r->rank] - roi[d]) *
		    (in - 1) / (len - 1) : 0.5 * (roi[d] + roi[d + r->rank]) * (in - 1);
		if (x < 0 || x > in - 1)
			return 0;
		break;
	default: x = (o + 0.5) / s - 0.5; break;
	}
	if (r->mode == M_NEAREST) {
		t = nearest_round(x, r->nearest);
		idx[0] = ox_d2i(t, 0, in - 1);
		w[0] = 1;
		return 1;
	}
	/* Beyond the edges every tap clamps to the edge: keep x near them. */
	x = x != x ? 0 : fmin(fmax(x, -3.0), (double)in + 2);
	i0 = (int64_t)floor(x);
	t = x - (double)i0;
	for (k = r->mode == M_LINEAR ? 0 : -1; k <= (r->mode == M_LINEAR ? 1 : 2); k++) {
		int64_t j = i0 + k;
		double wt = r->mode == M_LINEAR ? (k ? t : 1 - t) : cubic_w(t - k, r->a);

		if (r->excl && (j < 0 || j >= in))
			wt = 0;
		if (wt == 0)
			continue;
		idx[nt] = j < 0 ? 0 : j >= in ? in - 1 : j;
		w[nt++] = wt;
		sum += wt;
	}
	for (k = 0; r->excl && sum != 0 && k < nt; k++)
		w[k] /= sum;
	return nt;
}

/*
 * The interpolation matrix of dim @d of a Resize or Upsample whose input
 * has the dims @dims (rank @rank): @m[o * in + i] the weight output
 * coordinate o gives input coordinate i, what the engine's matrix
 * products apply (ox_lower_shape.c).  @ext[o] is 1 where output
 * coordinate o takes the extrapolation value, *@ev (no product gives it:
 * the lowering adds it).
 */
int ane__ox_resize_matrix(struct ox_ctx *c, const struct ox_node *n, int rank,
			  const int64_t *dims, int d, float *m,
			  unsigned char *ext, double *ev)
{
	const struct ox_tensor *rt = !strcmp(n->op_type, "Resize") && OX_OPSET(c) >= 11 &&
				     n->n_in > 1 ? ane__ox_in(c, n, 1) : NULL;
	double roi[2 * OX_MAX_RANK], w[4];
	int64_t idx[4], o, in = dims[d];
	struct rs r;
	int k, nt, err = rs_params(c, n, rank, dims, &r);

	if (err)
		return err;
	if (rt && rt->konst && rt->konst->count && rt->konst->count != (size_t)(2 * rank))
		return -EINVAL;
	for (k = 0; k < 2 * rank; k++)
		roi[k] = rt && rt->konst && rt->konst->count ?
			 ane__ox_get_f(rt->konst, (size_t)k) : k < rank ? 0 : 1;
	if (rt && !rt->konst && r.coord == C_TF_CROP)
		return -EINVAL;
	*ev = r.extrap;
	for (o = 0; o < r.out[d]; o++) {
		for (k = 0; k < in; k++)
			m[o * in + k] = 0;
		nt = rs_taps(&r, d, o, in, roi, idx, w);
		ext[o] = !nt;
		for (k = 0; k < nt; k++)
			m[o * in + idx[k]] += (float)w[k];
	}
	return 0;
}

static int run_resize(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *xv = in[0];
	const struct ox_value *roiv = n->n_in > 1 && !strcmp(n->op_type, "Resize") &&
				      OX_OPSET(c) >= 11 ? in[1] : NULL;
	double roi[2 * OX_MAX_RANK], w[OX_MAX_RANK][4];
	int64_t st[OX_MAX_RANK], idx[OX_MAX_RANK][4], tk[OX_MAX_RANK];
	int nt[OX_MAX_RANK], d, err;
	struct ox_it it;
	struct rs r;
	size_t i;

	err = rs_params(c, n, xv->rank, xv->dims, &r);
	if (err)
		return err;
	for (d = 0; d < 2 * xv->rank; d++)
		roi[d] = roiv && roiv->count == (size_t)(2 * xv->rank) ?
			 ane__ox_get_f(roiv, (size_t)d) : d < xv->rank ? 0 : 1;
	ane__ox_strides(xv->rank, xv->dims, st);
	ane__ox_it_init(&it, out[0]->rank, out[0]->dims);
	for (i = 0; i < out[0]->count; i++, ane__ox_it_next(&it)) {
		double acc = 0;
		int ext = 0;

		for (d = 0; d < xv->rank; d++) {
			nt[d] = rs_taps(&r, d, it.idx[d], xv->dims[d], roi, idx[d], w[d]);
			ext |= !nt[d];
			tk[d] = 0;
		}
		while (!ext) {
			double wt = 1;
			size_t off = 0;

			for (d = 0; d < xv->rank; d++) {
				wt *= w[d][tk[d]];
				off += (size_t)(idx[d][tk[d]] * st[d]);
			}
			acc += wt * ane__ox_get_f(xv, off);
			for (d = xv->rank - 1; d >= 0 && ++tk[d] == nt[d]; d--)
				tk[d] = 0;
			if (d < 0)
				break;
		}
		ane__ox_set_f(out[0], i, ext ? r.extrap : ox_is_float(xv->dtype) ? acc :
			      nearbyint(acc));
	}
	return 0;
}

/* ------------------------------------------------------------ GridSample */

struct gs {
	int mode, pad, align;	/* bilinear nearest bicubic; zeros border reflection */
	int64_t H, W;
	const double *x;
};

static int gs_attrs(struct ox_ctx *c, const struct ox_node *n, struct gs *g)
{
	static const char *const modes[] = { "bilinear", "nearest", "bicubic", NULL };
	static const char *const pads[] = { "zeros", "border", "reflection", NULL };
	const char *m, *p;
	int64_t al;
	int err = ane__ox_a_str(c, n, "mode", "bilinear", modes, &m) ?:
		  ane__ox_a_str(c, n, "padding_mode", "zeros", pads, &p) ?:
		  ane__ox_a_int(c, n, "align_corners", 0, 0, 1, &al);

	g->mode = pick(m, modes);
	g->pad = pick(p, pads);
	g->align = (int)al;
	return err;
}

static int infer_gridsample(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *gr = ane__ox_in(c, n, 1);
	int64_t dims[4];
	struct gs g;
	int err = ane__ox_n_in(c, n, 2, 2) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_NUM, 4, 4) ?:
		  ane__ox_chk_in(c, n, 1, "grid", OXM_FLOAT, 4, 4) ?:
		  gs_attrs(c, n, &g);

	if (!err && (gr->dims[0] != x->dims[0] || gr->dims[3] != 2))
		err = ane__ox_fail(c, n, EINVAL, "input 1 (grid) must be [N, H_out, W_out, 2]");
	if (err)
		return err;
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	dims[2] = gr->dims[1];
	dims[3] = gr->dims[2];
	return ane__ox_set_out(c, n, 0, x->dtype, 4, dims);
}

/* Reflects @v into [lo, hi]. */
static double reflect(double v, double lo, double hi)
{
	double span = hi - lo, d;
	int64_t flips;

	if (span <= 0)
		return lo;
	d = fabs(v - lo);
	flips = (int64_t)floor(d / span);
	d -= (double)flips * span;
	return flips % 2 ? hi - d : lo + d;
}

/* Pixel (@y, @xx) of the plane with the padding mode. */
static double gs_pixel(const struct gs *g, int64_t y, int64_t xx)
{
	if (g->pad == 0 && (y < 0 || y >= g->H || xx < 0 || xx >= g->W))
		return 0;
	if (g->pad == 2) {
		double lo = g->align ? 0 : -0.5;

		xx = (int64_t)reflect((double)xx, lo, g->align ? g->W - 1 : g->W - 0.5);
		y = (int64_t)reflect((double)y, lo, g->align ? g->H - 1 : g->H - 0.5);
	}
	xx = xx < 0 ? 0 : xx >= g->W ? g->W - 1 : xx;
	y = y < 0 ? 0 : y >= g->H ? g->H - 1 : y;
	return g->x[y * g->W + xx];
}

static double gs_sample(const struct gs *g, double gx, double gy)
{
	double x = g->align ? (gx + 1) / 2 * (g->W - 1) : ((gx + 1) * g->W - 1) / 2;
	double y = g->align ? (gy + 1) / 2 * (g->H - 1) : ((gy + 1) * g->H - 1) / 2;
	double lo = g->align ? 0 : -0.5, s = 0, wy[4], wx[4];
	int64_t x0, y0, i, j;

	if (x != x || y != y)
		return 0;
	x = fmin(fmax(x, -1e9), 1e9);
	y = fmin(fmax(y, -1e9), 1e9);

	if (g->pad == 1) {
		x = fmin(fmax(x, 0), (double)g->W - 1);
		y = fmin(fmax(y, 0), (double)g->H - 1);
	} else if (g->pad == 2) {
		x = reflect(x, lo, g->align ? g->W - 1 : g->W - 0.5);
		y = reflect(y, lo, g->align ? g->H - 1 : g->H - 0.5);
	}
	if (g->mode == 1)
		return gs_pixel(g, (int64_t)nearbyint(y), (int64_t)nearbyint(x));
	x0 = (int64_t)floor(x);
	y0 = (int64_t)floor(y);
	if (g->mode == 0)
		return gs_pixel(g, y0, x0) * (1 - (y - y0)) * (1 - (x - x0)) +
		       gs_pixel(g, y0, x0 + 1) * (1 - (y - y0)) * (x - x0) +
		       gs_pixel(g, y0 + 1, x0) * (y - y0) * (1 - (x - x0)) +
		       gs_pixel(g, y0 + 1, x0 + 1) * (y - y0) * (x - x0);
	for (i = 0; i < 4; i++) {
		wy[i] = cubic_w(y - (double)(y0 - 1 + i), -0.75);
		wx[i] = cubic_w(x - (double)(x0 - 1 + i), -0.75);
	}
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			s += wy[i] * wx[j] * gs_pixel(g, y0 - 1 + i, x0 - 1 + j);
	return s;
}

static int run_gridsample(struct ox_ctx *c, const struct ox_node *n,
			  const struct ox_value *const *in,
			  struct ox_value *const *out)
{
	const struct ox_value *xv = in[0], *gv = in[1];
	int64_t N = xv->dims[0], C = xv->dims[1], P = gv->dims[1] * gv->dims[2], b, ch, p;
	double *x = ane__ox_load_f(xv), *gr = ane__ox_load_f(gv);
	struct gs g;
	int err = gs_attrs(c, n, &g);

	if (!x || !gr)
		err = ane__ox_nomem(c, n);
	g.H = xv->dims[2];
	g.W = xv->dims[3];
	for (b = 0; !err && b < N; b++)
		for (ch = 0; ch < C; ch++) {
			g.x = x + (b * C + ch) * g.H * g.W;
			for (p = 0; p < P; p++) {
				const double *q = gr + (b * P + p) * 2;

				ane__ox_set_f(out[0], (size_t)((b * C + ch) * P + p),
					      gs_sample(&g, q[0], q[1]));
			}
		}
	free(x);
	free(gr);
	return err;
}

/* ------------------------------------------------------------ RoiAlign */

static int infer_roialign(struct ox_ctx *c, const struct ox_node *n)
{
	static const char *const modes[] = { "avg", "max", NULL };
	static const char *const coords[] = { "half_pixel", "output_half_pixel", NULL };
	struct ox_tensor *x = ane__ox_in(c, n, 0), *r = ane__ox_in(c, n, 1);
	int64_t oh, ow, sr, dims[4];
	const char *s;
	float f;
	int err = ane__ox_n_in(c, n, 3, 3) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 4, 4) ?:
		  ane__ox_chk_in(c, n, 1, "rois", OXM_FLOAT, 2, 2) ?:
		  ane__ox_same_dtype(c, n, 1, 0) ?:
		  ane__ox_chk_in(c, n, 2, "batch_indices", OXM(OX_INT64), 1, 1) ?:
		  ane__ox_a_str(c, n, "mode", "avg", modes, &s) ?:
		  ane__ox_a_str(c, n, "coordinate_transformation_mode", "half_pixel",
				coords, &s) ?:
		  ane__ox_a_int(c, n, "output_height", 1, 1, 1 << 20, &oh) ?:
		  ane__ox_a_int(c, n, "output_width", 1, 1, 1 << 20, &ow) ?:
		  ane__ox_a_int(c, n, "sampling_ratio", 0, 0, 1 << 20, &sr) ?:
		  ane__ox_a_float(c, n, "spatial_scale", 1.0f, &f);

	if (!err && (r->dims[1] != 4 || ane__ox_in(c, n, 2)->dims[0] != r->dims[0]))
		err = ane__ox_fail(c, n, EINVAL, "rois must be [R, 4] and batch_indices [R]");
	if (err)
		return err;
	dims[0] = r->dims[0];
	dims[1] = x->dims[1];
	dims[2] = oh;
	dims[3] = ow;
	return ane__ox_set_out(c, n, 0, x->dtype, 4, dims);
}

/* A bilinear sample of @p (@H x @W) at (@y, @x); @mx: the largest corner. */
static double roi_sample(const double *p, int64_t H, int64_t W, double y,
			 double x, int mx)
{
	int64_t y0, x0, y1, x1;
	double ly, lx, v[4];

	if (!(y >= -1.0 && y <= (double)H && x >= -1.0 && x <= (double)W))
		return 0;
	y = y < 0 ? 0 : y;
	x = x < 0 ? 0 : x;
	y0 = (int64_t)y;
	x0 = (int64_t)x;
	y1 = y0 >= H - 1 ? (y0 = H - 1) : y0 + 1;
	x1 = x0 >= W - 1 ? (x0 = W - 1) : x0 + 1;
	y = y0 == y1 ? (double)y0 : y;
	x = x0 == x1 ? (double)x0 : x;
	ly = y - (double)y0;
	lx = x - (double)x0;
	v[0] = (1 - ly) * (1 - lx) * p[y0 * W + x0];
	v[1] = (1 - ly) * lx * p[y0 * W + x1];
	v[2] = ly * (1 - lx) * p[y1 * W + x0];
	v[3] = ly * lx * p[y1 * W + x1];
	if (mx)
		return fmax(fmax(v[0], v[1]), fmax(v[2], v[3]));
	return v[0] + v[1] + v[2] + v[3];
}

static int run_roialign(struct ox_ctx *c, const struct ox_node *n,
			const struct ox_value *const *in,
			struct ox_value *const *out)
{
	int mx = !strcmp(ane__ox_attr_s(n, "mode", "avg"), "max");
	int half = !strcmp(ane__ox_attr_s(n, "coordinate_transformation_mode",
					  "half_pixel"), "half_pixel");
	int64_t C = in[0]->dims[1], H = in[0]->dims[2], W = in[0]->dims[3];
	int64_t oh = out[0]->dims[2], ow = out[0]->dims[3], R = out[0]->dims[0];
	int64_t sr = ane__ox_attr_i(n, "sampling_ratio", 0), r, ch, ph, pw, iy, ix;
	double sc = ane__ox_attr_f(n, "spatial_scale", 1.0f), off = half ? 0.5 : 0;
	double *x = ane__ox_load_f(in[0]);

	if (!x)
		return ane__ox_nomem(c, n);
	for (r = 0; r < R; r++) {
		int64_t b = ane__ox_get_i(in[2], (size_t)r);
		double x1 = ane__ox_get_f(in[1], (size_t)r * 4) * sc - off;
		double y1 = ane__ox_get_f(in[1], (size_t)r * 4 + 1) * sc - off;
		double rw = ane__ox_get_f(in[1], (size_t)r * 4 + 2) * sc - off - x1;
		double rh = ane__ox_get_f(in[1], (size_t)r * 4 + 3) * sc - off - y1;
		int64_t gh, gw;

		if (b < 0 || b >= in[0]->dims[0]) {
			free(x);
			return ane__ox_fail(c, n, EINVAL, "batch_indices[%lld] is %lld",
					    (long long)r, (long long)b);
		}
		rw = half ? rw : fmax(rw, 1.0);
		rh = half ? rh : fmax(rh, 1.0);
		gh = sr ? sr : ox_d2i(ceil(rh / (double)oh), 1, 1024);
		gw = sr ? sr : ox_d2i(ceil(rw / (double)ow), 1, 1024);
		gh = gh > 0 ? gh : 1;
		gw = gw > 0 ? gw : 1;
		for (ch = 0; ch < C; ch++)
			for (ph = 0; ph < oh; ph++)
				for (pw = 0; pw < ow; pw++) {
					const double *p = x + (b * C + ch) * H * W;
					double acc = mx ? -INFINITY : 0;

					for (iy = 0; iy < gh; iy++)
						for (ix = 0; ix < gw; ix++) {
							double yy = y1 + ph * rh / oh + (iy + 0.5) * rh / oh / gh;
							double xx = x1 + pw * rw / ow + (ix + 0.5) * rw / ow / gw;
							double v = roi_sample(p, H, W, yy, xx, mx);

							acc = mx ? fmax(acc, v) : acc + v;
						}
					ane__ox_set_f(out[0], (size_t)(((r * C + ch) * oh + ph) * ow + pw),
						      mx ? acc : acc / (double)(gh * gw));
				}
	}
	free(x);
	return 0;
}

static const struct ox_op ops[] = {
	{ "Resize", infer_resize, run_resize },
	{ "Upsample", infer_resize, run_resize },
	{ "GridSample", infer_gridsample, run_gridsample },
	{ "RoiAlign", infer_roialign, run_roialign },
};

OX_TABLE(ane__ox_ops_resize, ops);
