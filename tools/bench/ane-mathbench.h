/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ane-mathbench's parts: the kernels against OpenBLAS and oneDNN
 * (ane-mathbench.c), their figures as JSON (ane-mathbench-json.c) and one
 * operation over many threads (ane-mathbench-cores.c) and the row
 * normalizations (ane-mathbench-rows.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_MATHBENCH_H
#define ANE_MATHBENCH_H

#include <stddef.h>
#include <stdint.h>

#include "ane_math.h"

#define TARGET_RATIO	0.9	/* the best engine path over the best baseline */

/*
 * One case: C (M x N) = W (M x K) * col (K x N), where for a convolution
 * W is the weights [cout][cin kh kw] and col the im2col of the input, and
 * C is the output [cout][oh ow] -- the engine's destination layout.
 */
struct bcase {
	const char *name;
	int conv, bias;
	uint32_t M, N, K;
	/* convolution: input channels, size, kernel, padding (stride 1) */
	uint32_t cin, h, w, k, pad, ho, wo;
};

struct result {
	double engine[ANE_MATH_ISA_COUNT];	/* GFLOP/s, 0 if not run */
	double err[ANE_MATH_ISA_COUNT];		/* of the rounding bound */
	double chunk_us[ANE_MATH_ISA_COUNT];	/* longest chunk */
	double openblas, onednn, best_base, ratio;
	uint32_t best_isa, top_isa;
	uint64_t chunks;
	int runs;
	char dnnl_impl[64];
};


/* Seconds on the monotonic clock. */
double mb_now(void);

/* @bytes zeroed and 64-byte aligned; exits 2 when out of memory. */
void *mb_xalloc(size_t bytes);

/*
 * ane-mathbench cores [N]: matmul 2048^3 and conv 3x3 on 1 and @threads
 * threads, the figures also as JSON in @json_path (or NULL); 0 every
 * target met, 1 one missed, 2 an error.
 */
int cores_bench(unsigned int threads, const char *json_path);

/*
 * ane-mathbench rows [CASE...]: softmax, log-softmax and layer norm rows
 * on every path (all cases, or the @n named in @names); 0, or 2 on an
 * error or when a path's bits differ from the SSE2 path's.
 */
int rows_bench(char *const *names, int n);

/*
 * --json FILE of the kernels (ane-mathbench-json.c): the @n cases @c and
 * their results @r, whether OPENBLAS_CORETYPE was @unset, whether a case
 * @missed its target.  0, or -1 with the message printed.
 */
int json_kernels(const char *path, const struct bcase *c, const struct result *r,
		 int n, int unset, int missed);

/*
 * The CPU a run measures (ane-mathbench-cpu.c): /proc/cpuinfo's model
 * name, vendor, family and model, and the micro-architecture they name
 * ("Zen 4"), or what is known when the table has no entry for them.
 */
struct cpu_id {
	char model_name[128];
	char vendor[32];
	unsigned int family, model;
	char uarch[96];
};

void cpu_describe(struct cpu_id *id);

#endif /* ANE_MATHBENCH_H */
