// SPDX-License-Identifier: MIT
/*
 * ane-bench: performance figures of the emulated engine, each printed
 * beside a baseline measured in the same run, as a ratio.
 *
 *   ane-bench dart     map + unmap cost per 16 KB page vs first-touching
 *                      the same memory from userspace; page-table memory
 *                      of a fully mapped 3.5 GiB context
 *   ane-bench fw       no-op commands through host -> BUF_H2T ring ->
 *                      firmware -> BUF_T2H ring -> interrupt -> host (the
 *                      debugfs fw_ping knob, root only) vs a pipe round
 *                      trip between two processes
 *   ane-bench request  no-op request round trip (ProgramSendRequest ->
 *                      completion event read) of the smallest program,
 *                      p50 and p99, vs a pipe ping-pong between two
 *                      processes, p50 and p99, with where the time goes
 *   ane-bench chain    a 100-step resident loop, chained vs selector 2
 *   ane-bench load     1, 8 and 64 processes submitting at once: aggregate
 *                      throughput, fairness between the processes and the
 *                      busy retries libane made, vs the best of 1 and 8
 *   ane-bench broker   an Evaluate round trip through aned (running, at
 *                      $ANE_BROKER_SOCKET or the default socket) beside
 *                      the same program's request round trip on the device
 *
 * With --json FILE the figures (and the latency quantiles) are also
 * written to FILE as one JSON object, for tools/perf-report.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libane.h"

#define PAGE16K		16384ull
#define MIB		(1024ull * 1024)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int die(const char *what)
{
	fprintf(stderr, "ane-bench: %s: %s (%s)\n", what, strerror(errno),
		ane_errno_name(errno));
	return 1;
}

/* ---------------------------------------------------- results as JSON */

static FILE *json;		/* --json FILE, or NULL */
static const char *json_sep = "";

static void json_key(const char *key)
{
	if (json) {
		fprintf(json, "%s\n    \"%s\": ", json_sep, key);
		json_sep = ",";
	}
}

static void json_num(const char *key, double v)
{
	json_key(key);
	if (json)
		fprintf(json, "%.6g", v);
}

/*
 * A figure with its target: printed as "ratio X (target <= T: met)" by
 * the caller, recorded here as {"value", "target", "met"} so a report
 * never has to parse the text.
 */
static int json_target(const char *key, double v, double target)
{
	int met = v <= target;

	json_key(key);
	if (json)
		fprintf(json, "{ \"value\": %.6g, \"target\": %.6g, \"met\": %s }",
			v, target, met ? "true" : "false");
	return met;
}

/* @v[@n] sorted ascending, in ns: the 0th..100th percentiles in us. */
static void json_cdf(const char *key, const uint64_t *v, unsigned int n)
{
	unsigned int q;

	json_key(key);
	if (!json)
		return;
	fputc('[', json);
	for (q = 0; q <= 100; q++)
		fprintf(json, "%s%.3f", q ? ", " : "",
			(double)v[(unsigned int)((double)q / 100 * (n - 1) + 0.5)] / 1e3);
	fputc(']', json);
}

struct dp {
	int fd;
	uint64_t token;
};

static int dp_open(struct dp *c, const char *node)
{
	struct drm_ane_device_open op;

	memset(&op, 0, sizeof(op));
	op.in.usage_type = ANE_USAGE_STANDARD;
	c->fd = open(node, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -1;
	if (ioctl(c->fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op) < 0)
		return -1;
	c->token = op.out.token;
	return 0;
}

static uint32_t surface(int fd, uint64_t size)
{
	struct drm_ane_surface_create sc;

	memset(&sc, 0, sizeof(sc));
	sc.size = size;
	return ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc) < 0 ? 0 : sc.handle;
}

static int map(struct dp *c, uint32_t handle, uint64_t *iova)
{
	static struct drm_ane_memory_map mr;

	memset(&mr, 0, sizeof(mr));
	mr.token = c->token;
	mr.in.num_surfaces = 1;
	mr.in.direction = 3;
	mr.in.surfaces[0].handle = handle;
	mr.in.surfaces[0].usage = 8;
	if (ioctl(c->fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr) < 0)
		return -1;
	*iova = mr.iova;
	return 0;
}

static int unmap(struct dp *c, uint64_t iova)
{
	static struct drm_ane_memory_unmap ur;

	memset(&ur, 0, sizeof(ur));
	ur.in.iova = iova;
	return ioctl(c->fd, DRM_IOCTL_ANE_DP_MEMORY_UNMAP, &ur);
}

/* Seconds to first-touch @bytes of fresh anonymous memory, page by page. */
static double first_touch(uint64_t bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile uint8_t *p;
	double t0, t;
	uint64_t i;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	t0 = now_s();
	for (i = 0; i < bytes; i += (uint64_t)pg)
		p[i] = 1;
	t = now_s() - t0;
	munmap((void *)p, bytes);
	return t;
}

/* Page-table bytes of the context with @pages mapped, from debugfs. */
static long long table_bytes(const char *node, unsigned long long pages)
{
	char path[512], link[256], line[512], *dev;
	unsigned long long p, t;
	long long found = -1;
	FILE *f;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/accel/%s/device", strrchr(node, '/') + 1);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	dev = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/dart", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *s = strstr(line, " pages ");

		if (strncmp(line, "ctx ", 4) || !s)
			continue;
		if (sscanf(s, " pages %llu tables %llu", &p, &t) == 2 && p == pages)
			found = (long long)t;
	}
	fclose(f);
	return found;
}

static int bench_dart(const char *node)
{
	const uint64_t size = 256 * MIB, pages = size / PAGE16K;
	const int iters = 8;
	double t0, t_map = 0, t_unmap = 0, t_touch = 0, per_page, base_page;
	uint64_t iova, iovas[14];
	uint32_t big, last;
	long long tables;
	struct dp c;
	int i;

	if (dp_open(&c, node))
		return die("DeviceOpen (direct path)");
	big = surface(c.fd, size);
	if (!big)
		return die("SURFACE_CREATE 256 MiB");

	for (i = 0; i < iters; i++) {
		double t;

		t0 = now_s();
		if (map(&c, big, &iova))
			return die("MemoryMapRequest 256 MiB");
		t_map += now_s() - t0;
		t0 = now_s();
		if (unmap(&c, iova))
			return die("MemoryUnMapRequest");
		t_unmap += now_s() - t0;
		t = first_touch(size);
		if (t < 0)
			return die("mmap baseline");
		t_touch += t;
	}
	per_page = (t_map + t_unmap) / iters / (double)pages;
	base_page = t_touch / iters / (double)pages;

	printf("dart: map + unmap of 256 MiB (%" PRIu64 " pages of 16 KB), %d rounds\n",
	       pages, iters);
	printf("  map              %8.3f ms   %6.2f GB/s\n", t_map / iters * 1e3,
	       (double)size / (t_map / iters) / 1e9);
	printf("  unmap            %8.3f ms   %6.2f GB/s\n", t_unmap / iters * 1e3,
	       (double)size / (t_unmap / iters) / 1e9);
	printf("  map+unmap/page   %8.1f ns\n", per_page * 1e9);
	printf("  baseline: first-touch of 16 KB from userspace %8.1f ns\n", base_page * 1e9);
	json_num("map_ms", t_map / iters * 1e3);
	json_num("unmap_ms", t_unmap / iters * 1e3);
	json_num("map_unmap_per_page_ns", per_page * 1e9);
	json_num("first_touch_per_page_ns", base_page * 1e9);
	printf("  ratio            %8.3f   (target <= 0.25: %s)\n", per_page / base_page,
	       json_target("map_unmap_vs_first_touch", per_page / base_page, 0.25) ?
	       "met" : "MISSED");

	/* Fill the aperture: 13 x 256 MiB + (256 MiB - 16 KB) = 3.5 GiB - 16 KB. */
	last = surface(c.fd, size - PAGE16K);
	if (!last)
		return die("SURFACE_CREATE");
	for (i = 0; i < 13; i++)
		if (map(&c, big, &iovas[i]))
			return die("MemoryMapRequest (fill)");
	if (map(&c, last, &iovas[13]))
		return die("MemoryMapRequest (fill)");
	tables = table_bytes(node, 0xe0000000ull / PAGE16K - 1);
	printf("dart: fully mapped 3.5 GiB context\n");
	if (tables < 0) {
		printf("  page tables      unknown (debugfs not mounted?)\n");
	} else {
		printf("  page tables      %8.3f MiB (leaf words alone %.3f MiB)\n",
		       (double)tables / MIB, (double)(0xe0000000ull / PAGE16K * 8) / MIB);
		printf("  target           <= 1.8 MiB: %s\n",
		       json_target("full_context_tables_mib", (double)tables / MIB, 1.8) ?
		       "met" : "MISSED");
	}
	for (i = 0; i < 14; i++)
		unmap(&c, iovas[i]);
	close(c.fd);
	return 0;
}


/* ---------------------------------------------------------------- fw */

#define FW_ROUNDS	2000

/* The debugfs directory of @node: /sys/kernel/debug/accel/<device>. */
static int fw_ping_path(const char *node, char *out, size_t len)
{
	char link[256], cls[128];
	const char *base = strrchr(node, '/');
	ssize_t n;
	char *dev;

	snprintf(cls, sizeof(cls), "/sys/class/accel/%s/device",
		 base ? base + 1 : node);
	n = readlink(cls, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = 0;
	dev = strrchr(link, '/');
	snprintf(out, len, "/sys/kernel/debug/accel/%s/fw_ping",
		 dev ? dev + 1 : link);
	if (access(out, R_OK)) {
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		if (access(out, R_OK))
			return -1;
	}
	return 0;
}

/* ------------------------------------------------- the pipe baseline */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The @q-th quantile (0..1) of @v[@n], which is sorted in place. */
static double quantile_us(uint64_t *v, unsigned int n, double q)
{
	unsigned int i;

	qsort(v, n, sizeof(*v), cmp_u64);
	i = (unsigned int)(q * (n - 1) + 0.5);
	return (double)v[i] / 1e3;
}

/* Pipe ping-pong between two processes, each round timed into @lat. */
static int pipe_rounds(uint64_t *lat, unsigned int rounds)
{
	int to[2], from[2];
	unsigned int i;
	pid_t pid;
	char c = 0;

	if (pipe(to) || pipe(from))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(to[1]);
		close(from[0]);
		for (;;) {
			if (read(to[0], &c, 1) != 1)
				_exit(0);
			if (write(from[1], &c, 1) != 1)
				_exit(1);
		}
	}
	close(to[0]);
	close(from[1]);
	for (i = 0; i < rounds / 10 + rounds; i++) {
		uint64_t t0 = now_ns();

		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
			return -1;
		if (i >= rounds / 10)		/* the first tenth warms up */
			lat[i - rounds / 10] = now_ns() - t0;
	}
	close(to[1]);
	close(from[0]);
	waitpid(pid, NULL, 0);
	return 0;
}

/* Mean pipe round trip in seconds over @rounds timed rounds, or -1. */
static double pipe_round_trip(unsigned int rounds)
{
	uint64_t *lat = calloc(rounds, sizeof(*lat)), sum = 0;
	unsigned int i;
	int ret;

	if (!lat)
		return -1;
	ret = pipe_rounds(lat, rounds);
	for (i = 0; i < rounds; i++)
		sum += lat[i];
	free(lat);
	return ret ? -1 : (double)sum / rounds / 1e9;
}

static int bench_fw(const char *node)
{
	char path[300], buf[32];
	unsigned int i;
	double t0, fw, pp;
	int fd;

	if (fw_ping_path(node, path, sizeof(path))) {
		fprintf(stderr, "ane-bench: no fw_ping in debugfs for %s (root and debugfs needed)\n",
			node);
		return 1;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return die(path);
	for (i = 0; i < FW_ROUNDS / 10; i++)	/* warm up */
		if (pread(fd, buf, sizeof(buf), 0) <= 0)
			return die("fw ping");
	t0 = now_s();
	for (i = 0; i < FW_ROUNDS; i++)
		if (pread(fd, buf, sizeof(buf), 0) <= 0)
			return die("fw ping");
	fw = (now_s() - t0) / FW_ROUNDS;
	close(fd);
	pp = pipe_round_trip(FW_ROUNDS);
	if (pp <= 0)
		return die("pipe");

	printf("fw: no-op command round trip (host -> ring -> firmware -> notification -> host), %u rounds\n",
	       FW_ROUNDS);
	printf("  fw no-op            %9.1f us   %9.0f commands/s\n", fw * 1e6,
	       1 / fw);
	printf("  baseline: pipe round trip between two processes %9.1f us   %9.0f /s\n",
	       pp * 1e6, 1 / pp);
	json_num("fw_noop_us", fw * 1e6);
	json_num("pipe_us", pp * 1e6);
	printf("  ratio               %.2f   (target <= 0.5: %s)\n", fw / pp,
	       json_target("fw_vs_pipe", fw / pp, 0.5) ? "met" : "MISSED");
	return 0;
}

/* ---------------------------------------------------------------- request */

#define REQ_ROUNDS	2000

/*
 * The smallest program, one relu of a 1x1x1x8 tensor, built into *@img;
 * *@net owns it.  Non-zero (said) on failure.
 */
static int relu_image(struct ane_net **net, const void **img, size_t *size)
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

static int req_fail(struct ane_dev *dev, const char *what)
{
	fprintf(stderr, "ane-bench: %s: %s\n", what, dev ? ane_errmsg(dev) : "");
	ane_close(dev);
	return 1;
}

static int bench_request(const char *node)
{
	static uint64_t lat[REQ_ROUNDS], sub[REQ_ROUNDS], evt[REQ_ROUNDS],
		eng[REQ_ROUNDS], pp[REQ_ROUNDS], fwl[REQ_ROUNDS];
	struct ane_surface *in = NULL, *out = NULL;
	double r50, r99, p50, p99, fw50 = -1;
	struct ane_program *prog = NULL;
	struct ane_dev *dev = NULL;
	struct ane_net *net = NULL;
	char err[512], path[300], buf[32];
	unsigned int i, warm = REQ_ROUNDS / 10;
	const void *img;
	size_t size;
	int fd;

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

	for (i = 0; i < warm + REQ_ROUNDS; i++) {
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
	}
	ane_surface_destroy(in);
	ane_surface_destroy(out);
	ane_program_destroy(prog);
	ane_close(dev);

	if (pipe_rounds(pp, REQ_ROUNDS))
		return die("pipe");

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
	printf("request: no-op request round trip (submit -> completion event read), one relu of 1x1x1x8, %u requests\n",
	       REQ_ROUNDS);
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
	printf("  ratio p50           %.2f   (target <= 1.5: %s)\n", r50 / p50,
	       json_target("request_vs_pipe_p50", r50 / p50, 1.5) ? "met" : "MISSED");
	printf("  ratio p99           %.2f   (target <= 3: %s)\n", r99 / p99,
	       json_target("request_vs_pipe_p99", r99 / p99, 3) ? "met" : "MISSED");
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
	return 0;
}

#define CHAIN_STEPS	100
#define CHAIN_DIM	8

/*
 * The resident loop: a recurrent step h' = tanh(h x W + b) on an 8x8 state
 * run CHAIN_STEPS times as a chain, each step's output read by the next
 * where it lies (ProgramInputsReady with a chained input), then the same
 * steps through selector 2 with the state copied from output to input by
 * naming the surfaces in turn; the two final states must be bit-identical.
 */
static int bench_chain(const char *node)
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

/* ---------------------------------------------------------------- load */

#define LOAD_SECONDS	2.0
#define LOAD_MAX_PROCS	64

/* What one process of the load reports to the parent. */
struct load_result {
	int err;			/* 0, or the errno that ended it */
	uint64_t done;			/* requests completed in the window */
	uint64_t busy, again;		/* libane's retries (ane_retry_counts) */
	char msg[200];
};

/*
 * One process of the load: its own control client, program and surfaces
 * (as independent applications have), ready on @ready, started by @go
 * closing, then submit-and-wait in a loop until @end (CLOCK_MONOTONIC).
 */
static void load_child(const char *node, const void *img, size_t size, int ready,
		       int go, int res)
{
	struct load_result r = { 0 };
	struct ane_surface *in = NULL, *out = NULL;
	struct ane_program *prog = NULL;
	struct ane_retry_counts rc;
	struct ane_dev *dev = NULL;
	uint64_t end = 0;
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
	while (!r.err && now_ns() < end) {
		uint64_t seqno;
		int st;

		if (ane_request_submit(prog, 0, &in, 1, &out, 1, &seqno) ||
		    ane_request_wait(dev, seqno, ane_deadline_ns(10000000000ull), &st, NULL)) {
			r.err = errno ? errno : EIO;
			snprintf(r.msg, sizeof(r.msg), "%s", ane_errmsg(dev));
			break;
		}
		r.done++;
	}
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
	uint64_t end = 0;
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
	while (now_ns() < end) {
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1) {
			r.err = errno ? errno : EPIPE;
			snprintf(r.msg, sizeof(r.msg), "pipe round trip");
			break;
		}
		r.done++;
	}
	close(to[1]);
	waitpid(echo, NULL, 0);
	if (write(res, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

struct load_figure {
	double rate;			/* requests/s, all processes */
	double min_rate, max_rate;	/* the slowest and fastest process */
	uint64_t busy;			/* retries on a full queue, in all */
};

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
	uint64_t end;
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
	for (i = 0; i < n; i++)
		if (write(go[1], &end, sizeof(end)) != sizeof(end))
			return die("start");
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
		f->rate += rate;
		f->busy += r.busy;
		if (f->min_rate < 0 || rate < f->min_rate)
			f->min_rate = rate;
		if (rate > f->max_rate)
			f->max_rate = rate;
	}
	while (wait(NULL) > 0)
		;
	close(ready[0]);
	close(go[1]);
	close(res[0]);
	return failed || ok != n ? -1 : 0;
}

static int bench_load(const char *node)
{
	/* 1, 8 and 64 are the targets' points; the rest draw the curve. */
	static const unsigned int procs[] = { 1, 2, 4, 7, 8, 16, 32, LOAD_MAX_PROCS };
	enum { P1 = 0, P8 = 4, P64 = 7, NP = sizeof(procs) / sizeof(procs[0]) };
	struct load_figure f[NP], pf[NP];
	struct ane_net *net = NULL;
	double best, pbest, fair, pfair;
	const void *img;
	unsigned int i;
	uint64_t busy = 0;
	char key[64];
	size_t size;

	/* Every process runs the request bench's program. */
	if (relu_image(&net, &img, &size))
		return 1;
	printf("load: N processes, each its own client and program, submit + wait in a loop for %.0f s\n",
	       LOAD_SECONDS);
	printf("  baseline: as many processes each in a pipe ping-pong with an echo process\n");
	printf("  processes   requests/s   slowest/s   fastest/s   slowest/fastest   busy retries   pipe trips/s   pipe slowest/fastest\n");
	fflush(stdout);
	for (i = 0; i < NP; i++) {
		if (load_run(node, img, size, procs[i], &f[i]) ||
		    load_run(node, NULL, 0, procs[i], &pf[i])) {
			ane_net_destroy(net);
			return 1;
		}
		printf("  %9u   %10.0f   %9.0f   %9.0f   %15.2f   %12" PRIu64 "   %12.0f   %20.2f\n",
		       procs[i], f[i].rate, f[i].min_rate, f[i].max_rate,
		       f[i].max_rate > 0 ? f[i].min_rate / f[i].max_rate : 0, f[i].busy,
		       pf[i].rate, pf[i].max_rate > 0 ? pf[i].min_rate / pf[i].max_rate : 0);
		fflush(stdout);
		snprintf(key, sizeof(key), "pipe_rate_%u", procs[i]);
		json_num(key, pf[i].rate);
		snprintf(key, sizeof(key), "pipe_slowest_%u", procs[i]);
		json_num(key, pf[i].min_rate);
		snprintf(key, sizeof(key), "pipe_fastest_%u", procs[i]);
		json_num(key, pf[i].max_rate);
		snprintf(key, sizeof(key), "rate_%u", procs[i]);
		json_num(key, f[i].rate);
		snprintf(key, sizeof(key), "slowest_%u", procs[i]);
		json_num(key, f[i].min_rate);
		snprintf(key, sizeof(key), "fastest_%u", procs[i]);
		json_num(key, f[i].max_rate);
		busy += f[i].busy;
	}
	ane_net_destroy(net);
	best = f[P1].rate > f[P8].rate ? f[P1].rate : f[P8].rate;
	pbest = pf[P1].rate > pf[P8].rate ? pf[P1].rate : pf[P8].rate;
	fair = f[P64].max_rate > 0 ? f[P64].min_rate / f[P64].max_rate : 0;
	pfair = pf[P64].max_rate > 0 ? pf[P64].min_rate / pf[P64].max_rate : 0;
	printf("  baseline: the best of 1 and 8 processes, %.0f requests/s\n", best);
	/*
	 * What the machine itself keeps of its best when 64 processes share
	 * it: the pipes' 64-vs-best and fairness.  Under QEMU's TCG every
	 * process switch costs a guest TLB flush, so even pipes lose most of
	 * their single-process rate; ane's figure over the pipes' says what
	 * ane adds to (or takes from) that.
	 */
	printf("  the pipes' own      64 vs best %.2f, fairness at 64 %.2f: ane's 64 vs best is %.2fx the pipes', its fairness %.2fx\n",
	       pf[P64].rate / pbest, pfair, (f[P64].rate / best) / (pf[P64].rate / pbest),
	       pfair > 0 ? fair / pfair : 0);
	json_num("pipe_64_vs_best", pf[P64].rate / pbest);
	json_num("pipe_fairness_64", pfair);
	json_num("fairness_64", fair);
	json_num("64_vs_best", f[P64].rate / best);
	/* json_target() checks "<=": the ">=" targets are recorded inverted. */
	printf("  64 vs best          %.2f   (target >= 0.9: %s)\n", f[P64].rate / best,
	       f[P64].rate > 0 && json_target("best_vs_64", best / f[P64].rate, 1 / 0.9) ?
	       "met" : "MISSED");
	printf("  fairness at 64      %.2f   (target >= 0.67: %s)\n", fair,
	       fair > 0 && json_target("fastest_vs_slowest_64", 1 / fair, 1.5) ? "met" : "MISSED");
	printf("  busy retries        %" PRIu64 "   (target 0: %s)\n", busy,
	       json_target("busy_retries", (double)busy, 0) ? "met" : "MISSED");
	return 0;
}

/* ---------------------------------------------------------- broker */

#define BROKER_ROUNDS	500

/*
 * An evaluate round trip through aned (its socket: $ANE_BROKER_SOCKET, or
 * the default; aned must be running) beside the same program's request
 * round trip on the device itself, p50 and p99 of each.
 */
static int bench_broker(const char *node)
{
	static uint64_t blat[BROKER_ROUNDS], dlat[BROKER_ROUNDS];
	struct ane_surface *in = NULL, *out = NULL;
	uint16_t x[8] = { 0 }, y[8];
	const void *ins[1] = { x };
	void *outs[1] = { y };
	size_t in_size = sizeof(x), out_size = sizeof(y);
	struct ane_program *prog = NULL;
	struct ane_broker *b = NULL;
	struct ane_dev *dev = NULL;
	struct ane_net *net = NULL;
	unsigned int i, warm = BROKER_ROUNDS / 10;
	double b50, b99, d50, d99;
	char err[512];
	uint64_t model;
	const void *img;
	size_t size;

	if (relu_image(&net, &img, &size))
		return 1;
	if (ane_broker_connect(NULL, &b, err, sizeof(err))) {
		fprintf(stderr, "ane-bench: broker: %s\n", err);
		ane_net_destroy(net);
		return 1;
	}
	if (ane_broker_load(b, img, size, ANE_QOS_DEFAULT, 0, &model)) {
		fprintf(stderr, "ane-bench: broker: %s\n", ane_broker_errmsg(b));
		goto fail;
	}
	for (i = 0; i < warm + BROKER_ROUNDS; i++) {
		uint64_t t0 = now_ns();

		if (ane_broker_evaluate(b, model, ins, &in_size, 1, outs, &out_size, 1,
					ANE_QOS_DEFAULT, NULL)) {
			fprintf(stderr, "ane-bench: broker: %s\n", ane_broker_errmsg(b));
			goto fail;
		}
		if (i >= warm)
			blat[i - warm] = now_ns() - t0;
	}
	ane_broker_close(b);
	b = NULL;

	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		fprintf(stderr, "ane-bench: %s\n", err);
		goto fail;
	}
	if (ane_program_create(dev, img, size, &prog) || ane_program_prepare(prog) ||
	    ane_surface_create(dev, 16, &in) || ane_surface_create(dev, 16, &out)) {
		ane_net_destroy(net);
		return req_fail(dev, "setup");
	}
	memset(ane_surface_map(in), 0, 16);
	for (i = 0; i < warm + BROKER_ROUNDS; i++) {
		uint64_t seqno, t0 = now_ns();
		int st;

		if (ane_request_submit(prog, 0, &in, 1, &out, 1, &seqno) ||
		    ane_request_wait(dev, seqno, ane_deadline_ns(10000000000ull), &st, NULL)) {
			ane_net_destroy(net);
			return req_fail(dev, "direct request");
		}
		if (i >= warm)
			dlat[i - warm] = now_ns() - t0;
	}
	ane_surface_destroy(in);
	ane_surface_destroy(out);
	ane_program_destroy(prog);
	ane_close(dev);
	ane_net_destroy(net);

	b50 = quantile_us(blat, BROKER_ROUNDS, 0.5);
	b99 = quantile_us(blat, BROKER_ROUNDS, 0.99);
	d50 = quantile_us(dlat, BROKER_ROUNDS, 0.5);
	d99 = quantile_us(dlat, BROKER_ROUNDS, 0.99);
	printf("broker: the request bench's program (one relu of 1x1x1x8), %u round trips each\n",
	       BROKER_ROUNDS);
	printf("  through aned (Evaluate: copy in, submit, wait, copy out)  p50 %9.1f us   p99 %9.1f us\n",
	       b50, b99);
	printf("  direct (ProgramSendRequest + completion event)           p50 %9.1f us   p99 %9.1f us\n",
	       d50, d99);
	printf("  ratio p50           %.2f   (the cost of the broker's hop: D-Bus both ways, its copies)\n",
	       b50 / d50);
	json_num("broker_p50_us", b50);
	json_num("broker_p99_us", b99);
	json_num("direct_p50_us", d50);
	json_num("direct_p99_us", d99);
	json_num("broker_vs_direct_p50", b50 / d50);
	return 0;

fail:
	ane_broker_close(b);
	ane_net_destroy(net);
	return 1;
}

static const struct {
	const char *name;
	int (*fn)(const char *node);
	const char *help;
} benches[] = {
	{ "dart", bench_dart, "DART map/unmap cost and page-table memory" },
	{ "fw", bench_fw, "no-op firmware round trip vs a pipe round trip" },
	{ "request", bench_request, "no-op request round trip p50/p99 vs a pipe ping-pong" },
	{ "chain", bench_chain, "a 100-step resident loop, chained vs selector 2" },
	{ "load", bench_load, "1, 8 and 64 processes at once: throughput, fairness" },
	{ "broker", bench_broker, "an evaluate through aned vs the same request direct" },
};

int main(int argc, char **argv)
{
	const char *json_path = NULL;
	char node[64];
	unsigned int i;
	int ret;

	if (argc >= 3 && !strcmp(argv[1], "--json")) {
		json_path = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc >= 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("ane-bench (libane) %s\n", ane_version());
		return 0;
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: ane-bench [--json FILE] BENCH [NODE]\n"
			"       ane-bench --help | --version\n\nbenches:\n");
		for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
			fprintf(f, "  %-8s %s\n", benches[i].name, benches[i].help);
		fprintf(f, "\nNODE: the device node (default: the first ane node)\n");
		return argc < 2 ? 2 : 0;
	}
	if (argc > 2)
		snprintf(node, sizeof(node), "%s", argv[2]);
	else if (ane_find_node(0, node, sizeof(node))) {
		fprintf(stderr, "ane-bench: no /dev/accel node is bound to ane (is ane.ko loaded?)\n");
		return 1;
	}
	for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		if (!strcmp(argv[1], benches[i].name))
			break;
	if (i == sizeof(benches) / sizeof(benches[0])) {
		fprintf(stderr, "ane-bench: unknown bench '%s'\n", argv[1]);
		return 2;
	}
	if (json_path) {
		json = fopen(json_path, "w");
		if (!json)
			return die(json_path);
		fprintf(json, "{\n  \"tool\": \"ane-bench\", \"version\": \"%s\", \"bench\": \"%s\",\n  \"results\": {",
			ane_version(), benches[i].name);
	}
	ret = benches[i].fn(node);
	if (json) {
		fprintf(json, "\n  },\n  \"exit\": %d\n}\n", ret);
		if (fclose(json))
			return die(json_path);
	}
	return ret;
}
