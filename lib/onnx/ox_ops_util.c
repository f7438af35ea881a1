// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: what the CPU kernels share (ox_ops.h) --
 * checks of inputs and attributes with messages that name the field,
 * broadcasting and the strided iterator.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ox_ops.h"

int ane__ox_nomem(struct ox_ctx *c, const struct ox_node *n)
{
	return ane__ox_fail(c, n, ENOMEM, "out of memory");
}

int ane__ox_n_in(struct ox_ctx *c, const struct ox_node *n, int lo, int hi)
{
	if (n->n_in < lo || n->n_in > hi)
		return ane__ox_fail(c, n, EINVAL,
				    "%d inputs; opset %lld takes %d to %d",
				    n->n_in, (long long)OX_OPSET(c), lo, hi);
	if (n->n_out < 1 || n->out[0] < 0)
		return ane__ox_fail(c, n, EINVAL, "output 0 is missing");
	return 0;
}

static void dtype_list(unsigned int mask, char *buf, size_t len)
{
	size_t used = 0;
	int dt;

	buf[0] = '\0';
	for (dt = 1; dt < OX_DTYPE_COUNT && used + 12 < len; dt++)
		if (mask & OXM(dt)) {
			size_t l = strlen(ane__ox_dtype_name(dt));

			if (used + l + 3 >= len)
				break;
			if (used)
				buf[used++] = ' ';
			memcpy(buf + used, ane__ox_dtype_name(dt), l + 1);
			used += l;
		}
}

int ane__ox_chk_in(struct ox_ctx *c, const struct ox_node *n, int i,
		   const char *what, unsigned int mask, int rlo, int rhi)
{
	struct ox_tensor *t = ane__ox_in(c, n, i);
	char types[200];

	if (!t)
		return ane__ox_fail(c, n, EINVAL, "input %d (%s) is missing",
				    i, what);
	if (t->dtype <= 0 || t->dtype >= 32 || !(mask & OXM(t->dtype))) {
		dtype_list(mask, types, sizeof(types));
		return ane__ox_fail(c, n, t->dtype == OX_STRING ? EOPNOTSUPP : EINVAL,
				    "input %d '%s' (%s) is %s; it must be one of: %s",
				    i, t->name, what, ane__ox_dtype_name(t->dtype),
				    types);
	}
	if (t->rank < rlo || t->rank > rhi) {
		if (rlo == rhi)
			return ane__ox_fail(c, n, EINVAL,
					    "input %d '%s' (%s) has rank %d; it must be %d",
					    i, t->name, what, t->rank, rlo);
		return ane__ox_fail(c, n, EINVAL,
				    "input %d '%s' (%s) has rank %d, outside [%d, %d]",
				    i, t->name, what, t->rank, rlo, rhi);
	}
	return 0;
}

int ane__ox_same_dtype(struct ox_ctx *c, const struct ox_node *n, int i, int j)
{
	struct ox_tensor *a = ane__ox_in(c, n, i), *b = ane__ox_in(c, n, j);

	if (a && b && a->dtype != b->dtype)
		return ane__ox_fail(c, n, EINVAL,
				    "input %d '%s' is %s, input %d '%s' is %s; they must be the same",
				    i, a->name, ane__ox_dtype_name(a->dtype), j,
				    b->name, ane__ox_dtype_name(b->dtype));
	return 0;
}

int ane__ox_set_out(struct ox_ctx *c, const struct ox_node *n, int i,
		    int dtype, int rank, const int64_t *dims)
{
	struct ox_tensor *y = ane__ox_out(c, n, i);
	int k;

	if (!y)
		return 0;
	if (rank < 0 || rank > OX_MAX_RANK)
		return ane__ox_fail(c, n, EOPNOTSUPP,
				    "output %d '%s' would have rank %d, more than the %d supported",
				    i, y->name, rank, OX_MAX_RANK);
	for (k = 0; k < rank; k++)
		if (dims[k] < 0)
			return ane__ox_fail(c, n, EINVAL,
					    "output %d '%s' would have dims[%d] = %lld",
					    i, y->name, k, (long long)dims[k]);
	if (ane__ox_shape_count(rank, dims) < 0)
		return ane__ox_fail(c, n, EOVERFLOW,
				    "output %d '%s': its element count overflows",
				    i, y->name);
	y->dtype = dtype;
	y->rank = rank;
	memset(y->dims, 0, sizeof(y->dims));
	if (rank)
		memcpy(y->dims, dims, sizeof(*dims) * (size_t)rank);
	return 0;
}

int ane__ox_out_like(struct ox_ctx *c, const struct ox_node *n, int i, int j)
{
	struct ox_tensor *x = ane__ox_in(c, n, j);

	if (!x)
		return ane__ox_fail(c, n, EINVAL, "input %d is missing", j);
	return ane__ox_set_out(c, n, i, x->dtype, x->rank, x->dims);
}

/* ------------------------------------------------------------ attributes */

static int attr_type(struct ox_ctx *c, const struct ox_node *n,
		     const struct ox_attr *a, int type, const char *tname)
{
	if (a->type == type)
		return 0;
	return ane__ox_fail(c, n, EINVAL,
			    "attribute '%s' has type %d; it must be %s",
			    a->name, a->type, tname);
}

int ane__ox_a_int(struct ox_ctx *c, const struct ox_node *n, const char *name,
		  int64_t def, int64_t lo, int64_t hi, int64_t *v)
{
	const struct ox_attr *a = ane__ox_attr(n, name);
	int err;

	*v = def;
	if (!a)
		return 0;
	err = attr_type(c, n, a, OX_ATTR_INT, "an int");
	if (err)
		return err;
	if (a->i < lo || a->i > hi)
		return ane__ox_fail(c, n, EINVAL,
				    "attribute '%s' is %lld, outside [%lld, %lld]",
				    name, (long long)a->i, (long long)lo,
				    (long long)hi);
	*v = a->i;
	return 0;
}

int ane__ox_a_float(struct ox_ctx *c, const struct ox_node *n, const char *name,
		  float def, float *v)
{
	const struct ox_attr *a = ane__ox_attr(n, name);

	*v = def;
	if (!a)
		return 0;
	if (a->type == OX_ATTR_INT) {
		*v = (float)a->i;
		return 0;
	}
	*v = a->f;
	return attr_type(c, n, a, OX_ATTR_FLOAT, "a float");
}

int ane__ox_a_str(struct ox_ctx *c, const struct ox_node *n, const char *name,
		  const char *def, const char *const *choices, const char **v)
{
	const struct ox_attr *a = ane__ox_attr(n, name);
	int err, i;

	*v = def;
	if (!a)
		return 0;
	err = attr_type(c, n, a, OX_ATTR_STRING, "a string");
	if (err)
		return err;
	*v = a->s;
	if (!choices)
		return 0;
	for (i = 0; choices[i]; i++)
		if (!strcmp(choices[i], a->s))
			return 0;
	return ane__ox_fail(c, n, EINVAL,
			    "attribute '%s' is '%s', not one of the values opset %lld allows",
			    name, a->s, (long long)OX_OPSET(c));
}

int ane__ox_a_ints(struct ox_ctx *c, const struct ox_node *n,
		     const char *name, const int64_t **v, size_t *cnt)
{
	const struct ox_attr *a = ane__ox_attr(n, name);

	*v = NULL;
	*cnt = 0;
	if (!a)
		return 0;
	*v = a->ints;
	*cnt = a->n;
	return attr_type(c, n, a, OX_ATTR_INTS, "a list of ints");
}

int ane__ox_a_floats(struct ox_ctx *c, const struct ox_node *n,
		       const char *name, const float **v, size_t *cnt)
{
	const struct ox_attr *a = ane__ox_attr(n, name);

	*v = NULL;
	*cnt = 0;
	if (!a)
		return 0;
	*v = a->floats;
	*cnt = a->n;
	return attr_type(c, n, a, OX_ATTR_FLOATS, "a list of floats");
}

int ane__ox_axis(struct ox_ctx *c, const struct ox_node *n, const char *name,
		 int64_t v, int rank, int *out)
{
	if (v < -rank || v >= rank || rank == 0)
		return ane__ox_fail(c, n, EINVAL, "%s is %lld, outside [%d, %d]",
				    name, (long long)v, -rank, rank - 1);
	*out = (int)(v < 0 ? v + rank : v);
	return 0;
}

int ane__ox_axis_attr(struct ox_ctx *c, const struct ox_node *n,
		      const char *name, int64_t def, int rank, int *out)
{
	char what[64];
	int64_t v;
	int err = ane__ox_a_int(c, n, name, def, INT64_MIN, INT64_MAX, &v);

	if (err)
		return err;
	snprintf(what, sizeof(what), "attribute '%s'", name);
	return ane__ox_axis(c, n, what, v, rank, out);
}

int ane__ox_const_ints(struct ox_ctx *c, const struct ox_node *n, int i,
		       const char *what, int64_t *buf, size_t max, size_t *cnt)
{
	const struct ox_value *v;
	struct ox_tensor *t = ane__ox_in(c, n, i);
	size_t k;

	if (t && (t->dtype != OX_INT64 && t->dtype != OX_INT32))
		return ane__ox_fail(c, n, EINVAL,
				    "input %d '%s' (%s) is %s; it must be int64 or int32",
				    i, t->name, what, ane__ox_dtype_name(t->dtype));
	if (t && t->rank > 1)
		return ane__ox_fail(c, n, EINVAL,
				    "input %d '%s' (%s) has rank %d; it must be 0 or 1",
				    i, t->name, what, t->rank);
	v = ane__ox_const_in(c, n, i, what);
	if (!v)
		return -EINVAL;
	if (v->count > max)
		return ane__ox_fail(c, n, EINVAL,
				    "input %d '%s' (%s) has %zu values, more than %zu",
				    i, t->name, what, v->count, max);
	for (k = 0; k < v->count; k++)
		buf[k] = ane__ox_get_i(v, k);
	*cnt = v->count;
	return 0;
}

int ane__ox_axes_mask(struct ox_ctx *c, const struct ox_node *n,
		      const char *what, const int64_t *axes, size_t cnt,
		      int rank, unsigned int *mask)
{
	char name[96];
	size_t k;
	int ax = 0, err;

	*mask = 0;
	for (k = 0; k < cnt; k++) {
		snprintf(name, sizeof(name), "%s[%zu]", what, k);
		err = ane__ox_axis(c, n, name, axes[k], rank, &ax);
		if (err)
			return err;
		if (*mask & (1u << ax))
			return ane__ox_fail(c, n, EINVAL,
					    "%s names axis %d twice", what, ax);
		*mask |= 1u << ax;
	}
	return 0;
}

/* ------------------------------------------------------------ shapes */

int ane__ox_bcast(struct ox_ctx *c, const struct ox_node *n, int ra,
		  const int64_t *da, int rb, const int64_t *db, int *rank,
		  int64_t *dims)
{
	int r = ra > rb ? ra : rb, k;

	for (k = 0; k < r; k++) {
		int64_t a = k < r - ra ? 1 : da[k - (r - ra)];
		int64_t b = k < r - rb ? 1 : db[k - (r - rb)];

		if (a != b && a != 1 && b != 1)
			return ane__ox_fail(c, n, EINVAL,
					    "the inputs do not broadcast: dim %d of the result is %lld in one and %lld in the other",
					    k, (long long)a, (long long)b);
		dims[k] = a == 1 ? b : a;
	}
	*rank = r;
	return 0;
}

int ane__ox_legacy_bcast(struct ox_ctx *c, const struct ox_node *n,
			 const struct ox_tensor *a, const struct ox_tensor *b,
			 int *rb, int64_t *db)
{
	int64_t bc, axis;
	int err, k;

	err = ane__ox_a_int(c, n, "broadcast", 0, 0, 1, &bc);
	if (err)
		return err;
	if (!bc) {
		if (a->rank != b->rank ||
		    memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank))
			return ane__ox_fail(c, n, EINVAL,
					    "inputs '%s' and '%s' differ in shape and attribute 'broadcast' is 0 (opset %lld)",
					    a->name, b->name, (long long)OX_OPSET(c));
		*rb = a->rank;
		memcpy(db, a->dims, sizeof(int64_t) * (size_t)a->rank);
		return 0;
	}
	if (b->rank > a->rank)
		return ane__ox_fail(c, n, EINVAL,
				    "input '%s' has rank %d, more than input '%s''s %d",
				    b->name, b->rank, a->name, a->rank);
	err = ane__ox_a_int(c, n, "axis", a->rank - b->rank, 0,
			    a->rank - b->rank, &axis);
	if (err)
		return err;
	for (k = 0; k < a->rank; k++)
		db[k] = 1;
	for (k = 0; k < b->rank; k++) {
		int64_t d = b->dims[k];

		if (d != 1 && d != a->dims[axis + k])
			return ane__ox_fail(c, n, EINVAL,
					    "input '%s' dims[%d] = %lld does not match input '%s' dims[%lld] = %lld",
					    b->name, k, (long long)d, a->name,
					    (long long)(axis + k),
					    (long long)a->dims[axis + k]);
		db[axis + k] = d;
	}
	*rb = a->rank;
	return 0;
}

int64_t ane__ox_prod(const int64_t *dims, int lo, int hi)
{
	int64_t p = 1;
	int k;

	for (k = lo; k < hi; k++)
		p *= dims[k];
	return p;
}

void ane__ox_strides(int rank, const int64_t *dims, int64_t *st)
{
	int64_t s = 1;
	int k;

	for (k = rank - 1; k >= 0; k--) {
		st[k] = s;
		s *= dims[k];
	}
}

void ane__ox_it_init(struct ox_it *it, int rank, const int64_t *dims)
{
	memset(it, 0, sizeof(*it));
	it->rank = rank;
	if (rank)
		memcpy(it->dims, dims, sizeof(*dims) * (size_t)rank);
}

int ane__ox_it_add_strides(struct ox_it *it, const int64_t *st)
{
	int k = it->n++;

	memcpy(it->st[k], st, sizeof(int64_t) * (size_t)it->rank);
	it->off[k] = 0;
	return k;
}

int ane__ox_it_add(struct ox_it *it, const struct ox_value *v)
{
	int64_t vs[OX_MAX_RANK], st[OX_MAX_RANK];
	int k, lead = it->rank - v->rank;

	ane__ox_strides(v->rank, v->dims, vs);
	for (k = 0; k < it->rank; k++)
		st[k] = k < lead || v->dims[k - lead] == 1 ? 0 : vs[k - lead];
	return ane__ox_it_add_strides(it, st);
}

void ane__ox_it_next(struct ox_it *it)
{
	int k, j;

	for (k = it->rank - 1; k >= 0; k--) {
		it->idx[k]++;
		for (j = 0; j < it->n; j++)
			it->off[j] += (size_t)it->st[j][k];
		if (it->idx[k] < it->dims[k])
			return;
		for (j = 0; j < it->n; j++)
			it->off[j] -= (size_t)(it->st[j][k] * it->dims[k]);
		it->idx[k] = 0;
	}
}

/* ------------------------------------------------------------ values */

uint64_t ane__ox_get_u(const struct ox_value *v, size_t i)
{
	if (v->dtype == OX_UINT64)
		return ((const uint64_t *)v->data)[i];
	return (uint64_t)ane__ox_get_i(v, i);
}

double *ane__ox_load_f(const struct ox_value *v)
{
	double *x = malloc(sizeof(double) * (v->count ? v->count : 1));
	size_t i;

	if (!x)
		return NULL;
	if (v->dtype == OX_FLOAT) {
		const float *p = v->data;

		for (i = 0; i < v->count; i++)
			x[i] = p[i];
	} else {
		for (i = 0; i < v->count; i++)
			x[i] = ane__ox_get_f(v, i);
	}
	return x;
}

void ane__ox_store_f(struct ox_value *v, const double *x)
{
	size_t i;

	if (v->dtype == OX_FLOAT) {
		float *p = v->data;

		for (i = 0; i < v->count; i++)
			p[i] = (float)x[i];
		return;
	}
	for (i = 0; i < v->count; i++)
		ane__ox_set_f(v, i, x[i]);
}

void ane__ox_copy_view(struct ox_value *dst, int rank, const int64_t *dims,
		       const struct ox_value *src, size_t base,
		       const int64_t *st)
{
	size_t es = ane__ox_dtype_size(dst->dtype), i;
	struct ox_it it;

	ane__ox_it_init(&it, rank, dims);
	ane__ox_it_add_strides(&it, st);
	it.off[0] = base;
	for (i = 0; i < dst->count; i++, ane__ox_it_next(&it))
		ox_copy_el(dst, i, src, it.off[0], es);
}

void ane__ox_copy_all(struct ox_value *dst, const struct ox_value *src)
{
	if (src->count)
		memcpy(dst->data, src->data,
		       src->count * ane__ox_dtype_size(src->dtype));
}

int64_t ane__ox_quant(double v, int64_t zp, int dtype)
{
	double lo = dtype == OX_INT8 ? -128 : dtype == OX_UINT8 ? 0 :
		    dtype == OX_INT32 ? -2147483648.0 : -9.2e18;
	double hi = dtype == OX_INT8 ? 127 : dtype == OX_UINT8 ? 255 :
		    dtype == OX_INT32 ? 2147483647.0 : 9.2e18;

	v = nearbyint(v) + (double)zp;
	if (v != v)
		return 0;
	return (int64_t)(v < lo ? lo : v > hi ? hi : v);
}
