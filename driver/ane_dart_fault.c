// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DART, driver half: the fault interrupt and the fault records.  The
 * controller latches a translation fault in its error registers and
 * raises its interrupt line; the handler here reads and acknowledges the
 * latch and keeps the last fault per context for DRM_IOCTL_ANE_GET_FAULT.
 * A software walk (ane_dart_ctx_dma()) records its faults the same way.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/interrupt.h>

#include <drm/drm_print.h>

#include "ane_dart_internal.h"
#include "ane_drv.h"
#include "ane_trace.h"

static const char *ane_dart_fault_class(u32 code)
{
	switch (code) {
	case ANE_DART_FAULT_L2_INVALID:
	case ANE_DART_FAULT_L3_INVALID:
		return "translation";
	case ANE_DART_FAULT_APERTURE:
	case ANE_DART_FAULT_CEILING:
		return "aperture";
	default:
		return "stream";
	}
}

/* Keep an IODARTErrorInfo-shaped record of a fault with @status at @addr. */
/**
 * ane_dart_record() - record a fault the controller latched
 * @dart: the DART.
 * @status: the error status word (flag, code, stream).
 * @addr: the faulting device address.
 *
 * Context: any; takes &ane_dart.fault_lock.
 */
void ane_dart_record(struct ane_dart *dart, u32 status, u64 addr)
{
	u32 sid = (status & ANE_DART_ERR_SID_MASK) >> ANE_DART_ERR_SID_SHIFT;
	struct ane_dart_fault *f;
	unsigned long flags;

	spin_lock_irqsave(&dart->fault_lock, flags);
	f = &dart->faults[dart->fault_head];
	dart->fault_head = (dart->fault_head + 1) % ANE_DART_FAULT_LOG;
	if (dart->fault_count < ANE_DART_FAULT_LOG)
		dart->fault_count++;
	memset(f, 0, sizeof(*f));
	f->type = "DART translation fault";
	f->hw_error = status & ANE_DART_ERR_CODE_MASK;
	f->hw_class = ane_dart_fault_class(f->hw_error);
	f->hw_status = status;
	f->is_write = !!(status & ANE_DART_ERR_WRITE);
	f->sid = sid;
	f->address = addr;
	f->ttbr_index = sid;
	f->l2_index = ane_dart_l2_index(addr);
	f->l3_index = ane_dart_l3_index(addr);
	f->axi_id[0] = sid;
	f->ctx_id = READ_ONCE(dart->sid_ctx[sid]);
	f->seq = ++dart->fault_seq;
	trace_ane_dart_fault(dart->adev->drm.dev, f);
	spin_unlock_irqrestore(&dart->fault_lock, flags);

	drm_dbg_driver(&dart->adev->drm,
		       "DART %s fault: sid %u ctx %u iova 0x%llx %s code %u\n",
		       ane_dart_fault_class(status & ANE_DART_ERR_CODE_MASK), sid,
		       READ_ONCE(dart->sid_ctx[sid]), addr,
		       status & ANE_DART_ERR_WRITE ? "write" : "read",
		       (u32)(status & ANE_DART_ERR_CODE_MASK));
}

/**
 * ane_dart_irq() - the DART interrupt: capture and contain a fault
 * @irq: the "dart" line.
 * @data: the &struct ane_dart.
 *
 * Reads the latched error registers, keeps an IODARTErrorInfo-shaped
 * record, and clears the latch.  The fault fails only the access that
 * caused it.  The emulated controller raises the line from the faulting
 * access, so the record exists when the access returns.
 *
 * Return: IRQ_HANDLED, or IRQ_NONE if no fault was latched.
 */
irqreturn_t ane_dart_irq(int irq, void *data)
{
	struct ane_dart *dart = data;
	u32 status = ane_dart_rd(dart, ANE_DART_ERROR_STATUS);
	u64 addr;

	if (!(status & ANE_DART_ERR_FLAG))
		return IRQ_NONE;
	addr = (u64)ane_dart_rd(dart, ANE_DART_ERROR_ADDR_HI) << 32 |
	       ane_dart_rd(dart, ANE_DART_ERROR_ADDR_LO);
	ane_dart_record(dart, status, addr);
	ane_dart_wr(dart, ANE_DART_ERROR_STATUS, ANE_DART_ERR_FLAG);
	return IRQ_HANDLED;
}

/**
 * ane_dart_last_fault() - the newest fault record of a context
 * @dart: the controller.
 * @ctx_id: the context id.
 * @out: the record.
 *
 * Return: true if a record was found.
 */
bool ane_dart_last_fault(struct ane_dart *dart, u32 ctx_id,
			 struct ane_dart_fault *out)
{
	unsigned int i, idx;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&dart->fault_lock, flags);
	for (i = 1; i <= dart->fault_count; i++) {
		idx = (dart->fault_head + ANE_DART_FAULT_LOG - i) % ANE_DART_FAULT_LOG;
		if (dart->faults[idx].ctx_id == ctx_id) {
			*out = dart->faults[idx];
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&dart->fault_lock, flags);
	return found;
}
