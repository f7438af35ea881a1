// SPDX-License-Identifier: GPL-2.0-only
/*
 * The neural engine: the eight hardware task queues of Table 29.7, the
 * ENG_* registers, and the engine that runs what the queues are given.
 *
 * The firmware programs a queue -- enable, priority, size, the bar
 * registers, the address and port of its task-descriptor block
 * (firmware/spec/ane_tdb.h) -- and rings its doorbell.  The queue turns
 * BUSY and the engine's own context takes it -- the work item of the
 * engine's workqueue ("ane-eng/<dev>", one per engine; a work item never
 * runs on two CPUs at once, so the engine runs one queue at a time):
 * queues waiting are served by priority (the lowest ANE_REG_Q_PRIO
 * priority first, then the lowest queue).  The work is queued on the CPU
 * that rang the doorbell, so a doorbell costs a wake-up on that CPU and
 * no cross-CPU one.  The engine reads the block and the operands by DMA, decodes every task
 * (spec/ane_td.c), takes each operand register back to a device address
 * with the queue's Q_BAR register and the block's bar table, stages the
 * sources, runs the operation (engine/ane_math) one chunk per
 * kernel_fpu_begin()/kernel_fpu_end() section, writes the destination,
 * and ends the queue: ANE_Q_DONE, or ANE_Q_FAULT with ANE_REG_Q_ERROR.
 * The end latches the queue's bit in ANE_REG_ENG_IRQ and raises the
 * CPU's engine interrupt line.
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
 * and waits for the engine to leave it, then every queue is vacant and
 * the injected faults are gone.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/align.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/fpu.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#endif

#include <kunit/visibility.h>

#include "../spec/ane_fw_abi.h"
#include "../spec/ane_regs.h"
#include "../spec/ane_tdb.h"
#include "../spec/ane_td.h"
#include "ane_cpu.h"
#include "ane_engine.h"

#define ANE_ENGINE_DMA_BURST	SZ_1M
#define ANE_ENGINE_Q_LO		ANE_REG_Q_DOORBELL(0)
#define ANE_ENGINE_Q_HI		ANE_REG_Q_ENABLE(0)

/* The firmware's names of the ISAs are the engine's (ane_fw_abi.h). */
static_assert(ANE_FW_ENGINE_ISA_SSE2 == ANE_MATH_ISA_SSE2);
static_assert(ANE_FW_ENGINE_ISA_AVX2 == ANE_MATH_ISA_AVX2_FMA);
static_assert(ANE_FW_ENGINE_ISAS == ANE_MATH_ISA_COUNT);
static_assert(ANE_ENG_NUM_ISAS == ANE_MATH_ISA_COUNT);
static_assert(ANE_NUM_Q_BARS == ANE_IMG_MAX_BARS);

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
 *	@pending, @running and @in_reset.  Never held while calling out.
 * @q: the queues' registers.
 * @eng_irq: ANE_REG_ENG_IRQ, queues ended and not yet acknowledged.
 * @hang: ANE_REG_ENG_HANG.
 * @abort_stuck: ANE_REG_ENG_ABORT_STUCK.
 * @latency_ns: ANE_REG_ENG_LATENCY_NS.
 * @isa: ANE_REG_ENG_ISA, picked at every reset.
 * @ops: ANE_REG_ENG_OPS_LO/HI, per instruction set.
 * @stage_peak: ANE_REG_ENG_STAGE_PEAK.
 * @pending: queues rung and waiting for the engine.
 * @running: the queue the engine runs, -1 when idle.
 * @in_reset: reset asserted: doorbells are ignored, the running queue
 *	stops.
 * @wq: a submission's latency waits here (an abort or reset cuts it).
 * @idle: woken when @running changes (abort, reset and the doorbell
 *	wait for it).
 * @workq: the engine's workqueue: its own context.
 * @work: the engine running its queues; never runs twice at once.
 * @job: the running queue's state, the work's alone.
 */
struct ane_engine {
	struct ane_hw *hw;
	void (*irq)(struct ane_hw *hw);

	spinlock_t lock;	/* registers, @pending, @running, @in_reset */
	struct ane_engine_queue q[ANE_NUM_HW_QUEUES];
	u32 eng_irq;
	u32 hang;
	u32 abort_stuck;
	u32 latency_ns;
	u32 isa;
	u64 ops[ANE_ENG_NUM_ISAS];
	u64 stage_peak;
	u32 pending;
	int running;
	bool in_reset;

	wait_queue_head_t wq;
	wait_queue_head_t idle;
	struct workqueue_struct *workq;
	struct work_struct work;
	struct ane_engine_job *job;
};

/**
 * struct ane_engine_job - the queue the engine runs, as read at its start
 * @e: the engine.
 * @q: the queue.
 * @td: device address of its block.
 * @sid: the port or stream of @td.
 * @base: the queue's bar registers.
 * @hdr: the block's header.
 * @task: the task being run.
 * @buf: staging of each operand of the task.
 * @len: bytes of each @buf.
 * @work: the task's workspace allocation.
 * @work_len: its bytes.
 */
struct ane_engine_job {
	struct ane_engine *e;
	u32 q;
	u64 td;
	u32 sid;
	u32 base[ANE_NUM_Q_BARS];
	struct ane_tdb_hdr hdr;
	struct ane_tdb_task task;
	void *buf[ANE_TDB_OPERANDS];
	size_t len[ANE_TDB_OPERANDS];
	void *work;
	size_t work_len;
};

/* ------------------------------------------------------------ the math */

/**
 * ane_engine_errno() - the errno of an ANE_MATH_E* code
 * @math_err: 0 or a negative ANE_MATH_E* code.
 *
 * Return: 0, -EINVAL, -ENOSPC or -EOVERFLOW.
 */
int ane_engine_errno(int math_err)
{
	switch (-math_err) {
	case 0:
		return 0;
	case ANE_MATH_ENOSPC:
		return -ENOSPC;
	case ANE_MATH_EOVERFLOW:
		return -EOVERFLOW;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_errno);

/**
 * ane_engine_widest_isa() - the widest engine path this CPU runs
 *
 * AVX2 + FMA + F16C when the boot CPU has all three and the kernel saves
 * the AVX state (the kernel clears them otherwise; OSXSAVE is checked as
 * well) and the engine was built with that path; SSE2 otherwise.
 *
 * Return: an enum ane_math_isa value.
 */
u32 ane_engine_widest_isa(void)
{
#ifdef CONFIG_X86_64
	if (boot_cpu_has(X86_FEATURE_AVX2) && boot_cpu_has(X86_FEATURE_FMA) &&
	    boot_cpu_has(X86_FEATURE_F16C) && boot_cpu_has(X86_FEATURE_OSXSAVE) &&
	    ane_math_isa_built(ANE_MATH_ISA_AVX2_FMA))
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
 * Return: "sse2", "avx2+fma+f16c" or "?".
 */
const char *ane_engine_isa_name(u32 isa)
{
	static const char * const names[] = {
		[ANE_MATH_ISA_SSE2] = "sse2",
		[ANE_MATH_ISA_AVX2_FMA] = "avx2+fma+f16c",
	};

	return isa < ARRAY_SIZE(names) ? names[isa] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_isa_name);

/**
 * ane_engine_run_op() - validate and execute one operation
 * @d: the descriptor; tensor bases are kernel virtual addresses.
 *
 * On the instruction set in use (see ane_engine_isa_init()), one chunk
 * per FPU section; the queue's own loop, which also watches for an
 * abort, is ane_engine_op().
 *
 * Context: process context; may sleep between chunks.
 *
 * Return: 0; -EINVAL, -ENOSPC or -EOVERFLOW for a descriptor the engine
 * refuses; -EOPNOTSUPP when this CPU cannot use its FPU in the kernel.
 */
int ane_engine_run_op(const struct ane_op_desc *d)
{
	u64 i, n;
	int ret;

	ret = ane_engine_errno(ane_op_validate(d));
	if (ret)
		return ret;
	if (!kernel_fpu_available())
		return -EOPNOTSUPP;

	n = ane_op_chunks(d);
	for (i = 0; i < n; i++) {
		kernel_fpu_begin();
		ret = ane_op_run(d, i);
		kernel_fpu_end();
		if (ret)
			return ane_engine_errno(ret);
		cond_resched();
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_run_op);

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
	} else if (off == ANE_REG_ENG_ISA) {
		val = e->isa;
	} else if (off == ANE_REG_ENG_STAGE_PEAK) {
		val = min_t(u64, e->stage_peak, U32_MAX);
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
 * engine takes it before the write returns: the writer's CPU goes to the
 * engine's work at once (queued on this CPU) instead of when the writer
 * next sleeps, and the writer runs on while the engine computes.  A busy
 * engine takes it when it is done with the others.
 */
static void ane_engine_doorbell(struct ane_engine *e, u32 qid)
{
	struct ane_engine_queue *q = &e->q[qid];
	bool wake = false, idle = false;

	might_sleep();
	spin_lock_irq(&e->lock);
	if (!e->in_reset && (q->enable & 1) && !(q->status & ANE_Q_BUSY)) {
		q->status = ANE_Q_BUSY;
		q->error = ANE_ENG_E_NONE;
		if (!(e->hang & BIT(qid))) {	/* a hung queue never runs */
			e->pending |= BIT(qid);
			wake = true;
			idle = e->running < 0;
		}
	}
	spin_unlock_irq(&e->lock);
	if (!wake)
		return;
	queue_work(e->workq, &e->work);
	if (idle)
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
	spin_unlock_irqrestore(&e->lock, flags);
	if (r == ANE_QR_DOORBELL && val)
		ane_engine_doorbell(e, q);
}

/* ------------------------------------------------------- running a queue */

/* The running queue must stop: disabled, or the engine reset. */
static bool ane_engine_stop(struct ane_engine_job *j)
{
	return !(READ_ONCE(j->e->q[j->q].enable) & 1) ||
	       READ_ONCE(j->e->in_reset);
}

/*
 * The engine's DMA: through the DART on a stream, or on the controller
 * port (ANE_ENG_SID_CTRL), where an address is the controller's own: its
 * memory is on the engine's bus with no DART between (read-only).
 */
static int ane_engine_dma(struct ane_engine *e, u32 sid, u64 addr, void *buf,
			  size_t len, bool write)
{
	if (sid != ANE_ENG_SID_CTRL)
		return ane_hw_dma(e->hw, sid, addr, buf, len, write);
	if (write || !addr || addr != (uintptr_t)addr)
		return -EFAULT;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

/*
 * An operand register back to a device address (runtime - Q_BAR + the
 * bar's base), its bytes moved through the DART on the bar's stream a
 * bounded burst at a time.
 */
static int ane_engine_operand_dma(struct ane_engine_job *j,
				  const struct ane_tdb_operand *o, void *buf,
				  size_t len, bool write)
{
	const struct ane_tdb_bar *b;
	size_t done, n;
	u64 off;

	if (o->bar >= ANE_NUM_Q_BARS || !(j->hdr.bars_valid & BIT(o->bar)))
		return ANE_ENG_E_INVALID;
	b = &j->hdr.bar[o->bar];
	if (o->runtime < j->base[o->bar])
		return ANE_ENG_E_INVALID;
	off = o->runtime - j->base[o->bar];
	if (off >= b->size || len > b->size - off)
		return ANE_ENG_E_INVALID;
	for (done = 0; done < len; done += n) {
		n = min_t(size_t, len - done, ANE_ENGINE_DMA_BURST);
		if (ane_hw_dma(j->e->hw, b->sid, b->dva + off + done,
			       (u8 *)buf + done, n, write))
			return ANE_ENG_E_DMA;
		cond_resched();
	}
	return ANE_ENG_E_NONE;
}

static void ane_engine_release(struct ane_engine_job *j)
{
	u32 k;

	for (k = 0; k < ANE_TDB_OPERANDS; k++) {
		kvfree(j->buf[k]);
		j->buf[k] = NULL;
		j->len[k] = 0;
	}
	kvfree(j->work);
	j->work = NULL;
	j->work_len = 0;
}

/* Bytes of a dense fp16 tensor of @dim, 0 if it overflows. */
static u64 ane_engine_dense_bytes(const u32 *dim)
{
	u64 n = 2;
	u32 i;

	for (i = 0; i < ANE_NDIM; i++)
		if (check_mul_overflow(n, (u64)dim[i], &n))
			return 0;
	return n;
}

/* The operation, one chunk per FPU section, watching for a stop. */
static int ane_engine_op(struct ane_engine_job *j, const struct ane_op_desc *d)
{
	struct ane_engine *e = j->e;
	u32 isa = ane_math_get_isa();
	u64 i, n;

	if (ane_op_validate(d))
		return ANE_ENG_E_INVALID;
	if (!kernel_fpu_available())
		return ANE_ENG_E_NOFPU;
	n = ane_op_chunks(d);
	for (i = 0; i < n; i++) {
		int ret;

		if (i && ane_engine_stop(j))
			return -EINTR;
		kernel_fpu_begin();
		ret = ane_op_run(d, i);
		kernel_fpu_end();
		if (ret)
			return ANE_ENG_E_INVALID;
		cond_resched();
	}
	if (isa < ANE_ENG_NUM_ISAS) {
		spin_lock_irq(&e->lock);
		e->ops[isa]++;
		spin_unlock_irq(&e->lock);
	}
	return ANE_ENG_E_NONE;
}

/* One task: decode, stage the sources, run, write the destination back. */
static int ane_engine_task(struct ane_engine_job *j)
{
	const struct ane_tdb_operand *ops = j->task.op;
	struct ane_tensor *t[ANE_TDB_OPERANDS];
	u64 bytes[ANE_TDB_OPERANDS] = { };
	struct ane_op_desc d;
	u64 total = 0, ws;
	u32 k;
	int st;

	if (ane_image_td_desc(&j->task.td, &d))
		return ANE_ENG_E_INVALID;
	for (k = 0; k < ANE_TDB_OPERANDS; k++)
		t[k] = ane_td_operand(&d, k);

	/* What the task stages, within the cap, before anything moves. */
	for (k = 0; k < ANE_TDB_OPERANDS; k++) {
		const u32 *dim = t[k]->dim;
		bool present = dim[0] | dim[1] | dim[2] | dim[3];

		if (present != !!ops[k].set)
			return ANE_ENG_E_INVALID;
		if (!present)
			continue;
		/* The engine reaches exactly the dense extent; stage that. */
		bytes[k] = ane_engine_dense_bytes(dim);
		if (!bytes[k] || bytes[k] > ops[k].len)
			return ANE_ENG_E_INVALID;
		if (bytes[k] > ANE_ENGINE_STAGE_MAX - total)
			return ANE_ENG_E_TOO_BIG;
		total += bytes[k];
	}

	for (k = 0; k < ANE_TDB_OPERANDS; k++) {
		const u32 *dim = t[k]->dim;

		if (!bytes[k])
			continue;
		j->buf[k] = kvmalloc(bytes[k], GFP_KERNEL | __GFP_NOWARN |
				     (k == ANE_TD_REG_DST ? __GFP_ZERO : 0));
		if (!j->buf[k])
			return ANE_ENG_E_NOMEM;
		j->len[k] = bytes[k];
		if (k != ANE_TD_REG_DST) {
			st = ane_engine_operand_dma(j, &ops[k], j->buf[k],
						    bytes[k], false);
			if (st)
				return st;
		}
		ane_tensor_dense(t[k], j->buf[k], dim[0], dim[1], dim[2],
				 dim[3]);
	}

	d.chunk_work = ANE_ENGINE_CHUNK_WORK;
	if (ane_op_workspace_size(&d, &ws))
		return ANE_ENG_E_INVALID;
	if (ws) {
		if (ws + ANE_MATH_WORK_ALIGN > ANE_ENGINE_STAGE_MAX - total)
			return ANE_ENG_E_TOO_BIG;
		j->work_len = ws + ANE_MATH_WORK_ALIGN;
		j->work = kvmalloc(j->work_len, GFP_KERNEL | __GFP_NOWARN);
		if (!j->work)
			return ANE_ENG_E_NOMEM;
		total += j->work_len;
		d.work = PTR_ALIGN(j->work, ANE_MATH_WORK_ALIGN);
		d.work_size = ws;
	}
	spin_lock_irq(&j->e->lock);
	j->e->stage_peak = max(j->e->stage_peak, total);
	spin_unlock_irq(&j->e->lock);

	st = ane_engine_op(j, &d);
	if (st)
		return st;
	return ane_engine_operand_dma(j, &ops[ANE_TD_REG_DST],
				      j->buf[ANE_TD_REG_DST],
				      j->len[ANE_TD_REG_DST], true);
}

/*
 * The queue's block, task by task; an empty queue (no block address)
 * computes nothing.  Return: an ANE_ENG_E_* code, -EINTR when stopped.
 */
static int ane_engine_block(struct ane_engine_job *j)
{
	u64 addr;
	u32 i;
	int st;

	if (!j->td)
		return ANE_ENG_E_NONE;
	if (ane_engine_dma(j->e, j->sid, j->td, &j->hdr, sizeof(j->hdr), false))
		return ANE_ENG_E_DMA;
	if (j->hdr.magic != ANE_TDB_MAGIC || j->hdr.num_tasks > ANE_IMG_MAX_TDS)
		return ANE_ENG_E_INVALID;
	for (i = 0; i < j->hdr.num_tasks; i++) {
		if (ane_engine_stop(j))
			return -EINTR;
		addr = j->td + sizeof(j->hdr) + (u64)i * sizeof(j->task);
		if (ane_engine_dma(j->e, j->sid, addr, &j->task,
				   sizeof(j->task), false))
			return ANE_ENG_E_DMA;
		st = ane_engine_task(j);
		ane_engine_release(j);
		if (st)
			return st;
	}
	return ANE_ENG_E_NONE;
}

/* The waiting queue to run next: lowest priority value, then queue. */
static int ane_engine_pick(struct ane_engine *e)
{
	u32 q, best_prio = U32_MAX;
	int best = -1;

	lockdep_assert_held(&e->lock);
	for (q = 0; q < ANE_NUM_HW_QUEUES; q++) {
		if (!(e->pending & BIT(q)) || (e->q[q].prio >> 8) >= best_prio)
			continue;
		best = q;
		best_prio = e->q[q].prio >> 8;
	}
	return best;
}

/* Run queue @j->q (claimed by the caller) and end it. */
static void ane_engine_run_queue(struct ane_engine_job *j, u64 latency_ns)
{
	struct ane_engine *e = j->e;
	struct ane_engine_queue *q = &e->q[j->q];
	u64 t0 = ktime_get_ns(), spent;
	bool irq = false;
	int st;

	st = ane_engine_block(j);
	ane_engine_release(j);
	spent = ktime_get_ns() - t0;
	if (st >= 0 && spent < latency_ns)
		wait_event_idle_timeout(e->wq, ane_engine_stop(j),
					nsecs_to_jiffies(latency_ns - spent) + 1);

	spin_lock_irq(&e->lock);
	if (st >= 0 && !e->in_reset && (q->enable & 1) &&
	    (q->status & ANE_Q_BUSY)) {
		q->status = ANE_Q_VACANT | (st ? ANE_Q_FAULT : ANE_Q_DONE);
		q->error = st;
		e->eng_irq |= BIT(j->q);
		irq = true;
	}
	WRITE_ONCE(e->running, -1);
	spin_unlock_irq(&e->lock);
	wake_up_all(&e->idle);
	if (irq)
		e->irq(e->hw);
}

/* The engine: every waiting queue, by priority, until none waits. */
static void ane_engine_work(struct work_struct *work)
{
	struct ane_engine *e = container_of(work, struct ane_engine, work);
	struct ane_engine_job *j = e->job;
	u64 latency;
	int q;

	for (;;) {
		spin_lock_irq(&e->lock);
		q = e->in_reset ? -1 : ane_engine_pick(e);
		if (q < 0) {
			spin_unlock_irq(&e->lock);
			return;
		}
		WRITE_ONCE(e->pending, e->pending & ~BIT(q));
		WRITE_ONCE(e->running, q);
		memset(j, 0, sizeof(*j));
		j->e = e;
		j->q = q;
		j->td = (u64)e->q[q].td_hi << 32 | e->q[q].td_lo;
		j->sid = e->q[q].td_sid;
		memcpy(j->base, e->q[q].bar, sizeof(j->base));
		latency = e->latency_ns;
		spin_unlock_irq(&e->lock);
		wake_up_all(&e->idle);		/* the doorbell's writer */
		ane_engine_run_queue(j, latency);
	}
}

/* ----------------------------------------------------------------- reset */

/**
 * ane_engine_reset_assert() - hold the engine in reset
 * @e: the engine, or NULL.
 *
 * Doorbells are ignored from now on; the running queue stops at the
 * engine's next look and this returns once the engine has left it, so
 * nothing the engine reads or writes is in use afterwards (a work item
 * still queued finds the engine in reset and returns).
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
	wait_event(e->idle, READ_ONCE(e->running) < 0);
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
	if (!e->job) {
		kfree(e);
		return ERR_PTR(-ENOMEM);
	}
	e->hw = hw;
	e->irq = irq;
	e->running = -1;
	spin_lock_init(&e->lock);
	init_waitqueue_head(&e->wq);
	init_waitqueue_head(&e->idle);
	INIT_WORK(&e->work, ane_engine_work);
	/* per-CPU: the work runs where the doorbell rang */
	e->workq = alloc_workqueue("ane-eng/%s", 0, 1, name);
	if (!e->workq) {
		kfree(e->job);
		kfree(e);
		return ERR_PTR(-ENOMEM);
	}
	ane_engine_reset_deassert(e);
	return e;
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
	destroy_workqueue(e->workq);
	kfree(e->job);
	kfree(e);
}
