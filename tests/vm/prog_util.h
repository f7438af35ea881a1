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

#define PAGE16K 16384u

static char node[64];

/* fp16 of a small integer, exactly. */
static inline uint16_t h16(int v)
{
	uint32_t a = (uint32_t)(v < 0 ? -v : v), e = 0;

	if (!a)
		return 0;
	while ((a >> e) > 1)
		e++;
	return (uint16_t)((v < 0 ? 0x8000 : 0) | ((e + 15) << 10) |
			  ((a << (10 - e)) & 0x3ff));
}

/*
 * The image: out = relu(in (2x3) x W (3x2)), W in the image's weights
 * (the KUnit ane_image suite builds the same one).
 */
#define IMG_SIZE (PAGE16K + 16)

static inline void build_image(uint8_t *b, const int w[6])
{
	struct ane_img_header *h = (void *)b;
	struct ane_img_procedure *p = (void *)(b + 128);
	struct ane_img_bar *bar = (void *)(b + 160);
	struct ane_img_td *td = (void *)(b + 256);
	struct ane_img_rw *rw = (void *)(b + 544);
	uint16_t *wt = (void *)(b + PAGE16K);
	int i;

	memset(b, 0, IMG_SIZE);
	*h = (struct ane_img_header){
		.magic = ANE_IMG_MAGIC, .version_major = 1, .header_size = 128,
		.image_size = IMG_SIZE, .num_procedures = 1, .procedures_offset = 128,
		.num_tds = 2, .tds_offset = 256, .num_rws = 5, .rws_offset = 544,
		.num_bars = 4, .bars_offset = 160, .weights_offset = PAGE16K,
		.weights_size = 12, .intermediate_size = PAGE16K,
	};
	*p = (struct ane_img_procedure){ .num_tds = 2, .num_rws = 5, .num_inputs = 1,
					 .num_outputs = 1, .partitions = 1 };
	bar[0] = (struct ane_img_bar){ .slot = 0, .usage = 1, .size = 12 };
	bar[1] = (struct ane_img_bar){ .slot = 1, .usage = 2, .size = 8 };
	bar[2] = (struct ane_img_bar){ .slot = 5, .usage = 8, .size = 12 };
	bar[3] = (struct ane_img_bar){ .slot = 7, .usage = 7, .size = 64 };
	td[0].words[ANE_TD_OP] = 2;	/* matmul */
	memcpy(&td[0].words[ANE_TD_SRC0_DIMS], (uint32_t[]){ 1, 1, 2, 3 }, 16);
	memcpy(&td[0].words[ANE_TD_SRC1_DIMS], (uint32_t[]){ 1, 1, 3, 2 }, 16);
	memcpy(&td[0].words[ANE_TD_DST_DIMS], (uint32_t[]){ 1, 1, 2, 2 }, 16);
	td[1].words[ANE_TD_OP] = 4;	/* activation */
	td[1].words[ANE_TD_ACT] = 1;	/* relu */
	memcpy(&td[1].words[ANE_TD_SRC0_DIMS], (uint32_t[]){ 1, 1, 2, 2 }, 16);
	memcpy(&td[1].words[ANE_TD_DST_DIMS], (uint32_t[]){ 1, 1, 2, 2 }, 16);
	rw[0] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_SRC0, .bar = 0, .length_lo = 12 };
	rw[1] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_SRC1, .bar = 5, .length_lo = 12 };
	rw[2] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_DST, .bar = 7, .length_lo = 8 };
	rw[3] = (struct ane_img_rw){ .td = 1, .reg = ANE_TD_REG_SRC0, .bar = 7, .length_lo = 8 };
	rw[4] = (struct ane_img_rw){ .td = 1, .reg = ANE_TD_REG_DST, .bar = 1, .length_lo = 8 };
	for (i = 0; i < 6; i++)
		wt[i] = h16(w[i]);
}

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

static inline int submit(int fd, uint64_t tok, uint32_t in, uint32_t out, uint32_t syncobj,
		  uint64_t *seqno)
{
	int ret;

	memset(&sr, 0, sizeof(sr));
	sr.in.token = tok;
	sr.in.qos_class = 5;
	sr.in.exec_priority = 21;
	sr.in.io_category = 2;
	sr.in.surfaces[0] = (struct drm_ane_surface_ref){ .handle = in, .kind = ANE_SURFACE_INPUT };
	sr.in.surfaces[1] = (struct drm_ane_surface_ref){ .handle = out,
							  .kind = ANE_SURFACE_OUTPUT };
	if (syncobj)
		sr.in.surfaces[2] = (struct drm_ane_surface_ref){
			.handle = syncobj, .kind = ANE_SURFACE_OUT_SYNCOBJ };
	ret = ioctl(fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr);
	if (!ret && seqno)
		*seqno = sr.out.seqno;
	return ret;
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
