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

#include "ane_json.h"
#include "ane_opt.h"
#include "libane.h"
#include "anectl.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anectl [-d NODE] [--json] COMMAND [-d NODE] [--json] [ARG...]\n"
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
		"options (before or after COMMAND):\n"
		"  -d, --device NODE  the device node (default: every ane node)\n"
		"  --json         info, status, list, clients, shmem, models, top:\n"
		"                 one JSON document on stdout instead of the text\n"
		"  -h, --help     this help\n"
		"  -V, --version  libane's version\n");
}

int anectl_no_node(const char *prog)
{
	struct ane_dev *d = NULL;
	char err[512];

	if (ane_open(NULL, ANE_KIND_CONTROL, &d, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
	} else {
		ane_close(d);	/* one appeared meanwhile */
		fprintf(stderr, "%s: no /dev/accel node is bound to ane (is ane.ko loaded?)\n",
			prog);
	}
	return 1;
}

static int cmd_list(int json)
{
	struct json_object *a = json ? json_object_new_array() : NULL;
	char node[64];
	unsigned int i;

	for (i = 0; ane_find_node(i, node, sizeof(node)) == 0; i++) {
		if (a)
			json_object_array_add(a, json_object_new_string(node));
		else
			printf("%s\n", node);
	}
	if (a)
		ane_json_write(a, stdout, NULL);
	if (!i)
		return anectl_no_node("anectl");
	return 0;
}

/* The info of one device as JSON (anectl info --json). */
static struct json_object *info_json(struct ane_dev *dev, const struct ane_driver_version *dv,
				     const struct ane_properties *p, uint32_t uapi,
				     uint32_t hwv, uint32_t hwm, const struct drm_ane_status *st)
{
	const struct drm_ane_device_info_out *hs = ane_handshake(dev);
	struct json_object *o = json_object_new_object(), *d = json_object_new_object();
	struct json_object *pr = json_object_new_object(), *h = json_object_new_object();

	json_object_object_add(o, "node", json_object_new_string(ane_node(dev)));
	json_object_object_add(d, "name", json_object_new_string(dv->name));
	json_object_object_add(d, "major", json_object_new_int(dv->major));
	json_object_object_add(d, "minor", json_object_new_int(dv->minor));
	json_object_object_add(d, "patchlevel", json_object_new_int(dv->patchlevel));
	json_object_object_add(d, "desc", json_object_new_string(dv->desc));
	json_object_object_add(o, "driver", d);
	json_object_object_add(o, "uapi_version", json_object_new_int64(uapi));
	json_object_object_add(pr, "architecture", json_object_new_string(p->architecture));
	json_object_object_add(pr, "version", json_object_new_int64(p->version));
	json_object_object_add(pr, "minor_version", json_object_new_int64(p->minor_version));
	json_object_object_add(pr, "board_type", json_object_new_int64(p->board_type));
	json_object_object_add(pr, "board_subtype", json_object_new_int64(p->board_subtype));
	json_object_object_add(pr, "cores", json_object_new_int64(p->num_cores));
	json_object_object_add(pr, "engines", json_object_new_int64(p->num_engines));
	json_object_object_add(pr, "cpu_subtype", json_object_new_int64(p->cpu_subtype));
	json_object_object_add(pr, "internal_build", json_object_new_boolean(p->internal_build));
	json_object_object_add(o, "properties", pr);
	json_object_object_add(h, "token", json_object_new_uint64(hs->token));
	json_object_object_add(h, "callback", json_object_new_uint64(hs->callback));
	json_object_object_add(h, "timeout", json_object_new_uint64(hs->timeout));
	json_object_object_add(h, "ane_version", json_object_new_int64(hs->ane_version));
	json_object_object_add(h, "ane_version_ext", json_object_new_int64(hs->ane_version_ext));
	json_object_object_add(h, "engines", json_object_new_uint64(hs->num_engines));
	json_object_object_add(h, "cpu_subtype", json_object_new_uint64(hs->cpu_subtype));
	json_object_object_add(h, "hw_version", json_object_new_int64(hwv));
	json_object_object_add(h, "hw_minor", json_object_new_int64(hwm));
	json_object_object_add(o, "handshake", h);
	json_object_object_add(o, "firmware", json_object_new_string(ane_fw_state_name(st->fw_state)));
	return o;
}

static int info_one(const char *node, struct json_object *all)
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
	if (all) {
		json_object_array_add(all, info_json(dev, &dv, &p, uapi, hwv, hwm, &st));
		ane_close(dev);
		return 0;
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

static int cmd_info(const char *node, int json)
{
	struct json_object *all = json ? json_object_new_array() : NULL;
	char buf[64];
	unsigned int i = 0;
	int rc = 0;

	if (node) {
		rc = info_one(node, all);
		i = 1;
	}
	for (; !node && ane_find_node(i, buf, sizeof(buf)) == 0; i++) {
		if (i && !all)
			printf("\n");
		rc |= info_one(buf, all);
	}
	if (all)
		ane_json_write(all, stdout, NULL);
	if (!i)
		return anectl_no_node("anectl");
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

/* {"mask": N, "names": [...]} of a capability set. */
static struct json_object *caps_json(unsigned int caps)
{
	struct json_object *o = json_object_new_object(), *n = json_object_new_array();
	size_t i;

	json_object_object_add(o, "mask", json_object_new_int64(caps));
	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		if (caps & cap_names[i].bit)
			json_object_array_add(n, json_object_new_string(cap_names[i].name));
	json_object_object_add(o, "names", n);
	return o;
}

static int cmd_status(const char *node, int json)
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
	if (json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "node", json_object_new_string(ane_node(dev)));
		json_object_object_add(o, "firmware",
				       json_object_new_string(ane_fw_state_name(st.fw_state)));
		json_object_object_add(o, "client_flags", json_object_new_int64(st.client_flags));
		json_object_object_add(o, "caps",
				       caps_json(st.client_flags >> ANE_CLIENT_CAPS_SHIFT));
		json_object_object_add(o, "submitted", json_object_new_uint64(st.requests_submitted));
		json_object_object_add(o, "completed", json_object_new_uint64(st.requests_completed));
		json_object_object_add(o, "dart_faults", json_object_new_int64(st.dart_faults));
		ane_close(dev);
		return ane_json_write(o, stdout, NULL) ? 1 : 0;
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

static int cmd_power(const char *node, int argc, char **argv)
{
	static const char *const whats[] = { "status", "on", "off", "auto", "always-on", "delay" };
	const char *what = argc ? argv[0] : "status";
	char buf[256];
	uint64_t r = 0;
	size_t i;
	int fd, ret = 0;

	/* the arguments first, before any device */
	for (i = 0; i < sizeof(whats) / sizeof(whats[0]) && strcmp(what, whats[i]); i++)
		;
	if (i == sizeof(whats) / sizeof(whats[0]))
		return ane_usage_error("unknown '%s' (status, on, off, auto, always-on, delay MS)",
				       what);
	if (!strcmp(what, "delay")) {
		if (argc < 2)
			return ane_usage_error("delay needs one number of ms (0 to %u)",
					       ANE_POWER_HYSTERESIS_MAX_MS);
		/* the MS: 0 to ANE_POWER_HYSTERESIS_MAX_MS, decimal */
		if (ane_opt_u64("delay", argv[1], 0, ANE_POWER_HYSTERESIS_MAX_MS, "ms", &r))
			return 2;
	}
	if (argc > (!strcmp(what, "delay") ? 2 : 1))
		return ane_usage_error("unexpected operand '%s'",
				       argv[!strcmp(what, "delay") ? 2 : 1]);
	if (!node) {
		if (ane_find_node(0, buf, sizeof(buf)))
			return anectl_no_node("anectl power");
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
	} else {	/* delay */
		ret = power_method(fd, node, ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME,
				   r, NULL);
	}
	close(fd);
	return ret ? 1 : 0;
}

/* --------------------------------------------------------- diagnostics */

#define JSET(o, k, v) json_object_object_add(o, k, v)
#define JU64(v) json_object_new_uint64((uint64_t)(v))
#define JI64(v) json_object_new_int64((int64_t)(v))
#define JBOOL(v) json_object_new_boolean(!!(v))

/* One record of a diagnostics method as JSON. */
static struct json_object *diag_json(uint32_t m, const void *r)
{
	struct json_object *o = json_object_new_object();

	if (m == ANE_METHOD_GET_CLIENTS_INFO) {
		const struct drm_ane_client_info *c = r;

		JSET(o, "client", JU64(c->client_id));
		JSET(o, "pid", JI64(c->pid));
		JSET(o, "uid", JI64(c->uid));
		JSET(o, "caps", caps_json(c->caps));
		JSET(o, "state", JI64(c->state));
		JSET(o, "space", JI64(c->space));
		JSET(o, "programs", JI64(c->programs));
		JSET(o, "mappings", JI64(c->mappings));
		JSET(o, "cached_mappings", JI64(c->cached_mappings));
		JSET(o, "submitted", JU64(c->submitted));
		JSET(o, "completed", JU64(c->completed));
		JSET(o, "engine_ns", JU64(c->engine_ns));
		JSET(o, "self", JBOOL(c->flags & ANE_CLIENT_INFO_SELF));
	} else if (m == ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS) {
		const struct drm_ane_shmem_info *sh = r;

		JSET(o, "client", JU64(sh->client_id));
		JSET(o, "handle", JI64(sh->handle));
		JSET(o, "bytes", JU64(sh->size));
		JSET(o, "imported", JBOOL(sh->flags & ANE_SHMEM_IMPORTED));
		JSET(o, "exported", JBOOL(sh->flags & ANE_SHMEM_EXPORTED));
	} else {
		const struct drm_ane_model_info *p = r;

		JSET(o, "client", JU64(p->client_id));
		JSET(o, "image_bytes", JU64(p->image_bytes));
		JSET(o, "inter_bytes", JU64(p->inter_bytes));
		JSET(o, "weights_bytes", JU64(p->weights_bytes));
		JSET(o, "slot", JI64(p->slot));
		JSET(o, "fw_pid", JI64(p->fw_pid));
		JSET(o, "inflight", JI64(p->inflight));
		JSET(o, "prepared", JBOOL(p->flags & ANE_MODEL_PREPARED));
		JSET(o, "instance", JBOOL(p->flags & ANE_MODEL_INSTANCE));
		JSET(o, "attached", JBOOL(p->flags & ANE_MODEL_ATTACHED));
	}
	return o;
}

static int cmd_diag(const char *node, const char *name, uint32_t m, size_t rec, int json)
{
	struct drm_ane_method_buf a = { .method = m };
	char buf[256];
	void *recs;
	uint32_t i;
	int fd;

	if (!node) {
		if (ane_find_node(0, buf, sizeof(buf))) {
			char prog[64];

			snprintf(prog, sizeof(prog), "anectl %s", name);
			return anectl_no_node(prog);
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
	if (json) {
		struct json_object *o = json_object_new_object(), *list = json_object_new_array();

		for (i = 0; i < a.count; i++)
			json_object_array_add(list, diag_json(m, (const char *)recs + i * rec));
		JSET(o, "node", json_object_new_string(node));
		JSET(o, "total", JI64(a.total));
		JSET(o, name, list);
		free(recs);
		close(fd);
		return ane_json_write(o, stdout, NULL) ? 1 : 0;
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

/* ane_opt_bad(), and -d without its NODE says how to find one. */
int anectl_bad_opt(int o, char **argv)
{
	if (o == ':' && optopt == 'd')
		return ane_usage_error("-d needs a NODE (anectl list shows them)");
	return ane_opt_bad(o, argv);
}

/*
 * -d NODE, --json, -h and -V as getopt_long() with @optstring finds them
 * in @argv: -1 when the options end, else the status to exit with.
 */
static int common_opts(int argc, char **argv, const char *optstring,
		       const char **node, int *json)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	while ((o = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			if (!*optarg)
				return ane_usage_error("-d needs a NODE (anectl list shows them)");
			*node = optarg;
			break;
		case 'j':
			*json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("anectl (libane) %s\n", ane_version());
			return 0;
		default:
			return anectl_bad_opt(o, argv);
		}
	}
	return -1;
}

/* The commands; json: takes --json; args: most operands. */
static const struct {
	const char *name;
	int json, args;
} cmds[] = {
	{ "info", 1, 0 }, { "status", 1, 0 }, { "list", 1, 0 }, { "doctor", 0, 0 },
	{ "top", 1, 0 }, { "power", 0, 2 }, { "clients", 1, 0 }, { "shmem", 1, 0 },
	{ "models", 1, 0 },
};

int main(int argc, char **argv)
{
	static char prog[32];
	const char *node = NULL, *cmd;
	int o, json = 0, c;

	ane_opt_init("anectl");
	/* the options before COMMAND ('+': stop at it), then its own after it */
	o = common_opts(argc, argv, "+:d:hV", &node, &json);
	if (o >= 0)
		return o;
	if (optind >= argc)
		return ane_usage_error("missing COMMAND (anectl --help lists them)");
	cmd = argv[optind];
	for (c = 0; c < (int)(sizeof(cmds) / sizeof(cmds[0])) && strcmp(cmd, cmds[c].name); c++)
		;
	if (c == (int)(sizeof(cmds) / sizeof(cmds[0])))
		return ane_usage_error("unknown command '%s' (anectl --help lists them)", cmd);
	snprintf(prog, sizeof(prog), "anectl %s", cmd);
	ane_opt_init(prog);
	argc -= optind;
	argv += optind;
	if (!strcmp(cmd, "top"))	/* its own options besides -d and --json */
		return cmd_top(node, json, argc, argv);
	optind = 0;
	o = common_opts(argc, argv, ":d:hV", &node, &json);
	if (o >= 0)
		return o;
	if (json && !cmds[c].json)
		return ane_usage_error("--json: %s has no JSON output (info, status, list, top, clients, shmem and models have)",
				       cmd);
	if (ane_opt_operands(argc, argv, 0, cmds[c].args, NULL))
		return 2;
	argc -= optind;
	argv += optind;
	if (!strcmp(cmd, "info"))
		return cmd_info(node, json);
	if (!strcmp(cmd, "status"))
		return cmd_status(node, json);
	if (!strcmp(cmd, "list"))
		return cmd_list(json);
	if (!strcmp(cmd, "doctor"))
		return cmd_doctor(node);
	if (!strcmp(cmd, "power"))
		return cmd_power(node, argc, argv);
	if (!strcmp(cmd, "clients"))
		return cmd_diag(node, "clients", ANE_METHOD_GET_CLIENTS_INFO,
				sizeof(struct drm_ane_client_info), json);
	if (!strcmp(cmd, "shmem"))
		return cmd_diag(node, "surfaces", ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS,
				sizeof(struct drm_ane_shmem_info), json);
	return cmd_diag(node, "programs", ANE_METHOD_SHOW_MODEL_MEMORY_STATUS,
			sizeof(struct drm_ane_model_info), json);
}
