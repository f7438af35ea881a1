// SPDX-License-Identifier: MIT
/*
 * What every tool's argument parsing shares (ane_opt.h).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane_opt.h"

const char *ane_prog = "ane";

void ane_opt_init(const char *prog)
{
	ane_prog = prog;
	opterr = 0;
}

int ane_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ane_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", ane_prog);
	return ANE_OPT_USAGE;
}

int ane_opt_bad(int c, char **argv)
{
	const char *w = optind > 0 ? argv[optind - 1] : NULL;
	int longopt = w && !strncmp(w, "--", 2);
	size_t n = longopt ? strcspn(w, "=") : 0;

	if (c == ':') {
		if (longopt)
			return ane_usage_error("%.*s needs a value", (int)n, w);
		return ane_usage_error("-%c needs a value", optopt);
	}
	if (longopt && optopt && w[n] == '=')
		return ane_usage_error("%.*s takes no value, not '%s'", (int)n, w, w + n + 1);
	if (longopt && !optopt)
		return ane_usage_error("unknown option '%.*s'", (int)n, w);
	if (optopt)
		return ane_usage_error("unknown option '-%c'", optopt);
	return ane_usage_error("unknown option '%s'", w ? w : "?");
}

/* "PROG: NAME 'VAL' is not a number[ of UNIT][ from MIN to MAX]"; 2. */
static int not_number(const char *name, const char *val, const char *unit,
		      const char *range)
{
	return ane_usage_error("%s '%s' is not a number%s%s%s", name, val,
			       unit ? " of " : "", unit ? unit : "", range);
}

/* @val as an unsigned decimal (or 0x hex) number: 0, or -1. */
static int parse_u64(const char *val, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() takes "-1" as ULLONG_MAX and " 1" as 1: neither is a number */
	if (!val || *val < '0' || *val > '9')
		return -1;
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int ane_opt_u64(const char *name, const char *val, uint64_t min, uint64_t max,
		const char *unit, uint64_t *out)
{
	char range[64] = "";
	uint64_t v;

	if (min || max != UINT64_MAX)
		snprintf(range, sizeof(range), " from %" PRIu64 " to %" PRIu64, min, max);
	if (parse_u64(val, &v) || v < min || v > max)
		return not_number(name, val ? val : "", unit, range);
	*out = v;
	return 0;
}

int ane_opt_uint(const char *name, const char *val, unsigned int min, unsigned int max,
		 const char *unit, unsigned int *out)
{
	char range[64];
	uint64_t v;

	snprintf(range, sizeof(range), " from %u to %u", min, max);
	if (parse_u64(val, &v) || v < min || v > max)
		return not_number(name, val ? val : "", unit, range);
	*out = (unsigned int)v;
	return 0;
}

int ane_opt_double(const char *name, const char *val, double min, double max,
		   const char *unit, double *out)
{
	char range[80];
	double v;
	char *end;

	snprintf(range, sizeof(range), " from %.15g to %.15g", min, max);
	errno = 0;
	v = val ? strtod(val, &end) : 0;
	if (!val || !*val || errno || *end || !isfinite(v) || v < min || v > max ||
	    strspn(val, " \t"))
		return not_number(name, val ? val : "", unit, range);
	*out = v;
	return 0;
}

int ane_opt_operands(int argc, char **argv, int min, int max, const char *what)
{
	int n = argc - optind;

	if (n < min)
		return ane_usage_error("missing %s", what);
	if (n > max)
		return ane_usage_error("unexpected operand '%s'", argv[optind + max]);
	return 0;
}
