/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_CAPS_H__
#define __ANE_CAPS_H__

#include <linux/atomic.h>
#include <linux/types.h>

#include <drm/ane_accel.h>

#include "ane_drv.h"

struct drm_device;
struct drm_file;
struct ane_selector;

/*
 * What a file in the client group gets (the ``client_caps`` default), and
 * what the group may ever be given: the real-time, system-priority and
 * privileged-VM-access capabilities come from the opener's Linux
 * capabilities only.
 */
#define ANE_CAPS_CLIENT_DEFAULT	(ANE_CAP_OPEN | ANE_CAP_DATA_CHAINING | \
				 ANE_CAP_MEMORY | ANE_CAP_DATA | \
				 ANE_CAP_CLIENT_HINTS)
#define ANE_CAPS_CLIENT_GRANTABLE (ANE_CAPS_CLIENT_DEFAULT | \
				   ANE_CAP_COALITION_HINTS)
/* CAP_SYS_NICE: the real-time band, both of its levels. */
#define ANE_CAPS_SYS_NICE	(ANE_CAP_REALTIME | ANE_CAP_SYSTEM_PRIORITY)

/**
 * struct ane_caps_cred - what the policy looks at when a file is opened
 * @sys_admin: the opener has CAP_SYS_ADMIN (in the initial namespace).
 * @sys_nice: the opener has CAP_SYS_NICE.
 * @in_group: the opener is in the ``client_gid`` group.
 * @open_all: the ``open_all`` development parameter is set.
 * @client_caps: the ``client_caps`` parameter.
 */
struct ane_caps_cred {
	bool sys_admin;
	bool sys_nice;
	bool in_group;
	bool open_all;
	u32 client_caps;
};

u32 ane_caps_policy(const struct ane_caps_cred *c);
u32 ane_caps_at_open(void);
u32 ane_caps_selector_need(const struct ane_selector *sel, int *err);
int ane_caps_selector_admit(struct ane_file *af, const struct ane_selector *sel);
int ane_caps_ioctl_admit(struct ane_file *af, unsigned int cmd);
int ane_caps_priority_check(u32 caps, u32 priority);
int ane_caps_drop_ioctl(struct drm_device *dev, void *data,
			struct drm_file *file);

/* The file's capability set now (it only ever shrinks). */
static inline u32 ane_caps(const struct ane_file *af)
{
	return (u32)atomic_read(&af->caps);
}

static inline bool ane_caps_has(const struct ane_file *af, u32 cap)
{
	return (ane_caps(af) & cap) == cap;
}

#endif /* __ANE_CAPS_H__ */
