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
 *   ane-bench load     1, 2, 4, 7, 8, 16, 32 and 64 processes submitting
 *                      at once (ANE_BENCH_LOAD picks others): aggregate
 *                      throughput, fairness between the processes and the
 *                      busy retries libane made, vs the best of 1 and 8
 *   ane-bench broker   an Evaluate round trip through aned (running, at
 *                      $ANE_BROKER_SOCKET or the default socket) beside
 *                      the same program's request round trip on the device
 *
 * With --json FILE the figures (and the latency quantiles) are also
 * written to FILE as one JSON object (json-c), for tools/perf-report.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "ane_json.h"
#include "ane_opt.h"
#include "bench.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int die(const char *what)
{
	fprintf(stderr, "ane-bench: %s: %s (%s)\n", what, strerror(errno),
		ane_errno_name(errno));
	return 1;
}

/* ---------------------------------------------------- results as JSON */

static struct json_object *results;	/* --json FILE's "results", or NULL */

void json_num(const char *key, double v)
{
	if (results)
		ane_json_add_num(results, key, v, "%.6g");
}

/* json_num() under the key "@prefix_@n" (one figure per process count). */
void json_num_at(const char *prefix, unsigned int n, double v)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_%u", prefix, n);
	json_num(key, v);
}

/*
 * A figure with its target: printed as "ratio X (target <= T: met)" by
 * the caller, recorded here as {"value", "target", "met"} so a report
 * never has to parse the text.
 */
int json_target(const char *key, double v, double target)
{
	if (results)
		json_object_object_add(results, key, ane_json_target(v, "%.6g", target, "%.6g"));
	return v <= target;
}

/* @v[@n] sorted ascending, in ns: the 0th..100th percentiles in us. */
void json_cdf(const char *key, const uint64_t *v, unsigned int n)
{
	struct json_object *a;
	unsigned int q;

	if (!results)
		return;
	a = json_object_new_array();
	for (q = 0; q <= 100; q++)
		json_object_array_add(a, ane_json_num(
			(double)v[(unsigned int)((double)q / 100 * (n - 1) + 0.5)] / 1e3, "%.3f"));
	json_object_object_add(results, key, a);
}

/* The debugfs directory of @node: /sys/kernel/debug/accel/<device>. */
int fw_ping_path(const char *node, char *out, size_t len)
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

uint64_t now_ns(void)
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
double quantile_us(uint64_t *v, unsigned int n, double q)
{
	unsigned int i;

	qsort(v, n, sizeof(*v), cmp_u64);
	i = (unsigned int)(q * (n - 1) + 0.5);
	return (double)v[i] / 1e3;
}

/* Pipe ping-pong between two processes, each round timed into @lat. */
int pipe_rounds(uint64_t *lat, unsigned int rounds)
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

static const struct {
	const char *name;
	int (*fn)(const char *node);
	const char *help;
} benches[] = {
	{ "dart", bench_dart, "DART map/unmap cost and page-table memory" },
	{ "fw", bench_fw, "no-op firmware round trip vs a pipe round trip" },
	{ "request", bench_request, "no-op request round trip p50/p99 vs a pipe ping-pong" },
	{ "chain", bench_chain, "a 100-step resident loop, chained vs selector 2" },
	{ "load", bench_load, "1, 2, 4, 7, 8, 16, 32 and 64 processes at once: throughput, fairness" },
	{ "broker", bench_broker, "an evaluate through aned vs the same request direct" },
};

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: ane-bench [--json FILE] BENCH [NODE]\n"
		"       ane-bench --help | --version\n\nbenches:\n");
	for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		fprintf(f, "  %-8s %s\n", benches[i].name, benches[i].help);
	fprintf(f, "\nNODE: the device node (default: the first ane node)\n"
		"--json FILE: the figures also as one JSON object in FILE\n"
		"load: ANE_BENCH_LOAD=\"1 8 64\" runs only those process counts,\n"
		"      ANE_BENCH_DEPTH=D keeps D (1..16) requests in flight per process\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json_path = NULL;
	struct json_object *doc;
	char node[64];
	unsigned int i;
	int ret, o;

	ane_opt_init("ane-bench");
	while ((o = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			json_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ane-bench (libane) %s\n", ane_version());
			return 0;
		default:
			return ane_opt_bad(o, argv);
		}
	}
	if (ane_opt_operands(argc, argv, 1, 2, "BENCH (ane-bench --help lists them)"))
		return 2;
	/* the arguments first: an unknown bench is named before any device */
	for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		if (!strcmp(argv[optind], benches[i].name))
			break;
	if (i == sizeof(benches) / sizeof(benches[0]))
		return ane_usage_error("unknown bench '%s' (ane-bench --help lists them)",
				       argv[optind]);
	if (optind + 1 < argc)
		snprintf(node, sizeof(node), "%s", argv[optind + 1]);
	else if (ane_find_node(0, node, sizeof(node))) {
		fprintf(stderr, "ane-bench: no /dev/accel node is bound to ane (is ane.ko loaded?)\n");
		return 1;
	}
	if (json_path)
		results = json_object_new_object();
	ret = benches[i].fn(node);
	if (results) {
		doc = json_object_new_object();
		json_object_object_add(doc, "tool", json_object_new_string("ane-bench"));
		json_object_object_add(doc, "version", json_object_new_string(ane_version()));
		json_object_object_add(doc, "bench", json_object_new_string(benches[i].name));
		json_object_object_add(doc, "results", results);
		json_object_object_add(doc, "exit", json_object_new_int(ret));
		if (ane_json_write(doc, NULL, json_path))
			return die(json_path);
	}
	return ret;
}
