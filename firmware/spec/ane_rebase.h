/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The firmware rebase of ch. 28: a second translation from host device
 * addresses (DART IOVAs) into the firmware's resident DRAM-tile aperture.
 *
 * Pure arithmetic that calls nothing, shared like the ABI headers: the
 * firmware rebases every operand of a loaded program's tasks through it
 * into the 32-bit values its bar registers take, and KUnit checks it.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_REBASE_H__
#define __ANE_REBASE_H__

#include <linux/errno.h>
#include <linux/types.h>

/**
 * struct ane_aperture_cfg - the firmware aperture-config triple (Table 28.8)
 * @dva_base: host / DART IOVA region base (engine+0xa000+0xb98).
 * @region_size: mapped region size (+0xba0).
 * @mapped_base: firmware runtime aperture base, the rebase target
 *	(+0xba8).  Both bases move with every program load.
 */
struct ane_aperture_cfg {
	u64 dva_base;
	u64 region_size;
	u64 mapped_base;
};

/**
 * ane_rebase() - the firmware's validated translate
 * @cfg: the aperture config of the loaded program.
 * @iova: a descriptor's device address.
 * @len: bytes the descriptor spans (at least 1).
 * @out: the rebased 32-bit address.
 *
 * runtime = iova - dvaBase + mappedBase: one subtract, one add, no shift,
 * mask or rounding, after a range check against the mapped region.  Only
 * the low 32 bits reach the engine's bar registers, so a result at or
 * above 4 GiB is refused rather than truncated.
 *
 * Return: 0, -EFAULT if [@iova, @iova + @len) is outside the region,
 * -ERANGE if the rebased range crosses the 32-bit ceiling.
 */
static inline int ane_rebase(const struct ane_aperture_cfg *cfg, u64 iova,
			     u64 len, u32 *out)
{
	u64 off, runtime;

	if (!len || iova < cfg->dva_base)
		return -EFAULT;
	off = iova - cfg->dva_base;
	if (off >= cfg->region_size || len > cfg->region_size - off)
		return -EFAULT;
	runtime = off + cfg->mapped_base;
	if (runtime < cfg->mapped_base || runtime + len - 1 > U32_MAX)
		return -ERANGE;
	*out = (u32)runtime;
	return 0;
}

#endif /* __ANE_REBASE_H__ */
