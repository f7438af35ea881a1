// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host side's typed messages (ch. 30): one function per command the
 * host sends to the firmware, each filling the header and the body
 * itself and sending it on its channel, and one per message the host
 * takes from the firmware-to-host rings (replies and notifications).
 * Callers say what they want ("load this program into slot 3"), never
 * how the wire spells it.
 *
 * Commands sent while the caller holds the command gate -- the boot
 * sequence (gate held for writing) and the program lifecycle (held for
 * reading across the whole sequence) -- do not take it again; the others
 * take it for each send attempt.  Each function's kernel-doc says which.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/minmax.h>
#include <linux/string.h>

#include "ane_host.h"
#include "ane_host_internal.h"
#include "ane_host_msg.h"
#include "ane_trace.h"

/* How long a boot command or a ping waits, for room and for its reply. */
#define ANE_HOST_MSG_CTL_MS	2000
/* How long the crash injection waits for the crash to fail its command. */
#define ANE_HOST_MSG_CRASH_MS	5000

/* A control command of the boot sequence: the boot holds the gate. */
static int ane_host_msg_boot_ctl(struct ane_host *h, u32 id,
				 const void *body, u32 len, void *out,
				 u32 out_len)
{
	return __ane_host_call(h, false, ANE_FW_CH_BUF_H2T, id, body, len,
				  out, out_len, ANE_HOST_MSG_CTL_MS);
}

/* A program lifecycle command: the caller holds the gate for reading. */
static int ane_host_msg_prog(struct ane_host *h, u32 id, s32 slot,
			     s32 pid, const void *body, u32 len)
{
	struct ane_fw_cmd_hdr hdr = { .id = id, .size = len,
				      .program_id = slot, .process_id = pid };

	return __ane_host_call_hdr(h, false, ANE_FW_CH_BUF_H2T, &hdr, body,
				      NULL, 0, ANE_HOST_CALL_MS);
}

/* ------------------------------------------------------ control commands */

/**
 * ane_host_msg_ping() - PING: one no-op round trip
 * @h: the host side; takes the gate for each send attempt.
 *
 * Return: 0 or a negative errno (as ane_host_call()).
 */
int ane_host_msg_ping(struct ane_host *h)
{
	u32 v = 0x50494e47;	/* "PING" */

	return __ane_host_call(h, true, ANE_FW_CH_BUF_H2T, ANE_CTL_PING,
				  &v, sizeof(v), NULL, 0, ANE_HOST_MSG_CTL_MS);
}

/**
 * ane_host_msg_print_enable() - PRINT_ENABLE: the firmware's TERMINAL log
 * @h: the host side; the boot holds the gate.
 * @enable: log or not.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_print_enable(struct ane_host *h, bool enable)
{
	u32 v = enable;

	return ane_host_msg_boot_ctl(h, ANE_CTL_PRINT_ENABLE, &v, sizeof(v),
				     NULL, 0);
}

/**
 * ane_host_msg_start() - START: the firmware's services run
 * @h: the host side; the boot holds the gate.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_start(struct ane_host *h)
{
	return ane_host_msg_boot_ctl(h, ANE_CTL_START, NULL, 0, NULL, 0);
}

/**
 * ane_host_msg_endpoint_set() - IPC_ENDPOINT_SET
 * @h: the host side; the boot holds the gate.
 * @endpoint: the endpoint (%ANE_FW_ENDPOINT_ID).
 * @type: its type (%ANE_FW_ENDPOINT_DATA_CHAINING).
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_endpoint_set(struct ane_host *h, u32 endpoint, u32 type)
{
	struct ane_fw_endpoint_set ep = { .endpoint = endpoint, .type = type };

	return ane_host_msg_boot_ctl(h, ANE_CTL_IPC_ENDPOINT_SET, &ep,
				     sizeof(ep), NULL, 0);
}

/**
 * ane_host_msg_pmu_base() - PMU_BASE_SET
 * @h: the host side; the boot holds the gate.
 * @base: the PMU aperture base.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_pmu_base(struct ane_host *h, u64 base)
{
	struct ane_fw_pmu_base pmu = { .base = base };

	return ane_host_msg_boot_ctl(h, ANE_CTL_PMU_BASE_SET, &pmu,
				     sizeof(pmu), NULL, 0);
}

/**
 * ane_host_msg_time_sync() - TIME_SYNC
 * @h: the host side; the boot holds the gate.
 * @host_ns: the host's monotonic time.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_time_sync(struct ane_host *h, u64 host_ns)
{
	struct ane_fw_time_sync ts = { .host_ns = host_ns };

	return ane_host_msg_boot_ctl(h, ANE_CTL_TIME_SYNC, &ts, sizeof(ts),
				     NULL, 0);
}

/**
 * ane_host_msg_ch_property_write() - CH_PROPERTY_WRITE: one property
 * @h: the host side.
 * @gated: take the gate for each send attempt (false: the boot holds it).
 * @reg_addr: the property register (%ANE_FW_PROP_DEADLINE_MS, ...).
 * @value: its new value.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_ch_property_write(struct ane_host *h, bool gated,
				   u64 reg_addr, u32 value)
{
	struct ane_fw_property p = { .reg_addr = reg_addr,
				     .reg_value = value };

	return __ane_host_call(h, gated, ANE_FW_CH_BUF_H2T,
				  ANE_CTL_CH_PROPERTY_WRITE, &p, sizeof(p),
				  NULL, 0, ANE_HOST_MSG_CTL_MS);
}

/**
 * ane_host_msg_resource_info_get() - RESOURCE_INFO_GET
 * @h: the host side; the boot holds the gate.
 * @res: the firmware's resources, from its reply.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_resource_info_get(struct ane_host *h,
				   struct ane_fw_resource_info *res)
{
	return ane_host_msg_boot_ctl(h, ANE_CTL_RESOURCE_INFO_GET, NULL, 0,
				     res, sizeof(*res));
}

/**
 * ane_host_msg_default_settings() - DEFAULT_SETTINGS_SET
 * @h: the host side; the boot holds the gate.
 * @ctx_switch_latency_us: the context-switch latency threshold.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_default_settings(struct ane_host *h,
				  u32 ctx_switch_latency_us)
{
	struct ane_fw_default_settings ds = {
		.ctx_switch_latency_us = ctx_switch_latency_us,
	};

	return ane_host_msg_boot_ctl(h, ANE_CTL_DEFAULT_SETTINGS_SET, &ds,
				     sizeof(ds), NULL, 0);
}

/**
 * ane_host_msg_mcache_power_on() - MCACHE_POWER_ON
 * @h: the host side; the boot holds the gate.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_mcache_power_on(struct ane_host *h)
{
	return ane_host_msg_boot_ctl(h, ANE_CTL_MCACHE_POWER_ON, NULL, 0,
				     NULL, 0);
}

/**
 * ane_host_msg_shared_event_init() - SHARED_EVENT_INIT, no event page
 * @h: the host side; the boot holds the gate.
 * @num_events: active shared events (below %ANE_FW_MAX_SHARED_EVENTS).
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_shared_event_init(struct ane_host *h, u32 num_events)
{
	struct ane_fw_shared_event_init se = { .num_events = num_events };

	return ane_host_msg_boot_ctl(h, ANE_CTL_SHARED_EVENT_INIT, &se,
				     sizeof(se), NULL, 0);
}

/**
 * ane_host_msg_config_get() - CONFIG_GET: where the status page is
 * @h: the host side; takes the gate for each send attempt.
 * @page_iova: device address of the fresh &struct ane_fw_status_page.
 * @page_size: its size.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_config_get(struct ane_host *h, u64 *page_iova,
			    u64 *page_size)
{
	u64 loc[2] = { };
	int ret;

	ret = __ane_host_call(h, true, ANE_FW_CH_BUF_H2T, ANE_CTL_CONFIG_GET,
			      NULL, 0, loc, sizeof(loc),
			      ANE_HOST_MSG_CTL_MS);
	*page_iova = loc[0];
	*page_size = loc[1];
	return ret;
}

/* ------------------------------------------------------ program lifecycle */

/**
 * ane_host_msg_load_program() - LOAD_PROGRAM into a slot
 * @h: the host side; the caller holds the gate.
 * @slot: the firmware program slot.
 * @lp: the body: image address, size, procedure count.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_load_program(struct ane_host *h, s32 slot,
			      const struct ane_fw_load_program *lp)
{
	return ane_host_msg_prog(h, ANE_CTL_LOAD_PROGRAM, slot, -1, lp,
				 sizeof(*lp));
}

/**
 * ane_host_msg_create_process() - CREATE_PROCESS of a loaded program
 * @h: the host side; the caller holds the gate.
 * @slot: the program slot.
 * @pid: the firmware process id.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_create_process(struct ane_host *h, s32 slot, s32 pid)
{
	return ane_host_msg_prog(h, ANE_CTL_CREATE_PROCESS, slot, pid, NULL, 0);
}

/**
 * ane_host_msg_terminate_process() - TERMINATE_PROCESS
 * @h: the host side; the caller holds the gate.
 * @slot: the program slot.
 * @pid: the firmware process id.
 *
 * Return: 0, -ENOENT if there is no such process, or a negative errno.
 */
int ane_host_msg_terminate_process(struct ane_host *h, s32 slot, s32 pid)
{
	return ane_host_msg_prog(h, ANE_CTL_TERMINATE_PROCESS, slot, pid,
				 NULL, 0);
}

/**
 * ane_host_msg_unload_program() - UNLOAD_PROGRAM
 * @h: the host side; the caller holds the gate.
 * @slot: the program slot.
 *
 * Return: 0, -ENOENT if the slot holds nothing, or a negative errno.
 */
int ane_host_msg_unload_program(struct ane_host *h, s32 slot)
{
	return ane_host_msg_prog(h, ANE_CTL_UNLOAD_PROGRAM, slot, -1, NULL, 0);
}

/* ------------------------------------------------------ execution loop */

/**
 * ane_host_msg_proc_call_init() - fill a procedure call with custom bars
 * @hdr: the header to fill.
 * @call: the body: its @nbars &struct ane_fw_bar follow it already, and
 *	there is room after them for the execute order (at least one u32)
 *	or @nsignal &struct ane_fw_event.
 * @nbars: custom bars following @call.
 * @order: the execute order, @norder ANE_IMG_EXEC() entries (1 ..
 *	%ANE_FW_MAX_EXEC_ORDER), or NULL with @norder 0 for the one entry
 *	that runs the whole procedure.
 * @norder: entries of @order.
 * @waits: @nwait wait records (type, mask and the event's id and value),
 *	copied after the bars; NULL with @nwait 0.
 * @nwait: wait events, 0 .. %ANE_FW_MAX_WAIT_EVENTS.
 * @nsignal: signal events, 0 .. %ANE_FW_MAX_SIGNAL_EVENTS; a call with
 *	wait events and none gets one, the request's own completion.
 * @signal_value: the value each signal event carries (the request's
 *	fence seqno), their ids are 0 .. @nsignal - 1.
 * @slot: the program slot (its task queue is @slot + 1).
 * @pid: the firmware process id.
 * @priority: the request's priority.
 * @procedure: the procedure called.
 *
 * Fills the fixed part of @call (one output set, one partition, one event
 * mask) and @hdr; the bars are left as they are.  Without events
 * it is PROCEDURE_CALL_WITH_CUSTOM_BARS with its execute order (@order,
 * or one entry running the whole procedure); with them
 * PROCEDURE_CALL_WITH_EVENTS (the caller gives no @order), whose
 * records follow the bars, the waits then the signals, in the one event mask (the seed admits no
 * custom execute order with signal events).  Send it with
 * ane_host_msg_proc_call().
 */
void ane_host_msg_proc_call_init(struct ane_fw_cmd_hdr *hdr,
				 struct ane_fw_proc_call *call, u32 nbars,
				 const u32 *order, u32 norder,
				 const struct ane_fw_event *waits, u32 nwait,
				 u32 nsignal, u64 signal_value,
				 s32 slot, s32 pid, u32 priority,
				 u32 procedure)
{
	u32 off = sizeof(*call) + nbars * sizeof(struct ane_fw_bar), i;
	struct ane_fw_event *ev = (void *)((u8 *)call + off);

	memset(call, 0, sizeof(*call));
	call->nbr_output_buffer_sets = 1;
	call->nbr_custom_bars = nbars;
	call->nbr_td_partitions = 1;
	call->nbr_event_masks = 1;
	call->task_queue = slot + 1;
	*hdr = (struct ane_fw_cmd_hdr){
		.priority = priority,
		.program_id = slot,
		.process_id = pid,
		.procedure_id = procedure,
	};
	if (nwait && !nsignal)
		nsignal = 1;
	if (nsignal) {
		call->nbr_wait_events = nwait;
		call->nbr_signal_events = nsignal;
		memcpy(ev, waits, nwait * sizeof(*ev));
		for (i = 0; i < nsignal; i++)
			ev[nwait + i] = (struct ane_fw_event){
				.type = ANE_FW_EVENT_SIGNAL, .target_mask = 1,
				.id = i, .value = signal_value };
		hdr->id = ANE_CMD_PROCEDURE_CALL_WITH_EVENTS;
		hdr->size = off + (nwait + nsignal) * sizeof(*ev);
		return;
	}
	call->nbr_custom_exec_order = norder ? norder : 1;
	call->custom_exec_order_offset = off;
	if (norder)
		memcpy(ev, order, norder * sizeof(u32));
	else
		*(u32 *)ev = ANE_IMG_EXEC(0, 0);
	hdr->id = ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS;
	hdr->size = off + call->nbr_custom_exec_order * sizeof(u32);
}

/**
 * ane_host_msg_proc_call() - send a procedure call on the IO channel
 * @h: the host side; takes the gate.
 * @rq: the request; its PROGRAM_EVENT completes it (set @rq->complete),
 *	or its failure on the backlog.
 * @hdr: the header ane_host_msg_proc_call_init() filled.
 * @call: the body it filled (copied when the ring is full).
 *
 * Return: as ane_host_send_queued().
 */
int ane_host_msg_proc_call(struct ane_host *h, struct ane_host_hreq *rq,
			   const struct ane_fw_cmd_hdr *hdr,
			   const struct ane_fw_proc_call *call)
{
	return ane_host_send_queued(h, rq, ANE_FW_CH_IO, hdr, call);
}

/**
 * ane_host_msg_io_ping() - PING on the execution-loop channel (a fault)
 * @h: the host side.
 * @gated: take the gate and wait out a full ring (false: the caller holds
 *	the gate and a full ring fails the send).
 * @answer: the status the command ended with: -EIO once the crash
 *	interrupt failed it.
 *
 * The execution loop takes no control command: the firmware faults.
 * Used by fault injection only.
 *
 * Return: 0 once sent (then @answer is set), or the send's errno.
 */
int ane_host_msg_io_ping(struct ane_host *h, bool gated, int *answer)
{
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CMD_PING, .program_id = -1,
				      .process_id = -1 };
	struct ane_host_hreq rq = { };
	int ret;

	ret = gated ? ane_host_send(h, &rq, ANE_FW_CH_IO, &hdr, NULL) :
		      __ane_host_send(h, &rq, ANE_FW_CH_IO, &hdr, NULL);
	if (!ret)
		*answer = ane_host_wait(h, &rq, ANE_HOST_MSG_CRASH_MS);
	return ret;
}

/**
 * ane_host_msg_rpc() - BACK_CHANNEL_RPC (0xff00) on the execution loop
 * @h: the host side.
 * @payload: device address (stream 0) of the payload the firmware reads.
 * @len: its length.
 * @sum: the payload's checksum, from the reply.
 *
 * Used by fault injection ("dart-fault": a payload nothing maps).
 *
 * Return: 0, -EFAULT when the firmware's read faulted in the DART, or the
 * errno of the send or the firmware's status.
 */
int ane_host_msg_rpc(struct ane_host *h, u64 payload, u32 len, u32 *sum)
{
	struct ane_fw_rpc rpc = { .magic = ANE_FW_RPC_MAGIC, .len = len,
				  .payload = payload };
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CMD_BACK_CHANNEL_RPC,
				      .size = sizeof(rpc), .program_id = -1,
				      .process_id = -1 };

	return ane_host_call_hdr(h, ANE_FW_CH_IO, &hdr, &rpc, sum,
				    sizeof(*sum), ANE_HOST_MSG_CTL_MS);
}

/* ------------------------------------------------------ data chaining */

/* A chaining command on DATA_CHAIN_H2T, in the chain's (normal) band. */
static int ane_host_msg_chain(struct ane_host *h, u32 id, s32 slot, s32 pid,
			      u32 priority, u32 procedure, const void *body,
			      u32 len, void *out, u32 out_len)
{
	struct ane_fw_cmd_hdr hdr = {
		.id = id, .size = len, .priority = priority,
		.program_id = slot, .process_id = pid, .procedure_id = procedure,
	};

	return ane_host_call_hdr(h, ANE_FW_CH_DATA_CHAIN_H2T, &hdr, body, out,
				 out_len, ANE_HOST_MSG_CTL_MS);
}

/**
 * ane_host_msg_cr_install() - CACHE_REQUEST_INSTALL (0x45)
 * @h: the host side; takes the gate for each send attempt.
 * @slot: the program slot.
 * @pid: its process.
 * @priority: the chain's priority (2..7).
 * @in: the body.
 * @handle: the cacheHandler, from the reply.
 *
 * Return: 0 or a negative errno (-EBUSY: the index pool is empty).
 */
int ane_host_msg_cr_install(struct ane_host *h, s32 slot, s32 pid,
			    u32 priority, const struct ane_fw_cr_install *in,
			    u64 *handle)
{
	*handle = 0;
	return ane_host_msg_chain(h, ANE_CTL_CACHE_REQUEST_INSTALL, slot, pid,
				  priority, in->procedure, in, sizeof(*in),
				  handle, sizeof(*handle));
}

/**
 * ane_host_msg_cr_output_set() - CACHE_REQUEST_OUTPUT_SET (0x49)
 * @h: the host side; takes the gate for each send attempt.
 * @priority: the chain's priority.
 * @os: the body.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_cr_output_set(struct ane_host *h, u32 priority,
			       const struct ane_fw_cr_output_set *os)
{
	return ane_host_msg_chain(h, ANE_CTL_CACHE_REQUEST_OUTPUT_SET, -1, -1,
				  priority, 0, os, sizeof(*os), NULL, 0);
}

/**
 * ane_host_msg_cr_invalidate() - CACHE_REQUEST_INVALIDATE (0x48)
 * @h: the host side; takes the gate for each send attempt.
 * @priority: the chain's priority.
 * @handle: the cacheHandler.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_cr_invalidate(struct ane_host *h, u32 priority, u64 handle)
{
	struct ane_fw_cr_handle b = { .cache_handler = handle };

	return ane_host_msg_chain(h, ANE_CTL_CACHE_REQUEST_INVALIDATE, -1, -1,
				  priority, 0, &b, sizeof(b), NULL, 0);
}

/**
 * ane_host_msg_cr_group_select() - SET_ACTIVE_CACHE_REQUEST_IN_GROUP (0x4f)
 * @h: the host side; takes the gate for each send attempt.
 * @priority: the chain's priority.
 * @handle: the member to make active.
 * @group: its group.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_cr_group_select(struct ane_host *h, u32 priority,
				 u64 handle, u32 group)
{
	struct ane_fw_cr_group_select b = { .cache_handler = handle,
					    .group = group };

	return ane_host_msg_chain(h, ANE_CTL_SET_ACTIVE_CACHE_REQUEST_IN_GROUP,
				  -1, -1, priority, 0, &b, sizeof(b), NULL, 0);
}

/**
 * ane_host_msg_cr_trigger() - CACHE_REQUEST_TRIGGER (0x209) on the IO channel
 * @h: the host side; takes the gate for each send attempt.
 * @rq: the request; the trigger's DATA_CHAINING_EVENT completes it (set
 *	@rq->complete), or the reply refusing it.
 * @priority: the chain's priority.
 * @tr: the body.
 *
 * Return: as ane_host_send().
 */
int ane_host_msg_cr_trigger(struct ane_host *h, struct ane_host_hreq *rq,
			    u32 priority, const struct ane_fw_cr_trigger *tr)
{
	struct ane_fw_cmd_hdr hdr = {
		.id = ANE_CMD_CACHE_REQUEST_TRIGGER, .size = sizeof(*tr),
		.priority = priority, .program_id = -1, .process_id = -1,
	};

	return ane_host_send(h, rq, ANE_FW_CH_IO, &hdr, tr);
}

/* ------------------------------------------------ events and raw commands */

/* How long an event command or SendCommand waits, for room and its reply. */
#define ANE_HOST_MSG_EVENT_MS	2000

/**
 * ane_host_msg_event_signal() - EVENT_SIGNAL: raise a firmware event
 * @h: the host side; takes the gate for each send attempt.
 * @id: a slot, or ANE_FW_EVENT_SHARED(n).
 * @value: its new value.
 * @status: %ANE_FW_ST_OK, or %ANE_FW_ST_CANCELED for an event that failed
 *	(the calls waiting on it end instead of running).
 *
 * Sleeps for the firmware's reply.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_event_signal(struct ane_host *h, u64 id, u64 value, u32 status)
{
	struct ane_fw_event_signal es = {
		.id = id, .value = value, .status = status,
	};

	return ane_host_call(h, ANE_FW_CH_BUF_H2T, ANE_CTL_EVENT_SIGNAL, &es,
			     sizeof(es), NULL, 0, ANE_HOST_MSG_EVENT_MS);
}

/**
 * ane_host_msg_shared_event_set() - SHARED_EVENT_INIT at run time
 * @h: the host side; takes the gate for each send attempt.
 * @num_events: active shared events from now on (below
 *	%ANE_FW_MAX_SHARED_EVENTS): a client's activation or deactivation.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_msg_shared_event_set(struct ane_host *h, u32 num_events)
{
	struct ane_fw_shared_event_init se = { .num_events = num_events };

	return ane_host_call(h, ANE_FW_CH_BUF_H2T, ANE_CTL_SHARED_EVENT_INIT,
			     &se, sizeof(se), NULL, 0, ANE_HOST_MSG_EVENT_MS);
}

/**
 * ane_host_msg_send_command() - a client's command as it wrote it
 * @h: the host side; takes the gate for each send attempt.
 * @hdr: the command's header, checked by the caller (SendCommand,
 *	driver/ane_method.c: a command the host does not own).
 * @body: its body, @hdr->size bytes.
 * @out: receives the reply's data.
 * @out_len: @out's size; set to the bytes of the reply's data.
 *
 * Return: as ane_host_call_raw() (-EMSGSIZE for a command longer than a
 * ring slot).
 */
int ane_host_msg_send_command(struct ane_host *h,
			      const struct ane_fw_cmd_hdr *hdr,
			      const void *body, void *out, u32 *out_len)
{
	return ane_host_call_raw(h, ANE_FW_CH_BUF_H2T, hdr, body, out, out_len,
				 ANE_HOST_MSG_EVENT_MS);
}

/* ------------------------------------------------ from the firmware */

/* A reply (id | %ANE_FW_ID_REPLY): completes the command it answers. */
static void ane_host_msg_on_reply(struct ane_host *h, u32 ch,
				  const struct ane_fw_cmd_hdr *hdr,
				  const u8 *body)
{
	const struct ane_fw_reply *r = (const void *)body;
	struct ane_host_hreq *rq;

	if (hdr->size < sizeof(*r))
		return;
	rq = ane_host_find(h, ch, hdr->id & ~ANE_FW_ID_REPLY, r->seq, false);
	if (rq)
		ane_host_hreq_finish(rq, 0, r->status, r + 1,
				     min_t(u32, r->len, hdr->size - sizeof(*r)));
}

/* PROGRAM_EVENT: a procedure call completed. */
static void ane_host_msg_on_program_event(struct ane_host *h, u32 ch,
					  const struct ane_fw_cmd_hdr *hdr,
					  const u8 *body)
{
	const struct ane_fw_program_event *ev = (const void *)body;
	struct ane_host_hreq *rq;

	if (hdr->size < sizeof(*ev))
		return;
	rq = ane_host_find(h, ch, 0, ev->seq, true);
	if (rq)
		ane_host_hreq_finish(rq, 0, ev->status, ev, sizeof(*ev));
}

/* CH_ERROR_NOTIFICATION: counted (debugfs). */
static void ane_host_msg_on_error(struct ane_host *h)
{
	h->errors++;
}

/* CH_RESET_NOTIFICATION: counted (debugfs). */
static void ane_host_msg_on_reset(struct ane_host *h)
{
	h->resets++;
}

/*
 * DATA_CHAINING_EVENT: counted (debugfs); on IO_T2H it completes the
 * trigger it names by ring index (ABI 1.2), as PROGRAM_EVENT does a call.
 */
static void ane_host_msg_on_data_chaining(struct ane_host *h, u32 ch,
					  const struct ane_fw_cmd_hdr *hdr,
					  const u8 *body)
{
	const struct ane_fw_chain_event *ev = (const void *)body;
	struct ane_host_hreq *rq;

	h->chain_events++;
	if (ch != ANE_FW_CH_IO_T2H || hdr->size < sizeof(*ev))
		return;
	rq = ane_host_find(h, ch, 0, ev->seq, true);
	if (rq)
		ane_host_hreq_finish(rq, 0, ev->status, ev, sizeof(*ev));
}

/**
 * ane_host_msg_dispatch() - one message from BUF_T2H or IO_T2H
 * @h: the host side, @h->lock held (the host interrupt).
 * @ch: the ring it came on.
 * @hdr: its header.
 * @body: @hdr->size bytes of body.
 *
 * Replies complete their command; notifications go to their handler;
 * the rest (signposts) are counted only.
 */
void ane_host_msg_dispatch(struct ane_host *h, u32 ch,
			   const struct ane_fw_cmd_hdr *hdr, const u8 *body)
{
	trace_ane_fw_note(h->dev, ch, hdr->id, hdr->size);
	if (hdr->id & ANE_FW_ID_REPLY) {
		ane_host_msg_on_reply(h, ch, hdr, body);
		return;
	}
	h->notes++;
	switch (hdr->id) {
	case ANE_CMD_PROGRAM_EVENT:
		ane_host_msg_on_program_event(h, ch, hdr, body);
		return;
	case ANE_CMD_CH_ERROR_NOTIFICATION:
		ane_host_msg_on_error(h);
		return;
	case ANE_CMD_CH_RESET_NOTIFICATION:
		ane_host_msg_on_reset(h);
		return;
	case ANE_CMD_DATA_CHAINING_EVENT:
		ane_host_msg_on_data_chaining(h, ch, hdr, body);
		return;
	}
}
