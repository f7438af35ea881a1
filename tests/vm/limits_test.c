// SPDX-License-Identifier: MIT
/*
 * VM tests of the memory limits (Documentation/accel/ane/security.rst):
 * ProgramCreate checks an image's header before it allocates the image;
 * sizes above a limit fail with -E2BIG, a client over its quota with
 * -EDQUOT, a device over its limit with -ENOMEM; memory is charged to the
 * caller's memory cgroup and a cgroup at its limit gets -ENOMEM, not the
 * OOM killer; bursts of large creates from several processes end in those
 * errors, with no OOM kill, and every charge returns when the objects go.
 *
 * Runs as root (debugfs, module parameters, cgroups).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/prog_image.h"
#include "vm/vm_util.h"

#define MiB		(1ull << 20)
#define PARAM		"/sys/module/ane/parameters/"
#define CGROOT		"/sys/fs/cgroup"
#define SMALL_IMG	(PAGE16K + 16)

static char node[64];
static char memfile[512];

/* ---------------------------------------------------------------- helpers */

/*
 * A valid image of @size bytes in a fresh anonymous mapping: the program
 * of program_test (out = relu(in x W)) in its first 16 KB + 16 bytes, the
 * rest never touched (it reads as zeroes and costs no memory), and the
 * header's image_size saying @size.  NULL on failure.
 */
static uint8_t *image_new(uint64_t size, uint64_t intermediate)
{
	uint8_t *b;

	b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return NULL;
	build_image_layout(b, size, intermediate);
	return b;
}

static int ctl_open(void)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
	int fd = open(node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int create(int fd, const void *img, uint64_t size)
{
	uint64_t tok = 0;
	struct drm_ane_program_create pc = {
		.image = (uintptr_t)img, .image_size = size, .token_ptr = (uintptr_t)&tok,
	};

	return ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &pc);
}

/* A surface of @size bytes: its handle, or 0 with errno set. */
static uint32_t surface(int fd, uint64_t size)
{
	struct drm_ane_surface_create sc = { .size = size };

	return ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc) < 0 ? 0 : sc.handle;
}

/* A value of the debugfs "memory" file, or -1. */
static long long mem_stat(const char *key)
{
	char line[128], k[64];
	long long v, ret = -1;
	FILE *f = fopen(memfile, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", k, &v) == 2 && !strcmp(k, key))
			ret = v;
	fclose(f);
	return ret;
}

/* The "ane-memory-charged" of a file's fdinfo, in KiB, or -1. */
static long long fdinfo_charged_kib(int fd)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ane-memory-charged: %lld KiB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Charges return as the objects are freed: wait up to 5 s for 0. */
static long long charged_settles(void)
{
	long long v = -1;
	int i;

	for (i = 0; i < 100; i++) {
		v = mem_stat("charged");
		if (!v)
			break;
		usleep(50000);
	}
	return v;
}

static int param(const char *name, unsigned int mb)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), PARAM "%s", name);
	snprintf(val, sizeof(val), "%u", mb);
	return vm_write_file(path, val);
}

static void params_reset(void)
{
	param("mem_device_mb", 0);
	param("mem_client_mb", 0);
	param("max_image_mb", 0);
	param("max_surface_mb", 0);
}

/* A cgroup v2 file's number (first number after @key, or the file's). */
static long long cg_read(const char *cg, const char *file, const char *key)
{
	char path[256], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), CGROOT "/%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!key) {
			v = strtoll(line, NULL, 10);
			break;
		}
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ' ') {
			v = strtoll(line + strlen(key) + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static int cg_write(const char *cg, const char *file, const char *s)
{
	char path[256];

	snprintf(path, sizeof(path), CGROOT "/%s/%s", cg, file);
	return vm_write_file(path, s);
}

/*
 * Does the kernel have memory cgroups (CONFIG_MEMCG)?  The stock kernel
 * does; a minimal debug kernel may not, and then the cases that measure
 * a cgroup cannot run there (they run in the stock-kernel layer).
 */
static int have_memcg(void)
{
	char line[256];
	FILE *f = fopen("/proc/cgroups", "r");
	int yes = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "memory\t", 7))
			yes = 1;
	fclose(f);
	return yes;
}

/* A fresh memory cgroup @cg under the cgroup2 root: 0 or -1. */
static int cg_make(const char *cg, const char *max)
{
	char path[256];

	if (access(CGROOT "/cgroup.controllers", F_OK)) {
		mkdir(CGROOT, 0755);
		if (mount("cgroup2", CGROOT, "cgroup2", 0, NULL))
			return -1;
	}
	if (vm_write_file(CGROOT "/cgroup.subtree_control", "+memory"))
		return -1;
	snprintf(path, sizeof(path), CGROOT "/%s", cg);
	rmdir(path);
	if (mkdir(path, 0755))
		return -1;
	if (max && cg_write(cg, "memory.max", max))
		return -1;
	cg_write(cg, "memory.swap.max", "0");
	return 0;
}

static void cg_join(const char *cg)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	cg_write(cg, "cgroup.procs", pid);
}

static void cg_remove(const char *cg)
{
	char path[256];

	snprintf(path, sizeof(path), CGROOT "/%s", cg);
	rmdir(path);
}

/* Did the kernel log an OOM kill?  1, 0, or -1 if the log is unreadable. */
static int oom_in_log(void)
{
	static char buf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);

	if (n < 0)
		return -1;
	buf[n] = 0;
	return strstr(buf, "Out of memory") || strstr(buf, "oom-kill") ||
	       strstr(buf, "invoked oom-killer") || strstr(buf, "oom_reaper");
}

/* Wait for @pid: its exit status, or 128 + the signal that killed it. */
static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ------------------------------------------------------------------ tests */

/*
 * A header the validator refuses, with the largest image_size, fails with
 * -EINVAL before anything is allocated: the caller's memory cgroup never
 * sees the 256 MiB (the old code allocated and copied the whole image
 * first), and nothing is charged to the device.
 */
static void header_checked_before_the_image_is_allocated(void)
{
	const char *cg = "ane-limits-hdr";
	uint64_t size = ANE_IMG_MAX_SIZE;
	long long refused = mem_stat("refused");
	long long peak;
	int memcg = have_memcg();
	pid_t pid;

	T_EQ(mem_stat("charged"), 0);
	if (memcg)
		T_OK(cg_make(cg, NULL));
	else
		printf("#   no memory cgroups in this kernel: the cgroup's peak is not measured\n");
	pid = fork();
	if (!pid) {
		struct ane_img_header *h;
		uint8_t *img;
		int fd, i, bad = 0;

		if (memcg)
			cg_join(cg);
		fd = ctl_open();
		img = image_new(size, PAGE16K);
		if (fd < 0 || !img)
			_exit(2);
		h = (void *)img;
		for (i = 0; i < 4; i++) {
			h->magic = ANE_IMG_MAGIC ^ 1;		/* header.magic */
			bad += !(create(fd, img, size) < 0 && errno == EINVAL);
			h->magic = ANE_IMG_MAGIC;
			h->num_procedures = 0;			/* header.num_procedures */
			bad += !(create(fd, img, size) < 0 && errno == EINVAL);
			h->num_procedures = 1;
			h->image_size = size - PAGE16K;		/* header.image_size */
			bad += !(create(fd, img, size) < 0 && errno == EINVAL);
			h->image_size = size;
			h->tds_offset = size - 64;		/* a section outside */
			bad += !(create(fd, img, size) < 0 && errno == EINVAL);
			h->tds_offset = 256;
		}
		_exit(bad ? 1 : 0);
	}
	T_EQ(reap(pid), 0);
	if (memcg) {
		peak = cg_read(cg, "memory.peak", NULL);
		T_CHECK(peak >= 0 && peak < 32 * (long long)MiB,
			"the cgroup's memory peaked at %lld bytes for refused headers", peak);
		cg_remove(cg);
	}
	T_EQ(mem_stat("charged"), 0);
	T_EQ(mem_stat("refused"), refused);	/* never got as far as a charge */
}

/* A size above a limit is -E2BIG: the format's, and the parameters'. */
static void sizes_above_the_limits_are_e2big(void)
{
	uint8_t *img = image_new(2 * MiB, PAGE16K);
	int fd = ctl_open();

	T_CHECK(fd >= 0 && img, "open and image");
	if (fd < 0 || !img)
		return;
	T_ERRNO(create(fd, img, ANE_IMG_MAX_SIZE + 1ull), E2BIG);
	T_ERRNO(create(fd, img, 1ull << 40), E2BIG);
	T_CHECK(!surface(fd, (1ull << 30) + 1) && errno == E2BIG, "errno %d", errno);
	T_EQ(mem_stat("max_image"), ANE_IMG_MAX_SIZE);
	T_EQ(mem_stat("max_surface"), 1ull << 30);

	T_OK(param("max_image_mb", 1));
	T_EQ(mem_stat("max_image"), MiB);
	T_ERRNO(create(fd, img, 2 * MiB), E2BIG);
	((struct ane_img_header *)img)->image_size = MiB;
	T_OK(create(fd, img, MiB));
	((struct ane_img_header *)img)->image_size = 2 * MiB;

	T_OK(param("max_surface_mb", 16));
	T_CHECK(surface(fd, 16 * MiB), "16 MiB surface: errno %d", errno);
	T_CHECK(!surface(fd, 16 * MiB + 1) && errno == E2BIG, "errno %d", errno);
	/* the intermediate buffer prepare would allocate is bounded too */
	T_OK(param("max_image_mb", 0));
	((struct ane_img_header *)img)->intermediate_size = 32 * MiB;
	T_ERRNO(create(fd, img, 2 * MiB), E2BIG);
	((struct ane_img_header *)img)->intermediate_size = PAGE16K;
	params_reset();
	T_OK(create(fd, img, 2 * MiB));
	close(fd);
	munmap(img, 2 * MiB);
	T_EQ(charged_settles(), 0);
}

/*
 * One client's charges stop at mem_client_mb with -EDQUOT; another client
 * is not affected; a charge belongs to its object (a PRIME-shared surface
 * keeps it after its creator's file is closed) and returns when it goes.
 */
static void client_quota_is_edquot(void)
{
	struct drm_prime_handle ph = { .flags = DRM_CLOEXEC };
	uint8_t *img = image_new(SMALL_IMG, PAGE16K);
	int a, b, i;

	T_OK(param("mem_client_mb", 64));
	a = ctl_open();
	b = ctl_open();
	T_CHECK(a >= 0 && b >= 0 && img, "open");
	for (i = 0; i < 4; i++)
		T_CHECK(surface(a, 16 * MiB), "surface %d: errno %d", i, errno);
	T_EQ(mem_stat("charged"), 64 * MiB);
	T_EQ(fdinfo_charged_kib(a), 64 * 1024);
	T_CHECK(!surface(a, PAGE16K) && errno == EDQUOT, "errno %d", errno);
	T_ERRNO(create(a, img, SMALL_IMG), EDQUOT);
	T_CHECK(surface(b, 16 * MiB), "the other client: errno %d", errno);
	T_OK(create(b, img, SMALL_IMG));
	/* image (2 frames) + intermediate (1 frame) */
	T_EQ(mem_stat("charged"), 80 * MiB + 3 * PAGE16K);

	ph.handle = surface(b, 16 * MiB);
	T_CHECK(ph.handle, "errno %d", errno);
	T_OK(ioctl(b, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph));
	close(a);
	close(b);
	usleep(100000);
	T_EQ(mem_stat("charged"), 16 * MiB);	/* the exported surface */
	close(ph.fd);
	T_EQ(charged_settles(), 0);
	params_reset();
	munmap(img, SMALL_IMG);
}

/* All clients of a device stop at mem_device_mb with -ENOMEM. */
static void device_limit_is_enomem(void)
{
	int a, b, i;

	T_OK(param("mem_device_mb", 64));
	T_OK(param("mem_client_mb", 48));
	T_EQ(mem_stat("limit_device"), 64 * MiB);
	T_EQ(mem_stat("limit_client"), 48 * MiB);
	a = ctl_open();
	b = ctl_open();
	T_CHECK(a >= 0 && b >= 0, "open");
	for (i = 0; i < 3; i++)
		T_CHECK(surface(a, 16 * MiB), "surface %d: errno %d", i, errno);
	T_CHECK(!surface(a, 16 * MiB) && errno == EDQUOT, "errno %d", errno);
	T_CHECK(surface(b, 16 * MiB), "errno %d", errno);
	T_CHECK(!surface(b, 16 * MiB) && errno == ENOMEM, "errno %d", errno);
	T_EQ(mem_stat("charged"), 64 * MiB);
	close(a);
	T_CHECK(surface(b, 16 * MiB), "after the other client left: errno %d", errno);
	close(b);
	T_EQ(charged_settles(), 0);
	params_reset();
}

/*
 * Surfaces and images are charged to the caller's memory cgroup, and a
 * cgroup at its limit gets -ENOMEM while it lives on: no OOM kill (the
 * old code's allocation woke the cgroup's OOM killer).
 */
static void memcg_is_charged_and_not_oom_killed(void)
{
	const char *cg = "ane-limits-memcg";
	long long kills;
	pid_t pid;

	T_OK(cg_make(cg, "48M"));
	pid = fork();
	if (!pid) {
		long long before, after;
		uint8_t *img = image_new(64 * MiB, PAGE16K);
		int fd, bad = 0;

		cg_join(cg);
		fd = ctl_open();
		if (fd < 0 || !img)
			_exit(2);
		before = cg_read(cg, "memory.current", NULL);
		if (!surface(fd, 16 * MiB))
			_exit(3);
		after = cg_read(cg, "memory.current", NULL);
		if (after - before < 16 * (long long)MiB) {
			printf("#   memory.current %lld -> %lld for a 16 MiB surface\n",
			       before, after);
			bad++;
		}
		bad += !(!surface(fd, 64 * MiB) && errno == ENOMEM);
		bad += !(create(fd, img, 64 * MiB) < 0 && errno == ENOMEM);
		/* what fits still works */
		((struct ane_img_header *)img)->image_size = SMALL_IMG;
		bad += create(fd, img, SMALL_IMG) < 0;
		_exit(bad ? 1 : 0);
	}
	T_EQ(reap(pid), 0);
	kills = cg_read(cg, "memory.events", "oom_kill");
	T_EQ(kills, 0);
	T_EQ(charged_settles(), 0);
	cg_remove(cg);
}

/*
 * A client holding charged surfaces and a program across an unbind: its
 * charges return when it closes the file (the account's release warns if
 * any were left, which fails the run), and the rebound device starts at 0.
 */
static void charges_return_after_unplug(void)
{
	struct drm_prime_handle ph = { .flags = DRM_CLOEXEC };
	uint8_t *img = image_new(SMALL_IMG, PAGE16K);
	int fd = ctl_open();

	T_CHECK(fd >= 0 && img, "open");
	if (fd < 0 || !img)
		return;
	T_CHECK(surface(fd, 16 * MiB), "errno %d", errno);
	T_OK(create(fd, img, SMALL_IMG));
	ph.handle = surface(fd, PAGE16K);
	T_OK(ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph));
	T_EQ(vm_write_file("/sys/bus/platform/drivers/ane/unbind", "ane.0"), 0);
	T_CHECK(!surface(fd, PAGE16K) && errno == ENODEV, "errno %d", errno);
	close(fd);
	close(ph.fd);
	T_EQ(vm_write_file("/sys/bus/platform/drivers/ane/bind", "ane.0"), 0);
	T_OK(ane_find_node(0, node, sizeof(node)));
	T_OK(vm_debugfs_path(node, "memory", memfile, sizeof(memfile)));
	T_EQ(mem_stat("charged"), 0);
	fd = ctl_open();
	T_CHECK(fd >= 0 && surface(fd, PAGE16K), "a client of the rebound device");
	T_EQ(mem_stat("charged"), PAGE16K);
	close(fd);
	T_EQ(charged_settles(), 0);
	munmap(img, SMALL_IMG);
}

/*
 * A refused CreateInstance keeps nothing: one whose weights surface is
 * too small (-EINVAL) used to keep its reference to the surface, so the
 * surface and its charge outlived every client (found by ane-fuzz).
 */
static void refused_instances_hold_no_surface(void)
{
	uint8_t *img = image_new(3 * PAGE16K, PAGE16K);
	uint64_t tok = 0, itok = 0;
	struct drm_ane_program_create pc = {
		.image = (uintptr_t)img, .image_size = 3 * PAGE16K,
		.token_ptr = (uintptr_t)&tok,
	};
	struct drm_ane_program_create_instance ci = { .token_ptr = (uintptr_t)&itok };
	int fd = ctl_open(), i;

	T_CHECK(fd >= 0 && img, "open");
	if (fd < 0 || !img)
		return;
	/* 32 KiB of weights: a one-granule (16 KiB) surface is too small. */
	((struct ane_img_header *)img)->weights_size = 2 * PAGE16K;
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &pc));
	ci.program = tok;
	for (i = 0; i < 8; i++) {
		struct drm_ane_surface_create sc = { .size = PAGE16K };

		T_OK(ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc));
		ci.weights = sc.handle;
		T_CHECK(ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci) < 0 &&
			errno == EINVAL, "CreateInstance, small weights: errno %d", errno);
		ci.weights = 0xdead;
		T_CHECK(ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, &ci) < 0 &&
			errno == ENOENT, "CreateInstance, no surface: errno %d", errno);
	}
	close(fd);
	T_EQ(charged_settles(), 0);
	munmap(img, 3 * PAGE16K);
}

#define BURST_CHILDREN	6
#define BURST_SIZE	(64 * MiB)

/*
 * Six processes create 64 MiB images and surfaces, alternately, until the
 * driver refuses: each ends with -EDQUOT (its quota) or -ENOMEM (the
 * device's limit or the machine), nobody is OOM-killed, the device never
 * holds more than its limit, and once all have exited nothing is charged
 * and a normal create works.  The old code had no limit: the burst woke
 * the OOM killer.
 */
static void burst_of_large_creates_ends_clean(void)
{
	int res[2], go[2], i, n, held = 0, ok = 1;
	long long limit = mem_stat("limit_device");
	pid_t pids[BURST_CHILDREN];
	uint8_t *img;
	int fd;

	T_CHECK(oom_in_log() == 0, "an OOM kill before the test");
	T_OK(pipe(res));
	T_OK(pipe(go));
	for (i = 0; i < BURST_CHILDREN; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			int r[2] = { 0, 0 }, k, c;
			uint8_t *im = image_new(BURST_SIZE, PAGE16K);
			char x;

			close(res[0]);
			close(go[1]);
			c = ctl_open();
			if (c < 0 || !im)
				_exit(2);
			for (k = 0; k < 16; k++) {
				int fail = k & 1 ? !surface(c, BURST_SIZE) :
					   create(c, im, BURST_SIZE) < 0;

				if (fail) {
					r[1] = errno;
					break;
				}
				r[0]++;
			}
			if (write(res[1], r, sizeof(r)) != sizeof(r))
				_exit(3);
			/* hold everything until all have tried */
			if (read(go[0], &x, 1) < 0)
				_exit(4);
			_exit(r[1] == EDQUOT || r[1] == ENOMEM ? 0 : 1);
		}
	}
	close(res[1]);
	close(go[0]);
	for (n = 0; n < BURST_CHILDREN; n++) {
		int r[2];

		if (read(res[0], r, sizeof(r)) != sizeof(r))
			break;
		held += r[0];
		if (r[1] != EDQUOT && r[1] != ENOMEM)
			ok = 0;
		printf("#   child: %d objects of 64 MiB, then %s\n", r[0], strerror(r[1]));
	}
	T_EQ(n, BURST_CHILDREN);
	T_CHECK(ok, "every child ends with EDQUOT or ENOMEM");
	T_CHECK(mem_stat("charged") <= limit, "charged %lld, limit %lld",
		mem_stat("charged"), limit);
	T_CHECK(held > 0, "nothing could be created");
	close(go[1]);		/* release them */
	for (i = 0; i < BURST_CHILDREN; i++)
		T_EQ(reap(pids[i]), 0);
	close(res[0]);
	T_EQ(oom_in_log(), 0);
	T_EQ(charged_settles(), 0);

	fd = ctl_open();
	img = image_new(SMALL_IMG, PAGE16K);
	T_CHECK(fd >= 0 && img, "open");
	T_OK(create(fd, img, SMALL_IMG));
	T_CHECK(surface(fd, PAGE16K), "errno %d", errno);
	close(fd);
	T_EQ(charged_settles(), 0);
}

#define HUGE_IMG	(256 * MiB)

/* A 256 MiB create's outcome in a child: its errno and libane's message. */
struct huge_res {
	int err;
	char msg[500];
};

/*
 * One 256 MiB ane_program_create() in each of @n processes at once, each
 * holding what it made until all have tried.
 */
static void huge_creates(int n, struct huge_res *res)
{
	int fds[2], go[2], i;
	pid_t pids[4];

	T_OK(pipe(fds));
	T_OK(pipe(go));
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			uint8_t *im = image_new(HUGE_IMG, PAGE16K);
			struct huge_res r = { .err = -1 };
			struct ane_program *prog = NULL;
			struct ane_dev *dev = NULL;
			char x;

			close(fds[0]);
			close(go[1]);
			if (im && !ane_open(node, ANE_KIND_CONTROL, &dev, r.msg, sizeof(r.msg))) {
				r.err = -ane_program_create(dev, im, HUGE_IMG, &prog);
				snprintf(r.msg, sizeof(r.msg), "%s", r.err ? ane_errmsg(dev) : "");
			}
			if (write(fds[1], &r, sizeof(r)) != sizeof(r) || read(go[0], &x, 1) < 0)
				_exit(3);
			_exit(0);	/* its file and program go with it */
		}
	}
	close(fds[1]);
	close(go[0]);
	for (i = 0; i < n; i++)
		if (read(fds[0], &res[i], sizeof(res[i])) != sizeof(res[i]))
			res[i].err = -2;
	close(go[1]);
	close(fds[0]);
	for (i = 0; i < n; i++)
		T_EQ(reap(pids[i]), 0);
}

/*
 * A 256 MiB image -- the format's largest -- from one process and then
 * from four at once, on the VM's 1 GiB: each is taken or refused with
 * the errno uapi.rst lists for it (-EDQUOT: the client's limit, -ENOMEM:
 * the device's limit or the machine), nobody is OOM-killed, every charge
 * returns, and the next program runs.
 */
static void a_256_mib_image_from_one_and_four_processes(void)
{
	static const char *const param[] = {
		[EDQUOT] = "mem_client_mb", [ENOMEM] = "mem_device_mb",
	};
	struct huge_res res[4];
	int i, n, refused = 0;
	uint8_t *img;
	int fd;

	T_CHECK(oom_in_log() == 0, "an OOM kill before the test");
	for (n = 1; n <= 4; n += 3) {
		huge_creates(n, res);
		for (i = 0; i < n; i++) {
			int e = res[i].err;

			printf("#   %d process(es): create %d: %s\n", n, i,
			       e ? res[i].msg : "ok");
			T_CHECK(!e || e == EDQUOT || e == ENOMEM,
				"%d process(es), create %d: errno %d: %s", n, i, e, res[i].msg);
			if (e != EDQUOT && e != ENOMEM)
				continue;
			refused++;
			T_CHECK(strstr(res[i].msg, param[e]),
				"the message names %s: %s", param[e], res[i].msg);
		}
		T_EQ(charged_settles(), 0);
	}
	/* four at once pass the device's limit (half of the VM's 1 GiB) */
	if (4 * (long long)HUGE_IMG > mem_stat("limit_device"))
		T_CHECK(refused > 0, "no create of 256 MiB was refused");
	T_EQ(oom_in_log(), 0);
	fd = ctl_open();
	img = image_new(SMALL_IMG, PAGE16K);
	T_CHECK(fd >= 0 && img, "open");
	T_OK(create(fd, img, SMALL_IMG));
	close(fd);
	T_EQ(charged_settles(), 0);
}

int main(int argc, char **argv)
{
	const char *only;

	if (vm_node(argc, argv, node, sizeof(node), "limits"))
		return 1;
	if (access("/sys/kernel/debug/accel", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (vm_debugfs_path(node, "memory", memfile, sizeof(memfile))) {
		printf("not ok - no debugfs directory for %s\nlimits: 0 passed, 1 failed\n",
		       node);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	only = getenv("LIMITS_ONLY");	/* one case, e.g. to try it on old code */
	params_reset();
#define RUN(fn) do { if (!only || !strcmp(only, #fn)) T_RUN(fn); } while (0)
	RUN(header_checked_before_the_image_is_allocated);
	RUN(sizes_above_the_limits_are_e2big);
	RUN(client_quota_is_edquot);
	RUN(device_limit_is_enomem);
	if (have_memcg())
		RUN(memcg_is_charged_and_not_oom_killed);
	else
		printf("# memcg_is_charged_and_not_oom_killed: not run, no memory cgroups in this kernel (CONFIG_MEMCG)\n");
	RUN(burst_of_large_creates_ends_clean);
	RUN(a_256_mib_image_from_one_and_four_processes);
	RUN(charges_return_after_unplug);
	RUN(refused_instances_hold_no_surface);
	params_reset();
	return t_summary("limits");
}
