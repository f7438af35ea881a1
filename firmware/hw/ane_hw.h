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

#include <linux/types.h>

#include "ane_cpu.h"

struct ane_dart;
struct ane_engine;

/**
 * struct ane_hw_host_ops - the host side's interrupt
 * @irq: the firmware stored @bits to the host doorbell target; called in
 *	the firmware's context, must not sleep.
 */
struct ane_hw_host_ops {
	void (*irq)(struct ane_hw *hw, void *ctx, u32 bits);
};

struct ane_dart *ane_hw_dart(struct ane_hw *hw);

struct device;

struct ane_hw *ane_hw_create(struct device *dev, struct ane_dart *dart,
			     const struct ane_hw_cpu_image *image,
			     const struct ane_hw_host_ops *host,
			     void *host_ctx);
void ane_hw_destroy(struct ane_hw *hw);

#if IS_ENABLED(CONFIG_KUNIT)
void ane_hw_set_test_mem(struct ane_hw *hw, void *mem, u64 base, size_t size);
void *ane_hw_test_sram(struct ane_hw *hw);
struct ane_engine *ane_hw_test_engine(struct ane_hw *hw);
#endif

#endif /* __ANE_HW_H__ */
