// SPDX-License-Identifier: MIT
/*
 * libane on a firmware that is not coming back (root, debugfs), twice:
 * stopped for good ("halt" through fw_inject: GetStatus says DEAD), and
 * failing every boot ("stall-boot" then "reboot": the driver keeps trying
 * later, RECOVERING, for longer than the test).  Each time a submit and a
 * prepare with a 2 s timeout return within the timeout and some slack,
 * having slept rather than spun (user + system time below a fifth of the
 * wall time), with the documented errno (-EIO for a dead firmware,
 * -EAGAIN for one still booting or recovering) and a message that names
 * the node, the call, the errno and the firmware state; and
 * `ane-run --timeout 2000` exits with status 3 and says that nothing ran,
 * and why, without "check: FAIL".  Each call runs in a child that is
 * killed if it outlives its timeout by far: a libane that retries for
 * ever fails the test instead of hanging it.  Last, the firmware boots
 * again and a new program runs.
 *
 * Expects ane.ko loaded with one device; needs ane-run in $PATH.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"

#define MS		1000000ull
#define TIMEOUT_NS	(2000 * MS)	/* what the calls are given */
/*
 * What they may take beyond it: a dead firmware refuses at once; one that
 * boots holds each command behind its gate while a boot attempt runs
 * (about 1.5 s under TCG), which libane cannot cut short.
 */
#define SLACK_DEAD_NS	(1000 * MS)
#define SLACK_BOOT_NS	(3000 * MS)
#define KILL_NS		(15000 * MS)	/* a child still running then is killed */

static char node[64], inject[300];
static struct ane_dev *dev;
static struct ane_program *prog;
static struct ane_surface *in, *out;
static const void *img;
static size_t img_size;
static uint32_t dead_state;		/* what GetStatus reported */
static uint64_t slack_ns;		/* SLACK_DEAD_NS or SLACK_BOOT_NS */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

static uint32_t fw_state(void)
{
	struct drm_ane_status st = { 0 };

	return ane_get_status(dev, &st) ? ~0u : st.fw_state;
}

static const char *state_upper(uint32_t s)
{
	switch (s) {
	case ANE_FW_STATE_OFF: return "OFF";
	case ANE_FW_STATE_BOOTING: return "BOOTING";
	case ANE_FW_STATE_RECOVERING: return "RECOVERING";
	case ANE_FW_STATE_DEAD: return "DEAD";
	default: return "?";
	}
}

/* One call's outcome, measured from outside the child. */
struct outcome {
	int exited;			/* on its own, before KILL_NS */
	int status;			/* wait status */
	uint64_t wall, cpu;		/* ns */
	char text[8192];		/* what the child wrote to the pipe */
};

/* Reap @pid (killing it at KILL_NS) and read what it wrote to @rfd. */
static void collect(pid_t pid, int rfd, uint64_t t0, struct outcome *o)
{
	struct rusage ru;
	size_t got = 0;
	ssize_t n;
	pid_t r;

	memset(o, 0, sizeof(*o));
	for (;;) {
		r = wait4(pid, &o->status, WNOHANG, &ru);
		if (r == pid) {
			o->exited = 1;
			break;
		}
		if (now_ns() - t0 > KILL_NS) {
			kill(pid, SIGKILL);
			wait4(pid, &o->status, 0, &ru);
			break;
		}
		usleep(20000);
	}
	o->wall = now_ns() - t0;
	o->cpu = tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime);
	while (got < sizeof(o->text) - 1 &&
	       (n = read(rfd, o->text + got, sizeof(o->text) - 1 - got)) > 0)
		got += (size_t)n;
	o->text[got] = '\0';
	close(rfd);
}

enum call { SUBMIT_TIMEOUT, SUBMIT_HANDLE_TIMEOUT, PREPARE };

/* Make @call in a child; it writes "ret <n>\n<message>" to the pipe. */
static void run_call(enum call call, struct outcome *o)
{
	uint64_t t0 = now_ns();
	int p[2];
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		struct ane_program *fresh = NULL;
		char msg[1024];
		int ret;

		close(p[0]);
		switch (call) {
		case SUBMIT_TIMEOUT:
			ret = ane_request_submit_timeout(prog, 0, &in, 1, &out, 1,
							 ane_deadline_ns(TIMEOUT_NS), NULL);
			break;
		case SUBMIT_HANDLE_TIMEOUT:
			ane_set_timeout(dev, TIMEOUT_NS);
			ret = ane_request_submit(prog, 0, &in, 1, &out, 1, NULL);
			break;
		case PREPARE:
		default:
			ane_set_timeout(dev, TIMEOUT_NS);
			ret = ane_program_create(dev, img, img_size, &fresh);
			if (!ret)
				ret = ane_program_prepare(fresh);
			break;
		}
		snprintf(msg, sizeof(msg), "ret %d\n%s\n", ret, ane_errmsg(dev));
		if (write(p[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return;
	}
	collect(pid, p[0], t0, o);
}

/* Run `ane-run --timeout 2000 mlp`, stdout and stderr into o->text. */
static void run_ane_run(struct outcome *o)
{
	uint64_t t0 = now_ns();
	int p[2];
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execlp("ane-run", "ane-run", "--node", node, "--timeout", "2000", "mlp",
		       (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return;
	}
	collect(pid, p[0], t0, o);
}

/* What every libane call on the dead firmware must show. */
static void check_gave_up(const struct outcome *o, const char *call)
{
	char want[128];
	int ret = 1;

	T_CHECK(o->exited, "%s still running after %llu ms: killed (retrying for ever?); it used %llu ms of CPU",
		call, (unsigned long long)(o->wall / MS), (unsigned long long)(o->cpu / MS));
	T_CHECK(o->wall >= TIMEOUT_NS - 50 * MS && o->wall <= TIMEOUT_NS + slack_ns,
		"%s returned after %llu ms; its timeout was %llu ms", call,
		(unsigned long long)(o->wall / MS), (unsigned long long)(TIMEOUT_NS / MS));
	T_CHECK(o->cpu * 5 < o->wall, "%s used %llu ms of CPU in %llu ms (spinning?)", call,
		(unsigned long long)(o->cpu / MS), (unsigned long long)(o->wall / MS));
	sscanf(o->text, "ret %d", &ret);
	if (dead_state == ANE_FW_STATE_DEAD) {
		T_EQ(ret, -EIO);
		T_CHECK(strstr(o->text, "firmware is dead (state DEAD)") &&
			strstr(o->text, ": EIO ("), "%s", o->text);
	} else {
		/*
		 * A firmware failing every boot moves between BOOTING (an
		 * attempt) and RECOVERING (the back-off before the next): the
		 * message names whichever the call saw last, never DEAD.
		 */
		static const uint32_t not_ready[] = {
			ANE_FW_STATE_OFF, ANE_FW_STATE_BOOTING, ANE_FW_STATE_RECOVERING,
		};
		int named = 0;
		unsigned int i;

		T_EQ(ret, -EAGAIN);
		for (i = 0; i < sizeof(not_ready) / sizeof(not_ready[0]); i++) {
			snprintf(want, sizeof(want), "firmware not ready (state %s)",
				 state_upper(not_ready[i]));
			named |= strstr(o->text, want) != NULL;
		}
		T_CHECK(named && strstr(o->text, ": EAGAIN ("), "%s", o->text);
	}
	snprintf(want, sizeof(want), "ane: %s: %s", node, call);
	T_CHECK(strstr(o->text, want), "message does not name node and call: %s", o->text);
	printf("#   %s: %llu ms, %llu ms CPU: %s", call, (unsigned long long)(o->wall / MS),
	       (unsigned long long)(o->cpu / MS), strchr(o->text, '\n') ? strchr(o->text, '\n') + 1 : "");
}

static void firmware_runs_a_request_first(void)
{
	uint64_t seqno;

	T_EQ(fw_state(), ANE_FW_STATE_READY);
	T_OK(ane_request_submit(prog, 0, &in, 1, &out, 1, &seqno));
	T_OK(ane_request_wait(dev, seqno, ane_deadline_ns(10000 * MS), NULL, NULL));
}

static void firmware_halted_is_dead(void)
{
	T_OK(vm_write_file(inject, "halt"));
	dead_state = fw_state();
	slack_ns = SLACK_DEAD_NS;
	T_EQ(dead_state, ANE_FW_STATE_DEAD);
}

static void firmware_failing_every_boot_is_not_ready(void)
{
	/* Every boot attempt from now on stalls: the reboot fails. */
	T_OK(vm_write_file(inject, "stall-boot 1000000"));
	vm_write_file(inject, "reboot");	/* fails: the boot does */
	dead_state = fw_state();
	slack_ns = SLACK_BOOT_NS;
	printf("#   firmware state after the failed reboot: %s\n", ane_fw_state_name(dead_state));
	T_CHECK(dead_state == ANE_FW_STATE_DEAD || dead_state == ANE_FW_STATE_BOOTING ||
		dead_state == ANE_FW_STATE_RECOVERING || dead_state == ANE_FW_STATE_OFF,
		"state %u", dead_state);
}

static void submit_with_a_deadline_gives_up_naming_the_state(void)
{
	struct outcome o;

	run_call(SUBMIT_TIMEOUT, &o);
	check_gave_up(&o, "ProgramSendRequest (control selector 2)");
}

static void submit_with_the_handle_timeout_gives_up_too(void)
{
	struct outcome o;

	run_call(SUBMIT_HANDLE_TIMEOUT, &o);
	check_gave_up(&o, "ProgramSendRequest (control selector 2)");
}

static void prepare_gives_up_naming_the_state(void)
{
	struct outcome o;

	run_call(PREPARE, &o);
	check_gave_up(&o, "ProgramPrepare (control selector 4)");
}

static void ane_run_says_nothing_ran_and_why(void)
{
	struct outcome o;

	run_ane_run(&o);
	printf("#   ane-run: exit %d after %llu ms, %llu ms CPU\n",
	       WIFEXITED(o.status) ? WEXITSTATUS(o.status) : -1,
	       (unsigned long long)(o.wall / MS), (unsigned long long)(o.cpu / MS));
	if (strstr(o.text, "check: "))
		printf("#   ane-run: %s", strstr(o.text, "check: "));
	T_CHECK(o.exited, "ane-run still running after %llu ms: killed; it used %llu ms of CPU",
		(unsigned long long)(o.wall / MS), (unsigned long long)(o.cpu / MS));
	T_CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 3,
		"ane-run: status 0x%x, not exit 3: %s", o.status, o.text);
	T_CHECK(o.wall <= TIMEOUT_NS + 2 * slack_ns, "ane-run took %llu ms",
		(unsigned long long)(o.wall / MS));
	/*
	 * (A run that ends at once, e.g. on a usage error, is not timed.)
	 * ane-run also builds its nets and their CPU reference, a few hundred
	 * ms on a debug kernel: half the wall time is the bound here, where a
	 * spinning retry takes all of it.
	 */
	T_CHECK(o.wall < 1000 * MS || o.cpu * 2 < o.wall,
		"ane-run used %llu ms of CPU in %llu ms (spinning?)",
		(unsigned long long)(o.cpu / MS), (unsigned long long)(o.wall / MS));
	T_CHECK(strstr(o.text, "check: NOT RUN: nothing ran on the engine: ane: "),
		"%s", o.text);
	T_CHECK(strstr(o.text, node) && strstr(o.text, "ProgramPrepare (control selector 4)"),
		"%s", o.text);
	if (dead_state == ANE_FW_STATE_DEAD)
		T_CHECK(strstr(o.text, "firmware is dead (state DEAD)") && strstr(o.text, ": EIO ("),
			"%s", o.text);
	else
		T_CHECK(strstr(o.text, "firmware not ready (state "), "%s", o.text);
	T_CHECK(!strstr(o.text, "check: FAIL") && !strstr(o.text, "check: PASS"), "%s", o.text);
}

static void firmware_boots_again_and_a_new_program_runs(void)
{
	struct ane_program *fresh = NULL;
	uint64_t seqno;
	int i;

	T_OK(vm_write_file(inject, "stall-boot 0"));
	T_OK(vm_write_file(inject, "reboot"));
	for (i = 0; i < 200 && fw_state() != ANE_FW_STATE_READY; i++)
		usleep(50000);
	T_EQ(fw_state(), ANE_FW_STATE_READY);
	ane_set_timeout(dev, ANE_TIMEOUT_DEFAULT_NS);
	T_OK(ane_program_create(dev, img, img_size, &fresh));
	T_OK(ane_program_prepare(fresh));
	T_OK(ane_request_submit(fresh, 0, &in, 1, &out, 1, &seqno));
	T_OK(ane_request_wait(dev, seqno, ane_deadline_ns(10000 * MS), NULL, NULL));
	if (t_case_failed)
		printf("#   %s\n", ane_errmsg(dev));
	ane_program_destroy(fresh);
}

int main(int argc, char **argv)
{
	struct ane_net *net = NULL;
	char err[512];
	int t;

	if (vm_node(argc, argv, node, sizeof(node), "deadfw"))
		return 1;
	if (vm_debugfs_path(node, "fw_inject", inject, sizeof(inject)) ||
	    ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err)) ||
	    ane_net_create(&net)) {
		printf("not ok - setup: %s\ndeadfw: 0 passed, 1 failed\n", err);
		return 1;
	}
	t = ane_net_input(net, "x", 1, 1, 1, 8);
	ane_net_output(net, ane_net_activation(net, t, ANE_NET_ACT_RELU));
	if (ane_net_build(net, &img, &img_size) ||
	    ane_program_create(dev, img, img_size, &prog) || ane_program_prepare(prog) ||
	    ane_surface_create(dev, 16, &in) || ane_surface_create(dev, 16, &out)) {
		printf("not ok - setup: %s %s\ndeadfw: 0 passed, 1 failed\n",
		       ane_net_errmsg(net), ane_errmsg(dev));
		return 1;
	}
	fflush(stdout);

	T_RUN(firmware_runs_a_request_first);
	/* Dead: stopped for good. */
	T_RUN(firmware_halted_is_dead);
	T_RUN(submit_with_a_deadline_gives_up_naming_the_state);
	T_RUN(submit_with_the_handle_timeout_gives_up_too);
	T_RUN(prepare_gives_up_naming_the_state);
	T_RUN(ane_run_says_nothing_ran_and_why);
	/* Not ready for longer than the timeouts: every boot fails. */
	T_RUN(firmware_failing_every_boot_is_not_ready);
	T_RUN(submit_with_a_deadline_gives_up_naming_the_state);
	T_RUN(prepare_gives_up_naming_the_state);
	T_RUN(ane_run_says_nothing_ran_and_why);
	T_RUN(firmware_boots_again_and_a_new_program_runs);

	ane_surface_destroy(in);
	ane_surface_destroy(out);
	ane_program_destroy(prog);
	ane_close(dev);
	ane_net_destroy(net);
	return t_summary("deadfw");
}
