// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chains: a run.  ProgramInputsReady (direct-path selector 4) names the
 * inputs -- surfaces of the client, or outputs of the chain's previous
 * run, which the engine reads where that run wrote them -- and triggers
 * the run (0x209 on the IO channel); the completion turns the output set
 * it wrote into the chainable previous set and hands the client its DRM
 * event.  Installing a chain and enqueueing output sets is ane_chain.c,
 * whose comment gives the locking.
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
#include "firmware/spec/ane_fw_abi.h"
#include "ane_chain_internal.h"

/**
 * struct ane_trigger - one ProgramInputsReady until released
 * @hreq: the firmware command; its DATA_CHAINING_EVENT completes it.
 * @work: releases what the run held, in process context.
 * @af: the client (a reference).
 * @p: its attached program (a reference).
 * @chain: the chain; alive while @chain->running, then only if @free.
 * @event: the DRM event, handed to DRM at completion.
 * @nmaps: entries of @maps.
 * @maps: the input mappings, pinned for the run.
 * @nbos: entries of @bos.
 * @bos: references on the input surfaces, and on the previous set's
 *	surfaces the completion replaced.
 * @free: the chain was torn down while running: free it.
 */
struct ane_trigger {
	struct ane_host_hreq hreq;
	struct work_struct work;
	struct ane_file *af;
	struct ane_program *p;
	struct ane_chain *chain;
	struct ane_chain_event *event;
	u32 nmaps;
	struct ane_dart_mapping *maps[ANE_CHAIN_MAX_INPUTS];
	u32 nbos;
	struct drm_gem_object *bos[ANE_CHAIN_MAX_INPUTS + ANE_IMG_MAX_IO];
	bool free;
};

static void ane_trigger_work(struct work_struct *work)
{
	struct ane_trigger *t = container_of(work, struct ane_trigger, work);
	u32 i;

	for (i = 0; i < t->nbos; i++)
		drm_gem_object_put(t->bos[i]);
	if (t->free)
		ane_chain_free(t->chain);
	ane_program_put(t->p);
	ane_file_put(t->af);
	kfree(t);
}

/*
 * The run ended: its DATA_CHAINING_EVENT (it ran: the set it wrote is the
 * previous set now), a reply refusing it, or a cancellation (neither: the
 * enqueued set stays).  Under the firmware host's spinlock.
 */
static void ane_trigger_complete(struct ane_host_hreq *hreq)
{
	struct ane_trigger *t = container_of(hreq, struct ane_trigger, hreq);
	const struct ane_fw_chain_event *ev = (const void *)hreq->data;
	struct ane_chain *c = t->chain;
	bool ran = hreq->len >= sizeof(*ev);
	struct ane_chain_set old = { };
	int status = hreq->status;
	u32 i;

	if (status == -EFAULT)
		status = -ENXIO;
	for (i = 0; i < t->nmaps; i++)
		ane_dart_unuse(t->maps[i]);
	spin_lock(&c->lock);
	if (ran && !c->dead) {
		old = c->prev;
		c->prev = c->cur;
		memset(&c->cur, 0, sizeof(c->cur));
		c->armed = false;
	}
	c->running = false;
	t->free = c->dead;
	spin_unlock(&c->lock);
	/* the old previous set: unpinned here, its references in the work */
	for (i = 0; i < old.n; i++) {
		ane_dart_unuse(old.maps[i]);
		t->bos[t->nbos++] = old.bos[i];
	}
	if (old.inter)
		ane_dart_unuse(old.inter);
	atomic_dec(&t->p->parent->inflight);

	t->event->ev.status = status;
	if (ran) {
		t->event->ev.exec_ns = ev->exec_ns;
		atomic64_add(ev->exec_ns, &t->af->engine_ns);
		atomic64_add(ev->exec_ns, &t->af->adev->engine_ns);
	}
	atomic64_inc(&t->af->completed);
	drm_send_event(&t->af->adev->drm, &t->event->base);
	queue_work(ane_wq, &t->work);
}

/* Parse the trigger's inputs into @tr, mapping and pinning them in @t. */
static int ane_trigger_inputs(struct ane_file *af, struct ane_chain *c,
			      const struct drm_ane_inputs_ready *ir,
			      struct ane_trigger *t, struct ane_fw_cr_trigger *tr)
{
	struct drm_gem_object *obj;
	struct ane_dart_mapping *m;
	u32 i, j, k, seen = 0;

	for (i = 0; i < ir->num_inputs; i++) {
		const struct drm_ane_surface_ref *r = &ir->inputs[i];
		struct ane_fw_buf_desc *d;

		if (r->reserved || r->bar >= c->num_inputs || seen & BIT(r->bar))
			return -EINVAL;
		seen |= BIT(r->bar);
		d = &tr->inputs[r->bar];
		obj = drm_gem_object_lookup(af->drm_file, r->handle);
		if (!obj)
			return -ENOENT;
		t->bos[t->nbos++] = obj;
		if (r->kind == ANE_SURFACE_CHAINED) {
			/* an output of the previous run, read where it is */
			for (k = 0; k < c->prev.n; k++)
				if (c->prev.bos[k] == obj)
					break;
			if (k == c->prev.n)
				return -EINVAL;
			for (j = 0; j < c->cur.n; j++)
				if (c->cur.bos[j] == obj)
					return -EINVAL;
			*d = (struct ane_fw_buf_desc){
				.type = ANE_FW_BUF_OUTPUT,
				.addr = c->prev.maps[k]->iova,
				.size = c->prev.maps[k]->size };
			continue;
		}
		if (r->kind != ANE_SURFACE_INPUT)
			return -EINVAL;
		m = ane_file_surface_map(af, obj, ANE_USAGE_INPUT,
					 ane_dart_prot_from_dir(1));
		if (IS_ERR(m))
			return PTR_ERR(m);
		t->maps[t->nmaps++] = m;
		*d = (struct ane_fw_buf_desc){ .type = ANE_FW_BUF_INPUT,
					       .addr = m->iova, .size = m->size };
	}
	tr->nbr_input_buffers = ir->num_inputs;
	return 0;
}

/* Direct-path selector 4. */
int ane_sel_inputs_ready(struct ane_file *af, const struct ane_selector *sel,
			 void *args)
{
	struct drm_ane_inputs_ready *ir = args;
	struct ane_fw_cr_trigger *tr;
	struct ane_chain_ref ref;
	struct ane_trigger *t;
	struct ane_chain *c;
	u32 i, priority;
	int ret;

	if (ir->flags || memchr_inv(ir->reserved, 0, sizeof(ir->reserved)))
		return -EINVAL;
	if (ir->num_inputs > ANE_CHAIN_MAX_INPUTS)
		return -E2BIG;
	if (memchr_inv(&ir->inputs[ir->num_inputs], 0,
		       (ANE_CHAIN_MAX_INPUTS - ir->num_inputs) *
		       sizeof(ir->inputs[0])))
		return -EINVAL;
	if (!ane_host(af))
		return -ENODEV;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	tr = kzalloc(sizeof(*tr), GFP_KERNEL);
	if (!t || !tr) {
		ret = -ENOMEM;
		goto out_free;
	}

	mutex_lock(&af->prog_lock);
	ret = ane_chain_get_ref(af, ir->cache_handle, &ref);
	if (ret)
		goto out_unlock;
	c = ref.c;
	ret = c->user != ref.p ? -ENOBUFS :
	      ir->num_inputs != c->num_inputs ? -EINVAL :
	      ir->exec_timestamp <= c->last_ts ? -EINVAL :
	      c->group >= 0 && c->code->chain_active[c->group] &&
	      c->code->chain_active[c->group] != c ? -EBUSY : 0;
	if (ret)
		goto out_ref;
	spin_lock_irq(&c->lock);
	ret = c->running ? -EBUSY : !c->armed ? -ENOBUFS : 0;
	spin_unlock_irq(&c->lock);
	if (!ret)
		ret = ane_trigger_inputs(af, c, ir, t, tr);
	if (ret)
		goto out_ref;
	t->event = kzalloc(sizeof(*t->event), GFP_KERNEL);
	if (!t->event) {
		ret = -ENOMEM;
		goto out_ref;
	}
	t->event->ev.base.type = DRM_ANE_EVENT_CHAIN_COMPLETE;
	t->event->ev.base.length = sizeof(t->event->ev);
	t->event->ev.token = c->handle;
	t->event->ev.sequence = ir->exec_timestamp;
	t->event->ev.seqno = c->runs + 1;
	ret = drm_event_reserve_init(&af->adev->drm, af->drm_file,
				     &t->event->base, &t->event->ev.base);
	if (ret) {
		kfree(t->event);
		goto out_ref;
	}
	tr->cache_handler = c->handle;
	tr->exec_timestamp = ir->exec_timestamp;
	tr->output_set_id = 0;
	priority = ane_chain_prio(c->code);

	/* past the last failure but the send's: the run's references */
	t->af = af;
	ane_file_get(af);
	t->p = ref.p;
	kref_get(&ref.p->kref);
	t->chain = c;
	INIT_WORK(&t->work, ane_trigger_work);
	t->hreq.complete = ane_trigger_complete;
	atomic_inc(&c->code->inflight);
	spin_lock_irq(&c->lock);
	c->running = true;
	spin_unlock_irq(&c->lock);
	ret = ane_host_msg_cr_trigger(ane_host(af), &t->hreq, priority, tr);
	if (ret) {
		/* never sent: as if refused, reported by the call only */
		spin_lock_irq(&c->lock);
		c->running = false;
		spin_unlock_irq(&c->lock);
		atomic_dec(&c->code->inflight);
		for (i = 0; i < t->nmaps; i++)
			ane_dart_unuse(t->maps[i]);
		t->nmaps = 0;
		drm_event_cancel_free(&af->adev->drm, &t->event->base);
		ane_chain_put_ref(&ref);
		mutex_unlock(&af->prog_lock);
		kfree(tr);
		ane_trigger_work(&t->work);
		return ret;
	}
	c->last_ts = ir->exec_timestamp;
	c->runs++;
	atomic64_inc(&af->submitted);
	ane_chain_put_ref(&ref);
	mutex_unlock(&af->prog_lock);
	kfree(tr);
	ane_hint_run_started(af);
	return 0;

out_ref:
	ane_chain_put_ref(&ref);
out_unlock:
	mutex_unlock(&af->prog_lock);
	for (i = 0; i < t->nmaps; i++)
		ane_dart_unuse(t->maps[i]);
	for (i = 0; i < t->nbos; i++)
		drm_gem_object_put(t->bos[i]);
out_free:
	kfree(t);
	kfree(tr);
	return ret;
}
