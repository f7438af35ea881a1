/* SPDX-License-Identifier: MIT */
/*
 * ane-bench: what its files share -- timing, the JSON results, the pipe
 * baseline every figure is a ratio to, and the functions one file calls
 * in another.
 *
 *   ane-bench.c        timing, JSON, the pipe baseline, fw, main
 *   bench_dart.c       DART map and unmap against a first touch, tables
 *   bench_request.c    the request round trip and the chained step
 *   bench_load.c       1 to 64 processes at once
 *   bench_broker.c     an Evaluate through aned against the device
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef ANE_BENCH_H
#define ANE_BENCH_H

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

struct dp {
	struct ane_dev *dev;
	int fd;
	uint64_t token;
};

/* ---------------------------------------------------------------- fw */

#define FW_ROUNDS	2000

/* ---------------------------------------------------------------- request */

#define REQ_ROUNDS	2000
#define CHAIN_STEPS	100
#define CHAIN_DIM	8

/* ---------------------------------------------------------------- load */

#define LOAD_SECONDS	2.0
#define LOAD_MAX_PROCS	64

/* What one process of the load reports to the parent. */
struct load_result {
	int err;			/* 0, or the errno that ended it */
	uint64_t done;			/* requests completed in the window */
	uint64_t busy, again;		/* libane's retries (ane_retry_counts) */
	uint64_t vcsw, ivcsw;		/* its voluntary, involuntary switches */
	char msg[200];
};

struct load_figure {
	double rate;			/* requests/s, all processes */
	double min_rate, max_rate;	/* the slowest and fastest process */
	uint64_t busy;			/* retries on a full queue, in all */
	double sw_per_req;		/* the processes' own switches per request */
	double ctxt_per_req;		/* the machine's switches (/proc/stat) per request */
};

/* ---------------------------------------------------------- broker */

#define BROKER_ROUNDS	500


double now_s(void);
int die(const char *what);
void json_num(const char *key, double v);
void json_num_at(const char *prefix, unsigned int n, double v);
int json_target(const char *key, double v, double target);
void json_cdf(const char *key, const uint64_t *v, unsigned int n);
int fw_ping_path(const char *node, char *out, size_t len);
uint64_t now_ns(void);
double quantile_us(uint64_t *v, unsigned int n, double q);
int pipe_rounds(uint64_t *lat, unsigned int rounds);
int map(struct dp *c, uint32_t handle, uint64_t *iova);
int unmap(struct dp *c, uint64_t iova);
int bench_dart(const char *node);
int relu_image(struct ane_net **net, const void **img, size_t *size);
int req_fail(struct ane_dev *dev, const char *what);
int bench_request(const char *node);
int bench_chain(const char *node);
int bench_load(const char *node);
int bench_broker(const char *node);

#endif /* ANE_BENCH_H */
