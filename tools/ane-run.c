// SPDX-License-Identifier: MIT
/*
 * ane-run: build a demo network with libane, run it on the engine and
 * check the result against libane's CPU reference.
 *
 *   ane-run [--node N] [mlp|conv]
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
 * line is "check: PASS" (exit 0) or "check: FAIL" (exit 1).
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

#include "demo_nets.h"
#include "libane.h"

#define TOL_ABS_OF_MAX	2e-3
#define TOL_REL		(1.0 / 256)	/* 4 fp16 ulps */
#define MAX_OUT		2

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
		"usage: ane-run [--node N] [mlp|conv]\n"
		"\n"
		"Build a demo network, run it on the engine, compare it with the CPU\n"
		"reference (ane_net_reference) and print \"check: PASS\" or \"check: FAIL\".\n"
		"  --node N   device node path, or the index of the ane device (default 0)\n"
		"  mlp        two-layer perceptron (default)\n"
		"  conv       small convolutional net\n");
}

int main(int argc, char **argv)
{
	struct ane_surface *in = NULL, *out[MAX_OUT] = { NULL };
	struct ane_net_shape ishape, oshape[MAX_OUT];
	const char *which = "mlp", *node_arg = NULL;
	float *x = NULL, *got[MAX_OUT] = { NULL }, *ref[MAX_OUT] = { NULL };
	double max_abs = 0, max_rel = 0, t0, wall;
	struct ane_program *prog = NULL;
	unsigned int nout = 0, i;
	uint64_t seqno, exec_ns = 0;
	struct ane_dev *dev = NULL;
	struct ane_net *net = NULL;
	char node[64], err[512];
	size_t size, bad = 0;
	const float *ins[1];
	float in_scale;
	const void *img;
	int xt, ret = 1, st, oom = 0;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--node") && i + 1 < (unsigned int)argc) {
			node_arg = argv[++i];
		} else if (!strcmp(argv[i], "mlp") || !strcmp(argv[i], "conv")) {
			which = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!node_arg || strspn(node_arg, "0123456789") == strlen(node_arg)) {
		unsigned int idx = node_arg ? (unsigned int)strtoul(node_arg, NULL, 10) : 0;

		if (ane_find_node(idx, node, sizeof(node))) {
			fprintf(stderr, "ane-run: no ane device %u: is ane.ko loaded? (modprobe ane; ls /sys/class/accel)\n",
				idx);
			printf("check: FAIL\n");
			return 1;
		}
	} else {
		snprintf(node, sizeof(node), "%s", node_arg);
	}

	if (ane_net_create(&net)) {
		fprintf(stderr, "ane-run: out of memory\n");
		printf("check: FAIL\n");
		return 1;
	}
	xt = !strcmp(which, "mlp") ? demo_build_mlp(net, 1, &in_scale) :
					  demo_build_conv(net, 2, &in_scale);
	if (ane_net_build(net, &img, &size)) {
		fprintf(stderr, "ane-run: %s\n", ane_net_errmsg(net));
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
		fprintf(stderr, "ane-run: out of memory\n");
		goto out;
	}
	demo_rng_seed(!strcmp(which, "mlp") ? DEMO_MLP_INPUT_SEED : DEMO_CONV_INPUT_SEED);
	demo_fill(x, elems(&ishape), in_scale);
	ins[0] = x;
	if (ane_net_reference(net, ins, ref)) {
		fprintf(stderr, "ane-run: %s\n", ane_net_errmsg(net));
		goto out;
	}
	printf("net: %s, %u operations, input %ux%ux%ux%u, %u output(s), image %zu bytes (weights %" PRIu64 ")\n",
	       which, ane_net_num_ops(net), ishape.n, ishape.c, ishape.h, ishape.w, nout, size,
	       (uint64_t)((const struct ane_img_header *)img)->weights_size);

	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		fprintf(stderr, "ane-run: %s\n", err);
		goto out;
	}
	printf("device: %s\n", ane_node(dev));
	if (ane_program_create(dev, img, size, &prog) || ane_program_prepare(prog) ||
	    ane_surface_create(dev, elems(&ishape) * 2, &in))
		goto dev_fail;
	for (i = 0; i < nout; i++)
		if (ane_surface_create(dev, elems(&oshape[i]) * 2, &out[i]))
			goto dev_fail;
	ane_fp16_from_float_array(ane_surface_map(in), x, elems(&ishape));
	t0 = now_s();
	if (ane_request_submit(prog, 0, &in, 1, out, nout, &seqno) ||
	    ane_request_wait(dev, seqno, ane_deadline_ns(10000000000ull), &st, &exec_ns))
		goto dev_fail;
	wall = now_s() - t0;
	printf("request: completed, engine %.1f us, submit to completion %.1f us\n",
	       (double)exec_ns / 1e3, wall * 1e6);
	for (i = 0; i < nout; i++) {
		ane_float_from_fp16_array(got[i], ane_surface_map(out[i]), elems(&oshape[i]));
		summarize(i, &oshape[i], got[i]);
		bad += compare(got[i], ref[i], elems(&oshape[i]), &max_abs, &max_rel);
	}
	printf("reference: max abs err %.3g, max rel err %.3g, %zu value(s) out of tolerance (|dev - ref| <= %g * max|ref| + %g * |ref|)\n",
	       max_abs, max_rel, bad, TOL_ABS_OF_MAX, TOL_REL);
	ret = bad ? 1 : 0;
	goto out;

dev_fail:
	fprintf(stderr, "ane-run: %s\n", ane_errmsg(dev));
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
	printf("check: %s\n", ret ? "FAIL" : "PASS");
	return ret;
}
