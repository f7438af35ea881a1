// SPDX-License-Identifier: GPL-2.0-only
/*
 * onnx-suite: ONNX's own test suite on ane.  Every model directory of
 * Debian's libonnx-testdata (model.onnx and test_data_set_N/input_K.pb,
 * output_K.pb) is loaded through libane's ONNX front end twice -- engine
 * only, and with CPU fallback -- and run on the engine's userspace build
 * (tools/engine-host/ane_netrun.c: the firmware's task-descriptor decoding and the
 * engine's own arithmetic).  Each run is one of
 *
 *   passed   every output within the tolerance (onnx.rst, "Tolerance")
 *   refused  the load said why (an op, a dtype, a shape it does not take),
 *            or the run did (engine-only: the numeric guard, -ERANGE)
 *   wrong    it ran, and an output is outside the tolerance or has
 *            another shape, dtype, or the run failed
 *   crashed  a signal, or no answer within the time limit
 *
 * counted per directory, with the issue's targets beside them.  Every
 * model runs in a child process of its own.  The last line is
 * "onnx-suite: N passed, N failed": the runs that passed, and the wrong
 * and the crashed ones, of both columns (a refusal is neither).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libane.h"
#include "ox.h"
#include "ox_load.h"
#include "tools/engine-host/ane_netrun.h"

#define DEFAULT_ROOT	"/usr/share/libonnx-testdata/data"
#define MAX_IO		64

enum result { R_PASSED, R_REFUSED, R_WRONG, R_CRASHED, R_COUNT };
static const char *const rname[R_COUNT] = { "passed", "refused", "wrong", "crashed" };

/* What a child reports to the parent through a pipe. */
struct report {
	int result;
	int engine_nodes, cpu_nodes;
	char msg[400];
};

static struct {
	const char *root;
	const char *filter;
	int verbose;
	int timeout;
	FILE *log;
	char *expect;		/* --expect: "dir/model\n" lines, NUL-ended */
	const char *expect_path;
	int regressions;	/* listed models that did not pass engine-only */
} opt = { DEFAULT_ROOT, NULL, 0, 120, NULL, NULL, NULL, 0 };

/* Is "dir/model" a line of the --expect list? */
static int expected(const char *dir, const char *model)
{
	size_t ld = strlen(dir), lm = strlen(model);
	const char *p = opt.expect;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == ld + 1 + lm && !strncmp(p, dir, ld) && p[ld] == '/' &&
		    !strncmp(p + ld + 1, model, lm))
			return 1;
		p = e ? e + 1 : p + len;
	}
	return 0;
}

/* ------------------------------------------------------------ files */

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf)
			buf[n] = '\0';	/* a text file reads as a string */
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

static struct ox_value *read_pb(const char *path, char *err, size_t len)
{
	struct ox_value *v = NULL;
	size_t n = 0;
	void *buf = read_file(path, &n);

	if (!buf) {
		snprintf(err, len, "%s: cannot read", path);
		return NULL;
	}
	if (ane__ox_tensor_parse(buf, n, &v, err, len))
		v = NULL;
	free(buf);
	return v;
}

/* test_data_set_<k>/<prefix>_<i>.pb for i = 0.. into @v; the count. */
static int read_set(const char *dir, const char *prefix, struct ox_value **v,
		    char *err, size_t len)
{
	char path[4096];
	struct stat st;
	int i;

	for (i = 0; i < MAX_IO; i++) {
		snprintf(path, sizeof(path), "%s/%s_%d.pb", dir, prefix, i);
		if (stat(path, &st))
			break;
		v[i] = read_pb(path, err, len);
		if (!v[i])
			return -1;
	}
	return i;
}

/* ------------------------------------------------------------ compare */

static int is_float(int dtype)
{
	return dtype == OX_FLOAT || dtype == OX_DOUBLE || dtype == OX_FLOAT16 ||
	       dtype == OX_BFLOAT16;
}

/*
 * The tolerance (onnx.rst): on the CPU, ONNX's own (rtol 1e-3, atol 1e-5
 * here, as fp32 kernels in another order differ by a few ulps); with
 * engine segments, fp16's: |got - want| <= atol + rtol |want| with rtol
 * 2e-2 and atol 2e-2 times the output's largest magnitude (at least 1e-3),
 * since fp16 rounds every stored value to 11 bits.
 */
static int compare(const struct ox_value *want, const struct ane_model_tensor *got,
		   int engine, char *msg, size_t len)
{
	double rtol = engine ? 2e-2 : 1e-3, atol, peak = 0, worst = 0;
	size_t i, at = 0;
	struct ox_value g = { 0 };

	if (got->dtype != want->dtype || (int)got->rank != want->rank ||
	    memcmp(got->dims, want->dims, sizeof(*want->dims) * (size_t)want->rank)) {
		snprintf(msg, len, "output '%s': %s of rank %u where %s of rank %d was expected",
			 got->name, ane__ox_dtype_name(got->dtype), got->rank,
			 ane__ox_dtype_name(want->dtype), want->rank);
		return -1;
	}
	g.dtype = got->dtype;
	g.rank = want->rank;
	g.count = want->count;
	g.data = got->data;
	if (!is_float(want->dtype)) {
		for (i = 0; i < want->count; i++)
			if (ane__ox_get_i(&g, i) != ane__ox_get_i(want, i)) {
				snprintf(msg, len, "output '%s'[%zu] is %lld, expected %lld",
					 got->name, i, (long long)ane__ox_get_i(&g, i),
					 (long long)ane__ox_get_i(want, i));
				return -1;
			}
		return 0;
	}
	for (i = 0; i < want->count; i++) {
		double w = ane__ox_get_f(want, i);

		if (isfinite(w) && fabs(w) > peak)
			peak = fabs(w);
	}
	atol = engine ? fmax(2e-2 * peak, 1e-3) : 1e-5;
	for (i = 0; i < want->count; i++) {
		double w = ane__ox_get_f(want, i), x = ane__ox_get_f(&g, i), e;

		if (isnan(w) || isnan(x)) {
			if (isnan(w) != isnan(x)) {
				snprintf(msg, len, "output '%s'[%zu] is %g, expected %g",
					 got->name, i, x, w);
				return -1;
			}
			continue;
		}
		if (isinf(w) || isinf(x)) {
			if (w != x) {
				snprintf(msg, len, "output '%s'[%zu] is %g, expected %g",
					 got->name, i, x, w);
				return -1;
			}
			continue;
		}
		e = fabs(x - w) - (atol + rtol * fabs(w));
		if (e > worst) {
			worst = e;
			at = i;
		}
	}
	if (worst > 0) {
		snprintf(msg, len, "output '%s'[%zu] is %g, expected %g (tolerance %g + %g * |expected|)",
			 got->name, at, ane__ox_get_f(&g, at), ane__ox_get_f(want, at),
			 atol, rtol);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ one model */

static void set_tensor(struct ane_model_tensor *t, const struct ox_value *v)
{
	memset(t, 0, sizeof(*t));
	t->dtype = v->dtype;
	t->rank = (uint32_t)v->rank;
	memcpy(t->dims, v->dims, sizeof(*v->dims) * (size_t)v->rank);
	t->data = v->data;
	t->size = v->count * ane__ox_dtype_size(v->dtype);
}

/*
 * ONNX's test data stores bfloat16 as uint16: the same bits, retagged
 * where the model says bfloat16.
 */
static void retag(const struct ane_model *m, int i, struct ox_value *v, int input)
{
	struct ane_model_tensor info;

	if ((input ? ane_model_input(m, (unsigned int)i, &info) :
		     ane_model_output(m, (unsigned int)i, &info)) == 0 &&
	    info.dtype == OX_BFLOAT16 && v->dtype == OX_UINT16)
		v->dtype = OX_BFLOAT16;
}

/*
 * Shapes are static: test data of another shape or dtype than the model
 * declares is refused (a handful of ONNX's tests give a 'like' input of
 * shape [1] to a model that declares [3, 4]).
 */
static int check_inputs(const struct ane_model *m, struct ane_model_tensor *tin,
			int n, struct report *rep)
{
	struct ane_model_tensor info;
	int i;

	for (i = 0; i < n; i++) {
		ane_model_input(m, (unsigned int)i, &info);
		if (info.dtype == OX_BFLOAT16 && tin[i].dtype == OX_UINT16)
			tin[i].dtype = OX_BFLOAT16;
		if (info.dtype != tin[i].dtype || info.rank != tin[i].rank ||
		    memcmp(info.dims, tin[i].dims, sizeof(*info.dims) * info.rank)) {
			snprintf(rep->msg, sizeof(rep->msg),
				 "test data: input '%s' is %s of rank %u, the model declares %s of rank %u with other dims",
				 info.name, ane__ox_dtype_name(tin[i].dtype), tin[i].rank,
				 ane__ox_dtype_name(info.dtype), info.rank);
			return -1;
		}
	}
	return 0;
}

/*
 * A model that needs a graph input as a constant (a shape fed as an
 * input) has the test's value bound to it, as ane-run --const binds one:
 * the input the message names ("input 1 'shape' (shape) must be a
 * constant"), or, when the constant is derived from inputs through other
 * nodes, every integer and bool input.  The test's input_<i> is the
 * graph's input i.  1 if something new was bound.
 */
static int bind_needed(const char *path, struct ox_value *const *in, int n_in,
		       const char *msg, struct ane_model_tensor *consts,
		       char names[][256], int *bound, unsigned int *n)
{
	struct ox_graph *g = NULL;
	char err[256], want[256] = "";
	const char *p = strstr(msg, "must be a constant") ? msg : NULL;
	size_t len = 0;
	void *buf = read_file(path, &len);
	unsigned int before = *n;
	int i, named = -1;

	if (!buf || ane__ox_load(buf, len, NULL, &g, err, sizeof(err))) {
		free(buf);
		return 0;
	}
	free(buf);
	/* The last "input <k> '<name>'" before the complaint names it. */
	while (p && (p = strstr(p, "input ")) && p < strstr(msg, "must be a constant")) {
		const char *q = strchr(p, '\'');

		if (!q || sscanf(q, "'%255[^']'", want) != 1)
			want[0] = '\0';
		p += 6;
	}
	for (i = 0; want[0] && i < n_in && i < g->n_inputs; i++)
		if (!strcmp(g->t[g->inputs[i]].name, want) && !bound[i])
			named = i;
	for (i = 0; i < n_in && i < g->n_inputs; i++) {
		if (bound[i] || (named >= 0 ? i != named : is_float(in[i]->dtype)))
			continue;
		if (g->t[g->inputs[i]].dtype == OX_BFLOAT16 && in[i]->dtype == OX_UINT16)
			in[i]->dtype = OX_BFLOAT16;
		snprintf(names[*n], 256, "%s", g->t[g->inputs[i]].name);
		set_tensor(&consts[*n], in[i]);
		consts[*n].name = names[*n];
		bound[i] = 1;
		(*n)++;
	}
	ane__ox_graph_free(g);
	return *n > before;
}

/*
 * Load (binding integer inputs as constants when a shape needs them, the
 * caller's --const) and run every test set.
 */
static void run_model(const char *dir, int engine_only, struct report *rep)
{
	struct ox_value *in[MAX_IO] = { 0 }, *want[MAX_IO] = { 0 };
	struct ane_model_tensor tin[MAX_IO], tout[MAX_IO], consts[MAX_IO];
	struct ane_model_options o = { 0 };
	struct ane_netrun_cache *cache = NULL;
	struct ane_model *m = NULL;
	struct ane_model_stats st;
	char path[4096], set[4096], err[2048];
	char names[MAX_IO][256];
	int n_in, n_want, k, i, j, r, bound[MAX_IO] = { 0 };

	rep->result = R_WRONG;
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	snprintf(set, sizeof(set), "%s/test_data_set_0", dir);
	n_in = read_set(set, "input", in, err, sizeof(err));
	if (n_in < 0) {
		rep->result = R_REFUSED;
		snprintf(rep->msg, sizeof(rep->msg), "test data: %s", err);
		goto out;
	}
	o.flags = engine_only ? ANE_MODEL_ENGINE_ONLY : 0;
	o.consts = consts;
	r = ane_model_load_onnx_file(path, &o, &m, err, sizeof(err));
	for (k = 0; r && k <= n_in && (strstr(err, "must be a constant") ||
				       strstr(err, "is not a constant")); k++) {
		if (!bind_needed(path, in, n_in, err, consts, names, bound, &o.n_consts))
			break;
		r = ane_model_load_onnx_file(path, &o, &m, err, sizeof(err));
	}
	if (r) {
		rep->result = R_REFUSED;
		snprintf(rep->msg, sizeof(rep->msg), "%s", err);
		goto out;
	}
	ane_model_get_stats(m, &st);
	rep->engine_nodes = (int)st.engine_nodes;
	rep->cpu_nodes = (int)st.cpu_nodes;
	cache = ane_netrun_cache_new(1);
	ane_model_set_executor(m, ane_netrun_exec, cache);
	if (n_in - (int)o.n_consts != (int)ane_model_num_inputs(m)) {
		snprintf(rep->msg, sizeof(rep->msg), "the test gives %d inputs, the model takes %u",
			 n_in, ane_model_num_inputs(m));
		goto out;
	}
	for (k = 0;; k++) {
		snprintf(set, sizeof(set), "%s/test_data_set_%d", dir, k);
		if (access(set, R_OK))
			break;
		if (k) {
			for (i = 0; i < MAX_IO; i++) {
				ane__ox_value_free(in[i]);
				in[i] = NULL;
			}
			n_in = read_set(set, "input", in, err, sizeof(err));
		}
		n_want = read_set(set, "output", want, err, sizeof(err));
		if (n_in < 0 || n_want < 0) {
			rep->result = R_REFUSED;
			snprintf(rep->msg, sizeof(rep->msg), "test data: %s", err);
			goto out;
		}
		if (n_want != (int)ane_model_num_outputs(m)) {
			snprintf(rep->msg, sizeof(rep->msg), "the test expects %d outputs, the model has %u",
				 n_want, ane_model_num_outputs(m));
			goto out;
		}
		for (i = j = 0; i < n_in; i++)
			if (!bound[i])
				set_tensor(&tin[j++], in[i]);
		if (check_inputs(m, tin, j, rep)) {
			rep->result = R_REFUSED;
			goto out;
		}
		for (i = 0; i < n_want; i++)
			retag(m, i, want[i], 0);
		for (i = 0; i < n_want; i++) {
			struct ane_model_tensor info;

			ane_model_output(m, (unsigned int)i, &info);
			memset(&tout[i], 0, sizeof(tout[i]));
			tout[i].size = info.size;
			tout[i].data = malloc(info.size ? info.size : 1);
		}
		r = ane_model_run(m, NULL, tin, tout);
		if (r)
			snprintf(rep->msg, sizeof(rep->msg), "run: %s", ane_model_errmsg(m));
		/* The numeric guard refuses, engine-only, what fp16 cannot hold. */
		if (r == -ERANGE) {
			for (i = 0; i < n_want; i++)
				free(tout[i].data);
			rep->result = R_REFUSED;
			goto out;
		}
		for (i = 0; !r && i < n_want; i++)
			if (compare(want[i], &tout[i], st.engine_nodes > 0, rep->msg,
				    sizeof(rep->msg)))
				r = -1;
		for (i = 0; i < n_want; i++) {
			free(tout[i].data);
			ane__ox_value_free(want[i]);
			want[i] = NULL;
		}
		if (r)
			goto out;
	}
	rep->result = R_PASSED;
out:
	for (i = 0; i < MAX_IO; i++) {
		ane__ox_value_free(in[i]);
		ane__ox_value_free(want[i]);
	}
	ane_model_destroy(m);
	ane_netrun_cache_free(cache);
}

/* ------------------------------------------------------------ driver */

/* Run one model in a child with a time limit; a signal is a crash. */
static void run_child(const char *dir, int engine_only, struct report *rep)
{
	int fd[2], status;
	ssize_t got;
	pid_t pid;

	memset(rep, 0, sizeof(*rep));
	if (pipe(fd)) {
		rep->result = R_CRASHED;
		snprintf(rep->msg, sizeof(rep->msg), "pipe: %s", strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		alarm((unsigned int)opt.timeout);
		run_model(dir, engine_only, rep);
		if (write(fd[1], rep, sizeof(*rep)) != (ssize_t)sizeof(*rep))
			_exit(2);
		_exit(0);
	}
	close(fd[1]);
	got = pid > 0 ? read(fd[0], rep, sizeof(*rep)) : -1;
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (pid < 0 || got != (ssize_t)sizeof(*rep) || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		rep->result = R_CRASHED;
		if (pid > 0 && WIFSIGNALED(status))
			snprintf(rep->msg, sizeof(rep->msg), "killed by signal %d (%s)",
				 WTERMSIG(status),
				 WTERMSIG(status) == SIGALRM ? "time limit" :
				 strsignal(WTERMSIG(status)));
		else
			snprintf(rep->msg, sizeof(rep->msg), "the child died without a report");
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Issue 27's targets: passed engine-only and with fallback, per dir. */
static const struct {
	const char *dir;
	int engine, fallback;
} targets[] = {
	{ "node", 400, 550 },
	{ "pytorch-converted", 60, 72 },
};

static int run_dir(const char *name, int counts[2][R_COUNT], int *models)
{
	char path[4096], **list = NULL;
	struct dirent *de;
	size_t n = 0, cap = 0, i;
	DIR *d;
	int mode;

	snprintf(path, sizeof(path), "%s/%s", opt.root, name);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (opt.filter && !strstr(de->d_name, opt.filter))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			list = realloc(list, cap * sizeof(*list));
			if (!list)
				exit(1);
		}
		list[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(list, n, sizeof(*list), cmp_str);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", opt.root, name, list[i]);
		for (mode = 0; mode < 2; mode++) {
			struct report rep;

			run_child(path, mode == 0, &rep);
			counts[mode][rep.result]++;
			if (opt.log)
				fprintf(opt.log, "%s/%s %s %s engine=%d cpu=%d %s\n", name,
					list[i], mode == 0 ? "engine-only" : "fallback",
					rname[rep.result], rep.engine_nodes, rep.cpu_nodes,
					rep.msg);
			if (mode == 0 && rep.result != R_PASSED && expected(name, list[i])) {
				printf("not ok - %s/%s (engine-only): %s, where %s lists it as passing\n",
				       name, list[i], rname[rep.result], opt.expect_path);
				opt.regressions++;
			}
			if (opt.verbose || rep.result >= R_WRONG)
				printf("%s %s/%s (%s): %s\n",
				       rep.result >= R_WRONG ? "not ok -" : "#", name,
				       list[i], mode == 0 ? "engine-only" : "fallback",
				       rep.result == R_PASSED ? "passed" : rep.msg);
		}
		free(list[i]);
	}
	free(list);
	*models = (int)n;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: onnx-suite [--root DIR] [--filter TEXT] [--log FILE] [--timeout S]\n"
		"                  [--expect FILE] [-v] [DIR...]\n"
		"Runs ONNX's test models (default root %s; DIRs default to node,\n"
		"pytorch-converted, pytorch-operator, simple) engine-only and with CPU\n"
		"fallback on the engine's userspace build, and counts passed, refused,\n"
		"wrong and crashed per directory.  -v prints every model's result.\n"
		"--expect FILE lists models (dir/name, one a line) that must pass\n"
		"engine-only: each that does not is a failure.\n",
		DEFAULT_ROOT);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "filter", required_argument, NULL, 'f' },
		{ "log", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "expect", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const def_dirs[] = {
		"node", "pytorch-converted", "pytorch-operator", "simple",
	};
	const char *const *dirs = def_dirs;
	int n_dirs = 4, c, i, k, bad = 0, good = 0;
	time_t t0 = time(NULL);
	char *end;

	while ((c = getopt_long(argc, argv, "r:f:l:t:e:vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			opt.root = optarg;
			break;
		case 'f':
			opt.filter = optarg;
			break;
		case 'l':
			opt.log = fopen(optarg, "w");
			if (!opt.log) {
				fprintf(stderr, "onnx-suite: --log %s: %s\n", optarg,
					strerror(errno));
				return 2;
			}
			break;
		case 't':
			opt.timeout = (int)strtol(optarg, &end, 10);
			if (*end || opt.timeout < 1) {
				fprintf(stderr, "onnx-suite: --timeout '%s': a number of seconds above 0\n",
					optarg);
				return 2;
			}
			break;
		case 'v':
			opt.verbose = 1;
			break;
		case 'e': {
			size_t len = 0;

			opt.expect = read_file(optarg, &len);
			if (!opt.expect) {
				fprintf(stderr, "onnx-suite: --expect %s: %s\n", optarg,
					strerror(errno));
				return 2;
			}
			opt.expect_path = optarg;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		dirs = (const char *const *)argv + optind;
		n_dirs = argc - optind;
	}
	printf("%-18s %6s | %-31s | %-31s\n", "", "", "engine only", "with CPU fallback");
	printf("%-18s %6s | %7s %7s %7s %7s | %7s %7s %7s %7s\n", "directory", "models",
	       "passed", "refused", "wrong", "crashed", "passed", "refused", "wrong",
	       "crashed");
	for (i = 0; i < n_dirs; i++) {
		int counts[2][R_COUNT] = { { 0 } }, models = 0;
		size_t t;

		if (run_dir(dirs[i], counts, &models)) {
			printf("not ok - %s/%s: %s\n", opt.root, dirs[i], strerror(errno));
			bad++;
			continue;
		}
		printf("%-18s %6d | %7d %7d %7d %7d | %7d %7d %7d %7d\n", dirs[i], models,
		       counts[0][R_PASSED], counts[0][R_REFUSED], counts[0][R_WRONG],
		       counts[0][R_CRASHED], counts[1][R_PASSED], counts[1][R_REFUSED],
		       counts[1][R_WRONG], counts[1][R_CRASHED]);
		for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
			if (!strcmp(targets[t].dir, dirs[i]) && !opt.filter)
				printf("%-18s %6s | passed >= %-4d %-16s | passed >= %-4d %s\n",
				       "", "target", targets[t].engine,
				       counts[0][R_PASSED] >= targets[t].engine ? "(met)" : "(not met)",
				       targets[t].fallback,
				       counts[1][R_PASSED] >= targets[t].fallback ? "(met)" : "(not met)");
		for (k = 0; k < 2; k++) {
			bad += counts[k][R_WRONG] + counts[k][R_CRASHED];
			good += counts[k][R_PASSED];
		}
	}
	printf("# %ld s; the targets: 0 wrong and 0 crashed in every directory\n",
	       (long)(time(NULL) - t0));
	if (opt.expect)
		printf("%s %d of the models %s lists did not pass engine-only\n",
		       opt.regressions ? "not ok -" : "ok -", opt.regressions, opt.expect_path);
	bad += opt.regressions;
	if (opt.log)
		fclose(opt.log);
	printf("onnx-suite: %d passed, %d failed\n", good, bad);
	return bad ? 1 : 0;
}
