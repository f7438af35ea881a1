// SPDX-License-Identifier: MIT
/*
 * libane: the reference executor's data movement.  A COPY moves values
 * between the storages of two tensors as its views say; the values are
 * fp16 already, so nothing rounds.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_internal.h"

void ane__ref_copy(const struct ane__op *op, const struct ane__tensor *t,
		   float *const *val)
{
	const float *x = val[ane__storage(t, op->src[0])];
	float *y = val[ane__storage(t, op->dst)];
	const int64_t *xs = op->vstride[0], *ys = op->vstride[1];
	uint64_t n, c, h, w;

	for (n = 0; n < op->vdim[0]; n++)
		for (c = 0; c < op->vdim[1]; c++)
			for (h = 0; h < op->vdim[2]; h++)
				for (w = 0; w < op->vdim[3]; w++) {
					int64_t xi = op->voff[0] + (int64_t)n * xs[0] +
						     (int64_t)c * xs[1] +
						     (int64_t)h * xs[2] + (int64_t)w * xs[3];
					int64_t yi = op->voff[1] + (int64_t)n * ys[0] +
						     (int64_t)c * ys[1] +
						     (int64_t)h * ys[2] + (int64_t)w * ys[3];

					y[yi] = x[xi];
				}
}
