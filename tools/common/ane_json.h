/* SPDX-License-Identifier: MIT */
/*
 * The tools' machine-readable output and input through json-c
 * (libjson-c-dev): anectl --json, the benches' --json FILE, and what
 * ane-netbench reads back (tools/common/ane_json.c).  Only the tools link it,
 * never libane.
 *
 * Copyright (C) 2026 The ane authors
 */

#ifndef ANE_JSON_H
#define ANE_JSON_H

#include <stdio.h>

#include <json-c/json.h>

/*
 * A number written as printf(@fmt, @v) ("%.6g", "%.3f"): the figures keep
 * the precision they had as text.  A value that is not finite (JSON has no
 * NaN or infinity) is null.
 */
struct json_object *ane_json_num(double v, const char *fmt);

/* @key: ane_json_num(@v, @fmt) in @obj. */
void ane_json_add_num(struct json_object *obj, const char *key, double v, const char *fmt);

/* {"value": V, "target": T, "met": V <= T} (a target is an upper bound). */
struct json_object *ane_json_target(double v, const char *vfmt, double target,
				    const char *tfmt);

/*
 * @obj pretty-printed (two spaces) with a final newline to @f, or to the
 * file @path (created or truncated) when @f is NULL; puts @obj.  0, or -1
 * with errno set.
 */
int ane_json_write(struct json_object *obj, FILE *f, const char *path);

/*
 * The JSON document in the file @path, or NULL with a message naming the
 * file and the fault ("not JSON: ...") in @err.
 */
struct json_object *ane_json_read(const char *path, char *err, size_t len);

#endif /* ANE_JSON_H */
