// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: tensor values, attribute and operand lookup,
 * and the messages that name a node.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ox.h"

static const struct {
	const char *name;
	size_t size;
} dtypes[OX_DTYPE_COUNT] = {
	[OX_UNDEFINED] = { "undefined", 0 },
	[OX_FLOAT] = { "float", 4 },
	[OX_UINT8] = { "uint8", 1 },
	[OX_INT8] = { "int8", 1 },
	[OX_UINT16] = { "uint16", 2 },
	[OX_INT16] = { "int16", 2 },
	[OX_INT32] = { "int32", 4 },
	[OX_INT64] = { "int64", 8 },
	[OX_STRING] = { "string", 0 },
	[OX_BOOL] = { "bool", 1 },
	[OX_FLOAT16] = { "float16", 2 },
	[OX_DOUBLE] = { "double", 8 },
	[OX_UINT32] = { "uint32", 4 },
	[OX_UINT64] = { "uint64", 8 },
	[OX_COMPLEX64] = { "complex64", 0 },
	[OX_COMPLEX128] = { "complex128", 0 },
	[OX_BFLOAT16] = { "bfloat16", 2 },
};

size_t ane__ox_dtype_size(int dtype)
{
	return dtype >= 0 && dtype < OX_DTYPE_COUNT ? dtypes[dtype].size : 0;
}

const char *ane__ox_dtype_name(int dtype)
{
	return dtype >= 0 && dtype < OX_DTYPE_COUNT ? dtypes[dtype].name :
	       "unknown";
}

int64_t ane__ox_shape_count(int rank, const int64_t *dims)
{
	int64_t n = 1;
	int i;

	if (rank < 0 || rank > OX_MAX_RANK)
		return -1;
	for (i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return -1;
		if (dims[i] && n > INT64_MAX / dims[i])
			return -1;
		n *= dims[i];
	}
	return n;
}

/* Values larger than this are refused (the whole model must fit memory). */
#define OX_MAX_VALUE_BYTES	(1ull << 34)

struct ox_value *ane__ox_value_new(int dtype, int rank, const int64_t *dims)
{
	size_t esize = ane__ox_dtype_size(dtype);
	int64_t count = ane__ox_shape_count(rank, dims);
	struct ox_value *v;

	if (!esize || count < 0 ||
	    (uint64_t)count > OX_MAX_VALUE_BYTES / esize)
		return NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->dtype = dtype;
	v->rank = rank;
	if (rank)
		memcpy(v->dims, dims, sizeof(*dims) * (size_t)rank);
	v->count = (size_t)count;
	if (count) {
		v->data = calloc((size_t)count, esize);
		if (!v->data) {
			free(v);
			return NULL;
		}
	}
	return v;
}

struct ox_value *ane__ox_value_clone(const struct ox_value *v)
{
	struct ox_value *c = ane__ox_value_new(v->dtype, v->rank, v->dims);

	if (c && v->count)
		memcpy(c->data, v->data, v->count * ane__ox_dtype_size(v->dtype));
	return c;
}

void ane__ox_value_free(struct ox_value *v)
{
	if (!v)
		return;
	free(v->data);
	free(v);
}

/* fp16 and bfloat16 bits to and from float, exactly / to nearest even. */
static float half_to_float(uint16_t h)
{
	uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f;
	uint32_t m = h & 0x3ff, b;
	float f;

	if (e == 0x1f) {
		b = s | 0x7f800000u | m << 13;
	} else if (e) {
		b = s | (e + 112) << 23 | m << 13;
	} else if (m) {
		e = 113;
		while (!(m & 0x400)) {
			m <<= 1;
			e--;
		}
		b = s | e << 23 | (m & 0x3ff) << 13;
	} else {
		b = s;
	}
	memcpy(&f, &b, sizeof(f));
	return f;
}

static uint16_t float_to_half(float f)
{
	uint32_t b, s, e, m, r;

	memcpy(&b, &f, sizeof(b));
	s = (b >> 16) & 0x8000;
	e = (b >> 23) & 0xff;
	m = b & 0x7fffff;
	if (e == 0xff)
		return (uint16_t)(s | 0x7c00 | (m ? 0x200 | m >> 13 : 0));
	if (e > 142)
		return (uint16_t)(s | 0x7c00);
	if (e < 113) {
		/* Subnormal or zero: shift in the implicit bit, round. */
		uint32_t shift;

		if (e < 102)
			return (uint16_t)s;
		m |= 0x800000;
		shift = 126 - e;
		r = m >> shift;
		if ((m & ((1u << shift) - 1)) > (1u << (shift - 1)) ||
		    ((m & ((1u << shift) - 1)) == (1u << (shift - 1)) && (r & 1)))
			r++;
		return (uint16_t)(s | r);
	}
	r = (e - 112) << 10 | m >> 13;
	if ((m & 0x1fff) > 0x1000 || ((m & 0x1fff) == 0x1000 && (r & 1)))
		r++;
	return (uint16_t)(s | r);
}

static float bf16_to_float(uint16_t h)
{
	uint32_t b = (uint32_t)h << 16;
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

static uint16_t float_to_bf16(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	if ((b & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((b >> 16) | 0x40);
	b += 0x7fff + ((b >> 16) & 1);
	return (uint16_t)(b >> 16);
}

double ane__ox_get_f(const struct ox_value *v, size_t i)
{
	const void *p = v->data;

	switch (v->dtype) {
	case OX_FLOAT: return ((const float *)p)[i];
	case OX_DOUBLE: return ((const double *)p)[i];
	case OX_FLOAT16: return half_to_float(((const uint16_t *)p)[i]);
	case OX_BFLOAT16: return bf16_to_float(((const uint16_t *)p)[i]);
	case OX_UINT8: return ((const uint8_t *)p)[i];
	case OX_INT8: return ((const int8_t *)p)[i];
	case OX_UINT16: return ((const uint16_t *)p)[i];
	case OX_INT16: return ((const int16_t *)p)[i];
	case OX_INT32: return ((const int32_t *)p)[i];
	case OX_INT64: return (double)((const int64_t *)p)[i];
	case OX_UINT32: return ((const uint32_t *)p)[i];
	case OX_UINT64: return (double)((const uint64_t *)p)[i];
	case OX_BOOL: return ((const uint8_t *)p)[i] ? 1.0 : 0.0;
	default: return 0.0;
	}
}

int64_t ane__ox_get_i(const struct ox_value *v, size_t i)
{
	const void *p = v->data;
	double d;

	switch (v->dtype) {
	case OX_UINT8: return ((const uint8_t *)p)[i];
	case OX_INT8: return ((const int8_t *)p)[i];
	case OX_UINT16: return ((const uint16_t *)p)[i];
	case OX_INT16: return ((const int16_t *)p)[i];
	case OX_INT32: return ((const int32_t *)p)[i];
	case OX_INT64: return ((const int64_t *)p)[i];
	case OX_UINT32: return ((const uint32_t *)p)[i];
	case OX_UINT64: return (int64_t)((const uint64_t *)p)[i];
	case OX_BOOL: return ((const uint8_t *)p)[i] ? 1 : 0;
	default:
		/* Floating point: truncated toward zero, saturating, NaN 0. */
		d = ane__ox_get_f(v, i);
		if (d != d)
			return 0;
		if (d >= 9.2233720368547758e18)
			return INT64_MAX;
		if (d <= -9.2233720368547758e18)
			return INT64_MIN;
		return (int64_t)d;
	}
}

void ane__ox_set_f(struct ox_value *v, size_t i, double x)
{
	void *p = v->data;

	switch (v->dtype) {
	case OX_FLOAT: ((float *)p)[i] = (float)x; return;
	case OX_DOUBLE: ((double *)p)[i] = x; return;
	case OX_FLOAT16: ((uint16_t *)p)[i] = float_to_half((float)x); return;
	case OX_BFLOAT16: ((uint16_t *)p)[i] = float_to_bf16((float)x); return;
	case OX_BOOL: ((uint8_t *)p)[i] = x != 0.0; return;
	default:
		ane__ox_set_i(v, i, x != x ? 0 : x >= 9.2233720368547758e18 ?
			      INT64_MAX : x <= -9.2233720368547758e18 ?
			      INT64_MIN : (int64_t)x);
	}
}

void ane__ox_set_i(struct ox_value *v, size_t i, int64_t x)
{
	void *p = v->data;

	/* Integer conversions wrap, as C's (and numpy's) casts do. */
	switch (v->dtype) {
	case OX_UINT8: ((uint8_t *)p)[i] = (uint8_t)x; return;
	case OX_INT8: ((int8_t *)p)[i] = (int8_t)x; return;
	case OX_UINT16: ((uint16_t *)p)[i] = (uint16_t)x; return;
	case OX_INT16: ((int16_t *)p)[i] = (int16_t)x; return;
	case OX_INT32: ((int32_t *)p)[i] = (int32_t)x; return;
	case OX_INT64: ((int64_t *)p)[i] = x; return;
	case OX_UINT32: ((uint32_t *)p)[i] = (uint32_t)x; return;
	case OX_UINT64: ((uint64_t *)p)[i] = (uint64_t)x; return;
	case OX_BOOL: ((uint8_t *)p)[i] = x != 0; return;
	default: ane__ox_set_f(v, i, (double)x); return;
	}
}

/* ------------------------------------------------------------ graph */

const struct ox_attr *ane__ox_attr(const struct ox_node *n, const char *name)
{
	int i;

	for (i = 0; i < n->n_attrs; i++)
		if (!strcmp(n->attrs[i].name, name))
			return &n->attrs[i];
	return NULL;
}

int64_t ane__ox_attr_i(const struct ox_node *n, const char *name, int64_t def)
{
	const struct ox_attr *a = ane__ox_attr(n, name);

	if (!a)
		return def;
	if (a->type == OX_ATTR_FLOAT)
		return (int64_t)a->f;
	return a->type == OX_ATTR_INT ? a->i : def;
}

float ane__ox_attr_f(const struct ox_node *n, const char *name, float def)
{
	const struct ox_attr *a = ane__ox_attr(n, name);

	if (!a)
		return def;
	if (a->type == OX_ATTR_INT)
		return (float)a->i;
	return a->type == OX_ATTR_FLOAT ? a->f : def;
}

const char *ane__ox_attr_s(const struct ox_node *n, const char *name,
			   const char *def)
{
	const struct ox_attr *a = ane__ox_attr(n, name);

	return a && a->type == OX_ATTR_STRING ? a->s : def;
}

struct ox_tensor *ane__ox_in(const struct ox_ctx *c, const struct ox_node *n,
			     int i)
{
	if (i < 0 || i >= n->n_in || n->in[i] < 0)
		return NULL;
	return &c->g->t[n->in[i]];
}

struct ox_tensor *ane__ox_out(const struct ox_ctx *c, const struct ox_node *n,
			      int i)
{
	if (i < 0 || i >= n->n_out || n->out[i] < 0)
		return NULL;
	return &c->g->t[n->out[i]];
}

int ane__ox_fail(const struct ox_ctx *c, const struct ox_node *n, int err,
		 const char *fmt, ...)
{
	size_t len = 0;
	va_list ap;

	if (!c->err || !c->err_len)
		return -err;
	c->err[0] = '\0';
	if (n) {
		snprintf(c->err, c->err_len, "node %d '%s' (%s): ",
			 (int)(n - c->g->nodes), n->name, n->op_type);
		len = strlen(c->err);
	}
	if (len < c->err_len) {
		va_start(ap, fmt);
		vsnprintf(c->err + len, c->err_len - len, fmt, ap);
		va_end(ap);
	}
	return -err;
}

const struct ox_value *ane__ox_const_in(struct ox_ctx *c,
					const struct ox_node *n, int i,
					const char *what)
{
	struct ox_tensor *t = ane__ox_in(c, n, i);

	if (t && t->konst)
		return t->konst;
	if (!t) {
		ane__ox_fail(c, n, EINVAL, "input %d (%s) is missing", i, what);
		return NULL;
	}
	if (t->is_input)
		c->need_const = n->in[i];
	ane__ox_fail(c, n, EINVAL,
		     "input %d '%s' (%s) must be a constant: shapes are static%s",
		     i, t->name, what,
		     t->is_input ? " (bind its value: ane-run --const NAME=FILE.npy)" : "");
	return NULL;
}
