/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The firmware image, the controller's ROM: the one symbol of firmware/
 * the device model takes, when its board builds the chip
 * (firmware/hw/ane_board.c hands it to ane_hw_create()).  Nothing calls
 * into it but the emulated CPU (firmware/hw/ane_hw.c); the driver never
 * sees it.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_FW_IMAGE_H__
#define __ANE_FW_IMAGE_H__

#include "hw/ane_cpu.h"

extern const struct ane_hw_cpu_image ane_fw_image;

#endif /* __ANE_FW_IMAGE_H__ */
