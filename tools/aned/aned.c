// SPDX-License-Identifier: MIT
/*
 * aned: the broker daemon of ch. 27.  It holds the device; clients reach
 * the engine through it over D-Bus peer to peer (sd-bus) on a unix socket,
 * each connection admitted by the peer's credentials and the policy file,
 * each method by its own entitlement.  Documentation/accel/ane/broker.rst.
 *
 *   aned [--socket PATH] [--policy PATH] [--node NODE] [--cache-mb N]
 *        [--max-image-mb N] [--max-clients N] [--idle-ms N]
 *        [--compile-timeout-s N] [--foreground]
 *
 * One thread, one sd-event loop: an Evaluate submits and returns, its
 * reply is sent when the completion event arrives on the control file;
 * a Compile runs in a child process.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "libane.h"
#include "aned_policy.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD		77
#endif

#define _cleanup_(f)		__attribute__((cleanup(f)))
#define BROKER_PATH		"/org/ane/Broker"
#define BROKER_IFACE		"org.ane.Broker1"
/* Programs the daemon puts on one control file (the kernel allows 64). */
#define PROGS_PER_CTL		60
#define PAGE16K			16384ull
#define EVAL_TIMEOUT_NS		10000000000ull
/* While requests are in flight or waiting, the loop also wakes this often. */
#define TICK_US			50000ull
#define MAX_COMPILES		4

#define LOAD_POWER		(ANE_BROKER_LOAD_AGGRESSIVE_POWER | ANE_BROKER_LOAD_POWER_SAVING)
#define LOAD_FLAGS		(LOAD_POWER | ANE_BROKER_LOAD_NO_UNWIRE | ANE_BROKER_DEPTH_MASK)

static struct {
	const char *socket;
	const char *policy;
	const char *node;
	uint64_t cache_bytes;
	uint64_t max_image;
	unsigned int max_clients;
	uint64_t idle_us;
	uint64_t compile_timeout_us;
	int foreground;
} opt = {
	.socket = ANE_BROKER_SOCKET_DEFAULT,
	.policy = "/etc/aned/policy.conf",
	.cache_bytes = 256ull << 20,
	.max_image = 64ull << 20,
	.max_clients = 256,
	.idle_us = 2000000,
	.compile_timeout_us = 60000000,
};

/* A control file of the daemon's, holding up to PROGS_PER_CTL programs. */
struct ctl {
	struct ane_dev *dev;
	unsigned int progs;
	sd_event_source *src;		/* its completion events */
	struct ctl *next;
};

/* One evaluation's input and output surfaces, kept by its model. */
struct ioset {
	struct ane_surface *s[2 * ANE_IMG_MAX_IO];
	uint64_t bytes;			/* counted against --cache-mb */
	int made, busy;
};

struct model;

/* An Evaluate: waiting for a surface set, then in flight. */
struct job {
	struct job *next;
	sd_bus_message *msg;		/* NULL once answered (timed out) */
	struct model *m;		/* holds a reference */
	int set;			/* -1 while waiting */
	const void *in[ANE_IMG_MAX_IO];	/* into @msg */
	uint32_t qos;
	uint64_t seqno, deadline;
};

/* A loaded program (a cached image) or an instance (an adapter). */
struct model {
	uint64_t id;
	struct model *next;
	struct ctl *ctl;
	struct ane_program *prog;
	struct model *base;		/* instances: the base model */
	struct ane_surface *weights;	/* instances: their weights */
	uint8_t *image;			/* loaded: the copy the cache compares */
	size_t size;
	uint64_t hash;
	uint32_t partition;		/* cache partition: 0, or uid + 1 */
	uint32_t priority;
	uint32_t flags;
	int prepared;
	unsigned int refs;		/* client references + instances */
	uint64_t last_use;		/* LRU clock */
	uint64_t bytes;			/* counted against --cache-mb */
	unsigned int n_in, n_out;
	uint64_t in_size[ANE_IMG_MAX_IO], out_size[ANE_IMG_MAX_IO];
	uint64_t weights_size;
	uint64_t share_cookie;		/* 0: not shared */
	uid_t share_uid;
	/*
	 * Up to @depth surface sets, one an evaluation in flight, made on
	 * demand and kept (charged to the cache) until unwired or unloaded.
	 */
	struct ioset sets[ANE_BROKER_DEPTH_MAX];
	unsigned int depth;		/* asked */
	unsigned int eff_depth;		/* lowered under contention */
	unsigned int inflight;		/* this program's requests */
	unsigned int base_inflight;	/* a base: its own and its instances' */
	struct job *waitq, **waitq_tail;
	sd_event_source *idle_src;	/* power saving: unprepare when idle */
};

#define MAX_REFS	64

struct client {
	sd_bus *bus;
	struct client *next;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int pidfd;
	struct aned_rule rule;
	unsigned int policy_gen;	/* the policy @rule came from */
	gid_t groups[64];
	int n_groups;
	uint64_t models[MAX_REFS];	/* ids this connection holds (0: free) */
	unsigned int n_models;
	int dead;
};

static sd_event *event;
/* Frees the connections marked dead, after the loop iteration (oneshot). */
static sd_event_source *reap_src;
static struct aned_policy policy;
static unsigned int policy_gen;
/* Requests in flight, any model; the loop's periodic wake-up. */
static struct job *inflight_jobs;
static sd_event_source *tick_src;
static unsigned int n_compiles;
static struct ctl *ctls;
static struct model *models;
static struct client *clients;
static unsigned int n_clients;
static uint64_t next_model_id = 1, lru_clock;
static uint64_t cache_used;
static struct {
	uint64_t loads, hits, evictions, evaluations, refused, unwired, depth_lowered,
		 idle_unprepares, compiles, reloads;
} stats;

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("aned: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ------------------------------------------------------------ QoS */

/* The program priority of a QoS (ProgramPrepare). */
static uint32_t qos_priority(uint32_t qos)
{
	static const uint32_t prio[] = { 7, 6, 4, 3, 2, 1 };

	return prio[qos];
}

/* The request's queue index and execution priority (qos_class, exec_priority). */
static void qos_request(uint32_t qos, uint32_t *queue, uint32_t *exec)
{
	static const uint32_t q[] = { 1, 3, 5, 6, 7, 8 };
	static const uint32_t e[] = { 9, 17, 21, 25, 33, 47 };

	*queue = q[qos];
	*exec = e[qos];
}

static const char *qos_name(uint32_t qos)
{
	static const char *const n[] = { "background", "utility", "default",
		"user-initiated", "user-interactive", "realtime" };

	return qos <= ANE_QOS_MAX ? n[qos] : "?";
}

/* ------------------------------------------------------------ admission */

static int deny(sd_bus_error *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int deny(sd_bus_error *err, int e, const char *fmt, ...)
{
	const char *en = strerrorname_np(e);
	char msg[256], name[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	stats.refused++;
	/*
	 * "System.Error.<errno name>": sd-bus turns it back into the errno on
	 * the client's side, exactly (its own mapping merges EPERM and EACCES).
	 */
	if (!en)
		return sd_bus_error_set_errnof(err, e, "%s", msg);
	snprintf(name, sizeof(name), "System.Error.%s", en);
	sd_bus_error_set(err, name, msg);
	return -e;
}

/* The method's entitlement: 0, or the error set. */
static int admit(struct client *c, unsigned int ent, const char *method,
		 sd_bus_error *err)
{
	/* A SIGHUP reloaded the policy: re-admit at the connection's next call. */
	if (c->policy_gen != policy_gen) {
		c->rule = aned_policy_lookup(&policy, c->uid, c->gid, c->groups, c->n_groups);
		c->policy_gen = policy_gen;
	}
	if (c->rule.tier == ANED_TIER_NONE)
		return deny(err, EACCES, "%s: uid %u has no rule in the policy",
			    method, (unsigned int)c->uid);
	if (!(c->rule.ents & ANED_ENT_BASELINE) || (ent && !(c->rule.ents & ent)))
		return deny(err, EACCES, "%s: uid %u (tier %s) lacks the entitlement %s",
			    method, (unsigned int)c->uid, aned_tier_name(c->rule.tier),
			    aned_ent_name(ent ? ent : ANED_ENT_BASELINE));
	return 0;
}

static int check_qos(struct client *c, uint32_t qos, const char *method,
		     sd_bus_error *err)
{
	uint32_t max = aned_tier_max_qos(c->rule.tier);

	if (qos > ANE_QOS_MAX)
		return deny(err, EINVAL, "%s: qos %u: out of range 0..%u", method, qos,
			    ANE_QOS_MAX);
	if (qos > max)
		return deny(err, EPERM, "%s: qos %u (%s): above the %s tier's %s", method,
			    qos, qos_name(qos), aned_tier_name(c->rule.tier), qos_name(max));
	return 0;
}

/* ------------------------------------------------------------ models */

static struct model *model_find(uint64_t id)
{
	struct model *m;

	for (m = models; m; m = m->next)
		if (m->id == id)
			return m;
	return NULL;
}

/* The model @id if this connection holds it, else NULL and the error set. */
static struct model *client_model(struct client *c, uint64_t id, const char *method,
				  sd_bus_error *err)
{
	unsigned int i;

	for (i = 0; id && i < MAX_REFS; i++)
		if (c->models[i] == id)
			return model_find(id);
	deny(err, ENOENT, "%s: model: %" PRIu64 " is not a model of this connection",
	     method, id);
	return NULL;
}

static int client_add_ref(struct client *c, struct model *m, sd_bus_error *err,
			  const char *method)
{
	unsigned int i, cap = aned_tier_max_models(c->rule.tier);

	if (c->n_models >= cap)
		return deny(err, ENOSPC, "%s: the connection holds %u models, the %s tier's limit",
			    method, c->n_models, aned_tier_name(c->rule.tier));
	for (i = 0; i < MAX_REFS; i++)
		if (!c->models[i]) {
			c->models[i] = m->id;
			c->n_models++;
			m->refs++;
			m->last_use = ++lru_clock;
			return 0;
		}
	return deny(err, ENOSPC, "%s: no reference slot left", method);
}

/* Unwire surface set @k of @m: its surfaces go, and their charge. */
static void set_free(struct model *m, unsigned int k)
{
	struct ioset *set = &m->sets[k];
	unsigned int i;

	if (!set->made)
		return;
	for (i = 0; i < 2 * ANE_IMG_MAX_IO; i++)
		ane_surface_destroy(set->s[i]);
	m->bytes -= set->bytes;
	cache_used -= set->bytes;
	memset(set, 0, sizeof(*set));
}

static void model_free(struct model *m)
{
	struct model **pp;
	unsigned int i;

	for (pp = &models; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	if (ane_program_destroy(m->prog))
		logmsg("model %" PRIu64 ": %s", m->id, ane_errmsg(m->ctl->dev));
	ane_surface_destroy(m->weights);
	for (i = 0; i < ANE_BROKER_DEPTH_MAX; i++)
		set_free(m, i);
	sd_event_source_disable_unref(m->idle_src);
	m->ctl->progs--;
	cache_used -= m->bytes;
	free(m->image);
	if (m->base)
		m->base->refs--;
	free(m);
}

/* Drop one reference; an instance without references goes at once. */
static void model_put(struct model *m)
{
	m->refs--;
	if (!m->refs && m->base)
		model_free(m);
}

/*
 * Unwire the idle surface sets of models without NO_UNWIRE (@self's
 * too, except its set @keep) until @need fits; 1 if it fits.
 */
static int cache_unwire(uint64_t need, struct model *self, int keep)
{
	struct model *m;
	unsigned int k;

	for (m = models; m && cache_used + need > opt.cache_bytes; m = m->next) {
		if (m->flags & ANE_BROKER_LOAD_NO_UNWIRE)
			continue;
		for (k = 0; k < ANE_BROKER_DEPTH_MAX && cache_used + need > opt.cache_bytes; k++)
			if (m->sets[k].made && !m->sets[k].busy && !(m == self && (int)k == keep)) {
				set_free(m, k);
				stats.unwired++;
			}
	}
	return cache_used + need <= opt.cache_bytes;
}

/* Evict unreferenced cached models, oldest first, until @need fits. */
static unsigned int cache_evict(uint64_t need, int all, uint32_t partition)
{
	unsigned int n = 0;

	for (;;) {
		struct model *m, *old = NULL;

		if (!all && cache_used + need <= opt.cache_bytes)
			break;
		for (m = models; m; m = m->next)
			if (!m->refs && !m->base && (!old || m->last_use < old->last_use) &&
			    (all != 1 || m->partition == partition))
				old = m;
		if (!old)
			break;
		model_free(old);
		stats.evictions++;
		n++;
	}
	return n;
}

static int on_ctl(sd_event_source *s, int fd, uint32_t revents, void *ud);

static struct ctl *ctl_get(sd_bus_error *err)
{
	struct ctl *c;
	char msg[512];
	int ret;

	for (c = ctls; c; c = c->next)
		if (c->progs < PROGS_PER_CTL)
			return c;
	c = calloc(1, sizeof(*c));
	if (!c) {
		deny(err, ENOMEM, "out of memory");
		return NULL;
	}
	ret = ane_open(opt.node, ANE_KIND_CONTROL, &c->dev, msg, sizeof(msg));
	if (ret) {
		free(c);
		deny(err, -ret, "the daemon cannot open the device: %s", msg);
		return NULL;
	}
	if (sd_event_add_io(event, &c->src, ane_fd(c->dev), EPOLLIN, on_ctl, c) < 0) {
		ane_close(c->dev);
		free(c);
		deny(err, EIO, "the daemon cannot watch its control file");
		return NULL;
	}
	c->next = ctls;
	ctls = c;
	return c;
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Procedure 0's inputs and outputs and their sizes, from an accepted image. */
static void model_io(struct model *m)
{
	const struct ane_img_header *h = (const void *)m->image;
	const struct ane_img_procedure *p = (const void *)(m->image + h->procedures_offset);
	const struct ane_img_bar *bar = (const void *)(m->image + h->bars_offset);
	uint32_t i;

	m->n_in = p->num_inputs;
	m->n_out = p->num_outputs;
	m->weights_size = h->weights_size;
	for (i = 0; i < h->num_bars; i++) {
		if (bar[i].io_index >= ANE_IMG_MAX_IO)
			continue;
		if (bar[i].usage == 1)
			m->in_size[bar[i].io_index] = bar[i].size;
		else if (bar[i].usage == 2)
			m->out_size[bar[i].io_index] = bar[i].size;
	}
}

static uint64_t round16k(uint64_t v)
{
	return (v + PAGE16K - 1) & ~(PAGE16K - 1);
}

/*
 * The header fields the daemon reads itself, checked before the kernel
 * sees the image (it checks everything again).
 */
static int image_precheck(const uint8_t *img, size_t size, sd_bus_error *err)
{
	const struct ane_img_header *h = (const void *)img;

	if (size < sizeof(*h))
		return deny(err, EINVAL, "image: %zu bytes, shorter than the 128-byte header", size);
	if (h->magic != ANE_IMG_MAGIC || h->image_size != size)
		return deny(err, EINVAL, "image: %s", h->magic != ANE_IMG_MAGIC ?
			    "magic is not ANE1" : "image_size differs from the bytes sent");
	if (h->num_procedures < 1 || (uint64_t)h->procedures_offset + 32 > size)
		return deny(err, EINVAL, "image: procedures_offset out of the image");
	if (h->num_bars > ANE_IMG_MAX_BARS ||
	    (uint64_t)h->bars_offset + (uint64_t)h->num_bars * 24 > size)
		return deny(err, EINVAL, "image: bars_offset/num_bars out of the image");
	return 0;
}

/*
 * Load's and Instantiate's flags (@allowed of them): each field checked,
 * *@depth the queue depth asked.
 */
static int check_flags(struct client *c, uint32_t flags, uint32_t allowed,
		       const char *method, unsigned int *depth, sd_bus_error *err)
{
	unsigned int d = (flags & ANE_BROKER_DEPTH_MASK) >> ANE_BROKER_DEPTH_SHIFT;

	if (flags & ~LOAD_FLAGS)
		return deny(err, EINVAL, "%s: flags: 0x%x has unknown bits", method, flags);
	if (flags & LOAD_POWER & ~allowed)
		return deny(err, EINVAL, "%s: flags: power saving is the base model's (Load), not an instance's",
			    method);
	if ((flags & LOAD_POWER) == LOAD_POWER)
		return deny(err, EINVAL, "%s: flags: aggressive and power-saving exclude each other",
			    method);
	if ((flags & ANE_BROKER_LOAD_AGGRESSIVE_POWER) &&
	    !(c->rule.ents & ANED_ENT_AGGRESSIVE_POWER))
		return deny(err, EACCES, "%s: flags: aggressive power saving needs the entitlement %s",
			    method, aned_ent_name(ANED_ENT_AGGRESSIVE_POWER));
	if ((flags & ANE_BROKER_LOAD_NO_UNWIRE) && !(c->rule.ents & ANED_ENT_NO_UNWIRE))
		return deny(err, EACCES, "%s: flags: no-unwire needs the entitlement %s",
			    method, aned_ent_name(ANED_ENT_NO_UNWIRE));
	if (d > ANE_BROKER_DEPTH_MAX)
		return deny(err, EINVAL, "%s: flags: depth %u: out of range 1..%u", method, d,
			    ANE_BROKER_DEPTH_MAX);
	*depth = d ? d : ANE_BROKER_DEPTH_DEFAULT;
	return 0;
}

/* Load (or find in the cache) @img; the connection gets a reference. */
static int do_load(struct client *c, uint8_t *img, size_t size, uint32_t qos,
		   uint32_t flags, uint64_t *id, sd_bus_error *err)
{
	uint32_t part = c->rule.tier == ANED_TIER_PER_USER ? c->uid + 1 : 0;
	uint32_t prio;
	struct model *m;
	uint64_t hash, bytes;
	unsigned int depth;
	int ret;

	ret = check_qos(c, qos, "Load", err);
	if (ret)
		return ret;
	ret = check_flags(c, flags, LOAD_FLAGS, "Load", &depth, err);
	if (ret)
		return ret;
	if (size > aned_tier_max_image(c->rule.tier, opt.max_image))
		return deny(err, E2BIG, "Load: image: %zu bytes, above the %s tier's %" PRIu64,
			    size, aned_tier_name(c->rule.tier),
			    aned_tier_max_image(c->rule.tier, opt.max_image));
	ret = image_precheck(img, size, err);
	if (ret)
		return ret;
	prio = qos_priority(qos);
	hash = fnv1a(img, size);
	for (m = models; m; m = m->next)
		if (!m->base && m->hash == hash && m->size == size && m->partition == part &&
		    m->priority == prio && (m->flags & LOAD_POWER) == (flags & LOAD_POWER) &&
		    !memcmp(m->image, img, size)) {
			ret = client_add_ref(c, m, err, "Load");
			if (ret)
				return ret;
			/* The cached model serves the deepest queue and keeps wired if asked. */
			if (depth > m->depth)
				m->depth = m->eff_depth = depth;
			m->flags |= flags & ANE_BROKER_LOAD_NO_UNWIRE;
			stats.hits++;
			*id = m->id;
			return 0;
		}

	bytes = 2 * round16k(size) + ((const struct ane_img_header *)img)->intermediate_size;
	cache_evict(bytes, 0, 0);
	cache_unwire(bytes, NULL, -1);
	if (cache_used + bytes > opt.cache_bytes)
		return deny(err, ENOMEM, "Load: image: needs %" PRIu64 " bytes, the cache has %" PRIu64 " of %" PRIu64 " in use by referenced models",
			    bytes, cache_used, opt.cache_bytes);
	if (c->n_models >= aned_tier_max_models(c->rule.tier))
		return deny(err, ENOSPC, "Load: the connection holds %u models, the %s tier's limit",
			    c->n_models, aned_tier_name(c->rule.tier));
	m = calloc(1, sizeof(*m));
	if (!m)
		return deny(err, ENOMEM, "out of memory");
	m->ctl = ctl_get(err);
	if (!m->ctl) {
		free(m);
		return -EIO;
	}
	ret = ane_program_create(m->ctl->dev, img, size, &m->prog);
	if (!ret && !(flags & ANE_BROKER_LOAD_AGGRESSIVE_POWER)) {
		ret = ane_program_prepare_ex(m->prog, prio, ANE_BROKER_DEPTH_MAX);
		m->prepared = !ret;
	}
	if (ret) {
		deny(err, -ret, "Load: %s", ane_errmsg(m->ctl->dev));
		ane_program_destroy(m->prog);
		free(m);
		return ret;
	}
	m->ctl->progs++;
	m->id = next_model_id++;
	m->image = img;
	m->size = size;
	m->hash = hash;
	m->partition = part;
	m->priority = prio;
	m->flags = flags & ~ANE_BROKER_DEPTH_MASK;
	m->depth = m->eff_depth = depth;
	m->waitq_tail = &m->waitq;
	m->bytes = bytes;
	model_io(m);
	cache_used += bytes;
	m->next = models;
	models = m;
	stats.loads++;
	client_add_ref(c, m, err, "Load");
	*id = m->id;
	return 1;	/* the image is the model's now */
}

static int reply_model(sd_bus_message *msg, int ret, uint64_t id)
{
	if (ret < 0)
		return ret;
	return sd_bus_reply_method_return(msg, "t", id);
}

static int m_load(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	const void *p;
	uint32_t qos, flags;
	uint64_t id = 0;
	uint8_t *img;
	size_t size;
	int ret;

	ret = admit(c, 0, "Load", err);
	if (ret)
		return ret;
	ret = sd_bus_message_read_array(msg, 'y', &p, &size);
	if (ret < 0)
		return deny(err, EINVAL, "Load: image: not an array of bytes");
	ret = sd_bus_message_read(msg, "uu", &qos, &flags);
	if (ret < 0)
		return deny(err, EINVAL, "Load: qos, flags: not two uint32");
	img = malloc(size ? size : 1);
	if (!img)
		return deny(err, ENOMEM, "Load: image: out of memory");
	memcpy(img, p, size);
	ret = do_load(c, img, size, qos, flags, &id, err);
	if (ret <= 0)
		free(img);
	return reply_model(msg, ret, id);
}

static int m_load_fd(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	uint32_t qos, flags;
	uint64_t id = 0, max;
	struct stat st;
	uint8_t *img;
	size_t got = 0;
	int fd, ret;

	ret = admit(c, 0, "LoadFd", err);
	if (ret)
		return ret;
	ret = sd_bus_message_read(msg, "huu", &fd, &qos, &flags);
	if (ret < 0)
		return deny(err, EINVAL, "LoadFd: fd, qos, flags: not (h, u, u)");
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return deny(err, EINVAL, "LoadFd: fd: not a regular file or memfd");
	max = aned_tier_max_image(c->rule.tier, opt.max_image);
	if (st.st_size <= 0 || (uint64_t)st.st_size > max)
		return deny(err, st.st_size <= 0 ? EINVAL : E2BIG,
			    "LoadFd: fd: %lld bytes, not in 1..%" PRIu64,
			    (long long)st.st_size, max);
	img = malloc((size_t)st.st_size);
	if (!img)
		return deny(err, ENOMEM, "LoadFd: out of memory");
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, img + got, (size_t)st.st_size - got, (off_t)got);

		if (n <= 0) {
			free(img);
			return deny(err, EINVAL, "LoadFd: fd: short read at %zu of %lld bytes",
				    got, (long long)st.st_size);
		}
		got += (size_t)n;
	}
	ret = do_load(c, img, got, qos, flags, &id, err);
	if (ret <= 0)
		free(img);
	return reply_model(msg, ret, id);
}

static int model_prepare(struct model *m, sd_bus_error *err, const char *method)
{
	struct model *b = m->base ? m->base : m;
	int ret;

	if (b->prepared)
		return 0;
	ret = ane_program_prepare_ex(b->prog, b->priority, ANE_BROKER_DEPTH_MAX);
	if (ret)
		return deny(err, -ret, "%s: %s", method, ane_errmsg(b->ctl->dev));
	b->prepared = 1;
	return 0;
}

static uint64_t now_us(void)
{
	uint64_t t = 0;

	sd_event_now(event, CLOCK_MONOTONIC, &t);
	return t;
}

/* Wake the loop in TICK_US (completions a read kept, retries, deadlines). */
static void tick_arm(void)
{
	int on = 0;

	sd_event_source_get_enabled(tick_src, &on);
	if (on)
		return;
	sd_event_source_set_time(tick_src, now_us() + TICK_US);
	sd_event_source_set_enabled(tick_src, SD_EVENT_ONESHOT);
}

/* Answer @msg with errno @e (the message as deny()'s). */
static void reply_errno(sd_bus_message *msg, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void reply_errno(sd_bus_message *msg, int e, const char *fmt, ...)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	deny(&err, e, "%s", text);
	sd_bus_reply_method_error(msg, &err);
	sd_bus_error_free(&err);
}

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

static void idle_arm(struct model *b);
static void power_idle(struct model *b);

/* A job leaves: its model reference goes (an instance may go with it). */
static void job_free(struct job *j)
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
static void power_idle(struct model *b)
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

static void pump_all(void);

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

static void pump_all(void)
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

static int on_ctl(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	(void)s;
	(void)fd;
	(void)revents;
	(void)ud;
	reap_all();
	return 0;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *ud)
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
static void idle_arm(struct model *b)
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

static int m_evaluate(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

static void client_drop(struct client *c, unsigned int slot)
{
	struct model *m = model_find(c->models[slot]);

	c->models[slot] = 0;
	c->n_models--;
	if (m)
		model_put(m);
}

static int m_unload(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

static int m_share(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

static int m_adopt(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

static int m_instantiate(sd_bus_message *msg, void *ud, sd_bus_error *err)
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
	const char *node = ane_node(ctls->dev);
	int fd;

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

static int m_handoff(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

static int m_purge(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

static int m_diagnostics(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

/* ------------------------------------------------------------ compiler service */

/* A record's argument count, by op (ANE_BROKER_NET_*). */
static const unsigned char net_nargs[] = { 4, 4, 13, 4, 4, 2, 12, 1, 2, 1 };
/* Which arguments name an earlier record's tensor (bit i: argument i). */
static const unsigned short net_refs[] = { 0, 0, 0x7, 0x3, 0x6, 0x1, 0x1, 0x1, 0x1, 0x1 };

struct net_rec {
	uint32_t op;
	uint32_t args[ANE_BROKER_NET_MAX_ARGS];
	const float *data;		/* into the message */
	size_t n_data;
};

/* A Compile running in a child process. */
struct compile {
	struct compile *next;
	sd_bus_message *msg;		/* NULL once answered (timed out) */
	struct client *c;		/* NULL once the connection went */
	pid_t pid;
	int memfd;
	uint32_t qos, flags;
	sd_event_source *child_src, *timer_src;
};

static struct compile *compiles;

/* In the child: run the records through the builder; the image, or a message. */
static int net_build(const struct net_rec *r, unsigned int n, int out)
{
	struct ane_net *net = NULL;
	int *t = calloc(n ? n : 1, sizeof(*t));
	const void *img = NULL;
	size_t size = 0, done = 0;
	const char *msg;
	unsigned int i;
	int ret = 0;

	if (!t || ane_net_create(&net)) {
		msg = "out of memory";
		goto fail;
	}
	for (i = 0; i < n; i++) {
		const uint32_t *a = r[i].args;
		int x = (int)(a[0] < i ? t[a[0]] : -1);

		switch (r[i].op) {
		case ANE_BROKER_NET_INPUT:
			t[i] = ane_net_input(net, NULL, a[0], a[1], a[2], a[3]);
			break;
		case ANE_BROKER_NET_CONST: {
			/* A byte array in the message is not aligned for floats. */
			float *v = malloc(r[i].n_data * sizeof(float));

			if (!v) {
				msg = "out of memory";
				goto fail;
			}
			memcpy(v, r[i].data, r[i].n_data * sizeof(float));
			t[i] = ane_net_const(net, NULL, a[0], a[1], a[2], a[3], v);
			free(v);
			break;
		}
		case ANE_BROKER_NET_CONV: {
			struct ane_net_conv_params p = {
				.stride_h = a[3], .stride_w = a[4], .dilation_h = a[5],
				.dilation_w = a[6], .pad_top = a[7], .pad_bottom = a[8],
				.pad_left = a[9], .pad_right = a[10], .groups = a[11],
				.act = (enum ane_net_act)a[12],
			};

			t[i] = ane_net_conv(net, x, t[a[1]],
					    a[2] == ANE_BROKER_NET_NONE ? -1 : t[a[2]], &p);
			break;
		}
		case ANE_BROKER_NET_MATMUL:
			t[i] = ane_net_matmul(net, x, t[a[1]], a[2], (enum ane_net_act)a[3]);
			break;
		case ANE_BROKER_NET_ELTWISE:
			t[i] = ane_net_eltwise(net, (enum ane_net_eltwise_op)a[0], t[a[1]], t[a[2]],
					       (enum ane_net_act)a[3]);
			break;
		case ANE_BROKER_NET_ACTIVATION:
			t[i] = ane_net_activation(net, x, (enum ane_net_act)a[1]);
			break;
		case ANE_BROKER_NET_POOL: {
			struct ane_net_pool_params p = {
				.kind = (enum ane_net_pool_kind)a[1], .kernel_h = a[2],
				.kernel_w = a[3], .stride_h = a[4], .stride_w = a[5],
				.pad_top = a[6], .pad_bottom = a[7], .pad_left = a[8],
				.pad_right = a[9], .count_pad = a[10],
				.act = (enum ane_net_act)a[11],
			};

			t[i] = ane_net_pool(net, x, &p);
			break;
		}
		case ANE_BROKER_NET_SOFTMAX:
			t[i] = ane_net_softmax(net, x);
			break;
		case ANE_BROKER_NET_NORM:
			t[i] = ane_net_norm(net, x, (enum ane_net_norm_kind)a[1]);
			break;
		default:	/* OUTPUT */
			t[i] = -1;
			ane_net_output(net, x);
			break;
		}
	}
	if (ane_net_build(net, &img, &size)) {
		msg = ane_net_errmsg(net);
		goto fail;
	}
	while (done < size) {
		ssize_t k = write(out, (const uint8_t *)img + done, size - done);

		if (k <= 0)
			_exit(3);
		done += (size_t)k;
	}
	goto out;
fail:
	ret = 1;
	if (write(out, msg, strlen(msg)) < 0)
		ret = 3;
out:
	ane_net_destroy(net);
	free(t);
	return ret;
}

static void compile_free(struct compile *cp)
{
	struct compile **pp;

	for (pp = &compiles; *pp; pp = &(*pp)->next)
		if (*pp == cp) {
			*pp = cp->next;
			break;
		}
	sd_event_source_disable_unref(cp->child_src);
	sd_event_source_disable_unref(cp->timer_src);
	sd_bus_message_unref(cp->msg);
	close(cp->memfd);
	n_compiles--;
	free(cp);
}

static int on_compile_timeout(sd_event_source *s, uint64_t usec, void *ud)
{
	struct compile *cp = ud;

	(void)s;
	(void)usec;
	kill(cp->pid, SIGKILL);
	if (cp->msg) {
		reply_errno(cp->msg, ETIMEDOUT, "Compile: not done within %llu s: stopped",
			    (unsigned long long)(opt.compile_timeout_us / 1000000));
		cp->msg = sd_bus_message_unref(cp->msg);
	}
	return 0;
}

static int on_compile_done(sd_event_source *s, const siginfo_t *si, void *ud)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus_error err = SD_BUS_ERROR_NULL;
	struct compile *cp = ud;
	struct stat st;
	uint8_t *buf = NULL;
	uint64_t id = 0;
	size_t got = 0;
	int ret = 0;

	(void)s;
	if (!cp->msg || !cp->c)
		goto out;
	if (fstat(cp->memfd, &st) || st.st_size < 0 || (uint64_t)st.st_size > ANE_IMG_MAX_SIZE ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		reply_errno(cp->msg, EIO, "Compile: the compiler's output is unreadable");
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(cp->memfd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (si->si_code != CLD_EXITED || (si->si_status != 0 && si->si_status != 1)) {
		reply_errno(cp->msg, EIO, "Compile: the compiler %s %d",
			    si->si_code == CLD_EXITED ? "exited with" : "was killed by signal",
			    si->si_status);
		goto out;
	}
	if (si->si_status == 1) {
		buf[got] = '\0';
		reply_errno(cp->msg, EINVAL, "Compile: net: %s", (char *)buf);
		goto out;
	}
	stats.compiles++;
	if (got > aned_tier_max_image(cp->c->rule.tier, opt.max_image)) {
		reply_errno(cp->msg, E2BIG, "Compile: the image: %zu bytes, above the %s tier's %" PRIu64,
			    got, aned_tier_name(cp->c->rule.tier),
			    aned_tier_max_image(cp->c->rule.tier, opt.max_image));
		goto out;
	}
	if (cp->flags & ANE_BROKER_COMPILE_LOAD) {
		ret = do_load(cp->c, buf, got, cp->qos, cp->flags & ~ANE_BROKER_COMPILE_LOAD, &id,
			      &err);
		if (ret > 0)
			buf = NULL;	/* the model's now */
		if (ret < 0) {
			sd_bus_reply_method_error(cp->msg, &err);
			goto out;
		}
		got = 0;
	}
	ret = sd_bus_message_new_method_return(cp->msg, &reply);
	if (ret >= 0)
		ret = sd_bus_message_append_array(reply, 'y', buf ? (const void *)buf : "", got);
	if (ret >= 0)
		ret = sd_bus_message_append(reply, "t", id);
	if (ret >= 0)
		sd_bus_send(NULL, reply, NULL);
out:
	sd_bus_error_free(&err);
	free(buf);
	compile_free(cp);
	return 0;
}

static int m_compile(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	struct net_rec *r = NULL;
	struct compile *cp;
	uint64_t data_bytes = 0, max;
	uint32_t qos, flags;
	unsigned int n = 0, depth, i;
	int ret;

	ret = admit(c, ANED_ENT_COMPILER, "Compile", err);
	if (ret)
		return ret;
	max = aned_tier_max_image(c->rule.tier, opt.max_image);
	if (sd_bus_message_enter_container(msg, 'a', "(uauay)") < 0)
		return deny(err, EINVAL, "Compile: net: not an array of (u, au, ay)");
	for (;;) {
		const void *p;
		size_t size;
		struct net_rec *nr;

		ret = sd_bus_message_enter_container(msg, 'r', "uauay");
		if (ret < 0) {
			ret = deny(err, EINVAL, "Compile: net[%u]: not (u, au, ay)", n);
			goto out;
		}
		if (!ret)
			break;
		if (n == ANE_BROKER_NET_MAX_RECORDS) {
			ret = deny(err, E2BIG, "Compile: net: more than %u records",
				   ANE_BROKER_NET_MAX_RECORDS);
			goto out;
		}
		nr = realloc(r, (n + 1) * sizeof(*r));
		if (!nr) {
			ret = deny(err, ENOMEM, "Compile: out of memory");
			goto out;
		}
		r = nr;
		nr = &r[n];
		memset(nr, 0, sizeof(*nr));
		if (sd_bus_message_read(msg, "u", &nr->op) < 0 ||
		    sd_bus_message_read_array(msg, 'u', &p, &size) < 0) {
			ret = deny(err, EINVAL, "Compile: net[%u]: not (u, au, ay)", n);
			goto out;
		}
		if (nr->op >= sizeof(net_nargs)) {
			ret = deny(err, EINVAL, "Compile: net[%u].op: %u, not an ANE_BROKER_NET_* op",
				   n, nr->op);
			goto out;
		}
		if (size != net_nargs[nr->op] * sizeof(uint32_t)) {
			ret = deny(err, EINVAL, "Compile: net[%u].args: %zu, op %u takes %u", n,
				   size / sizeof(uint32_t), nr->op, net_nargs[nr->op]);
			goto out;
		}
		memcpy(nr->args, p, size);
		for (i = 0; i < net_nargs[nr->op]; i++) {
			uint32_t a = nr->args[i];

			if (!(net_refs[nr->op] & (1u << i)) ||
			    (nr->op == ANE_BROKER_NET_CONV && i == 2 && a == ANE_BROKER_NET_NONE))
				continue;
			if (a >= n || r[a].op == ANE_BROKER_NET_OUTPUT) {
				ret = deny(err, EINVAL, "Compile: net[%u].args[%u]: %u is not an earlier record's tensor",
					   n, i, a);
				goto out;
			}
		}
		if (sd_bus_message_read_array(msg, 'y', &p, &size) < 0) {
			ret = deny(err, EINVAL, "Compile: net[%u].data: not a byte array", n);
			goto out;
		}
		if (nr->op == ANE_BROKER_NET_CONST) {
			uint64_t vals = 1;

			for (i = 0; i < 4; i++) {
				if (!nr->args[i] || nr->args[i] > 65536) {
					ret = deny(err, EINVAL, "Compile: net[%u].args[%u]: dimension %u, not in 1..65536",
						   n, i, nr->args[i]);
					goto out;
				}
				vals *= nr->args[i];
			}
			if (vals > max || size != vals * sizeof(float)) {
				ret = deny(err, EINVAL, "Compile: net[%u].data: %zu bytes, the constant has %" PRIu64 " fp32 values",
					   n, size, vals);
				goto out;
			}
			data_bytes += size;
			if (data_bytes > 2 * max) {
				ret = deny(err, E2BIG, "Compile: net: constants above %" PRIu64 " bytes",
					   2 * max);
				goto out;
			}
			nr->data = p;
			nr->n_data = vals;
		} else if (size) {
			ret = deny(err, EINVAL, "Compile: net[%u].data: %zu bytes, only a constant (op 1) has data",
				   n, size);
			goto out;
		}
		if (sd_bus_message_exit_container(msg) < 0) {
			ret = deny(err, EINVAL, "Compile: net[%u]: not (u, au, ay)", n);
			goto out;
		}
		n++;
	}
	if (sd_bus_message_exit_container(msg) < 0 ||
	    sd_bus_message_read(msg, "uu", &qos, &flags) < 0) {
		ret = deny(err, EINVAL, "Compile: qos, flags: not two uint32");
		goto out;
	}
	ret = check_qos(c, qos, "Compile", err);
	if (!ret && (flags & ~(ANE_BROKER_COMPILE_LOAD | LOAD_FLAGS) ||
		     (!(flags & ANE_BROKER_COMPILE_LOAD) && flags)))
		ret = deny(err, EINVAL, "Compile: flags: 0x%x: ANE_BROKER_COMPILE_LOAD, with Load's flags", flags);
	if (!ret && (flags & ANE_BROKER_COMPILE_LOAD))
		ret = check_flags(c, flags & ~ANE_BROKER_COMPILE_LOAD, LOAD_FLAGS, "Compile", &depth, err);
	if (!ret && n_compiles >= MAX_COMPILES)
		ret = deny(err, EBUSY, "Compile: %u compiles are running, the daemon's limit: try again",
			   n_compiles);
	if (ret)
		goto out;
	cp = calloc(1, sizeof(*cp));
	if (!cp) {
		ret = deny(err, ENOMEM, "Compile: out of memory");
		goto out;
	}
	cp->memfd = memfd_create("aned-compile", MFD_CLOEXEC);
	if (cp->memfd < 0) {
		ret = deny(err, errno, "Compile: memfd_create: %s", strerror(errno));
		free(cp);
		goto out;
	}
	fflush(stderr);
	cp->pid = fork();
	if (cp->pid == 0) {
		struct rlimit cpu = { opt.compile_timeout_us / 1000000 + 1,
				      opt.compile_timeout_us / 1000000 + 1 };
		sigset_t all;

		/* Nothing of the daemon's but the output file; nobody's identity. */
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		if (dup2(cp->memfd, 3) != 3)
			_exit(4);
		close_range(4, ~0u, 0);
		setrlimit(RLIMIT_CPU, &cpu);
		if (!geteuid() && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
				   setresuid(65534, 65534, 65534)))
			_exit(5);
		_exit(net_build(r, n, 3));
	}
	if (cp->pid < 0) {
		ret = deny(err, errno, "Compile: fork: %s", strerror(errno));
		close(cp->memfd);
		free(cp);
		goto out;
	}
	cp->msg = sd_bus_message_ref(msg);
	cp->c = c;
	cp->qos = qos;
	cp->flags = flags;
	n_compiles++;
	cp->next = compiles;
	compiles = cp;
	if (sd_event_add_child(event, &cp->child_src, cp->pid, WEXITED, on_compile_done, cp) < 0 ||
	    sd_event_add_time(event, &cp->timer_src, CLOCK_MONOTONIC,
			      now_us() + opt.compile_timeout_us, 0, on_compile_timeout, cp) < 0) {
		kill(cp->pid, SIGKILL);
		waitpid(cp->pid, NULL, 0);
		compile_free(cp);
		ret = deny(err, EIO, "Compile: the event sources could not be set up");
		goto out;
	}
	ret = 1;	/* answered when the child ends */
out:
	free(r);
	return ret;
}

static const sd_bus_vtable broker_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Load", "ayuu", "t", m_load, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("LoadFd", "huu", "t", m_load_fd, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Evaluate", "taayu", "aayt", m_evaluate, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Unload", "t", "", m_unload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Share", "t", "t", m_share, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Adopt", "t", "t", m_adopt, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Instantiate", "tayuu", "t", m_instantiate, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Compile", "a(uauay)uu", "ayt", m_compile, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("HandOff", "tu", "hah", m_handoff, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Purge", "u", "u", m_purge, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Diagnostics", "", "s", m_diagnostics, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

/* ------------------------------------------------------------ connections */

static void client_free(struct client *c)
{
	struct client **pp;
	struct compile *cp;
	unsigned int i;

	for (pp = &clients; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	/* Instances first: they hold their base. */
	for (i = 0; i < MAX_REFS; i++) {
		struct model *m = c->models[i] ? model_find(c->models[i]) : NULL;

		if (m && m->base)
			client_drop(c, i);
	}
	for (i = 0; i < MAX_REFS; i++)
		if (c->models[i])
			client_drop(c, i);
	for (cp = compiles; cp; cp = cp->next)
		if (cp->c == c)
			cp->c = NULL;
	sd_bus_flush_close_unref(c->bus);
	if (c->pidfd >= 0)
		close(c->pidfd);
	n_clients--;
	free(c);
	cache_evict(0, 0, 0);
}

static int on_reap(sd_event_source *s, void *ud)
{
	struct client *c, *next;

	(void)s;
	(void)ud;
	for (c = clients; c; c = next) {
		next = c->next;
		if (c->dead)
			client_free(c);
	}
	return 0;
}

static int on_filter(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	struct client *c = ud;

	(void)err;
	if (sd_bus_message_is_signal(m, "org.freedesktop.DBus.Local", "Disconnected") &&
	    !c->dead) {
		c->dead = 1;
		sd_event_source_set_enabled(reap_src, SD_EVENT_ONESHOT);
	}
	return 0;
}

static int on_accept(sd_event_source *s, int lfd, uint32_t revents, void *ud)
{
	gid_t groups[64];
	socklen_t sl;
	struct ucred cred;
	struct client *c;
	sd_id128_t id;
	int fd, ng = 0;

	(void)s;
	(void)revents;
	(void)ud;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return 0;
	sl = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &sl) || n_clients >= opt.max_clients) {
		close(fd);
		return 0;
	}
	sl = sizeof(groups);
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &sl))
		ng = (int)(sl / sizeof(gid_t));
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return 0;
	}
	c->uid = cred.uid;
	c->gid = cred.gid;
	c->pid = cred.pid;
	sl = sizeof(c->pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &c->pidfd, &sl))
		c->pidfd = -1;
	c->rule = aned_policy_lookup(&policy, cred.uid, cred.gid, groups, ng);
	c->policy_gen = policy_gen;
	memcpy(c->groups, groups, (size_t)ng * sizeof(gid_t));
	c->n_groups = ng;
	if (sd_bus_new(&c->bus) < 0 || sd_bus_set_fd(c->bus, fd, fd) < 0 ||
	    sd_id128_randomize(&id) < 0 || sd_bus_set_server(c->bus, 1, id) < 0 ||
	    sd_bus_negotiate_fds(c->bus, 1) < 0 ||
	    sd_bus_add_object_vtable(c->bus, NULL, BROKER_PATH, BROKER_IFACE, broker_vtable,
				     c) < 0 ||
	    sd_bus_add_filter(c->bus, NULL, on_filter, c) < 0 ||
	    sd_bus_attach_event(c->bus, event, 0) < 0 || sd_bus_start(c->bus) < 0) {
		logmsg("connection of pid %d dropped: no D-Bus connection could be set up", (int)cred.pid);
		if (c->bus)
			sd_bus_flush_close_unref(c->bus);
		else
			close(fd);
		if (c->pidfd >= 0)
			close(c->pidfd);
		free(c);
		return 0;
	}
	c->next = clients;
	clients = c;
	n_clients++;
	return 0;
}

/* SIGHUP: read the policy again; a bad file keeps the old one. */
static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *ud)
{
	static struct aned_policy next;
	char perr[256];

	(void)s;
	(void)si;
	(void)ud;
	if (aned_policy_load(opt.policy, &next, perr, sizeof(perr))) {
		logmsg("SIGHUP: the policy is kept: %s", perr);
		return 0;
	}
	policy = next;
	policy_gen++;
	stats.reloads++;
	logmsg("SIGHUP: %s reloaded (%u rules); connections are re-admitted at their next call",
	       opt.policy, policy.n);
	return 0;
}

static int listen_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int n = sd_listen_fds(1), fd;

	if (n > 1) {
		logmsg("systemd passed %d sockets, expected 1", n);
		return -1;
	}
	if (n == 1)
		return SD_LISTEN_FDS_START;
	if (strlen(opt.socket) >= sizeof(sa.sun_path)) {
		logmsg("--socket %s: path too long", opt.socket);
		return -1;
	}
	strcpy(sa.sun_path, opt.socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		logmsg("a unix socket: %s", strerror(errno));
		return -1;
	}
	unlink(opt.socket);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(opt.socket, 0666) ||
	    listen(fd, 64)) {
		logmsg("%s: %s", opt.socket, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int parse_mb(const char *s, uint64_t *out, const char *name)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || !v || v > (1ull << 20)) {
		logmsg("%s takes MiB, 1..1048576, not '%s'", name, s);
		return -1;
	}
	*out = (uint64_t)v << 20;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: aned [--socket PATH] [--policy PATH] [--node NODE] [--cache-mb N]\n"
		"            [--max-image-mb N] [--max-clients N] [--idle-ms N]\n"
		"            [--compile-timeout-s N] [--foreground]\n"
		"The ane broker daemon (Documentation/accel/ane/broker.rst).\n"
		"  --socket PATH      listen there (default %s; systemd socket\n"
		"                     activation takes precedence)\n"
		"  --policy PATH      the policy file (default /etc/aned/policy.conf)\n"
		"  --node NODE        the accel node (default: the first ane device)\n"
		"  --cache-mb N       model cache budget in MiB (default 256)\n"
		"  --max-image-mb N   largest image accepted (default 64)\n"
		"  --max-clients N    connections at once (default 256)\n"
		"  --idle-ms N        power saving: unprepare after N ms idle (default 2000)\n"
		"  --compile-timeout-s N  a Compile's time limit (default 60)\n"
		"  --foreground       log to stderr, for tests (aned never forks)\n"
		"  -V, --version      libane's version\n",
		ANE_BROKER_SOCKET_DEFAULT);
}

int main(int argc, char **argv)
{
	uint64_t v;
	char perr[256];
	int i, lfd, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("aned (libane) %s\n", ane_version());
			return 0;
		} else if (!strcmp(a, "--foreground")) {
			opt.foreground = 1;
		} else if (!val) {
			usage(stderr);
			return 2;
		} else if (!strcmp(a, "--socket")) {
			opt.socket = val;
			i++;
		} else if (!strcmp(a, "--policy")) {
			opt.policy = val;
			i++;
		} else if (!strcmp(a, "--node")) {
			opt.node = val;
			i++;
		} else if (!strcmp(a, "--cache-mb")) {
			if (parse_mb(val, &opt.cache_bytes, a))
				return 2;
			i++;
		} else if (!strcmp(a, "--max-image-mb")) {
			if (parse_mb(val, &opt.max_image, a))
				return 2;
			if (opt.max_image > ANE_IMG_MAX_SIZE)
				opt.max_image = ANE_IMG_MAX_SIZE;
			i++;
		} else if (!strcmp(a, "--max-clients")) {
			if (parse_mb(val, &v, a))
				return 2;
			opt.max_clients = (unsigned int)(v >> 20);
			i++;
		} else if (!strcmp(a, "--idle-ms")) {
			if (parse_mb(val, &v, a))
				return 2;
			opt.idle_us = (v >> 20) * 1000;
			i++;
		} else if (!strcmp(a, "--compile-timeout-s")) {
			if (parse_mb(val, &v, a))
				return 2;
			opt.compile_timeout_us = (v >> 20) * 1000000;
			i++;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (aned_policy_load(opt.policy, &policy, perr, sizeof(perr))) {
		logmsg("%s", perr);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	/* sd_event_add_child() needs SIGCHLD blocked (the compiler service). */
	{
		sigset_t ss;

		sigemptyset(&ss);
		sigaddset(&ss, SIGCHLD);
		sigprocmask(SIG_BLOCK, &ss, NULL);
	}
	ret = sd_event_default(&event);
	if (ret < 0) {
		logmsg("the event loop: %s", strerror(-ret));
		return 1;
	}
	lfd = listen_socket();
	if (lfd < 0)
		return 1;
	/* Open the device now: a broker that cannot reach it says so at once. */
	{
		sd_bus_error e = SD_BUS_ERROR_NULL;

		if (!ctl_get(&e)) {
			logmsg("%s", e.message);
			sd_bus_error_free(&e);
			return 1;
		}
	}
	if (sd_event_add_defer(event, &reap_src, on_reap, NULL) < 0 ||
	    sd_event_source_set_enabled(reap_src, SD_EVENT_OFF) < 0 ||
	    sd_event_add_io(event, NULL, lfd, EPOLLIN, on_accept, NULL) < 0 ||
	    sd_event_add_signal(event, NULL, SIGTERM | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL) < 0 ||
	    sd_event_add_signal(event, NULL, SIGINT | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL) < 0 ||
	    sd_event_add_signal(event, NULL, SIGHUP | SD_EVENT_SIGNAL_PROCMASK, on_hup, NULL) < 0 ||
	    sd_event_add_time(event, &tick_src, CLOCK_MONOTONIC, 0, 1000, on_tick, NULL) < 0 ||
	    sd_event_source_set_enabled(tick_src, SD_EVENT_OFF) < 0) {
		logmsg("the event sources could not be set up");
		return 1;
	}
	logmsg("listening on %s, device %s, cache %" PRIu64 " MiB",
	       lfd == SD_LISTEN_FDS_START ? "the systemd socket" : opt.socket,
	       ane_node(ctls->dev), opt.cache_bytes >> 20);
	sd_notify(0, "READY=1");
	ret = sd_event_loop(event);
	while (compiles) {
		kill(compiles->pid, SIGKILL);
		waitpid(compiles->pid, NULL, 0);
		compile_free(compiles);
	}
	/* Requests in flight finish before their surfaces and programs go. */
	while (inflight_jobs) {
		struct job *j = inflight_jobs;
		uint64_t ns;
		int st;

		inflight_jobs = j->next;
		ane_request_wait(j->m->ctl->dev, j->seqno, ane_deadline_ns(EVAL_TIMEOUT_NS), &st, &ns);
		if (st == ANE_REQUEST_PENDING)
			ane_request_wait(j->m->ctl->dev, j->seqno, ANE_WAIT_FOREVER, NULL, NULL);
		j->m->sets[j->set].busy = 0;
		job_free(j);
	}
	{
		struct model *m, *next;

		for (m = models; m; m = next) {
			m->refs++;	/* an instance goes with its last job */
			while (m->waitq) {
				struct job *j = m->waitq;

				m->waitq = j->next;
				job_free(j);
			}
			next = m->next;
			model_put(m);
		}
	}
	while (clients)
		client_free(clients);
	cache_evict(0, 2, 0);
	while (ctls) {
		struct ctl *c = ctls;

		ctls = c->next;
		sd_event_source_disable_unref(c->src);
		ane_close(c->dev);
		free(c);
	}
	sd_event_source_disable_unref(tick_src);
	sd_event_source_unref(reap_src);
	sd_event_unref(event);
	return ret < 0 ? 1 : 0;
}
