/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Requests: what ane_request_build.c (building a request),
 * ane_request.c (running it) and ane_request_wait.c (its wait events)
 * share.
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef __ANE_REQUEST_INTERNAL_H__
#define __ANE_REQUEST_INTERNAL_H__

#include <linux/dma-fence.h>
#include <linux/llist.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <drm/drm_file.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_host.h"
#include "ane_image.h"
#include "firmware/spec/ane_fw_abi.h"

struct ane_dart_ctx;
struct ane_dart_mapping;
struct ane_device;
struct ane_file;
struct ane_program;
struct drm_gem_object;
struct drm_syncobj;

/* The DRM event of a request; DRM frees it once read or the file closes. */
struct ane_request_event {
	struct drm_pending_event base;
	struct drm_ane_event_complete ev;
};

/**
 * struct ane_req_wait - one fence a request waits for
 * @fence: the fence (a reference).
 * @cb: on @fence: relays its end (ane_request_wait_cb()).
 * @rq: the request.
 * @slot: the firmware event slot of the wait record.
 * @value: the value the record waits for.
 * @error: the fence's error once it ended (-ECANCELED: the file closed).
 */
struct ane_req_wait {
	struct dma_fence *fence;
	struct dma_fence_cb cb;
	struct ane_request *rq;
	u32 slot;
	u64 value;
	int error;
};

/**
 * struct ane_request - one ProgramSendRequest until released
 * @fence: signalled at completion; the request lives as long as it.
 * @hreq: the firmware command, completed by the program event.
 * @reap: entry in the list of completed requests the reaper releases.
 * @af: the client (a reference).
 * @ctx: the client's DART context, where the request counts as one of
 *	its 127 outstanding requests (ane_request_pool_get()).
 * @prog: the program or instance (a reference).
 * @event: the DRM event, handed to DRM at completion.
 * @nmaps: entries of @maps in use.
 * @maps: mappings pinned for the request (the surfaces' cached mappings).
 * @bos: references on the request's surfaces.
 * @nbos: entries of @bos.
 * @nwait: entries of @waits.
 * @waits: the fences the request waits for, each a wait record.
 * @wait_fired: bit i set: @waits[i] ended and the firmware has not been
 *	told yet (@wait_work tells it).
 * @wait_error: the first error of a fence waited for: the request's
 *	status when the firmware cancels it for that.
 * @wait_work: sends the EVENT_SIGNAL of each wait in @wait_fired.
 * @wait_node: in &ane_file.waits while @nwait is not zero.
 * @wait_timeout: fails the waits not ended after wait_timeout_ms.
 * @waits_armed: ane_request_waits_start() armed @wait_timeout and the
 *	fences' callbacks (which queue @wait_work): only then does the
 *	release cancel them.
 * @held: the call has wait records: one of the client's
 *	%ANE_FILE_MAX_WAITING (&ane_file.held) and of the device's
 *	%ANE_DEV_MAX_WAITING (&ane_events.held) until it completes.
 * @park: the request's place in the line for a DART slot, when it found
 *	none at once (ane_dart_park()); the dispatcher starts it.
 * @park_hdr: the parked call's header.
 * @park_call: the parked call, its bars naming %ANE_REQ_SID_PARKED for the
 *	slot not yet known; freed once the call is sent (or fails).
 */
struct ane_request {
	struct dma_fence fence;
	struct ane_host_hreq hreq;
	struct llist_node reap;
	struct ane_file *af;
	struct ane_dart_ctx *ctx;
	struct ane_program *prog;
	struct ane_request_event *event;
	u32 nmaps;
	struct ane_dart_mapping *maps[ANE_IMG_MAX_IO * 2 + 2];
	struct drm_gem_object *bos[ANE_IMG_MAX_IO * 2 + 1];
	u32 nbos;
	u32 nwait;
	struct ane_req_wait waits[ANE_REQ_MAX_EVENTS];
	atomic_t wait_fired;
	int wait_error;
	struct work_struct wait_work;
	struct list_head wait_node;
	struct delayed_work wait_timeout;
	bool waits_armed;
	bool held;
	struct ane_dart_waiter park;
	struct ane_fw_cmd_hdr park_hdr;
	struct ane_fw_proc_call *park_call;
};

/* A parked call's bars name this stream until the dispatcher binds a slot. */
#define ANE_REQ_SID_PARKED	U32_MAX

/**
 * struct ane_req_build - what ane_sel_send_request() gathers on its way
 * @p: the program or instance the request names.
 * @code: the program whose code runs (ane_program_code() of @p).
 * @pr: the procedure called, in @code's image.
 * @in: the input surfaces, by bar index.
 * @out: the output surfaces, by bar index.
 * @inter: the intermediate surface the request gives, or NULL.
 * @syncobj_handles: the syncobjs the request names for its fence, its
 *	signal events (Table 30.3).
 * @nsync: entries of @syncobj_handles, 0 .. %ANE_REQ_MAX_SIGNAL_EVENTS.
 * @maps: the pinned mapping of each bar index: the inputs, then the
 *	outputs, then the intermediate buffer (NULL where none).
 * @nbars: custom bars filled in after the call.
 * @syncobjs: the syncobjs of @syncobj_handles, references held until the
 *	request is submitted.
 * @in_handles: the syncobjs the request waits for (IN_SYNCOBJ).
 * @nin: entries of @in_handles.
 * @shared_id: the shared event the request waits for, 0 for none.
 * @wrec: the call's wait records: the fences not yet signaled, then the
 *	shared event.
 * @nwrec: entries of @wrec.
 * @owner: for an attached program, its owner, whose &ane_file.prog_lock
 *	is held (nested) from validation to submission; else NULL.
 * @park: no DART slot at once: the request parks in the line for one
 *	(ane_dart_park()) rather than wait in the call.
 *
 * On the stack of one call, built under &ane_file.prog_lock.
 */
struct ane_req_build {
	struct ane_program *p;
	struct ane_program *code;
	const struct ane_img_procedure *pr;
	struct drm_gem_object *in[ANE_IMG_MAX_IO];
	struct drm_gem_object *out[ANE_IMG_MAX_IO];
	struct drm_gem_object *inter;
	u32 syncobj_handles[ANE_REQ_MAX_SIGNAL_EVENTS];
	u32 nsync;
	struct ane_dart_mapping *maps[2 * ANE_IMG_MAX_IO + 1];
	u32 nbars;
	struct drm_syncobj *syncobjs[ANE_REQ_MAX_SIGNAL_EVENTS];
	struct ane_file *owner;
	u32 in_handles[ANE_REQ_MAX_EVENTS];
	u32 nin;
	u32 shared_id;
	struct ane_fw_event wrec[ANE_REQ_MAX_EVENTS];
	u32 nwrec;
	bool park;
};

/* IN, OUT syncobjs and the shared event of a request: its events. */
static inline u32 ane_req_events(const struct ane_req_build *rb)
{
	return rb->nsync + rb->nin + !!rb->shared_id;
}

/* Building (ane_request_build.c). */
int ane_request_build(struct ane_file *af, struct ane_request *rq,
		      const struct drm_ane_request *in, struct ane_req_build *rb,
		      struct ane_fw_cmd_hdr *hdr, struct ane_fw_proc_call *call);

/* Running (ane_request.c). */
void ane_request_fence_init(struct ane_device *adev, struct ane_request *rq);

/* Wait events (ane_request_wait.c). */
void ane_request_wait_work(struct work_struct *work);
void ane_request_wait_timeout(struct work_struct *work);
void ane_request_unhold(struct ane_file *af, struct ane_request *rq);
void ane_request_waits_release(struct ane_device *adev,
			       struct ane_request *rq);
void ane_request_waits_start(struct ane_file *af, struct ane_request *rq);
void ane_request_waits_end(struct ane_request *rq);
int ane_request_waits_get(struct ane_file *af, struct ane_request *rq,
			  struct ane_req_build *rb);

#endif /* __ANE_REQUEST_INTERNAL_H__ */
