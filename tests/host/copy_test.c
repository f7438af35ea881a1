// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the engine's strided copy (ANE_OP_COPY,
 * firmware/hw/engine/ane_math_copy.c): random views with signed source
 * strides and offsets against a reference index computation, every
 * permutation of the axes, reversals, broadcasts and fills, every fp16
 * bit pattern passed through unchanged, elements outside the destination
 * view untouched, the same bits chunked, split over cores and on every
 * instruction-set path, and the validator's refusals, each with its
 * errno.
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

/* A view of a buffer of @elems fp16 values for a COPY. */
struct view {
	uint32_t dim[4];
	int64_t stride[4];
	int64_t off;
};

static void set_tensor(struct ane_tensor *t, uint16_t *buf, uint64_t elems,
		       const struct view *v)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->base = buf;
	t->size = elems * 2;
	for (i = 0; i < 4; i++) {
		t->dim[i] = v->dim[i];
		t->stride[i] = (uint64_t)v->stride[i];
	}
}

static void copy_desc(struct ane_op_desc *d, uint16_t *x, uint64_t xn,
		      const struct view *xv, uint16_t *y, uint64_t yn,
		      const struct view *yv)
{
	memset(d, 0, sizeof(*d));
	d->op = ANE_OP_COPY;
	set_tensor(&d->src[0], x, xn, xv);
	set_tensor(&d->dst, y, yn, yv);
	d->p.copy.src_offset = (uint64_t)xv->off;
	d->p.copy.dst_offset = (uint64_t)yv->off;
}

static int64_t v_index(const struct view *v, uint64_t n, uint64_t c,
		       uint64_t h, uint64_t w)
{
	return v->off + (int64_t)n * v->stride[0] + (int64_t)c * v->stride[1] +
	       (int64_t)h * v->stride[2] + (int64_t)w * v->stride[3];
}

/*
 * What the copy must leave in @y (@yn elements, @before its contents):
 * @before, with every element of the destination view replaced by its
 * source element.
 */
static void ref_copy(const uint16_t *x, const struct view *xv,
		     const uint16_t *before, const struct view *yv,
		     uint16_t *want, uint64_t yn)
{
	uint64_t n, c, h, w;

	memcpy(want, before, yn * 2);
	for (n = 0; n < xv->dim[0]; n++)
		for (c = 0; c < xv->dim[1]; c++)
			for (h = 0; h < xv->dim[2]; h++)
				for (w = 0; w < xv->dim[3]; w++)
					want[v_index(yv, n, c, h, w)] =
						x[v_index(xv, n, c, h, w)];
}

/* The dense view of @d. */
static struct view dense(uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	struct view v = { { n, c, h, w },
			  { (int64_t)c * h * w, (int64_t)h * w, w, 1 }, 0 };

	return v;
}

static uint16_t *random_bits(uint64_t n)
{
	uint16_t *b = malloc(n * 2 + 2);
	uint64_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint16_t)t_rng();
	return b;
}

/*
 * Copy @xv of a random buffer into @yv of a sentinel-filled one with
 * @chunk_work (0: the default) and @parts cores (1: unsplit); the whole
 * destination buffer must be the reference's.
 */
static int check_copy(const struct view *xv, const struct view *yv,
		      uint64_t chunk_work, uint32_t parts, const char *what)
{
	uint64_t xn = 1, yn = 1, i, bad = 0;
	int64_t lo, hi;
	uint16_t *x, *y, *before, *want;
	struct ane_op_desc d;
	struct ane_tensor t = { 0 };
	int ret;

	for (i = 0; i < 4; i++) {
		t.dim[i] = xv->dim[i];
		t.stride[i] = (uint64_t)xv->stride[i];
	}
	if (ane_view_range(&t, (uint64_t)xv->off, 1, &lo, &hi) || lo < 0)
		return -1;
	xn = (uint64_t)hi + 1 + t_rng() % 4;
	for (i = 0; i < 4; i++) {
		t.dim[i] = yv->dim[i];
		t.stride[i] = (uint64_t)yv->stride[i];
	}
	if (ane_view_range(&t, (uint64_t)yv->off, 0, &lo, &hi))
		return -1;
	yn = (uint64_t)hi + 1 + t_rng() % 4;
	x = random_bits(xn);
	y = malloc(yn * 2);
	before = malloc(yn * 2);
	want = malloc(yn * 2);
	for (i = 0; i < yn; i++)
		y[i] = before[i] = (i & 1) ? SENTINEL : (uint16_t)t_rng();
	copy_desc(&d, x, xn, xv, y, yn, yv);
	d.chunk_work = chunk_work;
	ret = parts > 1 ? t_run_split(&d, parts) : t_run_op(&d);
	T_CHECK(ret == 0, "%s: run returned %d", what, ret);
	ref_copy(x, xv, before, yv, want, yn);
	for (i = 0; i < yn; i++)
		if (y[i] != want[i] && bad++ < 4)
			printf("#   %s: element %llu is 0x%04x, want 0x%04x\n", what,
			       (unsigned long long)i, y[i], want[i]);
	T_CHECK(!bad, "%s: %llu elements differ", what, (unsigned long long)bad);
	free(x);
	free(y);
	free(before);
	free(want);
	return 0;
}

/* A random view: extents, signed strides (0 sometimes), an offset that keeps it in range. */
static void random_src_view(struct view *v, const uint32_t *dim)
{
	int64_t lo = 0;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		int64_t s = (int64_t)(t_rng() % 41) - 20;

		if (t_rng() % 5 == 0)
			s = 0;
		v->dim[i] = dim[i];
		v->stride[i] = s;
		if (s < 0)
			lo += (int64_t)(dim[i] - 1) * s;
	}
	v->off = -lo + (int64_t)(t_rng() % 7);
}

/* A random destination view: a permutation of dense strides, gaps between. */
static void random_dst_view(struct view *v, const uint32_t *dim)
{
	unsigned int order[4] = { 0, 1, 2, 3 }, i, j, k;
	int64_t s = 1 + (int64_t)(t_rng() % 2);

	for (i = 3; i > 0; i--) {
		j = (unsigned int)(t_rng() % (i + 1));
		k = order[i];
		order[i] = order[j];
		order[j] = k;
	}
	for (i = 0; i < 4; i++) {
		k = order[i];
		v->dim[k] = dim[k];
		v->stride[k] = s;
		s = s * dim[k] + (int64_t)(t_rng() % 3);
	}
	v->off = (int64_t)(t_rng() % 9);
}

static void test_copy_random_views_match_the_reference(void)
{
	unsigned int it;
	char what[64];

	for (it = 0; it < 300; it++) {
		uint32_t dim[4] = { 1 + (uint32_t)(t_rng() % 3), 1 + (uint32_t)(t_rng() % 4),
				    1 + (uint32_t)(t_rng() % 5), 1 + (uint32_t)(t_rng() % 70) };
		struct view xv, yv;

		random_src_view(&xv, dim);
		random_dst_view(&yv, dim);
		snprintf(what, sizeof(what), "case %u", it);
		T_CHECK(!check_copy(&xv, &yv, it % 3 ? 0 : 1 + t_rng() % 64, 1, what),
			"%s: views out of range", what);
	}
}

/* Every permutation of four axes: dst[i] = x.dim[perm[i]], the transpose. */
static void test_copy_transposes_every_permutation(void)
{
	static const uint32_t xd[4] = { 2, 3, 4, 5 };
	uint32_t p[4];
	unsigned int count = 0;
	char what[64];

	for (p[0] = 0; p[0] < 4; p[0]++)
		for (p[1] = 0; p[1] < 4; p[1]++)
			for (p[2] = 0; p[2] < 4; p[2]++)
				for (p[3] = 0; p[3] < 4; p[3]++) {
					struct view x = dense(xd[0], xd[1], xd[2], xd[3]), xv, yv;
					unsigned int i;

					if (p[0] == p[1] || p[0] == p[2] || p[0] == p[3] ||
					    p[1] == p[2] || p[1] == p[3] || p[2] == p[3])
						continue;
					for (i = 0; i < 4; i++) {
						xv.dim[i] = xd[p[i]];
						xv.stride[i] = x.stride[p[i]];
					}
					xv.off = 0;
					yv = dense(xv.dim[0], xv.dim[1], xv.dim[2], xv.dim[3]);
					snprintf(what, sizeof(what), "perm %u%u%u%u",
						 p[0], p[1], p[2], p[3]);
					check_copy(&xv, &yv, 0, 1, what);
					count++;
				}
	T_EQ(count, 24);
}

/* Reversed axes, a reflection's negative strides, broadcasts and a fill. */
static void test_copy_reverses_broadcasts_and_fills(void)
{
	struct view xv = dense(2, 3, 4, 9), yv = dense(2, 3, 4, 9), fv;
	uint16_t one = 0x3c00, y[24];
	struct ane_op_desc d;
	unsigned int i;

	/* x[:, ::-1, :, ::-1] */
	xv.stride[1] = -xv.stride[1];
	xv.stride[3] = -1;
	xv.off = 2 * 4 * 9 + 8;
	check_copy(&xv, &yv, 0, 1, "reversed C and W");
	/* every W-row the first row: stride 0 on C and H */
	xv = dense(2, 3, 4, 9);
	xv.stride[1] = 0;
	xv.stride[2] = 0;
	check_copy(&xv, &yv, 0, 1, "broadcast over C and H");
	/* a fill: one element, every stride 0, into every other element */
	fv = (struct view){ { 1, 2, 3, 4 }, { 0, 0, 0, 0 }, 0 };
	yv = (struct view){ { 1, 2, 3, 4 }, { 0, 12, 4, 1 }, 0 };
	memset(y, 0, sizeof(y));
	copy_desc(&d, &one, 1, &fv, y, 24, &yv);
	T_EQ(t_run_op(&d), 0);
	for (i = 0; i < 24; i++)
		T_EQ(y[i], 0x3c00);
	/* zero-insertion: x into every other column of a wider row */
	xv = dense(1, 2, 3, 5);
	yv = (struct view){ { 1, 2, 3, 5 }, { 60, 30, 10, 2 }, 1 };
	check_copy(&xv, &yv, 0, 1, "every other column");
}

/* The bits pass unchanged: all 65536 patterns, NaN payloads and -0 included. */
static void test_copy_keeps_every_bit_pattern(void)
{
	uint16_t *x = malloc(65536 * 2), *y = malloc(65536 * 2);
	struct view xv = dense(1, 1, 256, 256), yv = dense(1, 1, 256, 256);
	struct ane_op_desc d;
	unsigned int i, bad = 0;

	for (i = 0; i < 65536; i++) {
		x[i] = (uint16_t)i;
		y[i] = 0;
	}
	/* strided on the source (transposed), so not one memcpy */
	xv.stride[2] = 1;
	xv.stride[3] = 256;
	copy_desc(&d, x, 65536, &xv, y, 65536, &yv);
	T_EQ(t_run_op(&d), 0);
	for (i = 0; i < 65536; i++)
		bad += y[i] != (uint16_t)((i % 256) * 256 + i / 256);
	T_EQ(bad, 0);
	free(x);
	free(y);
}

/* Chunk sizes and core counts change nothing. */
static void test_copy_chunked_and_split_are_the_same(void)
{
	static const uint32_t dim[4] = { 3, 5, 7, 33 };
	uint64_t works[] = { 1, 7, 100, 0 };
	uint32_t parts;
	unsigned int i, it;
	char what[64];

	for (it = 0; it < 20; it++) {
		struct view xv, yv;

		random_src_view(&xv, dim);
		random_dst_view(&yv, dim);
		for (i = 0; i < 4; i++) {
			snprintf(what, sizeof(what), "case %u, chunk work %llu", it,
				 (unsigned long long)works[i]);
			check_copy(&xv, &yv, works[i], 1, what);
		}
		for (parts = 2; parts <= 3; parts++) {
			snprintf(what, sizeof(what), "case %u, %u parts", it, parts);
			check_copy(&xv, &yv, 0, parts, what);
		}
	}
	{
		struct view xv = dense(3, 5, 7, 33), yv = dense(3, 5, 7, 33);
		uint16_t *x = random_bits(3 * 5 * 7 * 33), *y = calloc(3 * 5 * 7 * 33, 2);
		struct ane_op_desc d;

		copy_desc(&d, x, 3 * 5 * 7 * 33, &xv, y, 3 * 5 * 7 * 33, &yv);
		T_EQ(ane_op_split_parts(&d, 1), 1);
		for (parts = 1; parts <= 3; parts++)
			T_CHECK(ane_op_split(&d, parts - 1, parts, &(struct ane_op_desc){ 0 }) == 0,
				"split %u", parts);
		T_EQ(ane_op_split(&d, 3, 3, &(struct ane_op_desc){ 0 }), -ANE_MATH_EINVAL);
		T_EQ(ane_op_split(&d, 0, 4, &(struct ane_op_desc){ 0 }), -ANE_MATH_EINVAL);
		free(x);
		free(y);
	}
}

/* Each class of bad COPY, and the errno it gets. */
static void test_copy_validation_refuses_with_errnos(void)
{
	uint16_t x[64], y[64], *big = malloc(4096 * 2);
	struct view xv = dense(1, 2, 3, 4), yv = dense(1, 2, 3, 4);
	struct ane_op_desc d, g;

	memset(x, 0, sizeof(x));
	copy_desc(&g, x, 64, &xv, y, 64, &yv);
	T_EQ(ane_op_validate(&g), 0);
	T_EQ(ane_op_chunks(&g), 1);
	/* a negative stride that reaches below the buffer: ENOSPC */
	d = g;
	d.src[0].stride[ANE_W] = (uint64_t)-1;
	T_EQ(ane_op_validate(&d), -ANE_MATH_ENOSPC);
	d.p.copy.src_offset = 3;	/* from element 3 backwards: in range */
	T_EQ(ane_op_validate(&d), 0);
	/* past the end of either buffer: ENOSPC */
	d = g;
	d.p.copy.src_offset = 41;
	T_EQ(ane_op_validate(&d), -ANE_MATH_ENOSPC);
	d.p.copy.src_offset = 40;
	T_EQ(ane_op_validate(&d), 0);
	d = g;
	d.dst.size = 47;
	T_EQ(ane_op_validate(&d), -ANE_MATH_ENOSPC);
	d.dst.size = 48;
	T_EQ(ane_op_validate(&d), 0);
	/* overflow of the index computation: EOVERFLOW */
	d = g;
	d.src[0].dim[ANE_N] = 4;
	d.dst.dim[ANE_N] = 4;
	d.src[0].stride[ANE_N] = (uint64_t)INT64_MIN / 2;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EOVERFLOW);
	d.src[0].stride[ANE_N] = (uint64_t)INT64_MAX;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EOVERFLOW);
	d = g;
	d.p.copy.src_offset = ANE_MATH_MAX_COPY_OFFSET + 1;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EOVERFLOW);
	/* a destination's negative stride, its self-overlap: EINVAL */
	d = g;
	d.dst.stride[ANE_C] = (uint64_t)-12;
	d.p.copy.dst_offset = 12;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = g;
	d.dst.stride[ANE_C] = 4;	/* channel 1 lands on row 1 */
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = g;
	d.dst.stride[ANE_H] = 0;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* extents differ, or out of range */
	d = g;
	d.dst.dim[ANE_W] = 3;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = g;
	d.src[0].dim[ANE_H] = 0;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* the two ranges overlap (one buffer): EINVAL; disjoint: fine */
	copy_desc(&d, big, 4096, &xv, big, 4096, &yv);
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d.p.copy.dst_offset = 24;
	T_EQ(ane_op_validate(&d), 0);
	d.p.copy.dst_offset = 23;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* fields a COPY does not use must be zero */
	d = g;
	d.act = ANE_ACT_RELU;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = g;
	d.src[1] = g.src[0];
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = g;
	d.bias.size = 2;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = g;
	((unsigned char *)&d.p)[sizeof(d.p.copy)] = 1;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	/* buffers: present, 2-byte aligned, not wrapping */
	d = g;
	d.src[0].base = NULL;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = g;
	d.dst.base = (char *)y + 1;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EINVAL);
	d = g;
	d.dst.size = UINT64_MAX - 16;
	T_EQ(ane_op_validate(&d), -ANE_MATH_EOVERFLOW);
	/* and no workspace, none needed */
	{
		uint64_t ws = 1;

		T_EQ(ane_op_workspace_size(&g, &ws), 0);
		T_EQ(ws, 0);
	}
	free(big);
}

/* ane_view_range(): signed and unsigned strides, the edges. */
static void test_view_range(void)
{
	struct ane_tensor t = { .dim = { 2, 3, 4, 5 },
				.stride = { 60, 20, 5, 1 } };
	int64_t lo, hi;

	T_EQ(ane_view_range(&t, 0, 0, &lo, &hi), 0);
	T_EQ(lo, 0);
	T_EQ(hi, 119);
	t.stride[ANE_W] = (uint64_t)-1;
	T_EQ(ane_view_range(&t, 10, 1, &lo, &hi), 0);
	T_EQ(lo, 6);
	T_EQ(hi, 10 + 60 + 40 + 15);
	T_EQ(ane_view_range(&t, 10, 0, &lo, &hi), -ANE_MATH_EINVAL);
	t.dim[ANE_W] = 0;
	T_EQ(ane_view_range(&t, 10, 1, &lo, &hi), -ANE_MATH_EINVAL);
	t.dim[ANE_W] = ANE_MATH_MAX_DIM + 1;
	T_EQ(ane_view_range(&t, 10, 1, &lo, &hi), -ANE_MATH_EINVAL);
	t.dim[ANE_W] = 5;
	T_EQ(ane_view_range(&t, ANE_MATH_MAX_COPY_OFFSET + 1, 1, &lo, &hi),
	     -ANE_MATH_EOVERFLOW);
	t = (struct ane_tensor){ .dim = { 1 << 24, 1 << 24, 1, 1 } };
	T_EQ(ane_view_range(&t, 0, 0, &lo, &hi), -ANE_MATH_EOVERFLOW);
}

int main(void)
{
	T_RUN(test_view_range);
	T_RUN(test_copy_validation_refuses_with_errnos);
	T_RUN_EVERY_ISA(test_copy_random_views_match_the_reference);
	T_RUN_EVERY_ISA(test_copy_transposes_every_permutation);
	T_RUN_EVERY_ISA(test_copy_reverses_broadcasts_and_fills);
	T_RUN_EVERY_ISA(test_copy_keeps_every_bit_pattern);
	T_RUN(test_copy_chunked_and_split_are_the_same);
	return t_summary("copy");
}
