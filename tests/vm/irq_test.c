// SPDX-License-Identifier: MIT
/*
 * The interrupt lines: the engine's "host" line (the firmware's doorbell
 * to the driver) and its "dart" line (a translation fault) are real
 * interrupts of the board's interrupt controller, listed in
 * /proc/interrupts with the driver's handlers; a firmware round trip
 * raises the host line, a DART fault of the firmware's DMA the dart line,
 * and the fault is recorded by the driver's handler.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "vm/vm_util.h"

#define DBG "/sys/kernel/debug/accel/ane.0/"

/*
 * The interrupts taken on the line whose handler is @name (summed over
 * the CPUs), with its /proc/interrupts line in @line; -1 if not listed.
 */
static long long irq_count(const char *name, char *line, size_t len)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char buf[4096];
	long long n = -1;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		char *p = strchr(buf, ':'), *end;
		char *at = strstr(buf, name);
		size_t nl = strlen(name);

		/* the handler's name ends the line */
		if (!p || !at || (at[nl] != '\n' && at[nl] != 0))
			continue;
		n = 0;
		for (p++;; p = end) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			n += v;
		}
		if (line && len) {
			size_t l = strnlen(buf, len - 1);

			memcpy(line, buf, l);
			line[l] = 0;
		}
		break;
	}
	fclose(f);
	return n;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return n < 0 ? -1 : (int)got;
}

static void both_lines_are_listed(void)
{
	char line[512];

	T_CHECK(irq_count("ane.0:host", line, sizeof(line)) >= 0,
		"no ane.0:host in /proc/interrupts");
	/* the board's controller, an edge line */
	T_CHECK(strstr(line, " ane ") && strstr(line, "edge"), "host: %s", line);
	T_CHECK(irq_count("ane.0:dart", line, sizeof(line)) >= 0,
		"no ane.0:dart in /proc/interrupts");
	T_CHECK(strstr(line, " ane ") && strstr(line, "edge"), "dart: %s", line);
}

static void a_round_trip_raises_the_host_line(void)
{
	char buf[256];
	long long before = irq_count("ane.0:host", NULL, 0), after;
	int i;

	T_CHECK(before >= 0, "no host line");
	for (i = 0; i < 4; i++)
		T_CHECK(read_file(DBG "fw_ping", buf, sizeof(buf)) > 0, "ping %d", i);
	after = irq_count("ane.0:host", NULL, 0);
	T_CHECK(after >= before + 4, "host line %lld -> %lld over 4 round trips",
		before, after);
}

static void a_dart_fault_raises_the_dart_line(void)
{
	char buf[8192];
	long long before = irq_count("ane.0:dart", NULL, 0), after;

	T_CHECK(before >= 0, "no dart line");
	T_OK(vm_write_file(DBG "fw_inject", "dart-fault"));
	after = irq_count("ane.0:dart", NULL, 0);
	T_EQ(after, before + 1);
	/* the handler recorded it: stream 0, the last page of the aperture */
	T_CHECK(read_file(DBG "dart_faults", buf, sizeof(buf)) > 0, "dart_faults");
	T_CHECK(strstr(buf, "sid=0 ctx=0 addr=0xdfffc000"), "%s", buf);
}

int main(void)
{
	T_RUN(both_lines_are_listed);
	T_RUN(a_round_trip_raises_the_host_line);
	T_RUN(a_dart_fault_raises_the_dart_line);
	return t_summary("irq");
}
