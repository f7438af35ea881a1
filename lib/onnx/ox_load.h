/* SPDX-License-Identifier: MIT */
/*
 * libane's ONNX front end: the loader's interface (ox_load.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_OX_LOAD_H
#define ANE_OX_LOAD_H

#include "ox.h"

/* Default-domain opsets the front end reads (onnx.rst, "Opsets"). */
#define ANE_OX_OPSET_MIN	1
#define ANE_OX_OPSET_MAX	17

/* A graph input's shape fixed by the caller (a dynamic dimension). */
struct ox_shape_fix {
	const char *name;
	int rank;
	int64_t dims[OX_MAX_RANK];
};

struct ox_load_opts {
	const char *base_dir;	/* external data files; NULL: none allowed */
	const struct ox_shape_fix *shapes;
	unsigned int n_shapes;
};

/*
 * Parse @buf as a ModelProto and build its graph: tensors named, nodes in
 * topological order, initializers loaded, the graph inputs' static shapes
 * known.  Shapes of the other tensors are inferred later
 * (ane__ox_infer()).  0 or a negative errno with a message in @err.
 */
int ane__ox_load(const void *buf, size_t len, const struct ox_load_opts *o,
		 struct ox_graph **out, char *err, size_t err_len);
void ane__ox_graph_free(struct ox_graph *g);

/* A TensorProto (a test's input_0.pb) into a new value. */
int ane__ox_tensor_parse(const void *buf, size_t len, struct ox_value **out,
			 char *err, size_t err_len);
/* @proto is an Onnx__TensorProto; @o for external data, may be NULL. */
int ane__ox_tensor_from_proto(struct ox_ctx *c, const void *proto,
			      const struct ox_load_opts *o,
			      struct ox_value **out);

/* The loader's message (no node): -@err (ox_load.c). */
__attribute__((format(printf, 3, 4)))
int ane__ox_load_fail(struct ox_ctx *c, int err, const char *fmt, ...);
/* @n_dims dims, none negative, their product no overflow (ox_tensor.c). */
int ane__ox_check_dims(struct ox_ctx *c, const char *what, const char *name,
		       size_t n_dims, const int64_t *dims);

#endif /* ANE_OX_LOAD_H */
