/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Constants of the engine that pure code (the image validator) needs, kept
 * apart from the structures of ane_dart.h and ane_gem.h so that code also
 * builds for the host tests.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_LIMITS_H__
#define __ANE_LIMITS_H__

#include <linux/bits.h>

/* Table 28.1: the DART granule is in the DART's specification header. */
#include "firmware/spec/ane_dart_regs.h"

/* Table 28.5: usage codes.  The 0x1000 bit marks firmware-owned codes. */
#define ANE_USAGE_INPUT		1
#define ANE_USAGE_OUTPUT	2
#define ANE_USAGE_INTERMEDIATE	7
#define ANE_USAGE_WEIGHTS	8
#define ANE_USAGE_PROGRAM	9
#define ANE_USAGE_CONSTANTS	11
#define ANE_USAGE_FW_SHARED	0x1019
#define ANE_USAGE_FW_HEAP	0x101a
#define ANE_USAGE_FW_CLASS	0x1000

/* Largest surface, to bound a single allocation (1 GiB). */
#define ANE_BO_MAX_SIZE		BIT_ULL(30)

#endif /* __ANE_LIMITS_H__ */
