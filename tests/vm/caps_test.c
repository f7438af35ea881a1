// SPDX-License-Identifier: MIT
/*
 * VM tests of the capability model (Documentation/accel/ane/security.rst):
 * every gate from an unprivileged user outside the client group, a member
 * of it, a member with CAP_SYS_NICE, root, and root files whose
 * capabilities were dropped -- each refused gate with its errno, each
 * granted one working; the set fixed at open; the broker handing a
 * dropped file to a less trusted process over a unix socket.
 *
 * Runs as root with ane loaded (any parameters: it sets client_gid and
 * open_all itself and puts them back); the node is made 0666 so that
 * open(2) is never what refuses.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"
/* after vm_util.h, whose helpers take a node argument */
#include "vm/prog_util.h"

#define NOBODY		65534
#define PARAM_GID	"/sys/module/ane/parameters/client_gid"
#define PARAM_OPEN_ALL	"/sys/module/ane/parameters/open_all"
/* What a member of the client group gets by default (client_caps). */
#define CLIENT_CAPS	(ANE_CAP_OPEN | ANE_CAP_DATA_CHAINING | ANE_CAP_MEMORY | \
			 ANE_CAP_DATA | ANE_CAP_CLIENT_HINTS)
#define NICE_CAPS	(ANE_CAP_REALTIME | ANE_CAP_SYSTEM_PRIORITY)

static uint8_t img[IMG_SIZE];
/* The session token of the direct-path file probe() maps on. */
static uint64_t dp_token;

enum who { ROOT, NOBODY_USER, NICE_USER };

/* Become @who for good; 0 or -1.  NICE_USER keeps CAP_SYS_NICE alone. */
static int become(enum who who)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	if (who == ROOT)
		return 0;
	if (who == NICE_USER && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -1;
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -1;
	if (who == NICE_USER) {
		d[0].effective = d[0].permitted = 1u << CAP_SYS_NICE;
		if (syscall(SYS_capset, &h, d))
			return -1;
	}
	return 0;
}

/* Run @body in a child as @who; the case fails if the child did. */
static void as(enum who who, void (*body)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		T_CHECK(0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		if (become(who)) {
			printf("#   cannot become %d: %s\n", (int)who, strerror(errno));
			_exit(2);
		}
		alarm(60);
		t_case_failed = 0;
		body(arg);
		fflush(stdout);
		_exit(t_case_failed ? 1 : 0);
	}
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "child status 0x%x", status);
}

static int set_gid(int gid)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", gid);
	return vm_write_file(PARAM_GID, v);
}

/* The file's capability set (a drop of nothing), or -1. */
static long caps_of(int fd)
{
	struct drm_ane_caps_drop q = { 0 };

	return ioctl(fd, DRM_IOCTL_ANE_CAPS_DROP, &q) ? -1 : (long)q.caps;
}

static int drop(int fd, unsigned int bits)
{
	struct drm_ane_caps_drop q = { .drop = bits };

	return ioctl(fd, DRM_IOCTL_ANE_CAPS_DROP, &q);
}

static int dev_open(int fd, unsigned long cmd)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
	int ret = ioctl(fd, cmd, &op);

	if (!ret && cmd == DRM_IOCTL_ANE_DP_DEVICE_OPEN)
		dp_token = op.out.token;
	return ret;
}

static int prepare_at(int fd, uint64_t tok, uint32_t prio)
{
	struct drm_ane_program_prepare pp;

	memset(&pp, 0, sizeof(pp));
	pp.in.token = tok;
	pp.in.priority = prio;
	pp.in.flags = ANE_PREPARE_EXACT_PRIORITY;
	return ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, &pp);
}

static int unprepare(int fd, uint64_t tok)
{
	struct drm_ane_program_unprepare pu;

	memset(&pu, 0, sizeof(pu));
	pu.in.token = tok;
	return ioctl(fd, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, &pu);
}

/* One request of program @tok on @fd, its result checked. */
static void run_once(int fd, uint64_t tok)
{
	struct drm_ane_event_complete ev;
	struct surf in, out;

	if (surface(fd, 12, &in) || surface(fd, 8, &out)) {
		T_CHECK(0, "surfaces: %s", strerror(errno));
		return;
	}
	fill_input(&in);
	memset(out.p, 0xff, 8);
	T_OK(submit(fd, tok, in.handle, out.handle, 0, NULL));
	T_OK(wait_event(fd, &ev));
	T_EQ(ev.status, 0);
	T_EQ(check_out(&out, OUT), 0);
	munmap(in.p, PAGE16K);
	munmap(out.p, PAGE16K);
}

/* Granted: anything but -EPERM (the handler ran); refused: -EPERM. */
#define T_GATE(call, granted) do { \
	int _r = (call); \
	int _e = _r < 0 ? errno : 0; \
	if (granted) \
		T_CHECK(_e != EPERM, "refused with EPERM though granted"); \
	else \
		T_CHECK(_r < 0 && _e == EPERM, "returned %d errno %d (%s), expected EPERM", \
			_r, _e, strerror(_e)); \
} while (0)

/*
 * Every gate of files holding @want: @ctl and @dp are DeviceOpen'ed
 * clients of each space, @fresh a file never DeviceOpen'ed.
 */
static void probe(int ctl, int dp, int fresh, unsigned int want)
{
	static struct drm_ane_memory_map mr;
	struct drm_ane_chaining_prepare cp = { 0 };
	struct drm_ane_output_set_enqueue oe = { 0 };
	static struct drm_ane_inputs_ready ir;
	struct drm_ane_chaining_set_active ca = { 0 };
	struct drm_ane_session_hint sh = { 0 };
	struct drm_ane_surface_create sc = { .size = PAGE16K };
	struct drm_ane_register_dwp rd = { .size = PAGE16K };
	struct drm_ane_get_status st;
	struct drm_ane_dma dma = { .iova = 0x4000, .size = 16 };
	uint64_t tok = 0, buf[2];
	int ret;

	T_EQ(caps_of(ctl), want);
	T_EQ(caps_of(dp), want);
	T_EQ(caps_of(fresh), want);
	memset(&st, 0, sizeof(st));
	T_OK(ioctl(ctl, DRM_IOCTL_ANE_CTL_GET_STATUS, &st));
	T_EQ(st.out.client_flags >> ANE_CLIENT_CAPS_SHIFT, want);
	T_EQ(!!(st.out.client_flags & ANE_CLIENT_PRIVILEGED), !!(want & ANE_CAP_PRIV_VM));

	/* memory: surfaces and DART mappings */
	if (want & ANE_CAP_MEMORY) {
		T_OK(ioctl(dp, DRM_IOCTL_ANE_SURFACE_CREATE, &sc));
	} else {
		T_ERRNO(ioctl(ctl, DRM_IOCTL_ANE_SURFACE_CREATE, &sc), EPERM);
		T_ERRNO(ioctl(dp, DRM_IOCTL_ANE_SURFACE_CREATE, &sc), EPERM);
		sc.handle = 1;
	}
	memset(&mr, 0, sizeof(mr));
	mr.token = dp_token;
	mr.in.num_surfaces = 1;
	mr.in.direction = 3;
	mr.in.surfaces[0].handle = sc.handle;
	mr.in.surfaces[0].usage = 1;
	if (want & ANE_CAP_MEMORY) {
		T_OK(ioctl(dp, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr));
		dma.iova = mr.iova;
	} else {
		T_ERRNO(ioctl(dp, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EPERM);
	}

	/* data: the engine-DMA view of memory (a fault where nothing is mapped) */
	dma.data = (uintptr_t)buf;
	ret = ioctl(dp, DRM_IOCTL_ANE_DMA, &dma);
	if (!(want & ANE_CAP_DATA))
		T_CHECK(ret < 0 && errno == EPERM, "dma: %d %s", ret, strerror(errno));
	else if (want & ANE_CAP_MEMORY)
		T_CHECK(ret == 0, "dma: %d %s", ret, strerror(errno));
	else
		T_CHECK(ret < 0 && errno == ENXIO, "dma: %d %s", ret, strerror(errno));

	/* resident data chaining and per-client hints */
	T_GATE(ioctl(ctl, DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, &cp),
	       want & ANE_CAP_DATA_CHAINING);
	T_GATE(ioctl(dp, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe),
	       want & ANE_CAP_DATA_CHAINING);
	memset(&ir, 0, sizeof(ir));
	T_GATE(ioctl(dp, DRM_IOCTL_ANE_DP_INPUTS_READY, &ir), want & ANE_CAP_DATA_CHAINING);
	T_GATE(ioctl(dp, DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, &ca),
	       want & ANE_CAP_DATA_CHAINING);
	T_GATE(ioctl(dp, DRM_IOCTL_ANE_DP_SESSION_HINT, &sh), want & ANE_CAP_CLIENT_HINTS);

	/* privileged-VM-access: the debug work processor */
	if ((want & ANE_CAP_PRIV_VM) && (want & ANE_CAP_MEMORY)) {
		struct drm_ane_surface_create s2 = { .size = PAGE16K };

		T_OK(ioctl(ctl, DRM_IOCTL_ANE_SURFACE_CREATE, &s2));
		rd.buffer = s2.handle;
		T_OK(ioctl(ctl, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &rd));
		T_OK(ioctl(ctl, DRM_IOCTL_ANE_CTL_UNREGISTER_DWP));
	} else {
		rd.buffer = 1;
		T_GATE(ioctl(ctl, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &rd), want & ANE_CAP_PRIV_VM);
		T_GATE(ioctl(ctl, DRM_IOCTL_ANE_CTL_UNREGISTER_DWP), want & ANE_CAP_PRIV_VM);
	}

	/* the real-time band: 1 needs realtime, 0 also system-priority */
	build_image(img, W);
	T_OK(create(ctl, img, IMG_SIZE, &tok));
	if (want & ANE_CAP_REALTIME) {
		T_OK(prepare_at(ctl, tok, 1));
		T_OK(unprepare(ctl, tok));
	} else {
		T_ERRNO(prepare_at(ctl, tok, 1), EPERM);
	}
	if ((want & NICE_CAPS) == NICE_CAPS) {
		T_OK(prepare_at(ctl, tok, 0));
		if (want & ANE_CAP_MEMORY)
			run_once(ctl, tok);	/* a request at priority 0 computes */
		T_OK(unprepare(ctl, tok));
	} else {
		T_ERRNO(prepare_at(ctl, tok, 0), EPERM);
	}
	T_ERRNO(prepare_at(ctl, tok, 8), EINVAL);
	/* the normal band is everyone's */
	T_OK(prepare_at(ctl, tok, 2));
	if (want & ANE_CAP_MEMORY)
		run_once(ctl, tok);
	T_OK(destroy(ctl, tok));

	/* open, last: it changes @fresh */
	if (want & ANE_CAP_OPEN)
		T_OK(dev_open(fresh, DRM_IOCTL_ANE_CTL_DEVICE_OPEN));
	else
		T_ERRNO(dev_open(fresh, DRM_IOCTL_ANE_CTL_DEVICE_OPEN), EACCES);
}

/* The three files of probe(), opened (and DeviceOpen'ed) by the caller. */
static int open3(int fd[3])
{
	fd[0] = open(node, O_RDWR | O_CLOEXEC);
	fd[1] = open(node, O_RDWR | O_CLOEXEC);
	fd[2] = open(node, O_RDWR | O_CLOEXEC);
	return fd[0] < 0 || fd[1] < 0 || fd[2] < 0 ? -1 : 0;
}

static void close3(int fd[3])
{
	close(fd[0]);
	close(fd[1]);
	close(fd[2]);
}

/* As the caller: open, DeviceOpen (expected to work) and probe(). */
static void open_and_probe(void *arg)
{
	unsigned int want = *(unsigned int *)arg;
	int fd[3];

	if (open3(fd)) {
		T_CHECK(0, "open %s: %s", node, strerror(errno));
		return;
	}
	T_OK(dev_open(fd[0], DRM_IOCTL_ANE_CTL_DEVICE_OPEN));
	T_OK(dev_open(fd[1], DRM_IOCTL_ANE_DP_DEVICE_OPEN));
	probe(fd[0], fd[1], fd[2], want);
	close3(fd);
}

/*
 * Without the open capability (@arg: the set expected, or NULL for none):
 * the node opens, the engine refuses everything.
 */
static void refused_everything(void *arg)
{
	struct drm_ane_surface_create sc = { .size = PAGE16K };
	struct drm_version v = { 0 };
	int fd[3];

	if (open3(fd)) {
		T_CHECK(0, "open %s: %s", node, strerror(errno));
		return;
	}
	T_EQ(caps_of(fd[0]), arg ? *(unsigned int *)arg : 0);
	T_OK(ioctl(fd[0], DRM_IOCTL_VERSION, &v));	/* the core still answers */
	T_ERRNO(dev_open(fd[0], DRM_IOCTL_ANE_CTL_DEVICE_OPEN), EACCES);
	T_ERRNO(dev_open(fd[1], DRM_IOCTL_ANE_DP_DEVICE_OPEN), EACCES);
	T_ERRNO(dev_open(fd[0], DRM_IOCTL_ANE_CTL_DEVICE_OPEN), EACCES);
	T_ERRNO(ioctl(fd[2], DRM_IOCTL_ANE_SURFACE_CREATE, &sc), EPERM);
	/* Nothing to drop, nothing gained by dropping. */
	T_OK(drop(fd[2], ANE_CAP_ALL));
	T_EQ(caps_of(fd[2]), 0);
	close3(fd);
}

static void nobody_outside_the_group_is_refused(void)
{
	T_OK(set_gid(-1));
	as(NOBODY_USER, refused_everything, NULL);
}

static void open_all_admits_everyone_for_development(void)
{
	unsigned int want = CLIENT_CAPS;

	T_OK(set_gid(-1));
	T_OK(vm_write_file(PARAM_OPEN_ALL, "1"));
	as(NOBODY_USER, open_and_probe, &want);
	T_OK(vm_write_file(PARAM_OPEN_ALL, "0"));
	as(NOBODY_USER, refused_everything, NULL);
}

static void a_member_of_the_group_is_a_client(void)
{
	unsigned int want = CLIENT_CAPS;

	T_OK(set_gid(NOBODY));
	as(NOBODY_USER, open_and_probe, &want);
	T_OK(set_gid(-1));
}

static void a_member_with_cap_sys_nice_gets_the_realtime_band(void)
{
	unsigned int want = CLIENT_CAPS | NICE_CAPS;

	T_OK(set_gid(NOBODY));
	as(NICE_USER, open_and_probe, &want);
	T_OK(set_gid(-1));
	/* CAP_SYS_NICE alone does not open the engine. */
	want = NICE_CAPS;
	as(NICE_USER, refused_everything, &want);
}

static void root_gets_everything(void)
{
	unsigned int want = ANE_CAP_ALL;

	as(ROOT, open_and_probe, &want);
}

/* The set is taken at open(2): a later change of the policy is not seen. */
struct sync {
	int go[2], done[2];
};

static void fixed_at_open_child(void *arg)
{
	struct sync *s = arg;
	char c;
	int a, b;

	a = open(node, O_RDWR | O_CLOEXEC);
	T_CHECK(a >= 0, "open: %s", strerror(errno));
	T_EQ(caps_of(a), CLIENT_CAPS);
	T_CHECK(write(s->done[1], "o", 1) == 1, "sync");
	T_CHECK(read(s->go[0], &c, 1) == 1, "sync");
	/* The group no longer counts, but this file was opened in it. */
	T_EQ(caps_of(a), CLIENT_CAPS);
	T_OK(dev_open(a, DRM_IOCTL_ANE_CTL_DEVICE_OPEN));
	b = open(node, O_RDWR | O_CLOEXEC);
	T_EQ(caps_of(b), 0);
	T_ERRNO(dev_open(b, DRM_IOCTL_ANE_CTL_DEVICE_OPEN), EACCES);
	close(a);
	close(b);
}

static void the_set_is_fixed_at_open(void)
{
	struct sync s;
	int status;
	char c;
	pid_t pid;

	T_OK(set_gid(NOBODY));
	if (pipe(s.go) || pipe(s.done)) {
		T_CHECK(0, "pipe");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(s.go[1]);
		close(s.done[0]);
		t_case_failed = 0;
		if (become(NOBODY_USER))
			_exit(2);
		alarm(30);
		fixed_at_open_child(&s);
		fflush(stdout);
		_exit(t_case_failed ? 1 : 0);
	}
	close(s.go[0]);
	close(s.done[1]);
	T_CHECK(read(s.done[0], &c, 1) == 1, "child did not open");
	T_OK(set_gid(-1));
	T_CHECK(write(s.go[1], "g", 1) == 1, "sync");
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "child status 0x%x", status);
	close(s.go[1]);
	close(s.done[0]);
}

/* Root's files with capabilities dropped: refused as if never granted. */
static void a_root_file_with_caps_dropped_is_refused(void)
{
	static const unsigned int drops[] = {
		ANE_CAP_PRIV_VM | ANE_CAP_REALTIME | ANE_CAP_DATA,
		ANE_CAP_SYSTEM_PRIORITY | ANE_CAP_DATA_CHAINING | ANE_CAP_CLIENT_HINTS,
		ANE_CAP_ALL & ~ANE_CAP_OPEN,
		ANE_CAP_ALL,
	};
	struct drm_ane_caps_drop q;
	unsigned int i;
	int fd[3], dup_fd;

	for (i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		if (open3(fd)) {
			T_CHECK(0, "open: %s", strerror(errno));
			return;
		}
		T_OK(dev_open(fd[0], DRM_IOCTL_ANE_CTL_DEVICE_OPEN));
		T_OK(dev_open(fd[1], DRM_IOCTL_ANE_DP_DEVICE_OPEN));
		/* A drop before or after DeviceOpen: the same. */
		T_OK(drop(fd[0], drops[i]));
		T_OK(drop(fd[1], drops[i]));
		T_OK(drop(fd[2], drops[i]));
		printf("#   dropped 0x%03x\n", drops[i]);
		probe(fd[0], fd[1], fd[2], ANE_CAP_ALL & ~drops[i]);
		close3(fd);
	}

	/* Bad arguments, and no way back: a duplicate is the same file. */
	T_OK(open3(fd));
	memset(&q, 0, sizeof(q));
	q.drop = ANE_CAP_ALL + 1;
	T_ERRNO(ioctl(fd[0], DRM_IOCTL_ANE_CAPS_DROP, &q), EINVAL);
	q.drop = 0;
	q.flags = 1;
	T_ERRNO(ioctl(fd[0], DRM_IOCTL_ANE_CAPS_DROP, &q), EINVAL);
	q.flags = 0;
	q.reserved = 1;
	T_ERRNO(ioctl(fd[0], DRM_IOCTL_ANE_CAPS_DROP, &q), EINVAL);
	T_EQ(caps_of(fd[0]), ANE_CAP_ALL);
	dup_fd = dup(fd[0]);
	memset(&q, 0, sizeof(q));
	q.drop = ANE_CAP_OPEN;
	T_OK(ioctl(dup_fd, DRM_IOCTL_ANE_CAPS_DROP, &q));
	T_EQ(q.caps, ANE_CAP_ALL & ~ANE_CAP_OPEN);
	T_EQ(caps_of(fd[0]), ANE_CAP_ALL & ~ANE_CAP_OPEN);
	T_ERRNO(dev_open(fd[0], DRM_IOCTL_ANE_CTL_DEVICE_OPEN), EACCES);
	close(dup_fd);
	close3(fd);
}

/*
 * The broker: root opens and DeviceOpens the files, prepares a program,
 * makes its surfaces, drops every capability and hands the files to a
 * process outside the client group over a unix socket.  That process runs
 * the broker's program on them, and every dropped gate refuses it.
 */
struct handoff {
	uint64_t tok, dp_token;
	uint32_t in, out;
	uint64_t in_off, out_off;
};

static int send_fds(int sock, const int *fds, int n, const void *data, size_t len)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = CMSG_SPACE(n * sizeof(int)) };
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return sendmsg(sock, &m, 0) == (ssize_t)len ? 0 : -1;
}

static int recv_fds(int sock, int *fds, int n, void *data, size_t len)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = { .iov_base = data, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != (ssize_t)len)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(n * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(c), n * sizeof(int));
	return 0;
}

/* The client's side: files @fd and what @h says of them, from the broker. */
static void broker_client(int fd[3], struct handoff h)
{
	struct drm_ane_event_complete ev;
	uint16_t *in, *out;
	int i;

	dp_token = h.dp_token;
	/* This process could not open the engine itself... */
	i = open(node, O_RDWR | O_CLOEXEC);
	T_EQ(caps_of(i), 0);
	T_ERRNO(dev_open(i, DRM_IOCTL_ANE_CTL_DEVICE_OPEN), EACCES);
	close(i);
	/* ...but runs the broker's program on the broker's file. */
	in = mmap(NULL, PAGE16K, PROT_READ | PROT_WRITE, MAP_SHARED, fd[0], (off_t)h.in_off);
	out = mmap(NULL, PAGE16K, PROT_READ | PROT_WRITE, MAP_SHARED, fd[0], (off_t)h.out_off);
	if (in == MAP_FAILED || out == MAP_FAILED) {
		T_CHECK(0, "mmap: %s", strerror(errno));
		return;
	}
	for (i = 0; i < 6; i++)
		in[i] = h16(A[i]);
	memset(out, 0xff, 8);
	T_OK(submit(fd[0], h.tok, h.in, h.out, 0, NULL));
	T_OK(wait_event(fd[0], &ev));
	T_EQ(ev.status, 0);
	for (i = 0; i < 4; i++)
		T_EQ(out[i], h16(OUT[i]));
	/* Every gate the broker dropped refuses it. */
	probe(fd[0], fd[1], fd[2], 0);
	munmap(in, PAGE16K);
	munmap(out, PAGE16K);
	close3(fd);
}

/* The broker (root): a session, a prepared program, its surfaces; dropped. */
static int broker_setup(int fd[3], struct handoff *h)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_surface_create si = { .size = 12 }, so = { .size = 8 };

	if (open3(fd) || dev_open(fd[0], DRM_IOCTL_ANE_CTL_DEVICE_OPEN) ||
	    dev_open(fd[1], DRM_IOCTL_ANE_DP_DEVICE_OPEN))
		return -1;
	h->dp_token = dp_token;
	build_image(img, W);
	if (create(fd[0], img, IMG_SIZE, &h->tok) || prepare(fd[0], h->tok, &pp) ||
	    ioctl(fd[0], DRM_IOCTL_ANE_SURFACE_CREATE, &si) ||
	    ioctl(fd[0], DRM_IOCTL_ANE_SURFACE_CREATE, &so))
		return -1;
	h->in = si.handle;
	h->out = so.handle;
	h->in_off = si.offset;
	h->out_off = so.offset;
	/* Drop everything before the files leave. */
	return drop(fd[0], ANE_CAP_ALL) || drop(fd[1], ANE_CAP_ALL) ||
	       drop(fd[2], ANE_CAP_ALL) ? -1 : 0;
}

/*
 * The broker hands its files over a unix socket to a process it forked
 * before opening them.  A kernel without unix sockets (the minimal debug
 * kernel) gets the same files across fork() instead, and says so.
 */
static void a_broker_hands_a_dropped_file_to_a_child(void)
{
	struct handoff h = { 0 };
	int sv[2], fd[3], status, sock;
	pid_t pid;

	T_OK(set_gid(-1));
	sock = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0;
	if (!sock) {
		printf("#   no unix sockets (%s): the files cross a fork\n", strerror(errno));
		if (broker_setup(fd, &h)) {
			T_CHECK(0, "broker: %s", strerror(errno));
			return;
		}
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		t_case_failed = 0;
		if (sock)
			close(sv[0]);
		if (become(NOBODY_USER))
			_exit(2);
		alarm(60);
		if (sock && recv_fds(sv[1], fd, 3, &h, sizeof(h))) {
			T_CHECK(0, "recvmsg: %s", strerror(errno));
			_exit(1);
		}
		broker_client(fd, h);
		fflush(stdout);
		_exit(t_case_failed ? 1 : 0);
	}
	if (sock) {
		close(sv[1]);
		T_OK(broker_setup(fd, &h));
		T_OK(send_fds(sv[0], fd, 3, &h, sizeof(h)));
		close(sv[0]);
	}
	close3(fd);
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "child status 0x%x", status);
}

int main(int argc, char **argv)
{
	struct stat st;
	int ret;

	if (vm_node(argc, argv, node, sizeof(node), "caps"))
		return 1;
	if (stat(node, &st) || chmod(node, 0666)) {
		printf("not ok - chmod %s: %s\ncaps: 0 passed, 1 failed\n", node,
		       strerror(errno));
		return 1;
	}
	T_RUN(nobody_outside_the_group_is_refused);
	T_RUN(open_all_admits_everyone_for_development);
	T_RUN(a_member_of_the_group_is_a_client);
	T_RUN(a_member_with_cap_sys_nice_gets_the_realtime_band);
	T_RUN(root_gets_everything);
	T_RUN(the_set_is_fixed_at_open);
	T_RUN(a_root_file_with_caps_dropped_is_refused);
	T_RUN(a_broker_hands_a_dropped_file_to_a_child);
	ret = t_summary("caps");
	chmod(node, st.st_mode & 07777);
	set_gid(-1);
	return ret;
}
