// SPDX-License-Identifier: MIT
/*
 * anectl: doctor, which checks the kernel, the module, the devices, their
 * nodes, the caller's access and the firmware, and prints each problem with
 * the command that fixes it.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "libane.h"
#include "anectl.h"

/* What anectl doctor found: problems fail it, warnings do not. */
static unsigned int doc_problems, doc_warnings;

static void doc_line(const char *tag, const char *area, const char *fix,
		     const char *fmt, va_list ap)
{
	printf("%-9s %-5s ", area, tag);
	vprintf(fmt, ap);
	printf("\n");
	if (!fix)
		return;
	/* root needs no sudo: print the commands as root runs them */
	printf("%-15s fix: ", "");
	while (*fix) {
		if (!geteuid() && !strncmp(fix, "sudo ", 5)) {
			fix += 5;
			continue;
		}
		putchar(*fix++);
	}
	putchar('\n');
}

static void __attribute__((format(printf, 2, 3)))
doc_ok(const char *area, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	doc_line("ok", area, NULL, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 3, 4)))
doc_warn(const char *area, const char *fix, const char *fmt, ...)
{
	va_list ap;

	doc_warnings++;
	va_start(ap, fmt);
	doc_line("warn", area, fix, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 3, 4)))
doc_fail(const char *area, const char *fix, const char *fmt, ...)
{
	va_list ap;

	doc_problems++;
	va_start(ap, fmt);
	doc_line("FAIL", area, fix, fmt, ap);
	va_end(ap);
}

/* "sudo " unless we are root: the prefix of a privileged fix. */
static const char *sudo(void)
{
	return geteuid() ? "sudo " : "";
}

/* The basename of the symlink @path's target into @buf; 0 or -1. */
static int link_name(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *b;

	if (n <= 0)
		return -1;
	target[n] = '\0';
	b = strrchr(target, '/');
	sfmt(buf, len, "%s", b ? b + 1 : target);
	return 0;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Is @prog an executable in $PATH? */
static int in_path(const char *prog)
{
	const char *p = getenv("PATH");
	char dir[PATH_MAX], path[PATH_MAX + 64];
	size_t n;

	for (p = p ? p : "/usr/sbin:/usr/bin:/sbin:/bin"; *p; p += n + (p[n] == ':')) {
		n = strcspn(p, ":");
		if (!n || n >= sizeof(dir))
			continue;
		memcpy(dir, p, n);
		dir[n] = '\0';
		sfmt(path, sizeof(path), "%s/%s", dir, prog);
		if (access(path, X_OK) == 0)
			return 1;
	}
	return 0;
}

/*
 * CONFIG_DRM_ACCEL in the kernel's configuration: 'y', 'm', 'n' (not set),
 * or 0 when no configuration says; @where gets the file that did.
 */
static int kconfig_accel(const char *rel, char *where, size_t len)
{
	char paths[3][PATH_MAX], cmd[PATH_MAX + 64], line[256];
	int i, val = 0;

	sfmt(paths[0], sizeof(paths[0]), "/proc/config.gz");
	sfmt(paths[1], sizeof(paths[1]), "/boot/config-%s", rel);
	sfmt(paths[2], sizeof(paths[2]), "/lib/modules/%s/build/.config", rel);
	for (i = 0; i < 3 && !val; i++) {
		FILE *f;

		if (access(paths[i], R_OK))
			continue;
		if (i == 0) {
			sfmt(cmd, sizeof(cmd), "gzip -dc %s 2>/dev/null", paths[i]);
			f = popen(cmd, "re");
		} else {
			f = fopen(paths[i], "re");
		}
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "CONFIG_DRM_ACCEL=", 17))
				val = line[17];
			else if (!strncmp(line, "# CONFIG_DRM_ACCEL is not set", 29))
				val = 'n';
		}
		if (i == 0)
			pclose(f);
		else
			fclose(f);
		if (val)
			sfmt(where, len, "%s", paths[i]);
	}
	return val;
}

static void doctor_kernel(const struct utsname *u)
{
	unsigned int major = 0, minor = 0;
	char where[PATH_MAX];
	int accel;

	sscanf(u->release, "%u.%u", &major, &minor);
	if (major < 6 || (major == 6 && minor < 12))
		doc_fail("kernel", "install and boot a Linux 6.12 or later kernel (Debian bookworm: `make deps` installs the bookworm-backports one)",
			 "Linux %s is older than 6.12, which ane needs", u->release);
	else
		doc_ok("kernel", "Linux %s (ane needs 6.12 or later)", u->release);

	accel = kconfig_accel(u->release, where, sizeof(where));
	if (accel == 'y')
		doc_ok("kernel", "CONFIG_DRM_ACCEL=y (%s)", where);
	else if (accel)
		doc_fail("kernel", "boot a kernel built with CONFIG_DRM_ACCEL=y (Debian's 6.12 kernels are)",
			 "the kernel has CONFIG_DRM_ACCEL=%c (%s): no accel subsystem",
			 accel, where);
	else if (exists("/sys/class/accel"))
		doc_ok("kernel", "the accel subsystem is present (/sys/class/accel; no kernel configuration to read)");
	else
		doc_warn("kernel", NULL,
			 "cannot tell whether CONFIG_DRM_ACCEL=y: no /proc/config.gz, /boot/config-%s or /lib/modules/%s/build/.config, and no /sys/class/accel yet (it appears once drm is loaded)",
			 u->release, u->release);
}

/* "vermagic=" of the module file @path (its first word) into @buf. */
static int ko_vermagic(const char *path, char *buf, size_t len)
{
	static const char key[] = "vermagic=";
	const char *p, *end, *v = NULL;
	struct stat st;
	void *m;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !st.st_size) {
		close(fd);
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	p = m;
	end = p + st.st_size;
	while (p && p + sizeof(key) < end) {
		p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1);
		/* the .modinfo string starts after a NUL */
		if (p && (p == m || p[-1] == '\0')) {
			v = p + sizeof(key) - 1;
			break;
		}
		if (p)
			p++;
	}
	if (v) {
		size_t n = 0;

		while (v + n < end && v[n] && v[n] != ' ' && n + 1 < len)
			n++;
		memcpy(buf, v, n);
		buf[n] = '\0';
	}
	munmap(m, (size_t)st.st_size);
	return v ? 0 : -1;
}

/* ane.ko of the source tree we run from (build/tools/anectl), if any. */
static int built_module(char *path, size_t len)
{
	char exe[PATH_MAX], *s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int up;

	if (n > 0) {
		exe[n] = '\0';
		/* <tree>/build/tools/anectl: three components up */
		for (up = 0; up < 3 && (s = strrchr(exe, '/')); up++)
			*s = '\0';
		if (up == 3) {
			sfmt(path, len, "%s/ane.ko", exe);
			if (exists(path))
				return 0;
		}
	}
	sfmt(path, len, "ane.ko");
	return exists(path) ? 0 : -1;
}

/* The installed ane module of kernel @rel (from modules.dep) into @path. */
static int installed_module(const char *rel, char *path, size_t len)
{
	char dep[PATH_MAX], line[1024];
	FILE *f;
	int ret = -1;

	sfmt(dep, sizeof(dep), "/lib/modules/%s/modules.dep", rel);
	f = fopen(dep, "re");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
		if (!strncmp(base, "ane.ko", 6)) {
			sfmt(path, len, "%s%s/%s", line[0] == '/' ? "" : "/lib/modules/",
				 line[0] == '/' ? "" : rel, line);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

static void doctor_dkms(void)
{
	char line[512];
	int any = 0;
	FILE *f;

	if (!in_path("dkms"))
		return;
	f = popen("dkms status ane 2>&1", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0]) {
			doc_ok("module", "dkms: %s", line);
			any = 1;
		}
	}
	pclose(f);
	if (!any)
		doc_warn("module", NULL, "DKMS does not know ane (see README.md, \"Installing\", to keep it built for every kernel)");
}

/* 1 when ane is loaded. */
static int doctor_module(const struct utsname *u)
{
	char built[PATH_MAX], inst[PATH_MAX], magic[256], ver[64], fix[PATH_MAX + 128];
	int loaded = exists("/sys/module/ane");
	int have_built = built_module(built, sizeof(built)) == 0;
	int have_inst = installed_module(u->release, inst, sizeof(inst)) == 0;

	if (have_built) {
		if (ko_vermagic(built, magic, sizeof(magic)))
			doc_warn("module", "make module", "%s is not a kernel module", built);
		else if (strcmp(magic, u->release))
			doc_warn("module", "make module KVER=$(uname -r)",
				 "%s was built for Linux %s, not the running %s", built,
				 magic, u->release);
		else
			doc_ok("module", "built: %s", built);
	}
	if (have_inst)
		doc_ok("module", "installed: %s", inst);
	else if (loaded)
		doc_warn("module", "sudo dkms add . && sudo dkms install ane/0.1.0 (from the source tree)",
			 "ane is loaded but not installed for Linux %s: `modprobe ane` will not find it after a reboot",
			 u->release);
	else
		doc_fail("module", "sudo dkms add . && sudo dkms install ane/0.1.0 (from the source tree; or `make module` and insmod ane.ko)",
			 "ane.ko is not installed for Linux %s (not in /lib/modules/%s/modules.dep)",
			 u->release, u->release);
	doctor_dkms();

	if (loaded) {
		if (read_line("/sys/module/ane/version", ver, sizeof(ver)) || !ver[0])
			sfmt(ver, sizeof(ver), "?");
		doc_ok("module", "loaded: ane %s (/sys/module/ane)", ver);
	} else if (have_inst) {
		sfmt(fix, sizeof(fix), "%smodprobe ane", sudo());
		doc_fail("module", fix, "ane is not loaded (no /sys/module/ane)");
	} else if (have_built) {
		sfmt(fix, sizeof(fix), "%smodprobe drm && %sinsmod %s", sudo(), sudo(), built);
		doc_fail("module", fix, "ane is not loaded (no /sys/module/ane)");
	} else {
		doc_fail("module", "install it (above), then: sudo modprobe ane",
			 "ane is not loaded (no /sys/module/ane)");
	}
	return loaded;
}

/* Is the udev rule installed where udev reads it? */
static const char *udev_rule(void)
{
	static const char * const dirs[] = {
		"/etc/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d",
		"/usr/local/lib/udev/rules.d",
	};
	static char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		sfmt(path, sizeof(path), "%s/70-ane.rules", dirs[i]);
		if (exists(path))
			return path;
	}
	return NULL;
}

static const char *group_name(gid_t gid, char *buf, size_t len)
{
	struct group *g = getgrgid(gid);

	if (g)
		sfmt(buf, len, "%s", g->gr_name);
	else
		sfmt(buf, len, "%u", (unsigned int)gid);
	return buf;
}

static void doctor_access(const char *node, const struct stat *st)
{
	char grp[64], fix[1024];
	const char *rule = udev_rule();
	int fd, err;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		doc_ok("access", "you (uid %u) can open %s", (unsigned int)geteuid(), node);
		return;
	}
	err = errno;
	group_name(st->st_gid, grp, sizeof(grp));
	if (err != EACCES && err != EPERM) {
		doc_fail("access", NULL, "open %s: %s (%s)", node, ane_errno_name(err),
			 strerror(err));
		return;
	}
	if (st->st_gid && (st->st_mode & 0060) == 0060)
		sfmt(fix, sizeof(fix),
			 "sudo usermod -aG %s $USER, then log in again (or run `newgrp %s`)",
			 grp, grp);
	else if (rule)
		sfmt(fix, sizeof(fix),
			 "the udev rule %s is installed but not applied: sudo udevadm trigger --subsystem-match=accel; then join the render group: sudo usermod -aG render $USER and log in again",
			 rule);
	else
		sfmt(fix, sizeof(fix),
			 "install the udev rule (group render, mode 0660): sudo make install (or: sudo install -m 0644 tools/udev/70-ane.rules /etc/udev/rules.d/), then sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=accel, and join the group: sudo usermod -aG render $USER");
	doc_fail("access", fix, "you (uid %u) cannot open %s (mode %04o, group %s): %s (%s)",
		 (unsigned int)geteuid(), node, (unsigned int)(st->st_mode & 07777), grp,
		 ane_errno_name(err), strerror(err));
}

/*
 * What a file of yours may do with the engine (DRM_IOCTL_ANE_CAPS_DROP of
 * nothing reads the set); 1 if it may DeviceOpen, else 0 with the fix.
 */
static int doctor_caps(const char *node)
{
	struct drm_ane_caps_drop q;
	char caps[256], gid[32] = "", fix[1024];
	int fd, err;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	memset(&q, 0, sizeof(q));
	err = ioctl(fd, DRM_IOCTL_ANE_CAPS_DROP, &q) ? errno : 0;
	close(fd);
	if (err) {
		doc_warn("caps", NULL, "cannot read your capabilities on %s: %s (%s)",
			 node, ane_errno_name(err), strerror(err));
		return 1;
	}
	caps_str(q.caps, caps, sizeof(caps));
	if (q.caps & ANE_CAP_OPEN) {
		doc_ok("caps", "you (uid %u) may use %s: %s", (unsigned int)geteuid(),
		       node, caps);
		return 1;
	}
	read_line("/sys/module/ane/parameters/client_gid", gid, sizeof(gid));
	sfmt(fix, sizeof(fix),
	     "an administrator gives a group of yours the engine: echo GID | sudo tee /sys/module/ane/parameters/client_gid (GID from `getent group render`; for good: options ane client_gid=GID in /etc/modprobe.d/ane.conf), then join it: sudo usermod -aG render $USER");
	doc_fail("caps", fix,
		 "you (uid %u) may open %s but not use the engine: DeviceOpen fails with EACCES (%s): capabilities %s, client_gid %s",
		 (unsigned int)geteuid(), node, strerror(EACCES), caps, gid[0] ? gid : "?");
	return 0;
}

/* A number from a sysfs or debugfs file, or -1. */
static long long read_num(const char *path)
{
	char buf[64], *end;
	long long v;

	if (read_line(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	v = strtoll(buf, &end, 10);
	return *end ? -1 : v;
}

/* "recoveries: N" of debugfs's fw_state (root), or -1. */
static long long debugfs_recoveries(const char *devname)
{
	char path[PATH_MAX], line[256];
	long long v = -1;
	FILE *f;

	sfmt(path, sizeof(path), "/sys/kernel/debug/accel/%s/fw_state", devname);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "recoveries: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void doctor_firmware(const char *node, const char *accel, const char *devname,
			    int can_open)
{
	char path[PATH_MAX], state[32], err[512], fix[1024];
	struct drm_ane_status st;
	struct ane_dev *dev;
	long long rec;

	state[0] = '\0';
	if (can_open) {
		if (ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err))) {
			doc_fail("firmware", NULL, "%s", err);
			return;
		}
		ane_set_timeout(dev, 0);
		if (ane_get_status(dev, &st)) {
			doc_fail("firmware", NULL, "%s", ane_errmsg(dev));
			ane_close(dev);
			return;
		}
		ane_close(dev);
		sfmt(state, sizeof(state), "%s", ane_fw_state_name(st.fw_state));
	} else {
		sfmt(path, sizeof(path), "/sys/class/accel/%s/device/firmware_state", accel);
		if (read_line(path, state, sizeof(state)) || !state[0]) {
			doc_warn("firmware", NULL, "%s: state unknown (no access to the node, no %s)",
				 devname, path);
			return;
		}
	}

	sfmt(fix, sizeof(fix),
		 "restart it: echo reboot | %stee /sys/kernel/debug/accel/%s/fw_inject (debugfs, root), or reload the driver: %smodprobe -r ane && %smodprobe ane",
		 sudo(), devname, sudo(), sudo());
	if (!strcmp(state, "ready"))
		doc_ok("firmware", "%s: ready", devname);
	else if (!strcmp(state, "suspended"))
		doc_ok("firmware", "%s: powered down while idle (the next request powers it up)",
		       devname);
	else if (!strcmp(state, "dead"))
		doc_fail("firmware", fix, "%s: the firmware is DEAD (recovery gave up); every request fails with EIO",
			 devname);
	else if (!strcmp(state, "recovering"))
		doc_fail("firmware", fix, "%s: the firmware is RECOVERING from a crash (if it stays so, it fails every boot)",
			 devname);
	else
		doc_warn("firmware", "run anectl doctor again in a few seconds",
			 "%s: the firmware is %s", devname, state);

	sfmt(path, sizeof(path), "/sys/class/accel/%s/device/recoveries", accel);
	rec = read_num(path);
	if (rec < 0)
		rec = debugfs_recoveries(devname);
	if (rec > 0) {
		sfmt(fix, sizeof(fix),
			 "see why: dmesg | grep ane; the last crash dump: %scat /sys/kernel/debug/accel/%s/fw_crash (or /sys/class/devcoredump)",
			 sudo(), devname);
		doc_warn("firmware", fix, "%s: the firmware crashed and recovered %lld time%s since the driver bound",
			 devname, rec, rec == 1 ? "" : "s");
	} else if (rec == 0) {
		doc_ok("firmware", "%s: no recoveries since the driver bound", devname);
	}
}

/* One accel node of ane: the node, its mode, the caller's access, firmware. */
static void doctor_node(const char *accel)
{
	char path[PATH_MAX], node[PATH_MAX], devname[64], majmin[32], grp[64], fix[1024];
	unsigned int maj = 0, min = 0;
	struct stat st;
	int can_open;

	sfmt(path, sizeof(path), "/sys/class/accel/%s/device", accel);
	if (link_name(path, devname, sizeof(devname)))
		sfmt(devname, sizeof(devname), "%s", accel);
	sfmt(node, sizeof(node), "/dev/accel/%s", accel);
	sfmt(path, sizeof(path), "/sys/class/accel/%s/dev", accel);
	read_line(path, majmin, sizeof(majmin));
	sscanf(majmin, "%u:%u", &maj, &min);

	if (stat(node, &st)) {
		sfmt(fix, sizeof(fix),
			 "%sudevadm trigger --subsystem-match=accel (without udev: %smknod -m 0660 %s c %u %u && %schgrp render %s)",
			 sudo(), sudo(), node, maj, min, sudo(), node);
		doc_fail("node", fix, "%s (%s) has no device node %s: %s (%s)", accel,
			 devname, node, ane_errno_name(errno), strerror(errno));
		return;
	}
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != maj || minor(st.st_rdev) != min) {
		sfmt(fix, sizeof(fix), "%srm %s && %sudevadm trigger --subsystem-match=accel",
			 sudo(), node, sudo());
		doc_fail("node", fix, "%s is not the character device %u:%u of %s", node, maj,
			 min, devname);
		return;
	}
	group_name(st.st_gid, grp, sizeof(grp));
	if ((st.st_mode & 0066) == 0)
		doc_warn("node", udev_rule() ?
			 "sudo udevadm trigger --subsystem-match=accel (applies the installed udev rule)" :
			 "install the udev rule (group render, mode 0660): sudo make install, or sudo install -m 0644 tools/udev/70-ane.rules /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=accel",
			 "%s (%s): mode %04o, owner %u, group %s: only its owner can use it",
			 node, devname, (unsigned int)(st.st_mode & 07777),
			 (unsigned int)st.st_uid, grp);
	else
		doc_ok("node", "%s (%s): mode %04o, owner %u, group %s", node, devname,
		       (unsigned int)(st.st_mode & 07777), (unsigned int)st.st_uid, grp);

	doctor_access(node, &st);
	can_open = access(node, R_OK | W_OK) == 0 && doctor_caps(node);
	doctor_firmware(node, accel, devname, can_open);
}

int cmd_doctor(const char *only)
{
	struct utsname u;
	struct dirent *de;
	unsigned int bound = 0, nodes = 0;
	char path[PATH_MAX], drv[64], fix[256];
	DIR *d;

	if (uname(&u)) {
		fprintf(stderr, "anectl: uname: %s\n", strerror(errno));
		return 1;
	}
	doctor_kernel(&u);
	if (!doctor_module(&u))
		goto out;

	d = opendir("/sys/bus/platform/drivers/ane");
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "ane.", 4))
			bound++;
	if (d)
		closedir(d);
	if (bound) {
		doc_ok("devices", "%u device%s bound to ane (/sys/bus/platform/drivers/ane)",
		       bound, bound == 1 ? "" : "s");
	} else {
		sfmt(fix, sizeof(fix), "%smodprobe -r ane && %smodprobe ane", sudo(), sudo());
		doc_fail("devices", fix, "ane is loaded but no device is bound to it (devices=%lld)",
			 read_num("/sys/module/ane/parameters/devices"));
		goto out;
	}

	d = opendir("/sys/class/accel");
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "accel", 5))
			continue;
		sfmt(path, sizeof(path), "/sys/class/accel/%s/device/driver", de->d_name);
		if (link_name(path, drv, sizeof(drv)) || strcmp(drv, "ane"))
			continue;
		if (only && strcmp(strrchr(only, '/') ? strrchr(only, '/') + 1 : only,
				   de->d_name))
			continue;
		nodes++;
		doctor_node(de->d_name);
	}
	if (d)
		closedir(d);
	if (!nodes) {
		sfmt(fix, sizeof(fix), "%smodprobe -r ane && %smodprobe ane", sudo(), sudo());
		if (only)
			doc_fail("node", NULL, "%s is not an accel node of ane", only);
		else
			doc_fail("node", fix, "no accel device of ane in /sys/class/accel");
	}
out:
	if (doc_problems)
		printf("anectl doctor: %u problem%s, %u warning%s\n", doc_problems,
		       doc_problems == 1 ? "" : "s", doc_warnings,
		       doc_warnings == 1 ? "" : "s");
	else
		printf("anectl doctor: healthy (%u warning%s)\n", doc_warnings,
		       doc_warnings == 1 ? "" : "s");
	return doc_problems ? 1 : 0;
}
