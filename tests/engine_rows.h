/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The row operations the engine's tests compare across instruction sets,
 * built the same way as userspace code (tests/host/math_test.c) and as
 * kernel code (tests/kunit/ane_engine_isa_kunit.c, under User-Mode Linux).
 * Include ane_math.h first.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_TEST_ENGINE_ROWS_H
#define ANE_TEST_ENGINE_ROWS_H

/* Operations of ane_test_row_desc(). */
#define ANE_TEST_ROW_OPS	4

/*
 * @d for operation @op on @n fp16 values @x (n a multiple of 128 and of
 * 74) into @y: 0, an exact GELU (ACT); 1, an ADD of the 64 per-column
 * values @bias, then GELU (ELTWISE, the MATMUL epilogue's loop); 2 and
 * 3, a softmax over W (NORM) of rows of 128, and of 37 rows 74 apart (the
 * vectors' remainders).  The workspace is the caller's.
 */
static inline void ane_test_row_desc(struct ane_op_desc *d, void *x, void *bias,
				     void *y, uint32_t n, unsigned int op)
{
	*d = (struct ane_op_desc){ 0 };
	d->op = op == 1 ? ANE_OP_ELTWISE : op ? ANE_OP_NORM : ANE_OP_ACT;
	d->act = op < 2 ? ANE_ACT_GELU : ANE_ACT_NONE;
	ane_tensor_dense(&d->src[0], x, 1, 1, n / 64, 64);
	if (op >= 2) {
		d->src[0].dim[ANE_W] = op == 3 ? 37 : 128;
		d->src[0].dim[ANE_H] = n / (op == 3 ? 74 : 128);
		d->src[0].stride[ANE_H] = op == 3 ? 74 : 128;
	}
	if (op == 1) {
		d->p.eltwise.op = ANE_ELT_ADD;
		ane_tensor_dense(&d->src[1], bias, 1, 1, 1, 64);
	}
	d->src[0].size = n * 2;
	d->dst = d->src[0];
	d->dst.base = y;
}

#endif /* ANE_TEST_ENGINE_ROWS_H */
