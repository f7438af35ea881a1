// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: randomness from 64-bit seeds, errno names, and the valid
 * program images workers create programs from.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "fuzz.h"

/* ------------------------------------------------------------ randomness */

uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t rnd(struct rng *r)
{
	return splitmix(&r->s);
}

uint32_t rn(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd(r) % n) : 0;
}

int chance(struct rng *r, unsigned int pct)
{
	return rn(r, 100) < pct;
}

uint64_t interesting(struct rng *r)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256,
		287, 288, 293, 294, 1023, 1024, 4095, 4096, 16383, 16384, 16385,
		0x7fff, 0x8000, 0xffff, 0x10000, 1u << 20, (1u << 20) + 1,
		1u << 24, 1u << 28, 1u << 30, (1ull << 30) + 1, 0x7fffffff,
		0x80000000, 0xfffffffe, 0xffffffff, 1ull << 32, 0xe0000000,
		1ull << 40, 0x7fffffffffffffffull, 0x8000000000000000ull,
		0xfffffffffffff000ull, ~0ull,
	};

	switch (rn(r, 4)) {
	case 0:
		return rnd(r);
	case 1:
		return rn(r, 64);
	default:
		return v[rn(r, sizeof(v) / sizeof(v[0]))];
	}
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *errname(int e)
{
	static __thread char buf[24];
	const char *n;

	if (!e)
		return "OK";
	n = e < 512 ? strerrorname_np(e) : NULL;
	if (n)
		return n;
	snprintf(buf, sizeof(buf), e >= 512 ? "E%d(kernel)" : "E%d", e);
	return buf;
}

/* ------------------------------------------------------------ images */

struct img imgs[NIMG];

int build_one(int k, struct img *out)
{
	static const float w[2 * 2 * 9] = { 0.5f, -1, 0.25f, 1, 0, 2, -0.5f, 1, 1 };
	static const float b[8 * 4] = { 1, 2, 3, 4, -1, -2 };
	struct ane_net *net;
	const void *p;
	size_t size;
	int x, y, z, c;

	if (ane_net_create(&net))
		return -1;
	switch (k) {
	case 0:
		x = ane_net_input(net, "x", 1, 1, 4, 4);
		ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
		break;
	case 1: {
		struct ane_net_conv_params cp = { .pad_top = 1, .pad_bottom = 1,
						  .pad_left = 1, .pad_right = 1,
						  .act = ANE_NET_ACT_RELU6 };

		x = ane_net_input(net, "x", 1, 2, 4, 4);
		c = ane_net_const(net, "w", 2, 2, 3, 3, w);
		ane_net_output(net, ane_net_conv(net, x, c, -1, &cp));
		break;
	}
	case 2:
		x = ane_net_input(net, "a", 1, 1, 4, 8);
		y = ane_net_input(net, "b", 1, 1, 4, 8);
		z = ane_net_eltwise(net, ANE_NET_ADD, x, y, ANE_NET_ACT_NONE);
		ane_net_output(net, z);
		ane_net_output(net, ane_net_activation(net, z, ANE_NET_ACT_SIGMOID));
		break;
	case 3: {
		/* strided matmul operands: column views, merged heads */
		static float wv[16 * 48];
		int i, q, kk;

		for (i = 0; i < 16 * 48; i++)
			wv[i] = (float)(i % 7) - 3.0f;
		x = ane_net_input(net, "x", 1, 1, 4, 16);
		z = ane_net_matmul(net, x, ane_net_const(net, "w", 1, 1, 16, 48, wv), 0,
				   ANE_NET_ACT_NONE);
		q = ane_net_view(net, z, 0, 8, 2);
		kk = ane_net_view(net, z, 16, 8, 2);
		y = ane_net_matmul(net, q, kk, ANE_NET_TRANSPOSE_B, ANE_NET_ACT_NONE);
		y = ane_net_matmul(net, y, ane_net_view(net, z, 32, 8, 2), 0,
				   ANE_NET_ACT_NONE);
		ane_net_output(net, ane_net_merge_heads(net, y));
		break;
	}
	default: {
		struct ane_net_pool_params pp = { .kind = ANE_NET_POOL_MAX,
						  .kernel_h = 2, .kernel_w = 2 };

		x = ane_net_input(net, "x", 1, 1, 8, 4);
		c = ane_net_const(net, "b", 1, 1, 4, 8, b);
		z = ane_net_matmul(net, x, c, 0, ANE_NET_ACT_NONE);
		ane_net_output(net, ane_net_softmax(net, ane_net_pool(net, z, &pp)));
		break;
	}
	}
	if (ane_net_build(net, &p, &size)) {
		fprintf(stderr, "ane-fuzz: building image %d: %s\n", k, ane_net_errmsg(net));
		ane_net_destroy(net);
		return -1;
	}
	out->data = malloc(size);
	if (!out->data) {
		ane_net_destroy(net);
		return -1;
	}
	memcpy(out->data, p, size);
	out->size = size;
	out->nin = ane_net_num_inputs(net);
	out->nout = ane_net_num_outputs(net);
	ane_net_destroy(net);
	return 0;
}
