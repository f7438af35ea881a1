// SPDX-License-Identifier: GPL-2.0-only
/*
 * The execution loop's control state machine (Table 29.8) and the
 * eight-level scheduler with its queue weights (Table 29.6): pure logic,
 * no hardware, tested directly by KUnit.  ane_fw_exec.c drives both.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "ane_fw.h"

/* ------------------------------------------------------------------- FSM */

const char *ane_fw_fsm_state_name(u32 state)
{
	static const char * const names[] = {
		[ANE_FW_FSM_INIT] = "INIT",
		[ANE_FW_FSM_RUN] = "RUN",
		[ANE_FW_FSM_EXEC] = "EXEC",
		[ANE_FW_FSM_EXEC_SECURE] = "EXEC-SECURE",
		[ANE_FW_FSM_PAUSE] = "PAUSE",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_fsm_state_name);

/* START arms the loop: INIT -> RUN. */
void ane_fw_fsm_arm(struct ane_fw_fsm *fsm)
{
	if (fsm->state == ANE_FW_FSM_INIT) {
		fsm->state = ANE_FW_FSM_RUN;
		fsm->transitions++;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_fsm_arm);

bool ane_fw_fsm_hw_allowed(const struct ane_fw_fsm *fsm)
{
	return fsm->state == ANE_FW_FSM_EXEC ||
	       fsm->state == ANE_FW_FSM_EXEC_SECURE;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_fsm_hw_allowed);

static void ane_fw_fsm_set(struct ane_fw_fsm *fsm, u32 state)
{
	if (fsm->state != state)
		fsm->transitions++;
	fsm->state = state;
}

/**
 * ane_fw_fsm_post() - post one of the four events to the execution loop
 * @fsm: the machine.
 * @event: &enum ane_fw_fsm_event.
 *
 * DISPATCH takes RUN to EXEC (EXEC-SECURE in the secure phase); DRAIN
 * returns to RUN when the last partition completes; ENTER_SECURE and
 * EXIT_SECURE, only from RUN, leave the machine in PAUSE, from which
 * ane_fw_fsm_resume() returns it to RUN.
 *
 * Return: 0; -EAGAIN if the event is refused in this state (INIT, or a
 * secure switch with work in flight); -EINVAL for a secure switch that
 * changes nothing; -EPROTO for an invariant violation: any event in PAUSE,
 * a DRAIN with nothing in flight.  The caller faults on -EPROTO.
 */
int ane_fw_fsm_post(struct ane_fw_fsm *fsm, u32 event)
{
	bool enter;

	switch (fsm->state) {
	case ANE_FW_FSM_PAUSE:
		return -EPROTO;
	case ANE_FW_FSM_INIT:
		return event == ANE_FW_EV_DRAIN ? -EPROTO : -EAGAIN;
	case ANE_FW_FSM_RUN:
		switch (event) {
		case ANE_FW_EV_DISPATCH:
			fsm->inflight++;
			ane_fw_fsm_set(fsm, fsm->secure ? ANE_FW_FSM_EXEC_SECURE :
							  ANE_FW_FSM_EXEC);
			return 0;
		case ANE_FW_EV_DRAIN:
			return -EPROTO;
		case ANE_FW_EV_ENTER_SECURE:
		case ANE_FW_EV_EXIT_SECURE:
			enter = event == ANE_FW_EV_ENTER_SECURE;
			if (fsm->secure == enter)
				return -EINVAL;
			/* quiesced (nothing in flight): cross PAUSE */
			fsm->secure = enter;
			ane_fw_fsm_set(fsm, ANE_FW_FSM_PAUSE);
			return 0;
		}
		return -EINVAL;
	case ANE_FW_FSM_EXEC:
	case ANE_FW_FSM_EXEC_SECURE:
		switch (event) {
		case ANE_FW_EV_DISPATCH:
			fsm->inflight++;
			return 0;
		case ANE_FW_EV_DRAIN:
			if (!fsm->inflight)
				return -EPROTO;
			if (!--fsm->inflight)
				ane_fw_fsm_set(fsm, ANE_FW_FSM_RUN);
			return 0;
		case ANE_FW_EV_ENTER_SECURE:
		case ANE_FW_EV_EXIT_SECURE:
			return -EAGAIN;
		}
		return -EINVAL;
	}
	return -EPROTO;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_fsm_post);

/* PAUSE -> RUN once the secure-mode boundary is crossed. */
void ane_fw_fsm_resume(struct ane_fw_fsm *fsm)
{
	if (fsm->state == ANE_FW_FSM_PAUSE)
		ane_fw_fsm_set(fsm, ANE_FW_FSM_RUN);
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_fsm_resume);

/* ------------------------------------------------------------- scheduler */

/* The fixed in-firmware queue weights of the eight priorities. */
const u32 ane_fw_queue_weights[ANE_FW_NUM_PRIORITIES] = {
	1, 2, 3, 4, 5, 6, 30, 31
};
EXPORT_SYMBOL_IF_KUNIT(ane_fw_queue_weights);

void ane_fw_sched_init(struct ane_fw_sched *s, u32 max_inflight)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < ANE_FW_NUM_PRIORITIES; i++) {
		INIT_LIST_HEAD(&s->level[i]);
		s->credit[i] = ane_fw_queue_weights[i];
	}
	s->max_inflight = max_inflight;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_sched_init);

/**
 * ane_fw_sched_queue() - queue a request on its priority level
 * @s: the scheduler.
 * @r: the request; @r->hdr.priority is its level.
 *
 * Return: 0, or -ENOSPC when the level is full ("[isHWReady] priority
 * queue is full!"): the caller reports it, nothing is dropped.
 */
int ane_fw_sched_queue(struct ane_fw_sched *s, struct ane_fw_req *r)
{
	u32 l = r->hdr.priority;

	if (l >= ANE_FW_NUM_PRIORITIES)
		return -EINVAL;
	if (s->count[l] >= ANE_FW_LEVEL_DEPTH) {
		s->full++;
		return -ENOSPC;
	}
	list_add_tail(&r->node, &s->level[l]);
	s->count[l]++;
	s->pending++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_sched_queue);

/*
 * A level's request runs on the hardware queue of its number: @hwq, the
 * queues' setup shadows and their own task-descriptor blocks are indexed
 * by the level.
 */
static_assert(ANE_FW_NUM_HWQ >= ANE_FW_NUM_PRIORITIES);

static struct ane_fw_req *ane_fw_sched_take(struct ane_fw_sched *s, u32 l)
{
	struct ane_fw_req *r;

	r = list_first_entry(&s->level[l], struct ane_fw_req, node);
	list_del_init(&r->node);
	s->count[l]--;
	s->pending--;
	s->credit[l]--;
	r->hw_queue = l;
	s->hwq[l] = r;
	s->inflight++;
	s->dispatched[l]++;
	return r;
}

/**
 * ane_fw_sched_pick() - the next request to dispatch, if any
 * @s: the scheduler.
 *
 * Strict fixed priority (level 0 first) with per-priority credit: a level
 * runs at most its weight of requests per round, then yields to the lower
 * levels; when every waiting level has spent its credit all credits are
 * refilled.  Each level owns hardware queue (its level) and runs one
 * request at a time to completion; at most @s->max_inflight run at once.
 *
 * Return: the request, now in flight on &ane_fw_req.hw_queue; NULL.
 */
struct ane_fw_req *ane_fw_sched_pick(struct ane_fw_sched *s)
{
	bool starved;
	int pass, l;

	if (s->inflight >= s->max_inflight || !s->pending)
		return NULL;
	for (pass = 0; pass < 2; pass++) {
		starved = false;
		for (l = 0; l < ANE_FW_NUM_PRIORITIES; l++) {
			if (!s->count[l] || s->hwq[l])
				continue;
			if (s->credit[l])
				return ane_fw_sched_take(s, l);
			starved = true;
		}
		if (!starved)
			break;
		for (l = 0; l < ANE_FW_NUM_PRIORITIES; l++)
			s->credit[l] = ane_fw_queue_weights[l];
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_sched_pick);

/* A request left its hardware queue. */
void ane_fw_sched_done(struct ane_fw_sched *s, struct ane_fw_req *r)
{
	if (r->hw_queue < ANE_FW_NUM_HWQ && s->hwq[r->hw_queue] == r) {
		s->hwq[r->hw_queue] = NULL;
		s->inflight--;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_sched_done);
