// SPDX-License-Identifier: GPL-2.0-only
/*
 * SessionHintRequest (direct-path selector 7): a client's hints about its
 * coming work, and what the engine's power management does with them
 * (Documentation/accel/ane/resident.rst, "SessionHintRequest", and
 * power.rst, "Hints").
 *
 * Both hints act through one *hint hold* per client: a runtime PM usage
 * reference on the engine, taken when the hold starts and dropped by a
 * timer when it ends, so an idle engine is not powered down while it is
 * held and powers down after the autosuspend delay once it is not.
 *
 * ANE_HINT_BURST_US: back to back submissions start now and last this
 * long.  The engine is powered up at once (the first run of the burst
 * does not wait for a warm boot) and held until the burst ends; a new
 * burst replaces the previous one's end, and a burst of 0 ends the hold
 * now.
 *
 * ANE_HINT_RATE: the client expects this many runs per second.  Each run
 * it starts (selector 2, a chain's trigger) holds the engine for two of
 * its expected intervals, 2 s / rate (at most ANE_HINT_BURST_MAX_US), so
 * a client whose runs are further apart than the autosuspend delay but
 * as regular as it said does not pay a power-up per run; a client that
 * stops submitting lets the engine go two intervals after its last run.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/pm_runtime.h>
#include <linux/timer.h>

#include <drm/ane_accel.h>

#include "ane_drv.h"
#include "ane_selector.h"

static struct device *ane_hint_dev(struct ane_file *af)
{
	return &af->adev->pdev->dev;
}

/* The hold's end: drop the reference, the engine may power down later. */
static void ane_hint_timer(struct timer_list *t)
{
	struct ane_file *af = from_timer(af, t, hint_timer);
	bool drop = false;

	spin_lock(&af->hint_lock);
	if (af->hint_held && time_before(jiffies, af->hint_until)) {
		/* extended since it was armed */
		mod_timer(&af->hint_timer, af->hint_until);
	} else if (af->hint_held) {
		af->hint_held = false;
		drop = true;
	}
	spin_unlock(&af->hint_lock);
	if (drop) {
		pm_runtime_mark_last_busy(ane_hint_dev(af));
		pm_runtime_put_autosuspend(ane_hint_dev(af));
	}
}

/**
 * ane_hint_file_init() - a new client holds nothing
 * @af: the client.
 */
void ane_hint_file_init(struct ane_file *af)
{
	spin_lock_init(&af->hint_lock);
	timer_setup(&af->hint_timer, ane_hint_timer, 0);
	atomic64_set(&af->hint_rate, 0);
	atomic64_set(&af->hint_burst_us, 0);
}

/**
 * ane_hint_file_fini() - a closing client gives its hint hold back
 * @af: the client.
 */
void ane_hint_file_fini(struct ane_file *af)
{
	bool drop;

	timer_delete_sync(&af->hint_timer);
	spin_lock_bh(&af->hint_lock);
	drop = af->hint_held;
	af->hint_held = false;
	af->hint_closed = true;
	spin_unlock_bh(&af->hint_lock);
	if (drop) {
		pm_runtime_mark_last_busy(ane_hint_dev(af));
		pm_runtime_put_autosuspend(ane_hint_dev(af));
	}
}

/*
 * Hold the engine for @us from now: until exactly then (@replace, a
 * burst), or at least until then.  @resume powers it up now (sleeps);
 * otherwise the reference is taken as it is (a run is powering it).
 */
static int ane_hint_hold(struct ane_file *af, u64 us, bool replace,
			 bool resume)
{
	struct device *dev = ane_hint_dev(af);
	unsigned long until = jiffies + usecs_to_jiffies(us) + 1;
	bool extra;
	int ret;

	if (resume) {
		ret = pm_runtime_resume_and_get(dev);
		if (ret < 0)
			return ret;
	} else {
		pm_runtime_get_noresume(dev);
	}
	spin_lock_bh(&af->hint_lock);
	extra = af->hint_held || af->hint_closed;
	if (!af->hint_closed) {
		af->hint_held = true;
		if (replace || !extra || time_after(until, af->hint_until))
			af->hint_until = until;
		mod_timer(&af->hint_timer, af->hint_until);
	}
	spin_unlock_bh(&af->hint_lock);
	if (extra) {
		/* the hold had a reference already */
		pm_runtime_mark_last_busy(dev);
		pm_runtime_put_autosuspend(dev);
	}
	return 0;
}

/* A burst of 0: the hold ends now. */
static void ane_hint_release(struct ane_file *af)
{
	bool drop;

	spin_lock_bh(&af->hint_lock);
	drop = af->hint_held;
	af->hint_held = false;
	spin_unlock_bh(&af->hint_lock);
	/* the timer, if it fires still, finds nothing held */
	if (drop) {
		pm_runtime_mark_last_busy(ane_hint_dev(af));
		pm_runtime_put_autosuspend(ane_hint_dev(af));
	}
}

/**
 * ane_hint_rate_hold_us() - how long a run holds the engine for a rate
 * @rate: the client's %ANE_HINT_RATE, runs per second (not 0).
 *
 * Return: two expected intervals in microseconds, at most
 * %ANE_HINT_BURST_MAX_US.
 */
u64 ane_hint_rate_hold_us(u64 rate)
{
	return min_t(u64, div64_u64(2 * USEC_PER_SEC, rate),
		     ANE_HINT_BURST_MAX_US);
}

/**
 * ane_hint_run_started() - the client started a run: its rate's hold
 * @af: the client.
 *
 * Called by selector 2 and a chain's trigger once the run is sent.
 */
void ane_hint_run_started(struct ane_file *af)
{
	u64 rate = atomic64_read(&af->hint_rate);

	if (rate)
		ane_hint_hold(af, ane_hint_rate_hold_us(rate), false, false);
}

/* Direct-path selector 7. */
int ane_sel_session_hint(struct ane_file *af, const struct ane_selector *sel,
			 void *args)
{
	struct drm_ane_session_hint *sh = args;
	atomic64_t *slot;
	u64 max, value;
	int ret = 0;

	if (sh->flags)
		return -EINVAL;
	switch (sh->hint) {
	case ANE_HINT_RATE:
		slot = &af->hint_rate;
		max = ANE_HINT_RATE_MAX;
		break;
	case ANE_HINT_BURST_US:
		slot = &af->hint_burst_us;
		max = ANE_HINT_BURST_MAX_US;
		break;
	default:
		return -EINVAL;
	}
	value = min(sh->value, max);
	if (sh->hint == ANE_HINT_BURST_US) {
		if (value)
			ret = ane_hint_hold(af, value, true, true);
		else
			ane_hint_release(af);
		if (ret)
			return ret;
	}
	sh->applied = value;
	sh->previous = atomic64_xchg(slot, value);
	sh->reserved = 0;
	return 0;
}
