// SPDX-License-Identifier: MIT
/*
 * VM tests of the engine's newer operations end to end: nets built with
 * libane's data movement (strided copies, transposes, concatenation,
 * padding, slices with negative steps, reshapes, fills), run through the
 * driver, the firmware and the engine model -- whose copies stage only
 * what their views reach and write back only their views' elements --
 * and compared with ane_net_reference(): bit for bit where the net only
 * moves data, within net_test's tolerance where it computes.  Output
 * surfaces are filled with garbage first, so an element no task wrote,
 * or one a write-back clobbered, shows.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "demo_nets.h"
#include "libane.h"
#include "vm/vm_util.h"

#define TOL_ABS_OF_MAX	2e-3
#define TOL_REL		(1.0 / 256)
#define MAX_IO		4

static char node[64];

static size_t elems(const struct ane_net *net, int t)
{
	struct ane_net_shape s;

	if (ane_net_shape(net, t, &s))
		return 0;
	return (size_t)s.n * s.c * s.h * s.w;
}

/*
 * Run @net on the device with inputs from @seed (scaled by @scale) and
 * compare every output with the reference: exactly when @exact.
 */
static void run_and_compare(struct ane_net *net, uint32_t seed, float scale,
			    int exact, const char *what)
{
	unsigned int nin = ane_net_num_inputs(net), nout = ane_net_num_outputs(net);
	struct ane_program *prog = NULL;
	struct ane_surface *in[MAX_IO] = { NULL }, *out[MAX_IO] = { NULL };
	float *x[MAX_IO] = { NULL }, *ref[MAX_IO] = { NULL };
	struct ane_dev *dev = NULL;
	char err[512];
	const void *img;
	uint64_t seqno;
	unsigned int i;
	size_t size, k;
	int st;

	T_CHECK(nin <= MAX_IO && nout <= MAX_IO, "%u inputs, %u outputs", nin, nout);
	demo_rng_seed(seed);
	for (i = 0; i < nin; i++) {
		size_t n = elems(net, ane_net_input_tensor(net, i));

		x[i] = malloc(n * sizeof(float));
		demo_fill(x[i], n, scale);
	}
	for (i = 0; i < nout; i++)
		ref[i] = malloc(elems(net, ane_net_output_tensor(net, i)) * sizeof(float));
	T_OK(ane_net_reference(net, (const float *const *)x, ref));
	T_OK(ane_net_build(net, &img, &size));
	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		T_CHECK(0, "open: %s", err);
		goto out;
	}
	T_OK(ane_program_create(dev, img, size, &prog));
	T_OK(ane_program_prepare(prog));
	for (i = 0; i < nin && !t_case_failed; i++) {
		size_t n = elems(net, ane_net_input_tensor(net, i));

		T_OK(ane_surface_create(dev, n * 2, &in[i]));
		if (in[i])
			ane_fp16_from_float_array(ane_surface_map(in[i]), x[i], n);
	}
	for (i = 0; i < nout && !t_case_failed; i++) {
		T_OK(ane_surface_create(dev, elems(net, ane_net_output_tensor(net, i)) * 2,
					&out[i]));
		if (out[i])	/* garbage, so that a missed write shows */
			memset(ane_surface_map(out[i]), 0x7c, ane_surface_size(out[i]));
	}
	if (!t_case_failed) {
		T_OK(ane_request_submit(prog, 0, in, nin, out, nout, &seqno));
		T_OK(ane_request_wait(dev, seqno, ane_deadline_ns(ane_get_timeout(dev)), &st, NULL));
		T_EQ(st, 0);
	}
	if (t_case_failed)
		printf("#   %s: %s\n", what, ane_errmsg(dev));
	for (i = 0; i < nout && !t_case_failed; i++) {
		size_t n = elems(net, ane_net_output_tensor(net, i)), bad = 0;
		const uint16_t *y = ane_surface_map(out[i]);
		double big = 0;

		for (k = 0; k < n; k++)
			big = fmax(big, fabs(ref[i][k]));
		for (k = 0; k < n; k++) {
			double got = ane_float_from_fp16(y[k]), d = fabs(got - ref[i][k]);
			int ok = exact ? got == ref[i][k] :
				 d <= TOL_ABS_OF_MAX * big + TOL_REL * fabs(ref[i][k]);

			if (!ok && bad++ < 5)
				printf("#   %s: output %u [%zu] = %g (0x%04x), reference %g\n",
				       what, i, k, got, y[k], ref[i][k]);
		}
		printf("#   %s: output %u, %zu values, max |ref| %.4g, %zu off\n",
		       what, i, n, big, bad);
		T_CHECK(!bad, "%s: output %u: %zu values differ", what, i, bad);
	}
out:
	for (i = 0; i < MAX_IO; i++) {
		ane_surface_destroy(in[i]);
		ane_surface_destroy(out[i]);
		free(x[i]);
		free(ref[i]);
	}
	if (prog)
		ane_program_destroy(prog);
	ane_close(dev);
}

/*
 * Data movement alone, so bit for bit: a transpose, a reflection pad, a
 * slice with negative steps, a concatenation written into an output
 * surface by three copies, a reshape as an output, and the zero-insertion
 * of a transposed convolution's input (a fill, here not with 0, and a
 * copy with stride 2).
 */
static void data_movement_is_bit_exact_through_the_driver(void)
{
	static const uint32_t perm[4] = { 0, 2, 3, 1 };
	static const uint32_t pads[8] = { 0, 0, 2, 1, 0, 0, 1, 2 };
	struct ane_net_view_desc dv = { { 1, 3, 6, 10 }, { 0, 209, 38, 2 }, 0 };
	struct ane_net *net;
	int x, t, p, s, c, z;

	T_EQ(ane_net_create(&net), 0);
	x = ane_net_input(net, "x", 1, 3, 6, 10);
	t = ane_net_transpose(net, x, perm);			/* [1, 6, 10, 3] */
	p = ane_net_pad(net, x, pads, ANE_NET_PAD_REFLECT, 0);	/* [1, 3, 9, 13] */
	s = ane_net_slice(net, p, (const int64_t[4]){ 0, 2, 8, 12 },
			  (const int64_t[4]){ 1, -1, -2, -3 },
			  (const uint32_t[4]){ 1, 3, 5, 5 });
	c = ane_net_concat(net, (const int[3]){ s, s, s }, 3, 1);	/* [1, 9, 5, 5] */
	ane_net_output(net, c);
	ane_net_output(net, ane_net_reshape(net, t, 1, 1, 30, 6));
	z = ane_net_empty(net, "z", 1, 3, 11, 19);
	ane_net_fill(net, z, NULL, -0.25f);	/* not 0: a clobber would show */
	ane_net_copy(net, x, NULL, z, &dv);
	ane_net_output(net, z);
	T_CHECK(!strcmp(ane_net_errmsg(net), ""), "%s", ane_net_errmsg(net));
	run_and_compare(net, 5, 4.0f, 1, "movement");
	ane_net_destroy(net);
}

/*
 * Data movement between computations: a conv's result padded, cut and
 * concatenated with the input, reshaped, multiplied and transposed --
 * every operation reading reshapes and results written by copies.
 */
static void copies_feed_computations(void)
{
	static float w[8 * 3 * 3 * 3], b[8];
	static const uint32_t perm[4] = { 0, 1, 3, 2 };
	static const uint32_t pads[8] = { 0, 0, 1, 1, 0, 0, 1, 1 };
	struct ane_net_conv_params cp = { .act = ANE_NET_ACT_RELU };
	struct ane_net *net;
	int x, y, p, c, r;

	demo_rng_seed(9);
	demo_fill(w, sizeof(w) / sizeof(w[0]), 0.4f);
	demo_fill(b, 8, 0.1f);
	T_EQ(ane_net_create(&net), 0);
	x = ane_net_input(net, "x", 1, 3, 12, 12);
	p = ane_net_pad(net, x, pads, ANE_NET_PAD_EDGE, 0);		/* 14 x 14 */
	y = ane_net_conv(net, p, ane_net_const(net, "w", 8, 3, 3, 3, w),
			 ane_net_const(net, "b", 1, 8, 1, 1, b), &cp);	/* 12 x 12 */
	c = ane_net_concat(net, (const int[2]){ y, x }, 2, 1);		/* 11 ch */
	r = ane_net_reshape(net, c, 1, 11, 1, 144);
	r = ane_net_norm(net, r, ANE_NET_NORM_SOFTMAX);
	r = ane_net_reshape(net, r, 1, 11, 12, 12);
	ane_net_output(net, ane_net_transpose(net, r, perm));
	T_CHECK(!strcmp(ane_net_errmsg(net), ""), "%s", ane_net_errmsg(net));
	run_and_compare(net, 6, 1.0f, 0, "conv+movement");
	ane_net_destroy(net);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "ops"))
		return 1;
	T_RUN(data_movement_is_bit_exact_through_the_driver);
	T_RUN(copies_feed_computations);
	return t_summary("ops");
}
