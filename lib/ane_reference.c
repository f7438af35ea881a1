// SPDX-License-Identifier: MIT
/*
 * libane: the CPU reference executor.  It runs a net as the engine does --
 * fp16 storage, every result rounded to fp16 once, round to nearest even
 * -- but computes each result in double precision from its fp16
 * operands, with plain loops in the obvious order.  It is a yardstick,
 * not a fast path.  The elementary functions are our own (libane does not
 * link libm): accurate to a few double ulps, far below fp16's resolution.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_internal.h"

/* ------------------------------------------------------------ math */

static double pow2i(int n)	/* 2^n for -1022 <= n <= 1023 */
{
	uint64_t b = (uint64_t)(n + 1023) << 52;
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static double r_inf(void)
{
	return pow2i(1023) * 2.0;
}

/* e^x: x = k ln2 + r, |r| <= ln2/2, Taylor series of e^r, times 2^k. */
static double r_exp(double x)
{
	double kd, r, term = 1.0, sum = 1.0;
	long k;
	int i, k1;

	if (x != x)
		return x;
	if (x > 709.782712893384)
		return r_inf();
	if (x < -745.2)
		return 0.0;
	kd = x * 1.4426950408889634;
	k = (long)(kd + (kd < 0 ? -0.5 : 0.5));
	r = x - (double)k * 6.93147180369123816490e-01;
	r -= (double)k * 1.90821492927058770002e-10;
	for (i = 1; i <= 16; i++) {
		term *= r / i;
		sum += term;
	}
	k1 = (int)(k / 2);
	return sum * pow2i(k1) * pow2i((int)k - k1);
}

/* e^x - 1 without cancellation near 0. */
static double r_expm1(double x)
{
	double term = x, sum = x;
	int i;

	if (x > 0.35 || x < -0.35 || x != x)
		return r_exp(x) - 1.0;
	for (i = 2; i <= 18; i++) {
		term *= x / i;
		sum += term;
	}
	return sum;
}

static double r_tanh(double x)
{
	double a = x < 0 ? -x : x, t;

	if (x != x)
		return x;
	if (a > 22.0)
		return x < 0 ? -1.0 : 1.0;
	t = r_expm1(2.0 * a);
	t = t / (t + 2.0);
	return x < 0 ? -t : t;
}

static double r_sigmoid(double x)
{
	double e;

	if (x >= 0)
		return 1.0 / (1.0 + r_exp(-x));
	e = r_exp(x);
	return e / (1.0 + e);
}

/*
 * erfc(z) for z >= 0: 1 - the Maclaurin series of erf below 3 (absolute
 * error ~1e-15, so a relative one below 1e-10 even at erfc(3) = 2.2e-5),
 * the continued fraction above.
 */
static double r_erfc_pos(double z)
{
	const double two_over_sqrt_pi = 1.1283791670955126;
	const double inv_sqrt_pi = 0.5641895835477563;
	double sum, term, f;
	int n;

	if (z < 3.0) {
		term = z;	/* (-1)^n z^(2n+1) / n! */
		sum = z;
		for (n = 1; n < 200; n++) {
			double add;

			term *= -z * z / n;
			add = term / (2 * n + 1);
			sum += add;
			if ((add < 0 ? -add : add) < 1e-18)
				break;
		}
		return 1.0 - two_over_sqrt_pi * sum;
	}
	if (z > 27.3)		/* below the smallest double */
		return 0.0;
	/* erfc z = e^-z^2 / sqrt(pi) / (z + (1/2) / (z + 1 / (z + (3/2) / ...))) */
	f = z;
	for (n = 120; n >= 1; n--)
		f = z + (n / 2.0) / f;
	return r_exp(-z * z) * inv_sqrt_pi / f;
}

static double r_gelu(double x)
{
	const double inv_sqrt2 = 0.70710678118654752;

	if (x != x)
		return x;
	if (x > 20.0)
		return x;
	if (x < -20.0)		/* x Phi(x) below 1e-87: -0 in fp16 */
		return -0.0;
	if (x >= 0)
		return x - 0.5 * x * r_erfc_pos(x * inv_sqrt2);
	return 0.5 * x * r_erfc_pos(-x * inv_sqrt2);
}

static double r_gelu_tanh(double x)
{
	double u;

	if (x != x)
		return x;
	if (x > 20.0)
		return x;
	if (x < -20.0)
		return -0.0;
	/* x/2 (1 + tanh u) = x sigmoid(2u), which does not cancel */
	u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
	return x * r_sigmoid(2.0 * u);
}

static double r_act(uint32_t act, double x)
{
	switch (act) {
	case ANE_NET_ACT_RELU:
		return x < 0 ? 0.0 : x;		/* NaN and -0 pass */
	case ANE_NET_ACT_RELU6:
		x = x < 0 ? 0.0 : x;
		return x > 6.0 ? 6.0 : x;
	case ANE_NET_ACT_SIGMOID:
		return r_sigmoid(x);
	case ANE_NET_ACT_TANH:
		return r_tanh(x);
	case ANE_NET_ACT_GELU:
		return r_gelu(x);
	case ANE_NET_ACT_GELU_TANH:
		return r_gelu_tanh(x);
	case ANE_NET_ACT_NONE:
		return x;
	default:	/* ane_reference_fn.c */
		return ane__ref_act(act, 0.0, 0.0, x);
	}
}

/* The fp16 the engine stores for a result @v (before the activation). */
static float store(uint32_t act, double v)
{
	return ane_float_from_fp16(ane__fp16_from_double(r_act(act, v)));
}

/* ------------------------------------------------------------ ops */

/* Element [n][c][h][w] of a dense tensor, broadcasting extents of 1. */
static float at(const float *v, const uint32_t *d, uint64_t n, uint64_t c,
		uint64_t h, uint64_t w)
{
	n = d[0] == 1 ? 0 : n;
	c = d[1] == 1 ? 0 : c;
	h = d[2] == 1 ? 0 : h;
	w = d[3] == 1 ? 0 : w;
	return v[((n * d[1] + c) * d[2] + h) * d[3] + w];
}

static int is_nan(double x)
{
	return x != x;
}

static void run_conv(const struct ane__op *op, const struct ane__tensor *t,
		     float *const *val)
{
	const uint32_t *xd = t[op->src[0]].dim, *wd = t[op->src[1]].dim;
	const uint32_t *yd = t[op->dst].dim;
	const float *x = val[op->src[0]], *wt = val[op->src[1]];
	const float *b = op->bias >= 0 ? val[op->bias] : NULL;
	float *y = val[op->dst];
	uint32_t cin_g = xd[1] / op->groups, cout_g = yd[1] / op->groups;
	uint64_t n, co, oh, ow, ci, kh, kw, i = 0;

	for (n = 0; n < yd[0]; n++)
		for (co = 0; co < yd[1]; co++)
			for (oh = 0; oh < yd[2]; oh++)
				for (ow = 0; ow < yd[3]; ow++) {
					uint64_t g = co / cout_g;
					double acc = 0.0;

					for (ci = 0; ci < cin_g; ci++)
						for (kh = 0; kh < wd[2]; kh++)
							for (kw = 0; kw < wd[3]; kw++) {
								int64_t ih = (int64_t)(oh * op->stride[0] + kh * op->dilation[0]) - op->pad[0];
								int64_t iw = (int64_t)(ow * op->stride[1] + kw * op->dilation[1]) - op->pad[2];
								double xv = 0.0;	/* zero padding */

								if (ih >= 0 && iw >= 0 && ih < xd[2] && iw < xd[3])
									xv = at(x, xd, n, g * cin_g + ci, (uint64_t)ih, (uint64_t)iw);
								/* a padded tap adds w * 0: NaN for an inf or NaN w */
								acc += xv * at(wt, wd, co, ci, kh, kw);
							}
					if (b)
						acc += b[co];
					y[i++] = store(op->act, acc);
				}
}

static void run_matmul(const struct ane__op *op, const struct ane__tensor *t,
		       float *const *val)
{
	const uint32_t *ad = t[op->src[0]].dim, *bd = t[op->src[1]].dim;
	const uint32_t *yd = t[op->dst].dim;
	const float *a = val[op->src[0]], *b = val[op->src[1]];
	float *y = val[op->dst];
	int tr = !!(op->flags & ANE_NET_TRANSPOSE_B);
	uint64_t n, c, m, j, k, i = 0, K = ad[3];

	for (n = 0; n < yd[0]; n++)
		for (c = 0; c < yd[1]; c++)
			for (m = 0; m < yd[2]; m++)
				for (j = 0; j < yd[3]; j++) {
					double acc = 0.0;

					for (k = 0; k < K; k++)
						acc += (double)at(a, ad, n, c, m, k) *
						       (tr ? at(b, bd, n, c, j, k) :
							     at(b, bd, n, c, k, j));
					y[i++] = store(op->act, acc);
				}
}

static void run_eltwise(const struct ane__op *op, const struct ane__tensor *t,
			float *const *val)
{
	const uint32_t *ad = t[op->src[0]].dim, *bd = t[op->src[1]].dim;
	const uint32_t *yd = t[op->dst].dim;
	const float *a = val[op->src[0]], *b = val[op->src[1]];
	float *y = val[op->dst];
	uint64_t n, c, h, w, i = 0;

	for (n = 0; n < yd[0]; n++)
		for (c = 0; c < yd[1]; c++)
			for (h = 0; h < yd[2]; h++)
				for (w = 0; w < yd[3]; w++) {
					double va = at(a, ad, n, c, h, w);
					double vb = at(b, bd, n, c, h, w), r;

					switch (op->subop) {
					case ANE_NET_ADD:
						r = va + vb;
						break;
					case ANE_NET_SUB:
						r = va - vb;
						break;
					case ANE_NET_MUL:
						r = va * vb;
						break;
					case ANE_NET_DIV:
						r = va / vb;
						break;
					case ANE_NET_POW:
						r = ane__ref_pow(va, vb);
						break;
					case ANE_NET_MAX:
						r = is_nan(va) ? va : is_nan(vb) ? vb :
						    va > vb ? va : vb;
						break;
					default:
						r = is_nan(va) ? va : is_nan(vb) ? vb :
						    va < vb ? va : vb;
						break;
					}
					y[i++] = store(op->act, r);
				}
}

static void run_pool(const struct ane__op *op, const struct ane__tensor *t,
		     float *const *val)
{
	const uint32_t *xd = t[op->src[0]].dim, *yd = t[op->dst].dim;
	const float *x = val[op->src[0]];
	float *y = val[op->dst];
	uint64_t n, c, oh, ow, i = 0;

	for (n = 0; n < yd[0]; n++)
		for (c = 0; c < yd[1]; c++)
			for (oh = 0; oh < yd[2]; oh++)
				for (ow = 0; ow < yd[3]; ow++) {
					int64_t h0 = (int64_t)(oh * op->stride[0]) - op->pad[0];
					int64_t w0 = (int64_t)(ow * op->stride[1]) - op->pad[2];
					int64_t ih, iw;
					double r = op->subop == ANE_NET_POOL_MAX ? -r_inf() : 0.0;
					uint64_t cnt = 0;
					int nan = 0;

					for (ih = h0; ih < h0 + op->kernel[0]; ih++)
						for (iw = w0; iw < w0 + op->kernel[1]; iw++) {
							double v;

							if (ih < 0 || iw < 0 || ih >= xd[2] || iw >= xd[3])
								continue;
							v = at(x, xd, n, c, (uint64_t)ih, (uint64_t)iw);
							cnt++;
							if (op->subop == ANE_NET_POOL_MAX) {
								nan |= is_nan(v);
								r = v > r ? v : r;
							} else {
								r += v;
							}
						}
					if (op->subop == ANE_NET_POOL_MAX) {
						if (nan)
							r = r_inf() - r_inf();
					} else {
						r /= op->flags ? (double)op->kernel[0] * op->kernel[1] :
						     (double)cnt;
					}
					y[i++] = store(op->act, r);
				}
}

static void run_unary(const struct ane__op *op, const struct ane__tensor *t,
		      float *const *val)
{
	const uint32_t *d = t[op->dst].dim;
	const float *x = val[op->src[0]];
	float *y = val[op->dst];
	uint64_t i, e = ane__elems(d);
	float pa, pb;

	memcpy(&pa, &op->act_param[0], sizeof(pa));
	memcpy(&pb, &op->act_param[1], sizeof(pb));
	if (op->act >= ANE__FIRST_PARAM_ACT) {	/* with its parameters */
		for (i = 0; i < e; i++)
			y[i] = ane_float_from_fp16(ane__fp16_from_double(
				ane__ref_act(op->act, pa, pb, x[i])));
		return;
	}
	for (i = 0; i < e; i++)
		y[i] = store(op->act, x[i]);
}

static void run_softmax(const struct ane__op *op, const struct ane__tensor *t,
			float *const *val, double *e)
{
	const uint32_t *d = t[op->dst].dim;
	const float *x = val[op->src[0]];
	float *y = val[op->dst];
	uint64_t n, h, w, c, plane = (uint64_t)d[2] * d[3];

	for (n = 0; n < d[0]; n++)
		for (h = 0; h < d[2]; h++)
			for (w = 0; w < d[3]; w++) {
				uint64_t base = n * d[1] * plane + h * d[3] + w;
				double mx = -r_inf(), sum = 0.0;

				for (c = 0; c < d[1]; c++) {
					e[c] = x[base + c * plane];
					mx = e[c] > mx ? e[c] : mx;
				}
				for (c = 0; c < d[1]; c++) {
					e[c] = r_exp(e[c] - mx);
					sum += e[c];
				}
				for (c = 0; c < d[1]; c++)
					y[base + c * plane] = store(ANE_NET_ACT_NONE, e[c] / sum);
			}
}

/* 1 / sqrt(x) for x > 0 in double precision, without libm. */
static double r_rsqrt(double x)
{
	float f = (float)x;
	uint32_t u;
	double y;
	int i;

	memcpy(&u, &f, sizeof(u));
	u = 0x5f375a86u - (u >> 1);
	memcpy(&f, &u, sizeof(f));
	y = f;
	for (i = 0; i < 6; i++)		/* quadratic convergence from 2^-8 */
		y = y * (1.5 - 0.5 * x * y * y);
	return y;
}

/* Layer normalization's epsilon: 1e-5, or the fp32 the op names. */
static double norm_eps(const struct ane__op *op)
{
	float f;

	if (!op->norm_eps)
		return 1e-5;
	memcpy(&f, &op->norm_eps, sizeof(f));
	return f;
}

/* REDUCE: each result from ane__ref_reduce_at(), then the activation. */
static void run_reduce(const struct ane__op *op, const struct ane__tensor *t,
		       float *const *val)
{
	uint64_t o, e = ane__elems(t[op->dst].dim);

	for (o = 0; o < e; o++)
		val[op->dst][o] = store(op->act, ane__ref_reduce_at(op, t, val[op->src[0]], o));
}

/* Softmax, log-softmax or layer normalization over W; @e holds W doubles. */
static void run_norm(const struct ane__op *op, const struct ane__tensor *t,
		     float *const *val, double *e)
{
	const uint32_t *d = t[op->dst].dim;
	const float *x = val[op->src[0]];
	float *y = val[op->dst];
	uint64_t r, w, rows = (uint64_t)d[0] * d[1] * d[2];

	for (r = 0; r < rows; r++) {
		const float *xr = x + r * d[3];
		double a = 0.0, b = 0.0, mul;

		for (w = 0; w < d[3]; w++)
			e[w] = xr[w];
		if (op->subop == ANE_NET_NORM_SOFTMAX ||
		    op->subop == ANE_NET_NORM_LOG_SOFTMAX) {
			a = -r_inf();
			for (w = 0; w < d[3]; w++)
				a = e[w] > a ? e[w] : a;
			for (w = 0; w < d[3]; w++) {
				e[w] = r_exp(e[w] - a);
				b += e[w];
			}
			mul = 1.0 / b;
			if (op->subop == ANE_NET_NORM_LOG_SOFTMAX) {
				/* (x - max) - log(sum) */
				b = ane__ref_log(b);
				for (w = 0; w < d[3]; w++)
					e[w] = ((double)xr[w] - a) - b;
				mul = 1.0;
			}
		} else {
			for (w = 0; w < d[3]; w++)
				a += e[w];
			a /= d[3];
			for (w = 0; w < d[3]; w++) {
				e[w] -= a;
				b += e[w] * e[w];
			}
			mul = r_rsqrt(b / d[3] + norm_eps(op));
		}
		for (w = 0; w < d[3]; w++)
			y[r * d[3] + w] = store(ANE_NET_ACT_NONE, e[w] * mul);
	}
}

/*
 * A view's values to its own dense array from its parent's storage
 * (ane_net_view(): before a matmul reads it), or back (@scatter:
 * ane_net_merge_heads(), after the matmul that writes it).
 */
static void move_view(const struct ane__tensor *t, int id, float *const *val,
		      int scatter)
{
	const struct ane__tensor *v = &t[id];
	float *p = val[v->parent];
	uint64_t plane = v->plane ? v->plane : (uint64_t)v->dim[2] * v->row;
	uint64_t n, c, h, w, i = 0, o;

	if (!v->row && !v->plane) {	/* a dense view: a reshape */
		uint64_t e = ane__elems(v->dim);

		if (scatter)
			memcpy(p + v->voff, val[id], e * sizeof(float));
		else
			memcpy(val[id], p + v->voff, e * sizeof(float));
		return;
	}
	for (n = 0; n < v->dim[0]; n++)
		for (c = 0; c < v->dim[1]; c++)
			for (h = 0; h < v->dim[2]; h++)
				for (w = 0; w < v->dim[3]; w++, i++) {
					o = v->voff + (n * v->dim[1] + c) * plane +
					    h * v->row + w;
					if (scatter)
						p[o] = val[id][i];
					else
						val[id][i] = p[o];
				}
}

/* ------------------------------------------------------------ API */

int ane_net_reference(struct ane_net *net, const float *const *inputs,
		      float *const *outputs)
{
	float **val;
	double *e = NULL;
	size_t i, max_c = 1;
	int ret = 0;

	if (!net)
		return -EINVAL;
	if (net->failed) {
		snprintf(net->err, sizeof(net->err), "ane_net_reference: the net is incomplete because a call failed; the first failure: %s",
			 net->first_err);
		return -EINVAL;
	}
	if (!net->n_ops || !net->n_outputs) {
		snprintf(net->err, sizeof(net->err), "ane_net_reference: the net has no %s",
			 net->n_ops ? "outputs: mark one with ane_net_output()" :
			 "operations");
		return -EINVAL;
	}
	if (net->n_inputs && !inputs) {
		snprintf(net->err, sizeof(net->err), "ane_net_reference: inputs is NULL, but the net has %u inputs",
			 net->n_inputs);
		return -EINVAL;
	}
	if (!outputs) {
		snprintf(net->err, sizeof(net->err), "ane_net_reference: outputs is NULL, but the net has %u outputs",
			 net->n_outputs);
		return -EINVAL;
	}
	for (i = 0; i < net->n_inputs + net->n_outputs; i++) {
		int in = i < net->n_inputs;
		unsigned int k = in ? (unsigned int)i : (unsigned int)(i - net->n_inputs);
		const struct ane__tensor *t = &net->t[in ? net->inputs[k] : net->outputs[k]];

		if (in ? !inputs[k] : !outputs[k]) {
			snprintf(net->err, sizeof(net->err),
				 "ane_net_reference: %s[%u] is NULL (%s '%s', %ux%ux%ux%u)",
				 in ? "inputs" : "outputs", k, in ? "input" : "output",
				 t->name, t->dim[0], t->dim[1], t->dim[2], t->dim[3]);
			return -EINVAL;
		}
	}

	val = calloc(net->n_t, sizeof(*val));
	if (!val)
		goto nomem;
	for (i = 0; i < net->n_t; i++) {
		const struct ane__tensor *t = &net->t[i];
		uint64_t n = ane__elems(t->dim);

		val[i] = calloc(n, sizeof(float));
		if (!val[i])
			goto nomem;
		if (t->kind == ANE__T_INPUT) {
			uint64_t k;

			for (k = 0; k < n; k++)	/* the surface holds fp16 or int16 */
				val[i][k] = t->is_index ?
					(float)(int16_t)ane_index_from_float(inputs[t->index][k]) :
					ane_float_from_fp16(ane_fp16_from_float(inputs[t->index][k]));
		} else if (t->kind == ANE__T_CONST) {
			ane_float_from_fp16_array(val[i], t->data, n);
		}
		if (t->dim[1] > max_c)
			max_c = t->dim[1];
		if (t->dim[3] > max_c)		/* ANE__OP_NORM's rows */
			max_c = t->dim[3];
	}
	e = malloc(max_c * sizeof(*e));
	if (!e)
		goto nomem;

	for (i = 0; i < net->n_ops; i++) {
		const struct ane__op *op = &net->ops[i];
		unsigned int k;

		for (k = 0; k < 3 && op->op != ANE__OP_COPY; k++) {
			int id = k < 2 ? op->src[k] : op->bias;

			if (id >= 0 && net->t[id].kind == ANE__T_VIEW)
				move_view(net->t, id, val, 0);
		}
		switch (op->op) {
		case ANE__OP_COPY:
			/* on the storage itself, in place */
			ane__ref_copy(op, net->t, val);
			break;
		case ANE__OP_CONV:
			run_conv(op, net->t, val);
			break;
		case ANE__OP_MATMUL:
			run_matmul(op, net->t, val);
			break;
		case ANE__OP_ELTWISE:
			run_eltwise(op, net->t, val);
			break;
		case ANE__OP_POOL:
			run_pool(op, net->t, val);
			break;
		case ANE__OP_SOFTMAX:
			run_softmax(op, net->t, val, e);
			break;
		case ANE__OP_NORM:
			run_norm(op, net->t, val, e);
			break;
		case ANE__OP_REDUCE:
			run_reduce(op, net->t, val);
			break;
		case ANE__OP_GATHER:
			ane__ref_gather(op, net->t, val);
			break;
		default:
			run_unary(op, net->t, val);
			break;
		}
		if (net->t[op->dst].kind == ANE__T_VIEW && op->op != ANE__OP_COPY)
			move_view(net->t, op->dst, val, 1);
	}
	for (i = 0; i < net->n_outputs; i++) {
		int id = net->outputs[i];

		if (net->t[id].kind == ANE__T_VIEW)	/* a reshape of a result */
			move_view(net->t, id, val, 0);
		memcpy(outputs[i], val[id], ane__elems(net->t[id].dim) * sizeof(float));
	}
	net->err[0] = '\0';
	goto out;

nomem:
	snprintf(net->err, sizeof(net->err), "ane_net_reference: out of memory");
	ret = -ENOMEM;
out:
	if (val)
		for (i = 0; i < net->n_t; i++)
			free(val[i]);
	free(val);
	free(e);
	return ret;
}
