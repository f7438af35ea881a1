/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A minimal stand-in for the kernel headers, so that pure kernel code (the
 * program image validator and the task-descriptor decoder) builds for the
 * host tests unchanged.  Only what that code uses is here.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_KSHIM_TYPES_H
#define ANE_KSHIM_TYPES_H

#include_next <linux/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef uint64_t phys_addr_t;

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l)		(((~0UL) << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l)	(((~0ULL) << (l)) & (~0ULL >> (63 - (h))))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define GFP_KERNEL		0

static inline void *kvcalloc(size_t n, size_t size, int gfp)
{
	(void)gfp;
	return calloc(n, size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/* The first byte of @p[0..n) that is not @c, or NULL. */
static inline void *memchr_inv(const void *p, int c, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)c)
			return (void *)(b + i);
	return NULL;
}

#endif /* ANE_KSHIM_TYPES_H */
