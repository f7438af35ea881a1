/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The emulated engine controller firmware: internal interfaces.  Nothing
 * here is visible to the driver; the driver sees only the hardware
 * (firmware/hw/ane_cpu.h) and the wire ABI (ane_fw_abi.h).
 *
 * All firmware state lives in the controller's SRAM (struct ane_fw),
 * handed to the CPU entry points as their context.  Everything but the
 * interrupt buffer is touched only by the firmware thread, so it needs no
 * lock: the RTOS below is cooperative, one message at a time.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_FW_H__
#define __ANE_FW_H__

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "spec/ane_fw_abi.h"

struct ane_img_bar;
struct ane_img_header;
struct ane_img_procedure;

struct ane_hw;
struct ane_fw;

/* ------------------------------------------------------------ RTOS pools */

/* Pool sizes, fixed at build time (ch. 29: no dynamic task creation). */
#define ANE_FW_NUM_TASKS	10
#define ANE_FW_NUM_QUEUES	(2 * ANE_FW_NUM_TASKS)
#define ANE_FW_NUM_SEMS		8
#define ANE_FW_NUM_MUTEXES	4
#define ANE_FW_NUM_TIMERS	16
#define ANE_FW_NUM_REQS		64	/* request objects */
#define ANE_FW_NUM_OUTBOX	32	/* notifications waiting for ring space */
#define ANE_FW_QUEUE_DEPTH	16	/* messages per queue */
#define ANE_FW_IRQBUF_DEPTH	64	/* interrupt records */
#define ANE_FW_OUTBOX_MSG	256	/* bytes per outbox entry */

enum ane_fw_pool {
	ANE_FW_POOL_TASK,
	ANE_FW_POOL_QUEUE,
	ANE_FW_POOL_SEM,
	ANE_FW_POOL_MUTEX,
	ANE_FW_POOL_TIMER,
	ANE_FW_POOL_REQ,
	ANE_FW_POOL_OUTBOX,
	ANE_FW_NUM_POOLS
};

/* Message types posted to task queues. */
enum ane_fw_msg_type {
	ANE_FW_MSG_RING,	/* a ring has messages: arg = channel */
	ANE_FW_MSG_ENGINE,	/* engine queue done: arg = hw queue */
	ANE_FW_MSG_TIMER,	/* timer fired: arg = timer id, data = cookie */
	ANE_FW_MSG_KICK,	/* re-run the scheduler */
	ANE_FW_MSG_LOAD,	/* load monitor tick */
	ANE_FW_MSG_TERMINATE,	/* process teardown: arg = process */
	ANE_FW_MSG_TEST,	/* KUnit */
};

struct ane_fw_msg {
	u32 type;
	u32 arg;
	u64 data;
};

/**
 * struct ane_fw_queue - a bounded message queue control block
 * @name: for dumps.
 * @in_use: allocated from the pool.
 * @rd: read index.
 * @wr: write index.
 * @count: messages queued.
 * @full: times a post found it full (the post failed; never dropped).
 * @high_water: most messages ever queued.
 * @ring: the messages.
 */
struct ane_fw_queue {
	const char *name;
	bool in_use;
	u16 rd;
	u16 wr;
	u16 count;
	u32 full;
	u32 high_water;
	struct ane_fw_msg ring[ANE_FW_QUEUE_DEPTH];
};

/* What a task's handler did with a message. */
enum ane_fw_result {
	ANE_FW_DONE,	/* consumed */
	ANE_FW_BLOCK,	/* keep it at the head; the task waits */
};

struct ane_fw_task;
typedef enum ane_fw_result (*ane_fw_handler_t)(struct ane_fw *fw,
					       struct ane_fw_task *t,
					       const struct ane_fw_msg *m);

/**
 * struct ane_fw_task - a long-lived message-pumped task
 * @name: task name.
 * @in_use: allocated from the pool.
 * @state: &enum ane_fw_task_state.
 * @prio: kernel thread priority, lower runs first.
 * @q: task-context input queue.
 * @irq_q: interrupt-context queue, served before @q.
 * @handle: runs one message to completion.
 * @handled: messages handled.
 * @blocked_on: what a SEMWAIT/BLOCKED task waits for (for dumps).
 * @cur_from_irq: the message being handled came from @irq_q.
 */
struct ane_fw_task {
	const char *name;
	bool in_use;
	u32 state;
	u32 prio;
	struct ane_fw_queue *q;
	struct ane_fw_queue *irq_q;
	ane_fw_handler_t handle;
	u32 handled;
	const char *blocked_on;
	bool cur_from_irq;
};

/**
 * struct ane_fw_sem - counting semaphore
 * @name: for dumps.
 * @in_use: allocated.
 * @count: available units.
 * @waiter: the task in SEMWAIT on it, if any.
 */
struct ane_fw_sem {
	const char *name;
	bool in_use;
	int count;
	struct ane_fw_task *waiter;
};

/**
 * struct ane_fw_mutex - an RTOS mutex (the reset mutex)
 * @name: for dumps.
 * @in_use: allocated.
 * @owner: owning task, NULL when free.
 */
struct ane_fw_mutex {
	const char *name;
	bool in_use;
	struct ane_fw_task *owner;
};

/**
 * struct ane_fw_timer - a one-shot timer posting a message when it fires
 * @in_use: allocated.
 * @armed: counting down.
 * @expires_ns: firmware time it fires at.
 * @task: task it posts to (interrupt queue).
 * @cookie: posted as the message's data.
 */
struct ane_fw_timer {
	bool in_use;
	bool armed;
	u64 expires_ns;
	struct ane_fw_task *task;
	u64 cookie;
};

/* -------------------------------------------------------- execution loop */

enum ane_fw_fsm_state {
	ANE_FW_FSM_INIT = 0,
	ANE_FW_FSM_RUN = 1,
	ANE_FW_FSM_EXEC = 2,
	ANE_FW_FSM_EXEC_SECURE = 3,
	ANE_FW_FSM_PAUSE = 4,
};

enum ane_fw_fsm_event {
	ANE_FW_EV_DISPATCH,
	ANE_FW_EV_DRAIN,
	ANE_FW_EV_ENTER_SECURE,
	ANE_FW_EV_EXIT_SECURE,
};

/**
 * struct ane_fw_fsm - the execution-loop control state machine
 * @state: &enum ane_fw_fsm_state.
 * @secure: the secure phase is asserted.
 * @inflight: partitions in flight (EXEC while non-zero).
 * @transitions: transitions taken, for the debugfs view.
 */
struct ane_fw_fsm {
	u32 state;
	bool secure;
	u32 inflight;
	u64 transitions;
};

enum ane_fw_proc_state {
	ANE_FW_PROC_IDLE = 0,
	ANE_FW_PROC_RUNNING = 1,
};

/* The firmware aperture the buffers of a load are rebased into (ch. 28). */
#define ANE_FW_APERTURE_BASE	0x1bc40000u	/* high half 0x1bc4 */
#define ANE_FW_APERTURE_SLOT	0x100000u	/* per program slot */
#define ANE_FW_APERTURE_LOAD	0x1000u		/* moves at every load */
#define ANE_FW_APERTURE_LOADS	256u		/* ... modulo this */

struct ane_fw_prog_image;
struct ane_tdb_hdr;

/**
 * struct ane_fw_program - a program slot
 * @valid: loaded.
 * @proc_nbr: procedures of the program.
 * @image_iova: device address (stream 0) the image was read from, 0 for
 *	a program loaded without an image (its calls compute nothing).
 * @image_size: its size.
 * @gen: load generation, unique in this boot; a request carries the
 *	generation it was queued for, so it never runs on a later load.
 * @loads: loads of this slot since boot (survives unload).
 * @mapped_base: firmware aperture base of this load, the rebase target
 *	(mappedBase of Table 28.8); moves at every load.
 * @img: the firmware's copy of the image's tables, NULL without an image.
 */
struct ane_fw_program {
	bool valid;
	u32 proc_nbr;
	u64 image_iova;
	u64 image_size;
	u32 gen;
	u32 loads;
	u32 mapped_base;
	struct ane_fw_prog_image *img;
};

struct ane_fw_process {
	u32 state;
	s32 program_id;
};

/* Data chaining (cache-request) machines. */
enum ane_fw_cr_state {
	ANE_FW_CR_AVAILABLE = 0,
	ANE_FW_CR_IN_USE = 1,
	ANE_FW_CR_INVALIDATING = 2,
};

enum ane_fw_os_state {
	ANE_FW_OS_AVAILABLE = 0,
	ANE_FW_OS_IN_EXECUTION = 1,
};

struct ane_fw_cache_req {
	u32 state;
	u32 gen;
	u32 procedure;
	s32 program_id;
	s32 process_id;
	u32 priority;
	u32 nbr_input_buffers;
	u32 group;
	u32 out_state[ANE_FW_OUTPUT_BUFFER_SETS];
	u64 last_exec_ts;
	u32 inflight;
	u64 triggers;
	/* ABI 1.2 (ane_fw_chain.c): the buffers a run computes with */
	u32 prog_gen;
	bool armed;
	u32 sid;
	u32 nout;
	struct ane_fw_buf_desc inter;
	struct ane_fw_buf_desc out[ANE_FW_MAX_CHAIN_OUTPUTS];
	bool prev_valid;
	u32 prev_sid;
	u32 nprev;
	struct ane_fw_buf_desc prev[ANE_FW_MAX_CHAIN_OUTPUTS];
};

/**
 * struct ane_fw_req - one procedure call or trigger inside the firmware
 * @node: in its priority level's list.
 * @in_use: allocated from the request pool.
 * @chan: channel it came on.
 * @seq: its ring index.
 * @cmd_id: its command id.
 * @hdr: the command header.
 * @task_queue: task-queue id (1..255).
 * @hw_queue: hardware queue while in flight.
 * @nsignal: signal events of a PROCEDURE_CALL_WITH_EVENTS, signaled when
 *	it completes.
 * @nexec: entries of @exec, the call's custom execute order (0: none).
 * @exec: the execute order: ANE_IMG_EXEC() runs of the procedure's task
 *	descriptors, in order.
 * @nbars: custom bars.
 * @bars: custom bars.
 * @stats_buffer: stats buffer device address, 0 for none.
 * @stats_size: its size.
 * @cache_handler: the chain of a trigger, 0 for a procedure call.
 * @exec_ts: the trigger's timestamp.
 * @output_set: the trigger's output set.
 * @t_queued: when it was queued.
 * @t_start: when it was dispatched.
 * @timer: deadline timer id, -1 for none.
 * @prog_gen: &ane_fw_program.gen of the program it was queued for.
 * @tdb: its task-descriptor block while its queue has it, NULL for none.
 * @tdb_bytes: size of @tdb; it is the queue's own block of firmware memory
 *	(&ane_fw.tdb_inline) when it fits, else allocated for the request.
 * @waiting: held by its wait records, not yet queued to run.
 * @nwait: wait records of a PROCEDURE_CALL_WITH_EVENTS.
 * @waits: the wait records: the call runs once each event reaches its
 *	value (ane_fw_exec_waits()).
 */
struct ane_fw_req {
	struct list_head node;
	bool in_use;
	u32 chan;
	u32 seq;
	u32 cmd_id;
	struct ane_fw_cmd_hdr hdr;
	u32 task_queue;
	u32 hw_queue;
	u32 nsignal;
	u32 nexec;
	u32 exec[ANE_FW_MAX_EXEC_ORDER];
	u32 nbars;
	struct ane_fw_bar bars[ANE_FW_MAX_CUSTOM_BARS];
	u64 stats_buffer;
	u64 stats_size;
	u64 cache_handler;
	u64 exec_ts;
	u32 output_set;
	u64 t_queued;
	u64 t_start;
	int timer;
	u32 prog_gen;
	struct ane_tdb_hdr *tdb;
	size_t tdb_bytes;
	bool waiting;
	u32 nwait;
	struct ane_fw_event waits[ANE_FW_MAX_WAIT_EVENTS];
};

/**
 * struct ane_fw_event_state - one event a wait record names
 * @value: the highest value signaled since the boot (or the activation,
 *	for a shared event).
 * @status: the status of the signal that set @value.
 */
struct ane_fw_event_state {
	u64 value;
	s32 status;
};

#define ANE_FW_NUM_HWQ		8
#define ANE_FW_TDB_INLINE	4096	/* bytes of a queue's own block */
#define ANE_FW_LEVEL_DEPTH	16	/* requests queued per priority */
#define ANE_FW_DEADLINE_MS	ANE_FW_DEADLINE_DEFAULT_MS

/**
 * struct ane_fw_sched - the eight-level scheduler
 * @level: queued requests per priority level.
 * @count: entries of each @level.
 * @credit: per-priority credit left in this round.
 * @pending: requests queued, all levels.
 * @hwq: request in flight on each hardware queue.
 * @inflight: requests in flight.
 * @max_inflight: bound on @inflight (backpressure).
 * @dispatched: per-level dispatch counts.
 * @full: posts refused because a level was full.
 */
struct ane_fw_sched {
	struct list_head level[ANE_FW_NUM_PRIORITIES];
	u32 count[ANE_FW_NUM_PRIORITIES];
	u32 credit[ANE_FW_NUM_PRIORITIES];
	u32 pending;
	struct ane_fw_req *hwq[ANE_FW_NUM_HWQ];
	u32 inflight;
	u32 max_inflight;
	u64 dispatched[ANE_FW_NUM_PRIORITIES];
	u64 full;
};

extern const u32 ane_fw_queue_weights[ANE_FW_NUM_PRIORITIES];

/* ------------------------------------------------------------ the SRAM */

/* Rings as the firmware sees them: device addresses only. */
struct ane_fw_ring {
	u64 iova;		/* ring header */
	u32 slot_size;
	u32 nslots;
	u32 dir;
	bool ready;
	u32 idx;		/* H2T: our tail; T2H: our head */
	u32 cached;		/* the other side's index, last read */
};

struct ane_fw_irq_rec {
	u32 bits;
	u32 eng;
};

struct ane_fw_outbox {
	u32 chan;
	u32 len;
	u8 msg[ANE_FW_OUTBOX_MSG];
};

#define ANE_FW_CMDBUF		4096
#define ANE_FW_SRAM_MAGIC	0x5352414d	/* "SRAM" */
#define ANE_FW_BOOT_ADDR	0x100004000ULL	/* the image's reset vector */
#define ANE_FW_FRAMEWORK_RESERVATION	(64 * 1024)

/* Indices of the named tasks in fw->tasks. */
enum ane_fw_task_id {
	ANE_FW_T_IDLE,
	ANE_FW_T_TERMINATOR,
	ANE_FW_T_EXELOOP,
	ANE_FW_T_ATM,
	ANE_FW_T_TUNABLES,
	ANE_FW_T_LOADMON,
	ANE_FW_T_INTMGR,
	ANE_FW_T_CALLMGR,
	ANE_FW_T_SERVER,
	ANE_FW_T_RPCD,
};

/*
 * struct ane_fw - the controller's SRAM
 *
 * Retained across warm restarts: @sram_magic, @restart_count, @boots,
 * @mem_bytes, @mem_allocs.  Everything from @hw on is rebuilt at every
 * boot.
 *
 * Firmware memory: the loaded programs' copies (&ane_fw_program.img) and
 * the task-descriptor blocks of requests on the engine (&ane_fw_req.tdb)
 * are kvmalloc()ed by the firmware thread, which alone writes them (the
 * engine reads a block while its queue runs), and accounted in
 * @mem_bytes and @mem_allocs.  A program's copy is freed at
 * UNLOAD_PROGRAM, a block when its queue has ended or been aborted, and
 * everything before the firmware returns from its reset vector, so
 * the two counters -- never reset -- are back to zero whenever the
 * controller is halted.
 */
/**
 * struct ane_fw_qshadow - a queue's setup registers as last written
 * @val: the value of each ANE_FW_QS_* register.
 * @valid: ANE_FW_QS_* bits whose @val the queue holds.
 *
 * A register write to the engine costs as much as it does on silicon, so
 * the firmware writes a setup register only when its value changes.  The
 * engine changes none of them by itself; only its reset (which reboots
 * the firmware, and this with it) and a queue disabled by the firmware
 * (ane_fw_qshadow_forget()) do.
 */
struct ane_fw_qshadow {
	u32 val[5];
	u32 valid;
};

/* The setup registers struct ane_fw_qshadow keeps. */
enum {
	ANE_FW_QS_ENABLE,
	ANE_FW_QS_PRIO,
	ANE_FW_QS_SIZE,
	ANE_FW_QS_TD_HI,
	ANE_FW_QS_TD_SID,
};

struct ane_fw {
	u32 sram_magic;
	u32 restart_count;
	u32 boots;
	u64 mem_bytes;
	u32 mem_allocs;

	/*
	 * @irq_lock protects @irq_pending, @irqbuf*, @halt: the interrupt
	 * handler (the doorbell, any context) and halt write them; the
	 * firmware thread consumes them.  Initialised when the image loads.
	 */
	spinlock_t irq_lock;
	wait_queue_head_t wq;
	bool halt;
	u32 irq_pending;
	u32 irqbuf_rd;
	u32 irqbuf_wr;
	u32 irqbuf_lost;
	struct ane_fw_irq_rec irqbuf[ANE_FW_IRQBUF_DEPTH];

	/* Rebuilt at boot; firmware thread only. */
	struct ane_hw *hw;
	u64 boot_ns;
	s64 host_offset_ns;
	struct ane_fw_boot_args args;
	u64 chtbl_iova;
	u64 shared_next;	/* SHAREDMALLOC bump allocator */
	u64 shared_end;
	u64 status_iova;
	struct ane_fw_ring ring[ANE_FW_NUM_CHANNELS];
	bool endpoint_set;
	bool started;
	bool print_enabled;
	bool cr_disabled;
	u64 pmu_base;
	u32 ctx_switch_lat_us;
	u32 shared_events;
	struct ane_fw_event_state events[ANE_FW_NUM_EVENTS];
	struct ane_fw_event_state shared_ev[ANE_FW_MAX_SHARED_EVENTS];
	u32 waiting;		/* entries of @reqs held by wait records */
	u32 props[ANE_FW_NUM_PROPS];
	bool mcache_on;

	struct ane_fw_task tasks[ANE_FW_NUM_TASKS];
	struct ane_fw_queue queues[ANE_FW_NUM_QUEUES];
	struct ane_fw_sem sems[ANE_FW_NUM_SEMS];
	struct ane_fw_mutex mutexes[ANE_FW_NUM_MUTEXES];
	struct ane_fw_timer timers[ANE_FW_NUM_TIMERS];
	struct ane_fw_req reqs[ANE_FW_NUM_REQS];
	u32 reqs_used;		/* entries of @reqs in use */
	struct ane_fw_outbox outbox[ANE_FW_NUM_OUTBOX];
	u32 outbox_rd;
	u32 outbox_count;
	struct ane_fw_sem *debug_space;
	struct ane_fw_mutex *reset_mutex;
	int load_timer;

	struct ane_fw_fsm fsm;
	struct ane_fw_sched sched;
	struct ane_fw_program programs[ANE_FW_MAX_PROGRAMS];
	struct ane_fw_process processes[ANE_FW_MAX_PROCESSES];
	struct ane_fw_cache_req cr[ANE_FW_MAX_CACHE_REQUESTS];
	u32 cr_active[ANE_FW_MAX_CHAIN_GROUPS];
	u32 rpc_dirty;
	u64 terminal_dropped;
	u64 load_busy_ns;
	u32 load_pct;
	u64 stats_premap_addr;
	u64 stats_premap_size;
	u32 prog_gen;

	struct ane_fw_dump_cmd cmd_ring[ANE_FW_DUMP_CMD_RING];
	u32 cmd_ring_next;
	/*
	 * The crash path's dump sections, built here rather than on the
	 * stack: the crash handler runs on the firmware thread's kernel
	 * stack, which a 2 KB frame (more under KASAN) does not belong on.
	 */
	struct {
		struct ane_fw_dump_task tasks[ANE_FW_NUM_TASKS];
		struct ane_fw_dump_cmd cmds[ANE_FW_DUMP_CMD_RING];
	} crash_scratch;
	struct ane_fw_task *current_task;
	bool in_irq;

	/* Counters. */
	u64 handled;
	u64 completed;
	u64 dropped_not_running;
	u64 rejected;
	u64 deadline_aborts;
	u64 chain_dropped;
	u64 events_signaled;
	u64 ring_full;
	u64 busy_ns;
	u32 engine_isa;		/* ANE_REG_ENG_ISA, read at boot */

	/* Fault state: set by ane_fw_panic(), acted on by the main loop. */
	bool crashed;
	bool fault_in_irq;
	const char *fault_task;
	u32 exc_class;
	char reason[ANE_FW_DUMP_REASON_LEN];
	struct ane_fw_dump_regs regs;

	/* Scratch buffers: a command body being handled, a message built. */
	u8 cmdbuf[ANE_FW_CMDBUF];
	u8 txbuf[ANE_FW_CMDBUF];

	/* What the firmware last wrote to each queue's setup registers. */
	struct ane_fw_qshadow qshadow[ANE_FW_NUM_HWQ];

	/*
	 * Each hardware queue's task-descriptor block, for the procedures
	 * that fit (most do: the header and 14 tasks): a queue runs one
	 * request at a time, so the block is the queue's until the engine
	 * has left it, and a request needs no allocation on its way in.
	 */
	u8 tdb_inline[ANE_FW_NUM_HWQ][ANE_FW_TDB_INLINE] __aligned(8);
};

/* ane_fw_rtos.c */
void ane_fw_rtos_init(struct ane_fw *fw);
struct ane_fw_task *ane_fw_task_create(struct ane_fw *fw, u32 id,
				       const char *name, u32 prio,
				       ane_fw_handler_t handle);
int ane_fw_post(struct ane_fw_queue *q, const struct ane_fw_msg *m);
int ane_fw_post_task(struct ane_fw *fw, u32 task, u32 type, u32 arg, u64 data);
int ane_fw_post_irq(struct ane_fw *fw, u32 task, u32 type, u32 arg, u64 data);
int ane_fw_post_once(struct ane_fw *fw, u32 task, bool irq, u32 type, u32 arg);
int ane_fw_post_again(struct ane_fw *fw, u32 task, u32 type, u32 arg);
bool ane_fw_run_one(struct ane_fw *fw);
struct ane_fw_sem *ane_fw_sem_create(struct ane_fw *fw, const char *name,
				     int count);
bool ane_fw_sem_take(struct ane_fw_sem *s, struct ane_fw_task *t);
void ane_fw_sem_give(struct ane_fw_sem *s);
struct ane_fw_mutex *ane_fw_mutex_create(struct ane_fw *fw, const char *name);
bool ane_fw_mutex_lock(struct ane_fw_mutex *m, struct ane_fw_task *t);
void ane_fw_mutex_unlock(struct ane_fw_mutex *m);
int ane_fw_timer_alloc(struct ane_fw *fw, struct ane_fw_task *t);
void ane_fw_timer_arm(struct ane_fw *fw, int id, u64 delay_ns, u64 cookie);
void ane_fw_timer_free(struct ane_fw *fw, int id);
u64 ane_fw_timers_fire(struct ane_fw *fw, u64 now);
void ane_fw_pool_count(const struct ane_fw *fw, u32 pool, u32 *total,
		       u32 *avail);
const char *ane_fw_pool_name(u32 pool);
const char *ane_fw_task_state_name(u32 state);
struct ane_fw_req *ane_fw_req_alloc(struct ane_fw *fw);
void ane_fw_req_free(struct ane_fw *fw, struct ane_fw_req *r);

/* ane_fw_proto.c: validation, data chaining, stats; pure functions */
int ane_fw_hdr_check(const struct ane_fw_cmd_hdr *hdr, u32 max_cmd_buf);
int ane_fw_prio_check(u32 priority, bool normal_only);
bool ane_fw_exeloop_accepts(u32 id);
int ane_fw_proc_call_check(u32 id, const struct ane_fw_cmd_hdr *hdr,
			   const void *body, u32 len);
int ane_fw_rpc_check(const struct ane_fw_rpc *rpc, u32 len);

/* ane_fw_sched.c: the execution-loop state machine, the scheduler */
int ane_fw_fsm_post(struct ane_fw_fsm *fsm, u32 event);
void ane_fw_fsm_resume(struct ane_fw_fsm *fsm);
void ane_fw_fsm_arm(struct ane_fw_fsm *fsm);
bool ane_fw_fsm_hw_allowed(const struct ane_fw_fsm *fsm);
const char *ane_fw_fsm_state_name(u32 state);
void ane_fw_sched_init(struct ane_fw_sched *s, u32 max_inflight);
int ane_fw_sched_queue(struct ane_fw_sched *s, struct ane_fw_req *r);
struct ane_fw_req *ane_fw_sched_pick(struct ane_fw_sched *s);
void ane_fw_sched_done(struct ane_fw_sched *s, struct ane_fw_req *r);

/* ane_fw_proto.c: data chaining, stats */
u64 ane_fw_cr_handle(u32 idx, u32 gen);
int ane_fw_cr_lookup(const struct ane_fw *fw, u64 handle);
int ane_fw_cr_install(struct ane_fw *fw, const struct ane_fw_cmd_hdr *hdr,
		      const struct ane_fw_cr_install *in, u64 *handle);
int ane_fw_cr_trigger_check(struct ane_fw *fw, const struct ane_fw_cmd_hdr *hdr,
			    const struct ane_fw_cr_trigger *tr, u32 len);
int ane_fw_cr_recycle(struct ane_fw *fw, const struct ane_fw_cr_recycle *rc);
int ane_fw_cr_invalidate(struct ane_fw *fw, u64 handle);
void ane_fw_cr_done(struct ane_fw *fw, u64 handle, u32 output_set);
void ane_fw_cr_abort(struct ane_fw *fw, u64 handle, u32 output_set);

/* ane_fw_program.c: a loaded program's image, for chained runs */
const struct ane_img_header *ane_fw_program_header(const struct ane_fw_program *p);
const struct ane_img_procedure *
ane_fw_program_procedure(const struct ane_fw_program *p, u32 proc);
const struct ane_img_bar *ane_fw_program_bar(const struct ane_fw_program *p,
					     u32 i);

/* ane_fw_chain.c: the buffers of chained runs (ABI 1.2) */
int ane_fw_cr_output_set(struct ane_fw *fw,
			 const struct ane_fw_cr_output_set *os, u32 len);
void ane_fw_cr_rotate(struct ane_fw_cache_req *cr);
int ane_fw_cr_inputs_check(const struct ane_fw_cache_req *cr,
			   const struct ane_fw_cr_trigger *tr);
int ane_fw_chain_bars(struct ane_fw *fw, const struct ane_fw_cache_req *cr,
		      const struct ane_fw_cr_trigger *tr, struct ane_fw_req *r);
int ane_fw_cr_group_select(struct ane_fw *fw,
			   const struct ane_fw_cr_group_select *gs);
void ane_fw_stats_fill(struct ane_fw_stats_hdr *h,
		       struct ane_fw_stats_engine *e, u64 size, u64 exec_ns,
		       u32 seq, u32 proc, u64 counter);

/* The build string: the image's, and the BUILDINFO reply. */
#define ANE_FW_BUILD		"ane-fw 1.0 (H13G emulation)"

/* ane_fw_main.c: entry, bring-up, the CPU's registers and interrupts */
bool ane_fw_should_halt(struct ane_fw *fw);
u64 ane_fw_now(struct ane_fw *fw);
u32 ane_fw_rd(struct ane_fw *fw, u32 off);
void ane_fw_wr(struct ane_fw *fw, u32 off, u32 val);
void ane_fw_raise(struct ane_fw *fw, u32 bit);
void ane_fw_wfi(struct ane_fw *fw, u64 timeout_ns);
u32 ane_fw_irq_take(struct ane_fw *fw);

/* ane_fw_ring.c: the channel table, the rings, notifications */
extern const char *const ane_fw_blocked_t2h;
int ane_fw_channels_init(struct ane_fw *fw);
int ane_fw_ring_peek(struct ane_fw *fw, u32 ch, struct ane_fw_cmd_hdr *hdr,
		     u32 *seq);
int ane_fw_ring_body(struct ane_fw *fw, u32 ch, u32 seq, void *buf, u32 len);
void ane_fw_ring_consume(struct ane_fw *fw, u32 ch);
int ane_fw_ring_push(struct ane_fw *fw, u32 ch, const void *msg, u32 len);
bool ane_fw_ring_want_space(struct ane_fw *fw, u32 ch);
void ane_fw_outbox_flush(struct ane_fw *fw);
int ane_fw_notify(struct ane_fw *fw, u32 chan, u32 id,
		  const struct ane_fw_cmd_hdr *like, const void *body,
		  u32 len);
int ane_fw_reply(struct ane_fw *fw, u32 chan, u32 seq,
		 const struct ane_fw_cmd_hdr *req, int status,
		 const void *data, u32 len);
void ane_fw_print(struct ane_fw *fw, const char *fmt, ...) __printf(2, 3);

/* ane_fw_server.c: the control server, the terminator */
enum ane_fw_result ane_fw_server_handle(struct ane_fw *fw,
					struct ane_fw_task *t,
					const struct ane_fw_msg *m);
enum ane_fw_result ane_fw_terminator_handle(struct ane_fw *fw,
					    struct ane_fw_task *t,
					    const struct ane_fw_msg *m);
enum ane_fw_result ane_fw_exeloop_task(struct ane_fw *fw,
				       struct ane_fw_task *t,
				       const struct ane_fw_msg *m);

/* ane_fw_crash.c: the fault handler and the crash dump */
void ane_fw_panic(struct ane_fw *fw, u32 exc_class, const char *fmt, ...)
	__printf(3, 4);
struct ane_fw_dump_cmd *ane_fw_cmd_log(struct ane_fw *fw, u32 chan, u32 seq,
				       const struct ane_fw_cmd_hdr *hdr);
void ane_fw_fill_tasks(struct ane_fw *fw, struct ane_fw_dump_task *out,
		       u32 max, u32 *n);
void ane_fw_crash(struct ane_fw *fw);

/* ane_fw_exec.c */
void ane_fw_exec_init(struct ane_fw *fw);
enum ane_fw_result ane_fw_exeloop_handle(struct ane_fw *fw,
					 struct ane_fw_task *t,
					 const struct ane_fw_msg *m);
int ane_fw_exeloop_cmd(struct ane_fw *fw, u32 chan, u32 seq,
		       const struct ane_fw_cmd_hdr *hdr, const void *body);
bool ane_fw_exec_can_accept(struct ane_fw *fw);
bool ane_fw_exec_level_has_room(struct ane_fw *fw,
				const struct ane_fw_cmd_hdr *hdr);
int ane_fw_exec_queue(struct ane_fw *fw, struct ane_fw_req *r);
void ane_fw_exec_kick(struct ane_fw *fw);
void ane_fw_exec_notify(struct ane_fw *fw, u32 chan, u32 seq,
			const struct ane_fw_cmd_hdr *hdr, int status,
			u64 exec_ns, u32 tq, u32 hwq);
/* Wait records and the calls they hold (ane_fw_event.c). */
int ane_fw_exec_hold(struct ane_fw *fw, struct ane_fw_req *r);
void ane_fw_exec_release(struct ane_fw *fw);
void ane_fw_queue_disable(struct ane_fw *fw, u32 q);
int ane_fw_secure_switch(struct ane_fw *fw, bool enter);
int ane_fw_event_signal(struct ane_fw *fw, const void *body, u32 len);
void ane_fw_shared_events_set(struct ane_fw *fw, u32 num);

/* ane_fw_program.c */
int ane_fw_program_load(struct ane_fw *fw, s32 slot,
			const struct ane_fw_load_program *lp);
int ane_fw_program_unload(struct ane_fw *fw, s32 slot);
void ane_fw_programs_free(struct ane_fw *fw);
int ane_fw_program_prepare(struct ane_fw *fw, struct ane_fw_req *r);
void ane_fw_program_release(struct ane_fw *fw, struct ane_fw_req *r);

#endif /* __ANE_FW_H__ */
