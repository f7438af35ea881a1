// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs the firmware holds for clients, host side: program slots and
 * process ids handed out and given back, LOAD_PROGRAM and CREATE_PROCESS
 * on load, TERMINATE_PROCESS and UNLOAD_PROGRAM on unload, releases the
 * firmware did not confirm kept stale (reserved) until it does, and every
 * resident loaded again, into its own slot and process, at the end of a
 * boot.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/bitmap.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include <kunit/visibility.h>

#include "ane_host.h"
#include "ane_host_internal.h"
#include "ane_host_msg.h"

/**
 * ane_host_up() - does the firmware take commands?
 * @h: the host side; a reader of the gate sees the answer settled.
 *
 * Return: true while the rings are resolved and the firmware accepts.
 */
bool ane_host_up(struct ane_host *h)
{
	bool up;

	spin_lock_irq(&h->lock);
	up = h->accepting;
	spin_unlock_irq(&h->lock);
	return up;
}

/* LOAD_PROGRAM and CREATE_PROCESS of @r.  The gate is held. */
static int ane_host_res_load(struct ane_host *h,
			     const struct ane_host_resident *r)
{
	int ret;

	ret = ane_host_msg_load_program(h, r->slot, &r->load);
	if (ret)
		return ret;
	return ane_host_msg_create_process(h, r->slot, r->pid);
}

/*
 * Have the firmware drop slot @slot and process @pid: TERMINATE_PROCESS,
 * then UNLOAD_PROGRAM once the process stopped; what is not there counts
 * as dropped.  A firmware that is not up, or died meanwhile, holds
 * nothing once it boots again: dropped too.  The gate is held for reading.
 *
 * Return: 0 once the firmware holds neither, else the errno of the command
 * that failed (a timeout: the ids must not be reused yet).
 */
static int ane_host_release(struct ane_host *h, s32 slot, s32 pid)
{
	int ret;

	ret = ane_host_msg_terminate_process(h, slot, pid);
	if (!ret || ret == -ENOENT)
		ret = ane_host_msg_unload_program(h, slot);
	if (ret == -ENOENT || (ret && !ane_host_up(h)))
		ret = 0;
	return ret;
}

/* Give ids back after a release, or keep them stale.  Under @res_lock. */
static void ane_host_put_ids(struct ane_host *h, s32 slot, s32 pid,
			     int err)
{
	lockdep_assert_held(&h->res_lock);
	if (err) {
		set_bit(slot, h->stale);
		h->stale_pid[slot] = pid;
		dev_warn_ratelimited(h->dev,
				     "firmware did not release program slot %d process %d (%d): kept until it does\n",
				     slot, pid, err);
		return;
	}
	clear_bit(slot, h->slots);
	clear_bit(pid, h->pids);
}

/*
 * Try the stale releases again.  Gate held for reading, not @res_lock.
 * One at a time (@stale_lock): a second caller waits for the first and
 * then finds the slots it freed.  A stale slot stays marked, and so
 * reserved, until its release is confirmed.
 */
static void ane_host_release_stale(struct ane_host *h)
{
	unsigned int slot, next = 0;
	s32 pid;
	int err;

	mutex_lock(&h->stale_lock);
	for (;;) {
		mutex_lock(&h->res_lock);
		slot = find_next_bit(h->stale, ANE_FW_MAX_PROGRAMS, next);
		pid = slot < ANE_FW_MAX_PROGRAMS ? h->stale_pid[slot] : -1;
		mutex_unlock(&h->res_lock);
		if (slot >= ANE_FW_MAX_PROGRAMS)
			break;
		err = ane_host_release(h, slot, pid);
		mutex_lock(&h->res_lock);
		if (!err && test_and_clear_bit(slot, h->stale)) {
			clear_bit(slot, h->slots);
			clear_bit(pid, h->pids);
		}
		mutex_unlock(&h->res_lock);
		next = slot + 1;
	}
	mutex_unlock(&h->stale_lock);
}

/**
 * ane_host_load() - load a client's program into the firmware
 * @h: the host side.
 * @r: the resident, not loaded; gets its slot and process id.
 * @lp: the LOAD_PROGRAM body.
 *
 * Takes a free program slot and process id, sends LOAD_PROGRAM and
 * CREATE_PROCESS, and keeps @r on the list every boot loads again.  The
 * gate is held for reading throughout, so no boot comes in between; an
 * engine powered down is powered up first (it stays up for the delay).
 *
 * Return: 0; -EBUSY with no slot or process id left; -EAGAIN while the
 * firmware is not up; the errno of the firmware's refusal or of a power-up
 * that failed.
 */
int ane_host_load(struct ane_host *h, struct ane_host_resident *r,
		  const struct ane_fw_load_program *lp)
{
	unsigned int slot, pid;
	int ret;

	r->slot = -1;
	r->pid = -1;
	INIT_LIST_HEAD(&r->node);
	ret = ane_host_pm_get(h);
	if (ret)
		return ret;
	down_read(&h->gate);
	if (!ane_host_up(h)) {
		ret = -EAGAIN;
		goto out;
	}
	mutex_lock(&h->res_lock);
	slot = find_first_zero_bit(h->slots, ANE_FW_MAX_PROGRAMS);
	if (slot >= ANE_FW_MAX_PROGRAMS && !bitmap_empty(h->stale,
							 ANE_FW_MAX_PROGRAMS)) {
		mutex_unlock(&h->res_lock);
		ane_host_release_stale(h);
		mutex_lock(&h->res_lock);
		slot = find_first_zero_bit(h->slots, ANE_FW_MAX_PROGRAMS);
	}
	pid = find_first_zero_bit(h->pids, ANE_FW_MAX_PROCESSES);
	if (slot >= ANE_FW_MAX_PROGRAMS || pid >= ANE_FW_MAX_PROCESSES) {
		mutex_unlock(&h->res_lock);
		ret = -EBUSY;
		goto out;
	}
	set_bit(slot, h->slots);
	set_bit(pid, h->pids);
	mutex_unlock(&h->res_lock);

	r->slot = slot;
	r->pid = pid;
	r->load = *lp;
	ret = ane_host_res_load(h, r);
	if (ret) {
		/* whatever got loaded goes again before the ids are reused */
		int err = ane_host_release(h, slot, pid);

		mutex_lock(&h->res_lock);
		ane_host_put_ids(h, slot, pid, err);
		mutex_unlock(&h->res_lock);
		r->slot = -1;
		r->pid = -1;
		goto out;
	}
	mutex_lock(&h->res_lock);
	list_add_tail(&r->node, &h->residents);
	mutex_unlock(&h->res_lock);
out:
	up_read(&h->gate);
	ane_host_pm_put(h);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ane_host_load);

/**
 * ane_host_unload() - drop a program ane_host_load() loaded
 * @h: the host side.
 * @r: the resident (a no-op if not loaded).
 *
 * Never fails for the caller: the firmware is told (TERMINATE_PROCESS,
 * UNLOAD_PROGRAM, a full ring waited out); if it cannot confirm, the slot
 * and process id stay reserved until a later release or the next boot
 * frees them, so they are never handed out while the firmware holds them.
 * An engine powered down holds no program: its resident is only dropped
 * from the list, without powering it up.
 */
void ane_host_unload(struct ane_host *h, struct ane_host_resident *r)
{
	bool pm;
	int err;

	if (r->slot < 0)
		return;
	/* an engine that is up stays up until the firmware has let go */
	pm = ane_host_pm_get_if_up(h);
	down_read(&h->gate);
	mutex_lock(&h->res_lock);
	list_del_init(&r->node);
	mutex_unlock(&h->res_lock);
	err = ane_host_release(h, r->slot, r->pid);
	mutex_lock(&h->res_lock);
	ane_host_put_ids(h, r->slot, r->pid, err);
	mutex_unlock(&h->res_lock);
	up_read(&h->gate);
	if (pm)
		ane_host_pm_put(h);
	r->slot = -1;
	r->pid = -1;
}
EXPORT_SYMBOL_IF_KUNIT(ane_host_unload);

/**
 * ane_host_restore() - a boot's last step: the residents loaded again
 * @h: the host side; the boot holds the gate for writing.
 *
 * The new firmware holds nothing, so stale releases are done, and every
 * resident is loaded again into its own slot and process.
 *
 * Return: 0, or the errno of the first resident that failed to load.
 */
int ane_host_restore(struct ane_host *h)
{
	struct ane_host_resident *r;
	unsigned int slot, n = 0;
	int ret = 0;

	mutex_lock(&h->res_lock);
	for_each_set_bit(slot, h->stale, ANE_FW_MAX_PROGRAMS) {
		clear_bit(slot, h->slots);
		clear_bit(h->stale_pid[slot], h->pids);
	}
	bitmap_zero(h->stale, ANE_FW_MAX_PROGRAMS);
	list_for_each_entry(r, &h->residents, node) {
		ret = ane_host_res_load(h, r);
		if (ret) {
			ane_host_bootlog(h, "program slot %d process %d not loaded again: %d",
					 r->slot, r->pid, ret);
			break;
		}
		n++;
	}
	h->reloads += n;
	mutex_unlock(&h->res_lock);
	if (n)
		ane_host_bootlog(h, "programs loaded again: %u", n);
	return ret;
}
