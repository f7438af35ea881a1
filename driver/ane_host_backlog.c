// SPDX-License-Identifier: GPL-2.0-only
/*
 * The I/O ring's backlog: requests accepted while the ring was full.
 *
 * The execution-loop ring holds 64 commands and the firmware's queues 16
 * a priority level; a client may have 127 requests outstanding (ch. 28),
 * and clients together many more.  A request that finds the ring full is
 * not refused, nor does its submitter wait: its command is copied onto
 * &ane_host.backlog, and the work item below writes the backlog into the
 * ring, oldest first, as the firmware frees slots (it raises the host
 * interrupt for a ring the host found full; the work also looks again
 * every ANE_HOST_SPACE_POLL_MS while anything waits).  Later commands on
 * the ring queue behind the backlog, so requests start in the order they
 * were accepted.  What bounds the backlog is the pools: 127 a client.
 *
 * A backlogged request holds its runtime PM reference, so the engine stays
 * up; a crash, a reset or the device's removal fails it as it fails what
 * is in the ring (ane_host_cancel_all_locked()).  See
 * Documentation/accel/ane/scheduler.rst, "Queues and the backlog".
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "ane_host.h"
#include "ane_host_internal.h"

/* The command @rq will be written as: its header, then its body. */
static const struct ane_fw_cmd_hdr *ane_backlog_hdr(struct ane_host_hreq *rq)
{
	return rq->deferred;
}

/*
 * Write what the ring has room for, oldest first.  Caller holds the gate
 * (read) and @h->lock.  Return: whether anything was written.
 */
static bool ane_host_backlog_flush(struct ane_host *h)
{
	struct ane_host_hreq *rq, *tmp;
	bool wrote = false;
	int ret;

	lockdep_assert_held(&h->lock);
	list_for_each_entry_safe(rq, tmp, &h->backlog, node) {
		const struct ane_fw_cmd_hdr *hdr = ane_backlog_hdr(rq);

		list_del_init(&rq->node);
		ret = ane_host_ring_write(h, rq, hdr, hdr + 1);
		if (ret == -EBUSY) {	/* still full: the firmware will say */
			list_add(&rq->node, &h->backlog);
			break;
		}
		h->backlog_len--;
		if (ret) {
			/* no firmware to take it: ends as one in the ring would */
			ane_host_hreq_finish(rq, ret == -EAGAIN ? -EIO : ret,
					     ANE_FW_ST_RESET, NULL, 0);
			continue;
		}
		kfree(rq->deferred);
		rq->deferred = NULL;
		wrote = true;
	}
	return wrote;
}

/*
 * The end of a pass over the backlog, @h->lock dropped: ring the doorbell
 * for what was @wrote, leave the gate, and look again in
 * ANE_HOST_SPACE_POLL_MS while commands are @left (the firmware's
 * interrupt comes first; this only bounds a lost one).
 */
static void ane_host_backlog_done(struct ane_host *h, bool wrote, bool left)
{
	if (wrote)
		ane_wr(h, ANE_REG_FW_DOORBELL, ANE_FW_DB_IO);
	up_read(&h->gate);
	if (left)
		mod_delayed_work(system_highpri_wq, &h->backlog_work,
				 msecs_to_jiffies(ANE_HOST_SPACE_POLL_MS));
}

/**
 * ane_host_backlog_work() - write the backlog into the I/O ring
 * @work: &ane_host.backlog_work.
 */
void ane_host_backlog_work(struct work_struct *work)
{
	struct ane_host *h = container_of(to_delayed_work(work),
					  struct ane_host, backlog_work);
	bool wrote, left;

	down_read(&h->gate);
	spin_lock_irq(&h->lock);
	wrote = ane_host_backlog_flush(h);
	left = h->backlog_len;
	spin_unlock_irq(&h->lock);
	ane_host_backlog_done(h, wrote, left);
}

/**
 * ane_host_send_queued() - send a request, or accept it onto the backlog
 * @h: the host side; takes the gate.
 * @rq: the request; set @rq->complete: its answer, or its failure on the
 *	backlog, completes it.
 * @chan: %ANE_FW_CH_IO.
 * @hdr: the header (@hdr->size bytes of @body follow).
 * @body: the body (copied: the caller's may go once this returns).
 *
 * As ane_host_send(), but a full ring (or one with commands waiting
 * already) never makes the caller wait: the command waits on the backlog
 * and is written as soon as the firmware has room.  The engine is powered
 * up first and stays up until @rq completes.
 *
 * Return: 0 once sent or on the backlog; -EAGAIN while the firmware is not
 * ready (booting, recovering or dead), -EMSGSIZE, -ENOMEM, -EINVAL; or the
 * error of a resume that failed.
 */
int ane_host_send_queued(struct ane_host *h, struct ane_host_hreq *rq,
			 u32 chan, const struct ane_fw_cmd_hdr *hdr,
			 const void *body)
{
	size_t len = sizeof(*hdr) + hdr->size;
	struct ane_fw_cmd_hdr *copy = NULL;
	bool sent = false, left;
	int ret;

	if (chan != ANE_FW_CH_IO || !rq->complete)
		return -EINVAL;
	ret = ane_host_hreq_init(rq, chan, hdr);
	if (ret)
		return ret;
	ret = ane_host_pm_get(h);
	if (ret)
		return ret;
	/* set before it can be pending: its end drops the reference */
	rq->pm_dev = h->pm_dev;

	down_read(&h->gate);
	spin_lock_irq(&h->lock);
	ret = h->backlog_len ? -EBUSY : ane_host_ring_write(h, rq, hdr, body);
	sent = !ret;
	if (ret == -EBUSY) {
		spin_unlock_irq(&h->lock);
		copy = kmalloc(len, GFP_KERNEL);
		spin_lock_irq(&h->lock);
		ret = !copy ? -ENOMEM : !h->accepting ? -EAGAIN : 0;
	}
	if (!ret && copy) {
		memcpy(copy, hdr, sizeof(*hdr));
		memcpy(copy + 1, body, hdr->size);
		rq->deferred = copy;
		list_add_tail(&rq->node, &h->backlog);
		h->backlogged++;
		h->backlog_peak = max(h->backlog_peak, ++h->backlog_len);
		/* room may have come while unlocked: try the backlog now */
		sent = ane_host_backlog_flush(h);
		copy = NULL;
	}
	left = h->backlog_len;
	spin_unlock_irq(&h->lock);
	ane_host_backlog_done(h, sent, left);
	if (ret) {
		kfree(copy);
		rq->pm_dev = NULL;
		ane_host_pm_put(h);
	}
	return ret;
}
