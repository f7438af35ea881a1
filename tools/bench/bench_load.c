// SPDX-License-Identifier: MIT
/*
 * ane-bench: 1 to 64 processes submitting at once, each with its own
 * client, against as many pipe ping-pongs: rate, fairness, busy retries.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <sys/resource.h>

#include "bench.h"

/* This process's context switches so far: voluntary in @v, the rest in @iv. */
static void load_switches(uint64_t *v, uint64_t *iv)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru)) {
		*v = 0;
		*iv = 0;
		return;
	}
	*v = (uint64_t)ru.ru_nvcsw;
	*iv = (uint64_t)ru.ru_nivcsw;
}

/* The machine's context switches since boot (/proc/stat "ctxt"); 0 if unknown. */
static uint64_t load_ctxt(void)
{
	unsigned long long n = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Requests each process keeps in flight (ANE_BENCH_DEPTH, 1..LOAD_MAX_DEPTH). */
#define LOAD_MAX_DEPTH	16
static unsigned int load_depth = 1;

/*
 * One process of the load: its own control client, program and surfaces
 * (as independent applications have), ready on @ready, started by @go
 * closing, then submit-and-wait in a loop until @end (CLOCK_MONOTONIC):
 * load_depth requests in flight, the oldest waited for and replaced.
 */
static void load_child(const char *node, const void *img, size_t size, int ready,
		       int go, int res)
{
	uint64_t seq[LOAD_MAX_DEPTH];
	unsigned int head = 0, n = 0;
	struct load_result r = { 0 };
	struct ane_surface *in = NULL, *out = NULL;
	struct ane_program *prog = NULL;
	struct ane_retry_counts rc;
	struct ane_dev *dev = NULL;
	uint64_t end = 0, v0, iv0;
	char c;

	if (ane_open(node, ANE_KIND_CONTROL, &dev, r.msg, sizeof(r.msg))) {
		r.err = errno ? errno : EIO;
	} else if (ane_program_create(dev, img, size, &prog) || ane_program_prepare(prog) ||
		   ane_surface_create(dev, 16, &in) || ane_surface_create(dev, 16, &out)) {
		r.err = errno ? errno : EIO;
		snprintf(r.msg, sizeof(r.msg), "%s", ane_errmsg(dev));
	} else {
		memset(ane_surface_map(in), 0, 16);
	}
	c = (char)!r.err;
	if (write(ready, &c, 1) != 1 || read(go, &end, sizeof(end)) != sizeof(end))
		_exit(1);
	load_switches(&v0, &iv0);
	while (!r.err && now_ns() < end) {
		int st;

		while (n < load_depth &&
		       !ane_request_submit(prog, 0, &in, 1, &out, 1,
					   &seq[(head + n) % LOAD_MAX_DEPTH]))
			n++;
		if (n < load_depth ||
		    ane_request_wait(dev, seq[head], ane_deadline_ns(10000000000ull), &st, NULL)) {
			r.err = errno ? errno : EIO;
			snprintf(r.msg, sizeof(r.msg), "%s", ane_errmsg(dev));
			break;
		}
		head = (head + 1) % LOAD_MAX_DEPTH;
		n--;
		r.done++;
	}
	load_switches(&r.vcsw, &r.ivcsw);
	r.vcsw -= v0;
	r.ivcsw -= iv0;
	ane_get_retry_counts(dev, &rc);
	r.busy = rc.busy;
	r.again = rc.again;
	if (write(res, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	ane_surface_destroy(in);
	ane_surface_destroy(out);
	ane_program_destroy(prog);
	ane_close(dev);
	_exit(0);
}

/*
 * The baseline's process: a pipe ping-pong with an echo process of its
 * own, the same start and end as the engine's processes.
 */
static void load_pipe_child(int ready, int go, int res)
{
	struct load_result r = { 0 };
	int to[2], from[2];
	uint64_t end = 0, v0, iv0;
	pid_t echo;
	char c = 1;

	if (pipe(to) || pipe(from))
		_exit(1);
	echo = fork();
	if (echo < 0)
		_exit(1);
	if (!echo) {
		close(to[1]);
		close(from[0]);
		while (read(to[0], &c, 1) == 1 && write(from[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	if (write(ready, &c, 1) != 1 || read(go, &end, sizeof(end)) != sizeof(end))
		_exit(1);
	load_switches(&v0, &iv0);
	while (now_ns() < end) {
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1) {
			r.err = errno ? errno : EPIPE;
			snprintf(r.msg, sizeof(r.msg), "pipe round trip");
			break;
		}
		r.done++;
	}
	load_switches(&r.vcsw, &r.ivcsw);
	r.vcsw -= v0;
	r.ivcsw -= iv0;
	close(to[1]);
	waitpid(echo, NULL, 0);
	if (write(res, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

/*
 * Run @n processes at once for LOAD_SECONDS, each submitting @img's
 * program (NULL: each a pipe ping-pong); 0, or non-zero with a message.
 */
static int load_run(const char *node, const void *img, size_t size, unsigned int n,
		    struct load_figure *f)
{
	int ready[2], go[2], res[2], failed = 0;
	struct load_result r;
	unsigned int i, ok = 0;
	uint64_t end, ctxt0, ctxt1, sw = 0, done = 0;
	struct timespec ts;
	char c;

	if (pipe(ready) || pipe(go) || pipe(res))
		return die("pipe");
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return die("fork");
		if (!pid) {
			close(ready[0]);
			close(go[1]);
			close(res[0]);
			if (img)
				load_child(node, img, size, ready[1], go[0], res[1]);
			load_pipe_child(ready[1], go[0], res[1]);
		}
	}
	close(ready[1]);
	close(go[0]);
	close(res[1]);
	for (i = 0; i < n; i++)
		if (read(ready[0], &c, 1) == 1)
			ok += c == 1;
	/* One deadline for all, set once every process is ready. */
	end = now_ns() + (uint64_t)(LOAD_SECONDS * 1e9);
	ctxt0 = load_ctxt();
	for (i = 0; i < n; i++)
		if (write(go[1], &end, sizeof(end)) != sizeof(end))
			return die("start");
	/* The machine's switches in the window: sleep to its end, count. */
	ts.tv_sec = (time_t)(end / 1000000000ull);
	ts.tv_nsec = (long)(end % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	ctxt1 = load_ctxt();
	memset(f, 0, sizeof(*f));
	f->min_rate = -1;
	for (i = 0; i < n; i++) {
		double rate;

		if (read(res[0], &r, sizeof(r)) != sizeof(r)) {
			failed = 1;
			continue;
		}
		if (r.err) {
			fprintf(stderr, "ane-bench: load: a process failed: %s (%s)\n", r.msg,
				ane_errno_name(r.err));
			failed = 1;
		}
		rate = (double)r.done / LOAD_SECONDS;
		done += r.done;
		sw += r.vcsw + r.ivcsw;
		f->rate += rate;
		f->busy += r.busy;
		if (f->min_rate < 0 || rate < f->min_rate)
			f->min_rate = rate;
		if (rate > f->max_rate)
			f->max_rate = rate;
	}
	if (done) {
		f->sw_per_req = (double)sw / (double)done;
		f->ctxt_per_req = ctxt1 > ctxt0 ? (double)(ctxt1 - ctxt0) / (double)done : 0;
	}
	while (wait(NULL) > 0)
		;
	close(ready[0]);
	close(go[1]);
	close(res[0]);
	return failed || ok != n ? -1 : 0;
}

/*
 * The process counts to run: ANE_BENCH_LOAD ("1 8 64", counts from 1 to
 * LOAD_MAX_PROCS in increasing order, 1, 8 and 64 among them) for a
 * quick run, else 1, 2, 4, 7, 8, 16, 32 and 64.  Returns how many, or 0
 * with a message for a list it cannot use.
 */
static unsigned int load_procs(unsigned int *procs, unsigned int max)
{
	static const unsigned int def[] = { 1, 2, 4, 7, 8, 16, 32, LOAD_MAX_PROCS };
	const char *env = getenv("ANE_BENCH_LOAD");
	unsigned int n = 0, seen = 0;
	char *end;

	if (!env || !*env) {
		memcpy(procs, def, sizeof(def));
		return sizeof(def) / sizeof(def[0]);
	}
	while (*env) {
		unsigned long v;

		if (*env == ' ' || *env == ',') {
			env++;
			continue;
		}
		errno = 0;
		v = strtoul(env, &end, 10);
		if (errno || end == env || !v || v > LOAD_MAX_PROCS || n == max ||
		    (n && v <= procs[n - 1]))
			goto bad;
		procs[n++] = (unsigned int)v;
		seen |= (v == 1) | (v == 8) << 1 | (v == LOAD_MAX_PROCS) << 2;
		env = end;
	}
	if (seen == 7)
		return n;
bad:
	fprintf(stderr, "ane-bench: ANE_BENCH_LOAD: process counts from 1 to %u, increasing, with 1, 8 and %u among them\n",
		LOAD_MAX_PROCS, LOAD_MAX_PROCS);
	return 0;
}

int bench_load(const char *node)
{
	/* 1, 8 and 64 are the targets' points; the rest draw the curve. */
	unsigned int procs[LOAD_MAX_PROCS];
	struct load_figure f[LOAD_MAX_PROCS], pf[LOAD_MAX_PROCS];
	unsigned int i, np, p1 = 0, p8 = 0, p64 = 0;
	struct ane_net *net = NULL;
	double best, pbest, fair, pfair;
	const void *img;
	uint64_t busy = 0;
	size_t size;

	np = load_procs(procs, LOAD_MAX_PROCS);
	if (!np)
		return 1;
	if (getenv("ANE_BENCH_DEPTH")) {
		char *e;
		unsigned long d = strtoul(getenv("ANE_BENCH_DEPTH"), &e, 10);

		if (*e || !d || d > LOAD_MAX_DEPTH) {
			fprintf(stderr, "ane-bench: ANE_BENCH_DEPTH: 1 to %u requests in flight per process\n",
				LOAD_MAX_DEPTH);
			return 1;
		}
		load_depth = (unsigned int)d;
	}
	for (i = 0; i < np; i++) {
		p1 = procs[i] == 1 ? i : p1;
		p8 = procs[i] == 8 ? i : p8;
		p64 = procs[i] == LOAD_MAX_PROCS ? i : p64;
	}
	/* Every process runs the request bench's program. */
	if (relu_image(&net, &img, &size))
		return 1;
	printf("load: N processes, each its own client and program, submit + wait in a loop for %.0f s, %u request%s in flight each\n",
	       LOAD_SECONDS, load_depth, load_depth > 1 ? "s" : "");
	json_num("depth", load_depth);
	printf("  baseline: as many processes each in a pipe ping-pong with an echo process\n");
	printf("  switches/req: the processes' own context switches per request (getrusage), and the machine's (/proc/stat ctxt)\n");
	printf("  processes   requests/s   slowest/s   fastest/s   slowest/fastest   busy retries   switches/req own machine   pipe trips/s   pipe slowest/fastest   pipe switches/trip own machine\n");
	fflush(stdout);
	for (i = 0; i < np; i++) {
		if (load_run(node, img, size, procs[i], &f[i]) ||
		    load_run(node, NULL, 0, procs[i], &pf[i])) {
			ane_net_destroy(net);
			return 1;
		}
		printf("  %9u   %10.0f   %9.0f   %9.0f   %15.2f   %12" PRIu64 "   %16.2f %7.2f   %12.0f   %20.2f   %22.2f %7.2f\n",
		       procs[i], f[i].rate, f[i].min_rate, f[i].max_rate,
		       f[i].max_rate > 0 ? f[i].min_rate / f[i].max_rate : 0, f[i].busy,
		       f[i].sw_per_req, f[i].ctxt_per_req,
		       pf[i].rate, pf[i].max_rate > 0 ? pf[i].min_rate / pf[i].max_rate : 0,
		       pf[i].sw_per_req, pf[i].ctxt_per_req);
		fflush(stdout);
		json_num_at("pipe_rate", procs[i], pf[i].rate);
		json_num_at("pipe_slowest", procs[i], pf[i].min_rate);
		json_num_at("pipe_fastest", procs[i], pf[i].max_rate);
		json_num_at("rate", procs[i], f[i].rate);
		json_num_at("slowest", procs[i], f[i].min_rate);
		json_num_at("fastest", procs[i], f[i].max_rate);
		json_num_at("switches_per_request", procs[i], f[i].ctxt_per_req);
		json_num_at("pipe_switches_per_trip", procs[i], pf[i].ctxt_per_req);
		busy += f[i].busy;
	}
	ane_net_destroy(net);
	best = f[p1].rate > f[p8].rate ? f[p1].rate : f[p8].rate;
	pbest = pf[p1].rate > pf[p8].rate ? pf[p1].rate : pf[p8].rate;
	fair = f[p64].max_rate > 0 ? f[p64].min_rate / f[p64].max_rate : 0;
	pfair = pf[p64].max_rate > 0 ? pf[p64].min_rate / pf[p64].max_rate : 0;
	printf("  baseline: the best of 1 and 8 processes, %.0f requests/s\n", best);
	/*
	 * What the machine itself keeps of its best when 64 processes share
	 * it: the pipes' 64-vs-best and fairness.  Under QEMU's TCG every
	 * process switch costs a guest TLB flush, so even pipes lose most of
	 * their single-process rate; ane's figure over the pipes' says what
	 * ane adds to (or takes from) that.
	 */
	printf("  the pipes' own      64 vs best %.2f, fairness at 64 %.2f: ane's 64 vs best is %.2fx the pipes', its fairness %.2fx\n",
	       pf[p64].rate / pbest, pfair, (f[p64].rate / best) / (pf[p64].rate / pbest),
	       pfair > 0 ? fair / pfair : 0);
	json_num("pipe_64_vs_best", pf[p64].rate / pbest);
	json_num("pipe_fairness_64", pfair);
	json_num("fairness_64", fair);
	json_num("64_vs_best", f[p64].rate / best);
	json_num("64_vs_8", f[p8].rate > 0 ? f[p64].rate / f[p8].rate : 0);
	/* json_target() checks "<=": the ">=" targets are recorded inverted. */
	printf("  64 vs best          %.2f   (target >= 0.9: %s; 64 vs 8: %.2f)\n", f[p64].rate / best,
	       f[p64].rate > 0 && json_target("best_vs_64", best / f[p64].rate, 1 / 0.9) ?
	       "met" : "MISSED", f[p8].rate > 0 ? f[p64].rate / f[p8].rate : 0);
	printf("  fairness at 64      %.2f   (target >= 0.67: %s)\n", fair,
	       fair > 0 && json_target("fastest_vs_slowest_64", 1 / fair, 1.5) ? "met" : "MISSED");
	printf("  busy retries        %" PRIu64 "   (target 0: %s)\n", busy,
	       json_target("busy_retries", (double)busy, 0) ? "met" : "MISSED");
	return 0;
}
