// SPDX-License-Identifier: MIT
/*
 * VM tests of wait events and the shared event: a request naming
 * ANE_SURFACE_IN_SYNCOBJ or ANE_SURFACE_IN_SHARED_EVENT is held by the
 * firmware until the fence ends or the shared event is rung, and runs
 * after it; 16 events hold, 17 are -E2BIG; a failed fence fails the
 * request with its error; a client exiting while its requests wait, and
 * a firmware crash while they do, leave nothing waiting; the shared
 * event is active for one client at a time (sharedEventsActiveNbr < 2);
 * a client holds at most ANE_FILE_MAX_WAITING waiting requests and the
 * device ANE_DEV_MAX_WAITING.
 *
 * A fence that has not signaled yet is the completion fence of a request
 * held by the shared event: ringing it releases both, in order.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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

/* A control client with the test program prepared, one input, two outputs. */
struct prog {
	struct client c;
	struct surf in, out, out2;
	uint64_t tok;
};

static int prog_open(struct prog *p)
{
	struct drm_ane_program_prepare pp;

	if (ctl_open(&p->c) || surface(p->c.fd, 12, &p->in) ||
	    surface(p->c.fd, 8, &p->out) || surface(p->c.fd, 8, &p->out2)) {
		t_case_failed = 1;
		return -1;
	}
	build_image(img, W);
	p->tok = 0;
	if (create(p->c.fd, img, IMG_SIZE, &p->tok) ||
	    prepare(p->c.fd, p->tok, &pp)) {
		printf("#   program: %s\n", strerror(errno));
		t_case_failed = 1;
		return -1;
	}
	fill_input(&p->in);
	memset(p->out.p, 0, 8);
	memset(p->out2.p, 0, 8);
	return 0;
}

static int method(int fd, uint32_t m, uint64_t value, uint64_t *result)
{
	struct drm_ane_method_args a = { .method = m, .value = value };
	int ret = ioctl(fd, DRM_IOCTL_ANE_METHOD, &a);

	if (!ret && result)
		*result = a.result;
	return ret;
}

static int activate(int fd)
{
	uint64_t id = 0;

	if (method(fd, ANE_METHOD_SHARED_EVENT_ACTIVATE, 0, &id))
		return -1;
	return id == ANE_SHARED_EVENT_ID ? 0 : (errno = EPROTO, -1);
}

static int deactivate(int fd)
{
	return method(fd, ANE_METHOD_SHARED_EVENT_DEACTIVATE,
		      ANE_SHARED_EVENT_ID, NULL);
}

static int ring(int fd, uint64_t *rings)
{
	return method(fd, ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING,
		      ANE_DOORBELL_SHARED_EVENT(ANE_SHARED_EVENT_ID), rings);
}

static uint32_t syncobj(int fd)
{
	struct drm_syncobj_create scr = { 0 };

	if (ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &scr)) {
		t_case_failed = 1;
		return 0;
	}
	return scr.handle;
}

/* A reference of an event kind. */
static struct drm_ane_surface_ref ref(uint32_t handle, uint8_t kind)
{
	return (struct drm_ane_surface_ref){ .handle = handle, .kind = kind };
}

/* A request reading @in, writing @out, with the @n event entries @ev. */
static int send_ev(struct prog *p, uint32_t out,
		   const struct drm_ane_surface_ref *ev, unsigned int n,
		   uint64_t *seqno)
{
	return submit_refs(p->c.fd, p->tok, p->in.handle, out, ev, n, seqno);
}

static long long waiting(void)
{
	return vm_fw_status(node, "waiting calls: ");
}

/* Until the firmware holds @n calls (up to 3 s); the last count seen. */
static long long waiting_becomes(long long n)
{
	long long w = -1;
	int i;

	for (i = 0; i < 150; i++) {
		w = waiting();
		if (w == n)
			break;
		usleep(20000);
	}
	return w;
}

/* No completion for @ms: nothing ran. */
static int quiet(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms);
}

static int inject(const char *what)
{
	char path[512];

	if (vm_debugfs_path(node, "fw_inject", path, sizeof(path)))
		return -1;
	return vm_write_file(path, what);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The held pair: R1 (into @p's out) waits for the shared event, which
 * this activates, and signals syncobj *@a; R2 (into out2) waits for *@a.
 * 0, or -1 with the case failed.
 */
static int held_pair(struct prog *p, uint32_t *a, uint64_t *s1, uint64_t *s2)
{
	struct drm_ane_surface_ref ev[2];

	if (activate(p->c.fd)) {
		t_case_failed = 1;
		return -1;
	}
	*a = syncobj(p->c.fd);
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	ev[1] = ref(*a, ANE_SURFACE_OUT_SYNCOBJ);
	if (send_ev(p, p->out.handle, ev, 2, s1))
		return t_case_failed = 1, -1;
	ev[0] = ref(*a, ANE_SURFACE_IN_SYNCOBJ);
	if (send_ev(p, p->out2.handle, ev, 1, s2))
		return t_case_failed = 1, -1;
	return 0;
}

/*
 * R1 waits for the shared event and signals syncobj A; R2 waits for A.
 * Neither runs (no completion, the outputs untouched, two calls held by
 * the firmware) until the ring; then R1 completes before R2, both after
 * the ring, with the right results.
 */
static void a_request_runs_only_after_its_fence(void)
{
	struct drm_ane_event_complete e1, e2;
	struct drm_ane_surface_ref ev[2];
	uint64_t s1 = 0, s2 = 0, rings = 0, t_ring, t_end;
	struct prog p;
	uint32_t a;

	if (prog_open(&p) || held_pair(&p, &a, &s1, &s2))
		return;
	T_EQ(quiet(p.c.fd, 300), 0);
	T_EQ(waiting(), 2);
	T_EQ(p.out.p[0], 0);
	T_EQ(p.out2.p[0], 0);

	t_ring = now_ns();
	T_OK(ring(p.c.fd, &rings));
	T_EQ(rings, 1);
	T_OK(wait_event(p.c.fd, &e1));
	T_OK(wait_event(p.c.fd, &e2));
	t_end = now_ns();
	T_EQ(e1.seqno, s1);
	T_EQ(e2.seqno, s2);
	T_EQ(e1.status, 0);
	T_EQ(e2.status, 0);
	T_CHECK(t_end > t_ring, "completions after the ring");
	T_CHECK(!check_out(&p.out, OUT), "R1 result");
	T_CHECK(!check_out(&p.out2, OUT), "R2 result");
	T_EQ(waiting(), 0);

	/* a fence that has signaled already is no wait: R3 runs at once */
	ev[0] = ref(a, ANE_SURFACE_IN_SYNCOBJ);
	T_OK(send_ev(&p, p.out2.handle, ev, 1, &s2));
	T_OK(wait_event(p.c.fd, &e2));
	T_EQ(e2.seqno, s2);
	T_EQ(e2.status, 0);
	T_OK(deactivate(p.c.fd));
	close(p.c.fd);
}

/*
 * Wait + signal events of a request: 16 hold (16 signals; 16 waits), 17
 * of any mix are -E2BIG; the entries are checked.
 */
static void sixteen_events_hold_seventeen_are_e2big(void)
{
	struct drm_ane_surface_ref ev[18];
	struct drm_ane_event_complete e;
	uint64_t s1 = 0, s2 = 0;
	uint32_t h[17];
	struct prog p;
	unsigned int i;

	if (prog_open(&p))
		return;
	T_OK(activate(p.c.fd));
	for (i = 0; i < 17; i++)
		h[i] = syncobj(p.c.fd);

	/* 17: the shared event and 16 signals */
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	for (i = 0; i < 16; i++)
		ev[1 + i] = ref(h[i], ANE_SURFACE_OUT_SYNCOBJ);
	T_ERRNO(send_ev(&p, p.out.handle, ev, 17, NULL), E2BIG);
	/* 16: the shared event and 15 signals */
	T_OK(send_ev(&p, p.out.handle, ev, 16, &s1));
	/* 16 waits: the 15 fences of R1 and the shared event */
	for (i = 0; i < 15; i++)
		ev[i] = ref(h[i], ANE_SURFACE_IN_SYNCOBJ);
	ev[15] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	/* 17: one more wait, or one more signal */
	ev[16] = ref(h[15], ANE_SURFACE_IN_SYNCOBJ);
	T_ERRNO(send_ev(&p, p.out2.handle, ev, 17, NULL), E2BIG);
	ev[16] = ref(h[16], ANE_SURFACE_OUT_SYNCOBJ);
	T_ERRNO(send_ev(&p, p.out2.handle, ev, 17, NULL), E2BIG);
	T_OK(send_ev(&p, p.out2.handle, ev, 16, &s2));
	T_EQ(waiting_becomes(2), 2);

	/* the entries: no fence, no syncobj, a bar, two shared events */
	ev[0] = ref(h[16], ANE_SURFACE_IN_SYNCOBJ);
	T_ERRNO(send_ev(&p, p.out2.handle, ev, 1, NULL), EINVAL);
	ev[0] = ref(0xdead, ANE_SURFACE_IN_SYNCOBJ);
	T_ERRNO(send_ev(&p, p.out2.handle, ev, 1, NULL), ENOENT);
	ev[0] = ref(h[0], ANE_SURFACE_IN_SYNCOBJ);
	ev[0].bar = 1;
	T_ERRNO(send_ev(&p, p.out2.handle, ev, 1, NULL), EINVAL);
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	ev[1] = ev[0];
	T_ERRNO(send_ev(&p, p.out2.handle, ev, 2, NULL), EINVAL);
	ev[0] = ref(2, ANE_SURFACE_IN_SHARED_EVENT);
	T_ERRNO(send_ev(&p, p.out2.handle, ev, 1, NULL), ENOENT);
	T_EQ(waiting(), 2);

	T_OK(ring(p.c.fd, NULL));
	T_OK(wait_event(p.c.fd, &e));
	T_EQ(e.seqno, s1);
	T_EQ(e.status, 0);
	T_OK(wait_event(p.c.fd, &e));
	T_EQ(e.seqno, s2);
	T_EQ(e.status, 0);
	T_CHECK(!check_out(&p.out2, OUT), "result of the 16 waits");
	T_EQ(waiting(), 0);
	T_OK(deactivate(p.c.fd));
	close(p.c.fd);
}

/*
 * R1 hangs on the engine and its deadline ends it with -ETIMEDOUT; R2,
 * waiting for R1's fence, fails with that error and never runs.  A
 * shared event deactivated under a waiting request fails it with
 * -ECANCELED.
 */
static void a_failed_fence_fails_the_request(void)
{
	struct drm_ane_event_complete e1, e2;
	struct drm_ane_surface_ref ev[2];
	uint64_t s1 = 0, s2 = 0;
	struct prog p;
	unsigned int q;
	char cmd[32];
	uint32_t a;

	if (prog_open(&p) || held_pair(&p, &a, &s1, &s2))
		return;
	T_EQ(waiting_becomes(2), 2);
	for (q = 0; q < 8; q++) {
		snprintf(cmd, sizeof(cmd), "hang %u", q);
		T_OK(inject(cmd));
	}
	T_OK(inject("deadline 200"));
	T_OK(ring(p.c.fd, NULL));
	T_OK(wait_event(p.c.fd, &e1));
	T_OK(wait_event(p.c.fd, &e2));
	T_OK(inject("unhang"));
	T_OK(inject("deadline 2000"));
	T_EQ(e1.seqno, s1);
	T_EQ(e1.status, -ETIMEDOUT);
	T_EQ(e2.seqno, s2);
	T_EQ(e2.status, -ETIMEDOUT);
	T_EQ(p.out2.p[0], 0);
	T_EQ(waiting(), 0);

	/* deactivated under the wait: -ECANCELED */
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	T_OK(send_ev(&p, p.out.handle, ev, 1, &s1));
	T_EQ(waiting_becomes(1), 1);
	T_OK(deactivate(p.c.fd));
	T_OK(wait_event(p.c.fd, &e1));
	T_EQ(e1.seqno, s1);
	T_EQ(e1.status, -ECANCELED);
	T_EQ(waiting(), 0);
	/* the program still runs */
	T_OK(submit(p.c.fd, p.tok, p.in.handle, p.out2.handle, 0, NULL));
	T_OK(wait_event(p.c.fd, &e2));
	T_EQ(e2.status, 0);
	T_CHECK(!check_out(&p.out2, OUT), "result after the failures");
	close(p.c.fd);
}

/*
 * A child process waits for the parent's fence (a syncobj passed as an
 * fd) and exits while it waits: its waits are cancelled, the firmware
 * holds nothing of it, and the parent's request still runs at the ring.
 * A child exiting with the shared event active frees it.
 */
static void a_client_exiting_while_it_waits_leaks_nothing(void)
{
	struct drm_syncobj_handle sh = { 0 };
	struct drm_ane_event_complete e;
	struct drm_ane_surface_ref ev[2];
	int status = -1, pfd[2];
	struct prog p;
	uint64_t s1 = 0;
	uint32_t a;
	pid_t pid;
	char c;

	if (prog_open(&p))
		return;
	T_OK(activate(p.c.fd));
	a = syncobj(p.c.fd);
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	ev[1] = ref(a, ANE_SURFACE_OUT_SYNCOBJ);
	T_OK(send_ev(&p, p.out.handle, ev, 2, &s1));
	sh.handle = a;
	T_OK(ioctl(p.c.fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sh));
	T_OK(pipe(pfd));

	pid = fork();
	if (pid == 0) {
		struct drm_syncobj_handle ch = { .fd = sh.fd };
		struct prog q;
		int i, bad = 0;

		if (prog_open(&q) ||
		    ioctl(q.c.fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &ch))
			_exit(2);
		ev[0] = ref(ch.handle, ANE_SURFACE_IN_SYNCOBJ);
		for (i = 0; i < 3; i++)
			bad |= send_ev(&q, q.out.handle, ev, 1, NULL) != 0;
		/* the parent sees them held (or not), then kills the child */
		if (write(pfd[1], bad ? "n" : "y", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(sh.fd);
	T_CHECK(pid > 0, "fork");
	if (pid <= 0)
		return;
	T_EQ(read(pfd[0], &c, 1), 1);
	T_EQ(c, 'y');
	T_EQ(waiting_becomes(4), 4);
	kill(pid, SIGKILL);
	T_EQ(waitpid(pid, &status, 0), pid);
	close(pfd[0]);
	close(pfd[1]);
	T_EQ(waiting_becomes(1), 1);
	T_OK(ring(p.c.fd, NULL));
	T_OK(wait_event(p.c.fd, &e));
	T_EQ(e.seqno, s1);
	T_EQ(e.status, 0);
	T_EQ(waiting(), 0);
	T_OK(deactivate(p.c.fd));

	/* a child holding the shared event, with a request waiting on it */
	pid = fork();
	if (pid == 0) {
		struct prog q;

		ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
		if (prog_open(&q) || activate(q.c.fd) ||
		    send_ev(&q, q.out.handle, ev, 1, NULL))
			_exit(2);
		_exit(0);
	}
	T_EQ(waitpid(pid, &status, 0), pid);
	T_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child: %d", status);
	T_EQ(waiting_becomes(0), 0);
	T_OK(activate(p.c.fd));
	T_OK(deactivate(p.c.fd));
	close(p.c.fd);
}

/* @h of @from's file as a handle of @to's: the same syncobj, shared. */
static uint32_t syncobj_share(int from, uint32_t h, int to)
{
	struct drm_syncobj_handle e = { .handle = h }, i = { 0 };

	if (ioctl(from, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &e)) {
		t_case_failed = 1;
		return 0;
	}
	i.fd = e.fd;
	if (ioctl(to, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &i))
		t_case_failed = 1;
	close(e.fd);
	return i.handle;
}

/*
 * A client holds ANE_FILE_MAX_WAITING requests with wait events (one more
 * is -EDQUOT), the device ANE_DEV_MAX_WAITING (one more, from a client
 * with room of its own, is -EBUSY): no client takes every held call, and
 * the firmware's request objects are never all held.  P's requests wait
 * for its shared event (the first also signals syncobj A), Q's for A; a
 * request without events still runs meanwhile, and the ring releases all.
 */
static void a_client_holds_16_and_the_device_32_waiting_requests(void)
{
	struct drm_ane_surface_ref ev[2];
	struct drm_ane_event_complete e;
	uint64_t s = 0, plain = 0;
	struct prog p, q, r;
	unsigned int i, np = 0, nq = 0;
	uint32_t a, b, c;

	if (prog_open(&p) || prog_open(&q) || prog_open(&r))
		return;
	T_OK(activate(p.c.fd));
	a = syncobj(p.c.fd);
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	ev[1] = ref(a, ANE_SURFACE_OUT_SYNCOBJ);
	T_OK(send_ev(&p, p.out.handle, ev, 2, NULL));
	for (i = 1; i < ANE_FILE_MAX_WAITING; i++)
		T_OK(send_ev(&p, p.out.handle, ev, 1, NULL));
	T_ERRNO(send_ev(&p, p.out.handle, ev, 1, NULL), EDQUOT);

	b = syncobj_share(p.c.fd, a, q.c.fd);
	ev[0] = ref(b, ANE_SURFACE_IN_SYNCOBJ);
	for (i = 0; i < ANE_DEV_MAX_WAITING - ANE_FILE_MAX_WAITING; i++)
		T_OK(send_ev(&q, q.out.handle, ev, 1, NULL));
	T_EQ(waiting_becomes(ANE_DEV_MAX_WAITING), ANE_DEV_MAX_WAITING);
	c = syncobj_share(p.c.fd, a, r.c.fd);
	ev[0] = ref(c, ANE_SURFACE_IN_SYNCOBJ);
	T_ERRNO(send_ev(&r, r.out.handle, ev, 1, NULL), EBUSY);

	T_OK(submit(r.c.fd, r.tok, r.in.handle, r.out2.handle, 0, &plain));
	T_OK(wait_event(r.c.fd, &e));
	T_EQ(e.seqno, plain);
	T_EQ(e.status, 0);
	T_OK(ring(p.c.fd, NULL));
	for (i = 0; i < ANE_FILE_MAX_WAITING; i++) {
		T_OK(wait_event(p.c.fd, &e));
		np += !e.status;
	}
	for (i = 0; i < ANE_DEV_MAX_WAITING - ANE_FILE_MAX_WAITING; i++) {
		T_OK(wait_event(q.c.fd, &e));
		nq += !e.status;
	}
	T_EQ(np, ANE_FILE_MAX_WAITING);
	T_EQ(nq, ANE_DEV_MAX_WAITING - ANE_FILE_MAX_WAITING);
	T_EQ(waiting_becomes(0), 0);
	/* completed: room again at once, for the client and the device */
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	T_OK(send_ev(&p, p.out.handle, ev, 1, &s));
	T_OK(ring(p.c.fd, NULL));
	T_OK(wait_event(p.c.fd, &e));
	T_EQ(e.seqno, s);
	T_OK(deactivate(p.c.fd));
	close(p.c.fd);
	close(q.c.fd);
	close(r.c.fd);
}

/*
 * libane: ane_shared_event_*() and ane_request_submit_events(): a request
 * waiting for the ring is pending until it, and the errors carry their
 * messages.
 */
static void libane_waits_and_rings(void)
{
	struct ane_request_event ev[ANE_REQ_MAX_EVENTS + 1];
	struct ane_surface *in = NULL, *out = NULL;
	struct ane_program *prog = NULL;
	struct ane_dev *dev = NULL, *other = NULL;
	uint64_t seqno = 0, rings = 0;
	uint32_t id = 0, id2 = 0;
	unsigned int i;
	int st = 0;

	T_OK(ane_open(node, ANE_KIND_CONTROL, &dev, NULL, 0));
	T_OK(ane_open(node, ANE_KIND_CONTROL, &other, NULL, 0));
	if (!dev || !other)
		return;
	build_image(img, W);
	T_OK(ane_program_create(dev, img, IMG_SIZE, &prog));
	T_OK(ane_program_prepare(prog));
	T_OK(ane_surface_create(dev, 12, &in));
	T_OK(ane_surface_create(dev, 8, &out));
	if (!prog || !in || !out)
		goto out;
	for (i = 0; i < 6; i++)
		((uint16_t *)ane_surface_map(in))[i] = h16(A[i]);
	memset(ane_surface_map(out), 0, 8);

	T_OK(ane_shared_event_activate(dev, &id));
	T_EQ(id, ANE_SHARED_EVENT_ID);
	T_EQ(ane_shared_event_activate(other, &id2), -EBUSY);
	T_CHECK(strstr(ane_errmsg(other), "sharedEventsActiveNbr"), "%s",
		ane_errmsg(other));
	ev[0] = (struct ane_request_event){ ANE_SURFACE_IN_SHARED_EVENT, id };
	T_OK(ane_request_submit_events(prog, 0, &in, 1, &out, 1, ev, 1,
				       ANE_WAIT_FOREVER, &seqno));
	T_EQ(ane_request_wait(dev, seqno, ane_deadline_ns(200000000ull), &st,
			      NULL), -ETIMEDOUT);
	T_EQ(st, ANE_REQUEST_PENDING);
	T_OK(ane_shared_event_ring(dev, id, &rings));
	T_EQ(rings, 1);
	T_EQ(ane_request_wait(dev, seqno, ane_deadline_ns(10000000000ull), &st,
			      NULL), 0);
	T_EQ(((uint16_t *)ane_surface_map(out))[0], h16(OUT[0]));

	for (i = 0; i <= ANE_REQ_MAX_EVENTS; i++)
		ev[i] = ev[0];
	T_EQ(ane_request_submit_events(prog, 0, &in, 1, &out, 1, ev,
				       ANE_REQ_MAX_EVENTS + 1, ANE_WAIT_FOREVER,
				       &seqno), -E2BIG);
	T_CHECK(strstr(ane_errmsg(dev), "ANE_REQ_MAX_EVENTS"), "%s",
		ane_errmsg(dev));
	ev[0] = (struct ane_request_event){ ANE_SURFACE_IN_SYNCOBJ, 0xdead };
	T_EQ(ane_request_submit_events(prog, 0, &in, 1, &out, 1, ev, 1,
				       ANE_WAIT_FOREVER, &seqno), -ENOENT);
	T_CHECK(strstr(ane_errmsg(dev), "syncobj"), "%s", ane_errmsg(dev));
	T_EQ(ane_shared_event_ring(other, id, NULL), -ENOENT);
	T_OK(ane_shared_event_deactivate(dev, id));
	T_OK(ane_shared_event_activate(other, &id2));
	T_OK(ane_shared_event_deactivate(other, id2));
out:
	ane_surface_destroy(in);
	ane_surface_destroy(out);
	ane_program_destroy(prog);
	ane_close(dev);
	ane_close(other);
}

/*
 * The direct path's SendRequest takes wait events too: a direct-path
 * client with the program attached waits for its own shared event and
 * for the fence of its first request, and runs after its ring.
 */
static void direct_path_requests_wait_too(void)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
	struct drm_ane_program_export ex = { 0 };
	struct drm_ane_program_attach at = { 0 };
	struct drm_ane_event_complete e1, e2;
	struct drm_ane_surface_ref ev[2];
	uint64_t s1 = 0, s2 = 0;
	struct prog owner, dp;
	uint32_t a;
	int i;

	if (prog_open(&owner))
		return;
	ex.token = owner.tok;
	T_OK(ioctl(owner.c.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex));
	memset(&dp, 0, sizeof(dp));
	dp.c.fd = open(node, O_RDWR | O_CLOEXEC);
	T_OK(ioctl(dp.c.fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op));
	at.fd = ex.fd;
	T_OK(ioctl(dp.c.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at));
	close(ex.fd);
	dp.tok = at.token;
	T_OK(surface(dp.c.fd, 12, &dp.in));
	T_OK(surface(dp.c.fd, 8, &dp.out));
	T_OK(surface(dp.c.fd, 8, &dp.out2));
	if (t_case_failed)
		return;
	fill_input(&dp.in);
	memset(dp.out.p, 0, 8);
	memset(dp.out2.p, 0, 8);
	T_OK(activate(dp.c.fd));
	a = syncobj(dp.c.fd);
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	ev[1] = ref(a, ANE_SURFACE_OUT_SYNCOBJ);
	for (i = 0; i < 2; i++) {
		memset(&sr, 0, sizeof(sr));
		sr.in.token = dp.tok;
		sr.in.qos_class = 5;
		sr.in.exec_priority = 21;
		sr.in.io_category = 2;
		sr.in.surfaces[0] = ref(dp.in.handle, ANE_SURFACE_INPUT);
		sr.in.surfaces[1] = ref(i ? dp.out2.handle : dp.out.handle,
					ANE_SURFACE_OUTPUT);
		sr.in.surfaces[2] = i ? ref(a, ANE_SURFACE_IN_SYNCOBJ) : ev[0];
		if (!i)
			sr.in.surfaces[3] = ev[1];
		T_OK(ioctl(dp.c.fd, DRM_IOCTL_ANE_DP_SEND_REQUEST, &sr));
		*(i ? &s2 : &s1) = sr.out.seqno;
	}
	T_EQ(quiet(dp.c.fd, 200), 0);
	T_EQ(waiting(), 2);
	T_OK(ring(dp.c.fd, NULL));
	T_OK(wait_event(dp.c.fd, &e1));
	T_OK(wait_event(dp.c.fd, &e2));
	T_EQ(e1.seqno, s1);
	T_EQ(e2.seqno, s2);
	T_EQ(e1.status, 0);
	T_EQ(e2.status, 0);
	T_CHECK(!check_out(&dp.out2, OUT), "direct-path result");
	T_OK(deactivate(dp.c.fd));
	close(dp.c.fd);
	close(owner.c.fd);
}

/*
 * A fence that does not end within wait_timeout_ms fails its waiter with
 * -ETIMEDOUT (the wait on the shared event has no bound: its owner
 * rings or deactivates it); the request it waited for still runs.
 */
static void a_fence_that_does_not_end_times_out(void)
{
	const char *param = "/sys/module/ane/parameters/wait_timeout_ms";
	struct drm_ane_event_complete e1, e2;
	uint64_t s1 = 0, s2 = 0, t0;
	struct prog p;
	uint32_t a;

	if (prog_open(&p))
		return;
	T_OK(vm_write_file(param, "300"));
	if (held_pair(&p, &a, &s1, &s2))
		goto out;
	t0 = now_ns();
	T_OK(wait_event(p.c.fd, &e2));
	T_EQ(e2.seqno, s2);
	T_EQ(e2.status, -ETIMEDOUT);
	T_CHECK(now_ns() - t0 >= 250000000ull, "timed out after %llu ms",
		(unsigned long long)((now_ns() - t0) / 1000000));
	T_EQ(p.out2.p[0], 0);
	T_EQ(waiting(), 1);
	T_OK(ring(p.c.fd, NULL));
	T_OK(wait_event(p.c.fd, &e1));
	T_EQ(e1.seqno, s1);
	T_EQ(e1.status, 0);
	T_OK(deactivate(p.c.fd));
out:
	T_OK(vm_write_file(param, "10000"));
	close(p.c.fd);
}

/*
 * A request whose fence ended releases with its wait timeout cancelled:
 * both requests of a held pair complete at the ring, the client goes,
 * and the timeout (200 ms) passes with nothing left to fire.  The
 * release skips those cancels for requests that never armed them (most
 * of them); one that did and skipped them frees an armed timer, which
 * the debug kernel reports (check-vm-debug: "ODEBUG: free active ...
 * ane_request_wait_timeout", checked with waits_armed never set) and
 * which fires here into freed memory.  The device then still runs a
 * request, and nothing waits.
 */
static void a_released_request_leaves_no_timeout(void)
{
	const char *param = "/sys/module/ane/parameters/wait_timeout_ms";
	struct drm_ane_event_complete e1, e2;
	uint64_t s1 = 0, s2 = 0;
	struct prog p, q;
	uint32_t a;

	if (prog_open(&p))
		return;
	T_OK(vm_write_file(param, "200"));
	if (held_pair(&p, &a, &s1, &s2))
		goto out;
	T_OK(ring(p.c.fd, NULL));
	T_OK(wait_event(p.c.fd, &e1));
	T_OK(wait_event(p.c.fd, &e2));
	T_EQ(e1.seqno, s1);
	T_EQ(e1.status, 0);
	T_EQ(e2.seqno, s2);
	T_EQ(e2.status, 0);
	T_OK(deactivate(p.c.fd));
	close(p.c.fd);
	usleep(500000);
	T_EQ(waiting(), 0);
	if (!prog_open(&q)) {
		T_OK(send_ev(&q, q.out.handle, NULL, 0, &s1));
		T_OK(wait_event(q.c.fd, &e1));
		T_EQ(e1.seqno, s1);
		T_EQ(e1.status, 0);
		close(q.c.fd);
	}
	T_OK(vm_write_file(param, "10000"));
	return;
out:
	T_OK(vm_write_file(param, "10000"));
	close(p.c.fd);
}

/* READY within 10 s. */
static int wait_ready(void)
{
	struct drm_ane_get_status st;
	struct client c;
	int i;

	for (i = 0; i < 500; i++) {
		if (!ctl_open(&c)) {
			memset(&st, 0, sizeof(st));
			if (!ioctl(c.fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &st) &&
			    st.out.fw_state == ANE_FW_STATE_READY) {
				close(c.fd);
				return 0;
			}
			close(c.fd);
		}
		usleep(20000);
	}
	return -1;
}

/*
 * A firmware crash while requests wait ends them with the reset's error;
 * the client's held calls are its again (16 wait, the 17th is -EDQUOT);
 * the shared event stays active through the recovery and releases them
 * at its ring.
 */
static void a_crash_while_requests_wait(void)
{
	struct drm_ane_event_complete e1, e2;
	struct drm_ane_surface_ref ev[2];
	uint64_t s1 = 0, s2 = 0;
	unsigned int i;
	struct prog p;
	uint32_t a;

	if (prog_open(&p) || held_pair(&p, &a, &s1, &s2))
		return;
	T_EQ(waiting_becomes(2), 2);
	T_OK(inject("crash"));
	T_OK(wait_event(p.c.fd, &e1));
	T_OK(wait_event(p.c.fd, &e2));
	T_EQ(e1.status, -EIO);
	T_EQ(e2.status, -EIO);
	T_OK(wait_ready());
	T_EQ(waiting(), 0);

	/* the crash gave back the client's held calls: all 16 are its again */
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	T_OK(send_ev(&p, p.out.handle, ev, 1, &s1));
	for (i = 1; i < ANE_FILE_MAX_WAITING; i++)
		T_OK(send_ev(&p, p.out2.handle, ev, 1, NULL));
	T_ERRNO(send_ev(&p, p.out2.handle, ev, 1, NULL), EDQUOT);
	T_EQ(quiet(p.c.fd, 200), 0);
	T_EQ(waiting_becomes(ANE_FILE_MAX_WAITING), ANE_FILE_MAX_WAITING);
	T_OK(ring(p.c.fd, NULL));
	for (i = 0; i < ANE_FILE_MAX_WAITING; i++) {
		T_OK(wait_event(p.c.fd, &e1));
		T_EQ(e1.status, 0);
		if (e1.seqno == s1)
			T_CHECK(!check_out(&p.out, OUT), "result after the recovery");
	}
	T_EQ(waiting_becomes(0), 0);
	T_OK(deactivate(p.c.fd));
	close(p.c.fd);
}

/*
 * sharedEventsActiveNbr < 2: the first activation succeeds, a second
 * (any client) is -EBUSY until the first is deactivated; only the owner
 * rings, deactivates or waits on it (-ENOENT); the data-chaining
 * capability gates activation (-EPERM).
 */
static void one_shared_event_at_a_time(void)
{
	struct drm_ane_caps_drop cd = { .drop = ANE_CAP_DATA_CHAINING };
	struct drm_ane_surface_ref ev[1];
	struct prog p1, p2;
	uint64_t rings = 0;

	if (prog_open(&p1) || prog_open(&p2))
		return;
	T_ERRNO(method(p1.c.fd, ANE_METHOD_SHARED_EVENT_ACTIVATE, 1, NULL), EINVAL);
	T_OK(activate(p1.c.fd));
	T_ERRNO(activate(p1.c.fd), EBUSY);
	T_ERRNO(activate(p2.c.fd), EBUSY);
	T_ERRNO(ring(p2.c.fd, NULL), ENOENT);
	T_ERRNO(deactivate(p2.c.fd), ENOENT);
	ev[0] = ref(ANE_SHARED_EVENT_ID, ANE_SURFACE_IN_SHARED_EVENT);
	T_ERRNO(send_ev(&p2, p2.out.handle, ev, 1, NULL), ENOENT);
	T_ERRNO(method(p1.c.fd, ANE_METHOD_SHARED_EVENT_DEACTIVATE, 2, NULL), ENOENT);
	T_ERRNO(method(p1.c.fd, ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING,
		       ANE_DOORBELL_SHARED_EVENT(2), NULL), ENOENT);
	T_OK(ring(p1.c.fd, &rings));
	T_OK(ring(p1.c.fd, &rings));
	T_EQ(rings, 2);
	T_OK(deactivate(p1.c.fd));
	T_ERRNO(deactivate(p1.c.fd), ENOENT);
	T_ERRNO(ring(p1.c.fd, NULL), ENOENT);
	T_OK(activate(p2.c.fd));
	T_OK(ring(p2.c.fd, &rings));
	T_EQ(rings, 1);
	T_ERRNO(activate(p1.c.fd), EBUSY);
	T_OK(deactivate(p2.c.fd));

	T_OK(ioctl(p1.c.fd, DRM_IOCTL_ANE_CAPS_DROP, &cd));
	T_ERRNO(activate(p1.c.fd), EPERM);
	T_OK(activate(p2.c.fd));
	T_OK(deactivate(p2.c.fd));
	close(p1.c.fd);
	close(p2.c.fd);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "event"))
		return 1;
	T_RUN(a_request_runs_only_after_its_fence);
	T_RUN(sixteen_events_hold_seventeen_are_e2big);
	T_RUN(a_failed_fence_fails_the_request);
	T_RUN(a_client_exiting_while_it_waits_leaks_nothing);
	T_RUN(one_shared_event_at_a_time);
	T_RUN(a_client_holds_16_and_the_device_32_waiting_requests);
	T_RUN(libane_waits_and_rings);
	T_RUN(direct_path_requests_wait_too);
	T_RUN(a_fence_that_does_not_end_times_out);
	T_RUN(a_released_request_leaves_no_timeout);
	T_RUN(a_crash_while_requests_wait);
	return t_summary("event");
}
