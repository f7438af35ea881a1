// SPDX-License-Identifier: MIT
/*
 * ABI tests run inside the VM against ane.ko: every selector's exact size
 * tuple, the client state machine, the DeviceOpen handshake, the working
 * selectors and the sysfs properties.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"

static char node[64];

/* All 26 selectors, and whether this version implements them. */
static const struct {
	unsigned long cmd;
	int direct;
	int implemented;
	const char *name;
} sels[] = {
	{ DRM_IOCTL_ANE_CTL_DEVICE_OPEN, 0, 1, "ctl DeviceOpen" },
	{ DRM_IOCTL_ANE_CTL_DEVICE_CLOSE, 0, 1, "ctl DeviceClose" },
	{ DRM_IOCTL_ANE_CTL_SEND_REQUEST, 0, 1, "ctl ProgramSendRequest" },
	{ DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, 0, 1, "ProgramCreate" },
	{ DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, 0, 1, "ProgramPrepare" },
	{ DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, 0, 1, "ProgramUnprepare" },
	{ DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, 0, 1, "ProgramDestroy" },
	{ DRM_IOCTL_ANE_CTL_GET_STATUS, 0, 1, "GetStatus" },
	{ DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, 0, 1, "ProgramCreateInstance" },
	{ DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, 0, 1, "ProgramChainingPrepare" },
	{ DRM_IOCTL_ANE_CTL_GET_VERSION, 0, 1, "GetVersion" },
	{ DRM_IOCTL_ANE_CTL_REGISTER_DWP, 0, 1, "RegisterDebugWorkProcessor" },
	{ DRM_IOCTL_ANE_CTL_UNREGISTER_DWP, 0, 1, "UnregisterDebugWorkProcessor" },
	{ DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 0, 1, "GetDebugWorkProcessorItem" },
	{ DRM_IOCTL_ANE_CTL_COMPLETE_DWP_ITEM, 0, 1, "CompleteDebugWorkProcessorItem" },
	{ DRM_IOCTL_ANE_CTL_RELEASE_DWP_BUFFERS, 0, 1, "ReleaseDebugWorkProcessorBuffers" },
	{ DRM_IOCTL_ANE_CTL_LOAD_FIRMWARE, 0, 0, "LoadFirmware" },
	{ DRM_IOCTL_ANE_DP_DEVICE_OPEN, 1, 1, "dp DeviceOpen" },
	{ DRM_IOCTL_ANE_DP_DEVICE_CLOSE, 1, 1, "dp DeviceClose" },
	{ DRM_IOCTL_ANE_DP_SEND_REQUEST, 1, 1, "dp ProgramSendRequest" },
	{ DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, 1, 1, "ProgramOutputSetEnqueue" },
	{ DRM_IOCTL_ANE_DP_INPUTS_READY, 1, 1, "ProgramInputsReady" },
	{ DRM_IOCTL_ANE_DP_MEMORY_MAP, 1, 1, "MemoryMapRequest" },
	{ DRM_IOCTL_ANE_DP_MEMORY_UNMAP, 1, 1, "MemoryUnMapRequest" },
	{ DRM_IOCTL_ANE_DP_SESSION_HINT, 1, 1, "SessionHintRequest" },
	{ DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, 1, 1, "ProgramChainingSetActiveProcedure" },
};
#define NSELS (sizeof(sels) / sizeof(sels[0]))

/* Big enough for any selector struct plus slack for the oversize probes. */
static union {
	uint8_t bytes[8192];
	uint64_t align;
} buf;

static int raw_open(void)
{
	int fd = open(node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		printf("#   open %s: %s\n", node, strerror(errno));
	return fd;
}

static int dev_open(int fd, unsigned long cmd, struct drm_ane_device_open *op)
{
	memset(op, 0, sizeof(*op));
	op->in.usage_type = ANE_USAGE_STANDARD;
	op->in.callback = 0x1111222233334444ull;
	op->in.receiver_context = 0xfeedface;
	op->in.timeout = 0x2710;
	return ioctl(fd, cmd, op);
}

static unsigned long with_size(unsigned long cmd, unsigned int size)
{
	return (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	       ((unsigned long)size << _IOC_SIZESHIFT);
}

static unsigned long with_dir(unsigned long cmd, unsigned int dir)
{
	return (cmd & ~((unsigned long)_IOC_DIRMASK << _IOC_DIRSHIFT)) |
	       ((unsigned long)dir << _IOC_DIRSHIFT);
}

static void driver_answers_as_ane(void)
{
	struct drm_version v;
	char name[32] = "";
	int fd = raw_open();

	T_CHECK(fd >= 0, "open");
	memset(&v, 0, sizeof(v));
	v.name = name;
	v.name_len = sizeof(name) - 1;
	T_OK(ioctl(fd, DRM_IOCTL_VERSION, &v));
	T_CHECK(!strcmp(name, "ane"), "driver name \"%s\"", name);
	close(fd);
}

/* Any size but the tuple's is -EINVAL before the handler (and state) runs. */
static void every_selector_refuses_any_other_size(void)
{
	struct drm_ane_device_open op;
	unsigned int i, size;
	int fd = raw_open();

	for (i = 0; i < NSELS; i++) {
		size = _IOC_SIZE(sels[i].cmd);
		memset(&buf, 0, sizeof(buf));
		T_ERRNO(ioctl(fd, with_size(sels[i].cmd, size + 1), &buf), EINVAL);
		T_ERRNO(ioctl(fd, with_size(sels[i].cmd, size + 8), &buf), EINVAL);
		if (size)
			T_ERRNO(ioctl(fd, with_size(sels[i].cmd, size - 1), &buf), EINVAL);
		if (size > 8)
			T_ERRNO(ioctl(fd, with_size(sels[i].cmd, 8), &buf), EINVAL);
		/* The right size with another direction is refused too. */
		T_ERRNO(ioctl(fd, with_dir(sels[i].cmd, _IOC_DIR(sels[i].cmd) ^ _IOC_WRITE),
			      &buf), EINVAL);
	}
	/* None of those opened the client. */
	T_OK(dev_open(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	close(fd);
}

static void selectors_before_device_open_are_not_connected(void)
{
	unsigned int i;
	int fd = raw_open();

	for (i = 0; i < NSELS; i++) {
		if (sels[i].cmd == DRM_IOCTL_ANE_CTL_DEVICE_OPEN ||
		    sels[i].cmd == DRM_IOCTL_ANE_DP_DEVICE_OPEN)
			continue;
		memset(&buf, 0, sizeof(buf));
		T_ERRNO(ioctl(fd, sels[i].cmd, &buf), ENOTCONN);
	}
	close(fd);
}

static void device_open_handshake_matches_table_27_3(void)
{
	struct drm_ane_device_open op;
	int fd = raw_open();

	T_OK(dev_open(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	T_CHECK(op.out.token != 0, "token is zero");
	T_EQ(op.out.callback, 0x1111222233334444ull);
	T_EQ(op.out.receiver_context, 0xfeedface);
	T_EQ(op.out.timeout, 0x2710);
	T_EQ(op.out.ane_version, 0x20);
	T_EQ(op.out.ane_version_ext, 256);
	T_EQ(op.out.num_engines, 1);
	T_EQ(op.out.cpu_subtype, 4);
	T_EQ(op.out.reserved0[0] | op.out.reserved0[4] | op.out.reserved1, 0);
	close(fd);
}

static void device_open_validates_its_fields(void)
{
	struct drm_ane_device_open op;
	int fd = raw_open();

	dev_open(-1, 0, &op);
	op.in.usage_type = ANE_USAGE_UNSUPPORTED;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op), EOPNOTSUPP);
	op.in.usage_type = 0;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op), EINVAL);
	op.in.usage_type = 3;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op), EINVAL);
	op.in.usage_type = ANE_USAGE_STANDARD;
	op.in.pad[6] = 1;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op), EINVAL);
	op.in.pad[6] = 0;
	op.in.reserved[8] = 1;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op), EINVAL);
	/* Refusals leave the client unopened: a good open still works. */
	T_OK(dev_open(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	close(fd);
}

static void open_client_refuses_other_space_and_reopen(void)
{
	struct drm_ane_device_open op;
	unsigned int i;
	int fd = raw_open();

	T_OK(dev_open(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	T_ERRNO(dev_open(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op), EISCONN);
	for (i = 0; i < NSELS; i++) {
		if (!sels[i].direct)
			continue;
		memset(&buf, 0, sizeof(buf));
		T_ERRNO(ioctl(fd, sels[i].cmd, &buf), EBADRQC);
	}
	close(fd);

	fd = raw_open();
	T_OK(dev_open(fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op));
	for (i = 0; i < NSELS; i++) {
		if (sels[i].direct)
			continue;
		memset(&buf, 0, sizeof(buf));
		T_ERRNO(ioctl(fd, sels[i].cmd, &buf), EBADRQC);
	}
	close(fd);
}

static void unimplemented_selectors_are_unsupported(void)
{
	struct drm_ane_device_open op;
	unsigned int i;
	int cfd = raw_open(), dfd = raw_open();

	T_OK(dev_open(cfd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	T_OK(dev_open(dfd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op));
	for (i = 0; i < NSELS; i++) {
		if (sels[i].implemented)
			continue;
		memset(&buf, 0, sizeof(buf));
		errno = 0;
		T_ERRNO(ioctl(sels[i].direct ? dfd : cfd, sels[i].cmd, &buf), EOPNOTSUPP);
		if (errno != EOPNOTSUPP)
			printf("#   selector %s\n", sels[i].name);
	}
	close(cfd);
	close(dfd);
}

static void version_and_status_answer(void)
{
	struct drm_ane_device_open op;
	struct drm_ane_get_version v;
	struct drm_ane_get_status s;
	int fd = raw_open();

	T_OK(dev_open(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	memset(&v, 0xff, sizeof(v));
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_GET_VERSION, &v));
	T_EQ(v.version >> 32, ANE_UAPI_VERSION);
	T_EQ((v.version >> 16) & 0xffff, 0x60);
	T_EQ(v.version & 0xffff, 17);
	memset(&s, 0xff, sizeof(s));
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &s));
	T_CHECK(s.out.client_flags & ANE_CLIENT_CONTROL, "flags 0x%x", s.out.client_flags);
	T_CHECK(!(s.out.client_flags & ANE_CLIENT_DIRECT), "flags 0x%x", s.out.client_flags);
	/* The VM runs as root: the privileged capability is set at open. */
	T_CHECK(s.out.client_flags & ANE_CLIENT_PRIVILEGED, "flags 0x%x", s.out.client_flags);
	T_CHECK(s.out.fw_state <= ANE_FW_STATE_DEAD, "fw_state %u", s.out.fw_state);
	T_EQ(s.out.requests_submitted, 0);
	T_EQ(s.out.requests_completed, 0);
	close(fd);
}

static void device_close_shuts_the_client(void)
{
	struct drm_ane_device_open op;
	struct drm_ane_get_status s;
	int fd = raw_open();

	T_OK(dev_open(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_CLOSE));
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_GET_STATUS, &s), ESHUTDOWN);
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_CLOSE), ESHUTDOWN);
	T_ERRNO(dev_open(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op), ESHUTDOWN);
	T_ERRNO(dev_open(fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op), ESHUTDOWN);
	close(fd);
}

static void tokens_are_distinct(void)
{
	struct drm_ane_device_open a, b;
	int fa = raw_open(), fb = raw_open();

	T_OK(dev_open(fa, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &a));
	T_OK(dev_open(fb, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &b));
	T_CHECK(a.out.token != b.out.token, "both 0x%llx", (unsigned long long)a.out.token);
	close(fa);
	close(fb);
}

static void properties_match_table_27_9(void)
{
	struct ane_properties p;
	struct ane_dev *dev;
	char err[512];

	T_OK(ane_open(node, ANE_KIND_CONTROL, &dev, err, sizeof(err)));
	if (!dev) {
		printf("#   %s\n", err);
		t_case_failed = 1;
		return;
	}
	T_OK(ane_get_properties(dev, &p));
	T_CHECK(!strcmp(p.architecture, "h13g"), "architecture %s", p.architecture);
	T_EQ(p.version, 96);
	T_EQ(p.minor_version, 17);
	T_EQ(p.board_type, 96);
	T_EQ(p.board_subtype, 0);
	T_EQ(p.num_cores, 16);
	T_EQ(p.num_engines, 1);
	T_EQ(p.cpu_subtype, 4);
	T_EQ(p.internal_build, 0);
	ane_close(dev);
}

static void libane_reports_selector_errors(void)
{
	struct drm_ane_status st;
	struct ane_dev *dev;
	char err[512];

	T_OK(ane_open(node, ANE_KIND_DIRECT, &dev, err, sizeof(err)));
	if (!dev) {
		t_case_failed = 1;
		return;
	}
	T_EQ(ane_get_status(dev, &st), -EBADRQC);
	T_CHECK(strstr(ane_errmsg(dev), node) && strstr(ane_errmsg(dev), "EBADRQC") &&
		strstr(ane_errmsg(dev), "GetStatus"), "message: %s", ane_errmsg(dev));
	T_OK(ane_device_close(dev));
	T_EQ(ane_device_close(dev), -ESHUTDOWN);
	ane_close(dev);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "abi"))
		return 1;
	printf("# testing %s\n", node);
	T_RUN(driver_answers_as_ane);
	T_RUN(every_selector_refuses_any_other_size);
	T_RUN(selectors_before_device_open_are_not_connected);
	T_RUN(device_open_handshake_matches_table_27_3);
	T_RUN(device_open_validates_its_fields);
	T_RUN(open_client_refuses_other_space_and_reopen);
	T_RUN(unimplemented_selectors_are_unsupported);
	T_RUN(version_and_status_answer);
	T_RUN(device_close_shuts_the_client);
	T_RUN(tokens_are_distinct);
	T_RUN(properties_match_table_27_9);
	T_RUN(libane_reports_selector_errors);
	return t_summary("abi");
}
