// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: its command line (getopt_long, through tools/common/ane_opt.c), the
 * --exclude list and the --replay file.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <limits.h>

#include "ane_opt.h"
#include "fuzz.h"

static int parse_replay(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512];
	size_t cap = 0;

	if (!f) {
		fprintf(stderr, "ane-fuzz: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[64], *p = strstr(line, "op ");
		unsigned long long idx, seed;
		int op;

		if (!p || (p != line && p[-1] != ' ' && p[-1] != '\t'))
			continue;
		if (sscanf(p, "op %llu %63s %llx", &idx, name, &seed) != 3)
			continue;
		op = op_by_name(name);
		if (op < 0) {
			fprintf(stderr, "ane-fuzz: %s: unknown operation '%s'\n", file, name);
			fclose(f);
			return -1;
		}
		if (replay_n == cap) {
			cap = cap ? 2 * cap : 64;
			replay_ops = realloc(replay_ops, cap * sizeof(*replay_ops));
			if (!replay_ops) {
				fclose(f);
				return -1;
			}
		}
		replay_ops[replay_n].op = op;
		replay_ops[replay_n].seed = seed;
		replay_n++;
	}
	fclose(f);
	if (!replay_n) {
		fprintf(stderr, "ane-fuzz: %s: no 'op N NAME SEED' lines\n", file);
		return -1;
	}
	return 0;
}

static int parse_exclude(const char *list)
{
	char *s = strdup(list), *tok, *save = NULL;
	unsigned int i;
	int op;

	if (!s)
		return -1;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;

		op = op_by_name(tok);
		if (op >= 0) {
			excluded_op[op] = 1;
			found = 1;
		}
		for (i = 0; i < N_DRM_IOS; i++)
			if (!strcmp(drm_ios[i].name, tok) ||
			    (!strncmp(tok, "DRM_IOCTL_", 10) && !strcmp(drm_ios[i].name, tok + 10))) {
				excluded_drm[i] = 1;
				found = 1;
			}
		if (!found) {
			fprintf(stderr, "ane-fuzz: --exclude: unknown operation or DRM ioctl '%s'\n", tok);
			free(s);
			return -1;
		}
	}
	free(s);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ane-fuzz [options]\n"
		"\n"
		"  --seed N           seed of the whole run (default 1); worker W's\n"
		"                     sequence follows from N and W alone\n"
		"  --time SECONDS     stop after this long (default 10; 0: no limit)\n"
		"  --iterations N     stop each worker after N operations\n"
		"  --procs P          worker processes (default 2)\n"
		"  --threads T        worker threads in each (default 2)\n"
		"  --inject           (root) an injector drives debugfs fw_inject and\n"
		"                     dart_evict, runtime PM and the writable module\n"
		"                     parameters meanwhile (put back at the end)\n"
		"  --unplug           (with --inject) the injector also unbinds a device\n"
		"                     and binds it again (one injection in ten); the\n"
		"                     workers go on with its new node\n"
		"  --user UID         workers drop to UID (and GID UID) after the node\n"
		"                     is made 0666; the supervisor, injector and canary\n"
		"                     stay root\n"
		"  --node PATH        fuzz this node (repeatable; default: every ane node)\n"
		"  --worker W         run only worker W's sequence (with --seed, --iterations)\n"
		"  --replay FILE      run the 'op N NAME SEED' lines of FILE in order, one worker\n"
		"  --exclude LIST     comma-separated operations (e.g. fork,raw) or DRM ioctls\n"
		"                     (e.g. GET_UNIQUE) to leave out\n"
		"  --ring K           operations per reproducer (default 32, at most %d)\n"
		"  --hang-timeout S   an operation running longer is a hang (default 60)\n"
		"  --verbose          log every operation to stderr\n"
		"  -h, --help         this help\n"
		"  -V, --version      libane's version\n"
		"\n"
		"Operations: open close dup share, the 26 selectors (ctl.* dp.*),\n"
		"ane.SurfaceCreate ane.Dma ane.GetFault ane.Method ane.MethodBuf\n"
		"ane.CapsDrop ane.ProgramShare, drm (every DRM core ioctl) syncobj\n"
		"prime raw (any 'd' number), mmap munmap touch read run fork reap fdinfo\n"
		"sysfs wrong-size, and inject (the injector's).\n"
		"\n"
		"The last line is \"ane-fuzz: N passed, N failed\": workers that finished\n"
		"clean and the canary; the exit status is 1 on any failure.\n", RING_MAX);
}

/* Parse the command line into opt (and the replay, the exclusions): 0 or 2. */
int parse_args(int argc, char **argv)
{
	enum { O_SEED = 256, O_TIME, O_ITER, O_PROCS, O_THREADS, O_INJECT, O_UNPLUG,
	       O_USER, O_NODE, O_WORKER, O_REPLAY, O_EXCLUDE, O_RING, O_HANG, O_VERBOSE };
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, O_SEED },
		{ "time", required_argument, NULL, O_TIME },
		{ "iterations", required_argument, NULL, O_ITER },
		{ "procs", required_argument, NULL, O_PROCS },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "inject", no_argument, NULL, O_INJECT },
		{ "unplug", no_argument, NULL, O_UNPLUG },
		{ "user", required_argument, NULL, O_USER },
		{ "node", required_argument, NULL, O_NODE },
		{ "worker", required_argument, NULL, O_WORKER },
		{ "replay", required_argument, NULL, O_REPLAY },
		{ "exclude", required_argument, NULL, O_EXCLUDE },
		{ "ring", required_argument, NULL, O_RING },
		{ "hang-timeout", required_argument, NULL, O_HANG },
		{ "verbose", no_argument, NULL, O_VERBOSE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int u;
	int c, bad = 0;

	ane_opt_init("ane-fuzz");
	while (!bad && (c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("ane-fuzz (libane) %s\n", ane_version());
			exit(0);
		case O_SEED:
			bad = ane_opt_u64("--seed", optarg, 0, UINT64_MAX, NULL, &opt.seed);
			break;
		case O_ITER:
			bad = ane_opt_u64("--iterations", optarg, 0, UINT64_MAX, NULL,
					  &opt.iterations);
			break;
		case O_TIME:
			bad = ane_opt_double("--time", optarg, 0, 31536000, "seconds", &opt.time_s);
			break;
		case O_PROCS:
			bad = ane_opt_uint("--procs", optarg, 1, MAX_WORKERS - 1, NULL, &u);
			opt.procs = (int)u;
			break;
		case O_THREADS:
			bad = ane_opt_uint("--threads", optarg, 1, MAX_WORKERS - 1, NULL, &u);
			opt.threads = (int)u;
			break;
		case O_INJECT:
			opt.inject = 1;
			break;
		case O_UNPLUG:
			opt.unplug = 1;
			break;
		case O_VERBOSE:
			opt.verbose = 1;
			break;
		case O_USER:
			bad = ane_opt_uint("--user", optarg, 0, INT_MAX, NULL, &u);
			opt.user = (int)u;
			break;
		case O_NODE:
			if (opt.nnodes == MAX_NODES)
				return ane_usage_error("at most %d --node, not '%s' too", MAX_NODES,
						       optarg);
			snprintf(opt.nodes[opt.nnodes++], sizeof(opt.nodes[0]), "%s", optarg);
			break;
		case O_WORKER:
			bad = ane_opt_uint("--worker", optarg, 0, INT_MAX, NULL, &u);
			opt.only_worker = (int)u;
			break;
		case O_REPLAY:
			opt.replay = optarg;
			break;
		case O_EXCLUDE:
			opt.exclude = optarg;
			break;
		case O_RING:
			bad = ane_opt_uint("--ring", optarg, 1, RING_MAX, "operations", &u);
			opt.ring = (int)u;
			break;
		case O_HANG:
			bad = ane_opt_uint("--hang-timeout", optarg, 1, 86400, "seconds", &u);
			opt.hang_s = (int)u;
			break;
		default:
			return ane_opt_bad(c, argv);
		}
	}
	if (bad || ane_opt_operands(argc, argv, 0, 0, NULL))
		return 2;
	if (opt.procs * opt.threads > MAX_WORKERS - 1)
		return ane_usage_error("--procs x --threads must be 1..%d, not %d x %d",
				       MAX_WORKERS - 1, opt.procs, opt.threads);
	if (opt.unplug && !opt.inject)
		return ane_usage_error("--unplug needs --inject (the injector does it)");
	if (opt.inject && geteuid() != 0) {
		fprintf(stderr, "ane-fuzz: --inject needs root (debugfs)\n");
		return 2;
	}
	if (opt.user >= 0 && geteuid() != 0) {
		fprintf(stderr, "ane-fuzz: --user needs root\n");
		return 2;
	}
	if (opt.replay || opt.only_worker >= 0)
		opt.procs = opt.threads = 1;
	if (opt.exclude && parse_exclude(opt.exclude))
		return 2;
	if (opt.replay && parse_replay(opt.replay))
		return 2;
	return 0;
}
