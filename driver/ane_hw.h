/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The emulated engine hardware: the boundary between the driver and the
 * firmware.  Neither side calls the other: they meet only at the register
 * apertures, at memory reached through the DART, and at doorbells.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_HW_H__
#define __ANE_HW_H__

#include <linux/spinlock.h>
#include <linux/types.h>

struct ane_dart;
struct ane_hw;

/* The seven register apertures of Table 29.2, in construction order. */
enum ane_hw_bank {
	ANE_BANK_ANE,		/* control: scratch, reset vector, doorbells, queues */
	ANE_BANK_PS,		/* power state */
	ANE_BANK_PWGATE,	/* power gate */
	ANE_BANK_PTD,		/* DART: page-table and translation-domain control */
	ANE_BANK_HAL1,
	ANE_BANK_HAL2,
	ANE_BANK_HAL3,
	ANE_NUM_BANKS
};

/* Aperture sizes in bytes. */
#define ANE_BANK_ANE_SIZE	0x30000
#define ANE_BANK_SMALL_SIZE	0x4000

/*
 * ANE bank layout.  The seeds give the per-queue block (Table 29.7) but not
 * the scratch, reset-vector and doorbell offsets; these are this
 * emulation's, documented in Documentation/accel/ane/hardware.rst.
 */
#define ANE_REG_SCRATCH(n)	(0x1000 + 4 * (n))	/* n = 0..15 */
#define ANE_NUM_SCRATCH		16
#define ANE_REG_RVBAR_LO	0x1100	/* rANE_H11_CHINOOK_IO_RVBAR */
#define ANE_REG_RVBAR_HI	0x1104
#define ANE_REG_CPU_CTRL	0x1108	/* write ANE_CPU_RUN to release reset */
#define  ANE_CPU_RUN		0x1
#define ANE_REG_CPU_STATUS	0x110c	/* ANE_CPU_* running/halted */
#define  ANE_CPU_RUNNING	0x1
#define  ANE_CPU_HALTED		0x2
#define ANE_REG_FW_DOORBELL	0x1200	/* host -> firmware: write 1 << idx */
#define ANE_REG_HOST_IRQ	0x1300	/* firmware -> host doorbell target */
#define ANE_REG_HOST_IRQ_MASK	0x1304	/* host interrupt enable mask */
#define ANE_REG_CHIP_REV	0x1400	/* read-only chip revision */
#define  ANE_CHIP_REV_H13G	0x60

/* Per-queue register block of Table 29.7: base + qid * 0x148. */
#define ANE_QUEUE_STRIDE	0x148
#define ANE_REG_Q_DOORBELL(q)	(0x24000 + (q) * ANE_QUEUE_STRIDE)
#define ANE_REG_Q_SIZE(q)	(0x24004 + (q) * ANE_QUEUE_STRIDE)
#define ANE_REG_Q_PRIO(q)	(0x24008 + (q) * ANE_QUEUE_STRIDE)
#define ANE_REG_Q_ENABLE(q)	(0x25000 + (q) * ANE_QUEUE_STRIDE)
#define ANE_REG_Q_STATUS(q)	(0x2500c + (q) * ANE_QUEUE_STRIDE)
#define ANE_REG_Q_BAR(q, i)	(0x250a0 + (q) * ANE_QUEUE_STRIDE + 4 * (i))
#define ANE_NUM_HW_QUEUES	8

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

/**
 * struct ane_hw_host_ops - the host side's interrupt
 * @irq: the firmware stored @bits to the host doorbell target; called in
 *	the firmware's context, must not sleep.
 */
struct ane_hw_host_ops {
	void (*irq)(struct ane_hw *hw, void *ctx, u32 bits);
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

struct ane_dart *ane_hw_dart(struct ane_hw *hw);

/*
 * Emulation-side registers of the ANE bank (this emulation's offsets, next
 * to the host interrupt ones above).
 */
#define ANE_REG_HOST_IRQ_CLR	0x1308	/* host: write 1s to clear latched */
#define ANE_REG_ENG_IRQ		0x1500	/* engine -> CPU irq status, W1C */
#define ANE_REG_ENG_HANG	0x1504	/* fault injection: queues that hang (reset clears) */
#define ANE_REG_ENG_ABORT_STUCK	0x1508	/* fault injection: aborts that fail (reset clears) */
#define ANE_REG_ENG_LATENCY_NS	0x150c	/* emulated time per submission */
/* The engine's interrupt line into the CPU, delivered as a doorbell bit. */
#define ANE_CPU_IRQ_ENGINE	0x80000000u
/* ANE_REG_Q_STATUS bits */
#define  ANE_Q_VACANT		0x1
#define  ANE_Q_BUSY		0x2
#define  ANE_Q_DONE		0x4
#define  ANE_Q_ABORTED		0x8

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

struct device;

struct ane_hw *ane_hw_create(struct device *dev, struct ane_dart *dart,
			     const struct ane_hw_cpu_image *image,
			     const struct ane_hw_host_ops *host,
			     void *host_ctx);
void ane_hw_destroy(struct ane_hw *hw);

#if IS_ENABLED(CONFIG_KUNIT)
void ane_hw_set_test_mem(struct ane_hw *hw, void *mem, u64 base, size_t size);
void *ane_hw_test_sram(struct ane_hw *hw);
#endif

#endif /* __ANE_HW_H__ */
