// SPDX-License-Identifier: MIT
/*
 * `anectl top` in the VM (root), against real clients' fdinfo:
 *
 *   - no client: it says so and exits 0;
 *   - a client that holds a surface and runs requests in a loop: its pid
 *     appears with its node, engine time > 0, a busy % over the interval,
 *     requests submitted and completed > 0, memory charged and surfaces
 *     (drm-total-memory) > 0 and its command;
 *   - -d NODE shows it for its node, not for another node;
 *   - bad options fail with exit 2;
 *   - top --json -d NODE: one sample as JSON, the client in it;
 *   - info, status, clients, shmem and models --json -d NODE parse as JSON,
 *     the client among the clients, its surface among the surfaces;
 *   - once the client exits, no client again.
 *
 * Expects ane.ko loaded; anectl in $PATH.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"

static char node[64];
static char out[65536];		/* the last anectl top's output */
static pid_t client = -1;

/* Run `anectl [-d @dnode] top @a @b ...` (NULL-terminated); exit status or -1. */
static int top(const char *dnode, const char *a, const char *b, const char *c,
	       const char *d)
{
	const char *argv[10];
	int n = 0;

	argv[n++] = "anectl";
	if (dnode) {
		argv[n++] = "-d";
		argv[n++] = dnode;
	}
	argv[n++] = "top";
	argv[n++] = a;
	argv[n++] = b;
	argv[n++] = c;
	argv[n++] = d;
	argv[n] = NULL;
	return vm_run_capture(argv, 0, out, sizeof(out));
}

static void show(void)
{
	if (t_case_failed)
		printf("#   anectl top said:\n%s", out);
}

/* The number of sample headers in the output. */
static int samples(void)
{
	const char *s = out;
	int n = 0;

	while ((s = strstr(s, "anectl top - "))) {
		n++;
		s++;
	}
	return n;
}

struct row {
	int pid;
	char node[64], busy[16], rate[16], comm[64];
	unsigned long long id, submitted, completed, charged, mem, resident;
	double engine_ms;
};

/* The last row of @pid in the output; 0, or -1 if it has none. */
static int find_row(int pid, struct row *r)
{
	char *save = NULL, *line, *copy = strdup(out);
	int found = -1;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct row x;

		if (sscanf(line, "%d %63s %llu %lf %15s %llu %llu %15s %llu %llu %llu %63s",
			   &x.pid, x.node, &x.id, &x.engine_ms, x.busy, &x.submitted,
			   &x.completed, x.rate, &x.charged, &x.mem, &x.resident,
			   x.comm) == 12 && x.pid == pid) {
			*r = x;
			found = 0;
		}
	}
	free(copy);
	return found;
}

/* The client: holds a surface and runs a matmul until killed. */
static void client_main(int ready)
{
	static float x[64 * 64], y[64 * 64];
	const float *in[1] = { x };
	float *const o[1] = { y };
	struct ane_surface *surf = NULL;
	struct ane_net *net = NULL;
	struct ane_dev *dev = NULL;
	char err[512] = "";
	int i, t, w, first = 1;

	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err)) ||
	    ane_surface_create(dev, 64 * 1024, &surf) || ane_net_create(&net)) {
		printf("#   client: %s\n", dev ? ane_errmsg(dev) : err);
		_exit(1);
	}
	for (i = 0; i < 64 * 64; i++)
		x[i] = (float)(i % 7) - 3.0f;
	t = ane_net_input(net, "x", 1, 1, 64, 64);
	w = ane_net_const(net, "w", 1, 1, 64, 64, x);
	ane_net_output(net, ane_net_matmul(net, t, w, 0, ANE_NET_ACT_NONE));
	/* at most a minute, should the parent die */
	for (i = 0; i < 60000; i++) {
		if (ane_net_run(dev, net, in, o)) {
			printf("#   client: ane_net_run: %s\n", ane_errmsg(dev));
			_exit(1);
		}
		if (first) {
			first = 0;
			if (write(ready, "r", 1) != 1)
				_exit(1);
			close(ready);
		}
	}
	_exit(0);
}

static void no_client_says_so(void)
{
	T_EQ(top(NULL, "-n", "1", "--interval", "200"), 0);
	T_CHECK(strstr(out, "no ane clients"), "no 'no ane clients'");
	T_EQ(samples(), 1);
	show();
}

static void bad_options_fail(void)
{
	T_EQ(top(NULL, "--interval", "0", NULL, NULL), 2);
	T_CHECK(strstr(out, "--interval '0' is not a number of ms from 1 to 3600000"),
		"field not named");
	show();
	T_EQ(top(NULL, "-n", "x", NULL, NULL), 2);
	T_EQ(top(NULL, "--bogus", NULL, NULL, NULL), 2);
	T_EQ(top(NULL, "--help", NULL, NULL, NULL), 0);
	T_CHECK(strstr(out, "--interval MS"), "help without --interval");
}

static void start_client(void)
{
	int p[2];
	char c;

	T_OK(pipe(p));
	fflush(stdout);
	client = fork();
	T_CHECK(client >= 0, "fork");
	if (client == 0) {
		close(p[0]);
		client_main(p[1]);
	}
	close(p[1]);
	T_EQ(read(p[0], &c, 1), 1);
	close(p[0]);
}

static void shows_the_busy_client(void)
{
	struct row r;

	T_EQ(top(NULL, "-n", "2", "--interval", "500"), 0);
	T_EQ(samples(), 2);
	T_OK(find_row(client, &r));
	if (!t_case_failed) {
		T_CHECK(!strcmp(r.node, node), "node %s, expected %s", r.node, node);
		T_CHECK(r.id > 0, "drm-client-id 0");
		T_CHECK(r.engine_ms > 0, "engine time %f ms", r.engine_ms);
		T_CHECK(strcmp(r.busy, "-") && atof(r.busy) > 0, "busy %s", r.busy);
		T_CHECK(strcmp(r.rate, "-") && atof(r.rate) > 0, "req/s %s", r.rate);
		T_CHECK(r.submitted > 0 && r.completed > 0, "requests %llu/%llu",
			r.submitted, r.completed);
		T_CHECK(r.charged >= 64, "charged %llu KiB", r.charged);
		T_CHECK(r.mem >= 64 && r.resident >= 64, "memory %llu/%llu KiB", r.mem,
			r.resident);
		T_CHECK(!strcmp(r.comm, "top_test"), "command %s", r.comm);
	}
	show();
}

static void node_filter(void)
{
	struct row r;

	T_EQ(top(node, "--once", "--interval", "200", NULL), 0);
	T_OK(find_row(client, &r));
	show();
	T_EQ(top("/dev/accel/accel99", "--once", "--interval", "200", NULL), 0);
	T_CHECK(find_row(client, &r) < 0, "client shown for another node");
	T_CHECK(strstr(out, "no ane clients"), "no 'no ane clients'");
	show();
}

/* top --json, -d after top: the busy client with its node, rates and command. */
static void json_sample(void)
{
	const char *argv[] = { "anectl", "top", "--json", "--interval", "300", "-d", node, NULL };
	struct json_object *o, *a, *c, *v;
	size_t i, n;
	int found = 0;

	T_EQ(vm_run_capture(argv, 0, out, sizeof(out)), 0);
	o = json_tokener_parse(out);
	T_CHECK(o && json_object_object_get_ex(o, "clients", &a), "not JSON: %s", out);
	n = o && a ? json_object_array_length(a) : 0;
	for (i = 0; i < n; i++) {
		c = json_object_array_get_idx(a, i);
		if (!json_object_object_get_ex(c, "pid", &v) || json_object_get_int(v) != client)
			continue;
		found = 1;
		T_CHECK(json_object_object_get_ex(c, "node", &v) &&
			!strcmp(json_object_get_string(v), node), "node: %s", out);
		T_CHECK(json_object_object_get_ex(c, "busy_percent", &v) &&
			json_object_get_double(v) > 0, "busy: %s", out);
		T_CHECK(json_object_object_get_ex(c, "completed", &v) &&
			json_object_get_uint64(v) > 0, "completed: %s", out);
		T_CHECK(json_object_object_get_ex(c, "command", &v) &&
			!strcmp(json_object_get_string(v), "top_test"), "command: %s", out);
	}
	T_CHECK(found, "client %d not in top --json: %s", (int)client, out);
	json_object_put(o);
	show();
}

/* The member @key of @o, or NULL. */
static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* `anectl CMD --json -d NODE` parsed (NULL if it is not JSON or fails). */
static struct json_object *anectl_json(const char *cmd)
{
	const char *argv[] = { "anectl", cmd, "--json", "-d", node, NULL };

	if (vm_run_capture(argv, 0, out, sizeof(out)))
		return NULL;
	return json_tokener_parse(out);
}

/*
 * anectl's other commands with --json, -d after the command: info (this
 * node alone), status, clients (the client among them), shmem (its
 * surface) and models parse as JSON with the figures the text shows.
 */
static void json_commands(void)
{
	struct json_object *o, *a, *e;
	size_t i, n;
	int found = 0;

	o = anectl_json("info");
	T_CHECK(o && json_object_is_type(o, json_type_array) &&
		json_object_array_length(o) == 1, "info --json -d: %s", out);
	e = o ? json_object_array_get_idx(o, 0) : NULL;
	T_CHECK(jget(e, "node") && !strcmp(json_object_get_string(jget(e, "node")), node) &&
		jget(jget(e, "driver"), "name") && jget(jget(e, "properties"), "cores") &&
		jget(jget(e, "handshake"), "token") && jget(e, "firmware"), "info: %s", out);
	json_object_put(o);
	o = anectl_json("status");
	T_CHECK(o && jget(o, "firmware") && jget(jget(o, "caps"), "names") &&
		jget(o, "submitted") && jget(o, "dart_faults"), "status --json: %s", out);
	json_object_put(o);
	o = anectl_json("clients");
	a = jget(o, "clients");
	n = a ? json_object_array_length(a) : 0;
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (json_object_get_int(jget(e, "pid")) == client &&
		    json_object_get_uint64(jget(e, "completed")) > 0)
			found = 1;
	}
	T_CHECK(found && json_object_get_int(jget(o, "total")) >= 2, "clients --json: %s", out);
	json_object_put(o);
	o = anectl_json("shmem");
	a = jget(o, "surfaces");
	T_CHECK(a && json_object_array_length(a) >= 1 &&
		json_object_get_uint64(jget(json_object_array_get_idx(a, 0), "bytes")) > 0,
		"shmem --json: %s", out);
	json_object_put(o);
	o = anectl_json("models");
	T_CHECK(o && json_object_is_type(jget(o, "programs"), json_type_array) &&
		jget(o, "total"), "models --json: %s", out);
	json_object_put(o);
	show();
}

static void stop_client(void)
{
	int status;

	T_OK(kill(client, SIGKILL));
	T_EQ(waitpid(client, &status, 0), client);
	client = -1;
}

int main(void)
{
	T_RUN(no_client_says_so);
	T_RUN(bad_options_fail);
	if (ane_find_node(0, node, sizeof(node))) {
		printf("not ok - no ane node\n");
		t_failed++;
		return t_summary("top");
	}
	T_RUN(start_client);
	if (client > 0) {
		T_RUN(shows_the_busy_client);
		T_RUN(node_filter);
		T_RUN(json_sample);
		T_RUN(json_commands);
		T_RUN(stop_client);
		T_RUN(no_client_says_so);
	}
	return t_summary("top");
}
