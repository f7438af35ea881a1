// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runtime power management, host side: the engine powers down when no
 * command is in flight for the autosuspend delay, and up again for the
 * next one (Documentation/accel/ane/power.rst).
 *
 * Powering down is the seed's sleep (ch. 29): the controller is held in
 * reset, which stops the firmware and resets the engine; what the
 * firmware held for clients -- the programs loaded and their processes
 * -- is the host's to give back, as after a crash.  Powering up is its
 * wake: ANE_Init again as a warm boot (scratch 7 = 1), which ends by
 * loading every resident program again into its own slot and process,
 * so a client's prepared programs survive a power cycle unchanged.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/device.h>
#include <linux/pm_runtime.h>

#include "ane_host.h"
#include "ane_host_internal.h"

/**
 * ane_host_pm_get() - power the engine up, and keep it up
 * @h: the host side.
 *
 * Resumes the engine if it was powered down (a warm boot, synchronously)
 * and takes a usage reference that ane_host_pm_put() drops.  Sleeps.
 *
 * Return: 0, or the errno of a resume that failed.
 */
int ane_host_pm_get(struct ane_host *h)
{
	int ret;

	if (!h->pm_dev)
		return 0;
	ret = pm_runtime_resume_and_get(h->pm_dev);
	return ret < 0 ? ret : 0;
}

/**
 * ane_host_pm_put() - let the engine power down after the delay
 * @h: the host side.
 *
 * Any context: the power-down, if due, runs later from the PM workqueue.
 */
void ane_host_pm_put(struct ane_host *h)
{
	if (!h->pm_dev)
		return;
	pm_runtime_mark_last_busy(h->pm_dev);
	pm_runtime_put_autosuspend(h->pm_dev);
}

/**
 * ane_host_pm_get_if_up() - keep an engine that is powered up so
 * @h: the host side.
 *
 * For work that needs no power-up (an unload: a powered-down engine holds
 * no program) but must not have the engine power down under it.
 *
 * Return: whether a reference was taken (drop it with ane_host_pm_put()).
 */
bool ane_host_pm_get_if_up(struct ane_host *h)
{
	return h->pm_dev && pm_runtime_get_if_active(h->pm_dev) > 0;
}

/*
 * A power-down refused for something passing (the gate held, a command
 * still answering, a boot): the idle time starts again now, so the PM
 * core asks again after it (rpm_suspend() repeats an autosuspend whose
 * expiration moved), instead of leaving an idle engine up until the next
 * command.  A dead firmware is not waited for.
 */
static int ane_host_suspend_busy(struct ane_host *h)
{
	if (h->pm_dev && atomic_read(h->fw_state) != ANE_FW_STATE_DEAD)
		pm_runtime_mark_last_busy(h->pm_dev);
	return -EBUSY;
}

/**
 * ane_host_suspend() - power the engine down (runtime suspend)
 * @h: the host side.
 *
 * Only a firmware that is up and has nothing in flight powers down: one
 * that is booting, recovering or dead is left as it is (-EBUSY; the
 * recovery asks again once it is done), as is one still answering a
 * command its sender already gave up on.  The gate is only tried: a
 * boot or a sender holding it means the engine is busy.  A refusal for
 * something passing is asked again after the delay
 * (ane_host_suspend_busy()).
 *
 * Return: 0 once the controller is in reset, or -EBUSY.
 */
int ane_host_suspend(struct ane_host *h)
{
	bool idle;

	if (!down_write_trylock(&h->gate))
		return ane_host_suspend_busy(h);
	spin_lock_irq(&h->lock);
	idle = h->accepting && list_empty(&h->pending) &&
	       atomic_read(h->fw_state) == ANE_FW_STATE_READY;
	if (idle)
		h->accepting = false;
	spin_unlock_irq(&h->lock);
	if (!idle) {
		up_write(&h->gate);
		return ane_host_suspend_busy(h);
	}
	/* Masked first: the reset raises nothing the host would take. */
	ane_wr(h, ANE_REG_HOST_IRQ_MASK, 0);
	ane_wr(h, ANE_REG_CPU_CTRL, 0);
	ane_wr(h, ANE_REG_HOST_IRQ_CLR, ~0u);
	h->suspends++;
	ane_host_set_state(h, ANE_FW_STATE_SUSPENDED);
	ane_host_bootlog(h, "powered down (runtime suspend %u)", h->suspends);
	up_write(&h->gate);
	return 0;
}

/**
 * ane_host_resume() - power the engine up (runtime resume)
 * @h: the host side.
 *
 * A warm boot that loads the resident programs again.  A boot that fails
 * is retried later as a recovery would (the state says RECOVERING
 * meanwhile, and commands fail as they do during a recovery), so the
 * device itself always resumes.
 *
 * Return: 0.
 */
int ane_host_resume(struct ane_host *h)
{
	bool crashed;

	down_write(&h->gate);
	if (atomic_read(h->fw_state) != ANE_FW_STATE_SUSPENDED) {
		up_write(&h->gate);
		return 0;
	}
	h->resumes++;
	ane_host_bootlog(h, "powered up (runtime resume %u)", h->resumes);
	if (__ane_host_boot(h, true)) {
		spin_lock_irq(&h->lock);
		crashed = h->crash_pending;
		spin_unlock_irq(&h->lock);
		/* a crash during the boot has its recovery queued already */
		if (!crashed)
			ane_host_boot_later(h);
		else
			ane_host_set_state(h, ANE_FW_STATE_RECOVERING);
	}
	up_write(&h->gate);
	return 0;
}

/**
 * ane_host_pm_idle_again() - the firmware is up again after a recovery
 * @h: the host side.
 *
 * A power-down refused while the firmware recovered is asked for again,
 * so an idle engine does not stay powered for want of a command.
 */
void ane_host_pm_idle_again(struct ane_host *h)
{
	if (!h->pm_dev)
		return;
	pm_runtime_mark_last_busy(h->pm_dev);
	pm_request_autosuspend(h->pm_dev);
}
