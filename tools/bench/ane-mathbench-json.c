// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-mathbench --json FILE: the kernels' figures, their targets and, for
 * a sweep of matmul sizes, the GFLOP/s curves tools/bench/perf-report plots.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <cblas.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ane_json.h"
#include "ane-mathbench.h"
#include "engine_host.h"

/* One case's figures, for --json. */
static struct json_object *json_case(const struct bcase *c, const struct result *r)
{
	struct json_object *o = json_object_new_object(), *e = json_object_new_object();
	uint32_t isa;

	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "op", json_object_new_string(c->conv ? "conv" : "matmul"));
	json_object_object_add(o, "M", json_object_new_int64(c->M));
	json_object_object_add(o, "N", json_object_new_int64(c->N));
	json_object_object_add(o, "K", json_object_new_int64(c->K));
	json_object_object_add(o, "runs", json_object_new_int(r->runs));
	json_object_object_add(o, "chunks", json_object_new_uint64(r->chunks));
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++)
		ane_json_add_num(e, engine_isa_short(isa), r->engine[isa], "%.3f");
	json_object_object_add(o, "engine_gflops", e);
	json_object_object_add(o, "engine_isa",
			       json_object_new_string(engine_isa_short(r->best_isa)));
	ane_json_add_num(o, "openblas_gflops", r->openblas, "%.3f");
	ane_json_add_num(o, "onednn_gflops", r->onednn, "%.3f");
	json_object_object_add(o, "onednn_impl", json_object_new_string(r->dnnl_impl));
	json_object_object_add(o, "best_baseline", json_object_new_string(
		r->openblas >= r->onednn ? "openblas" : "onednn"));
	ane_json_add_num(o, "ratio", r->ratio, "%.4f");
	ane_json_add_num(o, "target", TARGET_RATIO, "%.2f");
	json_object_object_add(o, "met", json_object_new_boolean(r->ratio >= TARGET_RATIO));
	return o;
}

/*
 * What tools/bench/perf-report reads: every case's target as an upper bound
 * (the best baseline over the engine, at most 1 / TARGET_RATIO), and, when
 * every case is an n x n x n matmul (`ane-mathbench matmul 64 matmul 128
 * ...`), the GFLOP/s of each engine path and baseline against n.
 */
static void json_series(struct json_object *o, const struct bcase *c,
			const struct result *r, int n)
{
	static const char *const base[2] = { "openblas", "onednn" };
	struct json_object *res = json_object_new_object(), *series, *curve, *pt, *t;
	char key[64];
	uint32_t isa;
	int i, k;

	for (i = 0; i < n; i++) {
		t = json_object_new_object();
		ane_json_add_num(t, "value", r[i].ratio > 0 ? 1 / r[i].ratio : 0, "%.4f");
		ane_json_add_num(t, "target", 1 / TARGET_RATIO, "%.4f");
		json_object_object_add(t, "met", json_object_new_boolean(r[i].ratio >= TARGET_RATIO));
		snprintf(key, sizeof(key), "%s_best_over_engine", c[i].name);
		json_object_object_add(res, key, t);
	}
	json_object_object_add(o, "results", res);
	/* a curve only over sizes of one operation: matmul n x n x n */
	for (i = 0; i < n; i++)
		if (c[i].conv || c[i].M != c[i].N || c[i].M != c[i].K)
			return;
	if (n < 2)
		return;
	json_object_object_add(o, "title",
			       json_object_new_string("Matmul GFLOP/s against size, one thread"));
	json_object_object_add(o, "xlabel", json_object_new_string("n (n x n x n), log scale"));
	series = json_object_new_object();
	for (isa = 0; isa < ANE_MATH_ISA_COUNT + 2; isa++) {
		if (isa < ANE_MATH_ISA_COUNT && !r[0].engine[isa])
			continue;
		curve = json_object_new_array();
		for (k = 0; k < n; k++) {
			double g = isa < ANE_MATH_ISA_COUNT ? r[k].engine[isa] :
				   isa == ANE_MATH_ISA_COUNT ? r[k].openblas : r[k].onednn;

			pt = json_object_new_array();
			json_object_array_add(pt, ane_json_num(c[k].M, "%.1f"));
			json_object_array_add(pt, ane_json_num(g, "%.2f"));
			json_object_array_add(curve, pt);
		}
		if (isa < ANE_MATH_ISA_COUNT)
			snprintf(key, sizeof(key), "engine %s", engine_isa_short(isa));
		else
			snprintf(key, sizeof(key), "%s", base[isa - ANE_MATH_ISA_COUNT]);
		json_object_object_add(series, key, curve);
	}
	json_object_object_add(o, "series", series);
}

/* --json FILE of the kernels: every case, the targets, the curve. */
int json_kernels(const char *path, const struct bcase *c, const struct result *r,
			int n, int unset, int missed)
{
	struct json_object *o = json_object_new_object(), *cases = json_object_new_array();
	struct cpu_id cpu;
	int i;

	json_object_object_add(o, "tool", json_object_new_string("ane-mathbench"));
	json_object_object_add(o, "version", json_object_new_string(ANE_VERSION));
	json_object_object_add(o, "bench", json_object_new_string("kernels"));
	ane_json_add_num(o, "target", TARGET_RATIO, "%.2f");
	cpu_describe(&cpu);
	json_object_object_add(o, "cpu_model", json_object_new_string(cpu.model_name));
	json_object_object_add(o, "cpu_uarch", json_object_new_string(cpu.uarch));
	json_object_object_add(o, "openblas_core", json_object_new_string(openblas_get_corename()));
	json_object_object_add(o, "openblas_coretype_unset", json_object_new_boolean(unset));
	for (i = 0; i < n; i++)
		json_object_array_add(cases, json_case(&c[i], &r[i]));
	json_object_object_add(o, "cases", cases);
	json_series(o, c, r, n);
	json_object_object_add(o, "met", json_object_new_boolean(!missed));
	if (ane_json_write(o, NULL, path)) {
		fprintf(stderr, "ane-mathbench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}
