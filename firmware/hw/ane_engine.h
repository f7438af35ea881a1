/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The neural engine of the device model: the hardware task queues of
 * Table 29.7 and the ENG_* registers, and the engine that runs the
 * queues' task-descriptor blocks in its own contexts (a softirq job for
 * small blocks, its workqueue for the rest).  Only the rest of the
 * device model (ane_hw.c) calls this; the firmware reaches the engine
 * through its registers, the driver through the fault-injection ones.
 * Documentation/accel/ane/engine.rst, "The engine model".
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_ENGINE_H__
#define __ANE_ENGINE_H__

#include <linux/bits.h>
#include <linux/types.h>

#include "engine/ane_math.h"

struct ane_hw;
struct ane_engine;

/* Staging: operands and workspace of one task, at most. */
#define ANE_ENGINE_STAGE_MAX	(64ull << 20)
/* Work per FPU section: the engine looks at its queue between chunks. */
#define ANE_ENGINE_CHUNK_WORK	BIT_ULL(18)

struct ane_engine *ane_engine_create(struct ane_hw *hw, const char *name,
				     void (*irq)(struct ane_hw *hw));
void ane_engine_destroy(struct ane_engine *e);
bool ane_engine_owns(u32 off);
u32 ane_engine_read(struct ane_engine *e, u32 off);
void ane_engine_write(struct ane_engine *e, u32 off, u32 val);
void ane_engine_reset_assert(struct ane_engine *e);
void ane_engine_reset_deassert(struct ane_engine *e);

/* The operation itself, for the engine and its KUnit suite. */
int ane_engine_errno(int math_err);
u32 ane_engine_widest_isa(void);
u32 ane_engine_isa_init(void);
const char *ane_engine_isa_name(u32 isa);
int ane_engine_run_op(const struct ane_op_desc *d);

#if IS_ENABLED(CONFIG_KUNIT)
void ane_engine_test_ran(struct ane_engine *e, u64 *softirq, u64 *task);
#endif

#endif /* __ANE_ENGINE_H__ */
