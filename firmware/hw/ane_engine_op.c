// SPDX-License-Identifier: GPL-2.0-only
/*
 * The neural engine's operations: one task's operation, validated and
 * planned once (engine/ane_math), run one chunk per
 * kernel_fpu_begin()/kernel_fpu_end() section, looking at the queue's
 * enable bit and at the engine's reset between chunks; a large operation
 * of a worker job is split over the neural cores (the engine_cores
 * parameter, ENG_CORES), each part a slice of the output with a workspace
 * of its own, every part waited for before the task goes on.  The jobs
 * that run a queue's tasks are ane_engine_job.c.
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
	struct ane_op_plan plan;
	u64 i, n;
	int ret;

	ret = ane_engine_errno(ane_op_prepare(d, &plan));
	if (ret)
		return ret;
	if (!kernel_fpu_available())
		return -EOPNOTSUPP;

	n = ane_op_plan_chunks(&plan);
	for (i = 0; i < n; i++) {
		kernel_fpu_begin();
		ret = ane_op_run_planned(d, &plan, i);
		kernel_fpu_end();
		if (ret)
			return ane_engine_errno(ret);
		cond_resched();
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_run_op);

/* The chunks of one operation (or one core's part), one per FPU section. */
static int ane_engine_chunks(struct ane_engine_job *j, const struct ane_op_desc *d)
{
	struct ane_op_plan plan;
	u64 i, n;

	/* validated and planned once: the chunks follow the one plan */
	if (ane_op_prepare(d, &plan))
		return ANE_ENG_E_INVALID;
	if (!kernel_fpu_available())
		return ANE_ENG_E_NOFPU;
	n = ane_op_plan_chunks(&plan);
	for (i = 0; i < n; i++) {
		int ret;

		if (i && ane_engine_stop(j))
			return -EINTR;
		kernel_fpu_begin();
		ret = ane_op_run_planned(d, &plan, i);
		kernel_fpu_end();
		if (ret)
			return ANE_ENG_E_INVALID;
		ane_engine_yield(j);
	}
	return ANE_ENG_E_NONE;
}

/*
 * The neural cores: one large operation of a worker job is split over up
 * to this many (ane_op_split(): each core computes a slice of the output,
 * bit-identical to the whole), the job's worker running the first part
 * and the engine's core workqueue the others.  0: one per online CPU.
 */
static unsigned int ane_engine_cores;

static int ane_engine_cores_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, ANE_ENGINE_MAX_CORES);
}

static const struct kernel_param_ops ane_engine_cores_ops = {
	.set = ane_engine_cores_set,
	.get = param_get_uint,
};

module_param_cb(engine_cores, &ane_engine_cores_ops, &ane_engine_cores, 0644);
MODULE_PARM_DESC(engine_cores,
		 "neural cores one large operation is split over (1..16; 0, the default: one per online CPU, at most 16); read at each operation");

/**
 * ane_engine_num_cores() - the cores an operation may be split over now
 *
 * Return: 1 .. %ANE_ENGINE_MAX_CORES.
 */
u32 ane_engine_num_cores(void)
{
	u32 n = READ_ONCE(ane_engine_cores);

	return n ?: min_t(u32, num_online_cpus(), ANE_ENGINE_MAX_CORES);
}
EXPORT_SYMBOL_IF_KUNIT(ane_engine_num_cores);

/**
 * struct ane_engine_core - one core's part of a split operation
 * @work: on the engine's core workqueue (not the first part: the job's
 *	worker runs that itself).
 * @j: the job.
 * @d: the part's descriptor, with its own workspace.
 * @st: its end: ANE_ENG_E_*, or -EINTR.
 * @done: completed when @st is set.
 */
struct ane_engine_core {
	struct work_struct work;
	struct ane_engine_job *j;
	struct ane_op_desc d;
	int st;
	struct completion done;
};

static void ane_engine_core_work(struct work_struct *work)
{
	struct ane_engine_core *c = container_of(work, struct ane_engine_core, work);

	c->st = ane_engine_chunks(c->j, &c->d);
	complete(&c->done);
}

/*
 * @d over @parts cores: each part planned with a workspace of its own in
 * one allocation, parts 1.. on the core workqueue, part 0 here, and every
 * part waited for, whatever the others did (a stop ends them all early).
 */
static int ane_engine_op_split(struct ane_engine_job *j, const struct ane_op_desc *d,
			       u32 parts)
{
	struct ane_engine_core *c;
	u64 ws[ANE_ENGINE_MAX_CORES], total = 0;
	int st = ANE_ENG_E_NONE;
	void *work = NULL;
	u8 *at;
	u32 i;

	c = kcalloc(parts, sizeof(*c), GFP_KERNEL);
	if (!c)
		return ANE_ENG_E_NOMEM;
	for (i = 0; i < parts; i++) {
		if (ane_op_split(d, i, parts, &c[i].d) ||
		    ane_op_workspace_size(&c[i].d, &ws[i])) {
			st = ANE_ENG_E_INVALID;
			goto out;
		}
		total += ALIGN(ws[i], ANE_MATH_WORK_ALIGN);
	}
	if (total) {
		work = kvmalloc(total + ANE_MATH_WORK_ALIGN, GFP_KERNEL | __GFP_NOWARN);
		if (!work) {
			st = ANE_ENG_E_NOMEM;
			goto out;
		}
		ane_engine_stage_peak(j, j->staged + total + ANE_MATH_WORK_ALIGN);
	}
	at = PTR_ALIGN((u8 *)work, ANE_MATH_WORK_ALIGN);
	for (i = 0; i < parts; i++) {
		c[i].j = j;
		c[i].d.work = ws[i] ? at : NULL;
		c[i].d.work_size = ws[i];
		at += ALIGN(ws[i], ANE_MATH_WORK_ALIGN);
		init_completion(&c[i].done);
		if (i) {
			INIT_WORK(&c[i].work, ane_engine_core_work);
			queue_work(j->e->corewq, &c[i].work);
		}
	}
	st = ane_engine_chunks(j, &c[0].d);
	for (i = 1; i < parts; i++) {
		wait_for_completion(&c[i].done);
		if (st == ANE_ENG_E_NONE)
			st = c[i].st;
	}
	kvfree(work);
out:
	kfree(c);
	return st;
}

/* The operation: on this worker alone, or split over the engine's cores. */
int ane_engine_op(struct ane_engine_job *j, const struct ane_op_desc *d)
{
	u32 parts = j->bh ? 1 : ane_op_split_parts(d, ane_engine_num_cores());
	int st;

	st = parts > 1 ? ane_engine_op_split(j, d, parts) : ane_engine_chunks(j, d);
	if (st == ANE_ENG_E_NONE) {
		j->ops++;
		j->split += parts > 1;
		/* the whole operation's indices, once, whatever its parts */
		j->gather_oob += ane_op_gather_oob(d);
	}
	return st;
}
