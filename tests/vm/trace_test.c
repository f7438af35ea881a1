// SPDX-License-Identifier: MIT
/*
 * VM tests of the ane: tracepoints (Documentation/accel/ane/tracing.rst):
 * with events/ane enabled in tracefs, one request run by `ane-run mlp`
 * leaves ane_submit and ane_complete of the same seqno, ane_map,
 * ane_unmap, ane_fw_cmd and ane_fw_note; a DMA to an unmapped address
 * leaves ane_dart_fault; an injected firmware crash leaves ane_recovery.
 *
 * Expects ane.ko loaded with one device, root, and ane-run in $PATH;
 * mounts tracefs at /sys/kernel/tracing if it is not there.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <inttypes.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"

#define TRACEFS "/sys/kernel/tracing"
#define TRACE_MAX (4u << 20)

static char node[64];
static char trace[TRACE_MAX];

/* Mount tracefs if needed, empty the buffer, enable every ane: event. */
static int trace_start(void)
{
	struct stat st;
	int ret;

	if (stat(TRACEFS "/events", &st) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL)) {
		printf("#   mount tracefs on %s: %s\n", TRACEFS, strerror(errno));
		return -1;
	}
	if (stat(TRACEFS "/events/ane", &st)) {
		printf("#   %s/events/ane: %s (no ane tracepoints)\n", TRACEFS,
		       strerror(errno));
		return -1;
	}
	ret = vm_write_file(TRACEFS "/buffer_size_kb", "2048");
	if (!ret)
		ret = vm_write_file(TRACEFS "/trace", "");
	if (!ret)
		ret = vm_write_file(TRACEFS "/events/ane/enable", "1");
	if (!ret)
		ret = vm_write_file(TRACEFS "/tracing_on", "1");
	if (ret)
		printf("#   set up %s: %s\n", TRACEFS, strerror(-ret));
	return ret ? -1 : 0;
}

/* The trace buffer so far into trace[], NUL-terminated; 0 or -1. */
static int trace_read(void)
{
	int fd = open(TRACEFS "/trace", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0) {
		printf("#   open %s/trace: %s\n", TRACEFS, strerror(errno));
		return -1;
	}
	while (len < sizeof(trace) - 1 &&
	       (n = read(fd, trace + len, sizeof(trace) - 1 - len)) > 0)
		len += n;
	close(fd);
	trace[len] = 0;
	return 0;
}

static void trace_stop(void)
{
	vm_write_file(TRACEFS "/events/ane/enable", "0");
	vm_write_file(TRACEFS "/trace", "");
}

/* The first line of the trace holding @event followed by @what, or NULL. */
static const char *trace_find(const char *event, const char *what)
{
	char key[64];
	const char *p = trace, *line, *end;

	snprintf(key, sizeof(key), " %s: ", event);
	while ((p = strstr(p, key))) {
		line = p;
		end = strchr(p, '\n');
		p += strlen(key);
		if (!what)
			return line;
		if (strstr(p, what) && (!end || strstr(p, what) < end))
			return line;
	}
	return NULL;
}

static void show_trace(void)
{
	const char *p = trace, *end;
	int lines = 0;

	while (*p && lines++ < 40) {
		end = strchrnul(p, '\n');
		if (*p != '#')
			printf("#   | %.*s\n", (int)(end - p), p);
		p = *end ? end + 1 : end;
	}
}

static void a_request_leaves_its_events(void)
{
	const char *sub, *comp;
	char what[64], cmd[128];
	uint64_t seqno;
	int status;

	if (trace_start()) {
		t_case_failed = 1;
		return;
	}
	snprintf(cmd, sizeof(cmd), "ane-run --node %s mlp >/dev/null", node);
	status = system(cmd);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"ane-run mlp: status 0x%x", status);
	if (trace_read()) {
		t_case_failed = 1;
		return;
	}
	sub = trace_find("ane_submit", NULL);
	T_CHECK(sub, "no ane_submit in the trace");
	if (sub) {
		const char *s = strstr(sub, "seqno=");

		T_CHECK(s && sscanf(s, "seqno=%" SCNu64, &seqno) == 1,
			"ane_submit without seqno");
		if (s) {
			snprintf(what, sizeof(what), "seqno=%" PRIu64 " status=0 ",
				 seqno);
			comp = trace_find("ane_complete", what);
			T_CHECK(comp, "no ane_complete with %s", what);
			T_CHECK(comp > sub, "ane_complete before its ane_submit");
		}
		T_CHECK(strstr(sub, "procedure=") && strstr(sub, "nbars="),
			"ane_submit fields");
	}
	T_CHECK(trace_find("ane_map", "iova=0x"), "no ane_map");
	T_CHECK(trace_find("ane_unmap", "iova=0x"), "no ane_unmap");
	T_CHECK(trace_find("ane_fw_cmd", "chan="), "no ane_fw_cmd");
	T_CHECK(trace_find("ane_fw_note", "chan="), "no ane_fw_note");
	if (t_case_failed)
		show_trace();
	trace_stop();
}

static void a_dart_fault_is_traced(void)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
	uint32_t w = 0;
	struct drm_ane_dma d = {
		.iova = 0x123c000, .size = 4, .data = (uintptr_t)&w,
		.flags = ANE_DMA_WRITE,
	};
	int fd;

	if (trace_start()) {
		t_case_failed = 1;
		return;
	}
	fd = open(node, O_RDWR | O_CLOEXEC);
	T_CHECK(fd >= 0, "open %s: %s", node, strerror(errno));
	if (fd < 0)
		return;
	T_OK(ioctl(fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op));
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_DMA, &d), ENXIO);
	close(fd);
	if (trace_read()) {
		t_case_failed = 1;
		return;
	}
	T_CHECK(trace_find("ane_dart_fault", "iova=0x123c000 code=1 reason=translation write"),
		"no ane_dart_fault of the write to 0x123c000");
	if (t_case_failed)
		show_trace();
	trace_stop();
}

static void a_firmware_crash_is_traced(void)
{
	char path[512];
	int i;

	if (vm_debugfs_path(node, "fw_inject", path, sizeof(path)) ||
	    trace_start()) {
		t_case_failed = 1;
		return;
	}
	T_OK(vm_write_file(path, "crash"));
	/* The recovery runs in a work item: collect, then boot again. */
	for (i = 0; i < 200; i++) {
		if (trace_read())
			break;
		if (trace_find("ane_recovery", "reason=booted state=ready"))
			break;
		usleep(50 * 1000);
	}
	T_CHECK(trace_find("ane_recovery", "reason=crash state=recovering recoveries="),
		"no ane_recovery of the crash");
	T_CHECK(trace_find("ane_recovery", "reason=booted state=ready recoveries="),
		"no ane_recovery of the boot after it");
	if (t_case_failed)
		show_trace();
	trace_stop();
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "trace"))
		return 1;
	T_RUN(a_request_leaves_its_events);
	T_RUN(a_dart_fault_is_traced);
	T_RUN(a_firmware_crash_is_traced);
	return t_summary("trace");
}
