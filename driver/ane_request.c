// SPDX-License-Identifier: GPL-2.0-only
/*
 * Requests: ProgramSendRequest (selector 2 of both spaces) and the life of
 * the request it starts, from submission to release.
 *
 * A request runs one procedure of a prepared program (driver/ane_program.c).
 * Sending one goes in steps, a function each, under the client's program
 * lock: validate the request and look up its surfaces; map the surfaces
 * into the client's isolation context and pin every mapping the call
 * names; bind the context to a stream and fill a custom bar for each bar
 * of the image; build the procedure call; reserve the DRM event and start
 * the fence.  Then, unlocked, it is submitted.  Completion arrives from
 * the firmware as a program event: the request's pins drop, then its
 * fence is signalled and the DRM event queued on the file, all in the
 * completion itself; a batched reaper drops its references afterwards.  A
 * request holds references to its file, program and surfaces, so closing
 * the file never waits for it.
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
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
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

/* IN, OUT syncobjs and the shared event of a request: its events. */
static u32 ane_req_events(const struct ane_req_build *rb)
{
	return rb->nsync + rb->nin + !!rb->shared_id;
}

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
	ane_dart_request_put(rq->ctx);
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

/* The surface's pinned mapping for the request; 0 or an errno. */
static int ane_request_map(struct ane_request *rq, struct ane_file *af,
			   struct drm_gem_object *obj, u32 usage, u8 prot)
{
	struct ane_dart_mapping *map;

	map = ane_file_surface_map(af, obj, usage, prot);
	if (IS_ERR(map))
		return PTR_ERR(map);
	rq->maps[rq->nmaps++] = map;
	return 0;
}

/* Pin a program's own mapping; one the DART evicted is placed again. */
static int ane_request_pin(struct ane_request *rq, struct ane_dart_mapping *map)
{
	int ret = ane_dart_use_placed(map);

	if (!ret)
		rq->maps[rq->nmaps++] = map;
	return ret;
}

/*
 * Parse and look up the request's surfaces into @rb; the references go
 * to @rq->bos.
 */
static int ane_request_surfaces(struct ane_file *af, struct ane_request *rq,
				const struct drm_ane_request *in,
				struct ane_req_build *rb)
{
	u32 i, nin = 0, nout = 0;

	for (i = 0; i < ANE_REQ_MAX_SURFACES; i++) {
		const struct drm_ane_surface_ref *r = &in->surfaces[i];
		struct drm_gem_object **slot;

		if (!r->handle) {
			if (memchr_inv(&in->surfaces[i], 0,
				       (ANE_REQ_MAX_SURFACES - i) * sizeof(*r)))
				return -EINVAL;
			break;
		}
		if (r->reserved)
			return -EINVAL;
		switch (r->kind) {
		case ANE_SURFACE_INPUT:
			if (r->bar >= rb->pr->num_inputs || rb->in[r->bar])
				return -EINVAL;
			slot = &rb->in[r->bar];
			nin++;
			break;
		case ANE_SURFACE_OUTPUT:
			if (r->bar >= rb->pr->num_outputs || rb->out[r->bar])
				return -EINVAL;
			slot = &rb->out[r->bar];
			nout++;
			break;
		case ANE_SURFACE_INTERMEDIATE:
			if (r->bar || rb->inter)
				return -EINVAL;
			slot = &rb->inter;
			break;
		case ANE_SURFACE_OUT_SYNCOBJ:
		case ANE_SURFACE_IN_SYNCOBJ:
		case ANE_SURFACE_IN_SHARED_EVENT:
			if (r->bar)
				return -EINVAL;
			/* wait + signal events: at most 16 (Table 30.3) */
			if (ane_req_events(rb) == ANE_REQ_MAX_EVENTS)
				return -E2BIG;
			if (r->kind == ANE_SURFACE_OUT_SYNCOBJ) {
				rb->syncobj_handles[rb->nsync++] = r->handle;
			} else if (r->kind == ANE_SURFACE_IN_SYNCOBJ) {
				rb->in_handles[rb->nin++] = r->handle;
			} else {
				if (rb->shared_id)
					return -EINVAL;
				rb->shared_id = r->handle;
			}
			continue;
		default:
			return -EINVAL;
		}
		if (rq->nbos == ARRAY_SIZE(rq->bos))
			return -EINVAL;
		*slot = drm_gem_object_lookup(af->drm_file, r->handle);
		if (!*slot)
			return -ENOENT;
		rq->bos[rq->nbos++] = *slot;
	}
	return nin == rb->pr->num_inputs && nout == rb->pr->num_outputs ? 0 : -EINVAL;
}

/* Fill the custom bar of image bar @b; 0, or -EINVAL for a short surface. */
static int ane_request_bar(const struct ane_req_build *rb,
			   const struct ane_img_bar *b, u32 sid,
			   struct ane_fw_bar *fb)
{
	const struct ane_program *code = rb->code;
	struct ane_dart_mapping *m = NULL;

	fb->type = ANE_CUSTOM_BAR_GENERIC;
	fb->config = ANE_CUSTOM_BAR_HW_32BIT;
	fb->bar_id = b->slot;
	fb->sid = sid;
	switch (b->usage) {
	case ANE_USAGE_INPUT:
		m = rb->maps[b->io_index];
		break;
	case ANE_USAGE_OUTPUT:
		m = rb->maps[ANE_IMG_MAX_IO + b->io_index];
		break;
	case ANE_USAGE_INTERMEDIATE:
		m = rb->maps[2 * ANE_IMG_MAX_IO];
		break;
	case ANE_USAGE_WEIGHTS:
		if (rb->p->weights_map) {
			m = rb->p->weights_map;
			break;
		}
		fb->sid = ANE_DART_BASE_SID;
		fb->value = code->image.iova + code->hdr.weights_offset;
		fb->buf_size = code->hdr.weights_size;
		return 0;
	case ANE_USAGE_CONSTANTS:
		fb->sid = ANE_DART_BASE_SID;
		fb->value = code->image.iova + code->hdr.constants_offset;
		fb->buf_size = code->hdr.constants_size;
		return 0;
	}
	if (!m || m->size < b->size)
		return -EINVAL;
	fb->value = m->iova;
	fb->buf_size = m->size;
	return 0;
}

/*
 * Step 1, validation: the program the request names, prepared, with the
 * procedure and room in its queue; then the request's surfaces.
 */
static int ane_request_validate(struct ane_file *af, struct ane_request *rq,
				const struct drm_ane_request *in,
				struct ane_req_build *rb)
{
	struct ane_program *p, *code;
	int ret;

	lockdep_assert_held(&af->prog_lock);
	p = ane_program_find_locked(af, in->token);
	if (p && p->owner) {
		/* The exported program's state is its owner's (ane_share.c). */
		rb->owner = p->owner;
		mutex_lock_nested(&rb->owner->prog_lock, SINGLE_DEPTH_NESTING);
	}
	code = p ? ane_program_code(p) : NULL;
	ret = !p ? -ENOENT : !code->prepared ? -EBADFD :
	      in->procedure >= code->hdr.num_procedures ? -EINVAL :
	      atomic_read(&code->inflight) >= code->queue_depth ? -EBUSY : 0;
	if (ret)
		return ret;
	rb->p = p;
	rb->code = code;
	rb->pr = &code->procs[in->procedure];
	return ane_request_surfaces(af, rq, in, rb);
}

/*
 * Step 2, mapping and pinning: map the surfaces and pin every mapping the
 * call names (the program's intermediate buffer unless the request gives
 * one, an instance's weights).  The pins are in @rq->maps; @rb->maps says
 * which mapping each bar index uses.
 */
static int ane_request_map_surfaces(struct ane_file *af, struct ane_request *rq,
				    struct ane_req_build *rb)
{
	struct ane_program *code = rb->code;
	int ret = 0;
	u32 i;

	for (i = 0; i < ANE_IMG_MAX_IO && !ret; i++) {
		if (rb->in[i]) {
			ret = ane_request_map(rq, af, rb->in[i], ANE_USAGE_INPUT,
					      ane_dart_prot_from_dir(1));
			rb->maps[i] = ret ? NULL : rq->maps[rq->nmaps - 1];
		}
		if (!ret && rb->out[i]) {
			ret = ane_request_map(rq, af, rb->out[i], ANE_USAGE_OUTPUT,
					      ane_dart_prot_from_dir(2));
			rb->maps[ANE_IMG_MAX_IO + i] = ret ? NULL : rq->maps[rq->nmaps - 1];
		}
	}
	if (!ret && rb->inter) {
		ret = ane_request_map(rq, af, rb->inter, ANE_USAGE_INTERMEDIATE,
				      ANE_PROT_READ_WRITE);
		rb->maps[2 * ANE_IMG_MAX_IO] = ret ? NULL : rq->maps[rq->nmaps - 1];
	} else if (!ret && (rb->owner ? rb->p->inter_map : code->inter_map)) {
		/* An attached program's is mapped in this client's context. */
		struct ane_dart_mapping *im = rb->owner ? rb->p->inter_map :
					      code->inter_map;

		ret = ane_request_pin(rq, im);
		rb->maps[2 * ANE_IMG_MAX_IO] = im;
	}
	if (!ret && rb->p->weights_map)
		ret = ane_request_pin(rq, rb->p->weights_map);
	return ret;
}

/*
 * Step 3, bar binding: pinned mappings keep the context's slot, so bind
 * it for the stream (in turn with other clients waiting for a slot: the
 * request's @own_pins are all the context holds when it has no other
 * work); then fill @bars with a custom bar for each bar of
 * the image the procedure uses, and count them in @rb->nbars.
 */
static int ane_request_bind_bars(struct ane_dart_ctx *ctx, u32 own_pins,
				 struct ane_req_build *rb, struct ane_fw_bar *bars)
{
	const struct ane_program *code = rb->code;
	const struct ane_img_procedure *pr = rb->pr;
	u32 i, sid;
	int ret;

	/*
	 * A request without waits that finds no slot at once parks in the
	 * line (its bars name ANE_REQ_SID_PARKED until the dispatcher binds
	 * one); a request with wait events waits for its slot here.
	 */
	if (!rb->nin && !rb->shared_id)
		ret = ane_dart_bind_or_park(ctx, own_pins);
	else
		ret = ane_dart_bind_turn(ctx, own_pins);
	rb->park = ret == -EAGAIN;
	if (ret < 0 && !rb->park)
		return ret;
	sid = rb->park ? ANE_REQ_SID_PARKED : ret;
	for (i = 0; i < code->hdr.num_bars; i++) {
		const struct ane_img_bar *b = &code->bars[i];

		if ((b->usage == ANE_USAGE_INPUT && b->io_index >= pr->num_inputs) ||
		    (b->usage == ANE_USAGE_OUTPUT && b->io_index >= pr->num_outputs))
			continue;
		ret = ane_request_bar(rb, b, sid, &bars[rb->nbars]);
		if (ret)
			return ret;
		rb->nbars++;
	}
	return 0;
}

/*
 * Step 5, event and fence: find the syncobjs the request names, reserve
 * the DRM event on the file; then, past the last failure, take the
 * request's references (file, program, an in-flight slot), start its
 * fence and hand it to each syncobj.
 */
static int ane_request_arm(struct ane_file *af, struct ane_request *rq,
			   const struct drm_ane_request *in,
			   struct ane_req_build *rb)
{
	struct ane_device *adev = af->adev;
	u32 i;
	int ret;

	for (i = 0; i < rb->nsync; i++) {
		rb->syncobjs[i] = drm_syncobj_find(af->drm_file,
						   rb->syncobj_handles[i]);
		if (!rb->syncobjs[i])
			return -ENOENT;
	}
	ret = ane_request_waits_get(af, rq, rb);
	if (ret)
		return ret;
	rq->event = kzalloc(sizeof(*rq->event), GFP_KERNEL);
	if (!rq->event)
		return -ENOMEM;
	rq->event->ev.base.type = DRM_ANE_EVENT_REQUEST_COMPLETE;
	rq->event->ev.base.length = sizeof(rq->event->ev);
	rq->event->ev.token = in->token;
	rq->event->ev.sequence = in->sequence;
	/*
	 * Only the space can fail: the file's 127 completions not yet read
	 * fill it, so the request would be the 128th outstanding.
	 */
	ret = drm_event_reserve_init(&adev->drm, af->drm_file, &rq->event->base,
				     &rq->event->ev.base);
	if (ret) {
		kfree(rq->event);
		return ret == -ENOMEM ? -ENOBUFS : ret;
	}

	rq->af = af;
	ane_file_get(af);
	rq->prog = rb->p;
	kref_get(&rb->p->kref);
	atomic_inc(&rb->code->inflight);
	dma_fence_init(&rq->fence, &ane_fence_ops, &adev->fence_lock,
		       adev->fence_ctx, atomic64_inc_return(&adev->fence_seq));
	rq->event->ev.seqno = rq->fence.seqno;
	rq->hreq.complete = ane_request_complete;
	for (i = 0; i < rb->nsync; i++)
		drm_syncobj_replace_fence(rb->syncobjs[i], &rq->fence);
	ane_request_waits_start(af, rq);
	return 0;
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

/*
 * Selector 2's 2384 input bytes are mostly its surface list, of which a
 * request uses a few entries and leaves the rest zero.  Copy the head and
 * the entries up to the first empty one; the rest is read word by word
 * (check_zeroed_user()) and copied only if it is not all zero, so the
 * handler sees exactly what a whole copy would have given it.
 */
int ane_send_request_copy_in(void *kdata, const void __user *uarg,
			     unsigned int size)
{
	const size_t first = offsetof(struct drm_ane_send_request, in.surfaces);
	const size_t chunk = 8 * sizeof(struct drm_ane_surface_ref);
	struct drm_ane_send_request *sr = kdata;
	size_t done = first, n;
	u32 i;
	int ret;

	if (copy_from_user(kdata, uarg, first))
		return -EFAULT;
	while (done < size) {
		n = min(chunk, size - done);
		if (copy_from_user((u8 *)kdata + done, uarg + done, n))
			return -EFAULT;
		for (i = (done - first) / sizeof(sr->in.surfaces[0]);
		     i < (done + n - first) / sizeof(sr->in.surfaces[0]); i++)
			if (!sr->in.surfaces[i].handle)
				break;
		done += n;
		if (i < (done - first) / sizeof(sr->in.surfaces[0]))
			break;
	}
	if (done == size)
		return 0;
	ret = check_zeroed_user(uarg + done, size - done);
	if (ret < 0)
		return ret;
	if (ret) {
		memset((u8 *)kdata + done, 0, size - done);
		return 0;
	}
	return copy_from_user((u8 *)kdata + done, uarg + done, size - done) ?
	       -EFAULT : 0;
}

static_assert(ANE_IMG_MAX_EXEC_ORDER <= ANE_FW_MAX_EXEC_ORDER);

static void ane_req_put_syncobjs(struct ane_req_build *rb)
{
	u32 i;

	for (i = 0; i < rb->nsync; i++)
		if (rb->syncobjs[i])
			drm_syncobj_put(rb->syncobjs[i]);
}

/* Shared selector 2 of both spaces: the steps above, in order. */
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
	u32 i;
	int ret;

	if (sr->doorbell >= ANE_MAX_DOORBELL)
		return -EINVAL;
	if (!ane_host(af))
		return -ENODEV;
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* One of the client's 127, whatever it pins; before the queue depth. */
	ret = ane_dart_request_get(ctx);
	if (ret)
		return ret;

	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	/*
	 * The call, its bars, and its execute order or events (with waits
	 * and no signal, one signal: the request's completion).
	 */
	call = kmalloc(sizeof(*call) + ANE_IMG_MAX_BARS * sizeof(struct ane_fw_bar) +
		       max((ANE_REQ_MAX_EVENTS + 1) * sizeof(struct ane_fw_event),
			   ANE_IMG_MAX_EXEC_ORDER * sizeof(u32)),
		       GFP_KERNEL);
	if (!rq || !call) {
		kfree(rq);
		kfree(call);
		ane_dart_request_put(ctx);
		return -ENOMEM;
	}
	rq->ctx = ctx;
	INIT_WORK(&rq->wait_work, ane_request_wait_work);
	INIT_DELAYED_WORK(&rq->wait_timeout, ane_request_wait_timeout);
	INIT_LIST_HEAD(&rq->wait_node);

	mutex_lock(&af->prog_lock);
	ret = ane_request_validate(af, rq, in, &rb);
	/* events go without a custom execute order (Table 30.3) */
	if (!ret && ane_req_events(&rb) && rb.pr->exec_order_count)
		ret = -EINVAL;
	if (ret)
		goto err_unlock;
	ret = ane_request_map_surfaces(af, rq, &rb);
	if (ret)
		goto err_release;
	ret = ane_request_bind_bars(ctx, rq->nmaps, &rb, (struct ane_fw_bar *)(call + 1));
	if (ret)
		goto err_release;
	ret = ane_request_arm(af, rq, in, &rb);
	if (ret)
		goto err_release;
	/*
	 * Step 4: the call, built by the message layer (ane_host_msg.c); its
	 * signal events carry the fence's seqno.
	 */
	ane_host_msg_proc_call_init(&hdr, call, rb.nbars,
				    rb.code->image.vaddr + rb.code->hdr.exec_order_offset +
				    rb.pr->exec_order_first * sizeof(u32),
				    rb.pr->exec_order_count, rb.wrec, rb.nwrec, rb.nsync,
				    rq->fence.seqno, rb.code->slot,
				    rb.code->pid, rb.code->priority, in->procedure);
	if (rb.owner)
		mutex_unlock(&rb.owner->prog_lock);
	mutex_unlock(&af->prog_lock);

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

err_release:
	for (i = 0; i < rq->nmaps; i++)
		ane_dart_unuse(rq->maps[i]);
	ane_request_unhold(af, rq);
	ane_request_waits_release(af->adev, rq);
err_unlock:
	if (rb.owner)
		mutex_unlock(&rb.owner->prog_lock);
	mutex_unlock(&af->prog_lock);
	ane_req_put_syncobjs(&rb);
	for (i = 0; i < rq->nbos; i++)
		drm_gem_object_put(rq->bos[i]);
	kfree(rq);
	kfree(call);
	ane_dart_request_put(ctx);
	return ret;
}
