/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The binary syncobj array ioctls (RESET, SIGNAL, WAIT), implemented by the
 * driver instead of DRM's core: see ane_syncobj.c.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_SYNCOBJ_H__
#define __ANE_SYNCOBJ_H__

#include <linux/compiler_types.h>
#include <linux/types.h>

struct file;

/*
 * The most handles one DRM_IOCTL_SYNCOBJ_RESET, _SIGNAL or _WAIT may name;
 * more is -EINVAL (Documentation/accel/ane/uapi.rst).
 */
#define ANE_SYNCOBJ_MAX_HANDLES	1024

bool ane_syncobj_is_array_ioctl(unsigned int cmd);
long ane_syncobj_ioctl(struct file *filp, unsigned int cmd, void __user *uarg);

#endif /* __ANE_SYNCOBJ_H__ */
