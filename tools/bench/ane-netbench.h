/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ane-netbench's parts: the networks, their runs and the table
 * (ane-netbench.c), and its JSON, written and read back through json-c
 * (ane-netbench-json.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_NETBENCH_H
#define ANE_NETBENCH_H

#include <stdint.h>

struct ane_net;

#define MAX_ARRAYS	64
/* ane time / torch time, an upper bound: at least 1.1x PyTorch's speed */
#define TARGET_SPEEDUP	1.1
#define TARGET_RATIO	(1.0 / TARGET_SPEEDUP)

struct array {
	char name[32];
	uint32_t dim[4];
	float *data;		/* fp16 values, as fp32 */
};

struct bench {
	const char *name;
	const char *what;
	struct ane_net *net;
	struct array arr[MAX_ARRAYS];	/* inputs first, then constants */
	unsigned int n_arr;
	double gflop;
	uint64_t rng;
	double ane_ms, torch_ms;
	double max_abs, max_rel, ref_abs, worst;	/* against torch */
	double chk_abs, chk_worst;			/* against the reference */
	int have_torch, checked;
};

extern unsigned int threads;	/* --threads: the engine's cores */

/* "ane-netbench: @what: @msg" on stderr, and exit 2. */
void die(const char *what, const char *msg) __attribute__((noreturn));

/*
 * PyTorch's best time of network @name in ms in the JSON @file that
 * tools/bench/torch_nets.py wrote ({"results": {NAME: {"ms": ...}}}), or
 * -1 when it has none; dies on a file that is not JSON.
 */
double torch_ms(const char *file, const char *name);

/* --json FILE: the @nb benches @bs on path @isa, one JSON object. */
void write_json(const char *file, const struct bench *bs, unsigned int nb, uint32_t isa);

#endif /* ANE_NETBENCH_H */
