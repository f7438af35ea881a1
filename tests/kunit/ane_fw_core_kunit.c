// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the engine-controller firmware.  Header and procedure-call
 * validation at every limit (n and n+1), the execution-loop accepted set
 * and state machine, the scheduler's weights and ordering, the RTOS pools,
 * the data-chaining machines, and the whole firmware booted behind the
 * emulated hardware by the real host side: boot handshake, round trips,
 * deadline abort, crash dump and recovery, crash storm, boot retries,
 * full command rings waited out, recovery from every firmware state, and
 * prepared programs loaded again after a crash.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <drm/ane_accel.h>

#include <linux/regmap.h>

#include "driver/ane_drv.h"
#include "driver/ane_host.h"
#include "firmware/hw/ane_board.h"
#include "firmware/spec/ane_platform.h"
#include "firmware/ane_fw.h"

/* ------------------------------------------------------------ protocol */

static void ane_fw_header_size_is_checked_before_the_body(struct kunit *test)
{
	struct ane_fw_cmd_hdr h = { .id = ANE_CTL_PING, .priority = 2 };

	h.size = 1024 - sizeof(h);
	KUNIT_EXPECT_EQ(test, ane_fw_hdr_check(&h, 1024), ANE_FW_ST_OK);
	h.size++;
	KUNIT_EXPECT_EQ(test, ane_fw_hdr_check(&h, 1024), ANE_FW_ST_INVALID);
	h.size = 0xffffffff;	/* no wrap-around */
	KUNIT_EXPECT_EQ(test, ane_fw_hdr_check(&h, 1024), ANE_FW_ST_INVALID);
	h.size = 0;
	KUNIT_EXPECT_EQ(test, ane_fw_hdr_check(&h, sizeof(h) - 1),
			ANE_FW_ST_INVALID);
	h.priority = 7;
	KUNIT_EXPECT_EQ(test, ane_fw_hdr_check(&h, 1024), ANE_FW_ST_OK);
	h.priority = 8;
	KUNIT_EXPECT_EQ(test, ane_fw_hdr_check(&h, 1024), ANE_FW_ST_INVALID);
}

static void ane_fw_priorities_form_two_classes(struct kunit *test)
{
	u32 p;

	for (p = 0; p < 8; p++) {
		KUNIT_EXPECT_EQ(test, ane_fw_prio_check(p, false), ANE_FW_ST_OK);
		KUNIT_EXPECT_EQ(test, ane_fw_prio_check(p, true),
				p >= 2 ? ANE_FW_ST_OK : ANE_FW_ST_INVALID);
	}
	KUNIT_EXPECT_EQ(test, ane_fw_prio_check(8, false), ANE_FW_ST_INVALID);
	KUNIT_EXPECT_EQ(test, ane_fw_prio_check(8, true), ANE_FW_ST_INVALID);
}

static void ane_fw_exeloop_accepts_exactly_nine_ids(struct kunit *test)
{
	static const u32 ok[] = { 0x204, 0x20c, 0x211, 0x212, 0x209, 0x20a,
				  0x2d, 0x404, 0xff00 };
	u32 id, n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++)
		KUNIT_EXPECT_TRUE(test, ane_fw_exeloop_accepts(ok[i]));
	for (id = 0; id <= 0xffff; id++)
		n += ane_fw_exeloop_accepts(id);
	KUNIT_EXPECT_EQ(test, n, 9);
	KUNIT_EXPECT_FALSE(test, ane_fw_exeloop_accepts(ANE_FW_ID_INVALID));
	KUNIT_EXPECT_FALSE(test, ane_fw_exeloop_accepts(ANE_CMD_INFERENCE_CALL));
}

/* A procedure-call body with room for everything. */
struct pc_buf {
	struct ane_fw_cmd_hdr hdr;
	u8 body[ANE_FW_PROC_CALL_MAX_BODY + 64];
};

static u32 pc_build(struct pc_buf *b, u32 id, u32 bars, u32 wait, u32 sig,
		    u32 order)
{
	struct ane_fw_proc_call *pc = (void *)b->body;
	struct ane_fw_bar *bar = (void *)(pc + 1);
	struct ane_fw_event *ev;
	u32 len, i;

	memset(b, 0, sizeof(*b));
	b->hdr = (struct ane_fw_cmd_hdr){ .id = id, .priority = 4,
					  .program_id = 3, .process_id = 5,
					  .procedure_id = 0 };
	pc->nbr_output_buffer_sets = 1;
	pc->nbr_event_masks = 1;
	pc->nbr_td_partitions = 1;
	pc->task_queue = 7;
	pc->nbr_custom_bars = bars;
	pc->nbr_wait_events = wait;
	pc->nbr_signal_events = sig;
	for (i = 0; i < bars; i++)
		bar[i] = (struct ane_fw_bar){ ANE_CUSTOM_BAR_GENERIC,
					      ANE_CUSTOM_BAR_HW_32BIT, i % 32, 0,
					      0x100000, 0x4000 };
	ev = (void *)(bar + bars);
	for (i = 0; i < wait + sig && i < 2 * ANE_FW_MAX_SIGNAL_EVENTS; i++)
		ev[i] = (struct ane_fw_event){
			.type = i < wait ? ANE_FW_EVENT_WAIT : ANE_FW_EVENT_SIGNAL,
			.target_mask = 1, .id = i, .value = 1 };
	len = sizeof(*pc) + bars * sizeof(*bar) +
	      (wait + sig) * sizeof(struct ane_fw_event);
	if (order) {
		pc->nbr_custom_exec_order = order;
		pc->custom_exec_order_offset = len;
		len += order * 4;
	}
	b->hdr.size = len;
	return len;
}

/* The event records of @pc, after its @bars custom bars. */
static struct ane_fw_event *ev_at(struct ane_fw_proc_call *pc, u32 bars)
{
	return (struct ane_fw_event *)((struct ane_fw_bar *)(pc + 1) + bars);
}

static int pc_check(struct pc_buf *b)
{
	return ane_fw_proc_call_check(b->hdr.id, &b->hdr, b->body, b->hdr.size);
}

static void ane_fw_proc_call_limits_hold_at_n_and_n_plus_1(struct kunit *test)
{
	struct pc_buf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct ane_fw_proc_call *pc = (void *)b->body;

	KUNIT_ASSERT_NOT_NULL(test, b);
	pc_build(b, ANE_CMD_PROCEDURE_CALL, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	b->hdr.size--;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);

	/* custom bars <= 32 */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 32, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 33, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	/* custom execute order 1..128 */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 1, 0, 0, 128);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 1, 0, 0, 129);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 1, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	/* offset below callSize */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 1, 0, 0, 4);
	pc->custom_exec_order_offset -= 4;
	b->hdr.size -= 4;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);

	/* signal events 1..16, wait + signal > 0 */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 0, 0, 16, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 0, 0, 17, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 0, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 0, 3, 0, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 0, 16, 1, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 0, 17, 1, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 0, 0, 1, 0);
	pc->sub_network_custom_exec_order = 1;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	/* 24-byte records: waits then signals, each in the one event mask */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 2, 1, 2, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	b->hdr.size += sizeof(struct ane_fw_event) / 2;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 2, 1, 2, 0);
	((struct ane_fw_event *)((struct ane_fw_bar *)(pc + 1) + 2))[1].type =
		ANE_FW_EVENT_WAIT;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 2, 1, 2, 0);
	((struct ane_fw_event *)((struct ane_fw_bar *)(pc + 1) + 2))[2].target_mask = 2;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 2, 1, 2, 0);
	((struct ane_fw_event *)((struct ane_fw_bar *)(pc + 1) + 2))[0].target_mask = 0;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);

	/*
	 * A wait record names a host slot below ANE_FW_NUM_EVENTS or a
	 * shared event below ANE_FW_MAX_SHARED_EVENTS, and a nonzero value.
	 */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 1, 2, 1, 0);
	ev_at(pc, 1)[1].id = ANE_FW_NUM_EVENTS - 1;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	ev_at(pc, 1)[1].id = ANE_FW_NUM_EVENTS;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	ev_at(pc, 1)[1].id = ANE_FW_EVENT_SHARED(0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	ev_at(pc, 1)[1].id = ANE_FW_EVENT_SHARED(ANE_FW_MAX_SHARED_EVENTS);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	ev_at(pc, 1)[1].id = ~0ull;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	ev_at(pc, 1)[1].id = 7;
	ev_at(pc, 1)[1].value = 0;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	/* a signal record's id and value are the host's: not checked */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_EVENTS, 1, 0, 2, 0);
	ev_at(pc, 1)[1].id = ~0ull;
	ev_at(pc, 1)[1].value = 0;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);

	/* exactly one output set, one event mask, one partition */
	pc_build(b, ANE_CMD_PROCEDURE_CALL, 0, 0, 0, 0);
	pc->nbr_output_buffer_sets = 2;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc->nbr_output_buffer_sets = 0;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL, 0, 0, 0, 0);
	pc->nbr_event_masks = 2;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc_build(b, ANE_CMD_PROCEDURE_CALL, 0, 0, 0, 0);
	pc->nbr_td_partitions = 2;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);

	/* task queue 1..255 */
	pc_build(b, ANE_CMD_PROCEDURE_CALL, 0, 0, 0, 0);
	pc->task_queue = 255;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	pc->task_queue = 256;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	pc->task_queue = 0;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);

	/* programId < 144, procId < 288 */
	pc_build(b, ANE_CMD_PROCEDURE_CALL, 0, 0, 0, 0);
	b->hdr.program_id = 143;
	b->hdr.procedure_id = 287;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	b->hdr.program_id = 144;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	b->hdr.program_id = 143;
	b->hdr.procedure_id = 288;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);

	/* a bar must be a generic 32-bit register below 4 GB */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 1, 0, 0, 1);
	((struct ane_fw_bar *)(pc + 1))->value = BIT_ULL(32);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	/* a plain call carries no bars or events */
	pc_build(b, ANE_CMD_PROCEDURE_CALL, 1, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
}

/*
 * The execute order's end, offset + 4n, was computed in 32 bits: an offset
 * near 4 GiB wrapped it back to the body's length, and the firmware copied
 * the order from 4 GiB past its command buffer.
 */
static void ane_fw_proc_call_exec_order_offset_does_not_wrap(struct kunit *test)
{
	struct pc_buf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct ane_fw_proc_call *pc = (void *)b->body;
	u32 call_size = sizeof(*pc) + sizeof(struct ane_fw_bar);

	KUNIT_ASSERT_NOT_NULL(test, b);
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 1, 0, 0, 128);
	KUNIT_EXPECT_EQ(test, pc->custom_exec_order_offset, call_size);
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	/* a body of just the call and its bar, its 128 entries 4 GiB on */
	b->hdr.size = call_size;
	pc->custom_exec_order_offset = call_size - 128 * 4;
	KUNIT_EXPECT_EQ(test, pc->custom_exec_order_offset,
			(u32)(BIT_ULL(32) + call_size - 128 * 4));
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
	/* the last offset the container admits, and one entry further */
	pc_build(b, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS, 1, 0, 0, 1);
	pc->custom_exec_order_offset = ANE_FW_PROC_CALL_MAX_BODY - 4;
	b->hdr.size = ANE_FW_PROC_CALL_MAX_BODY;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_OK);
	pc->custom_exec_order_offset += 4;
	b->hdr.size += 4;
	KUNIT_EXPECT_EQ(test, pc_check(b), ANE_FW_ST_INVALID);
}

static void ane_fw_back_channel_needs_magic_and_bounded_payload(struct kunit *test)
{
	struct ane_fw_rpc r = { .magic = ANE_FW_RPC_MAGIC,
				.len = ANE_FW_RPC_MAX_PAYLOAD,
				.payload = 0x4000 };

	KUNIT_EXPECT_EQ(test, ane_fw_rpc_check(&r, sizeof(r)), ANE_FW_ST_OK);
	r.len++;
	KUNIT_EXPECT_EQ(test, ane_fw_rpc_check(&r, sizeof(r)),
			ANE_FW_ST_INVALID);
	r.len = 16;
	r.magic = 0x55aa55ab;
	KUNIT_EXPECT_EQ(test, ane_fw_rpc_check(&r, sizeof(r)),
			ANE_FW_ST_INVALID);
}

static void ane_fw_stats_header_is_0x28_with_magic(struct kunit *test)
{
	struct ane_fw_stats_hdr h;
	struct ane_fw_stats_engine e;

	KUNIT_EXPECT_EQ(test, sizeof(h), 0x28);
	KUNIT_EXPECT_EQ(test, sizeof(e), 0x20);
	ane_fw_stats_fill(&h, &e, 0x48, 1234, 7, 2, 99);
	KUNIT_EXPECT_EQ(test, h.magic, 0x0101);
	KUNIT_EXPECT_EQ(test, h.desc_bytes, 0x20);
	KUNIT_EXPECT_EQ(test, h.timing, 1234);
	KUNIT_EXPECT_EQ(test, h.counter, 99);
	KUNIT_EXPECT_EQ(test, offsetof(struct ane_fw_stats_hdr, counter), 0x1c);
	KUNIT_EXPECT_EQ(test, offsetof(struct ane_fw_stats_hdr, desc_bytes),
			0x24);
}

static struct kunit_case ane_fw_proto_cases[] = {
	KUNIT_CASE(ane_fw_header_size_is_checked_before_the_body),
	KUNIT_CASE(ane_fw_priorities_form_two_classes),
	KUNIT_CASE(ane_fw_exeloop_accepts_exactly_nine_ids),
	KUNIT_CASE(ane_fw_proc_call_limits_hold_at_n_and_n_plus_1),
	KUNIT_CASE(ane_fw_proc_call_exec_order_offset_does_not_wrap),
	KUNIT_CASE(ane_fw_back_channel_needs_magic_and_bounded_payload),
	KUNIT_CASE(ane_fw_stats_header_is_0x28_with_magic),
	{}
};

static struct kunit_suite ane_fw_proto_suite = {
	.name = "ane_fw_proto",
	.test_cases = ane_fw_proto_cases,
};

/* ------------------------------------------------------ FSM, scheduler */

static void ane_fw_fsm_follows_table_29_8(struct kunit *test)
{
	struct ane_fw_fsm f = { };
	u32 ev;

	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_DISPATCH), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, ane_fw_fsm_hw_allowed(&f));
	ane_fw_fsm_arm(&f);
	KUNIT_EXPECT_EQ(test, f.state, ANE_FW_FSM_RUN);
	KUNIT_EXPECT_FALSE(test, ane_fw_fsm_hw_allowed(&f));
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_DRAIN), -EPROTO);
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_DISPATCH), 0);
	KUNIT_EXPECT_EQ(test, f.state, ANE_FW_FSM_EXEC);
	KUNIT_EXPECT_TRUE(test, ane_fw_fsm_hw_allowed(&f));
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_DISPATCH), 0);
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_ENTER_SECURE),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_DRAIN), 0);
	KUNIT_EXPECT_EQ(test, f.state, ANE_FW_FSM_EXEC);
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_DRAIN), 0);
	KUNIT_EXPECT_EQ(test, f.state, ANE_FW_FSM_RUN);

	/* the secure switch crosses PAUSE, where every event is fatal */
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_EXIT_SECURE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_ENTER_SECURE), 0);
	KUNIT_EXPECT_EQ(test, f.state, ANE_FW_FSM_PAUSE);
	KUNIT_EXPECT_FALSE(test, ane_fw_fsm_hw_allowed(&f));
	for (ev = ANE_FW_EV_DISPATCH; ev <= ANE_FW_EV_EXIT_SECURE; ev++)
		KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ev), -EPROTO);
	ane_fw_fsm_resume(&f);
	KUNIT_EXPECT_EQ(test, f.state, ANE_FW_FSM_RUN);
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_DISPATCH), 0);
	KUNIT_EXPECT_EQ(test, f.state, ANE_FW_FSM_EXEC_SECURE);
	KUNIT_EXPECT_TRUE(test, ane_fw_fsm_hw_allowed(&f));
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_DRAIN), 0);
	KUNIT_EXPECT_EQ(test, ane_fw_fsm_post(&f, ANE_FW_EV_EXIT_SECURE), 0);
	ane_fw_fsm_resume(&f);
	KUNIT_EXPECT_EQ(test, f.state, ANE_FW_FSM_RUN);
	KUNIT_EXPECT_FALSE(test, f.secure);
}

static void ane_fw_queue_weights_are_the_seeds(struct kunit *test)
{
	static const u32 want[] = { 1, 2, 3, 4, 5, 6, 30, 31 };
	int i;

	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, ane_fw_queue_weights[i], want[i]);
}

static void ane_fw_scheduler_orders_by_priority_and_credit(struct kunit *test)
{
	struct ane_fw_sched *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct ane_fw_req *reqs = kunit_kcalloc(test, 24, sizeof(*reqs),
						GFP_KERNEL);
	u32 order[24], n = 0, i;
	struct ane_fw_req *r;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, reqs);
	ane_fw_sched_init(s, 1);
	/* 2 system (level 0), 6 at level 2, 16 at level 7 */
	for (i = 0; i < 24; i++) {
		reqs[i].hdr.priority = i < 2 ? 0 : i < 8 ? 2 : 7;
		KUNIT_ASSERT_EQ(test, ane_fw_sched_queue(s, &reqs[i]), 0);
	}
	while ((r = ane_fw_sched_pick(s)) && n < 24) {
		KUNIT_EXPECT_NULL(test, ane_fw_sched_pick(s)); /* one in flight */
		order[n++] = r->hdr.priority;
		ane_fw_sched_done(s, r);
	}
	KUNIT_ASSERT_EQ(test, n, 24);
	/* level 0 first, then level 2 up to its credit (3), then level 7 */
	KUNIT_EXPECT_EQ(test, order[0], 0);
	for (i = 1; i <= 3; i++)
		KUNIT_EXPECT_EQ(test, order[i], 2);
	for (i = 4; i < 20; i++)
		KUNIT_EXPECT_EQ(test, order[i], 7);
	/* every waiting level spent its credit: refill, level 0 again */
	KUNIT_EXPECT_EQ(test, order[20], 0);
	for (i = 21; i < 24; i++)
		KUNIT_EXPECT_EQ(test, order[i], 2);
	KUNIT_EXPECT_EQ(test, s->pending, 0);
	KUNIT_EXPECT_EQ(test, s->dispatched[7], 16);
}

static void ane_fw_scheduler_bounds_levels_and_inflight(struct kunit *test)
{
	struct ane_fw_sched *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct ane_fw_req *reqs = kunit_kcalloc(test, 20, sizeof(*reqs),
						GFP_KERNEL);
	struct ane_fw_req *a, *b;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, reqs);
	ane_fw_sched_init(s, 2);
	for (i = 0; i < ANE_FW_LEVEL_DEPTH; i++) {
		reqs[i].hdr.priority = 3;
		KUNIT_EXPECT_EQ(test, ane_fw_sched_queue(s, &reqs[i]), 0);
	}
	reqs[16].hdr.priority = 3;
	KUNIT_EXPECT_EQ(test, ane_fw_sched_queue(s, &reqs[16]), -ENOSPC);
	KUNIT_EXPECT_EQ(test, s->full, 1);
	reqs[17].hdr.priority = 4;
	reqs[18].hdr.priority = 5;
	KUNIT_EXPECT_EQ(test, ane_fw_sched_queue(s, &reqs[17]), 0);
	KUNIT_EXPECT_EQ(test, ane_fw_sched_queue(s, &reqs[18]), 0);
	reqs[19].hdr.priority = 8;
	KUNIT_EXPECT_EQ(test, ane_fw_sched_queue(s, &reqs[19]), -EINVAL);

	a = ane_fw_sched_pick(s);
	b = ane_fw_sched_pick(s);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, a->hw_queue, 3);
	KUNIT_EXPECT_EQ(test, b->hw_queue, 4);	/* level 3's queue is busy */
	KUNIT_EXPECT_NULL(test, ane_fw_sched_pick(s));	/* bound of 2 */
	ane_fw_sched_done(s, a);
	a = ane_fw_sched_pick(s);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, a->hw_queue, 3);
}

static struct kunit_case ane_fw_sched_cases[] = {
	KUNIT_CASE(ane_fw_fsm_follows_table_29_8),
	KUNIT_CASE(ane_fw_queue_weights_are_the_seeds),
	KUNIT_CASE(ane_fw_scheduler_orders_by_priority_and_credit),
	KUNIT_CASE(ane_fw_scheduler_bounds_levels_and_inflight),
	{}
};

static struct kunit_suite ane_fw_sched_suite = {
	.name = "ane_fw_sched",
	.test_cases = ane_fw_sched_cases,
};

/* ------------------------------------------------------- RTOS, chaining */

static u32 rtos_trace[8];
static u32 rtos_ntrace;

static enum ane_fw_result rtos_handler(struct ane_fw *fw, struct ane_fw_task *t,
				       const struct ane_fw_msg *m)
{
	if (m->arg == 99 && !ane_fw_sem_take(fw->debug_space, t))
		return ANE_FW_BLOCK;
	if (rtos_ntrace < ARRAY_SIZE(rtos_trace))
		rtos_trace[rtos_ntrace++] = m->arg;
	return ANE_FW_DONE;
}

static void ane_fw_pools_are_fixed_and_reported(struct kunit *test)
{
	struct ane_fw *fw = vzalloc(sizeof(*fw));
	struct ane_fw_msg m = { .type = ANE_FW_MSG_TEST };
	u32 total, avail, i;

	KUNIT_ASSERT_NOT_NULL(test, fw);
	ane_fw_rtos_init(fw);
	for (i = 0; i < ANE_FW_NUM_TASKS; i++)
		KUNIT_EXPECT_NOT_NULL(test, ane_fw_task_create(fw, i, "t", i,
							       rtos_handler));
	KUNIT_EXPECT_NULL(test, ane_fw_task_create(fw, 0, "again", 0,
						   rtos_handler));
	ane_fw_pool_count(fw, ANE_FW_POOL_TASK, &total, &avail);
	KUNIT_EXPECT_EQ(test, total, ANE_FW_NUM_TASKS);
	KUNIT_EXPECT_EQ(test, avail, 0);
	ane_fw_pool_count(fw, ANE_FW_POOL_QUEUE, &total, &avail);
	KUNIT_EXPECT_EQ(test, total, 2 * ANE_FW_NUM_TASKS);
	KUNIT_EXPECT_EQ(test, avail, 0);

	for (i = 0; i < ANE_FW_NUM_TIMERS; i++)
		KUNIT_EXPECT_GE(test, ane_fw_timer_alloc(fw, &fw->tasks[0]), 0);
	KUNIT_EXPECT_EQ(test, ane_fw_timer_alloc(fw, &fw->tasks[0]), -ENOSPC);
	ane_fw_pool_count(fw, ANE_FW_POOL_TIMER, &total, &avail);
	KUNIT_EXPECT_EQ(test, avail, 0);
	for (i = 0; i < ANE_FW_NUM_REQS; i++)
		KUNIT_EXPECT_NOT_NULL(test, ane_fw_req_alloc(fw));
	KUNIT_EXPECT_NULL(test, ane_fw_req_alloc(fw));
	ane_fw_req_free(fw, &fw->reqs[5]);
	ane_fw_pool_count(fw, ANE_FW_POOL_REQ, &total, &avail);
	KUNIT_EXPECT_EQ(test, total, ANE_FW_NUM_REQS);
	KUNIT_EXPECT_EQ(test, avail, 1);
	for (i = 0; i < ANE_FW_NUM_SEMS; i++)
		KUNIT_EXPECT_NOT_NULL(test, ane_fw_sem_create(fw, "s", 0));
	KUNIT_EXPECT_NULL(test, ane_fw_sem_create(fw, "s", 0));

	/* bounded queue: full is reported, nothing dropped */
	for (i = 0; i < ANE_FW_QUEUE_DEPTH; i++) {
		m.arg = i;
		KUNIT_EXPECT_EQ(test, ane_fw_post(fw->tasks[3].q, &m), 0);
	}
	KUNIT_EXPECT_EQ(test, ane_fw_post(fw->tasks[3].q, &m), -ENOSPC);
	KUNIT_EXPECT_EQ(test, fw->tasks[3].q->full, 1);
	KUNIT_EXPECT_EQ(test, fw->tasks[3].q->count, ANE_FW_QUEUE_DEPTH);
	vfree(fw);
}

static void ane_fw_tasks_run_messages_by_priority(struct kunit *test)
{
	struct ane_fw *fw = vzalloc(sizeof(*fw));

	KUNIT_ASSERT_NOT_NULL(test, fw);
	ane_fw_rtos_init(fw);
	rtos_ntrace = 0;
	ane_fw_task_create(fw, 0, "low", 20, rtos_handler);
	ane_fw_task_create(fw, 1, "high", 2, rtos_handler);
	fw->debug_space = ane_fw_sem_create(fw, "sem", 0);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].state, ANE_FW_TASK_WAITING);
	ane_fw_post_task(fw, 0, ANE_FW_MSG_TEST, 1, 0);
	ane_fw_post_task(fw, 1, ANE_FW_MSG_TEST, 2, 0);
	ane_fw_post_irq(fw, 1, ANE_FW_MSG_TEST, 3, 0);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].state, ANE_FW_TASK_RUNNABLE);
	while (ane_fw_run_one(fw))
		;
	KUNIT_EXPECT_EQ(test, rtos_ntrace, 3);
	KUNIT_EXPECT_EQ(test, rtos_trace[0], 3);	/* irq queue first */
	KUNIT_EXPECT_EQ(test, rtos_trace[1], 2);
	KUNIT_EXPECT_EQ(test, rtos_trace[2], 1);
	KUNIT_EXPECT_EQ(test, fw->tasks[1].state, ANE_FW_TASK_WAITING);

	/* a semaphore wait keeps the message and parks the task */
	ane_fw_post_task(fw, 1, ANE_FW_MSG_TEST, 99, 0);
	KUNIT_EXPECT_TRUE(test, ane_fw_run_one(fw));
	KUNIT_EXPECT_EQ(test, fw->tasks[1].state, ANE_FW_TASK_SEMWAIT);
	KUNIT_EXPECT_FALSE(test, ane_fw_run_one(fw));
	ane_fw_sem_give(fw->debug_space);
	KUNIT_EXPECT_EQ(test, fw->tasks[1].state, ANE_FW_TASK_RUNNABLE);
	KUNIT_EXPECT_TRUE(test, ane_fw_run_one(fw));
	KUNIT_EXPECT_EQ(test, rtos_trace[3], 99);
	KUNIT_EXPECT_STREQ(test, ane_fw_task_state_name(ANE_FW_TASK_BLOCKED),
			   "BLOCKED");
	vfree(fw);
}

/*
 * A ring-like handler: each message (arg 7) takes one item and re-posts
 * itself while items remain; while "blocked" it parks the task instead.
 * An interrupt message (arg 8) frees what it was blocked on.
 */
static u32 rtos_items;
static bool rtos_pool_full;

static enum ane_fw_result rtos_ring_handler(struct ane_fw *fw, struct ane_fw_task *t,
					    const struct ane_fw_msg *m)
{
	if (m->arg == 8) {
		rtos_pool_full = false;
		if (t->state == ANE_FW_TASK_BLOCKED)
			t->state = ANE_FW_TASK_RUNNABLE;
		return ANE_FW_DONE;
	}
	if (rtos_pool_full) {
		t->state = ANE_FW_TASK_BLOCKED;
		t->blocked_on = "request pool";
		return ANE_FW_BLOCK;
	}
	if (rtos_items && --rtos_items)
		ane_fw_post_again(fw, t - fw->tasks, ANE_FW_MSG_TEST, 7);
	return ANE_FW_DONE;
}

static void ane_fw_a_task_reposting_itself_drains_its_work(struct kunit *test)
{
	struct ane_fw *fw = vzalloc(sizeof(*fw));

	KUNIT_ASSERT_NOT_NULL(test, fw);
	ane_fw_rtos_init(fw);
	ane_fw_task_create(fw, 0, "ring", 2, rtos_ring_handler);
	rtos_items = 5;
	rtos_pool_full = false;
	/* From the task queue: its own message must not count as queued. */
	ane_fw_post_task(fw, 0, ANE_FW_MSG_TEST, 7, 0);
	while (ane_fw_run_one(fw))
		;
	KUNIT_EXPECT_EQ(test, rtos_items, 0);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].q->count, 0);
	/* ane_fw_post_once() still coalesces a second identical message. */
	ane_fw_post_task(fw, 0, ANE_FW_MSG_TEST, 7, 0);
	KUNIT_EXPECT_EQ(test, ane_fw_post_once(fw, 0, false, ANE_FW_MSG_TEST, 7), 0);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].q->count, 1);
	vfree(fw);
}

static void ane_fw_a_blocked_task_still_serves_interrupts(struct kunit *test)
{
	struct ane_fw *fw = vzalloc(sizeof(*fw));

	KUNIT_ASSERT_NOT_NULL(test, fw);
	ane_fw_rtos_init(fw);
	ane_fw_task_create(fw, 0, "ring", 2, rtos_ring_handler);
	rtos_items = 3;
	rtos_pool_full = true;
	ane_fw_post_task(fw, 0, ANE_FW_MSG_TEST, 7, 0);
	KUNIT_EXPECT_TRUE(test, ane_fw_run_one(fw));
	KUNIT_EXPECT_EQ(test, fw->tasks[0].state, ANE_FW_TASK_BLOCKED);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].q->count, 1);	/* kept at the head */
	/* Nothing runs while blocked, but an interrupt does. */
	KUNIT_EXPECT_FALSE(test, ane_fw_run_one(fw));
	ane_fw_post_irq(fw, 0, ANE_FW_MSG_TEST, 8, 0);
	KUNIT_EXPECT_TRUE(test, ane_fw_run_one(fw));
	KUNIT_EXPECT_EQ(test, fw->tasks[0].state, ANE_FW_TASK_RUNNABLE);
	while (ane_fw_run_one(fw))
		;
	KUNIT_EXPECT_EQ(test, rtos_items, 0);
	vfree(fw);
}

/*
 * An interrupt message whose handler blocks the task (the server finding
 * no room for its replies when a doorbell comes) waits in the task queue:
 * the loop does not run it again and again, spinning.
 */
static void ane_fw_an_interrupt_that_blocks_waits_with_the_task(struct kunit *test)
{
	struct ane_fw *fw = vzalloc(sizeof(*fw));
	int spins = 0;

	KUNIT_ASSERT_NOT_NULL(test, fw);
	ane_fw_rtos_init(fw);
	ane_fw_task_create(fw, 0, "ring", 2, rtos_ring_handler);
	rtos_items = 1;
	rtos_pool_full = true;
	ane_fw_post_irq(fw, 0, ANE_FW_MSG_TEST, 7, 0);
	while (ane_fw_run_one(fw) && spins < 100)
		spins++;
	KUNIT_EXPECT_EQ(test, spins, 1);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].state, ANE_FW_TASK_BLOCKED);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].irq_q->count, 0);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].q->count, 1);
	/* a second doorbell coalesces with the one waiting */
	ane_fw_post_irq(fw, 0, ANE_FW_MSG_TEST, 7, 0);
	KUNIT_EXPECT_TRUE(test, ane_fw_run_one(fw));
	KUNIT_EXPECT_FALSE(test, ane_fw_run_one(fw));
	KUNIT_EXPECT_EQ(test, fw->tasks[0].q->count, 1);
	/* unblocked, the work runs */
	ane_fw_post_irq(fw, 0, ANE_FW_MSG_TEST, 8, 0);
	while (ane_fw_run_one(fw))
		;
	KUNIT_EXPECT_EQ(test, rtos_items, 0);
	KUNIT_EXPECT_EQ(test, fw->tasks[0].q->count, 0);
	vfree(fw);
}

static void ane_fw_chaining_machines(struct kunit *test)
{
	struct ane_fw *fw = vzalloc(sizeof(*fw));
	struct ane_fw_cmd_hdr hdr = { .priority = 3, .program_id = 4,
				      .process_id = 9 };
	struct ane_fw_cr_install in = { .procedure = 1, .nbr_output_sets = 1,
					.nbr_input_buffers = 16 };
	struct ane_fw_cr_trigger *tr = kunit_kzalloc(test, sizeof(*tr),
						     GFP_KERNEL);
	struct ane_fw_cr_recycle rc = { .buffer = { ANE_FW_BUF_OUTPUT, 0,
						    0x10000, 0x4000 } };
	struct ane_fw_cr_group_select gs = { };
	struct ane_fw_cr_output_set os = { .nbr_buffers = 1, .sid = 1,
		.buffers[0] = { ANE_FW_BUF_OUTPUT, 0, 0x20000, 0x4000 } };
	u64 handle, h2;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fw);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(fw, &hdr, &in, &handle),
			ANE_FW_ST_NOENT);
	fw->programs[4] = (struct ane_fw_program){ .valid = true, .proc_nbr = 2 };
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(fw, &hdr, &in, &handle),
			ANE_FW_ST_NOT_RUNNING);
	fw->processes[9] = (struct ane_fw_process){ ANE_FW_PROC_RUNNING, 4 };
	hdr.priority = 1;	/* chains run in the normal band only */
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(fw, &hdr, &in, &handle),
			ANE_FW_ST_INVALID);
	hdr.priority = 3;
	KUNIT_ASSERT_EQ(test, ane_fw_cr_install(fw, &hdr, &in, &handle),
			ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_lookup(fw, handle), 0);

	tr->cache_handler = handle;
	tr->exec_timestamp = 5;
	tr->nbr_input_buffers = 16;
	for (i = 0; i < 16; i++)
		tr->inputs[i] = (struct ane_fw_buf_desc){ ANE_FW_BUF_INPUT, 0,
							  0x4000, 0x4000 };
	/* no output set enqueued yet (ABI 1.2) */
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_NOT_READY);
	os.cache_handler = handle;
	KUNIT_ASSERT_EQ(test, ane_fw_cr_output_set(fw, &os, sizeof(os)),
			ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_OK);
	/* the output set is in execution: a second trigger must wait */
	tr->exec_timestamp = 6;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_BUSY);
	rc.cache_handler = handle;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_recycle(fw, &rc), ANE_FW_ST_WRONG_STATE);
	ane_fw_cr_done(fw, handle, 0);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_recycle(fw, &rc), ANE_FW_ST_OK);
	/* execTimestamp strictly increasing */
	tr->exec_timestamp = 5;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_INVALID);
	tr->nbr_input_buffers = 17;
	tr->exec_timestamp = 6;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_INVALID);
	tr->nbr_input_buffers = 16;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_NOT_READY);
	KUNIT_ASSERT_EQ(test, ane_fw_cr_output_set(fw, &os, sizeof(os)),
			ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_OK);

	/* group select, then invalidate while a run is in flight */
	gs.cache_handler = handle;
	gs.group = 1;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_group_select(fw, &gs), ANE_FW_ST_INVALID);
	gs.group = 0;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_group_select(fw, &gs), ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_invalidate(fw, handle), ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, fw->cr[0].state, ANE_FW_CR_INVALIDATING);
	tr->exec_timestamp = 7;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_WRONG_STATE);
	ane_fw_cr_done(fw, handle, 0);
	KUNIT_EXPECT_EQ(test, fw->cr[0].state, ANE_FW_CR_AVAILABLE);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(fw, &hdr, tr, sizeof(*tr)),
			ANE_FW_ST_NOENT);

	/* the index pool: maxCacheRequest handles, then busy */
	for (i = 0; i < ANE_FW_MAX_CACHE_REQUESTS; i++)
		KUNIT_EXPECT_EQ(test, ane_fw_cr_install(fw, &hdr, &in, &h2),
				ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(fw, &hdr, &in, &h2),
			ANE_FW_ST_BUSY);
	KUNIT_EXPECT_NE(test, h2, handle);	/* stale handles stay stale */
	KUNIT_EXPECT_EQ(test, ane_fw_cr_lookup(fw, handle), -ENOENT);
	vfree(fw);
}

static struct kunit_case ane_fw_rtos_cases[] = {
	KUNIT_CASE(ane_fw_pools_are_fixed_and_reported),
	KUNIT_CASE(ane_fw_tasks_run_messages_by_priority),
	KUNIT_CASE(ane_fw_a_task_reposting_itself_drains_its_work),
	KUNIT_CASE(ane_fw_a_blocked_task_still_serves_interrupts),
	KUNIT_CASE(ane_fw_an_interrupt_that_blocks_waits_with_the_task),
	KUNIT_CASE(ane_fw_chaining_machines),
	{}
};

static struct kunit_suite ane_fw_rtos_suite = {
	.name = "ane_fw_rtos",
	.test_cases = ane_fw_rtos_cases,
};

/* --------------------------------------------- the firmware, end to end */

#define T_SHARED_IOVA	0x100000ull
#define T_MEM_SIZE	(1024 * 1024)

struct fw_env {
	struct ane_host *h;
	struct ane_board *board;
	struct regmap *regs[ANE_NUM_BANKS];
	void *mem;
	atomic_t state;
};

/* A register of the engine's bank, as the driver reads it. */
static u32 fw_rd(struct fw_env *e, u32 off)
{
	unsigned int v = 0;

	regmap_read(e->regs[ANE_BANK_ANE], off, &v);
	return v;
}

static void fw_wr(struct fw_env *e, u32 off, u32 val)
{
	regmap_write(e->regs[ANE_BANK_ANE], off, val);
}

static int fw_env_init(struct kunit *test)
{
	struct fw_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	struct device *dev;
	int ret;

	if (!e)
		return -ENOMEM;
	dev = kunit_device_register(test, "ane-fw-kunit");
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	e->mem = vzalloc(T_MEM_SIZE);
	e->h = kzalloc(sizeof(*e->h), GFP_KERNEL);
	if (!e->mem || !e->h)
		return -ENOMEM;
	e->h->shared_va = e->mem;
	e->h->shared_iova = T_SHARED_IOVA;
	e->h->shared_size = ANE_HOST_SHARED_SIZE;
	e->h->heap_iova = T_SHARED_IOVA + ANE_HOST_SHARED_SIZE;
	e->h->heap_size = ANE_HOST_HEAP_SIZE;
	test->priv = e;
	e->board = ane_board_kunit_create(dev, false);
	if (IS_ERR(e->board))
		return PTR_ERR(e->board);
	ane_board_kunit_set_test_mem(e->board, e->mem, T_SHARED_IOVA, T_MEM_SIZE);
	ret = ane_regmaps_init(dev, ane_board_kunit_pdata(e->board), e->regs);
	if (ret)
		return ret;
	return ane_host_setup(e->h, dev, e->regs,
				 ane_board_kunit_pdata(e->board)->boot_addr,
				 ane_board_kunit_irq(e->board, ANE_IRQ_HOST),
				 &e->state);
}

static void fw_env_exit(struct kunit *test)
{
	struct fw_env *e = test->priv;

	if (!e)
		return;
	if (e->h && e->h->regs[ANE_BANK_ANE])
		ane_host_teardown(e->h);
	ane_regmaps_exit(e->regs);
	ane_board_kunit_destroy(e->board);
	kfree(e->h);
	vfree(e->mem);
}

static int fw_boot(struct fw_env *e, bool warm)
{
	int ret;

	down_write(&e->h->gate);
	ret = ane_host_boot(e->h, warm);
	up_write(&e->h->gate);
	return ret;
}

static bool fw_wait_state(struct fw_env *e, int state, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (atomic_read(&e->state) != state) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(5000, 10000);
	}
	return true;
}

static u32 fw_restarts(struct fw_env *e)
{
	return fw_rd(e, ANE_REG_SCRATCH(ANE_FW_SCR_RESTARTS));
}

static void ane_fw_boots_through_three_handshakes(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_fw_stats_sizes sz = { };
	int i;

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_READY);
	KUNIT_EXPECT_EQ(test, fw_rd(e, ANE_REG_SCRATCH(ANE_FW_SCR_ACK)),
			ANE_FW_MAGIC1);
	for (i = 0; i < ANE_FW_NUM_CHANNELS; i++)
		KUNIT_EXPECT_EQ(test, e->h->ring[i].ok,
				i != ANE_FW_CH_SHAREDMALLOC);
	KUNIT_EXPECT_EQ(test, e->h->res.num_engines, 1);
	KUNIT_EXPECT_EQ(test, e->h->res.max_procedures, ANE_FW_MAX_PROCEDURES);
	KUNIT_EXPECT_EQ(test, e->h->res.max_cache_requests,
			ANE_FW_MAX_CACHE_REQUESTS);
	for (i = 0; i < 50; i++)
		KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
	KUNIT_EXPECT_EQ(test, ane_host_call(e->h, ANE_FW_CH_BUF_H2T,
					    ANE_CTL_STATS_BUFFER_SIZE_GET,
					    NULL, 0, &sz, sizeof(sz), 2000),
			0);
	KUNIT_EXPECT_EQ(test, sz.hdr, 0x28);
	KUNIT_EXPECT_EQ(test, sz.ev_desc, 0x14);
	KUNIT_EXPECT_EQ(test, sz.dbg, 0x10);
	KUNIT_EXPECT_EQ(test, sz.per_engine, 0x20);
	/* an unknown control id is refused, the firmware lives on */
	KUNIT_EXPECT_EQ(test, ane_host_call(e->h, ANE_FW_CH_BUF_H2T, 0x5c,
					    NULL, 0, NULL, 0, 2000),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
}

static void ane_fw_refuses_a_heap_below_twice_the_reservation(struct kunit *test)
{
	struct fw_env *e = test->priv;

	e->h->heap_size = 2 * 64 * 1024;
	KUNIT_EXPECT_LT(test, fw_boot(e, false), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_DEAD);
	KUNIT_EXPECT_EQ(test, fw_rd(e, ANE_REG_SCRATCH(ANE_FW_SCR_ERROR)),
			ANE_FW_BOOT_E_HEAP);
	e->h->heap_size = 2 * 64 * 1024 + 16 * 1024;
	KUNIT_EXPECT_EQ(test, fw_boot(e, false), 0);
}

static void ane_fw_retries_a_missing_second_wake(struct kunit *test)
{
	struct fw_env *e = test->priv;

	e->h->stall_boots = 1;
	KUNIT_EXPECT_EQ(test, fw_boot(e, false), 0);
	KUNIT_EXPECT_EQ(test, e->h->boot_failures, 1);
	e->h->stall_boots = ANE_HOST_BOOT_RETRIES;
	KUNIT_EXPECT_EQ(test, fw_boot(e, false), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, e->h->boot_failures, 1 + ANE_HOST_BOOT_RETRIES);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_DEAD);
}

/* Send a procedure call on IO; returns the completion's errno. */
static int fw_proc_call(struct fw_env *e, u32 prio, s32 prog, s32 proc,
			u64 stats, struct ane_host_hreq *rq, bool wait)
{
	struct {
		struct ane_fw_proc_call pc;
	} body = { .pc = { .nbr_output_buffer_sets = 1, .nbr_event_masks = 1,
			   .nbr_td_partitions = 1, .task_queue = 3,
			   .stats_buffer = stats, .stats_size = stats ? 0x48 : 0 } };
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CMD_PROCEDURE_CALL,
				      .size = sizeof(body), .priority = prio,
				      .program_id = prog, .process_id = proc };
	int ret;

	ret = ane_host_send(e->h, rq, ANE_FW_CH_IO, &hdr, &body);
	if (ret || !wait)
		return ret;
	if (!wait_for_completion_timeout(&rq->done, msecs_to_jiffies(10000)))
		return -ETIME;
	return rq->status;
}

static void fw_load(struct kunit *test, struct fw_env *e, s32 prog, s32 proc)
{
	struct ane_fw_load_program lp = { .proc_nbr = 2 };
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CTL_LOAD_PROGRAM,
				      .size = sizeof(lp), .program_id = prog,
				      .process_id = -1 };
	struct ane_host_hreq rq = { };

	KUNIT_ASSERT_EQ(test, ane_host_send(e->h, &rq, ANE_FW_CH_BUF_H2T,
					    &hdr, &lp), 0);
	wait_for_completion(&rq.done);
	KUNIT_ASSERT_EQ(test, rq.status, 0);
	hdr = (struct ane_fw_cmd_hdr){ .id = ANE_CTL_CREATE_PROCESS,
				       .program_id = prog, .process_id = proc };
	KUNIT_ASSERT_EQ(test, ane_host_send(e->h, &rq, ANE_FW_CH_BUF_H2T,
					    &hdr, NULL), 0);
	wait_for_completion(&rq.done);
	KUNIT_ASSERT_EQ(test, rq.status, 0);
}

static void ane_fw_runs_calls_and_writes_stats(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_fw_stats_hdr *st;
	struct ane_host_hreq rq = { };

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	fw_load(test, e, 10, 20);
	st = (void *)((u8 *)e->mem + ANE_HOST_SHARED_SIZE + 0x8000);
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 4, 10, 20, T_SHARED_IOVA +
					   ANE_HOST_SHARED_SIZE + 0x8000,
					   &rq, true), 0);
	KUNIT_EXPECT_EQ(test, st->magic, ANE_FW_STATS_MAGIC);
	KUNIT_EXPECT_EQ(test, st->desc_bytes, 0x20);
	/* a call to a process not running is dropped, not run */
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 4, 10, 21, 0, &rq, true), -ESRCH);
	/* a program that is not loaded */
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 4, 11, 20, 0, &rq, true), -ENOENT);
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 4, 10, 20, 0, &rq, true), 0);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
}

/*
 * With the host's interrupts masked the IO_T2H ring (128 slots) fills: the
 * firmware parks the rest in its outbox and asks for CONSUMED through the
 * ring header; unmasked, the host drains, rings, and every completion
 * arrives.  Ordinary traffic never sets the flag.
 */
static void ane_fw_a_full_ring_asks_for_consumed(struct kunit *test)
{
	const u32 n = 140;
	struct fw_env *e = test->priv;
	struct ane_fw_ring_hdr *t2h;
	struct ane_host_hreq *rq;
	unsigned long end;
	u32 i;
	int ret;

	rq = kunit_kcalloc(test, n, sizeof(*rq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rq);
	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	fw_load(test, e, 3, 3);
	t2h = e->h->ring[ANE_FW_CH_IO_T2H].hdr;
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 4, 3, 3, 0, &rq[0], true), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t2h->space_wanted), 0);

	fw_wr(e, ANE_REG_HOST_IRQ_MASK, 0);
	for (i = 0; i < n; i++) {
		end = jiffies + msecs_to_jiffies(5000);
		while ((ret = fw_proc_call(e, 4, 3, 3, 0, &rq[i], false)) == -EBUSY &&
		       time_before(jiffies, end))
			usleep_range(1000, 2000);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	end = jiffies + msecs_to_jiffies(5000);
	while (!READ_ONCE(t2h->space_wanted) && time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t2h->space_wanted), 1);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_FALSE(test, completion_done(&rq[i].done));

	fw_wr(e, ANE_REG_HOST_IRQ_MASK, ~0u);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&rq[i].done,
								    msecs_to_jiffies(5000)));
		KUNIT_EXPECT_EQ(test, rq[i].status, 0);
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(t2h->space_wanted), 0);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_READY);
}

static void ane_fw_aborts_a_queue_past_the_deadline(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_host_hreq stuck = { }, ok = { };
	unsigned long t0;

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	fw_load(test, e, 1, 1);
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "deadline", 300), 0);
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "hang", 2), 0);
	t0 = jiffies;
	KUNIT_ASSERT_EQ(test, fw_proc_call(e, 2, 1, 1, 0, &stuck, false), 0);
	/* another queue carries on meanwhile */
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 5, 1, 1, 0, &ok, true), 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&stuck.done));
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&stuck.done,
							    msecs_to_jiffies(5000)));
	KUNIT_EXPECT_EQ(test, stuck.status, -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t0), 250);
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "unhang", 0), 0);
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 2, 1, 1, 0, &ok, true), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_READY);
}

static void ane_fw_crash_dumps_and_recovers(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_host_hreq stuck = { };

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	fw_load(test, e, 1, 1);
	/* something in flight when it dies */
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "hang", 3), 0);
	KUNIT_ASSERT_EQ(test, fw_proc_call(e, 3, 1, 1, 0, &stuck, false), 0);
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&stuck.done,
							    msecs_to_jiffies(5000)));
	KUNIT_EXPECT_EQ(test, stuck.status, -EIO);
	KUNIT_EXPECT_EQ(test, stuck.fw_status, ANE_FW_ST_RESET);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 5000));
	ane_host_inject(e->h, "unhang", 0);
	KUNIT_EXPECT_EQ(test, e->h->recoveries, 1);
	KUNIT_EXPECT_EQ(test, fw_restarts(e), 1);	/* survives the reboot */
	KUNIT_ASSERT_NOT_NULL(test, e->h->dump_text);
	KUNIT_EXPECT_NOT_NULL(test, strstr(e->h->dump_text, "synchronous abort"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(e->h->dump_text,
					   "not supported through ExeLoop"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(e->h->dump_text, "restart count: 1"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(e->h->dump_text,
					   "recent commands (newest first)"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(e->h->dump_text, "task: exeloop"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(e->h->dump_text, "end of dump"));
	/* the device works afterwards */
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
	/* the reboot forgot the program */
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 4, 1, 1, 0, &stuck, true), -ENOENT);
}

/*
 * More crashes than the rate limit allows: the recovery is deferred, by a
 * backoff that doubles with each crash of the storm, never given up;
 * reboot starts afresh.
 */
static void ane_fw_crash_storm_backs_off_and_recovers(struct kunit *test)
{
	struct fw_env *e = test->priv;
	unsigned long t0;
	int i;

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	for (i = 0; i < ANE_HOST_REC_MAX; i++) {
		KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
		KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY,
						      5000));
	}
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	msleep(200);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_RECOVERING);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), -EAGAIN);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 10000));
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t0),
			ANE_HOST_BACKOFF_MIN_MS - 100);
	KUNIT_EXPECT_EQ(test, e->h->backoff_ms, ANE_HOST_BACKOFF_MIN_MS);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
	/* the storm goes on: twice as long */
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 10000));
	KUNIT_EXPECT_EQ(test, e->h->backoff_ms, 2 * ANE_HOST_BACKOFF_MIN_MS);
	KUNIT_EXPECT_EQ(test, fw_restarts(e), ANE_HOST_REC_MAX + 2);
	/* an explicit reboot starts afresh */
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "reboot", 0), 0);
	KUNIT_EXPECT_EQ(test, e->h->backoff_ms, 0);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 5000));
	KUNIT_EXPECT_EQ(test, e->h->backoff_ms, 0);
}

struct unmask_work {
	struct delayed_work dw;
	struct ane_host *h;
};

static void unmask_fn(struct work_struct *w)
{
	struct unmask_work *u = container_of(to_delayed_work(w),
					     struct unmask_work, dw);

	regmap_write(u->h->regs[ANE_BANK_ANE], ANE_REG_HOST_IRQ_MASK, ~0u);
}

/*
 * The host does not drain its interrupts for a while: the firmware's
 * replies fill BUF_T2H and its outbox, its server stops, BUF_H2T fills.
 * Senders wait for room (flagging the ring) instead of failing with
 * -EBUSY; once the host drains, the firmware consumes, clears the flag
 * and every command is answered.
 */
static void ane_fw_a_full_command_ring_is_waited_out(struct kunit *test)
{
	const u32 n = 250;
	struct fw_env *e = test->priv;
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CTL_PING, .size = 4,
				      .program_id = -1, .process_id = -1 };
	struct unmask_work u = { .h = e->h };
	struct ane_host_hreq *rq;
	u32 v = 0x50494e47, i;

	rq = kunit_kcalloc(test, n, sizeof(*rq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rq);
	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	INIT_DELAYED_WORK_ONSTACK(&u.dw, unmask_fn);
	fw_wr(e, ANE_REG_HOST_IRQ_MASK, 0);
	schedule_delayed_work(&u.dw, msecs_to_jiffies(500));
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, ane_host_send(e->h, &rq[i],
						    ANE_FW_CH_BUF_H2T, &hdr,
						    &v), 0);
	flush_delayed_work(&u.dw);
	destroy_delayed_work_on_stack(&u.dw);
	KUNIT_EXPECT_GT(test, e->h->ring_waits, 0);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&rq[i].done,
								    msecs_to_jiffies(5000)));
		KUNIT_EXPECT_EQ(test, rq[i].status, 0);
	}
	/* the firmware cleared the host's request when it made room */
	KUNIT_EXPECT_EQ(test,
			READ_ONCE(e->h->ring[ANE_FW_CH_BUF_H2T].hdr->space_wanted),
			0);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
}

static const struct ane_fw_load_program t_lp = { .proc_nbr = 2 };

/* A call to resident @r on @q's priority; its completion's errno. */
static int fw_res_call(struct fw_env *e, const struct ane_host_resident *r,
		       u32 prio, struct ane_host_hreq *rq, bool wait)
{
	return fw_proc_call(e, prio, r->slot, r->pid, 0, rq, wait);
}

static void fw_hang_all(struct kunit *test, struct fw_env *e, bool stuck)
{
	u32 q;

	for (q = 0; q < ANE_NUM_HW_QUEUES; q++) {
		KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "hang", q), 0);
		if (stuck)
			KUNIT_ASSERT_EQ(test, ane_host_inject(e->h,
							      "abort-stuck",
							      q), 0);
	}
}

/*
 * Programs loaded through the host survive a crash: the boot loads them
 * again into their own slot and process, and the call after the crash
 * runs.  Slots and processes are given back at unload, all of them.
 */
static void ane_fw_programs_survive_a_crash(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_host_resident *r;
	struct ane_host_hreq rq = { };
	s32 slot, pid;
	int i;

	r = kunit_kcalloc(test, ANE_FW_MAX_PROGRAMS + 1, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r[0], &t_lp), 0);
	KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r[1], &t_lp), 0);
	KUNIT_EXPECT_NE(test, r[0].slot, r[1].slot);
	KUNIT_EXPECT_NE(test, r[0].pid, r[1].pid);
	KUNIT_EXPECT_EQ(test, fw_res_call(e, &r[0], 4, &rq, true), 0);
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 5000));
	KUNIT_EXPECT_EQ(test, e->h->reloads, 2);
	KUNIT_EXPECT_EQ(test, fw_res_call(e, &r[0], 4, &rq, true), 0);
	KUNIT_EXPECT_EQ(test, fw_res_call(e, &r[1], 4, &rq, true), 0);
	/* unloaded: the firmware forgot it */
	slot = r[1].slot;
	pid = r[1].pid;
	ane_host_unload(e->h, &r[1]);
	KUNIT_EXPECT_EQ(test, r[1].slot, -1);
	KUNIT_EXPECT_EQ(test, fw_proc_call(e, 4, slot, pid, 0, &rq, true),
			-ENOENT);
	ane_host_unload(e->h, &r[0]);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(e->h->slots, ANE_FW_MAX_PROGRAMS));
	KUNIT_EXPECT_TRUE(test, bitmap_empty(e->h->pids, ANE_FW_MAX_PROCESSES));

	/* every slot, then one too many; all of them again after unload */
	for (i = 0; i < ANE_FW_MAX_PROGRAMS; i++)
		KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r[i], &t_lp), 0);
	KUNIT_EXPECT_EQ(test, ane_host_load(e->h, &r[i], &t_lp), -EBUSY);
	for (i = 0; i < ANE_FW_MAX_PROGRAMS; i++)
		ane_host_unload(e->h, &r[i]);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(e->h->slots, ANE_FW_MAX_PROGRAMS));
	for (i = 0; i < ANE_FW_MAX_PROGRAMS; i++)
		KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r[i], &t_lp), 0);
	for (i = 0; i < ANE_FW_MAX_PROGRAMS; i++)
		ane_host_unload(e->h, &r[i]);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
}

/*
 * TERMINATE_PROCESS for 64 processes at once: the server, of higher
 * priority than the terminator it hands them to, waits for room in the
 * terminator's queue instead of losing the ones that do not fit; every
 * one is answered, and every slot is released.
 */
static void ane_fw_a_terminate_storm_loses_nothing(struct kunit *test)
{
	const int n = 64;
	struct fw_env *e = test->priv;
	struct ane_host_resident *r;
	struct ane_host_hreq *rq;
	int i;

	r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	rq = kunit_kcalloc(test, n, sizeof(*rq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, rq);
	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r[i], &t_lp), 0);
	for (i = 0; i < n; i++) {
		struct ane_fw_cmd_hdr hdr = { .id = ANE_CTL_TERMINATE_PROCESS,
					      .program_id = r[i].slot,
					      .process_id = r[i].pid };

		KUNIT_ASSERT_EQ(test, ane_host_send(e->h, &rq[i],
						    ANE_FW_CH_BUF_H2T, &hdr,
						    NULL), 0);
	}
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&rq[i].done,
								    msecs_to_jiffies(5000)));
		KUNIT_EXPECT_EQ(test, rq[i].status, 0);
	}
	for (i = 0; i < n; i++)
		ane_host_unload(e->h, &r[i]);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(e->h->slots, ANE_FW_MAX_PROGRAMS));
	KUNIT_EXPECT_TRUE(test, bitmap_empty(e->h->stale, ANE_FW_MAX_PROGRAMS));
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
}

/* A crash with every queue hung: the engine's reset ends the hang. */
static void ane_fw_recovers_from_a_hung_queue(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_host_resident r;
	struct ane_host_hreq stuck = { }, rq = { };

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r, &t_lp), 0);
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "deadline", 60000), 0);
	fw_hang_all(test, e, false);
	KUNIT_ASSERT_EQ(test, fw_res_call(e, &r, 4, &stuck, false), 0);
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&stuck.done));
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&stuck.done,
							    msecs_to_jiffies(5000)));
	KUNIT_EXPECT_EQ(test, stuck.status, -EIO);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 5000));
	KUNIT_EXPECT_EQ(test, fw_res_call(e, &r, 4, &rq, true), 0);
	KUNIT_EXPECT_EQ(test, ane_host_ping(e->h), 0);
	KUNIT_EXPECT_EQ(test, e->h->recoveries, 1);
	ane_host_unload(e->h, &r);
}

/* An abort that does not clear faults the firmware: it comes back. */
static void ane_fw_recovers_after_a_stuck_abort(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_host_resident r;
	struct ane_host_hreq stuck = { }, rq = { };
	int i;

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r, &t_lp), 0);
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "deadline", 300), 0);
	fw_hang_all(test, e, true);
	KUNIT_ASSERT_EQ(test, fw_res_call(e, &r, 4, &stuck, false), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&stuck.done,
							    msecs_to_jiffies(5000)));
	KUNIT_EXPECT_EQ(test, stuck.status, -EIO);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 5000));
	KUNIT_ASSERT_NOT_NULL(test, e->h->dump_text);
	KUNIT_EXPECT_NOT_NULL(test, strstr(e->h->dump_text, "did not clear"));
	/* every queue works again, not a crash loop */
	for (i = 0; i < 2 * ANE_NUM_HW_QUEUES; i++)
		KUNIT_EXPECT_EQ(test, fw_res_call(e, &r, 2 + i % 6, &rq, true), 0);
	KUNIT_EXPECT_EQ(test, e->h->recoveries, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_READY);
	ane_host_unload(e->h, &r);
}

/* Boots that fail during recovery are tried again later, not given up. */
static void ane_fw_recovers_from_a_failed_boot(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_host_resident r;
	struct ane_host_hreq rq = { };
	u32 failures;

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r, &t_lp), 0);
	failures = e->h->boot_failures;
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "stall-boot",
					      ANE_HOST_BOOT_RETRIES), 0);
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 15000));
	KUNIT_EXPECT_EQ(test, e->h->boot_failures,
			failures + ANE_HOST_BOOT_RETRIES);
	KUNIT_EXPECT_EQ(test, e->h->boot_fails, 0);
	KUNIT_EXPECT_EQ(test, fw_res_call(e, &r, 4, &rq, true), 0);
	/* a failed boot out of reboot is retried the same way */
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "stall-boot",
					      ANE_HOST_BOOT_RETRIES), 0);
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "reboot", 0), -EIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->state), ANE_FW_STATE_RECOVERING);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 15000));
	KUNIT_EXPECT_EQ(test, fw_res_call(e, &r, 4, &rq, true), 0);
	ane_host_unload(e->h, &r);
}

/* The firmware crashes again while it is being brought back. */
static void ane_fw_recovers_from_a_crash_during_recovery(struct kunit *test)
{
	struct fw_env *e = test->priv;
	struct ane_host_resident r;
	struct ane_host_hreq rq = { };

	KUNIT_ASSERT_EQ(test, fw_boot(e, false), 0);
	KUNIT_ASSERT_EQ(test, ane_host_load(e->h, &r, &t_lp), 0);
	KUNIT_ASSERT_EQ(test, ane_host_inject(e->h, "crash-boot", 1), 0);
	KUNIT_EXPECT_EQ(test, ane_host_inject(e->h, "crash", 0), 0);
	KUNIT_ASSERT_TRUE(test, fw_wait_state(e, ANE_FW_STATE_READY, 10000));
	KUNIT_EXPECT_EQ(test, e->h->recoveries, 2);
	KUNIT_EXPECT_EQ(test, fw_restarts(e), 2);
	KUNIT_EXPECT_EQ(test, fw_res_call(e, &r, 4, &rq, true), 0);
	ane_host_unload(e->h, &r);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(e->h->slots, ANE_FW_MAX_PROGRAMS));
}

static void ane_fw_rate_limit_counts_a_window(struct kunit *test)
{
	unsigned long ts[3] = { };
	unsigned long t = 100000;

	KUNIT_EXPECT_TRUE(test, ane_host_rate_ok(ts, 3, t, 1000));
	KUNIT_EXPECT_TRUE(test, ane_host_rate_ok(ts, 3, t + 10, 1000));
	KUNIT_EXPECT_TRUE(test, ane_host_rate_ok(ts, 3, t + 20, 1000));
	KUNIT_EXPECT_FALSE(test, ane_host_rate_ok(ts, 3, t + 30, 1000));
	KUNIT_EXPECT_TRUE(test, ane_host_rate_ok(ts, 3, t + 1001, 1000));
	KUNIT_EXPECT_EQ(test, ane_host_status_errno(ANE_FW_ST_TIMEOUT), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, ane_host_status_errno(ANE_FW_ST_RESET), -EIO);
}

static struct kunit_case ane_fw_e2e_cases[] = {
	KUNIT_CASE(ane_fw_boots_through_three_handshakes),
	KUNIT_CASE(ane_fw_refuses_a_heap_below_twice_the_reservation),
	KUNIT_CASE(ane_fw_retries_a_missing_second_wake),
	KUNIT_CASE(ane_fw_runs_calls_and_writes_stats),
	KUNIT_CASE(ane_fw_a_full_ring_asks_for_consumed),
	KUNIT_CASE(ane_fw_aborts_a_queue_past_the_deadline),
	KUNIT_CASE(ane_fw_crash_dumps_and_recovers),
	KUNIT_CASE(ane_fw_crash_storm_backs_off_and_recovers),
	KUNIT_CASE(ane_fw_a_full_command_ring_is_waited_out),
	KUNIT_CASE(ane_fw_programs_survive_a_crash),
	KUNIT_CASE(ane_fw_a_terminate_storm_loses_nothing),
	KUNIT_CASE(ane_fw_recovers_from_a_hung_queue),
	KUNIT_CASE(ane_fw_recovers_after_a_stuck_abort),
	KUNIT_CASE(ane_fw_recovers_from_a_failed_boot),
	KUNIT_CASE(ane_fw_recovers_from_a_crash_during_recovery),
	KUNIT_CASE(ane_fw_rate_limit_counts_a_window),
	{}
};

static struct kunit_suite ane_fw_e2e_suite = {
	.name = "ane_fw_e2e",
	.init = fw_env_init,
	.exit = fw_env_exit,
	.test_cases = ane_fw_e2e_cases,
};

kunit_test_suites(&ane_fw_proto_suite, &ane_fw_sched_suite, &ane_fw_rtos_suite,
		  &ane_fw_e2e_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
