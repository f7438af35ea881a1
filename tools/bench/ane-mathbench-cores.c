// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-mathbench cores [N]: one large operation split over threads (the
 * engine's neural cores on the host, engine_host.h) against one thread.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_json.h"
#include "ane_math.h"
#include "ane-mathbench.h"
#include "engine_host.h"

#define CORES_MIN_RUNS	5
#define CORES_MIN_SECONDS 1.0	/* per side */

/* GFLOP/s of the two operations on 1 thread and on N, for the plot */
static double cores_g[2][2];

/*
 * One large operation on 1 thread and on @threads (the engine's neural
 * cores on the host, engine_host.h), alternating, best time of each: the
 * speed-up against the target of 0.8 x @threads.  The result must be
 * bit-identical.  Returns 0 met, 1 missed, 2 error.
 */
static int cores_case(const char *name, struct ane_op_desc *d, size_t out_bytes,
		      unsigned int threads, struct json_object *json, int first)
{
	double best[2] = { 1e30, 1e30 }, spent[2] = { 0, 0 }, speedup, flop;
	void *one = malloc(out_bytes);
	unsigned int runs = 0, k;
	int ret = 0;

	flop = 2.0 * (double)d->dst.dim[0] * d->dst.dim[1] * d->dst.dim[2] * d->dst.dim[3];
	flop *= d->op == ANE_OP_MATMUL ? d->src[0].dim[3] :
		(double)d->src[1].dim[1] * d->src[1].dim[2] * d->src[1].dim[3];
	while (runs < CORES_MIN_RUNS || spent[0] < CORES_MIN_SECONDS ||
	       spent[1] < CORES_MIN_SECONDS) {
		for (k = 0; k < 2; k++) {
			double t0 = mb_now(), t;

			ret = engine_mt_run(d, k ? threads : 1);
			t = mb_now() - t0;
			if (ret) {
				fprintf(stderr, "ane-mathbench: cores: %s: error %d\n", name, ret);
				free(one);
				return 2;
			}
			spent[k] += t;
			if (t < best[k])
				best[k] = t;
			if (!runs && !k)
				memcpy(one, d->dst.base, out_bytes);
		}
		runs++;
	}
	speedup = best[0] / best[1];
	ret = memcmp(one, d->dst.base, out_bytes) ? 2 : speedup >= 0.8 * threads ? 0 : 1;
	printf("%-10s 1 thread %7.1f GFLOP/s   %u threads %7.1f GFLOP/s   speed-up %.2f (target >= %.1f: %s)%s\n",
	       name, flop / best[0] / 1e9, threads, flop / best[1] / 1e9, speedup,
	       0.8 * threads, ret == 0 ? "met" : "MISSED",
	       ret == 2 ? "  RESULTS DIFFER" : "");
	cores_g[first ? 0 : 1][0] = flop / best[0] / 1e9;
	cores_g[first ? 0 : 1][1] = flop / best[1] / 1e9;
	if (json) {
		struct json_object *t = json_object_new_object();
		char key[64];

		ane_json_add_num(t, "value", 0.8 * threads / speedup, "%.4f");
		json_object_object_add(t, "target", json_object_new_int(1));
		json_object_object_add(t, "met", json_object_new_boolean(ret == 0));
		snprintf(key, sizeof(key), "%s_ideal_over_speedup", name);
		json_object_object_add(json, key, t);
		snprintf(key, sizeof(key), "%s_gflops_1", name);
		ane_json_add_num(json, key, flop / best[0] / 1e9, "%.2f");
		snprintf(key, sizeof(key), "%s_gflops_%u", name, threads);
		ane_json_add_num(json, key, flop / best[1] / 1e9, "%.2f");
	}
	free(one);
	return ret;
}

/* [[1, GFLOP/s on one thread], [@threads, GFLOP/s on them]] of case @k. */
static struct json_object *cores_curve(int k, unsigned int threads)
{
	struct json_object *c = json_object_new_array(), *p;
	int i;

	for (i = 0; i < 2; i++) {
		p = json_object_new_array();
		json_object_array_add(p, json_object_new_int(i ? (int)threads : 1));
		json_object_array_add(p, ane_json_num(cores_g[k][i], "%.2f"));
		json_object_array_add(c, p);
	}
	return c;
}

/* The cores run as one JSON object in @path: its @results and the plot. */
static int cores_json(const char *path, struct json_object *results,
		      unsigned int threads, int status)
{
	struct json_object *o = json_object_new_object(), *series = json_object_new_object();

	json_object_object_add(o, "tool", json_object_new_string("ane-mathbench"));
	json_object_object_add(o, "version", json_object_new_string(ANE_VERSION));
	json_object_object_add(o, "bench", json_object_new_string("cores"));
	json_object_object_add(o, "threads", json_object_new_int((int)threads));
	json_object_object_add(o, "results", results);
	json_object_object_add(o, "title", json_object_new_string("GFLOP/s against threads"));
	json_object_object_add(o, "xlabel", json_object_new_string("threads"));
	json_object_object_add(o, "logx", json_object_new_boolean(0));
	json_object_object_add(series, "matmul2048", cores_curve(0, threads));
	json_object_object_add(series, "conv3x3", cores_curve(1, threads));
	json_object_object_add(o, "series", series);
	json_object_object_add(o, "exit", json_object_new_int(status));
	if (ane_json_write(o, NULL, path)) {
		fprintf(stderr, "ane-mathbench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ane-mathbench cores [N]: matmul 2048^3 and conv 3x3 on 1 and N threads. */
int cores_bench(unsigned int threads, const char *json_path)
{
	struct ane_op_desc d;
	uint16_t *a, *b, *y;
	struct json_object *json = NULL;
	int isa = engine_isa_best(), r1, r2;
	uint64_t ws, i;

	if (isa < 0 || ane_math_set_isa((uint32_t)isa))
		return 2;
	printf("cores: one operation split over threads (the engine's neural cores), %s path, best of >= %d runs\n",
	       engine_isa_name((uint32_t)isa), CORES_MIN_RUNS);
	if (json_path)
		json = json_object_new_object();
	a = mb_xalloc(2048ull * 2048 * 2);
	b = mb_xalloc(2048ull * 2048 * 2);
	y = mb_xalloc(2048ull * 2048 * 2);
	for (i = 0; i < 2048ull * 2048; i++) {
		a[i] = (uint16_t)(0x3000 + i % 1021);
		b[i] = (uint16_t)(0x3000 + i % 997);
	}
	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_MATMUL;
	ane_tensor_dense(&d.src[0], a, 1, 1, 2048, 2048);
	ane_tensor_dense(&d.src[1], b, 1, 1, 2048, 2048);
	ane_tensor_dense(&d.dst, y, 1, 1, 2048, 2048);
	ane_op_workspace_size(&d, &ws);
	d.work = ws ? mb_xalloc(ws) : NULL;
	d.work_size = ws;
	r1 = cores_case("matmul2048", &d, 2048ull * 2048 * 2, threads, json, 1);
	free(d.work);

	memset(&d, 0, sizeof(d));
	d.op = ANE_OP_CONV;
	ane_tensor_dense(&d.src[0], a, 1, 64, 56, 56);
	ane_tensor_dense(&d.src[1], b, 64, 64, 3, 3);
	ane_tensor_dense(&d.dst, y, 1, 64, 56, 56);
	d.p.conv = (struct ane_conv_params){ .stride = { 1, 1 }, .dilation = { 1, 1 },
		.pad = { 1, 1, 1, 1 }, .groups = 1 };
	ane_op_workspace_size(&d, &ws);
	d.work = ws ? mb_xalloc(ws) : NULL;
	d.work_size = ws;
	r2 = cores_case("conv3x3", &d, 64ull * 56 * 56 * 2, threads, json, 0);
	free(d.work);
	free(a);
	free(b);
	free(y);
	if (json && cores_json(json_path, json, threads, r1 > r2 ? r1 : r2))
		return 2;
	return r1 > r2 ? r1 : r2;
}
