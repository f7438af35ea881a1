// SPDX-License-Identifier: MIT
/*
 * ane-bench: the no-op request round trip against the pipe, where its time
 * goes, and the resident loop's chained step against selector 2.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "bench.h"

/*
 * The smallest program, one relu of a 1x1x1x8 tensor, built into *@img;
 * *@net owns it.  Non-zero (said) on failure.
 */
int relu_image(struct ane_net **net, const void **img, size_t *size)
{
	int t;

	if (ane_net_create(net))
		return die("ane_net_create");
	t = ane_net_input(*net, "x", 1, 1, 1, 8);
	ane_net_output(*net, ane_net_activation(*net, t, ANE_NET_ACT_RELU));
	if (ane_net_build(*net, img, size)) {
		fprintf(stderr, "ane-bench: %s\n", ane_net_errmsg(*net));
		ane_net_destroy(*net);
		return 1;
	}
	return 0;
}

/* One request of the request bench: its stage times, for the tail's split. */
struct req_rec {
	uint64_t seqno, t0, t1, t2, exec_ns;
	uint64_t k_sub, k_done;		/* the ane: tracepoints' times, 0 if none */
};

#define TRACEFS	"/sys/kernel/tracing"

static int tfs_write(const char *file, const char *val)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/*
 * ANE_BENCH_TRACE=1: record the ane:ane_submit and ane:ane_complete
 * tracepoints on the monotonic clock (the bench's), so that each request's
 * wait splits into the device's part and the client's wake-up.  Returns
 * whether tracing is on; off without root and tracefs.
 */
static int req_trace_start(void)
{
	const char *env = getenv("ANE_BENCH_TRACE");

	if (!env || strcmp(env, "1"))
		return 0;
	if (access(TRACEFS "/trace", W_OK))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (tfs_write("tracing_on", "0") || tfs_write("trace_clock", "mono") ||
	    tfs_write("buffer_size_kb", "4096") || tfs_write("trace", "") ||
	    tfs_write("events/ane/ane_submit/enable", "1") ||
	    tfs_write("events/ane/ane_complete/enable", "1") ||
	    tfs_write("events/workqueue/workqueue_execute_start/enable", "1") ||
	    tfs_write("events/sched/sched_switch/enable", "1") ||
	    tfs_write("tracing_on", "1")) {
		fprintf(stderr, "ane-bench: ANE_BENCH_TRACE: tracefs not writable, no trace split\n");
		return 0;
	}
	return 1;
}

/* The other traced events (work items, switches), for the slowest's lines. */
static struct {
	uint64_t t;
	char *line;
} tr_other[65536];
static unsigned int n_other;

static struct req_rec *req_find(struct req_rec *r, unsigned int n, uint64_t seqno)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i].seqno == seqno)
			return &r[i];
	return NULL;
}

/*
 * The time of the trace line @line whose event name starts at @ev:
 * "... [cpu] flags  SEC.USEC: event:", in ns.  0, or -1 when unreadable.
 */
static int trace_time(const char *line, const char *ev, uint64_t *ns)
{
	unsigned long long sec, usec;

	while (ev > line && ev[-1] == ' ')
		ev--;
	if (ev > line && ev[-1] == ':')
		ev--;
	while (ev > line && ev[-1] != ' ')
		ev--;
	if (sscanf(ev, "%llu.%llu", &sec, &usec) != 2)
		return -1;
	*ns = sec * 1000000000ull + usec * 1000ull;
	return 0;
}

/* Stop tracing and put each traced request's tracepoint times in @r. */
static void req_trace_collect(struct req_rec *r, unsigned int n)
{
	char line[512];
	FILE *f;

	tfs_write("tracing_on", "0");
	tfs_write("events/ane/ane_submit/enable", "0");
	tfs_write("events/ane/ane_complete/enable", "0");
	tfs_write("events/workqueue/workqueue_execute_start/enable", "0");
	tfs_write("events/sched/sched_switch/enable", "0");
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long seqno;
		struct req_rec *q;
		char *p = strstr(line, "ane_submit:"), *s;
		int done = !p;
		uint64_t t;

		if (!p)
			p = strstr(line, "ane_complete:");
		s = p ? strstr(p, "seqno=") : NULL;
		if (!s || sscanf(s, "seqno=%llu", &seqno) != 1) {
			s = strstr(line, "workqueue_execute_start:");
			if (!s)
				s = strstr(line, "sched_switch:");
			if (!s || n_other == sizeof(tr_other) / sizeof(tr_other[0]) ||
			    trace_time(line, s, &t))
				continue;
			s[strcspn(s, "\n")] = 0;
			tr_other[n_other].t = t;
			tr_other[n_other++].line = strdup(s);
			continue;
		}
		q = req_find(r, n, seqno);
		if (!q || trace_time(line, p, &t))
			continue;
		if (done)
			q->k_done = t;
		else
			q->k_sub = t;
	}
	fclose(f);
	tfs_write("trace", "");
}

static int cmp_lat_desc(const void *a, const void *b)
{
	const struct req_rec *x = a, *y = b;
	uint64_t lx = x->t2 - x->t0, ly = y->t2 - y->t0;

	return lx > ly ? -1 : lx < ly;
}

/* The p50 of each stage over @r[0..@n) into @p50 (-1 where untraced). */
static unsigned int req_stages(const struct req_rec *r, unsigned int n, double p50[6])
{
	static uint64_t v[6][REQ_ROUNDS];
	unsigned int i, nv = 0, nt = 0;

	for (i = 0; i < n; i++, nv++) {
		v[0][nv] = r[i].t1 - r[i].t0;
		v[1][nv] = r[i].t2 - r[i].t1;
		v[2][nv] = r[i].exec_ns;
		if (r[i].k_sub && r[i].k_done && r[i].k_sub >= r[i].t0 &&
		    r[i].k_done >= r[i].k_sub && r[i].t2 >= r[i].k_done) {
			v[3][nt] = r[i].k_sub - r[i].t0;
			v[4][nt] = r[i].k_done - r[i].k_sub;
			v[5][nt++] = r[i].t2 - r[i].k_done;
		}
	}
	for (i = 0; i < 6; i++)
		p50[i] = (i < 3 ? nv : nt) ? quantile_us(v[i], i < 3 ? nv : nt, 0.5) : -1;
	return nt;
}

/*
 * Where the time of the slowest 1% goes: the p50 of each stage over those
 * requests beside the same over all of them, and the slowest ten; with
 * the trace, the wait split at the driver's completion.  Sorts @r,
 * slowest first.
 */
static void req_tail(struct req_rec *r, unsigned int n)
{
	static const char *const what[6] = {
		"submit ioctl", "submit return -> event read", "  of which engine (exec_ns)",
		"submit call -> ane_submit tracepoint", "ane_submit -> ane_complete",
		"ane_complete -> event read",
	};
	unsigned int i, nt = n / 100 ? n / 100 : 1, traced;
	double all[6], tail[6];

	traced = req_stages(r, n, all);
	qsort(r, n, sizeof(*r), cmp_lat_desc);
	req_stages(r, nt, tail);
	printf("  the slowest 1%% (%u requests): p50 of each stage (all requests')\n", nt);
	for (i = 0; i < 6; i++)
		if (tail[i] >= 0 && all[i] >= 0)
			printf("    %-38s %9.1f us (%7.1f us)\n", what[i], tail[i], all[i]);
	if (!traced)
		printf("    (ANE_BENCH_TRACE=1 as root splits the wait at the driver's completion)\n");
	for (i = 0; i < nt && i < 10; i++) {
		printf("    #%-2u seqno %-6llu %7.1f us: submit %6.1f wait %7.1f engine %6.1f",
		       i + 1, (unsigned long long)r[i].seqno, (r[i].t2 - r[i].t0) / 1e3,
		       (r[i].t1 - r[i].t0) / 1e3, (r[i].t2 - r[i].t1) / 1e3, r[i].exec_ns / 1e3);
		if (r[i].k_sub && r[i].k_done)
			printf(" | to tp %6.1f device %7.1f client %7.1f",
			       (double)(int64_t)(r[i].k_sub - r[i].t0) / 1e3,
			       (double)(int64_t)(r[i].k_done - r[i].k_sub) / 1e3,
			       (double)(int64_t)(r[i].t2 - r[i].k_done) / 1e3);
		printf("\n");
	}
	for (i = 0; i < nt && i < 10; i++) {
		unsigned int j, shown = 0;

		for (j = 0; j < n_other && shown < 6; j++)
			if (tr_other[j].t + 1000 >= r[i].t0 && tr_other[j].t <= r[i].t2) {
				printf("      #%-2u +%6.1f %.110s\n", i + 1,
				       ((double)(int64_t)(tr_other[j].t - r[i].t0)) / 1e3,
				       tr_other[j].line);
				shown++;
			}
	}
	while (n_other)
		free(tr_other[--n_other].line);
}

int req_fail(struct ane_dev *dev, const char *what)
{
	fprintf(stderr, "ane-bench: %s: %s\n", what, dev ? ane_errmsg(dev) : "");
	ane_close(dev);
	return 1;
}

/*
 * The loop a user writes without libane: the raw ProgramSendRequest of
 * @prog's procedure 0 on @in and @out, then one blocking read() of its
 * completion event, @n times after a tenth as many to warm up; each
 * round's time into @lat and the event's engine time into @eng.
 */
static int raw_rounds(struct ane_dev *dev, struct ane_program *prog,
		      struct ane_surface *in, struct ane_surface *out,
		      uint64_t *lat, uint64_t *eng, unsigned int n)
{
	struct drm_ane_event_complete ev;
	struct drm_ane_send_request sr;
	unsigned int i;
	int fd = ane_fd(dev);

	for (i = 0; i < n / 10 + n; i++) {
		uint64_t t0 = now_ns();

		memset(&sr, 0, sizeof(sr));
		sr.in.token = ane_program_token(prog);
		sr.in.qos_class = 5;
		sr.in.exec_priority = 21;
		sr.in.io_category = 2;
		sr.in.surfaces[0] = (struct drm_ane_surface_ref){
			.handle = ane_surface_handle(in), .kind = ANE_SURFACE_INPUT };
		sr.in.surfaces[1] = (struct drm_ane_surface_ref){
			.handle = ane_surface_handle(out), .kind = ANE_SURFACE_OUTPUT };
		if (ioctl(fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, &sr) < 0) {
			fprintf(stderr, "ane-bench: raw SendRequest: %s\n", strerror(errno));
			return -1;
		}
		if (read(fd, &ev, sizeof(ev)) != sizeof(ev) || ev.seqno != sr.out.seqno ||
		    ev.status) {
			fprintf(stderr, "ane-bench: raw read() of the completion: %s (status %d)\n",
				strerror(errno), ev.status);
			return -1;
		}
		if (i >= n / 10) {
			lat[i - n / 10] = now_ns() - t0;
			eng[i - n / 10] = ev.exec_ns;
		}
	}
	return 0;
}

/*
 * The loop a user writes with libane: ane_request_submit() then
 * ane_request_wait() on @prog's procedure 0, @n times after a tenth as
 * many to warm up; each round's time into @lat, its submit and wait
 * into @sub and @evt, the event's engine time into @eng, and (@rec not
 * NULL) the round's record for the tail's trace.
 */
static int libane_rounds(struct ane_dev *dev, struct ane_program *prog,
			 struct ane_surface *in, struct ane_surface *out,
			 uint64_t *lat, uint64_t *sub, uint64_t *evt, uint64_t *eng,
			 struct req_rec *rec, unsigned int n)
{
	unsigned int i, warm = n / 10;

	for (i = 0; i < warm + n; i++) {
		uint64_t t0, t1, t2, seqno, exec_ns;
		int st;

		t0 = now_ns();
		if (ane_request_submit(prog, 0, &in, 1, &out, 1, &seqno))
			return req_fail(dev, "submit");
		t1 = now_ns();
		if (ane_request_wait(dev, seqno, ane_deadline_ns(10000000000ull), &st, &exec_ns))
			return req_fail(dev, "wait");
		t2 = now_ns();
		if (i < warm)
			continue;
		lat[i - warm] = t2 - t0;
		sub[i - warm] = t1 - t0;
		evt[i - warm] = t2 - t1;
		eng[i - warm] = exec_ns;
		if (rec)
			rec[i - warm] = (struct req_rec){ .seqno = seqno, .t0 = t0, .t1 = t1,
							  .t2 = t2, .exec_ns = exec_ns };
	}
	return 0;
}

/* Median of @n ratios. */
static double median(double *v, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define RAW_SETS	5

/* The sets' ratios after median() sorted them: "lowest - highest". */
static void sets_range(const double *v, unsigned int n, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f - %.2f", v[0], v[n - 1]);
}

/*
 * The raw loop against the pipe, RAW_SETS sets of REQ_ROUNDS each, the
 * two alternating so that both see the machine of the same moment: the
 * median of the sets' p50 and p99 ratios.
 */
struct raw_res {
	double l50, q50, e50;	/* means over the sets of their p50s */
	double r50, r99;	/* medians over the sets of the ratios */
	char range50[32], range99[32];	/* the sets' lowest - highest */
};

static int bench_raw(struct ane_dev *dev, struct ane_program *prog,
		     struct ane_surface *in, struct ane_surface *out,
		     struct raw_res *res)
{
	static uint64_t lat[REQ_ROUNDS], eng[REQ_ROUNDS], pp[REQ_ROUNDS];
	double r50[RAW_SETS], r99[RAW_SETS], e50 = 0, l50 = 0, q50 = 0;
	unsigned int k;

	for (k = 0; k < RAW_SETS; k++) {
		if (raw_rounds(dev, prog, in, out, lat, eng, REQ_ROUNDS) ||
		    pipe_rounds(pp, REQ_ROUNDS))
			return -1;
		r50[k] = quantile_us(lat, REQ_ROUNDS, 0.5) / quantile_us(pp, REQ_ROUNDS, 0.5);
		r99[k] = quantile_us(lat, REQ_ROUNDS, 0.99) / quantile_us(pp, REQ_ROUNDS, 0.99);
		l50 += quantile_us(lat, REQ_ROUNDS, 0.5) / RAW_SETS;
		q50 += quantile_us(pp, REQ_ROUNDS, 0.5) / RAW_SETS;
		e50 += quantile_us(eng, REQ_ROUNDS, 0.5) / RAW_SETS;
	}
	*res = (struct raw_res){ .l50 = l50, .q50 = q50, .e50 = e50,
				 .r50 = median(r50, RAW_SETS), .r99 = median(r99, RAW_SETS) };
	sets_range(r50, RAW_SETS, res->range50, sizeof(res->range50));
	sets_range(r99, RAW_SETS, res->range99, sizeof(res->range99));
	return 0;
}

static void raw_print(const struct raw_res *r)
{
	printf("  raw loop (SendRequest ioctl + blocking read() of the event, no libane), %u sets of %u, each beside a pipe set\n",
	       RAW_SETS, REQ_ROUNDS);
	printf("  raw                 p50 %9.1f us   (pipe %.1f us, engine time %.1f us: the no-op's task)\n",
	       r->l50, r->q50, r->e50);
	printf("  raw ratio p50       %.2f   (median of %u sets, %s; target <= 1.5: %s)\n",
	       r->r50, RAW_SETS, r->range50,
	       json_target("raw_vs_pipe_p50", r->r50, 1.5) ? "met" : "MISSED");
	printf("  raw ratio p99       %.2f   (median of %u sets, %s; target <= 3: %s)\n",
	       r->r99, RAW_SETS, r->range99,
	       json_target("raw_vs_pipe_p99", r->r99, 3) ? "met" : "MISSED");
	json_num("raw_p50_us", r->l50);
	json_num("raw_engine_p50_us", r->e50);
}

int bench_request(const char *node)
{
	static uint64_t lat[REQ_ROUNDS], sub[REQ_ROUNDS], evt[REQ_ROUNDS],
		eng[REQ_ROUNDS], pp[REQ_ROUNDS], fwl[REQ_ROUNDS];
	static uint64_t lat1[REQ_ROUNDS], sub1[REQ_ROUNDS], evt1[REQ_ROUNDS],
		eng1[REQ_ROUNDS], pp1[REQ_ROUNDS];
	static struct req_rec rec[REQ_ROUNDS];
	struct ane_surface *in = NULL, *out = NULL;
	double r50, r99, p50, p99, fw50 = -1, s50[RAW_SETS], s99[RAW_SETS];
	char range50[32], range99[32];
	unsigned int k;
	struct ane_program *prog = NULL;
	struct ane_dev *dev = NULL;
	struct ane_net *net = NULL;
	char err[512], path[300], buf[32];
	unsigned int i, warm = REQ_ROUNDS / 10;
	const void *img;
	size_t size;
	int fd, traced, raw;
	struct raw_res rr = { 0 };

	if (relu_image(&net, &img, &size))
		return 1;
	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		fprintf(stderr, "ane-bench: %s\n", err);
		ane_net_destroy(net);
		return 1;
	}
	if (ane_program_create(dev, img, size, &prog) || ane_program_prepare(prog) ||
	    ane_surface_create(dev, 16, &in) || ane_surface_create(dev, 16, &out)) {
		ane_net_destroy(net);
		return req_fail(dev, "setup");
	}
	ane_net_destroy(net);
	memset(ane_surface_map(in), 0, 16);

	/*
	 * RAW_SETS sets, each beside a pipe set as the raw loop's are: the
	 * first set's rounds give the stages and the tail (traced), every
	 * set a p50 and a p99 ratio, whose medians are the figures.
	 */
	traced = req_trace_start();
	for (k = 0; k < RAW_SETS; k++) {
		int first = !k;

		if (libane_rounds(dev, prog, in, out, first ? lat : lat1, first ? sub : sub1,
				  first ? evt : evt1, first ? eng : eng1, first ? rec : NULL,
				  REQ_ROUNDS))
			return 1;
		if (first && traced)
			req_trace_collect(rec, REQ_ROUNDS);
		if (pipe_rounds(first ? pp : pp1, REQ_ROUNDS))
			return die("pipe");
		s50[k] = quantile_us(first ? lat : lat1, REQ_ROUNDS, 0.5) /
			 quantile_us(first ? pp : pp1, REQ_ROUNDS, 0.5);
		s99[k] = quantile_us(first ? lat : lat1, REQ_ROUNDS, 0.99) /
			 quantile_us(first ? pp : pp1, REQ_ROUNDS, 0.99);
	}
	raw = bench_raw(dev, prog, in, out, &rr);
	ane_surface_destroy(in);
	ane_surface_destroy(out);
	ane_program_destroy(prog);
	ane_close(dev);

	/* The firmware's own no-op round trip, where debugfs allows. */
	if (!fw_ping_path(node, path, sizeof(path)) && (fd = open(path, O_RDONLY)) >= 0) {
		for (i = 0; i < warm + REQ_ROUNDS; i++) {
			uint64_t t0 = now_ns();

			if (pread(fd, buf, sizeof(buf), 0) <= 0)
				break;
			if (i >= warm)
				fwl[i - warm] = now_ns() - t0;
		}
		if (i == warm + REQ_ROUNDS)
			fw50 = quantile_us(fwl, REQ_ROUNDS, 0.5);
		close(fd);
	}

	r50 = quantile_us(lat, REQ_ROUNDS, 0.5);
	r99 = quantile_us(lat, REQ_ROUNDS, 0.99);
	p50 = quantile_us(pp, REQ_ROUNDS, 0.5);
	p99 = quantile_us(pp, REQ_ROUNDS, 0.99);
	printf("request: no-op request round trip (submit -> completion event read), one relu of 1x1x1x8, %u sets of %u requests\n",
	       RAW_SETS, REQ_ROUNDS);
	printf("  through libane (ane_request_submit + ane_request_wait), each set beside a pipe set; the first set:\n");
	printf("  request             p50 %9.1f us   p99 %9.1f us\n", r50, r99);
	printf("  baseline: pipe ping-pong between two processes\n");
	printf("  pipe                p50 %9.1f us   p99 %9.1f us\n", p50, p99);
	printf("  where the time goes (p50 of each stage):\n");
	printf("    submit ioctl (ProgramSendRequest)      %9.1f us\n",
	       quantile_us(sub, REQ_ROUNDS, 0.5));
	printf("    submit return -> event read            %9.1f us\n",
	       quantile_us(evt, REQ_ROUNDS, 0.5));
	printf("      of which engine time (event exec_ns) %9.1f us\n",
	       quantile_us(eng, REQ_ROUNDS, 0.5));
	if (fw50 >= 0)
		printf("    firmware no-op round trip (fw_ping)    %9.1f us\n", fw50);
	else
		printf("    firmware no-op round trip (fw_ping)    unavailable (root and debugfs needed)\n");
	req_tail(rec, REQ_ROUNDS);
	r50 = median(s50, RAW_SETS);
	r99 = median(s99, RAW_SETS);
	sets_range(s50, RAW_SETS, range50, sizeof(range50));
	sets_range(s99, RAW_SETS, range99, sizeof(range99));
	printf("  ratio p50           %.2f   (median of %u sets, %s; target <= 1.5: %s)\n",
	       r50, RAW_SETS, range50,
	       json_target("request_vs_pipe_p50", r50, 1.5) ? "met" : "MISSED");
	printf("  ratio p99           %.2f   (median of %u sets, %s; target <= 3: %s)\n",
	       r99, RAW_SETS, range99,
	       json_target("request_vs_pipe_p99", r99, 3) ? "met" : "MISSED");
	r50 = quantile_us(lat, REQ_ROUNDS, 0.5);
	r99 = quantile_us(lat, REQ_ROUNDS, 0.99);
	json_num("submit_p50_us", quantile_us(sub, REQ_ROUNDS, 0.5));
	json_num("event_p50_us", quantile_us(evt, REQ_ROUNDS, 0.5));
	json_num("engine_p50_us", quantile_us(eng, REQ_ROUNDS, 0.5));
	json_num("request_p50_us", r50);
	json_num("request_p99_us", r99);
	json_num("pipe_p50_us", p50);
	json_num("pipe_p99_us", p99);
	if (fw50 >= 0)
		json_num("fw_noop_p50_us", fw50);
	json_cdf("request_cdf_us", lat, REQ_ROUNDS);
	json_cdf("pipe_cdf_us", pp, REQ_ROUNDS);
	if (raw)
		return 1;
	raw_print(&rr);
	return 0;
}

/*
 * The resident loop: a recurrent step h' = tanh(h x W + b) on an 8x8 state
 * run CHAIN_STEPS times as a chain, each step's output read by the next
 * where it lies (ProgramInputsReady with a chained input), then the same
 * steps through selector 2 with the state copied from output to input by
 * naming the surfaces in turn; the two final states must be bit-identical.
 */
int bench_chain(const char *node)
{
	static uint64_t clat[CHAIN_STEPS], slat[CHAIN_STEPS];
	struct ane_surface *h0 = NULL, *o[2] = { NULL, NULL }, *x = NULL, *y = NULL;
	float w[CHAIN_DIM * CHAIN_DIM], b = 0.125f;
	struct ane_dev *ctl = NULL, *dp = NULL;
	struct ane_program *prog = NULL;
	struct ane_net *net = NULL;
	uint64_t handle = 0, atok = 0;
	char err[512];
	const void *img;
	unsigned int k, i;
	size_t size;
	int t, wt, bt, efd = -1;

	for (i = 0; i < CHAIN_DIM * CHAIN_DIM; i++)
		w[i] = (float)((int)(i * 7 % 11) - 5) / 8.0f;
	if (ane_net_create(&net))
		return die("ane_net_create");
	t = ane_net_input(net, "h", 1, 1, CHAIN_DIM, CHAIN_DIM);
	wt = ane_net_const(net, "W", 1, 1, CHAIN_DIM, CHAIN_DIM, w);
	bt = ane_net_const(net, "b", 1, 1, 1, 1, &b);
	t = ane_net_matmul(net, t, wt, 0, ANE_NET_ACT_NONE);
	ane_net_output(net, ane_net_eltwise(net, ANE_NET_ADD, t, bt, ANE_NET_ACT_TANH));
	if (ane_net_build(net, &img, &size)) {
		fprintf(stderr, "ane-bench: %s\n", ane_net_errmsg(net));
		ane_net_destroy(net);
		return 1;
	}
	if (ane_open(node, ANE_KIND_CONTROL, &ctl, err, sizeof(err)) ||
	    ane_open(node, ANE_KIND_DIRECT, &dp, err, sizeof(err))) {
		fprintf(stderr, "ane-bench: %s\n", err);
		ane_net_destroy(net);
		return 1;
	}
	/* the broker's part: prepare, chain, export */
	if (ane_program_create(ctl, img, size, &prog) || ane_program_prepare(prog) ||
	    ane_chain_prepare(ctl, prog, 0, 0, &handle) ||
	    ane_program_export(ctl, prog, &efd)) {
		ane_net_destroy(net);
		return req_fail(ctl, "broker setup");
	}
	ane_net_destroy(net);
	/* the client's part: attach, surfaces of its own */
	if (ane_program_attach(dp, efd, &atok) ||
	    ane_surface_create(dp, 128, &h0) || ane_surface_create(dp, 128, &o[0]) ||
	    ane_surface_create(dp, 128, &o[1]))
		return req_fail(dp, "client setup");
	close(efd);
	for (i = 0; i < CHAIN_DIM * CHAIN_DIM; i++)
		((uint16_t *)ane_surface_map(h0))[i] = ane_fp16_from_float((float)(i % 5) / 4.0f);

	for (k = 0; k < CHAIN_STEPS; k++) {
		struct ane_surface *in = k ? o[(k - 1) % 2] : h0;
		unsigned char chained = k > 0;
		uint64_t t0 = now_ns();

		if (ane_chain_enqueue(dp, handle, &o[k % 2], 1) ||
		    ane_chain_trigger(dp, handle, k + 1, &in, &chained, 1) ||
		    ane_chain_wait(dp, handle, k + 1, ane_deadline_ns(10000000000ull),
				   NULL, NULL))
			return req_fail(dp, "chained step");
		clat[k] = now_ns() - t0;
	}

	/* the same steps through selector 2 on the broker's handle */
	if (ane_surface_create(ctl, 128, &x) || ane_surface_create(ctl, 128, &y))
		return req_fail(ctl, "selector-2 setup");
	memcpy(ane_surface_map(x), ane_surface_map(h0), CHAIN_DIM * CHAIN_DIM * 2);
	for (k = 0; k < CHAIN_STEPS; k++) {
		struct ane_surface *in = k % 2 ? y : x, *out = k % 2 ? x : y;
		uint64_t seqno, t0 = now_ns();
		int st;

		if (ane_request_submit(prog, 0, &in, 1, &out, 1, &seqno) ||
		    ane_request_wait(ctl, seqno, ane_deadline_ns(10000000000ull), &st, NULL))
			return req_fail(ctl, "selector-2 step");
		slat[k] = now_ns() - t0;
	}
	t = memcmp(ane_surface_map(o[(CHAIN_STEPS - 1) % 2]),
		   ane_surface_map(CHAIN_STEPS % 2 ? y : x), CHAIN_DIM * CHAIN_DIM * 2);

	printf("chain: %u steps of h' = tanh(h x W + b), h %ux%u fp16, each step's output chained into the next\n",
	       CHAIN_STEPS, CHAIN_DIM, CHAIN_DIM);
	printf("  chained step (enqueue + inputs ready + event)  p50 %9.1f us   p99 %9.1f us\n",
	       quantile_us(clat, CHAIN_STEPS, 0.5), quantile_us(clat, CHAIN_STEPS, 0.99));
	printf("  selector-2 step (submit + event)               p50 %9.1f us   p99 %9.1f us\n",
	       quantile_us(slat, CHAIN_STEPS, 0.5), quantile_us(slat, CHAIN_STEPS, 0.99));
	printf("  final state, chain vs selector 2: %s\n", t ? "DIFFERENT" : "bit-identical");
	json_num("chained_step_p50_us", quantile_us(clat, CHAIN_STEPS, 0.5));
	json_num("chained_step_p99_us", quantile_us(clat, CHAIN_STEPS, 0.99));
	json_num("selector2_step_p50_us", quantile_us(slat, CHAIN_STEPS, 0.5));
	json_num("selector2_step_p99_us", quantile_us(slat, CHAIN_STEPS, 0.99));
	json_num("bit_identical", !t);

	ane_surface_destroy(x);
	ane_surface_destroy(y);
	ane_surface_destroy(h0);
	ane_surface_destroy(o[0]);
	ane_surface_destroy(o[1]);
	ane_chain_invalidate(ctl, handle);
	ane_program_detach(dp, atok);
	ane_program_destroy(prog);
	ane_close(dp);
	ane_close(ctl);
	return t ? 1 : 0;
}
