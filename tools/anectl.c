// SPDX-License-Identifier: MIT
/*
 * anectl: inspect emulated Apple Neural Engine devices.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libane.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anectl [-d NODE] COMMAND\n"
		"\n"
		"commands:\n"
		"  info     node, driver version, Table 27.9 properties and the\n"
		"           DeviceOpen handshake of every ane device (or NODE)\n"
		"  status   GetStatus of a fresh control client\n"
		"  list     the accel nodes bound to ane\n");
}

static int cmd_list(void)
{
	char node[64];
	unsigned int i;

	for (i = 0; ane_find_node(i, node, sizeof(node)) == 0; i++)
		printf("%s\n", node);
	if (!i) {
		fprintf(stderr, "anectl: no /dev/accel node is bound to ane (is ane.ko loaded?)\n");
		return 1;
	}
	return 0;
}

static int info_one(const char *node)
{
	const struct drm_ane_device_info_out *hs;
	struct ane_driver_version dv;
	struct ane_properties p;
	struct drm_ane_status st;
	uint32_t uapi, hwv, hwm;
	struct ane_dev *dev;
	char err[512];

	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		fprintf(stderr, "anectl: %s\n", err);
		return 1;
	}
	if (ane_get_driver_version(dev, &dv) || ane_get_properties(dev, &p) ||
	    ane_get_version(dev, &uapi, &hwv, &hwm) || ane_get_status(dev, &st)) {
		fprintf(stderr, "anectl: %s\n", ane_errmsg(dev));
		ane_close(dev);
		return 1;
	}
	hs = ane_handshake(dev);

	printf("node:             %s\n", ane_node(dev));
	printf("driver:           %s %d.%d.%d (%s)\n", dv.name, dv.major, dv.minor,
	       dv.patchlevel, dv.desc);
	printf("uapi version:     %" PRIu32 "\n", uapi);
	printf("properties (Table 27.9):\n");
	printf("  architecture    %s\n", p.architecture);
	printf("  version         %u (0x%x)\n", p.version, p.version);
	printf("  minor version   %u\n", p.minor_version);
	printf("  board type      %u\n", p.board_type);
	printf("  board subtype   %u\n", p.board_subtype);
	printf("  cores           %u\n", p.num_cores);
	printf("  engines         %u\n", p.num_engines);
	printf("  cpu subtype     %u\n", p.cpu_subtype);
	printf("  internal build  %s\n", p.internal_build ? "Yes" : "No");
	printf("handshake (DeviceOpen, Table 27.3):\n");
	printf("  token           0x%016" PRIx64 "\n", (uint64_t)hs->token);
	printf("  callback        0x%016" PRIx64 " (echoed)\n", (uint64_t)hs->callback);
	printf("  timeout         %" PRIu64 " (echoed)\n", (uint64_t)hs->timeout);
	printf("  ane version     0x%x, %u\n", hs->ane_version, hs->ane_version_ext);
	printf("  engines         %" PRIu64 "\n", (uint64_t)hs->num_engines);
	printf("  cpu subtype     %" PRIu64 "\n", (uint64_t)hs->cpu_subtype);
	printf("  hw version      0x%x.%u (GetVersion)\n", hwv, hwm);
	printf("firmware:         %s\n", ane_fw_state_name(st.fw_state));
	ane_close(dev);
	return 0;
}

static int cmd_info(const char *node)
{
	char buf[64];
	unsigned int i;
	int rc = 0;

	if (node)
		return info_one(node);
	for (i = 0; ane_find_node(i, buf, sizeof(buf)) == 0; i++) {
		if (i)
			printf("\n");
		rc |= info_one(buf);
	}
	if (!i) {
		fprintf(stderr, "anectl: no /dev/accel node is bound to ane (is ane.ko loaded?)\n");
		return 1;
	}
	return rc;
}

static int cmd_status(const char *node)
{
	struct drm_ane_status st;
	struct ane_dev *dev;
	char err[512];

	if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
		fprintf(stderr, "anectl: %s\n", err);
		return 1;
	}
	if (ane_get_status(dev, &st)) {
		fprintf(stderr, "anectl: %s\n", ane_errmsg(dev));
		ane_close(dev);
		return 1;
	}
	printf("firmware:   %s\n", ane_fw_state_name(st.fw_state));
	printf("client:     0x%x\n", st.client_flags);
	printf("submitted:  %" PRIu64 "\n", (uint64_t)st.requests_submitted);
	printf("completed:  %" PRIu64 "\n", (uint64_t)st.requests_completed);
	printf("dart faults %u\n", st.dart_faults);
	ane_close(dev);
	return 0;
}

int main(int argc, char **argv)
{
	const char *node = NULL;
	int i = 1;

	if (i + 1 < argc && !strcmp(argv[i], "-d")) {
		node = argv[i + 1];
		i += 2;
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[i], "info"))
		return cmd_info(node);
	if (!strcmp(argv[i], "status"))
		return cmd_status(node);
	if (!strcmp(argv[i], "list"))
		return cmd_list();
	if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "anectl: unknown command '%s'\n", argv[i]);
	usage(stderr);
	return 2;
}
