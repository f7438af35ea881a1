// SPDX-License-Identifier: GPL-2.0-only
/*
 * ane-netbench's JSON through json-c: PyTorch's times read back from
 * tools/bench/torch_nets.py's --json, and --json FILE.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "ane_json.h"
#include "ane-netbench.h"
#include "engine_host.h"

double torch_ms(const char *file, const char *name)
{
	struct json_object *doc, *res, *net, *ms;
	char err[512];
	double v = -1;

	doc = ane_json_read(file, err, sizeof(err));
	if (!doc)
		die("--torch", err);
	if (json_object_object_get_ex(doc, "results", &res) &&
	    json_object_object_get_ex(res, name, &net) &&
	    json_object_object_get_ex(net, "ms", &ms) &&
	    (json_object_is_type(ms, json_type_double) || json_object_is_type(ms, json_type_int)))
		v = json_object_get_double(ms);
	json_object_put(doc);
	return v;
}

/* {"value", "target", "met"}; a value that is not finite counts as 1e308. */
static void figure(struct json_object *o, const char *name, double v, double target)
{
	json_object_object_add(o, name, ane_json_target(isfinite(v) ? v : 1e308, "%.6g",
							target, "%g"));
}

void write_json(const char *file, const struct bench *bs, unsigned int nb, uint32_t isa)
{
	struct json_object *doc = json_object_new_object(), *res = json_object_new_object();
	unsigned int i;

	json_object_object_add(doc, "tool", json_object_new_string("ane-netbench"));
	json_object_object_add(doc, "bench", json_object_new_string("nets"));
	json_object_object_add(doc, "isa", json_object_new_string(engine_isa_name(isa)));
	json_object_object_add(doc, "threads", json_object_new_int((int)threads));
	for (i = 0; i < nb; i++) {
		const struct bench *b = &bs[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "what", json_object_new_string(b->what));
		ane_json_add_num(o, "gflop", b->gflop, "%.6g");
		ane_json_add_num(o, "ane_ms", b->ane_ms, "%.6g");
		if (b->checked)
			figure(o, "reference_tolerance_used", b->chk_worst, 1.0);
		if (b->have_torch) {
			ane_json_add_num(o, "torch_ms", b->torch_ms, "%.6g");
			ane_json_add_num(o, "speedup", b->torch_ms / b->ane_ms, "%.6g");
			ane_json_add_num(o, "max_abs_err", b->max_abs, "%.6g");
			ane_json_add_num(o, "max_rel_err", b->max_rel, "%.6g");
			figure(o, "torch_tolerance_used", b->worst, 1.0);
			figure(o, "time_vs_torch", b->ane_ms / b->torch_ms, TARGET_RATIO);
		} else {
			json_object_object_add(o, "torch_ms", NULL);
		}
		json_object_object_add(res, b->name, o);
	}
	json_object_object_add(doc, "results", res);
	if (ane_json_write(doc, NULL, file))
		die(file, strerror(errno));
}
