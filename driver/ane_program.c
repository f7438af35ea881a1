// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs: the lifecycle selectors (ProgramCreate, Prepare, Unprepare,
 * Destroy, CreateInstance), the client's list of programs and instances,
 * and their release when the file closes.
 *
 * A program is a validated image copied into a kernel buffer that the
 * firmware reaches through the DART base context.  Prepare loads it into a
 * firmware program slot and creates its process; an instance shares its
 * program's code with weights of its own.  Requests, which run a prepared
 * program's procedures, are driver/ane_request.c's; each holds a reference
 * to its program, so a program outlives the file's list while one runs.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/ane_accel.h>

#include "ane_caps.h"
#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_host.h"
#include "ane_gem.h"
#include "ane_image.h"
#include "ane_program.h"
#include "ane_selector.h"
#include "firmware/spec/ane_fw_abi.h"

/* Default priority of a prepared program (application band 2..7). */
#define ANE_DEFAULT_PRIORITY		5

static void ane_program_release(struct kref *kref)
{
	struct ane_program *p = container_of(kref, struct ane_program, kref);
	struct ane_file *owner = p->owner;

	if (owner)
		ane_share_release(p);
	if (p->weights_map)
		WARN_ON(ane_dart_unmap(p->weights_map));
	if (p->weights)
		drm_gem_object_put(p->weights);
	if (p->parent)
		kref_put(&p->parent->kref, ane_program_release);
	else
		ane_kbuf_free(p->adev, &p->image);
	kfree(p);
	/* The owner's last reference may go here: its programs go with it. */
	if (owner)
		ane_file_put(owner);
}

/**
 * ane_program_put() - drop a reference to a program or an instance
 * @p: the program.
 *
 * The last reference unmaps and frees it, and drops an instance's
 * reference to its program.  Process context.
 */
void ane_program_put(struct ane_program *p)
{
	kref_put(&p->kref, ane_program_release);
}

/**
 * ane_program_find_locked() - the client's program or instance of a token
 * @af: the client, its &ane_file.prog_lock held.
 * @token: the token the client names it by.
 *
 * Return: the program (no reference taken), or NULL.
 */
struct ane_program *ane_program_find_locked(struct ane_file *af, u64 token)
{
	struct ane_program *p;

	lockdep_assert_held(&af->prog_lock);
	list_for_each_entry(p, &af->programs, link)
		if (p->token == token)
			return p;
	return NULL;
}

unsigned int ane_program_count_locked(struct ane_file *af)
{
	struct ane_program *p;
	unsigned int n = 0;

	list_for_each_entry(p, &af->programs, link)
		n++;
	return n;
}

/*
 * ProgramCreate's checks before anything is allocated: the size against
 * its limit, then the header alone, copied and checked by the validator's
 * rules (an image that cannot be valid costs nothing, however large its
 * image_size), then the intermediate buffer it asks for.  Sets @charge to
 * what the program will hold: its image and the intermediate buffer that
 * prepare allocates, in 16 KB frames (Documentation/accel/ane/security.rst).
 */
static int ane_program_create_check(struct ane_file *af,
				    const struct drm_ane_program_create *pc,
				    struct ane_img_header *hdr, u64 *charge)
{
	char field[ANE_IMG_FIELD_LEN];
	bool full;
	int ret;

	if (pc->flags || !pc->image_size)
		return -EINVAL;
	if (pc->image_size > ane_limit_image_size())
		return -E2BIG;
	memset(hdr, 0, sizeof(*hdr));
	if (pc->image_size >= sizeof(*hdr) &&
	    copy_from_user(hdr, u64_to_user_ptr(pc->image), sizeof(*hdr)))
		return -EFAULT;
	ret = ane_image_validate_header(hdr, pc->image_size, field);
	if (ret) {
		dev_info_ratelimited(af->adev->drm.dev,
				     "ProgramCreate: image refused at field %s (%d)\n",
				     field[0] ? field : "?", ret);
		return ret;
	}
	if (hdr->intermediate_size > ane_limit_surface_size())
		return -E2BIG;

	mutex_lock(&af->prog_lock);
	full = ane_program_count_locked(af) >= ANE_MAX_PROGRAMS_PER_FILE;
	mutex_unlock(&af->prog_lock);
	if (full)
		return -ENOSPC;

	*charge = round_up(pc->image_size, ANE_DART_PAGE_SIZE) +
		  round_up(hdr->intermediate_size, ANE_DART_PAGE_SIZE);
	return 0;
}

/* Control selector 3. */
int ane_sel_program_create(struct ane_file *af, const struct ane_selector *sel,
			   void *args)
{
	struct drm_ane_program_create *pc = args;
	struct ane_device *adev = af->adev;
	const void __user *uimg = u64_to_user_ptr(pc->image);
	char field[ANE_IMG_FIELD_LEN];
	struct ane_img_header hdr;
	struct ane_account *acct;
	struct ane_program *p;
	u64 charge;
	int ret;

	ret = ane_program_create_check(af, pc, &hdr, &charge);
	if (ret)
		return ret;
	acct = ane_file_account(af);
	if (IS_ERR(acct))
		return PTR_ERR(acct);
	ret = ane_account_charge(acct, charge);
	if (ret) {
		ane_dbg(adev, "ProgramCreate: %llu bytes over a memory limit: %d\n",
			charge, ret);
		return ret;
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p) {
		ane_account_uncharge(acct, charge);
		return -ENOMEM;
	}
	kref_init(&p->kref);
	INIT_LIST_HEAD(&p->chains);
	p->adev = adev;
	p->slot = -1;
	p->pid = -1;

	ret = ane_kbuf_alloc(adev, pc->image_size, ANE_USAGE_PROGRAM, &p->image);
	if (ret) {
		ane_account_uncharge(acct, charge);
		goto err_free;
	}
	/* From here the image returns the charge when it is freed. */
	ane_bo_set_charge(p->image.bo, acct, charge);
	/*
	 * The header is the copy already checked, not read again: the rest
	 * of the image cannot change what was charged for.
	 */
	memcpy(p->image.vaddr, &hdr, sizeof(hdr));
	if (copy_from_user(p->image.vaddr + sizeof(hdr), uimg + sizeof(hdr),
			   pc->image_size - sizeof(hdr))) {
		ret = -EFAULT;
		goto err_free;
	}
	ret = ane_image_validate(p->image.vaddr, pc->image_size, field);
	if (ret == -EINVAL) {
		dev_info_ratelimited(adev->drm.dev,
				     "ProgramCreate: image refused at field %s (%d)\n",
				     field[0] ? field : "?", ret);
		goto err_free;
	} else if (ret) {
		/* Not the image's fault (-ENOMEM while checking it). */
		ane_dbg(adev, "ProgramCreate: image not checked: %d\n", ret);
		goto err_free;
	}
	p->hdr = hdr;
	p->procs = p->image.vaddr + p->hdr.procedures_offset;
	p->bars = p->image.vaddr + p->hdr.bars_offset;
	p->token = ane_new_token(adev);
	/*
	 * The answer goes out before the program is listed: listed, it is
	 * another thread's of the file to destroy (and free) by its token,
	 * which that thread can read from ShowModelMemoryStatus at once.
	 */
	if (put_user(p->token, (u64 __user *)u64_to_user_ptr(pc->token_ptr))) {
		ret = -EFAULT;
		goto err_free;
	}

	mutex_lock(&af->prog_lock);
	if (ane_program_count_locked(af) >= ANE_MAX_PROGRAMS_PER_FILE) {
		mutex_unlock(&af->prog_lock);
		ret = -ENOSPC;
		goto err_free;
	}
	list_add_tail(&p->link, &af->programs);
	mutex_unlock(&af->prog_lock);
	return 0;

err_free:
	ane_program_put(p);
	return ret;
}

static int ane_prepare_args_check(const struct drm_ane_program_prepare_args *a,
				  bool unprepare)
{
	if ((a->flags & ~ANE_PREPARE_EXACT_PRIORITY) || a->program_slot ||
	    a->process_id || a->num_procedures ||
	    memchr_inv(a->reserved, 0, sizeof(a->reserved)))
		return -EINVAL;
	if (unprepare)
		return a->flags || a->queue_depth || a->priority ? -EINVAL : 0;
	if (a->queue_depth > ANE_DART_MAX_INFLIGHT)
		return -EINVAL;
	if (a->priority > 7)
		return -EINVAL;
	return 0;
}

/* The priority a prepare asks for: 0 is the default unless exact. */
static u32 ane_prepare_priority(const struct drm_ane_program_prepare_args *a)
{
	if (a->flags & ANE_PREPARE_EXACT_PRIORITY)
		return a->priority;
	return a->priority ?: ANE_DEFAULT_PRIORITY;
}

/*
 * Drop what prepare set up.  Called with prog_lock held.  The firmware
 * host takes the slot and process back whatever the firmware's state:
 * a release it cannot confirm keeps them reserved, never reused early.
 */
static void ane_program_unload_locked(struct ane_file *af, struct ane_program *p,
				      bool tell_fw)
{
	lockdep_assert_held(&af->prog_lock);
	/* Its chains go first: invalidated while the program is there. */
	ane_chains_fini_locked(af, p);
	if (tell_fw)
		ane_host_unload(ane_host(af), &p->fw);
	if (p->inter_map)
		WARN_ON(ane_dart_unmap(p->inter_map));
	if (p->inter)
		drm_gem_object_put(&p->inter->base);
	p->inter = NULL;
	p->inter_map = NULL;
	p->pid = -1;
	p->slot = -1;
	p->prepared = false;
}

/* Control selector 4. */
int ane_sel_program_prepare(struct ane_file *af, const struct ane_selector *sel,
			    void *args)
{
	struct drm_ane_program_prepare *pp = args;
	struct ane_device *adev = af->adev;
	struct ane_fw_load_program lp = { };
	struct ane_dart_ctx *ctx;
	struct ane_program *p;
	int ret;

	ret = ane_prepare_args_check(&pp->in, false);
	if (ret)
		return ret;
	/* The real-time band, 0 and 1, needs its capability (ane_caps.c). */
	ret = ane_caps_priority_check(ane_caps(af), ane_prepare_priority(&pp->in));
	if (ret)
		return ret;
	if (!ane_host(af))
		return -ENODEV;
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	mutex_lock(&af->prog_lock);
	p = ane_program_find_locked(af, pp->in.token);
	ret = !p ? -ENOENT : p->parent ? -EINVAL : p->prepared ? -EALREADY : 0;
	if (ret)
		goto out;

	if (p->hdr.intermediate_size) {
		p->inter = ane_bo_create(adev, p->hdr.intermediate_size);
		if (IS_ERR(p->inter)) {
			ret = PTR_ERR(p->inter);
			p->inter = NULL;
			goto err_unload;
		}
		p->inter_map = ane_dart_map(ctx, p->inter->frame_pa, p->inter->nframes,
					    ANE_USAGE_INTERMEDIATE, ANE_PROT_READ_WRITE, p);
		if (IS_ERR(p->inter_map)) {
			ret = PTR_ERR(p->inter_map);
			p->inter_map = NULL;
			goto err_unload;
		}
	}

	lp.proc_nbr = p->hdr.num_procedures;
	lp.image_iova = p->image.iova;
	lp.image_size = p->hdr.image_size;
	/* A slot, a process, LOAD_PROGRAM and CREATE_PROCESS, or nothing. */
	ret = ane_host_load(ane_host(af), &p->fw, &lp);
	if (ret)
		goto err_unload;
	p->slot = p->fw.slot;
	p->pid = p->fw.pid;
	p->prepared = true;
	p->priority = ane_prepare_priority(&pp->in);
	p->queue_depth = pp->in.queue_depth ?: ANE_DART_MAX_INFLIGHT;

	pp->out = pp->in;
	pp->out.priority = p->priority;
	pp->out.queue_depth = p->queue_depth;
	pp->out.program_slot = p->slot;
	pp->out.process_id = p->pid;
	pp->out.num_procedures = p->hdr.num_procedures;
	goto out;

err_unload:
	ane_program_unload_locked(af, p, false);
out:
	mutex_unlock(&af->prog_lock);
	return ret;
}

/* Control selector 5. */
int ane_sel_program_unprepare(struct ane_file *af, const struct ane_selector *sel,
			      void *args)
{
	struct drm_ane_program_unprepare *pu = args;
	struct ane_program *p;
	int ret;

	ret = ane_prepare_args_check(&pu->in, true);
	if (ret)
		return ret;
	mutex_lock(&af->prog_lock);
	p = ane_program_find_locked(af, pu->in.token);
	ret = !p ? -ENOENT : p->parent ? -EINVAL : !p->prepared ? -EALREADY :
	      atomic_read(&p->inflight) ? -EBUSY : 0;
	if (!ret)
		ane_program_unload_locked(af, p, true);
	mutex_unlock(&af->prog_lock);
	return ret;
}

/* Control selector 6. */
int ane_sel_program_destroy(struct ane_file *af, const struct ane_selector *sel,
			    void *args)
{
	struct drm_ane_program_destroy *pd = args;
	struct ane_program *p;
	int ret;

	if (pd->flags)
		return -EINVAL;
	mutex_lock(&af->prog_lock);
	p = ane_program_find_locked(af, pd->token);
	ret = !p ? -ENOENT : atomic_read(&p->inflight) || p->instances ? -EBUSY : 0;
	if (!ret) {
		if (p->prepared)
			ane_program_unload_locked(af, p, true);
		if (p->parent && !p->owner)
			p->parent->instances--;
		list_del(&p->link);
	}
	mutex_unlock(&af->prog_lock);
	if (!ret)
		ane_program_put(p);
	return ret;
}

/* Control selector 8. */
int ane_sel_program_create_instance(struct ane_file *af,
				    const struct ane_selector *sel, void *args)
{
	struct drm_ane_program_create_instance *ci = args;
	struct ane_program *prog, *inst;
	struct drm_gem_object *obj = NULL;
	struct ane_dart_ctx *ctx;
	int ret;

	if (ci->flags || ci->reserved)
		return -EINVAL;
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	inst = kzalloc(sizeof(*inst), GFP_KERNEL);
	if (!inst)
		return -ENOMEM;
	kref_init(&inst->kref);
	INIT_LIST_HEAD(&inst->chains);
	inst->adev = af->adev;
	inst->slot = -1;
	inst->pid = -1;
	inst->token = ane_new_token(af->adev);

	mutex_lock(&af->prog_lock);
	prog = ane_program_find_locked(af, ci->program);
	ret = !prog ? -ENOENT : prog->parent ? -EINVAL :
	      ane_program_count_locked(af) >= ANE_MAX_PROGRAMS_PER_FILE ? -ENOSPC : 0;
	if (ret)
		goto err;
	if (ci->weights) {
		obj = drm_gem_object_lookup(af->drm_file, ci->weights);
		if (!obj) {
			ret = -ENOENT;
			goto err;
		}
		/* From here the instance holds the reference, also on error. */
		inst->weights = obj;
		if (!prog->hdr.weights_size || obj->size < prog->hdr.weights_size) {
			ret = -EINVAL;
			goto err;
		}
		inst->weights_map = ane_dart_map(ctx, to_ane_bo(obj)->frame_pa,
						 to_ane_bo(obj)->nframes, ANE_USAGE_WEIGHTS,
						 ANE_PROT_READ_WRITE, inst);
		if (IS_ERR(inst->weights_map)) {
			ret = PTR_ERR(inst->weights_map);
			inst->weights_map = NULL;
			goto err;
		}
	}
	kref_get(&prog->kref);
	inst->parent = prog;
	prog->instances++;
	mutex_unlock(&af->prog_lock);

	/*
	 * The answer goes out before the instance is listed (and without the
	 * lock held: the write may fault): listed, the instance is another
	 * thread's of the file to destroy (and free) by its token.  Its
	 * program stays meanwhile: the instance holds it, and counts in
	 * instances.
	 */
	if (put_user(inst->token, (u64 __user *)u64_to_user_ptr(ci->token_ptr))) {
		ret = -EFAULT;
		goto err_unhold;
	}
	mutex_lock(&af->prog_lock);
	if (ane_program_count_locked(af) >= ANE_MAX_PROGRAMS_PER_FILE) {
		ret = -ENOSPC;
		goto err_unhold_locked;
	}
	list_add_tail(&inst->link, &af->programs);
	mutex_unlock(&af->prog_lock);
	return 0;

err_unhold:
	mutex_lock(&af->prog_lock);
err_unhold_locked:
	prog->instances--;
err:
	mutex_unlock(&af->prog_lock);
	ane_program_put(inst);
	return ret;
}

/* At the client's last reference: unload and free its programs. */
void ane_file_programs_fini(struct ane_file *af)
{
	struct ane_program *p, *tmp;
	LIST_HEAD(attached);

	mutex_lock(&af->prog_lock);
	/* Instances first: they hold their programs. */
	list_for_each_entry_safe(p, tmp, &af->programs, link) {
		if (!p->parent)
			continue;
		/*
		 * An attached program may hold its owner's last reference:
		 * dropped below, out of this client's lock.
		 */
		if (p->owner) {
			list_move(&p->link, &attached);
			continue;
		}
		p->parent->instances--;
		list_del(&p->link);
		ane_program_put(p);
	}
	list_for_each_entry_safe(p, tmp, &af->programs, link) {
		if (p->prepared)
			ane_program_unload_locked(af, p, true);
		list_del(&p->link);
		ane_program_put(p);
	}
	mutex_unlock(&af->prog_lock);
	list_for_each_entry_safe(p, tmp, &attached, link) {
		list_del(&p->link);
		ane_program_put(p);
	}
}
