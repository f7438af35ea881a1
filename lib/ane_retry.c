// SPDX-License-Identifier: MIT
/*
 * libane: the retry policy of every ioctl, and the messages of a call
 * that gave up.
 *
 * A call waits out what is transient -- a signal (EINTR), a firmware that
 * boots or recovers (EAGAIN), a full queue (EBUSY, where the call allows)
 * -- but only until its deadline, and it sleeps or polls between
 * attempts: nothing here spins.  Documentation/accel/ane/libane.rst,
 * "Retries and timeouts", is the description of record.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "ane_internal.h"

int (*ane__ioctl_hook)(int fd, unsigned long cmd, void *arg);

uint64_t ane__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ane__deadline(uint64_t now, uint64_t rel_ns)
{
	return rel_ns >= ANE_WAIT_FOREVER - now ? ANE_WAIT_FOREVER : now + rel_ns;
}

void ane__retry_init(struct ane__retry *r, unsigned int flags, uint64_t now,
		     uint64_t deadline, uint64_t busy_deadline)
{
	memset(r, 0, sizeof(*r));
	r->flags = flags;
	r->start = now;
	r->deadline = deadline;
	r->busy_deadline = busy_deadline < deadline ? busy_deadline : deadline;
	r->backoff = ANE__BACKOFF_MIN_NS;
}

enum ane__retry_action ane__retry_step(struct ane__retry *r, int err,
				       uint64_t now, uint64_t *pause_ns)
{
	enum ane__retry_action act;
	uint64_t until, rem;

	*pause_ns = 0;
	switch (err) {
	case EINTR:
		/* A signal interrupted the call: restart it, not past the deadline. */
		r->n_intr++;
		return now < r->deadline ? ANE__RESTART : ANE__GIVE_UP;
	case EAGAIN:
		r->n_again++;
		if (!(r->flags & ANE__RETRY_EAGAIN))
			return ANE__GIVE_UP;
		until = r->deadline;
		act = ANE__SLEEP;
		break;
	case EBUSY:
		r->n_busy++;
		if (!(r->flags & ANE__RETRY_EBUSY))
			return ANE__GIVE_UP;
		until = r->busy_deadline;
		act = ANE__POLL;
		break;
	case ENOBUFS:
		/* 127 outstanding: room once a completion is read (polled) */
		r->n_nobufs++;
		if (!(r->flags & ANE__RETRY_ENOBUFS))
			return ANE__GIVE_UP;
		until = r->busy_deadline;
		act = ANE__POLL;
		break;
	default:
		return ANE__GIVE_UP;
	}
	if (now >= until)
		return ANE__GIVE_UP;
	rem = until - now;
	*pause_ns = r->backoff < rem ? r->backoff : rem;
	r->backoff = r->backoff >= ANE__BACKOFF_MAX_NS / 2 ? ANE__BACKOFF_MAX_NS :
							     2 * r->backoff;
	return act;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts;
	uint64_t until = ane__deadline(ane__now_ns(), ns);

	ts.tv_sec = (time_t)(until / 1000000000ull);
	ts.tv_nsec = (long)(until % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;	/* an absolute deadline: a signal does not extend it */
}

/*
 * Wait up to @ns for a completion event on @dev's file and read what it
 * has: a full queue has room again once one of its requests completed.
 * Whatever goes wrong here only costs the pause its early wake-up.
 */
static void poll_events(struct ane_dev *dev, uint64_t ns)
{
	struct pollfd pfd = { .fd = dev->fd, .events = POLLIN };
	char saved[sizeof(dev->err)];
	uint64_t t0 = ane__now_ns(), spent;
	struct timespec ts;
	int ret;

	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	ret = ppoll(&pfd, 1, &ts, NULL);
	if (ret > 0 && (pfd.revents & POLLIN)) {
		memcpy(saved, dev->err, sizeof(saved));
		ret = ane__read_events(dev);
		memcpy(dev->err, saved, sizeof(saved));
		if (!ret)
			return;
	} else if (ret == 0) {
		return;			/* the whole pause, nothing came */
	}
	/* An error, a hang-up or a file that is not readable: just pause. */
	spent = ane__now_ns() - t0;
	if (spent < ns)
		sleep_ns(ns - spent);
}

int ane__ioctl(struct ane_dev *dev, unsigned long cmd, void *arg,
	       struct ane__retry *r)
{
	for (;;) {
		uint64_t pause;
		int ret, err;

		ret = ane__ioctl_hook ? ane__ioctl_hook(dev->fd, cmd, arg) :
					ioctl(dev->fd, cmd, arg);
		if (ret >= 0)
			return 0;
		err = errno;
		switch (ane__retry_step(r, err, ane__now_ns(), &pause)) {
		case ANE__RESTART:
			dev->retries.intr++;
			break;
		case ANE__SLEEP:
			dev->retries.again++;
			sleep_ns(pause);
			break;
		case ANE__POLL:
			dev->retries.busy++;
			poll_events(dev, pause);
			break;
		case ANE__GIVE_UP:
		default:
			return -err;
		}
	}
}

/* ------------------------------------------------------------ timeouts */

void ane_set_timeout(struct ane_dev *dev, uint64_t rel_ns)
{
	if (dev)
		dev->timeout_ns = rel_ns;
}

uint64_t ane_get_timeout(const struct ane_dev *dev)
{
	return dev ? dev->timeout_ns : ANE_TIMEOUT_DEFAULT_NS;
}

void ane_get_retry_counts(const struct ane_dev *dev, struct ane_retry_counts *c)
{
	if (!c)
		return;
	if (dev)
		*c = dev->retries;
	else
		memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------ messages */

/* The enum's own names, as the messages quote them. */
static const char *state_name(int state)
{
	switch (state) {
	case ANE_FW_STATE_OFF: return "OFF";
	case ANE_FW_STATE_BOOTING: return "BOOTING";
	case ANE_FW_STATE_READY: return "READY";
	case ANE_FW_STATE_RECOVERING: return "RECOVERING";
	case ANE_FW_STATE_DEAD: return "DEAD";
	default: return "unknown";
	}
}

/* The firmware state GetStatus reports, or -1 (not a control handle). */
static int fw_state(struct ane_dev *dev)
{
	struct drm_ane_get_status s;
	int ret, tries = 3;

	if (dev->kind != ANE_KIND_CONTROL)
		return -1;
	do {
		memset(&s, 0, sizeof(s));
		ret = ane__ioctl_hook ?
		      ane__ioctl_hook(dev->fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &s) :
		      ioctl(dev->fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &s);
	} while (ret < 0 && errno == EINTR && --tries);
	return ret < 0 ? -1 : (int)s.out.fw_state;
}

#define DEAD_HINT "the firmware's recovery gave up: the device runs nothing until its firmware is booted again (as root: echo reboot > /sys/kernel/debug/accel/<device>/fw_inject) or ane.ko is reloaded"
#define NOT_READY_HINT "the firmware is booting or recovering: try again, or allow the call more time (ane_set_timeout(), or its deadline)"

int ane__fail_retry(struct ane_dev *dev, int err, const struct ane__retry *r,
		    const char *hint, const char *fmt, ...)
{
	unsigned long long ms = (ane__now_ns() - r->start) / 1000000;
	char what[384];
	va_list ap;
	int state;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);

	if (err == EAGAIN) {
		state = fw_state(dev);
		if (state == ANE_FW_STATE_DEAD)
			return ane__fail_hint(dev, EIO, DEAD_HINT,
					      "%s: firmware is dead (state DEAD); EAGAIN for %llu ms, %u attempts",
					      what, ms, r->n_again);
		if (state == ANE_FW_STATE_READY)
			return ane__fail_hint(dev, EAGAIN, hint,
					      "%s: EAGAIN for %llu ms, %u attempts (firmware state READY)",
					      what, ms, r->n_again);
		return ane__fail_hint(dev, EAGAIN, NOT_READY_HINT,
				      "%s: firmware not ready (state %s%s); EAGAIN for %llu ms, %u attempts",
				      what, state_name(state),
				      state < 0 ? ": GetStatus needs a control handle" : "",
				      ms, r->n_again);
	}
	if (err == EBUSY && (r->flags & ANE__RETRY_EBUSY) && r->n_busy > 1)
		return ane__fail_hint(dev, EBUSY, hint,
				      "%s: still busy after %llu ms, %u attempts",
				      what, ms, r->n_busy);
	if (err == ENOBUFS && (r->flags & ANE__RETRY_ENOBUFS) && r->n_nobufs > 1)
		return ane__fail_hint(dev, ENOBUFS, hint,
				      "%s: 127 requests still outstanding after %llu ms, %u attempts",
				      what, ms, r->n_nobufs);
	return ane__fail_hint(dev, err, hint, "%s", what);
}
