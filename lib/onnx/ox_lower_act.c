// SPDX-License-Identifier: MIT
/*
 * libane's ONNX front end: the activations with parameters -- Elu, Selu,
 * Celu, HardSigmoid, ThresholdedRelu -- each the engine's ACT task with
 * its alpha and beta (ane_net_activation_param()), which the engine does
 * not fuse into the operation before it.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <string.h>

#include "ox_lower.h"
#include "ox_lower_int.h"

static const struct {
	const char *op;
	enum ane_net_act act;
	float alpha, beta;		/* ONNX's defaults */
	const char *beta_attr;		/* the attribute beta is read from */
} params[] = {
	{ "Elu", ANE_NET_ACT_ELU, 1.0f, 0.0f, NULL },
	{ "Selu", ANE_NET_ACT_SELU, 1.67326319217681884765625f,
	  1.05070102214813232421875f, "gamma" },
	{ "Celu", ANE_NET_ACT_CELU, 1.0f, 0.0f, NULL },
	{ "HardSigmoid", ANE_NET_ACT_HARDSIGMOID, 0.2f, 0.5f, "beta" },
	{ "ThresholdedRelu", ANE_NET_ACT_THRESHOLDED_RELU, 1.0f, 0.0f, NULL },
};

int ane__ox_lw_act_param(struct lower *L, const struct ox_node *n)
{
	int err = ane__ox_check_float(L, n, 0), k = -1, i;
	float alpha, beta;

	for (i = 0; i < (int)(sizeof(params) / sizeof(params[0])); i++)
		if (!strcmp(params[i].op, n->op_type))
			k = i;
	if (!err)
		err = ane__ox_out_ok(L, n);
	if (err)
		return err;
	if (k < 0)
		return ane__ox_why(L, "the engine has no %s", n->op_type);
	alpha = ane__ox_attr_f(n, "alpha", params[k].alpha);
	beta = params[k].beta_attr ? ane__ox_attr_f(n, params[k].beta_attr, params[k].beta) :
	       0.0f;
	if (!(alpha >= -65504.0f && alpha <= 65504.0f) ||
	    !(beta >= -65504.0f && beta <= 65504.0f))
		return ane__ox_why(L, "alpha %g or %s %g is not finite", alpha,
				   params[k].beta_attr ? params[k].beta_attr : "beta", beta);
	if (params[k].act == ANE_NET_ACT_CELU && alpha == 0.0f)
		return ane__ox_why(L, "Celu's alpha is 0");
	if (L->dry)
		return 0;
	return ane__ox_done(L, n, ane_net_activation_param(ox_net(L),
							   ane__ox_get(L, n->in[0], NULL),
							   params[k].act, alpha, beta));
}
