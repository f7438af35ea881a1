// SPDX-License-Identifier: MIT
/*
 * libane: the reference executor's data movement.  A COPY moves values
 * between the storages of two tensors as its views say; the values are
 * fp16 already, so nothing rounds.  A GATHER moves rows of its table at
 * its indices, whole numbers that ane_net_reference() made int16.
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

/* dst[n][c][k][w] = x[n][c][i][w], i index k (+ H when negative); NaN rows */
void ane__ref_gather(const struct ane__op *op, const struct ane__tensor *t,
		     float *const *val)
{
	const uint32_t *xd = t[op->src[0]].dim;
	const float *x = val[op->src[0]], *ix = val[op->src[1]];
	float *y = val[op->dst];
	uint64_t K = t[op->src[1]].dim[3], W = xd[3], H = xd[2], nc, k, w;
	float nan = ane_float_from_fp16(0x7e00);

	for (nc = 0; nc < (uint64_t)xd[0] * xd[1]; nc++)
		for (k = 0; k < K; k++) {
			int64_t i = (int64_t)ix[k];
			float *yr = y + (nc * K + k) * W;

			if (i < 0)
				i += (int64_t)H;
			for (w = 0; w < W; w++)
				yr[w] = i >= 0 && (uint64_t)i < H ?
					x[(nc * H + (uint64_t)i) * W + w] : nan;
		}
}
