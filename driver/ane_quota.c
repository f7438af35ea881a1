// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory limits: what one client and one engine may allocate and pin.
 *
 * Everything the driver allocates for a client in proportion to what the
 * client asks for -- surfaces, program images and their intermediate
 * buffers -- is charged, before it is allocated, twice: to the client's
 * account (one per open file) and to the device.  A charge above the
 * client's limit fails with -EDQUOT, above the device's with -ENOMEM; a
 * single object above its size limit fails earlier with -E2BIG.  The
 * memory itself is also charged to the allocating task's memory cgroup
 * (__GFP_ACCOUNT) and allocated with __GFP_RETRY_MAYFAIL, so that a
 * request the machine or the cgroup cannot satisfy fails with -ENOMEM
 * instead of waking the OOM killer.
 *
 * A charge belongs to the object it paid for (&ane_bo.acct) and is
 * returned when that object is freed, whoever frees it last: a surface
 * may outlive its creator's file through PRIME.  The account is
 * refcounted for that reason.  See Documentation/accel/ane/security.rst.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/ane_accel.h>

#include "ane_drv.h"
#include "ane_gem.h"

static unsigned int ane_mem_device_mb;
module_param_named(mem_device_mb, ane_mem_device_mb, uint, 0644);
MODULE_PARM_DESC(mem_device_mb,
		 "MiB all clients of one engine may charge: surfaces, program images and intermediate buffers (0, the default: half of RAM)");

static unsigned int ane_mem_client_mb;
module_param_named(mem_client_mb, ane_mem_client_mb, uint, 0644);
MODULE_PARM_DESC(mem_client_mb,
		 "MiB one client (open file) may charge (0, the default: three quarters of the engine's limit)");

static unsigned int ane_max_image_mb;
module_param_named(max_image_mb, ane_max_image_mb, uint, 0644);
MODULE_PARM_DESC(max_image_mb,
		 "Largest program image in MiB (0, the default, or above 256: the format's 256 MiB)");

static unsigned int ane_max_surface_mb;
module_param_named(max_surface_mb, ane_max_surface_mb, uint, 0644);
MODULE_PARM_DESC(max_surface_mb,
		 "Largest surface or intermediate buffer in MiB (0, the default, or above 1024: 1 GiB)");

/**
 * struct ane_account - what one client has charged
 * @ref: the file's reference and one per object holding a charge.
 * @adev: the device, charged along with the account (a DRM reference).
 * @charged: bytes charged and not yet returned.
 */
struct ane_account {
	struct kref ref;
	struct ane_device *adev;
	atomic64_t charged;
};

/* @mb MiB in bytes; 0 and anything above @max give @max. */
static u64 ane_limit_mb(unsigned int mb, u64 max)
{
	u64 v = (u64)mb << 20;

	return v && v < max ? v : max;
}

/**
 * ane_limit_image_size() - the largest program image ProgramCreate takes
 *
 * Return: bytes, at most %ANE_IMG_MAX_SIZE.
 */
u64 ane_limit_image_size(void)
{
	return ane_limit_mb(READ_ONCE(ane_max_image_mb), ANE_IMG_MAX_SIZE);
}

/**
 * ane_limit_surface_size() - the largest surface or intermediate buffer
 *
 * Return: bytes, at most %ANE_BO_MAX_SIZE.
 */
u64 ane_limit_surface_size(void)
{
	return ane_limit_mb(READ_ONCE(ane_max_surface_mb), ANE_BO_MAX_SIZE);
}

/* The device's limit: mem_device_mb, or half of the RAM. */
static u64 ane_limit_device(void)
{
	unsigned int mb = READ_ONCE(ane_mem_device_mb);

	return mb ? (u64)mb << 20 : ((u64)totalram_pages() << PAGE_SHIFT) / 2;
}

/*
 * A client's limit: mem_client_mb, or three quarters of the device's, so
 * that one large job runs alone and still leaves room for others.
 */
static u64 ane_limit_client(void)
{
	unsigned int mb = READ_ONCE(ane_mem_client_mb);

	return mb ? (u64)mb << 20 : ane_limit_device() / 4 * 3;
}

/**
 * ane_file_account() - the client's account, made on first use
 * @af: the client.
 *
 * Return: the account (the file's reference), or ERR_PTR(-ENOMEM).
 */
struct ane_account *ane_file_account(struct ane_file *af)
{
	struct ane_account *acct, *old;

	/* Pairs with the cmpxchg() below: a published account is initialised. */
	acct = smp_load_acquire(&af->acct);
	if (acct)
		return acct;
	acct = kzalloc(sizeof(*acct), GFP_KERNEL_ACCOUNT);
	if (!acct)
		return ERR_PTR(-ENOMEM);
	kref_init(&acct->ref);
	acct->adev = af->adev;
	atomic64_set(&acct->charged, 0);
	drm_dev_get(&af->adev->drm);
	old = cmpxchg(&af->acct, NULL, acct);
	if (old) {
		drm_dev_put(&af->adev->drm);
		kfree(acct);
		return old;
	}
	return acct;
}

static void ane_account_release(struct kref *ref)
{
	struct ane_account *acct = container_of(ref, struct ane_account, ref);
	struct ane_device *adev = acct->adev;

	WARN_ON(atomic64_read(&acct->charged));
	kfree(acct);
	drm_dev_put(&adev->drm);
}

/**
 * ane_account_put() - drop a reference on an account
 * @acct: the account, or NULL.
 */
void ane_account_put(struct ane_account *acct)
{
	if (acct)
		kref_put(&acct->ref, ane_account_release);
}

/* Add @bytes to @v unless the sum would pass @limit. */
static bool ane_add_below(atomic64_t *v, u64 bytes, u64 limit)
{
	s64 old = atomic64_read(v);

	do {
		if (bytes > limit || (u64)old > limit - bytes)
			return false;
	} while (!atomic64_try_cmpxchg(v, &old, old + bytes));
	return true;
}

/**
 * ane_account_charge() - charge @bytes to a client and its device
 * @acct: the client's account.
 * @bytes: what is about to be allocated.
 *
 * Called before the allocation, so that a refused one costs nothing.
 * Each sum is checked and raised atomically, so concurrent charges never
 * pass a limit together.
 *
 * Return: 0; -EDQUOT above the client's limit (``mem_client_mb``);
 * -ENOMEM above the device's (``mem_device_mb``).
 */
int ane_account_charge(struct ane_account *acct, u64 bytes)
{
	struct ane_device *adev = acct->adev;

	if (!ane_add_below(&acct->charged, bytes, ane_limit_client())) {
		atomic64_inc(&adev->mem_refused);
		return -EDQUOT;
	}
	if (!ane_add_below(&adev->mem_charged, bytes, ane_limit_device())) {
		atomic64_sub(bytes, &acct->charged);
		atomic64_inc(&adev->mem_refused);
		return -ENOMEM;
	}
	return 0;
}

/**
 * ane_account_uncharge() - return a charge
 * @acct: the account charged.
 * @bytes: what ane_account_charge() took.
 */
void ane_account_uncharge(struct ane_account *acct, u64 bytes)
{
	WARN_ON(atomic64_sub_return(bytes, &acct->charged) < 0);
	WARN_ON(atomic64_sub_return(bytes, &acct->adev->mem_charged) < 0);
}

/**
 * ane_bo_set_charge() - hand a charge over to the object it paid for
 * @bo: the surface or kernel buffer, without a charge yet.
 * @acct: the account charged.
 * @bytes: the charge, returned when @bo is freed.
 */
void ane_bo_set_charge(struct ane_bo *bo, struct ane_account *acct, u64 bytes)
{
	kref_get(&acct->ref);
	bo->acct = acct;
	bo->charged = bytes;
}

static int ane_quota_debugfs_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_device *adev = to_ane_device(entry->dev);

	seq_printf(m, "charged %lld\n", (s64)atomic64_read(&adev->mem_charged));
	seq_printf(m, "refused %lld\n", (s64)atomic64_read(&adev->mem_refused));
	seq_printf(m, "limit_device %llu\n", ane_limit_device());
	seq_printf(m, "limit_client %llu\n", ane_limit_client());
	seq_printf(m, "max_image %llu\n", ane_limit_image_size());
	seq_printf(m, "max_surface %llu\n", ane_limit_surface_size());
	return 0;
}

/**
 * ane_quota_debugfs_init() - the "memory" debugfs file of a device
 * @adev: the device.
 *
 * What the device's clients have charged, the charges refused, and the
 * limits in force, in bytes (Documentation/accel/ane/security.rst).
 */
void ane_quota_debugfs_init(struct ane_device *adev)
{
	drm_debugfs_add_file(&adev->drm, "memory", ane_quota_debugfs_show, NULL);
}

/**
 * ane_file_charged() - bytes a client has charged (fdinfo)
 * @af: the client.
 *
 * Return: what its surfaces and images still charge, wherever they are.
 */
u64 ane_file_charged(struct ane_file *af)
{
	struct ane_account *acct;

	/* Pairs with the cmpxchg() of ane_file_account(). */
	acct = smp_load_acquire(&af->acct);
	return acct ? atomic64_read(&acct->charged) : 0;
}
