// SPDX-License-Identifier: GPL-2.0-only
/*
 * Capabilities: the Linux form of the seed's entitlements (ch. 27,
 * Listing 27.6, Tables 27.5, 27.7 and 27.8).
 *
 * Each open file gets a capability set at open(2), from the opener's
 * credentials and the policy of the module parameters below, and keeps
 * it: nothing ever adds a bit, DRM_IOCTL_ANE_CAPS_DROP removes bits for
 * good.  The gates check the set where the seed's driver checks its
 * entitlements: DeviceOpen needs ANE_CAP_OPEN (-EACCES), every other gate
 * answers -EPERM.  The node's file mode still decides who may open(2) the
 * node at all; the set decides what that file may do with the engine.
 * Documentation/accel/ane/security.rst has the table.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/uidgid.h>

#include <drm/drm_file.h>
#include <drm/ane_accel.h>

#include <kunit/visibility.h>

#include "ane_caps.h"
#include "ane_drv.h"
#include "ane_selector.h"

/*
 * The group whose members get ``client_caps`` (a gid of the initial user
 * namespace; -1: no group).  Read once per open(2), so a change applies
 * to files opened afterwards.
 */
static int ane_client_gid = -1;
module_param_named(client_gid, ane_client_gid, int, 0644);
MODULE_PARM_DESC(client_gid,
		 "members of this group may use the engine (get client_caps); -1: none (default)");

static unsigned int ane_client_caps = ANE_CAPS_CLIENT_DEFAULT;
module_param_named(client_caps, ane_client_caps, uint, 0644);
MODULE_PARM_DESC(client_caps,
		 "ANE_CAP_* bits a member of client_gid gets (default 0x73; at most 0xf3)");

static bool ane_open_all;
module_param_named(open_all, ane_open_all, bool, 0644);
MODULE_PARM_DESC(open_all,
		 "development only: every opener gets client_caps, as if in client_gid (default N)");

/**
 * ane_caps_policy() - the capability set a file is opened with
 * @c: the opener's credentials and the parameters in force.
 *
 * CAP_SYS_ADMIN gets every capability.  A member of the client group (or
 * anyone under ``open_all``) gets ``client_caps``, limited to what a group
 * may be given.  CAP_SYS_NICE adds the real-time band, both levels; it
 * does not open the device by itself.
 *
 * Return: the set (ANE_CAP_* bits).
 */
u32 ane_caps_policy(const struct ane_caps_cred *c)
{
	u32 caps = 0;

	if (c->sys_admin)
		return ANE_CAP_ALL;
	if (c->in_group || c->open_all)
		caps |= c->client_caps & ANE_CAPS_CLIENT_GRANTABLE;
	if (c->sys_nice)
		caps |= ANE_CAPS_SYS_NICE;
	return caps;
}
EXPORT_SYMBOL_IF_KUNIT(ane_caps_policy);

/**
 * ane_caps_at_open() - the set of a file opened now by the current task
 *
 * Called from the DRM open callback, in the opener's context.
 *
 * Return: the set (ANE_CAP_* bits).
 */
u32 ane_caps_at_open(void)
{
	int gid = READ_ONCE(ane_client_gid);
	struct ane_caps_cred c = {
		.sys_admin = capable(CAP_SYS_ADMIN),
		.sys_nice = capable(CAP_SYS_NICE),
		.open_all = READ_ONCE(ane_open_all),
		.client_caps = READ_ONCE(ane_client_caps),
	};

	if (gid >= 0) {
		kgid_t kgid = make_kgid(&init_user_ns, gid);

		c.in_group = gid_valid(kgid) && in_group_p(kgid);
	}
	return ane_caps_policy(&c);
}

/**
 * ane_caps_selector_need() - the capability a selector needs
 * @sel: the selector.
 * @err: set to the errno a file without it gets (when the return is not 0).
 *
 * Return: the ANE_CAP_* bit @sel needs, or 0 for none.
 */
u32 ane_caps_selector_need(const struct ane_selector *sel, int *err)
{
	*err = -EPERM;
	switch (sel - ane_selectors) {
	case ANE_SEL_CTL_DEVICE_OPEN:
	case ANE_SEL_DP_DEVICE_OPEN:
		*err = -EACCES;
		return ANE_CAP_OPEN;
	case ANE_SEL_CTL_CHAINING_PREPARE:
	case ANE_SEL_DP_OUTPUT_SET_ENQUEUE:
	case ANE_SEL_DP_INPUTS_READY:
	case ANE_SEL_DP_CHAINING_SET_ACTIVE:
		return ANE_CAP_DATA_CHAINING;
	case ANE_SEL_DP_SESSION_HINT:
		return ANE_CAP_CLIENT_HINTS;
	case ANE_SEL_DP_MEMORY_MAP:
		return ANE_CAP_MEMORY;
	case ANE_SEL_CTL_REGISTER_DWP:
	case ANE_SEL_CTL_UNREGISTER_DWP:
	case ANE_SEL_CTL_GET_DWP_ITEM:
	case ANE_SEL_CTL_COMPLETE_DWP_ITEM:
	case ANE_SEL_CTL_RELEASE_DWP_BUFFERS:
		return ANE_CAP_PRIV_VM;
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_caps_selector_need);

/**
 * ane_caps_selector_admit() - may @af run @sel?
 * @af: the client.
 * @sel: the selector, already admitted by the client's state.
 *
 * Return: 0, or the errno of ane_caps_selector_need().
 */
int ane_caps_selector_admit(struct ane_file *af, const struct ane_selector *sel)
{
	int err;
	u32 need = ane_caps_selector_need(sel, &err);

	return !need || ane_caps_has(af, need) ? 0 : err;
}

/**
 * ane_caps_ioctl_admit() - may @af run driver ioctl @cmd?
 * @af: the client.
 * @cmd: a driver ioctl (not a selector, not a DRM core ioctl).
 *
 * Return: 0, or -EPERM without the capability @cmd needs.
 */
int ane_caps_ioctl_admit(struct ane_file *af, unsigned int cmd)
{
	switch (_IOC_NR(cmd) - DRM_COMMAND_BASE) {
	case DRM_ANE_SURFACE_CREATE:
		return ane_caps_has(af, ANE_CAP_MEMORY) ? 0 : -EPERM;
	case DRM_ANE_DMA:
		return ane_caps_has(af, ANE_CAP_DATA) ? 0 : -EPERM;
	default:
		return 0;
	}
}

/**
 * ane_caps_priority_check() - may a file holding @caps use @priority?
 * @caps: the file's set.
 * @priority: a program priority, 0..7.
 *
 * Return: 0; -EPERM for 1 without ANE_CAP_REALTIME, for 0 without
 * ANE_CAP_REALTIME and ANE_CAP_SYSTEM_PRIORITY.
 */
int ane_caps_priority_check(u32 caps, u32 priority)
{
	u32 need = 0;

	if (priority == 0)
		need = ANE_CAP_REALTIME | ANE_CAP_SYSTEM_PRIORITY;
	else if (priority == 1)
		need = ANE_CAP_REALTIME;
	return (caps & need) == need ? 0 : -EPERM;
}
EXPORT_SYMBOL_IF_KUNIT(ane_caps_priority_check);

/* DRM_IOCTL_ANE_CAPS_DROP: remove bits, never add; any file, any state. */
int ane_caps_drop_ioctl(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_ane_caps_drop *d = data;
	struct ane_file *af = file->driver_priv;

	if ((d->drop & ~ANE_CAP_ALL) || d->flags || d->reserved)
		return -EINVAL;
	atomic_andnot(d->drop, &af->caps);
	d->caps = ane_caps(af);
	return 0;
}
