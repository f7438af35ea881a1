// SPDX-License-Identifier: MIT
/*
 * The ONNX front end's loader and model API (lib/onnx/ox_load.c,
 * ox_model.c): models made here with protobuf-c -- valid ones, and every
 * way of being broken the loader must name (not ONNX, truncated, a cycle,
 * a missing tensor, a wrong rank, a dynamic shape, an opset out of range,
 * external data outside the model's directory) -- and a fuzz pass of
 * mutated models that must never crash or leak (this test also runs
 * under ASan and UBSan).  The partitioner's engine-only refusal and the
 * model API's run on the reference executor are checked too.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "onnx_models.h"

/* x [2, 3] -> Relu -> y, then y + c (a [3] initializer) -> z. */
static const int64_t d23[2] = { 2, 3 }, d3[1] = { 3 };
static const float cval[3] = { 1.0f, -2.0f, 0.5f };

static void mk_relu_add(struct mk *m)
{
	mk_init(m, 13);
	mk_input(m, "x", 2, d23);
	mk_output(m, "z", 2, d23);
	mk_node(m, "Relu", "x", NULL, "y");
	mk_node(m, "Add", "y", "c", "z");
	mk_init_f(m, "c", 1, d3, cval, 3);
}

static int load(struct mk *m, const struct ane_model_options *o,
		struct ane_model **out, char *err, size_t len)
{
	size_t n;
	uint8_t *buf = mk_pack(m, &n);
	int r;

	r = ane_model_load_onnx(buf, n, o, out, err, len);
	free(buf);
	return r;
}

/* ------------------------------------------------------------ cases */

static void a_valid_model_loads_and_runs(void)
{
	struct ane_model_tensor in = { 0 }, out = { 0 };
	float x[6] = { -1, 2, -3, 4, 0.25f, -0.5f }, z[6];
	struct ane_model *mo = NULL;
	struct mk m;
	char err[512];
	int i;

	mk_relu_add(&m);
	T_EQ(load(&m, NULL, &mo, err, sizeof(err)), 0);
	if (!mo) {
		printf("#   %s\n", err);
		return;
	}
	T_EQ(ane_model_num_inputs(mo), 1);
	T_EQ(ane_model_num_outputs(mo), 1);
	in.dtype = 1;
	in.rank = 2;
	in.dims[0] = 2;
	in.dims[1] = 3;
	in.data = x;
	in.size = sizeof(x);
	out.data = z;
	out.size = sizeof(z);
	/* On libane's reference executor: fp16 results of fp16 operands. */
	T_EQ(ane_model_run(mo, NULL, &in, &out), 0);
	for (i = 0; i < 6; i++) {
		float want = (x[i] > 0 ? x[i] : 0) + cval[i % 3];

		T_CHECK(fabsf(z[i] - want) <= 1e-3f, "z[%d] = %g, want %g", i, z[i], want);
	}
	T_EQ(out.rank, 2);
	T_EQ(out.dims[1], 3);
	ane_model_destroy(mo);
}

static void not_onnx_is_refused(void)
{
	static const char junk[] = "this is not a protobuf \xff\xff\xff\xff\xff";
	struct ane_model *mo = (struct ane_model *)1;
	char err[512];

	T_EQ(ane_model_load_onnx(junk, sizeof(junk), NULL, &mo, err, sizeof(err)),
	     -EBADMSG);
	T_CHECK(mo == NULL, "no model on failure");
	T_CHECK(strstr(err, "not an ONNX model"), "message: %s", err);
	T_EQ(ane_model_load_onnx(junk, 0, NULL, &mo, err, sizeof(err)), -EINVAL);
	T_CHECK(strstr(err, "empty"), "message: %s", err);
}

/* Every truncation of a valid model is refused or loads; none crashes. */
static void every_truncation_is_safe(void)
{
	struct ane_model *mo;
	struct mk m;
	char err[512];
	size_t n, k;
	uint8_t *buf;
	int refused = 0;

	mk_relu_add(&m);
	buf = mk_pack(&m, &n);
	for (k = 0; k < n; k++) {
		uint8_t *cut = malloc(k ? k : 1);	/* ASan sees any overread */

		memcpy(cut, buf, k);
		mo = NULL;
		if (ane_model_load_onnx(cut, k, NULL, &mo, err, sizeof(err)))
			refused++;
		ane_model_destroy(mo);
		free(cut);
	}
	T_CHECK(refused > 0, "some truncation must be refused");
	free(buf);
}

static void a_cycle_is_named(void)
{
	struct ane_model *mo = NULL;
	struct mk m;
	char err[512];

	mk_init(&m, 13);
	mk_input(&m, "x", 2, d23);
	mk_output(&m, "z", 2, d23);
	mk_node(&m, "Add", "x", "w", "y");
	mk_node(&m, "Relu", "y", NULL, "w");
	mk_node(&m, "Relu", "y", NULL, "z");
	T_EQ(load(&m, NULL, &mo, err, sizeof(err)), -ELOOP);
	T_CHECK(strstr(err, "cycle") && strstr(err, "node "), "message: %s", err);
}

static void a_missing_tensor_is_named(void)
{
	struct ane_model *mo = NULL;
	struct mk m;
	char err[512];

	mk_init(&m, 13);
	mk_input(&m, "x", 2, d23);
	mk_output(&m, "z", 2, d23);
	mk_node(&m, "Add", "x", "nowhere", "z");
	T_EQ(load(&m, NULL, &mo, err, sizeof(err)), -ENOENT);
	T_CHECK(strstr(err, "node 0 'Add' (Add)") && strstr(err, "'nowhere'"),
		"message: %s", err);
}

static void a_wrong_rank_is_named(void)
{
	static const int64_t d5[1] = { 5 };
	struct ane_model *mo = NULL;
	struct mk m;
	char err[512];

	/* MatMul of [2, 3] by a [5] vector: the inner dims differ. */
	mk_init(&m, 13);
	mk_input(&m, "x", 2, d23);
	mk_input(&m, "v", 1, d5);
	mk_output(&m, "z", 1, d5);
	mk_node(&m, "MatMul", "x", "v", "z");
	T_CHECK(load(&m, NULL, &mo, err, sizeof(err)) < 0, "loaded");
	T_CHECK(strstr(err, "node 0 'MatMul' (MatMul)"), "message: %s", err);
	ane_model_destroy(mo);
}

static void a_dynamic_dim_is_named_unless_fixed(void)
{
	static const int64_t dyn[2] = { -1, 3 };
	struct ane_model_options o = { 0 };
	struct ane_model_tensor fix = { 0 };
	struct ane_model *mo = NULL;
	struct mk m;
	char err[512];

	mk_init(&m, 13);
	mk_input(&m, "x", 2, dyn);
	mk_output(&m, "y", 2, dyn);
	mk_node(&m, "Relu", "x", NULL, "y");
	T_EQ(load(&m, NULL, &mo, err, sizeof(err)), -EINVAL);
	T_CHECK(strstr(err, "input 'x'") && strstr(err, "dynamic") &&
		strstr(err, "--shape"), "message: %s", err);
	fix.name = "x";
	fix.rank = 2;
	fix.dims[0] = 4;
	fix.dims[1] = 3;
	o.shapes = &fix;
	o.n_shapes = 1;
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), 0);
	ane_model_destroy(mo);
	/* A fixed shape must agree with the model's static dims. */
	fix.dims[1] = 4;
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), -EINVAL);
	T_CHECK(strstr(err, "dims[1]"), "message: %s", err);
}

static void an_opset_out_of_range_is_refused(void)
{
	struct ane_model *mo = NULL;
	struct mk m;
	char err[512];

	mk_relu_add(&m);
	m.opset.version = 18;
	T_EQ(load(&m, NULL, &mo, err, sizeof(err)), -EOPNOTSUPP);
	T_CHECK(strstr(err, "opset 18"), "message: %s", err);
}

static void an_unknown_op_is_named(void)
{
	struct ane_model *mo = NULL;
	struct mk m;
	char err[512];

	mk_init(&m, 13);
	mk_input(&m, "x", 2, d23);
	mk_output(&m, "y", 2, d23);
	mk_node(&m, "NoSuchOp", "x", NULL, "y");
	T_EQ(load(&m, NULL, &mo, err, sizeof(err)), -EOPNOTSUPP);
	T_CHECK(strstr(err, "'NoSuchOp' is not supported"), "message: %s", err);
}

/* External data: read beside the model; a path out of its directory is refused. */
static void external_data_is_read_and_confined(void)
{
	char dir[] = "/tmp/ane-onnx-XXXXXX", path[256], err[512];
	static Onnx__StringStringEntryProto loc, *ext[1];
	struct ane_model *mo = NULL;
	Onnx__TensorProto *t;
	struct mk m;
	size_t n;
	uint8_t *buf;
	FILE *f;

	T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	mk_relu_add(&m);
	t = m.inits[0];
	t->has_raw_data = 0;
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	onnx__string_string_entry_proto__init(&loc);
	loc.key = "location";
	loc.value = "c.bin";
	ext[0] = &loc;
	t->n_external_data = 1;
	t->external_data = ext;
	snprintf(path, sizeof(path), "%s/c.bin", dir);
	f = fopen(path, "wb");
	T_CHECK(f && fwrite(cval, sizeof(cval), 1, f) == 1, "write %s", path);
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	buf = mk_pack(&m, &n);
	f = fopen(path, "wb");
	T_CHECK(f && fwrite(buf, n, 1, f) == 1, "write %s", path);
	if (f)
		fclose(f);
	T_EQ(ane_model_load_onnx_file(path, NULL, &mo, err, sizeof(err)), 0);
	ane_model_destroy(mo);
	mo = NULL;
	/* From memory there is no directory to read it from. */
	T_EQ(ane_model_load_onnx(buf, n, NULL, &mo, err, sizeof(err)), -EINVAL);
	T_CHECK(strstr(err, "initializer 'c'") && strstr(err, "external"),
		"message: %s", err);
	free(buf);
	loc.value = "../c.bin";
	buf = mk_pack(&m, &n);
	f = fopen(path, "wb");
	T_CHECK(f && fwrite(buf, n, 1, f) == 1, "write %s", path);
	if (f)
		fclose(f);
	T_EQ(ane_model_load_onnx_file(path, NULL, &mo, err, sizeof(err)), -EPERM);
	free(buf);
	unlink(path);
	snprintf(path, sizeof(path), "%s/c.bin", dir);
	unlink(path);
	rmdir(dir);
}

/* Engine-only: a CPU node is a refusal naming it; with fallback it runs. */
static void engine_only_lists_the_cpu_nodes(void)
{
	struct ane_model_options o = { .flags = ANE_MODEL_ENGINE_ONLY };
	struct ane_model_node_info info;
	struct ane_model_stats st;
	struct ane_model *mo = NULL;
	struct mk m;
	char err[1024];

	/* Tan: an op the engine does not have stays on the CPU. */
	mk_init(&m, 13);
	mk_input(&m, "x", 2, d23);
	mk_output(&m, "z", 2, d23);
	mk_node(&m, "Relu", "x", NULL, "y");
	mk_node(&m, "Tan", "y", NULL, "z");
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), -EOPNOTSUPP);
	T_CHECK(strstr(err, "engine-only: 1 of 2 nodes") &&
		strstr(err, "node 1 'Tan' (Tan)"), "message: %s", err);
	T_EQ(load(&m, NULL, &mo, err, sizeof(err)), 0);
	if (!mo)
		return;
	ane_model_get_stats(mo, &st);
	T_EQ(st.engine_nodes, 1);
	T_EQ(st.cpu_nodes, 1);
	T_EQ(st.segments, 1);
	T_EQ(ane_model_node(mo, 1, &info), 0);
	T_EQ(info.place, ANE_MODEL_CPU);
	T_CHECK(info.why[0], "a CPU node says why");
	ane_model_destroy(mo);
}

/* ONE_PROGRAM: one image with the graph's inputs and outputs, or why not. */
static void one_program_is_the_graph(void)
{
	static const int64_t d32[2] = { 3, 2 }, d22[2] = { 2, 2 };
	static const float w[6] = { 1, 0, 0, 1, 1, 1 };
	struct ane_model_options o = {
		.flags = ANE_MODEL_ENGINE_ONLY | ANE_MODEL_ONE_PROGRAM,
	};
	struct ane_model *mo = NULL;
	const void *img;
	size_t size;
	struct mk m;
	char err[1024];

	mk_init(&m, 13);
	mk_input(&m, "a", 2, d23);
	mk_output(&m, "y", 2, d22);
	mk_node(&m, "MatMul", "a", "w", "p");
	mk_node(&m, "Relu", "p", NULL, "y");
	mk_init_f(&m, "w", 2, d32, w, 6);
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), 0);
	T_CHECK(mo, "%s", err);
	if (mo) {
		T_EQ(ane_model_num_segments(mo), 1);
		T_EQ(ane_model_segment_image(mo, 0, &img, &size), 0);
		ane_model_destroy(mo);
	}
	/* Without ENGINE_ONLY the flag is refused. */
	o.flags = ANE_MODEL_ONE_PROGRAM;
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), -EINVAL);
	/* Outputs y, p: the program writes p (node 0's) first. */
	o.flags = ANE_MODEL_ENGINE_ONLY | ANE_MODEL_ONE_PROGRAM;
	mk_output(&m, "p", 2, d22);
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), -EOPNOTSUPP);
	T_CHECK(strstr(err, "one program: the program's output 0 is 'p', the graph's 'y'"),
		"message: %s", err);
}

/* Mutated models: each byte flipped, dropped or duplicated, seeded. */
static void mutated_models_never_crash(void)
{
	unsigned int seed = 12345, k;
	struct ane_model *mo;
	struct mk m;
	char err[512];
	uint8_t *buf, *mut;
	size_t n, i, len;

	mk_relu_add(&m);
	buf = mk_pack(&m, &n);
	mut = malloc(n * 2 + 16);
	for (k = 0; k < 20000; k++) {
		memcpy(mut, buf, n);
		len = n;
		for (i = 0; i < 1 + k % 4; i++) {
			size_t at = (size_t)rand_r(&seed) % len;

			switch (rand_r(&seed) % 3) {
			case 0:
				mut[at] = (uint8_t)rand_r(&seed);
				break;
			case 1:
				memmove(mut + at, mut + at + 1, len - at - 1);
				len--;
				break;
			default:
				memmove(mut + at + 1, mut + at, len - at);
				len++;
				break;
			}
		}
		mo = NULL;
		if (!ane_model_load_onnx(mut, len, NULL, &mo, err, sizeof(err)))
			ane_model_destroy(mo);
	}
	T_CHECK(1, "no crash");
	free(mut);
	free(buf);
}

/* ONNX's own models (when installed), mutated: refused or loaded, no crash. */
static void mutated_test_models_never_crash(void)
{
	static const char *const names[] = {
		"pytorch-converted/test_Conv2d_groups", "pytorch-converted/test_Linear",
		"pytorch-converted/test_BatchNorm2d_eval", "node/test_reshape_reordered_all_dims",
		"node/test_softmax_axis_1_expanded", "node/test_gemm_all_attributes",
	};
	unsigned int seed = 777, k;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[512], err[512];
		struct ane_model *mo;
		uint8_t *buf, *mut;
		long n;
		FILE *f;

		snprintf(path, sizeof(path), "/usr/share/libonnx-testdata/data/%s/model.onnx",
			 names[i]);
		f = fopen(path, "rb");
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc((size_t)n);
		mut = malloc((size_t)n);
		if (fread(buf, 1, (size_t)n, f) != (size_t)n)
			n = 0;
		fclose(f);
		for (k = 0; n > 0 && k < 1500; k++) {
			size_t at = (size_t)rand_r(&seed) % (size_t)n, len = (size_t)n;

			memcpy(mut, buf, (size_t)n);
			mut[at] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
			if (k % 5 == 0)
				len = at;
			mo = NULL;
			if (!ane_model_load_onnx(mut, len, NULL, &mo, err, sizeof(err)))
				ane_model_destroy(mo);
		}
		free(buf);
		free(mut);
	}
	T_CHECK(1, "no crash");
}

/* Run a [1, 3] model of input "x" and output "z". */
static int run13(struct ane_model *mo, float *x, float *z)
{
	struct ane_model_tensor in = { .dtype = 1, .rank = 2, .dims = { 1, 3 },
				       .data = x, .size = 3 * sizeof(float) };
	struct ane_model_tensor out = { .data = z, .size = 3 * sizeof(float) };

	return ane_model_run(mo, NULL, &in, &out);
}

/*
 * The overflow guard: exp(12) is past fp16's 65504, so the engine's
 * result is an infinity from finite inputs: engine-only -ERANGE, with
 * fallback the CPU's fp32 value.  A NaN from finite inputs (sqrt -1) is
 * the answer, not an overflow.
 */
static void an_overflow_falls_back_or_is_refused(void)
{
	static const int64_t d13[2] = { 1, 3 };
	struct ane_model_options o = { .flags = ANE_MODEL_ENGINE_ONLY };
	float x[3] = { 12.0f, 1.0f, -1.0f }, z[3];
	struct ane_model *mo = NULL;
	struct mk m;
	char err[512];

	mk_init(&m, 13);
	mk_input(&m, "x", 2, d13);
	mk_output(&m, "z", 2, d13);
	mk_node(&m, "Exp", "x", NULL, "z");
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), 0);
	if (mo) {
		T_EQ(run13(mo, x, z), -ERANGE);
		T_CHECK(strstr(ane_model_errmsg(mo), "engine output 'z' holds an infinity"),
			"message: %s", ane_model_errmsg(mo));
		ane_model_destroy(mo);
	}
	T_EQ(load(&m, NULL, &mo, err, sizeof(err)), 0);
	if (mo) {
		T_EQ(run13(mo, x, z), 0);
		T_CHECK(fabsf(z[0] - 162754.79f) < 1.0f && fabsf(z[1] - 2.7182817f) < 1e-5f,
			"z = %g %g: the CPU's fp32 values", z[0], z[1]);
		ane_model_destroy(mo);
	}
	mk_init(&m, 13);
	mk_input(&m, "x", 2, d13);
	mk_output(&m, "z", 2, d13);
	mk_node(&m, "Sqrt", "x", NULL, "z");
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), 0);
	if (mo) {
		x[0] = 4.0f;
		T_EQ(run13(mo, x, z), 0);
		T_CHECK(z[0] == 2.0f && z[1] == 1.0f && z[2] != z[2], "z = %g %g %g", z[0], z[1],
			z[2]);
		ane_model_destroy(mo);
	}
}

/* x * Sigmoid(x) after a MatMul: one engine task, the product's SiLU. */
static void silu_fuses_into_the_op_before(void)
{
	static const int64_t d13[2] = { 1, 3 }, d33[2] = { 3, 3 };
	static const float eye[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	struct ane_model_options o = {
		.flags = ANE_MODEL_ENGINE_ONLY | ANE_MODEL_ONE_PROGRAM,
	};
	float x[3] = { 1.0f, -2.0f, 0.5f }, z[3];
	const struct ane_img_header *h;
	const struct ane_img_td *td;
	struct ane_model *mo = NULL;
	const void *img;
	size_t size;
	struct mk m;
	char err[512];
	int i;

	mk_init(&m, 13);
	mk_input(&m, "x", 2, d13);
	mk_output(&m, "z", 2, d13);
	mk_node(&m, "MatMul", "x", "w", "p");
	mk_node(&m, "Sigmoid", "p", NULL, "s");
	mk_node(&m, "Mul", "p", "s", "z");
	mk_init_f(&m, "w", 2, d33, eye, 9);
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), 0);
	T_CHECK(mo, "%s", err);
	if (!mo)
		return;
	T_EQ(ane_model_segment_image(mo, 0, &img, &size), 0);
	h = img;
	td = (const void *)((const uint8_t *)img + h->tds_offset);
	T_EQ(h->num_tds, 1);
	T_EQ(td[0].words[ANE_TD_OP], 2);	/* the matmul */
	T_EQ(td[0].words[ANE_TD_ACT], 7);	/* with SiLU */
	T_EQ(run13(mo, x, z), 0);
	for (i = 0; i < 3; i++) {
		float want = x[i] / (1.0f + expf(-x[i]));

		T_CHECK(fabsf(z[i] - want) <= 2e-3f, "z[%d] = %g, want %g", i, z[i], want);
	}
	ane_model_destroy(mo);
}

/* z = x + c: x of rank 5 (@dx), c a rank-4 initializer (@dc, @n values). */
static void mk_x_plus_c(struct mk *m, const int64_t *dx, const int64_t *dc,
			const float *c, size_t n)
{
	mk_init(m, 13);
	mk_input(m, "x", 5, dx);
	mk_output(m, "z", 5, dx);
	mk_node(m, "Add", "x", "c", "z");
	mk_init_f(m, "c", 4, dc, c, n);
}

/*
 * Rank 5 with a broadcast: x [2, 3, 2, 2, 5] + c [3, 1, 1, 1] runs on the
 * engine with the axes merged ([1, 2, 3, 20] + [1, 1, 3, 1]); a broadcast
 * that alternates more than four times (c [3, 1, 5, 1] over
 * [2, 3, 4, 5, 6]) is refused engine-only with the rank named.
 */
static void a_rank5_broadcast_merges_its_axes(void)
{
	static const int64_t dx[5] = { 2, 3, 2, 2, 5 }, dc[4] = { 3, 1, 1, 1 };
	static const int64_t dy[5] = { 2, 3, 4, 5, 6 }, dk[4] = { 3, 1, 5, 1 };
	static const float c3[3] = { 1.0f, -2.0f, 0.5f };
	struct ane_model_options o = { .flags = ANE_MODEL_ENGINE_ONLY };
	struct ane_model_tensor in = { .dtype = 1, .rank = 5 }, out = { 0 };
	float x[120], z[120], c15[15];
	struct ane_model *mo = NULL;
	struct ane_model_stats st;
	struct mk m;
	char err[512];
	int i;

	mk_x_plus_c(&m, dx, dc, c3, 3);
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), 0);
	T_CHECK(mo, "%s", err);
	if (!mo)
		return;
	ane_model_get_stats(mo, &st);
	T_EQ(st.engine_nodes, 1);
	for (i = 0; i < 120; i++)
		x[i] = (float)(i % 17) * 0.25f - 2.0f;
	memcpy(in.dims, dx, sizeof(dx));
	in.data = x;
	in.size = sizeof(x);
	out.data = z;
	out.size = sizeof(z);
	T_EQ(ane_model_run(mo, NULL, &in, &out), 0);
	for (i = 0; i < 120; i++) {
		float want = x[i] + c3[(i / 20) % 3];

		T_CHECK(z[i] == want, "z[%d] = %g, want %g", i, z[i], want);
	}
	ane_model_destroy(mo);

	for (i = 0; i < 15; i++)
		c15[i] = (float)i;
	mk_x_plus_c(&m, dy, dk, c15, 15);
	mo = NULL;
	T_EQ(load(&m, &o, &mo, err, sizeof(err)), -EOPNOTSUPP);
	T_CHECK(strstr(err, "a broadcast of rank 5 that needs more than 4 dims"), "%s", err);
	ane_model_destroy(mo);
}

int main(void)
{
	T_RUN(a_valid_model_loads_and_runs);
	T_RUN(not_onnx_is_refused);
	T_RUN(every_truncation_is_safe);
	T_RUN(a_cycle_is_named);
	T_RUN(a_missing_tensor_is_named);
	T_RUN(a_wrong_rank_is_named);
	T_RUN(a_dynamic_dim_is_named_unless_fixed);
	T_RUN(an_opset_out_of_range_is_refused);
	T_RUN(an_unknown_op_is_named);
	T_RUN(external_data_is_read_and_confined);
	T_RUN(engine_only_lists_the_cpu_nodes);
	T_RUN(one_program_is_the_graph);
	T_RUN(an_overflow_falls_back_or_is_refused);
	T_RUN(silu_fuses_into_the_op_before);
	T_RUN(a_rank5_broadcast_merges_its_axes);
	T_RUN(mutated_models_never_crash);
	T_RUN(mutated_test_models_never_crash);
	return t_summary("onnx-load");
}
