// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware image: reset-vector entry, bring-up, the channel table and
 * rings, the control-channel server, notifications to the host, and the
 * fault handler with its crash dump.
 *
 * The firmware sees only its registers (ane_hw_read32/write32), the
 * memory the DART lets it reach (ane_hw_dma, stream 0) and its SRAM.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/wait.h>

#include <kunit/visibility.h>

#include "driver/ane_hw.h"
#include "ane_fw.h"
#include "ane_fw_engine.h"
#include "ane_fw_image.h"

static_assert(ANE_FW_DB_ENGINE == ANE_CPU_IRQ_ENGINE);

#define ANE_FW_BUILD		"ane-fw 1.0 (H13G emulation)"
#define ANE_FW_BOOT_TIMEOUT_NS	(2ull * NSEC_PER_SEC)

/* Ring geometry: slots and slot size per channel (SHAREDMALLOC: memory). */
static const struct {
	const char *name;
	u32 dir;
	u32 slot_size;
	u32 nslots;
	u32 mem_size;
} ane_fw_chan_layout[ANE_FW_NUM_CHANNELS] = {
	[ANE_FW_CH_SHAREDMALLOC] = { "SHAREDMALLOC", ANE_FW_CHAN_MEM, 0, 0,
				     0x8000 },
	[ANE_FW_CH_TERMINAL] = { "TERMINAL", ANE_FW_CHAN_T2H, 128, 64 },
	/* a whole procedure call fits (ANE_FW_PROC_CALL_MAX_BODY) */
	[ANE_FW_CH_BUF_H2T] = { "BUF_H2T", ANE_FW_CHAN_H2T, 2048, 64 },
	[ANE_FW_CH_BUF_T2H] = { "BUF_T2H", ANE_FW_CHAN_T2H, 256, 64 },
	[ANE_FW_CH_IO] = { "IO", ANE_FW_CHAN_H2T, 2560, 64 },
	[ANE_FW_CH_IO_T2H] = { "IO_T2H", ANE_FW_CHAN_T2H, 64, 128 },
	[ANE_FW_CH_DEBUG] = { "DEBUG", ANE_FW_CHAN_T2H, 4096, 16 },
	[ANE_FW_CH_DATA_CHAIN_H2T] = { "DATA_CHAIN_H2T", ANE_FW_CHAN_H2T,
				       512, 32 },
};

/* What a pump waiting for outbox room shows as its blocked_on. */
static const char ane_fw_blocked_t2h[] = "T2H space";
/* What the server waiting for room in the terminator's queue shows. */
static const char ane_fw_blocked_term[] = "terminator queue";

/*
 * Room in the terminator's queue for one more TERMINATE_PROCESS, one
 * message spare: the server, of higher priority, would otherwise fill it
 * and the next one would be lost, its host waiting in vain.
 */
static bool ane_fw_terminator_has_room(struct ane_fw *fw)
{
	return fw->tasks[ANE_FW_T_TERMINATOR].q->count + 1 < ANE_FW_QUEUE_DEPTH;
}

#define ANE_FW_CHTBL_OFFSET	0x1000
#define ANE_FW_SHARED_START	0x2000

u64 ane_fw_now(struct ane_fw *fw)
{
	return ktime_get_ns() - fw->boot_ns;
}

static u32 ane_fw_rd(struct ane_fw *fw, u32 off)
{
	return ane_hw_read32(fw->hw, ANE_BANK_ANE, off);
}

static void ane_fw_wr(struct ane_fw *fw, u32 off, u32 val)
{
	ane_hw_write32(fw->hw, ANE_BANK_ANE, off, val);
}

/* Raise host interrupt @bit through the doorbell slot that routes it. */
static void ane_fw_raise(struct ane_fw *fw, u32 bit)
{
	int i;

	if (!fw->args.magic) {
		ane_fw_wr(fw, ANE_REG_HOST_IRQ, bit);
		return;
	}
	for (i = 0; i < ANE_FW_NUM_DOORBELLS; i++) {
		if (fw->args.doorbell[i].bits & bit) {
			ane_fw_wr(fw, fw->args.doorbell[i].reg, bit);
			return;
		}
	}
}

/* Reset is being asserted: stop what runs, return to the reset vector. */
bool ane_fw_should_halt(struct ane_fw *fw)
{
	return READ_ONCE(fw->halt) ||
	       !(ane_fw_rd(fw, ANE_REG_CPU_CTRL) & ANE_CPU_RUN);
}

static bool ane_fw_irq_ready(struct ane_fw *fw)
{
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&fw->irq_lock, flags);
	ready = fw->halt || fw->irqbuf_rd != fw->irqbuf_wr;
	spin_unlock_irqrestore(&fw->irq_lock, flags);
	return ready;
}

/*
 * Watch for a doorbell for the host's idle-poll time, yielding to any
 * other task that wants the CPU: a doorbell that comes meanwhile is taken
 * without the thread going to sleep and being woken.  Return: whether
 * one (or a halt) came.
 */
static bool ane_fw_idle_poll(struct ane_fw *fw, u64 timeout_ns)
{
	u64 poll = (u64)fw->args.idle_poll_us * NSEC_PER_USEC, end;

	if (!poll)
		return false;
	end = ktime_get_ns() + min(poll, timeout_ns);
	do {
		/* a hint read without the lock; ane_fw_irq_take() has it */
		if (READ_ONCE(fw->irqbuf_wr) != READ_ONCE(fw->irqbuf_rd) ||
		    READ_ONCE(fw->halt))
			return true;
		cpu_relax();
	} while (!need_resched() && ktime_get_ns() < end);
	return false;
}

/* Wait for an interrupt (WFI): a doorbell, halt, or @timeout_ns. */
static void ane_fw_wfi(struct ane_fw *fw, u64 timeout_ns)
{
	long j = MAX_SCHEDULE_TIMEOUT;

	if (ane_fw_idle_poll(fw, timeout_ns))
		return;

	if (timeout_ns != U64_MAX)
		j = nsecs_to_jiffies(timeout_ns) + 1;
	wait_event_idle_timeout(fw->wq, ane_fw_irq_ready(fw), j);
}

/* Pop every interrupt record: the doorbell bits since the last call. */
static u32 ane_fw_irq_take(struct ane_fw *fw)
{
	unsigned long flags;
	u32 bits = 0;

	spin_lock_irqsave(&fw->irq_lock, flags);
	while (fw->irqbuf_rd != fw->irqbuf_wr) {
		bits |= fw->irqbuf[fw->irqbuf_rd % ANE_FW_IRQBUF_DEPTH].bits;
		fw->irqbuf_rd++;
	}
	spin_unlock_irqrestore(&fw->irq_lock, flags);
	return bits;
}

/* ------------------------------------------------------------------ rings */

static u64 ane_fw_slot(struct ane_fw *fw, u32 ch, u32 idx)
{
	struct ane_fw_ring *r = &fw->ring[ch];

	return r->iova + sizeof(struct ane_fw_ring_hdr) +
	       (u64)(idx & (r->nslots - 1)) * r->slot_size;
}

static int ane_fw_ring_read_u32(struct ane_fw *fw, u32 ch, u32 field, u32 *v)
{
	return ane_hw_dma(fw->hw, 0, fw->ring[ch].iova + field, v, 4, false);
}

/* H2T: the header of the next message, without consuming it. */
static int ane_fw_ring_peek(struct ane_fw *fw, u32 ch,
			    struct ane_fw_cmd_hdr *hdr, u32 *seq)
{
	struct ane_fw_ring *r = &fw->ring[ch];
	u32 head;

	if (!r->ready)
		return -ENOENT;
	if (r->cached == r->idx) {
		if (ane_fw_ring_read_u32(fw, ch,
					 offsetof(struct ane_fw_ring_hdr, head),
					 &head))
			return -EFAULT;
		r->cached = head;
		if (head == r->idx)
			return -ENOENT;
		if (head - r->idx > r->nslots) {
			ane_fw_panic(fw, ANE_FW_EXC_SYNC,
				     "ring %s: head %u tail %u beyond %u slots",
				     ane_fw_chan_layout[ch].name, head, r->idx,
				     r->nslots);
			return -EPROTO;
		}
	}
	smp_rmb();	/* slot contents after the head that published them */
	*seq = r->idx;
	return ane_hw_dma(fw->hw, 0, ane_fw_slot(fw, ch, r->idx), hdr,
			  sizeof(*hdr), false);
}

static int ane_fw_ring_body(struct ane_fw *fw, u32 ch, u32 seq, void *buf,
			    u32 len)
{
	if (!len)
		return 0;
	return ane_hw_dma(fw->hw, 0, ane_fw_slot(fw, ch, seq) +
			  sizeof(struct ane_fw_cmd_hdr), buf, len, false);
}

/*
 * Give an H2T slot back.  A host that found the ring full asked to hear
 * of the room (&ane_fw_ring_hdr.space_wanted): the flag is read after the
 * new tail is written, so either the host, reading the tail again after
 * setting it, sees the room, or we see the flag and interrupt it.
 */
static void ane_fw_ring_consume(struct ane_fw *fw, u32 ch)
{
	struct ane_fw_ring *r = &fw->ring[ch];
	u32 want = 0;

	r->idx++;
	smp_mb();	/* done with the slot before the host may reuse it */
	ane_hw_dma(fw->hw, 0, r->iova + offsetof(struct ane_fw_ring_hdr, tail),
		   &r->idx, 4, true);
	smp_mb();	/* the new tail before the host's request is read */
	if (ane_fw_ring_read_u32(fw, ch,
				 offsetof(struct ane_fw_ring_hdr, space_wanted),
				 &want) || !want)
		return;
	want = 0;
	ane_hw_dma(fw->hw, 0,
		   r->iova + offsetof(struct ane_fw_ring_hdr, space_wanted),
		   &want, 4, true);
	ane_fw_raise(fw, ch == ANE_FW_CH_IO ? ANE_HOST_IRQ_IO_T2H :
					      ANE_HOST_IRQ_T2H);
}

static bool ane_fw_ring_has_room(struct ane_fw *fw, u32 ch)
{
	struct ane_fw_ring *r = &fw->ring[ch];
	u32 tail;

	if (r->idx - r->cached < r->nslots)
		return true;
	if (ane_fw_ring_read_u32(fw, ch, offsetof(struct ane_fw_ring_hdr, tail),
				 &tail))
		return false;
	r->cached = tail;
	return r->idx - r->cached < r->nslots;
}

/*
 * A full T2H ring: ask the host to ring CONSUMED once it drains it
 * (&ane_fw_ring_hdr.space_wanted).  Return: whether the ring has room
 * after all, the host having drained it meanwhile (it may then not ring).
 */
static bool ane_fw_ring_want_space(struct ane_fw *fw, u32 ch)
{
	struct ane_fw_ring *r = &fw->ring[ch];
	u32 one = 1;

	if (ane_hw_dma(fw->hw, 0,
		       r->iova + offsetof(struct ane_fw_ring_hdr, space_wanted),
		       &one, 4, true))
		return false;
	smp_mb();	/* the request before the tail is read again */
	return ane_fw_ring_has_room(fw, ch);
}

/* T2H: publish one message of @len bytes (header included). */
static int ane_fw_ring_push(struct ane_fw *fw, u32 ch, const void *msg,
			    u32 len)
{
	struct ane_fw_ring *r = &fw->ring[ch];

	if (!r->ready || len > r->slot_size)
		return -EINVAL;
	if (!ane_fw_ring_has_room(fw, ch))
		return -ENOSPC;
	if (ane_hw_dma(fw->hw, 0, ane_fw_slot(fw, ch, r->idx), (void *)msg,
		       len, true))
		return -EFAULT;
	r->idx++;
	smp_wmb();	/* the slot before the head that publishes it */
	return ane_hw_dma(fw->hw, 0,
			  r->iova + offsetof(struct ane_fw_ring_hdr, head),
			  &r->idx, 4, true);
}

static u32 ane_fw_chan_irq(u32 ch)
{
	switch (ch) {
	case ANE_FW_CH_IO_T2H:
		return ANE_HOST_IRQ_IO_T2H;
	case ANE_FW_CH_DEBUG:
		return ANE_HOST_IRQ_DEBUG;
	case ANE_FW_CH_TERMINAL:
		return ANE_HOST_IRQ_TERMINAL;
	default:
		return ANE_HOST_IRQ_T2H;
	}
}

/*
 * Deliver queued notifications in order while the rings have room; a ring
 * still full is asked to report its draining.  Pumps blocked on the
 * outbox run again once it has room for their replies.
 */
static void ane_fw_outbox_flush(struct ane_fw *fw)
{
	u32 raised = 0, i;

	while (fw->outbox_count) {
		struct ane_fw_outbox *o = &fw->outbox[fw->outbox_rd];

		if (ane_fw_ring_push(fw, o->chan, o->msg, o->len) == -ENOSPC) {
			if (ane_fw_ring_want_space(fw, o->chan))
				continue;
			break;
		}
		raised |= ane_fw_chan_irq(o->chan);
		fw->outbox_rd = (fw->outbox_rd + 1) % ANE_FW_NUM_OUTBOX;
		fw->outbox_count--;
	}
	if (raised & ANE_HOST_IRQ_IO_T2H)
		ane_fw_raise(fw, ANE_HOST_IRQ_IO_T2H);
	if (raised & ANE_HOST_IRQ_T2H)
		ane_fw_raise(fw, ANE_HOST_IRQ_T2H);
	if (fw->outbox_count + 2 > ANE_FW_NUM_OUTBOX)
		return;
	for (i = 0; i < ANE_FW_NUM_TASKS; i++)
		if (fw->tasks[i].state == ANE_FW_TASK_BLOCKED &&
		    fw->tasks[i].blocked_on == ane_fw_blocked_t2h)
			fw->tasks[i].state = ANE_FW_TASK_RUNNABLE;
}

/**
 * ane_fw_notify() - send a message to the host on a T2H channel
 * @fw: the firmware.
 * @chan: BUF_T2H or IO_T2H.
 * @id: message id.
 * @like: header whose program/process/procedure/priority to copy, or NULL.
 * @body: the body.
 * @len: its length.
 *
 * A full ring parks the message in the bounded outbox, delivered in order
 * when the host drains the ring.
 *
 * Return: 0, or -ENOSPC when the outbox is full too (counted, reported).
 */
int ane_fw_notify(struct ane_fw *fw, u32 chan, u32 id,
		  const struct ane_fw_cmd_hdr *like, const void *body,
		  u32 len)
{
	struct ane_fw_cmd_hdr *hdr = (void *)fw->txbuf;
	u32 total = sizeof(*hdr) + len;
	struct ane_fw_outbox *o;
	int ret;

	if (total > ANE_FW_OUTBOX_MSG)
		return -EINVAL;
	*hdr = (struct ane_fw_cmd_hdr){
		.id = id, .size = len, .program_id = -1, .process_id = -1,
	};
	if (like) {
		hdr->priority = like->priority;
		hdr->program_id = like->program_id;
		hdr->process_id = like->process_id;
		hdr->procedure_id = like->procedure_id;
	}
	memcpy(hdr + 1, body, len);
	if (!fw->outbox_count) {
		ret = ane_fw_ring_push(fw, chan, hdr, total);
		if (!ret) {
			ane_fw_raise(fw, ane_fw_chan_irq(chan));
			return 0;
		}
		if (ret != -ENOSPC)
			return ret;
	}
	fw->ring_full++;
	if (fw->outbox_count >= ANE_FW_NUM_OUTBOX)
		return -ENOSPC;
	o = &fw->outbox[(fw->outbox_rd + fw->outbox_count) % ANE_FW_NUM_OUTBOX];
	o->chan = chan;
	o->len = total;
	memcpy(o->msg, hdr, total);
	fw->outbox_count++;
	/* Delivered now if the host drained meanwhile; else it will say. */
	ane_fw_outbox_flush(fw);
	return 0;
}

/* A reply: the request's id | REPLY, its ring index and status. */
static int ane_fw_reply(struct ane_fw *fw, u32 chan, u32 seq,
			const struct ane_fw_cmd_hdr *req, int status,
			const void *data, u32 len)
{
	struct {
		struct ane_fw_reply r;
		u8 data[ANE_FW_OUTBOX_MSG - sizeof(struct ane_fw_cmd_hdr) -
			sizeof(struct ane_fw_reply)];
	} msg;

	if (len > sizeof(msg.data))
		return -EINVAL;
	msg.r = (struct ane_fw_reply){ .seq = seq, .status = status,
				       .len = len };
	if (len)
		memcpy(msg.data, data, len);
	return ane_fw_notify(fw, chan, req->id | ANE_FW_ID_REPLY, req, &msg,
			     sizeof(msg.r) + len);
}

/**
 * ane_fw_print() - a line on the TERMINAL channel, once print is enabled
 * @fw: the firmware.
 * @fmt: printf format.
 *
 * The terminal is a log: a full ring drops the line and counts it.
 */
void ane_fw_print(struct ane_fw *fw, const char *fmt, ...)
{
	struct {
		struct ane_fw_cmd_hdr hdr;
		char text[104];
	} line = { .hdr = { .id = ANE_CMD_DBG_EVENT, .program_id = -1,
			    .process_id = -1 } };
	va_list ap;

	if (!fw->print_enabled || !fw->ring[ANE_FW_CH_TERMINAL].ready)
		return;
	va_start(ap, fmt);
	line.hdr.size = vscnprintf(line.text, sizeof(line.text), fmt, ap) + 1;
	va_end(ap);
	if (ane_fw_ring_push(fw, ANE_FW_CH_TERMINAL, &line,
			     sizeof(line.hdr) + line.hdr.size))
		fw->terminal_dropped++;
}

/* ------------------------------------------------------------ the fault */

/**
 * ane_fw_panic() - a failed invariant: fault into the dump-and-reset path
 * @fw: the firmware.
 * @exc_class: &enum ane_fw_exc_class.
 * @fmt: what failed.
 *
 * Records the fault; the main loop stops running tasks after the current
 * message returns and enters the crash path.
 */
void ane_fw_panic(struct ane_fw *fw, u32 exc_class, const char *fmt, ...)
{
	struct ane_fw_dump_regs *r = &fw->regs;
	va_list ap;
	int i;

	if (fw->crashed)
		return;
	fw->crashed = true;
	fw->exc_class = exc_class;
	fw->fault_task = fw->current_task ? fw->current_task->name : "idle";
	fw->fault_in_irq = fw->in_irq;
	va_start(ap, fmt);
	vscnprintf(fw->reason, sizeof(fw->reason), fmt, ap);
	va_end(ap);

	/* The emulated CPU's view: syndrome, fault address, registers. */
	memset(r, 0, sizeof(*r));
	r->esr = (u64)(exc_class == ANE_FW_EXC_SYNC ? 0x3c : 0x00) << 26 |
		 BIT(25) | 0x1;		/* EC=BRK (assert), IL, imm */
	r->elr = ANE_FW_BOOT_ADDR + 0x4a000 + fw->cmd_ring_next * 4;
	r->fabric = BIT_ULL(39) | BIT(2);
	r->x[0] = fw->fsm.state;
	r->x[1] = fw->fsm.inflight;
	r->x[2] = fw->sched.pending;
	r->x[3] = fw->sched.inflight;
	r->x[4] = fw->handled;
	r->x[5] = fw->completed;
	for (i = 0; i < ANE_FW_DUMP_CMD_RING && i < 8; i++) {
		u32 n = (fw->cmd_ring_next - 1 - i) % ANE_FW_DUMP_CMD_RING;

		r->x[8 + i] = fw->cmd_ring[n].id;
	}
	r->x[29] = ANE_FW_BOOT_ADDR + 0x100000;	/* frame pointer */
	r->x[30] = r->elr + 4;			/* link register */
}

/* Remember a command in the recent-command ring (the dump replays it). */
static struct ane_fw_dump_cmd *ane_fw_cmd_log(struct ane_fw *fw, u32 chan,
					      u32 seq,
					      const struct ane_fw_cmd_hdr *hdr)
{
	struct ane_fw_dump_cmd *c;

	c = &fw->cmd_ring[fw->cmd_ring_next++ % ANE_FW_DUMP_CMD_RING];
	c->id = hdr->id;
	c->chan = chan;
	c->seq = seq;
	c->status = -1;
	c->hdr = *hdr;
	c->ts_ns = ane_fw_now(fw);
	return c;
}

/* Push one dump section to the DEBUG ring, waiting for the host to drain. */
static int ane_fw_dump_section(struct ane_fw *fw, u32 section, u32 index,
			       const void *data, u32 len)
{
	struct ane_fw_cmd_hdr *hdr = (void *)fw->txbuf;
	struct ane_fw_dump_section_hdr *sh = (void *)(hdr + 1);
	u32 total = sizeof(*hdr) + sizeof(*sh) + len;
	u64 waited = 0;
	int ret;

	if (total > ane_fw_chan_layout[ANE_FW_CH_DEBUG].slot_size)
		return -EINVAL;
	*hdr = (struct ane_fw_cmd_hdr){ .id = ANE_CMD_DBG_EVENT,
					.size = sizeof(*sh) + len,
					.program_id = -1, .process_id = -1 };
	*sh = (struct ane_fw_dump_section_hdr){ .section = section,
						.index = index, .len = len };
	memcpy(sh + 1, data, len);
	for (;;) {
		ret = ane_fw_ring_push(fw, ANE_FW_CH_DEBUG, hdr, total);
		if (ret != -ENOSPC)
			break;
		if (ane_fw_ring_want_space(fw, ANE_FW_CH_DEBUG))
			continue;
		/* SEMWAIT on "debug space" until the host pulls a section. */
		if (fw->debug_space && fw->current_task)
			fw->current_task->state = ANE_FW_TASK_SEMWAIT;
		if (ane_fw_should_halt(fw) || waited > 5 * NSEC_PER_SEC)
			return -ETIMEDOUT;
		ane_fw_wfi(fw, 10 * NSEC_PER_MSEC);
		ane_fw_irq_take(fw);
		waited += 10 * NSEC_PER_MSEC;
	}
	ane_fw_raise(fw, ANE_HOST_IRQ_DEBUG);
	return ret;
}

static void ane_fw_fill_tasks(struct ane_fw *fw, struct ane_fw_dump_task *out,
			      u32 max, u32 *n)
{
	u32 i;

	*n = 0;
	for (i = 0; i < ANE_FW_NUM_TASKS && *n < max; i++) {
		struct ane_fw_task *t = &fw->tasks[i];
		struct ane_fw_dump_task *d = &out[(*n)++];

		memset(d, 0, sizeof(*d));
		if (!t->in_use)
			continue;
		strscpy(d->name, t->name, sizeof(d->name));
		d->state = t->state;
		d->handled = t->handled;
		d->queued = t->q->count + t->irq_q->count;
	}
}

/*
 * The crash path: count the restart, tell the host (reset notification,
 * CRASHED in scratch 7, the crash interrupt), then stream the dump
 * section by section through DEBUG and wait for reset.
 */
static void ane_fw_crash(struct ane_fw *fw)
{
	struct ane_fw_reset_note note;
	struct ane_fw_dump_header h = { };
	struct ane_fw_dump_task tasks[ANE_FW_NUM_TASKS];
	struct ane_fw_dump_cmd cmds[ANE_FW_DUMP_CMD_RING];
	u32 i, n, idx = 0;

	fw->restart_count++;
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_RESTARTS), fw->restart_count);
	if (fw->reset_mutex)
		ane_fw_mutex_lock(fw->reset_mutex, fw->current_task ?:
				  &fw->tasks[ANE_FW_T_IDLE]);

	note = (struct ane_fw_reset_note){ .first_tq = 1,
					   .last_tq = ANE_FW_MAX_TASK_QUEUE,
					   .reason = fw->exc_class,
					   .restart_count = fw->restart_count };
	ane_fw_notify(fw, ANE_FW_CH_BUF_T2H, ANE_CMD_CH_RESET_NOTIFICATION,
		      NULL, &note, sizeof(note));
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_ERROR), fw->exc_class);
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT),
		  ANE_FW_BOOT_CRASHED | fw->exc_class);
	ane_fw_raise(fw, ANE_HOST_IRQ_CRASH);

	h.magic = ANE_FW_DUMP_MAGIC;
	h.exc_class = fw->exc_class;
	h.restart_count = fw->restart_count;
	h.cpu = 0;
	h.in_irq = fw->fault_in_irq;
	h.fsm_state = fw->fsm.state;
	strscpy(h.task, fw->fault_task ?: "idle", sizeof(h.task));
	strscpy(h.reason, fw->reason, sizeof(h.reason));
	h.uptime_ns = ane_fw_now(fw);
	if (ane_fw_dump_section(fw, ANE_FW_DUMP_HEADER, idx++, &h, sizeof(h)))
		goto park;
	if (ane_fw_dump_section(fw, ANE_FW_DUMP_REGS, idx++, &fw->regs,
				sizeof(fw->regs)))
		goto park;
	/* newest first */
	for (i = 0, n = 0; i < ANE_FW_DUMP_CMD_RING && i < fw->cmd_ring_next;
	     i++)
		cmds[n++] = fw->cmd_ring[(fw->cmd_ring_next - 1 - i) %
					 ANE_FW_DUMP_CMD_RING];
	if (ane_fw_dump_section(fw, ANE_FW_DUMP_CMD_RING, idx++, cmds,
				n * sizeof(cmds[0])))
		goto park;
	ane_fw_fill_tasks(fw, tasks, ANE_FW_NUM_TASKS, &n);
	if (ane_fw_dump_section(fw, ANE_FW_DUMP_TASKS, idx++, tasks,
				n * sizeof(tasks[0])))
		goto park;
	ane_fw_dump_section(fw, ANE_FW_DUMP_END, idx++, NULL, 0);
park:
	while (!ane_fw_should_halt(fw)) {
		ane_fw_wfi(fw, U64_MAX);
		ane_fw_irq_take(fw);
	}
}

/* ---------------------------------------------------- control commands */

static int ane_fw_status_snapshot(struct ane_fw *fw)
{
	struct ane_fw_status_page *p = (void *)fw->txbuf;
	u32 i;

	static_assert(sizeof(*p) <= ANE_FW_CMDBUF);
	memset(p, 0, sizeof(*p));
	p->magic = ANE_FW_STATUS_MAGIC;
	p->fsm_state = fw->fsm.state;
	p->secure = fw->fsm.secure;
	p->restart_count = fw->restart_count;
	p->inflight = fw->sched.inflight;
	p->pending = fw->sched.pending;
	p->completed = fw->completed;
	p->dropped_not_running = fw->dropped_not_running;
	p->rejected = fw->rejected;
	p->deadline_aborts = fw->deadline_aborts;
	p->chain_dropped = fw->chain_dropped;
	p->ring_full = fw->ring_full;
	p->uptime_ns = ane_fw_now(fw);
	p->engine_isa = fw->engine_isa;
	for (i = 0; i < ANE_FW_ENGINE_ISAS; i++)
		p->engine_ops[i] = fw->engine_ops[i];
	ane_fw_fill_tasks(fw, p->tasks, ANE_FW_STATUS_TASKS, &p->ntasks);
	p->npools = ANE_FW_NUM_POOLS;
	for (i = 0; i < ANE_FW_NUM_POOLS; i++) {
		strscpy(p->pools[i].name, ane_fw_pool_name(i),
			sizeof(p->pools[i].name));
		ane_fw_pool_count(fw, i, &p->pools[i].total,
				  &p->pools[i].avail);
	}
	return ane_hw_dma(fw->hw, 0, fw->status_iova, p, sizeof(*p), true);
}

static int ane_fw_prop_write(struct ane_fw *fw, const struct ane_fw_property *p)
{
	u32 idx = p->reg_addr / 4;

	if (p->reg_addr % 4 || p->reg_addr >= ANE_FW_NUM_PROPS * 4 || p->pad)
		return ANE_FW_ST_INVALID;
	if (!p->reg_value)
		return ANE_FW_ST_INVALID;	/* regValue != 0 */
	if (p->reg_addr == ANE_FW_PROP_MAX_INFLIGHT) {
		if (p->reg_value > ANE_FW_NUM_HWQ)
			return ANE_FW_ST_INVALID;
		fw->sched.max_inflight = p->reg_value;
	}
	fw->props[idx] = p->reg_value;
	return ANE_FW_ST_OK;
}

static int ane_fw_ctl_program(struct ane_fw *fw,
			      const struct ane_fw_cmd_hdr *hdr,
			      const void *body)
{
	s32 prog = hdr->program_id, proc = hdr->process_id;
	const struct ane_fw_load_program *lp = body;
	int i;

	if (prog < 0 || prog >= ANE_FW_MAX_PROGRAMS)
		return ANE_FW_ST_INVALID;
	switch (hdr->id) {
	case ANE_CTL_LOAD_PROGRAM:
		if (hdr->size != sizeof(*lp) || lp->flags || !lp->proc_nbr ||
		    lp->proc_nbr > ANE_FW_MAX_PROCEDURES)
			return ANE_FW_ST_INVALID;
		if (fw->programs[prog].valid)
			return ANE_FW_ST_BUSY;
		return ane_fw_program_load(fw, prog, lp);
	case ANE_CTL_UNLOAD_PROGRAM:
		if (!fw->programs[prog].valid)
			return ANE_FW_ST_NOENT;
		for (i = 0; i < ANE_FW_MAX_PROCESSES; i++)
			if (fw->processes[i].state == ANE_FW_PROC_RUNNING &&
			    fw->processes[i].program_id == prog)
				return ANE_FW_ST_BUSY;
		return ane_fw_program_unload(fw, prog);
	case ANE_CTL_CREATE_PROCESS:
		if (proc < 0 || proc >= ANE_FW_MAX_PROCESSES)
			return ANE_FW_ST_INVALID;
		if (!fw->programs[prog].valid)
			return ANE_FW_ST_NOENT;
		if (fw->processes[proc].state != ANE_FW_PROC_IDLE)
			return ANE_FW_ST_BUSY;
		fw->processes[proc].state = ANE_FW_PROC_RUNNING;
		fw->processes[proc].program_id = prog;
		return ANE_FW_ST_OK;
	}
	return ANE_FW_ST_UNSUPPORTED;
}

/* One control-channel command; returns the status, fills reply data. */
static int ane_fw_ctl(struct ane_fw *fw, u32 chan, u32 seq,
		      const struct ane_fw_cmd_hdr *hdr, const void *body,
		      void *out, u32 *out_len)
{
	u32 len = hdr->size;

	*out_len = 0;
	if (chan == ANE_FW_CH_DATA_CHAIN_H2T && !fw->endpoint_set)
		return ANE_FW_ST_NOT_READY;

	switch (hdr->id) {
	case ANE_CTL_START:
		ane_fw_fsm_arm(&fw->fsm);
		fw->started = true;
		return ANE_FW_ST_OK;
	case ANE_CTL_STOP:
		fw->started = false;
		return ANE_FW_ST_OK;
	case ANE_CTL_PRINT_ENABLE:
		if (len != 4)
			return ANE_FW_ST_INVALID;
		fw->print_enabled = *(const u32 *)body;
		ane_fw_print(fw, "%s: print enabled", ANE_FW_BUILD);
		return ANE_FW_ST_OK;
	case ANE_CTL_BUILDINFO:
		*out_len = strscpy(out, ANE_FW_BUILD, 64) + 1;
		return ANE_FW_ST_OK;
	case ANE_CTL_PING:
		if (len > 64)
			return ANE_FW_ST_INVALID;
		memcpy(out, body, len);
		*out_len = len;
		return ANE_FW_ST_OK;
	case ANE_CTL_TIME_SYNC:
		if (len != sizeof(struct ane_fw_time_sync))
			return ANE_FW_ST_INVALID;
		fw->host_offset_ns = ((const struct ane_fw_time_sync *)body)->host_ns -
				     ane_fw_now(fw);
		return ANE_FW_ST_OK;
	case ANE_CTL_CONFIG_GET: {
		u64 loc[2] = { fw->status_iova,
			       sizeof(struct ane_fw_status_page) };

		if (ane_fw_status_snapshot(fw))
			return ANE_FW_ST_FAULT;
		memcpy(out, loc, sizeof(loc));
		*out_len = sizeof(loc);
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_PMU_BASE_SET:
		if (len != sizeof(struct ane_fw_pmu_base))
			return ANE_FW_ST_INVALID;
		fw->pmu_base = ((const struct ane_fw_pmu_base *)body)->base;
		return ANE_FW_ST_OK;
	case ANE_CTL_IPC_ENDPOINT_SET: {
		const struct ane_fw_endpoint_set *ep = body;

		if (len != sizeof(*ep) || ep->endpoint != ANE_FW_ENDPOINT_ID ||
		    ep->type != ANE_FW_ENDPOINT_DATA_CHAINING)
			return ANE_FW_ST_INVALID;
		fw->endpoint_set = true;
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_IPC_ENDPOINT_UNSET:
		fw->endpoint_set = false;
		return ANE_FW_ST_OK;
	case ANE_CTL_CH_PROPERTY_WRITE:
		if (len != sizeof(struct ane_fw_property))
			return ANE_FW_ST_INVALID;
		return ane_fw_prop_write(fw, body);
	case ANE_CTL_CH_PROPERTY_READ: {
		struct ane_fw_property p;

		if (len != sizeof(p))
			return ANE_FW_ST_INVALID;
		memcpy(&p, body, sizeof(p));
		if (p.reg_addr % 4 || p.reg_addr >= ANE_FW_NUM_PROPS * 4)
			return ANE_FW_ST_INVALID;
		p.reg_value = fw->props[p.reg_addr / 4];
		memcpy(out, &p, sizeof(p));
		*out_len = sizeof(p);
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_RESOURCE_INFO_GET: {
		struct ane_fw_resource_info ri = {
			.num_engines = 1,
			.max_cache_requests = ANE_FW_MAX_CACHE_REQUESTS,
			.max_cache_inputs = ANE_FW_MAX_TRIGGER_INPUTS,
			.max_procedures = ANE_FW_MAX_PROCEDURES,
			.max_programs = ANE_FW_MAX_PROGRAMS,
			.max_inflight = fw->sched.max_inflight,
			.num_hw_queues = ANE_FW_NUM_HWQ,
		};

		memcpy(out, &ri, sizeof(ri));
		*out_len = sizeof(ri);
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_STATS_BUFFER_SIZE_GET: {
		struct ane_fw_stats_sizes sz = {
			ANE_FW_STATS_HDR_SIZE, ANE_FW_STATS_EVDESC_SIZE,
			ANE_FW_STATS_DBG_SIZE, ANE_FW_STATS_ENGINE_SIZE };

		memcpy(out, &sz, sizeof(sz));
		*out_len = sizeof(sz);
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_DEFAULT_SETTINGS_SET:
		if (len != sizeof(struct ane_fw_default_settings))
			return ANE_FW_ST_INVALID;
		fw->ctx_switch_lat_us =
			((const struct ane_fw_default_settings *)body)->ctx_switch_latency_us;
		fw->props[ANE_FW_PROP_CTX_SWITCH_LAT / 4] = fw->ctx_switch_lat_us;
		return ANE_FW_ST_OK;
	case ANE_CTL_MCACHE_POWER_ON:
		fw->mcache_on = true;
		return ANE_FW_ST_OK;
	case ANE_CTL_SHARED_EVENT_INIT: {
		const struct ane_fw_shared_event_init *se = body;

		if (len != sizeof(*se) ||
		    se->num_events >= ANE_FW_MAX_SHARED_EVENTS)
			return ANE_FW_ST_INVALID;
		fw->shared_events = se->num_events;
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_SECURE_MODE_START:
	case ANE_CTL_SECURE_MODE_STOP:
		return ane_fw_secure_switch(fw,
					    hdr->id == ANE_CTL_SECURE_MODE_START);
	case ANE_CTL_LOAD_PROGRAM:
	case ANE_CTL_UNLOAD_PROGRAM:
	case ANE_CTL_CREATE_PROCESS:
		return ane_fw_ctl_program(fw, hdr, body);
	case ANE_CTL_CACHE_REQUEST_INSTALL: {
		u64 handle = 0;
		int st;

		if (len != sizeof(struct ane_fw_cr_install))
			return ANE_FW_ST_INVALID;
		st = ane_fw_cr_install(fw, hdr, body, &handle);
		memcpy(out, &handle, sizeof(handle));
		*out_len = sizeof(handle);
		return st;
	}
	case ANE_CTL_CACHE_REQUEST_RECYCLE:
		if (len != sizeof(struct ane_fw_cr_recycle))
			return ANE_FW_ST_INVALID;
		return ane_fw_cr_recycle(fw, body);
	case ANE_CTL_CACHE_REQUEST_INVALIDATE:
		if (len != sizeof(struct ane_fw_cr_handle))
			return ANE_FW_ST_INVALID;
		return ane_fw_cr_invalidate(fw,
			((const struct ane_fw_cr_handle *)body)->cache_handler);
	case ANE_CTL_SET_ACTIVE_CACHE_REQUEST_IN_GROUP:
		if (len != sizeof(struct ane_fw_cr_group_select))
			return ANE_FW_ST_INVALID;
		return ane_fw_cr_group_select(fw, body);
	case ANE_CTL_FORCE_DISABLE_CACHE_REQUESTS: {
		const struct ane_fw_cr_force_disable *fd = body;

		if (len != sizeof(*fd) || fd->disable != 1 || fd->pad)
			return ANE_FW_ST_INVALID;
		fw->cr_disabled = true;
		return ANE_FW_ST_OK;
	}
	case ANE_CTL_PREMAP_BUFFER: {
		const struct ane_fw_premap *pm = body;

		if (len != sizeof(*pm) || pm->nbr_of_buffers != 1 ||
		    !pm->addr || !pm->size || upper_32_bits(pm->addr))
			return ANE_FW_ST_INVALID;
		fw->stats_premap_addr = pm->addr;
		fw->stats_premap_size = pm->size;
		return ANE_FW_ST_OK;
	}
	}
	return ANE_FW_ST_UNSUPPORTED;
}

/*
 * Commands that finish later (a procedure call, a trigger, a process
 * teardown) reply from where they finish; ane_fw_ctl_async() reports
 * whether @id is one and hands it on.
 */
static bool ane_fw_ctl_async(struct ane_fw *fw, u32 chan, u32 seq,
			     const struct ane_fw_cmd_hdr *hdr, const void *body)
{
	struct ane_fw_cmd_hdr h = *hdr;

	switch (hdr->id) {
	case ANE_CTL_PROCEDURE_CALL: {
		const struct ane_fw_proc_call *pc = body;

		if (!fw->endpoint_set)
			return false;
		/* with custom bars it is the 0x20c variant, checked as such */
		h.id = hdr->size >= sizeof(*pc) && pc->nbr_custom_bars ?
		       ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS :
		       ANE_CMD_PROCEDURE_CALL;
		ane_fw_exeloop_cmd(fw, chan, seq, &h, body);
		return true;
	}
	case ANE_CTL_CACHE_REQUEST_TRIGGER:
		if (!fw->endpoint_set)
			return false;
		h.id = ANE_CMD_CACHE_REQUEST_TRIGGER;
		ane_fw_exeloop_cmd(fw, chan, seq, &h, body);
		return true;
	case ANE_CTL_TERMINATE_PROCESS:
		if (hdr->process_id < 0 ||
		    hdr->process_id >= ANE_FW_MAX_PROCESSES)
			return false;
		/* never lost: refused if the queue is full after all */
		if (ane_fw_post_task(fw, ANE_FW_T_TERMINATOR,
				     ANE_FW_MSG_TERMINATE, hdr->process_id,
				     (u64)chan << 32 | seq))
			ane_fw_reply(fw, ANE_FW_CH_BUF_T2H, seq, hdr,
				     ANE_FW_ST_BUSY, NULL, 0);
		return true;
	}
	return false;
}

/* The server and the execution-loop pump share this ring reader. */
static enum ane_fw_result ane_fw_ring_handle(struct ane_fw *fw,
					     struct ane_fw_task *t, u32 ch)
{
	u32 reply_ch = ch == ANE_FW_CH_IO ? ANE_FW_CH_IO_T2H : ANE_FW_CH_BUF_T2H;
	struct ane_fw_cmd_hdr hdr;
	struct ane_fw_dump_cmd *log;
	u8 out[64];
	u32 seq, out_len;
	int st;

	/*
	 * Backpressure: room for our replies, for a new request, and on the
	 * control channels for a process teardown (the command is not read
	 * yet: any of them waits).
	 */
	if (fw->outbox_count + 2 > ANE_FW_NUM_OUTBOX ||
	    (ch == ANE_FW_CH_IO && !ane_fw_exec_can_accept(fw)) ||
	    (ch != ANE_FW_CH_IO && !ane_fw_terminator_has_room(fw))) {
		t->state = ANE_FW_TASK_BLOCKED;
		t->blocked_on = fw->outbox_count + 2 > ANE_FW_NUM_OUTBOX ?
				ane_fw_blocked_t2h : ch == ANE_FW_CH_IO ?
				"request pool" : ane_fw_blocked_term;
		return ANE_FW_BLOCK;
	}
	if (ane_fw_ring_peek(fw, ch, &hdr, &seq))
		return ANE_FW_DONE;
	log = ane_fw_cmd_log(fw, ch, seq, &hdr);

	st = ane_fw_hdr_check(&hdr, fw->ring[ch].slot_size);
	if (st) {
		/* the body is never read */
		fw->rejected++;
		ane_fw_print(fw, "ch %u seq %u: bad header id %#x size %u pri %u",
			     ch, seq, hdr.id, hdr.size, hdr.priority);
		if (ch == ANE_FW_CH_IO && !ane_fw_exeloop_accepts(hdr.id))
			ane_fw_panic(fw, ANE_FW_EXC_SYNC,
				     "Cmd 0x%x is not supported through ExeLoop cmd channel",
				     hdr.id);
		else
			ane_fw_reply(fw, reply_ch, seq, &hdr, st, NULL, 0);
		log->status = st;
		goto consume;
	}
	if (ane_fw_ring_body(fw, ch, seq, fw->cmdbuf, hdr.size)) {
		st = ANE_FW_ST_FAULT;
		ane_fw_reply(fw, reply_ch, seq, &hdr, st, NULL, 0);
		log->status = st;
		goto consume;
	}

	if (ch == ANE_FW_CH_IO) {
		st = ane_fw_exeloop_cmd(fw, ch, seq, &hdr, fw->cmdbuf);
		log->status = st;
		goto consume;
	}
	if (ane_fw_ctl_async(fw, ch, seq, &hdr, fw->cmdbuf)) {
		log->status = 0;
		goto consume;
	}
	st = ane_fw_ctl(fw, ch, seq, &hdr, fw->cmdbuf, out, &out_len);
	if (st)
		fw->rejected++;
	log->status = st;
	ane_fw_reply(fw, reply_ch, seq, &hdr, st, out, out_len);
consume:
	ane_fw_ring_consume(fw, ch);
	/* More waiting: come back after the other tasks had a turn. */
	ane_fw_post_again(fw, t - fw->tasks, ANE_FW_MSG_RING, ch);
	return ANE_FW_DONE;
}

static enum ane_fw_result ane_fw_server_handle(struct ane_fw *fw,
					       struct ane_fw_task *t,
					       const struct ane_fw_msg *m)
{
	if (m->type == ANE_FW_MSG_RING)
		return ane_fw_ring_handle(fw, t, m->arg);
	return ANE_FW_DONE;
}

enum ane_fw_result ane_fw_exeloop_task(struct ane_fw *fw,
				       struct ane_fw_task *t,
				       const struct ane_fw_msg *m)
{
	if (m->type == ANE_FW_MSG_RING)
		return ane_fw_ring_handle(fw, t, m->arg);
	return ane_fw_exeloop_handle(fw, t, m);
}

static enum ane_fw_result ane_fw_terminator_handle(struct ane_fw *fw,
						   struct ane_fw_task *t,
						   const struct ane_fw_msg *m)
{
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CTL_TERMINATE_PROCESS,
				      .process_id = m->arg, .program_id = -1 };
	u32 chan = m->data >> 32, seq = (u32)m->data;
	struct ane_fw_process *p;
	struct ane_fw_task *srv;

	/* this message leaves the queue: the server may post the next one */
	srv = &fw->tasks[ANE_FW_T_SERVER];
	if (srv->state == ANE_FW_TASK_BLOCKED &&
	    srv->blocked_on == ane_fw_blocked_term)
		srv->state = ANE_FW_TASK_RUNNABLE;
	if (m->type != ANE_FW_MSG_TERMINATE || m->arg >= ANE_FW_MAX_PROCESSES)
		return ANE_FW_DONE;
	p = &fw->processes[m->arg];
	hdr.program_id = p->program_id;
	if (p->state != ANE_FW_PROC_RUNNING) {
		ane_fw_reply(fw, ANE_FW_CH_BUF_T2H, seq, &hdr,
			     ANE_FW_ST_NOENT, NULL, 0);
		return ANE_FW_DONE;
	}
	p->state = ANE_FW_PROC_IDLE;
	ane_fw_reply(fw, chan == ANE_FW_CH_IO ? ANE_FW_CH_IO_T2H :
		     ANE_FW_CH_BUF_T2H, seq, &hdr, ANE_FW_ST_OK, NULL, 0);
	return ANE_FW_DONE;
}

/* The load monitor: busy share of the last second, every second. */
static enum ane_fw_result ane_fw_loadmon_handle(struct ane_fw *fw,
						struct ane_fw_task *t,
						const struct ane_fw_msg *m)
{
	if (m->type != ANE_FW_MSG_TIMER)
		return ANE_FW_DONE;
	fw->load_pct = div64_u64(fw->busy_ns - fw->load_busy_ns,
				 NSEC_PER_SEC / 100);
	fw->load_busy_ns = fw->busy_ns;
	ane_fw_timer_arm(fw, fw->load_timer, NSEC_PER_SEC, 0);
	return ANE_FW_DONE;
}

static enum ane_fw_result ane_fw_nop_handle(struct ane_fw *fw,
					    struct ane_fw_task *t,
					    const struct ane_fw_msg *m)
{
	return ANE_FW_DONE;
}

/* --------------------------------------------------------------- bring-up */

static const struct {
	u32 id;
	const char *name;
	u32 prio;
	ane_fw_handler_t handle;
} ane_fw_task_table[ANE_FW_NUM_TASKS] = {
	[ANE_FW_T_IDLE] = { ANE_FW_T_IDLE, "idle", 31, ane_fw_nop_handle },
	[ANE_FW_T_TERMINATOR] = { ANE_FW_T_TERMINATOR, "terminator", 20,
				  ane_fw_terminator_handle },
	[ANE_FW_T_EXELOOP] = { ANE_FW_T_EXELOOP, "exeloop", 4,
			       ane_fw_exeloop_task },
	[ANE_FW_T_ATM] = { ANE_FW_T_ATM, "atm", 6, ane_fw_nop_handle },
	[ANE_FW_T_TUNABLES] = { ANE_FW_T_TUNABLES, "tunables", 24,
				ane_fw_nop_handle },
	[ANE_FW_T_LOADMON] = { ANE_FW_T_LOADMON, "loadmon", 28,
			       ane_fw_loadmon_handle },
	[ANE_FW_T_INTMGR] = { ANE_FW_T_INTMGR, "intmgr", 1, ane_fw_nop_handle },
	[ANE_FW_T_CALLMGR] = { ANE_FW_T_CALLMGR, "callmgr", 8,
			       ane_fw_nop_handle },
	[ANE_FW_T_SERVER] = { ANE_FW_T_SERVER, "server", 10,
			      ane_fw_server_handle },
	[ANE_FW_T_RPCD] = { ANE_FW_T_RPCD, "rpcd", 12, ane_fw_nop_handle },
};

/* The real-time kernel: pools, the named tasks, their objects. */
static int ane_fw_kernel_init(struct ane_fw *fw)
{
	int i;

	ane_fw_rtos_init(fw);
	for (i = 0; i < ANE_FW_NUM_TASKS; i++)
		if (!ane_fw_task_create(fw, ane_fw_task_table[i].id,
					ane_fw_task_table[i].name,
					ane_fw_task_table[i].prio,
					ane_fw_task_table[i].handle))
			return -ENOSPC;
	fw->debug_space = ane_fw_sem_create(fw, "debug space", 0);
	fw->reset_mutex = ane_fw_mutex_create(fw, "reset");
	fw->load_timer = ane_fw_timer_alloc(fw, &fw->tasks[ANE_FW_T_LOADMON]);
	if (!fw->debug_space || !fw->reset_mutex || fw->load_timer < 0)
		return -ENOSPC;
	ane_fw_timer_arm(fw, fw->load_timer, NSEC_PER_SEC, 0);
	ane_fw_exec_init(fw);
	fw->engine_isa = ane_fw_engine_init();	/* the widest ISA the CPU has */
	return 0;
}

/* Carve the channels out of the shared region and publish the table. */
static int ane_fw_channels_init(struct ane_fw *fw)
{
	struct ane_fw_channel_table *tbl = (void *)fw->txbuf;
	u64 base = fw->args.shared_iova, off = ANE_FW_SHARED_START;
	int ch;

	static_assert(sizeof(*tbl) <= ANE_FW_CMDBUF);
	memset(tbl, 0, sizeof(*tbl));
	tbl->magic = ANE_FW_CHTBL_MAGIC;
	tbl->abi_version = ANE_FW_ABI_VERSION;
	tbl->chip_rev = ane_fw_rd(fw, ANE_REG_CHIP_REV);
	tbl->count = ANE_FW_NUM_CHANNELS;
	tbl->restart_count = fw->restart_count;

	for (ch = 0; ch < ANE_FW_NUM_CHANNELS; ch++) {
		struct ane_fw_channel_desc *d = &tbl->chan[ch];
		struct ane_fw_ring *r = &fw->ring[ch];
		struct ane_fw_ring_hdr rh = { };
		u64 size;

		strscpy(d->name, ane_fw_chan_layout[ch].name, sizeof(d->name));
		d->direction = ane_fw_chan_layout[ch].dir;
		if (d->direction == ANE_FW_CHAN_MEM) {
			size = ane_fw_chan_layout[ch].mem_size;
		} else {
			d->version = ANE_FW_RING_VERSION;
			d->slot_size = ane_fw_chan_layout[ch].slot_size;
			d->nslots = ane_fw_chan_layout[ch].nslots;
			size = sizeof(rh) + (u64)d->slot_size * d->nslots;
		}
		if (off + size > fw->args.shared_size)
			return ANE_FW_BOOT_E_SHARED;
		d->iova = base + off;
		d->size = size;
		off = ALIGN(off + size, 128);

		*r = (struct ane_fw_ring){ .iova = d->iova,
					   .slot_size = d->slot_size,
					   .nslots = d->nslots,
					   .dir = d->direction };
		if (d->direction == ANE_FW_CHAN_MEM) {
			fw->status_iova = d->iova;
			continue;
		}
		rh.version = ANE_FW_RING_VERSION;
		rh.slot_size = d->slot_size;
		rh.nslots = d->nslots;
		if (ane_hw_dma(fw->hw, 0, d->iova, &rh, sizeof(rh), true))
			return ANE_FW_BOOT_E_SHARED;
		/* validate the ring against the version constant */
		memset(&rh, 0, sizeof(rh));
		if (ane_hw_dma(fw->hw, 0, d->iova, &rh, sizeof(rh), false) ||
		    rh.version != ANE_FW_RING_VERSION ||
		    rh.nslots != d->nslots)
			return ANE_FW_BOOT_E_RING;
	}
	fw->chtbl_iova = base + ANE_FW_CHTBL_OFFSET;
	if (ane_hw_dma(fw->hw, 0, fw->chtbl_iova, tbl, sizeof(*tbl), true))
		return ANE_FW_BOOT_E_SHARED;
	return 0;
}

static void ane_fw_boot_fail(struct ane_fw *fw, u32 err)
{
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_ERROR), err);
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT), ANE_FW_BOOT_FAILED | err);
	ane_fw_raise(fw, ANE_HOST_IRQ_BOOT);
}

/* The reset-vector entry up to the third handshake.  Returns a boot error. */
static u32 ane_fw_boot(struct ane_fw *fw, u64 reset_vector)
{
	u64 args_iova, waited = 0;
	u32 i, mode;

	if (reset_vector != ANE_FW_BOOT_ADDR)
		return ANE_FW_BOOT_E_VECTOR;
	mode = ane_fw_rd(fw, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT));
	if (mode != ANE_FW_BOOT_WARM || fw->sram_magic != ANE_FW_SRAM_MAGIC) {
		fw->restart_count = 0;		/* cold: nothing retained */
		fw->sram_magic = ANE_FW_SRAM_MAGIC;
	}
	fw->boots++;
	if (ane_fw_kernel_init(fw))
		return ANE_FW_BOOT_E_HEAP;

	/* handshake 1: alive after the reset-vector handoff */
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_RESTARTS), fw->restart_count);
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT), ANE_FW_BOOT_ALIVE);
	ane_fw_raise(fw, ANE_HOST_IRQ_BOOT);

	args_iova = (u64)ane_fw_rd(fw, ANE_REG_SCRATCH(ANE_FW_SCR_ARGS_HI)) << 32 |
		    ane_fw_rd(fw, ANE_REG_SCRATCH(ANE_FW_SCR_ARGS_LO));
	if (ane_hw_dma(fw->hw, 0, args_iova, &fw->args, sizeof(fw->args),
		       false) || fw->args.magic != ANE_FW_ARGS_MAGIC) {
		fw->args.magic = 0;
		return ANE_FW_BOOT_E_ARGS;
	}
	if (fw->args.chip_rev != ane_fw_rd(fw, ANE_REG_CHIP_REV))
		return ANE_FW_BOOT_E_CHIP;
	if (fw->args.abi_version >> 16 != ANE_FW_ABI_MAJOR)
		return ANE_FW_BOOT_E_PROTO;
	/* the heap must exceed twice the framework reservation */
	if (fw->args.fw_reservation < ANE_FW_FRAMEWORK_RESERVATION ||
	    fw->args.heap_size <= 2 * fw->args.fw_reservation)
		return ANE_FW_BOOT_E_HEAP;
	i = ane_fw_channels_init(fw);
	if (i)
		return i;

	/* test: never reach the second wake */
	if (fw->args.flags & ANE_FW_ARGS_STALL_CHTBL) {
		while (!ane_fw_should_halt(fw)) {
			ane_fw_wfi(fw, U64_MAX);
			ane_fw_irq_take(fw);
		}
		return 0;
	}

	/* handshake 2: the channel table is ready */
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_CHTBL_LO),
		  lower_32_bits(fw->chtbl_iova));
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_CHTBL_HI),
		  upper_32_bits(fw->chtbl_iova));
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT), ANE_FW_BOOT_CHANNELS);
	ane_fw_raise(fw, ANE_HOST_IRQ_BOOT);

	while (ane_fw_rd(fw, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT)) !=
	       ANE_FW_BOOT_RESOLVED) {
		if (ane_fw_should_halt(fw))
			return 0;
		if (waited >= ANE_FW_BOOT_TIMEOUT_NS)
			return ANE_FW_BOOT_E_ARGS;
		ane_fw_wfi(fw, 10 * NSEC_PER_MSEC);
		ane_fw_irq_take(fw);
		waited += 10 * NSEC_PER_MSEC;
	}

	/* every control channel ready, in turn; then handshake 3 */
	for (i = 0; i < ANE_FW_NUM_CHANNELS; i++)
		fw->ring[i].ready = fw->ring[i].dir != ANE_FW_CHAN_MEM;
	if ((fw->args.abi_version & 0xffff) != ANE_FW_ABI_MINOR)
		ane_fw_print(fw, "protocol minor %u, firmware %u: continuing",
			     fw->args.abi_version & 0xffff, ANE_FW_ABI_MINOR);
	ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_ACK), ANE_FW_MAGIC1);
	ane_fw_raise(fw, ANE_HOST_IRQ_BOOT);
	return 0;
}

/* Interrupt dispatch: doorbell bits to the owning tasks' irq queues. */
static void ane_fw_intmgr(struct ane_fw *fw)
{
	u32 bits = ane_fw_irq_take(fw), eng, q;

	if (!bits)
		return;
	fw->in_irq = true;
	fw->current_task = &fw->tasks[ANE_FW_T_INTMGR];
	fw->tasks[ANE_FW_T_INTMGR].handled++;
	if (bits & ANE_FW_DB_H2T)
		ane_fw_post_once(fw, ANE_FW_T_SERVER, true, ANE_FW_MSG_RING,
				 ANE_FW_CH_BUF_H2T);
	if (bits & ANE_FW_DB_DCHAIN)
		ane_fw_post_once(fw, ANE_FW_T_SERVER, true, ANE_FW_MSG_RING,
				 ANE_FW_CH_DATA_CHAIN_H2T);
	if (bits & ANE_FW_DB_IO)
		ane_fw_post_once(fw, ANE_FW_T_EXELOOP, true, ANE_FW_MSG_RING,
				 ANE_FW_CH_IO);
	if (bits & ANE_FW_DB_CONSUMED)
		ane_fw_outbox_flush(fw);
	if (bits & ANE_FW_DB_ENGINE) {
		eng = ane_fw_rd(fw, ANE_REG_ENG_IRQ);
		ane_fw_wr(fw, ANE_REG_ENG_IRQ, eng);
		for (q = 0; q < ANE_FW_NUM_HWQ; q++)
			if (eng & BIT(q) &&
			    ane_fw_post_irq(fw, ANE_FW_T_EXELOOP,
					    ANE_FW_MSG_ENGINE, q, 0))
				ane_fw_panic(fw, ANE_FW_EXC_IRQ,
					     "exeloop interrupt queue full");
	}
	fw->in_irq = false;
	fw->current_task = NULL;
}

static int ane_fw_run(struct ane_hw *hw, void *ctx, u64 reset_vector)
{
	struct ane_fw *fw = ctx;
	u64 next, t0;
	u32 err;

	spin_lock_irq(&fw->irq_lock);
	fw->halt = false;
	fw->irqbuf_rd = fw->irqbuf_wr;
	spin_unlock_irq(&fw->irq_lock);
	/* Everything from @hw on is rebuilt at each boot. */
	ane_fw_programs_free(fw);
	memset((u8 *)fw + offsetof(struct ane_fw, hw), 0,
	       sizeof(*fw) - offsetof(struct ane_fw, hw));
	fw->hw = hw;
	fw->boot_ns = ktime_get_ns();

	err = ane_fw_boot(fw, reset_vector);
	if (err) {
		ane_fw_boot_fail(fw, err);
		while (!ane_fw_should_halt(fw)) {
			ane_fw_wfi(fw, U64_MAX);
			ane_fw_irq_take(fw);
		}
		ane_fw_programs_free(fw);
		return -EIO;
	}

	while (!ane_fw_should_halt(fw)) {
		ane_fw_intmgr(fw);
		next = ane_fw_timers_fire(fw, ane_fw_now(fw));
		t0 = ktime_get_ns();
		if (ane_fw_run_one(fw)) {
			fw->busy_ns += ktime_get_ns() - t0;
			if (fw->crashed) {
				ane_fw_crash(fw);
				break;
			}
			continue;
		}
		if (fw->crashed) {
			ane_fw_crash(fw);
			break;
		}
		ane_fw_wr(fw, ANE_REG_SCRATCH(ANE_FW_SCR_HEARTBEAT),
			  (u32)fw->handled);
		ane_fw_wfi(fw, next);
	}
	/* Nothing the firmware allocated outlives it. */
	ane_fw_programs_free(fw);
	return 0;
}

/* The interrupt handler: record, wake, return (no subsystem logic here). */
static void ane_fw_doorbell(struct ane_hw *hw, void *ctx, u32 bits)
{
	struct ane_fw *fw = ctx;
	unsigned long flags;

	spin_lock_irqsave(&fw->irq_lock, flags);
	if (fw->irqbuf_wr - fw->irqbuf_rd < ANE_FW_IRQBUF_DEPTH) {
		fw->irqbuf[fw->irqbuf_wr % ANE_FW_IRQBUF_DEPTH].bits = bits;
		fw->irqbuf_wr++;
	} else {
		/* coalesce into the newest record: doorbells are levels */
		fw->irqbuf[(fw->irqbuf_wr - 1) % ANE_FW_IRQBUF_DEPTH].bits |= bits;
		fw->irqbuf_lost++;
	}
	spin_unlock_irqrestore(&fw->irq_lock, flags);
	wake_up(&fw->wq);
}

static void ane_fw_halt(struct ane_hw *hw, void *ctx)
{
	struct ane_fw *fw = ctx;
	unsigned long flags;

	spin_lock_irqsave(&fw->irq_lock, flags);
	fw->halt = true;
	spin_unlock_irqrestore(&fw->irq_lock, flags);
	wake_up(&fw->wq);
}

static void ane_fw_sram_init(void *sram)
{
	struct ane_fw *fw = sram;

	spin_lock_init(&fw->irq_lock);
	init_waitqueue_head(&fw->wq);
}

static const struct ane_hw_cpu_ops ane_fw_cpu_ops = {
	.run = ane_fw_run,
	.doorbell = ane_fw_doorbell,
	.halt = ane_fw_halt,
};

/* The linked-in image. */
const struct ane_hw_cpu_image ane_fw_image = {
	.cpu = &ane_fw_cpu_ops,
	.sram_size = sizeof(struct ane_fw),
	.sram_init = ane_fw_sram_init,
	.boot_addr = ANE_FW_BOOT_ADDR,
	.build = ANE_FW_BUILD,
};
EXPORT_SYMBOL_IF_KUNIT(ane_fw_image);
