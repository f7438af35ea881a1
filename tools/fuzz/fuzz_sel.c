// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: argument modes (valid, one field corrupted, zero, random, bad
 * pointers) and the 26 selectors with their exact size tuples.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "fuzz.h"

/* ------------------------------------------------------------ arguments */

const char *const mode_names[] = { "valid", "corrupt", "zero", "random", "badptr" };

int pick_mode(struct rng *r)
{
	unsigned int x = rn(r, 100);

	return x < 68 ? M_VALID : x < 86 ? M_CORRUPT : x < 91 ? M_ZERO :
	       x < 96 ? M_RANDOM : M_BADPTR;
}

void fill_random(struct rng *r, void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)rnd(r);
}

/* Overwrite one naturally aligned field in the first @n bytes. */
void corrupt(struct rng *r, void *p, size_t n)
{
	uint8_t *b = p;
	unsigned int sz = 1u << rn(r, 4);
	size_t off;
	uint64_t v = interesting(r);

	if (!n)
		return;
	if (sz > n)
		sz = 1;
	off = rn(r, (uint32_t)(n / sz)) * sz;
	memcpy(b + off, &v, sz);
}

/* A pointer the kernel must not be able to use. */
void *bad_ptr(struct worker *w, struct rng *r, size_t size)
{
	switch (rn(r, 5)) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)0xffff888000000000ull;	/* kernel */
	case 2:		/* runs into the guard page */
		return w->scratch + SCRATCH - (size ? rn(r, (uint32_t)size) : 0);
	case 3:
		return (void *)(uintptr_t)16;
	default:
		return (void *)(uintptr_t)(rnd(r) | 0x8000000000000000ull);
	}
}

/*
 * A corrupted pointer field must not land somewhere else in this process
 * (a partial overwrite keeps the high bits): the kernel would write there.
 * Any pointer field @valid had that @a no longer has becomes unmapped.
 */
void guard_ptrs(void *a, const void *valid, const size_t *offs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		uint64_t v, o;

		memcpy(&v, (uint8_t *)a + offs[i], 8);
		memcpy(&o, (const uint8_t *)valid + offs[i], 8);
		if (v != o && v >= 0x10000 && v < 0x800000000000ull) {
			v = 0xffff888000000000ull | (v & 0xfffff);
			memcpy((uint8_t *)a + offs[i], &v, 8);
		}
	}
}

/* The offsets of the user pointers in selector @s's struct; their count. */
static int sel_ptr_offs(int s, size_t *offs)
{
	switch (s) {
	case S_CREATE:
		offs[0] = offsetof(struct drm_ane_program_create, image);
		offs[1] = offsetof(struct drm_ane_program_create, token_ptr);
		return 2;
	case S_INSTANCE:
		offs[0] = offsetof(struct drm_ane_program_create_instance, token_ptr);
		return 1;
	case S_OSE:
		offs[0] = offsetof(struct drm_ane_output_set_enqueue, surfaces);
		return 1;
	case S_LOAD_FW:
		offs[0] = offsetof(struct drm_ane_load_firmware, image);
		return 1;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------ selectors */

/*
 * Fill @a (zeroed, @size bytes) for selector @s on @fdi in the valid form.
 * Returns whether all the pointers in it are valid; may switch @fdi.
 */
static int gen_sel(struct worker *w, struct rng *r, int s, int *fdi, void *a)
{
	switch (s) {
	case S_CTL_OPEN: case S_DP_OPEN: {
		struct drm_ane_device_open *o = a;

		o->in.usage_type = chance(r, 95) ? ANE_USAGE_STANDARD : (uint8_t)rn(r, 4);
		o->in.callback = 0x1111222233334444ull;
		o->in.receiver_context = rnd(r);
		o->in.timeout = 10000;
		if (chance(r, 80)) {	/* a fresh file, mostly */
			int i = rn(r, NFD);

			if (!slot_open(w, i, r))
				*fdi = i;
		}
		return 1;
	}
	case S_CTL_SEND: case S_DP_SEND: {
		struct drm_ane_send_request *q = a;
		struct prog *p = pick_prog(w, r, 1);
		unsigned int i, k = 0, nin, nout;
		struct surf *sf;

		q->doorbell = chance(r, 95) ? rn(r, ANE_MAX_DOORBELL) : interesting(r);
		q->in.qos_class = 5;
		q->in.exec_priority = 21;
		q->in.io_category = 2;
		if (!p)
			return 1;
		*fdi = p->fdi;
		if (s == S_DP_SEND && chance(r, 70))
			*fdi = pick_fd(w, r, 1);
		q->in.token = p->token;
		q->in.sequence = chance(r, 90) ? p->seq : interesting(r);
		nin = imgs[p->img].nin;
		nout = imgs[p->img].nout;
		for (i = 0; i < nin + nout; i++) {
			sf = pick_surf(w, r, p->fdi);
			if (!sf)
				continue;
			q->in.surfaces[k].handle = sf->handle;
			q->in.surfaces[k].kind = i < nin ? ANE_SURFACE_INPUT :
							   ANE_SURFACE_OUTPUT;
			q->in.surfaces[k].bar = (uint8_t)(i < nin ? i : i - nin);
			k++;
		}
		sf = chance(r, 15) ? pick_surf(w, r, p->fdi) : NULL;
		if (sf) {
			q->in.surfaces[k].handle = sf->handle;
			q->in.surfaces[k++].kind = ANE_SURFACE_INTERMEDIATE;
		}
		if (chance(r, 20)) {
			struct sobj *so = pick_sobj(w, r, p->fdi);

			if (so) {
				q->in.surfaces[k].handle = so->h;
				q->in.surfaces[k++].kind = ANE_SURFACE_OUT_SYNCOBJ;
			}
		}
		/* wait events: a fence, the shared event (held until rung) */
		if (chance(r, 15)) {
			struct sobj *so = pick_sobj(w, r, p->fdi);

			if (so) {
				q->in.surfaces[k].handle = so->h;
				q->in.surfaces[k++].kind = ANE_SURFACE_IN_SYNCOBJ;
			}
		}
		if (chance(r, 5)) {
			q->in.surfaces[k].handle = chance(r, 90) ?
				ANE_SHARED_EVENT_ID : (uint32_t)interesting(r);
			q->in.surfaces[k++].kind = ANE_SURFACE_IN_SHARED_EVENT;
		}
		if (chance(r, 5))	/* shuffle two */
			if (k > 1) {
				struct drm_ane_surface_ref t = q->in.surfaces[0];

				q->in.surfaces[0] = q->in.surfaces[k - 1];
				q->in.surfaces[k - 1] = t;
			}
		return 1;
	}
	case S_CREATE: {
		struct drm_ane_program_create *c = a;
		int k = rn(r, NIMG), ok = 1;
		size_t size = imgs[k].size;

		w->cur_img = k;
		memcpy(w->imgbuf, imgs[k].data, size);
		if (chance(r, 25)) {	/* a corrupted image: header or tables */
			unsigned int n = 1 + rn(r, 3);

			while (n--)
				corrupt(r, w->imgbuf, chance(r, 50) ? 128 : size);
		}
		if (chance(r, 5)) {	/* an operand layout word (minor 2) */
			/* the image's own header: the copy may be corrupted */
			const struct ane_img_header *h = (const void *)imgs[k].data;
			struct ane_img_td *td = (void *)((uint8_t *)w->imgbuf +
							 h->tds_offset);
			uint32_t *lw = &td[rn(r, h->num_tds)].words[ANE_TD_SRC0_LAYOUT +
								    rn(r, 4)];

			*lw = chance(r, 50) ? (uint32_t)interesting(r) :
			      ANE_TD_LAYOUT(rn(r, 80), rn(r, 80));
		}
		if (chance(r, 5))	/* truncated or padded */
			size = chance(r, 50) ? rn(r, (uint32_t)size) :
					       size + rn(r, IMGBUF - (uint32_t)size);
		if (chance(r, 1)) {	/* huge: the kernel must check first */
			size = ANE_IMG_MAX_SIZE - rn(r, 1 << 20);
			((struct ane_img_header *)w->imgbuf)->image_size = size;
			ok = 0;
		}
		c->image = (uintptr_t)w->imgbuf;
		c->image_size = size;
		c->token_ptr = (uintptr_t)&w->tokout;
		*fdi = pick_fd(w, r, 0);
		return ok;
	}
	case S_PREPARE: case S_UNPREPARE: {
		struct drm_ane_program_prepare_args *p = a;
		struct prog *pg = pick_prog(w, r, 0);

		if (pg) {
			p->token = pg->token;
			*fdi = pg->fdi;
		}
		if (s == S_PREPARE) {
			p->priority = 2 + rn(r, 6);
			p->queue_depth = chance(r, 70) ? 0 : rn(r, 70);
		}
		return 1;
	}
	case S_DESTROY: {
		struct drm_ane_program_destroy *d = a;
		struct prog *pg = pick_prog(w, r, 0);

		if (pg) {
			d->token = pg->token;
			*fdi = pg->fdi;
		}
		return 1;
	}
	case S_INSTANCE: {
		struct drm_ane_program_create_instance *c = a;
		struct prog *pg = pick_prog(w, r, chance(r, 50));
		struct surf *sf;

		if (pg) {
			c->program = pg->token;
			*fdi = pg->fdi;
			sf = chance(r, 30) ? pick_surf(w, r, pg->fdi) : NULL;
			if (sf)
				c->weights = sf->handle;
		}
		c->token_ptr = (uintptr_t)&w->tokout;
		return 1;
	}
	case S_CHAIN_PREP: {
		struct drm_ane_chaining_prepare *c = a;
		struct prog *pg = pick_prog(w, r, 1);

		if (pg) {
			c->token = pg->token;
			*fdi = pg->fdi;
		}
		return 1;
	}
	case S_REG_DWP: {
		struct drm_ane_register_dwp *d = a;
		struct surf *sf = pick_surf(w, r, *fdi);

		if (sf) {
			d->buffer = sf->handle;
			d->size = chance(r, 80) ? sf->size : 1 + rn(r, (uint32_t)sf->size);
		}
		return 1;
	}
	case S_GET_DWP: case S_COMPLETE_DWP: {
		struct drm_ane_dwp_item *d = a;

		d->item = rn(r, 5);
		d->arg = s == S_GET_DWP ? (uint64_t)rn(r, 16) * 4096 : rn(r, 3);
		return 1;
	}
	case S_LOAD_FW: {
		struct drm_ane_load_firmware *l = a;

		l->image = (uintptr_t)w->imgbuf;
		l->size = rn(r, IMGBUF);
		return 1;
	}
	case S_OSE: {
		struct drm_ane_output_set_enqueue *o = a;
		struct drm_ane_surface_ref *refs = (void *)(w->scratch + SCRATCH / 2);
		struct surf *sf = pick_surf(w, r, *fdi);

		memset(refs, 0, 4 * sizeof(*refs));
		if (sf)
			refs[0] = (struct drm_ane_surface_ref){ .handle = sf->handle,
								.kind = ANE_SURFACE_OUTPUT };
		o->cache_handle = rn(r, 4);
		o->num_surfaces = rn(r, 4);
		o->surfaces = (uintptr_t)refs;
		return 1;
	}
	case S_INPUTS_READY: {
		struct drm_ane_inputs_ready *i = a;
		struct surf *sf = pick_surf(w, r, *fdi);

		i->cache_handle = rn(r, 4);
		i->exec_timestamp = rnd(r) >> 1;
		i->num_inputs = rn(r, 17);
		if (sf)
			i->inputs[0] = (struct drm_ane_surface_ref){ .handle = sf->handle,
								     .kind = ANE_SURFACE_INPUT };
		return 1;
	}
	case S_MAP: {
		struct drm_ane_memory_map *m = a;
		static const uint32_t usages[] = { 1, 2, 7, 8, 11 };
		uint32_t usage = usages[rn(r, 5)];
		unsigned int i, n = 1 + (chance(r, 30) ? rn(r, 4) : 0);

		*fdi = pick_fd(w, r, 1);
		m->token = w->fds[*fdi].token;
		m->in.num_surfaces = n;
		m->in.direction = rn(r, 4);
		for (i = 0; i < n; i++) {
			struct surf *sf = pick_surf(w, r, *fdi);

			if (!sf)
				break;
			m->in.surfaces[i].handle = sf->handle;
			m->in.surfaces[i].usage = usage;
			if (chance(r, 20) && sf->size > 16384) {
				m->in.surfaces[i].offset = 16384ull * rn(r, (uint32_t)(sf->size / 16384));
				m->in.surfaces[i].size = chance(r, 50) ? 0 : 16384;
			}
		}
		return 1;
	}
	case S_UNMAP: {
		struct drm_ane_memory_unmap *u = a;
		int i, n = 0, cand[NIOVA];

		for (i = 0; i < NIOVA; i++)
			if (w->io[i].used && live_fd(w, w->io[i].fdi) &&
			    w->fds[w->io[i].fdi].gen == w->io[i].gen)
				cand[n++] = i;
		if (n) {
			i = cand[rn(r, n)];
			u->in.iova = w->io[i].iova;
			*fdi = w->io[i].fdi;
		} else {
			u->in.iova = 0x4000ull * rn(r, 4096);
		}
		return 1;
	}
	case S_HINT: {
		struct drm_ane_session_hint *h = a;

		h->hint = rn(r, 8);
		h->value = interesting(r);
		return 1;
	}
	case S_SET_ACTIVE: {
		struct drm_ane_chaining_set_active *c = a;

		c->cache_handle = rn(r, 4);
		c->group = rn(r, 4);
		c->procedure = rn(r, 2);
		return 1;
	}
	default:
		return 1;
	}
}

/* Selector @s has user pointers in its input. */
static int sel_has_ptrs(int s)
{
	return s == S_CREATE || s == S_INSTANCE || s == S_OSE || s == S_LOAD_FW;
}

static void after_sel(struct worker *w, struct rng *r, int s, int fdi, void *a)
{
	switch (s) {
	case S_CTL_OPEN: case S_DP_OPEN: {
		struct drm_ane_device_open *o = a;

		w->fds[fdi].kind = s == S_DP_OPEN;
		w->fds[fdi].open = 1;
		w->fds[fdi].token = o->out.token;
		if (o->out.reserved0[0] | o->out.reserved0[1] | o->out.reserved0[2] |
		    o->out.reserved0[3] | o->out.reserved0[4] | o->out.reserved1)
			fail(w, FAIL_ERRNO, "DeviceOpen returned nonzero reserved output");
		break;
	}
	case S_CTL_CLOSE: case S_DP_CLOSE:
		w->fds[fdi].open = 2;
		break;
	case S_CTL_SEND: case S_DP_SEND: {
		struct drm_ane_send_request *q = a;
		int i;

		if (q->out.reserved0 || q->out.reserved1)
			fail(w, FAIL_ERRNO, "SendRequest returned nonzero reserved output");
		for (i = 0; i < NPROG; i++)
			if (prog_live(w, &w->p[i]) && w->p[i].token == q->in.token)
				w->p[i].seq++;
		break;
	}
	case S_CREATE: case S_INSTANCE: {
		int i, slot = -1;

		for (i = 0; i < NPROG && slot < 0; i++)
			if (!prog_live(w, &w->p[i]))
				slot = i;
		if (slot < 0)
			slot = rn(r, NPROG);	/* forgotten: the file reclaims it */
		w->p[slot] = (struct prog){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
					    .token = w->tokout, .inst = s == S_INSTANCE };
		if (s == S_INSTANCE) {
			struct drm_ane_program_create_instance *c = a;

			for (i = 0; i < NPROG; i++)
				if (prog_live(w, &w->p[i]) && w->p[i].token == c->program &&
				    i != slot) {
					w->p[slot].img = w->p[i].img;
					w->p[slot].prepared = w->p[i].prepared;
				}
		} else {
			w->p[slot].img = w->cur_img;
		}
		break;
	}
	case S_PREPARE: case S_UNPREPARE: case S_DESTROY: {
		uint64_t tok = *(uint64_t *)a;
		int i;

		for (i = 0; i < NPROG; i++) {
			if (!prog_live(w, &w->p[i]) || w->p[i].token != tok)
				continue;
			if (s == S_DESTROY)
				w->p[i].used = 0;
			else
				w->p[i].prepared = s == S_PREPARE;
		}
		if (s == S_PREPARE) {
			struct drm_ane_program_prepare *p = a;

			if (p->out.reserved[0] | p->out.reserved[1] | p->out.reserved[2] |
			    p->out.reserved[3] | p->out.reserved[4])
				fail(w, FAIL_ERRNO, "ProgramPrepare returned nonzero reserved output");
		}
		break;
	}
	case S_MAP: {
		struct drm_ane_memory_map *m = a;
		int k = rn(r, NIOVA);

		w->io[k] = (struct iova_ent){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
					      .iova = m->iova, .len = 16384 };
		break;
	}
	case S_UNMAP: {
		struct drm_ane_memory_unmap *u = a;
		int i;

		for (i = 0; i < NIOVA; i++)
			if (w->io[i].used && w->io[i].fdi == fdi && w->io[i].iova == u->in.iova)
				w->io[i].used = 0;
		break;
	}
	default:
		break;
	}
}

int op_selector(struct worker *w, struct rng *r, int s)
{
	const struct seldesc *d = &sels[s];
	size_t size = _IOC_SIZE(d->cmd);
	unsigned long cmd = d->cmd;
	int mode = pick_mode(r), fdi, ok, e;
	void *a = w->scratch, *arg;

	fdi = pick_fd(w, r, chance(r, 90) ? d->space : -1);
	memset(a, 0, size);
	ok = gen_sel(w, r, s, &fdi, a);
	if (!live_fd(w, fdi))
		return 0;
	switch (mode) {
	case M_CORRUPT: {
		size_t in = size;

		/* only the inputs: outputs are the kernel's to fill */
		if (s == S_CTL_OPEN || s == S_DP_OPEN)
			in = 104;
		else if (s == S_CTL_SEND || s == S_DP_SEND)
			in = 8 + 2376;
		else if (s == S_PREPARE)
			in = 56;
		else if (s == S_CHAIN_PREP || s == S_HINT)
			in = 16;
		else if (s == S_MAP)
			in = 8 + 2080;
		if (s == S_CTL_SEND || s == S_DP_SEND)	/* keep to the used part */
			in = 8 + 32 + 8 * 8;
		memcpy(w->scratch + SCRATCH / 4, a, in);
		corrupt(r, a, in);
		if (chance(r, 30))
			corrupt(r, a, in);
		if (sel_has_ptrs(s)) {
			size_t offs[4];

			guard_ptrs(a, w->scratch + SCRATCH / 4, offs, sel_ptr_offs(s, offs));
			ok = 0;
		}
		break;
	}
	case M_ZERO:
		memset(a, 0, size);
		ok = !sel_has_ptrs(s);
		break;
	case M_RANDOM:
		fill_random(r, a, size);
		ok = !sel_has_ptrs(s);
		break;
	default:
		break;
	}
	arg = a;
	if (mode == M_BADPTR && size) {
		arg = bad_ptr(w, r, size);
		ok = 0;
	}
	note(w, "%s on fd slot %d (%s) mode %s", d->name, fdi,
	     w->fds[fdi].open == 1 ? (w->fds[fdi].kind ? "dp" : "ctl") : "not open",
	     mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, cmd, arg, ok, d->name);
	if (!e && arg == a)
		after_sel(w, r, s, fdi, a);
	return e;
}

/* A selector's number with another size or direction: always -EINVAL. */
int op_wrong_size(struct worker *w, struct rng *r)
{
	int s = rn(r, 26), fdi = pick_fd(w, r, sels[s].space), e;
	unsigned long cmd = sels[s].cmd;
	unsigned int size = _IOC_SIZE(cmd), dir = _IOC_DIR(cmd);

	do {
		if (chance(r, 50))
			size = chance(r, 50) ? size + 1 + rn(r, 64) :
					       (size ? rn(r, size) : 8);
		else
			dir = rn(r, 4);
	} while (size == _IOC_SIZE(cmd) && dir == _IOC_DIR(cmd));
	if (size >= (1u << _IOC_SIZEBITS))
		size = (1u << _IOC_SIZEBITS) - 1;
	if (size == _IOC_SIZE(cmd) && dir == _IOC_DIR(cmd))
		return 0;
	cmd = _IOC(dir, DRM_IOCTL_BASE, _IOC_NR(cmd), size);
	memset(w->scratch, 0, size);
	note(w, "%s re-encoded as 0x%08lx", sels[s].name, cmd);
	if (!live_fd(w, fdi))
		return 0;
	e = xioctl(w, w->fds[fdi].fd, cmd, w->scratch, 1, sels[s].name);
	if (e != EINVAL)
		fail(w, FAIL_ERRNO, "%s with size %u dir %u (cmd 0x%08lx) returned %s, not EINVAL",
		     sels[s].name, size, dir, cmd, errname(e));
	return e;
}
