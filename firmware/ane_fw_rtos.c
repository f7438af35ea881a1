// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware's real-time kernel: fixed pools of tasks, message queues,
 * semaphores, mutexes, timers and request objects, and a cooperative
 * scheduler that runs one message of the highest-priority runnable task
 * to completion at a time.  Every task has a task-context queue and an
 * interrupt-context queue; the latter is served first.
 *
 * Only the firmware thread runs this code, so nothing here locks.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "ane_fw.h"

static const char * const ane_fw_pool_names[ANE_FW_NUM_POOLS] = {
	[ANE_FW_POOL_TASK] = "tasks",
	[ANE_FW_POOL_QUEUE] = "queues",
	[ANE_FW_POOL_SEM] = "semaphores",
	[ANE_FW_POOL_MUTEX] = "mutexes",
	[ANE_FW_POOL_TIMER] = "timers",
	[ANE_FW_POOL_REQ] = "requests",
	[ANE_FW_POOL_OUTBOX] = "outbox",
};

const char *ane_fw_pool_name(u32 pool)
{
	return pool < ANE_FW_NUM_POOLS ? ane_fw_pool_names[pool] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_pool_name);

const char *ane_fw_task_state_name(u32 state)
{
	static const char * const names[] = {
		[ANE_FW_TASK_RUNNABLE] = "RUNNABLE",
		[ANE_FW_TASK_SUSPENDED] = "SUSPENDED",
		[ANE_FW_TASK_WAITING] = "WAITING",
		[ANE_FW_TASK_SEMWAIT] = "SEMWAIT",
		[ANE_FW_TASK_BLOCKED] = "BLOCKED",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_task_state_name);

/**
 * ane_fw_rtos_init() - empty every pool
 * @fw: the firmware.
 */
void ane_fw_rtos_init(struct ane_fw *fw)
{
	memset(fw->tasks, 0, sizeof(fw->tasks));
	memset(fw->queues, 0, sizeof(fw->queues));
	memset(fw->sems, 0, sizeof(fw->sems));
	memset(fw->mutexes, 0, sizeof(fw->mutexes));
	memset(fw->timers, 0, sizeof(fw->timers));
	memset(fw->reqs, 0, sizeof(fw->reqs));
	fw->outbox_rd = 0;
	fw->outbox_count = 0;
	fw->current_task = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_rtos_init);

static struct ane_fw_queue *ane_fw_queue_alloc(struct ane_fw *fw,
					       const char *name)
{
	int i;

	for (i = 0; i < ANE_FW_NUM_QUEUES; i++) {
		struct ane_fw_queue *q = &fw->queues[i];

		if (!q->in_use) {
			memset(q, 0, sizeof(*q));
			q->in_use = true;
			q->name = name;
			return q;
		}
	}
	return NULL;
}

/**
 * ane_fw_task_create() - take a task and its two queues from the pools
 * @fw: the firmware.
 * @id: task slot (&enum ane_fw_task_id).
 * @name: task name.
 * @prio: kernel thread priority, lower runs first.
 * @handle: the message handler.
 *
 * Return: the task, WAITING on its empty queues; NULL if a pool is
 * exhausted or the slot is taken.
 */
struct ane_fw_task *ane_fw_task_create(struct ane_fw *fw, u32 id,
				       const char *name, u32 prio,
				       ane_fw_handler_t handle)
{
	struct ane_fw_task *t;

	if (id >= ANE_FW_NUM_TASKS || fw->tasks[id].in_use)
		return NULL;
	t = &fw->tasks[id];
	t->q = ane_fw_queue_alloc(fw, name);
	t->irq_q = ane_fw_queue_alloc(fw, name);
	if (!t->q || !t->irq_q) {
		if (t->q)
			t->q->in_use = false;
		if (t->irq_q)
			t->irq_q->in_use = false;
		t->q = NULL;
		t->irq_q = NULL;
		return NULL;
	}
	t->in_use = true;
	t->name = name;
	t->prio = prio;
	t->handle = handle;
	t->handled = 0;
	t->state = ANE_FW_TASK_WAITING;
	t->blocked_on = "queue";
	return t;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_task_create);

/**
 * ane_fw_post() - append a message to a bounded queue
 * @q: the queue.
 * @m: the message (copied).
 *
 * Return: 0, or -ENOSPC when the queue is full: the post fails and is
 * counted, the message is never silently dropped.
 */
int ane_fw_post(struct ane_fw_queue *q, const struct ane_fw_msg *m)
{
	if (q->count >= ANE_FW_QUEUE_DEPTH) {
		q->full++;
		return -ENOSPC;
	}
	q->ring[q->wr] = *m;
	q->wr = (q->wr + 1) % ANE_FW_QUEUE_DEPTH;
	q->count++;
	if (q->count > q->high_water)
		q->high_water = q->count;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_post);

static int ane_fw_post_to(struct ane_fw *fw, u32 task, bool irq, u32 type,
			  u32 arg, u64 data)
{
	struct ane_fw_msg m = { .type = type, .arg = arg, .data = data };
	struct ane_fw_task *t;
	int ret;

	if (task >= ANE_FW_NUM_TASKS || !fw->tasks[task].in_use)
		return -ENOENT;
	t = &fw->tasks[task];
	ret = ane_fw_post(irq ? t->irq_q : t->q, &m);
	if (!ret && t->state == ANE_FW_TASK_WAITING)
		t->state = ANE_FW_TASK_RUNNABLE;
	return ret;
}

int ane_fw_post_task(struct ane_fw *fw, u32 task, u32 type, u32 arg, u64 data)
{
	return ane_fw_post_to(fw, task, false, type, arg, data);
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_post_task);

int ane_fw_post_irq(struct ane_fw *fw, u32 task, u32 type, u32 arg, u64 data)
{
	return ane_fw_post_to(fw, task, true, type, arg, data);
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_post_irq);

/* Is there a coalesced "same" message queued already? */
static u16 ane_fw_queue_count(const struct ane_fw_queue *q, u32 type, u32 arg)
{
	u16 i, idx, n = 0;

	for (i = 0, idx = q->rd; i < q->count;
	     i++, idx = (idx + 1) % ANE_FW_QUEUE_DEPTH)
		if (q->ring[idx].type == type && q->ring[idx].arg == arg)
			n++;
	return n;
}

static bool ane_fw_queue_has(const struct ane_fw_queue *q, u32 type, u32 arg)
{
	return ane_fw_queue_count(q, type, arg) > 0;
}

/**
 * ane_fw_run_one() - run one message of the best runnable task
 * @fw: the firmware.
 *
 * The task with the lowest priority number that is RUNNABLE and has a
 * message runs it to completion; its interrupt queue is served before its
 * task queue.  A handler returning %ANE_FW_BLOCK leaves the message at the
 * head and the task in the state the handler set.  A BLOCKED task still
 * serves its interrupt queue: only its task-context work waits, and the
 * interrupts are often what unblocks it (an engine completion freeing the
 * request pool the task is blocked on).  An interrupt message whose
 * handler blocks the task is task-context work after all: it moves to the
 * end of the task queue (unless the same message waits there already)
 * and runs once the task is unblocked -- left at the head of the
 * interrupt queue, it would run again at once, and again, and the
 * firmware would spin instead of waiting for what unblocks it (a host
 * draining a full ring, say).
 *
 * Return: true if a message ran.
 */
bool ane_fw_run_one(struct ane_fw *fw)
{
	struct ane_fw_task *best = NULL;
	struct ane_fw_queue *q;
	struct ane_fw_msg m;
	int i;

	for (i = 0; i < ANE_FW_NUM_TASKS; i++) {
		struct ane_fw_task *t = &fw->tasks[i];

		if (!t->in_use)
			continue;
		if (t->state != ANE_FW_TASK_RUNNABLE &&
		    !(t->state == ANE_FW_TASK_BLOCKED && t->irq_q->count))
			continue;
		if (!t->q->count && !t->irq_q->count) {
			t->state = ANE_FW_TASK_WAITING;
			t->blocked_on = "queue";
			continue;
		}
		if (!best || t->prio < best->prio)
			best = t;
	}
	if (!best)
		return false;

	q = best->irq_q->count ? best->irq_q : best->q;
	m = q->ring[q->rd];
	fw->current_task = best;
	fw->in_irq = false;
	best->cur_from_irq = q == best->irq_q;
	if (best->handle(fw, best, &m) == ANE_FW_BLOCK) {
		fw->current_task = NULL;
		if (q == best->irq_q && best->state == ANE_FW_TASK_BLOCKED &&
		    (ane_fw_queue_has(best->q, m.type, m.arg) ||
		     !ane_fw_post(best->q, &m))) {
			q->rd = (q->rd + 1) % ANE_FW_QUEUE_DEPTH;
			q->count--;
		}
		return true;
	}
	fw->current_task = NULL;
	/* The handler may have re-posted to this queue; pop our message. */
	q->rd = (q->rd + 1) % ANE_FW_QUEUE_DEPTH;
	q->count--;
	best->handled++;
	fw->handled++;
	if (best->state == ANE_FW_TASK_RUNNABLE && !q->count &&
	    !best->q->count && !best->irq_q->count) {
		best->state = ANE_FW_TASK_WAITING;
		best->blocked_on = "queue";
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_run_one);

/**
 * ane_fw_post_once() - post unless the same message is already queued
 * @fw: the firmware.
 * @task: target task.
 * @irq: to its interrupt queue.
 * @type: message type.
 * @arg: message argument.
 *
 * Doorbells coalesce: one "ring has messages" suffices however often the
 * host rang.
 *
 * Return: 0 or -ENOSPC.
 */
int ane_fw_post_once(struct ane_fw *fw, u32 task, bool irq, u32 type, u32 arg)
{
	struct ane_fw_task *t = &fw->tasks[task];

	if (!t->in_use)
		return -ENOENT;
	if (ane_fw_queue_has(irq ? t->irq_q : t->q, type, arg))
		return 0;
	return ane_fw_post_to(fw, task, irq, type, arg, 0);
}

/**
 * ane_fw_post_again() - a handler posts itself more work of the same kind
 * @fw: the firmware.
 * @task: the task (normally the one running).
 * @type: message type.
 * @arg: message argument.
 *
 * Like ane_fw_post_once() to the task queue, except that the message being
 * handled, which is popped only when its handler returns, does not count
 * as already queued.
 *
 * Return: 0 or -ENOSPC.
 */
int ane_fw_post_again(struct ane_fw *fw, u32 task, u32 type, u32 arg)
{
	struct ane_fw_task *t = &fw->tasks[task];
	u16 self;

	if (!t->in_use)
		return -ENOENT;
	self = fw->current_task == t && !t->cur_from_irq;
	if (ane_fw_queue_count(t->q, type, arg) > self)
		return 0;
	return ane_fw_post_to(fw, task, false, type, arg, 0);
}

/* ------------------------------------------------------------ semaphores */

struct ane_fw_sem *ane_fw_sem_create(struct ane_fw *fw, const char *name,
				     int count)
{
	int i;

	for (i = 0; i < ANE_FW_NUM_SEMS; i++) {
		struct ane_fw_sem *s = &fw->sems[i];

		if (!s->in_use) {
			s->in_use = true;
			s->name = name;
			s->count = count;
			s->waiter = NULL;
			return s;
		}
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_sem_create);

/**
 * ane_fw_sem_take() - take a unit or wait for one
 * @s: the semaphore.
 * @t: the calling task.
 *
 * Return: true if taken.  Otherwise @t is SEMWAIT on @s and the caller
 * returns %ANE_FW_BLOCK; ane_fw_sem_give() makes it runnable again and
 * its message runs again from the start.
 */
bool ane_fw_sem_take(struct ane_fw_sem *s, struct ane_fw_task *t)
{
	if (s->count > 0) {
		s->count--;
		return true;
	}
	s->waiter = t;
	t->state = ANE_FW_TASK_SEMWAIT;
	t->blocked_on = s->name;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_sem_take);

void ane_fw_sem_give(struct ane_fw_sem *s)
{
	s->count++;
	if (s->waiter) {
		s->waiter->state = ANE_FW_TASK_RUNNABLE;
		s->waiter = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_sem_give);

/* --------------------------------------------------------------- mutexes */

struct ane_fw_mutex *ane_fw_mutex_create(struct ane_fw *fw, const char *name)
{
	int i;

	for (i = 0; i < ANE_FW_NUM_MUTEXES; i++) {
		struct ane_fw_mutex *m = &fw->mutexes[i];

		if (!m->in_use) {
			m->in_use = true;
			m->name = name;
			m->owner = NULL;
			return m;
		}
	}
	return NULL;
}

bool ane_fw_mutex_lock(struct ane_fw_mutex *m, struct ane_fw_task *t)
{
	if (m->owner && m->owner != t) {
		t->state = ANE_FW_TASK_BLOCKED;
		t->blocked_on = m->name;
		return false;
	}
	m->owner = t;
	return true;
}

void ane_fw_mutex_unlock(struct ane_fw_mutex *m)
{
	m->owner = NULL;
}

/* ---------------------------------------------------------------- timers */

/**
 * ane_fw_timer_alloc() - take a timer from the pool
 * @fw: the firmware.
 * @t: the task its expiry is posted to (interrupt queue).
 *
 * Return: the timer id, or -ENOSPC when the pool is empty.
 */
int ane_fw_timer_alloc(struct ane_fw *fw, struct ane_fw_task *t)
{
	int i;

	for (i = 0; i < ANE_FW_NUM_TIMERS; i++) {
		if (!fw->timers[i].in_use) {
			fw->timers[i] = (struct ane_fw_timer){
				.in_use = true,
				.task = t,
			};
			return i;
		}
	}
	return -ENOSPC;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_timer_alloc);

void ane_fw_timer_arm(struct ane_fw *fw, int id, u64 delay_ns, u64 cookie)
{
	struct ane_fw_timer *tm = &fw->timers[id];

	tm->armed = true;
	tm->expires_ns = ane_fw_now(fw) + delay_ns;
	tm->cookie = cookie;
}

void ane_fw_timer_free(struct ane_fw *fw, int id)
{
	if (id >= 0 && id < ANE_FW_NUM_TIMERS)
		fw->timers[id] = (struct ane_fw_timer){ };
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_timer_free);

/**
 * ane_fw_timers_fire() - post every expired timer
 * @fw: the firmware.
 * @now: the time.
 *
 * A timer whose task's interrupt queue is full stays armed and fires on
 * the next pass.
 *
 * Return: ns until the next armed timer, or U64_MAX.
 */
u64 ane_fw_timers_fire(struct ane_fw *fw, u64 now)
{
	u64 next = U64_MAX;
	int i;

	for (i = 0; i < ANE_FW_NUM_TIMERS; i++) {
		struct ane_fw_timer *tm = &fw->timers[i];
		u32 task;

		if (!tm->in_use || !tm->armed)
			continue;
		if (tm->expires_ns <= now) {
			task = tm->task - fw->tasks;
			if (!ane_fw_post_irq(fw, task, ANE_FW_MSG_TIMER, i,
					     tm->cookie)) {
				tm->armed = false;
				continue;
			}
			next = 0;
			continue;
		}
		next = min(next, tm->expires_ns - now);
	}
	return next;
}

/* -------------------------------------------------------------- requests */

struct ane_fw_req *ane_fw_req_alloc(struct ane_fw *fw)
{
	int i;

	for (i = 0; i < ANE_FW_NUM_REQS; i++) {
		struct ane_fw_req *r = &fw->reqs[i];

		if (!r->in_use) {
			/* @bars is read only below @nbars: left as it was */
			memset(r, 0, offsetof(struct ane_fw_req, bars));
			memset((u8 *)r + offsetof(struct ane_fw_req, stats_buffer),
			       0, sizeof(*r) -
			       offsetof(struct ane_fw_req, stats_buffer));
			r->in_use = true;
			fw->reqs_used++;
			r->timer = -1;
			INIT_LIST_HEAD(&r->node);
			return r;
		}
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_req_alloc);

void ane_fw_req_free(struct ane_fw *fw, struct ane_fw_req *r)
{
	ane_fw_timer_free(fw, r->timer);
	r->timer = -1;
	if (r->in_use)
		fw->reqs_used--;
	r->in_use = false;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_req_free);

/**
 * ane_fw_pool_count() - a pool's capacity as total and available
 * @fw: the firmware.
 * @pool: &enum ane_fw_pool.
 * @total: slots.
 * @avail: free slots.
 */
void ane_fw_pool_count(const struct ane_fw *fw, u32 pool, u32 *total,
		       u32 *avail)
{
	u32 i, n = 0, used = 0;

	switch (pool) {
	case ANE_FW_POOL_TASK:
		n = ANE_FW_NUM_TASKS;
		for (i = 0; i < n; i++)
			used += fw->tasks[i].in_use;
		break;
	case ANE_FW_POOL_QUEUE:
		n = ANE_FW_NUM_QUEUES;
		for (i = 0; i < n; i++)
			used += fw->queues[i].in_use;
		break;
	case ANE_FW_POOL_SEM:
		n = ANE_FW_NUM_SEMS;
		for (i = 0; i < n; i++)
			used += fw->sems[i].in_use;
		break;
	case ANE_FW_POOL_MUTEX:
		n = ANE_FW_NUM_MUTEXES;
		for (i = 0; i < n; i++)
			used += fw->mutexes[i].in_use;
		break;
	case ANE_FW_POOL_TIMER:
		n = ANE_FW_NUM_TIMERS;
		for (i = 0; i < n; i++)
			used += fw->timers[i].in_use;
		break;
	case ANE_FW_POOL_REQ:
		n = ANE_FW_NUM_REQS;
		used = fw->reqs_used;
		break;
	case ANE_FW_POOL_OUTBOX:
		n = ANE_FW_NUM_OUTBOX;
		used = fw->outbox_count;
		break;
	}
	*total = n;
	*avail = n - used;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_pool_count);
