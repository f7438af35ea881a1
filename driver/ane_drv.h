/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_DRV_H__
#define __ANE_DRV_H__

#include <linux/atomic.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "firmware/spec/ane_regs.h"

#define ANE_DRIVER_NAME		"ane"
#define ANE_DRIVER_DESC		"Emulated Apple Neural Engine"
#define ANE_DRIVER_MAJOR	0
#define ANE_DRIVER_MINOR	1
#define ANE_DRIVER_PATCHLEVEL	0
/* MODULE_VERSION: the release, as dkms.conf and libane.pc name it. */
#define ANE_VERSION_STRING	"0.1.0"

/*
 * Device properties of Table 27.9, published in sysfs and reported by the
 * selectors.  They describe the M1 (H13G) engine that is emulated.
 */
#define ANE_PROP_ARCHITECTURE	"h13g"
#define ANE_PROP_VERSION	0x60
#define ANE_PROP_MINOR_VERSION	17
#define ANE_PROP_BOARD_TYPE	0x60
#define ANE_PROP_BOARD_SUBTYPE	0
#define ANE_PROP_NUM_CORES	16
#define ANE_PROP_NUM_ENGINES	1
#define ANE_PROP_CPU_SUBTYPE	4
#define ANE_PROP_INTERNAL_BUILD	false

struct ane_account;
struct ane_dart;
struct ane_dart_ctx;
struct ane_host;
struct ane_platform_data;
struct device;
struct dma_buf_attachment;
struct regmap;
struct sg_table;

/**
 * struct ane_events - the firmware events of a device (ane_event.c)
 * @slots: the event slots a request's wait records use.
 * @value: the last value handed out with a slot: each wait waits for a
 *	value above every earlier one.
 * @shared_lock: protects @shared_owner and @shared_rung.
 * @shared_owner: the client whose shared event is active, or NULL.
 * @shared_rung: rings of the active shared event since its activation.
 * @held: requests of the device with wait records, not yet completed
 *	(at most %ANE_DEV_MAX_WAITING).
 */
struct ane_events {
	struct ida slots;
	atomic64_t value;
	struct mutex shared_lock;	/* shared_owner, shared_rung */
	struct ane_file *shared_owner;
	u64 shared_rung;
	atomic_t held;
};

/**
 * struct ane_device - one emulated engine
 * @drm: the DRM device; its lifetime bounds this structure.
 * @pdev: the platform device the engine is bound to.
 * @token_key: per-device key mixed into session tokens.
 * @token_seq: source of session token uniqueness.
 * @fw_state: &enum drm_ane_fw_state of the engine's firmware.
 * @open_clients: clients between DeviceOpen and DeviceClose.
 * @dart: the DART (ane_dart.c); lives as long as @drm.
 * @regs: one regmap per register bank (&enum ane_hw_bank), from the
 *	platform data; lives as long as @drm (the DART's contexts outlive
 *	the binding), used for the hardware only while bound.
 * @boot_addr: the controller's boot address, from the platform data.
 * @host_irq: the "host" interrupt line.
 * @fence_lock: the lock of every request fence.
 * @fence_ctx: the fence context of requests.
 * @fence_seq: the last request sequence number (the fence seqno).
 * @fwh: the firmware's host side (ane_host.c); lives as long as @drm,
 *	the controller it drives only while the device is bound.
 * @mem_charged: bytes charged by every client of the device (surfaces,
 *	program images and their intermediate buffers), bounded by the
 *	``mem_device_mb`` limit (ane_quota.c).
 * @mem_refused: charges refused by a limit, for debugfs.
 * @engine_ns: engine time of every completed request of the device
 *	(sysfs busy_time_us).
 * @pm_lock: protects @pm_gating_off and @pm_saved_delay (the power
 *	methods that set the device's policy).
 * @pm_gating_off: SetDynamicPowerGating(0) is in force.
 * @pm_saved_delay: the autosuspend delay it replaced, restored by
 *	SetDynamicPowerGating(1).
 * @dart_ttl_ms: SetDARTCacheTTL: how long an idle cached request mapping
 *	stays mapped, in ms (0: until its handle is closed).
 * @events: wait-event slots and the shared event (ane_event.c).
 */
struct ane_device {
	struct drm_device drm;
	struct platform_device *pdev;
	u64 token_key;
	atomic64_t token_seq;
	atomic_t fw_state;
	atomic_t open_clients;
	struct ane_dart *dart;
	struct regmap *regs[ANE_NUM_BANKS];
	u64 boot_addr;
	int host_irq;
	spinlock_t fence_lock;		/* request fences */
	u64 fence_ctx;
	atomic64_t fence_seq;
	/* firmware host side (ane_host.c) */
	struct ane_host *fwh;
	atomic64_t mem_charged;
	atomic64_t mem_refused;
	atomic64_t engine_ns;
	struct mutex pm_lock;		/* pm_gating_off, pm_saved_delay */
	bool pm_gating_off;
	int pm_saved_delay;
	u32 dart_ttl_ms;
	struct ane_events events;
};

#define to_ane_device(d) container_of_const(d, struct ane_device, drm)

/**
 * enum ane_client_state - life of a client (one open file)
 * @ANE_CLIENT_NEW: opened, no DeviceOpen yet.
 * @ANE_CLIENT_OPEN: DeviceOpen succeeded; the client has a space.
 * @ANE_CLIENT_CLOSED: DeviceClose ran; every selector is refused.
 */
enum ane_client_state {
	ANE_CLIENT_NEW,
	ANE_CLIENT_OPEN,
	ANE_CLIENT_CLOSED,
};

/**
 * enum ane_space - the two selector spaces of ch. 27
 * @ANE_SPACE_CONTROL: H11ANEInUserClient, 17 selectors.
 * @ANE_SPACE_DIRECT: H11ANEInDirectPathClient, 9 selectors.
 */
enum ane_space {
	ANE_SPACE_CONTROL,
	ANE_SPACE_DIRECT,
};

/**
 * struct ane_file - per-file state: one user client
 * @adev: the device.
 * @state_lock: protects @state, @space and @token.  Every selector holds
 *	it for reading from admission to return; DeviceOpen and DeviceClose
 *	hold it for writing, so a transition never races a running selector.
 * @state: &enum ane_client_state.
 * @space: &enum ane_space, valid once @state is not %ANE_CLIENT_NEW.
 * @token: session token returned by DeviceOpen.
 * @caps: the capability set (ANE_CAP_* bits), fixed at open from the
 *	opener's credentials and the policy (ane_caps.c); bits are only ever
 *	removed (atomically, by DRM_IOCTL_ANE_CAPS_DROP), never added.
 * @submitted: requests submitted by this client.
 * @completed: requests of this client that completed.
 * @engine_ns: engine time of its completed requests (fdinfo).
 * @drm_file: the DRM file, for GEM handle lookups.
 * @ctx_lock: protects @ctx (created on first use) and @umaps.
 * @ctx: the client's DART isolation context, or NULL.
 * @umaps: the client's MemoryMapRequest mappings.
 * @ref: the file's reference and one per request in flight; the last
 *	one frees the client, so closing never waits for running work.
 * @prog_lock: protects @programs and the programs' state.
 * @programs: the client's programs and instances.
 * @smap_lock: protects @smaps and @smaps_closed.  Nests inside @prog_lock
 *	and outside the DART context's lock.
 * @smaps: the surfaces' cached request mappings (&struct ane_smap), most
 *	recently used first.
 * @smaps_closed: entries of @smaps whose handle was closed while a
 *	request still used them, unmapped once idle.
 * @hint_rate: the client's SessionHint of its expected runs per second.
 * @hint_burst_us: its SessionHint of a burst, in microseconds.
 * @hint_lock: protects @hint_held, @hint_until and @hint_closed.
 * @hint_held: the hint hold has a runtime PM usage reference (ane_hint.c).
 * @hint_until: when the hint hold ends (jiffies).
 * @hint_closed: the file is closing: no hold starts any more.
 * @hint_timer: ends the hint hold at @hint_until.
 * @wait_lock: protects @waits.
 * @waits: the client's requests with wait events not yet released,
 *	cancelled when the file closes (ane_request.c).
 * @held: the client's requests with wait records, not yet completed
 *	(at most %ANE_FILE_MAX_WAITING, so that no client takes the
 *	device's %ANE_DEV_MAX_WAITING alone).
 * @acct: what the client has charged against its memory limit, made on
 *	its first charge (set once, with cmpxchg); a reference of the file's,
 *	dropped when the client is freed.  What it charged stays charged
 *	until those surfaces and images are freed (ane_quota.c).
 * @power_lock: protects @power_hold and @persistent.
 * @power_hold: PowerOn holds the engine up for this file (a runtime PM
 *	usage reference, dropped by PowerOff or when the file closes).
 * @persistent: AddPersistentClient holds it up likewise.
 */
struct ane_file {
	struct ane_device *adev;
	struct rw_semaphore state_lock;
	enum ane_client_state state;
	enum ane_space space;
	u64 token;
	atomic_t caps;
	atomic64_t submitted;
	atomic64_t completed;
	atomic64_t engine_ns;
	struct drm_file *drm_file;
	struct mutex ctx_lock;		/* ctx, umaps */
	struct ane_dart_ctx *ctx;
	struct list_head umaps;
	struct kref ref;
	struct mutex prog_lock;		/* programs */
	struct list_head programs;
	struct mutex smap_lock;		/* smaps */
	struct list_head smaps;
	u32 smaps_closed;
	struct ane_account *acct;
	struct mutex power_lock;	/* power_hold, persistent */
	bool power_hold;
	bool persistent;
	atomic64_t hint_rate;
	atomic64_t hint_burst_us;
	spinlock_t hint_lock;		/* hint_held, hint_until, hint_closed */
	bool hint_held;
	bool hint_closed;
	unsigned long hint_until;
	struct timer_list hint_timer;
	spinlock_t wait_lock;		/* waits */
	struct list_head waits;
	atomic_t held;
};

extern const struct attribute_group *ane_sysfs_groups[];
extern struct workqueue_struct *ane_wq;

/* ane_drv.c */
int ane_regmaps_init(struct device *dev, const struct ane_platform_data *pd,
		     struct regmap **regs);
void ane_regmaps_exit(struct regmap **regs);

/* ane_client.c */
u64 ane_new_token(struct ane_device *adev);
void ane_file_get(struct ane_file *af);
void ane_file_put(struct ane_file *af);

/* ane_hint.c */
void ane_hint_file_init(struct ane_file *af);
void ane_hint_file_fini(struct ane_file *af);
u64 ane_hint_rate_hold_us(u64 rate);
void ane_hint_run_started(struct ane_file *af);

/* ane_quota.c */
u64 ane_file_charged(struct ane_file *af);
void ane_account_put(struct ane_account *acct);
void ane_quota_debugfs_init(struct ane_device *adev);

/* ane_program.c */
void ane_file_programs_fini(struct ane_file *af);

/* ane_request.c */
void ane_request_file_fini(struct ane_file *af);
void ane_requests_drain(void);
int ane_request_pool_get(struct ane_dart_ctx *ctx);
void ane_request_pool_put(struct ane_dart_ctx *ctx);

/* The module's init and exit call these (driver/ane_module.c). */
int ane_driver_init(void);
void ane_driver_exit(void);

/* ane_map.c: client mappings and the driver's DART ioctls. */
struct ane_dart_ctx *ane_file_ctx(struct ane_file *af);
void ane_file_unmap_all(struct ane_file *af);
u32 ane_file_dart_faults(struct ane_file *af);
int ane_gem_create_ioctl(struct drm_device *dev, void *data,
			 struct drm_file *file);
struct ane_dart_mapping *ane_file_surface_map(struct ane_file *af,
					      struct drm_gem_object *obj,
					      u32 usage, u8 prot);
void ane_file_surface_close(struct ane_file *af, struct drm_gem_object *obj);
void ane_file_surfaces_reap(struct ane_file *af);
void ane_file_surfaces_fini(struct ane_file *af);
int ane_dma_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int ane_get_fault_ioctl(struct drm_device *dev, void *data,
			struct drm_file *file);

/* ane_method.c: the methods of Table 27.5. */
int ane_method_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
void ane_method_file_fini(struct ane_file *af);
int ane_method_buf_ioctl(struct drm_device *dev, void *data,
			 struct drm_file *file);

/* ane_map.c: the DART methods' view of a client's mappings. */
u32 ane_file_flush_inactive(struct ane_file *af);
u32 ane_file_unmap_buffers(struct ane_file *af);
void ane_file_map_counts(struct ane_file *af, u32 *umaps, u32 *smaps);

/* ane_diag.c: the diagnostics methods and their debugfs files. */
int ane_diag_method(struct ane_file *af, u32 method, void __user *ptr,
		    u32 size, u32 *count, u32 *total, u32 *len);
void ane_diag_debugfs_init(struct ane_device *adev);
struct drm_gem_object *
ane_gem_import_sg_table(struct drm_device *dev, struct dma_buf_attachment *attach,
			struct sg_table *sgt);

#define ane_dbg(adev, fmt, ...) drm_dbg_driver(&(adev)->drm, fmt, ##__VA_ARGS__)
#define ane_err(adev, fmt, ...) drm_err(&(adev)->drm, fmt, ##__VA_ARGS__)

#endif /* __ANE_DRV_H__ */
