/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files of the firmware's host side share and nobody else uses:
 * the core (ane_host.c: rings, send and wait, the host interrupt, the
 * pending requests), the boot (ane_host_boot.c), program residency
 * (ane_host_resident.c), recovery and fault injection (ane_host_recovery.c)
 * and the typed messages (ane_host_msg.c).  The rest of the driver uses
 * ane_host.h and ane_host_msg.h only.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_HOST_INTERNAL_H__
#define __ANE_HOST_INTERNAL_H__

#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/regmap.h>
#include <linux/types.h>

#include <drm/ane_accel.h>

#include "ane_host.h"

struct dentry;

/*
 * A uint module parameter @name, the variable @var, bounded to @min..@max:
 * a write outside the range is refused (param_set_uint_minmax()).  Defines
 * @var's set function and &struct kernel_param_ops beside it.
 */
#define ANE_HOST_PARAM_UINT_RANGE(name, var, min, max, perm)		\
	static int var##_set(const char *val, const struct kernel_param *kp) \
	{								\
		return param_set_uint_minmax(val, kp, min, max);	\
	}								\
	static const struct kernel_param_ops var##_ops = {		\
		.set = var##_set,					\
		.get = param_get_uint,					\
	};								\
	module_param_cb(name, &var##_ops, &(var), perm)

extern const char * const ane_host_chan_names[ANE_FW_NUM_CHANNELS];
extern const u32 ane_host_chan_dir[ANE_FW_NUM_CHANNELS];

/*
 * A register of the engine's own bank.  The bus cannot fail (the offsets
 * are the register map's), so there is no error to pass on.
 */
static inline u32 ane_rd(struct ane_host *h, u32 off)
{
	unsigned int val = 0;

	regmap_read(h->regs[ANE_BANK_ANE], off, &val);
	return val;
}

static inline void ane_wr(struct ane_host *h, u32 off, u32 val)
{
	regmap_write(h->regs[ANE_BANK_ANE], off, val);
}

/* Publish &enum drm_ane_fw_state (GetStatus, debugfs). */
static inline void ane_host_set_state(struct ane_host *h, int state)
{
	atomic_set(h->fw_state, state);
}

/* core: ane_host.c */
void *ane_host_va(struct ane_host *h, u64 iova, u64 size);
struct ane_host_hreq *ane_host_find(struct ane_host *h, u32 src_t2h, u32 id,
				    u32 seq, bool any_id);
void ane_host_hreq_pm_put(struct ane_host_hreq *rq);
void ane_host_hreq_finish(struct ane_host_hreq *rq, int err, s32 fw_status,
			  const void *data, u32 len);
int ane_host_hreq_init(struct ane_host_hreq *rq, u32 chan,
		       const struct ane_fw_cmd_hdr *hdr);
int ane_host_ring_write(struct ane_host *h, struct ane_host_hreq *rq,
			const struct ane_fw_cmd_hdr *hdr, const void *body);
void ane_host_backlog_work(struct work_struct *work);

/* Commands wait on @h's backlog for @chan: later ones queue behind. */
static inline bool ane_host_backlog_waits(struct ane_host *h, u32 chan)
{
	lockdep_assert_held(&h->lock);
	return chan == ANE_FW_CH_IO && h->backlog_len;
}

int __ane_host_send(struct ane_host *h, struct ane_host_hreq *rq,
		    u32 chan, const struct ane_fw_cmd_hdr *hdr,
		    const void *body);
int ane_host_send_wait(struct ane_host *h, bool gated,
		       struct ane_host_hreq *rq, u32 chan,
		       const struct ane_fw_cmd_hdr *hdr, const void *body,
		       unsigned int timeout_ms);
int ane_host_wait(struct ane_host *h, struct ane_host_hreq *rq,
		  unsigned int timeout_ms);
int __ane_host_call_hdr(struct ane_host *h, bool gated, u32 chan,
			const struct ane_fw_cmd_hdr *hdr, const void *body,
			void *out, u32 out_len, unsigned int timeout_ms);
int __ane_host_call(struct ane_host *h, bool gated, u32 chan, u32 id,
		    const void *body, u32 len, void *out, u32 out_len,
		    unsigned int timeout_ms);
void ane_host_cancel_all_locked(struct ane_host *h, int err);
void ane_host_cancel_all(struct ane_host *h, int err);

/* boot: ane_host_boot.c */
void ane_host_pm_idle_again(struct ane_host *h);
__printf(2, 3) void ane_host_bootlog(struct ane_host *h, const char *fmt,
				     ...);
int __ane_host_boot(struct ane_host *h, bool warm);

/* residency: ane_host_resident.c */
bool ane_host_up(struct ane_host *h);
int ane_host_restore(struct ane_host *h);

/* recovery: ane_host_recovery.c */
void ane_host_dump_msg(struct ane_host *h, u32 ch,
		       const struct ane_fw_cmd_hdr *hdr, const u8 *body);
void ane_host_recover(struct work_struct *work);
void ane_host_crash_now(struct ane_host *h);

/* debugfs: ane_host_debugfs.c */
void ane_host_debugfs_init(struct ane_host *h, struct dentry *root);

/* messages: ane_host_msg.c */
void ane_host_msg_dispatch(struct ane_host *h, u32 ch,
			   const struct ane_fw_cmd_hdr *hdr, const u8 *body);

#endif /* __ANE_HOST_INTERNAL_H__ */
