// SPDX-License-Identifier: GPL-2.0-only
/*
 * Requests: their wait events.  A request names fences (IN_SYNCOBJ) and
 * the client's shared event; each fence not yet signaled takes a
 * firmware event slot and becomes a wait record of the procedure call,
 * and a callback on the fence relays its end to the firmware
 * (EVENT_SIGNAL, driver/ane_event.c) from a work item, failed if the
 * fence failed.  Closing the file, and wait_timeout_ms, cancel the waits
 * not yet ended.  The rest of a request is ane_request.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/bitops.h>
#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/llist.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_event.h"
#include "ane_host.h"
#include "ane_host_msg.h"
#include "ane_gem.h"
#include "ane_program.h"
#include "ane_selector.h"
#include "ane_trace.h"
#include "firmware/spec/ane_fw_abi.h"
#include "ane_request_internal.h"

/*
 * How long a request waits for its fences before they count as failed
 * with -ETIMEDOUT (0: no bound).  Read when the request is sent.
 */
static unsigned int ane_wait_timeout_ms = 10000;
module_param_named(wait_timeout_ms, ane_wait_timeout_ms, uint, 0644);
MODULE_PARM_DESC(wait_timeout_ms,
		 "ms a request waits for its IN_SYNCOBJ fences before failing with -ETIMEDOUT (0: no bound; default 10000)");

/*
 * @w's fence ended with @error (or the file closed: -ECANCELED): have
 * the work item tell the firmware.  Any context (the fence's lock held).
 */
static void ane_request_wait_fire(struct ane_req_wait *w, int error)
{
	struct ane_request *rq = w->rq;

	w->error = error;
	smp_mb__before_atomic();	/* @error before the bit */
	atomic_or(BIT(w - rq->waits), &rq->wait_fired);
	queue_work(system_wq, &rq->wait_work);
}

static void ane_request_wait_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	ane_request_wait_fire(container_of(cb, struct ane_req_wait, cb),
			      f->error);
}

/*
 * Relay each ended wait to the firmware: its slot reaches the record's
 * value, failed if the fence failed.  A send that fails finds the
 * firmware down, whose recovery cancels the call.
 */
void ane_request_wait_work(struct work_struct *work)
{
	struct ane_request *rq = container_of(work, struct ane_request,
					      wait_work);
	unsigned long fired = atomic_xchg(&rq->wait_fired, 0);
	struct ane_req_wait *w;
	u32 i;

	for_each_set_bit(i, &fired, rq->nwait) {
		w = &rq->waits[i];
		if (w->error)
			cmpxchg(&rq->wait_error, 0, w->error);
		ane_event_signal(ane_host(rq->af), w->slot, w->value,
				 w->error != 0);
	}
}

/* Each wait of @rq not ended yet ends now, failed with @error. */
static void ane_request_waits_cancel(struct ane_request *rq, int error)
{
	u32 i;

	for (i = 0; i < rq->nwait; i++)
		if (dma_fence_remove_callback(rq->waits[i].fence,
					      &rq->waits[i].cb))
			ane_request_wait_fire(&rq->waits[i], error);
}

/* wait_timeout_ms passed: the fences not ended fail the request. */
void ane_request_wait_timeout(struct work_struct *work)
{
	ane_request_waits_cancel(container_of(to_delayed_work(work),
					      struct ane_request, wait_timeout),
				 -ETIMEDOUT);
}

/* Drop the waits' fences and slots (no callback added, or all removed). */
void ane_request_waits_release(struct ane_device *adev,
			       struct ane_request *rq)
{
	u32 i;

	for (i = 0; i < rq->nwait; i++) {
		dma_fence_put(rq->waits[i].fence);
		ane_event_slot_put(adev, rq->waits[i].slot);
	}
	rq->nwait = 0;
}

/**
 * ane_request_unhold() - the request no longer holds a firmware call
 * @af: its client.
 * @rq: the request.
 *
 * Drops what ane_request_waits_get() counted: one of the client's
 * %ANE_FILE_MAX_WAITING and one of the device's %ANE_DEV_MAX_WAITING.
 * At the completion (any context) or when the request is released
 * unsent.
 */
void ane_request_unhold(struct ane_file *af, struct ane_request *rq)
{
	if (!rq->held)
		return;
	atomic_dec(&af->adev->events.held);
	atomic_dec(&af->held);
	rq->held = false;
}

/*
 * Past the last failure: listed on the file (for its close), a callback
 * on each fence; one that ended meanwhile is relayed at once.
 */
void ane_request_waits_start(struct ane_file *af, struct ane_request *rq)
{
	struct ane_req_wait *w;
	u32 i;

	if (!rq->nwait)
		return;
	rq->waits_armed = true;
	spin_lock(&af->wait_lock);
	list_add_tail(&rq->wait_node, &af->waits);
	spin_unlock(&af->wait_lock);
	for (i = 0; i < rq->nwait; i++) {
		w = &rq->waits[i];
		if (dma_fence_add_callback(w->fence, &w->cb, ane_request_wait_cb))
			ane_request_wait_fire(w, w->fence->error);
	}
	if (READ_ONCE(ane_wait_timeout_ms))
		queue_delayed_work(system_wq, &rq->wait_timeout,
				   msecs_to_jiffies(READ_ONCE(ane_wait_timeout_ms)));
}

/* The request ended: no callback or relay runs any more.  Process context. */
void ane_request_waits_end(struct ane_request *rq)
{
	struct ane_file *af = rq->af;
	u32 i;

	if (rq->nwait) {
		spin_lock(&af->wait_lock);
		list_del(&rq->wait_node);
		spin_unlock(&af->wait_lock);
	}
	/*
	 * Nothing to cancel for a request without waits, most of them: the
	 * two syncs cost about half a request's release, which the reaper
	 * pays for a batch at a time.
	 */
	if (rq->waits_armed) {
		cancel_delayed_work_sync(&rq->wait_timeout);
		for (i = 0; i < rq->nwait; i++)
			dma_fence_remove_callback(rq->waits[i].fence, &rq->waits[i].cb);
		cancel_work_sync(&rq->wait_work);
	}
	ane_request_unhold(af, rq);
	ane_request_waits_release(af->adev, rq);
}

/**
 * ane_request_file_fini() - the file closes: its requests stop waiting
 * @af: the client.
 *
 * Each wait whose fence has not ended is cancelled: the firmware ends its
 * call with -ECANCELED instead of holding it for a fence that may never
 * signal.  The requests then complete and are released as any other.
 */
void ane_request_file_fini(struct ane_file *af)
{
	struct ane_request *rq;

	spin_lock(&af->wait_lock);
	list_for_each_entry(rq, &af->waits, wait_node)
		ane_request_waits_cancel(rq, -ECANCELED);
	spin_unlock(&af->wait_lock);
}

/*
 * The wait records: one per IN_SYNCOBJ whose fence has not signaled (a
 * fence that signaled without error is no wait), with an event slot each;
 * then the shared event.  The fences and slots go to @rq.  A syncobj that
 * names no fence: -EINVAL; the device holding %ANE_DEV_MAX_WAITING calls
 * with wait records: -EBUSY.
 */
int ane_request_waits_get(struct ane_file *af, struct ane_request *rq,
			  struct ane_req_build *rb)
{
	struct drm_syncobj *obj;
	struct dma_fence *fence;
	struct ane_req_wait *w;
	u32 i;
	int ret;

	for (i = 0; i < rb->nin; i++) {
		obj = drm_syncobj_find(af->drm_file, rb->in_handles[i]);
		if (!obj)
			return -ENOENT;
		fence = drm_syncobj_fence_get(obj);
		drm_syncobj_put(obj);
		if (!fence)
			return -EINVAL;
		if (dma_fence_get_status(fence) == 1) {
			dma_fence_put(fence);
			continue;
		}
		w = &rq->waits[rq->nwait];
		ret = ane_event_slot_get(af->adev, &w->slot, &w->value);
		if (ret) {
			dma_fence_put(fence);
			return ret;
		}
		w->fence = fence;
		w->rq = rq;
		rq->nwait++;
		rb->wrec[rb->nwrec++] = (struct ane_fw_event){
			.type = ANE_FW_EVENT_WAIT, .target_mask = 1,
			.id = w->slot, .value = w->value };
	}
	if (rb->shared_id) {
		ret = ane_event_shared_wait(af, rb->shared_id, &rb->wrec[rb->nwrec]);
		if (ret)
			return ret;
		rb->nwrec++;
	}
	/*
	 * A held call keeps a firmware request object; the firmware's IO ring
	 * waits when they are all taken, so held calls get at most half, and
	 * one client at most half of those.
	 */
	if (rb->nwrec) {
		if (atomic_inc_return(&af->held) > ANE_FILE_MAX_WAITING) {
			atomic_dec(&af->held);
			return -EDQUOT;
		}
		if (atomic_inc_return(&af->adev->events.held) > ANE_DEV_MAX_WAITING) {
			atomic_dec(&af->adev->events.held);
			atomic_dec(&af->held);
			return -EBUSY;
		}
		rq->held = true;
	}
	return 0;
}
