// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loaded programs and the engine's execution of their procedures.
 *
 * LOAD_PROGRAM reads the program image (uapi/drm/ane_accel.h, already
 * validated by the driver) through the DART on stream 0, checks its
 * header, counts and table bounds once more -- the firmware trusts no
 * one with its own memory -- and keeps a copy of the tables it executes:
 * header, procedures, task descriptors, register writes and bars.  The
 * weights and constants stay in the image buffer, reached like any other
 * bar.
 *
 * A procedure call becomes a task-descriptor block for the engine
 * (firmware/spec/ane_tdb.h, built by ane_fw_program_prepare()): the
 * procedure's task descriptors, each operand bound by the procedure's
 * register-write records to a custom bar of the call (the image's bar
 * slot -> device address, size, stream) and rebased into the program's
 * firmware aperture with the aperture-config triple of ch. 28 (dvaBase =
 * the bar's address, regionSize = its size, mappedBase = the load's
 * aperture base): that 32-bit value is what the engine's operand
 * register holds.  The engine (firmware/hw/ane_engine.c) translates it
 * back with the queue's bar registers and the block's bar table, moves
 * the bytes through the DART and computes; the firmware does not.
 *
 * Everything here runs in the firmware thread: no locks.  Memory is
 * kvmalloc()ed and accounted in &ane_fw.mem_bytes / &ane_fw.mem_allocs:
 * a program's copy lives until UNLOAD_PROGRAM or until the firmware stops
 * (ane_fw_programs_free()), a block while its queue runs.  Firmware
 * memory is on the engine's bus: the engine reads a block at its address
 * on the controller port (ANE_ENG_SID_CTRL), never writes it.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/slab.h>
#include <linux/string.h>

#include <drm/ane_accel.h>

#include "hw/ane_cpu.h"
#include "spec/ane_rebase.h"
#include "spec/ane_tdb.h"
#include "ane_fw.h"

/**
 * struct ane_fw_prog_image - the firmware's copy of a program image
 * @hdr: the header.
 * @procs: the procedure table (@hdr.num_procedures entries).
 * @tds: the task descriptors (@hdr.num_tds).
 * @rws: the register-write records (@hdr.num_rws).
 * @bars: the bar table as read (@hdr.num_bars).
 * @slot: the bar of each slot, NULL for a slot the image does not use.
 * @bytes: size of this allocation (the tables follow the struct).
 */
struct ane_fw_prog_image {
	struct ane_img_header hdr;
	struct ane_img_procedure *procs;
	struct ane_img_td *tds;
	struct ane_img_rw *rws;
	struct ane_img_bar bars[ANE_IMG_MAX_BARS];
	const struct ane_img_bar *slot[ANE_IMG_MAX_BARS];
	size_t bytes;
};

/* ---------------------------------------------------------------- memory */

static void *ane_fw_mem_alloc(struct ane_fw *fw, size_t size, bool zero)
{
	void *p;

	p = kvmalloc(size, GFP_KERNEL | __GFP_NOWARN | (zero ? __GFP_ZERO : 0));
	if (p) {
		fw->mem_bytes += size;
		fw->mem_allocs++;
	}
	return p;
}

static void ane_fw_mem_free(struct ane_fw *fw, void *p, size_t size)
{
	if (!p)
		return;
	fw->mem_bytes -= size;
	fw->mem_allocs--;
	kvfree(p);
}

/* ------------------------------------------------------------------ load */

/* A table of @len bytes at @off lies inside the image, after the header. */
static bool ane_fw_img_table_ok(u64 size, u64 off, u64 len)
{
	if (!len)
		return true;
	return off >= sizeof(struct ane_img_header) && off <= size &&
	       len <= size - off;
}

static int ane_fw_img_check_header(const struct ane_img_header *h,
				   const struct ane_fw_load_program *lp)
{
	if (h->magic != ANE_IMG_MAGIC ||
	    h->version_major != ANE_IMG_VERSION_MAJOR ||
	    h->header_size != sizeof(*h) || h->image_size != lp->image_size)
		return ANE_FW_ST_INVALID;
	if (!h->num_procedures || h->num_procedures > ANE_IMG_MAX_PROCEDURES ||
	    h->num_procedures != lp->proc_nbr ||
	    !h->num_tds || h->num_tds > ANE_IMG_MAX_TDS ||
	    h->num_rws > ANE_IMG_MAX_RWS || h->num_bars > ANE_IMG_MAX_BARS)
		return ANE_FW_ST_INVALID;
	if (!ane_fw_img_table_ok(h->image_size, h->procedures_offset,
				 (u64)h->num_procedures *
				 sizeof(struct ane_img_procedure)) ||
	    !ane_fw_img_table_ok(h->image_size, h->tds_offset,
				 (u64)h->num_tds * sizeof(struct ane_img_td)) ||
	    !ane_fw_img_table_ok(h->image_size, h->rws_offset,
				 (u64)h->num_rws * sizeof(struct ane_img_rw)) ||
	    !ane_fw_img_table_ok(h->image_size, h->bars_offset,
				 (u64)h->num_bars * sizeof(struct ane_img_bar)))
		return ANE_FW_ST_INVALID;
	/* a chained run's weights and constants bars are built from these */
	if (!ane_fw_img_table_ok(h->image_size, h->weights_offset,
				 h->weights_size) ||
	    !ane_fw_img_table_ok(h->image_size, h->constants_offset,
				 h->constants_size))
		return ANE_FW_ST_INVALID;
	return ANE_FW_ST_OK;
}

/*
 * The procedures' runs inside their tables, the bar slots unique, and no
 * destination in a bar the engine must not write: only outputs (usage 2)
 * and intermediates (7) are; weights and constants are the image itself,
 * on stream 0.
 */
static int ane_fw_img_check_tables(struct ane_fw_prog_image *img)
{
	const struct ane_img_header *h = &img->hdr;
	const struct ane_img_bar *b;
	u32 i;

	for (i = 0; i < h->num_procedures; i++) {
		const struct ane_img_procedure *p = &img->procs[i];

		if (!p->num_tds || p->first_td >= h->num_tds ||
		    p->num_tds > h->num_tds - p->first_td ||
		    p->first_rw > h->num_rws ||
		    p->num_rws > h->num_rws - p->first_rw)
			return ANE_FW_ST_INVALID;
	}
	for (i = 0; i < h->num_bars; i++) {
		b = &img->bars[i];
		if (b->slot >= ANE_IMG_MAX_BARS || img->slot[b->slot] ||
		    !b->size)
			return ANE_FW_ST_INVALID;
		img->slot[b->slot] = b;
	}
	for (i = 0; i < h->num_rws; i++) {
		const struct ane_img_rw *rw = &img->rws[i];

		if (rw->reg != ANE_TD_REG_DST || rw->bar >= ANE_IMG_MAX_BARS)
			continue;	/* a binding refused, if used, at the call */
		b = img->slot[rw->bar];
		if (b && b->usage != 2 && b->usage != 7)
			return ANE_FW_ST_INVALID;
	}
	return ANE_FW_ST_OK;
}

static int ane_fw_img_read(struct ane_fw *fw, u64 iova, u64 off, void *buf,
			   u64 len)
{
	if (!len)
		return ANE_FW_ST_OK;
	return ane_hw_dma(fw->hw, 0, iova + off, buf, len, false) ?
	       ANE_FW_ST_FAULT : ANE_FW_ST_OK;
}

/* Read and check the image of @lp; on success *@out is the copy. */
static int ane_fw_img_fetch(struct ane_fw *fw,
			    const struct ane_fw_load_program *lp,
			    struct ane_fw_prog_image **out)
{
	struct ane_fw_prog_image *img;
	struct ane_img_header h;
	size_t procs, tds, rws, bytes;
	u8 *p;
	int st;

	if (!lp->image_iova || lp->image_size < sizeof(h) ||
	    lp->image_size > ANE_IMG_MAX_SIZE)
		return ANE_FW_ST_INVALID;
	if (ane_hw_dma(fw->hw, 0, lp->image_iova, &h, sizeof(h), false))
		return ANE_FW_ST_FAULT;
	st = ane_fw_img_check_header(&h, lp);
	if (st) {
		ane_fw_print(fw, "LOAD_PROGRAM: image header refused (magic %#x, size %llu)",
			     h.magic, lp->image_size);
		return st;
	}

	/* Bounded by the uapi limits: about 1.3 MB at most. */
	procs = h.num_procedures * sizeof(struct ane_img_procedure);
	tds = h.num_tds * sizeof(struct ane_img_td);
	rws = h.num_rws * sizeof(struct ane_img_rw);
	bytes = sizeof(*img) + procs + tds + rws;
	img = ane_fw_mem_alloc(fw, bytes, true);
	if (!img)
		return ANE_FW_ST_NOMEM;
	img->bytes = bytes;
	img->hdr = h;
	p = (u8 *)(img + 1);
	img->procs = (void *)p;
	img->tds = (void *)(p + procs);
	img->rws = (void *)(p + procs + tds);

	st = ane_fw_img_read(fw, lp->image_iova, h.procedures_offset,
			     img->procs, procs);
	if (!st)
		st = ane_fw_img_read(fw, lp->image_iova, h.tds_offset,
				     img->tds, tds);
	if (!st)
		st = ane_fw_img_read(fw, lp->image_iova, h.rws_offset,
				     img->rws, rws);
	if (!st)
		st = ane_fw_img_read(fw, lp->image_iova, h.bars_offset,
				     img->bars,
				     h.num_bars * sizeof(struct ane_img_bar));
	if (!st)
		st = ane_fw_img_check_tables(img);
	if (st) {
		ane_fw_mem_free(fw, img, img->bytes);
		return st;
	}
	*out = img;
	return ANE_FW_ST_OK;
}

/**
 * ane_fw_program_load() - LOAD_PROGRAM into a free slot
 * @fw: the firmware.
 * @slot: the program slot, 0..%ANE_FW_MAX_PROGRAMS - 1, not loaded.
 * @lp: the body, its size, flags and procedure count already checked.
 *
 * Without an image (@lp->image_iova and @lp->image_size zero) the program
 * only has a procedure count and its calls compute nothing.  Every load
 * moves the slot's aperture base.
 *
 * Return: &enum ane_fw_status.
 */
int ane_fw_program_load(struct ane_fw *fw, s32 slot,
			const struct ane_fw_load_program *lp)
{
	struct ane_fw_program *p = &fw->programs[slot];
	struct ane_fw_prog_image *img = NULL;
	int st;

	if (lp->image_iova || lp->image_size) {
		st = ane_fw_img_fetch(fw, lp, &img);
		if (st)
			return st;
	}
	p->loads++;
	p->valid = true;
	p->proc_nbr = lp->proc_nbr;
	p->image_iova = lp->image_iova;
	p->image_size = lp->image_size;
	p->gen = ++fw->prog_gen;
	p->mapped_base = ANE_FW_APERTURE_BASE + slot * ANE_FW_APERTURE_SLOT +
			 (p->loads % ANE_FW_APERTURE_LOADS) * ANE_FW_APERTURE_LOAD;
	p->img = img;
	return ANE_FW_ST_OK;
}

/**
 * ane_fw_program_unload() - UNLOAD_PROGRAM: free the slot and its copy
 * @fw: the firmware.
 * @slot: a loaded slot.
 *
 * Requests still queued for the load fail with %ANE_FW_ST_NOENT when they
 * reach the engine (their generation is gone).
 *
 * Return: %ANE_FW_ST_OK.
 */
int ane_fw_program_unload(struct ane_fw *fw, s32 slot)
{
	struct ane_fw_program *p = &fw->programs[slot];

	if (p->img)
		ane_fw_mem_free(fw, p->img, p->img->bytes);
	p->img = NULL;
	p->valid = false;
	p->gen = 0;
	return ANE_FW_ST_OK;
}

/**
 * ane_fw_programs_free() - drop every loaded program and block
 * @fw: the firmware, stopping: nothing it holds survives a boot.
 */
void ane_fw_programs_free(struct ane_fw *fw)
{
	s32 i;

	for (i = 0; i < ANE_FW_NUM_REQS; i++) {
		struct ane_fw_req *r = &fw->reqs[i];

		if (!r->tdb)
			continue;
		/* the engine leaves the queue before its block goes */
		ane_fw_queue_disable(fw, r->hw_queue);
		ane_fw_program_release(fw, r);
	}

	for (i = 0; i < ANE_FW_MAX_PROGRAMS; i++)
		if (fw->programs[i].valid || fw->programs[i].img)
			ane_fw_program_unload(fw, i);
}

/* ------------------------------------------------------------- execution */

/* The call's custom bars, by image slot, into the block's bar table. */
static int ane_fw_tdb_bars(struct ane_tdb_hdr *h, struct ane_aperture_cfg *ap,
			   const struct ane_fw_req *r, u32 mapped_base)
{
	u32 i;

	for (i = 0; i < r->nbars; i++) {
		const struct ane_fw_bar *b = &r->bars[i];

		if (b->bar_id >= ANE_IMG_MAX_BARS || b->sid >= ANE_FW_NUM_STREAMS ||
		    h->bars_valid & BIT(b->bar_id))
			return ANE_FW_ST_INVALID;
		h->bars_valid |= BIT(b->bar_id);
		h->bar[b->bar_id] = (struct ane_tdb_bar){
			.dva = b->value, .size = b->buf_size, .sid = b->sid };
		ap[b->bar_id] = (struct ane_aperture_cfg){
			.dva_base = b->value, .region_size = b->buf_size,
			.mapped_base = mapped_base };
	}
	return ANE_FW_ST_OK;
}

/*
 * Bind every operand of the procedure before the engine sees it: the
 * record's task and bar exist, the call provides the bar with at least
 * the image's size, and the operand rebases into the aperture.
 */
static int ane_fw_tdb_bind(struct ane_tdb_hdr *h, struct ane_tdb_task *tasks,
			   const struct ane_aperture_cfg *ap,
			   const struct ane_fw_prog_image *img,
			   const struct ane_img_procedure *pr)
{
	u32 k;

	for (k = 0; k < pr->num_rws; k++) {
		const struct ane_img_rw *rw = &img->rws[pr->first_rw + k];
		const struct ane_img_bar *ib;
		struct ane_tdb_operand *o;
		u64 off, len;
		u32 runtime;

		if (rw->td < pr->first_td || rw->td - pr->first_td >= pr->num_tds ||
		    rw->reg >= ANE_TDB_OPERANDS || rw->bar >= ANE_IMG_MAX_BARS)
			return ANE_FW_ST_INVALID;
		ib = img->slot[rw->bar];
		if (!ib || !(h->bars_valid & BIT(rw->bar)) ||
		    ap[rw->bar].region_size < ib->size)
			return ANE_FW_ST_INVALID;
		o = &tasks[rw->td - pr->first_td].op[rw->reg];
		off = (u64)rw->offset_hi << 32 | rw->offset_lo;
		len = (u64)rw->length_hi << 32 | rw->length_lo;
		if (o->set || !len || off >= ib->size || len > ib->size - off)
			return ANE_FW_ST_INVALID;
		if (ane_rebase(&ap[rw->bar], ap[rw->bar].dva_base + off, len,
			       &runtime))
			return ANE_FW_ST_INVALID;
		*o = (struct ane_tdb_operand){ .set = 1, .bar = rw->bar,
					       .runtime = runtime, .len = len };
	}
	return ANE_FW_ST_OK;
}

/**
 * ane_fw_program_header() - the image header of a loaded program
 * @p: a program loaded with an image.
 *
 * Return: the firmware's copy of the header.
 */
const struct ane_img_header *ane_fw_program_header(const struct ane_fw_program *p)
{
	return &p->img->hdr;
}

/**
 * ane_fw_program_procedure() - a procedure of a loaded program
 * @p: a program loaded with an image.
 * @proc: the procedure index.
 *
 * Return: the procedure, or NULL if the image has no such procedure.
 */
const struct ane_img_procedure *
ane_fw_program_procedure(const struct ane_fw_program *p, u32 proc)
{
	return proc < p->img->hdr.num_procedures ? &p->img->procs[proc] : NULL;
}

/**
 * ane_fw_program_bar() - an entry of a loaded program's bar table
 * @p: a program loaded with an image.
 * @i: below the header's num_bars.
 *
 * Return: the bar.
 */
const struct ane_img_bar *ane_fw_program_bar(const struct ane_fw_program *p,
					     u32 i)
{
	return &p->img->bars[i];
}

/*
 * A call's custom execute order (Table 30.3: 1 to 128 entries, each an
 * ANE_IMG_EXEC() run of the procedure's task descriptors): the tasks it
 * runs, or 0 for an entry outside the procedure or more than
 * %ANE_IMG_MAX_TDS in all.  No order (a trigger, a call without custom
 * bars) runs the procedure once.
 */
static u32 ane_fw_exec_order_tasks(const struct ane_fw_req *r,
				   const struct ane_img_procedure *pr)
{
	u32 i, total = 0;

	if (!r->nexec)
		return pr->num_tds;
	for (i = 0; i < r->nexec && i < ANE_FW_MAX_EXEC_ORDER; i++) {
		u32 start = r->exec[i] & 0xffff, n = r->exec[i] >> 16;

		if (start >= pr->num_tds || n > pr->num_tds - start)
			return 0;
		total += n ? n : pr->num_tds - start;
		if (total > ANE_IMG_MAX_TDS)
			return 0;
	}
	return total;
}

/* No order, or the one entry that is the whole procedure in image order. */
static bool ane_fw_exec_order_plain(const struct ane_fw_req *r)
{
	return !r->nexec || (r->nexec == 1 && !r->exec[0]);
}

/* The runs of the order, from the procedure's bound tasks @nat, to @tasks. */
static void ane_fw_exec_order_copy(const struct ane_fw_req *r,
				   const struct ane_img_procedure *pr,
				   const struct ane_tdb_task *nat,
				   struct ane_tdb_task *tasks)
{
	u32 i, k = 0;

	for (i = 0; i < r->nexec; i++) {
		u32 start = r->exec[i] & 0xffff, n = r->exec[i] >> 16;

		if (!n)
			n = pr->num_tds - start;
		memcpy(&tasks[k], &nat[start], n * sizeof(*tasks));
		k += n;
	}
}

/**
 * ane_fw_program_prepare() - build a request's task-descriptor block
 * @fw: the firmware, the loop in EXEC.
 * @r: the request, dispatched: a procedure call, or a chaining trigger
 *	whose bars ane_fw_chain_bars() built.
 *
 * The block (firmware/spec/ane_tdb.h) holds the call's bar table and the
 * procedure's tasks with their operand registers bound and rebased; it
 * is firmware memory the engine reads on its controller port (the
 * queue's own block when it fits, ANE_FW_TDB_INLINE), given back by
 * ane_fw_program_release() once the engine has left the queue.  A call
 * with a custom execute order gets the procedure's tasks in the order's
 * runs, a task as many times as the runs name it.  A
 * program without an image computes nothing: it gets no block (@r->tdb
 * stays NULL) and runs empty on the engine.
 *
 * Return: %ANE_FW_ST_OK; %ANE_FW_ST_NOENT if the program was unloaded
 * since the request was queued; %ANE_FW_ST_INVALID for a bar the call
 * does not provide (or provides too small), a binding refused, or an
 * execute order outside the procedure; %ANE_FW_ST_NOMEM.
 */
int ane_fw_program_prepare(struct ane_fw *fw, struct ane_fw_req *r)
{
	struct ane_aperture_cfg ap[ANE_IMG_MAX_BARS];
	struct ane_tdb_task *tasks, *bound, *nat = NULL;
	const struct ane_img_procedure *pr;
	const struct ane_fw_program *p;
	size_t bytes, nat_bytes = 0;
	struct ane_tdb_hdr *h;
	u32 i, ntasks;
	int st;

	if (r->hdr.program_id < 0 || r->hdr.program_id >= ANE_FW_MAX_PROGRAMS)
		return ANE_FW_ST_INVALID;
	p = &fw->programs[r->hdr.program_id];
	if (!p->valid || p->gen != r->prog_gen)
		return ANE_FW_ST_NOENT;
	if (!p->img)
		return ANE_FW_ST_OK;
	if (r->hdr.procedure_id >= p->img->hdr.num_procedures)
		return ANE_FW_ST_INVALID;
	pr = &p->img->procs[r->hdr.procedure_id];

	/* the execute order's task count: ANE_IMG_MAX_TDS at most */
	ntasks = ane_fw_exec_order_tasks(r, pr);
	if (!ntasks)
		return ANE_FW_ST_INVALID;
	if (ntasks != pr->num_tds || !ane_fw_exec_order_plain(r)) {
		/* the procedure bound in image order first, then the runs */
		nat_bytes = (size_t)pr->num_tds * sizeof(*tasks);
		nat = ane_fw_mem_alloc(fw, nat_bytes, true);
		if (!nat)
			return ANE_FW_ST_NOMEM;
	}

	/* num_tds <= ANE_IMG_MAX_TDS: about 1 MB at most */
	bytes = sizeof(*h) + (size_t)ntasks * sizeof(*tasks);
	if (bytes <= ANE_FW_TDB_INLINE) {
		h = (void *)fw->tdb_inline[r->hw_queue];
		memset(h, 0, bytes);
	} else {
		h = ane_fw_mem_alloc(fw, bytes, true);
		if (!h) {
			ane_fw_mem_free(fw, nat, nat_bytes);
			return ANE_FW_ST_NOMEM;
		}
	}
	tasks = (void *)(h + 1);
	h->magic = ANE_TDB_MAGIC;
	h->num_tasks = ntasks;
	bound = nat ? nat : tasks;
	for (i = 0; i < pr->num_tds; i++)
		bound[i].td = p->img->tds[pr->first_td + i];
	st = ane_fw_tdb_bars(h, ap, r, p->mapped_base);
	if (!st)
		st = ane_fw_tdb_bind(h, bound, ap, p->img, pr);
	if (!st && nat)
		ane_fw_exec_order_copy(r, pr, nat, tasks);
	ane_fw_mem_free(fw, nat, nat_bytes);
	r->tdb = h;
	r->tdb_bytes = bytes;
	if (st)
		ane_fw_program_release(fw, r);
	return st;
}

/**
 * ane_fw_program_release() - free a request's task-descriptor block
 * @fw: the firmware.
 * @r: the request; its hardware queue no longer runs it.
 */
void ane_fw_program_release(struct ane_fw *fw, struct ane_fw_req *r)
{
	if (r->tdb_bytes > ANE_FW_TDB_INLINE)
		ane_fw_mem_free(fw, r->tdb, r->tdb_bytes);
	r->tdb = NULL;
	r->tdb_bytes = 0;
}
