// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's userspace workers (tools/engine-host/engine_host.c,
 * engine_mt_run()): threads started on first use and kept, handed each
 * operation's parts.  Every split run must give the bits of the
 * one-thread run, whatever the thread counts in turn, from callers on
 * several threads at once, in a child of fork() (where the parent's
 * workers do not exist), and from 64 processes at once.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ane_math.h"
#include "tools/engine-host/engine_host.h"

/* A MATMUL [M, K] x [K, N] of fp16 that splits into up to 16 parts. */
#define M	96
#define K	160
#define N	128

struct mm {
	uint16_t a[M * K], b[K * N], y[M * N];
	struct ane_op_desc d;
	void *work;	/* the workspace of the one-part run */
};

static void mm_init(struct mm *m, unsigned int seed)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < M * K; i++) {
		seed = seed * 1664525u + 1013904223u;
		m->a[i] = ane_fp32_to_fp16((float)(seed >> 8) / 16777216.0f - 0.5f);
	}
	for (i = 0; i < K * N; i++) {
		seed = seed * 1664525u + 1013904223u;
		m->b[i] = ane_fp32_to_fp16((float)(seed >> 8) / 16777216.0f - 0.5f);
	}
	m->d.op = ANE_OP_MATMUL;
	ane_tensor_dense(&m->d.src[0], m->a, 1, 1, M, K);
	ane_tensor_dense(&m->d.src[1], m->b, 1, 1, K, N);
	ane_tensor_dense(&m->d.dst, m->y, 1, 1, M, N);
	if (!ane_op_workspace_size(&m->d, &m->d.work_size) && m->d.work_size) {
		m->work = aligned_alloc(64, (m->d.work_size + 63) / 64 * 64);
		m->d.work = m->work;
	}
}

/* The one-thread result of @m into @want. */
static int mm_reference(struct mm *m, uint16_t *want)
{
	int ret = engine_mt_run(&m->d, 1);

	memcpy(want, m->y, sizeof(m->y));
	return ret;
}

/* @rounds split runs at thread counts in turn; how many differed. */
static unsigned int mm_rounds(struct mm *m, const uint16_t *want, unsigned int rounds,
			      unsigned int salt)
{
	static const unsigned int counts[] = { 2, 3, 16, 4, 1, 8, 2, 5 };
	unsigned int r, bad = 0;

	for (r = 0; r < rounds; r++) {
		memset(m->y, 0xff, sizeof(m->y));
		if (engine_mt_run(&m->d, counts[(r + salt) % 8]) ||
		    memcmp(m->y, want, sizeof(m->y)))
			bad++;
	}
	return bad;
}

static void split_runs_match_one_thread(void)
{
	static struct mm m;
	static uint16_t want[M * N];

	mm_init(&m, 7);
	T_CHECK(ane_op_split_parts(&m.d, 16) >= 4, "the MATMUL splits into %u parts",
		ane_op_split_parts(&m.d, 16));
	T_EQ(mm_reference(&m, want), 0);
	T_EQ(mm_rounds(&m, want, 400, 0), 0);
	free(m.work);
}

struct caller {
	pthread_t thread;
	struct mm m;
	uint16_t want[M * N];
	unsigned int salt, bad;
	int ret;
};

static void *caller_main(void *arg)
{
	struct caller *c = arg;

	c->ret = mm_reference(&c->m, c->want);
	c->bad = mm_rounds(&c->m, c->want, 150, c->salt);
	return NULL;
}

static void callers_on_several_threads_take_turns(void)
{
	static struct caller c[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		mm_init(&c[i].m, 100 + i);
		c[i].salt = i;
		T_EQ(pthread_create(&c[i].thread, NULL, caller_main, &c[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(c[i].thread, NULL);
		T_EQ(c[i].ret, 0);
		T_CHECK(c[i].bad == 0, "caller %u: %u of 150 runs differ", i, c[i].bad);
		free(c[i].m.work);
	}
}

/* In a child of fork(), after the parent's workers ran: no hang, same bits. */
static void a_child_of_fork_runs_split_operations(void)
{
	static struct mm m;
	static uint16_t want[M * N];
	int status = 0;
	pid_t pid;

	mm_init(&m, 9);
	T_EQ(mm_reference(&m, want), 0);
	T_EQ(mm_rounds(&m, want, 20, 3), 0);	/* the workers are up */
	pid = fork();
	if (pid == 0) {
		alarm(20);	/* a hang ends the child by SIGALRM */
		_exit(mm_rounds(&m, want, 100, 1) ? 1 : 0);
	}
	T_CHECK(pid > 0, "fork");
	if (pid <= 0)
		return;
	T_EQ(waitpid(pid, &status, 0), pid);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"the child: %s %d", WIFSIGNALED(status) ? "signal" : "exit status",
		WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	free(m.work);
}

/*
 * 64 processes at once, each splitting its operations over four threads
 * on however few cores there are: every one finishes (the watches yield
 * the cores) with the one-thread bits.
 */
static void sixty_four_processes_at_once(void)
{
	static struct mm m;
	static uint16_t want[M * N];
	unsigned int i, ok = 0;
	pid_t pid[64];
	int status;

	mm_init(&m, 11);
	T_EQ(mm_reference(&m, want), 0);
	for (i = 0; i < 64; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			alarm(60);
			_exit(mm_rounds(&m, want, 30, i) ? 1 : 0);
		}
	}
	for (i = 0; i < 64; i++)
		if (pid[i] > 0 && waitpid(pid[i], &status, 0) == pid[i] &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
	T_CHECK(ok == 64, "%u of 64 processes finished with the same bits", ok);
	free(m.work);
}

int main(void)
{
	alarm(120);	/* a worker that misses a task hangs the caller: fail */
	T_RUN(split_runs_match_one_thread);
	T_RUN(callers_on_several_threads_take_turns);
	T_RUN(a_child_of_fork_runs_split_operations);
	T_RUN(sixty_four_processes_at_once);
	return t_summary("engine-pool");
}
