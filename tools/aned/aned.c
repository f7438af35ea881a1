// SPDX-License-Identifier: MIT
/*
 * aned: the broker daemon of ch. 27.  It holds the device; clients reach
 * the engine through it over D-Bus peer to peer (sd-bus) on a unix socket,
 * each connection admitted by the peer's credentials and the policy file,
 * each method by its own entitlement.  Documentation/accel/ane/broker.rst.
 *
 *   aned [--socket PATH] [--policy PATH] [--node NODE] [--cache-mb N]
 *        [--max-image-mb N] [--max-clients N] [--idle-ms N]
 *        [--compile-timeout-s N] [--foreground]
 *
 * One thread, one sd-event loop: an Evaluate submits and returns, its
 * reply is sent when the completion event arrives on the control file;
 * a Compile runs in a child process.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_opt.h"
#include "aned.h"
#include "aned_paths.h"

struct aned_opts opt = {
	.socket = ANE_BROKER_SOCKET_DEFAULT,
	.cache_bytes = 256ull << 20,
	.max_image = 64ull << 20,
	.max_clients = 256,
	.idle_us = 2000000,
	.compile_timeout_us = 60000000,
};


sd_event *event;

/* Frees the connections marked dead, after the loop iteration (oneshot). */
static sd_event_source *reap_src;

static struct aned_policy policy;

static unsigned int policy_gen;

/* Requests in flight, any model; the loop's periodic wake-up. */
struct job *inflight_jobs;

sd_event_source *tick_src;

unsigned int n_compiles;

struct ctl *ctls;

struct model *models;

static struct client *clients;

unsigned int n_clients;

uint64_t next_model_id = 1;

uint64_t lru_clock;

uint64_t cache_used;

struct aned_stats stats;

void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("aned: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ------------------------------------------------------------ QoS */
/* The program priority of a QoS (ProgramPrepare). */
uint32_t qos_priority(uint32_t qos)
{
	static const uint32_t prio[] = { 7, 6, 4, 3, 2, 1 };

	return prio[qos];
}

/* The request's queue index and execution priority (qos_class, exec_priority). */
void qos_request(uint32_t qos, uint32_t *queue, uint32_t *exec)
{
	static const uint32_t q[] = { 1, 3, 5, 6, 7, 8 };
	static const uint32_t e[] = { 9, 17, 21, 25, 33, 47 };

	*queue = q[qos];
	*exec = e[qos];
}

static const char *qos_name(uint32_t qos)
{
	static const char *const n[] = { "background", "utility", "default",
		"user-initiated", "user-interactive", "realtime" };

	return qos <= ANE_QOS_MAX ? n[qos] : "?";
}

int deny(sd_bus_error *err, int e, const char *fmt, ...)
{
	const char *en = strerrorname_np(e);
	char msg[256], name[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	stats.refused++;
	/*
	 * "System.Error.<errno name>": sd-bus turns it back into the errno on
	 * the client's side, exactly (its own mapping merges EPERM and EACCES).
	 */
	if (!en)
		return sd_bus_error_set_errnof(err, e, "%s", msg);
	snprintf(name, sizeof(name), "System.Error.%s", en);
	sd_bus_error_set(err, name, msg);
	return -e;
}

/* The method's entitlement: 0, or the error set. */
int admit(struct client *c, unsigned int ent, const char *method,
	  sd_bus_error *err)
{
	/* A SIGHUP reloaded the policy: re-admit at the connection's next call. */
	if (c->policy_gen != policy_gen) {
		c->rule = aned_policy_lookup(&policy, c->uid, c->gid, c->groups, c->n_groups);
		c->policy_gen = policy_gen;
	}
	if (c->rule.tier == ANED_TIER_NONE)
		return deny(err, EACCES, "%s: uid %u has no rule in the policy",
			    method, (unsigned int)c->uid);
	if (!(c->rule.ents & ANED_ENT_BASELINE) || (ent && !(c->rule.ents & ent)))
		return deny(err, EACCES, "%s: uid %u (tier %s) lacks the entitlement %s",
			    method, (unsigned int)c->uid, aned_tier_name(c->rule.tier),
			    aned_ent_name(ent ? ent : ANED_ENT_BASELINE));
	return 0;
}

int check_qos(struct client *c, uint32_t qos, const char *method,
	      sd_bus_error *err)
{
	uint32_t max = aned_tier_max_qos(c->rule.tier);

	if (qos > ANE_QOS_MAX)
		return deny(err, EINVAL, "%s: qos %u: out of range 0..%u", method, qos,
			    ANE_QOS_MAX);
	if (qos > max)
		return deny(err, EPERM, "%s: qos %u (%s): above the %s tier's %s", method,
			    qos, qos_name(qos), aned_tier_name(c->rule.tier), qos_name(max));
	return 0;
}

static const sd_bus_vtable broker_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Load", "ayuu", "t", m_load, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("LoadFd", "huu", "t", m_load_fd, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Evaluate", "taayu", "aayt", m_evaluate, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Unload", "t", "", m_unload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Share", "t", "t", m_share, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Adopt", "t", "t", m_adopt, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Instantiate", "tayuu", "t", m_instantiate, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Compile", "a(uauay)uu", "ayt", m_compile, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("CompileOnnx", "ayuu", "ayt", m_compile_onnx, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("HandOff", "tu", "hah", m_handoff, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Purge", "u", "u", m_purge, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Diagnostics", "", "s", m_diagnostics, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

/* ------------------------------------------------------------ connections */

static void client_free(struct client *c)
{
	struct client **pp;
	struct compile *cp;
	unsigned int i;

	for (pp = &clients; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	/* Instances first: they hold their base. */
	for (i = 0; i < MAX_REFS; i++) {
		struct model *m = c->models[i] ? model_find(c->models[i]) : NULL;

		if (m && m->base)
			client_drop(c, i);
	}
	for (i = 0; i < MAX_REFS; i++)
		if (c->models[i])
			client_drop(c, i);
	for (cp = compiles; cp; cp = cp->next)
		if (cp->c == c)
			cp->c = NULL;
	sd_bus_flush_close_unref(c->bus);
	if (c->pidfd >= 0)
		close(c->pidfd);
	n_clients--;
	free(c);
	cache_evict(0, 0, 0);
}

static int on_reap(sd_event_source *s, void *ud)
{
	struct client *c, *next;

	(void)s;
	(void)ud;
	for (c = clients; c; c = next) {
		next = c->next;
		if (c->dead)
			client_free(c);
	}
	return 0;
}

static int on_filter(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	struct client *c = ud;

	(void)err;
	if (sd_bus_message_is_signal(m, "org.freedesktop.DBus.Local", "Disconnected") &&
	    !c->dead) {
		c->dead = 1;
		sd_event_source_set_enabled(reap_src, SD_EVENT_ONESHOT);
	}
	return 0;
}

static int on_accept(sd_event_source *s, int lfd, uint32_t revents, void *ud)
{
	gid_t groups[64];
	socklen_t sl;
	struct ucred cred;
	struct client *c;
	sd_id128_t id;
	int fd, ng = 0;

	(void)s;
	(void)revents;
	(void)ud;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return 0;
	sl = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &sl) || n_clients >= opt.max_clients) {
		close(fd);
		return 0;
	}
	sl = sizeof(groups);
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &sl))
		ng = (int)(sl / sizeof(gid_t));
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return 0;
	}
	c->uid = cred.uid;
	c->gid = cred.gid;
	c->pid = cred.pid;
	sl = sizeof(c->pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &c->pidfd, &sl))
		c->pidfd = -1;
	c->rule = aned_policy_lookup(&policy, cred.uid, cred.gid, groups, ng);
	c->policy_gen = policy_gen;
	memcpy(c->groups, groups, (size_t)ng * sizeof(gid_t));
	c->n_groups = ng;
	if (sd_bus_new(&c->bus) < 0 || sd_bus_set_fd(c->bus, fd, fd) < 0 ||
	    sd_id128_randomize(&id) < 0 || sd_bus_set_server(c->bus, 1, id) < 0 ||
	    sd_bus_negotiate_fds(c->bus, 1) < 0 ||
	    sd_bus_add_object_vtable(c->bus, NULL, BROKER_PATH, BROKER_IFACE, broker_vtable,
				     c) < 0 ||
	    sd_bus_add_filter(c->bus, NULL, on_filter, c) < 0 ||
	    sd_bus_attach_event(c->bus, event, 0) < 0 || sd_bus_start(c->bus) < 0) {
		logmsg("connection of pid %d dropped: no D-Bus connection could be set up", (int)cred.pid);
		if (c->bus)
			sd_bus_flush_close_unref(c->bus);
		else
			close(fd);
		if (c->pidfd >= 0)
			close(c->pidfd);
		free(c);
		return 0;
	}
	c->next = clients;
	clients = c;
	n_clients++;
	return 0;
}

/*
 * The policy file to read: --policy, else ANED_ETC_POLICY when it exists,
 * else the default `make install` installed (ANED_VENDOR_POLICY).  Chosen
 * at each load, so a file created in /etc is taken at the next SIGHUP.
 */
static const char *policy_path(void)
{
	if (opt.policy)
		return opt.policy;
	if (!access(ANED_ETC_POLICY, F_OK))
		return ANED_ETC_POLICY;
	return ANED_VENDOR_POLICY;
}

/* SIGHUP: read the policy again; a bad file keeps the old one. */
static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *ud)
{
	static struct aned_policy next;
	char perr[256];

	(void)s;
	(void)si;
	(void)ud;
	if (aned_policy_load(policy_path(), &next, perr, sizeof(perr))) {
		logmsg("SIGHUP: the policy is kept: %s", perr);
		return 0;
	}
	policy = next;
	policy_gen++;
	stats.reloads++;
	logmsg("SIGHUP: %s reloaded (%u rules); connections are re-admitted at their next call",
	       policy_path(), policy.n);
	return 0;
}

static int listen_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int n = sd_listen_fds(1), fd;

	if (n > 1) {
		logmsg("systemd passed %d sockets, expected 1", n);
		return -1;
	}
	if (n == 1)
		return SD_LISTEN_FDS_START;
	if (strlen(opt.socket) >= sizeof(sa.sun_path)) {
		logmsg("--socket %s: path too long", opt.socket);
		return -1;
	}
	strcpy(sa.sun_path, opt.socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		logmsg("a unix socket: %s", strerror(errno));
		return -1;
	}
	unlink(opt.socket);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(opt.socket, 0666) ||
	    listen(fd, 64)) {
		logmsg("%s: %s", opt.socket, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* @val MiB, 1..1048576, as bytes into *@out: 0, or the usage error. */
static int parse_mb(const char *name, const char *val, uint64_t *out)
{
	uint64_t v;

	if (ane_opt_u64(name, val, 1, 1ull << 20, "MiB", &v))
		return ANE_OPT_USAGE;
	*out = v << 20;
	return 0;
}

void usage(FILE *f)
{
	fprintf(f,
		"usage: aned [--socket PATH] [--policy PATH] [--node NODE] [--cache-mb N]\n"
		"            [--max-image-mb N] [--max-clients N] [--idle-ms N]\n"
		"            [--compile-timeout-s N] [--foreground]\n"
		"The ane broker daemon (Documentation/accel/ane/broker.rst).\n"
		"  --socket PATH      listen there (default %s; systemd socket\n"
		"                     activation takes precedence)\n"
		"  --policy PATH      the policy file (default %s,\n"
		"                     else %s)\n"
		"  --node NODE        the accel node (default: the first ane device)\n"
		"  --cache-mb N       model cache budget in MiB, 1..1048576 (default 256)\n"
		"  --max-image-mb N   largest image accepted, MiB (default 64)\n"
		"  --max-clients N    connections at once, 1..1048576 (default 256)\n"
		"  --idle-ms N        power saving: unprepare after N ms idle, 0..86400000\n"
		"                     (default 2000; 0: as soon as a model is idle)\n"
		"  --compile-timeout-s N  a Compile's time limit, 1..86400 s (default 60)\n"
		"  --foreground       log to stderr, for tests (aned never forks)\n"
		"  -h, --help         this help\n"
		"  -V, --version      libane's version\n"
		"Exit status 2: a usage error; 78: the policy cannot be read (aned.service\n"
		"restarts on neither).  Without a device aned waits: methods fail with the\n"
		"error until the module is loaded.\n",
		ANE_BROKER_SOCKET_DEFAULT, ANED_ETC_POLICY, ANED_VENDOR_POLICY);
}

int main(int argc, char **argv)
{
	enum { O_SOCKET = 256, O_POLICY, O_NODE, O_CACHE, O_MAX_IMAGE, O_MAX_CLIENTS,
	       O_IDLE, O_COMPILE_TIMEOUT, O_FOREGROUND };
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, O_SOCKET },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "node", required_argument, NULL, O_NODE },
		{ "cache-mb", required_argument, NULL, O_CACHE },
		{ "max-image-mb", required_argument, NULL, O_MAX_IMAGE },
		{ "max-clients", required_argument, NULL, O_MAX_CLIENTS },
		{ "idle-ms", required_argument, NULL, O_IDLE },
		{ "compile-timeout-s", required_argument, NULL, O_COMPILE_TIMEOUT },
		{ "foreground", no_argument, NULL, O_FOREGROUND },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	char perr[256];
	int o, lfd, ret;

	ane_opt_init("aned");
	while ((o = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("aned (libane) %s\n", ane_version());
			return 0;
		case O_FOREGROUND:
			opt.foreground = 1;
			break;
		case O_SOCKET:
			opt.socket = optarg;
			break;
		case O_POLICY:
			opt.policy = optarg;
			break;
		case O_NODE:
			opt.node = optarg;
			break;
		case O_CACHE:
			if (parse_mb("--cache-mb", optarg, &opt.cache_bytes))
				return ANE_OPT_USAGE;
			break;
		case O_MAX_IMAGE:
			if (parse_mb("--max-image-mb", optarg, &opt.max_image))
				return ANE_OPT_USAGE;
			if (opt.max_image > ANE_IMG_MAX_SIZE)
				opt.max_image = ANE_IMG_MAX_SIZE;
			break;
		case O_MAX_CLIENTS:
			if (ane_opt_uint("--max-clients", optarg, 1, 1u << 20, NULL,
					 &opt.max_clients))
				return ANE_OPT_USAGE;
			break;
		case O_IDLE:
			/* 0: unprepare as soon as a model is idle */
			if (ane_opt_u64("--idle-ms", optarg, 0, 86400000, "ms", &v))
				return ANE_OPT_USAGE;
			opt.idle_us = v * 1000;
			break;
		case O_COMPILE_TIMEOUT:
			if (ane_opt_u64("--compile-timeout-s", optarg, 1, 86400, "seconds", &v))
				return ANE_OPT_USAGE;
			opt.compile_timeout_us = v * 1000000;
			break;
		default:
			return ane_opt_bad(o, argv);
		}
	}
	if (ane_opt_operands(argc, argv, 0, 0, NULL))
		return ANE_OPT_USAGE;
	if (aned_policy_load(policy_path(), &policy, perr, sizeof(perr))) {
		logmsg("%s; exit status %d (configuration), which aned.service does not "
		       "restart on: fix the policy, then systemctl restart aned", perr,
		       ANED_EXIT_CONFIG);
		return ANED_EXIT_CONFIG;
	}
	signal(SIGPIPE, SIG_IGN);
	/* sd_event_add_child() needs SIGCHLD blocked (the compiler service). */
	{
		sigset_t ss;

		sigemptyset(&ss);
		sigaddset(&ss, SIGCHLD);
		sigprocmask(SIG_BLOCK, &ss, NULL);
	}
	ret = sd_event_default(&event);
	if (ret < 0) {
		logmsg("the event loop: %s", strerror(-ret));
		return 1;
	}
	lfd = listen_socket();
	if (lfd < 0)
		return 1;
	/*
	 * Open the device now: a broker that cannot reach it says so at once.
	 * Without one (the module not loaded yet) aned waits rather than
	 * exit into a restart loop: it serves, each method that needs the
	 * device fails with the reason, and the first one after the module
	 * is loaded opens it (ctl_get()).
	 */
	{
		sd_bus_error e = SD_BUS_ERROR_NULL;

		if (!ctl_get(&e)) {
			logmsg("%s; waiting: methods fail with this error until an ane device "
			       "appears (modprobe ane), then the next call opens it", e.message);
			sd_notifyf(0, "STATUS=waiting for an ane device: %s", e.message);
			sd_bus_error_free(&e);
		}
	}
	if (sd_event_add_defer(event, &reap_src, on_reap, NULL) < 0 ||
	    sd_event_source_set_enabled(reap_src, SD_EVENT_OFF) < 0 ||
	    sd_event_add_io(event, NULL, lfd, EPOLLIN, on_accept, NULL) < 0 ||
	    sd_event_add_signal(event, NULL, SIGTERM | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL) < 0 ||
	    sd_event_add_signal(event, NULL, SIGINT | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL) < 0 ||
	    sd_event_add_signal(event, NULL, SIGHUP | SD_EVENT_SIGNAL_PROCMASK, on_hup, NULL) < 0 ||
	    sd_event_add_time(event, &tick_src, CLOCK_MONOTONIC, 0, 1000, on_tick, NULL) < 0 ||
	    sd_event_source_set_enabled(tick_src, SD_EVENT_OFF) < 0) {
		logmsg("the event sources could not be set up");
		return 1;
	}
	logmsg("listening on %s, device %s, policy %s (%u rules), cache %" PRIu64 " MiB",
	       lfd == SD_LISTEN_FDS_START ? "the systemd socket" : opt.socket,
	       ctls ? ane_node(ctls->dev) : "none yet", policy_path(), policy.n,
	       opt.cache_bytes >> 20);
	sd_notify(0, "READY=1");
	ret = sd_event_loop(event);
	while (compiles) {
		kill(compiles->pid, SIGKILL);
		waitpid(compiles->pid, NULL, 0);
		compile_free(compiles);
	}
	/* Requests in flight finish before their surfaces and programs go. */
	while (inflight_jobs) {
		struct job *j = inflight_jobs;
		uint64_t ns;
		int st;

		inflight_jobs = j->next;
		ane_request_wait(j->m->ctl->dev, j->seqno, ane_deadline_ns(EVAL_TIMEOUT_NS), &st, &ns);
		if (st == ANE_REQUEST_PENDING)
			ane_request_wait(j->m->ctl->dev, j->seqno, ANE_WAIT_FOREVER, NULL, NULL);
		j->m->sets[j->set].busy = 0;
		job_free(j);
	}
	{
		struct model *m, *next;

		for (m = models; m; m = next) {
			m->refs++;	/* an instance goes with its last job */
			while (m->waitq) {
				struct job *j = m->waitq;

				m->waitq = j->next;
				job_free(j);
			}
			next = m->next;
			model_put(m);
		}
	}
	while (clients)
		client_free(clients);
	cache_evict(0, 2, 0);
	while (ctls) {
		struct ctl *c = ctls;

		ctls = c->next;
		sd_event_source_disable_unref(c->src);
		ane_close(c->dev);
		free(c);
	}
	sd_event_source_disable_unref(tick_src);
	sd_event_source_unref(reap_src);
	sd_event_unref(event);
	return ret < 0 ? 1 : 0;
}
