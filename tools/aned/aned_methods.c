// SPDX-License-Identifier: MIT
/*
 * aned: the methods around a model: Unload, Share and Adopt,
 * Instantiate (adapters), HandOff to the direct path, Purge and
 * Diagnostics.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "aned.h"

void client_drop(struct client *c, unsigned int slot)
{
	struct model *m = model_find(c->models[slot]);

	c->models[slot] = 0;
	c->n_models--;
	if (m)
		model_put(m);
}

int m_unload(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	unsigned int i;
	uint64_t id;
	int ret;

	ret = admit(c, 0, "Unload", err);
	if (ret)
		return ret;
	if (sd_bus_message_read(msg, "t", &id) < 0)
		return deny(err, EINVAL, "Unload: model: not a uint64");
	for (i = 0; id && i < MAX_REFS; i++)
		if (c->models[i] == id) {
			struct model *m = model_find(id);
			struct model *x;

			for (x = models; x; x = x->next)
				if (x->base == m && x->refs) {
					unsigned int j;
					int mine = 0;

					for (j = 0; j < MAX_REFS; j++)
						mine |= c->models[j] == x->id;
					if (mine)
						return deny(err, EBUSY, "Unload: model: %" PRIu64 " has instance %" PRIu64 " on this connection: unload it first",
							    id, x->id);
				}
			client_drop(c, i);
			return sd_bus_reply_method_return(msg, "");
		}
	return deny(err, ENOENT, "Unload: model: %" PRIu64 " is not a model of this connection", id);
}

int m_share(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	struct model *m;
	uint64_t id;
	int ret;

	ret = admit(c, ANED_ENT_MODEL_SHARE, "Share", err);
	if (ret)
		return ret;
	if (sd_bus_message_read(msg, "t", &id) < 0)
		return deny(err, EINVAL, "Share: model: not a uint64");
	m = client_model(c, id, "Share", err);
	if (!m)
		return -ENOENT;
	if (!m->share_cookie || m->share_uid != c->uid) {
		do {
			if (getrandom(&m->share_cookie, sizeof(m->share_cookie), 0) !=
			    sizeof(m->share_cookie))
				return deny(err, EIO, "Share: no random bytes");
		} while (!m->share_cookie);
		m->share_uid = c->uid;
	}
	return sd_bus_reply_method_return(msg, "t", m->share_cookie);
}

int m_adopt(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	struct model *m;
	uint64_t cookie;
	int ret;

	ret = admit(c, ANED_ENT_MODEL_SHARE, "Adopt", err);
	if (ret)
		return ret;
	if (sd_bus_message_read(msg, "t", &cookie) < 0)
		return deny(err, EINVAL, "Adopt: cookie: not a uint64");
	for (m = models; m; m = m->next)
		if (cookie && m->share_cookie == cookie)
			break;
	/* Another identity learns nothing: the same error as no such cookie. */
	if (!m || m->share_uid != c->uid)
		return deny(err, EACCES, "Adopt: cookie: no model shared with uid %u by it",
			    (unsigned int)c->uid);
	ret = client_add_ref(c, m, err, "Adopt");
	if (ret)
		return ret;
	return sd_bus_reply_method_return(msg, "t", m->id);
}

int m_instantiate(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	struct model *base, *m;
	const void *p;
	uint64_t id;
	uint32_t qos, flags;
	unsigned int depth;
	size_t size;
	int ret;

	ret = admit(c, ANED_ENT_ADAPTERS, "Instantiate", err);
	if (ret)
		return ret;
	if (sd_bus_message_read(msg, "t", &id) < 0)
		return deny(err, EINVAL, "Instantiate: base: not a uint64");
	if (sd_bus_message_read_array(msg, 'y', &p, &size) < 0)
		return deny(err, EINVAL, "Instantiate: weights: not a byte array");
	if (sd_bus_message_read(msg, "uu", &qos, &flags) < 0)
		return deny(err, EINVAL, "Instantiate: qos, flags: not two uint32");
	ret = check_qos(c, qos, "Instantiate", err);
	if (ret)
		return ret;
	ret = check_flags(c, flags, ANE_BROKER_LOAD_NO_UNWIRE | ANE_BROKER_DEPTH_MASK,
			  "Instantiate", &depth, err);
	if (ret)
		return ret;
	base = client_model(c, id, "Instantiate", err);
	if (!base)
		return -ENOENT;
	if (base->base)
		return deny(err, EINVAL, "Instantiate: base: %" PRIu64 " is an instance", id);
	if (size != base->weights_size || !size)
		return deny(err, EINVAL, "Instantiate: weights: %zu bytes, the base model's weights section has %" PRIu64,
			    size, base->weights_size);
	if (c->n_models >= aned_tier_max_models(c->rule.tier))
		return deny(err, ENOSPC, "Instantiate: the connection holds %u models, the %s tier's limit",
			    c->n_models, aned_tier_name(c->rule.tier));
	if (base->ctl->progs >= PROGS_PER_CTL + 3)
		return deny(err, ENOSPC, "Instantiate: base: the daemon's file of the base model is full");
	m = calloc(1, sizeof(*m));
	if (!m)
		return deny(err, ENOMEM, "out of memory");
	m->ctl = base->ctl;
	ret = ane_surface_create(m->ctl->dev, size, &m->weights);
	if (!ret) {
		memcpy(ane_surface_map(m->weights), p, size);
		ret = ane_program_instance(base->prog, m->weights, &m->prog);
	}
	if (ret) {
		deny(err, -ret, "Instantiate: %s", ane_errmsg(m->ctl->dev));
		ane_surface_destroy(m->weights);
		free(m);
		return ret;
	}
	m->ctl->progs++;
	m->id = next_model_id++;
	m->base = base;
	base->refs++;
	m->n_in = base->n_in;
	m->n_out = base->n_out;
	memcpy(m->in_size, base->in_size, sizeof(m->in_size));
	memcpy(m->out_size, base->out_size, sizeof(m->out_size));
	m->bytes = round16k(size);
	m->flags = flags & ANE_BROKER_LOAD_NO_UNWIRE;
	m->depth = m->eff_depth = depth;
	m->waitq_tail = &m->waitq;
	m->partition = base->partition;
	cache_used += m->bytes;
	m->next = models;
	models = m;
	client_add_ref(c, m, err, "Instantiate");
	return sd_bus_reply_method_return(msg, "t", m->id);
}

/* A direct-path file, DeviceOpen done, every capability but memory dropped. */
static int dp_file(sd_bus_error *err)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
	struct drm_ane_caps_drop cd = { .drop = ANE_CAP_ALL & ~ANE_CAP_MEMORY };
	const char *node;
	int fd;

	if (!ctls)
		return deny(err, ENODEV, "HandOff: the daemon has no ane device");
	node = ane_node(ctls->dev);
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return deny(err, errno, "HandOff: open %s: %s", node, strerror(errno));
	if (ioctl(fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op) ||
	    ioctl(fd, DRM_IOCTL_ANE_CAPS_DROP, &cd)) {
		int e = errno;

		close(fd);
		return deny(err, e, "HandOff: the direct-path file: %s", strerror(e));
	}
	return fd;
}

int m_handoff(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct client *c = ud;
	int efd = -1, dfd = -1, ret;
	struct model *m;
	uint32_t flags;
	uint64_t id;

	ret = admit(c, ANED_ENT_DIRECT_HANDOFF, "HandOff", err);
	if (ret)
		return ret;
	if (sd_bus_message_read(msg, "tu", &id, &flags) < 0)
		return deny(err, EINVAL, "HandOff: model, flags: not (t, u)");
	if (flags & ~ANE_BROKER_HANDOFF_DIRECT)
		return deny(err, EINVAL, "HandOff: flags: 0x%x has unknown bits", flags);
	m = client_model(c, id, "HandOff", err);
	if (!m)
		return -ENOENT;
	if (m->base || (m->flags & LOAD_POWER))
		return deny(err, EINVAL, "HandOff: model: %" PRIu64 " is %s", id,
			    m->base ? "an instance (hand off its base)" :
			    "unprepared between evaluations (aggressive power saving or power saving)");
	ret = model_prepare(m, err, "HandOff");
	if (ret)
		return ret;
	/*
	 * The export carries the exporter's identity, which an attach must
	 * match: export with the client's effective uid (the daemon is
	 * single-threaded; its file keeps its own capabilities).
	 */
	if (seteuid(c->uid))
		return deny(err, errno, "HandOff: seteuid(%u): %s", (unsigned int)c->uid,
			    strerror(errno));
	ret = ane_program_export(m->ctl->dev, m->prog, &efd);
	if (seteuid(0)) {
		logmsg("seteuid(0) failed: %s", strerror(errno));
		exit(1);
	}
	if (ret)
		return deny(err, -ret, "HandOff: %s", ane_errmsg(m->ctl->dev));
	if (flags & ANE_BROKER_HANDOFF_DIRECT) {
		dfd = dp_file(err);
		if (dfd < 0) {
			close(efd);
			return dfd;
		}
	}
	ret = sd_bus_message_new_method_return(msg, &reply);
	if (ret >= 0)
		ret = sd_bus_message_append(reply, "h", efd);
	if (ret >= 0)
		ret = sd_bus_message_open_container(reply, 'a', "h");
	if (ret >= 0 && dfd >= 0)
		ret = sd_bus_message_append(reply, "h", dfd);
	if (ret >= 0)
		ret = sd_bus_message_close_container(reply);
	if (ret >= 0)
		ret = sd_bus_send(NULL, reply, NULL);
	close(efd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

int m_purge(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	uint32_t flags;
	unsigned int n;
	int ret;

	if (sd_bus_message_read(msg, "u", &flags) < 0)
		return deny(err, EINVAL, "Purge: flags: not a uint32");
	if (flags & ~ANE_BROKER_PURGE_ALL)
		return deny(err, EINVAL, "Purge: flags: 0x%x has unknown bits", flags);
	ret = admit(c, flags ? ANED_ENT_PURGE : 0, "Purge", err);
	if (ret)
		return ret;
	n = cache_evict(0, flags ? 2 : 1,
			c->rule.tier == ANED_TIER_PER_USER ? c->uid + 1 : 0);
	return sd_bus_reply_method_return(msg, "u", n);
}

int m_diagnostics(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	unsigned int n_models = 0, n_inst = 0, n_cached = 0, n_inflight = 0, n_sets = 0;
	uint64_t inst_bytes = 0, set_bytes = 0;
	struct job *j;
	char *buf = NULL;
	size_t len = 0;
	struct model *m;
	unsigned int i;
	FILE *f;
	int ret;

	ret = admit(c, 0, "Diagnostics", err);
	if (ret)
		return ret;
	for (m = models; m; m = m->next) {
		n_models++;
		n_inst += !!m->base;
		n_cached += !m->refs;
		if (m->base)
			inst_bytes += m->bytes;
		for (j = m->waitq; j; j = j->next)
			n_inflight++;
		for (i = 0; i < ANE_BROKER_DEPTH_MAX; i++) {
			n_sets += m->sets[i].made;
			set_bytes += m->sets[i].bytes;
		}
	}
	for (j = inflight_jobs; j; j = j->next)
		n_inflight++;
	f = open_memstream(&buf, &len);
	if (!f)
		return deny(err, ENOMEM, "Diagnostics: out of memory");
	fprintf(f, "uid %u\ntier %s\nentitlements 0x%x\nclients %u\nmodels %u\ninstances %u\nunreferenced %u\n"
		"cache_bytes %" PRIu64 "\ncache_budget %" PRIu64 "\ninstance_bytes %" PRIu64 "\n"
		"loads %" PRIu64 "\nhits %" PRIu64 "\nevictions %" PRIu64 "\nevaluations %" PRIu64 "\nrefused %" PRIu64 "\n"
		"your_models %u\nsurface_sets %u\nsurface_bytes %" PRIu64 "\nevaluations_pending %u\n"
		"unwired %" PRIu64 "\ndepth_lowered %" PRIu64 "\nidle_unprepares %" PRIu64 "\n"
		"compiles %" PRIu64 "\ncompiles_running %u\npolicy_reloads %" PRIu64 "\n",
		(unsigned int)c->uid, aned_tier_name(c->rule.tier), c->rule.ents, n_clients,
		n_models, n_inst, n_cached, cache_used, opt.cache_bytes, inst_bytes,
		stats.loads, stats.hits, stats.evictions, stats.evaluations, stats.refused,
		c->n_models, n_sets, set_bytes, n_inflight, stats.unwired, stats.depth_lowered,
		stats.idle_unprepares, stats.compiles, n_compiles, stats.reloads);
	for (m = models; m; m = m->next) {
		unsigned int k, sets = 0;
		int mine = 0;

		for (k = 0; k < ANE_BROKER_DEPTH_MAX; k++)
			sets += m->sets[k].made;
		for (i = 0; i < MAX_REFS; i++)
			mine |= c->models[i] == m->id;
		if (mine || c->uid == 0)
			fprintf(f, "model %" PRIu64 " refs %u bytes %" PRIu64 " priority %u sets %u depth %u/%u inflight %u%s%s%s\n",
				m->id, m->refs, m->bytes, m->priority, sets, m->eff_depth, m->depth,
				m->inflight, m->base ? " instance" : "", m->prepared ? " prepared" : "",
				m->flags & ANE_BROKER_LOAD_NO_UNWIRE ? " no-unwire" : "");
	}
	fclose(f);
	ret = sd_bus_reply_method_return(msg, "s", buf ? buf : "");
	free(buf);
	return ret;
}
