// SPDX-License-Identifier: GPL-2.0-only
/*
 * The emulated DART controller: the hardware half of the DART.
 *
 * The engine's DMA goes through ane_dart_dma(), which translates each
 * 16 KB page through the stream's translation cache or, on a miss, by
 * walking the two-level tables the stream's TTBR points at, exactly as
 * the hardware reads them from memory.  Nothing here knows about the
 * driver's contexts or allocators: the driver programs the tables in
 * memory and the registers, and must flush the cache after changing
 * entries, as it would on silicon.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/io.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "driver/ane_dart.h"
#include "driver/ane_drv.h"

static u32 ane_dart_tlb_slot(u64 iova_page)
{
	return iova_page % ANE_DART_TLB_ENTRIES;
}

static void ane_dart_tlb_flush_locked(struct ane_dart *dart, u32 streams)
{
	u32 sid;

	lockdep_assert_held(&dart->hw_lock);
	for (sid = 0; sid < ANE_DART_NUM_STREAMS; sid++)
		if (streams & BIT(sid))
			memset(dart->tlb[sid], 0, sizeof(dart->tlb[sid]));
}

u32 ane_dart_reg_read(struct ane_dart *dart, u32 off)
{
	unsigned long flags;
	u32 val;

	if (off >= sizeof(dart->regs) || off & 3)
		return 0;
	spin_lock_irqsave(&dart->hw_lock, flags);
	val = dart->regs[off / 4];
	spin_unlock_irqrestore(&dart->hw_lock, flags);
	return val;
}

void ane_dart_reg_write(struct ane_dart *dart, u32 off, u32 val)
{
	unsigned long flags;

	if (off >= sizeof(dart->regs) || off & 3)
		return;

	spin_lock_irqsave(&dart->hw_lock, flags);
	switch (off) {
	case ANE_DART_ERROR_STATUS:
		/* Write one to the flag to clear the latch and its address. */
		if (val & ANE_DART_ERR_FLAG) {
			dart->regs[ANE_DART_ERROR_STATUS / 4] = 0;
			dart->regs[ANE_DART_ERROR_ADDR_LO / 4] = 0;
			dart->regs[ANE_DART_ERROR_ADDR_HI / 4] = 0;
		}
		break;
	case ANE_DART_ERROR_ADDR_LO:
	case ANE_DART_ERROR_ADDR_HI:
	case ANE_DART_TLB_STATUS:
	case ANE_DART_TLB_ERROR:
	case ANE_DART_TLB_ERROR_INFO:
		break;	/* read-only */
	case ANE_DART_TLB_CMD:
		/*
		 * The flush completes within the write: status never stays
		 * busy, but drivers poll it as they would on silicon.
		 */
		if (val & ANE_DART_TLB_FLUSH)
			ane_dart_tlb_flush_locked(dart, val & 0xffff);
		dart->regs[ANE_DART_TLB_STATUS / 4] &= ~ANE_DART_TLB_BUSY;
		break;
	default:
		dart->regs[off / 4] = val;
		break;
	}
	spin_unlock_irqrestore(&dart->hw_lock, flags);
}

/*
 * Latch a fault unless one is already latched (the capture is single-shot
 * until the driver clears it).  Returns true if this fault was latched.
 */
static bool ane_dart_latch_locked(struct ane_dart *dart, u32 sid, u64 iova,
				  bool write, enum ane_dart_fault_code code)
{
	u32 *status = &dart->regs[ANE_DART_ERROR_STATUS / 4];

	lockdep_assert_held(&dart->hw_lock);
	if (*status & ANE_DART_ERR_FLAG)
		return false;
	*status = ANE_DART_ERR_FLAG | (write ? ANE_DART_ERR_WRITE : 0) |
		  (sid << ANE_DART_ERR_SID_SHIFT) | code;
	dart->regs[ANE_DART_ERROR_ADDR_LO / 4] = lower_32_bits(iova);
	dart->regs[ANE_DART_ERROR_ADDR_HI / 4] = upper_32_bits(iova);
	return true;
}

/* Translate one device address of @sid to a leaf PTE, or a fault code. */
static enum ane_dart_fault_code
ane_dart_translate_locked(struct ane_dart *dart, u32 sid, u64 iova, u64 *pte)
{
	struct ane_dart_tlb_entry *te;
	u64 page = iova >> ANE_DART_PAGE_SHIFT;
	u32 ttbr, tcr;
	u64 l2e, *l2, *l3;

	lockdep_assert_held(&dart->hw_lock);

	if (iova >= ANE_DART_CEILING)
		return ANE_DART_FAULT_CEILING;
	if (iova >= ANE_DART_APERTURE_END)
		return ANE_DART_FAULT_APERTURE;

	tcr = dart->regs[ANE_DART_TCR(sid) / 4];
	ttbr = dart->regs[ANE_DART_TTBR(sid) / 4];
	if (!(dart->regs[ANE_DART_ENABLED_STREAMS / 4] & BIT(sid)) ||
	    !(tcr & ANE_DART_TCR_TRANSLATE) || !(ttbr & ANE_DART_TTBR_VALID))
		return ANE_DART_FAULT_STREAM;

	te = &dart->tlb[sid][ane_dart_tlb_slot(page)];
	if (te->iova_page == page + 1) {
		dart->tlb_hits++;
		*pte = te->pte;
		return ANE_DART_FAULT_NONE;
	}
	dart->tlb_misses++;

	/* The walk reads the tables from memory, as the hardware does. */
	l2 = phys_to_virt((phys_addr_t)(ttbr & ~ANE_DART_TTBR_VALID) <<
			  ANE_DART_TTBR_SHIFT);
	l2e = READ_ONCE(l2[ane_dart_l2_index(iova)]);
	if (!(l2e & ANE_DART_PTE_VALID))
		return ANE_DART_FAULT_L2_INVALID;
	l3 = phys_to_virt(l2e & ANE_DART_PTE_PA_MASK);
	*pte = READ_ONCE(l3[ane_dart_l3_index(iova)]);
	if (!(*pte & ANE_DART_PTE_VALID))
		return ANE_DART_FAULT_L3_INVALID;

	te->iova_page = page + 1;
	te->pte = *pte;
	return ANE_DART_FAULT_NONE;
}

/**
 * ane_dart_dma() - engine DMA through the DART
 * @dart: the controller.
 * @sid: the engine stream issuing the access.
 * @iova: device address.
 * @buf: kernel buffer to read into or write from.
 * @len: bytes.
 * @write: true for a write to memory.
 *
 * Each 16 KB page is translated and copied under the hardware lock,
 * softirqs off: the engine's softirq job does DMA too.  A
 * translation fault stops the transfer at the faulting page, latches the
 * error registers (if no fault is latched yet) and raises the DART
 * interrupt, whose handler records the fault.
 *
 * Context: process or softirq context, interrupts enabled.
 * Return: 0, or -EFAULT on a translation fault.
 */
int ane_dart_dma(struct ane_dart *dart, u32 sid, u64 iova, void *buf,
		 size_t len, bool write)
{
	enum ane_dart_fault_code code = ANE_DART_FAULT_NONE;
	bool latched = false;
	u8 *p = buf;

	if (sid >= ANE_DART_NUM_STREAMS)
		return -EINVAL;

	while (len) {
		u32 off = iova & ANE_DART_PAGE_MASK;
		size_t chunk = min_t(size_t, len, ANE_DART_PAGE_SIZE - off);
		void *va;
		u64 pte;

		spin_lock_bh(&dart->hw_lock);
		code = ane_dart_translate_locked(dart, sid, iova, &pte);
		if (code != ANE_DART_FAULT_NONE) {
			latched = ane_dart_latch_locked(dart, sid, iova, write, code);
			spin_unlock_bh(&dart->hw_lock);
			break;
		}
		/*
		 * A 16 KB frame is physically contiguous and, on the 64-bit
		 * kernels this driver builds for, linearly mapped; a chunk
		 * never crosses a frame.
		 */
		va = phys_to_virt((pte & ANE_DART_PTE_PA_MASK) + off);
		if (write)
			memcpy(va, p, chunk);
		else
			memcpy(p, va, chunk);
		spin_unlock_bh(&dart->hw_lock);

		iova += chunk;
		p += chunk;
		len -= chunk;
	}

	if (code == ANE_DART_FAULT_NONE)
		return 0;
	if (latched)
		ane_dart_irq(dart);
	return -EFAULT;
}
