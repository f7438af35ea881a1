// SPDX-License-Identifier: GPL-2.0-only
/*
 * The board: the machine the driver runs on.  Per engine it powers on the
 * hardware -- the register banks and the controller CPU with the firmware
 * image as its ROM (ane_hw.c), the DART controller (ane_dart_hw.c) -- and
 * an interrupt controller for the engine's two lines (an irq_domain of
 * its own with a simple irq_chip), then registers the platform device the
 * driver binds to: the lines as named IORESOURCE_IRQ resources, the
 * register banks as &struct ane_platform_data.  The module's init and
 * exit (driver/ane_module.c) create the boards after the driver is up and
 * power them off after it is gone; the board never calls the driver.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/device.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "../ane_fw_image.h"
#include "../spec/ane_platform.h"
#include "ane_board.h"
#include "ane_dart_hw.h"
#include "ane_hw.h"

/* The interrupt controller's lines (hardware irq numbers). */
enum ane_board_line {
	ANE_BOARD_LINE_HOST,
	ANE_BOARD_LINE_DART,
	ANE_BOARD_NUM_LINES
};

static const char * const ane_board_line_names[ANE_BOARD_NUM_LINES] = {
	[ANE_BOARD_LINE_HOST] = ANE_IRQ_HOST,
	[ANE_BOARD_LINE_DART] = ANE_IRQ_DART,
};

/**
 * struct ane_board - one engine's machine
 * @dev: the device the hardware is named after (the platform device's,
 *	or KUnit's); a reference is held while the hardware lives.
 * @pdev: the platform device, NULL for a KUnit board.
 * @dart: the DART controller.
 * @hw: the engine hardware.
 * @fwnode: the interrupt controller's name.
 * @domain: the interrupt controller.
 * @virq: the Linux interrupt of each line.
 * @pdata: the platform data the device is registered with.
 */
struct ane_board {
	struct device *dev;
	struct platform_device *pdev;
	struct ane_dart_hw *dart;
	struct ane_hw *hw;
	struct fwnode_handle *fwnode;
	struct irq_domain *domain;
	unsigned int virq[ANE_BOARD_NUM_LINES];
	struct ane_platform_data pdata;
};

/* The boards the module created; only touched at init and exit. */
static struct ane_board *ane_boards[ANE_BOARD_MAX];

/* ------------------------------------------------ interrupt controller */

static void ane_board_irq_ack(struct irq_data *d)
{
	/* Edges: nothing to acknowledge at the controller. */
}

/*
 * No mask at the controller: the model raises a line whatever the irq
 * core thinks of it, and the edge flow handler keeps an edge that arrives
 * on a disabled line pending and replays it when the line is enabled.
 */
static struct irq_chip ane_board_irq_chip = {
	.name = "ane",
	.irq_ack = ane_board_irq_ack,
};

static int ane_board_irq_map(struct irq_domain *domain, unsigned int virq,
			     irq_hw_number_t hwirq)
{
	irq_set_chip_data(virq, domain->host_data);
	irq_set_chip_and_handler_name(virq, &ane_board_irq_chip,
				      handle_edge_irq, "edge");
	return 0;
}

static const struct irq_domain_ops ane_board_irq_ops = {
	.map = ane_board_irq_map,
	.xlate = irq_domain_xlate_onecell,
};

static int ane_board_irq_init(struct ane_board *b, const char *name)
{
	int i;

	b->fwnode = irq_domain_alloc_named_fwnode(name);
	if (!b->fwnode)
		return -ENOMEM;
	b->domain = irq_domain_create_linear(b->fwnode, ANE_BOARD_NUM_LINES,
					     &ane_board_irq_ops, b);
	if (!b->domain)
		return -ENOMEM;
	for (i = 0; i < ANE_BOARD_NUM_LINES; i++) {
		b->virq[i] = irq_create_mapping(b->domain, i);
		if (!b->virq[i])
			return -ENOMEM;
	}
	ane_hw_set_host_irq(b->hw, b->virq[ANE_BOARD_LINE_HOST]);
	if (b->dart)
		ane_dart_hw_set_irq(b->dart, b->virq[ANE_BOARD_LINE_DART]);
	return 0;
}

static void ane_board_irq_fini(struct ane_board *b)
{
	int i;

	for (i = 0; i < ANE_BOARD_NUM_LINES; i++)
		if (b->virq[i])
			irq_dispose_mapping(b->virq[i]);
	if (b->domain)
		irq_domain_remove(b->domain);
	if (b->fwnode)
		irq_domain_free_fwnode(b->fwnode);
}

/* --------------------------------------------------------------- boards */

/* Power off: the CPU is put in reset by ane_hw_destroy(). */
static void ane_board_free(struct ane_board *b)
{
	if (!b)
		return;
	ane_hw_destroy(b->hw);
	ane_board_irq_fini(b);
	ane_dart_hw_destroy(b->dart);
	put_device(b->dev);
	kfree(b);
}

/* Power on the hardware of @dev, named @name, and its interrupt lines. */
static struct ane_board *ane_board_power_on(struct device *dev, const char *name,
					    bool dart)
{
	struct ane_board *b;
	int bank, ret = -ENOMEM;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	b->dev = get_device(dev);
	if (dart) {
		b->dart = ane_dart_hw_create();
		if (!b->dart)
			goto err;
	}
	b->hw = ane_hw_create(dev, b->dart, &ane_fw_image);
	if (IS_ERR(b->hw)) {
		ret = PTR_ERR(b->hw);
		b->hw = NULL;
		goto err;
	}
	ret = ane_board_irq_init(b, name);
	if (ret)
		goto err;

	b->pdata.bus = &ane_hw_regmap_bus;
	for (bank = 0; bank < ANE_NUM_BANKS; bank++) {
		b->pdata.bank[bank] = ane_hw_bank(b->hw, bank);
		b->pdata.bank_size[bank] = ane_hw_bank_size(b->hw, bank);
	}
	b->pdata.boot_addr = ane_fw_image.boot_addr;
	return b;

err:
	ane_board_free(b);
	return ERR_PTR(ret);
}

/* One engine: its hardware, then the platform device describing it. */
static struct ane_board *ane_board_create(int id)
{
	struct resource res[ANE_BOARD_NUM_LINES] = {};
	struct platform_device *pdev;
	struct ane_board *b;
	char name[32];
	int i, ret;

	pdev = platform_device_alloc(ANE_PLATFORM_NAME, id);
	if (!pdev)
		return ERR_PTR(-ENOMEM);
	snprintf(name, sizeof(name), "ane-board.%d", id);
	b = ane_board_power_on(&pdev->dev, name, true);
	if (IS_ERR(b)) {
		platform_device_put(pdev);
		return b;
	}
	for (i = 0; i < ANE_BOARD_NUM_LINES; i++)
		res[i] = DEFINE_RES_IRQ_NAMED(b->virq[i], ane_board_line_names[i]);
	ret = platform_device_add_resources(pdev, res, ARRAY_SIZE(res));
	if (!ret)
		ret = platform_device_add_data(pdev, &b->pdata, sizeof(b->pdata));
	if (!ret)
		ret = platform_device_add(pdev);
	if (ret) {
		platform_device_put(pdev);
		ane_board_free(b);
		return ERR_PTR(ret);
	}
	b->pdev = pdev;
	return b;
}

/**
 * ane_boards_create() - power on @n engines and register their devices
 * @n: engines, 1 to %ANE_BOARD_MAX.
 *
 * Called by the module's init once the driver is registered, so that the
 * driver core probes each device as it is added.  On an error the boards
 * made so far are left for ane_boards_unplug() and ane_boards_power_off().
 *
 * Return: 0 or a negative errno.
 */
int ane_boards_create(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && i < ANE_BOARD_MAX; i++) {
		struct ane_board *b = ane_board_create(i);

		if (IS_ERR(b))
			return PTR_ERR(b);
		ane_boards[i] = b;
	}
	return 0;
}

/**
 * ane_boards_unplug() - unregister every board's device, last first
 *
 * The driver's remove runs for each (it unplugs the DRM device); the
 * hardware stays on until ane_boards_power_off().
 */
void ane_boards_unplug(void)
{
	int i;

	for (i = ANE_BOARD_MAX - 1; i >= 0; i--)
		if (ane_boards[i] && ane_boards[i]->pdev) {
			platform_device_unregister(ane_boards[i]->pdev);
			ane_boards[i]->pdev = NULL;
		}
}

/**
 * ane_boards_power_off() - power every board off, last first
 *
 * Called once the driver is gone, when nothing of it can reach a register
 * any more.
 */
void ane_boards_power_off(void)
{
	int i;

	for (i = ANE_BOARD_MAX - 1; i >= 0; i--) {
		ane_board_free(ane_boards[i]);
		ane_boards[i] = NULL;
	}
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * ane_board_kunit_create() - KUnit: an engine's hardware without a device
 * @dev: the test's device (the hardware is named after it).
 * @dart: with a DART controller (without: engine DMA reaches only the
 *	memory of ane_board_kunit_set_test_mem()).
 *
 * Return: the board or an ERR_PTR().
 */
struct ane_board *ane_board_kunit_create(struct device *dev, bool dart)
{
	char name[48];

	snprintf(name, sizeof(name), "ane-kunit-%s", dev_name(dev));
	return ane_board_power_on(dev, name, dart);
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_create);

/**
 * ane_board_kunit_destroy() - KUnit: power the board off
 * @b: the board, or NULL or an ERR_PTR().
 */
void ane_board_kunit_destroy(struct ane_board *b)
{
	if (!IS_ERR_OR_NULL(b))
		ane_board_free(b);
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_destroy);

/**
 * ane_board_kunit_pdata() - KUnit: the platform data a device would get
 * @b: the board.
 *
 * Return: the platform data.
 */
const struct ane_platform_data *ane_board_kunit_pdata(struct ane_board *b)
{
	return &b->pdata;
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_pdata);

/**
 * ane_board_kunit_irq() - KUnit: a line's interrupt, by resource name
 * @b: the board.
 * @name: %ANE_IRQ_HOST or %ANE_IRQ_DART.
 *
 * Return: the interrupt number, or -ENXIO.
 */
int ane_board_kunit_irq(struct ane_board *b, const char *name)
{
	int i;

	for (i = 0; i < ANE_BOARD_NUM_LINES; i++)
		if (!strcmp(name, ane_board_line_names[i]))
			return b->virq[i];
	return -ENXIO;
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_irq);

/**
 * ane_board_kunit_set_test_mem() - KUnit: engine DMA into plain memory
 * @b: a board without DART.
 * @mem: memory standing in for device memory.
 * @base: its device address.
 * @size: its size.
 */
void ane_board_kunit_set_test_mem(struct ane_board *b, void *mem, u64 base,
				  size_t size)
{
	ane_hw_set_test_mem(b->hw, mem, base, size);
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_set_test_mem);

/**
 * ane_board_kunit_sram() - KUnit: the controller's SRAM (the firmware's state)
 * @b: the board.
 *
 * Return: the SRAM.
 */
void *ane_board_kunit_sram(struct ane_board *b)
{
	return ane_hw_test_sram(b->hw);
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_sram);

/**
 * ane_board_kunit_engine() - KUnit: the board's neural engine
 * @b: the board.
 *
 * Return: the engine, for its KUnit-only counters.
 */
struct ane_engine *ane_board_kunit_engine(struct ane_board *b)
{
	return ane_hw_test_engine(b->hw);
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_engine);

/**
 * ane_board_kunit_dma() - KUnit: an engine access through the DART
 * @b: a board with DART.
 * @sid: the stream.
 * @iova: device address.
 * @buf: kernel buffer.
 * @len: bytes.
 * @write: true to write memory.
 *
 * Return: 0, -EFAULT on a translation fault, -EINVAL for a bad stream.
 */
int ane_board_kunit_dma(struct ane_board *b, u32 sid, u64 iova, void *buf,
			size_t len, bool write)
{
	return ane_dart_hw_dma(b->dart, sid, iova, buf, len, write);
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_dma);

/**
 * ane_board_kunit_dart_poke() - KUnit: set a DART register's raw value
 * @b: a board with DART.
 * @off: the register.
 * @val: its value (no side effect, read-only registers included).
 */
void ane_board_kunit_dart_poke(struct ane_board *b, u32 off, u32 val)
{
	ane_dart_hw_poke(b->dart, off, val);
}
EXPORT_SYMBOL_IF_KUNIT(ane_board_kunit_dart_poke);
#endif
