// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chained runs compute (ABI 1.2): the buffers of a cache request's runs.
 *
 * A cache request (ane_fw_proto.c: install, trigger, recycle, invalidate,
 * group select) names a program's procedure.  Here are the buffers its
 * runs compute with: CACHE_REQUEST_OUTPUT_SET (0x49) enqueues the output
 * set the next run writes -- the output buffers, the intermediate buffer
 * and the DART stream they are reached through -- and a trigger names the
 * input buffers.  An input may be a *chained* buffer: an output buffer
 * (%ANE_FW_BUF_OUTPUT) of the set the request's previous run wrote, which
 * the engine then reads where that run left it, with no copy through the
 * host (ch. 29).  The trigger becomes a request with custom bars, built
 * from the program image's bar table, and runs like a procedure call
 * (ane_fw_program_prepare()).
 *
 * Everything here runs in the firmware thread: no locks.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/string.h>

#include <kunit/visibility.h>

#include <drm/ane_accel.h>

#include "ane_fw.h"

/* A buffer of @type, sized, below 4 GiB to its end (no wrap past 2^64). */
static bool ane_fw_buf_ok(const struct ane_fw_buf_desc *b, u32 type)
{
	return b->type == type && !b->output_set_id && b->size &&
	       !upper_32_bits(b->addr) && b->size <= BIT_ULL(32) - b->addr;
}

/**
 * ane_fw_cr_output_set() - 0x49: enqueue the output set of the next run
 * @fw: the firmware.
 * @os: the body.
 * @len: its length.
 *
 * A set in execution whose run has completed is recycled first (0x47's
 * transition); one whose run is still in flight is in the wrong state.
 *
 * Return: &enum ane_fw_status.
 */
int ane_fw_cr_output_set(struct ane_fw *fw,
			 const struct ane_fw_cr_output_set *os, u32 len)
{
	struct ane_fw_cache_req *cr;
	int idx;
	u32 i;

	if (len != sizeof(*os))
		return ANE_FW_ST_INVALID;
	idx = ane_fw_cr_lookup(fw, os->cache_handler);
	if (idx < 0)
		return ANE_FW_ST_NOENT;
	cr = &fw->cr[idx];
	if (cr->state != ANE_FW_CR_IN_USE)
		return ANE_FW_ST_WRONG_STATE;
	if (os->output_set_id >= ANE_FW_OUTPUT_BUFFER_SETS || os->pad ||
	    os->sid >= ANE_FW_NUM_STREAMS ||
	    os->nbr_buffers > ANE_FW_MAX_CHAIN_OUTPUTS)
		return ANE_FW_ST_INVALID;
	for (i = 0; i < os->nbr_buffers; i++)
		if (!ane_fw_buf_ok(&os->buffers[i], ANE_FW_BUF_OUTPUT))
			return ANE_FW_ST_INVALID;
	if (os->intermediate.addr &&
	    !ane_fw_buf_ok(&os->intermediate, ANE_FW_BUF_OUTPUT))
		return ANE_FW_ST_INVALID;
	if (cr->out_state[os->output_set_id] == ANE_FW_OS_IN_EXECUTION) {
		if (cr->inflight)
			return ANE_FW_ST_WRONG_STATE;
		cr->out_state[os->output_set_id] = ANE_FW_OS_AVAILABLE;
	}
	cr->sid = os->sid;
	cr->nout = os->nbr_buffers;
	memcpy(cr->out, os->buffers, sizeof(cr->out));
	cr->inter = os->intermediate;
	cr->armed = true;
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_output_set);

/**
 * ane_fw_cr_rotate() - a run completed: its output set becomes the previous
 * @cr: the cache request.
 *
 * The previous set is what a trigger may chain from; the output set must
 * be enqueued again before the next trigger.
 */
void ane_fw_cr_rotate(struct ane_fw_cache_req *cr)
{
	if (!cr->armed)
		return;
	cr->prev_valid = true;
	cr->prev_sid = cr->sid;
	cr->nprev = cr->nout;
	memcpy(cr->prev, cr->out, sizeof(cr->prev));
	cr->armed = false;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_rotate);

/* The previous set's buffer a chained input names, or NULL. */
static const struct ane_fw_buf_desc *
ane_fw_cr_chained(const struct ane_fw_cache_req *cr,
		  const struct ane_fw_buf_desc *in)
{
	u32 k;

	if (!cr->prev_valid)
		return NULL;
	for (k = 0; k < cr->nprev; k++)
		if (cr->prev[k].addr == in->addr && in->size <= cr->prev[k].size)
			return &cr->prev[k];
	return NULL;
}

/**
 * ane_fw_cr_inputs_check() - a trigger's input descriptors
 * @cr: the cache request.
 * @tr: the trigger (@tr->nbr_input_buffers already bounded).
 *
 * An input is %ANE_FW_BUF_INPUT, or a chained buffer: %ANE_FW_BUF_OUTPUT
 * with an output set id below the request's sets, naming an output buffer
 * of the previous run, and not one the coming run writes.
 *
 * Return: 0, or -EINVAL.
 */
int ane_fw_cr_inputs_check(const struct ane_fw_cache_req *cr,
			   const struct ane_fw_cr_trigger *tr)
{
	u32 i, k;

	for (i = 0; i < tr->nbr_input_buffers; i++) {
		const struct ane_fw_buf_desc *in = &tr->inputs[i];

		if (in->type == ANE_FW_BUF_INPUT)
			continue;
		if (in->type != ANE_FW_BUF_OUTPUT ||
		    in->output_set_id >= ANE_FW_OUTPUT_BUFFER_SETS ||
		    !ane_fw_cr_chained(cr, in))
			return -EINVAL;
		for (k = 0; cr->armed && k < cr->nout; k++)
			if (cr->out[k].addr == in->addr)
				return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_inputs_check);

/* One custom bar of a chained run. */
static void ane_fw_chain_bar(struct ane_fw_req *r, u32 slot, u32 sid, u64 addr,
			     u64 size)
{
	r->bars[r->nbars++] = (struct ane_fw_bar){
		.type = ANE_CUSTOM_BAR_GENERIC, .config = ANE_CUSTOM_BAR_HW_32BIT,
		.bar_id = slot, .sid = sid, .value = addr, .buf_size = size };
}

/**
 * ane_fw_chain_bars() - the custom bars of a triggered run
 * @fw: the firmware.
 * @cr: the cache request, its trigger accepted.
 * @tr: the trigger.
 * @r: its request: @r->bars and @r->nbars are filled.
 *
 * One bar per bar slot of the program image the procedure uses: inputs
 * from the trigger (a chained one on the previous set's stream), outputs
 * and the intermediate buffer from the enqueued set, weights and
 * constants from the image on stream 0, as the driver builds a procedure
 * call's.  A program without an image gets none (its runs compute
 * nothing, as its procedure calls).
 *
 * Return: %ANE_FW_ST_OK, or %ANE_FW_ST_INVALID for an input or output the
 * procedure needs and the run does not provide.
 */
int ane_fw_chain_bars(struct ane_fw *fw, const struct ane_fw_cache_req *cr,
		      const struct ane_fw_cr_trigger *tr, struct ane_fw_req *r)
{
	const struct ane_fw_program *p = &fw->programs[cr->program_id];
	const struct ane_img_header *h;
	const struct ane_img_procedure *pr;
	const struct ane_img_bar *b;
	u32 i;

	r->nbars = 0;
	if (!p->img)
		return ANE_FW_ST_OK;
	h = ane_fw_program_header(p);
	pr = ane_fw_program_procedure(p, cr->procedure);
	if (!pr)
		return ANE_FW_ST_INVALID;
	for (i = 0; i < h->num_bars && i < ANE_IMG_MAX_BARS; i++) {
		b = ane_fw_program_bar(p, i);
		switch (b->usage) {
		case 1:		/* input */
			if (b->io_index >= pr->num_inputs)
				continue;
			if (b->io_index >= tr->nbr_input_buffers)
				return ANE_FW_ST_INVALID;
			ane_fw_chain_bar(r, b->slot,
					 tr->inputs[b->io_index].type ==
					 ANE_FW_BUF_OUTPUT ? cr->prev_sid : cr->sid,
					 tr->inputs[b->io_index].addr,
					 tr->inputs[b->io_index].size);
			break;
		case 2:		/* output */
			if (b->io_index >= pr->num_outputs)
				continue;
			if (b->io_index >= cr->nout)
				return ANE_FW_ST_INVALID;
			ane_fw_chain_bar(r, b->slot, cr->sid,
					 cr->out[b->io_index].addr,
					 cr->out[b->io_index].size);
			break;
		case 7:		/* intermediate */
			if (!cr->inter.addr)
				return ANE_FW_ST_INVALID;
			ane_fw_chain_bar(r, b->slot, cr->sid, cr->inter.addr,
					 cr->inter.size);
			break;
		case 8:		/* weights */
			ane_fw_chain_bar(r, b->slot, 0,
					 p->image_iova + h->weights_offset,
					 h->weights_size);
			break;
		case 11:	/* constants */
			ane_fw_chain_bar(r, b->slot, 0,
					 p->image_iova + h->constants_offset,
					 h->constants_size);
			break;
		default:
			return ANE_FW_ST_INVALID;
		}
	}
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_chain_bars);
