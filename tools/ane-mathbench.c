// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-mathbench: the compute engine's matmul against OpenBLAS, in one run.
 *
 *   ane-mathbench matmul [N]
 *
 * Times C = A * B for N x N matrices (default 512): the engine with fp16
 * inputs and outputs and fp32 accumulation, chunk by chunk as the kernel
 * runs it, on each instruction-set path this build and CPU have (SSE2
 * always; AVX2 + FMA + F16C when __builtin_cpu_supports() says so), and
 * OpenBLAS cblas_sgemm in fp32 on one thread, on the same values.  Runs
 * alternate between all of them and the best time of each counts.  It
 * prints the ISA the engine would use (the fastest the CPU has), each
 * rate in GFLOP/s (2 N^3 / s), the ratio of the best engine path to
 * OpenBLAS, and whether that ratio meets the target of 0.5; the exit
 * status is 0 when it does, 1 when it is missed, 2 on a usage or setup
 * error.  ANE_MATH_ISA=sse2 restricts the engine to its SSE2 path.
 *
 * OpenBLAS picks its kernel for this CPU (AVX2/AVX-512 where present)
 * unless OPENBLAS_CORETYPE says otherwise; the core OpenBLAS used is
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

static const char *const isa_name[ANE_MATH_ISA_COUNT] = {
	[ANE_MATH_ISA_SSE2] = "sse2",
	[ANE_MATH_ISA_AVX2_FMA] = "avx2+fma+f16c",
};

/* Can this CPU and this build run @isa? */
static int isa_usable(uint32_t isa)
{
	const char *only = getenv("ANE_MATH_ISA");

	if (!ane_math_isa_built(isa))
		return 0;
	if (only && *only && strcmp(only, isa_name[isa]) &&
	    !(isa == ANE_MATH_ISA_AVX2_FMA && !strcmp(only, "avx2")))
		return 0;
	if (isa == ANE_MATH_ISA_AVX2_FMA) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("fma") &&
		       __builtin_cpu_supports("f16c");
#else
		return 0;
#endif
	}
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: ane-mathbench matmul [N]   (N: 1..4096, default 512)\n"
		"       ane-mathbench --help | --version\n"
		"\n"
		"Times the engine's N x N fp16 matmul on each instruction-set path\n"
		"against OpenBLAS's sgemm on one thread; exit 0 when the best engine\n"
		"path reaches half of OpenBLAS's rate, 1 when not, 2 on an error.\n"
		"ANE_MATH_ISA=sse2 restricts the engine to its SSE2 path.\n");
	exit(status);
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

/* The engine's result against OpenBLAS's, as a fraction of the bound. */
static double check_result(const uint16_t *c16, const float *c32,
			   const float *s32, uint32_t n)
{
	size_t nn = (size_t)n * n, i;
	double max_err = 0;

	/*
	 * What both may be off by: an fp16 ulp plus fp32 accumulation of n
	 * terms (n 2^-24 |A||B|, for each of the two).  S = |A| |B| comes from
	 * OpenBLAS too.
	 */
	for (i = 0; i < nn; i++) {
		double e = fabs((double)ane_fp16_to_fp32(c16[i]) - c32[i]);
		double bound = ldexp(fabs(c32[i]), -10) + ldexp(1, -24) +
			       2.0 * n * ldexp(s32[i], -24);

		if (e / bound > max_err)
			max_err = e / bound;
	}
	return max_err;
}

static int bench_matmul(uint32_t n)
{
	size_t nn = (size_t)n * n;
	uint16_t *a16 = xalloc(nn * 2), *b16 = xalloc(nn * 2), *c16 = xalloc(nn * 2);
	float *a32 = xalloc(nn * 4), *b32 = xalloc(nn * 4), *c32 = xalloc(nn * 4);
	float *s32 = xalloc(nn * 4);
	struct ane_op_desc d;
	double flops = 2.0 * n * n * n, best_b = 1e30, spent_b = 0;
	double best_e[ANE_MATH_ISA_COUNT], spent_e[ANE_MATH_ISA_COUNT];
	double worst_chunk[ANE_MATH_ISA_COUNT], max_err[ANE_MATH_ISA_COUNT];
	int usable[ANE_MATH_ISA_COUNT];
	double *chunk_t;
	const char *forced = getenv("OPENBLAS_CORETYPE");
	uint64_t ws, chunks, seed = 0x2545f4914f6cdd1dull;
	double gb, ge_best = 0, ratio, min_spent;
	uint32_t isa, best_isa = ANE_MATH_ISA_SSE2, top_isa = ANE_MATH_ISA_SSE2;
	int runs = 0, ret, bad = 0;
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
		fprintf(stderr, "ane-mathbench: descriptor rejected: %s (%s)\n",
			strerrorname_np(-ret) ? strerrorname_np(-ret) : "?", strerror(-ret));
		return 2;
	}
	d.work = ws ? xalloc(ws) : NULL;
	d.work_size = ws;
	ret = ane_op_validate(&d);
	if (ret) {
		fprintf(stderr, "ane-mathbench: descriptor rejected: %s (%s)\n",
			strerrorname_np(-ret) ? strerrorname_np(-ret) : "?", strerror(-ret));
		return 2;
	}
	chunks = ane_op_chunks(&d);
	chunk_t = xalloc(chunks * sizeof(double));

	openblas_set_num_threads(1);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		usable[isa] = isa_usable(isa);
		best_e[isa] = 1e30;
		spent_e[isa] = 0;
		worst_chunk[isa] = 0;
		max_err[isa] = 0;
		if (usable[isa]) {
			top_isa = isa;
			/* warm up (page faults) */
			ane_math_set_isa(isa);
			engine_run(&d, chunks, NULL);
		}
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
		    a32, n, b32, n, 0.0f, c32, n);

	for (;;) {
		double t;

		min_spent = spent_b;
		for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
			if (!usable[isa])
				continue;
			ane_math_set_isa(isa);
			t = now();
			engine_run(&d, chunks, NULL);
			t = now() - t;
			spent_e[isa] += t;
			if (t < best_e[isa])
				best_e[isa] = t;
			if (spent_e[isa] < min_spent)
				min_spent = spent_e[isa];
		}
		t = now();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
			    1.0f, a32, n, b32, n, 0.0f, c32, n);
		t = now() - t;
		spent_b += t;
		if (t < best_b)
			best_b = t;
		if (spent_b < min_spent)
			min_spent = spent_b;
		runs++;
		if ((runs >= MIN_RUNS && min_spent >= MIN_SECONDS) || runs > 10000)
			break;
	}

	/* S = |A| |B| for the error bound */
	for (i = 0; i < nn; i++) {
		a32[i] = fabsf(a32[i]);
		b32[i] = fabsf(b32[i]);
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
		    a32, n, b32, n, 0.0f, s32, n);
	for (i = 0; i < nn; i++) {
		a32[i] = ane_fp16_to_fp32(a16[i]);
		b32[i] = ane_fp16_to_fp32(b16[i]);
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
		    a32, n, b32, n, 0.0f, c32, n);

	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		uint64_t c;
		int r;

		if (!usable[isa])
			continue;
		ane_math_set_isa(isa);
		/* Each chunk's best time over a few runs; the longest of those. */
		for (c = 0; c < chunks; c++)
			chunk_t[c] = 1e30;
		for (r = 0; r < 5; r++)
			engine_run(&d, chunks, chunk_t);
		for (c = 0; c < chunks; c++)
			if (chunk_t[c] > worst_chunk[isa])
				worst_chunk[isa] = chunk_t[c];
		max_err[isa] = check_result(c16, c32, s32, n);
		if (max_err[isa] > 1.0)
			bad = 1;
		if (flops / best_e[isa] / 1e9 > ge_best) {
			ge_best = flops / best_e[isa] / 1e9;
			best_isa = isa;
		}
	}
	ane_math_set_isa(ANE_MATH_ISA_SSE2);

	gb = flops / best_b / 1e9;
	ratio = ge_best / gb;
	printf("matmul %ux%ux%u, best of %d runs each, %llu chunks\n", n, n, n,
	       runs, (unsigned long long)chunks);
	printf("isa:      %s (the engine's choice on this CPU; built:%s%s)\n",
	       isa_name[top_isa],
	       ane_math_isa_built(ANE_MATH_ISA_SSE2) ? " sse2" : "",
	       ane_math_isa_built(ANE_MATH_ISA_AVX2_FMA) ? " avx2+fma+f16c" : "");
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (!usable[isa]) {
			printf("engine %-5s     n/a     (%s)\n",
			       isa == ANE_MATH_ISA_AVX2_FMA ? "avx2" : isa_name[isa],
			       ane_math_isa_built(isa) ? "not on this CPU or excluded by ANE_MATH_ISA" :
							 "not built");
			continue;
		}
		printf("engine %-5s %8.2f GFLOP/s  (fp16 in/out, fp32 accumulate; longest chunk %.0f us; "
		       "vs openblas %.2g of the rounding bound)\n",
		       isa == ANE_MATH_ISA_AVX2_FMA ? "avx2" : isa_name[isa],
		       flops / best_e[isa] / 1e9, worst_chunk[isa] * 1e6,
		       max_err[isa]);
	}
	printf("openblas     %8.2f GFLOP/s  (cblas_sgemm fp32, 1 thread, core %s%s)\n",
	       gb, openblas_get_corename(),
	       forced && *forced ? ", forced by OPENBLAS_CORETYPE" : "");
	printf("ratio:       %8.3f  (engine %s / openblas)\n", ratio,
	       isa_name[best_isa]);
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
	if (bad) {
		fprintf(stderr, "ane-mathbench: results disagree\n");
		return 2;
	}
	return ratio >= TARGET_RATIO ? 0 : 1;
}

int main(int argc, char **argv)
{
	long n = 512;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		usage(stdout, 0);
	if (argc == 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("ane-mathbench (ane) %s\n", ANE_VERSION);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "matmul"))
		usage(stderr, 2);
	if (argc > 3)
		usage(stderr, 2);
	if (argc == 3) {
		char *end;

		n = strtol(argv[2], &end, 10);
		if (*end || n < 1 || n > 4096)
			usage(stderr, 2);
	}
	return bench_matmul((uint32_t)n);
}
