/* SPDX-License-Identifier: MIT */
/*
 * libane's ONNX front end, internal: what the CPU kernels (ox_ops_*.c)
 * share -- dtype classes, input and attribute checks that name the
 * field, broadcasting, a strided iterator over a tensor's elements and
 * the tables of ops each file registers in ox_ops.c.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_OX_OPS_H
#define ANE_OX_OPS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "ox.h"

/* Sets of dtypes, one bit per enum ox_dtype. */
#define OXM(dt)		(1u << (dt))
#define OXM_FLOAT	(OXM(OX_FLOAT) | OXM(OX_DOUBLE) | OXM(OX_FLOAT16) | \
			 OXM(OX_BFLOAT16))
#define OXM_SINT	(OXM(OX_INT8) | OXM(OX_INT16) | OXM(OX_INT32) | \
			 OXM(OX_INT64))
#define OXM_UINT	(OXM(OX_UINT8) | OXM(OX_UINT16) | OXM(OX_UINT32) | \
			 OXM(OX_UINT64))
#define OXM_INT		(OXM_SINT | OXM_UINT)
#define OXM_NUM		(OXM_FLOAT | OXM_INT)
#define OXM_ALL		(OXM_NUM | OXM(OX_BOOL))
#define OXM_I32_64	(OXM(OX_INT32) | OXM(OX_INT64))

static inline int ox_is_float(int dt)
{
	return dt > 0 && dt < 32 && (OXM(dt) & OXM_FLOAT);
}

static inline int ox_is_uint(int dt)
{
	return dt > 0 && dt < 32 && (OXM(dt) & OXM_UINT);
}

/* @v as an integer clamped to [@lo, @hi]; NaN is @lo (no UB on any value). */
static inline int64_t ox_d2i(double v, int64_t lo, int64_t hi)
{
	if (!(v >= (double)lo))
		return lo;
	return v >= (double)hi ? hi : (int64_t)v;
}

/* The op's opset: the model's default-domain one. */
#define OX_OPSET(c)	((c)->g->opset)

/* ------------------------------------------------------------ checks */

/* The node has between @lo and @hi inputs (counting omitted ones). */
int ane__ox_n_in(struct ox_ctx *c, const struct ox_node *n, int lo, int hi);
/* The same, output 0 optional (RNN's Y, TopK's Values). */
int ane__ox_n_in_any(struct ox_ctx *c, const struct ox_node *n, int lo, int hi);
/*
 * Input @i is present, its dtype is in @mask and its rank in
 * [@rlo, @rhi]; fails naming it ("input 1 'B' (B)").
 */
int ane__ox_chk_in(struct ox_ctx *c, const struct ox_node *n, int i,
		   const char *what, unsigned int mask, int rlo, int rhi);
/* Input @i, if present, has the dtype of input @j. */
int ane__ox_same_dtype(struct ox_ctx *c, const struct ox_node *n, int i, int j);
/* Output @i (when present) gets @dtype and the shape; checks the rank. */
int ane__ox_set_out(struct ox_ctx *c, const struct ox_node *n, int i,
		    int dtype, int rank, const int64_t *dims);
/* Output @i gets input @j's dtype and shape. */
int ane__ox_out_like(struct ox_ctx *c, const struct ox_node *n, int i, int j);

/*
 * Attributes, checked: the type must be the one the op takes, an int in
 * [@lo, @hi] ("attribute 'axis' is 5, outside [-4, 3]").  Absent: @def.
 */
int ane__ox_a_int(struct ox_ctx *c, const struct ox_node *n, const char *name,
		  int64_t def, int64_t lo, int64_t hi, int64_t *v);
int ane__ox_a_float(struct ox_ctx *c, const struct ox_node *n, const char *name,
		  float def, float *v);
/* A string attribute; with @choices (NULL ended) it must be one of them. */
int ane__ox_a_str(struct ox_ctx *c, const struct ox_node *n, const char *name,
		  const char *def, const char *const *choices, const char **v);
/* An INTS attribute; *@v NULL and *@cnt 0 when absent. */
int ane__ox_a_ints(struct ox_ctx *c, const struct ox_node *n,
		     const char *name, const int64_t **v, size_t *cnt);
int ane__ox_a_floats(struct ox_ctx *c, const struct ox_node *n,
		       const char *name, const float **v, size_t *cnt);
/* An axis in [-rank, rank-1] (@name names it), normalized into *@out. */
int ane__ox_axis(struct ox_ctx *c, const struct ox_node *n, const char *name,
		 int64_t v, int rank, int *out);
/* Attribute @name, an int axis with default @def, normalized. */
int ane__ox_axis_attr(struct ox_ctx *c, const struct ox_node *n,
		      const char *name, int64_t def, int rank, int *out);
/*
 * Constant input @i as at most @max integers (int32/int64, rank 0 or 1)
 * into @buf; *@cnt is how many.  Fails naming it when not constant.
 */
int ane__ox_const_ints(struct ox_ctx *c, const struct ox_node *n, int i,
		       const char *what, int64_t *buf, size_t max, size_t *cnt);
/*
 * A list of axes (an attribute's or a constant input's values) over
 * @rank dims into a mask of bits, each normalized and given once.
 */
int ane__ox_axes_mask(struct ox_ctx *c, const struct ox_node *n,
		      const char *what, const int64_t *axes, size_t cnt,
		      int rank, unsigned int *mask);

/* ------------------------------------------------------------ shapes */

/* Numpy broadcasting of two shapes into @rank/@dims. */
int ane__ox_bcast(struct ox_ctx *c, const struct ox_node *n, int ra,
		  const int64_t *da, int rb, const int64_t *db, int *rank,
		  int64_t *dims);
/*
 * The opset < 7 binary broadcast: attribute 'broadcast' (0: B's shape is
 * A's) and 'axis' (where B's dims start in A's; default: B is A's
 * suffix).  Sets *@rb/@db to B's shape padded to A's rank with ones.
 */
int ane__ox_legacy_bcast(struct ox_ctx *c, const struct ox_node *n,
			 const struct ox_tensor *a, const struct ox_tensor *b,
			 int *rb, int64_t *db);
/* A shape seen as outer x d x inner around @axis. */
void ane__ox_around(const int64_t *dims, int rank, int axis, int64_t *outer,
		    int64_t *d, int64_t *inner);
/* Product of dims [@lo, @hi). */
int64_t ane__ox_prod(const int64_t *dims, int lo, int hi);

/*
 * An iterator over the elements of a shape (@rank/@dims) with the flat
 * offsets of up to OX_IT_MAX operands, each broadcast to it (its dims
 * aligned right, a dim of 1 repeated).
 */
#define OX_IT_MAX	4
struct ox_it {
	int rank, n;
	int64_t dims[OX_MAX_RANK];
	int64_t idx[OX_MAX_RANK];
	int64_t st[OX_IT_MAX][OX_MAX_RANK];
	size_t off[OX_IT_MAX];
};
void ane__ox_it_init(struct ox_it *it, int rank, const int64_t *dims);
/* Adds operand @v (broadcastable to the shape); returns its number. */
int ane__ox_it_add(struct ox_it *it, const struct ox_value *v);
/* Adds an operand with explicit element strides per dim of the shape. */
int ane__ox_it_add_strides(struct ox_it *it, const int64_t *st);
void ane__ox_it_next(struct ox_it *it);
/* Row-major strides of a shape, in elements. */
void ane__ox_strides(int rank, const int64_t *dims, int64_t *st);

/*
 * The window geometry of a convolution or a pool over @s spatial dims:
 * kernel, strides, dilations, pads (begin, end) and the output's size,
 * from the attributes (kernel_shape, strides, dilations, pads, auto_pad,
 * ceil_mode) and the input's spatial dims.
 */
#define OX_MAX_SPATIAL	(OX_MAX_RANK - 2)
struct ox_geom {
	int s;
	int64_t in[OX_MAX_SPATIAL], k[OX_MAX_SPATIAL], st[OX_MAX_SPATIAL];
	int64_t dil[OX_MAX_SPATIAL], pb[OX_MAX_SPATIAL], pe[OX_MAX_SPATIAL];
	int64_t out[OX_MAX_SPATIAL];
};
/* @k: the kernel from the weights (NULL: attribute 'kernel_shape'). */
int ane__ox_geom(struct ox_ctx *c, const struct ox_node *n,
		 const struct ox_tensor *x, const int64_t *k, int ceil_ok,
		 struct ox_geom *g);
/*
 * A ConvTranspose's: its pads after auto_pad and output_shape, which
 * give @g->out (the output's spatial dims).
 */
int ane__ox_convt_geom(struct ox_ctx *c, const struct ox_node *n,
		       const struct ox_tensor *x, const int64_t *k, struct ox_geom *g);
/*
 * For each position p of @from (spatial dims) and kernel position q, the
 * flat position p * st - pb + q * dil in @to, or -1 outside it; malloc'd
 * (count(from) * count(k) entries), NULL if out of memory.
 */
int64_t *ane__ox_win_table(const struct ox_geom *g, const int64_t *from,
			   const int64_t *to, size_t *np, size_t *nk);

/* ------------------------------------------------------------ values */

/* Element @i of @v as uint64 (for uint64 math); others as get_i. */
uint64_t ane__ox_get_u(const struct ox_value *v, size_t i);
/* All of @v as doubles, malloc'd (at least one element); NULL: ENOMEM. */
double *ane__ox_load_f(const struct ox_value *v);
/* Stores @x[0..count) into @v. */
void ane__ox_store_f(struct ox_value *v, const double *x);
/* Copies element @j of @src into element @i of @dst (same dtype). */
static inline void ox_copy_el(struct ox_value *dst, size_t i,
			      const struct ox_value *src, size_t j, size_t es)
{
	const char *s = (const char *)src->data + j * es;
	char *d = (char *)dst->data + i * es;
	size_t k;

	for (k = 0; k < es; k++)
		d[k] = s[k];
}
/*
 * Fills @dst (its elements in order, seen as the shape @rank/@dims) from
 * @src at offset @base plus index * @st[k] along each dim k.
 */
void ane__ox_copy_view(struct ox_value *dst, int rank, const int64_t *dims,
		       const struct ox_value *src, size_t base,
		       const int64_t *st);
/* @dst's bytes from @src (same dtype and count). */
void ane__ox_copy_all(struct ox_value *dst, const struct ox_value *src);
/* Softmax (@log_out: its log) of @d doubles @st apart, in place. */
void ane__ox_softmax(double *x, int64_t d, int64_t st, int log_out);
/* rint(@v) + @zp saturated to @dtype's range (a quantized value). */
int64_t ane__ox_quant(double v, int64_t zp, int dtype);
/* "out of memory" for node @n. */
int ane__ox_nomem(struct ox_ctx *c, const struct ox_node *n);

/* ------------------------------------------------------------ tables */

struct ox_op_table {
	const struct ox_op *ops;
	size_t n;
};

extern const struct ox_op_table ane__ox_ops_unary;
extern const struct ox_op_table ane__ox_ops_binary;
extern const struct ox_op_table ane__ox_ops_shape;
extern const struct ox_op_table ane__ox_ops_make;
extern const struct ox_op_table ane__ox_ops_move;
extern const struct ox_op_table ane__ox_ops_index;
extern const struct ox_op_table ane__ox_ops_conv;
extern const struct ox_op_table ane__ox_ops_norm;
extern const struct ox_op_table ane__ox_ops_loss;
extern const struct ox_op_table ane__ox_ops_pool;
extern const struct ox_op_table ane__ox_ops_reduce;
extern const struct ox_op_table ane__ox_ops_linalg;
extern const struct ox_op_table ane__ox_ops_misc;
extern const struct ox_op_table ane__ox_ops_resize;
/*
 * A Resize's interpolation matrix along dim @d, out x in (ox_ops_resize.c);
 * @ext[o] is set where output coordinate o takes the extrapolation value
 * *@ev (its row of @m is 0).
 */
int ane__ox_resize_matrix(struct ox_ctx *c, const struct ox_node *n, int rank,
			  const int64_t *dims, int d, float *m,
			  unsigned char *ext, double *ev);
extern const struct ox_op_table ane__ox_ops_rnn;

#define OX_TABLE(name, arr) \
	const struct ox_op_table name = { arr, sizeof(arr) / sizeof(arr[0]) }

/*
 * A Slice node's window of an input of @rank @dims: per axis the first
 * element, the step and the output extent (ox_ops_move.c; the lowering to
 * the engine's copy reads it too).
 */
struct ox_slice {
	int64_t start[OX_MAX_RANK], step[OX_MAX_RANK], dims[OX_MAX_RANK];
};

int ane__ox_slice_params(struct ox_ctx *c, const struct ox_node *n, int rank,
			 const int64_t *dims, struct ox_slice *s);

#endif /* ANE_OX_OPS_H */
