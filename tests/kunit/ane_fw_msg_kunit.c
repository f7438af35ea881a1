// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the host side's typed messages (driver/ane_host_msg.c).  The
 * procedure call its builder writes is one the firmware's validator
 * accepts, exactly sized, for no bar up to the most custom bars; and the
 * messages the host takes from the firmware reach their handler: a reply
 * and a PROGRAM_EVENT complete the request they name (IO_T2H answers the
 * IO channel, BUF_T2H the others), a short one is dropped, notifications
 * are counted.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "driver/ane_host.h"
#include "driver/ane_host_internal.h"
#include "driver/ane_host_msg.h"
#include "firmware/ane_fw.h"

/* A procedure-call body with room for everything. */
struct msg_pc_buf {
	struct ane_fw_cmd_hdr hdr;
	u8 body[ANE_FW_PROC_CALL_MAX_BODY + 64];
};

static void ane_host_msg_proc_call_is_valid_and_exact(struct kunit *test)
{
	struct msg_pc_buf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct ane_fw_proc_call *call = (void *)b->body;
	struct ane_fw_bar *bar = (void *)(call + 1);
	static const u32 nbars[] = { 0, 1, ANE_FW_MAX_CUSTOM_BARS };
	static const u32 nsig[] = { 0, 1, ANE_FW_MAX_SIGNAL_EVENTS };
	const struct ane_fw_event *ev;
	u32 i, n, k;

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (n = 0; n < ARRAY_SIZE(nbars) * ARRAY_SIZE(nsig); n++) {
		u32 nb = nbars[n % ARRAY_SIZE(nbars)];
		u32 ns = nsig[n / ARRAY_SIZE(nbars)];

		memset(b, 0xa5, sizeof(*b));
		for (i = 0; i < nb; i++)
			bar[i] = (struct ane_fw_bar){ ANE_CUSTOM_BAR_GENERIC,
						      ANE_CUSTOM_BAR_HW_32BIT,
						      i, 0, 0x100000, 0x4000 };
		ane_host_msg_proc_call_init(&b->hdr, call, nb, NULL, 0, NULL, 0, ns, 99,
					    3, 5, 4, 7);
		KUNIT_EXPECT_EQ(test, b->hdr.id,
				ns ? (u32)ANE_CMD_PROCEDURE_CALL_WITH_EVENTS :
				     (u32)ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS);
		KUNIT_EXPECT_EQ(test, b->hdr.priority, 4u);
		KUNIT_EXPECT_EQ(test, b->hdr.program_id, 3);
		KUNIT_EXPECT_EQ(test, b->hdr.process_id, 5);
		KUNIT_EXPECT_EQ(test, b->hdr.procedure_id, 7u);
		KUNIT_EXPECT_EQ(test, call->task_queue, 4u);
		KUNIT_EXPECT_EQ(test, call->nbr_custom_bars, nb);
		KUNIT_EXPECT_EQ(test, call->nbr_signal_events, ns);
		KUNIT_EXPECT_EQ(test, b->hdr.size,
				(u32)(sizeof(*call) + nb * sizeof(*bar) +
				      (ns ? ns * sizeof(*ev) : sizeof(u32))));
		/* the 24-byte records: signals of the one mask, the seqno */
		ev = (const void *)(bar + nb);
		for (k = 0; k < ns; k++) {
			KUNIT_EXPECT_EQ(test, ev[k].type, (u32)ANE_FW_EVENT_SIGNAL);
			KUNIT_EXPECT_EQ(test, ev[k].target_mask, 1u);
			KUNIT_EXPECT_EQ(test, ev[k].id, (u64)k);
			KUNIT_EXPECT_EQ(test, ev[k].value, 99ull);
		}
		/* the bars are left as the request path wrote them */
		if (nb)
			KUNIT_EXPECT_EQ(test, bar[nb - 1].value, 0x100000ull);
		KUNIT_EXPECT_EQ(test,
				ane_fw_proc_call_check(b->hdr.id, &b->hdr,
						       b->body, b->hdr.size),
				ANE_FW_ST_OK);
		/* exact: one byte less or more is refused */
		KUNIT_EXPECT_EQ(test,
				ane_fw_proc_call_check(b->hdr.id, &b->hdr,
						       b->body, b->hdr.size - 1),
				ANE_FW_ST_INVALID);
		b->hdr.size++;
		KUNIT_EXPECT_EQ(test,
				ane_fw_proc_call_check(b->hdr.id, &b->hdr,
						       b->body, b->hdr.size),
				ANE_FW_ST_INVALID);
	}
}

/* A host side with nothing but its pending list. */
static struct ane_host *msg_host(struct kunit *test)
{
	struct ane_host *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	spin_lock_init(&h->lock);
	INIT_LIST_HEAD(&h->pending);
	return h;
}

static void msg_pend(struct ane_host *h, struct ane_host_hreq *rq, u32 chan,
		     u32 id, u32 seq)
{
	init_completion(&rq->done);
	rq->chan = chan;
	rq->id = id;
	rq->seq = seq;
	rq->status = 1;
	list_add_tail(&rq->node, &h->pending);
}

static void msg_in(struct ane_host *h, u32 ch, u32 id, const void *body,
		   u32 size)
{
	struct ane_fw_cmd_hdr hdr = { .id = id, .size = size };

	spin_lock_irq(&h->lock);
	ane_host_msg_dispatch(h, ch, &hdr, body);
	spin_unlock_irq(&h->lock);
}

static void ane_host_msg_program_event_completes_its_request(struct kunit *test)
{
	struct ane_host *h = msg_host(test);
	struct ane_fw_program_event ev = { .seq = 9,
					   .status = ANE_FW_ST_TIMEOUT,
					   .exec_ns = 1234 };
	struct ane_host_hreq io = { }, ctl = { };

	msg_pend(h, &ctl, ANE_FW_CH_BUF_H2T, ANE_CTL_PING, 9);
	msg_pend(h, &io, ANE_FW_CH_IO, ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS,
		 9);
	/* short: dropped */
	msg_in(h, ANE_FW_CH_IO_T2H, ANE_CMD_PROGRAM_EVENT, &ev, sizeof(ev) - 1);
	KUNIT_EXPECT_FALSE(test, completion_done(&io.done));
	/* IO_T2H answers IO only, whatever the id */
	msg_in(h, ANE_FW_CH_IO_T2H, ANE_CMD_PROGRAM_EVENT, &ev, sizeof(ev));
	KUNIT_EXPECT_TRUE(test, completion_done(&io.done));
	KUNIT_EXPECT_FALSE(test, completion_done(&ctl.done));
	KUNIT_EXPECT_EQ(test, io.status, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, io.fw_status, (s32)ANE_FW_ST_TIMEOUT);
	KUNIT_EXPECT_EQ(test, io.len, (u32)sizeof(ev));
	KUNIT_EXPECT_EQ(test, ((struct ane_fw_program_event *)io.data)->exec_ns,
			1234ull);
	KUNIT_EXPECT_TRUE(test, list_empty(&io.node));
	/* BUF_T2H answers the control channels: the other request */
	ev.status = ANE_FW_ST_OK;
	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CMD_PROGRAM_EVENT, &ev, sizeof(ev));
	KUNIT_EXPECT_TRUE(test, completion_done(&ctl.done));
	KUNIT_EXPECT_EQ(test, ctl.status, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&h->pending));
	KUNIT_EXPECT_EQ(test, h->notes, 3ull);
}

static void ane_host_msg_reply_completes_the_command_it_names(struct kunit *test)
{
	struct ane_host *h = msg_host(test);
	struct {
		struct ane_fw_reply r;
		u64 data[2];
	} rep = { { .seq = 4, .status = ANE_FW_ST_OK, .len = 16 },
		  { 0x1000, 0x200 } };
	struct ane_host_hreq rq = { };
	u64 *got = (void *)rq.data;

	msg_pend(h, &rq, ANE_FW_CH_BUF_H2T, ANE_CTL_CONFIG_GET, 4);
	/* another id with the same ring index: not this command */
	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CTL_PING | ANE_FW_ID_REPLY, &rep,
	       sizeof(rep));
	KUNIT_EXPECT_FALSE(test, completion_done(&rq.done));
	/* shorter than a reply: dropped */
	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CTL_CONFIG_GET | ANE_FW_ID_REPLY,
	       &rep, sizeof(rep.r) - 1);
	KUNIT_EXPECT_FALSE(test, completion_done(&rq.done));
	/* the data is bounded by the message, not by the reply's word */
	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CTL_CONFIG_GET | ANE_FW_ID_REPLY,
	       &rep, sizeof(rep.r) + 8);
	KUNIT_EXPECT_TRUE(test, completion_done(&rq.done));
	KUNIT_EXPECT_EQ(test, rq.status, 0);
	KUNIT_EXPECT_EQ(test, rq.len, 8u);
	KUNIT_EXPECT_EQ(test, got[0], 0x1000ull);
	/* replies are not notifications */
	KUNIT_EXPECT_EQ(test, h->notes, 0ull);
}

static void ane_host_msg_notifications_are_counted(struct kunit *test)
{
	struct ane_host *h = msg_host(test);
	u32 body[4] = { };

	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CMD_CH_ERROR_NOTIFICATION, body,
	       sizeof(body));
	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CMD_CH_RESET_NOTIFICATION, body,
	       sizeof(body));
	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CMD_CH_RESET_NOTIFICATION, body,
	       sizeof(body));
	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CMD_DATA_CHAINING_EVENT, body,
	       sizeof(body));
	msg_in(h, ANE_FW_CH_BUF_T2H, ANE_CMD_CH_SIGNPOST, body, sizeof(body));
	KUNIT_EXPECT_EQ(test, h->errors, 1ull);
	KUNIT_EXPECT_EQ(test, h->resets, 2ull);
	KUNIT_EXPECT_EQ(test, h->chain_events, 1ull);
	KUNIT_EXPECT_EQ(test, h->notes, 5ull);
}

static struct kunit_case ane_host_msg_cases[] = {
	KUNIT_CASE(ane_host_msg_proc_call_is_valid_and_exact),
	KUNIT_CASE(ane_host_msg_program_event_completes_its_request),
	KUNIT_CASE(ane_host_msg_reply_completes_the_command_it_names),
	KUNIT_CASE(ane_host_msg_notifications_are_counted),
	{ }
};

static struct kunit_suite ane_host_msg_suite = {
	.name = "ane_host_msg",
	.test_cases = ane_host_msg_cases,
};

kunit_test_suite(ane_host_msg_suite);
