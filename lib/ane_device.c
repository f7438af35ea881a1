// SPDX-License-Identifier: MIT
/*
 * libane: device discovery, the DeviceOpen handshake and the control
 * selectors.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ane_internal.h"

const char *ane_version(void)
{
	return ANE_VERSION;
}

/*
 * The errno's symbolic name from the C library (strerrorname_np(), glibc
 * 2.32+), "OK" for 0 and "errno N" for a value it does not know.
 */
const char *ane_errno_name(int err)
{
	static __thread char unknown[24];
	const char *name;

	/* -INT_MIN does not exist: no errno is that large anyway */
	err = err == INT_MIN ? INT_MAX : err < 0 ? -err : err;
	if (!err)
		return "OK";
	name = strerrorname_np(err);
	if (name)
		return name;
	snprintf(unknown, sizeof(unknown), "errno %d", err);
	return unknown;
}

/* What a selector errno means in this ABI (Documentation/accel/ane/uapi.rst). */
static const char *ane_errno_hint(int err)
{
	switch (err) {
	case EINVAL: return "bad argument: a size, reserved field or value was refused";
	case EOPNOTSUPP: return "not supported by this engine or driver version";
	case ENOTCONN: return "the client is not open: call DeviceOpen first";
	case EISCONN: return "the client is already open";
	case EBADRQC: return "the selector belongs to the other client space";
	case ESHUTDOWN: return "the client was closed by DeviceClose";
	case ENODEV: return "the device was removed (driver unbound or unloaded)";
	case EACCES: return "permission denied: check the node's group (render); `anectl doctor` says what to fix";
	case ENOENT: return "no such node: is ane.ko loaded? (`anectl doctor` checks)";
	default: return strerror(err);
	}
}

static int ane_fail_v(struct ane_dev *dev, int err, const char *hint,
		      const char *fmt, va_list ap)
{
	size_t n;

	n = (size_t)snprintf(dev->err, sizeof(dev->err), "ane: %s: ",
			     dev->node[0] ? dev->node : "(no node)");
	if (n < sizeof(dev->err))
		vsnprintf(dev->err + n, sizeof(dev->err) - n, fmt, ap);
	n = strlen(dev->err);
	if (n < sizeof(dev->err))
		snprintf(dev->err + n, sizeof(dev->err) - n, ": %s (%s)",
			 ane_errno_name(err), hint ? hint : ane_errno_hint(err));
	return -err;
}

int ane__fail_hint(struct ane_dev *dev, int err, const char *hint,
		   const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = ane_fail_v(dev, err, hint, fmt, ap);
	va_end(ap);
	return ret;
}

int ane__fail(struct ane_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = ane_fail_v(dev, err, NULL, fmt, ap);
	va_end(ap);
	return ret;
}

void ane__ok(struct ane_dev *dev)
{
	dev->err[0] = '\0';
}

/*
 * One selector ioctl, -EAGAIN waited out for the handle's timeout; on
 * failure the message names the selector (and the firmware state).
 */
static int ane_sel(struct ane_dev *dev, unsigned long cmd, void *args,
		   const char *what)
{
	struct ane__retry r;
	uint64_t now = ane__now_ns();
	int ret;

	ane__retry_init(&r, ANE__RETRY_EAGAIN, now,
			ane__deadline(now, dev->timeout_ns), 0);
	ret = ane__ioctl(dev, cmd, args, &r);
	if (ret)
		return ane__fail_retry(dev, -ret, &r, NULL, "%s", what);
	ane__ok(dev);
	return 0;
}

const char *ane_errmsg(const struct ane_dev *dev)
{
	return dev ? dev->err : "ane: no device handle";
}

const char *ane_node(const struct ane_dev *dev)
{
	return dev ? dev->node : "(no device handle)";
}

int ane_fd(const struct ane_dev *dev)
{
	return dev ? dev->fd : -1;
}

const struct drm_ane_device_info_out *ane_handshake(const struct ane_dev *dev)
{
	return dev ? &dev->info : NULL;
}

static int read_sysfs(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/*
 * A new handle's timeout: ANE_TIMEOUT_DEFAULT_NS, or longer when the
 * module's firmware deadline (fw_deadline_ms, raised for an engine
 * emulated under QEMU's TCG) would outlast it: a call then waits the
 * deadline plus the default's 8 s margin over the stock 2 s deadline.
 */
uint64_t ane__timeout_default(void)
{
	const uint64_t margin = ANE_TIMEOUT_DEFAULT_NS - 2000000000ull;
	unsigned long ms;
	char val[32], *end;

	if (read_sysfs("/sys/module/ane/parameters/fw_deadline_ms", val, sizeof(val)))
		return ANE_TIMEOUT_DEFAULT_NS;
	errno = 0;
	ms = strtoul(val, &end, 10);
	if (errno || end == val || *end || ms > 600000)
		return ANE_TIMEOUT_DEFAULT_NS;
	if (ms * 1000000ull + margin > ANE_TIMEOUT_DEFAULT_NS)
		return ms * 1000000ull + margin;
	return ANE_TIMEOUT_DEFAULT_NS;
}

/*
 * This driver and Asahi Linux's driver of the real Apple Neural Engine are
 * both a DRM driver and a platform driver named "ane".  Only this one has
 * the device attribute "emulated" (driver/ane_sysfs.c), and its DRM
 * description is ANE_EMU_DRIVER_DESC (driver/ane_drv.h's ANE_DRIVER_DESC);
 * the other is refused by name (Documentation/accel/ane/building-and-testing.rst,
 * "Asahi Linux's ane driver").
 */
#define ANE_EMU_DRIVER_DESC	"Emulated Apple Neural Engine"
#define ANE_OTHER_ANE \
	"another driver named 'ane' (Asahi Linux's driver of the real Apple Neural Engine?), " \
	"not this emulation"
#define ANE_OTHER_HINT \
	"libane drives only the emulated engine (ane.ko of this project, whose devices have " \
	"the sysfs attribute 'emulated'); the real engine has its own userspace"

/* 1 if the device directory @devdir (…/device) has emulated = "1". */
static int dir_is_emulated(const char *devdir)
{
	char path[PATH_MAX + 16], val[16];

	snprintf(path, sizeof(path), "%s/emulated", devdir);
	return !read_sysfs(path, val, sizeof(val)) && !strcmp(val, "1");
}

/* The basename of @devdir's driver link, in @buf; NULL if it has none. */
static const char *dir_driver(const char *devdir, char *buf, size_t len)
{
	char path[PATH_MAX + 16];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/driver", devdir);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	base = strrchr(buf, '/');
	return base ? base + 1 : buf;
}

/*
 * /sys/class/accel/@name: 1 bound to this ane driver (the emulation), -1
 * to another driver named "ane", 0 to anything else.
 */
static int node_kind(const char *name)
{
	char devdir[PATH_MAX], target[PATH_MAX];
	const char *drv;

	snprintf(devdir, sizeof(devdir), "/sys/class/accel/%s/device", name);
	drv = dir_driver(devdir, target, sizeof(target));
	if (!drv || strcmp(drv, "ane"))
		return 0;
	return dir_is_emulated(devdir) ? 1 : -1;
}

static int node_is_ane(const char *name)
{
	return node_kind(name) == 1;
}

/* The first accel node of another "ane" driver, in @buf; -ENODEV if none. */
static int find_other_ane(char *buf, size_t len)
{
	struct dirent *de;
	int ret = -ENODEV;
	DIR *d = opendir("/sys/class/accel");

	if (!d)
		return -ENODEV;
	while (ret && (de = readdir(d)))
		if (!strncmp(de->d_name, "accel", 5) && de->d_name[5] &&
		    node_kind(de->d_name) < 0) {
			snprintf(buf, len, "/dev/accel/%s", de->d_name);
			ret = 0;
		}
	closedir(d);
	return ret;
}

/*
 * Is the file @dev opened an ane node?  Checked before the first ane
 * ioctl: a number of ane's means something else to another driver (a DRM
 * driver's first ioctl is DRM_COMMAND_BASE too, and DRM fits any size to
 * its own).  A character device whose sysfs entry names its driver must
 * name ane; one sysfs does not know tells nothing, and the handshake
 * decides.
 */
static int node_check(struct ane_dev *dev)
{
	char path[64], target[PATH_MAX];
	const char *base;
	struct stat st;
	ssize_t n;

	if (fstat(dev->fd, &st))
		return ane__fail(dev, errno, "fstat");
	if (!S_ISCHR(st.st_mode))
		return ane__fail_hint(dev, ENOTTY,
				      "name an ane node, /dev/accel/accelN (`anectl list` shows them)",
				      "not an ane node: not a character device");
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device/driver",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		/* the device itself unknown to sysfs: nothing can be told */
		path[strlen(path) - strlen("/device/driver")] = '\0';
		if (access(path, F_OK))
			return 0;
		return ane__fail_hint(dev, ENODEV,
				      "name an ane node, /dev/accel/accelN (`anectl list` shows them)",
				      "not an ane node: character device %u:%u has no driver in sysfs",
				      major(st.st_rdev), minor(st.st_rdev));
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strcmp(base, "ane"))
		return ane__fail_hint(dev, ENODEV,
				      "name an ane node, /dev/accel/accelN (`anectl list` shows them)",
				      "not an ane node: its driver is '%s'", base);
	path[strlen(path) - strlen("/driver")] = '\0';
	if (!dir_is_emulated(path))
		return ane__fail_hint(dev, ENODEV, ANE_OTHER_HINT,
				      "not this ane: %s (no 'emulated' attribute in %s)",
				      ANE_OTHER_ANE, path);
	return 0;
}

/*
 * The DRM driver behind @dev: a driver named "ane" whose description is
 * not this one's is the other ane (a check that needs no sysfs).  A file
 * that is no DRM node is left to the handshake.
 */
static int drm_check(struct ane_dev *dev)
{
	char name[32] = "", date[32] = "", desc[128] = "";
	struct drm_version dv = {
		.name = name, .name_len = sizeof(name) - 1,
		.date = date, .date_len = sizeof(date) - 1,
		.desc = desc, .desc_len = sizeof(desc) - 1,
	};

	if (ioctl(dev->fd, DRM_IOCTL_VERSION, &dv) < 0)
		return 0;
	name[dv.name_len < sizeof(name) ? dv.name_len : sizeof(name) - 1] = '\0';
	desc[dv.desc_len < sizeof(desc) ? dv.desc_len : sizeof(desc) - 1] = '\0';
	if (!strcmp(name, "ane") && strcmp(desc, ANE_EMU_DRIVER_DESC))
		return ane__fail_hint(dev, ENODEV, ANE_OTHER_HINT,
				      "not this ane: %s (DRM driver 'ane', description '%s', not '%s')",
				      ANE_OTHER_ANE, desc, ANE_EMU_DRIVER_DESC);
	return 0;
}

static int cmp_accel(const void *a, const void *b)
{
	return atoi(*(char *const *)a + 5) - atoi(*(char *const *)b + 5);
}

int ane_find_node(unsigned int index, char *buf, size_t len)
{
	char *names[256];
	unsigned int n = 0, i, seen = 0;
	struct dirent *de;
	int ret = -ENODEV;
	DIR *d = opendir("/sys/class/accel");

	if (!d)
		return -ENODEV;
	while ((de = readdir(d)) && n < 256)
		if (!strncmp(de->d_name, "accel", 5) && de->d_name[5] &&
		    (names[n] = strdup(de->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_accel);
	for (i = 0; i < n; i++) {
		if (ret && node_is_ane(names[i]) && seen++ == index) {
			snprintf(buf, len, "/dev/accel/%s", names[i]);
			ret = 0;
		}
		free(names[i]);
	}
	return ret;
}

int ane_open(const char *node, enum ane_client_kind kind, struct ane_dev **out,
	     char *errbuf, size_t errlen)
{
	struct drm_ane_device_open op;
	struct ane_dev *dev;
	int ret;

	if (!out) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "ane_open: out is NULL: pass the address of a struct ane_dev pointer");
		return -EINVAL;
	}
	*out = NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		if (errbuf)
			snprintf(errbuf, errlen, "ane: out of memory");
		return -ENOMEM;
	}
	dev->fd = -1;
	dev->kind = kind;
	dev->timeout_ns = ane__timeout_default();
	ane__spin_init(dev);

	if (kind != ANE_KIND_CONTROL && kind != ANE_KIND_DIRECT) {
		ret = ane__fail(dev, EINVAL, "ane_open: kind %d is neither control (0) nor direct (1)",
			       (int)kind);
		goto fail;
	}
	if (node) {
		snprintf(dev->node, sizeof(dev->node), "%s", node);
	} else if (ane_find_node(0, dev->node, sizeof(dev->node))) {
		char other[300];

		if (!find_other_ane(other, sizeof(other)))
			ret = ane__fail_hint(dev, ENODEV, ANE_OTHER_HINT,
					     "no /dev/accel node is bound to this ane driver; %s is %s",
					     other, ANE_OTHER_ANE);
		else
			ret = ane__fail_hint(dev, ENODEV,
					     "is ane.ko loaded? (modprobe ane; ls /sys/class/accel)",
					     "no /dev/accel node is bound to the ane driver");
		goto fail;
	}

	dev->fd = open(dev->node, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		ret = ane__fail(dev, errno, "open");
		goto fail;
	}
	ret = node_check(dev);
	if (!ret)
		ret = drm_check(dev);
	if (ret)
		goto fail;

	memset(&op, 0, sizeof(op));
	op.in.usage_type = ANE_USAGE_STANDARD;
	op.in.callback = 0x1111222233334444ull;
	op.in.timeout = 10000;
	ret = ane_sel(dev, kind == ANE_KIND_CONTROL ? DRM_IOCTL_ANE_CTL_DEVICE_OPEN :
		      DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op,
		      kind == ANE_KIND_CONTROL ? "DeviceOpen (control selector 0)" :
		      "DeviceOpen (direct-path selector 0)");
	/* The node opened, but the file lacks the open capability. */
	if (ret == -EACCES)
		ret = ane__fail_hint(dev, EACCES,
				     "this file lacks the open capability: the administrator names a group of yours in /sys/module/ane/parameters/client_gid; `anectl doctor` says what to fix",
				     "%s", kind == ANE_KIND_CONTROL ?
				     "DeviceOpen (control selector 0)" :
				     "DeviceOpen (direct-path selector 0)");
	if (ret)
		goto fail;
	dev->info = op.out;
	dev->open = 1;
	*out = dev;
	return 0;

fail:
	if (errbuf)
		snprintf(errbuf, errlen, "%s", dev->err);
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev);
	return ret;
}

int ane_device_close(struct ane_dev *dev)
{
	int ret;

	if (!dev)
		return -EINVAL;
	if (!dev->open)
		return ane__fail(dev, ESHUTDOWN, "DeviceClose");
	ret = ane_sel(dev, dev->kind == ANE_KIND_CONTROL ? DRM_IOCTL_ANE_CTL_DEVICE_CLOSE :
		      DRM_IOCTL_ANE_DP_DEVICE_CLOSE, NULL, "DeviceClose (selector 1)");
	if (!ret)
		dev->open = 0;
	return ret;
}

void ane_close(struct ane_dev *dev)
{
	if (!dev)
		return;
	if (dev->open)
		ane_device_close(dev);
	close(dev->fd);
	free(dev->done);
	free(dev->inflight);
	free(dev->sr);
	free(dev);
}

int ane_adopt_fd(int fd, enum ane_client_kind kind, const char *name,
		 struct ane_dev **out)
{
	struct ane_dev *dev;

	*out = NULL;
	if (fd < 0)
		return -EBADF;
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		return -ENOMEM;
	}
	if (kind != ANE_KIND_CONTROL && kind != ANE_KIND_DIRECT) {
		close(fd);
		free(dev);
		return -EINVAL;
	}
	dev->fd = fd;
	dev->kind = kind;
	dev->open = 1;
	dev->timeout_ns = ane__timeout_default();
	ane__spin_init(dev);
	if (name)
		snprintf(dev->node, sizeof(dev->node), "%s", name);
	else
		snprintf(dev->node, sizeof(dev->node), "fd %d", fd);
	*out = dev;
	return 0;
}

int ane_get_version(struct ane_dev *dev, uint32_t *uapi, uint32_t *hw_version,
		    uint32_t *hw_minor)
{
	struct drm_ane_get_version v = { 0 };
	int ret;

	if (!dev)
		return -EINVAL;
	if (dev->kind != ANE_KIND_CONTROL)
		return ane__fail(dev, EBADRQC, "GetVersion (control selector 10) on a direct-path handle");
	ret = ane_sel(dev, DRM_IOCTL_ANE_CTL_GET_VERSION, &v,
		      "GetVersion (control selector 10)");
	if (ret)
		return ret;
	if (uapi)
		*uapi = (uint32_t)(v.version >> 32);
	if (hw_version)
		*hw_version = (uint32_t)(v.version >> 16) & 0xffff;
	if (hw_minor)
		*hw_minor = (uint32_t)v.version & 0xffff;
	return 0;
}

int ane_get_status(struct ane_dev *dev, struct drm_ane_status *st)
{
	struct drm_ane_get_status s;
	int ret;

	if (!dev)
		return -EINVAL;
	if (dev->kind != ANE_KIND_CONTROL)
		return ane__fail(dev, EBADRQC, "GetStatus (control selector 7) on a direct-path handle");
	memset(&s, 0, sizeof(s));
	ret = ane_sel(dev, DRM_IOCTL_ANE_CTL_GET_STATUS, &s, "GetStatus (control selector 7)");
	if (!ret && st)
		*st = s.out;
	return ret;
}

int ane_get_driver_version(struct ane_dev *dev, struct ane_driver_version *v)
{
	struct drm_version dv;

	if (!dev || !v)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	memset(&dv, 0, sizeof(dv));
	dv.name = v->name;
	dv.name_len = sizeof(v->name) - 1;
	dv.desc = v->desc;
	dv.desc_len = sizeof(v->desc) - 1;
	if (ioctl(dev->fd, DRM_IOCTL_VERSION, &dv) < 0)
		return ane__fail(dev, errno, "DRM_IOCTL_VERSION");
	v->major = dv.version_major;
	v->minor = dv.version_minor;
	v->patchlevel = dv.version_patchlevel;
	ane__ok(dev);
	return 0;
}

static int prop_uint(struct ane_dev *dev, const char *dir, const char *name,
		     unsigned int *val)
{
	char path[PATH_MAX], buf[64], *end;
	unsigned long v;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ret = read_sysfs(path, buf, sizeof(buf));
	if (ret)
		return ane__fail(dev, -ret, "reading property %s", path);
	errno = 0;
	v = strtoul(buf, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return ane__fail(dev, EINVAL, "property %s holds \"%s\", not a number",
				path, buf);
	*val = (unsigned int)v;
	return 0;
}

int ane_get_properties(struct ane_dev *dev, struct ane_properties *p)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], buf[32];
	const char *name;
	int ret;

	if (!dev || !p)
		return -EINVAL;
	name = strrchr(dev->node, '/');
	memset(p, 0, sizeof(*p));
	snprintf(dir, sizeof(dir), "/sys/class/accel/%s/device/properties",
		 name ? name + 1 : dev->node);
	snprintf(path, sizeof(path), "%s/architecture", dir);
	ret = read_sysfs(path, p->architecture, sizeof(p->architecture));
	if (ret)
		return ane__fail(dev, -ret, "reading property %s", path);
	snprintf(path, sizeof(path), "%s/internal_build", dir);
	ret = read_sysfs(path, buf, sizeof(buf));
	if (ret)
		return ane__fail(dev, -ret, "reading property %s", path);
	p->internal_build = strcmp(buf, "Yes") == 0;

	if ((ret = prop_uint(dev, dir, "version", &p->version)) ||
	    (ret = prop_uint(dev, dir, "minor_version", &p->minor_version)) ||
	    (ret = prop_uint(dev, dir, "board_type", &p->board_type)) ||
	    (ret = prop_uint(dev, dir, "board_subtype", &p->board_subtype)) ||
	    (ret = prop_uint(dev, dir, "num_cores", &p->num_cores)) ||
	    (ret = prop_uint(dev, dir, "num_engines", &p->num_engines)) ||
	    (ret = prop_uint(dev, dir, "cpu_subtype", &p->cpu_subtype)))
		return ret;
	ane__ok(dev);
	return 0;
}

const char *ane_fw_state_name(uint32_t state)
{
	switch (state) {
	case ANE_FW_STATE_OFF: return "off";
	case ANE_FW_STATE_BOOTING: return "booting";
	case ANE_FW_STATE_READY: return "ready";
	case ANE_FW_STATE_RECOVERING: return "recovering";
	case ANE_FW_STATE_DEAD: return "dead";
	case ANE_FW_STATE_SUSPENDED: return "suspended";
	default: return "unknown";
	}
}
