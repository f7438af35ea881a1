// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the capability policy (ane_caps.c): the set a file is opened
 * with for each kind of opener, the gate of every selector, and the
 * real-time band.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <kunit/test.h>
#include <linux/errno.h>

#include <drm/ane_accel.h>

#include "driver/ane_caps.h"
#include "driver/ane_drv.h"
#include "driver/ane_selector.h"

static void ane_caps_nobody_gets_nothing(struct kunit *test)
{
	struct ane_caps_cred c = { .client_caps = ANE_CAPS_CLIENT_DEFAULT };

	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c), 0u);
}

static void ane_caps_sys_admin_gets_everything(struct kunit *test)
{
	struct ane_caps_cred c = { .sys_admin = true };

	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c), ANE_CAP_ALL);
	/* Whatever the group's set says. */
	c.client_caps = 0;
	c.in_group = true;
	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c), ANE_CAP_ALL);
}

static void ane_caps_group_gets_client_caps_only(struct kunit *test)
{
	struct ane_caps_cred c = { .in_group = true,
				   .client_caps = ANE_CAPS_CLIENT_DEFAULT };

	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c), ANE_CAPS_CLIENT_DEFAULT);
	KUNIT_EXPECT_TRUE(test, ane_caps_policy(&c) & ANE_CAP_OPEN);
	/* The group can never be given the real-time band or raw access. */
	c.client_caps = ~0u;
	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c), ANE_CAPS_CLIENT_GRANTABLE);
	KUNIT_EXPECT_FALSE(test, ane_caps_policy(&c) &
			   (ANE_CAP_REALTIME | ANE_CAP_SYSTEM_PRIORITY | ANE_CAP_PRIV_VM));
	c.client_caps = ANE_CAP_OPEN;
	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c), ANE_CAP_OPEN);
}

static void ane_caps_open_all_is_the_group_for_everyone(struct kunit *test)
{
	struct ane_caps_cred c = { .open_all = true,
				   .client_caps = ANE_CAPS_CLIENT_DEFAULT };

	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c), ANE_CAPS_CLIENT_DEFAULT);
}

static void ane_caps_sys_nice_adds_the_realtime_band(struct kunit *test)
{
	struct ane_caps_cred c = { .sys_nice = true,
				   .client_caps = ANE_CAPS_CLIENT_DEFAULT };

	/* CAP_SYS_NICE alone does not open the device. */
	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c), ANE_CAPS_SYS_NICE);
	KUNIT_EXPECT_FALSE(test, ane_caps_policy(&c) & ANE_CAP_OPEN);
	c.in_group = true;
	KUNIT_EXPECT_EQ(test, ane_caps_policy(&c),
			ANE_CAPS_CLIENT_DEFAULT | ANE_CAPS_SYS_NICE);
}

static void ane_caps_realtime_band(struct kunit *test)
{
	u32 p;

	for (p = 2; p <= 7; p++)
		KUNIT_EXPECT_EQ(test, ane_caps_priority_check(0, p), 0);
	KUNIT_EXPECT_EQ(test, ane_caps_priority_check(0, 1), -EPERM);
	KUNIT_EXPECT_EQ(test, ane_caps_priority_check(0, 0), -EPERM);
	KUNIT_EXPECT_EQ(test, ane_caps_priority_check(ANE_CAP_REALTIME, 1), 0);
	KUNIT_EXPECT_EQ(test, ane_caps_priority_check(ANE_CAP_REALTIME, 0), -EPERM);
	KUNIT_EXPECT_EQ(test, ane_caps_priority_check(ANE_CAP_SYSTEM_PRIORITY, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, ane_caps_priority_check(ANE_CAPS_SYS_NICE, 0), 0);
	KUNIT_EXPECT_EQ(test, ane_caps_priority_check(ANE_CAP_ALL, 0), 0);
}

/* Every selector's gate, as security.rst's table gives it. */
static void ane_caps_selector_gates(struct kunit *test)
{
	static const struct {
		enum ane_selector_id id;
		u32 cap;
		int err;
	} gates[] = {
		{ ANE_SEL_CTL_DEVICE_OPEN, ANE_CAP_OPEN, -EACCES },
		{ ANE_SEL_DP_DEVICE_OPEN, ANE_CAP_OPEN, -EACCES },
		{ ANE_SEL_CTL_CHAINING_PREPARE, ANE_CAP_DATA_CHAINING, -EPERM },
		{ ANE_SEL_DP_OUTPUT_SET_ENQUEUE, ANE_CAP_DATA_CHAINING, -EPERM },
		{ ANE_SEL_DP_INPUTS_READY, ANE_CAP_DATA_CHAINING, -EPERM },
		{ ANE_SEL_DP_CHAINING_SET_ACTIVE, ANE_CAP_DATA_CHAINING, -EPERM },
		{ ANE_SEL_DP_SESSION_HINT, ANE_CAP_CLIENT_HINTS, -EPERM },
		{ ANE_SEL_DP_MEMORY_MAP, ANE_CAP_MEMORY, -EPERM },
		{ ANE_SEL_CTL_REGISTER_DWP, ANE_CAP_PRIV_VM, -EPERM },
		{ ANE_SEL_CTL_UNREGISTER_DWP, ANE_CAP_PRIV_VM, -EPERM },
		{ ANE_SEL_CTL_GET_DWP_ITEM, ANE_CAP_PRIV_VM, -EPERM },
		{ ANE_SEL_CTL_COMPLETE_DWP_ITEM, ANE_CAP_PRIV_VM, -EPERM },
		{ ANE_SEL_CTL_RELEASE_DWP_BUFFERS, ANE_CAP_PRIV_VM, -EPERM },
	};
	unsigned int i, j;
	int err;

	for (i = 0; i < ANE_SEL_COUNT; i++) {
		u32 cap = 0, need;
		int want = 0;

		for (j = 0; j < ARRAY_SIZE(gates); j++)
			if (gates[j].id == i) {
				cap = gates[j].cap;
				want = gates[j].err;
			}
		need = ane_caps_selector_need(&ane_selectors[i], &err);
		KUNIT_EXPECT_EQ_MSG(test, need, cap, "%s", ane_selectors[i].ioctl_name);
		if (cap)
			KUNIT_EXPECT_EQ_MSG(test, err, want, "%s",
					    ane_selectors[i].ioctl_name);
	}
}

static struct kunit_case ane_caps_cases[] = {
	KUNIT_CASE(ane_caps_nobody_gets_nothing),
	KUNIT_CASE(ane_caps_sys_admin_gets_everything),
	KUNIT_CASE(ane_caps_group_gets_client_caps_only),
	KUNIT_CASE(ane_caps_open_all_is_the_group_for_everyone),
	KUNIT_CASE(ane_caps_sys_nice_adds_the_realtime_band),
	KUNIT_CASE(ane_caps_realtime_band),
	KUNIT_CASE(ane_caps_selector_gates),
	{}
};

static struct kunit_suite ane_caps_suite = {
	.name = "ane_caps",
	.test_cases = ane_caps_cases,
};

kunit_test_suite(ane_caps_suite);
