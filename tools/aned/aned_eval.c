// SPDX-License-Identifier: MIT
/*
 * aned: Evaluate: each model's surface sets up to its queue depth, the
 * requests submitted from the loop and answered at their completion
 * event, the depth lowered under contention, the periodic tick, and idle
 * power saving.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "aned.h"

/*
 * Make surface set @k of @m, charged to the cache: 0, -ENOSPC when it
 * does not fit (the caller lowers the depth), else the surface's error.
 */
static int set_make(struct model *m, unsigned int k)
{
	struct ioset *set = &m->sets[k];
	uint64_t need = 0;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < m->n_in; i++)
		need += round16k(m->in_size[i]);
	for (i = 0; i < m->n_out; i++)
		need += round16k(m->out_size[i]);
	cache_evict(need, 0, 0);
	if (!cache_unwire(need, m, -1))
		return -ENOSPC;
	for (i = 0; !ret && i < m->n_in; i++)
		ret = ane_surface_create(m->ctl->dev, m->in_size[i], &set->s[i]);
	for (i = 0; !ret && i < m->n_out; i++)
		ret = ane_surface_create(m->ctl->dev, m->out_size[i], &set->s[ANE_IMG_MAX_IO + i]);
	set->made = 1;
	for (i = 0; i < 2 * ANE_IMG_MAX_IO; i++)
		set->bytes += set->s[i] ? ane_surface_size(set->s[i]) : 0;
	m->bytes += set->bytes;
	cache_used += set->bytes;
	if (ret)
		set_free(m, k);
	return ret;
}

/* A job leaves: its model reference goes (an instance may go with it). */
void job_free(struct job *j)
{
	struct model *m = j->m;

	sd_bus_message_unref(j->msg);
	free(j);
	model_put(m);
}

/* Submit what @m's queue holds while its depth and the cache allow. */
static void model_pump(struct model *m)
{
	struct model *b = m->base ? m->base : m;

	while (m->waitq) {
		struct job *j = m->waitq;
		struct ane_surface **s;
		sd_bus_error err = SD_BUS_ERROR_NULL;
		uint32_t queue, exec;
		unsigned int i;
		int k, ret;

		/* A caller gone while it waited: nothing to run. */
		if (sd_bus_is_open(sd_bus_message_get_bus(j->msg)) <= 0) {
			m->waitq = j->next;
			if (!m->waitq)
				m->waitq_tail = &m->waitq;
			job_free(j);
			continue;
		}
		if (m->inflight >= m->eff_depth)
			break;
		for (k = 0; k < ANE_BROKER_DEPTH_MAX; k++)
			if (m->sets[k].made && !m->sets[k].busy)
				break;
		if (k == ANE_BROKER_DEPTH_MAX) {
			for (k = 0; k < ANE_BROKER_DEPTH_MAX && m->sets[k].made; k++)
				;
			ret = k < ANE_BROKER_DEPTH_MAX ? set_make(m, k) : -ENOSPC;
			if (ret == -ENOSPC && m->inflight) {
				/* The cache is full: as deep as the sets it holds. */
				m->eff_depth = m->inflight;
				stats.depth_lowered++;
				break;
			}
			if (ret) {
				m->waitq = j->next;
				if (!m->waitq)
					m->waitq_tail = &m->waitq;
				if (ret == -ENOSPC)
					reply_errno(j->msg, ENOMEM, "Evaluate: the surfaces do not fit the cache: %" PRIu64 " of %" PRIu64 " bytes in use",
						    cache_used, opt.cache_bytes);
				else
					reply_errno(j->msg, -ret, "Evaluate: surfaces: %s",
						    ane_errmsg(m->ctl->dev));
				job_free(j);
				continue;
			}
		}
		ret = model_prepare(m, &err, "Evaluate");
		if (ret) {
			m->waitq = j->next;
			if (!m->waitq)
				m->waitq_tail = &m->waitq;
			sd_bus_reply_method_error(j->msg, &err);
			sd_bus_error_free(&err);
			job_free(j);
			continue;
		}
		s = m->sets[k].s;
		for (i = 0; i < m->n_in; i++)
			memcpy(ane_surface_map(s[i]), j->in[i], m->in_size[i]);
		/* The queue index function: the request's QoS pair. */
		qos_request(j->qos, &queue, &exec);
		ane_set_request_qos(m->ctl->dev, queue, exec);
		/* One attempt: a full queue waits in ours, not in the loop. */
		ret = ane_request_submit_timeout(m->prog, 0, s, m->n_in, s + ANE_IMG_MAX_IO,
						 m->n_out, 0, &j->seqno);
		if (ret == -EBUSY || ret == -EAGAIN) {
			/* The engine's queue is full: as deep as what it runs. */
			if (m->inflight && m->eff_depth > m->inflight) {
				m->eff_depth = m->inflight;
				stats.depth_lowered++;
			}
			tick_arm();
			break;
		}
		m->waitq = j->next;
		if (!m->waitq)
			m->waitq_tail = &m->waitq;
		if (ret) {
			reply_errno(j->msg, -ret, "Evaluate: %s", ane_errmsg(m->ctl->dev));
			job_free(j);
			power_idle(b);
			continue;
		}
		j->set = k;
		m->sets[k].busy = 1;
		m->inflight++;
		b->base_inflight++;
		m->last_use = b->last_use = ++lru_clock;
		j->deadline = now_us() + EVAL_TIMEOUT_NS / 1000;
		j->next = inflight_jobs;
		inflight_jobs = j;
		tick_arm();
	}
}

/* Nothing of @b's in flight: aggressive power unprepares now, power saving later. */
void power_idle(struct model *b)
{
	if (b->base_inflight || !b->prepared)
		return;
	if ((b->flags & ANE_BROKER_LOAD_AGGRESSIVE_POWER) && !b->waitq &&
	    !ane_program_unprepare(b->prog))
		b->prepared = 0;
	else if (b->flags & ANE_BROKER_LOAD_POWER_SAVING)
		idle_arm(b);
}

/* @j completed with @ret: answer it, free its set, run what waits. */
static void job_done(struct job *j, int ret, uint64_t exec_ns)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct model *m = j->m, *b = m->base ? m->base : m;
	struct ane_surface **s = m->sets[j->set].s;
	unsigned int i;
	int r;

	if (!ret)
		stats.evaluations++;
	if (j->msg && ret) {
		reply_errno(j->msg, -ret, "Evaluate: %s", ane_errmsg(m->ctl->dev));
	} else if (j->msg) {
		r = sd_bus_message_new_method_return(j->msg, &reply);
		if (r >= 0)
			r = sd_bus_message_open_container(reply, 'a', "ay");
		for (i = 0; r >= 0 && i < m->n_out; i++)
			r = sd_bus_message_append_array(reply, 'y', ane_surface_map(s[ANE_IMG_MAX_IO + i]),
							m->out_size[i]);
		if (r >= 0)
			r = sd_bus_message_close_container(reply);
		if (r >= 0)
			r = sd_bus_message_append(reply, "t", exec_ns);
		if (r >= 0)
			sd_bus_send(NULL, reply, NULL);
	}
	m->sets[j->set].busy = 0;
	m->inflight--;
	b->base_inflight--;
	/* A completion that finds room raises the depth again by one. */
	if (m->eff_depth < m->depth)
		m->eff_depth++;
	power_idle(b);
	m->refs++;	/* the pump may free the job's reference */
	job_free(j);
	model_pump(m);
	model_put(m);
}

/* Take every completion the control files hold; then run what waits. */
static void reap_all(void)
{
	int progress = 1, any = 0;

	while (progress) {
		struct job **pp;

		progress = 0;
		for (pp = &inflight_jobs; *pp; pp = &(*pp)->next) {
			struct job *j = *pp;
			uint64_t exec_ns = 0;
			int st, ret;

			ret = ane_request_wait(j->m->ctl->dev, j->seqno, 0, &st, &exec_ns);
			if (st == ANE_REQUEST_PENDING)
				continue;
			*pp = j->next;
			job_done(j, ret, exec_ns);
			progress = 1;
			any = 1;
			break;
		}
	}
	/* A program's queue has room again: its instances' waits too. */
	if (any)
		pump_all();
}

void pump_all(void)
{
	struct model *m, *next;

	for (m = models; m; m = next) {
		next = m->next;
		if (m->waitq) {
			m->refs++;
			model_pump(m);
			next = m->next;
			model_put(m);
		}
	}
}

int on_ctl(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	(void)s;
	(void)fd;
	(void)revents;
	(void)ud;
	reap_all();
	return 0;
}

int on_tick(sd_event_source *s, uint64_t usec, void *ud)
{
	struct model *m;
	struct job *j;

	(void)s;
	(void)ud;
	reap_all();
	for (j = inflight_jobs; j; j = j->next)
		if (j->msg && usec >= j->deadline) {
			/* Answered now; its surfaces stay busy until it completes. */
			reply_errno(j->msg, ETIMEDOUT, "Evaluate: no completion within %llu s",
				    EVAL_TIMEOUT_NS / 1000000000ull);
			j->msg = sd_bus_message_unref(j->msg);
		}
	pump_all();
	for (m = models; m && !m->waitq; m = m->next)
		;
	if (inflight_jobs || m)
		tick_arm();
	return 0;
}

static int on_idle(sd_event_source *s, uint64_t usec, void *ud)
{
	struct model *b = ud;

	(void)s;
	(void)usec;
	if (!b->base_inflight && !b->waitq && b->prepared && !ane_program_unprepare(b->prog)) {
		b->prepared = 0;
		stats.idle_unprepares++;
	}
	return 0;
}

/* Power saving: unprepare @b after --idle-ms without requests. */
void idle_arm(struct model *b)
{
	if (!b->idle_src) {
		if (sd_event_add_time(event, &b->idle_src, CLOCK_MONOTONIC, now_us() + opt.idle_us,
				      10000, on_idle, b) < 0)
			return;
	} else {
		sd_event_source_set_time(b->idle_src, now_us() + opt.idle_us);
	}
	sd_event_source_set_enabled(b->idle_src, SD_EVENT_ONESHOT);
}

int m_evaluate(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	struct model *m;
	struct job *j;
	uint64_t id;
	unsigned int n_in = 0;
	const void *in[ANE_IMG_MAX_IO];
	uint32_t qos;
	int ret;

	ret = admit(c, 0, "Evaluate", err);
	if (ret)
		return ret;
	ret = sd_bus_message_read(msg, "t", &id);
	if (ret < 0)
		return deny(err, EINVAL, "Evaluate: model: not a uint64");
	m = client_model(c, id, "Evaluate", err);
	if (!m)
		return -ENOENT;
	ret = sd_bus_message_enter_container(msg, 'a', "ay");
	if (ret < 0)
		return deny(err, EINVAL, "Evaluate: inputs: not an array of byte arrays");
	for (;;) {
		const void *p;
		size_t size;

		ret = sd_bus_message_read_array(msg, 'y', &p, &size);
		if (ret < 0)
			return deny(err, EINVAL, "Evaluate: inputs[%u]: not a byte array", n_in);
		if (ret == 0)
			break;
		if (n_in >= m->n_in)
			return deny(err, EINVAL, "Evaluate: inputs: more than the model's %u",
				    m->n_in);
		if (size != m->in_size[n_in])
			return deny(err, EINVAL, "Evaluate: inputs[%u]: %zu bytes, the model takes %" PRIu64,
				    n_in, size, m->in_size[n_in]);
		in[n_in++] = p;
	}
	if (n_in != m->n_in)
		return deny(err, EINVAL, "Evaluate: inputs: %u, the model takes %u", n_in, m->n_in);
	ret = sd_bus_message_exit_container(msg);
	if (ret >= 0)
		ret = sd_bus_message_read(msg, "u", &qos);
	if (ret < 0)
		return deny(err, EINVAL, "Evaluate: qos: not a uint32");
	ret = check_qos(c, qos, "Evaluate", err);
	if (ret)
		return ret;
	j = calloc(1, sizeof(*j));
	if (!j)
		return deny(err, ENOMEM, "Evaluate: out of memory");
	/* The inputs stay in the message, which the job holds. */
	j->msg = sd_bus_message_ref(msg);
	j->m = m;
	j->set = -1;
	j->qos = qos;
	memcpy(j->in, in, n_in * sizeof(in[0]));
	m->refs++;
	*m->waitq_tail = j;
	m->waitq_tail = &j->next;
	model_pump(m);
	return 1;	/* answered when it completes */
}
