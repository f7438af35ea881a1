// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host side of the engine controller firmware: waiting for an answer
 * (a short watch, then sleep: host_spin_us) and the synchronous calls --
 * a command sent and its answer awaited, gated on a ready firmware or
 * not (the boot and recovery paths), with a typed header or raw -- and
 * the ping.  Sending and the rings are ane_host.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/pm_runtime.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "ane_drv.h"
#include "ane_host.h"
#include "ane_host_internal.h"
#include "ane_host_msg.h"
#include "ane_trace.h"
#include "firmware/spec/ane_platform.h"

/*
 * A call to the firmware is answered in microseconds; sleeping for it
 * costs a context switch and an interprocessor wake-up of about the same.
 * The caller of a synchronous call first watches its completion this
 * long (yielding at once to any task that wants the CPU), then sleeps:
 * the trade GPU drivers make before sleeping on a request.  0 sleeps at
 * once.
 */
static unsigned int ane_host_spin_us = 20;

/* Longer than the firmware's own answer time is CPU thrown away: refused. */
#define ANE_HOST_SPIN_MAX_US	100

ANE_HOST_PARAM_UINT_RANGE(host_spin_us, ane_host_spin_us, 0,
			  ANE_HOST_SPIN_MAX_US, 0644);
MODULE_PARM_DESC(host_spin_us,
		 "microseconds (0..100) a synchronous firmware call watches for its answer before it sleeps (0: sleeps at once)");

/* Watch @done for ane_host_spin_us.  Return: whether it completed. */
static bool ane_host_spin(struct completion *done)
{
	unsigned int us = READ_ONCE(ane_host_spin_us);
	u64 end;

	if (!us)
		return false;
	end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;
	do {
		if (completion_done(done))
			return true;
		cpu_relax();
	} while (!need_resched() && ktime_get_ns() < end);
	return completion_done(done);
}

/**
 * ane_host_wait() - wait for the answer to @rq
 * @h: the host side.
 * @rq: a request sent without @rq->complete.
 * @timeout_ms: how long.
 *
 * It first watches for the answer for host_spin_us, then sleeps.  On
 * timeout @rq is taken back (it may have completed meanwhile).
 *
 * Return: @rq->status, or -ETIMEDOUT.
 */
int ane_host_wait(struct ane_host *h, struct ane_host_hreq *rq,
		  unsigned int timeout_ms)
{
	unsigned long flags;

	ane_host_spin(&rq->done);	/* then the wait takes it at once */
	if (wait_for_completion_timeout(&rq->done,
					msecs_to_jiffies(timeout_ms)))
		return rq->status;
	spin_lock_irqsave(&h->lock, flags);
	if (!list_empty(&rq->node)) {
		list_del_init(&rq->node);
		ane_host_hreq_pm_put(rq);
		spin_unlock_irqrestore(&h->lock, flags);
		return -ETIMEDOUT;
	}
	spin_unlock_irqrestore(&h->lock, flags);
	wait_for_completion(&rq->done);
	return rq->status;
}

/**
 * __ane_host_call_hdr() - send a command and wait for its answer
 * @h: the host side.
 * @gated: take the gate for each send attempt (else the caller holds it).
 * @chan: the H2T channel.
 * @hdr: the header.
 * @body: @hdr->size bytes of body.
 * @out: reply data buffer, or NULL.
 * @out_len: its size.
 * @timeout_ms: how long to wait for room, then for the answer.
 *
 * Return: as ane_host_call().
 */
int __ane_host_call_hdr(struct ane_host *h, bool gated, u32 chan,
			const struct ane_fw_cmd_hdr *hdr, const void *body,
			void *out, u32 out_len, unsigned int timeout_ms)
{
	struct ane_host_hreq rq = { };
	int ret;

	ret = ane_host_send_wait(h, gated, &rq, chan, hdr, body, timeout_ms);
	if (ret)
		return ret;
	ret = ane_host_wait(h, &rq, timeout_ms);
	if (out && out_len)
		memcpy(out, rq.data, min(out_len, rq.len));
	return ret;
}

/**
 * __ane_host_call() - __ane_host_call_hdr() with a control header
 * @h: the host side.
 * @gated: take the gate for each send attempt (else the caller holds it).
 * @chan: the H2T channel.
 * @id: command id (no program, process or procedure).
 * @body: body.
 * @len: body length.
 * @out: reply data buffer, or NULL.
 * @out_len: its size.
 * @timeout_ms: how long to wait.
 *
 * Return: as ane_host_call().
 */
int __ane_host_call(struct ane_host *h, bool gated, u32 chan, u32 id,
		    const void *body, u32 len, void *out, u32 out_len,
		    unsigned int timeout_ms)
{
	struct ane_fw_cmd_hdr hdr = { .id = id, .size = len, .priority = 0,
				      .program_id = -1, .process_id = -1 };

	return __ane_host_call_hdr(h, gated, chan, &hdr, body, out, out_len,
				      timeout_ms);
}

/**
 * ane_host_call_hdr() - ane_host_call() with a header of the caller's
 * @h: the host side.
 * @chan: the channel.
 * @hdr: the header: id, size, program, process and procedure ids.
 * @body: @hdr->size bytes of body.
 * @out: reply data buffer, or NULL.
 * @out_len: its size.
 * @timeout_ms: how long to wait.
 *
 * Return: as ane_host_call().
 */
int ane_host_call_hdr(struct ane_host *h, u32 chan,
		      const struct ane_fw_cmd_hdr *hdr, const void *body,
		      void *out, u32 out_len, unsigned int timeout_ms)
{
	return __ane_host_call_hdr(h, true, chan, hdr, body, out, out_len,
				      timeout_ms);
}

/**
 * ane_host_call_raw() - ane_host_call_hdr() that says how long the reply is
 * @h: the host side.
 * @chan: the channel.
 * @hdr: the header, as the caller wrote it.
 * @body: @hdr->size bytes of body.
 * @out: reply data buffer.
 * @out_len: its size; on return, the bytes of reply data written to it.
 * @timeout_ms: how long to wait.
 *
 * Return: as ane_host_call(); -EMSGSIZE for a body longer than a slot.
 */
int ane_host_call_raw(struct ane_host *h, u32 chan,
		      const struct ane_fw_cmd_hdr *hdr, const void *body,
		      void *out, u32 *out_len, unsigned int timeout_ms)
{
	struct ane_host_hreq rq = { };
	int ret;

	ret = ane_host_send_wait(h, true, &rq, chan, hdr, body, timeout_ms);
	if (!ret)
		ret = ane_host_wait(h, &rq, timeout_ms);
	*out_len = ret ? 0 : min(*out_len, rq.len);
	if (*out_len)
		memcpy(out, rq.data, *out_len);
	return ret;
}

/**
 * ane_host_call() - send a control command and wait for its reply
 * @h: the host side.
 * @chan: the channel.
 * @id: command id.
 * @body: body.
 * @len: body length.
 * @out: reply data buffer, or NULL.
 * @out_len: its size.
 * @timeout_ms: how long to wait.
 *
 * Return: 0, the errno of the firmware's status, -ETIMEDOUT, -EIO if a
 * reset cancelled it.
 */
int ane_host_call(struct ane_host *h, u32 chan, u32 id, const void *body,
		  u32 len, void *out, u32 out_len, unsigned int timeout_ms)
{
	return __ane_host_call(h, true, chan, id, body, len, out, out_len,
				  timeout_ms);
}
EXPORT_SYMBOL_IF_KUNIT(ane_host_call);

/**
 * ane_host_ping() - one no-op round trip: host -> ring -> firmware ->
 * reply -> interrupt -> host
 * @h: the host side.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_ping(struct ane_host *h)
{
	return ane_host_msg_ping(h);
}

/**
 * ane_host_cancel_all() - fail everything in flight
 * @h: the host side: the firmware that had it is gone.
 * @err: the errno the requests end with.
 */
void ane_host_cancel_all(struct ane_host *h, int err)
{
	unsigned long flags;

	spin_lock_irqsave(&h->lock, flags);
	ane_host_cancel_all_locked(h, err);
	spin_unlock_irqrestore(&h->lock, flags);
}
