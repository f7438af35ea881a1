// SPDX-License-Identifier: GPL-2.0-only
/*
 * The neural engine: the eight hardware task queues of Table 29.7, the
 * ENG_* registers, and the engine that runs what the queues are given --
 * this file the registers, doorbells, aborts, reset and power,
 * ane_engine_job.c the jobs.
 *
 * The firmware programs a queue -- enable, priority, size, the bar
 * registers, the address and port of its task-descriptor block
 * (firmware/spec/ane_tdb.h) -- and rings its doorbell.  The queue turns
 * BUSY and the engine's own context takes it: queues waiting are served
 * by priority (the lowest ANE_REG_Q_PRIO priority first, then the lowest
 * queue), one at a time.  The engine has two contexts (engine.rst, "Two
 * contexts"), and one owns its loop at a time (&ane_engine.ctx): a
 * doorbell that finds the engine idle schedules its softirq job (a
 * high-priority tasklet) inside
 * local_bh_disable()/local_bh_enable(), so the job runs at the
 * local_bh_enable(), on the ringing CPU, before the write returns; that
 * job runs small blocks itself and hands anything else to the engine's
 * workqueue ("ane-eng/<dev>", per-CPU: queued on the ringing CPU), which
 * runs it as before.  With ANE_REG_ENG_LATENCY_NS set the doorbell goes
 * to the workqueue directly.  The end of a queue latches its bit in
 * ANE_REG_ENG_IRQ and raises the CPU's engine interrupt line.
 *
 * Between tasks, chunks and DMA bursts the engine looks at the queue's
 * enable bit and at the engine's reset: writing 0 to a busy queue's
 * ANE_REG_Q_ENABLE aborts it, and the write returns once the engine has
 * left the queue -- the queue is then VACANT | ABORTED, or still BUSY
 * when ANE_REG_ENG_ABORT_STUCK makes the abort fail.  The firmware may
 * reuse the queue's block as soon as the write returns.
 *
 * Fault injection: a queue in ANE_REG_ENG_HANG stays BUSY at its
 * doorbell and never runs; ANE_REG_ENG_LATENCY_NS is the least time a
 * submission takes (the engine holds the queue that long, abortable).
 * Reset (the CPU's, ane_engine_reset_assert()) stops the running queue
 * and waits for the engine's context to leave its loop, then every queue
 * is vacant and the injected faults are gone.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/bottom_half.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/fpu/types.h>
#endif

#include <kunit/visibility.h>

#include "../spec/ane_fw_abi.h"
#include "../spec/ane_regs.h"
#include "ane_engine_priv.h"

#define ANE_ENGINE_Q_LO		ANE_REG_Q_DOORBELL(0)
#define ANE_ENGINE_Q_HI		ANE_REG_Q_ENABLE(0)

/* The firmware's names of the ISAs are the engine's (ane_fw_abi.h). */
static_assert(ANE_FW_ENGINE_ISA_SSE2 == ANE_MATH_ISA_SSE2);
static_assert(ANE_FW_ENGINE_ISA_AVX2 == ANE_MATH_ISA_AVX2_FMA);
static_assert(ANE_FW_ENGINE_ISA_AVX512 == ANE_MATH_ISA_AVX512);
static_assert(ANE_FW_ENGINE_ISAS == ANE_MATH_ISA_COUNT);
static_assert(ANE_ENG_NUM_ISAS == ANE_MATH_ISA_COUNT);
static_assert(ANE_NUM_Q_BARS == ANE_IMG_MAX_BARS);

/* ------------------------------------------------------------ the math */

/**
 * ane_engine_widest_isa() - the widest engine path this CPU runs
 *
 * AVX-512 when, on top of what AVX2 needs, the boot CPU has AVX512F,
 * AVX512BW and AVX512VL and the kernel saves the opmask and ZMM state
 * (cpu_has_xfeatures()); AVX2 + FMA + F16C when the boot CPU has all three
 * and the kernel saves the AVX state (the kernel clears them otherwise;
 * OSXSAVE is checked as well); each only if the engine was built with that
 * path; SSE2 otherwise.
 *
 * Return: an enum ane_math_isa value.
 */
u32 ane_engine_widest_isa(void)
{
#ifdef CONFIG_X86_64
	bool avx2 = boot_cpu_has(X86_FEATURE_AVX2) &&
		    boot_cpu_has(X86_FEATURE_FMA) &&
		    boot_cpu_has(X86_FEATURE_F16C) &&
		    boot_cpu_has(X86_FEATURE_OSXSAVE);

	if (avx2 && boot_cpu_has(X86_FEATURE_AVX512F) &&
	    boot_cpu_has(X86_FEATURE_AVX512BW) &&
	    boot_cpu_has(X86_FEATURE_AVX512VL) &&
	    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM |
			      XFEATURE_MASK_AVX512, NULL) &&
	    ane_math_isa_built(ANE_MATH_ISA_AVX512))
		return ANE_MATH_ISA_AVX512;
	if (avx2 && ane_math_isa_built(ANE_MATH_ISA_AVX2_FMA))
		return ANE_MATH_ISA_AVX2_FMA;
#endif
	return ANE_MATH_ISA_SSE2;
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_widest_isa);

/**
 * ane_engine_isa_init() - pick the engine's instruction set
 *
 * Called when an engine is created and at every reset, before a queue
 * runs: sets the math (ane_math_set_isa()) to the widest path this CPU
 * runs, which every operation then uses.  The choice depends on the CPU
 * alone, so every engine makes the same one and the setting never
 * changes under an operation in flight.
 *
 * Context: any; integer code only.
 * Return: the enum ane_math_isa value now in use.
 */
u32 ane_engine_isa_init(void)
{
	u32 isa = ane_engine_widest_isa();

	/* cannot fail: ane_engine_widest_isa() checked it is built in */
	if (ane_math_get_isa() != isa)
		ane_math_set_isa(isa);
	return ane_math_get_isa();
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_isa_init);

/**
 * ane_engine_isa_name() - the name of an instruction set
 * @isa: an enum ane_math_isa value.
 *
 * Return: "sse2", "avx2+fma+f16c", "avx512" or "?".
 */
const char *ane_engine_isa_name(u32 isa)
{
	static const char * const names[] = {
		[ANE_MATH_ISA_SSE2] = "sse2",
		[ANE_MATH_ISA_AVX2_FMA] = "avx2+fma+f16c",
		[ANE_MATH_ISA_AVX512] = "avx512",
	};

	static_assert(ARRAY_SIZE(names) == ANE_MATH_ISA_COUNT);
	return isa < ARRAY_SIZE(names) ? names[isa] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_isa_name);

/* ------------------------------------------------------------ registers */

/* The queue registers, by their word in a queue's block. */
enum ane_engine_qr {
	ANE_QR_NONE = -1,
	ANE_QR_DOORBELL,
	ANE_QR_SIZE,
	ANE_QR_PRIO,
	ANE_QR_ENABLE,
	ANE_QR_STATUS,
	ANE_QR_TD_LO,
	ANE_QR_TD_HI,
	ANE_QR_TD_SID,
	ANE_QR_ERROR,
	ANE_QR_BAR,	/* + bar index */
};

/* Which queue register @off is (ANE_QR_NONE if none); *@qid its queue. */
static int ane_engine_qdecode(u32 off, u32 *qid)
{
	static const s8 lo[] = { [0x0 / 4] = ANE_QR_DOORBELL,
				 [0x4 / 4] = ANE_QR_SIZE,
				 [0x8 / 4] = ANE_QR_PRIO };
	static const s8 hi[] = { [0x00 / 4] = ANE_QR_ENABLE,
				 [0x04 / 4] = ANE_QR_NONE,
				 [0x08 / 4] = ANE_QR_NONE,
				 [0x0c / 4] = ANE_QR_STATUS,
				 [0x10 / 4] = ANE_QR_TD_LO,
				 [0x14 / 4] = ANE_QR_TD_HI,
				 [0x18 / 4] = ANE_QR_TD_SID,
				 [0x1c / 4] = ANE_QR_ERROR };
	u32 rel, w;

	if (off & 3)
		return ANE_QR_NONE;
	if (off >= ANE_ENGINE_Q_LO &&
	    off < ANE_REG_Q_DOORBELL(ANE_NUM_HW_QUEUES)) {
		rel = off - ANE_ENGINE_Q_LO;
		*qid = rel / ANE_QUEUE_STRIDE;
		w = rel % ANE_QUEUE_STRIDE / 4;
		return w < ARRAY_SIZE(lo) ? lo[w] : ANE_QR_NONE;
	}
	if (off >= ANE_ENGINE_Q_HI &&
	    off < ANE_REG_Q_ENABLE(ANE_NUM_HW_QUEUES)) {
		rel = off - ANE_ENGINE_Q_HI;
		*qid = rel / ANE_QUEUE_STRIDE;
		w = rel % ANE_QUEUE_STRIDE / 4;
		if (w < ARRAY_SIZE(hi))
			return hi[w];
		w -= (ANE_REG_Q_BAR(0, 0) - ANE_ENGINE_Q_HI) / 4;
		if (w < ANE_NUM_Q_BARS)
			return ANE_QR_BAR + w;
	}
	return ANE_QR_NONE;
}

/* The register @r of queue @qid. */
static u32 *ane_engine_qreg(struct ane_engine *e, u32 qid, int r)
{
	struct ane_engine_queue *q = &e->q[qid];

	switch (r) {
	case ANE_QR_DOORBELL: return &q->doorbell;
	case ANE_QR_SIZE: return &q->size;
	case ANE_QR_PRIO: return &q->prio;
	case ANE_QR_ENABLE: return &q->enable;
	case ANE_QR_STATUS: return &q->status;
	case ANE_QR_TD_LO: return &q->td_lo;
	case ANE_QR_TD_HI: return &q->td_hi;
	case ANE_QR_TD_SID: return &q->td_sid;
	case ANE_QR_ERROR: return &q->error;
	}
	return &q->bar[r - ANE_QR_BAR];
}

/**
 * ane_engine_owns() - whether an ANE-bank register is the engine's
 * @off: register offset in the ANE bank.
 *
 * Return: true for the queue registers and the ENG_* registers.
 */
bool ane_engine_owns(u32 off)
{
	u32 q;

	if (off >= ANE_REG_ENG_IRQ && off < ANE_REG_ENG_OPS_LO(ANE_ENG_NUM_ISAS))
		return true;
	if (off >= ANE_REG_ENG_SPLIT_LO && off <= ANE_REG_ENG_GATHER_OOB_HI)
		return true;
	return ane_engine_qdecode(off, &q) != ANE_QR_NONE;
}

/**
 * ane_engine_read() - read an engine register
 * @e: the engine.
 * @off: a register ane_engine_owns().
 *
 * Context: any.
 * Return: its value; 0 for an unassigned one.
 */
u32 ane_engine_read(struct ane_engine *e, u32 off)
{
	unsigned long flags;
	u32 q = 0, val = 0;
	int r = ane_engine_qdecode(off, &q);

	spin_lock_irqsave(&e->lock, flags);
	if (r != ANE_QR_NONE) {
		val = *ane_engine_qreg(e, q, r);
	} else if (off == ANE_REG_ENG_IRQ) {
		val = e->eng_irq;
	} else if (off == ANE_REG_ENG_HANG) {
		val = e->hang;
	} else if (off == ANE_REG_ENG_ABORT_STUCK) {
		val = e->abort_stuck;
	} else if (off == ANE_REG_ENG_LATENCY_NS) {
		val = e->latency_ns;
	} else if (off == ANE_REG_ENG_THROTTLE) {
		val = e->throttle;
	} else if (off == ANE_REG_ENG_ISA) {
		val = e->isa;
	} else if (off == ANE_REG_ENG_STAGE_PEAK) {
		val = min_t(u64, e->stage_peak, U32_MAX);
	} else if (off == ANE_REG_ENG_CORES) {
		val = ane_engine_num_cores();
	} else if (off == ANE_REG_ENG_SPLIT_LO || off == ANE_REG_ENG_SPLIT_HI) {
		val = off & 4 ? upper_32_bits(e->split) : lower_32_bits(e->split);
	} else if (off == ANE_REG_ENG_GATHER_OOB_LO || off == ANE_REG_ENG_GATHER_OOB_HI) {
		val = off & 4 ? upper_32_bits(e->gather_oob) :
				lower_32_bits(e->gather_oob);
	} else if (off >= ANE_REG_ENG_OPS_LO(0) &&
		   off < ANE_REG_ENG_OPS_LO(ANE_ENG_NUM_ISAS)) {
		q = (off - ANE_REG_ENG_OPS_LO(0)) / 8;
		val = off & 4 ? upper_32_bits(e->ops[q]) :
				lower_32_bits(e->ops[q]);
	}
	spin_unlock_irqrestore(&e->lock, flags);
	return val;
}

/*
 * The doorbell: the queue turns BUSY and waits for the engine.  An idle
 * engine takes it before the write returns: its softirq job runs at this
 * write's local_bh_enable(), on this CPU, and runs a small block to its
 * end there; a long one it hands to the worker, as does the doorbell
 * itself with ENG_LATENCY_NS set, and the writer waits until the worker
 * has taken the queue (queued on this CPU: the CPU goes to it at once
 * instead of when the writer next sleeps).  A busy engine takes the
 * queue when it is done with the others; its doorbell never waits.
 */
static void ane_engine_doorbell(struct ane_engine *e, u32 qid)
{
	struct ane_engine_queue *q = &e->q[qid];
	int start = ANE_ENG_CTX_IDLE;

	might_sleep();
	spin_lock_irq(&e->lock);
	if (!e->in_reset && (q->enable & 1) && !(q->status & ANE_Q_BUSY)) {
		q->status = ANE_Q_BUSY;
		q->error = ANE_ENG_E_NONE;
		/* a hung queue never runs */
		if (!(e->hang & BIT(qid))) {
			e->pending |= BIT(qid);
			if (e->ctx == ANE_ENG_CTX_IDLE) {
				start = e->latency_ns || e->throttle < 100 ?
					ANE_ENG_CTX_WORKER : ANE_ENG_CTX_BH;
				e->ctx = start;
			}
		}
	}
	spin_unlock_irq(&e->lock);
	if (start == ANE_ENG_CTX_IDLE)
		return;
	if (start == ANE_ENG_CTX_BH) {
		local_bh_disable();
		tasklet_hi_schedule(&e->bh);
		local_bh_enable();	/* the job runs here */
	} else {
		queue_work(e->workq, &e->work);
	}
	wait_event(e->idle, !(READ_ONCE(e->pending) & BIT(qid)));
}

/*
 * Q_ENABLE: disabling a busy queue aborts it -- it leaves the waiting
 * ones at once, the running one at the engine's next look, which this
 * waits for -- unless the abort is made to fail.  Sleeps.
 */
static void ane_engine_enable(struct ane_engine *e, u32 qid, u32 val)
{
	struct ane_engine_queue *q = &e->q[qid];

	spin_lock_irq(&e->lock);
	WRITE_ONCE(q->enable, val);
	if (val & 1) {
		if (!(q->status & ANE_Q_BUSY))
			q->status = ANE_Q_VACANT;
		spin_unlock_irq(&e->lock);
		return;
	}
	if (!(q->status & ANE_Q_BUSY)) {
		spin_unlock_irq(&e->lock);
		return;
	}
	WRITE_ONCE(e->pending, e->pending & ~BIT(qid));
	wake_up_all(&e->idle);		/* a doorbell waiting for it */
	while (e->running == qid) {
		spin_unlock_irq(&e->lock);
		wake_up(&e->wq);	/* cut a latency wait short */
		wait_event(e->idle, READ_ONCE(e->running) != qid);
		spin_lock_irq(&e->lock);
	}
	if ((q->status & ANE_Q_BUSY) && !(e->abort_stuck & BIT(qid)))
		q->status = ANE_Q_VACANT | ANE_Q_ABORTED;
	spin_unlock_irq(&e->lock);
}

/**
 * ane_engine_write() - write an engine register
 * @e: the engine.
 * @off: a register ane_engine_owns().
 * @val: the value.
 *
 * Context: process context: disabling a busy queue waits for the engine
 * to leave it, a doorbell for an idle engine for the engine to take the
 * queue.  Read-only registers ignore the write.
 */
void ane_engine_write(struct ane_engine *e, u32 off, u32 val)
{
	unsigned long flags;
	u32 q = 0;
	int r = ane_engine_qdecode(off, &q);

	if (r == ANE_QR_ENABLE) {
		ane_engine_enable(e, q, val);
		return;
	}
	spin_lock_irqsave(&e->lock, flags);
	if (r != ANE_QR_NONE && r != ANE_QR_STATUS && r != ANE_QR_ERROR)
		*ane_engine_qreg(e, q, r) = val;
	else if (off == ANE_REG_ENG_IRQ)
		e->eng_irq &= ~val;
	else if (off == ANE_REG_ENG_HANG)
		e->hang = val;
	else if (off == ANE_REG_ENG_ABORT_STUCK)
		e->abort_stuck = val;
	else if (off == ANE_REG_ENG_LATENCY_NS)
		e->latency_ns = val;
	else if (off == ANE_REG_ENG_THROTTLE)
		e->throttle = val && val < 100 ? val : 100;
	spin_unlock_irqrestore(&e->lock, flags);
	if (r == ANE_QR_DOORBELL && val)
		ane_engine_doorbell(e, q);
}

/* ----------------------------------------------------------------- reset */

/**
 * ane_engine_reset_assert() - hold the engine in reset
 * @e: the engine, or NULL.
 *
 * Doorbells are ignored from now on; the running queue stops at the
 * engine's next look and this returns once the engine's context -- the
 * softirq job or the worker -- has left its loop, so nothing the engine
 * reads or writes is in use afterwards and its interrupt line is quiet
 * (a work item still queued finds the engine in reset and leaves).
 *
 * Context: process context; sleeps.
 */
void ane_engine_reset_assert(struct ane_engine *e)
{
	if (!e)
		return;
	spin_lock_irq(&e->lock);
	WRITE_ONCE(e->in_reset, true);
	WRITE_ONCE(e->pending, 0);
	spin_unlock_irq(&e->lock);
	wake_up(&e->wq);
	wake_up_all(&e->idle);
	wait_event(e->idle, READ_ONCE(e->ctx) == ANE_ENG_CTX_IDLE);
}

/**
 * ane_engine_reset_deassert() - release the engine from reset
 * @e: the engine, or NULL.
 *
 * Every queue vacant and disabled, nothing latched, the injected faults
 * (a hung queue, an abort that does not clear) gone -- a hang is a state
 * of the engine that its reset ends -- the counters zero and the
 * instruction set picked again.
 */
void ane_engine_reset_deassert(struct ane_engine *e)
{
	u32 isa, q;

	if (!e)
		return;
	isa = ane_engine_isa_init();
	spin_lock_irq(&e->lock);
	for (q = 0; q < ANE_NUM_HW_QUEUES; q++) {
		memset(&e->q[q], 0, sizeof(e->q[q]));
		e->q[q].status = ANE_Q_VACANT;
	}
	e->eng_irq = 0;
	e->hang = 0;
	e->abort_stuck = 0;
	e->isa = isa;
	memset(e->ops, 0, sizeof(e->ops));
	e->gather_oob = 0;
	e->stage_peak = 0;
	e->pending = 0;
	WRITE_ONCE(e->in_reset, false);
	spin_unlock_irq(&e->lock);
}

/**
 * ane_engine_create() - power on an engine
 * @hw: the chip, for DMA.
 * @name: the device's name, for the workqueue's.
 * @irq: raises the CPU's engine interrupt line (any context).
 *
 * Return: the engine, out of reset, or an ERR_PTR().
 */
struct ane_engine *ane_engine_create(struct ane_hw *hw, const char *name,
				     void (*irq)(struct ane_hw *hw))
{
	struct ane_engine *e;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->job = kzalloc(sizeof(*e->job), GFP_KERNEL);
	e->arena = kvmalloc(ANE_ENGINE_ARENA, GFP_KERNEL);
	if (!e->job || !e->arena)
		goto nomem;
	e->hw = hw;
	e->irq = irq;
	e->running = -1;
	e->throttle = 100;
	e->ctx = ANE_ENG_CTX_IDLE;
	spin_lock_init(&e->lock);
	init_waitqueue_head(&e->wq);
	init_waitqueue_head(&e->idle);
	INIT_WORK(&e->work, ane_engine_work);
	tasklet_setup(&e->bh, ane_engine_bh);
	/* per-CPU: the work runs where the doorbell rang */
	e->workq = alloc_workqueue("ane-eng/%s", 0, 1, name);
	if (!e->workq)
		goto nomem;
	/* the cores: any CPU, as many at once as an operation has parts */
	e->corewq = alloc_workqueue("ane-core/%s", WQ_UNBOUND | WQ_HIGHPRI,
				    ANE_ENGINE_MAX_CORES, name);
	if (!e->corewq) {
		destroy_workqueue(e->workq);
		goto nomem;
	}
	ane_engine_reset_deassert(e);
	return e;

nomem:
	kvfree(e->arena);
	kfree(e->job);
	kfree(e);
	return ERR_PTR(-ENOMEM);
}

/**
 * ane_engine_destroy() - power off: stop the engine and free it
 * @e: the engine, or NULL.
 *
 * Context: process context; sleeps until the engine's work is done.
 */
void ane_engine_destroy(struct ane_engine *e)
{
	if (!e)
		return;
	ane_engine_reset_assert(e);
	/* the contexts' last steps after turning idle */
	tasklet_kill(&e->bh);
	destroy_workqueue(e->workq);
	destroy_workqueue(e->corewq);
	kvfree(e->arena);
	kfree(e->job);
	kfree(e);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * ane_engine_test_ran() - KUnit: queues ended in each context
 * @e: the engine.
 * @softirq: set to the queues the engine ended in softirq context.
 * @task: set to those it ended in task context (its worker).
 *
 * Counted since power on, reset included.
 */
void ane_engine_test_ran(struct ane_engine *e, u64 *softirq, u64 *task)
{
	spin_lock_irq(&e->lock);
	*softirq = e->ran[0];
	*task = e->ran[1];
	spin_unlock_irq(&e->lock);
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_test_ran);
#endif
