// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: linear algebra -- MatMul (batched, numpy
 * broadcasting), Gemm, MatMulInteger, QLinearMatMul, Einsum and Det.
 * Dot products accumulate in double.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

/* ------------------------------------------------------------ MatMul */

/*
 * The output shape of A @ B (numpy: a 1-D A is a row, a 1-D B a column,
 * dropped from the result; the batch dims broadcast).
 */
static int mm_shape(struct ox_ctx *c, const struct ox_node *n, int ai, int bi,
		    int *rank, int64_t *dims)
{
	struct ox_tensor *a = ane__ox_in(c, n, ai), *b = ane__ox_in(c, n, bi);
	int64_t ad[OX_MAX_RANK], bd[OX_MAX_RANK];
	int ar = a->rank, br = b->rank, err;

	memcpy(ad, a->dims, sizeof(ad));
	memcpy(bd, b->dims, sizeof(bd));
	if (ar == 1) {
		ad[1] = ad[0];
		ad[0] = 1;
		ar = 2;
	}
	if (br == 1) {
		bd[1] = 1;
		br = 2;
	}
	if (ad[ar - 1] != bd[br - 2])
		return ane__ox_fail(c, n, EINVAL,
				    "inputs %d and %d do not multiply: %lld columns against %lld rows",
				    ai, bi, (long long)ad[ar - 1], (long long)bd[br - 2]);
	err = ane__ox_bcast(c, n, ar - 2, ad, br - 2, bd, rank, dims);
	if (err)
		return err;
	if (a->rank > 1)
		dims[(*rank)++] = ad[ar - 2];
	if (b->rank > 1)
		dims[(*rank)++] = bd[br - 1];
	return 0;
}

/* @y = @a @ @b for values @av, @bv (doubles loaded), output @yv. */
static void mm_run(const struct ox_value *av, const struct ox_value *bv,
		   const double *a, const double *b, double *y,
		   const struct ox_value *yv)
{
	int64_t M = av->rank > 1 ? av->dims[av->rank - 2] : 1;
	int64_t K = av->dims[av->rank - 1];
	int64_t N = bv->rank > 1 ? bv->dims[bv->rank - 1] : 1, i, j, k;
	int ab = av->rank > 2 ? av->rank - 2 : 0, bb = bv->rank > 2 ? bv->rank - 2 : 0;
	int r = ab > bb ? ab : bb, d;
	int64_t bdims[OX_MAX_RANK], as[OX_MAX_RANK], bs[OX_MAX_RANK];
	size_t nb = M && N ? yv->count / (size_t)(M * N) : 0, t;
	struct ox_it it;

	for (d = 0; d < r; d++) {
		int64_t x = d < r - ab ? 1 : av->dims[d - (r - ab)];
		int64_t z = d < r - bb ? 1 : bv->dims[d - (r - bb)];

		bdims[d] = x == 1 ? z : x;
	}
	ane__ox_strides(ab, av->dims, as);
	ane__ox_strides(bb, bv->dims, bs);
	ane__ox_it_init(&it, r, bdims);
	{
		struct ox_value va = { .rank = ab }, vb = { .rank = bb };

		memcpy(va.dims, av->dims, sizeof(int64_t) * (size_t)ab);
		memcpy(vb.dims, bv->dims, sizeof(int64_t) * (size_t)bb);
		ane__ox_it_add(&it, &va);
		ane__ox_it_add(&it, &vb);
	}
	for (t = 0; t < nb; t++, ane__ox_it_next(&it)) {
		const double *pa = a + it.off[0] * (size_t)(M * K);
		const double *pb = b + it.off[1] * (size_t)(K * N);
		double *py = y + t * (size_t)(M * N);

		for (i = 0; i < M; i++)
			for (j = 0; j < N; j++) {
				double s = 0;

				for (k = 0; k < K; k++)
					s += pa[i * K + k] * pb[k * N + j];
				py[i * N + j] = s;
			}
	}
}

static int infer_matmul(struct ox_ctx *c, const struct ox_node *n)
{
	int64_t dims[OX_MAX_RANK];
	int rank, err = ane__ox_n_in(c, n, 2, 2) ?:
		  ane__ox_chk_in(c, n, 0, "A", OXM_NUM, 1, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, "B", OXM_NUM, 1, OX_MAX_RANK) ?:
		  ane__ox_same_dtype(c, n, 1, 0) ?:
		  mm_shape(c, n, 0, 1, &rank, dims);

	return err ? err : ane__ox_set_out(c, n, 0, ane__ox_in(c, n, 0)->dtype, rank, dims);
}

/* Loads @v less its zero point @zp: per row (@per_row, A) or column (B). */
static double *load_zp(const struct ox_value *v, const struct ox_value *zp,
		       int per_row)
{
	double *x = ane__ox_load_f(v);
	int64_t cols = v->dims[v->rank - 1], rows = v->rank > 1 ? v->dims[v->rank - 2] : 1;
	size_t i;

	for (i = 0; x && zp && zp->count && i < v->count; i++) {
		size_t k = zp->count == 1 ? 0 : per_row ? (i / (size_t)cols) % (size_t)rows :
			   i % (size_t)cols;

		x[i] -= ane__ox_get_f(zp, k < zp->count ? k : 0);
	}
	return x;
}

static int run_matmul(struct ox_ctx *c, const struct ox_node *n,
		      const struct ox_value *const *in,
		      struct ox_value *const *out)
{
	int ql = !strcmp(n->op_type, "QLinearMatMul");
	int integer = !strcmp(n->op_type, "MatMulInteger");
	const struct ox_value *A = in[0], *B = in[ql ? 3 : 1];
	const struct ox_value *az = ql ? in[2] : integer && n->n_in > 2 ? in[2] : NULL;
	const struct ox_value *bz = ql ? in[5] : integer && n->n_in > 3 ? in[3] : NULL;
	double *a = load_zp(A, az, 1), *b = load_zp(B, bz, 0);
	double *y = malloc(sizeof(double) * (out[0]->count + 1));
	size_t i;
	int err = 0;

	if (!a || !b || !y) {
		err = ane__ox_nomem(c, n);
		goto out;
	}
	mm_run(A, B, a, b, y, out[0]);
	for (i = 0; ql && i < out[0]->count; i++) {
		double s = ane__ox_get_f(in[1], 0) * ane__ox_get_f(in[4], 0) /
			   ane__ox_get_f(in[6], 0);

		ane__ox_set_i(out[0], i, ane__ox_quant(y[i] * s, ane__ox_get_i(in[7], 0),
						       out[0]->dtype));
	}
	if (!ql)
		ane__ox_store_f(out[0], y);
out:
	free(a);
	free(b);
	free(y);
	return err;
}

static int chk_zp(struct ox_ctx *c, const struct ox_node *n, int i, int like)
{
	if (!ane__ox_in(c, n, i))
		return 0;
	return ane__ox_chk_in(c, n, i, "zero_point", OXM(OX_UINT8) | OXM(OX_INT8), 0, 1) ?:
	       ane__ox_same_dtype(c, n, i, like);
}

static int infer_mmint(struct ox_ctx *c, const struct ox_node *n)
{
	unsigned int q8 = OXM(OX_UINT8) | OXM(OX_INT8);
	int64_t dims[OX_MAX_RANK];
	int rank, err = ane__ox_n_in(c, n, 2, 4) ?:
		  ane__ox_chk_in(c, n, 0, "A", q8, 1, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 1, "B", q8, 1, OX_MAX_RANK) ?:
		  chk_zp(c, n, 2, 0) ?: chk_zp(c, n, 3, 1) ?:
		  mm_shape(c, n, 0, 1, &rank, dims);

	return err ? err : ane__ox_set_out(c, n, 0, OX_INT32, rank, dims);
}

static int infer_qlmm(struct ox_ctx *c, const struct ox_node *n)
{
	unsigned int q8 = OXM(OX_UINT8) | OXM(OX_INT8);
	int64_t dims[OX_MAX_RANK];
	int rank, i, err = ane__ox_n_in(c, n, 8, 8) ?:
		  ane__ox_chk_in(c, n, 0, "a", q8, 1, OX_MAX_RANK) ?:
		  ane__ox_chk_in(c, n, 3, "b", q8, 1, OX_MAX_RANK) ?:
		  chk_zp(c, n, 2, 0) ?: chk_zp(c, n, 5, 3) ?:
		  ane__ox_chk_in(c, n, 7, "y_zero_point", q8, 0, 1) ?:
		  mm_shape(c, n, 0, 3, &rank, dims);

	for (i = 1; !err && i < 7; i += 3)
		err = ane__ox_chk_in(c, n, i, "scale", OXM(OX_FLOAT), 0, 1);
	return err ? err : ane__ox_set_out(c, n, 0, ane__ox_in(c, n, 7)->dtype, rank, dims);
}

/* ------------------------------------------------------------ Gemm */

static int infer_gemm(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *a = ane__ox_in(c, n, 0), *b = ane__ox_in(c, n, 1);
	struct ox_tensor *cc = ane__ox_in(c, n, 2);
	int64_t ta, tb, bc, dims[2], k1, k2;
	float f;
	int rank, err = ane__ox_n_in(c, n, OX_OPSET(c) >= 11 ? 2 : 3, 3) ?:
		  ane__ox_chk_in(c, n, 0, "A", OXM_NUM, 2, 2) ?:
		  ane__ox_chk_in(c, n, 1, "B", OXM_NUM, 2, 2) ?:
		  ane__ox_same_dtype(c, n, 1, 0) ?:
		  ane__ox_a_int(c, n, "transA", 0, 0, 1, &ta) ?:
		  ane__ox_a_int(c, n, "transB", 0, 0, 1, &tb) ?:
		  ane__ox_a_int(c, n, "broadcast", 0, 0, 1, &bc) ?:
		  ane__ox_a_float(c, n, "alpha", 1.0f, &f) ?:
		  ane__ox_a_float(c, n, "beta", 1.0f, &f);

	if (err)
		return err;
	dims[0] = a->dims[ta];
	k1 = a->dims[1 - ta];
	k2 = b->dims[tb];
	dims[1] = b->dims[1 - tb];
	if (k1 != k2)
		return ane__ox_fail(c, n, EINVAL, "A has %lld columns, B %lld rows",
				    (long long)k1, (long long)k2);
	if (cc) {
		int64_t bd[2];

		err = ane__ox_chk_in(c, n, 2, "C", OXM_NUM, 0, 2) ?:
		      ane__ox_same_dtype(c, n, 2, 0) ?:
		      ane__ox_bcast(c, n, 2, dims, cc->rank, cc->dims, &rank, bd);
		if (!err && (bd[0] != dims[0] || bd[1] != dims[1]))
			err = ane__ox_fail(c, n, EINVAL, "input C does not broadcast to [M, N]");
		if (!err && OX_OPSET(c) < 7 && !bc &&
		    (cc->rank != 2 || cc->dims[0] != dims[0] || cc->dims[1] != dims[1]))
			err = ane__ox_fail(c, n, EINVAL,
					   "input C is not [M, N] and attribute 'broadcast' is 0");
	}
	return err ? err : ane__ox_set_out(c, n, 0, a->dtype, 2, dims);
}

static int run_gemm(struct ox_ctx *c, const struct ox_node *n,
		    const struct ox_value *const *in, struct ox_value *const *out)
{
	int ta = (int)ane__ox_attr_i(n, "transA", 0), tb = (int)ane__ox_attr_i(n, "transB", 0);
	double alpha = ane__ox_attr_f(n, "alpha", 1.0f), beta = ane__ox_attr_f(n, "beta", 1.0f);
	int64_t M = out[0]->dims[0], N = out[0]->dims[1], K = in[0]->dims[ta ? 0 : 1];
	double *a = ane__ox_load_f(in[0]), *b = ane__ox_load_f(in[1]);
	const struct ox_value *cv = n->n_in > 2 ? in[2] : NULL;
	struct ox_it it;
	int64_t i, j, k;

	if (!a || !b) {
		free(a);
		free(b);
		return ane__ox_nomem(c, n);
	}
	ane__ox_it_init(&it, 2, out[0]->dims);
	if (cv)
		ane__ox_it_add(&it, cv);
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++, ane__ox_it_next(&it)) {
			double s = 0;

			for (k = 0; k < K; k++)
				s += a[ta ? k * M + i : i * K + k] * b[tb ? j * K + k : k * N + j];
			s *= alpha;
			if (cv)
				s += beta * ane__ox_get_f(cv, it.off[0]);
			ane__ox_set_f(out[0], (size_t)(i * N + j), s);
		}
	free(a);
	free(b);
	return 0;
}

/* ------------------------------------------------------------ Det */

static int infer_det(struct ox_ctx *c, const struct ox_node *n)
{
	struct ox_tensor *x = ane__ox_in(c, n, 0);
	int err = ane__ox_n_in(c, n, 1, 1) ?:
		  ane__ox_chk_in(c, n, 0, "X", OXM_FLOAT, 2, OX_MAX_RANK);

	if (!err && x->dims[x->rank - 1] != x->dims[x->rank - 2])
		err = ane__ox_fail(c, n, EINVAL, "input X's matrices are not square");
	return err ? err : ane__ox_set_out(c, n, 0, x->dtype, x->rank - 2, x->dims);
}

/* The determinant of the @m x @m matrix @a (destroyed): LU, partial pivoting. */
static double det(double *a, int64_t m)
{
	double d = 1;
	int64_t i, j, k, p;

	for (i = 0; i < m; i++) {
		for (p = i, j = i + 1; j < m; j++)
			p = fabs(a[j * m + i]) > fabs(a[p * m + i]) ? j : p;
		if (a[p * m + i] == 0)
			return 0;
		if (p != i) {
			for (k = 0; k < m; k++) {
				double t = a[i * m + k];

				a[i * m + k] = a[p * m + k];
				a[p * m + k] = t;
			}
			d = -d;
		}
		d *= a[i * m + i];
		for (j = i + 1; j < m; j++) {
			double f = a[j * m + i] / a[i * m + i];

			for (k = i; k < m; k++)
				a[j * m + k] -= f * a[i * m + k];
		}
	}
	return d;
}

static int run_det(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out)
{
	int64_t m = in[0]->dims[in[0]->rank - 1];
	double *a = ane__ox_load_f(in[0]);
	size_t i;

	if (!a)
		return ane__ox_nomem(c, n);
	for (i = 0; i < out[0]->count; i++)
		ane__ox_set_f(out[0], i, det(a + i * (size_t)(m * m), m));
	free(a);
	return 0;
}

static const struct ox_op ops[] = {
	{ "MatMul", infer_matmul, run_matmul },
	{ "MatMulInteger", infer_mmint, run_matmul },
	{ "QLinearMatMul", infer_qlmm, run_matmul },
	{ "Gemm", infer_gemm, run_gemm },
	{ "Det", infer_det, run_det },
};

OX_TABLE(ane__ox_ops_linalg, ops);
