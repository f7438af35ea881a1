// SPDX-License-Identifier: MIT
/*
 * Host tests of libane's retry policy (lib/ane_retry.c): the pure policy
 * step by step -- EINTR restarted, EAGAIN backed off from 50 us doubling
 * to 4 ms, EBUSY polled where the call allows it, nothing past the
 * deadline -- and the calls over a fake device: every ioctl answered by a
 * hook (ane__ioctl_hook), surfaces mapped from a memfd, completion events
 * written into a pipe.  A firmware that stays DEAD or RECOVERING makes
 * each call give up at its deadline with the documented errno and a
 * message naming the node, the call and the state, having slept rather
 * than spun; a full queue is waited out by polling for the completion.
 * ane_request_wait()'s completion watch: set by ANE_WAIT_SPIN_US, backed
 * off after watches that saw nothing, reset by one that saw its event.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "ane_internal.h"

#define MS	1000000ull
#define US	1000ull
/*
 * How long past its deadline a call may return: the check is that it
 * gives up at the deadline rather than never, and on a loaded two-CPU
 * machine (a full `make check` runs VMs beside these tests, under ASan
 * too) a 4 ms sleep has overshot by over 100 ms.
 */
#define LATE	(1000 * MS)

/* ------------------------------------------------------------ the policy */

static void backoff_doubles_to_its_cap_and_stops_at_the_deadline(void)
{
	static const uint64_t want[] = {
		50 * US, 100 * US, 200 * US, 400 * US, 800 * US, 1600 * US,
		3200 * US, 6400 * US, 12800 * US, 25600 * US, 50 * MS, 50 * MS,
		50 * MS,
	};
	struct ane__retry r;
	uint64_t now = 1000 * MS, pause, slept = 0;
	unsigned int i, n = 0;

	ane__retry_init(&r, ANE__RETRY_EAGAIN, now, now + 2000 * MS, 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		T_EQ(ane__retry_step(&r, EAGAIN, now, &pause), ANE__SLEEP);
		T_EQ(pause, want[i]);
		now += pause;
	}
	/* Every pause is at most the cap and the last one ends on the deadline. */
	ane__retry_init(&r, ANE__RETRY_EAGAIN, 0, 2000 * MS, 0);
	now = 0;
	while (ane__retry_step(&r, EAGAIN, now, &pause) == ANE__SLEEP) {
		T_CHECK(pause > 0 && pause <= ANE__BACKOFF_MAX_NS, "pause %llu",
			(unsigned long long)pause);
		now += pause;
		slept += pause;
		if (++n > 10000)
			break;
	}
	T_EQ(now, 2000 * MS);
	T_EQ(slept, 2000 * MS);
	/*
	 * 2 s take the ten doublings (~100 ms) and then about 1.9 s / 50 ms
	 * attempts, not millions.
	 */
	T_CHECK(n >= 45 && n <= 52, "%u attempts in 2 s", n);
	T_EQ(r.n_again, n + 1);
	T_EQ(ane__retry_step(&r, EAGAIN, now + 1, &pause), ANE__GIVE_UP);
	T_EQ(pause, 0);
}

static void eintr_restarts_until_the_deadline(void)
{
	struct ane__retry r;
	uint64_t pause = 1;

	ane__retry_init(&r, 0, 0, 10 * MS, 0);
	T_EQ(ane__retry_step(&r, EINTR, 0, &pause), ANE__RESTART);
	T_EQ(pause, 0);
	T_EQ(ane__retry_step(&r, EINTR, 10 * MS - 1, &pause), ANE__RESTART);
	T_EQ(ane__retry_step(&r, EINTR, 10 * MS, &pause), ANE__GIVE_UP);
	T_EQ(r.n_intr, 3);
	/* Without ANE__RETRY_EAGAIN an EAGAIN is returned at once. */
	T_EQ(ane__retry_step(&r, EAGAIN, 0, &pause), ANE__GIVE_UP);
}

static void ebusy_polls_only_where_allowed_and_until_its_own_deadline(void)
{
	struct ane__retry r;
	uint64_t pause;

	ane__retry_init(&r, ANE__RETRY_EAGAIN, 0, 10000 * MS, 10000 * MS);
	T_EQ(ane__retry_step(&r, EBUSY, 0, &pause), ANE__GIVE_UP);

	/* Unprepare and destroy: EBUSY for 100 ms, EAGAIN for the timeout. */
	ane__retry_init(&r, ANE__RETRY_EAGAIN | ANE__RETRY_EBUSY, 0, 10000 * MS, 100 * MS);
	T_EQ(ane__retry_step(&r, EBUSY, 0, &pause), ANE__POLL);
	T_EQ(pause, 50 * US);
	T_EQ(ane__retry_step(&r, EBUSY, 100 * MS - 30 * US, &pause), ANE__POLL);
	T_EQ(pause, 30 * US);			/* clamped to the busy deadline */
	T_EQ(ane__retry_step(&r, EBUSY, 100 * MS, &pause), ANE__GIVE_UP);
	T_EQ(ane__retry_step(&r, EAGAIN, 100 * MS, &pause), ANE__SLEEP);
	T_EQ(r.n_busy, 3);
	T_EQ(r.n_again, 1);

	/* The busy deadline never outlasts the call's. */
	ane__retry_init(&r, ANE__RETRY_EBUSY, 0, 5 * MS, 100 * MS);
	T_EQ(r.busy_deadline, 5 * MS);
	T_EQ(ane__retry_step(&r, EBUSY, 5 * MS, &pause), ANE__GIVE_UP);
}

static void other_errnos_and_zero_timeouts_give_up_at_once(void)
{
	static const int errs[] = { EINVAL, ENOTTY, EIO, ENOENT, EBADFD, ENOMEM, ENODEV };
	struct ane__retry r;
	uint64_t pause;
	unsigned int i;

	ane__retry_init(&r, ANE__RETRY_EAGAIN | ANE__RETRY_EBUSY, 0, ANE_WAIT_FOREVER,
			ANE_WAIT_FOREVER);
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		T_EQ(ane__retry_step(&r, errs[i], 0, &pause), ANE__GIVE_UP);
	/* A zero timeout: one attempt. */
	ane__retry_init(&r, ANE__RETRY_EAGAIN | ANE__RETRY_EBUSY, 7, 7, 7);
	T_EQ(ane__retry_step(&r, EAGAIN, 7, &pause), ANE__GIVE_UP);
	T_EQ(ane__retry_step(&r, EBUSY, 7, &pause), ANE__GIVE_UP);
	/* No deadline: retried for ever, but never more than 4 ms apart. */
	ane__retry_init(&r, ANE__RETRY_EAGAIN, 0, ANE_WAIT_FOREVER, 0);
	for (i = 0; i < 100; i++) {
		T_EQ(ane__retry_step(&r, EAGAIN, UINT64_MAX - 1, &pause), ANE__SLEEP);
		T_CHECK(pause <= ANE__BACKOFF_MAX_NS, "pause %llu", (unsigned long long)pause);
	}
	T_EQ(ane__deadline(5, ANE_WAIT_FOREVER), ANE_WAIT_FOREVER);
	T_EQ(ane__deadline(5, 10), 15);
}

/* ------------------------------------------------------------ a fake device */

static struct {
	uint32_t fw_state;		/* what GetStatus reports */
	int send_err;			/* SEND_REQUEST fails with this ... */
	int send_fails;			/* ... this many times (-1: always) */
	int prepare_err;		/* ProgramPrepare fails with this, always */
	int version_err;		/* GetVersion fails with this, always */
	int close_err;			/* DeviceClose fails with this, always */
	int busy_until_read;		/* this errno (EBUSY, ENOBUFS) until the
					 * event was written and read */
	volatile int event_written;
	unsigned int n_send, n_prepare, n_status, n_other;
} fake;

static int fake_ioctl(int fd, unsigned long cmd, void *arg)
{
	if (cmd == DRM_IOCTL_ANE_CTL_GET_STATUS) {
		struct drm_ane_get_status *s = arg;

		fake.n_status++;
		s->out.fw_state = fake.fw_state;
		return 0;
	}
	if (cmd == DRM_IOCTL_ANE_CTL_SEND_REQUEST) {
		struct drm_ane_send_request *sr = arg;

		fake.n_send++;
		if (fake.busy_until_read) {
			int unread = 1;

			if (!fake.event_written || ioctl(fd, FIONREAD, &unread) || unread) {
				errno = fake.busy_until_read;
				return -1;
			}
		} else if (fake.send_fails) {
			if (fake.send_fails > 0)
				fake.send_fails--;
			errno = fake.send_err;
			return -1;
		}
		sr->out.seqno = 1000 + fake.n_send;
		sr->out.token = sr->in.token;
		return 0;
	}
	if (cmd == DRM_IOCTL_ANE_CTL_PROGRAM_CREATE) {
		struct drm_ane_program_create *pc = arg;

		*(uint64_t *)(uintptr_t)pc->token_ptr = 0x1234;
		return 0;
	}
	if (cmd == DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE) {
		fake.n_prepare++;
		if (fake.prepare_err) {
			errno = fake.prepare_err;
			return -1;
		}
		return 0;
	}
	if (cmd == DRM_IOCTL_ANE_CTL_GET_VERSION && fake.version_err) {
		errno = fake.version_err;
		return -1;
	}
	if ((cmd == DRM_IOCTL_ANE_CTL_DEVICE_CLOSE || cmd == DRM_IOCTL_ANE_DP_DEVICE_CLOSE) &&
	    fake.close_err) {
		errno = fake.close_err;
		return -1;
	}
	if (cmd == DRM_IOCTL_ANE_SURFACE_CREATE) {
		struct drm_ane_surface_create *sc = arg;

		sc->handle = 7;
		sc->offset = 0;
		return 0;
	}
	fake.n_other++;
	return 0;		/* DeviceClose, GEM_CLOSE, ProgramDestroy, ... */
}

/* A program and two surfaces on a fake device whose events come from *@wfd. */
struct rig {
	struct ane_dev *dev;
	struct ane_program *prog;
	struct ane_surface *in, *out;
	int wfd;
};

static int rig_up(struct rig *g, enum ane_client_kind kind)
{
	struct ane_img_header h;
	int mfd, p[2];

	memset(g, 0, sizeof(*g));
	memset((void *)&fake, 0, sizeof(fake));
	fake.fw_state = ANE_FW_STATE_DEAD;
	ane__ioctl_hook = fake_ioctl;
	mfd = memfd_create("fake-ane", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, 1 << 20) || ane_adopt_fd(mfd, kind, "/dev/accel/fake0", &g->dev))
		return -1;
	if (kind != ANE_KIND_CONTROL)
		return 0;
	/* A header that passes libane's own checks; the fake takes the rest. */
	memset(&h, 0, sizeof(h));
	h.magic = ANE_IMG_MAGIC;
	h.version_major = ANE_IMG_VERSION_MAJOR;
	h.image_size = sizeof(h);
	if (ane_program_create(g->dev, &h, sizeof(h), &g->prog) ||
	    ane_program_prepare(g->prog) || ane_surface_create(g->dev, 16, &g->in) ||
	    ane_surface_create(g->dev, 16, &g->out))
		return -1;
	/* The surfaces are mapped: from now on the file is a pipe of events. */
	if (pipe(p) || dup2(p[0], ane_fd(g->dev)) < 0)
		return -1;
	close(p[0]);
	g->wfd = p[1];
	return 0;
}

static void rig_down(struct rig *g)
{
	ane_surface_destroy(g->in);
	ane_surface_destroy(g->out);
	ane_program_destroy(g->prog);
	ane_close(g->dev);
	if (g->wfd > 0)
		close(g->wfd);
	ane__ioctl_hook = NULL;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

static void dead_firmware_fails_submit_at_the_deadline_without_spinning(void)
{
	struct rig g;
	uint64_t t0, c0, wall, cpu, seqno = 99;
	int ret;

	T_CHECK(!rig_up(&g, ANE_KIND_CONTROL), "rig: %s", ane_errmsg(g.dev));
	if (t_case_failed)
		goto out;
	fake.send_err = EAGAIN;
	fake.send_fails = -1;
	c0 = cpu_ns();
	t0 = ane__now_ns();
	ret = ane_request_submit_timeout(g.prog, 0, &g.in, 1, &g.out, 1,
					 ane_deadline_ns(300 * MS), &seqno);
	wall = ane__now_ns() - t0;
	cpu = cpu_ns() - c0;
	T_EQ(ret, -EIO);
	T_EQ(seqno, 99);
	T_CHECK(wall >= 300 * MS && wall < 300 * MS + LATE, "returned after %llu ms",
		(unsigned long long)(wall / MS));
	T_CHECK(cpu < wall / 5, "used %llu ms of CPU in %llu ms",
		(unsigned long long)(cpu / MS), (unsigned long long)(wall / MS));
	/* 300 ms of backoff is about 80 attempts (fewer when sleeps overshoot). */
	T_CHECK(fake.n_send >= 2 && fake.n_send <= 90, "%u attempts in 300 ms", fake.n_send);
	T_CHECK(strstr(ane_errmsg(g.dev),
		       "ane: /dev/accel/fake0: ProgramSendRequest (control selector 2) of token 0x1234") &&
		strstr(ane_errmsg(g.dev), ": firmware is dead (state DEAD); EAGAIN for 3") &&
		strstr(ane_errmsg(g.dev), ": EIO (the firmware's recovery gave up"),
		"message: %s", ane_errmsg(g.dev));
	/* The sequence number was not used up. */
	fake.send_fails = 0;
	T_EQ(ane_request_submit(g.prog, 0, &g.in, 1, &g.out, 1, &seqno), 0);
	T_EQ(seqno, 1000 + fake.n_send);
out:
	rig_down(&g);
}

static void recovering_beyond_the_timeout_is_eagain_naming_the_state(void)
{
	struct rig g;
	uint64_t t0, wall;

	T_CHECK(!rig_up(&g, ANE_KIND_CONTROL), "rig: %s", ane_errmsg(g.dev));
	if (t_case_failed)
		goto out;
	fake.fw_state = ANE_FW_STATE_RECOVERING;
	fake.send_err = EAGAIN;
	fake.send_fails = -1;
	T_EQ(ane_get_timeout(g.dev), ANE_TIMEOUT_DEFAULT_NS);
	ane_set_timeout(g.dev, 100 * MS);
	T_EQ(ane_get_timeout(g.dev), 100 * MS);
	t0 = ane__now_ns();
	T_EQ(ane_request_submit(g.prog, 0, &g.in, 1, &g.out, 1, NULL), -EAGAIN);
	wall = ane__now_ns() - t0;
	T_CHECK(wall >= 100 * MS && wall < 100 * MS + LATE, "returned after %llu ms",
		(unsigned long long)(wall / MS));
	T_CHECK(strstr(ane_errmsg(g.dev), ": firmware not ready (state RECOVERING); EAGAIN for ") &&
		strstr(ane_errmsg(g.dev), ": EAGAIN (the firmware is booting or recovering"),
		"message: %s", ane_errmsg(g.dev));
	/* ProgramPrepare is bounded by the handle's timeout too. */
	fake.prepare_err = EAGAIN;
	fake.fw_state = ANE_FW_STATE_DEAD;
	T_EQ(ane_program_unprepare(g.prog), 0);
	t0 = ane__now_ns();
	T_EQ(ane_program_prepare(g.prog), -EIO);
	wall = ane__now_ns() - t0;
	T_CHECK(wall >= 100 * MS && wall < 100 * MS + LATE, "prepare returned after %llu ms",
		(unsigned long long)(wall / MS));
	T_CHECK(strstr(ane_errmsg(g.dev), "ane: /dev/accel/fake0: ProgramPrepare (control selector 4)") &&
		strstr(ane_errmsg(g.dev), "firmware is dead (state DEAD)") &&
		strstr(ane_errmsg(g.dev), ": EIO ("), "message: %s", ane_errmsg(g.dev));
	/* And the control selectors. */
	fake.version_err = EAGAIN;
	T_EQ(ane_get_version(g.dev, NULL, NULL, NULL), -EIO);
	T_CHECK(strstr(ane_errmsg(g.dev), "GetVersion (control selector 10): firmware is dead (state DEAD)"),
		"message: %s", ane_errmsg(g.dev));
out:
	rig_down(&g);
}

static void a_transient_eagain_is_waited_out(void)
{
	struct ane_retry_counts rc;
	struct rig g;
	uint64_t seqno = 0;

	T_CHECK(!rig_up(&g, ANE_KIND_CONTROL), "rig: %s", ane_errmsg(g.dev));
	if (t_case_failed)
		goto out;
	fake.send_err = EAGAIN;
	fake.send_fails = 5;
	T_EQ(ane_request_submit(g.prog, 0, &g.in, 1, &g.out, 1, &seqno), 0);
	T_EQ(fake.n_send, 6);
	T_EQ(seqno, 1006);
	T_CHECK(ane_errmsg(g.dev)[0] == '\0', "message: %s", ane_errmsg(g.dev));
	/* EINTR is restarted at once. */
	fake.send_err = EINTR;
	fake.send_fails = 3;
	T_EQ(ane_request_submit(g.prog, 0, &g.in, 1, &g.out, 1, &seqno), 0);
	T_EQ(fake.n_send, 10);
	/* The handle counts what it waited out, by cause. */
	ane_get_retry_counts(g.dev, &rc);
	T_EQ(rc.again, 5);
	T_EQ(rc.intr, 3);
	T_EQ(rc.busy, 0);
	ane_get_retry_counts(NULL, &rc);
	T_EQ(rc.again + rc.intr + rc.busy, 0);
	/* A timeout of 0: one attempt, no retry. */
	ane_set_timeout(g.dev, 0);
	fake.send_err = EAGAIN;
	fake.send_fails = -1;
	fake.n_send = 0;
	T_EQ(ane_request_submit(g.prog, 0, &g.in, 1, &g.out, 1, &seqno), -EIO);
	T_EQ(fake.n_send, 1);
	/* Errors that are not transient are not retried. */
	fake.send_err = EINVAL;
	fake.n_send = 0;
	ane_set_timeout(g.dev, 1000 * MS);
	T_EQ(ane_request_submit(g.prog, 0, &g.in, 1, &g.out, 1, &seqno), -EINVAL);
	T_EQ(fake.n_send, 1);
out:
	rig_down(&g);
}

static void put_event(int wfd, uint64_t seqno)
{
	struct drm_ane_event_complete ev;

	memset(&ev, 0, sizeof(ev));
	ev.base.type = DRM_ANE_EVENT_REQUEST_COMPLETE;
	ev.base.length = sizeof(ev);
	ev.token = 0x1234;
	ev.seqno = seqno;
	T_EQ(write(wfd, &ev, sizeof(ev)), sizeof(ev));
}

static void *complete_later(void *arg)
{
	struct rig *g = arg;
	struct timespec ts = { 0, 100 * 1000000 };

	nanosleep(&ts, NULL);
	put_event(g->wfd, 555);
	fake.event_written = 1;
	return NULL;
}

static void a_full_queue_is_waited_out_by_polling_for_a_completion(void)
{
	struct ane_retry_counts rc;
	struct rig g;
	pthread_t th;
	uint64_t t0, wall, seqno = 0, c0, cpu;
	int st = 1;

	T_CHECK(!rig_up(&g, ANE_KIND_CONTROL), "rig: %s", ane_errmsg(g.dev));
	if (t_case_failed)
		goto out;
	fake.busy_until_read = EBUSY;
	T_EQ(pthread_create(&th, NULL, complete_later, &g), 0);
	c0 = cpu_ns();
	t0 = ane__now_ns();
	T_EQ(ane_request_submit_timeout(g.prog, 0, &g.in, 1, &g.out, 1,
					ane_deadline_ns(2000 * MS), &seqno), 0);
	wall = ane__now_ns() - t0;
	cpu = cpu_ns() - c0;
	pthread_join(th, NULL);
	T_CHECK(wall >= 90 * MS && wall < 100 * MS + LATE, "returned after %llu ms",
		(unsigned long long)(wall / MS));
	T_CHECK(cpu < wall / 5, "used %llu ms of CPU in %llu ms",
		(unsigned long long)(cpu / MS), (unsigned long long)(wall / MS));
	T_CHECK(fake.n_send <= 60, "%u attempts", fake.n_send);
	/* each refused attempt but the last was a wait, counted as busy */
	ane_get_retry_counts(g.dev, &rc);
	T_EQ(rc.busy, fake.n_send - 1);
	T_EQ(rc.again, 0);
	/* The completion it read while waiting is kept for its own wait. */
	T_EQ(ane_request_wait(g.dev, 555, 0, &st, NULL), 0);
	T_EQ(st, 0);

	/* Nothing completes: -EBUSY at the deadline, saying so. */
	fake.event_written = 0;
	fake.n_send = 0;
	t0 = ane__now_ns();
	T_EQ(ane_request_submit_timeout(g.prog, 0, &g.in, 1, &g.out, 1,
					ane_deadline_ns(100 * MS), &seqno), -EBUSY);
	wall = ane__now_ns() - t0;
	T_CHECK(wall >= 100 * MS && wall < 100 * MS + LATE, "returned after %llu ms",
		(unsigned long long)(wall / MS));
	T_CHECK(fake.n_send >= 2 && fake.n_send <= 40, "%u attempts in 100 ms", fake.n_send);
	T_CHECK(strstr(ane_errmsg(g.dev), ": still busy after 1") &&
		strstr(ane_errmsg(g.dev), ": EBUSY (the program has as many requests in flight as its queue depth"),
		"message: %s", ane_errmsg(g.dev));
out:
	rig_down(&g);
}

/*
 * 127 requests outstanding (-ENOBUFS): the submit waits for a completion,
 * reads it (which makes room) and goes on; with none coming it returns
 * -ENOBUFS at its deadline, saying so.
 */
static void a_full_pool_is_waited_out_by_polling_for_a_completion(void)
{
	struct ane_retry_counts rc;
	struct rig g;
	pthread_t th;
	uint64_t t0, wall, seqno = 0;
	int st = 1;

	T_CHECK(!rig_up(&g, ANE_KIND_CONTROL), "rig: %s", ane_errmsg(g.dev));
	if (t_case_failed)
		goto out;
	fake.busy_until_read = ENOBUFS;
	fake.event_written = 0;
	fake.n_send = 0;
	T_EQ(pthread_create(&th, NULL, complete_later, &g), 0);
	t0 = ane__now_ns();
	T_EQ(ane_request_submit_timeout(g.prog, 0, &g.in, 1, &g.out, 1,
					ane_deadline_ns(2000 * MS), &seqno), 0);
	wall = ane__now_ns() - t0;
	pthread_join(th, NULL);
	T_CHECK(wall >= 90 * MS && wall < 100 * MS + LATE, "returned after %llu ms",
		(unsigned long long)(wall / MS));
	ane_get_retry_counts(g.dev, &rc);
	T_EQ(rc.busy, fake.n_send - 1);
	T_EQ(ane_request_wait(g.dev, 555, 0, &st, NULL), 0);
	T_EQ(st, 0);

	fake.event_written = 0;
	fake.n_send = 0;
	T_EQ(ane_request_submit_timeout(g.prog, 0, &g.in, 1, &g.out, 1,
					ane_deadline_ns(100 * MS), &seqno), -ENOBUFS);
	T_CHECK(strstr(ane_errmsg(g.dev), ": 127 requests still outstanding after 1") &&
		strstr(ane_errmsg(g.dev), ": ENOBUFS ("), "message: %s", ane_errmsg(g.dev));
	/* a zero timeout: one attempt, the kernel's answer at once */
	fake.n_send = 0;
	T_EQ(ane_request_submit_timeout(g.prog, 0, &g.in, 1, &g.out, 1, 0, &seqno), -ENOBUFS);
	T_EQ(fake.n_send, 1);
out:
	fake.busy_until_read = 0;
	rig_down(&g);
}

static void the_completion_watch_is_set_from_the_environment(void)
{
	static const struct {
		const char *env;	/* NULL: unset */
		uint64_t ns;
	} cases[] = {
		{ NULL, ANE__SPIN_US_DEFAULT * US },
		{ "", ANE__SPIN_US_DEFAULT * US },
		{ "0", 0 },
		{ "7", 7 * US },
		{ "1000", 1000 * US },
		{ "5000", ANE__SPIN_US_MAX * US },
		{ "-3", ANE__SPIN_US_DEFAULT * US },
		{ "12us", ANE__SPIN_US_DEFAULT * US },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig g;

		if (cases[i].env)
			setenv("ANE_WAIT_SPIN_US", cases[i].env, 1);
		else
			unsetenv("ANE_WAIT_SPIN_US");
		T_CHECK(!rig_up(&g, ANE_KIND_DIRECT), "rig");
		if (!t_case_failed)
			T_CHECK(g.dev->spin_ns == cases[i].ns, "ANE_WAIT_SPIN_US=%s: %llu ns",
				cases[i].env ? cases[i].env : "(unset)",
				(unsigned long long)g.dev->spin_ns);
		rig_down(&g);
	}
	unsetenv("ANE_WAIT_SPIN_US");
}

static void a_watch_that_sees_nothing_backs_off_and_a_hit_resets_it(void)
{
	static const uint32_t backoff[] = { 1, 2, 4, 8, 16, 32, 64, 64 };
	uint64_t t0, c0, wall, cpu;
	unsigned int i, k;
	struct rig g;
	int st;

	T_CHECK(!rig_up(&g, ANE_KIND_CONTROL), "rig: %s", ane_errmsg(g.dev));
	if (t_case_failed)
		goto out;
	T_EQ(g.dev->spin_ns, ANE__SPIN_US_DEFAULT * US);
	/* A completion there at once is a hit: no backoff. */
	put_event(g.wfd, 700);
	T_EQ(ane_request_wait(g.dev, 700, ane_deadline_ns(1000 * MS), &st, NULL), 0);
	T_EQ(g.dev->spin_backoff, 0);
	T_EQ(g.dev->spin_skip, 0);
	/* A deadline before the watch's end: no watch, nothing changes. */
	T_EQ(ane_request_wait(g.dev, 701, 0, &st, NULL), -ETIMEDOUT);
	T_EQ(st, ANE_REQUEST_PENDING);
	T_EQ(g.dev->spin_backoff, 0);
	T_EQ(g.dev->spin_skip, 0);
	/*
	 * Nothing completes: each watch that runs out doubles the backoff
	 * (to 64), and that many waits after it skip the watch.  The wait
	 * sleeps after its watch: little CPU for its 20 ms.
	 */
	for (i = 0; i < sizeof(backoff) / sizeof(backoff[0]); i++) {
		c0 = cpu_ns();
		t0 = ane__now_ns();
		T_EQ(ane_request_wait(g.dev, 702, ane_deadline_ns(20 * MS), &st, NULL),
		     -ETIMEDOUT);
		wall = ane__now_ns() - t0;
		cpu = cpu_ns() - c0;
		T_CHECK(cpu < wall / 2, "used %llu us of CPU in %llu us",
			(unsigned long long)(cpu / US), (unsigned long long)(wall / US));
		T_EQ(g.dev->spin_backoff, backoff[i]);
		T_EQ(g.dev->spin_skip, backoff[i]);
		/* the skipped waits: completions there at once, no watch */
		for (k = 0; k < backoff[i]; k++) {
			put_event(g.wfd, 800 + k);
			T_EQ(ane_request_wait(g.dev, 800 + k, ane_deadline_ns(1000 * MS), &st, NULL), 0);
		}
		T_EQ(g.dev->spin_skip, 0);
		T_EQ(g.dev->spin_backoff, backoff[i]);
	}
	/* The next wait watches again, and its hit ends the backoff. */
	put_event(g.wfd, 900);
	T_EQ(ane_request_wait(g.dev, 900, ane_deadline_ns(1000 * MS), &st, NULL), 0);
	T_EQ(g.dev->spin_backoff, 0);
	T_EQ(g.dev->spin_skip, 0);
out:
	rig_down(&g);
}

static void a_direct_handle_says_the_state_is_unknown(void)
{
	struct rig g;

	T_CHECK(!rig_up(&g, ANE_KIND_DIRECT), "rig");
	if (t_case_failed)
		goto out;
	fake.close_err = EAGAIN;
	ane_set_timeout(g.dev, 20 * MS);
	T_EQ(ane_device_close(g.dev), -EAGAIN);
	T_CHECK(strstr(ane_errmsg(g.dev), "DeviceClose (selector 1): firmware not ready (state unknown: GetStatus needs a control handle)"),
		"message: %s", ane_errmsg(g.dev));
	T_EQ(fake.n_status, 0);
	fake.close_err = 0;
out:
	rig_down(&g);
}

int main(void)
{
	T_RUN(backoff_doubles_to_its_cap_and_stops_at_the_deadline);
	T_RUN(eintr_restarts_until_the_deadline);
	T_RUN(ebusy_polls_only_where_allowed_and_until_its_own_deadline);
	T_RUN(other_errnos_and_zero_timeouts_give_up_at_once);
	T_RUN(dead_firmware_fails_submit_at_the_deadline_without_spinning);
	T_RUN(recovering_beyond_the_timeout_is_eagain_naming_the_state);
	T_RUN(a_transient_eagain_is_waited_out);
	T_RUN(a_full_queue_is_waited_out_by_polling_for_a_completion);
	T_RUN(a_full_pool_is_waited_out_by_polling_for_a_completion);
	T_RUN(a_direct_handle_says_the_state_is_unknown);
	T_RUN(the_completion_watch_is_set_from_the_environment);
	T_RUN(a_watch_that_sees_nothing_backs_off_and_a_hit_resets_it);
	return t_summary("retry");
}
