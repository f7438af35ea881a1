/* SPDX-License-Identifier: MIT */
/*
 * ane-run's parts: the demo networks (ane-run.c) and ONNX models
 * (ane-run-onnx.c, with .npy files in ane-run-npy.c).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_RUN_H
#define ANE_RUN_H

/* ane-run MODEL.onnx ...: the exit status. */
int ane_run_onnx(int argc, char **argv);

#endif /* ANE_RUN_H */
