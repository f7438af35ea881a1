// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-mathbench: the compute engine's matmul against OpenBLAS, in one run.
 *
 *   ane-mathbench matmul [N]
 *
 * Times C = A * B for N x N matrices (default 512): the engine with fp16
 * inputs and outputs and fp32 accumulation, chunk by chunk as the kernel
 * runs it, and OpenBLAS cblas_sgemm in fp32 on one thread, on the same
 * values.  Runs alternate between the two and the best time of each counts.
 * It prints both rates in GFLOP/s (2 N^3 / s), their ratio, and whether
 * the ratio meets the target of 0.5; the exit status is 0 when it does,
 * 1 when it is missed, 2 on a usage or setup error.
 *
 * OpenBLAS picks its kernel for this CPU (AVX2/AVX-512 where present)
 * unless OPENBLAS_CORETYPE says otherwise; the engine is held to SSE2,
 * what the kernel's CC_FLAGS_FPU allows.  The core OpenBLAS used is
 * printed with its rate.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ane_math.h"

#define TARGET_RATIO	0.5
#define MIN_RUNS	5
#define MIN_SECONDS	1.0	/* per side */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(void)
{
	fprintf(stderr, "usage: ane-mathbench matmul [N]   (N: 1..4096, default 512)\n");
	exit(2);
}

static void *xalloc(size_t bytes)
{
	void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);

	if (!p) {
		fprintf(stderr, "ane-mathbench: out of memory\n");
		exit(2);
	}
	return p;
}

/* One engine run, chunk by chunk; per-chunk times go to best[] (minimum). */
static void engine_run(const struct ane_op_desc *d, uint64_t chunks,
		       double *best)
{
	uint64_t i;

	for (i = 0; i < chunks; i++) {
		double t = best ? now() : 0;

		ane_op_run(d, i);
		if (best) {
			t = now() - t;
			if (t < best[i])
				best[i] = t;
		}
	}
}

static int bench_matmul(uint32_t n)
{
	size_t nn = (size_t)n * n;
	uint16_t *a16 = xalloc(nn * 2), *b16 = xalloc(nn * 2), *c16 = xalloc(nn * 2);
	float *a32 = xalloc(nn * 4), *b32 = xalloc(nn * 4), *c32 = xalloc(nn * 4);
	float *s32 = xalloc(nn * 4);
	struct ane_op_desc d;
	double flops = 2.0 * n * n * n, best_e = 1e30, best_b = 1e30;
	double spent_e = 0, spent_b = 0, worst_chunk = 0, max_err = 0;
	double *chunk_t;
	const char *forced = getenv("OPENBLAS_CORETYPE");
	uint64_t ws, chunks, seed = 0x2545f4914f6cdd1dull;
	double ge, gb, ratio;
	int runs = 0, ret;
	size_t i;

	for (i = 0; i < nn; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		a16[i] = ane_fp32_to_fp16((float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1));
		b16[i] = ane_fp32_to_fp16((float)((double)(seed & 0xffffff) / 16777216.0 * 2 - 1));
		a32[i] = ane_fp16_to_fp32(a16[i]);
		b32[i] = ane_fp16_to_fp32(b16[i]);
	}

	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_MATMUL;
	ane_tensor_dense(&d.src[0], a16, 1, 1, n, n);
	ane_tensor_dense(&d.src[1], b16, 1, 1, n, n);
	ane_tensor_dense(&d.dst, c16, 1, 1, n, n);
	ret = ane_op_workspace_size(&d, &ws);
	if (ret) {
		fprintf(stderr, "ane-mathbench: descriptor rejected (%d)\n", ret);
		return 2;
	}
	d.work = ws ? xalloc(ws) : NULL;
	d.work_size = ws;
	ret = ane_op_validate(&d);
	if (ret) {
		fprintf(stderr, "ane-mathbench: descriptor rejected (%d)\n", ret);
		return 2;
	}
	chunks = ane_op_chunks(&d);
	chunk_t = xalloc(chunks * sizeof(double));
	for (i = 0; i < chunks; i++)
		chunk_t[i] = 1e30;

	openblas_set_num_threads(1);
	/* warm both up (page faults, OpenBLAS's buffers) */
	engine_run(&d, chunks, NULL);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
		    a32, n, b32, n, 0.0f, c32, n);

	while (runs < MIN_RUNS || spent_e < MIN_SECONDS || spent_b < MIN_SECONDS) {
		double t = now();

		engine_run(&d, chunks, NULL);
		t = now() - t;
		spent_e += t;
		if (t < best_e)
			best_e = t;
		t = now();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
			    1.0f, a32, n, b32, n, 0.0f, c32, n);
		t = now() - t;
		spent_b += t;
		if (t < best_b)
			best_b = t;
		runs++;
		if (runs > 10000)
			break;
	}
	/* Each chunk's best time over a few runs; the longest of those. */
	for (i = 0; i < 5; i++)
		engine_run(&d, chunks, chunk_t);
	for (i = 0; i < chunks; i++)
		if (chunk_t[i] > worst_chunk)
			worst_chunk = chunk_t[i];

	/*
	 * The engine's result against OpenBLAS's, as a fraction of what both
	 * may be off by: an fp16 ulp plus fp32 accumulation of n terms
	 * (n 2^-24 |A||B|, for each of the two).  S = |A| |B| comes from
	 * OpenBLAS too.
	 */
	for (i = 0; i < nn; i++) {
		a32[i] = fabsf(a32[i]);
		b32[i] = fabsf(b32[i]);
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
		    a32, n, b32, n, 0.0f, s32, n);
	for (i = 0; i < nn; i++) {
		double e = fabs((double)ane_fp16_to_fp32(c16[i]) - c32[i]);
		double bound = ldexp(fabs(c32[i]), -10) + ldexp(1, -24) +
			       2.0 * n * ldexp(s32[i], -24);

		if (e / bound > max_err)
			max_err = e / bound;
	}

	ge = flops / best_e / 1e9;
	gb = flops / best_b / 1e9;
	ratio = ge / gb;
	printf("matmul %ux%ux%u, best of %d runs each\n", n, n, n, runs);
	printf("engine:   %8.2f GFLOP/s  (fp16 in/out, fp32 accumulate, SSE2; %llu chunks, longest %.0f us)\n",
	       ge, (unsigned long long)chunks, worst_chunk * 1e6);
	printf("openblas: %8.2f GFLOP/s  (cblas_sgemm fp32, 1 thread, core %s%s)\n",
	       gb, openblas_get_corename(),
	       forced && *forced ? ", forced by OPENBLAS_CORETYPE" : "");
	printf("ratio:    %8.3f\n", ratio);
	printf("check:    engine - openblas at most %.2g of the rounding bound\n", max_err);
	printf("target >= %.1f: %s\n", TARGET_RATIO, ratio >= TARGET_RATIO ? "met" : "MISSED");
	free(chunk_t);
	free(d.work);
	free(a16);
	free(b16);
	free(c16);
	free(a32);
	free(b32);
	free(c32);
	free(s32);
	if (max_err > 1.0) {
		fprintf(stderr, "ane-mathbench: results disagree\n");
		return 2;
	}
	return ratio >= TARGET_RATIO ? 0 : 1;
}

int main(int argc, char **argv)
{
	long n = 512;

	if (argc < 2 || strcmp(argv[1], "matmul"))
		usage();
	if (argc > 3)
		usage();
	if (argc == 3) {
		char *end;

		n = strtol(argv[2], &end, 10);
		if (*end || n < 1 || n > 4096)
			usage();
	}
	return bench_matmul((uint32_t)n);
}
