// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the firmware's data-chaining machines of ABI 1.2 (ane_fw_proto.c
 * and ane_fw_chain.c): every transition of a cache request (AVAILABLE,
 * IN_USE, INVALIDATING) and of its output set (AVAILABLE, IN_EXECUTION;
 * enqueued or not), every illegal one, the chained inputs, and each limit
 * of Tables 29.4 and 30.3 the machines enforce at n and n + 1.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/ane_accel.h>

#include "firmware/ane_fw.h"

struct chain_env {
	struct ane_fw *fw;
	struct ane_fw_cmd_hdr hdr;
	struct ane_fw_cr_install in;
	struct ane_fw_cr_output_set os;
	struct ane_fw_cr_trigger *tr;
	u64 handle;
};

/* A firmware with program 4 running as process 9 and one chain of it. */
static struct chain_env *chain_env(struct kunit *test)
{
	struct chain_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->fw = vzalloc(sizeof(*e->fw));
	e->tr = kunit_kzalloc(test, sizeof(*e->tr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->fw);
	KUNIT_ASSERT_NOT_NULL(test, e->tr);
	e->fw->programs[4] = (struct ane_fw_program){ .valid = true,
						      .proc_nbr = 2, .gen = 7 };
	e->fw->processes[9] = (struct ane_fw_process){ ANE_FW_PROC_RUNNING, 4 };
	e->hdr = (struct ane_fw_cmd_hdr){ .priority = 3, .program_id = 4,
					  .process_id = 9 };
	e->in = (struct ane_fw_cr_install){ .procedure = 1, .nbr_output_sets = 1,
					    .nbr_input_buffers = 1 };
	KUNIT_ASSERT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in,
						&e->handle), ANE_FW_ST_OK);
	e->os = (struct ane_fw_cr_output_set){
		.cache_handler = e->handle, .sid = 3, .nbr_buffers = 1,
		.buffers[0] = { ANE_FW_BUF_OUTPUT, 0, 0x40000, 0x4000 } };
	e->tr->cache_handler = e->handle;
	e->tr->exec_timestamp = 1;
	e->tr->nbr_input_buffers = 1;
	e->tr->inputs[0] = (struct ane_fw_buf_desc){ ANE_FW_BUF_INPUT, 0,
						     0x10000, 0x4000 };
	return e;
}

static void chain_env_free(struct chain_env *e)
{
	vfree(e->fw);
}

static int os_set(struct chain_env *e)
{
	return ane_fw_cr_output_set(e->fw, &e->os, sizeof(e->os));
}

static int trig(struct chain_env *e)
{
	return ane_fw_cr_trigger_check(e->fw, &e->hdr, e->tr, sizeof(*e->tr));
}

static void ane_fw_chain_install_limits(struct kunit *test)
{
	struct chain_env *e = chain_env(test);
	u64 h;

	/* 16 trigger inputs, 17 refused */
	e->in.nbr_input_buffers = ANE_FW_MAX_TRIGGER_INPUTS + 1;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_INVALID);
	e->in.nbr_input_buffers = ANE_FW_MAX_TRIGGER_INPUTS;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_OK);
	/* exactly one output set */
	e->in.nbr_output_sets = 0;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_INVALID);
	e->in.nbr_output_sets = 2;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_INVALID);
	e->in.nbr_output_sets = 1;
	/* groups 0..3 */
	e->in.group = ANE_FW_MAX_CHAIN_GROUPS;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_INVALID);
	e->in.group = ANE_FW_MAX_CHAIN_GROUPS - 1;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_OK);
	/* the normal band only */
	e->hdr.priority = 7;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_OK);
	e->hdr.priority = 8;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_INVALID);
	e->hdr.priority = 3;
	/* a procedure the program has, one it has not */
	e->in.procedure = 2;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_INVALID);
	/* force-disabled: nothing installs */
	e->in.procedure = 0;
	e->fw->cr_disabled = true;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_NOT_READY);
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_NOT_READY);
	chain_env_free(e);
}

static void ane_fw_chain_handles_start_from_the_boot_count(struct kunit *test)
{
	struct chain_env *e = chain_env(test);
	u64 h;

	/* slot 0 was used at boot 0; slot 1's first handle of boot 5 */
	e->fw->args.boot_count = 5;
	KUNIT_ASSERT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, h, ane_fw_cr_handle(1, (5 << 12) + 1));
	KUNIT_EXPECT_EQ(test, ane_fw_cr_lookup(e->fw, h), 1);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_lookup(e->fw, ane_fw_cr_handle(1, 1)),
			-ENOENT);
	chain_env_free(e);
}

static void ane_fw_chain_output_set_machine(struct kunit *test)
{
	struct chain_env *e = chain_env(test);
	struct ane_fw_cr_output_set os0;
	int i;

	KUNIT_EXPECT_EQ(test, ane_fw_cr_output_set(e->fw, &e->os, 8),
			ANE_FW_ST_INVALID);
	e->os.cache_handler ^= 0x10000;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_NOENT);
	e->os.cache_handler = e->handle;
	/* one output set: id 0, not 1 */
	e->os.output_set_id = ANE_FW_OUTPUT_BUFFER_SETS;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os.output_set_id = 0;
	/* streams below 16 */
	e->os.sid = ANE_FW_NUM_STREAMS;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os.sid = ANE_FW_NUM_STREAMS - 1;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_OK);
	e->os.sid = 3;
	/* 16 buffers, 17 refused */
	os0 = e->os;
	for (i = 0; i < ANE_FW_MAX_CHAIN_OUTPUTS; i++)
		e->os.buffers[i] = (struct ane_fw_buf_desc){
			ANE_FW_BUF_OUTPUT, 0, 0x40000 + i * 0x4000, 0x4000 };
	e->os.nbr_buffers = ANE_FW_MAX_CHAIN_OUTPUTS;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_OK);
	e->os.nbr_buffers = ANE_FW_MAX_CHAIN_OUTPUTS + 1;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os = os0;
	/* a buffer: an output, sized, below 4 GiB to its end */
	e->os.buffers[0].type = ANE_FW_BUF_INPUT;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os.buffers[0] = (struct ane_fw_buf_desc){ ANE_FW_BUF_OUTPUT, 0, 0x40000, 0 };
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os.buffers[0] = (struct ane_fw_buf_desc){ ANE_FW_BUF_OUTPUT, 0,
						     0xffffc000, 0x4000 };
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_OK);
	e->os.buffers[0].size = 0x4001;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	/* a size whose end wraps past 2^64 back below 4 GiB */
	e->os.buffers[0] = (struct ane_fw_buf_desc){ ANE_FW_BUF_OUTPUT, 0, 0x40000,
						     1 - 0x40000ull };
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os.buffers[0].size = U64_MAX;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os.buffers[0] = (struct ane_fw_buf_desc){ ANE_FW_BUF_OUTPUT, 1, 0x40000,
						     0x4000 };
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os = os0;
	e->os.pad = 1;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os = os0;
	e->os.intermediate = (struct ane_fw_buf_desc){ ANE_FW_BUF_INPUT, 0,
						       0x80000, 0x4000 };
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_INVALID);
	e->os.intermediate.type = ANE_FW_BUF_OUTPUT;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_OK);

	/* AVAILABLE, enqueued -> IN_EXECUTION: no enqueue while it runs */
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].out_state[0], ANE_FW_OS_IN_EXECUTION);
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_WRONG_STATE);
	/* the run completes: the set is the previous one, not enqueued */
	ane_fw_cr_done(e->fw, e->handle, 0);
	KUNIT_EXPECT_TRUE(test, e->fw->cr[0].prev_valid);
	KUNIT_EXPECT_FALSE(test, e->fw->cr[0].armed);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].prev[0].addr, 0x40000);
	e->tr->exec_timestamp = 2;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_BUSY);
	/* enqueue recycles the consumed set (0x47's transition) */
	e->os.buffers[0].addr = 0x50000;
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].out_state[0], ANE_FW_OS_AVAILABLE);
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_OK);
	/* an accepted trigger dropped before it ran: available, still enqueued */
	ane_fw_cr_abort(e->fw, e->handle, 0);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].out_state[0], ANE_FW_OS_AVAILABLE);
	KUNIT_EXPECT_TRUE(test, e->fw->cr[0].armed);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].prev[0].addr, 0x40000);
	e->tr->exec_timestamp = 3;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_OK);
	chain_env_free(e);
}

static void ane_fw_chain_inputs_chain_the_previous_set(struct kunit *test)
{
	struct chain_env *e = chain_env(test);
	struct ane_fw_buf_desc chained = { ANE_FW_BUF_OUTPUT, 0, 0x40000, 0x4000 };

	KUNIT_ASSERT_EQ(test, os_set(e), ANE_FW_ST_OK);
	/* no run yet: nothing to chain from */
	e->tr->inputs[0] = chained;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	e->tr->inputs[0] = (struct ane_fw_buf_desc){ ANE_FW_BUF_INPUT, 0,
						     0x10000, 0x4000 };
	KUNIT_ASSERT_EQ(test, trig(e), ANE_FW_ST_OK);
	ane_fw_cr_done(e->fw, e->handle, 0);
	/* the next run writes another buffer and reads the last output */
	e->os.buffers[0].addr = 0x50000;
	KUNIT_ASSERT_EQ(test, os_set(e), ANE_FW_ST_OK);
	e->tr->exec_timestamp = 2;
	e->tr->inputs[0] = chained;
	e->tr->inputs[0].size = 0x4001;		/* larger than the buffer */
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	e->tr->inputs[0] = chained;
	e->tr->inputs[0].output_set_id = ANE_FW_OUTPUT_BUFFER_SETS;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	e->tr->inputs[0] = chained;
	e->tr->inputs[0].addr = 0x60000;	/* no output of the last run */
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	e->tr->inputs[0] = chained;
	e->tr->inputs[0].type = 3;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	e->tr->inputs[0] = chained;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_OK);
	ane_fw_cr_done(e->fw, e->handle, 0);
	/* a chained input the run also writes: refused */
	e->os.buffers[0].addr = 0x50000;
	KUNIT_ASSERT_EQ(test, os_set(e), ANE_FW_ST_OK);
	e->tr->exec_timestamp = 3;
	e->tr->inputs[0].addr = 0x50000;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	chain_env_free(e);
}

static void ane_fw_chain_trigger_limits(struct kunit *test)
{
	struct chain_env *e = chain_env(test);
	u64 h;
	int i;

	/* a chain of 16 inputs: 16 accepted, 17 refused */
	e->in.nbr_input_buffers = ANE_FW_MAX_TRIGGER_INPUTS;
	KUNIT_ASSERT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in, &h),
			ANE_FW_ST_OK);
	e->os.cache_handler = h;
	e->tr->cache_handler = h;
	KUNIT_ASSERT_EQ(test, os_set(e), ANE_FW_ST_OK);
	for (i = 0; i < ANE_FW_MAX_TRIGGER_INPUTS; i++)
		e->tr->inputs[i] = (struct ane_fw_buf_desc){ ANE_FW_BUF_INPUT, 0,
							     0x10000, 0x4000 };
	e->tr->nbr_input_buffers = ANE_FW_MAX_TRIGGER_INPUTS + 1;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	/* an input above 4 GiB */
	e->tr->nbr_input_buffers = ANE_FW_MAX_TRIGGER_INPUTS;
	e->tr->inputs[15].addr = 0x100000000ull;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	e->tr->inputs[15].addr = 0x10000;
	/* more inputs than the chain takes */
	e->tr->cache_handler = e->handle;
	e->os.cache_handler = e->handle;
	KUNIT_ASSERT_EQ(test, os_set(e), ANE_FW_ST_OK);
	e->tr->nbr_input_buffers = 2;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	e->tr->nbr_input_buffers = 1;
	/* the normal band only; the body's exact length */
	e->hdr.priority = 1;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	e->hdr.priority = 3;
	KUNIT_EXPECT_EQ(test, ane_fw_cr_trigger_check(e->fw, &e->hdr, e->tr,
						      sizeof(*e->tr) - 1),
			ANE_FW_ST_INVALID);
	/* execTimestamp strictly increasing: 0 is not above the start */
	e->tr->exec_timestamp = 0;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_INVALID);
	/* the program unloaded, or loaded again, since the install */
	e->tr->exec_timestamp = 1;
	e->fw->programs[4].gen++;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_NOENT);
	e->fw->programs[4].gen--;
	e->fw->programs[4].valid = false;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_NOENT);
	e->fw->programs[4].valid = true;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].last_exec_ts, 1);
	chain_env_free(e);
}

static void ane_fw_chain_request_machine(struct kunit *test)
{
	struct chain_env *e = chain_env(test);
	struct ane_fw_cr_recycle rc = { .cache_handler = e->handle,
		.buffer = { ANE_FW_BUF_OUTPUT, 0, 0x40000, 0x4000 } };
	struct ane_fw_cr_group_select gs = { .cache_handler = e->handle };

	/* IN_USE -> AVAILABLE at once with nothing in flight */
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].state, ANE_FW_CR_IN_USE);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_invalidate(e->fw, e->handle),
			ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].state, ANE_FW_CR_AVAILABLE);
	/* a free handle names nothing */
	KUNIT_EXPECT_EQ(test, ane_fw_cr_invalidate(e->fw, e->handle),
			ANE_FW_ST_NOENT);
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_NOENT);
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_NOENT);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_recycle(e->fw, &rc), ANE_FW_ST_NOENT);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_group_select(e->fw, &gs), ANE_FW_ST_NOENT);

	/* IN_USE -> INVALIDATING with a run in flight -> AVAILABLE at its end */
	KUNIT_ASSERT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in,
						&e->handle), ANE_FW_ST_OK);
	e->os.cache_handler = e->handle;
	e->tr->cache_handler = e->handle;
	rc.cache_handler = e->handle;
	gs.cache_handler = e->handle;
	KUNIT_ASSERT_EQ(test, os_set(e), ANE_FW_ST_OK);
	KUNIT_ASSERT_EQ(test, trig(e), ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_invalidate(e->fw, e->handle),
			ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].state, ANE_FW_CR_INVALIDATING);
	/* nothing but the end of the run is legal while invalidating */
	e->tr->exec_timestamp = 2;
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_WRONG_STATE);
	KUNIT_EXPECT_EQ(test, os_set(e), ANE_FW_ST_WRONG_STATE);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_recycle(e->fw, &rc),
			ANE_FW_ST_WRONG_STATE);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_group_select(e->fw, &gs),
			ANE_FW_ST_WRONG_STATE);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_invalidate(e->fw, e->handle),
			ANE_FW_ST_WRONG_STATE);
	/* the slot is not reusable until then */
	KUNIT_EXPECT_EQ(test, ane_fw_cr_lookup(e->fw, e->handle), 0);
	ane_fw_cr_done(e->fw, e->handle, 0);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].state, ANE_FW_CR_AVAILABLE);
	/* a second end of the same run changes nothing */
	ane_fw_cr_done(e->fw, e->handle, 0);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].inflight, 0);
	KUNIT_EXPECT_EQ(test, trig(e), ANE_FW_ST_NOENT);
	/* the same after an abort */
	KUNIT_ASSERT_EQ(test, ane_fw_cr_install(e->fw, &e->hdr, &e->in,
						&e->handle), ANE_FW_ST_OK);
	e->os.cache_handler = e->handle;
	e->tr->cache_handler = e->handle;
	e->tr->exec_timestamp = 1;
	KUNIT_ASSERT_EQ(test, os_set(e), ANE_FW_ST_OK);
	KUNIT_ASSERT_EQ(test, trig(e), ANE_FW_ST_OK);
	KUNIT_EXPECT_EQ(test, ane_fw_cr_invalidate(e->fw, e->handle),
			ANE_FW_ST_OK);
	ane_fw_cr_abort(e->fw, e->handle, 0);
	KUNIT_EXPECT_EQ(test, e->fw->cr[0].state, ANE_FW_CR_AVAILABLE);
	chain_env_free(e);
}

static struct kunit_case ane_fw_chain_cases[] = {
	KUNIT_CASE(ane_fw_chain_install_limits),
	KUNIT_CASE(ane_fw_chain_handles_start_from_the_boot_count),
	KUNIT_CASE(ane_fw_chain_output_set_machine),
	KUNIT_CASE(ane_fw_chain_inputs_chain_the_previous_set),
	KUNIT_CASE(ane_fw_chain_trigger_limits),
	KUNIT_CASE(ane_fw_chain_request_machine),
	{}
};

static struct kunit_suite ane_fw_chain_suite = {
	.name = "ane_fw_chain",
	.test_cases = ane_fw_chain_cases,
};

kunit_test_suites(&ane_fw_chain_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
