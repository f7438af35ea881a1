// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine-only KUnit build on User-Mode Linux (CONFIG_ANE_ENGINE_KUNIT_TEST):
 * the little the engine's objects call that UML lacks.  The kernel there
 * is a host process, so the "OS" that enables and saves the vector state
 * is the host kernel:
 *
 *  - UML learns the CPU's features from the names in the host's
 *    /proc/cpuinfo (parse_host_cpu_flags()); OSXSAVE has no name there,
 *    so it is taken from CPUID, where it says the host set CR4.OSXSAVE;
 *  - cpu_has_xfeatures(), which asks the x86 kernel whether it saves a
 *    state, asks XCR0 (XGETBV, allowed in user mode with OSXSAVE): the
 *    states the host saves for this process, around its signals too;
 *  - no device model is linked in, so the engine's DMA (ane_hw_dma())
 *    only faults: the suites run operations on kernel memory and never
 *    ring a queue.
 *
 * kernel_fpu_begin() is empty on UML: nothing else in this kernel uses the
 * vector registers (it is built with -mno-sse...), and without involuntary
 * preemption (um.kunitconfig) a kernel thread is switched out only where
 * it calls schedule(), never inside the engine's FPU sections.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/errno.h>
#include <linux/init.h>
#include <linux/types.h>

#include <asm/cpufeature.h>
#include <asm/fpu/types.h>	/* uml/asm/fpu/types.h */

#include "firmware/hw/ane_cpu.h"

#define ANE_UML_CPUID1_ECX_OSXSAVE	BIT(27)

int ane_hw_dma(struct ane_hw *hw, u32 sid, u64 iova, void *buf, size_t len,
	       bool write)
{
	return -EFAULT;
}

static u64 ane_uml_xcr0(void)
{
	u32 eax, edx;

	asm volatile("xgetbv" : "=a" (eax), "=d" (edx) : "c" (0));
	return eax | (u64)edx << 32;
}

int cpu_has_xfeatures(u64 xfeatures_mask, const char **feature_name)
{
	if (feature_name)
		*feature_name = "xstate";
	return boot_cpu_has(X86_FEATURE_OSXSAVE) &&
	       (ane_uml_xcr0() & xfeatures_mask) == xfeatures_mask;
}

static int __init ane_uml_cpu_init(void)
{
	u32 eax = 1, ebx, ecx = 0, edx;

	asm volatile("cpuid" : "+a" (eax), "=b" (ebx), "+c" (ecx), "=d" (edx));
	if (ecx & ANE_UML_CPUID1_ECX_OSXSAVE)
		set_cpu_cap(&boot_cpu_data, X86_FEATURE_OSXSAVE);
	return 0;
}
core_initcall(ane_uml_cpu_init);
