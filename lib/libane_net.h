/* SPDX-License-Identifier: MIT */
/*
 * libane: the net builder -- tensors, operations, the program image and
 * the CPU reference executor.  Included by <libane.h>; not to be
 * included alone.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef LIBANE_NET_H
#define LIBANE_NET_H

#ifndef LIBANE_H
#error "include <libane.h>, which includes this header"
#endif

/*
 * A net is a list of tensors (dense NCHW fp16 on the engine) and of
 * operations in execution order.  Every function that adds a tensor
 * returns its id (>= 0) or a negative errno; on failure the net keeps a
 * message naming the call, the op index and the mismatch, e.g.
 * "ane_net_matmul: op 3: inner dimensions differ: a is 2x3, b is 4x2",
 * readable with ane_net_errmsg().  Failures are sticky: later calls may be
 * made without checking each one (an id < 0 passed on is reported as
 * such), and ane_net_build() and ane_net_reference() refuse a net that
 * had a failure, quoting the first.
 */
struct ane_net;

/* Activations: the task descriptor's ACT word. */
enum ane_net_act {
	ANE_NET_ACT_NONE = 0,
	ANE_NET_ACT_RELU = 1,		/* max(x, 0) */
	ANE_NET_ACT_RELU6 = 2,		/* min(max(x, 0), 6) */
	ANE_NET_ACT_SIGMOID = 3,
	ANE_NET_ACT_TANH = 4,
	ANE_NET_ACT_GELU = 5,		/* x * Phi(x), the exact form */
	ANE_NET_ACT_GELU_TANH = 6,	/* the tanh approximation */
	/* image minor version 4 (Documentation/accel/ane/engine.rst) */
	ANE_NET_ACT_SILU = 7,		/* x * sigmoid(x) */
	ANE_NET_ACT_EXP = 8,
	ANE_NET_ACT_LOG = 9,		/* log(-x) NaN, log(0) -inf */
	ANE_NET_ACT_SQRT = 10,		/* sqrt(-x) NaN */
	ANE_NET_ACT_RECIP = 11,		/* 1 / x */
	ANE_NET_ACT_ERF = 12,
	ANE_NET_ACT_ABS = 13,
	ANE_NET_ACT_NEG = 14,
	ANE_NET_ACT_SOFTPLUS = 15,	/* log(1 + e^x) */
	ANE_NET_ACT_SOFTSIGN = 16,	/* x / (1 + |x|) */
	ANE_NET_ACT_HARDSWISH = 17,	/* x * relu6(x + 3) / 6 */
	ANE_NET_ACT_SIN = 18,
	ANE_NET_ACT_COS = 19,
	/*
	 * Parametric: only through ane_net_activation_param(), never fused
	 * into another operation.
	 */
	ANE_NET_ACT_ELU = 20,		/* x > 0 ? x : alpha (e^x - 1) */
	ANE_NET_ACT_SELU = 21,		/* beta (x > 0 ? x : alpha (e^x - 1)) */
	ANE_NET_ACT_LEAKY = 22,		/* x >= 0 ? x : alpha x */
	ANE_NET_ACT_CLIP = 23,		/* min(max(x, alpha), beta) */
	ANE_NET_ACT_HARDSIGMOID = 24,	/* max(0, min(1, alpha x + beta)) */
	ANE_NET_ACT_CELU = 25,		/* max(0, x) + min(0, alpha (e^(x/alpha) - 1)) */
	ANE_NET_ACT_THRESHOLDED_RELU = 26, /* x > alpha ? x : 0 */
};

/* Elementwise operations: dst = a OP b (the TD's SUBOP word). */
enum ane_net_eltwise_op {
	ANE_NET_ADD = 0,
	ANE_NET_SUB = 1,		/* a - b */
	ANE_NET_MUL = 2,
	ANE_NET_MAX = 3,		/* NaN if either is NaN */
	ANE_NET_MIN = 4,
	ANE_NET_DIV = 5,		/* a / b, IEEE (image minor version 4) */
	ANE_NET_POW = 6,		/* a^b, C99 pow()'s special cases */
};

enum ane_net_pool_kind {
	ANE_NET_POOL_MAX = 0,
	ANE_NET_POOL_AVG = 1,
};

/* ane_net_matmul() flags. */
#define ANE_NET_TRANSPOSE_B	0x1u	/* b is [.., N, K] */

/* The shape of a tensor. */
struct ane_net_shape {
	uint32_t n, c, h, w;
};

/*
 * Convolution parameters.  Zero strides, dilations and groups mean 1, so
 * an all-zero struct is a stride-1, unpadded, ungrouped convolution.
 */
struct ane_net_conv_params {
	uint32_t stride_h, stride_w;		/* 1 .. 64 */
	uint32_t dilation_h, dilation_w;	/* 1 .. 64 */
	uint32_t pad_top, pad_bottom;		/* < dilated kernel height */
	uint32_t pad_left, pad_right;		/* < dilated kernel width */
	uint32_t groups;			/* divides Cin and Cout */
	enum ane_net_act act;			/* fused, after the bias */
};

/*
 * Pooling parameters.  Zero strides mean the window's size.  Padding
 * never wins a max; an average divides by the real elements of the
 * window, or by KH * KW (padding counting as zeros) with @count_pad.
 */
struct ane_net_pool_params {
	enum ane_net_pool_kind kind;
	uint32_t kernel_h, kernel_w;		/* 1 .. 64 */
	uint32_t stride_h, stride_w;		/* 1 .. 64 */
	uint32_t pad_top, pad_bottom;		/* < kernel_h */
	uint32_t pad_left, pad_right;		/* < kernel_w */
	uint32_t count_pad;			/* average pooling only */
	enum ane_net_act act;			/* fused */
};

/* A new, empty net; -ENOMEM if out of memory. */
LIBANE_EXPORT int ane_net_create(struct ane_net **out);

/* Free a net and its image.  NULL is a no-op. */
LIBANE_EXPORT void ane_net_destroy(struct ane_net *net);

/* The message of the last failed call, "" if the last call succeeded. */
LIBANE_EXPORT const char *ane_net_errmsg(const struct ane_net *net);

/*
 * The next input of the program (input index = call order, at most 16),
 * [n, c, h, w].  @name (NULL for "input<i>") appears in messages.
 */
LIBANE_EXPORT int ane_net_input(struct ane_net *net, const char *name,
				uint32_t n, uint32_t c, uint32_t h, uint32_t w);

/*
 * An input whose elements are int16 indices, not fp16 values ([n, c, h,
 * w]); the caller's data for it is float (whole numbers in -32768 ..
 * 32767) that ane_model_run/the run API converts to int16
 * (ane_index_from_float()).  It is the next input, as ane_net_input()'s;
 * only ane_net_gather() reads it, as its indices (a reshape of it,
 * ane_net_reshape(), is an index tensor too): any other use is refused
 * with a message naming it.
 */
LIBANE_EXPORT int ane_net_input_index(struct ane_net *net, const char *name,
				      uint32_t n, uint32_t c, uint32_t h,
				      uint32_t w);

/*
 * Whether input @i holds int16 indices (ane_net_input_index()): 1, 0 for
 * an fp16 input, -EINVAL if there is no input @i.  Whoever fills the
 * net's input surfaces converts index inputs with
 * ane_index_from_float_array() instead of ane_fp16_from_float_array()
 * (ane_net_run() and ane_net_reference() do).
 */
LIBANE_EXPORT int ane_net_input_is_index(const struct ane_net *net,
					 unsigned int i);

/*
 * The same question of a program image, for an executor that has only
 * the image (ane_model_exec_fn): 1 when input @i of its first procedure
 * is bound as a GATHER's indices (operand 1 of a task of op 10, whose
 * elements the engine reads as int16), 0 when it is not, -EINVAL for an
 * image too short or malformed to say, or no input @i.  For the images
 * ane_net_build() makes this is ane_net_input_is_index().
 */
LIBANE_EXPORT int ane_image_input_is_index(const void *image, size_t size,
					   unsigned int i);

/*
 * A constant tensor [n, c, h, w] (weights, bias, an elementwise operand),
 * @data dense NCHW fp32, rounded to fp16 now and stored in the image's
 * weights section.  A finite value that overflows fp16 is refused.
 */
LIBANE_EXPORT int ane_net_const(struct ane_net *net, const char *name,
				uint32_t n, uint32_t c, uint32_t h, uint32_t w,
				const float *data);

/*
 * Convolution: @x [N, Cin, H, W], @weights [Cout, Cin/groups, KH, KW],
 * @bias [1, Cout, 1, 1] or -1 for none.  Result [N, Cout, Ho, Wo] with
 * Ho = (H + pad_top + pad_bottom - dilation_h * (KH - 1) - 1) / stride_h + 1.
 * @p NULL: stride 1, no padding, no activation.
 */
LIBANE_EXPORT int ane_net_conv(struct ane_net *net, int x, int weights,
			       int bias, const struct ane_net_conv_params *p);

/*
 * Batched matrix product: @a [Na, Ca, M, K] times @b [Nb, Cb, K, N]
 * ([Nb, Cb, N, K] with ANE_NET_TRANSPOSE_B); each batch dimension equal
 * or 1 (broadcast).  Result [max(Na, Nb), max(Ca, Cb), M, N].
 */
LIBANE_EXPORT int ane_net_matmul(struct ane_net *net, int a, int b,
				 uint32_t flags, enum ane_net_act act);

/*
 * A view of @x [N, C, H, W] that ane_net_matmul() reads in place, without
 * a copy: its columns [@col, @col + @heads * @width).  @heads 1: the view
 * is [N, C, H, @width], element [n][c][h][w] = x[n][c][h][col + w].
 * @heads > 1 (x is [1, 1, H, W]): the columns split into @heads blocks of
 * @width as channels, [1, heads, H, width], element [0][c][h][w] =
 * x[0][0][h][col + c * width + w] -- the heads of one fused Q/K/V
 * projection.  @col is a multiple of 8 (16-byte aligned) and x's W at
 * most 65535 (the engine's row stride); x is no view.  Only
 * ane_net_matmul() takes a view as an operand; the view keeps x alive.
 */
LIBANE_EXPORT int ane_net_view(struct ane_net *net, int x, uint32_t col,
			       uint32_t width, uint32_t heads);

/*
 * The heads of @x [1, C, H, W] side by side, [1, 1, H, C * W]: element
 * [0][0][h][c * W + w] = x[0][c][h][w], without a copy.  @x must be the
 * result of an ane_net_matmul() that nothing has read yet and no output:
 * that matmul writes its planes in place into the result's column blocks
 * (a strided destination), and @x is from then on a view of the result
 * (ane_net_view()'s rules: only ane_net_matmul() reads it).  W is a
 * multiple of 8 and C * W at most 65535.  Returns the result's id.
 */
LIBANE_EXPORT int ane_net_merge_heads(struct ane_net *net, int x);

/*
 * Elementwise @a OP @b, then @act.  Each dimension of each operand is the
 * result's or 1 (broadcast): [1, C, 1, 1] is per channel, [1, 1, 1, 1] a
 * scalar.
 */
LIBANE_EXPORT int ane_net_eltwise(struct ane_net *net,
				  enum ane_net_eltwise_op op, int a, int b,
				  enum ane_net_act act);

/*
 * @act applied to @x (ANE_NET_ACT_NONE copies).  A parametric activation
 * (ANE_NET_ACT_ELU ..) is refused: ane_net_activation_param() takes its
 * parameters.
 */
LIBANE_EXPORT int ane_net_activation(struct ane_net *net, int x,
				     enum ane_net_act act);

/*
 * @act with its parameters applied to @x: the parametric activations
 * (ANE_NET_ACT_ELU .. ANE_NET_ACT_THRESHOLDED_RELU, their alpha and beta
 * as the enum says; each finite, CELU's alpha not zero), or any other
 * with @alpha and @beta 0.  One task of its own (a parametric activation
 * is never fused).  Returns the new tensor's id, or a negative errno
 * with ane_net_errmsg() naming the bad field.
 */
LIBANE_EXPORT int ane_net_activation_param(struct ane_net *net, int x,
					   enum ane_net_act act, float alpha,
					   float beta);

/* Max or average pooling of @x over H and W. */
LIBANE_EXPORT int ane_net_pool(struct ane_net *net, int x,
			       const struct ane_net_pool_params *p);

/* Softmax of @x over its channels (C at most 65536). */
LIBANE_EXPORT int ane_net_softmax(struct ane_net *net, int x);

/* ane_net_norm() kinds: over W, at every (n, c, h). */
enum ane_net_norm_kind {
	ANE_NET_NORM_SOFTMAX = 0,	/* softmax over W */
	ANE_NET_NORM_LAYER = 1,		/* (x - mean) / sqrt(var + eps) */
	ANE_NET_NORM_LOG_SOFTMAX = 2,	/* x - max - log(sum(exp(x - max))) */
};

/*
 * Softmax, layer normalization (epsilon 1e-5) or log-softmax of @x over
 * W, its last axis (W at most 65536): attention scores, a transformer's
 * LayerNorm (its scale and shift are an ane_net_eltwise() MUL and ADD by
 * [1, 1, 1, W] constants), a classifier's log-probabilities.
 */
LIBANE_EXPORT int ane_net_norm(struct ane_net *net, int x,
			       enum ane_net_norm_kind kind);

/*
 * ane_net_norm() with an epsilon for ANE_NET_NORM_LAYER (0 for the
 * others): finite and greater than zero once rounded to fp32 (0 there
 * means 1e-5, as ane_net_norm()).
 */
LIBANE_EXPORT int ane_net_norm_eps(struct ane_net *net, int x,
				   enum ane_net_norm_kind kind, float eps);

/* ane_net_reduce() kinds (the task descriptor's SUBOP word). */
enum ane_net_reduce_kind {
	ANE_NET_REDUCE_SUM = 0,
	ANE_NET_REDUCE_MEAN = 1,
	ANE_NET_REDUCE_MAX = 2,		/* NaN if any element is NaN */
	ANE_NET_REDUCE_MIN = 3,		/* NaN if any element is NaN */
	ANE_NET_REDUCE_PROD = 4,
	ANE_NET_REDUCE_SUM_SQUARE = 5,	/* sum of x^2 */
	ANE_NET_REDUCE_L1 = 6,		/* sum of |x| */
	ANE_NET_REDUCE_L2 = 7,		/* sqrt(sum of x^2) */
	ANE_NET_REDUCE_LOG_SUM = 8,	/* log(sum) */
	ANE_NET_REDUCE_LOG_SUM_EXP = 9,	/* max + log(sum(exp(x - max))) */
};

/*
 * Reduce @x over the axes set in @axes (bit 0 N, 1 C, 2 H, 3 W); the
 * result keeps those axes with extent 1 (ONNX's keepdims=1; a reshape
 * drops them).  @axes is 1 .. 15.  One REDUCE task, computed in double
 * precision in NCHW order and rounded to fp16 once, then @act.
 */
LIBANE_EXPORT int ane_net_reduce(struct ane_net *net, int x,
				 enum ane_net_reduce_kind kind, uint32_t axes,
				 enum ane_net_act act);

/*
 * Rows of @table [N, C, H, W] picked by @indices (an index tensor, [1, 1,
 * 1, K]): [N, C, K, W], element [n][c][k][w] = table[n][c][i][w] for i
 * index k, counted from the end when negative (i + H), the fp16 bits
 * unchanged.  One GATHER task (image minor 4).  An index outside [-H, H)
 * gives a row of NaN (0x7e00), never a read out of bounds.  H is at most
 * 32767.  ONNX Gather along any axis is one after a reshape (the outer
 * axes in N and C, the gathered one in H, the inner ones in W); an
 * embedding's table is [1, 1, V, D].
 */
LIBANE_EXPORT int ane_net_gather(struct ane_net *net, int table, int indices);

/* ------------------------------------------------------------ data movement
 *
 * One task, COPY (Documentation/accel/ane/engine.rst), moves the
 * elements of a strided view of one tensor into a view of another with
 * the fp16 bits unchanged; transposes, slices, concatenations, paddings,
 * broadcasts and fills are all made of it.  A copy may write into a
 * region of a tensor that already exists -- one made by ane_net_empty(),
 * or any operation's result -- so a concatenation or a padding is one
 * buffer its pieces are copied into, not a copy of a copy.  Operations
 * run in call order: a task reading a tensor sees what the copies before
 * it wrote.
 */

/*
 * A strided view of a tensor's elements (ane_net_copy(), ane_net_fill()).
 * A tensor [N, C, H, W]'s elements are numbered in dense NCHW order:
 * element [n][c][h][w] is number ((n * C + c) * H + h) * W + w.  View
 * element [n][c][h][w] is element number offset + n * stride[0] + c *
 * stride[1] + h * stride[2] + w * stride[3] of the tensor.  Extents are
 * 1 .. 2^24; |stride| < 2^31.  A source's strides may be negative (a
 * reversed slice, a reflection) or 0 (a broadcast); a destination's are
 * non-negative and no two of its elements are the same element.  Every
 * element a view reaches is one of the tensor's.
 */
struct ane_net_view_desc {
	uint32_t dim[4];			/* N, C, H, W of the view */
	int64_t stride[4];			/* in elements of the tensor */
	int64_t offset;				/* the element of [0][0][0][0] */
};

/*
 * Copy view @src of @x (NULL: all of @x, densely) into view @dst_view
 * of @dst, element by element, the bits unchanged: one COPY task.
 * @dst -1: into a new dense tensor of @src's extents (@dst_view NULL),
 * whose id is returned.  @dst >= 0: into a tensor that exists, returned:
 * an operation's result, an ane_net_empty() tensor or a reshape of one
 * (not an input or a constant, which the program never writes);
 * @dst_view NULL is all of it (then its extents are @src's).  @dst's
 * other elements keep their values.  The source and destination may be
 * one tensor if the elements they reach do not overlap.  @x may be a
 * view (ane_net_view()) or a reshape.
 */
LIBANE_EXPORT int ane_net_copy(struct ane_net *net, int x,
			       const struct ane_net_view_desc *src, int dst,
			       const struct ane_net_view_desc *dst_view);

/*
 * @x's axes permuted: result [x.dim[perm[0]], .., x.dim[perm[3]]],
 * element [i0][i1][i2][i3] = x[..] with index perm[k] of x equal to ik.
 * @perm is a permutation of 0..3.  One COPY (ONNX Transpose of rank <= 4
 * after padding the shape to 4 with leading 1s).
 */
LIBANE_EXPORT int ane_net_transpose(struct ane_net *net, int x,
				    const uint32_t perm[4]);

/*
 * @x's elements, in their dense NCHW order, as [n, c, h, w], the same
 * number of them: a view of @x's storage, no task, no copy.  Every
 * operation reads a reshape as it reads any tensor, a copy may write
 * into one (it writes the storage), and a reshape of an operation's
 * result may be an output.  A reshape of a reshape is one of the
 * original; of a strided view (ane_net_view()), a dense copy of the view
 * is made first (one COPY).
 */
LIBANE_EXPORT int ane_net_reshape(struct ane_net *net, int x, uint32_t n,
				  uint32_t c, uint32_t h, uint32_t w);

/*
 * A new tensor [n, c, h, w] with no values yet, for copies and fills to
 * write into (a concatenation's or a padding's result); it may be an
 * output.  Reading an element no task wrote reads whatever the buffer
 * held: ane_net_build() refuses a net that reads or outputs one that no
 * task writes at all.  @name (NULL: "empty<i>") is for messages.
 */
LIBANE_EXPORT int ane_net_empty(struct ane_net *net, const char *name,
				uint32_t n, uint32_t c, uint32_t h, uint32_t w);

/*
 * Set every element of view @dst_view of @dst (NULL: all of it) to
 * @value, rounded to fp16 (a finite value that overflows fp16 is
 * refused): a COPY from a one-element constant with every stride 0.
 * @dst as for ane_net_copy(); returned.
 */
LIBANE_EXPORT int ane_net_fill(struct ane_net *net, int dst,
			       const struct ane_net_view_desc *dst_view,
			       float value);

/*
 * The @n (1 .. 64) tensors @xs side by side along @axis (0 N .. 3 W):
 * their other extents equal, the result's extent along @axis their sum.
 * One ane_net_empty() tensor and one COPY into it per input.
 */
LIBANE_EXPORT int ane_net_concat(struct ane_net *net, const int *xs,
				 unsigned int n, unsigned int axis);

/*
 * Elements start[k] + i * step[k], i < dims[k], of @x along each axis k:
 * [dims[0], .., dims[3]].  A step may be negative (ONNX Slice with
 * negative steps) or 0 (the one element repeated); every index must be
 * inside @x.  One COPY.
 */
LIBANE_EXPORT int ane_net_slice(struct ane_net *net, int x,
				const int64_t start[4], const int64_t step[4],
				const uint32_t dims[4]);

/* ane_net_pad() modes (ONNX Pad's). */
enum ane_net_pad_mode {
	ANE_NET_PAD_CONSTANT = 0,	/* @value */
	ANE_NET_PAD_EDGE = 1,		/* the nearest edge element */
	ANE_NET_PAD_REFLECT = 2,	/* mirrored, the edge not repeated */
	ANE_NET_PAD_WRAP = 3,		/* from the other side */
};

/*
 * @x padded by pads[k] elements before and pads[4 + k] after along axis
 * k (ONNX's order: N, C, H, W begins, then ends).  CONSTANT: a fill of
 * the result and a copy of @x into it; EDGE, REFLECT and WRAP: one copy
 * per region of the result (the inside, and each combination of
 * before/inside/after along the padded axes), each a strided view of
 * @x -- a reflection walks backwards, an edge repeats with stride 0.
 * REFLECT needs each pad below the extent; WRAP at most the extent.
 */
LIBANE_EXPORT int ane_net_pad(struct ane_net *net, int x,
			      const uint32_t pads[8],
			      enum ane_net_pad_mode mode, float value);

/*
 * Make the result of an operation the next output of the program (output
 * index = call order, at most 16).  Returns the output index.
 */
LIBANE_EXPORT int ane_net_output(struct ane_net *net, int tensor);

/* Introspection.  Counts are 0 for a NULL net. */
LIBANE_EXPORT unsigned int ane_net_num_inputs(const struct ane_net *net);
LIBANE_EXPORT unsigned int ane_net_num_outputs(const struct ane_net *net);
LIBANE_EXPORT unsigned int ane_net_num_ops(const struct ane_net *net);
/* Tensor id of input / output @i, or -EINVAL. */
LIBANE_EXPORT int ane_net_input_tensor(const struct ane_net *net, unsigned int i);
LIBANE_EXPORT int ane_net_output_tensor(const struct ane_net *net, unsigned int i);
/* Shape of tensor @tensor; -EINVAL if there is no such tensor. */
LIBANE_EXPORT int ane_net_shape(const struct ane_net *net, int tensor,
				struct ane_net_shape *shape);

/*
 * Compile the net into one program image with one procedure: a task
 * descriptor per operation in order; one input bar per input
 * (io_index = input index), one output bar per output, every constant in
 * one weights bar, every other result in one intermediate bar whose space
 * is reused once a result is dead.  The image belongs to the net and
 * stays valid until the net is changed or destroyed.
 */
LIBANE_EXPORT int ane_net_build(struct ane_net *net, const void **image,
				size_t *size);

/*
 * Run the net on the CPU as the engine would: inputs rounded to fp16,
 * every operation computed in double precision from fp16 operands and its
 * result rounded to fp16.  @inputs[i] and @outputs[j] are dense NCHW fp32
 * arrays of input i and output j.  See Documentation/accel/ane/libane.rst
 * for how closely the engine agrees.
 */
LIBANE_EXPORT int ane_net_reference(struct ane_net *net,
				    const float *const *inputs,
				    float *const *outputs);

#endif /* LIBANE_NET_H */
