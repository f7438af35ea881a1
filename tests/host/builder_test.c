// SPDX-License-Identifier: MIT
/*
 * Host tests of libane's builder, fp16 helpers, reference executor and the
 * run API's device-less error paths.
 *
 * Built images are checked by a userspace mirror of the kernel's
 * validation (driver/ane_image.c, with the task-descriptor decoding of
 * firmware/ane_td.c and the engine's own descriptor check), by a data-flow
 * check of the intermediate buffer's reuse, and by running them on the
 * engine's math (linked in from firmware/hw/engine/) and comparing with
 * ane_net_reference().
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "ane_math.h"
#include "driver/ane_image.h"
#include "firmware/spec/ane_td.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Deterministic pseudo-random numbers in [-1, 1). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static float frand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (float)((double)(rng_state >> 11) / (double)(1ull << 53) * 2.0 - 1.0);
}

static float *frand_array(size_t n, float scale)
{
	float *v = malloc(n * sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = frand() * scale;
	return v;
}

#define T_MSG(net, sub) \
	T_CHECK(strstr(ane_net_errmsg(net), (sub)) != NULL, \
		"message \"%s\" lacks \"%s\"", ane_net_errmsg(net), (sub))

/* ================================================================ fp16 */

static void fp16_to_float_matches_engine_for_every_value(void)
{
	uint32_t h;

	for (h = 0; h < 65536; h++) {
		uint32_t got = f2u(ane_float_from_fp16((uint16_t)h));

		if (got != ane_fp16_to_fp32_bits((uint16_t)h)) {
			T_CHECK(0, "fp16 0x%04x -> 0x%08x, engine 0x%08x", h, got,
				ane_fp16_to_fp32_bits((uint16_t)h));
			return;
		}
	}
}

static void fp16_round_trip_is_exact(void)
{
	uint32_t h;

	for (h = 0; h < 65536; h++) {
		float f = ane_float_from_fp16((uint16_t)h);
		uint16_t back = ane_fp16_from_float(f);
		int nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);

		/* NaNs come back quiet: the quiet bit set, the payload kept */
		if (back != (nan ? (h | 0x200u) : h)) {
			T_CHECK(0, "0x%04x -> %g -> 0x%04x", h, (double)f, back);
			return;
		}
	}
}

/*
 * The array conversion (F16C eight at a time where the CPU has it) gives
 * the single conversion's bits for a sweep of every fp32 pattern, ties,
 * NaNs, infinities and subnormals included, at every offset of a block.
 */
static void fp16_array_matches_one_by_one(void)
{
	static float src[4099];
	static uint16_t got[4099];
	uint64_t k = 0;
	uint32_t bad = 0, i;

	while (k < (1ull << 32) && bad < 5) {
		for (i = 0; i < 4099; i++, k += 1021)
			src[i] = u2f((uint32_t)k);
		ane_fp16_from_float_array(got + (k & 7) % 3, src, 4099 - (k & 7) % 3);
		for (i = 0; i < 4099 - (k & 7) % 3 && bad < 5; i++) {
			uint16_t want = ane_fp16_from_float(src[i]);

			if (got[(k & 7) % 3 + i] != want) {
				T_CHECK(0, "fp32 0x%08x: array 0x%04x, one 0x%04x", f2u(src[i]),
					got[(k & 7) % 3 + i], want);
				bad++;
			}
		}
	}
	T_CHECK(bad == 0, "%u values differ", bad);
}

static void fp16_from_float_matches_engine(void)
{
	uint32_t h, u, bad = 0;
	uint64_t k;

	/* every tie and its neighbours, for every fp16 value */
	for (h = 0; h < 0x7c00u && bad < 5; h++) {
		for (int s = 0; s < 2; s++) {
			float lo = ane_float_from_fp16((uint16_t)(h | (s << 15)));
			float hi = ane_float_from_fp16((uint16_t)((h + 1) | (s << 15)));
			float mid = (float)(((double)lo + (double)hi) / 2);
			uint32_t m = f2u(mid), d;

			for (d = 0; d < 3; d++) {
				uint32_t b = m - 1 + d;

				if (ane_fp16_from_float(u2f(b)) != ane_fp16_from_fp32_bits(b)) {
					T_CHECK(0, "fp32 0x%08x -> 0x%04x, engine 0x%04x", b,
						ane_fp16_from_float(u2f(b)),
						ane_fp16_from_fp32_bits(b));
					bad++;
				}
			}
		}
	}
	/* a sweep over all fp32 patterns */
	for (k = 0; k < (1ull << 32) && bad < 5; k += 4093) {
		u = (uint32_t)k;
		if (ane_fp16_from_float(u2f(u)) != ane_fp16_from_fp32_bits(u)) {
			T_CHECK(0, "fp32 0x%08x -> 0x%04x, engine 0x%04x", u,
				ane_fp16_from_float(u2f(u)), ane_fp16_from_fp32_bits(u));
			bad++;
		}
	}
}

static void fp16_edge_cases(void)
{
	static const struct {
		float f;
		uint16_t h;
	} c[] = {
		{ 0.0f, 0x0000 },
		{ -0.0f, 0x8000 },
		{ 1.0f, 0x3c00 },
		{ -2.0f, 0xc000 },
		{ 0.1f, 0x2e66 },
		{ 65504.0f, 0x7bff },		/* largest finite */
		{ 65519.99f, 0x7bff },
		{ 65520.0f, 0x7c00 },		/* the tie rounds to infinity */
		{ -1e6f, 0xfc00 },
		{ 0x1p-14f, 0x0400 },		/* smallest normal */
		{ 0x1p-24f, 0x0001 },		/* smallest subnormal */
		{ 0x1p-25f, 0x0000 },		/* tie to even: zero */
		{ 0x1.8p-25f, 0x0001 },
		{ 0x3p-25f, 0x0002 },		/* 1.5 ulp: tie to even 2 */
		{ 1023 * 0x1p-24f, 0x03ff },	/* largest subnormal */
		{ 1.0f + 0x1p-11f, 0x3c00 },	/* tie to even, down */
		{ 1.0f + 0x3p-11f, 0x3c02 },	/* tie to even, up */
		{ 2047 * 0x1p-25f, 0x0400 },	/* rounds up into the normals */
		{ 1e-10f, 0x0000 },
		{ -1e-10f, 0x8000 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		T_CHECK(ane_fp16_from_float(c[i].f) == c[i].h, "%a -> 0x%04x, expected 0x%04x",
			(double)c[i].f, ane_fp16_from_float(c[i].f), c[i].h);
	T_EQ(ane_fp16_from_float(u2f(0x7f800000u)), 0x7c00);
	T_EQ(ane_fp16_from_float(u2f(0xff800000u)), 0xfc00);
	T_EQ(ane_fp16_from_float(u2f(0x7fc00000u)), 0x7e00);
	T_EQ(ane_fp16_from_float(u2f(0xffc00000u)), 0xfe00);
	T_EQ(ane_fp16_from_float(u2f(0x7f800001u)), 0x7e00);	/* sNaN: made quiet */
	T_EQ(f2u(ane_float_from_fp16(0x7c00)), 0x7f800000u);
	T_EQ(f2u(ane_float_from_fp16(0x8000)), 0x80000000u);
	T_CHECK(ane_float_from_fp16(0x0001) == 0x1p-24f, "smallest subnormal");
	T_CHECK(ane_float_from_fp16(0x7bff) == 65504.0f, "largest finite");
	T_CHECK(ane_float_from_fp16(0x3555) == 0x1.554p-2f, "1/3");
}

static void fp16_arrays(void)
{
	const float in[6] = { 1.0f, -0.5f, 65504.0f, 1e9f, 0x1p-24f, 3.14159f };
	uint16_t h[6];
	float out[6];

	ane_fp16_from_float_array(h, in, 6);
	ane_float_from_fp16_array(out, h, 6);
	T_EQ(h[0], 0x3c00);
	T_EQ(h[1], 0xb800);
	T_EQ(h[3], 0x7c00);
	T_EQ(h[5], 0x4248);
	T_CHECK(out[2] == 65504.0f && out[4] == 0x1p-24f, "array values");
	T_CHECK(out[5] == 3.140625f, "pi rounds to %g", (double)out[5]);
	ane_fp16_from_float_array(h, in, 0);	/* no-op */
}

/* ================================================================ image checker
 *
 * The kernel's own validator (driver/ane_image.c) and task-descriptor
 * decoder (firmware/ane_td.c), built for the host through the stand-in
 * headers of tests/host/kshim: what passes here passes ProgramCreate.
 */

#define IMG_TABLE_ALIGN	16u
#define IMG_TD_ALIGN	256u
#define IMG_PAGE	16384u
#define BO_MAX		(1ull << 30)
#define U_INPUT		1u
#define U_OUTPUT	2u
#define U_INTER		7u
#define U_WEIGHTS	8u
#define U_CONSTANTS	11u

static int check_image(const void *img, size_t size, char *field, size_t flen)
{
	char f[ANE_IMG_FIELD_LEN];
	int ret = ane_image_validate(img, size, f);

	snprintf(field, flen, "%s", f);
	return ret;
}


/*
 * What the builder promises beyond the kernel's rules: the bar layout of
 * the brief, and a sound reuse of the intermediate buffer -- whatever a
 * task reads from an output or intermediate bar is exactly what the last
 * earlier task that wrote those bytes wrote, so no result is clobbered
 * before its last reader.
 */
static int check_builder_layout(const void *img, struct ane_net *net, char *why, size_t wl)
{
	const struct ane_img_header *h = img;
	const struct ane_img_procedure *pr = (const void *)((const uint8_t *)img + h->procedures_offset);
	const struct ane_img_bar *bars = (const void *)((const uint8_t *)img + h->bars_offset);
	const struct ane_img_rw *rws = (const void *)((const uint8_t *)img + h->rws_offset);
	unsigned int nin = ane_net_num_inputs(net), nout = ane_net_num_outputs(net);
	unsigned int i, k, n_w = 0, n_i = 0;

	/* at most one task per operation: a MATMUL may take in its bias ADD */
	if (h->num_procedures != 1 || !pr->num_tds || pr->num_tds > ane_net_num_ops(net) ||
	    pr->num_inputs != nin || pr->num_outputs != nout)
		return snprintf(why, wl, "procedure counts"), -1;
	for (i = 0; i < h->num_bars; i++) {
		const struct ane_img_bar *b = &bars[i];

		if (b->usage == U_INPUT && (b->io_index != b->slot || b->slot >= nin))
			return snprintf(why, wl, "input bar %u", i), -1;
		if (b->usage == U_OUTPUT && b->io_index >= nout)
			return snprintf(why, wl, "output bar %u", i), -1;
		n_w += b->usage == U_WEIGHTS;
		n_i += b->usage == U_INTER;
	}
	if (n_w > 1 || n_i > 1 || (n_w != 0) != (h->weights_size != 0) ||
	    (n_i != 0) != (h->intermediate_size != 0))
		return snprintf(why, wl, "one weights and one intermediate bar"), -1;
	for (k = 0; k < pr->num_rws; k++) {
		const struct ane_img_rw *r = &rws[k];
		const struct ane_img_bar *b = NULL;
		uint64_t off = r->offset_lo, len = r->length_lo;
		int found = 0;
		unsigned int j;

		for (i = 0; i < h->num_bars; i++)
			if (bars[i].slot == r->bar)
				b = &bars[i];
		if (r->reg == ANE_TD_REG_DST || (b->usage != U_OUTPUT && b->usage != U_INTER))
			continue;
		/* the last write before task r->td overlapping [off, off + len) */
		for (j = pr->num_rws; j-- > 0;) {
			const struct ane_img_rw *w = &rws[j];

			if (w->reg != ANE_TD_REG_DST || w->bar != r->bar || w->td >= r->td)
				continue;
			if (w->offset_lo < off + len && off < (uint64_t)w->offset_lo + w->length_lo) {
				found = w->offset_lo == off && w->length_lo == len;
				break;
			}
		}
		if (found != 1)
			return snprintf(why, wl, "td %u reads bar %u [%llu, +%llu) which is not what the last writer wrote",
					r->td, r->bar, (unsigned long long)off,
					(unsigned long long)len), -1;
	}
	return 0;
}

/* ================================================================ engine run
 *
 * Execute a built image with the engine's math, as the firmware would:
 * every bar a buffer, every task decoded, bound and run in order.
 */
static int run_on_engine(const void *image, size_t size, struct ane_net *net,
			 const float *const *inputs, float *const *outputs)
{
	const struct ane_img_header *h = image;
	const uint8_t *img = image;
	const struct ane_img_procedure *pr = (const void *)(img + h->procedures_offset);
	const struct ane_img_bar *bars = (const void *)(img + h->bars_offset);
	const struct ane_img_rw *rws = (const void *)(img + h->rws_offset);
	const struct ane_img_td *tds = (const void *)(img + h->tds_offset);
	uint8_t *buf[ANE_IMG_MAX_BARS] = { NULL };
	uint32_t i, k;
	int ret = 0;

	(void)size;
	for (i = 0; i < h->num_bars; i++) {
		const struct ane_img_bar *b = &bars[i];
		struct ane_net_shape s;

		buf[b->slot] = calloc(1, b->size + 64);
		if (b->usage == U_INPUT) {
			ane_net_shape(net, ane_net_input_tensor(net, b->io_index), &s);
			ane_fp16_from_float_array((uint16_t *)buf[b->slot], inputs[b->io_index],
						  (size_t)s.n * s.c * s.h * s.w);
		} else if (b->usage == U_WEIGHTS) {
			memcpy(buf[b->slot], img + h->weights_offset, h->weights_size);
		} else if (b->usage == U_INTER) {
			/* garbage, so that a read of unwritten memory shows */
			memset(buf[b->slot], 0x5a, b->size);
		}
	}
	for (i = 0; i < pr->num_tds && !ret; i++) {
		struct ane_op_desc d;
		uint64_t wsize = 0;
		void *work = NULL;

		ane_image_td_desc(&tds[pr->first_td + i], &d);
		for (k = 0; k < pr->num_rws; k++) {
			const struct ane_img_rw *rw = &rws[pr->first_rw + k];
			struct ane_tensor *t;

			if (rw->td != pr->first_td + i)
				continue;
			t = ane_td_operand(&d, rw->reg);
			ane_tensor_dense(t, buf[rw->bar] + rw->offset_lo, t->dim[0], t->dim[1],
					 t->dim[2], t->dim[3]);
			t->size = rw->length_lo;
		}
		ret = ane_op_workspace_size(&d, &wsize);
		if (ret)
			break;
		if (wsize) {
			work = aligned_alloc(ANE_MATH_WORK_ALIGN,
					     (wsize + ANE_MATH_WORK_ALIGN - 1) / ANE_MATH_WORK_ALIGN *
					     ANE_MATH_WORK_ALIGN);
			d.work = work;
			d.work_size = wsize;
		}
		ret = ane_op_validate(&d);
		if (!ret)
			ret = ane_op_run_all(&d);
		free(work);
	}
	for (i = 0; i < h->num_bars; i++) {
		const struct ane_img_bar *b = &bars[i];
		struct ane_net_shape s;

		if (!ret && b->usage == U_OUTPUT) {
			ane_net_shape(net, ane_net_output_tensor(net, b->io_index), &s);
			ane_float_from_fp16_array(outputs[b->io_index], (uint16_t *)buf[b->slot],
						  (size_t)s.n * s.c * s.h * s.w);
		}
		free(buf[b->slot]);
	}
	return ret;
}

static float ulp16(float v)
{
	uint16_t h = ane_fp16_from_float(v < 0 ? -v : v);

	if ((h & 0x7c00u) == 0x7c00u)
		return 32.0f;
	return ane_float_from_fp16((uint16_t)(h + 1)) - ane_float_from_fp16(h);
}

/*
 * The engine (fp32 accumulation and activations) and the reference
 * (double) agree within a few fp16 ulps of each value, plus a small
 * fraction of the tensor's largest value for sums that cancel.
 */
static int compare(const char *what, const float *eng, const float *ref, size_t n,
		   float ulps, float rel)
{
	float mx = 0;
	size_t i;

	for (i = 0; i < n; i++)
		mx = ref[i] < 0 ? (-ref[i] > mx ? -ref[i] : mx) : (ref[i] > mx ? ref[i] : mx);
	for (i = 0; i < n; i++) {
		float d = eng[i] - ref[i], tol;

		d = d < 0 ? -d : d;
		tol = ulps * ulp16(ref[i]) + rel * mx;
		if (!(d <= tol) && !(eng[i] != eng[i] && ref[i] != ref[i])) {
			T_CHECK(0, "%s[%zu]: engine %g, reference %g (tolerance %g)", what, i,
				(double)eng[i], (double)ref[i], (double)tol);
			return -1;
		}
	}
	return 0;
}

/* Build, check the image every way, run on the engine, compare. */
static void verify_net(struct ane_net *net, const float *const *inputs,
		       float ulps, float rel)
{
	unsigned int nout = ane_net_num_outputs(net), i;
	float *ref[ANE_IMG_MAX_IO] = { NULL }, *eng[ANE_IMG_MAX_IO] = { NULL };
	const void *img;
	size_t size;
	char field[128], why[256];
	int ret;

	ret = ane_net_build(net, &img, &size);
	T_CHECK(ret == 0, "build: %s", ane_net_errmsg(net));
	if (ret)
		return;
	ret = check_image(img, size, field, sizeof(field));
	T_CHECK(ret == 0, "the kernel's rules refuse the image at %s", field);
	ret = check_builder_layout(img, net, why, sizeof(why));
	T_CHECK(ret == 0, "layout: %s", why);
	for (i = 0; i < nout; i++) {
		struct ane_net_shape s;
		size_t n;

		ane_net_shape(net, ane_net_output_tensor(net, i), &s);
		n = (size_t)s.n * s.c * s.h * s.w;
		ref[i] = calloc(n, sizeof(float));
		eng[i] = calloc(n, sizeof(float));
	}
	ret = ane_net_reference(net, inputs, ref);
	T_CHECK(ret == 0, "reference: %s", ane_net_errmsg(net));
	ret = run_on_engine(img, size, net, inputs, eng);
	T_CHECK(ret == 0, "engine run: %d", ret);
	for (i = 0; i < nout; i++) {
		struct ane_net_shape s;
		char what[32];

		ane_net_shape(net, ane_net_output_tensor(net, i), &s);
		snprintf(what, sizeof(what), "output %u", i);
		compare(what, eng[i], ref[i], (size_t)s.n * s.c * s.h * s.w, ulps, rel);
		free(ref[i]);
		free(eng[i]);
	}
}

/* ================================================================ builder */

static struct ane_net *new_net(void)
{
	struct ane_net *net = NULL;

	T_EQ(ane_net_create(&net), 0);
	return net;
}

static int shape_is(struct ane_net *net, int t, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	struct ane_net_shape s;

	if (ane_net_shape(net, t, &s))
		return 0;
	return s.n == n && s.c == c && s.h == h && s.w == w;
}

static void shape_inference(void)
{
	struct ane_net *net = new_net();
	float z[4096] = { 0 };
	struct ane_net_conv_params cp = { 0 };
	struct ane_net_pool_params pp = { 0 };
	int x, w, y, m, a, b;

	x = ane_net_input(net, "x", 2, 4, 9, 11);
	w = ane_net_const(net, "w", 6, 2, 3, 3, z);
	cp.stride_h = 2;
	cp.pad_top = cp.pad_bottom = 1;
	cp.dilation_w = 2;
	cp.groups = 2;
	y = ane_net_conv(net, x, w, -1, &cp);
	/* H: (9 + 2 - 3) / 2 + 1 = 5; W: (11 - 5) / 1 + 1 = 7 */
	T_CHECK(shape_is(net, y, 2, 6, 5, 7), "conv shape");
	pp.kind = ANE_NET_POOL_AVG;
	pp.kernel_h = 2;
	pp.kernel_w = 3;
	y = ane_net_pool(net, y, &pp);		/* stride = window */
	T_CHECK(shape_is(net, y, 2, 6, 2, 2), "pool shape");
	a = ane_net_input(net, "a", 3, 1, 5, 4);
	b = ane_net_const(net, "b", 1, 2, 4, 6, z);
	m = ane_net_matmul(net, a, b, 0, ANE_NET_ACT_NONE);
	T_CHECK(shape_is(net, m, 3, 2, 5, 6), "matmul broadcast shape");
	b = ane_net_const(net, "bt", 1, 1, 7, 4, z);
	m = ane_net_matmul(net, a, b, ANE_NET_TRANSPOSE_B, ANE_NET_ACT_RELU);
	T_CHECK(shape_is(net, m, 3, 1, 5, 7), "matmul transposed shape");
	b = ane_net_const(net, "s", 1, 1, 1, 7, z);
	m = ane_net_eltwise(net, ANE_NET_MUL, b, m, ANE_NET_ACT_NONE);
	T_CHECK(shape_is(net, m, 3, 1, 5, 7), "eltwise broadcast shape");
	m = ane_net_softmax(net, m);
	T_CHECK(shape_is(net, m, 3, 1, 5, 7), "softmax shape");
	T_EQ(ane_net_num_ops(net), 6);
	T_EQ(ane_net_num_inputs(net), 2);
	T_EQ(ane_net_input_tensor(net, 1), a);
	T_EQ(ane_net_input_tensor(net, 2), -EINVAL);
	T_EQ(ane_net_output(net, m), 0);
	T_EQ(ane_net_output(net, y), 1);
	T_EQ(ane_net_output_tensor(net, 1), y);
	T_CHECK(ane_net_errmsg(net)[0] == '\0', "message after success: %s", ane_net_errmsg(net));
	T_EQ(ane_net_shape(net, 99, NULL), -EINVAL);
	ane_net_destroy(net);
	ane_net_destroy(NULL);
}

static void matmul_errors_name_op_and_mismatch(void)
{
	struct ane_net *net = new_net();
	float z[64] = { 0 };
	int x, a, b;

	x = ane_net_input(net, "x", 1, 1, 2, 3);
	ane_net_activation(net, x, ANE_NET_ACT_RELU);
	ane_net_activation(net, x, ANE_NET_ACT_TANH);
	ane_net_activation(net, x, ANE_NET_ACT_SIGMOID);
	b = ane_net_const(net, "w", 1, 1, 4, 2, z);
	T_EQ(ane_net_matmul(net, x, b, 0, ANE_NET_ACT_NONE), -EINVAL);
	T_CHECK(!strcmp(ane_net_errmsg(net),
			"ane_net_matmul: op 3: inner dimensions differ: a is 2x3, b is 4x2"),
		"message: %s", ane_net_errmsg(net));
	T_EQ(ane_net_matmul(net, x, b, ANE_NET_TRANSPOSE_B, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "b is 4x2 (transposed: 2x4)");
	b = ane_net_const(net, "w3", 1, 1, 3, 2, z);
	T_EQ(ane_net_matmul(net, x, b, 0x4, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "flags 0x4");
	T_EQ(ane_net_matmul(net, x, b, 0, (enum ane_net_act)27), -EINVAL);
	T_MSG(net, "activation 27 is unknown");
	T_EQ(ane_net_matmul(net, x, b, 0, ANE_NET_ACT_ELU), -EINVAL);
	T_MSG(net, "activation 20 takes parameters");
	a = ane_net_input(net, "p", 2, 3, 2, 3);
	b = ane_net_const(net, "q", 3, 3, 3, 2, z);
	T_EQ(ane_net_matmul(net, a, b, 0, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "batch dimension N differs");
	T_MSG(net, "'p' is 2x3x2x3");
	ane_net_destroy(net);
}

static void conv_errors(void)
{
	struct ane_net *net = new_net();
	float *z = calloc(20000, sizeof(float));
	struct ane_net_conv_params cp = { 0 };
	int x, w, bias;

	x = ane_net_input(net, "img", 1, 4, 8, 8);
	cp.groups = 3;
	w = ane_net_const(net, "w", 6, 2, 3, 3, z);
	T_EQ(ane_net_conv(net, x, w, -1, &cp), -EINVAL);
	T_MSG(net, "ane_net_conv: op 0: groups 3 does not divide the 4 channels of x 'img'");
	cp.groups = 1;
	T_EQ(ane_net_conv(net, x, w, -1, &cp), -EINVAL);
	T_MSG(net, "weights 'w' are 6x2x3x3");
	T_MSG(net, "the weights need 4 channels, not 2");
	cp.groups = 2;
	w = ane_net_const(net, "w5", 5, 2, 3, 3, z);
	T_EQ(ane_net_conv(net, x, w, -1, &cp), -EINVAL);
	T_MSG(net, "groups 2 does not divide the 5 output channels");
	cp.groups = 0;
	w = ane_net_const(net, "big", 1, 4, 65, 1, z);
	T_EQ(ane_net_conv(net, x, w, -1, &cp), -EINVAL);
	T_MSG(net, "the kernel of weights 'big' is 65x1");
	w = ane_net_const(net, "k3", 2, 4, 3, 3, z);
	cp.pad_left = 3;
	T_EQ(ane_net_conv(net, x, w, -1, &cp), -EINVAL);
	T_MSG(net, "pad_left 3 must be smaller than the dilated kernel width, 3");
	cp.dilation_w = 2;		/* dilated width 5 */
	T_CHECK(ane_net_conv(net, x, w, -1, &cp) >= 0, "pad 3 < 5: %s", ane_net_errmsg(net));
	cp.pad_left = 0;
	cp.dilation_w = 0;
	cp.stride_h = 65;
	T_EQ(ane_net_conv(net, x, w, -1, &cp), -EINVAL);
	T_MSG(net, "stride_h 65 is out of range 1..64");
	cp.stride_h = 0;
	cp.dilation_h = 4;		/* 9 rows of kernel > 8 */
	T_EQ(ane_net_conv(net, x, w, -1, &cp), -EINVAL);
	T_MSG(net, "does not fit x 'img', 8x8");
	cp.dilation_h = 0;
	bias = ane_net_const(net, "b", 1, 1, 1, 2, z);
	T_EQ(ane_net_conv(net, x, w, bias, &cp), -EINVAL);
	T_MSG(net, "bias 'b' is 1x1x1x2; it must be 1x2x1x1");
	x = ane_net_input(net, "deep", 1, 2048, 3, 3);
	w = ane_net_const(net, "wide", 1, 2048, 3, 1, z);
	T_CHECK(ane_net_conv(net, x, w, -1, NULL) >= 0, "6144 products: %s", ane_net_errmsg(net));
	w = ane_net_const(net, "wider", 1, 2048, 3, 3, z);
	T_EQ(ane_net_conv(net, x, w, -1, NULL), -EINVAL);
	T_MSG(net, "= 18432 products; the engine allows at most 16384");
	free(z);
	ane_net_destroy(net);
}

static void eltwise_act_pool_softmax_errors(void)
{
	struct ane_net *net = new_net();
	float z[64] = { 0 };
	struct ane_net_pool_params pp = { 0 };
	int a, b, big;

	a = ane_net_input(net, "a", 1, 3, 4, 4);
	b = ane_net_const(net, "b", 1, 2, 1, 1, z);
	T_EQ(ane_net_eltwise(net, ANE_NET_ADD, a, b, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "ane_net_eltwise: op 0: shapes do not broadcast: a 'a' is 1x3x4x4, b 'b' is 1x2x1x1 (dimension C: 3 vs 2");
	b = ane_net_const(net, "c", 1, 3, 1, 1, z);
	T_EQ(ane_net_eltwise(net, (enum ane_net_eltwise_op)7, a, b, ANE_NET_ACT_NONE), -EINVAL);
	T_MSG(net, "operation 7 is unknown (ANE_NET_ADD .. ANE_NET_POW = 0..6)");
	T_CHECK(ane_net_eltwise(net, ANE_NET_MAX, b, a, ANE_NET_ACT_RELU) >= 0, "%s",
		ane_net_errmsg(net));
	T_EQ(ane_net_activation(net, a, (enum ane_net_act)27), -EINVAL);
	T_MSG(net, "ane_net_activation: op 1: activation 27 is unknown");
	T_EQ(ane_net_activation(net, a, ANE_NET_ACT_CLIP), -EINVAL);
	T_MSG(net, "ane_net_activation: op 1: activation 23 takes parameters (ANE_NET_ACT_ELU .. ANE_NET_ACT_THRESHOLDED_RELU = 20..26): use ane_net_activation_param()");
	T_EQ(ane_net_pool(net, a, NULL), -EINVAL);
	T_MSG(net, "the parameters are NULL");
	pp.kind = (enum ane_net_pool_kind)2;
	pp.kernel_h = pp.kernel_w = 2;
	T_EQ(ane_net_pool(net, a, &pp), -EINVAL);
	T_MSG(net, "kind 2 is unknown");
	pp.kind = ANE_NET_POOL_MAX;
	pp.count_pad = 1;
	T_EQ(ane_net_pool(net, a, &pp), -EINVAL);
	T_MSG(net, "count_pad applies to average pooling only");
	pp.count_pad = 0;
	pp.kernel_w = 0;
	T_EQ(ane_net_pool(net, a, &pp), -EINVAL);
	T_MSG(net, "kernel_w 0 is out of range 1..64");
	pp.kernel_w = 2;
	pp.pad_bottom = 2;
	T_EQ(ane_net_pool(net, a, &pp), -EINVAL);
	T_MSG(net, "pad_bottom 2 must be smaller than the window height, 2");
	pp.pad_bottom = 0;
	pp.kernel_h = 5;
	T_EQ(ane_net_pool(net, a, &pp), -EINVAL);
	T_MSG(net, "the 5x2 window does not fit x 'a', 4x4");
	big = ane_net_input(net, "wide", 1, 65537, 1, 1);
	T_EQ(ane_net_softmax(net, big), -EINVAL);
	T_MSG(net, "ane_net_softmax: op 1: x 'wide' is 1x65537x1x1: a softmax runs over at most 65536 channels");
	ane_net_destroy(net);
}

/*
 * Views and merged heads (strided matmul operands): what each refuses,
 * with a message, and the layout words and bindings a built view gets.
 */
static void view_errors_and_layout(void)
{
	struct ane_net *net = new_net();
	float w[16 * 48] = { 0 };
	const struct ane_img_header *h;
	const struct ane_img_td *td;
	const struct ane_img_rw *rw;
	const void *img;
	size_t size, i;
	int x, z, q, k, v, m, y;

	x = ane_net_input(net, "x", 1, 1, 4, 16);
	z = ane_net_matmul(net, x, ane_net_const(net, "w", 1, 1, 16, 48, w), 0, 0);
	T_EQ(ane_net_view(net, 99, 0, 8, 1), -EINVAL);
	T_MSG(net, "ane_net_view: x is 99, not a tensor of this net");
	T_EQ(ane_net_view(net, z, 4, 8, 1), -EINVAL);
	T_MSG(net, "column 4 is not a multiple of 8");
	T_EQ(ane_net_view(net, z, 40, 8, 2), -EINVAL);
	T_MSG(net, "columns 40 + 2 x 8 do not fit in 'op0'");
	T_EQ(ane_net_view(net, z, 0, 0, 1), -EINVAL);
	q = ane_net_view(net, z, 0, 8, 2);
	k = ane_net_view(net, z, 16, 8, 2);
	v = ane_net_view(net, z, 32, 8, 2);
	T_CHECK(q >= 0 && k >= 0 && v >= 0, "views: %d %d %d", q, k, v);
	T_EQ(ane_net_view(net, q, 0, 8, 1), -EINVAL);
	T_MSG(net, "x 'view");
	T_MSG(net, "is itself a view");
	T_EQ(ane_net_activation(net, q, ANE_NET_ACT_RELU), -EINVAL);
	T_MSG(net, "is a view (ane_net_view()); only ane_net_matmul() reads views");
	T_EQ(ane_net_output(net, q), -EINVAL);
	T_MSG(net, "is a view");
	y = ane_net_matmul(net, q, k, ANE_NET_TRANSPOSE_B, 0);	/* [1, 2, 4, 4] */
	T_EQ(ane_net_merge_heads(net, x), -EINVAL);
	T_MSG(net, "ane_net_merge_heads: 'x' is not the result of a matmul");
	T_EQ(ane_net_merge_heads(net, z), -EINVAL);
	T_MSG(net, "'op0' has a view, tensor");

	T_EQ(ane_net_merge_heads(net, y), -EINVAL);
	T_MSG(net, "heads merge from [1, C, H, W] with W a multiple of 8");
	y = ane_net_matmul(net, y, v, 0, 0);			/* [1, 2, 4, 8] */
	m = ane_net_merge_heads(net, y);
	T_CHECK(m >= 0, "merge: %s", ane_net_errmsg(net));
	T_EQ(ane_net_merge_heads(net, y), -EINVAL);
	ane_net_destroy(net);

	/* the same net without the failed calls (failures are sticky) */
	net = new_net();
	x = ane_net_input(net, "x", 1, 1, 4, 16);
	z = ane_net_matmul(net, x, ane_net_const(net, "w", 1, 1, 16, 48, w), 0, 0);
	q = ane_net_view(net, z, 0, 8, 2);
	k = ane_net_view(net, z, 16, 8, 2);
	v = ane_net_view(net, z, 32, 8, 2);
	y = ane_net_matmul(net, q, k, ANE_NET_TRANSPOSE_B, 0);
	y = ane_net_matmul(net, y, v, 0, 0);
	m = ane_net_merge_heads(net, y);
	ane_net_output(net, m);
	T_EQ(ane_net_build(net, &img, &size), 0);
	if (t_case_failed) {
		printf("#   %s\n", ane_net_errmsg(net));
		ane_net_destroy(net);
		return;
	}
	h = img;
	td = (const void *)((const uint8_t *)img + h->tds_offset);
	rw = (const void *)((const uint8_t *)img + h->rws_offset);
	/* scores: A and B are heads of the [4, 48] result, rows 48 apart */
	T_EQ(td[1].words[ANE_TD_SRC0_LAYOUT], ANE_TD_LAYOUT(48, 8));
	T_EQ(td[1].words[ANE_TD_SRC1_LAYOUT], ANE_TD_LAYOUT(48, 8));
	T_EQ(td[1].words[ANE_TD_DST_LAYOUT], 0);
	/* weighted values: its destination the merged [4, 16] */
	T_EQ(td[2].words[ANE_TD_SRC1_LAYOUT], ANE_TD_LAYOUT(48, 8));
	T_EQ(td[2].words[ANE_TD_DST_LAYOUT], ANE_TD_LAYOUT(16, 8));
	T_EQ(td[0].words[ANE_TD_SRC0_LAYOUT] | td[0].words[ANE_TD_DST_LAYOUT], 0);
	for (i = 0; i < h->num_rws; i++)
		if (rw[i].td == 1 && rw[i].reg == ANE_TD_REG_SRC1)
			T_EQ(rw[i].length_lo, 4 * 48 * 2 - 16 * 2);	/* K: from column 16 */
	ane_net_destroy(net);

	/* a result some operation reads already stays dense */
	net = new_net();
	x = ane_net_input(net, "x", 1, 2, 4, 8);
	y = ane_net_matmul(net, x, ane_net_const(net, "w", 1, 1, 8, 8, w), 0, 0);
	ane_net_output(net, ane_net_activation(net, y, ANE_NET_ACT_RELU));
	T_EQ(ane_net_merge_heads(net, y), -EINVAL);
	T_MSG(net, "'op0' is already read by op 1; merge it before any operation reads it");
	ane_net_destroy(net);
}

static void tensor_and_output_errors(void)
{
	struct ane_net *net = new_net();
	float v[4] = { 1, 2, 1e5f, 4 }, fine[4] = { 1, 2, 3, 4 };
	int i, x, c, y;

	T_EQ(ane_net_input(net, "z", 1, 0, 2, 2), -EINVAL);
	T_MSG(net, "ane_net_input: input 0 ('z'): dimension C is 0; every dimension must be 1..16777216");
	T_EQ(ane_net_input(net, NULL, 1, 1, 1u << 25, 1), -EINVAL);
	T_MSG(net, "dimension H is 33554432");
	T_EQ(ane_net_input(net, "huge", 1, 1024, 1024, 1024), -EINVAL);
	T_MSG(net, "1x1024x1024x1024 is 2147483648 bytes as fp16; a buffer holds at most 1 GiB");
	T_EQ(ane_net_const(net, "w", 1, 1, 1, 4, NULL), -EINVAL);
	T_MSG(net, "ane_net_const: constant 0 ('w'): data is NULL");
	T_EQ(ane_net_const(net, "w", 1, 1, 1, 4, v), -EINVAL);
	T_MSG(net, "element 2 (100000) overflows fp16");
	ane_net_destroy(net);

	net = new_net();
	for (i = 0; i < 16; i++)
		T_EQ(ane_net_input(net, NULL, 1, 1, 1, 1), i);
	T_EQ(ane_net_input(net, "extra", 1, 1, 1, 1), -EINVAL);
	T_MSG(net, "ane_net_input: input 16 ('extra'): a procedure takes at most 16 inputs");
	ane_net_destroy(net);

	net = new_net();
	x = ane_net_input(net, "x", 1, 1, 1, 4);
	c = ane_net_const(net, "c", 1, 1, 1, 4, fine);
	T_EQ(ane_net_output(net, x), -EINVAL);
	T_MSG(net, "tensor 0 ('x') is an input: the program never writes it");
	T_EQ(ane_net_output(net, c), -EINVAL);
	T_MSG(net, "('c') is a constant");
	T_EQ(ane_net_output(net, 42), -EINVAL);
	T_MSG(net, "the net has no tensor 42 (it has 2)");
	y = ane_net_eltwise(net, ANE_NET_ADD, x, c, ANE_NET_ACT_NONE);
	T_EQ(ane_net_output(net, y), 0);
	T_EQ(ane_net_output(net, y), -EINVAL);
	T_MSG(net, "tensor 2 ('op0') is already output 0");
	for (i = 1; i < 16; i++)
		T_EQ(ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_NONE)), i);
	T_EQ(ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_NONE)), -EINVAL);
	T_MSG(net, "a procedure has at most 16 outputs");
	ane_net_destroy(net);
}

static void failures_are_sticky_and_quoted(void)
{
	struct ane_net *net = new_net();
	const void *img = (const void *)1;
	size_t size = 1;
	float out[4], in[4] = { 0 };
	const float *ins[1] = { in };
	float *outs[1] = { out };
	int x, y, z;

	x = ane_net_input(net, "x", 1, 2, 2, 1);
	y = ane_net_matmul(net, x, x, 0, ANE_NET_ACT_NONE);	/* 2x1 by 2x1 */
	T_EQ(y, -EINVAL);
	z = ane_net_activation(net, y, ANE_NET_ACT_RELU);
	T_EQ(z, -EINVAL);
	T_MSG(net, "ane_net_activation: op 0: x is -22, not a tensor: the call that should have made it failed (ane_net_matmul: op 0: inner dimensions differ: a is 2x1, b is 2x1)");
	T_EQ(ane_net_output(net, z), -EINVAL);
	T_MSG(net, "ane_net_output: output 0: tensor -22 is not a tensor");
	/* the net is fine otherwise, but stays refused */
	ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
	T_EQ(ane_net_build(net, &img, &size), -EINVAL);
	T_CHECK(img == NULL && size == 0, "outputs cleared");
	T_MSG(net, "ane_net_build: the net is incomplete because a call failed; the first failure: ane_net_matmul: op 0: inner dimensions differ");
	T_EQ(ane_net_reference(net, ins, outs), -EINVAL);
	T_MSG(net, "ane_net_reference: the net is incomplete");
	ane_net_destroy(net);
}

static void build_errors(void)
{
	struct ane_net *net = new_net();
	const void *img;
	size_t size;
	float one = 1.0f;
	int i, x, c;

	T_EQ(ane_net_build(net, &img, &size), -EINVAL);
	T_MSG(net, "ane_net_build: the net has no operations");
	x = ane_net_input(net, "x", 1, 1, 1, 1);
	ane_net_activation(net, x, ANE_NET_ACT_RELU);
	T_EQ(ane_net_build(net, &img, &size), -EINVAL);
	T_MSG(net, "ane_net_build: the net has no outputs: mark at least one result with ane_net_output()");
	T_EQ(ane_net_build(NULL, &img, &size), -EINVAL);
	ane_net_destroy(net);

	/* 16 inputs, 16 outputs and the weights: 33 bars */
	net = new_net();
	c = ane_net_const(net, "one", 1, 1, 1, 1, &one);
	for (i = 0; i < 16; i++) {
		x = ane_net_input(net, NULL, 1, 1, 1, 1);
		ane_net_output(net, ane_net_eltwise(net, ANE_NET_MUL, x, c, ANE_NET_ACT_NONE));
	}
	T_EQ(ane_net_build(net, &img, &size), -EINVAL);
	T_MSG(net, "ane_net_build: 16 inputs, 16 outputs, the weights need 33 bars; an image has at most 32");
	ane_net_destroy(net);
}

/* ================================================================ images */

static void built_image_obeys_the_format(void)
{
	struct ane_net *net = new_net();
	float w1[12], b1[4] = { 0.5f, -1, 0, 2 };
	const void *img, *img2;
	size_t size, size2, i;
	char field[128], why[256];
	const struct ane_img_header *h;
	const struct ane_img_td *td;
	int x, y;

	for (i = 0; i < 12; i++)
		w1[i] = (float)i / 8;
	x = ane_net_input(net, "x", 1, 1, 2, 3);
	y = ane_net_matmul(net, x, ane_net_const(net, "w1", 1, 1, 3, 4, w1), 0, ANE_NET_ACT_NONE);
	y = ane_net_eltwise(net, ANE_NET_ADD, y, ane_net_const(net, "b1", 1, 1, 1, 4, b1),
			    ANE_NET_ACT_RELU);
	ane_net_output(net, y);
	T_EQ(ane_net_build(net, &img, &size), 0);
	T_EQ(check_image(img, size, field, sizeof(field)), 0);
	T_CHECK(!field[0], "field %s", field);
	T_EQ(check_builder_layout(img, net, why, sizeof(why)), 0);
	h = img;
	T_EQ(h->magic, ANE_IMG_MAGIC);
	T_EQ(h->image_size, size);
	/* the bias ADD and its ReLU are folded into the MATMUL: one task */
	T_EQ(h->num_tds, 1);
	T_EQ(h->num_rws, 4);
	T_EQ(h->num_bars, 3);		/* input, output, weights */
	T_EQ(h->tds_offset % 256, 0);
	T_EQ(h->weights_offset % 16384, 0);
	T_EQ(h->weights_size, 48);	/* 24 bytes of w1 padded to 32, 8 of b1 to 16 */
	T_EQ(h->intermediate_size, 0);
	T_EQ(h->procedures_offset % 16 + h->rws_offset % 16 + h->bars_offset % 16, 0);
	td = (const struct ane_img_td *)((const uint8_t *)img + h->tds_offset);
	T_EQ(td[0].words[ANE_TD_OP], ANE_OP_MATMUL);
	T_EQ(td[0].words[ANE_TD_ACT], ANE_ACT_RELU);
	T_EQ(td[0].words[ANE_TD_BIAS_DIMS + 1], 1);
	T_EQ(td[0].words[ANE_TD_BIAS_DIMS + 3], 4);
	T_EQ(td[0].words[ANE_TD_DST_DIMS + 3], 4);
	/* the weights section holds the fp16 data */
	T_EQ(((const uint16_t *)((const uint8_t *)img + h->weights_offset))[1], 0x3000);
	T_EQ(((const uint16_t *)((const uint8_t *)img + h->weights_offset))[16], 0x3800);
	/* built once: the same image again; a change rebuilds */
	T_EQ(ane_net_build(net, &img2, &size2), 0);
	T_CHECK(img2 == img && size2 == size, "cached image");
	ane_net_output(net, ane_net_softmax(net, y));
	T_EQ(ane_net_build(net, &img2, &size2), 0);
	T_EQ(check_image(img2, size2, field, sizeof(field)), 0);
	ane_net_destroy(net);

	/*
	 * No folding where the product is needed as it is: read by a second
	 * operation, an output itself, or already activated.
	 */
	for (i = 0; i < 3; i++) {
		int p;

		net = new_net();
		x = ane_net_input(net, "x", 1, 1, 2, 3);
		p = ane_net_matmul(net, x, ane_net_const(net, "w1", 1, 1, 3, 4, w1), 0,
				   i == 2 ? ANE_NET_ACT_RELU : ANE_NET_ACT_NONE);
		y = ane_net_eltwise(net, ANE_NET_ADD, p, ane_net_const(net, "b1", 1, 1, 1, 4, b1),
				    ANE_NET_ACT_NONE);
		ane_net_output(net, y);
		if (i == 0)
			ane_net_output(net, ane_net_eltwise(net, ANE_NET_MUL, p, y,
							    ANE_NET_ACT_NONE));
		if (i == 1)
			ane_net_output(net, p);
		T_EQ(ane_net_build(net, &img, &size), 0);
		T_EQ(check_image(img, size, field, sizeof(field)), 0);
		T_EQ(check_builder_layout(img, net, why, sizeof(why)), 0);
		h = img;
		T_EQ(h->num_tds, ane_net_num_ops(net));
		td = (const struct ane_img_td *)((const uint8_t *)img + h->tds_offset);
		T_EQ(td[0].words[ANE_TD_BIAS_DIMS + 1], 0);
		T_EQ(td[1].words[ANE_TD_OP], ANE_OP_ELTWISE);
		ane_net_destroy(net);
	}
}

/* The checker itself must catch what the kernel catches. */
static void checker_refuses_broken_images(void)
{
	struct ane_net *net = new_net();
	float w[6] = { 1, 2, 3, 4, 5, 6 };
	const void *img;
	size_t size;
	uint8_t *copy;
	char field[128];
	struct ane_img_header *h;
	struct ane_img_rw *rw;
	struct ane_img_td *td;
	int x;

	x = ane_net_input(net, "x", 1, 1, 2, 3);
	x = ane_net_matmul(net, x, ane_net_const(net, "w", 1, 1, 3, 2, w), 0, ANE_NET_ACT_NONE);
	ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
	T_EQ(ane_net_build(net, &img, &size), 0);
	copy = malloc(size);

#define BREAK(stmt, expect) do { \
	memcpy(copy, img, size); \
	h = (struct ane_img_header *)copy; \
	rw = (struct ane_img_rw *)(copy + h->rws_offset); \
	td = (struct ane_img_td *)(copy + h->tds_offset); \
	(void)rw; (void)td; \
	stmt; \
	T_EQ(check_image(copy, size, field, sizeof(field)), -EINVAL); \
	T_CHECK(!strcmp(field, expect), "field %s, expected %s", field, expect); \
} while (0)

	BREAK(h->magic++, "header.magic");
	BREAK(h->tds_offset += 16, "header.tds_offset");
	BREAK(h->weights_offset -= 16384, "header.weights_offset");
	BREAK(h->bars_offset = h->rws_offset, "header.bars_offset (overlaps rws)");
	BREAK(rw[2].bar = 0, "rw[2].bar (destination is read-only)");	/* matmul dst -> input */
	BREAK(rw[1].offset_lo = 8, "rw[1].offset");
	BREAK(rw[0].length_lo -= 2, "rw[0].length (operand reaches 12 bytes)");
	BREAK(rw[4].reg = ANE_TD_REG_SRC1, "rw[4].reg");
	BREAK(td[1].words[ANE_TD_GROUPS] = 1, "td[1].words[12]");
	BREAK(td[0].words[ANE_TD_DST_DIMS + 3] = 3, "rw[2].length (operand reaches 12 bytes)");
	BREAK(td[0].words[ANE_TD_DST_DIMS + 1] = 2, "rw[2].length (operand reaches 16 bytes)");
	BREAK(td[0].words[ANE_TD_SRC1_DIMS + 2] = 2, "td[0] (operation)");
	/* operand layouts (minor 2): strides too small, on a non-matmul or
	 * an absent operand, and a strided extent past the binding */
	BREAK(td[0].words[ANE_TD_SRC0_LAYOUT] = ANE_TD_LAYOUT(2, 0), "td[0].src0_layout");
	BREAK(td[0].words[ANE_TD_SRC1_LAYOUT] = ANE_TD_LAYOUT(0, 1), "td[0].src1_layout");
	BREAK(td[0].words[ANE_TD_DST_LAYOUT] = ANE_TD_LAYOUT(0, 1), "td[0].dst_layout");
	BREAK(td[0].words[ANE_TD_BIAS_LAYOUT] = ANE_TD_LAYOUT(3, 0), "td[0].bias_layout");
	BREAK(td[1].words[ANE_TD_SRC0_LAYOUT] = ANE_TD_LAYOUT(4, 0), "td[1].src0_layout");
	BREAK(td[0].words[ANE_TD_SRC0_LAYOUT] = ANE_TD_LAYOUT(4, 0),
	      "rw[0].length (operand reaches 14 bytes)");
	BREAK(td[0].words[ANE_TD_SRC0_LAYOUT] = ANE_TD_LAYOUT(0xffff, 0xffff),
	      "rw[0].length (operand reaches 131076 bytes)");
	BREAK(h->num_rws = 3; ((struct ane_img_procedure *)(copy + h->procedures_offset))->num_rws = 3,
	      "td[1] (operand 0 not bound)");
#undef BREAK
	free(copy);
	ane_net_destroy(net);
}

/* Intermediates reuse space once dead, and never overlap a live one. */
static void intermediate_space_is_reused(void)
{
	struct ane_net *net = new_net();
	float *in = frand_array(4096, 1);
	const float *ins[1] = { in };
	const struct ane_img_header *h;
	const void *img;
	size_t size;
	int x, y, z, i;

	x = ane_net_input(net, "x", 1, 4, 16, 16);	/* 2 KB each */
	y = ane_net_activation(net, x, ANE_NET_ACT_TANH);
	for (i = 0; i < 10; i++) {
		z = ane_net_activation(net, y, ANE_NET_ACT_SIGMOID);
		y = ane_net_eltwise(net, i & 1 ? ANE_NET_SUB : ANE_NET_ADD, z, y, ANE_NET_ACT_NONE);
	}
	ane_net_output(net, ane_net_eltwise(net, ANE_NET_MUL, y, x, ANE_NET_ACT_NONE));
	T_EQ(ane_net_build(net, &img, &size), 0);
	h = img;
	/* 21 intermediates of 2 KB, at most 3 live at a time */
	T_CHECK(h->intermediate_size <= 3 * 2048, "intermediate_size %llu",
		(unsigned long long)h->intermediate_size);
	verify_net(net, ins, 2, 1e-3f);
	free(in);
	ane_net_destroy(net);
}

/* ================================================================ reference */

/*
 * A 2-layer MLP on a batch of two rows, every value exact in fp16:
 * relu(x W1 + b1) W2.
 */
static void reference_tiny_mlp_by_hand(void)
{
	struct ane_net *net = new_net();
	const float x[6] = { 1, 2, 3, -1, 0, 1 };
	const float w1[6] = { 1, 0, 0, 1, 1, -1 };	/* 3x2 */
	const float b1[2] = { 0.5f, 0.5f };
	const float w2[2] = { 2, 3 };			/* 2x1 */
	float y[2] = { -7, -7 }, h[4] = { -7, -7, -7, -7 };
	const float *ins[1] = { x };
	float *outs[2] = { y, h };
	int in, t, hid;

	in = ane_net_input(net, "x", 1, 1, 2, 3);
	t = ane_net_matmul(net, in, ane_net_const(net, "w1", 1, 1, 3, 2, w1), 0, ANE_NET_ACT_NONE);
	hid = ane_net_eltwise(net, ANE_NET_ADD, t, ane_net_const(net, "b1", 1, 1, 1, 2, b1),
			      ANE_NET_ACT_RELU);
	t = ane_net_matmul(net, hid, ane_net_const(net, "w2", 1, 1, 2, 1, w2), 0, ANE_NET_ACT_NONE);
	T_EQ(ane_net_output(net, t), 0);
	T_EQ(ane_net_output(net, hid), 1);
	T_EQ(ane_net_reference(net, ins, outs), 0);
	/* x W1 = [[4, -1], [0, -1]]; + b1, relu: [[4.5, 0], [0.5, 0]]; W2: [9, 1] */
	T_CHECK(h[0] == 4.5f && h[1] == 0 && h[2] == 0.5f && h[3] == 0,
		"hidden %g %g %g %g", (double)h[0], (double)h[1], (double)h[2], (double)h[3]);
	T_CHECK(y[0] == 9 && y[1] == 1, "y %g %g", (double)y[0], (double)y[1]);
	verify_net(net, ins, 0, 0);	/* and the engine agrees exactly */
	ane_net_destroy(net);
}

/*
 * A tiny conv net: conv 2x2 (+ bias, relu), max pool 2x2 stride 1,
 * global average pool, softmax; on x[h][w] = 4h + w.
 */
static void reference_tiny_conv_net_by_hand(void)
{
	struct ane_net *net = new_net();
	float x[16], pooled[8], avg[2], sm[2];
	const float w[8] = { 1, 0, 0, 1,  0, 0, 0, -1 };
	const float b[2] = { 0, 10 };
	const float *ins[1] = { x };
	float *outs[3] = { pooled, avg, sm };
	struct ane_net_conv_params cp = { 0 };
	struct ane_net_pool_params mp = { 0 }, ap = { 0 };
	int in, t, p, a, i;

	for (i = 0; i < 16; i++)
		x[i] = (float)i;
	in = ane_net_input(net, "x", 1, 1, 4, 4);
	cp.act = ANE_NET_ACT_RELU;
	t = ane_net_conv(net, in, ane_net_const(net, "w", 2, 1, 2, 2, w),
			 ane_net_const(net, "b", 1, 2, 1, 1, b), &cp);
	mp.kind = ANE_NET_POOL_MAX;
	mp.kernel_h = mp.kernel_w = 2;
	mp.stride_h = mp.stride_w = 1;
	p = ane_net_pool(net, t, &mp);
	ap.kind = ANE_NET_POOL_AVG;
	ap.kernel_h = ap.kernel_w = 2;
	a = ane_net_pool(net, p, &ap);
	ane_net_output(net, p);
	ane_net_output(net, a);
	ane_net_output(net, ane_net_softmax(net, a));
	T_EQ(ane_net_reference(net, ins, outs), 0);
	/*
	 * conv ch0 = x[h][w] + x[h+1][w+1] = 8h + 2w + 5; ch1 = relu(10 -
	 * x[h+1][w+1]) = relu(5 - 4h - w).  Max pool: ch0 [[15, 17], [23, 25]],
	 * ch1 [[5, 4], [1, 0]]; averages 20 and 2.5; softmax [1, e^-17.5 ~ 0].
	 */
	{
		const float want[8] = { 15, 17, 23, 25, 5, 4, 1, 0 };

		for (i = 0; i < 8; i++)
			T_CHECK(pooled[i] == want[i], "pooled[%d] = %g, expected %g", i,
				(double)pooled[i], (double)want[i]);
	}
	T_CHECK(avg[0] == 20 && avg[1] == 2.5f, "avg %g %g", (double)avg[0], (double)avg[1]);
	T_CHECK(sm[0] == 1 && sm[1] == 0, "softmax %g %g", (double)sm[0], (double)sm[1]);
	verify_net(net, ins, 0, 0);
	ane_net_destroy(net);
}

static void reference_activations_and_rounding(void)
{
	struct ane_net *net = new_net();
	const float x[8] = { -3, -0.5f, 0, 0.5f, 1, 2, 7, 1e-5f };
	float o[7][8];
	float *outs[7];
	const float *ins[1] = { x };
	int in, a, i;

	in = ane_net_input(net, "x", 1, 1, 1, 8);
	for (a = 0; a < 7; a++) {
		outs[a] = o[a];
		ane_net_output(net, ane_net_activation(net, in, (enum ane_net_act)a));
	}
	T_EQ(ane_net_reference(net, ins, outs), 0);
	for (i = 0; i < 8; i++) {
		float v = ane_float_from_fp16(ane_fp16_from_float(x[i]));

		T_CHECK(o[0][i] == v, "copy rounds to fp16");
		T_CHECK(o[1][i] == (v < 0 ? 0 : v), "relu");
		T_CHECK(o[2][i] == (v < 0 ? 0 : v > 6 ? 6 : v), "relu6");
	}
	/* fp16 of the exact values */
	T_EQ(ane_fp16_from_float(o[3][2]), 0x3800);		/* sigmoid(0) = 0.5 */
	T_EQ(ane_fp16_from_float(o[3][4]), ane_fp16_from_float(0.7310585786f));
	T_EQ(ane_fp16_from_float(o[4][0]), ane_fp16_from_float(-0.9950547537f));
	T_EQ(ane_fp16_from_float(o[4][3]), ane_fp16_from_float(0.4621171573f));
	T_EQ(ane_fp16_from_float(o[5][4]), ane_fp16_from_float(0.8413447461f));
	T_EQ(ane_fp16_from_float(o[5][0]), ane_fp16_from_float(-0.0040496941f));
	T_EQ(ane_fp16_from_float(o[5][1]), ane_fp16_from_float(-0.1542687694f));
	T_EQ(ane_fp16_from_float(o[6][4]), ane_fp16_from_float(0.8411919906f));
	T_EQ(ane_fp16_from_float(o[6][0]), ane_fp16_from_float(-0.0036373920f));
	T_CHECK(o[5][6] == 7 && o[6][6] == 7, "gelu(7) = 7 in fp16");
	verify_net(net, ins, 1, 0);
	ane_net_destroy(net);
}

static void reference_argument_errors(void)
{
	struct ane_net *net = new_net();
	float out[4];
	float *outs[1] = { out };
	const float *ins[1] = { NULL };
	int x;

	T_EQ(ane_net_reference(NULL, NULL, NULL), -EINVAL);
	T_EQ(ane_net_reference(net, NULL, outs), -EINVAL);
	T_MSG(net, "ane_net_reference: the net has no operations");
	x = ane_net_input(net, "x", 1, 1, 2, 2);
	ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
	T_EQ(ane_net_reference(net, NULL, outs), -EINVAL);
	T_MSG(net, "inputs is NULL, but the net has 1 inputs");
	T_EQ(ane_net_reference(net, ins, outs), -EINVAL);
	T_MSG(net, "inputs[0] is NULL (input 'x', 1x1x2x2)");
	T_EQ(ane_net_reference(net, ins, NULL), -EINVAL);
	T_MSG(net, "outputs is NULL");
	ane_net_destroy(net);
}

/* ================================================================ engine agreement */

static void engine_agrees_on_an_mlp(void)
{
	struct ane_net *net = new_net();
	float *x = frand_array(4 * 16, 2), *w1 = frand_array(16 * 32, 0.5f);
	float *b1 = frand_array(32, 0.5f), *w2 = frand_array(10 * 32, 0.5f);
	const float *ins[1] = { x };
	int in, t;

	in = ane_net_input(net, "x", 1, 1, 4, 16);
	t = ane_net_matmul(net, in, ane_net_const(net, "w1", 1, 1, 16, 32, w1), 0, ANE_NET_ACT_GELU);
	t = ane_net_eltwise(net, ANE_NET_ADD, t, ane_net_const(net, "b1", 1, 1, 1, 32, b1),
			    ANE_NET_ACT_TANH);
	ane_net_output(net, t);
	t = ane_net_matmul(net, t, ane_net_const(net, "w2t", 1, 1, 10, 32, w2),
			   ANE_NET_TRANSPOSE_B, ANE_NET_ACT_SIGMOID);
	ane_net_output(net, t);
	ane_net_output(net, ane_net_matmul(net, in, in, ANE_NET_TRANSPOSE_B, ANE_NET_ACT_GELU_TANH));
	verify_net(net, ins, 2, 1e-3f);
	free(x);
	free(w1);
	free(b1);
	free(w2);
	ane_net_destroy(net);
}

/*
 * ane_net_activation_param() (image minor version 4): every parametric
 * activation and a few others, fused ones into a matmul, DIV and POW;
 * the task descriptor's words 4 and 5; the kernel's validator accepts
 * the image; the engine agrees with the reference within one fp16 ulp
 * (engine.rst, "Unary math"); and each refusal names its field.
 */
static void activation_param_builds_runs_and_refuses(void)
{
	static const struct { enum ane_net_act act; float a, b; } p[] = {
		{ ANE_NET_ACT_ELU, 0.5f, 0 }, { ANE_NET_ACT_SELU, 1.6732632f, 1.0507009f },
		{ ANE_NET_ACT_LEAKY, 0.1f, 0 }, { ANE_NET_ACT_CLIP, -1.5f, 2.25f },
		{ ANE_NET_ACT_HARDSIGMOID, 0.2f, 0.5f }, { ANE_NET_ACT_CELU, -2.0f, 0 },
		{ ANE_NET_ACT_THRESHOLDED_RELU, 0.75f, 0 }, { ANE_NET_ACT_SIN, 0, 0 },
		{ ANE_NET_ACT_SOFTPLUS, 0, 0 },
	};
	struct ane_net *net = new_net();
	float *x = frand_array(8 * 16, 4), *w = frand_array(16 * 16, 0.5f);
	const float *ins[1] = { x };
	const struct ane_img_header *h;
	const struct ane_img_td *td;
	const void *img;
	size_t size;
	unsigned int i;
	int in, pos, t;

	in = ane_net_input(net, "x", 1, 1, 8, 16);
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		ane_net_output(net, ane_net_activation_param(net, in, p[i].act, p[i].a, p[i].b));
	pos = ane_net_activation(net, in, ANE_NET_ACT_ABS);
	ane_net_output(net, ane_net_eltwise(net, ANE_NET_DIV, in, pos, ANE_NET_ACT_NONE));
	ane_net_output(net, ane_net_eltwise(net, ANE_NET_POW, pos, in, ANE_NET_ACT_LOG));
	t = ane_net_matmul(net, in, ane_net_const(net, "w", 1, 1, 16, 16, w), 0, ANE_NET_ACT_ERF);
	ane_net_output(net, ane_net_activation(net, t, ANE_NET_ACT_SQRT));
	T_CHECK(ane_net_num_outputs(net) == 12, "%s", ane_net_errmsg(net));
	verify_net(net, ins, 1, 0);
	T_EQ(ane_net_build(net, &img, &size), 0);
	h = img;
	td = (const void *)((const uint8_t *)img + h->tds_offset);
	T_EQ(h->version_minor, ANE_IMG_VERSION_MINOR);
	T_EQ(td[3].words[ANE_TD_OP], 4);
	T_EQ(td[3].words[ANE_TD_ACT], ANE_NET_ACT_CLIP);
	T_EQ(td[3].words[ANE_TD_ACT_ALPHA], f2u(-1.5f));
	T_EQ(td[3].words[ANE_TD_ACT_BETA], f2u(2.25f));
	T_EQ(td[7].words[ANE_TD_ACT] | td[7].words[ANE_TD_ACT_ALPHA], ANE_NET_ACT_SIN);
	T_EQ(td[10].words[ANE_TD_SUBOP], ANE_NET_DIV);
	T_EQ(td[11].words[ANE_TD_SUBOP], ANE_NET_POW);
	T_EQ(td[11].words[ANE_TD_ACT], ANE_NET_ACT_LOG);
	/* refusals, each naming the field */
	T_EQ(ane_net_activation_param(net, in, ANE_NET_ACT_ELU, u2f(0x7fc00000u), 0), -EINVAL);
	T_MSG(net, "ane_net_activation_param: op 14: alpha is nan: not finite");
	T_EQ(ane_net_activation_param(net, in, ANE_NET_ACT_CLIP, 0, u2f(0x7f800000u)), -EINVAL);
	T_MSG(net, "beta is inf: not finite");
	T_EQ(ane_net_activation_param(net, in, ANE_NET_ACT_SILU, 0, 2), -EINVAL);
	T_MSG(net, "beta is 2: activation 7 takes no parameters (alpha and beta must be 0)");
	T_EQ(ane_net_activation_param(net, in, ANE_NET_ACT_CELU, 0, 0), -EINVAL);
	T_MSG(net, "alpha is 0: CELU divides by it");
	T_EQ(ane_net_activation_param(net, in, (enum ane_net_act)27, 0, 0), -EINVAL);
	T_MSG(net, "act 27 is unknown");
	T_EQ(ane_net_activation_param(net, 999, ANE_NET_ACT_ELU, 1, 0), -EINVAL);
	T_EQ(ane_net_activation(net, in, ANE_NET_ACT_ELU), -EINVAL);
	T_MSG(net, "use ane_net_activation_param()");
	T_EQ(ane_net_eltwise(net, ANE_NET_ADD, in, in, ANE_NET_ACT_LEAKY), -EINVAL);
	T_MSG(net, "activation 22 takes parameters");
	T_EQ(ane_net_activation_param(NULL, in, ANE_NET_ACT_ELU, 1, 0), -EINVAL);
	free(x);
	free(w);
	ane_net_destroy(net);
}

static void engine_agrees_on_a_conv_net(void)
{
	struct ane_net *net = new_net();
	float *x = frand_array(2 * 3 * 9 * 9, 1), *w1 = frand_array(8 * 3 * 9, 0.5f);
	float *b1 = frand_array(8, 0.5f), *dw = frand_array(8 * 9, 0.5f);
	float *pw = frand_array(4 * 8, 0.5f), *sc = frand_array(4, 1), *k = frand_array(1, 1);
	float *y = frand_array(2 * 4 * 3 * 3, 1);
	const float *ins[2] = { x, y };
	struct ane_net_conv_params c1 = { 0 }, c2 = { 0 }, c3 = { 0 };
	struct ane_net_pool_params ap = { 0 }, mp = { 0 };
	int in, in2, t, u;

	in = ane_net_input(net, "x", 2, 3, 9, 9);
	in2 = ane_net_input(net, "y", 2, 4, 3, 3);
	c1.stride_h = c1.stride_w = 2;
	c1.pad_top = c1.pad_bottom = c1.pad_left = c1.pad_right = 1;
	c1.act = ANE_NET_ACT_RELU6;
	t = ane_net_conv(net, in, ane_net_const(net, "w1", 8, 3, 3, 3, w1),
			 ane_net_const(net, "b1", 1, 8, 1, 1, b1), &c1);		/* 2x8x5x5 */
	c2.groups = 8;
	c2.dilation_h = c2.dilation_w = 2;
	c2.pad_top = c2.pad_bottom = c2.pad_left = c2.pad_right = 2;
	c2.act = ANE_NET_ACT_GELU_TANH;
	t = ane_net_conv(net, t, ane_net_const(net, "dw", 8, 1, 3, 3, dw), -1, &c2);	/* 2x8x5x5 */
	c3.act = ANE_NET_ACT_NONE;
	t = ane_net_conv(net, t, ane_net_const(net, "pw", 4, 8, 1, 1, pw), -1, &c3);	/* 2x4x5x5 */
	ap.kind = ANE_NET_POOL_AVG;
	ap.kernel_h = ap.kernel_w = 3;
	ap.stride_h = ap.stride_w = 2;
	ap.pad_top = ap.pad_left = ap.pad_bottom = ap.pad_right = 1;
	ap.count_pad = 1;
	u = ane_net_pool(net, t, &ap);							/* 2x4x3x3 */
	ane_net_output(net, u);
	mp.kind = ANE_NET_POOL_MAX;
	mp.kernel_h = mp.kernel_w = 2;
	mp.stride_h = mp.stride_w = 1;
	mp.pad_left = 1;
	mp.act = ANE_NET_ACT_SIGMOID;
	t = ane_net_pool(net, t, &mp);							/* 2x4x4x5 */
	ap.count_pad = 0;
	t = ane_net_pool(net, t, &ap);							/* 2x4x2x3 */
	t = ane_net_softmax(net, t);
	ane_net_output(net, t);
	/* the output u read back by later operations, with broadcasting */
	t = ane_net_eltwise(net, ANE_NET_MUL, u, ane_net_const(net, "scale", 1, 4, 1, 1, sc),
			    ANE_NET_ACT_NONE);
	t = ane_net_eltwise(net, ANE_NET_SUB, t, in2, ANE_NET_ACT_NONE);
	t = ane_net_eltwise(net, ANE_NET_MAX, t, ane_net_const(net, "k", 1, 1, 1, 1, k),
			    ANE_NET_ACT_NONE);
	t = ane_net_eltwise(net, ANE_NET_MIN, t, u, ANE_NET_ACT_TANH);
	ane_net_output(net, ane_net_eltwise(net, ANE_NET_MUL, t, t, ANE_NET_ACT_NONE));
	verify_net(net, ins, 2, 1e-3f);
	free(x);
	free(w1);
	free(b1);
	free(dw);
	free(pw);
	free(sc);
	free(k);
	free(y);
	ane_net_destroy(net);
}

/* ================================================================ run API */

static void open_errors_name_node_call_and_errno(void)
{
	struct ane_dev *dev = (struct ane_dev *)1;
	char err[512] = "";

	T_EQ(ane_open("/nonexistent/accel7", ANE_KIND_CONTROL, &dev, err, sizeof(err)), -ENOENT);
	T_CHECK(dev == NULL, "handle cleared");
	T_CHECK(strstr(err, "/nonexistent/accel7: open: ENOENT") != NULL, "message: %s", err);
	/* Not an ane node: refused before any ioctl reaches it. */
	T_EQ(ane_open("/dev/null", ANE_KIND_CONTROL, &dev, err, sizeof(err)), -ENODEV);
	T_CHECK(dev == NULL, "handle cleared");
	T_CHECK(strstr(err, "/dev/null: not an ane node: character device 1:3 has no driver in sysfs: ENODEV (name an ane node") != NULL,
		"message: %s", err);
	{
		char file[] = "/tmp/ane-not-a-node.XXXXXX", want[128];
		int fd = mkstemp(file);

		T_CHECK(fd >= 0, "mkstemp");
		T_EQ(ane_open(file, ANE_KIND_DIRECT, &dev, err, sizeof(err)), -ENOTTY);
		snprintf(want, sizeof(want), "%s: not an ane node: not a character device: ENOTTY",
			 file);
		T_CHECK(strstr(err, want) != NULL, "message: %s", err);
		if (fd >= 0) {
			close(fd);
			unlink(file);
		}
	}
}

/* A handle on a pipe: every ioctl fails with ENOTTY; events can be faked. */
static struct ane_dev *pipe_dev(int *wfd, enum ane_client_kind kind)
{
	struct ane_dev *dev = NULL;
	int p[2];

	if (pipe(p))
		return NULL;
	*wfd = p[1];
	T_EQ(ane_adopt_fd(p[0], kind, "pipe", &dev), 0);
	return dev;
}

static void program_create_checks_the_header_first(void)
{
	struct ane_net *net = new_net();
	struct ane_program *prog = (struct ane_program *)1;
	struct ane_dev *dev, *dp;
	const void *img;
	size_t size;
	uint8_t *copy;
	int wfd, wfd2, x;

	dev = pipe_dev(&wfd, ANE_KIND_CONTROL);
	x = ane_net_input(net, "x", 1, 1, 1, 8);
	ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
	T_EQ(ane_net_build(net, &img, &size), 0);
	copy = malloc(size);

	T_EQ(ane_program_create(dev, NULL, 0, &prog), -EINVAL);
	T_CHECK(prog == NULL, "handle cleared");
	T_CHECK(strstr(ane_errmsg(dev), "ane: pipe: ProgramCreate (control selector 3): the image is 0 bytes at NULL") != NULL,
		"message: %s", ane_errmsg(dev));
	memcpy(copy, img, size);
	copy[0] ^= 1;
	T_EQ(ane_program_create(dev, copy, size, &prog), -EINVAL);
	T_CHECK(strstr(ane_errmsg(dev), "field header.magic is 0x31454e40") != NULL, "message: %s",
		ane_errmsg(dev));
	T_CHECK(strstr(ane_errmsg(dev), ": EINVAL (") != NULL, "errno: %s", ane_errmsg(dev));
	T_EQ(ane_program_create(dev, img, size - 1, &prog), -EINVAL);
	T_CHECK(strstr(ane_errmsg(dev), "field header.image_size says") != NULL, "message: %s",
		ane_errmsg(dev));
	memcpy(copy, img, size);
	((struct ane_img_header *)copy)->version_major = 2;
	T_EQ(ane_program_create(dev, copy, size, &prog), -EINVAL);
	T_CHECK(strstr(ane_errmsg(dev), "field header.version_major is 2") != NULL, "message: %s",
		ane_errmsg(dev));
	/* a valid image reaches the ioctl */
	T_EQ(ane_program_create(dev, img, size, &prog), -ENOTTY);
	T_CHECK(strstr(ane_errmsg(dev), "ProgramCreate (control selector 3) of a") != NULL &&
		strstr(ane_errmsg(dev), "ENOTTY") != NULL, "message: %s", ane_errmsg(dev));
	/* programs need a control client */
	dp = pipe_dev(&wfd2, ANE_KIND_DIRECT);
	T_EQ(ane_program_create(dp, img, size, &prog), -EBADRQC);
	T_CHECK(strstr(ane_errmsg(dp), "on a direct-path handle: EBADRQC (programs live on control clients") != NULL,
		"message: %s", ane_errmsg(dp));
	T_EQ(ane_program_create(NULL, img, size, &prog), -EINVAL);
	T_EQ(ane_program_prepare(NULL), -EINVAL);
	T_EQ(ane_program_unprepare(NULL), -EINVAL);
	T_EQ(ane_program_destroy(NULL), 0);
	T_EQ(ane_program_token(NULL), 0);
	T_EQ(ane_request_submit(NULL, 0, NULL, 0, NULL, 1, NULL), -EINVAL);
	free(copy);
	ane_close(dp);
	ane_close(dev);
	close(wfd);
	close(wfd2);
	ane_net_destroy(net);
}

static void surface_errors(void)
{
	struct ane_surface *s = (struct ane_surface *)1;
	struct ane_dev *dev;
	int wfd;

	dev = pipe_dev(&wfd, ANE_KIND_CONTROL);
	T_EQ(ane_surface_create(dev, 0, &s), -EINVAL);
	T_CHECK(s == NULL, "handle cleared");
	T_CHECK(strstr(ane_errmsg(dev), "DRM_IOCTL_ANE_SURFACE_CREATE: field size is 0; a surface is 1 byte .. 1 GiB") != NULL,
		"message: %s", ane_errmsg(dev));
	T_EQ(ane_surface_create(dev, (size_t)2 << 30, &s), -EINVAL);
	T_EQ(ane_surface_create(dev, 4096, &s), -ENOTTY);
	T_CHECK(strstr(ane_errmsg(dev), "DRM_IOCTL_ANE_SURFACE_CREATE of 4096 bytes: ENOTTY") != NULL,
		"message: %s", ane_errmsg(dev));
	T_EQ(ane_surface_create(NULL, 4096, &s), -EINVAL);
	T_EQ(ane_surface_destroy(NULL), 0);
	T_CHECK(ane_surface_map(NULL) == NULL && ane_surface_size(NULL) == 0 &&
		ane_surface_handle(NULL) == 0, "NULL surface accessors");
	ane_close(dev);
	close(wfd);
}

static void put_event(int wfd, uint64_t seqno, int32_t status, uint64_t exec_ns)
{
	struct drm_ane_event_complete ev;

	memset(&ev, 0, sizeof(ev));
	ev.base.type = DRM_ANE_EVENT_REQUEST_COMPLETE;
	ev.base.length = sizeof(ev);
	ev.token = 0xabc;
	ev.sequence = seqno - 100;
	ev.seqno = seqno;
	ev.status = status;
	ev.exec_ns = exec_ns;
	T_EQ(write(wfd, &ev, sizeof(ev)), sizeof(ev));
}

static void wait_reads_buffers_and_explains_events(void)
{
	struct ane_dev *dev;
	struct drm_event other = { .type = 0x12345, .length = sizeof(other) };
	uint64_t exec = 1;
	int wfd, st = 0;

	dev = pipe_dev(&wfd, ANE_KIND_CONTROL);
	/* an unrelated event, then two completions, in one read */
	T_EQ(write(wfd, &other, sizeof(other)), sizeof(other));
	put_event(wfd, 105, 0, 777);
	put_event(wfd, 107, -ENXIO, 5);
	put_event(wfd, 108, -ETIMEDOUT, 5);
	put_event(wfd, 109, -EIO, 5);
	put_event(wfd, 110, -ECANCELED, 5);
	T_EQ(ane_request_wait(dev, 107, ane_deadline_ns(1000000000ull), &st, &exec), -ENXIO);
	T_EQ(st, -ENXIO);
	T_EQ(exec, 5);
	T_CHECK(strstr(ane_errmsg(dev), "request seqno 107 (token 0xabc, sequence 7) failed: ENXIO (the engine faulted on an unmapped device address") != NULL,
		"message: %s", ane_errmsg(dev));
	/* 105 was read meanwhile and kept */
	T_EQ(ane_request_wait(dev, 105, 0, &st, &exec), 0);
	T_EQ(st, 0);
	T_EQ(exec, 777);
	T_CHECK(ane_errmsg(dev)[0] == '\0', "message after success: %s", ane_errmsg(dev));
	T_EQ(ane_request_wait(dev, 108, ANE_WAIT_FOREVER, &st, NULL), -ETIMEDOUT);
	T_EQ(st, -ETIMEDOUT);
	T_CHECK(strstr(ane_errmsg(dev), "ETIMEDOUT (the firmware aborted the request at its deadline (module parameter fw_deadline_ms") != NULL,
		"message: %s", ane_errmsg(dev));
	T_EQ(ane_request_wait(dev, 109, 0, &st, NULL), -EIO);
	T_CHECK(strstr(ane_errmsg(dev), "the firmware crashed or was reset") != NULL, "message: %s",
		ane_errmsg(dev));
	T_EQ(ane_request_wait(dev, 110, 0, NULL, NULL), -ECANCELED);
	T_CHECK(strstr(ane_errmsg(dev), "the program was destroyed") != NULL, "message: %s",
		ane_errmsg(dev));
	/* nothing for 111: the wait's own timeout, told apart by the status */
	T_EQ(ane_request_wait(dev, 111, ane_deadline_ns(20000000ull), &st, &exec), -ETIMEDOUT);
	T_EQ(st, ANE_REQUEST_PENDING);
	T_CHECK(strstr(ane_errmsg(dev), "wait for request seqno 111: no completion within") != NULL &&
		strstr(ane_errmsg(dev), "not submitted through this handle") != NULL,
		"message: %s", ane_errmsg(dev));
	/* a malformed event */
	other.type = DRM_ANE_EVENT_REQUEST_COMPLETE;
	T_EQ(write(wfd, &other, sizeof(other)), sizeof(other));
	T_EQ(ane_request_wait(dev, 112, ANE_WAIT_FOREVER, &st, NULL), -EIO);
	T_CHECK(strstr(ane_errmsg(dev), "a completion of 8 bytes, not 48") != NULL, "message: %s",
		ane_errmsg(dev));
	/* the writer goes away */
	close(wfd);
	T_EQ(ane_request_wait(dev, 112, ANE_WAIT_FOREVER, &st, NULL), -EIO);
	T_CHECK(strstr(ane_errmsg(dev), "end of file") != NULL, "message: %s", ane_errmsg(dev));
	T_EQ(ane_request_wait(NULL, 1, 0, &st, NULL), -EINVAL);
	T_EQ(st, ANE_REQUEST_PENDING);
	ane_close(dev);
}

static void status_strings_and_deadlines(void)
{
	uint64_t a = ane_deadline_ns(0), b = ane_deadline_ns(1000000000ull);

	T_CHECK(b >= a + 1000000000ull, "deadlines %llu %llu", (unsigned long long)a,
		(unsigned long long)b);
	T_EQ(ane_deadline_ns(ANE_WAIT_FOREVER), ANE_WAIT_FOREVER);
	T_EQ(ane_deadline_ns(ANE_WAIT_FOREVER - 1), ANE_WAIT_FOREVER);
	T_CHECK(!strcmp(ane_request_status_str(0), "completed"), "0");
	T_CHECK(strstr(ane_request_status_str(-ENXIO), "unmapped device address") != NULL, "ENXIO");
	T_CHECK(strstr(ane_request_status_str(-ETIMEDOUT), "deadline (module parameter fw_deadline_ms") != NULL, "ETIMEDOUT");
	T_CHECK(strstr(ane_request_status_str(-EIO), "crashed or was reset") != NULL, "EIO");
	T_CHECK(strstr(ane_request_status_str(-EINVAL), "refused an operation") != NULL, "EINVAL");
	T_CHECK(strstr(ane_request_status_str(-ECANCELED), "destroyed") != NULL, "ECANCELED");
	T_CHECK(strstr(ane_request_status_str(-1234), "unknown") != NULL, "unknown");
	T_CHECK(!strcmp(ane_errno_name(-ETIMEDOUT), "ETIMEDOUT"), "ETIMEDOUT name");
	T_CHECK(!strcmp(ane_errno_name(ENXIO), "ENXIO"), "ENXIO name");
}

static void net_run_reports_where_it_stopped(void)
{
	struct ane_net *net = new_net();
	struct ane_dev *dev;
	float in[8] = { 0 }, out[8];
	const float *ins[1] = { in };
	float *outs[1] = { out };
	int wfd, x;

	x = ane_net_input(net, "x", 1, 1, 1, 8);
	T_EQ(ane_net_run(NULL, net, ins, outs), -EINVAL);
	T_MSG(net, "ane_net_run: dev is NULL");
	dev = pipe_dev(&wfd, ANE_KIND_CONTROL);
	T_EQ(ane_net_run(dev, net, ins, outs), -EINVAL);
	T_CHECK(strstr(ane_errmsg(dev), "ane_net_run: ane_net_build: the net has no operations") != NULL,
		"message: %s", ane_errmsg(dev));
	ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
	T_EQ(ane_net_run(dev, net, ins, NULL), -EINVAL);
	T_CHECK(strstr(ane_errmsg(dev), "ane_net_run: outputs is NULL") != NULL, "message: %s",
		ane_errmsg(dev));
	T_EQ(ane_net_run(dev, net, ins, outs), -ENOTTY);
	T_CHECK(strstr(ane_errmsg(dev), "ProgramCreate (control selector 3)") != NULL,
		"message: %s", ane_errmsg(dev));
	T_EQ(ane_net_run(dev, NULL, ins, outs), -EINVAL);
	ane_close(dev);
	close(wfd);
	ane_net_destroy(net);
}

/* A NULL handle or result pointer is refused, never dereferenced. */
static void null_handles_are_refused(void)
{
	struct drm_ane_status st;
	struct ane_properties props;
	struct ane_driver_version dv;
	char err[256] = "";

	T_EQ(ane_open(NULL, ANE_KIND_CONTROL, NULL, err, sizeof(err)), -EINVAL);
	T_CHECK(strstr(err, "ane_open: out is NULL") != NULL, "message: %s", err);
	T_EQ(ane_fd(NULL), -1);
	T_CHECK(strcmp(ane_node(NULL), "(no device handle)") == 0, "node: %s", ane_node(NULL));
	T_CHECK(ane_handshake(NULL) == NULL, "handshake of NULL");
	T_EQ(ane_get_status(NULL, &st), -EINVAL);
	T_EQ(ane_get_version(NULL, NULL, NULL, NULL), -EINVAL);
	T_EQ(ane_get_properties(NULL, &props), -EINVAL);
	T_EQ(ane_get_driver_version(NULL, &dv), -EINVAL);
	T_EQ(ane_device_close(NULL), -EINVAL);
	T_EQ(ane_net_create(NULL), -EINVAL);
	T_CHECK(strcmp(ane_errno_name(INT_MIN), "errno 2147483647") == 0, "INT_MIN: %s",
		ane_errno_name(INT_MIN));
}

static void adopt_fd_errors(void)
{
	struct ane_dev *dev = (struct ane_dev *)1;
	int fd = open("/dev/null", O_RDONLY);

	T_EQ(ane_adopt_fd(-1, ANE_KIND_CONTROL, NULL, &dev), -EBADF);
	T_CHECK(dev == NULL, "cleared");
	T_EQ(ane_adopt_fd(fd, (enum ane_client_kind)5, NULL, &dev), -EINVAL);	/* closes fd */
	fd = open("/dev/null", O_RDONLY);
	T_EQ(ane_adopt_fd(fd, ANE_KIND_DIRECT, NULL, &dev), 0);
	T_CHECK(strncmp(ane_node(dev), "fd ", 3) == 0, "node %s", ane_node(dev));
	ane_close(dev);
}

int main(void)
{
	T_RUN(fp16_to_float_matches_engine_for_every_value);
	T_RUN(fp16_round_trip_is_exact);
	T_RUN(fp16_from_float_matches_engine);
	T_RUN(fp16_array_matches_one_by_one);
	T_RUN(fp16_edge_cases);
	T_RUN(fp16_arrays);
	T_RUN(shape_inference);
	T_RUN(matmul_errors_name_op_and_mismatch);
	T_RUN(conv_errors);
	T_RUN(eltwise_act_pool_softmax_errors);
	T_RUN(tensor_and_output_errors);
	T_RUN(view_errors_and_layout);
	T_RUN(failures_are_sticky_and_quoted);
	T_RUN(build_errors);
	T_RUN(built_image_obeys_the_format);
	T_RUN(checker_refuses_broken_images);
	T_RUN(intermediate_space_is_reused);
	T_RUN(reference_tiny_mlp_by_hand);
	T_RUN(reference_tiny_conv_net_by_hand);
	T_RUN(reference_activations_and_rounding);
	T_RUN(reference_argument_errors);
	T_RUN(engine_agrees_on_an_mlp);
	T_RUN(engine_agrees_on_a_conv_net);
	T_RUN(activation_param_builds_runs_and_refuses);
	T_RUN(open_errors_name_node_call_and_errno);
	T_RUN(program_create_checks_the_header_first);
	T_RUN(surface_errors);
	T_RUN(wait_reads_buffers_and_explains_events);
	T_RUN(status_strings_and_deadlines);
	T_RUN(net_run_reports_where_it_stopped);
	T_RUN(adopt_fd_errors);
	T_RUN(null_handles_are_refused);
	return t_summary("builder");
}
