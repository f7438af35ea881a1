// SPDX-License-Identifier: MIT
/*
 * libane: the builder's gather (GATHER, image minor 4) and its index
 * tensors.  An index input (ane_net_input_index()) holds int16 indices,
 * not fp16 values: only a gather reads it, as its indices, and every
 * other use is refused naming it.  The image says which inputs those
 * are by the tasks that read them (ane_image_input_is_index()), so an
 * executor that has only the image converts them as the builder meant.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <string.h>

#include "ane_internal.h"

int ane__refuse_index(const struct ane__op_ctx *o, const char *role, int id)
{
	const struct ane__tensor *t = o->net->t;
	int s = ane__storage(t, id);

	if (!t[s].is_index)
		return 0;
	if (s != id)
		return ane__op_fail(o, "%s '%s' is a reshape of index input '%s' (ane_net_input_index()): its elements are int16 indices, not fp16 values, and only ane_net_gather() reads them, as its indices",
				    role, t[id].name, t[s].name);
	return ane__op_fail(o, "%s '%s' is an index input (ane_net_input_index()): its elements are int16 indices, not fp16 values, and only ane_net_gather() reads them, as its indices",
			    role, t[id].name);
}

int ane_net_gather(struct ane_net *net, int table, int indices)
{
	struct ane__op_ctx o = { net, "ane_net_gather", net ? net->n_ops : 0 };
	const struct ane__tensor *tx, *ti;
	struct ane__op op;
	uint64_t d[4];
	int ret;

	if (!net)
		return -EINVAL;
	if ((ret = ane__get_operand(&o, "table", table, &tx)))
		return ret;
	/* the indices: an index tensor, and nothing else */
	if (indices < 0 || (size_t)indices >= net->n_t)
		return ane__get_operand_view(&o, "indices", indices, &ti);
	ti = &net->t[indices];
	if (!ane__is_index(net->t, indices))
		return ane__op_fail(&o, "indices '%s' is not an index tensor: a gather's indices are int16, an input made by ane_net_input_index() (or a reshape of one)",
				    ti->name);
	if (ti->dim[0] != 1 || ti->dim[1] != 1 || ti->dim[2] != 1)
		return ane__op_fail(&o, "indices '%s' is %s; a gather takes [1, 1, 1, K] (ane_net_reshape() flattens them)",
				    ti->name, ane__shp(ti->dim).s);
	if (tx->dim[2] > ANE__MAX_GATHER_H)
		return ane__op_fail(&o, "table '%s' is %s: a gather picks among at most %u rows (H), as its indices are int16",
				    tx->name, ane__shp(tx->dim).s, ANE__MAX_GATHER_H);
	ane__op_init(&op, ANE__OP_GATHER);
	op.src[0] = table;
	op.src[1] = indices;
	d[0] = tx->dim[0];
	d[1] = tx->dim[1];
	d[2] = ti->dim[3];
	d[3] = tx->dim[3];
	return ane__add_op(&o, &op, d);
}

/* Whether [@off, @off + @n * @each) lies inside an image of @size bytes. */
static int in_image(uint64_t off, uint64_t n, uint64_t each, size_t size)
{
	return off <= size && n <= (size - off) / each;
}

int ane_image_input_is_index(const void *image, size_t size, unsigned int i)
{
	const struct ane_img_header *h = image;
	const struct ane_img_procedure *pr;
	const struct ane_img_bar *bars;
	const struct ane_img_rw *rws;
	const struct ane_img_td *tds;
	const uint8_t *img = image;
	uint32_t slots = 0, k;

	if (!image || size < sizeof(*h) || h->magic != ANE_IMG_MAGIC ||
	    !h->num_procedures ||
	    !in_image(h->procedures_offset, 1, sizeof(*pr), size) ||
	    !in_image(h->bars_offset, h->num_bars, sizeof(*bars), size) ||
	    !in_image(h->rws_offset, h->num_rws, sizeof(*rws), size) ||
	    !in_image(h->tds_offset, h->num_tds, sizeof(*tds), size))
		return -EINVAL;
	pr = (const void *)(img + h->procedures_offset);
	bars = (const void *)(img + h->bars_offset);
	rws = (const void *)(img + h->rws_offset);
	tds = (const void *)(img + h->tds_offset);
	if (i >= pr->num_inputs || pr->first_rw > h->num_rws ||
	    pr->num_rws > h->num_rws - pr->first_rw)
		return -EINVAL;
	for (k = 0; k < h->num_bars; k++)
		if (bars[k].usage == ANE__USAGE_INPUT && bars[k].io_index == i &&
		    bars[k].slot < 32)
			slots |= 1u << bars[k].slot;
	for (k = 0; k < pr->num_rws; k++) {
		const struct ane_img_rw *rw = &rws[pr->first_rw + k];

		if (rw->bar < 32 && (slots & (1u << rw->bar)) &&
		    rw->reg == ANE_TD_REG_SRC1 && rw->td < h->num_tds &&
		    tds[rw->td].words[ANE_TD_OP] == ANE__OP_GATHER)
			return 1;
	}
	return 0;
}
