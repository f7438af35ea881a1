// SPDX-License-Identifier: MIT
/*
 * libane: the resident submission model (Documentation/accel/ane/resident.rst).
 * The program hand-off (export on a control handle, attach on a
 * direct-path handle) and chains: prepare and invalidate on the control
 * handle, enqueue an output set, trigger and wait on the direct-path one.
 * The shared event: activate, ring, deactivate.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "ane_internal.h"
#include "libane.h"

/* One ioctl, -EAGAIN waited out up to the handle's timeout; 0 or -errno. */
static int res_ioctl(struct ane_dev *dev, unsigned long cmd, void *arg,
		     struct ane__retry *r)
{
	uint64_t now = ane__now_ns();

	ane__retry_init(r, ANE__RETRY_EAGAIN, now,
			ane__deadline(now, dev->timeout_ns), now);
	return ane__ioctl(dev, cmd, arg, r);
}

static int need_kind(struct ane_dev *dev, enum ane_client_kind kind,
		     const char *what)
{
	if (dev->kind == kind)
		return 0;
	return ane__fail_hint(dev, EBADRQC,
			      kind == ANE_KIND_CONTROL ?
			      "open a handle with ANE_KIND_CONTROL for it" :
			      "open a handle with ANE_KIND_DIRECT for it",
			      "%s", what);
}

int ane_program_export(struct ane_dev *ctl, const struct ane_program *prog,
		       int *fd)
{
	struct drm_ane_program_export ex = { .token = ane_program_token(prog) };
	struct ane__retry r;
	int ret;

	if (!ctl || !prog || !fd)
		return -EINVAL;
	ret = need_kind(ctl, ANE_KIND_CONTROL, "PROGRAM_EXPORT");
	if (ret)
		return ret;
	ret = res_ioctl(ctl, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex, &r);
	if (ret)
		return ane__fail_retry(ctl, -ret, &r,
				       ret == -EBADFD ? "prepare the program first" : NULL,
				       "PROGRAM_EXPORT of program 0x%llx",
				       (unsigned long long)ex.token);
	*fd = ex.fd;
	ane__ok(ctl);
	return 0;
}

int ane_program_attach(struct ane_dev *dp, int fd, uint64_t *token)
{
	struct drm_ane_program_attach at = { .fd = fd };
	struct ane__retry r;
	int ret;

	if (!dp || !token)
		return -EINVAL;
	ret = need_kind(dp, ANE_KIND_DIRECT, "PROGRAM_ATTACH");
	if (ret)
		return ret;
	ret = res_ioctl(dp, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at, &r);
	if (ret)
		return ane__fail_retry(dp, -ret, &r,
				       ret == -EACCES ?
				       "only the exporter's uid may attach its program" : NULL,
				       "PROGRAM_ATTACH of descriptor %d", fd);
	*token = at.token;
	ane__ok(dp);
	return 0;
}

int ane_program_detach(struct ane_dev *dp, uint64_t token)
{
	struct drm_ane_program_attach at = { .flags = ANE_ATTACH_DETACH,
					     .token = token };
	struct ane__retry r;
	int ret;

	if (!dp)
		return -EINVAL;
	ret = res_ioctl(dp, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at, &r);
	if (ret)
		return ane__fail_retry(dp, -ret, &r, NULL,
				       "PROGRAM_ATTACH (detach) of 0x%llx",
				       (unsigned long long)token);
	ane__ok(dp);
	return 0;
}

int ane_chain_prepare(struct ane_dev *ctl, const struct ane_program *prog,
		      uint32_t procedure, uint32_t flags, uint64_t *handle)
{
	struct drm_ane_chaining_prepare cp = {
		.token = ane_program_token(prog), .procedure = procedure,
		.flags = flags };
	struct ane__retry r;
	int ret;

	if (!ctl || !prog || !handle)
		return -EINVAL;
	ret = need_kind(ctl, ANE_KIND_CONTROL,
			"ProgramChainingPrepare (control selector 9)");
	if (ret)
		return ret;
	ret = res_ioctl(ctl, DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, &cp, &r);
	if (ret)
		return ane__fail_retry(ctl, -ret, &r,
				       ret == -ENOSPC ?
				       "the engine's 16 cache requests are in use: invalidate one" :
				       NULL,
				       "ProgramChainingPrepare (control selector 9) of procedure %u",
				       procedure);
	*handle = cp.cache_handle;
	ane__ok(ctl);
	return 0;
}

int ane_chain_invalidate(struct ane_dev *ctl, uint64_t handle)
{
	struct drm_ane_chaining_prepare cp = { .token = handle,
					       .flags = ANE_CHAIN_INVALIDATE };
	struct ane__retry r;
	int ret;

	if (!ctl)
		return -EINVAL;
	ret = res_ioctl(ctl, DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, &cp, &r);
	if (ret)
		return ane__fail_retry(ctl, -ret, &r, NULL,
				       "ProgramChainingPrepare (invalidate) of chain 0x%llx",
				       (unsigned long long)handle);
	ane__ok(ctl);
	return 0;
}

int ane_chain_enqueue(struct ane_dev *dp, uint64_t handle,
		      struct ane_surface *const *outputs, unsigned int n_out)
{
	struct drm_ane_surface_ref refs[ANE_IMG_MAX_IO];
	struct drm_ane_output_set_enqueue oe = {
		.cache_handle = handle, .num_surfaces = n_out,
		.surfaces = (uintptr_t)refs };
	struct ane__retry r;
	unsigned int i;
	int ret;

	if (!dp || n_out > ANE_IMG_MAX_IO || (n_out && !outputs))
		return -EINVAL;
	memset(refs, 0, sizeof(refs));
	for (i = 0; i < n_out; i++)
		refs[i] = (struct drm_ane_surface_ref){
			.handle = ane_surface_handle(outputs[i]),
			.kind = ANE_SURFACE_OUTPUT, .bar = (uint8_t)i };
	ret = res_ioctl(dp, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe, &r);
	if (ret)
		return ane__fail_retry(dp, -ret, &r, NULL,
				       "ProgramOutputSetEnqueue (direct-path selector 3) on chain 0x%llx",
				       (unsigned long long)handle);
	ane__ok(dp);
	return 0;
}

int ane_chain_trigger(struct ane_dev *dp, uint64_t handle,
		      uint64_t exec_timestamp, struct ane_surface *const *inputs,
		      const unsigned char *chained, unsigned int n_in)
{
	struct drm_ane_inputs_ready *ir;
	struct ane__retry r;
	unsigned int i;
	int ret;

	if (!dp || n_in > ANE_CHAIN_MAX_INPUTS || (n_in && !inputs))
		return -EINVAL;
	ir = calloc(1, sizeof(*ir));
	if (!ir)
		return ane__fail(dp, ENOMEM, "ProgramInputsReady: allocating");
	ir->cache_handle = handle;
	ir->exec_timestamp = exec_timestamp;
	ir->num_inputs = n_in;
	for (i = 0; i < n_in; i++)
		ir->inputs[i] = (struct drm_ane_surface_ref){
			.handle = ane_surface_handle(inputs[i]),
			.kind = chained && chained[i] ? ANE_SURFACE_CHAINED :
							ANE_SURFACE_INPUT,
			.bar = (uint8_t)i };
	ret = res_ioctl(dp, DRM_IOCTL_ANE_DP_INPUTS_READY, ir, &r);
	free(ir);
	if (ret)
		return ane__fail_retry(dp, -ret, &r,
				       ret == -ENOBUFS ? "enqueue an output set first" :
				       ret == -ESTALE ? "the firmware restarted: prepare the chain again" :
				       NULL,
				       "ProgramInputsReady (direct-path selector 4) on chain 0x%llx",
				       (unsigned long long)handle);
	ane__ok(dp);
	return 0;
}

int ane_chain_wait(struct ane_dev *dp, uint64_t handle, uint64_t exec_timestamp,
		   uint64_t abs_timeout_ns, int *status, uint64_t *exec_ns)
{
	struct pollfd pfd = { .fd = dp ? dp->fd : -1, .events = POLLIN };
	struct ane__done d;
	uint64_t now;
	int ms, ret;

	if (!dp)
		return -EINVAL;
	if (status)
		*status = ANE_REQUEST_PENDING;
	/*
	 * Events are read into the handle's queue, which keeps the request
	 * completions for ane_request_wait() and other runs' for their waits.
	 */
	while (!ane__done_take(dp, DRM_ANE_EVENT_CHAIN_COMPLETE, 0, handle,
			       exec_timestamp, &d)) {
		now = ane__now_ns();
		if (abs_timeout_ns != ANE_WAIT_FOREVER && now >= abs_timeout_ns)
			return ane__fail(dp, ETIMEDOUT,
					 "waiting for run %llu of chain 0x%llx",
					 (unsigned long long)exec_timestamp,
					 (unsigned long long)handle);
		ms = abs_timeout_ns == ANE_WAIT_FOREVER ? -1 :
		     (int)((abs_timeout_ns - now + 999999) / 1000000);
		if (poll(&pfd, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			return ane__fail(dp, errno, "poll");
		}
		if (!(pfd.revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL)))
			continue;
		if (pfd.revents & POLLNVAL)
			return ane__fail(dp, EBADF, "poll for run %llu of chain 0x%llx",
					 (unsigned long long)exec_timestamp,
					 (unsigned long long)handle);
		ret = ane__read_events(dp);
		if (ret)
			return ret;
	}
	if (status)
		*status = d.status;
	if (exec_ns)
		*exec_ns = d.exec_ns;
	if (d.status)
		return ane__fail(dp, d.status < 0 ? -d.status : EIO,
				 "run %llu of chain 0x%llx",
				 (unsigned long long)exec_timestamp,
				 (unsigned long long)handle);
	ane__ok(dp);
	return 0;
}

int ane_session_hint(struct ane_dev *dp, uint32_t hint, uint64_t value,
		     uint64_t *applied)
{
	struct drm_ane_session_hint sh = { .hint = hint, .value = value };
	struct ane__retry r;
	int ret;

	if (!dp)
		return -EINVAL;
	ret = res_ioctl(dp, DRM_IOCTL_ANE_DP_SESSION_HINT, &sh, &r);
	if (ret)
		return ane__fail_retry(dp, -ret, &r, NULL,
				       "SessionHintRequest (direct-path selector 7) %u", hint);
	if (applied)
		*applied = sh.applied;
	ane__ok(dp);
	return 0;
}

/* One shared-event method; @what names it in the message. */
static int shared_method(struct ane_dev *dev, uint32_t method, uint64_t value,
			 uint64_t *result, const char *what)
{
	struct drm_ane_method_args a = { .method = method, .value = value };
	const char *hint = NULL;
	struct ane__retry r;
	int ret;

	ret = res_ioctl(dev, DRM_IOCTL_ANE_METHOD, &a, &r);
	if (!ret) {
		if (result)
			*result = a.result;
		ane__ok(dev);
		return 0;
	}
	switch (-ret) {
	case EBUSY:
		hint = "the device's one shared event is active (sharedEventsActiveNbr < 2): it frees when its handle deactivates it or closes";
		break;
	case EPERM:
		hint = "activating the shared event needs ANE_CAP_DATA_CHAINING (the resident model's capability; security.rst)";
		break;
	case ENOENT:
		hint = "this handle has no active shared event of that id: activate it with ane_shared_event_activate()";
		break;
	}
	return ane__fail_retry(dev, -ret, &r, hint, "%s", what);
}

int ane_shared_event_activate(struct ane_dev *dev, uint32_t *id)
{
	uint64_t v = 0;
	int ret;

	if (!dev || !id)
		return -EINVAL;
	ret = shared_method(dev, ANE_METHOD_SHARED_EVENT_ACTIVATE, 0, &v,
			    "SharedEventActivate (method 20)");
	if (!ret)
		*id = (uint32_t)v;
	return ret;
}

int ane_shared_event_ring(struct ane_dev *dev, uint32_t id, uint64_t *rings)
{
	if (!dev)
		return -EINVAL;
	return shared_method(dev, ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING,
			     ANE_DOORBELL_SHARED_EVENT(id), rings,
			     "FWSharedEventDoorbellRing of the shared event (method 16)");
}

int ane_shared_event_deactivate(struct ane_dev *dev, uint32_t id)
{
	if (!dev)
		return -EINVAL;
	return shared_method(dev, ANE_METHOD_SHARED_EVENT_DEACTIVATE, id, NULL,
			     "SharedEventDeactivate (method 21)");
}
