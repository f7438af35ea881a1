// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of ane-netbench's image runner (tools/engine-host/ane_netrun.c): images
 * built by libane, run task by task with the firmware's task-descriptor
 * decoding and the engine's operations, agree with ane_net_reference() --
 * bit for bit where every value is exact in fp16, within the documented
 * tolerance otherwise -- on every instruction set the CPU has, whatever
 * the chunk size; and a broken image is refused before anything runs.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "libane.h"
#include "ane_math.h"
#include "engine_isa.h"
#include "tools/engine-host/ane_netrun.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static float frand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)((double)(rng >> 11) / (double)(1ull << 53) * 2.0 - 1.0);
}

static float *rand_array(size_t n, float scale, int integers)
{
	float *a = malloc(n * sizeof(float));
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = integers ? (float)(int)(frand() * 4.0f) : scale * frand();
	return a;
}

static size_t shape_elems(struct ane_net *net, int t)
{
	struct ane_net_shape s;

	ane_net_shape(net, t, &s);
	return (size_t)s.n * s.c * s.h * s.w;
}

static float ulp16(float v)
{
	uint16_t h = ane_fp16_from_float(fabsf(v));

	if ((h & 0x7c00u) < 0x0400u)
		return 1.0f / (1 << 24);
	return ldexpf(1.0f, (int)((h & 0x7c00u) >> 10) - 25);
}

/*
 * Run @net's image with chunk size @chunk_work and compare every output
 * with the reference: exactly when @exact, else within 2 ulps + 1e-3 of
 * the output's largest magnitude (libane.rst, "The reference executor").
 */
static void check_net(struct ane_net *net, float **in, uint64_t chunk_work,
		      int exact)
{
	unsigned int i, o, nin = ane_net_num_inputs(net);
	unsigned int nout = ane_net_num_outputs(net);
	float *ref[16] = { NULL };
	struct ane_netrun *r = NULL;
	const void *img;
	char err[256] = "";
	size_t size, k, bytes;
	int ret;

	for (o = 0; o < nout; o++)
		ref[o] = malloc(shape_elems(net, ane_net_output_tensor(net, o)) *
				sizeof(float));
	T_EQ(ane_net_build(net, &img, &size), 0);
	T_EQ(ane_net_reference(net, (const float *const *)in, ref), 0);
	ret = ane_netrun_load(img, size, chunk_work, &r, err, sizeof(err));
	T_CHECK(ret == 0, "load: %d %s", ret, err);
	if (ret)
		goto out;
	for (i = 0; i < nin; i++) {
		uint16_t *buf = ane_netrun_input(r, i, &bytes);

		T_EQ(bytes, shape_elems(net, ane_net_input_tensor(net, i)) * 2);
		ane_fp16_from_float_array(buf, in[i], bytes / 2);
	}
	T_CHECK(ane_netrun_input(r, nin, &bytes) == NULL, "input past the last");
	T_EQ(ane_netrun_run(r), 0);
	for (o = 0; o < nout; o++) {
		size_t n = shape_elems(net, ane_net_output_tensor(net, o));
		uint16_t *out = ane_netrun_output(r, o, &bytes);
		float big = 0;

		T_EQ(bytes, n * 2);
		for (k = 0; k < n; k++)
			if (fabsf(ref[o][k]) > big)
				big = fabsf(ref[o][k]);
		for (k = 0; k < n; k++) {
			float got = ane_float_from_fp16(out[k]);
			float tol = exact ? 0 : 2 * ulp16(ref[o][k]) + 1e-3f * big;

			if (!(fabsf(got - ref[o][k]) <= tol)) {
				T_CHECK(0, "output %u [%zu] = %g, reference %g (tolerance %g)",
					o, k, got, ref[o][k], tol);
				break;
			}
		}
	}
out:
	ane_netrun_free(r);
	for (o = 0; o < nout; o++)
		free(ref[o]);
}

/* A two-layer perceptron with bias and GELU, batch 5 (odd sizes). */
static struct ane_net *mlp_net(float ***inp, int integers)
{
	struct ane_net *net;
	float **in = calloc(1, sizeof(*in));
	float *w1 = rand_array(37 * 70, 0.3f, integers), *b1 = rand_array(70, 0.1f, integers);
	float *w2 = rand_array(70 * 19, 0.2f, integers), *b2 = rand_array(19, 0.1f, integers);
	int t;

	ane_net_create(&net);
	t = ane_net_input(net, "x", 1, 1, 5, 37);
	t = ane_net_matmul(net, t, ane_net_const(net, "w1", 1, 1, 37, 70, w1), 0,
			   ANE_NET_ACT_NONE);
	t = ane_net_eltwise(net, ANE_NET_ADD, t, ane_net_const(net, "b1", 1, 1, 1, 70, b1),
			    integers ? ANE_NET_ACT_RELU : ANE_NET_ACT_GELU);
	t = ane_net_matmul(net, t, ane_net_const(net, "w2", 1, 1, 70, 19, w2), 0,
			   ANE_NET_ACT_NONE);
	t = ane_net_eltwise(net, ANE_NET_ADD, t, ane_net_const(net, "b2", 1, 1, 1, 19, b2),
			    ANE_NET_ACT_NONE);
	ane_net_output(net, t);
	in[0] = rand_array(5 * 37, 1.0f, integers);
	free(w1);
	free(b1);
	free(w2);
	free(b2);
	*inp = in;
	return net;
}

/* Two residual conv blocks, a pooling and a softmax, two inputs. */
static struct ane_net *conv_net(float ***inp)
{
	struct ane_net_conv_params p = {
		.stride_h = 1, .stride_w = 1, .pad_top = 1, .pad_bottom = 1,
		.pad_left = 1, .pad_right = 1, .act = ANE_NET_ACT_RELU,
	};
	struct ane_net_pool_params pp = { .kind = ANE_NET_POOL_MAX,
					  .kernel_h = 2, .kernel_w = 2 };
	float **in = calloc(2, sizeof(*in));
	struct ane_net *net;
	int x, s, i;

	ane_net_create(&net);
	x = ane_net_input(net, "x", 2, 8, 11, 9);
	s = ane_net_input(net, "scale", 1, 8, 1, 1);
	for (i = 0; i < 2; i++) {
		float *w1 = rand_array(8 * 8 * 9, 0.2f, 0), *b1 = rand_array(8, 0.1f, 0);
		float *w2 = rand_array(8 * 8 * 9, 0.2f, 0);
		int y;

		p.act = ANE_NET_ACT_RELU;
		y = ane_net_conv(net, x, ane_net_const(net, "w1", 8, 8, 3, 3, w1),
				 ane_net_const(net, "b1", 1, 8, 1, 1, b1), &p);
		p.act = ANE_NET_ACT_NONE;
		y = ane_net_conv(net, y, ane_net_const(net, "w2", 8, 8, 3, 3, w2), -1, &p);
		x = ane_net_eltwise(net, ANE_NET_ADD, y, x, ANE_NET_ACT_RELU);
		free(w1);
		free(b1);
		free(w2);
	}
	x = ane_net_eltwise(net, ANE_NET_MUL, x, s, ANE_NET_ACT_NONE);
	x = ane_net_pool(net, x, &pp);
	x = ane_net_softmax(net, x);
	ane_net_output(net, x);
	in[0] = rand_array(2 * 8 * 11 * 9, 1.0f, 0);
	in[1] = rand_array(8, 1.0f, 0);
	*inp = in;
	return net;
}

/*
 * A small attention block: per-head projections broadcast over C, scores
 * with a transposed B, softmax over W, the heads summed by a 1x1
 * convolution, a residual add and a layer normalization with its scale
 * and shift -- the encoder's operations at sizes the reference runs fast.
 */
static struct ane_net *attention_net(float ***inp)
{
	const uint32_t S = 6, D = 16, NH = 2, DK = 8;
	struct ane_net_conv_params p = { .stride_h = 1, .stride_w = 1 };
	float **in = calloc(1, sizeof(*in));
	float ones[2] = { 1, 1 };
	float *wq = rand_array(NH * D * DK, 0.4f, 0), *wk = rand_array(NH * D * DK, 0.4f, 0);
	float *wv = rand_array(NH * D * DK, 0.4f, 0), *wo = rand_array(NH * DK * D, 0.4f, 0);
	float *g = rand_array(D, 1.0f, 0), *be = rand_array(D, 0.5f, 0);
	struct ane_net *net;
	int x, q, k, v, t;

	ane_net_create(&net);
	x = ane_net_input(net, "x", 1, 1, S, D);
	q = ane_net_matmul(net, x, ane_net_const(net, "wq", 1, NH, D, DK, wq), 0, 0);
	k = ane_net_matmul(net, x, ane_net_const(net, "wk", 1, NH, D, DK, wk), 0, 0);
	v = ane_net_matmul(net, x, ane_net_const(net, "wv", 1, NH, D, DK, wv), 0, 0);
	t = ane_net_matmul(net, q, k, ANE_NET_TRANSPOSE_B, 0);
	t = ane_net_norm(net, t, ANE_NET_NORM_SOFTMAX);
	t = ane_net_matmul(net, t, v, 0, 0);
	t = ane_net_matmul(net, t, ane_net_const(net, "wo", 1, NH, DK, D, wo), 0, 0);
	t = ane_net_conv(net, t, ane_net_const(net, "heads", 1, NH, 1, 1, ones), -1, &p);
	t = ane_net_eltwise(net, ANE_NET_ADD, t, x, 0);
	t = ane_net_norm(net, t, ANE_NET_NORM_LAYER);
	t = ane_net_eltwise(net, ANE_NET_MUL, t, ane_net_const(net, "g", 1, 1, 1, D, g), 0);
	t = ane_net_eltwise(net, ANE_NET_ADD, t, ane_net_const(net, "be", 1, 1, 1, D, be), 0);
	ane_net_output(net, t);
	in[0] = rand_array(S * D, 1.5f, 0);
	free(wq);
	free(wk);
	free(wv);
	free(wo);
	free(g);
	free(be);
	*inp = in;
	return net;
}

/*
 * The attention block with Q, K and V as one matmul by [D, 3 D] (its bias
 * fused) whose heads are views (ane_net_view()): Q's rows are 3 D apart,
 * its heads 8 columns apart, read in place as A of the scores, K as their
 * transposed B, V as the B of the weighted sum (strided operands, TD
 * layout words).  @integers: small integers, so every value is exact.
 */
static struct ane_net *qkv_view_net(float ***inp, int integers)
{
	const uint32_t S = 7, D = 16, NH = 2, DK = 8;
	float **in = calloc(1, sizeof(*in));
	float *w = rand_array(D * 3 * D, 0.4f, integers);
	float *b = rand_array(3 * D, 0.2f, integers);
	float *wo = rand_array(D * D, 0.4f, integers);
	struct ane_net *net;
	int x, q, k, v, t;

	in[0] = rand_array(S * D, 1.5f, integers);
	if (integers)	/* -1, 0, 1: four products deep stays inside fp16 */
		for (x = 0; x < (int)(D * 3 * D); x++) {
			w[x] = w[x] > 1 ? 1 : w[x] < -1 ? -1 : w[x];
			if (x < (int)(3 * D))
				b[x] = b[x] > 1 ? 1 : b[x] < -1 ? -1 : b[x];
			if (x < (int)(D * D))
				wo[x] = wo[x] > 1 ? 1 : wo[x] < -1 ? -1 : wo[x];
			if (x < (int)(S * D))
				in[0][x] = in[0][x] > 1 ? 1 : in[0][x] < -1 ? -1 : in[0][x];
		}
	ane_net_create(&net);
	x = ane_net_input(net, "x", 1, 1, S, D);
	t = ane_net_matmul(net, x, ane_net_const(net, "wqkv", 1, 1, D, 3 * D, w), 0, 0);
	t = ane_net_eltwise(net, ANE_NET_ADD, t, ane_net_const(net, "bqkv", 1, 1, 1, 3 * D, b), 0);
	q = ane_net_view(net, t, 0, DK, NH);
	k = ane_net_view(net, t, D, DK, NH);
	v = ane_net_view(net, t, 2 * D, DK, NH);
	t = ane_net_matmul(net, q, k, ANE_NET_TRANSPOSE_B, 0);
	if (!integers)
		t = ane_net_norm(net, t, ANE_NET_NORM_SOFTMAX);
	t = ane_net_matmul(net, t, v, 0, 0);
	/* its heads written side by side (a strided destination), then Wo */
	t = ane_net_merge_heads(net, t);
	t = ane_net_matmul(net, t, ane_net_const(net, "wo", 1, 1, D, D, wo), 0, 0);
	ane_net_output(net, t);
	free(w);
	free(b);
	free(wo);
	*inp = in;
	return net;
}

/*
 * A merged result read by a later matmul and also an output, with
 * another view of it: the storage of a strided destination lives in an
 * output bar.
 */
static struct ane_net *merge_output_net(float ***inp)
{
	float **in = calloc(1, sizeof(*in));
	float *w = rand_array(3 * 16 * 8, 1.0f, 1);
	struct ane_net *net;
	int x, t, m;

	ane_net_create(&net);
	x = ane_net_input(net, "x", 1, 1, 5, 16);
	t = ane_net_matmul(net, x, ane_net_const(net, "w", 1, 3, 16, 8, w), 0, 0);
	m = ane_net_merge_heads(net, t);			/* [1, 1, 5, 24] */
	ane_net_output(net, m);
	ane_net_output(net, ane_net_matmul(net, ane_net_view(net, m, 8, 16, 1),
					   ane_net_view(net, m, 0, 16, 1),
					   ANE_NET_TRANSPOSE_B, 0));
	in[0] = rand_array(5 * 16, 1.0f, 1);
	free(w);
	*inp = in;
	return net;
}

/* A column block of each of an input's planes, read in place as A and B. */
static struct ane_net *input_view_net(float ***inp)
{
	float **in = calloc(1, sizeof(*in));
	struct ane_net *net;
	int x, a, b;

	ane_net_create(&net);
	x = ane_net_input(net, "x", 1, 3, 5, 40);
	a = ane_net_view(net, x, 8, 16, 1);		/* [1, 3, 5, 16] */
	b = ane_net_view(net, x, 24, 16, 1);
	ane_net_output(net, ane_net_matmul(net, a, b, ANE_NET_TRANSPOSE_B, 0));
	in[0] = rand_array(3 * 5 * 40, 1.0f, 1);
	*inp = in;
	return net;
}

static void free_net(struct ane_net *net, float **in)
{
	unsigned int i, n = ane_net_num_inputs(net);

	for (i = 0; i < n; i++)
		free(in[i]);
	free(in);
	ane_net_destroy(net);
}

static void test_exact_mlp_is_bit_exact(void)
{
	float **in;
	struct ane_net *net = mlp_net(&in, 1);

	check_net(net, in, 0, 1);
	check_net(net, in, 1, 1);	/* one unit per chunk */
	free_net(net, in);
}

static void test_mlp_within_tolerance(void)
{
	float **in;
	struct ane_net *net = mlp_net(&in, 0);

	check_net(net, in, 0, 0);
	check_net(net, in, 7, 0);
	free_net(net, in);
}

static void test_conv_net_within_tolerance(void)
{
	float **in;
	struct ane_net *net = conv_net(&in);

	check_net(net, in, 0, 0);
	check_net(net, in, 3, 0);
	free_net(net, in);
}

static void test_attention_net_within_tolerance(void)
{
	float **in;
	struct ane_net *net = attention_net(&in);

	T_EQ(ane_net_num_ops(net), 12);
	check_net(net, in, 0, 0);
	check_net(net, in, 1, 0);
	free_net(net, in);
}

static void test_strided_operands(void)
{
	float **in;
	struct ane_net *net = qkv_view_net(&in, 1);

	check_net(net, in, 0, 1);	/* integers: bit for bit */
	check_net(net, in, 1, 1);
	free_net(net, in);
	net = qkv_view_net(&in, 0);
	/* the bias is fused: QKV, scores, softmax, weighted sum, Wo */
	T_EQ(ane_net_num_ops(net), 6);
	check_net(net, in, 0, 0);
	check_net(net, in, 5, 0);
	free_net(net, in);
	net = input_view_net(&in);
	check_net(net, in, 0, 1);
	check_net(net, in, 1, 1);
	free_net(net, in);
	net = merge_output_net(&in);
	check_net(net, in, 0, 1);
	check_net(net, in, 1, 1);
	free_net(net, in);
}

/* The builder's messages for a normalization it cannot build. */
static void test_norm_builder_refuses(void)
{
	struct ane_net *net;
	int x;

	ane_net_create(&net);
	x = ane_net_input(net, "x", 1, 1, 2, 70000);
	T_EQ(ane_net_norm(net, x, ANE_NET_NORM_LAYER), -EINVAL);
	T_CHECK(strstr(ane_net_errmsg(net), "at most 65536 elements of W") != NULL,
		"message '%s'", ane_net_errmsg(net));
	ane_net_destroy(net);
	ane_net_create(&net);
	x = ane_net_input(net, "x", 1, 1, 2, 7);
	T_EQ(ane_net_norm(net, x, (enum ane_net_norm_kind)3), -EINVAL);
	T_CHECK(strstr(ane_net_errmsg(net), "kind 3 is unknown") != NULL,
		"message '%s'", ane_net_errmsg(net));
	ane_net_destroy(net);
}

/* Chunking never changes a result: tiny chunks equal one big chunk. */
static void test_chunking_is_bit_identical(void)
{
	struct ane_netrun *r1 = NULL, *r2 = NULL;
	float **in;
	struct ane_net *net = conv_net(&in);
	const void *img;
	char err[256];
	size_t size, b1, b2, i;
	uint16_t *o1, *o2;

	T_EQ(ane_net_build(net, &img, &size), 0);
	T_EQ(ane_netrun_load(img, size, 1, &r1, err, sizeof(err)), 0);
	T_EQ(ane_netrun_load(img, size, 1ull << 40, &r2, err, sizeof(err)), 0);
	if (r1 && r2) {
		T_CHECK(ane_netrun_chunks(r1) > ane_netrun_chunks(r2), "%llu vs %llu chunks",
			(unsigned long long)ane_netrun_chunks(r1),
			(unsigned long long)ane_netrun_chunks(r2));
		T_EQ(ane_netrun_tasks(r1), ane_net_num_ops(net));
		for (i = 0; i < 2; i++) {
			uint16_t *p1 = ane_netrun_input(r1, i, &b1);
			uint16_t *p2 = ane_netrun_input(r2, i, &b2);

			ane_fp16_from_float_array(p1, in[i], b1 / 2);
			ane_fp16_from_float_array(p2, in[i], b2 / 2);
		}
		T_EQ(ane_netrun_run(r1), 0);
		T_EQ(ane_netrun_run(r2), 0);
		o1 = ane_netrun_output(r1, 0, &b1);
		o2 = ane_netrun_output(r2, 0, &b2);
		T_EQ(b1, b2);
		T_CHECK(!memcmp(o1, o2, b1), "outputs differ");
	}
	ane_netrun_free(r1);
	ane_netrun_free(r2);
	free_net(net, in);
}

/* The kernel's validation runs first: a broken image loads nothing. */
static void test_broken_image_is_refused(void)
{
	struct ane_netrun *r = (void *)1;
	float **in;
	struct ane_net *net = mlp_net(&in, 1);
	const void *img;
	char err[256] = "";
	struct ane_img_td *td;
	uint8_t *copy;
	size_t size;

	T_EQ(ane_net_build(net, &img, &size), 0);
	copy = malloc(size);
	memcpy(copy, img, size);
	copy[0] ^= 1;		/* the magic */
	T_EQ(ane_netrun_load(copy, size, 0, &r, err, sizeof(err)), -EINVAL);
	T_CHECK(r == NULL, "no runner on failure");
	T_CHECK(strstr(err, "image refused: ") == err, "message '%s'", err);
	copy[0] ^= 1;
	r = (void *)1;
	T_EQ(ane_netrun_load(copy, size - 16, 0, &r, err, sizeof(err)), -EINVAL);
	T_CHECK(r == NULL, "no runner for a short image");
	r = NULL;
	T_EQ(ane_netrun_load(copy, size, 0, &r, err, sizeof(err)), 0);
	/* the bias ADDs are folded into the MATMULs: 2 tasks for 4 operations */
	T_EQ(ane_net_num_ops(net), 4);
	T_EQ(r ? ane_netrun_tasks(r) : 0, 2);
	ane_netrun_free(r);
	/* a MATMUL bias that does not broadcast onto the product is refused */
	td = (struct ane_img_td *)(copy + ((struct ane_img_header *)copy)->tds_offset);
	T_EQ(td[0].words[ANE_TD_OP], ANE_OP_MATMUL);
	T_EQ(td[0].words[ANE_TD_BIAS_DIMS + 3], 70);
	td[0].words[ANE_TD_BIAS_DIMS + 3] = 35;
	r = (void *)1;
	T_EQ(ane_netrun_load(copy, size, 0, &r, err, sizeof(err)), -EINVAL);
	T_CHECK(r == NULL, "no runner for a bad bias");
	T_CHECK(strstr(err, "td[0] (operation)") != NULL, "message '%s'", err);
	free(copy);
	free_net(net, in);
}

int main(void)
{
	uint32_t isa;

	T_RUN(test_broken_image_is_refused);
	T_RUN(test_norm_builder_refuses);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		/* a path this CPU lacks: its cases SKIP */
		t_skip_why = t_isa_missing(isa);
		if (!t_skip_why)
			T_EQ(ane_math_set_isa(isa), 0);
		printf("# isa %s%s%s\n", t_isa_name[isa], t_skip_why ? ": skipped, " : "",
		       t_skip_why ? t_skip_why : "");
		T_RUN(test_exact_mlp_is_bit_exact);
		T_RUN(test_mlp_within_tolerance);
		T_RUN(test_conv_net_within_tolerance);
		T_RUN(test_attention_net_within_tolerance);
		T_RUN(test_strided_operands);
		T_RUN(test_chunking_is_bit_identical);
	}
	t_skip_why = NULL;
	ane_math_set_isa(ANE_MATH_ISA_SSE2);
	return t_summary("netrun");
}
