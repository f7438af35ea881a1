/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Chains: what ane_chain.c (install, output sets, teardown) and
 * ane_chain_run.c (ProgramInputsReady, a run and its completion) share.
 * The locking is described in ane_chain.c.
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef __ANE_CHAIN_INTERNAL_H__
#define __ANE_CHAIN_INTERNAL_H__

#include <linux/spinlock.h>
#include <linux/types.h>

#include <drm/drm_file.h>
#include <drm/ane_accel.h>

#include "ane_image.h"

struct ane_dart_mapping;
struct ane_file;
struct ane_host;
struct ane_program;
struct drm_gem_object;

/**
 * struct ane_chain_set - an output set as the driver holds it
 * @n: output surfaces (the procedure's outputs).
 * @bos: the surfaces (references).
 * @maps: their mappings in the user's context, pinned.
 * @inter: the attached program's intermediate buffer, pinned, or NULL.
 */
struct ane_chain_set {
	u32 n;
	struct drm_gem_object *bos[ANE_IMG_MAX_IO];
	struct ane_dart_mapping *maps[ANE_IMG_MAX_IO];
	struct ane_dart_mapping *inter;
};

/**
 * struct ane_chain - one cache request of a program
 * @link: entry in &ane_program.chains.
 * @code: the program.
 * @handle: the firmware's cacheHandler.
 * @boots: the firmware host's boot count at install: a firmware booted
 *	since has no such request (-ESTALE).
 * @procedure: the chained procedure.
 * @num_inputs: its inputs.
 * @num_outputs: its outputs.
 * @group: its sharing group, or -1.
 * @user: the attached program whose client enqueued output sets on it,
 *	or NULL; cleared when that program is released.
 * @user_af: @user's client (compared, never dereferenced).
 * @last_ts: the last accepted exec timestamp.
 * @runs: runs triggered.
 * @lock: protects the fields below (see the file's comment).
 * @running: a run is in flight.
 * @armed: @cur is enqueued for the next run.
 * @dead: torn down while running: the run's completion frees it.
 * @cur: the enqueued output set.
 * @prev: the output set of the last completed run, chainable.
 * @pm: the firmware host whose engine the chain keeps powered up (a
 *	runtime PM reference from install to free: a power-down would lose
 *	the request the firmware holds), or NULL.
 */
struct ane_chain {
	struct list_head link;
	struct ane_program *code;
	u64 handle;
	u32 boots;
	u32 procedure;
	u32 num_inputs;
	u32 num_outputs;
	s32 group;
	struct ane_program *user;
	struct ane_file *user_af;
	u64 last_ts;
	u64 runs;
	spinlock_t lock;	/* run state */
	bool running;
	bool armed;
	bool dead;
	struct ane_chain_set cur;
	struct ane_chain_set prev;
	struct ane_host *pm;
};

/* The DRM event of a chained run. */
struct ane_chain_event {
	struct drm_pending_event base;
	struct drm_ane_event_complete ev;
};

/**
 * struct ane_chain_ref - a chain found for a direct-path client
 * @p: the client's attached program it was found through.
 * @owner: its owner, whose prog_lock is held (nested).
 * @c: the chain.
 */
struct ane_chain_ref {
	struct ane_program *p;
	struct ane_file *owner;
	struct ane_chain *c;
};

u32 ane_chain_prio(const struct ane_program *code);
void ane_chain_free(struct ane_chain *c);
int ane_chain_get_ref(struct ane_file *af, u64 handle, struct ane_chain_ref *ref);
void ane_chain_put_ref(struct ane_chain_ref *ref);

#endif /* __ANE_CHAIN_INTERNAL_H__ */
