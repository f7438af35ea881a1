// SPDX-License-Identifier: MIT
/*
 * DRM core ioctls on the accel node, run inside the VM against ane.ko as an
 * unprivileged user (uid/gid 65534, the node made 0666 by root, and gid
 * 65534 named the client group, client_gid, so that it may use the
 * engine: caps_test shows the same user refused without it): the core
 * ioctls the node implements (Documentation/accel/ane/uapi.rst, "DRM core
 * ioctls on the accel node") work; every other core number, every unused
 * number of the driver range and every ioctl of another type fails with
 * -ENOTTY, with zeroed and with garbage arguments, in every direction and
 * at every size the kernel defines and more, and leaves the argument
 * untouched; SYNCOBJ_RESET, _SIGNAL and _WAIT, which the driver answers
 * itself, refuse a count_handles above the driver's bound without a kernel
 * WARNING and otherwise answer as DRM's core does (COREIOCTL_ONLY=syncobj_sem
 * runs just those cases, e.g. against the module of 5af0fd6); and
 * afterwards a new open of the node answers at once.
 *
 * Each case runs in a child process: a kernel Oops kills the child, not the
 * suite, and a child that does not finish in time (a task stuck in the
 * kernel) fails its case.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"
#include "vm/prog_util.h"

#define NOBODY		65534
#define SEED		0x616e65636f7265ull	/* "anecore" */

/* COREIOCTL_ONLY=TEXT in the environment: run only the cases naming TEXT. */
static const char *only;
#define RUN(fn) do { \
	if (!only || strstr(#fn, only)) \
		T_RUN(fn); \
} while (0)

/* Every core ioctl <drm/drm.h> defines, for its name and its encoding. */
#define C(x) { x, #x }
static const struct {
	unsigned long cmd;
	const char *name;
} core[] = {
	C(DRM_IOCTL_VERSION), C(DRM_IOCTL_GET_UNIQUE), C(DRM_IOCTL_GET_MAGIC),
	C(DRM_IOCTL_IRQ_BUSID), C(DRM_IOCTL_GET_MAP), C(DRM_IOCTL_GET_CLIENT),
	C(DRM_IOCTL_GET_STATS), C(DRM_IOCTL_SET_VERSION),
	C(DRM_IOCTL_MODESET_CTL), C(DRM_IOCTL_GEM_CLOSE),
	C(DRM_IOCTL_GEM_FLINK), C(DRM_IOCTL_GEM_OPEN), C(DRM_IOCTL_GET_CAP),
	C(DRM_IOCTL_SET_CLIENT_CAP), C(DRM_IOCTL_SET_UNIQUE),
	C(DRM_IOCTL_AUTH_MAGIC), C(DRM_IOCTL_BLOCK), C(DRM_IOCTL_UNBLOCK),
	C(DRM_IOCTL_CONTROL), C(DRM_IOCTL_ADD_MAP), C(DRM_IOCTL_ADD_BUFS),
	C(DRM_IOCTL_MARK_BUFS), C(DRM_IOCTL_INFO_BUFS), C(DRM_IOCTL_MAP_BUFS),
	C(DRM_IOCTL_FREE_BUFS), C(DRM_IOCTL_RM_MAP),
	C(DRM_IOCTL_SET_SAREA_CTX), C(DRM_IOCTL_GET_SAREA_CTX),
	C(DRM_IOCTL_SET_MASTER), C(DRM_IOCTL_DROP_MASTER),
	C(DRM_IOCTL_ADD_CTX), C(DRM_IOCTL_RM_CTX), C(DRM_IOCTL_MOD_CTX),
	C(DRM_IOCTL_GET_CTX), C(DRM_IOCTL_SWITCH_CTX), C(DRM_IOCTL_NEW_CTX),
	C(DRM_IOCTL_RES_CTX), C(DRM_IOCTL_ADD_DRAW), C(DRM_IOCTL_RM_DRAW),
	C(DRM_IOCTL_DMA), C(DRM_IOCTL_LOCK), C(DRM_IOCTL_UNLOCK),
	C(DRM_IOCTL_FINISH), C(DRM_IOCTL_PRIME_HANDLE_TO_FD),
	C(DRM_IOCTL_PRIME_FD_TO_HANDLE), C(DRM_IOCTL_AGP_ACQUIRE),
	C(DRM_IOCTL_AGP_RELEASE), C(DRM_IOCTL_AGP_ENABLE),
	C(DRM_IOCTL_AGP_INFO), C(DRM_IOCTL_AGP_ALLOC), C(DRM_IOCTL_AGP_FREE),
	C(DRM_IOCTL_AGP_BIND), C(DRM_IOCTL_AGP_UNBIND), C(DRM_IOCTL_SG_ALLOC),
	C(DRM_IOCTL_SG_FREE), C(DRM_IOCTL_WAIT_VBLANK),
	C(DRM_IOCTL_CRTC_GET_SEQUENCE), C(DRM_IOCTL_CRTC_QUEUE_SEQUENCE),
	C(DRM_IOCTL_UPDATE_DRAW), C(DRM_IOCTL_MODE_GETRESOURCES),
	C(DRM_IOCTL_MODE_GETCRTC), C(DRM_IOCTL_MODE_SETCRTC),
	C(DRM_IOCTL_MODE_CURSOR), C(DRM_IOCTL_MODE_GETGAMMA),
	C(DRM_IOCTL_MODE_SETGAMMA), C(DRM_IOCTL_MODE_GETENCODER),
	C(DRM_IOCTL_MODE_GETCONNECTOR), C(DRM_IOCTL_MODE_ATTACHMODE),
	C(DRM_IOCTL_MODE_DETACHMODE), C(DRM_IOCTL_MODE_GETPROPERTY),
	C(DRM_IOCTL_MODE_SETPROPERTY), C(DRM_IOCTL_MODE_GETPROPBLOB),
	C(DRM_IOCTL_MODE_GETFB), C(DRM_IOCTL_MODE_ADDFB),
	C(DRM_IOCTL_MODE_RMFB), C(DRM_IOCTL_MODE_PAGE_FLIP),
	C(DRM_IOCTL_MODE_DIRTYFB), C(DRM_IOCTL_MODE_CREATE_DUMB),
	C(DRM_IOCTL_MODE_MAP_DUMB), C(DRM_IOCTL_MODE_DESTROY_DUMB),
	C(DRM_IOCTL_MODE_GETPLANERESOURCES), C(DRM_IOCTL_MODE_GETPLANE),
	C(DRM_IOCTL_MODE_SETPLANE), C(DRM_IOCTL_MODE_ADDFB2),
	C(DRM_IOCTL_MODE_OBJ_GETPROPERTIES), C(DRM_IOCTL_MODE_OBJ_SETPROPERTY),
	C(DRM_IOCTL_MODE_CURSOR2), C(DRM_IOCTL_MODE_ATOMIC),
	C(DRM_IOCTL_MODE_CREATEPROPBLOB), C(DRM_IOCTL_MODE_DESTROYPROPBLOB),
	C(DRM_IOCTL_SYNCOBJ_CREATE), C(DRM_IOCTL_SYNCOBJ_DESTROY),
	C(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD), C(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE),
	C(DRM_IOCTL_SYNCOBJ_WAIT), C(DRM_IOCTL_SYNCOBJ_RESET),
	C(DRM_IOCTL_SYNCOBJ_SIGNAL), C(DRM_IOCTL_MODE_CREATE_LEASE),
	C(DRM_IOCTL_MODE_LIST_LESSEES), C(DRM_IOCTL_MODE_GET_LEASE),
	C(DRM_IOCTL_MODE_REVOKE_LEASE), C(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT),
	C(DRM_IOCTL_SYNCOBJ_QUERY), C(DRM_IOCTL_SYNCOBJ_TRANSFER),
	C(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL),
#ifdef DRM_IOCTL_MODE_GETFB2
	C(DRM_IOCTL_MODE_GETFB2),
#endif
#ifdef DRM_IOCTL_SYNCOBJ_EVENTFD
	C(DRM_IOCTL_SYNCOBJ_EVENTFD),
#endif
#ifdef DRM_IOCTL_MODE_CLOSEFB
	C(DRM_IOCTL_MODE_CLOSEFB),
#endif
};
#define NCORE (sizeof(core) / sizeof(core[0]))

/* The core ioctls the node implements (uapi.rst); all others: -ENOTTY. */
static const unsigned long allowed[] = {
	DRM_IOCTL_VERSION, DRM_IOCTL_GET_CAP, DRM_IOCTL_GEM_CLOSE,
	DRM_IOCTL_PRIME_HANDLE_TO_FD, DRM_IOCTL_PRIME_FD_TO_HANDLE,
	DRM_IOCTL_SYNCOBJ_CREATE, DRM_IOCTL_SYNCOBJ_DESTROY,
	DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE,
	DRM_IOCTL_SYNCOBJ_WAIT, DRM_IOCTL_SYNCOBJ_RESET,
	DRM_IOCTL_SYNCOBJ_SIGNAL,
};
#define NALLOWED (sizeof(allowed) / sizeof(allowed[0]))

/* The numbers of the driver range the driver answers (not -ENOTTY). */
static const unsigned long driver_cmds[] = {
	DRM_IOCTL_ANE_CTL_DEVICE_OPEN, DRM_IOCTL_ANE_CTL_DEVICE_CLOSE,
	DRM_IOCTL_ANE_CTL_SEND_REQUEST, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE,
	DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE,
	DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, DRM_IOCTL_ANE_CTL_GET_STATUS,
	DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE,
	DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, DRM_IOCTL_ANE_CTL_GET_VERSION,
	DRM_IOCTL_ANE_CTL_REGISTER_DWP, DRM_IOCTL_ANE_CTL_UNREGISTER_DWP,
	DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, DRM_IOCTL_ANE_CTL_COMPLETE_DWP_ITEM,
	DRM_IOCTL_ANE_CTL_RELEASE_DWP_BUFFERS, DRM_IOCTL_ANE_CTL_LOAD_FIRMWARE,
	DRM_IOCTL_ANE_DP_DEVICE_OPEN, DRM_IOCTL_ANE_DP_DEVICE_CLOSE,
	DRM_IOCTL_ANE_DP_SEND_REQUEST, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE,
	DRM_IOCTL_ANE_DP_INPUTS_READY, DRM_IOCTL_ANE_DP_MEMORY_MAP,
	DRM_IOCTL_ANE_DP_MEMORY_UNMAP, DRM_IOCTL_ANE_DP_SESSION_HINT,
	DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, DRM_IOCTL_ANE_SURFACE_CREATE,
	DRM_IOCTL_ANE_PROGRAM_EXPORT, DRM_IOCTL_ANE_PROGRAM_ATTACH,
	DRM_IOCTL_ANE_DMA, DRM_IOCTL_ANE_GET_FAULT, DRM_IOCTL_ANE_CAPS_DROP,
	DRM_IOCTL_ANE_METHOD, DRM_IOCTL_ANE_METHOD_BUF,
};
#define NDRIVER (sizeof(driver_cmds) / sizeof(driver_cmds[0]))

static const unsigned int dirs[] = {
	_IOC_NONE, _IOC_WRITE, _IOC_READ, _IOC_READ | _IOC_WRITE,
};
static const unsigned int sizes[] = { 0, 1, 4, 8, 16, 64, 128, 129, 4096, 16383 };

/* Argument buffers: larger than any encodable size (14 bits). */
#define ARG_MAX		(1u << _IOC_SIZEBITS)
static union {
	uint8_t b[ARG_MAX];
	uint64_t align;
} arg;

static uint64_t rng = SEED;

/* Misses printed so far by this process (only the first few are). */
static unsigned int printed;
#define MAX_PRINTED	12

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill_garbage(void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)rnd();
}

static int all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

static const char *core_name(unsigned int nr)
{
	size_t i;

	for (i = 0; i < NCORE; i++)
		if (_IOC_NR(core[i].cmd) == nr)
			return core[i].name;
	return "(no core ioctl)";
}

/* The size the kernel's header gives core number @nr, or 0. */
static unsigned int core_size(unsigned int nr)
{
	size_t i;

	for (i = 0; i < NCORE; i++)
		if (_IOC_NR(core[i].cmd) == nr)
			return _IOC_SIZE(core[i].cmd);
	return 0;
}

static int is_allowed_nr(unsigned int nr)
{
	size_t i;

	for (i = 0; i < NALLOWED; i++)
		if (_IOC_NR(allowed[i]) == nr)
			return 1;
	return 0;
}

static int is_driver_nr(unsigned int nr)
{
	size_t i;

	for (i = 0; i < NDRIVER; i++)
		if (_IOC_NR(driver_cmds[i]) == nr)
			return 1;
	return 0;
}

static int node_open(void)
{
	int fd = open(node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		printf("#   open %s as uid %u: %s\n", node, (unsigned int)geteuid(),
		       strerror(errno));
	return fd;
}

/* Become nobody for good; 0 or -1. */
static int drop_privileges(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -1;
	if (getuid() != NOBODY || geteuid() != NOBODY || getegid() != NOBODY)
		return -1;
	/* There is no way back. */
	return setuid(0) == 0 ? -1 : 0;
}

/*
 * Run @body in a child, as nobody unless @as_root; the case fails if the
 * child fails a check, dies from a signal (a kernel Oops kills it) or is
 * still running after @timeout_s seconds (stuck in the kernel).
 */
static void in_child(void (*body)(void), int as_root, int timeout_s)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int status, waited = 0;
	pid_t pid, r;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		T_CHECK(0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		if (!as_root && drop_privileges()) {
			printf("#   cannot become uid/gid %d\n", NOBODY);
			fflush(stdout);
			_exit(2);
		}
		alarm(timeout_s);
		t_case_failed = 0;
		body();
		fflush(stdout);
		_exit(t_case_failed ? 1 : 0);
	}
	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0) {
			T_CHECK(0, "waitpid: %s", strerror(errno));
			return;
		}
		if (waited++ >= timeout_s * 50 + 50) {
			kill(pid, SIGKILL);
			T_CHECK(0, "the child did not finish in %d s (stuck in the kernel?)",
				timeout_s + 1);
			return;
		}
		nanosleep(&ts, NULL);
	}
	T_CHECK(!WIFSIGNALED(status) || WTERMSIG(status) != SIGALRM,
		"the child timed out after %d s (stuck in the kernel?)", timeout_s);
	T_CHECK(!WIFSIGNALED(status) || WTERMSIG(status) == SIGALRM,
		"the child died from signal %d (a kernel Oops?)",
		WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	T_CHECK(!WIFEXITED(status) || WEXITSTATUS(status) == 0,
		"the child failed (status %d)", WEXITSTATUS(status));
}

/* ---------------------------------------------------- allowed core ioctls */

static void body_version(void)
{
	struct drm_version v;
	char name[32], date[64], desc[128];
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	memset(&v, 0, sizeof(v));
	T_OK(ioctl(fd, DRM_IOCTL_VERSION, &v));
	T_EQ(v.name_len, 3);
	memset(name, 0, sizeof(name));
	v.name = name;
	v.name_len = sizeof(name) - 1;
	v.date = date;
	v.date_len = sizeof(date) - 1;
	v.desc = desc;
	v.desc_len = sizeof(desc) - 1;
	T_OK(ioctl(fd, DRM_IOCTL_VERSION, &v));
	T_CHECK(strcmp(name, "ane") == 0, "name '%s'", name);
	close(fd);
}

static void version_names_ane_unprivileged(void)
{
	in_child(body_version, 0, 30);
}

static int get_cap(int fd, uint64_t cap, uint64_t *value)
{
	struct drm_get_cap gc = { .capability = cap };
	int r = ioctl(fd, DRM_IOCTL_GET_CAP, &gc);

	*value = gc.value;
	return r;
}

static void body_get_cap(void)
{
	uint64_t v = 0;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	T_OK(get_cap(fd, DRM_CAP_SYNCOBJ, &v));
	T_EQ(v, 1);
	T_OK(get_cap(fd, DRM_CAP_PRIME, &v));
	T_EQ(v, DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT);
	T_OK(get_cap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &v));
	T_EQ(v, 0);
	T_OK(get_cap(fd, DRM_CAP_TIMESTAMP_MONOTONIC, &v));
	T_EQ(v, 1);
	/* A KMS capability: no KMS here. */
	T_ERRNO(get_cap(fd, DRM_CAP_DUMB_BUFFER, &v), EOPNOTSUPP);
	close(fd);
}

static void get_cap_answers_unprivileged(void)
{
	in_child(body_get_cap, 0, 30);
}

static void body_gem_prime(void)
{
	struct drm_ane_surface_create sc = { .size = 16384 };
	struct drm_prime_handle ph;
	struct drm_gem_close gc;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	T_OK(ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc));
	T_CHECK(sc.handle != 0, "no handle");
	memset(&ph, 0, sizeof(ph));
	ph.handle = sc.handle;
	ph.flags = DRM_CLOEXEC | DRM_RDWR;
	T_OK(ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph));
	T_CHECK(ph.fd >= 0, "fd %d", ph.fd);
	ph.handle = 0;
	T_OK(ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph));
	T_EQ(ph.handle, sc.handle);
	close(ph.fd);
	memset(&gc, 0, sizeof(gc));
	gc.handle = sc.handle;
	T_OK(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc));
	T_ERRNO(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc), EINVAL);
	close(fd);
}

static void gem_close_and_prime_work_unprivileged(void)
{
	in_child(body_gem_prime, 0, 30);
}

static void body_syncobj(void)
{
	struct drm_syncobj_create cr = { .flags = DRM_SYNCOBJ_CREATE_SIGNALED };
	struct drm_syncobj_handle sh;
	struct drm_syncobj_destroy de;
	struct drm_syncobj_array sa;
	struct drm_syncobj_wait w;
	uint32_t h2 = 0;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &cr));
	T_CHECK(cr.handle != 0, "no handle");
	memset(&w, 0, sizeof(w));
	w.handles = (uintptr_t)&cr.handle;
	w.count_handles = 1;
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w));
	memset(&sa, 0, sizeof(sa));
	sa.handles = (uintptr_t)&cr.handle;
	sa.count_handles = 1;
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_RESET, &sa));
	/* No fence now: a wait that does not wait for submission refuses. */
	T_ERRNO(ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w), EINVAL);
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &sa));
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w));
	memset(&sh, 0, sizeof(sh));
	sh.handle = cr.handle;
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sh));
	sh.handle = 0;
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &sh));
	h2 = sh.handle;
	T_CHECK(h2 != 0 && h2 != cr.handle, "imported handle %u", h2);
	close(sh.fd);
	memset(&de, 0, sizeof(de));
	de.handle = cr.handle;
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &de));
	T_ERRNO(ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &de), EINVAL);
	de.handle = h2;
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &de));
	close(fd);
}

static void syncobjs_work_unprivileged(void)
{
	in_child(body_syncobj, 0, 30);
}

/*
 * The allowed core ioctls in every direction, at their own size and at
 * zero size, with zeroed and with garbage arguments, on a file with no
 * objects (so garbage handles name nothing): they reach DRM's core, which
 * answers with success or an errno of its own, never -ENOTTY.
 */
static void body_allowed_garbage(void)
{
	unsigned int i, d, s, g, fails = 0;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	for (i = 0; i < NALLOWED; i++) {
		unsigned int nr = _IOC_NR(allowed[i]);
		unsigned int sz[] = { 0, _IOC_SIZE(allowed[i]) };

		for (d = 0; d < 4; d++)
			for (s = 0; s < 2; s++)
				for (g = 0; g < 2; g++) {
					unsigned long cmd = _IOC(dirs[d], DRM_IOCTL_BASE, nr, sz[s]);
					int r, e;

					memset(arg.b, 0, 256);
					/*
					 * Garbage syncobj counts too: the
					 * driver bounds them (they made
					 * DRM's core WARN).
					 */
					if (g)
						fill_garbage(arg.b, 256);
					r = ioctl(fd, cmd, arg.b);
					e = r < 0 ? errno : 0;
					if (e == ENOTTY && fails++ < MAX_PRINTED)
						printf("#   %s as 0x%lx (%s): -ENOTTY\n",
						       core_name(nr), cmd,
						       g ? "garbage" : "zeroed");
					/* The new fd of a successful export. */
					if (!e && g && (nr == _IOC_NR(DRM_IOCTL_PRIME_HANDLE_TO_FD) ||
						       nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD)))
						close(((struct drm_prime_handle *)arg.b)->fd);
				}
	}
	T_EQ(fails, 0);
	/* Still a working client. */
	T_OK(ioctl(fd, DRM_IOCTL_VERSION, memset(arg.b, 0, sizeof(struct drm_version))));
	close(fd);
}

static void allowed_core_ioctls_reach_the_core(void)
{
	in_child(body_allowed_garbage, 0, 60);
}

/* ---------------------------------------------------- refused ioctls */

/*
 * Issue @cmd with the argument buffer zeroed (@garbage 0) or random, then
 * with a NULL and with a wild pointer; each must fail with -ENOTTY and a
 * zeroed buffer must come back untouched.  Return the number of misses.
 */
static unsigned int expect_enotty(int fd, unsigned long cmd, int garbage,
				  const char *what)
{
	unsigned int size = _IOC_SIZE(cmd), misses = 0, k;
	void *ptrs[3];
	int r, e;

	if (garbage)
		fill_garbage(arg.b, size ? size : 1);
	else
		memset(arg.b, 0, size ? size : 1);
	ptrs[0] = arg.b;
	ptrs[1] = NULL;
	ptrs[2] = (void *)(uintptr_t)(rnd() | 1);
	for (k = 0; k < 3; k++) {
		r = ioctl(fd, cmd, ptrs[k]);
		e = r < 0 ? errno : 0;
		if (r != -1 || e != ENOTTY) {
			if (misses++ == 0 && printed++ < MAX_PRINTED)
				printf("#   %s cmd 0x%08lx (%s, arg %p): returned %d errno %d (%s), expected ENOTTY\n",
				       what, cmd, garbage ? "garbage" : "zeroed", ptrs[k], r,
				       e, strerror(e));
		}
	}
	if (!garbage && !all_zero(arg.b, size ? size : 1)) {
		if (printed++ < MAX_PRINTED)
			printf("#   %s cmd 0x%08lx wrote into its argument\n", what, cmd);
		misses++;
	}
	return misses;
}

/* Every core number but the allowed ones, every direction, many sizes. */
static unsigned int refuse_core(int garbage)
{
	unsigned int nr, d, s, misses = 0, calls = 0;
	int fd = node_open();

	if (fd < 0)
		return 1;
	for (nr = 0; nr <= 0xff; nr++) {
		unsigned int own = core_size(nr);

		if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END)
			continue;
		if (is_allowed_nr(nr))
			continue;
		for (d = 0; d < 4; d++) {
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
				misses += expect_enotty(fd, _IOC(dirs[d], DRM_IOCTL_BASE, nr,
								 sizes[s]), garbage,
							core_name(nr));
				calls++;
			}
			if (own) {
				misses += expect_enotty(fd, _IOC(dirs[d], DRM_IOCTL_BASE, nr, own),
							garbage, core_name(nr));
				calls++;
			}
		}
	}
	printf("#   %u encodings, %u misses\n", calls, misses);
	/* The file still works. */
	memset(arg.b, 0, sizeof(struct drm_version));
	if (ioctl(fd, DRM_IOCTL_VERSION, arg.b)) {
		printf("#   VERSION after the refused ioctls: %s\n", strerror(errno));
		misses++;
	}
	close(fd);
	return misses;
}

static void body_refuse_core_zeroed(void)
{
	T_EQ(refuse_core(0), 0);
}

static void body_refuse_core_garbage(void)
{
	T_EQ(refuse_core(1), 0);
}

static void other_core_ioctls_are_enotty_zeroed_unprivileged(void)
{
	in_child(body_refuse_core_zeroed, 0, 120);
}

static void other_core_ioctls_are_enotty_garbage_unprivileged(void)
{
	in_child(body_refuse_core_garbage, 0, 120);
}

/* The ones that crashed or need a master, by name, as root too. */
static void body_named(void)
{
	static const unsigned long named[] = {
		DRM_IOCTL_GET_UNIQUE, DRM_IOCTL_GET_MAGIC, DRM_IOCTL_AUTH_MAGIC,
		DRM_IOCTL_SET_MASTER, DRM_IOCTL_DROP_MASTER, DRM_IOCTL_SET_UNIQUE,
		DRM_IOCTL_GET_CLIENT, DRM_IOCTL_SET_VERSION,
		DRM_IOCTL_SET_CLIENT_CAP, DRM_IOCTL_GEM_FLINK, DRM_IOCTL_GEM_OPEN,
		DRM_IOCTL_MODE_GETRESOURCES, DRM_IOCTL_MODE_CREATE_DUMB,
		DRM_IOCTL_WAIT_VBLANK, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
		DRM_IOCTL_SYNCOBJ_QUERY, DRM_IOCTL_SYNCOBJ_TRANSFER,
		DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
	};
	unsigned int i, misses = 0;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		misses += expect_enotty(fd, named[i], 0, core_name(_IOC_NR(named[i])));
	T_EQ(misses, 0);
	close(fd);
}

static void master_and_kms_ioctls_are_enotty_unprivileged(void)
{
	in_child(body_named, 0, 30);
}

static void master_and_kms_ioctls_are_enotty_as_root(void)
{
	in_child(body_named, 1, 30);
}

/* The driver range: numbers that are neither a selector nor an ioctl. */
static void body_driver_range(void)
{
	unsigned int nr, d, s, misses = 0, calls = 0;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	for (nr = DRM_COMMAND_BASE; nr < DRM_COMMAND_END; nr++) {
		if (is_driver_nr(nr))
			continue;
		for (d = 0; d < 4; d++)
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
				misses += expect_enotty(fd, _IOC(dirs[d], DRM_IOCTL_BASE, nr,
								 sizes[s]), calls & 1,
							"unused driver number");
				calls++;
			}
	}
	printf("#   %u encodings, %u misses\n", calls, misses);
	T_EQ(misses, 0);
	close(fd);
}

static void unused_driver_numbers_are_enotty_unprivileged(void)
{
	in_child(body_driver_range, 0, 60);
}

/*
 * Other ioctl types.  Left out: the types of requests the VFS answers
 * itself before the driver (FIONBIO and the like, 'T'; FIBMAP and FIGETBSZ,
 * type 0; 'f', 'X' and 0x94 file and filesystem requests).
 */
static void body_foreign(void)
{
	static const unsigned int types[] = { 'a', 'c', 'D', 'e', 'U', 0x01, 0xab, 0xff };
	static const unsigned int nrs[] = { 0x00, 0x01, 0x02, 0x40, 0x70, 0xa0, 0xff };
	unsigned int t, n, d, misses = 0;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		for (n = 0; n < sizeof(nrs) / sizeof(nrs[0]); n++)
			for (d = 0; d < 4; d++) {
				misses += expect_enotty(fd, _IOC(dirs[d], types[t], nrs[n], 0), 0,
							"foreign type");
				misses += expect_enotty(fd, _IOC(dirs[d], types[t], nrs[n], 104), 1,
							"foreign type");
			}
	T_EQ(misses, 0);
	close(fd);
}

static void other_ioctl_types_are_enotty_unprivileged(void)
{
	in_child(body_foreign, 0, 30);
}

/* ---------------------------------------------------- syncobj arrays */

/*
 * SYNCOBJ_RESET, _SIGNAL and _WAIT are answered by the driver
 * (driver/ane_syncobj.c) with the core's semantics for binary syncobjs and
 * a bound on count_handles.  The cases below but the bound give the same
 * answers from DRM's core (the module of 5af0fd6, where the core answered
 * them); run just them with COREIOCTL_ONLY=syncobj_sem.
 */
#define SO_MAX		1024u	/* ANE_SYNCOBJ_MAX_HANDLES, uapi.rst */
#define SENTINEL	0x5a5a5a5au
#define MS		1000000ll

static uint32_t many[SO_MAX + 1];

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void ms_sleep(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static uint32_t so_create(int fd, int signaled)
{
	struct drm_syncobj_create cr = {
		.flags = signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0,
	};

	if (ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &cr)) {
		printf("#   SYNCOBJ_CREATE: %s\n", strerror(errno));
		return 0;
	}
	return cr.handle;
}

/* RESET or SIGNAL (@cmd) of @n handles at @h. */
static int so_array(int fd, unsigned long cmd, const uint32_t *h, uint32_t n)
{
	struct drm_syncobj_array a = { .handles = (uintptr_t)h, .count_handles = n };

	return ioctl(fd, cmd, &a);
}

/* WAIT on @n handles at @h; *@first gets first_signaled (SENTINEL before). */
static int so_wait(int fd, const uint32_t *h, uint32_t n, uint32_t flags,
		   int64_t abs_timeout, uint32_t *first)
{
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)h, .count_handles = n, .flags = flags,
		.timeout_nsec = abs_timeout, .first_signaled = SENTINEL,
	};
	int r = ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);

	if (first)
		*first = w.first_signaled;
	return r;
}

/* A child that runs @fn(@fd, @h) after @delay_ms; its pid. */
static pid_t later(int fd, uint32_t h, int delay_ms, int (*fn)(int, uint32_t))
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		ms_sleep(delay_ms);
		_exit(fn(fd, h) ? 1 : 0);
	}
	return pid;
}

static int signal_one(int fd, uint32_t h)
{
	return so_array(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &h, 1);
}

static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * A huge count_handles made DRM's core ask the page allocator for the whole
 * array, which WARNs (order > MAX_PAGE_ORDER) before failing: the console
 * WARNING fails the VM run.  The driver refuses more than SO_MAX handles
 * with -EINVAL before it allocates or reads anything; SO_MAX works.
 */
static void body_counts_bounded(void)
{
	static const uint32_t huge[] = { 0x10000000u, 0x7fffffffu, 0xffffffffu, SO_MAX + 1 };
	static const unsigned long arrays[] = {
		DRM_IOCTL_SYNCOBJ_RESET, DRM_IOCTL_SYNCOBJ_SIGNAL,
	};
	uint32_t first, h, i, k;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	h = so_create(fd, 1);
	for (i = 0; i <= SO_MAX; i++)
		many[i] = h;
	for (k = 0; k < sizeof(huge) / sizeof(huge[0]); k++) {
		for (i = 0; i < 2; i++)
			T_ERRNO(so_array(fd, arrays[i], many, huge[k]), EINVAL);
		T_ERRNO(so_wait(fd, many, huge[k], 0, 0, NULL), EINVAL);
		T_ERRNO(so_wait(fd, many, huge[k], DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0, NULL), EINVAL);
		/* Not even the handles are read. */
		T_ERRNO(so_array(fd, DRM_IOCTL_SYNCOBJ_RESET, NULL, huge[k]), EINVAL);
	}
	/* The bound itself, the same handle SO_MAX times. */
	T_OK(so_array(fd, DRM_IOCTL_SYNCOBJ_RESET, many, SO_MAX));
	T_ERRNO(so_wait(fd, many, SO_MAX, 0, 0, NULL), EINVAL);
	T_OK(so_array(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, many, SO_MAX));
	T_OK(so_wait(fd, many, SO_MAX, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0, &first));
	T_EQ(first, 0);
	close(fd);
}

static void syncobj_array_counts_are_bounded_unprivileged(void)
{
	in_child(body_counts_bounded, 0, 30);
}

/* RESET and SIGNAL: their errnos, and a fence or none afterwards. */
static void body_reset_signal(void)
{
	static const unsigned long arrays[] = {
		DRM_IOCTL_SYNCOBJ_RESET, DRM_IOCTL_SYNCOBJ_SIGNAL,
	};
	struct drm_syncobj_array a;
	uint32_t h[3], first, i;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	for (i = 0; i < 3; i++)
		h[i] = so_create(fd, 0);
	/* Created without a fence: a wait without WAIT_FOR_SUBMIT refuses. */
	T_ERRNO(so_wait(fd, h, 1, 0, 0, NULL), EINVAL);
	for (i = 0; i < 2; i++) {
		T_ERRNO(so_array(fd, arrays[i], h, 0), EINVAL);
		memset(&a, 0, sizeof(a));
		a.handles = (uintptr_t)h;
		a.count_handles = 1;
		a.pad = 1;
		T_ERRNO(ioctl(fd, arrays[i], &a), EINVAL);
		T_ERRNO(so_array(fd, arrays[i], (uint32_t[]){ 0 }, 1), ENOENT);
		T_ERRNO(so_array(fd, arrays[i], (uint32_t[]){ h[0], 0x7fffffff }, 2), ENOENT);
		T_ERRNO(so_array(fd, arrays[i], (const uint32_t *)8, 1), EFAULT);
	}
	/* A failed SIGNAL (one handle unknown) changed nothing. */
	T_ERRNO(so_wait(fd, h, 1, 0, 0, NULL), EINVAL);
	T_OK(so_array(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, h, 2));
	T_OK(so_wait(fd, h, 2, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0, &first));
	T_EQ(first, 0);
	/* Signalling a signalled syncobj again is fine. */
	T_OK(so_array(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, h, 2));
	T_OK(so_array(fd, DRM_IOCTL_SYNCOBJ_RESET, h, 1));
	T_ERRNO(so_wait(fd, h, 1, 0, 0, NULL), EINVAL);
	/* Any missing fence refuses, even with another one signalled. */
	T_ERRNO(so_wait(fd, (uint32_t[]){ h[1], h[0] }, 2, 0, 0, NULL), EINVAL);
	/* Resetting a syncobj without a fence is fine too. */
	T_OK(so_array(fd, DRM_IOCTL_SYNCOBJ_RESET, (uint32_t[]){ h[0], h[2] }, 2));
	close(fd);
}

static void syncobj_sem_reset_and_signal_unprivileged(void)
{
	in_child(body_reset_signal, 0, 30);
}

/* WAIT: flags, errnos and first_signaled when it returns at once. */
static void body_wait_flags(void)
{
	struct drm_syncobj_wait w;
	uint32_t s0, s1, none, first;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	s0 = so_create(fd, 1);
	s1 = so_create(fd, 1);
	none = so_create(fd, 0);
	/* No handles: success, first_signaled untouched. */
	T_OK(so_wait(fd, NULL, 0, 0, 0, &first));
	T_EQ(first, SENTINEL);
	/* Unknown flags and WAIT_AVAILABLE (timelines only): -EINVAL, first. */
	T_ERRNO(so_wait(fd, NULL, 0, 1u << 4, 0, NULL), EINVAL);
	T_ERRNO(so_wait(fd, &s0, 1, 1u << 31, 0, NULL), EINVAL);
	T_ERRNO(so_wait(fd, &s0, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, 0, NULL), EINVAL);
	T_ERRNO(so_wait(fd, (uint32_t[]){ 0 }, 1, 0, 0, NULL), ENOENT);
	T_ERRNO(so_wait(fd, (uint32_t[]){ s0, 12345 }, 2, 0, 0, NULL), ENOENT);
	T_ERRNO(so_wait(fd, (const uint32_t *)8, 1, 0, 0, NULL), EFAULT);
	/* Wait for any: the lowest signalled index. */
	T_OK(so_wait(fd, (uint32_t[]){ s0, s1 }, 2, 0, 0, &first));
	T_EQ(first, 0);
	T_OK(so_wait(fd, (uint32_t[]){ none, s1 }, 2,
		     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0, &first));
	T_EQ(first, 1);
	/* Wait for all, all signalled at once: first_signaled 0. */
	T_OK(so_wait(fd, (uint32_t[]){ s1, s0 }, 2, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0, &first));
	T_EQ(first, 0);
	/* A deadline on signalled fences; an absolute timeout in the past. */
	memset(&w, 0, sizeof(w));
	w.handles = (uintptr_t)&s0;
	w.count_handles = 1;
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE;
	w.deadline_nsec = (uint64_t)now_ns();
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w));
	T_OK(so_wait(fd, &s0, 1, 0, now_ns() - 1000 * MS, NULL));
	/* The core does not look at WAIT's pad. */
	memset(&w, 0, sizeof(w));
	w.handles = (uintptr_t)&s0;
	w.count_handles = 1;
	w.pad = 0xffffffff;
	T_OK(ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w));
	T_EQ(w.first_signaled, 0);
	close(fd);
}

static void syncobj_sem_wait_flags_unprivileged(void)
{
	in_child(body_wait_flags, 0, 30);
}

/* WAIT_FOR_SUBMIT on a syncobj that gets no fence: -ETIME at the timeout. */
static void body_wait_times_out(void)
{
	uint32_t s, none, first;
	int64_t t0, dt;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	s = so_create(fd, 1);
	none = so_create(fd, 0);
	/* timeout_nsec 0 polls. */
	t0 = now_ns();
	T_ERRNO(so_wait(fd, &none, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0, &first), ETIME);
	T_CHECK(now_ns() - t0 < 1000 * MS, "a poll took %lld ms", (long long)((now_ns() - t0) / MS));
	T_EQ(first, SENTINEL);
	/* A past absolute timeout polls too. */
	T_ERRNO(so_wait(fd, &none, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
			now_ns() - 10 * MS, NULL), ETIME);
	/* 300 ms from now, for any and for all. */
	t0 = now_ns();
	T_ERRNO(so_wait(fd, &none, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
			t0 + 300 * MS, NULL), ETIME);
	dt = now_ns() - t0;
	T_CHECK(dt >= 299 * MS && dt < 3300 * MS, "timed out after %lld ms, not 300",
		(long long)(dt / MS));
	t0 = now_ns();
	T_ERRNO(so_wait(fd, (uint32_t[]){ s, none }, 2, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
			DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, t0 + 300 * MS, &first), ETIME);
	dt = now_ns() - t0;
	T_CHECK(dt >= 299 * MS && dt < 3300 * MS, "timed out after %lld ms, not 300",
		(long long)(dt / MS));
	T_EQ(first, SENTINEL);
	close(fd);
}

static void syncobj_sem_wait_for_submit_times_out_unprivileged(void)
{
	in_child(body_wait_times_out, 0, 30);
}

/* WAIT_FOR_SUBMIT returns when another process signals the syncobj. */
static void body_wait_for_submit(void)
{
	uint32_t s, a, b, first;
	int64_t t0, dt;
	pid_t pid;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	s = so_create(fd, 1);
	a = so_create(fd, 0);
	b = so_create(fd, 0);
	/* All: [signalled, none]; the second gets signalled in 200 ms. */
	pid = later(fd, a, 200, signal_one);
	t0 = now_ns();
	T_OK(so_wait(fd, (uint32_t[]){ s, a }, 2, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
		     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, t0 + 10000 * MS, &first));
	dt = now_ns() - t0;
	T_CHECK(dt >= 150 * MS && dt < 5000 * MS, "returned after %lld ms", (long long)(dt / MS));
	/* As the core: index of the first found signalled at the first look. */
	T_EQ(first, 0);
	T_OK(reap(pid));
	/* All, none signalled at the first look: first_signaled ~0. */
	T_OK(so_array(fd, DRM_IOCTL_SYNCOBJ_RESET, &a, 1));
	pid = later(fd, a, 100, signal_one);
	T_OK(so_wait(fd, &a, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
		     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, now_ns() + 10000 * MS, &first));
	T_EQ(first, 0xffffffffu);
	T_OK(reap(pid));
	/* Any: [none, none]; the second gets signalled. */
	T_OK(so_array(fd, DRM_IOCTL_SYNCOBJ_RESET, &a, 1));
	pid = later(fd, b, 100, signal_one);
	T_OK(so_wait(fd, (uint32_t[]){ a, b }, 2, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
		     now_ns() + 10000 * MS, &first));
	T_EQ(first, 1);
	T_OK(reap(pid));
	close(fd);
}

static void syncobj_sem_wait_for_submit_sees_a_later_signal_unprivileged(void)
{
	in_child(body_wait_for_submit, 0, 30);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static int kill_parent(int fd, uint32_t h)
{
	(void)fd;
	(void)h;
	return kill(getppid(), SIGUSR1);
}

/* A signal ends a wait: -ERESTARTSYS, -EINTR without SA_RESTART. */
static void body_wait_interrupted(void)
{
	struct sigaction sa;
	uint32_t none;
	int64_t t0;
	pid_t pid;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	none = so_create(fd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pid = later(fd, 0, 200, kill_parent);
	t0 = now_ns();
	T_ERRNO(so_wait(fd, &none, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
			t0 + 10000 * MS, NULL), EINTR);
	T_CHECK(got_usr1 && now_ns() - t0 < 5000 * MS, "signal %d after %lld ms",
		(int)got_usr1, (long long)((now_ns() - t0) / MS));
	T_OK(reap(pid));
	close(fd);
}

static void syncobj_sem_wait_is_interrupted_by_a_signal_unprivileged(void)
{
	in_child(body_wait_interrupted, 0, 30);
}

/* drm_ioctl()'s rules for the size and direction of the argument. */
static void body_sizes(void)
{
	const unsigned int nr_wait = _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT);
	const unsigned int nr_reset = _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET);
	const unsigned int nr_signal = _IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL);
	const unsigned int rw = _IOC_READ | _IOC_WRITE;
	union {
		struct drm_syncobj_wait w;
		struct drm_syncobj_array a;
		uint8_t b[128];
	} u;
	uint32_t s, none;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	s = so_create(fd, 1);
	none = so_create(fd, 0);
	/* The 32-byte WAIT of before deadline_nsec; a longer one. */
	memset(&u, 0, sizeof(u));
	u.w.handles = (uintptr_t)&s;
	u.w.count_handles = 1;
	u.w.first_signaled = SENTINEL;
	T_OK(ioctl(fd, _IOC(rw, DRM_IOCTL_BASE, nr_wait, 32), &u));
	T_EQ(u.w.first_signaled, 0);
	u.w.first_signaled = SENTINEL;
	memset(u.b + 64, 0xa5, 64);
	T_OK(ioctl(fd, _IOC(rw, DRM_IOCTL_BASE, nr_wait, 128), &u));
	T_EQ(u.w.first_signaled, 0);
	T_EQ(u.b[127], 0xa5);
	/* Not written back without _IOC_READ. */
	u.w.first_signaled = SENTINEL;
	T_OK(ioctl(fd, _IOC(_IOC_WRITE, DRM_IOCTL_BASE, nr_wait, sizeof(u.w)), &u));
	T_EQ(u.w.first_signaled, SENTINEL);
	/* Not read without _IOC_WRITE: zeroes, no handles, written back. */
	memset(&u, 0xff, sizeof(u));
	T_OK(ioctl(fd, _IOC(_IOC_READ, DRM_IOCTL_BASE, nr_wait, sizeof(u.w)), &u));
	T_CHECK(all_zero(&u.w, sizeof(u.w)), "WAIT as _IOC_READ: not zeroed");
	T_EQ(u.b[sizeof(u.w)], 0xff);
	/* RESET: not read, size 0, no direction: count 0, -EINVAL. */
	memset(&u, 0, sizeof(u));
	u.a.handles = (uintptr_t)&s;
	u.a.count_handles = 1;
	T_ERRNO(ioctl(fd, _IOC(_IOC_NONE, DRM_IOCTL_BASE, nr_reset, sizeof(u.a)), &u), EINVAL);
	T_ERRNO(ioctl(fd, _IOC(rw, DRM_IOCTL_BASE, nr_reset, 0), &u), EINVAL);
	T_ERRNO(ioctl(fd, _IOC(_IOC_READ, DRM_IOCTL_BASE, nr_signal, sizeof(u.a)), &u), EINVAL);
	/* 12 bytes: the pad is zero-extended. */
	u.a.handles = (uintptr_t)&none;
	u.a.count_handles = 1;
	u.a.pad = 7;
	T_OK(ioctl(fd, _IOC(rw, DRM_IOCTL_BASE, nr_signal, 12), &u));
	T_EQ(u.a.pad, 7);
	T_OK(so_wait(fd, &none, 1, 0, 0, NULL));
	/* A fault on the argument itself. */
	T_ERRNO(ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, (void *)8), EFAULT);
	T_ERRNO(ioctl(fd, DRM_IOCTL_SYNCOBJ_RESET, NULL), EFAULT);
	close(fd);
}

static void syncobj_sem_sizes_and_directions_unprivileged(void)
{
	in_child(body_sizes, 0, 30);
}

static uint8_t img[IMG_SIZE];

static int wait_submitted(int fd, uint32_t h)
{
	return so_wait(fd, &h, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
		       now_ns() + 20000 * MS, NULL);
}

/*
 * A request's ANE_SURFACE_OUT_SYNCOBJ gets the request's fence: a wait
 * for submission started before the request returns once it is sent and
 * done, a wait after it returns with the result there.
 */
static void body_request(void)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	struct surf in, out;
	uint64_t tok = 0;
	struct client c;
	uint32_t h, first;
	pid_t pid;

	if (ctl_open(&c) || surface(c.fd, 12, &in) || surface(c.fd, 8, &out)) {
		T_CHECK(0, "client: %s", strerror(errno));
		return;
	}
	build_image(img, W);
	T_OK(create(c.fd, img, IMG_SIZE, &tok));
	T_OK(prepare(c.fd, tok, &pp));
	h = so_create(c.fd, 0);
	fill_input(&in);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(wait_submitted(c.fd, h) ? 1 : 0);
	ms_sleep(200);
	T_OK(submit(c.fd, tok, in.handle, out.handle, h, NULL));
	T_OK(so_wait(c.fd, &h, 1, 0, now_ns() + 10000 * MS, &first));
	T_EQ(first, 0);
	T_CHECK(!check_out(&out, OUT), "result after the fence");
	T_CHECK(reap(pid) == 0, "the wait for submission failed");
	T_OK(wait_event(c.fd, &ev));
	T_EQ(ev.status, 0);
	/* Signalled for good; a reset takes the fence away. */
	T_OK(so_wait(c.fd, &h, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0, NULL));
	T_OK(so_array(c.fd, DRM_IOCTL_SYNCOBJ_RESET, &h, 1));
	T_ERRNO(so_wait(c.fd, &h, 1, 0, 0, NULL), EINVAL);
	T_OK(destroy(c.fd, tok));
	close(c.fd);
}

static void syncobj_sem_a_request_signals_its_out_syncobj_unprivileged(void)
{
	in_child(body_request, 0, 60);
}

/* ---------------------------------------------------- afterwards */

/*
 * After everything above, a new client opens the node and is answered at
 * once: nothing is left holding a lock (the Oops left one held, and later
 * openers hung in D state).
 */
static void body_reopen(void)
{
	struct drm_version v;
	struct drm_ane_device_open op;
	int fd = node_open();

	if (fd < 0) {
		T_CHECK(0, "no node");
		return;
	}
	memset(&v, 0, sizeof(v));
	T_OK(ioctl(fd, DRM_IOCTL_VERSION, &v));
	memset(&op, 0, sizeof(op));
	op.in.usage_type = ANE_USAGE_STANDARD;
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_CLOSE));
	close(fd);
}

static void node_opens_at_once_afterwards(void)
{
	in_child(body_reopen, 0, 10);
	in_child(body_reopen, 1, 10);
}

int main(int argc, char **argv)
{
	struct stat st;
	int have_mode;

	if (vm_node(argc, argv, node, sizeof(node), "coreioctl"))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	only = getenv("COREIOCTL_ONLY");
	printf("# node %s, seed 0x%llx, unprivileged as uid/gid %d\n", node,
	       (unsigned long long)SEED, NOBODY);
	have_mode = stat(node, &st) == 0;
	if (geteuid() != 0 || chmod(node, 0666) || vm_client_gid(NOBODY)) {
		printf("not ok - run as root to make %s 0666 for the group %d: %s\ncoreioctl: 0 passed, 1 failed\n",
		       node, NOBODY, strerror(errno));
		return 1;
	}
	RUN(version_names_ane_unprivileged);
	RUN(get_cap_answers_unprivileged);
	RUN(gem_close_and_prime_work_unprivileged);
	RUN(syncobjs_work_unprivileged);
	RUN(allowed_core_ioctls_reach_the_core);
	RUN(master_and_kms_ioctls_are_enotty_unprivileged);
	RUN(master_and_kms_ioctls_are_enotty_as_root);
	RUN(other_core_ioctls_are_enotty_zeroed_unprivileged);
	RUN(other_core_ioctls_are_enotty_garbage_unprivileged);
	RUN(unused_driver_numbers_are_enotty_unprivileged);
	RUN(other_ioctl_types_are_enotty_unprivileged);
	RUN(syncobj_array_counts_are_bounded_unprivileged);
	RUN(syncobj_sem_reset_and_signal_unprivileged);
	RUN(syncobj_sem_wait_flags_unprivileged);
	RUN(syncobj_sem_wait_for_submit_times_out_unprivileged);
	RUN(syncobj_sem_wait_for_submit_sees_a_later_signal_unprivileged);
	RUN(syncobj_sem_wait_is_interrupted_by_a_signal_unprivileged);
	RUN(syncobj_sem_sizes_and_directions_unprivileged);
	RUN(syncobj_sem_a_request_signals_its_out_syncobj_unprivileged);
	RUN(node_opens_at_once_afterwards);
	if (have_mode)
		chmod(node, st.st_mode & 07777);
	vm_client_gid(-1);
	return t_summary("coreioctl");
}
