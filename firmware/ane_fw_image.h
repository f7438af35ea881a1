/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The firmware image as the driver loads it: the one symbol the driver
 * takes from firmware/, handed straight to ane_hw_create().  The driver
 * never calls into it; only the emulated CPU (driver/ane_hw.c) does.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_FW_IMAGE_H__
#define __ANE_FW_IMAGE_H__

#include "hw/ane_cpu.h"

extern const struct ane_hw_cpu_image ane_fw_image;

#endif /* __ANE_FW_IMAGE_H__ */
