// SPDX-License-Identifier: MIT
/*
 * The seed's bounds on outstanding work, driven as a user would, on an
 * engine made slow at will (Documentation/accel/ane/uapi.rst, "Requests
 * outstanding"):
 *
 * - a client's pool: with every hardware queue hung, so that nothing
 *   completes, one client -- then 8, then 64 at once -- each has 127
 *   requests accepted, far more than the firmware's queues and the I/O
 *   ring hold (the rest wait on the driver's backlog, or for a DART slot),
 *   and the 128th is refused with ENOBUFS; once the firmware is reset every
 *   accepted request completes, with -EIO (in the firmware or the backlog
 *   at the reset) or 0 (parked, started on the new firmware);
 * - the eighth client: with seven clients' requests hung on the engine,
 *   an eighth's request is accepted at once and parked for a slot; it runs
 *   with the right result once a slot frees (the others ended by the
 *   firmware's deadline), and one for which no slot frees in 10 s
 *   completes with -EBUSY ("parked failed" in debugfs "dart");
 * - a blocking read() of the events returns each completion with the
 *   driver's read watch (read_spin_us) at 50, 0 and 1000 us;
 * - a request submitted while the firmware recovers from a crash: the raw
 *   SendRequest is refused with EAGAIN and nothing is queued; libane's
 *   ane_request_submit() waits the recovery out (counted in its retry
 *   counts) and the request runs, with the right result.
 *
 * Runs as root (debugfs fw_inject), ane.ko loaded with
 * fw_deadline_ms=600000 so that only the tests end hung requests.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"
#include "vm/prog_util.h"

#define POOL		127	/* a client's requests outstanding (ch. 28) */
#define MAX_CLIENTS	64
#define MS		1000000ull

static uint8_t img[IMG_SIZE];
static char inject_path[512], state_path[512];

static int inject(const char *cmd)
{
	return vm_write_file(inject_path, cmd);
}

static void hang_all(void)
{
	char cmd[16];
	int q;

	for (q = 0; q < 8; q++) {
		snprintf(cmd, sizeof(cmd), "hang %d", q);
		T_OK(inject(cmd));
	}
}

/* debugfs fw_state's "state:" line is @want. */
static int state_is(const char *want)
{
	char buf[4096], line[64];
	int fd = open(state_path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	snprintf(line, sizeof(line), "state: %s\n", want);
	return strncmp(buf, line, strlen(line)) == 0;
}

/* Wait up to @ms for the firmware to be ready. */
static int ready_within(unsigned int ms)
{
	unsigned int i;

	for (i = 0; i < ms / 20 && !state_is("ready"); i++)
		usleep(20000);
	return state_is("ready");
}

static long long fw_state_num(const char *key)
{
	return vm_debugfs_num(node, "fw_state", key, 10);
}

/* ------------------------------------------------------------ workers */

/*
 * A worker is a process with one control client, the test program
 * prepared and its surfaces, driven through a pipe: "s N" submits N
 * requests (answer: how many were accepted, the errno of the first
 * refused), "r N" reads N completion events (answer: how many came, how
 * many ended 0, -EIO, -EBUSY, -ETIMEDOUT or otherwise, and whether the
 * output of the last one that ended 0 is right), "q" exits.
 */
struct answer {
	int n;
	int err;
	int st_ok, st_eio, st_busy, st_timeout, st_other;
	int out_bad;
};

struct worker {
	pid_t pid;
	int cmd;	/* write end */
	int ans;	/* read end */
};

/* One completion event, waiting up to 60 s (a parked request's 10 s and more). */
static int wait_event_long(int fd, struct drm_ane_event_complete *ev)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, 60000) != 1)
		return -1;
	return read(fd, ev, sizeof(*ev)) == sizeof(*ev) &&
	       ev->base.type == DRM_ANE_EVENT_REQUEST_COMPLETE ? 0 : -1;
}

static void worker_main(int cmd, int ans)
{
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	struct answer a = { 0 };
	struct surf in, out;
	struct client c;
	uint64_t tok = 0;
	char op;
	int n, i;

	if (ctl_open(&c) || surface(c.fd, 12, &in) || surface(c.fd, 8, &out) ||
	    create(c.fd, img, IMG_SIZE, &tok) || prepare(c.fd, tok, &pp))
		a.err = errno ? errno : EIO;
	fill_input(&in);
	if (write(ans, &a, sizeof(a)) != sizeof(a))
		_exit(2);
	for (;;) {
		if (read(cmd, &op, 1) != 1 || op == 'q')
			_exit(0);
		if (read(cmd, &n, sizeof(n)) != sizeof(n))
			_exit(2);
		memset(&a, 0, sizeof(a));
		if (op == 's')	/* every request of a batch writes the same */
			memset(out.p, 0, 8);
		for (i = 0; i < n && op == 's'; i++) {
			if (submit(c.fd, tok, in.handle, out.handle, 0, NULL)) {
				a.err = errno;
				break;
			}
			a.n++;
		}
		for (i = 0; i < n && op == 'r'; i++) {
			if (wait_event_long(c.fd, &ev))
				break;
			a.n++;
			switch (ev.status) {
			case 0:
				a.st_ok++;
				break;
			case -EIO:
				a.st_eio++;
				break;
			case -EBUSY:
				a.st_busy++;
				break;
			case -ETIMEDOUT:
				a.st_timeout++;
				break;
			default:
				a.st_other++;
				printf("#   worker %d: status %d\n", (int)getpid(), ev.status);
			}
		}
		if (op == 'r' && a.st_ok)
			a.out_bad = check_out(&out, OUT);
		if (write(ans, &a, sizeof(a)) != sizeof(a))
			_exit(2);
	}
}

static int worker_start(struct worker *w)
{
	int cmd[2], ans[2];
	struct answer a;

	if (pipe(cmd) || pipe(ans))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (!w->pid) {
		close(cmd[1]);
		close(ans[0]);
		worker_main(cmd[0], ans[1]);
	}
	close(cmd[0]);
	close(ans[1]);
	w->cmd = cmd[1];
	w->ans = ans[0];
	if (read(w->ans, &a, sizeof(a)) != sizeof(a) || a.err) {
		printf("#   worker set-up: %s\n", strerror(a.err ? a.err : EIO));
		return -1;
	}
	return 0;
}

/* Send @op with @n; the answer comes with worker_answer(). */
static int worker_send(struct worker *w, char op, int n)
{
	return write(w->cmd, &op, 1) == 1 && write(w->cmd, &n, sizeof(n)) == sizeof(n) ? 0 : -1;
}

static int worker_answer(struct worker *w, struct answer *a)
{
	memset(a, 0, sizeof(*a));
	return read(w->ans, a, sizeof(*a)) == sizeof(*a) ? 0 : -1;
}

static int worker_do(struct worker *w, char op, int n, struct answer *a)
{
	return worker_send(w, op, n) || worker_answer(w, a) ? -1 : 0;
}

static void workers_stop(struct worker *w, int n)
{
	int i, st;

	for (i = 0; i < n; i++) {
		if (write(w[i].cmd, "q", 1) != 1)
			kill(w[i].pid, SIGKILL);
		close(w[i].cmd);
		close(w[i].ans);
	}
	for (i = 0; i < n; i++) {
		T_CHECK(waitpid(w[i].pid, &st, 0) == w[i].pid && WIFEXITED(st) &&
			WEXITSTATUS(st) == 0, "worker %d exited badly", i);
	}
}

/* ------------------------------------------------------------ the pool */

/*
 * @nclients clients at once, nothing completing: each gets its 127
 * accepted and the 128th refused; after a reset all complete.
 */
static void pool_at(int nclients)
{
	static struct worker w[MAX_CLIENTS];
	int i, started = 0, bad_accept = 0, bad_end = 0;
	long long backlog, done0;
	struct answer a;

	/* a boot still to come would reset the engine, and the hangs */
	T_CHECK(ready_within(30000), "the firmware is not ready");
	done0 = vm_fw_status(node, "completed: ");
	hang_all();
	for (i = 0; i < nclients; i++, started++)
		if (worker_start(&w[i]))
			break;
	T_EQ(started, nclients);
	/* all submit at once */
	for (i = 0; i < started; i++)
		T_OK(worker_send(&w[i], 's', POOL));
	for (i = 0; i < started; i++) {
		if (worker_answer(&w[i], &a) || a.n != POOL) {
			if (bad_accept++ < 4)
				printf("#   client %d: %d of %d accepted, then %s\n", i, a.n, POOL,
				       strerror(a.err));
		}
	}
	T_EQ(bad_accept, 0);
	bad_accept = 0;
	for (i = 0; i < started; i++) {
		if (worker_do(&w[i], 's', 1, &a) || a.n != 0 || a.err != ENOBUFS) {
			if (bad_accept++ < 4)
				printf("#   client %d: request 128: %s\n", i,
				       a.n ? "accepted" : strerror(a.err));
		}
	}
	T_EQ(bad_accept, 0);
	backlog = fw_state_num("backlog: ");
	printf("#   %d client(s): %d x %d accepted, the 128th ENOBUFS; on the backlog: %lld (peak %lld); completed meanwhile: %lld\n",
	       nclients, started, POOL, backlog, fw_state_num("backlog peak: "),
	       vm_fw_status(node, "completed: ") - done0);
	/*
	 * One client's 127 pass what the firmware's queues and the I/O ring
	 * hold (81): the rest are on the backlog.  With more clients, how
	 * many wait there and how many in the DART's line depends on the
	 * order the submits came in.
	 */
	if (nclients == 1)
		T_CHECK(backlog > 0, "nothing on the backlog (%lld)", backlog);

	/* a reset: what the firmware had and the backlog end -EIO */
	T_OK(inject("reboot"));
	T_OK(inject("unhang"));
	T_CHECK(ready_within(30000), "not ready after the reboot");
	for (i = 0; i < started; i++)
		T_OK(worker_send(&w[i], 'r', POOL));
	for (i = 0; i < started; i++) {
		if (worker_answer(&w[i], &a) || a.n != POOL || a.st_other || a.st_timeout ||
		    a.out_bad) {
			if (bad_end++ < 4)
				printf("#   client %d: %d of %d completed: ok %d, EIO %d, EBUSY %d, ETIMEDOUT %d, other %d, bad output %d\n",
				       i, a.n, POOL, a.st_ok, a.st_eio, a.st_busy, a.st_timeout,
				       a.st_other, a.out_bad);
		}
	}
	T_EQ(bad_end, 0);
	T_EQ(fw_state_num("backlog: "), 0);
	/* room again, and the program runs */
	for (i = 0; i < started && i < 2; i++) {
		T_CHECK(!worker_do(&w[i], 's', 1, &a) && a.n == 1, "submit after: %s",
			strerror(a.err));
		T_CHECK(!worker_do(&w[i], 'r', 1, &a) && a.st_ok == 1 && !a.out_bad,
			"the request after the reset: ok %d", a.st_ok);
	}
	workers_stop(w, started);
}

static void one_client_has_127_outstanding_on_a_hung_engine(void)
{
	pool_at(1);
}

static void eight_clients_have_127_outstanding_each(void)
{
	pool_at(8);
}

static void sixty_four_clients_have_127_outstanding_each(void)
{
	pool_at(MAX_CLIENTS);
}

/* ------------------------------------------------------------ the eighth */

#define SLOTS	7	/* the DART's contexts for clients */

/*
 * Eight clients, of which the first seven have a request hung on the
 * engine (after @cmd to fw_inject, if any): the DART's slots all busy.
 */
static int seven_hung(struct worker *w, int *started, const char *cmd)
{
	struct answer a;
	int i;

	for (i = 0; i <= SLOTS; i++, (*started)++)
		if (worker_start(&w[i]))
			break;
	T_EQ(*started, SLOTS + 1);
	if (*started != SLOTS + 1)
		return -1;
	if (cmd)
		T_OK(inject(cmd));
	hang_all();
	for (i = 0; i < SLOTS; i++)
		T_CHECK(!worker_do(&w[i], 's', 1, &a) && a.n == 1, "client %d: %s", i,
			strerror(a.err));
	return 0;
}

/*
 * Seven clients' requests hung on the engine, ended by the firmware's
 * deadline (2 s here): the eighth client's request, parked meanwhile,
 * runs once one of their slots frees.
 */
static void the_eighth_client_is_parked_then_runs(void)
{
	struct worker w[SLOTS + 1];
	int i, started = 0, timeouts = 0;
	struct answer a;

	if (seven_hung(w, &started, "deadline 2000"))
		goto out;
	/* accepted at once, parked: no slot is free */
	T_CHECK(!worker_do(&w[SLOTS], 's', 1, &a) && a.n == 1, "the eighth: %s",
		strerror(a.err));
	T_OK(inject("unhang"));
	/*
	 * The one running when the engine hung ends at its deadline, the
	 * ones the firmware queued behind it then run; then the eighth.
	 */
	for (i = 0; i < SLOTS; i++) {
		T_CHECK(!worker_do(&w[i], 'r', 1, &a) && a.st_timeout + a.st_ok == 1 &&
			!a.out_bad, "client %d: ok %d EIO %d ETIMEDOUT %d other %d", i, a.st_ok,
			a.st_eio, a.st_timeout, a.st_other);
		timeouts += a.st_timeout;
	}
	T_CHECK(timeouts >= 1, "no request ended at the deadline");
	T_CHECK(!worker_do(&w[SLOTS], 'r', 1, &a) && a.st_ok == 1 && !a.out_bad,
		"the eighth: ok %d EBUSY %d other %d, bad output %d", a.st_ok, a.st_busy,
		a.st_other, a.out_bad);
out:
	T_OK(inject("deadline 600000"));
	workers_stop(w, started);
}

/*
 * The same with no slot freeing: the eighth's request completes with
 * -EBUSY once it has waited 10 s (ANE_DART_SLOT_WAIT_MS), counted in
 * debugfs "dart" as parked failed.
 */
static void a_parked_request_gives_up_after_ten_seconds(void)
{
	long long failed0 = vm_debugfs_num(node, "dart", "parked failed ", 10);
	struct worker w[SLOTS + 1];
	int i, started = 0;
	struct timespec t0, t1;
	struct answer a;
	double s;

	if (seven_hung(w, &started, NULL))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	T_CHECK(!worker_do(&w[SLOTS], 's', 1, &a) && a.n == 1, "the eighth: %s",
		strerror(a.err));
	T_CHECK(!worker_do(&w[SLOTS], 'r', 1, &a) && a.st_busy == 1,
		"the eighth: ok %d EBUSY %d other %d", a.st_ok, a.st_busy, a.st_other);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("#   the parked request gave up after %.1f s\n", s);
	T_CHECK(s >= 9.5, "gave up after %.1f s, before its 10 s", s);
	T_EQ(vm_debugfs_num(node, "dart", "parked failed ", 10), failed0 + 1);
	T_OK(inject("reboot"));
	T_OK(inject("unhang"));
	for (i = 0; i < SLOTS; i++)
		T_CHECK(!worker_do(&w[i], 'r', 1, &a) && a.st_eio == 1, "client %d: EIO %d",
			i, a.st_eio);
out:
	workers_stop(w, started);
}

/* ------------------------------------------------------------ recovery */

/*
 * A crash, and the first boot after it fails (its three attempts stall):
 * the next comes 1 s later, so the firmware is RECOVERING for seconds.
 * the raw SendRequest meanwhile is EAGAIN; libane's submit waits the
 * recovery out and the request runs.
 */
static void a_request_during_recovery_waits_for_ready(void)
{
	struct ane_surface *in = NULL, *out = NULL;
	struct ane_retry_counts rc = { 0 };
	struct ane_program *prog = NULL;
	struct ane_dev *dev = NULL;
	uint16_t *o;
	uint64_t seqno;
	char err[256];
	int st = 1, saw = 0, i;

	T_CHECK(ready_within(30000), "the firmware is not ready before the test");
	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		T_CHECK(0, "%s", err);
		return;
	}
	ane_set_timeout(dev, 30000 * MS);
	build_image(img, W);
	T_OK(ane_program_create(dev, img, IMG_SIZE, &prog));
	T_OK(ane_program_prepare(prog));
	T_OK(ane_surface_create(dev, 12, &in));
	T_OK(ane_surface_create(dev, 8, &out));
	if (t_case_failed)
		goto out;
	for (i = 0; i < 6; i++)
		((uint16_t *)ane_surface_map(in))[i] = h16(A[i]);

	T_OK(inject("stall-boot 3"));	/* a whole boot's three attempts */
	T_OK(inject("crash"));
	/* RECOVERING (or BOOTING) now: the raw call is refused */
	memset(&sr, 0, sizeof(sr));
	sr.in.token = ane_program_token(prog);
	sr.in.qos_class = 5;
	sr.in.exec_priority = 21;
	sr.in.io_category = 2;
	sr.in.surfaces[0] = (struct drm_ane_surface_ref){ .handle = ane_surface_handle(in),
							  .kind = ANE_SURFACE_INPUT };
	sr.in.surfaces[1] = (struct drm_ane_surface_ref){ .handle = ane_surface_handle(out),
							  .kind = ANE_SURFACE_OUTPUT };
	if (!state_is("ready")) {
		saw = ioctl(ane_fd(dev), DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr) < 0 &&
		      errno == EAGAIN;
		T_CHECK(saw || state_is("ready"), "raw SendRequest during recovery: %s",
			strerror(errno));
	}
	/* libane waits it out */
	T_CHECK(!state_is("ready"), "the recovery was over before the test looked");
	T_OK(ane_request_submit(prog, 0, &in, 1, &out, 1, &seqno));
	T_OK(ane_request_wait(dev, seqno, ane_deadline_ns(30000 * MS), &st, NULL));
	T_EQ(st, 0);
	o = ane_surface_map(out);
	for (i = 0; i < 4; i++)
		T_EQ(o[i], h16(OUT[i]));
	ane_get_retry_counts(dev, &rc);
	printf("#   raw SendRequest during recovery: %s; libane retried %llu time(s) on EAGAIN\n",
	       saw ? "EAGAIN" : "not tried", (unsigned long long)rc.again);
	T_CHECK(rc.again > 0, "libane never retried: the recovery was over");
	T_CHECK(state_is("ready"), "not ready after the request ran");
out:
	ane_surface_destroy(in);
	ane_surface_destroy(out);
	ane_program_destroy(prog);
	ane_close(dev);
}

/*
 * A blocking read() without poll(): each request's completion, in order,
 * with the driver's read watch at its default, off, and at its longest
 * (read_spin_us).
 */
static void a_blocking_read_returns_each_completion(void)
{
	static const char *const spins[] = { "50", "0", "1000" };
	struct drm_ane_program_prepare pp;
	struct drm_ane_event_complete ev;
	const char *param = "/sys/module/ane/parameters/read_spin_us";
	struct surf in, out;
	struct client c;
	uint64_t tok = 0, seqno;
	unsigned int k, i, bad = 0;

	if (ctl_open(&c) || surface(c.fd, 12, &in) || surface(c.fd, 8, &out) ||
	    create(c.fd, img, IMG_SIZE, &tok) || prepare(c.fd, tok, &pp)) {
		T_CHECK(0, "set-up: %s", strerror(errno));
		return;
	}
	fill_input(&in);
	for (k = 0; k < 3; k++) {
		T_OK(vm_write_file(param, spins[k]));
		for (i = 0; i < 100; i++) {
			if (submit(c.fd, tok, in.handle, out.handle, 0, &seqno) ||
			    read(c.fd, &ev, sizeof(ev)) != sizeof(ev) || ev.seqno != seqno ||
			    ev.status) {
				bad++;
				break;
			}
		}
		T_CHECK(!bad, "read_spin_us=%s: request %u: %s", spins[k], i, strerror(errno));
		T_CHECK(!check_out(&out, OUT), "result");
	}
	T_OK(vm_write_file(param, "50"));
	close(c.fd);
}

int main(int argc, char **argv)
{
	char pc[512];

	if (vm_node(argc, argv, node, sizeof(node), "pool"))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (vm_debugfs_path(node, "fw_inject", inject_path, sizeof(inject_path)) ||
	    vm_debugfs_path(node, "fw_state", state_path, sizeof(state_path))) {
		printf("not ok - no debugfs directory for %s\npool: 0 passed, 1 failed\n", node);
		return 1;
	}
	/* the engine held up: a resume resets it, and the hangs with it */
	snprintf(pc, sizeof(pc), "/sys/class/accel/%s/device/power/control", basename(node));
	if (vm_write_file(pc, "on")) {
		printf("not ok - cannot write %s\npool: 0 passed, 1 failed\n", pc);
		return 1;
	}
	build_image(img, W);
	T_RUN(one_client_has_127_outstanding_on_a_hung_engine);
	T_RUN(eight_clients_have_127_outstanding_each);
	T_RUN(sixty_four_clients_have_127_outstanding_each);
	T_RUN(the_eighth_client_is_parked_then_runs);
	T_RUN(a_parked_request_gives_up_after_ten_seconds);
	T_RUN(a_request_during_recovery_waits_for_ready);
	T_RUN(a_blocking_read_returns_each_completion);
	vm_write_file(pc, "auto");
	return t_summary("pool");
}
