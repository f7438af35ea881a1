// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control server: the ring reader the server and the execution-loop
 * pump share (header checks, backpressure, the reply), the dispatch of
 * the control commands of BUF_H2T and DATA_CHAIN_H2T, and the
 * terminator task that tears processes down.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/string.h>

#include "hw/ane_cpu.h"
#include "ane_fw.h"

/* What the server waiting for room in the terminator's queue shows. */
static const char ane_fw_blocked_term[] = "terminator queue";

/*
 * Room in the terminator's queue for one more TERMINATE_PROCESS, one
 * message spare: the server, of higher priority, would otherwise fill it
 * and the next one would be lost, its host waiting in vain.
 */
static bool ane_fw_terminator_has_room(struct ane_fw *fw)
{
	return fw->tasks[ANE_FW_T_TERMINATOR].q->count + 1 < ANE_FW_QUEUE_DEPTH;
}

static int ane_fw_status_snapshot(struct ane_fw *fw)
{
	struct ane_fw_status_page *p = (void *)fw->txbuf;
	u32 i;

	static_assert(sizeof(*p) <= ANE_FW_CMDBUF);
	memset(p, 0, sizeof(*p));
	p->magic = ANE_FW_STATUS_MAGIC;
	p->fsm_state = fw->fsm.state;
	p->secure = fw->fsm.secure;
	p->restart_count = fw->restart_count;
	p->inflight = fw->sched.inflight;
	p->pending = fw->sched.pending;
	p->completed = fw->completed;
	p->dropped_not_running = fw->dropped_not_running;
	p->rejected = fw->rejected;
	p->deadline_aborts = fw->deadline_aborts;
	p->chain_dropped = fw->chain_dropped;
	p->events_signaled = fw->events_signaled;
	for (i = 0; i < ANE_FW_NUM_REQS; i++)
		p->waiting += fw->reqs[i].in_use && fw->reqs[i].waiting;
	p->ring_full = fw->ring_full;
	p->uptime_ns = ane_fw_now(fw);
	p->engine_isa = fw->engine_isa;
	for (i = 0; i < ANE_FW_ENGINE_ISAS; i++)
		p->engine_ops[i] = (u64)ane_fw_rd(fw, ANE_REG_ENG_OPS_HI(i)) << 32 |
				   ane_fw_rd(fw, ANE_REG_ENG_OPS_LO(i));
	ane_fw_fill_tasks(fw, p->tasks, ANE_FW_STATUS_TASKS, &p->ntasks);
	p->npools = ANE_FW_NUM_POOLS;
	for (i = 0; i < ANE_FW_NUM_POOLS; i++) {
		strscpy(p->pools[i].name, ane_fw_pool_name(i),
			sizeof(p->pools[i].name));
		ane_fw_pool_count(fw, i, &p->pools[i].total,
				  &p->pools[i].avail);
	}
	return ane_hw_dma(fw->hw, 0, fw->status_iova, p, sizeof(*p), true);
}

static int ane_fw_prop_write(struct ane_fw *fw, const struct ane_fw_property *p)
{
	u32 idx = p->reg_addr / 4;

	if (p->reg_addr % 4 || p->reg_addr >= ANE_FW_NUM_PROPS * 4 || p->pad)
		return ANE_FW_ST_INVALID;
	if (!p->reg_value)
		return ANE_FW_ST_INVALID;	/* regValue != 0 */
	if (p->reg_addr == ANE_FW_PROP_MAX_INFLIGHT) {
		if (p->reg_value > ANE_FW_NUM_HWQ)
			return ANE_FW_ST_INVALID;
		fw->sched.max_inflight = p->reg_value;
	}
	fw->props[idx] = p->reg_value;
	return ANE_FW_ST_OK;
}

static int ane_fw_ctl_program(struct ane_fw *fw,
			      const struct ane_fw_cmd_hdr *hdr,
			      const void *body)
{
	s32 prog = hdr->program_id, proc = hdr->process_id;
	const struct ane_fw_load_program *lp = body;
	int i;

	if (prog < 0 || prog >= ANE_FW_MAX_PROGRAMS)
		return ANE_FW_ST_INVALID;
	switch (hdr->id) {
	case ANE_CTL_LOAD_PROGRAM:
		if (hdr->size != sizeof(*lp) || lp->flags || !lp->proc_nbr ||
		    lp->proc_nbr > ANE_FW_MAX_PROCEDURES)
			return ANE_FW_ST_INVALID;
		if (fw->programs[prog].valid)
			return ANE_FW_ST_BUSY;
		return ane_fw_program_load(fw, prog, lp);
	case ANE_CTL_UNLOAD_PROGRAM:
		if (!fw->programs[prog].valid)
			return ANE_FW_ST_NOENT;
		for (i = 0; i < ANE_FW_MAX_PROCESSES; i++)
			if (fw->processes[i].state == ANE_FW_PROC_RUNNING &&
			    fw->processes[i].program_id == prog)
				return ANE_FW_ST_BUSY;
		return ane_fw_program_unload(fw, prog);
	case ANE_CTL_CREATE_PROCESS:
		if (proc < 0 || proc >= ANE_FW_MAX_PROCESSES)
			return ANE_FW_ST_INVALID;
		if (!fw->programs[prog].valid)
			return ANE_FW_ST_NOENT;
		if (fw->processes[proc].state != ANE_FW_PROC_IDLE)
			return ANE_FW_ST_BUSY;
		fw->processes[proc].state = ANE_FW_PROC_RUNNING;
		fw->processes[proc].program_id = prog;
		return ANE_FW_ST_OK;
	}
	return ANE_FW_ST_UNSUPPORTED;
}

/* The bring-up and settings commands: START, STOP, the endpoint, ... */
static int ane_fw_ctl_setup(struct ane_fw *fw, const struct ane_fw_cmd_hdr *hdr,
			    const void *body, void *out, u32 *out_len)
{
	u32 len = hdr->size;

	switch (hdr->id) {
	case ANE_CTL_START:
		ane_fw_fsm_arm(&fw->fsm);
		fw->started = true;
		return ANE_FW_ST_OK;
	case ANE_CTL_STOP:
		fw->started = false;
		return ANE_FW_ST_OK;
	case ANE_CTL_PRINT_ENABLE:
		if (len != 4)
			return ANE_FW_ST_INVALID;
		fw->print_enabled = *(const u32 *)body;
		ane_fw_print(fw, "%s: print enabled", ANE_FW_BUILD);
		return ANE_FW_ST_OK;
	case ANE_CTL_BUILDINFO:
		*out_len = strscpy(out, ANE_FW_BUILD, 64) + 1;
		return ANE_FW_ST_OK;
	case ANE_CTL_PING:
		if (len > 64)
			return ANE_FW_ST_INVALID;
		memcpy(out, body, len);
		*out_len = len;
		return ANE_FW_ST_OK;
	case ANE_CTL_TIME_SYNC:
		if (len != sizeof(struct ane_fw_time_sync))
			return ANE_FW_ST_INVALID;
		fw->host_offset_ns = ((const struct ane_fw_time_sync *)body)->host_ns -
				     ane_fw_now(fw);
		return ANE_FW_ST_OK;
	case ANE_CTL_PMU_BASE_SET:
		if (len != sizeof(struct ane_fw_pmu_base))
			return ANE_FW_ST_INVALID;
		fw->pmu_base = ((const struct ane_fw_pmu_base *)body)->base;
		return ANE_FW_ST_OK;
	case ANE_CTL_IPC_ENDPOINT_SET: {
		const struct ane_fw_endpoint_set *ep = body;

		if (len != sizeof(*ep) || ep->endpoint != ANE_FW_ENDPOINT_ID ||
		    ep->type != ANE_FW_ENDPOINT_DATA_CHAINING)
			return ANE_FW_ST_INVALID;
		fw->endpoint_set = true;
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_IPC_ENDPOINT_UNSET:
		fw->endpoint_set = false;
		return ANE_FW_ST_OK;
	case ANE_CTL_DEFAULT_SETTINGS_SET:
		if (len != sizeof(struct ane_fw_default_settings))
			return ANE_FW_ST_INVALID;
		fw->ctx_switch_lat_us =
			((const struct ane_fw_default_settings *)body)->ctx_switch_latency_us;
		fw->props[ANE_FW_PROP_CTX_SWITCH_LAT / 4] = fw->ctx_switch_lat_us;
		return ANE_FW_ST_OK;
	case ANE_CTL_MCACHE_POWER_ON:
		fw->mcache_on = true;
		return ANE_FW_ST_OK;
	}
	return ANE_FW_ST_UNSUPPORTED;
}

/* The queries and properties: CONFIG_GET, the channel properties, sizes. */
static int ane_fw_ctl_query(struct ane_fw *fw, const struct ane_fw_cmd_hdr *hdr,
			    const void *body, void *out, u32 *out_len)
{
	u32 len = hdr->size;

	switch (hdr->id) {
	case ANE_CTL_CONFIG_GET: {
		u64 loc[2] = { fw->status_iova,
			       sizeof(struct ane_fw_status_page) };

		if (ane_fw_status_snapshot(fw))
			return ANE_FW_ST_FAULT;
		memcpy(out, loc, sizeof(loc));
		*out_len = sizeof(loc);
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_CH_PROPERTY_WRITE:
		if (len != sizeof(struct ane_fw_property))
			return ANE_FW_ST_INVALID;
		return ane_fw_prop_write(fw, body);
	case ANE_CTL_CH_PROPERTY_READ: {
		struct ane_fw_property p;

		if (len != sizeof(p))
			return ANE_FW_ST_INVALID;
		memcpy(&p, body, sizeof(p));
		if (p.reg_addr % 4 || p.reg_addr >= ANE_FW_NUM_PROPS * 4)
			return ANE_FW_ST_INVALID;
		p.reg_value = fw->props[p.reg_addr / 4];
		memcpy(out, &p, sizeof(p));
		*out_len = sizeof(p);
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_RESOURCE_INFO_GET: {
		struct ane_fw_resource_info ri = {
			.num_engines = 1,
			.max_cache_requests = ANE_FW_MAX_CACHE_REQUESTS,
			.max_cache_inputs = ANE_FW_MAX_TRIGGER_INPUTS,
			.max_procedures = ANE_FW_MAX_PROCEDURES,
			.max_programs = ANE_FW_MAX_PROGRAMS,
			.max_inflight = fw->sched.max_inflight,
			.num_hw_queues = ANE_FW_NUM_HWQ,
		};

		memcpy(out, &ri, sizeof(ri));
		*out_len = sizeof(ri);
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_STATS_BUFFER_SIZE_GET: {
		struct ane_fw_stats_sizes sz = {
			ANE_FW_STATS_HDR_SIZE, ANE_FW_STATS_EVDESC_SIZE,
			ANE_FW_STATS_DBG_SIZE, ANE_FW_STATS_ENGINE_SIZE };

		memcpy(out, &sz, sizeof(sz));
		*out_len = sizeof(sz);
		return ANE_FW_ST_OK;
	}
	}
	return ANE_FW_ST_UNSUPPORTED;
}

/* The cache-request (data chaining) commands, and the stats premap. */
static int ane_fw_ctl_cache_request(struct ane_fw *fw,
				    const struct ane_fw_cmd_hdr *hdr,
				    const void *body, void *out, u32 *out_len)
{
	u32 len = hdr->size;

	switch (hdr->id) {
	case ANE_CTL_CACHE_REQUEST_INSTALL: {
		u64 handle = 0;
		int st;

		if (len != sizeof(struct ane_fw_cr_install))
			return ANE_FW_ST_INVALID;
		st = ane_fw_cr_install(fw, hdr, body, &handle);
		memcpy(out, &handle, sizeof(handle));
		*out_len = sizeof(handle);
		return st;
	}
	case ANE_CTL_CACHE_REQUEST_RECYCLE:
		if (len != sizeof(struct ane_fw_cr_recycle))
			return ANE_FW_ST_INVALID;
		return ane_fw_cr_recycle(fw, body);
	case ANE_CTL_CACHE_REQUEST_OUTPUT_SET:
		return ane_fw_cr_output_set(fw, body, len);
	case ANE_CTL_CACHE_REQUEST_INVALIDATE:
		if (len != sizeof(struct ane_fw_cr_handle))
			return ANE_FW_ST_INVALID;
		return ane_fw_cr_invalidate(fw,
			((const struct ane_fw_cr_handle *)body)->cache_handler);
	case ANE_CTL_SET_ACTIVE_CACHE_REQUEST_IN_GROUP:
		if (len != sizeof(struct ane_fw_cr_group_select))
			return ANE_FW_ST_INVALID;
		return ane_fw_cr_group_select(fw, body);
	case ANE_CTL_FORCE_DISABLE_CACHE_REQUESTS: {
		const struct ane_fw_cr_force_disable *fd = body;

		if (len != sizeof(*fd) || fd->disable != 1 || fd->pad)
			return ANE_FW_ST_INVALID;
		fw->cr_disabled = true;
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_PREMAP_BUFFER: {
		const struct ane_fw_premap *pm = body;

		if (len != sizeof(*pm) || pm->nbr_of_buffers != 1 ||
		    !pm->addr || !pm->size || upper_32_bits(pm->addr))
			return ANE_FW_ST_INVALID;
		fw->stats_premap_addr = pm->addr;
		fw->stats_premap_size = pm->size;
		return ANE_FW_ST_OK;
	}
	}
	return ANE_FW_ST_UNSUPPORTED;
}

/* One control-channel command; returns the status, fills reply data. */
static int ane_fw_ctl(struct ane_fw *fw, u32 chan, u32 seq,
		      const struct ane_fw_cmd_hdr *hdr, const void *body,
		      void *out, u32 *out_len)
{
	u32 len = hdr->size;

	*out_len = 0;
	if (chan == ANE_FW_CH_DATA_CHAIN_H2T && !fw->endpoint_set)
		return ANE_FW_ST_NOT_READY;

	switch (hdr->id) {
	case ANE_CTL_START:
	case ANE_CTL_STOP:
	case ANE_CTL_PRINT_ENABLE:
	case ANE_CTL_BUILDINFO:
	case ANE_CTL_PING:
	case ANE_CTL_TIME_SYNC:
	case ANE_CTL_PMU_BASE_SET:
	case ANE_CTL_IPC_ENDPOINT_SET:
	case ANE_CTL_IPC_ENDPOINT_UNSET:
	case ANE_CTL_DEFAULT_SETTINGS_SET:
	case ANE_CTL_MCACHE_POWER_ON:
		return ane_fw_ctl_setup(fw, hdr, body, out, out_len);
	case ANE_CTL_CONFIG_GET:
	case ANE_CTL_CH_PROPERTY_WRITE:
	case ANE_CTL_CH_PROPERTY_READ:
	case ANE_CTL_RESOURCE_INFO_GET:
	case ANE_CTL_STATS_BUFFER_SIZE_GET:
		return ane_fw_ctl_query(fw, hdr, body, out, out_len);
	case ANE_CTL_CACHE_REQUEST_INSTALL:
	case ANE_CTL_CACHE_REQUEST_RECYCLE:
	case ANE_CTL_CACHE_REQUEST_OUTPUT_SET:
	case ANE_CTL_CACHE_REQUEST_INVALIDATE:
	case ANE_CTL_SET_ACTIVE_CACHE_REQUEST_IN_GROUP:
	case ANE_CTL_FORCE_DISABLE_CACHE_REQUESTS:
	case ANE_CTL_PREMAP_BUFFER:
		return ane_fw_ctl_cache_request(fw, hdr, body, out, out_len);
	case ANE_CTL_SHARED_EVENT_INIT: {
		const struct ane_fw_shared_event_init *se = body;

		if (len != sizeof(*se) ||
		    se->num_events >= ANE_FW_MAX_SHARED_EVENTS)
			return ANE_FW_ST_INVALID;
		ane_fw_shared_events_set(fw, se->num_events);
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_EVENT_SIGNAL:
		return ane_fw_event_signal(fw, body, len);
	case ANE_CTL_SECURE_MODE_START:
	case ANE_CTL_SECURE_MODE_STOP:
		return ane_fw_secure_switch(fw,
					    hdr->id == ANE_CTL_SECURE_MODE_START);
	case ANE_CTL_LOAD_PROGRAM:
	case ANE_CTL_UNLOAD_PROGRAM:
	case ANE_CTL_CREATE_PROCESS:
		return ane_fw_ctl_program(fw, hdr, body);
	}
	return ANE_FW_ST_UNSUPPORTED;
}

/*
 * Commands that finish later (a procedure call, a trigger, a process
 * teardown) reply from where they finish; ane_fw_ctl_async() reports
 * whether @id is one and hands it on.
 */
static bool ane_fw_ctl_async(struct ane_fw *fw, u32 chan, u32 seq,
			     const struct ane_fw_cmd_hdr *hdr, const void *body)
{
	struct ane_fw_cmd_hdr h = *hdr;

	switch (hdr->id) {
	case ANE_CTL_PROCEDURE_CALL: {
		const struct ane_fw_proc_call *pc = body;

		if (!fw->endpoint_set)
			return false;
		/* with custom bars it is the 0x20c variant, checked as such */
		h.id = hdr->size >= sizeof(*pc) && pc->nbr_custom_bars ?
		       ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS :
		       ANE_CMD_PROCEDURE_CALL;
		ane_fw_exeloop_cmd(fw, chan, seq, &h, body);
		return true;
	}
	case ANE_CTL_CACHE_REQUEST_TRIGGER:
		if (!fw->endpoint_set)
			return false;
		h.id = ANE_CMD_CACHE_REQUEST_TRIGGER;
		ane_fw_exeloop_cmd(fw, chan, seq, &h, body);
		return true;
	case ANE_CTL_TERMINATE_PROCESS:
		if (hdr->process_id < 0 ||
		    hdr->process_id >= ANE_FW_MAX_PROCESSES)
			return false;
		/* never lost: refused if the queue is full after all */
		if (ane_fw_post_task(fw, ANE_FW_T_TERMINATOR,
				     ANE_FW_MSG_TERMINATE, hdr->process_id,
				     (u64)chan << 32 | seq))
			ane_fw_reply(fw, ANE_FW_CH_BUF_T2H, seq, hdr,
				     ANE_FW_ST_BUSY, NULL, 0);
		return true;
	}
	return false;
}

/* The server and the execution-loop pump share this ring reader. */
static enum ane_fw_result ane_fw_ring_handle(struct ane_fw *fw,
					     struct ane_fw_task *t, u32 ch)
{
	u32 reply_ch = ch == ANE_FW_CH_IO ? ANE_FW_CH_IO_T2H : ANE_FW_CH_BUF_T2H;
	struct ane_fw_cmd_hdr hdr;
	struct ane_fw_dump_cmd *log;
	u8 out[64];
	u32 seq, out_len;
	int st;

	/*
	 * Backpressure: room for our replies, for a new request, and on the
	 * control channels for a process teardown (the command is not read
	 * yet: any of them waits).
	 */
	if (fw->outbox_count + 2 > ANE_FW_NUM_OUTBOX ||
	    (ch == ANE_FW_CH_IO && !ane_fw_exec_can_accept(fw)) ||
	    (ch != ANE_FW_CH_IO && !ane_fw_terminator_has_room(fw))) {
		t->state = ANE_FW_TASK_BLOCKED;
		t->blocked_on = fw->outbox_count + 2 > ANE_FW_NUM_OUTBOX ?
				ane_fw_blocked_t2h : ch == ANE_FW_CH_IO ?
				"request pool" : ane_fw_blocked_term;
		return ANE_FW_BLOCK;
	}
	if (ane_fw_ring_peek(fw, ch, &hdr, &seq))
		return ANE_FW_DONE;
	/* a call for a full priority level waits for the level to drain */
	if (ch == ANE_FW_CH_IO && !ane_fw_exec_level_has_room(fw, &hdr)) {
		t->state = ANE_FW_TASK_BLOCKED;
		t->blocked_on = "priority level";
		return ANE_FW_BLOCK;
	}
	log = ane_fw_cmd_log(fw, ch, seq, &hdr);

	st = ane_fw_hdr_check(&hdr, fw->ring[ch].slot_size);
	if (st) {
		/* the body is never read */
		fw->rejected++;
		ane_fw_print(fw, "ch %u seq %u: bad header id %#x size %u pri %u",
			     ch, seq, hdr.id, hdr.size, hdr.priority);
		if (ch == ANE_FW_CH_IO && !ane_fw_exeloop_accepts(hdr.id))
			ane_fw_panic(fw, ANE_FW_EXC_SYNC,
				     "Cmd 0x%x is not supported through ExeLoop cmd channel",
				     hdr.id);
		else
			ane_fw_reply(fw, reply_ch, seq, &hdr, st, NULL, 0);
		log->status = st;
		goto consume;
	}
	if (ane_fw_ring_body(fw, ch, seq, fw->cmdbuf, hdr.size)) {
		st = ANE_FW_ST_FAULT;
		ane_fw_reply(fw, reply_ch, seq, &hdr, st, NULL, 0);
		log->status = st;
		goto consume;
	}

	if (ch == ANE_FW_CH_IO) {
		st = ane_fw_exeloop_cmd(fw, ch, seq, &hdr, fw->cmdbuf);
		log->status = st;
		goto consume;
	}
	if (ane_fw_ctl_async(fw, ch, seq, &hdr, fw->cmdbuf)) {
		log->status = 0;
		goto consume;
	}
	st = ane_fw_ctl(fw, ch, seq, &hdr, fw->cmdbuf, out, &out_len);
	if (st)
		fw->rejected++;
	log->status = st;
	ane_fw_reply(fw, reply_ch, seq, &hdr, st, out, out_len);
consume:
	ane_fw_ring_consume(fw, ch);
	/* More waiting: come back after the other tasks had a turn. */
	ane_fw_post_again(fw, t - fw->tasks, ANE_FW_MSG_RING, ch);
	return ANE_FW_DONE;
}

/**
 * ane_fw_server_handle() - the server task: the control channels
 * @fw: the firmware.
 * @t: the server task.
 * @m: the message; %ANE_FW_MSG_RING names the channel with commands.
 *
 * Return: &enum ane_fw_result.
 */
enum ane_fw_result ane_fw_server_handle(struct ane_fw *fw,
					struct ane_fw_task *t,
					const struct ane_fw_msg *m)
{
	if (m->type == ANE_FW_MSG_RING)
		return ane_fw_ring_handle(fw, t, m->arg);
	return ANE_FW_DONE;
}

/**
 * ane_fw_exeloop_task() - the execution-loop task
 * @fw: the firmware.
 * @t: the exeloop task.
 * @m: the message: the IO ring has commands, or an execution-loop event.
 *
 * Return: &enum ane_fw_result.
 */
enum ane_fw_result ane_fw_exeloop_task(struct ane_fw *fw,
				       struct ane_fw_task *t,
				       const struct ane_fw_msg *m)
{
	if (m->type == ANE_FW_MSG_RING)
		return ane_fw_ring_handle(fw, t, m->arg);
	return ane_fw_exeloop_handle(fw, t, m);
}

/**
 * ane_fw_terminator_handle() - the terminator task: process teardown
 * @fw: the firmware.
 * @t: the terminator task.
 * @m: %ANE_FW_MSG_TERMINATE: arg the process, data the channel (high
 *	half) and ring index (low half) of the request to reply to.
 *
 * Return: &enum ane_fw_result.
 */
enum ane_fw_result ane_fw_terminator_handle(struct ane_fw *fw,
					    struct ane_fw_task *t,
					    const struct ane_fw_msg *m)
{
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CTL_TERMINATE_PROCESS,
				      .process_id = m->arg, .program_id = -1 };
	u32 chan = m->data >> 32, seq = (u32)m->data;
	struct ane_fw_process *p;
	struct ane_fw_task *srv;

	/* this message leaves the queue: the server may post the next one */
	srv = &fw->tasks[ANE_FW_T_SERVER];
	if (srv->state == ANE_FW_TASK_BLOCKED &&
	    srv->blocked_on == ane_fw_blocked_term)
		srv->state = ANE_FW_TASK_RUNNABLE;
	if (m->type != ANE_FW_MSG_TERMINATE || m->arg >= ANE_FW_MAX_PROCESSES)
		return ANE_FW_DONE;
	p = &fw->processes[m->arg];
	hdr.program_id = p->program_id;
	if (p->state != ANE_FW_PROC_RUNNING) {
		ane_fw_reply(fw, ANE_FW_CH_BUF_T2H, seq, &hdr,
			     ANE_FW_ST_NOENT, NULL, 0);
		return ANE_FW_DONE;
	}
	p->state = ANE_FW_PROC_IDLE;
	ane_fw_reply(fw, chan == ANE_FW_CH_IO ? ANE_FW_CH_IO_T2H :
		     ANE_FW_CH_BUF_T2H, seq, &hdr, ANE_FW_ST_OK, NULL, 0);
	return ANE_FW_DONE;
}
