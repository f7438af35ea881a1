/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's vector exp and exact GELU, written once for any vector
 * width: ane_math.c includes this for four lanes (SSE2: ane_expf4(),
 * ane_gelu4()), ane_math_rows_avx2.c for eight (AVX2: ane_expf8(),
 * ane_gelu8()), ane_math_rows_avx512.c for sixteen.  Every lane does the operations of ane_expf() and
 * ane_gelu() in ane_math.c in the same order, so the same bits.
 *
 * The includer defines ANE_VF (the float vector type), ANE_VI (the int32
 * vector of as many lanes), ANE_VN(name) (@name with the lane count
 * appended) and ANE_VSPLAT(x) (every lane @x).  With ANE_VLANES (the
 * lane count), ANE_VLOAD(p, s) (ANE_VLANES fp16 at @p, or @p[0] in every
 * lane for @s 0, to fp32) and ANE_VSTORE(y, v) (round and store) as well,
 * it defines the elementwise row loop, ANE_VN(ane_elt_row).  ANE_VTAB(t,
 * j) (optional; lane by lane if not defined) looks up row @t of
 * ane_gelu_tab at each lane's piece @j.  With ANE_VACC and
 * ANE_VACC_ADD(acc, v) as well (see there), it defines the NORM rows'
 * fused passes, ANE_VN(ane_softmax_row) and ANE_VN(ane_layer_row).  No
 * include guard: one inclusion per width.
 *
 * Copyright (C) 2026 The ane authors
 */

/* Lanes of @a where @m is all ones, else of @b. */
static inline ANE_VF ANE_VN(ane_sel)(ANE_VI m, ANE_VF a, ANE_VF b)
{
	return (ANE_VF)(((ANE_VI)a & m) | ((ANE_VI)b & ~m));
}

/*
 * ane_expf() on every lane, the same operations lane by lane, so the
 * same bits, for arguments that are not NaN and at most 88.72 (the
 * softmax's, after subtracting the maximum): a lane below -103.97 gives
 * 0 as there.
 */
static inline ANE_VF ANE_VN(ane_expf)(ANE_VF x)
{
	ANE_VF fn, r, z, p;
	ANE_VI under = x < -103.97208404541015625f, n, n1;

	x = ANE_VN(ane_sel)(under, ANE_VSPLAT(0.0f), x);
	fn = x * 1.44269504088896341f;
	/* fn + (fn < 0 ? -0.5f : 0.5f), truncated as (int) does */
	n = __builtin_convertvector(fn + ANE_VN(ane_sel)(fn < 0.0f, ANE_VSPLAT(-0.5f),
							 ANE_VSPLAT(0.5f)), ANE_VI);
	fn = __builtin_convertvector(n, ANE_VF);
	ANE_EXPF_CORE(x, fn, r, z, p);
	n1 = n / 2;
	p *= (ANE_VF)((n1 + 127) << 23);
	p = p * (ANE_VF)((n - n1 + 127) << 23);
	return ANE_VN(ane_sel)(under, ANE_VSPLAT(0.0f), p);
}

#ifndef ANE_VTAB
/* Row @t of ane_gelu_tab (ANE_GELU_PIECES floats) at every lane's @j. */
static inline ANE_VF ANE_VN(ane_gelu_tab)(const float *t, ANE_VI j)
{
	ANE_VF r;
	unsigned int i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		r[i] = t[j[i]];
	return r;
}

#define ANE_VTAB(t, j)	ANE_VN(ane_gelu_tab)((t), (j))
#endif

/*
 * ane_gelu() on every lane: the same operations in the same order, so
 * the same bits (the host tests compare every lane with ane_gelu()), with
 * the lanes outside (-6, 6) (and NaN) computed on zeros in their place
 * and then selected: x from 6 on and for NaN, -0 below -6.  The table's
 * lookups are exact, so the includer may do them as it likes
 * (ANE_VTAB(row, j)).
 */
static inline ANE_VF ANE_VN(ane_gelu)(ANE_VF x)
{
	ANE_VF a = (ANE_VF)((ANE_VI)x & 0x7fffffff), d, p, r;
	ANE_VI in = a < 6.0f, j;

	a = ANE_VN(ane_sel)(in, a, ANE_VSPLAT(0.0f));
	j = __builtin_convertvector(a * 5.33333302f, ANE_VI);
	d = a - (__builtin_convertvector(j, ANE_VF) * 0.1875f + 0.09375f);
	/* unrolled (ane_gelu()'s loop), so the rows stay in registers */
#if ANE_GELU_DEG != 6
#error "ane_gelu's vector form is written for degree 6"
#endif
	p = ANE_VTAB(ane_gelu_tab[6], j);
	p = p * d + ANE_VTAB(ane_gelu_tab[5], j);
	p = p * d + ANE_VTAB(ane_gelu_tab[4], j);
	p = p * d + ANE_VTAB(ane_gelu_tab[3], j);
	p = p * d + ANE_VTAB(ane_gelu_tab[2], j);
	p = p * d + ANE_VTAB(ane_gelu_tab[1], j);
	p = p * d + ANE_VTAB(ane_gelu_tab[0], j);
	r = x * p;
	r = ANE_VN(ane_sel)(x > 0.0f, x - r, r);
	return ANE_VN(ane_sel)(in, r, ANE_VN(ane_sel)(x < 0.0f, ANE_VSPLAT(-0.0f), x));
}

#ifdef ANE_VLOAD
/*
 * e[i] = ane_expf(e[i] - mx) for the whole groups of ANE_VLANES of @n
 * values, every e[i] <= mx (a NaN difference, from a NaN or infinite
 * input, stays itself as there).  Returns how many it did.
 */
static inline uint32_t ANE_VN(ane_exp_sub)(float *e, uint32_t n, float mx)
{
	ANE_VF m = ANE_VSPLAT(mx), v;
	uint32_t i;

	for (i = 0; i + ANE_VLANES <= n; i += ANE_VLANES) {
		__builtin_memcpy(&v, e + i, sizeof(v));
		v = v - m;
		v = ANE_VN(ane_sel)(v != v, v, ANE_VN(ane_expf)(v));
		__builtin_memcpy(e + i, &v, sizeof(v));
	}
	return i;
}

/*
 * A SOFTMAX over C at ANE_VLANES consecutive positions along W, a lane
 * each: @x and @y their channel 0, channels @xs and @ys elements apart,
 * the positions contiguous.  Lane by lane the operations of
 * ane_softmax_pos(): the largest value that is not NaN, then
 * exp(x - max) summed over c in order, then each exponential times
 * 1 / sum rounded to fp16; the exponentials are computed again in the
 * last pass rather than kept (the same bits: no workspace of C x lanes).
 */
static inline void ANE_VN(ane_softmax_cols)(const uint16_t *x, uint64_t xs,
					    uint16_t *y, uint64_t ys, uint32_t C)
{
	ANE_VF m = ANE_VSPLAT(-__builtin_inff()), s = ANE_VSPLAT(0.0f), v, inv;
	uint32_t c;

	for (c = 0; c < C; c++) {
		v = ANE_VLOAD(x + c * xs, 1);
		m = ANE_VN(ane_sel)(v > m, v, m);
	}
	for (c = 0; c < C; c++) {
		v = ANE_VLOAD(x + c * xs, 1) - m;
		s = s + ANE_VN(ane_sel)(v != v, v, ANE_VN(ane_expf)(v));
	}
	inv = ANE_VSPLAT(1.0f) / s;
	for (c = 0; c < C; c++) {
		v = ANE_VLOAD(x + c * xs, 1) - m;
		v = ANE_VN(ane_sel)(v != v, v, ANE_VN(ane_expf)(v));
		ANE_VSTORE(y + c * ys, v * inv);
	}
}

/* Element i's group of @a OP @b (@a alone without @b), as ane_elt_row(). */
static inline ANE_VF ANE_VN(ane_elt_pre)(uint32_t op, const uint16_t *a,
					 uint64_t as, const uint16_t *b,
					 uint64_t bs, uint32_t i)
{
	ANE_VF va = ANE_VLOAD(a + i * as, as), vb, r;

	if (!b)
		return va;
	vb = ANE_VLOAD(b + i * bs, bs);
	switch (op) {
	case ANE_ELT_ADD:
		return va + vb;
	case ANE_ELT_SUB:
		return va - vb;
	case ANE_ELT_MUL:
		return va * vb;
	case ANE_ELT_DIV:	/* IEEE division: the scalar loop's bits */
		return va / vb;
	case ANE_ELT_MAX:
		r = ANE_VN(ane_sel)(va > vb, va, vb);
		return ANE_VN(ane_sel)(va != va, va, r);
	default:	/* ANE_ELT_MIN */
		r = ANE_VN(ane_sel)(va < vb, va, vb);
		return ANE_VN(ane_sel)(va != va, va, r);
	}
}

/*
 * y[i] = act(a[i] OP b[i]) (act(a[i]) without @b) for the whole groups of
 * ANE_VLANES of @len elements: @y contiguous, @as and @bs 1 or 0
 * (broadcast).  The operations of ane_elt_vec() and ane_act() lane by
 * lane (MAX and MIN pass a NaN in either operand on; ReLU by masks, so a
 * NaN and -0 pass).  Returns how many it did (a multiple of ANE_VLANES;
 * 0 for an activation it does not have: sigmoid, tanh, GELU's tanh form,
 * and those of ane_math_fn.c; and for POW, which is scalar).
 */
static inline uint32_t ANE_VN(ane_elt_row)(uint32_t op, uint32_t act,
					   const uint16_t *a, uint64_t as,
					   const uint16_t *b, uint64_t bs,
					   uint16_t *y, uint32_t len)
{
	uint32_t i = 0;

	if (act != ANE_ACT_NONE && act != ANE_ACT_RELU &&
	    act != ANE_ACT_RELU6 && act != ANE_ACT_GELU)
		return 0;
	if (b && op >= ANE_ELT_POW)
		return 0;
	/*
	 * The GELU is two exponentials and a long polynomial, each a chain
	 * of dependent steps: four groups at a time give the CPU four
	 * independent chains (the same operations per lane, the same bits).
	 * One group at a time ran at about 100 cycles per 16 lanes.
	 */
	for (; act == ANE_ACT_GELU && i + 4 * ANE_VLANES <= len;
	     i += 4 * ANE_VLANES) {
		ANE_VF v0 = ANE_VN(ane_elt_pre)(op, a, as, b, bs, i);
		ANE_VF v1 = ANE_VN(ane_elt_pre)(op, a, as, b, bs, i + ANE_VLANES);
		ANE_VF v2 = ANE_VN(ane_elt_pre)(op, a, as, b, bs, i + 2 * ANE_VLANES);
		ANE_VF v3 = ANE_VN(ane_elt_pre)(op, a, as, b, bs, i + 3 * ANE_VLANES);

		v0 = ANE_VN(ane_gelu)(v0);
		v1 = ANE_VN(ane_gelu)(v1);
		v2 = ANE_VN(ane_gelu)(v2);
		v3 = ANE_VN(ane_gelu)(v3);
		ANE_VSTORE(y + i, v0);
		ANE_VSTORE(y + i + ANE_VLANES, v1);
		ANE_VSTORE(y + i + 2 * ANE_VLANES, v2);
		ANE_VSTORE(y + i + 3 * ANE_VLANES, v3);
	}
	for (; i + ANE_VLANES <= len; i += ANE_VLANES) {
		ANE_VF va = ANE_VN(ane_elt_pre)(op, a, as, b, bs, i);

		switch (act) {
		case ANE_ACT_RELU:
			va = (ANE_VF)((ANE_VI)va & ~(va < 0.0f));
			break;
		case ANE_ACT_RELU6:
			va = (ANE_VF)((ANE_VI)va & ~(va < 0.0f));
			va = ANE_VN(ane_sel)(va > 6.0f, ANE_VSPLAT(6.0f), va);
			break;
		case ANE_ACT_GELU:
			va = ANE_VN(ane_gelu)(va);
			break;
		}
		ANE_VSTORE(y + i, va);
	}
	return i;
}
#endif

#ifdef ANE_VLOAD
/*
 * A pool's column step (ane_math_pool.c): for each of the whole groups of
 * ANE_VLANES of @n contiguous columns, over @rows rows @xs apart, the
 * maximum (@max; a NaN anywhere gives NaN) or the sum in row order, in
 * fp32 into @cols.  Returns how many columns it did.  The same operations
 * per column as the scalar loop there, so the same bits.
 */
static inline uint32_t ANE_VN(ane_pool_cols)(const uint16_t *x, uint64_t xs,
					     uint32_t rows, float *cols,
					     uint32_t n, int max)
{
	uint32_t i, r;

	for (i = 0; i + ANE_VLANES <= n; i += ANE_VLANES) {
		ANE_VF acc = ANE_VLOAD(x + i, 1);
		ANE_VI nan = acc != acc;

		for (r = 1; r < rows; r++) {
			ANE_VF v = ANE_VLOAD(x + r * xs + i, 1);

			if (max) {
				nan |= v != v;
				acc = ANE_VN(ane_sel)(v > acc, v, acc);
			} else {
				acc = acc + v;
			}
		}
		if (max)
			acc = ANE_VN(ane_sel)(nan, ANE_VSPLAT(__builtin_nanf("")), acc);
		__builtin_memcpy(cols + i, &acc, sizeof(acc));
	}
	return i;
}
#endif

#ifdef ANE_VLOAD
/* ANE_VLANES fp16 at every second element of @p, to fp32. */
static inline ANE_VF ANE_VN(ane_ld_even)(const uint16_t *p)
{
	ANE_VF lo = ANE_VLOAD(p, 1), hi = ANE_VLOAD(p + ANE_VLANES, 1);
	ANE_VI m;
	uint32_t k;

	for (k = 0; k < ANE_VLANES; k++)
		m[k] = (int32_t)(2 * k);
	return __builtin_shuffle(lo, hi, m);
}

/*
 * A direct convolution's taps on the whole groups of ANE_VLANES of @n
 * outputs of a row (ane_math_rows.c): acc[i] += wt[t] * x[t][i * sw] for
 * each tap t in order, @sw 1 or 2, the product rounded and then added, as
 * the scalar loop does per output (so the same bits).  @x[t] is the tap's
 * first input; every element the groups read, one past the last at @sw
 * 2, is inside the row.  Returns how many outputs it did.
 */
static inline uint32_t ANE_VN(ane_dw_row)(const uint16_t *const *x, const float *wt,
					  uint32_t taps, uint32_t sw, float *acc,
					  uint32_t n)
{
	uint32_t i, t;

	for (i = 0; i + ANE_VLANES <= n; i += ANE_VLANES) {
		ANE_VF a;

		__builtin_memcpy(&a, acc + i, sizeof(a));
		for (t = 0; t < taps; t++) {
			ANE_VF v = sw == 1 ? ANE_VLOAD(x[t] + i, 1) :
					     ANE_VN(ane_ld_even)(x[t] + 2 * i);

			a = a + ANE_VSPLAT(wt[t]) * v;
		}
		__builtin_memcpy(acc + i, &a, sizeof(a));
	}
	return i;
}
#endif

#ifdef ANE_VLOAD
/*
 * Outputs [i, i + ANE_VLANES) of a depthwise row, @a, through ReLU or
 * ReLU6 (ane_act_vec()'s masks) and times 1, rounded into k->y as
 * ane_f2h_row() stores them; the lanes past k->n are not stored.
 */
static inline void ANE_VN(ane_dw_store)(const struct ane_dw_taps *k, ANE_VF a,
					uint32_t i)
{
	uint16_t t[ANE_VLANES];
	uint32_t l;

	if (k->act != ANE_ACT_NONE) {
		a = (ANE_VF)((ANE_VI)a & ~(a < 0.0f));
		if (k->act == ANE_ACT_RELU6)
			a = ANE_VN(ane_sel)(a > 6.0f, ANE_VSPLAT(6.0f), a);
	}
	a = a * ANE_VSPLAT(1.0f);
	if (i + ANE_VLANES <= k->n) {
		ANE_VSTORE(k->y + i, a);
		return;
	}
	ANE_VSTORE(t, a);
	for (l = 0; l < k->n - i; l++)
		k->y[i + l] = t[l];
}

/* ane_dw_taps_avx2() and ane_dw_taps_avx512() (ane_math_impl.h). */
static inline void ANE_VN(ane_dw_taps)(const struct ane_dw_taps *k, float *acc)
{
	ANE_VI lane;
	uint32_t i, t, l;

	for (l = 0; l < ANE_VLANES; l++)
		lane[l] = (int32_t)l;
	for (i = 0; i < k->n; i += ANE_VLANES) {
		ANE_VF a = ANE_VSPLAT(k->bias), v;

		if (i >= k->full_lo && i + ANE_VLANES <= k->full_hi) {
			for (t = 0; t < k->taps; t++) {
				__builtin_memcpy(&v, k->x[t] + i, sizeof(v));
				a = a + ANE_VSPLAT(k->wt[t]) * v;
			}
		} else {
			ANE_VI li = lane + (int32_t)i;

			for (t = 0; t < k->taps; t++) {
				ANE_VI m = (li >= k->lo[t]) & (li < k->hi[t]);

				__builtin_memcpy(&v, k->x[t] + i, sizeof(v));
				a = ANE_VN(ane_sel)(m, a + ANE_VSPLAT(k->wt[t]) * v, a);
			}
		}
		if (k->y)
			ANE_VN(ane_dw_store)(k, a, i);
		else
			__builtin_memcpy(acc + i, &a, sizeof(a));
	}
}

/* ane_h2f_split_avx2() and ane_h2f_split_avx512() (ane_math_impl.h). */
static inline void ANE_VN(ane_h2f_split)(const uint16_t *x, uint32_t pairs,
					 float *even, float *odd)
{
	uint16_t t[2 * ANE_VLANES];
	ANE_VI me, mo;
	ANE_VF e, o;
	uint32_t i, k;

	for (k = 0; k < ANE_VLANES; k++) {
		me[k] = (int32_t)(2 * k);
		mo[k] = (int32_t)(2 * k + 1);
	}
	for (i = 0; i < pairs; i += ANE_VLANES) {
		const uint16_t *p = x + 2 * i;
		ANE_VF lo, hi;

		if (i + ANE_VLANES > pairs) {	/* the last group, through @t */
			for (k = 0; k < 2 * ANE_VLANES; k++)
				t[k] = k < 2 * (pairs - i) ? p[k] : 0;
			p = t;
		}
		lo = ANE_VLOAD(p, 1);
		hi = ANE_VLOAD(p + ANE_VLANES, 1);
		e = __builtin_shuffle(lo, hi, me);
		o = __builtin_shuffle(lo, hi, mo);
		__builtin_memcpy(even + i, &e, sizeof(e));
		__builtin_memcpy(odd + i, &o, sizeof(o));
	}
}

#ifdef ANE_VACC
/*
 * The row passes of a NORM over W (ane_norm_row(), ane_math_rows.c) on a
 * contiguous row, each fusing two of the SSE2 path's loops with the same
 * operations on every element in the same order.  ANE_VACC is an
 * eight-lane float vector and ANE_VACC_ADD(acc, v) adds the ANE_VLANES
 * lanes of @v to it, element k of a group into lane k % 8, lower lanes
 * first: so every sum is ane_sum8()'s, element i into partial sum i % 8,
 * the partial sums combined pairwise by ANE_VN(ane_sum8_end)().
 */

/* @n < ANE_VLANES fp16 at @x to fp32 at @e, through one vector load. */
static inline void ANE_VN(ane_h2f_tail)(const uint16_t *x, uint32_t n, float *e)
{
	uint16_t h[ANE_VLANES] = { 0 };
	ANE_VF v;

	__builtin_memcpy(h, x, n * 2);
	v = ANE_VLOAD(h, 1);
	__builtin_memcpy(e, &v, n * 4);
}

/* ane_sum8()'s end: the partial sums @acc, then elements from @i on. */
static inline float ANE_VN(ane_sum8_end)(ANE_VACC acc, const float *e,
					 uint32_t i, uint32_t n, int sq)
{
	/* lane by lane: a memcpy() would keep @acc in memory in the loops */
	float t[8] = { acc[0], acc[1], acc[2], acc[3],
		       acc[4], acc[5], acc[6], acc[7] };

	for (; i < n; i++)
		t[i % 8] += sq ? e[i] * e[i] : e[i];
	return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

/*
 * A softmax row: @n fp16 at @x to fp32 in @e and their maximum (that of
 * ane_max_row()), then e[i] = ane_expf(e[i] - max); returns their
 * ane_sum8(), the maximum in @mx.
 */
static inline float ANE_VN(ane_softmax_row)(const uint16_t *x, uint32_t n,
					    float *e, float *mx)
{
	ANE_VF m0 = ANE_VSPLAT(-__builtin_inff()), m1 = m0, v;
	ANE_VACC acc = { 0 };
	float a = -__builtin_inff();
	uint32_t i, l;

	for (i = 0; i + 2 * ANE_VLANES <= n; i += 2 * ANE_VLANES) {
		v = ANE_VLOAD(x + i, 1);
		__builtin_memcpy(e + i, &v, sizeof(v));
		m0 = ANE_VN(ane_sel)(v > m0, v, m0);
		v = ANE_VLOAD(x + i + ANE_VLANES, 1);
		__builtin_memcpy(e + i + ANE_VLANES, &v, sizeof(v));
		m1 = ANE_VN(ane_sel)(v > m1, v, m1);
	}
	for (; i + ANE_VLANES <= n; i += ANE_VLANES) {
		v = ANE_VLOAD(x + i, 1);
		__builtin_memcpy(e + i, &v, sizeof(v));
		m0 = ANE_VN(ane_sel)(v > m0, v, m0);
	}
	if (i < n)
		ANE_VN(ane_h2f_tail)(x + i, n - i, e + i);
	for (l = 0; l < ANE_VLANES; l++) {
		a = m0[l] > a ? m0[l] : a;
		a = m1[l] > a ? m1[l] : a;
	}
	for (l = i; l < n; l++)
		a = e[l] > a ? e[l] : a;
	*mx = a;
	m0 = ANE_VSPLAT(a);
	for (i = 0; i + ANE_VLANES <= n; i += ANE_VLANES) {
		__builtin_memcpy(&v, e + i, sizeof(v));
		v = v - m0;
		v = ANE_VN(ane_sel)(v != v, v, ANE_VN(ane_expf)(v));
		__builtin_memcpy(e + i, &v, sizeof(v));
		ANE_VACC_ADD(acc, v);
	}
	for (l = i; l < n; l++)
		e[l] = ane_expf(e[l] - a);
	return ANE_VN(ane_sum8_end)(acc, e, i, n, 0);
}

/*
 * A layer normalization's row: @n fp16 at @x to fp32 in @e, the mean
 * ane_sum8() / n, then e[i] -= mean; returns the ane_sum8() of their
 * squares.
 */
static inline float ANE_VN(ane_layer_row)(const uint16_t *x, uint32_t n, float *e)
{
	ANE_VACC acc = { 0 };
	ANE_VF v, m;
	uint32_t i;
	float a;

	for (i = 0; i + ANE_VLANES <= n; i += ANE_VLANES) {
		v = ANE_VLOAD(x + i, 1);
		__builtin_memcpy(e + i, &v, sizeof(v));
		ANE_VACC_ADD(acc, v);
	}
	if (i < n)
		ANE_VN(ane_h2f_tail)(x + i, n - i, e + i);
	a = ANE_VN(ane_sum8_end)(acc, e, i, n, 0) / (float)n;
	m = ANE_VSPLAT(a);
	acc = (ANE_VACC){ 0 };
	for (i = 0; i + ANE_VLANES <= n; i += ANE_VLANES) {
		__builtin_memcpy(&v, e + i, sizeof(v));
		v = v - m;
		__builtin_memcpy(e + i, &v, sizeof(v));
		ANE_VACC_ADD(acc, v * v);
	}
	for (; i < n; i++)
		e[i] -= a;
	return ANE_VN(ane_sum8_end)(acc, e, n - n % ANE_VLANES, n, 1);
}
#endif /* ANE_VACC */
#endif
