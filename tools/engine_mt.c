// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's neural cores on the host (see engine_mt.h).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine_mt.h"

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
