/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the ane trace system (Documentation/accel/ane/tracing.rst).
 *
 * Copyright (C) 2026 The ane authors
 */

#if !defined(__ANE_TRACE_H__) || defined(TRACE_HEADER_MULTI_READ)
#define __ANE_TRACE_H__

#include <linux/device.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM ane

#define ane_trace_fw_state(s)					\
	__print_symbolic(s, { 0, "off" }, { 1, "booting" },	\
			 { 2, "ready" }, { 3, "recovering" },	\
			 { 4, "dead" }, { 5, "suspended" })

TRACE_EVENT(ane_submit,
	    TP_PROTO(const struct drm_file *file,
		     const struct drm_ane_request *in, u64 seqno, u32 nbars),
	    TP_ARGS(file, in, seqno, nbars),
	    TP_STRUCT__entry(__string(dev, dev_name(file->minor->dev->dev))
			     __field(u64, client)
			     __field(u64, token)
			     __field(u32, procedure)
			     __field(u64, seqno)
			     __field(u32, nbars)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->client = file->client_id;
			   __entry->token = in->token;
			   __entry->procedure = in->procedure;
			   __entry->seqno = seqno;
			   __entry->nbars = nbars;),
	    TP_printk("dev=%s client=%llu token=0x%llx procedure=%u seqno=%llu nbars=%u",
		      __get_str(dev), __entry->client, __entry->token,
		      __entry->procedure, __entry->seqno, __entry->nbars)
);

TRACE_EVENT(ane_complete,
	    TP_PROTO(const struct device *dev, u64 seqno, int status,
		     u64 exec_ns),
	    TP_ARGS(dev, seqno, status, exec_ns),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u64, seqno)
			     __field(int, status)
			     __field(u64, exec_ns)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->seqno = seqno;
			   __entry->status = status;
			   __entry->exec_ns = exec_ns;),
	    TP_printk("dev=%s seqno=%llu status=%d exec_ns=%llu",
		      __get_str(dev), __entry->seqno, __entry->status,
		      __entry->exec_ns)
);

DECLARE_EVENT_CLASS(ane_dart_mapping_event,
		    TP_PROTO(u32 ctx, u64 iova, u64 size, u32 usage, u8 prot),
		    TP_ARGS(ctx, iova, size, usage, prot),
		    TP_STRUCT__entry(__field(u32, ctx)
				     __field(u64, iova)
				     __field(u64, size)
				     __field(u32, usage)
				     __field(u8, prot)),
		    TP_fast_assign(__entry->ctx = ctx;
				   __entry->iova = iova;
				   __entry->size = size;
				   __entry->usage = usage;
				   __entry->prot = prot;),
		    TP_printk("ctx=%u iova=0x%llx size=%llu usage=%u prot=%u",
			      __entry->ctx, __entry->iova, __entry->size,
			      __entry->usage, __entry->prot)
);

DEFINE_EVENT(ane_dart_mapping_event, ane_map,
	     TP_PROTO(u32 ctx, u64 iova, u64 size, u32 usage, u8 prot),
	     TP_ARGS(ctx, iova, size, usage, prot)
);

DEFINE_EVENT(ane_dart_mapping_event, ane_unmap,
	     TP_PROTO(u32 ctx, u64 iova, u64 size, u32 usage, u8 prot),
	     TP_ARGS(ctx, iova, size, usage, prot)
);

TRACE_EVENT(ane_fw_cmd,
	    TP_PROTO(const struct device *dev, u32 chan, u32 id, u32 seq,
		     u32 size),
	    TP_ARGS(dev, chan, id, seq, size),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u32, chan)
			     __field(u32, id)
			     __field(u32, seq)
			     __field(u32, size)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->chan = chan;
			   __entry->id = id;
			   __entry->seq = seq;
			   __entry->size = size;),
	    TP_printk("dev=%s chan=%u id=0x%x seq=%u size=%u",
		      __get_str(dev), __entry->chan, __entry->id,
		      __entry->seq, __entry->size)
);

TRACE_EVENT(ane_fw_note,
	    TP_PROTO(const struct device *dev, u32 chan, u32 id, u32 size),
	    TP_ARGS(dev, chan, id, size),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u32, chan)
			     __field(u32, id)
			     __field(u32, size)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->chan = chan;
			   __entry->id = id;
			   __entry->size = size;),
	    TP_printk("dev=%s chan=%u id=0x%x size=%u",
		      __get_str(dev), __entry->chan, __entry->id,
		      __entry->size)
);

TRACE_EVENT(ane_dart_fault,
	    TP_PROTO(const struct device *dev, const struct ane_dart_fault *f),
	    TP_ARGS(dev, f),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u32, ctx)
			     __field(u32, sid)
			     __field(u64, iova)
			     __field(u32, code)
			     __string(reason, f->hw_class)
			     __field(bool, write)
			     __field(u64, seq)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->ctx = f->ctx_id;
			   __entry->sid = f->sid;
			   __entry->iova = f->address;
			   __entry->code = f->hw_error;
			   __assign_str(reason);
			   __entry->write = f->is_write;
			   __entry->seq = f->seq;),
	    TP_printk("dev=%s ctx=%u sid=%u iova=0x%llx code=%u reason=%s %s seq=%llu",
		      __get_str(dev), __entry->ctx, __entry->sid,
		      __entry->iova, __entry->code, __get_str(reason),
		      __entry->write ? "write" : "read", __entry->seq)
);

TRACE_EVENT(ane_recovery,
	    TP_PROTO(const struct device *dev, const char *reason, u32 state,
		     u32 recoveries),
	    TP_ARGS(dev, reason, state, recoveries),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __string(reason, reason)
			     __field(u32, state)
			     __field(u32, recoveries)),
	    TP_fast_assign(__assign_str(dev);
			   __assign_str(reason);
			   __entry->state = state;
			   __entry->recoveries = recoveries;),
	    TP_printk("dev=%s reason=%s state=%s recoveries=%u",
		      __get_str(dev), __get_str(reason),
		      ane_trace_fw_state(__entry->state), __entry->recoveries)
);

#endif /* __ANE_TRACE_H__ */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE ane_trace
#include <trace/define_trace.h>
