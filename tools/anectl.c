// SPDX-License-Identifier: MIT
/*
 * anectl: inspect emulated Apple Neural Engine devices.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libane.h"
#include "anectl.h"

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
const char *caps_str(unsigned int caps, char *buf, size_t len)
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

/* ---------------------------------------------------------- helpers */

/* snprintf() for paths and messages, where truncation only shortens them. */
void __attribute__((format(printf, 3, 4)))
sfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* The first line of a small file, without its newline; 0 or -errno. */
int read_line(const char *path, char *buf, size_t len)
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

/*
 * Open @node for the methods, which need no DeviceOpen: only if it is one
 * of ane's nodes (ane_find_node()), so that no ane ioctl reaches another
 * driver's device.  -1 with the message printed.
 */
static int open_ane_node(const char *cmd, const char *node)
{
	struct stat want, st;
	char path[256];
	unsigned int i;
	int fd;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "anectl %s: open %s: %s (anectl doctor explains)\n", cmd, node,
			strerror(errno));
		return -1;
	}
	if (!fstat(fd, &want) && S_ISCHR(want.st_mode))
		for (i = 0; !ane_find_node(i, path, sizeof(path)); i++)
			if (!stat(path, &st) && st.st_rdev == want.st_rdev)
				return fd;
	close(fd);
	fprintf(stderr, "anectl %s: %s is not an ane node (anectl list shows them)\n", cmd, node);
	return -1;
}

/* The MS of `power delay MS`: 0 to ANE_POWER_HYSTERESIS_MAX_MS, decimal. */
static int parse_delay(const char *s, uint64_t *ms)
{
	char *end;

	errno = 0;
	*ms = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s < '0' || *s > '9' ||
	    *ms > ANE_POWER_HYSTERESIS_MAX_MS) {
		fprintf(stderr, "anectl power: delay '%s' is not a number of ms from 0 to %u (EINVAL)\n",
			s, ANE_POWER_HYSTERESIS_MAX_MS);
		return -1;
	}
	return 0;
}

static int cmd_power(const char *node, int argc, char **argv)
{
	const char *what = argc ? argv[0] : "status";
	char buf[256];
	uint64_t r = 0;
	int fd, ret = 0;

	if (!strcmp(what, "delay") && (argc != 2 || parse_delay(argv[1], &r))) {
		if (argc != 2)
			fprintf(stderr, "anectl power: delay needs one number of ms (0 to %u)\n",
				ANE_POWER_HYSTERESIS_MAX_MS);
		return 2;
	}
	if (!node) {
		if (ane_find_node(0, buf, sizeof(buf))) {
			fprintf(stderr, "anectl power: no ane device (is the module loaded? anectl doctor)\n");
			return 1;
		}
		node = buf;
	}
	fd = open_ane_node("power", node);
	if (fd < 0)
		return 1;
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
	} else if (!strcmp(what, "delay")) {
		ret = power_method(fd, node, ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME,
				   r, NULL);
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
	fd = open_ane_node(name, node);
	if (fd < 0)
		return 1;
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

	if (i < argc && !strcmp(argv[i], "-d")) {
		if (i + 1 >= argc || !argv[i + 1][0]) {
			fprintf(stderr, "anectl: -d needs a NODE (anectl list shows them)\n");
			return 2;
		}
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
