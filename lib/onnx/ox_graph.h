/* SPDX-License-Identifier: MIT */
/*
 * libane's ONNX front end: shape inference and folding (ox_graph.c), the
 * partitioner and compiler (ox_compile.c) and the runtime (ox_run.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_OX_GRAPH_H
#define ANE_OX_GRAPH_H

#include "ox.h"

struct ane_net;

/* A folded node's outputs may be this large at most (bytes). */
#define OX_FOLD_MAX_BYTES	(256ll << 20)

/*
 * Infer every tensor's dtype and shape in node order, folding what has
 * only constant inputs.  0 or a negative errno with a message.
 */
int ane__ox_infer(struct ox_ctx *c);

/* Fill t[].last_use from the nodes that are not folded. */
void ane__ox_liveness(struct ox_graph *g);

/* ------------------------------------------------------------ plan */

#define OX_SEG_MAX_IO	16	/* ANE_IMG_MAX_IO */

/*
 * An engine segment: consecutive nodes compiled into one program image.
 * Its inputs and outputs are graph tensors, exchanged as dense fp32 in
 * the tensor's own (row-major) element order.
 */
struct ox_seg {
	struct ane_net *net;
	const void *image;	/* owned by @net */
	size_t image_size;
	int n_in, in_t[OX_SEG_MAX_IO];
	/* Input i feeds a node that differences it (the numeric guard). */
	unsigned char guard[OX_SEG_MAX_IO];
	int n_out, out_t[OX_SEG_MAX_IO];
	int first, last;	/* node range */
	int n_nodes;
	double flops;
};

/* The compiled model: the graph, where each node runs, the segments. */
struct ox_plan {
	struct ox_graph *g;
	struct ox_seg *segs;
	int n_segs;
	unsigned int flags;	/* OX_PLAN_* */
	double max_flops;	/* per segment; 0: no limit */
	/* Why each CPU node is not on the engine ("" for the others). */
	char (*why)[160];
};

#define OX_PLAN_ENGINE_ONLY	0x1u	/* refuse any node the engine cannot run */
#define OX_PLAN_CPU_ONLY	0x2u	/* put every node on the CPU */

/*
 * Partition the inferred graph and compile each engine segment.  With
 * OX_PLAN_ENGINE_ONLY a node that must run on the CPU fails the call, the
 * message listing every such node and why.
 */
int ane__ox_plan(struct ox_ctx *c, struct ox_plan *p);
void ane__ox_plan_free(struct ox_plan *p);

/*
 * Run an engine segment: @in[i] and @out[j] are the dense fp32 arrays of
 * the segment's inputs and outputs.  0 or a negative errno with a message
 * in @err.
 */
typedef int (*ox_exec_fn)(void *ctx, const struct ox_seg *s,
			  const float *const *in, float *const *out,
			  char *err, size_t err_len);

/*
 * Run the plan: @in[i] are the graph inputs' values (their inferred
 * dtypes and shapes), @out[j] receive new values of the graph outputs
 * (the caller frees them).  Engine segments go to @exec.
 */
int ane__ox_run(struct ox_ctx *c, const struct ox_plan *p,
		const struct ox_value *const *in, struct ox_value **out,
		ox_exec_fn exec, void *exec_ctx);

#endif /* ANE_OX_GRAPH_H */
