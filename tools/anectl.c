// SPDX-License-Identifier: MIT
/*
 * anectl: inspect emulated Apple Neural Engine devices.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
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
#include <time.h>
#include <unistd.h>

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
		"  list     the accel nodes bound to ane\n"
		"  doctor   check the kernel, the module, the devices, their nodes,\n"
		"           your access and the firmware; print each problem with\n"
		"           the command that fixes it (exit 0 healthy, 1 not)\n"
		"  top      every client of ane (or NODE) live, from /proc/*/fdinfo:\n"
		"           engine time, busy %%, requests, memory; top --help for\n"
		"           its options (--interval MS, -n N, --once)\n"
		"  power [status|on|off|auto|always-on|delay MS]\n"
		"           the power methods: whether the engine is powered, power\n"
		"           it up and hold it (on: until the command exits, ^C),\n"
		"           down now, the policy (root)\n"
		"  clients  GetClientsInfo: every client of the device (root), or\n"
		"           this command's own file (others)\n"
		"  shmem    ShowSharedMemoryAllocations: the surfaces clients hold\n"
		"  models   ShowModelMemoryStatus: the programs clients hold\n"
		"\n"
		"options:\n"
		"  -d NODE        the device node (default: every ane node)\n"
		"  -h, --help     this help\n"
		"  -V, --version  libane's version\n");
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

/* The names of the ANE_CAP_* bits (security.rst), for status and doctor. */
static const struct {
	unsigned int bit;
	const char *name;
} cap_names[] = {
	{ ANE_CAP_OPEN, "open" },
	{ ANE_CAP_DATA_CHAINING, "data-chaining" },
	{ ANE_CAP_REALTIME, "realtime" },
	{ ANE_CAP_SYSTEM_PRIORITY, "system-priority" },
	{ ANE_CAP_MEMORY, "memory" },
	{ ANE_CAP_DATA, "data" },
	{ ANE_CAP_CLIENT_HINTS, "client-hints" },
	{ ANE_CAP_COALITION_HINTS, "coalition-hints" },
	{ ANE_CAP_PRIV_VM, "priv-vm" },
};

/* "0xNNN (name name ...)" of a capability set into @buf. */
static const char *caps_str(unsigned int caps, char *buf, size_t len)
{
	size_t n, i;

	n = (size_t)snprintf(buf, len, "0x%03x (", caps);
	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]) && n < len; i++)
		if (caps & cap_names[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      buf[n - 1] == '(' ? "" : " ",
					      cap_names[i].name);
	if (n < len)
		snprintf(buf + n, len - n, "%s)", buf[n - 1] == '(' ? "none" : "");
	return buf;
}

static int cmd_status(const char *node)
{
	char caps[256];
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
	printf("caps:       %s\n",
	       caps_str(st.client_flags >> ANE_CLIENT_CAPS_SHIFT, caps, sizeof(caps)));
	printf("submitted:  %" PRIu64 "\n", (uint64_t)st.requests_submitted);
	printf("completed:  %" PRIu64 "\n", (uint64_t)st.requests_completed);
	printf("dart faults %u\n", st.dart_faults);
	ane_close(dev);
	return 0;
}

/* ------------------------------------------------------------- doctor */

/* snprintf() for paths and messages, where truncation only shortens them. */
static void __attribute__((format(printf, 3, 4)))
sfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

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

/* The first line of a small file, without its newline; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		ret = ferror(f) ? -EIO : 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
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

static int cmd_doctor(const char *only)
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

/* ---------------------------------------------------------------- top */

/* One client: an open file of an ane node, as its fdinfo reports it. */
struct top_client {
	pid_t pid;
	char comm[64];
	char node[64];
	unsigned long long id, engine_ns, submitted, completed;
	unsigned long long charged_kib, total_b, shared_b, resident_b;
	int prev;			/* had a previous sample */
	unsigned long long p_engine_ns, p_submitted, p_completed;
};

struct top_set {
	struct top_client *c;
	size_t n, cap;
	unsigned int denied;		/* processes whose fds we may not read */
};

/* "N", "N B", "N KiB", "N MiB", "N GiB" in bytes; "N ns" as is. */
static unsigned long long fdinfo_value(const char *v)
{
	unsigned long long x;
	char unit[8] = "";

	if (sscanf(v, "%llu %7s", &x, unit) < 1)
		return 0;
	if (!strcmp(unit, "KiB"))
		x <<= 10;
	else if (!strcmp(unit, "MiB"))
		x <<= 20;
	else if (!strcmp(unit, "GiB"))
		x <<= 30;
	return x;
}

/* Parse /proc/@pid/fdinfo/@fd into @c; 1 when it is a client of ane. */
static int top_parse(pid_t pid, const char *fd, struct top_client *c)
{
	char path[128], line[256];
	int ane = 0, have_id = 0;
	FILE *f;

	sfmt(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid, fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "drm-driver"))
			ane = !strcmp(v, "ane");
		else if (!strcmp(line, "drm-client-id"))
			have_id = sscanf(v, "%llu", &c->id) == 1;
		else if (!strcmp(line, "drm-engine-ane"))
			c->engine_ns = fdinfo_value(v);
		else if (!strcmp(line, "ane-requests-submitted"))
			c->submitted = fdinfo_value(v);
		else if (!strcmp(line, "ane-requests-completed"))
			c->completed = fdinfo_value(v);
		else if (!strcmp(line, "ane-memory-charged"))
			c->charged_kib = fdinfo_value(v) >> 10;
		else if (!strcmp(line, "drm-total-memory"))
			c->total_b = fdinfo_value(v);
		else if (!strcmp(line, "drm-shared-memory"))
			c->shared_b = fdinfo_value(v);
		else if (!strcmp(line, "drm-resident-memory"))
			c->resident_b = fdinfo_value(v);
	}
	fclose(f);
	return ane && have_id;
}

/*
 * Every open file of an accel node (matching @only, when given) whose
 * fdinfo says drm-driver ane, one entry per client (a client's file may
 * be open in several fds or processes: the first one found is shown).
 */
static int top_scan(struct top_set *s, const char *only)
{
	struct dirent *pe, *fe;
	DIR *proc, *fds;

	s->n = 0;
	s->denied = 0;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while ((pe = readdir(proc))) {
		char path[PATH_MAX], link[PATH_MAX];
		char *end;
		long pid = strtol(pe->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		sfmt(path, sizeof(path), "/proc/%ld/fd", pid);
		fds = opendir(path);
		if (!fds) {
			if (errno == EACCES)
				s->denied++;
			continue;
		}
		while ((fe = readdir(fds))) {
			struct top_client c = { .pid = (pid_t)pid };
			ssize_t n;
			size_t i;

			if (fe->d_name[0] == '.')
				continue;
			sfmt(path, sizeof(path), "/proc/%ld/fd/%s", pid, fe->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			/* only accel nodes: skip every other fd without reading it */
			if (strncmp(link, "/dev/accel/accel", 16))
				continue;
			if (only && strcmp(link, only))
				continue;
			if (!top_parse((pid_t)pid, fe->d_name, &c))
				continue;
			sfmt(c.node, sizeof(c.node), "%s", link);
			for (i = 0; i < s->n; i++)
				if (s->c[i].id == c.id && !strcmp(s->c[i].node, c.node))
					break;
			if (i < s->n)
				continue;
			sfmt(path, sizeof(path), "/proc/%ld/comm", pid);
			if (read_line(path, c.comm, sizeof(c.comm)) || !c.comm[0])
				sfmt(c.comm, sizeof(c.comm), "?");
			if (s->n == s->cap) {
				size_t cap = s->cap ? s->cap * 2 : 16;
				struct top_client *nc = realloc(s->c, cap * sizeof(*nc));

				if (!nc) {
					closedir(fds);
					closedir(proc);
					return -ENOMEM;
				}
				s->c = nc;
				s->cap = cap;
			}
			s->c[s->n++] = c;
		}
		closedir(fds);
	}
	closedir(proc);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Carry the counters of each client's previous sample in @old over to @cur. */
static void top_carry(struct top_set *cur, const struct top_set *old)
{
	size_t i, j;

	for (i = 0; i < cur->n; i++) {
		struct top_client *c = &cur->c[i];

		c->prev = 0;
		for (j = 0; j < old->n; j++) {
			const struct top_client *o = &old->c[j];

			if (o->id == c->id && !strcmp(o->node, c->node)) {
				c->prev = 1;
				c->p_engine_ns = o->engine_ns;
				c->p_submitted = o->submitted;
				c->p_completed = o->completed;
				break;
			}
		}
	}
}

static void top_print(const struct top_set *s, double dt, unsigned int interval_ms,
		      int tty, int first)
{
	char when[16];
	time_t t = time(NULL);
	struct tm tm;
	size_t i;

	if (tty)
		fputs("\033[H\033[2J", stdout);
	else if (!first)
		putchar('\n');
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	printf("anectl top - %s, every %u ms, %zu client%s\n", when, interval_ms, s->n,
	       s->n == 1 ? "" : "s");
	if (!s->n) {
		printf("no ane clients (no open file of an ane node in /proc/*/fdinfo)\n");
	} else {
		printf("%7s %-18s %5s %12s %6s %9s %9s %7s %9s %9s %10s %s\n",
		       "PID", "NODE", "ID", "ENGINE-ms", "BUSY%", "SUBMITTED",
		       "COMPLETED", "REQ/s", "CHARGED-K", "MEM-K", "RESIDENT-K",
		       "COMMAND");
		for (i = 0; i < s->n; i++) {
			const struct top_client *c = &s->c[i];
			char busy[16], rate[16];

			if (c->prev && dt > 0 && c->engine_ns >= c->p_engine_ns &&
			    c->completed >= c->p_completed) {
				sfmt(busy, sizeof(busy), "%.1f",
				     (double)(c->engine_ns - c->p_engine_ns) / (dt * 1e7));
				sfmt(rate, sizeof(rate), "%.0f",
				     (double)(c->completed - c->p_completed) / dt);
			} else {
				sfmt(busy, sizeof(busy), "-");
				sfmt(rate, sizeof(rate), "-");
			}
			printf("%7d %-18s %5llu %12.3f %6s %9llu %9llu %7s %9llu %9llu %10llu %s\n",
			       (int)c->pid, c->node, c->id, (double)c->engine_ns / 1e6,
			       busy, c->submitted, c->completed, rate, c->charged_kib,
			       c->total_b >> 10, c->resident_b >> 10, c->comm);
		}
	}
	if (s->denied && geteuid())
		printf("(%u process%s not readable: run as root to see every client)\n",
		       s->denied, s->denied == 1 ? "" : "es");
	fflush(stdout);
}

/* A positive decimal option value no larger than @max, or 0. */
static unsigned long top_num(const char *opt, const char *v, unsigned long max)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = v ? strtoul(v, &end, 10) : 0;
	if (!v || !*v || *end || errno || !x || x > max) {
		fprintf(stderr, "anectl top: %s: '%s' is not a number from 1 to %lu (EINVAL)\n",
			opt, v ? v : "", max);
		return 0;
	}
	return x;
}

static int cmd_top(const char *node, int argc, char **argv)
{
	struct top_set cur = { 0 }, old = { 0 }, tmp;
	unsigned long interval = 1000, samples = 0, k;
	int i, tty = isatty(STDOUT_FILENO), err;
	double t0, t1;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--once")) {
			samples = 1;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--samples")) {
			samples = top_num(a, i + 1 < argc ? argv[++i] : NULL, 1000000);
			if (!samples)
				return 2;
		} else if (!strcmp(a, "--interval") || !strcmp(a, "-i")) {
			interval = top_num(a, i + 1 < argc ? argv[++i] : NULL, 3600000);
			if (!interval)
				return 2;
		} else if (!strncmp(a, "--interval=", 11)) {
			interval = top_num("--interval", a + 11, 3600000);
			if (!interval)
				return 2;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("usage: anectl [-d NODE] top [--interval MS] [-n N | --once]\n"
			       "\n"
			       "Every ane client (open file of an ane node) of every process, from\n"
			       "/proc/<pid>/fdinfo: pid, node, drm-client-id, engine time and busy %%\n"
			       "over the interval, requests submitted and completed and completions\n"
			       "per second, memory charged (KiB), surfaces total and resident (KiB),\n"
			       "command.  Refreshes until interrupted.\n"
			       "  -i, --interval MS  time between samples (default 1000)\n"
			       "  -n, --samples N    print N samples, then exit 0\n"
			       "  --once             the same as -n 1\n"
			       "  -h, --help         this help\n");
			return 0;
		} else {
			fprintf(stderr, "anectl top: unknown option '%s' (see anectl top --help)\n", a);
			return 2;
		}
	}

	err = top_scan(&old, node);
	t0 = now_s();
	for (k = 0; !err && (!samples || k < samples); k++) {
		struct timespec ts = {
			.tv_sec = (time_t)(interval / 1000),
			.tv_nsec = (long)(interval % 1000) * 1000000L,
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		err = top_scan(&cur, node);
		t1 = now_s();
		if (err)
			break;
		top_carry(&cur, &old);
		top_print(&cur, t1 - t0, (unsigned int)interval, tty, !k);
		tmp = old;
		old = cur;
		cur = tmp;
		t0 = t1;
	}
	free(cur.c);
	free(old.c);
	if (err) {
		fprintf(stderr, "anectl top: scanning /proc: %s (%s)\n", ane_errno_name(-err),
			strerror(-err));
		return 1;
	}
	return 0;
}

/* --------------------------------------------------------------- power */

static int power_method(int fd, const char *node, uint32_t m, uint64_t value,
			uint64_t *result)
{
	struct drm_ane_method_args a = { .method = m, .value = value };

	if (ioctl(fd, DRM_IOCTL_ANE_METHOD, &a)) {
		fprintf(stderr, "anectl power: %s: method %u: %s (%s)%s\n", node, m,
			ane_errno_name(errno), strerror(errno),
			errno == EPERM ? ": the power policy needs root" : "");
		return -1;
	}
	if (result)
		*result = a.result;
	return 0;
}

static int cmd_power(const char *node, int argc, char **argv)
{
	const char *what = argc ? argv[0] : "status";
	char buf[256];
	uint64_t r = 0;
	int fd, ret = 0;

	if (!node) {
		if (ane_find_node(0, buf, sizeof(buf))) {
			fprintf(stderr, "anectl power: no ane device (is the module loaded? anectl doctor)\n");
			return 1;
		}
		node = buf;
	}
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "anectl power: open %s: %s (anectl doctor explains)\n", node,
			strerror(errno));
		return 1;
	}
	if (!strcmp(what, "status")) {
		ret = power_method(fd, node, ANE_METHOD_IS_POWERED, 0, &r);
		if (!ret)
			printf("%s: %s\n", node, r ? "powered" : "powered down");
	} else if (!strcmp(what, "on")) {
		ret = power_method(fd, node, ANE_METHOD_POWER_ON, 0, NULL);
		if (!ret) {
			printf("%s: powered, held until this command exits\n", node);
			fflush(stdout);
			pause();
		}
	} else if (!strcmp(what, "off")) {
		ret = power_method(fd, node, ANE_METHOD_POWER_OFF, 0, &r);
		if (!ret)
			printf("%s: %s\n", node, r ? "powered down" :
			       "still powered (in use, held, or always-on)");
	} else if (!strcmp(what, "auto") || !strcmp(what, "always-on")) {
		ret = power_method(fd, node, ANE_METHOD_SET_POWER_MANAGEMENT,
				   !strcmp(what, "auto"), NULL);
	} else if (!strcmp(what, "delay") && argc > 1) {
		ret = power_method(fd, node, ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME,
				   strtoull(argv[1], NULL, 0), NULL);
	} else {
		fprintf(stderr, "anectl power: unknown '%s' (status, on, off, auto, always-on, delay MS)\n",
			what);
		ret = -1;
	}
	close(fd);
	return ret ? 1 : 0;
}

/* --------------------------------------------------------- diagnostics */

static int cmd_diag(const char *node, const char *name, uint32_t m, size_t rec)
{
	struct drm_ane_method_buf a = { .method = m };
	char buf[256];
	void *recs;
	uint32_t i;
	int fd;

	if (!node) {
		if (ane_find_node(0, buf, sizeof(buf))) {
			fprintf(stderr, "anectl %s: no ane device (is the module loaded? anectl doctor)\n",
				name);
			return 1;
		}
		node = buf;
	}
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "anectl %s: open %s: %s (anectl doctor explains)\n", name, node,
			strerror(errno));
		return 1;
	}
	recs = calloc(ANE_METHOD_MAX_RECORDS, rec);
	a.ptr = (uintptr_t)recs;
	a.size = ANE_METHOD_MAX_RECORDS * rec;
	if (!recs || ioctl(fd, DRM_IOCTL_ANE_METHOD_BUF, &a)) {
		fprintf(stderr, "anectl %s: %s: method %u: %s (%s)\n", name, node, m,
			ane_errno_name(errno), strerror(errno));
		free(recs);
		close(fd);
		return 1;
	}
	for (i = 0; i < a.count; i++) {
		const void *r = (const char *)recs + i * rec;

		if (m == ANE_METHOD_GET_CLIENTS_INFO) {
			const struct drm_ane_client_info *c = r;

			if (!i)
				printf("%8s %7s %6s %5s %5s %5s %4s %4s %6s %10s %10s %12s\n",
				       "CLIENT", "PID", "UID", "CAPS", "STATE", "SPACE",
				       "PROG", "MAPS", "CACHED", "SUBMITTED", "COMPLETED",
				       "ENGINE_US");
			printf("%8llu %7u %6u %5x %5u %5u %4u %4u %6u %10llu %10llu %12llu%s\n",
			       (unsigned long long)c->client_id, c->pid, c->uid, c->caps,
			       c->state, c->space, c->programs, c->mappings,
			       c->cached_mappings, (unsigned long long)c->submitted,
			       (unsigned long long)c->completed,
			       (unsigned long long)(c->engine_ns / 1000),
			       c->flags & ANE_CLIENT_INFO_SELF ? " (this command)" : "");
		} else if (m == ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS) {
			const struct drm_ane_shmem_info *sh = r;

			if (!i)
				printf("%8s %8s %12s %s\n", "CLIENT", "HANDLE", "BYTES", "FLAGS");
			printf("%8llu %8u %12llu %s%s\n", (unsigned long long)sh->client_id,
			       sh->handle, (unsigned long long)sh->size,
			       sh->flags & ANE_SHMEM_IMPORTED ? "imported " : "",
			       sh->flags & ANE_SHMEM_EXPORTED ? "exported" : "");
		} else {
			const struct drm_ane_model_info *p = r;

			if (!i)
				printf("%8s %12s %12s %12s %5s %6s %8s %s\n", "CLIENT",
				       "IMAGE", "INTER", "WEIGHTS", "SLOT", "FW_PID",
				       "INFLIGHT", "FLAGS");
			printf("%8llu %12llu %12llu %12llu %5d %6d %8u %s%s%s\n",
			       (unsigned long long)p->client_id,
			       (unsigned long long)p->image_bytes,
			       (unsigned long long)p->inter_bytes,
			       (unsigned long long)p->weights_bytes, p->slot, p->fw_pid,
			       p->inflight,
			       p->flags & ANE_MODEL_PREPARED ? "prepared " : "",
			       p->flags & ANE_MODEL_INSTANCE ? "instance " : "",
			       p->flags & ANE_MODEL_ATTACHED ? "attached" : "");
		}
	}
	printf("%s: %u %s%s\n", node, a.total, name,
	       a.total > a.count ? " (not all shown)" : "");
	free(recs);
	close(fd);
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
	if (!strcmp(argv[i], "doctor"))
		return cmd_doctor(node);
	if (!strcmp(argv[i], "top"))
		return cmd_top(node, argc - i - 1, argv + i + 1);
	if (!strcmp(argv[i], "power"))
		return cmd_power(node, argc - i - 1, argv + i + 1);
	if (!strcmp(argv[i], "clients"))
		return cmd_diag(node, "clients", ANE_METHOD_GET_CLIENTS_INFO,
				sizeof(struct drm_ane_client_info));
	if (!strcmp(argv[i], "shmem"))
		return cmd_diag(node, "surfaces", ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS,
				sizeof(struct drm_ane_shmem_info));
	if (!strcmp(argv[i], "models"))
		return cmd_diag(node, "programs", ANE_METHOD_SHOW_MODEL_MEMORY_STATUS,
				sizeof(struct drm_ane_model_info));
	if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
		printf("anectl (libane) %s\n", ane_version());
		return 0;
	}
	fprintf(stderr, "anectl: unknown command '%s'\n", argv[i]);
	usage(stderr);
	return 2;
}
