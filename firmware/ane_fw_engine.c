// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's execution of one operation: the kernel side of the compute
 * engine in firmware/engine/.
 *
 * The math runs only inside kernel_fpu_begin()/kernel_fpu_end(), one
 * bounded chunk per section, and the thread may be preempted between
 * chunks.  Descriptors are validated, with integer code only, before any
 * floating point runs.  The instruction set is picked once per firmware
 * boot, the widest the CPU has (ane_fw_engine_init()), and every operation
 * runs on it.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/fpu.h>
#include <linux/kernel.h>
#include <linux/sched.h>

#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#endif

#include "spec/ane_fw_abi.h"
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

/* The firmware's names of the ISAs are the engine's (ane_fw_abi.h). */
static_assert(ANE_FW_ENGINE_ISA_SSE2 == ANE_MATH_ISA_SSE2);
static_assert(ANE_FW_ENGINE_ISA_AVX2 == ANE_MATH_ISA_AVX2_FMA);
static_assert(ANE_FW_ENGINE_ISAS == ANE_MATH_ISA_COUNT);

/**
 * ane_fw_engine_widest_isa() - the widest engine path this CPU runs
 *
 * AVX2 + FMA + F16C when the boot CPU has all three and the kernel saves
 * the AVX state (the kernel clears them otherwise; OSXSAVE is checked as
 * well) and the engine was built with that path; SSE2 otherwise.
 *
 * Return: an enum ane_math_isa value.
 */
u32 ane_fw_engine_widest_isa(void)
{
#ifdef CONFIG_X86_64
	if (boot_cpu_has(X86_FEATURE_AVX2) && boot_cpu_has(X86_FEATURE_FMA) &&
	    boot_cpu_has(X86_FEATURE_F16C) && boot_cpu_has(X86_FEATURE_OSXSAVE) &&
	    ane_math_isa_built(ANE_MATH_ISA_AVX2_FMA))
		return ANE_MATH_ISA_AVX2_FMA;
#endif
	return ANE_MATH_ISA_SSE2;
}

/**
 * ane_fw_engine_init() - pick the engine's instruction set
 *
 * Called by the firmware at every boot, before it accepts a request: sets
 * the engine (ane_math_set_isa()) to the widest path this CPU runs, which
 * every operation then uses.  The choice depends on the CPU alone, so
 * every boot of every device makes the same one and the setting never
 * changes under an operation in flight.
 *
 * Context: any; integer code only.
 * Return: the enum ane_math_isa value now in use.
 */
u32 ane_fw_engine_init(void)
{
	u32 isa = ane_fw_engine_widest_isa();

	/* cannot fail: ane_fw_engine_widest_isa() checked it is built in */
	if (ane_math_get_isa() != isa)
		ane_math_set_isa(isa);
	return ane_math_get_isa();
}

/**
 * ane_fw_engine_isa_name() - the name of an instruction set
 * @isa: an enum ane_math_isa value.
 *
 * Return: "sse2", "avx2+fma+f16c" or "?".
 */
const char *ane_fw_engine_isa_name(u32 isa)
{
	static const char * const names[] = {
		[ANE_MATH_ISA_SSE2] = "sse2",
		[ANE_MATH_ISA_AVX2_FMA] = "avx2+fma+f16c",
	};

	return isa < ARRAY_SIZE(names) ? names[isa] : "?";
}

/**
 * ane_fw_engine_run() - validate and execute one operation
 * @d: the descriptor; tensor bases are kernel virtual addresses.
 *
 * On the instruction set in use (see ane_fw_engine_init()); the firmware's
 * own loop, with its deadline checks, is ane_fw_run_op().
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
