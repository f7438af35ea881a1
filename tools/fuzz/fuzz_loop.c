// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: a worker's loop of (operation, seed) pairs, fork and exit in
 * between, and the worker processes and threads.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "fuzz.h"

/* ------------------------------------------------------------ the loop */

static int pick_op(uint64_t seed, int injector)
{
	struct rng r = { seed ^ 0x5bd1e995u };
	unsigned int total = 0, x;
	int op;

	if (injector)
		return OP_INJECT;
	for (op = 0; op < OP_COUNT; op++)
		total += excluded_op[op] ? 0 : op_weight(op);
	x = rn(&r, total);
	for (op = 0; op < OP_COUNT; op++) {
		unsigned int wt = excluded_op[op] ? 0 : op_weight(op);

		if (x < wt)
			return op;
		x -= wt;
	}
	return OP_OPEN;
}

static void reap_kids(struct worker *w, int block)
{
	int i, st;

	for (i = 0; i < NKIDS; i++) {
		pid_t p;

		if (w->kids[i] <= 0)
			continue;
		p = waitpid(w->kids[i], &st, block ? 0 : WNOHANG);
		if (p == 0)
			continue;
		if (p == w->kids[i] && WIFSIGNALED(st))
			fail(w, FAIL_CHILD, "fork child %d was killed by signal %d (%s)",
			     p, WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (p == w->kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 3)
			fail(w, FAIL_CHILD, "fork child %d found an error", p);
		w->kids[i] = 0;
		w->slot->child_pid = 0;
	}
}

/* fork(): the child runs a few operations on the inherited pools and exits. */
static int op_fork(struct worker *w, struct rng *r)
{
	int k = rn(r, NKIDS), n = 1 + rn(r, 12), i;
	pid_t pid;

	if (w->in_child)
		return 0;
	if (w->kids[k] > 0) {
		int st;

		if (waitpid(w->kids[k], &st, 0) == w->kids[k] && WIFSIGNALED(st))
			fail(w, FAIL_CHILD, "fork child %d was killed by signal %d (%s)",
			     w->kids[k], WTERMSIG(st), strsignal(WTERMSIG(st)));
		w->kids[k] = 0;
	}
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		struct rng cr = { rnd(r) };

		w->in_child = 1;
		forked_child = 1;
		w->slot->child_pid = getpid();
		for (i = 0; i < n && !shm->stop && !w->slot->fail; i++) {
			int op = pick_op(rnd(&cr), 0);

			if (op == OP_FORK || op == OP_SHARE || op == OP_REAP)
				continue;
			w->slot->child_op = op;
			w->slot->child_start_ns = now_ns();
			run_op(w, op, rnd(&cr));
			w->slot->child_start_ns = 0;
		}
		if (chance(r, 30))
			for (i = 0; i < NFD; i++)
				slot_close(w, i);
		_exit(w->slot->fail ? 3 : 0);
	}
	w->kids[k] = pid;
	return 0;
}

int run_op(struct worker *w, int op, uint64_t seed)
{
	struct rng r = { seed };

	w->note[0] = 0;
	if (!w->in_child)
		w->slot->note[0] = 0;
	w->last_err = 0;
	if (op >= OP_SEL0 && op < OP_SEL0 + 26)
		return op_selector(w, &r, op - OP_SEL0);
	switch (op) {
	case OP_OPEN: return op_open(w, &r);
	case OP_CLOSE: return op_close(w, &r);
	case OP_DUP: return op_dup(w, &r);
	case OP_SHARE: return op_share(w, &r);
	case OP_SURFACE_CREATE: return op_surface_create(w, &r);
	case OP_DMA: return op_dma(w, &r);
	case OP_GET_FAULT: return op_get_fault(w, &r);
	case OP_METHOD: return op_method(w, &r);
	case OP_PROG_SHARE: return op_prog_share(w, &r);
	case OP_CAPS_DROP: return op_caps_drop(w, &r);
	case OP_METHOD_BUF: return op_method_buf(w, &r);
	case OP_DRM: return op_drm(w, &r, 0);
	case OP_SYNCOBJ: return op_drm(w, &r, 1);
	case OP_PRIME: return op_drm(w, &r, 2);
	case OP_RAW: return op_raw(w, &r);
	case OP_MMAP: return op_mmap(w, &r);
	case OP_MUNMAP: return op_munmap(w, &r);
	case OP_TOUCH: return op_touch(w, &r);
	case OP_READ: return op_read(w, &r);
	case OP_RUN: return op_run(w, &r);
	case OP_FORK: return op_fork(w, &r);
	case OP_REAP:
		reap_kids(w, 0);
		return 0;
	case OP_FDINFO: return op_fdinfo(w, &r);
	case OP_SYSFS: return op_sysfs(w, &r);
	case OP_WRONG_SIZE: return op_wrong_size(w, &r);
	case OP_INJECT: return op_inject(w, &r);
	default: return 0;
	}
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
	char msg[96];
	int len;

	len = snprintf(msg, sizeof(msg), "ane-fuzz: signal %d at address %p, pc %p\n", sig,
		       si->si_addr, (void *)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP]);
	if (write(2, msg, (size_t)len) < 0)
		len = 0;
	if (my_slot && !my_slot->fail) {
		my_slot->fail_sig = sig;
		my_slot->fail = forked_child ? FAIL_CHILD : FAIL_SIGNAL;
	}
	if (shm) {
		shm->failed = 1;
		shm->stop = 1;
	}
	{
		void *bt[32];
		int n = backtrace(bt, 32);
		static const char m[] = "ane-fuzz: fatal signal in a worker; backtrace:\n";

		if (write(2, m, sizeof(m) - 1) < 0)
			n = 0;
		backtrace_symbols_fd(bt, n, 2);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void worker_init(struct worker *w, int id)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->id = id;
	w->slot = &shm->w[id];
	for (i = 0; i < NFD; i++)
		w->fds[i] = (struct fdent){ .fd = -1, .kind = -1 };
	for (i = 0; i < NXFD; i++)
		w->xfd[i] = -1;
	w->scratch = mmap(NULL, SCRATCH + 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->scratch == MAP_FAILED) {
		perror("ane-fuzz: mmap");
		exit(2);
	}
	mprotect(w->scratch + SCRATCH, 4096, PROT_NONE);
	w->imgbuf = malloc(IMGBUF);
	if (!w->imgbuf) {
		perror("ane-fuzz: malloc");
		exit(2);
	}
	memset(w->imgbuf, 0, IMGBUF);
}

static void worker_fini(struct worker *w)
{
	int i;

	reap_kids(w, 1);
	for (i = 0; i < NMAP; i++)
		if (w->m[i].p)
			munmap(w->m[i].p, w->m[i].len);
	for (i = 0; i < NFD; i++)
		slot_close(w, i);
	for (i = 0; i < NXFD; i++)
		if (w->xfd[i] >= 0)
			close(w->xfd[i]);
	munmap(w->scratch, SCRATCH + 4096);
	free(w->imgbuf);
}

static uint64_t worker_seed(int id)
{
	uint64_t s = opt.seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(id + 1));

	return splitmix(&s);
}

static void *worker_main(void *arg)
{
	int id = (int)(intptr_t)arg, injector = id == nworkers;
	struct worker *w = malloc(sizeof(*w));
	struct wslot *sl = &shm->w[id];
	struct rng r;
	uint64_t n = 0;

	if (!w)
		return NULL;
	worker_init(w, id);
	my_slot = sl;
	sl->pid = getpid();
	sl->tid = (int)syscall(SYS_gettid);
	sl->seed = worker_seed(opt.only_worker >= 0 ? opt.only_worker : id);
	r.s = sl->seed;
	sl->state = 1;
	while (!shm->stop) {
		uint64_t seed, t0;
		int op, e;
		struct ring_ent *re;

		if (replay_ops) {
			if (n >= replay_n)
				break;
			op = replay_ops[n].op;
			seed = replay_ops[n].seed;
		} else {
			if (opt.iterations && n >= opt.iterations)
				break;
			seed = rnd(&r);
			op = pick_op(seed, injector);
		}
		re = &sl->ring[n % RING_MAX];
		re->n = n;
		re->seed = seed;
		re->op = (int16_t)op;
		re->err = -1;
		re->us = 0;
		sl->cur_op = op;
		t0 = now_ns();
		sl->nops = n + 1;
		sl->op_start_ns = t0;
		e = run_op(w, op, seed);
		sl->op_start_ns = 0;
		re->err = (int16_t)(w->last_err ? w->last_err : e);
		re->us = (uint32_t)((now_ns() - t0) / 1000);
		sl->opcount[op]++;
		if (opt.verbose)
			fprintf(stderr, "w%d #%" PRIu64 " %s 0x%016" PRIx64 " -> %s  %s\n", id, n,
				op_name(op), seed, errname(re->err), w->note);
		n++;
		if (injector && !replay_ops)	/* between 0.2 and 2 s */
			usleep(200000 + rn(&r, 1800000));
	}
	worker_fini(w);
	free(w);
	sl->state = 2;
	return NULL;
}

void set_oom_adj(const char *v)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, v, strlen(v)) < 0)
		fd = -fd - 1;
	close(fd < 0 ? -fd - 1 : fd);
}

/* One worker process: --threads threads, workers base .. base + n - 1. */
void proc_main(int base, int n, int drop)
{
	pthread_t th[MAX_WORKERS];
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Under memory pressure the OOM killer takes a worker, not the supervisor. */
	set_oom_adj("500");
	if (drop && opt.user >= 0) {
		if (setgroups(0, NULL) || setgid((gid_t)opt.user) || setuid((uid_t)opt.user)) {
			perror("ane-fuzz: dropping privileges");
			_exit(2);
		}
	}
	for (i = 1; i < n; i++)
		if (pthread_create(&th[i], NULL, worker_main, (void *)(intptr_t)(base + i)))
			th[i] = 0;
	worker_main((void *)(intptr_t)base);
	for (i = 1; i < n; i++)
		if (th[i])
			pthread_join(th[i], NULL);
	_exit(0);
}
