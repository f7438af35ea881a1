/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DART: the engine's IOMMU at a 16 KB granule (ch. 28).
 *
 * This is the driver half; the controller itself is part of the device
 * model (firmware/hw/ane_dart_hw.c), reached only through the PTD bank's
 * registers (a regmap) and the "dart" interrupt line.  The driver builds
 * page tables in memory (ane_dart_pt.c), allocates device addresses and
 * evicts idle mappings (ane_dart_evict.c), binds contexts to hardware
 * slots by programming the registers and keeps the line of those waiting
 * for one (ane_dart_slot.c), turns latched faults into IODARTErrorInfo
 * records in its interrupt handler (ane_dart_fault.c), makes and releases
 * the isolation contexts and serves the DMA ioctl by walking a context's
 * tables in software (ane_dart.c), and shows it all in debugfs
 * (ane_dart_debugfs.c).  What those files share privately is in
 * ane_dart_internal.h.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_DART_H__
#define __ANE_DART_H__

#include <linux/bits.h>
#include <linux/interrupt.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <drm/drm_mm.h>

#include "ane_limits.h"
#include "firmware/spec/ane_dart_regs.h"

struct ane_device;
struct regmap;
struct seq_file;

/* Device address 0 is never handed out, so a null address always faults. */
#define ANE_DART_ALLOC_START	ANE_DART_PAGE_SIZE

/* Protection classes of the direction-to-protection mapper. */
#define ANE_PROT_DEVICE_WRITE	1
#define ANE_PROT_READ_ONLY	2
#define ANE_PROT_READ_WRITE	3

/* Outstanding requests per pool (context). */
#define ANE_DART_MAX_INFLIGHT	127
/* How long a bind waits for a hardware slot to come free (ms). */
#define ANE_DART_SLOT_WAIT_MS	10000
/*
 * Request binds a context makes on its slot while others wait for one
 * before it gives the slot up and takes its turn (ane_dart_bind_turn(),
 * ane_dart_bind_or_park()).  Every one: a turn given up parks the
 * request (ane_dart_park()) rather than putting its process to sleep, so
 * strict turns cost no extra process switch.
 */
#define ANE_DART_TURN_BINDS	1

/* Fault records kept per device. */
#define ANE_DART_FAULT_LOG	32

/**
 * struct ane_dart_fault - an IODARTErrorInfo-shaped fault record (Table 28.11)
 * @type: fault type (always "DART translation fault" here).
 * @hw_class: hardware fault class: "translation", "aperture" or "stream".
 * @hw_error: &enum ane_dart_fault_code.
 * @hw_status: the raw ERROR_STATUS word.
 * @is_write: 0 read fault, 1 write fault.
 * @sid: stream id of the faulting agent.
 * @address: the faulting device address.
 * @ttbr_index: translation-table base index (the stream's TTBR slot).
 * @l2_index: page-table walk L2 index.
 * @l3_index: page-table walk L3 index.
 * @axi_id: AXI master/transaction ids (the emulation reports the stream
 *	id in slot 0).
 * @ctx_id: the isolation context that was bound to @sid.
 * @seq: device-wide fault sequence number, from 1.
 */
struct ane_dart_fault {
	const char *type;
	const char *hw_class;
	u32 hw_error;
	u32 hw_status;
	bool is_write;
	u32 sid;
	u64 address;
	u32 ttbr_index;
	u32 l2_index;
	u32 l3_index;
	u32 axi_id[4];
	u32 ctx_id;
	u64 seq;
};

/**
 * struct ane_dart - the driver's state of one DART controller
 * @adev: the device.
 * @regs: the controller's PTD register window (a regmap of the bank).
 * @ctx_lock: protects @slots, @sid_ctx writes, @ctx_list, @next_ctx_id,
 *	@bind_clock, @slot_switches and each context's slot binding.  Nests
 *	outside &ane_dart_ctx.lock.
 * @slots: the context bound to each hardware slot (NULL: free).
 * @sid_ctx: id of the context last bound to each stream, for fault
 *	records (read locklessly by the interrupt).
 * @ctx_list: every live context, for debugfs.
 * @next_ctx_id: id of the next context created.
 * @bind_clock: orders bindings, to pick the slot to take over.
 * @base: the base context (kernel and firmware buffers).
 * @fault_lock: protects @faults, @fault_head, @fault_count and @fault_seq;
 *	taken in the interrupt path, so it is a spinlock.
 * @faults: ring of the last %ANE_DART_FAULT_LOG fault records.
 * @fault_head: next write position in @faults.
 * @fault_count: records in @faults.
 * @fault_seq: faults seen since the device was created.
 * @slot_switches: TTBR switches made to bind a context to a slot.
 * @wait_lock: protects @slot_waiters and each waiter's @kicked; taken
 *	where a context goes idle (a completion, in atomic context).
 * @slot_waiters: binds waiting for a slot, in arrival order
 *	(&struct ane_dart_slot_waiter): only the first one tries to take a
 *	slot, so slots go round the waiting clients in turn.
 * @slot_waits: binds that had to wait for a slot.
 * @slot_turns: slots given up to the first in line by a bound context
 *	whose only work was the request binding (ane_dart_bind_turn()).
 * @slot_wait_ms: how long a bind waits for a slot (%ANE_DART_SLOT_WAIT_MS;
 *	KUnit shortens it).
 * @dispatch_lock: one dispatcher at a time takes parked requests off
 *	the line (ane_dart_dispatch()).
 * @dispatch_again: something changed since the dispatcher last looked
 *	(a request parked, a slot given up, a context idle): it looks again.
 * @dispatch: the dispatcher's fallback, a tick after a context went idle
 *	with a parked request first in line: the submitters dispatch as
 *	they come (ane_dart_dispatch()), this is for when none comes.
 * @dispatch_deadline: the dispatcher again at the deadline of the parked
 *	request first in line that found no slot.
 * @parked_failed: parked requests that found no slot by their deadline.
 * @detached: the binding's controller is halted and its registers may be
 *	the next binding's (ane_dart_detach()): no register is written any
 *	more.  Under @ctx_lock.
 */
struct ane_dart {
	struct ane_device *adev;
	struct regmap *regs;

	struct mutex ctx_lock;		/* slots, context list */
	struct ane_dart_ctx *slots[ANE_DART_NUM_SLOTS];
	u32 sid_ctx[ANE_DART_NUM_STREAMS];
	struct list_head ctx_list;
	u32 next_ctx_id;
	u64 bind_clock;
	struct ane_dart_ctx *base;

	spinlock_t fault_lock;		/* fault log */
	struct ane_dart_fault faults[ANE_DART_FAULT_LOG];
	unsigned int fault_head;
	unsigned int fault_count;
	u64 fault_seq;
	u64 slot_switches;
	spinlock_t wait_lock;		/* slot waiters */
	struct list_head slot_waiters;
	u64 slot_waits;
	u64 slot_turns;
	unsigned int slot_wait_ms;
	struct mutex dispatch_lock;	/* one dispatcher of parked requests */
	atomic_t dispatch_again;
	struct delayed_work dispatch;
	struct delayed_work dispatch_deadline;
	u64 parked_failed;
	bool detached;
};

/**
 * struct ane_dart_waiter - a place in the line for a hardware slot
 * @link: on &ane_dart.slot_waiters, in arrival order.
 * @task: a bind sleeping in ane_dart_bind(); NULL for a parked request.
 * @kicked: a context went idle since the sleeping bind last looked (under
 *	&ane_dart.wait_lock).
 * @ctx: the parked request's context.
 * @pins: the parked request's pins of @ctx's mappings.
 * @deadline: jiffies after which a parked request that found no slot
 *	gives up (&ane_dart.slot_wait_ms after it was parked).
 * @run: called once, from the dispatcher (process context, no DART lock
 *	held but &ane_dart.dispatch_lock), with the slot @ctx is bound to,
 *	or -EBUSY when none came free by @deadline; the request is off the
 *	line by then.
 */
struct ane_dart_waiter {
	struct list_head link;
	struct task_struct *task;
	bool kicked;
	struct ane_dart_ctx *ctx;
	u32 pins;
	unsigned long deadline;
	void (*run)(struct ane_dart_waiter *w, int slot);
};

/**
 * struct ane_dart_ctx - one translation context: page tables and addresses
 * @dart: the controller.
 * @kref: references, held by the context's owner (a client or the
 *	device); binding to a slot takes none, the release unbinds.
 * @id: context id (0 is the base context).
 * @lock: protects @l2, @l3, @mm, @mappings, @lru, @lru_clock,
 *	@mapped_pages, @table_bytes, @evictions, @faults and the mappings'
 *	state.  @inflight, @requests and the mappings' @users only grow under
 *	it; they drop without it (from a completion in atomic context), so a
 *	check for zero under it stays true.
 * @l2: the L2 table (16 KB, physically contiguous).
 * @l3: the L3 tables, by L2 index.
 * @mm: the device-address allocator (coalescing free space).
 * @mappings: every mapping, mapped or evicted.
 * @lru: mapped mappings, least recently used first.
 * @lru_clock: the use clock.
 * @inflight: pins of the context's mappings for work, and engine
 *	transfers in progress; uncapped (bounded by @requests and the
 *	mappings a request may name).
 * @requests: requests outstanding on the context, each one however many
 *	mappings it pins (at most %ANE_DART_MAX_INFLIGHT, the firmware's
 *	per-process pool).
 * @slot: hardware slot the context is bound to, or -1; protected by
 *	&ane_dart.ctx_lock (read locklessly for TLB flushes).
 * @last_bound: &ane_dart.bind_clock value when the context was last
 *	bound, to pick the slot to take over.
 * @turn_binds: request binds that kept the slot while others waited,
 *	since it was bound (ane_dart_bind_turn()); under &ane_dart.ctx_lock.
 * @parked: requests of the context parked in the line for a slot
 *	(ane_dart_park()); they count in @requests, but a context whose only
 *	requests are parked is idle: its slot may be taken.
 * @parked_pins: the pins of its mappings (&ane_dart_ctx.inflight) the
 *	parked requests hold: with nothing else pinned the context is idle.
 * @queued: requests of the context parked or being started by the
 *	dispatcher (which drops @parked before it starts one, so that the
 *	slot it bound stays the context's): a request of the context that
 *	comes meanwhile parks behind them, so they start in order.
 * @mapped_pages: valid leaf PTEs.
 * @table_bytes: memory held by @l2 and @l3.
 * @evictions: mappings reclaimed under address pressure.
 * @faults: faults charged to this context.
 * @node: entry in &ane_dart.ctx_list.
 */
struct ane_dart_ctx {
	struct ane_dart *dart;
	struct kref kref;
	u32 id;

	struct mutex lock;		/* tables, allocator, mappings */
	u64 *l2;
	u64 *l3[ANE_DART_L2_USED];
	struct drm_mm mm;
	struct list_head mappings;
	struct list_head lru;
	u64 lru_clock;
	atomic_t inflight;
	atomic_t requests;
	int slot;
	u64 last_bound;
	u32 turn_binds;
	atomic_t parked;
	atomic_t parked_pins;
	atomic_t queued;
	u64 mapped_pages;
	u64 table_bytes;
	u64 evictions;
	u32 faults;
	struct list_head node;
};

/**
 * struct ane_dart_mapping - one device-address range of a context
 * @ctx: the context.
 * @node: the address range; allocated while the mapping is mapped.
 * @iova: the address handed out (kept when evicted).
 * @size: bytes mapped (a multiple of 16 KB).
 * @nframes: 16 KB frames in @frames.
 * @frames: physical address of each 16 KB frame, in device-address order.
 * @usage: usage code of Table 28.5.
 * @prot: protection class (1 or 3; class 2 collapses to 3).
 * @users: queued or running work using the mapping; never evicted then
 *	(see &ane_dart_ctx.lock for how it changes).
 * @evicted: reclaimed under address pressure; the range is free again.
 * @last_use: &ane_dart_ctx.lru_clock at the last use.
 * @lru: entry in &ane_dart_ctx.lru while mapped.
 * @link: entry in &ane_dart_ctx.mappings.
 * @owner: opaque tag of who made the mapping (a GEM object).
 */
struct ane_dart_mapping {
	struct ane_dart_ctx *ctx;
	struct drm_mm_node node;
	u64 iova;
	u64 size;
	u32 nframes;
	phys_addr_t *frames;
	u32 usage;
	u8 prot;
	atomic_t users;
	bool evicted;
	u64 last_use;
	struct list_head lru;
	struct list_head link;
	void *owner;
};

irqreturn_t ane_dart_irq(int irq, void *data);
int ane_dart_set_range(struct ane_dart_ctx *ctx, u64 iova,
		       const phys_addr_t *frames, u32 n);
void ane_dart_clear_range(struct ane_dart_ctx *ctx, u64 iova, u32 n);
int ane_dart_init(struct ane_device *adev, struct regmap *regs);
void ane_dart_fini(struct ane_device *adev);
void ane_dart_detach(struct ane_dart *dart);

struct ane_dart_ctx *ane_dart_ctx_create(struct ane_dart *dart);
void ane_dart_ctx_put(struct ane_dart_ctx *ctx);

u8 ane_dart_prot_from_dir(u32 direction);
int ane_dart_usage_check(u32 usage, bool kernel);

struct ane_dart_mapping *
ane_dart_map(struct ane_dart_ctx *ctx, const phys_addr_t *frames, u32 nframes,
	     u32 usage, u8 prot, void *owner);
int ane_dart_unmap(struct ane_dart_mapping *map);

int ane_dart_use(struct ane_dart_mapping *map);
int ane_dart_use_placed(struct ane_dart_mapping *map);
void ane_dart_unuse(struct ane_dart_mapping *map);

int ane_dart_bind(struct ane_dart_ctx *ctx);
int ane_dart_bind_turn(struct ane_dart_ctx *ctx, u32 own_pins);
int ane_dart_bind_or_park(struct ane_dart_ctx *ctx, u32 own_pins);
void ane_dart_park(struct ane_dart_ctx *ctx, u32 pins, struct ane_dart_waiter *w,
		   void (*run)(struct ane_dart_waiter *w, int slot));
void ane_dart_dispatch(struct ane_dart *dart);
void ane_dart_unbind(struct ane_dart_ctx *ctx);
void ane_dart_ctx_went_idle(struct ane_dart_ctx *ctx);

int ane_dart_ctx_dma(struct ane_dart_ctx *ctx, u64 iova, void *buf,
		     size_t len, bool write, struct ane_dart_fault *fault);
bool ane_dart_last_fault(struct ane_dart *dart, u32 ctx_id,
			 struct ane_dart_fault *out);

void ane_dart_debugfs_init(struct ane_device *adev);

#endif /* __ANE_DART_H__ */
