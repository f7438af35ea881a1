// SPDX-License-Identifier: MIT
/*
 * VM tests of programs end to end through the raw selectors: create,
 * prepare, send requests, read completion events, fences through a
 * syncobj, instances with their own weights, every lifecycle errno,
 * concurrent processes, a process killed with requests in flight, and
 * storms of prepare and destroy from threads and exiting processes that
 * leave every firmware program slot free.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"
/* after vm_util.h, whose helpers take a node argument */
#include "vm/prog_util.h"

static uint8_t img[IMG_SIZE];

/*
 * A control client with the test program created and prepared, an input
 * and an output surface, and a third 12-byte surface when @extra is set.
 * 0, or -1 with the case marked failed.
 */
static int prog_setup(struct client *c, struct surf *in, struct surf *out,
		      struct surf *extra, uint64_t *tok,
		      struct drm_ane_program_prepare *pp)
{
	if (ctl_open(c) || surface(c->fd, 12, in) || surface(c->fd, 8, out) ||
	    (extra && surface(c->fd, 12, extra))) {
		t_case_failed = 1;
		return -1;
	}
	build_image(img, W);
	*tok = 0;
	T_OK(create(c->fd, img, IMG_SIZE, tok));
	T_OK(prepare(c->fd, *tok, pp));
	return 0;
}

static void a_program_computes_end_to_end(void)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	struct drm_ane_get_status st;
	struct surf in, out;
	uint64_t tok = 0, seqno = 0;
	struct client c;

	if (prog_setup(&c, &in, &out, NULL, &tok, &pp))
		return;
	T_CHECK(tok != 0, "token");
	T_EQ(pp.out.num_procedures, 1);
	T_EQ(pp.out.priority, 5);
	T_CHECK(pp.out.program_slot < 144 && pp.out.process_id < 288, "slot");
	fill_input(&in);
	T_OK(submit(c.fd, tok, in.handle, out.handle, 0, &seqno));
	T_EQ(sr.out.token, tok);
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	T_EQ(ev.seqno, seqno);
	T_EQ(ev.token, tok);
	T_CHECK(!check_out(&out, OUT), "result");
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &st));
	T_EQ(st.out.requests_submitted, 1);
	T_EQ(st.out.requests_completed, 1);
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

static void lifecycle_errors_are_precise(void)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_program_unprepare pu;
	struct drm_ane_program_create pc;
	struct drm_ane_event_complete ev;
	uint64_t tok = 0, bad = 0;
	struct surf in, out;
	struct client c;

	if (ctl_open(&c) || surface(c.fd, 12, &in) || surface(c.fd, 8, &out)) {
		t_case_failed = 1;
		return;
	}
	build_image(img, W);
	((struct ane_img_header *)img)->magic ^= 1;
	T_ERRNO(create(c.fd, img, IMG_SIZE, &bad), EINVAL);		/* bad image */
	build_image(img, W);
	T_ERRNO(create(c.fd, img, 0, &bad), EINVAL);
	T_ERRNO(create(c.fd, img, IMG_SIZE - 1, &bad), EINVAL);	/* size mismatch */
	T_ERRNO(create(c.fd, (void *)16, IMG_SIZE, &bad), EFAULT);
	T_ERRNO(create(c.fd, img, IMG_SIZE, (uint64_t *)16), EFAULT);
	memset(&pc, 0, sizeof(pc));
	pc.image = (uintptr_t)img;
	pc.image_size = IMG_SIZE;
	pc.token_ptr = (uintptr_t)&bad;
	pc.flags = 1;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &pc), EINVAL);

	T_OK(create(c.fd, img, IMG_SIZE, &tok));
	/* Not prepared yet: requests have nowhere to run. */
	T_ERRNO(submit(c.fd, tok, in.handle, out.handle, 0, NULL), EBADFD);
	T_ERRNO(prepare(c.fd, tok ^ 1, &pp), ENOENT);
	memset(&pp, 0, sizeof(pp));
	pp.in.token = tok;
	/* (The real-time band, 0 and 1, is caps_test's.) */
	pp.in.priority = 8;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, &pp), EINVAL);
	pp.in.priority = 0;
	pp.in.flags = 2;					/* unknown flag */
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, &pp), EINVAL);
	pp.in.flags = 0;
	pp.in.program_slot = 3;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, &pp), EINVAL);
	T_OK(prepare(c.fd, tok, &pp));
	T_ERRNO(prepare(c.fd, tok, &pp), EALREADY);

	/* Request errors. */
	T_ERRNO(submit(c.fd, tok ^ 1, in.handle, out.handle, 0, NULL), ENOENT);
	T_ERRNO(submit(c.fd, tok, in.handle, 0xbad, 0, NULL), ENOENT);
	memset(&sr, 0, sizeof(sr));
	sr.in.token = tok;
	sr.in.surfaces[0] = (struct drm_ane_surface_ref){ .handle = in.handle, .kind = 1 };
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr), EINVAL);	/* no output */
	sr.in.surfaces[1] = (struct drm_ane_surface_ref){ .handle = out.handle, .kind = 2 };
	sr.doorbell = 32;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr), EINVAL);
	sr.doorbell = 0;
	sr.in.procedure = 1;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr), EINVAL);
	sr.in.procedure = 0;
	sr.in.surfaces[1].bar = 1;				/* output index 1 */
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr), EINVAL);
	sr.in.surfaces[1].bar = 0;
	sr.in.surfaces[1].reserved = 1;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr), EINVAL);
	sr.in.surfaces[1].reserved = 0;
	sr.in.surfaces[3].kind = 2;				/* junk past the end */
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr), EINVAL);
	sr.in.surfaces[3].kind = 0;
	/* ... however far past it (the driver reads the tail word by word) */
	sr.in.surfaces[9].handle = out.handle;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr), EINVAL);
	sr.in.surfaces[9].handle = 0;
	sr.in.surfaces[ANE_REQ_MAX_SURFACES - 1].reserved = 0x100;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr), EINVAL);
	sr.in.surfaces[ANE_REQ_MAX_SURFACES - 1].reserved = 0;
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr));
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);

	memset(&pu, 0, sizeof(pu));
	pu.in.token = tok;
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, &pu));
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, &pu), EALREADY);
	T_OK(destroy(c.fd, tok));
	T_ERRNO(destroy(c.fd, tok), ENOENT);
	close(c.fd);
}

static void instances_bind_their_own_weights(void)
{
	struct drm_ane_program_create_instance ci;
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	static const int W2[6] = { 0, 1, 1, 0, 0, 0 };	/* swap columns */
	static const int OUT2[4] = { 2, 1, 5, 4 };
	struct surf in, out, wts;
	uint64_t tok = 0, inst = 0;
	struct client c;
	int i;

	if (prog_setup(&c, &in, &out, &wts, &tok, &pp))
		return;
	for (i = 0; i < 6; i++)
		wts.p[i] = h16(W2[i]);
	memset(&ci, 0, sizeof(ci));
	ci.program = tok;
	ci.weights = wts.handle;
	ci.token_ptr = (uintptr_t)&inst;
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci));
	T_CHECK(inst && inst != tok, "instance token");
	fill_input(&in);
	T_OK(submit(c.fd, inst, in.handle, out.handle, 0, NULL));
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	T_CHECK(!check_out(&out, OUT2), "instance result");
	/* The program itself still uses the image's weights. */
	T_OK(submit(c.fd, tok, in.handle, out.handle, 0, NULL));
	T_OK(wait_event(c.fd, &ev));
	T_CHECK(!check_out(&out, OUT), "program result");
	/* A program with instances is not destroyed under them. */
	T_ERRNO(destroy(c.fd, tok), EBUSY);
	ci.weights = 0xbad;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci), ENOENT);
	T_OK(destroy(c.fd, inst));
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

static void syncobj_users_wait_on_the_fence(void)
{
	struct drm_syncobj_create scr = { 0 };
	struct drm_syncobj_wait sw;
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	struct surf in, out;
	struct timespec ts;
	uint64_t tok = 0;
	struct client c;

	if (prog_setup(&c, &in, &out, NULL, &tok, &pp))
		return;
	T_OK(ioctl(c.fd, DRM_IOCTL_SYNCOBJ_CREATE, &scr));
	fill_input(&in);
	T_OK(submit(c.fd, tok, in.handle, out.handle, scr.handle, NULL));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	memset(&sw, 0, sizeof(sw));
	sw.handles = (uintptr_t)&scr.handle;
	sw.count_handles = 1;
	sw.timeout_nsec = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + 10000000000ll;
	T_OK(ioctl(c.fd, DRM_IOCTL_SYNCOBJ_WAIT, &sw));
	T_CHECK(!check_out(&out, OUT), "result after the fence");
	T_OK(wait_event(c.fd, &ev));
	close(c.fd);
}

/* "signal events: N" of debugfs fw_status, or -1. */
static long long fw_signal_events(void)
{
	return vm_fw_status(node, "signal events: ");
}

/* A request naming syncobjs h[0..n). */
static int submit_signals(int fd, uint64_t tok, uint32_t in, uint32_t out,
			  const uint32_t *h, unsigned int n)
{
	struct drm_ane_surface_ref ev[ANE_REQ_MAX_SIGNAL_EVENTS + 1];
	unsigned int i;

	for (i = 0; i < n; i++)
		ev[i] = (struct drm_ane_surface_ref){ .handle = h[i],
						      .kind = ANE_SURFACE_OUT_SYNCOBJ };
	return submit_refs(fd, tok, in, out, ev, n, NULL);
}

/*
 * Each ANE_SURFACE_OUT_SYNCOBJ is a signal event of the procedure call
 * (PROCEDURE_CALL_WITH_EVENTS, Table 30.3): sixteen (n) are all signaled,
 * and the firmware counts sixteen signal events; seventeen (n + 1) are
 * refused with -E2BIG and nothing is sent.
 */
static void signal_events_hold_at_n(void)
{
	uint32_t h[ANE_REQ_MAX_SIGNAL_EVENTS + 1];
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	struct drm_syncobj_wait sw;
	long long before, after;
	struct surf in, out;
	struct timespec ts;
	uint64_t tok = 0;
	struct client c;
	unsigned int i;

	if (prog_setup(&c, &in, &out, NULL, &tok, &pp))
		return;
	for (i = 0; i <= ANE_REQ_MAX_SIGNAL_EVENTS; i++) {
		struct drm_syncobj_create scr = { 0 };

		T_OK(ioctl(c.fd, DRM_IOCTL_SYNCOBJ_CREATE, &scr));
		h[i] = scr.handle;
	}
	fill_input(&in);
	memset(out.p, 0, 8);
	before = fw_signal_events();
	T_CHECK(before >= 0, "debugfs fw_status has no signal events line");
	T_OK(submit_signals(c.fd, tok, in.handle, out.handle, h, ANE_REQ_MAX_SIGNAL_EVENTS));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	memset(&sw, 0, sizeof(sw));
	sw.handles = (uintptr_t)h;
	sw.count_handles = ANE_REQ_MAX_SIGNAL_EVENTS;
	sw.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	sw.timeout_nsec = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + 10000000000ll;
	T_OK(ioctl(c.fd, DRM_IOCTL_SYNCOBJ_WAIT, &sw));
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	T_CHECK(!check_out(&out, OUT), "result of the call with events");
	after = fw_signal_events();
	T_EQ(after - before, ANE_REQ_MAX_SIGNAL_EVENTS);

	/* n + 1: refused before anything is sent */
	T_ERRNO(submit_signals(c.fd, tok, in.handle, out.handle, h,
			       ANE_REQ_MAX_SIGNAL_EVENTS + 1), E2BIG);
	T_EQ(fw_signal_events(), after);
	/* one: a call with one signal event; none: the call with an order */
	T_OK(submit_signals(c.fd, tok, in.handle, out.handle, h, 1));
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	T_OK(submit_signals(c.fd, tok, in.handle, out.handle, h, 0));
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	T_EQ(fw_signal_events(), after + 1);
	/* a handle that is no syncobj */
	h[3] = 0xbad;
	T_ERRNO(submit_signals(c.fd, tok, in.handle, out.handle, h, 4), ENOENT);
	close(c.fd);
}

/*
 * Thirty-two custom bars (Table 30.3's n): a procedure with 16 inputs and
 * 16 outputs and nothing else, out_i = relu(x_i), calls the firmware with
 * one bar per surface and computes each.  33 (n + 1) is an image refused
 * at header.num_bars (net_test's bars_too_many).
 */
static void thirty_two_custom_bars_run(void)
{
	struct ane_surface *s[2 * ANE_IMG_MAX_IO] = { NULL };
	struct ane_program *prog = NULL;
	struct ane_dev *dev = NULL;
	struct ane_net *net = NULL;
	uint64_t seqno;
	const void *im;
	char err[512], name[8];
	unsigned int i, k;
	size_t size;
	int st = 1, t;

	T_OK(ane_net_create(&net));
	if (t_case_failed)
		return;
	for (i = 0; i < ANE_IMG_MAX_IO; i++) {
		snprintf(name, sizeof(name), "x%u", i);
		t = ane_net_input(net, name, 1, 1, 1, 8);
		ane_net_output(net, ane_net_activation(net, t, ANE_NET_ACT_RELU));
	}
	T_OK(ane_net_build(net, &im, &size));
	T_OK(ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err)));
	if (t_case_failed)
		goto out;
	T_EQ(((const struct ane_img_header *)im)->num_bars, ANE_IMG_MAX_BARS);
	T_OK(ane_program_create(dev, im, size, &prog));
	T_OK(ane_program_prepare(prog));
	for (i = 0; i < 2 * ANE_IMG_MAX_IO; i++)
		T_OK(ane_surface_create(dev, 16, &s[i]));
	if (t_case_failed)
		goto out;
	for (i = 0; i < ANE_IMG_MAX_IO; i++)
		for (k = 0; k < 8; k++)
			((uint16_t *)ane_surface_map(s[i]))[k] =
				h16(k % 2 ? (int)i : -(int)i);
	T_OK(ane_request_submit(prog, 0, s, ANE_IMG_MAX_IO, s + ANE_IMG_MAX_IO,
				ANE_IMG_MAX_IO, &seqno));
	T_OK(ane_request_wait(dev, seqno, ane_deadline_ns(10000000000ull), &st, NULL));
	T_EQ(st, 0);
	for (i = 0; i < ANE_IMG_MAX_IO && !t_case_failed; i++)
		for (k = 0; k < 8; k++)
			T_EQ(((uint16_t *)ane_surface_map(s[ANE_IMG_MAX_IO + i]))[k],
			     h16(k % 2 ? (int)i : 0));
out:
	for (i = 0; i < 2 * ANE_IMG_MAX_IO; i++)
		ane_surface_destroy(s[i]);
	ane_program_destroy(prog);
	ane_close(dev);
	ane_net_destroy(net);
}

#define ACC_IMG_SIZE	2048u
#define ACC_ORDER_OFF	1024u

/*
 * An accumulator with an execute order: TD 0 t = out + in (into the
 * intermediate buffer), TD 1 out = t (a copy), on 1x1x1x8 fp16, and a
 * table of ANE_IMG_MAX_EXEC_ORDER + 1 entries, all ANE_IMG_EXEC(0, 2)
 * but the last, ANE_IMG_EXEC(0, 1); procedure 0 uses @count of them
 * from @first.
 */
static void build_acc_image(uint8_t *b, uint16_t first, uint16_t count)
{
	struct ane_img_header *h = (void *)b;
	struct ane_img_procedure *p = (void *)(b + 128);
	struct ane_img_bar *bar = (void *)(b + 160);
	struct ane_img_td *td = (void *)(b + 256);
	struct ane_img_rw *rw = (void *)(b + 544);
	uint32_t *order = (void *)(b + ACC_ORDER_OFF);
	static const uint32_t d8[4] = { 1, 1, 1, 8 };
	unsigned int i;

	memset(b, 0, ACC_IMG_SIZE);
	*h = (struct ane_img_header){
		.magic = ANE_IMG_MAGIC, .version_major = 1, .version_minor = 1,
		.header_size = 128, .image_size = ACC_IMG_SIZE,
		.num_procedures = 1, .procedures_offset = 128,
		.num_tds = 2, .tds_offset = 256, .num_rws = 5, .rws_offset = 544,
		.num_bars = 3, .bars_offset = 160, .intermediate_size = PAGE16K,
		.num_exec_order = ANE_IMG_MAX_EXEC_ORDER + 1,
		.exec_order_offset = ACC_ORDER_OFF,
	};
	*p = (struct ane_img_procedure){ .num_tds = 2, .num_rws = 5, .num_inputs = 1,
					 .num_outputs = 1, .partitions = 1,
					 .exec_order_first = first,
					 .exec_order_count = count };
	bar[0] = (struct ane_img_bar){ .slot = 0, .usage = 1, .size = 16 };
	bar[1] = (struct ane_img_bar){ .slot = 1, .usage = 2, .size = 16 };
	bar[2] = (struct ane_img_bar){ .slot = 7, .usage = 7, .size = 16 };
	td[0].words[ANE_TD_OP] = 3;	/* elementwise add */
	memcpy(&td[0].words[ANE_TD_SRC0_DIMS], d8, 16);
	memcpy(&td[0].words[ANE_TD_SRC1_DIMS], d8, 16);
	memcpy(&td[0].words[ANE_TD_DST_DIMS], d8, 16);
	td[1].words[ANE_TD_OP] = 4;	/* activation none: a copy */
	memcpy(&td[1].words[ANE_TD_SRC0_DIMS], d8, 16);
	memcpy(&td[1].words[ANE_TD_DST_DIMS], d8, 16);
	rw[0] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_SRC0, .bar = 1, .length_lo = 16 };
	rw[1] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_SRC1, .bar = 0, .length_lo = 16 };
	rw[2] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_DST, .bar = 7, .length_lo = 16 };
	rw[3] = (struct ane_img_rw){ .td = 1, .reg = ANE_TD_REG_SRC0, .bar = 7, .length_lo = 16 };
	rw[4] = (struct ane_img_rw){ .td = 1, .reg = ANE_TD_REG_DST, .bar = 1, .length_lo = 16 };
	for (i = 0; i < ANE_IMG_MAX_EXEC_ORDER; i++)
		order[i] = ANE_IMG_EXEC(0, 2);
	order[ANE_IMG_MAX_EXEC_ORDER] = ANE_IMG_EXEC(0, 1);
}

/* Run the accumulator once from out = 5 with in = 1; out[0], or -1. */
static int acc_run(struct client *c, uint16_t first, uint16_t count,
		   struct surf *in, struct surf *out)
{
	static uint8_t im[ACC_IMG_SIZE];
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	uint64_t tok = 0;
	int i, v = -1;

	build_acc_image(im, first, count);
	if (create(c->fd, im, ACC_IMG_SIZE, &tok) || prepare(c->fd, tok, &pp)) {
		printf("#   order %u+%u: create/prepare: %s\n", first, count, strerror(errno));
		return -1;
	}
	for (i = 0; i < 8; i++) {
		in->p[i] = h16(1);
		out->p[i] = h16(5);
	}
	if (!submit(c->fd, tok, in->handle, out->handle, 0, NULL) &&
	    !wait_event(c->fd, &ev) && !ev.status) {
		for (v = 0; v <= 2048; v++)
			if (out->p[0] == h16(v) && out->p[7] == h16(v))
				break;
	}
	destroy(c->fd, tok);
	return v > 2048 ? -2 : v;
}

/*
 * A procedure's execute order (Table 30.3's custom execute order) runs
 * its task descriptors as the order says: none, once; 128 entries (n)
 * of the whole procedure, 128 times; one entry of TD 0 alone, the copy
 * never runs.  129 entries (n + 1) are an image refused at
 * procedure[0].exec_order_count, and an order with a signal event is
 * -EINVAL (the call with events has no execute order).
 */
static void the_execute_order_runs_and_holds_at_n(void)
{
	struct drm_syncobj_create scr = { 0 };
	static uint8_t im[ACC_IMG_SIZE];
	struct drm_ane_program_prepare pp;
	struct surf in, out;
	uint64_t tok = 0;
	struct client c;

	if (ctl_open(&c) || surface(c.fd, 16, &in) || surface(c.fd, 16, &out)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	T_EQ(acc_run(&c, 0, 0, &in, &out), 6);
	T_EQ(acc_run(&c, 0, ANE_IMG_MAX_EXEC_ORDER, &in, &out), 5 + ANE_IMG_MAX_EXEC_ORDER);
	T_EQ(acc_run(&c, 3, 2, &in, &out), 7);
	T_EQ(acc_run(&c, ANE_IMG_MAX_EXEC_ORDER, 1, &in, &out), 5);
	/* n + 1 */
	build_acc_image(im, 0, ANE_IMG_MAX_EXEC_ORDER + 1);
	T_ERRNO(create(c.fd, im, ACC_IMG_SIZE, &tok), EINVAL);
	/* an entry past the procedure */
	build_acc_image(im, 0, 2);
	((uint32_t *)(im + ACC_ORDER_OFF))[1] = ANE_IMG_EXEC(1, 2);
	T_ERRNO(create(c.fd, im, ACC_IMG_SIZE, &tok), EINVAL);
	/* no execute order with signal events */
	build_acc_image(im, 0, 2);
	T_OK(create(c.fd, im, ACC_IMG_SIZE, &tok));
	T_OK(prepare(c.fd, tok, &pp));
	T_OK(ioctl(c.fd, DRM_IOCTL_SYNCOBJ_CREATE, &scr));
	T_ERRNO(submit(c.fd, tok, in.handle, out.handle, scr.handle, NULL), EINVAL);
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

/* Four processes at once, each with its own program and data. */
static void concurrent_processes_get_their_own_results(void)
{
	int i, status, ok = 1;
	pid_t pid[4];

	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct drm_ane_program_prepare pp;
			struct drm_ane_event_complete ev;
			int w[6] = { i + 1, 0, 0, i + 1, 0, 0 }, want[4], r, k;
			static uint8_t im[IMG_SIZE];
			struct surf in, out;
			uint64_t tok = 0;
			struct client c;

			/* out = relu(A x [[k 0][0 k][0 0]]) = k * A[:, 0:2] */
			want[0] = (i + 1) * 1;
			want[1] = (i + 1) * 2;
			want[2] = (i + 1) * 4;
			want[3] = (i + 1) * 5;
			build_image(im, w);
			if (ctl_open(&c) || surface(c.fd, 12, &in) || surface(c.fd, 8, &out) ||
			    create(c.fd, im, IMG_SIZE, &tok) || prepare(c.fd, tok, &pp))
				_exit(10);
			fill_input(&in);
			for (r = 0; r < 20; r++) {
				memset(out.p, 0, 8);
				if (submit(c.fd, tok, in.handle, out.handle, 0, NULL) ||
				    wait_event(c.fd, &ev) || ev.status)
					_exit(11);
				for (k = 0; k < 4; k++)
					if (out.p[k] != h16(want[k]))
						_exit(12);
			}
			_exit(0);
		}
	}
	for (i = 0; i < 4; i++) {
		if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("#   process %d: status 0x%x\n", i, status);
			ok = 0;
		}
	}
	T_CHECK(ok, "all four processes");
}

/* More requests at once than the firmware keeps in flight all complete. */
static void a_burst_of_requests_all_completes(void)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	int i, n = 40, done = 0, bad = 0;
	struct surf in, out;
	uint64_t tok = 0;
	struct client c;

	if (prog_setup(&c, &in, &out, NULL, &tok, &pp))
		return;
	fill_input(&in);
	for (i = 0; i < n; i++)
		T_OK(submit(c.fd, tok, in.handle, out.handle, 0, NULL));
	for (i = 0; i < n; i++) {
		if (wait_event(c.fd, &ev))
			break;
		done++;
		bad += ev.status != 0;
	}
	T_EQ(done, n);
	T_EQ(bad, 0);
	T_CHECK(!check_out(&out, OUT), "result");
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

/*
 * A client may have 127 requests outstanding (ch. 28) -- submitted, their
 * completions not read -- however many the firmware's queues hold: the
 * rest wait in the driver.  The same surfaces are mapped once for all of
 * them.  The 128th, on any program of the client, is ENOBUFS; once the
 * completions are read, the client submits again.
 */
static int count_mappings_in(unsigned int usage, const char *state);

static void a_client_has_127_requests_outstanding(void)
{
	struct drm_ane_program_prepare pp, pp2;
	struct drm_ane_event_complete ev;
	int i, done = 0, bad = 0, ins, outs;
	struct surf in, out;
	uint64_t tok = 0, tok2 = 0;
	struct client c;

	if (prog_setup(&c, &in, &out, NULL, &tok, &pp))
		return;
	ins = count_mappings_in(1, NULL);
	outs = count_mappings_in(2, NULL);
	T_OK(create(c.fd, img, IMG_SIZE, &tok2));
	T_OK(prepare(c.fd, tok2, &pp2));
	fill_input(&in);
	for (i = 0; i < 127; i++)
		if (submit(c.fd, tok, in.handle, out.handle, 0, NULL)) {
			T_CHECK(0, "request %d: %s", i + 1, strerror(errno));
			break;
		}
	/* One input and one output mapping, not one per request. */
	T_EQ(count_mappings_in(1, NULL), ins + 1);
	T_EQ(count_mappings_in(2, NULL), outs + 1);
	T_ERRNO(submit(c.fd, tok, in.handle, out.handle, 0, NULL), ENOBUFS);
	T_ERRNO(submit(c.fd, tok2, in.handle, out.handle, 0, NULL), ENOBUFS);
	for (i = 0; i < 127; i++) {
		if (wait_event(c.fd, &ev))
			break;
		done++;
		bad += ev.status != 0;
	}
	T_EQ(done, 127);
	T_EQ(bad, 0);
	T_CHECK(!check_out(&out, OUT), "result");
	/* Read: room again. */
	memset(out.p, 0, 8);
	T_OK(submit(c.fd, tok2, in.handle, out.handle, 0, NULL));
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	T_CHECK(!check_out(&out, OUT), "result");
	T_OK(destroy(c.fd, tok2));
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

/* Four processes with 127 outstanding each: all wait their turn, none fails. */
static void four_clients_with_127_outstanding_each(void)
{
	int i, status, ok = 1;
	pid_t pid[4];

	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct drm_ane_program_prepare pp;
			struct drm_ane_event_complete ev;
			struct surf in, out;
			uint64_t tok = 0;
			struct client c;
			int k;

			t_case_failed = 0;
			if (prog_setup(&c, &in, &out, NULL, &tok, &pp))
				_exit(10);
			fill_input(&in);
			for (k = 0; k < 127; k++)
				if (submit(c.fd, tok, in.handle, out.handle, 0, NULL)) {
					printf("#   process %d request %d: %s\n", i, k + 1,
					       strerror(errno));
					_exit(11);
				}
			for (k = 0; k < 127; k++)
				if (wait_event(c.fd, &ev) || ev.status)
					_exit(12);
			_exit(check_out(&out, OUT) ? 13 : 0);
		}
	}
	for (i = 0; i < 4; i++) {
		if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("#   process %d: status 0x%x\n", i, status);
			ok = 0;
		}
	}
	T_CHECK(ok, "all four processes");
}

/* Lines of dart_mappings with usage code @usage and @state (or any), or -1. */
static int count_mappings_in(unsigned int usage, const char *state)
{
	char path[512], line[512], want[32];
	int n = 0;
	FILE *f;

	if (vm_debugfs_path(node, "dart_mappings", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), " usage %u prot", usage);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, want) && (!state || strstr(line, state));
	fclose(f);
	return n;
}

static int count_mappings(unsigned int usage)
{
	return count_mappings_in(usage, NULL);
}

/*
 * A surface is mapped for its first request and found again by the next
 * ones; closing its handle unmaps it, and a new surface is mapped anew.
 */
static void surfaces_keep_their_mappings_across_requests(void)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	struct drm_gem_close gc = { 0 };
	int in0, out0, i;
	char path[512];
	struct surf in, out, in2;
	uint64_t tok = 0;
	struct client c;

	/* Earlier clients' requests are released a tick after completion. */
	usleep(200000);
	in0 = count_mappings(1);
	out0 = count_mappings(2);
	T_CHECK(in0 >= 0 && out0 >= 0, "dart_mappings unreadable");
	if (prog_setup(&c, &in, &out, &in2, &tok, &pp))
		return;
	fill_input(&in);
	for (i = 0; i < 3; i++) {
		T_OK(submit(c.fd, tok, in.handle, out.handle, 0, NULL));
		T_OK(wait_event(c.fd, &ev));
		T_EQ(ev.status, 0);
		T_EQ(count_mappings(1), in0 + 1);
		T_EQ(count_mappings(2), out0 + 1);
	}
	T_CHECK(!check_out(&out, OUT), "result");
	/* Kept after the requests are long released. */
	usleep(100000);
	T_EQ(count_mappings(1), in0 + 1);
	T_EQ(count_mappings(2), out0 + 1);

	/* Evicted under (simulated) address pressure: mapped again, once. */
	T_OK(vm_debugfs_path(node, "dart_evict", path, sizeof(path)));
	T_OK(vm_write_file(path, "1"));
	T_EQ(count_mappings(1), in0 + 1);
	T_EQ(count_mappings_in(1, "evicted"), in0 + 1);	/* every one idle */
	memset(out.p, 0, 8);
	T_OK(submit(c.fd, tok, in.handle, out.handle, 0, NULL));
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	T_CHECK(!check_out(&out, OUT), "result after eviction");
	T_EQ(count_mappings(1), in0 + 1);
	T_EQ(count_mappings_in(1, "evicted"), in0);

	gc.handle = in.handle;
	T_OK(ioctl(c.fd, DRM_IOCTL_GEM_CLOSE, &gc));
	T_EQ(count_mappings(1), in0);
	T_EQ(count_mappings(2), out0 + 1);
	memset(out.p, 0, 8);
	fill_input(&in2);
	T_OK(submit(c.fd, tok, in2.handle, out.handle, 0, NULL));
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	T_CHECK(!check_out(&out, OUT), "result through the new surface");
	T_EQ(count_mappings(1), in0 + 1);
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

/*
 * The value of fdinfo key @key ("drm-engine-ane:" ...) for @fd, sizes
 * ("32 KiB") in bytes; -1 without the key.  @text gets the raw value.
 */
static long long fdinfo_value_text(int fd, const char *key, char *text, size_t len)
{
	char path[64], line[256], *end;
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)))
			continue;
		if (text)
			snprintf(text, len, "%s", line + strlen(key) + 1);
		v = strtoll(line + strlen(key), &end, 10);
		if (!strncmp(end, " KiB", 4))
			v <<= 10;
		else if (!strncmp(end, " MiB", 4))
			v <<= 20;
	}
	fclose(f);
	return v;
}

static long long fdinfo_value(int fd, const char *key)
{
	return fdinfo_value_text(fd, key, NULL, 0);
}

/*
 * A client keeps at most 32 idle surface mappings: 40 input surfaces and
 * one output, one request each, leave 31 inputs and the output (the most
 * recently used) mapped; closing the inputs leaves none of them.
 */
static void idle_surface_mappings_are_capped(void)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	struct drm_gem_close gc = { 0 };
	struct surf in[40], out;
	uint64_t tok = 0;
	struct client c;
	int in0, out0, i, n = 40;

	usleep(200000);
	in0 = count_mappings(1);
	out0 = count_mappings(2);
	if (prog_setup(&c, &in[0], &out, NULL, &tok, &pp))
		return;
	for (i = 1; i < n; i++)
		T_OK(surface(c.fd, 12, &in[i]));
	for (i = 0; i < n; i++) {
		fill_input(&in[i]);
		T_OK(submit(c.fd, tok, in[i].handle, out.handle, 0, NULL));
		T_OK(wait_event(c.fd, &ev));
		T_EQ(ev.status, 0);
	}
	T_CHECK(!check_out(&out, OUT), "result");
	T_EQ(count_mappings(1), in0 + 31);
	T_EQ(count_mappings(2), out0 + 1);
	for (i = 0; i < n; i++) {
		gc.handle = in[i].handle;
		T_OK(ioctl(c.fd, DRM_IOCTL_GEM_CLOSE, &gc));
	}
	T_EQ(count_mappings(1), in0);
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

/* fdinfo carries the DRM usage stats: engine time, requests, surfaces. */
static void fdinfo_shows_the_clients_usage(void)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	struct surf in, out;
	uint64_t tok = 0;
	struct client c;
	char driver[64] = "";
	int i;

	if (prog_setup(&c, &in, &out, NULL, &tok, &pp))
		return;
	fdinfo_value_text(c.fd, "drm-driver:", driver, sizeof(driver));
	T_CHECK(!strcmp(driver, "ane\n"), "drm-driver: \"%s\"", driver);
	T_EQ(fdinfo_value(c.fd, "drm-engine-ane:"), 0);
	T_EQ(fdinfo_value(c.fd, "ane-requests-completed:"), 0);
	/* the client's two 16 KB surfaces */
	T_EQ(fdinfo_value(c.fd, "drm-total-memory:"), 2 * PAGE16K);
	T_EQ(fdinfo_value(c.fd, "drm-resident-memory:"),
	     fdinfo_value(c.fd, "drm-total-memory:"));
	fill_input(&in);
	for (i = 0; i < 3; i++) {
		T_OK(submit(c.fd, tok, in.handle, out.handle, 0, NULL));
		T_OK(wait_event(c.fd, &ev));
		T_EQ(ev.status, 0);
	}
	T_EQ(fdinfo_value(c.fd, "ane-requests-submitted:"), 3);
	T_EQ(fdinfo_value(c.fd, "ane-requests-completed:"), 3);
	T_CHECK(fdinfo_value(c.fd, "drm-engine-ane:") >= (long long)ev.exec_ns,
		"drm-engine-ane %lld ns, last request alone %llu ns",
		fdinfo_value(c.fd, "drm-engine-ane:"), (unsigned long long)ev.exec_ns);
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

/* A process killed with requests in flight leaks nothing, stops no one. */
static void killed_process_disturbs_no_one(void)
{
	int status, i;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		struct drm_ane_program_prepare pp;
		struct surf in, out;
		uint64_t tok = 0;
		struct client c;

		build_image(img, W);
		if (ctl_open(&c) || surface(c.fd, 12, &in) || surface(c.fd, 8, &out) ||
		    create(c.fd, img, IMG_SIZE, &tok) || prepare(c.fd, tok, &pp))
			_exit(10);
		for (i = 0; i < 50; i++)
			if (submit(c.fd, tok, in.handle, out.handle, 0, NULL))
				break;
		_exit(0);	/* requests still in flight, events unread */
	}
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "child 0x%x", status);
	/* Everyone else carries on. */
	a_program_computes_end_to_end();
}

/* "slots in use: N of M" of the firmware's program slots; -1 unreadable. */
static int slots_in_use(void)
{
	/* -1 (unreadable) also when the driver is too old to have the view */
	char path[512], line[256];
	int n = -1;
	FILE *f;

	if (vm_debugfs_path(node, "fw_programs", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "slots in use: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * Slots in use back to @base (what earlier cases' clients, still open in
 * this process through their surface mappings, hold), waiting out
 * releases still under way.
 */
static int wait_slots_free(int base)
{
	int i, n = -1;

	for (i = 0; i < 100; i++) {
		n = slots_in_use();
		if (n == base)
			return 0;
		usleep(50000);
	}
	printf("#   %d firmware program slots in use, %d before\n", n, base);
	errno = EBUSY;
	return -1;
}

#define STORM_THREADS	16
#define STORM_PROCS	4
#define STORM_ROUNDS	3

static pthread_barrier_t storm_barrier;
/* Built once before the threads start: they only read it. */
static uint8_t storm_img[IMG_SIZE];

/* One client: prepare, wait for everyone, destroy at once; per round. */
static void *storm_thread(void *arg)
{
	struct drm_ane_program_prepare pp;
	const uint8_t *im = storm_img;
	uintptr_t bad = 0;
	struct client c;
	uint64_t tok;
	int r;

	(void)arg;
	if (ctl_open(&c))
		return (void *)1;
	for (r = 0; r < STORM_ROUNDS; r++) {
		tok = 0;
		if (create(c.fd, im, IMG_SIZE, &tok) || prepare(c.fd, tok, &pp)) {
			printf("#   round %d: create/prepare: %s\n", r, strerror(errno));
			bad = 1;
		}
		pthread_barrier_wait(&storm_barrier);
		if (tok && destroy(c.fd, tok))
			bad = 1;
		pthread_barrier_wait(&storm_barrier);
	}
	close(c.fd);
	return (void *)bad;
}

/* STORM_THREADS clients in one process destroying together. */
static int storm_process(void)
{
	pthread_t t[STORM_THREADS];
	int i, bad = 0;
	void *ret;

	/*
	 * Once, here: built by every thread into one buffer, one thread's
	 * memset raced another's ProgramCreate, which then read zeroes.
	 */
	build_image(storm_img, W);
	pthread_barrier_init(&storm_barrier, NULL, STORM_THREADS);
	for (i = 0; i < STORM_THREADS; i++)
		if (pthread_create(&t[i], NULL, storm_thread, NULL))
			return 1;
	for (i = 0; i < STORM_THREADS; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
	}
	return bad;
}

/* A process that prepares @n programs and exits without a word. */
static int exit_with_programs(int n, int close_first)
{
	struct drm_ane_program_prepare pp;
	struct client c;
	uint64_t tok;
	int i;

	build_image(img, W);
	if (ctl_open(&c))
		return 10;
	for (i = 0; i < n; i++) {
		tok = 0;
		if (create(c.fd, img, IMG_SIZE, &tok) || prepare(c.fd, tok, &pp))
			return 11;
	}
	if (close_first)
		close(c.fd);
	return 0;
}

static int wait_children(pid_t *pid, int n)
{
	int i, status, bad = 0;

	for (i = 0; i < n; i++)
		if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("#   child %d: status 0x%x\n", i, status);
			bad = 1;
		}
	return bad;
}

/*
 * Prepare every free firmware slot (144 less @base) from 3 clients; one
 * more fails with -EBUSY.
 */
static void a_full_set_prepares(int base)
{
	int per[3] = { 64, 64, 144 - 128 - base };
	struct drm_ane_program_prepare pp;
	struct client c[3];
	uint64_t tok[144], extra = 0;
	int i, k, n = 0;

	build_image(img, W);
	for (k = 0; k < 3; k++) {
		T_OK(ctl_open(&c[k]));
		for (i = 0; i < per[k]; i++, n++) {
			tok[n] = 0;
			T_OK(create(c[k].fd, img, IMG_SIZE, &tok[n]));
			if (prepare(c[k].fd, tok[n], &pp)) {
				T_CHECK(0, "program %d of 144: prepare: %s", n,
					strerror(errno));
				break;
			}
		}
	}
	T_EQ(slots_in_use(), 144);
	T_EQ(n, 144 - base);
	T_OK(create(c[2].fd, img, IMG_SIZE, &extra));
	T_ERRNO(prepare(c[2].fd, extra, &pp), EBUSY);
	T_OK(destroy(c[2].fd, extra));
	n = 0;
	for (k = 0; k < 3; k++) {
		for (i = 0; i < per[k]; i++, n++)
			T_OK(destroy(c[k].fd, tok[n]));
		close(c[k].fd);
	}
	T_OK(wait_slots_free(base));
}

/*
 * Processes of 16 threads, each thread a client, prepare and then destroy
 * all at once (64 destroys racing); processes exit with programs
 * prepared.  Every slot is free afterwards and a full set prepares.
 */
static void storms_leave_every_slot_free(void)
{
	pid_t pid[STORM_PROCS * 4];
	int i, round, base;

	usleep(200000);		/* earlier requests are reaped a tick late */
	base = slots_in_use();
	T_CHECK(base >= 0 && base <= 16, "fw_programs: %d slots in use", base);
	if (base > 16)
		return;
	/* without the view, the full set below still tells */
	base = base < 0 ? 0 : base;
	for (i = 0; i < STORM_PROCS; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(storm_process());
	}
	T_CHECK(!wait_children(pid, STORM_PROCS), "destroy storm");
	T_OK(wait_slots_free(base));
	/* 2 x 16 clients exiting with 8 programs prepared each, at once */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 16; i++) {
			pid[i] = fork();
			if (pid[i] == 0)
				_exit(exit_with_programs(8, i & 1));
		}
		T_CHECK(!wait_children(pid, 16), "exit storm %d", round);
	}
	T_OK(wait_slots_free(base));
	a_full_set_prepares(base);
}

/*
 * A file holds 64 programs and instances (ANE_MAX_PROGRAMS_PER_FILE):
 * the next ProgramCreate and CreateInstance are -ENOSPC and leave
 * *token_ptr as it was (the token is written only for a call that
 * succeeds, or loses a race for the last place); one destroyed, a
 * program fits again.
 */
static void a_full_file_refuses_and_leaves_the_token(void)
{
	struct drm_ane_program_create_instance ci;
	uint64_t tok[64], t;
	struct client c;
	int i, n = 0;

	if (ctl_open(&c)) {
		T_CHECK(0, "open: %s", strerror(errno));
		return;
	}
	build_image(img, W);
	for (i = 0; i < 64; i++) {
		if (create(c.fd, img, IMG_SIZE, &tok[i])) {
			T_CHECK(0, "program %d: %s", i, strerror(errno));
			break;
		}
		n++;
	}
	T_EQ(n, 64);
	t = 0x5a5a;
	T_ERRNO(create(c.fd, img, IMG_SIZE, &t), ENOSPC);
	T_EQ(t, 0x5a5a);
	memset(&ci, 0, sizeof(ci));
	ci.program = tok[0];
	ci.token_ptr = (uintptr_t)&t;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci), ENOSPC);
	T_EQ(t, 0x5a5a);
	if (n) {
		T_OK(destroy(c.fd, tok[--n]));
		T_OK(create(c.fd, img, IMG_SIZE, &tok[n]));
		T_CHECK(tok[n] != 0x5a5a, "a new token");
		n++;
	}
	for (i = 0; i < n; i++)
		T_OK(destroy(c.fd, tok[i]));
	close(c.fd);
}

/*
 * ProgramCreate and CreateInstance against another thread of the file
 * that destroys every program as soon as it is listed: each call ends
 * with its own answer (a token, or EFAULT for an unwritable token_ptr,
 * and then nothing was ever listed), and nothing is read from or undone
 * on a program the other thread may already have freed (the debug
 * kernel's KASAN sees such a use-after-free).  On the stock kernel under
 * TCG the window does not open; on the debug kernel (make check-vm-debug)
 * the old code failed each of two runs with KASAN's slab-use-after-free
 * in ane_sel_program_create() (then a list_del() fault) or
 * ane_sel_program_create_instance().
 */
static void a_create_races_a_destroy_of_its_token(void)
{
	struct drm_ane_program_create_instance ci;
	struct drm_ane_model_info mi[64];
	unsigned int made = 0, faulted = 0, full = 0;
	uint64_t parent = 0, tok;
	struct token_racer r;
	struct client c;
	pthread_t th;
	int i, ret, left;

	if (ctl_open(&c)) {
		T_CHECK(0, "open: %s", strerror(errno));
		return;
	}
	build_image(img, W);
	T_OK(create(c.fd, img, IMG_SIZE, &parent));
	memset(&r, 0, sizeof(r));
	r.fd = c.fd;
	r.keep = parent;
	if (token_racer_start(&r, &th)) {
		T_CHECK(0, "pthread_create");
		close(c.fd);
		return;
	}
	for (i = 0; i < 1200 && full < 100000; i++) {
		int instance = i & 1, bad = (i >> 1) & 1;

		tok = 0;
		if (instance) {
			memset(&ci, 0, sizeof(ci));
			ci.program = parent;
			ci.token_ptr = bad ? 0 : (uintptr_t)&tok;
			ret = ioctl(c.fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci);
		} else {
			ret = create(c.fd, img, IMG_SIZE, bad ? NULL : &tok);
		}
		if (!ret) {
			T_CHECK(!bad && tok && tok != parent, "call %d: token %#llx", i,
				(unsigned long long)tok);
			made++;
		} else if (bad && errno == EFAULT) {
			faulted++;
		} else if (errno == ENOSPC) {
			/* the other thread fell behind: the same call again */
			full++;
			i--;
			usleep(200);
		} else {
			T_CHECK(0, "call %d: %s", i, strerror(errno));
		}
	}
	left = token_racer_stop(&r, th, made, mi);
	T_EQ(faulted, 600);
	T_EQ(made, 600);
	for (i = 0; i < left; i++)
		T_OK(destroy(c.fd, mi[i].token));
	T_OK(destroy(c.fd, parent));
	printf("#   %u made (%u destroyed by the other thread), %u EFAULT, %u ENOSPC\n",
	       made, r.destroyed, faulted, full);
	close(c.fd);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "program"))
		return 1;
	/* first: no earlier client of this process holds a slot yet */
	T_RUN(storms_leave_every_slot_free);
	T_RUN(a_program_computes_end_to_end);
	T_RUN(lifecycle_errors_are_precise);
	T_RUN(instances_bind_their_own_weights);
	T_RUN(a_create_races_a_destroy_of_its_token);
	T_RUN(syncobj_users_wait_on_the_fence);
	T_RUN(signal_events_hold_at_n);
	T_RUN(thirty_two_custom_bars_run);
	T_RUN(the_execute_order_runs_and_holds_at_n);
	T_RUN(concurrent_processes_get_their_own_results);
	T_RUN(a_burst_of_requests_all_completes);
	T_RUN(a_client_has_127_requests_outstanding);
	T_RUN(four_clients_with_127_outstanding_each);
	T_RUN(surfaces_keep_their_mappings_across_requests);
	T_RUN(idle_surface_mappings_are_capped);
	T_RUN(fdinfo_shows_the_clients_usage);
	T_RUN(killed_process_disturbs_no_one);
	T_RUN(a_full_file_refuses_and_leaves_the_token);
	return t_summary("program");
}
