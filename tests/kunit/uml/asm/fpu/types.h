/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine-only KUnit build on User-Mode Linux (CONFIG_ANE_ENGINE_KUNIT_TEST)
 * puts this directory ahead of the kernel's include paths (Kbuild), as the
 * x86 <asm/fpu/types.h> cannot be included in a UML kernel (its page and
 * task constants clash with UML's).  The engine (firmware/hw/ane_engine.c)
 * asks cpu_has_xfeatures() whether the kernel saves the AVX and AVX-512
 * state; ../../../ane_engine_uml.c answers for UML.  The masks are the
 * architectural XCR0 bits (the x86 header's values).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_UML_ASM_FPU_TYPES_H__
#define __ANE_UML_ASM_FPU_TYPES_H__

#include <linux/bits.h>
#include <linux/types.h>

#define XFEATURE_MASK_FP		BIT_ULL(0)
#define XFEATURE_MASK_SSE		BIT_ULL(1)
#define XFEATURE_MASK_YMM		BIT_ULL(2)
#define XFEATURE_MASK_OPMASK		BIT_ULL(5)
#define XFEATURE_MASK_ZMM_Hi256		BIT_ULL(6)
#define XFEATURE_MASK_Hi16_ZMM		BIT_ULL(7)
#define XFEATURE_MASK_AVX512		(XFEATURE_MASK_OPMASK | \
					 XFEATURE_MASK_ZMM_Hi256 | \
					 XFEATURE_MASK_Hi16_ZMM)

int cpu_has_xfeatures(u64 xfeatures_mask, const char **feature_name);

#endif /* __ANE_UML_ASM_FPU_TYPES_H__ */
