// SPDX-License-Identifier: MIT
/*
 * Removing a device while a client holds it open: unbinding the platform
 * device makes the client's selectors fail with -ENODEV, closing is
 * safe, unloading is refused while the file is open, and binding again
 * gives a working device.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"

static void unbind_with_open_client_is_safe(void)
{
	struct drm_ane_get_status s;
	struct ane_dev *dev;
	char node[64], err[512];

	T_OK(ane_open(NULL, ANE_KIND_CONTROL, &dev, err, sizeof(err)));
	if (!dev) {
		printf("#   %s\n", err);
		t_case_failed = 1;
		return;
	}
	T_OK(ioctl(ane_fd(dev), DRM_IOCTL_ANE_CTL_GET_STATUS, &s));
	T_EQ(vm_write_file("/sys/bus/platform/drivers/ane/unbind", "ane.0"), 0);
	/* The device is gone; the file is still open. */
	T_ERRNO(ioctl(ane_fd(dev), DRM_IOCTL_ANE_CTL_GET_STATUS, &s), ENODEV);
	T_EQ(ane_find_node(0, node, sizeof(node)), -ENODEV);
	ane_close(dev);

	T_EQ(vm_write_file("/sys/bus/platform/drivers/ane/bind", "ane.0"), 0);
	T_OK(ane_open(NULL, ANE_KIND_CONTROL, &dev, err, sizeof(err)));
	if (dev) {
		T_OK(ane_get_status(dev, &s.out));
		ane_close(dev);
	}
}

static void unload_with_open_file_is_refused(void)
{
	int status, fd;
	pid_t pid;
	char node[64];

	T_OK(ane_find_node(0, node, sizeof(node)));
	fd = open(node, O_RDWR | O_CLOEXEC);
	T_CHECK(fd >= 0, "open %s", node);
	pid = fork();
	if (pid == 0) {
		execlp("rmmod", "rmmod", "ane", (char *)NULL);
		_exit(127);
	}
	T_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "waitpid");
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0,
		"rmmod succeeded with %s open", node);
	/* The device still works for the open file. */
	{
		struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };

		T_OK(ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
	}
	close(fd);
}

int main(void)
{
	T_RUN(unbind_with_open_client_is_safe);
	T_RUN(unload_with_open_file_is_refused);
	return t_summary("unplug");
}
