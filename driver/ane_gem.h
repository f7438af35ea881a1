/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Surfaces: GEM buffer objects at the DART granule, and the driver's own
 * kernel buffers shared with the engine (a buffer object mapped in the
 * DART's base context).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_GEM_H__
#define __ANE_GEM_H__

#include <linux/bits.h>
#include <linux/types.h>

#include <drm/drm_gem.h>

#include "ane_limits.h"

struct ane_account;
struct ane_dart_mapping;
struct ane_device;
struct ane_file;
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
 * @acct: the client account @charged is charged to (a reference), or NULL
 *	for the driver's own buffers and imported surfaces.
 * @charged: bytes charged to @acct, returned when the surface is freed.
 */
struct ane_bo {
	struct drm_gem_object base;
	u32 nframes;
	phys_addr_t *frame_pa;
	struct page **pages;
	void *vaddr;
	struct sg_table *sgt;
	struct ane_account *acct;
	u64 charged;
};

#define to_ane_bo(obj) container_of(obj, struct ane_bo, base)

struct ane_bo *ane_bo_create(struct ane_device *adev, u64 size);
void *ane_bo_vmap(struct ane_bo *bo);

int ane_gem_sg_check(struct sg_table *sgt, u64 size);

/**
 * struct ane_kbuf - a kernel buffer shared with the engine
 * @vaddr: kernel mapping of the whole buffer.
 * @iova: device address in the base context (stream 0).
 * @size: bytes (a multiple of 16 KB).
 * @bo: the backing buffer object.
 * @map: its base-context mapping.
 */
struct ane_kbuf {
	void *vaddr;
	u64 iova;
	size_t size;
	struct ane_bo *bo;
	struct ane_dart_mapping *map;
};

int ane_kbuf_alloc(struct ane_device *adev, size_t size, u32 usage,
		   struct ane_kbuf *kb);
void ane_kbuf_free(struct ane_device *adev, struct ane_kbuf *kb);

/* ane_quota.c: memory limits and what each client has charged. */
u64 ane_limit_image_size(void);
u64 ane_limit_surface_size(void);
struct ane_account *ane_file_account(struct ane_file *af);
int ane_account_charge(struct ane_account *acct, u64 bytes);
void ane_account_uncharge(struct ane_account *acct, u64 bytes);
void ane_bo_set_charge(struct ane_bo *bo, struct ane_account *acct, u64 bytes);

#endif /* __ANE_GEM_H__ */
