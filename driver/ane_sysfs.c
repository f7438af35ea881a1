// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device properties of Table 27.9 in sysfs, and the engine's health:
 * busy time, firmware state and recoveries.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/device.h>
#include <linux/math64.h>
#include <linux/regmap.h>
#include <linux/sysfs.h>

#include <drm/ane_accel.h>

#include "ane_drv.h"
#include "ane_host.h"
#include "firmware/spec/ane_regs.h"

#define ANE_PROP_UINT(_name, _value) \
	static ssize_t _name##_show(struct device *dev, \
				    struct device_attribute *attr, char *buf) \
	{ \
		return sysfs_emit(buf, "%u\n", (unsigned int)(_value)); \
	} \
	static DEVICE_ATTR_RO(_name)

static ssize_t architecture_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", ANE_PROP_ARCHITECTURE);
}
static DEVICE_ATTR_RO(architecture);

static ssize_t internal_build_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", ANE_PROP_INTERNAL_BUILD ? "Yes" : "No");
}
static DEVICE_ATTR_RO(internal_build);

ANE_PROP_UINT(version, ANE_PROP_VERSION);
ANE_PROP_UINT(minor_version, ANE_PROP_MINOR_VERSION);
ANE_PROP_UINT(board_type, ANE_PROP_BOARD_TYPE);
ANE_PROP_UINT(board_subtype, ANE_PROP_BOARD_SUBTYPE);
ANE_PROP_UINT(num_cores, ANE_PROP_NUM_CORES);
ANE_PROP_UINT(num_engines, ANE_PROP_NUM_ENGINES);
ANE_PROP_UINT(cpu_subtype, ANE_PROP_CPU_SUBTYPE);

static struct attribute *ane_prop_attrs[] = {
	&dev_attr_architecture.attr,
	&dev_attr_version.attr,
	&dev_attr_minor_version.attr,
	&dev_attr_board_type.attr,
	&dev_attr_board_subtype.attr,
	&dev_attr_num_cores.attr,
	&dev_attr_num_engines.attr,
	&dev_attr_cpu_subtype.attr,
	&dev_attr_internal_build.attr,
	NULL,
};

/* /sys/class/accel/accelN/device/properties/<name> */
static const struct attribute_group ane_prop_group = {
	.name = "properties",
	.attrs = ane_prop_attrs,
};

/*
 * The engine's health, next to properties/ in the device's directory:
 * read without a lock (a counter or a state read once; each value is
 * consistent on its own, not with the others).
 */
static ssize_t busy_time_us_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct ane_device *adev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%llu\n",
			  div_u64((u64)atomic64_read(&adev->engine_ns),
				  NSEC_PER_USEC));
}
static DEVICE_ATTR_RO(busy_time_us);

static ssize_t firmware_state_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	static const char * const names[] = {
		[ANE_FW_STATE_OFF] = "off",
		[ANE_FW_STATE_BOOTING] = "booting",
		[ANE_FW_STATE_READY] = "ready",
		[ANE_FW_STATE_RECOVERING] = "recovering",
		[ANE_FW_STATE_DEAD] = "dead",
		[ANE_FW_STATE_SUSPENDED] = "suspended",
	};
	struct ane_device *adev = dev_get_drvdata(dev);
	int s = atomic_read(&adev->fw_state);

	return sysfs_emit(buf, "%s\n", s >= 0 && s < ARRAY_SIZE(names) ?
			  names[s] : "unknown");
}
static DEVICE_ATTR_RO(firmware_state);

static ssize_t recoveries_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct ane_device *adev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n",
			  adev->fwh ? READ_ONCE(adev->fwh->recoveries) : 0);
}
static DEVICE_ATTR_RO(recoveries);

/* The engine's speed in percent, as its ENG_THROTTLE register says. */
static ssize_t throttle_percent_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct ane_device *adev = dev_get_drvdata(dev);
	unsigned int val;
	int ret;

	ret = regmap_read(adev->regs[ANE_BANK_ANE], ANE_REG_ENG_THROTTLE, &val);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", val);
}
static DEVICE_ATTR_RO(throttle_percent);

/* The neural cores a large operation is split over, ENG_CORES. */
static ssize_t engine_cores_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct ane_device *adev = dev_get_drvdata(dev);
	unsigned int val;
	int ret;

	ret = regmap_read(adev->regs[ANE_BANK_ANE], ANE_REG_ENG_CORES, &val);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", val);
}
static DEVICE_ATTR_RO(engine_cores);

/* The operations the engine split over several cores, ENG_SPLIT_LO/HI. */
static ssize_t engine_split_ops_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct ane_device *adev = dev_get_drvdata(dev);
	unsigned int lo, hi, hi2;
	int ret;

	/* HI, LO, HI again: a carry between the two reads is read again */
	ret = regmap_read(adev->regs[ANE_BANK_ANE], ANE_REG_ENG_SPLIT_HI, &hi);
	do {
		if (!ret)
			ret = regmap_read(adev->regs[ANE_BANK_ANE], ANE_REG_ENG_SPLIT_LO, &lo);
		hi2 = hi;
		if (!ret)
			ret = regmap_read(adev->regs[ANE_BANK_ANE], ANE_REG_ENG_SPLIT_HI, &hi);
	} while (!ret && hi != hi2);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%llu\n", (u64)hi << 32 | lo);
}
static DEVICE_ATTR_RO(engine_split_ops);

/*
 * "1": this is the emulated engine.  Asahi Linux's driver of the real
 * Apple Neural Engine is also a DRM driver and a platform driver named
 * "ane"; this attribute, which only this driver has, is how the udev rule
 * and libane tell the two apart (Documentation/accel/ane/sysfs.rst).
 */
static ssize_t emulated_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "1\n");
}
static DEVICE_ATTR_RO(emulated);

static struct attribute *ane_health_attrs[] = {
	&dev_attr_emulated.attr,
	&dev_attr_engine_cores.attr,
	&dev_attr_engine_split_ops.attr,
	&dev_attr_busy_time_us.attr,
	&dev_attr_firmware_state.attr,
	&dev_attr_recoveries.attr,
	&dev_attr_throttle_percent.attr,
	NULL,
};

/* /sys/class/accel/accelN/device/<name> */
static const struct attribute_group ane_health_group = {
	.attrs = ane_health_attrs,
};

const struct attribute_group *ane_sysfs_groups[] = {
	&ane_prop_group,
	&ane_health_group,
	NULL,
};
