// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane: an emulated Apple Neural Engine as a DRM accel device.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/compat.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/platform_device.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_fw_host.h"
#include "ane_drv.h"
#include "ane_selector.h"
#include "ane_syncobj.h"

static unsigned int ane_num_devices = 1;
module_param_named(devices, ane_num_devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of emulated engines to create (1-8, default 1)");

/* The platform devices this module created; only touched at init/exit. */
static struct platform_device *ane_pdevs[ANE_MAX_DEVICES];

/*
 * Work that may outlive every file and device, such as releasing a request
 * whose client has gone: the module's exit drains it before the code goes.
 */
struct workqueue_struct *ane_wq;

static int ane_drm_open(struct drm_device *dev, struct drm_file *file)
{
	struct ane_file *af;

	af = kzalloc(sizeof(*af), GFP_KERNEL);
	if (!af)
		return -ENOMEM;
	ane_file_init(to_ane_device(dev), af);
	af->drm_file = file;
	file->driver_priv = af;
	return 0;
}

static void ane_drm_postclose(struct drm_device *dev, struct drm_file *file)
{
	struct ane_file *af = file->driver_priv;

	/* The client lives on while its requests are in flight. */
	ane_file_fini(af);
	file->driver_priv = NULL;
}

/*
 * The DRM core ioctls that mean something on this accel node: a client
 * reads the version and the capabilities, closes and shares its surfaces
 * (GEM, PRIME) and uses binary syncobjs as request fences.  An accel file
 * has no master, no authentication, no KMS and no timeline syncobjs, and
 * some core handlers assume a master (GET_UNIQUE and GET_MAGIC dereference
 * it): every other core number is refused with -ENOTTY before DRM's core
 * sees it.  Matched by number, as drm_ioctl() does; the core handles the
 * sizes of the ones allowed, except SYNCOBJ_RESET, _SIGNAL and _WAIT, which
 * ane_syncobj.c answers with a bound on their arrays.
 * Documentation/accel/ane/uapi.rst lists them.
 */
static const unsigned int ane_core_ioctls[] = {
	DRM_IOCTL_VERSION,
	DRM_IOCTL_GET_CAP,
	DRM_IOCTL_GEM_CLOSE,
	DRM_IOCTL_PRIME_HANDLE_TO_FD,
	DRM_IOCTL_PRIME_FD_TO_HANDLE,
	DRM_IOCTL_SYNCOBJ_CREATE,
	DRM_IOCTL_SYNCOBJ_DESTROY,
	DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD,
	DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE,
	DRM_IOCTL_SYNCOBJ_WAIT,
	DRM_IOCTL_SYNCOBJ_RESET,
	DRM_IOCTL_SYNCOBJ_SIGNAL,
};

/*
 * ane_ioctl_implemented() - may @cmd (not a selector) go to drm_ioctl()?
 *
 * Only for the DRM type: a core ioctl of ane_core_ioctls[], or one of the
 * driver's own ioctls (a number in the driver range with a handler in the
 * driver's table; the selectors never get here).
 */
static bool ane_ioctl_implemented(struct file *filp, unsigned int cmd)
{
	struct drm_file *file = filp->private_data;
	const struct drm_driver *drv = file->minor->dev->driver;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int i;

	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE)
		return false;
	if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END) {
		i = nr - DRM_COMMAND_BASE;
		if (i >= drv->num_ioctls)
			return false;
		i = array_index_nospec(i, drv->num_ioctls);
		return drv->ioctls[i].func;
	}
	for (i = 0; i < ARRAY_SIZE(ane_core_ioctls); i++)
		if (_IOC_NR(ane_core_ioctls[i]) == nr)
			return true;
	return false;
}

/*
 * Selectors are dispatched straight from the selector table (which also
 * refuses any other size or direction of a selector's number); the core
 * ioctls of ane_core_ioctls[] and the driver's own ioctls go to DRM's
 * core; anything else, of any type, is -ENOTTY.
 */
static long ane_accel_ioctl(struct file *filp, unsigned int cmd,
			    unsigned long arg)
{
	const struct ane_selector *sel = ane_selector_find(cmd);

	if (IS_ERR(sel))
		return PTR_ERR(sel);
	if (sel)
		return ane_selector_ioctl(filp, sel, arg);
	if (!ane_ioctl_implemented(filp, cmd))
		return -ENOTTY;
	/* The driver bounds and answers these three itself. */
	if (ane_syncobj_is_array_ioctl(cmd))
		return ane_syncobj_ioctl(filp, cmd, (void __user *)arg);
	return drm_ioctl(filp, cmd, arg);
}

#ifdef CONFIG_COMPAT
/* The same filter for 32-bit callers; DRM translates the core structs. */
static long ane_accel_compat_ioctl(struct file *filp, unsigned int cmd,
				   unsigned long arg)
{
	const struct ane_selector *sel = ane_selector_find(cmd);

	if (IS_ERR(sel))
		return PTR_ERR(sel);
	/* The selector structs have one layout for 32- and 64-bit callers. */
	if (sel)
		return ane_selector_ioctl(filp, sel,
					  (unsigned long)compat_ptr(arg));
	if (!ane_ioctl_implemented(filp, cmd))
		return -ENOTTY;
	if (ane_syncobj_is_array_ioctl(cmd))
		return ane_syncobj_ioctl(filp, cmd, compat_ptr(arg));
	return drm_compat_ioctl(filp, cmd, arg);
}
#else
#define ane_accel_compat_ioctl NULL
#endif

static const struct file_operations ane_accel_fops = {
	.owner = THIS_MODULE,
	.open = accel_open,
	.release = drm_release,
	.unlocked_ioctl = ane_accel_ioctl,
	.compat_ioctl = ane_accel_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	.show_fdinfo = drm_show_fdinfo,
	.fop_flags = FOP_UNSIGNED_OFFSET,
};

/*
 * The client's usage in /proc/<pid>/fdinfo (DRM usage stats): engine time
 * of its completed requests, its request counts, and its surfaces.
 */
static void ane_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct ane_file *af = file->driver_priv;

	drm_printf(p, "drm-engine-ane:\t%llu ns\n",
		   (u64)atomic64_read(&af->engine_ns));
	drm_printf(p, "ane-requests-submitted:\t%llu\n",
		   (u64)atomic64_read(&af->submitted));
	drm_printf(p, "ane-requests-completed:\t%llu\n",
		   (u64)atomic64_read(&af->completed));
	drm_printf(p, "ane-memory-charged:\t%llu KiB\n", ane_file_charged(af) >> 10);
	drm_show_memory_stats(p, file);
}

/* The driver's own ioctls (not selectors); DRM's core checks their sizes. */
static const struct drm_ioctl_desc ane_drm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(ANE_SURFACE_CREATE, ane_gem_create_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_DMA, ane_dma_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_GET_FAULT, ane_get_fault_ioctl, 0),
};

static const struct drm_driver ane_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL | DRIVER_SYNCOBJ,
	.open = ane_drm_open,
	.postclose = ane_drm_postclose,
	.ioctls = ane_drm_ioctls,
	.num_ioctls = ARRAY_SIZE(ane_drm_ioctls),
	.gem_prime_import_sg_table = ane_gem_import_sg_table,
	.show_fdinfo = ane_show_fdinfo,
	.fops = &ane_accel_fops,
	.name = ANE_DRIVER_NAME,
	.desc = ANE_DRIVER_DESC,
	.major = ANE_DRIVER_MAJOR,
	.minor = ANE_DRIVER_MINOR,
	.patchlevel = ANE_DRIVER_PATCHLEVEL,
};

static void ane_dart_fini_action(struct drm_device *drm, void *arg)
{
	ane_dart_fini(arg);
}

static int ane_probe(struct platform_device *pdev)
{
	struct ane_device *adev;
	int ret;

	adev = devm_drm_dev_alloc(&pdev->dev, &ane_drm_driver,
				  struct ane_device, drm);
	if (IS_ERR(adev))
		return PTR_ERR(adev);

	adev->pdev = pdev;
	adev->token_key = get_random_u64();
	atomic64_set(&adev->token_seq, 0);
	atomic_set(&adev->fw_state, ANE_FW_STATE_OFF);
	atomic_set(&adev->open_clients, 0);
	spin_lock_init(&adev->fence_lock);
	adev->fence_ctx = dma_fence_context_alloc(1);
	atomic64_set(&adev->fence_seq, 0);
	platform_set_drvdata(pdev, adev);

	/* Imported buffers are mapped for this device (no IOMMU: 1:1). */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	/* The DART outlives the binding: open files keep their contexts. */
	ret = ane_dart_init(adev);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&adev->drm, ane_dart_fini_action, adev);
	if (ret)
		return ret;
	ane_dart_debugfs_init(adev);
	ane_quota_debugfs_init(adev);

	ret = ane_fw_host_init(adev);
	if (ret)
		return ret;

	ret = drm_dev_register(&adev->drm, 0);
	if (ret)
		return ret;

	drm_info(&adev->drm, "emulated %s engine %d ready\n",
		 ANE_PROP_ARCHITECTURE, pdev->id);
	return 0;
}

/*
 * Unbinding with files still open is safe: drm_dev_unplug() makes every
 * later ioctl fail with -ENODEV (selectors enter the device through
 * drm_dev_enter()), and the device memory lives until the last file is
 * released.
 */
static void ane_remove(struct platform_device *pdev)
{
	struct ane_device *adev = platform_get_drvdata(pdev);

	drm_dev_unplug(&adev->drm);
}

static struct platform_driver ane_platform_driver = {
	.probe = ane_probe,
	.remove = ane_remove,
	.driver = {
		.name = ANE_DRIVER_NAME,
		.dev_groups = ane_sysfs_groups,
	},
};

static void ane_destroy_devices(void)
{
	int i;

	for (i = ANE_MAX_DEVICES - 1; i >= 0; i--) {
		platform_device_unregister(ane_pdevs[i]);
		ane_pdevs[i] = NULL;
	}
}

static int __init ane_init(void)
{
	unsigned int i;
	int ret;

	if (ane_num_devices < 1 || ane_num_devices > ANE_MAX_DEVICES) {
		pr_err("ane: devices=%u is out of range 1..%d\n",
		       ane_num_devices, ANE_MAX_DEVICES);
		return -EINVAL;
	}

	ane_wq = alloc_workqueue("ane", WQ_UNBOUND, 0);
	if (!ane_wq)
		return -ENOMEM;
	ret = platform_driver_register(&ane_platform_driver);
	if (ret) {
		destroy_workqueue(ane_wq);
		return ret;
	}

	for (i = 0; i < ane_num_devices; i++) {
		struct platform_device *pdev;

		pdev = platform_device_register_simple(ANE_DRIVER_NAME, i,
						       NULL, 0);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto err_devices;
		}
		ane_pdevs[i] = pdev;
	}
	return 0;

err_devices:
	ane_destroy_devices();
	platform_driver_unregister(&ane_platform_driver);
	destroy_workqueue(ane_wq);
	return ret;
}

static void __exit ane_exit(void)
{
	ane_destroy_devices();
	platform_driver_unregister(&ane_platform_driver);
	/* Requests of clients already gone may still be releasing. */
	ane_requests_drain();
	destroy_workqueue(ane_wq);
}

module_init(ane_init);
module_exit(ane_exit);

MODULE_DESCRIPTION(ANE_DRIVER_DESC);
MODULE_AUTHOR("The ane authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(ANE_VERSION_STRING);
