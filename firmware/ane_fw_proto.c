// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware's pure protocol logic: command-header and procedure-call
 * validation (ch. 30), the data-chaining cache-request and output-set
 * machines, and the stats buffer.  No hardware is touched here, so all of
 * it is tested directly by KUnit.  The execution-loop state machine and
 * the scheduler are in ane_fw_sched.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "ane_fw.h"

/* ---------------------------------------------------------------- header */

/**
 * ane_fw_hdr_check() - validate a command header before its body is read
 * @hdr: the header.
 * @max_cmd_buf: the channel's slot size (maxCmdBufSize).
 *
 * Return: %ANE_FW_ST_OK, or %ANE_FW_ST_INVALID if
 * maxCmdBufSize < sizeof(hdr) + size or priority >= 8.
 */
int ane_fw_hdr_check(const struct ane_fw_cmd_hdr *hdr, u32 max_cmd_buf)
{
	if (max_cmd_buf < sizeof(*hdr) ||
	    hdr->size > max_cmd_buf - sizeof(*hdr))
		return ANE_FW_ST_INVALID;
	if (hdr->priority >= ANE_FW_NUM_PRIORITIES)
		return ANE_FW_ST_INVALID;
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_hdr_check);

/**
 * ane_fw_prio_check() - the two priority classes of Table 30.2
 * @priority: fwPriority.
 * @normal_only: the command admits only the normal queue (2..7).
 *
 * Return: %ANE_FW_ST_OK or %ANE_FW_ST_INVALID.
 */
int ane_fw_prio_check(u32 priority, bool normal_only)
{
	bool realtime = priority <= 1;
	bool normal = priority >= 2 && priority <= 7;

	if (normal_only)
		return normal ? ANE_FW_ST_OK : ANE_FW_ST_INVALID;
	return realtime || normal ? ANE_FW_ST_OK : ANE_FW_ST_INVALID;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_prio_check);

/**
 * ane_fw_exeloop_accepts() - the execution loop's accepted set (Table 30.6)
 * @id: command id.
 *
 * Return: true for 0x204, 0x20c, 0x211, 0x212, 0x209, 0x20a, 0x2d, 0x404
 * and 0xff00.
 */
bool ane_fw_exeloop_accepts(u32 id)
{
	switch (id) {
	case ANE_CMD_PROCEDURE_CALL:
	case ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS:
	case ANE_CMD_PROCEDURE_CALL_WITH_EVENTS:
	case ANE_CMD_PROCEDURE_CALL_VERIFY:
	case ANE_CMD_CACHE_REQUEST_TRIGGER:
	case ANE_CMD_CACHE_REQUEST_SUBMIT:
	case ANE_CMD_CH_DATA_FILE_LOAD2:
	case ANE_CMD_RETURN_PROCESS_ID:
	case ANE_CMD_BACK_CHANNEL_RPC:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_exeloop_accepts);

static int ane_fw_bar_check(const struct ane_fw_bar *b)
{
	if (b->type != ANE_CUSTOM_BAR_GENERIC ||
	    b->config != ANE_CUSTOM_BAR_HW_32BIT ||
	    b->bar_id >= ANE_FW_MAX_CUSTOM_BARS || b->sid >= ANE_FW_NUM_STREAMS ||
	    upper_32_bits(b->value))
		return ANE_FW_ST_INVALID;
	return ANE_FW_ST_OK;
}

/**
 * ane_fw_proc_call_check() - the limits of Tables 29.4, 30.3 and 30.4
 * @id: ANE_CMD_PROCEDURE_CALL or one of its variants.
 * @hdr: the validated header.
 * @body: the body (@hdr->size bytes).
 * @len: @hdr->size.
 *
 * Return: %ANE_FW_ST_OK or %ANE_FW_ST_INVALID.
 */
int ane_fw_proc_call_check(u32 id, const struct ane_fw_cmd_hdr *hdr,
			   const void *body, u32 len)
{
	const struct ane_fw_proc_call *pc = body;
	const struct ane_fw_event *ev;
	const struct ane_fw_bar *bars;
	size_t call_size;
	u32 i, nev;

	if (hdr->program_id < 0 || hdr->program_id >= ANE_FW_MAX_PROGRAMS ||
	    hdr->procedure_id >= ANE_FW_MAX_PROCEDURES)
		return ANE_FW_ST_INVALID;
	if (ane_fw_prio_check(hdr->priority, false))
		return ANE_FW_ST_INVALID;
	if (len < sizeof(*pc) || len > ANE_FW_PROC_CALL_MAX_BODY)
		return ANE_FW_ST_INVALID;
	if (pc->nbr_output_buffer_sets != ANE_FW_OUTPUT_BUFFER_SETS ||
	    pc->nbr_event_masks != ANE_FW_EVENT_MASKS ||
	    pc->nbr_td_partitions != ANE_FW_TD_PARTITIONS)
		return ANE_FW_ST_INVALID;
	if (!pc->task_queue || pc->task_queue > ANE_FW_MAX_TASK_QUEUE)
		return ANE_FW_ST_INVALID;
	if (pc->nbr_custom_bars > ANE_FW_MAX_CUSTOM_BARS ||
	    pc->nbr_signal_events > ANE_FW_MAX_SIGNAL_EVENTS ||
	    pc->nbr_wait_events > ANE_FW_MAX_WAIT_EVENTS)
		return ANE_FW_ST_INVALID;
	nev = pc->nbr_wait_events + pc->nbr_signal_events;

	switch (id) {
	case ANE_CMD_PROCEDURE_CALL:
	case ANE_CMD_PROCEDURE_CALL_VERIFY:
		if (pc->nbr_custom_bars || nev || pc->nbr_custom_exec_order)
			return ANE_FW_ST_INVALID;
		break;
	case ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS:
		if (nev)
			return ANE_FW_ST_INVALID;
		break;
	case ANE_CMD_PROCEDURE_CALL_WITH_EVENTS:
		if (!pc->nbr_signal_events || !nev ||
		    pc->sub_network_custom_exec_order ||
		    pc->nbr_custom_exec_order)
			return ANE_FW_ST_INVALID;
		break;
	default:
		return ANE_FW_ST_INVALID;
	}

	call_size = sizeof(*pc) + pc->nbr_custom_bars * sizeof(*bars) +
		    nev * sizeof(struct ane_fw_event);
	if (id == ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS) {
		/*
		 * callSize <= offset, 0 < n <= 128, offset + 4n <= container,
		 * the sum in 64 bits: in 32 an offset near 4 GiB wraps it
		 * back to the body's length.
		 */
		if (!pc->nbr_custom_exec_order ||
		    pc->nbr_custom_exec_order > ANE_FW_MAX_EXEC_ORDER ||
		    pc->custom_exec_order_offset < call_size ||
		    pc->custom_exec_order_offset % 4 ||
		    (u64)pc->custom_exec_order_offset +
		    pc->nbr_custom_exec_order * 4 > ANE_FW_PROC_CALL_MAX_BODY ||
		    len != pc->custom_exec_order_offset +
			   pc->nbr_custom_exec_order * 4)
			return ANE_FW_ST_INVALID;
	} else if (len != call_size) {
		return ANE_FW_ST_INVALID;
	}

	bars = (const void *)(pc + 1);
	for (i = 0; i < pc->nbr_custom_bars; i++)
		if (ane_fw_bar_check(&bars[i]))
			return ANE_FW_ST_INVALID;
	/* 24-byte records: the waits, then the signals, in the one mask */
	ev = (const void *)(bars + pc->nbr_custom_bars);
	for (i = 0; i < nev; i++)
		if (ev[i].type != (i < pc->nbr_wait_events ? ANE_FW_EVENT_WAIT :
						       ANE_FW_EVENT_SIGNAL) ||
		    !ev[i].target_mask ||
		    ev[i].target_mask >> pc->nbr_event_masks)
			return ANE_FW_ST_INVALID;
	/* a wait names a host slot or a shared event, and a value to reach */
	for (i = 0; i < pc->nbr_wait_events; i++)
		if (!ev[i].value ||
		    (ev[i].id >= ANE_FW_NUM_EVENTS &&
		     (!(ev[i].id & ANE_FW_EVENT_SHARED_BIT) ||
		      (ev[i].id & ~ANE_FW_EVENT_SHARED_BIT) >=
		      ANE_FW_MAX_SHARED_EVENTS)))
			return ANE_FW_ST_INVALID;
	/* A stats buffer must hold the header and one engine descriptor. */
	if (pc->stats_buffer && pc->stats_size &&
	    (pc->stats_size < ANE_FW_STATS_HDR_SIZE + ANE_FW_STATS_ENGINE_SIZE ||
	     upper_32_bits(pc->stats_buffer)))
		return ANE_FW_ST_INVALID;
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_proc_call_check);

/**
 * ane_fw_rpc_check() - the back-channel guard: magic and payload length
 * @rpc: the body.
 * @len: its length.
 *
 * Return: %ANE_FW_ST_OK or %ANE_FW_ST_INVALID.
 */
int ane_fw_rpc_check(const struct ane_fw_rpc *rpc, u32 len)
{
	if (len != sizeof(*rpc) || rpc->magic != ANE_FW_RPC_MAGIC ||
	    rpc->len > ANE_FW_RPC_MAX_PAYLOAD ||
	    (rpc->len && !rpc->payload))
		return ANE_FW_ST_INVALID;
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_rpc_check);

/* ------------------------------------------------------------ data chain */

#define ANE_FW_CR_TAG		0xcace000000000000ull

u64 ane_fw_cr_handle(u32 idx, u32 gen)
{
	return ANE_FW_CR_TAG | (u64)(gen & 0xffffff) << 16 | idx;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_handle);

/**
 * ane_fw_cr_lookup() - the live cache request a handle names
 * @fw: the firmware.
 * @handle: cacheHandler.
 *
 * Return: its index, or -ENOENT for a stale, free or malformed handle.
 */
int ane_fw_cr_lookup(const struct ane_fw *fw, u64 handle)
{
	u32 idx = handle & 0xffff;
	const struct ane_fw_cache_req *cr;

	if ((handle & 0xffff000000000000ull) != ANE_FW_CR_TAG ||
	    idx >= ANE_FW_MAX_CACHE_REQUESTS)
		return -ENOENT;
	cr = &fw->cr[idx];
	if (cr->state == ANE_FW_CR_AVAILABLE ||
	    ane_fw_cr_handle(idx, cr->gen) != handle)
		return -ENOENT;
	return idx;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_lookup);

static int ane_fw_prog_proc_check(const struct ane_fw *fw, s32 prog, s32 proc,
				  u32 procedure)
{
	if (prog < 0 || prog >= ANE_FW_MAX_PROGRAMS ||
	    procedure >= ANE_FW_MAX_PROCEDURES)
		return ANE_FW_ST_INVALID;
	if (!fw->programs[prog].valid)
		return ANE_FW_ST_NOENT;
	if (procedure >= fw->programs[prog].proc_nbr)
		return ANE_FW_ST_INVALID;
	if (proc < 0 || proc >= ANE_FW_MAX_PROCESSES ||
	    fw->processes[proc].state != ANE_FW_PROC_RUNNING ||
	    fw->processes[proc].program_id != prog)
		return ANE_FW_ST_NOT_RUNNING;
	return ANE_FW_ST_OK;
}

/**
 * ane_fw_cr_install() - 0x45: a resident cache request from the index pool
 * @fw: the firmware.
 * @hdr: header (program, process, priority of the chain).
 * @in: the body.
 * @handle: the cacheHandler (output).
 *
 * Return: &enum ane_fw_status.
 */
int ane_fw_cr_install(struct ane_fw *fw, const struct ane_fw_cmd_hdr *hdr,
		      const struct ane_fw_cr_install *in, u64 *handle)
{
	struct ane_fw_cache_req *cr;
	int st, i;

	if (fw->cr_disabled)
		return ANE_FW_ST_NOT_READY;
	if (in->nbr_output_sets != ANE_FW_OUTPUT_BUFFER_SETS ||
	    in->nbr_input_buffers > ANE_FW_MAX_TRIGGER_INPUTS ||
	    in->group >= ANE_FW_MAX_CHAIN_GROUPS ||
	    ane_fw_prio_check(hdr->priority, true))
		return ANE_FW_ST_INVALID;
	st = ane_fw_prog_proc_check(fw, hdr->program_id, hdr->process_id,
				    in->procedure);
	if (st)
		return st;
	for (i = 0; i < ANE_FW_MAX_CACHE_REQUESTS; i++)
		if (fw->cr[i].state == ANE_FW_CR_AVAILABLE)
			break;
	if (i == ANE_FW_MAX_CACHE_REQUESTS)
		return ANE_FW_ST_BUSY;
	cr = &fw->cr[i];
	/*
	 * A slot's first handle of a boot starts from the boot count, so a
	 * handle of an earlier boot does not name a request of this one.
	 */
	if (!cr->gen)
		cr->gen = (fw->args.boot_count & 0xfff) << 12;
	cr->gen++;
	cr->state = ANE_FW_CR_IN_USE;
	cr->procedure = in->procedure;
	cr->program_id = hdr->program_id;
	cr->process_id = hdr->process_id;
	cr->priority = hdr->priority;
	cr->nbr_input_buffers = in->nbr_input_buffers;
	cr->group = in->group;
	memset(cr->out_state, 0, sizeof(cr->out_state));
	cr->last_exec_ts = 0;
	cr->inflight = 0;
	cr->triggers = 0;
	cr->prog_gen = fw->programs[hdr->program_id].gen;
	cr->armed = false;
	cr->prev_valid = false;
	cr->nout = 0;
	cr->nprev = 0;
	*handle = ane_fw_cr_handle(i, cr->gen);
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_install);

/**
 * ane_fw_cr_trigger_check() - 0x46/0x209: may this trigger fire?
 * @fw: the firmware.
 * @hdr: its header.
 * @tr: the body.
 * @len: the body's length.
 *
 * On %ANE_FW_ST_OK the trigger is accepted: the timestamp is recorded and
 * the output set is in execution.  %ANE_FW_ST_WRONG_STATE: the handle is
 * not IN_USE (the trigger is dropped and counted by the caller).
 *
 * Return: &enum ane_fw_status.
 */
int ane_fw_cr_trigger_check(struct ane_fw *fw, const struct ane_fw_cmd_hdr *hdr,
			    const struct ane_fw_cr_trigger *tr, u32 len)
{
	struct ane_fw_cache_req *cr;
	u32 handle_idx = tr->cache_handler & 0xffff;
	int idx, i;

	if (len != sizeof(*tr))
		return ANE_FW_ST_INVALID;
	if (fw->cr_disabled)
		return ANE_FW_ST_NOT_READY;
	idx = ane_fw_cr_lookup(fw, tr->cache_handler);
	if (idx < 0) {
		/* a handle to a request being torn down: wrong state */
		if (handle_idx < ANE_FW_MAX_CACHE_REQUESTS &&
		    (tr->cache_handler & 0xffff000000000000ull) ==
		    ANE_FW_CR_TAG && fw->cr[handle_idx].state ==
		    ANE_FW_CR_INVALIDATING &&
		    ane_fw_cr_handle(handle_idx, fw->cr[handle_idx].gen) ==
		    tr->cache_handler)
			return ANE_FW_ST_WRONG_STATE;
		return ANE_FW_ST_NOENT;
	}
	cr = &fw->cr[idx];
	if (cr->state != ANE_FW_CR_IN_USE)
		return ANE_FW_ST_WRONG_STATE;
	if (ane_fw_prio_check(hdr->priority, true) ||
	    tr->nbr_input_buffers > ANE_FW_MAX_TRIGGER_INPUTS ||
	    tr->nbr_input_buffers > cr->nbr_input_buffers ||
	    tr->output_set_id >= ANE_FW_OUTPUT_BUFFER_SETS)
		return ANE_FW_ST_INVALID;
	if (tr->exec_timestamp <= cr->last_exec_ts)
		return ANE_FW_ST_INVALID;
	if (!fw->programs[cr->program_id].valid ||
	    fw->programs[cr->program_id].gen != cr->prog_gen)
		return ANE_FW_ST_NOENT;
	for (i = 0; i < tr->nbr_input_buffers; i++)
		if (upper_32_bits(tr->inputs[i].addr))
			return ANE_FW_ST_INVALID;
	if (ane_fw_cr_inputs_check(cr, tr))
		return ANE_FW_ST_INVALID;
	if (cr->out_state[tr->output_set_id] != ANE_FW_OS_AVAILABLE)
		return ANE_FW_ST_BUSY;
	if (!cr->armed)
		return ANE_FW_ST_NOT_READY;
	cr->last_exec_ts = tr->exec_timestamp;
	cr->out_state[tr->output_set_id] = ANE_FW_OS_IN_EXECUTION;
	cr->inflight++;
	cr->triggers++;
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_trigger_check);

static struct ane_fw_cache_req *ane_fw_cr_end(struct ane_fw *fw, u64 handle)
{
	u32 idx = handle & 0xffff;
	struct ane_fw_cache_req *cr;

	if (idx >= ANE_FW_MAX_CACHE_REQUESTS)
		return NULL;
	cr = &fw->cr[idx];
	if (ane_fw_cr_handle(idx, cr->gen) != handle || !cr->inflight)
		return NULL;
	cr->inflight--;
	return cr;
}

/*
 * A triggered run finished: its output set becomes the previous one, the
 * next trigger's chainable input; an invalidating request becomes free.
 */
void ane_fw_cr_done(struct ane_fw *fw, u64 handle, u32 output_set)
{
	struct ane_fw_cache_req *cr = ane_fw_cr_end(fw, handle);

	if (!cr)
		return;
	ane_fw_cr_rotate(cr);
	if (cr->state == ANE_FW_CR_INVALIDATING && !cr->inflight)
		cr->state = ANE_FW_CR_AVAILABLE;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_done);

/*
 * An accepted trigger was dropped before it ran (no request object, a
 * full priority queue): its output set is available again, still armed.
 */
void ane_fw_cr_abort(struct ane_fw *fw, u64 handle, u32 output_set)
{
	struct ane_fw_cache_req *cr = ane_fw_cr_end(fw, handle);

	if (!cr)
		return;
	if (output_set < ANE_FW_OUTPUT_BUFFER_SETS)
		cr->out_state[output_set] = ANE_FW_OS_AVAILABLE;
	if (cr->state == ANE_FW_CR_INVALIDATING && !cr->inflight)
		cr->state = ANE_FW_CR_AVAILABLE;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_abort);

/**
 * ane_fw_cr_recycle() - 0x47: the host consumed an output set
 * @fw: the firmware.
 * @rc: the body.
 *
 * Return: &enum ane_fw_status.
 */
int ane_fw_cr_recycle(struct ane_fw *fw, const struct ane_fw_cr_recycle *rc)
{
	const struct ane_fw_buf_desc *b = &rc->buffer;
	struct ane_fw_cache_req *cr;
	int idx = ane_fw_cr_lookup(fw, rc->cache_handler);

	if (idx < 0)
		return ANE_FW_ST_NOENT;
	cr = &fw->cr[idx];
	if (cr->state != ANE_FW_CR_IN_USE)
		return ANE_FW_ST_WRONG_STATE;
	if (b->type != ANE_FW_BUF_OUTPUT ||
	    b->output_set_id >= ANE_FW_OUTPUT_BUFFER_SETS ||
	    upper_32_bits(b->addr))
		return ANE_FW_ST_INVALID;
	if (cr->out_state[b->output_set_id] != ANE_FW_OS_IN_EXECUTION ||
	    cr->inflight)
		return ANE_FW_ST_WRONG_STATE;
	cr->out_state[b->output_set_id] = ANE_FW_OS_AVAILABLE;
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_recycle);

/**
 * ane_fw_cr_invalidate() - 0x48: tear a cache request down
 * @fw: the firmware.
 * @handle: cacheHandler.
 *
 * A request with runs in flight is INVALIDATING until they finish.
 *
 * Return: &enum ane_fw_status.
 */
int ane_fw_cr_invalidate(struct ane_fw *fw, u64 handle)
{
	int idx = ane_fw_cr_lookup(fw, handle);
	struct ane_fw_cache_req *cr;
	int g;

	if (idx < 0)
		return ANE_FW_ST_NOENT;
	cr = &fw->cr[idx];
	if (cr->state != ANE_FW_CR_IN_USE)
		return ANE_FW_ST_WRONG_STATE;
	for (g = 0; g < ANE_FW_MAX_CHAIN_GROUPS; g++)
		if (fw->cr_active[g] == idx + 1)
			fw->cr_active[g] = 0;
	cr->state = cr->inflight ? ANE_FW_CR_INVALIDATING :
				   ANE_FW_CR_AVAILABLE;
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_invalidate);

/**
 * ane_fw_cr_group_select() - 0x4f: the active member of a sharing group
 * @fw: the firmware.
 * @gs: the body.
 *
 * Return: &enum ane_fw_status.
 */
int ane_fw_cr_group_select(struct ane_fw *fw,
			   const struct ane_fw_cr_group_select *gs)
{
	int idx = ane_fw_cr_lookup(fw, gs->cache_handler);

	if (idx < 0)
		return ANE_FW_ST_NOENT;
	if (gs->group >= ANE_FW_MAX_CHAIN_GROUPS || gs->pad ||
	    fw->cr[idx].group != gs->group)
		return ANE_FW_ST_INVALID;
	if (fw->cr[idx].state != ANE_FW_CR_IN_USE)
		return ANE_FW_ST_WRONG_STATE;
	fw->cr_active[gs->group] = idx + 1;
	return ANE_FW_ST_OK;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_cr_group_select);

/* ----------------------------------------------------------------- stats */

/**
 * ane_fw_stats_fill() - the stats record CAneProgramManagerH11 writes
 * @h: header to fill.
 * @e: the one engine's descriptor to fill.
 * @size: the host buffer's size.
 * @exec_ns: per-call timing.
 * @seq: the call's ring index.
 * @proc: its procedure.
 * @counter: per-call counter.
 */
void ane_fw_stats_fill(struct ane_fw_stats_hdr *h,
		       struct ane_fw_stats_engine *e, u64 size, u64 exec_ns,
		       u32 seq, u32 proc, u64 counter)
{
	memset(h, 0, sizeof(*h));
	memset(e, 0, sizeof(*e));
	h->magic = ANE_FW_STATS_MAGIC;
	h->timing = exec_ns;
	h->call_word0 = seq;
	h->call_word1 = proc;
	h->counter = counter;
	h->desc_bytes = size - ANE_FW_STATS_HDR_SIZE;
	e->engine_id = 0;
	e->engine_type = 1;
	e->call_index = seq;
	e->engine_index = 0;
	e->counters[0] = lower_32_bits(exec_ns);
	e->counters[1] = upper_32_bits(exec_ns);
	e->counters[2] = lower_32_bits(counter);
	e->counters[3] = 1;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_stats_fill);
