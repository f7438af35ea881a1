// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-run MODEL.onnx: run an ONNX model through libane's front end
 * (Documentation/accel/ane/onnx.rst) and print its outputs, the time per
 * run and where each node ran.
 *
 *   ane-run MODEL.onnx [--input NAME=FILE.npy]... [--output-dir DIR]
 *           [--shape NAME=AxBxC]... [--const NAME=FILE.npy]...
 *           [--engine device|host|reference] [--engine-only | --cpu-only]
 *           [--runs N] [--threads N] [--node N] [--seed S] [--quiet]
 *           [--expect NAME=FILE.npy]... [--segment-mflops N]
 *
 * Inputs not given are generated (uniform in [-1, 1) from --seed, or
 * small integers for integer inputs).  --threads splits each engine
 * operation over that many threads on --engine host, as the kernel's
 * engine splits it over its cores.  --expect compares an output with an
 * array within onnx.rst's engine tolerance (2e-2 of the array's largest
 * magnitude plus 2e-2 of each element's) and ends with "check: PASS" or
 * "check: FAIL" (exit 1).  On the device each engine segment is one
 * request, which the firmware aborts at its deadline (fw_deadline_ms, 2 s
 * by default): segments hold
 * at most --segment-mflops million FLOPs there (default 64; 0: no limit).  Engine segments run on the device
 * (the default), on the engine's userspace build (--engine host: the
 * engine's own arithmetic, tools/engine-host/ane_netrun.c, which is why this file is
 * GPL) or on libane's CPU reference executor (--engine reference).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "libane.h"
#include "ane_netrun.h"
#include "ane-run-npy.h"
#include "ane-run.h"
#include "ane_opt.h"

#define MAX_ARGS	64

struct onnx_opts {
	const char *model;
	const char *out_dir;
	const char *engine;
	const char *node;
	unsigned int flags;
	unsigned int runs;
	unsigned int seed;
	unsigned int threads;
	double seg_flops;
	int quiet;
	struct { const char *name, *file; } in[MAX_ARGS], cst[MAX_ARGS], exp[MAX_ARGS];
	unsigned int n_in, n_cst, n_exp;
	struct ane_model_tensor shapes[MAX_ARGS];
	unsigned int n_shapes;
};

static void onnx_usage(FILE *f)
{
	fprintf(f,
		"usage: ane-run MODEL.onnx [--input NAME=FILE.npy]... [--output-dir DIR]\n"
		"               [--shape NAME=AxBxC]... [--const NAME=FILE.npy]...\n"
		"               [--engine device|host|reference] [--engine-only | --cpu-only]\n"
		"               [--runs N] [--threads N] [--node N] [--seed S] [--quiet]\n"
		"               [--expect NAME=FILE.npy]... [--segment-mflops N]\n");
}

/* The usage error "ane-run: WHAT 'ARG': WHY" (ane_opt.c); ANE_OPT_USAGE. */
static int bad(const char *what, const char *arg, const char *why)
{
	return ane_usage_error("%s '%s': %s", what, arg, why);
}

/* "NAME=VALUE" into @name (bounded) and a pointer to VALUE. */
static const char *split_eq(char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1])
		return NULL;
	*eq = '\0';
	return eq + 1;
}

static int parse_shape(char *arg, struct ane_model_tensor *t)
{
	const char *v = split_eq(arg);
	char *end;

	if (!v)
		return -1;
	memset(t, 0, sizeof(*t));
	t->name = arg;
	while (*v) {
		long long d;

		if (t->rank == ANE_MODEL_MAX_RANK)
			return -1;
		errno = 0;
		d = strtoll(v, &end, 10);
		if (errno || end == v || d < 1 || (*end && *end != 'x'))
			return -1;
		t->dims[t->rank++] = d;
		v = *end ? end + 1 : end;
		if (*end && !*v)
			return -1;
	}
	return t->rank ? 0 : -1;
}

static int parse_args(int argc, char **argv, struct onnx_opts *o)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output-dir", required_argument, NULL, 'o' },
		{ "shape", required_argument, NULL, 's' },
		{ "const", required_argument, NULL, 'c' },
		{ "engine", required_argument, NULL, 'e' },
		{ "engine-only", no_argument, NULL, 'E' },
		{ "cpu-only", no_argument, NULL, 'C' },
		{ "runs", required_argument, NULL, 'r' },
		{ "node", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "expect", required_argument, NULL, 'x' },
		{ "segment-mflops", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int mf;
	int c;

	ane_opt_init("ane-run");
	memset(o, 0, sizeof(*o));
	o->engine = "device";
	o->runs = 1;
	o->seed = 1;
	o->threads = 1;
	o->seg_flops = 64e6;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:o:s:c:e:r:n:t:x:qhV", lopts, NULL)) != -1) {
		const char *v;

		switch (c) {
		case 'i':
		case 'c':
		case 'x':
			if (!(v = split_eq(optarg)))
				return bad(c == 'i' ? "--input" : c == 'c' ? "--const" : "--expect",
					   optarg, "takes NAME=FILE.npy");
			if ((c == 'i' ? o->n_in : c == 'c' ? o->n_cst : o->n_exp) == MAX_ARGS)
				return bad("--input/--const/--expect", optarg, "too many");
			if (c == 'i') {
				o->in[o->n_in].name = optarg;
				o->in[o->n_in++].file = v;
			} else if (c == 'c') {
				o->cst[o->n_cst].name = optarg;
				o->cst[o->n_cst++].file = v;
			} else {
				o->exp[o->n_exp].name = optarg;
				o->exp[o->n_exp++].file = v;
			}
			break;
		case 's':
			if (o->n_shapes == MAX_ARGS ||
			    parse_shape(optarg, &o->shapes[o->n_shapes]))
				return bad("--shape", optarg,
					   "takes NAME=AxBxC with dimensions of at least 1, rank 1 to 8");
			o->n_shapes++;
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case 'e':
			if (strcmp(optarg, "device") && strcmp(optarg, "host") &&
			    strcmp(optarg, "reference"))
				return bad("--engine", optarg, "is device, host or reference");
			o->engine = optarg;
			break;
		case 'E':
			o->flags |= ANE_MODEL_ENGINE_ONLY;
			break;
		case 'C':
			o->flags |= ANE_MODEL_CPU_ONLY;
			break;
		case 'r':
			if (ane_opt_uint("--runs", optarg, 1, 1000000, NULL, &o->runs))
				return ANE_OPT_USAGE;
			break;
		case 'n':
			o->node = optarg;
			break;
		case 'S':
			if (ane_opt_uint("--seed", optarg, 0, UINT_MAX, NULL, &o->seed))
				return ANE_OPT_USAGE;
			break;
		case 'm':
			/* 0: no limit */
			if (ane_opt_uint("--segment-mflops", optarg, 0, 1000000000,
					 "millions of FLOPs", &mf))
				return ANE_OPT_USAGE;
			o->seg_flops = mf * 1e6;
			break;
		case 't':
			if (ane_opt_uint("--threads", optarg, 1, 256, NULL, &o->threads))
				return ANE_OPT_USAGE;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			onnx_usage(stdout);
			return 1;
		case 'V':
			printf("ane-run (libane) %s\n", ane_version());
			return 1;
		default:
			return ane_opt_bad(c, argv);
		}
	}
	if ((o->flags & ANE_MODEL_ENGINE_ONLY) && (o->flags & ANE_MODEL_CPU_ONLY))
		return ane_usage_error("--engine-only and --cpu-only exclude each other");
	/* one model: an extra operand is named */
	if (ane_opt_operands(argc, argv, 1, 1, "MODEL.onnx"))
		return ANE_OPT_USAGE;
	o->model = argv[optind];
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *place_name(int p)
{
	return p == ANE_MODEL_ENGINE ? "engine" : p == ANE_MODEL_CPU ? "cpu" : "folded";
}

static void print_nodes(const struct ane_model *m)
{
	struct ane_model_node_info ni;
	struct ane_model_stats st;
	unsigned int i;

	ane_model_get_stats(m, &st);
	printf("nodes: %u: %u on the engine in %u segment%s, %u on the CPU, %u folded at load\n",
	       st.nodes, st.engine_nodes, st.segments, st.segments == 1 ? "" : "s",
	       st.cpu_nodes, st.folded_nodes);
	printf("flops: %.4g, %.1f%% on the engine\n", st.flops,
	       st.flops > 0 ? 100.0 * st.engine_flops / st.flops : 0.0);
	for (i = 0; i < ane_model_num_nodes(m); i++) {
		ane_model_node(m, i, &ni);
		printf("  node %u %-20s %-18s %-6s", i, ni.name[0] ? ni.name : "-",
		       ni.op_type, place_name(ni.place));
		if (ni.place == ANE_MODEL_ENGINE)
			printf(" segment %d", ni.segment);
		if (ni.place == ANE_MODEL_CPU && ni.why[0])
			printf(" (%s)", ni.why);
		printf("\n");
	}
}

static void print_tensor(const struct ane_model_tensor *t)
{
	size_t n = ane_npy_count(t), i, show = n < 8 ? n : 8;
	unsigned int k;

	printf("output %s: %s [", t->name, ane_npy_dtype_name(t->dtype));
	for (k = 0; k < t->rank; k++)
		printf("%s%lld", k ? ", " : "", (long long)t->dims[k]);
	printf("]:");
	for (i = 0; i < show; i++)
		printf(" %.6g", ane_npy_get(t, i));
	printf("%s\n", n > show ? " ..." : "");
}

/* --expect: output @t against @file within the engine tolerance. */
static int expect(const struct ane_model_tensor *t, const char *file)
{
	struct ane_model_tensor e;
	double peak = 0, worst = 0, over = 0;
	char err[512];
	size_t i, n;

	if (ane_npy_read(file, &e, err, sizeof(err))) {
		fprintf(stderr, "ane-run: --expect %s: %s\n", t->name, err);
		return -1;
	}
	n = ane_npy_count(t);
	if (ane_npy_count(&e) != n) {
		fprintf(stderr, "ane-run: --expect %s: %zu elements, the output has %zu\n",
			t->name, ane_npy_count(&e), n);
		free(e.data);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (fabs(ane_npy_get(&e, i)) > peak)
			peak = fabs(ane_npy_get(&e, i));
	for (i = 0; i < n; i++) {
		double w = ane_npy_get(&e, i), d = fabs(ane_npy_get(t, i) - w);

		if (d > worst)
			worst = d;
		if (!(d <= 2e-2 * peak + 2e-2 * fabs(w)))
			over++;
	}
	free(e.data);
	printf("expect %s: max error %.4g of peak %.4g, %.0f elements outside the tolerance\n",
	       t->name, worst, peak, over);
	return over ? 1 : 0;
}

int ane_run_onnx(int argc, char **argv)
{
	struct ane_model_tensor in[256], out[256], cst[MAX_ARGS] = { { 0 } };
	struct ane_model_options mo = { 0 };
	struct ane_netrun_cache *cache = NULL;
	struct ane_model *m = NULL;
	struct ane_dev *dev = NULL;
	struct onnx_opts o;
	char err[4096];
	unsigned int i, j, n_in = 0, n_out = 0;
	double t0, best = 1e30, sum = 0;
	int r, rc = 1;

	memset(in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	r = parse_args(argc, argv, &o);
	if (r)
		return r == 1 ? 0 : r;
	for (i = 0; i < o.n_cst; i++) {
		if (ane_npy_read(o.cst[i].file, &cst[i], err, sizeof(err))) {
			fprintf(stderr, "ane-run: --const %s: %s\n", o.cst[i].name, err);
			goto out;
		}
		cst[i].name = o.cst[i].name;
	}
	mo.flags = o.flags;
	mo.shapes = o.shapes;
	mo.n_shapes = o.n_shapes;
	mo.consts = cst;
	mo.n_consts = o.n_cst;
	/* On the device each segment is a request the firmware times out. */
	if (!strcmp(o.engine, "device"))
		mo.max_segment_flops = o.seg_flops;
	if (ane_model_load_onnx_file(o.model, &mo, &m, err, sizeof(err))) {
		fprintf(stderr, "ane-run: %s\n", err);
		goto out;
	}
	n_in = ane_model_num_inputs(m);
	n_out = ane_model_num_outputs(m);
	for (i = 0; i < n_in; i++) {
		struct ane_model_tensor info;

		ane_model_input(m, i, &info);
		for (j = 0; j < o.n_in && strcmp(o.in[j].name, info.name); j++)
			;
		if (j < o.n_in) {
			if (ane_npy_read(o.in[j].file, &in[i], err, sizeof(err)) ||
			    ane_npy_check(&in[i], &info, err, sizeof(err))) {
				fprintf(stderr, "ane-run: --input %s: %s\n", info.name, err);
				goto out;
			}
		} else if (ane_npy_generate(&info, o.seed + i, &in[i])) {
			fprintf(stderr, "ane-run: input %s: out of memory\n", info.name);
			goto out;
		}
		in[i].name = info.name;
	}
	for (j = 0; j < o.n_in; j++) {
		struct ane_model_tensor info;

		for (i = 0; i < n_in; i++)
			if (!ane_model_input(m, i, &info) && !strcmp(info.name, o.in[j].name))
				break;
		if (i == n_in) {
			fprintf(stderr, "ane-run: --input names '%s', which is not an input of %s\n",
				o.in[j].name, o.model);
			goto out;
		}
	}
	for (i = 0; i < n_out; i++) {
		ane_model_output(m, i, &out[i]);
		out[i].data = malloc(out[i].size ? out[i].size : 1);
		if (!out[i].data)
			goto out;
	}
	if (!strcmp(o.engine, "host")) {
		cache = ane_netrun_cache_new(o.threads);
		ane_model_set_executor(m, ane_netrun_exec, cache);
	} else if (!strcmp(o.engine, "device") && ane_model_num_segments(m)) {
		if (ane_open(o.node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
			fprintf(stderr, "ane-run: %s (--engine host or reference runs without the device)\n",
				err);
			goto out;
		}
	}
	printf("model: %s, %u input%s, %u output%s, engine: %s\n", o.model, n_in,
	       n_in == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s", o.engine);
	if (!o.quiet)
		print_nodes(m);
	for (i = 0; i < o.runs; i++) {
		double dt;

		t0 = now_s();
		r = ane_model_run(m, dev, in, out);
		dt = now_s() - t0;
		if (r) {
			fprintf(stderr, "ane-run: run %u: %s\n", i + 1, ane_model_errmsg(m));
			goto out;
		}
		sum += dt;
		if (dt < best)
			best = dt;
	}
	printf("time: %.3f ms per run (mean of %u), best %.3f ms\n",
	       1e3 * sum / o.runs, o.runs, 1e3 * best);
	for (i = 0; i < n_out; i++) {
		print_tensor(&out[i]);
		if (o.out_dir && ane_npy_write_dir(o.out_dir, &out[i], err, sizeof(err))) {
			fprintf(stderr, "ane-run: %s\n", err);
			goto out;
		}
	}
	rc = 0;
	for (j = 0; j < o.n_exp; j++) {
		for (i = 0; i < n_out && strcmp(out[i].name, o.exp[j].name); i++)
			;
		if (i == n_out) {
			fprintf(stderr, "ane-run: --expect names '%s', which is not an output\n",
				o.exp[j].name);
			rc = 1;
		} else if (expect(&out[i], o.exp[j].file)) {
			rc = 1;
		}
	}
	if (o.n_exp)
		printf("check: %s\n", rc ? "FAIL" : "PASS");
out:
	for (i = 0; i < n_in; i++)
		free(in[i].data);
	for (i = 0; i < n_out; i++)
		free(out[i].data);
	for (i = 0; i < o.n_cst; i++)
		free(cst[i].data);
	ane_model_destroy(m);
	ane_netrun_cache_free(cache);
	if (dev)
		ane_close(dev);
	return rc;
}
