/* SPDX-License-Identifier: MIT */
/*
 * A minimal test harness for the host and VM tests: TAP-like lines ("ok -
 * CASE", "not ok - CASE", "SKIP - CASE: WHY"), and a closing
 * "<suite>: N passed, N failed, N skipped" line that tests/check.sh sums.
 *
 * A case that cannot run here (no AVX-512 on this CPU) calls T_SKIP(WHY)
 * and is counted as skipped, never as passed; a case that failed a check
 * before it skipped still fails.  t_skip_why, when set, skips every T_RUN
 * until it is cleared (a whole group of cases that cannot run).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_TEST_HARNESS_H
#define ANE_TEST_HARNESS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned int t_passed, t_failed, t_skipped, t_case_failed;
static const char *t_case_skipped;	/* why the running case skipped */
static const char *t_skip_why;		/* skip every T_RUN while set */

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

/* Skip the running case (from its own function, which returns). */
#define T_SKIP(why) do { \
	t_case_skipped = (why); \
	return; \
} while (0)

/* Count the case that ran as @name: failed, skipped or passed. */
static inline void t_case_end(const char *name, const char *tag)
{
	if (t_case_failed) {
		t_failed++;
		printf("not ok - %s%s\n", name, tag);
	} else if (t_case_skipped) {
		t_skipped++;
		printf("SKIP - %s%s: %s\n", name, tag, t_case_skipped);
	} else {
		t_passed++;
		printf("ok - %s%s\n", name, tag);
	}
	fflush(stdout);
}

/* A case that is not run at all: counted as skipped. */
static inline void t_skip(const char *name, const char *tag, const char *why)
{
	t_skipped++;
	printf("SKIP - %s%s: %s\n", name, tag, why);
	fflush(stdout);
}

/*
 * ANE_TEST_NO_ISA=NAME[,NAME...] (sse2, avx2+fma+f16c, avx512): the engine
 * tests take those instruction-set paths as missing on this CPU, so a
 * machine that has them can see (and test) what skips without them.
 */
static inline int t_isa_denied(const char *isa)
{
	const char *l = getenv("ANE_TEST_NO_ISA"), *p;
	size_t n = strlen(isa);

	for (p = l; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, isa, n) && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

#define T_RUN(fn) do { \
	if (t_skip_why) { \
		t_skip(#fn, "", t_skip_why); \
		break; \
	} \
	t_case_failed = 0; \
	t_case_skipped = NULL; \
	fn(); \
	t_case_end(#fn, ""); \
} while (0)

static inline int t_summary(const char *suite)
{
	printf("%s: %u passed, %u failed, %u skipped\n", suite, t_passed, t_failed,
	       t_skipped);
	return t_failed ? 1 : 0;
}

#endif /* ANE_TEST_HARNESS_H */
