/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Programs and their requests: what driver/ane_program.c (programs and
 * instances, their lifecycle selectors) and driver/ane_request.c
 * (ProgramSendRequest and the requests it starts) share.  Private to the
 * two files.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_PROGRAM_H__
#define __ANE_PROGRAM_H__

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_gem.h"
#include "ane_drv.h"
#include "ane_host.h"

struct ane_chain;
struct drm_gem_object;

/* Programs, instances and attached programs one client may hold. */
#define ANE_MAX_PROGRAMS_PER_FILE	64

/**
 * struct ane_program - a program or an instance of one
 * @link: entry in &ane_file.programs.
 * @adev: the device.
 * @kref: the file's reference and one per request and instance.
 * @token: the token the client names it by.
 * @parent: for an instance, the program whose code it shares.
 * @image: the validated image (base context, usage 9); programs only.
 * @hdr: the image's header.
 * @procs: the image's procedure table (inside @image).
 * @bars: the image's bar table (inside @image).
 * @prepared: loaded into the firmware.
 * @fw: its residency in the firmware while prepared: the device-wide
 *	record every firmware boot loads again (ane_host_load()).
 * @slot: firmware program slot while prepared (@fw.slot).
 * @pid: firmware process id while prepared (@fw.pid).
 * @priority: scheduling priority while prepared.
 * @queue_depth: requests it may have in flight.
 * @inter: the intermediate buffer while prepared, or NULL.
 * @inter_map: its mapping in the client's context.
 * @weights: an instance's own weights surface, or NULL.
 * @weights_map: its mapping in the client's context.
 * @inflight: requests submitted and not yet released.
 * @instances: instances of this program.
 * @chains: the program's chains (&struct ane_chain, driver/ane_chain.c),
 *	under &ane_file.prog_lock of the client that prepared it.
 * @chain_active: each sharing group's active chain, or NULL.
 * @owner: for a program attached from another client's export
 *	(driver/ane_share.c), that client: a reference, so the exported
 *	program stays prepared while attached; its &ane_file.prog_lock is
 *	taken, nested inside this client's, to read @parent's state.  @parent
 *	is the exported program, @inter and @inter_map are its intermediate
 *	buffer mapped into this client's context.  NULL otherwise.
 *
 * All but @kref, @inflight and @fw are protected by &ane_file.prog_lock;
 * @fw is the firmware host's (&ane_host.res_lock) from prepare to
 * unprepare.  Lock order: &ane_file.prog_lock, then the host's gate (for
 * reading), then &ane_host.res_lock; the host's recovery holds the
 * gate for writing and never takes a client's lock.
 * @inflight grows under it and drops without it, at a request's
 * completion (atomic context), so a check for zero under it stays true.
 */
struct ane_program {
	struct list_head link;
	struct ane_device *adev;
	struct kref kref;
	u64 token;
	struct ane_program *parent;
	struct ane_kbuf image;
	struct ane_img_header hdr;
	const struct ane_img_procedure *procs;
	const struct ane_img_bar *bars;
	bool prepared;
	struct ane_host_resident fw;
	int slot;
	int pid;
	u32 priority;
	u32 queue_depth;
	struct ane_bo *inter;
	struct ane_dart_mapping *inter_map;
	struct drm_gem_object *weights;
	struct ane_dart_mapping *weights_map;
	atomic_t inflight;
	unsigned int instances;
	struct list_head chains;
	struct ane_chain *chain_active[ANE_CHAIN_MAX_GROUPS];
	struct ane_file *owner;
};

/**
 * ane_program_code() - the program whose code runs for @p
 * @p: a program or an instance.
 *
 * Return: @p's parent for an instance, else @p itself: the one holding
 * the image, the firmware slot and process, the in-flight count.
 */
static inline struct ane_program *ane_program_code(struct ane_program *p)
{
	return p->parent ?: p;
}

/**
 * ane_host() - the firmware host of a client's device
 * @af: the client.
 *
 * Return: the host, or NULL when the device has no firmware.
 */
static inline struct ane_host *ane_host(struct ane_file *af)
{
	return af->adev->fwh;
}

struct ane_program *ane_program_find_locked(struct ane_file *af, u64 token);
void ane_program_put(struct ane_program *p);
unsigned int ane_program_count_locked(struct ane_file *af);

/* ane_share.c: the program hand-off between clients */
void ane_share_release(struct ane_program *p);

/* ane_chain.c: chains, the resident submission model */
void ane_chains_fini_locked(struct ane_file *af, struct ane_program *code);
void ane_chain_user_release(struct ane_program *p);

#endif /* __ANE_PROGRAM_H__ */
