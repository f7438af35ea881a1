// SPDX-License-Identifier: GPL-2.0-only
/*
 * The emulated engine hardware: the seven register apertures, the
 * controller CPU that runs the firmware image, the doorbells in both
 * directions, the engine's task queues and its DMA through the DART.
 *
 * The driver and the firmware meet only here.  Register side effects:
 *
 *  - ANE_REG_CPU_CTRL: writing ANE_CPU_RUN releases reset (a kthread
 *    enters the image at the RVBAR); writing 0 asserts it (the image's
 *    halt, then kthread_stop()) and resets the engine with it: queues
 *    vacant, injected hangs cleared.  May sleep: process context only.
 *  - ANE_REG_FW_DOORBELL: the CPU's doorbell interrupt, while it runs.
 *  - ANE_REG_HOST_IRQ: the written bits are latched; the host interrupt
 *    line gets an edge whenever a write latches a bit that
 *    ANE_REG_HOST_IRQ_MASK enables, or unmasks a latched one.  Reads give
 *    the latched bits the mask enables; ANE_REG_HOST_IRQ_CLR clears
 *    latched bits (see firmware/spec/ane_regs.h).
 *  - the queue block and the ENG_* registers are the neural engine's
 *    (ane_engine.c): it runs the queues in its own context and raises the
 *    CPU's engine interrupt line (ANE_CPU_IRQ_ENGINE) through
 *    ane_hw_engine_irq().  Its reset follows the CPU's.
 *  - the PTD bank is the DART's register window (ane_dart_hw.c).
 *
 * The driver reaches the banks through ane_hw_regmap_bus, one context per
 * bank (ane_hw_bank()); the firmware through ane_hw_read32/write32().
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/device.h>
#include <linux/err.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/regmap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include <kunit/visibility.h>

#include "ane_dart_hw.h"
#include "ane_engine.h"
#include "ane_hw.h"

/**
 * struct ane_hw_bank_ctx - one register bank as a bus context
 * @hw: the hardware.
 * @bank: which bank.
 */
struct ane_hw_bank_ctx {
	struct ane_hw *hw;
	enum ane_hw_bank bank;
};

/**
 * struct ane_hw - one engine's hardware
 * @dev: the device, for names and logs.
 * @dart: the DART controller the engine's DMA goes through (NULL in
 *	KUnit host tests).
 * @image: the firmware image the CPU runs.
 * @sram: the CPU's SRAM, the image's context; lives as long as @hw.
 * @host_irq: the host interrupt line (0: not connected).
 * @bank_ctx: each bank's context for ane_hw_regmap_bus.
 * @lock: protects @regs contents and @cpu_running, @host_latched.  Never
 *	held while calling out (host interrupt line, CPU doorbell, DART).
 * @regs: register banks (PTD excluded: the DART's).
 * @bank_size: bytes per bank.
 * @cpu_running: the CPU is out of reset; doorbells reach it.  Written under
 *	@lock; the engine's interrupt line reads it without (READ_ONCE()).
 * @host_latched: the host interrupt status: raised bits not yet cleared.
 * @cpu_lock: serializes reset release and assertion; protects @thread.
 *	Outside @lock.
 * @thread: the CPU thread while out of reset.
 * @engine: the neural engine.
 * @test_mem: KUnit: identity-mapped memory standing in for the DART.
 * @test_base: device address of @test_mem.
 * @test_size: its size.
 */
struct ane_hw {
	struct device *dev;
	struct ane_dart_hw *dart;
	const struct ane_hw_cpu_image *image;
	void *sram;
	unsigned int host_irq;
	struct ane_hw_bank_ctx bank_ctx[ANE_NUM_BANKS];

	spinlock_t lock;		/* registers, CPU state, irq latch */
	u32 *regs[ANE_NUM_BANKS];
	u32 bank_size[ANE_NUM_BANKS];
	bool cpu_running;
	u32 host_latched;

	struct mutex cpu_lock;		/* reset release/assert, @thread */
	struct task_struct *thread;

	struct ane_engine *engine;

	void *test_mem;
	u64 test_base;
	size_t test_size;
};

static bool ane_hw_valid(struct ane_hw *hw, enum ane_hw_bank bank, u32 off)
{
	return bank < ANE_NUM_BANKS && !(off & 3) && off < hw->bank_size[bank];
}

static u32 *ane_hw_reg(struct ane_hw *hw, enum ane_hw_bank bank, u32 off)
{
	return &hw->regs[bank][off / 4];
}

u32 ane_hw_read32(struct ane_hw *hw, enum ane_hw_bank bank, u32 off)
{
	unsigned long flags;
	u32 val;

	if (!ane_hw_valid(hw, bank, off))
		return ~0u;
	if (bank == ANE_BANK_PTD)
		return hw->dart ? ane_dart_hw_read(hw->dart, off) : 0;
	if (bank == ANE_BANK_ANE && ane_engine_owns(off))
		return ane_engine_read(hw->engine, off);

	spin_lock_irqsave(&hw->lock, flags);
	if (bank == ANE_BANK_ANE && off == ANE_REG_HOST_IRQ)
		val = hw->host_latched &
		      *ane_hw_reg(hw, bank, ANE_REG_HOST_IRQ_MASK);
	else
		val = *ane_hw_reg(hw, bank, off);
	spin_unlock_irqrestore(&hw->lock, flags);
	return val;
}

static int ane_hw_cpu_thread(void *data)
{
	struct ane_hw *hw = data;
	u64 rv;

	spin_lock_irq(&hw->lock);
	rv = (u64)*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_RVBAR_HI) << 32 |
	     *ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_RVBAR_LO);
	spin_unlock_irq(&hw->lock);

	hw->image->cpu->run(hw, hw->sram, rv);

	spin_lock_irq(&hw->lock);
	*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CPU_STATUS) = ANE_CPU_HALTED;
	spin_unlock_irq(&hw->lock);

	/* Parked until reset is asserted. */
	set_current_state(TASK_IDLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_IDLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void ane_hw_cpu_release(struct ane_hw *hw)
{
	struct task_struct *t;

	mutex_lock(&hw->cpu_lock);
	if (hw->thread)
		goto out;
	spin_lock_irq(&hw->lock);
	*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CPU_CTRL) = ANE_CPU_RUN;
	*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CPU_STATUS) = ANE_CPU_RUNNING;
	WRITE_ONCE(hw->cpu_running, true);
	spin_unlock_irq(&hw->lock);

	t = kthread_run(ane_hw_cpu_thread, hw, "ane-fw/%s", dev_name(hw->dev));
	if (IS_ERR(t)) {
		dev_err(hw->dev, "cannot start the controller: %pe\n", t);
		spin_lock_irq(&hw->lock);
		*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CPU_CTRL) = 0;
		*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CPU_STATUS) = ANE_CPU_HALTED;
		WRITE_ONCE(hw->cpu_running, false);
		spin_unlock_irq(&hw->lock);
		goto out;
	}
	hw->thread = t;
out:
	mutex_unlock(&hw->cpu_lock);
}

static void ane_hw_cpu_assert_reset(struct ane_hw *hw)
{
	mutex_lock(&hw->cpu_lock);
	spin_lock_irq(&hw->lock);
	*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CPU_CTRL) = 0;
	WRITE_ONCE(hw->cpu_running, false);
	spin_unlock_irq(&hw->lock);
	/* the engine stops first: nothing it uses is freed under it */
	ane_engine_reset_assert(hw->engine);
	if (hw->thread) {
		hw->image->cpu->halt(hw, hw->sram);
		kthread_stop(hw->thread);
		hw->thread = NULL;
	}
	spin_lock_irq(&hw->lock);
	*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CPU_STATUS) = ANE_CPU_HALTED;
	spin_unlock_irq(&hw->lock);
	/* the CPU is stopped: nothing submits to the engine any more */
	ane_engine_reset_deassert(hw->engine);
	mutex_unlock(&hw->cpu_lock);
}

/* The engine's interrupt line into the CPU, while it runs. */
static void ane_hw_engine_irq(struct ane_hw *hw)
{
	/*
	 * Unlocked: a line raised as reset is asserted may reach the CPU or
	 * not, as on silicon; the CPU's reset drops its interrupt records.
	 */
	if (READ_ONCE(hw->cpu_running))
		hw->image->cpu->doorbell(hw, hw->sram, ANE_CPU_IRQ_ENGINE);
}

static void ane_hw_write_ane(struct ane_hw *hw, u32 off, u32 val)
{
	u32 cpu_bits = 0;
	bool host_edge = false;
	unsigned long flags;

	switch (off) {
	case ANE_REG_CPU_CTRL:
		if (val & ANE_CPU_RUN)
			ane_hw_cpu_release(hw);
		else
			ane_hw_cpu_assert_reset(hw);
		return;
	case ANE_REG_CPU_STATUS:
	case ANE_REG_CHIP_REV:
		return;		/* read-only */
	}
	if (ane_engine_owns(off)) {
		ane_engine_write(hw->engine, off, val);
		return;
	}

	spin_lock_irqsave(&hw->lock, flags);
	switch (off) {
	case ANE_REG_FW_DOORBELL:
		*ane_hw_reg(hw, ANE_BANK_ANE, off) = val;
		if (hw->cpu_running)
			cpu_bits = val;
		break;
	case ANE_REG_HOST_IRQ:
		/* An edge for every write that latches an enabled bit. */
		hw->host_latched |= val;
		host_edge = val & *ane_hw_reg(hw, ANE_BANK_ANE,
					      ANE_REG_HOST_IRQ_MASK);
		break;
	case ANE_REG_HOST_IRQ_MASK:
		/* Enabling a latched bit raises it. */
		host_edge = hw->host_latched & val &
			    ~*ane_hw_reg(hw, ANE_BANK_ANE, off);
		*ane_hw_reg(hw, ANE_BANK_ANE, off) = val;
		break;
	case ANE_REG_HOST_IRQ_CLR:
		hw->host_latched &= ~val;
		break;
	default:
		*ane_hw_reg(hw, ANE_BANK_ANE, off) = val;
		break;
	}
	spin_unlock_irqrestore(&hw->lock, flags);

	if (cpu_bits)
		hw->image->cpu->doorbell(hw, hw->sram, cpu_bits);
	if (host_edge && hw->host_irq)
		generic_handle_irq_safe(hw->host_irq);
}

void ane_hw_write32(struct ane_hw *hw, enum ane_hw_bank bank, u32 off, u32 val)
{
	unsigned long flags;

	if (!ane_hw_valid(hw, bank, off))
		return;
	if (bank == ANE_BANK_PTD) {
		if (hw->dart)
			ane_dart_hw_write(hw->dart, off, val);
		return;
	}
	if (bank == ANE_BANK_ANE) {
		ane_hw_write_ane(hw, off, val);
		return;
	}
	spin_lock_irqsave(&hw->lock, flags);
	*ane_hw_reg(hw, bank, off) = val;
	spin_unlock_irqrestore(&hw->lock, flags);
}

int ane_hw_dma(struct ane_hw *hw, u32 sid, u64 iova, void *buf, size_t len,
	       bool write)
{
	if (hw->test_mem) {
		u8 *p;

		if (sid || iova < hw->test_base ||
		    iova - hw->test_base > hw->test_size ||
		    len > hw->test_size - (iova - hw->test_base))
			return -EFAULT;
		p = (u8 *)hw->test_mem + (iova - hw->test_base);
		if (write)
			memcpy(p, buf, len);
		else
			memcpy(buf, p, len);
		return 0;
	}
	if (!hw->dart)
		return -EFAULT;
	return ane_dart_hw_dma(hw->dart, sid, iova, buf, len, write);
}

static int ane_hw_bus_read(void *context, unsigned int reg, unsigned int *val)
{
	struct ane_hw_bank_ctx *c = context;

	*val = ane_hw_read32(c->hw, c->bank, reg);
	return 0;
}

static int ane_hw_bus_write(void *context, unsigned int reg, unsigned int val)
{
	struct ane_hw_bank_ctx *c = context;

	ane_hw_write32(c->hw, c->bank, reg, val);
	return 0;
}

/*
 * The register bus of the model, the MMIO of silicon: 32-bit registers at
 * byte offsets, each bank's context from ane_hw_bank().  Register side
 * effects run inside reg_write, in the caller's context: a write of
 * ANE_REG_CPU_CTRL may sleep, every other access never does.
 */
const struct regmap_bus ane_hw_regmap_bus = {
	.reg_read = ane_hw_bus_read,
	.reg_write = ane_hw_bus_write,
};

/**
 * ane_hw_bank() - a bank's context for ane_hw_regmap_bus
 * @hw: the hardware.
 * @bank: the bank.
 *
 * Return: the context.
 */
void *ane_hw_bank(struct ane_hw *hw, enum ane_hw_bank bank)
{
	return &hw->bank_ctx[bank];
}

/**
 * ane_hw_bank_size() - a bank's size
 * @hw: the hardware.
 * @bank: the bank.
 *
 * Return: its size in bytes.
 */
u32 ane_hw_bank_size(struct ane_hw *hw, enum ane_hw_bank bank)
{
	return hw->bank_size[bank];
}

/**
 * ane_hw_set_host_irq() - connect the host interrupt line
 * @hw: the hardware.
 * @irq: the Linux interrupt the board mapped for the line.
 */
void ane_hw_set_host_irq(struct ane_hw *hw, unsigned int irq)
{
	hw->host_irq = irq;
}

/**
 * ane_hw_create() - power on one engine's hardware
 * @dev: the device, for names and logs.
 * @dart: the DART controller for engine DMA (NULL: none).
 * @image: the firmware image the controller runs once released.
 *
 * The CPU starts in reset, every register zero but the chip revision and
 * the queues' vacancy.
 *
 * Return: the hardware or an ERR_PTR().
 */
struct ane_hw *ane_hw_create(struct device *dev, struct ane_dart_hw *dart,
			     const struct ane_hw_cpu_image *image)
{
	struct ane_hw *hw;
	int b;

	hw = kzalloc(sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return ERR_PTR(-ENOMEM);
	hw->dev = dev;
	hw->dart = dart;
	hw->image = image;
	spin_lock_init(&hw->lock);
	mutex_init(&hw->cpu_lock);

	for (b = 0; b < ANE_NUM_BANKS; b++) {
		hw->bank_ctx[b].hw = hw;
		hw->bank_ctx[b].bank = b;
		hw->bank_size[b] = b == ANE_BANK_ANE ? ANE_BANK_ANE_SIZE :
						       ANE_BANK_SMALL_SIZE;
		if (b == ANE_BANK_PTD)
			continue;
		hw->regs[b] = vzalloc(hw->bank_size[b]);
		if (!hw->regs[b])
			goto err;
	}
	hw->sram = vzalloc(image->sram_size);
	if (!hw->sram)
		goto err;
	if (image->sram_init)
		image->sram_init(hw->sram);

	*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CHIP_REV) = ANE_CHIP_REV_H13G;
	*ane_hw_reg(hw, ANE_BANK_ANE, ANE_REG_CPU_STATUS) = ANE_CPU_HALTED;
	hw->engine = ane_engine_create(hw, dev_name(dev), ane_hw_engine_irq);
	if (IS_ERR(hw->engine)) {
		hw->engine = NULL;
		goto err;
	}
	return hw;

err:
	ane_hw_destroy(hw);
	return ERR_PTR(-ENOMEM);
}

/**
 * ane_hw_destroy() - power off: assert reset and free everything
 * @hw: the hardware, or NULL.
 */
void ane_hw_destroy(struct ane_hw *hw)
{
	int b;

	if (!hw)
		return;
	if (hw->regs[ANE_BANK_ANE])
		ane_hw_cpu_assert_reset(hw);
	ane_engine_destroy(hw->engine);
	vfree(hw->sram);
	for (b = 0; b < ANE_NUM_BANKS; b++)
		vfree(hw->regs[b]);
	mutex_destroy(&hw->cpu_lock);
	kfree(hw);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * ane_hw_set_test_mem() - KUnit: let engine DMA reach plain memory
 * @hw: hardware created without a DART.
 * @mem: memory standing in for device memory.
 * @base: its device address.
 * @size: its size.
 */
void ane_hw_set_test_mem(struct ane_hw *hw, void *mem, u64 base, size_t size)
{
	hw->test_mem = mem;
	hw->test_base = base;
	hw->test_size = size;
}
EXPORT_SYMBOL_IF_KUNIT(ane_hw_set_test_mem);

/* KUnit: the firmware's SRAM, to look at its state after a run. */
void *ane_hw_test_sram(struct ane_hw *hw)
{
	return hw->sram;
}
EXPORT_SYMBOL_IF_KUNIT(ane_hw_test_sram);

/* KUnit: the neural engine, to see which context ran its queues. */
struct ane_engine *ane_hw_test_engine(struct ane_hw *hw)
{
	return hw->engine;
}
EXPORT_SYMBOL_IF_KUNIT(ane_hw_test_engine);
#endif
