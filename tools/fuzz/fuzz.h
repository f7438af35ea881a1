/* SPDX-License-Identifier: MIT */
/*
 * ane-fuzz: what its files share -- the limits, the operations, the
 * shared memory the supervisor watches, the options, a worker's pools,
 * and the functions one file calls in another.
 *
 *   ane-fuzz.c     the options' defaults, the supervisor, the canary, main
 *   fuzz_args.c    the command line, --exclude and --replay
 *   fuzz_tables.c  the operations and the DRM core ioctls they draw from
 *   fuzz_util.c    randomness, errno names, the program images
 *   fuzz_worker.c  a worker's pools: files, surfaces, programs, syncobjs
 *   fuzz_sel.c     argument modes and the 26 selectors
 *   fuzz_ioctl.c   the driver's own ioctls, DRM core and raw numbers
 *   fuzz_sys.c     memory, files and fault injection
 *   fuzz_loop.c    a worker's loop, fork, and the worker processes
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef ANE_FUZZ_H
#define ANE_FUZZ_H

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
#define NIMG		5
#define SCRATCH		(64 << 10)
#define IMGBUF		(256 << 10)
#define SURF_BUDGET	(16u << 20)	/* live surface bytes per worker */

enum {
	OP_OPEN, OP_CLOSE, OP_DUP, OP_SHARE,
	OP_SEL0,			/* 26 selectors */
	OP_SURFACE_CREATE = OP_SEL0 + 26, OP_DMA, OP_GET_FAULT,
	OP_DRM, OP_SYNCOBJ, OP_PRIME, OP_RAW,
	OP_MMAP, OP_MUNMAP, OP_TOUCH, OP_READ, OP_RUN,
	OP_FORK, OP_REAP, OP_FDINFO, OP_SYSFS, OP_WRONG_SIZE,
	OP_INJECT, OP_METHOD,
	OP_PROG_SHARE, OP_CAPS_DROP, OP_METHOD_BUF,
	OP_COUNT
};

struct seldesc {
	const char *name;
	unsigned long cmd;
	int space;			/* 0 control, 1 direct path */
};

enum {
	S_CTL_OPEN, S_CTL_CLOSE, S_CTL_SEND, S_CREATE, S_PREPARE, S_UNPREPARE,
	S_DESTROY, S_STATUS, S_INSTANCE, S_CHAIN_PREP, S_VERSION, S_REG_DWP,
	S_UNREG_DWP, S_GET_DWP, S_COMPLETE_DWP, S_RELEASE_DWP, S_LOAD_FW,
	S_DP_OPEN, S_DP_CLOSE, S_DP_SEND, S_OSE, S_INPUTS_READY, S_MAP,
	S_UNMAP, S_HINT, S_SET_ACTIVE,
};

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

/* the entries of drm_ios[] (checked where it is defined) */
#define N_DRM_IOS	108

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

/*
 * A node's path in the shared memory: with --unplug the injector unbinds
 * a device and binds it again, which gives it a new minor.  One writer
 * (the injector); readers copy the path while @seq stays even and the
 * same (node_path()).
 */
struct shm_node {
	volatile unsigned int seq;
	char path[64];
};

struct shm {
	volatile int stop;
	volatile int failed;
	volatile unsigned long unplugs;		/* unbinds and binds done */
	struct shm_node node[MAX_NODES];
	int nslots;
	struct wslot w[];
};

struct fuzz_opts {
	uint64_t seed;
	double time_s;
	uint64_t iterations;
	int procs, threads;
	int inject;
	int unplug;		/* the injector also unbinds and binds devices */
	int user;		/* -1: keep */
	int ring;
	int hang_s;
	int only_worker;	/* -1: all */
	const char *replay;
	const char *exclude;
	int verbose;
	char nodes[MAX_NODES][64];
	int nnodes;
};

/* Replay: the operations to run, in order. */
struct rop {
	int op;
	uint64_t seed;
};

struct rng {
	uint64_t s;
};

struct img {
	void *data;
	size_t size;
	unsigned int nin, nout;
};

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
	int attached;		/* PROGRAM_ATTACH's token in a direct-path file */
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

enum { M_VALID, M_CORRUPT, M_ZERO, M_RANDOM, M_BADPTR };

/* ------------------------------------------------------------ shared data */

extern const struct seldesc sels[26];
extern const struct drmio drm_ios[];
extern struct img imgs[NIMG];
extern pthread_mutex_t share_lock;
extern int share_fd[NSHARE];
extern __thread struct wslot *my_slot;
extern int forked_child;
extern const char *const mode_names[];
extern char debugfs_dir[MAX_NODES][320];
extern char platdev[MAX_NODES][32];
extern struct fuzz_opts opt;
extern struct shm *shm;
extern int nworkers;
extern int excluded_op[OP_COUNT];
extern char excluded_drm[N_DRM_IOS];
extern struct rop *replay_ops;
extern size_t replay_n;

/* ------------------------------------------------------------ functions */

const char *op_name(int op);
int op_by_name(const char *s);
unsigned int op_weight(int op);
uint64_t splitmix(uint64_t *s);
uint64_t rnd(struct rng *r);
uint32_t rn(struct rng *r, uint32_t n);
int chance(struct rng *r, unsigned int pct);
uint64_t interesting(struct rng *r);
uint64_t now_ns(void);
const char *errname(int e);
int build_one(int k, struct img *out);
void note(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fail(struct worker *w, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void count_err(struct worker *w, int e);
int xioctl(struct worker *w, int fd, unsigned long cmd, void *arg,
		  int ptrs_ok, const char *what);
int live_fd(struct worker *w, int fdi);
void slot_close(struct worker *w, int fdi);
int slot_open(struct worker *w, int fdi, struct rng *r);
int device_open(struct worker *w, int fdi, int space, struct rng *r, int valid);
int pick_fd(struct worker *w, struct rng *r, int space);
int surf_live(struct worker *w, const struct surf *s);
uint64_t surf_bytes(struct worker *w);
void gem_close(struct worker *w, int fdi, uint32_t h);
void surf_add(struct worker *w, struct rng *r, int fdi, uint32_t h,
		     uint64_t size, uint64_t off);
struct surf *pick_surf(struct worker *w, struct rng *r, int fdi);
int prog_live(struct worker *w, const struct prog *p);
int program_prepare(struct worker *w, struct prog *p, struct rng *r);
struct prog *pick_prog(struct worker *w, struct rng *r, int prepared);
void xfd_add(struct worker *w, struct rng *r, int fd);
int pick_xfd(struct worker *w, struct rng *r);
struct sobj *pick_sobj(struct worker *w, struct rng *r, int fdi);
int pick_mode(struct rng *r);
void fill_random(struct rng *r, void *p, size_t n);
void corrupt(struct rng *r, void *p, size_t n);
void *bad_ptr(struct worker *w, struct rng *r, size_t size);
void guard_ptrs(void *a, const void *valid, const size_t *offs, int n);
int op_selector(struct worker *w, struct rng *r, int s);
int op_wrong_size(struct worker *w, struct rng *r);
int op_surface_create(struct worker *w, struct rng *r);
int op_dma(struct worker *w, struct rng *r);
int op_get_fault(struct worker *w, struct rng *r);
int op_method(struct worker *w, struct rng *r);
int op_prog_share(struct worker *w, struct rng *r);
int op_caps_drop(struct worker *w, struct rng *r);
int op_method_buf(struct worker *w, struct rng *r);
int op_drm(struct worker *w, struct rng *r, int subset);
int op_raw(struct worker *w, struct rng *r);
int op_mmap(struct worker *w, struct rng *r);
int op_munmap(struct worker *w, struct rng *r);
int op_touch(struct worker *w, struct rng *r);
int op_open(struct worker *w, struct rng *r);
int op_close(struct worker *w, struct rng *r);
int op_dup(struct worker *w, struct rng *r);
int op_share(struct worker *w, struct rng *r);
int op_read(struct worker *w, struct rng *r);
int op_run(struct worker *w, struct rng *r);
int op_fdinfo(struct worker *w, struct rng *r);
int op_sysfs(struct worker *w, struct rng *r);
int inject_write(const char *path, const char *s);
void node_path(int node, char *buf, size_t len);
void node_set(int node, const char *path);
int op_inject(struct worker *w, struct rng *r);
void knobs_save(void);
void knobs_restore(void);
int run_op(struct worker *w, int op, uint64_t seed);
void set_oom_adj(const char *v);
void proc_main(int base, int n, int drop);
int parse_args(int argc, char **argv);

#endif /* ANE_FUZZ_H */
