// SPDX-License-Identifier: GPL-2.0-only
/*
 * The strided copy (ANE_OP_COPY): a view of one buffer, its strides
 * signed, into a view of another, element by element with the fp16 bits
 * unchanged -- transposes, slices with any step (backwards too),
 * broadcasts and fills from one element, writes into a region of a larger
 * tensor (a concatenation, the inside of a padding).  No arithmetic on the
 * values, so no floating point: built as ane_math_plan.c is, and the same
 * bits on every instruction set by construction.
 *
 * Each work unit of the ROWS plan is a segment of a destination row
 * (n, c, h): contiguous runs on both sides are one __builtin_memcpy, a
 * broadcast run one value stored again and again, anything else a loop.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_math_impl.h"

/* @len elements from @x at stride @xs (signed, 0: one value) to @y at @ys. */
static void ane_copy_run(const uint16_t *x, int64_t xs, uint16_t *y,
			 uint64_t ys, uint32_t len)
{
	uint32_t i;

	if (xs == 1 && ys == 1) {
		__builtin_memcpy(y, x, (size_t)len * 2);
		return;
	}
	if (!xs) {
		uint16_t v = x[0];

		for (i = 0; i < len; i++)
			y[(uint64_t)i * ys] = v;
		return;
	}
	for (i = 0; i < len; i++)
		y[(uint64_t)i * ys] = x[(int64_t)i * xs];
}

void ane_run_copy(const struct ane_op_desc *d, const struct ane_plan *p,
		  uint64_t chunk)
{
	const struct ane_tensor *x = &d->src[0], *y = &d->dst;
	const int64_t *xs = (const int64_t *)x->stride;
	uint64_t u = chunk * p->rows_per_chunk;
	uint64_t end = u + p->rows_per_chunk < p->rows ? u + p->rows_per_chunk :
		       p->rows;

	for (; u < end; u++) {
		uint64_t row = u / p->nseg;
		uint32_t o0 = (uint32_t)(u % p->nseg) * p->seg_w;
		uint32_t o1 = o0 + p->seg_w < p->width ? o0 + p->seg_w : p->width;
		int64_t h = (int64_t)(row % y->dim[ANE_H]);
		int64_t t = (int64_t)(row / y->dim[ANE_H]);
		int64_t c = t % y->dim[ANE_C], n = t / y->dim[ANE_C];
		/* validated: every index is inside its buffer */
		int64_t xi = (int64_t)d->p.copy.src_offset + n * xs[ANE_N] +
			     c * xs[ANE_C] + h * xs[ANE_H] + o0 * xs[ANE_W];
		uint64_t yi = d->p.copy.dst_offset + n * y->stride[ANE_N] +
			      c * y->stride[ANE_C] + h * y->stride[ANE_H] +
			      o0 * y->stride[ANE_W];

		ane_copy_run((const uint16_t *)x->base + xi, xs[ANE_W],
			     (uint16_t *)y->base + yi, y->stride[ANE_W], o1 - o0);
	}
}
