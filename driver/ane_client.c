// SPDX-License-Identifier: GPL-2.0-only
/*
 * User clients: the DeviceOpen handshake and the per-client selectors.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_drv.h>
#include <drm/ane_accel.h>

#include "ane_caps.h"
#include "ane_drv.h"
#include "ane_event.h"
#include "ane_selector.h"

/**
 * ane_device_open_check() - validate a DeviceOpen input header
 * @in: the client's ANEDeviceInfo.
 *
 * Return: 0 for a standard client; -EOPNOTSUPP for the usage type the M1
 * refuses (the seed's code 24); -EINVAL for any other usage type or a
 * non-zero reserved byte.
 */
int ane_device_open_check(const struct drm_ane_device_info_in *in)
{
	if (memchr_inv(in->pad, 0, sizeof(in->pad)) ||
	    memchr_inv(in->reserved, 0, sizeof(in->reserved)))
		return -EINVAL;
	if (in->usage_type == ANE_USAGE_UNSUPPORTED)
		return -EOPNOTSUPP;
	if (in->usage_type != ANE_USAGE_STANDARD)
		return -EINVAL;
	return 0;
}

/*
 * Session tokens are unique per device and not trivially guessable across
 * devices: a sequence number mixed with a per-device random key.  Zero is
 * never handed out.
 */
u64 ane_new_token(struct ane_device *adev)
{
	u64 token;

	do {
		token = atomic64_inc_return(&adev->token_seq) ^ adev->token_key;
	} while (!token);
	return token;
}

/* Called with af->state_lock held for writing. */
int ane_sel_device_open(struct ane_file *af, const struct ane_selector *sel,
			void *args)
{
	struct drm_ane_device_open *op = args;
	const struct drm_ane_device_info_in *in = &op->in;
	struct drm_ane_device_info_out *out = &op->out;
	int ret;

	lockdep_assert_held_write(&af->state_lock);

	ret = ane_device_open_check(in);
	if (ret) {
		ane_dbg(af->adev, "DeviceOpen refused: usage type %u: %d\n",
			in->usage_type, ret);
		return ret;
	}

	memset(out, 0, sizeof(*out));
	out->token = ane_new_token(af->adev);
	out->callback = in->callback;
	out->receiver_context = in->receiver_context;
	out->timeout = in->timeout;
	out->ane_version = ANE_HW_VERSION;
	out->ane_version_ext = ANE_HW_VERSION_EXT;
	out->num_engines = ANE_NUM_ENGINES;
	out->cpu_subtype = ANE_CPU_SUBTYPE;

	/* The client joins the space of the ioctl it opened through. */
	af->space = sel->space;
	af->token = out->token;
	af->state = ANE_CLIENT_OPEN;
	atomic_inc(&af->adev->open_clients);
	return 0;
}

/* Called with af->state_lock held for writing. */
int ane_sel_device_close(struct ane_file *af, const struct ane_selector *sel,
			 void *args)
{
	lockdep_assert_held_write(&af->state_lock);

	af->state = ANE_CLIENT_CLOSED;
	atomic_dec(&af->adev->open_clients);
	return 0;
}

int ane_sel_get_status(struct ane_file *af, const struct ane_selector *sel,
		       void *args)
{
	struct drm_ane_status *st = &((struct drm_ane_get_status *)args)->out;

	memset(st, 0, sizeof(*st));
	st->fw_state = atomic_read(&af->adev->fw_state);
	st->client_flags = af->space == ANE_SPACE_CONTROL ?
			   ANE_CLIENT_CONTROL : ANE_CLIENT_DIRECT;
	if (ane_caps_has(af, ANE_CAP_PRIV_VM))
		st->client_flags |= ANE_CLIENT_PRIVILEGED;
	st->client_flags |= ane_caps(af) << ANE_CLIENT_CAPS_SHIFT;
	st->requests_submitted = atomic64_read(&af->submitted);
	st->requests_completed = atomic64_read(&af->completed);
	st->dart_faults = ane_file_dart_faults(af);
	return 0;
}

int ane_sel_get_version(struct ane_file *af, const struct ane_selector *sel,
			void *args)
{
	struct drm_ane_get_version *v = args;

	v->version = (u64)ANE_UAPI_VERSION << 32 |
		     (u64)ANE_PROP_VERSION << 16 | ANE_PROP_MINOR_VERSION;
	return 0;
}

/* Selector 16 is inactive on the M1: the firmware loads at driver start. */
int ane_sel_load_firmware(struct ane_file *af, const struct ane_selector *sel,
			  void *args)
{
	return -EOPNOTSUPP;
}

int ane_file_init(struct ane_device *adev, struct ane_file *af)
{
	af->adev = adev;
	init_rwsem(&af->state_lock);
	af->state = ANE_CLIENT_NEW;
	atomic_set(&af->caps, ane_caps_at_open());
	atomic64_set(&af->submitted, 0);
	atomic64_set(&af->completed, 0);
	atomic64_set(&af->engine_ns, 0);
	mutex_init(&af->ctx_lock);
	INIT_LIST_HEAD(&af->umaps);
	kref_init(&af->ref);
	mutex_init(&af->prog_lock);
	INIT_LIST_HEAD(&af->programs);
	mutex_init(&af->smap_lock);
	INIT_LIST_HEAD(&af->smaps);
	mutex_init(&af->power_lock);
	spin_lock_init(&af->wait_lock);
	INIT_LIST_HEAD(&af->waits);
	ane_hint_file_init(af);
	/* Requests may outlive the file: keep the device with the client. */
	drm_dev_get(&adev->drm);
	return 0;
}

static void ane_file_release(struct kref *ref)
{
	struct ane_file *af = container_of(ref, struct ane_file, ref);
	struct ane_device *adev = af->adev;

	ane_file_programs_fini(af);
	ane_file_surfaces_fini(af);
	ane_file_unmap_all(af);
	/* What it charged stays charged until those objects are freed. */
	ane_account_put(af->acct);
	mutex_destroy(&af->power_lock);
	mutex_destroy(&af->smap_lock);
	mutex_destroy(&af->prog_lock);
	mutex_destroy(&af->ctx_lock);
	kfree(af);
	drm_dev_put(&adev->drm);
}

void ane_file_get(struct ane_file *af)
{
	kref_get(&af->ref);
}

void ane_file_put(struct ane_file *af)
{
	kref_put(&af->ref, ane_file_release);
}

void ane_file_fini(struct ane_file *af)
{
	/* A client closed without DeviceClose still leaves the open count. */
	if (af->state == ANE_CLIENT_OPEN)
		atomic_dec(&af->adev->open_clients);
	ane_dwp_file_fini(af);
	ane_method_file_fini(af);
	ane_hint_file_fini(af);
	ane_request_file_fini(af);
	ane_event_file_fini(af);
	af->drm_file = NULL;
	ane_file_put(af);
}
