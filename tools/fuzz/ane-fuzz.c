// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: a structure-aware fuzzer of the ane driver's userspace ABI.
 *
 * Workers (--procs processes of --threads threads each) run random
 * sequences of operations on the ane nodes: the 26 selectors, the
 * driver's own ioctls, every DRM core ioctl of <drm/drm.h> and raw 'd'
 * numbers, with mmap, munmap, close, dup, fork and exit in between.  Each
 * worker keeps pools of what the kernel handed out (files, sessions,
 * surfaces, program tokens, device addresses, syncobjs, dma-bufs,
 * mappings) and feeds them back into arguments, valid or with one field
 * corrupted; with --inject a root injector drives the firmware's and the
 * DART's debugfs fault knobs meanwhile.
 *
 * Every operation draws its arguments from a 64-bit seed of its own, and
 * the worker's sequence of (operation, seed) pairs follows from --seed
 * alone, so a sequence replays exactly (--replay FILE, or --worker W to
 * regenerate one worker).  A supervisor watches the workers through
 * shared memory: a worker killed by a signal, an operation that does not
 * return within --hang-timeout, or an errno no correct kernel gives (EFAULT
 * on valid pointers, a kernel-internal errno, a wrongly encoded selector
 * that is not -EINVAL, nonzero reserved output) fails the run and prints
 * the seed and the worker's last operations as a reproducer.  After the
 * run a canary checks that the device still answers.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "fuzz.h"

/* ------------------------------------------------------------ options */

struct fuzz_opts opt = {
	.seed = 1, .time_s = 10, .procs = 2, .threads = 2, .user = -1,
	.ring = 32, .hang_s = 60, .only_worker = -1,
};

struct shm *shm;

int nworkers;		/* worker slots; the injector's is after them */

int excluded_op[OP_COUNT];

char excluded_drm[N_DRM_IOS];

struct rop *replay_ops;

size_t replay_n;

/* ------------------------------------------------------------ supervisor */

static void print_ring(FILE *f, int id, int k)
{
	struct wslot *sl = &shm->w[id];
	uint64_t n = sl->nops, first = n > (uint64_t)k ? n - k : 0, i;

	fprintf(f, "--- ane-fuzz reproducer: worker %d, operations %" PRIu64 "..%" PRIu64
		" (save as FILE; run: ane-fuzz --replay FILE) ---\n", id, first,
		n ? n - 1 : 0);
	fprintf(f, "# seed %" PRIu64 " worker %d worker-seed 0x%016" PRIx64 "\n", opt.seed,
		id, sl->seed);
	for (i = first; i < n; i++) {
		struct ring_ent *re = &sl->ring[i % RING_MAX];

		if (re->n != i)
			continue;
		fprintf(f, "op %" PRIu64 " %s 0x%016" PRIx64 "  # -> %s, %u us\n", i,
			op_name(re->op), re->seed, re->err < 0 ? "(running)" :
			errname(re->err), re->us);
	}
	fprintf(f, "--- end of reproducer ---\n");
	if (!replay_ops && id < nworkers)
		fprintf(f, "ane-fuzz: the whole sequence of worker %d, alone: ane-fuzz --seed %"
			PRIu64 " --worker %d --iterations %" PRIu64 "\n", id, opt.seed, id, n);
}

static void dump_task(int tid)
{
	char path[64], buf[4096];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/wchan", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			fprintf(stderr, "ane-fuzz: task %d waits in %s\n", tid, buf);
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			fprintf(stderr, "ane-fuzz: kernel stack of task %d:\n%s", tid, buf);
		}
	}
}

static const char *fail_kind(int k)
{
	switch (k) {
	case FAIL_SIGNAL: return "killed by a signal";
	case FAIL_HANG: return "hung";
	case FAIL_ERRNO: return "unexpected result";
	case FAIL_CHILD: return "fork child failed";
	case FAIL_EXIT: return "exited abnormally";
	default: return "failed";
	}
}

static void report_failure(int id)
{
	struct wslot *sl = &shm->w[id];

	fprintf(stderr, "ane-fuzz: FAIL: worker %d (pid %d, tid %d) %s", id, sl->pid, sl->tid,
	       fail_kind(sl->fail));
	if (sl->fail_sig)
		fprintf(stderr, " (signal %d, %s)", sl->fail_sig, strsignal(sl->fail_sig));
	fprintf(stderr, " in operation #%" PRIu64 " %s: %s\n", sl->nops ? sl->nops - 1 : 0,
	       op_name(sl->cur_op), sl->fail_msg[0] ? sl->fail_msg : "-");
	if (sl->note[0])
		fprintf(stderr, "ane-fuzz: that operation: %s\n", sl->note);
	fprintf(stderr, "ane-fuzz: seed %" PRIu64 " (worker %d seed 0x%016" PRIx64 ")\n",
	       opt.seed, id, sl->seed);
	print_ring(stderr, id, opt.ring);
	if (opt.inject && id != nworkers && !replay_ops) {
		fprintf(stderr, "ane-fuzz: the injector's last operations meanwhile:\n");
		print_ring(stderr, nworkers, 16);
	}
	fflush(stdout);
}

/* The device answers: DeviceOpen, GetVersion, GetStatus, a program runs. */
static int canary_child(const char *node)
{
	static const float in[16] = { -1, 2, -3, 4, 5, -6, 7, 8, 0, 1, 2, 3, 4, 5, 6, 7 };
	float out[16];
	const float *ins[1] = { in };
	float *outs[1] = { out };
	struct drm_ane_status st = { 0 };
	uint32_t uapi, hw, minor;
	struct ane_dev *dev;
	struct ane_net *net;
	char err[256];
	int ret, i, x;

	ret = ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ane-fuzz: canary: DeviceOpen of %s failed: %s\n", node, err);
		return 1;
	}
	ret = ane_get_version(dev, &uapi, &hw, &minor);
	if (ret) {
		fprintf(stderr, "ane-fuzz: canary: GetVersion failed: %s\n", ane_errmsg(dev));
		return 1;
	}
	/*
	 * The firmware is back to ready within 30 s, whatever was injected;
	 * or powered down idle (runtime PM), which the canary's own request
	 * powers up again.
	 */
	for (i = 0; i < 300; i++) {
		ret = ane_get_status(dev, &st);
		if (ret || st.fw_state == ANE_FW_STATE_READY ||
		    st.fw_state == ANE_FW_STATE_SUSPENDED)
			break;
		usleep(100000);
	}
	if (ret || (st.fw_state != ANE_FW_STATE_READY &&
		    st.fw_state != ANE_FW_STATE_SUSPENDED)) {
		fprintf(stderr, "ane-fuzz: canary: firmware not ready after 30 s: %s (%s)\n",
		       ret ? ane_errmsg(dev) : "", ane_fw_state_name(st.fw_state));
		return 1;
	}
	if (ane_net_create(&net))
		return 1;
	x = ane_net_input(net, "x", 1, 1, 4, 4);
	ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
	ret = ane_net_run(dev, net, ins, outs);
	ane_net_destroy(net);
	if (ret) {
		fprintf(stderr, "ane-fuzz: canary: a program run failed: %s\n", ane_errmsg(dev));
		return 1;
	}
	for (i = 0; i < 16; i++)
		if (out[i] != (in[i] > 0 ? in[i] : 0)) {
			fprintf(stderr, "ane-fuzz: canary: wrong result %g at %d\n", out[i], i);
			return 1;
		}
	printf("ane-fuzz: canary: %s answers: uapi %u, hw 0x%x.%u, firmware %s, a program ran\n",
	       node, uapi, hw, minor, ane_fw_state_name(st.fw_state));
	ane_close(dev);
	return 0;
}

/* The debugfs file @name of node @node on stderr, for a failure report. */
static void dump_debugfs(int node, const char *name)
{
	char path[400], buf[2048];
	ssize_t n;
	int fd;

	if (!debugfs_dir[node][0])
		return;
	snprintf(path, sizeof(path), "%.300s/%s", debugfs_dir[node], name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		fprintf(stderr, "ane-fuzz: %s:\n%s", path, buf);
	}
}

/*
 * With every client gone, the device's memory charge (debugfs "memory",
 * root only) must return to zero: anything left is a leaked object or a
 * leaked charge.  Returns 1 on a leak.
 */
static int charge_leak(void)
{
	int i, t, bad = 0;

	for (i = 0; i < opt.nnodes; i++) {
		char path[400], buf[512], node[64], *p;
		long long charged = -1;

		if (!debugfs_dir[i][0])
			continue;
		snprintf(path, sizeof(path), "%.300s/memory", debugfs_dir[i]);
		for (t = 0; t < 100; t++) {	/* 10 s for deferred frees */
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			ssize_t n;

			if (fd < 0)
				break;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n <= 0)
				break;
			buf[n] = 0;
			p = strstr(buf, "charged ");
			if (!p)
				break;
			charged = strtoll(p + 8, NULL, 10);
			if (!charged)
				break;
			usleep(100000);
		}
		if (charged > 0) {
			node_path(i, node, sizeof(node));
			fprintf(stderr, "ane-fuzz: leak: %s charges %lld bytes with no client open\n",
			       node, charged);
			dump_debugfs(i, "memory");
			bad = 1;
		}
	}
	return bad;
}

static int canary(void)
{
	int i, bad = 0;

	for (i = 0; i < opt.nnodes; i++) {
		int st = 0, waited = 0;
		char node[64];
		pid_t pid;

		node_path(i, node, sizeof(node));
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(canary_child(node));
		while (waited < 600) {
			pid_t p = waitpid(pid, &st, WNOHANG);

			if (p == pid)
				break;
			usleep(100000);
			waited++;
		}
		if (waited >= 600) {
			fprintf(stderr, "ane-fuzz: canary: %s does not answer within 60 s\n", node);
			dump_task(pid);
			kill(pid, SIGKILL);
			bad = 1;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			if (WIFSIGNALED(st))
				fprintf(stderr, "ane-fuzz: canary: killed by signal %d\n", WTERMSIG(st));
			bad = 1;
		}
		if (bad)
			dump_debugfs(i, "memory");
	}
	return bad;
}

static void find_debugfs(void)
{
	int i;

	if (geteuid() != 0)
		return;
	if (access("/sys/kernel/debug/accel", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	for (i = 0; i < opt.nnodes; i++) {
		char path[256], link[256], *dev;
		ssize_t n;

		snprintf(path, sizeof(path), "/sys/class/accel/%s/device",
			 strrchr(opt.nodes[i], '/') + 1);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		dev = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		snprintf(platdev[i], sizeof(platdev[i]), "%.31s", dev);
		snprintf(debugfs_dir[i], sizeof(debugfs_dir[i]),
			 "/sys/kernel/debug/accel/%s", dev);
		if (access(debugfs_dir[i], F_OK))
			debugfs_dir[i][0] = 0;
	}
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_WORKERS + 1];
	int nprocs, i, k, failed = 0, passed = 0, hung = 0;
	uint64_t t0, deadline, total = 0, calls = 0;
	double secs;
	size_t shm_size;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_args(argc, argv))
		return 2;
	if (!opt.nnodes) {
		while (opt.nnodes < MAX_NODES &&
		       !ane_find_node((unsigned int)opt.nnodes, opt.nodes[opt.nnodes],
				      sizeof(opt.nodes[0])))
			opt.nnodes++;
	}
	if (!opt.nnodes) {
		fprintf(stderr, "ane-fuzz: no ane node found (is ane.ko loaded?)\n");
		printf("ane-fuzz: 0 passed, 1 failed\n");
		return 1;
	}
	for (i = 0; i < NIMG; i++)
		if (build_one(i, &imgs[i])) {
			printf("ane-fuzz: 0 passed, 1 failed\n");
			return 1;
		}
	find_debugfs();
	if (geteuid() == 0 && (opt.inject || opt.replay))
		knobs_save();
	if (opt.user >= 0)
		for (i = 0; i < opt.nnodes; i++)
			if (chmod(opt.nodes[i], 0666))
				fprintf(stderr, "ane-fuzz: chmod %s: %s\n", opt.nodes[i],
					strerror(errno));

	nworkers = opt.procs * opt.threads;
	shm_size = sizeof(struct shm) + (size_t)(nworkers + 1) * sizeof(struct wslot);
	shm = mmap(NULL, shm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("ane-fuzz: mmap");
		return 2;
	}
	shm->nslots = nworkers + 1;
	for (i = 0; i < opt.nnodes; i++)
		node_set(i, opt.nodes[i]);
	if (geteuid() == 0)
		set_oom_adj("-1000");

	printf("ane-fuzz: seed %" PRIu64 ", %d process%s x %d thread%s, %s%s, node%s",
	       opt.seed, opt.procs, opt.procs > 1 ? "es" : "", opt.threads,
	       opt.threads > 1 ? "s" : "", opt.inject ? "injection on" : "no injection",
	       opt.user >= 0 ? ", unprivileged workers" : "", opt.nnodes > 1 ? "s" : "");
	for (i = 0; i < opt.nnodes; i++)
		printf(" %s", opt.nodes[i]);
	if (opt.replay)
		printf(", replaying %zu operations of %s", replay_n, opt.replay);
	else if (opt.time_s > 0)
		printf(", %.0f s", opt.time_s);
	if (opt.iterations)
		printf(", %" PRIu64 " operations per worker", opt.iterations);
	printf("\n");
	fflush(stdout);

	t0 = now_ns();
	deadline = opt.time_s > 0 && !opt.replay ? t0 + (uint64_t)(opt.time_s * 1e9) : 0;
	nprocs = opt.procs;
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			proc_main(i * opt.threads, opt.threads, 1);
	}
	if (opt.inject && !opt.replay && opt.only_worker < 0) {
		pids[nprocs] = fork();
		if (pids[nprocs] == 0)
			proc_main(nworkers, 1, 0);
		nprocs++;
	}

	/* Watch: exits, signals, hangs, the deadline. */
	for (;;) {
		int alive = 0;
		uint64_t now = now_ns();

		for (i = 0; i < nprocs; i++) {
			int st;

			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				int base = i * opt.threads, n = opt.threads;

				if (i == opt.procs) {
					base = nworkers;
					n = 1;
				}
				if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st))) {
					for (k = base; k < base + n; k++) {
						if (shm->w[k].fail)
							continue;
						if (WIFSIGNALED(st) && shm->w[k].state == 1) {
							shm->w[k].fail = FAIL_SIGNAL;
							shm->w[k].fail_sig = WTERMSIG(st);
							snprintf(shm->w[k].fail_msg, sizeof(shm->w[k].fail_msg),
								 "process %d killed by signal %d%s", pids[i],
								 WTERMSIG(st), WTERMSIG(st) == SIGKILL ?
								 " (the OOM killer, or a kernel Oops: see the kernel log)" : "");
						} else if (WIFEXITED(st)) {
							shm->w[k].fail = FAIL_EXIT;
							snprintf(shm->w[k].fail_msg, sizeof(shm->w[k].fail_msg),
								 "process %d exited with status %d", pids[i],
								 WEXITSTATUS(st));
						}
					}
					shm->failed = 1;
					shm->stop = 1;
				}
				pids[i] = 0;
				continue;
			}
			alive++;
		}
		if (!alive)
			break;
		for (k = 0; k <= nworkers; k++) {
			struct wslot *sl = &shm->w[k];
			uint64_t s = sl->op_start_ns, cs = sl->child_start_ns;

			if (sl->fail)
				continue;
			if (s && now > s && now - s > (uint64_t)opt.hang_s * 1000000000ull) {
				sl->fail = FAIL_HANG;
				snprintf(sl->fail_msg, sizeof(sl->fail_msg),
					 "operation %s running for more than %d s", op_name(sl->cur_op),
					 opt.hang_s);
				hung = 1;
				dump_task(sl->tid);
			} else if (cs && sl->child_pid && now > cs &&
				   now - cs > (uint64_t)opt.hang_s * 1000000000ull) {
				sl->fail = FAIL_HANG;
				snprintf(sl->fail_msg, sizeof(sl->fail_msg),
					 "fork child %d hung in %s for more than %d s", sl->child_pid,
					 op_name(sl->child_op), opt.hang_s);
				hung = 1;
				dump_task(sl->child_pid);
			}
			if (sl->fail == FAIL_HANG) {
				hung = 1;
				shm->failed = 1;
				shm->stop = 1;
			}
		}
		if (deadline && now > deadline)
			shm->stop = 1;
		if (hung) {
			/* what is stuck in the kernel stays; give the rest 10 s */
			uint64_t until = now_ns() + 10000000000ull;

			while (now_ns() < until) {
				int left = 0;

				for (i = 0; i < nprocs; i++)
					if (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) != pids[i])
						left++;
					else
						pids[i] = 0;
				if (!left)
					break;
				usleep(100000);
			}
			for (i = 0; i < nprocs; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGKILL);
			break;
		}
		usleep(50000);
	}
	secs = (double)(now_ns() - t0) / 1e9;

	/* Report. */
	for (k = 0; k <= nworkers; k++) {
		struct wslot *sl = &shm->w[k];

		if (k == nworkers && !(opt.inject && !opt.replay && opt.only_worker < 0))
			break;
		total += sl->nops;
		calls += sl->calls;
		if (!sl->fail && sl->state != 2) {
			sl->fail = FAIL_HANG;
			snprintf(sl->fail_msg, sizeof(sl->fail_msg),
				 "did not finish: %s", sl->op_start_ns ?
				 "stuck in the kernel in this operation" : "its process did not exit");
		}
		if (sl->fail) {
			report_failure(k);
			failed++;
		} else {
			passed++;
		}
	}
	printf("ane-fuzz: %" PRIu64 " operations (%" PRIu64 " system calls) in %.1f s: %.0f ops/s\n",
	       total, calls, secs, secs > 0 ? (double)total / secs : 0.0);
	{
		static uint64_t sum[ERRNO_MAX];
		char line[4096];
		size_t len = 0;
		int e;

		memset(sum, 0, sizeof(sum));
		for (k = 0; k <= nworkers; k++)
			for (e = 0; e < ERRNO_MAX; e++)
				sum[e] += shm->w[k].errs[e];
		len += snprintf(line + len, sizeof(line) - len, "ane-fuzz: results:");
		for (e = 0; e < ERRNO_MAX && len < sizeof(line) - 64; e++)
			if (sum[e])
				len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64,
						errname(e), sum[e]);
		printf("%s\n", line);
		len = 0;
		len += snprintf(line + len, sizeof(line) - len, "ane-fuzz: operations:");
		for (i = 0; i < OP_COUNT && len < sizeof(line) - 64; i++) {
			uint64_t c = 0;

			for (k = 0; k <= nworkers; k++)
				c += shm->w[k].opcount[i];
			if (c)
				len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64,
						op_name(i), c);
		}
		printf("%s\n", line);
	}
	if (geteuid() == 0 && (opt.inject || opt.replay))
		knobs_restore();
	if (opt.inject && geteuid() == 0)
		for (i = 0; i < opt.nnodes; i++)
			if (debugfs_dir[i][0]) {
				char path[400];

				snprintf(path, sizeof(path), "%.300s/fw_inject", debugfs_dir[i]);
				inject_write(path, "unhang");
			}
	if (opt.unplug)
		printf("ane-fuzz: %lu unbinds and binds again\n", shm->unplugs);
	if (!hung && charge_leak())
		failed++;
	if (hung) {
		fprintf(stderr, "ane-fuzz: canary skipped: an operation is stuck in the kernel\n");
		failed++;
	} else if (canary()) {
		failed++;
	} else {
		passed++;
	}
	if (failed)
		fprintf(stderr, "ane-fuzz: FAILED with seed %" PRIu64 "\n", opt.seed);
	printf("ane-fuzz: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
