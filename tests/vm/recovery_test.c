// SPDX-License-Identifier: MIT
/*
 * Firmware recovery from userspace (root, debugfs fw_inject): from every
 * state the firmware can be left in -- a hung queue, a stuck abort, a
 * failed boot, a crash during recovery, a crash storm beyond the rate
 * limit, a reset while a queue hangs -- the device comes back without a
 * module reload.  Each case checks that the request in flight ended with
 * -EIO, that GetStatus says READY again, and that the program prepared
 * before the crash computes the right result afterwards, the driver
 * having loaded it into the new firmware again.
 *
 * Each case starts with "reboot", which also forgets the recoveries that
 * count against the rate limit.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"
/* after vm_util.h, whose helpers take a node argument */
#include "vm/prog_util.h"

static uint8_t img[IMG_SIZE];
static char text[65536];

static int dbg_path(const char *name, char *path, size_t len)
{
	return vm_debugfs_path(node, name, path, len);
}

static int inject(const char *what)
{
	char path[512];

	if (dbg_path("fw_inject", path, sizeof(path)))
		return -ENOENT;
	return vm_write_file(path, what);
}

static int inject_n(const char *what, unsigned int n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s %u", what, n);
	return inject(buf);
}

static ssize_t read_dbg(const char *name)
{
	char path[512];
	ssize_t n, got = 0;
	int fd;

	if (dbg_path(name, path, sizeof(path)))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, text + got, sizeof(text) - 1 - got)) > 0)
		got += n;
	close(fd);
	text[got] = 0;
	return n < 0 ? -errno : got;
}

/* A number after @key in debugfs file @name; -1 without it. */
static long dbg_value(const char *name, const char *key)
{
	char *p;

	if (read_dbg(name) <= 0)
		return -1;
	p = strstr(text, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* GetStatus's firmware state through a control client of its own. */
static unsigned int fw_state(void)
{
	struct drm_ane_get_status st;
	struct client c;
	unsigned int s = ~0u;

	if (ctl_open(&c))
		return s;
	memset(&st, 0, sizeof(st));
	if (!ioctl(c.fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &st))
		s = st.out.fw_state;
	close(c.fd);
	return s;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* READY within @secs; how long it took (ms), or -1. */
static long wait_ready(int secs)
{
	uint64_t t0 = now_ms();

	while (now_ms() - t0 < (uint64_t)secs * 1000) {
		if (fw_state() == ANE_FW_STATE_READY)
			return (long)(now_ms() - t0);
		usleep(20000);
	}
	printf("#   firmware state %u after %d s\n", fw_state(), secs);
	return -1;
}

/* The test program, prepared, and its surfaces. */
struct prog {
	struct client c;
	struct surf in, out;
	uint64_t tok;
};

static int prog_open(struct prog *p)
{
	struct drm_ane_program_prepare pp;

	build_image(img, W);
	p->tok = 0;
	if (ctl_open(&p->c) || surface(p->c.fd, 12, &p->in) ||
	    surface(p->c.fd, 8, &p->out) ||
	    create(p->c.fd, img, IMG_SIZE, &p->tok) || prepare(p->c.fd, p->tok, &pp)) {
		printf("#   program setup: %s\n", strerror(errno));
		t_case_failed = 1;
		return -1;
	}
	fill_input(&p->in);
	return 0;
}

static void prog_close(struct prog *p)
{
	T_OK(destroy(p->c.fd, p->tok));
	close(p->c.fd);
}

/* One request that must compute the right result. */
static void prog_runs(struct prog *p, const char *when)
{
	struct drm_ane_event_complete ev;

	memset(p->out.p, 0, 8);
	T_CHECK(!submit(p->c.fd, p->tok, p->in.handle, p->out.handle, 0, NULL),
		"%s: submit: %s", when, strerror(errno));
	T_CHECK(!wait_event(p->c.fd, &ev), "%s: no completion", when);
	T_CHECK(ev.status == 0, "%s: status %d", when, ev.status);
	T_CHECK(!check_out(&p->out, OUT), "%s: result", when);
}

/* The completion of the request in flight: -EIO from the recovery. */
static void inflight_ends_with_eio(struct prog *p)
{
	struct drm_ane_event_complete ev;

	T_CHECK(!wait_event(p->c.fd, &ev), "no completion for the request in flight");
	T_CHECK(ev.status == -EIO, "request in flight: status %d, want -EIO", ev.status);
}

/* A clean device: rebooted, rate-limit history forgotten, READY. */
static int fresh(void)
{
	if (inject("reboot") || wait_ready(10) < 0) {
		t_case_failed = 1;
		return -1;
	}
	return 0;
}

/* Every hardware queue hangs (and its abort fails when @stuck). */
static void hang_all(int stuck)
{
	unsigned int q;

	for (q = 0; q < 8; q++) {
		T_OK(inject_n("hang", q));
		if (stuck)
			T_OK(inject_n("abort-stuck", q));
	}
}

/* A request that will not complete by itself, sent and known pending. */
static void send_stuck(struct prog *p)
{
	struct pollfd pfd = { .fd = p->c.fd, .events = POLLIN };

	T_OK(submit(p->c.fd, p->tok, p->in.handle, p->out.handle, 0, NULL));
	T_EQ(poll(&pfd, 1, 200), 0);		/* still in flight */
}

/* The program prepared before a crash runs after it, unchanged. */
static void programs_survive_a_crash(void)
{
	long again = dbg_value("fw_programs", "loaded again: ");
	struct prog p;

	if (fresh() || prog_open(&p))
		return;
	prog_runs(&p, "before the crash");
	T_OK(inject("crash"));
	T_CHECK(wait_ready(10) >= 0, "not ready after the crash");
	prog_runs(&p, "after the crash");
	T_CHECK(dbg_value("fw_programs", "loaded again: ") > again,
		"fw_programs: %s", text);
	prog_close(&p);
}

/* A crash with the request's queue hung: the engine's reset ends it. */
static void recovers_from_a_hung_queue(void)
{
	struct prog p;

	if (fresh() || prog_open(&p))
		return;
	T_OK(inject("deadline 60000"));
	hang_all(0);
	send_stuck(&p);
	T_OK(inject("crash"));
	inflight_ends_with_eio(&p);
	T_CHECK(wait_ready(10) >= 0, "not ready");
	prog_runs(&p, "after the hang");
	prog_close(&p);
}

/* A reset (reboot) while a queue hangs. */
static void recovers_from_a_reset_while_hung(void)
{
	struct prog p;

	if (fresh() || prog_open(&p))
		return;
	T_OK(inject("deadline 60000"));
	hang_all(0);
	send_stuck(&p);
	T_OK(inject("reboot"));
	inflight_ends_with_eio(&p);
	T_EQ(fw_state(), ANE_FW_STATE_READY);
	prog_runs(&p, "after the reset");
	prog_close(&p);
}

/* The deadline aborts the hung queue, the abort fails, the firmware faults. */
static void recovers_after_a_stuck_abort(void)
{
	long rec = dbg_value("fw_state", "recoveries: ");
	struct prog p;

	if (fresh() || prog_open(&p))
		return;
	T_OK(inject("deadline 300"));
	hang_all(1);
	T_OK(submit(p.c.fd, p.tok, p.in.handle, p.out.handle, 0, NULL));
	inflight_ends_with_eio(&p);
	T_CHECK(wait_ready(10) >= 0, "not ready");
	T_CHECK(dbg_value("fw_state", "recoveries: ") == rec + 1, "%s", text);
	T_CHECK(read_dbg("fw_crash") > 0 && strstr(text, "did not clear"), "%s", text);
	/* not a crash loop: every queue takes requests again */
	prog_runs(&p, "after the stuck abort 1");
	prog_runs(&p, "after the stuck abort 2");
	T_EQ(fw_state(), ANE_FW_STATE_READY);
	prog_close(&p);
}

/* The boot after the crash fails (no channel table): tried again later. */
static void recovers_from_a_failed_boot(void)
{
	struct prog p;

	if (fresh() || prog_open(&p))
		return;
	T_OK(inject("deadline 60000"));
	hang_all(0);
	send_stuck(&p);
	T_OK(inject("stall-boot 3"));
	T_OK(inject("crash"));
	inflight_ends_with_eio(&p);
	T_CHECK(wait_ready(30) >= 0, "not ready");
	T_CHECK(read_dbg("fw_state") > 0 && strstr(text, "boot failed: next boot in"),
		"%s", text);
	prog_runs(&p, "after the failed boot");
	prog_close(&p);
}

/* The firmware crashes again while it is brought back. */
static void recovers_from_a_crash_during_recovery(void)
{
	long rec = dbg_value("fw_state", "recoveries: ");
	struct prog p;

	if (fresh() || prog_open(&p))
		return;
	T_OK(inject("deadline 60000"));
	hang_all(0);
	send_stuck(&p);
	T_OK(inject("crash-boot 1"));
	T_OK(inject("crash"));
	inflight_ends_with_eio(&p);
	T_CHECK(wait_ready(20) >= 0, "not ready");
	T_CHECK(dbg_value("fw_state", "recoveries: ") == rec + 2, "%s", text);
	prog_runs(&p, "after the double crash");
	prog_close(&p);
}

/* More crashes than the rate limit allows: backed off, never given up. */
static void recovers_from_a_crash_storm(void)
{
	struct prog p;
	long ms;
	int i;

	if (fresh() || prog_open(&p))
		return;
	for (i = 0; i < 3; i++) {
		T_OK(inject("crash"));
		T_CHECK(wait_ready(10) >= 0, "not ready after crash %d", i + 1);
	}
	T_OK(inject("deadline 60000"));
	hang_all(0);
	send_stuck(&p);
	T_OK(inject("crash"));			/* the fourth within a minute */
	inflight_ends_with_eio(&p);
	T_EQ(fw_state(), ANE_FW_STATE_RECOVERING);
	ms = wait_ready(20);
	T_CHECK(ms >= 0, "not ready after the storm");
	T_CHECK(dbg_value("fw_state", "next boot backoff: ") == 1000, "%s", text);
	prog_runs(&p, "after the storm");
	prog_close(&p);
}

/* ------------------------------------------------ a split operation */

#define SPLIT_N 384			/* a SPLIT_N^3 matmul: split, ~0.1-1 s */
#define SPLIT_ROUNDS 3			/* crashes: the rate limit's window */

/* One SPLIT_N^3 matmul with a tanh, its input and weights fixed. */
static struct ane_net *split_net(float **in, float **out)
{
	size_t n = (size_t)SPLIT_N * SPLIT_N, i;
	struct ane_net *net;
	float *w;
	int x;

	*in = malloc(n * sizeof(float));
	*out = malloc(n * sizeof(float));
	w = malloc(n * sizeof(float));
	if (!*in || !*out || !w || ane_net_create(&net)) {
		free(w);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		(*in)[i] = (float)((int)(i * 13 % 61) - 30) / 64.0f;
		w[i] = (float)((int)(i * 37 % 101) - 50) / 800.0f;
	}
	x = ane_net_input(net, "x", 1, 1, SPLIT_N, SPLIT_N);
	ane_net_output(net, ane_net_matmul(net, x, ane_net_const(net, "w", 1, 1,
					   SPLIT_N, SPLIT_N, w), 0, ANE_NET_ACT_TANH));
	free(w);
	return net;
}

/*
 * The child: run the net again and again until the parent closes @stop,
 * writing one byte a run to @res: 'o' done, 'e' -EIO (a crash took the
 * run), 'x' anything else.
 */
static void split_runner(struct ane_net *net, const float *in, float *out,
			 int res, int stop)
{
	const float *ins[1] = { in };
	float *outs[1] = { out };
	struct pollfd pfd = { .fd = stop, .events = POLLIN };
	struct ane_dev *dev;
	char err[256];

	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err)))
		_exit(1);
	while (poll(&pfd, 1, 0) == 0) {
		int ret = ane_net_run(dev, net, ins, outs);
		char c = !ret ? 'o' : ret == -EIO ? 'e' : 'x';

		if (c == 'x')
			fprintf(stderr, "#   child: %s\n", ane_errmsg(dev));
		if (write(res, &c, 1) != 1)
			break;
	}
	ane_close(dev);
	_exit(0);
}

/* The next result byte from the child within @ms; 0 on timeout. */
static char split_result(int res, int ms)
{
	struct pollfd pfd = { .fd = res, .events = POLLIN };
	char c = 0;

	if (poll(&pfd, 1, ms) == 1 && read(res, &c, 1) != 1)
		c = 0;
	return c;
}

/*
 * A crash while an operation is split over the engine's cores: a child
 * runs a large matmul (split over two cores: the split counter grows)
 * again and again, and the parent crashes the firmware halfway through
 * a run, SPLIT_ROUNDS times.  The parts stop between chunks, the job
 * waits for every part before the queue ends, and the run in flight
 * ends -EIO; the firmware comes back each time, and afterwards the same
 * operation, split again, gives the same bits as before the crashes.
 * Under the debug kernel KASAN and kmemleak watch the parts' shared
 * workspace, which must not be freed while a part still runs.
 */
static void recovers_from_a_crash_while_an_op_is_split(void)
{
	int res[2] = { -1, -1 }, stop[2] = { -1, -1 }, r, eio = 0, other = 0;
	const float *ins[1];
	float *in = NULL, *out = NULL, *before = NULL, *outs[1];
	unsigned long long s0, s1;
	struct ane_dev *dev = NULL;
	struct ane_net *net;
	uint64_t t0, period;
	char err[256], c;
	pid_t kid = -1;
	int st;

	if (fresh())
		return;
	net = split_net(&in, &out);
	before = malloc((size_t)SPLIT_N * SPLIT_N * sizeof(float));
	if (!net || !before || ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err)) ||
	    vm_write_file("/sys/module/ane/parameters/engine_cores", "2")) {
		printf("#   setup failed\n");
		t_case_failed = 1;
		goto out;
	}
	ins[0] = in;
	outs[0] = before;
	s0 = vm_dev_attr_u64(node, "engine_split_ops");
	T_OK(ane_net_run(dev, net, ins, outs));
	s1 = vm_dev_attr_u64(node, "engine_split_ops");
	T_CHECK(s1 != ~0ull && s1 > s0, "not split: engine_split_ops %llu -> %llu", s0, s1);
	if (t_case_failed || pipe2(res, O_CLOEXEC) || pipe2(stop, O_CLOEXEC))
		goto out;
	fflush(stdout);
	kid = fork();
	if (kid == 0) {
		close(res[0]);
		close(stop[1]);
		split_runner(net, in, out, res[1], stop[0]);
	}
	close(res[1]);
	close(stop[0]);
	res[1] = stop[0] = -1;
	for (r = 0; r < SPLIT_ROUNDS && !t_case_failed; r++) {
		/* time one whole run, then crash halfway through the next */
		T_CHECK(split_result(res[0], 30000) != 0, "round %d: no run", r);
		t0 = now_ms();
		c = split_result(res[0], 30000);
		T_CHECK(c != 0, "round %d: no second run", r);
		eio += c == 'e';
		other += c == 'x';
		period = now_ms() - t0;
		usleep(period * 1000 / 2);
		T_OK(inject("crash"));
		T_CHECK(wait_ready(10) >= 0, "round %d: not ready after the crash", r);
		/* the run the crash took */
		c = split_result(res[0], 30000);
		T_CHECK(c != 0, "round %d: the run in flight never ended", r);
		eio += c == 'e';
		other += c == 'x';
		printf("#   round %d: a run takes %llu ms; the crash's run: %c\n", r,
		       (unsigned long long)period, c);
	}
	close(stop[1]);
	stop[1] = -1;
	while ((c = split_result(res[0], 30000)) != 0) {
		eio += c == 'e';
		other += c == 'x';
	}
	T_OK(waitpid(kid, &st, 0) == kid ? 0 : -1);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
	kid = -1;
	printf("#   runs ended -EIO: %d, otherwise failed: %d\n", eio, other);
	T_CHECK(eio >= 1, "no crash took a run in flight");
	T_EQ(other, 0);

	/* the same operation, split again: the same bits */
	outs[0] = out;
	s0 = vm_dev_attr_u64(node, "engine_split_ops");
	T_OK(ane_net_run(dev, net, ins, outs));
	T_CHECK(vm_dev_attr_u64(node, "engine_split_ops") > s0, "not split after the crashes");
	T_CHECK(!memcmp(out, before, (size_t)SPLIT_N * SPLIT_N * sizeof(float)),
		"the result after the crashes differs");
out:
	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}
	for (r = 0; r < 2; r++) {
		if (res[r] >= 0)
			close(res[r]);
		if (stop[r] >= 0)
			close(stop[r]);
	}
	vm_write_file("/sys/module/ane/parameters/engine_cores", "0");
	ane_close(dev);
	ane_net_destroy(net);
	free(in);
	free(out);
	free(before);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "recovery"))
		return 1;
	if (access("/sys/kernel/debug/accel", R_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	T_RUN(programs_survive_a_crash);
	T_RUN(recovers_from_a_hung_queue);
	T_RUN(recovers_from_a_reset_while_hung);
	T_RUN(recovers_after_a_stuck_abort);
	T_RUN(recovers_from_a_failed_boot);
	T_RUN(recovers_from_a_crash_during_recovery);
	T_RUN(recovers_from_a_crash_storm);
	T_RUN(recovers_from_a_crash_while_an_op_is_split);
	/* leave it clean for whatever runs next */
	T_RUN(programs_survive_a_crash);
	return t_summary("recovery");
}
