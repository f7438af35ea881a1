// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DART, driver half: device addresses of a context.  The address
 * allocator (a drm_mm below the aperture end), placing a mapping and
 * writing its PTEs, map/unmap/find, the use pins that keep queued or
 * running work's mappings in place (requests count against the
 * outstanding-request cap once each, in ane_dart.c, not per pin), and
 * least-recently-used eviction of idle mappings under address pressure.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/atomic.h>
#include <linux/slab.h>

#include "ane_dart_internal.h"
#include "ane_trace.h"

/**
 * ane_dart_mapping_free() - free a mapping's memory
 * @map: the mapping, with no address range allocated.
 *
 * Takes @map off &ane_dart_ctx.mappings and frees it.  The caller holds
 * the context's lock or is its release, and has taken @map off the LRU
 * list (the release drops that list whole).
 */
void ane_dart_mapping_free(struct ane_dart_mapping *map)
{
	list_del(&map->link);
	kfree(map->frames);
	kfree(map);
}

/**
 * ane_dart_evict_one() - reclaim the least recently used idle mapping
 * @ctx: the context, locked.
 *
 * Clears the mapping's PTEs, flushes the translation cache and frees its
 * address range; the mapping stays on &ane_dart_ctx.mappings, evicted.
 * A mapping with users is never reclaimed.
 *
 * Return: false if no mapping is idle.
 */
bool ane_dart_evict_one(struct ane_dart_ctx *ctx)
{
	struct ane_dart_mapping *map;

	lockdep_assert_held(&ctx->lock);
	list_for_each_entry(map, &ctx->lru, lru) {
		if (atomic_read(&map->users))
			continue;
		ane_dart_clear_range(ctx, map->iova, map->nframes);
		ane_dart_flush_ctx(ctx);
		drm_mm_remove_node(&map->node);
		list_del_init(&map->lru);
		map->evicted = true;
		ctx->evictions++;
		return true;
	}
	return false;
}

/*
 * Give @map an address and write its PTEs, reclaiming idle mappings under
 * address pressure; it becomes the most recently used.
 */
static int ane_dart_place_locked(struct ane_dart_ctx *ctx,
				 struct ane_dart_mapping *map)
{
	int ret;

	lockdep_assert_held(&ctx->lock);
	do {
		ret = drm_mm_insert_node_generic(&ctx->mm, &map->node, map->size,
						 ANE_DART_PAGE_SIZE, 0,
						 DRM_MM_INSERT_BEST);
	} while (ret == -ENOSPC && ane_dart_evict_one(ctx));
	if (ret)
		return ret;
	map->iova = map->node.start;
	ret = ane_dart_set_range(ctx, map->iova, map->frames, map->nframes);
	if (ret) {
		drm_mm_remove_node(&map->node);
		return ret;
	}
	map->evicted = false;
	map->last_use = ++ctx->lru_clock;
	list_add_tail(&map->lru, &ctx->lru);
	return 0;
}

/**
 * ane_dart_map() - map frames at a new device address
 * @ctx: the context.
 * @frames: physical address of each 16 KB frame (16 KB aligned).
 * @nframes: frames, at least one.
 * @usage: usage code of Table 28.5.
 * @prot: protection class.
 * @owner: opaque tag of the mapping's owner.
 *
 * The address is allocated 16 KB aligned below the aperture end (and so
 * below the 4 GiB ceiling).  Under address pressure idle mappings are
 * reclaimed, least recently used first; a mapping with users is never.
 *
 * Return: the mapping, or ERR_PTR(-ENOSPC) when even eviction cannot make
 * room, -ENOMEM, or -EEXIST if a page was already valid.
 */
struct ane_dart_mapping *
ane_dart_map(struct ane_dart_ctx *ctx, const phys_addr_t *frames, u32 nframes,
	     u32 usage, u8 prot, void *owner)
{
	struct ane_dart_mapping *map;
	int ret;

	if (!nframes)
		return ERR_PTR(-EINVAL);
	/* Larger than the whole aperture: fail without evicting anything. */
	if ((u64)nframes * ANE_DART_PAGE_SIZE > ANE_DART_APERTURE_END - ANE_DART_ALLOC_START)
		return ERR_PTR(-ENOSPC);
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map)
		return ERR_PTR(-ENOMEM);
	map->frames = kmemdup(frames, nframes * sizeof(*frames),
			      GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!map->frames) {
		kfree(map);
		return ERR_PTR(-ENOMEM);
	}
	map->ctx = ctx;
	map->nframes = nframes;
	map->size = (u64)nframes * ANE_DART_PAGE_SIZE;
	map->usage = usage;
	map->prot = prot;
	map->owner = owner;
	INIT_LIST_HEAD(&map->lru);

	mutex_lock(&ctx->lock);
	ret = ane_dart_place_locked(ctx, map);
	if (ret)
		goto err_unlock;
	list_add_tail(&map->link, &ctx->mappings);
	mutex_unlock(&ctx->lock);
	trace_ane_map(ctx->id, map->iova, map->size, usage, prot);
	return map;

err_unlock:
	mutex_unlock(&ctx->lock);
	kfree(map->frames);
	kfree(map);
	return ERR_PTR(ret);
}

/**
 * ane_dart_unmap() - remove a mapping
 * @map: the mapping.
 *
 * The leaf PTEs go back to all-zero and the translation cache of the bound
 * slot is flushed before the address range is reused.
 *
 * Return: 0, or -EBUSY while queued or running work uses the mapping.
 */
int ane_dart_unmap(struct ane_dart_mapping *map)
{
	struct ane_dart_ctx *ctx = map->ctx;

	mutex_lock(&ctx->lock);
	if (atomic_read(&map->users)) {
		mutex_unlock(&ctx->lock);
		return -EBUSY;
	}
	if (!map->evicted) {
		ane_dart_clear_range(ctx, map->iova, map->nframes);
		ane_dart_flush_ctx(ctx);
		drm_mm_remove_node(&map->node);
		list_del(&map->lru);
	}
	trace_ane_unmap(ctx->id, map->iova, map->size, map->usage, map->prot);
	ane_dart_mapping_free(map);
	mutex_unlock(&ctx->lock);
	return 0;
}

/* Pin @map; an evicted one fails with -ESTALE or, if @place, is placed. */
static int __ane_dart_use(struct ane_dart_mapping *map, bool place)
{
	struct ane_dart_ctx *ctx = map->ctx;
	int ret = 0;

	mutex_lock(&ctx->lock);
	if (map->evicted)
		ret = place ? ane_dart_place_locked(ctx, map) : -ESTALE;
	if (!ret) {
		atomic_inc(&ctx->inflight);
		atomic_inc(&map->users);
		map->last_use = ++ctx->lru_clock;
		list_move_tail(&map->lru, &ctx->lru);
	}
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * ane_dart_use() - pin a mapping for queued or running work
 * @map: the mapping.
 *
 * A used mapping is the most recently used one and is never evicted.
 * Pins do not count against the pool's outstanding-request cap: the
 * request that takes them does, once (ane_request_pool_get()).
 *
 * Return: 0, or -ESTALE if the mapping was evicted.
 */
int ane_dart_use(struct ane_dart_mapping *map)
{
	return __ane_dart_use(map, false);
}

/**
 * ane_dart_use_placed() - pin a kernel-managed mapping, placing it again
 * @map: the mapping.
 *
 * Like ane_dart_use(), for a mapping whose address no client holds (a
 * request's surfaces, a program's own buffers): one that was evicted is
 * first given an address again, which may differ from the old one.
 *
 * Return: 0, or -ENOSPC, -ENOMEM or -EEXIST from placing it.
 */
int ane_dart_use_placed(struct ane_dart_mapping *map)
{
	return __ane_dart_use(map, true);
}

/**
 * ane_dart_unuse() - release a pin taken by ane_dart_use()
 * @map: the mapping.
 *
 * Context: any, including atomic (a request's completion).
 */
void ane_dart_unuse(struct ane_dart_mapping *map)
{
	struct ane_dart_ctx *ctx = map->ctx;

	if (!WARN_ON_ONCE(atomic_dec_if_positive(&map->users) < 0))
		atomic_dec(&ctx->inflight);
}
