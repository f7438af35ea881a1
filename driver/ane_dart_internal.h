/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DART, driver half: what its files share and the rest of the driver
 * does not see.  ane_dart.c (contexts, DMA, setup), ane_dart_slot.c
 * (slot binding and the line), ane_dart_pt.c (page tables),
 * ane_dart_evict.c (addresses and eviction), ane_dart_fault.c (faults)
 * and ane_dart_debugfs.c (debugfs views) include it; everything else uses
 * ane_dart.h.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_DART_INTERNAL_H__
#define __ANE_DART_INTERNAL_H__

#include <linux/regmap.h>
#include <linux/types.h>

#include "ane_dart.h"

/* A register of the PTD window (a bus that cannot fail: no error path). */
static inline u32 ane_dart_rd(struct ane_dart *dart, u32 off)
{
	unsigned int val = 0;

	regmap_read(dart->regs, off, &val);
	return val;
}

static inline void ane_dart_wr(struct ane_dart *dart, u32 off, u32 val)
{
	regmap_write(dart->regs, off, val);
}

/* Page tables (ane_dart_pt.c). */
u64 *ane_dart_table_alloc(phys_addr_t *pa);
void ane_dart_table_free(u64 *table);
void ane_dart_flush_ctx(struct ane_dart_ctx *ctx);

/* Addresses and eviction (ane_dart_evict.c). */
void ane_dart_mapping_free(struct ane_dart_mapping *map);
bool ane_dart_evict_one(struct ane_dart_ctx *ctx);

/* Slots and their line (ane_dart_slot.c). */
void ane_dart_slots_init(struct ane_dart *dart);
void ane_dart_slots_bind_base(struct ane_dart *dart, struct ane_dart_ctx *base);
void ane_dart_slots_fini(struct ane_dart *dart);

/* Fault records (ane_dart_fault.c). */
void ane_dart_record(struct ane_dart *dart, u32 status, u64 addr);

#endif /* __ANE_DART_INTERNAL_H__ */
