/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The board: one emulated engine as a machine has it -- its register
 * banks and controller (ane_hw.c) with the firmware image as ROM, its
 * DART controller (ane_dart_hw.c), its interrupt controller, and the
 * platform device that describes them to the driver
 * (firmware/spec/ane_platform.h).  The module's init (driver/ane_module.c)
 * creates the boards; KUnit creates bare ones (no platform device) to test
 * the driver's halves against the model.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_BOARD_H__
#define __ANE_BOARD_H__

#include <linux/types.h>

struct ane_board;
struct ane_engine;
struct ane_platform_data;
struct device;

/* Engines a module can create: the "devices" parameter's bound. */
#define ANE_BOARD_MAX		8

int ane_boards_create(unsigned int n);
void ane_boards_unplug(void);
void ane_boards_power_off(void);

#if IS_ENABLED(CONFIG_KUNIT)
struct ane_board *ane_board_kunit_create(struct device *dev, bool dart);
void ane_board_kunit_destroy(struct ane_board *b);
const struct ane_platform_data *ane_board_kunit_pdata(struct ane_board *b);
int ane_board_kunit_irq(struct ane_board *b, const char *name);
void ane_board_kunit_set_test_mem(struct ane_board *b, void *mem, u64 base,
				  size_t size);
void *ane_board_kunit_sram(struct ane_board *b);
struct ane_engine *ane_board_kunit_engine(struct ane_board *b);
int ane_board_kunit_dma(struct ane_board *b, u32 sid, u64 iova, void *buf,
			size_t len, bool write);
void ane_board_kunit_dart_poke(struct ane_board *b, u32 off, u32 val);
#endif

#endif /* __ANE_BOARD_H__ */
