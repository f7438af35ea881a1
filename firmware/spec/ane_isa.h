/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's instruction set as the program image encodes it: the
 * operation descriptor (struct ane_op_desc), tensors, their limits and the
 * shape rules every descriptor must pass (ane_op_validate()).  A
 * specification header: the driver's image validator, the firmware and
 * the engine model all include it; its integer-only functions are built
 * once, in firmware/hw/engine/ane_math_plan.c, and linked by all of them.
 *
 * Plain C that builds in the kernel and in userspace (host tests): it
 * includes only <linux/types.h> (kernel) or <stdint.h>/<stddef.h>.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_ISA_H
#define ANE_ISA_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stddef.h>
#include <stdint.h>
#endif

/*
 * Error codes, returned negated.  The values are Linux's errno values, so
 * the kernel can pass them on as they are; they are defined here so that
 * this code depends on no errno header.
 */
#define ANE_MATH_EINVAL		22	/* malformed descriptor */
#define ANE_MATH_ENOSPC		28	/* a buffer or the workspace too small */
#define ANE_MATH_EOVERFLOW	75	/* a size computation would overflow */

/* Limits that validation enforces; they keep every size well inside u64. */
#define ANE_MATH_MAX_DIM	(1u << 24)	/* any one dimension */
#define ANE_MATH_MAX_REDUCE	(1u << 14)	/* terms in one dot product */
#define ANE_MATH_MAX_SOFTMAX	(1u << 16)	/* channels of a softmax */
#define ANE_MATH_MAX_KERNEL	64u	/* conv/pool window side, stride, dilation */
#define ANE_MATH_MAX_ELEMS	(1ull << 40)	/* elements in one tensor */
#define ANE_MATH_MAX_COPY_OFFSET (1ull << 40)	/* a COPY view's element offset */
#define ANE_MATH_MAX_GATHER_H	32767u	/* rows of a GATHER's table (int16 indices) */

/* Default chunk size, in multiply-add equivalents (see ane_op_desc). */
#define ANE_MATH_CHUNK_WORK_DEFAULT	(1ull << 21)

/* Alignment the workspace must have, in bytes. */
#define ANE_MATH_WORK_ALIGN	64u

/* Dimension indices into ane_tensor.dim[] and .stride[]. */
enum ane_dim {
	ANE_N = 0,
	ANE_C = 1,
	ANE_H = 2,
	ANE_W = 3,
	ANE_NDIM = 4,
};

/**
 * struct ane_tensor - a strided view of fp16 elements
 * @base: address of element [0][0][0][0] (a kernel virtual address in the
 *	kernel); 2-byte aligned.  NULL marks an absent optional tensor.
 * @size: bytes the engine may access from @base; every element the view
 *	reaches must lie inside [base, base + size).
 * @dim: extents, in the order N, C, H, W; each 1 .. ANE_MATH_MAX_DIM.
 * @stride: distance between neighbours along each dimension, in elements.
 *	Any value is allowed for inputs (0 broadcasts); an output's strides
 *	must not make two of its elements share memory.
 *
 * Element [n][c][h][w] is at base + 2 * (n*stride[0] + c*stride[1] +
 * h*stride[2] + w*stride[3]) bytes.  A dense NCHW tensor has strides
 * {C*H*W, H*W, W, 1}; see ane_tensor_dense().
 */
struct ane_tensor {
	void *base;
	uint64_t size;
	uint32_t dim[ANE_NDIM];
	uint64_t stride[ANE_NDIM];
};

/* Operations. */
enum ane_op {
	ANE_OP_NONE = 0,
	ANE_OP_CONV,		/* convolution, groups, depthwise, bias */
	ANE_OP_MATMUL,		/* batched matrix multiply */
	ANE_OP_ELTWISE,		/* binary elementwise with broadcasting */
	ANE_OP_ACT,		/* unary activation */
	ANE_OP_POOL,		/* max / average pooling */
	ANE_OP_SOFTMAX,		/* softmax over C */
	ANE_OP_NORM,		/* softmax or layer normalization over W */
	ANE_OP_COPY,		/* strided copy of a view, the bits unchanged */
	ANE_OP_REDUCE,		/* reduction over a set of axes */
	ANE_OP_GATHER,		/* rows of a table picked by int16 indices */
	ANE_OP_COUNT,
};

/* Activations, applied in fp32 before the final rounding. */
enum ane_act {
	ANE_ACT_NONE = 0,
	ANE_ACT_RELU,		/* max(x, 0) */
	ANE_ACT_RELU6,		/* min(max(x, 0), 6) */
	ANE_ACT_SIGMOID,	/* 1 / (1 + exp(-x)) */
	ANE_ACT_TANH,
	ANE_ACT_GELU,		/* exact: x * Phi(x) = x/2 * erfc(-x/sqrt 2) */
	ANE_ACT_GELU_TANH,	/* x/2 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
	/* image minor version 4: unary math (see engine.rst, "Unary math") */
	ANE_ACT_SILU,		/* x * sigmoid(x) */
	ANE_ACT_EXP,
	ANE_ACT_LOG,		/* log(-x) NaN, log(0) -inf */
	ANE_ACT_SQRT,		/* correctly rounded in fp32; sqrt(-x) NaN */
	ANE_ACT_RECIP,		/* 1 / x */
	ANE_ACT_ERF,
	ANE_ACT_ABS,
	ANE_ACT_NEG,
	ANE_ACT_SOFTPLUS,	/* log(1 + e^x), without overflow */
	ANE_ACT_SOFTSIGN,	/* x / (1 + |x|) */
	ANE_ACT_HARDSWISH,	/* x * relu6(x + 3) / 6 */
	ANE_ACT_SIN,
	ANE_ACT_COS,
	/*
	 * Parametric (struct ane_act_params): only as the operation of
	 * ANE_OP_ACT, never fused.  alpha = a, beta = b.
	 */
	ANE_ACT_ELU,		/* x > 0 ? x : a (e^x - 1) */
	ANE_ACT_SELU,		/* b (x > 0 ? x : a (e^x - 1)) */
	ANE_ACT_LEAKY,		/* x >= 0 ? x : a x */
	ANE_ACT_CLIP,		/* min(max(x, a), b), NaN passes */
	ANE_ACT_HARDSIGMOID,	/* max(0, min(1, a x + b)) */
	ANE_ACT_CELU,		/* max(0, x) + min(0, a (e^(x/a) - 1)), a != 0 */
	ANE_ACT_THRESHOLDED_RELU, /* x > a ? x : 0 */
	ANE_ACT_COUNT,
};

/* The first parametric activation: those from it on take ane_act_params. */
#define ANE_ACT_FIRST_PARAM	ANE_ACT_ELU

/* Whether activation @act takes parameters (and so is ANE_OP_ACT's only). */
static inline int ane_act_is_parametric(uint32_t act)
{
	return act >= ANE_ACT_FIRST_PARAM && act < ANE_ACT_COUNT;
}

/* Binary elementwise operations: dst = act(a OP b). */
enum ane_eltwise_op {
	ANE_ELT_ADD = 0,
	ANE_ELT_SUB,		/* a - b */
	ANE_ELT_MUL,
	ANE_ELT_MAX,		/* NaN if either operand is NaN */
	ANE_ELT_MIN,		/* NaN if either operand is NaN */
	ANE_ELT_DIV,		/* a / b, IEEE (image minor version 4) */
	ANE_ELT_POW,		/* a^b, C99 pow()'s special cases (minor 4) */
	ANE_ELT_COUNT,
};

enum ane_pool_kind {
	ANE_POOL_MAX = 0,
	ANE_POOL_AVG,
	ANE_POOL_COUNT,
};

/* Normalizations over W (ANE_OP_NORM), at every (n, c, h). */
enum ane_norm_kind {
	ANE_NORM_SOFTMAX = 0,	/* exp(x - max) / sum */
	ANE_NORM_LAYER,		/* (x - mean) / sqrt(var + eps), biased var */
	ANE_NORM_LOG_SOFTMAX,	/* x - max - log(sum(exp(x - max))) */
	ANE_NORM_COUNT,
};

/* Reductions (ANE_OP_REDUCE) over the axes set in ane_reduce_params.axes. */
enum ane_reduce_kind {
	ANE_REDUCE_SUM = 0,
	ANE_REDUCE_MEAN,	/* the sum / the number of elements */
	ANE_REDUCE_MAX,		/* NaN if any element is NaN */
	ANE_REDUCE_MIN,		/* NaN if any element is NaN */
	ANE_REDUCE_PROD,
	ANE_REDUCE_SUM_SQUARE,	/* sum of x^2 */
	ANE_REDUCE_L1,		/* sum of |x| */
	ANE_REDUCE_L2,		/* sqrt(sum of x^2) */
	ANE_REDUCE_LOG_SUM,	/* log(sum) */
	ANE_REDUCE_LOG_SUM_EXP,	/* max + log(sum(exp(x - max))) */
	ANE_REDUCE_COUNT,
};

/* ane_reduce_params.axes: one bit per dimension (enum ane_dim). */
#define ANE_REDUCE_AXIS(dim)		(1u << (dim))
#define ANE_REDUCE_AXES_ALL		0xfu

/* The row a GATHER writes for an index out of range: the quiet NaN. */
#define ANE_GATHER_NAN			0x7e00u

/* ane_norm_params.eps when it is 0: the fp32 bits of 1e-5. */
#define ANE_NORM_EPS_DEFAULT		0x3727c5acu

/* ane_pool_params.flags */
#define ANE_POOL_AVG_INCLUDE_PAD	(1u << 0)	/* divide by the full window */

/* ane_matmul_params.flags */
#define ANE_MATMUL_TRANS_B		(1u << 0)	/* src[1] is [.., N, K] */

/* Padding order in the pad[] arrays below. */
enum ane_pad {
	ANE_PAD_TOP = 0,
	ANE_PAD_BOTTOM = 1,
	ANE_PAD_LEFT = 2,
	ANE_PAD_RIGHT = 3,
};

/**
 * struct ane_conv_params - ANE_OP_CONV
 * @stride: vertical, horizontal; 1 .. ANE_MATH_MAX_KERNEL.
 * @dilation: vertical, horizontal; 1 .. ANE_MATH_MAX_KERNEL.
 * @pad: zero padding per side (enum ane_pad), each smaller than the
 *	dilated kernel extent on its axis.  A tap over padding adds
 *	weight * 0, as in IEEE arithmetic: NaN for an infinite or NaN
 *	weight (see engine.rst, "IEEE special values").
 * @groups: Cin and Cout are both multiples of it; groups == Cin == Cout is
 *	depthwise.
 *
 * src[0] is the input [N, Cin, H, W]; src[1] the weights
 * [Cout, Cin/groups, KH, KW]; bias, if its base is not NULL, is
 * [1, Cout, 1, 1]; dst is [N, Cout, Ho, Wo] with
 * Ho = (H + pad_top + pad_bottom - (dilation_h * (KH - 1) + 1)) / stride_h + 1
 * and Wo likewise.
 */
struct ane_conv_params {
	uint32_t stride[2];
	uint32_t dilation[2];
	uint32_t pad[4];
	uint32_t groups;
};

/**
 * struct ane_matmul_params - ANE_OP_MATMUL
 * @flags: ANE_MATMUL_TRANS_B or 0.
 *
 * dst[n][c] (M x N, in H x W) = src[0][n][c] (M x K) * src[1][n][c]
 * (K x N, or N x K with ANE_MATMUL_TRANS_B).  The batch dimensions N and C
 * of each source are either the destination's or 1 (broadcast).
 *
 * With a bias (ane_op_desc.bias present), dst = act(P + bias), P the
 * product rounded to fp16 and the sum taken in fp32 before the
 * activation and the final rounding: the same bits as a MATMUL without
 * bias or activation followed by an ELTWISE ADD of the bias with the
 * activation, in one operation whose epilogue runs on each chunk's part
 * of dst while it is in the cache.  Each dimension of the bias is dst's
 * or 1, as for an ELTWISE operand: [1, 1, 1, N] is a per-column bias (a
 * linear layer's), [1, C, 1, N] one per head, dst's own extents a
 * residual.  It must not overlap dst.
 */
struct ane_matmul_params {
	uint32_t flags;
};

/**
 * struct ane_eltwise_params - ANE_OP_ELTWISE
 * @op: enum ane_eltwise_op.
 *
 * dst = act(src[0] OP src[1]).  Each dimension of each source is either
 * the destination's or 1, which broadcasts it: [1, C, 1, 1] is a
 * per-channel operand, [1, 1, 1, 1] a scalar.
 */
struct ane_eltwise_params {
	uint32_t op;
};

/**
 * struct ane_pool_params - ANE_OP_POOL
 * @kind: enum ane_pool_kind.
 * @flags: ANE_POOL_AVG_INCLUDE_PAD (average pooling only).
 * @kernel: window height, width; 1 .. ANE_MATH_MAX_KERNEL.
 * @stride: vertical, horizontal; 1 .. ANE_MATH_MAX_KERNEL.
 * @pad: per side (enum ane_pad), each smaller than the window on its axis,
 *	so every window holds at least one real element.
 *
 * Padding never wins a max.  An average divides by the number of real
 * elements in the window unless ANE_POOL_AVG_INCLUDE_PAD is set, in which
 * case padding counts as zeros and the divisor is KH * KW.
 * Output size as for ane_conv_params with dilation 1.
 */
struct ane_pool_params {
	uint32_t kind;
	uint32_t flags;
	uint32_t kernel[2];
	uint32_t stride[2];
	uint32_t pad[4];
};

/**
 * struct ane_norm_params - ANE_OP_NORM
 * @kind: enum ane_norm_kind.
 * @eps: ANE_NORM_LAYER's epsilon, the bits of an fp32 that is finite and
 *	greater than zero, or 0 for 1e-5 (ANE_NORM_EPS_DEFAULT, what every
 *	layer normalization used before the field existed); 0 for the
 *	other kinds.
 *
 * Over the W elements of each row (n, c, h), W at most
 * ANE_MATH_MAX_SOFTMAX: ANE_NORM_SOFTMAX is softmax, numerically stable
 * as ANE_OP_SOFTMAX; ANE_NORM_LAYER subtracts the row's mean and divides
 * by sqrt(var + eps), var the mean of the squared differences (PyTorch's
 * layer_norm without its affine part, which ELTWISE MUL and ADD supply);
 * ANE_NORM_LOG_SOFTMAX is (x - max) - log(sum of exp(x - max)), the
 * exponentials and their sum as the softmax's.
 * src[0] and dst have the same extents; act must be ANE_ACT_NONE.
 */
struct ane_norm_params {
	uint32_t kind;
	uint32_t eps;
};

/**
 * struct ane_copy_params - ANE_OP_COPY
 * @src_offset: element index, counted from src[0].base, of the source
 *	view's element [0][0][0][0]; at most ANE_MATH_MAX_COPY_OFFSET.
 * @dst_offset: element index, counted from dst.base, of the destination
 *	view's element [0][0][0][0]; at most ANE_MATH_MAX_COPY_OFFSET.
 *
 * dst[n][c][h][w] = src[0][n][c][h][w] with the fp16 bits unchanged (a
 * NaN's payload and the sign of a zero included); the two views have the
 * same extents.  Unlike every other operation's, a COPY's tensors start
 * where their buffers start and name their first element by an offset:
 * source element [n][c][h][w] is at src[0].base + 2 * (src_offset +
 * n*sN + c*sC + h*sH + w*sW), its strides read as signed (int64_t, two's
 * complement in the uint64_t fields): a negative stride walks backwards (a
 * reversed slice, a reflection), 0 repeats one element (a broadcast, a
 * fill from a single value).  The destination's strides are
 * non-negative and no two of its elements share memory.  Every element
 * either view reaches -- from the least to the greatest index over the
 * signed strides, computed with every product and sum checked for
 * overflow -- lies inside [base, base + size) of its tensor; the
 * elements of the destination's buffer the view does not reach are left
 * as they were.  The byte ranges the two views span must not overlap.
 * act is ANE_ACT_NONE; src[1] and bias are all zero.
 */
struct ane_copy_params {
	uint64_t src_offset;
	uint64_t dst_offset;
};

/**
 * struct ane_reduce_params - ANE_OP_REDUCE
 * @kind: enum ane_reduce_kind.
 * @axes: the dimensions reduced, ANE_REDUCE_AXIS() of each (bit 0 N ..
 *	bit 3 W); not 0, no bit above 3.
 *
 * dst has src[0]'s extents but 1 along every reduced dimension; each of
 * its elements combines the src[0] elements that share its coordinates
 * along the dimensions not reduced, in NCHW order (W fastest).  The
 * combination runs in double precision, in that order whatever the
 * chunking, the cores or the instruction set (see engine.rst, "Reductions");
 * the result is rounded to fp16 once (with an activation: to fp32, then
 * the activation, then fp16).  act is any activation without parameters
 * (below ANE_ACT_FIRST_PARAM); src[1] and bias are all zero; dst does not overlap
 * src[0].
 */
struct ane_reduce_params {
	uint32_t kind;
	uint32_t axes;
};

/*
 * ANE_OP_GATHER has no parameters (every byte of ane_op_desc.p is zero).
 * src[0] is the table [N, C, H, W], src[1] the indices [1, 1, 1, K], dst
 * [N, C, K, W]: dst[n][c][k][w] = src[0][n][c][i][w] with i the index
 * src[1][0][0][0][k], its 2 bytes an int16 in two's complement -- not an
 * fp16 -- and, when negative, counted from the end (i + H, as ONNX's
 * Gather).  The fp16 bits of the table are copied unchanged, as a COPY's.
 * An index outside [-H, H) reads nothing and writes a row of
 * ANE_GATHER_NAN (ane_op_gather_oob() counts those indices).  H is at
 * most ANE_MATH_MAX_GATHER_H; act is ANE_ACT_NONE; there is no bias; dst
 * overlaps neither source.  An ONNX Gather along any axis is one by a
 * reshape: the outer axes in N * C, the gathered one in H, the inner ones
 * in W; an embedding's table is [1, 1, V, D].
 */

/**
 * struct ane_act_params - ANE_OP_ACT with a parametric activation
 * @alpha: fp32 bit pattern of the activation's alpha (enum ane_act).
 * @beta: fp32 bit pattern of its beta.
 *
 * Finite values only (a NaN or an infinity is -ANE_MATH_EINVAL); CELU's
 * alpha is not zero.  Both zero for an activation without parameters
 * (and every ANE_OP_ACT before image minor version 4); a parametric
 * activation is never fused into another operation, whose parameters
 * have no room for these.
 */
struct ane_act_params {
	uint32_t alpha;
	uint32_t beta;
};

/**
 * struct ane_op_desc - one operation, plain data
 * @op: enum ane_op.
 * @act: enum ane_act, fused into the result of CONV, MATMUL, ELTWISE and
 *	POOL (and REDUCE, see &struct ane_reduce_params); the operation
 *	itself for ACT; must be NONE for SOFTMAX, COPY, NORM and GATHER.  The
 *	parametric ones (ane_act_is_parametric()) only for ACT.
 * @chunk_work: target size of one chunk in multiply-add equivalents; 0
 *	means ANE_MATH_CHUNK_WORK_DEFAULT.  It changes only how the work is
 *	split, never the result (bit for bit).
 * @src: inputs.  CONV: input, weights.  MATMUL: A, B.  ELTWISE: a, b.
 *	GATHER: the table, the int16 indices [1, 1, 1, K].
 *	ACT, POOL, SOFTMAX, NORM, COPY, REDUCE: src[0] only; src[1] must be
 *	all zero.
 * @bias: CONV and MATMUL, optional (base NULL for none); otherwise all
 *	zero.  CONV: [1, Cout, 1, 1], added before the activation in fp32;
 *	MATMUL: broadcast onto dst, see ane_matmul_params.
 * @dst: the output.  It must not overlap any input, except that ELTWISE,
 *	ACT, SOFTMAX and NORM may run in place on an input of identical view.
 *	(A COPY's tensors are its buffers, see &struct ane_copy_params.)
 * @work: scratch memory of at least ane_op_workspace_size() bytes,
 *	ANE_MATH_WORK_ALIGN-aligned; may be NULL when that size is 0.  The
 *	chunks of one run keep state in it, so it is not shared between
 *	operations running at the same time.
 * @work_size: its size in bytes.
 * @p: the parameters of @op.
 */
struct ane_op_desc {
	uint32_t op;
	uint32_t act;
	uint64_t chunk_work;
	struct ane_tensor src[2];
	struct ane_tensor bias;
	struct ane_tensor dst;
	void *work;
	uint64_t work_size;
	union {
		struct ane_conv_params conv;
		struct ane_matmul_params matmul;
		struct ane_eltwise_params eltwise;
		struct ane_pool_params pool;
		struct ane_norm_params norm;
		struct ane_copy_params copy;
		struct ane_reduce_params reduce;
		struct ane_act_params act;
	} p;
};

/* --- ane_op_check.c: integer only, callable from any kernel context --- */

/**
 * ane_op_check() - check a descriptor's operation against the instruction set
 * @d: the descriptor, possibly built from untrusted input; its buffers'
 *	contents, @d->work and @d->work_size are not looked at.
 *
 * Everything ane_op_validate() checks but the workspace: shapes against
 * the operation, parameters against their ranges, unused tensors and
 * parameter bytes zero, every extent within its buffer size with every
 * product checked for overflow, and which tensors may share memory.  The
 * kernel's image validator asks it of every task descriptor, the engine of
 * every operation it runs.
 *
 * Return: 0, -ANE_MATH_EINVAL (malformed), -ANE_MATH_ENOSPC (a buffer too
 * small) or -ANE_MATH_EOVERFLOW (a size overflows).
 */
int ane_op_check(const struct ane_op_desc *d);

/**
 * ane_tensor_extent() - the bytes a tensor spans
 * @t: the tensor; its strides are taken as unsigned.
 * @bytes: set to the bytes from @t's base to one past its last element.
 *
 * Return: 0, -ANE_MATH_EINVAL (an extent out of range) or
 * -ANE_MATH_EOVERFLOW.
 */
int ane_tensor_extent(const struct ane_tensor *t, uint64_t *bytes);

/* --- ane_math_plan.c: integer only, callable from any kernel context --- */

/**
 * ane_op_workspace_size() - scratch memory a descriptor needs
 * @d: the descriptor; @d->work and @d->work_size are not looked at.
 * @size: set to the bytes needed (0 if none) on success.
 *
 * Validates everything ane_op_validate() does except the workspace.
 *
 * Return: 0, or a negative ANE_MATH_E* code (then @size is untouched).
 */
int ane_op_workspace_size(const struct ane_op_desc *d, uint64_t *size);

/**
 * ane_op_validate() - check a descriptor completely before running it
 * @d: the descriptor, possibly built from untrusted input.
 *
 * Checks shapes against the operation, parameters against their ranges,
 * that unused tensors and parameter bytes are zero, that every extent fits
 * its buffer size with every product checked for overflow, that the output
 * does not overlap itself or (but for the in-place cases) any input, and
 * the workspace: present, aligned, large enough, not overlapping a tensor.
 * Nothing else here may be given a descriptor that has not passed it.
 *
 * Return: 0, -ANE_MATH_EINVAL (malformed), -ANE_MATH_ENOSPC (a buffer or
 * the workspace too small) or -ANE_MATH_EOVERFLOW (a size overflows).
 */
int ane_op_validate(const struct ane_op_desc *d);

/**
 * ane_op_chunks() - number of chunks of a validated descriptor
 * @d: the descriptor.
 *
 * Return: the chunk count, at least 1.
 */
uint64_t ane_op_chunks(const struct ane_op_desc *d);

/**
 * ane_view_range() - the least and greatest element a strided view reaches
 * @t: the view's extents and strides (its base and size are not looked at).
 * @offset: the element index of view element [0][0][0][0], at most
 *	ANE_MATH_MAX_COPY_OFFSET.
 * @is_signed: nonzero: the strides are signed (int64_t in the uint64_t
 *	fields, a COPY's source); zero: each must be non-negative.
 * @lo: set to the least element index reached (negative: before index 0).
 * @hi: set to the greatest.
 *
 * Every product and sum is checked for overflow.
 *
 * Return: 0, -ANE_MATH_EINVAL (an extent outside 1 .. ANE_MATH_MAX_DIM, or
 * a negative stride where @is_signed is zero) or -ANE_MATH_EOVERFLOW (the
 * offset or the view too large, more than ANE_MATH_MAX_ELEMS elements).
 */
int ane_view_range(const struct ane_tensor *t, uint64_t offset, int is_signed,
		   int64_t *lo, int64_t *hi);

/**
 * ane_op_gather_oob() - the indices of a GATHER out of range
 * @d: a validated ANE_OP_GATHER descriptor whose src[1] holds its indices.
 *
 * Integer only; reads the K indices (not the table), so it may run before,
 * after or without the operation.  The engine model adds it to its
 * ENG_GATHER_OOB counter for every GATHER it completes.
 *
 * Return: how many of the K indices lie outside [-H, H) (each wrote, or
 * writes, N * C rows of ANE_GATHER_NAN); 0 for any other operation.
 */
uint64_t ane_op_gather_oob(const struct ane_op_desc *d);

/**
 * ane_tensor_dense() - describe a dense NCHW tensor
 * @t: the tensor to fill.
 * @base: address of its first element.
 * @n: extent of N.
 * @c: extent of C.
 * @h: extent of H.
 * @w: extent of W.
 *
 * Sets strides {C*H*W, H*W, W, 1} and the size to exactly the elements.
 */
void ane_tensor_dense(struct ane_tensor *t, void *base, uint32_t n,
		      uint32_t c, uint32_t h, uint32_t w);

/**
 * ane_fp16_from_fp32_bits() - fp32 to fp16 on bit patterns
 * @f: the fp32 bits.
 *
 * Round to nearest, ties to even; overflow to infinity; NaN stays NaN,
 * made quiet, with the top payload bits kept.  No floating point.
 *
 * Return: the fp16 bits.
 */
uint16_t ane_fp16_from_fp32_bits(uint32_t f);

/**
 * ane_fp16_to_fp32_bits() - fp16 to fp32 on bit patterns, exactly
 * @h: the fp16 bits.
 *
 * Return: the fp32 bits.
 */
uint32_t ane_fp16_to_fp32_bits(uint16_t h);

#endif /* ANE_ISA_H */
