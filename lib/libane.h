/* SPDX-License-Identifier: MIT */
/*
 * libane: userspace runtime for the emulated Apple Neural Engine.
 *
 * Copyright (C) 2026 The ane authors
 *
 * Every function that can fail returns 0 or a negative errno and leaves a
 * message naming the device node, the selector or call, the errno and,
 * where one is to blame, the field, readable with ane_errmsg().
 */
#ifndef LIBANE_H
#define LIBANE_H

#include <stddef.h>
#include <stdint.h>

#include <drm/ane_accel.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBANE_EXPORT __attribute__((visibility("default")))

/** Which user client a handle opens (ch. 27). */
enum ane_client_kind {
	ANE_KIND_CONTROL = 0,	/* H11ANEInUserClient: lifecycle + hot path */
	ANE_KIND_DIRECT = 1,	/* H11ANEInDirectPathClient: enqueue, map */
};

/** The registry properties of Table 27.9, read from sysfs. */
struct ane_properties {
	char architecture[16];
	unsigned int version;
	unsigned int minor_version;
	unsigned int board_type;
	unsigned int board_subtype;
	unsigned int num_cores;
	unsigned int num_engines;
	unsigned int cpu_subtype;
	int internal_build;
};

/** What DRM_IOCTL_VERSION reports about the driver. */
struct ane_driver_version {
	char name[32];
	char desc[128];
	int major;
	int minor;
	int patchlevel;
};

struct ane_dev;

/*
 * Open @node (NULL: the first /dev/accel/accel* whose driver is "ane") and
 * run the DeviceOpen handshake as a client of @kind.  On failure *@out is
 * NULL and, if @errbuf is not NULL, a message is written there.
 */
LIBANE_EXPORT int ane_open(const char *node, enum ane_client_kind kind,
			   struct ane_dev **out, char *errbuf, size_t errlen);

/* DeviceClose (if still open) and close the file.  NULL is a no-op. */
LIBANE_EXPORT void ane_close(struct ane_dev *dev);

/* The last error message of @dev, "" when the last call succeeded. */
LIBANE_EXPORT const char *ane_errmsg(const struct ane_dev *dev);

/* The node path and file descriptor behind @dev. */
LIBANE_EXPORT const char *ane_node(const struct ane_dev *dev);
LIBANE_EXPORT int ane_fd(const struct ane_dev *dev);

/* The DeviceOpen answer this handle received. */
LIBANE_EXPORT const struct drm_ane_device_info_out *
ane_handshake(const struct ane_dev *dev);

/* GetVersion (control selector 10), split into its fields. */
LIBANE_EXPORT int ane_get_version(struct ane_dev *dev, uint32_t *uapi,
				  uint32_t *hw_version, uint32_t *hw_minor);

/* GetStatus (control selector 7). */
LIBANE_EXPORT int ane_get_status(struct ane_dev *dev,
				 struct drm_ane_status *st);

/* DeviceClose without closing the file (the handle then refuses calls). */
LIBANE_EXPORT int ane_device_close(struct ane_dev *dev);

/* DRM_IOCTL_VERSION of the node. */
LIBANE_EXPORT int ane_get_driver_version(struct ane_dev *dev,
					 struct ane_driver_version *v);

/* Table 27.9 properties of the node, from sysfs. */
LIBANE_EXPORT int ane_get_properties(struct ane_dev *dev,
				     struct ane_properties *p);

/*
 * Find the accel node of the @index-th ane device (0-based) and write its
 * path to @buf.  Returns -ENODEV when there is none.
 */
LIBANE_EXPORT int ane_find_node(unsigned int index, char *buf, size_t len);

/* Printable names. */
LIBANE_EXPORT const char *ane_fw_state_name(uint32_t state);
LIBANE_EXPORT const char *ane_errno_name(int err);

#ifdef __cplusplus
}
#endif

#endif /* LIBANE_H */
