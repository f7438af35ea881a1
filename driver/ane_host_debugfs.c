// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware's debugfs views and knobs:
 *
 *   fw_state   state, counters, resource information and the boot log
 *   fw_status  the firmware's task list, pools and counters (CONFIG_GET),
 *              the engine's instruction set and operations run on each
 *   fw_log     the TERMINAL channel
 *   fw_crash   the last crash dump (also in /sys/class/devcoredump)
 *   fw_ping    read: one no-op round trip through the rings, in ns
 *   fw_programs the program slots and process ids in use: each resident
 *              program, and releases the firmware has not confirmed
 *   fw_inject  write: "crash", "hang N", "unhang", "abort-stuck N",
 *              "stall-boot N", "crash-boot N", "deadline MS", "halt",
 *              "reboot"
 *
 * debugfs is root-only, so the knobs are privileged by construction.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/ane_accel.h>

#include "ane_drv.h"
#include "ane_host.h"
#include "ane_host_internal.h"
#include "ane_host_msg.h"

static const char *ane_host_state_str(int s)
{
	static const char * const names[] = {
		"off", "booting", "ready", "recovering", "dead", "suspended",
	};

	return s >= 0 && s < ARRAY_SIZE(names) ? names[s] : "?";
}

/* Enter the device: refused once unplugged (the controller is gone). */
static struct ane_host *ane_host_dbg_enter(struct ane_host *h, int *idx)
{
	if (!h->adev)
		return h;
	if (!drm_dev_enter(&h->adev->drm, idx))
		return NULL;
	return h;
}

static void ane_host_dbg_exit(struct ane_host *h, int idx)
{
	if (h->adev)
		drm_dev_exit(idx);
}

static int ane_host_state_show(struct seq_file *m, void *data)
{
	struct ane_host *h = m->private;
	u32 i, n;

	seq_printf(m, "state: %s\n", ane_host_state_str(atomic_read(h->fw_state)));
	spin_lock_irq(&h->lock);
	seq_printf(m, "boots: %u\nboot failures: %u\nrecoveries: %u\n",
		   h->boots, h->boot_failures, h->recoveries);
	seq_printf(m, "boots failed in a row: %u\nnext boot backoff: %u ms\nprograms loaded again: %u\nfull ring waits: %llu\n",
		   READ_ONCE(h->boot_fails), READ_ONCE(h->backoff_ms),
		   READ_ONCE(h->reloads), h->ring_waits);
	seq_printf(m, "runtime suspends: %u\nruntime resumes: %u\n",
		   h->suspends, h->resumes);
	seq_printf(m, "backlog: %u\nbacklog peak: %u\nbacklogged: %llu\n",
		   h->backlog_len, h->backlog_peak, h->backlogged);
	seq_printf(m, "irqs: %llu\nnotifications: %llu (errors %llu, resets %llu, chaining %llu)\n",
		   h->irqs, h->notes, h->errors, h->resets, h->chain_events);
	seq_printf(m, "resources: engines %u, cache requests %u, trigger inputs %u, procedures %u, programs %u, in flight %u, hw queues %u\n",
		   h->res.num_engines, h->res.max_cache_requests,
		   h->res.max_cache_inputs, h->res.max_procedures,
		   h->res.max_programs, h->res.max_inflight,
		   h->res.num_hw_queues);
	seq_puts(m, "boot log:\n");
	n = min_t(u32, h->bootlog_n, ANE_HOST_BOOTLOG);
	for (i = h->bootlog_n - n; i != h->bootlog_n; i++)
		seq_printf(m, "  %s\n", h->bootlog[i % ANE_HOST_BOOTLOG]);
	spin_unlock_irq(&h->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ane_host_state);

static const char *ane_host_fsm_str(u32 s)
{
	static const char * const names[] = {
		"INIT", "RUN", "EXEC", "EXEC-SECURE", "PAUSE",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

static const char *ane_host_task_str(u32 s)
{
	static const char * const names[] = {
		"RUNNABLE", "SUSPENDED", "WAITING", "SEMWAIT", "BLOCKED",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

static const char *ane_host_isa_str(u32 isa)
{
	static const char * const names[] = {
		[ANE_FW_ENGINE_ISA_SSE2] = "sse2",
		[ANE_FW_ENGINE_ISA_AVX2] = "avx2+fma+f16c",
		[ANE_FW_ENGINE_ISA_AVX512] = "avx512",
	};

	static_assert(ARRAY_SIZE(names) == ANE_FW_ENGINE_ISAS);
	return isa < ARRAY_SIZE(names) ? names[isa] : "?";
}

static int ane_host_status_show(struct seq_file *m, void *data)
{
	struct ane_host *h = m->private;
	struct ane_fw_status_page *p;
	u64 iova, size;
	int idx, ret;
	u32 i;

	if (!ane_host_dbg_enter(h, &idx))
		return -ENODEV;
	ret = ane_host_msg_config_get(h, &iova, &size);
	if (ret) {
		seq_printf(m, "firmware not answering: %d (state %s)\n", ret,
			   ane_host_state_str(atomic_read(h->fw_state)));
		goto out;
	}
	p = iova >= h->shared_iova &&
	    iova - h->shared_iova + sizeof(*p) <= h->shared_size ?
	    (void *)((u8 *)h->shared_va + (iova - h->shared_iova)) : NULL;
	if (!p || p->magic != ANE_FW_STATUS_MAGIC) {
		seq_puts(m, "bad status page\n");
		goto out;
	}
	seq_printf(m, "execution loop: %s%s\nrestarts: %u\nin flight: %u\npending: %u\n",
		   ane_host_fsm_str(p->fsm_state), p->secure ? " (secure)" : "",
		   p->restart_count, p->inflight, p->pending);
	seq_printf(m, "completed: %llu\ndropped (process not running): %llu\nrejected: %llu\ndeadline aborts: %llu\nchaining triggers dropped: %llu\nT2H ring full: %llu\nuptime: %llu ns\n",
		   p->completed, p->dropped_not_running, p->rejected,
		   p->deadline_aborts, p->chain_dropped, p->ring_full,
		   p->uptime_ns);
	seq_printf(m, "signal events: %llu\n", p->events_signaled);
	seq_printf(m, "waiting calls: %u\n", p->waiting);
	seq_printf(m, "engine isa: %s\nengine ops: %s %llu, %s %llu, %s %llu\n",
		   ane_host_isa_str(p->engine_isa),
		   ane_host_isa_str(ANE_FW_ENGINE_ISA_SSE2),
		   p->engine_ops[ANE_FW_ENGINE_ISA_SSE2],
		   ane_host_isa_str(ANE_FW_ENGINE_ISA_AVX2),
		   p->engine_ops[ANE_FW_ENGINE_ISA_AVX2],
		   ane_host_isa_str(ANE_FW_ENGINE_ISA_AVX512),
		   p->engine_ops[ANE_FW_ENGINE_ISA_AVX512]);
	seq_puts(m, "tasks:\n");
	for (i = 0; i < min_t(u32, p->ntasks, ANE_FW_STATUS_TASKS); i++)
		seq_printf(m, "  %-12.*s %-9s handled %u queued %u\n",
			   (int)sizeof(p->tasks[i].name), p->tasks[i].name,
			   ane_host_task_str(p->tasks[i].state),
			   p->tasks[i].handled, p->tasks[i].queued);
	seq_puts(m, "pools (total/available):\n");
	for (i = 0; i < min_t(u32, p->npools, ANE_FW_STATUS_POOLS); i++)
		seq_printf(m, "  %-12.*s %u/%u\n",
			   (int)sizeof(p->pools[i].name), p->pools[i].name,
			   p->pools[i].total, p->pools[i].avail);
out:
	ane_host_dbg_exit(h, idx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ane_host_status);

static int ane_host_programs_show(struct seq_file *m, void *data)
{
	struct ane_host *h = m->private;
	struct ane_host_resident *r;
	unsigned int slot;

	mutex_lock(&h->res_lock);
	seq_printf(m, "slots in use: %u of %u\nprocesses in use: %u of %u\nstale: %u\nloaded again: %u\n",
		   bitmap_weight(h->slots, ANE_FW_MAX_PROGRAMS),
		   ANE_FW_MAX_PROGRAMS,
		   bitmap_weight(h->pids, ANE_FW_MAX_PROCESSES),
		   ANE_FW_MAX_PROCESSES,
		   bitmap_weight(h->stale, ANE_FW_MAX_PROGRAMS), h->reloads);
	list_for_each_entry(r, &h->residents, node)
		seq_printf(m, "slot %3d process %3d image %#llx size %llu procedures %u\n",
			   r->slot, r->pid, r->load.image_iova,
			   r->load.image_size, r->load.proc_nbr);
	for_each_set_bit(slot, h->stale, ANE_FW_MAX_PROGRAMS)
		seq_printf(m, "slot %3u process %3d stale\n", slot,
			   h->stale_pid[slot]);
	mutex_unlock(&h->res_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ane_host_programs);

/* One TERMINAL line into the kept log.  Under @h->lock. */
static void ane_host_log_msg(struct ane_host *h, u32 ch,
			     const struct ane_fw_cmd_hdr *hdr, const u8 *body)
{
	strscpy(h->log[h->log_n++ % ANE_HOST_LOG], (const char *)body,
		min_t(u32, hdr->size, sizeof(h->log[0])));
}

static int ane_host_log_show(struct seq_file *m, void *data)
{
	struct ane_host *h = m->private;
	u32 i, n;
	int idx;

	if (!ane_host_dbg_enter(h, &idx))
		return -ENODEV;
	spin_lock_irq(&h->lock);
	/* the firmware drops lines on a full TERMINAL: it never asks */
	ane_host_drain(h, ANE_FW_CH_TERMINAL, ane_host_log_msg);
	n = min_t(u32, h->log_n, ANE_HOST_LOG);
	for (i = h->log_n - n; i != h->log_n; i++)
		seq_printf(m, "%s\n", h->log[i % ANE_HOST_LOG]);
	spin_unlock_irq(&h->lock);
	ane_host_dbg_exit(h, idx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ane_host_log);

static int ane_host_crash_show(struct seq_file *m, void *data)
{
	struct ane_host *h = m->private;

	down_read(&h->gate);
	if (h->dump_text)
		seq_write(m, h->dump_text, h->dump_text_len);
	else
		seq_puts(m, "no crash\n");
	up_read(&h->gate);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ane_host_crash);

static ssize_t ane_host_ping_read(struct file *f, char __user *buf, size_t len,
				  loff_t *pos)
{
	struct ane_host *h = f->private_data;
	char out[32];
	u64 t0;
	int idx, ret, n;

	if (*pos)
		return 0;	/* one round trip per read from offset 0 */
	if (!ane_host_dbg_enter(h, &idx))
		return -ENODEV;
	t0 = ktime_get_ns();
	ret = ane_host_ping(h);
	t0 = ktime_get_ns() - t0;
	ane_host_dbg_exit(h, idx);
	if (ret)
		return ret;
	n = scnprintf(out, sizeof(out), "%llu\n", t0);
	if (len < n)
		return -EINVAL;
	if (copy_to_user(buf, out, n))
		return -EFAULT;
	*pos += n;
	return n;
}

static const struct file_operations ane_host_ping_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = ane_host_ping_read,
	.llseek = noop_llseek,
};

static ssize_t ane_host_inject_write(struct file *f, const char __user *ubuf,
				     size_t len, loff_t *pos)
{
	struct ane_host *h = f->private_data;
	char buf[32], *arg;
	u32 val = 0;
	int idx, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	strim(buf);
	arg = strchr(buf, ' ');
	if (arg) {
		*arg++ = 0;
		if (kstrtou32(skip_spaces(arg), 0, &val))
			return -EINVAL;
	}
	if (!ane_host_dbg_enter(h, &idx))
		return -ENODEV;
	ret = ane_host_inject(h, buf, val);
	ane_host_dbg_exit(h, idx);
	return ret ? ret : len;
}

static const struct file_operations ane_host_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ane_host_inject_write,
	.llseek = noop_llseek,
};

/**
 * ane_host_debugfs_init() - the firmware's debugfs files
 * @h: the host side.
 * @root: the DRM device's debugfs directory, or NULL for none.
 */
void ane_host_debugfs_init(struct ane_host *h, struct dentry *root)
{
	if (!root)
		return;
	debugfs_create_file("fw_state", 0400, root, h, &ane_host_state_fops);
	debugfs_create_file("fw_status", 0400, root, h, &ane_host_status_fops);
	debugfs_create_file("fw_log", 0400, root, h, &ane_host_log_fops);
	debugfs_create_file("fw_crash", 0400, root, h, &ane_host_crash_fops);
	debugfs_create_file("fw_ping", 0400, root, h, &ane_host_ping_fops);
	debugfs_create_file("fw_programs", 0400, root, h,
			    &ane_host_programs_fops);
	debugfs_create_file("fw_inject", 0200, root, h, &ane_host_inject_fops);
}
