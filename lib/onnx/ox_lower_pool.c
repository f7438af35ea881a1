// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the pools the engine's POOL task does not
 * take -- dilated windows -- as one strided copy per window tap (the
 * input padded first) and a chain of elementwise MAX, or of ADD times
 * the reciprocal of each output's count for an average.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"

/* Taps of one window the copies take at most. */
#define TAPS_MAX	64

/*
 * @k, @s, @d: window, stride, dilation (H, W); @pad top, bottom, left,
 * right; @x4 the input [N, C, H, W], @out the output's H and W.  Padding
 * for a max is -65504, fp16's lowest finite value, which a real element
 * always wins but -inf (a window of only -inf gives -65504); for an
 * average it is 0, and the divisor counts real elements unless
 * @count_pad.
 */
int ane__ox_pool_taps(struct lower *L, const struct ox_node *n, const uint32_t k[2],
		      const uint32_t s[2], const uint32_t d[2], const uint32_t pad[4],
		      const uint32_t x4[4], const int64_t out[2], int avg, int count_pad)
{
	uint32_t p8[8] = { 0 }, hp = x4[2] + pad[0] + pad[1], wp = x4[3] + pad[2] + pad[3];
	int64_t plane = (int64_t)hp * wp, oy, ox;
	int id = -1, xp, ky, kx;
	float *inv = NULL;

	if (k[0] * k[1] > TAPS_MAX)
		return ane__ox_why(L, "a dilated window of %u taps; the engine's copies take %d",
				   k[0] * k[1], TAPS_MAX);
	for (ky = 0; ky < 2; ky++) {
		int64_t span = (int64_t)d[ky] * (k[ky] - 1) + 1, len = ky ? wp : hp;

		if (len < span || (len - span) / s[ky] + 1 != out[ky])
			return ane__ox_why(L, "an output size of %lld where the window gives %lld",
					   (long long)out[ky],
					   len < span ? 0ll : (long long)((len - span) / s[ky] + 1));
	}
	if (L->dry)
		return 0;
	p8[2] = pad[0];
	p8[6] = pad[1];
	p8[3] = pad[2];
	p8[7] = pad[3];
	xp = ane__ox_get(L, n->in[0], x4);
	if (pad[0] | pad[1] | pad[2] | pad[3])
		xp = ane_net_pad(ox_net(L), xp, p8, ANE_NET_PAD_CONSTANT,
				 avg ? 0.0f : -65504.0f);
	for (ky = 0; ky < (int)k[0]; ky++)
		for (kx = 0; kx < (int)k[1]; kx++) {
			struct ane_net_view_desc v = {
				.dim = { x4[0], x4[1], (uint32_t)out[0], (uint32_t)out[1] },
				.stride = { x4[1] * plane, plane, (int64_t)s[0] * wp, s[1] },
				.offset = (int64_t)ky * d[0] * wp + (int64_t)kx * d[1],
			};
			int tap = ane_net_copy(ox_net(L), xp, &v, -1, NULL);

			id = id < 0 ? tap : ane_net_eltwise(ox_net(L), avg ? ANE_NET_ADD : ANE_NET_MAX,
							     id, tap, ANE_NET_ACT_NONE);
		}
	if (avg) {
		inv = malloc(sizeof(float) * (size_t)(out[0] * out[1]));
		if (!inv)
			return -ENOMEM;
		for (oy = 0; oy < out[0]; oy++)
			for (ox = 0; ox < out[1]; ox++) {
				int cnt = 0;

				for (ky = 0; ky < (int)k[0]; ky++)
					for (kx = 0; kx < (int)k[1]; kx++) {
						int64_t y = oy * s[0] + ky * d[0] - pad[0];
						int64_t x = ox * s[1] + kx * d[1] - pad[2];

						cnt += count_pad || (y >= 0 && y < x4[2] &&
								     x >= 0 && x < x4[3]);
					}
				inv[oy * out[1] + ox] = cnt ? 1.0f / (float)cnt : 0.0f;
			}
		id = ane_net_eltwise(ox_net(L), ANE_NET_MUL, id,
				     ane_net_const(ox_net(L), "pool_count", 1, 1, (uint32_t)out[0],
						   (uint32_t)out[1], inv),
				     ANE_NET_ACT_NONE);
		free(inv);
	}
	return ane__ox_done(L, n, ane_net_activation(ox_net(L), id,
						     (enum ane_net_act)ane__ox_fuse_act(L, n)));
}
