// SPDX-License-Identifier: MIT
/*
 * libane: the builder's program image.  Which tensor is live when,
 * where every intermediate result lives in the one intermediate buffer
 * (reused once dead), a matmul's bias folded into it, and the image
 * itself: header, procedure, bars, register writes, task descriptors
 * and weights, following every rule of driver/ane_image.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_internal.h"

/* ------------------------------------------------------------ build */

/*
 * The last operation that reads or writes each tensor's storage: a copy
 * into an ane_net_empty() tensor or a region of a result keeps it live
 * as a read would (an operation's own result is written where it is
 * made, which changes nothing).
 */
void ane__net_liveness(struct ane_net *net)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < net->n_t; i++)
		net->t[i].last_use = -1;
	for (i = 0; i < net->n_ops; i++) {
		const struct ane__op *op = &net->ops[i];
		const int ids[4] = { op->src[0], op->src[1], op->bias, op->dst };

		for (k = 0; k < 4; k++)
			if (ids[k] >= 0)	/* a view reads its parent */
				net->t[ane__storage(net->t, ids[k])].last_use = (int)i;
	}
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

struct live {
	uint64_t start, end;
	int tensor;
};

/*
 * Place every intermediate result in the intermediate buffer, first fit,
 * reusing the space of results no later operation reads or writes.  A
 * result is placed by the first operation that writes it, while that
 * operation's sources are still live, so it never overlaps them.
 * Returns the peak size, or UINT64_MAX if out of memory.
 */
static uint64_t place_intermediates(struct ane_net *net)
{
	struct live *live = calloc(net->n_ops + 1, sizeof(*live));
	char *placed = calloc(net->n_t ? net->n_t : 1, 1);
	size_t n_live = 0, i, j, k;
	uint64_t peak = 0;

	if (!live || !placed) {
		free(live);
		free(placed);
		return UINT64_MAX;
	}
	for (i = 0; i < net->n_ops; i++) {
		/* a strided destination's storage: ane_net_merge_heads() */
		int id = ane__storage(net->t, net->ops[i].dst);
		struct ane__tensor *t = &net->t[id];
		uint64_t size = align_up(ane__elems(t->dim) * 2, 16), at = 0;

		if (t->output < 0 && !placed[id]) {
			placed[id] = 1;
			/* first fit among the live ranges, kept sorted */
			for (j = 0; j < n_live; j++) {
				if (at + size <= live[j].start)
					break;
				if (live[j].end > at)
					at = live[j].end;
			}
			memmove(&live[j + 1], &live[j], (n_live - j) * sizeof(*live));
			live[j] = (struct live){ at, at + size, id };
			n_live++;
			t->offset = at;
			if (at + size > peak)
				peak = at + size;
		}
		/* free what op i read last, and its result if nobody reads it */
		for (j = 0, k = 0; j < n_live; j++) {
			const struct ane__tensor *l = &net->t[live[j].tensor];

			if (l->last_use > (int)i)
				live[k++] = live[j];
		}
		n_live = k;
	}
	free(live);
	free(placed);
	return peak;
}

/*
 * An ane_net_empty() tensor that an operation reads, or that is an
 * output, before (or without) any operation writing it: refused, naming
 * the first such operation.
 */
static int check_written(struct ane_net *net)
{
	char *written = calloc(net->n_t ? net->n_t : 1, 1);
	size_t i;
	unsigned int k;
	int ret = 0;

	if (!written)
		return ane__net_err(net, ENOMEM, "ane_net_build: out of memory");
	for (i = 0; i < net->n_ops && !ret; i++) {
		const struct ane__op *op = &net->ops[i];
		const int ids[3] = { op->src[0], op->src[1], op->bias };

		for (k = 0; k < 3 && !ret; k++) {
			int s = ids[k] >= 0 ? ane__storage(net->t, ids[k]) : -1;

			if (s >= 0 && net->t[s].empty && !written[s])
				ret = ane__net_err(net, EINVAL, "ane_net_build: op %zu reads '%s' (ane_net_empty()) before any operation writes it",
						   i, net->t[s].name);
		}
		written[ane__storage(net->t, op->dst)] = 1;
	}
	for (k = 0; k < net->n_outputs && !ret; k++) {
		int s = ane__storage(net->t, net->outputs[k]);

		if (net->t[s].empty && !written[s])
			ret = ane__net_err(net, EINVAL, "ane_net_build: output %u, '%s' (ane_net_empty()), is never written",
					   k, net->t[s].name);
	}
	free(written);
	return ret;
}

/*
 * Where a COPY's view @v (0 source, 1 destination) of @op is bound: the
 * 16-byte aligned byte offset, from its storage's start, at or below its
 * least element, the bytes from there to the end of its greatest, and
 * its first element's index from the binding.
 */
static void copy_binding(const struct ane__op *op, unsigned int v,
			 uint64_t *off, uint64_t *len, int64_t *first)
{
	int64_t lo = op->voff[v], hi = op->voff[v];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		int64_t t = (int64_t)(op->vdim[i] - 1) * op->vstride[v][i];

		if (t < 0)
			lo += t;
		else
			hi += t;
	}
	*off = (uint64_t)(lo * 2) / 16 * 16;
	*len = (uint64_t)(hi + 1) * 2 - *off;
	*first = op->voff[v] - (int64_t)(*off / 2);
}

static void td_dims(uint32_t *w, const uint32_t *d)
{
	memcpy(w, d, 4 * sizeof(*w));
}

/*
 * Fold a bias into the MATMUL that produces what it is added to: a
 * MATMUL without bias or activation whose result is no output and is
 * read only by the next operation, an ELTWISE ADD of it and a tensor
 * that broadcasts onto it, becomes one MATMUL with that tensor as its
 * bias and the ADD's activation (engine.rst, "MATMUL bias"): the same
 * bits, one pass over memory fewer.  Writes the operations to @out and
 * returns how many.
 */
static size_t fuse_ops(const struct ane_net *net, struct ane__op *out)
{
	size_t i, n = 0;
	unsigned int k;
	int *uses = calloc(net->n_t ? net->n_t : 1, sizeof(*uses));

	if (!uses)
		return 0;
	for (i = 0; i < net->n_ops; i++) {
		const struct ane__op *op = &net->ops[i];
		const int ids[3] = { op->src[0], op->src[1], op->bias };

		for (k = 0; k < 3; k++)
			if (ids[k] >= 0)	/* a view reads its parent */
				uses[ane__storage(net->t, ids[k])]++;
	}
	for (i = 0; i < net->n_ops; i++) {
		const struct ane__op *op = &net->ops[i], *nx = op + 1;
		const struct ane__tensor *r = &net->t[op->dst];

		out[n] = *op;
		if (op->op == ANE__OP_MATMUL && op->act == ANE_NET_ACT_NONE &&
		    op->bias < 0 && r->output < 0 && uses[op->dst] == 1 &&
		    i + 1 < net->n_ops && nx->op == ANE__OP_ELTWISE &&
		    nx->subop == ANE_NET_ADD &&
		    (nx->src[0] == op->dst) != (nx->src[1] == op->dst) &&
		    !memcmp(net->t[nx->dst].dim, r->dim, sizeof(r->dim))) {
			out[n].bias = nx->src[nx->src[0] == op->dst ? 1 : 0];
			out[n].act = nx->act;
			out[n].dst = nx->dst;
			i++;
		}
		n++;
	}
	free(uses);
	return n;
}

static int build_image(struct ane_net *net, const void **image, size_t *size);

int ane_net_build(struct ane_net *net, const void **image, size_t *size)
{
	struct ane__op *ops, *fused;
	size_t n_ops, swap;
	int ret;

	if (!net || !image || !size)
		return -EINVAL;
	*image = NULL;
	*size = 0;
	if (net->failed)
		return ane__net_err(net, EINVAL, "ane_net_build: the net is incomplete because a call failed; the first failure: %s",
			       net->first_err);
	if (!net->n_ops)
		return ane__net_err(net, EINVAL, "ane_net_build: the net has no operations");
	if (!net->n_outputs)
		return ane__net_err(net, EINVAL, "ane_net_build: the net has no outputs: mark at least one result with ane_net_output()");
	if (net->image) {
		*image = net->image;
		*size = net->image_size;
		ane__net_ok(net);
		return 0;
	}
	fused = malloc(net->n_ops * sizeof(*fused));
	n_ops = fused ? fuse_ops(net, fused) : 0;
	if (!n_ops) {
		free(fused);
		return ane__net_err(net, ENOMEM, "ane_net_build: out of memory");
	}
	/* build from the fused list; the net keeps its own */
	ops = net->ops;
	net->ops = fused;
	swap = net->n_ops;
	net->n_ops = n_ops;
	ret = build_image(net, image, size);
	net->ops = ops;
	net->n_ops = swap;
	free(fused);
	return ret;
}

/* Where build_image() puts everything: counts, bar slots, section offsets. */
struct image_layout {
	unsigned int nin, nout, nbars, slot_w, slot_i;
	uint64_t wsize, isize, procs_off, bars_off, rws_off, tds_off;
	uint64_t weights_off, total;
	size_t nrws;
};

/*
 * Step 1: place the weights (every constant, 16-byte aligned) and the
 * intermediates, count the bars and register writes, and lay the image
 * out: header, procedure, bars, register writes, TDs, weights.
 */
static int layout_image(struct ane_net *net, struct image_layout *l)
{
	uint64_t off;
	size_t r;

	memset(l, 0, sizeof(*l));
	l->nin = net->n_inputs;
	l->nout = net->n_outputs;
	for (r = 0; r < net->n_t; r++) {
		struct ane__tensor *t = &net->t[r];

		if (t->kind != ANE__T_CONST)
			continue;
		t->offset = l->wsize;
		l->wsize = align_up(l->wsize + ane__elems(t->dim) * 2, 16);
	}
	l->isize = place_intermediates(net);
	if (l->isize == UINT64_MAX)
		return ane__net_err(net, ENOMEM, "ane_net_build: out of memory");
	if (l->isize > ANE__MAX_BUFFER)
		return ane__net_err(net, EINVAL, "ane_net_build: the intermediate results need %llu bytes at their peak; the intermediate buffer holds at most 1 GiB",
			       (unsigned long long)l->isize);

	l->nbars = l->nin + l->nout + (l->wsize ? 1 : 0) + (l->isize ? 1 : 0);
	if (l->nbars > ANE_IMG_MAX_BARS)
		return ane__net_err(net, EINVAL, "ane_net_build: %u inputs, %u outputs%s%s need %u bars; an image has at most %u",
			       l->nin, l->nout, l->wsize ? ", the weights" : "",
			       l->isize ? ", the intermediates" : "", l->nbars,
			       ANE_IMG_MAX_BARS);
	l->slot_w = l->nin + l->nout;
	l->slot_i = l->slot_w + (l->wsize ? 1 : 0);
	for (r = 0; r < net->n_ops; r++) {
		const struct ane__op *op = &net->ops[r];

		l->nrws += 2 + (op->src[1] >= 0) + (op->bias >= 0);
	}

	l->procs_off = sizeof(struct ane_img_header);
	l->bars_off = align_up(l->procs_off + sizeof(struct ane_img_procedure), 16);
	l->rws_off = align_up(l->bars_off + (uint64_t)l->nbars * sizeof(struct ane_img_bar), 16);
	l->tds_off = align_up(l->rws_off + (uint64_t)l->nrws * sizeof(struct ane_img_rw), 256);
	off = l->tds_off + (uint64_t)net->n_ops * sizeof(struct ane_img_td);
	if (l->wsize) {
		l->weights_off = align_up(off, ANE__PAGE_SIZE);
		off = l->weights_off + l->wsize;
	}
	l->total = off;
	if (l->total > ANE_IMG_MAX_SIZE)
		return ane__net_err(net, EINVAL, "ane_net_build: the image would be %llu bytes (weights %llu); an image holds at most %u MiB",
			       (unsigned long long)l->total, (unsigned long long)l->wsize,
			       ANE_IMG_MAX_SIZE >> 20);
	return 0;
}

/* Step 2: the header and the one procedure. */
static void write_header(const struct ane_net *net, const struct image_layout *l,
			 uint8_t *img)
{
	struct ane_img_header *h = (struct ane_img_header *)img;
	struct ane_img_procedure *pr = (struct ane_img_procedure *)(img + l->procs_off);

	h->magic = ANE_IMG_MAGIC;
	h->version_major = ANE_IMG_VERSION_MAJOR;
	h->version_minor = ANE_IMG_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->image_size = l->total;
	h->num_procedures = 1;
	h->procedures_offset = (uint32_t)l->procs_off;
	h->num_tds = (uint32_t)net->n_ops;
	h->tds_offset = (uint32_t)l->tds_off;
	h->num_rws = (uint32_t)l->nrws;
	h->rws_offset = (uint32_t)l->rws_off;
	h->num_bars = l->nbars;
	h->bars_offset = (uint32_t)l->bars_off;
	h->weights_offset = l->weights_off;
	h->weights_size = l->wsize;
	h->intermediate_size = l->isize;

	pr->first_td = 0;
	pr->num_tds = (uint32_t)net->n_ops;
	pr->first_rw = 0;
	pr->num_rws = (uint32_t)l->nrws;
	pr->num_inputs = (uint16_t)l->nin;
	pr->num_outputs = (uint16_t)l->nout;
	pr->partitions = 1;
	pr->content_type = 0;
}

/* Step 3: the bars (inputs, outputs, weights, intermediates), the weights. */
static void write_bars(const struct ane_net *net, const struct image_layout *l,
		       uint8_t *img)
{
	struct ane_img_bar *bars = (struct ane_img_bar *)(img + l->bars_off);
	unsigned int i;
	size_t r;

	for (i = 0; i < l->nin; i++) {
		const struct ane__tensor *t = &net->t[net->inputs[i]];

		bars[i] = (struct ane_img_bar){ .slot = i, .usage = ANE__USAGE_INPUT,
						.io_index = i,
						.size = ane__elems(t->dim) * 2 };
	}
	for (i = 0; i < l->nout; i++) {
		const struct ane__tensor *t = &net->t[net->outputs[i]];

		bars[l->nin + i] = (struct ane_img_bar){ .slot = l->nin + i,
							 .usage = ANE__USAGE_OUTPUT,
							 .io_index = i,
							 .size = ane__elems(t->dim) * 2 };
	}
	if (l->wsize)
		bars[l->slot_w] = (struct ane_img_bar){ .slot = l->slot_w,
							.usage = ANE__USAGE_WEIGHTS,
							.size = l->wsize };
	if (l->isize)
		bars[l->slot_i] = (struct ane_img_bar){ .slot = l->slot_i,
							.usage = ANE__USAGE_INTERMEDIATE,
							.size = l->isize };

	for (r = 0; r < net->n_t; r++) {
		const struct ane__tensor *t = &net->t[r];

		if (t->kind == ANE__T_CONST)
			memcpy(img + l->weights_off + t->offset, t->data,
			       ane__elems(t->dim) * 2);
	}
}

/* Step 4a: a task descriptor's operation, parameters, dimensions, layouts. */
static void td_words(const struct ane_net *net, const struct ane__op *op,
		     uint32_t *w)
{
	const int ids[4] = { op->src[0], op->src[1], op->bias, op->dst };
	unsigned int k;

	w[ANE_TD_OP] = op->op;
	w[ANE_TD_ACT] = op->act;
	switch (op->op) {
	case ANE__OP_CONV:
		w[ANE_TD_STRIDE_H] = op->stride[0];
		w[ANE_TD_STRIDE_W] = op->stride[1];
		w[ANE_TD_DILATION_H] = op->dilation[0];
		w[ANE_TD_DILATION_W] = op->dilation[1];
		for (k = 0; k < 4; k++)
			w[ANE_TD_PAD_TOP + k] = op->pad[k];
		w[ANE_TD_GROUPS] = op->groups;
		break;
	case ANE__OP_MATMUL:
		w[ANE_TD_FLAGS] = op->flags;
		break;
	case ANE__OP_ELTWISE:
		w[ANE_TD_SUBOP] = op->subop;
		break;
	case ANE__OP_NORM:
		w[ANE_TD_SUBOP] = op->subop;
		w[ANE_TD_NORM_EPS] = op->norm_eps;
		break;
	case ANE__OP_REDUCE:
		w[ANE_TD_SUBOP] = op->subop;
		w[ANE_TD_FLAGS] = op->flags;
		break;
	case ANE__OP_ACT:	/* zero but for a parametric act */
		w[ANE_TD_ACT_ALPHA] = op->act_param[0];
		w[ANE_TD_ACT_BETA] = op->act_param[1];
		break;
	case ANE__OP_POOL:
		w[ANE_TD_SUBOP] = op->subop;
		w[ANE_TD_FLAGS] = op->flags;
		w[ANE_TD_STRIDE_H] = op->stride[0];
		w[ANE_TD_STRIDE_W] = op->stride[1];
		for (k = 0; k < 4; k++)
			w[ANE_TD_PAD_TOP + k] = op->pad[k];
		w[ANE_TD_KERNEL_H] = op->kernel[0];
		w[ANE_TD_KERNEL_W] = op->kernel[1];
		break;
	case ANE__OP_COPY:
		for (k = 0; k < 4; k++) {
			w[ANE_TD_COPY_SRC_STRIDE + k] = (uint32_t)op->vstride[0][k];
			w[ANE_TD_COPY_DST_STRIDE + k] = (uint32_t)op->vstride[1][k];
		}
		break;
	}
	if (op->op == ANE__OP_COPY) {
		td_dims(&w[ANE_TD_SRC0_DIMS], op->vdim);
		td_dims(&w[ANE_TD_DST_DIMS], op->vdim);
	} else {
		td_dims(&w[ANE_TD_SRC0_DIMS], net->t[op->src[0]].dim);
		td_dims(&w[ANE_TD_DST_DIMS], net->t[op->dst].dim);
	}
	if (op->src[1] >= 0)
		td_dims(&w[ANE_TD_SRC1_DIMS], net->t[op->src[1]].dim);
	if (op->bias >= 0)
		td_dims(&w[ANE_TD_BIAS_DIMS], net->t[op->bias].dim);
	for (k = 0; k < 4 && op->op != ANE__OP_COPY; k++) {
		const struct ane__tensor *t;

		if (ids[k] < 0 || net->t[ids[k]].kind != ANE__T_VIEW)
			continue;
		t = &net->t[ids[k]];
		w[ANE_TD_SRC0_LAYOUT + k] = ANE_TD_LAYOUT(t->row, t->plane);
	}
}

/*
 * Step 4b: one register write per operand task @td uses, appended at
 * @rws[*@nrws]; a COPY's offsets go into its words @w.
 */
static void td_rws(const struct ane_net *net, const struct image_layout *l,
		   const struct ane__op *op, uint32_t td, uint32_t *w,
		   struct ane_img_rw *rws, size_t *nrws)
{
	const int ids[4] = { op->src[0], op->src[1], op->bias, op->dst };
	unsigned int k;

	for (k = 0; k < 4; k++) {
		const struct ane__tensor *t;
		struct ane_img_rw *rw;
		uint64_t len, o = 0;
		uint32_t bar;

		if (ids[k] < 0)
			continue;
		t = &net->t[ane__storage(net->t, ids[k])];
		len = ane__elems(t->dim) * 2;
		if (op->op == ANE__OP_COPY) {
			/* the elements its view reaches, from 16 bytes below */
			int64_t first;

			copy_binding(op, k == 3, &o, &len, &first);
			w[k == 3 ? ANE_TD_COPY_DST_OFFSET :
			  ANE_TD_COPY_SRC_OFFSET] = (uint32_t)first;
		} else if (net->t[ids[k]].kind == ANE__T_VIEW) {
			/* from the view's first element to its parent's end */
			o = (uint64_t)net->t[ids[k]].voff * 2;
			len -= o;
		}
		switch (t->kind) {
		case ANE__T_INPUT:
			bar = (uint32_t)t->index;
			break;
		case ANE__T_CONST:
			bar = l->slot_w;
			o += t->offset;
			break;
		default:
			if (t->output >= 0) {
				bar = l->nin + (uint32_t)t->output;
			} else {
				bar = l->slot_i;
				o += t->offset;
			}
			break;
		}
		rw = &rws[(*nrws)++];
		rw->td = td;
		rw->reg = k;
		rw->bar = bar;
		rw->offset_lo = (uint32_t)o;
		rw->offset_hi = (uint32_t)(o >> 32);
		rw->length_lo = (uint32_t)len;
		rw->length_hi = (uint32_t)(len >> 32);
	}
}

/* The image of @net's (fused) operations, in the steps above. */
static int build_image(struct ane_net *net, const void **image, size_t *size)
{
	struct image_layout l;
	struct ane_img_rw *rws;
	struct ane_img_td *tds;
	size_t nrws = 0, r;
	uint8_t *img;
	int ret;

	if (check_written(net))
		return -EINVAL;
	ane__net_liveness(net);
	ret = layout_image(net, &l);
	if (ret)
		return ret;
	img = calloc(1, l.total);
	if (!img)
		return ane__net_err(net, ENOMEM, "ane_net_build: out of memory for a %llu-byte image",
			       (unsigned long long)l.total);
	write_header(net, &l, img);
	write_bars(net, &l, img);
	tds = (struct ane_img_td *)(img + l.tds_off);
	rws = (struct ane_img_rw *)(img + l.rws_off);
	for (r = 0; r < net->n_ops; r++) {
		td_words(net, &net->ops[r], tds[r].words);
		td_rws(net, &l, &net->ops[r], (uint32_t)r, tds[r].words, rws, &nrws);
	}

	net->image = img;
	net->image_size = (size_t)l.total;
	*image = img;
	*size = (size_t)l.total;
	ane__net_ok(net);
	return 0;
}
