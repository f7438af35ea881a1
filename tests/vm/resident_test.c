// SPDX-License-Identifier: MIT
/*
 * VM tests of the resident submission model's hand-off: a control client
 * exports a prepared program, a direct-path client attaches it and runs
 * it through its own selector 2; every errno of export and attach; a
 * client of another uid refused; the owner's exit leaving the attacher a
 * working program and no firmware slot behind once both are gone; the
 * attach limit at n and n + 1.  libane's direct path: an attached program
 * submitted with ane_attached_submit() beside chained runs on one handle.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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
	/* nobody may use the engine (the client group), not this program */
	T_OK(vm_client_gid(65534));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(as_nobody());
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "child");
	T_EQ(WEXITSTATUS(status), 0);
	vm_client_gid(-1);
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
	int base = 0, efd, round;

	/* the earlier cases' clients are gone, their releases maybe not yet */
	T_OK(wait_slots(base));
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


/* ------------------------------------------------------------ chains */

/*
 * A recurrent program: h' = relu(h (2x2) x W (2x2)), the test image's
 * layout with every operand 2x2.  With W = [1 1; 0 1] and h0 = I, step k
 * gives [1 k; 0 1], exact in fp16.
 */
static const int RW[4] = { 1, 1, 0, 1 };

static void build_rnn_image(uint8_t *b)
{
	struct ane_img_header *h = (void *)b;
	struct ane_img_bar *bar = (void *)(b + 160);
	struct ane_img_td *td = (void *)(b + 256);
	struct ane_img_rw *rw = (void *)(b + 544);
	uint16_t *wt = (void *)(b + PAGE16K);
	int i;

	memset(b, 0, IMG_SIZE);
	build_image_layout(b, IMG_SIZE, PAGE16K);
	h->weights_size = 8;
	bar[0].size = 8;
	bar[2].size = 8;
	memcpy(&td[0].words[ANE_TD_SRC0_DIMS], (uint32_t[]){ 1, 1, 2, 2 }, 16);
	memcpy(&td[0].words[ANE_TD_SRC1_DIMS], (uint32_t[]){ 1, 1, 2, 2 }, 16);
	rw[0].length_lo = 8;
	rw[1].length_lo = 8;
	for (i = 0; i < 4; i++)
		wt[i] = h16(RW[i]);
}

/* An owner with the recurrent program prepared, and its chain. */
struct rig {
	struct client a, b;
	uint64_t tok, atok, handle;
	struct surf h0, o[2];
};

static int chain_prepare(int fd, uint64_t tok, uint32_t proc, uint32_t flags,
			 uint64_t *handle)
{
	struct drm_ane_chaining_prepare cp = { .token = tok, .procedure = proc,
					       .flags = flags };

	if (ioctl(fd, DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, &cp) < 0)
		return -1;
	if (handle)
		*handle = cp.cache_handle;
	return 0;
}

static int chain_invalidate(int fd, uint64_t handle)
{
	struct drm_ane_chaining_prepare cp = { .token = handle,
					       .flags = ANE_CHAIN_INVALIDATE };

	return ioctl(fd, DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, &cp);
}

static int enqueue(int fd, uint64_t handle, uint32_t out)
{
	struct drm_ane_surface_ref r = { .handle = out, .kind = ANE_SURFACE_OUTPUT };
	struct drm_ane_output_set_enqueue oe = {
		.cache_handle = handle, .num_surfaces = 1, .surfaces = (uintptr_t)&r };

	return ioctl(fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe);
}

static struct drm_ane_inputs_ready ir;

static int trigger(int fd, uint64_t handle, uint64_t ts, uint32_t in, uint8_t kind)
{
	memset(&ir, 0, sizeof(ir));
	ir.cache_handle = handle;
	ir.exec_timestamp = ts;
	ir.num_inputs = 1;
	ir.inputs[0] = (struct drm_ane_surface_ref){ .handle = in, .kind = kind };
	return ioctl(fd, DRM_IOCTL_ANE_DP_INPUTS_READY, &ir);
}

static int wait_chain_event(int fd, struct drm_ane_event_complete *ev)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, 10000) != 1)
		return -1;
	n = read(fd, ev, sizeof(*ev));
	return n == sizeof(*ev) && ev->base.type == DRM_ANE_EVENT_CHAIN_COMPLETE ? 0 : -1;
}

static int rig_setup(struct rig *r)
{
	struct drm_ane_program_prepare pp;
	int efd, i;

	memset(r, 0, sizeof(*r));
	if (ctl_open(&r->a) || dp_open(&r->b))
		return -1;
	build_rnn_image(img);
	if (create(r->a.fd, img, IMG_SIZE, &r->tok) || prepare(r->a.fd, r->tok, &pp))
		return -1;
	efd = export_prog(r->a.fd, r->tok);
	if (efd < 0 || attach_prog(r->b.fd, efd, &r->atok))
		return -1;
	close(efd);
	/*
	 * The chains of the case before go with its files' last references
	 * (a closed client's requests hold it until the reaper releases
	 * them): the pool may still be full for a moment.  A leak stays
	 * full: two seconds and it is a failure.
	 */
	for (i = 0; chain_prepare(r->a.fd, r->tok, 0, 0, &r->handle); i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (errno != ENOSPC || i == 200)
			return -1;
		nanosleep(&ts, NULL);
	}
	if (surface(r->b.fd, 8, &r->h0) || surface(r->b.fd, 8, &r->o[0]) ||
	    surface(r->b.fd, 8, &r->o[1]))
		return -1;
	for (i = 0; i < 4; i++)
		r->h0.p[i] = h16(i == 0 || i == 3);
	return 0;
}

static void rig_close(struct rig *r)
{
	munmap(r->h0.p, PAGE16K);
	munmap(r->o[0].p, PAGE16K);
	munmap(r->o[1].p, PAGE16K);
	close(r->b.fd);
	close(r->a.fd);
}

/* Run @n chained steps from h0; the last output is in o[(n - 1) % 2]. */
static int run_chain(struct rig *r, int n, uint64_t *ts)
{
	struct drm_ane_event_complete ev;
	int k;

	for (k = 0; k < n; k++) {
		if (enqueue(r->b.fd, r->handle, r->o[k % 2].handle)) {
			printf("#   step %d: enqueue: %s\n", k, strerror(errno));
			return -1;
		}
		if (trigger(r->b.fd, r->handle, ++*ts,
			    k ? r->o[(k - 1) % 2].handle : r->h0.handle,
			    k ? ANE_SURFACE_CHAINED : ANE_SURFACE_INPUT)) {
			printf("#   step %d: trigger: %s\n", k, strerror(errno));
			return -1;
		}
		if (wait_chain_event(r->b.fd, &ev) || ev.status) {
			printf("#   step %d: event status %d\n", k, ev.status);
			return -1;
		}
		if (ev.token != r->handle || ev.sequence != *ts) {
			printf("#   step %d: event of 0x%llx ts %llu\n", k,
			       (unsigned long long)ev.token, (unsigned long long)ev.sequence);
			return -1;
		}
	}
	return 0;
}

/* One selector-2 run of the recurrent program in the attacher: h0 -> I x W. */
static int run_attached_rnn(struct rig *r)
{
	struct drm_ane_event_complete ev;

	if (dp_submit(r->b.fd, r->atok, r->h0.handle, r->o[0].handle) ||
	    wait_event(r->b.fd, &ev) || ev.status)
		return -1;
	return check_out(&r->o[0], (const int[4]){ 1, 1, 0, 1 }) ? -1 : 0;
}

static int check_step(const struct surf *s, int k)
{
	const int want[4] = { 1, k, 0, 1 };

	return check_out(s, want);
}

static void a_chain_computes_and_chains_without_a_copy(void)
{
	struct drm_ane_event_complete ev;
	struct rig r;
	uint64_t ts = 0;
	struct surf x, y;
	int k;

	if (rig_setup(&r)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	T_OK(run_chain(&r, 20, &ts));
	T_CHECK(!check_step(&r.o[19 % 2], 20), "step 20");
	/* the same 20 steps through selector 2 give the same bits */
	T_OK(surface(r.b.fd, 8, &x));
	T_OK(surface(r.b.fd, 8, &y));
	memcpy(x.p, r.h0.p, 8);
	for (k = 0; k < 20; k++) {
		T_OK(dp_submit(r.b.fd, r.atok, k % 2 ? y.handle : x.handle,
			       k % 2 ? x.handle : y.handle));
		T_OK(wait_event(r.b.fd, &ev));
	}
	T_CHECK(!memcmp(x.p, r.o[1].p, 8), "selector 2 and the chain differ");
	munmap(x.p, PAGE16K);
	munmap(y.p, PAGE16K);
	rig_close(&r);
}

/* The first four values of a libane surface against @want. */
static int check_lsurf(struct ane_surface *s, const int want[4])
{
	struct surf v = { .p = ane_surface_map(s) };

	return check_out(&v, want);
}

/*
 * libane's direct path: an attached program submitted through selector 2
 * (ane_attached_submit()) and waited for with ane_request_wait(), chained
 * runs beside it on the same handle with each wait keeping the other's
 * completion, ten chained steps bit-identical to ten selector-2 steps,
 * and the errors.
 */
static void libane_submits_an_attached_program(void)
{
	struct ane_surface *h0 = NULL, *o[2] = { NULL, NULL }, *x = NULL, *y = NULL;
	struct ane_dev *ctl = NULL, *dp = NULL;
	struct ane_program *prog = NULL;
	uint64_t atok = 0, handle = 0, seq = 0, ts = 0, dl;
	unsigned char chained;
	char err[512];
	int efd = -1, i, k, st = 1, ret;

	T_OK(ane_open(node, ANE_KIND_CONTROL, &ctl, err, sizeof(err)));
	T_OK(ane_open(node, ANE_KIND_DIRECT, &dp, err, sizeof(err)));
	if (t_case_failed)
		goto out;
	build_rnn_image(img);
	T_OK(ane_program_create(ctl, img, IMG_SIZE, &prog));
	T_OK(ane_program_prepare(prog));
	/* the cases before may still hold the pool for a moment (rig_setup) */
	for (i = 0; (ret = ane_chain_prepare(ctl, prog, 0, 0, &handle)) == -ENOSPC &&
	     i < 200; i++) {
		struct timespec pause = { 0, 10 * 1000 * 1000 };

		nanosleep(&pause, NULL);
	}
	T_OK(ret);
	T_OK(ane_program_export(ctl, prog, &efd));
	T_OK(ane_program_attach(dp, efd, &atok));
	close(efd);
	T_OK(ane_surface_create(dp, 8, &h0));
	T_OK(ane_surface_create(dp, 8, &o[0]));
	T_OK(ane_surface_create(dp, 8, &o[1]));
	T_OK(ane_surface_create(dp, 8, &x));
	T_OK(ane_surface_create(dp, 8, &y));
	if (t_case_failed)
		goto out;
	for (i = 0; i < 4; i++)
		((uint16_t *)ane_surface_map(h0))[i] = h16(i == 0 || i == 3);
	dl = ane_deadline_ns(10000000000ull);

	/* selector 2 of the attached program: h0 x W */
	T_OK(ane_attached_submit(dp, atok, 0, &h0, 1, &y, 1, dl, &seq));
	T_OK(ane_request_wait(dp, seq, dl, &st, NULL));
	T_EQ(st, 0);
	T_CHECK(!check_lsurf(y, (const int[4]){ 1, 1, 0, 1 }), "one step");

	/* a request, then a run: the chain's wait keeps the request's event */
	T_OK(ane_attached_submit(dp, atok, 0, &h0, 1, &x, 1, dl, &seq));
	T_OK(ane_chain_enqueue(dp, handle, &o[0], 1));
	chained = 0;
	T_OK(ane_chain_trigger(dp, handle, ++ts, &h0, &chained, 1));
	T_OK(ane_chain_wait(dp, handle, ts, dl, &st, NULL));
	T_OK(ane_request_wait(dp, seq, dl, &st, NULL));
	/* a run, then a request: the request's wait keeps the run's event */
	T_OK(ane_chain_enqueue(dp, handle, &o[1], 1));
	chained = 1;
	T_OK(ane_chain_trigger(dp, handle, ++ts, &o[0], &chained, 1));
	T_OK(ane_attached_submit(dp, atok, 0, &h0, 1, &x, 1, dl, &seq));
	T_OK(ane_request_wait(dp, seq, dl, &st, NULL));
	T_OK(ane_chain_wait(dp, handle, ts, dl, &st, NULL));
	T_CHECK(!check_lsurf(o[1], (const int[4]){ 1, 2, 0, 1 }), "two chained steps");

	/* ten chained steps and ten selector-2 steps give the same bits */
	for (k = 0; k < 10 && !t_case_failed; k++) {
		struct ane_surface *in = k ? o[(k - 1) % 2] : h0;

		chained = k > 0;
		T_OK(ane_chain_enqueue(dp, handle, &o[k % 2], 1));
		T_OK(ane_chain_trigger(dp, handle, ++ts, &in, &chained, 1));
		T_OK(ane_chain_wait(dp, handle, ts, dl, &st, NULL));
	}
	memcpy(ane_surface_map(x), ane_surface_map(h0), 8);
	for (k = 0; k < 10 && !t_case_failed; k++) {
		T_OK(ane_attached_submit(dp, atok, 0, k % 2 ? &y : &x, 1,
					 k % 2 ? &x : &y, 1, dl, &seq));
		T_OK(ane_request_wait(dp, seq, dl, &st, NULL));
	}
	T_CHECK(!check_lsurf(o[1], (const int[4]){ 1, 10, 0, 1 }), "step 10");
	T_CHECK(!memcmp(ane_surface_map(x), ane_surface_map(o[1]), 8),
		"selector 2 and the chain differ");

	/* the errors */
	T_EQ(ane_attached_submit(ctl, ane_program_token(prog), 0, &h0, 1, &y, 1, dl,
				 &seq), -EBADRQC);
	T_EQ(ane_attached_submit(dp, atok ^ 1, 0, &h0, 1, &y, 1, dl, &seq), -ENOENT);
	T_CHECK(strstr(ane_errmsg(dp), "direct-path selector 2") != NULL, "%s",
		ane_errmsg(dp));
	T_EQ(ane_attached_submit(dp, atok, 0, &h0, 1, NULL, 0, dl, &seq), -EINVAL);
	T_EQ(ane_chain_invalidate(ctl, handle), 0);
	T_OK(ane_program_unprepare(prog));
	T_EQ(ane_attached_submit(dp, atok, 0, &h0, 1, &y, 1, dl, &seq), -EBADFD);
	T_OK(ane_program_detach(dp, atok));
out:
	ane_surface_destroy(h0);
	ane_surface_destroy(o[0]);
	ane_surface_destroy(o[1]);
	ane_surface_destroy(x);
	ane_surface_destroy(y);
	ane_program_destroy(prog);
	ane_close(dp);
	ane_close(ctl);
}

static void chain_errors_are_precise(void)
{
	struct drm_ane_chaining_prepare cp = { 0 };
	struct drm_ane_surface_ref refs[17] = { 0 };
	struct drm_ane_output_set_enqueue oe;
	struct drm_ane_chaining_set_active sa;
	struct drm_ane_session_hint sh;
	uint64_t ts = 0, unprep = 0, g;
	struct rig r;

	if (rig_setup(&r)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	/* selector 9 */
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, &cp), EBADRQC);
	T_ERRNO(chain_prepare(r.a.fd, r.tok ^ 1, 0, 0, NULL), ENOENT);
	T_ERRNO(chain_prepare(r.a.fd, r.tok, 1, 0, NULL), EINVAL);
	T_ERRNO(chain_prepare(r.a.fd, r.tok, 0, 0x100, NULL), EINVAL);
	T_ERRNO(chain_prepare(r.a.fd, r.tok, 0, 1u << ANE_CHAIN_GROUP_SHIFT, NULL), EINVAL);
	T_ERRNO(chain_prepare(r.a.fd, r.tok, 0, ANE_CHAIN_INVALIDATE | 2, NULL), EINVAL);
	T_OK(create(r.a.fd, img, IMG_SIZE, &unprep));
	T_ERRNO(chain_prepare(r.a.fd, unprep, 0, 0, NULL), EBADFD);
	T_ERRNO(chain_invalidate(r.a.fd, r.handle ^ 0x10000), ENOENT);
	/* selector 3 */
	T_ERRNO(enqueue(r.b.fd, r.handle ^ 0x10000, r.o[0].handle), ENOENT);
	T_ERRNO(enqueue(r.a.fd, r.handle, r.o[0].handle), EBADRQC);
	oe = (struct drm_ane_output_set_enqueue){ .cache_handle = r.handle,
		.output_set = 1, .num_surfaces = 1, .surfaces = (uintptr_t)refs };
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe), ERANGE);
	oe.output_set = 0;
	oe.num_surfaces = 17;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe), E2BIG);
	oe.num_surfaces = 2;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe), EINVAL);
	oe.num_surfaces = 1;
	refs[0] = (struct drm_ane_surface_ref){ .handle = r.o[0].handle,
						.kind = ANE_SURFACE_INPUT };
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe), EINVAL);
	refs[0] = (struct drm_ane_surface_ref){ .handle = 999, .kind = ANE_SURFACE_OUTPUT };
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe), ENOENT);
	/* a good entry, then a bad one: nothing is kept of the first */
	refs[0] = (struct drm_ane_surface_ref){ .handle = r.o[0].handle,
						.kind = ANE_SURFACE_OUTPUT };
	refs[1] = (struct drm_ane_surface_ref){ .handle = r.o[1].handle,
						.kind = ANE_SURFACE_OUTPUT };
	oe.num_surfaces = 2;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe), EINVAL);
	oe.num_surfaces = 1;
	memset(refs, 0, sizeof(refs));
	oe.flags = 1;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe), EINVAL);
	oe = (struct drm_ane_output_set_enqueue){ .cache_handle = r.handle,
		.num_surfaces = 1, .surfaces = 8 };
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, &oe), EFAULT);
	/* selector 4: no output set enqueued yet */
	T_ERRNO(trigger(r.b.fd, r.handle, 1, r.h0.handle, ANE_SURFACE_INPUT), ENOBUFS);
	T_OK(enqueue(r.b.fd, r.handle, r.o[0].handle));
	T_ERRNO(trigger(r.b.fd, r.handle, 0, r.h0.handle, ANE_SURFACE_INPUT), EINVAL);
	T_ERRNO(trigger(r.b.fd, r.handle, 1, r.o[1].handle, ANE_SURFACE_CHAINED), EINVAL);
	T_ERRNO(trigger(r.b.fd, r.handle, 1, 999, ANE_SURFACE_INPUT), ENOENT);
	T_ERRNO(trigger(r.b.fd, r.handle ^ 0x10000, 1, r.h0.handle, ANE_SURFACE_INPUT), ENOENT);
	memset(&ir, 0, sizeof(ir));
	ir.cache_handle = r.handle;
	ir.exec_timestamp = 1;
	ir.num_inputs = 17;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_INPUTS_READY, &ir), E2BIG);
	ir.num_inputs = 2;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_INPUTS_READY, &ir), EINVAL);
	ir.num_inputs = 1;
	ir.inputs[0] = (struct drm_ane_surface_ref){ .handle = r.h0.handle,
						     .kind = ANE_SURFACE_INPUT };
	ir.reserved[100] = 1;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_INPUTS_READY, &ir), EINVAL);
	ir.reserved[100] = 0;
	ir.inputs[1].handle = 1;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_INPUTS_READY, &ir), EINVAL);
	T_OK(run_chain(&r, 2, &ts));
	/* timestamps only grow */
	T_OK(enqueue(r.b.fd, r.handle, r.o[0].handle));
	T_ERRNO(trigger(r.b.fd, r.handle, ts, r.o[1].handle, ANE_SURFACE_CHAINED), EINVAL);
	/* a chained input must not be the output the run writes */
	T_OK(enqueue(r.b.fd, r.handle, r.o[1].handle));
	T_ERRNO(trigger(r.b.fd, r.handle, ts + 1, r.o[1].handle, ANE_SURFACE_CHAINED),
		EINVAL);
	/* selector 8: the chain is in no group */
	sa = (struct drm_ane_chaining_set_active){ .cache_handle = r.handle };
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, &sa), EINVAL);
	sa.group = 4;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, &sa), ERANGE);
	/* two chains of group 2: only the active one runs */
	T_OK(chain_prepare(r.a.fd, r.tok, 0, ANE_CHAIN_GROUP(2), &g));
	sa = (struct drm_ane_chaining_set_active){ .cache_handle = g, .group = 2 };
	T_OK(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, &sa));
	sa.procedure = 1;
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, &sa), EINVAL);
	{
		uint64_t g2, ts2 = 0;
		struct drm_ane_event_complete ev;

		T_OK(chain_prepare(r.a.fd, r.tok, 0, ANE_CHAIN_GROUP(2), &g2));
		T_OK(enqueue(r.b.fd, g2, r.o[0].handle));
		T_ERRNO(trigger(r.b.fd, g2, ++ts2, r.h0.handle, ANE_SURFACE_INPUT), EBUSY);
		sa = (struct drm_ane_chaining_set_active){ .cache_handle = g2, .group = 2 };
		T_OK(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, &sa));
		T_OK(trigger(r.b.fd, g2, ts2, r.h0.handle, ANE_SURFACE_INPUT));
		T_OK(wait_chain_event(r.b.fd, &ev));
		T_OK(chain_invalidate(r.a.fd, g2));
		T_ERRNO(enqueue(r.b.fd, g2, r.o[0].handle), ENOENT);
	}
	T_OK(chain_invalidate(r.a.fd, g));
	/* selector 7 */
	sh = (struct drm_ane_session_hint){ .hint = ANE_HINT_RATE, .value = 250 };
	T_OK(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_SESSION_HINT, &sh));
	T_EQ(sh.applied, 250);
	T_EQ(sh.previous, 0);
	sh = (struct drm_ane_session_hint){ .hint = ANE_HINT_RATE, .value = ~0ull };
	T_OK(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_SESSION_HINT, &sh));
	T_EQ(sh.applied, ANE_HINT_RATE_MAX);
	T_EQ(sh.previous, 250);
	sh = (struct drm_ane_session_hint){ .hint = ANE_HINT_BURST_US, .value = 5000 };
	T_OK(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_SESSION_HINT, &sh));
	T_EQ(sh.applied, 5000);
	sh = (struct drm_ane_session_hint){ .hint = 3 };
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_SESSION_HINT, &sh), EINVAL);
	sh = (struct drm_ane_session_hint){ .hint = ANE_HINT_RATE, .flags = 1 };
	T_ERRNO(ioctl(r.b.fd, DRM_IOCTL_ANE_DP_SESSION_HINT, &sh), EINVAL);
	/* the owner cannot withdraw the program under a claimed, idle chain? it can */
	T_OK(chain_invalidate(r.a.fd, r.handle));
	T_ERRNO(chain_invalidate(r.a.fd, r.handle), ENOENT);
	T_ERRNO(enqueue(r.b.fd, r.handle, r.o[0].handle), ENOENT);
	rig_close(&r);
}

/* 16 cache requests on the device: the 17th is refused, one freed fits. */
static void the_cache_request_pool_holds_at_n(void)
{
	uint64_t h[17];
	struct rig r;
	int i, ok = 0, tries;

	if (rig_setup(&r)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	h[0] = r.handle;
	/* the cases before may still be letting theirs go (rig_setup()) */
	for (tries = 0; tries < 200; tries++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		for (i = 1, ok = 0; i < 16; i++)
			ok += chain_prepare(r.a.fd, r.tok, 0, 0, &h[i]) == 0;
		if (ok == 15)
			break;
		for (i = 1; i <= ok; i++)
			chain_invalidate(r.a.fd, h[i]);
		nanosleep(&ts, NULL);
	}
	T_EQ(ok, 15);
	T_ERRNO(chain_prepare(r.a.fd, r.tok, 0, 0, &h[16]), ENOSPC);
	T_OK(chain_invalidate(r.a.fd, h[5]));
	T_OK(chain_prepare(r.a.fd, r.tok, 0, 0, &h[5]));
	T_ERRNO(chain_prepare(r.a.fd, r.tok, 0, 0, &h[16]), ENOSPC);
	/* unprepare tears them all down */
	{
		struct drm_ane_program_unprepare pu = { .in.token = r.tok };
		struct drm_ane_program_prepare pp;

		T_OK(ioctl(r.a.fd, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, &pu));
		T_OK(prepare(r.a.fd, r.tok, &pp));
	}
	for (i = 0; i < 16; i++)
		ok += chain_prepare(r.a.fd, r.tok, 0, 0, &h[i]) == 0;
	T_EQ(ok, 31);
	rig_close(&r);
}

/* The other thread of the race below: destroy the program when told. */
struct destroy_race {
	int fd;
	uint64_t tok;
	volatile int go;
	unsigned int delay_us;
	int ret, err;
};

static void *destroy_racer(void *arg)
{
	struct destroy_race *d = arg;

	while (!__atomic_load_n(&d->go, __ATOMIC_ACQUIRE))
		;
	/* into the install's firmware round trip, waiting for the lock */
	if (d->delay_us)
		usleep(d->delay_us);
	d->ret = destroy(d->fd, d->tok);
	d->err = errno;
	return NULL;
}

/*
 * ChainingPrepare and ProgramDestroy of the same program from two threads
 * of one file: each ends with its own answer (the chain installed, or
 * ENOENT / EBADFD for a program already gone) and nothing of the chain is
 * touched after the destroy freed it (the debug kernel's KASAN sees that
 * use-after-free: ane-fuzz seed 404 found it).
 */
static void a_chain_prepare_races_a_program_destroy(void)
{
	struct drm_ane_program_prepare pp;
	struct destroy_race d;
	struct client c;
	pthread_t th;
	int i, installed = 0, refused = 0;

	if (ctl_open(&c)) {
		T_CHECK(0, "open: %s", strerror(errno));
		return;
	}
	build_rnn_image(img);
	for (i = 0; i < 300; i++) {
		uint64_t handle = 0;
		int ret, err;

		memset(&d, 0, sizeof(d));
		d.fd = c.fd;
		d.delay_us = (i * 37) % 1500;
		if (create(c.fd, img, IMG_SIZE, &d.tok) || prepare(c.fd, d.tok, &pp)) {
			T_CHECK(0, "program %d: %s", i, strerror(errno));
			break;
		}
		if (pthread_create(&th, NULL, destroy_racer, &d)) {
			T_CHECK(0, "pthread_create");
			break;
		}
		__atomic_store_n(&d.go, 1, __ATOMIC_RELEASE);
		ret = chain_prepare(c.fd, d.tok, 0, 0, &handle);
		err = errno;
		pthread_join(th, NULL);
		T_CHECK(d.ret == 0, "destroy %d: %s", i, strerror(d.err));
		if (!ret) {
			T_CHECK(handle != 0, "chain %d: no handle", i);
			installed++;
		} else {
			T_CHECK(err == ENOENT || err == EBADFD || err == ENOSPC,
				"chain %d: %s", i, strerror(err));
			refused++;
		}
	}
	printf("#   %d chains installed, %d refused, each program destroyed\n",
	       installed, refused);
	close(c.fd);
}

/*
 * PROGRAM_ATTACH against another thread of the file that detaches every
 * attached program as soon as it is listed: each attach ends with its own
 * answer, filled in before the program could be detached and freed (the
 * debug kernel's KASAN sees a read after that).  Under TCG the window
 * rarely opens: one debug-kernel run of the old code did not hit it.
 */
static void an_attach_races_a_detach_of_its_token(void)
{
	struct drm_ane_model_info mi[64];
	unsigned int made = 0, full = 0;
	struct token_racer r;
	struct client a, b;
	uint64_t tok, at;
	pthread_t th;
	int efd, i, left;

	if (owner_setup(&a, &tok) || dp_open(&b)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	efd = export_prog(a.fd, tok);
	T_CHECK(efd >= 0, "export: %s", strerror(errno));
	memset(&r, 0, sizeof(r));
	r.fd = b.fd;
	if (token_racer_start(&r, &th)) {
		T_CHECK(0, "pthread_create");
		return;
	}
	for (i = 0; i < 600 && full < 100000; i++) {
		at = 0;
		if (!attach_prog(b.fd, efd, &at)) {
			T_CHECK(at != 0 && at != tok, "attach %d: token %#llx", i,
				(unsigned long long)at);
			made++;
		} else if (errno == ENOSPC) {
			/* the other thread fell behind: attach again */
			full++;
			i--;
			usleep(200);
		} else {
			T_CHECK(0, "attach %d: %s", i, strerror(errno));
		}
	}
	left = token_racer_stop(&r, th, made, mi);
	T_EQ(made, 600);
	for (i = 0; i < left; i++)
		T_OK(detach_prog(b.fd, mi[i].token));
	printf("#   %u attached (%u detached by the other thread), %u ENOSPC\n",
	       made, r.destroyed, full);
	close(efd);
	close(b.fd);
	close(a.fd);
}

/* A second attacher cannot take a chain the first one uses. */
static void a_chain_has_one_user(void)
{
	uint64_t atok2;
	struct client c;
	struct surf o;
	struct rig r;
	int efd;

	if (rig_setup(&r) || dp_open(&c)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	efd = export_prog(r.a.fd, r.tok);
	T_OK(attach_prog(c.fd, efd, &atok2));
	close(efd);
	T_OK(surface(c.fd, 8, &o));
	T_OK(enqueue(r.b.fd, r.handle, r.o[0].handle));
	T_ERRNO(enqueue(c.fd, r.handle, o.handle), EBUSY);
	T_ERRNO(trigger(c.fd, r.handle, 1, o.handle, ANE_SURFACE_INPUT), EBUSY);
	/* the user attached twice is still the chain's user */
	{
		struct drm_ane_event_complete ev;
		uint64_t t2 = 0;
		int efd2 = export_prog(r.a.fd, r.tok);

		T_OK(attach_prog(r.b.fd, efd2, &t2));
		close(efd2);
		T_OK(trigger(r.b.fd, r.handle, 1, r.h0.handle, ANE_SURFACE_INPUT));
		T_OK(wait_chain_event(r.b.fd, &ev));
		T_EQ(ev.status, 0);
		T_OK(detach_prog(r.b.fd, r.atok));
		T_OK(enqueue(r.b.fd, r.handle, r.o[1].handle));
	}
	/* the first user exits: the chain is free for the second */
	munmap(r.h0.p, PAGE16K);
	munmap(r.o[0].p, PAGE16K);
	munmap(r.o[1].p, PAGE16K);
	close(r.b.fd);
	usleep(100000);
	T_OK(enqueue(c.fd, r.handle, o.handle));
	munmap(o.p, PAGE16K);
	close(c.fd);
	close(r.a.fd);
}

/*
 * The owner tears a chain down while its run is in flight: the run
 * completes, its event arrives, nothing is left behind; the attacher
 * exits with an enqueued set and a chain, the owner after it.
 */
static void invalidate_during_a_run_and_exit_with_chains(void)
{
	struct drm_ane_event_complete ev;
	int base = 0, i;
	struct rig r;

	T_OK(wait_slots(base));
	for (i = 0; i < 20; i++) {
		if (rig_setup(&r)) {
			T_CHECK(0, "setup: %s", strerror(errno));
			return;
		}
		T_OK(enqueue(r.b.fd, r.handle, r.o[0].handle));
		T_OK(trigger(r.b.fd, r.handle, 1, r.h0.handle, ANE_SURFACE_INPUT));
		T_OK(chain_invalidate(r.a.fd, r.handle));
		T_OK(wait_chain_event(r.b.fd, &ev));
		T_ERRNO(trigger(r.b.fd, r.handle, 2, r.h0.handle, ANE_SURFACE_INPUT), ENOENT);
		/* a second chain, left enqueued for the exits */
		T_OK(chain_prepare(r.a.fd, r.tok, 0, 0, &r.handle));
		T_OK(enqueue(r.b.fd, r.handle, r.o[1].handle));
		if (i & 1) {
			T_OK(trigger(r.b.fd, r.handle, 1, r.h0.handle, ANE_SURFACE_INPUT));
		}
		rig_close(&r);
	}
	T_OK(wait_slots(base));
	/* every cache request is free again: 16 fit */
	if (rig_setup(&r)) {
		T_CHECK(0, "setup");
		return;
	}
	for (i = 1; i < 16; i++)
		T_OK(chain_prepare(r.a.fd, r.tok, 0, 0, NULL));
	rig_close(&r);
}

static int fw_inject(const char *what)
{
	char path[512];

	if (vm_debugfs_path(node, "fw_inject", path, sizeof(path)))
		return -1;
	return vm_write_file(path, what);
}

static int wait_ready(int fd)
{
	struct drm_ane_get_status st;
	int i;

	for (i = 0; i < 200; i++) {
		if (ioctl(fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &st) == 0 &&
		    st.out.fw_state == ANE_FW_STATE_READY)
			return 0;
		usleep(50000);
	}
	return -1;
}

/*
 * A run held in flight (every hardware queue hung, a 1 s deadline): its
 * chain refuses a second enqueue and trigger, its program refuses
 * unprepare and destroy; the owner tears the chain down under it; the
 * deadline ends the run, whose event still arrives, and every cache
 * request is free again.
 */
static void a_run_in_flight_holds_its_chain(void)
{
	struct drm_ane_program_unprepare pu;
	struct drm_ane_event_complete ev;
	struct pollfd pfd;
	char buf[32];
	struct rig r;
	unsigned int q;
	int i;

	if (rig_setup(&r)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	T_OK(fw_inject("deadline 1000"));
	for (q = 0; q < 8; q++) {
		snprintf(buf, sizeof(buf), "hang %u", q);
		T_OK(fw_inject(buf));
	}
	T_OK(enqueue(r.b.fd, r.handle, r.o[0].handle));
	T_OK(trigger(r.b.fd, r.handle, 1, r.h0.handle, ANE_SURFACE_INPUT));
	pfd = (struct pollfd){ .fd = r.b.fd, .events = POLLIN };
	T_EQ(poll(&pfd, 1, 100), 0);		/* in flight */
	T_ERRNO(enqueue(r.b.fd, r.handle, r.o[1].handle), EBUSY);
	T_ERRNO(trigger(r.b.fd, r.handle, 2, r.h0.handle, ANE_SURFACE_INPUT), EBUSY);
	pu = (struct drm_ane_program_unprepare){ .in.token = r.tok };
	T_ERRNO(ioctl(r.a.fd, DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, &pu), EBUSY);
	T_ERRNO(destroy(r.a.fd, r.tok), EBUSY);
	/* torn down while it runs: gone for every call, the run goes on */
	T_OK(chain_invalidate(r.a.fd, r.handle));
	T_ERRNO(enqueue(r.b.fd, r.handle, r.o[1].handle), ENOENT);
	T_ERRNO(chain_invalidate(r.a.fd, r.handle), ENOENT);
	memset(&ev, 0, sizeof(ev));
	T_OK(wait_chain_event(r.b.fd, &ev));
	T_EQ(ev.status, -ETIMEDOUT);
	T_OK(fw_inject("unhang"));
	T_OK(fw_inject("deadline 2000"));
	/* the request is back in the pool: 16 install */
	for (i = 0; i < 16; i++)
		T_OK(chain_prepare(r.a.fd, r.tok, 0, 0, NULL));
	T_ERRNO(chain_prepare(r.a.fd, r.tok, 0, 0, NULL), ENOSPC);
	rig_close(&r);
}

/*
 * A firmware crash with a chain installed: the chain is stale (-ESTALE,
 * it is not re-installed behind the client's back), the program runs,
 * a chain prepared again chains again.
 */
static void recovery_with_a_chain_installed(void)
{
	uint64_t ts = 0;
	struct rig r;

	if (rig_setup(&r)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	T_OK(run_chain(&r, 3, &ts));
	T_OK(enqueue(r.b.fd, r.handle, r.o[1].handle));
	T_OK(fw_inject("crash"));
	T_OK(wait_ready(r.a.fd));
	T_ERRNO(enqueue(r.b.fd, r.handle, r.o[0].handle), ESTALE);
	T_ERRNO(trigger(r.b.fd, r.handle, ++ts, r.o[0].handle, ANE_SURFACE_CHAINED), ESTALE);
	T_OK(run_attached_rnn(&r));
	T_OK(chain_invalidate(r.a.fd, r.handle));
	T_OK(chain_prepare(r.a.fd, r.tok, 0, 0, &r.handle));
	ts = 0;
	T_OK(run_chain(&r, 5, &ts));
	T_CHECK(!check_step(&r.o[0], 5), "step 5 after recovery");
	rig_close(&r);
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
	T_RUN(a_chain_computes_and_chains_without_a_copy);
	T_RUN(libane_submits_an_attached_program);
	T_RUN(chain_errors_are_precise);
	T_RUN(the_cache_request_pool_holds_at_n);
	T_RUN(a_chain_has_one_user);
	T_RUN(a_chain_prepare_races_a_program_destroy);
	T_RUN(an_attach_races_a_detach_of_its_token);
	T_RUN(invalidate_during_a_run_and_exit_with_chains);
	T_RUN(a_run_in_flight_holds_its_chain);
	T_RUN(recovery_with_a_chain_installed);
	return t_summary("resident");
}
