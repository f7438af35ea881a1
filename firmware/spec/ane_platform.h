/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the driver finds an engine: the platform device a board registers
 * for it.  Its interrupt lines are IORESOURCE_IRQ resources named
 * ANE_IRQ_HOST (the firmware's doorbell to the host, ANE_REG_HOST_IRQ)
 * and ANE_IRQ_DART (a DART translation fault, ERROR_STATUS), and its
 * platform data says how to reach each register bank: through @bus with
 * the bank's context, as a regmap.  On silicon @bus would be MMIO and the
 * banks ioremapped apertures; here the board (firmware/hw/ane_board.c)
 * gives the device model's bus.  A specification header: the driver and
 * the device model both include it.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_PLATFORM_H__
#define __ANE_PLATFORM_H__

#include <linux/regmap.h>
#include <linux/types.h>

#include "ane_regs.h"

/* The platform device's name: the driver binds by it. */
#define ANE_PLATFORM_NAME	"ane"

/* The interrupt lines, by resource name (platform_get_irq_byname()). */
#define ANE_IRQ_HOST		"host"
#define ANE_IRQ_DART		"dart"

/**
 * struct ane_platform_data - the register banks of one engine
 * @bus: the bus every bank is reached through (regmap_bus reg_read and
 *	reg_write of 32-bit registers at byte offsets).
 * @bank: each bank's context for @bus, by &enum ane_hw_bank.
 * @bank_size: each bank's size in bytes (the last register is at
 *	@bank_size - 4).
 * @boot_addr: the boot address of the controller's ROM image, which the
 *	driver writes to the reset vector (ANE_REG_RVBAR_LO/HI).
 */
struct ane_platform_data {
	const struct regmap_bus *bus;
	void *bank[ANE_NUM_BANKS];
	u32 bank_size[ANE_NUM_BANKS];
	u64 boot_addr;
};

#endif /* __ANE_PLATFORM_H__ */
