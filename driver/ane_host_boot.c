// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware's boot, host side (ch. 29): the boot arguments, the reset
 * vector, the three-step handshake through the scratch registers (with
 * power cycles for a controller that never publishes its channel table),
 * the channel table resolved into rings, and the boot commands in the
 * seed's order.  A boot ends by loading the resident programs again
 * (ane_host_resident.c); the boot log kept here is shown in debugfs.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/device.h>
#include <linux/iopoll.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/sprintf.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "ane_event.h"
#include "ane_host.h"
#include "ane_host_internal.h"
#include "ane_host_msg.h"

/*
 * The firmware's idle poll (&ane_fw_boot_args.idle_poll_us), taken at each
 * boot: after its last work the firmware thread watches for the next
 * doorbell this long before it sleeps, trading that CPU time for the
 * wake-up a back-to-back request would otherwise pay.
 */
static unsigned int ane_host_idle_poll_us = 100;

/* Longer than a tick of spinning is never worth it: refused. */
#define ANE_FW_IDLE_POLL_MAX_US	1000

ANE_HOST_PARAM_UINT_RANGE(fw_idle_poll_us, ane_host_idle_poll_us, 0,
			  ANE_FW_IDLE_POLL_MAX_US, 0644);
MODULE_PARM_DESC(fw_idle_poll_us,
		 "microseconds (0..1000) the idle firmware watches for a doorbell before it sleeps (0: sleeps at once; read at each firmware boot)");

/*
 * The firmware's software deadline (%ANE_FW_PROP_DEADLINE_MS), written at
 * each boot: a request still running this long after its queue started
 * is aborted with -ETIMEDOUT.  Two seconds is far beyond any program the
 * hardware runs; an engine emulated under an instruction-set emulator
 * (QEMU's TCG) is some fifty times slower and may need more.
 */
static unsigned int ane_host_deadline_ms = ANE_FW_DEADLINE_DEFAULT_MS;

ANE_HOST_PARAM_UINT_RANGE(fw_deadline_ms, ane_host_deadline_ms, 10,
			  ANE_FW_DEADLINE_MAX_MS, 0644);
MODULE_PARM_DESC(fw_deadline_ms,
		 "ms (10..600000) a request may run on the engine before the firmware aborts it with -ETIMEDOUT (default 2000; read at each firmware boot)");

/**
 * ane_host_bootlog() - one line of the boot log (debugfs ``boot_log``)
 * @h: the host side.
 * @fmt: printf format, then its arguments.
 */
void ane_host_bootlog(struct ane_host *h, const char *fmt, ...)
{
	char *line;
	va_list ap;
	u64 us = ktime_to_us(ktime_get());

	spin_lock_irq(&h->lock);
	line = h->bootlog[h->bootlog_n++ % ANE_HOST_BOOTLOG];
	spin_unlock_irq(&h->lock);
	va_start(ap, fmt);
	scnprintf(line, 16, "%5llu.%06llu ", us / USEC_PER_SEC,
		  us % USEC_PER_SEC);
	vscnprintf(line + strlen(line), 80 - strlen(line), fmt, ap);
	va_end(ap);
	dev_dbg(h->dev, "fw boot: %s\n", line);
}

static int ane_host_wait_scratch(struct ane_host *h, u32 n, u32 want,
				 unsigned int timeout_ms, u32 *got)
{
	u32 v;
	int ret;

	/* the second wake implies the first: the firmware wakes in order */
	if (want == ANE_FW_BOOT_ALIVE) {
		ret = read_poll_timeout(ane_rd, v, v == ANE_FW_BOOT_ALIVE ||
					v == ANE_FW_BOOT_CHANNELS ||
					(v & 0xffff0000) == ANE_FW_BOOT_FAILED,
					20, timeout_ms * USEC_PER_MSEC, false,
					h, ANE_REG_SCRATCH(n));
		*got = v;
		if (!ret && (v & 0xffff0000) == ANE_FW_BOOT_FAILED)
			return -EIO;
		return ret;
	}
	ret = read_poll_timeout(ane_rd, v, v == want ||
				(v & 0xffff0000) == ANE_FW_BOOT_FAILED,
				20, timeout_ms * USEC_PER_MSEC, false, h,
				ANE_REG_SCRATCH(n));
	*got = v;
	if (!ret && v != want)
		return -EIO;
	return ret;
}

static void ane_host_power_cycle(struct ane_host *h)
{
	ane_wr(h, ANE_REG_CPU_CTRL, 0);
	regmap_write(h->regs[ANE_BANK_PWGATE], 0, 0);
	regmap_write(h->regs[ANE_BANK_PS], 0, 0);
	regmap_write(h->regs[ANE_BANK_PS], 0, 1);
	regmap_write(h->regs[ANE_BANK_PWGATE], 0, 1);
}

/* Walk the published table; resolve the eight channels. */
static int ane_host_resolve(struct ane_host *h)
{
	const struct ane_fw_channel_table *t;
	u64 iova;
	int ch;

	iova = (u64)ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_CHTBL_HI)) << 32 |
	       ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_CHTBL_LO));
	t = ane_host_va(h, iova, sizeof(*t));
	if (!t || t->magic != ANE_FW_CHTBL_MAGIC ||
	    t->count != ANE_FW_NUM_CHANNELS)
		return -EPROTO;
	if (t->abi_version >> 16 != ANE_FW_ABI_MAJOR)
		return -EPROTO;
	if ((t->abi_version & 0xffff) != ANE_FW_ABI_MINOR)
		dev_warn(h->dev, "firmware protocol %u.%u, driver %u.%u\n",
			 t->abi_version >> 16, t->abi_version & 0xffff,
			 ANE_FW_ABI_MAJOR, ANE_FW_ABI_MINOR);
	if (t->chip_rev != ane_rd(h, ANE_REG_CHIP_REV))
		return -EPROTO;

	for (ch = 0; ch < ANE_FW_NUM_CHANNELS; ch++) {
		const struct ane_fw_channel_desc *d = &t->chan[ch];
		struct ane_host_ring *r = &h->ring[ch];
		void *va;

		if (strncmp(d->name, ane_host_chan_names[ch], sizeof(d->name)) ||
		    d->direction != ane_host_chan_dir[ch])
			return -EPROTO;
		va = ane_host_va(h, d->iova, d->size);
		if (!va)
			return -EPROTO;
		*r = (struct ane_host_ring){ .dir = d->direction };
		if (d->direction == ANE_FW_CHAN_MEM) {
			ane_host_bootlog(h, "channel %-14s mem %llu bytes", d->name,
					 d->size);
			continue;
		}
		if (d->version != ANE_FW_RING_VERSION ||
		    !is_power_of_2(d->nslots) ||
		    d->slot_size < sizeof(struct ane_fw_cmd_hdr) ||
		    d->size < sizeof(struct ane_fw_ring_hdr) +
			      (u64)d->slot_size * d->nslots)
			return -EPROTO;
		r->hdr = va;
		if (r->hdr->version != ANE_FW_RING_VERSION ||
		    r->hdr->nslots != d->nslots)
			return -EPROTO;
		r->slots = (u8 *)va + sizeof(struct ane_fw_ring_hdr);
		r->slot_size = d->slot_size;
		r->nslots = d->nslots;
		r->idx = 0;
		r->ok = true;
		ane_host_bootlog(h, "channel %-14s %s %u x %u", d->name,
				 d->direction == ANE_FW_CHAN_H2T ? "H2T" : "T2H",
				 d->nslots, d->slot_size);
	}
	return 0;
}

/* Log one boot command and its result. */
static int ane_host_boot_cmd(struct ane_host *h, const char *name, u32 id,
			     int ret)
{
	ane_host_bootlog(h, "cmd %-22s %#04x: %d", name, id, ret);
	return ret;
}

/* The first commands, in the seed's order.  The boot holds the gate. */
static int ane_host_boot_cmds(struct ane_host *h)
{
	u32 shared;
	int ret;

	ret = ane_host_boot_cmd(h, "print-enable", ANE_CTL_PRINT_ENABLE,
				ane_host_msg_print_enable(h, true));
	if (ret)
		return ret;
	ret = ane_host_boot_cmd(h, "start", ANE_CTL_START, ane_host_msg_start(h));
	if (ret)
		return ret;
	ret = ane_host_boot_cmd(h, "endpoint-set", ANE_CTL_IPC_ENDPOINT_SET,
				ane_host_msg_endpoint_set(h, ANE_FW_ENDPOINT_ID,
							  ANE_FW_ENDPOINT_DATA_CHAINING));
	if (ret)
		return ret;
	ret = ane_host_boot_cmd(h, "pmu-base", ANE_CTL_PMU_BASE_SET,
				ane_host_msg_pmu_base(h, 0x28e08c000ull));
	if (ret)
		return ret;
	ret = ane_host_boot_cmd(h, "time-sync", ANE_CTL_TIME_SYNC,
				ane_host_msg_time_sync(h, ktime_get_ns()));
	if (ret)
		return ret;
	ret = ane_host_boot_cmd(h, "channel-property-write",
				ANE_CTL_CH_PROPERTY_WRITE,
				ane_host_msg_ch_property_write(h, false,
							       ANE_FW_PROP_DEADLINE_MS,
							       READ_ONCE(ane_host_deadline_ms)));
	if (ret)
		return ret;
	ret = ane_host_boot_cmd(h, "resource-info", ANE_CTL_RESOURCE_INFO_GET,
				ane_host_msg_resource_info_get(h, &h->res));
	if (ret)
		return ret;
	ret = ane_host_boot_cmd(h, "default-settings",
				ANE_CTL_DEFAULT_SETTINGS_SET,
				ane_host_msg_default_settings(h, 100));
	if (ret)
		return ret;
	ret = ane_host_boot_cmd(h, "mcache-power-on", ANE_CTL_MCACHE_POWER_ON,
				ane_host_msg_mcache_power_on(h));
	if (ret)
		return ret;
	/* the shared event a client has active stays active */
	shared = ane_host_shared_events(h);
	ret = ane_host_boot_cmd(h, "shared-event-init", ANE_CTL_SHARED_EVENT_INIT,
				ane_host_msg_shared_event_init(h, shared));
	if (ret)
		return ret;
	ane_host_bootlog(h, "resources: engines %u cache-requests %u inputs %u procedures %u",
			 h->res.num_engines, h->res.max_cache_requests,
			 h->res.max_cache_inputs, h->res.max_procedures);
	return 0;
}

/* Step 1: the controller in reset, a fresh channel and boot args, released. */
static void ane_host_boot_release(struct ane_host *h, bool warm)
{
	struct ane_fw_boot_args *args = h->shared_va;

	/* hold the controller in reset while the channel is reset */
	ane_wr(h, ANE_REG_CPU_CTRL, 0);
	/* reset the channel: fresh shared memory and boot args */
	memset(h->shared_va, 0, h->shared_size);
	*args = (struct ane_fw_boot_args){
		.magic = ANE_FW_ARGS_MAGIC,
		.abi_version = ANE_FW_ABI_VERSION,
		.chip_rev = ane_rd(h, ANE_REG_CHIP_REV),
		.boot_count = h->boots,
		.shared_iova = h->shared_iova,
		.shared_size = h->shared_size,
		.heap_iova = h->heap_iova,
		.heap_size = h->heap_size,
		.fw_reservation = 64 * 1024,
		.idle_poll_us = READ_ONCE(ane_host_idle_poll_us),
		.doorbell = {
			{ ANE_REG_HOST_IRQ, ANE_HOST_IRQ_IO_T2H },
			{ ANE_REG_HOST_IRQ, ANE_HOST_IRQ_T2H |
			  ANE_HOST_IRQ_BOOT | ANE_HOST_IRQ_CRASH },
			{ ANE_REG_HOST_IRQ, ANE_HOST_IRQ_DEBUG |
			  ANE_HOST_IRQ_TERMINAL },
		},
	};
	if (h->stall_boots) {
		h->stall_boots--;
		args->flags |= ANE_FW_ARGS_STALL_CHTBL;
	}
	ane_wr(h, ANE_REG_HOST_IRQ_MASK, 0);
	ane_wr(h, ANE_REG_HOST_IRQ_CLR, ~0u);
	ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_ARGS_LO),
	       lower_32_bits(h->shared_iova));
	ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_ARGS_HI),
	       upper_32_bits(h->shared_iova));
	ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_ACK), 0);
	ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT),
	       warm ? ANE_FW_BOOT_WARM : ANE_FW_BOOT_COLD);
	ane_wr(h, ANE_REG_RVBAR_LO, lower_32_bits(h->boot_addr));
	ane_wr(h, ANE_REG_RVBAR_HI, upper_32_bits(h->boot_addr));
	ane_host_bootlog(h, "reset vector %#llx, scratch7=%u, release reset",
			 h->boot_addr, warm);
	ane_wr(h, ANE_REG_CPU_CTRL, ANE_CPU_RUN);
}

/*
 * Steps 1 and 2, up to %ANE_HOST_BOOT_RETRIES times: released, the
 * controller alive (handshake 1) and its channel table ready (handshake
 * 2).  A missing second handshake power-cycles the controller and tries
 * again, unless the firmware said it failed.
 */
static int ane_host_boot_handshakes(struct ane_host *h, bool warm)
{
	u32 v, attempt;
	int ret;

	for (attempt = 0; attempt < ANE_HOST_BOOT_RETRIES; attempt++) {
		ane_host_boot_release(h, warm);
		ret = ane_host_wait_scratch(h, ANE_FW_SCR_BOOT, ANE_FW_BOOT_ALIVE,
					    1000, &v);
		if (ret) {
			ane_host_bootlog(h, "handshake 1 failed: scratch7=%#x err=%u",
					 v, ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_ERROR)));
			return ret;
		}
		ane_host_bootlog(h, "handshake 1: controller alive");
		ret = ane_host_wait_scratch(h, ANE_FW_SCR_BOOT,
					    ANE_FW_BOOT_CHANNELS, 500, &v);
		if (!ret) {
			ane_host_bootlog(h, "handshake 2: channel table ready");
			return 0;
		}
		h->boot_failures++;
		ane_host_bootlog(h, "handshake 2 missing (%#x, err %u): power cycle, failures %u",
				 v, ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_ERROR)),
				 h->boot_failures);
		ane_host_power_cycle(h);
		if ((v & 0xffff0000) == ANE_FW_BOOT_FAILED)
			return ret;
	}
	return -ETIMEDOUT;
}

/* Step 3: the channel table resolved, the firmware's magic (handshake 3). */
static int ane_host_boot_resolve(struct ane_host *h)
{
	u32 v;
	int ret;

	ret = ane_host_resolve(h);
	if (ret) {
		ane_host_bootlog(h, "channel table invalid: %d", ret);
		return ret;
	}
	ane_wr(h, ANE_REG_SCRATCH(ANE_FW_SCR_BOOT), ANE_FW_BOOT_RESOLVED);
	ane_wr(h, ANE_REG_FW_DOORBELL, ANE_FW_DB_BOOT);
	ret = ane_host_wait_scratch(h, ANE_FW_SCR_ACK, ANE_FW_MAGIC1, 1000, &v);
	if (ret) {
		ane_host_bootlog(h, "handshake 3 failed: scratch3=%#x", v);
		return ret;
	}
	ane_host_bootlog(h, "handshake 3: magic %#x, restarts %u", v,
			 ane_rd(h, ANE_REG_SCRATCH(ANE_FW_SCR_RESTARTS)));
	return 0;
}

/**
 * __ane_host_boot() - ANE_Init, then the residents loaded again
 * @h: the host side; the caller holds the gate for writing.
 * @warm: warm boot (after a crash) or cold.
 *
 * On failure the controller is halted, unless a crash interrupt came
 * meanwhile: then it is left for the recovery to pull its dump.  The
 * caller sets the state then.
 *
 * Return: 0 with the firmware READY, or a negative errno.
 */
int __ane_host_boot(struct ane_host *h, bool warm)
{
	bool crashed;
	int ret;

	ane_host_set_state(h, ANE_FW_STATE_BOOTING);
	spin_lock_irq(&h->lock);
	h->accepting = false;
	h->crash_pending = false;	/* the caller collected any crash */
	memset(h->ring, 0, sizeof(h->ring));
	spin_unlock_irq(&h->lock);
	h->boots++;
	ane_host_bootlog(h, "boot %u (%s)", h->boots, warm ? "warm" : "cold");

	ret = ane_host_boot_handshakes(h, warm);
	if (!ret)
		ret = ane_host_boot_resolve(h);
	if (ret)
		goto fail;

	spin_lock_irq(&h->lock);
	h->accepting = true;
	h->dump_done = false;
	spin_unlock_irq(&h->lock);
	ane_wr(h, ANE_REG_HOST_IRQ_MASK, ~0u);	/* enable interrupts */
	ane_host_bootlog(h, "engine controller ready, interrupts on");

	ret = ane_host_boot_cmds(h);
	if (ret)
		goto fail;
	if (h->crash_boots) {
		/* test: this boot dies before it has the programs again */
		h->crash_boots--;
		ane_host_crash_now(h);
	}
	ret = ane_host_restore(h);
	if (ret)
		goto fail;
	ane_host_set_state(h, ANE_FW_STATE_READY);
	ane_host_bootlog(h, "ready");
	return 0;

fail:
	spin_lock_irq(&h->lock);
	h->accepting = false;
	crashed = h->crash_pending;
	spin_unlock_irq(&h->lock);
	if (!crashed)
		ane_wr(h, ANE_REG_CPU_CTRL, 0);
	ane_host_bootlog(h, "boot failed: %d%s", ret,
			 crashed ? " (crashed)" : "");
	dev_err(h->dev, "firmware boot failed: %d%s\n", ret,
		crashed ? " (crashed)" : "");
	return ret;
}

/**
 * ane_host_boot() - ANE_Init: bring the firmware to the ready handshake
 * @h: the host side, CPU in reset; the caller holds the gate for writing
 *	(or nobody else can send yet).
 * @warm: warm boot (after a crash) or cold.
 *
 * The boot ends by loading every resident program again (same slot, same
 * process id), so the clients' prepared programs survive it.
 *
 * Return: 0 with the firmware READY; a negative errno with it halted and
 * the state DEAD.
 */
int ane_host_boot(struct ane_host *h, bool warm)
{
	int ret = __ane_host_boot(h, warm);

	if (ret)
		ane_host_set_state(h, ANE_FW_STATE_DEAD);
	return ret;
}
