/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host side's typed messages to the firmware: one function per
 * command the host sends, each filling the header and body itself
 * (Documentation/accel/ane/firmware.rst has the wire format).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_HOST_MSG_H__
#define __ANE_HOST_MSG_H__

#include <linux/types.h>

#include "firmware/spec/ane_fw_abi.h"

struct ane_host;
struct ane_host_hreq;

/* control commands (BUF_H2T) */
int ane_host_msg_ping(struct ane_host *h);
int ane_host_msg_print_enable(struct ane_host *h, bool enable);
int ane_host_msg_start(struct ane_host *h);
int ane_host_msg_endpoint_set(struct ane_host *h, u32 endpoint, u32 type);
int ane_host_msg_pmu_base(struct ane_host *h, u64 base);
int ane_host_msg_time_sync(struct ane_host *h, u64 host_ns);
int ane_host_msg_ch_property_write(struct ane_host *h, bool gated,
				   u64 reg_addr, u32 value);
int ane_host_msg_resource_info_get(struct ane_host *h,
				   struct ane_fw_resource_info *res);
int ane_host_msg_default_settings(struct ane_host *h,
				  u32 ctx_switch_latency_us);
int ane_host_msg_mcache_power_on(struct ane_host *h);
int ane_host_msg_shared_event_init(struct ane_host *h, u32 num_events);
int ane_host_msg_config_get(struct ane_host *h, u64 *page_iova,
			    u64 *page_size);

/* events and a client's raw command (BUF_H2T) */
int ane_host_msg_event_signal(struct ane_host *h, u64 id, u64 value, u32 status);
int ane_host_msg_shared_event_set(struct ane_host *h, u32 num_events);
int ane_host_msg_send_command(struct ane_host *h,
			      const struct ane_fw_cmd_hdr *hdr,
			      const void *body, void *out, u32 *out_len);

/* program lifecycle (BUF_H2T) */
int ane_host_msg_load_program(struct ane_host *h, s32 slot,
			      const struct ane_fw_load_program *lp);
int ane_host_msg_create_process(struct ane_host *h, s32 slot, s32 pid);
int ane_host_msg_terminate_process(struct ane_host *h, s32 slot, s32 pid);
int ane_host_msg_unload_program(struct ane_host *h, s32 slot);

/* the execution loop (IO) */
void ane_host_msg_proc_call_init(struct ane_fw_cmd_hdr *hdr,
				 struct ane_fw_proc_call *call, u32 nbars,
				 const u32 *order, u32 norder,
				 const struct ane_fw_event *waits, u32 nwait,
				 u32 nsignal, u64 signal_value,
				 s32 slot, s32 pid, u32 priority,
				 u32 procedure);
int ane_host_msg_proc_call(struct ane_host *h, struct ane_host_hreq *rq,
			   const struct ane_fw_cmd_hdr *hdr,
			   const struct ane_fw_proc_call *call);
int ane_host_msg_io_ping(struct ane_host *h, bool gated, int *answer);
int ane_host_msg_rpc(struct ane_host *h, u64 payload, u32 len, u32 *sum);

/* data chaining (DATA_CHAIN_H2T; the trigger on IO) */
int ane_host_msg_cr_install(struct ane_host *h, s32 slot, s32 pid,
			    u32 priority, const struct ane_fw_cr_install *in,
			    u64 *handle);
int ane_host_msg_cr_output_set(struct ane_host *h, u32 priority,
			       const struct ane_fw_cr_output_set *os);
int ane_host_msg_cr_invalidate(struct ane_host *h, u32 priority, u64 handle);
int ane_host_msg_cr_group_select(struct ane_host *h, u32 priority,
				 u64 handle, u32 group);
int ane_host_msg_cr_trigger(struct ane_host *h, struct ane_host_hreq *rq,
			    u32 priority, const struct ane_fw_cr_trigger *tr);

#endif /* __ANE_HOST_MSG_H__ */
