// SPDX-License-Identifier: GPL-2.0-only
/*
 * The methods of ch. 27 Table 27.5 beyond the selectors, one ioctl
 * (DRM_IOCTL_ANE_METHOD): power-domain control, persistent clients and the
 * power policy over runtime PM (Documentation/accel/ane/power.rst); the
 * firmware-lifecycle and secure-world methods answer -EOPNOTSUPP as on a
 * machine without them.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>
#include <linux/regmap.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/ane_accel.h>

#include "ane_caps.h"
#include "ane_drv.h"
#include "ane_event.h"
#include "ane_host.h"
#include "ane_host_msg.h"
#include "firmware/spec/ane_fw_abi.h"
#include "firmware/spec/ane_regs.h"

/* PowerOn: the file's hold, taken once; the engine is up on return. */
static int ane_method_power_on(struct ane_file *af, struct device *dev,
			       u64 *result)
{
	int ret;

	if (!af->power_hold) {
		ret = pm_runtime_resume_and_get(dev);
		if (ret < 0)
			return ret;
		af->power_hold = true;
	}
	*result = 1;
	return 0;
}

/* PowerOff: the file's hold dropped, and the engine down now if it may. */
static int ane_method_power_off(struct ane_file *af, struct device *dev,
				u64 *result)
{
	if (af->power_hold) {
		af->power_hold = false;
		pm_runtime_mark_last_busy(dev);
		pm_runtime_put_noidle(dev);
	}
	/* refused (something else holds it, or the policy): it stays up */
	pm_runtime_suspend(dev);
	*result = pm_runtime_status_suspended(dev);
	return 0;
}

static int ane_method_persistent(struct ane_file *af, struct device *dev,
				 bool add)
{
	int ret;

	if (add == af->persistent)
		return add ? -EALREADY : -ENOENT;
	if (add) {
		ret = pm_runtime_resume_and_get(dev);
		if (ret < 0)
			return ret;
	} else {
		pm_runtime_mark_last_busy(dev);
		pm_runtime_put_autosuspend(dev);
	}
	af->persistent = add;
	return 0;
}

/* The device's autosuspend delay (-1 without runtime PM). */
static int ane_method_pm_delay(struct device *dev)
{
#ifdef CONFIG_PM
	return dev->power.autosuspend_delay;
#else
	return -1;
#endif
}

/*
 * The device's policy: SetPowerManagement, the power-gating pair and
 * SetThrottlingPercentage.  It
 * changes the device for everyone: the privileged check of the seed
 * (ANE_CAP_PRIV_VM, which only CAP_SYS_ADMIN opens with).
 */
static int ane_method_policy(struct ane_file *af, struct ane_device *adev,
			     struct device *dev, u32 method, u64 value)
{
	int ret = 0;

	if (!ane_caps_has(af, ANE_CAP_PRIV_VM))
		return -EPERM;
	if (method == ANE_METHOD_SET_THROTTLING_PERCENTAGE) {
		if (!value || value > 100)
			return -EINVAL;
		/* the engine's speed register: a setting of its power domain */
		return regmap_write(adev->regs[ANE_BANK_ANE],
				    ANE_REG_ENG_THROTTLE, value);
	}
	if (method == ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME ?
	    value > ANE_POWER_HYSTERESIS_MAX_MS : value > 1)
		return -EINVAL;

	mutex_lock(&adev->pm_lock);
	switch (method) {
	case ANE_METHOD_SET_POWER_MANAGEMENT:
		if (value)
			pm_runtime_allow(dev);
		else
			pm_runtime_forbid(dev);
		break;
	case ANE_METHOD_SET_DYNAMIC_POWER_GATING:
		if (!value == adev->pm_gating_off)
			break;
		if (!value) {
			adev->pm_saved_delay = ane_method_pm_delay(dev);
			pm_runtime_set_autosuspend_delay(dev, -1);
		} else {
			pm_runtime_set_autosuspend_delay(dev,
							 adev->pm_saved_delay);
		}
		adev->pm_gating_off = !value;
		break;
	default:	/* the hysteresis time */
		if (adev->pm_gating_off)
			adev->pm_saved_delay = value;	/* applies when on */
		else
			pm_runtime_set_autosuspend_delay(dev, value);
		break;
	}
	mutex_unlock(&adev->pm_lock);
	return ret;
}

/* SetDARTCacheTTL: the device's setting, the previous one in @result. */
static int ane_method_dart_ttl(struct ane_file *af, u64 value, u64 *result)
{
	if (!ane_caps_has(af, ANE_CAP_PRIV_VM))
		return -EPERM;
	if (value > ANE_DART_CACHE_TTL_MAX_MS)
		return -EINVAL;
	*result = xchg(&af->adev->dart_ttl_ms, (u32)value);
	return 0;
}

/*
 * FlushInactiveDARTMappings (@value 0 this file, 1 every client) and
 * UnmapDartBuffers (@value 0 this file, else a client id).
 */
static int ane_method_dart_flush(struct ane_file *af, u32 method, u64 value,
				 u64 *result)
{
	struct drm_device *drm = &af->adev->drm;
	bool unmap = method == ANE_METHOD_UNMAP_DART_BUFFERS;
	struct drm_file *file;
	bool found = false;

	if (!unmap && value > 1)
		return -EINVAL;
	if (!value || (unmap && value == af->drm_file->client_id)) {
		*result = unmap ? ane_file_unmap_buffers(af) :
				  ane_file_flush_inactive(af);
		return 0;
	}
	if (!ane_caps_has(af, ANE_CAP_PRIV_VM))
		return -EPERM;
	mutex_lock(&drm->filelist_mutex);
	list_for_each_entry(file, &drm->filelist, lhead) {
		struct ane_file *other = file->driver_priv;

		if (!other || (unmap && file->client_id != value))
			continue;
		found = true;
		*result += unmap ? ane_file_unmap_buffers(other) :
				   ane_file_flush_inactive(other);
	}
	mutex_unlock(&drm->filelist_mutex);
	return found ? 0 : -ESRCH;
}

/*
 * The registers WriteANERegister may write: the engine's speed and its
 * emulated latency, and the three HAL banks, which the host does not
 * use.  Everything else the host, the firmware or the DART owns, or is
 * read-only.
 */
static bool ane_method_reg_writable(u32 bank, u32 off)
{
	if (bank >= ANE_BANK_HAL1)
		return true;
	return bank == ANE_BANK_ANE && (off == ANE_REG_ENG_THROTTLE ||
					off == ANE_REG_ENG_LATENCY_NS);
}

/* ReadANERegister and WriteANERegister, the engine powered for them. */
static int ane_method_reg(struct ane_file *af, struct device *dev,
			  u32 method, u64 value, u64 *result)
{
	u32 bank = value >> 56, off = (value >> 32) & 0xffffff;
	u32 val = lower_32_bits(value), v = 0;
	struct regmap *map;
	int ret;

	if (!ane_caps_has(af, ANE_CAP_PRIV_VM))
		return -EPERM;
	if (bank >= ANE_NUM_BANKS || off % 4)
		return -EINVAL;
	map = af->adev->regs[bank];
	if (off > regmap_get_max_register(map))
		return -ERANGE;
	if (method == ANE_METHOD_READ_ANE_REGISTER && val)
		return -EINVAL;
	if (method == ANE_METHOD_WRITE_ANE_REGISTER &&
	    !ane_method_reg_writable(bank, off))
		return -EACCES;
	ret = pm_runtime_resume_and_get(dev);
	if (ret < 0)
		return ret;
	if (method == ANE_METHOD_READ_ANE_REGISTER)
		ret = regmap_read(map, off, &v);
	else
		ret = regmap_write(map, off, val);
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
	*result = v;
	return ret;
}

/*
 * FWSharedEventDoorbellRing: ring one of the firmware's host-to-firmware
 * doorbells (bit 1..4 of ANE_REG_FW_DOORBELL).  A doorbell with nothing
 * behind it is one the firmware answers by looking at that ring and
 * finding it empty; the boot doorbell (bit 0) is the host's handshake.
 */
static int ane_method_doorbell(struct ane_file *af, struct device *dev,
			       u64 value)
{
	int ret;

	if (!ane_caps_has(af, ANE_CAP_PRIV_VM))
		return -EPERM;
	if (!value)
		return -EACCES;
	if (value > 4)
		return -EINVAL;
	ret = pm_runtime_resume_and_get(dev);
	if (ret < 0)
		return ret;
	ret = regmap_write(af->adev->regs[ANE_BANK_ANE], ANE_REG_FW_DOORBELL,
			   BIT(value));
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
	return ret;
}

/**
 * ane_method_ioctl() - DRM_IOCTL_ANE_METHOD
 * @drm: the device.
 * @data: &struct drm_ane_method_args.
 * @file: the caller's file.
 *
 * Return: 0 with @result set; -EINVAL for an unknown method or one that
 * takes a buffer, non-zero @flags or @reserved, or a value out of range;
 * -EOPNOTSUPP for the firmware-lifecycle and secure-world methods; -EPERM
 * for a policy, register, doorbell or DART-cache method without
 * ANE_CAP_PRIV_VM (the DART flushes beyond the caller's own mappings
 * too), or a power hold without ANE_CAP_OPEN; -EALREADY/-ENOENT for a
 * persistent client added twice or removed when not added; -ESRCH for
 * UnmapDartBuffers of a client that does not exist; -ERANGE for a
 * register past its bank, -EACCES for a write outside the writable set
 * or the boot doorbell; -ENODEV once the device is unplugged; the error
 * of a power-up that failed.  The shared event (ane_event.c): ACTIVATE
 * -EPERM without ANE_CAP_DATA_CHAINING, -EBUSY while one is active;
 * DEACTIVATE and a ring of ANE_DOORBELL_SHARED_EVENT() -ENOENT for an id
 * that is not the caller's active one.
 */
int ane_method_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ane_device *adev = to_ane_device(drm);
	struct ane_file *af = file->driver_priv;
	struct drm_ane_method_args *a = data;
	struct device *dev = &adev->pdev->dev;
	int idx, ret;

	if (a->flags || a->reserved[0] || a->reserved[1])
		return -EINVAL;
	a->result = 0;
	switch (a->method) {
	case ANE_METHOD_POWER_ON ... ANE_METHOD_SET_THROTTLING_PERCENTAGE:
		break;
	case ANE_METHOD_SET_DART_CACHE_TTL:
		return ane_method_dart_ttl(af, a->value, &a->result);
	case ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS:
	case ANE_METHOD_UNMAP_DART_BUFFERS:
		return ane_method_dart_flush(af, a->method, a->value,
					     &a->result);
	case ANE_METHOD_READ_ANE_REGISTER:
	case ANE_METHOD_WRITE_ANE_REGISTER:
	case ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING:
		if (!drm_dev_enter(drm, &idx))
			return -ENODEV;
		/* a shared event is its owner's to ring (ane_event.c) */
		if (a->method == ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING &&
		    upper_32_bits(a->value) == 1)
			ret = ane_event_shared_ring(af, lower_32_bits(a->value),
						    &a->result);
		else if (a->method == ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING)
			ret = ane_method_doorbell(af, dev, a->value);
		else
			ret = ane_method_reg(af, dev, a->method, a->value,
					     &a->result);
		drm_dev_exit(idx);
		return ret;
	case ANE_METHOD_SHARED_EVENT_ACTIVATE:
	case ANE_METHOD_SHARED_EVENT_DEACTIVATE:
		if (a->method == ANE_METHOD_SHARED_EVENT_ACTIVATE && a->value)
			return -EINVAL;
		if (!drm_dev_enter(drm, &idx))
			return -ENODEV;
		if (a->method == ANE_METHOD_SHARED_EVENT_ACTIVATE)
			ret = ane_event_shared_activate(af, &a->result);
		else
			ret = ane_event_shared_deactivate(af, a->value);
		drm_dev_exit(idx);
		return ret;
	case ANE_METHOD_LOAD_FIRMWARE:
	case ANE_METHOD_FORGET_FIRMWARE:
	case ANE_METHOD_EXCLAVE_CYCLE ... ANE_METHOD_EXCLAVE_WRITE_PROPERTY:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	if (a->method < ANE_METHOD_SET_POWER_MANAGEMENT && a->value)
		return -EINVAL;		/* the holds and the query take none */
	/* holding the engine up is using it: the open capability */
	if ((a->method == ANE_METHOD_POWER_ON ||
	     a->method == ANE_METHOD_ADD_PERSISTENT_CLIENT) &&
	    !ane_caps_has(af, ANE_CAP_OPEN))
		return -EPERM;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	mutex_lock(&af->power_lock);
	switch (a->method) {
	case ANE_METHOD_POWER_ON:
		ret = ane_method_power_on(af, dev, &a->result);
		break;
	case ANE_METHOD_POWER_OFF:
		ret = ane_method_power_off(af, dev, &a->result);
		break;
	case ANE_METHOD_IS_POWERED:
		a->result = !pm_runtime_status_suspended(dev);
		ret = 0;
		break;
	case ANE_METHOD_ADD_PERSISTENT_CLIENT:
	case ANE_METHOD_REMOVE_PERSISTENT_CLIENT:
		ret = ane_method_persistent(af, dev, a->method ==
					    ANE_METHOD_ADD_PERSISTENT_CLIENT);
		break;
	default:
		ret = ane_method_policy(af, adev, dev, a->method, a->value);
		break;
	}
	mutex_unlock(&af->power_lock);
	drm_dev_exit(idx);
	return ret;
}

/**
 * ane_method_file_fini() - a closing file gives back its power holds
 * @af: the client.
 */
void ane_method_file_fini(struct ane_file *af)
{
	struct device *dev = &af->adev->pdev->dev;
	int holds;

	mutex_lock(&af->power_lock);
	holds = af->power_hold + af->persistent;
	af->power_hold = false;
	af->persistent = false;
	mutex_unlock(&af->power_lock);
	while (holds--) {
		pm_runtime_mark_last_busy(dev);
		pm_runtime_put_autosuspend(dev);
	}
}

/*
 * The control commands SendCommand may send: the ones that change
 * nothing the host keeps track of.  Any other id the firmware knows
 * (boot, program lifecycle, properties, cache requests, secure mode) is
 * the host's own (-EACCES); an id it does not know goes through, and the
 * firmware answers it -EOPNOTSUPP.
 */
static bool ane_method_cmd_allowed(u32 id)
{
	switch (id) {
	case ANE_CTL_BUILDINFO:
	case ANE_CTL_PING:
	case ANE_CTL_CONFIG_GET:
	case ANE_CTL_CH_PROPERTY_READ:
	case ANE_CTL_RESOURCE_INFO_GET:
	case ANE_CTL_STATS_BUFFER_SIZE_GET:
		return true;
	case ANE_CTL_START:
	case ANE_CTL_STOP:
	case ANE_CTL_PRINT_ENABLE:
	case ANE_CTL_TIME_SYNC:
	case ANE_CTL_PMU_BASE_SET:
	case ANE_CTL_IPC_ENDPOINT_SET:
	case ANE_CTL_IPC_ENDPOINT_UNSET:
	case ANE_CTL_CH_PROPERTY_WRITE:
	case ANE_CTL_DEFAULT_SETTINGS_SET:
	case ANE_CTL_MCACHE_POWER_ON:
	case ANE_CTL_SHARED_EVENT_INIT:
	case ANE_CTL_EVENT_SIGNAL:
	case ANE_CTL_SECURE_MODE_START:
	case ANE_CTL_SECURE_MODE_STOP:
	case ANE_CTL_LOAD_PROGRAM:
	case ANE_CTL_UNLOAD_PROGRAM:
	case ANE_CTL_CREATE_PROCESS:
	case ANE_CTL_TERMINATE_PROCESS:
	case ANE_CTL_PROCEDURE_CALL:
	case ANE_CTL_CACHE_REQUEST_INSTALL:
	case ANE_CTL_CACHE_REQUEST_TRIGGER:
	case ANE_CTL_CACHE_REQUEST_RECYCLE:
	case ANE_CTL_CACHE_REQUEST_INVALIDATE:
	case ANE_CTL_CACHE_REQUEST_OUTPUT_SET:
	case ANE_CTL_PREMAP_BUFFER:
	case ANE_CTL_FORCE_DISABLE_CACHE_REQUESTS:
	case ANE_CTL_SET_ACTIVE_CACHE_REQUEST_IN_GROUP:
	case ANE_CTL_INFERENCE_CALL:
	case ANE_CTL_BACK_CHANNEL_RPC:
		return false;
	default:
		return true;
	}
}

/* SendCommand: the command in @a's buffer, its reply data back there. */
static int ane_method_send_command(struct ane_file *af,
				   struct drm_ane_method_buf *a)
{
	void __user *ptr = u64_to_user_ptr(a->ptr);
	struct ane_host *h = af->adev->fwh;
	struct ane_fw_cmd_hdr *hdr;
	u32 out_len;
	void *buf;
	int ret;

	if (!ane_caps_has(af, ANE_CAP_PRIV_VM))
		return -EPERM;
	if (!h)
		return -ENODEV;
	if (a->size < sizeof(*hdr))
		return -EBADMSG;
	if (a->size > ANE_METHOD_CMD_MAX)
		return -E2BIG;
	buf = memdup_user(ptr, a->size);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	hdr = buf;
	if (hdr->size != a->size - sizeof(*hdr)) {
		ret = -EBADMSG;
		goto out;
	}
	if (hdr->id & ANE_FW_ID_REPLY || !ane_method_cmd_allowed(hdr->id)) {
		ret = -EACCES;
		goto out;
	}
	out_len = a->size;
	ret = ane_host_msg_send_command(h, hdr, hdr + 1, buf, &out_len);
	a->len = out_len;
	if (out_len && copy_to_user(ptr, buf, out_len))
		ret = -EFAULT;
out:
	kfree(buf);
	return ret;
}

/**
 * ane_method_buf_ioctl() - DRM_IOCTL_ANE_METHOD_BUF
 * @drm: the device.
 * @data: &struct drm_ane_method_buf.
 * @file: the caller's file.
 *
 * Return: 0 with the outputs set; -EINVAL for a method that takes no
 * buffer, non-zero @flags or @reserved, a diagnostics buffer smaller than
 * one record; SendCommand's -EPERM without %ANE_CAP_PRIV_VM, -EBADMSG
 * for a command shorter than its header or whose header's size is not
 * its body's, -E2BIG for one longer than %ANE_METHOD_CMD_MAX, -EACCES for
 * a command the host owns, and the firmware's answer as
 * ane_host_msg_send_command() gives it (-EMSGSIZE for one longer than a
 * ring slot); -EFAULT for a buffer that cannot be read or written;
 * -ENODEV once the device is unplugged.
 */
int ane_method_buf_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct ane_file *af = file->driver_priv;
	struct drm_ane_method_buf *a = data;
	int idx, ret;

	if (a->flags || a->reserved[0] || a->reserved[1])
		return -EINVAL;
	a->len = 0;
	a->count = 0;
	a->total = 0;
	a->result = 0;
	switch (a->method) {
	case ANE_METHOD_SEND_COMMAND:
	case ANE_METHOD_GET_CLIENTS_INFO:
	case ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS:
	case ANE_METHOD_SHOW_MODEL_MEMORY_STATUS:
		break;
	default:
		return -EINVAL;
	}
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	if (a->method == ANE_METHOD_SEND_COMMAND)
		ret = ane_method_send_command(af, a);
	else
		ret = ane_diag_method(af, a->method, u64_to_user_ptr(a->ptr),
				      a->size, &a->count, &a->total, &a->len);
	drm_dev_exit(idx);
	return ret;
}
