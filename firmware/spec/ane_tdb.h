/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The task-descriptor block a hardware queue runs: what the firmware
 * hands the engine for one procedure call, at the address of the queue's
 * ANE_REG_Q_TD_LO/HI on the port of ANE_REG_Q_TD_SID (firmware/spec/
 * ane_regs.h).  A header with the call's bar table, then one record per
 * task: the task's 35-word register block and its operand registers as
 * the procedure's register writes bound them.  Operand registers hold
 * rebased (ch. 28) 32-bit addresses; the engine takes them back to device
 * addresses with the queue's ANE_REG_Q_BAR registers and this bar table.
 * Documentation/accel/ane/engine.rst, "The engine model", describes it.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_TDB_H__
#define __ANE_TDB_H__

#include <linux/types.h>

#include <drm/ane_accel.h>

#define ANE_TDB_MAGIC		0x31424454	/* "TDB1" */
#define ANE_TDB_OPERANDS	(ANE_TD_REG_DST + 1)

/**
 * struct ane_tdb_bar - one bar of the call
 * @dva: device address of the buffer's base.
 * @size: bytes the engine may reach from @dva.
 * @sid: DART stream of the buffer.
 * @rsvd: zero.
 */
struct ane_tdb_bar {
	__u64 dva;
	__u64 size;
	__u32 sid;
	__u32 rsvd;
};

/**
 * struct ane_tdb_operand - one operand register of a task
 * @runtime: the register's value, a rebased address.
 * @bar: the bar slot it lies in (its Q_BAR register and @bars entry).
 * @set: bound (1); an unbound operand must be absent from the task.
 * @rsvd: zero.
 * @len: bytes the operand may span from @runtime.
 */
struct ane_tdb_operand {
	__u32 runtime;
	__u8 bar;
	__u8 set;
	__u16 rsvd;
	__u64 len;
};

/**
 * struct ane_tdb_task - one task of the block
 * @td: its register block.
 * @op: its operand registers, &enum ane_td_operand.
 */
struct ane_tdb_task {
	struct ane_img_td td;
	struct ane_tdb_operand op[ANE_TDB_OPERANDS];
};

/**
 * struct ane_tdb_hdr - the block's header; @num_tasks tasks follow
 * @magic: %ANE_TDB_MAGIC.
 * @num_tasks: tasks, run in order; the first failure ends the block.
 * @bars_valid: bit i set when @bar[i] is provided.
 * @rsvd: zero.
 * @bar: the call's bars, by image slot.
 */
struct ane_tdb_hdr {
	__u32 magic;
	__u32 num_tasks;
	__u32 bars_valid;
	__u32 rsvd;
	struct ane_tdb_bar bar[ANE_IMG_MAX_BARS];
};

#endif /* __ANE_TDB_H__ */
