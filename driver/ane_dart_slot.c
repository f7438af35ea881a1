// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DART, driver half: binding isolation contexts to the controller's
 * hardware slots, and the line of binds and parked requests waiting for
 * one.  The base context owns slot 0; client contexts share iso1..iso7 by
 * time, a context with outstanding work keeping its slot.  A bind that
 * finds none sleeps in the line (ane_dart_bind()); a request that finds
 * none parks in it (ane_dart_park()) and a dispatcher starts it once its
 * context is bound.  The contexts themselves are ane_dart.c's.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include "ane_dart_internal.h"

/*
 * Program a slot's registers.  Unplugging the device does not stop its
 * controller: until the binding's teardown halts it (ane_dart_detach())
 * the firmware still runs what it was given, and a context released
 * meanwhile must leave its slot before its tables are freed, or the
 * engine walks freed pages.  After that the hardware may belong to the
 * next binding: the registers are left alone, and the state kept here
 * only tracks what the contexts still hold.  Caller holds
 * &ane_dart.ctx_lock.
 */
static void ane_dart_program_slot(struct ane_dart *dart, int slot,
				  struct ane_dart_ctx *ctx)
{
	u32 enabled;

	lockdep_assert_held(&dart->ctx_lock);
	if (dart->detached)
		return;
	enabled = ane_dart_rd(dart, ANE_DART_ENABLED_STREAMS);
	if (ctx) {
		ane_dart_wr(dart, ANE_DART_TTBR(slot), ANE_DART_TTBR_VALID |
			    (u32)(virt_to_phys(ctx->l2) >> ANE_DART_TTBR_SHIFT));
		ane_dart_wr(dart, ANE_DART_TCR(slot), ANE_DART_TCR_TRANSLATE);
		enabled |= BIT(slot);
	} else {
		ane_dart_wr(dart, ANE_DART_TCR(slot), 0);
		ane_dart_wr(dart, ANE_DART_TTBR(slot), 0);
		enabled &= ~BIT(slot);
	}
	ane_dart_wr(dart, ANE_DART_ENABLED_STREAMS, enabled);
	ane_dart_wr(dart, ANE_DART_TLB_CMD, ANE_DART_TLB_FLUSH | BIT(slot));
}

static bool ane_dart_ctx_idle(struct ane_dart_ctx *ctx)
{
	bool idle;

	mutex_lock(&ctx->lock);
	idle = atomic_read(&ctx->inflight) == atomic_read(&ctx->parked_pins) &&
	       atomic_read(&ctx->requests) == atomic_read(&ctx->parked);
	mutex_unlock(&ctx->lock);
	return idle;
}

/**
 * ane_dart_try_bind() - bind a context to a hardware slot
 * @ctx: the context.
 *
 * The base context owns slot 0.  A client context takes a free slot of
 * iso1..iso7; with all seven taken it takes over the slot of the context
 * bound longest ago that has no outstanding requests, by switching the
 * slot's TTBR and flushing its translation cache.  More clients than
 * hardware contexts therefore share the slots by time, as long as at
 * most seven have work outstanding at once.
 *
 * Return: the slot, or -EBUSY when every slot's context has outstanding
 * requests.
 */
static int ane_dart_try_bind(struct ane_dart_ctx *ctx)
{
	struct ane_dart *dart = ctx->dart;
	struct ane_dart_ctx *victim = NULL;
	int slot, ret;

	mutex_lock(&dart->ctx_lock);
	if (ctx->slot >= 0) {
		ret = ctx->slot;
		goto out;
	}
	for (slot = 1; slot < ANE_DART_NUM_SLOTS; slot++) {
		struct ane_dart_ctx *c = dart->slots[slot];

		if (!c)
			break;
		if (ane_dart_ctx_idle(c) && (!victim || c->last_bound < victim->last_bound))
			victim = c;
	}
	if (slot == ANE_DART_NUM_SLOTS) {
		if (!victim) {
			ret = -EBUSY;
			goto out;
		}
		slot = victim->slot;
		victim->slot = -1;
		dart->slot_switches++;
	}
	dart->slots[slot] = ctx;
	WRITE_ONCE(dart->sid_ctx[slot], ctx->id);
	ctx->slot = slot;
	ctx->turn_binds = 0;
	ctx->last_bound = ++dart->bind_clock;
	ane_dart_program_slot(dart, slot, ctx);
	ret = slot;
out:
	mutex_unlock(&dart->ctx_lock);
	return ret;
}

/*
 * Tell the first waiter to look again: wake a sleeping bind, or run the
 * dispatcher for a parked request.  Caller holds &dart->wait_lock.
 */
static void ane_dart_kick_first(struct ane_dart *dart)
{
	struct ane_dart_waiter *w;

	lockdep_assert_held(&dart->wait_lock);
	w = list_first_entry_or_null(&dart->slot_waiters,
				     struct ane_dart_waiter, link);
	if (w && w->task) {
		w->kicked = true;
		wake_up_process(w->task);
	} else if (w) {
		/*
		 * A parked request: the next submitter (or the dispatcher at
		 * work, looking again) dispatches it; the work item a tick
		 * later if none comes first.
		 */
		atomic_set(&dart->dispatch_again, 1);
		queue_delayed_work(system_highpri_wq, &dart->dispatch, 1);
	}
}

/**
 * ane_dart_ctx_went_idle() - a context's work ended: its slot may go
 * @ctx: the context.
 *
 * The first bind waiting for a slot looks again (only the first: the
 * others would find nothing and sleep again, and the slot is the first
 * one's by turn).
 *
 * Context: any, including atomic (a request's completion).
 */
void ane_dart_ctx_went_idle(struct ane_dart_ctx *ctx)
{
	struct ane_dart *dart = ctx->dart;
	unsigned long flags;

	if (list_empty_careful(&dart->slot_waiters))
		return;
	spin_lock_irqsave(&dart->wait_lock, flags);
	ane_dart_kick_first(dart);
	spin_unlock_irqrestore(&dart->wait_lock, flags);
}

/* Is @w first in line?  Takes &dart->wait_lock. */
static bool ane_dart_waiter_first(struct ane_dart *dart,
				  struct ane_dart_waiter *w)
{
	bool first;

	spin_lock_irq(&dart->wait_lock);
	first = list_first_entry(&dart->slot_waiters, struct ane_dart_waiter,
				 link) == w;
	w->kicked = false;
	spin_unlock_irq(&dart->wait_lock);
	return first;
}

/*
 * @ctx is bound, others wait for a slot, and its only work is the request
 * being built (one request, and no pins but that request's @own_pins):
 * its slot would be idle but for that request.  After %ANE_DART_TURN_BINDS
 * such binds since it took the slot, give the slot up, so that
 * the first in line takes it and @ctx queues behind the others -- with
 * more busy clients than slots, each takes its turn instead of the
 * quickest to resubmit keeping its slot.  The counts only grow under
 * &ane_dart_ctx.lock, so the engine works for no other request of @ctx
 * once the check holds.  Return: whether it gave the slot up.
 */
static bool ane_dart_give_way(struct ane_dart_ctx *ctx, u32 own_pins)
{
	struct ane_dart *dart = ctx->dart;
	bool give;

	mutex_lock(&dart->ctx_lock);
	mutex_lock(&ctx->lock);
	give = ctx->slot > 0 && atomic_read(&ctx->requests) == 1 &&
	       atomic_read(&ctx->inflight) == own_pins &&
	       ++ctx->turn_binds >= ANE_DART_TURN_BINDS;
	mutex_unlock(&ctx->lock);
	if (give) {
		ane_dart_program_slot(dart, ctx->slot, NULL);
		dart->slots[ctx->slot] = NULL;
		ctx->slot = -1;
		dart->slot_turns++;
	}
	mutex_unlock(&dart->ctx_lock);
	return give;
}

/* ane_dart_bind(), and with @turn ane_dart_bind_turn(). */
static int __ane_dart_bind(struct ane_dart_ctx *ctx, bool turn, u32 own_pins)
{
	struct ane_dart *dart = ctx->dart;
	struct ane_dart_waiter w = { .task = current };
	long left = msecs_to_jiffies(dart->slot_wait_ms);
	bool gave = false;
	int ret;

	if (turn && READ_ONCE(ctx->slot) > 0 &&
	    !list_empty_careful(&dart->slot_waiters))
		gave = ane_dart_give_way(ctx, own_pins);
	/*
	 * Bound already, or a slot to take and nobody in line before us; a
	 * request's bind also queues behind its context's parked requests.
	 */
	if (!gave && !(turn && atomic_read(&ctx->queued)) &&
	    (READ_ONCE(ctx->slot) >= 0 || list_empty_careful(&dart->slot_waiters))) {
		ret = ane_dart_try_bind(ctx);
		if (ret != -EBUSY)
			return ret;
	}
	spin_lock_irq(&dart->wait_lock);
	list_add_tail(&w.link, &dart->slot_waiters);
	dart->slot_waits++;
	/* The slot given up is the first one's to take. */
	if (gave)
		ane_dart_kick_first(dart);
	spin_unlock_irq(&dart->wait_lock);

	for (;;) {
		if (ane_dart_waiter_first(dart, &w)) {
			ret = ane_dart_try_bind(ctx);
			if (ret != -EBUSY)
				break;
		}
		ret = -EBUSY;
		if (left <= 0)
			break;
		ret = -ERESTARTSYS;
		if (signal_pending(current))
			break;
		/* A kick between the look above and here is not lost. */
		spin_lock_irq(&dart->wait_lock);
		if (!w.kicked) {
			set_current_state(TASK_INTERRUPTIBLE);
			spin_unlock_irq(&dart->wait_lock);
			left = schedule_timeout(left);
		} else {
			spin_unlock_irq(&dart->wait_lock);
		}
	}

	/* The next in line looks: there may be another idle slot. */
	spin_lock_irq(&dart->wait_lock);
	list_del(&w.link);
	ane_dart_kick_first(dart);
	spin_unlock_irq(&dart->wait_lock);
	return ret;
}

/**
 * ane_dart_bind_or_park() - bind a request's context now, or say it parks
 * @ctx: the context.
 * @own_pins: the pins of @ctx's mappings the request holds.
 *
 * With nobody in line, a bound context keeps its slot and an unbound one
 * takes a free or idle slot if there is one.  While others wait, the
 * request takes its place behind them even if its context is bound: a
 * context whose only work is this request gives its slot to the first
 * in line at once (ane_dart_give_way()), one with other requests in
 * flight keeps it until they end -- it is idle then, its requests all
 * parked, and the slot goes to the first in line.  So a client with many
 * requests in flight does not hold a slot while others wait.  A context
 * with requests queued already parks too, so that its requests start in
 * the order they came.
 *
 * Return: the slot; -EAGAIN when the request is to take its place in the
 * line with ane_dart_park() rather than wait here.
 */
int ane_dart_bind_or_park(struct ane_dart_ctx *ctx, u32 own_pins)
{
	struct ane_dart *dart = ctx->dart;
	int ret;

	if (atomic_read(&ctx->queued))
		return -EAGAIN;
	if (!list_empty_careful(&dart->slot_waiters)) {
		if (READ_ONCE(ctx->slot) > 0)
			ane_dart_give_way(ctx, own_pins);
		return -EAGAIN;
	}
	ret = ane_dart_try_bind(ctx);
	return ret == -EBUSY ? -EAGAIN : ret;
}

/**
 * ane_dart_park() - a request takes its place in the line for a slot
 * @ctx: the request's context, which holds one of its ane_request_pool_get()
 *	counts for it until @run is called.
 * @pins: the pins of @ctx's mappings the request holds: a context whose
 *	only work is parked requests is idle, its slot may be taken.
 * @w: the place in the line, the request's own.
 * @run: what starts the request once @ctx is bound (see
 *	&struct ane_dart_waiter).
 *
 * The request's submitter does not wait: a dispatcher (ane_dart_dispatch(),
 * run here, by the next submitters, or a tick after a context went idle
 * by a work item) binds @ctx when the request is first in line and a slot
 * is free, and calls @run -- perhaps before this returns.
 * With more busy clients than slots each request then waits its turn in
 * the line without its process sleeping twice (once for the slot, once
 * for the completion), which under load costs a process switch each.
 */
void ane_dart_park(struct ane_dart_ctx *ctx, u32 pins, struct ane_dart_waiter *w,
		   void (*run)(struct ane_dart_waiter *w, int slot))
{
	struct ane_dart *dart = ctx->dart;

	w->task = NULL;
	w->kicked = false;
	w->ctx = ctx;
	w->pins = pins;
	w->run = run;
	w->deadline = jiffies + msecs_to_jiffies(dart->slot_wait_ms);
	atomic_inc(&ctx->queued);
	atomic_add(pins, &ctx->parked_pins);
	atomic_inc(&ctx->parked);
	spin_lock_irq(&dart->wait_lock);
	list_add_tail(&w->link, &dart->slot_waiters);
	dart->slot_waits++;
	spin_unlock_irq(&dart->wait_lock);
	ane_dart_dispatch(dart);
}

/*
 * While a parked request is first in line, bind its context and start it;
 * a sleeping bind first in line is woken instead.  With no slot to be had
 * the line waits for the next context going idle (or the first one's
 * deadline, when that one fails with -EBUSY).
 */
static void ane_dart_dispatch_locked(struct ane_dart *dart)
{
	struct ane_dart_waiter *w;
	struct ane_dart_ctx *ctx;
	int slot;

	lockdep_assert_held(&dart->dispatch_lock);
	for (;;) {
		spin_lock_irq(&dart->wait_lock);
		w = list_first_entry_or_null(&dart->slot_waiters,
					     struct ane_dart_waiter, link);
		if (!w || w->task) {
			if (w)
				ane_dart_kick_first(dart);
			spin_unlock_irq(&dart->wait_lock);
			return;
		}
		spin_unlock_irq(&dart->wait_lock);

		/* Only a dispatcher takes a parked request off the line. */
		slot = ane_dart_try_bind(w->ctx);
		if (slot == -EBUSY && time_before(jiffies, w->deadline)) {
			mod_delayed_work(system_highpri_wq, &dart->dispatch_deadline,
					 w->deadline - jiffies);
			return;
		}
		spin_lock_irq(&dart->wait_lock);
		list_del(&w->link);
		spin_unlock_irq(&dart->wait_lock);
		if (slot < 0)
			dart->parked_failed++;
		/*
		 * Bound with a request that is no longer parked: not idle, the
		 * slot stays its own.  Still queued until sent, so a request
		 * of the context coming meanwhile does not overtake it; the
		 * reference keeps the context past the request's completion.
		 */
		ctx = w->ctx;
		kref_get(&ctx->kref);
		atomic_dec(&ctx->parked);
		atomic_sub(w->pins, &ctx->parked_pins);
		w->run(w, slot);
		atomic_dec(&ctx->queued);
		ane_dart_ctx_put(ctx);
	}
}

/*
 * Dispatch until no new reason to look came meanwhile (@dart->dispatch_again,
 * set by whoever parks a request, gives a slot up or sees a context go
 * idle): a dispatcher that finds the lock taken leaves its look to the
 * one holding it.  @wait: take the lock even if that means waiting.
 */
static void ane_dart_dispatch_run(struct ane_dart *dart, bool wait)
{
	atomic_set(&dart->dispatch_again, 1);
	while (atomic_read(&dart->dispatch_again)) {
		if (wait)
			mutex_lock(&dart->dispatch_lock);
		else if (!mutex_trylock(&dart->dispatch_lock))
			return;
		while (atomic_xchg(&dart->dispatch_again, 0))
			ane_dart_dispatch_locked(dart);
		mutex_unlock(&dart->dispatch_lock);
		wait = false;
	}
}

/**
 * ane_dart_dispatch() - start the parked requests that can have a slot
 * @dart: the controller.
 *
 * Called by every submitter once its own request is sent or parked, so
 * that under load the line moves without a work item's switch; with a
 * dispatcher already at work it only asks that one to look again.
 */
void ane_dart_dispatch(struct ane_dart *dart)
{
	if (!list_empty_careful(&dart->slot_waiters))
		ane_dart_dispatch_run(dart, false);
}

static void ane_dart_dispatch_work(struct work_struct *work)
{
	ane_dart_dispatch_run(container_of(to_delayed_work(work), struct ane_dart,
					   dispatch), true);
}

static void ane_dart_dispatch_deadline_work(struct work_struct *work)
{
	ane_dart_dispatch_run(container_of(to_delayed_work(work), struct ane_dart,
					   dispatch_deadline), true);
}

/**
 * ane_dart_bind() - bind a context to a hardware slot, waiting for one
 * @ctx: the context.
 *
 * As ane_dart_try_bind(), but a context that finds every slot's context
 * busy waits (interruptibly) for one to go idle rather than fail: the
 * submitter of an eighth client's request waits for a slot as it would
 * for room in the firmware's queues.  Waiters are served in arrival
 * order, and a newcomer does not take a slot while others wait, so with
 * more busy clients than slots each gets its turn.  Bounded by
 * &ane_dart.slot_wait_ms.
 *
 * Return: the slot; -EBUSY when no slot came free in that time;
 * -ERESTARTSYS on a signal.
 */
int ane_dart_bind(struct ane_dart_ctx *ctx)
{
	return __ane_dart_bind(ctx, false, 0);
}

/**
 * ane_dart_bind_turn() - ane_dart_bind() for a request, in turn with others
 * @ctx: the context.
 * @own_pins: the pins of @ctx's mappings the request holds.
 *
 * As ane_dart_bind(), but while other binds wait for a slot, a context
 * whose only work is this request gives its slot to the first of them
 * and waits its turn (ane_dart_give_way()).
 *
 * Return: as ane_dart_bind().
 */
int ane_dart_bind_turn(struct ane_dart_ctx *ctx, u32 own_pins)
{
	return __ane_dart_bind(ctx, true, own_pins);
}

void ane_dart_unbind(struct ane_dart_ctx *ctx)
{
	struct ane_dart *dart = ctx->dart;

	mutex_lock(&dart->ctx_lock);
	if (ctx->slot >= 0) {
		ane_dart_program_slot(dart, ctx->slot, NULL);
		dart->slots[ctx->slot] = NULL;
		ctx->slot = -1;
	}
	mutex_unlock(&dart->ctx_lock);
	ane_dart_ctx_went_idle(ctx);	/* a free slot for the first in line */
}

/**
 * ane_dart_slots_init() - the slots' line, empty
 * @dart: the driver's DART state.
 */
void ane_dart_slots_init(struct ane_dart *dart)
{
	spin_lock_init(&dart->wait_lock);
	INIT_LIST_HEAD(&dart->slot_waiters);
	mutex_init(&dart->dispatch_lock);
	INIT_DELAYED_WORK(&dart->dispatch, ane_dart_dispatch_work);
	INIT_DELAYED_WORK(&dart->dispatch_deadline, ane_dart_dispatch_deadline_work);
	dart->slot_wait_ms = ANE_DART_SLOT_WAIT_MS;
}

/**
 * ane_dart_slots_bind_base() - the base context owns slot 0, stream 0
 * @dart: the driver's DART state.
 * @base: the base context, for the device's lifetime.
 */
void ane_dart_slots_bind_base(struct ane_dart *dart, struct ane_dart_ctx *base)
{
	int slot = ANE_DART_BASE_SID;

	mutex_lock(&dart->ctx_lock);
	dart->slots[slot] = base;
	base->slot = slot;
	ane_dart_program_slot(dart, slot, base);
	mutex_unlock(&dart->ctx_lock);
}

/**
 * ane_dart_slots_fini() - the line's work items stopped; it must be empty
 * @dart: the driver's DART state.
 */
void ane_dart_slots_fini(struct ane_dart *dart)
{
	cancel_delayed_work_sync(&dart->dispatch);
	cancel_delayed_work_sync(&dart->dispatch_deadline);
	WARN_ON(!list_empty(&dart->slot_waiters));
	mutex_destroy(&dart->dispatch_lock);
}
