/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device model: the emulated engine hardware between the driver and
 * the firmware.  Neither side calls the other: they meet only at the
 * register apertures (firmware/spec/ane_regs.h), at memory reached through
 * the DART, and at doorbells and interrupt lines.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_HW_H__
#define __ANE_HW_H__

#include <linux/regmap.h>
#include <linux/types.h>

#include "ane_cpu.h"

struct ane_dart_hw;
struct ane_engine;
struct device;

extern const struct regmap_bus ane_hw_regmap_bus;

struct ane_hw *ane_hw_create(struct device *dev, struct ane_dart_hw *dart,
			     const struct ane_hw_cpu_image *image);
void ane_hw_destroy(struct ane_hw *hw);
void *ane_hw_bank(struct ane_hw *hw, enum ane_hw_bank bank);
u32 ane_hw_bank_size(struct ane_hw *hw, enum ane_hw_bank bank);
void ane_hw_set_host_irq(struct ane_hw *hw, unsigned int irq);

#if IS_ENABLED(CONFIG_KUNIT)
void ane_hw_set_test_mem(struct ane_hw *hw, void *mem, u64 base, size_t size);
void *ane_hw_test_sram(struct ane_hw *hw);
struct ane_engine *ane_hw_test_engine(struct ane_hw *hw);
#endif

#endif /* __ANE_HW_H__ */
