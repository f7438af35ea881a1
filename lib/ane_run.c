// SPDX-License-Identifier: MIT
/*
 * libane: programs, surfaces, requests and their completion events, over
 * the control selectors and the driver's own ioctls.
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

struct ane_program {
	struct ane_dev *dev;
	struct ane_program *parent;	/* an instance's program */
	unsigned int n_instances;	/* live instances of this program */
	uint64_t token;
	uint64_t next_sequence;		/* in.sequence of the next request */
	int prepared;
};

struct ane_surface {
	struct ane_dev *dev;
	uint32_t handle;
	void *map;
	size_t size;
};

/*
 * ProgramUnprepare and ProgramDestroy of a program whose completions were
 * all read can still see -EBUSY for a moment: the kernel may release a
 * request after it queued the request's event.  Such calls are retried
 * for up to this long (a request that is really in flight makes the
 * caller wait that long for its -EBUSY).
 */
#define BUSY_RETRY_NS	100000000ull	/* 100 ms */

/*
 * An ioctl with -EAGAIN waited out for the handle's timeout, and -EBUSY
 * for @busy_ns of it; -errno on failure, no message (ane__fail_retry()
 * writes it from @r).
 */
static int xioctl_r(struct ane_dev *dev, unsigned long cmd, void *arg,
		    uint64_t busy_ns, struct ane__retry *r)
{
	uint64_t now = ane__now_ns();

	ane__retry_init(r, ANE__RETRY_EAGAIN | (busy_ns ? ANE__RETRY_EBUSY : 0),
			now, ane__deadline(now, dev->timeout_ns),
			ane__deadline(now, busy_ns));
	return ane__ioctl(dev, cmd, arg, r);
}

/* xioctl_r() without -EBUSY retries, for calls whose message is plain. */
static int xioctl(struct ane_dev *dev, unsigned long cmd, void *arg)
{
	struct ane__retry r;

	return xioctl_r(dev, cmd, arg, 0, &r);
}

/* What an errno means for one call, where the generic hint is vague. */
struct hint {
	int err;
	const char *text;
};

static const char *pick_hint(int err, const struct hint *h)
{
	for (; h && h->text; h++)
		if (h->err == err)
			return h->text;
	switch (err) {
	case EOPNOTSUPP:
		return "this ane.ko does not run programs: the selector answers EOPNOTSUPP";
	case ENOENT:
		return "no such program: the token is unknown to this file (destroyed, or created through another file)";
	default:
		return NULL;
	}
}

static const struct hint create_hints[] = {
	{ EINVAL, "the kernel refused the image; its log (dmesg) names the offending field" },
	{ ENOSPC, "this file holds as many programs as it may: destroy some first" },
	{ 0, NULL },
};

static const struct hint prepare_hints[] = {
	{ EINVAL, "bad argument: a field was refused (priority 2..7, queue_depth)" },
	{ EALREADY, "the program is already prepared" },
	{ EBUSY, "no free firmware program slot or process: unprepare another program first" },
	{ EPERM, "priorities 0 and 1 (the real-time band) need the real-time capability (CAP_SYS_NICE at open): use 2 .. 7" },
	{ 0, NULL },
};

static const struct hint unprepare_hints[] = {
	{ EALREADY, "the program is not prepared" },
	{ EBUSY, "requests of the program are in flight: wait for them first" },
	{ 0, NULL },
};

static const struct hint destroy_hints[] = {
	{ EBUSY, "requests of the program are in flight, or instances of it are alive: wait for them, then destroy again (the handle is kept)" },
	{ 0, NULL },
};

static const struct hint instance_hints[] = {
	{ EINVAL, "bad argument: the weights surface is smaller than the program's weights section (or it has none), or a field was refused" },
	{ ENOENT, "the program token or the weights handle is unknown to this file" },
	{ ENOSPC, "this file holds as many programs as it may: destroy some first" },
	{ 0, NULL },
};

static const struct hint submit_hints[] = {
	{ EINVAL, "the kernel refused the request: the procedure, a surface's kind or index, the surface count, or a surface's size does not match the program" },
	{ EBADFD, "the program is not prepared: call ane_program_prepare() first" },
	{ EBUSY, "the program has as many requests in flight as its queue depth: wait for one" },
	{ ENOMEM, "out of memory" },
	{ ENOBUFS, "127 requests are outstanding on this handle: collect completions with ane_request_wait()" },
	{ ENOENT, "the token, or a surface's handle, is unknown to this file" },
	{ 0, NULL },
};

static const struct hint event_hints[] = {
	{ EINVAL, "the kernel refused the request: an event's kind or bar, a syncobj with no fence to wait for (none submitted yet), the shared event named twice, or a procedure with a custom execute order (events admit none); else the procedure, a surface's kind, index or size" },
	{ E2BIG, "a request has at most 16 wait and signal events (ANE_REQ_MAX_EVENTS)" },
	{ EBUSY, "the device holds 32 requests waiting on events (ANE_DEV_MAX_WAITING), or the program's queue is full: wait for one to complete" },
	{ ENOENT, "a syncobj handle is unknown to this file, the shared event is not this handle's (ane_shared_event_activate()), or the token or a surface's handle is unknown" },
	{ EBADFD, "the program is not prepared: call ane_program_prepare() first" },
	{ ENOBUFS, "127 requests are outstanding on this handle: collect completions with ane_request_wait()" },
	{ 0, NULL },
};

static int need_control(struct ane_dev *dev, const char *what)
{
	if (dev->kind != ANE_KIND_CONTROL)
		return ane__fail_hint(dev, EBADRQC,
				      "programs live on control clients: open the device with ANE_KIND_CONTROL",
				      "%s on a direct-path handle", what);
	return 0;
}

/* ------------------------------------------------------------ programs */

/* Free a handle without a selector (its token is gone or given up). */
static void program_forget(struct ane_program *prog)
{
	if (prog->parent)
		prog->parent->n_instances--;
	free(prog);
}

int ane_program_create(struct ane_dev *dev, const void *image, size_t size,
		       struct ane_program **out)
{
	struct drm_ane_program_create pc;
	struct ane_img_header h;
	struct ane_program *prog;
	struct ane__retry r;
	uint64_t token = 0;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!dev)
		return -EINVAL;
	ret = need_control(dev, "ProgramCreate (control selector 3)");
	if (ret)
		return ret;
	/* The header mistakes that need no kernel to explain. */
	if (!image || size < sizeof(h))
		return ane__fail(dev, EINVAL,
				 "ProgramCreate (control selector 3): the image is %zu bytes%s, smaller than its %zu-byte header",
				 size, image ? "" : " at NULL", sizeof(h));
	memcpy(&h, image, sizeof(h));
	if (h.magic != ANE_IMG_MAGIC)
		return ane__fail(dev, EINVAL,
				 "ProgramCreate (control selector 3): field header.magic is 0x%08x, not ANE_IMG_MAGIC 0x%08x (\"ANE1\"): this is not a program image",
				 h.magic, ANE_IMG_MAGIC);
	if (h.version_major != ANE_IMG_VERSION_MAJOR)
		return ane__fail(dev, EINVAL,
				 "ProgramCreate (control selector 3): field header.version_major is %u; this interface takes version %u images",
				 h.version_major, ANE_IMG_VERSION_MAJOR);
	if (h.image_size != size)
		return ane__fail(dev, EINVAL,
				 "ProgramCreate (control selector 3): field header.image_size says %llu bytes but size is %zu: pass the whole image",
				 (unsigned long long)h.image_size, size);
	if (size > ANE_IMG_MAX_SIZE)
		return ane__fail(dev, EINVAL,
				 "ProgramCreate (control selector 3): the image is %zu bytes; at most %u MiB",
				 size, ANE_IMG_MAX_SIZE >> 20);

	prog = calloc(1, sizeof(*prog));
	if (!prog)
		return ane__fail(dev, ENOMEM, "ProgramCreate: allocating the handle");
	memset(&pc, 0, sizeof(pc));
	pc.image = (uintptr_t)image;
	pc.image_size = size;
	pc.token_ptr = (uintptr_t)&token;
	ret = xioctl_r(dev, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &pc, 0, &r);
	if (ret) {
		free(prog);
		return ane__fail_retry(dev, -ret, &r,
				       pick_hint(-ret, create_hints),
				       "ProgramCreate (control selector 3) of a %zu-byte image", size);
	}
	prog->dev = dev;
	prog->token = token;
	*out = prog;
	ane__ok(dev);
	return 0;
}

uint64_t ane_program_token(const struct ane_program *prog)
{
	return prog ? prog->token : 0;
}

int ane_program_prepare_ex(struct ane_program *prog, uint32_t priority,
			   uint32_t queue_depth)
{
	struct drm_ane_program_prepare pp;
	struct ane__retry r;
	int ret;

	if (!prog)
		return -EINVAL;
	if (prog->parent)
		return ane__fail(prog->dev, EINVAL,
				 "ProgramPrepare (control selector 4): token 0x%llx is an instance; instances run while their program is prepared: prepare the program",
				 (unsigned long long)prog->token);
	if (priority > 7)
		return ane__fail(prog->dev, EINVAL,
				 "ProgramPrepare (control selector 4): field priority is %u; applications use 2 (highest) .. 7, 0 and 1 need the real-time capability",
				 priority);
	memset(&pp, 0, sizeof(pp));
	pp.in.token = prog->token;
	pp.in.priority = priority;
	pp.in.flags = ANE_PREPARE_EXACT_PRIORITY;
	pp.in.queue_depth = queue_depth;
	ret = xioctl_r(prog->dev, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, &pp, 0, &r);
	if (ret)
		return ane__fail_retry(prog->dev, -ret, &r,
				       pick_hint(-ret, prepare_hints),
				       "ProgramPrepare (control selector 4) of token 0x%llx, priority %u",
				       (unsigned long long)prog->token, priority);
	prog->prepared = 1;
	ane__ok(prog->dev);
	return 0;
}

int ane_program_prepare(struct ane_program *prog)
{
	return ane_program_prepare_ex(prog, ANE_PROGRAM_PRIORITY_DEFAULT, 0);
}

int ane_program_unprepare(struct ane_program *prog)
{
	struct drm_ane_program_unprepare pu;
	struct ane__retry r;
	int ret;

	if (!prog)
		return -EINVAL;
	if (prog->parent)
		return ane__fail(prog->dev, EINVAL,
				 "ProgramUnprepare (control selector 5): token 0x%llx is an instance; unprepare its program",
				 (unsigned long long)prog->token);
	memset(&pu, 0, sizeof(pu));
	pu.in.token = prog->token;
	ret = xioctl_r(prog->dev, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, &pu,
		       BUSY_RETRY_NS, &r);
	if (ret)
		return ane__fail_retry(prog->dev, -ret, &r,
				       pick_hint(-ret, unprepare_hints),
				       "ProgramUnprepare (control selector 5) of token 0x%llx",
				       (unsigned long long)prog->token);
	prog->prepared = 0;
	ane__ok(prog->dev);
	return 0;
}

int ane_program_destroy(struct ane_program *prog)
{
	struct drm_ane_program_destroy pd;
	struct ane__retry r;
	struct ane_dev *dev;
	int ret;

	if (!prog)
		return 0;
	dev = prog->dev;
	if (prog->n_instances)
		return ane__fail_hint(dev, EBUSY, "destroy its instances first (the handle is kept)",
				      "ProgramDestroy of token 0x%llx: %u instance(s) of it are alive",
				      (unsigned long long)prog->token, prog->n_instances);
	/* The kernel unprepares a prepared program itself. */
	memset(&pd, 0, sizeof(pd));
	pd.token = prog->token;
	ret = xioctl_r(dev, DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, &pd,
		       BUSY_RETRY_NS, &r);
	if (ret)
		ret = ane__fail_retry(dev, -ret, &r, pick_hint(-ret, destroy_hints),
				      "ProgramDestroy (control selector 6) of token 0x%llx",
				      (unsigned long long)prog->token);
	if (ret == -EBUSY)
		return ret;
	program_forget(prog);
	if (!ret)
		ane__ok(dev);
	return ret;
}

int ane_program_instance(struct ane_program *prog, struct ane_surface *weights,
			 struct ane_program **inst)
{
	struct drm_ane_program_create_instance ci;
	struct ane_program *p;
	struct ane__retry r;
	uint64_t token = 0;
	int ret;

	if (!inst)
		return -EINVAL;
	*inst = NULL;
	if (!prog)
		return -EINVAL;
	if (prog->parent)
		return ane__fail(prog->dev, EINVAL,
				 "ProgramCreateInstance (control selector 8): token 0x%llx is itself an instance; make instances of its program",
				 (unsigned long long)prog->token);
	if (weights && weights->dev != prog->dev)
		return ane__fail(prog->dev, EINVAL,
				 "ProgramCreateInstance (control selector 8): the weights surface was created through another handle (GEM handles belong to one file)");
	p = calloc(1, sizeof(*p));
	if (!p)
		return ane__fail(prog->dev, ENOMEM, "ProgramCreateInstance: allocating the handle");
	memset(&ci, 0, sizeof(ci));
	ci.program = prog->token;
	ci.weights = weights ? weights->handle : 0;
	ci.token_ptr = (uintptr_t)&token;
	ret = xioctl_r(prog->dev, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci, 0, &r);
	if (ret) {
		free(p);
		return ane__fail_retry(prog->dev, -ret, &r,
				       pick_hint(-ret, instance_hints),
				       "ProgramCreateInstance (control selector 8) of token 0x%llx, weights handle %u",
				       (unsigned long long)prog->token, ci.weights);
	}
	p->dev = prog->dev;
	p->parent = prog;
	p->token = token;
	prog->n_instances++;
	*inst = p;
	ane__ok(prog->dev);
	return 0;
}

/* ------------------------------------------------------------ surfaces */

int ane_surface_create(struct ane_dev *dev, size_t size, struct ane_surface **out)
{
	struct drm_ane_surface_create sc;
	struct drm_gem_close gc;
	struct ane_surface *s;
	size_t len;
	void *map;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!dev)
		return -EINVAL;
	if (!size || size > ANE__MAX_BUFFER)
		return ane__fail(dev, EINVAL,
				 "DRM_IOCTL_ANE_SURFACE_CREATE: field size is %zu; a surface is 1 byte .. 1 GiB",
				 size);
	s = calloc(1, sizeof(*s));
	if (!s)
		return ane__fail(dev, ENOMEM, "DRM_IOCTL_ANE_SURFACE_CREATE: allocating the handle");
	memset(&sc, 0, sizeof(sc));
	sc.size = size;
	ret = xioctl(dev, DRM_IOCTL_ANE_SURFACE_CREATE, &sc);
	if (ret) {
		free(s);
		return ane__fail(dev, -ret, "DRM_IOCTL_ANE_SURFACE_CREATE of %zu bytes", size);
	}
	len = (size + ANE__PAGE_SIZE - 1) / ANE__PAGE_SIZE * ANE__PAGE_SIZE;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		   (off_t)sc.offset);
	if (map == MAP_FAILED) {
		ret = errno;
		memset(&gc, 0, sizeof(gc));
		gc.handle = sc.handle;
		xioctl(dev, DRM_IOCTL_GEM_CLOSE, &gc);
		free(s);
		return ane__fail(dev, ret, "mmap of surface handle %u (%zu bytes at offset 0x%llx)",
				 sc.handle, len, (unsigned long long)sc.offset);
	}
	s->dev = dev;
	s->handle = sc.handle;
	s->map = map;
	s->size = len;
	*out = s;
	ane__ok(dev);
	return 0;
}

void *ane_surface_map(const struct ane_surface *surf)
{
	return surf ? surf->map : NULL;
}

size_t ane_surface_size(const struct ane_surface *surf)
{
	return surf ? surf->size : 0;
}

uint32_t ane_surface_handle(const struct ane_surface *surf)
{
	return surf ? surf->handle : 0;
}

int ane_surface_destroy(struct ane_surface *surf)
{
	struct drm_gem_close gc;
	struct ane_dev *dev;
	int ret = 0, r;

	if (!surf)
		return 0;
	dev = surf->dev;
	if (munmap(surf->map, surf->size))
		ret = ane__fail(dev, errno, "munmap of surface handle %u", surf->handle);
	memset(&gc, 0, sizeof(gc));
	gc.handle = surf->handle;
	r = xioctl(dev, DRM_IOCTL_GEM_CLOSE, &gc);
	if (r && !ret)
		ret = ane__fail(dev, -r, "DRM_IOCTL_GEM_CLOSE of surface handle %u",
				surf->handle);
	free(surf);
	if (!ret)
		ane__ok(dev);
	return ret;
}

/* ------------------------------------------------------------ requests */

static int inflight_add(struct ane_dev *dev, uint64_t seqno)
{
	if (dev->n_inflight == dev->cap_inflight) {
		size_t cap = dev->cap_inflight ? 2 * dev->cap_inflight : 16;
		uint64_t *p = realloc(dev->inflight, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		dev->inflight = p;
		dev->cap_inflight = cap;
	}
	dev->inflight[dev->n_inflight++] = seqno;
	return 0;
}

/* Forget @seqno; returns whether it was in flight. */
static int inflight_del(struct ane_dev *dev, uint64_t seqno)
{
	size_t i;

	for (i = 0; i < dev->n_inflight; i++) {
		if (dev->inflight[i] == seqno) {
			dev->inflight[i] = dev->inflight[--dev->n_inflight];
			return 1;
		}
	}
	return 0;
}

static int check_surfaces(struct ane_dev *dev, const char *what, const char *name,
			  struct ane_surface *const *s, unsigned int n)
{
	unsigned int i;

	if (n && !s)
		return ane__fail(dev, EINVAL, "%s: %s is NULL but n_%s is %u",
				 what, name, name[0] == 'i' ? "in" : "out", n);
	for (i = 0; i < n; i++) {
		if (!s[i])
			return ane__fail(dev, EINVAL, "%s: %s[%u] is NULL", what, name, i);
		if (s[i]->dev != dev)
			return ane__fail(dev, EINVAL,
					 "%s: %s[%u] was created through another handle than the %s (GEM handles belong to one file)",
					 what, name, i,
					 dev->kind == ANE_KIND_CONTROL ? "program" : "direct-path handle");
	}
	return 0;
}

/*
 * ProgramSendRequest of either space: @cmd DRM_IOCTL_ANE_CTL_SEND_REQUEST
 * for a program of a control handle, DRM_IOCTL_ANE_DP_SEND_REQUEST for an
 * attached program of a direct-path handle.  *@sequence is the request's
 * in.sequence, advanced when it is queued.
 */
static int submit_common(struct ane_dev *dev, unsigned long cmd, const char *what,
			 uint64_t token, uint64_t *sequence, uint32_t procedure,
			 struct ane_surface *const *inputs, unsigned int n_in,
			 struct ane_surface *const *outputs, unsigned int n_out,
			 const struct ane_request_event *events,
			 unsigned int n_events,
			 uint64_t abs_timeout_ns, uint64_t *seqno)
{
	struct drm_ane_request_result out;
	struct drm_ane_send_request *sr;
	struct ane__retry r;
	unsigned int i, k = 0;
	int ret;

	if (n_in > ANE_IMG_MAX_IO)
		return ane__fail(dev, EINVAL,
				 "%s: n_in is %u; a procedure takes at most %u inputs",
				 what, n_in, ANE_IMG_MAX_IO);
	if (!n_out || n_out > ANE_IMG_MAX_IO)
		return ane__fail(dev, EINVAL,
				 "%s: n_out is %u; a procedure has 1..%u outputs",
				 what, n_out, ANE_IMG_MAX_IO);
	if (n_events > ANE_REQ_MAX_EVENTS || (n_events && !events))
		return ane__fail_hint(dev, n_events > ANE_REQ_MAX_EVENTS ? E2BIG : EINVAL,
				      "a request has at most 16 wait and signal events (ANE_REQ_MAX_EVENTS)",
				      "%s: %u events", what, n_events);
	ret = check_surfaces(dev, what, "inputs", inputs, n_in);
	if (!ret)
		ret = check_surfaces(dev, what, "outputs", outputs, n_out);
	if (ret)
		return ret;

	/* One zeroed 2.4 KB tuple per handle, cleared after each use. */
	if (!dev->sr)
		dev->sr = calloc(1, sizeof(*dev->sr));
	sr = dev->sr;
	if (!sr)
		return ane__fail(dev, ENOMEM, "%s: allocating the request", what);
	sr->in.token = token;
	sr->in.sequence = *sequence;
	sr->in.qos_class = dev->qos_class ? dev->qos_class : 5;
	sr->in.exec_priority = dev->exec_priority ? dev->exec_priority : 21;
	sr->in.procedure = procedure;
	sr->in.io_category = 2;
	for (i = 0; i < n_in; i++)
		sr->in.surfaces[k++] = (struct drm_ane_surface_ref){
			.handle = inputs[i]->handle, .kind = ANE_SURFACE_INPUT,
			.bar = (uint8_t)i };
	for (i = 0; i < n_out; i++)
		sr->in.surfaces[k++] = (struct drm_ane_surface_ref){
			.handle = outputs[i]->handle, .kind = ANE_SURFACE_OUTPUT,
			.bar = (uint8_t)i };
	for (i = 0; i < n_events; i++)
		sr->in.surfaces[k++] = (struct drm_ane_surface_ref){
			.handle = events[i].handle,
			.kind = (uint8_t)events[i].kind };
	/*
	 * A full queue (-EBUSY) frees up when one of the program's requests
	 * completes: poll for its event.  A firmware that boots or recovers
	 * (-EAGAIN) is backed off.  Both until @abs_timeout_ns.
	 */
	ane__retry_init(&r, ANE__RETRY_EAGAIN | ANE__RETRY_EBUSY, ane__now_ns(),
			abs_timeout_ns, abs_timeout_ns);
	ret = ane__ioctl(dev, cmd, sr, &r);
	out = sr->out;
	memset(&sr->in, 0, offsetof(struct drm_ane_request, surfaces) +
	       k * sizeof(sr->in.surfaces[0]));
	memset(&sr->out, 0, sizeof(sr->out));
	if (ret) {
		ret = ane__fail_retry(dev, -ret, &r,
				      -ret == ENOENT && cmd == DRM_IOCTL_ANE_DP_SEND_REQUEST ?
				      "the token is not a program this handle attached (ane_program_attach()), or a surface's handle is unknown to this file" :
				      n_events ? pick_hint(-ret, event_hints) :
				      pick_hint(-ret, submit_hints),
				      "%s of token 0x%llx, sequence %llu, procedure %u, %u inputs, %u outputs",
				      what, (unsigned long long)token,
				      (unsigned long long)*sequence,
				      procedure, n_in, n_out);
		return ret;
	}
	if (out.status)
		return ane__fail_hint(dev, EIO, "the submission was not queued",
				      "%s of token 0x%llx: out.status is 0x%x",
				      what, (unsigned long long)token, out.status);
	(*sequence)++;
	if (seqno)
		*seqno = out.seqno;
	/* Out of memory here only costs the timeout message its detail. */
	(void)inflight_add(dev, out.seqno);
	ane__ok(dev);
	return 0;
}

int ane_request_submit(struct ane_program *prog, uint32_t procedure,
		       struct ane_surface *const *inputs, unsigned int n_in,
		       struct ane_surface *const *outputs, unsigned int n_out,
		       uint64_t *seqno)
{
	if (!prog)
		return -EINVAL;
	return ane_request_submit_timeout(prog, procedure, inputs, n_in, outputs,
					  n_out, ane_deadline_ns(prog->dev->timeout_ns),
					  seqno);
}

int ane_request_submit_timeout(struct ane_program *prog, uint32_t procedure,
			       struct ane_surface *const *inputs, unsigned int n_in,
			       struct ane_surface *const *outputs, unsigned int n_out,
			       uint64_t abs_timeout_ns, uint64_t *seqno)
{
	if (!prog)
		return -EINVAL;
	return submit_common(prog->dev, DRM_IOCTL_ANE_CTL_SEND_REQUEST,
			     "ProgramSendRequest (control selector 2)", prog->token,
			     &prog->next_sequence, procedure, inputs, n_in, outputs,
			     n_out, NULL, 0, abs_timeout_ns, seqno);
}

int ane_request_submit_events(struct ane_program *prog, uint32_t procedure,
			      struct ane_surface *const *inputs, unsigned int n_in,
			      struct ane_surface *const *outputs, unsigned int n_out,
			      const struct ane_request_event *events,
			      unsigned int n_events, uint64_t abs_timeout_ns,
			      uint64_t *seqno)
{
	if (!prog)
		return -EINVAL;
	return submit_common(prog->dev, DRM_IOCTL_ANE_CTL_SEND_REQUEST,
			     "ProgramSendRequest (control selector 2) with events",
			     prog->token, &prog->next_sequence, procedure, inputs,
			     n_in, outputs, n_out, events, n_events,
			     abs_timeout_ns, seqno);
}

int ane_attached_submit(struct ane_dev *dp, uint64_t token, uint32_t procedure,
			struct ane_surface *const *inputs, unsigned int n_in,
			struct ane_surface *const *outputs, unsigned int n_out,
			uint64_t abs_timeout_ns, uint64_t *seqno)
{
	const char *what = "ProgramSendRequest (direct-path selector 2)";

	if (!dp)
		return -EINVAL;
	if (dp->kind != ANE_KIND_DIRECT)
		return ane__fail_hint(dp, EBADRQC,
				      "a control handle submits its own programs with ane_request_submit()",
				      "%s on a control handle", what);
	return submit_common(dp, DRM_IOCTL_ANE_DP_SEND_REQUEST, what, token,
			     &dp->dp_sequence, procedure, inputs, n_in, outputs,
			     n_out, NULL, 0, abs_timeout_ns, seqno);
}

void ane_set_request_qos(struct ane_dev *dev, uint32_t qos_class,
			 uint32_t exec_priority)
{
	if (!dev)
		return;
	dev->qos_class = qos_class;
	dev->exec_priority = exec_priority;
}

const char *ane_request_status_str(int status)
{
	switch (status) {
	case 0:
		return "completed";
	case ANE_REQUEST_PENDING:
		return "not completed yet";
	case -ENXIO:
		return "the engine faulted on an unmapped device address (a DART translation fault: is every surface large enough for its bar?); DRM_IOCTL_ANE_GET_FAULT has the fault record";
	case -ETIMEDOUT:
		return "the firmware aborted the request at its ~2 s deadline";
	case -EIO:
		return "the firmware crashed or was reset while the request was queued or running";
	case -EINVAL:
		return "the engine refused an operation of the program";
	case -ECANCELED:
		return "the program was destroyed, the handle closed or the shared event deactivated before the request ran (a request waiting on events is cancelled then); a request waiting on a fence that failed reports that fence's error instead";
	default:
		return "unknown completion status";
	}
}

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
	inflight_del(dev, seqno);
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

/* ------------------------------------------------------------ ane_net_run */

/* How long ane_net_run() waits: well past the firmware's ~2 s deadline. */
#define ANE__RUN_TIMEOUT_NS	10000000000ull

int ane_net_run(struct ane_dev *dev, struct ane_net *net,
		const float *const *inputs, float *const *outputs)
{
	struct ane_surface *surf[2 * ANE_IMG_MAX_IO] = { NULL };
	struct ane_program *prog = NULL;
	unsigned int nin, nout, i;
	char saved[sizeof(dev->err)];
	const void *img;
	uint64_t seqno;
	size_t size;
	int ret, r;

	if (!net)
		return dev ? ane__fail(dev, EINVAL, "ane_net_run: net is NULL") : -EINVAL;
	if (!dev) {
		snprintf(net->err, sizeof(net->err),
			 "ane_net_run: dev is NULL: open the device with ane_open(NULL, ANE_KIND_CONTROL, ...) first");
		return -EINVAL;
	}
	ret = ane_net_build(net, &img, &size);
	if (ret)
		return ane__fail_hint(dev, -ret, "the net does not build", "ane_net_run: %s",
				      net->err);
	nin = net->n_inputs;
	nout = net->n_outputs;
	if ((nin && !inputs) || !outputs)
		return ane__fail(dev, EINVAL, "ane_net_run: %s is NULL", !outputs ? "outputs" : "inputs");
	for (i = 0; i < nin + nout; i++)
		if (i < nin ? !inputs[i] : !outputs[i - nin])
			return ane__fail(dev, EINVAL, "ane_net_run: %s[%u] is NULL",
					 i < nin ? "inputs" : "outputs", i < nin ? i : i - nin);

	ret = ane_program_create(dev, img, size, &prog);
	if (!ret)
		ret = ane_program_prepare(prog);
	for (i = 0; !ret && i < nin + nout; i++) {
		int id = i < nin ? net->inputs[i] : net->outputs[i - nin];
		uint64_t elems = ane__elems(net->t[id].dim);

		ret = ane_surface_create(dev, elems * 2, &surf[i]);
		if (!ret && i < nin)
			ane_fp16_from_float_array(ane_surface_map(surf[i]), inputs[i], elems);
	}
	if (!ret)
		ret = ane_request_submit(prog, 0, surf, nin, surf + nin, nout, &seqno);
	if (!ret) {
		int st;

		ret = ane_request_wait(dev, seqno, ane_deadline_ns(ANE__RUN_TIMEOUT_NS), &st, NULL);
		if (st == ANE_REQUEST_PENDING) {
			/* Give it its time before its buffers go. */
			memcpy(saved, dev->err, sizeof(saved));
			ane_request_wait(dev, seqno, ane_deadline_ns(ANE__RUN_TIMEOUT_NS), NULL, NULL);
			memcpy(dev->err, saved, sizeof(saved));
		}
	}
	for (i = 0; !ret && i < nout; i++) {
		int id = net->outputs[i];

		ane_float_from_fp16_array(outputs[i], ane_surface_map(surf[nin + i]),
					  ane__elems(net->t[id].dim));
	}

	/* Clean up; the first failure's message is the one that stays. */
	memcpy(saved, dev->err, sizeof(saved));
	for (i = 0; i < nin + nout; i++) {
		r = ane_surface_destroy(surf[i]);
		if (r && !ret) {
			ret = r;
			memcpy(saved, dev->err, sizeof(saved));
		}
	}
	r = ane_program_destroy(prog);
	if (r && !ret) {
		ret = r;
		memcpy(saved, dev->err, sizeof(saved));
	}
	if (r == -EBUSY)	/* still running: the kernel reclaims it at close */
		program_forget(prog);
	memcpy(dev->err, saved, sizeof(saved));
	return ret;
}
