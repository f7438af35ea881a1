/* SPDX-License-Identifier: MIT */
/*
 * aned: what its files share -- the options, the connections, models,
 * control files and requests, the daemon's state, and the functions one
 * file calls in another.
 *
 *   aned.c          options, logging, QoS, admission, the D-Bus vtable,
 *                   connections, SIGHUP, main
 *   aned_model.c    models and the cache: Load, LoadFd, eviction,
 *                   unwiring, control files
 *   aned_eval.c     Evaluate: surface sets, requests, the pump, ticks,
 *                   idle power saving
 *   aned_methods.c  Unload, Share, Adopt, Instantiate, HandOff, Purge,
 *                   Diagnostics
 *   aned_compile.c  the compiler service: Compile in a child process
 *   aned_policy.c   the policy file
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef ANED_H
#define ANED_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "libane.h"
#include "aned_policy.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD		77
#endif

#define _cleanup_(f)		__attribute__((cleanup(f)))
#define BROKER_PATH		"/org/ane/Broker"
#define BROKER_IFACE		"org.ane.Broker1"

/* Programs the daemon puts on one control file (the kernel allows 64). */
#define PROGS_PER_CTL		60
#define PAGE16K			16384ull
#define EVAL_TIMEOUT_NS		10000000000ull
/* While requests are in flight or waiting, the loop also wakes this often. */
#define TICK_US			50000ull
#define MAX_COMPILES		4

#define LOAD_POWER		(ANE_BROKER_LOAD_AGGRESSIVE_POWER | ANE_BROKER_LOAD_POWER_SAVING)
#define LOAD_FLAGS		(LOAD_POWER | ANE_BROKER_LOAD_NO_UNWIRE | ANE_BROKER_DEPTH_MASK)

/*
 * The policy aned reads without --policy: the administrator's file, else
 * the default `make install` puts in DATADIR (ANED_VENDOR_POLICY, from
 * the Makefile: build/tools/aned_paths.h).
 */
#define ANED_ETC_POLICY		"/etc/aned/policy.conf"

/*
 * Exit statuses aned.service does not restart on (RestartPreventExitStatus):
 * a usage error (2) and a configuration error (78, EX_CONFIG: a policy
 * that cannot be read), which a restart would only repeat.
 */
#define ANED_EXIT_USAGE		2
#define ANED_EXIT_CONFIG	78

struct aned_opts {
	const char *socket;
	const char *policy;	/* --policy, or NULL: ANED_ETC_POLICY, else the default */
	const char *node;
	uint64_t cache_bytes;
	uint64_t max_image;
	unsigned int max_clients;
	uint64_t idle_us;
	uint64_t compile_timeout_us;
	int foreground;
};

/* A control file of the daemon's, holding up to PROGS_PER_CTL programs. */
struct ctl {
	struct ane_dev *dev;
	unsigned int progs;
	sd_event_source *src;		/* its completion events */
	struct ctl *next;
};

/* One evaluation's input and output surfaces, kept by its model. */
struct ioset {
	struct ane_surface *s[2 * ANE_IMG_MAX_IO];
	uint64_t bytes;			/* counted against --cache-mb */
	int made, busy;
};

/* An Evaluate: waiting for a surface set, then in flight. */
struct job {
	struct job *next;
	sd_bus_message *msg;		/* NULL once answered (timed out) */
	struct model *m;		/* holds a reference */
	int set;			/* -1 while waiting */
	const void *in[ANE_IMG_MAX_IO];	/* into @msg */
	uint32_t qos;
	uint64_t seqno, deadline;
};

/* A loaded program (a cached image) or an instance (an adapter). */
struct model {
	uint64_t id;
	struct model *next;
	struct ctl *ctl;
	struct ane_program *prog;
	struct model *base;		/* instances: the base model */
	struct ane_surface *weights;	/* instances: their weights */
	uint8_t *image;			/* loaded: the copy the cache compares */
	size_t size;
	uint64_t hash;
	uint32_t partition;		/* cache partition: 0, or uid + 1 */
	uint32_t priority;
	uint32_t flags;
	int prepared;
	unsigned int refs;		/* client references + instances */
	uint64_t last_use;		/* LRU clock */
	uint64_t bytes;			/* counted against --cache-mb */
	unsigned int n_in, n_out;
	uint64_t in_size[ANE_IMG_MAX_IO], out_size[ANE_IMG_MAX_IO];
	uint64_t weights_size;
	uint64_t share_cookie;		/* 0: not shared */
	uid_t share_uid;
	/*
	 * Up to @depth surface sets, one an evaluation in flight, made on
	 * demand and kept (charged to the cache) until unwired or unloaded.
	 */
	struct ioset sets[ANE_BROKER_DEPTH_MAX];
	unsigned int depth;		/* asked */
	unsigned int eff_depth;		/* lowered under contention */
	unsigned int inflight;		/* this program's requests */
	unsigned int base_inflight;	/* a base: its own and its instances' */
	struct job *waitq, **waitq_tail;
	sd_event_source *idle_src;	/* power saving: unprepare when idle */
};

#define MAX_REFS	64

struct client {
	sd_bus *bus;
	struct client *next;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int pidfd;
	struct aned_rule rule;
	unsigned int policy_gen;	/* the policy @rule came from */
	gid_t groups[64];
	int n_groups;
	uint64_t models[MAX_REFS];	/* ids this connection holds (0: free) */
	unsigned int n_models;
	int dead;
};

struct aned_stats {
	uint64_t loads, hits, evictions, evaluations, refused, unwired, depth_lowered,
		 idle_unprepares, compiles, reloads;
};

struct net_rec {
	uint32_t op;
	uint32_t args[ANE_BROKER_NET_MAX_ARGS];
	const float *data;		/* into the message */
	size_t n_data;
};

/* A Compile running in a child process. */
struct compile {
	struct compile *next;
	sd_bus_message *msg;		/* NULL once answered (timed out) */
	struct client *c;		/* NULL once the connection went */
	pid_t pid;
	int memfd;
	uint32_t qos, flags;
	const char *what;		/* "Compile" or "CompileOnnx" */
	sd_event_source *child_src, *timer_src;
};

/* ------------------------------------------------------------ state */

extern struct aned_opts opt;
extern sd_event *event;
extern struct job *inflight_jobs;
extern sd_event_source *tick_src;
extern unsigned int n_compiles;
extern struct ctl *ctls;
extern struct model *models;
extern unsigned int n_clients;
extern uint64_t next_model_id;
extern uint64_t lru_clock;
extern uint64_t cache_used;
extern struct aned_stats stats;
extern struct compile *compiles;

/* ------------------------------------------------------------ functions */

void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint32_t qos_priority(uint32_t qos);
void qos_request(uint32_t qos, uint32_t *queue, uint32_t *exec);
/* ------------------------------------------------------------ admission */

int deny(sd_bus_error *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int admit(struct client *c, unsigned int ent, const char *method,
	  sd_bus_error *err);
int check_qos(struct client *c, uint32_t qos, const char *method,
	      sd_bus_error *err);
void usage(FILE *f);
struct model *model_find(uint64_t id);
struct model *client_model(struct client *c, uint64_t id, const char *method,
			   sd_bus_error *err);
int client_add_ref(struct client *c, struct model *m, sd_bus_error *err,
		   const char *method);
void set_free(struct model *m, unsigned int k);
void model_put(struct model *m);
int cache_unwire(uint64_t need, struct model *self, int keep);
unsigned int cache_evict(uint64_t need, int all, uint32_t partition);
struct ctl *ctl_get(sd_bus_error *err);
uint64_t round16k(uint64_t v);
int check_flags(struct client *c, uint32_t flags, uint32_t allowed,
		const char *method, unsigned int *depth, sd_bus_error *err);
int do_load(struct client *c, uint8_t *img, size_t size, uint32_t qos,
	    uint32_t flags, uint64_t *id, sd_bus_error *err);
int m_load(sd_bus_message *msg, void *ud, sd_bus_error *err);
int m_load_fd(sd_bus_message *msg, void *ud, sd_bus_error *err);
int model_prepare(struct model *m, sd_bus_error *err, const char *method);
uint64_t now_us(void);
void tick_arm(void);
/* Answer @msg with errno @e (the message as deny()'s). */
void reply_errno(sd_bus_message *msg, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void job_free(struct job *j);
void power_idle(struct model *b);
void pump_all(void);
int on_ctl(sd_event_source *s, int fd, uint32_t revents, void *ud);
int on_tick(sd_event_source *s, uint64_t usec, void *ud);
void idle_arm(struct model *b);
int m_evaluate(sd_bus_message *msg, void *ud, sd_bus_error *err);
void client_drop(struct client *c, unsigned int slot);
int m_unload(sd_bus_message *msg, void *ud, sd_bus_error *err);
int m_share(sd_bus_message *msg, void *ud, sd_bus_error *err);
int m_adopt(sd_bus_message *msg, void *ud, sd_bus_error *err);
int m_instantiate(sd_bus_message *msg, void *ud, sd_bus_error *err);
int m_handoff(sd_bus_message *msg, void *ud, sd_bus_error *err);
int m_purge(sd_bus_message *msg, void *ud, sd_bus_error *err);
int m_diagnostics(sd_bus_message *msg, void *ud, sd_bus_error *err);
void compile_free(struct compile *cp);
int m_compile(sd_bus_message *msg, void *ud, sd_bus_error *err);
int m_compile_onnx(sd_bus_message *msg, void *ud, sd_bus_error *err);

#endif /* ANED_H */
