// SPDX-License-Identifier: GPL-2.0-only
/*
 * Selector dispatch: the M1's two user-client selector spaces as ioctls.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "ane_caps.h"
#include "ane_drv.h"
#include "ane_selector.h"

/*
 * One entry of the dispatch table, the counterpart of the M1's
 * IOExternalMethodDispatch2022 records.  The ioctl number encodes the
 * uapi struct's size: the uapi header asserts every struct against its
 * seed tuple at build time, and the KUnit suite checks this table's
 * tuples against both the ioctl sizes and the seed tables.
 */
#define ANE_SEL_COPY(_id, _space, _index, _name, _si, _sin, _so, _sout,	\
		     _fn, _copy)					\
	[ANE_SEL_##_id] = {						\
		.name = _name,						\
		.ioctl_name = "DRM_IOCTL_ANE_" #_id,			\
		.space = ANE_SPACE_##_space,				\
		.index = _index,					\
		.cmd = DRM_IOCTL_ANE_##_id,				\
		.scalar_in = _si,					\
		.struct_in = _sin,					\
		.scalar_out = _so,					\
		.struct_out = _sout,					\
		.handler = _fn,						\
		.copy_in = _copy,					\
	}
#define ANE_SEL(_id, _space, _index, _name, _si, _sin, _so, _sout, _fn)	\
	ANE_SEL_COPY(_id, _space, _index, _name, _si, _sin, _so, _sout, _fn, NULL)

const struct ane_selector ane_selectors[ANE_SEL_COUNT] = {
	ANE_SEL(CTL_DEVICE_OPEN, CONTROL, 0, "ANE_DeviceOpen",
		0, 104, 0, 104, ane_sel_device_open),
	ANE_SEL(CTL_DEVICE_CLOSE, CONTROL, 1, "ANE_DeviceClose",
		0, 0, 0, 0, ane_sel_device_close),
	ANE_SEL_COPY(CTL_SEND_REQUEST, CONTROL, 2, "ANE_ProgramSendRequest",
		     1, 2376, 0, 40, ane_sel_send_request,
		     ane_send_request_copy_in),
	ANE_SEL(CTL_PROGRAM_CREATE, CONTROL, 3, "ANE_ProgramCreate",
		0, 32, 0, 0, ane_sel_program_create),
	ANE_SEL(CTL_PROGRAM_PREPARE, CONTROL, 4, "ANE_ProgramPrepare",
		0, 56, 0, 56, ane_sel_program_prepare),
	ANE_SEL(CTL_PROGRAM_UNPREPARE, CONTROL, 5, "ANE_ProgramUnprepare",
		0, 56, 0, 0, ane_sel_program_unprepare),
	ANE_SEL(CTL_PROGRAM_DESTROY, CONTROL, 6, "ANE_ProgramDestroy",
		0, 16, 0, 0, ane_sel_program_destroy),
	ANE_SEL(CTL_GET_STATUS, CONTROL, 7, "ANE_GetStatus",
		0, 0, 0, 32, ane_sel_get_status),
	ANE_SEL(CTL_PROGRAM_CREATE_INSTANCE, CONTROL, 8, "ANE_ProgramCreateInstance",
		0, 32, 0, 0, ane_sel_program_create_instance),
	ANE_SEL(CTL_CHAINING_PREPARE, CONTROL, 9, "ANE_ProgramChainingPrepare",
		0, 16, 0, 24, ane_sel_chaining_prepare),
	ANE_SEL(CTL_GET_VERSION, CONTROL, 10, "ANE_GetVersion",
		0, 0, 1, 0, ane_sel_get_version),
	ANE_SEL(CTL_REGISTER_DWP, CONTROL, 11, "ANE_RegisterDebugWorkProcessor",
		0, 24, 0, 0, ane_sel_register_dwp),
	ANE_SEL(CTL_UNREGISTER_DWP, CONTROL, 12, "ANE_UnregisterDebugWorkProcessor",
		0, 0, 0, 0, ane_sel_unregister_dwp),
	ANE_SEL(CTL_GET_DWP_ITEM, CONTROL, 13, "ANE_GetDebugWorkProcessorItem",
		2, 0, 0, 0, ane_sel_get_dwp_item),
	ANE_SEL(CTL_COMPLETE_DWP_ITEM, CONTROL, 14, "ANE_CompleteDebugWorkProcessorItem",
		2, 0, 0, 0, ane_sel_complete_dwp_item),
	ANE_SEL(CTL_RELEASE_DWP_BUFFERS, CONTROL, 15, "ANE_ReleaseDebugWorkProcessorBuffers",
		0, 0, 0, 0, ane_sel_release_dwp_buffers),
	ANE_SEL(CTL_LOAD_FIRMWARE, CONTROL, 16, "ANE_LoadFirmware",
		3, 0, 0, 0, ane_sel_load_firmware),
	ANE_SEL(DP_DEVICE_OPEN, DIRECT, 0, "ANE_DeviceOpen",
		0, 104, 0, 104, ane_sel_device_open),
	ANE_SEL(DP_DEVICE_CLOSE, DIRECT, 1, "ANE_DeviceClose",
		0, 0, 0, 0, ane_sel_device_close),
	ANE_SEL_COPY(DP_SEND_REQUEST, DIRECT, 2, "ANE_ProgramSendRequest",
		     1, 2376, 0, 40, ane_sel_send_request,
		     ane_send_request_copy_in),
	ANE_SEL(DP_OUTPUT_SET_ENQUEUE, DIRECT, 3, "ANE_ProgramOutputSetEnqueue",
		0, 40, 0, 0, ane_sel_output_set_enqueue),
	ANE_SEL(DP_INPUTS_READY, DIRECT, 4, "ANE_ProgramInputsReady",
		0, 3104, 0, 0, ane_sel_inputs_ready),
	ANE_SEL(DP_MEMORY_MAP, DIRECT, 5, "ANE_MemoryMapRequest",
		1, 2080, 1, 0, ane_sel_memory_map),
	ANE_SEL(DP_MEMORY_UNMAP, DIRECT, 6, "ANE_MemoryUnMapRequest",
		0, 2080, 0, 0, ane_sel_memory_unmap),
	ANE_SEL(DP_SESSION_HINT, DIRECT, 7, "ANE_SessionHintRequest",
		0, 16, 0, 24, ane_sel_session_hint),
	ANE_SEL(DP_CHAINING_SET_ACTIVE, DIRECT, 8, "ANE_ProgramChainingSetActiveProcedure",
		0, 32, 0, 0, ane_sel_chaining_set_active),
};

/**
 * ane_selector_find() - the selector an ioctl command names
 * @cmd: the ioctl command as userspace issued it.
 *
 * DRM's core accepts a driver ioctl whose encoded size differs from the
 * driver's and silently zero-extends or truncates the argument.  The seed
 * ABI has no such tolerance: a selector answers to exactly one size and
 * direction, so any other encoding of a selector's number is refused here,
 * before a handler runs.
 *
 * Return: the selector; NULL if @cmd is not a selector's number (DRM core
 * ioctls and the driver's other ioctls); ERR_PTR(-EINVAL) if it is one
 * with another size or direction.
 */
const struct ane_selector *ane_selector_find(unsigned int cmd)
{
	unsigned int i;

	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE)
		return NULL;
	for (i = 0; i < ANE_SEL_COUNT; i++) {
		if (_IOC_NR(ane_selectors[i].cmd) != _IOC_NR(cmd))
			continue;
		if (ane_selectors[i].cmd != cmd)
			return ERR_PTR(-EINVAL);
		return &ane_selectors[i];
	}
	return NULL;
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

/* DeviceOpen and DeviceClose change the client's state. */
static bool ane_selector_is_transition(const struct ane_selector *sel)
{
	return sel->handler == ane_sel_device_open ||
	       sel->handler == ane_sel_device_close;
}

/*
 * Admission and the handler run under the file's state lock: for reading,
 * or for writing when the selector changes the client's state.
 */
static int ane_selector_run(struct ane_file *af, const struct ane_selector *sel,
			    void *kdata)
{
	bool excl = ane_selector_is_transition(sel);
	int ret;

	if (excl)
		down_write(&af->state_lock);
	else
		down_read(&af->state_lock);

	ret = ane_client_admit(af->state, af->space, sel);
	if (!ret)
		ret = ane_caps_selector_admit(af, sel);
	if (!ret)
		ret = sel->handler(af, sel, kdata);

	if (excl)
		up_write(&af->state_lock);
	else
		up_read(&af->state_lock);
	return ret;
}

/**
 * ane_selector_ioctl() - run one selector for a file
 * @filp: the accel file.
 * @sel: the selector, as found by ane_selector_find().
 * @arg: the user pointer to the argument struct.
 *
 * The tuple's inputs are copied in and its outputs start zeroed, the
 * handler runs inside drm_dev_enter() so an unplugged device answers
 * -ENODEV, and the outputs -- never the inputs -- are copied back only
 * when the handler succeeded.
 *
 * Return: 0 or a negative errno.
 */
long ane_selector_ioctl(struct file *filp, const struct ane_selector *sel,
			unsigned long arg)
{
	struct drm_file *file = filp->private_data;
	struct drm_device *dev = file->minor->dev;
	void __user *uarg = (void __user *)arg;
	unsigned int size = _IOC_SIZE(sel->cmd);
	unsigned int in = sel->scalar_in * sizeof(u64) + sel->struct_in;
	u64 stack[16];
	void *kdata = stack;
	long ret;
	int idx;

	if (size > sizeof(stack)) {
		kdata = kmalloc(size, GFP_KERNEL);
		if (!kdata)
			return -ENOMEM;
	}
	if (sel->copy_in ? sel->copy_in(kdata, uarg, in) :
	    copy_from_user(kdata, uarg, in)) {
		ret = -EFAULT;
		goto out;
	}
	memset(kdata + in, 0, size - in);

	if (!drm_dev_enter(dev, &idx)) {
		ret = -ENODEV;
		goto out;
	}
	ret = ane_selector_run(file->driver_priv, sel, kdata);
	drm_dev_exit(idx);

	if (!ret && size > in && copy_to_user(uarg + in, kdata + in, size - in))
		ret = -EFAULT;
out:
	if (kdata != stack)
		kfree(kdata);
	return ret;
}
