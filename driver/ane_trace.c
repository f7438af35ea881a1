// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ane trace system: this file instantiates the tracepoints declared
 * in ane_trace.h (Documentation/accel/ane/tracing.rst).
 *
 * Copyright (C) 2026 The ane authors
 */

#define CREATE_TRACE_POINTS
#include "ane_trace.h"
