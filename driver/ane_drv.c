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
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>
#include <linux/random.h>
#include <linux/regmap.h>
#include <linux/sched/signal.h>
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

#include <kunit/visibility.h>

#include "ane_caps.h"
#include "ane_dart.h"
#include "ane_event.h"
#include "ane_host.h"
#include "ane_drv.h"
#include "ane_selector.h"
#include "ane_share.h"
#include "ane_syncobj.h"
#include "firmware/spec/ane_platform.h"

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
	/*
	 * Room for the completion events of the 127 requests a client may
	 * have outstanding (DRM's default, 4096 bytes, holds 85); set before
	 * the file can queue any.
	 */
	file->event_space = ANE_DART_MAX_INFLIGHT *
			    sizeof(struct drm_ane_event_complete);
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

/* A driver ioctl's capability (ane_caps.c); DRM core ioctls need none. */
static int ane_ioctl_caps_admit(struct file *filp, unsigned int cmd)
{
	struct drm_file *file = filp->private_data;

	if (_IOC_NR(cmd) < DRM_COMMAND_BASE || _IOC_NR(cmd) >= DRM_COMMAND_END)
		return 0;
	return ane_caps_ioctl_admit(file->driver_priv, cmd);
}

/*
 * Selectors are dispatched straight from the selector table (which also
 * refuses any other size or direction of a selector's number); the core
 * ioctls of ane_core_ioctls[] and the driver's own ioctls go to DRM's
 * core, @core; anything else, of any type, is -ENOTTY.  @uarg is @arg as
 * a user pointer of the caller's kind: the selector structs have one
 * layout for 32- and 64-bit callers, and DRM translates the core structs.
 */
static long ane_accel_ioctl_filter(struct file *filp, unsigned int cmd,
				   unsigned long arg, void __user *uarg,
				   long (*core)(struct file *filp,
						unsigned int cmd,
						unsigned long arg))
{
	const struct ane_selector *sel = ane_selector_find(cmd);
	long ret;

	if (IS_ERR(sel))
		return PTR_ERR(sel);
	if (sel)
		return ane_selector_ioctl(filp, sel, (unsigned long)uarg);
	if (!ane_ioctl_implemented(filp, cmd))
		return -ENOTTY;
	ret = ane_ioctl_caps_admit(filp, cmd);
	if (ret)
		return ret;
	/* The driver bounds and answers these three itself. */
	if (ane_syncobj_is_array_ioctl(cmd))
		return ane_syncobj_ioctl(filp, cmd, uarg);
	return core(filp, cmd, arg);
}

static long ane_accel_ioctl(struct file *filp, unsigned int cmd,
			    unsigned long arg)
{
	return ane_accel_ioctl_filter(filp, cmd, arg, (void __user *)arg,
				      drm_ioctl);
}

#ifdef CONFIG_COMPAT
/* The same filter for 32-bit callers. */
static long ane_accel_compat_ioctl(struct file *filp, unsigned int cmd,
				   unsigned long arg)
{
	return ane_accel_ioctl_filter(filp, cmd, arg, compat_ptr(arg),
				      drm_compat_ioctl);
}
#else
#define ane_accel_compat_ioctl NULL
#endif

/*
 * A blocking read() of the completion events first watches for one for
 * read_spin_us while the client has requests outstanding, as libane's
 * ane_request_wait() does in userspace (Documentation/accel/ane/
 * performance.rst, "The client's wait"): a no-op request completes in
 * tens of microseconds, and a reader that goes to sleep pays its CPU's
 * idle entry, the wake-up and the idle exit on top -- under QEMU's
 * single-threaded TCG the firmware's CPU only runs once the reader's
 * halts.  The watch ends at once when an event is queued, a signal is
 * pending, the CPU is wanted (need_resched()) or the time is up; then
 * drm_read() reads, or sleeps as before.
 */
static unsigned int ane_read_spin_us = 50;

static int ane_read_spin_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1000);
}

static const struct kernel_param_ops ane_read_spin_ops = {
	.set = ane_read_spin_set,
	.get = param_get_uint,
};
module_param_cb(read_spin_us, &ane_read_spin_ops, &ane_read_spin_us, 0644);
MODULE_PARM_DESC(read_spin_us,
		 "microseconds (0..1000) a blocking read() with requests outstanding watches for their completion before it sleeps (0: sleeps at once; default 50)");

static ssize_t ane_accel_read(struct file *filp, char __user *buf,
			      size_t count, loff_t *off)
{
	struct drm_file *file = filp->private_data;
	struct ane_file *af = file->driver_priv;
	struct ane_dart_ctx *ctx = READ_ONCE(af->ctx);
	unsigned int us = READ_ONCE(ane_read_spin_us);
	u64 end;

	if (us && ctx && !(filp->f_flags & O_NONBLOCK) &&
	    atomic_read(&ctx->requests) &&
	    list_empty_careful(&file->event_list)) {
		end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;
		while (list_empty_careful(&file->event_list) &&
		       !need_resched() && !signal_pending(current) &&
		       ktime_get_ns() < end)
			cpu_relax();
	}
	return drm_read(filp, buf, count, off);
}

static const struct file_operations ane_accel_fops = {
	.owner = THIS_MODULE,
	.open = accel_open,
	.release = drm_release,
	.unlocked_ioctl = ane_accel_ioctl,
	.compat_ioctl = ane_accel_compat_ioctl,
	.poll = drm_poll,
	.read = ane_accel_read,
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
	drm_printf(p, "ane-caps:\t0x%x\n", ane_caps(af));
	drm_show_memory_stats(p, file);
}

/* The driver's own ioctls (not selectors); DRM's core checks their sizes. */
static const struct drm_ioctl_desc ane_drm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(ANE_SURFACE_CREATE, ane_gem_create_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_DMA, ane_dma_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_GET_FAULT, ane_get_fault_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_METHOD, ane_method_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_METHOD_BUF, ane_method_buf_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_CAPS_DROP, ane_caps_drop_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_PROGRAM_EXPORT, ane_program_export_ioctl, 0),
	DRM_IOCTL_DEF_DRV(ANE_PROGRAM_ATTACH, ane_program_attach_ioctl, 0),
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

/* Unbind, after the host side's teardown halted the controller. */
static void ane_dart_detach_action(void *arg)
{
	ane_dart_detach(arg);
}

static const char * const ane_bank_names[ANE_NUM_BANKS] = {
	[ANE_BANK_ANE] = "ane",
	[ANE_BANK_PS] = "ps",
	[ANE_BANK_PWGATE] = "pwgate",
	[ANE_BANK_PTD] = "ptd",
	[ANE_BANK_HAL1] = "hal1",
	[ANE_BANK_HAL2] = "hal2",
	[ANE_BANK_HAL3] = "hal3",
};

/**
 * ane_regmaps_init() - one regmap per register bank
 * @dev: the device.
 * @pd: its platform data: the bus and each bank's context and size.
 * @regs: the regmaps, by &enum ane_hw_bank.
 *
 * 32-bit registers at byte offsets, no cache (every register has side
 * effects or changes under the hardware), and no lock of regmap's own:
 * the hardware serializes its registers itself, and neither of regmap's
 * locks fits every caller -- its mutex cannot be taken by the interrupt
 * handlers, its spinlock (fast_io) cannot be held across the write of
 * ANE_REG_CPU_CTRL that asserts reset, which sleeps until the controller
 * has stopped (Documentation/accel/ane/design.rst).  Not device-managed:
 * the regmaps live with the DRM device, as the DART's contexts do.
 *
 * Return: 0 or a negative errno (nothing is left then).
 */
int ane_regmaps_init(struct device *dev, const struct ane_platform_data *pd,
		     struct regmap **regs)
{
	int b;

	for (b = 0; b < ANE_NUM_BANKS; b++) {
		const struct regmap_config cfg = {
			.name = ane_bank_names[b],
			.reg_bits = 32,
			.val_bits = 32,
			.reg_stride = 4,
			.max_register = pd->bank_size[b] - 4,
			.cache_type = REGCACHE_NONE,
			.disable_locking = true,
		};

		regs[b] = regmap_init(dev, pd->bus, pd->bank[b], &cfg);
		if (IS_ERR(regs[b])) {
			int ret = PTR_ERR(regs[b]);

			regs[b] = NULL;
			ane_regmaps_exit(regs);
			return ret;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ane_regmaps_init);

/**
 * ane_regmaps_exit() - free the regmaps of ane_regmaps_init()
 * @regs: the regmaps (NULL entries are skipped and left NULL).
 */
void ane_regmaps_exit(struct regmap **regs)
{
	int b;

	for (b = 0; b < ANE_NUM_BANKS; b++) {
		if (regs[b])
			regmap_exit(regs[b]);
		regs[b] = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ane_regmaps_exit);

static void ane_regmaps_fini_action(struct drm_device *drm, void *arg)
{
	ane_regmaps_exit(arg);
}

/*
 * How long an engine with nothing in flight stays powered, by default:
 * each device's power/autosuspend_delay_ms starts from it (and can be
 * changed there; -1 keeps the engine up).
 */
static int ane_autosuspend_ms = 5000;
module_param_named(autosuspend_ms, ane_autosuspend_ms, int, 0444);
MODULE_PARM_DESC(autosuspend_ms,
		 "default power/autosuspend_delay_ms of each engine: how long it stays powered when idle (ms, -1: always on; default 5000)");

static int ane_runtime_suspend(struct device *dev)
{
	struct ane_device *adev = dev_get_drvdata(dev);

	return ane_host_suspend(adev->fwh);
}

static int ane_runtime_resume(struct device *dev)
{
	struct ane_device *adev = dev_get_drvdata(dev);

	return ane_host_resume(adev->fwh);
}

static const struct dev_pm_ops ane_pm_ops = {
	RUNTIME_PM_OPS(ane_runtime_suspend, ane_runtime_resume, NULL)
};

/*
 * Runtime PM from the booted firmware on: active now, powered down after
 * the autosuspend delay with nothing in flight (the host side holds a
 * reference per command, ane_host_pm_get()).  Disabled again before the
 * host side is torn down (devm actions run in reverse).
 */
static int ane_pm_init(struct ane_device *adev)
{
	struct device *dev = &adev->pdev->dev;
	int ret;

	pm_runtime_set_autosuspend_delay(dev, ane_autosuspend_ms);
	pm_runtime_use_autosuspend(dev);
	ret = pm_runtime_set_active(dev);
	if (ret)
		return ret;
	ret = devm_pm_runtime_enable(dev);
	if (ret)
		return ret;
	adev->fwh->pm_dev = dev;
	pm_runtime_mark_last_busy(dev);
	pm_request_autosuspend(dev);
	return 0;
}

static int ane_probe(struct platform_device *pdev)
{
	const struct ane_platform_data *pd = dev_get_platdata(&pdev->dev);
	struct ane_device *adev;
	int ret, irq;

	if (!pd)
		return -ENODEV;

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
	ret = drmm_mutex_init(&adev->drm, &adev->pm_lock);
	if (ret)
		return ret;
	ret = ane_events_init(adev);
	if (ret)
		return ret;
	adev->fence_ctx = dma_fence_context_alloc(1);
	atomic64_set(&adev->fence_seq, 0);
	platform_set_drvdata(pdev, adev);

	/* Imported buffers are mapped for this device (no IOMMU: 1:1). */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	ret = ane_regmaps_init(&pdev->dev, pd, adev->regs);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&adev->drm, ane_regmaps_fini_action,
				       adev->regs);
	if (ret)
		return ret;
	adev->boot_addr = pd->boot_addr;
	adev->host_irq = platform_get_irq_byname(pdev, ANE_IRQ_HOST);
	if (adev->host_irq < 0)
		return adev->host_irq;
	irq = platform_get_irq_byname(pdev, ANE_IRQ_DART);
	if (irq < 0)
		return irq;

	/* The DART outlives the binding: open files keep their contexts. */
	ret = ane_dart_init(adev, adev->regs[ANE_BANK_PTD]);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&adev->drm, ane_dart_fini_action, adev);
	if (ret)
		return ret;
	/* The fault interrupt only while bound. */
	ret = devm_request_irq(&pdev->dev, irq, ane_dart_irq, 0,
			       devm_kasprintf(&pdev->dev, GFP_KERNEL, "%s:%s",
					      dev_name(&pdev->dev), ANE_IRQ_DART),
			       adev->dart);
	if (ret)
		return ret;
	ane_dart_debugfs_init(adev);
	ane_quota_debugfs_init(adev);
	ane_diag_debugfs_init(adev);

	/*
	 * The slots' registers are this binding's until its controller is
	 * halted, unplugged or not: registered before ane_host_init(), the
	 * detach runs after the host side's teardown (devm runs in reverse).
	 */
	ret = devm_add_action_or_reset(&pdev->dev, ane_dart_detach_action,
				       adev->dart);
	if (ret)
		return ret;
	ret = ane_host_init(adev);
	if (ret)
		return ret;
	ret = ane_pm_init(adev);
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
		.name = ANE_PLATFORM_NAME,
		.dev_groups = ane_sysfs_groups,
		.pm = pm_ptr(&ane_pm_ops),
	},
};

/**
 * ane_driver_init() - the driver's part of the module's init
 *
 * Called by the module's init (driver/ane_module.c) before the boards
 * register their devices.
 *
 * Return: 0 or a negative errno.
 */
int ane_driver_init(void)
{
	int ret;

	ane_wq = alloc_workqueue("ane", WQ_UNBOUND, 0);
	if (!ane_wq)
		return -ENOMEM;
	ret = platform_driver_register(&ane_platform_driver);
	if (ret)
		destroy_workqueue(ane_wq);
	return ret;
}

/**
 * ane_driver_exit() - the driver's part of the module's exit
 *
 * Called once every device is unregistered (each was unplugged by
 * ane_remove()), before the hardware is powered off.
 */
void ane_driver_exit(void)
{
	platform_driver_unregister(&ane_platform_driver);
	/* Requests of clients already gone may still be releasing. */
	ane_requests_drain();
	destroy_workqueue(ane_wq);
}
