/* SPDX-License-Identifier: MIT */
/*
 * NumPy's .npy files for ane-run (tools/ane-run/ane-run-npy.c): version 1 and 2
 * headers, little-endian C-order arrays of the dtypes ONNX and NumPy
 * share, read into and written from struct ane_model_tensor.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_RUN_NPY_H
#define ANE_RUN_NPY_H

#include <stddef.h>

#include "libane.h"

/* Read @path into @t (t->data malloc()ed); 0 or -1 with a message. */
int ane_npy_read(const char *path, struct ane_model_tensor *t, char *err,
		 size_t len);
/* Write @t to DIR/<name>.npy (the name's '/' and such made '_'). */
int ane_npy_write_dir(const char *dir, const struct ane_model_tensor *t,
		      char *err, size_t len);
/* @t matches the model's input @info: dtype and shape. */
int ane_npy_check(const struct ane_model_tensor *t,
		  const struct ane_model_tensor *info, char *err, size_t len);
/* A generated input for @info, from @seed: 0 or -1 (out of memory). */
int ane_npy_generate(const struct ane_model_tensor *info, unsigned int seed,
		     struct ane_model_tensor *t);
size_t ane_npy_count(const struct ane_model_tensor *t);
double ane_npy_get(const struct ane_model_tensor *t, size_t i);
const char *ane_npy_dtype_name(int dtype);

#endif /* ANE_RUN_NPY_H */
