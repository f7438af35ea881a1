// SPDX-License-Identifier: MIT
/*
 * aned: models and the cache: Load and LoadFd (an image checked, created
 * and prepared, or the cached model for the same bytes), the cache's
 * charge, eviction and unwiring, and the control files programs live on.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "aned.h"

/* ------------------------------------------------------------ models */

struct model *model_find(uint64_t id)
{
	struct model *m;

	for (m = models; m; m = m->next)
		if (m->id == id)
			return m;
	return NULL;
}

/* The model @id if this connection holds it, else NULL and the error set. */
struct model *client_model(struct client *c, uint64_t id, const char *method,
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

int client_add_ref(struct client *c, struct model *m, sd_bus_error *err,
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
void set_free(struct model *m, unsigned int k)
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
void model_put(struct model *m)
{
	m->refs--;
	if (!m->refs && m->base)
		model_free(m);
}

/*
 * Unwire the idle surface sets of models without NO_UNWIRE (@self's
 * too, except its set @keep) until @need fits; 1 if it fits.
 */
int cache_unwire(uint64_t need, struct model *self, int keep)
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
unsigned int cache_evict(uint64_t need, int all, uint32_t partition)
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

struct ctl *ctl_get(sd_bus_error *err)
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

uint64_t round16k(uint64_t v)
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
int check_flags(struct client *c, uint32_t flags, uint32_t allowed,
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
int do_load(struct client *c, uint8_t *img, size_t size, uint32_t qos,
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

int m_load(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

int m_load_fd(sd_bus_message *msg, void *ud, sd_bus_error *err)
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

int model_prepare(struct model *m, sd_bus_error *err, const char *method)
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

uint64_t now_us(void)
{
	uint64_t t = 0;

	sd_event_now(event, CLOCK_MONOTONIC, &t);
	return t;
}

/* Wake the loop in TICK_US (completions a read kept, retries, deadlines). */
void tick_arm(void)
{
	int on = 0;

	sd_event_source_get_enabled(tick_src, &on);
	if (on)
		return;
	sd_event_source_set_time(tick_src, now_us() + TICK_US);
	sd_event_source_set_enabled(tick_src, SD_EVENT_ONESHOT);
}

void reply_errno(sd_bus_message *msg, int e, const char *fmt, ...)
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
