/* SPDX-License-Identifier: MIT */
/*
 * libane's ONNX front end: what the partitioner (ox_compile.c) and the
 * lowering of each op to builder calls (ox_lower*.c) share.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_OX_LOWER_H
#define ANE_OX_LOWER_H

#include "libane.h"
#include "ox.h"
#include "ox_graph.h"

/*
 * The lowering of the current segment.  Graph tensors map to builder
 * tensors (@nt, -1 when none in this segment); a tensor of the graph is
 * exchanged with the engine in its row-major element order, as a dense
 * N, C, H, W tensor whose dims are its own right-aligned (rank <= 4) or
 * with the leading ones folded into N.
 */
struct lower {
	struct ox_ctx *c;
	struct ox_plan *p;
	struct ox_seg *s;	/* the open segment, or NULL */
	int *nt;		/* graph tensor -> builder tensor */
	unsigned char *alias;	/* graph tensor shares another's builder tensor */
	uint32_t (*d4)[4];	/* the dims of nt[t] */
	int *exact;		/* per node: the discontinuous node it feeds, or -1 */
	char why[160];		/* why the last node cannot be lowered */
	int dry;		/* check only: emit nothing */
	int node;		/* index of the node being lowered */
	/* Nodes after @node that its lowering took in (fusion). */
	int absorbed;
};

/*
 * Each lowering checks everything the engine needs first; with L->dry it
 * stops there and returns 0 (the node can go to the engine) or
 * -EOPNOTSUPP with the reason in L->why (ox_why()).  Without it, it
 * emits builder calls and records its outputs (ox_set()); a builder
 * failure then is returned as it is.
 */
typedef int (*ox_lower_fn)(struct lower *L, const struct ox_node *n);

/* The lowering of @op_type, or NULL when the engine has none. */
ox_lower_fn ane__ox_lower_find(const char *op_type);

__attribute__((format(printf, 2, 3)))
int ane__ox_why(struct lower *L, const char *fmt, ...);

/* The engine's N, C, H, W for a tensor of @rank, @dims; -1 if none. */
int ane__ox_shape4(int rank, const int64_t *dims, uint32_t d[4]);

/*
 * The builder tensor of graph tensor @t with dims @d4 (NULL: its own):
 * made in this segment, a constant (stored now, fp16), or a new input of
 * the segment.  Only when !L->dry.
 */
int ane__ox_get(struct lower *L, int t, const uint32_t *d4);
/*
 * Graph tensor @t (integers computed on the CPU) as an index input of
 * this segment, [1, 1, 1, @k]: its values reach the engine as int16.
 */
int ane__ox_get_index(struct lower *L, int t, uint32_t k);

/* Graph tensor @t is builder tensor @id (an op's result) from now on. */
void ane__ox_set(struct lower *L, int t, int id);
/*
 * Graph tensor @t is builder tensor @id with dims @d4, the data of
 * another graph tensor (no copy): an output of the segment copies it.
 */
void ane__ox_alias(struct lower *L, int t, int id, const uint32_t d4[4]);

/* Checks for the dry run: a float tensor the engine can hold. */
int ane__ox_check_float(struct lower *L, const struct ox_node *n, int i);
/* A constant operand whose values all fit fp16 (or -EOPNOTSUPP). */
int ane__ox_check_const_f16(struct lower *L, const struct ox_node *n,
			    const struct ox_value *v, const char *what);

/*
 * Node @n's output 0 has exactly one reader, the node right after it,
 * and is no graph output: the index of that node, else -1.
 */
int ane__ox_sole_next(const struct lower *L, const struct ox_node *n);

/* The net of the open segment. */
static inline struct ane_net *ox_net(const struct lower *L)
{
	return L->s->net;
}

#endif /* ANE_OX_LOWER_H */
