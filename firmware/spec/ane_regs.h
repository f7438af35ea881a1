/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's register map: the seven apertures of Table 29.2, the
 * control bank's scratch, reset-vector, doorbell and interrupt registers,
 * and the per-queue block of Table 29.7.  A specification header: the
 * driver, the device model and the firmware all include it, and nothing
 * else of each other's.  Documentation/accel/ane/hardware.rst is its
 * programming guide.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_REGS_H__
#define __ANE_REGS_H__

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
/*
 * The host interrupt (the "host" line of the platform device).  A write
 * to ANE_REG_HOST_IRQ (the firmware's doorbell to the host) latches the
 * written bits; the line gets an edge whenever a write latches a bit that
 * ANE_REG_HOST_IRQ_MASK enables, or a mask write enables a latched bit.
 * A read of ANE_REG_HOST_IRQ returns the latched bits the mask enables
 * (masked bits stay latched, unseen); writing ones to
 * ANE_REG_HOST_IRQ_CLR clears them.  A handler reads, clears what it
 * read, then serves it: a bit raised meanwhile gives a new edge.
 */
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
#define ANE_NUM_Q_BARS		32	/* Q_BAR(q, 0..31) */
/*
 * This emulation's additions to the queue block (free words of Table
 * 29.7): where the queue's task-descriptor block is, on which port the
 * engine reads it, and why a queue stopped.  The block's layout is
 * firmware/spec/ane_tdb.h; Documentation/accel/ane/engine.rst, "The
 * engine model", is the programming guide.
 */
#define ANE_REG_Q_TD_LO(q)	(0x25010 + (q) * ANE_QUEUE_STRIDE) /* block address */
#define ANE_REG_Q_TD_HI(q)	(0x25014 + (q) * ANE_QUEUE_STRIDE)
#define ANE_REG_Q_TD_SID(q)	(0x25018 + (q) * ANE_QUEUE_STRIDE) /* its stream */
#define ANE_REG_Q_ERROR(q)	(0x2501c + (q) * ANE_QUEUE_STRIDE) /* ANE_ENG_E_* */
/* Q_TD_SID: the controller's own memory, not a DART stream. */
#define  ANE_ENG_SID_CTRL	0x100
/* Q_ERROR: why a queue ended with ANE_Q_FAULT (0 otherwise). */
#define  ANE_ENG_E_NONE		0
#define  ANE_ENG_E_INVALID	1	/* a descriptor or binding refused */
#define  ANE_ENG_E_DMA		2	/* a DART fault on the engine's DMA */
#define  ANE_ENG_E_TOO_BIG	3	/* staging cap exceeded */
#define  ANE_ENG_E_NOMEM	4	/* no staging memory */
#define  ANE_ENG_E_NOFPU	5	/* no FPU the engine can use */

/*
 * Emulation-side registers of the ANE bank (this emulation's offsets, next
 * to the host interrupt ones above).
 */
#define ANE_REG_HOST_IRQ_CLR	0x1308	/* host: write 1s to clear latched (W1C) */
#define ANE_REG_ENG_IRQ		0x1500	/* engine -> CPU irq status, W1C */
#define ANE_REG_ENG_HANG	0x1504	/* fault injection: queues that hang (reset clears) */
#define ANE_REG_ENG_ABORT_STUCK	0x1508	/* fault injection: aborts that fail (reset clears) */
#define ANE_REG_ENG_LATENCY_NS	0x150c	/* emulated time per submission */
#define ANE_REG_ENG_ISA		0x1510	/* read-only: ANE_FW_ENGINE_ISA_* in use */
#define ANE_REG_ENG_STAGE_PEAK	0x1514	/* read-only: most bytes one task staged */
/*
 * The engine's speed, percent of full (1..100; 0 or above 100 is 100): a
 * queue of work that takes t at full speed ends after t * 100 / percent.
 * A power-domain setting: the engine's reset leaves it as it is.
 */
#define ANE_REG_ENG_THROTTLE	0x1518
/* read-only: operations completed on each instruction set since reset */
/*
 * The neural cores one large operation is split over now (read-only; the
 * engine_cores module parameter sets it), and the operations split so far
 * (64 bits, LO/HI, read-only).
 */
#define ANE_REG_ENG_CORES	0x151c
#define ANE_REG_ENG_SPLIT_LO	0x1560
#define ANE_REG_ENG_SPLIT_HI	0x1564
/*
 * The indices out of range of the gathers completed since reset (64 bits,
 * LO/HI, read-only): each wrote a row of NaN instead of reading.
 */
#define ANE_REG_ENG_GATHER_OOB_LO	0x1568
#define ANE_REG_ENG_GATHER_OOB_HI	0x156c
#define ANE_REG_ENG_OPS_LO(i)	(0x1520 + 8 * (i))
#define ANE_REG_ENG_OPS_HI(i)	(0x1524 + 8 * (i))
#define ANE_ENG_NUM_ISAS	3
/* The engine's interrupt line into the CPU, delivered as a doorbell bit. */
#define ANE_CPU_IRQ_ENGINE	0x80000000u
/* ANE_REG_Q_STATUS bits */
#define  ANE_Q_VACANT		0x1
#define  ANE_Q_BUSY		0x2
#define  ANE_Q_DONE		0x4
#define  ANE_Q_ABORTED		0x8
#define  ANE_Q_FAULT		0x10	/* ended on an error: see Q_ERROR */

#endif /* __ANE_REGS_H__ */
