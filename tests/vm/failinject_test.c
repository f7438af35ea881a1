// SPDX-License-Identifier: MIT
/*
 * Allocation-failure injection over every ioctl, in the VM under the debug
 * kernel (tools/vm/build-debug-kernel.sh: FAILSLAB, FAIL_PAGE_ALLOC,
 * FAULT_INJECTION_STACKTRACE_FILTER, kmemleak).
 *
 * For each step (open, DeviceOpen, SurfaceCreate, mmap and its faults,
 * PRIME export and import, MemoryMap/Unmap, DMA, ProgramCreate, Prepare,
 * CreateInstance, SendRequest with an event or a syncobj, the small
 * selectors, close) the step runs with its Nth allocation failing, for
 * N = 1, 2, ... until it runs with no failure left to inject.  The failure
 * counter is /proc/thread-self/fail-nth; failslab and fail_page_alloc only
 * count allocations with ane.ko's code on the stack (require-start/-end =
 * the module's address range from /proc/modules), so the Nth allocation is
 * the Nth one the driver makes, or a kernel service makes for it, in this
 * thread.  Each injected failure must end in a clean -ENOMEM (or in
 * success, when the driver has a fallback); the same step must then
 * succeed with nothing injected, so a failure leaves no half-made state;
 * and at the end kmemleak must report no leaked object with an ane frame.
 * A kernel report on the console (KASAN, lockdep, ...) fails the VM run.
 *
 * Usage (as root, ane loaded, preferably with devices=2 for the
 * cross-device PRIME import): failinject_test [node]
 * Documentation/accel/ane/building-and-testing.rst, "Allocation-failure
 * injection".
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/prog_image.h"
#include "vm/vm_util.h"

#define MAX_N 1000	/* a step with more allocations than this is a bug */
#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static char node[64], other[64];
static int have_other;
static int nth_fd = -1, kmsg_fd = -1;

/* ------------------------------------------------------------ injection */

static int write_str(const char *path, const char *s)
{
	int r = vm_write_file(path, s);

	if (r)
		printf("#   write '%s' to %s: %s\n", s, path, strerror(-r));
	return r;
}

/* Leave a mark in the kernel log, so a splat names the step and N. */
__attribute__((format(printf, 1, 2)))
static void kmark(const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	int n;

	if (kmsg_fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "failinject: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	if (write(kmsg_fd, buf, (size_t)n) < 0)
		kmsg_fd = -1;
}

static void nth_arm(unsigned int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", n);

	if (pwrite(nth_fd, s, (size_t)len, 0) != len)
		printf("#   fail-nth write: %s\n", strerror(errno));
}

/* Disarm; 1 if the armed failure was injected, 0 if not. */
static int nth_disarm(void)
{
	char s[16] = "";
	ssize_t n = pread(nth_fd, s, sizeof(s) - 1, 0);

	if (pwrite(nth_fd, "0", 1, 0) != 1)
		printf("#   fail-nth write: %s\n", strerror(errno));
	return n > 0 && strtoul(s, NULL, 10) == 0;
}

/*
 * failslab and fail_page_alloc: GFP_KERNEL allocations too (ignore-gfp-wait
 * off), order 0 and highmem pages too, quiet (the fail-nth counter picks
 * the allocation), and only with ane.ko's code in the first 32 frames.
 */
static int setup_injection(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/debug/failslab", "/sys/kernel/debug/fail_page_alloc",
	};
	unsigned long long base = 0, size = 0;
	char line[256], path[128], v[32];
	FILE *f = fopen("/proc/modules", "r");
	unsigned int i;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "ane ", 4) &&
		    sscanf(line, "ane %llu %*s %*s %*s %llx", &size, &base) == 2)
			break;
	if (f)
		fclose(f);
	if (!base || !size) {
		printf("#   no address for ane in /proc/modules (loaded? kptr_restrict?)\n");
		return -1;
	}
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/ignore-gfp-wait", dirs[i]);
		if (access(path, W_OK)) {
			printf("#   %s: %s: the kernel lacks FAILSLAB/FAIL_PAGE_ALLOC/"
			       "FAULT_INJECTION_DEBUG_FS (use ane-vm --debug-kernel)\n",
			       path, strerror(errno));
			return -1;
		}
		if (write_str(path, "N"))
			return -1;
#define SET(name, val) do { \
	snprintf(path, sizeof(path), "%s/" name, dirs[i]); \
	if (write_str(path, val)) \
		return -1; \
} while (0)
		SET("verbose", "0");
		SET("probability", "0");
		SET("times", "-1");
		SET("stacktrace-depth", "32");
		snprintf(v, sizeof(v), "%llu", base);
		SET("require-start", v);
		snprintf(v, sizeof(v), "%llu", base + size);
		SET("require-end", v);
		SET("reject-start", "0");
		SET("reject-end", "0");
		if (i == 1) {
			SET("ignore-gfp-highmem", "N");
			SET("min-order", "0");
		}
#undef SET
	}
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		printf("#   /proc/thread-self/fail-nth: %s\n", strerror(errno));
		return -1;
	}
	/* One mark per injected call: more than /dev/kmsg's rate limit. */
	vm_write_file("/proc/sys/kernel/printk_devkmsg", "on\n");
	kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	printf("# ane.ko at 0x%llx, %llu bytes: failures injected there only\n", base, size);
	return 0;
}

/* ------------------------------------------------------------- the steps */

/* The VM tests' program (prog_image.h), with these weights. */
static const int W[6] = { 1, 0, 0, 1, 1, -1 };
static uint8_t img[IMG_SIZE];

/* What a step works on; setup() makes it, teardown() releases all of it. */
struct ctx {
	int fd, fd2;		/* client; a second one (PRIME import) */
	int ctl;		/* fd is a control (1) or direct-path (0) client */
	uint64_t token, token2;
	uint32_t surf, in, out, wts, syncobj, imported;
	uint64_t offset, iova, prog, inst;
	int dbuf;
	uint8_t *map;
};

static int dev_open(int fd, int ctl, uint64_t *token)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
	int r = ioctl(fd, ctl ? DRM_IOCTL_ANE_CTL_DEVICE_OPEN : DRM_IOCTL_ANE_DP_DEVICE_OPEN,
		      &op);

	if (!r && token)
		*token = op.out.token;
	return r;
}

static int surface(int fd, uint64_t size, uint32_t *handle, uint64_t *offset)
{
	struct drm_ane_surface_create sc = { .size = size };
	int r = ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc);

	if (!r) {
		*handle = sc.handle;
		if (offset)
			*offset = sc.offset;
	}
	return r;
}

static void gem_close(int fd, uint32_t *handle)
{
	struct drm_gem_close gc = { .handle = *handle };

	if (*handle && ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc))
		printf("#   GEM_CLOSE %u: %s\n", *handle, strerror(errno));
	*handle = 0;
}

static int map_surface(struct ctx *c)
{
	static struct drm_ane_memory_map mr;
	int r;

	memset(&mr, 0, sizeof(mr));
	mr.token = c->token;
	mr.in.num_surfaces = 1;
	mr.in.direction = 3;
	mr.in.surfaces[0].handle = c->surf;
	mr.in.surfaces[0].usage = 1;
	r = ioctl(c->fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr);
	if (!r)
		c->iova = mr.iova;
	return r;
}

static int unmap_surface(struct ctx *c)
{
	static struct drm_ane_memory_unmap ur;
	int r;

	memset(&ur, 0, sizeof(ur));
	ur.in.iova = c->iova;
	r = ioctl(c->fd, DRM_IOCTL_ANE_DP_MEMORY_UNMAP, &ur);
	if (!r)
		c->iova = 0;
	return r;
}

static int create_program(struct ctx *c)
{
	struct drm_ane_program_create pc = {
		.image = (uintptr_t)img, .image_size = IMG_SIZE,
		.token_ptr = (uintptr_t)&c->prog,
	};

	return ioctl(c->fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &pc);
}

static int destroy(struct ctx *c, uint64_t *tok)
{
	struct drm_ane_program_destroy pd = { .token = *tok };
	int r = ioctl(c->fd, DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, &pd);

	if (!r)
		*tok = 0;
	return r;
}

static int prepare(struct ctx *c)
{
	struct drm_ane_program_prepare pp;

	memset(&pp, 0, sizeof(pp));
	pp.in.token = c->prog;
	return ioctl(c->fd, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, &pp);
}

static int unprepare(struct ctx *c)
{
	struct drm_ane_program_unprepare pu;

	memset(&pu, 0, sizeof(pu));
	pu.in.token = c->prog;
	return ioctl(c->fd, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, &pu);
}

/* Setups, each building on the one before. */
static int s_fd(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->fd2 = -1;
	c->dbuf = -1;
	c->fd = open(node, O_RDWR | O_CLOEXEC);
	return c->fd < 0 ? -1 : 0;
}

static int s_ctl(struct ctx *c)
{
	if (s_fd(c))
		return -1;
	c->ctl = 1;
	return dev_open(c->fd, 1, &c->token);
}

static int s_dp(struct ctx *c)
{
	return s_fd(c) || dev_open(c->fd, 0, &c->token);
}

static int s_dp_surface(struct ctx *c)
{
	return s_dp(c) || surface(c->fd, 3 * PAGE16K, &c->surf, &c->offset);
}

static int s_dp_mapped(struct ctx *c)
{
	return s_dp_surface(c) || map_surface(c);
}

static int s_exported(struct ctx *c)
{
	struct drm_prime_handle ph = { .flags = DRM_CLOEXEC | DRM_RDWR };

	if (s_dp_surface(c))
		return -1;
	ph.handle = c->surf;
	if (ioctl(c->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph))
		return -1;
	c->dbuf = ph.fd;
	return 0;
}

/* An exported surface and a second client: of the other device if any. */
static int s_import(struct ctx *c)
{
	if (s_exported(c))
		return -1;
	c->fd2 = open(have_other ? other : node, O_RDWR | O_CLOEXEC);
	return c->fd2 < 0 || dev_open(c->fd2, 0, &c->token2) ? -1 : 0;
}

static int s_program(struct ctx *c)
{
	return s_ctl(c) || create_program(c);
}

static int s_prepared(struct ctx *c)
{
	return s_program(c) || prepare(c);
}

static int s_ready(struct ctx *c)
{
	uint16_t *p;
	int i;

	if (s_prepared(c) || surface(c->fd, 12, &c->in, &c->offset) ||
	    surface(c->fd, 8, &c->out, NULL) || surface(c->fd, 12, &c->wts, NULL))
		return -1;
	p = mmap(NULL, PAGE16K, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, (off_t)c->offset);
	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < 6; i++)
		p[i] = 0x3c00;		/* 1.0 */
	munmap(p, PAGE16K);
	return 0;
}

static int s_ready_syncobj(struct ctx *c)
{
	struct drm_syncobj_create scr = { 0 };

	if (s_ready(c) || ioctl(c->fd, DRM_IOCTL_SYNCOBJ_CREATE, &scr))
		return -1;
	c->syncobj = scr.handle;
	return 0;
}

/* Everything at once, with a request done: what close() has to undo. */
static int s_everything(struct ctx *c);

static void teardown(struct ctx *c)
{
	if (c->map)
		munmap(c->map, 3 * PAGE16K);
	if (c->dbuf >= 0)
		close(c->dbuf);
	if (c->fd2 >= 0)
		close(c->fd2);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
}

/* --------------------------------------------------- the calls under test */

static int op_open(struct ctx *c)
{
	c->fd = open(node, O_RDWR | O_CLOEXEC);
	return c->fd < 0 ? -1 : 0;
}

static int op_ctl_open(struct ctx *c)
{
	return dev_open(c->fd, 1, &c->token);
}

static int op_dp_open(struct ctx *c)
{
	return dev_open(c->fd, 0, &c->token);
}

static int op_surface(struct ctx *c)
{
	return surface(c->fd, 3 * PAGE16K, &c->surf, &c->offset);
}

static void un_surface(struct ctx *c)
{
	gem_close(c->fd, &c->surf);
}

/* mmap, and a write to every page: the fault path inserts the pages. */
static int op_mmap(struct ctx *c)
{
	uint8_t *p = mmap(NULL, 3 * PAGE16K, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
			  (off_t)c->offset);
	unsigned int i;

	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < 3 * PAGE16K; i += 4096)
		p[i] = (uint8_t)i;
	c->map = p;
	return 0;
}

static void un_mmap(struct ctx *c)
{
	munmap(c->map, 3 * PAGE16K);
	c->map = NULL;
}

static int op_export(struct ctx *c)
{
	struct drm_prime_handle ph = { .handle = c->surf, .flags = DRM_CLOEXEC | DRM_RDWR };

	if (ioctl(c->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph))
		return -1;
	c->dbuf = ph.fd;
	return 0;
}

static void un_export(struct ctx *c)
{
	close(c->dbuf);
	c->dbuf = -1;
}

static int op_import(struct ctx *c)
{
	struct drm_prime_handle ph = { .fd = c->dbuf };

	if (ioctl(c->fd2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph))
		return -1;
	c->imported = ph.handle;
	return 0;
}

static void un_import(struct ctx *c)
{
	gem_close(c->fd2, &c->imported);
}

/* Import, and map the imported surface on its (other) device. */
static int op_import_map(struct ctx *c)
{
	static struct drm_ane_memory_map mr;

	if (!c->imported && op_import(c))
		return -1;
	memset(&mr, 0, sizeof(mr));
	mr.token = c->token2;
	mr.in.num_surfaces = 1;
	mr.in.direction = 3;
	mr.in.surfaces[0].handle = c->imported;
	mr.in.surfaces[0].usage = 1;
	if (ioctl(c->fd2, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr))
		return -1;
	c->iova = mr.iova;
	return 0;
}

static void un_import_map(struct ctx *c)
{
	static struct drm_ane_memory_unmap ur;

	memset(&ur, 0, sizeof(ur));
	ur.in.iova = c->iova;
	if (ioctl(c->fd2, DRM_IOCTL_ANE_DP_MEMORY_UNMAP, &ur))
		printf("#   unmap of the import: %s\n", strerror(errno));
	un_import(c);
}

static int op_map(struct ctx *c)
{
	return map_surface(c);
}

static void un_map(struct ctx *c)
{
	if (unmap_surface(c))
		printf("#   MemoryUnmap: %s\n", strerror(errno));
}

static int op_unmap(struct ctx *c)
{
	return unmap_surface(c);
}

static void un_unmap(struct ctx *c)
{
	if (map_surface(c))
		printf("#   MemoryMap: %s\n", strerror(errno));
}

static uint8_t dmabuf[2 * PAGE16K];

static int op_dma(struct ctx *c)
{
	struct drm_ane_dma d = {
		.iova = c->iova + 100, .size = 2 * PAGE16K, .data = (uintptr_t)dmabuf,
		.flags = ANE_DMA_WRITE,
	};

	if (ioctl(c->fd, DRM_IOCTL_ANE_DMA, &d))
		return -1;
	d.flags = 0;
	return ioctl(c->fd, DRM_IOCTL_ANE_DMA, &d);
}

static int op_create(struct ctx *c)
{
	return create_program(c);
}

static void un_create(struct ctx *c)
{
	if (destroy(c, &c->prog))
		printf("#   ProgramDestroy: %s\n", strerror(errno));
}

static int op_prepare(struct ctx *c)
{
	return prepare(c);
}

static void un_prepare(struct ctx *c)
{
	if (unprepare(c))
		printf("#   ProgramUnprepare: %s\n", strerror(errno));
}

static int op_unprepare(struct ctx *c)
{
	return unprepare(c);
}

static void un_unprepare(struct ctx *c)
{
	if (prepare(c))
		printf("#   ProgramPrepare: %s\n", strerror(errno));
}

static int op_destroy(struct ctx *c)
{
	return destroy(c, &c->prog);
}

static void un_destroy(struct ctx *c)
{
	if (create_program(c))
		printf("#   ProgramCreate: %s\n", strerror(errno));
}

static int op_instance(struct ctx *c)
{
	struct drm_ane_program_create_instance ci = {
		.program = c->prog, .weights = c->wts, .token_ptr = (uintptr_t)&c->inst,
	};

	return ioctl(c->fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci);
}

static void un_instance(struct ctx *c)
{
	if (destroy(c, &c->inst))
		printf("#   ProgramDestroy of the instance: %s\n", strerror(errno));
}

static struct drm_ane_send_request sr;

static int submit(struct ctx *c, uint32_t syncobj)
{
	memset(&sr, 0, sizeof(sr));
	sr.in.token = c->prog;
	sr.in.qos_class = 5;
	sr.in.exec_priority = 21;
	sr.in.io_category = 2;
	sr.in.surfaces[0] = (struct drm_ane_surface_ref){ .handle = c->in,
							  .kind = ANE_SURFACE_INPUT };
	sr.in.surfaces[1] = (struct drm_ane_surface_ref){ .handle = c->out,
							  .kind = ANE_SURFACE_OUTPUT };
	if (syncobj)
		sr.in.surfaces[2] = (struct drm_ane_surface_ref){
			.handle = syncobj, .kind = ANE_SURFACE_OUT_SYNCOBJ };
	return ioctl(c->fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr);
}

static int last_status;

/* The request's completion event; its status goes to last_status. */
static int wait_event(struct ctx *c)
{
	struct drm_ane_event_complete ev;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	if (poll(&pfd, 1, 20000) != 1) {
		printf("#   no completion event in 20 s\n");
		errno = ETIMEDOUT;
		return -1;
	}
	if (read(c->fd, &ev, sizeof(ev)) != sizeof(ev) ||
	    ev.base.type != DRM_ANE_EVENT_REQUEST_COMPLETE) {
		printf("#   bad completion event\n");
		errno = EPROTO;
		return -1;
	}
	last_status = ev.status;
	return 0;
}

static int op_submit(struct ctx *c)
{
	return submit(c, 0);
}

static void un_submit(struct ctx *c)
{
	if (wait_event(c) || last_status)
		printf("#   request status %d\n", last_status);
}

static int op_submit_syncobj(struct ctx *c)
{
	return submit(c, c->syncobj);
}

static void un_submit_syncobj(struct ctx *c)
{
	struct drm_syncobj_wait sw;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	memset(&sw, 0, sizeof(sw));
	sw.handles = (uintptr_t)&c->syncobj;
	sw.count_handles = 1;
	sw.timeout_nsec = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + 20000000000ll;
	if (ioctl(c->fd, DRM_IOCTL_SYNCOBJ_WAIT, &sw))
		printf("#   SYNCOBJ_WAIT: %s\n", strerror(errno));
	un_submit(c);
}

static int op_status(struct ctx *c)
{
	struct drm_ane_get_status st;
	struct drm_ane_get_version gv;

	memset(&st, 0, sizeof(st));
	memset(&gv, 0, sizeof(gv));
	if (ioctl(c->fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &st))
		return -1;
	return ioctl(c->fd, DRM_IOCTL_ANE_CTL_GET_VERSION, &gv);
}

static int op_fault(struct ctx *c)
{
	static struct drm_ane_get_fault gf;

	memset(&gf, 0, sizeof(gf));
	return ioctl(c->fd, DRM_IOCTL_ANE_GET_FAULT, &gf);
}

static int op_dev_close(struct ctx *c)
{
	return ioctl(c->fd, c->ctl ? DRM_IOCTL_ANE_CTL_DEVICE_CLOSE :
		     DRM_IOCTL_ANE_DP_DEVICE_CLOSE, NULL);
}

static int s_everything(struct ctx *c)
{
	if (s_ready_syncobj(c) || op_instance(c) || op_submit_syncobj(c))
		return -1;
	un_submit_syncobj(c);
	return submit(c, 0);	/* one left for close() to reap */
}

/* close() of a client holding everything; the release path's allocations. */
static int op_close(struct ctx *c)
{
	int r = close(c->fd);

	c->fd = -1;
	return r;
}

/* ---------------------------------------------------------- the driver */

struct step {
	const char *name;
	int (*setup)(struct ctx *c);
	int (*op)(struct ctx *c);
	void (*undo)(struct ctx *c);	/* after a successful op */
	int once;			/* op cannot be retried in the same setup */
};

static int errno_ok(int e)
{
	return e == ENOMEM;
}

/*
 * Run @st with its Nth allocation failing, N = 1, 2, ... until one run
 * injects nothing.  Returns the number of allocations failed.
 */
static unsigned int run_step(const struct step *st)
{
	unsigned int n, injected = 0, recovered = 0;
	struct ctx c;
	int r, e, fired;

	for (n = 1; n <= MAX_N; n++) {
		memset(&c, 0, sizeof(c));
		c.fd = c.fd2 = c.dbuf = -1;
		if (st->setup && st->setup(&c)) {
			T_CHECK(0, "%s: setup for N=%u failed: %s", st->name, n, strerror(errno));
			teardown(&c);
			return injected;
		}
		kmark("%s N=%u\n", st->name, n);
		nth_arm(n);
		errno = 0;
		r = st->op(&c);
		e = errno;
		fired = nth_disarm();
		if (r == 0 && st->undo)
			st->undo(&c);
		if (!fired) {
			T_CHECK(r == 0, "%s: fails with nothing injected: %s", st->name,
				strerror(e));
			teardown(&c);
			break;
		}
		injected++;
		if (r == 0) {
			recovered++;
		} else {
			T_CHECK(errno_ok(e), "%s: allocation %u failed: errno %d (%s), want ENOMEM",
				st->name, n, e, strerror(e));
			/* The failure left nothing half-made: the call works now. */
			if (!st->once) {
				errno = 0;
				r = st->op(&c);
				T_CHECK(r == 0, "%s: after allocation %u failed, the retry fails: %s",
					st->name, n, strerror(errno));
				if (r == 0 && st->undo)
					st->undo(&c);
			}
		}
		teardown(&c);
	}
	T_CHECK(n <= MAX_N, "%s: still injecting after %u allocations", st->name, MAX_N);
	/*
	 * Absorbed: the call still succeeded -- a fallback (kvmalloc's
	 * vmalloc after kmalloc), or an allocation of the kernel's own
	 * checkers (kmemleak's metadata has a reserve pool, KASAN's stack
	 * depot does without).
	 */
	printf("#   %s: %u allocation(s) failed in turn: %u ENOMEM, %u absorbed\n",
	       st->name, injected, injected - recovered, recovered);
	return injected;
}

static const struct step steps[] = {
	{ "open", NULL, op_open, NULL, 1 },
	{ "ctl-device-open", s_fd, op_ctl_open, NULL, 0 },
	{ "dp-device-open", s_fd, op_dp_open, NULL, 0 },
	{ "surface-create", s_dp, op_surface, un_surface, 0 },
	{ "mmap", s_dp_surface, op_mmap, un_mmap, 0 },
	{ "prime-export", s_dp_surface, op_export, un_export, 0 },
	{ "prime-import", s_import, op_import, un_import, 0 },
	{ "prime-import-map", s_import, op_import_map, un_import_map, 0 },
	{ "memory-map", s_dp_surface, op_map, un_map, 0 },
	{ "memory-unmap", s_dp_mapped, op_unmap, un_unmap, 0 },
	{ "dma", s_dp_mapped, op_dma, NULL, 0 },
	{ "get-fault", s_dp, op_fault, NULL, 0 },
	{ "dp-device-close", s_dp, op_dev_close, NULL, 1 },
	{ "program-create", s_ctl, op_create, un_create, 0 },
	{ "program-prepare", s_program, op_prepare, un_prepare, 0 },
	{ "program-unprepare", s_prepared, op_unprepare, un_unprepare, 0 },
	{ "program-destroy", s_program, op_destroy, un_destroy, 0 },
	{ "create-instance", s_ready, op_instance, un_instance, 0 },
	{ "send-request", s_ready, op_submit, un_submit, 0 },
	{ "send-request-syncobj", s_ready_syncobj, op_submit_syncobj, un_submit_syncobj, 0 },
	{ "get-status-version", s_ctl, op_status, NULL, 0 },
	{ "ctl-device-close", s_ctl, op_dev_close, NULL, 1 },
	{ "close-everything", s_everything, op_close, NULL, 1 },
};

static unsigned int total;

static void every_step_fails_cleanly_at_every_allocation(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		total += run_step(&steps[i]);
	printf("#   %u injected allocation failures in all\n", total);
	/* The filter works and the driver allocates: this can't be zero. */
	T_CHECK(total > 0, "no allocation failed: is the filter right?");
}

/*
 * kmemleak: objects allocated through ane and no longer referenced.  The
 * scan runs with ane.ko loaded, so the backtraces name its functions.
 */
static void nothing_leaked(void)
{
	char line[512], rec[8192];
	size_t len = 0;
	int in_rec = 0, ane = 0, leaks = 0, all = 0;
	FILE *f;

	sleep(6);	/* kmemleak skips objects younger than 5 s */
	/*
	 * Not the tasks' stacks: this thread's kernel stack still holds stale
	 * pointers from the calls above, which would hide their leaks.
	 */
	T_OK(vm_write_file(KMEMLEAK, "stack=off"));
	T_OK(vm_write_file(KMEMLEAK, "scan"));
	T_OK(vm_write_file(KMEMLEAK, "scan"));
	T_OK(vm_write_file(KMEMLEAK, "stack=on"));
	f = fopen(KMEMLEAK, "r");
	T_CHECK(f, "%s: %s", KMEMLEAK, strerror(errno));
	if (!f)
		return;
	for (;;) {
		int eof = !fgets(line, sizeof(line), f);

		if (eof || !strncmp(line, "unreferenced object", 19)) {
			if (in_rec) {
				all++;
				if (ane) {
					leaks++;
					fputs(rec, stdout);
				}
			}
			if (eof)
				break;
			in_rec = 1;
			ane = 0;
			len = 0;
			rec[0] = 0;
		}
		if (strstr(line, "[ane]"))
			ane = 1;
		if (len + strlen(line) + 3 < sizeof(rec)) {
			rec[len++] = '#';
			rec[len++] = ' ';
			strcpy(rec + len, line);
			len += strlen(line);
		}
	}
	fclose(f);
	printf("#   kmemleak: %d unreferenced object(s), %d through ane\n", all, leaks);
	T_EQ(leaks, 0);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "failinject"))
		return 1;
	have_other = ane_find_node(1, other, sizeof(other)) == 0 && strcmp(other, node);
	if (!have_other)
		printf("# one ane device: PRIME imports into a second client of it\n");
	build_image(img, W);
	memset(dmabuf, 0x5a, sizeof(dmabuf));
	if (setup_injection()) {
		printf("not ok - setup\nfailinject: 0 passed, 1 failed\n");
		return 1;
	}
	/* Start from a clean slate: earlier leaks are someone else's. */
	if (vm_write_file(KMEMLEAK, "scan") || vm_write_file(KMEMLEAK, "clear")) {
		printf("not ok - %s: %s\nfailinject: 0 passed, 1 failed\n", KMEMLEAK,
		       strerror(errno));
		return 1;
	}
	T_RUN(every_step_fails_cleanly_at_every_allocation);
	T_RUN(nothing_leaked);
	return t_summary("failinject");
}
