/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The firmware's events: wait-event slots and the shared event
 * (driver/ane_event.c).
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef __ANE_EVENT_H__
#define __ANE_EVENT_H__

#include <linux/types.h>

struct ane_device;
struct ane_file;
struct ane_fw_event;
struct ane_host;

int ane_events_init(struct ane_device *adev);
int ane_event_slot_get(struct ane_device *adev, u32 *slot, u64 *value);
void ane_event_slot_put(struct ane_device *adev, u32 slot);
int ane_event_signal(struct ane_host *h, u64 id, u64 value, bool failed);
int ane_event_shared_activate(struct ane_file *af, u64 *result);
int ane_event_shared_deactivate(struct ane_file *af, u64 id);
int ane_event_shared_ring(struct ane_file *af, u64 id, u64 *result);
int ane_event_shared_wait(struct ane_file *af, u32 id,
			  struct ane_fw_event *wait);
void ane_event_file_fini(struct ane_file *af);
u32 ane_host_shared_events(struct ane_host *h);

#endif /* __ANE_EVENT_H__ */
