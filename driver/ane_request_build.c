// SPDX-License-Identifier: GPL-2.0-only
/*
 * Requests, building: what ProgramSendRequest (selector 2 of both spaces)
 * does before the call leaves for the firmware.  In steps, a function
 * each, under the client's program lock: validate the request and look
 * up its surfaces; map the surfaces into the client's isolation context
 * and pin every mapping the call names; bind the context to a stream (or
 * park in the line for one) and fill a custom bar for each bar of the
 * image; arm it -- the syncobjs, the wait records, the DRM event, the
 * references and the fence; and have the message layer build the
 * procedure call.  Running it -- submission, completion, release -- is
 * ane_request.c; its wait events are ane_request_wait.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/dma-fence.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_host_msg.h"
#include "ane_gem.h"
#include "ane_program.h"
#include "ane_selector.h"
#include "firmware/spec/ane_fw_abi.h"
#include "ane_request_internal.h"

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
 * Step 4, arming (event and fence): find the syncobjs the request names,
 * reserve the DRM event on the file; then, past the last failure, take
 * the request's references (file, program, an in-flight slot), start its
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
	ane_request_fence_init(adev, rq);
	rq->event->ev.seqno = rq->fence.seqno;
	for (i = 0; i < rb->nsync; i++)
		drm_syncobj_replace_fence(rb->syncobjs[i], &rq->fence);
	ane_request_waits_start(af, rq);
	return 0;
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

/* Undo the steps of a request whose validation passed; under the lock. */
static void ane_request_build_undo(struct ane_file *af, struct ane_request *rq)
{
	u32 i;

	for (i = 0; i < rq->nmaps; i++)
		ane_dart_unuse(rq->maps[i]);
	ane_request_unhold(af, rq);
	ane_request_waits_release(af->adev, rq);
}

/**
 * ane_request_build() - the steps of a request up to its procedure call
 * @af: the client.
 * @rq: the request, its context set and its pool count taken.
 * @in: the request's arguments.
 * @rb: what the steps gather, zeroed by the caller.
 * @hdr: the call's header, filled.
 * @call: the call, filled, with room for its bars and its execute order
 *	or events.
 *
 * Takes and drops &ane_file.prog_lock (and an attached program's owner's).
 * On success the request is armed: its fence started and handed to its
 * syncobjs, its references taken, its DRM event reserved; @rb->park says
 * whether it is to park in the line for a DART slot.  On failure what the
 * steps took is released but the surfaces' references (@rq->bos) and
 * @rb's syncobjs, which the caller drops.
 *
 * Return: 0 or a negative errno.
 */
int ane_request_build(struct ane_file *af, struct ane_request *rq,
		      const struct drm_ane_request *in, struct ane_req_build *rb,
		      struct ane_fw_cmd_hdr *hdr, struct ane_fw_proc_call *call)
{
	int ret;

	mutex_lock(&af->prog_lock);
	ret = ane_request_validate(af, rq, in, rb);
	/* events go without a custom execute order (Table 30.3) */
	if (!ret && ane_req_events(rb) && rb->pr->exec_order_count)
		ret = -EINVAL;
	if (ret)
		goto out;
	ret = ane_request_map_surfaces(af, rq, rb);
	if (!ret)
		ret = ane_request_bind_bars(rq->ctx, rq->nmaps, rb,
					    (struct ane_fw_bar *)(call + 1));
	if (!ret)
		ret = ane_request_arm(af, rq, in, rb);
	if (ret) {
		ane_request_build_undo(af, rq);
		goto out;
	}
	/*
	 * Step 5: the call, built by the message layer (ane_host_msg.c); its
	 * signal events carry the fence's seqno.
	 */
	ane_host_msg_proc_call_init(hdr, call, rb->nbars,
				    rb->code->image.vaddr + rb->code->hdr.exec_order_offset +
				    rb->pr->exec_order_first * sizeof(u32),
				    rb->pr->exec_order_count, rb->wrec, rb->nwrec, rb->nsync,
				    rq->fence.seqno, rb->code->slot,
				    rb->code->pid, rb->code->priority, in->procedure);
out:
	if (rb->owner)
		mutex_unlock(&rb->owner->prog_lock);
	mutex_unlock(&af->prog_lock);
	return ret;
}
