// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the selector dispatch table against the seed's Tables 27.2 and
 * 27.4, the exact-size gate, client admission and DeviceOpen validation.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/ioctl.h>

#include <drm/drm.h>
#include <drm/ane_accel.h>

#include "driver/ane_drv.h"
#include "driver/ane_selector.h"

/* Tables 27.2 and 27.4, typed in from the seed, independent of the driver. */
struct seed_row {
	enum ane_space space;
	u8 sel;
	const char *name;
	u32 si, sin, so, sout;
};

static const struct seed_row seed_rows[] = {
	{ ANE_SPACE_CONTROL, 0, "ANE_DeviceOpen", 0, 104, 0, 104 },
	{ ANE_SPACE_CONTROL, 1, "ANE_DeviceClose", 0, 0, 0, 0 },
	{ ANE_SPACE_CONTROL, 2, "ANE_ProgramSendRequest", 1, 2376, 0, 40 },
	{ ANE_SPACE_CONTROL, 3, "ANE_ProgramCreate", 0, 32, 0, 0 },
	{ ANE_SPACE_CONTROL, 4, "ANE_ProgramPrepare", 0, 56, 0, 56 },
	{ ANE_SPACE_CONTROL, 5, "ANE_ProgramUnprepare", 0, 56, 0, 0 },
	{ ANE_SPACE_CONTROL, 6, "ANE_ProgramDestroy", 0, 16, 0, 0 },
	{ ANE_SPACE_CONTROL, 7, "ANE_GetStatus", 0, 0, 0, 32 },
	{ ANE_SPACE_CONTROL, 8, "ANE_ProgramCreateInstance", 0, 32, 0, 0 },
	{ ANE_SPACE_CONTROL, 9, "ANE_ProgramChainingPrepare", 0, 16, 0, 24 },
	{ ANE_SPACE_CONTROL, 10, "ANE_GetVersion", 0, 0, 1, 0 },
	{ ANE_SPACE_CONTROL, 11, "ANE_RegisterDebugWorkProcessor", 0, 24, 0, 0 },
	{ ANE_SPACE_CONTROL, 12, "ANE_UnregisterDebugWorkProcessor", 0, 0, 0, 0 },
	{ ANE_SPACE_CONTROL, 13, "ANE_GetDebugWorkProcessorItem", 2, 0, 0, 0 },
	{ ANE_SPACE_CONTROL, 14, "ANE_CompleteDebugWorkProcessorItem", 2, 0, 0, 0 },
	{ ANE_SPACE_CONTROL, 15, "ANE_ReleaseDebugWorkProcessorBuffers", 0, 0, 0, 0 },
	{ ANE_SPACE_CONTROL, 16, "ANE_LoadFirmware", 3, 0, 0, 0 },
	{ ANE_SPACE_DIRECT, 0, "ANE_DeviceOpen", 0, 104, 0, 104 },
	{ ANE_SPACE_DIRECT, 1, "ANE_DeviceClose", 0, 0, 0, 0 },
	{ ANE_SPACE_DIRECT, 2, "ANE_ProgramSendRequest", 1, 2376, 0, 40 },
	{ ANE_SPACE_DIRECT, 3, "ANE_ProgramOutputSetEnqueue", 0, 40, 0, 0 },
	{ ANE_SPACE_DIRECT, 4, "ANE_ProgramInputsReady", 0, 3104, 0, 0 },
	{ ANE_SPACE_DIRECT, 5, "ANE_MemoryMapRequest", 1, 2080, 1, 0 },
	{ ANE_SPACE_DIRECT, 6, "ANE_MemoryUnMapRequest", 0, 2080, 0, 0 },
	{ ANE_SPACE_DIRECT, 7, "ANE_SessionHintRequest", 0, 16, 0, 24 },
	{ ANE_SPACE_DIRECT, 8, "ANE_ProgramChainingSetActiveProcedure", 0, 32, 0, 0 },
};

static const struct ane_selector *find_sel(enum ane_space space, u8 index)
{
	unsigned int i;

	for (i = 0; i < ANE_SEL_COUNT; i++)
		if (ane_selectors[i].space == space && ane_selectors[i].index == index)
			return &ane_selectors[i];
	return NULL;
}

static void ane_table_matches_the_seed_tables(struct kunit *test)
{
	unsigned int i, ctl = 0, dp = 0;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(seed_rows), (size_t)ANE_SEL_COUNT);
	for (i = 0; i < ARRAY_SIZE(seed_rows); i++) {
		const struct seed_row *r = &seed_rows[i];
		const struct ane_selector *s = find_sel(r->space, r->sel);

		KUNIT_ASSERT_NOT_NULL_MSG(test, s, "no selector %u in space %d",
					  r->sel, r->space);
		KUNIT_EXPECT_STREQ(test, s->name, r->name);
		KUNIT_EXPECT_EQ_MSG(test, s->scalar_in, r->si, "%s", r->name);
		KUNIT_EXPECT_EQ_MSG(test, s->struct_in, r->sin, "%s", r->name);
		KUNIT_EXPECT_EQ_MSG(test, s->scalar_out, r->so, "%s", r->name);
		KUNIT_EXPECT_EQ_MSG(test, s->struct_out, r->sout, "%s", r->name);
		/* The ioctl encodes exactly the tuple. */
		KUNIT_EXPECT_EQ_MSG(test, (u32)_IOC_SIZE(s->cmd), ane_selector_size(s),
				    "%s", r->name);
	}
	for (i = 0; i < ANE_SEL_COUNT; i++) {
		if (ane_selectors[i].space == ANE_SPACE_CONTROL)
			ctl++;
		else
			dp++;
	}
	KUNIT_EXPECT_EQ(test, ctl, ANE_NUM_CONTROL_SELECTORS);
	KUNIT_EXPECT_EQ(test, dp, ANE_NUM_DIRECT_SELECTORS);
}

static void ane_shared_selectors_share_handlers(struct kunit *test)
{
	u8 i;

	/* Direct-path 0, 1 and 2 reuse the control client's handlers. */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_PTR_EQ(test, find_sel(ANE_SPACE_CONTROL, i)->handler,
				    find_sel(ANE_SPACE_DIRECT, i)->handler);
}

static void ane_every_selector_is_found_by_its_command(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ANE_SEL_COUNT; i++) {
		const struct ane_selector *s = &ane_selectors[i];

		KUNIT_EXPECT_PTR_EQ(test, ane_selector_find(s->cmd), s);
		KUNIT_EXPECT_EQ(test, _IOC_NR(s->cmd) - DRM_COMMAND_BASE,
				(s->space == ANE_SPACE_CONTROL ? ANE_CTL_BASE : ANE_DP_BASE) +
				s->index);
	}
	/* Numbers between and after the spaces name no selector. */
	KUNIT_EXPECT_NULL(test, ane_selector_find(DRM_IO(DRM_COMMAND_BASE + 0x11)));
	KUNIT_EXPECT_NULL(test, ane_selector_find(DRM_IO(DRM_COMMAND_BASE + 0x1f)));
	KUNIT_EXPECT_NULL(test, ane_selector_find(DRM_IO(DRM_COMMAND_BASE + 0x29)));
}

static unsigned int resize(unsigned int cmd, unsigned int size)
{
	return (cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) | (size << _IOC_SIZESHIFT);
}

static void ane_exact_size_rule_holds_for_every_selector(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ANE_SEL_COUNT; i++) {
		unsigned int cmd = ane_selectors[i].cmd;
		unsigned int size = _IOC_SIZE(cmd);

		KUNIT_EXPECT_PTR_EQ(test, ane_selector_find(resize(cmd, size + 1)),
				    ERR_PTR(-EINVAL));
		if (size)
			KUNIT_EXPECT_PTR_EQ(test, ane_selector_find(resize(cmd, size - 1)),
					    ERR_PTR(-EINVAL));
		KUNIT_EXPECT_PTR_EQ(test,
				    ane_selector_find(cmd ^ (_IOC_WRITE << _IOC_DIRSHIFT)),
				    ERR_PTR(-EINVAL));
	}
	/* DRM core ioctls and other ioctl types pass through untouched. */
	KUNIT_EXPECT_NULL(test, ane_selector_find(DRM_IOCTL_VERSION));
	KUNIT_EXPECT_NULL(test, ane_selector_find(DRM_IOCTL_GEM_CLOSE));
	KUNIT_EXPECT_NULL(test, ane_selector_find(_IOWR('x', DRM_COMMAND_BASE, u64)));
}

struct admit_case {
	const char *desc;
	enum ane_client_state state;
	enum ane_space space;
	enum ane_selector_id sel;
	int expected;
};

static const struct admit_case admit_cases[] = {
	{ "new client may open as control", ANE_CLIENT_NEW, ANE_SPACE_CONTROL,
	  ANE_SEL_CTL_DEVICE_OPEN, 0 },
	{ "new client may open as direct", ANE_CLIENT_NEW, ANE_SPACE_CONTROL,
	  ANE_SEL_DP_DEVICE_OPEN, 0 },
	{ "new client may not get status", ANE_CLIENT_NEW, ANE_SPACE_CONTROL,
	  ANE_SEL_CTL_GET_STATUS, -ENOTCONN },
	{ "new client may not close", ANE_CLIENT_NEW, ANE_SPACE_DIRECT,
	  ANE_SEL_DP_DEVICE_CLOSE, -ENOTCONN },
	{ "open control runs control", ANE_CLIENT_OPEN, ANE_SPACE_CONTROL,
	  ANE_SEL_CTL_GET_VERSION, 0 },
	{ "open control refuses direct", ANE_CLIENT_OPEN, ANE_SPACE_CONTROL,
	  ANE_SEL_DP_MEMORY_MAP, -EBADRQC },
	{ "open direct refuses control", ANE_CLIENT_OPEN, ANE_SPACE_DIRECT,
	  ANE_SEL_CTL_GET_STATUS, -EBADRQC },
	{ "open direct refuses control open", ANE_CLIENT_OPEN, ANE_SPACE_DIRECT,
	  ANE_SEL_CTL_DEVICE_OPEN, -EBADRQC },
	{ "open control refuses reopen", ANE_CLIENT_OPEN, ANE_SPACE_CONTROL,
	  ANE_SEL_CTL_DEVICE_OPEN, -EISCONN },
	{ "open direct runs direct", ANE_CLIENT_OPEN, ANE_SPACE_DIRECT,
	  ANE_SEL_DP_SESSION_HINT, 0 },
	{ "closed refuses everything", ANE_CLIENT_CLOSED, ANE_SPACE_CONTROL,
	  ANE_SEL_CTL_GET_STATUS, -ESHUTDOWN },
	{ "closed refuses reopen", ANE_CLIENT_CLOSED, ANE_SPACE_CONTROL,
	  ANE_SEL_CTL_DEVICE_OPEN, -ESHUTDOWN },
	{ "closed refuses close", ANE_CLIENT_CLOSED, ANE_SPACE_DIRECT,
	  ANE_SEL_DP_DEVICE_CLOSE, -ESHUTDOWN },
};

static void admit_case_desc(const struct admit_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ane_admit, admit_cases, admit_case_desc);

static void ane_client_admission_follows_the_state_machine(struct kunit *test)
{
	const struct admit_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ane_client_admit(c->state, c->space, &ane_selectors[c->sel]),
			c->expected);
}

static void ane_device_open_accepts_only_a_standard_client(struct kunit *test)
{
	struct drm_ane_device_info_in in = { .usage_type = ANE_USAGE_STANDARD };

	KUNIT_EXPECT_EQ(test, ane_device_open_check(&in), 0);
	in.usage_type = ANE_USAGE_UNSUPPORTED;
	KUNIT_EXPECT_EQ(test, ane_device_open_check(&in), -EOPNOTSUPP);
	in.usage_type = 0;
	KUNIT_EXPECT_EQ(test, ane_device_open_check(&in), -EINVAL);
	in.usage_type = 255;
	KUNIT_EXPECT_EQ(test, ane_device_open_check(&in), -EINVAL);

	in.usage_type = ANE_USAGE_STANDARD;
	in.pad[0] = 1;
	KUNIT_EXPECT_EQ(test, ane_device_open_check(&in), -EINVAL);
	in.pad[0] = 0;
	in.reserved[8] = 1;
	KUNIT_EXPECT_EQ(test, ane_device_open_check(&in), -EINVAL);
	in.reserved[8] = 0;
	/* Opaque fields are the client's business. */
	in.callback = 0x1111222233334444ull;
	in.receiver_context = ~0ull;
	in.timeout = 0x2710;
	KUNIT_EXPECT_EQ(test, ane_device_open_check(&in), 0);
}

static struct kunit_case ane_selector_cases[] = {
	KUNIT_CASE(ane_table_matches_the_seed_tables),
	KUNIT_CASE(ane_shared_selectors_share_handlers),
	KUNIT_CASE(ane_every_selector_is_found_by_its_command),
	KUNIT_CASE(ane_exact_size_rule_holds_for_every_selector),
	KUNIT_CASE_PARAM(ane_client_admission_follows_the_state_machine,
			 ane_admit_gen_params),
	KUNIT_CASE(ane_device_open_accepts_only_a_standard_client),
	{}
};

static struct kunit_suite ane_selector_suite = {
	.name = "ane_selector",
	.test_cases = ane_selector_cases,
};

kunit_test_suite(ane_selector_suite);
