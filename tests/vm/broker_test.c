// SPDX-License-Identifier: MIT
/*
 * aned, the broker daemon (Documentation/accel/ane/broker.rst), end to
 * end: users of different tiers each refused what the tier lacks; a
 * shared model used by two processes of one uid and refused to another
 * uid; the model cache and its per-user partition; adapter instances with
 * their own weights; a hand-off and a submission on the client's own
 * direct-path file; a client gone mid-call leaking nothing; aned killed
 * mid-call and restarted; malformed, oversized and random messages.
 * Then evaluations that run concurrently (a long one does not hold up a
 * short one of a higher QoS, nor any other call), queue depths, the
 * residency and power flags, the cache counting kept surfaces and
 * unwiring them, the compiler service, a SIGHUP policy reload, and aned
 * killed with several evaluations in flight.
 *
 * Expects ane.ko loaded with one device, root, and aned in $PATH.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "harness.h"
#include "libane.h"
#include "onnx_models.h"
#include "vm/vm_util.h"
/* after vm_util.h, whose helpers take a node argument */
#include "vm/prog_util.h"

#define SOCK		"/tmp/aned-test.sock"
#define POLICY		"/tmp/aned-test-policy.conf"
#define U_RESTRICTED	1000
#define U_UNRESTRICTED	1001
#define U_NORULE	1002
#define U_OTHER		1003
#define U_PERUSER	1004

static const int W2[6] = { 2, 0, 0, 2, 2, -2 };
/* [1 2 3; 4 5 6] x [2 0; 0 2; 2 -2] = [8 -2; 20 -2] -> relu [8 0; 20 0] */
static const int OUT2[4] = { 8, 0, 20, 0 };

static uint8_t img[IMG_SIZE];
/* W2 in fp16, an adapter's weights section. */
static uint16_t w2[6];
static pid_t aned_pid;

/*
 * Whether a socket listens at SOCK: /proc/net/unix flags it __SO_ACCEPTCON
 * (0x10000) once aned has called listen().  The file appears at bind(),
 * before that, and a client connecting in between is refused.  Read
 * rather than probed, so that aned sees no extra connection.
 */
static int sock_listening(void)
{
	char line[512], path[256];
	unsigned long flags;
	int found = 0;
	FILE *f = fopen("/proc/net/unix", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags, path) == 2)
			found = !strcmp(path, SOCK) && (flags & 0x10000);
	fclose(f);
	return found;
}

static int start_aned(void)
{
	int i;

	unlink(SOCK);
	fflush(stdout);
	aned_pid = fork();
	if (aned_pid == 0) {
		execlp("aned", "aned", "--foreground", "--socket", SOCK, "--policy", POLICY,
		       "--node", node, "--max-image-mb", "1", "--cache-mb", "4",
		       "--idle-ms", "300", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 400; i++) {
		int status;

		if (sock_listening())
			return 0;
		if (waitpid(aned_pid, &status, WNOHANG) == aned_pid) {
			printf("#   aned exited, status 0x%x\n", status);
			return -1;
		}
		usleep(25000);
	}
	printf("#   nothing listening on %s after 10 s\n", SOCK);
	return -1;
}

static int stop_aned(int sig)
{
	int status = -1;

	kill(aned_pid, sig);
	waitpid(aned_pid, &status, 0);
	return status;
}

static int write_policy_text(const char *text)
{
	FILE *f = fopen(POLICY ".new", "w");

	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f))
		return -1;
	return rename(POLICY ".new", POLICY);
}

static int write_policy(void)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "# broker_test\n"
		 "user %d tier=restricted allow=baseline\n"
		 "user %d tier=unrestricted allow=baseline,adapters,model-share,direct-hand-off,purge,no-unwire,compiler-service\n"
		 "user %d tier=unrestricted allow=baseline,model-share\n"
		 "user %d tier=per-user allow=baseline,model-share\n"
		 "user 0 tier=unrestricted allow=baseline,adapters,model-share,direct-hand-off,purge,compiler-service\n",
		 U_RESTRICTED, U_UNRESTRICTED, U_OTHER, U_PERUSER);
	return write_policy_text(buf);
}

/* The device's charged bytes (debugfs memory), waiting up to 5 s for 0. */
static long long charged_settles(void)
{
	char path[512], line[128];
	long long v = -1;
	int i;

	if (vm_debugfs_path(node, "memory", path, sizeof(path)))
		return -1;
	for (i = 0; i < 100; i++) {
		FILE *f = fopen(path, "r");

		v = -1;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "charged %lld", &v) == 1)
				break;
		if (f)
			fclose(f);
		if (!v)
			break;
		usleep(50000);
	}
	return v;
}

/* Start @fn in a child as @uid; it exits 1 if a check of it failed. */
static pid_t spawn_as(uid_t uid, void (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (uid && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(125);
		t_case_failed = 0;
		fn(arg);
		fflush(stdout);
		_exit(t_case_failed ? 1 : 0);
	}
	return pid;
}

/* The child @pid exited 0. */
static int child_ok(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* Run @fn in a child as @uid; its failures fail the case. */
static void as_user(uid_t uid, void (*fn)(void *), void *arg)
{
	T_CHECK(child_ok(spawn_as(uid, fn, arg)), "the child as uid %u failed", (unsigned int)uid);
}

static struct ane_broker *conn(void)
{
	struct ane_broker *b = NULL;
	char err[256];

	if (ane_broker_connect(SOCK, &b, err, sizeof(err)))
		printf("#   connect: %s\n", err);
	return b;
}

/* Evaluate @model on A; 0 if it computed @want. */
static int eval(struct ane_broker *b, uint64_t model, enum ane_qos qos, const int want[4])
{
	uint16_t in[6], out[4] = { 0xffff, 0xffff, 0xffff, 0xffff };
	const void *ins[1] = { in };
	void *outs[1] = { out };
	size_t isz = sizeof(in), osz = sizeof(out);
	int i, ret;

	for (i = 0; i < 6; i++)
		in[i] = h16(A[i]);
	ret = ane_broker_evaluate(b, model, ins, &isz, 1, outs, &osz, 1, qos, NULL);
	if (ret) {
		printf("#   evaluate: %s\n", ane_broker_errmsg(b));
		return ret;
	}
	for (i = 0; i < 4; i++)
		if (out[i] != h16(want[i])) {
			printf("#   out[%d] = 0x%04x, want 0x%04x\n", i, out[i], h16(want[i]));
			return -1;
		}
	return 0;
}

static int msg_has(struct ane_broker *b, const char *s)
{
	if (strstr(ane_broker_errmsg(b), s))
		return 1;
	printf("#   message \"%s\" lacks \"%s\"\n", ane_broker_errmsg(b), s);
	return 0;
}

static unsigned long long diag_value(const char *diag, const char *key)
{
	const char *p = strstr(diag, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* ------------------------------------------------------------ tiers */

static void restricted_child(void *arg)
{
	struct ane_broker *b = conn();
	uint64_t m = 0, x;
	int efd, dfd;

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &m));
	T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT));
	T_EQ(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_USER_INTERACTIVE, 0, &x), -EPERM);
	T_CHECK(msg_has(b, "qos"), "the field is named");
	T_EQ(eval(b, m, ANE_QOS_REALTIME, OUT), -EPERM);
	T_EQ(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT,
			     ANE_BROKER_LOAD_AGGRESSIVE_POWER, &x), -EACCES);
	T_EQ(ane_broker_share(b, m, &x), -EACCES);
	T_CHECK(msg_has(b, "model-share"), "the entitlement is named");
	T_EQ(ane_broker_handoff(b, m, 0, &efd, &dfd), -EACCES);
	T_CHECK(msg_has(b, "direct-hand-off"), "the entitlement is named");
	T_EQ(ane_broker_instantiate(b, m, img + PAGE16K, 12, ANE_QOS_DEFAULT, &x), -EACCES);
	T_EQ(ane_broker_purge(b, ANE_BROKER_PURGE_ALL, NULL), -EACCES);
	T_OK(ane_broker_purge(b, 0, NULL));
	T_OK(ane_broker_unload(b, m));
	T_EQ(ane_broker_unload(b, m), -ENOENT);
	ane_broker_close(b);
}

static void unrestricted_child(void *arg)
{
	struct ane_broker *b = conn();
	uint64_t m = 0, cookie = 0;

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_REALTIME, 0, &m));
	T_OK(eval(b, m, ANE_QOS_REALTIME, OUT));
	T_OK(ane_broker_share(b, m, &cookie));
	T_CHECK(cookie != 0, "a cookie");
	T_OK(ane_broker_purge(b, ANE_BROKER_PURGE_ALL, NULL));
	ane_broker_close(b);
}

static void norule_child(void *arg)
{
	struct ane_broker *b = conn();
	char diag[256];
	uint64_t m;

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_EQ(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &m), -EACCES);
	T_CHECK(msg_has(b, "no rule"), "says why");
	T_EQ(ane_broker_diagnostics(b, diag, sizeof(diag)), -EACCES);
	ane_broker_close(b);
}

static void each_tier_is_refused_what_it_lacks(void)
{
	as_user(U_RESTRICTED, restricted_child, NULL);
	as_user(U_UNRESTRICTED, unrestricted_child, NULL);
	as_user(U_NORULE, norule_child, NULL);
}

/* ------------------------------------------------------------ sharing */

struct share_arg {
	uint64_t cookie, model;
	int expect;		/* 0, or the errno Adopt returns */
	int same_id;		/* Load of the same image: the cached model? */
};

static void adopter_child(void *arg)
{
	struct share_arg *s = arg;
	struct ane_broker *b = conn();
	uint64_t m = 0, l = 0;

	T_CHECK(b, "connect");
	if (!b)
		return;
	if (s->expect) {
		T_EQ(ane_broker_adopt(b, s->cookie, &m), -s->expect);
	} else {
		T_OK(ane_broker_adopt(b, s->cookie, &m));
		T_EQ(m, s->model);
		T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT));
	}
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &l));
	T_CHECK((l == s->model) == s->same_id, "load of the same image: model %llu, the shared one %llu",
		(unsigned long long)l, (unsigned long long)s->model);
	ane_broker_close(b);
}

static void a_shared_model_serves_one_uid_only(void)
{
	struct share_arg s = { 0 };
	struct ane_broker *b;
	char diag[2048];
	int p[2], q[2], status;
	pid_t owner;

	T_OK(pipe(p));
	T_OK(pipe(q));
	fflush(stdout);
	owner = fork();
	if (owner == 0) {
		uint64_t v[2] = { 0, 0 };
		char c;

		if (setgroups(0, NULL) || setgid(U_UNRESTRICTED) || setuid(U_UNRESTRICTED))
			_exit(125);
		b = conn();
		if (b && !ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &v[0]))
			ane_broker_share(b, v[0], &v[1]);
		if (write(p[1], v, sizeof(v)) != sizeof(v))
			_exit(1);
		/* Hold the model until the others are done. */
		if (read(q[0], &c, 1) != 1)
			_exit(1);
		ane_broker_close(b);
		_exit(v[1] ? 0 : 1);
	}
	{
		uint64_t v[2] = { 0, 0 };

		T_EQ(read(p[0], v, sizeof(v)), sizeof(v));
		s.model = v[0];
		s.cookie = v[1];
	}
	T_CHECK(s.cookie, "the owner shared its model");
	s.same_id = 1;
	as_user(U_UNRESTRICTED, adopter_child, &s);	/* a second process of the uid */
	s.expect = EACCES;
	as_user(U_OTHER, adopter_child, &s);	/* another uid, the shared partition */
	s.same_id = 0;
	as_user(U_PERUSER, adopter_child, &s);	/* per-user: a partition of its own */
	b = conn();
	if (b && !ane_broker_diagnostics(b, diag, sizeof(diag))) {
		printf("#   diagnostics: loads %llu, hits %llu, models %llu\n",
		       diag_value(diag, "loads "), diag_value(diag, "hits "),
		       diag_value(diag, "models "));
		T_CHECK(diag_value(diag, "hits ") >= 1, "the second process's load hit the cache");
	}
	ane_broker_close(b);
	T_EQ(write(q[1], "x", 1), 1);
	T_CHECK(waitpid(owner, &status, 0) == owner && WIFEXITED(status) &&
		!WEXITSTATUS(status), "owner status 0x%x", status);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

/* ------------------------------------------------------------ adapters */

static void adapter_child(void *arg)
{
	struct ane_broker *b = conn();
	uint64_t base = 0, inst = 0, inst2 = 0;
	unsigned long long before, after;
	char diag[2048];

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &base));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	before = diag_value(diag, "cache_bytes ");
	T_OK(ane_broker_instantiate(b, base, w2, sizeof(w2), ANE_QOS_DEFAULT, &inst));
	T_OK(ane_broker_instantiate(b, base, img + PAGE16K, 12, ANE_QOS_DEFAULT, &inst2));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	after = diag_value(diag, "cache_bytes ");
	T_OK(eval(b, base, ANE_QOS_DEFAULT, OUT));
	T_OK(eval(b, inst, ANE_QOS_DEFAULT, OUT2));
	T_OK(eval(b, inst2, ANE_QOS_DEFAULT, OUT));
	{
		char key[64];
		unsigned long long model_bytes;

		snprintf(key, sizeof(key), "model %llu refs ", (unsigned long long)base);
		model_bytes = strstr(diag, key) ?
			diag_value(strstr(diag, key) + strlen(key), "bytes ") : 0;
		printf("#   the base model: %llu bytes in the cache; two adapters: %llu bytes (two loads: %llu)\n",
		       model_bytes, after - before, 2 * model_bytes);
		T_CHECK(model_bytes && after - before < model_bytes,
			"an adapter costs its weights, not a model");
	}
	T_EQ(ane_broker_instantiate(b, base, w2, 10, ANE_QOS_DEFAULT, &inst2), -EINVAL);
	T_CHECK(msg_has(b, "weights"), "the field is named");
	T_EQ(ane_broker_instantiate(b, inst, w2, 12, ANE_QOS_DEFAULT, &inst2), -EINVAL);
	T_EQ(ane_broker_unload(b, base), -EBUSY);
	T_OK(ane_broker_unload(b, inst));
	ane_broker_close(b);
}

static void adapters_have_their_own_weights(void)
{
	as_user(U_UNRESTRICTED, adapter_child, NULL);
}

/* ------------------------------------------------------------ hand-off */

static void handoff_child(void *arg)
{
	struct drm_ane_caps_drop cd = { 0 };
	struct drm_ane_program_attach at = { 0 };
	struct drm_ane_event_complete ev;
	struct ane_broker *b = conn();
	struct surf in = { 0 }, out = { 0 };
	uint64_t m = 0;
	int efd = -1, dfd = -1, e2 = -1, d2 = -1;

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &m));
	T_OK(ane_broker_handoff(b, m, ANE_BROKER_HANDOFF_DIRECT, &efd, &dfd));
	T_CHECK(efd >= 0 && dfd >= 0, "two descriptors");
	if (efd < 0 || dfd < 0)
		return;
	T_OK(ane_broker_handoff(b, m, 0, &e2, &d2));
	T_EQ(d2, -1);
	close(e2);
	T_OK(ioctl(dfd, DRM_IOCTL_ANE_CAPS_DROP, &cd));
	T_EQ(cd.caps, ANE_CAP_MEMORY);
	at.fd = efd;
	T_OK(ioctl(dfd, DRM_IOCTL_ANE_PROGRAM_ATTACH, &at));
	close(efd);
	T_OK(surface(dfd, 12, &in));
	T_OK(surface(dfd, 8, &out));
	fill_input(&in);
	memset(out.p, 0xff, 8);
	memset(&sr, 0, sizeof(sr));
	sr.in.token = at.token;
	sr.in.qos_class = 5;
	sr.in.exec_priority = 21;
	sr.in.io_category = 2;
	sr.in.surfaces[0] = (struct drm_ane_surface_ref){ .handle = in.handle,
							  .kind = ANE_SURFACE_INPUT };
	sr.in.surfaces[1] = (struct drm_ane_surface_ref){ .handle = out.handle,
							  .kind = ANE_SURFACE_OUTPUT };
	T_OK(ioctl(dfd, DRM_IOCTL_ANE_DP_SEND_REQUEST, &sr));
	T_OK(wait_event(dfd, &ev));
	T_EQ(ev.status, 0);
	T_EQ(check_out(&out, OUT), 0);
	/* The file aned handed over cannot create programs. */
	T_CHECK(ioctl(dfd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &(struct drm_ane_program_create){ 0 }) < 0,
		"a direct-path file refuses ProgramCreate");
	T_EQ(ane_broker_handoff(b, m, 0x80, &e2, &d2), -EINVAL);
	T_CHECK(msg_has(b, "flags"), "the field is named");
	close(dfd);
	ane_broker_close(b);
}

static void a_handoff_submits_on_the_clients_own_file(void)
{
	as_user(U_UNRESTRICTED, handoff_child, NULL);
}

/* ------------------------------------------------------------ robustness */

/* A raw sd-bus connection, for what libane's client never sends. */
static sd_bus *raw_bus(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = SOCK };
	sd_bus *bus = NULL;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (sd_bus_new(&bus) < 0 || sd_bus_set_fd(bus, fd, fd) < 0 ||
	    sd_bus_negotiate_fds(bus, 1) < 0 || sd_bus_start(bus) < 0) {
		sd_bus_flush_close_unref(bus);
		return NULL;
	}
	return bus;
}

static void leaver_child(void *arg)
{
	struct ane_broker *b = conn();
	sd_bus_message *m = NULL;
	sd_bus *bus = raw_bus();
	uint8_t other[IMG_SIZE];
	uint16_t in[6] = { 0 };
	uint64_t id = 0;

	(void)arg;
	T_CHECK(b && bus, "connect");
	if (!b || !bus)
		return;
	build_image(other, W2);
	/* The model on the raw connection, evaluated without waiting. */
	T_OK(sd_bus_message_new_method_call(bus, &m, NULL, "/org/ane/Broker",
					    "org.ane.Broker1", "Load"));
	T_OK(sd_bus_message_append_array(m, 'y', other, IMG_SIZE));
	T_OK(sd_bus_message_append(m, "uu", 2u, 0u));
	{
		sd_bus_message *r = NULL;

		T_OK(sd_bus_call(bus, m, 0, NULL, &r));
		T_OK(sd_bus_message_read(r, "t", &id));
		sd_bus_message_unref(r);
	}
	sd_bus_message_unref(m);
	T_OK(sd_bus_message_new_method_call(bus, &m, NULL, "/org/ane/Broker",
					    "org.ane.Broker1", "Evaluate"));
	T_OK(sd_bus_message_append(m, "t", id));
	T_OK(sd_bus_message_open_container(m, 'a', "ay"));
	T_OK(sd_bus_message_append_array(m, 'y', in, sizeof(in)));
	T_OK(sd_bus_message_close_container(m));
	T_OK(sd_bus_message_append(m, "u", 2u));
	T_OK(sd_bus_send(bus, m, NULL));
	T_OK(sd_bus_flush(bus));
	sd_bus_message_unref(m);
	ane_broker_close(b);
	_exit(t_case_failed);	/* gone mid-call, nothing closed in order */
}

static void a_client_gone_mid_call_leaks_nothing(void)
{
	struct ane_broker *b;
	char diag[4096];
	int i, ok = 0;

	as_user(U_UNRESTRICTED, leaver_child, NULL);
	b = conn();
	T_CHECK(b, "connect");
	if (!b)
		return;
	/* Every model of the dead connections is unreferenced, then evicted. */
	for (i = 0; i < 100 && !ok; i++) {
		T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
		ok = diag_value(diag, "clients ") == 1 && !strstr(diag, " refs 1") &&
		     !strstr(diag, " refs 2");
		if (!ok)
			usleep(50000);
	}
	T_CHECK(ok, "diagnostics: %s", diag);
	T_OK(ane_broker_purge(b, ANE_BROKER_PURGE_ALL, NULL));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	T_EQ(diag_value(diag, "models "), 0);
	T_EQ(diag_value(diag, "cache_bytes "), 0);
	ane_broker_close(b);
	/* aned holds its files but nothing on them. */
	T_EQ(charged_settles(), 0);
}

static void survivor_child(void *arg)
{
	struct ane_broker *b = conn();
	int *wake = arg, i, ret = 0;
	uint64_t m = 0;
	char c = 'x';

	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &m));
	T_EQ(write(wake[1], &c, 1), 1);
	for (i = 0; i < 100000 && !ret; i++)
		ret = eval(b, m, ANE_QOS_DEFAULT, OUT);
	T_CHECK(ret == -ECONNRESET || ret == -ENOTCONN, "a clean error, not %d", ret);
	T_CHECK(msg_has(b, "connect again"), "says what to do");
	T_CHECK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &m) == -ENOTCONN,
		"the broken handle refuses calls");
	ane_broker_close(b);
	/*
	 * Reconnect once aned is back (the test restarts it): a connection
	 * made while aned starts may still be refused or closed; retry until
	 * one answers.
	 */
	for (i = 0, b = NULL; i < 200 && !b; i++) {
		char diag[64];

		if (!ane_broker_connect(SOCK, &b, NULL, 0) &&
		    ane_broker_diagnostics(b, diag, sizeof(diag))) {
			printf("#   reconnect %d: %s\n", i, ane_broker_errmsg(b));
			ane_broker_close(b);
			b = NULL;
		}
		if (!b)
			usleep(50000);
	}
	T_CHECK(b, "reconnected");
	if (!b)
		return;
	if (ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &m))
		T_CHECK(0, "load after reconnecting: %s", ane_broker_errmsg(b));
	T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT));
	ane_broker_close(b);
}

static void aned_killed_mid_call_then_restarted(void)
{
	int wake[2];
	pid_t child;
	char c;

	T_OK(pipe(wake));
	child = spawn_as(U_UNRESTRICTED, survivor_child, wake);
	T_EQ(read(wake[0], &c, 1), 1);
	usleep(300000);		/* evaluations in flight */
	stop_aned(SIGKILL);
	/* The kernel's per-file cleanup freed what the old daemon held. */
	T_EQ(charged_settles(), 0);
	T_OK(start_aned());
	T_CHECK(child_ok(child), "the client failed");
	close(wake[0]);
	close(wake[1]);
}

static int raw_call(sd_bus *bus, const char *method, sd_bus_message *m, char *msg, size_t len)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *r = NULL;
	int ret;

	(void)method;
	ret = sd_bus_call(bus, m, 5000000, &err, &r);
	snprintf(msg, len, "%s", err.message ? err.message : "");
	ret = ret >= 0 ? 0 : sd_bus_error_get_errno(&err) ? -sd_bus_error_get_errno(&err) : ret;
	sd_bus_error_free(&err);
	sd_bus_message_unref(r);
	sd_bus_message_unref(m);
	return ret;
}

static sd_bus_message *mcall(sd_bus *bus, const char *method)
{
	sd_bus_message *m = NULL;

	sd_bus_message_new_method_call(bus, &m, NULL, "/org/ane/Broker", "org.ane.Broker1",
				       method);
	return m;
}

/* ------------------------------------------------------------ concurrency */

/*
 * A long network: @k matmuls of [1, 1, D, D] by a D x D constant (the
 * identity over 2, so values stay small), relu'd.  Built here with libane.
 */
#define LONG_D		256
static float long_w[LONG_D * LONG_D];

static int long_net(unsigned int k, struct ane_net **out, const void **image, size_t *size)
{
	struct ane_net *net;
	unsigned int i;
	int x, w;

	for (i = 0; i < LONG_D; i++)
		long_w[i * LONG_D + i] = 0.5f;
	if (ane_net_create(&net))
		return -1;
	x = ane_net_input(net, NULL, 1, 1, LONG_D, LONG_D);
	w = ane_net_const(net, NULL, 1, 1, LONG_D, LONG_D, long_w);
	for (i = 0; i < k; i++)
		x = ane_net_matmul(net, x, w, 0, ANE_NET_ACT_RELU);
	ane_net_output(net, x);
	if (ane_net_build(net, image, size)) {
		printf("#   build: %s\n", ane_net_errmsg(net));
		ane_net_destroy(net);
		return -1;
	}
	*out = net;
	return 0;
}

static uint16_t long_in[LONG_D * LONG_D];

static int long_eval(struct ane_broker *b, uint64_t m, enum ane_qos qos, uint64_t *exec_ns)
{
	static __thread uint16_t out[LONG_D * LONG_D];
	const void *ins[1] = { long_in };
	void *outs[1] = { out };
	size_t isz = sizeof(long_in), osz = sizeof(out);
	int ret;

	ret = ane_broker_evaluate(b, m, ins, &isz, 1, outs, &osz, 1, qos, exec_ns);
	if (ret)
		printf("#   long evaluate: %s\n", ane_broker_errmsg(b));
	return ret;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

struct runner {
	struct ane_broker *b;
	uint64_t model, start_us, done_us, exec_ns;
	enum ane_qos qos;
	int ret, is_long;
};

static void *runner_main(void *arg)
{
	struct runner *r = arg;

	r->start_us = mono_us();
	r->ret = r->is_long ? long_eval(r->b, r->model, r->qos, &r->exec_ns) :
		 eval(r->b, r->model, r->qos, OUT);
	r->done_us = mono_us();
	return NULL;
}

static unsigned int long_k = 1;

/* One matmul's time, then enough of them for ~250 ms on the engine. */
static void calibrate_long(struct ane_broker *b)
{
	struct ane_net *net;
	const void *image;
	size_t size;
	uint64_t m, ns = 0;

	if (long_net(1, &net, &image, &size))
		return;
	if (!ane_broker_load(b, image, size, ANE_QOS_BACKGROUND, 0, &m) &&
	    !long_eval(b, m, ANE_QOS_BACKGROUND, &ns) && ns) {
		long_k = (unsigned int)(250000000ull / ns) + 1;
		if (long_k > 12)
			long_k = 12;	/* the image stays within --max-image-mb 1 */
		ane_broker_unload(b, m);
	}
	printf("#   one %ux%u matmul: %llu us on the engine: the long network has %u\n",
	       LONG_D, LONG_D, (unsigned long long)ns / 1000, long_k);
	ane_net_destroy(net);
}

static void concurrent_child(void *arg)
{
	struct runner a1 = { .qos = ANE_QOS_BACKGROUND, .is_long = 1 };
	struct runner a2 = { .qos = ANE_QOS_BACKGROUND, .is_long = 1 };
	struct runner s = { .qos = ANE_QOS_USER_INTERACTIVE };
	struct ane_broker *d = conn();
	uint64_t cookie = 0, t0, t1;
	pthread_t th[3];
	struct ane_net *net = NULL;
	const void *image;
	size_t size;
	char diag[4096];
	int i;

	(void)arg;
	a1.b = conn();
	a2.b = conn();
	s.b = conn();
	T_CHECK(a1.b && a2.b && s.b && d, "connect");
	if (!a1.b || !a2.b || !s.b || !d)
		return;
	calibrate_long(a1.b);
	T_OK(long_net(long_k, &net, &image, &size));
	if (!net)
		return;
	/* One long model of depth 2 shared by A1 and A2, a short one for S. */
	T_OK(ane_broker_load(a1.b, image, size, ANE_QOS_BACKGROUND, ANE_BROKER_DEPTH(2), &a1.model));
	T_OK(ane_broker_share(a1.b, a1.model, &cookie));
	T_OK(ane_broker_adopt(a2.b, cookie, &a2.model));
	T_OK(ane_broker_load(s.b, img, IMG_SIZE, ANE_QOS_USER_INTERACTIVE, 0, &s.model));
	T_OK(eval(s.b, s.model, ANE_QOS_USER_INTERACTIVE, OUT));
	T_OK(pthread_create(&th[0], NULL, runner_main, &a1));
	usleep(20000);
	T_OK(pthread_create(&th[1], NULL, runner_main, &a2));
	/* aned answers other calls while both long evaluations are in flight. */
	t0 = mono_us();
	T_OK(ane_broker_diagnostics(d, diag, sizeof(diag)));
	t1 = mono_us();
	for (i = 0; i < 100 && !strstr(diag, "evaluations_pending 2\n"); i++) {
		usleep(5000);
		T_OK(ane_broker_diagnostics(d, diag, sizeof(diag)));
	}
	T_CHECK(strstr(diag, "evaluations_pending 2\n"), "two long evaluations pending: %s", diag);
	T_OK(pthread_create(&th[2], NULL, runner_main, &s));
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	pthread_join(th[2], NULL);
	T_OK(a1.ret);
	T_OK(a2.ret);
	T_OK(s.ret);
	printf("#   long A1 %llu ms (engine %llu ms), A2 done at +%llu ms, short S done at +%llu ms; Diagnostics meanwhile %llu us\n",
	       (unsigned long long)(a1.done_us - a1.start_us) / 1000,
	       (unsigned long long)a1.exec_ns / 1000000,
	       (unsigned long long)(a2.done_us - a1.start_us) / 1000,
	       (unsigned long long)(s.done_us - a1.start_us) / 1000,
	       (unsigned long long)(t1 - t0));
	T_CHECK(t1 - t0 < (a1.done_us - a1.start_us) / 2, "Diagnostics waited for an evaluation");
	/*
	 * S came last, at a higher QoS: it runs when A1 ends, before A2,
	 * which waits in the firmware behind A1.  A daemon that runs one
	 * evaluation at a time answers S after A2.
	 */
	T_CHECK(s.done_us < a2.done_us, "the short evaluation waited for the second long one");
	T_OK(ane_broker_diagnostics(a1.b, diag, sizeof(diag)));
	{
		char key[64];

		snprintf(key, sizeof(key), "model %llu refs 2 ", (unsigned long long)a1.model);
		T_CHECK(strstr(diag, key) && strstr(strstr(diag, key), "sets 2 depth 2/2"),
			"two surface sets for depth 2: %s", diag);
	}
	ane_net_destroy(net);
	ane_broker_close(a1.b);
	ane_broker_close(a2.b);
	ane_broker_close(s.b);
	ane_broker_close(d);
}

static void evaluations_run_concurrently(void)
{
	unsigned int i;

	for (i = 0; i < LONG_D * LONG_D; i++)
		long_in[i] = h16((int)(i % 7));
	as_user(U_UNRESTRICTED, concurrent_child, NULL);
}

/* A model of depth @depth evaluated by @n connections at once. */
static void depth_child(void *arg)
{
	struct runner r[3];
	pthread_t th[3];
	struct ane_net *net = NULL;
	struct ane_broker *d = conn();
	const void *image;
	size_t size;
	uint64_t cookie = 0, dm = 0;
	char diag[4096], key[64];
	unsigned int i;

	(void)arg;
	memset(r, 0, sizeof(r));
	T_OK(long_net(long_k, &net, &image, &size));
	if (!net)
		return;
	for (i = 0; i < 3; i++) {
		r[i].b = conn();
		r[i].is_long = 1;
		r[i].qos = ANE_QOS_UTILITY;
		T_CHECK(r[i].b, "connect");
		if (!r[i].b)
			return;
	}
	T_OK(ane_broker_load(r[0].b, image, size, ANE_QOS_UTILITY, ANE_BROKER_DEPTH(1), &r[0].model));
	T_OK(ane_broker_share(r[0].b, r[0].model, &cookie));
	T_OK(ane_broker_adopt(r[1].b, cookie, &r[1].model));
	T_OK(ane_broker_adopt(r[2].b, cookie, &r[2].model));
	/* A fourth connection holds it too, to see it (a handle is one thread's). */
	T_CHECK(d, "connect");
	if (!d)
		return;
	T_OK(ane_broker_adopt(d, cookie, &dm));
	for (i = 0; i < 3; i++)
		T_OK(pthread_create(&th[i], NULL, runner_main, &r[i]));
	usleep(50000);
	T_OK(ane_broker_diagnostics(d, diag, sizeof(diag)));
	snprintf(key, sizeof(key), "model %llu refs ", (unsigned long long)r[0].model);
	T_CHECK(strstr(diag, key) && strstr(strstr(diag, key), "sets 1 depth 1/1 inflight 1"),
		"depth 1: one set, one request in flight: %s", diag);
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		T_OK(r[i].ret);
	}
	/* Serialized by depth 1: the three ends are about one evaluation apart. */
	printf("#   depth 1, three at once: done at +%llu, +%llu, +%llu ms\n",
	       (unsigned long long)(r[0].done_us - r[0].start_us) / 1000,
	       (unsigned long long)(r[1].done_us - r[0].start_us) / 1000,
	       (unsigned long long)(r[2].done_us - r[0].start_us) / 1000);
	for (i = 0; i < 3; i++)
		ane_broker_close(r[i].b);
	ane_broker_close(d);
	ane_net_destroy(net);
}

static void flags_child(void *arg)
{
	struct ane_broker *b = conn();
	uint64_t m = 0, x, inst = 0;
	char diag[4096], key[64];
	const char *p;
	int i, ok = 0;

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_EQ(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT,
			     ANE_BROKER_LOAD_AGGRESSIVE_POWER | ANE_BROKER_LOAD_POWER_SAVING, &x),
	     -EINVAL);
	T_CHECK(msg_has(b, "exclude each other"), "names the conflict");
	T_EQ(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, ANE_BROKER_DEPTH(9), &x), -EINVAL);
	T_CHECK(msg_has(b, "depth 9: out of range 1..8"), "names the depth");
	/* Power saving: prepared while used, unprepared after --idle-ms. */
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, ANE_BROKER_LOAD_POWER_SAVING, &m));
	T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	snprintf(key, sizeof(key), "model %llu refs ", (unsigned long long)m);
	p = strstr(diag, key);
	T_CHECK(p && strstr(p, " prepared") && strstr(p, " prepared") < strchr(p, '\n'),
		"prepared after an evaluation: %s", diag);
	for (i = 0; i < 40 && !ok; i++) {
		usleep(50000);
		T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
		p = strstr(diag, key);
		ok = p && (!strstr(p, " prepared") || strstr(p, " prepared") > strchr(p, '\n'));
	}
	T_CHECK(ok, "unprepared after 300 ms idle: %s", diag);
	T_CHECK(diag_value(diag, "idle_unprepares ") >= 1, "counted");
	T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT));	/* prepared again on demand */
	T_EQ(ane_broker_handoff(b, m, 0, &i, &ok), -EINVAL);
	/* An instance takes a depth and no-unwire, not the base's power flags. */
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &x));
	T_EQ(ane_broker_instantiate_ex(b, x, w2, sizeof(w2), ANE_QOS_DEFAULT,
				       ANE_BROKER_LOAD_POWER_SAVING, &inst), -EINVAL);
	T_CHECK(msg_has(b, "Instantiate: flags: power saving is the base model's"), "names it");
	T_OK(ane_broker_instantiate_ex(b, x, w2, sizeof(w2), ANE_QOS_DEFAULT,
				       ANE_BROKER_LOAD_NO_UNWIRE | ANE_BROKER_DEPTH(3), &inst));
	T_OK(eval(b, inst, ANE_QOS_DEFAULT, OUT2));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	snprintf(key, sizeof(key), "model %llu refs ", (unsigned long long)inst);
	p = strstr(diag, key);
	T_CHECK(p && strstr(p, "depth 3/3") && strstr(p, "no-unwire"), "the instance's flags: %s",
		diag);
	T_OK(ane_broker_unload(b, inst));
	ane_broker_close(b);
}

static void restricted_flags_child(void *arg)
{
	struct ane_broker *b = conn();
	uint64_t x;

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_EQ(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, ANE_BROKER_LOAD_NO_UNWIRE, &x),
	     -EACCES);
	T_CHECK(msg_has(b, "no-unwire needs the entitlement no-unwire"), "names it");
	/* Power saving needs nothing. */
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, ANE_BROKER_LOAD_POWER_SAVING, &x));
	ane_broker_close(b);
}

static void depth_and_residency_flags(void)
{
	as_user(U_UNRESTRICTED, depth_child, NULL);
	as_user(U_UNRESTRICTED, flags_child, NULL);
	as_user(U_RESTRICTED, restricted_flags_child, NULL);
}

/*
 * A storm: six processes evaluate one model of depth 4 at once, each its
 * own input (A times its scale), and each gets its own result every time.
 */
static void storm_child(void *arg)
{
	int scale = *(int *)arg, i, k, bad = 0;
	struct ane_broker *b = conn();
	uint64_t m = 0;

	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, ANE_BROKER_DEPTH(4), &m));
	for (i = 0; i < 60 && !bad; i++) {
		uint16_t in[6], out[4];
		const void *ins[1] = { in };
		void *outs[1] = { out };
		size_t isz = sizeof(in), osz = sizeof(out);

		for (k = 0; k < 6; k++)
			in[k] = h16(A[k] * scale);
		if (ane_broker_evaluate(b, m, ins, &isz, 1, outs, &osz, 1, ANE_QOS_DEFAULT, NULL)) {
			printf("#   scale %d: %s\n", scale, ane_broker_errmsg(b));
			bad = 1;
		}
		for (k = 0; k < 4 && !bad; k++)
			if (out[k] != h16(OUT[k] * scale)) {
				printf("#   scale %d, evaluation %d: out[%d] 0x%04x, want 0x%04x\n",
				       scale, i, k, out[k], h16(OUT[k] * scale));
				bad = 1;
			}
	}
	T_CHECK(!bad, "every result its own");
	ane_broker_close(b);
}

static void a_storm_of_clients_gets_its_own_results(void)
{
	int scale[6], i;
	pid_t pid[6];
	struct ane_broker *b;
	char diag[4096];

	for (i = 0; i < 6; i++) {
		scale[i] = i + 1;
		pid[i] = spawn_as(U_UNRESTRICTED, storm_child, &scale[i]);
	}
	for (i = 0; i < 6; i++)
		T_CHECK(child_ok(pid[i]), "client %d failed", i);
	b = conn();
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	printf("#   after the storm: evaluations %llu, surface sets %llu, depth lowered %llu times\n",
	       diag_value(diag, "evaluations "), diag_value(diag, "surface_sets "),
	       diag_value(diag, "depth_lowered "));
	T_EQ(diag_value(diag, "evaluations_pending "), 0);
	ane_broker_close(b);
}

/*
 * Contention: a base model and two instances of it, each of depth 8, and
 * eight connections on each, all evaluating the long network at once.
 * The kernel takes at most 8 requests of the program (base and instances
 * together) in flight: the other submissions are refused with EBUSY, and
 * aned lowers those models' depth and submits them as requests complete.
 */
#define N_CONT		24

static void contention_child(void *arg)
{
	struct runner r[N_CONT];
	pthread_t th[N_CONT];
	struct ane_net *net = NULL;
	struct ane_broker *d = conn();
	const struct ane_img_header *h;
	const void *image;
	uint64_t model[3] = { 0 }, cookie[3] = { 0 };
	char diag[8192];
	size_t size;
	unsigned int i;
	int ok = 1;

	(void)arg;
	memset(r, 0, sizeof(r));
	T_CHECK(d, "connect");
	if (!d || long_net(1, &net, &image, &size))
		return;
	h = image;
	T_OK(ane_broker_load(d, image, size, ANE_QOS_BACKGROUND, ANE_BROKER_DEPTH(8), &model[0]));
	for (i = 1; i < 3; i++)
		T_OK(ane_broker_instantiate_ex(d, model[0], (const uint8_t *)image + h->weights_offset,
					       h->weights_size, ANE_QOS_BACKGROUND,
					       ANE_BROKER_DEPTH(8), &model[i]));
	for (i = 0; i < 3; i++)
		T_OK(ane_broker_share(d, model[i], &cookie[i]));
	for (i = 0; i < N_CONT; i++) {
		r[i].b = conn();
		r[i].is_long = 1;
		r[i].qos = ANE_QOS_BACKGROUND;
		if (!r[i].b || ane_broker_adopt(r[i].b, cookie[i % 3], &r[i].model)) {
			T_CHECK(0, "connection %u", i);
			return;
		}
	}
	for (i = 0; i < N_CONT; i++)
		T_OK(pthread_create(&th[i], NULL, runner_main, &r[i]));
	for (i = 0; i < N_CONT; i++) {
		pthread_join(th[i], NULL);
		ok &= !r[i].ret;
	}
	T_CHECK(ok, "every evaluation completed");
	T_OK(ane_broker_diagnostics(d, diag, sizeof(diag)));
	printf("#   %u at once over a program of 3 x depth 8: last done after %llu ms, depth lowered %llu times\n",
	       N_CONT, (unsigned long long)(r[N_CONT - 1].done_us - r[0].start_us) / 1000,
	       diag_value(diag, "depth_lowered "));
	T_CHECK(diag_value(diag, "depth_lowered ") >= 1, "the kernel's queue of 8 lowered a depth");
	T_EQ(diag_value(diag, "evaluations_pending "), 0);
	/* Every depth is back to the one asked once the queue drained. */
	T_CHECK(!strstr(diag, "depth 1/8") && !strstr(diag, "depth 2/8"), "depths restored: %s",
		diag);
	for (i = 0; i < N_CONT; i++)
		ane_broker_close(r[i].b);
	ane_broker_close(d);
	ane_net_destroy(net);
}

static void contention_lowers_the_depth(void)
{
	as_user(U_UNRESTRICTED, contention_child, NULL);
}

/* ------------------------------------------------------------ cache */

static void cache_child(void *arg)
{
	struct ane_broker *b = conn();
	struct ane_net *net[12] = { NULL };
	const void *image;
	size_t size;
	uint64_t m = 0, w = 0, big[12];
	unsigned long long before, after, sets;
	char diag[4096];
	unsigned int i;

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_purge(b, ANE_BROKER_PURGE_ALL, NULL));
	/* A model's kept surfaces are charged when made. */
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &m));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	before = diag_value(diag, "cache_bytes ");
	T_EQ(diag_value(diag, "surface_bytes "), 0);
	T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	after = diag_value(diag, "cache_bytes ");
	sets = diag_value(diag, "surface_bytes ");
	printf("#   one model: %llu bytes, its surface set %llu more\n", before, after - before);
	T_CHECK(sets == 2 * 16384 && after - before == sets, "a set of two 16 KB surfaces charged");
	/* A no-unwire model keeps its set under pressure; the other loses it. */
	T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_UTILITY, ANE_BROKER_LOAD_NO_UNWIRE, &w));
	T_OK(eval(b, w, ANE_QOS_DEFAULT, OUT));
	/* Larger models until the cache is full. */
	for (i = 0; i < 12; i++) {
		if (long_net(1 + i, &net[i], &image, &size))
			break;
		if (ane_broker_load(b, image, size, ANE_QOS_BACKGROUND, 0, &big[i])) {
			printf("#   load %u: %s\n", i, ane_broker_errmsg(b));
			break;
		}
	}
	T_CHECK(i > 1, "large models loaded");
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	printf("#   after %u large loads: cache %llu of %llu bytes, unwired %llu, surface_bytes %llu\n",
	       i, diag_value(diag, "cache_bytes "), diag_value(diag, "cache_budget "),
	       diag_value(diag, "unwired "), diag_value(diag, "surface_bytes "));
	T_CHECK(diag_value(diag, "unwired ") >= 1 && diag_value(diag, "surface_bytes ") == sets,
		"the plain model's set unwired, the no-unwire model's kept: %s", diag);
	T_CHECK(diag_value(diag, "cache_bytes ") <= diag_value(diag, "cache_budget "),
		"within the budget");
	/* Room again: the set is made again. */
	T_OK(ane_broker_unload(b, big[0]));
	T_OK(ane_broker_purge(b, 0, NULL));
	T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	T_EQ(diag_value(diag, "surface_bytes "), 2 * sets);
	ane_broker_close(b);
	for (i = 0; i < 12; i++)
		ane_net_destroy(net[i]);
}

static void cache_counts_kept_surfaces(void)
{
	struct ane_broker *b;
	char diag[4096];

	as_user(U_UNRESTRICTED, cache_child, NULL);
	b = conn();
	T_CHECK(b, "connect");
	if (!b)
		return;
	/* Everything unreferenced goes, its surfaces and their charge too. */
	usleep(100000);
	T_OK(ane_broker_purge(b, ANE_BROKER_PURGE_ALL, NULL));
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	T_EQ(diag_value(diag, "cache_bytes "), 0);
	T_EQ(diag_value(diag, "surface_bytes "), 0);
	ane_broker_close(b);
}

/* ------------------------------------------------------------ compiler */

/* The test's matmul network as records: A [1,1,2,3] x W [3,2], relu. */
static const float W_F[6] = { 1, 0, 0, 1, 1, 1 };

static void compile_child(void *arg)
{
	struct ane_broker_net_rec r[4] = {
		{ .op = ANE_BROKER_NET_INPUT, .n_args = 4, .args = { 1, 1, 2, 3 } },
		{ .op = ANE_BROKER_NET_CONST, .n_args = 4, .args = { 1, 1, 3, 2 },
		  .data = W_F, .n_data = 6 },
		{ .op = ANE_BROKER_NET_MATMUL, .n_args = 4, .args = { 0, 1, 0, ANE_NET_ACT_RELU } },
		{ .op = ANE_BROKER_NET_OUTPUT, .n_args = 1, .args = { 2 } },
	};
	struct ane_broker *b = conn();
	struct ane_net *net = NULL;
	const void *local;
	void *image = NULL;
	size_t size = 0, lsize = 0;
	uint64_t m = 0;
	int x, w, restricted = *(int *)arg;
	/* [1 2 3; 4 5 6] x [1 0; 0 1; 1 1] = [4 5; 10 11] */
	static const int OUT_C[4] = { 4, 5, 10, 11 };

	T_CHECK(b, "connect");
	if (!b)
		return;
	if (restricted) {
		T_EQ(ane_broker_compile(b, r, 4, ANE_QOS_DEFAULT, 0, &image, &size, &m), -EACCES);
		T_CHECK(msg_has(b, "lacks the entitlement compiler-service"), "names it");
		ane_broker_close(b);
		return;
	}
	T_OK(ane_broker_compile(b, r, 4, ANE_QOS_DEFAULT, 0, &image, &size, &m));
	T_EQ(m, 0);
	/* The same bytes as the builder here. */
	T_OK(ane_net_create(&net));
	x = ane_net_input(net, NULL, 1, 1, 2, 3);
	w = ane_net_const(net, NULL, 1, 1, 3, 2, W_F);
	ane_net_output(net, ane_net_matmul(net, x, w, 0, ANE_NET_ACT_RELU));
	T_OK(ane_net_build(net, &local, &lsize));
	T_CHECK(image && size == lsize && !memcmp(image, local, size),
		"the service's image is the local build's (%zu, %zu bytes)", size, lsize);
	free(image);
	T_OK(ane_broker_compile(b, r, 4, ANE_QOS_DEFAULT, ANE_BROKER_COMPILE_LOAD, &image, &size,
				&m));
	T_CHECK(m && !image, "loaded, no image returned");
	T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT_C));
	/* Refusals name the record and field. */
	r[2].args[0] = 3;
	T_EQ(ane_broker_compile(b, r, 4, ANE_QOS_DEFAULT, 0, &image, &size, &m), -EINVAL);
	T_CHECK(msg_has(b, "net[2].args[0]: 3 is not an earlier record's tensor"), "forward ref");
	r[2].args[0] = 0;
	r[1].n_data = 5;
	T_EQ(ane_broker_compile(b, r, 4, ANE_QOS_DEFAULT, 0, &image, &size, &m), -EINVAL);
	T_CHECK(msg_has(b, "net[1].data"), "the constant's data");
	r[1].n_data = 6;
	r[1].args[2] = 2;	/* [2, 2]: the builder refuses the shapes, in the child */
	r[1].n_data = 4;
	T_EQ(ane_broker_compile(b, r, 4, ANE_QOS_DEFAULT, 0, &image, &size, &m), -EINVAL);
	T_CHECK(msg_has(b, "Compile: net: ane_net_build: the net is incomplete because a call failed; the first failure: ane_net_matmul: op 0: inner dimensions differ"),
		"the builder's message");
	T_EQ(ane_broker_compile(b, r, 4, ANE_QOS_REALTIME + 1, 0, &image, &size, &m), -EINVAL);
	ane_net_destroy(net);
	ane_broker_close(b);
}

static void the_compiler_service_is_gated(void)
{
	int restricted = 1, unrestricted = 0;
	struct ane_broker *b;
	char diag[4096];

	as_user(U_RESTRICTED, compile_child, &restricted);
	as_user(U_UNRESTRICTED, compile_child, &unrestricted);
	b = conn();
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
	T_EQ(diag_value(diag, "compiles "), 2);
	T_EQ(diag_value(diag, "compiles_running "), 0);
	ane_broker_close(b);
}

/*
 * CompileOnnx: the same matmul network as an ONNX model (MatMul by a
 * constant, Relu), compiled and loaded in aned's sandboxed child; a file
 * that is no model and a model the engine cannot run alone are refused
 * with the front end's message.
 */
static void compile_onnx_child(void *arg)
{
	static const int64_t d23[2] = { 2, 3 }, d32[2] = { 3, 2 }, d22[2] = { 2, 2 };
	static const int OUT_C[4] = { 4, 5, 10, 11 };
	static const char junk[] = "not a model";
	struct ane_broker *b = conn();
	void *image = NULL, *bytes;
	int restricted = *(int *)arg;
	size_t size = 0, len;
	uint64_t m = 0;
	struct mk mk;

	T_CHECK(b, "connect");
	if (!b)
		return;
	mk_init(&mk, 13);
	mk_input(&mk, "a", 2, d23);
	mk_output(&mk, "y", 2, d22);
	mk_node(&mk, "MatMul", "a", "w", "p");
	mk_node(&mk, "Relu", "p", NULL, "y");
	mk_init_f(&mk, "w", 2, d32, W_F, 6);
	bytes = mk_pack(&mk, &len);
	if (restricted) {
		T_EQ(ane_broker_compile_onnx(b, bytes, len, ANE_QOS_DEFAULT, 0, &image, &size,
					     &m), -EACCES);
		T_CHECK(msg_has(b, "lacks the entitlement compiler-service"), "names it");
		goto out;
	}
	T_OK(ane_broker_compile_onnx(b, bytes, len, ANE_QOS_DEFAULT, 0, &image, &size, &m));
	T_CHECK(image && size > 0 && m == 0, "an image, not loaded");
	free(image);
	image = NULL;
	T_OK(ane_broker_compile_onnx(b, bytes, len, ANE_QOS_DEFAULT, ANE_BROKER_COMPILE_LOAD,
				     &image, &size, &m));
	T_CHECK(m && !image, "loaded, no image returned");
	T_OK(eval(b, m, ANE_QOS_DEFAULT, OUT_C));
	T_EQ(ane_broker_compile_onnx(b, junk, sizeof(junk), ANE_QOS_DEFAULT, 0, &image, &size,
				     &m), -EINVAL);
	T_CHECK(msg_has(b, "CompileOnnx: model: not an ONNX model"), "the loader's message");
	free(bytes);
	/* Tan(a): an op the engine does not have. */
	mk.nodes[0]->op_type = "Tan";
	mk.nodes[0]->n_input = 1;
	mk.graph.n_initializer = 0;
	mk.outs[0] = mk_vi(&mk, "y", 2, d23);
	bytes = mk_pack(&mk, &len);
	T_EQ(ane_broker_compile_onnx(b, bytes, len, ANE_QOS_DEFAULT, 0, &image, &size, &m),
	     -EINVAL);
	T_CHECK(msg_has(b, "engine-only: 1 of 2 nodes cannot run on the engine"),
		"lists the CPU nodes");
out:
	free(bytes);
	ane_broker_close(b);
}

static void compile_onnx_is_gated_and_sandboxed(void)
{
	int restricted = 1, unrestricted = 0;

	as_user(U_RESTRICTED, compile_onnx_child, &restricted);
	as_user(U_UNRESTRICTED, compile_onnx_child, &unrestricted);
}

/* ------------------------------------------------------------ SIGHUP */

static void sighup_child(void *arg)
{
	struct ane_broker *b = conn();
	char diag[4096];
	int i, ret = -1;

	(void)arg;
	T_CHECK(b, "connect");
	if (!b)
		return;
	T_EQ(ane_broker_diagnostics(b, diag, sizeof(diag)), -EACCES);
	/* The parent rewrites the policy and sends SIGHUP; this connection is re-admitted. */
	for (i = 0; i < 100 && ret; i++) {
		ret = ane_broker_diagnostics(b, diag, sizeof(diag));
		if (ret)
			usleep(50000);
	}
	T_OK(ret);
	T_CHECK(strstr(diag, "tier restricted\n"), "the new rule's tier: %s", diag);
	ane_broker_close(b);
}

static void sighup_reloads_the_policy(void)
{
	char text[1024], diag[4096];
	struct ane_broker *b;
	pid_t pid;

	pid = spawn_as(U_NORULE, sighup_child, NULL);
	usleep(300000);		/* the child connected and was refused */
	snprintf(text, sizeof(text), "user %d tier=restricted allow=baseline\n"
		 "user 0 tier=unrestricted allow=baseline,purge\n", U_NORULE);
	T_OK(write_policy_text(text));
	kill(aned_pid, SIGHUP);
	T_CHECK(child_ok(pid), "the child as uid %d failed", U_NORULE);
	/* A bad file keeps the policy in force. */
	T_OK(write_policy_text("user 0 tier=unrestricted allow=baseline\nuser 1 wings\n"));
	kill(aned_pid, SIGHUP);
	usleep(200000);
	b = conn();
	T_CHECK(b, "connect");
	if (b) {
		T_OK(ane_broker_diagnostics(b, diag, sizeof(diag)));
		T_EQ(diag_value(diag, "policy_reloads "), 1);
		T_CHECK(strstr(diag, "entitlements 0x21\n"), "root keeps purge: %s", diag);
		ane_broker_close(b);
	}
	T_OK(write_policy());
	kill(aned_pid, SIGHUP);
	usleep(200000);
}

/* ------------------------------------------------------------ killed, concurrent */

static void long_runner_child(void *arg)
{
	int *wake = arg, ret = 0;
	struct ane_broker *b = conn();
	struct ane_net *net = NULL;
	const void *image;
	size_t size;
	uint64_t m = 0;
	char c = 'x';

	T_CHECK(b, "connect");
	if (!b || long_net(long_k, &net, &image, &size))
		return;
	T_OK(ane_broker_load(b, image, size, ANE_QOS_BACKGROUND, 0, &m));
	T_EQ(write(wake[1], &c, 1), 1);
	while (!ret)
		ret = long_eval(b, m, ANE_QOS_BACKGROUND, NULL);
	T_CHECK(ret == -ECONNRESET, "a clean error, not %d", ret);
	ane_broker_close(b);
	ane_net_destroy(net);
}

static void aned_killed_with_concurrent_evaluations(void)
{
	int wake[2], i;
	pid_t child[3];
	char c;

	T_OK(pipe(wake));
	for (i = 0; i < 3; i++)
		child[i] = spawn_as(U_UNRESTRICTED, long_runner_child, wake);
	for (i = 0; i < 3; i++)
		T_EQ(read(wake[0], &c, 1), 1);
	usleep(150000);		/* three long evaluations in flight or queued */
	stop_aned(SIGKILL);
	T_EQ(charged_settles(), 0);
	for (i = 0; i < 3; i++)
		T_CHECK(child_ok(child[i]), "client %d failed", i);
	T_OK(start_aned());
	close(wake[0]);
	close(wake[1]);
}

static void malformed_messages_are_refused(void)
{
	static const char *const methods[] = { "Load", "LoadFd", "Evaluate", "Unload", "Share",
		"Adopt", "Instantiate", "HandOff", "Purge", "Diagnostics", "Compile", "Nope" };
	static uint8_t junk[2 << 20];
	struct ane_broker *b;
	sd_bus_message *m;
	char msg[512];
	uint64_t id = 0;
	sd_bus *bus = raw_bus();
	unsigned int i, seed = 1;
	int fd, ret;

	T_CHECK(bus, "raw connect");
	if (!bus)
		return;
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(rand_r(&seed) >> 7);
	/* The wrong signature. */
	m = mcall(bus, "Load");
	sd_bus_message_append(m, "s", "image");
	T_CHECK(raw_call(bus, "Load", m, msg, sizeof(msg)) < 0, "a string for an image");
	/* Garbage, a truncated header, an oversized image. */
	m = mcall(bus, "Load");
	sd_bus_message_append_array(m, 'y', junk, 200);
	sd_bus_message_append(m, "uu", 2u, 0u);
	T_EQ(raw_call(bus, "Load", m, msg, sizeof(msg)), -EINVAL);
	T_CHECK(strstr(msg, "image"), "names the image: %s", msg);
	m = mcall(bus, "Load");
	sd_bus_message_append_array(m, 'y', img, 100);
	sd_bus_message_append(m, "uu", 2u, 0u);
	T_EQ(raw_call(bus, "Load", m, msg, sizeof(msg)), -EINVAL);
	m = mcall(bus, "Load");
	sd_bus_message_append_array(m, 'y', junk, sizeof(junk));
	sd_bus_message_append(m, "uu", 2u, 0u);
	T_EQ(raw_call(bus, "Load", m, msg, sizeof(msg)), -E2BIG);
	T_CHECK(strstr(msg, "image"), "names the image: %s", msg);
	m = mcall(bus, "Load");
	sd_bus_message_append_array(m, 'y', img, IMG_SIZE);
	sd_bus_message_append(m, "uu", 99u, 0u);
	T_EQ(raw_call(bus, "Load", m, msg, sizeof(msg)), -EINVAL);
	T_CHECK(strstr(msg, "qos"), "names qos: %s", msg);
	m = mcall(bus, "Load");
	sd_bus_message_append_array(m, 'y', img, IMG_SIZE);
	sd_bus_message_append(m, "uu", 2u, 0x10000u);
	T_EQ(raw_call(bus, "Load", m, msg, sizeof(msg)), -EINVAL);
	T_CHECK(strstr(msg, "flags"), "names flags: %s", msg);
	m = mcall(bus, "Load");
	sd_bus_message_append_array(m, 'y', img, IMG_SIZE);
	sd_bus_message_append(m, "uu", 2u, ANE_BROKER_DEPTH(ANE_BROKER_DEPTH_MAX + 1));
	T_EQ(raw_call(bus, "Load", m, msg, sizeof(msg)), -EINVAL);
	T_CHECK(strstr(msg, "flags: depth 9"), "names the depth: %s", msg);
	m = mcall(bus, "Compile");
	sd_bus_message_open_container(m, 'a', "(uauay)");
	sd_bus_message_open_container(m, 'r', "uauay");
	sd_bus_message_append(m, "u", 77u);
	sd_bus_message_append_array(m, 'u', junk, 4);
	sd_bus_message_append_array(m, 'y', junk, 0);
	sd_bus_message_close_container(m);
	sd_bus_message_close_container(m);
	sd_bus_message_append(m, "uu", 2u, 0u);
	T_EQ(raw_call(bus, "Compile", m, msg, sizeof(msg)), -EINVAL);
	T_CHECK(strstr(msg, "net[0].op"), "names the record's op: %s", msg);
	/* A pipe is not an image file. */
	{
		int p[2];

		T_OK(pipe(p));
		m = mcall(bus, "LoadFd");
		sd_bus_message_append(m, "huu", p[0], 2u, 0u);
		T_EQ(raw_call(bus, "LoadFd", m, msg, sizeof(msg)), -EINVAL);
		T_CHECK(strstr(msg, "fd"), "names fd: %s", msg);
		close(p[0]);
		close(p[1]);
	}
	/* Inputs: too many, the wrong size. */
	b = conn();
	T_CHECK(b, "connect");
	if (b) {
		T_OK(ane_broker_load(b, img, IMG_SIZE, ANE_QOS_DEFAULT, 0, &id));
		{
			uint16_t in[6] = { 0 }, out[4];
			const void *ins[2] = { in, in };
			void *outs[1] = { out };
			size_t isz[2] = { 12, 12 }, osz = 8, small = 10;

			T_EQ(ane_broker_evaluate(b, id, ins, isz, 2, outs, &osz, 1, 2, NULL),
			     -EINVAL);
			T_CHECK(msg_has(b, "inputs"), "names inputs");
			T_EQ(ane_broker_evaluate(b, id, ins, &small, 1, outs, &osz, 1, 2, NULL),
			     -EINVAL);
			T_CHECK(msg_has(b, "inputs[0]"), "names inputs[0]");
			T_EQ(ane_broker_evaluate(b, id + 1000, ins, isz, 1, outs, &osz, 1, 2,
						 NULL), -ENOENT);
			T_CHECK(msg_has(b, "model"), "names the model");
		}
		T_EQ(ane_broker_adopt(b, 12345, &id), -EACCES);
	}
	/* Random calls: every method, random signatures and bytes. */
	for (i = 0; i < 400; i++) {
		const char *method = methods[rand_r(&seed) % 11];
		unsigned int k, n = rand_r(&seed) % 4;

		m = mcall(bus, method);
		for (k = 0; k < n; k++) {
			switch (rand_r(&seed) % 5) {
			case 0:
				sd_bus_message_append(m, "t", (uint64_t)rand_r(&seed));
				break;
			case 1:
				sd_bus_message_append(m, "u", (uint32_t)rand_r(&seed) % 8);
				break;
			case 2:
				sd_bus_message_append_array(m, 'y', junk + rand_r(&seed) % 4096,
							    rand_r(&seed) % 4096);
				break;
			case 3:
				sd_bus_message_open_container(m, 'a', "ay");
				sd_bus_message_append_array(m, 'y', junk, rand_r(&seed) % 64);
				sd_bus_message_close_container(m);
				break;
			default:
				sd_bus_message_append(m, "s", "x");
				break;
			}
		}
		raw_call(bus, method, m, msg, sizeof(msg));
	}
	sd_bus_flush_close_unref(bus);
	/* Not D-Bus at all. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = SOCK };

		if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			T_CHECK(write(fd, junk, 65536) > 0, "garbage sent");
		if (fd >= 0)
			close(fd);
	}
	/* aned is alive and answers. */
	T_EQ(waitpid(aned_pid, &ret, WNOHANG), 0);
	if (b) {
		T_OK(ane_broker_diagnostics(b, msg, sizeof(msg)));
		T_OK(eval(b, id, ANE_QOS_DEFAULT, OUT));
	}
	ane_broker_close(b);
}

static void aned_stops_cleanly(void)
{
	int status = stop_aned(SIGTERM);

	T_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "aned status 0x%x", status);
	T_EQ(charged_settles(), 0);
}

int main(int argc, char **argv)
{
	int i;

	if (vm_node(argc, argv, node, sizeof(node), "broker"))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	build_image(img, W);
	for (i = 0; i < 6; i++)
		w2[i] = h16(W2[i]);
	if (write_policy() || start_aned()) {
		printf("not ok - aned did not start\nbroker: 0 passed, 1 failed\n");
		return 1;
	}
	T_RUN(each_tier_is_refused_what_it_lacks);
	T_RUN(a_shared_model_serves_one_uid_only);
	T_RUN(adapters_have_their_own_weights);
	T_RUN(a_handoff_submits_on_the_clients_own_file);
	T_RUN(a_client_gone_mid_call_leaks_nothing);
	T_RUN(aned_killed_mid_call_then_restarted);
	T_RUN(evaluations_run_concurrently);
	T_RUN(depth_and_residency_flags);
	T_RUN(a_storm_of_clients_gets_its_own_results);
	T_RUN(contention_lowers_the_depth);
	T_RUN(cache_counts_kept_surfaces);
	T_RUN(the_compiler_service_is_gated);
	T_RUN(compile_onnx_is_gated_and_sandboxed);
	T_RUN(sighup_reloads_the_policy);
	T_RUN(aned_killed_with_concurrent_evaluations);
	T_RUN(malformed_messages_are_refused);
	T_RUN(aned_stops_cleanly);
	return t_summary("broker");
}
