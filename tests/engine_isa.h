/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the host tests of the engine's newer operations share
 * (tests/host/copy_test.c, reduce_test.c, unary_test.c): the instruction-set
 * paths this build and CPU can run, a test name with the path in it, a
 * random number generator, and running a descriptor with its workspace.
 * Include harness.h and ane_math.h first.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_TEST_ENGINE_ISA_H
#define ANE_TEST_ENGINE_ISA_H

#include <stdlib.h>

static const char *const t_isa_name[ANE_MATH_ISA_COUNT] = {
	[ANE_MATH_ISA_SSE2] = "sse2",
	[ANE_MATH_ISA_AVX2_FMA] = "avx2+fma+f16c",
	[ANE_MATH_ISA_AVX512] = "avx512",
};

/* Why @isa cannot run here, or NULL if it can. */
static inline const char *t_isa_missing(uint32_t isa)
{
	if (t_isa_denied(t_isa_name[isa]))
		return "ANE_TEST_NO_ISA names it";
	if (!ane_math_isa_built(isa))
		return "not built into the engine (not x86_64?)";
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (isa >= ANE_MATH_ISA_AVX2_FMA &&
	    (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
	     !__builtin_cpu_supports("f16c")))
		return "this CPU lacks AVX2, FMA or F16C";
	if (isa == ANE_MATH_ISA_AVX512 &&
	    (!__builtin_cpu_supports("avx512f") ||
	     !__builtin_cpu_supports("avx512bw") ||
	     !__builtin_cpu_supports("avx512vl")))
		return "this CPU lacks AVX-512 F, BW or VL";
#else
	if (isa != ANE_MATH_ISA_SSE2)
		return "not an x86-64 CPU";
#endif
	return NULL;
}

/* T_RUN with the ISA path in the test's name. */
#define T_RUN_ISA(fn, isa) do { \
	char _tag[32]; \
	snprintf(_tag, sizeof(_tag), " [%s]", t_isa_name[isa]); \
	if (t_skip_why) { \
		t_skip(#fn, _tag, t_skip_why); \
		break; \
	} \
	t_case_failed = 0; \
	t_case_skipped = NULL; \
	fn(); \
	t_case_end(#fn, _tag); \
} while (0)

/* Run @fn once on every path there is (skipped ones said so), then SSE2 again. */
#define T_RUN_EVERY_ISA(fn) do { \
	uint32_t _isa; \
	for (_isa = 0; _isa < ANE_MATH_ISA_COUNT; _isa++) { \
		const char *_why = t_isa_missing(_isa); \
		if (_why) { \
			char _t[32]; \
			snprintf(_t, sizeof(_t), " [%s]", t_isa_name[_isa]); \
			t_skip(#fn, _t, _why); \
			continue; \
		} \
		T_CHECK(!ane_math_set_isa(_isa), "set isa %u", _isa); \
		T_RUN_ISA(fn, _isa); \
	} \
	ane_math_set_isa(ANE_MATH_ISA_SSE2); \
} while (0)

static uint64_t t_rng_state = 0x2545f4914f6cdd1dull;

static inline uint64_t t_rng(void)
{
	t_rng_state ^= t_rng_state << 13;
	t_rng_state ^= t_rng_state >> 7;
	t_rng_state ^= t_rng_state << 17;
	return t_rng_state;
}

/* Uniform in [lo, hi). */
static inline double t_rngf(double lo, double hi)
{
	return lo + (hi - lo) * (double)(t_rng() >> 11) / 9007199254740992.0;
}

/* Validate and run every chunk of @d with a workspace of its own. */
static inline int t_run_op(struct ane_op_desc *d)
{
	uint64_t ws = 0;
	int ret = ane_op_workspace_size(d, &ws);

	if (ret)
		return ret;
	d->work = ws ? aligned_alloc(ANE_MATH_WORK_ALIGN,
				     (ws + ANE_MATH_WORK_ALIGN - 1) /
				     ANE_MATH_WORK_ALIGN * ANE_MATH_WORK_ALIGN) : NULL;
	d->work_size = ws;
	ret = ane_op_validate(d);
	if (!ret)
		ret = ane_op_run_all(d);
	free(d->work);
	d->work = NULL;
	d->work_size = 0;
	return ret;
}

/*
 * Run @d split over @parts cores as the engine model does
 * (ane_op_split()), part by part; returns the first error.
 */
static inline int t_run_split(const struct ane_op_desc *d, uint32_t parts)
{
	struct ane_op_desc sub;
	uint32_t i;
	int ret;

	for (i = 0; i < parts; i++) {
		ret = ane_op_split(d, i, parts, &sub);
		if (!ret)
			ret = t_run_op(&sub);
		if (ret)
			return ret;
	}
	return 0;
}

#endif /* ANE_TEST_ENGINE_ISA_H */
