// SPDX-License-Identifier: GPL-2.0-only
/*
 * Selector dispatch: the M1's two user-client selector spaces as ioctls.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/ioctl.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>

#include "ane_drv.h"
#include "ane_selector.h"

/*
 * Every uapi struct must be exactly its selector's tuple: a mismatch is a
 * build failure, so the ioctl numbers (which encode the struct size) and
 * the dispatch table can never disagree.
 */
#define ANE_SEL_SIZE_CHECK(space, sel, id, name, si, sin, so, sout, fn) \
	static_assert(_IOC_SIZE(DRM_IOCTL_ANE_##id) == \
		      (si) * 8 + (sin) + (so) * 8 + (sout), \
		      "size of " #id " differs from its selector tuple");
ANE_SELECTORS(ANE_SEL_SIZE_CHECK)
#undef ANE_SEL_SIZE_CHECK

const struct ane_selector ane_selectors[ANE_SEL_COUNT] = {
#define ANE_SEL_ENTRY(sp, sel, id, nm, si, sin, so, sout, fn) \
	[ANE_SEL_##id] = { \
		.name = nm, \
		.ioctl_name = "ANE_" #id, \
		.space = ANE_SPACE_##sp, \
		.index = sel, \
		.cmd = DRM_IOCTL_ANE_##id, \
		.scalar_in = si, \
		.struct_in = sin, \
		.scalar_out = so, \
		.struct_out = sout, \
		.handler = fn, \
	},
	ANE_SELECTORS(ANE_SEL_ENTRY)
#undef ANE_SEL_ENTRY
};

/**
 * ane_selector_call() - run one selector for a file
 * @dev: the DRM device.
 * @id: &enum ane_selector_id.
 * @data: the kernel copy of the argument struct.
 * @file: the DRM file.
 *
 * Admission (client state and space) and the handler run under the
 * file's state lock: for reading, or for writing when the selector
 * changes the client's state (DeviceOpen, DeviceClose).
 *
 * Return: 0 or a negative errno.
 */
static int ane_selector_call(struct drm_device *dev, enum ane_selector_id id,
			     void *data, struct drm_file *file)
{
	const struct ane_selector *sel = &ane_selectors[id];
	struct ane_file *af = file->driver_priv;
	bool excl = sel->handler == ane_sel_device_open ||
		    sel->handler == ane_sel_device_close;
	int idx, ret;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	if (excl)
		down_write(&af->state_lock);
	else
		down_read(&af->state_lock);

	ret = ane_client_admit(af->state, af->space, sel);
	if (!ret)
		ret = sel->handler(af, sel, data);

	if (excl)
		up_write(&af->state_lock);
	else
		up_read(&af->state_lock);

	drm_dev_exit(idx);
	return ret;
}

/* One thunk per selector: the DRM ioctl table carries no context. */
#define ANE_SEL_THUNK(sp, sel, id, nm, si, sin, so, sout, fn) \
	static int ane_ioctl_##id(struct drm_device *dev, void *data, \
				  struct drm_file *file) \
	{ \
		return ane_selector_call(dev, ANE_SEL_##id, data, file); \
	}
ANE_SELECTORS(ANE_SEL_THUNK)
#undef ANE_SEL_THUNK

const struct drm_ioctl_desc ane_drm_ioctls[ANE_NUM_DRM_IOCTLS] = {
#define ANE_SEL_IOCTL(sp, sel, id, nm, si, sin, so, sout, fn) \
	DRM_IOCTL_DEF_DRV(ANE_##id, ane_ioctl_##id, 0),
	ANE_SELECTORS(ANE_SEL_IOCTL)
#undef ANE_SEL_IOCTL
};

/**
 * ane_selector_by_nr() - find the selector behind a driver ioctl number
 * @nr: ioctl number relative to DRM_COMMAND_BASE.
 *
 * Return: the selector, or NULL if @nr names none.
 */
const struct ane_selector *ane_selector_by_nr(unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < ANE_SEL_COUNT; i++)
		if (_IOC_NR(ane_selectors[i].cmd) - DRM_COMMAND_BASE == nr)
			return &ane_selectors[i];
	return NULL;
}

/**
 * ane_selector_check_cmd() - enforce the exact size tuple of a selector
 * @cmd: the ioctl command as userspace issued it.
 *
 * DRM's core accepts a driver ioctl whose encoded size differs from the
 * driver's and silently zero-extends or truncates the argument.  The seed
 * ABI has no such tolerance: a selector answers to exactly one size and
 * direction.  Commands outside the driver range pass through untouched.
 *
 * Return: 0, or -EINVAL if @cmd names a selector with another size or
 * direction.
 */
int ane_selector_check_cmd(unsigned int cmd)
{
	const struct ane_selector *sel;
	unsigned int nr = _IOC_NR(cmd);

	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE ||
	    nr < DRM_COMMAND_BASE || nr >= DRM_COMMAND_END)
		return 0;

	sel = ane_selector_by_nr(nr - DRM_COMMAND_BASE);
	if (sel && cmd != sel->cmd)
		return -EINVAL;
	return 0;
}

/**
 * ane_client_admit() - may a client in @state run @sel?
 * @state: the client's &enum ane_client_state.
 * @space: the client's space (ignored while %ANE_CLIENT_NEW).
 * @sel: the selector.
 *
 * Return: 0 if admitted; -ESHUTDOWN after DeviceClose; -ENOTCONN for
 * anything but DeviceOpen before DeviceOpen; -EBADRQC for a selector of
 * the other space; -EISCONN for a second DeviceOpen.
 */
int ane_client_admit(enum ane_client_state state, enum ane_space space,
		     const struct ane_selector *sel)
{
	bool is_open = sel->handler == ane_sel_device_open;

	switch (state) {
	case ANE_CLIENT_NEW:
		return is_open ? 0 : -ENOTCONN;
	case ANE_CLIENT_OPEN:
		if (sel->space != space)
			return -EBADRQC;
		return is_open ? -EISCONN : 0;
	case ANE_CLIENT_CLOSED:
	default:
		return -ESHUTDOWN;
	}
}
