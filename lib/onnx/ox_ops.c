// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the table of ops the CPU runs -- each
 * ox_ops_*.c file's, looked up by op type -- and the ops that only pass
 * a tensor on.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

static int infer_identity(struct ox_ctx *c, const struct ox_node *n)
{
	int err = ane__ox_n_in(c, n, 1, 1);

	if (!err)
		err = ane__ox_chk_in(c, n, 0, "input", OXM_ALL, 0, OX_MAX_RANK);
	return err ? err : ane__ox_out_like(c, n, 0, 0);
}

static int run_identity(struct ox_ctx *c, const struct ox_node *n,
			const struct ox_value *const *in,
			struct ox_value *const *out)
{
	(void)c;
	(void)n;
	if (in[0]->count)
		memcpy(out[0]->data, in[0]->data,
		       in[0]->count * ane__ox_dtype_size(in[0]->dtype));
	return 0;
}

static const struct ox_op ops[] = {
	{ "Identity", infer_identity, run_identity },
};

static OX_TABLE(identity_ops, ops);

static const struct ox_op_table *const tables[] = {
	&identity_ops,
	&ane__ox_ops_unary,
	&ane__ox_ops_binary,
	&ane__ox_ops_shape,
	&ane__ox_ops_move,
	&ane__ox_ops_index,
	&ane__ox_ops_reduce,
	&ane__ox_ops_conv,
	&ane__ox_ops_pool,
	&ane__ox_ops_norm,
	&ane__ox_ops_loss,
	&ane__ox_ops_linalg,
	&ane__ox_ops_misc,
	&ane__ox_ops_resize,
};

const struct ox_op *ane__ox_find_op(const char *op_type)
{
	size_t t, i;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (i = 0; i < tables[t]->n; i++)
			if (!strcmp(tables[t]->ops[i].op_type, op_type))
				return &tables[t]->ops[i];
	return NULL;
}
