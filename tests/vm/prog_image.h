/* SPDX-License-Identifier: MIT */
/*
 * The VM tests' test program: an image computing out = relu(in (2x3) x
 * W (3x2)), W in the image's weights (the KUnit ane_image suite builds the
 * same one).  Shared by prog_util.h and the tests that build images of
 * other sizes around it (limits, allocation-failure injection).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_VM_PROG_IMAGE_H
#define ANE_VM_PROG_IMAGE_H

#include <stdint.h>
#include <string.h>

#include "libane.h"

#define PAGE16K 16384u

/* fp16 of a small integer, exactly. */
static inline uint16_t h16(int v)
{
	uint32_t a = (uint32_t)(v < 0 ? -v : v), e = 0;

	if (!a)
		return 0;
	while ((a >> e) > 1)
		e++;
	return (uint16_t)((v < 0 ? 0x8000 : 0) | ((e + 15) << 10) |
			  ((a << (10 - e)) & 0x3ff));
}

/* The program's bytes: its first 16 KB + 16 bytes. */
#define IMG_SIZE (PAGE16K + 16)

/*
 * Write the program into @b, which is zeroed and at least %IMG_SIZE bytes:
 * the header (saying @image_size bytes and an intermediate buffer of
 * @intermediate), procedure, bars, task descriptors and register writes;
 * the weights (12 bytes at 16 KB) are the caller's.
 */
static inline void build_image_layout(uint8_t *b, uint64_t image_size,
				      uint64_t intermediate)
{
	struct ane_img_header *h = (void *)b;
	struct ane_img_procedure *p = (void *)(b + 128);
	struct ane_img_bar *bar = (void *)(b + 160);
	struct ane_img_td *td = (void *)(b + 256);
	struct ane_img_rw *rw = (void *)(b + 544);

	*h = (struct ane_img_header){
		.magic = ANE_IMG_MAGIC, .version_major = 1, .header_size = 128,
		.image_size = image_size, .num_procedures = 1, .procedures_offset = 128,
		.num_tds = 2, .tds_offset = 256, .num_rws = 5, .rws_offset = 544,
		.num_bars = 4, .bars_offset = 160, .weights_offset = PAGE16K,
		.weights_size = 12, .intermediate_size = intermediate,
	};
	*p = (struct ane_img_procedure){ .num_tds = 2, .num_rws = 5, .num_inputs = 1,
					 .num_outputs = 1, .partitions = 1 };
	bar[0] = (struct ane_img_bar){ .slot = 0, .usage = 1, .size = 12 };
	bar[1] = (struct ane_img_bar){ .slot = 1, .usage = 2, .size = 8 };
	bar[2] = (struct ane_img_bar){ .slot = 5, .usage = 8, .size = 12 };
	bar[3] = (struct ane_img_bar){ .slot = 7, .usage = 7, .size = 64 };
	td[0].words[ANE_TD_OP] = 2;	/* matmul */
	memcpy(&td[0].words[ANE_TD_SRC0_DIMS], (uint32_t[]){ 1, 1, 2, 3 }, 16);
	memcpy(&td[0].words[ANE_TD_SRC1_DIMS], (uint32_t[]){ 1, 1, 3, 2 }, 16);
	memcpy(&td[0].words[ANE_TD_DST_DIMS], (uint32_t[]){ 1, 1, 2, 2 }, 16);
	td[1].words[ANE_TD_OP] = 4;	/* activation */
	td[1].words[ANE_TD_ACT] = 1;	/* relu */
	memcpy(&td[1].words[ANE_TD_SRC0_DIMS], (uint32_t[]){ 1, 1, 2, 2 }, 16);
	memcpy(&td[1].words[ANE_TD_DST_DIMS], (uint32_t[]){ 1, 1, 2, 2 }, 16);
	rw[0] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_SRC0, .bar = 0, .length_lo = 12 };
	rw[1] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_SRC1, .bar = 5, .length_lo = 12 };
	rw[2] = (struct ane_img_rw){ .td = 0, .reg = ANE_TD_REG_DST, .bar = 7, .length_lo = 8 };
	rw[3] = (struct ane_img_rw){ .td = 1, .reg = ANE_TD_REG_SRC0, .bar = 7, .length_lo = 8 };
	rw[4] = (struct ane_img_rw){ .td = 1, .reg = ANE_TD_REG_DST, .bar = 1, .length_lo = 8 };
}

/* The whole program, weights @w, into @b (%IMG_SIZE bytes). */
static inline void build_image(uint8_t *b, const int w[6])
{
	uint16_t *wt = (void *)(b + PAGE16K);
	int i;

	memset(b, 0, IMG_SIZE);
	build_image_layout(b, IMG_SIZE, PAGE16K);
	for (i = 0; i < 6; i++)
		wt[i] = h16(w[i]);
}

#endif /* ANE_VM_PROG_IMAGE_H */
