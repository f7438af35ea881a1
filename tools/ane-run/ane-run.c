// SPDX-License-Identifier: MIT
/*
 * ane-run: build a demo network with libane, run it on the engine and
 * check the result against libane's CPU reference.
 *
 *   ane-run [--direct | --socket PATH] [--node N] [--timeout MS] [mlp|conv]
 *   ane-run [--node N] [--timeout MS] --resident STEPS [rnn]
 *   ane-run MODEL.onnx [options]            (ane-run-onnx.c)
 *
 *   mlp   sigmoid(relu(x W1 + b1) W2 + b2): a batch of 4 rows of 64,
 *         W1 64x32, W2 32x10 (matmul, broadcast bias add, relu, sigmoid)
 *   conv  1x3x16x16 -> conv 3x3 pad 1 to 8 channels + bias + relu ->
 *         max pool 2x2 -> conv 1x1 to 4 channels + bias -> average pool
 *         8x8 -> softmax over the 4 channels
 *
 * Weights and inputs are deterministic pseudo-random numbers.  The device
 * result passes when every element is within
 * |dev - ref| <= 2e-3 * max|ref| + 2^-8 * |ref| of the reference; the last
 * line is "check: PASS" (exit 0) or "check: FAIL" (exit 1: the results
 * differ, or the request was submitted but did not complete).  When
 * nothing ran on the engine -- no device, or a call before the submission
 * (or the submission itself) failed, e.g. because the firmware is dead --
 * it is "check: NOT RUN: nothing ran on the engine: <reason>" (exit 3).
 * --timeout bounds every libane call (ane_set_timeout()) and the wait.
 *
 * --resident STEPS runs the recurrent step rnn, h' = tanh(h x W + b) on
 * an 8x8 fp16 state, in the resident model (resident.rst): a control
 * handle (the broker) prepares the program, makes a chain of it and
 * exports it; a direct-path handle of the same process (the client)
 * attaches it and runs STEPS chained steps, each step's output read by
 * the next where it lies, then the same STEPS steps through its own
 * selector 2 (ane_attached_submit()) with the state passed from output to
 * input.  It passes when the first step agrees with the reference and the
 * two final states are bit-identical; it prints the p50 and p99 latency of
 * a step of each.
 *
 * The path: through aned, the broker daemon (Documentation/accel/ane/
 * broker.rst), when its socket exists ($ANE_BROKER_SOCKET, else
 * /run/aned/aned.sock) or --socket names one; on the device itself with
 * --direct or --node, or when there is no aned socket (the line "path:"
 * says which, and why).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ane-run.h"
#include "ane_opt.h"
#include "demo_nets.h"
#include "libane.h"

#define TOL_ABS_OF_MAX	2e-3
#define TOL_REL		(1.0 / 256)	/* 4 fp16 ulps */
#define MAX_OUT		2
#define RESIDENT_MAX_STEPS	100000u

/* Exit statuses. */
#define EXIT_PASS	0
#define EXIT_FAIL	1
#define EXIT_USAGE	2
#define EXIT_NOT_RUN	3

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t elems(const struct ane_net_shape *s)
{
	return (size_t)s->n * s->c * s->h * s->w;
}

/* Shape, statistics, the first values; argmax per row for a classifier. */
static void summarize(unsigned int i, const struct ane_net_shape *s, const float *v)
{
	size_t n = elems(s), k;
	double mn = INFINITY, mx = -INFINITY, sum = 0;

	for (k = 0; k < n; k++) {
		mn = fmin(mn, v[k]);
		mx = fmax(mx, v[k]);
		sum += v[k];
	}
	printf("output %u: %ux%ux%ux%u (%zu values): min %.4f max %.4f mean %.4f\n", i,
	       s->n, s->c, s->h, s->w, n, mn, mx, sum / (double)n);
	printf("  first:");
	for (k = 0; k < n && k < 8; k++)
		printf(" %.4f", v[k]);
	printf("%s\n", n > 8 ? " ..." : "");
	if (s->c == 1 && s->n == 1 && s->w <= 16) {
		/* Rows of scores (the perceptron): the best class of each. */
		uint32_t r, c;

		for (r = 0; r < s->h; r++) {
			uint32_t best = 0;

			for (c = 1; c < s->w; c++)
				if (v[r * s->w + c] > v[r * s->w + best])
					best = c;
			printf("  row %u: class %u (%.4f)\n", r, best, v[r * s->w + best]);
		}
	} else if (s->h == 1 && s->w == 1 && s->n == 1) {
		/* Probabilities over the channels (softmax). */
		uint32_t c, best = 0;

		for (c = 1; c < s->c; c++)
			if (v[c] > v[best])
				best = c;
		printf("  class %u (p = %.4f), sum of p %.4f\n", best, v[best], sum);
	}
}

/* Errors of @got against @want; returns the values out of tolerance. */
static size_t compare(const float *got, const float *want, size_t n, double *max_abs,
		      double *max_rel)
{
	double maxref = 0;
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		maxref = fmax(maxref, fabs(want[i]));
	for (i = 0; i < n; i++) {
		double d = fabs((double)got[i] - want[i]);

		if (!(d <= TOL_ABS_OF_MAX * maxref + TOL_REL * fabs(want[i])))
			bad++;
		if (!(d <= *max_abs))
			*max_abs = d;
		if (want[i] != 0 && fabs(want[i]) >= 1e-2 * maxref && !(d / fabs(want[i]) <= *max_rel))
			*max_rel = d / fabs(want[i]);
	}
	return bad;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ane-run [--direct | --socket PATH] [--node N] [--timeout MS] [mlp|conv]\n"
		"       ane-run [--node N] [--timeout MS] --resident STEPS [rnn]\n"
		"       ane-run --help | --version\n"
		"\n"
		"Build a demo network, run it on the engine, compare it with the CPU\n"
		"reference (ane_net_reference) and print \"check: PASS\" (exit 0) or\n"
		"\"check: FAIL\" (exit 1), or \"check: NOT RUN: nothing ran on the engine:\n"
		"<reason>\" (exit 3) when nothing ran (no device, a dead firmware, ...).\n"
		"  --direct      open the device, not aned (also when --node is given, or\n"
		"                when no aned socket exists)\n"
		"  --socket PATH run through aned at PATH (default: $ANE_BROKER_SOCKET,\n"
		"                else " ANE_BROKER_SOCKET_DEFAULT ", when it exists)\n"
		"  --node N      device node path, or the index of the ane device (default 0)\n"
		"  --timeout MS  how long each call may wait out a firmware that boots or\n"
		"                recovers, and how long the request may take (default 10000,\n"
		"                or the module's fw_deadline_ms plus 8000 when longer)\n"
		"  mlp           two-layer perceptron (default)\n"
		"  conv          small convolutional net\n"
		"  --resident STEPS  run the recurrent step rnn STEPS times (1..%u) as a\n"
		"                chain, each output chained into the next input, then\n"
		"                through the direct path's selector 2; check the two\n"
		"                bit-identical and print both step latencies\n"
		"  rnn           h' = tanh(h x W + b), h 8x8 (only with --resident)\n"
		"  -h, --help    this help\n"
		"  -V, --version libane's version\n", RESIDENT_MAX_STEPS);
}

/* Nothing ran on the engine: say why, and exit EXIT_NOT_RUN. */
static int not_run(const char *why)
{
	fprintf(stderr, "ane-run: %s\n", why);
	printf("check: NOT RUN: nothing ran on the engine: %s\n", why);
	return EXIT_NOT_RUN;
}

#define RNN_DIM			8
#define RNN_ELEMS		(RNN_DIM * RNN_DIM)
#define RNN_SEED		2718

static double now_us(void)
{
	return now_s() * 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @q quantile of @v[0..n), sorting @v. */
static double quantile(double *v, unsigned int n, double q)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(unsigned int)(q * (n - 1) + 0.5)];
}

/* rnn into @net: h' = tanh(h x W + b); returns the input tensor. */
static int build_rnn(struct ane_net *net)
{
	float w[RNN_ELEMS], b = 0.125f;
	int h, t, wt, bt;

	demo_rng_seed(RNN_SEED);
	demo_fill(w, RNN_ELEMS, 0.5f);
	h = ane_net_input(net, "h", 1, 1, RNN_DIM, RNN_DIM);
	wt = ane_net_const(net, "W", 1, 1, RNN_DIM, RNN_DIM, w);
	bt = ane_net_const(net, "b", 1, 1, 1, 1, &b);
	t = ane_net_matmul(net, h, wt, 0, ANE_NET_ACT_NONE);
	ane_net_output(net, ane_net_eltwise(net, ANE_NET_ADD, t, bt, ANE_NET_ACT_TANH));
	return h;
}

/*
 * --resident: the broker's and the client's parts in one process, the
 * chained loop, the same loop through selector 2, the verdict.
 */
/* --timeout not given: the handle's own default (libane.h). */
#define TIMEOUT_UNSET	(ANE_WAIT_FOREVER - 1)

/* The handle's timeout, --timeout's if given: what the waits use too. */
static uint64_t set_timeout(struct ane_dev *dev, uint64_t timeout_ns)
{
	if (timeout_ns == TIMEOUT_UNSET)
		return ane_get_timeout(dev);
	ane_set_timeout(dev, timeout_ns);
	return timeout_ns;
}

static int run_resident(const char *node, unsigned int steps, uint64_t timeout_ns)
{
	struct ane_surface *h0 = NULL, *o[2] = { NULL, NULL }, *x = NULL, *y = NULL;
	float h[RNN_ELEMS], ref[RNN_ELEMS], got[RNN_ELEMS];
	double *clat = NULL, *slat = NULL, max_abs = 0, max_rel = 0;
	struct ane_dev *ctl = NULL, *dp = NULL;
	struct ane_program *prog = NULL;
	struct ane_net *net = NULL;
	uint64_t handle = 0, atok = 0, seqno;
	const float *ins[1] = { h };
	float *outs[1] = { ref };
	char err[512], why[600] = "";
	int ret = EXIT_NOT_RUN, efd = -1, st, same = 0;
	unsigned int k;
	size_t size, bad;
	const void *img;

	clat = calloc(steps, sizeof(*clat));
	slat = calloc(steps, sizeof(*slat));
	if (!clat || !slat || ane_net_create(&net)) {
		snprintf(why, sizeof(why), "out of memory");
		goto out;
	}
	build_rnn(net);
	if (ane_net_build(net, &img, &size)) {
		snprintf(why, sizeof(why), "%s", ane_net_errmsg(net));
		goto out;
	}
	/* h0: fp16 values, so the reference reads what the engine reads */
	demo_rng_seed(RNN_SEED + 1);
	demo_fill(h, RNN_ELEMS, 1.0f);
	printf("net: rnn, h' = tanh(h x W + b), h %ux%u fp16, %u steps, image %zu bytes\n",
	       RNN_DIM, RNN_DIM, steps, size);

	/* the broker: prepare, chain, export */
	if (ane_open(node, ANE_KIND_CONTROL, &ctl, err, sizeof(err))) {
		snprintf(why, sizeof(why), "%s", err);
		goto out;
	}
	timeout_ns = set_timeout(ctl, timeout_ns);
	printf("device: %s\n", ane_node(ctl));
	if (ane_program_create(ctl, img, size, &prog) || ane_program_prepare(prog) ||
	    ane_chain_prepare(ctl, prog, 0, 0, &handle) ||
	    ane_program_export(ctl, prog, &efd)) {
		snprintf(why, sizeof(why), "broker: %s", ane_errmsg(ctl));
		goto out;
	}
	/* the client: attach, its own surfaces */
	if (ane_open(node, ANE_KIND_DIRECT, &dp, err, sizeof(err))) {
		snprintf(why, sizeof(why), "%s", err);
		goto out;
	}
	ane_set_timeout(dp, timeout_ns);
	if (ane_program_attach(dp, efd, &atok) ||
	    ane_surface_create(dp, RNN_ELEMS * 2, &h0) ||
	    ane_surface_create(dp, RNN_ELEMS * 2, &o[0]) ||
	    ane_surface_create(dp, RNN_ELEMS * 2, &o[1]) ||
	    ane_surface_create(dp, RNN_ELEMS * 2, &x) ||
	    ane_surface_create(dp, RNN_ELEMS * 2, &y)) {
		snprintf(why, sizeof(why), "client: %s", ane_errmsg(dp));
		goto out;
	}
	close(efd);
	efd = -1;
	ane_fp16_from_float_array(ane_surface_map(h0), h, RNN_ELEMS);
	ane_float_from_fp16_array(h, ane_surface_map(h0), RNN_ELEMS);
	if (ane_net_reference(net, ins, outs)) {
		snprintf(why, sizeof(why), "%s", ane_net_errmsg(net));
		goto out;
	}

	/* the chained loop: step k reads step k - 1's output where it lies */
	for (k = 0; k < steps; k++) {
		struct ane_surface *in = k ? o[(k - 1) % 2] : h0;
		unsigned char chained = k > 0;
		double t0 = now_us();

		if (ane_chain_enqueue(dp, handle, &o[k % 2], 1) ||
		    ane_chain_trigger(dp, handle, k + 1, &in, &chained, 1)) {
			snprintf(why, sizeof(why), "chained step %u: %s", k + 1, ane_errmsg(dp));
			goto out;
		}
		/* From here on something ran: a failure is a FAIL. */
		ret = EXIT_FAIL;
		if (ane_chain_wait(dp, handle, k + 1, ane_deadline_ns(timeout_ns), &st, NULL)) {
			snprintf(why, sizeof(why), "chained step %u: %s", k + 1, ane_errmsg(dp));
			goto out;
		}
		clat[k] = now_us() - t0;
		if (!k)
			ane_float_from_fp16_array(got, ane_surface_map(o[0]), RNN_ELEMS);
	}

	/* the same steps through the client's selector 2 */
	memcpy(ane_surface_map(x), ane_surface_map(h0), RNN_ELEMS * 2);
	for (k = 0; k < steps; k++) {
		struct ane_surface *in = k % 2 ? y : x, *out = k % 2 ? x : y;
		double t0 = now_us();

		if (ane_attached_submit(dp, atok, 0, &in, 1, &out, 1,
					ane_deadline_ns(timeout_ns), &seqno) ||
		    ane_request_wait(dp, seqno, ane_deadline_ns(timeout_ns), &st, NULL)) {
			snprintf(why, sizeof(why), "selector-2 step %u: %s", k + 1, ane_errmsg(dp));
			goto out;
		}
		slat[k] = now_us() - t0;
	}
	same = !memcmp(ane_surface_map(o[(steps - 1) % 2]),
		       ane_surface_map(steps % 2 ? y : x), RNN_ELEMS * 2);
	bad = compare(got, ref, RNN_ELEMS, &max_abs, &max_rel);

	printf("step 1 vs reference: max abs err %.3g, max rel err %.3g, %zu value(s) out of tolerance\n",
	       max_abs, max_rel, bad);
	printf("chained step (enqueue + inputs ready + event)   p50 %9.1f us   p99 %9.1f us\n",
	       quantile(clat, steps, 0.5), quantile(clat, steps, 0.99));
	printf("selector-2 step (direct-path submit + event)    p50 %9.1f us   p99 %9.1f us\n",
	       quantile(slat, steps, 0.5), quantile(slat, steps, 0.99));
	printf("final state after %u steps, chain vs selector 2: %s\n", steps,
	       same ? "bit-identical" : "DIFFERENT");
	ret = same && !bad ? EXIT_PASS : EXIT_FAIL;

out:
	if (efd >= 0)
		close(efd);
	ane_surface_destroy(h0);
	ane_surface_destroy(o[0]);
	ane_surface_destroy(o[1]);
	ane_surface_destroy(x);
	ane_surface_destroy(y);
	if (dp && atok)
		ane_program_detach(dp, atok);
	ane_close(dp);
	if (ctl && handle)
		ane_chain_invalidate(ctl, handle);
	ane_program_destroy(prog);
	ane_close(ctl);
	ane_net_destroy(net);
	free(clat);
	free(slat);
	if (ret == EXIT_NOT_RUN)
		return not_run(why);
	if (ret == EXIT_FAIL && why[0]) {
		fprintf(stderr, "ane-run: %s\n", why);
		printf("check: FAIL (a step was triggered but did not complete: %s)\n", why);
		return ret;
	}
	printf("check: %s\n", ret ? "FAIL" : "PASS");
	return ret;
}

/*
 * Evaluate through aned: load the image, send the fp16 input, read the
 * outputs.  Returns EXIT_PASS when it ran (the caller compares), else
 * EXIT_NOT_RUN or EXIT_FAIL with @why set.
 */
static int run_broker(const char *sock, const void *img, size_t size, const float *x,
		      size_t n_x, unsigned int nout, const struct ane_net_shape *oshape,
		      float *const *got, uint64_t *exec_ns, double *wall, char *why,
		      size_t why_len)
{
	uint16_t *in16 = calloc(n_x, 2), *out16[MAX_OUT] = { NULL };
	size_t out_sizes[MAX_OUT], in_size = n_x * 2;
	const void *ins[1] = { in16 };
	struct ane_broker *b = NULL;
	char err[512];
	uint64_t model;
	unsigned int i;
	int ret = EXIT_NOT_RUN, r;
	double t0;
	int oom = !in16;

	for (i = 0; i < nout; i++) {
		out_sizes[i] = elems(&oshape[i]) * 2;
		out16[i] = calloc(out_sizes[i], 1);
		oom |= !out16[i];
	}
	if (oom) {
		snprintf(why, why_len, "out of memory");
		goto out;
	}
	ane_fp16_from_float_array(in16, x, n_x);
	if (ane_broker_connect(sock, &b, err, sizeof(err))) {
		snprintf(why, why_len, "%s", err);
		goto out;
	}
	printf("path: aned at %s\n", sock ? sock : (getenv(ANE_BROKER_SOCKET_ENV) ?
		getenv(ANE_BROKER_SOCKET_ENV) : ANE_BROKER_SOCKET_DEFAULT));
	if (ane_broker_load(b, img, size, ANE_QOS_DEFAULT, 0, &model)) {
		snprintf(why, why_len, "%s", ane_broker_errmsg(b));
		goto out;
	}
	t0 = now_s();
	r = ane_broker_evaluate(b, model, ins, &in_size, 1, (void *const *)out16, out_sizes,
				nout, ANE_QOS_DEFAULT, exec_ns);
	*wall = now_s() - t0;
	if (r) {
		snprintf(why, why_len, "%s", ane_broker_errmsg(b));
		/* Refusals and a lost daemon ran nothing; the rest may have. */
		if (r != -EACCES && r != -EPERM && r != -EINVAL && r != -ENOENT &&
		    r != -ECONNRESET && r != -ENOTCONN && r != -EAGAIN)
			ret = EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < nout; i++)
		ane_float_from_fp16_array(got[i], out16[i], elems(&oshape[i]));
	ret = EXIT_PASS;
out:
	ane_broker_close(b);
	for (i = 0; i < nout; i++)
		free(out16[i]);
	free(in16);
	return ret;
}

int main(int argc, char **argv)
{
	struct ane_surface *in = NULL, *out[MAX_OUT] = { NULL };
	struct ane_net_shape ishape, oshape[MAX_OUT];
	const char *which = "mlp", *node_arg = NULL, *sock = NULL;
	int direct = 0;
	float *x = NULL, *got[MAX_OUT] = { NULL }, *ref[MAX_OUT] = { NULL };
	double max_abs = 0, max_rel = 0, t0, wall;
	uint64_t timeout_ns = TIMEOUT_UNSET;
	struct ane_program *prog = NULL;
	unsigned int nout = 0, i;
	uint64_t seqno, exec_ns = 0;
	struct ane_dev *dev = NULL;
	struct ane_net *net = NULL;
	char node[64], err[512], why[600] = "";
	size_t size, bad = 0;
	const float *ins[1];
	float in_scale;
	const void *img;
	int xt, ret = EXIT_NOT_RUN, st, oom = 0, o;
	unsigned long resident = 0;
	uint64_t ms;
	enum { O_DIRECT = 256, O_SOCKET, O_NODE, O_TIMEOUT, O_RESIDENT };
	static const struct option opts[] = {
		{ "direct", no_argument, NULL, O_DIRECT },
		{ "socket", required_argument, NULL, O_SOCKET },
		{ "node", required_argument, NULL, O_NODE },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "resident", required_argument, NULL, O_RESIDENT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};

	/* A model file: the ONNX front end (ane-run-onnx.c). */
	for (i = 1; i < (unsigned int)argc; i++) {
		size_t l = strlen(argv[i]);

		if (l > 5 && !strcmp(argv[i] + l - 5, ".onnx"))
			return ane_run_onnx(argc, argv);
	}
	ane_opt_init("ane-run");
	while ((o = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			usage(stdout);
			return EXIT_PASS;
		case 'V':
			printf("ane-run (libane) %s\n", ane_version());
			return EXIT_PASS;
		case O_DIRECT:
			direct = 1;
			break;
		case O_SOCKET:
			sock = optarg;
			break;
		case O_NODE:
			node_arg = optarg;
			break;
		case O_TIMEOUT:
			if (ane_opt_u64("--timeout", optarg, 0, UINT64_MAX / 1000000, "ms", &ms))
				return EXIT_USAGE;
			timeout_ns = ms * 1000000;
			break;
		case O_RESIDENT:
			if (ane_opt_u64("--resident", optarg, 1, RESIDENT_MAX_STEPS, "steps", &ms))
				return EXIT_USAGE;
			resident = (unsigned long)ms;
			break;
		default:
			ane_opt_bad(o, argv);
			return EXIT_USAGE;
		}
	}
	if (ane_opt_operands(argc, argv, 0, 1, NULL))
		return EXIT_USAGE;
	if (optind < argc) {
		which = argv[optind];
		if (strcmp(which, "mlp") && strcmp(which, "conv") && strcmp(which, "rnn")) {
			ane_usage_error("unknown network '%s' (mlp, conv, rnn, or a MODEL.onnx)",
					which);
			return EXIT_USAGE;
		}
	}
	if (resident ? strcmp(which, "mlp") && strcmp(which, "rnn") :
		       !strcmp(which, "rnn")) {
		fprintf(stderr, "ane-run: %s\n", resident ?
			"--resident runs rnn, whose output is its next input" :
			"rnn runs with --resident STEPS");
		return EXIT_USAGE;
	}
	if (direct && sock) {
		fprintf(stderr, "ane-run: --direct and --socket exclude each other\n");
		return EXIT_USAGE;
	}
	if (resident && sock) {
		fprintf(stderr, "ane-run: --resident runs on the device (its own broker and client), not through aned\n");
		return EXIT_USAGE;
	}
	if (resident) {
		printf("path: direct (--resident runs the broker's part itself)\n");
	} else if (!direct && !node_arg && (sock || ane_broker_available(NULL))) {
		direct = -1;	/* through aned */
	} else if (!direct && !node_arg) {
		const char *env = getenv(ANE_BROKER_SOCKET_ENV);

		printf("path: direct (no aned socket at %s)\n",
		       env && *env ? env : ANE_BROKER_SOCKET_DEFAULT);
	} else {
		printf("path: direct (%s)\n", direct ? "--direct" : "--node");
	}
	if (direct < 0) {
		node[0] = '\0';
	} else if (!node_arg || strspn(node_arg, "0123456789") == strlen(node_arg)) {
		unsigned int idx = node_arg ? (unsigned int)strtoul(node_arg, NULL, 10) : 0;

		if (ane_find_node(idx, node, sizeof(node))) {
			struct ane_dev *d = NULL;

			/* libane's discovery says why: no module, or another "ane" */
			if (!idx && ane_open(NULL, ANE_KIND_CONTROL, &d, err, sizeof(err)))
				snprintf(why, sizeof(why), "%s", err);
			else
				snprintf(why, sizeof(why),
					 "no ane device %u: is ane.ko loaded? (modprobe ane; ls /sys/class/accel)",
					 idx);
			ane_close(d);
			return not_run(why);
		}
	} else {
		snprintf(node, sizeof(node), "%s", node_arg);
	}

	if (resident)
		return run_resident(node, (unsigned int)resident, timeout_ns);
	if (ane_net_create(&net))
		return not_run("out of memory");
	xt = !strcmp(which, "mlp") ? demo_build_mlp(net, 1, &in_scale) :
					  demo_build_conv(net, 2, &in_scale);
	if (ane_net_build(net, &img, &size)) {
		snprintf(why, sizeof(why), "%s", ane_net_errmsg(net));
		goto out;
	}
	nout = ane_net_num_outputs(net);
	ane_net_shape(net, xt, &ishape);
	x = calloc(elems(&ishape), sizeof(float));
	for (i = 0; i < nout; i++) {
		ane_net_shape(net, ane_net_output_tensor(net, i), &oshape[i]);
		got[i] = calloc(elems(&oshape[i]), sizeof(float));
		ref[i] = calloc(elems(&oshape[i]), sizeof(float));
		oom |= !got[i] || !ref[i];
	}
	if (oom || !x) {
		snprintf(why, sizeof(why), "out of memory");
		goto out;
	}
	demo_rng_seed(!strcmp(which, "mlp") ? DEMO_MLP_INPUT_SEED : DEMO_CONV_INPUT_SEED);
	demo_fill(x, elems(&ishape), in_scale);
	ins[0] = x;
	if (ane_net_reference(net, ins, ref)) {
		snprintf(why, sizeof(why), "%s", ane_net_errmsg(net));
		goto out;
	}
	printf("net: %s, %u operations, input %ux%ux%ux%u, %u output(s), image %zu bytes (weights %" PRIu64 ")\n",
	       which, ane_net_num_ops(net), ishape.n, ishape.c, ishape.h, ishape.w, nout, size,
	       (uint64_t)((const struct ane_img_header *)img)->weights_size);

	if (direct < 0) {
		ret = run_broker(sock, img, size, x, elems(&ishape), nout, oshape, got, &exec_ns,
				 &wall, why, sizeof(why));
		if (ret != EXIT_PASS)
			goto out;
		why[0] = '\0';
		printf("request: completed through aned, engine %.1f us, call to reply %.1f us\n",
		       (double)exec_ns / 1e3, wall * 1e6);
		goto compare;
	}
	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		snprintf(why, sizeof(why), "%s", err);
		goto out;
	}
	timeout_ns = set_timeout(dev, timeout_ns);
	printf("device: %s\n", ane_node(dev));
	if (ane_program_create(dev, img, size, &prog) || ane_program_prepare(prog) ||
	    ane_surface_create(dev, elems(&ishape) * 2, &in))
		goto dev_fail;
	for (i = 0; i < nout; i++)
		if (ane_surface_create(dev, elems(&oshape[i]) * 2, &out[i]))
			goto dev_fail;
	ane_fp16_from_float_array(ane_surface_map(in), x, elems(&ishape));
	t0 = now_s();
	if (ane_request_submit(prog, 0, &in, 1, out, nout, &seqno))
		goto dev_fail;
	/* From here on something ran: a failure is a FAIL. */
	ret = EXIT_FAIL;
	if (ane_request_wait(dev, seqno, ane_deadline_ns(timeout_ns), &st, &exec_ns))
		goto dev_fail;
	wall = now_s() - t0;
	printf("request: completed, engine %.1f us, submit to completion %.1f us\n",
	       (double)exec_ns / 1e3, wall * 1e6);
	for (i = 0; i < nout; i++)
		ane_float_from_fp16_array(got[i], ane_surface_map(out[i]), elems(&oshape[i]));
compare:
	for (i = 0; i < nout; i++) {
		summarize(i, &oshape[i], got[i]);
		bad += compare(got[i], ref[i], elems(&oshape[i]), &max_abs, &max_rel);
	}
	printf("reference: max abs err %.3g, max rel err %.3g, %zu value(s) out of tolerance (|dev - ref| <= %g * max|ref| + %g * |ref|)\n",
	       max_abs, max_rel, bad, TOL_ABS_OF_MAX, TOL_REL);
	ret = bad ? EXIT_FAIL : EXIT_PASS;
	goto out;

dev_fail:
	snprintf(why, sizeof(why), "%s", ane_errmsg(dev));
out:
	for (i = 0; i < MAX_OUT; i++) {
		ane_surface_destroy(out[i]);
		free(got[i]);
		free(ref[i]);
	}
	ane_surface_destroy(in);
	ane_program_destroy(prog);
	ane_close(dev);
	ane_net_destroy(net);
	free(x);
	if (ret == EXIT_NOT_RUN)
		return not_run(why);
	if (ret == EXIT_FAIL && why[0]) {
		fprintf(stderr, "ane-run: %s\n", why);
		printf("check: FAIL (the request was submitted but did not complete: %s)\n", why);
		return ret;
	}
	printf("check: %s\n", ret ? "FAIL" : "PASS");
	return ret;
}
