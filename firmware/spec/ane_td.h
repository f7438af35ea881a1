/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Task descriptors of a program image, decoded (see ane_td.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_TD_H__
#define __ANE_TD_H__

#ifndef __KERNEL__
#include <stdbool.h>
#endif
#include <drm/ane_accel.h>

#include "ane_isa.h"

int ane_image_td_desc(const struct ane_img_td *td, struct ane_op_desc *d);
struct ane_tensor *ane_td_operand(struct ane_op_desc *d, __u32 reg);
bool ane_td_layout_ok(const struct ane_img_td *td, __u32 reg);
bool ane_td_dense(const struct ane_img_td *td, __u32 reg);
__u64 ane_td_span(const struct ane_tensor *t);
__u64 ane_td_reach(const struct ane_op_desc *d, __u32 reg, __s64 *first);
int ane_td_bad_word(const struct ane_img_td *td);

#endif /* __ANE_TD_H__ */
