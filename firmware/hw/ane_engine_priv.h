/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The neural engine's insides, shared by its two halves: the registers,
 * doorbells, aborts, reset and power (ane_engine.c) and the jobs -- a
 * queue run in the engine's softirq or in its worker, DMA, staging,
 * tasks and operations (ane_engine_job.c).  Nothing outside the engine
 * includes it.  Documentation/accel/ane/engine.rst, "The engine model".
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_ENGINE_PRIV_H__
#define __ANE_ENGINE_PRIV_H__

#include <linux/interrupt.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../spec/ane_regs.h"
#include "../spec/ane_tdb.h"
#include "ane_engine.h"

#define ANE_ENGINE_DMA_BURST	SZ_1M

/*
 * The softirq path's bounds (engine.rst, "Two contexts"): a block of at
 * most ANE_ENGINE_BH_TASKS tasks, each task's operands and workspace
 * within the ANE_ENGINE_ARENA bytes preallocated per engine, and the
 * whole block at most ANE_ENGINE_BH_UNITS chunks of ANE_ENGINE_BH_UNIT
 * multiply-add equivalents (256 Ki, one ANE_ENGINE_CHUNK_WORK section).
 */
#define ANE_ENGINE_BH_TASKS	8
#define ANE_ENGINE_ARENA	SZ_128K

/* The M1's sixteen neural cores: the most one operation is split over. */
#define ANE_ENGINE_MAX_CORES	16

u32 ane_engine_num_cores(void);
#define ANE_ENGINE_BH_UNIT	BIT_ULL(12)
#define ANE_ENGINE_BH_UNITS	64

/**
 * enum ane_engine_ctx - which context owns the engine's loop
 * @ANE_ENG_CTX_IDLE: none: the next doorbell starts one.
 * @ANE_ENG_CTX_BH: the softirq job (a tasklet).
 * @ANE_ENG_CTX_WORKER: the engine's workqueue.
 */
enum ane_engine_ctx {
	ANE_ENG_CTX_IDLE,
	ANE_ENG_CTX_BH,
	ANE_ENG_CTX_WORKER,
};

/**
 * struct ane_engine_queue - one hardware queue's registers
 * @doorbell: ANE_REG_Q_DOORBELL.
 * @size: ANE_REG_Q_SIZE: partitions << 16 | words per task descriptor.
 * @prio: ANE_REG_Q_PRIO: priority << 8 | task queue.
 * @enable: ANE_REG_Q_ENABLE.
 * @status: ANE_REG_Q_STATUS, ANE_Q_*.
 * @error: ANE_REG_Q_ERROR, ANE_ENG_E_*.
 * @td_lo: ANE_REG_Q_TD_LO.
 * @td_hi: ANE_REG_Q_TD_HI.
 * @td_sid: ANE_REG_Q_TD_SID.
 * @bar: ANE_REG_Q_BAR.
 */
struct ane_engine_queue {
	u32 doorbell;
	u32 size;
	u32 prio;
	u32 enable;
	u32 status;
	u32 error;
	u32 td_lo;
	u32 td_hi;
	u32 td_sid;
	u32 bar[ANE_NUM_Q_BARS];
};

/**
 * struct ane_engine - one neural engine
 * @hw: the chip it is part of (its DMA).
 * @irq: raises the CPU's engine interrupt line; may not sleep.
 * @lock: protects @q, the ENG_* registers (@eng_irq .. @stage_peak),
 *	@pending, @running, @ctx, @in_reset and @ran.  Never held while
 *	calling out.  Taken with interrupts off (spin_lock_irq*): the
 *	softirq job takes it too.
 * @q: the queues' registers.
 * @eng_irq: ANE_REG_ENG_IRQ, queues ended and not yet acknowledged.
 * @hang: ANE_REG_ENG_HANG.
 * @abort_stuck: ANE_REG_ENG_ABORT_STUCK.
 * @latency_ns: ANE_REG_ENG_LATENCY_NS.
 * @throttle: ANE_REG_ENG_THROTTLE, 1..100.
 * @isa: ANE_REG_ENG_ISA, picked at every reset.
 * @ops: ANE_REG_ENG_OPS_LO/HI, per instruction set.
 * @split: ANE_REG_ENG_SPLIT_LO/HI: operations split over several cores.
 * @gather_oob: ANE_REG_ENG_GATHER_OOB_LO/HI: indices out of range of the
 *	gathers completed since reset.
 * @stage_peak: ANE_REG_ENG_STAGE_PEAK.
 * @pending: queues rung and waiting for the engine.
 * @running: the queue the engine runs, -1 when idle.
 * @ctx: the context that owns the engine's loop (enum ane_engine_ctx);
 *	set by the doorbell that finds it idle, handed from the softirq to
 *	the worker, cleared by the loop when no queue waits.
 * @in_reset: reset asserted: doorbells are ignored, the running queue
 *	stops.
 * @ran: queues ended in softirq context ([0]) and in task context ([1]),
 *	for the KUnit suite.
 * @wq: a submission's latency waits here (an abort or reset cuts it).
 * @idle: woken when @running or @ctx changes (abort, reset and the
 *	doorbell wait for it).
 * @workq: the engine's workqueue: its own context for long jobs.
 * @corewq: the neural cores' workqueue (unbound, up to
 *	%ANE_ENGINE_MAX_CORES at once): the parts of a split operation but
 *	the first, which the job's worker runs.
 * @work: the engine's worker; never runs twice at once.
 * @bh: the engine's softirq job, a high-priority tasklet (never runs
 *	twice at once either).
 * @job: the running queue's state, the owning context's alone.
 * @arena: ANE_ENGINE_ARENA bytes of staging for the softirq job,
 *	allocated at power on (softirq cannot allocate with GFP_KERNEL).
 */
struct ane_engine {
	struct ane_hw *hw;
	void (*irq)(struct ane_hw *hw);

	spinlock_t lock;	/* registers, @pending, @running, @ctx, ... */
	struct ane_engine_queue q[ANE_NUM_HW_QUEUES];
	u32 eng_irq;
	u32 hang;
	u32 abort_stuck;
	u32 latency_ns;
	u32 throttle;
	u32 isa;
	u64 ops[ANE_ENG_NUM_ISAS];
	u64 split;
	u64 gather_oob;
	u64 stage_peak;
	u32 pending;
	int running;
	int ctx;
	bool in_reset;
	u64 ran[2];

	wait_queue_head_t wq;
	wait_queue_head_t idle;
	struct workqueue_struct *workq;
	struct workqueue_struct *corewq;
	struct work_struct work;
	struct tasklet_struct bh;
	struct ane_engine_job *job;
	void *arena;
};

/**
 * struct ane_engine_bh_task - a task the softirq job runs, as scanned
 * @rec: its record in the block.
 * @d: its operation, every tensor and the workspace laid out in the
 *	engine's arena.
 * @bytes: the bytes each operand stages (0: none).
 * @total: the bytes the task stages, workspace included.
 */
struct ane_engine_bh_task {
	struct ane_tdb_task rec;
	struct ane_op_desc d;
	u64 bytes[ANE_TDB_OPERANDS];
	u64 total;
};

/**
 * struct ane_engine_job - the queue the engine runs, as read at its start
 * @e: the engine.
 * @q: the queue.
 * @td: device address of its block.
 * @sid: the port or stream of @td.
 * @base: the queue's bar registers.
 * @bh: run in softirq context: staged in the arena, never sleeps.
 * @hdr: the block's header.
 * @task: the task being run.
 * @buf: staging of each operand of the task.
 * @len: bytes of each @buf.
 * @work: the task's workspace allocation.
 * @work_len: its bytes.
 * @ntasks: the tasks the softirq scan read (@bh), run from @tasks.
 * @scan_st: how the block ends after them (@bh): ANE_ENG_E_NONE, or the
 *	error the scan met reading the next one.
 * @tasks: the task records the scan read, and each one's plan (@bh).
 * @throttle: the engine's speed when the queue started, percent.
 * @peak: the most bytes one of its tasks staged so far.
 * @staged: the bytes the running task staged, before any workspace of
 *	a split.
 * @ops: the operations it completed so far, on @isa.
 * @split: of them, those split over several cores.
 * @gather_oob: the indices out of range of the gathers among them.
 * @isa: the instruction set they ran on.
 *
 * @peak and @ops reach ENG_STAGE_PEAK and ENG_OPS_* when the queue ends,
 * under the lock the end takes anyway.
 */
struct ane_engine_job {
	struct ane_engine *e;
	u32 q;
	u64 td;
	u32 sid;
	u32 base[ANE_NUM_Q_BARS];
	bool bh;
	struct ane_tdb_hdr hdr;
	struct ane_tdb_task task;
	void *buf[ANE_TDB_OPERANDS];
	size_t len[ANE_TDB_OPERANDS];
	void *work;
	size_t work_len;
	u32 ntasks;
	int scan_st;
	struct ane_engine_bh_task tasks[ANE_ENGINE_BH_TASKS];
	u32 throttle;
	u64 peak;
	u64 staged;
	u64 ops;
	u64 split;
	u64 gather_oob;
	u32 isa;
};

/* The running queue must stop: disabled, or the engine reset. */
static inline bool ane_engine_stop(struct ane_engine_job *j)
{
	return !(READ_ONCE(j->e->q[j->q].enable) & 1) ||
	       READ_ONCE(j->e->in_reset);
}

/* Between bursts and chunks: the worker yields the CPU, softirq cannot. */
static inline void ane_engine_yield(struct ane_engine_job *j)
{
	if (!j->bh)
		cond_resched();
}

/* Record the most bytes one task staged (published at the queue's end). */
static inline void ane_engine_stage_peak(struct ane_engine_job *j, u64 total)
{
	j->peak = max(j->peak, total);
}

/* One operation of a task, on this worker or split over the cores (ane_engine_op.c). */
int ane_engine_op(struct ane_engine_job *j, const struct ane_op_desc *d);
void ane_engine_work(struct work_struct *work);
void ane_engine_bh(struct tasklet_struct *t);

#endif /* __ANE_ENGINE_PRIV_H__ */
