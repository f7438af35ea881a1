// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-netbench: real networks built with libane's builder, compiled to a
 * program image and run end to end on the engine's userspace build
 * (tools/engine-host/ane_netrun.c: the firmware's task-descriptor decoding and the
 * engine's operations), timed, and compared with PyTorch on the CPU
 * (tools/bench/torch_nets.py builds the same networks from the weights
 * this tool exports).  tools/bench/netbench.sh runs both, alternating.
 *
 *   ane-netbench [--net mlp|resnet|encoder]... [--dir DIR] [--export]
 *                [--torch FILE]...
 *                [--json FILE] [--time SEC] [--threads N] [--check]
 *                [--profile]
 *
 * See Documentation/accel/ane/performance.rst, "Real networks".
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ane_math.h"
#include "ane_netrun.h"
#include "ane_opt.h"
#include "engine_host.h"
#include "libane.h"

#define MAX_NETS	4
#define TOL_ULPS	4.0	/* fp16 ulps of each value ... */
#define TOL_FRAC	1e-3	/* ... plus this fraction of the largest */

#include "ane-netbench.h"

unsigned int threads = 1;	/* --threads: the engine's cores */

void die(const char *what, const char *msg)
{
	fprintf(stderr, "ane-netbench: %s: %s\n", what, msg);
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Deterministic uniform numbers in [-1, 1): xorshift64. */
static float frand(struct bench *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return (float)((double)(b->rng >> 11) / (double)(1ull << 53) * 2.0 - 1.0);
}

static size_t elems(const uint32_t *d)
{
	return (size_t)d[0] * d[1] * d[2] * d[3];
}

/* An array of uniform values in [off - scale, off + scale), in fp16. */
static struct array *new_array_off(struct bench *b, const char *name, uint32_t n,
				   uint32_t c, uint32_t h, uint32_t w, float scale,
				   float off)
{
	struct array *a;
	size_t i, cnt;

	if (b->n_arr == MAX_ARRAYS)
		die(b->name, "too many arrays");
	a = &b->arr[b->n_arr++];
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->dim[0] = n;
	a->dim[1] = c;
	a->dim[2] = h;
	a->dim[3] = w;
	cnt = elems(a->dim);
	a->data = malloc(cnt * sizeof(float));
	if (!a->data)
		die(b->name, "out of memory");
	for (i = 0; i < cnt; i++)
		a->data[i] = ane_float_from_fp16(ane_fp16_from_float(off + scale * frand(b)));
	return a;
}

static struct array *new_array(struct bench *b, const char *name, uint32_t n,
			       uint32_t c, uint32_t h, uint32_t w, float scale)
{
	return new_array_off(b, name, n, c, h, w, scale, 0.0f);
}

static int input(struct bench *b, const char *name, uint32_t n, uint32_t c,
		 uint32_t h, uint32_t w)
{
	new_array(b, name, n, c, h, w, 1.0f);
	return ane_net_input(b->net, name, n, c, h, w);
}

static int weight(struct bench *b, const char *name, uint32_t n, uint32_t c,
		  uint32_t h, uint32_t w, float scale)
{
	struct array *a = new_array(b, name, n, c, h, w, scale);

	return ane_net_const(b->net, name, n, c, h, w, a->data);
}

static int weight_off(struct bench *b, const char *name, uint32_t n, uint32_t c,
		      uint32_t h, uint32_t w, float scale, float off)
{
	struct array *a = new_array_off(b, name, n, c, h, w, scale, off);

	return ane_net_const(b->net, name, n, c, h, w, a->data);
}

static float fan_in(uint32_t k)
{
	return 1.7320508f / __builtin_sqrtf((float)k);	/* variance 1/k */
}

/*
 * MLP, batch 64: 1024 -> 4096 -> 4096 -> 1024, GELU (exact) after the
 * two hidden layers; each layer x W + b with W [in, out].
 */
static void build_mlp(struct bench *b)
{
	static const uint32_t width[] = { 1024, 4096, 4096, 1024 };
	const uint32_t batch = 64;
	char nm[16];
	int t, i;

	b->what = "MLP 1024-4096-4096-1024, GELU, batch 64";
	t = input(b, "x", 1, 1, batch, width[0]);
	for (i = 0; i < 3; i++) {
		int w, bias;

		snprintf(nm, sizeof(nm), "w%d", i + 1);
		w = weight(b, nm, 1, 1, width[i], width[i + 1], fan_in(width[i]));
		snprintf(nm, sizeof(nm), "b%d", i + 1);
		bias = weight(b, nm, 1, 1, 1, width[i + 1], 0.1f);
		t = ane_net_matmul(b->net, t, w, 0, ANE_NET_ACT_NONE);
		t = ane_net_eltwise(b->net, ANE_NET_ADD, t, bias,
				    i < 2 ? ANE_NET_ACT_GELU : ANE_NET_ACT_NONE);
		b->gflop += 2.0 * batch * width[i] * width[i + 1] * 1e-9;
	}
	ane_net_output(b->net, t);
}

/*
 * ResNet-style stack, batch 1: three basic blocks on 64 x 56 x 56, each
 * relu(x + conv(relu(conv(x) + b1)) + b2), 3x3 convolutions, padding 1.
 */
static void build_resnet(struct bench *b)
{
	const uint32_t c = 64, hw = 56, blocks = 3;
	struct ane_net_conv_params p = {
		.stride_h = 1, .stride_w = 1,
		.pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1,
	};
	char nm[16];
	uint32_t i;
	int x;

	b->what = "ResNet-style, 3 basic blocks, 3x3 conv 64ch 56x56, batch 1";
	x = input(b, "x", 1, c, hw, hw);
	for (i = 0; i < blocks; i++) {
		int w1, b1, w2, b2, y;

		snprintf(nm, sizeof(nm), "w%ua", i + 1);
		w1 = weight(b, nm, c, c, 3, 3, fan_in(9 * c));
		snprintf(nm, sizeof(nm), "b%ua", i + 1);
		b1 = weight(b, nm, 1, c, 1, 1, 0.1f);
		snprintf(nm, sizeof(nm), "w%ub", i + 1);
		w2 = weight(b, nm, c, c, 3, 3, fan_in(9 * c));
		snprintf(nm, sizeof(nm), "b%ub", i + 1);
		b2 = weight(b, nm, 1, c, 1, 1, 0.1f);
		p.act = ANE_NET_ACT_RELU;
		y = ane_net_conv(b->net, x, w1, b1, &p);
		p.act = ANE_NET_ACT_NONE;
		y = ane_net_conv(b->net, y, w2, b2, &p);
		x = ane_net_eltwise(b->net, ANE_NET_ADD, y, x, ANE_NET_ACT_RELU);
		b->gflop += 2 * 2.0 * c * c * 9 * hw * hw * 1e-9;
	}
	ane_net_output(b->net, x);
}

/* LayerNorm over W (d_model) with its scale and shift. */
static int layer_norm(struct bench *b, int x, const char *g, const char *be,
		      uint32_t dm)
{
	int t = ane_net_norm(b->net, x, ANE_NET_NORM_LAYER);

	t = ane_net_eltwise(b->net, ANE_NET_MUL, t,
			    weight_off(b, g, 1, 1, 1, dm, 0.1f, 1.0f), ANE_NET_ACT_NONE);
	return ane_net_eltwise(b->net, ANE_NET_ADD, t,
			       weight(b, be, 1, 1, 1, dm, 0.1f), ANE_NET_ACT_NONE);
}

/*
 * Transformer encoder block (post-norm, as PyTorch's TransformerEncoderLayer
 * by default), sequence 128, d_model 512, 8 heads, FFN 2048, exact GELU.
 * The sequence is H and the features W: x [1, 1, S, D].  Q, K and V are
 * one GEMM, x [S, D] by the three projections side by side [D, 3 D] (plus
 * their biases, fused), whose heads are views (ane_net_view()): Q's head
 * c is columns [64 c, 64 c + 64) of the first D, [1, 8, S, 64] read in
 * place by the attention's matmuls.  The 1/sqrt(64) of the scores is
 * folded into wq and bq (exact: a power of two).  Scores Q K^T [1, 8, S,
 * S], softmax over W (keys), times V, written by that matmul straight
 * into the column blocks of concat(heads) [1, 1, S, D]
 * (ane_net_merge_heads()), which the output projection then multiplies
 * by Wo [D, D] as one GEMM, its bias fused.
 */
static void build_encoder(struct bench *b)
{
	const uint32_t S = 128, D = 512, NH = 8, DK = D / NH, F = 2048;
	static const char *const wn[3] = { "wq", "wk", "wv" };
	static const char *const bn[3] = { "bq", "bk", "bv" };
	float *wqkv, *bqkv;
	struct array *a;
	int x, q, k, v, t, h;
	uint32_t j;

	b->what = "Transformer encoder, seq 128, d_model 512, 8 heads, FFN 2048";
	x = input(b, "x", 1, 1, S, D);
	/* the exported per-head arrays [NH, D, DK], packed as [D, 3 D] */
	wqkv = malloc(sizeof(*wqkv) * D * 3 * D);
	bqkv = malloc(sizeof(*bqkv) * 3 * D);
	if (!wqkv || !bqkv)
		die(b->name, "out of memory");
	for (j = 0; j < 3; j++) {
		struct array *wa = new_array(b, wn[j], 1, NH, D, DK, fan_in(D));
		struct array *ba = new_array(b, bn[j], 1, NH, 1, DK, 0.1f);
		float sc = j ? 1.0f : 0.125f;

		for (size_t i = 0; i < (size_t)NH * D * DK; i++) {
			size_t hd = i / ((size_t)D * DK), d = i / DK % D, c = i % DK;

			wa->data[i] *= sc;
			wqkv[d * 3 * D + j * D + hd * DK + c] = wa->data[i];
		}
		for (size_t i = 0; i < (size_t)NH * DK; i++) {
			ba->data[i] *= sc;
			bqkv[j * D + i] = ba->data[i];
		}
	}
	t = ane_net_matmul(b->net, x, ane_net_const(b->net, "wqkv", 1, 1, D, 3 * D, wqkv),
			   0, ANE_NET_ACT_NONE);
	t = ane_net_eltwise(b->net, ANE_NET_ADD, t,
			    ane_net_const(b->net, "bqkv", 1, 1, 1, 3 * D, bqkv),
			    ANE_NET_ACT_NONE);
	free(wqkv);
	free(bqkv);
	q = ane_net_view(b->net, t, 0, DK, NH);
	k = ane_net_view(b->net, t, D, DK, NH);
	v = ane_net_view(b->net, t, 2 * D, DK, NH);
	t = ane_net_matmul(b->net, q, k, ANE_NET_TRANSPOSE_B, ANE_NET_ACT_NONE);
	t = ane_net_norm(b->net, t, ANE_NET_NORM_SOFTMAX);
	t = ane_net_matmul(b->net, t, v, 0, ANE_NET_ACT_NONE);
	/* the heads written side by side, then one [S, D] x [D, D] */
	t = ane_net_merge_heads(b->net, t);
	a = new_array(b, "wo", 1, NH, DK, D, fan_in(D));
	t = ane_net_matmul(b->net, t, ane_net_const(b->net, "wo", 1, 1, D, D, a->data), 0,
			   ANE_NET_ACT_NONE);
	t = ane_net_eltwise(b->net, ANE_NET_ADD, t, weight(b, "bo", 1, 1, 1, D, 0.1f),
			    ANE_NET_ACT_NONE);
	t = ane_net_eltwise(b->net, ANE_NET_ADD, t, x, ANE_NET_ACT_NONE);
	h = layer_norm(b, t, "g1", "be1", D);
	t = ane_net_matmul(b->net, h, weight(b, "w1", 1, 1, D, F, fan_in(D)), 0,
			   ANE_NET_ACT_NONE);
	t = ane_net_eltwise(b->net, ANE_NET_ADD, t, weight(b, "b1", 1, 1, 1, F, 0.1f),
			    ANE_NET_ACT_GELU);
	t = ane_net_matmul(b->net, t, weight(b, "w2", 1, 1, F, D, fan_in(F)), 0,
			   ANE_NET_ACT_NONE);
	t = ane_net_eltwise(b->net, ANE_NET_ADD, t, weight(b, "b2", 1, 1, 1, D, 0.1f),
			    ANE_NET_ACT_NONE);
	t = ane_net_eltwise(b->net, ANE_NET_ADD, t, h, ANE_NET_ACT_NONE);
	ane_net_output(b->net, layer_norm(b, t, "g2", "be2", D));
	b->gflop = 2.0 * S * D * D * 4 + 2.0 * 2 * NH * S * S * DK +
		   2.0 * 2 * S * D * F;
	b->gflop *= 1e-9;
}

static const struct {
	const char *name;
	void (*build)(struct bench *b);
} nets[] = {
	{ "mlp", build_mlp },
	{ "resnet", build_resnet },
	{ "encoder", build_encoder },
};

#define NUM_NETS (sizeof(nets) / sizeof(nets[0]))

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		die(path, strerror(errno));
}

static float *read_floats(const char *path, size_t n)
{
	float *p = malloc(n * sizeof(float));
	FILE *f = fopen(path, "rb");
	size_t got;

	if (!f || !p) {
		free(p);
		if (f)
			fclose(f);
		return NULL;
	}
	got = fread(p, sizeof(float), n, f);
	fclose(f);
	if (got != n) {
		fprintf(stderr, "ane-netbench: %s: %zu values, expected %zu\n", path, got, n);
		free(p);
		return NULL;
	}
	return p;
}

/* DIR/<net>/<array>.f32 for every input and weight: fp32, little-endian. */
static void export_arrays(const struct bench *b, const char *dir)
{
	char path[4096];
	unsigned int i;

	snprintf(path, sizeof(path), "%s/%s", dir, b->name);
	if (mkdir(path, 0755) && errno != EEXIST)
		die(path, strerror(errno));
	for (i = 0; i < b->n_arr; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s.f32", dir, b->name, b->arr[i].name);
		write_file(path, b->arr[i].data, elems(b->arr[i].dim) * sizeof(float));
	}
}

/* The "ms" figure of net @name in a torch_nets.py JSON file, or -1. */
static double ulp16(double v)
{
	uint16_t h = ane_fp16_from_float((float)(v < 0 ? -v : v));

	if ((h & 0x7c00u) < 0x0400u)
		return 1.0 / (1 << 24);			/* subnormal spacing */
	return ldexp(1.0, (int)((h & 0x7c00u) >> 10) - 25);
}

/*
 * Worst |got - ref| against the tolerance TOL_ULPS fp16 ulps of ref plus
 * TOL_FRAC of the largest |ref|: returns the worst ratio (<= 1 is within),
 * and the largest difference and magnitude.
 */
static double compare(const uint16_t *got, const float *ref, size_t n,
		      double *max_abs, double *ref_abs)
{
	double big = 0, worst = 0, diff = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (fabs(ref[i]) > big || isnan(ref[i]))
			big = isnan(ref[i]) ? INFINITY : fabs(ref[i]);
	for (i = 0; i < n; i++) {
		double g = ane_float_from_fp16(got[i]), e = fabs(g - ref[i]);
		double tol = TOL_ULPS * ulp16(ref[i]) + TOL_FRAC * big;

		if (!(e <= tol))	/* NaN too */
			worst = INFINITY;
		else if (e / tol > worst)
			worst = e / tol;
		if (!(e <= diff))
			diff = e;
	}
	*max_abs = diff;
	*ref_abs = big;
	return worst;
}

static void load_inputs(struct bench *b, struct ane_netrun *r)
{
	unsigned int i;
	size_t bytes;

	for (i = 0; i < ane_net_num_inputs(b->net); i++) {
		uint16_t *in = ane_netrun_input(r, i, &bytes);

		ane_fp16_from_float_array(in, b->arr[i].data, elems(b->arr[i].dim));
	}
}

/* Run until @min_s has passed (and at least 3 times); the best run's ms. */
static double time_runs(struct bench *b, struct ane_netrun *r, double min_s)
{
	double start = now_s(), best = INFINITY;
	unsigned int runs = 0;

	if (ane_netrun_run(r))		/* warm up, and the result */
		die(b->name, "the engine refused a task");
	while (runs < 3 || now_s() - start < min_s) {
		double t0 = now_s(), t;

		ane_netrun_run(r);
		t = now_s() - t0;
		if (t < best)
			best = t;
		runs++;
	}
	return best * 1e3;
}

/* Each task's best time over @runs runs, and its share. */
static void profile(struct bench *b, struct ane_netrun *r, unsigned int runs)
{
	static const char *const op_name[] = { "?", "conv", "matmul", "eltwise",
		"act", "pool", "softmax", "norm", "copy", "reduce", "gather" };
	uint32_t n = ane_netrun_tasks(r), i, op = 0;
	double *best = calloc(n, sizeof(double)), sum = 0;
	unsigned int k;

	if (!best)
		die(b->name, "out of memory");
	for (k = 0; k < runs; k++)
		for (i = 0; i < n; i++) {
			double t0 = now_s(), t;

			ane_netrun_run_task(r, i, &op);
			t = now_s() - t0;
			if (!k || t < best[i])
				best[i] = t;
		}
	for (i = 0; i < n; i++)
		sum += best[i];
	for (i = 0; i < n; i++) {
		ane_netrun_run_task(r, i, &op);
		printf("%-8s task %2u %-8s %8.3f ms %5.1f%%\n", b->name, i,
		       op < sizeof(op_name) / sizeof(op_name[0]) ? op_name[op] : "?",
		       best[i] * 1e3, 100 * best[i] / sum);
	}
	free(best);
}

static void check_reference(struct bench *b, const uint16_t *out, size_t n)
{
	const float *in[16];
	float *ref = malloc(n * sizeof(float));
	unsigned int i;

	if (!ref)
		die(b->name, "out of memory");
	for (i = 0; i < ane_net_num_inputs(b->net); i++)
		in[i] = b->arr[i].data;
	if (ane_net_reference(b->net, in, &ref))
		die(b->name, ane_net_errmsg(b->net));
	b->chk_worst = compare(out, ref, n, &b->chk_abs, &(double){ 0 });
	b->checked = 1;
	free(ref);
}

static void compare_torch(struct bench *b, const uint16_t *out, size_t n,
			  const char *dir)
{
	char path[4096];
	float *ref;

	snprintf(path, sizeof(path), "%s/%s/torch_out.f32", dir, b->name);
	ref = read_floats(path, n);
	if (!ref)
		die(path, "no PyTorch output (run tools/bench/torch_nets.py)");
	b->worst = compare(out, ref, n, &b->max_abs, &b->ref_abs);
	b->max_rel = b->ref_abs > 0 ? b->max_abs / b->ref_abs : b->max_abs;
	free(ref);
}

static void run_bench(struct bench *b, const char *dir, double min_s, int check,
		      int prof)
{
	struct ane_net_shape s;
	struct ane_netrun *r;
	const void *img;
	char err[256];
	size_t size, bytes, n;
	uint16_t *out;

	if (ane_net_build(b->net, &img, &size))
		die(b->name, ane_net_errmsg(b->net));
	if (ane_netrun_load(img, size, 0, &r, err, sizeof(err)))
		die(b->name, err);
	ane_netrun_set_threads(r, threads);
	load_inputs(b, r);
	b->ane_ms = time_runs(b, r, min_s);
	ane_net_shape(b->net, ane_net_output_tensor(b->net, 0), &s);
	n = (size_t)s.n * s.c * s.h * s.w;
	out = ane_netrun_output(r, 0, &bytes);
	if (dir)
		compare_torch(b, out, n, dir);
	if (check)
		check_reference(b, out, n);
	if (prof)
		profile(b, r, 5);
	fprintf(stderr, "ane-netbench: %s: %u tasks, %llu chunks, image %zu bytes\n",
		b->name, ane_netrun_tasks(r), (unsigned long long)ane_netrun_chunks(r), size);
	ane_netrun_free(r);
}

static uint32_t pick_isa(void)
{
	int isa = engine_isa_best();

	if (isa < 0)
		die("ANE_MATH_ISA", "no such path built in and on this CPU (sse2, avx2 or avx512)");
	if (ane_math_set_isa((uint32_t)isa))
		die("ane_math_set_isa", engine_isa_name((uint32_t)isa));
	return (uint32_t)isa;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ane-netbench [--net mlp|resnet|encoder]... [--dir DIR] [--export]\n"
		"                    [--torch FILE]... [--json FILE] [--time SEC]\n"
		"                    [--threads N] [--check] [--profile]\n"
		"       ane-netbench -h | --help | -V | --version\n"
		"Builds each network with libane, runs its program image on the\n"
		"engine's userspace build (one thread) and prints its time; with\n"
		"--torch, PyTorch's best time from tools/bench/torch_nets.py and the\n"
		"ratio (target: at least 1.1x PyTorch's throughput), and the largest\n"
		"difference from PyTorch's output in DIR.  --export writes the inputs\n"
		"and weights to DIR/<net>/ and exits.  --check also compares with\n"
		"ane_net_reference(); --profile prints each task's best time.\n"
		"ANE_MATH_ISA=sse2 holds the engine to SSE2.\n"
		"Exit status: 0 all targets met, 1 one missed, 2 an error.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "net", required_argument, NULL, 'n' },
		{ "dir", required_argument, NULL, 'd' },
		{ "export", no_argument, NULL, 'e' },
		{ "torch", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "time", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 'T' },
		{ "check", no_argument, NULL, 'c' },
		{ "profile", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *json = NULL, *torch[8];
	unsigned int n_torch = 0, nb = 0, i, k, want = 0;
	struct bench bs[MAX_NETS];
	double min_s = 2.0;
	int exp = 0, check = 0, prof = 0, missed = 0, o;
	uint32_t isa;

	ane_opt_init("ane-netbench");
	while ((o = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			for (k = 0; k < NUM_NETS && strcmp(optarg, nets[k].name); k++)
				;
			if (k == NUM_NETS)
				return ane_usage_error("--net: unknown network '%s' (mlp, resnet, encoder)",
						       optarg);
			want |= 1u << k;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'e':
			exp = 1;
			break;
		case 't':
			if (n_torch == 8)
				return ane_usage_error("at most 8 --torch, not '%s' too", optarg);
			torch[n_torch++] = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 's':
			if (ane_opt_double("--time", optarg, 0, 3600, "seconds", &min_s))
				return 2;
			break;
		case 'T':
			if (ane_opt_uint("--threads", optarg, 1, 16, NULL, &threads))
				return 2;
			break;
		case 'c':
			check = 1;
			break;
		case 'p':
			prof = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ane-netbench (ane) %s\n", ANE_VERSION);
			return 0;
		default:
			return ane_opt_bad(o, argv);
		}
	}
	if (ane_opt_operands(argc, argv, 0, 0, NULL))
		return 2;
	if (exp && !dir)
		return ane_usage_error("--export needs --dir DIR");
	if (n_torch && !dir)
		return ane_usage_error("--torch needs --dir DIR (the exported outputs)");
	if (!want)
		want = (1u << NUM_NETS) - 1;
	isa = pick_isa();
	memset(bs, 0, sizeof(bs));
	for (k = 0; k < NUM_NETS; k++) {
		struct bench *b = &bs[nb];

		if (!(want & 1u << k))
			continue;
		nb++;
		b->name = nets[k].name;
		b->rng = 0x9e3779b97f4a7c15ull + k;
		if (ane_net_create(&b->net))
			die(b->name, "out of memory");
		nets[k].build(b);
		if (ane_net_num_outputs(b->net) != 1)
			die(b->name, ane_net_errmsg(b->net));
		if (exp) {
			export_arrays(b, dir);
			continue;
		}
		b->torch_ms = INFINITY;
		for (i = 0; i < n_torch; i++) {
			double ms = torch_ms(torch[i], b->name);

			if (ms > 0 && ms < b->torch_ms)
				b->torch_ms = ms;
		}
		b->have_torch = isfinite(b->torch_ms);
		run_bench(b, b->have_torch ? dir : NULL, min_s, check, prof);
	}
	if (exp)
		return 0;

	printf("engine isa: %s, %u thread(s); PyTorch: best of %u run(s)\n",
	       engine_isa_name(isa), threads, n_torch);
	printf("%-8s %9s %8s %9s %8s %9s  %-10s %-10s %s\n", "network", "ane ms",
	       "GFLOP/s", "torch ms", "speedup", "target", "max abs", "max rel", "tolerance");
	for (i = 0; i < nb; i++) {
		struct bench *b = &bs[i];

		if (!b->have_torch) {
			printf("%-8s %9.3f %8.1f %9s\n", b->name, b->ane_ms,
			       b->gflop / b->ane_ms * 1e3, "-");
		} else {
			int ok = b->ane_ms <= b->torch_ms * TARGET_RATIO;
			int tol = b->worst <= 1.0;

			printf("%-8s %9.3f %8.1f %9.3f %7.2fx >=%.1f: %-6s  %-10.3g %-10.3g %s\n",
			       b->name, b->ane_ms, b->gflop / b->ane_ms * 1e3,
			       b->torch_ms, b->torch_ms / b->ane_ms, TARGET_SPEEDUP,
			       ok ? "met" : "MISSED", b->max_abs,
			       b->max_rel, tol ? "within" : "OUTSIDE");
			missed |= !ok || !tol;
		}
		if (b->checked) {
			printf("%-8s against ane_net_reference(): max abs %.3g, %s\n",
			       b->name, b->chk_abs,
			       b->chk_worst <= 1.0 ? "within" : "OUTSIDE");
			missed |= b->chk_worst > 1.0;
		}
	}
	printf("tolerance: |ane - ref| <= %g fp16 ulps of ref + %g x max|ref|\n",
	       TOL_ULPS, TOL_FRAC);
	if (json)
		write_json(json, bs, nb, isa);
	for (i = 0; i < nb; i++) {
		for (k = 0; k < bs[i].n_arr; k++)
			free(bs[i].arr[k].data);
		ane_net_destroy(bs[i].net);
	}
	return missed;
}
