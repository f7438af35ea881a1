/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's execution of one operation inside the kernel.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_FW_ENGINE_H__
#define __ANE_FW_ENGINE_H__

#include "engine/ane_math.h"

int ane_fw_engine_errno(int math_err);
u32 ane_fw_engine_widest_isa(void);
u32 ane_fw_engine_init(void);
const char *ane_fw_engine_isa_name(u32 isa);
int ane_fw_engine_run(const struct ane_op_desc *d);

#endif /* __ANE_FW_ENGINE_H__ */
