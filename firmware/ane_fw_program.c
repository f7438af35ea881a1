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
 * A procedure call runs the procedure's task descriptors in order.  Each
 * operand is bound by the procedure's register-write records to a custom
 * bar of the call (the image's bar slot -> device address, size, stream),
 * rebased into the program's firmware aperture with the aperture-config
 * triple of ch. 28 (dvaBase = the bar's address, regionSize = its size,
 * mappedBase = the load's aperture base), and that 32-bit value is what
 * the engine's operand register holds.  The engine's DMA translates it
 * back and moves the bytes through the DART on the bar's stream; sources
 * are staged into firmware memory, the operation runs on kernel pointers
 * in kernel_fpu_begin()/kernel_fpu_end() chunks, and the destination is
 * written back.
 *
 * Everything here runs in the firmware thread: no locks.  Memory is
 * kvmalloc()ed and accounted in &ane_fw.mem_bytes / &ane_fw.mem_allocs:
 * a program's copy lives until UNLOAD_PROGRAM or until the firmware stops
 * (ane_fw_programs_free()), staging only while its task runs.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/align.h>
#include <linux/fpu.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/ane_accel.h>

#include "hw/ane_cpu.h"
#include "spec/ane_rebase.h"
#include "ane_fw.h"
#include "ane_fw_engine.h"
#include "spec/ane_td.h"

#define ANE_FW_OPERANDS		(ANE_TD_REG_DST + 1)
#define ANE_FW_DMA_BURST	SZ_1M

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

/**
 * struct ane_fw_operand - one operand register of one task, as bound
 * @set: the procedure's register writes bind it.
 * @bar: the image bar slot it lives in.
 * @runtime: the rebased address, the register's value.
 * @len: bytes the operand may span.
 */
struct ane_fw_operand {
	bool set;
	u8 bar;
	u32 runtime;
	u64 len;
};

/**
 * struct ane_fw_run - one procedure call on the engine
 * @fw: the firmware.
 * @img: the program's tables.
 * @proc: the procedure.
 * @deadline: firmware time the call must finish by.
 * @ap: aperture config of each bar slot the call provides.
 * @sid: stream of each bar slot.
 * @have: bar slots the call provides.
 * @ops: the operands of each of the procedure's tasks.
 * @ops_bytes: size of @ops.
 * @buf: staging of each operand of the running task.
 * @len: bytes of each @buf.
 * @work: the running task's workspace allocation.
 * @work_len: its bytes.
 */
struct ane_fw_run {
	struct ane_fw *fw;
	const struct ane_fw_prog_image *img;
	const struct ane_img_procedure *proc;
	u64 deadline;
	struct ane_aperture_cfg ap[ANE_IMG_MAX_BARS];
	u32 sid[ANE_IMG_MAX_BARS];
	u32 have;
	struct ane_fw_operand (*ops)[ANE_FW_OPERANDS];
	size_t ops_bytes;
	void *buf[ANE_FW_OPERANDS];
	size_t len[ANE_FW_OPERANDS];
	void *work;
	size_t work_len;
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
	return ANE_FW_ST_OK;
}

/* The procedures' runs inside their tables, the bar slots unique. */
static int ane_fw_img_check_tables(struct ane_fw_prog_image *img)
{
	const struct ane_img_header *h = &img->hdr;
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
		const struct ane_img_bar *b = &img->bars[i];

		if (b->slot >= ANE_IMG_MAX_BARS || img->slot[b->slot] ||
		    !b->size)
			return ANE_FW_ST_INVALID;
		img->slot[b->slot] = b;
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
 * ane_fw_programs_free() - drop every loaded program
 * @fw: the firmware, stopping: nothing it holds survives a boot.
 */
void ane_fw_programs_free(struct ane_fw *fw)
{
	s32 i;

	for (i = 0; i < ANE_FW_MAX_PROGRAMS; i++)
		if (fw->programs[i].valid || fw->programs[i].img)
			ane_fw_program_unload(fw, i);
}

/* ------------------------------------------------------------- execution */

/*
 * The engine's DMA: a rebased operand back to its bar's device address
 * (runtime - mappedBase + dvaBase), moved through the DART on the bar's
 * stream a bounded burst at a time.
 */
static int ane_fw_engine_dma(struct ane_fw_run *x,
			     const struct ane_fw_operand *o, void *buf,
			     size_t len, bool write)
{
	const struct ane_aperture_cfg *ap = &x->ap[o->bar];
	u64 off, iova;
	size_t done, n;

	if (o->runtime < ap->mapped_base)
		return ANE_FW_ST_INVALID;
	off = o->runtime - ap->mapped_base;
	if (off >= ap->region_size || len > ap->region_size - off)
		return ANE_FW_ST_INVALID;
	iova = ap->dva_base + off;
	for (done = 0; done < len; done += n) {
		n = min_t(size_t, len - done, ANE_FW_DMA_BURST);
		if (ane_hw_dma(x->fw->hw, x->sid[o->bar], iova + done,
			       (u8 *)buf + done, n, write))
			return ANE_FW_ST_FAULT;
		cond_resched();
	}
	return ANE_FW_ST_OK;
}

/* Between tasks and chunks: the deadline, and a halt of the controller. */
static int ane_fw_run_stop(struct ane_fw_run *x)
{
	if (ane_fw_should_halt(x->fw))
		return ANE_FW_ST_RESET;
	if (ane_fw_now(x->fw) > x->deadline)
		return ANE_FW_ST_TIMEOUT;
	return ANE_FW_ST_OK;
}

/* The call's custom bars, by image slot. */
static int ane_fw_run_bars(struct ane_fw_run *x, const struct ane_fw_req *r,
			   u32 mapped_base)
{
	u32 i;

	for (i = 0; i < r->nbars; i++) {
		const struct ane_fw_bar *b = &r->bars[i];

		if (b->bar_id >= ANE_IMG_MAX_BARS || b->sid >= ANE_FW_NUM_STREAMS ||
		    x->have & BIT(b->bar_id))
			return ANE_FW_ST_INVALID;
		x->have |= BIT(b->bar_id);
		x->sid[b->bar_id] = b->sid;
		x->ap[b->bar_id] = (struct ane_aperture_cfg){
			.dva_base = b->value, .region_size = b->buf_size,
			.mapped_base = mapped_base };
	}
	return ANE_FW_ST_OK;
}

/*
 * Bind every operand of the procedure before any task runs: the record's
 * task and bar exist, the call provides the bar with at least the image's
 * size, and the operand rebases into the aperture.
 */
static int ane_fw_run_bind(struct ane_fw_run *x)
{
	const struct ane_img_procedure *pr = x->proc;
	u32 k;

	for (k = 0; k < pr->num_rws; k++) {
		const struct ane_img_rw *rw = &x->img->rws[pr->first_rw + k];
		const struct ane_img_bar *ib;
		struct ane_fw_operand *o;
		u64 off, len;
		u32 runtime;

		if (rw->td < pr->first_td || rw->td - pr->first_td >= pr->num_tds ||
		    rw->reg >= ANE_FW_OPERANDS || rw->bar >= ANE_IMG_MAX_BARS)
			return ANE_FW_ST_INVALID;
		ib = x->img->slot[rw->bar];
		if (!ib || !(x->have & BIT(rw->bar)) ||
		    x->ap[rw->bar].region_size < ib->size)
			return ANE_FW_ST_INVALID;
		o = &x->ops[rw->td - pr->first_td][rw->reg];
		off = (u64)rw->offset_hi << 32 | rw->offset_lo;
		len = (u64)rw->length_hi << 32 | rw->length_lo;
		if (o->set || !len || off >= ib->size || len > ib->size - off)
			return ANE_FW_ST_INVALID;
		if (ane_rebase(&x->ap[rw->bar], x->ap[rw->bar].dva_base + off,
			       len, &runtime))
			return ANE_FW_ST_INVALID;
		*o = (struct ane_fw_operand){ .set = true, .bar = rw->bar,
					      .runtime = runtime, .len = len };
	}
	return ANE_FW_ST_OK;
}

static void ane_fw_run_release(struct ane_fw_run *x)
{
	u32 k;

	for (k = 0; k < ANE_FW_OPERANDS; k++) {
		ane_fw_mem_free(x->fw, x->buf[k], x->len[k]);
		x->buf[k] = NULL;
		x->len[k] = 0;
	}
	ane_fw_mem_free(x->fw, x->work, x->work_len);
	x->work = NULL;
	x->work_len = 0;
}

/* Bytes of a dense fp16 tensor of @dim, 0 if it overflows. */
static u64 ane_fw_dense_bytes(const u32 *dim)
{
	u64 n = 2;
	u32 i;

	for (i = 0; i < ANE_NDIM; i++)
		if (check_mul_overflow(n, (u64)dim[i], &n))
			return 0;
	return n;
}

/*
 * The operation, chunk by chunk, as ane_fw_engine_run() runs it, with the
 * deadline and a halt checked between chunks, on the instruction set
 * picked at boot (ane_fw_engine_init()); counted per instruction set.
 */
static int ane_fw_run_op(struct ane_fw_run *x, const struct ane_op_desc *d)
{
	u32 isa = ane_math_get_isa();
	u64 i, n;
	int st;

	if (ane_fw_engine_errno(ane_op_validate(d)))
		return ANE_FW_ST_INVALID;
	if (!kernel_fpu_available())
		return ANE_FW_ST_UNSUPPORTED;
	n = ane_op_chunks(d);
	for (i = 0; i < n; i++) {
		if (i) {
			st = ane_fw_run_stop(x);
			if (st)
				return st;
		}
		kernel_fpu_begin();
		st = ane_op_run(d, i);
		kernel_fpu_end();
		if (st)
			return ANE_FW_ST_INVALID;
		cond_resched();
	}
	if (isa < ANE_FW_ENGINE_ISAS)
		x->fw->engine_ops[isa]++;
	return ANE_FW_ST_OK;
}

/* One task: decode, stage the sources, run, write the destination back. */
static int ane_fw_run_task(struct ane_fw_run *x, u32 i)
{
	const struct ane_fw_operand *ops = x->ops[i];
	struct ane_tensor *t[ANE_FW_OPERANDS];
	u64 bytes[ANE_FW_OPERANDS] = { };
	struct ane_op_desc d;
	u64 total = 0, ws;
	u32 k;
	int st;

	if (ane_image_td_desc(&x->img->tds[x->proc->first_td + i], &d))
		return ANE_FW_ST_INVALID;
	for (k = 0; k < ANE_FW_OPERANDS; k++)
		t[k] = ane_td_operand(&d, k);

	/* What the task stages, within the cap, before anything moves. */
	for (k = 0; k < ANE_FW_OPERANDS; k++) {
		const u32 *dim = t[k]->dim;
		bool present = dim[0] | dim[1] | dim[2] | dim[3];

		if (present != ops[k].set)
			return ANE_FW_ST_INVALID;
		if (!present)
			continue;
		/* The engine reaches exactly the dense extent; stage that. */
		bytes[k] = ane_fw_dense_bytes(dim);
		if (!bytes[k] || bytes[k] > ops[k].len)
			return ANE_FW_ST_INVALID;
		if (bytes[k] > ANE_FW_STAGE_MAX - total)
			return ANE_FW_ST_TOO_BIG;
		total += bytes[k];
	}

	for (k = 0; k < ANE_FW_OPERANDS; k++) {
		const u32 *dim = t[k]->dim;

		if (!bytes[k])
			continue;
		x->buf[k] = ane_fw_mem_alloc(x->fw, bytes[k],
					     k == ANE_TD_REG_DST);
		if (!x->buf[k])
			return ANE_FW_ST_NOMEM;
		x->len[k] = bytes[k];
		if (k != ANE_TD_REG_DST) {
			st = ane_fw_engine_dma(x, &ops[k], x->buf[k], bytes[k],
					       false);
			if (st)
				return st;
		}
		ane_tensor_dense(t[k], x->buf[k], dim[0], dim[1], dim[2],
				 dim[3]);
	}

	d.chunk_work = ANE_FW_CHUNK_WORK;
	if (ane_fw_engine_errno(ane_op_workspace_size(&d, &ws)))
		return ANE_FW_ST_INVALID;
	if (ws) {
		if (ws + ANE_MATH_WORK_ALIGN > ANE_FW_STAGE_MAX - total)
			return ANE_FW_ST_TOO_BIG;
		x->work_len = ws + ANE_MATH_WORK_ALIGN;
		x->work = ane_fw_mem_alloc(x->fw, x->work_len, false);
		if (!x->work)
			return ANE_FW_ST_NOMEM;
		total += x->work_len;
		d.work = PTR_ALIGN(x->work, ANE_MATH_WORK_ALIGN);
		d.work_size = ws;
	}
	x->fw->stage_peak = max(x->fw->stage_peak, total);

	st = ane_fw_run_op(x, &d);
	if (st)
		return st;
	return ane_fw_engine_dma(x, &ops[ANE_TD_REG_DST], x->buf[ANE_TD_REG_DST],
				 x->len[ANE_TD_REG_DST], true);
}

/**
 * ane_fw_program_exec() - run a request's procedure on the engine
 * @fw: the firmware, the loop in EXEC.
 * @r: the request, dispatched; @r->t_start set.
 * @deadline_ns: time it may take from @r->t_start.
 *
 * Tasks run in order; the first failure ends the request and the rest of
 * the procedure does not run.  A program without an image, and a chaining
 * trigger, compute nothing.
 *
 * Return: %ANE_FW_ST_OK; %ANE_FW_ST_NOENT if the program was unloaded
 * since the request was queued; %ANE_FW_ST_INVALID for a bar the call
 * does not provide (or provides too small), a binding or task the engine
 * refuses; %ANE_FW_ST_FAULT for a DART fault on the engine's DMA;
 * %ANE_FW_ST_TIMEOUT past the deadline; %ANE_FW_ST_TOO_BIG when a task's
 * operands and workspace exceed %ANE_FW_STAGE_MAX; %ANE_FW_ST_NOMEM;
 * %ANE_FW_ST_UNSUPPORTED without a usable FPU; %ANE_FW_ST_RESET when the
 * controller is being halted.
 */
int ane_fw_program_exec(struct ane_fw *fw, struct ane_fw_req *r,
			u64 deadline_ns)
{
	const struct ane_fw_program *p;
	struct ane_fw_run *x;
	u32 i;
	int st;

	if (r->hdr.program_id < 0 || r->hdr.program_id >= ANE_FW_MAX_PROGRAMS)
		return ANE_FW_ST_INVALID;
	p = &fw->programs[r->hdr.program_id];
	if (!p->valid || p->gen != r->prog_gen)
		return ANE_FW_ST_NOENT;
	if (!p->img || r->cache_handler)
		return ANE_FW_ST_OK;
	if (r->hdr.procedure_id >= p->img->hdr.num_procedures)
		return ANE_FW_ST_INVALID;

	/* @ap and @sid are read only for the bars in @have: left unzeroed. */
	x = ane_fw_mem_alloc(fw, sizeof(*x), false);
	if (!x)
		return ANE_FW_ST_NOMEM;
	memset((u8 *)x + offsetof(struct ane_fw_run, have), 0,
	       sizeof(*x) - offsetof(struct ane_fw_run, have));
	x->fw = fw;
	x->img = p->img;
	x->proc = &p->img->procs[r->hdr.procedure_id];
	x->deadline = r->t_start + deadline_ns;
	x->ops_bytes = x->proc->num_tds * sizeof(*x->ops);
	x->ops = ane_fw_mem_alloc(fw, x->ops_bytes, true);
	if (!x->ops) {
		st = ANE_FW_ST_NOMEM;
		goto out;
	}
	st = ane_fw_run_bars(x, r, p->mapped_base);
	if (!st)
		st = ane_fw_run_bind(x);
	for (i = 0; !st && i < x->proc->num_tds; i++) {
		st = ane_fw_run_stop(x);
		if (!st)
			st = ane_fw_run_task(x, i);
		ane_fw_run_release(x);
	}
out:
	ane_fw_mem_free(fw, x->ops, x->ops_bytes);
	ane_fw_mem_free(fw, x, sizeof(*x));
	return st;
}
