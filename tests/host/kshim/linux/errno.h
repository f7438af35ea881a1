/* SPDX-License-Identifier: GPL-2.0-only */
/* Host stand-in: the uapi errno values. */
#include_next <linux/errno.h>
