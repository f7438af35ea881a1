/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine controller's view of its own chip: what the firmware, the
 * program the controller runs, may use.  Its registers (the register map
 * of firmware/spec/ane_regs.h, read and written as a CPU would), memory
 * through the DART (stream 0 and the engine streams), and the entry
 * points it gives the chip: reset vector, doorbell interrupt, halt.
 * Nothing of the driver and nothing else of the device model.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_CPU_H__
#define __ANE_CPU_H__

#include <linux/types.h>

#include "../spec/ane_regs.h"

struct ane_hw;

/**
 * struct ane_hw_cpu_ops - the engine controller "CPU", i.e. the firmware
 * @run: entry at the reset vector; runs in the firmware thread until the
 *	CPU is halted (returns then).  @ctx is the firmware's own state.
 * @doorbell: a host doorbell write arrived (any context; must not sleep).
 * @halt: stop @run as soon as possible (reset asserted).
 */
struct ane_hw_cpu_ops {
	int (*run)(struct ane_hw *hw, void *ctx, u64 reset_vector);
	void (*doorbell)(struct ane_hw *hw, void *ctx, u32 bits);
	void (*halt)(struct ane_hw *hw, void *ctx);
};

u32 ane_hw_read32(struct ane_hw *hw, enum ane_hw_bank bank, u32 off);
void ane_hw_write32(struct ane_hw *hw, enum ane_hw_bank bank, u32 off, u32 val);

/*
 * Engine DMA: read or write @len bytes at device address @iova of stream
 * @sid, translated by the DART.  A translation fault latches the DART's
 * error registers and returns -EFAULT; nothing is transferred past it.
 */
int ane_hw_dma(struct ane_hw *hw, u32 sid, u64 iova, void *buf, size_t len,
	       bool write);

/**
 * struct ane_hw_cpu_image - the firmware image the CPU runs ("linked in")
 * @cpu: its entry points; only the hw layer calls them.
 * @sram_size: bytes of controller SRAM the image needs; the hw layer
 *	allocates them zeroed and passes them as the entry points' context.
 * @sram_init: called once when the image is loaded into fresh SRAM.
 * @boot_addr: the image's boot address, to be written to the RVBAR.
 * @build: build string.
 */
struct ane_hw_cpu_image {
	const struct ane_hw_cpu_ops *cpu;
	size_t sram_size;
	void (*sram_init)(void *sram);
	u64 boot_addr;
	const char *build;
};

#endif /* __ANE_CPU_H__ */
