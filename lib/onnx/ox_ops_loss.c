// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the losses -- NegativeLogLikelihoodLoss and
 * SoftmaxCrossEntropyLoss (its log_prob output too), with class weights,
 * ignore_index and the none/sum/mean reductions.  Sums in double.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

enum { RED_NONE, RED_SUM, RED_MEAN };

static int loss_reduction(struct ox_ctx *c, const struct ox_node *n, int *red)
{
	static const char *const reds[] = { "none", "sum", "mean", NULL };
	const char *s;
	int64_t ii;
	int err = ane__ox_a_str(c, n, "reduction", "mean", reds, &s) ?:
		  ane__ox_a_int(c, n, "ignore_index", 0, INT64_MIN, INT64_MAX, &ii);

	*red = !strcmp(s, "none") ? RED_NONE : !strcmp(s, "sum") ? RED_SUM : RED_MEAN;
	return err;
}

/* input/scores [N, C, d...], target [N, d...], weight [C]. */
static int infer_loss(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *t = ane__ox_in(c, n, 1);
	struct ox_tensor *w = ane__ox_in(c, n, 2);
	int sce = !strcmp(n->op_type, "SoftmaxCrossEntropyLoss"), red, k;
	int64_t dims[OX_MAX_RANK];
	int err = ane__ox_n_in(c, n, 2, 3) ?:
		  ane__ox_chk_in(c, n, 0, sce ? "scores" : "input", OXM_FLOAT, 2,
				 OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, sce ? "labels" : "target", OXM_I32_64,
				 x->rank - 1, x->rank - 1) ?:
		  loss_reduction(c, n, &red);

	if (!err && w)
		err = ane__ox_chk_in(c, n, 2, "weight", OXM_FLOAT, 1, 1) ?:
		      ane__ox_same_dtype(c, n, 2, 0);
	if (!err && w && w->dims[0] != x->dims[1])
		err = ane__ox_fail(c, n, EINVAL, "input 2 (weight) has %lld values for %lld classes",
				   (long long)w->dims[0], (long long)x->dims[1]);
	for (k = 0; !err && k < t->rank; k++)
		if (t->dims[k] != x->dims[k ? k + 1 : 0])
			err = ane__ox_fail(c, n, EINVAL,
					   "input 1's dims[%d] is %lld; it must be the input's dims[%d]",
					   k, (long long)t->dims[k], k ? k + 1 : 0);
	if (!err && n->n_out > 1 + sce)
		err = ane__ox_fail(c, n, EINVAL, "%d outputs", n->n_out);
	if (err)
		return err;
	memcpy(dims, t->dims, sizeof(dims));
	return ane__ox_set_out(c, n, 0, x->dtype, red == RED_NONE ? t->rank : 0, dims) ?:
	       (sce ? ane__ox_set_out(c, n, 1, x->dtype, x->rank, x->dims) : 0);
}

/* The loss of log-probabilities @lp ([N, C, inner]) into @out. */
static int nll(struct ox_ctx *c, const struct ox_node *n, const double *lp,
	       const struct ox_value *x, const struct ox_value *t,
	       const struct ox_value *w, struct ox_value *out)
{
	const struct ox_attr *ia = ane__ox_attr(n, "ignore_index");
	int64_t C = x->dims[1], inner = ane__ox_prod(x->dims, 2, x->rank);
	int64_t ii = ia ? ia->i : 0, i;
	double sum = 0, wsum = 0;
	int red = RED_MEAN;

	loss_reduction(c, n, &red);
	for (i = 0; i < (int64_t)t->count; i++) {
		int64_t cls = ane__ox_get_i(t, (size_t)i), b = i / inner, e = i % inner;
		double l = 0, wt = 0;

		if (ia && cls == ii) {
			l = 0;
		} else if (cls < 0 || cls >= C) {
			return ane__ox_fail(c, n, EINVAL,
					    "target[%lld] is %lld, outside [0, %lld)",
					    (long long)i, (long long)cls, (long long)C);
		} else {
			wt = w ? ane__ox_get_f(w, (size_t)cls) : 1.0;
			l = -lp[(b * C + cls) * inner + e] * wt;
		}
		if (red == RED_NONE)
			ane__ox_set_f(out, (size_t)i, l);
		sum += l;
		wsum += wt;
	}
	if (red != RED_NONE)
		ane__ox_set_f(out, 0, red == RED_SUM ? sum : sum / wsum);
	return 0;
}

static int run_loss(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	const struct ox_value *x = in[0], *w = n->n_in > 2 ? in[2] : NULL;
	int64_t C = x->dims[1], inner = ane__ox_prod(x->dims, 2, x->rank), b, e;
	double *lp = ane__ox_load_f(x);
	int err;

	if (!lp)
		return ane__ox_nomem(c, n);
	if (!strcmp(n->op_type, "SoftmaxCrossEntropyLoss")) {
		for (b = 0; b < x->dims[0]; b++)
			for (e = 0; e < inner; e++)
				ane__ox_softmax(lp + b * C * inner + e, C, inner, 1);
		if (n->n_out > 1 && out[1])
			ane__ox_store_f(out[1], lp);
	}
	err = nll(c, n, lp, x, in[1], w, out[0]);
	free(lp);
	return err;
}

static const struct ox_op ops[] = {
	{ "NegativeLogLikelihoodLoss", infer_loss, run_loss },
	{ "SoftmaxCrossEntropyLoss", infer_loss, run_loss },
};

OX_TABLE(ane__ox_ops_loss, ops);
