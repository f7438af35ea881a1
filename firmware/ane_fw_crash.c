// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fault handler: ane_fw_panic() records a failed invariant with the
 * emulated CPU's registers, and the main loop then takes the crash path,
 * which tells the host and streams the crash dump through the DEBUG
 * channel section by section.  The recent-command ring the dump replays
 * is kept here too.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/sprintf.h>
#include <linux/string.h>

#include "hw/ane_cpu.h"
#include "ane_fw.h"

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

/**
 * ane_fw_cmd_log() - remember a command in the recent-command ring
 * @fw: the firmware.
 * @chan: the channel it came on.
 * @seq: its ring index.
 * @hdr: its header.
 *
 * The crash dump replays the ring.
 *
 * Return: the entry, whose status the caller sets once it is known.
 */
struct ane_fw_dump_cmd *ane_fw_cmd_log(struct ane_fw *fw, u32 chan, u32 seq,
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

	if (total > fw->ring[ANE_FW_CH_DEBUG].slot_size)
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

/**
 * ane_fw_fill_tasks() - the tasks as the dump and the status page show them
 * @fw: the firmware.
 * @out: filled with one entry per task slot.
 * @max: room in @out.
 * @n: set to the entries filled.
 */
void ane_fw_fill_tasks(struct ane_fw *fw, struct ane_fw_dump_task *out,
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

/**
 * ane_fw_crash() - the crash path, after ane_fw_panic()
 * @fw: the firmware.
 *
 * Counts the restart, tells the host (reset notification, CRASHED in
 * scratch 7, the crash interrupt), then streams the dump section by
 * section through DEBUG and waits for reset.
 */
void ane_fw_crash(struct ane_fw *fw)
{
	struct ane_fw_reset_note note;
	struct ane_fw_dump_header h = { };
	struct ane_fw_dump_task *tasks = fw->crash_scratch.tasks;
	struct ane_fw_dump_cmd *cmds = fw->crash_scratch.cmds;
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
