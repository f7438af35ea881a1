// SPDX-License-Identifier: MIT
/*
 * The methods of Table 27.5 beyond power (Documentation/accel/ane/methods.rst):
 * the DART controls, the privileged register, command and doorbell
 * methods, and the diagnostics.  Every bad input with its errno, every
 * gate from nobody, from root and from a root file with ANE_CAP_PRIV_VM
 * dropped; SendCommand fuzzed with random words, the engine still
 * running a request afterwards; the diagnostics checked against what the
 * test made, in debugfs and by `anectl clients`, `shmem` and `models`.
 * Expects anectl in $PATH.
 *
 * Copyright (C) 2026 The ane authors
 */
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"
#include "vm/prog_util.h"
#include "../../firmware/spec/ane_regs.h"

#define NOBODY		65534

/*
 * The firmware's command header and the ids the test sends
 * (firmware/spec/ane_fw_abi.h, Documentation/accel/ane/firmware.rst; that
 * header is the kernel's and does not build in userspace).
 */
struct ane_fw_cmd_hdr {
	uint32_t id;
	uint32_t size;
	uint32_t priority;
	int32_t program_id;
	int32_t process_id;
	uint32_t procedure_id;
};

struct ane_fw_resource_info {
	uint32_t num_engines, max_cache_requests, max_cache_inputs, max_procedures;
	uint32_t max_programs, max_inflight, num_hw_queues, pad;
};

#define ANE_FW_ID_REPLY			0x80000000u
#define ANE_CTL_STOP			0x02
#define ANE_CTL_PING			0x09
#define ANE_CTL_CH_PROPERTY_WRITE	0x1e
#define ANE_CTL_CH_PROPERTY_READ	0x1f
#define ANE_CTL_RESOURCE_INFO_GET	0x22
#define ANE_CTL_LOAD_PROGRAM		0x38
#define ANE_CTL_COUNT			0x5d

#define HDR		((uint32_t)sizeof(struct ane_fw_cmd_hdr))

static uint8_t img[IMG_SIZE];

static int method(int fd, uint32_t m, uint64_t value, uint64_t *result)
{
	struct drm_ane_method_args a = { .method = m, .value = value };
	int ret = ioctl(fd, DRM_IOCTL_ANE_METHOD, &a);

	if (!ret && result)
		*result = a.result;
	return ret;
}

static int mbuf(int fd, uint32_t m, void *p, uint32_t size,
		struct drm_ane_method_buf *out)
{
	struct drm_ane_method_buf a = { .method = m, .ptr = (uintptr_t)p,
					.size = size };
	int ret = ioctl(fd, DRM_IOCTL_ANE_METHOD_BUF, &a);

	if (out)
		*out = a;
	return ret;
}

static int reg_read(int fd, uint32_t bank, uint32_t off, uint64_t *v)
{
	return method(fd, ANE_METHOD_READ_ANE_REGISTER,
		      ANE_METHOD_REG(bank, off, 0), v);
}

static int reg_write(int fd, uint32_t bank, uint32_t off, uint32_t v)
{
	return method(fd, ANE_METHOD_WRITE_ANE_REGISTER,
		      ANE_METHOD_REG(bank, off, v), NULL);
}

/* A control command @id with @len bytes of @body; reply in @buf. */
static int send_cmd(int fd, uint32_t id, const void *body, uint32_t len,
		    uint8_t *buf, uint32_t bufsize, uint32_t *reply_len)
{
	struct ane_fw_cmd_hdr h = { .id = id, .size = len, .program_id = -1,
				    .process_id = -1 };
	struct drm_ane_method_buf a;
	int ret;

	if (HDR + len > bufsize)
		return -1;
	memcpy(buf, &h, HDR);
	memcpy(buf + HDR, body, len);
	ret = mbuf(fd, ANE_METHOD_SEND_COMMAND, buf, HDR + len, &a);
	if (reply_len)
		*reply_len = a.len;
	return ret;
}

static int ctl_fd(void)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
	int fd = open(node, O_RDWR | O_CLOEXEC);

	if (fd >= 0 && ioctl(fd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int drop_priv(int fd)
{
	struct drm_ane_caps_drop q = { .drop = ANE_CAP_PRIV_VM };

	return ioctl(fd, DRM_IOCTL_ANE_CAPS_DROP, &q);
}

/* This file's GetClientsInfo record; -1 if it has none. */
static int self_info(int fd, struct drm_ane_client_info *ci)
{
	static struct drm_ane_client_info r[64];
	struct drm_ane_method_buf a;
	uint32_t i;

	if (mbuf(fd, ANE_METHOD_GET_CLIENTS_INFO, r, sizeof(r), &a))
		return -1;
	for (i = 0; i < a.count; i++)
		if (r[i].flags & ANE_CLIENT_INFO_SELF) {
			*ci = r[i];
			return 0;
		}
	return -1;
}

static uint32_t cached_maps(int fd)
{
	struct drm_ane_client_info ci;

	return self_info(fd, &ci) ? ~0u : ci.cached_mappings;
}

/* A prepared program on @fd; its token. */
static int program(int fd, uint64_t *tok)
{
	struct drm_ane_program_prepare pp;

	build_image(img, W);
	return create(fd, img, IMG_SIZE, tok) || prepare(fd, *tok, &pp) ? -1 : 0;
}

/* One request on @in/@out; its answer checked. */
static void run(int fd, uint64_t tok, struct surf *in, struct surf *out)
{
	struct drm_ane_event_complete ev;

	fill_input(in);
	memset(out->p, 0xff, 8);
	T_OK(submit(fd, tok, in->handle, out->handle, 0, NULL));
	T_OK(wait_event(fd, &ev));
	T_EQ(ev.status, 0);
	T_EQ(check_out(out, OUT), 0);
}

/* The canary: a fresh client runs one request and gets its answer. */
static void canary(void)
{
	struct surf in, out;
	uint64_t tok;
	int fd = ctl_fd();

	if (fd < 0 || program(fd, &tok) || surface(fd, 12, &in) ||
	    surface(fd, 8, &out)) {
		T_CHECK(0, "canary setup: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	run(fd, tok, &in, &out);
	munmap(in.p, PAGE16K);
	munmap(out.p, PAGE16K);
	close(fd);
}

/* ------------------------------------------------------------ bad inputs */

static void bad_inputs_have_their_errno(void)
{
	struct drm_ane_method_args ma = { .method = ANE_METHOD_READ_ANE_REGISTER };
	struct drm_ane_method_buf a = { .method = ANE_METHOD_GET_CLIENTS_INFO };
	struct drm_ane_client_info ci[2];
	uint8_t buf[64];
	int fd = ctl_fd();

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	/* the buffer ioctl: flags, reserved, methods without a buffer */
	a.flags = 1;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_METHOD_BUF, &a), EINVAL);
	a.flags = 0;
	a.reserved[1] = 1;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_METHOD_BUF, &a), EINVAL);
	T_ERRNO(mbuf(fd, ANE_METHOD_POWER_ON, ci, sizeof(ci), NULL), EINVAL);
	T_ERRNO(mbuf(fd, ANE_METHOD_READ_ANE_REGISTER, ci, sizeof(ci), NULL), EINVAL);
	T_ERRNO(mbuf(fd, 20, ci, sizeof(ci), NULL), EINVAL);
	/* the scalar ioctl: the buffer methods and reserved fields */
	T_ERRNO(method(fd, ANE_METHOD_SEND_COMMAND, 0, NULL), EINVAL);
	T_ERRNO(method(fd, ANE_METHOD_GET_CLIENTS_INFO, 0, NULL), EINVAL);
	T_ERRNO(method(fd, ANE_METHOD_SHOW_MODEL_MEMORY_STATUS, 0, NULL), EINVAL);
	ma.reserved[0] = 1;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_METHOD, &ma), EINVAL);
	ma.reserved[0] = 0;
	ma.flags = 1;
	T_ERRNO(ioctl(fd, DRM_IOCTL_ANE_METHOD, &ma), EINVAL);
	/* diagnostics: shorter than a record, unwritable, a count query */
	T_ERRNO(mbuf(fd, ANE_METHOD_GET_CLIENTS_INFO, ci, sizeof(ci[0]) - 1, NULL), EINVAL);
	T_ERRNO(mbuf(fd, ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS, ci,
		     sizeof(struct drm_ane_shmem_info) - 8, NULL), EINVAL);
	T_ERRNO(mbuf(fd, ANE_METHOD_SHOW_MODEL_MEMORY_STATUS, ci, 1, NULL), EINVAL);
	T_ERRNO(mbuf(fd, ANE_METHOD_GET_CLIENTS_INFO, (void *)8, sizeof(ci), NULL), EFAULT);
	T_OK(mbuf(fd, ANE_METHOD_GET_CLIENTS_INFO, NULL, 0, &a));
	T_EQ(a.count, 0);
	T_EQ(a.len, 0);
	T_CHECK(a.total >= 1, "total %u", a.total);
	/* DART controls */
	T_ERRNO(method(fd, ANE_METHOD_SET_DART_CACHE_TTL, ANE_DART_CACHE_TTL_MAX_MS + 1, NULL),
		EINVAL);
	T_ERRNO(method(fd, ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS, 2, NULL), EINVAL);
	T_ERRNO(method(fd, ANE_METHOD_UNMAP_DART_BUFFERS, ~0ull, NULL), ESRCH);
	/* registers: bank, alignment, range, a read with a value, the set */
	T_ERRNO(reg_read(fd, ANE_NUM_BANKS, 0, NULL), EINVAL);
	T_ERRNO(reg_read(fd, 0xff, 0, NULL), EINVAL);
	T_ERRNO(reg_read(fd, ANE_BANK_ANE, ANE_REG_CHIP_REV + 2, NULL), EINVAL);
	T_ERRNO(reg_read(fd, ANE_BANK_ANE, ANE_BANK_ANE_SIZE, NULL), ERANGE);
	T_ERRNO(reg_read(fd, ANE_BANK_PS, ANE_BANK_SMALL_SIZE, NULL), ERANGE);
	T_ERRNO(reg_read(fd, ANE_BANK_HAL3, 0xfffffc, NULL), ERANGE);
	T_ERRNO(method(fd, ANE_METHOD_READ_ANE_REGISTER,
		       ANE_METHOD_REG(ANE_BANK_ANE, ANE_REG_CHIP_REV, 1), NULL), EINVAL);
	T_ERRNO(reg_write(fd, ANE_BANK_ANE, ANE_REG_CHIP_REV, 0), EACCES);
	T_ERRNO(reg_write(fd, ANE_BANK_ANE, ANE_REG_CPU_CTRL, 0), EACCES);
	T_ERRNO(reg_write(fd, ANE_BANK_ANE, ANE_REG_FW_DOORBELL, 2), EACCES);
	T_ERRNO(reg_write(fd, ANE_BANK_ANE, ANE_REG_Q_ENABLE(0), 0), EACCES);
	T_ERRNO(reg_write(fd, ANE_BANK_PTD, 0xfc, 0), EACCES);
	T_ERRNO(reg_write(fd, ANE_BANK_PS, 0, 0), EACCES);
	T_ERRNO(reg_write(fd, ANE_BANK_PWGATE, 0, 0), EACCES);
	T_ERRNO(reg_write(fd, ANE_BANK_ANE, ANE_BANK_ANE_SIZE + 4, 0), ERANGE);
	/* the doorbell: the boot handshake's, and past the host's bits */
	T_ERRNO(method(fd, ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING, 0, NULL), EACCES);
	T_ERRNO(method(fd, ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING, 5, NULL), EINVAL);
	T_ERRNO(method(fd, ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING, 31, NULL), EINVAL);
	/* SendCommand: short, sizes that lie, too long, the host's commands */
	T_ERRNO(mbuf(fd, ANE_METHOD_SEND_COMMAND, buf, HDR - 1, NULL), EBADMSG);
	T_ERRNO(mbuf(fd, ANE_METHOD_SEND_COMMAND, NULL, HDR, NULL), EFAULT);
	{
		struct ane_fw_cmd_hdr h = { .id = ANE_CTL_PING, .size = 8 };

		memcpy(buf, &h, HDR);
		T_ERRNO(mbuf(fd, ANE_METHOD_SEND_COMMAND, buf, HDR + 4, NULL), EBADMSG);
		T_ERRNO(mbuf(fd, ANE_METHOD_SEND_COMMAND, buf, ANE_METHOD_CMD_MAX + 1, NULL),
			E2BIG);
	}
	{
		static uint8_t big[ANE_METHOD_CMD_MAX];
		struct ane_fw_cmd_hdr h = { .id = ANE_CTL_PING,
					    .size = ANE_METHOD_CMD_MAX - HDR };

		memcpy(big, &h, HDR);
		T_ERRNO(mbuf(fd, ANE_METHOD_SEND_COMMAND, big, ANE_METHOD_CMD_MAX, NULL),
			EMSGSIZE);
	}
	T_ERRNO(send_cmd(fd, ANE_CTL_LOAD_PROGRAM, NULL, 0, buf, sizeof(buf), NULL), EACCES);
	T_ERRNO(send_cmd(fd, ANE_CTL_STOP, NULL, 0, buf, sizeof(buf), NULL), EACCES);
	T_ERRNO(send_cmd(fd, ANE_CTL_CH_PROPERTY_WRITE, NULL, 0, buf, sizeof(buf), NULL),
		EACCES);
	T_ERRNO(send_cmd(fd, ANE_CTL_PING | ANE_FW_ID_REPLY, NULL, 0, buf, sizeof(buf), NULL),
		EACCES);
	close(fd);
}

/* ----------------------------------------------------------------- gates */

/* Each gated method: granted (anything but EPERM) or refused with EPERM. */
static void gates(int fd, int granted)
{
	uint8_t buf[64];
	uint64_t r;
	int ret;

#define GATE(call) do { \
	ret = (call); \
	if (granted) \
		T_CHECK(ret == 0, "refused: %s", strerror(errno)); \
	else \
		T_CHECK(ret < 0 && errno == EPERM, "returned %d errno %d (%s), expected EPERM", \
			ret, ret < 0 ? errno : 0, strerror(errno)); \
} while (0)
	GATE(method(fd, ANE_METHOD_SET_DART_CACHE_TTL, 0, &r));
	GATE(method(fd, ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS, 1, &r));
	GATE(reg_read(fd, ANE_BANK_ANE, ANE_REG_CHIP_REV, &r));
	GATE(reg_write(fd, ANE_BANK_HAL1, 0, 0));
	GATE(method(fd, ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING, 1, NULL));
	GATE(send_cmd(fd, ANE_CTL_PING, "ping", 4, buf, sizeof(buf), NULL));
	/* refused before the arguments are looked at */
	if (!granted) {
		T_ERRNO(reg_write(fd, ANE_BANK_ANE, ANE_REG_CHIP_REV, 0), EPERM);
		T_ERRNO(method(fd, ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS, 1, NULL), EPERM);
		T_ERRNO(send_cmd(fd, ANE_CTL_LOAD_PROGRAM, NULL, 0, buf, sizeof(buf), NULL),
			EPERM);
	}
#undef GATE
	/* ungated: the caller's own mappings and its own records */
	T_OK(method(fd, ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS, 0, &r));
	T_OK(method(fd, ANE_METHOD_UNMAP_DART_BUFFERS, 0, &r));
	T_OK(mbuf(fd, ANE_METHOD_GET_CLIENTS_INFO, NULL, 0, NULL));
	T_OK(mbuf(fd, ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS, NULL, 0, NULL));
	T_OK(mbuf(fd, ANE_METHOD_SHOW_MODEL_MEMORY_STATUS, NULL, 0, NULL));
}

static void nobody_body(void)
{
	struct drm_ane_client_info ci[8];
	struct drm_ane_method_buf a;
	int fd = open(node, O_RDWR | O_CLOEXEC);
	uint64_t root_id;

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	gates(fd, 0);
	/* its own record only, though root has a file open */
	T_OK(mbuf(fd, ANE_METHOD_GET_CLIENTS_INFO, ci, sizeof(ci), &a));
	T_EQ(a.total, 1);
	T_EQ(a.count, 1);
	T_EQ(ci[0].flags, ANE_CLIENT_INFO_SELF);
	T_EQ(ci[0].uid, NOBODY);
	T_EQ(ci[0].pid, getpid());
	T_EQ(ci[0].caps, 0);
	/* another client's buffers: the privileged check */
	root_id = ci[0].client_id - 1;
	T_ERRNO(method(fd, ANE_METHOD_UNMAP_DART_BUFFERS, root_id, NULL), EPERM);
	close(fd);
}

static void every_gate_from_nobody_root_and_dropped_root(void)
{
	int root = ctl_fd(), dropped = ctl_fd(), status;
	pid_t pid;

	T_CHECK(root >= 0 && dropped >= 0, "open: %s", strerror(errno));
	gates(root, 1);
	T_OK(drop_priv(dropped));
	gates(dropped, 0);
	/* nobody, on a node everyone may open, with no capability at all */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		t_case_failed = 0;
		nobody_body();
		fflush(stdout);
		_exit(t_case_failed);
	}
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "nobody's child: 0x%x", status);
	close(root);
	close(dropped);
}

/* ------------------------------------------------------------- registers */

static void registers_read_and_write_within_the_map(void)
{
	int fd = ctl_fd();
	uint64_t v = 0;

	T_OK(reg_read(fd, ANE_BANK_ANE, ANE_REG_CHIP_REV, &v));
	T_EQ(v, ANE_CHIP_REV_H13G);
	T_OK(reg_read(fd, ANE_BANK_ANE, ANE_REG_CPU_STATUS, &v));
	T_EQ(v, ANE_CPU_RUNNING);
	/* the last word of each bank answers */
	T_OK(reg_read(fd, ANE_BANK_ANE, ANE_BANK_ANE_SIZE - 4, &v));
	T_OK(reg_read(fd, ANE_BANK_PTD, ANE_BANK_SMALL_SIZE - 4, &v));
	/* the writable set: HAL banks, the engine's speed */
	T_OK(reg_write(fd, ANE_BANK_HAL2, 0x40, 0xdeadbeef));
	T_OK(reg_read(fd, ANE_BANK_HAL2, 0x40, &v));
	T_EQ(v, 0xdeadbeef);
	T_OK(reg_write(fd, ANE_BANK_HAL2, 0x40, 0));
	T_OK(reg_write(fd, ANE_BANK_ANE, ANE_REG_ENG_THROTTLE, 50));
	T_OK(reg_read(fd, ANE_BANK_ANE, ANE_REG_ENG_THROTTLE, &v));
	T_EQ(v, 50);
	T_OK(reg_write(fd, ANE_BANK_ANE, ANE_REG_ENG_THROTTLE, 100));
	/* a refused write changed nothing */
	T_ERRNO(reg_write(fd, ANE_BANK_ANE, ANE_REG_CHIP_REV, 0x1), EACCES);
	T_OK(reg_read(fd, ANE_BANK_ANE, ANE_REG_CHIP_REV, &v));
	T_EQ(v, ANE_CHIP_REV_H13G);
	close(fd);
	canary();
}

/* ------------------------------------------------------ commands, doorbell */

static void send_command_answers_and_survives_fuzz(void)
{
	struct ane_fw_resource_info ri;
	uint8_t buf[512], body[256];
	uint32_t len, i, n, ok = 0, refused = 0, answered = 0;
	int fd = ctl_fd(), ret;

	/* PING echoes its body */
	T_OK(send_cmd(fd, ANE_CTL_PING, "canary!!", 8, buf, sizeof(buf), &len));
	T_EQ(len, 8);
	T_CHECK(!memcmp(buf, "canary!!", 8), "echo %.8s", (char *)buf);
	memset(body, 0, sizeof(body));
	T_OK(send_cmd(fd, ANE_CTL_RESOURCE_INFO_GET, body, 16, buf, sizeof(buf), &len));
	T_EQ(len, sizeof(ri));
	memcpy(&ri, buf, sizeof(ri));
	T_EQ(ri.num_engines, 1);
	T_CHECK(ri.max_programs > 0, "max_programs %u", ri.max_programs);
	/* the firmware's own validation, and an id it does not know */
	memset(body, 0, sizeof(body));
	T_ERRNO(send_cmd(fd, ANE_CTL_PING, body, 65, buf, sizeof(buf), NULL), EINVAL);
	T_ERRNO(send_cmd(fd, ANE_CTL_CH_PROPERTY_READ, body, 4, buf, sizeof(buf), NULL),
		EINVAL);
	T_ERRNO(send_cmd(fd, 0x03, NULL, 0, buf, sizeof(buf), NULL), EOPNOTSUPP);
	T_ERRNO(send_cmd(fd, 0x12345678, body, 16, buf, sizeof(buf), NULL), EOPNOTSUPP);
	/* a buffer shorter than the reply: the reply cut at its end */
	T_OK(send_cmd(fd, ANE_CTL_RESOURCE_INFO_GET, NULL, 0, buf, sizeof(buf), &len));
	T_EQ(len, HDR);

	/* random words: ids anywhere and in the dispatched range */
	srand(1234);
	for (i = 0; i < 3000; i++) {
		struct ane_fw_cmd_hdr *h = (void *)buf;

		n = rand() % 200;
		for (len = 0; len < HDR + n; len++)
			buf[len] = rand();
		h->id = (i & 1 ? (uint32_t)rand() : (uint32_t)rand() % ANE_CTL_COUNT) &
			~ANE_FW_ID_REPLY;
		h->size = n;
		if (i % 4 == 0) {	/* a well-formed header: the bodies */
			h->priority = 0;
			h->program_id = -1;
			h->process_id = -1;
			h->procedure_id = 0;
		}
		ret = mbuf(fd, ANE_METHOD_SEND_COMMAND, buf, HDR + n, NULL);
		if (!ret)
			ok++;
		else if (errno == EACCES)
			refused++;
		else if (errno == EINVAL || errno == EOPNOTSUPP || errno == EFAULT ||
			 errno == ENOENT)
			answered++;
		else
			T_CHECK(0, "command 0x%x (%u bytes): %s", h->id, n, strerror(errno));
	}
	printf("#   fuzz: %u ok, %u refused by the host, %u refused by the firmware\n",
	       ok, refused, answered);
	T_CHECK(refused > 0 && answered > 0 && ok > 0, "fuzz did not reach every path");
	/* still answering, and still running requests */
	T_OK(send_cmd(fd, ANE_CTL_PING, "after", 5, buf, sizeof(buf), &len));
	T_EQ(len, 5);
	close(fd);
	canary();
}

static void doorbells_ring_harmlessly(void)
{
	int fd = ctl_fd(), i;

	for (i = 0; i < 400; i++)
		T_OK(method(fd, ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING, 1 + i % 4, NULL));
	close(fd);
	canary();
}

/* ----------------------------------------------------------- diagnostics */

static void diagnostics_show_what_was_made(void)
{
	struct drm_ane_client_info ci[16];
	struct drm_ane_shmem_info si[16];
	struct drm_ane_model_info mi[16];
	struct drm_ane_method_buf a;
	struct surf in, out;
	uint64_t tok, id_a = 0;
	int fa = ctl_fd(), fb = ctl_fd(), i, seen = 0;

	if (fa < 0 || fb < 0 || program(fa, &tok) || surface(fa, 12, &in) ||
	    surface(fa, 8, &out)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	run(fa, tok, &in, &out);
	run(fa, tok, &in, &out);

	/* fb (root) sees both, itself marked */
	T_OK(mbuf(fb, ANE_METHOD_GET_CLIENTS_INFO, ci, sizeof(ci), &a));
	T_CHECK(a.total >= 2 && a.count == a.total, "count %u total %u", a.count, a.total);
	T_EQ(a.len, a.count * sizeof(ci[0]));
	for (i = 0; i < (int)a.count; i++) {
		if (ci[i].flags & ANE_CLIENT_INFO_SELF) {
			seen |= 1;
			T_EQ(ci[i].programs, 0);
			T_EQ(ci[i].submitted, 0);
		} else if (ci[i].programs == 1) {
			seen |= 2;
			id_a = ci[i].client_id;
			T_EQ(ci[i].submitted, 2);
			T_EQ(ci[i].completed, 2);
			T_CHECK(ci[i].engine_ns > 0, "engine_ns 0");
			T_EQ(ci[i].cached_mappings, 2);
			T_EQ(ci[i].state, 1);
			T_EQ(ci[i].space, 0);
			T_EQ(ci[i].uid, 0);
			T_EQ(ci[i].pid, getpid());
			T_EQ(ci[i].caps, ANE_CAP_ALL);
		}
	}
	T_EQ(seen, 3);
	/* a short buffer: one record, the total still told */
	T_OK(mbuf(fb, ANE_METHOD_GET_CLIENTS_INFO, ci, sizeof(ci[0]) + 8, &a));
	T_EQ(a.count, 1);
	T_CHECK(a.total >= 2, "total %u", a.total);
	T_EQ(a.len, sizeof(ci[0]));

	/* fa's two surfaces, as fa sees them and as fb does */
	T_OK(mbuf(fa, ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS, si, sizeof(si), &a));
	T_EQ(a.count, 2);
	T_EQ(a.total, 2);
	seen = 0;
	for (i = 0; i < 2; i++) {
		T_EQ(si[i].client_id, id_a);
		seen |= si[i].handle == in.handle ? 1 : si[i].handle == out.handle ? 2 : 4;
		T_EQ(si[i].size, PAGE16K);	/* a whole DART page */
		T_EQ(si[i].flags, 0);
	}
	T_EQ(seen, 3);
	T_OK(mbuf(fb, ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS, si, sizeof(si), &a));
	T_CHECK(a.total >= 2, "total %u", a.total);
	T_OK(drop_priv(fb));
	T_OK(mbuf(fb, ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS, si, sizeof(si), &a));
	T_EQ(a.total, 0);

	/* fa's program: prepared, its image, its token to fa only */
	T_OK(mbuf(fa, ANE_METHOD_SHOW_MODEL_MEMORY_STATUS, mi, sizeof(mi), &a));
	T_EQ(a.count, 1);
	T_EQ(mi[0].client_id, id_a);
	T_EQ(mi[0].token, tok);
	T_EQ(mi[0].flags, ANE_MODEL_PREPARED);
	T_CHECK(mi[0].image_bytes >= IMG_SIZE, "image_bytes %llu",
		(unsigned long long)mi[0].image_bytes);
	T_CHECK(mi[0].slot >= 0 && mi[0].fw_pid >= 0, "slot %d pid %d", mi[0].slot,
		mi[0].fw_pid);
	T_EQ(mi[0].inflight, 0);
	T_OK(mbuf(fb, ANE_METHOD_SHOW_MODEL_MEMORY_STATUS, mi, sizeof(mi), &a));
	T_EQ(a.total, 0);	/* fb dropped the privileged check: its own only */
	T_OK(destroy(fa, tok));
	T_OK(mbuf(fa, ANE_METHOD_SHOW_MODEL_MEMORY_STATUS, mi, sizeof(mi), &a));
	T_EQ(a.total, 0);
	munmap(in.p, PAGE16K);
	munmap(out.p, PAGE16K);
	close(fa);
	close(fb);
}

/* ------------------------------------------------------------------ DART */

static void dart_cache_ttl_flush_and_unmap(void)
{
	struct surf in, out, in2, out2;
	struct drm_ane_client_info ci;
	uint64_t tok, r = 1;
	int fa = ctl_fd(), fb = ctl_fd();

	if (fa < 0 || fb < 0 || program(fa, &tok) || surface(fa, 12, &in) ||
	    surface(fa, 8, &out) || surface(fa, 12, &in2) || surface(fa, 8, &out2)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	/* no time-to-live: a surface's mapping stays from request to request */
	T_OK(method(fa, ANE_METHOD_SET_DART_CACHE_TTL, 0, &r));
	T_EQ(r, 0);
	run(fa, tok, &in, &out);
	T_EQ(cached_maps(fa), 2);
	run(fa, tok, &in2, &out2);
	T_EQ(cached_maps(fa), 4);
	/* flush: every idle one goes, and comes back on use */
	T_OK(method(fa, ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS, 0, &r));
	T_EQ(r, 4);
	T_EQ(cached_maps(fa), 0);
	run(fa, tok, &in, &out);
	T_EQ(cached_maps(fa), 2);

	/* a time-to-live of 20 ms: the idle pair is gone by the next request */
	T_OK(method(fa, ANE_METHOD_SET_DART_CACHE_TTL, 20, &r));
	T_EQ(r, 0);
	usleep(100 * 1000);
	run(fa, tok, &in2, &out2);
	T_EQ(cached_maps(fa), 2);
	run(fa, tok, &in2, &out2);	/* used again at once: kept */
	T_EQ(cached_maps(fa), 2);
	T_OK(method(fa, ANE_METHOD_SET_DART_CACHE_TTL, 0, &r));
	T_EQ(r, 20);

	/* another client's, by the privileged flush of every client */
	T_OK(method(fb, ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS, 1, &r));
	T_CHECK(r >= 2, "flushed %llu", (unsigned long long)r);
	T_EQ(cached_maps(fa), 0);
	T_OK(drop_priv(fb));

	/* UnmapDartBuffers: fa's MemoryMapRequest mapping, by fb */
	{
		static struct drm_ane_memory_map mr;
		static struct drm_ane_memory_unmap ur;
		struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
		int dp = open(node, O_RDWR | O_CLOEXEC);
		struct drm_ane_dma dma;
		uint64_t buf[2];

		T_OK(ioctl(dp, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op));
		memset(&mr, 0, sizeof(mr));
		mr.token = op.out.token;
		mr.in.num_surfaces = 1;
		mr.in.direction = 3;
		mr.in.surfaces[0].handle = in.handle;
		mr.in.surfaces[0].usage = 1;
		/* the handle is fa's: make one on dp */
		{
			struct drm_ane_surface_create sc = { .size = PAGE16K };

			T_OK(ioctl(dp, DRM_IOCTL_ANE_SURFACE_CREATE, &sc));
			mr.in.surfaces[0].handle = sc.handle;
		}
		T_OK(ioctl(dp, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr));
		T_OK(self_info(dp, &ci));
		T_EQ(ci.mappings, 1);
		memset(&dma, 0, sizeof(dma));
		dma.iova = mr.iova;
		dma.size = 16;
		dma.data = (uintptr_t)buf;
		T_OK(ioctl(dp, DRM_IOCTL_ANE_DMA, &dma));
		/* fb without the privileged check: refused; with it (fa): done */
		T_ERRNO(method(fb, ANE_METHOD_UNMAP_DART_BUFFERS, ci.client_id, NULL), EPERM);
		T_OK(method(fa, ANE_METHOD_UNMAP_DART_BUFFERS, ci.client_id, &r));
		T_EQ(r, 1);
		T_OK(self_info(dp, &ci));
		T_EQ(ci.mappings, 0);
		/* the address translates no more, and is no mapping to unmap */
		T_ERRNO(ioctl(dp, DRM_IOCTL_ANE_DMA, &dma), ENXIO);
		memset(&ur, 0, sizeof(ur));
		ur.in.iova = mr.iova;
		T_ERRNO(ioctl(dp, DRM_IOCTL_ANE_DP_MEMORY_UNMAP, &ur), ESRCH);
		/* its own, by its own id (no privilege needed) */
		T_OK(ioctl(dp, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr));
		T_OK(drop_priv(dp));
		T_OK(method(dp, ANE_METHOD_UNMAP_DART_BUFFERS, ci.client_id, &r));
		T_EQ(r, 1);
		T_OK(method(dp, ANE_METHOD_UNMAP_DART_BUFFERS, 0, &r));
		T_EQ(r, 0);
		close(dp);
	}
	/* fa still runs */
	run(fa, tok, &in, &out);
	munmap(in.p, PAGE16K);
	munmap(out.p, PAGE16K);
	munmap(in2.p, PAGE16K);
	munmap(out2.p, PAGE16K);
	close(fa);
	close(fb);
}

/* ---------------------------------------------------------------- debugfs */

static void debugfs_shows_the_diagnostics(void)
{
	static const char *const files[] = { "clients", "shared_memory", "model_memory" };
	char path[512], text[8192], want[64];
	struct drm_ane_client_info ci;
	struct surf in, out;
	uint64_t tok;
	unsigned int i;
	int fa = ctl_fd(), fd;
	ssize_t n;

	if (fa < 0 || program(fa, &tok) || surface(fa, 12, &in) || surface(fa, 8, &out) ||
	    self_info(fa, &ci)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	for (i = 0; i < 3; i++) {
		T_OK(vm_debugfs_path(node, files[i], path, sizeof(path)));
		fd = open(path, O_RDONLY);
		T_CHECK(fd >= 0, "%s: %s", path, strerror(errno));
		n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
		text[n > 0 ? n : 0] = 0;
		if (fd >= 0)
			close(fd);
		if (i == 1)
			snprintf(want, sizeof(want), "client %llu handle %u size 16384",
				 (unsigned long long)ci.client_id, in.handle);
		else if (i == 2)
			snprintf(want, sizeof(want), "client %llu image ",
				 (unsigned long long)ci.client_id);
		else
			snprintf(want, sizeof(want), "client %llu pid %d uid 0",
				 (unsigned long long)ci.client_id, getpid());
		T_CHECK(strstr(text, want), "%s lacks \"%s\":\n%s", files[i], want, text);
	}
	munmap(in.p, PAGE16K);
	munmap(out.p, PAGE16K);
	close(fa);
}

/* ---------------------------------------------------------------- anectl */

static void anectl_calls_the_diagnostics(void)
{
	static char out[16384];
	const char *argv[5] = { "anectl", "-d", node, NULL, NULL };
	struct drm_ane_client_info ci;
	struct surf in, out_s;
	char want[64];
	uint64_t tok;
	int fa = ctl_fd();

	if (fa < 0 || program(fa, &tok) || surface(fa, 12, &in) || surface(fa, 8, &out_s) ||
	    self_info(fa, &ci)) {
		T_CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	/* root: this test's file among the clients, its surfaces, its program */
	argv[3] = "clients";
	T_EQ(vm_run_capture(argv, 0, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%8llu %7d %6u", (unsigned long long)ci.client_id,
		 getpid(), 0);
	T_CHECK(strstr(out, want) && strstr(out, "(this command)"), "clients:\n%s", out);
	argv[3] = "shmem";
	T_EQ(vm_run_capture(argv, 0, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%8llu %8u %12u", (unsigned long long)ci.client_id,
		 in.handle, PAGE16K);
	T_CHECK(strstr(out, want), "shmem lacks \"%s\":\n%s", want, out);
	argv[3] = "models";
	T_EQ(vm_run_capture(argv, 0, out, sizeof(out)), 0);
	T_CHECK(strstr(out, "prepared"), "models:\n%s", out);
	/* nobody: its own file alone */
	argv[3] = "clients";
	T_EQ(vm_run_capture(argv, NOBODY, out, sizeof(out)), 0);
	T_CHECK(strstr(out, ": 1 clients") && strstr(out, "(this command)") &&
		!strstr(out, want), "nobody's clients:\n%s", out);
	argv[3] = "models";
	T_EQ(vm_run_capture(argv, NOBODY, out, sizeof(out)), 0);
	T_CHECK(strstr(out, ": 0 programs"), "nobody's models:\n%s", out);
	munmap(in.p, PAGE16K);
	munmap(out_s.p, PAGE16K);
	close(fa);
}

int main(int argc, char **argv)
{
	struct stat st;
	int ret;

	if (vm_node(argc, argv, node, sizeof(node), "method"))
		return 1;
	if (stat(node, &st) || chmod(node, 0666)) {
		printf("not ok - chmod %s: %s\nmethod: 0 passed, 1 failed\n", node,
		       strerror(errno));
		return 1;
	}
	T_RUN(bad_inputs_have_their_errno);
	T_RUN(every_gate_from_nobody_root_and_dropped_root);
	T_RUN(registers_read_and_write_within_the_map);
	T_RUN(send_command_answers_and_survives_fuzz);
	T_RUN(doorbells_ring_harmlessly);
	T_RUN(diagnostics_show_what_was_made);
	T_RUN(dart_cache_ttl_flush_and_unmap);
	T_RUN(debugfs_shows_the_diagnostics);
	T_RUN(anectl_calls_the_diagnostics);
	ret = t_summary("method");
	chmod(node, st.st_mode & 07777);
	return ret;
}
