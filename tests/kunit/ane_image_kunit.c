// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: program image validation -- a good image passes, and one broken
 * field of every class is refused with -EINVAL naming that field (a
 * gather's among them: its words, its int16 indices' shape and binding).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "driver/ane_dart.h"
#include "driver/ane_image.h"
#include "firmware/hw/engine/ane_math.h"
#include "firmware/spec/ane_td.h"

/*
 * The image: one procedure of two tasks, a matmul of input 0 (2x3) by the
 * weights (3x2) into an intermediate, then relu into output 0.
 */
#define IMG_SIZE	(ANE_DART_PAGE_SIZE + 16)
#define OFF_PROCS	128
#define OFF_BARS	160
#define OFF_TDS		256
#define OFF_RWS		544
#define OFF_WEIGHTS	ANE_DART_PAGE_SIZE

struct img {
	u8 *b;
	struct ane_img_header *h;
	struct ane_img_procedure *p;
	struct ane_img_bar *bar;
	struct ane_img_td *td;
	struct ane_img_rw *rw;
};

static void set_dims(u32 *w, u32 n, u32 c, u32 h, u32 x)
{
	w[0] = n;
	w[1] = c;
	w[2] = h;
	w[3] = x;
}

static void set_rw(struct ane_img_rw *rw, u32 td, u32 reg, u32 bar, u32 len)
{
	rw->td = td;
	rw->reg = reg;
	rw->bar = bar;
	rw->length_lo = len;
}

static void build(struct kunit *test, struct img *m)
{
	m->b = kunit_kzalloc(test, IMG_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->b);
	m->h = (void *)m->b;
	m->p = (void *)(m->b + OFF_PROCS);
	m->bar = (void *)(m->b + OFF_BARS);
	m->td = (void *)(m->b + OFF_TDS);
	m->rw = (void *)(m->b + OFF_RWS);

	*m->h = (struct ane_img_header){
		.magic = ANE_IMG_MAGIC, .version_major = 1, .header_size = 128,
		.image_size = IMG_SIZE,
		.num_procedures = 1, .procedures_offset = OFF_PROCS,
		.num_tds = 2, .tds_offset = OFF_TDS,
		.num_rws = 5, .rws_offset = OFF_RWS,
		.num_bars = 4, .bars_offset = OFF_BARS,
		.weights_offset = OFF_WEIGHTS, .weights_size = 12,
		.intermediate_size = ANE_DART_PAGE_SIZE,
	};
	*m->p = (struct ane_img_procedure){
		.num_tds = 2, .num_rws = 5, .num_inputs = 1, .num_outputs = 1,
		.partitions = 1,
	};
	m->bar[0] = (struct ane_img_bar){ .slot = 0, .usage = 1, .size = 12 };
	m->bar[1] = (struct ane_img_bar){ .slot = 1, .usage = 2, .size = 8 };
	m->bar[2] = (struct ane_img_bar){ .slot = 5, .usage = 8, .size = 12 };
	m->bar[3] = (struct ane_img_bar){ .slot = 7, .usage = 7, .size = 64 };

	m->td[0].words[ANE_TD_OP] = ANE_OP_MATMUL;
	set_dims(&m->td[0].words[ANE_TD_SRC0_DIMS], 1, 1, 2, 3);
	set_dims(&m->td[0].words[ANE_TD_SRC1_DIMS], 1, 1, 3, 2);
	set_dims(&m->td[0].words[ANE_TD_DST_DIMS], 1, 1, 2, 2);
	m->td[1].words[ANE_TD_OP] = ANE_OP_ACT;
	m->td[1].words[ANE_TD_ACT] = ANE_ACT_RELU;
	set_dims(&m->td[1].words[ANE_TD_SRC0_DIMS], 1, 1, 2, 2);
	set_dims(&m->td[1].words[ANE_TD_DST_DIMS], 1, 1, 2, 2);

	set_rw(&m->rw[0], 0, ANE_TD_REG_SRC0, 0, 12);
	set_rw(&m->rw[1], 0, ANE_TD_REG_SRC1, 5, 12);
	set_rw(&m->rw[2], 0, ANE_TD_REG_DST, 7, 8);
	set_rw(&m->rw[3], 1, ANE_TD_REG_SRC0, 7, 8);
	set_rw(&m->rw[4], 1, ANE_TD_REG_DST, 1, 8);
}

#define OFF_ORDER	1024

/* An execute-order table of @n entries; procedure 0 uses @count from @first. */
static void set_order(struct img *m, u32 n, u32 first, u32 count,
		      const u32 *entries)
{
	u32 *t = (void *)(m->b + OFF_ORDER);

	m->h->num_exec_order = n;
	m->h->exec_order_offset = n ? OFF_ORDER : 0;
	memcpy(t, entries, n * sizeof(*t));
	m->p->exec_order_first = first;
	m->p->exec_order_count = count;
}

static const u32 order3[] = { ANE_IMG_EXEC(0, 2), ANE_IMG_EXEC(0, 0),
			      ANE_IMG_EXEC(1, 1) };

/*
 * Task 1 as a copy (minor version 3) of the intermediate's 2 x 2 into
 * the output: the source's H and W reversed (strides -2 and -1 from
 * element 3), the destination dense.
 */
static void to_copy(struct img *m)
{
	u32 *w = m->td[1].words;
	static const s32 src[4] = { 4, 4, -2, -1 }, dst[4] = { 4, 4, 2, 1 };
	unsigned int i;

	w[ANE_TD_OP] = ANE_OP_COPY;
	w[ANE_TD_ACT] = 0;
	for (i = 0; i < 4; i++) {
		w[ANE_TD_COPY_SRC_STRIDE + i] = (u32)src[i];
		w[ANE_TD_COPY_DST_STRIDE + i] = (u32)dst[i];
	}
	w[ANE_TD_COPY_SRC_OFFSET] = 3;
	w[ANE_TD_COPY_DST_OFFSET] = 0;
}

/*
 * Task 1 as a reduction (minor version 4): the sum over W of the
 * intermediate's 2 x 2 into the output's first 2 elements.
 */
static void to_reduce(struct img *m)
{
	u32 *w = m->td[1].words;

	w[ANE_TD_OP] = ANE_OP_REDUCE;
	w[ANE_TD_ACT] = ANE_ACT_RELU;
	w[ANE_TD_SUBOP] = ANE_REDUCE_SUM;
	w[ANE_TD_FLAGS] = ANE_REDUCE_AXIS(ANE_W);
	set_dims(&w[ANE_TD_DST_DIMS], 1, 1, 2, 1);
}

/*
 * Task 1 as a gather (minor version 4): rows of the intermediate's 2 x 2
 * table picked by two int16 indices from the weights bar (a 6th register
 * write), into the output.
 */
static void to_gather(struct img *m)
{
	u32 *w = m->td[1].words;

	w[ANE_TD_OP] = ANE_OP_GATHER;
	w[ANE_TD_ACT] = 0;
	set_dims(&w[ANE_TD_SRC1_DIMS], 1, 1, 1, 2);
	m->h->num_rws = 6;
	m->p->num_rws = 6;
	set_rw(&m->rw[5], 1, ANE_TD_REG_SRC1, 5, 4);
}

/* Task 1 as a layer normalization over W with epsilon 0.5 (minor 4). */
static void to_norm(struct img *m)
{
	u32 *w = m->td[1].words;

	w[ANE_TD_OP] = ANE_OP_NORM;
	w[ANE_TD_ACT] = 0;
	w[ANE_TD_SUBOP] = ANE_NORM_LAYER;
	w[ANE_TD_NORM_EPS] = 0x3f000000;
}

struct bad_case {
	const char *desc;
	void (*mutate)(struct img *m);
	const char *field;
};

#define BAD(name, body) \
	static void mut_##name(struct img *m) { body; }
#define CASE(name, field_) { #name, mut_##name, field_ }

BAD(magic, m->h->magic++)
BAD(version, m->h->version_major = 2)
BAD(header_size, m->h->header_size = 64)
BAD(header_flags, m->h->flags = 1)
BAD(header_reserved, m->h->reserved[5] = 1)
BAD(image_size, m->h->image_size = IMG_SIZE - 16)
BAD(no_procedures, m->h->num_procedures = 0)
BAD(too_many_procedures, m->h->num_procedures = 289)
BAD(procs_misaligned, m->h->procedures_offset = 136)
BAD(procs_in_header, m->h->procedures_offset = 64)
BAD(tds_off_segment, m->h->tds_offset = 272)
BAD(tds_past_end, m->h->num_tds = 200)
BAD(rws_overlap_tds, m->h->rws_offset = 384)
BAD(rws_without_count, { m->h->num_rws = 0; m->p->num_rws = 0; })
BAD(bars_too_many, m->h->num_bars = 33)
BAD(weights_off_page, m->h->weights_offset = 4096)
BAD(weights_past_end, m->h->weights_size = 4096)
BAD(intermediate_huge, m->h->intermediate_size = 1ull << 31)
BAD(bar_slot_twice, m->bar[1].slot = 0)
BAD(bar_slot_range, m->bar[3].slot = 32)
BAD(bar_usage_text, m->bar[2].usage = 9)
BAD(bar_usage_fw, m->bar[2].usage = 0x1019)
BAD(bar_io_on_weights, m->bar[2].io_index = 1)
BAD(bar_io_range, m->bar[0].io_index = 16)
BAD(bar_reserved, m->bar[0].reserved = 1)
BAD(bar_weights_size, m->bar[2].size = 14)
BAD(bar_zero_size, m->bar[1].size = 0)
BAD(proc_no_tds, m->p->num_tds = 0)
BAD(proc_tds_range, m->p->first_td = 1)
BAD(proc_rws_range, m->p->num_rws = 6)
BAD(proc_partitions, m->p->partitions = 2)
BAD(proc_content, m->p->content_type = 1)
BAD(proc_outputs, m->p->num_outputs = 0)
BAD(proc_inputs, m->p->num_inputs = 17)
BAD(proc_exec_order_count, m->p->exec_order_count = ANE_IMG_MAX_EXEC_ORDER + 1)
BAD(order_first_past, set_order(m, 3, 1, 3, order3))
BAD(order_first_alone, set_order(m, 3, 1, 0, order3))
BAD(order_entry_outside, { set_order(m, 3, 0, 3, order3);
	((u32 *)(m->b + OFF_ORDER))[1] = ANE_IMG_EXEC(2, 0); })
BAD(order_entry_long, { set_order(m, 3, 0, 3, order3);
	((u32 *)(m->b + OFF_ORDER))[2] = ANE_IMG_EXEC(1, 2); })
BAD(order_table_big, { set_order(m, 3, 0, 3, order3);
	m->h->num_exec_order = ANE_IMG_MAX_EXEC_TABLE + 1; })
BAD(order_table_misaligned, { set_order(m, 3, 0, 3, order3);
	m->h->exec_order_offset += 4; })
BAD(order_table_overlaps, { set_order(m, 3, 0, 3, order3);
	m->h->exec_order_offset = OFF_RWS; })
BAD(td_op_zero, m->td[0].words[ANE_TD_OP] = 0)
BAD(td_op_unknown, m->td[1].words[ANE_TD_OP] = 99)
BAD(td_pad, m->td[0].pad = 1)
BAD(td_layout_not_matmul, m->td[1].words[ANE_TD_BIAS_LAYOUT] = 1)
BAD(td_layout_row_short, m->td[0].words[ANE_TD_SRC0_LAYOUT] = ANE_TD_LAYOUT(2, 0))
BAD(td_layout_plane_short, m->td[0].words[ANE_TD_DST_LAYOUT] = ANE_TD_LAYOUT(0, 1))
BAD(td_layout_absent, m->td[0].words[ANE_TD_BIAS_LAYOUT] = ANE_TD_LAYOUT(3, 0))
BAD(td_layout_past, m->td[0].words[ANE_TD_SRC0_LAYOUT] = ANE_TD_LAYOUT(4, 0))
BAD(td_unused_word, m->td[0].words[ANE_TD_KERNEL_H] = 3)
BAD(td_bad_shape, m->td[0].words[ANE_TD_SRC1_DIMS + 2] = 2)
BAD(td_bad_act, m->td[1].words[ANE_TD_ACT] = 77)
BAD(rw_td_outside, m->rw[4].td = 2)
BAD(rw_reg_range, m->rw[0].reg = 7)
BAD(rw_reg_twice, m->rw[1].reg = ANE_TD_REG_SRC0)
BAD(rw_reg_absent, m->rw[1].reg = ANE_TD_REG_BIAS)
BAD(rw_bar_missing, m->rw[0].bar = 9)
BAD(rw_bar_io, m->p->num_inputs = 0)
BAD(rw_dst_readonly, m->rw[2].bar = 5)
BAD(rw_offset_align, m->rw[3].offset_lo = 8)
BAD(rw_offset_past, m->rw[3].offset_hi = 1)
BAD(rw_length_past, m->rw[1].length_lo = 13)
BAD(rw_length_zero, m->rw[4].length_lo = 0)
BAD(rw_flags, m->rw[2].flags = 1)
BAD(rw_reserved, m->rw[2].reserved[2] = 1)
BAD(operand_unbound, { m->h->num_rws = 4; m->p->num_rws = 4; })
BAD(operand_short, m->rw[2].length_lo = 4)
BAD(copy_dst_stride_negative, { to_copy(m);
	m->td[1].words[ANE_TD_COPY_DST_STRIDE + 2] = (u32)-2; })
BAD(copy_word14, { to_copy(m); m->td[1].words[14] = 1; })
BAD(copy_subop, { to_copy(m); m->td[1].words[ANE_TD_SUBOP] = 1; })
BAD(copy_src_before, { to_copy(m); m->td[1].words[ANE_TD_COPY_SRC_OFFSET] = 2; })
BAD(copy_src_past, { to_copy(m); m->td[1].words[ANE_TD_COPY_SRC_OFFSET] = 4; })
BAD(copy_dst_past, { to_copy(m); m->td[1].words[ANE_TD_COPY_DST_OFFSET] = 4; })
BAD(copy_view_huge, { to_copy(m); m->td[1].words[ANE_TD_SRC0_DIMS] = 1u << 25;
	m->td[1].words[ANE_TD_DST_DIMS] = 1u << 25; })
BAD(copy_act, { to_copy(m); m->td[1].words[ANE_TD_ACT] = 1; })
BAD(copy_layout, { to_copy(m); m->td[1].words[ANE_TD_SRC0_LAYOUT] = 1; })
BAD(copy_dst_self_overlap, { to_copy(m);
	m->td[1].words[ANE_TD_COPY_DST_STRIDE + 2] = 1; })
BAD(copy_dims_differ, { to_copy(m); m->td[1].words[ANE_TD_DST_DIMS + 2] = 1;
	m->td[1].words[ANE_TD_DST_DIMS + 3] = 4; })
BAD(copy_ranges_overlap, { to_copy(m); m->rw[4].bar = 7; })
BAD(copy_src1_bound, { to_copy(m); m->rw[4].reg = ANE_TD_REG_SRC1; })
BAD(reduce_kind, { to_reduce(m); m->td[1].words[ANE_TD_SUBOP] = ANE_REDUCE_COUNT; })
BAD(reduce_axes_none, { to_reduce(m); m->td[1].words[ANE_TD_FLAGS] = 0; })
BAD(reduce_axes_high, { to_reduce(m); m->td[1].words[ANE_TD_FLAGS] = 0x18; })
BAD(reduce_word4, { to_reduce(m); m->td[1].words[4] = 1; })
BAD(reduce_word14, { to_reduce(m); m->td[1].words[14] = 1; })
BAD(reduce_dst_kept_axis, { to_reduce(m); m->td[1].words[ANE_TD_FLAGS] = 0x4; })
BAD(reduce_dst_not_one, { to_reduce(m); m->td[1].words[ANE_TD_DST_DIMS + 3] = 2; })
BAD(reduce_act_parametric, { to_reduce(m); m->td[1].words[ANE_TD_ACT] = ANE_ACT_ELU; })
BAD(reduce_layout, { to_reduce(m); m->td[1].words[ANE_TD_DST_LAYOUT] = 1; })
BAD(gather_word2, { to_gather(m); m->td[1].words[ANE_TD_SUBOP] = 1; })
BAD(gather_word14, { to_gather(m); m->td[1].words[14] = 1; })
BAD(gather_act, { to_gather(m); m->td[1].words[ANE_TD_ACT] = ANE_ACT_RELU; })
BAD(gather_indices_not_a_row, { to_gather(m);
	set_dims(&m->td[1].words[ANE_TD_SRC1_DIMS], 1, 1, 2, 1); })
BAD(gather_dst_h_not_k, { to_gather(m);
	set_dims(&m->td[1].words[ANE_TD_DST_DIMS], 1, 1, 1, 4); })
BAD(gather_dst_w, { to_gather(m);
	set_dims(&m->td[1].words[ANE_TD_SRC1_DIMS], 1, 1, 1, 4);
	set_dims(&m->td[1].words[ANE_TD_DST_DIMS], 1, 1, 4, 1); m->rw[5].length_lo = 8; })
BAD(gather_indices_short, { to_gather(m); m->rw[5].length_lo = 2; })
BAD(gather_indices_unbound, { to_gather(m); m->h->num_rws = 5; m->p->num_rws = 5; })
BAD(gather_layout, { to_gather(m); m->td[1].words[ANE_TD_SRC1_LAYOUT] = 1; })
BAD(gather_bias, { to_gather(m); set_dims(&m->td[1].words[ANE_TD_BIAS_DIMS], 1, 1, 1, 1); })
BAD(gather_dst_is_table, { to_gather(m); m->rw[4].bar = 7; })
BAD(op_after_gather_unknown, m->td[1].words[ANE_TD_OP] = ANE_OP_COUNT)
BAD(norm_eps_nan, { to_norm(m); m->td[1].words[ANE_TD_NORM_EPS] = 0x7fc00000; })
BAD(norm_eps_inf, { to_norm(m); m->td[1].words[ANE_TD_NORM_EPS] = 0x7f800000; })
BAD(norm_eps_negative, { to_norm(m); m->td[1].words[ANE_TD_NORM_EPS] = 0xbf000000; })
BAD(norm_eps_softmax, { to_norm(m); m->td[1].words[ANE_TD_SUBOP] = ANE_NORM_SOFTMAX; })
BAD(norm_eps_log_softmax, { to_norm(m);
	m->td[1].words[ANE_TD_SUBOP] = ANE_NORM_LOG_SOFTMAX; })
BAD(norm_kind, { to_norm(m); m->td[1].words[ANE_TD_SUBOP] = ANE_NORM_COUNT;
	m->td[1].words[ANE_TD_NORM_EPS] = 0; })
BAD(norm_word5, { to_norm(m); m->td[1].words[5] = 1; })
/* minor 4: an activation's parameter words, only ACT's with a parametric act */
BAD(act_alpha_not_parametric, m->td[1].words[ANE_TD_ACT_ALPHA] = 0x3f800000)
BAD(act_beta_not_parametric, { m->td[1].words[ANE_TD_ACT] = ANE_ACT_SIN;
	m->td[1].words[ANE_TD_ACT_BETA] = 1; })
BAD(act_alpha_on_matmul, { m->td[0].words[ANE_TD_ACT] = ANE_ACT_ELU;
	m->td[0].words[ANE_TD_ACT_ALPHA] = 0x3f800000; })
BAD(act_parametric_fused, m->td[0].words[ANE_TD_ACT] = ANE_ACT_LEAKY)
BAD(act_alpha_nan, { m->td[1].words[ANE_TD_ACT] = ANE_ACT_ELU;
	m->td[1].words[ANE_TD_ACT_ALPHA] = 0x7fc00000; })
BAD(act_beta_inf, { m->td[1].words[ANE_TD_ACT] = ANE_ACT_CLIP;
	m->td[1].words[ANE_TD_ACT_BETA] = 0xff800000; })
BAD(act_celu_alpha_zero, m->td[1].words[ANE_TD_ACT] = ANE_ACT_CELU)
BAD(act_unknown, m->td[1].words[ANE_TD_ACT] = ANE_ACT_COUNT)

static const struct bad_case bad_cases[] = {
	CASE(magic, "header.magic"),
	CASE(version, "header.version_major"),
	CASE(header_size, "header.header_size"),
	CASE(header_flags, "header.flags"),
	CASE(header_reserved, "header.reserved"),
	CASE(image_size, "header.image_size"),
	CASE(no_procedures, "header.num_procedures"),
	CASE(too_many_procedures, "header.num_procedures"),
	CASE(procs_misaligned, "header.procedures_offset"),
	CASE(procs_in_header, "header.procedures_offset"),
	CASE(tds_off_segment, "header.tds_offset"),
	CASE(tds_past_end, "header.tds_offset"),
	CASE(rws_overlap_tds, "header.rws_offset (overlaps tds)"),
	CASE(rws_without_count, "header.rws_offset"),
	CASE(bars_too_many, "header.num_bars"),
	CASE(weights_off_page, "header.weights_offset"),
	CASE(weights_past_end, "header.weights_offset"),
	CASE(intermediate_huge, "header.intermediate_size"),
	CASE(bar_slot_twice, "bar[1].slot"),
	CASE(bar_slot_range, "bar[3].slot"),
	CASE(bar_usage_text, "bar[2].usage"),
	CASE(bar_usage_fw, "bar[2].usage"),
	CASE(bar_io_on_weights, "bar[2].io_index"),
	CASE(bar_io_range, "bar[0].io_index"),
	CASE(bar_reserved, "bar[0].reserved"),
	CASE(bar_weights_size, "bar[2].size"),
	CASE(bar_zero_size, "bar[1].size"),
	CASE(proc_no_tds, "procedure[0].num_tds"),
	CASE(proc_tds_range, "procedure[0].num_tds"),
	CASE(proc_rws_range, "procedure[0].num_rws"),
	CASE(proc_partitions, "procedure[0].partitions"),
	CASE(proc_content, "procedure[0].content_type"),
	CASE(proc_outputs, "procedure[0].num_outputs"),
	CASE(proc_inputs, "procedure[0].num_inputs"),
	CASE(proc_exec_order_count, "procedure[0].exec_order_count"),
	CASE(order_first_past, "procedure[0].exec_order_first"),
	CASE(order_first_alone, "procedure[0].exec_order_first"),
	CASE(order_entry_outside, "exec_order[1]"),
	CASE(order_entry_long, "exec_order[2]"),
	CASE(order_table_big, "header.num_exec_order"),
	CASE(order_table_misaligned, "header.exec_order_offset"),
	CASE(order_table_overlaps, "header.exec_order_offset (overlaps rws)"),
	CASE(td_op_zero, "td[0]"),
	CASE(td_op_unknown, "td[1]"),
	CASE(td_pad, "td[0]"),
	CASE(td_layout_not_matmul, "td[1].bias_layout"),
	CASE(td_layout_row_short, "td[0].src0_layout"),
	CASE(td_layout_plane_short, "td[0].dst_layout"),
	CASE(td_layout_absent, "td[0].bias_layout"),
	CASE(td_layout_past, "rw[0].length (operand reaches 14 bytes)"),
	CASE(td_unused_word, "td[0].words[13]"),
	CASE(td_bad_shape, "td[0] (operation)"),
	CASE(td_bad_act, "td[1] (operation)"),
	CASE(rw_td_outside, "rw[4].td"),
	CASE(rw_reg_range, "rw[0].reg"),
	CASE(rw_reg_twice, "rw[1].reg"),
	CASE(rw_reg_absent, "rw[1].reg"),
	CASE(rw_bar_missing, "rw[0].bar"),
	CASE(rw_bar_io, "rw[0].bar"),
	CASE(rw_dst_readonly, "rw[2].bar (destination is read-only)"),
	CASE(rw_offset_align, "rw[3].offset"),
	CASE(rw_offset_past, "rw[3].offset"),
	CASE(rw_length_past, "rw[1].length"),
	CASE(rw_length_zero, "rw[4].length"),
	CASE(rw_flags, "rw[2].flags"),
	CASE(rw_reserved, "rw[2].reserved"),
	CASE(operand_unbound, "td[1] (operand 3 not bound)"),
	CASE(operand_short, "rw[2].length (operand reaches 8 bytes)"),
	CASE(copy_dst_stride_negative, "td[1].words[11]"),
	CASE(copy_word14, "td[1].words[14]"),
	CASE(copy_subop, "td[1].words[2]"),
	CASE(copy_src_before, "td[1] (operand 0 reaches element -1 before its binding)"),
	CASE(copy_src_past, "rw[3].length (operand reaches 10 bytes)"),
	CASE(copy_dst_past, "rw[4].length (operand reaches 16 bytes)"),
	CASE(copy_view_huge, "td[1] (operand 0's view is out of range)"),
	CASE(copy_act, "td[1] (operation)"),
	CASE(copy_layout, "td[1].src0_layout"),
	CASE(copy_dst_self_overlap, "td[1] (operation)"),
	CASE(copy_dims_differ, "td[1] (operation)"),
	CASE(copy_ranges_overlap, "td[1] (operation)"),
	CASE(copy_src1_bound, "rw[4].reg"),
	CASE(reduce_kind, "td[1].words[2]"),
	CASE(reduce_axes_none, "td[1].words[3]"),
	CASE(reduce_axes_high, "td[1].words[3]"),
	CASE(reduce_word4, "td[1].words[4]"),
	CASE(reduce_word14, "td[1].words[14]"),
	CASE(reduce_dst_kept_axis, "td[1] (operation)"),
	CASE(reduce_dst_not_one, "td[1] (operation)"),
	CASE(reduce_act_parametric, "td[1] (operation)"),
	CASE(reduce_layout, "td[1].dst_layout"),
	CASE(gather_word2, "td[1].words[2]"),
	CASE(gather_word14, "td[1].words[14]"),
	CASE(gather_act, "td[1] (operation)"),
	CASE(gather_indices_not_a_row, "td[1] (operation)"),
	CASE(gather_dst_h_not_k, "td[1] (operation)"),
	CASE(gather_dst_w, "td[1] (operation)"),
	CASE(gather_indices_short, "rw[5].length (operand reaches 4 bytes)"),
	CASE(gather_indices_unbound, "td[1] (operand 1 not bound)"),
	CASE(gather_layout, "td[1].src1_layout"),
	CASE(gather_bias, "td[1] (operand 2 not bound)"),
	CASE(gather_dst_is_table, "td[1] (operation)"),
	CASE(op_after_gather_unknown, "td[1]"),
	CASE(norm_eps_nan, "td[1].words[4]"),
	CASE(norm_eps_inf, "td[1].words[4]"),
	CASE(norm_eps_negative, "td[1].words[4]"),
	CASE(norm_eps_softmax, "td[1].words[4]"),
	CASE(norm_eps_log_softmax, "td[1].words[4]"),
	CASE(norm_kind, "td[1] (operation)"),
	CASE(norm_word5, "td[1].words[5]"),
	CASE(act_alpha_not_parametric, "td[1].words[4]"),
	CASE(act_beta_not_parametric, "td[1].words[5]"),
	CASE(act_alpha_on_matmul, "td[0].words[4]"),
	CASE(act_parametric_fused, "td[0] (operation)"),
	CASE(act_alpha_nan, "td[1] (operation)"),
	CASE(act_beta_inf, "td[1] (operation)"),
	CASE(act_celu_alpha_zero, "td[1] (operation)"),
	CASE(act_unknown, "td[1] (operation)"),
};

static void bad_case_desc(const struct bad_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ane_image_bad, bad_cases, bad_case_desc);

static void ane_image_good_image_is_accepted(struct kunit *test)
{
	char field[ANE_IMG_FIELD_LEN];
	struct img m;

	build(test, &m);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	/* A newer minor version is accepted. */
	m.h->version_minor = 9;
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	/* In place on the intermediate is fine for an activation. */
	m.rw[4].bar = 7;
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	/* a matmul's strided destination, bound to its whole extent */
	m.td[0].words[ANE_TD_DST_LAYOUT] = ANE_TD_LAYOUT(4, 2);
	m.rw[2].length_lo = 12;
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	m.rw[2].length_lo = 10;
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), -EINVAL);
	KUNIT_EXPECT_STREQ(test, field, "rw[2].length (operand reaches 12 bytes)");
	m.td[0].words[ANE_TD_DST_LAYOUT] = 0;
	m.rw[2].length_lo = 8;
	/* minor 4: unary math fused and alone, a parametric act's words */
	m.td[0].words[ANE_TD_ACT] = ANE_ACT_SIN;
	m.td[1].words[ANE_TD_ACT] = ANE_ACT_CLIP;
	m.td[1].words[ANE_TD_ACT_ALPHA] = 0xbf800000;	/* -1 */
	m.td[1].words[ANE_TD_ACT_BETA] = 0x40000000;	/* 2 */
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	m.td[1].words[ANE_TD_ACT] = ANE_ACT_THRESHOLDED_RELU;
	m.td[1].words[ANE_TD_ACT_BETA] = 0;
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	m.td[0].words[ANE_TD_ACT] = 0;
	m.td[1].words[ANE_TD_ACT] = ANE_ACT_RELU;
	m.td[1].words[ANE_TD_ACT_ALPHA] = 0;
	/* a copy (minor 3): reversed, then within one bar, disjoint */
	build(test, &m);
	to_copy(&m);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	m.rw[4].bar = 7;
	m.rw[4].offset_lo = 16;
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	/* a gather (minor 4): its indices from the weights bar */
	build(test, &m);
	to_gather(&m);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	/* a reduction and a layer normalization with an epsilon (minor 4) */
	build(test, &m);
	to_reduce(&m);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	build(test, &m);
	to_norm(&m);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	m.td[1].words[ANE_TD_SUBOP] = ANE_NORM_LOG_SOFTMAX;
	m.td[1].words[ANE_TD_NORM_EPS] = 0;
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	build(test, &m);
	/* an execute order: 1 and ANE_IMG_MAX_EXEC_ORDER entries (n) */
	set_order(&m, 3, 0, 3, order3);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	KUNIT_EXPECT_STREQ(test, field, "");
	set_order(&m, 3, 2, 1, order3);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
	{
		u32 big[ANE_IMG_MAX_EXEC_ORDER + 1], i;

		for (i = 0; i < ARRAY_SIZE(big); i++)
			big[i] = ANE_IMG_EXEC(i % 2, 1);
		set_order(&m, ARRAY_SIZE(big), 0, ANE_IMG_MAX_EXEC_ORDER, big);
		KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), 0);
		/* n + 1 */
		set_order(&m, ARRAY_SIZE(big), 0, ANE_IMG_MAX_EXEC_ORDER + 1, big);
		KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), -EINVAL);
		KUNIT_EXPECT_STREQ(test, field, "procedure[0].exec_order_count");
	}
}

static void ane_image_bad_field_is_refused_and_named(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	char field[ANE_IMG_FIELD_LEN];
	struct img m;

	build(test, &m);
	c->mutate(&m);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE, field), -EINVAL);
	KUNIT_EXPECT_STREQ(test, field, c->field);
}

/* The decoded descriptor of a reduction's, a normalization's, a gather's words. */
static void ane_image_td_decodes_reduce_and_norm(struct kunit *test)
{
	struct ane_op_desc d;
	struct img m;

	build(test, &m);
	to_reduce(&m);
	m.td[1].words[ANE_TD_SUBOP] = ANE_REDUCE_LOG_SUM_EXP;
	KUNIT_ASSERT_EQ(test, ane_image_td_desc(&m.td[1], &d), 0);
	KUNIT_EXPECT_EQ(test, d.op, (u32)ANE_OP_REDUCE);
	KUNIT_EXPECT_EQ(test, d.act, (u32)ANE_ACT_RELU);
	KUNIT_EXPECT_EQ(test, d.p.reduce.kind, (u32)ANE_REDUCE_LOG_SUM_EXP);
	KUNIT_EXPECT_EQ(test, d.p.reduce.axes, ANE_REDUCE_AXIS(ANE_W));
	KUNIT_EXPECT_EQ(test, d.dst.dim[ANE_H], 2u);
	KUNIT_EXPECT_EQ(test, d.dst.dim[ANE_W], 1u);
	KUNIT_EXPECT_EQ(test, d.dst.stride[ANE_H], 1ull);
	m.td[1].words[ANE_TD_FLAGS] = 0;
	KUNIT_EXPECT_EQ(test, ane_image_td_desc(&m.td[1], &d), -EINVAL);
	build(test, &m);
	to_norm(&m);
	KUNIT_ASSERT_EQ(test, ane_image_td_desc(&m.td[1], &d), 0);
	KUNIT_EXPECT_EQ(test, d.p.norm.kind, (u32)ANE_NORM_LAYER);
	KUNIT_EXPECT_EQ(test, d.p.norm.eps, 0x3f000000u);
	m.td[1].words[ANE_TD_NORM_EPS] = 0xff800000;
	KUNIT_EXPECT_EQ(test, ane_image_td_desc(&m.td[1], &d), -EINVAL);
	/* a gather: no parameters, its indices dense [1, 1, 1, K] */
	build(test, &m);
	to_gather(&m);
	KUNIT_ASSERT_EQ(test, ane_image_td_desc(&m.td[1], &d), 0);
	KUNIT_EXPECT_EQ(test, d.op, (u32)ANE_OP_GATHER);
	KUNIT_EXPECT_EQ(test, d.src[1].dim[ANE_W], 2u);
	KUNIT_EXPECT_EQ(test, d.src[1].stride[ANE_W], 1ull);
	KUNIT_EXPECT_EQ(test, d.dst.dim[ANE_H], 2u);
	KUNIT_EXPECT_EQ(test, d.p.copy.src_offset, 0ull);
	m.td[1].words[ANE_TD_FLAGS] = 1;
	KUNIT_EXPECT_EQ(test, ane_image_td_desc(&m.td[1], &d), -EINVAL);
}

static void ane_image_short_buffers_are_refused(struct kunit *test)
{
	char field[ANE_IMG_FIELD_LEN];
	struct img m;

	build(test, &m);
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, 64, field), -EINVAL);
	KUNIT_EXPECT_STREQ(test, field, "header.image_size");
	KUNIT_EXPECT_EQ(test, ane_image_validate(m.b, IMG_SIZE - 1, field), -EINVAL);
	KUNIT_EXPECT_STREQ(test, field, "header.image_size");
}

static struct kunit_case ane_image_cases[] = {
	KUNIT_CASE(ane_image_good_image_is_accepted),
	KUNIT_CASE_PARAM(ane_image_bad_field_is_refused_and_named, ane_image_bad_gen_params),
	KUNIT_CASE(ane_image_short_buffers_are_refused),
	KUNIT_CASE(ane_image_td_decodes_reduce_and_norm),
	{}
};

static struct kunit_suite ane_image_suite = {
	.name = "ane_image",
	.test_cases = ane_image_cases,
};

kunit_test_suite(ane_image_suite);
