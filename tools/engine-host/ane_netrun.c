// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane_netrun: run a program image in userspace with the firmware's
 * task-descriptor decoding and the engine's operations, the way the
 * engine model runs a queue (firmware/hw/ane_engine_job.c) but without
 * the DART and the staging copies: every bar is a host buffer and each
 * operand a view into it at its register write's offset.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_math.h"
#include "ane_netrun.h"
#include "engine_host.h"
#include "driver/ane_image.h"
#include "firmware/spec/ane_td.h"

/* Bar usage codes of Table 28.5 (struct ane_img_bar). */
#define BAR_INPUT	1u
#define BAR_OUTPUT	2u
#define BAR_INTER	7u
#define BAR_WEIGHTS	8u
#define BAR_CONSTS	11u

struct ane_netrun_task {
	struct ane_op_desc d;
	struct ane_op_plan plan;
	uint64_t chunks;
};

struct ane_netrun {
	uint8_t *img;
	uint8_t *buf[ANE_IMG_MAX_BARS];
	uint64_t buf_size[ANE_IMG_MAX_BARS];
	uint8_t owned[ANE_IMG_MAX_BARS];
	int in_bar[16], out_bar[16];
	unsigned int n_in, n_out;
	struct ane_netrun_task *task;
	uint32_t n_task;
	uint64_t n_chunks;
	void *work;
	unsigned int threads;		/* the engine's cores: 1 runs in line */
};

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* A zeroed, workspace-aligned buffer of at least @size bytes. */
static void *zalloc(uint64_t size)
{
	uint64_t n = align_up(size ? size : 1, ANE_MATH_WORK_ALIGN);
	void *p = aligned_alloc(ANE_MATH_WORK_ALIGN, n);

	if (p)
		memset(p, 0, n);
	return p;
}

static int bind_bars(struct ane_netrun *r, const struct ane_img_header *h,
		     const struct ane_img_procedure *pr, char *err, size_t len)
{
	const struct ane_img_bar *bars = (const void *)(r->img + h->bars_offset);
	uint32_t i;

	for (i = 0; i < 16; i++)
		r->in_bar[i] = r->out_bar[i] = -1;
	r->n_in = pr->num_inputs;
	r->n_out = pr->num_outputs;
	for (i = 0; i < h->num_bars; i++) {
		const struct ane_img_bar *b = &bars[i];

		r->buf_size[b->slot] = b->size;
		switch (b->usage) {
		case BAR_WEIGHTS:
			r->buf[b->slot] = r->img + h->weights_offset;
			break;
		case BAR_CONSTS:
			r->buf[b->slot] = r->img + h->constants_offset;
			break;
		case BAR_INPUT:
		case BAR_OUTPUT:
		case BAR_INTER:
			r->buf[b->slot] = zalloc(b->size);
			if (!r->buf[b->slot])
				return -ENOMEM;
			r->owned[b->slot] = 1;
			if (b->usage == BAR_INPUT && b->io_index < r->n_in)
				r->in_bar[b->io_index] = (int)b->slot;
			if (b->usage == BAR_OUTPUT && b->io_index < r->n_out)
				r->out_bar[b->io_index] = (int)b->slot;
			break;
		default:
			return fail(err, len, "bar %u: usage %u is not one a request provides",
				    b->slot, b->usage);
		}
	}
	for (i = 0; i < r->n_in; i++)
		if (r->in_bar[i] < 0)
			return fail(err, len, "input %u has no bar", i);
	for (i = 0; i < r->n_out; i++)
		if (r->out_bar[i] < 0)
			return fail(err, len, "output %u has no bar", i);
	return 0;
}

/* Decode task @i and bind its operands as its register writes say. */
static int bind_task(struct ane_netrun *r, const struct ane_img_header *h,
		     const struct ane_img_procedure *pr, uint32_t i,
		     uint64_t chunk_work, uint64_t *ws, char *err, size_t len)
{
	const struct ane_img_td *tds = (const void *)(r->img + h->tds_offset);
	const struct ane_img_rw *rws = (const void *)(r->img + h->rws_offset);
	struct ane_op_desc *d = &r->task[i].d;
	uint32_t td = pr->first_td + i, k;

	if (ane_image_td_desc(&tds[td], d))
		return fail(err, len, "task %u: descriptor refused", i);
	for (k = 0; k < pr->num_rws; k++) {
		const struct ane_img_rw *rw = &rws[pr->first_rw + k];
		uint64_t off = (uint64_t)rw->offset_hi << 32 | rw->offset_lo;
		uint64_t bytes = (uint64_t)rw->length_hi << 32 | rw->length_lo;
		struct ane_tensor *t;
		__s64 first;

		if (rw->td != td)
			continue;
		t = ane_td_operand(d, rw->reg);
		/*
		 * strides as decoded: dense, the operand's layout word, or a
		 * copy's view in its binding
		 */
		t->base = r->buf[rw->bar] + off;
		t->size = ane_td_reach(d, rw->reg, &first);
		if (!t->size || first < 0 || t->size > bytes)
			return fail(err, len, "task %u: operand %u needs %llu bytes, its binding allows %llu",
				    i, rw->reg, (unsigned long long)t->size,
				    (unsigned long long)bytes);
		t->size = bytes;
	}
	d->chunk_work = chunk_work;
	if (ane_op_workspace_size(d, ws))
		return fail(err, len, "task %u: the engine refuses the descriptor", i);
	return 0;
}

int ane_netrun_load(const void *image, size_t size, uint64_t chunk_work,
		    struct ane_netrun **out, char *err, size_t err_len)
{
	char field[ANE_IMG_FIELD_LEN] = "";
	const struct ane_img_header *h;
	const struct ane_img_procedure *pr;
	struct ane_netrun *r;
	uint64_t ws_max = 0, ws;
	uint32_t i;
	int ret;

	*out = NULL;
	ret = ane_image_validate(image, size, field);
	if (ret)
		return fail(err, err_len, "image refused: %s", field);
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = -ENOMEM;
	r->img = zalloc(size);
	if (!r->img)
		goto out_free;
	memcpy(r->img, image, size);
	h = (const void *)r->img;
	pr = (const void *)(r->img + h->procedures_offset);
	ret = bind_bars(r, h, pr, err, err_len);
	if (ret)
		goto out_free;
	r->n_task = pr->num_tds;
	r->task = calloc(r->n_task, sizeof(*r->task));
	if (!r->task) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < r->n_task; i++) {
		ret = bind_task(r, h, pr, i, chunk_work, &ws, err, err_len);
		if (ret)
			goto out_free;
		if (ws > ws_max)
			ws_max = ws;
	}
	if (ws_max) {
		r->work = zalloc(ws_max);
		if (!r->work) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	for (i = 0; i < r->n_task; i++) {
		struct ane_netrun_task *t = &r->task[i];

		ws = 0;
		ane_op_workspace_size(&t->d, &ws);
		if (ws) {
			t->d.work = r->work;
			t->d.work_size = ws_max;
		}
		if (ane_op_prepare(&t->d, &t->plan)) {
			ret = fail(err, err_len, "task %u: the engine refuses the bound descriptor", i);
			goto out_free;
		}
		t->chunks = ane_op_plan_chunks(&t->plan);
		r->n_chunks += t->chunks;
	}
	*out = r;
	return 0;

out_free:
	if (ret == -ENOMEM)
		snprintf(err, err_len, "out of memory");
	ane_netrun_free(r);
	return ret;
}

uint16_t *ane_netrun_input(struct ane_netrun *r, unsigned int i, size_t *bytes)
{
	if (i >= r->n_in)
		return NULL;
	*bytes = r->buf_size[r->in_bar[i]];
	return (uint16_t *)r->buf[r->in_bar[i]];
}

uint16_t *ane_netrun_output(struct ane_netrun *r, unsigned int j, size_t *bytes)
{
	if (j >= r->n_out)
		return NULL;
	*bytes = r->buf_size[r->out_bar[j]];
	return (uint16_t *)r->buf[r->out_bar[j]];
}

uint32_t ane_netrun_tasks(const struct ane_netrun *r)
{
	return r->n_task;
}

uint64_t ane_netrun_chunks(const struct ane_netrun *r)
{
	return r->n_chunks;
}

int ane_netrun_run_task(struct ane_netrun *r, uint32_t i, uint32_t *op)
{
	const struct ane_netrun_task *t;
	uint64_t c;

	if (i >= r->n_task)
		return -EINVAL;
	t = &r->task[i];
	if (op)
		*op = t->d.op;
	/* over the engine's cores when asked and worth it (engine_host.h) */
	if (r->threads > 1 && ane_op_split_parts(&t->d, r->threads) > 1)
		return engine_mt_run(&t->d, r->threads) ? -EINVAL : 0;
	for (c = 0; c < t->chunks; c++)
		if (ane_op_run_planned(&t->d, &t->plan, c))
			return -EINVAL;
	return 0;
}

void ane_netrun_set_threads(struct ane_netrun *r, unsigned int threads)
{
	r->threads = threads ? threads : 1;
}

int ane_netrun_run(struct ane_netrun *r)
{
	uint32_t i;

	for (i = 0; i < r->n_task; i++)
		if (ane_netrun_run_task(r, i, NULL))
			return -EINVAL;
	return 0;
}

void ane_netrun_free(struct ane_netrun *r)
{
	unsigned int i;

	if (!r)
		return;
	for (i = 0; i < ANE_IMG_MAX_BARS; i++)
		if (r->owned[i])
			free(r->buf[i]);
	free(r->work);
	free(r->task);
	free(r->img);
	free(r);
}
