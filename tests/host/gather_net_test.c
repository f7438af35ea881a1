// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of libane's gather and its index inputs
 * (lib/ane_builder_gather.c): ane_net_gather() of tables by index inputs
 * holding negative, out-of-range and fractional values, built into
 * images the kernel's validator (driver/ane_image.c) accepts and run on
 * the host engine through the executor a model uses
 * (tools/engine-host/ane_netrun_exec.c, which converts index inputs to int16 from
 * the image alone), bit for bit against ane_net_reference(); the
 * float-to-index conversion; which inputs the net and the image say are
 * index tensors; the task's words; broken images refused naming the
 * field; and every misuse of an index tensor refused naming it.
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

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
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

/* The same float, or both NaN (the engine's 0x7e00 and the reference's). */
static int same(float a, float b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

/*
 * Build @net, validate its image, run it on the host engine through the
 * model executor with @threads cores and compare every output with the
 * reference, bit for bit; return the number of NaNs in output 0.
 */
static size_t run_and_compare(struct ane_net *net, const float *const *in,
			      unsigned int threads)
{
	char field[ANE_IMG_FIELD_LEN], err[256] = "";
	struct ane_netrun_cache *c = ane_netrun_cache_new(threads);
	unsigned int nout = ane_net_num_outputs(net), j;
	float *ref[4] = { NULL }, *got[4] = { NULL };
	size_t size, k, bad = 0, nans = 0, n;
	const void *img;
	int ret;

	ret = ane_net_build(net, &img, &size);
	T_CHECK(ret == 0, "build: %s", ane_net_errmsg(net));
	if (ret)
		goto out;
	T_CHECK(ane_image_validate(img, size, field) == 0, "validator: %s", field);
	for (j = 0; j < nout; j++) {
		n = elems(net, ane_net_output_tensor(net, j));
		ref[j] = malloc(n * sizeof(float));
		got[j] = malloc(n * sizeof(float));
	}
	ret = ane_net_reference(net, in, ref);
	T_CHECK(ret == 0, "reference: %s", ane_net_errmsg(net));
	ret = ane_netrun_exec(c, 0, img, size, in, got, err, sizeof(err));
	T_CHECK(ret == 0, "engine: %s", err);
	for (j = 0; !ret && j < nout; j++) {
		n = elems(net, ane_net_output_tensor(net, j));
		for (k = 0; k < n; k++) {
			nans += !j && isnan(got[j][k]);
			if (!same(got[j][k], ref[j][k]) && bad++ < 4)
				printf("#   output %u [%zu]: engine %a, reference %a\n", j, k,
				       got[j][k], ref[j][k]);
		}
	}
	T_CHECK(!bad, "%zu elements differ", bad);
out:
	for (j = 0; j < 4; j++) {
		free(ref[j]);
		free(got[j]);
	}
	ane_netrun_cache_free(c);
	return nans;
}

/* Floats to indices: nearest, halfway away from zero, saturated, NaN low. */
static void test_index_conversion(void)
{
	static const float in[] = { 0.0f, -0.0f, 2.4f, 2.5f, -2.5f, -0.4f, 0.49999997f,
				    32767.4f, 32767.5f, 1e6f, -32768.4f, -32768.6f, -1e6f,
				    INFINITY, -INFINITY, NAN, -7.0f };
	static const uint16_t want[] = { 0, 0, 2, 3, 0xfffd, 0, 0, 32767, 32767, 32767,
					 0x8000, 0x8000, 0x8000, 32767, 0x8000, 0x8000,
					 0xfff9 };
	uint16_t out[17];
	unsigned int i;

	ane_index_from_float_array(out, in, 17);
	for (i = 0; i < 17; i++)
		T_CHECK(out[i] == want[i] && ane_index_from_float(in[i]) == want[i],
			"%a -> 0x%04x, want 0x%04x", (double)in[i], out[i], want[i]);
}

/* A hand-made case, and random tables by random indices, on 1 and 3 cores. */
static void test_gather_against_the_reference(void)
{
	static const float table[6] = { 1, 2, 3, 4, -0.0f, 65504 };
	static const float ids[5] = { 2, -1, 5, 0.4f, -3.5f };
	static const float want[10] = { -0.0f, 65504, -0.0f, 65504, NAN, NAN,
					1, 2, NAN, NAN };
	struct ane_net *net = new_net();
	const float *in[2] = { table, ids };
	float out[10], *outs[1] = { out };
	unsigned int it, k;
	int t, i;

	t = ane_net_input(net, "table", 1, 1, 3, 2);
	i = ane_net_input_index(net, "ids", 1, 1, 1, 5);
	ane_net_output(net, ane_net_gather(net, t, i));
	T_EQ(ane_net_reference(net, in, outs), 0);
	for (k = 0; k < 10; k++)
		T_CHECK(same(out[k], want[k]), "[%u] %a, want %a", k, out[k], want[k]);
	T_EQ(run_and_compare(net, in, 1), 4);
	ane_net_destroy(net);

	for (it = 0; it < 40; it++) {
		uint32_t N = 1 + rng() % 2, C = 1 + rng() % 3, H = 1 + rng() % 30;
		uint32_t W = 1 + rng() % 40, K = 1 + rng() % 40;
		float *x = malloc((size_t)N * C * H * W * sizeof(float));
		float *ix = malloc(K * sizeof(float));

		for (k = 0; k < N * C * H * W; k++)
			x[k] = (float)((int)(rng() % 20001) - 10000) / 64.0f;
		for (k = 0; k < K; k++)
			ix[k] = (float)((int)(rng() % (4 * H + 5)) - 2 * (int)H - 2) +
				(rng() % 4 ? 0.0f : 0.25f);
		net = new_net();
		t = ane_net_input(net, NULL, N, C, H, W);
		i = ane_net_input_index(net, NULL, 1, 1, 1, K);
		ane_net_output(net, ane_net_gather(net, t, i));
		in[0] = x;
		in[1] = ix;
		run_and_compare(net, in, it % 2 ? 3 : 1);
		ane_net_destroy(net);
		free(x);
		free(ix);
	}
}

/* An embedding: a constant table, reshaped index input, ops after it. */
static void test_embedding_into_an_operation(void)
{
	enum { V = 300, D = 48, K = 12 };
	struct ane_net *net = new_net();
	float *w = malloc(V * D * sizeof(float)), ix[K], dummy[4] = { 1, 2, 3, 4 };
	const float *in[2] = { ix, dummy };
	int e, t, i, x;
	unsigned int k;

	for (k = 0; k < V * D; k++)
		w[k] = (float)((int)(rng() % 4001) - 2000) / 128.0f;
	for (k = 0; k < K; k++)
		ix[k] = (float)(rng() % V) - (k % 3 ? 0.0f : (float)V);
	ix[5] = 1e6f;		/* saturates to 32767: out of range, NaN */
	i = ane_net_input_index(net, "tokens", 1, 1, 3, 4);
	x = ane_net_input(net, "x", 1, 1, 1, 4);
	t = ane_net_const(net, "embedding", 1, 1, V, D, w);
	e = ane_net_gather(net, t, ane_net_reshape(net, i, 1, 1, 1, K));
	ane_net_output(net, ane_net_activation(net, e, ANE_NET_ACT_RELU));
	ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_NONE));
	T_EQ(ane_net_input_is_index(net, 0), 1);
	T_EQ(ane_net_input_is_index(net, 1), 0);
	T_EQ(ane_net_input_is_index(net, 2), -EINVAL);
	T_EQ(run_and_compare(net, in, 1), D);
	{
		const void *img;
		size_t size;

		T_EQ(ane_net_build(net, &img, &size), 0);
		T_EQ(ane_image_input_is_index(img, size, 0), 1);
		T_EQ(ane_image_input_is_index(img, size, 1), 0);
		T_EQ(ane_image_input_is_index(img, size, 2), -EINVAL);
		T_EQ(ane_image_input_is_index(img, 64, 0), -EINVAL);
		T_EQ(ane_image_input_is_index(NULL, size, 0), -EINVAL);
	}
	ane_net_destroy(net);
	free(w);
}

/* The task: op 10, only its dims words, the indices bound as 2 K bytes. */
static void test_task_words_and_bindings(void)
{
	struct ane_net *net = new_net();
	const struct ane_img_header *h;
	const struct ane_img_td *td;
	const struct ane_img_rw *rw;
	const void *img;
	size_t size;
	unsigned int k, found = 0;

	ane_net_input(net, "x", 2, 3, 7, 5);
	ane_net_input_index(net, "i", 1, 1, 1, 9);
	ane_net_output(net, ane_net_gather(net, 0, 1));
	T_EQ(ane_net_build(net, &img, &size), 0);
	h = img;
	td = (const void *)((const uint8_t *)img + h->tds_offset);
	rw = (const void *)((const uint8_t *)img + h->rws_offset);
	T_EQ(h->version_minor, 4);
	T_EQ(td[0].words[ANE_TD_OP], 10);
	for (k = 1; k < ANE_TD_SRC0_DIMS; k++)
		T_EQ(td[0].words[k], 0);
	for (k = 0; k < 4; k++) {
		T_EQ(td[0].words[ANE_TD_SRC0_DIMS + k], ((uint32_t[]){ 2, 3, 7, 5 })[k]);
		T_EQ(td[0].words[ANE_TD_SRC1_DIMS + k], ((uint32_t[]){ 1, 1, 1, 9 })[k]);
		T_EQ(td[0].words[ANE_TD_BIAS_DIMS + k], 0);
		T_EQ(td[0].words[ANE_TD_DST_DIMS + k], ((uint32_t[]){ 2, 3, 9, 5 })[k]);
		T_EQ(td[0].words[ANE_TD_SRC0_LAYOUT + k], 0);
	}
	for (k = 0; k < h->num_rws; k++)
		if (rw[k].reg == ANE_TD_REG_SRC1) {
			T_EQ(rw[k].bar, 1);
			T_EQ(rw[k].length_lo, 18);
			found++;
		}
	T_EQ(found, 1);
	ane_net_destroy(net);
}

/* The kernel's validator on broken gather words and bindings, naming them. */
static void test_broken_images_are_refused(void)
{
	struct ane_net *net = new_net();
	char field[ANE_IMG_FIELD_LEN];
	struct ane_img_header *h;
	struct ane_img_td *td;
	struct ane_img_rw *rw;
	const void *img;
	uint8_t *copy;
	size_t size;
	unsigned int s1 = 0, k;

	ane_net_input(net, "x", 1, 2, 6, 8);
	ane_net_input_index(net, "i", 1, 1, 1, 5);
	ane_net_output(net, ane_net_gather(net, 0, 1));
	T_EQ(ane_net_build(net, &img, &size), 0);
	T_EQ(ane_image_validate(img, size, field), 0);
	copy = malloc(size);
	h = (struct ane_img_header *)img;
	rw = (struct ane_img_rw *)((uint8_t *)img + h->rws_offset);
	for (k = 0; k < h->num_rws; k++)
		if (rw[k].reg == ANE_TD_REG_SRC1)
			s1 = k;

#define BREAK(stmt, expect) do { \
	memcpy(copy, img, size); \
	h = (struct ane_img_header *)copy; \
	td = (struct ane_img_td *)(copy + h->tds_offset); \
	rw = (struct ane_img_rw *)(copy + h->rws_offset); \
	stmt; \
	T_EQ(ane_image_validate(copy, size, field), -EINVAL); \
	T_CHECK(!strcmp(field, expect), "field %s, expected %s", field, expect); \
} while (0)
	BREAK(td[0].words[ANE_TD_SUBOP] = 1, "td[0].words[2]");
	BREAK(td[0].words[ANE_TD_FLAGS] = 1, "td[0].words[3]");
	BREAK(td[0].words[4] = 1, "td[0].words[4]");
	BREAK(td[0].words[14] = 1, "td[0].words[14]");
	BREAK(td[0].words[ANE_TD_ACT] = 1, "td[0] (operation)");
	BREAK(td[0].words[ANE_TD_SRC1_LAYOUT] = 8, "td[0].src1_layout");
	/* the indices [1, 1, 5, 1]: the same bytes, not [1, 1, 1, K] */
	BREAK(td[0].words[ANE_TD_SRC1_DIMS + 2] = 5; td[0].words[ANE_TD_SRC1_DIMS + 3] = 1,
	      "td[0] (operation)");
	/* dst's H not K */
	BREAK(td[0].words[ANE_TD_DST_DIMS + 2] = 4, "td[0] (operation)");
	/* the indices' binding one int16 short of K */
	BREAK(rw[s1].length_lo = 8, "rw[1].length (operand reaches 10 bytes)");
	/* a bias operand: a gather has none */
	BREAK(td[0].words[ANE_TD_BIAS_DIMS] = 1; td[0].words[ANE_TD_BIAS_DIMS + 1] = 1;
	      td[0].words[ANE_TD_BIAS_DIMS + 2] = 1; td[0].words[ANE_TD_BIAS_DIMS + 3] = 1,
	      "td[0] (operand 2 not bound)");
	/* op 11 is unknown */
	BREAK(td[0].words[ANE_TD_OP] = 11, "td[0]");
#undef BREAK
	free(copy);
	ane_net_destroy(net);
}

/* An index tensor anywhere but a gather's indices is refused, named. */
static void test_index_misuse_is_refused_naming_it(void)
{
	struct ane_net *net = new_net();
	int x, ids, r, w;

	x = ane_net_input(net, "x", 1, 1, 1, 4);
	ids = ane_net_input_index(net, "ids", 1, 1, 1, 4);
	T_EQ(ids, 1);
	T_EQ(ane_net_eltwise(net, ANE_NET_ADD, x, ids, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "ane_net_eltwise: op 0: b 'ids' is an index input (ane_net_input_index())");
	T_EQ(ane_net_activation(net, ids, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "x 'ids' is an index input");
	T_EQ(ane_net_copy(net, ids, NULL, -1, NULL), -EINVAL);
	T_MSG(net, "'ids' is an index input");
	T_EQ(ane_net_reduce(net, ids, ANE_NET_REDUCE_SUM, 8, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "'ids' is an index input");
	T_EQ(ane_net_view(net, ids, 0, 4, 1), -EINVAL);
	T_MSG(net, "ane_net_view: x 'ids' is an index tensor");
	T_EQ(ane_net_gather(net, ids, ids), -EINVAL);
	T_MSG(net, "ane_net_gather: op 0: table 'ids' is an index input");
	T_EQ(ane_net_output(net, ids), -EINVAL);
	T_MSG(net, "'ids') is an input");
	/* a reshape of it is an index tensor too */
	r = ane_net_reshape(net, ids, 1, 1, 4, 1);
	T_CHECK(r >= 0, "reshape: %s", ane_net_errmsg(net));
	w = ane_net_const(net, "w", 1, 1, 1, 3, (const float[]){ 1, 2, 3 });
	T_EQ(ane_net_matmul(net, r, w, 0, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "op 0: a 'reshape2' is a reshape of index input 'ids'");
	T_EQ(ane_net_concat(net, (const int[]){ x, r }, 2, 3), -EINVAL);
	T_MSG(net, "index input 'ids'");
	/* a gather's indices must be one, [1, 1, 1, K] */
	T_EQ(ane_net_gather(net, x, x), -EINVAL);
	T_MSG(net, "indices 'x' is not an index tensor");
	T_EQ(ane_net_gather(net, x, r), -EINVAL);
	T_MSG(net, "is 1x1x4x1; a gather takes [1, 1, 1, K]");
	T_EQ(ane_net_gather(net, x, -3), -EINVAL);
	T_MSG(net, "indices is -3, not a tensor");
	T_EQ(ane_net_gather(net, x, 99), -EINVAL);
	T_MSG(net, "indices is 99, but the net has no tensor 99");
	T_EQ(ane_net_gather(net, -1, ids), -EINVAL);
	T_MSG(net, "table is -1, not a tensor");
	ane_net_destroy(net);

	/* a table of more than 32767 rows; 32767 is fine */
	net = new_net();
	x = ane_net_input(net, "big", 1, 1, 32768, 1);
	ids = ane_net_input_index(net, "ids", 1, 1, 1, 2);
	T_EQ(ane_net_gather(net, x, ids), -EINVAL);
	T_MSG(net, "table 'big' is 1x1x32768x1: a gather picks among at most 32767 rows");
	ane_net_destroy(net);
	net = new_net();
	x = ane_net_input(net, "big", 2, 1, 32767, 1);
	ids = ane_net_input_index(net, "ids", 1, 1, 1, 2);
	r = ane_net_gather(net, x, ids);
	T_CHECK(r >= 0, "gather: %s", ane_net_errmsg(net));
	T_EQ(ane_net_output(net, r), 0);
	{
		struct ane_net_shape s;

		T_EQ(ane_net_shape(net, r, &s), 0);
		T_CHECK(s.n == 2 && s.c == 1 && s.h == 2 && s.w == 1, "shape %ux%ux%ux%u",
			s.n, s.c, s.h, s.w);
	}
	ane_net_destroy(net);
	T_EQ(ane_net_input_index(NULL, "x", 1, 1, 1, 1), -EINVAL);
	T_EQ(ane_net_input_is_index(NULL, 0), -EINVAL);
	T_EQ(ane_net_gather(NULL, 0, 1), -EINVAL);
}

int main(void)
{
	T_RUN(test_index_conversion);
	T_RUN(test_index_misuse_is_refused_naming_it);
	T_RUN(test_task_words_and_bindings);
	T_RUN(test_broken_images_are_refused);
	T_RUN(test_gather_against_the_reference);
	T_RUN(test_embedding_into_an_operation);
	return t_summary("gather_net");
}
