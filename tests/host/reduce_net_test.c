// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of libane's reductions and normalizations over W
 * (lib/ane_builder_reduce.c): ane_net_reduce() of every kind over axis
 * masks of odd shapes, ane_net_norm() with the log-softmax and
 * ane_net_norm_eps(), built into images the kernel's validator
 * (driver/ane_image.c) accepts, run on the host engine
 * (tools/engine-host/ane_netrun.c) and compared with ane_net_reference(); their
 * task-descriptor words; broken images refused naming the word; and the
 * calls' refusals naming the field.
 *
 * Tolerances, engine against reference: SUM, MEAN, MAX, MIN, PROD,
 * SUM_SQUARE and L1 without an activation bit for bit (the same double
 * operations in the same order, each rounded to fp16 once); L2,
 * LOG_SUM, LOG_SUM_EXP, a fused activation and the log-softmax within
 * one fp16 ulp; layer normalization within 2 ulps plus 2^-10.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "libane.h"
#include "driver/ane_image.h"
#include "tools/engine-host/ane_netrun.h"

#define T_MSG(net, sub) \
	T_CHECK(strstr(ane_net_errmsg(net), (sub)) != NULL, \
		"message \"%s\" lacks \"%s\"", ane_net_errmsg(net), (sub))

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double rngf(double lo, double hi)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static struct ane_net *new_net(void)
{
	struct ane_net *net = NULL;

	T_EQ(ane_net_create(&net), 0);
	return net;
}

static size_t elems(struct ane_net *net, int t)
{
	struct ane_net_shape s;

	if (ane_net_shape(net, t, &s))
		return 0;
	return (size_t)s.n * s.c * s.h * s.w;
}

static double ulp16(double v)
{
	double a = fabs(v);

	return a < 0x1p-14 ? 0x1p-24 : ldexp(1.0, ilogb(a) - 10);
}

/* Whether engine value @g meets tolerance @tol (0 bits, 1 ulp, 2 norm) of @r. */
static int close_enough(float g, float r, int tol)
{
	if (isnan(r) || isnan(g))
		return isnan(r) && isnan(g);
	if (!tol || isinf(r))
		return g == r;
	if (tol == 1)
		return fabs((double)g - r) <= ulp16(r);
	return fabs((double)g - r) <= 2 * ulp16(r) + 0x1p-10;
}

/*
 * Build @net (one input, one output), validate the image with the
 * kernel's validator, run it on the host engine with @chunk_work and
 * compare with the reference at tolerance @tol.
 */
static void run_and_compare(struct ane_net *net, const float *in, int tol,
			    uint64_t chunk_work)
{
	char field[ANE_IMG_FIELD_LEN], err[256] = "";
	size_t size, k, bytes, bad = 0, n;
	struct ane_netrun *r = NULL;
	float *ref;
	const void *img;
	uint16_t *y;
	int ret;

	ret = ane_net_build(net, &img, &size);
	T_CHECK(ret == 0, "build: %s", ane_net_errmsg(net));
	if (ret)
		return;
	ret = ane_image_validate(img, size, field);
	T_CHECK(ret == 0, "the validator refuses the image: %s", field);
	n = elems(net, ane_net_output_tensor(net, 0));
	ref = malloc(n * sizeof(float));
	ret = ane_net_reference(net, &in, &ref);
	T_CHECK(ret == 0, "reference: %s", ane_net_errmsg(net));
	ret = ane_netrun_load(img, size, chunk_work, &r, err, sizeof(err));
	T_CHECK(ret == 0, "load: %s", err);
	if (ret)
		goto out;
	ane_fp16_from_float_array(ane_netrun_input(r, 0, &bytes), in,
				  elems(net, ane_net_input_tensor(net, 0)));
	T_EQ(ane_netrun_run(r), 0);
	y = ane_netrun_output(r, 0, &bytes);
	T_EQ(bytes, n * 2);
	for (k = 0; k < n; k++) {
		float got = ane_float_from_fp16(y[k]);

		if (!close_enough(got, ref[k], tol) && bad++ < 4)
			printf("#   [%zu]: engine %a, reference %a\n", k, got, ref[k]);
	}
	T_CHECK(!bad, "%zu of %zu elements differ", bad, n);
out:
	ane_netrun_free(r);
	free(ref);
}

/* Every kind over several masks of [2, 3, 5, 7], bare and with an act. */
static void test_reduce_every_kind_against_the_reference(void)
{
	static const uint32_t masks[] = { 0x1, 0x2, 0x4, 0x8, 0x5, 0xa, 0xe, 0xf };
	float in[210];
	uint32_t kind, m, i;

	for (kind = ANE_NET_REDUCE_SUM; kind <= ANE_NET_REDUCE_LOG_SUM_EXP; kind++) {
		for (i = 0; i < 210; i++)
			in[i] = kind == ANE_NET_REDUCE_PROD ? rngf(0.9, 1.1) :
				kind == ANE_NET_REDUCE_LOG_SUM ? rngf(0.01, 3) :
				rngf(-3, 3);
		for (m = 0; m < 8; m++) {
			struct ane_net *net = new_net();
			int x = ane_net_input(net, "x", 2, 3, 5, 7), t;

			t = ane_net_reduce(net, x, kind, masks[m], ANE_NET_ACT_NONE);
			T_CHECK(t > 0, "reduce: %s", ane_net_errmsg(net));
			ane_net_output(net, t);
			run_and_compare(net, in, kind >= ANE_NET_REDUCE_L2, m == 3 ? 4 : 0);
			ane_net_destroy(net);
		}
		/* fused: tanh of the result */
		{
			struct ane_net *net = new_net();
			int x = ane_net_input(net, "x", 2, 3, 5, 7);

			ane_net_output(net, ane_net_reduce(net, x, kind, 0x6, ANE_NET_ACT_TANH));
			run_and_compare(net, in, 1, 0);
			ane_net_destroy(net);
		}
	}
}

/* The result's shape: 1 along each reduced axis, the others kept. */
static void test_reduce_shape_and_task_words(void)
{
	struct ane_net *net = new_net();
	const struct ane_img_header *h;
	const struct ane_img_td *td;
	struct ane_net_shape s;
	const void *img;
	size_t size;
	int x, t, k;

	x = ane_net_input(net, "x", 2, 3, 5, 7);
	t = ane_net_reduce(net, x, ANE_NET_REDUCE_LOG_SUM_EXP, 0xa, ANE_NET_ACT_RELU);
	T_EQ(ane_net_shape(net, t, &s), 0);
	T_EQ(s.n, 2);
	T_EQ(s.c, 1);
	T_EQ(s.h, 5);
	T_EQ(s.w, 1);
	t = ane_net_norm_eps(net, t, ANE_NET_NORM_LAYER, 0.5f);
	ane_net_output(net, ane_net_norm(net, t, ANE_NET_NORM_LOG_SOFTMAX));
	T_EQ(ane_net_build(net, &img, &size), 0);
	h = img;
	td = (const void *)((const uint8_t *)img + h->tds_offset);
	T_EQ(h->version_minor, 4);
	T_EQ(td[0].words[ANE_TD_OP], 9);
	T_EQ(td[0].words[ANE_TD_SUBOP], ANE_NET_REDUCE_LOG_SUM_EXP);
	T_EQ(td[0].words[ANE_TD_FLAGS], 0xa);
	T_EQ(td[0].words[ANE_TD_ACT], ANE_NET_ACT_RELU);
	for (k = 4; k <= 14; k++)
		T_EQ(td[0].words[k], 0);
	T_EQ(td[0].words[ANE_TD_DST_DIMS + 1], 1);
	T_EQ(td[0].words[ANE_TD_DST_DIMS + 2], 5);
	T_EQ(td[1].words[ANE_TD_OP], 7);
	T_EQ(td[1].words[ANE_TD_SUBOP], ANE_NET_NORM_LAYER);
	T_EQ(td[1].words[ANE_TD_NORM_EPS], 0x3f000000u);
	T_EQ(td[2].words[ANE_TD_SUBOP], ANE_NET_NORM_LOG_SOFTMAX);
	T_EQ(td[2].words[ANE_TD_NORM_EPS], 0);
	ane_net_destroy(net);
	/* ane_net_norm() and an epsilon of 0: word 4 zero, as before */
	net = new_net();
	x = ane_net_input(net, "x", 1, 1, 2, 8);
	ane_net_output(net, ane_net_norm_eps(net, x, ANE_NET_NORM_LAYER, 0.0f));
	T_EQ(ane_net_build(net, &img, &size), 0);
	td = (const void *)((const uint8_t *)img + ((const struct ane_img_header *)img)->tds_offset);
	T_EQ(td[0].words[ANE_TD_NORM_EPS], 0);
	ane_net_destroy(net);
}

/* Log-softmax and layer normalization with an epsilon, engine vs reference. */
static void test_norm_log_softmax_and_eps_against_the_reference(void)
{
	static const float epss[] = { 0.0f, 1e-3f, 0.5f, 4.0f };
	float in[3 * 2 * 53];
	unsigned int i, e;

	for (i = 0; i < 3 * 2 * 53; i++)
		in[i] = rngf(-6, 6);
	{
		struct ane_net *net = new_net();
		int x = ane_net_input(net, "x", 3, 2, 1, 53);

		ane_net_output(net, ane_net_norm(net, x, ANE_NET_NORM_LOG_SOFTMAX));
		run_and_compare(net, in, 1, 0);
		ane_net_destroy(net);
	}
	for (e = 0; e < 4; e++) {
		struct ane_net *net = new_net();
		int x = ane_net_input(net, "x", 3, 2, 1, 53);

		ane_net_output(net, ane_net_norm_eps(net, x, ANE_NET_NORM_LAYER, epss[e]));
		run_and_compare(net, in, 2, 0);
		ane_net_destroy(net);
	}
}

/* The calls' refusals name the call, the op and the field. */
static void test_refusals_name_the_field(void)
{
	struct ane_net *net = new_net();
	int x = ane_net_input(net, "x", 1, 2, 3, 4);

	T_EQ(ane_net_reduce(net, x, (enum ane_net_reduce_kind)10, 1, 0), -EINVAL);
	T_MSG(net, "ane_net_reduce: op 0: kind 10 is unknown");
	T_EQ(ane_net_reduce(net, x, ANE_NET_REDUCE_SUM, 0, 0), -EINVAL);
	T_MSG(net, "axes 0x0 must be");
	T_EQ(ane_net_reduce(net, x, ANE_NET_REDUCE_SUM, 0x10, 0), -EINVAL);
	T_MSG(net, "axes 0x10 must be");
	T_EQ(ane_net_reduce(net, x, ANE_NET_REDUCE_SUM, 1, ANE_NET_ACT_ELU), -EINVAL);
	T_MSG(net, "activation 20");
	T_EQ(ane_net_reduce(net, 99, ANE_NET_REDUCE_SUM, 1, 0), -EINVAL);
	T_MSG(net, "x");
	ane_net_destroy(net);
	net = new_net();
	x = ane_net_input(net, "x", 1, 2, 3, 4);
	T_EQ(ane_net_norm_eps(net, x, ANE_NET_NORM_LAYER, NAN), -EINVAL);
	T_MSG(net, "ane_net_norm_eps: op 0: eps nan must be finite and greater than 0");
	T_EQ(ane_net_norm_eps(net, x, ANE_NET_NORM_LAYER, -1.0f), -EINVAL);
	T_MSG(net, "eps -1 must be finite");
	T_EQ(ane_net_norm_eps(net, x, ANE_NET_NORM_LAYER, INFINITY), -EINVAL);
	T_MSG(net, "eps inf must be finite");
	T_EQ(ane_net_norm_eps(net, x, ANE_NET_NORM_SOFTMAX, 1e-5f), -EINVAL);
	T_MSG(net, "is for ANE_NET_NORM_LAYER only");
	T_EQ(ane_net_norm_eps(net, x, ANE_NET_NORM_LOG_SOFTMAX, 1e-5f), -EINVAL);
	T_MSG(net, "is for ANE_NET_NORM_LAYER only");
	T_EQ(ane_net_norm_eps(net, x, (enum ane_net_norm_kind)3, 0), -EINVAL);
	T_MSG(net, "kind 3 is unknown");
	T_EQ(ane_net_norm(net, x, (enum ane_net_norm_kind)3), -EINVAL);
	T_MSG(net, "ane_net_norm: op 0: kind 3 is unknown");
	ane_net_destroy(net);
}

/* The kernel's validator on broken reduce and norm words, naming them. */
static void test_broken_images_are_refused(void)
{
	struct ane_net *net = new_net();
	char field[ANE_IMG_FIELD_LEN];
	struct ane_img_header *h;
	struct ane_img_td *td;
	const void *img;
	uint8_t *copy;
	size_t size;
	int x;

	x = ane_net_input(net, "x", 1, 2, 3, 8);
	x = ane_net_reduce(net, x, ANE_NET_REDUCE_MEAN, 0x2, ANE_NET_ACT_NONE);
	ane_net_output(net, ane_net_norm_eps(net, x, ANE_NET_NORM_LAYER, 1e-3f));
	T_EQ(ane_net_build(net, &img, &size), 0);
	T_EQ(ane_image_validate(img, size, field), 0);
	copy = malloc(size);

#define BREAK(stmt, expect) do { \
	memcpy(copy, img, size); \
	h = (struct ane_img_header *)copy; \
	td = (struct ane_img_td *)(copy + h->tds_offset); \
	stmt; \
	T_EQ(ane_image_validate(copy, size, field), -EINVAL); \
	T_CHECK(!strcmp(field, expect), "field %s, expected %s", field, expect); \
} while (0)
	BREAK(td[0].words[ANE_TD_SUBOP] = 10, "td[0].words[2]");
	BREAK(td[0].words[ANE_TD_FLAGS] = 0, "td[0].words[3]");
	BREAK(td[0].words[ANE_TD_FLAGS] = 0x12, "td[0].words[3]");
	BREAK(td[0].words[4] = 1, "td[0].words[4]");
	BREAK(td[0].words[14] = 1, "td[0].words[14]");
	BREAK(td[0].words[ANE_TD_FLAGS] = 0x4, "td[0] (operation)");	/* dst not 1 on H */
	BREAK(td[0].words[ANE_TD_ACT] = 20, "td[0] (operation)");	/* parametric */
	BREAK(td[0].words[ANE_TD_SRC0_LAYOUT] = 8, "td[0].src0_layout");
	BREAK(td[1].words[ANE_TD_NORM_EPS] = 0x7fc00000u, "td[1].words[4]");
	BREAK(td[1].words[ANE_TD_NORM_EPS] = 0xbf800000u, "td[1].words[4]");
	BREAK(td[1].words[ANE_TD_NORM_EPS] = 0x7f800000u, "td[1].words[4]");
	BREAK(td[1].words[ANE_TD_SUBOP] = 2, "td[1].words[4]");	/* eps with log-softmax */
	BREAK(td[1].words[ANE_TD_SUBOP] = 3; td[1].words[ANE_TD_NORM_EPS] = 0,
	      "td[1] (operation)");
	BREAK(td[1].words[5] = 1, "td[1].words[5]");
#undef BREAK
	free(copy);
	ane_net_destroy(net);
}

int main(void)
{
	T_RUN(test_refusals_name_the_field);
	T_RUN(test_reduce_shape_and_task_words);
	T_RUN(test_broken_images_are_refused);
	T_RUN(test_reduce_every_kind_against_the_reference);
	T_RUN(test_norm_log_softmax_and_eps_against_the_reference);
	return t_summary("reduce_net");
}
