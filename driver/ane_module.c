// SPDX-License-Identifier: GPL-2.0-only
/*
 * The module: a machine and its driver in one.  Its init and exit are the
 * only code that knows both parts: it brings up the driver
 * (ane_driver_init(), driver/ane_drv.c) and then has the device model's
 * board power on one engine per device and register its platform device
 * (ane_boards_create(), firmware/hw/ane_board.c), which the driver core
 * then probes.  Neither part calls the other.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>

#include "ane_drv.h"
#include "firmware/hw/ane_board.h"

static unsigned int ane_num_devices = 1;
module_param_named(devices, ane_num_devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of emulated engines to create (1-8, default 1)");

/*
 * The driver first, then the devices it binds to.  On the way out the
 * devices go first (the driver's remove unplugs each), then the driver,
 * which drains what outlives its files; the hardware is powered off last,
 * when nothing of the driver can reach a register any more.  An open
 * file holds the module, so no client is left by then.
 */
static int __init ane_module_init(void)
{
	int ret;

	if (ane_num_devices < 1 || ane_num_devices > ANE_BOARD_MAX) {
		pr_err("ane: devices=%u is out of range 1..%d\n",
		       ane_num_devices, ANE_BOARD_MAX);
		return -EINVAL;
	}
	ret = ane_driver_init();
	if (ret)
		return ret;
	ret = ane_boards_create(ane_num_devices);
	if (ret) {
		ane_boards_unplug();
		ane_driver_exit();
		ane_boards_power_off();
	}
	return ret;
}

static void __exit ane_module_exit(void)
{
	ane_boards_unplug();
	ane_driver_exit();
	ane_boards_power_off();
}

module_init(ane_module_init);
module_exit(ane_module_exit);

MODULE_DESCRIPTION(ANE_DRIVER_DESC);
MODULE_AUTHOR("The ane authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(ANE_VERSION_STRING);
