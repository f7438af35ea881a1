// SPDX-License-Identifier: MIT
/*
 * anectl: top, every client of ane live, from each process's fdinfo in
 * /proc.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ane_json.h"
#include "ane_opt.h"
#include "libane.h"
#include "anectl.h"

/* One client: an open file of an ane node, as its fdinfo reports it. */
struct top_client {
	pid_t pid;
	char comm[64];
	char node[64];
	unsigned long long id, engine_ns, submitted, completed;
	unsigned long long charged_kib, total_b, shared_b, resident_b;
	int prev;			/* had a previous sample */
	unsigned long long p_engine_ns, p_submitted, p_completed;
};

struct top_set {
	struct top_client *c;
	size_t n, cap;
	unsigned int denied;		/* processes whose fds we may not read */
};

/* "N", "N B", "N KiB", "N MiB", "N GiB" in bytes; "N ns" as is. */
static unsigned long long fdinfo_value(const char *v)
{
	unsigned long long x;
	char unit[8] = "";

	if (sscanf(v, "%llu %7s", &x, unit) < 1)
		return 0;
	if (!strcmp(unit, "KiB"))
		x <<= 10;
	else if (!strcmp(unit, "MiB"))
		x <<= 20;
	else if (!strcmp(unit, "GiB"))
		x <<= 30;
	return x;
}

/* Parse /proc/@pid/fdinfo/@fd into @c; 1 when it is a client of ane. */
static int top_parse(pid_t pid, const char *fd, struct top_client *c)
{
	char path[128], line[256];
	int ane = 0, have_id = 0;
	FILE *f;

	sfmt(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid, fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "drm-driver"))
			ane = !strcmp(v, "ane");
		else if (!strcmp(line, "drm-client-id"))
			have_id = sscanf(v, "%llu", &c->id) == 1;
		else if (!strcmp(line, "drm-engine-ane"))
			c->engine_ns = fdinfo_value(v);
		else if (!strcmp(line, "ane-requests-submitted"))
			c->submitted = fdinfo_value(v);
		else if (!strcmp(line, "ane-requests-completed"))
			c->completed = fdinfo_value(v);
		else if (!strcmp(line, "ane-memory-charged"))
			c->charged_kib = fdinfo_value(v) >> 10;
		else if (!strcmp(line, "drm-total-memory"))
			c->total_b = fdinfo_value(v);
		else if (!strcmp(line, "drm-shared-memory"))
			c->shared_b = fdinfo_value(v);
		else if (!strcmp(line, "drm-resident-memory"))
			c->resident_b = fdinfo_value(v);
	}
	fclose(f);
	return ane && have_id;
}

/*
 * Every open file of an accel node (matching @only, when given) whose
 * fdinfo says drm-driver ane, one entry per client (a client's file may
 * be open in several fds or processes: the first one found is shown).
 */
static int top_scan(struct top_set *s, const char *only)
{
	struct dirent *pe, *fe;
	DIR *proc, *fds;

	s->n = 0;
	s->denied = 0;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while ((pe = readdir(proc))) {
		char path[PATH_MAX], link[PATH_MAX];
		char *end;
		long pid = strtol(pe->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		sfmt(path, sizeof(path), "/proc/%ld/fd", pid);
		fds = opendir(path);
		if (!fds) {
			if (errno == EACCES)
				s->denied++;
			continue;
		}
		while ((fe = readdir(fds))) {
			struct top_client c = { .pid = (pid_t)pid };
			ssize_t n;
			size_t i;

			if (fe->d_name[0] == '.')
				continue;
			sfmt(path, sizeof(path), "/proc/%ld/fd/%s", pid, fe->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			/* only accel nodes: skip every other fd without reading it */
			if (strncmp(link, "/dev/accel/accel", 16))
				continue;
			if (only && strcmp(link, only))
				continue;
			if (!top_parse((pid_t)pid, fe->d_name, &c))
				continue;
			sfmt(c.node, sizeof(c.node), "%s", link);
			for (i = 0; i < s->n; i++)
				if (s->c[i].id == c.id && !strcmp(s->c[i].node, c.node))
					break;
			if (i < s->n)
				continue;
			sfmt(path, sizeof(path), "/proc/%ld/comm", pid);
			if (read_line(path, c.comm, sizeof(c.comm)) || !c.comm[0])
				sfmt(c.comm, sizeof(c.comm), "?");
			if (s->n == s->cap) {
				size_t cap = s->cap ? s->cap * 2 : 16;
				struct top_client *nc = realloc(s->c, cap * sizeof(*nc));

				if (!nc) {
					closedir(fds);
					closedir(proc);
					return -ENOMEM;
				}
				s->c = nc;
				s->cap = cap;
			}
			s->c[s->n++] = c;
		}
		closedir(fds);
	}
	closedir(proc);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Carry the counters of each client's previous sample in @old over to @cur. */
static void top_carry(struct top_set *cur, const struct top_set *old)
{
	size_t i, j;

	for (i = 0; i < cur->n; i++) {
		struct top_client *c = &cur->c[i];

		c->prev = 0;
		for (j = 0; j < old->n; j++) {
			const struct top_client *o = &old->c[j];

			if (o->id == c->id && !strcmp(o->node, c->node)) {
				c->prev = 1;
				c->p_engine_ns = o->engine_ns;
				c->p_submitted = o->submitted;
				c->p_completed = o->completed;
				break;
			}
		}
	}
}

static void top_print(const struct top_set *s, double dt, unsigned int interval_ms,
		      int tty, int first)
{
	char when[16];
	time_t t = time(NULL);
	struct tm tm;
	size_t i;

	if (tty)
		fputs("\033[H\033[2J", stdout);
	else if (!first)
		putchar('\n');
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	printf("anectl top - %s, every %u ms, %zu client%s\n", when, interval_ms, s->n,
	       s->n == 1 ? "" : "s");
	if (!s->n) {
		printf("no ane clients (no open file of an ane node in /proc/*/fdinfo)\n");
	} else {
		printf("%7s %-18s %5s %12s %6s %9s %9s %7s %9s %9s %10s %s\n",
		       "PID", "NODE", "ID", "ENGINE-ms", "BUSY%", "SUBMITTED",
		       "COMPLETED", "REQ/s", "CHARGED-K", "MEM-K", "RESIDENT-K",
		       "COMMAND");
		for (i = 0; i < s->n; i++) {
			const struct top_client *c = &s->c[i];
			char busy[16], rate[16];

			if (c->prev && dt > 0 && c->engine_ns >= c->p_engine_ns &&
			    c->completed >= c->p_completed) {
				sfmt(busy, sizeof(busy), "%.1f",
				     (double)(c->engine_ns - c->p_engine_ns) / (dt * 1e7));
				sfmt(rate, sizeof(rate), "%.0f",
				     (double)(c->completed - c->p_completed) / dt);
			} else {
				sfmt(busy, sizeof(busy), "-");
				sfmt(rate, sizeof(rate), "-");
			}
			printf("%7d %-18s %5llu %12.3f %6s %9llu %9llu %7s %9llu %9llu %10llu %s\n",
			       (int)c->pid, c->node, c->id, (double)c->engine_ns / 1e6,
			       busy, c->submitted, c->completed, rate, c->charged_kib,
			       c->total_b >> 10, c->resident_b >> 10, c->comm);
		}
	}
	if (s->denied && geteuid())
		printf("(%u process%s not readable: run as root to see every client)\n",
		       s->denied, s->denied == 1 ? "" : "es");
	fflush(stdout);
}

/* One sample as JSON (top --json): the clients and their rates. */
static int top_json(const struct top_set *s, double dt, unsigned int interval_ms)
{
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();
	size_t i;

	json_object_object_add(o, "time", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(o, "interval_ms", json_object_new_int64(interval_ms));
	for (i = 0; i < s->n; i++) {
		const struct top_client *c = &s->c[i];
		struct json_object *j = json_object_new_object();
		int rates = c->prev && dt > 0 && c->engine_ns >= c->p_engine_ns &&
			    c->completed >= c->p_completed;

		json_object_object_add(j, "pid", json_object_new_int(c->pid));
		json_object_object_add(j, "node", json_object_new_string(c->node));
		json_object_object_add(j, "client", json_object_new_uint64(c->id));
		json_object_object_add(j, "engine_ns", json_object_new_uint64(c->engine_ns));
		json_object_object_add(j, "busy_percent", !rates ? NULL :
			ane_json_num((double)(c->engine_ns - c->p_engine_ns) / (dt * 1e7), "%.1f"));
		json_object_object_add(j, "submitted", json_object_new_uint64(c->submitted));
		json_object_object_add(j, "completed", json_object_new_uint64(c->completed));
		json_object_object_add(j, "completed_per_s", !rates ? NULL :
			ane_json_num((double)(c->completed - c->p_completed) / dt, "%.1f"));
		json_object_object_add(j, "charged_kib", json_object_new_uint64(c->charged_kib));
		json_object_object_add(j, "total_bytes", json_object_new_uint64(c->total_b));
		json_object_object_add(j, "shared_bytes", json_object_new_uint64(c->shared_b));
		json_object_object_add(j, "resident_bytes", json_object_new_uint64(c->resident_b));
		json_object_object_add(j, "command", json_object_new_string(c->comm));
		json_object_array_add(list, j);
	}
	json_object_object_add(o, "clients", list);
	json_object_object_add(o, "unreadable_processes", json_object_new_int64(s->denied));
	return ane_json_write(o, stdout, NULL);
}

static void top_usage(void)
{
	printf("usage: anectl [-d NODE] top [-d NODE] [--interval MS] [-n N | --once] [--json]\n"
	       "\n"
	       "Every ane client (open file of an ane node) of every process, from\n"
	       "/proc/<pid>/fdinfo: pid, node, drm-client-id, engine time and busy %%\n"
	       "over the interval, requests submitted and completed and completions\n"
	       "per second, memory charged (KiB), surfaces total and resident (KiB),\n"
	       "command.  Refreshes until interrupted.\n"
	       "  -d, --device NODE  only the clients of NODE\n"
	       "  -i, --interval MS  time between samples, 1..3600000 (default 1000)\n"
	       "  -n, --samples N    print N samples, then exit 0\n"
	       "  --once             the same as -n 1\n"
	       "  --json             one sample (-n 1) as a JSON object\n"
	       "  -h, --help         this help\n");
}

int cmd_top(const char *node, int json, int argc, char **argv)
{
	enum { O_ONCE = 256 };
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "samples", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, O_ONCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct top_set cur = { 0 }, old = { 0 }, tmp;
	unsigned int interval = 1000, samples = 0, k;
	int o, tty = isatty(STDOUT_FILENO), err;
	double t0, t1;

	optind = 0;
	while ((o = getopt_long(argc, argv, ":d:i:n:h", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			if (!*optarg)
				return ane_usage_error("-d needs a NODE (anectl list shows them)");
			node = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case O_ONCE:
			samples = 1;
			break;
		case 'n':
			if (ane_opt_uint("--samples", optarg, 1, 1000000, NULL, &samples))
				return 2;
			break;
		case 'i':
			if (ane_opt_uint("--interval", optarg, 1, 3600000, "ms", &interval))
				return 2;
			break;
		case 'h':
			top_usage();
			return 0;
		default:
			return anectl_bad_opt(o, argv);
		}
	}
	if (ane_opt_operands(argc, argv, 0, 0, NULL))
		return 2;
	if (json && samples > 1)
		return ane_usage_error("--json prints one sample, not %u (-n 1 or --once)", samples);
	if (json)
		samples = 1;

	err = top_scan(&old, node);
	t0 = now_s();
	for (k = 0; !err && (!samples || k < samples); k++) {
		struct timespec ts = {
			.tv_sec = (time_t)(interval / 1000),
			.tv_nsec = (long)(interval % 1000) * 1000000L,
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		err = top_scan(&cur, node);
		t1 = now_s();
		if (err)
			break;
		top_carry(&cur, &old);
		if (json)
			err = top_json(&cur, t1 - t0, interval) ? -errno : 0;
		else
			top_print(&cur, t1 - t0, interval, tty, !k);
		tmp = old;
		old = cur;
		cur = tmp;
		t0 = t1;
	}
	free(cur.c);
	free(old.c);
	if (err) {
		fprintf(stderr, "anectl top: scanning /proc: %s (%s)\n", ane_errno_name(-err),
			strerror(-err));
		return 1;
	}
	return 0;
}
