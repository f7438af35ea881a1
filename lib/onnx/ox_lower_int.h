/* SPDX-License-Identifier: MIT */
/*
 * libane's ONNX front end: helpers the lowering files share
 * (ox_lower.c, ox_lower_nn.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_OX_LOWER_INT_H
#define ANE_OX_LOWER_INT_H

#include "ox_lower.h"

/* A 1 x 1 x 1 x 1 constant. */
int ane__ox_lit(struct lower *L, float v);
/* Output 0 is float and fits the engine; no other output is read. */
int ane__ox_out_ok(struct lower *L, const struct ox_node *n);
/* The ANE_NET_ACT_* of an activation node, or -1. */
int ane__ox_act_of(struct lower *L, const struct ox_node *m);
/* The activation fused after @n (L->absorbed counts it), or NONE. */
int ane__ox_fuse_act(struct lower *L, const struct ox_node *n);
/* Record builder tensor @id as the result of @n and what it absorbed. */
int ane__ox_done(struct lower *L, const struct ox_node *n, int id);

/* Every finite value of @f[0..n) fits fp16 (ox_lower_nn.c). */
int ane__ox_f16_ok(const float *f, size_t n);

/* N x C x (the rest) x 1, for per-channel operands; -1 if too large. */
int ane__ox_channel_view(const struct ox_tensor *x, uint32_t v[4]);

/* An op type and its lowering; each lowering file's table of them. */
struct ox_lowering {
	const char *op;
	ox_lower_fn fn;
};
#define OX_LOWERINGS(name) \
	extern const struct ox_lowering name[]; extern const size_t name##_n
/* ox_lower_move.c: Transpose .. Resize; ox_lower_shape.c: DepthToSpace,
 * SpaceToDepth, Tile; ox_lower_norm.c: Softmax, LogSoftmax, LayerNorm,
 * InstanceNorm; ox_lower_misc.c: Where, LRN, MeanVarianceNormalization. */
OX_LOWERINGS(ane__ox_lw_move);
OX_LOWERINGS(ane__ox_lw_shape);
OX_LOWERINGS(ane__ox_lw_norm);
OX_LOWERINGS(ane__ox_lw_misc);
/* A Resize as products with interpolation matrices (ox_lower_shape.c). */
int ane__ox_lw_resize_mm(struct lower *L, const struct ox_node *n);
/* Input 0 and output 0 float, rank 4 at most; their 4-D dims. */
int ane__ox_move_ok(struct lower *L, const struct ox_node *n, uint32_t x4[4],
		    uint32_t y4[4]);
/* The view of input @t broadcast to 4-D dims @y4 (stride 0 where 1); -1 if not. */
int ane__ox_bcast_view(const struct ox_tensor *t, const uint32_t y4[4],
		       struct ane_net_view_desc *v);

int ane__ox_lw_eltwise(struct lower *L, const struct ox_node *n);
/* ox_lower_act.c: Elu, Selu, Celu, HardSigmoid, ThresholdedRelu. */
int ane__ox_lw_act_param(struct lower *L, const struct ox_node *n);
int ane__ox_lw_reduce(struct lower *L, const struct ox_node *n);
/* ox_lower_red.c: any Reduce* over any axes, the engine's REDUCE. */
int ane__ox_lw_reduce_any(struct lower *L, const struct ox_node *n);
/* @x as 4-D runs of reduced (@on) and kept axes, @axes the reduced mask. */
int ane__ox_reduce_view(struct lower *L, const struct ox_tensor *x,
			const unsigned char *on, uint32_t v4[4], uint32_t *axes);
/* The reduced axes of a Reduce* node; 1: none (a copy), <0: refused. */
int ane__ox_reduce_axes(struct lower *L, const struct ox_node *n,
			unsigned char *on);
/* ox_lower_fuse.c: LayerNorm and GELU as exported in primitives. */
int ane__ox_lw_reducemean(struct lower *L, const struct ox_node *n);
int ane__ox_lw_div(struct lower *L, const struct ox_node *n);
/* Sigmoid; x * Sigmoid(x) as one SiLU (ox_lower_fuse.c). */
int ane__ox_lw_sigmoid(struct lower *L, const struct ox_node *n);
/* A SiLU after @n to fuse into it (L->absorbed counts its nodes): 1, else 0. */
int ane__ox_fuse_silu(struct lower *L, const struct ox_node *n);
/* An activation node (ox_lower.c). */
int ane__ox_lw_act(struct lower *L, const struct ox_node *n);

int ane__ox_lw_conv(struct lower *L, const struct ox_node *n);
int ane__ox_lw_convtranspose(struct lower *L, const struct ox_node *n);
int ane__ox_lw_gemm(struct lower *L, const struct ox_node *n);
int ane__ox_lw_matmul(struct lower *L, const struct ox_node *n);
int ane__ox_lw_pool(struct lower *L, const struct ox_node *n);
/* A dilated pool as copies of its taps (ox_lower_pool.c). */
int ane__ox_pool_taps(struct lower *L, const struct ox_node *n, const uint32_t k[2],
		      const uint32_t s[2], const uint32_t d[2], const uint32_t pad[4],
		      const uint32_t x4[4], const int64_t out[2], int avg, int count_pad);
int ane__ox_lw_bn(struct lower *L, const struct ox_node *n);

#endif /* ANE_OX_LOWER_INT_H */
