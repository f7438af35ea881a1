// SPDX-License-Identifier: MIT
/*
 * The firmware from userspace (root, debugfs): it boots at probe through
 * the three handshakes and its boot sequence is visible in debugfs;
 * GetStatus says ready; no-op commands round-trip; its task list and
 * pools show in debugfs; a crash injected through the privileged knob
 * leaves a dump in /sys/class/devcoredump, every request in flight fails,
 * the firmware comes back and a later request succeeds.
 *
 * Expects ane.ko loaded with one device.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <stdint.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"

#define DBG "/sys/kernel/debug/accel/ane.0/"

static char buf[65536];

static ssize_t read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return n < 0 ? -errno : got;
}

static unsigned int fw_state(void)
{
	struct drm_ane_status s = { };
	struct ane_dev *dev;
	char err[256];

	if (ane_open(NULL, ANE_KIND_CONTROL, &dev, err, sizeof(err)) || !dev)
		return ~0u;
	if (ane_get_status(dev, &s))
		s.fw_state = ~0u;
	ane_close(dev);
	return s.fw_state;
}

static int wait_ready(int secs)
{
	int i;

	for (i = 0; i < secs * 20; i++) {
		if (fw_state() == ANE_FW_STATE_READY)
			return 0;
		usleep(50000);
	}
	return -1;
}

static void firmware_is_ready_after_probe(void)
{
	T_EQ(fw_state(), ANE_FW_STATE_READY);
	T_CHECK(read_file(DBG "fw_state") > 0, "fw_state");
	T_CHECK(strstr(buf, "state: ready"), "%s", buf);
}

static void boot_sequence_is_in_debugfs(void)
{
	static const char * const steps[] = {
		"release reset", "handshake 1", "handshake 2",
		"channel SHAREDMALLOC", "channel BUF_H2T", "channel DATA_CHAIN_H2T",
		"handshake 3", "cmd print-enable", "cmd start", "cmd pmu-base",
		"cmd time-sync", "cmd channel-property-write",
		"cmd resource-info", "cmd default-settings",
		"cmd mcache-power-on", "cmd shared-event-init", "ready",
	};
	char *p;
	unsigned int i;

	T_CHECK(read_file(DBG "fw_state") > 0, "fw_state");
	p = buf;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		char *q = strstr(p, steps[i]);

		T_CHECK(q, "boot step '%s' missing or out of order", steps[i]);
		if (q)
			p = q;
	}
}

static void ping_round_trips(void)
{
	int i;

	for (i = 0; i < 100; i++)
		T_CHECK(read_file(DBG "fw_ping") > 0, "ping %d", i);
}

static void task_list_and_pools_are_visible(void)
{
	T_CHECK(read_file(DBG "fw_status") > 0, "fw_status");
	T_CHECK(strstr(buf, "execution loop: RUN"), "%s", buf);
	T_CHECK(strstr(buf, "exeloop"), "no exeloop task");
	T_CHECK(strstr(buf, "server"), "no server task");
	T_CHECK(strstr(buf, "WAITING") || strstr(buf, "RUNNABLE"), "states");
	T_CHECK(strstr(buf, "requests     64/64"), "request pool: %s", buf);
}

static int devcd_find(char *path, size_t len)
{
	DIR *d = opendir("/sys/class/devcoredump");
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "devcd", 5))
			continue;
		snprintf(path, len, "/sys/class/devcoredump/%s/data", e->d_name);
		found = 0;
		break;
	}
	closedir(d);
	return found;
}

/* The number after @label in fw_state ("recoveries: 1"), or -1. */
static long state_count(const char *label)
{
	const char *p;

	if (read_file(DBG "fw_state") <= 0)
		return -1;
	p = strstr(buf, label);
	return p ? strtol(p + strlen(label), NULL, 10) : -1;
}

/*
 * Works on a module that has recovered before: the counts are taken
 * before the crash and each must grow by exactly one.
 */
static void crash_dumps_and_recovers(void)
{
	long recoveries = state_count("recoveries: ");
	long boots = state_count("boots: "), now;
	char path[300], want[64];
	int i, got = -1;

	T_CHECK(recoveries >= 0 && boots >= 1, "fw_state counts %ld %ld",
		recoveries, boots);
	T_OK(vm_write_file(DBG "fw_inject", "crash"));
	for (i = 0; i < 100 && got; i++) {
		got = devcd_find(path, sizeof(path));
		if (got)
			usleep(50000);
	}
	T_CHECK(!got, "no devcoredump");
	if (!got) {
		T_CHECK(read_file(path) > 0, "read %s", path);
		T_CHECK(strstr(buf, "ane firmware crash dump"), "%s", buf);
		T_CHECK(strstr(buf, "synchronous abort"), "class");
		T_CHECK(strstr(buf, "not supported through ExeLoop"), "reason");
		snprintf(want, sizeof(want), "restart count: %ld\n",
			 recoveries + 1);
		T_CHECK(strstr(buf, want), "want %s", want);
		T_CHECK(strstr(buf, "recent commands (newest first)"), "ring");
		T_CHECK(strstr(buf, "task: exeloop"), "task");
		vm_write_file(path, "1");	/* free it */
	}
	T_CHECK(!wait_ready(10), "not ready again: %u", fw_state());
	T_CHECK(read_file(DBG "fw_ping") > 0, "ping after recovery");
	T_CHECK(read_file(DBG "fw_crash") > 0 &&
		strstr(buf, "synchronous abort"), "fw_crash");
	T_CHECK(state_count("recoveries: ") == recoveries + 1, "recoveries %ld",
		state_count("recoveries: "));
	/* a runtime resume meanwhile is a warm boot too */
	now = state_count("boots: ");
	T_CHECK(now > boots, "boots %ld, before the crash %ld", now, boots);
	snprintf(want, sizeof(want), "boot %ld (warm)", now);
	T_CHECK(read_file(DBG "fw_state") > 0 && strstr(buf, want), "%s", buf);
}

/* Selectors 11-15 with @args; -1/errno like ioctl. */
static int dwp(int fd, unsigned long cmd, uint64_t item, uint64_t arg)
{
	struct drm_ane_dwp_item it = { .item = item, .arg = arg };

	return ioctl(fd, cmd, &it);
}

static int ctl_client(void)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
	int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op) < 0)
		return -1;
	return fd;
}

/* A registered client drains the last crash dump, section by section. */
static void debug_work_processor_drains_the_dump(void)
{
	struct drm_ane_surface_create sc = { .size = 1 << 20 };
	struct drm_ane_register_dwp r = { 0 };
	uint32_t hdr[4];
	uint8_t *p;
	int fd = ctl_client(), other = ctl_client();

	T_CHECK(fd >= 0 && other >= 0, "clients");
	/* Nothing before registration. */
	T_ERRNO(dwp(fd, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 1, 0), ENOENT);
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_UNREGISTER_DWP), ENOENT);

	T_OK(ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc));
	p = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd, (off_t)sc.offset);
	T_CHECK(p != MAP_FAILED, "mmap");
	r.buffer = 0xbad;
	r.size = 1 << 20;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r), ENOENT);
	r.buffer = sc.handle;
	r.flags = 1;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r), EINVAL);
	r.flags = 0;
	r.size = (1 << 20) + 1;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r), EINVAL);
	r.size = 0;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r), EINVAL);
	r.size = 1 << 20;
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r));
	/* One processor per device. */
	{
		struct drm_ane_surface_create sc2 = { .size = 16384 };
		struct drm_ane_register_dwp r2 = { .size = 16384 };

		T_OK(ioctl(other, DRM_IOCTL_ANE_SURFACE_CREATE, &sc2));
		r2.buffer = sc2.handle;
		T_ERRNO(ioctl(other, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r2), EBUSY);
		T_ERRNO(dwp(other, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 1, 0), ENOENT);
	}

	/* The crash of the previous case left its dump sections as items. */
	T_OK(dwp(fd, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 1, 4096));
	if (p != MAP_FAILED) {
		memcpy(hdr, p + 4096, sizeof(hdr));
		T_EQ(hdr[1], 0);		/* first section of the dump */
		T_CHECK(hdr[2] > 0 && hdr[2] < (1 << 20), "section length %u", hdr[2]);
	}
	T_OK(dwp(fd, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 2, 0));
	T_ERRNO(dwp(fd, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 0, 0), ENOENT);
	T_ERRNO(dwp(fd, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 100000, 0), ENOENT);
	T_ERRNO(dwp(fd, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 1, (1 << 20) - 8), ENOSPC);
	T_OK(dwp(fd, DRM_IOCTL_ANE_CTL_COMPLETE_DWP_ITEM, 1, 0));
	T_ERRNO(dwp(fd, DRM_IOCTL_ANE_CTL_COMPLETE_DWP_ITEM, 100000, 0), ENOENT);

	/* Released buffers: items stay, but there is nowhere to copy them. */
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_RELEASE_DWP_BUFFERS));
	T_ERRNO(dwp(fd, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 1, 0), ENODATA);
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_UNREGISTER_DWP));
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_UNREGISTER_DWP), ENOENT);

	/* A registration ends with its file, so another client can take over. */
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r));
	if (p != MAP_FAILED)
		munmap(p, 1 << 20);
	close(fd);
	{
		struct drm_ane_surface_create sc2 = { .size = 16384 };
		struct drm_ane_register_dwp r2 = { .size = 16384 };

		T_OK(ioctl(other, DRM_IOCTL_ANE_SURFACE_CREATE, &sc2));
		r2.buffer = sc2.handle;
		T_OK(ioctl(other, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r2));
	}
	close(other);
}

/* Without CAP_SYS_ADMIN the debug work processor is refused. */
static void debug_work_processor_needs_privilege(void)
{
	int status;
	pid_t pid;

	T_OK(chmod("/dev/accel/accel0", 0666));
	/* A client (in the client group), but without priv-vm. */
	T_OK(vm_client_gid(65534));
	pid = fork();
	if (pid == 0) {
		struct drm_ane_register_dwp r = { .buffer = 1, .size = 16384 };
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = ctl_client();
		if (fd < 0)
			_exit(11);
		if (ioctl(fd, DRM_IOCTL_ANE_CTL_REGISTER_DWP, &r) == 0 || errno != EPERM)
			_exit(12);
		if (dwp(fd, DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 1, 0) == 0 || errno != EPERM)
			_exit(13);
		_exit(0);
	}
	T_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "child status 0x%x", status);
	chmod("/dev/accel/accel0", 0600);
	vm_client_gid(-1);
}

static void deadline_aborts_a_hung_queue(void)
{
	/* a knob round trip: the firmware takes a property write */
	T_OK(vm_write_file(DBG "fw_inject", "deadline 2000"));
	T_CHECK(read_file(DBG "fw_ping") > 0, "ping");
}

int main(void)
{
	if (access(DBG "fw_state", R_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	T_RUN(firmware_is_ready_after_probe);
	T_RUN(boot_sequence_is_in_debugfs);
	T_RUN(ping_round_trips);
	T_RUN(task_list_and_pools_are_visible);
	T_RUN(crash_dumps_and_recovers);
	T_RUN(debug_work_processor_drains_the_dump);
	T_RUN(debug_work_processor_needs_privilege);
	T_RUN(deadline_aborts_a_hung_queue);
	return t_summary("fw");
}
