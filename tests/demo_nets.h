/* SPDX-License-Identifier: MIT */
/*
 * The demo networks, built with libane: shared by ane-run (make run) and
 * the VM test net_test, so the demo is exactly what the tests check.
 *
 *   mlp   sigmoid(relu(x W1 + b1) W2 + b2): a batch of 4 rows of 64,
 *         W1 64x32, W2 32x10 (matmul, broadcast bias add, relu, sigmoid)
 *   conv  1x3x16x16 -> conv 3x3 pad 1 to 8 channels + bias + relu ->
 *         max pool 2x2 (output 0) -> conv 1x1 to 4 channels + bias ->
 *         average pool 8x8 -> softmax over the 4 channels (output 1)
 *
 * Weights and inputs are deterministic pseudo-random numbers.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_DEMO_NETS_H
#define ANE_DEMO_NETS_H

#include <stddef.h>
#include <stdint.h>

#include "libane.h"

/* Seeds of the demo inputs. */
#define DEMO_MLP_INPUT_SEED	1234
#define DEMO_CONV_INPUT_SEED	4321

/* xorshift32: the same numbers on every run and every machine. */
static uint32_t demo_rng_state;

static inline void demo_rng_seed(uint32_t seed)
{
	demo_rng_state = seed ? seed : 0x9e3779b9u;
}

/* Uniform in [-1, 1). */
static inline float demo_frand(void)
{
	demo_rng_state ^= demo_rng_state << 13;
	demo_rng_state ^= demo_rng_state >> 17;
	demo_rng_state ^= demo_rng_state << 5;
	return (float)((double)(demo_rng_state >> 8) / (1u << 23) - 1.0);
}

static inline void demo_fill(float *p, size_t n, float scale)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = demo_frand() * scale;
}

/*
 * The perceptron into @net, weights from @w_seed.  Sets *@in_scale to the
 * scale its inputs are drawn at; returns the input tensor.
 */
static inline int demo_build_mlp(struct ane_net *net, uint32_t w_seed, float *in_scale)
{
	static float w1[64 * 32], b1[32], w2[32 * 10], b2[10];
	int x, t;

	demo_rng_seed(w_seed);
	demo_fill(w1, 64 * 32, 2.0f / 8);		/* ~ 2 / sqrt(fan-in) */
	demo_fill(b1, 32, 0.5f);
	demo_fill(w2, 32 * 10, 2.0f / 5.66f);
	demo_fill(b2, 10, 0.5f);
	x = ane_net_input(net, "x", 1, 1, 4, 64);
	t = ane_net_matmul(net, x, ane_net_const(net, "w1", 1, 1, 64, 32, w1), 0,
			   ANE_NET_ACT_NONE);
	t = ane_net_eltwise(net, ANE_NET_ADD, t, ane_net_const(net, "b1", 1, 1, 1, 32, b1),
			    ANE_NET_ACT_RELU);
	t = ane_net_matmul(net, t, ane_net_const(net, "w2", 1, 1, 32, 10, w2), 0,
			   ANE_NET_ACT_NONE);
	t = ane_net_eltwise(net, ANE_NET_ADD, t, ane_net_const(net, "b2", 1, 1, 1, 10, b2),
			    ANE_NET_ACT_SIGMOID);
	ane_net_output(net, t);
	*in_scale = 2.0f;
	return x;
}

/* The convolutional net into @net, weights from @w_seed; as above. */
static inline int demo_build_conv(struct ane_net *net, uint32_t w_seed, float *in_scale)
{
	static float w1[8 * 3 * 3 * 3], b1[8], w2[4 * 8], b2[4];
	struct ane_net_conv_params cp = { .pad_top = 1, .pad_bottom = 1, .pad_left = 1,
					  .pad_right = 1, .act = ANE_NET_ACT_RELU };
	struct ane_net_pool_params mp = { .kind = ANE_NET_POOL_MAX, .kernel_h = 2,
					  .kernel_w = 2 };
	struct ane_net_pool_params ap = { .kind = ANE_NET_POOL_AVG, .kernel_h = 8,
					  .kernel_w = 8 };
	int x, t, feat;

	demo_rng_seed(w_seed);
	demo_fill(w1, 8 * 27, 2.0f / 5.2f);
	demo_fill(b1, 8, 0.25f);
	demo_fill(w2, 4 * 8, 2.0f / 2.83f);
	demo_fill(b2, 4, 0.25f);
	x = ane_net_input(net, "img", 1, 3, 16, 16);
	t = ane_net_conv(net, x, ane_net_const(net, "w1", 8, 3, 3, 3, w1),
			 ane_net_const(net, "b1", 1, 8, 1, 1, b1), &cp);
	feat = ane_net_pool(net, t, &mp);
	t = ane_net_conv(net, feat, ane_net_const(net, "w2", 4, 8, 1, 1, w2),
			 ane_net_const(net, "b2", 1, 4, 1, 1, b2), NULL);
	t = ane_net_pool(net, t, &ap);
	t = ane_net_softmax(net, t);
	ane_net_output(net, feat);
	ane_net_output(net, t);
	*in_scale = 1.0f;
	return x;
}

#endif /* ANE_DEMO_NETS_H */
