// SPDX-License-Identifier: MIT
/*
 * The tools' JSON through json-c (ane_json.h).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ane_json.h"

struct json_object *ane_json_num(double v, const char *fmt)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	/* the callers' formats are literals: "%.6g", "%.3f" */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, sizeof(buf), fmt, v);
#pragma GCC diagnostic pop
	return json_object_new_double_s(v, buf);
}

void ane_json_add_num(struct json_object *obj, const char *key, double v, const char *fmt)
{
	json_object_object_add(obj, key, ane_json_num(v, fmt));
}

struct json_object *ane_json_target(double v, const char *vfmt, double target,
				    const char *tfmt)
{
	struct json_object *o = json_object_new_object();

	ane_json_add_num(o, "value", v, vfmt);
	ane_json_add_num(o, "target", target, tfmt);
	json_object_object_add(o, "met", json_object_new_boolean(v <= target));
	return o;
}

int ane_json_write(struct json_object *obj, FILE *f, const char *path)
{
	const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_SPACED |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *out = f ? f : fopen(path, "we");
	int ret;

	if (!out) {
		ret = errno;
		json_object_put(obj);
		errno = ret;
		return -1;
	}
	ret = fprintf(out, "%s\n", text) < 0;
	json_object_put(obj);
	if (f)
		ret |= fflush(out) != 0;
	else
		ret |= fclose(out) != 0;
	return ret ? -1 : 0;
}

struct json_object *ane_json_read(const char *path, char *err, size_t len)
{
	enum json_tokener_error je = json_tokener_continue;
	struct json_object *o = NULL;
	struct json_tokener *tok;
	char buf[65536];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	tok = json_tokener_new();
	while (tok && je == json_tokener_continue && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		o = json_tokener_parse_ex(tok, buf, (int)n);
		je = json_tokener_get_error(tok);
	}
	if (!tok)
		snprintf(err, len, "%s: out of memory", path);
	else if (ferror(f))
		snprintf(err, len, "%s: %s", path, strerror(EIO));
	else if (je != json_tokener_success || !o)
		snprintf(err, len, "%s: not JSON: %s", path,
			 json_tokener_error_desc(je == json_tokener_continue ?
						 json_tokener_error_parse_eof : je));
	else
		err = NULL;
	fclose(f);
	if (tok)
		json_tokener_free(tok);
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
