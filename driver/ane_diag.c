// SPDX-License-Identifier: GPL-2.0-only
/*
 * The diagnostics methods of ch. 27 Table 27.5: GetClientsInfo,
 * ShowSharedMemoryAllocations and ShowModelMemoryStatus, as records
 * copied into a user buffer (DRM_IOCTL_ANE_METHOD_BUF) and as the debugfs
 * files "clients", "shared_memory" and "model_memory" of the device.
 * Without ANE_CAP_PRIV_VM a caller sees its own file only
 * (Documentation/accel/ane/methods.rst).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/cred.h>
#include <linux/dma-buf.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/ane_accel.h>

#include "ane_caps.h"
#include "ane_drv.h"
#include "ane_gem.h"
#include "ane_program.h"

/**
 * struct ane_diag - records being gathered
 * @rec: the records (@cap of them, @size bytes each), or NULL to count.
 * @size: bytes per record.
 * @cap: room in @rec.
 * @count: records written to @rec.
 * @total: records seen.
 */
struct ane_diag {
	void *rec;
	size_t size;
	u32 cap;
	u32 count;
	u32 total;
};

/* The next record to fill, or NULL when there is no room: just counted. */
static void *ane_diag_next(struct ane_diag *d)
{
	d->total++;
	if (!d->rec || d->count >= d->cap)
		return NULL;
	return d->rec + d->size * d->count++;
}

static void ane_diag_client(struct ane_diag *d, struct drm_file *file,
			    struct ane_file *self)
{
	struct ane_file *af = file->driver_priv;
	struct drm_ane_client_info *ci = ane_diag_next(d);
	struct pid *pid;

	if (!ci)
		return;
	ci->client_id = file->client_id;
	rcu_read_lock();
	pid = rcu_dereference(file->pid);
	ci->pid = pid_vnr(pid);
	rcu_read_unlock();
	ci->uid = from_kuid_munged(current_user_ns(), file->filp->f_cred->euid);
	ci->caps = atomic_read(&af->caps);
	down_read(&af->state_lock);
	ci->state = af->state;
	ci->space = af->space;
	up_read(&af->state_lock);
	mutex_lock(&af->power_lock);
	ci->flags = (af == self ? ANE_CLIENT_INFO_SELF : 0) |
		    (af->power_hold ? ANE_CLIENT_INFO_POWER_HOLD : 0) |
		    (af->persistent ? ANE_CLIENT_INFO_PERSISTENT : 0);
	mutex_unlock(&af->power_lock);
	mutex_lock(&af->prog_lock);
	ci->programs = ane_program_count_locked(af);
	mutex_unlock(&af->prog_lock);
	ane_file_map_counts(af, &ci->mappings, &ci->cached_mappings);
	ci->submitted = atomic64_read(&af->submitted);
	ci->completed = atomic64_read(&af->completed);
	ci->engine_ns = atomic64_read(&af->engine_ns);
}

static void ane_diag_shmem(struct ane_diag *d, struct drm_file *file)
{
	struct drm_gem_object *obj;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		struct drm_ane_shmem_info *si = ane_diag_next(d);

		if (!si)
			continue;
		si->client_id = file->client_id;
		si->size = obj->size;
		si->handle = id;
		si->flags = (obj->import_attach ? ANE_SHMEM_IMPORTED : 0) |
			    (obj->dma_buf ? ANE_SHMEM_EXPORTED : 0);
	}
	spin_unlock(&file->table_lock);
}

static void ane_diag_models(struct ane_diag *d, struct drm_file *file,
			    struct ane_file *self)
{
	struct ane_file *af = file->driver_priv;
	struct ane_program *p;

	mutex_lock(&af->prog_lock);
	list_for_each_entry(p, &af->programs, link) {
		struct ane_program *code = ane_program_code(p);
		struct drm_ane_model_info *mi = ane_diag_next(d);

		if (!mi)
			continue;
		mi->client_id = file->client_id;
		mi->token = af == self ? p->token : 0;
		mi->image_bytes = code->image.size;
		mi->inter_bytes = p->inter ? p->inter->base.size : 0;
		mi->weights_bytes = p->weights ? p->weights->size : 0;
		mi->slot = code->prepared ? code->slot : -1;
		mi->fw_pid = code->prepared ? code->pid : -1;
		mi->flags = (code->prepared ? ANE_MODEL_PREPARED : 0) |
			    (p->parent ? ANE_MODEL_INSTANCE : 0) |
			    (p->owner ? ANE_MODEL_ATTACHED : 0);
		mi->inflight = atomic_read(&code->inflight);
	}
	mutex_unlock(&af->prog_lock);
}

/* Gather @method's records over the files @self may see (NULL: all). */
static void ane_diag_gather(struct drm_device *drm, u32 method,
			    struct ane_file *self, bool all,
			    struct ane_diag *d)
{
	struct drm_file *file;

	mutex_lock(&drm->filelist_mutex);
	list_for_each_entry(file, &drm->filelist, lhead) {
		if (!file->driver_priv ||
		    (!all && file->driver_priv != self))
			continue;
		switch (method) {
		case ANE_METHOD_GET_CLIENTS_INFO:
			ane_diag_client(d, file, self);
			break;
		case ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS:
			ane_diag_shmem(d, file);
			break;
		default:
			ane_diag_models(d, file, self);
			break;
		}
	}
	mutex_unlock(&drm->filelist_mutex);
}

static size_t ane_diag_record_size(u32 method)
{
	switch (method) {
	case ANE_METHOD_GET_CLIENTS_INFO:
		return sizeof(struct drm_ane_client_info);
	case ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS:
		return sizeof(struct drm_ane_shmem_info);
	default:
		return sizeof(struct drm_ane_model_info);
	}
}

/**
 * ane_diag_method() - a diagnostics method of DRM_IOCTL_ANE_METHOD_BUF
 * @af: the caller.
 * @method: GET_CLIENTS_INFO, SHOW_SHARED_MEMORY_ALLOCATIONS or
 *	SHOW_MODEL_MEMORY_STATUS.
 * @ptr: the user buffer.
 * @size: its size: 0 counts only, else one record at least.
 * @count: records written (output).
 * @total: records there are (output).
 * @len: bytes written (output).
 *
 * Return: 0; -EINVAL for a buffer smaller than one record; -ENOMEM;
 * -EFAULT if the buffer cannot be written.
 */
int ane_diag_method(struct ane_file *af, u32 method, void __user *ptr,
		    u32 size, u32 *count, u32 *total, u32 *len)
{
	struct ane_diag d = { .size = ane_diag_record_size(method) };
	bool all = ane_caps_has(af, ANE_CAP_PRIV_VM);
	int ret = 0;

	if (size && size < d.size)
		return -EINVAL;
	d.cap = min_t(u32, size / d.size, ANE_METHOD_MAX_RECORDS);
	if (d.cap) {
		d.rec = kvcalloc(d.cap, d.size, GFP_KERNEL);
		if (!d.rec)
			return -ENOMEM;
	}
	ane_diag_gather(&af->adev->drm, method, af, all, &d);
	if (d.count && copy_to_user(ptr, d.rec, d.count * d.size))
		ret = -EFAULT;
	kvfree(d.rec);
	*count = ret ? 0 : d.count;
	*total = d.total;
	*len = *count * d.size;
	return ret;
}

/* debugfs: every client's records, one line each. */
static int ane_diag_show(struct seq_file *m, u32 method)
{
	struct drm_debugfs_entry *entry = m->private;
	struct drm_device *drm = entry->dev;
	struct ane_diag d = { .size = ane_diag_record_size(method) };
	u32 i;

	ane_diag_gather(drm, method, NULL, true, &d);	/* count */
	d.cap = min_t(u32, d.total, ANE_METHOD_MAX_RECORDS);
	d.total = 0;
	if (d.cap) {
		d.rec = kvcalloc(d.cap, d.size, GFP_KERNEL);
		if (!d.rec)
			return -ENOMEM;
		ane_diag_gather(drm, method, NULL, true, &d);
	}
	for (i = 0; i < d.count; i++) {
		void *r = d.rec + i * d.size;

		if (method == ANE_METHOD_GET_CLIENTS_INFO) {
			struct drm_ane_client_info *c = r;

			seq_printf(m, "client %llu pid %u uid %u caps 0x%x state %u space %u flags 0x%x programs %u mappings %u cached %u submitted %llu completed %llu engine_ns %llu\n",
				   c->client_id, c->pid, c->uid, c->caps,
				   c->state, c->space, c->flags, c->programs,
				   c->mappings, c->cached_mappings,
				   c->submitted, c->completed, c->engine_ns);
		} else if (method == ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS) {
			struct drm_ane_shmem_info *s = r;

			seq_printf(m, "client %llu handle %u size %llu flags 0x%x\n",
				   s->client_id, s->handle, s->size, s->flags);
		} else {
			struct drm_ane_model_info *p = r;

			seq_printf(m, "client %llu image %llu inter %llu weights %llu slot %d fw_pid %d flags 0x%x inflight %u\n",
				   p->client_id, p->image_bytes,
				   p->inter_bytes, p->weights_bytes, p->slot,
				   p->fw_pid, p->flags, p->inflight);
		}
	}
	if (d.total > d.count)
		seq_printf(m, "(%u more)\n", d.total - d.count);
	kvfree(d.rec);
	return 0;
}

static int ane_diag_clients_show(struct seq_file *m, void *data)
{
	return ane_diag_show(m, ANE_METHOD_GET_CLIENTS_INFO);
}

static int ane_diag_shmem_show(struct seq_file *m, void *data)
{
	return ane_diag_show(m, ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS);
}

static int ane_diag_models_show(struct seq_file *m, void *data)
{
	return ane_diag_show(m, ANE_METHOD_SHOW_MODEL_MEMORY_STATUS);
}

/**
 * ane_diag_debugfs_init() - the diagnostics' debugfs files of a device
 * @adev: the device.
 */
void ane_diag_debugfs_init(struct ane_device *adev)
{
	drm_debugfs_add_file(&adev->drm, "clients", ane_diag_clients_show,
			     NULL);
	drm_debugfs_add_file(&adev->drm, "shared_memory",
			     ane_diag_shmem_show, NULL);
	drm_debugfs_add_file(&adev->drm, "model_memory",
			     ane_diag_models_show, NULL);
}
