/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Task descriptors of a program image, decoded (see ane_td.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_TD_H__
#define __ANE_TD_H__

#include <drm/ane_accel.h>

#include "ane_isa.h"

int ane_image_td_desc(const struct ane_img_td *td, struct ane_op_desc *d);
struct ane_tensor *ane_td_operand(struct ane_op_desc *d, __u32 reg);

#endif /* __ANE_TD_H__ */
