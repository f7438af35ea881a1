/* SPDX-License-Identifier: MIT */
/*
 * libane's ONNX front end, internal: the graph the loader makes from a
 * ModelProto (ox_load.c), the ops' shape inference and CPU kernels
 * (ox_ops*.c), the partitioner and compiler to program images
 * (ox_compile.c) and the runtime (ox_run.c).  Not installed; see
 * Documentation/accel/ane/onnx.rst.
 *
 * Names that are not static carry the ane__ox_ prefix (ane_internal.h).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_OX_H
#define ANE_OX_H

#include <stddef.h>
#include <stdint.h>

/* TensorProto.DataType, ONNX's numbering. */
enum ox_dtype {
	OX_UNDEFINED = 0,
	OX_FLOAT = 1,
	OX_UINT8 = 2,
	OX_INT8 = 3,
	OX_UINT16 = 4,
	OX_INT16 = 5,
	OX_INT32 = 6,
	OX_INT64 = 7,
	OX_STRING = 8,
	OX_BOOL = 9,
	OX_FLOAT16 = 10,
	OX_DOUBLE = 11,
	OX_UINT32 = 12,
	OX_UINT64 = 13,
	OX_COMPLEX64 = 14,
	OX_COMPLEX128 = 15,
	OX_BFLOAT16 = 16,
	OX_DTYPE_COUNT = 17,
};

#define OX_MAX_RANK	8

/*
 * A dense tensor value: @dtype, row-major (C order) @dims[0..rank), @data
 * holding @count elements of ane__ox_dtype_size(dtype) bytes each (BOOL:
 * one byte, 0 or 1; FLOAT16 and BFLOAT16: their uint16_t bits).  Rank 0
 * is a scalar (count 1).  @data is owned by whoever made the value; it is
 * NULL only when @count is 0.
 */
struct ox_value {
	int dtype;
	int rank;
	int64_t dims[OX_MAX_RANK];
	size_t count;
	void *data;
};

/* A tensor of the graph: a graph input, an initializer or a node output. */
struct ox_tensor {
	char *name;
	int dtype;		/* enum ox_dtype; OX_UNDEFINED until inferred */
	int rank;		/* -1 until inferred */
	int64_t dims[OX_MAX_RANK];
	/*
	 * The value when it is known at load time: an initializer, a Constant
	 * node's output or a folded node's (ox_compile.c); else NULL.
	 */
	struct ox_value *konst;
	int producer;		/* node index, -1 for inputs and initializers */
	int is_input;		/* a graph input without an initializer */
	int is_output;		/* a graph output */
	int n_uses;		/* node inputs that name it */
	int last_use;		/* the last node (in order) that reads it, -1 */
};

/* AttributeProto.AttributeType. */
enum ox_attr_type {
	OX_ATTR_UNDEFINED = 0,
	OX_ATTR_FLOAT = 1,
	OX_ATTR_INT = 2,
	OX_ATTR_STRING = 3,
	OX_ATTR_TENSOR = 4,
	OX_ATTR_GRAPH = 5,
	OX_ATTR_FLOATS = 6,
	OX_ATTR_INTS = 7,
	OX_ATTR_STRINGS = 8,
	OX_ATTR_TENSORS = 9,
	OX_ATTR_GRAPHS = 10,
	OX_ATTR_SPARSE_TENSOR = 11,
	OX_ATTR_SPARSE_TENSORS = 12,
	OX_ATTR_TYPE_PROTO = 13,
	OX_ATTR_TYPE_PROTOS = 14,
};

/*
 * One attribute.  Only the member of @type is set: @f, @i, @s (NUL
 * terminated, @s_len bytes before the NUL), @floats/@ints (@n values),
 * @strings (@n), @t.  Graph-valued attributes (control flow) keep only
 * their type; the op that would need one is refused.
 */
struct ox_attr {
	char *name;
	int type;		/* enum ox_attr_type */
	float f;
	int64_t i;
	char *s;
	size_t s_len;
	size_t n;
	float *floats;
	int64_t *ints;
	char **strings;
	struct ox_value *t;
};

#define OX_MAX_IO	64	/* inputs or outputs of one node */

/* Where a node runs: set by shape inference (folded) and the partitioner. */
enum ox_place {
	OX_PLACE_FOLDED = -1,	/* computed at load time: its inputs are constant */
	OX_PLACE_CPU = 0,
	OX_PLACE_ENGINE = 1,
};

struct ox_node {
	char *name;		/* "" if the model gave none */
	char *op_type;
	char *domain;		/* "" for the default domain */
	int n_in;
	int in[OX_MAX_IO];	/* tensor indices; -1 for an omitted optional */
	int n_out;
	int out[OX_MAX_IO];	/* -1 for an omitted optional output */
	struct ox_attr *attrs;
	int n_attrs;
	int placement;		/* enum ox_place */
	int segment;		/* engine segment index, or -1 */
	double flops;		/* multiply-adds * 2 and the like, estimated */
};

struct ox_graph {
	struct ox_tensor *t;
	int n_t, cap_t;
	struct ox_node *nodes;	/* in topological order after loading */
	int n_nodes, cap_nodes;
	int inputs[256];	/* tensor indices of the graph inputs */
	int n_inputs;
	int outputs[256];
	int n_outputs;
	int64_t opset;		/* of the default domain */
	int64_t ir_version;
	char *name;
};

/*
 * Where ops put messages: the caller's buffer.  Every failure names the
 * node ("node 3 'conv1' (Conv)"), the field and what was wrong; ox_fail()
 * formats it, prefixed by the node.
 */
struct ox_ctx {
	struct ox_graph *g;
	char *err;
	size_t err_len;
	/*
	 * A graph input that an op needed as a constant (a Reshape's shape
	 * fed as an input), set by ane__ox_const_in(): the caller may bind a
	 * value to it and load again (ane-run --const).  -1 if none.
	 */
	int need_const;
};

/* ------------------------------------------------------------ values */

size_t ane__ox_dtype_size(int dtype);		/* 0 for STRING, unknown */
const char *ane__ox_dtype_name(int dtype);	/* "float", "int64", ... */
/* A new value of @dtype and shape, zero-filled; NULL if out of memory. */
struct ox_value *ane__ox_value_new(int dtype, int rank, const int64_t *dims);
struct ox_value *ane__ox_value_clone(const struct ox_value *v);
void ane__ox_value_free(struct ox_value *v);
/* Elements of a shape; -1 on overflow or a negative dimension. */
int64_t ane__ox_shape_count(int rank, const int64_t *dims);
/* Element @i of @v as a double / int64, whatever its numeric dtype. */
double ane__ox_get_f(const struct ox_value *v, size_t i);
int64_t ane__ox_get_i(const struct ox_value *v, size_t i);
/* Store @x into element @i of @v, converting to its dtype as a Cast. */
void ane__ox_set_f(struct ox_value *v, size_t i, double x);
void ane__ox_set_i(struct ox_value *v, size_t i, int64_t x);

/* ------------------------------------------------------------ graph */

/* The node's attribute @name, or NULL. */
const struct ox_attr *ane__ox_attr(const struct ox_node *n, const char *name);
/* Attribute accessors with a default when absent (no type errors: see ox_fail). */
int64_t ane__ox_attr_i(const struct ox_node *n, const char *name, int64_t def);
float ane__ox_attr_f(const struct ox_node *n, const char *name, float def);
const char *ane__ox_attr_s(const struct ox_node *n, const char *name,
			   const char *def);

/* Input @i's / output @i's tensor, or NULL when absent or omitted. */
struct ox_tensor *ane__ox_in(const struct ox_ctx *c, const struct ox_node *n,
			     int i);
struct ox_tensor *ane__ox_out(const struct ox_ctx *c, const struct ox_node *n,
			      int i);

/*
 * Record a failure for node @n (NULL: the graph) into c->err: "node <i>
 * '<name>' (<op_type>): <message>".  Returns -@err.
 */
__attribute__((format(printf, 4, 5)))
int ane__ox_fail(const struct ox_ctx *c, const struct ox_node *n, int err,
		 const char *fmt, ...);

/*
 * Input @i's value when it is known at load time.  Otherwise NULL, after
 * recording "input <i> '<name>' (<what>) must be a constant" for @n (and,
 * when that tensor is a graph input, c->need_const).  For infer().
 */
const struct ox_value *ane__ox_const_in(struct ox_ctx *c,
					const struct ox_node *n, int i,
					const char *what);

/* ------------------------------------------------------------ ops
 *
 * One entry per ONNX op type the CPU runs (ox_ops*.c).
 *
 * infer() checks the node's inputs, attributes and opset, and sets the
 * dtype, rank and dims of each present output tensor from its inputs'
 * (which are all inferred, and whose ->konst may be read: a Reshape's
 * shape, a Slice's starts).  An input that must be constant and is not
 * fails with -EINVAL naming it ("input 'shape' must be constant").  An op
 * whose output shape depends on runtime values (NonZero) is refused with
 * -EOPNOTSUPP.  It never allocates output values.
 *
 * run() computes the outputs: @out[i] (for each present output) is
 * already allocated with the inferred dtype and shape, zero-filled; @in[i]
 * are the inputs (NULL for omitted ones), of the inferred shapes.  Errors
 * (an index out of range in a Gather) fail with a message; it never
 * crashes on any input values.
 */
struct ox_op {
	const char *op_type;
	int (*infer)(struct ox_ctx *c, const struct ox_node *n);
	int (*run)(struct ox_ctx *c, const struct ox_node *n,
		   const struct ox_value *const *in, struct ox_value *const *out);
};

/* The op of @op_type in the default domain, or NULL. */
const struct ox_op *ane__ox_find_op(const char *op_type);

#endif /* ANE_OX_H */
