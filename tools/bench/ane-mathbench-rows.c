// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-mathbench rows: the engine's row normalizations -- softmax, log-
 * softmax and layer normalization over W (ANE_OP_NORM), softmax over C
 * (ANE_OP_SOFTMAX) -- on every instruction-set path this build and CPU
 * have, in nanoseconds per row and GB/s of fp16 read and written.  No
 * baseline and no target: the figures are for performance.rst.  Every
 * path's result must be the same bits as the SSE2 path's.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_math.h"
#include "ane-mathbench.h"
#include "engine_host.h"

#define ROWS_MIN_RUNS	5
#define ROWS_MIN_SECONDS 0.3	/* per path */

struct rows_case {
	const char *name;
	uint32_t op, kind;	/* ANE_OP_NORM's p.norm.kind */
	uint32_t n, c, h, w;	/* the tensor; rows of W (NORM) or of C */
};

static const struct rows_case rows_cases[] = {
	{ "softmax128", ANE_OP_NORM, ANE_NORM_SOFTMAX, 1, 12, 128, 128 },
	{ "softmax1024", ANE_OP_NORM, ANE_NORM_SOFTMAX, 1, 4, 256, 1024 },
	{ "logsoftmax1000", ANE_OP_NORM, ANE_NORM_LOG_SOFTMAX, 1, 1, 256, 1000 },
	{ "layernorm768", ANE_OP_NORM, ANE_NORM_LAYER, 1, 1, 2048, 768 },
	{ "layernorm4096", ANE_OP_NORM, ANE_NORM_LAYER, 1, 1, 256, 4096 },
	{ "softmaxc1000", ANE_OP_SOFTMAX, 0, 256, 1000, 1, 1 },
	/* over C at each of 64 x 64 positions: a segmentation head's 21 classes */
	{ "softmaxc21", ANE_OP_SOFTMAX, 0, 1, 21, 64, 64 },
};

/* One case on every usable path: best time of each; 0, or 2 on an error. */
static int rows_case_run(const struct rows_case *rc, uint16_t *x, uint16_t *y,
			 uint16_t *ref)
{
	uint64_t elems = (uint64_t)rc->n * rc->c * rc->h * rc->w, ws;
	uint64_t rows = elems / (rc->op == ANE_OP_NORM ? rc->w : rc->c);
	struct ane_op_desc d;
	uint32_t isa;
	int ret = 0;

	memset(&d, 0, sizeof(d));
	d.op = rc->op;
	d.p.norm.kind = rc->kind;
	ane_tensor_dense(&d.src[0], x, rc->n, rc->c, rc->h, rc->w);
	ane_tensor_dense(&d.dst, y, rc->n, rc->c, rc->h, rc->w);
	if (ane_op_workspace_size(&d, &ws))
		return 2;
	d.work = ws ? mb_xalloc(ws) : NULL;
	d.work_size = ws;
	printf("%-15s %5llu rows of %5u:", rc->name, (unsigned long long)rows,
	       rc->op == ANE_OP_NORM ? rc->w : rc->c);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		double best = 1e30, spent = 0;
		int runs = 0;

		if (!engine_isa_usable(isa) || ane_math_set_isa(isa))
			continue;
		while (runs < ROWS_MIN_RUNS || spent < ROWS_MIN_SECONDS) {
			double t0 = mb_now(), t;

			if (ane_op_run_all(&d)) {
				fprintf(stderr, "ane-mathbench: rows: %s: error\n", rc->name);
				ret = 2;
				goto out;
			}
			t = mb_now() - t0;
			spent += t;
			best = t < best ? t : best;
			runs++;
		}
		if (!isa)
			memcpy(ref, y, elems * 2);
		else if (memcmp(ref, y, elems * 2))
			ret = 2;
		printf("  %s %7.1f ns/row %5.2f GB/s%s", engine_isa_short(isa),
		       best * 1e9 / (double)rows, (double)elems * 4 / best / 1e9,
		       ret ? " DIFFERS FROM SSE2" : "");
	}
	printf("\n");
out:
	free(d.work);
	return ret;
}

/* ane-mathbench rows: every case above, or those named in @names. */
int rows_bench(char *const *names, int n)
{
	const int ncases = (int)(sizeof(rows_cases) / sizeof(rows_cases[0]));
	uint64_t most = 0, i;
	uint16_t *x, *y, *ref;
	int k, j, ret = 0;

	for (k = 0; k < ncases; k++) {
		const struct rows_case *rc = &rows_cases[k];
		uint64_t e = (uint64_t)rc->n * rc->c * rc->h * rc->w;

		most = e > most ? e : most;
	}
	x = mb_xalloc(most * 2);
	y = mb_xalloc(most * 2);
	ref = mb_xalloc(most * 2);
	/* values in about [-8, 8], every row different */
	for (i = 0; i < most; i++)
		x[i] = ane_fp32_to_fp16((float)((i * 2654435761u) % 4093) / 256.0f - 8.0f);
	printf("rows: row normalizations, ns per row and GB/s of fp16 moved (best of >= %d runs)\n",
	       ROWS_MIN_RUNS);
	for (k = 0; k < ncases && !ret; k++) {
		for (j = 0; j < n; j++)
			if (!strcmp(names[j], rows_cases[k].name))
				break;
		if (n && j == n)
			continue;
		ret = rows_case_run(&rows_cases[k], x, y, ref);
		fflush(stdout);
	}
	ane_math_set_isa((uint32_t)engine_isa_best());
	free(x);
	free(y);
	free(ref);
	return ret;
}
