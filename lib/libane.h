/* SPDX-License-Identifier: MIT */
/*
 * libane: userspace runtime for the emulated Apple Neural Engine.
 *
 * Copyright (C) 2026 The ane authors
 *
 * Every function that can fail returns 0 or a negative errno and leaves a
 * message naming the device node, the selector or call, the errno and,
 * where one is to blame, the field, readable with ane_errmsg().
 */
#ifndef LIBANE_H
#define LIBANE_H

#include <stddef.h>
#include <stdint.h>

#include <drm/ane_accel.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBANE_EXPORT __attribute__((visibility("default")))

/** Which user client a handle opens (ch. 27). */
enum ane_client_kind {
	ANE_KIND_CONTROL = 0,	/* H11ANEInUserClient: lifecycle + hot path */
	ANE_KIND_DIRECT = 1,	/* H11ANEInDirectPathClient: enqueue, map */
};

/** The registry properties of Table 27.9, read from sysfs. */
struct ane_properties {
	char architecture[16];
	unsigned int version;
	unsigned int minor_version;
	unsigned int board_type;
	unsigned int board_subtype;
	unsigned int num_cores;
	unsigned int num_engines;
	unsigned int cpu_subtype;
	int internal_build;
};

/** What DRM_IOCTL_VERSION reports about the driver. */
struct ane_driver_version {
	char name[32];
	char desc[128];
	int major;
	int minor;
	int patchlevel;
};

struct ane_dev;

/*
 * Open @node (NULL: the first /dev/accel/accel* whose driver is "ane") and
 * run the DeviceOpen handshake as a client of @kind.  On failure *@out is
 * NULL and, if @errbuf is not NULL, a message is written there.  A @node
 * that is not ane's is refused before any ioctl reaches it: -ENOTTY for a
 * file that is no character device, -ENODEV for a device whose sysfs
 * entry names another driver or none.
 */
LIBANE_EXPORT int ane_open(const char *node, enum ane_client_kind kind,
			   struct ane_dev **out, char *errbuf, size_t errlen);

/* DeviceClose (if still open) and close the file.  NULL is a no-op. */
LIBANE_EXPORT void ane_close(struct ane_dev *dev);

/* The last error message of @dev, "" when the last call succeeded. */
LIBANE_EXPORT const char *ane_errmsg(const struct ane_dev *dev);

/* The node path and file descriptor behind @dev. */
LIBANE_EXPORT const char *ane_node(const struct ane_dev *dev);
LIBANE_EXPORT int ane_fd(const struct ane_dev *dev);

/* The DeviceOpen answer this handle received. */
LIBANE_EXPORT const struct drm_ane_device_info_out *
ane_handshake(const struct ane_dev *dev);

/* GetVersion (control selector 10), split into its fields. */
LIBANE_EXPORT int ane_get_version(struct ane_dev *dev, uint32_t *uapi,
				  uint32_t *hw_version, uint32_t *hw_minor);

/* GetStatus (control selector 7). */
LIBANE_EXPORT int ane_get_status(struct ane_dev *dev,
				 struct drm_ane_status *st);

/* DeviceClose without closing the file (the handle then refuses calls). */
LIBANE_EXPORT int ane_device_close(struct ane_dev *dev);

/* DRM_IOCTL_VERSION of the node. */
LIBANE_EXPORT int ane_get_driver_version(struct ane_dev *dev,
					 struct ane_driver_version *v);

/* Table 27.9 properties of the node, from sysfs. */
LIBANE_EXPORT int ane_get_properties(struct ane_dev *dev,
				     struct ane_properties *p);

/*
 * Find the accel node of the @index-th ane device (0-based) and write its
 * path to @buf.  Returns -ENODEV when there is none.
 */
LIBANE_EXPORT int ane_find_node(unsigned int index, char *buf, size_t len);

/*
 * Retries.  A call waits out a firmware that boots or recovers (the
 * kernel answers -EAGAIN) and, for ane_request_submit(), a full queue
 * (-EBUSY) or a full pool (-ENOBUFS: 127 requests outstanding), sleeping
 * or polling between attempts, until its deadline:
 * ane_request_wait() and ane_request_submit_timeout() take one, every
 * other call gets "now plus the handle's timeout", @rel_ns nanoseconds
 * (0: no retries, ANE_WAIT_FOREVER: no limit; ANE_TIMEOUT_DEFAULT_NS
 * when the handle is made, or the firmware's deadline -- the module
 * parameter fw_deadline_ms -- plus 8 s when that is longer).  A call
 * still refused at its deadline returns -EIO when GetStatus reports the
 * firmware ANE_FW_STATE_DEAD, else the kernel's -EAGAIN, -EBUSY or
 * -ENOBUFS; the message names the node, the
 * call, the errno and the firmware state.  See
 * Documentation/accel/ane/libane.rst, "Retries and timeouts".
 */
#define ANE_TIMEOUT_DEFAULT_NS		10000000000ull	/* 10 s */
LIBANE_EXPORT void ane_set_timeout(struct ane_dev *dev, uint64_t rel_ns);
LIBANE_EXPORT uint64_t ane_get_timeout(const struct ane_dev *dev);

/*
 * What this handle's calls waited out since it was opened: the retries
 * the policy above made.  @busy: -EBUSY and -ENOBUFS answers retried (a
 * full queue, or the handle's 127 requests outstanding: each retry slept
 * on the file for a completion first); @again: -EAGAIN
 * answers retried (the firmware booting or recovering: each slept);
 * @intr: calls a signal interrupted (restarted at once).  A client that never waits on a full
 * queue has @busy 0; ane-bench load reports the sum over its processes.
 */
struct ane_retry_counts {
	uint64_t busy;
	uint64_t again;
	uint64_t intr;
};
LIBANE_EXPORT void ane_get_retry_counts(const struct ane_dev *dev,
					struct ane_retry_counts *c);

/*
 * Printable names.  ane_errno_name() gives the symbolic name of a
 * (positive or negative) errno, "EINVAL", from the C library; "OK" for 0,
 * "errno N" for a number the C library has no name for.
 */
LIBANE_EXPORT const char *ane_fw_state_name(uint32_t state);
LIBANE_EXPORT const char *ane_errno_name(int err);

/*
 * libane's version at compile time: the release of this header, usable in
 * #if.  ane_version() is the release of the library a program runs with;
 * the two differ when a program built against one release runs on another
 * of the same soname.  tests/host/versions.sh keeps these equal to the
 * Makefile's ANE_VERSION.
 */
#define LIBANE_VERSION_MAJOR	0
#define LIBANE_VERSION_MINOR	1
#define LIBANE_VERSION_PATCH	0
/* Non-zero when this header is release MAJ.MIN.PAT or later. */
#define LIBANE_VERSION_AT_LEAST(maj, min, pat) \
	(LIBANE_VERSION_MAJOR > (maj) || \
	 (LIBANE_VERSION_MAJOR == (maj) && (LIBANE_VERSION_MINOR > (min) || \
	  (LIBANE_VERSION_MINOR == (min) && LIBANE_VERSION_PATCH >= (pat)))))

/* libane's version, "MAJOR.MINOR.PATCH" (the package's, as in libane.pc). */
LIBANE_EXPORT const char *ane_version(void);

/*
 * Wrap @fd, a file of an ane node that is already an open client of
 * @kind (DeviceOpen done elsewhere, e.g. received over a UNIX socket).
 * The handle owns @fd from then on, even on failure; ane_handshake()
 * reports zeros.  @name is used in messages (NULL: "fd N").
 */
LIBANE_EXPORT int ane_adopt_fd(int fd, enum ane_client_kind kind,
			       const char *name, struct ane_dev **out);

/* ------------------------------------------------------------------ fp16
 *
 * IEEE binary16, the engine's storage format.  From float: round to
 * nearest, ties to even; magnitudes from 65520 up become infinity; values
 * below 2^-14 become subnormals (down to 2^-24) or signed zero; NaN stays
 * NaN (quiet, the top payload bits kept).  To float: exact.  These agree
 * bit for bit with the engine's conversions.
 */
LIBANE_EXPORT uint16_t ane_fp16_from_float(float f);
LIBANE_EXPORT float ane_float_from_fp16(uint16_t h);
LIBANE_EXPORT void ane_fp16_from_float_array(uint16_t *dst, const float *src,
					     size_t n);
LIBANE_EXPORT void ane_float_from_fp16_array(float *dst, const uint16_t *src,
					     size_t n);

/*
 * The elements of an index tensor (ane_net_input_index(), a GATHER's
 * indices) are int16 in two's complement, not fp16.  From float: rounded
 * to the nearest integer (halfway cases away from zero), saturated to
 * -32768 .. 32767; NaN becomes -32768 (out of range for every table).
 */
LIBANE_EXPORT uint16_t ane_index_from_float(float f);
LIBANE_EXPORT void ane_index_from_float_array(uint16_t *dst, const float *src,
					      size_t n);

/* ------------------------------------------------------------------ builder
 *
 * The net builder: lib/libane_net.h, installed next to this header and
 * included here (it needs LIBANE_EXPORT and the fp16 functions above).
 */
#include "libane_net.h"

/* ------------------------------------------------------------------ run
 *
 * Programs, surfaces and requests, over a control handle.  Messages go
 * to the handle the object belongs to (ane_errmsg()).  A handle and the
 * objects made through it are used by one thread at a time.
 */
struct ane_program;
struct ane_surface;

/*
 * ane_program_prepare()'s priority: 2 (highest) .. 7 for applications;
 * ane_program_prepare_ex() also takes 0 and 1, the real-time band, for a
 * file holding the real-time capability (else -EPERM).
 */
#define ANE_PROGRAM_PRIORITY_DEFAULT	4

/* ane_request_wait(): no deadline. */
#define ANE_WAIT_FOREVER		UINT64_MAX
/* ane_request_wait()'s *status when no completion arrived. */
#define ANE_REQUEST_PENDING		1

/*
 * ProgramCreate (control selector 3): hand the kernel @image, which it
 * validates completely; a refusal is -EINVAL and the kernel log names the
 * offending field.
 */
LIBANE_EXPORT int ane_program_create(struct ane_dev *dev, const void *image,
				     size_t size, struct ane_program **out);

/*
 * ProgramPrepare (selector 4): make the program resident in the firmware
 * (priority ANE_PROGRAM_PRIORITY_DEFAULT, the default queue depth).
 * Instances are not prepared: they run while their program is.
 */
LIBANE_EXPORT int ane_program_prepare(struct ane_program *prog);
LIBANE_EXPORT int ane_program_prepare_ex(struct ane_program *prog,
					 uint32_t priority,
					 uint32_t queue_depth);

/* ProgramUnprepare (selector 5). */
LIBANE_EXPORT int ane_program_unprepare(struct ane_program *prog);

/*
 * ProgramDestroy (selector 6); the kernel unprepares a prepared program
 * itself.  The handle is freed, except on -EBUSY (requests still in
 * flight, or live instances: destroy those first), when it is kept so
 * that the call can be repeated.
 */
LIBANE_EXPORT int ane_program_destroy(struct ane_program *prog);

/*
 * ProgramCreateInstance (selector 8): a program that shares @prog's code,
 * with its own token and request sequence, and @weights (NULL: @prog's
 * weights) laid out as the image's weights section.  Destroy it with
 * ane_program_destroy() before @prog.
 */
LIBANE_EXPORT int ane_program_instance(struct ane_program *prog,
				       struct ane_surface *weights,
				       struct ane_program **inst);

/* The token ProgramCreate or ProgramCreateInstance minted. */
LIBANE_EXPORT uint64_t ane_program_token(const struct ane_program *prog);

/*
 * A surface of at least @size bytes (rounded up to 16 KB, at most 1 GiB),
 * mapped into the process: DRM_IOCTL_ANE_SURFACE_CREATE and mmap().
 */
LIBANE_EXPORT int ane_surface_create(struct ane_dev *dev, size_t size,
				     struct ane_surface **out);
/* Its CPU mapping, ane_surface_size() bytes. */
LIBANE_EXPORT void *ane_surface_map(const struct ane_surface *surf);
LIBANE_EXPORT size_t ane_surface_size(const struct ane_surface *surf);
LIBANE_EXPORT uint32_t ane_surface_handle(const struct ane_surface *surf);
/* munmap() and DRM_IOCTL_GEM_CLOSE; the handle is freed.  NULL: no-op. */
LIBANE_EXPORT int ane_surface_destroy(struct ane_surface *surf);

/*
 * ProgramSendRequest (control selector 2): run @procedure of @prog with
 * @inputs[i] as input i and @outputs[j] as output j.  The surfaces must
 * come from the program's handle.  *@seqno receives the driver sequence
 * number that ane_request_wait() waits for.
 */
LIBANE_EXPORT int ane_request_submit(struct ane_program *prog,
				     uint32_t procedure,
				     struct ane_surface *const *inputs,
				     unsigned int n_in,
				     struct ane_surface *const *outputs,
				     unsigned int n_out, uint64_t *seqno);

/*
 * ane_request_submit() with a deadline: while the program's queue is full
 * (-EBUSY) or the handle has 127 requests outstanding (-ENOBUFS) it polls
 * the file for a completion (kept for its wait: reading it makes room), and
 * while the firmware boots or recovers (-EAGAIN) it backs off, until
 * CLOCK_MONOTONIC reaches @abs_timeout_ns (ANE_WAIT_FOREVER: no limit;
 * ane_deadline_ns() makes one).  ane_request_submit() is this with the
 * handle's timeout (ane_set_timeout()).  At the deadline: -EBUSY, -ENOBUFS,
 * -EAGAIN, or -EIO when the firmware is dead.
 */
LIBANE_EXPORT int ane_request_submit_timeout(struct ane_program *prog,
					     uint32_t procedure,
					     struct ane_surface *const *inputs,
					     unsigned int n_in,
					     struct ane_surface *const *outputs,
					     unsigned int n_out,
					     uint64_t abs_timeout_ns,
					     uint64_t *seqno);

/*
 * Wait until request @seqno completes or CLOCK_MONOTONIC reaches
 * @abs_timeout_ns (ANE_WAIT_FOREVER: no limit; see ane_deadline_ns()).
 * Completions of other requests read meanwhile are kept for their own
 * waits.  Returns the completion status: 0, or the request's negative
 * errno (the message says what it means, see ane_request_status_str()),
 * or -ETIMEDOUT when the deadline passed first, or another negative errno
 * when waiting failed.  *@status (may be NULL) receives the completion
 * status, ANE_REQUEST_PENDING if none arrived; *@exec_ns (may be NULL)
 * the engine time.  It watches for the completion for up to 50 us (polls
 * that do not sleep, yielding the CPU now and then) before it sleeps, and
 * skips the watch for a while after one that saw nothing or found the CPU
 * wanted; $ANE_WAIT_SPIN_US (0..1000, read when the handle is made) sets
 * it, 0 turns it off.
 */
LIBANE_EXPORT int ane_request_wait(struct ane_dev *dev, uint64_t seqno,
				   uint64_t abs_timeout_ns, int *status,
				   uint64_t *exec_ns);

/*
 * The quality-of-service pair later requests of @dev carry (the
 * ProgramSendRequest fields qos_class and exec_priority; 0, 0: the M1
 * client's 5 and 21).  The kernel passes them on; the engine's scheduling
 * is by program priority (ane_program_prepare_ex()).
 */
LIBANE_EXPORT void ane_set_request_qos(struct ane_dev *dev, uint32_t qos_class,
				       uint32_t exec_priority);

/* CLOCK_MONOTONIC now plus @rel_ns, for ane_request_wait(). */
LIBANE_EXPORT uint64_t ane_deadline_ns(uint64_t rel_ns);

/* What a completion status means, in words. */
LIBANE_EXPORT const char *ane_request_status_str(int status);

/* ------------------------------------------------------------ resident
 *
 * The resident submission model (Documentation/accel/ane/resident.rst).
 * A control handle exports a prepared program as a file descriptor; a
 * direct-path handle (ANE_KIND_DIRECT) of the same uid attaches it.  The
 * control handle makes chains of its procedures; the direct-path handle
 * enqueues each run's output set, triggers the run with its inputs --
 * @chained[i] set: input i is an output surface of the chain's previous
 * run, read where it lies -- and waits for the run.  Surfaces passed on
 * the direct-path side come from the direct-path handle.
 */

/* PROGRAM_EXPORT: *@fd, close-on-exec; pass it (SCM_RIGHTS) and close it. */
LIBANE_EXPORT int ane_program_export(struct ane_dev *ctl,
				     const struct ane_program *prog, int *fd);
/* PROGRAM_ATTACH on a direct-path handle: *@token names the program. */
LIBANE_EXPORT int ane_program_attach(struct ane_dev *dp, int fd,
				     uint64_t *token);
LIBANE_EXPORT int ane_program_detach(struct ane_dev *dp, uint64_t token);

/*
 * ProgramSendRequest (direct-path selector 2) of the attached program
 * @token: run @procedure with @inputs[i] as input i and @outputs[j] as
 * output j, surfaces of @dp, retrying as ane_request_submit_timeout()
 * until @abs_timeout_ns.  Wait for *@seqno with ane_request_wait(@dp, ...).
 * -EBADRQC on a control handle; -ENOENT for a token @dp did not attach;
 * -EBADFD once the exporter unprepared the program.
 */
LIBANE_EXPORT int ane_attached_submit(struct ane_dev *dp, uint64_t token,
				      uint32_t procedure,
				      struct ane_surface *const *inputs,
				      unsigned int n_in,
				      struct ane_surface *const *outputs,
				      unsigned int n_out,
				      uint64_t abs_timeout_ns, uint64_t *seqno);

/*
 * ProgramChainingPrepare (control selector 9): a chain of @procedure;
 * @flags 0 or ANE_CHAIN_GROUP(g).  ane_chain_invalidate() tears it down.
 */
LIBANE_EXPORT int ane_chain_prepare(struct ane_dev *ctl,
				    const struct ane_program *prog,
				    uint32_t procedure, uint32_t flags,
				    uint64_t *handle);
LIBANE_EXPORT int ane_chain_invalidate(struct ane_dev *ctl, uint64_t handle);

/* ProgramOutputSetEnqueue (direct-path 3): output j is @outputs[j]. */
LIBANE_EXPORT int ane_chain_enqueue(struct ane_dev *dp, uint64_t handle,
				    struct ane_surface *const *outputs,
				    unsigned int n_out);
/*
 * ProgramInputsReady (direct-path 4): input i is @inputs[i], chained if
 * @chained (may be NULL) says so; @exec_timestamp above the last one.
 */
LIBANE_EXPORT int ane_chain_trigger(struct ane_dev *dp, uint64_t handle,
				    uint64_t exec_timestamp,
				    struct ane_surface *const *inputs,
				    const unsigned char *chained,
				    unsigned int n_in);
/*
 * Wait for the run @exec_timestamp of the chain (its
 * DRM_ANE_EVENT_CHAIN_COMPLETE) until @abs_timeout_ns; the status and
 * engine time as ane_request_wait().  Other completions read meanwhile
 * (other runs', requests') are kept for their own waits.
 */
LIBANE_EXPORT int ane_chain_wait(struct ane_dev *dp, uint64_t handle,
				 uint64_t exec_timestamp,
				 uint64_t abs_timeout_ns, int *status,
				 uint64_t *exec_ns);
/*
 * Wait and signal events of a request (resident.rst, "Wait events and the
 * shared event"): @kind ANE_SURFACE_IN_SYNCOBJ (the request waits for the
 * fence of syncobj @handle before the engine reads its inputs; a fence
 * that fails fails the request with its error), ANE_SURFACE_OUT_SYNCOBJ
 * (syncobj @handle gets the request's completion fence) or
 * ANE_SURFACE_IN_SHARED_EVENT (@handle the id of this handle's shared
 * event: the request waits for its next ring).  At most
 * ANE_REQ_MAX_EVENTS (16) per request.
 */
struct ane_request_event {
	uint32_t kind;
	uint32_t handle;
};

/*
 * ane_request_submit_timeout() (on a control handle's program) with
 * @n_events events; the request is queued at once and the firmware holds
 * it until its waits end.  -E2BIG beyond 16 events; -EBUSY (retried
 * until the deadline) while the device holds ANE_DEV_MAX_WAITING (32)
 * waiting requests.
 */
LIBANE_EXPORT int ane_request_submit_events(struct ane_program *prog,
					    uint32_t procedure,
					    struct ane_surface *const *inputs,
					    unsigned int n_in,
					    struct ane_surface *const *outputs,
					    unsigned int n_out,
					    const struct ane_request_event *events,
					    unsigned int n_events,
					    uint64_t abs_timeout_ns,
					    uint64_t *seqno);

/*
 * The device's one shared event (sharedEventsActiveNbr < 2): activate it
 * for @dev (*@id: its id, for requests and rings; -EBUSY while any handle
 * has it, -EPERM without the data-chaining capability), ring it (the
 * requests waiting on it run; *@rings, may be NULL: rings since
 * activation), deactivate it (waiting requests fail with -ECANCELED;
 * closing the handle does it too).
 */
LIBANE_EXPORT int ane_shared_event_activate(struct ane_dev *dev, uint32_t *id);
LIBANE_EXPORT int ane_shared_event_ring(struct ane_dev *dev, uint32_t id,
					uint64_t *rings);
LIBANE_EXPORT int ane_shared_event_deactivate(struct ane_dev *dev, uint32_t id);

/* SessionHintRequest (direct-path 7): ANE_HINT_RATE or ANE_HINT_BURST_US. */
LIBANE_EXPORT int ane_session_hint(struct ane_dev *dp, uint32_t hint,
				   uint64_t value, uint64_t *applied);

/*
 * Build @net if needed, then create and prepare its program, make and
 * fill one surface per input (from the fp32 arrays @inputs[i]), submit,
 * wait (10 s at most), convert the outputs into @outputs[j], and free
 * everything.  Messages go to @dev (to @net if @dev is NULL).
 */
LIBANE_EXPORT int ane_net_run(struct ane_dev *dev, struct ane_net *net,
			      const float *const *inputs,
			      float *const *outputs);

/* ------------------------------------------------------------ models
 *
 * ONNX models (Documentation/accel/ane/onnx.rst).  ane_model_load_onnx()
 * reads a ModelProto, infers every shape (static: a dynamic dimension is
 * fixed by the caller), folds what is constant, and splits the graph: the
 * nodes the engine runs are compiled into program images (segments), the
 * others run on the CPU between them -- unless ANE_MODEL_ENGINE_ONLY asks
 * for a refusal listing every such node.  ane_model_run() runs it: the
 * engine segments on a device, or with dev NULL on libane's CPU reference
 * executor (ane_net_reference()), or through the caller's executor.
 * Failures return a negative errno and a message that names the node, its
 * op type and the field (ane_model_errmsg(), or @err at load).
 */
struct ane_model;

#define ANE_MODEL_MAX_RANK	8

/* ane_model_options.flags */
#define ANE_MODEL_ENGINE_ONLY	0x1u	/* refuse a node the engine cannot run */
#define ANE_MODEL_CPU_ONLY	0x2u	/* every node on the CPU (a baseline) */
/*
 * With ENGINE_ONLY: the model must compile to one program image whose
 * inputs and outputs are the graph's, in the graph's order (what a broker
 * loads and evaluates by index); else a refusal that says why.
 */
#define ANE_MODEL_ONE_PROGRAM	0x4u

/*
 * A tensor given to or read from a model: ONNX's element type
 * (TensorProto.DataType: 1 float, 7 int64, 9 bool, 10 float16, ...),
 * shape and dense row-major data of @size bytes.
 */
struct ane_model_tensor {
	const char *name;
	int32_t dtype;
	uint32_t rank;
	int64_t dims[ANE_MODEL_MAX_RANK];
	void *data;
	size_t size;
};

struct ane_model_options {
	uint32_t flags;			/* ANE_MODEL_* */
	/* Directory of external data files (the model file's when NULL). */
	const char *base_dir;
	/* Shapes of graph inputs whose dimensions are dynamic (data unused). */
	const struct ane_model_tensor *shapes;
	unsigned int n_shapes;
	/*
	 * Graph inputs fixed to a value (with data): an input that sets a
	 * shape (a Reshape's target fed as an input) becomes a constant.
	 */
	const struct ane_model_tensor *consts;
	unsigned int n_consts;
	/*
	 * Most estimated FLOPs in one engine segment (0: no limit): each
	 * segment is one request, and the firmware aborts a request at its
	 * deadline (-ETIMEDOUT; fw_deadline_ms, 2 s by default), so a slow engine (an emulated one
	 * under QEMU's TCG) runs a large model as more, smaller requests.
	 */
	double max_segment_flops;
};

/* Where a node runs (ane_model_node()). */
enum ane_model_place {
	ANE_MODEL_FOLDED = -1,		/* computed at load: constant inputs */
	ANE_MODEL_CPU = 0,
	ANE_MODEL_ENGINE = 1,
};

struct ane_model_node_info {
	const char *name;
	const char *op_type;
	int place;			/* enum ane_model_place */
	int segment;			/* engine segment, or -1 */
	double flops;			/* estimated */
	const char *why;		/* CPU: why not the engine; else "" */
};

struct ane_model_stats {
	unsigned int nodes, engine_nodes, cpu_nodes, folded_nodes;
	unsigned int segments;
	double flops, engine_flops;
};

/* @opt may be NULL (defaults).  On failure *@out is NULL and @err says why. */
LIBANE_EXPORT int ane_model_load_onnx(const void *bytes, size_t len,
				      const struct ane_model_options *opt,
				      struct ane_model **out, char *err,
				      size_t err_len);
LIBANE_EXPORT int ane_model_load_onnx_file(const char *path,
					   const struct ane_model_options *opt,
					   struct ane_model **out, char *err,
					   size_t err_len);
LIBANE_EXPORT void ane_model_destroy(struct ane_model *m);
LIBANE_EXPORT const char *ane_model_errmsg(const struct ane_model *m);
LIBANE_EXPORT unsigned int ane_model_num_inputs(const struct ane_model *m);
LIBANE_EXPORT unsigned int ane_model_num_outputs(const struct ane_model *m);
/* Name, dtype, rank, dims and size in bytes of input / output @i. */
LIBANE_EXPORT int ane_model_input(const struct ane_model *m, unsigned int i,
				  struct ane_model_tensor *info);
LIBANE_EXPORT int ane_model_output(const struct ane_model *m, unsigned int i,
				   struct ane_model_tensor *info);
LIBANE_EXPORT unsigned int ane_model_num_nodes(const struct ane_model *m);
LIBANE_EXPORT int ane_model_node(const struct ane_model *m, unsigned int i,
				 struct ane_model_node_info *info);
LIBANE_EXPORT void ane_model_get_stats(const struct ane_model *m,
				       struct ane_model_stats *st);
/* Engine segments and their program images (owned by the model). */
LIBANE_EXPORT unsigned int ane_model_num_segments(const struct ane_model *m);
LIBANE_EXPORT int ane_model_segment_image(const struct ane_model *m,
					  unsigned int seg, const void **image,
					  size_t *size);

/*
 * Run an engine segment's image: @in[i] and @out[j] are its inputs and
 * outputs as dense fp32 (ane_net_run()'s convention).  0 or a negative
 * errno with a message in @err.
 */
typedef int (*ane_model_exec_fn)(void *ctx, unsigned int seg,
				 const void *image, size_t size,
				 const float *const *in, float *const *out,
				 char *err, size_t err_len);
/* Run engine segments through @fn (NULL: back to the default). */
LIBANE_EXPORT void ane_model_set_executor(struct ane_model *m,
					  ane_model_exec_fn fn, void *ctx);

/*
 * Run the model once.  @inputs[i] is input i (its dtype and shape, @size
 * bytes); @outputs[j].data receives output j (@size at least the output's
 * bytes; the shape and dtype are filled in).  Engine segments run on @dev
 * (a control handle), or with @dev NULL on the CPU reference executor,
 * unless an executor is set.
 */
LIBANE_EXPORT int ane_model_run(struct ane_model *m, struct ane_dev *dev,
				const struct ane_model_tensor *inputs,
				struct ane_model_tensor *outputs);

/* ------------------------------------------------------------ broker
 *
 * The client side of aned, the broker daemon (Documentation/accel/ane/
 * broker.rst): the daemon holds the device; a client sends it images
 * and inputs over a unix socket (D-Bus peer to peer, interface
 * org.ane.Broker1) and gets model ids and outputs back.  Every function
 * returns 0 or a negative errno -- the daemon's (a refusal names the
 * field or the entitlement), or -ECONNRESET/-ENOTCONN when aned went
 * away: close the handle and connect again -- and leaves a message for
 * ane_broker_errmsg().  Link with -lsystemd (pkg-config libane does).
 */
#define ANE_BROKER_SOCKET_DEFAULT	"/run/aned/aned.sock"
/* ane_broker_connect(NULL, ...) uses $ANE_BROKER_SOCKET, else the default. */
#define ANE_BROKER_SOCKET_ENV		"ANE_BROKER_SOCKET"

/* Quality of service, mapped by aned to the program and request priority. */
enum ane_qos {
	ANE_QOS_BACKGROUND = 0,
	ANE_QOS_UTILITY = 1,
	ANE_QOS_DEFAULT = 2,
	ANE_QOS_USER_INITIATED = 3,
	ANE_QOS_USER_INTERACTIVE = 4,
	ANE_QOS_REALTIME = 5,		/* the real-time band, priority 1 */
};
#define ANE_QOS_MAX			ANE_QOS_REALTIME

/*
 * ane_broker_load() flags, the per-model residency and power arguments
 * (broker.rst, "Residency, power and queue depth").  AGGRESSIVE_POWER:
 * unprepare after every evaluation (entitlement aggressive-power);
 * POWER_SAVING: unprepare after aned's --idle-ms without evaluations,
 * prepare again on demand; NO_UNWIRE: keep the model's surfaces resident
 * under cache pressure (entitlement no-unwire); ANE_BROKER_DEPTH(n): the
 * evaluations of the model in flight at once, 1..ANE_BROKER_DEPTH_MAX
 * (0: ANE_BROKER_DEPTH_DEFAULT), each with its own surfaces.
 * ane_broker_instantiate_ex() takes NO_UNWIRE and a depth.
 */
#define ANE_BROKER_LOAD_AGGRESSIVE_POWER	0x1u
#define ANE_BROKER_LOAD_POWER_SAVING		0x2u
#define ANE_BROKER_LOAD_NO_UNWIRE		0x4u
#define ANE_BROKER_DEPTH_SHIFT			8
#define ANE_BROKER_DEPTH_MASK			0xf00u
#define ANE_BROKER_DEPTH(n)	(((uint32_t)(n) << ANE_BROKER_DEPTH_SHIFT) & ANE_BROKER_DEPTH_MASK)
#define ANE_BROKER_DEPTH_MAX			8
#define ANE_BROKER_DEPTH_DEFAULT		2
/* ane_broker_handoff() flags: also hand over a direct-path file. */
#define ANE_BROKER_HANDOFF_DIRECT		0x1u
/* ane_broker_purge() flags: every cache partition, not only the caller's. */
#define ANE_BROKER_PURGE_ALL			0x1u

struct ane_broker;

/*
 * Connect to aned at @path (NULL: $ANE_BROKER_SOCKET, else
 * ANE_BROKER_SOCKET_DEFAULT).  On failure *@out is NULL and @errbuf (if
 * not NULL) says why.
 */
LIBANE_EXPORT int ane_broker_connect(const char *path, struct ane_broker **out,
				     char *errbuf, size_t errlen);
/* Disconnect: aned drops every model reference of the connection. */
LIBANE_EXPORT void ane_broker_close(struct ane_broker *b);
LIBANE_EXPORT const char *ane_broker_errmsg(const struct ane_broker *b);
/* 1 if a socket is at @path (NULL: as ane_broker_connect()), else 0. */
LIBANE_EXPORT int ane_broker_available(const char *path);

/* Load an image (ane_net_build()); *@model names it on this connection. */
LIBANE_EXPORT int ane_broker_load(struct ane_broker *b, const void *image,
				  size_t size, enum ane_qos qos, uint32_t flags,
				  uint64_t *model);
/* The same, the image read from @fd (a memfd or a regular file). */
LIBANE_EXPORT int ane_broker_load_fd(struct ane_broker *b, int fd,
				     enum ane_qos qos, uint32_t flags,
				     uint64_t *model);
/*
 * Run procedure 0 of @model: input i is @inputs[i] (@in_sizes[i] bytes,
 * exactly its bar's size), output j is written to @outputs[j]
 * (@out_sizes[j] bytes, at least its bar's size).  *@exec_ns (may be
 * NULL) receives the engine time.
 */
LIBANE_EXPORT int ane_broker_evaluate(struct ane_broker *b, uint64_t model,
				      const void *const *inputs,
				      const size_t *in_sizes, unsigned int n_in,
				      void *const *outputs,
				      const size_t *out_sizes,
				      unsigned int n_out, enum ane_qos qos,
				      uint64_t *exec_ns);
LIBANE_EXPORT int ane_broker_unload(struct ane_broker *b, uint64_t model);
/* A cookie another connection of the same uid adopts the model with. */
LIBANE_EXPORT int ane_broker_share(struct ane_broker *b, uint64_t model,
				   uint64_t *cookie);
LIBANE_EXPORT int ane_broker_adopt(struct ane_broker *b, uint64_t cookie,
				   uint64_t *model);
/* An adapter: an instance of @base with its own weights section. */
LIBANE_EXPORT int ane_broker_instantiate(struct ane_broker *b, uint64_t base,
					 const void *weights, size_t size,
					 enum ane_qos qos, uint64_t *model);
/* The same with flags: ANE_BROKER_LOAD_NO_UNWIRE and ANE_BROKER_DEPTH(n). */
LIBANE_EXPORT int ane_broker_instantiate_ex(struct ane_broker *b, uint64_t base,
					    const void *weights, size_t size,
					    enum ane_qos qos, uint32_t flags,
					    uint64_t *model);

/*
 * The compiler service (entitlement compiler-service): aned builds a net
 * described as records, each one ane_net_*() call, in a child process
 * with a time limit.  A record's tensor arguments are indices of earlier
 * records (ANE_BROKER_NET_NONE: no bias); @data is a CONST record's
 * n*c*h*w fp32 values.  Arguments, in order:
 */
enum ane_broker_net_op {
	ANE_BROKER_NET_INPUT = 0,	/* n c h w */
	ANE_BROKER_NET_CONST = 1,	/* n c h w, @data */
	ANE_BROKER_NET_CONV = 2,	/* x weights bias stride_h stride_w
					 * dilation_h dilation_w pad_top
					 * pad_bottom pad_left pad_right groups act */
	ANE_BROKER_NET_MATMUL = 3,	/* a b flags act */
	ANE_BROKER_NET_ELTWISE = 4,	/* op a b act */
	ANE_BROKER_NET_ACTIVATION = 5,	/* x act */
	ANE_BROKER_NET_POOL = 6,	/* x kind kernel_h kernel_w stride_h
					 * stride_w pad_top pad_bottom pad_left
					 * pad_right count_pad act */
	ANE_BROKER_NET_SOFTMAX = 7,	/* x */
	ANE_BROKER_NET_NORM = 8,	/* x kind */
	ANE_BROKER_NET_OUTPUT = 9,	/* x */
};
#define ANE_BROKER_NET_NONE		0xffffffffu
#define ANE_BROKER_NET_MAX_ARGS		16
#define ANE_BROKER_NET_MAX_RECORDS	4096

struct ane_broker_net_rec {
	uint32_t op;				/* enum ane_broker_net_op */
	uint32_t n_args;			/* exactly the op's count */
	uint32_t args[ANE_BROKER_NET_MAX_ARGS];
	const float *data;			/* CONST only, else NULL */
	size_t n_data;				/* values at @data */
};

/* ane_broker_compile() flags: load the image (the other bits: Load's). */
#define ANE_BROKER_COMPILE_LOAD			0x80000000u

/*
 * Compile @n records.  Without ANE_BROKER_COMPILE_LOAD *@image (free()
 * it) and *@size receive the image and *@model 0; with it the image is
 * loaded as by ane_broker_load() with the other @flags bits, *@model
 * names it, and *@image is NULL.
 */
LIBANE_EXPORT int ane_broker_compile(struct ane_broker *b,
				     const struct ane_broker_net_rec *recs,
				     unsigned int n, enum ane_qos qos,
				     uint32_t flags, void **image, size_t *size,
				     uint64_t *model);

/*
 * Compile an ONNX model's bytes in aned's sandboxed compiler (CompileOnnx):
 * engine-only, one program with the graph's inputs and outputs in order
 * (ANE_MODEL_ONE_PROGRAM); the results as ane_broker_compile()'s.
 */
LIBANE_EXPORT int ane_broker_compile_onnx(struct ane_broker *b,
					  const void *bytes, size_t len,
					  enum ane_qos qos, uint32_t flags,
					  void **image, size_t *size,
					  uint64_t *model);

/*
 * Hand @model off to the direct path: *@export_fd is its PROGRAM_EXPORT
 * descriptor, made with the caller's uid, to ane_program_attach() on a
 * direct-path handle; with ANE_BROKER_HANDOFF_DIRECT *@dp_fd is a
 * direct-path file (DeviceOpen done, capabilities other than memory
 * dropped) for ane_adopt_fd(), else -1.  The caller closes both.
 */
LIBANE_EXPORT int ane_broker_handoff(struct ane_broker *b, uint64_t model,
				     uint32_t flags, int *export_fd,
				     int *dp_fd);
/* Evict unreferenced cached models; *@evicted (may be NULL) counts them. */
LIBANE_EXPORT int ane_broker_purge(struct ane_broker *b, uint32_t flags,
				   uint32_t *evicted);
/* Clients, models and memory, as text lines "key value". */
LIBANE_EXPORT int ane_broker_diagnostics(struct ane_broker *b, char *buf,
					 size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LIBANE_H */
