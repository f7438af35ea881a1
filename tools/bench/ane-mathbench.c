// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-mathbench: the compute engine's GEMM-shaped operations against
 * OpenBLAS and oneDNN, in one run.
 *
 *   ane-mathbench [--json FILE] [CASE...]
 *   ane-mathbench [--json FILE] matmul [N]
 *   ane-mathbench rows [CASE...]
 *
 * CASE is matmul512, matmul2048, conv3x3 (56 x 56, 64 -> 64 channels,
 * pad 1) or conv1x1 (14 x 14, 256 -> 256); no CASE means those four, the
 * targets.  Two more shapes come from the real networks (performance.rst,
 * "Real networks"): mlp1024 and mlp4096, the MLP's small-M MATMUL (64
 * rows of activations by a K x 4096 weight matrix, K 1024 or 4096: each
 * packed B panel serves only 64 rows), and conv3x3bias, the ResNet-style
 * block's convolution, conv3x3 with a per-channel bias (added after the
 * sgemm by OpenBLAS's side, timed; oneDNN's convolution takes it).
 * Each case runs the engine with fp16 inputs and outputs and fp32
 * accumulation, chunk by chunk as the kernel runs it, on each
 * instruction-set path this build and CPU have (SSE2 always; AVX2 + FMA +
 * F16C and AVX-512 F/BW/VL when __builtin_cpu_supports() says so), and two
 * fp32 baselines on one thread, on the same values: OpenBLAS (cblas_sgemm;
 * for conv3x3 an explicit im2col, timed, then sgemm) and oneDNN (its
 * matmul with plain row-major layouts; its forward convolution with the
 * layouts it prefers, the reorders into them not timed).  Runs alternate
 * between all of them and the best time of each counts.
 *
 * It prints each rate in GFLOP/s (2 M N K / s), the ratio of the best
 * engine path to the BEST baseline and whether that meets the target
 * (0.9); exit status 0 when every case meets it, 1 when one misses, 2 on
 * a usage or setup error or when a result disagrees with the baseline.
 * --json FILE writes the same figures as JSON.  ANE_MATH_ISA=sse2, avx2
 * or avx512 restricts the engine to that path.
 *
 * OpenBLAS reads OPENBLAS_CORETYPE when it is loaded, before main(): a
 * set OPENBLAS_CORETYPE (which pins a core, e.g. Haswell) is removed and
 * the program executes itself again, so that OpenBLAS picks the best
 * kernel for this CPU; the output says so.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>

#include "ane_json.h"
#include "ane_math.h"
#include "ane-mathbench.h"
#include "ane_opt.h"
#include "engine_host.h"

#define MIN_RUNS	3
#define MIN_SECONDS	0.5	/* per side */

double mb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: ane-mathbench [--json FILE] [CASE...]\n"
		"       ane-mathbench [--json FILE] matmul [N]   (N: 1..4096)\n"
		"       ane-mathbench [--json FILE] cores [N]    (N: 2..16 threads)\n"
		"       ane-mathbench rows [CASE...]   (softmax128 softmax1024 logsoftmax1000\n"
		"                                       layernorm768 layernorm4096 softmaxc1000 softmaxc21)\n"
		"       ane-mathbench --help | --version\n"
		"\n"
		"CASE: matmul512 matmul2048 conv3x3 conv1x1 (default: these four)\n"
		"      mlp1024 mlp4096 conv3x3bias qkv ffn1 ffn2 (real networks' shapes).\n"
		"Times the engine's fp16 operation on each instruction-set path\n"
		"against OpenBLAS sgemm and oneDNN (fp32, one thread); exit 0 when\n"
		"the best engine path reaches %.1f of the best baseline in every\n"
		"case, 1 when not, 2 on an error.  ANE_MATH_ISA=sse2|avx2|avx512\n"
		"restricts the engine to one path.  A set OPENBLAS_CORETYPE is\n"
		"removed (the program re-executes itself) so that OpenBLAS runs the\n"
		"best kernel for this CPU.\n", TARGET_RATIO);
	exit(status);
}

void *mb_xalloc(size_t bytes)
{
	void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);

	if (!p) {
		fprintf(stderr, "ane-mathbench: out of memory\n");
		exit(2);
	}
	memset(p, 0, (bytes + 63) / 64 * 64);
	return p;
}

#define DNNL_OK(call) do {						\
	dnnl_status_t st_ = (call);					\
	if (st_ != dnnl_success) {					\
		fprintf(stderr, "ane-mathbench: %s: oneDNN status %d\n",	\
			#call, (int)st_);				\
		exit(2);						\
	}								\
} while (0)

/* ------------------------------------------------------------ cases */

struct bench {
	const struct bcase *c;
	uint16_t *a16, *b16, *y16, *bias16;	/* engine: W, input, out */
	float *w32, *x32, *col32, *y32, *s32;	/* baselines */
	float *bias32;				/* one per row, or NULL */
	struct ane_op_desc d;
	struct ane_op_plan plan;
	uint64_t chunks;
	/* oneDNN */
	dnnl_engine_t eng;
	dnnl_stream_t strm;
	dnnl_primitive_t prim;
	dnnl_memory_t msrc, mwei, mdst, mscr, mbias;
	void *dsrc, *dwei, *ddst, *dscr;
};

static uint64_t seed = 0x2545f4914f6cdd1dull;

static float rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1);
}

/* im2col of x32 (cin x h x w) into col32 (K x N), zeros in the padding. */
static void im2col(const struct bcase *c, const float *x, float *col)
{
	uint32_t ci, kh, kw, oh, ow;
	float *p = col;

	for (ci = 0; ci < c->cin; ci++)
		for (kh = 0; kh < c->k; kh++)
			for (kw = 0; kw < c->k; kw++)
				for (oh = 0; oh < c->ho; oh++) {
					int ih = (int)(oh + kh) - (int)c->pad;
					const float *xr = x + ((size_t)ci * c->h + ih) * c->w;

					for (ow = 0; ow < c->wo; ow++, p++) {
						int iw = (int)(ow + kw) - (int)c->pad;

						*p = ih >= 0 && ih < (int)c->h && iw >= 0 &&
						     iw < (int)c->w ? xr[iw] : 0.0f;
					}
				}
}

/* Copy a plain fp32 buffer into a oneDNN memory of another layout. */
static void dnnl_fill(struct bench *b, const dnnl_memory_desc_t *plain,
		      const float *src, dnnl_memory_t dst)
{
	const dnnl_memory_desc_t *dmd;
	dnnl_primitive_desc_t rpd;
	dnnl_primitive_t r;
	dnnl_memory_t m;
	dnnl_exec_arg_t args[2];

	DNNL_OK(dnnl_memory_get_memory_desc(dst, &dmd));
	DNNL_OK(dnnl_memory_create(&m, plain, b->eng, (void *)src));
	DNNL_OK(dnnl_reorder_primitive_desc_create(&rpd, plain, b->eng, dmd,
						   b->eng, NULL));
	DNNL_OK(dnnl_primitive_create(&r, rpd));
	args[0] = (dnnl_exec_arg_t){ DNNL_ARG_FROM, m };
	args[1] = (dnnl_exec_arg_t){ DNNL_ARG_TO, dst };
	DNNL_OK(dnnl_primitive_execute(r, b->strm, 2, args));
	DNNL_OK(dnnl_stream_wait(b->strm));
	dnnl_primitive_destroy(r);
	dnnl_primitive_desc_destroy(rpd);
	dnnl_memory_destroy(m);
}

static dnnl_memory_t dnnl_mem(struct bench *b, dnnl_primitive_desc_t pd,
			      dnnl_query_t q, void **buf)
{
	const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, q, 0);
	dnnl_memory_t m;

	*buf = mb_xalloc(dnnl_memory_desc_get_size(md) + 64);
	DNNL_OK(dnnl_memory_create(&m, md, b->eng, *buf));
	return m;
}

static void dnnl_setup(struct bench *b, char *impl, size_t implsz)
{
	const struct bcase *c = b->c;
	dnnl_memory_desc_t src, wei, dst, psrc, pwei, bia;
	dnnl_primitive_desc_t pd;
	const char *name = "?";

	DNNL_OK(dnnl_engine_create(&b->eng, dnnl_cpu, 0));
	DNNL_OK(dnnl_stream_create(&b->strm, b->eng, dnnl_stream_default_flags));
	if (!c->conv) {
		dnnl_dims_t ad = { c->M, c->K }, bd = { c->K, c->N }, cd = { c->M, c->N };
		dnnl_matmul_desc_t md;

		DNNL_OK(dnnl_memory_desc_init_by_tag(&src, 2, ad, dnnl_f32, dnnl_ab));
		DNNL_OK(dnnl_memory_desc_init_by_tag(&wei, 2, bd, dnnl_f32, dnnl_ab));
		DNNL_OK(dnnl_memory_desc_init_by_tag(&dst, 2, cd, dnnl_f32, dnnl_ab));
		psrc = src;
		pwei = wei;
		DNNL_OK(dnnl_matmul_desc_init(&md, &src, &wei, NULL, &dst));
		DNNL_OK(dnnl_primitive_desc_create(&pd, &md, NULL, b->eng, NULL));
	} else {
		dnnl_dims_t sd = { 1, c->cin, c->h, c->w };
		dnnl_dims_t wd = { c->M, c->cin, c->k, c->k };
		dnnl_dims_t dd = { 1, c->M, c->ho, c->wo };
		dnnl_dims_t st = { 1, 1 }, pl = { c->pad, c->pad };
		dnnl_convolution_desc_t cd;

		DNNL_OK(dnnl_memory_desc_init_by_tag(&src, 4, sd, dnnl_f32, dnnl_format_tag_any));
		DNNL_OK(dnnl_memory_desc_init_by_tag(&wei, 4, wd, dnnl_f32, dnnl_format_tag_any));
		DNNL_OK(dnnl_memory_desc_init_by_tag(&dst, 4, dd, dnnl_f32, dnnl_format_tag_any));
		DNNL_OK(dnnl_memory_desc_init_by_tag(&psrc, 4, sd, dnnl_f32, dnnl_nchw));
		DNNL_OK(dnnl_memory_desc_init_by_tag(&pwei, 4, wd, dnnl_f32, dnnl_oihw));
		if (c->bias) {
			dnnl_dims_t bd = { c->M };

			DNNL_OK(dnnl_memory_desc_init_by_tag(&bia, 1, bd, dnnl_f32, dnnl_a));
		}
		DNNL_OK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference,
							   dnnl_convolution_direct,
							   &src, &wei, c->bias ? &bia : NULL,
							   &dst, st, pl, pl));
		DNNL_OK(dnnl_primitive_desc_create(&pd, &cd, NULL, b->eng, NULL));
	}
	b->msrc = dnnl_mem(b, pd, dnnl_query_src_md, &b->dsrc);
	b->mwei = dnnl_mem(b, pd, dnnl_query_weights_md, &b->dwei);
	b->mdst = dnnl_mem(b, pd, dnnl_query_dst_md, &b->ddst);
	b->mscr = dnnl_mem(b, pd, dnnl_query_scratchpad_md, &b->dscr);
	/* the bias is plain (one float per output channel) in every layout */
	if (c->bias)
		DNNL_OK(dnnl_memory_create(&b->mbias, &bia, b->eng, b->bias32));
	/* matmul: src is W (M x K), weights the right-hand side */
	dnnl_fill(b, &psrc, c->conv ? b->x32 : b->w32, b->msrc);
	dnnl_fill(b, &pwei, c->conv ? b->w32 : b->x32, b->mwei);
	DNNL_OK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name));
	snprintf(impl, implsz, "%s", name);
	DNNL_OK(dnnl_primitive_create(&b->prim, pd));
	dnnl_primitive_desc_destroy(pd);
}

static void dnnl_run(struct bench *b)
{
	dnnl_exec_arg_t args[5] = {
		{ DNNL_ARG_SRC, b->msrc }, { DNNL_ARG_WEIGHTS, b->mwei },
		{ DNNL_ARG_DST, b->mdst }, { DNNL_ARG_SCRATCHPAD, b->mscr },
		{ DNNL_ARG_BIAS, b->mbias },
	};

	DNNL_OK(dnnl_primitive_execute(b->prim, b->strm, b->mbias ? 5 : 4, args));
	DNNL_OK(dnnl_stream_wait(b->strm));
}

static void dnnl_teardown(struct bench *b)
{
	dnnl_primitive_destroy(b->prim);
	dnnl_memory_destroy(b->msrc);
	dnnl_memory_destroy(b->mwei);
	dnnl_memory_destroy(b->mdst);
	dnnl_memory_destroy(b->mscr);
	if (b->mbias)
		dnnl_memory_destroy(b->mbias);
	dnnl_stream_destroy(b->strm);
	dnnl_engine_destroy(b->eng);
	free(b->dsrc);
	free(b->dwei);
	free(b->ddst);
	free(b->dscr);
}

/* OpenBLAS: (im2col, timed, for a k x k convolution, then) sgemm. */
static void openblas_run(struct bench *b, float *out)
{
	const struct bcase *c = b->c;
	const float *rhs = b->x32;

	if (c->conv && c->k > 1) {
		im2col(c, b->x32, b->col32);
		rhs = b->col32;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c->M, c->N, c->K,
		    1.0f, b->w32, c->K, rhs, c->N, 0.0f, out, c->N);
	if (b->bias32) {
		uint32_t m, n;

		for (m = 0; m < c->M; m++)
			for (n = 0; n < c->N; n++)
				out[(size_t)m * c->N + n] += b->bias32[m];
	}
}

/*
 * One engine run, chunk by chunk from the prepared plan, as the kernel's
 * engine runs it; per-chunk times go to best[] (minimum).
 */
static void engine_run(const struct bench *b, double *best)
{
	uint64_t i;

	for (i = 0; i < b->chunks; i++) {
		double t = best ? mb_now() : 0;

		ane_op_run_planned(&b->d, &b->plan, i);
		if (best) {
			t = mb_now() - t;
			if (t < best[i])
				best[i] = t;
		}
	}
}

/* The engine's result against the fp32 one, as a fraction of the bound. */
static double check_result(const struct bench *b)
{
	size_t mn = (size_t)b->c->M * b->c->N, i;
	double max_err = 0;

	/*
	 * What both may be off by: an fp16 ulp plus fp32 accumulation of K
	 * terms (K 2^-24 |W||col|, for each of the two).
	 */
	for (i = 0; i < mn; i++) {
		double e = fabs((double)ane_fp16_to_fp32(b->y16[i]) - b->y32[i]);
		double bound = ldexp(fabs(b->y32[i]), -10) + ldexp(1, -24) +
			       2.0 * b->c->K * ldexp(b->s32[i], -24);

		if (e / bound > max_err)
			max_err = e / bound;
	}
	return max_err;
}

static int setup(struct bench *b, const struct bcase *c)
{
	size_t nw = (size_t)c->M * c->K, nx, ny = (size_t)c->M * c->N, i;
	uint64_t ws;
	int ret;

	memset(b, 0, sizeof(*b));
	b->c = c;
	nx = c->conv ? (size_t)c->cin * c->h * c->w : (size_t)c->K * c->N;
	b->a16 = mb_xalloc(nw * 2);
	b->b16 = mb_xalloc(nx * 2);
	b->y16 = mb_xalloc(ny * 2);
	b->w32 = mb_xalloc(nw * 4);
	b->x32 = mb_xalloc(nx * 4);
	b->col32 = mb_xalloc((size_t)c->K * c->N * 4);
	b->y32 = mb_xalloc(ny * 4);
	b->s32 = mb_xalloc(ny * 4);
	for (i = 0; i < nw; i++) {
		b->a16[i] = ane_fp32_to_fp16(rnd());
		b->w32[i] = ane_fp16_to_fp32(b->a16[i]);
	}
	for (i = 0; i < nx; i++) {
		b->b16[i] = ane_fp32_to_fp16(rnd());
		b->x32[i] = ane_fp16_to_fp32(b->b16[i]);
	}
	if (c->bias) {
		b->bias16 = mb_xalloc((size_t)c->M * 2);
		b->bias32 = mb_xalloc((size_t)c->M * 4);
		for (i = 0; i < c->M; i++) {
			b->bias16[i] = ane_fp32_to_fp16(rnd());
			b->bias32[i] = ane_fp16_to_fp32(b->bias16[i]);
		}
	}

	b->d.op = c->conv ? ANE_OP_CONV : ANE_OP_MATMUL;
	if (c->conv) {
		ane_tensor_dense(&b->d.src[0], b->b16, 1, c->cin, c->h, c->w);
		ane_tensor_dense(&b->d.src[1], b->a16, c->M, c->cin, c->k, c->k);
		ane_tensor_dense(&b->d.dst, b->y16, 1, c->M, c->ho, c->wo);
		b->d.p.conv.stride[0] = b->d.p.conv.stride[1] = 1;
		b->d.p.conv.dilation[0] = b->d.p.conv.dilation[1] = 1;
		for (i = 0; i < 4; i++)
			b->d.p.conv.pad[i] = c->pad;
		b->d.p.conv.groups = 1;
		if (c->bias)
			ane_tensor_dense(&b->d.bias, b->bias16, 1, c->M, 1, 1);
	} else {
		ane_tensor_dense(&b->d.src[0], b->a16, 1, 1, c->M, c->K);
		ane_tensor_dense(&b->d.src[1], b->b16, 1, 1, c->K, c->N);
		ane_tensor_dense(&b->d.dst, b->y16, 1, 1, c->M, c->N);
	}
	ret = ane_op_workspace_size(&b->d, &ws);
	if (!ret) {
		b->d.work = ws ? mb_xalloc(ws) : NULL;
		b->d.work_size = ws;
		ret = ane_op_prepare(&b->d, &b->plan);
	}
	if (ret) {
		fprintf(stderr, "ane-mathbench: %s: descriptor rejected: %s (%s)\n",
			c->name, strerrorname_np(-ret) ? strerrorname_np(-ret) : "?",
			strerror(-ret));
		return 2;
	}
	b->chunks = ane_op_plan_chunks(&b->plan);
	return 0;
}

static void teardown(struct bench *b)
{
	free(b->d.work);
	free(b->a16);
	free(b->b16);
	free(b->y16);
	free(b->w32);
	free(b->x32);
	free(b->col32);
	free(b->y32);
	free(b->s32);
	free(b->bias16);
	free(b->bias32);
}

static int bench_case(const struct bcase *c, struct result *r)
{
	double flops = 2.0 * c->M * c->N * c->K;
	double best_e[ANE_MATH_ISA_COUNT], spent_e[ANE_MATH_ISA_COUNT];
	double best_o = 1e30, best_d = 1e30, spent_o = 0, spent_d = 0;
	int usable[ANE_MATH_ISA_COUNT], bad = 0;
	double *chunk_t, t, min_spent;
	struct bench b;
	uint32_t isa;
	size_t i, nw = (size_t)c->M * c->K, nk = (size_t)c->K * c->N;
	int ret;

	ret = setup(&b, c);
	if (ret)
		return ret;
	memset(r, 0, sizeof(*r));
	r->chunks = b.chunks;
	dnnl_setup(&b, r->dnnl_impl, sizeof(r->dnnl_impl));
	chunk_t = mb_xalloc(b.chunks * sizeof(double));

	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		usable[isa] = engine_isa_usable(isa);
		best_e[isa] = 1e30;
		spent_e[isa] = 0;
		if (usable[isa]) {
			r->top_isa = isa;
			ane_math_set_isa(isa);
			engine_run(&b, NULL);	/* warm up */
		}
	}
	openblas_run(&b, b.y32);
	dnnl_run(&b);

	for (;;) {
		min_spent = 1e30;
		for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
			if (!usable[isa])
				continue;
			ane_math_set_isa(isa);
			t = mb_now();
			engine_run(&b, NULL);
			t = mb_now() - t;
			spent_e[isa] += t;
			if (t < best_e[isa])
				best_e[isa] = t;
			if (spent_e[isa] < min_spent)
				min_spent = spent_e[isa];
		}
		t = mb_now();
		openblas_run(&b, b.y32);
		t = mb_now() - t;
		spent_o += t;
		if (t < best_o)
			best_o = t;
		t = mb_now();
		dnnl_run(&b);
		t = mb_now() - t;
		spent_d += t;
		if (t < best_d)
			best_d = t;
		if (spent_o < min_spent)
			min_spent = spent_o;
		if (spent_d < min_spent)
			min_spent = spent_d;
		r->runs++;
		if ((r->runs >= MIN_RUNS && min_spent >= MIN_SECONDS) ||
		    r->runs > 10000)
			break;
	}

	/* S = |W| |col| for the error bound, then C = W col */
	if (c->conv)
		im2col(c, b.x32, b.col32);
	else
		memcpy(b.col32, b.x32, nk * 4);
	for (i = 0; i < nw; i++)
		b.w32[i] = fabsf(b.w32[i]);
	for (i = 0; i < nk; i++)
		b.col32[i] = fabsf(b.col32[i]);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c->M, c->N, c->K,
		    1.0f, b.w32, c->K, b.col32, c->N, 0.0f, b.s32, c->N);
	for (i = 0; i < nw; i++)
		b.w32[i] = ane_fp16_to_fp32(b.a16[i]);
	openblas_run(&b, b.y32);

	r->best_isa = ANE_MATH_ISA_SSE2;
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		uint64_t k;
		int n;

		if (!usable[isa])
			continue;
		ane_math_set_isa(isa);
		/* Each chunk's best time over a few runs; the longest of those. */
		for (k = 0; k < b.chunks; k++)
			chunk_t[k] = 1e30;
		for (n = 0; n < 3; n++)
			engine_run(&b, chunk_t);
		for (k = 0; k < b.chunks; k++)
			if (chunk_t[k] * 1e6 > r->chunk_us[isa])
				r->chunk_us[isa] = chunk_t[k] * 1e6;
		r->err[isa] = check_result(&b);
		if (r->err[isa] > 1.0)
			bad = 1;
		r->engine[isa] = flops / best_e[isa] / 1e9;
		if (r->engine[isa] > r->engine[r->best_isa])
			r->best_isa = isa;
	}
	ane_math_set_isa(ANE_MATH_ISA_SSE2);
	r->openblas = flops / best_o / 1e9;
	r->onednn = flops / best_d / 1e9;
	r->best_base = r->openblas > r->onednn ? r->openblas : r->onednn;
	r->ratio = r->engine[r->best_isa] / r->best_base;

	free(chunk_t);
	dnnl_teardown(&b);
	teardown(&b);
	if (bad) {
		fprintf(stderr, "ane-mathbench: %s: engine results disagree with OpenBLAS's\n",
			c->name);
		return 2;
	}
	return 0;
}

static void print_case(const struct bcase *c, const struct result *r)
{
	uint32_t isa;

	printf("%s: M %u N %u K %u, best of %d runs each, %llu chunks\n",
	       c->name, c->M, c->N, c->K, r->runs, (unsigned long long)r->chunks);
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++) {
		if (!r->engine[isa]) {
			printf("  engine %-7s     n/a     (%s)\n", engine_isa_short(isa),
			       ane_math_isa_built(isa) ?
			       "not on this CPU or excluded by ANE_MATH_ISA" : "not built");
			continue;
		}
		printf("  engine %-7s %8.2f GFLOP/s  (fp16 in/out, fp32 accumulate; longest chunk %.0f us; %.2g of the rounding bound)\n",
		       engine_isa_short(isa), r->engine[isa], r->chunk_us[isa], r->err[isa]);
	}
	printf("  openblas       %8.2f GFLOP/s  (fp32, 1 thread, core %s%s)\n",
	       r->openblas, openblas_get_corename(),
	       c->conv && c->k > 1 ? ", im2col + sgemm" : ", sgemm");
	printf("  onednn         %8.2f GFLOP/s  (fp32, 1 thread, %s)\n",
	       r->onednn, r->dnnl_impl);
	printf("  ratio          %8.3f  (engine %s / best baseline, %s); target >= %.1f: %s\n",
	       r->ratio, engine_isa_short(r->best_isa),
	       r->openblas >= r->onednn ? "openblas" : "onednn", TARGET_RATIO,
	       r->ratio >= TARGET_RATIO ? "met" : "MISSED");
}

#define MAX_CASES	8
#define N_TARGET_CASES	4	/* the first four known cases: issue 14's */

int main(int argc, char **argv)
{
	static struct bcase cases[MAX_CASES];
	static struct result res[MAX_CASES];
	struct cpu_id cpu;
	static const struct bcase known[] = {
		{ .name = "matmul512", .M = 512, .N = 512, .K = 512 },
		{ .name = "matmul2048", .M = 2048, .N = 2048, .K = 2048 },
		{ .name = "conv3x3", .conv = 1, .M = 64, .N = 56 * 56, .K = 64 * 9,
		  .cin = 64, .h = 56, .w = 56, .k = 3, .pad = 1, .ho = 56, .wo = 56 },
		{ .name = "conv1x1", .conv = 1, .M = 256, .N = 14 * 14, .K = 256,
		  .cin = 256, .h = 14, .w = 14, .k = 1, .pad = 0, .ho = 14, .wo = 14 },
		/* not run by default: the real networks' shapes */
		{ .name = "mlp1024", .M = 64, .N = 4096, .K = 1024 },
		{ .name = "mlp4096", .M = 64, .N = 4096, .K = 4096 },
		{ .name = "qkv", .M = 128, .N = 1536, .K = 512 },
		{ .name = "ffn1", .M = 128, .N = 2048, .K = 512 },
		{ .name = "ffn2", .M = 128, .N = 512, .K = 2048 },
		{ .name = "conv3x3bias", .conv = 1, .bias = 1, .M = 64, .N = 56 * 56,
		  .K = 64 * 9, .cin = 64, .h = 56, .w = 56, .k = 3, .pad = 1, .ho = 56,
		  .wo = 56 },
	};
	static char nbuf[MAX_CASES][32];
	const char *json = NULL, *coretype = getenv("OPENBLAS_CORETYPE");
	int ncases = 0, i, j, ret, missed = 0, unset = 0;
	uint32_t isa;

	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int n, cores = 0;
	int o;

	ane_opt_init("ane-mathbench");
	while ((o = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			json = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'V':
			printf("ane-mathbench (ane) %s\n", ANE_VERSION);
			return 0;
		default:
			return ane_opt_bad(o, argv);
		}
	}
	/* CASE..., matmul [N] among them, or cores [N] alone */
	for (i = optind; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int num = v && *v >= '0' && *v <= '9';

		if (!strcmp(a, "rows")) {
			if (i != optind)
				return ane_usage_error("rows [CASE...] runs alone");
			return rows_bench(argv + i + 1, argc - i - 1);
		}
		if (!strcmp(a, "cores")) {
			if (i != optind || argc - i > 2 - !num)
				return ane_usage_error("cores [N] runs alone, not with '%s'",
						       argv[i == optind ? i + 1 + num : optind]);
			n = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
			if (num && ane_opt_uint("cores", v, 2, 16, "threads", &n))
				return 2;
			cores = n < 2 ? 2 : n;
			break;
		}
		if (ncases == MAX_CASES)
			return ane_usage_error("at most %d cases, not '%s' too", MAX_CASES, a);
		if (!strcmp(a, "matmul")) {
			n = 512;
			if (num && ane_opt_uint("matmul", argv[++i], 1, 4096, NULL, &n))
				return 2;
			snprintf(nbuf[ncases], sizeof(nbuf[0]), "matmul%u", n);
			cases[ncases] = (struct bcase){ .name = nbuf[ncases],
				.M = n, .N = n, .K = n };
			ncases++;
			continue;
		}
		for (j = 0; j < (int)(sizeof(known) / sizeof(known[0])); j++)
			if (!strcmp(a, known[j].name))
				break;
		if (j == (int)(sizeof(known) / sizeof(known[0])))
			return ane_usage_error("unknown case '%s' (ane-mathbench --help lists them)", a);
		cases[ncases++] = known[j];
	}
	/* OpenBLAS read it when it was loaded: drop it and start again. */
	if (coretype && *coretype) {
		unsetenv("OPENBLAS_CORETYPE");
		setenv("ANE_MATHBENCH_UNSET_CORETYPE", coretype, 1);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "ane-mathbench: cannot re-execute itself without OPENBLAS_CORETYPE\n");
		return 2;
	}
	coretype = getenv("ANE_MATHBENCH_UNSET_CORETYPE");
	unset = coretype && *coretype;
	if (cores)
		return cores_bench(cores, json);
	if (!ncases)
		for (j = 0; j < N_TARGET_CASES; j++)
			cases[ncases++] = known[j];

	openblas_set_num_threads(1);
	omp_set_num_threads(1);
	for (isa = ANE_MATH_ISA_COUNT; isa-- > 0;)
		if (engine_isa_usable(isa))
			break;
	cpu_describe(&cpu);
	printf("cpu: %s (%s, family 0x%x model 0x%x): %s\n", cpu.model_name,
	       cpu.vendor[0] ? cpu.vendor : "unknown vendor", cpu.family, cpu.model, cpu.uarch);
	printf("engine isa: %s (the fastest this CPU and build have; built:", engine_isa_name(isa));
	for (isa = 0; isa < ANE_MATH_ISA_COUNT; isa++)
		if (ane_math_isa_built(isa))
			printf(" %s", engine_isa_short(isa));
	printf(")\nopenblas core: %s (%s)\n", openblas_get_corename(),
	       unset ? "OPENBLAS_CORETYPE was set in the environment and is unset here, so OpenBLAS picks its best kernel" :
		       "OPENBLAS_CORETYPE not set: OpenBLAS's own choice");

	for (i = 0; i < ncases; i++) {
		ret = bench_case(&cases[i], &res[i]);
		if (ret)
			return ret;
		print_case(&cases[i], &res[i]);
		fflush(stdout);
		if (res[i].ratio < TARGET_RATIO)
			missed = 1;
	}
	if (json && json_kernels(json, cases, res, ncases, unset, missed))
		return 2;
	printf("all cases %s the target of %.1f x the best baseline\n",
	       missed ? "do NOT meet" : "meet", TARGET_RATIO);
	return missed ? 1 : 0;
}
