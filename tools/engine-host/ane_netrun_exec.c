// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's userspace build as an executor of a model's engine
 * segments (ane_model_set_executor()): each segment's image is loaded
 * once into an ane_netrun and run on every call, on the widest
 * instruction-set path of the engine this CPU runs.  For ane-run --engine
 * host and the ONNX suite runner; GPL because it links the engine.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libane.h"
#include "ane_math.h"
#include "ane_netrun.h"
#include "engine_host.h"

struct ane_netrun_cache {
	struct ane_netrun **seg;
	unsigned int n_seg;
	unsigned int threads;
};

struct ane_netrun_cache *ane_netrun_cache_new(unsigned int threads)
{
	struct ane_netrun_cache *c = calloc(1, sizeof(*c));
	int isa = engine_isa_best();

	/* The widest path this CPU runs ($ANE_MATH_ISA may narrow it). */
	if (isa >= 0 && ane_math_set_isa((uint32_t)isa)) {
		free(c);
		return NULL;
	}

	if (c)
		c->threads = threads;
	return c;
}

void ane_netrun_cache_free(struct ane_netrun_cache *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->n_seg; i++)
		ane_netrun_free(c->seg[i]);
	free(c->seg);
	free(c);
}

static struct ane_netrun *get_seg(struct ane_netrun_cache *c, unsigned int seg,
				  const void *image, size_t size, char *err,
				  size_t err_len, int *ret)
{
	if (seg >= c->n_seg) {
		void *p = realloc(c->seg, sizeof(*c->seg) * (seg + 1));

		if (!p) {
			*ret = -ENOMEM;
			return NULL;
		}
		c->seg = p;
		memset(c->seg + c->n_seg, 0, sizeof(*c->seg) * (seg + 1 - c->n_seg));
		c->n_seg = seg + 1;
	}
	if (!c->seg[seg]) {
		*ret = ane_netrun_load(image, size, 0, &c->seg[seg], err, err_len);
		if (*ret)
			return NULL;
		ane_netrun_set_threads(c->seg[seg], c->threads);
	}
	return c->seg[seg];
}

int ane_netrun_exec(void *ctx, unsigned int seg, const void *image,
		    size_t size, const float *const *in, float *const *out,
		    char *err, size_t err_len)
{
	struct ane_netrun *r;
	unsigned int i;
	size_t bytes;
	uint16_t *p;
	int ret = 0;

	r = get_seg(ctx, seg, image, size, err, err_len, &ret);
	if (!r)
		return ret;
	/* an input bound as a gather's indices holds int16, not fp16 */
	for (i = 0; (p = ane_netrun_input(r, i, &bytes)); i++)
		if (ane_image_input_is_index(image, size, i) == 1)
			ane_index_from_float_array(p, in[i], bytes / 2);
		else
			ane_fp16_from_float_array(p, in[i], bytes / 2);
	ret = ane_netrun_run(r);
	if (ret) {
		snprintf(err, err_len, "the engine refused a task (%d)", ret);
		return ret;
	}
	for (i = 0; (p = ane_netrun_output(r, i, &bytes)); i++)
		ane_float_from_fp16_array(out[i], p, bytes / 2);
	return 0;
}
