// SPDX-License-Identifier: MIT
/*
 * libane: programs (create, prepare, unprepare, destroy, instances) and
 * surfaces, over the control selectors and the driver's own ioctls, each
 * refusal with a message that says what the errno means for that call.
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

/*
 * The memory limits' errnos (Documentation/accel/ane/security.rst), the
 * same for ProgramCreate and SurfaceCreate: which limit, and the module
 * parameter that moves it.
 */
#define ANE__HINT_E2BIG_IMAGE \
	"larger than the largest program image, the module parameter max_image_mb (256 MiB, the format's, by default and at most), or an intermediate_size above max_surface_mb (1 GiB by default): a smaller model, or root raises the limit in /sys/module/ane/parameters/"
#define ANE__HINT_EDQUOT \
	"this client (open file) would pass its memory limit, the module parameter mem_client_mb (three quarters of the device's by default): free programs or surfaces first, or root raises /sys/module/ane/parameters/mem_client_mb"
#define ANE__HINT_ENOMEM \
	"the device's clients together would pass its memory limit, the module parameter mem_device_mb (half of RAM by default), or the machine or the caller's memory cgroup is out of memory: wait for other clients to free theirs, or root raises /sys/module/ane/parameters/mem_device_mb (debugfs 'memory' shows what is charged)"

static const struct ane__hint create_hints[] = {
	{ EINVAL, "the kernel refused the image; its log (dmesg) names the offending field" },
	{ ENOSPC, "this file holds as many programs as it may: destroy some first" },
	{ E2BIG, ANE__HINT_E2BIG_IMAGE },
	{ EDQUOT, ANE__HINT_EDQUOT },
	{ ENOMEM, ANE__HINT_ENOMEM },
	{ 0, NULL },
};

static const struct ane__hint surface_hints[] = {
	{ E2BIG, "larger than the largest surface, the module parameter max_surface_mb (1 GiB by default and at most): root raises /sys/module/ane/parameters/max_surface_mb" },
	{ EDQUOT, ANE__HINT_EDQUOT },
	{ ENOMEM, ANE__HINT_ENOMEM },
	{ 0, NULL },
};

static const struct ane__hint prepare_hints[] = {
	{ EINVAL, "bad argument: a field was refused (priority 2..7, queue_depth)" },
	{ EALREADY, "the program is already prepared" },
	{ EBUSY, "no free firmware program slot or process: unprepare another program first" },
	{ EPERM, "priorities 0 and 1 (the real-time band) need the real-time capability (CAP_SYS_NICE at open): use 2 .. 7" },
	{ 0, NULL },
};

static const struct ane__hint unprepare_hints[] = {
	{ EALREADY, "the program is not prepared" },
	{ EBUSY, "requests of the program are in flight: wait for them first" },
	{ 0, NULL },
};

static const struct ane__hint destroy_hints[] = {
	{ EBUSY, "requests of the program are in flight, or instances of it are alive: wait for them, then destroy again (the handle is kept)" },
	{ 0, NULL },
};

static const struct ane__hint instance_hints[] = {
	{ EINVAL, "bad argument: the weights surface is smaller than the program's weights section (or it has none), or a field was refused" },
	{ ENOENT, "the program token or the weights handle is unknown to this file" },
	{ ENOSPC, "this file holds as many programs as it may: destroy some first" },
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
void ane__program_forget(struct ane_program *prog)
{
	if (prog->parent)
		prog->parent->n_instances--;
	free(prog);
}

/*
 * What ProgramCreate and ProgramCreateInstance share once their arguments
 * are checked: the handle first (so a program the kernel made always has
 * one), then the ioctl @cmd, whose argument @arg has the kernel write the
 * new token to *@token; a failure is reported with @hints, @call naming
 * the call and @what the ioctl.  Return: 0 with *@out the handle, or the
 * negative errno reported.
 */
static int program_make(struct ane_dev *dev, unsigned long cmd, void *arg,
			const uint64_t *token, const struct ane__hint *hints,
			const char *call, const char *what,
			struct ane_program **out)
{
	struct ane_program *p;
	struct ane__retry r;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return ane__fail(dev, ENOMEM, "%s: allocating the handle", call);
	ret = xioctl_r(dev, cmd, arg, 0, &r);
	if (ret) {
		free(p);
		return ane__fail_retry(dev, -ret, &r, ane__pick_hint(-ret, hints),
				       "%s", what);
	}
	p->dev = dev;
	p->token = *token;
	*out = p;
	return 0;
}

/* The calls that hand out a program: *@out cleared, @from given. */
static int program_out_init(struct ane_program **out, const void *from)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	return from ? 0 : -EINVAL;
}

int ane_program_create(struct ane_dev *dev, const void *image, size_t size,
		       struct ane_program **out)
{
	struct drm_ane_program_create pc;
	struct ane_img_header h;
	uint64_t token = 0;
	char what[96];
	int ret;

	ret = program_out_init(out, dev);
	if (ret)
		return ret;
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

	memset(&pc, 0, sizeof(pc));
	pc.image = (uintptr_t)image;
	pc.image_size = size;
	pc.token_ptr = (uintptr_t)&token;
	snprintf(what, sizeof(what),
		 "ProgramCreate (control selector 3) of a %zu-byte image", size);
	ret = program_make(dev, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &pc, &token,
			   create_hints, "ProgramCreate", what, out);
	if (ret)
		return ret;
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
				       ane__pick_hint(-ret, prepare_hints),
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
				       ane__pick_hint(-ret, unprepare_hints),
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
		ret = ane__fail_retry(dev, -ret, &r, ane__pick_hint(-ret, destroy_hints),
				      "ProgramDestroy (control selector 6) of token 0x%llx",
				      (unsigned long long)prog->token);
	if (ret == -EBUSY)
		return ret;
	ane__program_forget(prog);
	if (!ret)
		ane__ok(dev);
	return ret;
}

int ane_program_instance(struct ane_program *prog, struct ane_surface *weights,
			 struct ane_program **inst)
{
	struct drm_ane_program_create_instance ci;
	uint64_t token = 0;
	char what[128];
	int ret;

	ret = program_out_init(inst, prog);
	if (ret)
		return ret;
	if (prog->parent)
		return ane__fail(prog->dev, EINVAL,
				 "ProgramCreateInstance (control selector 8): token 0x%llx is itself an instance; make instances of its program",
				 (unsigned long long)prog->token);
	if (weights && weights->dev != prog->dev)
		return ane__fail(prog->dev, EINVAL,
				 "ProgramCreateInstance (control selector 8): the weights surface was created through another handle (GEM handles belong to one file)");
	memset(&ci, 0, sizeof(ci));
	ci.program = prog->token;
	ci.weights = weights ? weights->handle : 0;
	ci.token_ptr = (uintptr_t)&token;
	snprintf(what, sizeof(what),
		 "ProgramCreateInstance (control selector 8) of token 0x%llx, weights handle %u",
		 (unsigned long long)prog->token, ci.weights);
	ret = program_make(prog->dev, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci,
			   &token, instance_hints, "ProgramCreateInstance", what, inst);
	if (ret)
		return ret;
	(*inst)->parent = prog;
	prog->n_instances++;
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
		return ane__fail_hint(dev, -ret, ane__pick_hint(-ret, surface_hints),
				      "DRM_IOCTL_ANE_SURFACE_CREATE of %zu bytes", size);
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
