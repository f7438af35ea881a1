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

static int build_image(struct ane_net *net, const void **image, size_t *size)
{
	unsigned int nin, nout, nbars, slot_w, slot_i, i, k;
	uint64_t wsize = 0, isize, off, procs_off, bars_off, rws_off, tds_off;
	uint64_t weights_off = 0, total;
	size_t nrws = 0, r;
	struct ane_img_header *h;
	struct ane_img_procedure *pr;
	struct ane_img_bar *bars;
	struct ane_img_rw *rws;
	struct ane_img_td *tds;
	uint8_t *img;

	nin = net->n_inputs;
	nout = net->n_outputs;
	if (check_written(net))
		return -EINVAL;
	ane__net_liveness(net);

	/* The weights section: every constant, 16-byte aligned. */
	for (r = 0; r < net->n_t; r++) {
		struct ane__tensor *t = &net->t[r];

		if (t->kind != ANE__T_CONST)
			continue;
		t->offset = wsize;
		wsize = align_up(wsize + ane__elems(t->dim) * 2, 16);
	}
	isize = place_intermediates(net);
	if (isize == UINT64_MAX)
		return ane__net_err(net, ENOMEM, "ane_net_build: out of memory");
	if (isize > ANE__MAX_BUFFER)
		return ane__net_err(net, EINVAL, "ane_net_build: the intermediate results need %llu bytes at their peak; the intermediate buffer holds at most 1 GiB",
			       (unsigned long long)isize);

	nbars = nin + nout + (wsize ? 1 : 0) + (isize ? 1 : 0);
	if (nbars > ANE_IMG_MAX_BARS)
		return ane__net_err(net, EINVAL, "ane_net_build: %u inputs, %u outputs%s%s need %u bars; an image has at most %u",
			       nin, nout, wsize ? ", the weights" : "",
			       isize ? ", the intermediates" : "", nbars,
			       ANE_IMG_MAX_BARS);
	slot_w = nin + nout;
	slot_i = slot_w + (wsize ? 1 : 0);
	for (r = 0; r < net->n_ops; r++) {
		const struct ane__op *op = &net->ops[r];

		nrws += 2 + (op->src[1] >= 0) + (op->bias >= 0);
	}

	/* Layout: header, procedure, bars, register writes, TDs, weights. */
	procs_off = sizeof(*h);
	bars_off = align_up(procs_off + sizeof(*pr), 16);
	rws_off = align_up(bars_off + (uint64_t)nbars * sizeof(*bars), 16);
	tds_off = align_up(rws_off + (uint64_t)nrws * sizeof(*rws), 256);
	off = tds_off + (uint64_t)net->n_ops * sizeof(*tds);
	if (wsize) {
		weights_off = align_up(off, ANE__PAGE_SIZE);
		off = weights_off + wsize;
	}
	total = off;
	if (total > ANE_IMG_MAX_SIZE)
		return ane__net_err(net, EINVAL, "ane_net_build: the image would be %llu bytes (weights %llu); an image holds at most %u MiB",
			       (unsigned long long)total, (unsigned long long)wsize,
			       ANE_IMG_MAX_SIZE >> 20);
	img = calloc(1, total);
	if (!img)
		return ane__net_err(net, ENOMEM, "ane_net_build: out of memory for a %llu-byte image",
			       (unsigned long long)total);

	h = (struct ane_img_header *)img;
	h->magic = ANE_IMG_MAGIC;
	h->version_major = ANE_IMG_VERSION_MAJOR;
	h->version_minor = ANE_IMG_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->image_size = total;
	h->num_procedures = 1;
	h->procedures_offset = (uint32_t)procs_off;
	h->num_tds = (uint32_t)net->n_ops;
	h->tds_offset = (uint32_t)tds_off;
	h->num_rws = (uint32_t)nrws;
	h->rws_offset = (uint32_t)rws_off;
	h->num_bars = nbars;
	h->bars_offset = (uint32_t)bars_off;
	h->weights_offset = weights_off;
	h->weights_size = wsize;
	h->intermediate_size = isize;

	pr = (struct ane_img_procedure *)(img + procs_off);
	pr->first_td = 0;
	pr->num_tds = (uint32_t)net->n_ops;
	pr->first_rw = 0;
	pr->num_rws = (uint32_t)nrws;
	pr->num_inputs = (uint16_t)nin;
	pr->num_outputs = (uint16_t)nout;
	pr->partitions = 1;
	pr->content_type = 0;

	bars = (struct ane_img_bar *)(img + bars_off);
	for (i = 0; i < nin; i++) {
		const struct ane__tensor *t = &net->t[net->inputs[i]];

		bars[i] = (struct ane_img_bar){ .slot = i, .usage = ANE__USAGE_INPUT,
						.io_index = i,
						.size = ane__elems(t->dim) * 2 };
	}
	for (i = 0; i < nout; i++) {
		const struct ane__tensor *t = &net->t[net->outputs[i]];

		bars[nin + i] = (struct ane_img_bar){ .slot = nin + i,
						      .usage = ANE__USAGE_OUTPUT,
						      .io_index = i,
						      .size = ane__elems(t->dim) * 2 };
	}
	if (wsize)
		bars[slot_w] = (struct ane_img_bar){ .slot = slot_w,
						     .usage = ANE__USAGE_WEIGHTS,
						     .size = wsize };
	if (isize)
		bars[slot_i] = (struct ane_img_bar){ .slot = slot_i,
						     .usage = ANE__USAGE_INTERMEDIATE,
						     .size = isize };

	for (r = 0; r < net->n_t; r++) {
		const struct ane__tensor *t = &net->t[r];

		if (t->kind == ANE__T_CONST)
			memcpy(img + weights_off + t->offset, t->data,
			       ane__elems(t->dim) * 2);
	}

	tds = (struct ane_img_td *)(img + tds_off);
	rws = (struct ane_img_rw *)(img + rws_off);
	nrws = 0;
	for (r = 0; r < net->n_ops; r++) {
		const struct ane__op *op = &net->ops[r];
		uint32_t *w = tds[r].words;
		const int ids[4] = { op->src[0], op->src[1], op->bias, op->dst };

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

		/* One register write per operand the task uses. */
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
				bar = slot_w;
				o += t->offset;
				break;
			default:
				if (t->output >= 0) {
					bar = nin + (uint32_t)t->output;
				} else {
					bar = slot_i;
					o += t->offset;
				}
				break;
			}
			rw = &rws[nrws++];
			rw->td = (uint32_t)r;
			rw->reg = k;
			rw->bar = bar;
			rw->offset_lo = (uint32_t)o;
			rw->offset_hi = (uint32_t)(o >> 32);
			rw->length_lo = (uint32_t)len;
			rw->length_hi = (uint32_t)(len >> 32);
		}
	}

	net->image = img;
	net->image_size = (size_t)total;
	*image = img;
	*size = (size_t)total;
	ane__net_ok(net);
	return 0;
}
