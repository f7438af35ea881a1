/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's userspace build on the host, for the tools that run it
 * (ane-mathbench, ane-netbench): which instruction-set paths this CPU can
 * run, and one operation split over threads -- the neural cores -- as the
 * kernel's engine splits it over its core workqueue (ane_op_split()).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_ENGINE_HOST_H
#define ANE_ENGINE_HOST_H

#include "ane_math.h"

/* The path's name as fw_status prints it, and as ANE_MATH_ISA takes it. */
const char *engine_isa_name(uint32_t isa);
const char *engine_isa_short(uint32_t isa);

/* Does this CPU have what @isa needs (whether or not it is built in)? */
int engine_isa_cpu(uint32_t isa);

/*
 * Can this build and CPU run @isa, and does $ANE_MATH_ISA (a name or a
 * short name, empty: any) allow it?
 */
int engine_isa_usable(uint32_t isa);

/* The widest path engine_isa_usable() allows; -1 if none. */
int engine_isa_best(void);

/*
 * Run @d, validated and with its workspace, over up to @threads threads
 * (ane_op_split_parts() decides how many parts: a small operation runs on
 * the calling thread alone).  Part 0 runs on the caller, the others on
 * workers started on first use and kept for the process's life (they
 * watch for the next operation for 200 us, then sleep; joined at exit;
 * none in a child of fork() until it asks); callers on several threads
 * take turns.  Each part gets a workspace of its own; @d's is not used by
 * a split run.  The result is bit-identical to ane_op_run_all(@d).
 * Return: 0, a negative ANE_MATH_E* code, or -ANE_MATH_ENOSPC when a
 * part's workspace cannot be allocated.
 */
int engine_mt_run(const struct ane_op_desc *d, unsigned int threads);

#endif /* ANE_ENGINE_HOST_H */
