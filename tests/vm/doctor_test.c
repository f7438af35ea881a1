// SPDX-License-Identifier: MIT
/*
 * `anectl doctor` and the engine's health in sysfs, in the VM (root):
 *
 *   - ane not loaded: doctor fails, says so and gives `modprobe ane`;
 *   - loaded: healthy, exit 0; sysfs firmware_state reads "ready",
 *     recoveries 0;
 *   - busy_time_us grows once requests ran;
 *   - a firmware crash (fw_inject "crash"): recoveries grows by one, the
 *     firmware is ready again, doctor stays healthy and reports it;
 *   - the node made 0600: doctor run as nobody fails, names the node and
 *     the errno and prints a fix; made 0666 with nobody outside the client
 *     group, it fails, names EACCES, the capabilities and the client_gid
 *     fix; with gid 65534 the client group, nobody is healthy;
 *   - the firmware halted (fw_inject "halt": DEAD): doctor fails, names
 *     the state and the command that restarts it; after "reboot", healthy.
 *
 * Expects ane.ko NOT loaded at start (it loads it); anectl in $PATH.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <grp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"

#define NOBODY	65534

static char node[64], inject[300], sysdir[128];
static char out[16384];		/* the last doctor's output */

/* Run `anectl doctor` (as nobody if @nobody); its exit status, or -1. */
static int doctor(int nobody)
{
	static const char *const argv[] = { "anectl", "doctor", NULL };

	return vm_run_capture(argv, nobody ? NOBODY : 0, out, sizeof(out));
}

/* Print the doctor's output when the case failed. */
static void show(void)
{
	if (t_case_failed)
		printf("#   anectl doctor said:\n%s", out);
}

/* A line of sysfs @name of the device into @buf; 0 or -1. */
static int sysfs_read(const char *name, char *buf, size_t len)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysdir, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static long long sysfs_num(const char *name)
{
	char buf[64], *end;
	long long v;

	if (sysfs_read(name, buf, sizeof(buf)) || !buf[0])
		return -1;
	v = strtoll(buf, &end, 10);
	return *end ? -1 : v;
}

/* Until firmware_state reads "ready", at most @s seconds; 0 or -1. */
static int wait_ready(int s)
{
	char st[32];
	int i;

	for (i = 0; i < s * 20; i++) {
		if (!sysfs_read("firmware_state", st, sizeof(st)) && !strcmp(st, "ready"))
			return 0;
		usleep(50000);
	}
	return -1;
}

static void doctor_names_the_missing_module(void)
{
	T_CHECK(access("/sys/module/ane", F_OK) != 0, "ane is loaded already");
	T_EQ(doctor(0), 1);
	T_CHECK(strstr(out, "ane is not loaded"), "no 'not loaded'");
	T_CHECK(strstr(out, "fix: modprobe ane"), "no 'fix: modprobe ane'");
	T_CHECK(strstr(out, "anectl doctor: ") && strstr(out, "problem"), "no summary");
	show();
}

static void module_loads(void)
{
	T_EQ(system("modprobe ane"), 0);
	T_OK(ane_find_node(0, node, sizeof(node)));
	T_OK(vm_debugfs_path(node, "fw_inject", inject, sizeof(inject)));
	if (!t_case_failed)
		snprintf(sysdir, sizeof(sysdir), "/sys/class/accel/%s/device",
			 strrchr(node, '/') + 1);
	else
		inject[0] = '\0';
}

static void sysfs_firmware_ready_no_recoveries(void)
{
	char st[32] = "";

	T_OK(wait_ready(10));
	T_OK(sysfs_read("firmware_state", st, sizeof(st)));
	T_CHECK(!strcmp(st, "ready"), "firmware_state \"%s\"", st);
	T_EQ(sysfs_num("recoveries"), 0);
	T_CHECK(sysfs_num("busy_time_us") >= 0, "busy_time_us unreadable");
}

static void doctor_is_healthy(void)
{
	T_EQ(doctor(0), 0);
	T_CHECK(strstr(out, "anectl doctor: healthy"), "no 'healthy'");
	T_CHECK(strstr(out, "firmware  ok    ane.0: ready"), "firmware not ready");
	T_CHECK(strstr(out, "can open /dev/accel/"), "access");
	T_CHECK(!strstr(out, "FAIL"), "a FAIL line");
	show();
}

/* Requests until busy_time_us moves (each takes some microseconds). */
static void busy_time_grows_after_requests(void)
{
	static float x[64 * 64], y[64 * 64];
	const float *in[1] = { x };
	float *const o[1] = { y };
	struct ane_net *net = NULL;
	struct ane_dev *dev = NULL;
	long long before = sysfs_num("busy_time_us"), after = before;
	char err[512] = "";
	int i, t, w;

	T_CHECK(before >= 0, "busy_time_us unreadable");
	T_OK(ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err)));
	T_OK(ane_net_create(&net));
	if (!dev || !net) {
		printf("#   %s\n", err);
		ane_net_destroy(net);
		ane_close(dev);
		return;
	}
	for (i = 0; i < 64 * 64; i++)
		x[i] = (float)(i % 7) - 3.0f;
	t = ane_net_input(net, "x", 1, 1, 64, 64);
	w = ane_net_const(net, "w", 1, 1, 64, 64, x);
	ane_net_output(net, ane_net_matmul(net, t, w, 0, ANE_NET_ACT_NONE));
	for (i = 0; i < 50 && after == before; i++) {
		if (ane_net_run(dev, net, in, o)) {
			T_CHECK(0, "ane_net_run: %s", ane_errmsg(dev));
			break;
		}
		after = sysfs_num("busy_time_us");
	}
	T_CHECK(after > before, "busy_time_us %lld -> %lld after %d requests", before,
		after, i);
	ane_net_destroy(net);
	ane_close(dev);
}

static void recoveries_grow_after_a_crash(void)
{
	long long before = sysfs_num("recoveries");

	T_OK(vm_write_file(inject, "crash"));
	T_OK(wait_ready(30));
	T_EQ(sysfs_num("recoveries"), before + 1);
	T_EQ(doctor(0), 0);
	T_CHECK(strstr(out, "crashed and recovered 1 time"), "recovery not reported");
	show();
}

static void doctor_names_a_node_nobody_can_open(void)
{
	struct stat st;

	T_OK(stat(node, &st));
	T_OK(chmod(node, 0600));
	T_EQ(doctor(1), 1);
	T_CHECK(strstr(out, "cannot open") && strstr(out, node), "node not named");
	T_CHECK(strstr(out, "mode 0600"), "mode not named");
	T_CHECK(strstr(out, "EACCES"), "errno not named");
	T_CHECK(strstr(out, "fix: ") && strstr(out, "udev"), "no udev fix");
	show();

	/* Open to everyone, but nobody is not in the client group. */
	T_OK(chmod(node, 0666));
	T_OK(vm_client_gid(-1));
	T_EQ(doctor(1), 1);
	T_CHECK(strstr(out, "may open") && strstr(out, "not use the engine"),
		"refused open not explained");
	T_CHECK(strstr(out, "EACCES"), "errno not named");
	T_CHECK(strstr(out, "capabilities 0x000 (none)"), "capabilities not shown");
	T_CHECK(strstr(out, "fix: ") && strstr(out, "client_gid"), "no client_gid fix");
	show();

	/* In the group: nobody is healthy, and sees what it may do. */
	T_OK(vm_client_gid(NOBODY));
	T_EQ(doctor(1), 0);
	T_CHECK(strstr(out, "anectl doctor: healthy"), "not healthy as nobody");
	T_CHECK(strstr(out, "0x073 (open data-chaining memory data client-hints)"),
		"capabilities not shown");
	show();
	vm_client_gid(-1);
	chmod(node, st.st_mode & 07777);
}

static void doctor_names_a_dead_firmware(void)
{
	T_OK(vm_write_file(inject, "halt"));
	T_EQ(doctor(0), 1);
	T_CHECK(strstr(out, "DEAD"), "DEAD not named");
	T_CHECK(strstr(out, "echo reboot | tee ") && strstr(out, "fw_inject"),
		"no reboot fix");
	T_CHECK(strstr(out, "modprobe -r ane && modprobe ane"), "no reload fix");
	show();

	T_OK(vm_write_file(inject, "reboot"));
	T_OK(wait_ready(30));
	T_EQ(doctor(0), 0);
	show();
}

int main(void)
{
	T_RUN(doctor_names_the_missing_module);
	T_RUN(module_loads);
	if (!sysdir[0] || !inject[0])
		return t_summary("doctor");
	T_RUN(sysfs_firmware_ready_no_recoveries);
	T_RUN(doctor_is_healthy);
	T_RUN(busy_time_grows_after_requests);
	T_RUN(recoveries_grow_after_a_crash);
	T_RUN(doctor_names_a_node_nobody_can_open);
	T_RUN(doctor_names_a_dead_firmware);
	return t_summary("doctor");
}
