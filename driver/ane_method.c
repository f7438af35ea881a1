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

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/ane_accel.h>

#include "ane_caps.h"
#include "ane_drv.h"
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

/**
 * ane_method_ioctl() - DRM_IOCTL_ANE_METHOD
 * @drm: the device.
 * @data: &struct drm_ane_method_args.
 * @file: the caller's file.
 *
 * Return: 0 with @result set; -EINVAL for an unknown method, non-zero
 * @flags or @reserved, or a value out of range; -EOPNOTSUPP for the
 * firmware-lifecycle and secure-world methods; -EPERM for a policy method
 * without ANE_CAP_PRIV_VM, or a power hold without ANE_CAP_OPEN;
 * -EALREADY/-ENOENT for a persistent client added twice or removed when
 * not added; -ENODEV once the device is unplugged; the error of a
 * power-up that failed.
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
