// SPDX-License-Identifier: MIT
/*
 * libane: completion events and waiting for them.  The handle's events
 * are read into a list of completions nobody has asked for yet, so a
 * wait for one request keeps the others' for their own waits; a wait
 * first watches for its completion for ANE_WAIT_SPIN_US (backing off
 * after watches that see nothing), then sleeps in ppoll() until the
 * deadline.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ane_internal.h"

uint64_t ane_deadline_ns(uint64_t rel_ns)
{
	return ane__deadline(ane__now_ns(), rel_ns);
}

static int done_push(struct ane_dev *dev, const struct drm_ane_event_complete *ev)
{
	if (dev->n_done == dev->cap_done) {
		size_t cap = dev->cap_done ? 2 * dev->cap_done : 16;
		struct ane__done *p = realloc(dev->done, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		dev->done = p;
		dev->cap_done = cap;
	}
	dev->done[dev->n_done++] = (struct ane__done){
		.type = ev->base.type, .seqno = ev->seqno, .token = ev->token,
		.sequence = ev->sequence, .exec_ns = ev->exec_ns,
		.status = ev->status };
	return 0;
}

/*
 * Take the completion of request @seqno (@type DRM_ANE_EVENT_REQUEST_COMPLETE)
 * or of run @sequence of chain @token (DRM_ANE_EVENT_CHAIN_COMPLETE) off the
 * queue; returns whether it was there.
 */
int ane__done_take(struct ane_dev *dev, uint32_t type, uint64_t seqno,
		   uint64_t token, uint64_t sequence, struct ane__done *d)
{
	size_t i;

	for (i = 0; i < dev->n_done; i++) {
		const struct ane__done *e = &dev->done[i];

		if (e->type != type)
			continue;
		if (type == DRM_ANE_EVENT_REQUEST_COMPLETE ? e->seqno == seqno :
		    e->token == token && e->sequence == sequence) {
			*d = dev->done[i];
			memmove(&dev->done[i], &dev->done[i + 1],
				(dev->n_done - i - 1) * sizeof(*d));
			dev->n_done--;
			return 1;
		}
	}
	return 0;
}

/*
 * Read what the file has and queue every completion in it.  A file with
 * nothing to read (-EAGAIN: it is non-blocking, and someone else read the
 * event poll() announced) is not an error: the caller polls again.
 */
int ane__read_events(struct ane_dev *dev)
{
	union {
		uint8_t b[4096];
		uint64_t align;
	} buf;
	struct drm_ane_event_complete ev;
	struct drm_event e;
	ssize_t n;
	size_t off = 0;

	do {
		n = read(dev->fd, buf.b, sizeof(buf.b));
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n < 0)
		return ane__fail(dev, errno, "read of the completion events");
	if (n == 0)
		return ane__fail_hint(dev, EIO, "the file is not a DRM device, or it was closed",
				      "read of the completion events returned end of file");
	while (off < (size_t)n) {
		if ((size_t)n - off < sizeof(e))
			return ane__fail_hint(dev, EIO, "a truncated event",
					      "read of the completion events: %zu stray bytes",
					      (size_t)n - off);
		memcpy(&e, buf.b + off, sizeof(e));
		if (e.length < sizeof(e) || e.length > (size_t)n - off)
			return ane__fail_hint(dev, EIO, "a malformed event",
					      "read of the completion events: an event of type 0x%x claims %u bytes",
					      e.type, e.length);
		if (e.type == DRM_ANE_EVENT_REQUEST_COMPLETE ||
		    e.type == DRM_ANE_EVENT_CHAIN_COMPLETE) {
			if (e.length < sizeof(ev))
				return ane__fail_hint(dev, EIO, "a malformed event",
						      "read of the completion events: a completion of %u bytes, not %zu",
						      e.length, sizeof(ev));
			memcpy(&ev, buf.b + off, sizeof(ev));
			if (done_push(dev, &ev))
				return ane__fail(dev, ENOMEM, "queueing a completion event");
		}
		off += e.length;
	}
	return 0;
}

/*
 * ANE_WAIT_SPIN_US (0 to ANE__SPIN_US_MAX; ANE__SPIN_US_DEFAULT when unset
 * or not a number) read when the handle is made.
 */
void ane__spin_init(struct ane_dev *dev)
{
	const char *env = getenv("ANE_WAIT_SPIN_US");
	unsigned long us = ANE__SPIN_US_DEFAULT;
	char *end;

	if (env && *env) {
		errno = 0;
		us = strtoul(env, &end, 10);
		if (errno || *end || env[0] == '-')
			us = ANE__SPIN_US_DEFAULT;
		else if (us > ANE__SPIN_US_MAX)
			us = ANE__SPIN_US_MAX;
	}
	dev->spin_ns = us * 1000ull;
}

/*
 * One pause of the completion watch: the CPU's spin-wait hint, which
 * also lets a sibling hardware thread, or under QEMU's TCG the other
 * virtual CPU (where the firmware may be running), go on.
 */
static inline void ane__spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	sched_yield();
#endif
}

/*
 * Until when this wait watches for its completion before it sleeps:
 * @start + spin_ns; 0 (no watch) when that is not before @abs_timeout_ns,
 * when the handle does not watch, or when it skips this wait after
 * watches that saw nothing.
 */
static uint64_t ane__spin_end(struct ane_dev *dev, uint64_t start, uint64_t abs_timeout_ns)
{
	uint64_t end;

	if (!dev->spin_ns)
		return 0;
	if (dev->spin_skip) {
		dev->spin_skip--;
		return 0;
	}
	end = start + dev->spin_ns;
	return end < abs_timeout_ns ? end : 0;
}

/* A watch saw its completion (@hit) or ran out: reset or back off. */
static void ane__spin_done(struct ane_dev *dev, int hit)
{
	if (hit) {
		dev->spin_backoff = 0;
		return;
	}
	dev->spin_backoff = dev->spin_backoff ? dev->spin_backoff * 2 : 1;
	if (dev->spin_backoff > ANE__SPIN_BACKOFF_MAX)
		dev->spin_backoff = ANE__SPIN_BACKOFF_MAX;
	dev->spin_skip = dev->spin_backoff;
}

int ane_request_wait(struct ane_dev *dev, uint64_t seqno, uint64_t abs_timeout_ns,
		     int *status, uint64_t *exec_ns)
{
	uint64_t start = ane__now_ns(), spin_end;
	unsigned int polls = 0;
	struct ane__done d;
	int ret;

	if (status)
		*status = ANE_REQUEST_PENDING;
	if (exec_ns)
		*exec_ns = 0;
	if (!dev)
		return -EINVAL;
	/*
	 * A short request completes within microseconds of its submit: watch
	 * for it (a poll that does not sleep, then the CPU's pause) for
	 * spin_ns before sleeping, as the driver does for its own firmware
	 * calls (host_spin_us).  The sleep and the wake-up it saves are most
	 * of such a round trip; a watch that saw nothing makes the next
	 * waits on this handle sleep at once (see ane__spin_done()).
	 */
	spin_end = ane__spin_end(dev, start, abs_timeout_ns);
	for (;;) {
		struct timespec ts, *tsp = NULL;
		struct pollfd pfd = { .fd = dev->fd, .events = POLLIN };
		int spinning = 0;

		if (ane__done_take(dev, DRM_ANE_EVENT_REQUEST_COMPLETE, seqno, 0, 0, &d))
			break;
		if (spin_end && ane__now_ns() >= spin_end) {
			ane__spin_done(dev, 0);
			spin_end = 0;
		}
		if (spin_end) {
			ts.tv_sec = 0;
			ts.tv_nsec = 0;
			tsp = &ts;
			spinning = 1;
		} else if (abs_timeout_ns != ANE_WAIT_FOREVER) {
			uint64_t now = ane__now_ns();
			uint64_t rem = abs_timeout_ns > now ? abs_timeout_ns - now : 0;

			ts.tv_sec = (time_t)(rem / 1000000000ull);
			ts.tv_nsec = (long)(rem % 1000000000ull);
			tsp = &ts;
		}
		ret = ppoll(&pfd, 1, tsp, NULL);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return ane__fail(dev, errno, "poll for the completion of seqno %llu",
					 (unsigned long long)seqno);
		}
		if (ret == 0 && spinning) {
			/*
			 * Every ANE__SPIN_YIELD_EVERY polls, offer the CPU: a
			 * sched_yield() that comes back late ran someone else,
			 * who wants this CPU more than the watch does.
			 */
			if (!(++polls % ANE__SPIN_YIELD_EVERY)) {
				uint64_t t = ane__now_ns();

				sched_yield();
				if (ane__now_ns() - t > ANE__SPIN_YIELD_BUSY_NS) {
					ane__spin_done(dev, 0);
					spin_end = 0;
					continue;
				}
			}
			ane__spin_pause();
			continue;
		}
		if (ret == 0) {
			int known = 0;
			size_t i;

			for (i = 0; i < dev->n_inflight; i++)
				known |= dev->inflight[i] == seqno;
			return ane__fail_hint(dev, ETIMEDOUT,
					      known ? "the request may still complete: wait again, or give it a later deadline" :
					      "seqno was not submitted through this handle, or was already waited for",
					      "wait for request seqno %llu: no completion within %llu ms",
					      (unsigned long long)seqno,
					      (unsigned long long)((ane__now_ns() - start) / 1000000));
		}
		if (pfd.revents & POLLNVAL)
			return ane__fail(dev, EBADF, "poll for the completion of seqno %llu",
					 (unsigned long long)seqno);
		/* POLLIN, or POLLERR/POLLHUP whose cause read() reports */
		ret = ane__read_events(dev);
		if (ret)
			return ret;
	}

	if (spin_end)
		ane__spin_done(dev, 1);
	ane__inflight_del(dev, seqno);
	if (exec_ns)
		*exec_ns = d.exec_ns;
	if (d.status > 0) {
		if (status)
			*status = -EIO;
		return ane__fail_hint(dev, EIO, "the kernel reported a positive status, which the interface does not define",
				      "request seqno %llu (token 0x%llx, sequence %llu) completed with status %d",
				      (unsigned long long)seqno, (unsigned long long)d.token,
				      (unsigned long long)d.sequence, d.status);
	}
	if (status)
		*status = d.status;
	if (d.status)
		return ane__fail_hint(dev, -d.status, ane_request_status_str(d.status),
				      "request seqno %llu (token 0x%llx, sequence %llu) failed",
				      (unsigned long long)seqno, (unsigned long long)d.token,
				      (unsigned long long)d.sequence);
	ane__ok(dev);
	return 0;
}
