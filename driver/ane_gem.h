/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Surfaces: GEM buffer objects at the DART granule.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_GEM_H__
#define __ANE_GEM_H__

#include <linux/bits.h>
#include <linux/types.h>

#include <drm/drm_gem.h>

#include "ane_limits.h"

struct ane_device;
struct dma_buf_attachment;
struct sg_table;

/**
 * struct ane_bo - a surface
 * @base: the GEM object.
 * @nframes: 16 KB frames.
 * @frame_pa: physical address of each frame, 16 KB aligned.
 * @pages: every 4 KB page (@nframes * 16 KB / PAGE_SIZE); for an imported
 *	surface they are the exporter's, and are not freed here.
 * @vaddr: kernel mapping, made on first use, or NULL.
 * @sgt: the importer's scatter list, for an imported surface.
 */
struct ane_bo {
	struct drm_gem_object base;
	u32 nframes;
	phys_addr_t *frame_pa;
	struct page **pages;
	void *vaddr;
	struct sg_table *sgt;
};

#define to_ane_bo(obj) container_of(obj, struct ane_bo, base)

struct ane_bo *ane_bo_create(struct ane_device *adev, u64 size);
void *ane_bo_vmap(struct ane_bo *bo);

int ane_gem_sg_check(struct sg_table *sgt, u64 size);

#endif /* __ANE_GEM_H__ */
