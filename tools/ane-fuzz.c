// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: a structure-aware fuzzer of the ane driver's userspace ABI.
 *
 * Workers (--procs processes of --threads threads each) run random
 * sequences of operations on the ane nodes: the 26 selectors, the
 * driver's own ioctls, every DRM core ioctl of <drm/drm.h> and raw 'd'
 * numbers, with mmap, munmap, close, dup, fork and exit in between.  Each
 * worker keeps pools of what the kernel handed out (files, sessions,
 * surfaces, program tokens, device addresses, syncobjs, dma-bufs,
 * mappings) and feeds them back into arguments, valid or with one field
 * corrupted; with --inject a root injector drives the firmware's and the
 * DART's debugfs fault knobs meanwhile.
 *
 * Every operation draws its arguments from a 64-bit seed of its own, and
 * the worker's sequence of (operation, seed) pairs follows from --seed
 * alone, so a sequence replays exactly (--replay FILE, or --worker W to
 * regenerate one worker).  A supervisor watches the workers through
 * shared memory: a worker killed by a signal, an operation that does not
 * return within --hang-timeout, or an errno no correct kernel gives (EFAULT
 * on valid pointers, a kernel-internal errno, a wrongly encoded selector
 * that is not -EINVAL, nonzero reserved output) fails the run and prints
 * the seed and the worker's last operations as a reproducer.  After the
 * run a canary checks that the device still answers.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "libane.h"

/* ------------------------------------------------------------ limits */

#define MAX_WORKERS	128
#define RING_MAX	256
#define ERRNO_MAX	600		/* errnos >= this count in the last bucket */
#define MAX_NODES	8
#define NFD		8
#define NSURF		24
#define NPROG		12
#define NMAP		12
#define NIOVA		12
#define NSYNC		12
#define NXFD		8
#define NKIDS		4
#define NSHARE		8
#define NIMG		4
#define SCRATCH		(64 << 10)
#define IMGBUF		(256 << 10)
#define SURF_BUDGET	(16u << 20)	/* live surface bytes per worker */

/* ------------------------------------------------------------ the ops */

enum {
	OP_OPEN, OP_CLOSE, OP_DUP, OP_SHARE,
	OP_SEL0,			/* 26 selectors */
	OP_SURFACE_CREATE = OP_SEL0 + 26, OP_DMA, OP_GET_FAULT,
	OP_DRM, OP_SYNCOBJ, OP_PRIME, OP_RAW,
	OP_MMAP, OP_MUNMAP, OP_TOUCH, OP_READ, OP_RUN,
	OP_FORK, OP_REAP, OP_FDINFO, OP_SYSFS, OP_WRONG_SIZE,
	OP_INJECT, OP_METHOD,
	OP_COUNT
};

struct seldesc {
	const char *name;
	unsigned long cmd;
	int space;			/* 0 control, 1 direct path */
};

static const struct seldesc sels[26] = {
	{ "ctl.DeviceOpen", DRM_IOCTL_ANE_CTL_DEVICE_OPEN, 0 },
	{ "ctl.DeviceClose", DRM_IOCTL_ANE_CTL_DEVICE_CLOSE, 0 },
	{ "ctl.SendRequest", DRM_IOCTL_ANE_CTL_SEND_REQUEST, 0 },
	{ "ctl.ProgramCreate", DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, 0 },
	{ "ctl.ProgramPrepare", DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, 0 },
	{ "ctl.ProgramUnprepare", DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, 0 },
	{ "ctl.ProgramDestroy", DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, 0 },
	{ "ctl.GetStatus", DRM_IOCTL_ANE_CTL_GET_STATUS, 0 },
	{ "ctl.ProgramCreateInstance", DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, 0 },
	{ "ctl.ChainingPrepare", DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, 0 },
	{ "ctl.GetVersion", DRM_IOCTL_ANE_CTL_GET_VERSION, 0 },
	{ "ctl.RegisterDWP", DRM_IOCTL_ANE_CTL_REGISTER_DWP, 0 },
	{ "ctl.UnregisterDWP", DRM_IOCTL_ANE_CTL_UNREGISTER_DWP, 0 },
	{ "ctl.GetDWPItem", DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 0 },
	{ "ctl.CompleteDWPItem", DRM_IOCTL_ANE_CTL_COMPLETE_DWP_ITEM, 0 },
	{ "ctl.ReleaseDWPBuffers", DRM_IOCTL_ANE_CTL_RELEASE_DWP_BUFFERS, 0 },
	{ "ctl.LoadFirmware", DRM_IOCTL_ANE_CTL_LOAD_FIRMWARE, 0 },
	{ "dp.DeviceOpen", DRM_IOCTL_ANE_DP_DEVICE_OPEN, 1 },
	{ "dp.DeviceClose", DRM_IOCTL_ANE_DP_DEVICE_CLOSE, 1 },
	{ "dp.SendRequest", DRM_IOCTL_ANE_DP_SEND_REQUEST, 1 },
	{ "dp.OutputSetEnqueue", DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, 1 },
	{ "dp.InputsReady", DRM_IOCTL_ANE_DP_INPUTS_READY, 1 },
	{ "dp.MemoryMap", DRM_IOCTL_ANE_DP_MEMORY_MAP, 1 },
	{ "dp.MemoryUnMap", DRM_IOCTL_ANE_DP_MEMORY_UNMAP, 1 },
	{ "dp.SessionHint", DRM_IOCTL_ANE_DP_SESSION_HINT, 1 },
	{ "dp.ChainingSetActive", DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, 1 },
};

enum {
	S_CTL_OPEN, S_CTL_CLOSE, S_CTL_SEND, S_CREATE, S_PREPARE, S_UNPREPARE,
	S_DESTROY, S_STATUS, S_INSTANCE, S_CHAIN_PREP, S_VERSION, S_REG_DWP,
	S_UNREG_DWP, S_GET_DWP, S_COMPLETE_DWP, S_RELEASE_DWP, S_LOAD_FW,
	S_DP_OPEN, S_DP_CLOSE, S_DP_SEND, S_OSE, S_INPUTS_READY, S_MAP,
	S_UNMAP, S_HINT, S_SET_ACTIVE,
};

static const char *const op_names_fixed[] = {
	[OP_OPEN] = "open", [OP_CLOSE] = "close", [OP_DUP] = "dup",
	[OP_SHARE] = "share",
	[OP_SURFACE_CREATE] = "ane.SurfaceCreate", [OP_DMA] = "ane.Dma",
	[OP_GET_FAULT] = "ane.GetFault", [OP_DRM] = "drm",
	[OP_SYNCOBJ] = "syncobj", [OP_PRIME] = "prime", [OP_RAW] = "raw",
	[OP_MMAP] = "mmap", [OP_MUNMAP] = "munmap", [OP_TOUCH] = "touch",
	[OP_READ] = "read", [OP_RUN] = "run", [OP_FORK] = "fork",
	[OP_REAP] = "reap", [OP_FDINFO] = "fdinfo", [OP_SYSFS] = "sysfs",
	[OP_WRONG_SIZE] = "wrong-size", [OP_INJECT] = "inject",
	[OP_METHOD] = "ane.Method",
};

static const char *op_name(int op)
{
	if (op >= OP_SEL0 && op < OP_SEL0 + 26)
		return sels[op - OP_SEL0].name;
	if (op >= 0 && op < OP_COUNT && op_names_fixed[op])
		return op_names_fixed[op];
	return "?";
}

static int op_by_name(const char *s)
{
	int i;

	for (i = 0; i < OP_COUNT; i++)
		if (!strcmp(op_name(i), s))
			return i;
	return -1;
}

/* Relative weights of the workers' operations. */
static unsigned int op_weight(int op)
{
	if (op >= OP_SEL0 && op < OP_SEL0 + 26) {
		switch (op - OP_SEL0) {
		case S_CTL_OPEN: case S_DP_OPEN: return 6;
		case S_CTL_SEND: case S_CREATE: case S_PREPARE: return 10;
		case S_DESTROY: case S_MAP: case S_UNMAP: return 6;
		case S_UNPREPARE: case S_INSTANCE: case S_STATUS: return 4;
		default: return 2;
		}
	}
	switch (op) {
	case OP_OPEN: return 5;
	case OP_CLOSE: return 3;
	case OP_DUP: case OP_SHARE: return 2;
	case OP_SURFACE_CREATE: return 8;
	case OP_DMA: return 5;
	case OP_GET_FAULT: return 2;
	case OP_METHOD: return 2;
	case OP_DRM: return 12;
	case OP_SYNCOBJ: return 6;
	case OP_PRIME: return 4;
	case OP_RAW: return 6;
	case OP_MMAP: return 5;
	case OP_MUNMAP: return 3;
	case OP_TOUCH: return 4;
	case OP_READ: return 4;
	case OP_RUN: return 5;
	case OP_FORK: return 1;
	case OP_REAP: return 1;
	case OP_FDINFO: return 2;
	case OP_SYSFS: return 2;
	case OP_WRONG_SIZE: return 3;
	default: return 0;
	}
}

/* ------------------------------------------------------------ DRM core */

enum {
	G_ZERO,		/* no structure known: zeroed is the valid form */
	G_VERSION, G_UNIQUE, G_GEM_CLOSE, G_FLINK, G_GEM_OPEN, G_GET_CAP,
	G_SET_CAP, G_PRIME_TO_FD, G_PRIME_TO_HANDLE, G_SO_CREATE, G_SO_DESTROY,
	G_SO_TO_FD, G_SO_TO_HANDLE, G_SO_WAIT, G_SO_ARRAY, G_SO_TWAIT,
	G_SO_TARRAY, G_SO_TRANSFER, G_SO_EVENTFD, G_DUMB,
};

struct drmio {
	unsigned long cmd;
	const char *name;
	int gen;
};

#define D(n, g) { DRM_IOCTL_##n, #n, g }
static const struct drmio drm_ios[] = {
	D(VERSION, G_VERSION), D(GET_UNIQUE, G_UNIQUE), D(GET_MAGIC, G_ZERO),
	D(IRQ_BUSID, G_ZERO), D(GET_MAP, G_ZERO), D(GET_CLIENT, G_ZERO),
	D(GET_STATS, G_ZERO), D(SET_VERSION, G_ZERO), D(MODESET_CTL, G_ZERO),
	D(GEM_CLOSE, G_GEM_CLOSE), D(GEM_FLINK, G_FLINK),
	D(GEM_OPEN, G_GEM_OPEN), D(GET_CAP, G_GET_CAP),
	D(SET_CLIENT_CAP, G_SET_CAP), D(SET_UNIQUE, G_ZERO),
	D(AUTH_MAGIC, G_ZERO), D(BLOCK, G_ZERO), D(UNBLOCK, G_ZERO),
	D(CONTROL, G_ZERO), D(ADD_MAP, G_ZERO), D(ADD_BUFS, G_ZERO),
	D(MARK_BUFS, G_ZERO), D(INFO_BUFS, G_ZERO), D(MAP_BUFS, G_ZERO),
	D(FREE_BUFS, G_ZERO), D(RM_MAP, G_ZERO), D(SET_SAREA_CTX, G_ZERO),
	D(GET_SAREA_CTX, G_ZERO), D(SET_MASTER, G_ZERO),
	D(DROP_MASTER, G_ZERO), D(ADD_CTX, G_ZERO), D(RM_CTX, G_ZERO),
	D(MOD_CTX, G_ZERO), D(GET_CTX, G_ZERO), D(SWITCH_CTX, G_ZERO),
	D(NEW_CTX, G_ZERO), D(RES_CTX, G_ZERO), D(ADD_DRAW, G_ZERO),
	D(RM_DRAW, G_ZERO), D(DMA, G_ZERO), D(LOCK, G_ZERO),
	D(UNLOCK, G_ZERO), D(FINISH, G_ZERO),
	D(PRIME_HANDLE_TO_FD, G_PRIME_TO_FD),
	D(PRIME_FD_TO_HANDLE, G_PRIME_TO_HANDLE),
	D(AGP_ACQUIRE, G_ZERO), D(AGP_RELEASE, G_ZERO), D(AGP_ENABLE, G_ZERO),
	D(AGP_INFO, G_ZERO), D(AGP_ALLOC, G_ZERO), D(AGP_FREE, G_ZERO),
	D(AGP_BIND, G_ZERO), D(AGP_UNBIND, G_ZERO), D(SG_ALLOC, G_ZERO),
	D(SG_FREE, G_ZERO), D(WAIT_VBLANK, G_ZERO),
	D(CRTC_GET_SEQUENCE, G_ZERO), D(CRTC_QUEUE_SEQUENCE, G_ZERO),
	D(UPDATE_DRAW, G_ZERO), D(MODE_GETRESOURCES, G_ZERO),
	D(MODE_GETCRTC, G_ZERO), D(MODE_SETCRTC, G_ZERO),
	D(MODE_CURSOR, G_ZERO), D(MODE_GETGAMMA, G_ZERO),
	D(MODE_SETGAMMA, G_ZERO), D(MODE_GETENCODER, G_ZERO),
	D(MODE_GETCONNECTOR, G_ZERO), D(MODE_ATTACHMODE, G_ZERO),
	D(MODE_DETACHMODE, G_ZERO), D(MODE_GETPROPERTY, G_ZERO),
	D(MODE_SETPROPERTY, G_ZERO), D(MODE_GETPROPBLOB, G_ZERO),
	D(MODE_GETFB, G_ZERO), D(MODE_ADDFB, G_ZERO), D(MODE_RMFB, G_ZERO),
	D(MODE_PAGE_FLIP, G_ZERO), D(MODE_DIRTYFB, G_ZERO),
	D(MODE_CREATE_DUMB, G_DUMB), D(MODE_MAP_DUMB, G_ZERO),
	D(MODE_DESTROY_DUMB, G_ZERO), D(MODE_GETPLANERESOURCES, G_ZERO),
	D(MODE_GETPLANE, G_ZERO), D(MODE_SETPLANE, G_ZERO),
	D(MODE_ADDFB2, G_ZERO), D(MODE_OBJ_GETPROPERTIES, G_ZERO),
	D(MODE_OBJ_SETPROPERTY, G_ZERO), D(MODE_CURSOR2, G_ZERO),
	D(MODE_ATOMIC, G_ZERO), D(MODE_CREATEPROPBLOB, G_ZERO),
	D(MODE_DESTROYPROPBLOB, G_ZERO),
	D(SYNCOBJ_CREATE, G_SO_CREATE), D(SYNCOBJ_DESTROY, G_SO_DESTROY),
	D(SYNCOBJ_HANDLE_TO_FD, G_SO_TO_FD),
	D(SYNCOBJ_FD_TO_HANDLE, G_SO_TO_HANDLE),
	D(SYNCOBJ_WAIT, G_SO_WAIT), D(SYNCOBJ_RESET, G_SO_ARRAY),
	D(SYNCOBJ_SIGNAL, G_SO_ARRAY), D(MODE_CREATE_LEASE, G_ZERO),
	D(MODE_LIST_LESSEES, G_ZERO), D(MODE_GET_LEASE, G_ZERO),
	D(MODE_REVOKE_LEASE, G_ZERO), D(SYNCOBJ_TIMELINE_WAIT, G_SO_TWAIT),
	D(SYNCOBJ_QUERY, G_SO_TARRAY), D(SYNCOBJ_TRANSFER, G_SO_TRANSFER),
	D(SYNCOBJ_TIMELINE_SIGNAL, G_SO_TARRAY), D(MODE_GETFB2, G_ZERO),
#ifdef DRM_IOCTL_SYNCOBJ_EVENTFD
	D(SYNCOBJ_EVENTFD, G_SO_EVENTFD),
#endif
#ifdef DRM_IOCTL_MODE_CLOSEFB
	D(MODE_CLOSEFB, G_ZERO),
#endif
};
#undef D
#define N_DRM_IOS (sizeof(drm_ios) / sizeof(drm_ios[0]))

static const int drm_syncobj_ios[] = {
	G_SO_CREATE, G_SO_DESTROY, G_SO_TO_FD, G_SO_TO_HANDLE, G_SO_WAIT,
	G_SO_ARRAY, G_SO_TWAIT, G_SO_TARRAY, G_SO_TRANSFER, G_SO_EVENTFD,
};

static const int drm_prime_ios[] = {
	G_PRIME_TO_FD, G_PRIME_TO_HANDLE, G_GEM_CLOSE, G_FLINK, G_GEM_OPEN,
};

/* ------------------------------------------------------------ shared state */

enum { FAIL_NONE, FAIL_SIGNAL, FAIL_HANG, FAIL_ERRNO, FAIL_CHILD, FAIL_EXIT };

struct ring_ent {
	uint64_t n;		/* operation number in the worker's sequence */
	uint64_t seed;
	int16_t op;
	int16_t err;		/* result of the operation's main call */
	uint32_t us;		/* its duration */
};

struct wslot {
	volatile int state;		/* 0 not started, 1 running, 2 done */
	volatile int fail;		/* FAIL_* */
	volatile int fail_sig;
	volatile int pid, tid;
	volatile int cur_op;
	volatile uint64_t op_start_ns;	/* 0 outside an operation */
	volatile uint64_t nops;		/* operations started */
	volatile int child_pid;		/* current fork child, 0 if none */
	volatile int child_op;
	volatile uint64_t child_start_ns;
	volatile uint64_t calls;	/* system calls made (ops + their setup) */
	uint64_t seed;
	char note[200];			/* what the current operation does */
	char fail_msg[256];
	struct ring_ent ring[RING_MAX];
	uint32_t errs[ERRNO_MAX];
	uint32_t opcount[OP_COUNT];
};

struct shm {
	volatile int stop;
	volatile int failed;
	int nslots;
	struct wslot w[];
};

/* ------------------------------------------------------------ options */

static struct {
	uint64_t seed;
	double time_s;
	uint64_t iterations;
	int procs, threads;
	int inject;
	int user;		/* -1: keep */
	int ring;
	int hang_s;
	int only_worker;	/* -1: all */
	const char *replay;
	const char *exclude;
	int verbose;
	char nodes[MAX_NODES][64];
	int nnodes;
} opt = {
	.seed = 1, .time_s = 10, .procs = 2, .threads = 2, .user = -1,
	.ring = 32, .hang_s = 60, .only_worker = -1,
};

static struct shm *shm;
static int nworkers;		/* worker slots; the injector's is after them */
static int excluded_op[OP_COUNT];
static char excluded_drm[N_DRM_IOS];

/* Replay: the operations to run, in order. */
struct rop {
	int op;
	uint64_t seed;
};
static struct rop *replay_ops;
static size_t replay_n;

/* ------------------------------------------------------------ randomness */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	return splitmix(&r->s);
}

static uint32_t rn(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd(r) % n) : 0;
}

static int chance(struct rng *r, unsigned int pct)
{
	return rn(r, 100) < pct;
}

static uint64_t interesting(struct rng *r)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256,
		287, 288, 293, 294, 1023, 1024, 4095, 4096, 16383, 16384, 16385,
		0x7fff, 0x8000, 0xffff, 0x10000, 1u << 20, (1u << 20) + 1,
		1u << 24, 1u << 28, 1u << 30, (1ull << 30) + 1, 0x7fffffff,
		0x80000000, 0xfffffffe, 0xffffffff, 1ull << 32, 0xe0000000,
		1ull << 40, 0x7fffffffffffffffull, 0x8000000000000000ull,
		0xfffffffffffff000ull, ~0ull,
	};

	switch (rn(r, 4)) {
	case 0:
		return rnd(r);
	case 1:
		return rn(r, 64);
	default:
		return v[rn(r, sizeof(v) / sizeof(v[0]))];
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *errname(int e)
{
	static __thread char buf[24];
	const char *n;

	if (!e)
		return "OK";
	n = e < 512 ? strerrorname_np(e) : NULL;
	if (n)
		return n;
	snprintf(buf, sizeof(buf), e >= 512 ? "E%d(kernel)" : "E%d", e);
	return buf;
}

/* ------------------------------------------------------------ images */

struct img {
	void *data;
	size_t size;
	unsigned int nin, nout;
};

static struct img imgs[NIMG];

static int build_one(int k, struct img *out)
{
	static const float w[2 * 2 * 9] = { 0.5f, -1, 0.25f, 1, 0, 2, -0.5f, 1, 1 };
	static const float b[8 * 4] = { 1, 2, 3, 4, -1, -2 };
	struct ane_net *net;
	const void *p;
	size_t size;
	int x, y, z, c;

	if (ane_net_create(&net))
		return -1;
	switch (k) {
	case 0:
		x = ane_net_input(net, "x", 1, 1, 4, 4);
		ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
		break;
	case 1: {
		struct ane_net_conv_params cp = { .pad_top = 1, .pad_bottom = 1,
						  .pad_left = 1, .pad_right = 1,
						  .act = ANE_NET_ACT_RELU6 };

		x = ane_net_input(net, "x", 1, 2, 4, 4);
		c = ane_net_const(net, "w", 2, 2, 3, 3, w);
		ane_net_output(net, ane_net_conv(net, x, c, -1, &cp));
		break;
	}
	case 2:
		x = ane_net_input(net, "a", 1, 1, 4, 8);
		y = ane_net_input(net, "b", 1, 1, 4, 8);
		z = ane_net_eltwise(net, ANE_NET_ADD, x, y, ANE_NET_ACT_NONE);
		ane_net_output(net, z);
		ane_net_output(net, ane_net_activation(net, z, ANE_NET_ACT_SIGMOID));
		break;
	default: {
		struct ane_net_pool_params pp = { .kind = ANE_NET_POOL_MAX,
						  .kernel_h = 2, .kernel_w = 2 };

		x = ane_net_input(net, "x", 1, 1, 8, 4);
		c = ane_net_const(net, "b", 1, 1, 4, 8, b);
		z = ane_net_matmul(net, x, c, 0, ANE_NET_ACT_NONE);
		ane_net_output(net, ane_net_softmax(net, ane_net_pool(net, z, &pp)));
		break;
	}
	}
	if (ane_net_build(net, &p, &size)) {
		fprintf(stderr, "ane-fuzz: building image %d: %s\n", k, ane_net_errmsg(net));
		ane_net_destroy(net);
		return -1;
	}
	out->data = malloc(size);
	if (!out->data) {
		ane_net_destroy(net);
		return -1;
	}
	memcpy(out->data, p, size);
	out->size = size;
	out->nin = ane_net_num_inputs(net);
	out->nout = ane_net_num_outputs(net);
	ane_net_destroy(net);
	return 0;
}

/* ------------------------------------------------------------ a worker */

struct fdent {
	int fd;
	int node;
	int kind;		/* -1 none yet, 0 control, 1 direct path */
	int open;		/* 0 new, 1 after DeviceOpen, 2 after DeviceClose */
	unsigned int gen;	/* bumped whenever the slot's file changes */
	uint64_t token;		/* session token */
};

struct surf {
	int used, fdi;
	unsigned int gen;
	uint32_t handle;
	uint64_t size, offset;
};

struct prog {
	int used, fdi;
	unsigned int gen;
	uint64_t token;
	int img, prepared, inst;
	uint64_t seq;
};

struct mapping {
	uint8_t *p;
	size_t len;
};

struct iova_ent {
	int used, fdi;
	unsigned int gen;
	uint64_t iova, len;
};

struct sobj {
	int used, fdi;
	unsigned int gen;
	uint32_t h;
};

struct worker {
	int id;
	struct wslot *slot;
	int in_child;
	struct fdent fds[NFD];
	struct surf s[NSURF];
	struct prog p[NPROG];
	struct mapping m[NMAP];
	struct iova_ent io[NIOVA];
	struct sobj so[NSYNC];
	int xfd[NXFD];		/* dma-bufs, sync files, syncobj fds, eventfds */
	pid_t kids[NKIDS];
	uint8_t *scratch;	/* SCRATCH bytes, then an inaccessible page */
	uint8_t *imgbuf;	/* IMGBUF bytes */
	uint64_t tokout;
	int cur_img;		/* image of the last ProgramCreate */
	int last_err;		/* result of the operation's main call */
	char note[200];
};

/* Fds handed between the threads of a process. */
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static int share_fd[NSHARE] = { -1, -1, -1, -1, -1, -1, -1, -1 };

static __thread struct wslot *my_slot;
static int forked_child;	/* this process is a worker's fork child */

static void note(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->note, sizeof(w->note), fmt, ap);
	va_end(ap);
	if (!w->in_child)
		memcpy(w->slot->note, w->note, sizeof(w->note));
}
static void fail(struct worker *w, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct worker *w, int kind, const char *fmt, ...)
{
	va_list ap;

	if (w->slot->fail)
		return;
	va_start(ap, fmt);
	vsnprintf(w->slot->fail_msg, sizeof(w->slot->fail_msg), fmt, ap);
	va_end(ap);
	w->slot->fail = kind;
	shm->failed = 1;
	shm->stop = 1;
}

static void count_err(struct worker *w, int e)
{
	if (e < 0)
		e = -e;
	if (e >= ERRNO_MAX)
		e = ERRNO_MAX - 1;
	__atomic_add_fetch(&w->slot->errs[e], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&w->slot->calls, 1, __ATOMIC_RELAXED);
}

/*
 * One ioctl.  @ptrs_ok says every pointer the kernel follows is valid, so
 * that -EFAULT is a kernel bug.  Returns 0 or a positive errno.
 */
static int xioctl(struct worker *w, int fd, unsigned long cmd, void *arg,
		  int ptrs_ok, const char *what)
{
	int e = ioctl(fd, cmd, arg) < 0 ? errno : 0;

	count_err(w, e);
	w->last_err = e;
	if (e >= 512)
		fail(w, FAIL_ERRNO, "%s (cmd 0x%08lx) returned kernel-internal errno %d",
		     what, cmd, e);
	else if (e == EFAULT && ptrs_ok)
		fail(w, FAIL_ERRNO, "%s (cmd 0x%08lx) returned EFAULT with valid pointers",
		     what, cmd);
	return e;
}

static int live_fd(struct worker *w, int fdi)
{
	return fdi >= 0 && fdi < NFD && w->fds[fdi].fd >= 0;
}

static void slot_close(struct worker *w, int fdi)
{
	if (w->fds[fdi].fd >= 0)
		close(w->fds[fdi].fd);
	w->fds[fdi].fd = -1;
	w->fds[fdi].kind = -1;
	w->fds[fdi].open = 0;
	w->fds[fdi].token = 0;
	w->fds[fdi].gen++;
}

static int slot_open(struct worker *w, int fdi, struct rng *r)
{
	int flags = O_RDWR | O_CLOEXEC;
	int node = rn(r, opt.nnodes), fd;

	if (chance(r, 30))
		flags |= O_NONBLOCK;
	if (chance(r, 3))
		flags = O_RDONLY | O_CLOEXEC;
	slot_close(w, fdi);
	fd = open(opt.nodes[node], flags);
	count_err(w, fd < 0 ? errno : 0);
	w->last_err = fd < 0 ? errno : 0;
	if (fd < 0)
		return -1;
	w->fds[fdi].fd = fd;
	w->fds[fdi].node = node;
	return 0;
}

static int device_open(struct worker *w, int fdi, int space, struct rng *r, int valid)
{
	struct drm_ane_device_open o = { 0 }, *a = &o;
	int e;

	a->in.usage_type = valid || chance(r, 90) ? ANE_USAGE_STANDARD : (uint8_t)rn(r, 4);
	a->in.callback = 0x1111222233334444ull;
	a->in.receiver_context = rnd(r);
	a->in.timeout = 10000;
	e = xioctl(w, w->fds[fdi].fd, space ? DRM_IOCTL_ANE_DP_DEVICE_OPEN :
		   DRM_IOCTL_ANE_CTL_DEVICE_OPEN, a, 1, sels[space ? S_DP_OPEN : S_CTL_OPEN].name);
	if (!e) {
		w->fds[fdi].kind = space;
		w->fds[fdi].open = 1;
		w->fds[fdi].token = a->out.token;
		if (a->out.reserved0[0] | a->out.reserved0[1] | a->out.reserved0[2] |
		    a->out.reserved0[3] | a->out.reserved0[4] | a->out.reserved1)
			fail(w, FAIL_ERRNO, "DeviceOpen returned nonzero reserved output");
	}
	return e;
}

/* An fd slot, mostly an open client of @space (-1: any), made if needed. */
static int pick_fd(struct worker *w, struct rng *r, int space)
{
	int i, fdi, cand[NFD], n = 0;

	if (chance(r, 12)) {
		fdi = rn(r, NFD);
		if (!live_fd(w, fdi))
			slot_open(w, fdi, r);
		return fdi;
	}
	for (i = 0; i < NFD; i++)
		if (live_fd(w, i) && w->fds[i].open == 1 &&
		    (space < 0 || w->fds[i].kind == space))
			cand[n++] = i;
	if (n && chance(r, 85))
		return cand[rn(r, n)];
	fdi = rn(r, NFD);
	if (slot_open(w, fdi, r))
		return fdi;
	device_open(w, fdi, space < 0 ? (int)rn(r, 2) : space, r, 1);
	return fdi;
}

static int surf_live(struct worker *w, const struct surf *s)
{
	return s->used && live_fd(w, s->fdi) && w->fds[s->fdi].gen == s->gen;
}

static uint64_t surf_bytes(struct worker *w)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < NSURF; i++)
		if (surf_live(w, &w->s[i]))
			t += w->s[i].size;
	return t;
}

static void gem_close(struct worker *w, int fdi, uint32_t h)
{
	struct drm_gem_close c = { .handle = h };

	xioctl(w, w->fds[fdi].fd, DRM_IOCTL_GEM_CLOSE, &c, 1, "GEM_CLOSE");
}

static int surf_slot(struct worker *w, struct rng *r)
{
	int i, k;

	for (i = 0; i < NSURF; i++)
		if (!surf_live(w, &w->s[i]))
			return i;
	k = rn(r, NSURF);
	gem_close(w, w->s[k].fdi, w->s[k].handle);
	w->s[k].used = 0;
	return k;
}

static void surf_add(struct worker *w, struct rng *r, int fdi, uint32_t h,
		     uint64_t size, uint64_t off)
{
	int k = surf_slot(w, r);

	w->s[k] = (struct surf){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
				 .handle = h, .size = size, .offset = off };
}

static int surface_create(struct worker *w, struct rng *r, int fdi, uint64_t size)
{
	struct drm_ane_surface_create c = { .size = size };
	int e;

	if (!live_fd(w, fdi))
		return EBADF;
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_SURFACE_CREATE, &c, 1,
		   "ANE_SURFACE_CREATE");
	if (!e) {
		if (c.reserved)
			fail(w, FAIL_ERRNO, "SURFACE_CREATE returned nonzero reserved output");
		surf_add(w, r, fdi, c.handle, (size + 16383) & ~16383ull, c.offset);
	}
	return e;
}

/* A live surface of @fdi (-1: any), made if needed; NULL if impossible. */
static struct surf *pick_surf(struct worker *w, struct rng *r, int fdi)
{
	int i, n = 0, cand[NSURF];

	for (i = 0; i < NSURF; i++)
		if (surf_live(w, &w->s[i]) && (fdi < 0 || w->s[i].fdi == fdi))
			cand[n++] = i;
	if (n && chance(r, 85))
		return &w->s[cand[rn(r, n)]];
	if (fdi < 0)
		fdi = pick_fd(w, r, -1);
	if (surface_create(w, r, fdi, 16384ull << rn(r, 3)))
		return n ? &w->s[cand[rn(r, n)]] : NULL;
	/* the new one: the largest handle of the file */
	{
		struct surf *best = NULL;

		for (i = 0; i < NSURF; i++)
			if (surf_live(w, &w->s[i]) && w->s[i].fdi == fdi &&
			    (!best || w->s[i].handle > best->handle))
				best = &w->s[i];
		return best;
	}
}

static int prog_live(struct worker *w, const struct prog *p)
{
	return p->used && live_fd(w, p->fdi) && w->fds[p->fdi].gen == p->gen;
}

static int program_create(struct worker *w, struct rng *r, int fdi, int k)
{
	struct drm_ane_program_create c = { 0 };
	int e, i, slot = -1;

	memcpy(w->imgbuf, imgs[k].data, imgs[k].size);
	c.image = (uintptr_t)w->imgbuf;
	c.image_size = imgs[k].size;
	c.token_ptr = (uintptr_t)&w->tokout;
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, &c, 1,
		   "ctl.ProgramCreate");
	if (e)
		return e;
	for (i = 0; i < NPROG && slot < 0; i++)
		if (!prog_live(w, &w->p[i]))
			slot = i;
	if (slot < 0) {
		struct drm_ane_program_destroy d = { 0 };

		slot = rn(r, NPROG);
		d.token = w->p[slot].token;
		xioctl(w, w->fds[w->p[slot].fdi].fd, DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY,
		       &d, 1, "ctl.ProgramDestroy");
	}
	w->p[slot] = (struct prog){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
				    .token = w->tokout, .img = k };
	return 0;
}

static int program_prepare(struct worker *w, struct prog *p, struct rng *r)
{
	struct drm_ane_program_prepare a = { 0 };
	int e;

	a.in.token = p->token;
	a.in.priority = 2 + rn(r, 6);
	a.in.queue_depth = chance(r, 70) ? 0 : rn(r, 8);
	e = xioctl(w, w->fds[p->fdi].fd, DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, &a, 1,
		   "ctl.ProgramPrepare");
	if (!e) {
		p->prepared = 1;
		if (a.out.reserved[0] | a.out.reserved[1] | a.out.reserved[2] |
		    a.out.reserved[3] | a.out.reserved[4] | (uint32_t)a.out.flags)
			fail(w, FAIL_ERRNO, "ProgramPrepare returned nonzero reserved output");
	}
	return e;
}

/* A live program, mostly prepared if @prepared, made if needed. */
static struct prog *pick_prog(struct worker *w, struct rng *r, int prepared)
{
	int i, n = 0, cand[NPROG], fdi;

	for (i = 0; i < NPROG; i++)
		if (prog_live(w, &w->p[i]) && (!prepared || w->p[i].prepared))
			cand[n++] = i;
	if (n && chance(r, 85))
		return &w->p[cand[rn(r, n)]];
	fdi = pick_fd(w, r, 0);
	if (!live_fd(w, fdi) || program_create(w, r, fdi, rn(r, NIMG)))
		return n ? &w->p[cand[rn(r, n)]] : NULL;
	for (i = 0; i < NPROG; i++)
		if (prog_live(w, &w->p[i]) && w->p[i].token == w->tokout) {
			if (prepared)
				program_prepare(w, &w->p[i], r);
			return &w->p[i];
		}
	return NULL;
}

static void xfd_add(struct worker *w, struct rng *r, int fd)
{
	int k = rn(r, NXFD);

	if (fd < 0)
		return;
	if (w->xfd[k] >= 0)
		close(w->xfd[k]);
	w->xfd[k] = fd;
}

static int pick_xfd(struct worker *w, struct rng *r)
{
	int k = rn(r, NXFD);

	return w->xfd[k];
}

static struct sobj *pick_sobj(struct worker *w, struct rng *r, int fdi)
{
	int i, n = 0, cand[NSYNC];

	for (i = 0; i < NSYNC; i++)
		if (w->so[i].used && w->so[i].fdi == fdi &&
		    w->fds[fdi].gen == w->so[i].gen)
			cand[n++] = i;
	if (n && chance(r, 85))
		return &w->so[cand[rn(r, n)]];
	if (live_fd(w, fdi)) {
		struct drm_syncobj_create c = { .flags = chance(r, 30) ?
						DRM_SYNCOBJ_CREATE_SIGNALED : 0 };

		if (!xioctl(w, w->fds[fdi].fd, DRM_IOCTL_SYNCOBJ_CREATE, &c, 1,
			    "SYNCOBJ_CREATE")) {
			int k = rn(r, NSYNC);

			w->so[k] = (struct sobj){ .used = 1, .fdi = fdi,
						  .gen = w->fds[fdi].gen, .h = c.handle };
			return &w->so[k];
		}
	}
	return n ? &w->so[cand[rn(r, n)]] : NULL;
}

/* ------------------------------------------------------------ arguments */

enum { M_VALID, M_CORRUPT, M_ZERO, M_RANDOM, M_BADPTR };

static const char *const mode_names[] = { "valid", "corrupt", "zero", "random", "badptr" };

static int pick_mode(struct rng *r)
{
	unsigned int x = rn(r, 100);

	return x < 68 ? M_VALID : x < 86 ? M_CORRUPT : x < 91 ? M_ZERO :
	       x < 96 ? M_RANDOM : M_BADPTR;
}

static void fill_random(struct rng *r, void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)rnd(r);
}

/* Overwrite one naturally aligned field in the first @n bytes. */
static void corrupt(struct rng *r, void *p, size_t n)
{
	uint8_t *b = p;
	unsigned int sz = 1u << rn(r, 4);
	size_t off;
	uint64_t v = interesting(r);

	if (!n)
		return;
	if (sz > n)
		sz = 1;
	off = rn(r, (uint32_t)(n / sz)) * sz;
	memcpy(b + off, &v, sz);
}

/* A pointer the kernel must not be able to use. */
static void *bad_ptr(struct worker *w, struct rng *r, size_t size)
{
	switch (rn(r, 5)) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)0xffff888000000000ull;	/* kernel */
	case 2:		/* runs into the guard page */
		return w->scratch + SCRATCH - (size ? rn(r, (uint32_t)size) : 0);
	case 3:
		return (void *)(uintptr_t)16;
	default:
		return (void *)(uintptr_t)(rnd(r) | 0x8000000000000000ull);
	}
}

/*
 * A corrupted pointer field must not land somewhere else in this process
 * (a partial overwrite keeps the high bits): the kernel would write there.
 * Any pointer field @valid had that @a no longer has becomes unmapped.
 */
static void guard_ptrs(void *a, const void *valid, const size_t *offs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		uint64_t v, o;

		memcpy(&v, (uint8_t *)a + offs[i], 8);
		memcpy(&o, (const uint8_t *)valid + offs[i], 8);
		if (v != o && v >= 0x10000 && v < 0x800000000000ull) {
			v = 0xffff888000000000ull | (v & 0xfffff);
			memcpy((uint8_t *)a + offs[i], &v, 8);
		}
	}
}

/* The offsets of the user pointers in selector @s's struct; their count. */
static int sel_ptr_offs(int s, size_t *offs)
{
	switch (s) {
	case S_CREATE:
		offs[0] = offsetof(struct drm_ane_program_create, image);
		offs[1] = offsetof(struct drm_ane_program_create, token_ptr);
		return 2;
	case S_INSTANCE:
		offs[0] = offsetof(struct drm_ane_program_create_instance, token_ptr);
		return 1;
	case S_OSE:
		offs[0] = offsetof(struct drm_ane_output_set_enqueue, surfaces);
		return 1;
	case S_LOAD_FW:
		offs[0] = offsetof(struct drm_ane_load_firmware, image);
		return 1;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------ selectors */

/*
 * Fill @a (zeroed, @size bytes) for selector @s on @fdi in the valid form.
 * Returns whether all the pointers in it are valid; may switch @fdi.
 */
static int gen_sel(struct worker *w, struct rng *r, int s, int *fdi, void *a)
{
	switch (s) {
	case S_CTL_OPEN: case S_DP_OPEN: {
		struct drm_ane_device_open *o = a;

		o->in.usage_type = chance(r, 95) ? ANE_USAGE_STANDARD : (uint8_t)rn(r, 4);
		o->in.callback = 0x1111222233334444ull;
		o->in.receiver_context = rnd(r);
		o->in.timeout = 10000;
		if (chance(r, 80)) {	/* a fresh file, mostly */
			int i = rn(r, NFD);

			if (!slot_open(w, i, r))
				*fdi = i;
		}
		return 1;
	}
	case S_CTL_SEND: case S_DP_SEND: {
		struct drm_ane_send_request *q = a;
		struct prog *p = pick_prog(w, r, 1);
		unsigned int i, k = 0, nin, nout;
		struct surf *sf;

		q->doorbell = chance(r, 95) ? rn(r, ANE_MAX_DOORBELL) : interesting(r);
		q->in.qos_class = 5;
		q->in.exec_priority = 21;
		q->in.io_category = 2;
		if (!p)
			return 1;
		*fdi = p->fdi;
		if (s == S_DP_SEND && chance(r, 70))
			*fdi = pick_fd(w, r, 1);
		q->in.token = p->token;
		q->in.sequence = chance(r, 90) ? p->seq : interesting(r);
		nin = imgs[p->img].nin;
		nout = imgs[p->img].nout;
		for (i = 0; i < nin + nout; i++) {
			sf = pick_surf(w, r, p->fdi);
			if (!sf)
				continue;
			q->in.surfaces[k].handle = sf->handle;
			q->in.surfaces[k].kind = i < nin ? ANE_SURFACE_INPUT :
							   ANE_SURFACE_OUTPUT;
			q->in.surfaces[k].bar = (uint8_t)(i < nin ? i : i - nin);
			k++;
		}
		sf = chance(r, 15) ? pick_surf(w, r, p->fdi) : NULL;
		if (sf) {
			q->in.surfaces[k].handle = sf->handle;
			q->in.surfaces[k++].kind = ANE_SURFACE_INTERMEDIATE;
		}
		if (chance(r, 20)) {
			struct sobj *so = pick_sobj(w, r, p->fdi);

			if (so) {
				q->in.surfaces[k].handle = so->h;
				q->in.surfaces[k++].kind = ANE_SURFACE_OUT_SYNCOBJ;
			}
		}
		/* wait events: a fence, the shared event (held until rung) */
		if (chance(r, 15)) {
			struct sobj *so = pick_sobj(w, r, p->fdi);

			if (so) {
				q->in.surfaces[k].handle = so->h;
				q->in.surfaces[k++].kind = ANE_SURFACE_IN_SYNCOBJ;
			}
		}
		if (chance(r, 5)) {
			q->in.surfaces[k].handle = chance(r, 90) ?
				ANE_SHARED_EVENT_ID : (uint32_t)interesting(r);
			q->in.surfaces[k++].kind = ANE_SURFACE_IN_SHARED_EVENT;
		}
		if (chance(r, 5))	/* shuffle two */
			if (k > 1) {
				struct drm_ane_surface_ref t = q->in.surfaces[0];

				q->in.surfaces[0] = q->in.surfaces[k - 1];
				q->in.surfaces[k - 1] = t;
			}
		return 1;
	}
	case S_CREATE: {
		struct drm_ane_program_create *c = a;
		int k = rn(r, NIMG), ok = 1;
		size_t size = imgs[k].size;

		w->cur_img = k;
		memcpy(w->imgbuf, imgs[k].data, size);
		if (chance(r, 25)) {	/* a corrupted image: header or tables */
			unsigned int n = 1 + rn(r, 3);

			while (n--)
				corrupt(r, w->imgbuf, chance(r, 50) ? 128 : size);
		}
		if (chance(r, 5))	/* truncated or padded */
			size = chance(r, 50) ? rn(r, (uint32_t)size) :
					       size + rn(r, IMGBUF - (uint32_t)size);
		if (chance(r, 1)) {	/* huge: the kernel must check first */
			size = ANE_IMG_MAX_SIZE - rn(r, 1 << 20);
			((struct ane_img_header *)w->imgbuf)->image_size = size;
			ok = 0;
		}
		c->image = (uintptr_t)w->imgbuf;
		c->image_size = size;
		c->token_ptr = (uintptr_t)&w->tokout;
		*fdi = pick_fd(w, r, 0);
		return ok;
	}
	case S_PREPARE: case S_UNPREPARE: {
		struct drm_ane_program_prepare_args *p = a;
		struct prog *pg = pick_prog(w, r, 0);

		if (pg) {
			p->token = pg->token;
			*fdi = pg->fdi;
		}
		if (s == S_PREPARE) {
			p->priority = 2 + rn(r, 6);
			p->queue_depth = chance(r, 70) ? 0 : rn(r, 70);
		}
		return 1;
	}
	case S_DESTROY: {
		struct drm_ane_program_destroy *d = a;
		struct prog *pg = pick_prog(w, r, 0);

		if (pg) {
			d->token = pg->token;
			*fdi = pg->fdi;
		}
		return 1;
	}
	case S_INSTANCE: {
		struct drm_ane_program_create_instance *c = a;
		struct prog *pg = pick_prog(w, r, chance(r, 50));
		struct surf *sf;

		if (pg) {
			c->program = pg->token;
			*fdi = pg->fdi;
			sf = chance(r, 30) ? pick_surf(w, r, pg->fdi) : NULL;
			if (sf)
				c->weights = sf->handle;
		}
		c->token_ptr = (uintptr_t)&w->tokout;
		return 1;
	}
	case S_CHAIN_PREP: {
		struct drm_ane_chaining_prepare *c = a;
		struct prog *pg = pick_prog(w, r, 1);

		if (pg) {
			c->token = pg->token;
			*fdi = pg->fdi;
		}
		return 1;
	}
	case S_REG_DWP: {
		struct drm_ane_register_dwp *d = a;
		struct surf *sf = pick_surf(w, r, *fdi);

		if (sf) {
			d->buffer = sf->handle;
			d->size = chance(r, 80) ? sf->size : 1 + rn(r, (uint32_t)sf->size);
		}
		return 1;
	}
	case S_GET_DWP: case S_COMPLETE_DWP: {
		struct drm_ane_dwp_item *d = a;

		d->item = rn(r, 5);
		d->arg = s == S_GET_DWP ? (uint64_t)rn(r, 16) * 4096 : rn(r, 3);
		return 1;
	}
	case S_LOAD_FW: {
		struct drm_ane_load_firmware *l = a;

		l->image = (uintptr_t)w->imgbuf;
		l->size = rn(r, IMGBUF);
		return 1;
	}
	case S_OSE: {
		struct drm_ane_output_set_enqueue *o = a;
		struct drm_ane_surface_ref *refs = (void *)(w->scratch + SCRATCH / 2);
		struct surf *sf = pick_surf(w, r, *fdi);

		memset(refs, 0, 4 * sizeof(*refs));
		if (sf)
			refs[0] = (struct drm_ane_surface_ref){ .handle = sf->handle,
								.kind = ANE_SURFACE_OUTPUT };
		o->cache_handle = rn(r, 4);
		o->num_surfaces = rn(r, 4);
		o->surfaces = (uintptr_t)refs;
		return 1;
	}
	case S_INPUTS_READY: {
		struct drm_ane_inputs_ready *i = a;
		struct surf *sf = pick_surf(w, r, *fdi);

		i->cache_handle = rn(r, 4);
		i->exec_timestamp = rnd(r) >> 1;
		i->num_inputs = rn(r, 17);
		if (sf)
			i->inputs[0] = (struct drm_ane_surface_ref){ .handle = sf->handle,
								     .kind = ANE_SURFACE_INPUT };
		return 1;
	}
	case S_MAP: {
		struct drm_ane_memory_map *m = a;
		static const uint32_t usages[] = { 1, 2, 7, 8, 11 };
		uint32_t usage = usages[rn(r, 5)];
		unsigned int i, n = 1 + (chance(r, 30) ? rn(r, 4) : 0);

		*fdi = pick_fd(w, r, 1);
		m->token = w->fds[*fdi].token;
		m->in.num_surfaces = n;
		m->in.direction = rn(r, 4);
		for (i = 0; i < n; i++) {
			struct surf *sf = pick_surf(w, r, *fdi);

			if (!sf)
				break;
			m->in.surfaces[i].handle = sf->handle;
			m->in.surfaces[i].usage = usage;
			if (chance(r, 20) && sf->size > 16384) {
				m->in.surfaces[i].offset = 16384ull * rn(r, (uint32_t)(sf->size / 16384));
				m->in.surfaces[i].size = chance(r, 50) ? 0 : 16384;
			}
		}
		return 1;
	}
	case S_UNMAP: {
		struct drm_ane_memory_unmap *u = a;
		int i, n = 0, cand[NIOVA];

		for (i = 0; i < NIOVA; i++)
			if (w->io[i].used && live_fd(w, w->io[i].fdi) &&
			    w->fds[w->io[i].fdi].gen == w->io[i].gen)
				cand[n++] = i;
		if (n) {
			i = cand[rn(r, n)];
			u->in.iova = w->io[i].iova;
			*fdi = w->io[i].fdi;
		} else {
			u->in.iova = 0x4000ull * rn(r, 4096);
		}
		return 1;
	}
	case S_HINT: {
		struct drm_ane_session_hint *h = a;

		h->hint = rn(r, 8);
		h->value = interesting(r);
		return 1;
	}
	case S_SET_ACTIVE: {
		struct drm_ane_chaining_set_active *c = a;

		c->cache_handle = rn(r, 4);
		c->group = rn(r, 4);
		c->procedure = rn(r, 2);
		return 1;
	}
	default:
		return 1;
	}
}

/* Selector @s has user pointers in its input. */
static int sel_has_ptrs(int s)
{
	return s == S_CREATE || s == S_INSTANCE || s == S_OSE || s == S_LOAD_FW;
}

static void after_sel(struct worker *w, struct rng *r, int s, int fdi, void *a)
{
	switch (s) {
	case S_CTL_OPEN: case S_DP_OPEN: {
		struct drm_ane_device_open *o = a;

		w->fds[fdi].kind = s == S_DP_OPEN;
		w->fds[fdi].open = 1;
		w->fds[fdi].token = o->out.token;
		if (o->out.reserved0[0] | o->out.reserved0[1] | o->out.reserved0[2] |
		    o->out.reserved0[3] | o->out.reserved0[4] | o->out.reserved1)
			fail(w, FAIL_ERRNO, "DeviceOpen returned nonzero reserved output");
		break;
	}
	case S_CTL_CLOSE: case S_DP_CLOSE:
		w->fds[fdi].open = 2;
		break;
	case S_CTL_SEND: case S_DP_SEND: {
		struct drm_ane_send_request *q = a;
		int i;

		if (q->out.reserved0 || q->out.reserved1)
			fail(w, FAIL_ERRNO, "SendRequest returned nonzero reserved output");
		for (i = 0; i < NPROG; i++)
			if (prog_live(w, &w->p[i]) && w->p[i].token == q->in.token)
				w->p[i].seq++;
		break;
	}
	case S_CREATE: case S_INSTANCE: {
		int i, slot = -1;

		for (i = 0; i < NPROG && slot < 0; i++)
			if (!prog_live(w, &w->p[i]))
				slot = i;
		if (slot < 0)
			slot = rn(r, NPROG);	/* forgotten: the file reclaims it */
		w->p[slot] = (struct prog){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
					    .token = w->tokout, .inst = s == S_INSTANCE };
		if (s == S_INSTANCE) {
			struct drm_ane_program_create_instance *c = a;

			for (i = 0; i < NPROG; i++)
				if (prog_live(w, &w->p[i]) && w->p[i].token == c->program &&
				    i != slot) {
					w->p[slot].img = w->p[i].img;
					w->p[slot].prepared = w->p[i].prepared;
				}
		} else {
			w->p[slot].img = w->cur_img;
		}
		break;
	}
	case S_PREPARE: case S_UNPREPARE: case S_DESTROY: {
		uint64_t tok = *(uint64_t *)a;
		int i;

		for (i = 0; i < NPROG; i++) {
			if (!prog_live(w, &w->p[i]) || w->p[i].token != tok)
				continue;
			if (s == S_DESTROY)
				w->p[i].used = 0;
			else
				w->p[i].prepared = s == S_PREPARE;
		}
		if (s == S_PREPARE) {
			struct drm_ane_program_prepare *p = a;

			if (p->out.reserved[0] | p->out.reserved[1] | p->out.reserved[2] |
			    p->out.reserved[3] | p->out.reserved[4])
				fail(w, FAIL_ERRNO, "ProgramPrepare returned nonzero reserved output");
		}
		break;
	}
	case S_MAP: {
		struct drm_ane_memory_map *m = a;
		int k = rn(r, NIOVA);

		w->io[k] = (struct iova_ent){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
					      .iova = m->iova, .len = 16384 };
		break;
	}
	case S_UNMAP: {
		struct drm_ane_memory_unmap *u = a;
		int i;

		for (i = 0; i < NIOVA; i++)
			if (w->io[i].used && w->io[i].fdi == fdi && w->io[i].iova == u->in.iova)
				w->io[i].used = 0;
		break;
	}
	default:
		break;
	}
}

static int op_selector(struct worker *w, struct rng *r, int s)
{
	const struct seldesc *d = &sels[s];
	size_t size = _IOC_SIZE(d->cmd);
	unsigned long cmd = d->cmd;
	int mode = pick_mode(r), fdi, ok, e;
	void *a = w->scratch, *arg;

	fdi = pick_fd(w, r, chance(r, 90) ? d->space : -1);
	memset(a, 0, size);
	ok = gen_sel(w, r, s, &fdi, a);
	if (!live_fd(w, fdi))
		return 0;
	switch (mode) {
	case M_CORRUPT: {
		size_t in = size;

		/* only the inputs: outputs are the kernel's to fill */
		if (s == S_CTL_OPEN || s == S_DP_OPEN)
			in = 104;
		else if (s == S_CTL_SEND || s == S_DP_SEND)
			in = 8 + 2376;
		else if (s == S_PREPARE)
			in = 56;
		else if (s == S_CHAIN_PREP || s == S_HINT)
			in = 16;
		else if (s == S_MAP)
			in = 8 + 2080;
		if (s == S_CTL_SEND || s == S_DP_SEND)	/* keep to the used part */
			in = 8 + 32 + 8 * 8;
		memcpy(w->scratch + SCRATCH / 4, a, in);
		corrupt(r, a, in);
		if (chance(r, 30))
			corrupt(r, a, in);
		if (sel_has_ptrs(s)) {
			size_t offs[4];

			guard_ptrs(a, w->scratch + SCRATCH / 4, offs, sel_ptr_offs(s, offs));
			ok = 0;
		}
		break;
	}
	case M_ZERO:
		memset(a, 0, size);
		ok = !sel_has_ptrs(s);
		break;
	case M_RANDOM:
		fill_random(r, a, size);
		ok = !sel_has_ptrs(s);
		break;
	default:
		break;
	}
	arg = a;
	if (mode == M_BADPTR && size) {
		arg = bad_ptr(w, r, size);
		ok = 0;
	}
	note(w, "%s on fd slot %d (%s) mode %s", d->name, fdi,
	     w->fds[fdi].open == 1 ? (w->fds[fdi].kind ? "dp" : "ctl") : "not open",
	     mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, cmd, arg, ok, d->name);
	if (!e && arg == a)
		after_sel(w, r, s, fdi, a);
	return e;
}

/* A selector's number with another size or direction: always -EINVAL. */
static int op_wrong_size(struct worker *w, struct rng *r)
{
	int s = rn(r, 26), fdi = pick_fd(w, r, sels[s].space), e;
	unsigned long cmd = sels[s].cmd;
	unsigned int size = _IOC_SIZE(cmd), dir = _IOC_DIR(cmd);

	do {
		if (chance(r, 50))
			size = chance(r, 50) ? size + 1 + rn(r, 64) :
					       (size ? rn(r, size) : 8);
		else
			dir = rn(r, 4);
	} while (size == _IOC_SIZE(cmd) && dir == _IOC_DIR(cmd));
	if (size >= (1u << _IOC_SIZEBITS))
		size = (1u << _IOC_SIZEBITS) - 1;
	if (size == _IOC_SIZE(cmd) && dir == _IOC_DIR(cmd))
		return 0;
	cmd = _IOC(dir, DRM_IOCTL_BASE, _IOC_NR(cmd), size);
	memset(w->scratch, 0, size);
	note(w, "%s re-encoded as 0x%08lx", sels[s].name, cmd);
	if (!live_fd(w, fdi))
		return 0;
	e = xioctl(w, w->fds[fdi].fd, cmd, w->scratch, 1, sels[s].name);
	if (e != EINVAL)
		fail(w, FAIL_ERRNO, "%s with size %u dir %u (cmd 0x%08lx) returned %s, not EINVAL",
		     sels[s].name, size, dir, cmd, errname(e));
	return e;
}

/* ------------------------------------------------------------ driver ioctls */

static int op_surface_create(struct worker *w, struct rng *r)
{
	struct drm_ane_surface_create *c = (void *)w->scratch;
	int fdi = pick_fd(w, r, chance(r, 70) ? 0 : 1), mode = pick_mode(r), e;
	uint64_t size;

	if (!live_fd(w, fdi))
		return 0;
	switch (rn(r, 20)) {
	case 0:
		size = rn(r, 1u << 22) + 1;
		break;
	case 1:
		size = interesting(r);
		break;
	default:
		size = 16384ull * (1 + rn(r, 16));
		break;
	}
	if (size < (1ull << 30) && surf_bytes(w) + size > SURF_BUDGET)
		size = 16384;
	if (chance(r, 2) && !w->in_child)	/* near the 1 GiB ceiling */
		size = (1ull << 30) - 16384ull * rn(r, 4);
	memset(c, 0, sizeof(*c));
	c->size = size;
	if (mode == M_CORRUPT)
		corrupt(r, c, sizeof(*c));
	else if (mode == M_RANDOM)
		fill_random(r, c, sizeof(*c));
	note(w, "SurfaceCreate size %" PRIu64 " mode %s", (uint64_t)c->size, mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_SURFACE_CREATE,
		   mode == M_BADPTR ? bad_ptr(w, r, 32) : (void *)c,
		   mode != M_BADPTR, "ANE_SURFACE_CREATE");
	if (!e && mode != M_BADPTR) {
		if (c->reserved)
			fail(w, FAIL_ERRNO, "SURFACE_CREATE returned nonzero reserved output");
		surf_add(w, r, fdi, c->handle, (c->size + 16383) & ~16383ull, c->offset);
		/* a huge one goes again at once: keep the VM's memory */
		if (c->size > SURF_BUDGET) {
			gem_close(w, fdi, c->handle);
			w->last_err = 0;
		}
	}
	return e;
}

static int op_dma(struct worker *w, struct rng *r)
{
	struct drm_ane_dma d = { 0 };
	int i, n = 0, cand[NIOVA], fdi, mode = pick_mode(r), ok = 1, e;

	for (i = 0; i < NIOVA; i++)
		if (w->io[i].used && live_fd(w, w->io[i].fdi) &&
		    w->fds[w->io[i].fdi].gen == w->io[i].gen)
			cand[n++] = i;
	if (n && chance(r, 80)) {
		i = cand[rn(r, n)];
		fdi = w->io[i].fdi;
		d.iova = w->io[i].iova + rn(r, (uint32_t)w->io[i].len);
	} else {
		fdi = pick_fd(w, r, 1);
		d.iova = chance(r, 50) ? 0x4000ull * rn(r, 1 << 16) : interesting(r);
	}
	if (!live_fd(w, fdi))
		return 0;
	d.size = 1 + rn(r, chance(r, 80) ? 16384 : SCRATCH - 1);
	d.data = (uintptr_t)w->scratch;
	d.flags = rn(r, 2) ? ANE_DMA_WRITE : 0;
	if (mode == M_CORRUPT) {
		corrupt(r, &d, sizeof(d));
		ok = d.data == (uintptr_t)w->scratch && d.size <= SCRATCH;
	} else if (mode == M_BADPTR) {
		d.data = (uintptr_t)bad_ptr(w, r, d.size);
		ok = 0;
	} else if (mode == M_RANDOM) {
		fill_random(r, &d, sizeof(d));
		ok = 0;
	}
	note(w, "ANE_DMA iova 0x%" PRIx64 " size %" PRIu64 " flags %u mode %s",
	     (uint64_t)d.iova, (uint64_t)d.size, d.flags, mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_DMA, &d, ok, "ANE_DMA");
	return e;
}

static int op_get_fault(struct worker *w, struct rng *r)
{
	struct drm_ane_get_fault f = { 0 };
	int fdi = pick_fd(w, r, -1), mode = pick_mode(r), e;

	if (!live_fd(w, fdi))
		return 0;
	if (mode == M_CORRUPT || mode == M_RANDOM)
		f.flags = (uint32_t)interesting(r);
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_GET_FAULT,
		   mode == M_BADPTR ? bad_ptr(w, r, sizeof(f)) : (void *)&f,
		   mode != M_BADPTR, "ANE_GET_FAULT");
	if (!e && mode != M_BADPTR && f.fault.reserved)
		fail(w, FAIL_ERRNO, "GET_FAULT returned nonzero reserved output");
	return e;
}

/*
 * The methods of Table 27.5: power holds taken and dropped, the power
 * policy changed under the other workers (as root), the shared event
 * activated, rung and deactivated, unknown numbers.
 */
static int op_method(struct worker *w, struct rng *r)
{
	static const uint32_t methods[] = {
		0, ANE_METHOD_POWER_ON, ANE_METHOD_POWER_OFF,
		ANE_METHOD_IS_POWERED, ANE_METHOD_ADD_PERSISTENT_CLIENT,
		ANE_METHOD_REMOVE_PERSISTENT_CLIENT,
		ANE_METHOD_SET_POWER_MANAGEMENT,
		ANE_METHOD_SET_DYNAMIC_POWER_GATING,
		ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME,
		ANE_METHOD_LOAD_FIRMWARE, ANE_METHOD_EXCLAVE_EVALUATE, 9,
		ANE_METHOD_SHARED_EVENT_ACTIVATE,
		ANE_METHOD_SHARED_EVENT_DEACTIVATE,
		ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING,
	};
	struct drm_ane_method_args a = { 0 };
	int fdi = pick_fd(w, r, -1), mode = pick_mode(r), e;

	if (!live_fd(w, fdi))
		return 0;
	a.method = methods[rnd(r) % (sizeof(methods) / sizeof(methods[0]))];
	/* short hysteresis times, so the engine powers down under the others */
	a.value = a.method == ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME ?
		  rnd(r) % 50 : rnd(r) % 4 == 0;
	/* the shared event: its id, and its ring, which releases waiters */
	if (a.method == ANE_METHOD_SHARED_EVENT_DEACTIVATE)
		a.value = ANE_SHARED_EVENT_ID;
	else if (a.method == ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING)
		a.value = ANE_DOORBELL_SHARED_EVENT(ANE_SHARED_EVENT_ID);
	else if (a.method == ANE_METHOD_SHARED_EVENT_ACTIVATE)
		a.value = 0;
	if (mode == M_CORRUPT || mode == M_RANDOM) {
		a.method = (uint32_t)interesting(r);
		a.value = interesting(r);
		a.flags = (uint32_t)interesting(r);
		a.reserved[rnd(r) % 2] = interesting(r);
	}
	note(w, "ANE_METHOD %u value %" PRIu64 " mode %s", a.method,
	     (uint64_t)a.value, mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, DRM_IOCTL_ANE_METHOD,
		   mode == M_BADPTR ? bad_ptr(w, r, sizeof(a)) : (void *)&a,
		   mode != M_BADPTR, "ANE_METHOD");
	if (!e && mode != M_BADPTR && a.method == ANE_METHOD_IS_POWERED &&
	    a.result > 1)
		fail(w, FAIL_ERRNO, "IsPowered answered %" PRIu64, (uint64_t)a.result);
	return e;
}

/* ------------------------------------------------------------ DRM core */

static int gen_drm(struct worker *w, struct rng *r, int gen, int fdi, void *a)
{
	uint8_t *extra = w->scratch + SCRATCH / 2;
	uint32_t *hs = (uint32_t *)extra;
	struct sobj *so;
	struct surf *sf;
	unsigned int i, n;

	switch (gen) {
	case G_VERSION: {
		struct drm_version *v = a;

		v->name_len = rn(r, 64);
		v->name = (char *)extra;
		v->date_len = rn(r, 64);
		v->date = (char *)extra + 64;
		v->desc_len = rn(r, 256);
		v->desc = (char *)extra + 128;
		return 1;
	}
	case G_UNIQUE: {
		struct drm_unique *u = a;

		u->unique_len = rn(r, 256);
		u->unique = (char *)extra;
		return 1;
	}
	case G_GEM_CLOSE: case G_FLINK: case G_PRIME_TO_FD: {
		sf = pick_surf(w, r, fdi);
		if (gen == G_PRIME_TO_FD) {
			struct drm_prime_handle *p = a;

			p->handle = sf ? sf->handle : rn(r, 64);
			p->flags = chance(r, 80) ? DRM_CLOEXEC | (chance(r, 50) ? DRM_RDWR : 0) :
						   (uint32_t)interesting(r);
		} else {
			*(uint32_t *)a = sf ? sf->handle : rn(r, 64);
		}
		return 1;
	}
	case G_GEM_OPEN:
		*(uint32_t *)a = rn(r, 16);
		return 1;
	case G_GET_CAP:
		((struct drm_get_cap *)a)->capability = rn(r, 0x20);
		return 1;
	case G_SET_CAP: {
		struct drm_set_client_cap *c = a;

		c->capability = rn(r, 8);
		c->value = rn(r, 3);
		return 1;
	}
	case G_PRIME_TO_HANDLE: {
		struct drm_prime_handle *p = a;

		p->fd = pick_xfd(w, r);
		return 1;
	}
	case G_SO_CREATE:
		((struct drm_syncobj_create *)a)->flags = chance(r, 50) ?
			DRM_SYNCOBJ_CREATE_SIGNALED : 0;
		return 1;
	case G_SO_DESTROY:
		so = pick_sobj(w, r, fdi);
		((struct drm_syncobj_destroy *)a)->handle = so ? so->h : 1;
		return 1;
	case G_SO_TO_FD: {
		struct drm_syncobj_handle *h = a;

		so = pick_sobj(w, r, fdi);
		h->handle = so ? so->h : 1;
		h->flags = chance(r, 50) ? DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0;
		return 1;
	}
	case G_SO_TO_HANDLE: {
		struct drm_syncobj_handle *h = a;

		h->fd = pick_xfd(w, r);
		if (chance(r, 40)) {
			so = pick_sobj(w, r, fdi);
			h->handle = so ? so->h : 0;
			h->flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
		}
		return 1;
	}
	case G_SO_WAIT: case G_SO_TWAIT: case G_SO_ARRAY: case G_SO_TARRAY: {
		uint64_t *pts = (uint64_t *)(extra + 1024);

		n = 1 + rn(r, 4);
		for (i = 0; i < n; i++) {
			so = pick_sobj(w, r, fdi);
			hs[i] = so ? so->h : rn(r, 8);
			pts[i] = rn(r, 4);
		}
		if (gen == G_SO_WAIT) {
			struct drm_syncobj_wait *wt = a;

			wt->handles = (uintptr_t)hs;
			wt->count_handles = n;
			wt->flags = rn(r, 8);
		} else if (gen == G_SO_TWAIT) {
			struct drm_syncobj_timeline_wait *wt = a;

			wt->handles = (uintptr_t)hs;
			wt->points = (uintptr_t)pts;
			wt->count_handles = n;
			wt->flags = rn(r, 8);
		} else if (gen == G_SO_ARRAY) {
			struct drm_syncobj_array *ar = a;

			ar->handles = (uintptr_t)hs;
			ar->count_handles = n;
		} else {
			struct drm_syncobj_timeline_array *ar = a;

			ar->handles = (uintptr_t)hs;
			ar->points = (uintptr_t)pts;
			ar->count_handles = n;
			ar->flags = chance(r, 20) ? DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED : 0;
		}
		return 1;
	}
	case G_SO_TRANSFER: {
		struct drm_syncobj_transfer *t = a;

		so = pick_sobj(w, r, fdi);
		t->src_handle = so ? so->h : 1;
		so = pick_sobj(w, r, fdi);
		t->dst_handle = so ? so->h : 1;
		t->src_point = rn(r, 3);
		t->dst_point = rn(r, 3);
		return 1;
	}
#ifdef DRM_IOCTL_SYNCOBJ_EVENTFD
	case G_SO_EVENTFD: {
		struct drm_syncobj_eventfd *e = a;
		int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

		xfd_add(w, r, efd);
		so = pick_sobj(w, r, fdi);
		e->handle = so ? so->h : 1;
		e->fd = efd;
		e->point = rn(r, 3);
		e->flags = rn(r, 2);
		return 1;
	}
#endif
	case G_DUMB: {
		struct drm_mode_create_dumb *d = a;

		d->height = 16;
		d->width = 16;
		d->bpp = 32;
		return 1;
	}
	default:
		return 1;
	}
}

/* The offsets of the user pointers of a DRM struct; their count. */
static int drm_ptr_offs(int gen, size_t *offs)
{
	switch (gen) {
	case G_VERSION:
		offs[0] = offsetof(struct drm_version, name);
		offs[1] = offsetof(struct drm_version, date);
		offs[2] = offsetof(struct drm_version, desc);
		return 3;
	case G_UNIQUE:
		offs[0] = offsetof(struct drm_unique, unique);
		return 1;
	case G_SO_WAIT:
		offs[0] = offsetof(struct drm_syncobj_wait, handles);
		return 1;
	case G_SO_TWAIT:
		offs[0] = offsetof(struct drm_syncobj_timeline_wait, handles);
		offs[1] = offsetof(struct drm_syncobj_timeline_wait, points);
		return 2;
	case G_SO_ARRAY:
		offs[0] = offsetof(struct drm_syncobj_array, handles);
		return 1;
	case G_SO_TARRAY:
		offs[0] = offsetof(struct drm_syncobj_timeline_array, handles);
		offs[1] = offsetof(struct drm_syncobj_timeline_array, points);
		return 2;
	default:
		return 0;
	}
}

/* Waits must end: their deadline is always near, whatever the rest. */
static void clamp_wait(unsigned long cmd, void *a, size_t size)
{
	int64_t t = (int64_t)(now_ns() + 20000000ull);

	if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT) &&
	    size >= offsetof(struct drm_syncobj_wait, timeout_nsec) + 8)
		((struct drm_syncobj_wait *)a)->timeout_nsec = t;
	if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT) &&
	    size >= offsetof(struct drm_syncobj_timeline_wait, timeout_nsec) + 8)
		((struct drm_syncobj_timeline_wait *)a)->timeout_nsec = t;
}

static void after_drm(struct worker *w, struct rng *r, int gen, int fdi, void *a)
{
	int i;

	switch (gen) {
	case G_PRIME_TO_FD:
		xfd_add(w, r, ((struct drm_prime_handle *)a)->fd);
		break;
	case G_PRIME_TO_HANDLE:
		surf_add(w, r, fdi, ((struct drm_prime_handle *)a)->handle, 16384, 0);
		break;
	case G_SO_CREATE: {
		int k = rn(r, NSYNC);

		w->so[k] = (struct sobj){ .used = 1, .fdi = fdi, .gen = w->fds[fdi].gen,
					  .h = ((struct drm_syncobj_create *)a)->handle };
		break;
	}
	case G_SO_TO_FD: {
		struct drm_syncobj_handle *h = a;

		xfd_add(w, r, h->fd);
		break;
	}
	case G_GEM_CLOSE:
		for (i = 0; i < NSURF; i++)
			if (surf_live(w, &w->s[i]) && w->s[i].fdi == fdi &&
			    w->s[i].handle == *(uint32_t *)a)
				w->s[i].used = 0;
		break;
	case G_SO_DESTROY:
		for (i = 0; i < NSYNC; i++)
			if (w->so[i].used && w->so[i].fdi == fdi &&
			    w->so[i].h == *(uint32_t *)a)
				w->so[i].used = 0;
		break;
	default:
		break;
	}
}

static int op_drm(struct worker *w, struct rng *r, int subset)
{
	const struct drmio *d;
	int fdi = pick_fd(w, r, chance(r, 80) ? 0 : -1), mode = pick_mode(r), ok, e;
	size_t size;
	void *a = w->scratch, *arg;
	unsigned int idx = rn(r, N_DRM_IOS);

	if (subset) {
		const int *set = subset == 1 ? drm_syncobj_ios : drm_prime_ios;
		unsigned int n = subset == 1 ? sizeof(drm_syncobj_ios) / sizeof(int) :
					       sizeof(drm_prime_ios) / sizeof(int);
		int g = set[rn(r, n)];

		for (idx = 0; idx < N_DRM_IOS; idx++)
			if (drm_ios[idx].gen == g)
				break;
		if (idx == N_DRM_IOS)
			return 0;
	}
	d = &drm_ios[idx];
	if (excluded_drm[idx])
		return 0;
	size = _IOC_SIZE(d->cmd);
	if (!live_fd(w, fdi))
		return 0;
	memset(a, 0, size);
	ok = gen_drm(w, r, d->gen, fdi, a);
	if (mode == M_ZERO)
		memset(a, 0, size);
	else if (mode == M_CORRUPT) {
		size_t offs[4];
		int n = drm_ptr_offs(d->gen, offs);

		memcpy(w->scratch + SCRATCH / 4, a, size);
		corrupt(r, a, size);
		guard_ptrs(a, w->scratch + SCRATCH / 4, offs, n);
		ok = 0;
	} else if (mode == M_RANDOM) {
		fill_random(r, a, size);
		ok = 0;
	}
	clamp_wait(d->cmd, a, size);
	arg = mode == M_BADPTR && size ? bad_ptr(w, r, size) : a;
	if (arg != a)
		ok = 0;
	note(w, "DRM_IOCTL_%s on fd slot %d mode %s", d->name, fdi, mode_names[mode]);
	e = xioctl(w, w->fds[fdi].fd, d->cmd, arg, ok, d->name);
	if (!e && arg == a && (mode == M_VALID || mode == M_ZERO))
		after_drm(w, r, d->gen, fdi, a);
	else if (!e && (d->gen == G_PRIME_TO_FD || d->gen == G_SO_TO_FD) && arg == a)
		xfd_add(w, r, ((int *)a)[2]);	/* both structs: the fd is word 2 */
	return e;
}

/* Any 'd' number with any direction and size. */
static int op_raw(struct worker *w, struct rng *r)
{
	unsigned int nr, dir, size, i;
	unsigned long cmd;
	int fdi = pick_fd(w, r, -1), e, known;
	void *arg = w->scratch;

	switch (rn(r, 4)) {
	case 0:
		nr = rn(r, 0x40);
		break;
	case 1:
		nr = 0xa0 + rn(r, 0x40);
		break;
	case 2:
		nr = DRM_COMMAND_BASE + rn(r, 0x60);
		break;
	default:
		nr = rn(r, 0x100);
		break;
	}
	dir = rn(r, 4);
	size = chance(r, 70) ? rn(r, 257) : rn(r, 1u << _IOC_SIZEBITS);
	known = chance(r, 40);
	for (i = 0; i < N_DRM_IOS; i++) {
		if (_IOC_NR(drm_ios[i].cmd) != nr)
			continue;
		if (excluded_drm[i])
			return 0;
		if (known) {	/* the size and direction the ioctl has */
			size = _IOC_SIZE(drm_ios[i].cmd);
			dir = _IOC_DIR(drm_ios[i].cmd);
		}
	}
	if (size > SCRATCH)
		size = SCRATCH;
	cmd = _IOC(dir, DRM_IOCTL_BASE, nr, size);
	if (chance(r, 50))
		memset(w->scratch, 0, size);
	else
		fill_random(r, w->scratch, size);
	clamp_wait(cmd, w->scratch, size);
	if (chance(r, 10))
		arg = bad_ptr(w, r, size);
	if (!live_fd(w, fdi))
		return 0;
	note(w, "raw ioctl 0x%08lx (nr 0x%02x dir %u size %u) on fd slot %d", cmd, nr,
	     dir, size, fdi);
	e = xioctl(w, w->fds[fdi].fd, cmd, arg, 0, "raw");
	return e;
}

/* ------------------------------------------------------------ memory */

static int op_mmap(struct worker *w, struct rng *r)
{
	struct surf *sf = pick_surf(w, r, -1);
	int k = rn(r, NMAP), prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED, fd;
	size_t len;
	off_t off;
	void *p;

	if (!sf)
		return 0;
	fd = w->fds[sf->fdi].fd;
	len = sf->size;
	off = (off_t)sf->offset;
	if (chance(r, 10)) {
		int x = pick_xfd(w, r);

		if (x >= 0) {
			fd = x;
			off = 0;
			len = 16384;
		}
	}
	if (chance(r, 15))
		prot = PROT_READ;
	if (chance(r, 10)) {
		switch (rn(r, 4)) {
		case 0:
			len += 16384;
			break;
		case 1:
			off += 4096;
			break;
		case 2:
			flags = MAP_PRIVATE;
			break;
		default:
			off = (off_t)(interesting(r) & ~4095ull & 0x7fffffffffffull);
			break;
		}
	}
	if (w->m[k].p)
		munmap(w->m[k].p, w->m[k].len);
	w->m[k].p = NULL;
	note(w, "mmap len %zu off 0x%llx prot %d flags %d", len, (unsigned long long)off,
	     prot, flags);
	p = mmap(NULL, len, prot, flags, fd, off);
	count_err(w, p == MAP_FAILED ? errno : 0);
	w->last_err = p == MAP_FAILED ? errno : 0;
	if (p == MAP_FAILED)
		return w->last_err;
	w->m[k].p = p;
	w->m[k].len = len;
	if (!(prot & PROT_WRITE) || flags != MAP_SHARED) {
		munmap(p, len);		/* touch would fault on it: by design */
		w->m[k].p = NULL;
	}
	return 0;
}

static int op_munmap(struct worker *w, struct rng *r)
{
	int k = rn(r, NMAP);
	size_t len;

	if (!w->m[k].p)
		return 0;
	len = w->m[k].len;
	if (chance(r, 20) && len > 16384) {	/* the head only */
		munmap(w->m[k].p, 16384);
		w->m[k].p += 16384;
		w->m[k].len -= 16384;
		return 0;
	}
	munmap(w->m[k].p, len);
	w->m[k].p = NULL;
	return 0;
}

/* Mappings of surfaces stay valid whatever happens to handles and files. */
static int op_touch(struct worker *w, struct rng *r)
{
	int k = rn(r, NMAP);
	volatile uint8_t *p = w->m[k].p;
	size_t off, i;

	if (!p)
		return 0;
	off = rn(r, (uint32_t)w->m[k].len);
	note(w, "touch mapping %d at +%zu of %zu", k, off, w->m[k].len);
	for (i = 0; i < 64 && off + i < w->m[k].len; i++) {
		if (chance(r, 50))
			p[off + i] = (uint8_t)rnd(r);
		else
			(void)p[off + i];
	}
	return 0;
}

/* ------------------------------------------------------------ files */

static int op_open(struct worker *w, struct rng *r)
{
	int fdi = rn(r, NFD);

	if (slot_open(w, fdi, r))
		return w->last_err;
	if (chance(r, 70))
		return device_open(w, fdi, rn(r, 2), r, 0);
	return 0;
}

static int op_close(struct worker *w, struct rng *r)
{
	int fdi = rn(r, NFD);

	if (chance(r, 15)) {		/* everything at once, as at exit */
		for (fdi = 0; fdi < NFD; fdi++)
			slot_close(w, fdi);
		return 0;
	}
	if (chance(r, 20)) {
		int k = rn(r, NXFD);

		if (w->xfd[k] >= 0)
			close(w->xfd[k]);
		w->xfd[k] = -1;
		return 0;
	}
	slot_close(w, fdi);
	return 0;
}

static int op_dup(struct worker *w, struct rng *r)
{
	int from = rn(r, NFD), to = rn(r, NFD), fd;
	struct fdent e;

	if (!live_fd(w, from) || from == to)
		return 0;
	e = w->fds[from];
	fd = fcntl(e.fd, F_DUPFD_CLOEXEC, 0);
	count_err(w, fd < 0 ? errno : 0);
	if (fd < 0)
		return errno;
	slot_close(w, to);
	w->fds[to].fd = fd;
	w->fds[to].node = e.node;
	w->fds[to].kind = e.kind;
	w->fds[to].open = e.open;
	w->fds[to].token = e.token;
	return 0;
}

/* Hand a file to, or take one from, the other threads of the process. */
static int op_share(struct worker *w, struct rng *r)
{
	int k = rn(r, NSHARE), fdi = rn(r, NFD), fd;

	if (w->in_child)
		return 0;
	pthread_mutex_lock(&share_lock);
	if (chance(r, 50) && live_fd(w, fdi)) {
		fd = fcntl(w->fds[fdi].fd, F_DUPFD_CLOEXEC, 0);
		if (fd >= 0) {
			if (share_fd[k] >= 0)
				close(share_fd[k]);
			share_fd[k] = fd;
		}
	} else if (share_fd[k] >= 0) {
		fd = fcntl(share_fd[k], F_DUPFD_CLOEXEC, 0);
		if (fd >= 0) {
			slot_close(w, fdi);
			w->fds[fdi].fd = fd;
			/* its state is unknown here: another thread's client */
			w->fds[fdi].kind = rn(r, 2);
			w->fds[fdi].open = 1;
		}
	}
	pthread_mutex_unlock(&share_lock);
	return 0;
}

static int op_read(struct worker *w, struct rng *r)
{
	int fdi = pick_fd(w, r, 0), fl;
	struct pollfd pfd;
	ssize_t n;
	size_t len;

	if (!live_fd(w, fdi))
		return 0;
	pfd.fd = w->fds[fdi].fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)rn(r, 20)) <= 0 || !(pfd.revents & POLLIN))
		return 0;
	fl = fcntl(pfd.fd, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(pfd.fd, F_SETFL, fl | O_NONBLOCK);
	len = chance(r, 80) ? 4096 : rn(r, 64);
	n = read(pfd.fd, w->scratch, len);
	count_err(w, n < 0 ? errno : 0);
	w->last_err = n < 0 ? errno : 0;
	if (n > 0) {
		size_t off = 0;

		while (off + sizeof(struct drm_event) <= (size_t)n) {
			struct drm_event *ev = (void *)(w->scratch + off);

			if (ev->length < sizeof(*ev) || off + ev->length > (size_t)n) {
				fail(w, FAIL_ERRNO, "read returned a malformed event (type 0x%x length %u at %zu of %zd)",
				     ev->type, ev->length, off, n);
				break;
			}
			off += ev->length;
		}
	}
	return w->last_err;
}

/* The valid path end to end: create, prepare, surfaces, submit, wait. */
static int op_run(struct worker *w, struct rng *r)
{
	struct prog *p = pick_prog(w, r, 1);
	struct drm_ane_send_request *q = (void *)w->scratch;
	unsigned int i, nin, nout;
	struct pollfd pfd;
	int e;

	if (!p || !live_fd(w, p->fdi))
		return 0;
	if (!p->prepared)
		program_prepare(w, p, r);
	memset(q, 0, sizeof(*q));
	q->in.token = p->token;
	q->in.sequence = p->seq;
	q->in.qos_class = 5;
	q->in.exec_priority = 21;
	q->in.io_category = 2;
	nin = imgs[p->img].nin;
	nout = imgs[p->img].nout;
	for (i = 0; i < nin + nout; i++) {
		struct surf *sf = pick_surf(w, r, p->fdi);

		if (!sf)
			return 0;
		q->in.surfaces[i].handle = sf->handle;
		q->in.surfaces[i].kind = i < nin ? ANE_SURFACE_INPUT : ANE_SURFACE_OUTPUT;
		q->in.surfaces[i].bar = (uint8_t)(i < nin ? i : i - nin);
	}
	note(w, "run token 0x%" PRIx64 " seq %" PRIu64 " image %d on fd slot %d",
	     p->token, p->seq, p->img, p->fdi);
	e = xioctl(w, w->fds[p->fdi].fd, DRM_IOCTL_ANE_CTL_SEND_REQUEST, q, 1,
		   "ctl.SendRequest");
	if (e)
		return e;
	p->seq++;
	pfd.fd = w->fds[p->fdi].fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)rn(r, 100)) > 0 && (pfd.revents & POLLIN)) {
		int fl = fcntl(pfd.fd, F_GETFL);

		if (fl >= 0 && !(fl & O_NONBLOCK))
			fcntl(pfd.fd, F_SETFL, fl | O_NONBLOCK);
		if (read(pfd.fd, w->scratch, 4096) < 0)
			count_err(w, errno);
	}
	return 0;
}

static int op_fdinfo(struct worker *w, struct rng *r)
{
	int fdi = rn(r, NFD), fd;
	char path[64];
	ssize_t n;

	if (!live_fd(w, fdi))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", w->fds[fdi].fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, w->scratch, 4096);
	close(fd);
	return n < 0 ? errno : 0;
}

static char debugfs_dir[MAX_NODES][320];

static int op_sysfs(struct worker *w, struct rng *r)
{
	static const char *const dbg[] = {
		"fw_state", "fw_status", "fw_log", "fw_crash", "fw_ping", "dart",
		"dart_faults", "dart_mappings", "dart_tables", "name", "clients",
		"gem_names", "memory",
	};
	static const char *const props[] = {
		"architecture", "version", "minor_version", "board_type",
		"board_subtype", "num_cores", "num_engines", "cpu_subtype",
		"internal_build",
	};
	int node = rn(r, opt.nnodes), fd;
	char path[400];
	ssize_t n;

	if (chance(r, 50) && debugfs_dir[node][0])
		snprintf(path, sizeof(path), "%s/%s", debugfs_dir[node],
			 dbg[rn(r, sizeof(dbg) / sizeof(dbg[0]))]);
	else
		snprintf(path, sizeof(path), "/sys/class/accel/%s/device/%s",
			 strrchr(opt.nodes[node], '/') + 1,
			 props[rn(r, sizeof(props) / sizeof(props[0]))]);
	note(w, "read %s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while ((n = read(fd, w->scratch, SCRATCH)) > 0)
		;
	close(fd);
	return n < 0 ? errno : 0;
}

/* ------------------------------------------------------------ injection */

static int inject_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		e = errno;
	close(fd);
	return e;
}

static uint64_t last_crash_ns;

static int op_inject(struct worker *w, struct rng *r)
{
	int node = rn(r, opt.nnodes), e;
	char path[400], cmd[32];
	unsigned int x = rn(r, 100);

	if (!debugfs_dir[node][0])
		return 0;
	if (x < 30) {
		snprintf(path, sizeof(path), "%s/dart_evict", debugfs_dir[node]);
		snprintf(cmd, sizeof(cmd), "1");
	} else {
		snprintf(path, sizeof(path), "%s/fw_inject", debugfs_dir[node]);
		if (x < 45) {
			/* under the recovery rate limit: 3 a minute */
			if (last_crash_ns && now_ns() - last_crash_ns < 25000000000ull)
				snprintf(cmd, sizeof(cmd), "unhang");
			else
				snprintf(cmd, sizeof(cmd), "crash");
		} else if (x < 60) {
			snprintf(cmd, sizeof(cmd), "hang %u", rn(r, 9));
		} else if (x < 80) {
			snprintf(cmd, sizeof(cmd), "unhang");
		} else if (x < 88) {
			snprintf(cmd, sizeof(cmd), "abort-stuck %u", rn(r, 9));
		} else if (x < 96) {
			snprintf(cmd, sizeof(cmd), "deadline %u", 200 + rn(r, 3000));
		} else if (x < 98) {
			snprintf(cmd, sizeof(cmd), "stall-boot %u", rn(r, 2));
		} else {
			snprintf(cmd, sizeof(cmd), "%s", chance(r, 50) ? "reboot" : "bogus 1");
		}
		if (!strcmp(cmd, "crash"))
			last_crash_ns = now_ns();
	}
	note(w, "echo '%s' > %s", cmd, path);
	e = inject_write(path, cmd);
	count_err(w, e);
	return e;
}

/* ------------------------------------------------------------ the loop */

static int pick_op(uint64_t seed, int injector)
{
	struct rng r = { seed ^ 0x5bd1e995u };
	unsigned int total = 0, x;
	int op;

	if (injector)
		return OP_INJECT;
	for (op = 0; op < OP_COUNT; op++)
		total += excluded_op[op] ? 0 : op_weight(op);
	x = rn(&r, total);
	for (op = 0; op < OP_COUNT; op++) {
		unsigned int wt = excluded_op[op] ? 0 : op_weight(op);

		if (x < wt)
			return op;
		x -= wt;
	}
	return OP_OPEN;
}

static int run_op(struct worker *w, int op, uint64_t seed);

static void reap_kids(struct worker *w, int block)
{
	int i, st;

	for (i = 0; i < NKIDS; i++) {
		pid_t p;

		if (w->kids[i] <= 0)
			continue;
		p = waitpid(w->kids[i], &st, block ? 0 : WNOHANG);
		if (p == 0)
			continue;
		if (p == w->kids[i] && WIFSIGNALED(st))
			fail(w, FAIL_CHILD, "fork child %d was killed by signal %d (%s)",
			     p, WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (p == w->kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 3)
			fail(w, FAIL_CHILD, "fork child %d found an error", p);
		w->kids[i] = 0;
		w->slot->child_pid = 0;
	}
}

/* fork(): the child runs a few operations on the inherited pools and exits. */
static int op_fork(struct worker *w, struct rng *r)
{
	int k = rn(r, NKIDS), n = 1 + rn(r, 12), i;
	pid_t pid;

	if (w->in_child)
		return 0;
	if (w->kids[k] > 0) {
		int st;

		if (waitpid(w->kids[k], &st, 0) == w->kids[k] && WIFSIGNALED(st))
			fail(w, FAIL_CHILD, "fork child %d was killed by signal %d (%s)",
			     w->kids[k], WTERMSIG(st), strsignal(WTERMSIG(st)));
		w->kids[k] = 0;
	}
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		struct rng cr = { rnd(r) };

		w->in_child = 1;
		forked_child = 1;
		w->slot->child_pid = getpid();
		for (i = 0; i < n && !shm->stop && !w->slot->fail; i++) {
			int op = pick_op(rnd(&cr), 0);

			if (op == OP_FORK || op == OP_SHARE || op == OP_REAP)
				continue;
			w->slot->child_op = op;
			w->slot->child_start_ns = now_ns();
			run_op(w, op, rnd(&cr));
			w->slot->child_start_ns = 0;
		}
		if (chance(r, 30))
			for (i = 0; i < NFD; i++)
				slot_close(w, i);
		_exit(w->slot->fail ? 3 : 0);
	}
	w->kids[k] = pid;
	return 0;
}

static int run_op(struct worker *w, int op, uint64_t seed)
{
	struct rng r = { seed };

	w->note[0] = 0;
	if (!w->in_child)
		w->slot->note[0] = 0;
	w->last_err = 0;
	if (op >= OP_SEL0 && op < OP_SEL0 + 26)
		return op_selector(w, &r, op - OP_SEL0);
	switch (op) {
	case OP_OPEN: return op_open(w, &r);
	case OP_CLOSE: return op_close(w, &r);
	case OP_DUP: return op_dup(w, &r);
	case OP_SHARE: return op_share(w, &r);
	case OP_SURFACE_CREATE: return op_surface_create(w, &r);
	case OP_DMA: return op_dma(w, &r);
	case OP_GET_FAULT: return op_get_fault(w, &r);
	case OP_METHOD: return op_method(w, &r);
	case OP_DRM: return op_drm(w, &r, 0);
	case OP_SYNCOBJ: return op_drm(w, &r, 1);
	case OP_PRIME: return op_drm(w, &r, 2);
	case OP_RAW: return op_raw(w, &r);
	case OP_MMAP: return op_mmap(w, &r);
	case OP_MUNMAP: return op_munmap(w, &r);
	case OP_TOUCH: return op_touch(w, &r);
	case OP_READ: return op_read(w, &r);
	case OP_RUN: return op_run(w, &r);
	case OP_FORK: return op_fork(w, &r);
	case OP_REAP:
		reap_kids(w, 0);
		return 0;
	case OP_FDINFO: return op_fdinfo(w, &r);
	case OP_SYSFS: return op_sysfs(w, &r);
	case OP_WRONG_SIZE: return op_wrong_size(w, &r);
	case OP_INJECT: return op_inject(w, &r);
	default: return 0;
	}
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
	char msg[96];
	int len;

	len = snprintf(msg, sizeof(msg), "ane-fuzz: signal %d at address %p, pc %p\n", sig,
		       si->si_addr, (void *)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP]);
	if (write(2, msg, (size_t)len) < 0)
		len = 0;
	if (my_slot && !my_slot->fail) {
		my_slot->fail_sig = sig;
		my_slot->fail = forked_child ? FAIL_CHILD : FAIL_SIGNAL;
	}
	if (shm) {
		shm->failed = 1;
		shm->stop = 1;
	}
	{
		void *bt[32];
		int n = backtrace(bt, 32);
		static const char m[] = "ane-fuzz: fatal signal in a worker; backtrace:\n";

		if (write(2, m, sizeof(m) - 1) < 0)
			n = 0;
		backtrace_symbols_fd(bt, n, 2);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void worker_init(struct worker *w, int id)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->id = id;
	w->slot = &shm->w[id];
	for (i = 0; i < NFD; i++)
		w->fds[i] = (struct fdent){ .fd = -1, .kind = -1 };
	for (i = 0; i < NXFD; i++)
		w->xfd[i] = -1;
	w->scratch = mmap(NULL, SCRATCH + 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->scratch == MAP_FAILED) {
		perror("ane-fuzz: mmap");
		exit(2);
	}
	mprotect(w->scratch + SCRATCH, 4096, PROT_NONE);
	w->imgbuf = malloc(IMGBUF);
	if (!w->imgbuf) {
		perror("ane-fuzz: malloc");
		exit(2);
	}
	memset(w->imgbuf, 0, IMGBUF);
}

static void worker_fini(struct worker *w)
{
	int i;

	reap_kids(w, 1);
	for (i = 0; i < NMAP; i++)
		if (w->m[i].p)
			munmap(w->m[i].p, w->m[i].len);
	for (i = 0; i < NFD; i++)
		slot_close(w, i);
	for (i = 0; i < NXFD; i++)
		if (w->xfd[i] >= 0)
			close(w->xfd[i]);
	munmap(w->scratch, SCRATCH + 4096);
	free(w->imgbuf);
}

static uint64_t worker_seed(int id)
{
	uint64_t s = opt.seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(id + 1));

	return splitmix(&s);
}

static void *worker_main(void *arg)
{
	int id = (int)(intptr_t)arg, injector = id == nworkers;
	struct worker *w = malloc(sizeof(*w));
	struct wslot *sl = &shm->w[id];
	struct rng r;
	uint64_t n = 0;

	if (!w)
		return NULL;
	worker_init(w, id);
	my_slot = sl;
	sl->pid = getpid();
	sl->tid = (int)syscall(SYS_gettid);
	sl->seed = worker_seed(opt.only_worker >= 0 ? opt.only_worker : id);
	r.s = sl->seed;
	sl->state = 1;
	while (!shm->stop) {
		uint64_t seed, t0;
		int op, e;
		struct ring_ent *re;

		if (replay_ops) {
			if (n >= replay_n)
				break;
			op = replay_ops[n].op;
			seed = replay_ops[n].seed;
		} else {
			if (opt.iterations && n >= opt.iterations)
				break;
			seed = rnd(&r);
			op = pick_op(seed, injector);
		}
		re = &sl->ring[n % RING_MAX];
		re->n = n;
		re->seed = seed;
		re->op = (int16_t)op;
		re->err = -1;
		re->us = 0;
		sl->cur_op = op;
		t0 = now_ns();
		sl->nops = n + 1;
		sl->op_start_ns = t0;
		e = run_op(w, op, seed);
		sl->op_start_ns = 0;
		re->err = (int16_t)(w->last_err ? w->last_err : e);
		re->us = (uint32_t)((now_ns() - t0) / 1000);
		sl->opcount[op]++;
		if (opt.verbose)
			fprintf(stderr, "w%d #%" PRIu64 " %s 0x%016" PRIx64 " -> %s  %s\n", id, n,
				op_name(op), seed, errname(re->err), w->note);
		n++;
		if (injector && !replay_ops)	/* between 0.2 and 2 s */
			usleep(200000 + rn(&r, 1800000));
	}
	worker_fini(w);
	free(w);
	sl->state = 2;
	return NULL;
}

static void set_oom_adj(const char *v)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, v, strlen(v)) < 0)
		fd = -fd - 1;
	close(fd < 0 ? -fd - 1 : fd);
}

/* One worker process: --threads threads, workers base .. base + n - 1. */
static void proc_main(int base, int n, int drop)
{
	pthread_t th[MAX_WORKERS];
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Under memory pressure the OOM killer takes a worker, not the supervisor. */
	set_oom_adj("500");
	if (drop && opt.user >= 0) {
		if (setgroups(0, NULL) || setgid((gid_t)opt.user) || setuid((uid_t)opt.user)) {
			perror("ane-fuzz: dropping privileges");
			_exit(2);
		}
	}
	for (i = 1; i < n; i++)
		if (pthread_create(&th[i], NULL, worker_main, (void *)(intptr_t)(base + i)))
			th[i] = 0;
	worker_main((void *)(intptr_t)base);
	for (i = 1; i < n; i++)
		if (th[i])
			pthread_join(th[i], NULL);
	_exit(0);
}

/* ------------------------------------------------------------ supervisor */

static void print_ring(FILE *f, int id, int k)
{
	struct wslot *sl = &shm->w[id];
	uint64_t n = sl->nops, first = n > (uint64_t)k ? n - k : 0, i;

	fprintf(f, "--- ane-fuzz reproducer: worker %d, operations %" PRIu64 "..%" PRIu64
		" (save as FILE; run: ane-fuzz --replay FILE) ---\n", id, first,
		n ? n - 1 : 0);
	fprintf(f, "# seed %" PRIu64 " worker %d worker-seed 0x%016" PRIx64 "\n", opt.seed,
		id, sl->seed);
	for (i = first; i < n; i++) {
		struct ring_ent *re = &sl->ring[i % RING_MAX];

		if (re->n != i)
			continue;
		fprintf(f, "op %" PRIu64 " %s 0x%016" PRIx64 "  # -> %s, %u us\n", i,
			op_name(re->op), re->seed, re->err < 0 ? "(running)" :
			errname(re->err), re->us);
	}
	fprintf(f, "--- end of reproducer ---\n");
	if (!replay_ops && id < nworkers)
		fprintf(f, "ane-fuzz: the whole sequence of worker %d, alone: ane-fuzz --seed %"
			PRIu64 " --worker %d --iterations %" PRIu64 "\n", id, opt.seed, id, n);
}

static void dump_task(int tid)
{
	char path[64], buf[4096];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/wchan", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			printf("ane-fuzz: task %d waits in %s\n", tid, buf);
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			printf("ane-fuzz: kernel stack of task %d:\n%s", tid, buf);
		}
	}
}

static const char *fail_kind(int k)
{
	switch (k) {
	case FAIL_SIGNAL: return "killed by a signal";
	case FAIL_HANG: return "hung";
	case FAIL_ERRNO: return "unexpected result";
	case FAIL_CHILD: return "fork child failed";
	case FAIL_EXIT: return "exited abnormally";
	default: return "failed";
	}
}

static void report_failure(int id)
{
	struct wslot *sl = &shm->w[id];

	printf("ane-fuzz: FAIL: worker %d (pid %d, tid %d) %s", id, sl->pid, sl->tid,
	       fail_kind(sl->fail));
	if (sl->fail_sig)
		printf(" (signal %d, %s)", sl->fail_sig, strsignal(sl->fail_sig));
	printf(" in operation #%" PRIu64 " %s: %s\n", sl->nops ? sl->nops - 1 : 0,
	       op_name(sl->cur_op), sl->fail_msg[0] ? sl->fail_msg : "-");
	if (sl->note[0])
		printf("ane-fuzz: that operation: %s\n", sl->note);
	printf("ane-fuzz: seed %" PRIu64 " (worker %d seed 0x%016" PRIx64 ")\n",
	       opt.seed, id, sl->seed);
	print_ring(stdout, id, opt.ring);
	if (opt.inject && id != nworkers && !replay_ops) {
		printf("ane-fuzz: the injector's last operations meanwhile:\n");
		print_ring(stdout, nworkers, 16);
	}
	fflush(stdout);
}

/* The device answers: DeviceOpen, GetVersion, GetStatus, a program runs. */
static int canary_child(const char *node)
{
	static const float in[16] = { -1, 2, -3, 4, 5, -6, 7, 8, 0, 1, 2, 3, 4, 5, 6, 7 };
	float out[16];
	const float *ins[1] = { in };
	float *outs[1] = { out };
	struct drm_ane_status st = { 0 };
	uint32_t uapi, hw, minor;
	struct ane_dev *dev;
	struct ane_net *net;
	char err[256];
	int ret, i, x;

	ret = ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err));
	if (ret) {
		printf("ane-fuzz: canary: DeviceOpen of %s failed: %s\n", node, err);
		return 1;
	}
	ret = ane_get_version(dev, &uapi, &hw, &minor);
	if (ret) {
		printf("ane-fuzz: canary: GetVersion failed: %s\n", ane_errmsg(dev));
		return 1;
	}
	/*
	 * The firmware is back to ready within 30 s, whatever was injected;
	 * or powered down idle (runtime PM), which the canary's own request
	 * powers up again.
	 */
	for (i = 0; i < 300; i++) {
		ret = ane_get_status(dev, &st);
		if (ret || st.fw_state == ANE_FW_STATE_READY ||
		    st.fw_state == ANE_FW_STATE_SUSPENDED)
			break;
		usleep(100000);
	}
	if (ret || (st.fw_state != ANE_FW_STATE_READY &&
		    st.fw_state != ANE_FW_STATE_SUSPENDED)) {
		printf("ane-fuzz: canary: firmware not ready after 30 s: %s (%s)\n",
		       ret ? ane_errmsg(dev) : "", ane_fw_state_name(st.fw_state));
		return 1;
	}
	if (ane_net_create(&net))
		return 1;
	x = ane_net_input(net, "x", 1, 1, 4, 4);
	ane_net_output(net, ane_net_activation(net, x, ANE_NET_ACT_RELU));
	ret = ane_net_run(dev, net, ins, outs);
	ane_net_destroy(net);
	if (ret) {
		printf("ane-fuzz: canary: a program run failed: %s\n", ane_errmsg(dev));
		return 1;
	}
	for (i = 0; i < 16; i++)
		if (out[i] != (in[i] > 0 ? in[i] : 0)) {
			printf("ane-fuzz: canary: wrong result %g at %d\n", out[i], i);
			return 1;
		}
	printf("ane-fuzz: canary: %s answers: uapi %u, hw 0x%x.%u, firmware %s, a program ran\n",
	       node, uapi, hw, minor, ane_fw_state_name(st.fw_state));
	ane_close(dev);
	return 0;
}

/* The debugfs file @name of node @node on stdout, for a failure report. */
static void dump_debugfs(int node, const char *name)
{
	char path[400], buf[2048];
	ssize_t n;
	int fd;

	if (!debugfs_dir[node][0])
		return;
	snprintf(path, sizeof(path), "%.300s/%s", debugfs_dir[node], name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		printf("ane-fuzz: %s:\n%s", path, buf);
	}
}

/*
 * With every client gone, the device's memory charge (debugfs "memory",
 * root only) must return to zero: anything left is a leaked object or a
 * leaked charge.  Returns 1 on a leak.
 */
static int charge_leak(void)
{
	int i, t, bad = 0;

	for (i = 0; i < opt.nnodes; i++) {
		char path[400], buf[512], *p;
		long long charged = -1;

		if (!debugfs_dir[i][0])
			continue;
		snprintf(path, sizeof(path), "%.300s/memory", debugfs_dir[i]);
		for (t = 0; t < 100; t++) {	/* 10 s for deferred frees */
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			ssize_t n;

			if (fd < 0)
				break;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n <= 0)
				break;
			buf[n] = 0;
			p = strstr(buf, "charged ");
			if (!p)
				break;
			charged = strtoll(p + 8, NULL, 10);
			if (!charged)
				break;
			usleep(100000);
		}
		if (charged > 0) {
			printf("ane-fuzz: leak: %s charges %lld bytes with no client open\n",
			       opt.nodes[i], charged);
			dump_debugfs(i, "memory");
			bad = 1;
		}
	}
	return bad;
}

static int canary(void)
{
	int i, bad = 0;

	for (i = 0; i < opt.nnodes; i++) {
		pid_t pid;
		int st = 0, waited = 0;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(canary_child(opt.nodes[i]));
		while (waited < 600) {
			pid_t p = waitpid(pid, &st, WNOHANG);

			if (p == pid)
				break;
			usleep(100000);
			waited++;
		}
		if (waited >= 600) {
			printf("ane-fuzz: canary: %s does not answer within 60 s\n", opt.nodes[i]);
			dump_task(pid);
			kill(pid, SIGKILL);
			bad = 1;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			if (WIFSIGNALED(st))
				printf("ane-fuzz: canary: killed by signal %d\n", WTERMSIG(st));
			bad = 1;
		}
		if (bad)
			dump_debugfs(i, "memory");
	}
	return bad;
}

static void find_debugfs(void)
{
	int i;

	if (geteuid() != 0)
		return;
	if (access("/sys/kernel/debug/accel", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	for (i = 0; i < opt.nnodes; i++) {
		char path[256], link[256], *dev;
		ssize_t n;

		snprintf(path, sizeof(path), "/sys/class/accel/%s/device",
			 strrchr(opt.nodes[i], '/') + 1);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		dev = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		snprintf(debugfs_dir[i], sizeof(debugfs_dir[i]),
			 "/sys/kernel/debug/accel/%s", dev);
		if (access(debugfs_dir[i], F_OK))
			debugfs_dir[i][0] = 0;
	}
}

static int parse_replay(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512];
	size_t cap = 0;

	if (!f) {
		fprintf(stderr, "ane-fuzz: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[64], *p = strstr(line, "op ");
		unsigned long long idx, seed;
		int op;

		if (!p || (p != line && p[-1] != ' ' && p[-1] != '\t'))
			continue;
		if (sscanf(p, "op %llu %63s %llx", &idx, name, &seed) != 3)
			continue;
		op = op_by_name(name);
		if (op < 0) {
			fprintf(stderr, "ane-fuzz: %s: unknown operation '%s'\n", file, name);
			fclose(f);
			return -1;
		}
		if (replay_n == cap) {
			cap = cap ? 2 * cap : 64;
			replay_ops = realloc(replay_ops, cap * sizeof(*replay_ops));
			if (!replay_ops) {
				fclose(f);
				return -1;
			}
		}
		replay_ops[replay_n].op = op;
		replay_ops[replay_n].seed = seed;
		replay_n++;
	}
	fclose(f);
	if (!replay_n) {
		fprintf(stderr, "ane-fuzz: %s: no 'op N NAME SEED' lines\n", file);
		return -1;
	}
	return 0;
}

static int parse_exclude(const char *list)
{
	char *s = strdup(list), *tok, *save = NULL;
	unsigned int i;
	int op;

	if (!s)
		return -1;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;

		op = op_by_name(tok);
		if (op >= 0) {
			excluded_op[op] = 1;
			found = 1;
		}
		for (i = 0; i < N_DRM_IOS; i++)
			if (!strcmp(drm_ios[i].name, tok) ||
			    (!strncmp(tok, "DRM_IOCTL_", 10) && !strcmp(drm_ios[i].name, tok + 10))) {
				excluded_drm[i] = 1;
				found = 1;
			}
		if (!found) {
			fprintf(stderr, "ane-fuzz: --exclude: unknown operation or DRM ioctl '%s'\n", tok);
			free(s);
			return -1;
		}
	}
	free(s);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ane-fuzz [options]\n"
		"\n"
		"  --seed N           seed of the whole run (default 1); worker W's\n"
		"                     sequence follows from N and W alone\n"
		"  --time SECONDS     stop after this long (default 10; 0: no limit)\n"
		"  --iterations N     stop each worker after N operations\n"
		"  --procs P          worker processes (default 2)\n"
		"  --threads T        worker threads in each (default 2)\n"
		"  --inject           (root) an injector drives debugfs fw_inject and\n"
		"                     dart_evict meanwhile\n"
		"  --user UID         workers drop to UID (and GID UID) after the node\n"
		"                     is made 0666; the supervisor, injector and canary\n"
		"                     stay root\n"
		"  --node PATH        fuzz this node (repeatable; default: every ane node)\n"
		"  --worker W         run only worker W's sequence (with --seed, --iterations)\n"
		"  --replay FILE      run the 'op N NAME SEED' lines of FILE in order, one worker\n"
		"  --exclude LIST     comma-separated operations (e.g. fork,raw) or DRM ioctls\n"
		"                     (e.g. GET_UNIQUE) to leave out\n"
		"  --ring K           operations per reproducer (default 32, at most %d)\n"
		"  --hang-timeout S   an operation running longer is a hang (default 60)\n"
		"  --verbose          log every operation to stderr\n"
		"  -V, --version      libane's version\n"
		"\n"
		"Operations: open close dup share, the 26 selectors (ctl.* dp.*),\n"
		"ane.SurfaceCreate ane.Dma ane.GetFault, drm (every DRM core ioctl) syncobj\n"
		"prime raw (any 'd' number), mmap munmap touch read run fork reap fdinfo\n"
		"sysfs wrong-size, and inject (the injector's).\n"
		"\n"
		"The last line is \"ane-fuzz: N passed, N failed\": workers that finished\n"
		"clean and the canary; the exit status is 1 on any failure.\n", RING_MAX);
}

static int parse_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("ane-fuzz (libane) %s\n", ane_version());
			exit(0);
		} else if (!strcmp(a, "--inject")) {
			opt.inject = 1;
		} else if (!strcmp(a, "--verbose")) {
			opt.verbose = 1;
		} else if (!v) {
			fprintf(stderr, "ane-fuzz: %s needs a value\n", a);
			return -1;
		} else if (!strcmp(a, "--seed")) {
			opt.seed = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--time")) {
			opt.time_s = strtod(v, NULL);
			i++;
		} else if (!strcmp(a, "--iterations")) {
			opt.iterations = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--procs")) {
			opt.procs = atoi(v);
			i++;
		} else if (!strcmp(a, "--threads")) {
			opt.threads = atoi(v);
			i++;
		} else if (!strcmp(a, "--user")) {
			opt.user = atoi(v);
			i++;
		} else if (!strcmp(a, "--node")) {
			if (opt.nnodes < MAX_NODES)
				snprintf(opt.nodes[opt.nnodes++], sizeof(opt.nodes[0]), "%s", v);
			i++;
		} else if (!strcmp(a, "--worker")) {
			opt.only_worker = atoi(v);
			i++;
		} else if (!strcmp(a, "--replay")) {
			opt.replay = v;
			i++;
		} else if (!strcmp(a, "--exclude")) {
			opt.exclude = v;
			i++;
		} else if (!strcmp(a, "--ring")) {
			opt.ring = atoi(v);
			i++;
		} else if (!strcmp(a, "--hang-timeout")) {
			opt.hang_s = atoi(v);
			i++;
		} else {
			fprintf(stderr, "ane-fuzz: unknown option '%s'\n", a);
			usage(stderr);
			return -1;
		}
	}
	if (opt.procs < 1 || opt.threads < 1 || opt.procs * opt.threads > MAX_WORKERS - 1) {
		fprintf(stderr, "ane-fuzz: --procs x --threads must be 1..%d\n", MAX_WORKERS - 1);
		return -1;
	}
	if (opt.ring < 1 || opt.ring > RING_MAX)
		opt.ring = RING_MAX;
	if (opt.hang_s < 1)
		opt.hang_s = 1;
	if (opt.inject && geteuid() != 0) {
		fprintf(stderr, "ane-fuzz: --inject needs root (debugfs)\n");
		return -1;
	}
	if (opt.user >= 0 && geteuid() != 0) {
		fprintf(stderr, "ane-fuzz: --user needs root\n");
		return -1;
	}
	if (opt.replay || opt.only_worker >= 0)
		opt.procs = opt.threads = 1;
	return 0;
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_WORKERS + 1];
	int nprocs, i, k, failed = 0, passed = 0, hung = 0;
	uint64_t t0, deadline, total = 0, calls = 0;
	double secs;
	size_t shm_size;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_args(argc, argv))
		return 2;
	if (opt.exclude && parse_exclude(opt.exclude))
		return 2;
	if (opt.replay && parse_replay(opt.replay))
		return 2;
	if (!opt.nnodes) {
		while (opt.nnodes < MAX_NODES &&
		       !ane_find_node((unsigned int)opt.nnodes, opt.nodes[opt.nnodes],
				      sizeof(opt.nodes[0])))
			opt.nnodes++;
	}
	if (!opt.nnodes) {
		printf("ane-fuzz: no ane node found (is ane.ko loaded?)\nane-fuzz: 0 passed, 1 failed\n");
		return 1;
	}
	for (i = 0; i < NIMG; i++)
		if (build_one(i, &imgs[i])) {
			printf("ane-fuzz: 0 passed, 1 failed\n");
			return 1;
		}
	find_debugfs();
	if (opt.user >= 0)
		for (i = 0; i < opt.nnodes; i++)
			if (chmod(opt.nodes[i], 0666))
				fprintf(stderr, "ane-fuzz: chmod %s: %s\n", opt.nodes[i],
					strerror(errno));

	nworkers = opt.procs * opt.threads;
	shm_size = sizeof(struct shm) + (size_t)(nworkers + 1) * sizeof(struct wslot);
	shm = mmap(NULL, shm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("ane-fuzz: mmap");
		return 2;
	}
	shm->nslots = nworkers + 1;
	if (geteuid() == 0)
		set_oom_adj("-1000");

	printf("ane-fuzz: seed %" PRIu64 ", %d process%s x %d thread%s, %s%s, node%s",
	       opt.seed, opt.procs, opt.procs > 1 ? "es" : "", opt.threads,
	       opt.threads > 1 ? "s" : "", opt.inject ? "injection on" : "no injection",
	       opt.user >= 0 ? ", unprivileged workers" : "", opt.nnodes > 1 ? "s" : "");
	for (i = 0; i < opt.nnodes; i++)
		printf(" %s", opt.nodes[i]);
	if (opt.replay)
		printf(", replaying %zu operations of %s", replay_n, opt.replay);
	else if (opt.time_s > 0)
		printf(", %.0f s", opt.time_s);
	if (opt.iterations)
		printf(", %" PRIu64 " operations per worker", opt.iterations);
	printf("\n");
	fflush(stdout);

	t0 = now_ns();
	deadline = opt.time_s > 0 && !opt.replay ? t0 + (uint64_t)(opt.time_s * 1e9) : 0;
	nprocs = opt.procs;
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			proc_main(i * opt.threads, opt.threads, 1);
	}
	if (opt.inject && !opt.replay && opt.only_worker < 0) {
		pids[nprocs] = fork();
		if (pids[nprocs] == 0)
			proc_main(nworkers, 1, 0);
		nprocs++;
	}

	/* Watch: exits, signals, hangs, the deadline. */
	for (;;) {
		int alive = 0;
		uint64_t now = now_ns();

		for (i = 0; i < nprocs; i++) {
			int st;

			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				int base = i * opt.threads, n = opt.threads;

				if (i == opt.procs) {
					base = nworkers;
					n = 1;
				}
				if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st))) {
					for (k = base; k < base + n; k++) {
						if (shm->w[k].fail)
							continue;
						if (WIFSIGNALED(st) && shm->w[k].state == 1) {
							shm->w[k].fail = FAIL_SIGNAL;
							shm->w[k].fail_sig = WTERMSIG(st);
							snprintf(shm->w[k].fail_msg, sizeof(shm->w[k].fail_msg),
								 "process %d killed by signal %d%s", pids[i],
								 WTERMSIG(st), WTERMSIG(st) == SIGKILL ?
								 " (the OOM killer, or a kernel Oops: see the kernel log)" : "");
						} else if (WIFEXITED(st)) {
							shm->w[k].fail = FAIL_EXIT;
							snprintf(shm->w[k].fail_msg, sizeof(shm->w[k].fail_msg),
								 "process %d exited with status %d", pids[i],
								 WEXITSTATUS(st));
						}
					}
					shm->failed = 1;
					shm->stop = 1;
				}
				pids[i] = 0;
				continue;
			}
			alive++;
		}
		if (!alive)
			break;
		for (k = 0; k <= nworkers; k++) {
			struct wslot *sl = &shm->w[k];
			uint64_t s = sl->op_start_ns, cs = sl->child_start_ns;

			if (sl->fail)
				continue;
			if (s && now > s && now - s > (uint64_t)opt.hang_s * 1000000000ull) {
				sl->fail = FAIL_HANG;
				snprintf(sl->fail_msg, sizeof(sl->fail_msg),
					 "operation %s running for more than %d s", op_name(sl->cur_op),
					 opt.hang_s);
				hung = 1;
				dump_task(sl->tid);
			} else if (cs && sl->child_pid && now > cs &&
				   now - cs > (uint64_t)opt.hang_s * 1000000000ull) {
				sl->fail = FAIL_HANG;
				snprintf(sl->fail_msg, sizeof(sl->fail_msg),
					 "fork child %d hung in %s for more than %d s", sl->child_pid,
					 op_name(sl->child_op), opt.hang_s);
				hung = 1;
				dump_task(sl->child_pid);
			}
			if (sl->fail == FAIL_HANG) {
				hung = 1;
				shm->failed = 1;
				shm->stop = 1;
			}
		}
		if (deadline && now > deadline)
			shm->stop = 1;
		if (hung) {
			/* what is stuck in the kernel stays; give the rest 10 s */
			uint64_t until = now_ns() + 10000000000ull;

			while (now_ns() < until) {
				int left = 0;

				for (i = 0; i < nprocs; i++)
					if (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) != pids[i])
						left++;
					else
						pids[i] = 0;
				if (!left)
					break;
				usleep(100000);
			}
			for (i = 0; i < nprocs; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGKILL);
			break;
		}
		usleep(50000);
	}
	secs = (double)(now_ns() - t0) / 1e9;

	/* Report. */
	for (k = 0; k <= nworkers; k++) {
		struct wslot *sl = &shm->w[k];

		if (k == nworkers && !(opt.inject && !opt.replay && opt.only_worker < 0))
			break;
		total += sl->nops;
		calls += sl->calls;
		if (!sl->fail && sl->state != 2) {
			sl->fail = FAIL_HANG;
			snprintf(sl->fail_msg, sizeof(sl->fail_msg),
				 "did not finish: %s", sl->op_start_ns ?
				 "stuck in the kernel in this operation" : "its process did not exit");
		}
		if (sl->fail) {
			report_failure(k);
			failed++;
		} else {
			passed++;
		}
	}
	printf("ane-fuzz: %" PRIu64 " operations (%" PRIu64 " system calls) in %.1f s: %.0f ops/s\n",
	       total, calls, secs, secs > 0 ? (double)total / secs : 0.0);
	{
		static uint64_t sum[ERRNO_MAX];
		char line[4096];
		size_t len = 0;
		int e;

		memset(sum, 0, sizeof(sum));
		for (k = 0; k <= nworkers; k++)
			for (e = 0; e < ERRNO_MAX; e++)
				sum[e] += shm->w[k].errs[e];
		len += snprintf(line + len, sizeof(line) - len, "ane-fuzz: results:");
		for (e = 0; e < ERRNO_MAX && len < sizeof(line) - 64; e++)
			if (sum[e])
				len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64,
						errname(e), sum[e]);
		printf("%s\n", line);
		len = 0;
		len += snprintf(line + len, sizeof(line) - len, "ane-fuzz: operations:");
		for (i = 0; i < OP_COUNT && len < sizeof(line) - 64; i++) {
			uint64_t c = 0;

			for (k = 0; k <= nworkers; k++)
				c += shm->w[k].opcount[i];
			if (c)
				len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64,
						op_name(i), c);
		}
		printf("%s\n", line);
	}
	if (opt.inject && geteuid() == 0)
		for (i = 0; i < opt.nnodes; i++)
			if (debugfs_dir[i][0]) {
				char path[400];

				snprintf(path, sizeof(path), "%.300s/fw_inject", debugfs_dir[i]);
				inject_write(path, "unhang");
			}
	if (!hung && charge_leak())
		failed++;
	if (hung) {
		printf("ane-fuzz: canary skipped: an operation is stuck in the kernel\n");
		failed++;
	} else if (canary()) {
		failed++;
	} else {
		passed++;
	}
	if (failed)
		printf("ane-fuzz: FAILED with seed %" PRIu64 "\n", opt.seed);
	printf("ane-fuzz: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
