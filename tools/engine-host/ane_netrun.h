/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A userspace runner of a program image: the image's first procedure,
 * decoded with the firmware's own task-descriptor code
 * (firmware/spec/ane_td.c) and run task by task, chunk by chunk, on host
 * buffers with the engine's operations (firmware/hw/engine/).  For
 * ane-netbench and its host test; GPL because it links the engine.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_NETRUN_H
#define ANE_NETRUN_H

#include <stddef.h>
#include <stdint.h>

struct ane_netrun;

/*
 * Validate @image (driver/ane_image.c, as ProgramCreate does), copy it,
 * allocate every bar's buffer and the largest workspace, bind each task's
 * operands and prepare (validate and plan) each task once.  On failure
 * returns a negative errno and puts a message in @err.
 */
int ane_netrun_load(const void *image, size_t size, uint64_t chunk_work,
		    struct ane_netrun **out, char *err, size_t err_len);

/* Input @i's or output @j's buffer, dense NCHW fp16, and its bytes. */
uint16_t *ane_netrun_input(struct ane_netrun *r, unsigned int i, size_t *bytes);
uint16_t *ane_netrun_output(struct ane_netrun *r, unsigned int j, size_t *bytes);

/* Tasks and chunks one run executes. */
uint32_t ane_netrun_tasks(const struct ane_netrun *r);
uint64_t ane_netrun_chunks(const struct ane_netrun *r);

/* Run every task in order; 0 or a negative errno (-EINVAL). */
int ane_netrun_run(struct ane_netrun *r);

/* Run task @i alone (tasks in order make a run); its operation in *@op. */
int ane_netrun_run_task(struct ane_netrun *r, uint32_t i, uint32_t *op);

/*
 * Split each large operation over @threads threads, as the kernel's engine
 * splits it over its cores (bit-identical results); 1 (or 0), the
 * default: every operation on the calling thread.
 */
void ane_netrun_set_threads(struct ane_netrun *r, unsigned int threads);

void ane_netrun_free(struct ane_netrun *r);

/*
 * A model's engine segments on the engine's userspace build
 * (ane_netrun_exec.c): an ane_model_exec_fn whose ctx is a cache made by
 * ane_netrun_cache_new(); each segment's image is loaded at its first run.
 * The bars are exactly the segment's tensors (the builder's sizes).
 */
struct ane_netrun_cache;
struct ane_netrun_cache *ane_netrun_cache_new(unsigned int threads);
void ane_netrun_cache_free(struct ane_netrun_cache *c);
int ane_netrun_exec(void *ctx, unsigned int seg, const void *image,
		    size_t size, const float *const *in, float *const *out,
		    char *err, size_t err_len);

#endif /* ANE_NETRUN_H */
