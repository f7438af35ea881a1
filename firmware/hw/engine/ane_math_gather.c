// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gather (ANE_OP_GATHER): rows of a table picked by indices computed
 * at run time -- an embedding lookup, or ONNX's Gather along any axis
 * once reshaped so that the axis is H.  src[0] is the table [N, C, H, W],
 * src[1] the indices [1, 1, 1, K], each of its 2-byte elements an int16
 * (two's complement, not an fp16), dst [N, C, K, W]:
 *
 *	dst[n][c][k][w] = src[0][n][c][i][w], i = idx[k] < 0 ? idx[k] + H : idx[k]
 *
 * An index outside [-H, H) reads nothing and writes a row of the quiet
 * NaN (ANE_GATHER_NAN); ane_op_gather_oob() counts such indices.  The
 * table's fp16 bits are moved unchanged, so, like the strided copy, this
 * is integer code (built as ane_math_plan.c is) and the same bits on
 * every instruction set by construction.
 *
 * Each work unit of the ROWS plan is a segment of a dst row (n, c, k): one
 * __builtin_memcpy when both W strides are 1, a loop otherwise.  A chunk
 * walks its units with counters, dividing only once.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_impl.h"

/*
 * Index @k of @d's indices, counted from the start: 0 .. H - 1, or -1
 * when it is out of range.
 */
static int64_t ane_gather_row(const struct ane_op_desc *d, uint64_t k)
{
	const struct ane_tensor *ix = &d->src[1];
	int64_t h = d->src[0].dim[ANE_H];
	int64_t i = (int16_t)((const uint16_t *)ix->base)[k * ix->stride[ANE_W]];

	if (i < 0)
		i += h;
	return i >= 0 && i < h ? i : -1;
}

uint64_t ane_op_gather_oob(const struct ane_op_desc *d)
{
	uint64_t k, n = 0;

	if (d->op != ANE_OP_GATHER)
		return 0;
	for (k = 0; k < d->src[1].dim[ANE_W]; k++)
		n += ane_gather_row(d, k) < 0;
	return n;
}

/* @len elements from @x at stride @xs to @y at stride @ys, or NaNs (@x NULL). */
static void ane_gather_run(const uint16_t *x, uint64_t xs, uint16_t *y,
			   uint64_t ys, uint32_t len)
{
	uint32_t i;

	if (!x) {
		for (i = 0; i < len; i++)
			y[(uint64_t)i * ys] = ANE_GATHER_NAN;
		return;
	}
	if (xs == 1 && ys == 1) {
		__builtin_memcpy(y, x, (size_t)len * 2);
		return;
	}
	for (i = 0; i < len; i++)
		y[(uint64_t)i * ys] = x[(uint64_t)i * xs];
}

void ane_run_gather(const struct ane_op_desc *d, const struct ane_plan *p,
		    uint64_t chunk)
{
	const struct ane_tensor *x = &d->src[0], *y = &d->dst;
	const uint32_t K = y->dim[ANE_H], C = y->dim[ANE_C];
	uint64_t u = chunk * p->rows_per_chunk;
	uint64_t end = u + p->rows_per_chunk < p->rows ? u + p->rows_per_chunk :
		       p->rows;
	uint64_t row = u / p->nseg, t = row / K, n = t / C;
	uint32_t s = (uint32_t)(u % p->nseg), k = (uint32_t)(row % K);
	uint32_t c = (uint32_t)(t % C);
	int64_t i = ane_gather_row(d, k);

	for (; u < end; u++) {
		uint32_t o0 = s * p->seg_w;
		uint32_t o1 = o0 + p->seg_w < p->width ? o0 + p->seg_w : p->width;
		const uint16_t *xr = NULL;
		uint16_t *yr = (uint16_t *)y->base + n * y->stride[ANE_N] +
			       c * y->stride[ANE_C] + k * y->stride[ANE_H] +
			       o0 * y->stride[ANE_W];

		/* validated: a row in range is inside the table's buffer */
		if (i >= 0)
			xr = (const uint16_t *)x->base + n * x->stride[ANE_N] +
			     c * x->stride[ANE_C] + (uint64_t)i * x->stride[ANE_H] +
			     o0 * x->stride[ANE_W];
		ane_gather_run(xr, x->stride[ANE_W], yr, y->stride[ANE_W], o1 - o0);
		if (++s < p->nseg)
			continue;
		s = 0;
		if (++k == K) {
			k = 0;
			if (++c == C) {
				c = 0;
				n++;
			}
		}
		if (u + 1 < end)
			i = ane_gather_row(d, k);
	}
}
