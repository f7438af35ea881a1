/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's neural cores on the host: one operation of the userspace
 * build of firmware/engine/ split over threads, as the kernel's engine
 * splits it over its core workqueue (ane_op_split()).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_ENGINE_MT_H
#define ANE_ENGINE_MT_H

#include "ane_math.h"

/*
 * Run @d, validated and with its workspace, over up to @threads threads
 * (ane_op_split_parts() decides how many parts: a small operation runs on
 * the calling thread alone).  Each part gets a workspace of its own; @d's
 * is not used by a split run.  The result is bit-identical to
 * ane_op_run_all(@d).  Return: 0, a negative ANE_MATH_E* code, or
 * -ANE_MATH_ENOSPC when a part's workspace cannot be allocated.
 */
int engine_mt_run(const struct ane_op_desc *d, unsigned int threads);

#endif /* ANE_ENGINE_MT_H */
