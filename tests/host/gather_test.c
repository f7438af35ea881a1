// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the engine's gather (ANE_OP_GATHER,
 * firmware/hw/engine/ane_math_gather.c): random tables and int16 indices --
 * negative ones counted from the end, ones out of range, -32768 and
 * 32767 -- against an index-by-index reference, strided tables and
 * destinations whose gaps stay untouched, every fp16 bit pattern (NaN
 * payloads, -0) moved unchanged, rows of NaN for the indices out of range
 * and ane_op_gather_oob() counting them, the same bits chunked, split
 * over cores along each axis and on every instruction-set path, and the
 * validator's refusals, each with its errno.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ane_math.h"
#include "engine_isa.h"

#define SENTINEL	0x7bffu

/* One gather's buffers: a table with row and plane gaps, indices, dst. */
struct gcase {
	uint32_t n, c, h, w, k;
	uint64_t xs[4], ys[4], xn, yn;
	uint16_t *x, *ix, *y, *want;
	int16_t *idx;
};

static uint64_t span(const uint32_t *dim, const uint64_t *s)
{
	uint64_t last = 0;
	unsigned int i;

	for (i = 0; i < 4; i++)
		last += (uint64_t)(dim[i] - 1) * s[i];
	return last + 1;
}

/*
 * Strides of [d0, d1, d2, d3] in NCHW order with up to @gap extra elements
 * after each row and plane (0: dense).
 */
static void strides(uint64_t *s, const uint32_t *d, unsigned int gap)
{
	s[3] = 1;
	s[2] = d[3] + (gap ? t_rng() % (gap + 1) : 0);
	s[1] = s[2] * d[2] + (gap ? t_rng() % (gap + 1) : 0);
	s[0] = s[1] * d[1] + (gap ? t_rng() % (gap + 1) : 0);
}

/* A random index: in range, negative in range, just out, or an extreme. */
static int16_t random_index(uint32_t h)
{
	switch (t_rng() % 8) {
	case 0:
		return (int16_t)-(int32_t)(1 + t_rng() % h);	/* -H .. -1 */
	case 1:
		return (int16_t)(t_rng() % 2 ? (int32_t)h : -(int32_t)h - 1);	/* just out */
	case 2:
		return t_rng() % 2 ? INT16_MIN : INT16_MAX;
	default:
		return (int16_t)(t_rng() % h);
	}
}

static void gcase_new(struct gcase *g, uint32_t n, uint32_t c, uint32_t h,
		      uint32_t w, uint32_t k, unsigned int gap)
{
	const uint32_t xd[4] = { n, c, h, w }, yd[4] = { n, c, k, w };
	uint64_t i;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->c = c;
	g->h = h;
	g->w = w;
	g->k = k;
	strides(g->xs, xd, gap);
	strides(g->ys, yd, gap);
	g->xn = span(xd, g->xs);
	g->yn = span(yd, g->ys);
	g->x = malloc(g->xn * 2);
	g->y = malloc(g->yn * 2);
	g->want = malloc(g->yn * 2);
	g->ix = malloc(k * 2);
	g->idx = (int16_t *)g->ix;
	for (i = 0; i < g->xn; i++)
		g->x[i] = (uint16_t)t_rng();
	for (i = 0; i < g->yn; i++)
		g->y[i] = SENTINEL;
	for (i = 0; i < k; i++)
		g->idx[i] = random_index(h);
}

static void gcase_free(struct gcase *g)
{
	free(g->x);
	free(g->y);
	free(g->want);
	free(g->ix);
}

static void gather_desc(struct ane_op_desc *d, const struct gcase *g)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->op = ANE_OP_GATHER;
	d->src[0].base = g->x;
	d->src[0].size = g->xn * 2;
	d->dst.base = g->y;
	d->dst.size = g->yn * 2;
	for (i = 0; i < 4; i++) {
		d->src[0].stride[i] = g->xs[i];
		d->dst.stride[i] = g->ys[i];
	}
	d->src[0].dim[0] = d->dst.dim[0] = g->n;
	d->src[0].dim[1] = d->dst.dim[1] = g->c;
	d->src[0].dim[2] = g->h;
	d->dst.dim[2] = g->k;
	d->src[0].dim[3] = d->dst.dim[3] = g->w;
	ane_tensor_dense(&d->src[1], g->ix, 1, 1, 1, g->k);
}

/* What dst must hold: the rows, NaN rows, and the sentinel in the gaps. */
static uint64_t ref_gather(struct gcase *g)
{
	uint64_t n, c, k, w, oob = 0;

	for (n = 0; n < g->yn; n++)
		g->want[n] = SENTINEL;
	for (k = 0; k < g->k; k++) {
		int64_t i = g->idx[k] < 0 ? g->idx[k] + (int64_t)g->h : g->idx[k];

		oob += i < 0 || i >= g->h;
		for (n = 0; n < g->n; n++)
			for (c = 0; c < g->c; c++)
				for (w = 0; w < g->w; w++)
					g->want[n * g->ys[0] + c * g->ys[1] +
						k * g->ys[2] + w * g->ys[3]] =
						i < 0 || i >= g->h ? 0x7e00 :
						g->x[n * g->xs[0] + c * g->xs[1] +
						     (uint64_t)i * g->xs[2] + w * g->xs[3]];
	}
	return oob;
}

/* Run @g with @chunk_work on @parts cores; every element of dst checked. */
static void check_gather(struct gcase *g, uint64_t chunk_work, uint32_t parts,
			 const char *what)
{
	struct ane_op_desc d;
	uint64_t i, bad = 0, oob;
	int ret;

	for (i = 0; i < g->yn; i++)
		g->y[i] = SENTINEL;
	gather_desc(&d, g);
	d.chunk_work = chunk_work;
	ret = parts > 1 ? t_run_split(&d, parts) : t_run_op(&d);
	T_CHECK(ret == 0, "%s: run returned %d", what, ret);
	oob = ref_gather(g);
	T_CHECK(ane_op_gather_oob(&d) == oob, "%s: %llu out of range, counted %llu",
		what, (unsigned long long)oob,
		(unsigned long long)ane_op_gather_oob(&d));
	for (i = 0; i < g->yn; i++)
		if (g->y[i] != g->want[i] && bad++ < 4)
			printf("#   %s: element %llu is 0x%04x, want 0x%04x\n", what,
			       (unsigned long long)i, g->y[i], g->want[i]);
	T_CHECK(!bad, "%s: %llu elements differ", what, (unsigned long long)bad);
}

static void test_gather_random_tables_match_the_reference(void)
{
	unsigned int it;
	char what[80];

	for (it = 0; it < 200; it++) {
		struct gcase g;

		gcase_new(&g, 1 + t_rng() % 3, 1 + t_rng() % 4, 1 + t_rng() % 40,
			  1 + t_rng() % 70, 1 + t_rng() % 50, it % 2 ? 5 : 0);
		snprintf(what, sizeof(what), "case %u: [%u, %u, %u, %u] by %u", it,
			 g.n, g.c, g.h, g.w, g.k);
		check_gather(&g, it % 3 ? 0 : 1 + t_rng() % 64, 1, what);
		gcase_free(&g);
	}
}

/* An embedding: [1, 1, V, D], every index in range, most repeated. */
static void test_gather_embedding_rows(void)
{
	struct gcase g;
	uint32_t k;

	gcase_new(&g, 1, 1, 1000, 64, 300, 0);
	for (k = 0; k < 300; k++)
		g.idx[k] = (int16_t)(k % 7 ? (int32_t)(t_rng() % 1000) :
				     -(int32_t)(t_rng() % 1000) - 1);
	check_gather(&g, 0, 1, "embedding 1000 x 64");
	check_gather(&g, 0, 3, "embedding split 3 ways");
	gcase_free(&g);
	/* the largest table: H 32767, its first and last rows by both signs */
	gcase_new(&g, 1, 1, ANE_MATH_MAX_GATHER_H, 2, 6, 0);
	g.idx[0] = 0;
	g.idx[1] = 32766;
	g.idx[2] = -1;
	g.idx[3] = -32767;
	g.idx[4] = INT16_MIN;	/* -32768 + 32767 < 0: out of range */
	g.idx[5] = INT16_MAX;	/* = H: out of range */
	check_gather(&g, 0, 1, "32767 rows");
	T_EQ(ref_gather(&g), 2);
	gcase_free(&g);
}

/* The bits pass unchanged: all 65536 patterns, NaN payloads and -0 included. */
static void test_gather_keeps_every_bit_pattern(void)
{
	struct gcase g;
	uint32_t i, bad = 0;

	gcase_new(&g, 1, 1, 256, 256, 512, 0);
	for (i = 0; i < 65536; i++)
		g.x[i] = (uint16_t)i;
	for (i = 0; i < 512; i++)	/* each row twice: forwards, from the end */
		g.idx[i] = (int16_t)(i < 256 ? 255 - (int32_t)i : (int32_t)i - 512);
	check_gather(&g, 0, 1, "every pattern");
	for (i = 0; i < 512 * 256; i++) {
		uint32_t row = i / 256 < 256 ? 255 - i / 256 : i / 256 - 256;

		bad += g.y[i] != (uint16_t)(row * 256 + i % 256);
	}
	T_EQ(bad, 0);
	/* a strided table row (W stride 2): the element loop, not memcpy */
	gcase_free(&g);
	gcase_new(&g, 1, 2, 5, 9, 7, 0);
	g.xs[3] = 2;
	g.xs[2] = 18;
	g.xs[1] = 90;
	g.xs[0] = 180;
	free(g.x);
	g.xn = 180;
	g.x = malloc(g.xn * 2);
	for (i = 0; i < g.xn; i++)
		g.x[i] = (uint16_t)(i % 3 ? 0x7c01 + i : 0x8000);	/* sNaNs, -0 */
	check_gather(&g, 0, 1, "W stride 2, sNaN payloads and -0");
	gcase_free(&g);
}

/* Indices out of range write NaN rows and are counted; nothing else is read. */
static void test_gather_out_of_range_is_nan_and_counted(void)
{
	struct gcase g;
	struct ane_op_desc d;
	uint32_t i;

	gcase_new(&g, 2, 1, 3, 4, 8, 0);
	for (i = 0; i < 8; i++)
		g.idx[i] = (int16_t[]){ -4, -3, -1, 0, 2, 3, 100, INT16_MIN }[i];
	check_gather(&g, 0, 1, "out of range");
	for (i = 0; i < 2 * 8 * 4; i++) {
		uint32_t k = (i / 4) % 8;
		int nan = k == 0 || k >= 5;

		T_CHECK((g.y[i] == 0x7e00) == nan, "element %u is 0x%04x", i, g.y[i]);
	}
	gather_desc(&d, &g);
	T_EQ(ane_op_gather_oob(&d), 4);
	/* the table a single element too short for a row in range: refused */
	d.src[0].size -= 2;
	T_EQ(ane_op_validate(&d), -ANE_MATH_ENOSPC);
	/* another operation counts nothing */
	d.op = ANE_OP_COPY;
	T_EQ(ane_op_gather_oob(&d), 0);
	gcase_free(&g);
}

/* Chunk sizes and core counts along every axis change nothing. */
static void test_gather_chunked_and_split_are_the_same(void)
{
	static const uint32_t shapes[][5] = {
		{ 4, 2, 9, 33, 11 },	/* split along N */
		{ 1, 5, 9, 33, 11 },	/* along C */
		{ 1, 1, 9, 33, 40 },	/* along K: the indices split */
		{ 1, 1, 40, 70, 1 },	/* along W: H is not K */
	};
	uint64_t works[] = { 1, 7, 100, 0 };
	unsigned int s, i;
	uint32_t parts;
	char what[80];

	for (s = 0; s < 4; s++) {
		struct gcase g;
		struct ane_op_desc d, sub;

		gcase_new(&g, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3],
			  shapes[s][4], 3);
		for (i = 0; i < 4; i++) {
			snprintf(what, sizeof(what), "shape %u, chunk work %llu", s,
				 (unsigned long long)works[i]);
			check_gather(&g, works[i], 1, what);
		}
		for (parts = 2; parts <= 4; parts++) {
			snprintf(what, sizeof(what), "shape %u, %u parts", s, parts);
			check_gather(&g, 0, parts, what);
		}
		/* each part's extents: the axis of the shape, the table whole along H */
		gather_desc(&d, &g);
		T_EQ(ane_op_split(&d, 1, 2, &sub), 0);
		T_EQ(sub.src[0].dim[ANE_H], g.h);
		T_EQ(sub.dst.dim[ANE_H], s == 2 ? g.k - g.k / 2 : g.k);
		T_EQ(sub.src[1].dim[ANE_W], sub.dst.dim[ANE_H]);
		T_EQ(sub.src[0].dim[ANE_W], sub.dst.dim[ANE_W]);
		T_EQ(ane_op_validate(&sub), 0);
		gcase_free(&g);
	}
}

/* Each class of bad GATHER, and the errno it gets. */
static void test_gather_validation_refuses_with_errnos(void)
{
	struct gcase g;
	struct ane_op_desc d, ok;
	uint64_t ws = 1;

	gcase_new(&g, 2, 3, 5, 4, 6, 0);
	gather_desc(&ok, &g);
	T_EQ(ane_op_validate(&ok), 0);
	T_EQ(ane_op_workspace_size(&ok, &ws), 0);
	T_EQ(ws, 0);
	T_EQ(ane_op_chunks(&ok), 1);
	/* indices not [1, 1, 1, K] */
	d = ok;
	ane_tensor_dense(&d.src[1], g.ix, 1, 1, 2, 3);
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = ok;
	ane_tensor_dense(&d.src[1], g.ix, 2, 1, 1, 3);
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d.src[1].dim[ANE_N] = 1;	/* [1, 1, 1, 3] for a dst of K 6 */
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d.dst.dim[ANE_H] = 3;
	T_EQ(ane_op_validate(&d), 0);
	/* no indices, or too few bytes of them */
	d = ok;
	memset(&d.src[1], 0, sizeof(d.src[1]));
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = ok;
	d.src[1].size = 11;
	T_EQ(ane_op_validate(&d), -ANE_MATH_ENOSPC);
	/* dst's extents: N, C and W the table's, H the indices' K */
	d = ok;
	d.dst.dim[ANE_H] = 5;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = ok;
	d.dst.dim[ANE_W] = 3;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = ok;
	d.dst.dim[ANE_C] = 1;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* a table of more than 32767 rows: the int16 indices cannot name them */
	d = ok;
	d.src[0].dim[ANE_H] = ANE_MATH_MAX_GATHER_H + 1;
	d.src[0].stride[ANE_C] = 0;
	d.src[0].stride[ANE_N] = 0;
	d.src[0].stride[ANE_H] = 0;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d.src[0].dim[ANE_H] = ANE_MATH_MAX_GATHER_H;
	T_EQ(ane_op_validate(&d), 0);
	/* no activation, no bias, no parameters */
	d = ok;
	d.act = ANE_ACT_RELU;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = ok;
	d.bias = ok.src[1];
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = ok;
	((unsigned char *)&d.p)[0] = 1;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* dst overlapping the table or the indices; in place is no exception */
	d = ok;
	d.dst.base = g.x;
	d.dst.size = g.xn * 2 > 2 * 6 * 4 * 6 ? g.xn * 2 : 2 * 6 * 4 * 6;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = ok;
	d.src[1].base = (uint16_t *)g.y + 4;
	d.src[1].size = 12;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* dst sharing memory with itself */
	d = ok;
	d.dst.stride[ANE_H] = 0;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* misaligned indices */
	d = ok;
	d.src[1].base = (char *)g.ix + 1;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	gcase_free(&g);
}

int main(void)
{
	T_RUN(test_gather_validation_refuses_with_errnos);
	T_RUN_EVERY_ISA(test_gather_random_tables_match_the_reference);
	T_RUN_EVERY_ISA(test_gather_embedding_rows);
	T_RUN_EVERY_ISA(test_gather_keeps_every_bit_pattern);
	T_RUN_EVERY_ISA(test_gather_out_of_range_is_nan_and_counted);
	T_RUN_EVERY_ISA(test_gather_chunked_and_split_are_the_same);
	return t_summary("gather");
}
