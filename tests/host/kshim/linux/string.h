/* SPDX-License-Identifier: GPL-2.0-only */
/* Host stand-in: see types.h. */
#include <linux/types.h>
