// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: mmap, munmap and touching mappings, open, close, dup, sharing
 * fds, reading events, running requests, fdinfo, sysfs, and the
 * injector's debugfs fault knobs, runtime PM and module parameters.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "fuzz.h"

/* ------------------------------------------------------------ memory */

int op_mmap(struct worker *w, struct rng *r)
{
	struct surf *sf = pick_surf(w, r, -1);
	int k = rn(r, NMAP), prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED, fd;
	size_t len;
	off_t off;
	void *p;

	if (!sf)
		return 0;
	fd = w->fds[sf->fdi].fd;
	len = sf->size;
	off = (off_t)sf->offset;
	if (chance(r, 10)) {
		int x = pick_xfd(w, r);

		if (x >= 0) {
			fd = x;
			off = 0;
			len = 16384;
		}
	}
	if (chance(r, 15))
		prot = PROT_READ;
	if (chance(r, 10)) {
		switch (rn(r, 4)) {
		case 0:
			len += 16384;
			break;
		case 1:
			off += 4096;
			break;
		case 2:
			flags = MAP_PRIVATE;
			break;
		default:
			off = (off_t)(interesting(r) & ~4095ull & 0x7fffffffffffull);
			break;
		}
	}
	if (w->m[k].p)
		munmap(w->m[k].p, w->m[k].len);
	w->m[k].p = NULL;
	note(w, "mmap len %zu off 0x%llx prot %d flags %d", len, (unsigned long long)off,
	     prot, flags);
	p = mmap(NULL, len, prot, flags, fd, off);
	count_err(w, p == MAP_FAILED ? errno : 0);
	w->last_err = p == MAP_FAILED ? errno : 0;
	if (p == MAP_FAILED)
		return w->last_err;
	w->m[k].p = p;
	w->m[k].len = len;
	if (!(prot & PROT_WRITE) || flags != MAP_SHARED) {
		munmap(p, len);		/* touch would fault on it: by design */
		w->m[k].p = NULL;
	}
	return 0;
}

int op_munmap(struct worker *w, struct rng *r)
{
	int k = rn(r, NMAP);
	size_t len;

	if (!w->m[k].p)
		return 0;
	len = w->m[k].len;
	if (chance(r, 20) && len > 16384) {	/* the head only */
		munmap(w->m[k].p, 16384);
		w->m[k].p += 16384;
		w->m[k].len -= 16384;
		return 0;
	}
	munmap(w->m[k].p, len);
	w->m[k].p = NULL;
	return 0;
}

/* Mappings of surfaces stay valid whatever happens to handles and files. */
int op_touch(struct worker *w, struct rng *r)
{
	int k = rn(r, NMAP);
	volatile uint8_t *p = w->m[k].p;
	size_t off, i;

	if (!p)
		return 0;
	off = rn(r, (uint32_t)w->m[k].len);
	note(w, "touch mapping %d at +%zu of %zu", k, off, w->m[k].len);
	for (i = 0; i < 64 && off + i < w->m[k].len; i++) {
		if (chance(r, 50))
			p[off + i] = (uint8_t)rnd(r);
		else
			(void)p[off + i];
	}
	return 0;
}

/* ------------------------------------------------------------ files */

int op_open(struct worker *w, struct rng *r)
{
	int fdi = rn(r, NFD);

	if (slot_open(w, fdi, r))
		return w->last_err;
	if (chance(r, 70))
		return device_open(w, fdi, rn(r, 2), r, 0);
	return 0;
}

int op_close(struct worker *w, struct rng *r)
{
	int fdi = rn(r, NFD);

	if (chance(r, 15)) {		/* everything at once, as at exit */
		for (fdi = 0; fdi < NFD; fdi++)
			slot_close(w, fdi);
		return 0;
	}
	if (chance(r, 20)) {
		int k = rn(r, NXFD);

		if (w->xfd[k] >= 0)
			close(w->xfd[k]);
		w->xfd[k] = -1;
		return 0;
	}
	slot_close(w, fdi);
	return 0;
}

int op_dup(struct worker *w, struct rng *r)
{
	int from = rn(r, NFD), to = rn(r, NFD), fd;
	struct fdent e;

	if (!live_fd(w, from) || from == to)
		return 0;
	e = w->fds[from];
	fd = fcntl(e.fd, F_DUPFD_CLOEXEC, 0);
	count_err(w, fd < 0 ? errno : 0);
	if (fd < 0)
		return errno;
	slot_close(w, to);
	w->fds[to].fd = fd;
	w->fds[to].node = e.node;
	w->fds[to].kind = e.kind;
	w->fds[to].open = e.open;
	w->fds[to].token = e.token;
	return 0;
}

/* Hand a file to, or take one from, the other threads of the process. */
int op_share(struct worker *w, struct rng *r)
{
	int k = rn(r, NSHARE), fdi = rn(r, NFD), fd;

	if (w->in_child)
		return 0;
	pthread_mutex_lock(&share_lock);
	if (chance(r, 50) && live_fd(w, fdi)) {
		fd = fcntl(w->fds[fdi].fd, F_DUPFD_CLOEXEC, 0);
		if (fd >= 0) {
			if (share_fd[k] >= 0)
				close(share_fd[k]);
			share_fd[k] = fd;
		}
	} else if (share_fd[k] >= 0) {
		fd = fcntl(share_fd[k], F_DUPFD_CLOEXEC, 0);
		if (fd >= 0) {
			slot_close(w, fdi);
			w->fds[fdi].fd = fd;
			/* its state is unknown here: another thread's client */
			w->fds[fdi].kind = rn(r, 2);
			w->fds[fdi].open = 1;
		}
	}
	pthread_mutex_unlock(&share_lock);
	return 0;
}

int op_read(struct worker *w, struct rng *r)
{
	int fdi = pick_fd(w, r, 0), fl;
	struct pollfd pfd;
	ssize_t n;
	size_t len;

	if (!live_fd(w, fdi))
		return 0;
	pfd.fd = w->fds[fdi].fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)rn(r, 20)) <= 0 || !(pfd.revents & POLLIN))
		return 0;
	fl = fcntl(pfd.fd, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(pfd.fd, F_SETFL, fl | O_NONBLOCK);
	len = chance(r, 80) ? 4096 : rn(r, 64);
	n = read(pfd.fd, w->scratch, len);
	count_err(w, n < 0 ? errno : 0);
	w->last_err = n < 0 ? errno : 0;
	if (n > 0) {
		size_t off = 0;

		while (off + sizeof(struct drm_event) <= (size_t)n) {
			struct drm_event *ev = (void *)(w->scratch + off);

			if (ev->length < sizeof(*ev) || off + ev->length > (size_t)n) {
				fail(w, FAIL_ERRNO, "read returned a malformed event (type 0x%x length %u at %zu of %zd)",
				     ev->type, ev->length, off, n);
				break;
			}
			off += ev->length;
		}
	}
	return w->last_err;
}

/* The valid path end to end: create, prepare, surfaces, submit, wait. */
int op_run(struct worker *w, struct rng *r)
{
	struct prog *p = pick_prog(w, r, 1);
	struct drm_ane_send_request *q = (void *)w->scratch;
	unsigned int i, nin, nout;
	struct pollfd pfd;
	int e;

	if (!p || !live_fd(w, p->fdi))
		return 0;
	if (!p->prepared)
		program_prepare(w, p, r);
	memset(q, 0, sizeof(*q));
	q->in.token = p->token;
	q->in.sequence = p->seq;
	q->in.qos_class = 5;
	q->in.exec_priority = 21;
	q->in.io_category = 2;
	nin = imgs[p->img].nin;
	nout = imgs[p->img].nout;
	for (i = 0; i < nin + nout; i++) {
		struct surf *sf = pick_surf(w, r, p->fdi);

		if (!sf)
			return 0;
		q->in.surfaces[i].handle = sf->handle;
		q->in.surfaces[i].kind = i < nin ? ANE_SURFACE_INPUT : ANE_SURFACE_OUTPUT;
		q->in.surfaces[i].bar = (uint8_t)(i < nin ? i : i - nin);
	}
	note(w, "run token 0x%" PRIx64 " seq %" PRIu64 " image %d on fd slot %d",
	     p->token, p->seq, p->img, p->fdi);
	e = xioctl(w, w->fds[p->fdi].fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, q, 1,
		   "ctl.SendRequest");
	if (e)
		return e;
	p->seq++;
	pfd.fd = w->fds[p->fdi].fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)rn(r, 100)) > 0 && (pfd.revents & POLLIN)) {
		int fl = fcntl(pfd.fd, F_GETFL);

		if (fl >= 0 && !(fl & O_NONBLOCK))
			fcntl(pfd.fd, F_SETFL, fl | O_NONBLOCK);
		if (read(pfd.fd, w->scratch, 4096) < 0)
			count_err(w, errno);
	}
	return 0;
}

int op_fdinfo(struct worker *w, struct rng *r)
{
	int fdi = rn(r, NFD), fd;
	char path[64];
	ssize_t n;

	if (!live_fd(w, fdi))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", w->fds[fdi].fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, w->scratch, 4096);
	close(fd);
	return n < 0 ? errno : 0;
}

char debugfs_dir[MAX_NODES][320];
/* each node's platform device ("ane.0"), for --unplug; "" if unknown */
char platdev[MAX_NODES][32];

/* Node @node's current path (see struct shm_node). */
void node_path(int node, char *buf, size_t len)
{
	struct shm_node *n = &shm->node[node];
	char tmp[sizeof(n->path)];
	unsigned int seq;

	do {
		while ((seq = n->seq) & 1)
			sched_yield();
		__sync_synchronize();
		memcpy(tmp, n->path, sizeof(tmp));
		__sync_synchronize();
	} while (n->seq != seq);
	tmp[sizeof(tmp) - 1] = 0;
	snprintf(buf, len, "%s", tmp);
}

/* The one writer: the supervisor before the workers start, then the injector. */
void node_set(int node, const char *path)
{
	struct shm_node *n = &shm->node[node];

	n->seq++;
	__sync_synchronize();
	snprintf(n->path, sizeof(n->path), "%s", path);
	__sync_synchronize();
	n->seq++;
}

int op_sysfs(struct worker *w, struct rng *r)
{
	static const char *const dbg[] = {
		"fw_state", "fw_status", "fw_log", "fw_crash", "fw_ping", "dart",
		"dart_faults", "dart_mappings", "dart_tables", "name", "clients",
		"gem_names", "memory", "fw_programs", "shared_memory",
		"model_memory",
	};
	/* the device's directory: properties/, its health, runtime PM */
	static const char *const props[] = {
		"properties/architecture", "properties/version",
		"properties/minor_version", "properties/board_type",
		"properties/board_subtype", "properties/num_cores",
		"properties/num_engines", "properties/cpu_subtype",
		"properties/internal_build", "engine_cores", "engine_split_ops",
		"busy_time_us", "firmware_state", "recoveries",
		"throttle_percent", "power/runtime_status",
		"power/runtime_active_time", "power/autosuspend_delay_ms",
	};
	int node = rn(r, opt.nnodes), fd;
	char path[400];
	ssize_t n;

	if (chance(r, 50) && debugfs_dir[node][0])
		snprintf(path, sizeof(path), "%s/%s", debugfs_dir[node],
			 dbg[rn(r, sizeof(dbg) / sizeof(dbg[0]))]);
	else
	{
		char nodep[64];

		node_path(node, nodep, sizeof(nodep));
		snprintf(path, sizeof(path), "/sys/class/accel/%s/device/%s",
			 strrchr(nodep, '/') + 1,
			 props[rn(r, sizeof(props) / sizeof(props[0]))]);
	}
	note(w, "read %s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while ((n = read(fd, w->scratch, SCRATCH)) > 0)
		;
	close(fd);
	return n < 0 ? errno : 0;
}

/* ------------------------------------------------------------ injection */

int inject_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		e = errno;
	close(fd);
	return e;
}

static uint64_t last_crash_ns;

/*
 * --unplug: unbind device @node (every client's calls fail with -ENODEV
 * from then on, whatever they were doing), wait up to 300 ms, bind it
 * again and give the workers its new node.  A bind that fails, or a
 * device that comes back without a node, fails the run.
 */
static int op_unplug(struct worker *w, struct rng *r, int node)
{
	unsigned int ms = rn(r, 300);
	char dir[128], path[64] = "";
	struct dirent *de;
	DIR *d;
	int e, t;

	note(w, "unbind %s, %u ms, bind it again", platdev[node], ms);
	e = inject_write("/sys/bus/platform/drivers/ane/unbind", platdev[node]);
	if (e) {
		fail(w, FAIL_ERRNO, "unbind %s: %s", platdev[node], strerror(e));
		return e;
	}
	usleep(ms * 1000);
	e = inject_write("/sys/bus/platform/drivers/ane/bind", platdev[node]);
	if (e) {
		fail(w, FAIL_ERRNO, "bind %s again: %s", platdev[node], strerror(e));
		return e;
	}
	snprintf(dir, sizeof(dir), "/sys/bus/platform/devices/%s/accel", platdev[node]);
	for (t = 0; t < 50 && !path[0]; t++) {	/* udev-less: devtmpfs, at once */
		d = opendir(dir);
		while (d && (de = readdir(d)))
			if (!strncmp(de->d_name, "accel", 5) && de->d_name[5])
				snprintf(path, sizeof(path), "/dev/accel/%.40s", de->d_name);
		if (d)
			closedir(d);
		if (path[0] && access(path, F_OK))
			path[0] = 0;
		if (!path[0])
			usleep(20000);
	}
	if (!path[0]) {
		fail(w, FAIL_ERRNO, "%s bound again has no node in %s", platdev[node], dir);
		return ENODEV;
	}
	if (opt.user >= 0 && chmod(path, 0666))
		fprintf(stderr, "ane-fuzz: chmod %s: %s\n", path, strerror(errno));
	node_set(node, path);
	shm->unplugs++;
	return 0;
}

/*
 * The module parameters a root user may change while clients run (not
 * the capability ones: they would change what the workers may do) and
 * the values the injector writes; the supervisor puts the run's first
 * values back before its own checks (knobs_save(), knobs_restore()).
 */
static const struct {
	const char *name;
	const char *vals[5];
} knob_params[] = {
	{ "host_spin_us", { "0", "1", "20", "100" } },
	{ "fw_idle_poll_us", { "0", "5", "200", "1000" } },
	{ "engine_cores", { "0", "1", "3", "16" } },
	{ "wait_timeout_ms", { "1", "50", "1000", "10000" } },
	{ "mem_device_mb", { "0", "2", "16", "64" } },
	{ "mem_client_mb", { "0", "1", "8", "32" } },
	{ "max_image_mb", { "0", "1", "4" } },
	{ "max_surface_mb", { "0", "1", "4" } },
};
#define NKNOB_PARAMS	(sizeof(knob_params) / sizeof(knob_params[0]))
static char knob_saved[NKNOB_PARAMS][24];
static char pm_saved[MAX_NODES][2][24];	/* power/control, autosuspend */
static const char *const pm_files[2] = { "control", "autosuspend_delay_ms" };

static void read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* The supervisor, before the injector starts. */
void knobs_save(void)
{
	char path[400];
	size_t i, k;

	for (i = 0; i < NKNOB_PARAMS; i++) {
		snprintf(path, sizeof(path), "/sys/module/ane/parameters/%s",
			 knob_params[i].name);
		read_line(path, knob_saved[i], sizeof(knob_saved[i]));
	}
	for (i = 0; i < (size_t)opt.nnodes; i++)
		for (k = 0; k < 2 && platdev[i][0]; k++) {
			snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s/power/%s",
				 platdev[i], pm_files[k]);
			read_line(path, pm_saved[i][k], sizeof(pm_saved[i][k]));
		}
}

/* The supervisor, with the workers and the injector gone. */
void knobs_restore(void)
{
	char path[400];
	size_t i, k;

	for (i = 0; i < NKNOB_PARAMS; i++) {
		if (!knob_saved[i][0])
			continue;
		snprintf(path, sizeof(path), "/sys/module/ane/parameters/%s",
			 knob_params[i].name);
		inject_write(path, knob_saved[i]);
	}
	for (i = 0; i < (size_t)opt.nnodes; i++)
		for (k = 0; k < 2 && platdev[i][0]; k++) {
			if (!pm_saved[i][k][0])
				continue;
			snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s/power/%s",
				 platdev[i], pm_files[k]);
			inject_write(path, pm_saved[i][k]);
		}
}

/*
 * A knob of the running driver: the device's runtime PM (power/control
 * "on" or "auto", power/autosuspend_delay_ms down to 0: suspend and
 * resume between and under the workers' calls) or a module parameter
 * the driver reads at each operation (limits, spins, cores, timeouts).
 */
static int op_knob(struct worker *w, struct rng *r, int node)
{
	static const char *const delays[] = { "0", "1", "20", "300", "-1" };
	char path[400];
	const char *val;
	int e;

	if (platdev[node][0] && chance(r, 50)) {
		int k = rn(r, 2);

		snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s/power/%s",
			 platdev[node], pm_files[k]);
		val = k ? delays[rn(r, 5)] : chance(r, 50) ? "on" : "auto";
	} else {
		size_t i = rn(r, NKNOB_PARAMS), nv = 0;

		while (nv < 5 && knob_params[i].vals[nv])
			nv++;
		snprintf(path, sizeof(path), "/sys/module/ane/parameters/%s",
			 knob_params[i].name);
		val = knob_params[i].vals[rn(r, nv)];
	}
	note(w, "echo '%s' > %s", val, path);
	e = inject_write(path, val);
	count_err(w, e);
	return e;
}

int op_inject(struct worker *w, struct rng *r)
{
	int node = rn(r, opt.nnodes), e;
	char path[400], cmd[32];
	unsigned int x = rn(r, 100);

	if (opt.unplug && platdev[node][0] && chance(r, 10))
		return op_unplug(w, r, node);
	if (chance(r, 20))
		return op_knob(w, r, node);
	if (!debugfs_dir[node][0])
		return 0;
	if (x < 30) {
		snprintf(path, sizeof(path), "%s/dart_evict", debugfs_dir[node]);
		snprintf(cmd, sizeof(cmd), "1");
	} else {
		snprintf(path, sizeof(path), "%s/fw_inject", debugfs_dir[node]);
		if (x < 45) {
			/* under the recovery rate limit: 3 a minute */
			if (last_crash_ns && now_ns() - last_crash_ns < 25000000000ull)
				snprintf(cmd, sizeof(cmd), "unhang");
			else
				snprintf(cmd, sizeof(cmd), "crash");
		} else if (x < 60) {
			snprintf(cmd, sizeof(cmd), "hang %u", rn(r, 9));
		} else if (x < 80) {
			snprintf(cmd, sizeof(cmd), "unhang");
		} else if (x < 88) {
			snprintf(cmd, sizeof(cmd), "abort-stuck %u", rn(r, 9));
		} else if (x < 96) {
			snprintf(cmd, sizeof(cmd), "deadline %u", 200 + rn(r, 3000));
		} else if (x < 98) {
			snprintf(cmd, sizeof(cmd), "stall-boot %u", rn(r, 2));
		} else {
			snprintf(cmd, sizeof(cmd), "%s", chance(r, 50) ? "reboot" : "bogus 1");
		}
		if (!strcmp(cmd, "crash"))
			last_crash_ns = now_ns();
	}
	note(w, "echo '%s' > %s", cmd, path);
	e = inject_write(path, cmd);
	count_err(w, e);
	return e;
}
