// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware's events: the wait records of a procedure call with
 * events, which hold the call until each record's event reaches its
 * value -- a host event slot raised by EVENT_SIGNAL, or the active shared
 * event rung at its doorbell -- and the release of the held calls, oldest
 * first, as their priority level has room; a failed or deactivated event
 * cancels the calls waiting for it (ANE_FW_ST_CANCELED).  The execution
 * loop that takes and runs the calls is ane_fw_exec.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "hw/ane_cpu.h"
#include "ane_fw.h"

/*
 * The event a wait record or an EVENT_SIGNAL names: a host event slot, or
 * an active shared event; NULL for an id out of range or a shared event
 * not active.
 */
static struct ane_fw_event_state *ane_fw_event_lookup(struct ane_fw *fw,
						      u64 id)
{
	u64 n = id & ~ANE_FW_EVENT_SHARED_BIT;

	if (id < ANE_FW_NUM_EVENTS)
		return &fw->events[id];
	if ((id & ANE_FW_EVENT_SHARED_BIT) && n < fw->shared_events)
		return &fw->shared_ev[n];
	return NULL;
}

/*
 * Where @r's wait records stand: %ANE_FW_ST_OK with *@held set while one
 * has not reached its value, %ANE_FW_ST_OK with it clear once all have;
 * else the status of a failed event, or %ANE_FW_ST_CANCELED for a shared
 * event deactivated under the wait.
 */
static int ane_fw_exec_wait_state(struct ane_fw *fw, const struct ane_fw_req *r,
				  bool *held)
{
	const struct ane_fw_event_state *e;
	u32 i;

	*held = false;
	for (i = 0; i < r->nwait; i++) {
		e = ane_fw_event_lookup(fw, r->waits[i].id);
		if (!e)
			return ANE_FW_ST_CANCELED;
		if (e->value < r->waits[i].value)
			*held = true;
		else if (e->status)
			return e->status;
	}
	return ANE_FW_ST_OK;
}

/*
 * Queue the calls their wait records held whose events have all reached
 * their values, oldest first, as their priority levels have room (a call
 * released into a full level stays held until a completion drains it);
 * a call waiting on a failed event completes with the failure, without
 * running.  The caller kicks the loop.
 */
void ane_fw_exec_release(struct ane_fw *fw)
{
	struct ane_fw_req *r, *best;
	bool held;
	int st;
	u32 i;

	while (fw->waiting) {
		best = NULL;
		for (i = 0; i < ANE_FW_NUM_REQS; i++) {
			r = &fw->reqs[i];
			if (!r->in_use || !r->waiting)
				continue;
			st = ane_fw_exec_wait_state(fw, r, &held);
			if (st) {
				r->waiting = false;
				fw->waiting--;
				ane_fw_exec_notify(fw, r->chan, r->seq, &r->hdr,
						   st, 0, r->task_queue, 0);
				ane_fw_req_free(fw, r);
				if (fw->tasks[ANE_FW_T_EXELOOP].state ==
				    ANE_FW_TASK_BLOCKED)
					fw->tasks[ANE_FW_T_EXELOOP].state =
						ANE_FW_TASK_RUNNABLE;
				continue;
			}
			if (held || !ane_fw_exec_level_has_room(fw, &r->hdr))
				continue;
			if (!best || r->t_queued < best->t_queued)
				best = r;
		}
		if (!best)
			break;
		best->waiting = false;
		fw->waiting--;
		if (ane_fw_sched_queue(&fw->sched, best)) {
			ane_fw_exec_notify(fw, best->chan, best->seq, &best->hdr,
					   ANE_FW_ST_BUSY, 0, best->task_queue, 0);
			ane_fw_req_free(fw, best);
		}
	}
}

/**
 * ane_fw_event_signal() - EVENT_SIGNAL: raise an event, release its waiters
 * @fw: the firmware.
 * @body: &struct ane_fw_event_signal.
 * @len: its length.
 *
 * Return: %ANE_FW_ST_OK; %ANE_FW_ST_INVALID for a bad length, a nonzero
 * pad, a zero value or a status other than OK and CANCELED;
 * %ANE_FW_ST_NOENT for an event that does not exist.
 */
int ane_fw_event_signal(struct ane_fw *fw, const void *body, u32 len)
{
	const struct ane_fw_event_signal *es = body;
	struct ane_fw_event_state *e;

	if (len != sizeof(*es) || es->pad || !es->value ||
	    (es->status != ANE_FW_ST_OK && es->status != ANE_FW_ST_CANCELED))
		return ANE_FW_ST_INVALID;
	e = ane_fw_event_lookup(fw, es->id);
	if (!e)
		return ANE_FW_ST_NOENT;
	if (es->value > e->value) {
		e->value = es->value;
		e->status = es->status;
	}
	ane_fw_exec_release(fw);
	ane_fw_exec_kick(fw);
	return ANE_FW_ST_OK;
}

/**
 * ane_fw_shared_events_set() - SHARED_EVENT_INIT: the active shared events
 * @fw: the firmware.
 * @num: active shared events from now on, below %ANE_FW_MAX_SHARED_EVENTS.
 *
 * A shared event activated starts at value 0; calls waiting on one
 * deactivated complete with %ANE_FW_ST_CANCELED.
 */
void ane_fw_shared_events_set(struct ane_fw *fw, u32 num)
{
	u32 i;

	for (i = fw->shared_events; i < num; i++)
		fw->shared_ev[i] = (struct ane_fw_event_state){ };
	fw->shared_events = num;
	ane_fw_exec_release(fw);
	ane_fw_exec_kick(fw);
}

/*
 * A call with wait records (their ids checked by ane_fw_proc_call_check()):
 * one on a shared event not active, or on an event that failed, ends the
 * call now (%ANE_FW_ST_CANCELED, the event's status); one not reached
 * holds it (@r->waiting) until EVENT_SIGNAL reaches it.
 */
int ane_fw_exec_hold(struct ane_fw *fw, struct ane_fw_req *r)
{
	bool held;
	int st;

	st = ane_fw_exec_wait_state(fw, r, &held);
	if (!st && held) {
		r->waiting = true;
		fw->waiting++;
	}
	return st;
}
