// SPDX-License-Identifier: GPL-2.0-only
/*
 * The emulated DART controller: the hardware half of the DART.
 *
 * The engine's DMA goes through ane_dart_hw_dma(), which translates each
 * 16 KB page through the stream's translation cache or, on a miss, by
 * walking the two-level tables the stream's TTBR points at, exactly as
 * the hardware reads them from memory (by physical address).  Nothing
 * here knows about the driver's contexts or allocators: the driver
 * programs the tables in memory and the registers, and must flush the
 * cache after changing entries, as it would on silicon.  A translation
 * fault latches the error registers and raises the DART interrupt line.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "../spec/ane_dart_regs.h"
#include "ane_dart_hw.h"

/* Translation cache entries per stream (direct mapped). */
#define ANE_DART_TLB_ENTRIES	64

/**
 * struct ane_dart_tlb_entry - one cached translation
 * @iova_page: device address >> 14, plus one (0 marks an empty entry).
 * @pte: the leaf PTE read by the walk.
 */
struct ane_dart_tlb_entry {
	u64 iova_page;
	u64 pte;
};

/**
 * struct ane_dart_hw - one DART controller
 * @lock: protects @regs, @tlb, @tlb_hits, @tlb_misses and the latched
 *	counter halves.  Held across each page of a table walk and its
 *	copy, so after a TTBR change or flush returns no walk uses the old
 *	tables.  Never held while the interrupt line is raised.
 * @irq: the interrupt line a latched fault raises (0: none).
 * @regs: the PTD register window.
 * @tlb: per-stream translation caches.
 * @tlb_hits: translations served from @tlb.
 * @tlb_misses: translations that walked the tables.
 * @hits_hi: upper half of @tlb_hits latched by reading its lower half.
 * @misses_hi: the same for @tlb_misses.
 */
struct ane_dart_hw {
	spinlock_t lock;		/* registers, TLB, counters */
	unsigned int irq;
	u32 regs[ANE_DART_REGS_SIZE / 4];
	struct ane_dart_tlb_entry tlb[ANE_DART_NUM_STREAMS][ANE_DART_TLB_ENTRIES];
	u64 tlb_hits;
	u64 tlb_misses;
	u32 hits_hi;
	u32 misses_hi;
};

static u32 ane_dart_tlb_slot(u64 iova_page)
{
	return iova_page % ANE_DART_TLB_ENTRIES;
}

static void ane_dart_tlb_flush_locked(struct ane_dart_hw *d, u32 streams)
{
	u32 sid;

	lockdep_assert_held(&d->lock);
	for (sid = 0; sid < ANE_DART_NUM_STREAMS; sid++)
		if (streams & BIT(sid))
			memset(d->tlb[sid], 0, sizeof(d->tlb[sid]));
}

/**
 * ane_dart_hw_read() - read a register of the PTD window
 * @d: the controller.
 * @off: byte offset.
 *
 * Return: the register; 0 outside the window or unaligned.
 */
u32 ane_dart_hw_read(struct ane_dart_hw *d, u32 off)
{
	unsigned long flags;
	u32 val;

	if (off >= sizeof(d->regs) || off & 3)
		return 0;
	spin_lock_irqsave(&d->lock, flags);
	switch (off) {
	case ANE_DART_TLB_HITS_LO:
		val = lower_32_bits(d->tlb_hits);
		d->hits_hi = upper_32_bits(d->tlb_hits);
		break;
	case ANE_DART_TLB_HITS_HI:
		val = d->hits_hi;
		break;
	case ANE_DART_TLB_MISSES_LO:
		val = lower_32_bits(d->tlb_misses);
		d->misses_hi = upper_32_bits(d->tlb_misses);
		break;
	case ANE_DART_TLB_MISSES_HI:
		val = d->misses_hi;
		break;
	default:
		val = d->regs[off / 4];
		break;
	}
	spin_unlock_irqrestore(&d->lock, flags);
	return val;
}

/**
 * ane_dart_hw_write() - write a register of the PTD window
 * @d: the controller.
 * @off: byte offset (ignored outside the window or unaligned).
 * @val: the value.
 */
void ane_dart_hw_write(struct ane_dart_hw *d, u32 off, u32 val)
{
	unsigned long flags;

	if (off >= sizeof(d->regs) || off & 3)
		return;

	spin_lock_irqsave(&d->lock, flags);
	switch (off) {
	case ANE_DART_ERROR_STATUS:
		/* Write one to the flag to clear the latch and its address. */
		if (val & ANE_DART_ERR_FLAG) {
			d->regs[ANE_DART_ERROR_STATUS / 4] = 0;
			d->regs[ANE_DART_ERROR_ADDR_LO / 4] = 0;
			d->regs[ANE_DART_ERROR_ADDR_HI / 4] = 0;
		}
		break;
	case ANE_DART_ERROR_ADDR_LO:
	case ANE_DART_ERROR_ADDR_HI:
	case ANE_DART_TLB_STATUS:
	case ANE_DART_TLB_ERROR:
	case ANE_DART_TLB_ERROR_INFO:
	case ANE_DART_TLB_HITS_LO:
	case ANE_DART_TLB_HITS_HI:
	case ANE_DART_TLB_MISSES_LO:
	case ANE_DART_TLB_MISSES_HI:
		break;	/* read-only */
	case ANE_DART_TLB_CMD:
		/*
		 * The flush completes within the write: status never stays
		 * busy, but drivers poll it as they would on silicon.
		 */
		if (val & ANE_DART_TLB_FLUSH)
			ane_dart_tlb_flush_locked(d, val & 0xffff);
		d->regs[ANE_DART_TLB_STATUS / 4] &= ~ANE_DART_TLB_BUSY;
		break;
	default:
		d->regs[off / 4] = val;
		break;
	}
	spin_unlock_irqrestore(&d->lock, flags);
}

/*
 * Latch a fault unless one is already latched (the capture is single-shot
 * until the driver clears it).  Returns true if this fault was latched.
 */
static bool ane_dart_latch_locked(struct ane_dart_hw *d, u32 sid, u64 iova,
				  bool write, enum ane_dart_fault_code code)
{
	u32 *status = &d->regs[ANE_DART_ERROR_STATUS / 4];

	lockdep_assert_held(&d->lock);
	if (*status & ANE_DART_ERR_FLAG)
		return false;
	*status = ANE_DART_ERR_FLAG | (write ? ANE_DART_ERR_WRITE : 0) |
		  (sid << ANE_DART_ERR_SID_SHIFT) | code;
	d->regs[ANE_DART_ERROR_ADDR_LO / 4] = lower_32_bits(iova);
	d->regs[ANE_DART_ERROR_ADDR_HI / 4] = upper_32_bits(iova);
	return true;
}

/* Translate one device address of @sid to a leaf PTE, or a fault code. */
static enum ane_dart_fault_code
ane_dart_translate_locked(struct ane_dart_hw *d, u32 sid, u64 iova, u64 *pte)
{
	struct ane_dart_tlb_entry *te;
	u64 page = iova >> ANE_DART_PAGE_SHIFT;
	u32 ttbr, tcr;
	u64 l2e, *l2, *l3;

	lockdep_assert_held(&d->lock);

	if (iova >= ANE_DART_CEILING)
		return ANE_DART_FAULT_CEILING;
	if (iova >= ANE_DART_APERTURE_END)
		return ANE_DART_FAULT_APERTURE;

	tcr = d->regs[ANE_DART_TCR(sid) / 4];
	ttbr = d->regs[ANE_DART_TTBR(sid) / 4];
	if (!(d->regs[ANE_DART_ENABLED_STREAMS / 4] & BIT(sid)) ||
	    !(tcr & ANE_DART_TCR_TRANSLATE) || !(ttbr & ANE_DART_TTBR_VALID))
		return ANE_DART_FAULT_STREAM;

	te = &d->tlb[sid][ane_dart_tlb_slot(page)];
	if (te->iova_page == page + 1) {
		d->tlb_hits++;
		*pte = te->pte;
		return ANE_DART_FAULT_NONE;
	}
	d->tlb_misses++;

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
 * ane_dart_hw_dma() - engine DMA through the DART
 * @d: the controller.
 * @sid: the engine stream issuing the access.
 * @iova: device address.
 * @buf: kernel buffer to read into or write from.
 * @len: bytes.
 * @write: true for a write to memory.
 *
 * Each 16 KB page is translated and copied under the controller's lock.
 * A translation fault stops the transfer at the faulting page, latches
 * the error registers (if no fault is latched yet) and raises the DART
 * interrupt line, whose handler (the driver's) records the fault and
 * clears the latch before this returns.
 *
 * Return: 0, or -EFAULT on a translation fault.
 */
int ane_dart_hw_dma(struct ane_dart_hw *d, u32 sid, u64 iova, void *buf,
		    size_t len, bool write)
{
	enum ane_dart_fault_code code = ANE_DART_FAULT_NONE;
	unsigned long flags;
	bool latched = false;
	u8 *p = buf;

	if (sid >= ANE_DART_NUM_STREAMS)
		return -EINVAL;

	while (len) {
		u32 off = iova & ANE_DART_PAGE_MASK;
		size_t chunk = min_t(size_t, len, ANE_DART_PAGE_SIZE - off);
		void *va;
		u64 pte;

		spin_lock_irqsave(&d->lock, flags);
		code = ane_dart_translate_locked(d, sid, iova, &pte);
		if (code != ANE_DART_FAULT_NONE) {
			latched = ane_dart_latch_locked(d, sid, iova, write, code);
			spin_unlock_irqrestore(&d->lock, flags);
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
		spin_unlock_irqrestore(&d->lock, flags);

		iova += chunk;
		p += chunk;
		len -= chunk;
	}

	if (code == ANE_DART_FAULT_NONE)
		return 0;
	if (latched && d->irq)
		generic_handle_irq_safe(d->irq);
	return -EFAULT;
}

/**
 * ane_dart_hw_set_irq() - connect the fault interrupt line
 * @d: the controller.
 * @irq: the Linux interrupt the board mapped for the line.
 */
void ane_dart_hw_set_irq(struct ane_dart_hw *d, unsigned int irq)
{
	d->irq = irq;
}

/**
 * ane_dart_hw_create() - power on a DART: every register zero, caches empty
 *
 * Return: the controller, or NULL.
 */
struct ane_dart_hw *ane_dart_hw_create(void)
{
	struct ane_dart_hw *d = kvzalloc(sizeof(*d), GFP_KERNEL);

	if (d)
		spin_lock_init(&d->lock);
	return d;
}

/**
 * ane_dart_hw_destroy() - power off
 * @d: the controller, or NULL.
 */
void ane_dart_hw_destroy(struct ane_dart_hw *d)
{
	kvfree(d);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* KUnit: store @val to a register as the hardware itself would. */
void ane_dart_hw_poke(struct ane_dart_hw *d, u32 off, u32 val)
{
	unsigned long flags;

	if (off >= sizeof(d->regs) || off & 3)
		return;
	spin_lock_irqsave(&d->lock, flags);
	d->regs[off / 4] = val;
	spin_unlock_irqrestore(&d->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(ane_dart_hw_poke);
#endif
