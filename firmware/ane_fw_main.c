// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware image: reset-vector entry, bring-up (the firmware side of
 * the boot handshake, the boot arguments), the named tasks and the main
 * loop, the interrupt handler and the interrupt dispatch to the tasks.
 * The channels and notifications are in ane_fw_ring.c, the control server
 * in ane_fw_server.c, the fault handler in ane_fw_crash.c.
 *
 * The firmware sees only its registers (ane_hw_read32/write32), the
 * memory the DART lets it reach (ane_hw_dma, stream 0) and its SRAM.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/string.h>
#include <linux/wait.h>

#include <kunit/visibility.h>

#include "hw/ane_cpu.h"
#include "ane_fw.h"
#include "ane_fw_image.h"

static_assert(ANE_FW_DB_ENGINE == ANE_CPU_IRQ_ENGINE);
static_assert(ANE_FW_ENGINE_ISAS == ANE_ENG_NUM_ISAS);

#define ANE_FW_BOOT_TIMEOUT_NS	(2ull * NSEC_PER_SEC)

/**
 * ane_fw_now() - firmware time
 * @fw: the firmware.
 *
 * Return: nanoseconds since this boot.
 */
u64 ane_fw_now(struct ane_fw *fw)
{
	return ktime_get_ns() - fw->boot_ns;
}

/**
 * ane_fw_rd() - read a register of the ANE bank
 * @fw: the firmware.
 * @off: register offset.
 *
 * Return: its value.
 */
u32 ane_fw_rd(struct ane_fw *fw, u32 off)
{
	return ane_hw_read32(fw->hw, ANE_BANK_ANE, off);
}

/**
 * ane_fw_wr() - write a register of the ANE bank
 * @fw: the firmware.
 * @off: register offset.
 * @val: the value.
 */
void ane_fw_wr(struct ane_fw *fw, u32 off, u32 val)
{
	ane_hw_write32(fw->hw, ANE_BANK_ANE, off, val);
}

/**
 * ane_fw_raise() - raise a host interrupt
 * @fw: the firmware.
 * @bit: the ANE_HOST_IRQ_* bit, raised through the doorbell slot the boot
 *	arguments route it to (the default register before they are read).
 */
void ane_fw_raise(struct ane_fw *fw, u32 bit)
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

/**
 * ane_fw_should_halt() - whether reset is being asserted
 * @fw: the firmware.
 *
 * The CPU learns of its reset from the reset line (the model's halt
 * callback, ane_fw_halt()), which the model raises before it stops the
 * CPU; CPU_CTRL is the host's register, not read on every pass of the loop.
 *
 * Return: true when what runs must stop and return to the reset vector.
 */
bool ane_fw_should_halt(struct ane_fw *fw)
{
	return READ_ONCE(fw->halt);
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

/**
 * ane_fw_wfi() - wait for an interrupt (WFI)
 * @fw: the firmware.
 * @timeout_ns: at most this long, U64_MAX for no limit.
 *
 * Returns on a doorbell, a halt or the timeout; ane_fw_irq_take() then
 * collects the doorbells.
 */
void ane_fw_wfi(struct ane_fw *fw, u64 timeout_ns)
{
	long j = MAX_SCHEDULE_TIMEOUT;

	if (ane_fw_idle_poll(fw, timeout_ns))
		return;

	if (timeout_ns != U64_MAX)
		j = nsecs_to_jiffies(timeout_ns) + 1;
	wait_event_idle_timeout(fw->wq, ane_fw_irq_ready(fw), j);
}

/**
 * ane_fw_irq_take() - pop every interrupt record
 * @fw: the firmware.
 *
 * Return: the doorbell bits rung since the last call.
 */
u32 ane_fw_irq_take(struct ane_fw *fw)
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
	fw->engine_isa = ane_fw_rd(fw, ANE_REG_ENG_ISA);	/* the chip's */
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
	/* a CPU in its idle poll is not asleep: it sees the record itself */
	if (wq_has_sleeper(&fw->wq))
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
