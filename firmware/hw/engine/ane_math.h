/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The compute engine's math: the tensor operations the emulated Neural
 * Engine executes, in plain C that builds both in the kernel (as objects of
 * their own, see below) and as ordinary userspace C for host tests and
 * benchmarks.
 *
 * Storage is IEEE binary16 (fp16, kept as uint16_t); every operation
 * converts to fp32, computes and accumulates in fp32 (a REDUCE in
 * double), and rounds to fp16 once, round-to-nearest-even, when it
 * stores a result.
 *
 * Tensors are NCHW with an explicit stride, in elements, per dimension
 * (struct ane_tensor), so views, transposes and broadcasts need no copy.
 *
 * An operation is a plain-data descriptor (struct ane_op_desc).  The caller
 * fills it with kernel virtual addresses and buffer lengths, checks it with
 * ane_op_validate(), and runs it as chunks 0 .. ane_op_chunks() - 1, in that
 * order, one ane_op_run() per chunk.  Each chunk is bounded work (about
 * chunk_work multiply-adds), so the kernel can wrap every call in its own
 * kernel_fpu_begin()/kernel_fpu_end() and cond_resched() between them.
 *
 * The code is split in two objects:
 *
 * - ane_math_plan.c is integer-only: fp16 bit conversions, validation,
 *   workspace sizes and chunk counts.  It is built like any kernel code
 *   (no FPU flags) and may be called anywhere.
 * - ane_math.c holds every floating-point instruction of the SSE2 path and
 *   of everything but the GEMM's hot loops.  In the kernel it is built with
 *   CFLAGS += $(CC_FLAGS_FPU), CFLAGS_REMOVE += $(CC_FLAGS_NO_FPU), and
 *   ane_op_run() and the float helpers may only be called between
 *   kernel_fpu_begin() and kernel_fpu_end().
 * - ane_math_avx2.c (x86_64, optional) holds the GEMM's AVX2 + FMA + F16C
 *   path: B and A packing with fp16 -> fp32 conversion, the 6 x 16 inner
 *   kernel and the stores.  It is built with $(CC_FLAGS_FPU) -mavx2 -mfma
 *   -mf16c, and ane_math.c with -DANE_MATH_AVX2 so that it calls it; it
 *   runs only inside ane_op_run(), so inside the same FPU sections
 *   (kernel_fpu_begin() saves and restores the full AVX state).
 *   Without it the engine is SSE2 only; see ane_math_set_isa().
 * - ane_math_avx512.c (x86_64, optional, with ane_math_avx2.c) holds the
 *   GEMM's AVX-512 inner kernel and B packing, built with the AVX2 flags
 *   and -mavx512f -mavx512bw -mavx512vl; ane_math.c and ane_math_gemm.c
 *   are built with -DANE_MATH_AVX512 so that they call it.
 *
 * None includes anything but this header; this header includes only the
 * instruction-set specification, ../../spec/ane_isa.h (the descriptor, the
 * tensors and the shape rules), which includes only <linux/types.h>
 * (kernel) or <stdint.h>/<stddef.h> (userspace).  The
 * prototypes that take or return float are visible only to userspace and
 * to code that defines ANE_MATH_FPU (ane_math.c), so non-FPU kernel code
 * cannot call them by accident.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_MATH_H
#define ANE_MATH_H

#include "../../spec/ane_isa.h"
/**
 * enum ane_math_isa - the instruction set ane_op_run() uses
 * @ANE_MATH_ISA_SSE2: SSE/SSE2 only, what the kernel's CC_FLAGS_FPU allows
 *	on x86_64; plain C vectors elsewhere.  The default.
 * @ANE_MATH_ISA_AVX2_FMA: the GEMM (MATMUL and CONV but depthwise-like)
 *	packs, multiplies and stores with AVX2, FMA and F16C instructions;
 *	everything else runs as with SSE2.  Only for a CPU that has all
 *	three (and an OS that saves the AVX state).
 * @ANE_MATH_ISA_AVX512: the GEMM's inner kernel (12 x 32, ZMM registers),
 *	its packing and its stores with AVX-512 F, BW and VL (the cases
 *	these do not cover as with AVX2_FMA), everything else as with
 *	SSE2.  Only for a
 *	CPU that has AVX-512 F, BW and VL as well as AVX2, FMA and F16C
 *	(and an OS that saves the ZMM and opmask state).  Gives the same
 *	bits as AVX2_FMA.
 * @ANE_MATH_ISA_COUNT: number of values.
 *
 * The engine never looks at the CPU itself: the caller decides, once,
 * before any operation runs -- the kernel from boot_cpu_has(X86_FEATURE_AVX2),
 * (X86_FEATURE_FMA) and (X86_FEATURE_F16C) (and AVX512F, AVX512BW,
 * AVX512VL with the AVX-512 xfeatures enabled), userspace from
 * __builtin_cpu_supports("avx2"), ("fma"), ("f16c") (and ("avx512f"),
 * ("avx512bw"), ("avx512vl")) -- and calls ane_math_set_isa().  Results of both paths agree with the exact value
 * within the same bound, but not bit for bit with each other (FMA rounds
 * once per multiply-add); within one path they never depend on chunking.
 */
enum ane_math_isa {
	ANE_MATH_ISA_SSE2 = 0,
	ANE_MATH_ISA_AVX2_FMA = 1,
	ANE_MATH_ISA_AVX512 = 2,
	ANE_MATH_ISA_COUNT,
};

/* --- ane_math_plan.c: integer only, callable from any kernel context --- */

/**
 * ane_math_set_isa() - choose the instruction set of ane_op_run()
 * @isa: enum ane_math_isa.  The caller vouches that the CPU has it.
 *
 * One global setting, SSE2 until set.  Set it before any operation runs
 * (at module or program start); it may change between operations, never
 * while one is between its first and last chunk (the chunks of one run
 * share packed data whose layout depends on it).  The chunk count and the
 * workspace size do not depend on it, so a descriptor validated under one
 * setting stays valid under the other.  Integer only; callable anywhere.
 *
 * Return: 0, or -ANE_MATH_EINVAL if @isa is unknown or not built in (then
 * the setting is unchanged).
 */
int ane_math_set_isa(uint32_t isa);

/**
 * ane_math_get_isa() - the instruction set ane_op_run() uses
 *
 * Return: an enum ane_math_isa value.
 */
uint32_t ane_math_get_isa(void);

/**
 * ane_math_isa_built() - whether this build can run an instruction set
 * @isa: enum ane_math_isa.
 *
 * Return: 1 if ane_math_set_isa(@isa) would succeed, else 0.
 */
int ane_math_isa_built(uint32_t isa);

/**
 * struct ane_op_plan - how a validated descriptor runs, worked out once
 * @words: the plan, opaque to callers.
 *
 * ane_op_validate(), ane_op_chunks() and ane_op_run() each work the plan
 * out again from the descriptor; a caller that runs one descriptor many
 * chunks (or many times) prepares it once with ane_op_prepare() instead.
 */
struct ane_op_plan {
	uint64_t words[16];
};

/**
 * ane_op_prepare() - validate a descriptor completely and plan its run
 * @d: the descriptor, as ane_op_validate() takes it.
 * @plan: filled in when it is valid.
 *
 * Return: as ane_op_validate().
 */
int ane_op_prepare(const struct ane_op_desc *d, struct ane_op_plan *plan);

/**
 * ane_op_plan_chunks() - the number of chunks of a prepared descriptor
 * @plan: from ane_op_prepare().
 *
 * Return: what ane_op_chunks() returns for its descriptor.
 */
uint64_t ane_op_plan_chunks(const struct ane_op_plan *plan);

/* --- ane_math.c: floating point; in the kernel, inside kernel_fpu_begin() --- */

/**
 * ane_op_run() - execute one chunk of a validated descriptor
 * @d: the descriptor.
 * @chunk: the chunk, 0 .. ane_op_chunks() - 1.
 *
 * Chunks must run in order 0, 1, ... ane_op_chunks() - 1, each exactly
 * once, on the same descriptor and workspace: a chunk may use what an
 * earlier chunk of the same run left in the workspace.  Each chunk is a
 * bounded amount of work (see &struct ane_op_desc.chunk_work), meant to be
 * one kernel_fpu_begin()/kernel_fpu_end() section.
 *
 * Return: 0, or -ANE_MATH_EINVAL if @chunk is out of range.
 */
int ane_op_run(const struct ane_op_desc *d, uint64_t chunk);

/**
 * ane_op_run_planned() - ane_op_run() of a prepared descriptor
 * @d: the descriptor ane_op_prepare() was given, unchanged since.
 * @plan: its plan.
 * @chunk: the chunk, 0 .. ane_op_plan_chunks() - 1.
 *
 * Return: as ane_op_run().
 */
int ane_op_run_planned(const struct ane_op_desc *d,
		       const struct ane_op_plan *plan, uint64_t chunk);

/* --- ane_math_split.c: integer only, one operation over several cores --- */

uint32_t ane_op_split_parts(const struct ane_op_desc *d, uint32_t cores);
int ane_op_split(const struct ane_op_desc *d, uint32_t part, uint32_t parts,
		 struct ane_op_desc *sub);

/**
 * ane_op_run_all() - execute every chunk in order
 * @d: a validated descriptor.
 *
 * For userspace and tests; the kernel loops over ane_op_run() itself.
 *
 * Return: 0, or what ane_op_run() returned.
 */
int ane_op_run_all(const struct ane_op_desc *d);

#if !defined(__KERNEL__) || defined(ANE_MATH_FPU)
float ane_fp16_to_fp32(uint16_t h);
uint16_t ane_fp32_to_fp16(float f);
float ane_expf(float x);
float ane_tanhf(float x);
float ane_sigmoidf(float x);
float ane_erfcf(float x);
float ane_act(uint32_t act, float x);
/* ane_math_fn.c (image minor version 4) */
float ane_act_fn(uint32_t act, float alpha, float beta, float x);
float ane_powf(float a, float b);
float ane_sqrtf(float x);
float ane_logf(float x);
float ane_erff(float x);
float ane_sinf(float x);
float ane_cosf(float x);
#endif

#endif /* ANE_MATH_H */
