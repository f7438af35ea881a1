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

/*
 * A completion read from the file that nobody has waited for yet: a
 * request's (@type DRM_ANE_EVENT_REQUEST_COMPLETE, found by @seqno) or a
 * chain run's (DRM_ANE_EVENT_CHAIN_COMPLETE, by @token and @sequence).
 */
struct ane__done {
	uint32_t type;
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
	/* How long calls without a deadline of their own retry (ns). */
	uint64_t timeout_ns;
	/* What ane__ioctl() waited out on this handle, in all. */
	struct ane_retry_counts retries;
	/* in.sequence of the next direct-path ProgramSendRequest. */
	uint64_t dp_sequence;
	/* The requests' QoS pair (ane_set_request_qos()); 0: 5 and 21. */
	uint32_t qos_class, exec_priority;
	/*
	 * ane_request_wait()'s completion watch before it sleeps (ns; 0:
	 * none), and its backoff: after a watch that saw nothing, the next
	 * spin_skip waits sleep at once (spin_backoff doubles up to
	 * ANE__SPIN_BACKOFF_MAX; a watch that sees its completion resets it).
	 */
	uint64_t spin_ns;
	uint32_t spin_skip, spin_backoff;
};

/* ANE_WAIT_SPIN_US's default and bound, and the longest backoff (waits). */
#define ANE__SPIN_US_DEFAULT	50u
#define ANE__SPIN_US_MAX	1000u
#define ANE__SPIN_BACKOFF_MAX	64u
/*
 * The watch offers its CPU (sched_yield()) every ANE__SPIN_YIELD_EVERY
 * polls; a yield longer than ANE__SPIN_YIELD_BUSY_NS ran another task,
 * and ends the watch as one that saw nothing.
 */
#define ANE__SPIN_YIELD_EVERY	4u
#define ANE__SPIN_YIELD_BUSY_NS	10000ull

void ane__spin_init(struct ane_dev *dev);
uint64_t ane__timeout_default(void);

/* ------------------------------------------------------------ retries
 *
 * Every ioctl goes through ane__ioctl(), which waits out what the call
 * allows (Documentation/accel/ane/libane.rst, "Retries and timeouts"):
 * EINTR is restarted at once, EAGAIN (the firmware boots or recovers) is
 * retried after a pause that doubles from ANE__BACKOFF_MIN_NS up to
 * ANE__BACKOFF_MAX_NS, and EBUSY (a queue is full) and ENOBUFS (the
 * client's pool of 127 is full) are retried after poll()ing the file for a
 * completion event for as long.  Nothing is
 * retried past the call's deadline; then the last errno is returned.
 */
#define ANE__RETRY_EAGAIN	0x1u	/* wait out -EAGAIN until the deadline */
#define ANE__RETRY_EBUSY	0x2u	/* wait out -EBUSY until busy_deadline */
#define ANE__RETRY_ENOBUFS	0x4u	/* wait out -ENOBUFS (a full pool) as EBUSY */

#define ANE__BACKOFF_MIN_NS	50000ull	/* 50 us */
#define ANE__BACKOFF_MAX_NS	50000000ull	/* 50 ms */

/* One call's retry state; ane__retry_init() fills it. */
struct ane__retry {
	unsigned int flags;		/* ANE__RETRY_* */
	uint64_t start;			/* CLOCK_MONOTONIC ns */
	uint64_t deadline;		/* EAGAIN and EINTR; ANE_WAIT_FOREVER: none */
	uint64_t busy_deadline;		/* EBUSY, never after deadline */
	uint64_t backoff;		/* the next pause */
	unsigned int n_again;		/* EAGAIN answers so far */
	unsigned int n_busy;		/* EBUSY answers so far */
	unsigned int n_nobufs;		/* ENOBUFS answers so far */
	unsigned int n_intr;		/* EINTR answers so far */
};

/* What to do after a failed attempt (ane__retry_step()). */
enum ane__retry_action {
	ANE__GIVE_UP = 0,		/* return the errno */
	ANE__RESTART = 1,		/* call again at once (EINTR) */
	ANE__SLEEP = 2,			/* sleep *pause_ns, then call again */
	ANE__POLL = 3,			/* poll the file *pause_ns at most, read
					 * what it has, then call again */
};

void ane__retry_init(struct ane__retry *r, unsigned int flags, uint64_t now,
		     uint64_t deadline, uint64_t busy_deadline);
/*
 * The policy, a pure function of the state, the errno and the time: what
 * to do after an attempt failed with @err (positive) at @now.
 */
enum ane__retry_action ane__retry_step(struct ane__retry *r, int err,
				       uint64_t now, uint64_t *pause_ns);

/* CLOCK_MONOTONIC in ns; @now + @rel_ns, saturating at ANE_WAIT_FOREVER. */
uint64_t ane__now_ns(void);
uint64_t ane__deadline(uint64_t now, uint64_t rel_ns);

/*
 * ioctl(2) on @dev's file with @r's policy; 0 or -errno, no message.
 * @r must be initialised; afterwards it says how long and how often the
 * call was retried.
 */
int ane__ioctl(struct ane_dev *dev, unsigned long cmd, void *arg,
	       struct ane__retry *r);

/*
 * The system call ane__ioctl() makes: ioctl(2), or, when set (the host
 * tests do), this hook, which returns -1 and sets errno like ioctl(2).
 */
extern int (*ane__ioctl_hook)(int fd, unsigned long cmd, void *arg);

/*
 * Read the completion events @dev's file has into its queue (ane_run.c);
 * 0 also when there were none.
 */
int ane__read_events(struct ane_dev *dev);
struct ane_program {
	struct ane_dev *dev;
	struct ane_program *parent;	/* an instance's program */
	unsigned int n_instances;	/* live instances of this program */
	uint64_t token;
	uint64_t next_sequence;		/* in.sequence of the next request */
	int prepared;
};

struct ane_surface {
	struct ane_dev *dev;
	uint32_t handle;
	void *map;
	size_t size;
};

/* What an errno means for one call, where the generic hint is vague. */
struct ane__hint {
	int err;
	const char *text;
};

/* The hint in @h for @err, else a generic one for it, else NULL (ane_run.c). */
const char *ane__pick_hint(int err, const struct ane__hint *h);
/* Free a handle without a selector: its token is gone (ane_program.c). */
void ane__program_forget(struct ane_program *prog);
/* Forget @seqno; whether it was in flight (ane_run.c). */
int ane__inflight_del(struct ane_dev *dev, uint64_t seqno);
int ane__done_take(struct ane_dev *dev, uint32_t type, uint64_t seqno,
		   uint64_t token, uint64_t sequence, struct ane__done *d);

/*
 * The message and return value of a call that failed with -@err after
 * @r's retries: an EAGAIN names the firmware state GetStatus reports
 * (-EIO for ANE_FW_STATE_DEAD, else -EAGAIN); an errno that was retried
 * says for how long; otherwise as ane__fail_hint().
 */
__attribute__((format(printf, 5, 6)))
int ane__fail_retry(struct ane_dev *dev, int err, const struct ane__retry *r,
		    const char *hint, const char *fmt, ...);

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
	ANE__T_VIEW = 3,		/* another tensor's storage, in place */
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
	/*
	 * ANE__T_VIEW: element [n][c][h][w] of @parent's storage at
	 * voff + n * C * plane + c * plane + h * row + w (ane_net_view(),
	 * a strided view that only matmuls and copies read), or with @row
	 * and @plane 0 at voff + the dense NCHW index of [n][c][h][w] (a
	 * dense view: ane_net_reshape(), read by every operation).  A view's
	 * parent is never a view.
	 */
	int parent;			/* the tensor holding the storage */
	uint32_t voff;			/* first element, in elements */
	uint32_t row, plane;		/* strides in elements; 0, 0: dense */
	/* ANE__T_OP: made by ane_net_empty(), written by copies and fills */
	int empty;
	/* ANE__T_INPUT: made by ane_net_input_index(), int16 indices */
	int is_index;
};

/* The tensor whose storage @id is: itself, or a view's parent. */
static inline int ane__storage(const struct ane__tensor *t, int id)
{
	return t[id].kind == ANE__T_VIEW ? t[id].parent : id;
}

/* One operation: the task descriptor's fields, by name. */
struct ane__op {
	uint32_t op;			/* ANE_NET_OP_* (the TD's op word) */
	uint32_t act;
	uint32_t subop;			/* eltwise op or pooling kind */
	uint32_t flags;			/* transpose-B, count-pad, reduce axes */
	uint32_t stride[2];
	uint32_t dilation[2];
	uint32_t pad[4];		/* top, bottom, left, right */
	uint32_t groups;
	uint32_t kernel[2];
	uint32_t norm_eps;		/* ANE__OP_NORM: fp32 bits, 0: 1e-5 */
	uint32_t act_param[2];		/* ACT: alpha, beta (fp32 bits) */
	int src[2];			/* tensor ids, -1 none */
	int bias;
	int dst;
	/*
	 * ANE__OP_COPY: the source's (0) and destination's (1) views, in
	 * elements of their storage tensors (ane__storage()): strides and
	 * the element of view element [0][0][0][0].  The destination is
	 * @dst's storage, written in place; the source @src[0]'s.
	 */
	int64_t vstride[2][4];
	int64_t voff[2];
	uint32_t vdim[4];		/* the views' extents */
};

/* TD op words (enum ane_td_word's ANE_TD_OP values). */
#define ANE__OP_CONV		1
#define ANE__OP_MATMUL		2
#define ANE__OP_ELTWISE		3
#define ANE__OP_ACT		4
#define ANE__OP_POOL		5
#define ANE__OP_SOFTMAX		6
#define ANE__OP_NORM		7
#define ANE__OP_COPY		8
#define ANE__OP_REDUCE		9
#define ANE__OP_GATHER		10

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

/* ------------------------------------------------------------ builder
 *
 * The builder is four files: ane_builder.c (the net, its tensors, what
 * every operation shares: messages, operands, appending an operation),
 * ane_builder_ops.c (the compute operations), ane_builder_move.c (data
 * movement: copies, views, reshapes, fills) and ane_builder_image.c
 * (liveness, placement, fusion and the program image).
 */

/* The engine's limits (firmware/spec/ane_isa.h). */
#define ANE__MAX_DIM		(1u << 24)	/* any one dimension */
#define ANE__MAX_REDUCE		(1u << 14)	/* terms in one dot product */
#define ANE__MAX_SOFTMAX	(1u << 16)	/* channels of a softmax */
#define ANE__MAX_KERNEL		64u		/* window side, stride, dilation */
#define ANE__MAX_GATHER_H	32767u		/* rows of a gather's table */
#define ANE__NUM_ACTS		27u
#define ANE__FIRST_PARAM_ACT	20u	/* ANE_NET_ACT_ELU: ACT tasks only */

extern const char ane__dim_name[4];

/* "<fn>: op <i>" for messages. */
struct ane__op_ctx {
	struct ane_net *net;
	const char *fn;
	size_t idx;
};

struct ane__shape_str {
	char s[64];
};

/* "NxCxHxW" of @d. */
struct ane__shape_str ane__shp(const uint32_t *d);

/* A failure that leaves the net as it was (queries, build). */
__attribute__((format(printf, 3, 4)))
int ane__net_err(struct ane_net *net, int err, const char *fmt, ...);
void ane__net_ok(struct ane_net *net);
/* Any change drops the last image. */
void ane__net_changed(struct ane_net *net);
/* Room for one more tensor, zeroed, not yet counted; NULL if out of memory. */
struct ane__tensor *ane__new_tensor(struct ane_net *net);
/* Extents 1 .. 2^24 and at most 1 GiB of fp16; @what names the tensor. */
int ane__check_dims(struct ane_net *net, const char *what, const uint32_t *d);
/* Tensor @x of @net for @fn; -EINVAL (recorded) if there is none. */
int ane__net_tensor(struct ane_net *net, const char *fn, int x);

/* A failed operation: "<fn>: op <i>: <message>", -EINVAL. */
__attribute__((format(printf, 2, 3)))
int ane__op_fail(const struct ane__op_ctx *o, const char *fmt, ...);
/* An operand: a tensor of this net, any view included. */
int ane__get_operand_view(const struct ane__op_ctx *o, const char *role, int id,
			  const struct ane__tensor **t);
/*
 * An operand of anything but a matmul or a copy: a tensor of this net
 * that is dense NCHW in its storage, a reshape (a dense view) included,
 * but no strided view (ane_net_view()).
 */
int ane__get_operand(const struct ane__op_ctx *o, const char *role, int id,
		     const struct ane__tensor **t);
int ane__check_act(const struct ane__op_ctx *o, uint32_t act);
int ane__check_range(const struct ane__op_ctx *o, const char *what, uint32_t v);
/* Append @op with a new result tensor of shape @d; returns its id. */
int ane__add_op(const struct ane__op_ctx *o, struct ane__op *op, const uint64_t *d);
/* ane__add_op() of @op on @x (described by @tx), its result of x's dims. */
int ane__add_like(const struct ane__op_ctx *o, struct ane__op *op, int x,
		  const struct ane__tensor *tx);
/*
 * NORM of @kind with epsilon @eps (0: 1e-5; layer normalization only)
 * over W of @x: ane_net_norm() and ane_net_norm_eps() (ane_builder_reduce.c).
 */
int ane__net_norm(const struct ane__op_ctx *o, int x, enum ane_net_norm_kind kind,
		  float eps);
/* Append @op writing into @op->dst, an existing tensor; returns its id. */
int ane__add_op_into(const struct ane__op_ctx *o, struct ane__op *op);
void ane__op_init(struct ane__op *op, uint32_t kind);
/*
 * A dense copy of tensor @id, a strided view (ane_builder_move.c), by a
 * COPY appended now; its id, or -errno (recorded, naming @fn).
 */
int ane__materialize(struct ane_net *net, const char *fn, int id);

/* Whether tensor @t is a strided view (ane_net_view()), not a dense one. */
static inline int ane__is_strided_view(const struct ane__tensor *t)
{
	return t->kind == ANE__T_VIEW && (t->row || t->plane);
}

/* Record a net error (ane_builder.c); returns -@err. */
__attribute__((format(printf, 3, 4)))
int ane__net_fail(struct ane_net *net, int err, const char *fmt, ...);

/*
 * The reference executor's COPY (ane_reference_move.c): @op's views of
 * the storages of its source and destination, in @val (one float array
 * per tensor, a storage's its whole).
 */
void ane__ref_copy(const struct ane__op *op, const struct ane__tensor *t,
		   float *const *val);

/*
 * Whether tensor @id's storage is an index input (ane_net_input_index()):
 * a GATHER's indices, int16, which no other operation may read.
 */
static inline int ane__is_index(const struct ane__tensor *t, int id)
{
	return t[ane__storage(t, id)].is_index;
}

/*
 * An operand that must not be an index tensor: 0, or the failure naming
 * it (ane_builder_gather.c).
 */
int ane__refuse_index(const struct ane__op_ctx *o, const char *role, int id);

/*
 * The reference executor's GATHER (ane_reference_move.c): @op's rows of
 * its table picked by its indices' values (whole numbers, as int16), in
 * @val (one float array per tensor).
 */
void ane__ref_gather(const struct ane__op *op, const struct ane__tensor *t,
		     float *const *val);

/*
 * The reference executor's REDUCE (ane_reference_reduce.c): result @o
 * (in NCHW order) of @op on its source's values @x, in double, before the
 * activation; and the natural logarithm it uses, also NORM's log-softmax's.
 */
double ane__ref_reduce_at(const struct ane__op *op, const struct ane__tensor *t,
			  const float *x, uint64_t o);
double ane__ref_log(double x);

/*
 * The reference executor's unary math (ane_reference_fn.c, image minor
 * version 4): activation @act (ANE_NET_ACT_SILU on) of @x in double, with
 * its parameters @alpha and @beta; a^b with C99 pow()'s special cases.
 */
double ane__ref_act(uint32_t act, double alpha, double beta, double x);
double ane__ref_pow(double a, double b);

/* Fill t[].last_use from the ops (ane_builder_image.c). */
void ane__net_liveness(struct ane_net *net);

#endif /* LIBANE_INTERNAL_H */
