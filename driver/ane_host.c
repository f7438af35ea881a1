// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host side of the engine controller firmware (ch. 29, 30), its core:
 * the host side at probe (ANEHWDevice::start + power_on + ANE_Init: its
 * shared memory, the hardware set up, the first boot), the channel rings
 * as the host sees them, sending a command and waiting for its answer,
 * the pending requests, and the host interrupt that drains the
 * firmware-to-host rings.  Around it: waiting for an answer
 * and the synchronous calls (ane_host_call.c), the boot handshake and
 * boot commands (ane_host_boot.c), the programs the firmware holds for
 * clients (ane_host_resident.c), the crash path and fault injection
 * (ane_host_recovery.c), one function per message (ane_host_msg.c) and
 * debugfs (ane_host_debugfs.c).
 *
 * Only the hardware is touched: registers (the regmaps of the banks),
 * shared memory (the kernel mapping of buffers the firmware reaches
 * through the DART), doorbells and the host interrupt line.
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

#include <drm/drm_managed.h>

#include <kunit/visibility.h>

#include "ane_drv.h"
#include "ane_host.h"
#include "ane_host_internal.h"
#include "ane_host_msg.h"
#include "ane_trace.h"
#include "firmware/spec/ane_platform.h"

/* The eight channels: names and directions the firmware must publish. */
const char * const ane_host_chan_names[ANE_FW_NUM_CHANNELS] = {
	"SHAREDMALLOC", "TERMINAL", "BUF_H2T", "BUF_T2H",
	"IO", "IO_T2H", "DEBUG", "DATA_CHAIN_H2T",
};

const u32 ane_host_chan_dir[ANE_FW_NUM_CHANNELS] = {
	ANE_FW_CHAN_MEM, ANE_FW_CHAN_T2H, ANE_FW_CHAN_H2T, ANE_FW_CHAN_T2H,
	ANE_FW_CHAN_H2T, ANE_FW_CHAN_T2H, ANE_FW_CHAN_T2H, ANE_FW_CHAN_H2T,
};

static const u32 ane_host_chan_db[ANE_FW_NUM_CHANNELS] = {
	[ANE_FW_CH_BUF_H2T] = ANE_FW_DB_H2T,
	[ANE_FW_CH_IO] = ANE_FW_DB_IO,
	[ANE_FW_CH_DATA_CHAIN_H2T] = ANE_FW_DB_DCHAIN,
};

/**
 * ane_host_status_errno() - the errno a firmware status maps to
 * @fw_status: &enum ane_fw_status.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_status_errno(s32 fw_status)
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
	case ANE_FW_ST_CANCELED:
		return -ECANCELED;
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_host_status_errno);

/* ----------------------------------------------------------------- rings */

/**
 * ane_host_va() - the kernel address of a range of the shared region
 * @h: the host side.
 * @iova: device address.
 * @size: bytes.
 *
 * Return: the address, or NULL if the range is not all in the region.
 */
void *ane_host_va(struct ane_host *h, u64 iova, u64 size)
{
	if (iova < h->shared_iova || size > h->shared_size ||
	    iova - h->shared_iova > h->shared_size - size)
		return NULL;
	return (u8 *)h->shared_va + (iova - h->shared_iova);
}

/* @rq left the pending list: the engine may power down for it now. */
void ane_host_hreq_pm_put(struct ane_host_hreq *rq)
{
	struct device *dev = rq->pm_dev;

	if (!dev)
		return;
	rq->pm_dev = NULL;
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);	/* asynchronous: any context */
}

/**
 * ane_host_hreq_finish() - complete an answered (or cancelled) request
 * @rq: the request, on &ane_host.pending (or &ane_host.backlog).
 * @err: 0, or the errno that ends it regardless of @fw_status.
 * @fw_status: &enum ane_fw_status of the answer.
 * @data: reply data or the completion event body.
 * @len: bytes of @data (at most %ANE_HOST_DATA are kept).
 *
 * Called under &ane_host.lock.
 */
void ane_host_hreq_finish(struct ane_host_hreq *rq, int err, s32 fw_status,
			  const void *data, u32 len)
{
	list_del_init(&rq->node);
	kfree(rq->deferred);		/* failed on the backlog */
	rq->deferred = NULL;
	ane_host_hreq_pm_put(rq);
	rq->fw_status = fw_status;
	rq->status = err ? err : ane_host_status_errno(fw_status);
	rq->len = min_t(u32, len, sizeof(rq->data));
	if (rq->len)
		memcpy(rq->data, data, rq->len);
	if (rq->complete)
		rq->complete(rq);
	else
		complete(&rq->done);
}

/**
 * ane_host_find() - the pending request an answer is for
 * @h: the host side, @h->lock held.
 * @src_t2h: the ring the answer came on (IO_T2H answers IO).
 * @id: the command id answered.
 * @seq: the ring index of the command.
 * @any_id: match any id (a completion event names the request only).
 *
 * Return: the request, or NULL (taken back after a timeout, or cancelled).
 */
struct ane_host_hreq *ane_host_find(struct ane_host *h, u32 src_t2h, u32 id,
				    u32 seq, bool any_id)
{
	struct ane_host_hreq *rq;

	list_for_each_entry(rq, &h->pending, node) {
		bool chan_ok = src_t2h == ANE_FW_CH_IO_T2H ?
			       rq->chan == ANE_FW_CH_IO :
			       rq->chan != ANE_FW_CH_IO;

		if (chan_ok && rq->seq == seq && (any_id || rq->id == id))
			return rq;
	}
	return NULL;
}

/*
 * After a drain moved @r's tail: did the firmware ask to hear of the space
 * (&ane_fw_ring_hdr.space_wanted)?  The caller then rings CONSUMED.
 */
static bool ane_host_space_wanted(struct ane_host_ring *r)
{
	smp_mb();	/* the new tail before the producer's request */
	if (!READ_ONCE(r->hdr->space_wanted))
		return false;
	WRITE_ONCE(r->hdr->space_wanted, 0);
	return true;
}

/**
 * ane_host_drain() - drain one firmware-to-host ring
 * @h: the host side, @h->lock held.
 * @ch: the channel.
 * @msg: called with each message whose size fits its slot.
 *
 * Return: whether the firmware asked to hear of the space; the caller then
 * rings %ANE_FW_DB_CONSUMED (outside @h->lock).
 */
bool ane_host_drain(struct ane_host *h, u32 ch, ane_host_msg_fn msg)
{
	struct ane_host_ring *r = &h->ring[ch];
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
	return any && ane_host_space_wanted(r);
}

/**
 * ane_host_cancel_all_locked() - fail everything in flight
 * @h: the host side, @h->lock held.
 * @err: the errno the requests end with.
 */
void ane_host_cancel_all_locked(struct ane_host *h, int err)
{
	struct ane_host_hreq *rq, *tmp;

	lockdep_assert_held(&h->lock);
	list_for_each_entry_safe(rq, tmp, &h->pending, node)
		ane_host_hreq_finish(rq, err, ANE_FW_ST_RESET, NULL, 0);
	/* never sent: they end as what was in flight does */
	list_for_each_entry_safe(rq, tmp, &h->backlog, node)
		ane_host_hreq_finish(rq, err, ANE_FW_ST_RESET, NULL, 0);
	h->backlog_len = 0;
}

/*
 * The host interrupt, the "host" line: the latched doorbell bits the mask
 * enables are read and acknowledged (write one to clear), then served.
 * A bit the firmware raises after the read gives the line a new edge.
 */
static irqreturn_t ane_host_irq(int irq, void *data)
{
	struct ane_host *h = data;
	unsigned long flags;
	bool consumed = false, crash = false, backlog;
	u32 bits = ane_rd(h, ANE_REG_HOST_IRQ);

	if (!bits)
		return IRQ_NONE;
	ane_wr(h, ANE_REG_HOST_IRQ_CLR, bits);

	spin_lock_irqsave(&h->lock, flags);
	h->irqs++;
	if (bits & (ANE_HOST_IRQ_T2H | ANE_HOST_IRQ_CRASH))
		consumed |= ane_host_drain(h, ANE_FW_CH_BUF_T2H,
					      ane_host_msg_dispatch);
	if (bits & ANE_HOST_IRQ_IO_T2H)
		consumed |= ane_host_drain(h, ANE_FW_CH_IO_T2H,
					      ane_host_msg_dispatch);
	if (bits & (ANE_HOST_IRQ_DEBUG | ANE_HOST_IRQ_CRASH))
		consumed |= ane_host_drain(h, ANE_FW_CH_DEBUG,
					      ane_host_dump_msg);
	if ((bits & ANE_HOST_IRQ_CRASH) && h->accepting) {
		h->accepting = false;
		h->crash_pending = true;
		crash = true;
		/* RECOVERING before anyone hears of the crash */
		ane_host_set_state(h, ANE_FW_STATE_RECOVERING);
		/*
		 * What the dead firmware had in flight ends now, with -EIO:
		 * nobody waits for the recovery, and a sender holding the
		 * gate for a load or unload lets it go at once.
		 */
		ane_host_cancel_all_locked(h, -EIO);
	}
	backlog = !list_empty(&h->backlog);
	spin_unlock_irqrestore(&h->lock, flags);

	if (consumed)
		ane_wr(h, ANE_REG_FW_DOORBELL, ANE_FW_DB_CONSUMED);
	if (bits & (ANE_HOST_IRQ_DEBUG | ANE_HOST_IRQ_CRASH | ANE_HOST_IRQ_BOOT))
		wake_up(&h->wq);
	/* A command ring has room (the firmware was asked), or never will. */
	if ((bits & (ANE_HOST_IRQ_T2H | ANE_HOST_IRQ_IO_T2H | ANE_HOST_IRQ_CRASH)) &&
	    wq_has_sleeper(&h->space_wq))
		wake_up(&h->space_wq);
	if (backlog && (bits & (ANE_HOST_IRQ_T2H | ANE_HOST_IRQ_IO_T2H)))
		mod_delayed_work(system_highpri_wq, &h->backlog_work, 0);
	if (crash)
		mod_delayed_work(system_long_wq, &h->recovery_work, 0);
	return IRQ_HANDLED;
}

/**
 * __ane_host_send() - write one command into an H2T ring
 * @h: the host side; the caller holds the gate.
 * @rq: the request, pending from now until answered.
 * @chan: the H2T channel.
 * @hdr: the header (@hdr->size bytes of @body follow).
 * @body: the body.
 *
 * Return: 0 once sent; -EINVAL for a channel that is not H2T, -EAGAIN
 * while the firmware takes no commands, -EMSGSIZE, -EBUSY with the ring
 * full (the firmware was asked to say when it has room).
 */
int __ane_host_send(struct ane_host *h, struct ane_host_hreq *rq,
		    u32 chan, const struct ane_fw_cmd_hdr *hdr,
		    const void *body)
{
	unsigned long flags;
	int ret;

	ret = ane_host_hreq_init(rq, chan, hdr);
	if (ret)
		return ret;
	spin_lock_irqsave(&h->lock, flags);
	/* behind what waits on the backlog: a full ring to this sender */
	ret = ane_host_backlog_waits(h, chan) ? -EBUSY :
	      ane_host_ring_write(h, rq, hdr, body);
	spin_unlock_irqrestore(&h->lock, flags);
	if (!ret)
		ane_wr(h, ANE_REG_FW_DOORBELL, ane_host_chan_db[chan]);
	return ret;
}

/**
 * ane_host_hreq_init() - make @rq a fresh command for @chan
 * @rq: the request.
 * @chan: the H2T channel.
 * @hdr: its header.
 *
 * Return: 0, or -EINVAL for a channel that is not H2T.
 */
int ane_host_hreq_init(struct ane_host_hreq *rq, u32 chan,
		       const struct ane_fw_cmd_hdr *hdr)
{
	if (chan >= ANE_FW_NUM_CHANNELS || ane_host_chan_dir[chan] != ANE_FW_CHAN_H2T)
		return -EINVAL;
	init_completion(&rq->done);
	INIT_LIST_HEAD(&rq->node);
	rq->chan = chan;
	rq->id = hdr->id;
	rq->status = 0;
	rq->len = 0;
	rq->deferred = NULL;
	return 0;
}

/**
 * ane_host_ring_write() - write @rq's command into its ring, if it has room
 * @h: the host side, @h->lock held; the caller rings the doorbell.
 * @rq: the request (ane_host_hreq_init()), pending once written.
 * @hdr: the header (@hdr->size bytes of @body follow).
 * @body: the body.
 *
 * Return: as __ane_host_send().
 */
int ane_host_ring_write(struct ane_host *h, struct ane_host_hreq *rq,
			const struct ane_fw_cmd_hdr *hdr, const void *body)
{
	struct ane_host_ring *r = &h->ring[rq->chan];
	u8 *slot;

	lockdep_assert_held(&h->lock);
	if (!h->accepting || !r->ok)
		return -EAGAIN;
	if (hdr->size > r->slot_size - sizeof(*hdr))
		return -EMSGSIZE;
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
	trace_ane_fw_cmd(h->dev, rq->chan, hdr->id, rq->seq, hdr->size);
	return 0;
}

/* May a sender waiting on @chan try again: room, or no firmware to wait for. */
static bool ane_host_can_send(struct ane_host *h, u32 chan)
{
	struct ane_host_ring *r = &h->ring[chan];
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&h->lock, flags);
	ok = !h->accepting || !r->ok ||
	     r->idx - READ_ONCE(r->hdr->tail) < r->nslots;
	spin_unlock_irqrestore(&h->lock, flags);
	return ok;
}

/* ane_host_send_wait() past the power-up, until @end (jiffies). */
static int __ane_host_send_wait(struct ane_host *h, bool gated,
				struct ane_host_hreq *rq, u32 chan,
				const struct ane_fw_cmd_hdr *hdr,
				const void *body, unsigned long end)
{
	long left;
	int ret;

	for (;;) {
		if (gated)
			down_read(&h->gate);
		ret = __ane_host_send(h, rq, chan, hdr, body);
		if (gated)
			up_read(&h->gate);
		if (ret != -EBUSY)
			return ret;
		left = (long)(end - jiffies);
		if (left <= 0)
			return -EBUSY;
		wait_event_timeout(h->space_wq, ane_host_can_send(h, chan),
				   min_t(long, left,
					 msecs_to_jiffies(ANE_HOST_SPACE_POLL_MS)));
	}
}

/**
 * ane_host_send_wait() - send, waiting for room in a full ring
 * @h: the host side.
 * @gated: take the gate for each attempt (else the caller holds it).
 * @rq: the request.
 * @chan: the H2T channel.
 * @hdr: the header.
 * @body: the body.
 * @timeout_ms: how long to wait for room.
 *
 * The firmware interrupts when it consumed a slot of a ring the host found
 * full, and the sender looks again every %ANE_HOST_SPACE_POLL_MS
 * anyway.  With @gated the gate is held for each attempt only, never while
 * waiting.  Bounded: -EBUSY once the time is up.  With @gated it first
 * powers the engine up (runtime PM; see Documentation/accel/ane/power.rst).
 *
 * Return: as __ane_host_send(); or the error of a resume that failed.
 */
int ane_host_send_wait(struct ane_host *h, bool gated,
		       struct ane_host_hreq *rq, u32 chan,
		       const struct ane_fw_cmd_hdr *hdr, const void *body,
		       unsigned int timeout_ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	int ret;

	/*
	 * A sender through the gate powers the engine up first (outside
	 * the gate: the resume boots under it) and hands its reference to
	 * @rq once it is pending.  Boot and recovery send without the gate
	 * on an engine that is up.
	 */
	rq->pm_dev = NULL;
	if (gated) {
		ret = ane_host_pm_get(h);
		if (ret)
			return ret;
		/* set before it can be pending: its end drops the reference */
		rq->pm_dev = h->pm_dev;
	}
	ret = __ane_host_send_wait(h, gated, rq, chan, hdr, body, end);
	if (ret && rq->pm_dev) {	/* never pending: drop it here */
		rq->pm_dev = NULL;
		ane_host_pm_put(h);
	}
	return ret;
}

/**
 * ane_host_send() - send a command; the answer completes @rq
 * @h: the host side.
 * @rq: the request; set @rq->complete for an asynchronous answer.
 * @chan: ANE_FW_CH_BUF_H2T, _IO or _DATA_CHAIN_H2T.
 * @hdr: the header (@hdr->size bytes of @body follow).
 * @body: the body.
 *
 * A full ring is waited out, up to %ANE_HOST_SEND_WAIT_MS.
 *
 * Return: 0 once sent; -EAGAIN while the firmware is not ready (booting,
 * recovering or dead), -EBUSY when the ring stayed full, -EMSGSIZE.
 */
int ane_host_send(struct ane_host *h, struct ane_host_hreq *rq, u32 chan,
		  const struct ane_fw_cmd_hdr *hdr, const void *body)
{
	return ane_host_send_wait(h, true, rq, chan, hdr, body,
				     ANE_HOST_SEND_WAIT_MS);
}

/* ------------------------------------------------------------- lifetime */

/**
 * ane_host_setup() - attach to the hardware; memory must be set already
 * @h: zeroed host side with @shared_va/@shared_iova/@shared_size and
 *	@heap_iova/@heap_size filled in.
 * @dev: the device.
 * @regs: the register banks (copied).
 * @boot_addr: the reset vector to boot the controller at.
 * @irq: the host interrupt line, requested here.
 * @fw_state: where to publish the firmware state.
 *
 * The controller stays in reset until the boot.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_setup(struct ane_host *h, struct device *dev,
		   struct regmap *const regs[ANE_NUM_BANKS], u64 boot_addr,
		   int irq, atomic_t *fw_state)
{
	int ret;

	h->dev = dev;
	h->fw_state = fw_state;
	init_rwsem(&h->gate);
	spin_lock_init(&h->lock);
	INIT_LIST_HEAD(&h->pending);
	INIT_LIST_HEAD(&h->backlog);
	INIT_DELAYED_WORK(&h->backlog_work, ane_host_backlog_work);
	init_waitqueue_head(&h->wq);
	init_waitqueue_head(&h->space_wq);
	mutex_init(&h->dwp_lock);
	mutex_init(&h->res_lock);
	mutex_init(&h->stale_lock);
	INIT_LIST_HEAD(&h->residents);
	INIT_DELAYED_WORK(&h->recovery_work, ane_host_recover);
	h->dump = kzalloc(ANE_HOST_DUMP_MAX, GFP_KERNEL);
	if (!h->dump)
		return -ENOMEM;
	memcpy(h->regs, regs, sizeof(h->regs));
	h->boot_addr = boot_addr;
	/* In reset, its interrupts masked, until the boot. */
	ane_wr(h, ANE_REG_CPU_CTRL, 0);
	ane_wr(h, ANE_REG_HOST_IRQ_MASK, 0);
	ane_wr(h, ANE_REG_HOST_IRQ_CLR, ~0u);
	h->irq = irq;
	snprintf(h->irq_name, sizeof(h->irq_name), "%s:%s", dev_name(dev),
		 ANE_IRQ_HOST);
	ret = request_irq(irq, ane_host_irq, 0, h->irq_name, h);
	if (ret) {
		memset(h->regs, 0, sizeof(h->regs));
		kfree(h->dump);
		h->dump = NULL;
		return ret;
	}
	ane_host_set_state(h, ANE_FW_STATE_OFF);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ane_host_setup);

/**
 * ane_host_teardown() - halt the controller, fail what is in flight
 * @h: the host side.
 */
void ane_host_teardown(struct ane_host *h)
{
	disable_delayed_work_sync(&h->recovery_work);
	/* outside the gate, which the work takes; its backlog fails below */
	disable_delayed_work_sync(&h->backlog_work);
	down_write(&h->gate);
	spin_lock_irq(&h->lock);
	h->accepting = false;
	spin_unlock_irq(&h->lock);
	/* Reset: the controller's thread is gone after, and raises nothing. */
	ane_wr(h, ANE_REG_CPU_CTRL, 0);
	ane_wr(h, ANE_REG_HOST_IRQ_MASK, 0);
	free_irq(h->irq, h);
	memset(h->regs, 0, sizeof(h->regs));
	ane_host_cancel_all(h, -ENODEV);
	ane_host_set_state(h, ANE_FW_STATE_OFF);
	kfree(h->dump);
	h->dump = NULL;
	kfree(h->dump_text);
	h->dump_text = NULL;
	up_write(&h->gate);
	ane_dwp_fini(h);
}
EXPORT_SYMBOL_IF_KUNIT(ane_host_teardown);

/* ------------------------------------------------------ at probe */

/* Unbind: the controller stops with the binding; @h lives with the drm. */
static void ane_host_fini_action(void *data)
{
	struct ane_host *h = data;

	ane_host_teardown(h);
	ane_kbuf_free(h->adev, &h->heap);
	ane_kbuf_free(h->adev, &h->shared);
}

/**
 * ane_host_init() - attach, power on and boot the firmware at probe
 * @adev: the device, DART initialised, not yet registered.
 *
 * A firmware that does not boot leaves the device up, the boot tried again
 * later as a recovery would (GetStatus says RECOVERING meanwhile); only a
 * failure to set up the hardware fails probe.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_init(struct ane_device *adev)
{
	struct device *dev = adev->drm.dev;
	struct ane_host *h;
	int ret;

	h = drmm_kzalloc(&adev->drm, sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->adev = adev;
	ret = ane_kbuf_alloc(adev, ANE_HOST_SHARED_SIZE, ANE_USAGE_FW_SHARED,
			     &h->shared);
	if (ret)
		return ret;
	ret = ane_kbuf_alloc(adev, ANE_HOST_HEAP_SIZE, ANE_USAGE_FW_HEAP,
			     &h->heap);
	if (ret) {
		ane_kbuf_free(adev, &h->shared);
		return ret;
	}
	h->shared_va = h->shared.vaddr;
	h->shared_iova = h->shared.iova;
	h->shared_size = h->shared.size;
	h->heap_iova = h->heap.iova;
	h->heap_size = h->heap.size;

	ret = ane_host_setup(h, dev, adev->regs, adev->boot_addr,
			     adev->host_irq, &adev->fw_state);
	if (ret) {
		ane_kbuf_free(adev, &h->heap);
		ane_kbuf_free(adev, &h->shared);
		return ret;
	}
	ret = devm_add_action_or_reset(dev, ane_host_fini_action, h);
	if (ret)
		return ret;
	adev->fwh = h;
	ane_host_debugfs_init(h, adev->drm.debugfs_root);

	down_write(&h->gate);
	if (ane_host_boot(h, false))
		ane_host_boot_later(h);
	up_write(&h->gate);
	return 0;
}
