// SPDX-License-Identifier: MIT
/*
 * NumPy's .npy format for ane-run: the magic, a version, a header length
 * and a Python dict literal {'descr': '<f4', 'fortran_order': False,
 * 'shape': (1, 3, 224, 224), } padded with spaces to a multiple of 64
 * bytes, then the data.  Only what NumPy writes for a plain array is
 * accepted: little-endian (or byte-sized) numeric dtypes, C order.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ane-run-npy.h"

static const struct {
	const char *descr;
	int dtype;			/* ONNX's TensorProto.DataType */
	unsigned int size;
	const char *name;
} types[] = {
	{ "<f4", 1, 4, "float" }, { "|u1", 2, 1, "uint8" }, { "|i1", 3, 1, "int8" },
	{ "<u2", 4, 2, "uint16" }, { "<i2", 5, 2, "int16" }, { "<i4", 6, 4, "int32" },
	{ "<i8", 7, 8, "int64" }, { "|b1", 9, 1, "bool" }, { "<f2", 10, 2, "float16" },
	{ "<f8", 11, 8, "double" }, { "<u4", 12, 4, "uint32" }, { "<u8", 13, 8, "uint64" },
};
#define N_TYPES	(sizeof(types) / sizeof(types[0]))

static int find_dtype(int dtype)
{
	size_t i;

	for (i = 0; i < N_TYPES; i++)
		if (types[i].dtype == dtype)
			return (int)i;
	return -1;
}

const char *ane_npy_dtype_name(int dtype)
{
	int k = find_dtype(dtype);

	return k < 0 ? (dtype == 16 ? "bfloat16" : "unknown") : types[k].name;
}

size_t ane_npy_count(const struct ane_model_tensor *t)
{
	size_t n = 1;
	unsigned int i;

	for (i = 0; i < t->rank; i++)
		n *= (size_t)t->dims[i];
	return n;
}

static float half(uint16_t h)
{
	return ane_float_from_fp16(h);
}

double ane_npy_get(const struct ane_model_tensor *t, size_t i)
{
	const void *p = t->data;

	switch (t->dtype) {
	case 1: return ((const float *)p)[i];
	case 2: return ((const uint8_t *)p)[i];
	case 3: return ((const int8_t *)p)[i];
	case 4: return ((const uint16_t *)p)[i];
	case 5: return ((const int16_t *)p)[i];
	case 6: return ((const int32_t *)p)[i];
	case 7: return (double)((const int64_t *)p)[i];
	case 9: return ((const uint8_t *)p)[i] != 0;
	case 10: return half(((const uint16_t *)p)[i]);
	case 11: return ((const double *)p)[i];
	case 12: return ((const uint32_t *)p)[i];
	case 13: return (double)((const uint64_t *)p)[i];
	default: return 0;
	}
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The value of key @key in the header dict: a pointer past "'key':". */
static const char *dict_value(const char *h, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "'%s':", key);
	p = strstr(h, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	return p;
}

static int parse_header(const char *h, struct ane_model_tensor *t, int *k,
			char *err, size_t len, const char *path)
{
	const char *d = dict_value(h, "descr"), *f = dict_value(h, "fortran_order");
	const char *s = dict_value(h, "shape");
	size_t i;

	if (!d || !f || !s || *d != '\'' || *s != '(')
		return fail(err, len, "%s: the .npy header lacks descr, fortran_order or shape", path);
	for (i = 0; i < N_TYPES; i++)
		if (!strncmp(d + 1, types[i].descr, 3) && d[4] == '\'')
			break;
	if (i == N_TYPES)
		return fail(err, len, "%s: dtype %.8s is not one ane-run reads (little-endian numbers and bool)",
			    path, d);
	if (strncmp(f, "False", 5))
		return fail(err, len, "%s: a Fortran-order array; save it in C order", path);
	*k = (int)i;
	t->dtype = types[i].dtype;
	t->rank = 0;
	for (s++; *s != ')';) {
		char *end;
		long long v;

		while (*s == ' ' || *s == ',')
			s++;
		if (*s == ')')
			break;
		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno || end == s || v < 0 || t->rank == ANE_MODEL_MAX_RANK)
			return fail(err, len, "%s: a shape the header cannot give", path);
		t->dims[t->rank++] = v;
		s = end;
	}
	return 0;
}

int ane_npy_read(const char *path, struct ane_model_tensor *t, char *err,
		 size_t len)
{
	unsigned char pre[12];
	char *h = NULL;
	size_t hlen, bytes, n;
	FILE *f = fopen(path, "rb");
	int k = 0, r = -1;

	memset(t, 0, sizeof(*t));
	if (!f)
		return fail(err, len, "%s: %s", path, strerror(errno));
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6)) {
		fail(err, len, "%s: not a .npy file (no \\x93NUMPY magic)", path);
		goto out;
	}
	if (pre[6] == 1) {
		hlen = pre[8] | (size_t)pre[9] << 8;
	} else if (pre[6] == 2 || pre[6] == 3) {
		if (fread(pre + 10, 1, 2, f) != 2) {
			fail(err, len, "%s: truncated header", path);
			goto out;
		}
		hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
		       (size_t)pre[11] << 24;
	} else {
		fail(err, len, "%s: .npy version %u is unknown", path, pre[6]);
		goto out;
	}
	if (hlen > 1 << 20) {
		fail(err, len, "%s: a header of %zu bytes", path, hlen);
		goto out;
	}
	h = calloc(1, hlen + 1);
	if (!h || fread(h, 1, hlen, f) != hlen) {
		fail(err, len, "%s: truncated header", path);
		goto out;
	}
	if (parse_header(h, t, &k, err, len, path))
		goto out;
	n = ane_npy_count(t);
	bytes = n * types[k].size;
	if (n && bytes / n != types[k].size) {
		fail(err, len, "%s: too large", path);
		goto out;
	}
	t->data = malloc(bytes ? bytes : 1);
	if (!t->data || fread(t->data, 1, bytes, f) != bytes) {
		fail(err, len, "%s: %zu bytes of data expected", path, bytes);
		free(t->data);
		t->data = NULL;
		goto out;
	}
	t->size = bytes;
	r = 0;
out:
	free(h);
	fclose(f);
	return r;
}

int ane_npy_check(const struct ane_model_tensor *t,
		  const struct ane_model_tensor *info, char *err, size_t len)
{
	unsigned int i;

	if (t->dtype != info->dtype)
		return fail(err, len, "the file holds %s, the input is %s",
			    ane_npy_dtype_name(t->dtype), ane_npy_dtype_name(info->dtype));
	if (t->rank != info->rank)
		return fail(err, len, "the file's array has rank %u, the input %u",
			    t->rank, info->rank);
	for (i = 0; i < t->rank; i++)
		if (t->dims[i] != info->dims[i])
			return fail(err, len, "dims[%u] is %lld, the input's %lld", i,
				    (long long)t->dims[i], (long long)info->dims[i]);
	return 0;
}

int ane_npy_generate(const struct ane_model_tensor *info, unsigned int seed,
		     struct ane_model_tensor *t)
{
	size_t n, i;
	int k = find_dtype(info->dtype);

	*t = *info;
	n = ane_npy_count(info);
	t->data = calloc(n ? n : 1, info->size / (n ? n : 1) ? info->size / (n ? n : 1) : 1);
	if (!t->data)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int r = (unsigned int)rand_r(&seed);
		double u = (double)(r % 65536) / 32768.0 - 1.0;

		switch (info->dtype) {
		case 1: ((float *)t->data)[i] = (float)u; break;
		case 10: ((uint16_t *)t->data)[i] = ane_fp16_from_float((float)u); break;
		case 11: ((double *)t->data)[i] = u; break;
		case 9: ((uint8_t *)t->data)[i] = r & 1; break;
		case 7: ((int64_t *)t->data)[i] = r % 4; break;
		case 6: ((int32_t *)t->data)[i] = (int32_t)(r % 4); break;
		default:
			if (k >= 0 && types[k].size == 1)
				((uint8_t *)t->data)[i] = (uint8_t)(r % 4);
			break;
		}
	}
	return 0;
}

int ane_npy_write_dir(const char *dir, const struct ane_model_tensor *t,
		      char *err, size_t len)
{
	char path[4096], name[256], head[256];
	int k = find_dtype(t->dtype), hl;
	unsigned int i;
	size_t j;
	FILE *f;

	if (k < 0)
		return fail(err, len, "output %s: its dtype has no .npy form", t->name);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return fail(err, len, "%s: %s", dir, strerror(errno));
	for (j = 0; t->name[j] && j < sizeof(name) - 1; j++)
		name[j] = isalnum((unsigned char)t->name[j]) || t->name[j] == '-' ||
			  t->name[j] == '.' ? t->name[j] : '_';
	name[j] = '\0';
	snprintf(path, sizeof(path), "%s/%s.npy", dir, name);
	hl = snprintf(head, sizeof(head), "{'descr': '%s', 'fortran_order': False, 'shape': (",
		      types[k].descr);
	for (i = 0; i < t->rank; i++)
		hl += snprintf(head + hl, sizeof(head) - (size_t)hl, "%lld,%s",
			       (long long)t->dims[i], i + 1 < t->rank ? " " : "");
	hl += snprintf(head + hl, sizeof(head) - (size_t)hl, "), }");
	/* Pad with spaces so that magic + 4 + header ends on 64 bytes, with '\n'. */
	while ((10 + hl + 1) % 64 && hl < (int)sizeof(head) - 2)
		head[hl++] = ' ';
	head[hl++] = '\n';
	f = fopen(path, "wb");
	if (!f)
		return fail(err, len, "%s: %s", path, strerror(errno));
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc(hl & 0xff, f);
	fputc(hl >> 8, f);
	fwrite(head, 1, (size_t)hl, f);
	fwrite(t->data, 1, t->size, f);
	if (fclose(f))
		return fail(err, len, "%s: %s", path, strerror(errno));
	return 0;
}
