// SPDX-License-Identifier: GPL-2.0-only
/*
 * The debug work processor: control selectors 11-15.  One privileged
 * client per device registers a buffer and drains the firmware's debug
 * items into it -- the sections of the last crash dump, as the firmware
 * streamed them through the DEBUG channel -- item by item: Get copies an
 * item to an offset of the buffer, Complete acknowledges it, Release
 * drops the buffer, Unregister ends the registration.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/ane_accel.h>

#include "ane_caps.h"
#include "ane_drv.h"
#include "ane_host.h"
#include "ane_gem.h"
#include "ane_selector.h"

/* Called by recovery: the dump's sections become the debug items. */
void ane_dwp_save(struct ane_host *h, const u8 *raw, size_t len)
{
	u8 *copy = len ? kmemdup(raw, len, GFP_KERNEL) : NULL;

	mutex_lock(&h->dwp_lock);
	kfree(h->dwp_raw);
	h->dwp_raw = copy;
	h->dwp_raw_len = copy ? len : 0;
	h->dwp_done = 0;
	mutex_unlock(&h->dwp_lock);
}

static void ane_dwp_release_locked(struct ane_host *h)
{
	lockdep_assert_held(&h->dwp_lock);
	if (h->dwp_obj)
		drm_gem_object_put(h->dwp_obj);
	h->dwp_obj = NULL;
	h->dwp_vaddr = NULL;
	h->dwp_size = 0;
}

void ane_dwp_fini(struct ane_host *h)
{
	mutex_lock(&h->dwp_lock);
	ane_dwp_release_locked(h);
	h->dwp_owner = NULL;
	kfree(h->dwp_raw);
	h->dwp_raw = NULL;
	h->dwp_raw_len = 0;
	mutex_unlock(&h->dwp_lock);
}

/* Item @n (from 1): its bytes in @h->dwp_raw, section header included. */
static int ane_dwp_item_locked(struct ane_host *h, u64 n, size_t *off,
			       size_t *len)
{
	size_t o = 0;
	u64 i = 0;

	while (o + sizeof(struct ane_fw_dump_section_hdr) <= h->dwp_raw_len) {
		const struct ane_fw_dump_section_hdr *sh =
			(const void *)(h->dwp_raw + o);
		size_t l = sizeof(*sh) + sh->len;

		if (l > h->dwp_raw_len - o)
			break;
		if (++i == n) {
			*off = o;
			*len = l;
			return 0;
		}
		o += l;
	}
	return -ENOENT;
}

static struct ane_host *ane_dwp_host(struct ane_file *af)
{
	return af->adev->fwh;
}

int ane_sel_register_dwp(struct ane_file *af, const struct ane_selector *sel,
			 void *args)
{
	struct drm_ane_register_dwp *r = args;
	struct ane_host *h = ane_dwp_host(af);
	struct drm_gem_object *obj;
	struct ane_bo *bo;
	int ret = 0;

	if (!ane_caps_has(af, ANE_CAP_PRIV_VM))
		return -EPERM;
	if (r->flags || r->reserved || !r->size)
		return -EINVAL;
	if (!h)
		return -ENODEV;
	obj = drm_gem_object_lookup(af->drm_file, r->buffer);
	if (!obj)
		return -ENOENT;
	if (r->size > obj->size) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	mutex_lock(&h->dwp_lock);
	if (h->dwp_owner) {
		ret = -EBUSY;
		goto err;
	}
	bo = to_ane_bo(obj);
	if (!bo->pages || !ane_bo_vmap(bo)) {
		ret = -EINVAL;
		goto err;
	}
	h->dwp_owner = af->drm_file;
	h->dwp_obj = obj;
	h->dwp_vaddr = bo->vaddr;
	h->dwp_size = r->size;
	mutex_unlock(&h->dwp_lock);
	return 0;
err:
	mutex_unlock(&h->dwp_lock);
	drm_gem_object_put(obj);
	return ret;
}

/*
 * The host with its dwp_lock held, for the registered processor's own
 * file; else ERR_PTR: -ENODEV (no firmware host), -EPERM (unprivileged
 * file), -ENOENT (the file did not register).
 */
static struct ane_host *ane_dwp_lock_owned(struct ane_file *af)
{
	struct ane_host *h = ane_dwp_host(af);

	if (!h)
		return ERR_PTR(-ENODEV);
	if (!ane_caps_has(af, ANE_CAP_PRIV_VM))
		return ERR_PTR(-EPERM);
	mutex_lock(&h->dwp_lock);
	if (h->dwp_owner != af->drm_file) {
		mutex_unlock(&h->dwp_lock);
		return ERR_PTR(-ENOENT);
	}
	return h;
}

int ane_sel_unregister_dwp(struct ane_file *af, const struct ane_selector *sel,
			   void *args)
{
	struct ane_host *h = ane_dwp_lock_owned(af);

	if (IS_ERR(h))
		return PTR_ERR(h);
	ane_dwp_release_locked(h);
	h->dwp_owner = NULL;
	mutex_unlock(&h->dwp_lock);
	return 0;
}

int ane_sel_get_dwp_item(struct ane_file *af, const struct ane_selector *sel,
			 void *args)
{
	struct ane_host *h = ane_dwp_lock_owned(af);
	struct drm_ane_dwp_item *it = args;
	size_t off, len;
	int ret;

	if (IS_ERR(h))
		return PTR_ERR(h);
	ret = -ENODATA;
	if (!h->dwp_obj)
		goto out;
	ret = ane_dwp_item_locked(h, it->item, &off, &len);
	if (ret)
		goto out;
	ret = -ENOSPC;
	if (it->arg > h->dwp_size || len > h->dwp_size - it->arg)
		goto out;
	memcpy((u8 *)h->dwp_vaddr + it->arg, h->dwp_raw + off, len);
	ret = 0;
out:
	mutex_unlock(&h->dwp_lock);
	return ret;
}

int ane_sel_complete_dwp_item(struct ane_file *af,
			      const struct ane_selector *sel, void *args)
{
	struct ane_host *h = ane_dwp_lock_owned(af);
	struct drm_ane_dwp_item *it = args;
	size_t off, len;
	int ret;

	if (IS_ERR(h))
		return PTR_ERR(h);
	ret = ane_dwp_item_locked(h, it->item, &off, &len);
	if (ret)
		goto out;
	if (it->item <= 64)
		h->dwp_done |= BIT_ULL(it->item - 1);
out:
	mutex_unlock(&h->dwp_lock);
	return ret;
}

int ane_sel_release_dwp_buffers(struct ane_file *af,
				const struct ane_selector *sel, void *args)
{
	struct ane_host *h = ane_dwp_lock_owned(af);

	if (IS_ERR(h))
		return PTR_ERR(h);
	ane_dwp_release_locked(h);
	mutex_unlock(&h->dwp_lock);
	return 0;
}

/**
 * ane_dwp_file_fini() - a closing file gives up its registration
 * @af: the file.
 *
 * To be called when a client goes away (ane_file_fini()).
 */
void ane_dwp_file_fini(struct ane_file *af)
{
	struct ane_host *h = ane_dwp_host(af);

	if (!h)
		return;
	mutex_lock(&h->dwp_lock);
	if (h->dwp_owner == af->drm_file) {
		ane_dwp_release_locked(h);
		h->dwp_owner = NULL;
	}
	mutex_unlock(&h->dwp_lock);
}
