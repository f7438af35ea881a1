// SPDX-License-Identifier: GPL-2.0-only
/*
 * Program images: every byte is validated before anything else -- the
 * firmware above all -- looks at an image.  A refusal is -EINVAL with the
 * name of the offending field, which the caller logs.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ane_image.h"
#include "ane_limits.h"
#include "firmware/spec/ane_td.h"
#include "firmware/spec/ane_isa.h"

#define ANE_IMG_TABLE_ALIGN	16	/* DMA width granule */
#define ANE_IMG_TD_ALIGN	256	/* segment alignment */

struct ane_img_check {
	const u8 *img;
	size_t size;
	const struct ane_img_header *hdr;
	const struct ane_img_bar *bars;
	const struct ane_img_bar *slot[ANE_IMG_MAX_BARS];
	char *field;
};

__printf(2, 3)
static int ane_img_bad(struct ane_img_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->field, ANE_IMG_FIELD_LEN, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A section [off, off + len) inside the image and after the header. */
static bool ane_img_in_image(struct ane_img_check *c, u64 off, u64 len)
{
	return off >= sizeof(*c->hdr) && off <= c->size && len <= c->size - off;
}

/*
 * An optional section: absent (@len 0) with offset 0, or aligned to @align
 * and inside the image.
 */
static bool ane_img_section_ok(struct ane_img_check *c, u64 off, u64 len, u64 align)
{
	if (!len)
		return !off;
	return !(off % align) && ane_img_in_image(c, off, len);
}

struct ane_img_range {
	u64 start, len;
	const char *name;
};

static int ane_img_check_header(struct ane_img_check *c)
{
	const struct ane_img_header *h = c->hdr;
	struct ane_img_range r[7];
	unsigned int i, j, n = 0;
	u64 len;

	if (h->magic != ANE_IMG_MAGIC)
		return ane_img_bad(c, "header.magic");
	if (h->version_major != ANE_IMG_VERSION_MAJOR)
		return ane_img_bad(c, "header.version_major");
	if (h->header_size != sizeof(*h))
		return ane_img_bad(c, "header.header_size");
	if (h->flags)
		return ane_img_bad(c, "header.flags");
	if (memchr_inv(h->reserved, 0, sizeof(h->reserved)))
		return ane_img_bad(c, "header.reserved");
	if (h->image_size != c->size)
		return ane_img_bad(c, "header.image_size");

	if (!h->num_procedures || h->num_procedures > ANE_IMG_MAX_PROCEDURES)
		return ane_img_bad(c, "header.num_procedures");
	len = (u64)h->num_procedures * sizeof(struct ane_img_procedure);
	if (!ane_img_section_ok(c, h->procedures_offset, len, ANE_IMG_TABLE_ALIGN))
		return ane_img_bad(c, "header.procedures_offset");
	r[n++] = (struct ane_img_range){ h->procedures_offset, len, "procedures" };

	if (!h->num_tds || h->num_tds > ANE_IMG_MAX_TDS)
		return ane_img_bad(c, "header.num_tds");
	len = (u64)h->num_tds * sizeof(struct ane_img_td);
	if (!ane_img_section_ok(c, h->tds_offset, len, ANE_IMG_TD_ALIGN))
		return ane_img_bad(c, "header.tds_offset");
	r[n++] = (struct ane_img_range){ h->tds_offset, len, "tds" };

	if (h->num_rws > ANE_IMG_MAX_RWS)
		return ane_img_bad(c, "header.num_rws");
	len = (u64)h->num_rws * sizeof(struct ane_img_rw);
	if (!ane_img_section_ok(c, h->rws_offset, len, ANE_IMG_TABLE_ALIGN))
		return ane_img_bad(c, "header.rws_offset");
	r[n++] = (struct ane_img_range){ h->rws_offset, len, "rws" };

	if (h->num_bars > ANE_IMG_MAX_BARS)
		return ane_img_bad(c, "header.num_bars");
	len = (u64)h->num_bars * sizeof(struct ane_img_bar);
	if (!ane_img_section_ok(c, h->bars_offset, len, ANE_IMG_TABLE_ALIGN))
		return ane_img_bad(c, "header.bars_offset");
	r[n++] = (struct ane_img_range){ h->bars_offset, len, "bars" };

	if (!ane_img_section_ok(c, h->weights_offset, h->weights_size, ANE_DART_PAGE_SIZE))
		return ane_img_bad(c, "header.weights_offset");
	r[n++] = (struct ane_img_range){ h->weights_offset, h->weights_size, "weights" };

	if (!ane_img_section_ok(c, h->constants_offset, h->constants_size,
				ANE_DART_PAGE_SIZE))
		return ane_img_bad(c, "header.constants_offset");
	r[n++] = (struct ane_img_range){ h->constants_offset, h->constants_size, "constants" };

	if (h->intermediate_size > ANE_BO_MAX_SIZE)
		return ane_img_bad(c, "header.intermediate_size");

	if (h->num_exec_order > ANE_IMG_MAX_EXEC_TABLE)
		return ane_img_bad(c, "header.num_exec_order");
	len = (u64)h->num_exec_order * sizeof(u32);
	if (!ane_img_section_ok(c, h->exec_order_offset, len, ANE_IMG_TABLE_ALIGN))
		return ane_img_bad(c, "header.exec_order_offset");
	r[n++] = (struct ane_img_range){ h->exec_order_offset, len, "exec_order" };

	/* No two sections overlap. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (r[i].len && r[j].len && r[i].start < r[j].start + r[j].len &&
			    r[j].start < r[i].start + r[i].len)
				return ane_img_bad(c, "header.%s_offset (overlaps %s)",
						   r[j].name, r[i].name);
	return 0;
}

static int ane_img_check_bars(struct ane_img_check *c)
{
	const struct ane_img_header *h = c->hdr;
	u32 i;

	c->bars = (const void *)(c->img + h->bars_offset);
	for (i = 0; i < h->num_bars; i++) {
		const struct ane_img_bar *b = &c->bars[i];
		u64 limit;

		if (b->slot >= ANE_IMG_MAX_BARS || c->slot[b->slot])
			return ane_img_bad(c, "bar[%u].slot", i);
		c->slot[b->slot] = b;
		switch (b->usage) {
		case ANE_USAGE_INPUT:
		case ANE_USAGE_OUTPUT:
			limit = ANE_BO_MAX_SIZE;
			if (b->io_index >= ANE_IMG_MAX_IO)
				return ane_img_bad(c, "bar[%u].io_index", i);
			break;
		case ANE_USAGE_INTERMEDIATE:
			limit = h->intermediate_size;
			break;
		case ANE_USAGE_WEIGHTS:
			limit = h->weights_size;
			break;
		case ANE_USAGE_CONSTANTS:
			limit = h->constants_size;
			break;
		default:
			return ane_img_bad(c, "bar[%u].usage", i);
		}
		if (b->usage != ANE_USAGE_INPUT && b->usage != ANE_USAGE_OUTPUT && b->io_index)
			return ane_img_bad(c, "bar[%u].io_index", i);
		if (b->reserved)
			return ane_img_bad(c, "bar[%u].reserved", i);
		if (!b->size || b->size > limit)
			return ane_img_bad(c, "bar[%u].size", i);
	}
	return 0;
}

static bool ane_tensor_present(const struct ane_tensor *t)
{
	return t->dim[0] | t->dim[1] | t->dim[2] | t->dim[3];
}

/*
 * Give a present operand a placeholder base for validation: each bar gets
 * its own 2^40-byte window, so operands of different bars never overlap
 * and operands of one bar overlap exactly as they would at run time.  Its
 * strides are the decoded ones (dense, or its layout word's).
 */
static void ane_td_bind(struct ane_tensor *t, u32 slot, u64 offset, u64 length)
{
	t->base = (void *)(uintptr_t)(((u64)slot + 1) << 40 | offset);
	t->size = length;
}

static const char *const ane_td_layout_name[] = {
	"src0_layout", "src1_layout", "bias_layout", "dst_layout",
};

/*
 * A procedure's execute order: at most %ANE_IMG_MAX_EXEC_ORDER entries of
 * the table, each a run of the procedure's task descriptors, all of them
 * at most %ANE_IMG_MAX_TDS.
 */
static int ane_img_check_exec_order(struct ane_img_check *c, u32 p,
				    const struct ane_img_procedure *pr)
{
	const struct ane_img_header *h = c->hdr;
	const u32 *order = (const void *)(c->img + h->exec_order_offset);
	u32 i, total = 0;

	if (pr->exec_order_count > ANE_IMG_MAX_EXEC_ORDER)
		return ane_img_bad(c, "procedure[%u].exec_order_count", p);
	if (!pr->exec_order_count) {
		if (pr->exec_order_first)
			return ane_img_bad(c, "procedure[%u].exec_order_first", p);
		return 0;
	}
	if (pr->exec_order_first >= h->num_exec_order ||
	    pr->exec_order_count > h->num_exec_order - pr->exec_order_first)
		return ane_img_bad(c, "procedure[%u].exec_order_first", p);
	for (i = 0; i < pr->exec_order_count; i++) {
		u32 e = order[pr->exec_order_first + i];
		u32 start = e & 0xffff, n = e >> 16;

		if (start >= pr->num_tds || n > pr->num_tds - start)
			return ane_img_bad(c, "exec_order[%u]",
					   pr->exec_order_first + i);
		total += n ? n : pr->num_tds - start;
		if (total > ANE_IMG_MAX_TDS)
			return ane_img_bad(c,
					   "procedure[%u].exec_order_count (%u tasks)",
					   p, total);
	}
	return 0;
}

/*
 * Register write @n binds operand @rw->reg of task @d to @len bytes: the
 * whole extent it reaches -- dense, strided or a copy's view, computed
 * with every product checked -- lies inside the binding.
 */
static int ane_img_check_reach(struct ane_img_check *c, u32 n,
			       const struct ane_img_rw *rw,
			       const struct ane_op_desc *d, u64 len)
{
	__s64 first;
	__u64 reach = ane_td_reach(d, rw->reg, &first);

	if (!reach)
		return ane_img_bad(c, "td[%u] (operand %u's view is out of range)",
				   rw->td, rw->reg);
	if (first < 0)
		return ane_img_bad(c, "td[%u] (operand %u reaches element %lld before its binding)",
				   rw->td, rw->reg, first);
	if (reach > len)
		return ane_img_bad(c, "rw[%u].length (operand reaches %llu bytes)",
				   n, reach);
	return 0;
}

/* A procedure's own fields, and its execute order. */
static int ane_img_check_proc_fields(struct ane_img_check *c, u32 p,
				     const struct ane_img_procedure *pr)
{
	const struct ane_img_header *h = c->hdr;

	if (!pr->num_tds || pr->first_td >= h->num_tds ||
	    pr->num_tds > h->num_tds - pr->first_td)
		return ane_img_bad(c, "procedure[%u].num_tds", p);
	if (pr->first_rw > h->num_rws || pr->num_rws > h->num_rws - pr->first_rw)
		return ane_img_bad(c, "procedure[%u].num_rws", p);
	if (pr->num_inputs > ANE_IMG_MAX_IO)
		return ane_img_bad(c, "procedure[%u].num_inputs", p);
	if (!pr->num_outputs || pr->num_outputs > ANE_IMG_MAX_IO)
		return ane_img_bad(c, "procedure[%u].num_outputs", p);
	if (pr->partitions != 1)
		return ane_img_bad(c, "procedure[%u].partitions", p);
	if (pr->content_type != 0 && pr->content_type != 3 && pr->content_type != 4)
		return ane_img_bad(c, "procedure[%u].content_type", p);
	return ane_img_check_exec_order(c, p, pr);
}

/* The procedure's TDs decode: layouts, words, descriptors into @descs. */
static int ane_img_decode_tds(struct ane_img_check *c,
			      const struct ane_img_procedure *pr,
			      struct ane_op_desc *descs)
{
	const struct ane_img_td *tds = (const void *)(c->img + c->hdr->tds_offset);
	u32 i, k;

	for (i = 0; i < pr->num_tds; i++) {
		const struct ane_img_td *td = &tds[pr->first_td + i];

		for (k = 0; k <= ANE_TD_REG_DST; k++)
			if (!ane_td_layout_ok(td, k))
				return ane_img_bad(c, "td[%u].%s", pr->first_td + i,
						   ane_td_layout_name[k]);
		if (td->words[ANE_TD_OP] && td->words[ANE_TD_OP] < ANE_OP_COUNT &&
		    ane_td_bad_word(td) >= 0)
			return ane_img_bad(c, "td[%u].words[%d]", pr->first_td + i,
					   ane_td_bad_word(td));
		if (ane_image_td_desc(td, &descs[i]))
			return ane_img_bad(c, "td[%u]", pr->first_td + i);
	}
	return 0;
}

/*
 * Register write @n binds an operand of one of the procedure's TDs
 * (@descs) to a bar the procedure may use, within the bar and covering
 * all the operand reaches; @bound records the operands bound.
 */
static int ane_img_bind_rw(struct ane_img_check *c,
			   const struct ane_img_procedure *pr, u32 n,
			   struct ane_op_desc *descs, u8 *bound)
{
	const struct ane_img_rw *rw = (const struct ane_img_rw *)
				      (c->img + c->hdr->rws_offset) + n;
	const struct ane_img_bar *b;
	u64 off, len;
	u32 i;
	int ret;

	if (rw->td < pr->first_td || rw->td - pr->first_td >= pr->num_tds)
		return ane_img_bad(c, "rw[%u].td", n);
	i = rw->td - pr->first_td;
	if (rw->reg > ANE_TD_REG_DST || bound[i] & BIT(rw->reg) ||
	    !ane_tensor_present(ane_td_operand(&descs[i], rw->reg)))
		return ane_img_bad(c, "rw[%u].reg", n);
	b = rw->bar < ANE_IMG_MAX_BARS ? c->slot[rw->bar] : NULL;
	if (!b || (b->usage == ANE_USAGE_INPUT && b->io_index >= pr->num_inputs) ||
	    (b->usage == ANE_USAGE_OUTPUT && b->io_index >= pr->num_outputs))
		return ane_img_bad(c, "rw[%u].bar", n);
	/* The engine writes only outputs and intermediates. */
	if (rw->reg == ANE_TD_REG_DST && b->usage != ANE_USAGE_OUTPUT &&
	    b->usage != ANE_USAGE_INTERMEDIATE)
		return ane_img_bad(c, "rw[%u].bar (destination is read-only)", n);
	if (rw->flags || memchr_inv(rw->reserved, 0, sizeof(rw->reserved)))
		return ane_img_bad(c, "rw[%u].%s", n, rw->flags ? "flags" : "reserved");
	off = (u64)rw->offset_hi << 32 | rw->offset_lo;
	len = (u64)rw->length_hi << 32 | rw->length_lo;
	if (off % ANE_IMG_TABLE_ALIGN || off >= b->size)
		return ane_img_bad(c, "rw[%u].offset", n);
	if (!len || len > b->size - off)
		return ane_img_bad(c, "rw[%u].length", n);
	ret = ane_img_check_reach(c, n, rw, &descs[i], len);
	if (ret)
		return ret;
	ane_td_bind(ane_td_operand(&descs[i], rw->reg), rw->bar, off, len);
	bound[i] |= BIT(rw->reg);
	return 0;
}

/* Every operand bound; the engine accepts each operation as bound. */
static int ane_img_check_bound(struct ane_img_check *c,
			       const struct ane_img_procedure *pr,
			       struct ane_op_desc *descs, const u8 *bound)
{
	u32 i, k;

	for (i = 0; i < pr->num_tds; i++) {
		for (k = 0; k <= ANE_TD_REG_DST; k++)
			if (ane_tensor_present(ane_td_operand(&descs[i], k)) &&
			    !(bound[i] & BIT(k)))
				return ane_img_bad(c, "td[%u] (operand %u not bound)",
						   pr->first_td + i, k);
		if (ane_op_check(&descs[i]))
			return ane_img_bad(c, "td[%u] (operation)", pr->first_td + i);
	}
	return 0;
}

/* One procedure: its TDs decode, its register writes bind every operand. */
static int ane_img_check_procedure(struct ane_img_check *c, u32 p,
				   const struct ane_img_procedure *pr)
{
	struct ane_op_desc *descs;
	u8 *bound;
	u32 k;
	int ret;

	ret = ane_img_check_proc_fields(c, p, pr);
	if (ret)
		return ret;
	descs = kvcalloc(pr->num_tds, sizeof(*descs), GFP_KERNEL);
	bound = kvcalloc(pr->num_tds, sizeof(*bound), GFP_KERNEL);
	if (!descs || !bound) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ane_img_decode_tds(c, pr, descs);
	for (k = 0; k < pr->num_rws && !ret; k++)
		ret = ane_img_bind_rw(c, pr, pr->first_rw + k, descs, bound);
	if (!ret)
		ret = ane_img_check_bound(c, pr, descs, bound);
out:
	kvfree(descs);
	kvfree(bound);
	return ret;
}

/**
 * ane_image_validate_header() - validate an image's header alone
 * @hdr: the header (the image's first bytes), in kernel memory.
 * @size: the size of the whole image.
 * @field: receives the name of the offending field (%ANE_IMG_FIELD_LEN
 *	bytes).
 *
 * The header rules of ane_image_validate(), which looks at nothing else
 * first: ProgramCreate checks the header before it allocates the image,
 * so an image that cannot be valid costs nothing.  ane_image_validate()
 * checks the header again, on the kernel's copy of the whole image.
 *
 * Return: 0, or -EINVAL with @field set.
 */
int ane_image_validate_header(const struct ane_img_header *hdr, size_t size,
			      char *field)
{
	struct ane_img_check c = { .hdr = hdr, .size = size, .field = field };

	field[0] = '\0';
	if (size < sizeof(*hdr) || size > ANE_IMG_MAX_SIZE)
		return ane_img_bad(&c, "header.image_size");
	return ane_img_check_header(&c);
}

/**
 * ane_image_validate() - validate a program image completely
 * @img: the image, in kernel memory.
 * @size: its size in bytes.
 * @field: receives the name of the offending field (%ANE_IMG_FIELD_LEN
 *	bytes), e.g. "procedure[2].num_tds".
 *
 * Checks bounds, counts, overlaps, the three alignment scales, that every
 * reserved field is zero, that every task descriptor decodes to an
 * operation the engine accepts with operands bound to bars that provide
 * them, and that no operation writes an input, weights or constants.
 *
 * Return: 0, -EINVAL with @field set, or -ENOMEM.
 */
int ane_image_validate(const void *img, size_t size, char *field)
{
	struct ane_img_check c = { .img = img, .size = size, .field = field };
	const struct ane_img_procedure *procs;
	u32 i;
	int ret;

	c.hdr = img;
	ret = ane_image_validate_header(c.hdr, size, field);
	if (!ret)
		ret = ane_img_check_bars(&c);
	if (ret)
		return ret;
	procs = (const void *)(c.img + c.hdr->procedures_offset);
	for (i = 0; i < c.hdr->num_procedures && !ret; i++)
		ret = ane_img_check_procedure(&c, i, &procs[i]);
	return ret;
}
