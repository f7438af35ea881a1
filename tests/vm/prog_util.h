/* SPDX-License-Identifier: MIT */
/*
 * The VM tests' test program and raw-selector helpers: an image computing
 * out = relu(in (2x3) x W (3x2)), control clients, surfaces, submit and
 * completion events.  Each test defines nothing of these itself.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_VM_PROG_UTIL_H
#define ANE_VM_PROG_UTIL_H

#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libane.h"
#include "vm/prog_image.h"

static char node[64];

struct client {
	int fd;
	uint64_t token;		/* session */
};

static inline int ctl_open(struct client *c)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };

	c->fd = open(node, O_RDWR | O_CLOEXEC);
	if (c->fd < 0 || ioctl(c->fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op) < 0)
		return -1;
	c->token = op.out.token;
	return 0;
}

static inline int create(int fd, const void *img, uint64_t size, uint64_t *tok)
{
	struct drm_ane_program_create pc = {
		.image = (uintptr_t)img, .image_size = size, .token_ptr = (uintptr_t)tok,
	};

	return ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &pc);
}

static inline int prepare(int fd, uint64_t tok, struct drm_ane_program_prepare *pp)
{
	memset(pp, 0, sizeof(*pp));
	pp->in.token = tok;
	return ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, pp);
}

static inline int destroy(int fd, uint64_t tok)
{
	struct drm_ane_program_destroy pd = { .token = tok };

	return ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, &pd);
}

struct surf {
	uint32_t handle;
	uint16_t *p;
	uint64_t size;
};

static inline int surface(int fd, uint64_t size, struct surf *s)
{
	struct drm_ane_surface_create sc = { .size = size };

	if (ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc) < 0)
		return -1;
	s->handle = sc.handle;
	s->size = size;
	s->p = mmap(NULL, PAGE16K, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)sc.offset);
	return s->p == MAP_FAILED ? -1 : 0;
}

static struct drm_ane_send_request sr;

/*
 * A request of @tok reading @in and writing @out, with the @n further
 * surface entries @ev (events, more surfaces) after them.
 */
static inline int submit_refs(int fd, uint64_t tok, uint32_t in, uint32_t out,
			      const struct drm_ane_surface_ref *ev, unsigned int n,
			      uint64_t *seqno)
{
	unsigned int i;
	int ret;

	memset(&sr, 0, sizeof(sr));
	sr.in.token = tok;
	sr.in.qos_class = 5;
	sr.in.exec_priority = 21;
	sr.in.io_category = 2;
	sr.in.surfaces[0] = (struct drm_ane_surface_ref){ .handle = in, .kind = ANE_SURFACE_INPUT };
	sr.in.surfaces[1] = (struct drm_ane_surface_ref){ .handle = out,
							  .kind = ANE_SURFACE_OUTPUT };
	for (i = 0; i < n; i++)
		sr.in.surfaces[2 + i] = ev[i];
	ret = ioctl(fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr);
	if (!ret && seqno)
		*seqno = sr.out.seqno;
	return ret;
}

/* A request of @tok, its fence handed to @syncobj when not 0. */
static inline int submit(int fd, uint64_t tok, uint32_t in, uint32_t out, uint32_t syncobj,
			 uint64_t *seqno)
{
	struct drm_ane_surface_ref ev = { .handle = syncobj, .kind = ANE_SURFACE_OUT_SYNCOBJ };

	return submit_refs(fd, tok, in, out, &ev, syncobj ? 1 : 0, seqno);
}

/* Read one completion event (waiting up to 10 s). */
static inline int wait_event(int fd, struct drm_ane_event_complete *ev)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, 10000) != 1)
		return -1;
	n = read(fd, ev, sizeof(*ev));
	return n == sizeof(*ev) && ev->base.type == DRM_ANE_EVENT_REQUEST_COMPLETE ? 0 : -1;
}

static const int W[6] = { 1, 0, 0, 1, 1, -1 };
static const int A[6] = { 1, 2, 3, 4, 5, 6 };
/* [1 2 3; 4 5 6] x [1 0; 0 1; 1 -1] = [4 -1; 10 -1] -> relu [4 0; 10 0] */
static const int OUT[4] = { 4, 0, 10, 0 };

static inline void fill_input(struct surf *s)
{
	int i;

	for (i = 0; i < 6; i++)
		s->p[i] = h16(A[i]);
}

static inline int check_out(const struct surf *s, const int want[4])
{
	int i, bad = 0;

	for (i = 0; i < 4; i++)
		if (s->p[i] != h16(want[i])) {
			printf("#   out[%d] = 0x%04x, want 0x%04x\n", i, s->p[i], h16(want[i]));
			bad = 1;
		}
	return bad;
}


/*
 * Another thread of the same file that destroys (or detaches) every
 * program of the file it can see, as soon as it can see it: it reads the
 * tokens from ShowModelMemoryStatus, which lists a program the moment it
 * is on the file's list.  Only @keep survives.  A selector that makes an
 * object visible must have filled in its answer first, and must not undo
 * it afterwards: the object may be gone.
 */
struct token_racer {
	int fd;
	uint64_t keep;
	volatile int stop;
	volatile int running;	/* set once the thread runs */
	unsigned int destroyed;	/* destroys and detaches that succeeded */
	unsigned int listed;	/* programs seen, @keep not counted */
};

/* The programs of @fd's file, @keep left out; -1 on an error. */
static inline int racer_list(int fd, uint64_t keep, struct drm_ane_model_info *mi,
			     unsigned int max)
{
	struct drm_ane_method_buf a = {
		.method = ANE_METHOD_SHOW_MODEL_MEMORY_STATUS,
		.ptr = (uintptr_t)mi, .size = max * sizeof(*mi),
	};
	unsigned int i, n = 0;

	if (ioctl(fd, DRM_IOCTL_ANE_METHOD_BUF, &a) < 0)
		return -1;
	for (i = 0; i < a.count; i++)
		if (mi[i].token && mi[i].token != keep)
			mi[n++] = mi[i];
	return (int)n;
}

static inline void *token_racer_run(void *arg)
{
	struct token_racer *r = arg;
	struct drm_ane_model_info mi[64];
	int i, n;

	__atomic_store_n(&r->running, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		n = racer_list(r->fd, r->keep, mi, 64);
		for (i = 0; i < n; i++) {
			struct drm_ane_program_attach at = {
				.flags = ANE_ATTACH_DETACH, .token = mi[i].token,
			};
			int ret = mi[i].flags & ANE_MODEL_ATTACHED ?
				  ioctl(r->fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at) :
				  destroy(r->fd, mi[i].token);

			r->listed++;
			if (!ret)
				r->destroyed++;
		}
	}
	return NULL;
}

/*
 * Stop @r and check that each of the @made programs went exactly once: by
 * its hand, or still listed (those are left in @mi, 64 at most).
 * Return: how many are left.
 */
static inline int token_racer_stop(struct token_racer *r, pthread_t th,
				   unsigned int made, struct drm_ane_model_info *mi)
{
	int left;

	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	left = racer_list(r->fd, r->keep, mi, 64);
	T_CHECK(left >= 0, "list: %s", strerror(errno));
	if (left < 0)
		return 0;
	T_EQ(made, r->destroyed + (unsigned int)left);
	T_CHECK(r->destroyed > 0, "the other thread took nothing");
	return left;
}

/* Start @r on its file; 0 once its thread runs. */
static inline int token_racer_start(struct token_racer *r, pthread_t *th)
{
	if (pthread_create(th, NULL, token_racer_run, r))
		return -1;
	while (!__atomic_load_n(&r->running, __ATOMIC_ACQUIRE))
		usleep(100);
	return 0;
}

#endif /* ANE_VM_PROG_UTIL_H */
