// SPDX-License-Identifier: MIT
/*
 * VM tests of the resident submission model's hand-off: a control client
 * exports a prepared program, a direct-path client attaches it and runs
 * it through its own selector 2; every errno of export and attach; a
 * client of another uid refused; the owner's exit leaving the attacher a
 * working program and no firmware slot behind once both are gone; the
 * attach limit at n and n + 1.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"
/* after vm_util.h, whose helpers take a node argument */
#include "vm/prog_util.h"

#define NOBODY		65534
/* Programs one client may hold (ANE_MAX_PROGRAMS_PER_FILE). */
#define MAX_PROGRAMS	64

static uint8_t img[IMG_SIZE];

static int dp_open(struct client *c)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };

	c->fd = open(node, O_RDWR | O_CLOEXEC);
	if (c->fd < 0 || ioctl(c->fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op) < 0)
		return -1;
	c->token = op.out.token;
	return 0;
}

/* A control client with the test program prepared; its token in @tok. */
static int owner_setup(struct client *c, uint64_t *tok)
{
	struct drm_ane_program_prepare pp;

	if (ctl_open(c))
		return -1;
	build_image(img, W);
	*tok = 0;
	if (create(c->fd, img, IMG_SIZE, tok) || prepare(c->fd, *tok, &pp))
		return -1;
	return 0;
}

static int export_prog(int fd, uint64_t tok)
{
	struct drm_ane_program_export ex = { .token = tok };

	if (ioctl(fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex) < 0)
		return -1;
	return ex.fd;
}

static int attach_prog(int fd, int efd, uint64_t *tok)
{
	struct drm_ane_program_attach at = { .fd = efd };

	if (ioctl(fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at) < 0)
		return -1;
	*tok = at.token;
	return 0;
}

static int detach_prog(int fd, uint64_t tok)
{
	struct drm_ane_program_attach at = { .flags = ANE_ATTACH_DETACH, .token = tok };

	return ioctl(fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at);
}

static int dp_submit(int fd, uint64_t tok, uint32_t in, uint32_t out)
{
	memset(&sr, 0, sizeof(sr));
	sr.in.token = tok;
	sr.in.qos_class = 5;
	sr.in.exec_priority = 21;
	sr.in.io_category = 2;
	sr.in.surfaces[0] = (struct drm_ane_surface_ref){ .handle = in,
							  .kind = ANE_SURFACE_INPUT };
	sr.in.surfaces[1] = (struct drm_ane_surface_ref){ .handle = out,
							  .kind = ANE_SURFACE_OUTPUT };
	return ioctl(fd, DRM_IOCTL_ANE_DP_SEND_REQUEST, &sr);
}

/* Run the attached program once in @c; 0 if it computed OUT. */
static int run_attached(struct client *c, uint64_t tok)
{
	struct drm_ane_event_complete ev;
	struct surf in, out;
	int bad;

	if (surface(c->fd, 12, &in) || surface(c->fd, 8, &out))
		return -1;
	fill_input(&in);
	memset(out.p, 0xff, 8);
	if (dp_submit(c->fd, tok, in.handle, out.handle)) {
		printf("#   submit: %s\n", strerror(errno));
		bad = -1;
	} else {
		bad = wait_event(c->fd, &ev) || ev.status || check_out(&out, OUT) ? -1 : 0;
	}
	munmap(in.p, PAGE16K);
	munmap(out.p, PAGE16K);
	return bad;
}

static void an_attached_program_runs_in_the_direct_client(void)
{
	struct client a, b;
	uint64_t tok, atok = 0;
	int efd;

	if (owner_setup(&a, &tok) || dp_open(&b)) {
		T_CHECK(0, "setup");
		return;
	}
	efd = export_prog(a.fd, tok);
	T_CHECK(efd >= 0, "export: %s", strerror(errno));
	T_CHECK(fcntl(efd, F_GETFD) & FD_CLOEXEC, "close-on-exec");
	T_OK(attach_prog(b.fd, efd, &atok));
	T_CHECK(atok && atok != tok, "a token of the attacher's own");
	T_OK(run_attached(&b, atok));
	/* the owner cannot withdraw it under a running request, but can after */
	T_OK(run_attached(&b, atok));
	/* the attacher's token is not a program of the owner's, and back */
	T_ERRNO(destroy(a.fd, atok), ENOENT);
	T_ERRNO(dp_submit(b.fd, tok, 1, 2), ENOENT);
	close(efd);
	close(a.fd);
	close(b.fd);
}

static void export_errors_are_precise(void)
{
	struct drm_ane_program_export ex;
	struct client a, b, n;
	uint64_t tok, unprep = 0;

	if (owner_setup(&a, &tok) || dp_open(&b)) {
		T_CHECK(0, "setup");
		return;
	}
	n.fd = open(node, O_RDWR | O_CLOEXEC);
	ex = (struct drm_ane_program_export){ .token = tok };
	T_ERRNO(ioctl(n.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex), ENOTCONN);
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex), EBADRQC);
	ex.flags = 1;
	T_ERRNO(ioctl(a.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex), EINVAL);
	ex = (struct drm_ane_program_export){ .token = tok, .fd = 3 };
	T_ERRNO(ioctl(a.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex), EINVAL);
	ex = (struct drm_ane_program_export){ .token = tok, .reserved = 1 };
	T_ERRNO(ioctl(a.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex), EINVAL);
	ex = (struct drm_ane_program_export){ .token = tok ^ 1 };
	T_ERRNO(ioctl(a.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex), ENOENT);
	T_OK(create(a.fd, img, IMG_SIZE, &unprep));
	ex = (struct drm_ane_program_export){ .token = unprep };
	T_ERRNO(ioctl(a.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex), EBADFD);
	T_OK(ioctl(a.fd, DRM_IOCTL_ANE_CTL_DEVICE_CLOSE));
	ex = (struct drm_ane_program_export){ .token = tok };
	T_ERRNO(ioctl(a.fd, DRM_IOCTL_ANE_PROGRAM_EXPORT, &ex), ESHUTDOWN);
	close(n.fd);
	close(a.fd);
	close(b.fd);
}

static void attach_errors_are_precise(void)
{
	struct drm_ane_program_attach at;
	struct client a, b, n;
	uint64_t tok;
	int efd;

	if (owner_setup(&a, &tok) || dp_open(&b)) {
		T_CHECK(0, "setup");
		return;
	}
	efd = export_prog(a.fd, tok);
	n.fd = open(node, O_RDWR | O_CLOEXEC);
	at = (struct drm_ane_program_attach){ .fd = efd };
	T_ERRNO(ioctl(n.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), ENOTCONN);
	T_ERRNO(ioctl(a.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), EBADRQC);
	at.flags = 1;
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), EINVAL);
	at = (struct drm_ane_program_attach){ .fd = efd, .token = 1 };
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), EINVAL);
	at = (struct drm_ane_program_attach){ .fd = efd, .reserved = 1 };
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), EINVAL);
	at = (struct drm_ane_program_attach){ .flags = ANE_ATTACH_DETACH, .fd = efd,
					      .token = tok };
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), EINVAL);
	at = (struct drm_ane_program_attach){ .flags = ANE_ATTACH_DETACH, .token = tok };
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), ENOENT);
	at = (struct drm_ane_program_attach){ .fd = -1 };
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), EBADF);
	/* a descriptor that is not an export: the node itself */
	at = (struct drm_ane_program_attach){ .fd = a.fd };
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), EINVAL);
	/* the owner withdrew it: unprepared */
	{
		struct drm_ane_program_unprepare pu = { .in.token = tok };

		T_OK(ioctl(a.fd, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, &pu));
	}
	at = (struct drm_ane_program_attach){ .fd = efd };
	T_ERRNO(ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at), EBADFD);
	close(efd);
	close(n.fd);
	close(a.fd);
	close(b.fd);
}

/* Set by the parent before the fork; the child attaches as nobody. */
static int nobody_efd;

static int as_nobody(void)
{
	struct drm_ane_program_attach at = { .fd = nobody_efd };
	struct client b;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return 2;
	if (dp_open(&b)) {
		printf("#   nobody: open: %s\n", strerror(errno));
		return 3;
	}
	if (ioctl(b.fd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at) == 0)
		return 4;
	if (errno != EACCES) {
		printf("#   nobody: attach: %s, want EACCES\n", strerror(errno));
		return 5;
	}
	/* nothing was written back either */
	return at.token || at.num_procedures ? 6 : 0;
}

static void another_uid_is_refused(void)
{
	struct client a;
	struct stat st;
	uint64_t tok;
	int status;
	pid_t pid;

	/* nobody may open the node (as a udev rule would allow) */
	if (stat(node, &st) || chmod(node, 0666)) {
		T_CHECK(0, "chmod %s: %s", node, strerror(errno));
		return;
	}
	if (owner_setup(&a, &tok)) {
		T_CHECK(0, "setup");
		return;
	}
	nobody_efd = export_prog(a.fd, tok);
	T_CHECK(nobody_efd >= 0, "export");
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(as_nobody());
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "child");
	T_EQ(WEXITSTATUS(status), 0);
	chmod(node, st.st_mode & 07777);
	close(nobody_efd);
	close(a.fd);
}

static int slots_in_use(void)
{
	char path[512], line[256];
	int n = -1;
	FILE *f;

	if (vm_debugfs_path(node, "fw_programs", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "slots in use: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static int wait_slots(int want)
{
	int i, n = -1;

	for (i = 0; i < 100; i++) {
		n = slots_in_use();
		if (n == want)
			return 0;
		usleep(50000);
	}
	printf("#   %d firmware program slots in use, want %d\n", n, want);
	return -1;
}

/*
 * The owner exits with the program attached: the attacher keeps a working
 * program, and the slot goes only when the attacher is gone too.  Then
 * the same from a child process that is the owner and is killed.
 */
static void the_owner_exit_leaves_no_dangling_program(void)
{
	struct client a, b;
	uint64_t tok, atok = 0;
	int base = slots_in_use(), efd, round;

	T_CHECK(base >= 0, "fw_programs unreadable");
	for (round = 0; round < 3; round++) {
		if (owner_setup(&a, &tok) || dp_open(&b)) {
			T_CHECK(0, "setup");
			return;
		}
		efd = export_prog(a.fd, tok);
		T_OK(attach_prog(b.fd, efd, &atok));
		close(efd);
		close(a.fd);
		T_EQ(slots_in_use(), base + 1);
		T_OK(run_attached(&b, atok));
		/* the attacher detaches: destroy its token */
		if (round == 1)
			{
			T_OK(detach_prog(b.fd, atok));
			T_ERRNO(detach_prog(b.fd, atok), ENOENT);
			T_ERRNO(dp_submit(b.fd, atok, 1, 2), ENOENT);
		}
		close(b.fd);
		T_OK(wait_slots(base));
	}
}

static void the_attach_limit_holds_at_n(void)
{
	struct client a, b;
	uint64_t tok, atok = 0;
	int efd, i, ok = 0;

	if (owner_setup(&a, &tok) || dp_open(&b)) {
		T_CHECK(0, "setup");
		return;
	}
	efd = export_prog(a.fd, tok);
	for (i = 0; i < MAX_PROGRAMS; i++)
		ok += attach_prog(b.fd, efd, &atok) == 0;
	T_EQ(ok, MAX_PROGRAMS);
	T_ERRNO(attach_prog(b.fd, efd, &atok), ENOSPC);
	T_OK(run_attached(&b, atok));
	close(efd);
	close(a.fd);
	close(b.fd);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "resident"))
		return 1;
	T_RUN(an_attached_program_runs_in_the_direct_client);
	T_RUN(export_errors_are_precise);
	T_RUN(attach_errors_are_precise);
	T_RUN(another_uid_is_refused);
	T_RUN(the_owner_exit_leaves_no_dangling_program);
	T_RUN(the_attach_limit_holds_at_n);
	return t_summary("resident");
}
