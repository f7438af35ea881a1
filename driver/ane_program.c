// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs: the lifecycle selectors (ProgramCreate, Prepare, Unprepare,
 * Destroy, CreateInstance) and ProgramSendRequest.
 *
 * A program is a validated image copied into a kernel buffer that the
 * firmware reaches through the DART base context.  Prepare loads it into a
 * firmware program slot and creates its process; a request maps its
 * surfaces into the client's isolation context, binds every bar of the
 * image to a device address and sends one procedure call.  Completion
 * arrives from the firmware as a program event: the request's pins drop,
 * then its fence is signalled and the DRM event queued on the file, all in
 * the completion itself; a work item drops its references afterwards.  A
 * request holds references to its file, program and surfaces, so closing
 * the file never waits for it.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/dma-fence.h>
#include <linux/llist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_fw_host.h"
#include "ane_gem.h"
#include "ane_image.h"
#include "ane_selector.h"
#include "firmware/ane_fw_abi.h"

/* Programs and instances one client may hold. */
#define ANE_MAX_PROGRAMS_PER_FILE	64
/* Default priority of a prepared program (application band 2..7). */
#define ANE_DEFAULT_PRIORITY		5

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
 *	record every firmware boot loads again (ane_fw_host_load()).
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
 *
 * All but @kref, @inflight and @fw are protected by &ane_file.prog_lock;
 * @fw is the firmware host's (&ane_fw_host.res_lock) from prepare to
 * unprepare.  Lock order: &ane_file.prog_lock, then the host's gate (for
 * reading), then &ane_fw_host.res_lock; the host's recovery holds the
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
	struct ane_fw_resident fw;
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
};

/* The DRM event of a request; DRM frees it once read or the file closes. */
struct ane_request_event {
	struct drm_pending_event base;
	struct drm_ane_event_complete ev;
};

/**
 * struct ane_request - one ProgramSendRequest until released
 * @fence: signalled at completion; the request lives as long as it.
 * @hreq: the firmware command, completed by the program event.
 * @reap: entry in the list of completed requests the reaper releases.
 * @af: the client (a reference).
 * @prog: the program or instance (a reference).
 * @event: the DRM event, handed to DRM at completion.
 * @nmaps: entries of @maps in use.
 * @maps: mappings pinned for the request (the surfaces' cached mappings).
 * @bos: references on the request's surfaces.
 * @nbos: entries of @bos.
 */
struct ane_request {
	struct dma_fence fence;
	struct ane_fw_hreq hreq;
	struct llist_node reap;
	struct ane_file *af;
	struct ane_program *prog;
	struct ane_request_event *event;
	u32 nmaps;
	struct ane_dart_mapping *maps[ANE_IMG_MAX_IO * 2 + 2];
	struct drm_gem_object *bos[ANE_IMG_MAX_IO * 2 + 1];
	u32 nbos;
};

static struct ane_program *ane_program_code(struct ane_program *p)
{
	return p->parent ?: p;
}

static void ane_program_release(struct kref *kref)
{
	struct ane_program *p = container_of(kref, struct ane_program, kref);

	if (p->weights_map)
		WARN_ON(ane_dart_unmap(p->weights_map));
	if (p->weights)
		drm_gem_object_put(p->weights);
	if (p->parent)
		kref_put(&p->parent->kref, ane_program_release);
	else
		ane_kbuf_free(p->adev, &p->image);
	kfree(p);
}

static void ane_program_put(struct ane_program *p)
{
	kref_put(&p->kref, ane_program_release);
}

static struct ane_program *ane_program_find_locked(struct ane_file *af, u64 token)
{
	struct ane_program *p;

	lockdep_assert_held(&af->prog_lock);
	list_for_each_entry(p, &af->programs, link)
		if (p->token == token)
			return p;
	return NULL;
}

static unsigned int ane_program_count_locked(struct ane_file *af)
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
	if (ret) {
		dev_info_ratelimited(adev->drm.dev,
				     "ProgramCreate: image refused at field %s (%d)\n",
				     field[0] ? field : "?", ret);
		goto err_free;
	}
	p->hdr = hdr;
	p->procs = p->image.vaddr + p->hdr.procedures_offset;
	p->bars = p->image.vaddr + p->hdr.bars_offset;
	p->token = ane_new_token(adev);

	mutex_lock(&af->prog_lock);
	if (ane_program_count_locked(af) >= ANE_MAX_PROGRAMS_PER_FILE) {
		mutex_unlock(&af->prog_lock);
		ret = -ENOSPC;
		goto err_free;
	}
	list_add_tail(&p->link, &af->programs);
	mutex_unlock(&af->prog_lock);

	if (put_user(p->token, (u64 __user *)u64_to_user_ptr(pc->token_ptr))) {
		mutex_lock(&af->prog_lock);
		list_del(&p->link);
		mutex_unlock(&af->prog_lock);
		ane_program_put(p);
		return -EFAULT;
	}
	return 0;

err_free:
	ane_program_put(p);
	return ret;
}

static int ane_prepare_args_check(const struct drm_ane_program_prepare_args *a,
				  bool unprepare)
{
	if (a->flags || a->program_slot || a->process_id || a->num_procedures ||
	    memchr_inv(a->reserved, 0, sizeof(a->reserved)))
		return -EINVAL;
	if (unprepare)
		return a->queue_depth || a->priority ? -EINVAL : 0;
	if (a->queue_depth > ANE_DART_MAX_INFLIGHT)
		return -EINVAL;
	if (a->priority && (a->priority < 2 || a->priority > 7))
		return -EINVAL;
	return 0;
}

static struct ane_fw_host *ane_host(struct ane_file *af)
{
	return af->adev->fwh;
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
	if (tell_fw)
		ane_fw_host_unload(ane_host(af), &p->fw);
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
	ret = ane_fw_host_load(ane_host(af), &p->fw, &lp);
	if (ret)
		goto err_unload;
	p->slot = p->fw.slot;
	p->pid = p->fw.pid;
	p->prepared = true;
	p->priority = pp->in.priority ?: ANE_DEFAULT_PRIORITY;
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
		if (p->parent)
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
	inst->adev = af->adev;
	inst->slot = -1;
	inst->pid = -1;

	mutex_lock(&af->prog_lock);
	prog = ane_program_find_locked(af, ci->program);
	ret = !prog ? -ENOENT : prog->parent ? -EINVAL :
	      ane_program_count_locked(af) >= ANE_MAX_PROGRAMS_PER_FILE ? -ENOSPC : 0;
	if (ret)
		goto err;
	if (ci->weights) {
		obj = drm_gem_object_lookup(af->drm_file, ci->weights);
		ret = !obj ? -ENOENT : !prog->hdr.weights_size ||
		      obj->size < prog->hdr.weights_size ? -EINVAL : 0;
		if (ret)
			goto err;
		inst->weights = obj;
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
	inst->token = ane_new_token(af->adev);
	list_add_tail(&inst->link, &af->programs);
	mutex_unlock(&af->prog_lock);

	if (put_user(inst->token, (u64 __user *)u64_to_user_ptr(ci->token_ptr))) {
		struct drm_ane_program_destroy pd = { .token = inst->token };

		ane_sel_program_destroy(af, sel, &pd);
		return -EFAULT;
	}
	return 0;

err:
	mutex_unlock(&af->prog_lock);
	ane_program_put(inst);
	return ret;
}

/* ------------------------------------------------------------- requests */

static const char *ane_fence_driver_name(struct dma_fence *f)
{
	return ANE_DRIVER_NAME;
}

static const char *ane_fence_timeline_name(struct dma_fence *f)
{
	return "ane-requests";
}

static void ane_fence_release(struct dma_fence *f)
{
	kfree(container_of(f, struct ane_request, fence));
}

static const struct dma_fence_ops ane_fence_ops = {
	.get_driver_name = ane_fence_driver_name,
	.get_timeline_name = ane_fence_timeline_name,
	.release = ane_fence_release,
};

/*
 * Unpin what the request used and tell userspace: the pins and the
 * program's in-flight count drop before the fence and the DRM event, so a
 * client that saw the completion finds the program idle.  Any context.
 */
static void ane_request_unpin(struct ane_request *rq)
{
	u32 i;

	for (i = 0; i < rq->nmaps; i++)
		ane_dart_unuse(rq->maps[i]);
	atomic_dec(&ane_program_code(rq->prog)->inflight);
}

/* Drop the request's references.  Process context. */
static void ane_request_put(struct ane_request *rq)
{
	struct ane_file *af = rq->af;
	u32 i;

	for (i = 0; i < rq->nbos; i++)
		drm_gem_object_put(rq->bos[i]);
	ane_file_surfaces_reap(af);
	ane_program_put(rq->prog);
	ane_file_put(af);
	dma_fence_put(&rq->fence);
}

/*
 * Completed requests are released in batches, off the completion path: a
 * completion only queues the request here, and the reaper, run a tick
 * later, drops the references of every request queued meanwhile.  The
 * client has heard of each completion already; what waits is the memory.
 */
static LLIST_HEAD(ane_reap_list);

static void ane_request_reaper(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&ane_reap_list);
	struct ane_request *rq, *tmp;

	llist_for_each_entry_safe(rq, tmp, list, reap)
		ane_request_put(rq);
}

static DECLARE_DELAYED_WORK(ane_reap_work, ane_request_reaper);

/**
 * ane_requests_drain() - release every completed request now
 *
 * At module exit, once no device is left to complete one.
 */
void ane_requests_drain(void)
{
	cancel_delayed_work_sync(&ane_reap_work);
	ane_request_reaper(NULL);
}

/*
 * The firmware's program event (or a cancellation) completed the request.
 * Called under the firmware host's spinlock: no sleeping, no sending.  The
 * client hears of it here, directly; only the reference drops wait for
 * the work item.
 */
static void ane_request_complete(struct ane_fw_hreq *hreq)
{
	struct ane_request *rq = container_of(hreq, struct ane_request, hreq);
	const struct ane_fw_program_event *pe = (const void *)hreq->data;
	struct ane_file *af = rq->af;
	int status = hreq->status;

	/* A translation fault reads -EFAULT from the firmware's status. */
	if (status == -EFAULT)
		status = -ENXIO;
	rq->event->ev.status = status;
	if (hreq->len >= sizeof(*pe)) {
		rq->event->ev.exec_ns = pe->exec_ns;
		atomic64_add(pe->exec_ns, &af->engine_ns);
		atomic64_add(pe->exec_ns, &af->adev->engine_ns);
	}

	ane_request_unpin(rq);
	if (status)
		dma_fence_set_error(&rq->fence, status);
	dma_fence_signal(&rq->fence);
	atomic64_inc(&af->completed);
	drm_send_event(&af->adev->drm, &rq->event->base);
	if (llist_add(&rq->reap, &ane_reap_list))
		queue_delayed_work(ane_wq, &ane_reap_work, 1);
}

/* The surface's pinned mapping for the request; 0 or an errno. */
static int ane_request_map(struct ane_request *rq, struct ane_file *af,
			   struct drm_gem_object *obj, u32 usage, u8 prot)
{
	struct ane_dart_mapping *map;

	map = ane_file_surface_map(af, obj, usage, prot);
	if (IS_ERR(map))
		return PTR_ERR(map);
	rq->maps[rq->nmaps++] = map;
	return 0;
}

/* Pin a program's own mapping; one the DART evicted is placed again. */
static int ane_request_pin(struct ane_request *rq, struct ane_dart_mapping *map)
{
	int ret = ane_dart_use_placed(map);

	if (!ret)
		rq->maps[rq->nmaps++] = map;
	return ret;
}

struct ane_req_surfaces {
	struct drm_gem_object *in[ANE_IMG_MAX_IO];
	struct drm_gem_object *out[ANE_IMG_MAX_IO];
	struct drm_gem_object *inter;
	u32 syncobj;
};

/* Parse and look up the request's surfaces; references go to @rq->bos. */
static int ane_request_surfaces(struct ane_file *af, struct ane_request *rq,
				const struct drm_ane_request *in,
				const struct ane_img_procedure *pr,
				struct ane_req_surfaces *s)
{
	u32 i, nin = 0, nout = 0;

	for (i = 0; i < ANE_REQ_MAX_SURFACES; i++) {
		const struct drm_ane_surface_ref *r = &in->surfaces[i];
		struct drm_gem_object **slot;

		if (!r->handle) {
			if (memchr_inv(&in->surfaces[i], 0,
				       (ANE_REQ_MAX_SURFACES - i) * sizeof(*r)))
				return -EINVAL;
			break;
		}
		if (r->reserved)
			return -EINVAL;
		switch (r->kind) {
		case ANE_SURFACE_INPUT:
			if (r->bar >= pr->num_inputs || s->in[r->bar])
				return -EINVAL;
			slot = &s->in[r->bar];
			nin++;
			break;
		case ANE_SURFACE_OUTPUT:
			if (r->bar >= pr->num_outputs || s->out[r->bar])
				return -EINVAL;
			slot = &s->out[r->bar];
			nout++;
			break;
		case ANE_SURFACE_INTERMEDIATE:
			if (r->bar || s->inter)
				return -EINVAL;
			slot = &s->inter;
			break;
		case ANE_SURFACE_OUT_SYNCOBJ:
			if (r->bar || s->syncobj)
				return -EINVAL;
			s->syncobj = r->handle;
			continue;
		default:
			return -EINVAL;
		}
		if (rq->nbos == ARRAY_SIZE(rq->bos))
			return -EINVAL;
		*slot = drm_gem_object_lookup(af->drm_file, r->handle);
		if (!*slot)
			return -ENOENT;
		rq->bos[rq->nbos++] = *slot;
	}
	return nin == pr->num_inputs && nout == pr->num_outputs ? 0 : -EINVAL;
}

/* Fill the custom bar of image bar @b; 0, or -EINVAL for a short surface. */
static int ane_request_bar(struct ane_request *rq, struct ane_program *p,
			   const struct ane_img_bar *b, const struct ane_req_surfaces *s,
			   struct ane_dart_mapping **maps, u32 sid, struct ane_fw_bar *fb)
{
	const struct ane_program *code = ane_program_code(p);
	struct ane_dart_mapping *m = NULL;

	fb->type = ANE_CUSTOM_BAR_GENERIC;
	fb->config = ANE_CUSTOM_BAR_HW_32BIT;
	fb->bar_id = b->slot;
	fb->sid = sid;
	switch (b->usage) {
	case ANE_USAGE_INPUT:
		m = maps[b->io_index];
		break;
	case ANE_USAGE_OUTPUT:
		m = maps[ANE_IMG_MAX_IO + b->io_index];
		break;
	case ANE_USAGE_INTERMEDIATE:
		m = maps[2 * ANE_IMG_MAX_IO];
		break;
	case ANE_USAGE_WEIGHTS:
		if (p->weights_map) {
			m = p->weights_map;
			break;
		}
		fb->sid = ANE_DART_BASE_SID;
		fb->value = code->image.iova + code->hdr.weights_offset;
		fb->buf_size = code->hdr.weights_size;
		return 0;
	case ANE_USAGE_CONSTANTS:
		fb->sid = ANE_DART_BASE_SID;
		fb->value = code->image.iova + code->hdr.constants_offset;
		fb->buf_size = code->hdr.constants_size;
		return 0;
	}
	if (!m || m->size < b->size)
		return -EINVAL;
	fb->value = m->iova;
	fb->buf_size = m->size;
	return 0;
}

/*
 * Selector 2's 2384 input bytes are mostly its surface list, of which a
 * request uses a few entries and leaves the rest zero.  Copy the head and
 * the entries up to the first empty one; the rest is read word by word
 * (check_zeroed_user()) and copied only if it is not all zero, so the
 * handler sees exactly what a whole copy would have given it.
 */
int ane_send_request_copy_in(void *kdata, const void __user *uarg,
			     unsigned int size)
{
	const size_t first = offsetof(struct drm_ane_send_request, in.surfaces);
	const size_t chunk = 8 * sizeof(struct drm_ane_surface_ref);
	struct drm_ane_send_request *sr = kdata;
	size_t done = first, n;
	u32 i;
	int ret;

	if (copy_from_user(kdata, uarg, first))
		return -EFAULT;
	while (done < size) {
		n = min(chunk, size - done);
		if (copy_from_user((u8 *)kdata + done, uarg + done, n))
			return -EFAULT;
		for (i = (done - first) / sizeof(sr->in.surfaces[0]);
		     i < (done + n - first) / sizeof(sr->in.surfaces[0]); i++)
			if (!sr->in.surfaces[i].handle)
				break;
		done += n;
		if (i < (done - first) / sizeof(sr->in.surfaces[0]))
			break;
	}
	if (done == size)
		return 0;
	ret = check_zeroed_user(uarg + done, size - done);
	if (ret < 0)
		return ret;
	if (ret) {
		memset((u8 *)kdata + done, 0, size - done);
		return 0;
	}
	return copy_from_user((u8 *)kdata + done, uarg + done, size - done) ?
	       -EFAULT : 0;
}

/* Shared selector 2 of both spaces. */
int ane_sel_send_request(struct ane_file *af, const struct ane_selector *sel,
			 void *args)
{
	struct drm_ane_send_request *sr = args;
	const struct drm_ane_request *in = &sr->in;
	struct ane_dart_mapping *maps[2 * ANE_IMG_MAX_IO + 1] = { };
	struct ane_device *adev = af->adev;
	struct ane_req_surfaces s = { };
	const struct ane_img_procedure *pr;
	struct ane_fw_cmd_hdr hdr = { .id = ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS };
	struct ane_program *p, *code;
	struct drm_syncobj *syncobj = NULL;
	struct ane_fw_proc_call *call;
	struct ane_fw_bar *bars;
	struct ane_dart_ctx *ctx;
	struct ane_request *rq;
	u32 i, nbars = 0;
	int ret, sid;

	if (sr->doorbell >= ANE_MAX_DOORBELL)
		return -EINVAL;
	if (!ane_host(af))
		return -ENODEV;
	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	/* The call, its bars, and a one-entry execute order, all written. */
	call = kmalloc(sizeof(*call) + ANE_IMG_MAX_BARS * sizeof(*bars) + sizeof(u32),
		       GFP_KERNEL);
	if (!rq || !call) {
		kfree(rq);
		kfree(call);
		return -ENOMEM;
	}
	bars = (struct ane_fw_bar *)(call + 1);

	mutex_lock(&af->prog_lock);
	p = ane_program_find_locked(af, in->token);
	code = p ? ane_program_code(p) : NULL;
	ret = !p ? -ENOENT : !code->prepared ? -EBADFD :
	      in->procedure >= code->hdr.num_procedures ? -EINVAL :
	      atomic_read(&code->inflight) >= code->queue_depth ? -EBUSY : 0;
	if (ret)
		goto err_unlock;
	pr = &code->procs[in->procedure];
	ret = ane_request_surfaces(af, rq, in, pr, &s);
	if (ret)
		goto err_unlock;

	/* Map the surfaces and pin every mapping the call names. */
	for (i = 0; i < ANE_IMG_MAX_IO && !ret; i++) {
		if (s.in[i]) {
			ret = ane_request_map(rq, af, s.in[i], ANE_USAGE_INPUT,
					      ane_dart_prot_from_dir(1));
			maps[i] = ret ? NULL : rq->maps[rq->nmaps - 1];
		}
		if (!ret && s.out[i]) {
			ret = ane_request_map(rq, af, s.out[i], ANE_USAGE_OUTPUT,
					      ane_dart_prot_from_dir(2));
			maps[ANE_IMG_MAX_IO + i] = ret ? NULL : rq->maps[rq->nmaps - 1];
		}
	}
	if (!ret && s.inter) {
		ret = ane_request_map(rq, af, s.inter, ANE_USAGE_INTERMEDIATE,
				      ANE_PROT_READ_WRITE);
		maps[2 * ANE_IMG_MAX_IO] = ret ? NULL : rq->maps[rq->nmaps - 1];
	} else if (!ret && code->inter_map) {
		ret = ane_request_pin(rq, code->inter_map);
		maps[2 * ANE_IMG_MAX_IO] = code->inter_map;
	}
	if (!ret && p->weights_map)
		ret = ane_request_pin(rq, p->weights_map);
	if (ret)
		goto err_release;

	/* Pinned mappings keep the context's slot: bind it for the stream. */
	sid = ane_dart_bind(ctx);
	if (sid < 0) {
		ret = sid;
		goto err_release;
	}
	for (i = 0; i < code->hdr.num_bars; i++) {
		const struct ane_img_bar *b = &code->bars[i];

		if ((b->usage == ANE_USAGE_INPUT && b->io_index >= pr->num_inputs) ||
		    (b->usage == ANE_USAGE_OUTPUT && b->io_index >= pr->num_outputs))
			continue;
		ret = ane_request_bar(rq, p, b, &s, maps, sid, &bars[nbars]);
		if (ret)
			goto err_release;
		nbars++;
	}

	memset(call, 0, sizeof(*call));
	call->nbr_output_buffer_sets = 1;
	call->nbr_custom_bars = nbars;
	call->nbr_td_partitions = 1;
	call->nbr_event_masks = 1;
	call->task_queue = code->slot + 1;
	call->nbr_custom_exec_order = 1;
	call->custom_exec_order_offset = sizeof(*call) + nbars * sizeof(*bars);
	hdr.size = call->custom_exec_order_offset + sizeof(u32);
	*(u32 *)((u8 *)call + call->custom_exec_order_offset) = 0;
	hdr.priority = code->priority;
	hdr.program_id = code->slot;
	hdr.process_id = code->pid;
	hdr.procedure_id = in->procedure;

	if (s.syncobj) {
		syncobj = drm_syncobj_find(af->drm_file, s.syncobj);
		if (!syncobj) {
			ret = -ENOENT;
			goto err_release;
		}
	}
	rq->event = kzalloc(sizeof(*rq->event), GFP_KERNEL);
	if (!rq->event) {
		ret = -ENOMEM;
		goto err_release;
	}
	rq->event->ev.base.type = DRM_ANE_EVENT_REQUEST_COMPLETE;
	rq->event->ev.base.length = sizeof(rq->event->ev);
	rq->event->ev.token = in->token;
	rq->event->ev.sequence = in->sequence;
	/* -ENOMEM also when the file's unread events fill its space. */
	ret = drm_event_reserve_init(&adev->drm, af->drm_file, &rq->event->base,
				     &rq->event->ev.base);
	if (ret) {
		kfree(rq->event);
		goto err_release;
	}

	rq->af = af;
	ane_file_get(af);
	rq->prog = p;
	kref_get(&p->kref);
	atomic_inc(&code->inflight);
	dma_fence_init(&rq->fence, &ane_fence_ops, &adev->fence_lock,
		       adev->fence_ctx, atomic64_inc_return(&adev->fence_seq));
	rq->event->ev.seqno = rq->fence.seqno;
	rq->hreq.complete = ane_request_complete;
	if (syncobj)
		drm_syncobj_replace_fence(syncobj, &rq->fence);
	mutex_unlock(&af->prog_lock);

	memset(&sr->out, 0, sizeof(sr->out));
	sr->out.sequence = in->sequence;
	sr->out.token = in->token;
	sr->out.seqno = rq->fence.seqno;

	ret = ane_fw_host_send(ane_host(af), &rq->hreq, ANE_FW_CH_IO, &hdr, call);
	if (ret) {
		/* Never sent: fail the fence, drop the event, release now. */
		ane_request_unpin(rq);
		dma_fence_set_error(&rq->fence, ret);
		dma_fence_signal(&rq->fence);
		drm_event_cancel_free(&adev->drm, &rq->event->base);
		ane_request_put(rq);
	} else {
		atomic64_inc(&af->submitted);
	}
	if (syncobj)
		drm_syncobj_put(syncobj);
	kfree(call);
	return ret;

err_release:
	for (i = 0; i < rq->nmaps; i++)
		ane_dart_unuse(rq->maps[i]);
err_unlock:
	mutex_unlock(&af->prog_lock);
	if (syncobj)
		drm_syncobj_put(syncobj);
	for (i = 0; i < rq->nbos; i++)
		drm_gem_object_put(rq->bos[i]);
	kfree(rq);
	kfree(call);
	return ret;
}

/* At the client's last reference: unload and free its programs. */
void ane_file_programs_fini(struct ane_file *af)
{
	struct ane_program *p, *tmp;

	mutex_lock(&af->prog_lock);
	/* Instances first: they hold their programs. */
	list_for_each_entry_safe(p, tmp, &af->programs, link) {
		if (!p->parent)
			continue;
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
}
