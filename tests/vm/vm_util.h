/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the VM tests.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_VM_UTIL_H
#define ANE_VM_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libane.h"

/*
 * The node under test: argv[1], or the first ane node.  Without one, print
 * a failed summary line for @suite and return -1.
 */
static inline int vm_node(int argc, char **argv, char *node, size_t len,
			  const char *suite)
{
	if (argc > 1) {
		snprintf(node, len, "%s", argv[1]);
		return 0;
	}
	if (ane_find_node(0, node, len) == 0)
		return 0;
	printf("not ok - no ane node found\n%s: 0 passed, 1 failed\n", suite);
	return -1;
}

/* Write @s to a sysfs or debugfs file: 0 or a negative errno. */
static inline int vm_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * The debugfs file @name of @node's device into @path: the accel debugfs
 * directory is named after the parent device.  0 or -1.
 */
static inline int vm_debugfs_path(const char *node, const char *name,
				  char *path, size_t len)
{
	char link[256], *dev;
	ssize_t n;

	snprintf(path, len, "/sys/class/accel/%s/device", strrchr(node, '/') + 1);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	dev = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(path, len, "/sys/kernel/debug/accel/%s/%s", dev, name);
	return 0;
}

#endif /* ANE_VM_UTIL_H */
