/* SPDX-License-Identifier: MIT */
/*
 * libane internals shared by its source files; not installed.
 *
 * Names that are not static carry the ane__ prefix: the static library is
 * linked next to other code (the host tests link the engine's objects,
 * whose names start with ane_), and nothing here may collide with them.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef LIBANE_INTERNAL_H
#define LIBANE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "libane.h"

/* Usage codes of Table 28.5 that a program image's bars use. */
#define ANE__USAGE_INPUT	1
#define ANE__USAGE_OUTPUT	2
#define ANE__USAGE_INTERMEDIATE	7
#define ANE__USAGE_WEIGHTS	8

#define ANE__PAGE_SIZE		16384u		/* DART page, weights alignment */
#define ANE__MAX_BUFFER		(1ull << 30)	/* largest surface (ANE_BO_MAX_SIZE) */

/* A completion read from the file that nobody has waited for yet. */
struct ane__done {
	uint64_t seqno;
	uint64_t token;
	uint64_t sequence;
	uint64_t exec_ns;
	int32_t status;
};

struct ane_dev {
	int fd;
	enum ane_client_kind kind;
	int open;		/* between DeviceOpen and DeviceClose */
	char node[64];
	char err[512];
	struct drm_ane_device_info_out info;

	/* Completions read from the file, not yet waited for. */
	struct ane__done *done;
	size_t n_done, cap_done;
	/* Driver seqnos submitted through this handle, not yet waited for. */
	uint64_t *inflight;
	size_t n_inflight, cap_inflight;
	/* The ProgramSendRequest tuple, reused: all zero between requests. */
	struct drm_ane_send_request *sr;
};

/*
 * Leave "ane: <node>: <what>: <ERRNO> (<hint>)" in @dev and return -@err;
 * ane__fail() uses the generic hint for @err.
 */
__attribute__((format(printf, 4, 5)))
int ane__fail_hint(struct ane_dev *dev, int err, const char *hint,
		   const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
int ane__fail(struct ane_dev *dev, int err, const char *fmt, ...);
void ane__ok(struct ane_dev *dev);

/* fp16 from a double, rounded once, to nearest even (ane_fp16.c). */
uint16_t ane__fp16_from_double(double d);

/* Tensor bookkeeping the builder shares with the reference executor. */
enum ane__tensor_kind {
	ANE__T_INPUT = 0,
	ANE__T_CONST = 1,
	ANE__T_OP = 2,
};

struct ane__tensor {
	char name[32];
	uint32_t dim[4];		/* N, C, H, W */
	enum ane__tensor_kind kind;
	int index;			/* input, const or op index */
	int output;			/* output index, or -1 */
	uint16_t *data;			/* ANE__T_CONST: fp16 values */
	int last_use;			/* last op that reads it, -1 none */
	uint64_t offset;		/* build: offset in its bar */
};

/* One operation: the task descriptor's fields, by name. */
struct ane__op {
	uint32_t op;			/* ANE_NET_OP_* (the TD's op word) */
	uint32_t act;
	uint32_t subop;			/* eltwise op or pooling kind */
	uint32_t flags;			/* transpose-B, count-pad */
	uint32_t stride[2];
	uint32_t dilation[2];
	uint32_t pad[4];		/* top, bottom, left, right */
	uint32_t groups;
	uint32_t kernel[2];
	int src[2];			/* tensor ids, -1 none */
	int bias;
	int dst;
};

/* TD op words (enum ane_td_word's ANE_TD_OP values). */
#define ANE__OP_CONV		1
#define ANE__OP_MATMUL		2
#define ANE__OP_ELTWISE		3
#define ANE__OP_ACT		4
#define ANE__OP_POOL		5
#define ANE__OP_SOFTMAX		6

struct ane_net {
	struct ane__tensor *t;
	size_t n_t, cap_t;
	struct ane__op *ops;
	size_t n_ops, cap_ops;
	int inputs[ANE_IMG_MAX_IO];
	unsigned int n_inputs;
	int outputs[ANE_IMG_MAX_IO];
	unsigned int n_outputs;
	unsigned int n_consts;
	int failed;			/* some call failed: first_err says which */
	char err[1024];
	char first_err[512];
	void *image;			/* the last build, or NULL */
	size_t image_size;
};

static inline uint64_t ane__elems(const uint32_t *dim)
{
	return (uint64_t)dim[0] * dim[1] * dim[2] * dim[3];
}

/* Record a net error (ane_builder.c); returns -@err. */
__attribute__((format(printf, 3, 4)))
int ane__net_fail(struct ane_net *net, int err, const char *fmt, ...);

/* Fill t[].last_use from the ops (ane_builder.c). */
void ane__net_liveness(struct ane_net *net);

#endif /* LIBANE_INTERNAL_H */
