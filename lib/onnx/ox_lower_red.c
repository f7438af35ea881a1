// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the Reduce* ops on the engine's REDUCE task.
 * The input's axes fold into at most four runs, each all reduced or all
 * kept, which are the engine's N, C, H and W; the task reduces the runs
 * marked in its axis mask.  ReduceSum and ReduceMean over one block of
 * consecutive axes stay the matrix product by ones (ox_lower.c), which
 * the engine runs at its GEMM's speed.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"
#include "ox_ops.h"

/* The engine's largest extent of one dimension. */
#define RED_MAX_DIM	(1u << 24)

static const struct {
	const char *op;
	enum ane_net_reduce_kind kind;
} kinds[] = {
	{ "ReduceSum", ANE_NET_REDUCE_SUM }, { "ReduceMean", ANE_NET_REDUCE_MEAN },
	{ "ReduceMax", ANE_NET_REDUCE_MAX }, { "ReduceMin", ANE_NET_REDUCE_MIN },
	{ "ReduceProd", ANE_NET_REDUCE_PROD },
	{ "ReduceSumSquare", ANE_NET_REDUCE_SUM_SQUARE },
	{ "ReduceL1", ANE_NET_REDUCE_L1 }, { "ReduceL2", ANE_NET_REDUCE_L2 },
	{ "ReduceLogSum", ANE_NET_REDUCE_LOG_SUM },
	{ "ReduceLogSumExp", ANE_NET_REDUCE_LOG_SUM_EXP },
};

/*
 * The reduced axes of @n: @on[k] for each axis k of the input.  1 when
 * the node reduces nothing (noop_with_empty_axes and no axes).
 */
int ane__ox_reduce_axes(struct lower *L, const struct ox_node *n,
			unsigned char *on)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	int64_t ax[OX_MAX_RANK];
	const struct ox_attr *at;
	int na = 0, i;

	memset(on, 0, OX_MAX_RANK);
	if ((!strcmp(n->op_type, "ReduceSum") && L->c->g->opset >= 13) ||
	    L->c->g->opset >= 18) {
		const struct ox_tensor *t = n->n_in > 1 ? ane__ox_in(L->c, n, 1) : NULL;

		if (t && !t->konst)
			return ane__ox_why(L, "input 1 '%s' (axes) must be a constant: the engine's axes are",
					   t->name);
		for (i = 0; t && i < (int)t->konst->count && na < OX_MAX_RANK; i++)
			ax[na++] = ane__ox_get_i(t->konst, (size_t)i);
		if (!na && ane__ox_attr_i(n, "noop_with_empty_axes", 0))
			return 1;
	} else if ((at = ane__ox_attr(n, "axes"))) {
		for (i = 0; i < (int)at->n && na < OX_MAX_RANK; i++)
			ax[na++] = at->ints[i];
	}
	if (!na)
		for (i = 0; i < x->rank; i++)
			ax[na++] = i;
	for (i = 0; i < na; i++) {
		int64_t k = ax[i] < 0 ? ax[i] + x->rank : ax[i];

		if (k < 0 || k >= x->rank)
			return ane__ox_why(L, "axis %lld", (long long)ax[i]);
		on[k] = 1;
	}
	return 0;
}

/*
 * @x viewed as the engine's 4-D tensor @v4 for a reduction over the axes
 * @on marks: consecutive axes alike fold into one dimension (W last),
 * @axes the mask of the reduced ones.  Refused past four runs.
 */
int ane__ox_reduce_view(struct lower *L, const struct ox_tensor *x,
			const unsigned char *on, uint32_t v4[4], uint32_t *axes)
{
	uint32_t r[OX_MAX_RANK];
	int red[OX_MAX_RANK], i, nr = 0, prev = -1;
	int64_t run = 1;

	v4[0] = v4[1] = v4[2] = v4[3] = 1;
	*axes = 0;
	for (i = 0; i < x->rank; i++) {
		if (prev >= 0 && on[i] != prev) {
			r[nr] = (uint32_t)run;
			red[nr++] = prev;
			run = 1;
		}
		if (x->dims[i] > (int64_t)RED_MAX_DIM / run)
			return ane__ox_why(L, "a run of axes of more than %u elements",
					   RED_MAX_DIM);
		run *= x->dims[i];
		prev = on[i];
	}
	if (prev >= 0) {
		r[nr] = (uint32_t)run;
		red[nr++] = prev;
	}
	if (nr > 4)
		return ane__ox_why(L, "%d alternating runs of reduced and kept axes; the engine's tensors have 4",
				   nr);
	for (i = 0; i < nr; i++) {
		v4[4 - nr + i] = r[i];
		if (red[i])
			*axes |= 1u << (4 - nr + i);
	}
	return 0;
}

int ane__ox_lw_reduce_any(struct lower *L, const struct ox_node *n)
{
	const struct ox_tensor *x = ane__ox_in(L->c, n, 0);
	unsigned char on[OX_MAX_RANK];
	uint32_t v4[4], axes;
	int err, i, kind = -1, id;

	for (i = 0; i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++)
		if (!strcmp(kinds[i].op, n->op_type))
			kind = (int)kinds[i].kind;
	err = ane__ox_check_float(L, n, 0);
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (kind < 0)
		return ane__ox_why(L, "the engine has no %s", n->op_type);
	err = ane__ox_reduce_axes(L, n, on);
	if (err < 0)
		return err;
	if (err == 1) {		/* nothing reduced: the input itself */
		if (L->dry)
			return 0;
		return ane__ox_done(L, n, ane_net_activation(ox_net(L),
							     ane__ox_get(L, n->in[0], NULL),
							     ANE_NET_ACT_NONE));
	}
	err = ane__ox_reduce_view(L, x, on, v4, &axes);
	if (err)
		return err;
	if (L->dry)
		return 0;
	id = ane_net_reduce(ox_net(L), ane__ox_get(L, n->in[0], v4),
			    (enum ane_net_reduce_kind)kind, axes,
			    (enum ane_net_act)ane__ox_fuse_act(L, n));
	return ane__ox_done(L, n, id);
}
