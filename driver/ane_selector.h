/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_SELECTOR_H__
#define __ANE_SELECTOR_H__

#include <linux/types.h>

#include <drm/drm_ioctl.h>
#include <drm/ane_accel.h>

#include "ane_drv.h"

/*
 * ANE_SELECTORS() is the single source of truth for the selector ABI, the
 * counterpart of the M1's IOExternalMethodDispatch2022 arrays: space,
 * selector index, ioctl name, seed handler name, the size tuple
 * (scalar in, struct in, scalar out, struct out) and the handler.  The
 * dispatch table, the DRM ioctl table and the size checks are all
 * generated from it, and the build fails if a uapi struct's size drifts
 * from its tuple.
 */
#define ANE_SELECTORS(X) \
	X(CONTROL, 0, CTL_DEVICE_OPEN, "ANE_DeviceOpen", \
	  0, 104, 0, 104, ane_sel_device_open) \
	X(CONTROL, 1, CTL_DEVICE_CLOSE, "ANE_DeviceClose", \
	  0, 0, 0, 0, ane_sel_device_close) \
	X(CONTROL, 2, CTL_SEND_REQUEST, "ANE_ProgramSendRequest", \
	  1, 2376, 0, 40, ane_sel_unsupported) \
	X(CONTROL, 3, CTL_PROGRAM_CREATE, "ANE_ProgramCreate", \
	  0, 32, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 4, CTL_PROGRAM_PREPARE, "ANE_ProgramPrepare", \
	  0, 56, 0, 56, ane_sel_unsupported) \
	X(CONTROL, 5, CTL_PROGRAM_UNPREPARE, "ANE_ProgramUnprepare", \
	  0, 56, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 6, CTL_PROGRAM_DESTROY, "ANE_ProgramDestroy", \
	  0, 16, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 7, CTL_GET_STATUS, "ANE_GetStatus", \
	  0, 0, 0, 32, ane_sel_get_status) \
	X(CONTROL, 8, CTL_PROGRAM_CREATE_INSTANCE, "ANE_ProgramCreateInstance", \
	  0, 32, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 9, CTL_CHAINING_PREPARE, "ANE_ProgramChainingPrepare", \
	  0, 16, 0, 24, ane_sel_unsupported) \
	X(CONTROL, 10, CTL_GET_VERSION, "ANE_GetVersion", \
	  0, 0, 1, 0, ane_sel_get_version) \
	X(CONTROL, 11, CTL_REGISTER_DWP, "ANE_RegisterDebugWorkProcessor", \
	  0, 24, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 12, CTL_UNREGISTER_DWP, "ANE_UnregisterDebugWorkProcessor", \
	  0, 0, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 13, CTL_GET_DWP_ITEM, "ANE_GetDebugWorkProcessorItem", \
	  2, 0, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 14, CTL_COMPLETE_DWP_ITEM, "ANE_CompleteDebugWorkProcessorItem", \
	  2, 0, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 15, CTL_RELEASE_DWP_BUFFERS, "ANE_ReleaseDebugWorkProcessorBuffers", \
	  0, 0, 0, 0, ane_sel_unsupported) \
	X(CONTROL, 16, CTL_LOAD_FIRMWARE, "ANE_LoadFirmware", \
	  3, 0, 0, 0, ane_sel_load_firmware) \
	X(DIRECT, 0, DP_DEVICE_OPEN, "ANE_DeviceOpen", \
	  0, 104, 0, 104, ane_sel_device_open) \
	X(DIRECT, 1, DP_DEVICE_CLOSE, "ANE_DeviceClose", \
	  0, 0, 0, 0, ane_sel_device_close) \
	X(DIRECT, 2, DP_SEND_REQUEST, "ANE_ProgramSendRequest", \
	  1, 2376, 0, 40, ane_sel_unsupported) \
	X(DIRECT, 3, DP_OUTPUT_SET_ENQUEUE, "ANE_ProgramOutputSetEnqueue", \
	  0, 40, 0, 0, ane_sel_unsupported) \
	X(DIRECT, 4, DP_INPUTS_READY, "ANE_ProgramInputsReady", \
	  0, 3104, 0, 0, ane_sel_unsupported) \
	X(DIRECT, 5, DP_MEMORY_MAP, "ANE_MemoryMapRequest", \
	  1, 2080, 1, 0, ane_sel_unsupported) \
	X(DIRECT, 6, DP_MEMORY_UNMAP, "ANE_MemoryUnMapRequest", \
	  0, 2080, 0, 0, ane_sel_unsupported) \
	X(DIRECT, 7, DP_SESSION_HINT, "ANE_SessionHintRequest", \
	  0, 16, 0, 24, ane_sel_unsupported) \
	X(DIRECT, 8, DP_CHAINING_SET_ACTIVE, "ANE_ProgramChainingSetActiveProcedure", \
	  0, 32, 0, 0, ane_sel_unsupported)

/* Indices into ane_selectors[], in ANE_SELECTORS() order. */
enum ane_selector_id {
#define ANE_SEL_ENUM(space, sel, id, name, si, sin, so, sout, fn) ANE_SEL_##id,
	ANE_SELECTORS(ANE_SEL_ENUM)
#undef ANE_SEL_ENUM
	ANE_SEL_COUNT
};

#define ANE_NUM_CONTROL_SELECTORS	17
#define ANE_NUM_DIRECT_SELECTORS	9

/**
 * struct ane_selector - one dispatch-table entry (IOExternalMethodDispatch2022)
 * @name: the seed's handler name.
 * @ioctl_name: the ioctl's name, for logs.
 * @space: &enum ane_space.
 * @index: selector index within @space.
 * @cmd: the one ioctl command the selector answers to.
 * @scalar_in: exact count of u64 scalar inputs.
 * @struct_in: exact structure-input bytes.
 * @scalar_out: exact count of u64 scalar outputs.
 * @struct_out: exact structure-output bytes.
 * @handler: the selector's handler; @args is the whole tuple struct.
 */
struct ane_selector {
	const char *name;
	const char *ioctl_name;
	enum ane_space space;
	u8 index;
	unsigned int cmd;
	u32 scalar_in;
	u32 struct_in;
	u32 scalar_out;
	u32 struct_out;
	int (*handler)(struct ane_file *af, const struct ane_selector *sel,
		       void *args);
};

extern const struct ane_selector ane_selectors[ANE_SEL_COUNT];
/* The DRM ioctl table is indexed by ioctl number; gaps refuse with -EINVAL. */
#define ANE_NUM_DRM_IOCTLS	(DRM_ANE_DP_CHAINING_SET_ACTIVE + 1)
extern const struct drm_ioctl_desc ane_drm_ioctls[ANE_NUM_DRM_IOCTLS];

static inline u32 ane_selector_size(const struct ane_selector *s)
{
	return s->scalar_in * sizeof(u64) + s->struct_in +
	       s->scalar_out * sizeof(u64) + s->struct_out;
}

const struct ane_selector *ane_selector_by_nr(unsigned int nr);
int ane_selector_check_cmd(unsigned int cmd);
int ane_client_admit(enum ane_client_state state, enum ane_space space,
		     const struct ane_selector *sel);
int ane_device_open_check(const struct drm_ane_device_info_in *in);

/* Selector handlers (ane_client.c). */
int ane_sel_device_open(struct ane_file *af, const struct ane_selector *sel,
		 void *args);
int ane_sel_device_close(struct ane_file *af, const struct ane_selector *sel,
		 void *args);
int ane_sel_get_status(struct ane_file *af, const struct ane_selector *sel,
		 void *args);
int ane_sel_get_version(struct ane_file *af, const struct ane_selector *sel,
		 void *args);
int ane_sel_load_firmware(struct ane_file *af, const struct ane_selector *sel,
		 void *args);
int ane_sel_unsupported(struct ane_file *af, const struct ane_selector *sel,
		 void *args);

int ane_file_init(struct ane_device *adev, struct ane_file *af);
void ane_file_fini(struct ane_file *af);

#endif /* __ANE_SELECTOR_H__ */
