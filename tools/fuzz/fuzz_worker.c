// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: a worker's pools of what the kernel handed out (files,
 * sessions, surfaces, program tokens, syncobjs, dma-bufs) and the checked
 * ioctl every operation goes through.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "fuzz.h"

/* ------------------------------------------------------------ a worker */

/* Fds handed between the threads of a process. */
pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;

int share_fd[NSHARE] = { -1, -1, -1, -1, -1, -1, -1, -1 };

__thread struct wslot *my_slot;

int forked_child;	/* this process is a worker's fork child */

void note(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->note, sizeof(w->note), fmt, ap);
	va_end(ap);
	if (!w->in_child)
		memcpy(w->slot->note, w->note, sizeof(w->note));
}

void fail(struct worker *w, int kind, const char *fmt, ...)
{
	va_list ap;

	if (w->slot->fail)
		return;
	va_start(ap, fmt);
	vsnprintf(w->slot->fail_msg, sizeof(w->slot->fail_msg), fmt, ap);
	va_end(ap);
	w->slot->fail = kind;
	shm->failed = 1;
	shm->stop = 1;
}

void count_err(struct worker *w, int e)
{
	if (e < 0)
		e = -e;
	if (e >= ERRNO_MAX)
		e = ERRNO_MAX - 1;
	__atomic_add_fetch(&w->slot->errs[e], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&w->slot->calls, 1, __ATOMIC_RELAXED);
}

/*
 * One ioctl.  @ptrs_ok says every pointer the kernel follows is valid, so
 * that -EFAULT is a kernel bug.  Returns 0 or a positive errno.
 */
int xioctl(struct worker *w, int fd, unsigned long cmd, void *arg,
		  int ptrs_ok, const char *what)
{
	int e = ioctl(fd, cmd, arg) < 0 ? errno : 0;

	count_err(w, e);
	w->last_err = e;
	if (e >= 512)
		fail(w, FAIL_ERRNO, "%s (cmd 0x%08lx) returned kernel-internal errno %d",
		     what, cmd, e);
	else if (e == EFAULT && ptrs_ok)
		fail(w, FAIL_ERRNO, "%s (cmd 0x%08lx) returned EFAULT with valid pointers",
		     what, cmd);
	return e;
}

int live_fd(struct worker *w, int fdi)
{
	return fdi >= 0 && fdi < NFD && w->fds[fdi].fd >= 0;
}

void slot_close(struct worker *w, int fdi)
{
	if (w->fds[fdi].fd >= 0)
		close(w->fds[fdi].fd);
	w->fds[fdi].fd = -1;
	w->fds[fdi].kind = -1;
	w->fds[fdi].open = 0;
	w->fds[fdi].token = 0;
	w->fds[fdi].gen++;
}

int slot_open(struct worker *w, int fdi, struct rng *r)
{
	int flags = O_RDWR | O_CLOEXEC;
	int node = rn(r, opt.nnodes), fd;
	char path[64];

	if (chance(r, 30))
		flags |= O_NONBLOCK;
	if (chance(r, 3))
		flags = O_RDONLY | O_CLOEXEC;
	slot_close(w, fdi);
	node_path(node, path, sizeof(path));
	fd = open(path, flags);
	count_err(w, fd < 0 ? errno : 0);
	w->last_err = fd < 0 ? errno : 0;
	if (fd < 0)
		return -1;
	w->fds[fdi].fd = fd;
	w->fds[fdi].node = node;
	return 0;
}

int device_open(struct worker *w, int fdi, int space, struct rng *r, int valid)
{
	struct drm_ane_device_open o = { 0 }, *a = &o;
	int e;

	a->in.usage_type = valid || chance(r, 90) ? ANE_USAGE_STANDARD : (uint8_t)rn(r, 4);
	a->in.callback = 0x1111222233334444ull;
	a->in.receiver_context = rnd(r);
	a->in.timeout = 10000;
	e = xioctl(w, w->fds[fdi].fd, space ? DRM_IOCTL_ANE_DP_DEVICE_OPEN :
		   DRM_IOCTL_ANE_CTL_DEVICE_OPEN, a, 1, sels[space ? S_DP_OPEN : S_CTL_OPEN].name);
	if (!e) {
		w->fds[fdi].kind = space;
		w->fds[fdi].open = 1;
		w->fds[fdi].token = a->out.token;
		if (a->out.reserved0[0] | a->out.reserved0[1] | a->out.reserved0[2] |
		    a->out.reserved0[3] | a->out.reserved0[4] | a->out.reserved1)
			fail(w, FAIL_ERRNO, "DeviceOpen returned nonzero reserved output");
	}
	return e;
}

/* An fd slot, mostly an open client of @space (-1: any), made if needed. */
int pick_fd(struct worker *w, struct rng *r, int space)
{
	int i, fdi, cand[NFD], n = 0;

	if (chance(r, 12)) {
		fdi = rn(r, NFD);
		if (!live_fd(w, fdi))
			slot_open(w, fdi, r);
		return fdi;
	}
	for (i = 0; i < NFD; i++)
		if (live_fd(w, i) && w->fds[i].open == 1 &&
		    (space < 0 || w->fds[i].kind == space))
			cand[n++] = i;
	if (n && chance(r, 85))
		return cand[rn(r, n)];
	fdi = rn(r, NFD);
	if (slot_open(w, fdi, r))
		return fdi;
	device_open(w, fdi, space < 0 ? (int)rn(r, 2) : space, r, 1);
	return fdi;
}

int surf_live(struct worker *w, const struct surf *s)
{
	return s->used && live_fd(w, s->fdi) && w->fds[s->fdi].gen == s->gen;
}

uint64_t surf_bytes(struct worker *w)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < NSURF; i++)
		if (surf_live(w, &w->s[i]))
			t += w->s[i].size;
	return t;
}

void gem_close(struct worker *w, int fdi, uint32_t h)
{
	struct drm_gem_close c = { .handle = h };

	xioctl(w, w->fds[fdi].fd, DRM_IOCTL_GEM_CLOSE, &c, 1, "GEM_CLOSE");
}

static int surf_slot(struct worker *w, struct rng *r)
{
	int i, k;

	for (i = 0; i < NSURF; i++)
		if (!surf_live(w, &w->s[i]))
			return i;
	k = rn(r, NSURF);
	gem_close(w, w->s[k].fdi, w->s[k].handle);
	w->s[k].used = 0;
	return k;
}

void surf_add(struct worker *w, struct rng *r, int fdi, uint32_t h,
		     uint64_t size, uint64_t off)
{
	int k = surf_slot(w, r);

	w->s[k] = (struct surf){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
				 .handle = h, .size = size, .offset = off };
}

static int surface_create(struct worker *w, struct rng *r, int fdi, uint64_t size)
{
	struct drm_ane_surface_create c = { .size = size };
	int e;

	if (!live_fd(w, fdi))
		return EBADF;
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_SURFACE_CREATE, &c, 1,
		   "ANE_SURFACE_CREATE");
	if (!e) {
		if (c.reserved)
			fail(w, FAIL_ERRNO, "SURFACE_CREATE returned nonzero reserved output");
		surf_add(w, r, fdi, c.handle, (size + 16383) & ~16383ull, c.offset);
	}
	return e;
}

/* A live surface of @fdi (-1: any), made if needed; NULL if impossible. */
struct surf *pick_surf(struct worker *w, struct rng *r, int fdi)
{
	int i, n = 0, cand[NSURF];

	for (i = 0; i < NSURF; i++)
		if (surf_live(w, &w->s[i]) && (fdi < 0 || w->s[i].fdi == fdi))
			cand[n++] = i;
	if (n && chance(r, 85))
		return &w->s[cand[rn(r, n)]];
	if (fdi < 0)
		fdi = pick_fd(w, r, -1);
	if (surface_create(w, r, fdi, 16384ull << rn(r, 3)))
		return n ? &w->s[cand[rn(r, n)]] : NULL;
	/* the new one: the largest handle of the file */
	{
		struct surf *best = NULL;

		for (i = 0; i < NSURF; i++)
			if (surf_live(w, &w->s[i]) && w->s[i].fdi == fdi &&
			    (!best || w->s[i].handle > best->handle))
				best = &w->s[i];
		return best;
	}
}

int prog_live(struct worker *w, const struct prog *p)
{
	return p->used && live_fd(w, p->fdi) && w->fds[p->fdi].gen == p->gen;
}

static int program_create(struct worker *w, struct rng *r, int fdi, int k)
{
	struct drm_ane_program_create c = { 0 };
	int e, i, slot = -1;

	memcpy(w->imgbuf, imgs[k].data, imgs[k].size);
	c.image = (uintptr_t)w->imgbuf;
	c.image_size = imgs[k].size;
	c.token_ptr = (uintptr_t)&w->tokout;
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &c, 1,
		   "ctl.ProgramCreate");
	if (e)
		return e;
	for (i = 0; i < NPROG && slot < 0; i++)
		if (!prog_live(w, &w->p[i]))
			slot = i;
	if (slot < 0) {
		struct drm_ane_program_destroy d = { 0 };

		slot = rn(r, NPROG);
		d.token = w->p[slot].token;
		xioctl(w, w->fds[w->p[slot].fdi].fd, DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY,
		       &d, 1, "ctl.ProgramDestroy");
	}
	w->p[slot] = (struct prog){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
				    .token = w->tokout, .img = k };
	return 0;
}

int program_prepare(struct worker *w, struct prog *p, struct rng *r)
{
	struct drm_ane_program_prepare a = { 0 };
	int e;

	a.in.token = p->token;
	a.in.priority = 2 + rn(r, 6);
	a.in.queue_depth = chance(r, 70) ? 0 : rn(r, 8);
	e = xioctl(w, w->fds[p->fdi].fd, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, &a, 1,
		   "ctl.ProgramPrepare");
	if (!e) {
		p->prepared = 1;
		if (a.out.reserved[0] | a.out.reserved[1] | a.out.reserved[2] |
		    a.out.reserved[3] | a.out.reserved[4] | (uint32_t)a.out.flags)
			fail(w, FAIL_ERRNO, "ProgramPrepare returned nonzero reserved output");
	}
	return e;
}

/* A live program, mostly prepared if @prepared, made if needed. */
struct prog *pick_prog(struct worker *w, struct rng *r, int prepared)
{
	int i, n = 0, cand[NPROG], fdi;

	for (i = 0; i < NPROG; i++)
		if (prog_live(w, &w->p[i]) && (!prepared || w->p[i].prepared))
			cand[n++] = i;
	if (n && chance(r, 85))
		return &w->p[cand[rn(r, n)]];
	fdi = pick_fd(w, r, 0);
	if (!live_fd(w, fdi) || program_create(w, r, fdi, rn(r, NIMG)))
		return n ? &w->p[cand[rn(r, n)]] : NULL;
	for (i = 0; i < NPROG; i++)
		if (prog_live(w, &w->p[i]) && w->p[i].token == w->tokout) {
			if (prepared)
				program_prepare(w, &w->p[i], r);
			return &w->p[i];
		}
	return NULL;
}

void xfd_add(struct worker *w, struct rng *r, int fd)
{
	int k = rn(r, NXFD);

	if (fd < 0)
		return;
	if (w->xfd[k] >= 0)
		close(w->xfd[k]);
	w->xfd[k] = fd;
}

int pick_xfd(struct worker *w, struct rng *r)
{
	int k = rn(r, NXFD);

	return w->xfd[k];
}

struct sobj *pick_sobj(struct worker *w, struct rng *r, int fdi)
{
	int i, n = 0, cand[NSYNC];

	for (i = 0; i < NSYNC; i++)
		if (w->so[i].used && w->so[i].fdi == fdi &&
		    w->fds[fdi].gen == w->so[i].gen)
			cand[n++] = i;
	if (n && chance(r, 85))
		return &w->so[cand[rn(r, n)]];
	if (live_fd(w, fdi)) {
		struct drm_syncobj_create c = { .flags = chance(r, 30) ?
						DRM_SYNCOBJ_CREATE_SIGNALED : 0 };

		if (!xioctl(w, w->fds[fdi].fd, DRM_IOCTL_SYNCOBJ_CREATE, &c, 1,
			    "SYNCOBJ_CREATE")) {
			int k = rn(r, NSYNC);

			w->so[k] = (struct sobj){ .used = 1, .fdi = fdi,
						  .gen = w->fds[fdi].gen, .h = c.handle };
			return &w->so[k];
		}
	}
	return n ? &w->so[cand[rn(r, n)]] : NULL;
}
