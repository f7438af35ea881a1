// SPDX-License-Identifier: MIT
/*
 * ane-bench: an Evaluate through aned beside the same request on the device.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "bench.h"

/*
 * An evaluate round trip through aned (its socket: $ANE_BROKER_SOCKET, or
 * the default; aned must be running) beside the same program's request
 * round trip on the device itself, p50 and p99 of each.
 */
int bench_broker(const char *node)
{
	static uint64_t blat[BROKER_ROUNDS], dlat[BROKER_ROUNDS];
	struct ane_surface *in = NULL, *out = NULL;
	uint16_t x[8] = { 0 }, y[8];
	const void *ins[1] = { x };
	void *outs[1] = { y };
	size_t in_size = sizeof(x), out_size = sizeof(y);
	struct ane_program *prog = NULL;
	struct ane_broker *b = NULL;
	struct ane_dev *dev = NULL;
	struct ane_net *net = NULL;
	unsigned int i, warm = BROKER_ROUNDS / 10;
	double b50, b99, d50, d99;
	char err[512];
	uint64_t model;
	const void *img;
	size_t size;

	if (relu_image(&net, &img, &size))
		return 1;
	if (ane_broker_connect(NULL, &b, err, sizeof(err))) {
		fprintf(stderr, "ane-bench: broker: %s\n", err);
		ane_net_destroy(net);
		return 1;
	}
	if (ane_broker_load(b, img, size, ANE_QOS_DEFAULT, 0, &model)) {
		fprintf(stderr, "ane-bench: broker: %s\n", ane_broker_errmsg(b));
		goto fail;
	}
	for (i = 0; i < warm + BROKER_ROUNDS; i++) {
		uint64_t t0 = now_ns();

		if (ane_broker_evaluate(b, model, ins, &in_size, 1, outs, &out_size, 1,
					ANE_QOS_DEFAULT, NULL)) {
			fprintf(stderr, "ane-bench: broker: %s\n", ane_broker_errmsg(b));
			goto fail;
		}
		if (i >= warm)
			blat[i - warm] = now_ns() - t0;
	}
	ane_broker_close(b);
	b = NULL;

	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		fprintf(stderr, "ane-bench: %s\n", err);
		goto fail;
	}
	if (ane_program_create(dev, img, size, &prog) || ane_program_prepare(prog) ||
	    ane_surface_create(dev, 16, &in) || ane_surface_create(dev, 16, &out)) {
		ane_net_destroy(net);
		return req_fail(dev, "setup");
	}
	memset(ane_surface_map(in), 0, 16);
	for (i = 0; i < warm + BROKER_ROUNDS; i++) {
		uint64_t seqno, t0 = now_ns();
		int st;

		if (ane_request_submit(prog, 0, &in, 1, &out, 1, &seqno) ||
		    ane_request_wait(dev, seqno, ane_deadline_ns(10000000000ull), &st, NULL)) {
			ane_net_destroy(net);
			return req_fail(dev, "direct request");
		}
		if (i >= warm)
			dlat[i - warm] = now_ns() - t0;
	}
	ane_surface_destroy(in);
	ane_surface_destroy(out);
	ane_program_destroy(prog);
	ane_close(dev);
	ane_net_destroy(net);

	b50 = quantile_us(blat, BROKER_ROUNDS, 0.5);
	b99 = quantile_us(blat, BROKER_ROUNDS, 0.99);
	d50 = quantile_us(dlat, BROKER_ROUNDS, 0.5);
	d99 = quantile_us(dlat, BROKER_ROUNDS, 0.99);
	printf("broker: the request bench's program (one relu of 1x1x1x8), %u round trips each\n",
	       BROKER_ROUNDS);
	printf("  through aned (Evaluate: copy in, submit, wait, copy out)  p50 %9.1f us   p99 %9.1f us\n",
	       b50, b99);
	printf("  direct (ProgramSendRequest + completion event)           p50 %9.1f us   p99 %9.1f us\n",
	       d50, d99);
	printf("  ratio p50           %.2f   (the cost of the broker's hop: D-Bus both ways, its copies)\n",
	       b50 / d50);
	json_num("broker_p50_us", b50);
	json_num("broker_p99_us", b99);
	json_num("direct_p50_us", d50);
	json_num("direct_p99_us", d99);
	json_num("broker_vs_direct_p50", b50 / d50);
	return 0;

fail:
	ane_broker_close(b);
	ane_net_destroy(net);
	return 1;
}
