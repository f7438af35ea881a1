// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chains: the resident submission model's selectors.
 *
 * A control client makes a chain of one procedure of a prepared program
 * with ProgramChainingPrepare (control selector 9): the firmware installs
 * a cache request (0x45) and hands back its handle.  A direct-path client
 * that attached the program (driver/ane_share.c) then runs it resident:
 * ProgramOutputSetEnqueue (direct 3) enqueues the output set the next run
 * writes (0x49, recycling the consumed one), ProgramInputsReady (direct 4)
 * names the inputs and triggers the run (0x209 on the IO channel), and an
 * input may be an output surface of the chain's previous run, which the
 * engine reads where that run wrote it: no copy through the host.
 * ProgramChainingSetActiveProcedure (direct 8) picks the active member
 * of a sharing group (0x4f).  The trigger and its completion are in
 * ane_chain_run.c; SessionHintRequest (direct 7) is ane_hint.c.
 * Documentation/accel/ane/resident.rst describes the model, its states
 * and its errors.
 *
 * Locking.  A chain belongs to its program, on &ane_program.chains under
 * the &ane_file.prog_lock of the client that prepared the program (the
 * owner); a direct-path client reaches it through an attached program,
 * taking the owner's lock nested inside its own, as its requests do.
 * &ane_chain.lock, a spinlock inside every other lock, protects the
 * chain's run state (@running, @armed, @cur, @prev, @dead) so that a
 * run's completion, under the firmware host's spinlock, can turn the
 * output set it wrote into the chainable previous set before the client
 * hears of it.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_host.h"
#include "ane_host_msg.h"
#include "ane_program.h"
#include "ane_selector.h"
#include "ane_chain_internal.h"
#include "firmware/spec/ane_fw_abi.h"

static bool ane_chain_stale(struct ane_file *af, struct ane_chain *c)
{
	return READ_ONCE(ane_host(af)->boots) != c->boots;
}

/*
 * The priority of a chain's commands: the program's, in the normal band
 * the firmware admits for chaining (2..7).
 */
u32 ane_chain_prio(const struct ane_program *code)
{
	return max_t(u32, code->priority, 2);
}

/* Unpin and drop an output set.  Process context. */
static void ane_chain_set_release(struct ane_chain_set *s)
{
	u32 i;

	for (i = 0; i < s->n; i++) {
		ane_dart_unuse(s->maps[i]);
		drm_gem_object_put(s->bos[i]);
	}
	if (s->inter)
		ane_dart_unuse(s->inter);
	memset(s, 0, sizeof(*s));
}

void ane_chain_free(struct ane_chain *c)
{
	ane_chain_set_release(&c->cur);
	ane_chain_set_release(&c->prev);
	if (c->pm)
		ane_host_pm_put(c->pm);
	kfree(c);
}

/*
 * Take @c off its program and tear it down in the firmware (0x48; a
 * firmware booted since holds nothing).  A chain running is freed by its
 * run's completion.  Under the owner's prog_lock.
 */
static void ane_chain_destroy_locked(struct ane_file *owner, struct ane_chain *c)
{
	struct ane_program *code = c->code;
	bool running;
	int g;

	lockdep_assert_held(&owner->prog_lock);
	list_del(&c->link);
	for (g = 0; g < ANE_CHAIN_MAX_GROUPS; g++)
		if (code->chain_active[g] == c)
			code->chain_active[g] = NULL;
	if (!ane_chain_stale(owner, c))
		ane_host_msg_cr_invalidate(ane_host(owner), ane_chain_prio(code),
					   c->handle);
	spin_lock_irq(&c->lock);
	running = c->running;
	c->dead = true;
	spin_unlock_irq(&c->lock);
	if (!running)
		ane_chain_free(c);
}

/**
 * ane_chains_fini_locked() - tear down every chain of a program
 * @af: the owner, its prog_lock held.
 * @code: the program, being unprepared.
 */
void ane_chains_fini_locked(struct ane_file *af, struct ane_program *code)
{
	struct ane_chain *c, *tmp;

	list_for_each_entry_safe(c, tmp, &code->chains, link)
		ane_chain_destroy_locked(af, c);
}

/**
 * ane_chain_user_release() - an attached program goes: its chains' sets
 * @p: the attached program, at its last reference (no run of it is in
 *	flight: a run holds a reference).
 *
 * The output sets it enqueued hold pins in its client's context, which
 * goes with it: they are released, and the chains are free for another
 * user.  Takes the owner's prog_lock; the caller holds no program lock.
 */
void ane_chain_user_release(struct ane_program *p)
{
	struct ane_file *owner = p->owner;
	struct ane_chain *c;

	struct ane_chain_set cur, prev;

	mutex_lock(&owner->prog_lock);
	list_for_each_entry(c, &p->parent->chains, link) {
		if (c->user != p)
			continue;
		c->user = NULL;
		c->user_af = NULL;
		spin_lock_irq(&c->lock);
		cur = c->cur;
		prev = c->prev;
		memset(&c->cur, 0, sizeof(c->cur));
		memset(&c->prev, 0, sizeof(c->prev));
		c->armed = false;
		spin_unlock_irq(&c->lock);
		ane_chain_set_release(&cur);
		ane_chain_set_release(&prev);
	}
	mutex_unlock(&owner->prog_lock);
}

/* ------------------------------------------------------------ selector 9 */

static int ane_chain_install(struct ane_file *af,
			     struct drm_ane_chaining_prepare *cp)
{
	struct ane_fw_cr_install in = { .nbr_output_sets = ANE_CHAIN_OUTPUT_SETS };
	const struct ane_img_procedure *pr;
	struct ane_program *p;
	struct ane_chain *c;
	int ret;

	if (cp->flags & ~(ANE_CHAIN_IN_GROUP | 3u << ANE_CHAIN_GROUP_SHIFT) ||
	    (!(cp->flags & ANE_CHAIN_IN_GROUP) && cp->flags))
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	spin_lock_init(&c->lock);
	c->group = cp->flags & ANE_CHAIN_IN_GROUP ?
		   (cp->flags >> ANE_CHAIN_GROUP_SHIFT) & 3 : -1;
	/* the engine stays up while the firmware holds the request */
	ret = ane_host_pm_get(ane_host(af));
	if (ret) {
		kfree(c);
		return ret;
	}
	c->pm = ane_host(af);

	mutex_lock(&af->prog_lock);
	p = ane_program_find_locked(af, cp->token);
	ret = !p ? -ENOENT : p->parent ? -EINVAL : !p->prepared ? -EBADFD :
	      cp->procedure >= p->hdr.num_procedures ? -EINVAL : 0;
	if (ret)
		goto err;
	pr = &p->procs[cp->procedure];
	/* The cache-request path admits content types 0 and 3 (ch. 30). */
	if (pr->content_type != 0 && pr->content_type != 3) {
		ret = -EOPNOTSUPP;
		goto err;
	}
	in.procedure = cp->procedure;
	in.nbr_input_buffers = pr->num_inputs;
	in.group = c->group < 0 ? 0 : c->group;
	c->boots = READ_ONCE(ane_host(af)->boots);
	ret = ane_host_msg_cr_install(ane_host(af), p->slot, p->pid,
				      ane_chain_prio(p), &in, &c->handle);
	if (ret) {
		/* the firmware's index pool of 16 is empty */
		if (ret == -EBUSY)
			ret = -ENOSPC;
		goto err;
	}
	c->code = p;
	c->procedure = cp->procedure;
	c->num_inputs = pr->num_inputs;
	c->num_outputs = pr->num_outputs;
	/*
	 * The answer is filled in before the lock goes: once the chain is on
	 * the list, a ProgramDestroy of another thread of the file (a dup,
	 * a fork) may free it as soon as the lock is free.
	 */
	cp->cache_handle = c->handle;
	cp->max_inputs = c->num_inputs;
	cp->max_outputs = ANE_CHAIN_OUTPUT_SETS;
	cp->reserved = 0;
	list_add_tail(&c->link, &p->chains);
	mutex_unlock(&af->prog_lock);
	return 0;
err:
	mutex_unlock(&af->prog_lock);
	ane_host_pm_put(c->pm);
	kfree(c);
	return ret;
}

/* Control selector 9. */
int ane_sel_chaining_prepare(struct ane_file *af,
			     const struct ane_selector *sel, void *args)
{
	struct drm_ane_chaining_prepare *cp = args;
	struct ane_program *p;
	struct ane_chain *c;

	if (!ane_host(af))
		return -ENODEV;
	if (cp->flags != ANE_CHAIN_INVALIDATE)
		return ane_chain_install(af, cp);
	if (cp->procedure)
		return -EINVAL;
	mutex_lock(&af->prog_lock);
	list_for_each_entry(p, &af->programs, link)
		list_for_each_entry(c, &p->chains, link)
			if (c->handle == cp->token) {
				ane_chain_destroy_locked(af, c);
				mutex_unlock(&af->prog_lock);
				return 0;
			}
	mutex_unlock(&af->prog_lock);
	return -ENOENT;
}

/* ---------------------------------------------- the direct-path selectors */

/*
 * Find the chain @handle among the client's attached programs; on 0 the
 * owner's lock is held (nested in the client's, which the caller holds)
 * until ane_chain_put_ref().
 */
int ane_chain_get_ref(struct ane_file *af, u64 handle,
		      struct ane_chain_ref *ref)
{
	struct ane_program *p;
	struct ane_chain *c;

	lockdep_assert_held(&af->prog_lock);
	list_for_each_entry(p, &af->programs, link) {
		if (!p->owner)
			continue;
		mutex_lock_nested(&p->owner->prog_lock, SINGLE_DEPTH_NESTING);
		list_for_each_entry(c, &p->parent->chains, link) {
			if (c->handle != handle)
				continue;
			/* one client uses a chain, through the attachment it first used */
			if (c->user && c->user_af != af) {
				mutex_unlock(&p->owner->prog_lock);
				return -EBUSY;
			}
			if (ane_chain_stale(af, c)) {
				mutex_unlock(&p->owner->prog_lock);
				return -ESTALE;
			}
			*ref = (struct ane_chain_ref){ c->user ?: p, p->owner, c };
			return 0;
		}
		mutex_unlock(&p->owner->prog_lock);
	}
	return -ENOENT;
}

void ane_chain_put_ref(struct ane_chain_ref *ref)
{
	mutex_unlock(&ref->owner->prog_lock);
}

/* The image bar of input or output @io of the chain's procedure, or NULL. */
static const struct ane_img_bar *ane_chain_bar(const struct ane_chain *c,
					       u32 usage, u32 io)
{
	const struct ane_program *code = c->code;
	u32 i;

	for (i = 0; i < code->hdr.num_bars; i++)
		if (code->bars[i].usage == usage && code->bars[i].io_index == io)
			return &code->bars[i];
	return NULL;
}

/*
 * Map and pin the output surfaces of @refs into @s (a set being built);
 * the references and pins are in @s also on error.
 */
static int ane_chain_set_build(struct ane_file *af, const struct ane_chain *c,
			       const struct drm_ane_surface_ref *refs, u32 n,
			       struct ane_chain_set *s)
{
	struct drm_gem_object *byidx[ANE_IMG_MAX_IO] = { };
	const struct ane_img_bar *b;
	struct ane_dart_mapping *m;
	u32 i, seen = 0;

	/* every entry checked before any surface is looked up */
	for (i = 0; i < n; i++) {
		const struct drm_ane_surface_ref *r = &refs[i];

		if (r->kind != ANE_SURFACE_OUTPUT || r->reserved ||
		    r->bar >= c->num_outputs || seen & BIT(r->bar) || !r->handle)
			return -EINVAL;
		seen |= BIT(r->bar);
	}
	for (i = 0; i < n; i++) {
		byidx[refs[i].bar] = drm_gem_object_lookup(af->drm_file,
							   refs[i].handle);
		if (!byidx[refs[i].bar]) {
			/* drop the ones found so far */
			while (i--)
				drm_gem_object_put(byidx[refs[i].bar]);
			return -ENOENT;
		}
	}
	/* in output index order, as the firmware takes them */
	for (i = 0; i < n; i++) {
		s->bos[i] = byidx[i];
		m = ane_file_surface_map(af, byidx[i], ANE_USAGE_OUTPUT,
					 ANE_PROT_READ_WRITE);
		if (IS_ERR(m)) {
			/* the rest are not ours yet */
			for (; i < n; i++)
				drm_gem_object_put(byidx[i]);
			return PTR_ERR(m);
		}
		s->maps[s->n++] = m;
		b = ane_chain_bar(c, ANE_USAGE_OUTPUT, i);
		if (b && m->size < b->size) {
			for (i++; i < n; i++)
				drm_gem_object_put(byidx[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* Direct-path selector 3. */
int ane_sel_output_set_enqueue(struct ane_file *af,
			       const struct ane_selector *sel, void *args)
{
	struct drm_ane_output_set_enqueue *oe = args;
	struct drm_ane_surface_ref refs[ANE_IMG_MAX_IO];
	struct ane_fw_cr_output_set *os;
	struct ane_chain_set s = { }, old;
	struct ane_chain_ref ref;
	struct ane_dart_ctx *ctx;
	struct ane_chain *c;
	int ret, sid;
	u32 i;

	if (oe->flags || oe->reserved)
		return -EINVAL;
	if (oe->output_set >= ANE_CHAIN_OUTPUT_SETS)
		return -ERANGE;
	if (oe->num_surfaces > ANE_IMG_MAX_IO)
		return -E2BIG;
	if (!ane_host(af))
		return -ENODEV;
	if (copy_from_user(refs, u64_to_user_ptr(oe->surfaces),
			   oe->num_surfaces * sizeof(refs[0])))
		return -EFAULT;
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	os = kzalloc(sizeof(*os), GFP_KERNEL);
	if (!os)
		return -ENOMEM;

	mutex_lock(&af->prog_lock);
	ret = ane_chain_get_ref(af, oe->cache_handle, &ref);
	if (ret)
		goto out_unlock;
	c = ref.c;
	spin_lock_irq(&c->lock);
	ret = c->running ? -EBUSY : 0;
	spin_unlock_irq(&c->lock);
	if (!ret && oe->num_surfaces != c->num_outputs)
		ret = -EINVAL;
	if (!ret)
		ret = ane_chain_set_build(af, c, refs, oe->num_surfaces, &s);
	if (!ret && ref.p->inter_map) {
		ret = ane_dart_use_placed(ref.p->inter_map);
		if (!ret)
			s.inter = ref.p->inter_map;
	}
	/* pinned mappings keep the context's slot: the stream of the set */
	sid = ret ? ret : ane_dart_bind(ctx);
	if (sid < 0) {
		ret = sid;
		goto out_put;
	}
	os->cache_handler = c->handle;
	os->output_set_id = oe->output_set;
	os->sid = sid;
	os->nbr_buffers = s.n;
	for (i = 0; i < s.n; i++)
		os->buffers[i] = (struct ane_fw_buf_desc){
			.type = ANE_FW_BUF_OUTPUT, .addr = s.maps[i]->iova,
			.size = s.maps[i]->size };
	if (s.inter)
		os->intermediate = (struct ane_fw_buf_desc){
			.type = ANE_FW_BUF_OUTPUT, .addr = s.inter->iova,
			.size = s.inter->size };
	ret = ane_host_msg_cr_output_set(ane_host(af), ane_chain_prio(c->code), os);
	if (ret)
		goto out_put;
	c->user = ref.p;
	c->user_af = af;
	spin_lock_irq(&c->lock);
	old = c->cur;
	c->cur = s;
	c->armed = true;
	spin_unlock_irq(&c->lock);
	s = old;	/* a set enqueued before and never run is replaced */
out_put:
	ane_chain_set_release(&s);
	ane_chain_put_ref(&ref);
out_unlock:
	mutex_unlock(&af->prog_lock);
	kfree(os);
	return ret;
}

/* Direct-path selector 8. */
int ane_sel_chaining_set_active(struct ane_file *af,
				const struct ane_selector *sel, void *args)
{
	struct drm_ane_chaining_set_active *sa = args;
	struct ane_chain_ref ref;
	struct ane_chain *c;
	int ret;

	if (sa->flags || sa->reserved)
		return -EINVAL;
	if (sa->group >= ANE_CHAIN_MAX_GROUPS)
		return -ERANGE;
	if (!ane_host(af))
		return -ENODEV;
	mutex_lock(&af->prog_lock);
	ret = ane_chain_get_ref(af, sa->cache_handle, &ref);
	if (ret)
		goto out;
	c = ref.c;
	ret = c->group != (s32)sa->group || c->procedure != sa->procedure ?
	      -EINVAL : 0;
	if (!ret)
		ret = ane_host_msg_cr_group_select(ane_host(af),
						   ane_chain_prio(c->code),
						   c->handle, sa->group);
	if (!ret)
		c->code->chain_active[sa->group] = c;
	ane_chain_put_ref(&ref);
out:
	mutex_unlock(&af->prog_lock);
	return ret;
}
