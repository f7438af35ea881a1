/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DART's specification (ch. 28): granule, aperture, the two-level
 * table and PTE formats, stream slots, the PTD register window of Table
 * 28.3 and the fault codes its error status reports.  Shared by the
 * driver (which builds tables and programs the registers) and the device
 * model (which walks the tables and latches faults); nothing else of
 * either is visible to the other.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_DART_REGS_H__
#define __ANE_DART_REGS_H__

#include <linux/bits.h>
#include <linux/types.h>

/* Table 28.1: the DART granule. */
#define ANE_DART_PAGE_SHIFT	14
#define ANE_DART_PAGE_SIZE	BIT(ANE_DART_PAGE_SHIFT)
#define ANE_DART_PAGE_MASK	(ANE_DART_PAGE_SIZE - 1)

/* Table 28.1: the aperture. */
#define ANE_DART_APERTURE_BASE	0x0ull
#define ANE_DART_APERTURE_END	0xe0000000ull
/* Every address the engine is programmed with is below 4 GiB. */
#define ANE_DART_CEILING	BIT_ULL(32)

/* Two levels of 2048 eight-byte entries: L2 bits 35:25, L3 bits 24:14. */
#define ANE_DART_PTES		2048
#define ANE_DART_L3_SHIFT	14
#define ANE_DART_L2_SHIFT	25
#define ANE_DART_IDX_MASK	(ANE_DART_PTES - 1)
#define ANE_DART_L2_USED	(ANE_DART_APERTURE_END >> ANE_DART_L2_SHIFT)

/* Table 28.4: leaf PTE.  Table descriptors (L2) use the same format. */
#define ANE_DART_PTE_VALID	BIT_ULL(63)
#define ANE_DART_PTE_PA_MASK	GENMASK_ULL(46, 14)

static inline u32 ane_dart_l2_index(u64 iova)
{
	return (iova >> ANE_DART_L2_SHIFT) & ANE_DART_IDX_MASK;
}

static inline u32 ane_dart_l3_index(u64 iova)
{
	return (iova >> ANE_DART_L3_SHIFT) & ANE_DART_IDX_MASK;
}

static inline u64 ane_dart_make_pte(phys_addr_t pa)
{
	return ANE_DART_PTE_VALID | ((u64)pa & ANE_DART_PTE_PA_MASK);
}

/* Stream slots and contexts: slot 0 is the base context, 1..7 iso1..iso7. */
#define ANE_DART_NUM_STREAMS	16
#define ANE_DART_NUM_SLOTS	8
#define ANE_DART_BASE_SID	0

/* Table 28.3: register offsets in the PTD window. */
#define ANE_DART_ERROR_STATUS	0x40
#define  ANE_DART_ERR_FLAG	BIT(31)
#define  ANE_DART_ERR_WRITE	BIT(30)
#define  ANE_DART_ERR_SID_SHIFT	24
#define  ANE_DART_ERR_SID_MASK	GENMASK(27, 24)
#define  ANE_DART_ERR_CODE_MASK	GENMASK(7, 0)
#define ANE_DART_ERROR_ADDR_LO	0x50
#define ANE_DART_ERROR_ADDR_HI	0x54
#define ANE_DART_ENABLED_STREAMS 0xfc
#define ANE_DART_TCR(sid)	(0x100 + 4 * (sid))
#define  ANE_DART_TCR_TRANSLATE	BIT(7)
#define ANE_DART_TTBR(sid)	(0x200 + 4 * (sid))
#define  ANE_DART_TTBR_VALID	BIT(31)
#define  ANE_DART_TTBR_SHIFT	12
#define ANE_DART_TLB_CMD	0x1000	/* translation-buffer control */
#define  ANE_DART_TLB_FLUSH	BIT(31)	/* | stream mask in bits 15:0 */
#define ANE_DART_TLB_STATUS	0x100c
#define  ANE_DART_TLB_BUSY	BIT(2)
#define ANE_DART_TLB_ERROR	0x1020
#define ANE_DART_TLB_ERROR_INFO	0x1028
/*
 * The emulation's translation-cache counters (read-only): translations
 * served from the cache and translations that walked the tables, since
 * the controller was powered on.  Reading _LO latches the matching _HI,
 * so LO then HI is one consistent 64-bit value.
 */
#define ANE_DART_TLB_HITS_LO	0x1040
#define ANE_DART_TLB_HITS_HI	0x1044
#define ANE_DART_TLB_MISSES_LO	0x1048
#define ANE_DART_TLB_MISSES_HI	0x104c
/* The PTD window's size in bytes. */
#define ANE_DART_REGS_SIZE	0x4000

/* Fault codes in ERROR_STATUS[7:0], the emulation's HwError values. */
enum ane_dart_fault_code {
	ANE_DART_FAULT_NONE = 0,
	ANE_DART_FAULT_L2_INVALID = 1,	/* no table descriptor */
	ANE_DART_FAULT_L3_INVALID = 2,	/* no leaf PTE */
	ANE_DART_FAULT_APERTURE = 3,	/* outside 0..0xe0000000 */
	ANE_DART_FAULT_CEILING = 4,	/* at or above 4 GiB */
	ANE_DART_FAULT_STREAM = 5,	/* stream disabled or no valid TTBR */
};

#endif /* __ANE_DART_REGS_H__ */
