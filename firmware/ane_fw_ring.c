// SPDX-License-Identifier: GPL-2.0-only
/*
 * The firmware side of the wire protocol's transport: the channel table
 * it carves out of the shared region at boot, the rings (reading H2T
 * commands, publishing T2H messages), and the notifications to the host
 * with the outbox that holds them while a ring is full.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/kernel.h>
#include <linux/sprintf.h>
#include <linux/string.h>

#include "hw/ane_cpu.h"
#include "ane_fw.h"

#define ANE_FW_CHTBL_OFFSET	0x1000
#define ANE_FW_SHARED_START	0x2000

/* Ring geometry: slots and slot size per channel (SHAREDMALLOC: memory). */
static const struct {
	const char *name;
	u32 dir;
	u32 slot_size;
	u32 nslots;
	u32 mem_size;
} ane_fw_chan_layout[ANE_FW_NUM_CHANNELS] = {
	[ANE_FW_CH_SHAREDMALLOC] = { "SHAREDMALLOC", ANE_FW_CHAN_MEM, 0, 0,
				     0x8000 },
	[ANE_FW_CH_TERMINAL] = { "TERMINAL", ANE_FW_CHAN_T2H, 128, 64 },
	/* a whole procedure call fits (ANE_FW_PROC_CALL_MAX_BODY) */
	[ANE_FW_CH_BUF_H2T] = { "BUF_H2T", ANE_FW_CHAN_H2T, 2048, 64 },
	[ANE_FW_CH_BUF_T2H] = { "BUF_T2H", ANE_FW_CHAN_T2H, 256, 64 },
	[ANE_FW_CH_IO] = { "IO", ANE_FW_CHAN_H2T, 2560, 64 },
	[ANE_FW_CH_IO_T2H] = { "IO_T2H", ANE_FW_CHAN_T2H, 64, 128 },
	[ANE_FW_CH_DEBUG] = { "DEBUG", ANE_FW_CHAN_T2H, 4096, 16 },
	[ANE_FW_CH_DATA_CHAIN_H2T] = { "DATA_CHAIN_H2T", ANE_FW_CHAN_H2T,
				       512, 32 },
};

/*
 * What a pump waiting for outbox room shows as its blocked_on; compared
 * by address, so there is one definition.
 */
const char *const ane_fw_blocked_t2h = "T2H space";

static u64 ane_fw_slot(struct ane_fw *fw, u32 ch, u32 idx)
{
	struct ane_fw_ring *r = &fw->ring[ch];

	return r->iova + sizeof(struct ane_fw_ring_hdr) +
	       (u64)(idx & (r->nslots - 1)) * r->slot_size;
}

static int ane_fw_ring_read_u32(struct ane_fw *fw, u32 ch, u32 field, u32 *v)
{
	return ane_hw_dma(fw->hw, 0, fw->ring[ch].iova + field, v, 4, false);
}

/**
 * ane_fw_ring_peek() - H2T: the header of the next message, not consumed
 * @fw: the firmware.
 * @ch: the channel.
 * @hdr: filled with the header.
 * @seq: filled with its ring index.
 *
 * A head beyond the ring's slots is a fault (ane_fw_panic()).
 *
 * Return: 0, -ENOENT when the ring is empty or not ready, -EFAULT or
 * -EPROTO.
 */
int ane_fw_ring_peek(struct ane_fw *fw, u32 ch, struct ane_fw_cmd_hdr *hdr,
		     u32 *seq)
{
	struct ane_fw_ring *r = &fw->ring[ch];
	u32 head;

	if (!r->ready)
		return -ENOENT;
	if (r->cached == r->idx) {
		if (ane_fw_ring_read_u32(fw, ch,
					 offsetof(struct ane_fw_ring_hdr, head),
					 &head))
			return -EFAULT;
		r->cached = head;
		if (head == r->idx)
			return -ENOENT;
		if (head - r->idx > r->nslots) {
			ane_fw_panic(fw, ANE_FW_EXC_SYNC,
				     "ring %s: head %u tail %u beyond %u slots",
				     ane_fw_chan_layout[ch].name, head, r->idx,
				     r->nslots);
			return -EPROTO;
		}
	}
	smp_rmb();	/* slot contents after the head that published them */
	*seq = r->idx;
	return ane_hw_dma(fw->hw, 0, ane_fw_slot(fw, ch, r->idx), hdr,
			  sizeof(*hdr), false);
}

/**
 * ane_fw_ring_body() - H2T: read the body of the message at @seq
 * @fw: the firmware.
 * @ch: the channel.
 * @seq: its ring index, from ane_fw_ring_peek().
 * @buf: where to copy the body.
 * @len: its length (&ane_fw_cmd_hdr.size, checked).
 *
 * Return: 0 or a DMA error.
 */
int ane_fw_ring_body(struct ane_fw *fw, u32 ch, u32 seq, void *buf, u32 len)
{
	if (!len)
		return 0;
	return ane_hw_dma(fw->hw, 0, ane_fw_slot(fw, ch, seq) +
			  sizeof(struct ane_fw_cmd_hdr), buf, len, false);
}

/**
 * ane_fw_ring_consume() - give an H2T slot back
 * @fw: the firmware.
 * @ch: the channel.
 *
 * A host that found the ring full asked to hear of the room
 * (&ane_fw_ring_hdr.space_wanted): the flag is read after the new tail is
 * written, so either the host, reading the tail again after setting it,
 * sees the room, or we see the flag and interrupt it.
 */
void ane_fw_ring_consume(struct ane_fw *fw, u32 ch)
{
	struct ane_fw_ring *r = &fw->ring[ch];
	u32 want = 0;

	r->idx++;
	smp_mb();	/* done with the slot before the host may reuse it */
	ane_hw_dma(fw->hw, 0, r->iova + offsetof(struct ane_fw_ring_hdr, tail),
		   &r->idx, 4, true);
	smp_mb();	/* the new tail before the host's request is read */
	if (ane_fw_ring_read_u32(fw, ch,
				 offsetof(struct ane_fw_ring_hdr, space_wanted),
				 &want) || !want)
		return;
	want = 0;
	ane_hw_dma(fw->hw, 0,
		   r->iova + offsetof(struct ane_fw_ring_hdr, space_wanted),
		   &want, 4, true);
	ane_fw_raise(fw, ch == ANE_FW_CH_IO ? ANE_HOST_IRQ_IO_T2H :
					      ANE_HOST_IRQ_T2H);
}

static bool ane_fw_ring_has_room(struct ane_fw *fw, u32 ch)
{
	struct ane_fw_ring *r = &fw->ring[ch];
	u32 tail;

	if (r->idx - r->cached < r->nslots)
		return true;
	if (ane_fw_ring_read_u32(fw, ch, offsetof(struct ane_fw_ring_hdr, tail),
				 &tail))
		return false;
	r->cached = tail;
	return r->idx - r->cached < r->nslots;
}

/**
 * ane_fw_ring_want_space() - ask to hear when a full T2H ring drains
 * @fw: the firmware.
 * @ch: the channel.
 *
 * The host rings CONSUMED once it drains the ring
 * (&ane_fw_ring_hdr.space_wanted).
 *
 * Return: whether the ring has room after all, the host having drained
 * it meanwhile (it may then not ring).
 */
bool ane_fw_ring_want_space(struct ane_fw *fw, u32 ch)
{
	struct ane_fw_ring *r = &fw->ring[ch];
	u32 one = 1;

	if (ane_hw_dma(fw->hw, 0,
		       r->iova + offsetof(struct ane_fw_ring_hdr, space_wanted),
		       &one, 4, true))
		return false;
	smp_mb();	/* the request before the tail is read again */
	return ane_fw_ring_has_room(fw, ch);
}

/**
 * ane_fw_ring_push() - T2H: publish one message
 * @fw: the firmware.
 * @ch: the channel.
 * @msg: the message, header included.
 * @len: its length in bytes.
 *
 * Return: 0, -EINVAL (ring not ready, message too long), -ENOSPC when
 * the ring is full, or a DMA error.
 */
int ane_fw_ring_push(struct ane_fw *fw, u32 ch, const void *msg, u32 len)
{
	struct ane_fw_ring *r = &fw->ring[ch];

	if (!r->ready || len > r->slot_size)
		return -EINVAL;
	if (!ane_fw_ring_has_room(fw, ch))
		return -ENOSPC;
	if (ane_hw_dma(fw->hw, 0, ane_fw_slot(fw, ch, r->idx), (void *)msg,
		       len, true))
		return -EFAULT;
	r->idx++;
	smp_wmb();	/* the slot before the head that publishes it */
	return ane_hw_dma(fw->hw, 0,
			  r->iova + offsetof(struct ane_fw_ring_hdr, head),
			  &r->idx, 4, true);
}

static u32 ane_fw_chan_irq(u32 ch)
{
	switch (ch) {
	case ANE_FW_CH_IO_T2H:
		return ANE_HOST_IRQ_IO_T2H;
	case ANE_FW_CH_DEBUG:
		return ANE_HOST_IRQ_DEBUG;
	case ANE_FW_CH_TERMINAL:
		return ANE_HOST_IRQ_TERMINAL;
	default:
		return ANE_HOST_IRQ_T2H;
	}
}

/**
 * ane_fw_outbox_flush() - deliver the notifications the outbox holds
 * @fw: the firmware.
 *
 * Delivers them in order while the rings have room; a ring still full is
 * asked to report its draining.  Pumps blocked on the outbox run again
 * once it has room for their replies.
 */
void ane_fw_outbox_flush(struct ane_fw *fw)
{
	u32 raised = 0, i;

	while (fw->outbox_count) {
		struct ane_fw_outbox *o = &fw->outbox[fw->outbox_rd];

		if (ane_fw_ring_push(fw, o->chan, o->msg, o->len) == -ENOSPC) {
			if (ane_fw_ring_want_space(fw, o->chan))
				continue;
			break;
		}
		raised |= ane_fw_chan_irq(o->chan);
		fw->outbox_rd = (fw->outbox_rd + 1) % ANE_FW_NUM_OUTBOX;
		fw->outbox_count--;
	}
	if (raised & ANE_HOST_IRQ_IO_T2H)
		ane_fw_raise(fw, ANE_HOST_IRQ_IO_T2H);
	if (raised & ANE_HOST_IRQ_T2H)
		ane_fw_raise(fw, ANE_HOST_IRQ_T2H);
	if (fw->outbox_count + 2 > ANE_FW_NUM_OUTBOX)
		return;
	for (i = 0; i < ANE_FW_NUM_TASKS; i++)
		if (fw->tasks[i].state == ANE_FW_TASK_BLOCKED &&
		    fw->tasks[i].blocked_on == ane_fw_blocked_t2h)
			fw->tasks[i].state = ANE_FW_TASK_RUNNABLE;
}

/**
 * ane_fw_notify() - send a message to the host on a T2H channel
 * @fw: the firmware.
 * @chan: BUF_T2H or IO_T2H.
 * @id: message id.
 * @like: header whose program/process/procedure/priority to copy, or NULL.
 * @body: the body.
 * @len: its length.
 *
 * A full ring parks the message in the bounded outbox, delivered in order
 * when the host drains the ring.
 *
 * Return: 0, or -ENOSPC when the outbox is full too (counted, reported).
 */
int ane_fw_notify(struct ane_fw *fw, u32 chan, u32 id,
		  const struct ane_fw_cmd_hdr *like, const void *body,
		  u32 len)
{
	struct ane_fw_cmd_hdr *hdr = (void *)fw->txbuf;
	u32 total = sizeof(*hdr) + len;
	struct ane_fw_outbox *o;
	int ret;

	if (total > ANE_FW_OUTBOX_MSG)
		return -EINVAL;
	*hdr = (struct ane_fw_cmd_hdr){
		.id = id, .size = len, .program_id = -1, .process_id = -1,
	};
	if (like) {
		hdr->priority = like->priority;
		hdr->program_id = like->program_id;
		hdr->process_id = like->process_id;
		hdr->procedure_id = like->procedure_id;
	}
	memcpy(hdr + 1, body, len);
	if (!fw->outbox_count) {
		ret = ane_fw_ring_push(fw, chan, hdr, total);
		if (!ret) {
			ane_fw_raise(fw, ane_fw_chan_irq(chan));
			return 0;
		}
		if (ret != -ENOSPC)
			return ret;
	}
	fw->ring_full++;
	if (fw->outbox_count >= ANE_FW_NUM_OUTBOX)
		return -ENOSPC;
	o = &fw->outbox[(fw->outbox_rd + fw->outbox_count) % ANE_FW_NUM_OUTBOX];
	o->chan = chan;
	o->len = total;
	memcpy(o->msg, hdr, total);
	fw->outbox_count++;
	/* Delivered now if the host drained meanwhile; else it will say. */
	ane_fw_outbox_flush(fw);
	return 0;
}

/**
 * ane_fw_reply() - reply to a request
 * @fw: the firmware.
 * @chan: the T2H channel.
 * @seq: the request's ring index.
 * @req: the request's header.
 * @status: &enum ane_fw_status.
 * @data: reply data.
 * @len: its length.
 *
 * The reply carries the request's id | %ANE_FW_ID_REPLY, its ring index
 * and the status.
 *
 * Return: as ane_fw_notify(), -EINVAL when @len is too long.
 */
int ane_fw_reply(struct ane_fw *fw, u32 chan, u32 seq,
		 const struct ane_fw_cmd_hdr *req, int status,
		 const void *data, u32 len)
{
	struct {
		struct ane_fw_reply r;
		u8 data[ANE_FW_OUTBOX_MSG - sizeof(struct ane_fw_cmd_hdr) -
			sizeof(struct ane_fw_reply)];
	} msg;

	if (len > sizeof(msg.data))
		return -EINVAL;
	msg.r = (struct ane_fw_reply){ .seq = seq, .status = status,
				       .len = len };
	if (len)
		memcpy(msg.data, data, len);
	return ane_fw_notify(fw, chan, req->id | ANE_FW_ID_REPLY, req, &msg,
			     sizeof(msg.r) + len);
}

/**
 * ane_fw_print() - a line on the TERMINAL channel, once print is enabled
 * @fw: the firmware.
 * @fmt: printf format.
 *
 * The terminal is a log: a full ring drops the line and counts it.
 */
void ane_fw_print(struct ane_fw *fw, const char *fmt, ...)
{
	struct {
		struct ane_fw_cmd_hdr hdr;
		char text[104];
	} line = { .hdr = { .id = ANE_CMD_DBG_EVENT, .program_id = -1,
			    .process_id = -1 } };
	va_list ap;

	if (!fw->print_enabled || !fw->ring[ANE_FW_CH_TERMINAL].ready)
		return;
	va_start(ap, fmt);
	line.hdr.size = vscnprintf(line.text, sizeof(line.text), fmt, ap) + 1;
	va_end(ap);
	if (ane_fw_ring_push(fw, ANE_FW_CH_TERMINAL, &line,
			     sizeof(line.hdr) + line.hdr.size))
		fw->terminal_dropped++;
}

/**
 * ane_fw_channels_init() - carve the channels out of the shared region
 * @fw: the firmware, its boot arguments read.
 *
 * Lays out every channel, initialises the rings' headers and publishes
 * the channel table; the rings are marked ready later, at handshake 3.
 *
 * Return: 0 or an %ANE_FW_BOOT_E_* error.
 */
int ane_fw_channels_init(struct ane_fw *fw)
{
	struct ane_fw_channel_table *tbl = (void *)fw->txbuf;
	u64 base = fw->args.shared_iova, off = ANE_FW_SHARED_START;
	int ch;

	static_assert(sizeof(*tbl) <= ANE_FW_CMDBUF);
	memset(tbl, 0, sizeof(*tbl));
	tbl->magic = ANE_FW_CHTBL_MAGIC;
	tbl->abi_version = ANE_FW_ABI_VERSION;
	tbl->chip_rev = ane_fw_rd(fw, ANE_REG_CHIP_REV);
	tbl->count = ANE_FW_NUM_CHANNELS;
	tbl->restart_count = fw->restart_count;

	for (ch = 0; ch < ANE_FW_NUM_CHANNELS; ch++) {
		struct ane_fw_channel_desc *d = &tbl->chan[ch];
		struct ane_fw_ring *r = &fw->ring[ch];
		struct ane_fw_ring_hdr rh = { };
		u64 size;

		strscpy(d->name, ane_fw_chan_layout[ch].name, sizeof(d->name));
		d->direction = ane_fw_chan_layout[ch].dir;
		if (d->direction == ANE_FW_CHAN_MEM) {
			size = ane_fw_chan_layout[ch].mem_size;
		} else {
			d->version = ANE_FW_RING_VERSION;
			d->slot_size = ane_fw_chan_layout[ch].slot_size;
			d->nslots = ane_fw_chan_layout[ch].nslots;
			size = sizeof(rh) + (u64)d->slot_size * d->nslots;
		}
		if (off + size > fw->args.shared_size)
			return ANE_FW_BOOT_E_SHARED;
		d->iova = base + off;
		d->size = size;
		off = ALIGN(off + size, 128);

		*r = (struct ane_fw_ring){ .iova = d->iova,
					   .slot_size = d->slot_size,
					   .nslots = d->nslots,
					   .dir = d->direction };
		if (d->direction == ANE_FW_CHAN_MEM) {
			fw->status_iova = d->iova;
			continue;
		}
		rh.version = ANE_FW_RING_VERSION;
		rh.slot_size = d->slot_size;
		rh.nslots = d->nslots;
		if (ane_hw_dma(fw->hw, 0, d->iova, &rh, sizeof(rh), true))
			return ANE_FW_BOOT_E_SHARED;
		/* validate the ring against the version constant */
		memset(&rh, 0, sizeof(rh));
		if (ane_hw_dma(fw->hw, 0, d->iova, &rh, sizeof(rh), false) ||
		    rh.version != ANE_FW_RING_VERSION ||
		    rh.nslots != d->nslots)
			return ANE_FW_BOOT_E_RING;
	}
	fw->chtbl_iova = base + ANE_FW_CHTBL_OFFSET;
	if (ane_hw_dma(fw->hw, 0, fw->chtbl_iova, tbl, sizeof(*tbl), true))
		return ANE_FW_BOOT_E_SHARED;
	return 0;
}
