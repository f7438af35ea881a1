// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: TensorProto to value -- typed fields, raw
 * data, and external data files read from the model's directory (and
 * nowhere else) -- for initializers, Constant attributes and the test
 * data's input_N.pb files.  Every byte count is checked against the
 * shape.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "ox.h"
#include "ox_load.h"

int ane__ox_check_dims(struct ox_ctx *c, const char *what, const char *name,
		      size_t n_dims, const int64_t *dims)
{
	size_t i;

	if (n_dims > OX_MAX_RANK)
		return ane__ox_load_fail(c, EOPNOTSUPP,
				 "%s '%s': rank %zu, more than the %d supported",
				 what, name, n_dims, OX_MAX_RANK);
	for (i = 0; i < n_dims; i++)
		if (dims[i] < 0)
			return ane__ox_load_fail(c, EINVAL,
					 "%s '%s': dims[%zu] is %lld, negative",
					 what, name, i, (long long)dims[i]);
	if (ane__ox_shape_count((int)n_dims, dims) < 0)
		return ane__ox_load_fail(c, EOVERFLOW,
				 "%s '%s': its element count overflows", what,
				 name);
	return 0;
}

/* Read @len bytes at @off of the external data file @loc under @dir. */
static int read_external(struct ox_ctx *c, const struct ox_load_opts *o,
			 const char *name, const char *loc, uint64_t off,
			 uint64_t len, void *dst)
{
	char path[4096];
	struct stat st;
	ssize_t got;
	size_t done = 0;
	int fd;

	if (!o || !o->base_dir)
		return ane__ox_load_fail(c, EINVAL,
				 "initializer '%s': its data is in the external file '%s', and the model was not loaded from a file (no directory to look in)",
				 name, loc);
	if (loc[0] == '/' || strstr(loc, "..") || !loc[0])
		return ane__ox_load_fail(c, EPERM,
				 "initializer '%s': external data location '%s' is not a relative path inside the model's directory",
				 name, loc);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", o->base_dir, loc) >=
	    sizeof(path))
		return ane__ox_load_fail(c, ENAMETOOLONG,
				 "initializer '%s': external data path too long",
				 name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ane__ox_load_fail(c, errno,
				 "initializer '%s': cannot open its external data '%s': %s",
				 name, path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    off > (uint64_t)st.st_size || len > (uint64_t)st.st_size - off) {
		close(fd);
		return ane__ox_load_fail(c, EINVAL,
				 "initializer '%s': external data '%s' has no %llu bytes at offset %llu",
				 name, path, (unsigned long long)len,
				 (unsigned long long)off);
	}
	while (done < len) {
		got = pread(fd, (char *)dst + done, len - done, (off_t)(off + done));
		if (got <= 0) {
			close(fd);
			return ane__ox_load_fail(c, EIO,
					 "initializer '%s': reading '%s' failed",
					 name, path);
		}
		done += (size_t)got;
	}
	close(fd);
	return 0;
}

static int external_field(struct ox_ctx *c, const Onnx__TensorProto *tp,
			  const char **loc, uint64_t *off, uint64_t *len,
			  int *has_len)
{
	size_t i;
	char *end;

	*loc = NULL;
	*off = 0;
	*has_len = 0;
	for (i = 0; i < tp->n_external_data; i++) {
		const char *k = tp->external_data[i]->key;
		const char *v = tp->external_data[i]->value;

		if (!k || !v)
			continue;
		if (!strcmp(k, "location")) {
			*loc = v;
		} else if (!strcmp(k, "offset") || !strcmp(k, "length")) {
			unsigned long long x;

			errno = 0;
			x = strtoull(v, &end, 10);
			if (errno || *end || end == v)
				return ane__ox_load_fail(c, EINVAL,
						 "initializer '%s': external_data %s '%s' is not a number",
						 tp->name, k, v);
			if (!strcmp(k, "offset")) {
				*off = x;
			} else {
				*len = x;
				*has_len = 1;
			}
		}
	}
	if (!*loc)
		return ane__ox_load_fail(c, EINVAL,
				 "initializer '%s': external data without a location",
				 tp->name);
	return 0;
}

int ane__ox_tensor_from_proto(struct ox_ctx *c, const void *proto,
			      const struct ox_load_opts *o,
			      struct ox_value **out)
{
	const Onnx__TensorProto *tp = proto;
	const char *name = tp->name && tp->name[0] ? tp->name : "(unnamed)";
	int dtype = tp->has_data_type ? tp->data_type : OX_UNDEFINED;
	size_t esize = ane__ox_dtype_size(dtype), i, n_typed;
	struct ox_value *v;
	int err;

	*out = NULL;
	if (dtype == OX_STRING)
		return ane__ox_load_fail(c, EOPNOTSUPP,
				 "tensor '%s': string tensors are not supported",
				 name);
	if (!esize)
		return ane__ox_load_fail(c, EOPNOTSUPP,
				 "tensor '%s': data_type %d (%s) is not supported",
				 name, dtype, ane__ox_dtype_name(dtype));
	err = ane__ox_check_dims(c, "tensor", name, tp->n_dims, tp->dims);
	if (err)
		return err;
	if (tp->segment)
		return ane__ox_load_fail(c, EOPNOTSUPP,
				 "tensor '%s': segmented tensors are not supported",
				 name);
	v = ane__ox_value_new(dtype, (int)tp->n_dims, tp->dims);
	if (!v)
		return ane__ox_load_fail(c, ENOMEM,
				 "tensor '%s': %lld elements of %s do not fit in memory",
				 name,
				 (long long)ane__ox_shape_count((int)tp->n_dims, tp->dims),
				 ane__ox_dtype_name(dtype));

	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		const char *loc;
		uint64_t off, len = 0;
		int has_len;

		err = external_field(c, tp, &loc, &off, &len, &has_len);
		if (!err && has_len && len != v->count * esize)
			err = ane__ox_load_fail(c, EINVAL,
					"initializer '%s': external data length %llu, but %zu elements of %s are %zu bytes",
					name, (unsigned long long)len, v->count,
					ane__ox_dtype_name(dtype), v->count * esize);
		if (!err)
			err = read_external(c, o, name, loc, off,
					    v->count * esize, v->data);
		if (err) {
			ane__ox_value_free(v);
			return err;
		}
		*out = v;
		return 0;
	}

	if (tp->has_raw_data) {
		if (tp->raw_data.len != v->count * esize) {
			err = ane__ox_load_fail(c, EINVAL,
					"tensor '%s': raw_data has %zu bytes, its %zu elements of %s need %zu",
					name, tp->raw_data.len, v->count,
					ane__ox_dtype_name(dtype), v->count * esize);
			ane__ox_value_free(v);
			return err;
		}
		if (v->count)
			memcpy(v->data, tp->raw_data.data, tp->raw_data.len);
		*out = v;
		return 0;
	}

	switch (dtype) {
	case OX_FLOAT:
		n_typed = tp->n_float_data;
		break;
	case OX_DOUBLE:
		n_typed = tp->n_double_data;
		break;
	case OX_INT64:
		n_typed = tp->n_int64_data;
		break;
	case OX_UINT32:
	case OX_UINT64:
		n_typed = tp->n_uint64_data;
		break;
	default:
		n_typed = tp->n_int32_data;
		break;
	}
	if (n_typed != v->count) {
		err = ane__ox_load_fail(c, EINVAL,
				"tensor '%s': %zu values for its %zu elements",
				name, n_typed, v->count);
		ane__ox_value_free(v);
		return err;
	}
	for (i = 0; i < v->count; i++) {
		switch (dtype) {
		case OX_FLOAT:
			((float *)v->data)[i] = tp->float_data[i];
			break;
		case OX_DOUBLE:
			((double *)v->data)[i] = tp->double_data[i];
			break;
		case OX_INT64:
			((int64_t *)v->data)[i] = tp->int64_data[i];
			break;
		case OX_UINT32:
		case OX_UINT64:
			ane__ox_set_i(v, i, (int64_t)tp->uint64_data[i]);
			break;
		case OX_FLOAT16:
		case OX_BFLOAT16:
			((uint16_t *)v->data)[i] = (uint16_t)tp->int32_data[i];
			break;
		default:
			ane__ox_set_i(v, i, tp->int32_data[i]);
			break;
		}
	}
	*out = v;
	return 0;
}

int ane__ox_tensor_parse(const void *buf, size_t len, struct ox_value **out,
			 char *err, size_t err_len)
{
	struct ox_ctx c = { .err = err, .err_len = err_len };
	Onnx__TensorProto *tp;
	int r;

	*out = NULL;
	tp = onnx__tensor_proto__unpack(NULL, len, buf);
	if (!tp)
		return ane__ox_load_fail(&c, EBADMSG,
				 "not a TensorProto (the protobuf does not parse: truncated or another message)");
	r = ane__ox_tensor_from_proto(&c, tp, NULL, out);
	onnx__tensor_proto__free_unpacked(tp, NULL);
	return r;
}

