// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of libane's data movement (lib/ane_builder_move.c): copies
 * of strided views, transposes, reshapes, empty tensors and fills,
 * concatenation, slices and every padding mode, built into images that
 * the kernel's validator (driver/ane_image.c) accepts, run on the host
 * engine (tools/engine-host/ane_netrun.c, the firmware's decoding) and compared bit
 * for bit with ane_net_reference() and with what each call means,
 * computed here index by index; and each call's refusals, with the
 * message naming the call, the op and the field.
 *
 * Copyright (C) 2026 The ane authors
 */

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

/* Distinct small integers (exact in fp16): 0, 1, 2, ... */
static float *iota(size_t n)
{
	float *a = malloc(n * sizeof(float));
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = (float)(i % 2000) - 1000.0f;
	return a;
}

/*
 * Build @net, check the image with the kernel's validator, run it on the
 * engine with @chunk_work and compare every output with the reference
 * and (@want[j], if not NULL) with what the test computed: bit for bit.
 */
static void run_and_compare(struct ane_net *net, float **in, float **want,
			    uint64_t chunk_work)
{
	unsigned int nin = ane_net_num_inputs(net), nout = ane_net_num_outputs(net);
	char field[ANE_IMG_FIELD_LEN], err[256] = "";
	float *ref[16] = { NULL };
	struct ane_netrun *r = NULL;
	unsigned int i, o;
	const void *img;
	size_t size, k, bytes, bad;
	int ret;

	ret = ane_net_build(net, &img, &size);
	T_CHECK(ret == 0, "build: %s", ane_net_errmsg(net));
	if (ret)
		return;
	ret = ane_image_validate(img, size, field);
	T_CHECK(ret == 0, "the validator refuses the image: %s", field);
	for (o = 0; o < nout; o++)
		ref[o] = malloc(elems(net, ane_net_output_tensor(net, o)) * sizeof(float));
	ret = ane_net_reference(net, (const float *const *)in, ref);
	T_CHECK(ret == 0, "reference: %s", ane_net_errmsg(net));
	ret = ane_netrun_load(img, size, chunk_work, &r, err, sizeof(err));
	T_CHECK(ret == 0, "load: %s", err);
	if (ret)
		goto out;
	for (i = 0; i < nin; i++)
		ane_fp16_from_float_array(ane_netrun_input(r, i, &bytes), in[i],
					  elems(net, ane_net_input_tensor(net, i)));
	T_EQ(ane_netrun_run(r), 0);
	for (o = 0; o < nout; o++) {
		uint16_t *y = ane_netrun_output(r, o, &bytes);
		size_t n = elems(net, ane_net_output_tensor(net, o));

		T_EQ(bytes, n * 2);
		for (k = 0, bad = 0; k < n; k++) {
			float got = ane_float_from_fp16(y[k]);

			if ((got != ref[o][k] || (want && want[o] && got != want[o][k])) &&
			    bad++ < 4)
				printf("#   output %u [%zu]: engine %g, reference %g, want %g\n",
				       o, k, got, ref[o][k], want && want[o] ? want[o][k] : 0.0);
		}
		T_CHECK(!bad, "output %u: %zu elements differ", o, bad);
	}
out:
	ane_netrun_free(r);
	for (o = 0; o < nout; o++)
		free(ref[o]);
}

/* x[n][c][h][w] of a dense [N, C, H, W] array. */
#define AT(a, d, n, c, h, w) \
	((a)[(((size_t)(n) * (d)[1] + (c)) * (d)[2] + (h)) * (d)[3] + (w)])

static void test_transpose_every_permutation(void)
{
	static const uint32_t d[4] = { 2, 3, 4, 5 };
	float *x = iota(120), *want = malloc(120 * sizeof(float));
	uint32_t p[4], i[4], yd[4];
	unsigned int count = 0;

	for (p[0] = 0; p[0] < 4; p[0]++)
	for (p[1] = 0; p[1] < 4; p[1]++)
	for (p[2] = 0; p[2] < 4; p[2]++)
	for (p[3] = 0; p[3] < 4; p[3]++) {
		struct ane_net *net;
		uint32_t j[4], k;
		int t;

		if (p[0] == p[1] || p[0] == p[2] || p[0] == p[3] || p[1] == p[2] ||
		    p[1] == p[3] || p[2] == p[3])
			continue;
		net = new_net();
		t = ane_net_input(net, "x", d[0], d[1], d[2], d[3]);
		t = ane_net_transpose(net, t, p);
		T_CHECK(t >= 0, "%s", ane_net_errmsg(net));
		ane_net_output(net, t);
		for (k = 0; k < 4; k++)
			yd[k] = d[p[k]];
		for (i[0] = 0; i[0] < yd[0]; i[0]++)
		for (i[1] = 0; i[1] < yd[1]; i[1]++)
		for (i[2] = 0; i[2] < yd[2]; i[2]++)
		for (i[3] = 0; i[3] < yd[3]; i[3]++) {
			for (k = 0; k < 4; k++)
				j[p[k]] = i[k];
			AT(want, yd, i[0], i[1], i[2], i[3]) = AT(x, d, j[0], j[1], j[2], j[3]);
		}
		run_and_compare(net, &x, &want, count % 2 ? 7 : 0);
		ane_net_destroy(net);
		count++;
	}
	T_EQ(count, 24);
	free(x);
	free(want);
}

/* ONNX Slice with steps, negative ones included; a reversed copy. */
static void test_slice_with_steps(void)
{
	static const uint32_t d[4] = { 2, 4, 6, 9 };
	const int64_t start[4] = { 1, 3, 0, 8 }, step[4] = { 1, -1, 2, -3 };
	const uint32_t yd[4] = { 1, 4, 3, 3 };
	float *x = iota(2 * 4 * 6 * 9), *want = malloc(36 * sizeof(float));
	struct ane_net *net = new_net();
	uint32_t n, c, h, w;
	int t;

	t = ane_net_input(net, "x", d[0], d[1], d[2], d[3]);
	t = ane_net_slice(net, t, start, step, yd);
	T_CHECK(t >= 0, "%s", ane_net_errmsg(net));
	ane_net_output(net, t);
	for (n = 0; n < yd[0]; n++)
		for (c = 0; c < yd[1]; c++)
			for (h = 0; h < yd[2]; h++)
				for (w = 0; w < yd[3]; w++)
					AT(want, yd, n, c, h, w) =
						AT(x, d, 1 + n, 3 - c, 2 * h, 8 - 3 * w);
	run_and_compare(net, &x, &want, 0);
	ane_net_destroy(net);
	free(x);
	free(want);
}

/* Concatenation along each axis: one buffer, a copy into it per input. */
static void test_concat_along_every_axis(void)
{
	unsigned int axis;

	for (axis = 0; axis < 4; axis++) {
		uint32_t da[4] = { 2, 3, 4, 5 }, db[4] = { 2, 3, 4, 5 }, yd[4], k;
		struct ane_net *net = new_net();
		float *in[2], *want;
		uint32_t i[4];
		int a, b, y, xs[3];

		db[axis] = 2;
		memcpy(yd, da, sizeof(yd));
		yd[axis] = da[axis] * 2 + db[axis];
		in[0] = iota(120);
		in[1] = malloc(120 / da[axis] * db[axis] * sizeof(float));
		for (k = 0; k < 120 / da[axis] * db[axis]; k++)
			in[1][k] = 1000.0f + (float)k;
		a = ane_net_input(net, "a", da[0], da[1], da[2], da[3]);
		b = ane_net_input(net, "b", db[0], db[1], db[2], db[3]);
		xs[0] = a;
		xs[1] = b;
		xs[2] = a;
		y = ane_net_concat(net, xs, 3, axis);
		T_CHECK(y >= 0, "%s", ane_net_errmsg(net));
		T_EQ(ane_net_num_ops(net), 3);
		ane_net_output(net, y);
		want = malloc((size_t)yd[0] * yd[1] * yd[2] * yd[3] * sizeof(float));
		for (i[0] = 0; i[0] < yd[0]; i[0]++)
		for (i[1] = 0; i[1] < yd[1]; i[1]++)
		for (i[2] = 0; i[2] < yd[2]; i[2]++)
		for (i[3] = 0; i[3] < yd[3]; i[3]++) {
			uint32_t j[4], at = i[axis];
			const float *src = in[0];
			const uint32_t *sd = da;

			memcpy(j, i, sizeof(j));
			if (at >= da[axis] && at < da[axis] + db[axis]) {
				src = in[1];
				sd = db;
				j[axis] = at - da[axis];
			} else if (at >= da[axis] + db[axis]) {
				j[axis] = at - da[axis] - db[axis];
			}
			AT(want, yd, i[0], i[1], i[2], i[3]) = AT(src, sd, j[0], j[1], j[2], j[3]);
		}
		run_and_compare(net, in, &want, 0);
		ane_net_destroy(net);
		free(in[0]);
		free(in[1]);
		free(want);
	}
}

/* What ONNX Pad gives at index @i of a padded axis (before @b, extent @X). */
static int64_t pad_src(int64_t i, int64_t b, int64_t X, enum ane_net_pad_mode m)
{
	int64_t j = i - b;

	if (j >= 0 && j < X)
		return j;
	switch (m) {
	case ANE_NET_PAD_EDGE:
		return j < 0 ? 0 : X - 1;
	case ANE_NET_PAD_REFLECT:
		return j < 0 ? -j : 2 * (X - 1) - j;
	case ANE_NET_PAD_WRAP:
		return j < 0 ? j + X : j - X;
	default:
		return -1;	/* the constant */
	}
}

static void test_pad_every_mode(void)
{
	static const uint32_t d[4] = { 1, 3, 4, 5 };
	static const uint32_t pads[8] = { 0, 1, 2, 3, 0, 2, 3, 1 };
	enum ane_net_pad_mode m;

	for (m = ANE_NET_PAD_CONSTANT; m <= ANE_NET_PAD_WRAP; m++) {
		struct ane_net *net = new_net();
		float *x = iota(60), *want;
		uint32_t yd[4], i[4], k;
		int t;

		t = ane_net_input(net, "x", d[0], d[1], d[2], d[3]);
		t = ane_net_pad(net, t, pads, m, -7.5f);
		T_CHECK(t >= 0, "mode %u: %s", m, ane_net_errmsg(net));
		ane_net_output(net, t);
		for (k = 0; k < 4; k++)
			yd[k] = d[k] + pads[k] + pads[4 + k];
		want = malloc((size_t)yd[0] * yd[1] * yd[2] * yd[3] * sizeof(float));
		for (i[0] = 0; i[0] < yd[0]; i[0]++)
		for (i[1] = 0; i[1] < yd[1]; i[1]++)
		for (i[2] = 0; i[2] < yd[2]; i[2]++)
		for (i[3] = 0; i[3] < yd[3]; i[3]++) {
			int64_t j[4];
			int out = 0;

			for (k = 0; k < 4; k++) {
				j[k] = pad_src(i[k], pads[k], d[k], m);
				out |= j[k] < 0;
			}
			AT(want, yd, i[0], i[1], i[2], i[3]) =
				out ? -7.5f : AT(x, d, j[0], j[1], j[2], j[3]);
		}
		/* constant: fill + copy; the others one copy per region */
		T_EQ(ane_net_num_ops(net), m == ANE_NET_PAD_CONSTANT ? 2 : 3 * 3 * 3);
		run_and_compare(net, &x, &want, m % 2 ? 5 : 0);
		ane_net_destroy(net);
		free(x);
		free(want);
	}
}

/*
 * Reshapes read in place by every kind of operation, a reshape of a
 * reshape, of a column view (copied first), and one as an output.
 */
static void test_reshape_is_a_view_every_operation_reads(void)
{
	static const float w[6] = { 1, -1, 2, 0.5f, 0, 3 };
	struct ane_net *net = new_net();
	float *x = iota(24), *want[2];
	int t, r, r2, c, y, k, v;
	unsigned int i, ops;

	t = ane_net_input(net, "x", 1, 1, 4, 6);
	r = ane_net_reshape(net, t, 1, 2, 3, 4);		/* of an input */
	T_CHECK(r >= 0, "%s", ane_net_errmsg(net));
	r2 = ane_net_reshape(net, r, 2, 3, 1, 4);		/* of a reshape */
	ops = ane_net_num_ops(net);
	T_EQ(ops, 0);						/* no task */
	c = ane_net_const(net, "w", 1, 3, 1, 1, w);
	y = ane_net_eltwise(net, ANE_NET_MUL, r2, c, ANE_NET_ACT_NONE);
	y = ane_net_activation(net, ane_net_reshape(net, y, 1, 1, 1, 24),
			       ANE_NET_ACT_RELU);
	/* a reshape of a result as an output */
	ane_net_output(net, ane_net_reshape(net, y, 4, 1, 3, 2));
	/* a column view of a matmul's result, reshaped: copied first */
	k = ane_net_matmul(net, t, ane_net_const(net, "eye", 1, 1, 6, 16,
					(float[96]){ [8] = 1, [25] = 1, [42] = 1, [59] = 1,
						     [76] = 1, [93] = 1 }), 0, 0);
	v = ane_net_view(net, k, 8, 8, 1);			/* [1, 1, 4, 8] */
	v = ane_net_reshape(net, v, 1, 4, 2, 4);
	T_CHECK(v >= 0, "%s", ane_net_errmsg(net));
	ane_net_output(net, ane_net_activation(net, v, ANE_NET_ACT_NONE));
	want[0] = malloc(24 * sizeof(float));
	want[1] = malloc(32 * sizeof(float));
	for (i = 0; i < 24; i++) {
		float p = x[i] * w[i / 4 % 3];

		want[0][i] = p < 0 ? 0 : p;
	}
	for (i = 0; i < 32; i++)	/* x [4, 6] in columns 8..13, zeros after */
		want[1][i] = i % 8 < 6 ? x[i / 8 * 6 + i % 8] : 0;
	run_and_compare(net, &x, want, 0);
	ane_net_destroy(net);
	free(x);
	free(want[0]);
	free(want[1]);
}

/*
 * Copies into a region of an existing result and into an empty tensor,
 * a fill, a nearest upsample by 2 with stride-0 broadcasts, and the
 * zero-insertion of a transposed convolution's input.
 */
static void test_copy_into_regions_fill_and_upsample(void)
{
	struct ane_net *net = new_net();
	float *x = iota(12), *want[3];
	struct ane_net_view_desc sv, dv;
	int t, y, z, u, dy;
	unsigned int i, h, w;

	t = ane_net_input(net, "x", 1, 1, 3, 4);
	/* y = relu(x), then its row 2 overwritten by x's row 0 reversed */
	y = ane_net_activation(net, t, ANE_NET_ACT_RELU);
	sv = (struct ane_net_view_desc){ { 1, 1, 1, 4 }, { 0, 0, 0, -1 }, 3 };
	dv = (struct ane_net_view_desc){ { 1, 1, 1, 4 }, { 0, 0, 0, 1 }, 8 };
	T_EQ(ane_net_copy(net, t, &sv, y, &dv), y);
	ane_net_output(net, y);
	/* nearest upsample x2: for each output row parity a copy, W doubled by a 0 stride */
	u = ane_net_empty(net, "up", 1, 1, 6, 8);
	for (dy = 0; dy < 2; dy++) {
		sv = (struct ane_net_view_desc){ { 1, 3, 4, 2 }, { 0, 4, 1, 0 }, 0 };
		dv = (struct ane_net_view_desc){ { 1, 3, 4, 2 }, { 0, 16, 2, 1 }, dy * 8 };
		T_EQ(ane_net_copy(net, t, &sv, u, &dv), u);
	}
	ane_net_output(net, u);
	/* zero-insertion: fill 0, x into every other row and column */
	z = ane_net_empty(net, "z", 1, 1, 5, 7);
	T_EQ(ane_net_fill(net, z, NULL, 0.0f), z);
	dv = (struct ane_net_view_desc){ { 1, 1, 3, 4 }, { 0, 0, 14, 2 }, 0 };
	T_EQ(ane_net_copy(net, t, NULL, z, &dv), z);
	ane_net_output(net, z);
	for (i = 0; i < 3; i++)
		want[i] = calloc(48, sizeof(float));
	for (i = 0; i < 12; i++)
		want[0][i] = i >= 8 ? x[3 - (i - 8)] : x[i] < 0 ? 0 : x[i];
	for (h = 0; h < 6; h++)
		for (w = 0; w < 8; w++)
			want[1][h * 8 + w] = x[h / 2 * 4 + w / 2];
	for (h = 0; h < 3; h++)
		for (w = 0; w < 4; w++)
			want[2][2 * h * 7 + 2 * w] = x[h * 4 + w];
	run_and_compare(net, &x, want, 0);
	ane_net_destroy(net);
	free(x);
	for (i = 0; i < 3; i++)
		free(want[i]);
}

/* The image: a transpose's stride and offset words and its bindings. */
static void test_copy_task_descriptor_words(void)
{
	static const uint32_t perm[4] = { 0, 3, 1, 2 };
	struct ane_net *net = new_net();
	const struct ane_img_header *h;
	const struct ane_img_td *td;
	const struct ane_img_rw *rw;
	const uint32_t *w;
	const void *img;
	size_t size;
	int t;

	t = ane_net_input(net, "x", 1, 3, 4, 5);
	/* a slice that walks W backwards from element 59 */
	t = ane_net_slice(net, t, (const int64_t[4]){ 0, 2, 3, 4 },
			  (const int64_t[4]){ 1, -1, -1, -1 }, (const uint32_t[4]){ 1, 3, 4, 5 });
	ane_net_output(net, ane_net_transpose(net, t, perm));
	T_EQ(ane_net_build(net, &img, &size), 0);
	h = img;
	td = (const void *)((const uint8_t *)img + h->tds_offset);
	rw = (const void *)((const uint8_t *)img + h->rws_offset);
	T_EQ(h->version_minor, ANE_IMG_VERSION_MINOR);	/* 3 or later */
	w = td[0].words;
	T_EQ(w[ANE_TD_OP], 8);
	T_EQ((int32_t)w[ANE_TD_COPY_SRC_STRIDE + 1], -20);
	T_EQ((int32_t)w[ANE_TD_COPY_SRC_STRIDE + 2], -5);
	T_EQ((int32_t)w[ANE_TD_COPY_SRC_STRIDE + 3], -1);
	/* bound from element 0 (the least), the view's first element 59 */
	T_EQ(rw[0].offset_lo, 0);
	T_EQ(rw[0].length_lo, 120);
	T_EQ(w[ANE_TD_COPY_SRC_OFFSET], 59);
	T_EQ(w[ANE_TD_COPY_DST_STRIDE + 3], 1);
	T_EQ(w[ANE_TD_COPY_DST_OFFSET], 0);
	w = td[1].words;
	/* the transpose: [1, 5, 3, 4] reading C, H, W strides 20, 5, 1 */
	T_EQ(w[ANE_TD_DST_DIMS + 1], 5);
	T_EQ(w[ANE_TD_COPY_SRC_STRIDE + 1], 1);
	T_EQ(w[ANE_TD_COPY_SRC_STRIDE + 2], 20);
	T_EQ(w[ANE_TD_COPY_SRC_STRIDE + 3], 5);
	T_EQ(w[ANE_TD_SUBOP] | w[ANE_TD_FLAGS] | w[14] | w[ANE_TD_ACT], 0);
	T_EQ(w[ANE_TD_SRC0_LAYOUT] | w[ANE_TD_DST_LAYOUT], 0);
	ane_net_destroy(net);
}

/*
 * The kernel's validator (driver/ane_image.c, built here through the
 * kshim) on a copy's words: one broken field at a time of a built
 * image, each refused naming it.
 */
static void test_broken_copy_images_are_refused(void)
{
	struct ane_net *net = new_net();
	struct ane_img_header *h;
	struct ane_img_td *td;
	struct ane_img_rw *rw;
	char field[ANE_IMG_FIELD_LEN];
	const void *img;
	uint8_t *copy;
	size_t size;
	int t;

	t = ane_net_input(net, "x", 1, 2, 3, 8);
	t = ane_net_activation(net, t, ANE_NET_ACT_RELU);
	/* td 1: W reversed, into a new tensor; td 2: a copy into the output */
	t = ane_net_slice(net, t, (const int64_t[4]){ 0, 0, 0, 7 },
			  (const int64_t[4]){ 1, 1, 1, -1 }, (const uint32_t[4]){ 1, 2, 3, 8 });
	ane_net_output(net, ane_net_copy(net, t, NULL, -1, NULL));
	T_EQ(ane_net_build(net, &img, &size), 0);
	T_EQ(ane_image_validate(img, size, field), 0);
	copy = malloc(size);

#define BREAK(stmt, expect) do { \
	memcpy(copy, img, size); \
	h = (struct ane_img_header *)copy; \
	rw = (struct ane_img_rw *)(copy + h->rws_offset); \
	td = (struct ane_img_td *)(copy + h->tds_offset); \
	(void)rw; \
	stmt; \
	T_EQ(ane_image_validate(copy, size, field), -EINVAL); \
	T_CHECK(!strcmp(field, expect), "field %s, expected %s", field, expect); \
} while (0)

	T_EQ(((const struct ane_img_td *)((const uint8_t *)img +
		((const struct ane_img_header *)img)->tds_offset))[1].words[ANE_TD_OP], 8);
	BREAK(td[1].words[ANE_TD_COPY_DST_STRIDE + 1] = (uint32_t)-24, "td[1].words[10]");
	BREAK(td[1].words[14] = 1, "td[1].words[14]");
	BREAK(td[1].words[ANE_TD_FLAGS] = 1, "td[1].words[3]");
	BREAK(td[1].words[ANE_TD_COPY_SRC_OFFSET] = 6, "td[1] (operand 0 reaches element -1 before its binding)");
	BREAK(td[1].words[ANE_TD_COPY_SRC_OFFSET] = 8, "rw[2].length (operand reaches 98 bytes)");
	BREAK(td[1].words[ANE_TD_COPY_DST_OFFSET] = 1, "rw[3].length (operand reaches 98 bytes)");
	BREAK(td[1].words[ANE_TD_COPY_DST_STRIDE + 2] = 4, "td[1] (operation)");	/* overlaps */
	BREAK(td[1].words[ANE_TD_SRC0_DIMS + 3] = 4, "td[1] (operation)");	/* extents differ */
	BREAK(td[1].words[ANE_TD_ACT] = ANE_NET_ACT_RELU, "td[1] (operation)");
	BREAK(td[1].words[ANE_TD_DST_LAYOUT] = 8, "td[1].dst_layout");
	BREAK(td[1].words[ANE_TD_SRC0_DIMS] = 1u << 25; td[1].words[ANE_TD_DST_DIMS] = 1u << 25,
	      "td[1] (operand 0's view is out of range)");
	/* the destination read-only: the copy into the input's bar */
	BREAK(rw[3].bar = 0, "rw[3].bar (destination is read-only)");
#undef BREAK
	free(copy);
	ane_net_destroy(net);
}

/* Each call's refusals name the call, the op and what is wrong. */
static void test_refusals_name_the_field(void)
{
	struct ane_net *net = new_net();
	struct ane_net_view_desc v = { { 1, 1, 2, 3 }, { 0, 0, 3, 1 }, 0 };
	const uint32_t bad_perm[4] = { 0, 1, 1, 2 }, perm[4] = { 0, 1, 3, 2 };
	int x, c, y, e, q;

	x = ane_net_input(net, "x", 1, 1, 2, 3);
	c = ane_net_const(net, "c", 1, 1, 2, 3, (float[6]){ 0 });
	v.stride[3] = -1;
	T_EQ(ane_net_copy(net, x, &v, -1, NULL), -EINVAL);
	T_MSG(net, "ane_net_copy: op 0: source view: it reaches element -2 of 'x' (1x1x2x3, elements 0..5)");
	v.stride[3] = 1;
	v.offset = 1;
	T_EQ(ane_net_copy(net, x, &v, -1, NULL), -EINVAL);
	T_MSG(net, "reaches element 6 of 'x'");
	v.offset = 6;
	T_EQ(ane_net_copy(net, x, &v, -1, NULL), -EINVAL);
	T_MSG(net, "offset 6 is not an element of 'x'");
	v.offset = 0;
	v.stride[2] = 1ll << 31;
	T_EQ(ane_net_copy(net, x, &v, -1, NULL), -EINVAL);
	T_MSG(net, "stride[2] (H) is 2147483648; a stride is below 2^31");
	v.stride[2] = 3;
	v.dim[0] = 0;
	T_EQ(ane_net_copy(net, x, &v, -1, NULL), -EINVAL);
	T_MSG(net, "dim[0] (N) is 0");
	v.dim[0] = 1;
	T_EQ(ane_net_copy(net, x, &v, -1, &v), -EINVAL);
	T_MSG(net, "dst is -1 (a new dense tensor) but a dst_view is given");
	T_EQ(ane_net_copy(net, x, NULL, x, NULL), -EINVAL);
	T_MSG(net, "dst 'x' is an input, which the program never writes");
	T_EQ(ane_net_copy(net, x, NULL, c, NULL), -EINVAL);
	T_MSG(net, "dst 'c' is a constant");
	y = ane_net_activation(net, x, 0);
	e = ane_net_empty(net, "e", 1, 1, 4, 3);
	T_EQ(ane_net_copy(net, x, NULL, e, NULL), -EINVAL);
	T_MSG(net, "the source view is 1x1x2x3 but dst 'e' is 1x1x4x3");
	v.stride[3] = -1;
	T_EQ(ane_net_copy(net, x, NULL, e, &v), -EINVAL);
	T_MSG(net, "ane_net_copy: op 1: dst view: stride[3] (W) is -1; a destination's strides are not negative");
	v.stride[3] = 1;
	v.stride[2] = 2;
	T_EQ(ane_net_copy(net, x, NULL, e, &v), -EINVAL);
	T_MSG(net, "dst view: two of its elements are one element of 'e'");
	v.stride[2] = 3;
	v.dim[2] = 1;
	T_EQ(ane_net_copy(net, x, NULL, e, &v), -EINVAL);
	T_MSG(net, "the views differ in shape: the source's is 1x1x2x3, the destination's 1x1x1x3");
	v.dim[2] = 2;
	/* a copy within one tensor: disjoint ranges only */
	T_EQ(ane_net_copy(net, y, NULL, y, NULL), -EINVAL);
	T_MSG(net, "the source and destination views share elements 0..5 of 'op0'");
	q = ane_net_empty(net, "q", 1, 1, 4, 3);
	T_EQ(ane_net_copy(net, x, NULL, q, &v), q);
	v.offset = 6;
	T_EQ(ane_net_copy(net, q, &(struct ane_net_view_desc){ { 1, 1, 2, 3 }, { 0, 0, 3, 1 }, 0 },
			  q, &v), q);
	T_EQ(ane_net_transpose(net, x, bad_perm), -EINVAL);
	T_MSG(net, "ane_net_transpose: op 3: perm {0, 1, 1, 2} is not a permutation of 0..3");
	T_EQ(ane_net_reshape(net, x, 1, 1, 1, 5), -EINVAL);
	T_MSG(net, "ane_net_reshape: 'x' is 1x1x2x3, 6 elements; 1x1x1x5 has 5");
	T_EQ(ane_net_fill(net, e, NULL, 1e6f), -EINVAL);
	T_MSG(net, "ane_net_fill: op 3: value 1e+06 overflows fp16");
	T_EQ(ane_net_concat(net, (const int[2]){ x, e }, 2, 3), -EINVAL);
	T_MSG(net, "ane_net_concat: op 3: xs[1] 'e' is 1x1x4x3 but xs[0] 'x' is 1x1x2x3: only dimension W may differ");
	T_EQ(ane_net_concat(net, (const int[2]){ x, e }, 2, 4), -EINVAL);
	T_MSG(net, "axis 4 is not one of 0..3");
	T_EQ(ane_net_slice(net, x, (const int64_t[4]){ 0, 0, 1, 2 }, (const int64_t[4]){ 1, 1, -1, 1 },
			   (const uint32_t[4]){ 1, 1, 2, 2 }), -EINVAL);
	T_MSG(net, "ane_net_slice: op 3: along W, indices 2 + i x 1 for i < 2 reach 3, outside 'x' (1x1x2x3)");
	T_EQ(ane_net_pad(net, x, (const uint32_t[8]){ 0, 0, 2, 0, 0, 0, 0, 0 },
			 ANE_NET_PAD_REFLECT, 0), -EINVAL);
	T_MSG(net, "ane_net_pad: op 3: along H, pads 2 and 0: a reflection pads less than the extent, 2");
	T_EQ(ane_net_pad(net, x, (const uint32_t[8]){ 0 }, (enum ane_net_pad_mode)4, 0), -EINVAL);
	T_MSG(net, "mode 4 is unknown");
	T_CHECK(ane_net_transpose(net, x, perm) >= 0, "%s", ane_net_errmsg(net));
	ane_net_destroy(net);

	/* an empty tensor read, or output, before any task writes it */
	net = new_net();
	x = ane_net_input(net, "x", 1, 1, 2, 3);
	e = ane_net_empty(net, "e", 1, 1, 2, 3);
	ane_net_output(net, ane_net_eltwise(net, ANE_NET_ADD, x, e, 0));
	T_EQ(ane_net_build(net, &(const void *){ NULL }, &(size_t){ 0 }), -EINVAL);
	T_MSG(net, "ane_net_build: op 0 reads 'e' (ane_net_empty()) before any operation writes it");
	ane_net_destroy(net);
	net = new_net();
	x = ane_net_input(net, "x", 1, 1, 2, 3);
	ane_net_output(net, ane_net_activation(net, x, 0));
	ane_net_output(net, ane_net_empty(net, "never", 1, 1, 2, 3));
	T_EQ(ane_net_build(net, &(const void *){ NULL }, &(size_t){ 0 }), -EINVAL);
	T_MSG(net, "ane_net_build: output 1, 'never' (ane_net_empty()), is never written");
	ane_net_destroy(net);
	/* a reshape of an output, and of a result that is one */
	net = new_net();
	x = ane_net_input(net, "x", 1, 1, 2, 3);
	y = ane_net_activation(net, x, 0);
	ane_net_output(net, y);
	T_EQ(ane_net_output(net, ane_net_reshape(net, y, 1, 1, 3, 2)), -EINVAL);
	T_MSG(net, "is a reshape of 'op0', which is already output 0");
	T_EQ(ane_net_output(net, ane_net_reshape(net, x, 1, 1, 3, 2)), -EINVAL);
	T_MSG(net, "is a view: the program never writes it");
	ane_net_destroy(net);
}

/* A column view's copy, an elementwise on a view (copied first). */
static void test_views_are_copied_where_needed(void)
{
	struct ane_net *net = new_net();
	float *x = iota(2 * 5 * 24), *want[2];
	int t, v, y;
	unsigned int i;

	t = ane_net_input(net, "x", 1, 2, 5, 24);
	t = ane_net_activation(net, t, ANE_NET_ACT_NONE);
	v = ane_net_view(net, t, 8, 8, 1);			/* [1, 2, 5, 8] */
	ane_net_output(net, ane_net_copy(net, v, NULL, -1, NULL));
	y = ane_net_eltwise(net, ANE_NET_ADD, v, v, ANE_NET_ACT_NONE);
	T_CHECK(y >= 0, "%s", ane_net_errmsg(net));
	ane_net_output(net, y);
	want[0] = malloc(80 * sizeof(float));
	want[1] = malloc(80 * sizeof(float));
	for (i = 0; i < 80; i++) {
		want[0][i] = x[i / 8 * 24 + 8 + i % 8];
		want[1][i] = 2 * want[0][i];
	}
	run_and_compare(net, &x, want, 0);
	ane_net_destroy(net);
	free(x);
	free(want[0]);
	free(want[1]);
}

int main(void)
{
	T_RUN(test_copy_task_descriptor_words);
	T_RUN(test_refusals_name_the_field);
	T_RUN(test_broken_copy_images_are_refused);
	T_RUN(test_transpose_every_permutation);
	T_RUN(test_slice_with_steps);
	T_RUN(test_concat_along_every_axis);
	T_RUN(test_pad_every_mode);
	T_RUN(test_reshape_is_a_view_every_operation_reads);
	T_RUN(test_copy_into_regions_fill_and_upsample);
	T_RUN(test_views_are_copied_where_needed);
	return t_summary("move");
}
