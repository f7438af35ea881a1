// SPDX-License-Identifier: MIT
/*
 * libane: requests, over the control selectors and the driver's own
 * ioctls.  Programs and surfaces are ane_program.c, completion events and
 * waiting for them ane_wait.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ane_internal.h"

const char *ane__pick_hint(int err, const struct ane__hint *h)
{
	for (; h && h->text; h++)
		if (h->err == err)
			return h->text;
	switch (err) {
	case EOPNOTSUPP:
		return "this ane.ko does not run programs: the selector answers EOPNOTSUPP";
	case ENOENT:
		return "no such program: the token is unknown to this file (destroyed, or created through another file)";
	default:
		return NULL;
	}
}

static const struct ane__hint submit_hints[] = {
	{ EINVAL, "the kernel refused the request: the procedure, a surface's kind or index, the surface count, or a surface's size does not match the program" },
	{ EBADFD, "the program is not prepared: call ane_program_prepare() first" },
	{ EBUSY, "the program has as many requests in flight as its queue depth: wait for one" },
	{ ENOMEM, "out of memory" },
	{ ENOBUFS, "127 requests are outstanding on this handle and none completed before the deadline: collect completions with ane_request_wait(), or allow more time" },
	{ ENOENT, "the token, or a surface's handle, is unknown to this file" },
	{ 0, NULL },
};

static const struct ane__hint event_hints[] = {
	{ EINVAL, "the kernel refused the request: an event's kind or bar, a syncobj with no fence to wait for (none submitted yet), the shared event named twice, or a procedure with a custom execute order (events admit none); else the procedure, a surface's kind, index or size" },
	{ E2BIG, "a request has at most 16 wait and signal events (ANE_REQ_MAX_EVENTS)" },
	{ EBUSY, "the device holds 32 requests waiting on events (ANE_DEV_MAX_WAITING), or the program's queue is full: wait for one to complete" },
	{ EDQUOT, "this handle has 16 requests waiting on events (ANE_FILE_MAX_WAITING): ring the shared event or signal their fences, then wait for them" },
	{ ENOENT, "a syncobj handle is unknown to this file, the shared event is not this handle's (ane_shared_event_activate()), or the token or a surface's handle is unknown" },
	{ EBADFD, "the program is not prepared: call ane_program_prepare() first" },
	{ ENOBUFS, "127 requests are outstanding on this handle: collect completions with ane_request_wait()" },
	{ 0, NULL },
};

/* ------------------------------------------------------------ requests */

static int inflight_add(struct ane_dev *dev, uint64_t seqno)
{
	if (dev->n_inflight == dev->cap_inflight) {
		size_t cap = dev->cap_inflight ? 2 * dev->cap_inflight : 16;
		uint64_t *p = realloc(dev->inflight, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		dev->inflight = p;
		dev->cap_inflight = cap;
	}
	dev->inflight[dev->n_inflight++] = seqno;
	return 0;
}

/* Forget @seqno; returns whether it was in flight. */
int ane__inflight_del(struct ane_dev *dev, uint64_t seqno)
{
	size_t i;

	for (i = 0; i < dev->n_inflight; i++) {
		if (dev->inflight[i] == seqno) {
			dev->inflight[i] = dev->inflight[--dev->n_inflight];
			return 1;
		}
	}
	return 0;
}

static int check_surfaces(struct ane_dev *dev, const char *what, const char *name,
			  struct ane_surface *const *s, unsigned int n)
{
	unsigned int i;

	if (n && !s)
		return ane__fail(dev, EINVAL, "%s: %s is NULL but n_%s is %u",
				 what, name, name[0] == 'i' ? "in" : "out", n);
	for (i = 0; i < n; i++) {
		if (!s[i])
			return ane__fail(dev, EINVAL, "%s: %s[%u] is NULL", what, name, i);
		if (s[i]->dev != dev)
			return ane__fail(dev, EINVAL,
					 "%s: %s[%u] was created through another handle than the %s (GEM handles belong to one file)",
					 what, name, i,
					 dev->kind == ANE_KIND_CONTROL ? "program" : "direct-path handle");
	}
	return 0;
}

/*
 * ProgramSendRequest of either space: @cmd DRM_IOCTL_ANE_CTL_SEND_REQUEST
 * for a program of a control handle, DRM_IOCTL_ANE_DP_SEND_REQUEST for an
 * attached program of a direct-path handle.  *@sequence is the request's
 * in.sequence, advanced when it is queued.
 */
static int submit_common(struct ane_dev *dev, unsigned long cmd, const char *what,
			 uint64_t token, uint64_t *sequence, uint32_t procedure,
			 struct ane_surface *const *inputs, unsigned int n_in,
			 struct ane_surface *const *outputs, unsigned int n_out,
			 const struct ane_request_event *events,
			 unsigned int n_events,
			 uint64_t abs_timeout_ns, uint64_t *seqno)
{
	struct drm_ane_request_result out;
	struct drm_ane_send_request *sr;
	struct ane__retry r;
	unsigned int i, k = 0;
	int ret;

	if (n_in > ANE_IMG_MAX_IO)
		return ane__fail(dev, EINVAL,
				 "%s: n_in is %u; a procedure takes at most %u inputs",
				 what, n_in, ANE_IMG_MAX_IO);
	if (!n_out || n_out > ANE_IMG_MAX_IO)
		return ane__fail(dev, EINVAL,
				 "%s: n_out is %u; a procedure has 1..%u outputs",
				 what, n_out, ANE_IMG_MAX_IO);
	if (n_events > ANE_REQ_MAX_EVENTS || (n_events && !events))
		return ane__fail_hint(dev, n_events > ANE_REQ_MAX_EVENTS ? E2BIG : EINVAL,
				      "a request has at most 16 wait and signal events (ANE_REQ_MAX_EVENTS)",
				      "%s: %u events", what, n_events);
	ret = check_surfaces(dev, what, "inputs", inputs, n_in);
	if (!ret)
		ret = check_surfaces(dev, what, "outputs", outputs, n_out);
	if (ret)
		return ret;

	/* One zeroed 2.4 KB tuple per handle, cleared after each use. */
	if (!dev->sr)
		dev->sr = calloc(1, sizeof(*dev->sr));
	sr = dev->sr;
	if (!sr)
		return ane__fail(dev, ENOMEM, "%s: allocating the request", what);
	sr->in.token = token;
	sr->in.sequence = *sequence;
	sr->in.qos_class = dev->qos_class ? dev->qos_class : 5;
	sr->in.exec_priority = dev->exec_priority ? dev->exec_priority : 21;
	sr->in.procedure = procedure;
	sr->in.io_category = 2;
	for (i = 0; i < n_in; i++)
		sr->in.surfaces[k++] = (struct drm_ane_surface_ref){
			.handle = inputs[i]->handle, .kind = ANE_SURFACE_INPUT,
			.bar = (uint8_t)i };
	for (i = 0; i < n_out; i++)
		sr->in.surfaces[k++] = (struct drm_ane_surface_ref){
			.handle = outputs[i]->handle, .kind = ANE_SURFACE_OUTPUT,
			.bar = (uint8_t)i };
	for (i = 0; i < n_events; i++)
		sr->in.surfaces[k++] = (struct drm_ane_surface_ref){
			.handle = events[i].handle,
			.kind = (uint8_t)events[i].kind };
	/*
	 * A full queue (-EBUSY) or a full pool (-ENOBUFS: 127 outstanding)
	 * frees up when one of the client's requests completes: poll for its
	 * event, which reading makes room for.  A firmware that boots or
	 * recovers (-EAGAIN) is backed off.  All until @abs_timeout_ns.
	 */
	ane__retry_init(&r, ANE__RETRY_EAGAIN | ANE__RETRY_EBUSY | ANE__RETRY_ENOBUFS,
			ane__now_ns(), abs_timeout_ns, abs_timeout_ns);
	ret = ane__ioctl(dev, cmd, sr, &r);
	out = sr->out;
	memset(&sr->in, 0, offsetof(struct drm_ane_request, surfaces) +
	       k * sizeof(sr->in.surfaces[0]));
	memset(&sr->out, 0, sizeof(sr->out));
	if (ret) {
		ret = ane__fail_retry(dev, -ret, &r,
				      -ret == ENOENT && cmd == DRM_IOCTL_ANE_DP_SEND_REQUEST ?
				      "the token is not a program this handle attached (ane_program_attach()), or a surface's handle is unknown to this file" :
				      n_events ? ane__pick_hint(-ret, event_hints) :
				      ane__pick_hint(-ret, submit_hints),
				      "%s of token 0x%llx, sequence %llu, procedure %u, %u inputs, %u outputs",
				      what, (unsigned long long)token,
				      (unsigned long long)*sequence,
				      procedure, n_in, n_out);
		return ret;
	}
	if (out.status)
		return ane__fail_hint(dev, EIO, "the submission was not queued",
				      "%s of token 0x%llx: out.status is 0x%x",
				      what, (unsigned long long)token, out.status);
	(*sequence)++;
	if (seqno)
		*seqno = out.seqno;
	/* Out of memory here only costs the timeout message its detail. */
	(void)inflight_add(dev, out.seqno);
	ane__ok(dev);
	return 0;
}

int ane_request_submit(struct ane_program *prog, uint32_t procedure,
		       struct ane_surface *const *inputs, unsigned int n_in,
		       struct ane_surface *const *outputs, unsigned int n_out,
		       uint64_t *seqno)
{
	if (!prog)
		return -EINVAL;
	return ane_request_submit_timeout(prog, procedure, inputs, n_in, outputs,
					  n_out, ane_deadline_ns(prog->dev->timeout_ns),
					  seqno);
}

int ane_request_submit_timeout(struct ane_program *prog, uint32_t procedure,
			       struct ane_surface *const *inputs, unsigned int n_in,
			       struct ane_surface *const *outputs, unsigned int n_out,
			       uint64_t abs_timeout_ns, uint64_t *seqno)
{
	if (!prog)
		return -EINVAL;
	return submit_common(prog->dev, DRM_IOCTL_ANE_CTL_SEND_REQUEST,
			     "ProgramSendRequest (control selector 2)", prog->token,
			     &prog->next_sequence, procedure, inputs, n_in, outputs,
			     n_out, NULL, 0, abs_timeout_ns, seqno);
}

int ane_request_submit_events(struct ane_program *prog, uint32_t procedure,
			      struct ane_surface *const *inputs, unsigned int n_in,
			      struct ane_surface *const *outputs, unsigned int n_out,
			      const struct ane_request_event *events,
			      unsigned int n_events, uint64_t abs_timeout_ns,
			      uint64_t *seqno)
{
	if (!prog)
		return -EINVAL;
	return submit_common(prog->dev, DRM_IOCTL_ANE_CTL_SEND_REQUEST,
			     "ProgramSendRequest (control selector 2) with events",
			     prog->token, &prog->next_sequence, procedure, inputs,
			     n_in, outputs, n_out, events, n_events,
			     abs_timeout_ns, seqno);
}

int ane_attached_submit(struct ane_dev *dp, uint64_t token, uint32_t procedure,
			struct ane_surface *const *inputs, unsigned int n_in,
			struct ane_surface *const *outputs, unsigned int n_out,
			uint64_t abs_timeout_ns, uint64_t *seqno)
{
	const char *what = "ProgramSendRequest (direct-path selector 2)";

	if (!dp)
		return -EINVAL;
	if (dp->kind != ANE_KIND_DIRECT)
		return ane__fail_hint(dp, EBADRQC,
				      "a control handle submits its own programs with ane_request_submit()",
				      "%s on a control handle", what);
	return submit_common(dp, DRM_IOCTL_ANE_DP_SEND_REQUEST, what, token,
			     &dp->dp_sequence, procedure, inputs, n_in, outputs,
			     n_out, NULL, 0, abs_timeout_ns, seqno);
}

void ane_set_request_qos(struct ane_dev *dev, uint32_t qos_class,
			 uint32_t exec_priority)
{
	if (!dev)
		return;
	dev->qos_class = qos_class;
	dev->exec_priority = exec_priority;
}

const char *ane_request_status_str(int status)
{
	switch (status) {
	case 0:
		return "completed";
	case ANE_REQUEST_PENDING:
		return "not completed yet";
	case -ENXIO:
		return "the engine faulted on an unmapped device address (a DART translation fault: is every surface large enough for its bar?); DRM_IOCTL_ANE_GET_FAULT has the fault record";
	case -ETIMEDOUT:
		return "the firmware aborted the request at its deadline (module parameter fw_deadline_ms, 2000 ms by default: raise it for an engine emulated under QEMU's TCG)";
	case -EIO:
		return "the firmware crashed or was reset while the request was queued or running";
	case -EINVAL:
		return "the engine refused an operation of the program";
	case -ECANCELED:
		return "the program was destroyed, the handle closed or the shared event deactivated before the request ran (a request waiting on events is cancelled then); a request waiting on a fence that failed reports that fence's error instead";
	default:
		return "unknown completion status";
	}
}

/* ------------------------------------------------------------ ane_net_run */

/*
 * How long ane_net_run() waits: well past the firmware's deadline (the
 * handle's default timeout, ane__timeout_default(), or longer).
 */
static uint64_t ane__run_timeout(const struct ane_dev *dev)
{
	uint64_t t = ane__timeout_default();

	return dev->timeout_ns > t ? dev->timeout_ns : t;
}

int ane_net_run(struct ane_dev *dev, struct ane_net *net,
		const float *const *inputs, float *const *outputs)
{
	struct ane_surface *surf[2 * ANE_IMG_MAX_IO] = { NULL };
	struct ane_program *prog = NULL;
	unsigned int nin, nout, i;
	char saved[sizeof(dev->err)];
	const void *img;
	uint64_t seqno;
	size_t size;
	int ret, r;

	if (!net)
		return dev ? ane__fail(dev, EINVAL, "ane_net_run: net is NULL") : -EINVAL;
	if (!dev) {
		snprintf(net->err, sizeof(net->err),
			 "ane_net_run: dev is NULL: open the device with ane_open(NULL, ANE_KIND_CONTROL, ...) first");
		return -EINVAL;
	}
	ret = ane_net_build(net, &img, &size);
	if (ret)
		return ane__fail_hint(dev, -ret, "the net does not build", "ane_net_run: %s",
				      net->err);
	nin = net->n_inputs;
	nout = net->n_outputs;
	if ((nin && !inputs) || !outputs)
		return ane__fail(dev, EINVAL, "ane_net_run: %s is NULL", !outputs ? "outputs" : "inputs");
	for (i = 0; i < nin + nout; i++)
		if (i < nin ? !inputs[i] : !outputs[i - nin])
			return ane__fail(dev, EINVAL, "ane_net_run: %s[%u] is NULL",
					 i < nin ? "inputs" : "outputs", i < nin ? i : i - nin);

	ret = ane_program_create(dev, img, size, &prog);
	if (!ret)
		ret = ane_program_prepare(prog);
	for (i = 0; !ret && i < nin + nout; i++) {
		int id = i < nin ? net->inputs[i] : net->outputs[i - nin];
		uint64_t elems = ane__elems(net->t[id].dim);

		ret = ane_surface_create(dev, elems * 2, &surf[i]);
		if (!ret && i < nin && net->t[id].is_index)	/* int16 indices */
			ane_index_from_float_array(ane_surface_map(surf[i]), inputs[i], elems);
		else if (!ret && i < nin)
			ane_fp16_from_float_array(ane_surface_map(surf[i]), inputs[i], elems);
	}
	if (!ret)
		ret = ane_request_submit(prog, 0, surf, nin, surf + nin, nout, &seqno);
	if (!ret) {
		int st;

		ret = ane_request_wait(dev, seqno, ane_deadline_ns(ane__run_timeout(dev)), &st, NULL);
		if (st == ANE_REQUEST_PENDING) {
			/* Give it its time before its buffers go. */
			memcpy(saved, dev->err, sizeof(saved));
			ane_request_wait(dev, seqno, ane_deadline_ns(ane__run_timeout(dev)), NULL, NULL);
			memcpy(dev->err, saved, sizeof(saved));
		}
	}
	for (i = 0; !ret && i < nout; i++) {
		int id = net->outputs[i];

		ane_float_from_fp16_array(outputs[i], ane_surface_map(surf[nin + i]),
					  ane__elems(net->t[id].dim));
	}

	/* Clean up; the first failure's message is the one that stays. */
	memcpy(saved, dev->err, sizeof(saved));
	for (i = 0; i < nin + nout; i++) {
		r = ane_surface_destroy(surf[i]);
		if (r && !ret) {
			ret = r;
			memcpy(saved, dev->err, sizeof(saved));
		}
	}
	r = ane_program_destroy(prog);
	if (r && !ret) {
		ret = r;
		memcpy(saved, dev->err, sizeof(saved));
	}
	if (r == -EBUSY)	/* still running: the kernel reclaims it at close */
		ane__program_forget(prog);
	memcpy(dev->err, saved, sizeof(saved));
	return ret;
}
