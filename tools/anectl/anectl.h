/* SPDX-License-Identifier: MIT */
/*
 * anectl: what its commands share (anectl.c, anectl_doctor.c,
 * anectl_top.c).
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef ANECTL_H
#define ANECTL_H

#include <stddef.h>

/* "0xNNN (name name ...)" of a capability set into @buf. */
const char *caps_str(unsigned int caps, char *buf, size_t len);

/* snprintf() for paths and messages, where truncation only shortens them. */
void __attribute__((format(printf, 3, 4)))
sfmt(char *buf, size_t len, const char *fmt, ...);

/* The first line of a small file, without its newline; 0 or -errno. */
int read_line(const char *path, char *buf, size_t len);

/* ane_opt_bad(), and -d without its NODE says how to find one. */
int anectl_bad_opt(int o, char **argv);

/*
 * No ane node was found: say why on stderr, as libane's discovery tells
 * it (the module not loaded, or only another driver named "ane", Asahi
 * Linux's, bound), prefixed with @prog ("anectl", "anectl power"); 1.
 */
int anectl_no_node(const char *prog);

/* anectl doctor [NODE]: 0 healthy, 1 not. */
int cmd_doctor(const char *only);

/*
 * anectl top [-d NODE] [--json] [--interval MS] [-n N] [--once]: @argv[0]
 * is "top", @node and @json what came before it.
 */
int cmd_top(const char *node, int json, int argc, char **argv);

#endif /* ANECTL_H */
