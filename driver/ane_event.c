// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware's events as the driver uses them: the event slots a
 * request's wait records name (one per ANE_SURFACE_IN_SYNCOBJ), the
 * EVENT_SIGNAL message that raises one, and the device's shared event
 * (ANE_METHOD_SHARED_EVENT_ACTIVATE, rung by FWSharedEventDoorbellRing).
 *
 * A slot's firmware value only grows, and each wait takes a value above
 * every one handed out before, from one device-wide counter: a signal
 * that reaches the firmware before the call that waits for it is kept,
 * and a slot used again is never satisfied by its previous user's signal.
 * The wait itself is the firmware's (PROCEDURE_CALL_WITH_EVENTS); the
 * driver only relays the fence's end (driver/ane_request.c).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/idr.h>
#include <linux/mutex.h>

#include <drm/drm_managed.h>
#include <drm/ane_accel.h>

#include "ane_caps.h"
#include "ane_drv.h"
#include "ane_event.h"
#include "ane_host.h"
#include "ane_host_msg.h"
#include "firmware/spec/ane_fw_abi.h"

static void ane_events_fini(struct drm_device *drm, void *data)
{
	struct ane_events *ev = data;

	ida_destroy(&ev->slots);
}

/**
 * ane_events_init() - the device's event state
 * @adev: the device.
 *
 * Return: 0 or -ENOMEM.
 */
int ane_events_init(struct ane_device *adev)
{
	struct ane_events *ev = &adev->events;
	int ret;

	ida_init(&ev->slots);
	atomic64_set(&ev->value, 0);
	ev->shared_owner = NULL;
	ev->shared_rung = 0;
	atomic_set(&ev->held, 0);
	ret = drmm_mutex_init(&adev->drm, &ev->shared_lock);
	if (ret)
		return ret;
	return drmm_add_action_or_reset(&adev->drm, ane_events_fini, ev);
}

/**
 * ane_event_slot_get() - a firmware event slot and the value to wait for
 * @adev: the device.
 * @slot: the slot, below %ANE_FW_NUM_EVENTS.
 * @value: a value above every one handed out before.
 *
 * Return: 0, or -EBUSY when every slot of the device is in use (each
 * waits for a fence; they come free as requests complete).
 */
int ane_event_slot_get(struct ane_device *adev, u32 *slot, u64 *value)
{
	int id = ida_alloc_max(&adev->events.slots, ANE_FW_NUM_EVENTS - 1,
			       GFP_KERNEL);

	if (id < 0)
		return id == -ENOSPC ? -EBUSY : id;
	*slot = id;
	*value = atomic64_inc_return(&adev->events.value);
	return 0;
}

/**
 * ane_event_slot_put() - give a slot back
 * @adev: the device.
 * @slot: a slot of ane_event_slot_get().
 */
void ane_event_slot_put(struct ane_device *adev, u32 slot)
{
	ida_free(&adev->events.slots, slot);
}

/**
 * ane_event_signal() - EVENT_SIGNAL: raise a firmware event to @value
 * @h: the host side.
 * @id: a slot, or ANE_FW_EVENT_SHARED(n).
 * @value: its new value.
 * @failed: the event failed: the calls waiting on it end with
 *	%ANE_FW_ST_CANCELED instead of running.
 *
 * Sleeps for the firmware's reply.
 *
 * Return: 0 or a negative errno (the firmware is down: its recovery
 * cancels every call that waited).
 */
int ane_event_signal(struct ane_host *h, u64 id, u64 value, bool failed)
{
	return ane_host_msg_event_signal(h, id, value, failed ? ANE_FW_ST_CANCELED :
					 ANE_FW_ST_OK);
}

/* SHARED_EVENT_INIT with @num active; the caller holds shared_lock. */
static int ane_event_shared_init(struct ane_device *adev, u32 num)
{
	struct ane_host *h = adev->fwh;

	if (!h)
		return -ENODEV;
	return ane_host_msg_shared_event_set(h, num);
}

/**
 * ane_event_shared_activate() - ANE_METHOD_SHARED_EVENT_ACTIVATE
 * @af: the client; the event is its own until it deactivates it or closes.
 * @result: the event's id, %ANE_SHARED_EVENT_ID.
 *
 * The firmware has fewer than %ANE_FW_MAX_SHARED_EVENTS active shared
 * events (sharedEventsActiveNbr < 2): one.
 *
 * Return: 0; -EPERM without %ANE_CAP_DATA_CHAINING; -EBUSY while one is
 * active (this client's or another's); the firmware's error.
 */
int ane_event_shared_activate(struct ane_file *af, u64 *result)
{
	struct ane_events *ev = &af->adev->events;
	int ret;

	if (!ane_caps_has(af, ANE_CAP_DATA_CHAINING))
		return -EPERM;
	mutex_lock(&ev->shared_lock);
	if (ev->shared_owner) {
		ret = -EBUSY;
		goto out;
	}
	ret = ane_event_shared_init(af->adev, ANE_FW_MAX_SHARED_EVENTS - 1);
	if (ret)
		goto out;
	ev->shared_owner = af;
	ev->shared_rung = 0;
	*result = ANE_SHARED_EVENT_ID;
out:
	mutex_unlock(&ev->shared_lock);
	return ret;
}

/* Deactivate @af's shared event; the caller holds shared_lock. */
static int ane_event_shared_drop(struct ane_file *af)
{
	struct ane_events *ev = &af->adev->events;

	if (ev->shared_owner != af)
		return -ENOENT;
	ev->shared_owner = NULL;
	/* the calls still waiting on it end with -ECANCELED */
	return ane_event_shared_init(af->adev, 0);
}

/**
 * ane_event_shared_deactivate() - ANE_METHOD_SHARED_EVENT_DEACTIVATE
 * @af: the client.
 * @id: the id activation returned.
 *
 * Requests still waiting on it complete with -ECANCELED.
 *
 * Return: 0; -ENOENT for an id this client has not activated.
 */
int ane_event_shared_deactivate(struct ane_file *af, u64 id)
{
	struct ane_events *ev = &af->adev->events;
	int ret;

	if (id != ANE_SHARED_EVENT_ID)
		return -ENOENT;
	mutex_lock(&ev->shared_lock);
	ret = ane_event_shared_drop(af);
	mutex_unlock(&ev->shared_lock);
	/* the firmware being down deactivated it as well */
	return ret == -ENOENT ? ret : 0;
}

/**
 * ane_event_shared_ring() - FWSharedEventDoorbellRing of a shared event
 * @af: the client.
 * @id: the id activation returned.
 * @result: how many times it has been rung since its activation.
 *
 * Releases the requests that wait for this ring (each waits for the
 * first ring after its submission).
 *
 * Return: 0; -ENOENT for an id this client has not activated; the
 * firmware's error.
 */
int ane_event_shared_ring(struct ane_file *af, u64 id, u64 *result)
{
	struct ane_events *ev = &af->adev->events;
	int ret = -ENOENT;

	mutex_lock(&ev->shared_lock);
	if (id == ANE_SHARED_EVENT_ID && ev->shared_owner == af) {
		ret = ane_event_signal(af->adev->fwh, ANE_FW_EVENT_SHARED(0),
				       ev->shared_rung + 1, false);
		if (!ret)
			*result = ++ev->shared_rung;
	}
	mutex_unlock(&ev->shared_lock);
	return ret;
}

/**
 * ane_event_shared_wait() - the wait record of a request on a shared event
 * @af: the client.
 * @id: the id the request names.
 * @wait: filled: the firmware's shared event and the next ring's value.
 *
 * Return: 0; -ENOENT for an id this client has not activated.
 */
int ane_event_shared_wait(struct ane_file *af, u32 id, struct ane_fw_event *wait)
{
	struct ane_events *ev = &af->adev->events;
	int ret = -ENOENT;

	mutex_lock(&ev->shared_lock);
	if (id == ANE_SHARED_EVENT_ID && ev->shared_owner == af) {
		*wait = (struct ane_fw_event){
			.type = ANE_FW_EVENT_WAIT, .target_mask = 1,
			.id = ANE_FW_EVENT_SHARED(0),
			.value = ev->shared_rung + 1 };
		ret = 0;
	}
	mutex_unlock(&ev->shared_lock);
	return ret;
}

/**
 * ane_host_shared_events() - the shared events a boot activates
 * @h: the host side, booting.
 *
 * A recovery keeps the active shared event active (at value 0 again: a
 * request waits for the first ring after its submission, whatever the
 * value).
 *
 * Return: 1 while a client has the shared event, else 0.
 */
u32 ane_host_shared_events(struct ane_host *h)
{
	return h->adev && READ_ONCE(h->adev->events.shared_owner) ? 1 : 0;
}

/**
 * ane_event_file_fini() - a client closed: its shared event goes
 * @af: the client.
 */
void ane_event_file_fini(struct ane_file *af)
{
	struct ane_events *ev = &af->adev->events;

	mutex_lock(&ev->shared_lock);
	if (ev->shared_owner == af)
		ane_event_shared_drop(af);
	mutex_unlock(&ev->shared_lock);
}
