// SPDX-License-Identifier: MIT
/*
 * VM tests of networks end to end through libane: a two-layer perceptron
 * and a small convolutional net, built with the builder from deterministic
 * pseudo-random weights and inputs, run on the device and compared element
 * by element with ane_net_reference(); every class of malformed image
 * refused by ProgramCreate; an instance with its own weights.
 *
 * Tolerance, for fp16 storage with fp32 accumulation on the engine and a
 * correctly rounded fp16 result per operation in the reference
 * (Documentation/accel/ane/libane.rst):
 *
 *	|dev - ref| <= 2e-3 * max|ref| + 2^-8 * |ref|
 *
 * i.e. four fp16 ulps of the value plus a small fraction of the tensor's
 * largest magnitude, for one-ulp differences carried through the layers.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "harness.h"
#include "demo_nets.h"
#include "libane.h"
#include "vm/vm_util.h"

#define TOL_ABS_OF_MAX	2e-3
#define TOL_REL		(1.0 / 256)	/* 4 fp16 ulps */

static char node[64];

/* ------------------------------------------------------------ the nets */

#define MAX_OUT 2

struct net {
	struct ane_net *net;
	const char *name;
	float *in;			/* one input */
	size_t n_in;
	unsigned int n_out;
	size_t n[MAX_OUT];		/* elements of each output */
	float *out[MAX_OUT];		/* the device's */
	float *ref[MAX_OUT];		/* the reference's */
};

static void net_free(struct net *m)
{
	unsigned int i;

	ane_net_destroy(m->net);
	free(m->in);
	for (i = 0; i < MAX_OUT; i++) {
		free(m->out[i]);
		free(m->ref[i]);
	}
	memset(m, 0, sizeof(*m));
}

static size_t elems(const struct ane_net *net, int t)
{
	struct ane_net_shape s;

	if (ane_net_shape(net, t, &s))
		return 0;
	return (size_t)s.n * s.c * s.h * s.w;
}

/* Inputs from @in_seed, outputs allocated, the reference run. */
static int net_finish(struct net *m, int x, uint32_t in_seed, float in_scale)
{
	const float *ins[1];
	unsigned int i;

	m->n_in = elems(m->net, x);
	m->n_out = ane_net_num_outputs(m->net);
	m->in = calloc(m->n_in ? m->n_in : 1, sizeof(float));
	if (!m->in || m->n_out > MAX_OUT)
		return -1;
	demo_rng_seed(in_seed);
	demo_fill(m->in, m->n_in, in_scale);
	for (i = 0; i < m->n_out; i++) {
		m->n[i] = elems(m->net, ane_net_output_tensor(m->net, i));
		m->out[i] = calloc(m->n[i] + 1, sizeof(float));
		m->ref[i] = calloc(m->n[i] + 1, sizeof(float));
		if (!m->out[i] || !m->ref[i])
			return -1;
	}
	ins[0] = m->in;
	if (ane_net_reference(m->net, ins, m->ref)) {
		printf("#   %s: reference: %s\n", m->name, ane_net_errmsg(m->net));
		return -1;
	}
	return 0;
}

/* The demo networks of demo_nets.h, with weights from @w_seed. */
static int build_net(struct net *m, const char *name, uint32_t w_seed)
{
	float in_scale;
	int x, mlp = !strcmp(name, "mlp");

	memset(m, 0, sizeof(*m));
	m->name = name;
	if (ane_net_create(&m->net))
		return -1;
	x = mlp ? demo_build_mlp(m->net, w_seed, &in_scale) :
		  demo_build_conv(m->net, w_seed, &in_scale);
	return net_finish(m, x, mlp ? DEMO_MLP_INPUT_SEED : DEMO_CONV_INPUT_SEED, in_scale);
}

static int build_mlp(struct net *m, uint32_t w_seed)
{
	return build_net(m, "mlp", w_seed);
}

static int build_conv(struct net *m, uint32_t w_seed)
{
	return build_net(m, "conv", w_seed);
}

/* ------------------------------------------------------------ comparing */

/*
 * Compare @got with @want element by element under the tolerance; print
 * the largest errors.  Returns the elements out of tolerance.
 */
static size_t compare(const char *what, const float *got, const float *want, size_t n)
{
	double maxref = 0, max_abs = 0, max_rel = 0;
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		maxref = fmax(maxref, fabs(want[i]));
	for (i = 0; i < n; i++) {
		double d = fabs((double)got[i] - want[i]);

		if (!(d <= TOL_ABS_OF_MAX * maxref + TOL_REL * fabs(want[i]))) {
			if (bad < 5)
				printf("#   %s[%zu] = %.6g, reference %.6g\n", what, i,
				       got[i], want[i]);
			bad++;
		}
		if (!(d <= max_abs))
			max_abs = d;
		/* Relative to values that are not mere noise of the tensor. */
		if (fabs(want[i]) >= 1e-2 * maxref && want[i] != 0)
			max_rel = fmax(max_rel, d / fabs(want[i]));
	}
	printf("#   %s: %zu values, max |ref| %.4g, max abs err %.3g, max rel err %.3g, %zu out of tolerance\n",
	       what, n, maxref, max_abs, max_rel, bad);
	return bad;
}

/* A tensor that is not constant: the net computes something. */
static int varies(const float *p, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (p[i] != p[0])
			return 1;
	return 0;
}

static int compare_net(struct net *m)
{
	char what[64];
	unsigned int i;
	size_t bad = 0;

	for (i = 0; i < m->n_out; i++) {
		snprintf(what, sizeof(what), "%s output %u", m->name, i);
		bad += compare(what, m->out[i], m->ref[i], m->n[i]);
	}
	return bad ? -1 : 0;
}

/* ------------------------------------------------------------ running */

static int open_dev(struct ane_dev **dev)
{
	char err[512];

	if (ane_open(node, ANE_KIND_CONTROL, dev, err, sizeof(err))) {
		printf("#   %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * Run @prog (a prepared program or an instance of one) on @m's input
 * with fresh surfaces, into m->out.
 */
static int run_prog(struct ane_dev *dev, struct ane_program *prog, struct net *m)
{
	struct ane_surface *in = NULL, *out[MAX_OUT] = { NULL };
	unsigned int i;
	uint64_t seqno;
	int ret, st;

	ret = ane_surface_create(dev, m->n_in * 2, &in);
	for (i = 0; !ret && i < m->n_out; i++) {
		ret = ane_surface_create(dev, m->n[i] * 2, &out[i]);
		if (!ret)	/* garbage, so that a missed write shows */
			memset(ane_surface_map(out[i]), 0x7c, ane_surface_size(out[i]));
	}
	if (!ret) {
		ane_fp16_from_float_array(ane_surface_map(in), m->in, m->n_in);
		ret = ane_request_submit(prog, 0, &in, 1, out, m->n_out, &seqno);
	}
	if (!ret)
		ret = ane_request_wait(dev, seqno, ane_deadline_ns(ane_get_timeout(dev)), &st, NULL);
	if (ret)
		printf("#   %s\n", ane_errmsg(dev));
	for (i = 0; !ret && i < m->n_out; i++)
		ane_float_from_fp16_array(m->out[i], ane_surface_map(out[i]), m->n[i]);
	for (i = 0; i < m->n_out; i++)
		ane_surface_destroy(out[i]);
	ane_surface_destroy(in);
	return ret;
}

/* Run @m through ane_net_run(); its outputs must match the reference's. */
static void run_net_and_compare(struct ane_dev *dev, struct net *m)
{
	const float *ins[1] = { m->in };

	T_OK(ane_net_run(dev, m->net, ins, m->out));
	if (t_case_failed)
		printf("#   %s\n", ane_errmsg(dev));
	T_CHECK(varies(m->ref[0], m->n[0]), "the reference output is constant");
	T_OK(compare_net(m));
}

/* (a) The perceptron through ane_net_run(). */
static void mlp_matches_the_reference(void)
{
	struct ane_dev *dev;
	struct net m = { 0 };

	if (build_mlp(&m, 1) || open_dev(&dev)) {
		t_case_failed = 1;
		net_free(&m);
		return;
	}
	run_net_and_compare(dev, &m);
	ane_close(dev);
	net_free(&m);
}

/*
 * The suite loads ane with fw_deadline_ms=30000 (run-all.sh): a new
 * handle's timeout outlasts that deadline by the stock 8 s margin, so a
 * wait on a request the firmware may still run never gives up first.
 */
static void the_timeout_outlasts_the_firmware_deadline(void)
{
	struct ane_dev *dev;
	FILE *f = fopen("/sys/module/ane/parameters/fw_deadline_ms", "r");
	unsigned long ms = 0;

	T_CHECK(f && fscanf(f, "%lu", &ms) == 1, "fw_deadline_ms readable");
	if (f)
		fclose(f);
	T_EQ(ms, 30000);
	if (open_dev(&dev)) {
		t_case_failed = 1;
		return;
	}
	T_EQ(ane_get_timeout(dev), 38000000000ull);
	ane_close(dev);
}

/* (b) The conv net by hand: create, prepare, submit, wait; two outputs. */
static void conv_net_matches_the_reference(void)
{
	struct ane_program *prog = NULL;
	struct ane_dev *dev;
	const void *img;
	struct net m = { 0 };
	size_t size;
	int r;

	if (build_conv(&m, 2) || open_dev(&dev)) {
		t_case_failed = 1;
		net_free(&m);
		return;
	}
	T_OK(ane_net_build(m.net, &img, &size));
	T_OK(ane_program_create(dev, img, size, &prog));
	T_OK(ane_program_prepare(prog));
	if (!t_case_failed) {
		/* Twice: a second request on the same program agrees too. */
		for (r = 0; r < 2; r++) {
			T_OK(run_prog(dev, prog, &m));
			T_OK(compare_net(&m));
		}
	} else {
		printf("#   %s\n", ane_errmsg(dev));
	}
	T_CHECK(varies(m.ref[0], m.n[0]) && varies(m.ref[1], m.n[1]),
		"a reference output is constant");
	T_OK(ane_program_destroy(prog));
	ane_close(dev);
	net_free(&m);
}

/*
 * (c) An attention block with a LayerNorm, through the kernel's image
 * validation and the engine: per-head projections, scores with a
 * transposed B, softmax over W and layer normalization over W
 * (ane_net_norm(), the engine's NORM), the heads summed by a 1x1
 * convolution.
 */
static void attention_with_norms_matches_the_reference(void)
{
	enum { S = 12, D = 32, NH = 4, DK = 8 };
	struct ane_net_conv_params p = { .stride_h = 1, .stride_w = 1 };
	static float wq[NH * D * DK], wk[NH * D * DK], wv[NH * D * DK];
	static float wo[NH * DK * D], g[D];
	float ones[NH] = { 1, 1, 1, 1 };
	struct ane_dev *dev;
	struct net m = { 0 };
	int x, q, k, v, t;

	m.name = "attention";
	demo_rng_seed(77);
	demo_fill(wq, NH * D * DK, 0.35f);
	demo_fill(wk, NH * D * DK, 0.35f);
	demo_fill(wv, NH * D * DK, 0.35f);
	demo_fill(wo, NH * DK * D, 0.35f);
	demo_fill(g, D, 1.0f);
	if (ane_net_create(&m.net)) {
		t_case_failed = 1;
		return;
	}
	x = ane_net_input(m.net, "x", 1, 1, S, D);
	q = ane_net_matmul(m.net, x, ane_net_const(m.net, "wq", 1, NH, D, DK, wq), 0, 0);
	k = ane_net_matmul(m.net, x, ane_net_const(m.net, "wk", 1, NH, D, DK, wk), 0, 0);
	v = ane_net_matmul(m.net, x, ane_net_const(m.net, "wv", 1, NH, D, DK, wv), 0, 0);
	t = ane_net_matmul(m.net, q, k, ANE_NET_TRANSPOSE_B, 0);
	t = ane_net_norm(m.net, t, ANE_NET_NORM_SOFTMAX);
	t = ane_net_matmul(m.net, t, v, 0, 0);
	t = ane_net_matmul(m.net, t, ane_net_const(m.net, "wo", 1, NH, DK, D, wo), 0, 0);
	t = ane_net_conv(m.net, t, ane_net_const(m.net, "heads", 1, NH, 1, 1, ones), -1, &p);
	t = ane_net_eltwise(m.net, ANE_NET_ADD, t, x, 0);
	t = ane_net_norm(m.net, t, ANE_NET_NORM_LAYER);
	t = ane_net_eltwise(m.net, ANE_NET_MUL, t, ane_net_const(m.net, "g", 1, 1, 1, D, g), 0);
	ane_net_output(m.net, t);
	if (net_finish(&m, x, 78, 1.5f) || open_dev(&dev)) {
		printf("#   %s\n", ane_net_errmsg(m.net));
		t_case_failed = 1;
		net_free(&m);
		return;
	}
	run_net_and_compare(dev, &m);
	ane_close(dev);
	net_free(&m);
}

/*
 * (c') The same block with strided matmul operands (TD layout words),
 * the path the encoder takes: Q, K and V one matmul whose heads are
 * column views read in place (ane_net_view()), the weighted values
 * written into the column blocks of concat(heads) (ane_net_merge_heads(),
 * a strided destination the engine writes back row by row), one output
 * projection.  The merged heads are an output too, so the strided
 * write-back lands in a surface the test filled with garbage first.
 */
static void strided_attention_matches_the_reference(void)
{
	enum { S = 12, D = 32, NH = 4, DK = 8 };
	static float wqkv[D * 3 * D], bqkv[3 * D], wo[D * D];
	struct ane_dev *dev;
	struct net m = { 0 };
	int x, q, k, v, t, h;

	m.name = "strided attention";
	demo_rng_seed(79);
	demo_fill(wqkv, D * 3 * D, 0.35f);
	demo_fill(bqkv, 3 * D, 0.3f);
	demo_fill(wo, D * D, 0.35f);
	if (ane_net_create(&m.net)) {
		t_case_failed = 1;
		return;
	}
	x = ane_net_input(m.net, "x", 1, 1, S, D);
	t = ane_net_matmul(m.net, x, ane_net_const(m.net, "wqkv", 1, 1, D, 3 * D, wqkv), 0, 0);
	t = ane_net_eltwise(m.net, ANE_NET_ADD, t,
			    ane_net_const(m.net, "bqkv", 1, 1, 1, 3 * D, bqkv), 0);
	q = ane_net_view(m.net, t, 0, DK, NH);
	k = ane_net_view(m.net, t, D, DK, NH);
	v = ane_net_view(m.net, t, 2 * D, DK, NH);
	t = ane_net_matmul(m.net, q, k, ANE_NET_TRANSPOSE_B, 0);
	t = ane_net_norm(m.net, t, ANE_NET_NORM_SOFTMAX);
	t = ane_net_matmul(m.net, t, v, 0, 0);
	h = ane_net_merge_heads(m.net, t);
	t = ane_net_matmul(m.net, h, ane_net_const(m.net, "wo", 1, 1, D, D, wo), 0, 0);
	t = ane_net_eltwise(m.net, ANE_NET_ADD, t, x, 0);
	ane_net_output(m.net, ane_net_norm(m.net, t, ANE_NET_NORM_LAYER));
	ane_net_output(m.net, h);
	if (net_finish(&m, x, 80, 1.5f) || open_dev(&dev)) {
		printf("#   %s\n", ane_net_errmsg(m.net));
		t_case_failed = 1;
		net_free(&m);
		return;
	}
	T_EQ(ane_net_num_ops(m.net), 8);
	run_net_and_compare(dev, &m);
	T_CHECK(varies(m.ref[1], m.n[1]), "the merged heads are constant");
	ane_close(dev);
	net_free(&m);
}

/* ------------------------------------------------------------ the ISA */

/* Whether @word is a whole word of @flags (a /proc/cpuinfo "flags" line). */
static int cpu_flag(const char *flags, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(flags, word); p; p = strstr(p + n, word))
		if ((p == flags || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

/*
 * The widest engine path the CPU offers, read from /proc/cpuinfo as a
 * user would: AVX-512 F/BW/VL on top of AVX2 + FMA + F16C, else AVX2 +
 * FMA + F16C, else SSE2 (the kernel drops the AVX and AVX-512 flags when
 * it cannot save their state).  NULL without a flags line.
 */
static const char *cpuinfo_isa(void)
{
	static char line[16384];
	const char *isa = NULL;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return NULL;
	while (!isa && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			isa = cpu_flag(line, "avx2") && cpu_flag(line, "fma") &&
			      cpu_flag(line, "f16c") ? "avx2+fma+f16c" : "sse2";
			if (isa[0] == 'a' && cpu_flag(line, "avx512f") &&
			    cpu_flag(line, "avx512bw") && cpu_flag(line, "avx512vl"))
				isa = "avx512";
		}
	fclose(f);
	return isa;
}

/*
 * The engine lines of the firmware's status in debugfs (fw_status): the
 * instruction set it picked at boot and the operations run on each.
 */
static int engine_status(char isa[64], unsigned long long ops[3])
{
	char path[320], line[256];
	int got = 0;
	FILE *f;

	if (vm_debugfs_path(node, "fw_status", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "engine isa: %63s", isa) == 1)
			got |= 1;
		if (sscanf(line, "engine ops: sse2 %llu, avx2+fma+f16c %llu, avx512 %llu",
			   &ops[0], &ops[1], &ops[2]) == 3)
			got |= 2;
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/*
 * (e) Requests run on the widest path the CPU offers: the firmware's
 * engine shows the instruction set /proc/cpuinfo's flags call for (in the
 * VM, QEMU's -cpu max: AVX2 under TCG), and a real request's operations are counted
 * on that path and on no other.
 */
static void requests_run_on_the_widest_isa(void)
{
	static const char *const names[3] = { "sse2", "avx2+fma+f16c", "avx512" };
	unsigned long long before[3] = { 0 }, after[3] = { 0 };
	const char *want = cpuinfo_isa();
	struct ane_dev *dev;
	const float *ins[1];
	struct net m = { 0 };
	char isa[64] = "";
	const void *img;
	unsigned int tasks;
	size_t size;
	int w, i;

	T_CHECK(want != NULL, "no flags line in /proc/cpuinfo");
	if (!want || build_mlp(&m, 3) || open_dev(&dev)) {
		t_case_failed = 1;
		net_free(&m);
		return;
	}
	for (w = 0; w < 2 && strcmp(want, names[w]); w++)
		;
	T_OK(engine_status(isa, before));
	ins[0] = m.in;
	T_OK(ane_net_run(dev, m.net, ins, m.out));
	T_OK(engine_status(isa, after));
	printf("#   cpu offers %s; engine isa %s; ops sse2 %llu -> %llu, avx2+fma+f16c %llu -> %llu, avx512 %llu -> %llu\n",
	       want, isa, before[0], after[0], before[1], after[1], before[2],
	       after[2]);
	T_CHECK(!strcmp(isa, want), "engine isa %s, the CPU offers %s", isa, want);
	/* one engine operation per task of the image (libane folds the bias ADDs) */
	T_OK(ane_net_build(m.net, &img, &size));
	tasks = ((const struct ane_img_header *)img)->num_tds;
	T_CHECK(after[w] >= before[w] + tasks,
		"%s ops %llu -> %llu for a net of %u tasks", want, before[w],
		after[w], tasks);
	for (i = 0; i < 3; i++)
		if (i != w)
			T_CHECK(after[i] == before[i], "the %s path ran: %llu -> %llu",
				names[i], before[i], after[i]);
	T_OK(compare_net(&m));
	ane_close(dev);
	net_free(&m);
}

/*
 * (f) One large operation is split over the engine's cores (the
 * engine_cores parameter): with two cores the engine counts a split
 * operation and the result is bit-identical to the one core's, which
 * matches the reference; with one core nothing is split.
 */
static void a_large_op_splits_over_the_cores_bit_identically(void)
{
	enum { M = 192, K = 256, N = 256 };
	static float w[K * N];
	float *one = NULL;
	struct ane_dev *dev = NULL;
	const float *ins[1];
	struct net m = { 0 };
	unsigned long long s0, s1, s2;
	int x, wt, i;

	for (i = 0; i < K * N; i++)
		w[i] = (float)((i * 37 % 101) - 50) / 400.0f;
	m.name = "matmul 192x256x256";
	if (ane_net_create(&m.net)) {
		t_case_failed = 1;
		return;
	}
	x = ane_net_input(m.net, "x", 1, 1, M, K);
	wt = ane_net_const(m.net, "w", 1, 1, K, N, w);
	ane_net_output(m.net, ane_net_matmul(m.net, x, wt, 0, ANE_NET_ACT_TANH));
	if (net_finish(&m, x, 11, 1.0f) || open_dev(&dev) ||
	    !(one = calloc(m.n[0], sizeof(float)))) {
		t_case_failed = 1;
		goto out;
	}
	ins[0] = m.in;

	T_OK(vm_write_file("/sys/module/ane/parameters/engine_cores", "1"));
	T_EQ(vm_dev_attr_u64(node, "engine_cores"), 1);
	s0 = vm_dev_attr_u64(node, "engine_split_ops");
	T_OK(ane_net_run(dev, m.net, ins, m.out));
	memcpy(one, m.out[0], m.n[0] * sizeof(float));
	s1 = vm_dev_attr_u64(node, "engine_split_ops");
	T_EQ(s1, s0);

	T_OK(vm_write_file("/sys/module/ane/parameters/engine_cores", "2"));
	T_EQ(vm_dev_attr_u64(node, "engine_cores"), 2);
	T_OK(ane_net_run(dev, m.net, ins, m.out));
	s2 = vm_dev_attr_u64(node, "engine_split_ops");
	printf("#   split operations: %llu -> %llu (1 core) -> %llu (2 cores)\n", s0, s1, s2);
	T_CHECK(s2 >= s1 + 1 && s2 != ~0ull, "split ops %llu -> %llu", s1, s2);
	T_CHECK(!memcmp(one, m.out[0], m.n[0] * sizeof(float)),
		"2 cores' result differs from 1 core's");
	T_OK(compare_net(&m));
	/* out of range: refused, the setting unchanged */
	T_CHECK(vm_write_file("/sys/module/ane/parameters/engine_cores", "17") != 0,
		"engine_cores=17 accepted");
	T_EQ(vm_dev_attr_u64(node, "engine_cores"), 2);
out:
	vm_write_file("/sys/module/ane/parameters/engine_cores", "0");
	free(one);
	ane_close(dev);
	net_free(&m);
}

/* (d) An instance with its own weights computes what those weights do. */
static void instance_weights_give_the_reference_result(void)
{
	struct ane_program *prog = NULL, *inst = NULL;
	struct ane_surface *wts = NULL;
	const struct ane_img_header *h2;
	const void *img, *img2;
	size_t size, size2, i;
	struct net m = { 0 }, m2 = { 0 };
	struct ane_dev *dev;
	double diff = 0;

	/* The same net with other weights: same code, other weights section. */
	if (build_conv(&m, 2) || build_conv(&m2, 77) || open_dev(&dev)) {
		t_case_failed = 1;
		goto out_nets;
	}
	T_OK(ane_net_build(m.net, &img, &size));
	T_OK(ane_net_build(m2.net, &img2, &size2));
	if (t_case_failed)
		goto out;
	h2 = img2;
	T_EQ(size2, size);
	T_EQ(h2->weights_size, ((const struct ane_img_header *)img)->weights_size);
	T_OK(ane_program_create(dev, img, size, &prog));
	T_OK(ane_program_prepare(prog));
	T_OK(ane_surface_create(dev, h2->weights_size, &wts));
	if (t_case_failed) {
		printf("#   %s\n", ane_errmsg(dev));
		goto out;
	}
	memcpy(ane_surface_map(wts), (const uint8_t *)img2 + h2->weights_offset,
	       h2->weights_size);
	T_OK(ane_program_instance(prog, wts, &inst));
	T_CHECK(inst && ane_program_token(inst) != ane_program_token(prog), "instance token");
	if (t_case_failed) {
		printf("#   %s\n", ane_errmsg(dev));
		goto out;
	}
	/* The instance, with m2's weights, on m2's input (the same as m's). */
	T_OK(run_prog(dev, inst, &m2));
	printf("#   the instance against the reference with its weights:\n");
	T_OK(compare_net(&m2));
	for (i = 0; i < m2.n[0]; i++)
		diff = fmax(diff, fabs((double)m2.ref[0][i] - m.ref[0][i]));
	T_CHECK(diff > 0.1, "the two weight sets give results %g apart", diff);
	/* The program itself keeps the image's weights. */
	T_OK(run_prog(dev, prog, &m));
	printf("#   the program against the reference with the image's weights:\n");
	T_OK(compare_net(&m));
	/* A program with a live instance is not destroyed. */
	T_EQ(ane_program_destroy(prog), -EBUSY);
	T_OK(ane_program_destroy(inst));
	inst = NULL;
out:
	ane_program_destroy(inst);
	T_OK(ane_program_destroy(prog));
	ane_surface_destroy(wts);
	ane_close(dev);
out_nets:
	net_free(&m);
	net_free(&m2);
}

/* ------------------------------------------------------------ bad images */

/*
 * (c) One field of every class of tests/kunit/ane_image_kunit.c broken in
 * a libane-built image of the perceptron's shape whose MATMULs carry a
 * ReLU (so that libane does not fold the bias ADDs into them), through
 * the raw ProgramCreate ioctl (libane's own header checks are bypassed).
 * Its layout: procedure 0; bars 0 input (slot 0), 1 output (slot 1),
 * 2 weights (slot 2), 3 intermediate (slot 3); TDs 0 matmul, 1 add+relu,
 * 2 matmul, 3 add+sigmoid; register writes 3 per TD in operand order
 * (src0, src1, dst), so rw 0..2 bind TD 0: x from the input bar, W1 at
 * offset 0 of the weights, its result in the intermediates.
 */
struct img {
	uint8_t *b;
	size_t size;
	struct ane_img_header *h;
	struct ane_img_procedure *p;
	struct ane_img_bar *bar;
	struct ane_img_td *td;
	struct ane_img_rw *rw;
};

#define SLOT_W	2
#define SLOT_I	3

#define BAD(name, body) \
	static void mut_##name(struct img *m) { body; }

BAD(magic, m->h->magic++)
BAD(version, m->h->version_major = 2)
BAD(header_size, m->h->header_size = 64)
BAD(header_flags, m->h->flags = 1)
BAD(header_reserved, m->h->reserved[5] = 1)
BAD(image_size, m->h->image_size = m->size - 16)
BAD(no_procedures, m->h->num_procedures = 0)
BAD(too_many_procedures, m->h->num_procedures = 289)
BAD(procs_misaligned, m->h->procedures_offset += 8)
BAD(procs_in_header, m->h->procedures_offset = 64)
BAD(procs_past_end, m->h->procedures_offset = (uint32_t)m->size - 16)
BAD(no_tds, m->h->num_tds = 0)
BAD(too_many_tds, m->h->num_tds = 4097)
BAD(tds_off_segment, m->h->tds_offset += 16)
BAD(tds_past_end, m->h->num_tds = 4000)
BAD(too_many_rws, m->h->num_rws = 16385)
BAD(rws_misaligned, m->h->rws_offset += 4)
BAD(rws_past_end, m->h->num_rws = 16384)
BAD(rws_overlap_tds, m->h->rws_offset = m->h->tds_offset)
BAD(rws_without_count, { m->h->num_rws = 0; m->p->num_rws = 0; })
BAD(bars_too_many, m->h->num_bars = 33)
BAD(bars_misaligned, m->h->bars_offset += 8)
BAD(bars_overlap_procs, m->h->bars_offset = m->h->procedures_offset)
BAD(weights_off_page, m->h->weights_offset = 4096)
BAD(weights_past_end, m->h->weights_size = m->size)
BAD(weights_without_size, m->h->weights_size = 0)
BAD(constants_without_size, m->h->constants_offset = 16384)
BAD(constants_past_end, { m->h->constants_offset = m->h->weights_offset;
			  m->h->constants_size = m->size; })
BAD(intermediate_huge, m->h->intermediate_size = 1ull << 31)
BAD(bar_slot_twice, m->bar[1].slot = 0)
BAD(bar_slot_range, m->bar[3].slot = 32)
BAD(bar_usage_zero, m->bar[3].usage = 0)
BAD(bar_usage_text, m->bar[2].usage = 9)
BAD(bar_usage_fw, m->bar[2].usage = 0x1019)
BAD(bar_io_on_weights, m->bar[2].io_index = 1)
BAD(bar_io_on_intermediate, m->bar[3].io_index = 1)
BAD(bar_io_range, m->bar[0].io_index = 16)
BAD(bar_reserved, m->bar[0].reserved = 1)
BAD(bar_weights_size, m->bar[2].size = m->h->weights_size + 2)
BAD(bar_intermediate_size, m->bar[3].size = m->h->intermediate_size + 16)
BAD(bar_zero_size, m->bar[1].size = 0)
BAD(bar_io_huge, m->bar[0].size = (1ull << 30) + 1)
BAD(proc_no_tds, m->p->num_tds = 0)
BAD(proc_tds_range, m->p->first_td = 1)
BAD(proc_rws_range, m->p->num_rws = m->h->num_rws + 1)
BAD(proc_first_rw, m->p->first_rw = m->h->num_rws + 1)
BAD(proc_partitions, m->p->partitions = 2)
BAD(proc_no_partitions, m->p->partitions = 0)
BAD(proc_content, m->p->content_type = 1)
BAD(proc_outputs, m->p->num_outputs = 0)
BAD(proc_too_many_outputs, m->p->num_outputs = 17)
BAD(proc_inputs, m->p->num_inputs = 17)
BAD(proc_exec_order_count, m->p->exec_order_count = ANE_IMG_MAX_EXEC_ORDER + 1)
BAD(td_op_zero, m->td[0].words[ANE_TD_OP] = 0)
BAD(td_op_unknown, m->td[1].words[ANE_TD_OP] = 99)
BAD(td_pad, m->td[0].pad = 1)
BAD(td_layout_not_matmul, m->td[1].words[ANE_TD_BIAS_LAYOUT] = 1)
BAD(td_layout_row_short, m->td[0].words[ANE_TD_SRC0_LAYOUT] = ANE_TD_LAYOUT(1, 0))
BAD(td_layout_past, m->td[0].words[ANE_TD_SRC0_LAYOUT] = ANE_TD_LAYOUT(0xffff, 0))
BAD(td_unused_word, m->td[0].words[ANE_TD_KERNEL_H] = 3)
BAD(td_unused_stride, m->td[1].words[ANE_TD_STRIDE_H] = 2)
BAD(td_bad_shape, m->td[0].words[ANE_TD_SRC1_DIMS + 2] = 4)
BAD(td_bad_act, m->td[1].words[ANE_TD_ACT] = 77)
BAD(td_bad_subop, m->td[1].words[ANE_TD_SUBOP] = 50)
BAD(rw_td_outside, m->rw[m->h->num_rws - 1].td = m->h->num_tds)
BAD(rw_reg_range, m->rw[0].reg = 7)
BAD(rw_reg_twice, m->rw[1].reg = ANE_TD_REG_SRC0)
BAD(rw_reg_absent, m->rw[1].reg = ANE_TD_REG_BIAS)
BAD(rw_bar_missing, m->rw[0].bar = 9)
BAD(rw_bar_range, m->rw[0].bar = 32)
BAD(rw_bar_io, m->p->num_inputs = 0)
BAD(rw_bar_output_index, m->bar[1].io_index = 1)
BAD(rw_dst_weights, m->rw[2].bar = SLOT_W)
BAD(rw_dst_input, m->rw[2].bar = 0)
BAD(rw_offset_align, m->rw[2].offset_lo += 8)
BAD(rw_offset_past, m->rw[2].offset_hi = 1)
BAD(rw_length_past, m->rw[1].length_lo = (uint32_t)m->h->weights_size + 2)
BAD(rw_length_zero, m->rw[2].length_lo = 0)
BAD(rw_flags, m->rw[2].flags = 1)
BAD(rw_reserved, m->rw[2].reserved[2] = 1)
BAD(operand_unbound, { m->h->num_rws--; m->p->num_rws--; })
BAD(operand_short, m->rw[2].length_lo = 4)

struct bad_case {
	const char *name;
	void (*mutate)(struct img *m);
};

#define CASE(name) { #name, mut_##name }

static const struct bad_case bad_cases[] = {
	CASE(magic), CASE(version), CASE(header_size), CASE(header_flags),
	CASE(header_reserved), CASE(image_size),
	CASE(no_procedures), CASE(too_many_procedures), CASE(procs_misaligned),
	CASE(procs_in_header), CASE(procs_past_end),
	CASE(no_tds), CASE(too_many_tds), CASE(tds_off_segment), CASE(tds_past_end),
	CASE(too_many_rws), CASE(rws_misaligned), CASE(rws_past_end),
	CASE(rws_overlap_tds), CASE(rws_without_count),
	CASE(bars_too_many), CASE(bars_misaligned), CASE(bars_overlap_procs),
	CASE(weights_off_page), CASE(weights_past_end), CASE(weights_without_size),
	CASE(constants_without_size), CASE(constants_past_end),
	CASE(intermediate_huge),
	CASE(bar_slot_twice), CASE(bar_slot_range), CASE(bar_usage_zero),
	CASE(bar_usage_text), CASE(bar_usage_fw), CASE(bar_io_on_weights),
	CASE(bar_io_on_intermediate), CASE(bar_io_range), CASE(bar_reserved),
	CASE(bar_weights_size), CASE(bar_intermediate_size), CASE(bar_zero_size),
	CASE(bar_io_huge),
	CASE(proc_no_tds), CASE(proc_tds_range), CASE(proc_rws_range),
	CASE(proc_first_rw), CASE(proc_partitions), CASE(proc_no_partitions),
	CASE(proc_content), CASE(proc_outputs), CASE(proc_too_many_outputs),
	CASE(proc_inputs), CASE(proc_exec_order_count),
	CASE(td_op_zero), CASE(td_op_unknown), CASE(td_pad), CASE(td_layout_not_matmul),
	CASE(td_layout_row_short), CASE(td_layout_past),
	CASE(td_unused_word), CASE(td_unused_stride), CASE(td_bad_shape),
	CASE(td_bad_act), CASE(td_bad_subop),
	CASE(rw_td_outside), CASE(rw_reg_range), CASE(rw_reg_twice),
	CASE(rw_reg_absent), CASE(rw_bar_missing), CASE(rw_bar_range),
	CASE(rw_bar_io), CASE(rw_bar_output_index), CASE(rw_dst_weights),
	CASE(rw_dst_input), CASE(rw_offset_align), CASE(rw_offset_past),
	CASE(rw_length_past), CASE(rw_length_zero), CASE(rw_flags),
	CASE(rw_reserved), CASE(operand_unbound), CASE(operand_short),
};

/* The perceptron of demo_nets.h with a ReLU on each MATMUL: 4 tasks. */
static int build_unfused_mlp(struct net *m)
{
	static float w1[64 * 32], b1[32], w2[32 * 10], b2[10];
	int x, t;

	memset(m, 0, sizeof(*m));
	m->name = "mlp (unfused)";
	if (ane_net_create(&m->net))
		return -1;
	demo_rng_seed(1);
	demo_fill(w1, 64 * 32, 0.25f);
	demo_fill(b1, 32, 0.5f);
	demo_fill(w2, 32 * 10, 0.35f);
	demo_fill(b2, 10, 0.5f);
	x = ane_net_input(m->net, "x", 1, 1, 4, 64);
	t = ane_net_matmul(m->net, x, ane_net_const(m->net, "w1", 1, 1, 64, 32, w1), 0,
			   ANE_NET_ACT_RELU);
	t = ane_net_eltwise(m->net, ANE_NET_ADD, t, ane_net_const(m->net, "b1", 1, 1, 1, 32, b1),
			    ANE_NET_ACT_RELU);
	t = ane_net_matmul(m->net, t, ane_net_const(m->net, "w2", 1, 1, 32, 10, w2), 0,
			   ANE_NET_ACT_RELU);
	t = ane_net_eltwise(m->net, ANE_NET_ADD, t, ane_net_const(m->net, "b2", 1, 1, 1, 10, b2),
			    ANE_NET_ACT_SIGMOID);
	ane_net_output(m->net, t);
	return net_finish(m, x, DEMO_MLP_INPUT_SEED, 2.0f);
}

static void img_view(struct img *m, uint8_t *b, size_t size)
{
	m->b = b;
	m->size = size;
	m->h = (void *)b;
	m->p = (void *)(b + m->h->procedures_offset);
	m->bar = (void *)(b + m->h->bars_offset);
	m->td = (void *)(b + m->h->tds_offset);
	m->rw = (void *)(b + m->h->rws_offset);
}

/* Raw ProgramCreate: 0 (the token destroyed again) or -1 with errno. */
static int raw_create(int fd, const void *img, size_t size)
{
	struct drm_ane_program_create pc = { 0 };
	struct drm_ane_program_destroy pd = { 0 };
	uint64_t tok = 0;
	int ret, err;

	pc.image = (uintptr_t)img;
	pc.image_size = size;
	pc.token_ptr = (uintptr_t)&tok;
	ret = ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &pc);
	err = errno;
	if (!ret) {
		pd.token = tok;
		ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, &pd);
	}
	errno = err;
	return ret;
}

static int bad_images_are_refused(void)
{
	const struct ane_img_header *gh;
	struct ane_dev *dev = NULL;
	const void *good;
	uint8_t *buf = NULL;
	struct net mlp = { 0 };
	unsigned int i;
	struct img m;
	size_t size;
	int fd;

	t_case_failed = 0;
	if (build_unfused_mlp(&mlp) || ane_net_build(mlp.net, &good, &size) || open_dev(&dev) ||
	    !(buf = malloc(size))) {
		t_case_failed = 1;
		goto out;
	}
	fd = ane_fd(dev);
	gh = good;
	/* The layout the cases assume. */
	img_view(&m, (uint8_t *)(uintptr_t)good, size);
	T_EQ(gh->num_procedures, 1);
	T_EQ(gh->num_bars, 4);
	T_EQ(gh->num_tds, 4);
	T_EQ(gh->num_rws, 12);
	T_EQ(m.bar[SLOT_W].usage, 8);
	T_EQ(m.bar[SLOT_I].usage, 7);
	T_EQ(m.rw[2].bar, SLOT_I);
	T_EQ(m.rw[1].bar, SLOT_W);
	T_EQ(m.rw[1].offset_lo, 0);
	if (t_case_failed)
		goto out;

	/* The good image, and a newer minor version of it, are accepted. */
	T_OK(raw_create(fd, good, size));
	memcpy(buf, good, size);
	((struct ane_img_header *)buf)->version_minor = 9;
	T_OK(raw_create(fd, buf, size));
	/* So is the intermediate's activation done in place. */
	memcpy(buf, good, size);
	img_view(&m, buf, size);
	m.rw[5].bar = SLOT_I;		/* TD 1's dst onto its src0 */
	m.rw[5].offset_lo = m.rw[3].offset_lo;
	T_OK(raw_create(fd, buf, size));
	if (t_case_failed)
		printf("not ok - a_good_image_is_accepted\n");
	else
		printf("ok - a_good_image_is_accepted\n");
	t_case_failed ? t_failed++ : t_passed++;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		int ret, err;

		memcpy(buf, good, size);
		img_view(&m, buf, size);
		bad_cases[i].mutate(&m);
		ret = raw_create(fd, buf, size);
		err = ret < 0 ? errno : 0;
		if (ret < 0 && err == EINVAL) {
			t_passed++;
			printf("ok - bad_image_%s\n", bad_cases[i].name);
		} else {
			t_failed++;
			printf("not ok - bad_image_%s: returned %d errno %d (%s), expected EINVAL\n",
			       bad_cases[i].name, ret, err, strerror(err));
		}
	}
	/* ProgramCreate's size against the header's image_size. */
	t_case_failed = 0;
	T_ERRNO(raw_create(fd, good, size - 16), EINVAL);
	T_ERRNO(raw_create(fd, good, 64), EINVAL);
	/* Still usable after all of that. */
	T_OK(raw_create(fd, good, size));
	printf("%s - bad_image_create_size\n", t_case_failed ? "not ok" : "ok");
	t_case_failed ? t_failed++ : t_passed++;
	fflush(stdout);
	ane_close(dev);
	free(buf);
	net_free(&mlp);
	return 0;
out:
	printf("not ok - bad_images_are_refused (setup)\n");
	t_failed++;
	ane_close(dev);
	free(buf);
	net_free(&mlp);
	return -1;
}

/*
 * (d) The MATMUL bias epilogue in ane.ko: libane folds the perceptron's
 * bias ADDs into its MATMULs (2 tasks, each with a bias operand); the
 * driver runs them as the reference says, and its validator refuses a
 * bias that does not broadcast onto the product or overlaps it, and
 * accepts one of the product's own shape.
 */
#define TD_OP_MATMUL	2	/* an ANE_TD_OP value (uapi/drm/ane_accel.h) */

static void fused_matmul_bias_runs_in_the_driver(void)
{
	struct ane_dev *dev = NULL;
	struct net m = { 0 };
	const void *good;
	uint8_t *buf = NULL;
	struct img v;
	size_t size;
	int fd;

	if (build_mlp(&m, 3) || ane_net_build(m.net, &good, &size) ||
	    open_dev(&dev) || !(buf = malloc(size))) {
		t_case_failed = 1;
		goto out;
	}
	fd = ane_fd(dev);
	img_view(&v, (uint8_t *)(uintptr_t)good, size);
	T_EQ(v.h->num_tds, 2);
	T_EQ(v.h->num_rws, 8);
	T_EQ(v.td[0].words[ANE_TD_OP], TD_OP_MATMUL);
	T_EQ(v.td[0].words[ANE_TD_ACT], ANE_NET_ACT_RELU);
	T_EQ(v.td[0].words[ANE_TD_BIAS_DIMS + 3], 32);
	T_EQ(v.td[1].words[ANE_TD_ACT], ANE_NET_ACT_SIGMOID);
	T_EQ(v.rw[2].reg, ANE_TD_REG_BIAS);
	T_EQ(v.rw[2].bar, SLOT_W);
	if (t_case_failed)
		goto out;
	run_net_and_compare(dev, &m);

	/* a bias of the product's own shape (a residual) is accepted */
	memcpy(buf, good, size);
	img_view(&v, buf, size);
	v.td[0].words[ANE_TD_BIAS_DIMS + 2] = 4;
	v.rw[2].length_lo = 4 * 32 * 2;
	T_OK(raw_create(fd, buf, size));
	/* one that does not broadcast onto it is not */
	memcpy(buf, good, size);
	img_view(&v, buf, size);
	v.td[0].words[ANE_TD_BIAS_DIMS + 2] = 2;
	v.rw[2].length_lo = 2 * 32 * 2;
	T_ERRNO(raw_create(fd, buf, size), EINVAL);
	memcpy(buf, good, size);
	img_view(&v, buf, size);
	v.td[0].words[ANE_TD_BIAS_DIMS + 1] = 2;
	v.rw[2].length_lo = 2 * 32 * 2;
	T_ERRNO(raw_create(fd, buf, size), EINVAL);
	/* nor one that overlaps the product */
	memcpy(buf, good, size);
	img_view(&v, buf, size);
	v.rw[2].bar = v.rw[3].bar;
	v.rw[2].offset_lo = v.rw[3].offset_lo;
	T_ERRNO(raw_create(fd, buf, size), EINVAL);
	T_OK(raw_create(fd, good, size));
out:
	ane_close(dev);
	free(buf);
	net_free(&m);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "net"))
		return 1;
	T_RUN(the_timeout_outlasts_the_firmware_deadline);
	T_RUN(mlp_matches_the_reference);
	T_RUN(conv_net_matches_the_reference);
	T_RUN(attention_with_norms_matches_the_reference);
	T_RUN(strided_attention_matches_the_reference);
	T_RUN(fused_matmul_bias_runs_in_the_driver);
	bad_images_are_refused();
	T_RUN(instance_weights_give_the_reference_result);
	T_RUN(requests_run_on_the_widest_isa);
	T_RUN(a_large_op_splits_over_the_cores_bit_identically);
	return t_summary("net");
}
