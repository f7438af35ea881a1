// SPDX-License-Identifier: GPL-2.0-only
/*
 * The neural engine's jobs: running a hardware queue's task-descriptor
 * block, in one of the engine's two contexts (engine.rst, "Two
 * contexts").
 *
 * The doorbell that finds the engine idle starts its loop: in softirq
 * context -- the engine's high-priority tasklet, scheduled inside the
 * doorbell write's local_bh_disable()/local_bh_enable(), so it runs at
 * that local_bh_enable() on the writer's CPU -- unless ENG_LATENCY_NS is
 * set, then on the engine's workqueue ("ane-eng/<dev>").  Either loop
 * runs every waiting queue, by priority, until none waits.  The softirq
 * loop first scans a queue's block (header and task records, no side
 * effect) and runs it only if it is small: at most ANE_ENGINE_BH_TASKS
 * tasks, each staged within the engine's preallocated arena, the whole
 * at most ANE_ENGINE_BH_UNITS units of work, and the FPU usable in this
 * softirq.  Anything else it gives back to the waiting queues and hands
 * the loop to the worker before it has touched anything.
 *
 * A queue: the engine reads the block and the operands by DMA, decodes
 * every task (spec/ane_td.c), takes each operand register back to a
 * device address with the queue's Q_BAR register and the block's bar
 * table, stages the sources, runs the operation (engine/ane_math) one
 * chunk per kernel_fpu_begin()/kernel_fpu_end() section, writes the
 * destination, and ends the queue: ANE_Q_DONE, or ANE_Q_FAULT with
 * ANE_REG_Q_ERROR.  The end latches the queue's bit in ANE_REG_ENG_IRQ
 * and raises the CPU's engine interrupt line.  Between tasks, chunks and
 * DMA bursts the engine looks at the queue's enable bit and at its reset.
 * An operation itself -- its chunks, and its split over the neural cores --
 * is ane_engine_op.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/align.h>
#include <linux/bitops.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/fpu.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <asm/simd.h>

#include <kunit/visibility.h>

#include "../spec/ane_td.h"
#include "ane_cpu.h"
#include "ane_engine_priv.h"

/* ------------------------------------------------------- running a queue */

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
static int ane_engine_operand_dma_at(struct ane_engine_job *j,
				     const struct ane_tdb_operand *o, u64 at,
				     void *buf, size_t len, bool write)
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
	if (off >= b->size || at > o->len || len > o->len - at ||
	    at > b->size - off || len > b->size - off - at)
		return ANE_ENG_E_INVALID;
	off += at;
	for (done = 0; done < len; done += n) {
		n = min_t(size_t, len - done, ANE_ENGINE_DMA_BURST);
		if (ane_hw_dma(j->e->hw, b->sid, b->dva + off + done,
			       (u8 *)buf + done, n, write))
			return ANE_ENG_E_DMA;
		ane_engine_yield(j);
	}
	return ANE_ENG_E_NONE;
}

static int ane_engine_operand_dma(struct ane_engine_job *j,
				  const struct ane_tdb_operand *o, void *buf,
				  size_t len, bool write)
{
	return ane_engine_operand_dma_at(j, o, 0, buf, len, write);
}

/*
 * The destination of @d (staged at its base) back to memory: exactly the
 * elements its view reaches, so that the elements between a strided
 * destination's rows, or around a copy's view in its binding -- another
 * operation's, perhaps another request's -- are never written.  The view
 * is cut into the longest runs that are contiguous in memory (the inner
 * dimensions whose strides chain, extents of 1 skipped): one DMA for a
 * dense destination, one per row for a matmul's strided one, one per
 * element for a copy whose innermost stride is not 1.
 */
static int ane_engine_dst_back(struct ane_engine_job *j,
			       const struct ane_tdb_operand *o,
			       const struct ane_op_desc *d)
{
	const struct ane_tensor *t = &d->dst;
	u64 off = d->op == ANE_OP_COPY ? d->p.copy.dst_offset : 0;
	u64 run = 1, idx[ANE_NDIM] = { 0 }, at;
	int k, inner = ANE_W;
	int st;

	/* the run: dimensions from W inwards-out while each chains */
	for (k = ANE_W; k >= ANE_N; k--) {
		if (t->dim[k] == 1) {
			inner = k - 1;
			continue;
		}
		if (t->stride[k] != run)
			break;
		run *= t->dim[k];
		inner = k - 1;
	}
	for (;;) {
		at = off;
		for (k = ANE_N; k <= inner; k++)
			at += idx[k] * t->stride[k];
		st = ane_engine_operand_dma_at(j, o, 2 * at,
					       (u8 *)t->base + 2 * at,
					       2 * (size_t)run, true);
		if (st)
			return st;
		/* the next run: an odometer over the dimensions outside it */
		for (k = inner; k >= ANE_N; k--) {
			if (++idx[k] < t->dim[k])
				break;
			idx[k] = 0;
		}
		if (k < ANE_N)
			return ANE_ENG_E_NONE;
	}
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

/*
 * Task @task decoded into @d, and the bytes each operand stages (within
 * the cap) into @bytes, their sum into *@total; nothing moves.
 */
static int ane_engine_plan(const struct ane_tdb_task *task,
			   struct ane_op_desc *d, u64 *bytes, u64 *total)
{
	__s64 first;
	u32 k;

	if (ane_image_td_desc(&task->td, d))
		return ANE_ENG_E_INVALID;
	*total = 0;
	for (k = 0; k < ANE_TDB_OPERANDS; k++) {
		const u32 *dim = ane_td_operand(d, k)->dim;
		bool present = dim[0] | dim[1] | dim[2] | dim[3];

		bytes[k] = 0;
		if (present != !!task->op[k].set)
			return ANE_ENG_E_INVALID;
		if (!present)
			continue;
		/*
		 * The engine reaches exactly the operand's extent, dense or
		 * strided (its layout word, a copy's view from the binding's
		 * start); stage that.
		 */
		bytes[k] = ane_td_reach(d, k, &first);
		if (!bytes[k] || first < 0 || bytes[k] > task->op[k].len)
			return ANE_ENG_E_INVALID;
		if (bytes[k] > ANE_ENGINE_STAGE_MAX - *total)
			return ANE_ENG_E_TOO_BIG;
		*total += bytes[k];
	}
	return ANE_ENG_E_NONE;
}

/* One task: decode, stage the sources, run, write the destination back. */
static int ane_engine_task(struct ane_engine_job *j)
{
	const struct ane_tdb_operand *ops = j->task.op;
	u64 bytes[ANE_TDB_OPERANDS];
	struct ane_op_desc d;
	u64 total, ws;
	u32 k;
	int st;

	/* What the task stages, within the cap, before anything moves. */
	st = ane_engine_plan(&j->task, &d, bytes, &total);
	if (st)
		return st;

	for (k = 0; k < ANE_TDB_OPERANDS; k++) {
		struct ane_tensor *t = ane_td_operand(&d, k);

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
		t->base = j->buf[k];
		t->size = bytes[k];
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
	ane_engine_stage_peak(j, total);
	j->staged = total;

	st = ane_engine_op(j, &d);
	if (st)
		return st;
	return ane_engine_dst_back(j, &ops[ANE_TD_REG_DST], &d);
}

/*
 * Task @i as the softirq scan planned it: its sources into the arena,
 * the destination zeroed there, run, written back.
 */
static int ane_engine_bh_task(struct ane_engine_job *j, u32 i)
{
	struct ane_engine_bh_task *t = &j->tasks[i];
	const struct ane_tdb_operand *ops = t->rec.op;
	u32 k;
	int st;

	for (k = 0; k < ANE_TDB_OPERANDS; k++) {
		void *buf = ane_td_operand(&t->d, k)->base;

		if (!t->bytes[k])
			continue;
		if (k == ANE_TD_REG_DST) {
			memset(buf, 0, t->bytes[k]);
			continue;
		}
		st = ane_engine_operand_dma(j, &ops[k], buf, t->bytes[k],
					    false);
		if (st)
			return st;
	}
	ane_engine_stage_peak(j, t->total);
	st = ane_engine_op(j, &t->d);
	if (st)
		return st;
	return ane_engine_dst_back(j, &ops[ANE_TD_REG_DST], &t->d);
}

/*
 * The block's header; an empty queue (no block address) has no task.
 * Bar entries past the last valid one are not read: nothing uses them.
 * Return: an ANE_ENG_E_* code.
 */
static int ane_engine_header(struct ane_engine_job *j)
{
	size_t fixed = offsetof(struct ane_tdb_hdr, bar);

	j->hdr.num_tasks = 0;
	j->hdr.bars_valid = 0;
	if (!j->td)
		return ANE_ENG_E_NONE;
	/* the fixed part, then the bar table up to its last valid entry */
	if (ane_engine_dma(j->e, j->sid, j->td, &j->hdr, fixed, false))
		return ANE_ENG_E_DMA;
	if (j->hdr.magic != ANE_TDB_MAGIC || j->hdr.num_tasks > ANE_IMG_MAX_TDS)
		return ANE_ENG_E_INVALID;
	if (j->hdr.bars_valid &&
	    ane_engine_dma(j->e, j->sid, j->td + fixed, j->hdr.bar,
			   fls(j->hdr.bars_valid) * sizeof(j->hdr.bar[0]),
			   false))
		return ANE_ENG_E_DMA;
	return ANE_ENG_E_NONE;
}

/* Task @i's record into @task. */
static int ane_engine_record(struct ane_engine_job *j, u32 i,
			     struct ane_tdb_task *task)
{
	u64 addr = j->td + sizeof(j->hdr) + (u64)i * sizeof(*task);

	if (ane_engine_dma(j->e, j->sid, addr, task, sizeof(*task), false))
		return ANE_ENG_E_DMA;
	return ANE_ENG_E_NONE;
}

/*
 * The queue's block, task by task: read as it goes by the worker, from
 * the scan's records in softirq.  Return: an ANE_ENG_E_* code, -EINTR
 * when stopped.
 */
static int ane_engine_block(struct ane_engine_job *j)
{
	u32 i, n;
	int st;

	if (j->bh) {
		n = j->ntasks;
	} else {
		st = ane_engine_header(j);
		if (st)
			return st;
		n = j->hdr.num_tasks;
	}
	for (i = 0; i < n; i++) {
		if (ane_engine_stop(j))
			return -EINTR;
		if (j->bh) {
			st = ane_engine_bh_task(j, i);
		} else {
			st = ane_engine_record(j, i, &j->task);
			if (!st)
				st = ane_engine_task(j);
			ane_engine_release(j);
		}
		if (st)
			return st;
	}
	return j->bh ? j->scan_st : ANE_ENG_E_NONE;
}

/*
 * Plan task @t for the softirq path: its operands and workspace laid out
 * in the arena as the worker would stage them.  Whether it fits; adds
 * its work to *@units.
 */
static bool ane_engine_bh_plan(struct ane_engine_job *j,
			       struct ane_engine_bh_task *t, u64 *units)
{
	struct ane_op_desc *d = &t->d;
	u8 *arena = j->e->arena;
	u64 used = 0, ws;
	u32 k;

	if (ane_engine_plan(&t->rec, d, t->bytes, &t->total))
		return false;
	for (k = 0; k < ANE_TDB_OPERANDS; k++) {
		struct ane_tensor *x = ane_td_operand(d, k);

		if (!t->bytes[k])
			continue;
		if (t->bytes[k] > ANE_ENGINE_ARENA - used)
			return false;
		x->base = arena + used;
		x->size = t->bytes[k];
		used += ALIGN(t->bytes[k], ANE_MATH_WORK_ALIGN);
	}
	d->chunk_work = ANE_ENGINE_CHUNK_WORK;
	if (ane_op_workspace_size(d, &ws))
		return false;
	if (ws) {
		if (used > ANE_ENGINE_ARENA ||
		    ws + ANE_MATH_WORK_ALIGN > ANE_ENGINE_ARENA - used)
			return false;
		d->work = PTR_ALIGN(arena + used, ANE_MATH_WORK_ALIGN);
		d->work_size = ws;
		t->total += ws + ANE_MATH_WORK_ALIGN;
	}
	/* the work, counted in small units; the run's chunks stay as set */
	d->chunk_work = ANE_ENGINE_BH_UNIT;
	*units += ane_op_chunks(d);
	d->chunk_work = ANE_ENGINE_CHUNK_WORK;
	return *units <= ANE_ENGINE_BH_UNITS;
}

/*
 * The softirq path's scan of the claimed queue: whether it runs it here.
 * Reads the header and every record, and plans each task (into
 * @j->tasks, which the run then uses); moves nothing else and writes
 * nothing.  A header the worker would refuse or not reach
 * ends the queue here as it would there; a record that cannot be read
 * ends it after the tasks before it, as on the worker.
 */
static bool ane_engine_bh_scan(struct ane_engine_job *j, u64 latency_ns)
{
	u64 units = 0;
	u32 i;

	if (latency_ns || j->throttle < 100 || !may_use_simd())
		return false;
	j->ntasks = 0;
	j->scan_st = ane_engine_header(j);
	if (j->scan_st || !j->td)
		return true;
	if (j->hdr.num_tasks > ANE_ENGINE_BH_TASKS)
		return false;
	for (i = 0; i < j->hdr.num_tasks; i++) {
		j->scan_st = ane_engine_record(j, i, &j->tasks[i].rec);
		if (j->scan_st)
			break;
		if (!ane_engine_bh_plan(j, &j->tasks[i], &units))
			return false;
		j->ntasks = i + 1;
	}
	return true;
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
	bool timed = latency_ns || j->throttle < 100, irq = false;
	u64 t0 = timed ? ktime_get_ns() : 0, spent, hold;
	int st;

	st = ane_engine_block(j);
	if (!j->bh)
		ane_engine_release(j);
	/*
	 * The softirq job never has a time to hold (ane_engine_bh_scan()):
	 * at least ENG_LATENCY_NS, and a throttled engine's work takes
	 * 100 / ENG_THROTTLE times as long as it did at full speed.  The
	 * hold is a high-resolution sleep: in whole jiffies (4 ms at
	 * HZ=250) a throttled millisecond of work was held up to a tick too
	 * long, 25 % ran at a sixth or a seventh of full speed on a fast
	 * host, and a latency of microseconds took milliseconds.
	 */
	if (timed && st >= 0) {
		spent = ktime_get_ns() - t0;
		hold = latency_ns > spent ? latency_ns - spent : 0;
		if (j->throttle < 100)
			hold = max(hold, div_u64(spent * (100 - j->throttle),
						 j->throttle));
		if (hold && !ane_engine_stop(j))
			__wait_event_hrtimeout(e->wq, ane_engine_stop(j),
					       ns_to_ktime(hold), TASK_IDLE);
	}

	spin_lock_irq(&e->lock);
	e->stage_peak = max(e->stage_peak, j->peak);
	if (j->isa < ANE_ENG_NUM_ISAS)
		e->ops[j->isa] += j->ops;
	e->split += j->split;
	e->gather_oob += j->gather_oob;
	if (st >= 0 && !e->in_reset && (q->enable & 1) &&
	    (q->status & ANE_Q_BUSY)) {
		q->status = ANE_Q_VACANT | (st ? ANE_Q_FAULT : ANE_Q_DONE);
		q->error = st;
		e->eng_irq |= BIT(j->q);
		e->ran[!in_serving_softirq()]++;
		irq = true;
	}
	WRITE_ONCE(e->running, -1);
	spin_unlock_irq(&e->lock);
	if (wq_has_sleeper(&e->idle))
		wake_up_all(&e->idle);
	if (irq)
		e->irq(e->hw);
}

/*
 * Give the claimed queue back to the waiting ones (unless an abort or
 * the reset took it meanwhile) and the loop to the worker.
 */
static void ane_engine_to_worker(struct ane_engine_job *j)
{
	struct ane_engine *e = j->e;

	spin_lock_irq(&e->lock);
	if (!e->in_reset && (e->q[j->q].enable & 1) &&
	    (e->q[j->q].status & ANE_Q_BUSY))
		e->pending |= BIT(j->q);
	WRITE_ONCE(e->running, -1);
	e->ctx = ANE_ENG_CTX_WORKER;
	spin_unlock_irq(&e->lock);
	wake_up_all(&e->idle);
	queue_work(e->workq, &e->work);
}

/* The engine: every waiting queue, by priority, until none waits. */
static void ane_engine_loop(struct ane_engine *e, bool bh)
{
	struct ane_engine_job *j = e->job;
	u64 latency;
	int q;

	for (;;) {
		spin_lock_irq(&e->lock);
		q = e->in_reset ? -1 : ane_engine_pick(e);
		if (q < 0) {
			e->ctx = ANE_ENG_CTX_IDLE;
			/* under the lock: once idle, @e may be freed */
			wake_up_all(&e->idle);
			spin_unlock_irq(&e->lock);
			return;
		}
		WRITE_ONCE(e->pending, e->pending & ~BIT(q));
		WRITE_ONCE(e->running, q);
		/*
		 * No memset of the job: its header and task record are read
		 * before use, and the worker leaves its staging pointers
		 * NULL after every task (ane_engine_release()).
		 */
		j->e = e;
		j->q = q;
		j->bh = bh;
		j->ntasks = 0;
		j->scan_st = ANE_ENG_E_NONE;
		j->peak = 0;
		j->ops = 0;
		j->split = 0;
		j->gather_oob = 0;
		j->isa = ane_math_get_isa();
		j->td = (u64)e->q[q].td_hi << 32 | e->q[q].td_lo;
		j->sid = e->q[q].td_sid;
		memcpy(j->base, e->q[q].bar, sizeof(j->base));
		latency = e->latency_ns;
		j->throttle = e->throttle;
		spin_unlock_irq(&e->lock);
		if (bh && !ane_engine_bh_scan(j, latency)) {
			ane_engine_to_worker(j);
			return;
		}
		if (wq_has_sleeper(&e->idle))	/* the doorbell's writer */
			wake_up_all(&e->idle);
		ane_engine_run_queue(j, latency);
	}
}

/**
 * ane_engine_work() - the engine's worker: long jobs, in task context
 * @work: &ane_engine.work.
 */
void ane_engine_work(struct work_struct *work)
{
	ane_engine_loop(container_of(work, struct ane_engine, work), false);
}

/**
 * ane_engine_bh() - the engine's softirq job: small jobs, at once
 * @t: &ane_engine.bh.
 */
void ane_engine_bh(struct tasklet_struct *t)
{
	ane_engine_loop(from_tasklet((struct ane_engine *)NULL, t, bh), true);
}
