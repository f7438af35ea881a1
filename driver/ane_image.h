/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Program images: validation of the format in uapi/drm/ane_accel.h.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_IMAGE_H__
#define __ANE_IMAGE_H__

#include <linux/types.h>

#include <drm/ane_accel.h>

/* Longest field name ane_image_validate() reports. */
#define ANE_IMG_FIELD_LEN	64

int ane_image_validate_header(const struct ane_img_header *hdr, size_t size,
			      char *field);
int ane_image_validate(const void *img, size_t size, char *field);

#endif /* __ANE_IMAGE_H__ */
