/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host side of the firmware: boot handshake, the rings, requests and
 * their replies, notifications, crash dumps and recovery.  The interface
 * the rest of the driver uses; ane_host_msg.h has the typed messages, and
 * ane_host_internal.h what the host side's own files share.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_HOST_H__
#define __ANE_HOST_H__

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ane_dart.h"
#include "ane_gem.h"
#include "firmware/spec/ane_fw_abi.h"
#include "firmware/spec/ane_regs.h"

struct ane_device;
struct regmap;
struct dentry;
struct drm_file;
struct drm_gem_object;

#define ANE_HOST_SHARED_SIZE		(512 * 1024)
#define ANE_HOST_HEAP_SIZE		(256 * 1024)
#define ANE_HOST_BOOT_RETRIES	3
#define ANE_HOST_REC_MAX		3	/* recoveries ... */
#define ANE_HOST_REC_WINDOW_MS	60000	/* ... per window */
#define ANE_HOST_BOOTLOG		48
#define ANE_HOST_LOG			64
#define ANE_HOST_DUMP_MAX		(64 * 1024)
#define ANE_HOST_DATA		64
/* Longest a send waits for room in a full command ring (async sends). */
#define ANE_HOST_SEND_WAIT_MS	2000
/* A sender waiting for room looks again this often, interrupt or not. */
#define ANE_HOST_SPACE_POLL_MS	10
/* Backoff of a deferred boot (crash storm, failed boot): doubles ... */
#define ANE_HOST_BACKOFF_MIN_MS	1000
#define ANE_HOST_BACKOFF_MAX_MS	32000	/* ... up to this */
/* Consecutive failed boots after which recovery gives up (DEAD). */
#define ANE_HOST_BOOT_GIVEUP		8
/*
 * How long a lifecycle command (load, create, terminate, unload) may take.
 * A release the firmware does not confirm in time leaves its slot stale,
 * retried later (Documentation/accel/ane/recovery.rst); a longer wait
 * would only hold the caller's ioctl past its own timeout.
 */
#define ANE_HOST_CALL_MS		2000

/**
 * struct ane_host_resident - a program the firmware holds for a client
 * @node: in &ane_host.residents while loaded.
 * @slot: its firmware program slot (-1 when not loaded).
 * @pid: its firmware process id (-1 when not loaded).
 * @load: the LOAD_PROGRAM body: image address, size, procedure count.
 *
 * Embedded in the driver's program; owned by &ane_host once
 * ane_host_load() succeeded, until ane_host_unload().  Every field
 * is protected by &ane_host.res_lock while on the list.
 */
struct ane_host_resident {
	struct list_head node;
	s32 slot;
	s32 pid;
	struct ane_fw_load_program load;
};

/**
 * struct ane_host_hreq - one command sent to the firmware, until answered
 * @node: in &ane_host.pending while outstanding, in &ane_host.backlog
 *	while it waits for room in its ring.
 * @chan: the H2T channel it went on.
 * @seq: its ring index there.
 * @id: its command id.
 * @status: 0, or the errno the answer maps to (-EIO after a reset).
 * @fw_status: &enum ane_fw_status of the answer.
 * @len: bytes of @data.
 * @data: reply data or the completion event body.
 * @done: completed when answered (if @complete is NULL).
 * @complete: called instead of @done, under &ane_host.lock: must not
 *	sleep nor send.
 * @priv: the caller's.
 * @pm_dev: the device it holds a runtime PM usage reference on
 *	(&ane_host.pm_dev), dropped when it leaves &ane_host.pending or
 *	&ane_host.backlog; NULL for none.
 * @deferred: on &ane_host.backlog, the command as it will be written
 *	(header, then body); freed once written or failed.
 */
struct ane_host_hreq {
	struct list_head node;
	u32 chan;
	u32 seq;
	u32 id;
	int status;
	s32 fw_status;
	u32 len;
	u8 data[ANE_HOST_DATA];
	struct completion done;
	void (*complete)(struct ane_host_hreq *rq);
	void *priv;
	struct device *pm_dev;
	void *deferred;
};

/* A ring as the host sees it: the kernel mapping of shared memory. */
struct ane_host_ring {
	struct ane_fw_ring_hdr *hdr;
	u8 *slots;
	u32 slot_size;
	u32 nslots;
	u32 dir;
	u32 idx;	/* H2T: our head; T2H: our tail */
	bool ok;
};

/**
 * struct ane_host - the host side of one engine's firmware
 * @dev: the device (logs, devcoredump).
 * @adev: the DRM device, NULL in KUnit.
 * @regs: the engine's register banks (regmaps, by &enum ane_hw_bank);
 *	@regs[ANE_BANK_ANE] is NULL outside setup and teardown.
 * @boot_addr: the reset vector the controller's ROM boots from.
 * @irq: the host interrupt line.
 * @irq_name: its name in /proc/interrupts.
 * @fw_state: where &enum drm_ane_fw_state is published (GetStatus).
 * @shared: the shared region (boot args, channel table, rings).
 * @heap: the firmware heap arena.
 * @shared_va: kernel address of @shared.
 * @shared_iova: device address of @shared.
 * @shared_size: its size.
 * @heap_iova: device address of @heap.
 * @heap_size: its size.
 * @gate: the single command gate.  Senders hold it for reading while
 *	they write a ring (program load and unload for their whole command
 *	sequence); recovery, boot and teardown hold it for writing, so a
 *	boot never interleaves with a load or unload.  Nests inside the
 *	client's &ane_file.prog_lock (prepare, unprepare, destroy, release),
 *	outside @res_lock, @dwp_lock, @lock and the hardware's CPU lock.
 *	Recovery never takes a client's lock.
 * @lock: protects @ring indices, @pending, @backlog, @accepting,
 *	@crash_pending,
 *	the dump being pulled (@dump, @dump_len, @dump_done), @log and the
 *	counters below.  Taken in the interrupt path (the firmware's
 *	context); innermost but for the hardware's register lock.
 * @ring: the resolved channels.
 * @pending: commands sent and not yet answered.
 * @backlog: commands accepted for the I/O ring while it was full, oldest
 *	first (ane_host_send_queued()); written in order by @backlog_work as
 *	the firmware frees slots, before any later command on that ring.
 * @backlog_work: writes @backlog out: queued by the interrupt that says
 *	a ring has room, and again every %ANE_HOST_SPACE_POLL_MS while
 *	commands wait.
 * @accepting: the rings are resolved and the firmware takes commands.
 * @crash_pending: the crash interrupt came and recovery has not yet
 *	collected the dump.
 * @wq: boot and dump waits.
 * @space_wq: senders waiting for room in a full command ring.
 * @recovery_work: the recovery: queued at once by the crash interrupt,
 *	later for a deferred boot.
 * @rec_ts: when the last recoveries ran (jiffies), for the rate limit.
 * @boot_needed: the firmware is down and a (deferred) boot is due.  Under
 *	the gate, as are @backoff_ms, @boot_fails and @crash_boots.
 * @backoff_ms: the delay of the last deferred boot, 0 when none.
 * @boot_fails: consecutive failed boots.
 * @crash_boots: test: boots that crash once up, before the reload.
 * @stale_lock: one retry of the stale releases at a time.  Inside the
 *	gate (read), outside @res_lock.
 * @res_lock: protects @residents, @slots, @pids, @stale, @stale_pid,
 *	@reloads and the residents' fields.  Inside the gate, outside @lock.
 * @residents: the programs loaded for clients (&struct ane_host_resident),
 *	loaded again by every boot.
 * @slots: firmware program slots in use (resident or stale).
 * @pids: firmware process ids in use (resident or stale).
 * @stale: slots whose release the firmware has not confirmed (a
 *	timeout): not reused until it does, or until the next boot.
 * @stale_pid: the process id of each stale slot.
 * @reloads: programs loaded again by boots after a crash or reset.
 * @recoveries: recoveries so far.
 * @boots: boots so far.
 * @boot_failures: second wakes that never came, and failed boots.
 * @ring_waits: sends that found their ring full and waited.
 * @backlogged: commands that waited on @backlog.
 * @backlog_len: commands on @backlog now.
 * @backlog_peak: the most that were on it at once.
 * @irqs: host interrupts taken.
 * @notes: notifications received (errors, resets, signposts, chaining).
 * @errors: error notifications.
 * @resets: reset notifications.
 * @chain_events: data-chaining events.
 * @res: the resource information the boot query returned.
 * @dump: the dump sections being pulled (raw).
 * @dump_len: bytes in @dump.
 * @dump_done: the END section arrived.
 * @dump_text: the last crash dump, rendered (for debugfs).
 * @dump_text_len: its length.
 * @bootlog: the steps of the last boots, newest last.
 * @bootlog_n: lines written.
 * @log: lines drained from TERMINAL.
 * @log_n: lines written.
 * @stall_boots: test: boots that stall before the second wake.
 * @dir: debugfs directory.
 * @dwp_lock: protects every @dwp_* field (the debug work processor).
 * @dwp_owner: the file registered as debug work processor (compared,
 *	never dereferenced), or NULL.
 * @dwp_obj: its buffer (a reference), or NULL once released.
 * @dwp_vaddr: kernel mapping of @dwp_obj.
 * @dwp_size: usable bytes of @dwp_obj.
 * @dwp_raw: the debug items: the sections of the last crash dump.
 * @dwp_raw_len: bytes of @dwp_raw.
 * @dwp_done: items completed (bit n-1 for item n).
 * @pm_dev: the device whose runtime PM powers the engine (NULL: none, as in
 *	KUnit).  A command sent through the gate holds a usage reference on
 *	it from before its send until it is answered or taken back
 *	(&ane_host_hreq.pm_dev), so the engine never powers down under one.
 * @suspends: runtime suspends (power-downs) so far.
 * @resumes: runtime resumes (warm boots) so far.
 */
struct ane_host {
	struct device *dev;
	struct ane_device *adev;
	struct regmap *regs[ANE_NUM_BANKS];
	u64 boot_addr;
	int irq;
	char irq_name[32];
	atomic_t *fw_state;
	struct ane_kbuf shared;
	struct ane_kbuf heap;
	void *shared_va;
	u64 shared_iova;
	size_t shared_size;
	u64 heap_iova;
	size_t heap_size;

	struct rw_semaphore gate;	/* the command gate */
	spinlock_t lock;		/* rings, pending, dump, log, counters */
	struct ane_host_ring ring[ANE_FW_NUM_CHANNELS];
	struct list_head pending;
	struct list_head backlog;
	struct delayed_work backlog_work;
	bool accepting;
	bool crash_pending;
	wait_queue_head_t wq;
	wait_queue_head_t space_wq;
	struct delayed_work recovery_work;
	unsigned long rec_ts[ANE_HOST_REC_MAX];
	bool boot_needed;
	u32 backoff_ms;
	u32 boot_fails;
	u32 crash_boots;

	struct mutex stale_lock;	/* retries of stale releases */
	struct mutex res_lock;		/* residents, slots, pids, stale */
	struct list_head residents;
	DECLARE_BITMAP(slots, ANE_FW_MAX_PROGRAMS);
	DECLARE_BITMAP(pids, ANE_FW_MAX_PROCESSES);
	DECLARE_BITMAP(stale, ANE_FW_MAX_PROGRAMS);
	s32 stale_pid[ANE_FW_MAX_PROGRAMS];
	u32 reloads;

	u32 recoveries;
	u32 boots;
	u32 boot_failures;
	u64 ring_waits;
	u64 backlogged;
	u32 backlog_len;
	u32 backlog_peak;
	u64 irqs;
	u64 notes;
	u64 errors;
	u64 resets;
	u64 chain_events;
	struct ane_fw_resource_info res;

	u8 *dump;
	size_t dump_len;
	bool dump_done;
	char *dump_text;
	size_t dump_text_len;

	char bootlog[ANE_HOST_BOOTLOG][80];
	u32 bootlog_n;
	char log[ANE_HOST_LOG][104];
	u32 log_n;
	u32 stall_boots;
	struct dentry *dir;

	struct mutex dwp_lock;		/* the debug work processor */
	struct drm_file *dwp_owner;
	struct drm_gem_object *dwp_obj;
	void *dwp_vaddr;
	u64 dwp_size;
	u8 *dwp_raw;
	size_t dwp_raw_len;
	u64 dwp_done;
	struct device *pm_dev;
	u32 suspends;
	u32 resumes;
};

int ane_host_init(struct ane_device *adev);

int ane_host_setup(struct ane_host *h, struct device *dev,
		   struct regmap *const regs[ANE_NUM_BANKS], u64 boot_addr,
		   int irq, atomic_t *fw_state);
void ane_host_teardown(struct ane_host *h);
int ane_host_boot(struct ane_host *h, bool warm);
void ane_host_boot_later(struct ane_host *h);
int ane_host_send(struct ane_host *h, struct ane_host_hreq *rq, u32 chan,
		  const struct ane_fw_cmd_hdr *hdr, const void *body);
int ane_host_send_queued(struct ane_host *h, struct ane_host_hreq *rq,
			 u32 chan, const struct ane_fw_cmd_hdr *hdr,
			 const void *body);
int ane_host_call(struct ane_host *h, u32 chan, u32 id, const void *body,
		  u32 len, void *out, u32 out_len, unsigned int timeout_ms);
int ane_host_call_hdr(struct ane_host *h, u32 chan,
		      const struct ane_fw_cmd_hdr *hdr, const void *body,
		      void *out, u32 out_len, unsigned int timeout_ms);
int ane_host_call_raw(struct ane_host *h, u32 chan,
		      const struct ane_fw_cmd_hdr *hdr, const void *body,
		      void *out, u32 *out_len, unsigned int timeout_ms);
int ane_host_ping(struct ane_host *h);
int ane_host_suspend(struct ane_host *h);
int ane_host_resume(struct ane_host *h);
int ane_host_pm_get(struct ane_host *h);
bool ane_host_pm_get_if_up(struct ane_host *h);
void ane_host_pm_put(struct ane_host *h);
int ane_host_load(struct ane_host *h, struct ane_host_resident *r,
		  const struct ane_fw_load_program *lp);
void ane_host_unload(struct ane_host *h, struct ane_host_resident *r);
typedef void (*ane_host_msg_fn)(struct ane_host *h, u32 ch,
				   const struct ane_fw_cmd_hdr *hdr,
				   const u8 *body);
bool ane_host_drain(struct ane_host *h, u32 ch, ane_host_msg_fn msg);
int ane_host_inject(struct ane_host *h, const char *what, u32 arg);
bool ane_host_rate_ok(unsigned long *ts, u32 n, unsigned long now,
		      unsigned long window);
int ane_host_status_errno(s32 fw_status);
void ane_dwp_save(struct ane_host *h, const u8 *raw, size_t len);
void ane_dwp_fini(struct ane_host *h);

#endif /* __ANE_HOST_H__ */
