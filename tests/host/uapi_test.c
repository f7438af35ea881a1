// SPDX-License-Identifier: MIT
/*
 * Host tests: the uapi layouts against the seed's offset tables and the
 * selector size tuples, and libane's error reporting without a device.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <stddef.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "harness.h"
#include "libane.h"

/* Table 27.3: the ANEDeviceInfo handshake offsets. */
static void device_info_offsets_match_table_27_3(void)
{
	T_EQ(offsetof(struct drm_ane_device_info_in, usage_type), 0x00);
	T_EQ(offsetof(struct drm_ane_device_info_in, callback), 0x08);
	T_EQ(offsetof(struct drm_ane_device_info_in, receiver_context), 0x10);
	T_EQ(offsetof(struct drm_ane_device_info_in, timeout), 0x18);
	T_EQ(offsetof(struct drm_ane_device_info_out, token), 0x00);
	T_EQ(offsetof(struct drm_ane_device_info_out, callback), 0x08);
	T_EQ(offsetof(struct drm_ane_device_info_out, receiver_context), 0x10);
	T_EQ(offsetof(struct drm_ane_device_info_out, timeout), 0x18);
	T_EQ(offsetof(struct drm_ane_device_info_out, ane_version), 0x48);
	T_EQ(offsetof(struct drm_ane_device_info_out, num_engines), 0x50);
	T_EQ(offsetof(struct drm_ane_device_info_out, cpu_subtype), 0x60);
	T_EQ(sizeof(struct drm_ane_device_info_out), 104);
}

/* Table 27.6: the send-request offsets and its 40-byte answer. */
static void send_request_offsets_match_table_27_6(void)
{
	T_EQ(offsetof(struct drm_ane_request, token), 0x000);
	T_EQ(offsetof(struct drm_ane_request, sequence), 0x008);
	T_EQ(offsetof(struct drm_ane_request, qos_class), 0x010);
	T_EQ(offsetof(struct drm_ane_request, io_category), 0x01c);
	T_EQ(offsetof(struct drm_ane_request, surfaces), 0x020);
	T_EQ(offsetof(struct drm_ane_request_result, sequence), 0x00);
	T_EQ(offsetof(struct drm_ane_request_result, token), 0x08);
	T_EQ(offsetof(struct drm_ane_request_result, status), 0x20);
}

/* Every ioctl encodes exactly its seed tuple (Tables 27.2 and 27.4). */
static void ioctl_sizes_match_seed_tuples(void)
{
	static const struct {
		unsigned long cmd;
		unsigned int nr, si, sin, so, sout;
	} t[] = {
		{ DRM_IOCTL_ANE_CTL_DEVICE_OPEN, 0x00, 0, 104, 0, 104 },
		{ DRM_IOCTL_ANE_CTL_DEVICE_CLOSE, 0x01, 0, 0, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_SEND_REQUEST, 0x02, 1, 2376, 0, 40 },
		{ DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, 0x03, 0, 32, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, 0x04, 0, 56, 0, 56 },
		{ DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, 0x05, 0, 56, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, 0x06, 0, 16, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_GET_STATUS, 0x07, 0, 0, 0, 32 },
		{ DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, 0x08, 0, 32, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, 0x09, 0, 16, 0, 24 },
		{ DRM_IOCTL_ANE_CTL_GET_VERSION, 0x0a, 0, 0, 1, 0 },
		{ DRM_IOCTL_ANE_CTL_REGISTER_DWP, 0x0b, 0, 24, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_UNREGISTER_DWP, 0x0c, 0, 0, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 0x0d, 2, 0, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_COMPLETE_DWP_ITEM, 0x0e, 2, 0, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_RELEASE_DWP_BUFFERS, 0x0f, 0, 0, 0, 0 },
		{ DRM_IOCTL_ANE_CTL_LOAD_FIRMWARE, 0x10, 3, 0, 0, 0 },
		{ DRM_IOCTL_ANE_DP_DEVICE_OPEN, 0x20, 0, 104, 0, 104 },
		{ DRM_IOCTL_ANE_DP_DEVICE_CLOSE, 0x21, 0, 0, 0, 0 },
		{ DRM_IOCTL_ANE_DP_SEND_REQUEST, 0x22, 1, 2376, 0, 40 },
		{ DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, 0x23, 0, 40, 0, 0 },
		{ DRM_IOCTL_ANE_DP_INPUTS_READY, 0x24, 0, 3104, 0, 0 },
		{ DRM_IOCTL_ANE_DP_MEMORY_MAP, 0x25, 1, 2080, 1, 0 },
		{ DRM_IOCTL_ANE_DP_MEMORY_UNMAP, 0x26, 0, 2080, 0, 0 },
		{ DRM_IOCTL_ANE_DP_SESSION_HINT, 0x27, 0, 16, 0, 24 },
		{ DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, 0x28, 0, 32, 0, 0 },
	};
	unsigned int i;

	T_EQ(sizeof(t) / sizeof(t[0]), 26);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		T_EQ(_IOC_SIZE(t[i].cmd), t[i].si * 8 + t[i].sin + t[i].so * 8 + t[i].sout);
		T_EQ(_IOC_NR(t[i].cmd), DRM_COMMAND_BASE + t[i].nr);
		T_EQ(_IOC_TYPE(t[i].cmd), DRM_IOCTL_BASE);
	}
}

static void open_of_missing_node_names_node_and_errno(void)
{
	struct ane_dev *dev = (struct ane_dev *)1;
	char err[512] = "";
	int ret;

	ret = ane_open("/nonexistent/accel9", ANE_KIND_CONTROL, &dev, err, sizeof(err));
	T_EQ(ret, -ENOENT);
	T_CHECK(dev == NULL, "handle not cleared");
	T_CHECK(strstr(err, "/nonexistent/accel9") != NULL, "message lacks the node: %s", err);
	T_CHECK(strstr(err, "ENOENT") != NULL, "message lacks the errno: %s", err);
	T_CHECK(strstr(err, "open") != NULL, "message lacks the call: %s", err);
}

static void open_with_bad_kind_is_refused(void)
{
	struct ane_dev *dev;
	char err[512] = "";

	T_EQ(ane_open("/dev/null", (enum ane_client_kind)7, &dev, err, sizeof(err)), -EINVAL);
	T_CHECK(strstr(err, "kind 7") != NULL, "message lacks the field: %s", err);
}

static void names_are_printable(void)
{
	T_CHECK(!strcmp(ane_errno_name(-ESHUTDOWN), "ESHUTDOWN"), "ESHUTDOWN");
	T_CHECK(!strcmp(ane_errno_name(EBADRQC), "EBADRQC"), "EBADRQC");
	T_CHECK(!strcmp(ane_fw_state_name(ANE_FW_STATE_READY), "ready"), "ready");
	T_CHECK(!strcmp(ane_fw_state_name(99), "unknown"), "unknown");
	T_CHECK(!strcmp(ane_errmsg(NULL), "ane: no device handle"), "null handle");
}

int main(void)
{
	T_RUN(device_info_offsets_match_table_27_3);
	T_RUN(send_request_offsets_match_table_27_6);
	T_RUN(ioctl_sizes_match_seed_tuples);
	T_RUN(open_of_missing_node_names_node_and_errno);
	T_RUN(open_with_bad_kind_is_refused);
	T_RUN(names_are_printable);
	return t_summary("host-uapi");
}
