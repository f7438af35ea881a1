/* SPDX-License-Identifier: MIT */
/*
 * A minimal test harness for the host and VM tests: TAP-like lines, and a
 * closing "<suite>: N passed, N failed" line that tests/check.sh sums.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_TEST_HARNESS_H
#define ANE_TEST_HARNESS_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static unsigned int t_passed, t_failed, t_case_failed;

#define T_CHECK(cond, fmt, ...) do { \
	if (!(cond)) { \
		t_case_failed = 1; \
		printf("#   %s:%d: check failed: %s: " fmt "\n", __FILE__, \
		       __LINE__, #cond, ##__VA_ARGS__); \
	} \
} while (0)

#define T_EQ(a, b) do { \
	unsigned long long _a = (unsigned long long)(a); \
	unsigned long long _b = (unsigned long long)(b); \
	T_CHECK(_a == _b, "%s = %llu (0x%llx), expected %llu (0x%llx)", \
		#a, _a, _a, _b, _b); \
} while (0)

/* Expect a call returning -1/errno (ioctl style) to fail with @err. */
#define T_ERRNO(call, err) do { \
	int _r = (call); \
	int _e = _r < 0 ? errno : 0; \
	T_CHECK(_r < 0 && _e == (err), "returned %d errno %d (%s), expected %s", \
		_r, _e, strerror(_e), #err); \
} while (0)

#define T_OK(call) do { \
	int _r = (call); \
	T_CHECK(_r >= 0, "returned %d errno %d (%s)", _r, errno, strerror(errno)); \
} while (0)

#define T_RUN(fn) do { \
	t_case_failed = 0; \
	fn(); \
	if (t_case_failed) { \
		t_failed++; \
		printf("not ok - %s\n", #fn); \
	} else { \
		t_passed++; \
		printf("ok - %s\n", #fn); \
	} \
	fflush(stdout); \
} while (0)

static inline int t_summary(const char *suite)
{
	printf("%s: %u passed, %u failed\n", suite, t_passed, t_failed);
	return t_failed ? 1 : 0;
}

#endif /* ANE_TEST_HARNESS_H */
