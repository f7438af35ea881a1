/* SPDX-License-Identifier: MIT */
/*
 * What every tool's argument parsing shares (tools/common/ane_opt.c): the
 * program name its messages start with, the usage error, the message for
 * what getopt_long() refused, numbers with their range and operands.
 *
 * Each tool parses with getopt_long() (GNU conventions: --opt=value,
 * --opt value, -- ends the options, options may follow operands unless
 * the optstring starts with '+'), an optstring that starts with ':' (or
 * "+:") and opterr = 0, and calls ane_opt_bad() on '?' and ':'.  Every
 * message goes to stderr and names the argument; a usage error is exit
 * status 2 (ANE_OPT_USAGE).
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef ANE_OPT_H
#define ANE_OPT_H

#include <getopt.h>
#include <stdint.h>

#define ANE_OPT_USAGE	2	/* the exit status of a usage error */

/* The name messages start with: "anectl", "anectl top" (ane_opt_init()). */
extern const char *ane_prog;

/* Set ane_prog (kept, not copied) and opterr = 0. */
void ane_opt_init(const char *prog);

/*
 * "PROG: MESSAGE" and "Try 'PROG --help'." on stderr; ANE_OPT_USAGE.
 */
int ane_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The usage error for what getopt_long() returned: '?' (an unknown option,
 * or a value given to one that takes none) or ':' (an option without its
 * value), naming the option as it was typed; ANE_OPT_USAGE.
 */
int ane_opt_bad(int c, char **argv);

/*
 * @val as a decimal number from @min to @max into *@out; else the usage
 * error "PROG: NAME 'VAL' is not a number[ of UNIT][ from MIN to MAX]"
 * (the range is left out when it is the type's whole range) and
 * ANE_OPT_USAGE.  @unit may be NULL.  ane_opt_u64() also takes 0x hex.
 */
int ane_opt_u64(const char *name, const char *val, uint64_t min, uint64_t max,
		const char *unit, uint64_t *out);
int ane_opt_uint(const char *name, const char *val, unsigned int min, unsigned int max,
		 const char *unit, unsigned int *out);
int ane_opt_double(const char *name, const char *val, double min, double max,
		   const char *unit, double *out);

/*
 * The operands left after getopt_long() (argv[optind..argc-1]): between
 * @min and @max of them, else the usage error naming the first extra one
 * ("unexpected operand 'X'") or what is missing ("missing @what", @what
 * e.g. "BENCH"); 0 or ANE_OPT_USAGE.
 */
int ane_opt_operands(int argc, char **argv, int min, int max, const char *what);

#endif /* ANE_OPT_H */
