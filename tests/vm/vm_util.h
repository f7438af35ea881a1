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
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
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
 * Name @gid the client group of ane's capability model (the client_gid
 * parameter, Documentation/accel/ane/security.rst; -1: none): the VM
 * harness grants its unprivileged users the engine as an administrator
 * grants the render group.  0 or a negative errno.
 */
static inline int vm_client_gid(int gid)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", gid);
	return vm_write_file("/sys/module/ane/parameters/client_gid", v);
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

/* A device attribute of @node in sysfs, as a number; ~0 when unreadable. */
static inline unsigned long long vm_dev_attr_u64(const char *node,
						 const char *name)
{
	unsigned long long v = ~0ull;
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/accel/%s/device/%s",
		 strrchr(node, '/') + 1, name);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = ~0ull;
		fclose(f);
	}
	return v;
}

/*
 * The number after @key in @node's debugfs file @name (strtoll() base
 * @base: 0 takes a 0x prefix), or -1.
 */
static inline long long vm_debugfs_num(const char *node, const char *name,
				       const char *key, int base)
{
	char path[512], buf[8192], *at;
	long long v = -1;
	ssize_t n;
	int fd;

	if (vm_debugfs_path(node, name, path, sizeof(path)))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	at = strstr(buf, key);
	if (at)
		v = strtoll(at + strlen(key), NULL, base);
	return v;
}

/* The number after @key in @node's debugfs fw_status, or -1. */
static inline long long vm_fw_status(const char *node, const char *key)
{
	return vm_debugfs_num(node, "fw_status", key, 10);
}

/*
 * Run @argv (searched in PATH) with stdout and stderr into @out (@len
 * bytes, NUL-terminated), as user and group @uid unless @uid is 0.
 * Return: its exit status, or -1 if it could not run or did not exit.
 */
static inline int vm_run_capture(const char *const argv[], uid_t uid,
				 char *out, size_t len)
{
	size_t got = 0;
	int p[2], status;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	fflush(stdout);
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 1);
		dup2(p[1], 2);
		if (uid && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(126);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	while (got < len - 1 && (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* ANE_VM_UTIL_H */
