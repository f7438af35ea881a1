/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The program hand-off between clients (driver/ane_share.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_SHARE_H__
#define __ANE_SHARE_H__

struct drm_device;
struct drm_file;

int ane_program_export_ioctl(struct drm_device *dev, void *data,
			     struct drm_file *file);
int ane_program_attach_ioctl(struct drm_device *dev, void *data,
			     struct drm_file *file);

#endif /* __ANE_SHARE_H__ */
