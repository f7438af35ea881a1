// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's userspace build on the host (see engine_host.h).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_host.h"

static const char *const isa_name[ANE_MATH_ISA_COUNT] = {
	[ANE_MATH_ISA_SSE2] = "sse2",
	[ANE_MATH_ISA_AVX2_FMA] = "avx2+fma+f16c",
	[ANE_MATH_ISA_AVX512] = "avx512",
};

static const char *const isa_short[ANE_MATH_ISA_COUNT] = {
	[ANE_MATH_ISA_SSE2] = "sse2",
	[ANE_MATH_ISA_AVX2_FMA] = "avx2",
	[ANE_MATH_ISA_AVX512] = "avx512",
};

const char *engine_isa_name(uint32_t isa)
{
	return isa < ANE_MATH_ISA_COUNT ? isa_name[isa] : "?";
}

const char *engine_isa_short(uint32_t isa)
{
	return isa < ANE_MATH_ISA_COUNT ? isa_short[isa] : "?";
}

int engine_isa_cpu(uint32_t isa)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (isa == ANE_MATH_ISA_SSE2)
		return 1;
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
	    !__builtin_cpu_supports("f16c"))
		return 0;
	if (isa == ANE_MATH_ISA_AVX2_FMA)
		return 1;
	return isa == ANE_MATH_ISA_AVX512 &&
	       __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl");
#else
	return isa == ANE_MATH_ISA_SSE2;
#endif
}

int engine_isa_usable(uint32_t isa)
{
	const char *only = getenv("ANE_MATH_ISA");

	if (isa >= ANE_MATH_ISA_COUNT || !ane_math_isa_built(isa) || !engine_isa_cpu(isa))
		return 0;
	return !only || !*only || !strcmp(only, isa_name[isa]) ||
	       !strcmp(only, isa_short[isa]);
}

int engine_isa_best(void)
{
	int isa;

	for (isa = ANE_MATH_ISA_COUNT - 1; isa >= 0; isa--)
		if (engine_isa_usable((uint32_t)isa))
			return isa;
	return -1;
}

#define MT_MAX_PARTS	16	/* the M1's neural cores */
/*
 * How long a worker watches for the next task, and the caller for the
 * workers' parts, before sleeping: a network's tasks follow each other
 * within microseconds, and a sleep and a wake-up cost tens.
 */
#define MT_SPIN_NS	200000ull

struct mt_part {
	struct ane_op_desc d;
	int ret;
};

/*
 * The workers: threads started on first use and kept, each running part
 * i of every task it is handed (i its index, from 1; part 0 runs on the
 * caller).  A task is published by bumping @gen under @lock; a worker
 * watches @gen for MT_SPIN_NS (yielding now and then), then sleeps on @go; the last part to
 * finish wakes the caller on @done.  @run holds a whole engine_mt_run()
 * call, so that callers on several threads take turns.
 */
static struct {
	pthread_mutex_t run;
	pthread_mutex_t lock;		/* protects the sleepers and the waits */
	pthread_cond_t go, done;
	pthread_t thread[MT_MAX_PARTS];
	uint64_t born[MT_MAX_PARTS];	/* @gen when each worker was started */
	unsigned int workers;		/* started */
	unsigned int sleepers;		/* workers waiting on @go */
	int caller_sleeps;		/* the caller waits on @done */
	int quit;
	uint64_t gen;			/* atomic: the task's number */
	unsigned int pending;		/* atomic: parts 1.. not finished */
	struct mt_part *parts;
	unsigned int nparts;
} mt = {
	.run = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.go = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

/*
 * One step of a watch: the CPU's spin-wait hint, and every 64th step the
 * CPU offered to another thread, so that many processes' watches on
 * fewer cores (64 ane-run at once on two) hand the cores to the work.
 */
static inline void mt_pause(unsigned int *steps)
{
	if (!(++*steps % 64)) {
		sched_yield();
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static uint64_t mt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int mt_part_run(struct mt_part *p)
{
	int ret = ane_op_validate(&p->d);

	return ret ? ret : ane_op_run_all(&p->d);
}

static void *mt_worker(void *arg)
{
	unsigned int idx = (unsigned int)(uintptr_t)arg;
	uint64_t seen = mt.born[idx];	/* the tasks after its start are its */

	for (;;) {
		uint64_t t0 = mt_now_ns(), g;
		unsigned int steps = 0;

		while ((g = __atomic_load_n(&mt.gen, __ATOMIC_ACQUIRE)) == seen &&
		       mt_now_ns() - t0 < MT_SPIN_NS)
			mt_pause(&steps);
		if (g == seen) {
			pthread_mutex_lock(&mt.lock);
			mt.sleepers++;
			while ((g = __atomic_load_n(&mt.gen, __ATOMIC_ACQUIRE)) == seen)
				pthread_cond_wait(&mt.go, &mt.lock);
			mt.sleepers--;
			pthread_mutex_unlock(&mt.lock);
		}
		seen = g;
		if (__atomic_load_n(&mt.quit, __ATOMIC_ACQUIRE))
			return NULL;
		if (idx < mt.nparts)
			mt.parts[idx].ret = mt_part_run(&mt.parts[idx]);
		if (__atomic_sub_fetch(&mt.pending, 1, __ATOMIC_ACQ_REL) == 0) {
			pthread_mutex_lock(&mt.lock);
			if (mt.caller_sleeps)
				pthread_cond_signal(&mt.done);
			pthread_mutex_unlock(&mt.lock);
		}
	}
}

/* At exit: the workers told to quit and joined. */
static void mt_stop(void)
{
	unsigned int i;

	pthread_mutex_lock(&mt.run);
	pthread_mutex_lock(&mt.lock);
	__atomic_store_n(&mt.quit, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&mt.gen, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&mt.go);
	pthread_mutex_unlock(&mt.lock);
	for (i = 1; i <= mt.workers; i++)
		pthread_join(mt.thread[i], NULL);
	mt.workers = 0;
	pthread_mutex_unlock(&mt.run);
}

/*
 * In a child of fork() the workers are the parent's: none here, and the
 * locks as a fresh process has them.
 */
static void mt_child(void)
{
	pthread_mutex_init(&mt.run, NULL);
	pthread_mutex_init(&mt.lock, NULL);
	pthread_cond_init(&mt.go, NULL);
	pthread_cond_init(&mt.done, NULL);
	mt.workers = 0;
	mt.sleepers = 0;
	mt.caller_sleeps = 0;
}

/* Workers 1 .. @n - 1 started (mt.run held); how many there are. */
static unsigned int mt_grow(unsigned int n)
{
	static int hooked;

	if (!hooked) {
		if (atexit(mt_stop) || pthread_atfork(NULL, NULL, mt_child))
			return 0;
		hooked = 1;
	}
	while (mt.workers + 1 < n) {
		mt.born[mt.workers + 1] = __atomic_load_n(&mt.gen, __ATOMIC_ACQUIRE);
		if (pthread_create(&mt.thread[mt.workers + 1], NULL, mt_worker,
				   (void *)(uintptr_t)(mt.workers + 1)))
			break;
		mt.workers++;
	}
	return mt.workers;
}

/*
 * Hand parts 1 .. @n - 1 to the workers (all @workers of them, those past
 * @n only count down), run part 0 here, and wait for the rest.
 */
static void mt_task(struct mt_part *parts, unsigned int n, unsigned int workers)
{
	unsigned int steps = 0;
	uint64_t t0;

	mt.parts = parts;
	mt.nparts = n;
	__atomic_store_n(&mt.pending, workers, __ATOMIC_RELEASE);
	pthread_mutex_lock(&mt.lock);
	__atomic_add_fetch(&mt.gen, 1, __ATOMIC_RELEASE);
	if (mt.sleepers)
		pthread_cond_broadcast(&mt.go);
	pthread_mutex_unlock(&mt.lock);
	parts[0].ret = mt_part_run(&parts[0]);
	t0 = mt_now_ns();
	while (__atomic_load_n(&mt.pending, __ATOMIC_ACQUIRE) &&
	       mt_now_ns() - t0 < MT_SPIN_NS)
		mt_pause(&steps);
	pthread_mutex_lock(&mt.lock);
	mt.caller_sleeps = 1;
	while (__atomic_load_n(&mt.pending, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&mt.done, &mt.lock);
	mt.caller_sleeps = 0;
	pthread_mutex_unlock(&mt.lock);
}

int engine_mt_run(const struct ane_op_desc *d, unsigned int threads)
{
	struct mt_part parts[MT_MAX_PARTS];
	uint64_t ws[MT_MAX_PARTS], total = 0;
	unsigned int workers;
	uint32_t n, i;
	uint8_t *work = NULL, *at;
	int ret = 0;

	if (threads > MT_MAX_PARTS)
		threads = MT_MAX_PARTS;
	n = ane_op_split_parts(d, threads ? threads : 1);
	if (n < 2)
		return ane_op_run_all(d);
	memset(parts, 0, sizeof(parts));
	for (i = 0; i < n; i++) {
		ret = ane_op_split(d, i, n, &parts[i].d);
		if (!ret)
			ret = ane_op_workspace_size(&parts[i].d, &ws[i]);
		if (ret)
			return ret;
		total += (ws[i] + ANE_MATH_WORK_ALIGN - 1) / ANE_MATH_WORK_ALIGN *
			 ANE_MATH_WORK_ALIGN;
	}
	if (total) {
		work = aligned_alloc(ANE_MATH_WORK_ALIGN, total);
		if (!work)
			return -ANE_MATH_ENOSPC;
	}
	at = work;
	for (i = 0; i < n; i++) {
		parts[i].d.work = ws[i] ? at : NULL;
		parts[i].d.work_size = ws[i];
		at += (ws[i] + ANE_MATH_WORK_ALIGN - 1) / ANE_MATH_WORK_ALIGN *
		      ANE_MATH_WORK_ALIGN;
	}
	pthread_mutex_lock(&mt.run);
	workers = mt_grow(n);
	if (workers)
		mt_task(parts, n < workers + 1 ? n : workers + 1, workers);
	/* parts no worker took (none started): here, in turn */
	for (i = workers ? workers + 1 : 0; i < n; i++)
		parts[i].ret = mt_part_run(&parts[i]);
	pthread_mutex_unlock(&mt.run);
	for (i = 0; i < n && !ret; i++)
		ret = parts[i].ret;
	free(work);
	return ret;
}
