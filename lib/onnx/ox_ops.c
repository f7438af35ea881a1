// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the table of ops the CPU runs, and the ops
 * that only pass a tensor on.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ox.h"

/* Output 0 gets input 0's dtype and shape. */
static int infer_same(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0), *y = ane__ox_out(c, n, 0);

	if (!x)
		return ane__ox_fail(c, n, EINVAL, "input 0 is missing");
	if (!y)
		return ane__ox_fail(c, n, EINVAL, "output 0 is missing");
	y->dtype = x->dtype;
	y->rank = x->rank;
	memcpy(y->dims, x->dims, sizeof(y->dims));
	return 0;
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
	{ "Identity", infer_same, run_identity },
};

const struct ox_op *ane__ox_find_op(const char *op_type)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].op_type, op_type))
			return &ops[i];
	return NULL;
}
