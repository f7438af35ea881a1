// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device properties of Table 27.9 in sysfs.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/device.h>
#include <linux/sysfs.h>

#include "ane_drv.h"

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

const struct attribute_group *ane_sysfs_groups[] = {
	&ane_prop_group,
	NULL,
};
