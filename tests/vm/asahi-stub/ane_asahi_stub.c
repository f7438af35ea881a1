// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stand-in for Asahi Linux's driver of the real Apple Neural Engine,
 * for tests/vm/asahi.sh: like it, a platform driver and a DRM accel driver
 * both named "ane" (its DRM description "Apple Neural Engine driver"), and
 * no "emulated" attribute.  It has one device and no ioctls of its own;
 * libane and the udev rule must refuse it, naming it.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/module.h>
#include <linux/platform_device.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

DEFINE_DRM_ACCEL_FOPS(stub_fops);

static const struct drm_driver stub_drm_driver = {
	.driver_features = DRIVER_COMPUTE_ACCEL | DRIVER_GEM,
	.fops = &stub_fops,
	.name = "ane",
	.desc = "Apple Neural Engine driver",
	.date = "20230103",
	.major = 1,
	.minor = 0,
};

static int stub_probe(struct platform_device *pdev)
{
	struct drm_device *drm;

	drm = drm_dev_alloc(&stub_drm_driver, &pdev->dev);
	if (IS_ERR(drm))
		return PTR_ERR(drm);
	platform_set_drvdata(pdev, drm);
	return drm_dev_register(drm, 0);
}

static void stub_remove(struct platform_device *pdev)
{
	struct drm_device *drm = platform_get_drvdata(pdev);

	drm_dev_unregister(drm);
	drm_dev_put(drm);
}

static struct platform_driver stub_driver = {
	.probe = stub_probe,
	.remove = stub_remove,
	.driver = { .name = "ane" },
};

static struct platform_device *stub_dev;

static int __init stub_init(void)
{
	int ret = platform_driver_register(&stub_driver);

	if (ret)
		return ret;
	stub_dev = platform_device_register_simple("ane", 100, NULL, 0);
	if (IS_ERR(stub_dev)) {
		platform_driver_unregister(&stub_driver);
		return PTR_ERR(stub_dev);
	}
	return 0;
}

static void __exit stub_exit(void)
{
	platform_device_unregister(stub_dev);
	platform_driver_unregister(&stub_driver);
}

module_init(stub_init);
module_exit(stub_exit);
MODULE_DESCRIPTION("Stand-in for Asahi Linux's Apple Neural Engine driver (ane tests)");
MODULE_LICENSE("GPL");
