// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: the driver's own ioctls, every DRM core ioctl and raw 'd'
 * numbers.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "fuzz.h"

static const int drm_syncobj_ios[] = {
	G_SO_CREATE, G_SO_DESTROY, G_SO_TO_FD, G_SO_TO_HANDLE, G_SO_WAIT,
	G_SO_ARRAY, G_SO_TWAIT, G_SO_TARRAY, G_SO_TRANSFER, G_SO_EVENTFD,
};

static const int drm_prime_ios[] = {
	G_PRIME_TO_FD, G_PRIME_TO_HANDLE, G_GEM_CLOSE, G_FLINK, G_GEM_OPEN,
};

/* ------------------------------------------------------------ driver ioctls */

int op_surface_create(struct worker *w, struct rng *r)
{
	struct drm_ane_surface_create *c = (void *)w->scratch;
	int fdi = pick_fd(w, r, chance(r, 70) ? 0 : 1), mode = pick_mode(r), e;
	uint64_t size;

	if (!live_fd(w, fdi))
		return 0;
	switch (rn(r, 20)) {
	case 0:
		size = rn(r, 1u << 22) + 1;
		break;
	case 1:
		size = interesting(r);
		break;
	default:
		size = 16384ull * (1 + rn(r, 16));
		break;
	}
	if (size < (1ull << 30) && surf_bytes(w) + size > SURF_BUDGET)
		size = 16384;
	if (chance(r, 2) && !w->in_child)	/* near the 1 GiB ceiling */
		size = (1ull << 30) - 16384ull * rn(r, 4);
	memset(c, 0, sizeof(*c));
	c->size = size;
	if (mode == M_CORRUPT)
		corrupt(r, c, sizeof(*c));
	else if (mode == M_RANDOM)
		fill_random(r, c, sizeof(*c));
	note(w, "SurfaceCreate size %" PRIu64 " mode %s", (uint64_t)c->size, mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_SURFACE_CREATE,
		   mode == M_BADPTR ? bad_ptr(w, r, 32) : (void *)c,
		   mode != M_BADPTR, "ANE_SURFACE_CREATE");
	if (!e && mode != M_BADPTR) {
		if (c->reserved)
			fail(w, FAIL_ERRNO, "SURFACE_CREATE returned nonzero reserved output");
		surf_add(w, r, fdi, c->handle, (c->size + 16383) & ~16383ull, c->offset);
		/* a huge one goes again at once: keep the VM's memory */
		if (c->size > SURF_BUDGET) {
			gem_close(w, fdi, c->handle);
			w->last_err = 0;
		}
	}
	return e;
}

int op_dma(struct worker *w, struct rng *r)
{
	struct drm_ane_dma d = { 0 };
	int i, n = 0, cand[NIOVA], fdi, mode = pick_mode(r), ok = 1, e;

	for (i = 0; i < NIOVA; i++)
		if (w->io[i].used && live_fd(w, w->io[i].fdi) &&
		    w->fds[w->io[i].fdi].gen == w->io[i].gen)
			cand[n++] = i;
	if (n && chance(r, 80)) {
		i = cand[rn(r, n)];
		fdi = w->io[i].fdi;
		d.iova = w->io[i].iova + rn(r, (uint32_t)w->io[i].len);
	} else {
		fdi = pick_fd(w, r, 1);
		d.iova = chance(r, 50) ? 0x4000ull * rn(r, 1 << 16) : interesting(r);
	}
	if (!live_fd(w, fdi))
		return 0;
	d.size = 1 + rn(r, chance(r, 80) ? 16384 : SCRATCH - 1);
	d.data = (uintptr_t)w->scratch;
	d.flags = rn(r, 2) ? ANE_DMA_WRITE : 0;
	if (mode == M_CORRUPT) {
		corrupt(r, &d, sizeof(d));
		ok = d.data == (uintptr_t)w->scratch && d.size <= SCRATCH;
	} else if (mode == M_BADPTR) {
		d.data = (uintptr_t)bad_ptr(w, r, d.size);
		ok = 0;
	} else if (mode == M_RANDOM) {
		fill_random(r, &d, sizeof(d));
		ok = 0;
	}
	note(w, "ANE_DMA iova 0x%" PRIx64 " size %" PRIu64 " flags %u mode %s",
	     (uint64_t)d.iova, (uint64_t)d.size, d.flags, mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_DMA, &d, ok, "ANE_DMA");
	return e;
}

int op_get_fault(struct worker *w, struct rng *r)
{
	struct drm_ane_get_fault f = { 0 };
	int fdi = pick_fd(w, r, -1), mode = pick_mode(r), e;

	if (!live_fd(w, fdi))
		return 0;
	if (mode == M_CORRUPT || mode == M_RANDOM)
		f.flags = (uint32_t)interesting(r);
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_GET_FAULT,
		   mode == M_BADPTR ? bad_ptr(w, r, sizeof(f)) : (void *)&f,
		   mode != M_BADPTR, "ANE_GET_FAULT");
	if (!e && mode != M_BADPTR && f.fault.reserved)
		fail(w, FAIL_ERRNO, "GET_FAULT returned nonzero reserved output");
	return e;
}

/*
 * The methods of Table 27.5: power holds taken and dropped, the power
 * policy changed under the other workers (as root), the shared event
 * activated, rung and deactivated, unknown numbers.
 */
int op_method(struct worker *w, struct rng *r)
{
	static const uint32_t methods[] = {
		0, ANE_METHOD_POWER_ON, ANE_METHOD_POWER_OFF,
		ANE_METHOD_IS_POWERED, ANE_METHOD_ADD_PERSISTENT_CLIENT,
		ANE_METHOD_REMOVE_PERSISTENT_CLIENT,
		ANE_METHOD_SET_POWER_MANAGEMENT,
		ANE_METHOD_SET_DYNAMIC_POWER_GATING,
		ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME,
		ANE_METHOD_LOAD_FIRMWARE, ANE_METHOD_EXCLAVE_EVALUATE,
		ANE_METHOD_SET_THROTTLING_PERCENTAGE,
		ANE_METHOD_SET_DART_CACHE_TTL,
		ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS,
		ANE_METHOD_UNMAP_DART_BUFFERS, ANE_METHOD_READ_ANE_REGISTER,
		ANE_METHOD_WRITE_ANE_REGISTER, ANE_METHOD_FORGET_FIRMWARE,
		ANE_METHOD_SHARED_EVENT_ACTIVATE,
		ANE_METHOD_SHARED_EVENT_DEACTIVATE,
		ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING,
	};
	struct drm_ane_method_args a = { 0 };
	int fdi = pick_fd(w, r, -1), mode = pick_mode(r), e;

	if (!live_fd(w, fdi))
		return 0;
	a.method = methods[rnd(r) % (sizeof(methods) / sizeof(methods[0]))];
	/* short hysteresis times, so the engine powers down under the others */
	a.value = a.method == ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME ?
		  rnd(r) % 50 : rnd(r) % 4 == 0;
	/* the engine's speed, a DART cache time, a client, a register */
	if (a.method == ANE_METHOD_SET_THROTTLING_PERCENTAGE)
		a.value = 1 + rn(r, 100);
	else if (a.method == ANE_METHOD_SET_DART_CACHE_TTL)
		a.value = rn(r, 100);
	else if (a.method == ANE_METHOD_UNMAP_DART_BUFFERS)
		a.value = rn(r, 8);
	else if (a.method == ANE_METHOD_READ_ANE_REGISTER)
		a.value = (uint64_t)rn(r, 6) << 56 | (uint64_t)(rn(r, 64) * 4) << 32;
	else if (a.method == ANE_METHOD_WRITE_ANE_REGISTER)
		a.value = (uint64_t)(3 + rn(r, 3)) << 56 |
			  (uint64_t)(rn(r, 64) * 4) << 32 | rn(r, 1000);
	/* the shared event: its id, and its ring, which releases waiters */
	if (a.method == ANE_METHOD_SHARED_EVENT_DEACTIVATE)
		a.value = ANE_SHARED_EVENT_ID;
	else if (a.method == ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING)
		a.value = ANE_DOORBELL_SHARED_EVENT(ANE_SHARED_EVENT_ID);
	else if (a.method == ANE_METHOD_SHARED_EVENT_ACTIVATE)
		a.value = 0;
	if (mode == M_CORRUPT || mode == M_RANDOM) {
		a.method = (uint32_t)interesting(r);
		a.value = interesting(r);
		a.flags = (uint32_t)interesting(r);
		a.reserved[rnd(r) % 2] = interesting(r);
	}
	note(w, "ANE_METHOD %u value %" PRIu64 " mode %s", a.method,
	     (uint64_t)a.value, mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_METHOD,
		   mode == M_BADPTR ? bad_ptr(w, r, sizeof(a)) : (void *)&a,
		   mode != M_BADPTR, "ANE_METHOD");
	if (!e && mode != M_BADPTR && a.method == ANE_METHOD_IS_POWERED &&
	    a.result > 1)
		fail(w, FAIL_ERRNO, "IsPowered answered %" PRIu64, (uint64_t)a.result);
	return e;
}

/*
 * The program hand-off: a prepared program of a control file exported,
 * the descriptor attached in a direct-path file (the attached token goes
 * into the pool, so the direct path's selectors run it), kept among the
 * other descriptors or closed at once; or an attached program detached.
 */
int op_prog_share(struct worker *w, struct rng *r)
{
	struct drm_ane_program_export x = { 0 };
	struct drm_ane_program_attach a = { 0 };
	int mode = pick_mode(r), dfdi, e, i, slot = -1, efd;
	struct prog *p = pick_prog(w, r, 1);

	if (!p)
		return 0;
	if (p->attached) {
		a.flags = ANE_ATTACH_DETACH;
		a.token = p->token;
		if (mode == M_CORRUPT || mode == M_RANDOM)
			corrupt(r, &a, sizeof(a));
		note(w, "PROGRAM_ATTACH detach 0x%" PRIx64 " mode %s",
		     (uint64_t)a.token, mode_names[mode]);
		e = xioctl(w, w->fds[p->fdi].fd, DRM_IOCTL_ANE_PROGRAM_ATTACH,
			   mode == M_BADPTR ? bad_ptr(w, r, sizeof(a)) : (void *)&a,
			   mode != M_BADPTR, "ANE_PROGRAM_ATTACH");
		if (!e && a.flags == ANE_ATTACH_DETACH)
			p->used = 0;
		return e;
	}
	x.token = p->token;
	if (mode == M_CORRUPT || mode == M_RANDOM)
		corrupt(r, &x, sizeof(x));
	note(w, "PROGRAM_EXPORT 0x%" PRIx64 " mode %s", (uint64_t)x.token,
	     mode_names[mode]);
	e = xioctl(w, w->fds[p->fdi].fd, DRM_IOCTL_ANE_PROGRAM_EXPORT,
		   mode == M_BADPTR ? bad_ptr(w, r, sizeof(x)) : (void *)&x,
		   mode != M_BADPTR, "ANE_PROGRAM_EXPORT");
	if (e || mode == M_BADPTR)
		return e;
	efd = x.fd;
	/* an old export, or another kind of descriptor, now and then */
	a.fd = chance(r, 85) ? efd : pick_xfd(w, r);
	dfdi = pick_fd(w, r, 1);
	if (live_fd(w, dfdi)) {
		note(w, "PROGRAM_ATTACH fd %d of 0x%" PRIx64, a.fd, (uint64_t)x.token);
		if (!xioctl(w, w->fds[dfdi].fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &a, 1,
			    "ANE_PROGRAM_ATTACH") && a.fd == efd) {
			for (i = 0; i < NPROG && slot < 0; i++)
				if (!prog_live(w, &w->p[i]))
					slot = i;
			if (slot < 0)
				slot = rn(r, NPROG);
			w->p[slot] = (struct prog){ .used = 1, .fdi = dfdi,
						    .gen = w->fds[dfdi].gen,
						    .token = a.token, .img = p->img,
						    .prepared = 1, .attached = 1 };
		}
	}
	if (chance(r, 40))
		xfd_add(w, r, efd);
	else
		close(efd);
	return 0;
}

/* CAPS_DROP: mostly a query, now and then a bit gone for good. */
int op_caps_drop(struct worker *w, struct rng *r)
{
	struct drm_ane_caps_drop c = { 0 };
	int fdi = pick_fd(w, r, -1), mode = pick_mode(r);

	if (!live_fd(w, fdi))
		return 0;
	if (chance(r, 20))
		c.drop = 1u << rn(r, 8);
	if (mode == M_CORRUPT || mode == M_RANDOM)
		corrupt(r, &c, sizeof(c));
	note(w, "ANE_CAPS_DROP 0x%x mode %s", c.drop, mode_names[mode]);
	return xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_CAPS_DROP,
		      mode == M_BADPTR ? bad_ptr(w, r, sizeof(c)) : (void *)&c,
		      mode != M_BADPTR, "ANE_CAPS_DROP");
}

/*
 * METHOD_BUF: the diagnostics (clients, shared memory, model memory) into
 * buffers of every size, and now and then a raw firmware command.
 */
int op_method_buf(struct worker *w, struct rng *r)
{
	static const uint32_t methods[] = {
		ANE_METHOD_GET_CLIENTS_INFO,
		ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS,
		ANE_METHOD_SHOW_MODEL_MEMORY_STATUS, ANE_METHOD_SEND_COMMAND,
		ANE_METHOD_POWER_ON,
	};
	struct drm_ane_method_buf b = { 0 };
	int fdi = pick_fd(w, r, -1), mode = pick_mode(r), ok = 1;
	uint32_t *cmd = (uint32_t *)w->scratch;

	if (!live_fd(w, fdi))
		return 0;
	b.method = methods[chance(r, 90) ? rn(r, 3) : 3 + rn(r, 2)];
	b.ptr = (uintptr_t)w->scratch;
	b.size = chance(r, 20) ? 0 : chance(r, 70) ? rn(r, 1024) : rn(r, SCRATCH);
	if (b.method == ANE_METHOD_SEND_COMMAND) {
		/* a header (24 bytes) and a body its size names, mostly */
		b.size = 24 + rn(r, 256);
		fill_random(r, cmd, b.size);
		cmd[0] = rn(r, 64);
		cmd[1] = chance(r, 80) ? b.size - 24 : rnd(r);
		cmd[2] = rn(r, 8);
	}
	if (mode == M_CORRUPT || mode == M_RANDOM) {
		corrupt(r, &b, sizeof(b));
		ok = b.ptr == (uintptr_t)w->scratch && b.size <= SCRATCH;
	} else if (mode == M_BADPTR) {
		b.ptr = (uintptr_t)bad_ptr(w, r, b.size);
		ok = 0;
	}
	note(w, "ANE_METHOD_BUF %u size %u mode %s", b.method, b.size,
	     mode_names[mode]);
	return xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_METHOD_BUF, &b, ok,
		      "ANE_METHOD_BUF");
}

/* ------------------------------------------------------------ DRM core */

static int gen_drm(struct worker *w, struct rng *r, int gen, int fdi, void *a)
{
	uint8_t *extra = w->scratch + SCRATCH / 2;
	uint32_t *hs = (uint32_t *)extra;
	struct sobj *so;
	struct surf *sf;
	unsigned int i, n;

	switch (gen) {
	case G_VERSION: {
		struct drm_version *v = a;

		v->name_len = rn(r, 64);
		v->name = (char *)extra;
		v->date_len = rn(r, 64);
		v->date = (char *)extra + 64;
		v->desc_len = rn(r, 256);
		v->desc = (char *)extra + 128;
		return 1;
	}
	case G_UNIQUE: {
		struct drm_unique *u = a;

		u->unique_len = rn(r, 256);
		u->unique = (char *)extra;
		return 1;
	}
	case G_GEM_CLOSE: case G_FLINK: case G_PRIME_TO_FD: {
		sf = pick_surf(w, r, fdi);
		if (gen == G_PRIME_TO_FD) {
			struct drm_prime_handle *p = a;

			p->handle = sf ? sf->handle : rn(r, 64);
			p->flags = chance(r, 80) ? DRM_CLOEXEC | (chance(r, 50) ? DRM_RDWR : 0) :
						   (uint32_t)interesting(r);
		} else {
			*(uint32_t *)a = sf ? sf->handle : rn(r, 64);
		}
		return 1;
	}
	case G_GEM_OPEN:
		*(uint32_t *)a = rn(r, 16);
		return 1;
	case G_GET_CAP:
		((struct drm_get_cap *)a)->capability = rn(r, 0x20);
		return 1;
	case G_SET_CAP: {
		struct drm_set_client_cap *c = a;

		c->capability = rn(r, 8);
		c->value = rn(r, 3);
		return 1;
	}
	case G_PRIME_TO_HANDLE: {
		struct drm_prime_handle *p = a;

		p->fd = pick_xfd(w, r);
		return 1;
	}
	case G_SO_CREATE:
		((struct drm_syncobj_create *)a)->flags = chance(r, 50) ?
			DRM_SYNCOBJ_CREATE_SIGNALED : 0;
		return 1;
	case G_SO_DESTROY:
		so = pick_sobj(w, r, fdi);
		((struct drm_syncobj_destroy *)a)->handle = so ? so->h : 1;
		return 1;
	case G_SO_TO_FD: {
		struct drm_syncobj_handle *h = a;

		so = pick_sobj(w, r, fdi);
		h->handle = so ? so->h : 1;
		h->flags = chance(r, 50) ? DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0;
		return 1;
	}
	case G_SO_TO_HANDLE: {
		struct drm_syncobj_handle *h = a;

		h->fd = pick_xfd(w, r);
		if (chance(r, 40)) {
			so = pick_sobj(w, r, fdi);
			h->handle = so ? so->h : 0;
			h->flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
		}
		return 1;
	}
	case G_SO_WAIT: case G_SO_TWAIT: case G_SO_ARRAY: case G_SO_TARRAY: {
		uint64_t *pts = (uint64_t *)(extra + 1024);

		n = 1 + rn(r, 4);
		for (i = 0; i < n; i++) {
			so = pick_sobj(w, r, fdi);
			hs[i] = so ? so->h : rn(r, 8);
			pts[i] = rn(r, 4);
		}
		if (gen == G_SO_WAIT) {
			struct drm_syncobj_wait *wt = a;

			wt->handles = (uintptr_t)hs;
			wt->count_handles = n;
			wt->flags = rn(r, 8);
		} else if (gen == G_SO_TWAIT) {
			struct drm_syncobj_timeline_wait *wt = a;

			wt->handles = (uintptr_t)hs;
			wt->points = (uintptr_t)pts;
			wt->count_handles = n;
			wt->flags = rn(r, 8);
		} else if (gen == G_SO_ARRAY) {
			struct drm_syncobj_array *ar = a;

			ar->handles = (uintptr_t)hs;
			ar->count_handles = n;
		} else {
			struct drm_syncobj_timeline_array *ar = a;

			ar->handles = (uintptr_t)hs;
			ar->points = (uintptr_t)pts;
			ar->count_handles = n;
			ar->flags = chance(r, 20) ? DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED : 0;
		}
		return 1;
	}
	case G_SO_TRANSFER: {
		struct drm_syncobj_transfer *t = a;

		so = pick_sobj(w, r, fdi);
		t->src_handle = so ? so->h : 1;
		so = pick_sobj(w, r, fdi);
		t->dst_handle = so ? so->h : 1;
		t->src_point = rn(r, 3);
		t->dst_point = rn(r, 3);
		return 1;
	}
#ifdef DRM_IOCTL_SYNCOBJ_EVENTFD
	case G_SO_EVENTFD: {
		struct drm_syncobj_eventfd *e = a;
		int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

		xfd_add(w, r, efd);
		so = pick_sobj(w, r, fdi);
		e->handle = so ? so->h : 1;
		e->fd = efd;
		e->point = rn(r, 3);
		e->flags = rn(r, 2);
		return 1;
	}
#endif
	case G_DUMB: {
		struct drm_mode_create_dumb *d = a;

		d->height = 16;
		d->width = 16;
		d->bpp = 32;
		return 1;
	}
	default:
		return 1;
	}
}

/* The offsets of the user pointers of a DRM struct; their count. */
static int drm_ptr_offs(int gen, size_t *offs)
{
	switch (gen) {
	case G_VERSION:
		offs[0] = offsetof(struct drm_version, name);
		offs[1] = offsetof(struct drm_version, date);
		offs[2] = offsetof(struct drm_version, desc);
		return 3;
	case G_UNIQUE:
		offs[0] = offsetof(struct drm_unique, unique);
		return 1;
	case G_SO_WAIT:
		offs[0] = offsetof(struct drm_syncobj_wait, handles);
		return 1;
	case G_SO_TWAIT:
		offs[0] = offsetof(struct drm_syncobj_timeline_wait, handles);
		offs[1] = offsetof(struct drm_syncobj_timeline_wait, points);
		return 2;
	case G_SO_ARRAY:
		offs[0] = offsetof(struct drm_syncobj_array, handles);
		return 1;
	case G_SO_TARRAY:
		offs[0] = offsetof(struct drm_syncobj_timeline_array, handles);
		offs[1] = offsetof(struct drm_syncobj_timeline_array, points);
		return 2;
	default:
		return 0;
	}
}

/* Waits must end: their deadline is always near, whatever the rest. */
static void clamp_wait(unsigned long cmd, void *a, size_t size)
{
	int64_t t = (int64_t)(now_ns() + 20000000ull);

	if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT) &&
	    size >= offsetof(struct drm_syncobj_wait, timeout_nsec) + 8)
		((struct drm_syncobj_wait *)a)->timeout_nsec = t;
	if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT) &&
	    size >= offsetof(struct drm_syncobj_timeline_wait, timeout_nsec) + 8)
		((struct drm_syncobj_timeline_wait *)a)->timeout_nsec = t;
}

static void after_drm(struct worker *w, struct rng *r, int gen, int fdi, void *a)
{
	int i;

	switch (gen) {
	case G_PRIME_TO_FD:
		xfd_add(w, r, ((struct drm_prime_handle *)a)->fd);
		break;
	case G_PRIME_TO_HANDLE:
		surf_add(w, r, fdi, ((struct drm_prime_handle *)a)->handle, 16384, 0);
		break;
	case G_SO_CREATE: {
		int k = rn(r, NSYNC);

		w->so[k] = (struct sobj){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
					  .h = ((struct drm_syncobj_create *)a)->handle };
		break;
	}
	case G_SO_TO_FD: {
		struct drm_syncobj_handle *h = a;

		xfd_add(w, r, h->fd);
		break;
	}
	case G_GEM_CLOSE:
		for (i = 0; i < NSURF; i++)
			if (surf_live(w, &w->s[i]) && w->s[i].fdi == fdi &&
			    w->s[i].handle == *(uint32_t *)a)
				w->s[i].used = 0;
		break;
	case G_SO_DESTROY:
		for (i = 0; i < NSYNC; i++)
			if (w->so[i].used && w->so[i].fdi == fdi &&
			    w->so[i].h == *(uint32_t *)a)
				w->so[i].used = 0;
		break;
	default:
		break;
	}
}

int op_drm(struct worker *w, struct rng *r, int subset)
{
	const struct drmio *d;
	int fdi = pick_fd(w, r, chance(r, 80) ? 0 : -1), mode = pick_mode(r), ok, e;
	size_t size;
	void *a = w->scratch, *arg;
	unsigned int idx = rn(r, N_DRM_IOS);

	if (subset) {
		const int *set = subset == 1 ? drm_syncobj_ios : drm_prime_ios;
		unsigned int n = subset == 1 ? sizeof(drm_syncobj_ios) / sizeof(int) :
					       sizeof(drm_prime_ios) / sizeof(int);
		int g = set[rn(r, n)];

		for (idx = 0; idx < N_DRM_IOS; idx++)
			if (drm_ios[idx].gen == g)
				break;
		if (idx == N_DRM_IOS)
			return 0;
	}
	d = &drm_ios[idx];
	if (excluded_drm[idx])
		return 0;
	size = _IOC_SIZE(d->cmd);
	if (!live_fd(w, fdi))
		return 0;
	memset(a, 0, size);
	ok = gen_drm(w, r, d->gen, fdi, a);
	if (mode == M_ZERO)
		memset(a, 0, size);
	else if (mode == M_CORRUPT) {
		size_t offs[4];
		int n = drm_ptr_offs(d->gen, offs);

		memcpy(w->scratch + SCRATCH / 4, a, size);
		corrupt(r, a, size);
		guard_ptrs(a, w->scratch + SCRATCH / 4, offs, n);
		ok = 0;
	} else if (mode == M_RANDOM) {
		fill_random(r, a, size);
		ok = 0;
	}
	clamp_wait(d->cmd, a, size);
	arg = mode == M_BADPTR && size ? bad_ptr(w, r, size) : a;
	if (arg != a)
		ok = 0;
	note(w, "DRM_IOCTL_%s on fd slot %d mode %s", d->name, fdi, mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, d->cmd, arg, ok, d->name);
	if (!e && arg == a && (mode == M_VALID || mode == M_ZERO))
		after_drm(w, r, d->gen, fdi, a);
	else if (!e && (d->gen == G_PRIME_TO_FD || d->gen == G_SO_TO_FD) && arg == a)
		xfd_add(w, r, ((int *)a)[2]);	/* both structs: the fd is word 2 */
	return e;
}

/* Any 'd' number with any direction and size. */
int op_raw(struct worker *w, struct rng *r)
{
	unsigned int nr, dir, size, i;
	unsigned long cmd;
	int fdi = pick_fd(w, r, -1), e, known;
	void *arg = w->scratch;

	switch (rn(r, 4)) {
	case 0:
		nr = rn(r, 0x40);
		break;
	case 1:
		nr = 0xa0 + rn(r, 0x40);
		break;
	case 2:
		nr = DRM_COMMAND_BASE + rn(r, 0x60);
		break;
	default:
		nr = rn(r, 0x100);
		break;
	}
	dir = rn(r, 4);
	size = chance(r, 70) ? rn(r, 257) : rn(r, 1u << _IOC_SIZEBITS);
	known = chance(r, 40);
	for (i = 0; i < N_DRM_IOS; i++) {
		if (_IOC_NR(drm_ios[i].cmd) != nr)
			continue;
		if (excluded_drm[i])
			return 0;
		if (known) {	/* the size and direction the ioctl has */
			size = _IOC_SIZE(drm_ios[i].cmd);
			dir = _IOC_DIR(drm_ios[i].cmd);
		}
	}
	if (size > SCRATCH)
		size = SCRATCH;
	cmd = _IOC(dir, DRM_IOCTL_BASE, nr, size);
	if (chance(r, 50))
		memset(w->scratch, 0, size);
	else
		fill_random(r, w->scratch, size);
	clamp_wait(cmd, w->scratch, size);
	if (chance(r, 10))
		arg = bad_ptr(w, r, size);
	if (!live_fd(w, fdi))
		return 0;
	note(w, "raw ioctl 0x%08lx (nr 0x%02x dir %u size %u) on fd slot %d", cmd, nr,
	     dir, size, fdi);
	e = xioctl(w, w->fds[fdi].fd, cmd, arg, 0, "raw");
	return e;
}
