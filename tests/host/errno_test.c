// SPDX-License-Identifier: MIT
/*
 * Error names: every Linux errno (1..133, less the two numbers Linux does
 * not use, 41 and 58) has its symbolic name in ane_errno_name(), positive
 * or negative, never a placeholder; and libane's messages carry the name
 * and the C library's text of the errno.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "libane.h"

static void every_errno_has_its_name(void)
{
	char msg[64];
	int e, named = 0;

	for (e = 1; e <= 133; e++) {
		const char *n = ane_errno_name(e);

		snprintf(msg, sizeof(msg), "Unknown error %d", e);
		if (!strcmp(strerror(e), msg))
			continue;	/* 41, 58: not errnos on Linux */
		T_CHECK(n && n[0] == 'E' && strcmp(n, "E?") && !strchr(n, ' '),
			"errno %d is \"%s\"", e, n ? n : "(null)");
		T_CHECK(n && !strcmp(n, ane_errno_name(-e)), "-%d", e);
		named++;
	}
	T_EQ(named, 131);
	T_CHECK(!strcmp(ane_errno_name(EKEYREJECTED), "EKEYREJECTED"), "EKEYREJECTED");
	T_CHECK(!strcmp(ane_errno_name(-EHWPOISON), "EHWPOISON"), "EHWPOISON");
	T_CHECK(!strcmp(ane_errno_name(ENOTRECOVERABLE), "ENOTRECOVERABLE"), "ENOTRECOVERABLE");
}

static void zero_and_unknown_numbers(void)
{
	T_CHECK(!strcmp(ane_errno_name(0), "OK"), "0 is \"%s\"", ane_errno_name(0));
	T_CHECK(!strcmp(ane_errno_name(600), "errno 600"), "600 is \"%s\"",
		ane_errno_name(600));
	T_CHECK(!strcmp(ane_errno_name(-41), "errno 41"), "-41 is \"%s\"",
		ane_errno_name(-41));
}

/* A failed open names the errno and says what it means. */
static void messages_carry_name_and_text(void)
{
	struct ane_dev *dev = NULL;
	char err[512] = "";

	T_EQ(ane_open("/nonexistent/ane-node", ANE_KIND_CONTROL, &dev, err,
		      sizeof(err)), -ENOENT);
	T_CHECK(strstr(err, "/nonexistent/ane-node") && strstr(err, "ENOENT"),
		"%s", err);
	T_CHECK(ane_open("/dev/null", 7, &dev, err, sizeof(err)) == -EINVAL &&
		strstr(err, "EINVAL"), "%s", err);
}

int main(void)
{
	T_RUN(every_errno_has_its_name);
	T_RUN(zero_and_unknown_numbers);
	T_RUN(messages_carry_name_and_text);
	return t_summary("errno");
}
