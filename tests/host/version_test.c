// SPDX-License-Identifier: MIT
/*
 * libane's compile-time version macros (LIBANE_VERSION_MAJOR, _MINOR,
 * _PATCH, LIBANE_VERSION_AT_LEAST) against ane_version(), the release of
 * the library linked in.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "libane.h"

/* The macros are plain integers: the preprocessor can compare them. */
#if !defined(LIBANE_VERSION_MAJOR) || !defined(LIBANE_VERSION_MINOR) || \
	!defined(LIBANE_VERSION_PATCH) || LIBANE_VERSION_MAJOR < 0
#error "libane.h has no usable LIBANE_VERSION_MAJOR/MINOR/PATCH"
#endif
#if !LIBANE_VERSION_AT_LEAST(0, 1, 0)
#error "LIBANE_VERSION_AT_LEAST(0, 1, 0) is false in #if"
#endif

static void test_macros_match_ane_version(void)
{
	char want[64];

	snprintf(want, sizeof(want), "%d.%d.%d", LIBANE_VERSION_MAJOR,
		 LIBANE_VERSION_MINOR, LIBANE_VERSION_PATCH);
	T_CHECK(!strcmp(ane_version(), want), "ane_version() '%s', the macros say '%s'",
		ane_version(), want);
}

static void test_at_least_orders_releases(void)
{
	const int M = LIBANE_VERSION_MAJOR, m = LIBANE_VERSION_MINOR,
		  p = LIBANE_VERSION_PATCH;

	T_CHECK(LIBANE_VERSION_AT_LEAST(M, m, p), "not at least itself");
	T_CHECK(LIBANE_VERSION_AT_LEAST(0, 0, 0), "not at least 0.0.0");
	T_CHECK(!LIBANE_VERSION_AT_LEAST(M, m, p + 1), "at least the next patch");
	T_CHECK(!LIBANE_VERSION_AT_LEAST(M, m + 1, 0), "at least the next minor");
	T_CHECK(!LIBANE_VERSION_AT_LEAST(M + 1, 0, 0), "at least the next major");
	if (p > 0)
		T_CHECK(LIBANE_VERSION_AT_LEAST(M, m, p - 1), "not at least the last patch");
	if (m > 0)
		T_CHECK(LIBANE_VERSION_AT_LEAST(M, m - 1, 99), "not at least an older minor");
}

int main(void)
{
	T_RUN(test_macros_match_ane_version);
	T_RUN(test_at_least_orders_releases);
	return t_summary("version");
}
