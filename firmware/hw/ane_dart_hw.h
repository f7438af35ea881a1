/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DART controller model, as the rest of the device model sees it: the
 * PTD register window (firmware/spec/ane_dart_regs.h), engine DMA through
 * the translation, and the interrupt line a latched fault raises.  The
 * driver reaches it only through the PTD bank's registers and that line.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_DART_HW_H__
#define __ANE_DART_HW_H__

#include <linux/types.h>

struct ane_dart_hw;

struct ane_dart_hw *ane_dart_hw_create(void);
void ane_dart_hw_destroy(struct ane_dart_hw *d);
void ane_dart_hw_set_irq(struct ane_dart_hw *d, unsigned int irq);

u32 ane_dart_hw_read(struct ane_dart_hw *d, u32 off);
void ane_dart_hw_write(struct ane_dart_hw *d, u32 off, u32 val);
int ane_dart_hw_dma(struct ane_dart_hw *d, u32 sid, u64 iova, void *buf,
		    size_t len, bool write);

#if IS_ENABLED(CONFIG_KUNIT)
void ane_dart_hw_poke(struct ane_dart_hw *d, u32 off, u32 val);
#endif

#endif /* __ANE_DART_HW_H__ */
