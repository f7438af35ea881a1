// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's userspace build on the host (see engine_host.h).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

struct mt_part {
	struct ane_op_desc d;
	pthread_t thread;
	int started;
	int ret;
};

static int mt_part_run(struct mt_part *p)
{
	int ret = ane_op_validate(&p->d);

	return ret ? ret : ane_op_run_all(&p->d);
}

static void *mt_part_thread(void *arg)
{
	struct mt_part *p = arg;

	p->ret = mt_part_run(p);
	return NULL;
}

int engine_mt_run(const struct ane_op_desc *d, unsigned int threads)
{
	struct mt_part parts[MT_MAX_PARTS];
	uint64_t ws[MT_MAX_PARTS], total = 0;
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
	/* parts 1.. on threads of their own, part 0 here */
	for (i = 1; i < n; i++)
		parts[i].started = !pthread_create(&parts[i].thread, NULL,
						   mt_part_thread, &parts[i]);
	ret = mt_part_run(&parts[0]);
	for (i = 1; i < n; i++) {
		if (parts[i].started)
			pthread_join(parts[i].thread, NULL);
		else
			parts[i].ret = mt_part_run(&parts[i]);
		if (!ret)
			ret = parts[i].ret;
	}
	free(work);
	return ret;
}
