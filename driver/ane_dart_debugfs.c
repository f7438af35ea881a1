// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DART, driver half: debugfs views.  dart (registers, slots and
 * per-context counters), dart_mappings, dart_tables (a walk of each
 * context's tables), dart_faults (the fault records), and dart_evict,
 * which reclaims every idle client mapping for tests.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>

#include "ane_dart_internal.h"
#include "ane_drv.h"

static int ane_dart_debugfs_summary(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_dart *dart = to_ane_device(entry->dev)->dart;
	struct ane_dart_ctx *ctx;
	u64 hits, misses;
	int slot;

	/* LO latches HI (Documentation/accel/ane/dart.rst, "Registers"). */
	hits = ane_dart_rd(dart, ANE_DART_TLB_HITS_LO);
	hits |= (u64)ane_dart_rd(dart, ANE_DART_TLB_HITS_HI) << 32;
	misses = ane_dart_rd(dart, ANE_DART_TLB_MISSES_LO);
	misses |= (u64)ane_dart_rd(dart, ANE_DART_TLB_MISSES_HI) << 32;
	mutex_lock(&dart->ctx_lock);
	seq_printf(m, "granule 0x%lx aperture 0x%llx-0x%llx ceiling 0x%llx\n",
		   ANE_DART_PAGE_SIZE, ANE_DART_APERTURE_BASE,
		   ANE_DART_APERTURE_END, ANE_DART_CEILING);
	seq_printf(m, "enabled streams 0x%08x  tlb hits %llu misses %llu  ttbr switches %llu  slot waits %llu  turns %llu  parked failed %llu\n",
		   ane_dart_rd(dart, ANE_DART_ENABLED_STREAMS),
		   hits, misses, dart->slot_switches, READ_ONCE(dart->slot_waits),
		   READ_ONCE(dart->slot_turns), READ_ONCE(dart->parked_failed));
	for (slot = 0; slot < ANE_DART_NUM_SLOTS; slot++) {
		ctx = dart->slots[slot];
		seq_printf(m, "slot %d (%s%d): ttbr 0x%08x tcr 0x%08x ctx %s",
			   slot, slot ? "iso" : "base", slot,
			   ane_dart_rd(dart, ANE_DART_TTBR(slot)),
			   ane_dart_rd(dart, ANE_DART_TCR(slot)), ctx ? "" : "-\n");
		if (ctx)
			seq_printf(m, "%u\n", ctx->id);
	}
	list_for_each_entry(ctx, &dart->ctx_list, node) {
		mutex_lock(&ctx->lock);
		seq_printf(m, "ctx %u: slot %d pages %llu tables %llu B inflight %u evictions %llu faults %u\n",
			   ctx->id, ctx->slot, ctx->mapped_pages, ctx->table_bytes,
			   atomic_read(&ctx->inflight), ctx->evictions, ctx->faults);
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&dart->ctx_lock);
	return 0;
}

static int ane_dart_debugfs_mappings(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_dart *dart = to_ane_device(entry->dev)->dart;
	struct ane_dart_mapping *map;
	struct ane_dart_ctx *ctx;
	u32 i;

	mutex_lock(&dart->ctx_lock);
	list_for_each_entry(ctx, &dart->ctx_list, node) {
		seq_printf(m, "ctx %u:\n", ctx->id);
		mutex_lock(&ctx->lock);
		list_for_each_entry(map, &ctx->mappings, link) {
			seq_printf(m, "  iova 0x%08llx size 0x%llx usage %u prot %u users %u %s frames",
				   map->iova, map->size, map->usage, map->prot,
				   atomic_read(&map->users), map->evicted ? "evicted" : "mapped");
			for (i = 0; i < map->nframes && i < 8; i++)
				seq_printf(m, " %pa", &map->frames[i]);
			seq_puts(m, map->nframes > 8 ? " ...\n" : "\n");
		}
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&dart->ctx_lock);
	return 0;
}

/* A table walk: valid L2 descriptors and runs of valid leaf PTEs. */
static int ane_dart_debugfs_tables(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_dart *dart = to_ane_device(entry->dev)->dart;
	struct ane_dart_ctx *ctx;
	u32 l2i, l3i, start;

	mutex_lock(&dart->ctx_lock);
	list_for_each_entry(ctx, &dart->ctx_list, node) {
		mutex_lock(&ctx->lock);
		seq_printf(m, "ctx %u: L2 at 0x%llx\n", ctx->id,
			   (u64)virt_to_phys(ctx->l2));
		for (l2i = 0; l2i < ANE_DART_L2_USED; l2i++) {
			u64 *l3 = ctx->l3[l2i];

			if (!l3)
				continue;
			seq_printf(m, "  L2[%4u] = 0x%016llx\n", l2i, ctx->l2[l2i]);
			for (l3i = 0; l3i < ANE_DART_PTES; l3i++) {
				if (!l3[l3i])
					continue;
				start = l3i;
				while (l3i + 1 < ANE_DART_PTES && l3[l3i + 1])
					l3i++;
				seq_printf(m, "    L3[%4u..%4u] iova 0x%08llx first pte 0x%016llx\n",
					   start, l3i,
					   ((u64)l2i << ANE_DART_L2_SHIFT) |
					   ((u64)start << ANE_DART_L3_SHIFT), l3[start]);
			}
		}
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&dart->ctx_lock);
	return 0;
}

static int ane_dart_debugfs_faults(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct ane_dart *dart = to_ane_device(entry->dev)->dart;
	unsigned int i, idx;

	spin_lock_irq(&dart->fault_lock);
	seq_printf(m, "faults %llu (last %u kept)\n", dart->fault_seq, dart->fault_count);
	for (i = dart->fault_count; i >= 1; i--) {
		struct ane_dart_fault *f;

		idx = (dart->fault_head + ANE_DART_FAULT_LOG - i) % ANE_DART_FAULT_LOG;
		f = &dart->faults[idx];
		seq_printf(m, "#%llu %s class=%s error=%u status=0x%08x %s sid=%u ctx=%u addr=0x%llx ttbr=%u l2=%u l3=%u\n",
			   f->seq, f->type, f->hw_class, f->hw_error, f->hw_status,
			   f->is_write ? "write" : "read", f->sid, f->ctx_id,
			   f->address, f->ttbr_index, f->l2_index, f->l3_index);
	}
	spin_unlock_irq(&dart->fault_lock);
	return 0;
}

/*
 * Writing dart_evict reclaims every idle mapping of every client context,
 * as address pressure would: for tests of what must survive eviction.  The
 * base context (kernel and firmware buffers) is never touched.
 */
static ssize_t ane_dart_evict_write(struct file *f, const char __user *ubuf,
				    size_t len, loff_t *pos)
{
	struct ane_device *adev = f->private_data;
	struct ane_dart *dart = adev->dart;
	struct ane_dart_ctx *ctx;
	int idx;

	if (!drm_dev_enter(&adev->drm, &idx))
		return -ENODEV;
	mutex_lock(&dart->ctx_lock);
	list_for_each_entry(ctx, &dart->ctx_list, node) {
		if (ctx == dart->base)
			continue;
		mutex_lock(&ctx->lock);
		while (ane_dart_evict_one(ctx))
			;
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&dart->ctx_lock);
	drm_dev_exit(idx);
	return len;
}

static const struct file_operations ane_dart_evict_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ane_dart_evict_write,
	.llseek = noop_llseek,
};

void ane_dart_debugfs_init(struct ane_device *adev)
{
	debugfs_create_file("dart_evict", 0200, adev->drm.debugfs_root,
			    adev, &ane_dart_evict_fops);
	drm_debugfs_add_file(&adev->drm, "dart", ane_dart_debugfs_summary, NULL);
	drm_debugfs_add_file(&adev->drm, "dart_mappings", ane_dart_debugfs_mappings, NULL);
	drm_debugfs_add_file(&adev->drm, "dart_tables", ane_dart_debugfs_tables, NULL);
	drm_debugfs_add_file(&adev->drm, "dart_faults", ane_dart_debugfs_faults, NULL);
}
