// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's execution of one operation: the kernel side of the compute
 * engine in firmware/engine/.
 *
 * The math runs only inside kernel_fpu_begin()/kernel_fpu_end(), one
 * bounded chunk per section, and the thread may be preempted between
 * chunks.  Descriptors are validated, with integer code only, before any
 * floating point runs.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/errno.h>
#include <linux/fpu.h>
#include <linux/once_lite.h>
#include <linux/sched.h>

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#endif

#include "ane_fw_engine.h"

/**
 * ane_fw_engine_errno() - the errno of an ANE_MATH_E* code
 * @math_err: 0 or a negative ANE_MATH_E* code.
 *
 * Return: 0, -EINVAL, -ENOSPC or -EOVERFLOW.
 */
int ane_fw_engine_errno(int math_err)
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

/* The engine's widest path this CPU runs: AVX2 + FMA + F16C, or SSE2. */
static void ane_fw_engine_pick_isa(void)
{
#ifdef CONFIG_X86_64
	if (boot_cpu_has(X86_FEATURE_AVX2) && boot_cpu_has(X86_FEATURE_FMA) &&
	    boot_cpu_has(X86_FEATURE_F16C) && boot_cpu_has(X86_FEATURE_OSXSAVE))
		ane_math_set_isa(ANE_MATH_ISA_AVX2_FMA);
#endif
}

/**
 * ane_fw_engine_run() - validate and execute one operation
 * @d: the descriptor; tensor bases are kernel virtual addresses.
 *
 * Context: process context; may sleep between chunks.
 *
 * Return: 0; -EINVAL, -ENOSPC or -EOVERFLOW for a descriptor the engine
 * refuses; -EOPNOTSUPP when this CPU cannot use its FPU in the kernel.
 */
int ane_fw_engine_run(const struct ane_op_desc *d)
{
	u64 i, n;
	int ret;

	ret = ane_fw_engine_errno(ane_op_validate(d));
	if (ret)
		return ret;
	if (!kernel_fpu_available())
		return -EOPNOTSUPP;
	DO_ONCE_LITE(ane_fw_engine_pick_isa);

	n = ane_op_chunks(d);
	for (i = 0; i < n; i++) {
		kernel_fpu_begin();
		ret = ane_op_run(d, i);
		kernel_fpu_end();
		if (ret)
			return ane_fw_engine_errno(ret);
		cond_resched();
	}
	return 0;
}
