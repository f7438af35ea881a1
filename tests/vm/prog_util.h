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


#endif /* ANE_VM_PROG_UTIL_H */
