// SPDX-License-Identifier: GPL-2.0-only
/*
 * The execution loop: the commands of the execution-loop channel, the
 * submit path to the engine's task queues (Table 29.7) -- program the
 * queue, ring its doorbell, arm the deadline and go on with the next
 * command -- and the engine's interrupt: completions and faults, the
 * software deadline's abort, the stats buffer and the chaining triggers.
 * The wait records that hold a call, and EVENT_SIGNAL, are ane_fw_event.c.
 *
 * Hardware is touched only with the loop in EXEC or EXEC-SECURE; any other
 * attempt is an invariant failure.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/kernel.h>
#include <linux/time64.h>
#include <linux/string.h>

#include "hw/ane_cpu.h"
#include "spec/ane_rebase.h"
#include "spec/ane_tdb.h"
#include "ane_fw.h"

void ane_fw_exec_init(struct ane_fw *fw)
{
	memset(&fw->fsm, 0, sizeof(fw->fsm));
	ane_fw_sched_init(&fw->sched, ANE_FW_NUM_HWQ);
	fw->props[ANE_FW_PROP_DEADLINE_MS / 4] = ANE_FW_DEADLINE_MS;
	fw->props[ANE_FW_PROP_MAX_INFLIGHT / 4] = ANE_FW_NUM_HWQ;
}

/* Room for one more request: a pool slot (backpressure otherwise). */
bool ane_fw_exec_can_accept(struct ane_fw *fw)
{
	return fw->reqs_used < ANE_FW_NUM_REQS;
}

/**
 * ane_fw_exec_level_has_room() - whether a call may be taken off the ring
 * @fw: the firmware.
 * @hdr: the header of the command at the head of the IO ring, unchecked.
 *
 * The engine computes while the loop takes commands, so a burst at one
 * priority can fill its level; the call then stays on the ring
 * (backpressure) until a completion drains the level, rather than being
 * answered BUSY.
 *
 * Return: false for a procedure call whose priority level is full.
 */
bool ane_fw_exec_level_has_room(struct ane_fw *fw,
				const struct ane_fw_cmd_hdr *hdr)
{
	switch (hdr->id) {
	case ANE_CMD_PROCEDURE_CALL:
	case ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS:
	case ANE_CMD_PROCEDURE_CALL_WITH_EVENTS:
	case ANE_CMD_PROCEDURE_CALL_VERIFY:
		break;
	default:
		return true;
	}
	return hdr->priority >= ANE_FW_NUM_PRIORITIES ||
	       fw->sched.count[hdr->priority] < ANE_FW_LEVEL_DEPTH;
}

/* The hardware gate of the ~7 handlers: EXEC or EXEC-SECURE only. */
static bool ane_fw_hw_gate(struct ane_fw *fw, const char *what)
{
	if (ane_fw_fsm_hw_allowed(&fw->fsm))
		return true;
	ane_fw_panic(fw, ANE_FW_EXC_SYNC, "%s with the loop in %s", what,
		     ane_fw_fsm_state_name(fw->fsm.state));
	return false;
}

static void ane_fw_qwr(struct ane_fw *fw, u32 off, u32 val)
{
	ane_hw_write32(fw->hw, ANE_BANK_ANE, off, val);
}

static u32 ane_fw_qrd(struct ane_fw *fw, u32 off)
{
	return ane_hw_read32(fw->hw, ANE_BANK_ANE, off);
}

/* Setup register @reg (ANE_FW_QS_*) at @off of queue @q, if it changes. */
static void ane_fw_qset(struct ane_fw *fw, u32 q, u32 reg, u32 off, u32 val)
{
	struct ane_fw_qshadow *s = &fw->qshadow[q];

	if ((s->valid & BIT(reg)) && s->val[reg] == val)
		return;
	ane_fw_qwr(fw, off, val);
	s->val[reg] = val;
	s->valid |= BIT(reg);
}

/**
 * ane_fw_queue_disable() - disable hardware queue @q
 * @fw: the firmware.
 * @q: the queue.
 *
 * Returns once the engine has left the queue; its setup is written again
 * in full at its next submit.
 */
void ane_fw_queue_disable(struct ane_fw *fw, u32 q)
{
	fw->qshadow[q].valid = 0;
	ane_fw_qwr(fw, ANE_REG_Q_ENABLE(q), 0);
}

static u32 ane_fw_event_chan(u32 chan)
{
	return chan == ANE_FW_CH_IO ? ANE_FW_CH_IO_T2H : ANE_FW_CH_BUF_T2H;
}

/* Report the end of a request the host is waiting for. */
void ane_fw_exec_notify(struct ane_fw *fw, u32 chan, u32 seq,
			const struct ane_fw_cmd_hdr *hdr, int status,
			u64 exec_ns, u32 tq, u32 hwq)
{
	struct ane_fw_program_event ev = {
		.seq = seq, .status = status, .exec_ns = exec_ns,
		.task_queue = tq, .hw_queue = hwq, .counter = fw->completed,
	};

	if (ane_fw_notify(fw, ane_fw_event_chan(chan), ANE_CMD_PROGRAM_EVENT,
			  hdr, &ev, sizeof(ev)))
		ane_fw_panic(fw, ANE_FW_EXC_SYNC,
			     "notification of seq %u lost: outbox full", seq);
}

/* An execution-loop reply (0x404, 0xff00, 0x2d, triggers). */
static void ane_fw_exec_reply(struct ane_fw *fw, u32 chan, u32 seq,
			      const struct ane_fw_cmd_hdr *hdr, int status,
			      const void *data, u32 len)
{
	struct {
		struct ane_fw_reply r;
		u8 data[16];
	} msg = { .r = { .seq = seq, .status = status, .len = len } };

	if (len > sizeof(msg.data))
		len = 0;
	memcpy(msg.data, data, len);
	if (ane_fw_notify(fw, ane_fw_event_chan(chan), hdr->id | ANE_FW_ID_REPLY,
			  hdr, &msg, sizeof(msg.r) + len))
		ane_fw_panic(fw, ANE_FW_EXC_SYNC,
			     "reply to seq %u lost: outbox full", seq);
}

static void ane_fw_exec_complete(struct ane_fw *fw, struct ane_fw_req *r,
				 int status);

/* An error notification about request @r on the control channel. */
static void ane_fw_exec_error(struct ane_fw *fw, struct ane_fw_req *r,
			      u32 error_index)
{
	struct ane_fw_error_note note = { .error_index = error_index,
					  .cmd_id = r->cmd_id, .seq = r->seq,
					  .chan = r->chan };

	ane_fw_notify(fw, ANE_FW_CH_BUF_T2H, ANE_CMD_CH_ERROR_NOTIFICATION,
		      &r->hdr, &note, sizeof(note));
}

/*
 * The bar registers get the bars rebased into the program's aperture:
 * the 32-bit runtime address of each buffer's base (ch. 28).
 */
static void ane_fw_exec_bars(struct ane_fw *fw, struct ane_fw_req *r)
{
	const struct ane_fw_program *p = NULL;
	u32 q = r->hw_queue, i, runtime;

	if (r->hdr.program_id >= 0 && r->hdr.program_id < ANE_FW_MAX_PROGRAMS)
		p = &fw->programs[r->hdr.program_id];
	for (i = 0; i < r->nbars; i++) {
		const struct ane_fw_bar *b = &r->bars[i];
		struct ane_aperture_cfg ap = {
			.dva_base = b->value, .region_size = b->buf_size,
			.mapped_base = p ? p->mapped_base : 0 };

		if (b->bar_id >= ANE_NUM_Q_BARS)
			continue;
		if (ane_rebase(&ap, b->value, 1, &runtime))
			runtime = 0;
		ane_fw_qwr(fw, ANE_REG_Q_BAR(q, b->bar_id), runtime);
	}
}

/*
 * Build the request's task-descriptor block, program the queue with it
 * and ring the doorbell; the deadline timer runs from here.  The engine
 * computes on its own and interrupts when the queue ends
 * (ane_fw_exec_engine_irq()); the loop meanwhile takes the next command.
 * A request the firmware refuses before the engine (its program unloaded,
 * a binding refused) completes at once with its status.
 */
static void ane_fw_exec_submit(struct ane_fw *fw, struct ane_fw_req *r)
{
	u32 q = r->hw_queue;
	u64 deadline, td;
	int st;

	if (!ane_fw_hw_gate(fw, "queue submit"))
		return;
	if (!(ane_fw_qrd(fw, ANE_REG_Q_STATUS(q)) & ANE_Q_VACANT)) {
		ane_fw_panic(fw, ANE_FW_EXC_SYNC,
			     "hardware queue %u not vacant at submit", q);
		return;
	}
	r->t_start = ane_fw_now(fw);
	st = ane_fw_program_prepare(fw, r);
	if (st) {
		ane_fw_exec_complete(fw, r, st);
		return;
	}
	r->timer = ane_fw_timer_alloc(fw, &fw->tasks[ANE_FW_T_EXELOOP]);
	if (r->timer < 0) {
		ane_fw_panic(fw, ANE_FW_EXC_SYNC, "timer pool exhausted");
		return;
	}

	td = (uintptr_t)r->tdb;
	ane_fw_qset(fw, q, ANE_FW_QS_ENABLE, ANE_REG_Q_ENABLE(q), 1);
	ane_fw_qset(fw, q, ANE_FW_QS_PRIO, ANE_REG_Q_PRIO(q),
		    r->hdr.priority << 8 | r->task_queue);
	ane_fw_qset(fw, q, ANE_FW_QS_SIZE, ANE_REG_Q_SIZE(q),
		    ANE_FW_TD_PARTITIONS << 16 | ANE_TD_WORDS);
	ane_fw_exec_bars(fw, r);
	ane_fw_qwr(fw, ANE_REG_Q_TD_LO(q), lower_32_bits(td));
	ane_fw_qset(fw, q, ANE_FW_QS_TD_HI, ANE_REG_Q_TD_HI(q),
		    upper_32_bits(td));
	ane_fw_qset(fw, q, ANE_FW_QS_TD_SID, ANE_REG_Q_TD_SID(q),
		    ANE_ENG_SID_CTRL);

	deadline = (u64)fw->props[ANE_FW_PROP_DEADLINE_MS / 4] * NSEC_PER_MSEC;
	ane_fw_timer_arm(fw, r->timer, deadline ?: 1, r - fw->reqs);
	ane_fw_qwr(fw, ANE_REG_Q_DOORBELL(q), 1);
}

/**
 * ane_fw_exec_kick() - dispatch what the scheduler lets run
 * @fw: the firmware.
 */
void ane_fw_exec_kick(struct ane_fw *fw)
{
	struct ane_fw_req *r;
	int ret;

	while (!fw->crashed && fw->fsm.state != ANE_FW_FSM_INIT &&
	       fw->fsm.state != ANE_FW_FSM_PAUSE &&
	       (r = ane_fw_sched_pick(&fw->sched))) {
		ret = ane_fw_fsm_post(&fw->fsm, ANE_FW_EV_DISPATCH);
		if (ret) {
			ane_fw_panic(fw, ANE_FW_EXC_SYNC,
				     "dispatch refused in %s: %d",
				     ane_fw_fsm_state_name(fw->fsm.state), ret);
			return;
		}
		ane_fw_exec_submit(fw, r);
	}
}

/* Write the stats record; a null address or size skips it. */
static int ane_fw_exec_stats(struct ane_fw *fw, struct ane_fw_req *r,
			     u64 exec_ns)
{
	struct {
		struct ane_fw_stats_hdr h;
		struct ane_fw_stats_engine e;
	} __packed rec;

	if (!r->stats_buffer || !r->stats_size)
		return 0;
	ane_fw_stats_fill(&rec.h, &rec.e, r->stats_size, exec_ns, r->seq,
			  r->hdr.procedure_id, fw->completed);
	return ane_hw_dma(fw->hw, 0, r->stats_buffer, &rec, sizeof(rec), true);
}

/* A request left the engine (done, aborted or faulted). */
static void ane_fw_exec_complete(struct ane_fw *fw, struct ane_fw_req *r,
				 int status)
{
	u64 exec_ns = ane_fw_now(fw) - r->t_start;
	struct ane_fw_signpost sp;
	int ret;

	if (!ane_fw_hw_gate(fw, "queue completion"))
		return;
	ane_fw_program_release(fw, r);
	if (status == ANE_FW_ST_OK && ane_fw_exec_stats(fw, r, exec_ns)) {
		status = ANE_FW_ST_FAULT;
		ane_fw_exec_error(fw, r, ANE_FW_ERR_DART_FAULT);
	}
	ane_fw_sched_done(&fw->sched, r);
	/* a call held for room in its level may go now */
	if (fw->waiting)
		ane_fw_exec_release(fw);
	ret = ane_fw_fsm_post(&fw->fsm, ANE_FW_EV_DRAIN);
	if (ret) {
		ane_fw_panic(fw, ANE_FW_EXC_SYNC, "drain refused in %s: %d",
			     ane_fw_fsm_state_name(fw->fsm.state), ret);
		return;
	}
	fw->completed++;
	/* the call's signal events go with its end (Table 30.3) */
	if (status == ANE_FW_ST_OK)
		fw->events_signaled += r->nsignal;

	if (r->cache_handler) {
		struct ane_fw_chain_event ev = {
			.cache_handler = r->cache_handler,
			.exec_timestamp = r->exec_ts, .status = status,
			.output_set_id = r->output_set, .seq = r->seq,
			.exec_ns = exec_ns };

		ane_fw_cr_done(fw, r->cache_handler, r->output_set);
		if (ane_fw_notify(fw, ane_fw_event_chan(r->chan),
				  ANE_CMD_DATA_CHAINING_EVENT, &r->hdr, &ev,
				  sizeof(ev)))
			ane_fw_panic(fw, ANE_FW_EXC_SYNC,
				     "chaining event lost: outbox full");
	} else {
		ane_fw_exec_notify(fw, r->chan, r->seq, &r->hdr, status,
				   exec_ns, r->task_queue, r->hw_queue);
	}
	if (fw->props[ANE_FW_PROP_TRACE / 4]) {
		sp = (struct ane_fw_signpost){ .code = r->cmd_id, .arg = r->seq,
					       .ts_ns = ane_fw_now(fw) };
		ane_fw_notify(fw, ANE_FW_CH_BUF_T2H, ANE_CMD_CH_SIGNPOST,
			      &r->hdr, &sp, sizeof(sp));
	}
	ane_fw_req_free(fw, r);
	if (fw->tasks[ANE_FW_T_EXELOOP].state == ANE_FW_TASK_BLOCKED)
		fw->tasks[ANE_FW_T_EXELOOP].state = ANE_FW_TASK_RUNNABLE;
}

/* The engine's error codes as request statuses. */
static int ane_fw_exec_engine_status(u32 err)
{
	switch (err) {
	case ANE_ENG_E_NONE:
		return ANE_FW_ST_OK;
	case ANE_ENG_E_DMA:
		return ANE_FW_ST_FAULT;
	case ANE_ENG_E_TOO_BIG:
		return ANE_FW_ST_TOO_BIG;
	case ANE_ENG_E_NOMEM:
		return ANE_FW_ST_NOMEM;
	case ANE_ENG_E_NOFPU:
		return ANE_FW_ST_UNSUPPORTED;
	default:
		return ANE_FW_ST_INVALID;
	}
}

/*
 * The engine interrupted for @r's queue: done or faulted.  A queue still
 * busy (the interrupt of an earlier request on it) or aborted (the
 * deadline path ended it) is not this request's end.
 */
static void ane_fw_exec_engine_irq(struct ane_fw *fw, struct ane_fw_req *r)
{
	u32 q = r->hw_queue, status;
	int st;

	status = ane_fw_qrd(fw, ANE_REG_Q_STATUS(q));
	if (status & ANE_Q_BUSY || !(status & (ANE_Q_DONE | ANE_Q_FAULT)))
		return;
	st = ANE_FW_ST_OK;
	if (status & ANE_Q_FAULT)
		st = ane_fw_exec_engine_status(ane_fw_qrd(fw, ANE_REG_Q_ERROR(q)));
	if (st == ANE_FW_ST_FAULT)
		ane_fw_exec_error(fw, r, ANE_FW_ERR_DART_FAULT);
	ane_fw_exec_complete(fw, r, st);
}

/* The software deadline fired: abort the queue, or escalate. */
static void ane_fw_exec_deadline(struct ane_fw *fw, struct ane_fw_req *r)
{
	u32 q = r->hw_queue, status;

	if (!ane_fw_hw_gate(fw, "queue abort"))
		return;
	ane_fw_queue_disable(fw, q);
	status = ane_fw_qrd(fw, ANE_REG_Q_STATUS(q));
	if (status & (ANE_Q_DONE | ANE_Q_FAULT)) {
		/* it ended as the deadline fired: its end stands */
		ane_fw_exec_engine_irq(fw, r);
		return;
	}
	fw->deadline_aborts++;
	ane_fw_print(fw, "queue %u (tq %u) did not quiesce in %u ms: abort", q,
		     r->task_queue, fw->props[ANE_FW_PROP_DEADLINE_MS / 4]);
	if (status & ANE_Q_BUSY) {
		struct ane_fw_reset_note rn = { .first_tq = r->task_queue,
						.last_tq = r->task_queue };

		/* host-coordinated reset */
		ane_fw_mutex_lock(fw->reset_mutex, fw->current_task);
		ane_fw_notify(fw, ANE_FW_CH_BUF_T2H,
			      ANE_CMD_CH_RESET_NOTIFICATION, NULL, &rn,
			      sizeof(rn));
		ane_fw_panic(fw, ANE_FW_EXC_SYNC,
			     "abort of hardware queue %u did not clear", q);
		return;
	}
	ane_fw_exec_error(fw, r, ANE_FW_ERR_QUEUE_ABORT);
	ane_fw_exec_complete(fw, r, ANE_FW_ST_TIMEOUT);
}

/**
 * ane_fw_exeloop_handle() - the execution-loop pump's non-ring messages
 * @fw: the firmware.
 * @t: the pump task.
 * @m: an engine completion, a deadline or a kick.
 *
 * Return: %ANE_FW_DONE.
 */
enum ane_fw_result ane_fw_exeloop_handle(struct ane_fw *fw,
					 struct ane_fw_task *t,
					 const struct ane_fw_msg *m)
{
	struct ane_fw_req *r;

	switch (m->type) {
	case ANE_FW_MSG_ENGINE:
		if (m->arg >= ANE_FW_NUM_HWQ)
			break;
		r = fw->sched.hwq[m->arg];
		if (r)
			ane_fw_exec_engine_irq(fw, r);
		break;
	case ANE_FW_MSG_TIMER:
		if (m->data >= ANE_FW_NUM_REQS)
			break;
		r = &fw->reqs[m->data];
		if (!r->in_use || r->timer != (int)m->arg ||
		    fw->sched.hwq[r->hw_queue] != r)
			break;		/* completed before the deadline */
		ane_fw_exec_deadline(fw, r);
		break;
	}
	ane_fw_exec_kick(fw);
	return ANE_FW_DONE;
}

static int ane_fw_exec_proc_call(struct ane_fw *fw, u32 chan, u32 seq,
				 const struct ane_fw_cmd_hdr *hdr,
				 const void *body)
{
	const struct ane_fw_proc_call *pc = body;
	const struct ane_fw_program *prog;
	const struct ane_fw_process *proc;
	struct ane_fw_req *r;
	int st;

	st = ane_fw_proc_call_check(hdr->id, hdr, body, hdr->size);
	if (st)
		return st;
	prog = &fw->programs[hdr->program_id];
	if (!prog->valid)
		return ANE_FW_ST_NOENT;
	if (hdr->procedure_id >= prog->proc_nbr) {
		ane_fw_print(fw, "getProcedureCallType(): invalid procedureId=%d, tot=%d",
			     hdr->procedure_id, prog->proc_nbr);
		return ANE_FW_ST_INVALID;
	}
	proc = hdr->process_id >= 0 && hdr->process_id < ANE_FW_MAX_PROCESSES ?
	       &fw->processes[hdr->process_id] : NULL;
	if (!proc || proc->state != ANE_FW_PROC_RUNNING ||
	    proc->program_id != hdr->program_id) {
		fw->dropped_not_running++;
		ane_fw_print(fw, "CSNE_CMD_INFERENCE_CALL dropped. prog %d process %d not running",
			     hdr->program_id, hdr->process_id);
		return ANE_FW_ST_NOT_RUNNING;
	}
	r = ane_fw_req_alloc(fw);
	if (!r)
		return ANE_FW_ST_BUSY;
	r->chan = chan;
	r->seq = seq;
	r->cmd_id = hdr->id;
	r->hdr = *hdr;
	r->task_queue = pc->task_queue;
	r->nbars = pc->nbr_custom_bars;
	memcpy(r->bars, pc + 1, r->nbars * sizeof(r->bars[0]));
	r->nsignal = pc->nbr_signal_events;
	if (hdr->id == ANE_CMD_PROCEDURE_CALL_WITH_EVENTS) {
		/* the wait records follow the bars */
		r->nwait = pc->nbr_wait_events;
		memcpy(r->waits, (const struct ane_fw_bar *)(pc + 1) + r->nbars,
		       r->nwait * sizeof(r->waits[0]));
	}
	if (hdr->id == ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS) {
		r->nexec = pc->nbr_custom_exec_order;
		memcpy(r->exec, (const u8 *)body + pc->custom_exec_order_offset,
		       r->nexec * sizeof(r->exec[0]));
	}
	r->stats_buffer = pc->stats_buffer;
	r->stats_size = pc->stats_size;
	r->prog_gen = prog->gen;
	r->t_queued = ane_fw_now(fw);
	st = ane_fw_exec_hold(fw, r);
	if (st || r->waiting) {
		if (st)
			ane_fw_req_free(fw, r);
		return st;
	}
	if (ane_fw_sched_queue(&fw->sched, r)) {
		ane_fw_print(fw, "[isHWReady] priority queue is full!");
		ane_fw_req_free(fw, r);
		return ANE_FW_ST_BUSY;
	}
	ane_fw_exec_kick(fw);
	return ANE_FW_ST_OK;
}

static int ane_fw_exec_trigger(struct ane_fw *fw, u32 chan, u32 seq,
			       const struct ane_fw_cmd_hdr *hdr,
			       const void *body)
{
	const struct ane_fw_cr_trigger *tr = body;
	struct ane_fw_cache_req *cr;
	struct ane_fw_cmd_hdr h;
	struct ane_fw_req *r;
	int st;

	st = ane_fw_cr_trigger_check(fw, hdr, tr, hdr->size);
	if (st == ANE_FW_ST_WRONG_STATE) {
		int idx = tr->cache_handler & 0xffff;

		fw->chain_dropped++;
		ane_fw_print(fw,
			     "cacheHandler (0x%llx) in wrong state (%d) for trigger. trigger dropped.",
			     tr->cache_handler,
			     idx < ANE_FW_MAX_CACHE_REQUESTS ?
			     fw->cr[idx].state : -1);
	}
	if (st)
		return st;
	cr = &fw->cr[ane_fw_cr_lookup(fw, tr->cache_handler)];
	r = ane_fw_req_alloc(fw);
	if (!r) {
		ane_fw_cr_abort(fw, tr->cache_handler, tr->output_set_id);
		return ANE_FW_ST_BUSY;
	}
	/* The run's buffers: the trigger's inputs, the enqueued set. */
	st = ane_fw_chain_bars(fw, cr, tr, r);
	if (st) {
		ane_fw_cr_abort(fw, tr->cache_handler, tr->output_set_id);
		ane_fw_req_free(fw, r);
		return st;
	}
	h = *hdr;
	h.program_id = cr->program_id;
	h.process_id = cr->process_id;
	h.procedure_id = cr->procedure;
	h.priority = cr->priority;
	r->chan = chan;
	r->seq = seq;
	r->cmd_id = hdr->id;
	r->hdr = h;
	r->task_queue = 1 + (tr->cache_handler & 0xffff);
	r->cache_handler = tr->cache_handler;
	r->exec_ts = tr->exec_timestamp;
	r->output_set = tr->output_set_id;
	if (cr->program_id >= 0 && cr->program_id < ANE_FW_MAX_PROGRAMS)
		r->prog_gen = fw->programs[cr->program_id].gen;
	r->t_queued = ane_fw_now(fw);
	if (ane_fw_sched_queue(&fw->sched, r)) {
		ane_fw_print(fw, "[isHWReady] priority queue is full!");
		ane_fw_cr_abort(fw, tr->cache_handler, tr->output_set_id);
		ane_fw_req_free(fw, r);
		return ANE_FW_ST_BUSY;
	}
	return ANE_FW_ST_OK;
}

/* 0xff00: length-and-magic guarded payload; the reply holds a checksum. */
static int ane_fw_exec_rpc(struct ane_fw *fw, const struct ane_fw_cmd_hdr *hdr,
			   const void *body, u32 *sum)
{
	const struct ane_fw_rpc *rpc = body;
	u32 off, n, i, s = 0;
	int st;

	st = ane_fw_rpc_check(rpc, hdr->size);
	if (st)
		return st;
	for (off = 0; off < rpc->len; off += n) {
		n = min_t(u32, rpc->len - off, ANE_FW_CMDBUF);
		if (ane_hw_dma(fw->hw, 0, rpc->payload + off, fw->txbuf, n,
			       false))
			return ANE_FW_ST_FAULT;
		for (i = 0; i < n; i++)
			s = s * 31 + fw->txbuf[i];
	}
	*sum = s;
	return ANE_FW_ST_OK;
}

/**
 * ane_fw_exeloop_cmd() - one command from the execution-loop channel
 * @fw: the firmware.
 * @chan: the channel it came on (IO, or a control channel for 0x41/0x46).
 * @seq: its ring index.
 * @hdr: the validated header.
 * @body: the body.
 *
 * An id outside the accepted set is an invariant failure (the live
 * dispatcher asserts); the others are validated, then queued or answered.
 *
 * Return: &enum ane_fw_status of the command's acceptance.
 */
int ane_fw_exeloop_cmd(struct ane_fw *fw, u32 chan, u32 seq,
		       const struct ane_fw_cmd_hdr *hdr, const void *body)
{
	const struct ane_fw_process_id *pid = body;
	u32 sum = 0;
	int st;

	if (!ane_fw_exeloop_accepts(hdr->id)) {
		ane_fw_panic(fw, ANE_FW_EXC_SYNC,
			     "Cmd 0x%x is not supported through ExeLoop cmd channel",
			     hdr->id);
		return ANE_FW_ST_UNSUPPORTED;
	}
	if (!fw->endpoint_set) {
		st = ANE_FW_ST_NOT_READY;
		goto reject;
	}

	switch (hdr->id) {
	case ANE_CMD_PROCEDURE_CALL:
	case ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS:
	case ANE_CMD_PROCEDURE_CALL_WITH_EVENTS:
	case ANE_CMD_PROCEDURE_CALL_VERIFY:
		st = ane_fw_exec_proc_call(fw, chan, seq, hdr, body);
		if (st)
			goto reject;
		return st;
	case ANE_CMD_CACHE_REQUEST_TRIGGER:
	case ANE_CMD_CACHE_REQUEST_SUBMIT:
		st = ane_fw_exec_trigger(fw, chan, seq, hdr, body);
		if (st)
			fw->rejected++;
		/*
		 * On the IO channel an accepted trigger is answered by its
		 * DATA_CHAINING_EVENT (ABI 1.2), as a procedure call by its
		 * PROGRAM_EVENT; a refused one, and any on a control channel,
		 * by a reply now.
		 */
		if (st || chan != ANE_FW_CH_IO)
			ane_fw_exec_reply(fw, chan, seq, hdr, st, NULL, 0);
		ane_fw_exec_kick(fw);
		return st;
	case ANE_CMD_CH_DATA_FILE_LOAD2:
		st = fw->props[ANE_FW_PROP_DATA_FILE_LOAD / 4] ?
		     ANE_FW_ST_OK : ANE_FW_ST_UNSUPPORTED;
		break;
	case ANE_CMD_RETURN_PROCESS_ID:
		if (hdr->size != sizeof(*pid) ||
		    pid->process_id >= ANE_FW_MAX_PROCESSES) {
			st = ANE_FW_ST_INVALID;
			break;
		}
		st = fw->processes[pid->process_id].state ==
		     ANE_FW_PROC_RUNNING ? ANE_FW_ST_OK : ANE_FW_ST_NOENT;
		fw->processes[pid->process_id].state = ANE_FW_PROC_IDLE;
		break;
	case ANE_CMD_BACK_CHANNEL_RPC:
		st = ane_fw_exec_rpc(fw, hdr, body, &sum);
		break;
	default:
		st = ANE_FW_ST_UNSUPPORTED;
		break;
	}
	if (st)
		fw->rejected++;
	ane_fw_exec_reply(fw, chan, seq, hdr, st, &sum, sizeof(sum));
	return st;

reject:
	fw->rejected++;
	ane_fw_exec_notify(fw, chan, seq, hdr, st, 0, 0, 0);
	return st;
}

/**
 * ane_fw_secure_switch() - enter or leave the secure phase through PAUSE
 * @fw: the firmware.
 * @enter: enter (true) or leave.
 *
 * Only a quiesced loop (RUN) switches: the task queues are disabled, the
 * machine crosses PAUSE and returns to RUN in the new phase.
 *
 * Return: &enum ane_fw_status.
 */
int ane_fw_secure_switch(struct ane_fw *fw, bool enter)
{
	u32 q;
	int ret;

	ret = ane_fw_fsm_post(&fw->fsm, enter ? ANE_FW_EV_ENTER_SECURE :
						ANE_FW_EV_EXIT_SECURE);
	if (ret == -EAGAIN)
		return ANE_FW_ST_BUSY;
	if (ret == -EPROTO) {
		ane_fw_panic(fw, ANE_FW_EXC_SYNC, "secure switch in %s",
			     ane_fw_fsm_state_name(fw->fsm.state));
		return ANE_FW_ST_INVALID;
	}
	if (ret)
		return ANE_FW_ST_INVALID;
	/* PAUSE: every task queue disabled, nothing in flight */
	for (q = 0; q < ANE_FW_NUM_HWQ; q++)
		if (fw->sched.hwq[q])
			ane_fw_panic(fw, ANE_FW_EXC_SYNC,
				     "queue %u busy in PAUSE", q);
	ane_fw_fsm_resume(&fw->fsm);
	ane_fw_exec_kick(fw);
	return ANE_FW_ST_OK;
}
