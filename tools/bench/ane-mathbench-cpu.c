// SPDX-License-Identifier: MIT
/*
 * ane-mathbench: which CPU a figure was measured on -- the model name
 * /proc/cpuinfo gives, and the micro-architecture its vendor, family and
 * model name, so that a ratio says where it holds (a Zen 4 runs AVX-512 on
 * 256-bit units, a Zen 5 on 512-bit ones: the same code stands
 * differently against the baselines on each).
 *
 * Copyright (C) 2026 The ane authors
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ane-mathbench.h"

/* A family/model range and its micro-architecture's name. */
struct uarch {
	const char *vendor;
	unsigned int family, model_lo, model_hi;
	const char *name;
};

static const struct uarch uarchs[] = {
	{ "AuthenticAMD", 0x17, 0x00, 0x2f, "Zen / Zen+" },
	{ "AuthenticAMD", 0x17, 0x30, 0xff, "Zen 2" },
	{ "AuthenticAMD", 0x19, 0x00, 0x0f, "Zen 3" },
	{ "AuthenticAMD", 0x19, 0x10, 0x1f, "Zen 4" },
	{ "AuthenticAMD", 0x19, 0x20, 0x5f, "Zen 3" },
	{ "AuthenticAMD", 0x19, 0x60, 0xaf, "Zen 4" },
	{ "AuthenticAMD", 0x1a, 0x00, 0xff, "Zen 5" },
	{ "GenuineIntel", 6, 0x3c, 0x3c, "Haswell" },
	{ "GenuineIntel", 6, 0x3f, 0x3f, "Haswell" },
	{ "GenuineIntel", 6, 0x45, 0x46, "Haswell" },
	{ "GenuineIntel", 6, 0x3d, 0x3d, "Broadwell" },
	{ "GenuineIntel", 6, 0x47, 0x47, "Broadwell" },
	{ "GenuineIntel", 6, 0x4f, 0x4f, "Broadwell" },
	{ "GenuineIntel", 6, 0x56, 0x56, "Broadwell" },
	{ "GenuineIntel", 6, 0x4e, 0x4e, "Skylake" },
	{ "GenuineIntel", 6, 0x5e, 0x5e, "Skylake" },
	{ "GenuineIntel", 6, 0x55, 0x55, "Skylake-SP / Cascade Lake" },
	{ "GenuineIntel", 6, 0x8e, 0x8e, "Kaby / Coffee Lake" },
	{ "GenuineIntel", 6, 0x9e, 0x9e, "Kaby / Coffee Lake" },
	{ "GenuineIntel", 6, 0x6a, 0x6a, "Ice Lake-SP" },
	{ "GenuineIntel", 6, 0x6c, 0x6c, "Ice Lake-SP" },
	{ "GenuineIntel", 6, 0x7d, 0x7e, "Ice Lake" },
	{ "GenuineIntel", 6, 0x8c, 0x8d, "Tiger Lake" },
	{ "GenuineIntel", 6, 0x97, 0x97, "Alder Lake" },
	{ "GenuineIntel", 6, 0x9a, 0x9a, "Alder Lake" },
	{ "GenuineIntel", 6, 0xb7, 0xb7, "Raptor Lake" },
	{ "GenuineIntel", 6, 0xba, 0xba, "Raptor Lake" },
	{ "GenuineIntel", 6, 0xbf, 0xbf, "Raptor Lake" },
	{ "GenuineIntel", 6, 0x8f, 0x8f, "Sapphire Rapids" },
	{ "GenuineIntel", 6, 0xcf, 0xcf, "Emerald Rapids" },
	{ "GenuineIntel", 6, 0xad, 0xae, "Granite Rapids" },
	{ "GenuineIntel", 6, 0xaa, 0xac, "Meteor Lake" },
};

/* The value after "@key\t: " on a line of @buf, into @out. */
static void cpuinfo_field(const char *buf, const char *key, char *out, size_t len)
{
	const char *p = buf, *colon, *nl;
	size_t klen = strlen(key);

	out[0] = '\0';
	while (p && *p) {
		nl = strchr(p, '\n');
		if (!strncmp(p, key, klen) && (p[klen] == '\t' || p[klen] == ' ') &&
		    (colon = strchr(p, ':')) && (!nl || colon < nl)) {
			colon += colon[1] == ' ' ? 2 : 1;
			snprintf(out, len, "%.*s", (int)((nl ? nl : colon + strlen(colon)) - colon),
				 colon);
			return;
		}
		p = nl ? nl + 1 : NULL;
	}
}

void cpu_describe(struct cpu_id *id)
{
	static char buf[65536];
	char v[32], f[16], m[16];
	size_t n = 0, i;
	FILE *fp;

	memset(id, 0, sizeof(*id));
	snprintf(id->model_name, sizeof(id->model_name), "unknown CPU");
	snprintf(id->uarch, sizeof(id->uarch), "unknown micro-architecture");
	fp = fopen("/proc/cpuinfo", "r");
	if (!fp)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* the first processor's block is enough */
	cpuinfo_field(buf, "model name", id->model_name, sizeof(id->model_name));
	cpuinfo_field(buf, "vendor_id", v, sizeof(v));
	cpuinfo_field(buf, "cpu family", f, sizeof(f));
	cpuinfo_field(buf, "model", m, sizeof(m));
	snprintf(id->vendor, sizeof(id->vendor), "%s", v);
	id->family = (unsigned int)strtoul(f, NULL, 10);
	id->model = (unsigned int)strtoul(m, NULL, 10);
	if (!id->model_name[0])
		snprintf(id->model_name, sizeof(id->model_name), "unknown CPU");
	for (i = 0; i < sizeof(uarchs) / sizeof(uarchs[0]); i++)
		if (!strcmp(uarchs[i].vendor, v) && uarchs[i].family == id->family &&
		    id->model >= uarchs[i].model_lo && id->model <= uarchs[i].model_hi) {
			snprintf(id->uarch, sizeof(id->uarch), "%s", uarchs[i].name);
			return;
		}
	snprintf(id->uarch, sizeof(id->uarch), "%s family 0x%x model 0x%x, not in the table",
		 v[0] ? v : "unknown vendor", id->family, id->model);
}
