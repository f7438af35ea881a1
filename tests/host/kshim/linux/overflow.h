/* SPDX-License-Identifier: GPL-2.0-only */
/* Host stand-in: see types.h. */
#include <linux/types.h>

#ifndef check_add_overflow
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#endif
