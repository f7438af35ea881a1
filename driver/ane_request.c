// SPDX-License-Identifier: GPL-2.0-only
/*
 * Requests, running: ProgramSendRequest (selector 2 of both spaces) and
 * the life of the request it starts, from submission to release.
 *
 * A request runs one procedure of a prepared program (driver/ane_program.c).
 * It counts against the firmware's per-process pool of 127 requests (the
 * client context's, ane_request_pool_get()) from the start; it is built
 * under the client's program lock (ane_request_build.c: validation,
 * surfaces, mapping, bars, arming, the procedure call), then, unlocked,
 * submitted -- or parked in the line for a DART slot, when a dispatcher
 * sends it.  Completion arrives from the firmware as a program event: the
 * request's pins drop, then its fence is signalled and the DRM event
 * queued on the file, all in the completion itself; a batched reaper
 * drops its references afterwards.  A request holds references to its
 * file, program and surfaces, so closing the file never waits for it.
 *
 * A request may wait for fences (ANE_SURFACE_IN_SYNCOBJ) and for the
 * client's shared event: each is a wait record of its procedure call, and
 * the firmware holds the call until the record's event is signaled.  The
 * driver never waits: a callback on each fence relays its end to the
 * firmware (EVENT_SIGNAL, driver/ane_event.c) from a work item.  Closing
 * the file cancels the waits not yet ended, and so does wait_timeout_ms
 * (as -ETIMEDOUT); a firmware reset cancels the calls.  The waits are
 * ane_request_wait.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/bitops.h>
#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/llist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_host.h"
#include "ane_host_msg.h"
#include "ane_program.h"
#include "ane_selector.h"
#include "ane_trace.h"
#include "firmware/spec/ane_fw_abi.h"
#include "ane_request_internal.h"

static const char *ane_fence_driver_name(struct dma_fence *f)
{
	return ANE_DRIVER_NAME;
}

static const char *ane_fence_timeline_name(struct dma_fence *f)
{
	return "ane-requests";
}

static void ane_fence_release(struct dma_fence *f)
{
	kfree(container_of(f, struct ane_request, fence));
}

static const struct dma_fence_ops ane_fence_ops = {
	.get_driver_name = ane_fence_driver_name,
	.get_timeline_name = ane_fence_timeline_name,
	.release = ane_fence_release,
};

/**
 * ane_request_pool_get() - count one more request outstanding on @ctx
 * @ctx: the client's DART context.
 *
 * The firmware's per-process pool holds 127 requests (ch. 28); the
 * context counts its requests against it (&ane_dart_ctx.requests), one
 * each however many mappings a request pins, and a context with
 * outstanding requests keeps its slot.
 *
 * Return: 0, or -ENOBUFS when %ANE_DART_MAX_INFLIGHT are outstanding.
 */
int ane_request_pool_get(struct ane_dart_ctx *ctx)
{
	int ret = 0;

	mutex_lock(&ctx->lock);
	if (!atomic_add_unless(&ctx->requests, 1, ANE_DART_MAX_INFLIGHT))
		ret = -ENOBUFS;
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * ane_request_pool_put() - a request of ane_request_pool_get() ended
 * @ctx: the client's DART context.
 *
 * Context: any, including atomic (a request's completion).
 */
void ane_request_pool_put(struct ane_dart_ctx *ctx)
{
	int left = atomic_dec_if_positive(&ctx->requests);

	WARN_ON_ONCE(left < 0);
	/* idle once what is left is parked (its slot may go to the line) */
	if (left >= 0 && left <= atomic_read(&ctx->parked))
		ane_dart_ctx_went_idle(ctx);
}

/*
 * Unpin what the request used and tell userspace: the pins and the
 * program's in-flight count drop before the fence and the DRM event, so a
 * client that saw the completion finds the program idle.  Any context.
 */
static void ane_request_unpin(struct ane_request *rq)
{
	u32 i;

	for (i = 0; i < rq->nmaps; i++)
		ane_dart_unuse(rq->maps[i]);
	atomic_dec(&ane_program_code(rq->prog)->inflight);
	ane_request_pool_put(rq->ctx);
}

/* Drop the request's references.  Process context. */
static void ane_request_put(struct ane_request *rq)
{
	struct ane_file *af = rq->af;
	u32 i;

	ane_request_waits_end(rq);
	for (i = 0; i < rq->nbos; i++)
		drm_gem_object_put(rq->bos[i]);
	ane_file_surfaces_reap(af);
	ane_program_put(rq->prog);
	ane_file_put(af);
	dma_fence_put(&rq->fence);
}

/*
 * Completed requests are released in batches, off the completion path: a
 * completion only queues the request here, and the reaper, run a tick
 * later or as soon as ANE_REAP_BATCH are queued, drops the references of
 * every request queued meanwhile.  The client has heard of each
 * completion already; what waits is the memory.  The bound keeps a batch
 * short: a tick's worth of back-to-back requests (hundreds) took the
 * reaper 0.3-1.5 ms, which the requests it ran beside paid for.
 */
#define ANE_REAP_BATCH	32

static LLIST_HEAD(ane_reap_list);
static atomic_t ane_reap_queued;

static void ane_request_reaper(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&ane_reap_list);
	struct ane_request *rq, *tmp;
	int n = 0;

	llist_for_each_entry_safe(rq, tmp, list, reap) {
		ane_request_put(rq);
		n++;
	}
	atomic_sub(n, &ane_reap_queued);
}

static DECLARE_DELAYED_WORK(ane_reap_work, ane_request_reaper);

/**
 * ane_requests_drain() - release every completed request now
 *
 * At module exit, once no device is left to complete one.
 */
void ane_requests_drain(void)
{
	cancel_delayed_work_sync(&ane_reap_work);
	ane_request_reaper(NULL);
}

/*
 * The firmware's program event (or a cancellation) completed the request.
 * Called under the firmware host's spinlock: no sleeping, no sending.  The
 * client hears of it here, directly; only the reference drops wait for
 * the work item.
 */
static void ane_request_complete(struct ane_host_hreq *hreq)
{
	struct ane_request *rq = container_of(hreq, struct ane_request, hreq);
	const struct ane_fw_program_event *pe = (const void *)hreq->data;
	struct ane_file *af = rq->af;
	int status = hreq->status;

	/* A translation fault reads -EFAULT from the firmware's status. */
	if (status == -EFAULT)
		status = -ENXIO;
	/* cancelled for a fence that failed: that fence's error */
	if (status == -ECANCELED && READ_ONCE(rq->wait_error))
		status = READ_ONCE(rq->wait_error);
	/* no longer one of the device's waiting requests */
	ane_request_unhold(af, rq);
	rq->event->ev.status = status;
	if (hreq->len >= sizeof(*pe)) {
		rq->event->ev.exec_ns = pe->exec_ns;
		atomic64_add(pe->exec_ns, &af->engine_ns);
		atomic64_add(pe->exec_ns, &af->adev->engine_ns);
	}
	trace_ane_complete(af->adev->drm.dev, rq->fence.seqno, status, rq->event->ev.exec_ns);

	ane_request_unpin(rq);
	if (status)
		dma_fence_set_error(&rq->fence, status);
	dma_fence_signal(&rq->fence);
	atomic64_inc(&af->completed);
	drm_send_event(&af->adev->drm, &rq->event->base);
	if (llist_add(&rq->reap, &ane_reap_list))
		queue_delayed_work(ane_wq, &ane_reap_work, 1);
	if (atomic_inc_return(&ane_reap_queued) == ANE_REAP_BATCH)
		mod_delayed_work(ane_wq, &ane_reap_work, 0);
}

/**
 * ane_request_fence_init() - start a request's fence
 * @adev: the device, whose fence context the fence is on.
 * @rq: the request; completed by its program event (ane_request_complete()).
 */
void ane_request_fence_init(struct ane_device *adev, struct ane_request *rq)
{
	dma_fence_init(&rq->fence, &ane_fence_ops, &adev->fence_lock,
		       adev->fence_ctx, atomic64_inc_return(&adev->fence_seq));
	rq->hreq.complete = ane_request_complete;
}

/*
 * Step 6, submission: send the call on the I/O channel; its program event
 * completes the request (ane_request_complete()).  A call never sent
 * fails the fence, drops the event and releases the request here.
 */
static int ane_request_submit(struct ane_file *af, struct ane_request *rq,
			      const struct ane_fw_cmd_hdr *hdr,
			      const struct ane_fw_proc_call *call)
{
	int ret;

	ret = ane_host_msg_proc_call(ane_host(af), &rq->hreq, hdr, call);
	if (ret) {
		/* Never sent: fail the fence, drop the event, release now. */
		ane_request_unpin(rq);
		dma_fence_set_error(&rq->fence, ret);
		dma_fence_signal(&rq->fence);
		drm_event_cancel_free(&af->adev->drm, &rq->event->base);
		ane_request_put(rq);
	} else {
		atomic64_inc(&af->submitted);
	}
	return ret;
}

/*
 * The dispatcher bound a parked request's context to @slot (or gave up,
 * @slot < 0): name the slot in its bars and send it.  The client was told
 * of the request already, so one that cannot be sent completes with an
 * errno as its status, as a request the firmware fails does.  Process
 * context.
 */
static void ane_request_parked_run(struct ane_dart_waiter *w, int slot)
{
	struct ane_request *rq = container_of(w, struct ane_request, park);
	struct ane_fw_proc_call *call = rq->park_call;
	struct ane_fw_bar *bars = (struct ane_fw_bar *)(call + 1);
	struct ane_file *af = rq->af;
	int ret = slot, idx;
	u32 i;

	/* the request's own reference may go with its completion */
	ane_file_get(af);
	rq->park_call = NULL;
	/*
	 * Unplugged, the device is gone for the request as for one in
	 * flight then (-ENODEV); nothing may reach the firmware any more,
	 * which is about to be halted (ane_dart_detach()): a dispatcher
	 * runs outside any selector's drm_dev_enter() (from a work item, or
	 * from a completion's context going idle).
	 */
	if (slot >= 0 && !drm_dev_enter(&af->adev->drm, &idx)) {
		ret = -ENODEV;
	} else if (slot >= 0) {
		for (i = 0; i < call->nbr_custom_bars; i++)
			if (bars[i].sid == ANE_REQ_SID_PARKED)
				bars[i].sid = slot;
		ret = ane_host(af) ? ane_host_msg_proc_call(ane_host(af), &rq->hreq,
							    &rq->park_hdr, call) : -ENODEV;
		drm_dev_exit(idx);
	}
	kfree(call);
	/*
	 * The firmware booting or recovering: to the client, whose request
	 * was accepted, that is a reset while it was outstanding (-EIO, to
	 * be sent again once the device is READY), as for one in flight.
	 */
	if (ret == -EAGAIN)
		ret = -EIO;
	if (ret) {
		rq->hreq.status = ret;
		rq->hreq.len = 0;
		local_irq_disable();
		ane_request_complete(&rq->hreq);
		local_irq_enable();
	} else {
		atomic64_inc(&af->submitted);
		ane_hint_run_started(af);
	}
	ane_file_put(af);
}

static_assert(ANE_IMG_MAX_EXEC_ORDER <= ANE_FW_MAX_EXEC_ORDER);

static void ane_req_put_syncobjs(struct ane_req_build *rb)
{
	u32 i;

	for (i = 0; i < rb->nsync; i++)
		if (rb->syncobjs[i])
			drm_syncobj_put(rb->syncobjs[i]);
}

/* The request and its call: room for the bars and the order or events. */
static int ane_request_alloc(struct ane_dart_ctx *ctx, struct ane_request **rqp,
			     struct ane_fw_proc_call **callp)
{
	struct ane_request *rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	/*
	 * The call, its bars, and its execute order or events (with waits
	 * and no signal, one signal: the request's completion).
	 */
	struct ane_fw_proc_call *call =
		kmalloc(sizeof(*call) + ANE_IMG_MAX_BARS * sizeof(struct ane_fw_bar) +
			max((ANE_REQ_MAX_EVENTS + 1) * sizeof(struct ane_fw_event),
			    ANE_IMG_MAX_EXEC_ORDER * sizeof(u32)),
			GFP_KERNEL);

	if (!rq || !call) {
		kfree(rq);
		kfree(call);
		return -ENOMEM;
	}
	rq->ctx = ctx;
	INIT_WORK(&rq->wait_work, ane_request_wait_work);
	INIT_DELAYED_WORK(&rq->wait_timeout, ane_request_wait_timeout);
	INIT_LIST_HEAD(&rq->wait_node);
	*rqp = rq;
	*callp = call;
	return 0;
}

/* A request that was never armed: what the caller of the build holds. */
static void ane_request_free(struct ane_request *rq, struct ane_req_build *rb,
			     struct ane_fw_proc_call *call)
{
	u32 i;

	ane_req_put_syncobjs(rb);
	for (i = 0; i < rq->nbos; i++)
		drm_gem_object_put(rq->bos[i]);
	kfree(rq);
	kfree(call);
}

/*
 * Shared selector 2 of both spaces: a count in the client's pool, the
 * request built (ane_request_build()), then sent or parked.
 */
int ane_sel_send_request(struct ane_file *af, const struct ane_selector *sel,
			 void *args)
{
	struct drm_ane_send_request *sr = args;
	const struct drm_ane_request *in = &sr->in;
	struct ane_req_build rb = { };
	struct ane_fw_proc_call *call;
	struct ane_fw_cmd_hdr hdr;
	struct ane_dart_ctx *ctx;
	struct ane_request *rq;
	int ret;

	if (sr->doorbell >= ANE_MAX_DOORBELL)
		return -EINVAL;
	if (!ane_host(af))
		return -ENODEV;
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* One of the client's 127, whatever it pins; before the queue depth. */
	ret = ane_request_pool_get(ctx);
	if (ret)
		return ret;
	ret = ane_request_alloc(ctx, &rq, &call);
	if (ret) {
		ane_request_pool_put(ctx);
		return ret;
	}
	ret = ane_request_build(af, rq, in, &rb, &hdr, call);
	if (ret) {
		ane_request_free(rq, &rb, call);
		ane_request_pool_put(ctx);
		return ret;
	}

	memset(&sr->out, 0, sizeof(sr->out));
	sr->out.sequence = in->sequence;
	sr->out.token = in->token;
	sr->out.seqno = rq->fence.seqno;

	trace_ane_submit(af->drm_file, in, rq->fence.seqno, rb.nbars);
	if (rb.park) {
		/* the dispatcher sends it (ane_request_parked_run()) */
		rq->park_hdr = hdr;
		rq->park_call = call;
		ane_req_put_syncobjs(&rb);
		ane_dart_park(ctx, rq->nmaps, &rq->park, ane_request_parked_run);
		return 0;
	}
	ret = ane_request_submit(af, rq, &hdr, call);
	ane_req_put_syncobjs(&rb);
	kfree(call);
	if (!ret)
		ane_hint_run_started(af);
	/* parked requests of others that can start now (ane_dart_park()) */
	ane_dart_dispatch(ctx->dart);
	return ret;
}
