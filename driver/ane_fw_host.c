// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host side of the engine controller firmware (ch. 29, 30): the
 * bring-up handshake through the scratch registers, the channel table
 * and its rings, commands and their answers, notifications, and the
 * crash path: dump pulled through DEBUG, devcoredump, cancel everything
 * in flight, reset and boot again, all behind one gate and rate-limited.
 *
 * Only the emulated hardware is touched: registers, shared memory (the
 * kernel mapping of buffers the firmware reaches through the DART) and
 * doorbells.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/delay.h>
#include <linux/devcoredump.h>
#include <linux/device.h>
#include <linux/iopoll.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/ane_accel.h>

#include <kunit/visibility.h>

#include "ane_drv.h"
#include "ane_fw_host.h"
#include "ane_hw.h"
#include "firmware/ane_fw_image.h"

/*
 * The firmware's idle poll (&ane_fw_boot_args.idle_poll_us), taken at each
 * boot: after its last work the firmware thread watches for the next
 * doorbell this long before it sleeps, trading that CPU time for the
 * wake-up a back-to-back request would otherwise pay.
 */
static unsigned int ane_fw_idle_poll_us = 100;

/* Longer than a tick of spinning is never worth it: refused. */
#define ANE_FW_IDLE_POLL_MAX_US	1000

static int ane_fw_idle_poll_set(const char *val, const struct kernel_param *kp)
{
	unsigned int us;
	int ret = kstrtouint(val, 0, &us);

	if (ret)
		return ret;
	if (us > ANE_FW_IDLE_POLL_MAX_US)
		return -EINVAL;
	WRITE_ONCE(ane_fw_idle_poll_us, us);
	return 0;
}

static const struct kernel_param_ops ane_fw_idle_poll_ops = {
	.set = ane_fw_idle_poll_set,
	.get = param_get_uint,
};

module_param_cb(fw_idle_poll_us, &ane_fw_idle_poll_ops, &ane_fw_idle_poll_us,
		0644);
MODULE_PARM_DESC(fw_idle_poll_us,
		 "microseconds (0..1000) the idle firmware watches for a doorbell before it sleeps (0: sleeps at once; read at each firmware boot)");

static const char * const ane_fw_chan_names[ANE_FW_NUM_CHANNELS] = {
	"SHAREDMALLOC", "TERMINAL", "BUF_H2T", "BUF_T2H",
	"IO", "IO_T2H", "DEBUG", "DATA_CHAIN_H2T",
};

static const u32 ane_fw_chan_dir[ANE_FW_NUM_CHANNELS] = {
	ANE_FW_CHAN_MEM, ANE_FW_CHAN_T2H, ANE_FW_CHAN_H2T, ANE_FW_CHAN_T2H,
	ANE_FW_CHAN_H2T, ANE_FW_CHAN_T2H, ANE_FW_CHAN_T2H, ANE_FW_CHAN_H2T,
};

static const u32 ane_fw_chan_db[ANE_FW_NUM_CHANNELS] = {
	[ANE_FW_CH_BUF_H2T] = ANE_FW_DB_H2T,
	[ANE_FW_CH_IO] = ANE_FW_DB_IO,
	[ANE_FW_CH_DATA_CHAIN_H2T] = ANE_FW_DB_DCHAIN,
};

static void ane_fw_set_state(struct ane_fw_host *h, int state)
{
	atomic_set(h->fw_state, state);
}

static __printf(2, 3) void ane_fw_bootlog(struct ane_fw_host *h,
					  const char *fmt, ...)
{
	char *line;
	va_list ap;
	u64 us = ktime_to_us(ktime_get());

	spin_lock_irq(&h->lock);
	line = h->bootlog[h->bootlog_n++ % ANE_FW_HOST_BOOTLOG];
	spin_unlock_irq(&h->lock);
	va_start(ap, fmt);
	scnprintf(line, 16, "%5llu.%06llu ", us / USEC_PER_SEC,
		  us % USEC_PER_SEC);
	vscnprintf(line + strlen(line), 80 - strlen(line), fmt, ap);
	va_end(ap);
	dev_dbg(h->dev, "fw boot: %s\n", line);
}

/**
 * ane_fw_status_errno() - the errno a firmware status maps to
 * @fw_status: &enum ane_fw_status.
 *
 * Return: 0 or a negative errno.
 */
int ane_fw_status_errno(s32 fw_status)
{
	switch (fw_status) {
	case ANE_FW_ST_OK:
		return 0;
	case ANE_FW_ST_INVALID:
		return -EINVAL;
	case ANE_FW_ST_UNSUPPORTED:
		return -EOPNOTSUPP;
	case ANE_FW_ST_NOT_READY:
		return -EAGAIN;
	case ANE_FW_ST_NOT_RUNNING:
		return -ESRCH;
	case ANE_FW_ST_WRONG_STATE:
		return -EBADFD;
	case ANE_FW_ST_BUSY:
		return -EBUSY;
	case ANE_FW_ST_TIMEOUT:
		return -ETIMEDOUT;
	case ANE_FW_ST_FAULT:
		return -EFAULT;
	case ANE_FW_ST_NOENT:
		return -ENOENT;
	case ANE_FW_ST_NOMEM:
		return -ENOMEM;
	case ANE_FW_ST_TOO_BIG:
		return -E2BIG;
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_status_errno);

static u32 ane_rd(struct ane_fw_host *h, u32 off)
{
	return ane_hw_read32(h->hw, ANE_BANK_ANE, off);
}

static void ane_wr(struct ane_fw_host *h, u32 off, u32 val)
{
	ane_hw_write32(h->hw, ANE_BANK_ANE, off, val);
}

/* ----------------------------------------------------------------- rings */

static void *ane_fw_host_va(struct ane_fw_host *h, u64 iova, u64 size)
{
	if (iova < h->shared_iova || size > h->shared_size ||
	    iova - h->shared_iova > h->shared_size - size)
		return NULL;
	return (u8 *)h->shared_va + (iova - h->shared_iova);
}

/* Complete an answered (or cancelled) request.  Called under @lock. */
static void ane_fw_hreq_finish(struct ane_fw_hreq *rq, int err, s32 fw_status,
			       const void *data, u32 len)
{
	list_del_init(&rq->node);
	rq->fw_status = fw_status;
	rq->status = err ? err : ane_fw_status_errno(fw_status);
	rq->len = min_t(u32, len, sizeof(rq->data));
	if (rq->len)
		memcpy(rq->data, data, rq->len);
	if (rq->complete)
		rq->complete(rq);
	else
		complete(&rq->done);
}

static struct ane_fw_hreq *ane_fw_find(struct ane_fw_host *h, u32 src_t2h,
				       u32 id, u32 seq, bool any_id)
{
	struct ane_fw_hreq *rq;

	list_for_each_entry(rq, &h->pending, node) {
		bool chan_ok = src_t2h == ANE_FW_CH_IO_T2H ?
			       rq->chan == ANE_FW_CH_IO :
			       rq->chan != ANE_FW_CH_IO;

		if (chan_ok && rq->seq == seq && (any_id || rq->id == id))
			return rq;
	}
	return NULL;
}

/* One message from BUF_T2H or IO_T2H.  Called under @lock. */
static void ane_fw_host_msg(struct ane_fw_host *h, u32 ch,
			    const struct ane_fw_cmd_hdr *hdr, const u8 *body)
{
	struct ane_fw_hreq *rq;

	if (hdr->id & ANE_FW_ID_REPLY) {
		const struct ane_fw_reply *r = (const void *)body;

		if (hdr->size < sizeof(*r))
			return;
		rq = ane_fw_find(h, ch, hdr->id & ~ANE_FW_ID_REPLY, r->seq,
				 false);
		if (rq)
			ane_fw_hreq_finish(rq, 0, r->status, r + 1,
					   min_t(u32, r->len,
						 hdr->size - sizeof(*r)));
		return;
	}
	h->notes++;
	switch (hdr->id) {
	case ANE_CMD_PROGRAM_EVENT: {
		const struct ane_fw_program_event *ev = (const void *)body;

		if (hdr->size < sizeof(*ev))
			return;
		rq = ane_fw_find(h, ch, 0, ev->seq, true);
		if (rq)
			ane_fw_hreq_finish(rq, 0, ev->status, ev, sizeof(*ev));
		return;
	}
	case ANE_CMD_CH_ERROR_NOTIFICATION:
		h->errors++;
		return;
	case ANE_CMD_CH_RESET_NOTIFICATION:
		h->resets++;
		return;
	case ANE_CMD_DATA_CHAINING_EVENT:
		h->chain_events++;
		return;
	}
}

/*
 * After a drain moved @r's tail: did the firmware ask to hear of the space
 * (&ane_fw_ring_hdr.space_wanted)?  The caller then rings CONSUMED.
 */
static bool ane_fw_host_space_wanted(struct ane_fw_host_ring *r)
{
	smp_mb();	/* the new tail before the producer's request */
	if (!READ_ONCE(r->hdr->space_wanted))
		return false;
	WRITE_ONCE(r->hdr->space_wanted, 0);
	return true;
}

/* One dump section from DEBUG into the raw dump buffer.  Under @lock. */
static void ane_fw_host_dump_msg(struct ane_fw_host *h, u32 ch,
				 const struct ane_fw_cmd_hdr *hdr, const u8 *body)
{
	const struct ane_fw_dump_section_hdr *sh = (const void *)body;
	size_t n;

	if (hdr->size < sizeof(*sh))
		return;
	n = sizeof(*sh) + sh->len;
	if (n > hdr->size || !h->dump || h->dump_len + n > ANE_FW_HOST_DUMP_MAX)
		return;
	memcpy(h->dump + h->dump_len, sh, n);
	h->dump_len += n;
	if (sh->section == ANE_FW_DUMP_END)
		h->dump_done = true;
}

/**
 * ane_fw_host_drain() - drain one firmware-to-host ring
 * @h: the host side, @h->lock held.
 * @ch: the channel.
 * @msg: called with each message whose size fits its slot.
 *
 * Return: whether the firmware asked to hear of the space; the caller then
 * rings %ANE_FW_DB_CONSUMED (outside @h->lock).
 */
bool ane_fw_host_drain(struct ane_fw_host *h, u32 ch, ane_fw_host_msg_fn msg)
{
	struct ane_fw_host_ring *r = &h->ring[ch];
	bool any = false;

	if (!r->ok)
		return false;
	while (r->idx != READ_ONCE(r->hdr->head)) {
		const u8 *slot = r->slots + (r->idx & (r->nslots - 1)) *
				 r->slot_size;
		const struct ane_fw_cmd_hdr *hdr = (const void *)slot;

		smp_rmb();	/* the slot after the head that published it */
		if (hdr->size <= r->slot_size - sizeof(*hdr))
			msg(h, ch, hdr, slot + sizeof(*hdr));
		r->idx++;
		smp_mb();	/* done reading before the slot is given back */
		WRITE_ONCE(r->hdr->tail, r->idx);
		any = true;
	}
	return any && ane_fw_host_space_wanted(r);
}

/* Fail everything in flight.  Called under @lock. */
static void ane_fw_host_cancel_all_locked(struct ane_fw_host *h, int err)
{
	struct ane_fw_hreq *rq, *tmp;

	lockdep_assert_held(&h->lock);
	list_for_each_entry_safe(rq, tmp, &h->pending, node)
		ane_fw_hreq_finish(rq, err, ANE_FW_ST_RESET, NULL, 0);
}

/* The host interrupt: runs in the firmware's context, never sleeps. */
static void ane_fw_host_irq(struct ane_hw *hw, void *ctx, u32 bits)
{
	struct ane_fw_host *h = ctx;
	unsigned long flags;
	bool consumed = false, crash = false;

	spin_lock_irqsave(&h->lock, flags);
	h->irqs++;
	if (bits & (ANE_HOST_IRQ_T2H | ANE_HOST_IRQ_CRASH))
		consumed |= ane_fw_host_drain(h, ANE_FW_CH_BUF_T2H,
					      ane_fw_host_msg);
	if (bits & ANE_HOST_IRQ_IO_T2H)
		consumed |= ane_fw_host_drain(h, ANE_FW_CH_IO_T2H,
					      ane_fw_host_msg);
	if (bits & (ANE_HOST_IRQ_DEBUG | ANE_HOST_IRQ_CRASH))
		consumed |= ane_fw_host_drain(h, ANE_FW_CH_DEBUG,
					      ane_fw_host_dump_msg);
	if ((bits & ANE_HOST_IRQ_CRASH) && h->accepting) {
		h->accepting = false;
		h->crash_pending = true;
		crash = true;
		/* RECOVERING before anyone hears of the crash */
		ane_fw_set_state(h, ANE_FW_STATE_RECOVERING);
		/*
		 * What the dead firmware had in flight ends now, with -EIO:
		 * nobody waits for the recovery, and a sender holding the
		 * gate for a load or unload lets it go at once.
		 */
		ane_fw_host_cancel_all_locked(h, -EIO);
	}
	spin_unlock_irqrestore(&h->lock, flags);

	if (consumed)
		ane_wr(h, ANE_REG_FW_DOORBELL, ANE_FW_DB_CONSUMED);
	if (bits & (ANE_HOST_IRQ_DEBUG | ANE_HOST_IRQ_CRASH | ANE_HOST_IRQ_BOOT))
		wake_up(&h->wq);
	/* A command ring has room (the firmware was asked), or never will. */
	if ((bits & (ANE_HOST_IRQ_T2H | ANE_HOST_IRQ_IO_T2H | ANE_HOST_IRQ_CRASH)) &&
	    wq_has_sleeper(&h->space_wq))
		wake_up(&h->space_wq);
	if (crash)
		mod_delayed_work(system_long_wq, &h->recovery_work, 0);
}

static const struct ane_fw_host_ops_wrap {
	struct ane_hw_host_ops ops;
} ane_fw_host_hw_ops = { .ops = { .irq = ane_fw_host_irq } };

/* Write one command into an H2T ring.  Called with the gate held. */
static int __ane_fw_host_send(struct ane_fw_host *h, struct ane_fw_hreq *rq,
			      u32 chan, const struct ane_fw_cmd_hdr *hdr,
			      const void *body)
{
	struct ane_fw_host_ring *r;
	unsigned long flags;
	u8 *slot;

	if (chan >= ANE_FW_NUM_CHANNELS || ane_fw_chan_dir[chan] != ANE_FW_CHAN_H2T)
		return -EINVAL;
	r = &h->ring[chan];
	init_completion(&rq->done);
	INIT_LIST_HEAD(&rq->node);
	rq->chan = chan;
	rq->id = hdr->id;
	rq->status = 0;
	rq->len = 0;

	spin_lock_irqsave(&h->lock, flags);
	if (!h->accepting || !r->ok) {
		spin_unlock_irqrestore(&h->lock, flags);
		return -EAGAIN;
	}
	if (hdr->size > r->slot_size - sizeof(*hdr)) {
		spin_unlock_irqrestore(&h->lock, flags);
		return -EMSGSIZE;
	}
	if (r->idx - READ_ONCE(r->hdr->tail) >= r->nslots) {
		/*
		 * Full: ask the firmware to say when it consumed a slot
		 * (&ane_fw_ring_hdr.space_wanted), then look again, so that
		 * either we see its new tail or it sees the request.
		 */
		WRITE_ONCE(r->hdr->space_wanted, 1);
		smp_mb();	/* the request before the tail is read again */
		if (r->idx - READ_ONCE(r->hdr->tail) >= r->nslots) {
			h->ring_waits++;
			spin_unlock_irqrestore(&h->lock, flags);
			return -EBUSY;		/* the caller waits */
		}
	}
	slot = r->slots + (r->idx & (r->nslots - 1)) * r->slot_size;
	memcpy(slot, hdr, sizeof(*hdr));
	if (hdr->size)
		memcpy(slot + sizeof(*hdr), body, hdr->size);
	rq->seq = r->idx;
	list_add_tail(&rq->node, &h->pending);
	smp_wmb();	/* the slot before the head that publishes it */
	WRITE_ONCE(r->hdr->head, ++r->idx);
	spin_unlock_irqrestore(&h->lock, flags);

	ane_wr(h, ANE_REG_FW_DOORBELL, ane_fw_chan_db[chan]);
	return 0;
}

/* May a sender waiting on @chan try again: room, or no firmware to wait for. */
static bool ane_fw_host_can_send(struct ane_fw_host *h, u32 chan)
{
	struct ane_fw_host_ring *r = &h->ring[chan];
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&h->lock, flags);
	ok = !h->accepting || !r->ok ||
	     r->idx - READ_ONCE(r->hdr->tail) < r->nslots;
	spin_unlock_irqrestore(&h->lock, flags);
	return ok;
}

/*
 * Send, waiting up to @timeout_ms for room in a full ring: the firmware
 * interrupts when it consumed a slot of a ring the host found full, and
 * the sender looks again every %ANE_FW_HOST_SPACE_POLL_MS anyway.  With
 * @gated the gate is held for each attempt only, never while waiting;
 * without it the caller holds it.  Bounded: -EBUSY once the time is up.
 */
static int ane_fw_host_send_wait(struct ane_fw_host *h, bool gated,
				 struct ane_fw_hreq *rq, u32 chan,
				 const struct ane_fw_cmd_hdr *hdr,
				 const void *body, unsigned int timeout_ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	long left;
	int ret;

	for (;;) {
		if (gated)
			down_read(&h->gate);
		ret = __ane_fw_host_send(h, rq, chan, hdr, body);
		if (gated)
			up_read(&h->gate);
		if (ret != -EBUSY)
			return ret;
		left = (long)(end - jiffies);
		if (left <= 0)
			return -EBUSY;
		wait_event_timeout(h->space_wq, ane_fw_host_can_send(h, chan),
				   min_t(long, left,
					 msecs_to_jiffies(ANE_FW_HOST_SPACE_POLL_MS)));
	}
}

/**
 * ane_fw_host_send() - send a command; the answer completes @rq
 * @h: the host side.
 * @rq: the request; set @rq->complete for an asynchronous answer.
 * @chan: ANE_FW_CH_BUF_H2T, _IO or _DATA_CHAIN_H2T.
 * @hdr: the header (@hdr->size bytes of @body follow).
 * @body: the body.
 *
 * A full ring is waited out, up to %ANE_FW_HOST_SEND_WAIT_MS.
 *
 * Return: 0 once sent; -EAGAIN while the firmware is not ready (booting,
 * recovering or dead), -EBUSY when the ring stayed full, -EMSGSIZE.
 */
int ane_fw_host_send(struct ane_fw_host *h, struct ane_fw_hreq *rq, u32 chan,
		     const struct ane_fw_cmd_hdr *hdr, const void *body)
{
	return ane_fw_host_send_wait(h, true, rq, chan, hdr, body,
				     ANE_FW_HOST_SEND_WAIT_MS);
}

/* Wait for @rq; on timeout take it back (it may have completed meanwhile). */
static int ane_fw_host_wait(struct ane_fw_host *h, struct ane_fw_hreq *rq,
			    unsigned int timeout_ms)
{
	unsigned long flags;

	if (wait_for_completion_timeout(&rq->done,
					msecs_to_jiffies(timeout_ms)))
		return rq->status;
	spin_lock_irqsave(&h->lock, flags);
	if (!list_empty(&rq->node)) {
		list_del_init(&rq->node);
		spin_unlock_irqrestore(&h->lock, flags);
		return -ETIMEDOUT;
	}
	spin_unlock_irqrestore(&h->lock, flags);
	wait_for_completion(&rq->done);
	return rq->status;
}

static int __ane_fw_host_call_hdr(struct ane_fw_host *h, bool gated, u32 chan,
				  const struct ane_fw_cmd_hdr *hdr, const void *body,
				  void *out, u32 out_len, unsigned int timeout_ms)
{
	struct ane_fw_hreq rq = { };
	int ret;

	ret = ane_fw_host_send_wait(h, gated, &rq, chan, hdr, body, timeout_ms);
	if (ret)
		return ret;
	ret = ane_fw_host_wait(h, &rq, timeout_ms);
	if (out && out_len)
		memcpy(out, rq.data, min(out_len, rq.len));
	return ret;
}

static int __ane_fw_host_call(struct ane_fw_host *h, bool gated, u32 chan,
			      u32 id, const void *body, u32 len, void *out,
			      u32 out_len, unsigned int timeout_ms)
{
	struct ane_fw_cmd_hdr hdr = { .id = id, .size = len, .priority = 0,
				      .program_id = -1, .process_id = -1 };

	return __ane_fw_host_call_hdr(h, gated, chan, &hdr, body, out, out_len,
				      timeout_ms);
}

/**
 * ane_fw_host_call_hdr() - ane_fw_host_call() with a header of the caller's
 * @h: the host side.
 * @chan: the channel.
 * @hdr: the header: id, size, program, process and procedure ids.
 * @body: @hdr->size bytes of body.
 * @out: reply data buffer, or NULL.
 * @out_len: its size.
 * @timeout_ms: how long to wait.
 *
 * Return: as ane_fw_host_call().
 */
int ane_fw_host_call_hdr(struct ane_fw_host *h, u32 chan,
			 const struct ane_fw_cmd_hdr *hdr, const void *body,
			 void *out, u32 out_len, unsigned int timeout_ms)
{
	return __ane_fw_host_call_hdr(h, true, chan, hdr, body, out, out_len,
				      timeout_ms);
}

/**
 * ane_fw_host_call() - send a control command and wait for its reply
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
int ane_fw_host_call(struct ane_fw_host *h, u32 chan, u32 id, const void *body,
		     u32 len, void *out, u32 out_len, unsigned int timeout_ms)
{
	return __ane_fw_host_call(h, true, chan, id, body, len, out, out_len,
				  timeout_ms);
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_call);

/**
 * ane_fw_host_ping() - one no-op round trip: host -> ring -> firmware ->
 * reply -> interrupt -> host
 * @h: the host side.
 *
 * Return: 0 or a negative errno.
 */
int ane_fw_host_ping(struct ane_fw_host *h)
{
	u32 v = 0x50494e47;

	return ane_fw_host_call(h, ANE_FW_CH_BUF_H2T, ANE_CTL_PING, &v,
				sizeof(v), NULL, 0, 2000);
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_ping);

/* ---------------------------------------------------------------- boot */

static int ane_fw_wait_scratch(struct ane_fw_host *h, u32 n, u32 want,
			       unsigned int timeout_ms, u32 *got)
{
	u32 v;
	int ret;

	/* the second wake implies the first: the firmware wakes in order */
	if (want == ANE_FW_BOOT_ALIVE) {
		ret = read_poll_timeout(ane_rd, v, v == ANE_FW_BOOT_ALIVE ||
					v == ANE_FW_BOOT_CHANNELS ||
					(v & 0xffff0000) == ANE_FW_BOOT_FAILED,
					20, timeout_ms * USEC_PER_MSEC, false,
					h, ANE_REG_SCRATCH(n));
		*got = v;
		if (!ret && (v & 0xffff0000) == ANE_FW_BOOT_FAILED)
			return -EIO;
		return ret;
	}
	ret = read_poll_timeout(ane_rd, v, v == want ||
				(v & 0xffff0000) == ANE_FW_BOOT_FAILED,
				20, timeout_ms * USEC_PER_MSEC, false, h,
				ANE_REG_SCRATCH(n));
	*got = v;
	if (!ret && v != want)
		return -EIO;
	return ret;
}

static void ane_fw_host_power_cycle(struct ane_fw_host *h)
{
	ane_wr(h, ANE_REG_CPU_CTRL, 0);
	ane_hw_write32(h->hw, ANE_BANK_PWGATE, 0, 0);
	ane_hw_write32(h->hw, ANE_BANK_PS, 0, 0);
	ane_hw_write32(h->hw, ANE_BANK_PS, 0, 1);
	ane_hw_write32(h->hw, ANE_BANK_PWGATE, 0, 1);
}

/* Walk the published table; resolve the eight channels. */
static int ane_fw_host_resolve(struct ane_fw_host *h)
{
	const struct ane_fw_channel_table *t;
	u64 iova;
	int ch;

	iova = (u64)ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_CHTBL_HI)) << 32 |
	       ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_CHTBL_LO));
	t = ane_fw_host_va(h, iova, sizeof(*t));
	if (!t || t->magic != ANE_FW_CHTBL_MAGIC ||
	    t->count != ANE_FW_NUM_CHANNELS)
		return -EPROTO;
	if (t->abi_version >> 16 != ANE_FW_ABI_MAJOR)
		return -EPROTO;
	if ((t->abi_version & 0xffff) != ANE_FW_ABI_MINOR)
		dev_warn(h->dev, "firmware protocol %u.%u, driver %u.%u\n",
			 t->abi_version >> 16, t->abi_version & 0xffff,
			 ANE_FW_ABI_MAJOR, ANE_FW_ABI_MINOR);
	if (t->chip_rev != ane_rd(h, ANE_REG_CHIP_REV))
		return -EPROTO;

	for (ch = 0; ch < ANE_FW_NUM_CHANNELS; ch++) {
		const struct ane_fw_channel_desc *d = &t->chan[ch];
		struct ane_fw_host_ring *r = &h->ring[ch];
		void *va;

		if (strncmp(d->name, ane_fw_chan_names[ch], sizeof(d->name)) ||
		    d->direction != ane_fw_chan_dir[ch])
			return -EPROTO;
		va = ane_fw_host_va(h, d->iova, d->size);
		if (!va)
			return -EPROTO;
		*r = (struct ane_fw_host_ring){ .dir = d->direction };
		if (d->direction == ANE_FW_CHAN_MEM) {
			ane_fw_bootlog(h, "channel %-14s mem %llu bytes", d->name,
				       d->size);
			continue;
		}
		if (d->version != ANE_FW_RING_VERSION ||
		    !is_power_of_2(d->nslots) ||
		    d->slot_size < sizeof(struct ane_fw_cmd_hdr) ||
		    d->size < sizeof(struct ane_fw_ring_hdr) +
			      (u64)d->slot_size * d->nslots)
			return -EPROTO;
		r->hdr = va;
		if (r->hdr->version != ANE_FW_RING_VERSION ||
		    r->hdr->nslots != d->nslots)
			return -EPROTO;
		r->slots = (u8 *)va + sizeof(struct ane_fw_ring_hdr);
		r->slot_size = d->slot_size;
		r->nslots = d->nslots;
		r->idx = 0;
		r->ok = true;
		ane_fw_bootlog(h, "channel %-14s %s %u x %u", d->name,
			       d->direction == ANE_FW_CHAN_H2T ? "H2T" : "T2H",
			       d->nslots, d->slot_size);
	}
	return 0;
}

/* The first commands, in the seed's order. */
static int ane_fw_host_boot_cmds(struct ane_fw_host *h)
{
	struct ane_fw_endpoint_set ep = { ANE_FW_ENDPOINT_ID,
					  ANE_FW_ENDPOINT_DATA_CHAINING };
	struct ane_fw_pmu_base pmu = { 0x28e08c000ull };
	struct ane_fw_time_sync ts = { ktime_get_ns() };
	struct ane_fw_property prop = { ANE_FW_PROP_DEADLINE_MS, 2000, 0 };
	struct ane_fw_default_settings ds = { .ctx_switch_latency_us = 100 };
	struct ane_fw_shared_event_init se = { .num_events = 0 };
	u32 one = 1;
	static const char * const names[] = {
		"print-enable", "start", "endpoint-set", "pmu-base",
		"time-sync", "channel-property-write", "resource-info",
		"default-settings", "mcache-power-on", "shared-event-init",
	};
	const struct {
		u32 id;
		const void *body;
		u32 len;
		void *out;
		u32 out_len;
	} seq[] = {
		{ ANE_CTL_PRINT_ENABLE, &one, sizeof(one) },
		{ ANE_CTL_START, NULL, 0 },
		{ ANE_CTL_IPC_ENDPOINT_SET, &ep, sizeof(ep) },
		{ ANE_CTL_PMU_BASE_SET, &pmu, sizeof(pmu) },
		{ ANE_CTL_TIME_SYNC, &ts, sizeof(ts) },
		{ ANE_CTL_CH_PROPERTY_WRITE, &prop, sizeof(prop) },
		{ ANE_CTL_RESOURCE_INFO_GET, NULL, 0, &h->res, sizeof(h->res) },
		{ ANE_CTL_DEFAULT_SETTINGS_SET, &ds, sizeof(ds) },
		{ ANE_CTL_MCACHE_POWER_ON, NULL, 0 },
		{ ANE_CTL_SHARED_EVENT_INIT, &se, sizeof(se) },
	};
	int i, ret;

	static_assert(ARRAY_SIZE(names) == ARRAY_SIZE(seq));
	for (i = 0; i < ARRAY_SIZE(seq); i++) {
		ret = __ane_fw_host_call(h, false, ANE_FW_CH_BUF_H2T, seq[i].id,
					 seq[i].body, seq[i].len, seq[i].out,
					 seq[i].out_len, 2000);
		ane_fw_bootlog(h, "cmd %-22s %#04x: %d", names[i], seq[i].id,
			       ret);
		if (ret)
			return ret;
	}
	ane_fw_bootlog(h, "resources: engines %u cache-requests %u inputs %u procedures %u",
		       h->res.num_engines, h->res.max_cache_requests,
		       h->res.max_cache_inputs, h->res.max_procedures);
	return 0;
}

static int ane_fw_host_restore(struct ane_fw_host *h);
static void ane_fw_host_crash_now(struct ane_fw_host *h);

/*
 * ANE_Init, then the residents loaded again.  On failure the controller
 * is halted, unless a crash interrupt came meanwhile: then it is left for
 * the recovery to pull its dump.  The caller sets the state then.
 */
static int __ane_fw_host_boot(struct ane_fw_host *h, bool warm)
{
	struct ane_fw_boot_args *args = h->shared_va;
	bool crashed;
	u32 v, attempt;
	int ret;

	ane_fw_set_state(h, ANE_FW_STATE_BOOTING);
	spin_lock_irq(&h->lock);
	h->accepting = false;
	h->crash_pending = false;	/* the caller collected any crash */
	memset(h->ring, 0, sizeof(h->ring));
	spin_unlock_irq(&h->lock);
	h->boots++;
	ane_fw_bootlog(h, "boot %u (%s)", h->boots, warm ? "warm" : "cold");

	for (attempt = 0; attempt < ANE_FW_HOST_BOOT_RETRIES; attempt++) {
		/* hold the controller in reset while the channel is reset */
		ane_wr(h, ANE_REG_CPU_CTRL, 0);
		/* reset the channel: fresh shared memory and boot args */
		memset(h->shared_va, 0, h->shared_size);
		*args = (struct ane_fw_boot_args){
			.magic = ANE_FW_ARGS_MAGIC,
			.abi_version = ANE_FW_ABI_VERSION,
			.chip_rev = ane_rd(h, ANE_REG_CHIP_REV),
			.boot_count = h->boots,
			.shared_iova = h->shared_iova,
			.shared_size = h->shared_size,
			.heap_iova = h->heap_iova,
			.heap_size = h->heap_size,
			.fw_reservation = 64 * 1024,
			.idle_poll_us = READ_ONCE(ane_fw_idle_poll_us),
			.doorbell = {
				{ ANE_REG_HOST_IRQ, ANE_HOST_IRQ_IO_T2H },
				{ ANE_REG_HOST_IRQ, ANE_HOST_IRQ_T2H |
				  ANE_HOST_IRQ_BOOT | ANE_HOST_IRQ_CRASH },
				{ ANE_REG_HOST_IRQ, ANE_HOST_IRQ_DEBUG |
				  ANE_HOST_IRQ_TERMINAL },
			},
		};
		if (h->stall_boots) {
			h->stall_boots--;
			args->flags |= ANE_FW_ARGS_STALL_CHTBL;
		}
		ane_wr(h, ANE_REG_HOST_IRQ_MASK, 0);
		ane_wr(h, ANE_REG_HOST_IRQ_CLR, ~0u);
		ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_ARGS_LO),
		       lower_32_bits(h->shared_iova));
		ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_ARGS_HI),
		       upper_32_bits(h->shared_iova));
		ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_ACK), 0);
		ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT),
		       warm ? ANE_FW_BOOT_WARM : ANE_FW_BOOT_COLD);
		ane_wr(h, ANE_REG_RVBAR_LO, lower_32_bits(ane_fw_image.boot_addr));
		ane_wr(h, ANE_REG_RVBAR_HI, upper_32_bits(ane_fw_image.boot_addr));
		ane_fw_bootlog(h, "reset vector %#llx, scratch7=%u, release reset",
			       ane_fw_image.boot_addr, warm);
		ane_wr(h, ANE_REG_CPU_CTRL, ANE_CPU_RUN);

		ret = ane_fw_wait_scratch(h, ANE_FW_SCR_BOOT, ANE_FW_BOOT_ALIVE,
					  1000, &v);
		if (ret) {
			ane_fw_bootlog(h, "handshake 1 failed: scratch7=%#x err=%u",
				       v, ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_ERROR)));
			goto fail;
		}
		ane_fw_bootlog(h, "handshake 1: controller alive");
		ret = ane_fw_wait_scratch(h, ANE_FW_SCR_BOOT,
					  ANE_FW_BOOT_CHANNELS, 500, &v);
		if (!ret)
			break;
		h->boot_failures++;
		ane_fw_bootlog(h, "handshake 2 missing (%#x, err %u): power cycle, failures %u",
			       v, ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_ERROR)),
			       h->boot_failures);
		ane_fw_host_power_cycle(h);
		if ((v & 0xffff0000) == ANE_FW_BOOT_FAILED)
			goto fail;
	}
	if (attempt == ANE_FW_HOST_BOOT_RETRIES) {
		ret = -ETIMEDOUT;
		goto fail;
	}
	ane_fw_bootlog(h, "handshake 2: channel table ready");

	ret = ane_fw_host_resolve(h);
	if (ret) {
		ane_fw_bootlog(h, "channel table invalid: %d", ret);
		goto fail;
	}
	ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT), ANE_FW_BOOT_RESOLVED);
	ane_wr(h, ANE_REG_FW_DOORBELL, ANE_FW_DB_BOOT);
	ret = ane_fw_wait_scratch(h, ANE_FW_SCR_ACK, ANE_FW_MAGIC1, 1000, &v);
	if (ret) {
		ane_fw_bootlog(h, "handshake 3 failed: scratch3=%#x", v);
		goto fail;
	}
	ane_fw_bootlog(h, "handshake 3: magic %#x, restarts %u", v,
		       ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_RESTARTS)));

	spin_lock_irq(&h->lock);
	h->accepting = true;
	h->dump_done = false;
	spin_unlock_irq(&h->lock);
	ane_wr(h, ANE_REG_HOST_IRQ_MASK, ~0u);	/* enable interrupts */
	ane_fw_bootlog(h, "engine controller ready, interrupts on");

	ret = ane_fw_host_boot_cmds(h);
	if (ret)
		goto fail;
	if (h->crash_boots) {
		/* test: this boot dies before it has the programs again */
		h->crash_boots--;
		ane_fw_host_crash_now(h);
	}
	ret = ane_fw_host_restore(h);
	if (ret)
		goto fail;
	ane_fw_set_state(h, ANE_FW_STATE_READY);
	ane_fw_bootlog(h, "ready");
	return 0;

fail:
	spin_lock_irq(&h->lock);
	h->accepting = false;
	crashed = h->crash_pending;
	spin_unlock_irq(&h->lock);
	if (!crashed)
		ane_wr(h, ANE_REG_CPU_CTRL, 0);
	ane_fw_bootlog(h, "boot failed: %d%s", ret,
		       crashed ? " (crashed)" : "");
	dev_err(h->dev, "firmware boot failed: %d%s\n", ret,
		crashed ? " (crashed)" : "");
	return ret;
}

/**
 * ane_fw_host_boot() - ANE_Init: bring the firmware to the ready handshake
 * @h: the host side, CPU in reset; the caller holds the gate for writing
 *	(or nobody else can send yet).
 * @warm: warm boot (after a crash) or cold.
 *
 * The boot ends by loading every resident program again (same slot, same
 * process id), so the clients' prepared programs survive it.
 *
 * Return: 0 with the firmware READY; a negative errno with it halted and
 * the state DEAD.
 */
int ane_fw_host_boot(struct ane_fw_host *h, bool warm)
{
	int ret = __ane_fw_host_boot(h, warm);

	if (ret)
		ane_fw_set_state(h, ANE_FW_STATE_DEAD);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_boot);

/* ------------------------------------------------------------ residents */

/* Does the firmware take commands?  A reader of the gate sees it settled. */
static bool ane_fw_host_up(struct ane_fw_host *h)
{
	bool up;

	spin_lock_irq(&h->lock);
	up = h->accepting;
	spin_unlock_irq(&h->lock);
	return up;
}

static int ane_fw_host_prog_call(struct ane_fw_host *h, u32 id, s32 slot,
				 s32 pid, const void *body, u32 len)
{
	struct ane_fw_cmd_hdr hdr = { .id = id, .size = len,
				      .program_id = slot, .process_id = pid };

	return __ane_fw_host_call_hdr(h, false, ANE_FW_CH_BUF_H2T, &hdr, body,
				      NULL, 0, ANE_FW_HOST_CALL_MS);
}

/* LOAD_PROGRAM and CREATE_PROCESS of @r.  The gate is held. */
static int ane_fw_host_res_load(struct ane_fw_host *h,
				const struct ane_fw_resident *r)
{
	int ret;

	ret = ane_fw_host_prog_call(h, ANE_CTL_LOAD_PROGRAM, r->slot, -1,
				    &r->load, sizeof(r->load));
	if (ret)
		return ret;
	return ane_fw_host_prog_call(h, ANE_CTL_CREATE_PROCESS, r->slot,
				     r->pid, NULL, 0);
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
static int ane_fw_host_release(struct ane_fw_host *h, s32 slot, s32 pid)
{
	int ret;

	ret = ane_fw_host_prog_call(h, ANE_CTL_TERMINATE_PROCESS, slot, pid,
				    NULL, 0);
	if (!ret || ret == -ENOENT)
		ret = ane_fw_host_prog_call(h, ANE_CTL_UNLOAD_PROGRAM, slot, -1,
					    NULL, 0);
	if (ret == -ENOENT || (ret && !ane_fw_host_up(h)))
		ret = 0;
	return ret;
}

/* Give ids back after a release, or keep them stale.  Under @res_lock. */
static void ane_fw_host_put_ids(struct ane_fw_host *h, s32 slot, s32 pid,
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
static void ane_fw_host_release_stale(struct ane_fw_host *h)
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
		err = ane_fw_host_release(h, slot, pid);
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
 * ane_fw_host_load() - load a client's program into the firmware
 * @h: the host side.
 * @r: the resident, not loaded; gets its slot and process id.
 * @lp: the LOAD_PROGRAM body.
 *
 * Takes a free program slot and process id, sends LOAD_PROGRAM and
 * CREATE_PROCESS, and keeps @r on the list every boot loads again.  The
 * gate is held for reading throughout, so no boot comes in between.
 *
 * Return: 0; -EBUSY with no slot or process id left; -EAGAIN while the
 * firmware is not up; the errno of the firmware's refusal.
 */
int ane_fw_host_load(struct ane_fw_host *h, struct ane_fw_resident *r,
		     const struct ane_fw_load_program *lp)
{
	unsigned int slot, pid;
	int ret;

	r->slot = -1;
	r->pid = -1;
	INIT_LIST_HEAD(&r->node);
	down_read(&h->gate);
	if (!ane_fw_host_up(h)) {
		ret = -EAGAIN;
		goto out;
	}
	mutex_lock(&h->res_lock);
	slot = find_first_zero_bit(h->slots, ANE_FW_MAX_PROGRAMS);
	if (slot >= ANE_FW_MAX_PROGRAMS && !bitmap_empty(h->stale,
							 ANE_FW_MAX_PROGRAMS)) {
		mutex_unlock(&h->res_lock);
		ane_fw_host_release_stale(h);
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
	ret = ane_fw_host_res_load(h, r);
	if (ret) {
		/* whatever got loaded goes again before the ids are reused */
		int err = ane_fw_host_release(h, slot, pid);

		mutex_lock(&h->res_lock);
		ane_fw_host_put_ids(h, slot, pid, err);
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
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_load);

/**
 * ane_fw_host_unload() - drop a program ane_fw_host_load() loaded
 * @h: the host side.
 * @r: the resident (a no-op if not loaded).
 *
 * Never fails for the caller: the firmware is told (TERMINATE_PROCESS,
 * UNLOAD_PROGRAM, a full ring waited out); if it cannot confirm, the slot
 * and process id stay reserved until a later release or the next boot
 * frees them, so they are never handed out while the firmware holds them.
 */
void ane_fw_host_unload(struct ane_fw_host *h, struct ane_fw_resident *r)
{
	int err;

	if (r->slot < 0)
		return;
	down_read(&h->gate);
	mutex_lock(&h->res_lock);
	list_del_init(&r->node);
	mutex_unlock(&h->res_lock);
	err = ane_fw_host_release(h, r->slot, r->pid);
	mutex_lock(&h->res_lock);
	ane_fw_host_put_ids(h, r->slot, r->pid, err);
	mutex_unlock(&h->res_lock);
	up_read(&h->gate);
	r->slot = -1;
	r->pid = -1;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_unload);

/*
 * A boot's last step: the new firmware holds nothing, so stale releases
 * are done, and every resident is loaded again into its own slot and
 * process.  Gate held for writing.
 */
static int ane_fw_host_restore(struct ane_fw_host *h)
{
	struct ane_fw_resident *r;
	unsigned int slot, n = 0;
	int ret = 0;

	mutex_lock(&h->res_lock);
	for_each_set_bit(slot, h->stale, ANE_FW_MAX_PROGRAMS) {
		clear_bit(slot, h->slots);
		clear_bit(h->stale_pid[slot], h->pids);
	}
	bitmap_zero(h->stale, ANE_FW_MAX_PROGRAMS);
	list_for_each_entry(r, &h->residents, node) {
		ret = ane_fw_host_res_load(h, r);
		if (ret) {
			ane_fw_bootlog(h, "program slot %d process %d not loaded again: %d",
				       r->slot, r->pid, ret);
			break;
		}
		n++;
	}
	h->reloads += n;
	mutex_unlock(&h->res_lock);
	if (n)
		ane_fw_bootlog(h, "programs loaded again: %u", n);
	return ret;
}

/* ------------------------------------------------------------ recovery */

/**
 * ane_fw_host_rate_ok() - may another recovery run now?
 * @ts: times of the last @n recoveries (0: none), oldest first.
 * @n: entries of @ts.
 * @now: the time.
 * @window: the window.
 *
 * At most @n recoveries per @window: a crash storm is refused, not looped.
 * On success @now is recorded.
 *
 * Return: true if allowed.
 */
bool ane_fw_host_rate_ok(unsigned long *ts, u32 n, unsigned long now,
			 unsigned long window)
{
	u32 i;

	if (ts[0] && time_before(now, ts[0] + window))
		return false;
	for (i = 0; i + 1 < n; i++)
		ts[i] = ts[i + 1];
	ts[n - 1] = now;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_rate_ok);

static const char *ane_fw_exc_name(u32 exc)
{
	static const char * const names[] = {
		"non-maskable interrupt", "interrupt", "fast interrupt",
		"synchronous abort",
	};

	return exc < ARRAY_SIZE(names) ? names[exc] : "unknown";
}

static const char *ane_fw_task_state_str(u32 s)
{
	static const char * const names[] = {
		"RUNNABLE", "SUSPENDED", "WAITING", "SEMWAIT", "BLOCKED",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

/* Render the raw sections as the ch. 29 post-mortem text. */
static size_t ane_fw_render_dump(const u8 *raw, size_t len, char *out,
				 size_t size, u32 recoveries)
{
	size_t o = 0, off = 0;
	u32 i;

	o += scnprintf(out + o, size - o,
		       "ane firmware crash dump (host recovery %u)\n",
		       recoveries);
	while (off + sizeof(struct ane_fw_dump_section_hdr) <= len) {
		const struct ane_fw_dump_section_hdr *sh = (const void *)(raw + off);
		const void *p = sh + 1;

		if (off + sizeof(*sh) + sh->len > len)
			break;
		switch (sh->section) {
		case ANE_FW_DUMP_HEADER: {
			const struct ane_fw_dump_header *hd = p;

			if (sh->len < sizeof(*hd))
				break;
			o += scnprintf(out + o, size - o,
				       "exception: %s\nreason: %.*s\ntask: %.*s (%s)\ncpu: %u\nrestart count: %u\nexecution loop: %u\nuptime: %llu ns\n",
				       ane_fw_exc_name(hd->exc_class),
				       (int)sizeof(hd->reason), hd->reason,
				       (int)sizeof(hd->task), hd->task,
				       hd->in_irq ? "interrupt context" :
						    "task context",
				       hd->cpu, hd->restart_count,
				       hd->fsm_state, hd->uptime_ns);
			break;
		}
		case ANE_FW_DUMP_REGS: {
			const struct ane_fw_dump_regs *r = p;

			if (sh->len < sizeof(*r))
				break;
			o += scnprintf(out + o, size - o,
				       "esr %#018llx far %#018llx elr %#018llx\nl2c_err %#llx l2c_addr %#llx S3_3_C15_C8_0 %#llx\n",
				       r->esr, r->far, r->elr, r->l2c_err,
				       r->l2c_addr, r->fabric);
			for (i = 0; i < 31; i++)
				o += scnprintf(out + o, size - o,
					       "x%-2u %#018llx%s", i, r->x[i],
					       i % 4 == 3 || i == 30 ? "\n" : " ");
			break;
		}
		case ANE_FW_DUMP_CMD_RING: {
			const struct ane_fw_dump_cmd *c = p;
			u32 n = sh->len / sizeof(*c);

			o += scnprintf(out + o, size - o,
				       "recent commands (newest first): %u\n", n);
			for (i = 0; i < n; i++)
				o += scnprintf(out + o, size - o,
					       "  [%2u] %-14s seq %-6u id %#06x size %-5u pri %u prog %d proc %d procedure %u status %d t %llu\n",
					       i, c[i].chan < ANE_FW_NUM_CHANNELS ?
					       ane_fw_chan_names[c[i].chan] : "?",
					       c[i].seq, c[i].id, c[i].hdr.size,
					       c[i].hdr.priority,
					       c[i].hdr.program_id,
					       c[i].hdr.process_id,
					       c[i].hdr.procedure_id,
					       c[i].status, c[i].ts_ns);
			break;
		}
		case ANE_FW_DUMP_TASKS: {
			const struct ane_fw_dump_task *t = p;
			u32 n = sh->len / sizeof(*t);

			o += scnprintf(out + o, size - o, "tasks:\n");
			for (i = 0; i < n; i++)
				o += scnprintf(out + o, size - o,
					       "  %-12.*s %-9s handled %u queued %u\n",
					       (int)sizeof(t[i].name), t[i].name,
					       ane_fw_task_state_str(t[i].state),
					       t[i].handled, t[i].queued);
			break;
		}
		case ANE_FW_DUMP_END:
			o += scnprintf(out + o, size - o, "end of dump\n");
			break;
		}
		off += sizeof(*sh) + sh->len;
	}
	return o;
}

/* Fail everything in flight: the firmware that had it is gone. */
static void ane_fw_host_cancel_all(struct ane_fw_host *h, int err)
{
	unsigned long flags;

	spin_lock_irqsave(&h->lock, flags);
	ane_fw_host_cancel_all_locked(h, err);
	spin_unlock_irqrestore(&h->lock, flags);
}

/*
 * The crash interrupt came: pull the dump (bounded), reset the controller
 * and the engine, publish the dump, fail what is left in flight.  Gate
 * held for writing.
 */
static void ane_fw_host_collect(struct ane_fw_host *h)
{
	char *text;
	size_t len;

	/* the firmware streams its dump; pull it until END (bounded) */
	wait_event_timeout(h->wq, READ_ONCE(h->dump_done),
			   msecs_to_jiffies(2000));
	spin_lock_irq(&h->lock);
	ane_fw_host_drain(h, ANE_FW_CH_DEBUG, ane_fw_host_dump_msg);
	spin_unlock_irq(&h->lock);

	/* reset the controller: nothing writes the dump any more */
	ane_wr(h, ANE_REG_CPU_CTRL, 0);
	dev_err(h->dev, "firmware crashed (restart %u): recovering\n",
		ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_RESTARTS)));

	h->recoveries++;
	ane_dwp_save(h, h->dump, h->dump_len);
	text = vmalloc(ANE_FW_HOST_DUMP_MAX);
	if (text) {
		len = ane_fw_render_dump(h->dump, h->dump_len, text,
					 ANE_FW_HOST_DUMP_MAX, h->recoveries);
		kfree(h->dump_text);
		h->dump_text = kmemdup(text, len + 1, GFP_KERNEL);
		h->dump_text_len = h->dump_text ? len : 0;
		dev_coredumpv(h->dev, text, len, GFP_KERNEL);
	}
	spin_lock_irq(&h->lock);
	h->dump_len = 0;
	h->dump_done = false;
	spin_unlock_irq(&h->lock);

	/* anything sent since the interrupt was refused; be sure */
	ane_fw_host_cancel_all(h, -EIO);
	h->boot_needed = true;
}

/* Boot again later: the firmware stays down (RECOVERING) meanwhile. */
static void ane_fw_host_defer(struct ane_fw_host *h, const char *why)
{
	h->backoff_ms = h->backoff_ms ?
			min(2 * h->backoff_ms, ANE_FW_HOST_BACKOFF_MAX_MS) :
			ANE_FW_HOST_BACKOFF_MIN_MS;
	ane_fw_set_state(h, ANE_FW_STATE_RECOVERING);
	ane_fw_bootlog(h, "%s: next boot in %u ms", why, h->backoff_ms);
	dev_err(h->dev, "firmware %s: next boot in %u ms\n", why,
		h->backoff_ms);
	queue_delayed_work(system_long_wq, &h->recovery_work,
			   msecs_to_jiffies(h->backoff_ms));
}

/*
 * Boot the firmware that @h->boot_needed says is down.  A crash during
 * the boot leaves it to the recovery the crash queued; a failed boot is
 * tried again later, up to %ANE_FW_HOST_BOOT_GIVEUP times in a row, then
 * the firmware is DEAD until a privileged reboot.  Gate held for writing.
 */
static int ane_fw_host_restart(struct ane_fw_host *h)
{
	bool crashed;
	int ret;

	ret = __ane_fw_host_boot(h, true);
	if (!ret) {
		h->boot_needed = false;
		h->boot_fails = 0;
		return 0;
	}
	spin_lock_irq(&h->lock);
	crashed = h->crash_pending;
	spin_unlock_irq(&h->lock);
	if (crashed) {
		ane_fw_set_state(h, ANE_FW_STATE_RECOVERING);
		return ret;
	}
	if (++h->boot_fails >= ANE_FW_HOST_BOOT_GIVEUP) {
		ane_fw_set_state(h, ANE_FW_STATE_DEAD);
		ane_fw_bootlog(h, "%u boots failed in a row: dead until rebooted",
			       h->boot_fails);
		dev_err(h->dev, "firmware: %u boots failed in a row, giving up (fw_inject reboot)\n",
			h->boot_fails);
		return ret;
	}
	ane_fw_host_defer(h, "boot failed");
	return ret;
}

/**
 * ane_fw_host_boot_later() - a boot failed outside recovery: retry later
 * @h: the host side, gate held for writing.
 *
 * The probe's cold boot: it is tried again as a deferred recovery boot.
 */
void ane_fw_host_boot_later(struct ane_fw_host *h)
{
	h->boot_needed = true;
	h->boot_fails++;
	ane_fw_host_defer(h, "boot failed");
}

/*
 * The recovery work: collect a crash, then boot again at once -- or, in a
 * crash storm (more than %ANE_FW_HOST_REC_MAX recoveries in
 * %ANE_FW_HOST_REC_WINDOW_MS), after a backoff that doubles with each
 * crash of the storm.  Also runs a deferred boot.
 */
static void ane_fw_host_recover(struct work_struct *work)
{
	struct ane_fw_host *h = container_of(to_delayed_work(work),
					     struct ane_fw_host, recovery_work);
	bool crashed;

	down_write(&h->gate);
	if (!h->hw)
		goto out;
	spin_lock_irq(&h->lock);
	crashed = h->crash_pending;
	h->crash_pending = false;
	spin_unlock_irq(&h->lock);
	if (crashed) {
		ane_fw_set_state(h, ANE_FW_STATE_RECOVERING);
		ane_fw_host_collect(h);
		if (!ane_fw_host_rate_ok(h->rec_ts, ANE_FW_HOST_REC_MAX, jiffies,
					 msecs_to_jiffies(ANE_FW_HOST_REC_WINDOW_MS))) {
			ane_fw_host_defer(h, "crash storm");
			goto out;
		}
		h->backoff_ms = 0;
	}
	if (h->boot_needed)
		ane_fw_host_restart(h);
out:
	up_write(&h->gate);
}

/* ---------------------------------------------------- faults for tests */

/*
 * An unknown id on the execution-loop channel: the firmware faults.  Waits
 * until the crash interrupt failed the command.  Gate held by the caller.
 */
static void ane_fw_host_crash_now(struct ane_fw_host *h)
{
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CMD_PING, .program_id = -1,
				      .process_id = -1 };
	struct ane_fw_hreq rq = { };

	if (!__ane_fw_host_send(h, &rq, ANE_FW_CH_IO, &hdr, NULL))
		ane_fw_host_wait(h, &rq, 5000);
}

/*
 * Reset and boot now, whatever the state: a crash not yet collected is
 * collected first, the rate limit and backoff start afresh.
 */
static int ane_fw_host_reboot(struct ane_fw_host *h)
{
	bool crashed;

	down_write(&h->gate);
	if (!h->hw) {
		up_write(&h->gate);
		return -ENODEV;
	}
	/* a deferred boot is this one; a running recovery finds nothing */
	cancel_delayed_work(&h->recovery_work);
	spin_lock_irq(&h->lock);
	crashed = h->crash_pending;
	h->crash_pending = false;
	h->accepting = false;
	spin_unlock_irq(&h->lock);
	if (crashed) {
		ane_fw_host_collect(h);
	} else {
		ane_wr(h, ANE_REG_CPU_CTRL, 0);
		ane_fw_host_cancel_all(h, -EIO);
	}
	memset(h->rec_ts, 0, sizeof(h->rec_ts));
	h->backoff_ms = 0;
	h->boot_fails = 0;
	h->boot_needed = true;
	ane_fw_set_state(h, ANE_FW_STATE_RECOVERING);
	up_write(&h->gate);
	/* the boot itself as the recovery runs it, behind the same gate */
	ane_fw_host_recover(&h->recovery_work.work);
	return atomic_read(h->fw_state) == ANE_FW_STATE_READY ? 0 : -EIO;
}

/**
 * ane_fw_host_inject() - fault injection (privileged: debugfs, KUnit)
 * @h: the host side.
 * @what: "crash" (an unknown id on the execution-loop channel), "hang"
 *	(hardware queue @arg never completes), "unhang", "abort-stuck"
 *	(aborting queue @arg fails), "stall-boot" (the next @arg boots
 *	never publish the channel table), "crash-boot" (the next @arg boots
 *	crash once up, before the programs are loaded again), "deadline"
 *	(@arg ms), "reboot" (reset and boot now, e.g. out of DEAD), "halt"
 *	(stop the firmware and leave it DEAD, as a boot that gave up).
 * @arg: argument.
 *
 * Return: 0 or a negative errno.
 */
int ane_fw_host_inject(struct ane_fw_host *h, const char *what, u32 arg)
{
	int ret = 0;

	if (!strcmp(what, "crash")) {
		struct ane_fw_cmd_hdr hdr = { .id = ANE_CMD_PING,
					      .program_id = -1,
					      .process_id = -1 };
		struct ane_fw_hreq rq = { };

		ret = ane_fw_host_send(h, &rq, ANE_FW_CH_IO, &hdr, NULL);
		if (!ret)
			ret = ane_fw_host_wait(h, &rq, 5000) == -EIO ? 0 : -EPROTO;
	} else if (!strcmp(what, "hang") || !strcmp(what, "unhang") ||
		   !strcmp(what, "abort-stuck")) {
		u32 reg = what[0] == 'a' ? ANE_REG_ENG_ABORT_STUCK :
					   ANE_REG_ENG_HANG;

		if (arg >= ANE_NUM_HW_QUEUES)
			return -EINVAL;
		down_read(&h->gate);
		if (!h->hw) {
			ret = -ENODEV;
		} else if (what[0] == 'u') {
			ane_wr(h, ANE_REG_ENG_HANG, 0);
			ane_wr(h, ANE_REG_ENG_ABORT_STUCK, 0);
		} else {
			ane_wr(h, reg, ane_rd(h, reg) | BIT(arg));
		}
		up_read(&h->gate);
	} else if (!strcmp(what, "stall-boot")) {
		down_write(&h->gate);
		h->stall_boots = arg;
		up_write(&h->gate);
	} else if (!strcmp(what, "crash-boot")) {
		down_write(&h->gate);
		h->crash_boots = arg;
		up_write(&h->gate);
	} else if (!strcmp(what, "deadline")) {
		struct ane_fw_property p = { ANE_FW_PROP_DEADLINE_MS, arg, 0 };

		ret = ane_fw_host_call(h, ANE_FW_CH_BUF_H2T,
				       ANE_CTL_CH_PROPERTY_WRITE, &p, sizeof(p),
				       NULL, 0, 2000);
	} else if (!strcmp(what, "reboot")) {
		ret = ane_fw_host_reboot(h);
	} else if (!strcmp(what, "halt")) {
		/* as a boot that gave up: DEAD until "reboot" (libane tests) */
		down_write(&h->gate);
		cancel_delayed_work(&h->recovery_work);
		spin_lock_irq(&h->lock);
		h->accepting = false;
		h->crash_pending = false;
		spin_unlock_irq(&h->lock);
		h->boot_needed = false;
		if (h->hw) {
			ane_wr(h, ANE_REG_CPU_CTRL, 0);
			ane_fw_host_cancel_all(h, -EIO);
			ane_fw_set_state(h, ANE_FW_STATE_DEAD);
		} else {
			ret = -ENODEV;
		}
		up_write(&h->gate);
	} else {
		ret = -EINVAL;
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_inject);

/* ------------------------------------------------------------- lifetime */

/**
 * ane_fw_host_setup() - create the hardware; memory must be set already
 * @h: zeroed host side with @shared_va/@shared_iova/@shared_size and
 *	@heap_iova/@heap_size filled in.
 * @dev: the device.
 * @dart: the DART (NULL in KUnit).
 * @fw_state: where to publish the firmware state.
 *
 * Return: 0 or a negative errno.
 */
int ane_fw_host_setup(struct ane_fw_host *h, struct device *dev,
		      struct ane_dart *dart, atomic_t *fw_state)
{
	h->dev = dev;
	h->fw_state = fw_state;
	init_rwsem(&h->gate);
	spin_lock_init(&h->lock);
	INIT_LIST_HEAD(&h->pending);
	init_waitqueue_head(&h->wq);
	init_waitqueue_head(&h->space_wq);
	mutex_init(&h->dwp_lock);
	mutex_init(&h->res_lock);
	mutex_init(&h->stale_lock);
	INIT_LIST_HEAD(&h->residents);
	INIT_DELAYED_WORK(&h->recovery_work, ane_fw_host_recover);
	h->dump = kzalloc(ANE_FW_HOST_DUMP_MAX, GFP_KERNEL);
	if (!h->dump)
		return -ENOMEM;
	h->hw = ane_hw_create(dev, dart, &ane_fw_image, &ane_fw_host_hw_ops.ops,
			      h);
	if (IS_ERR(h->hw)) {
		int ret = PTR_ERR(h->hw);

		h->hw = NULL;
		kfree(h->dump);
		h->dump = NULL;
		return ret;
	}
	ane_fw_set_state(h, ANE_FW_STATE_OFF);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_setup);

/**
 * ane_fw_host_teardown() - halt the controller, fail what is in flight
 * @h: the host side.
 */
void ane_fw_host_teardown(struct ane_fw_host *h)
{
	struct ane_hw *hw;

	disable_delayed_work_sync(&h->recovery_work);
	down_write(&h->gate);
	spin_lock_irq(&h->lock);
	h->accepting = false;
	spin_unlock_irq(&h->lock);
	hw = h->hw;
	ane_hw_destroy(hw);	/* asserts reset: the thread is gone after */
	h->hw = NULL;
	ane_fw_host_cancel_all(h, -ENODEV);
	ane_fw_set_state(h, ANE_FW_STATE_OFF);
	kfree(h->dump);
	h->dump = NULL;
	kfree(h->dump_text);
	h->dump_text = NULL;
	up_write(&h->gate);
	ane_dwp_fini(h);
}
EXPORT_SYMBOL_IF_KUNIT(ane_fw_host_teardown);
