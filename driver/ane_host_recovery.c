// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware's crash path, host side (ch. 29): the dump pulled through
 * the DEBUG channel and rendered as the post-mortem text (devcoredump,
 * debugfs, the debug work processor), everything in flight failed, the
 * controller reset and booted again -- at once, or after a back-off that
 * doubles in a crash storm, up to giving up (DEAD) after repeated failed
 * boots -- and the faults the tests inject (debugfs ``inject``, KUnit).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/devcoredump.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <kunit/visibility.h>

#include "ane_host.h"
#include "ane_host_internal.h"
#include "ane_host_msg.h"
#include "ane_trace.h"

/**
 * ane_host_dump_msg() - one dump section from DEBUG into the raw dump
 * @h: the host side, @h->lock held.
 * @ch: the channel (DEBUG).
 * @hdr: the message header.
 * @body: the section: &struct ane_fw_dump_section_hdr and its data.
 */
void ane_host_dump_msg(struct ane_host *h, u32 ch,
		       const struct ane_fw_cmd_hdr *hdr, const u8 *body)
{
	const struct ane_fw_dump_section_hdr *sh = (const void *)body;
	size_t n;

	if (hdr->size < sizeof(*sh))
		return;
	n = sizeof(*sh) + sh->len;
	if (n > hdr->size || !h->dump || h->dump_len + n > ANE_HOST_DUMP_MAX)
		return;
	memcpy(h->dump + h->dump_len, sh, n);
	h->dump_len += n;
	if (sh->section == ANE_FW_DUMP_END)
		h->dump_done = true;
}

/**
 * ane_host_rate_ok() - may another recovery run now?
 * @ts: times of the last @n recoveries (0: none), oldest first.
 * @n: entries of @ts.
 * @now: the time.
 * @window: the window.
 *
 * At most @n recoveries per @window: a crash storm is refused, not looped.
 * On success @now is recorded.
 *
 * Return: true if allowed.
 */
bool ane_host_rate_ok(unsigned long *ts, u32 n, unsigned long now,
		      unsigned long window)
{
	u32 i;

	if (ts[0] && time_before(now, ts[0] + window))
		return false;
	for (i = 0; i + 1 < n; i++)
		ts[i] = ts[i + 1];
	ts[n - 1] = now;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ane_host_rate_ok);

static const char *ane_host_exc_name(u32 exc)
{
	static const char * const names[] = {
		"non-maskable interrupt", "interrupt", "fast interrupt",
		"synchronous abort",
	};

	return exc < ARRAY_SIZE(names) ? names[exc] : "unknown";
}

static const char *ane_host_task_state_str(u32 s)
{
	static const char * const names[] = {
		"RUNNABLE", "SUSPENDED", "WAITING", "SEMWAIT", "BLOCKED",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

/* Render the raw sections as the ch. 29 post-mortem text. */
static size_t ane_host_render_dump(const u8 *raw, size_t len, char *out,
				   size_t size, u32 recoveries)
{
	size_t o = 0, off = 0;
	u32 i;

	o += scnprintf(out + o, size - o,
		       "ane firmware crash dump (host recovery %u)\n",
		       recoveries);
	while (off + sizeof(struct ane_fw_dump_section_hdr) <= len) {
		const struct ane_fw_dump_section_hdr *sh = (const void *)(raw + off);
		const void *p = sh + 1;

		if (off + sizeof(*sh) + sh->len > len)
			break;
		switch (sh->section) {
		case ANE_FW_DUMP_HEADER: {
			const struct ane_fw_dump_header *hd = p;

			if (sh->len < sizeof(*hd))
				break;
			o += scnprintf(out + o, size - o,
				       "exception: %s\nreason: %.*s\ntask: %.*s (%s)\ncpu: %u\nrestart count: %u\nexecution loop: %u\nuptime: %llu ns\n",
				       ane_host_exc_name(hd->exc_class),
				       (int)sizeof(hd->reason), hd->reason,
				       (int)sizeof(hd->task), hd->task,
				       hd->in_irq ? "interrupt context" :
						    "task context",
				       hd->cpu, hd->restart_count,
				       hd->fsm_state, hd->uptime_ns);
			break;
		}
		case ANE_FW_DUMP_REGS: {
			const struct ane_fw_dump_regs *r = p;

			if (sh->len < sizeof(*r))
				break;
			o += scnprintf(out + o, size - o,
				       "esr %#018llx far %#018llx elr %#018llx\nl2c_err %#llx l2c_addr %#llx S3_3_C15_C8_0 %#llx\n",
				       r->esr, r->far, r->elr, r->l2c_err,
				       r->l2c_addr, r->fabric);
			for (i = 0; i < 31; i++)
				o += scnprintf(out + o, size - o,
					       "x%-2u %#018llx%s", i, r->x[i],
					       i % 4 == 3 || i == 30 ? "\n" : " ");
			break;
		}
		case ANE_FW_DUMP_CMD_RING: {
			const struct ane_fw_dump_cmd *c = p;
			u32 n = sh->len / sizeof(*c);

			o += scnprintf(out + o, size - o,
				       "recent commands (newest first): %u\n", n);
			for (i = 0; i < n; i++)
				o += scnprintf(out + o, size - o,
					       "  [%2u] %-14s seq %-6u id %#06x size %-5u pri %u prog %d proc %d procedure %u status %d t %llu\n",
					       i, c[i].chan < ANE_FW_NUM_CHANNELS ?
					       ane_host_chan_names[c[i].chan] : "?",
					       c[i].seq, c[i].id, c[i].hdr.size,
					       c[i].hdr.priority,
					       c[i].hdr.program_id,
					       c[i].hdr.process_id,
					       c[i].hdr.procedure_id,
					       c[i].status, c[i].ts_ns);
			break;
		}
		case ANE_FW_DUMP_TASKS: {
			const struct ane_fw_dump_task *t = p;
			u32 n = sh->len / sizeof(*t);

			o += scnprintf(out + o, size - o, "tasks:\n");
			for (i = 0; i < n; i++)
				o += scnprintf(out + o, size - o,
					       "  %-12.*s %-9s handled %u queued %u\n",
					       (int)sizeof(t[i].name), t[i].name,
					       ane_host_task_state_str(t[i].state),
					       t[i].handled, t[i].queued);
			break;
		}
		case ANE_FW_DUMP_END:
			o += scnprintf(out + o, size - o, "end of dump\n");
			break;
		}
		off += sizeof(*sh) + sh->len;
	}
	return o;
}

/*
 * The crash interrupt came: pull the dump (bounded), reset the controller
 * and the engine, publish the dump, fail what is left in flight.  Gate
 * held for writing.
 */
static void ane_host_collect(struct ane_host *h)
{
	char *text;
	size_t len;

	/* the firmware streams its dump; pull it until END (bounded) */
	wait_event_timeout(h->wq, READ_ONCE(h->dump_done),
			   msecs_to_jiffies(2000));
	spin_lock_irq(&h->lock);
	ane_host_drain(h, ANE_FW_CH_DEBUG, ane_host_dump_msg);
	spin_unlock_irq(&h->lock);

	/* reset the controller: nothing writes the dump any more */
	ane_wr(h, ANE_REG_CPU_CTRL, 0);
	dev_err(h->dev, "firmware crashed (restart %u): recovering\n",
		ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_RESTARTS)));

	h->recoveries++;
	trace_ane_recovery(h->dev, "crash", atomic_read(h->fw_state), h->recoveries);
	ane_dwp_save(h, h->dump, h->dump_len);
	text = vmalloc(ANE_HOST_DUMP_MAX);
	if (text) {
		len = ane_host_render_dump(h->dump, h->dump_len, text,
					   ANE_HOST_DUMP_MAX, h->recoveries);
		kfree(h->dump_text);
		h->dump_text = kmemdup(text, len + 1, GFP_KERNEL);
		h->dump_text_len = h->dump_text ? len : 0;
		dev_coredumpv(h->dev, text, len, GFP_KERNEL);
	}
	spin_lock_irq(&h->lock);
	h->dump_len = 0;
	h->dump_done = false;
	spin_unlock_irq(&h->lock);

	/* anything sent since the interrupt was refused; be sure */
	ane_host_cancel_all(h, -EIO);
	h->boot_needed = true;
}

/* Boot again later: the firmware stays down (RECOVERING) meanwhile. */
static void ane_host_defer(struct ane_host *h, const char *why)
{
	h->backoff_ms = h->backoff_ms ?
			min(2 * h->backoff_ms, ANE_HOST_BACKOFF_MAX_MS) :
			ANE_HOST_BACKOFF_MIN_MS;
	ane_host_set_state(h, ANE_FW_STATE_RECOVERING);
	trace_ane_recovery(h->dev, why, ANE_FW_STATE_RECOVERING, h->recoveries);
	ane_host_bootlog(h, "%s: next boot in %u ms", why, h->backoff_ms);
	dev_err(h->dev, "firmware %s: next boot in %u ms\n", why,
		h->backoff_ms);
	queue_delayed_work(system_long_wq, &h->recovery_work,
			   msecs_to_jiffies(h->backoff_ms));
}

/*
 * Boot the firmware that @h->boot_needed says is down.  A crash during
 * the boot leaves it to the recovery the crash queued; a failed boot is
 * tried again later, up to %ANE_HOST_BOOT_GIVEUP times in a row, then
 * the firmware is DEAD until a privileged reboot.  Gate held for writing.
 */
static int ane_host_restart(struct ane_host *h)
{
	bool crashed;
	int ret;

	ret = __ane_host_boot(h, true);
	if (!ret) {
		h->boot_needed = false;
		h->boot_fails = 0;
		trace_ane_recovery(h->dev, "booted", atomic_read(h->fw_state), h->recoveries);
		ane_host_pm_idle_again(h);
		return 0;
	}
	spin_lock_irq(&h->lock);
	crashed = h->crash_pending;
	spin_unlock_irq(&h->lock);
	if (crashed) {
		ane_host_set_state(h, ANE_FW_STATE_RECOVERING);
		return ret;
	}
	if (++h->boot_fails >= ANE_HOST_BOOT_GIVEUP) {
		ane_host_set_state(h, ANE_FW_STATE_DEAD);
		trace_ane_recovery(h->dev, "dead", ANE_FW_STATE_DEAD, h->recoveries);
		ane_host_bootlog(h, "%u boots failed in a row: dead until rebooted",
				 h->boot_fails);
		dev_err(h->dev, "firmware: %u boots failed in a row, giving up (fw_inject reboot)\n",
			h->boot_fails);
		return ret;
	}
	ane_host_defer(h, "boot failed");
	return ret;
}

/**
 * ane_host_boot_later() - a boot failed outside recovery: retry later
 * @h: the host side, gate held for writing.
 *
 * The probe's cold boot: it is tried again as a deferred recovery boot.
 */
void ane_host_boot_later(struct ane_host *h)
{
	h->boot_needed = true;
	h->boot_fails++;
	ane_host_defer(h, "boot failed");
}

/**
 * ane_host_recover() - the recovery work (&ane_host.recovery_work)
 * @work: the work.
 *
 * Collect a crash, then boot again at once -- or, in a crash storm (more
 * than %ANE_HOST_REC_MAX recoveries in %ANE_HOST_REC_WINDOW_MS),
 * after a backoff that doubles with each crash of the storm.  Also runs a
 * deferred boot.
 */
void ane_host_recover(struct work_struct *work)
{
	struct ane_host *h = container_of(to_delayed_work(work),
					     struct ane_host, recovery_work);
	bool crashed;

	down_write(&h->gate);
	if (!h->regs[ANE_BANK_ANE])
		goto out;
	spin_lock_irq(&h->lock);
	crashed = h->crash_pending;
	h->crash_pending = false;
	spin_unlock_irq(&h->lock);
	if (crashed) {
		ane_host_set_state(h, ANE_FW_STATE_RECOVERING);
		ane_host_collect(h);
		if (!ane_host_rate_ok(h->rec_ts, ANE_HOST_REC_MAX, jiffies,
				      msecs_to_jiffies(ANE_HOST_REC_WINDOW_MS))) {
			ane_host_defer(h, "crash storm");
			goto out;
		}
		h->backoff_ms = 0;
	}
	if (h->boot_needed)
		ane_host_restart(h);
out:
	up_write(&h->gate);
}

/* ---------------------------------------------------- faults for tests */

/**
 * ane_host_crash_now() - make the firmware fault (test)
 * @h: the host side; the caller (the boot) holds the gate.
 *
 * An unknown id on the execution-loop channel: the firmware faults.
 * Waits until the crash interrupt failed the command.
 */
void ane_host_crash_now(struct ane_host *h)
{
	int answer;

	ane_host_msg_io_ping(h, false, &answer);
}

/*
 * Reset and boot now, whatever the state: a crash not yet collected is
 * collected first, the rate limit and backoff start afresh.
 */
static int ane_host_reboot(struct ane_host *h)
{
	bool crashed;

	down_write(&h->gate);
	if (!h->regs[ANE_BANK_ANE]) {
		up_write(&h->gate);
		return -ENODEV;
	}
	/* a deferred boot is this one; a running recovery finds nothing */
	cancel_delayed_work(&h->recovery_work);
	spin_lock_irq(&h->lock);
	crashed = h->crash_pending;
	h->crash_pending = false;
	h->accepting = false;
	spin_unlock_irq(&h->lock);
	if (crashed) {
		ane_host_collect(h);
	} else {
		ane_wr(h, ANE_REG_CPU_CTRL, 0);
		ane_host_cancel_all(h, -EIO);
	}
	memset(h->rec_ts, 0, sizeof(h->rec_ts));
	h->backoff_ms = 0;
	h->boot_fails = 0;
	h->boot_needed = true;
	ane_host_set_state(h, ANE_FW_STATE_RECOVERING);
	up_write(&h->gate);
	/* the boot itself as the recovery runs it, behind the same gate */
	ane_host_recover(&h->recovery_work.work);
	return atomic_read(h->fw_state) == ANE_FW_STATE_READY ? 0 : -EIO;
}

/**
 * ane_host_inject() - fault injection (privileged: debugfs, KUnit)
 * @h: the host side.
 * @what: "crash" (an unknown id on the execution-loop channel), "hang"
 *	(hardware queue @arg never completes), "unhang", "abort-stuck"
 *	(aborting queue @arg fails), "stall-boot" (the next @arg boots
 *	never publish the channel table), "crash-boot" (the next @arg boots
 *	crash once up, before the programs are loaded again), "deadline"
 *	(@arg ms), "reboot" (reset and boot now, e.g. out of DEAD), "halt"
 *	(stop the firmware and leave it DEAD, as a boot that gave up),
 *	"dart-fault" (the firmware reads a payload at a device address
 *	nothing maps: its DMA faults in the DART and raises the "dart"
 *	interrupt line).
 * @arg: argument.
 *
 * Return: 0 or a negative errno.
 */
int ane_host_inject(struct ane_host *h, const char *what, u32 arg)
{
	int ret = 0;

	if (!strcmp(what, "crash")) {
		int answer;

		ret = ane_host_msg_io_ping(h, true, &answer);
		if (!ret)
			ret = answer == -EIO ? 0 : -EPROTO;
	} else if (!strcmp(what, "hang") || !strcmp(what, "unhang") ||
		   !strcmp(what, "abort-stuck")) {
		u32 reg = what[0] == 'a' ? ANE_REG_ENG_ABORT_STUCK :
					   ANE_REG_ENG_HANG;

		if (arg >= ANE_NUM_HW_QUEUES)
			return -EINVAL;
		down_read(&h->gate);
		if (!h->regs[ANE_BANK_ANE]) {
			ret = -ENODEV;
		} else if (what[0] == 'u') {
			ane_wr(h, ANE_REG_ENG_HANG, 0);
			ane_wr(h, ANE_REG_ENG_ABORT_STUCK, 0);
		} else {
			ane_wr(h, reg, ane_rd(h, reg) | BIT(arg));
		}
		up_read(&h->gate);
	} else if (!strcmp(what, "stall-boot")) {
		down_write(&h->gate);
		h->stall_boots = arg;
		up_write(&h->gate);
	} else if (!strcmp(what, "crash-boot")) {
		down_write(&h->gate);
		h->crash_boots = arg;
		up_write(&h->gate);
	} else if (!strcmp(what, "deadline")) {
		ret = ane_host_msg_ch_property_write(h, true,
						     ANE_FW_PROP_DEADLINE_MS,
						     arg);
	} else if (!strcmp(what, "dart-fault")) {
		u32 sum;

		/* the last page of the aperture: the base context never maps it */
		ret = ane_host_msg_rpc(h, ANE_DART_APERTURE_END - ANE_DART_PAGE_SIZE,
				       4, &sum);
		ret = ret == -EFAULT ? 0 : ret ? ret : -EPROTO;
	} else if (!strcmp(what, "reboot")) {
		ret = ane_host_reboot(h);
	} else if (!strcmp(what, "halt")) {
		/* as a boot that gave up: DEAD until "reboot" (libane tests) */
		down_write(&h->gate);
		cancel_delayed_work(&h->recovery_work);
		spin_lock_irq(&h->lock);
		h->accepting = false;
		h->crash_pending = false;
		spin_unlock_irq(&h->lock);
		h->boot_needed = false;
		if (h->regs[ANE_BANK_ANE]) {
			ane_wr(h, ANE_REG_CPU_CTRL, 0);
			ane_host_cancel_all(h, -EIO);
			ane_host_set_state(h, ANE_FW_STATE_DEAD);
		} else {
			ret = -ENODEV;
		}
		up_write(&h->gate);
	} else {
		ret = -EINVAL;
	}
	return ret;
}
