/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_SELECTOR_H__
#define __ANE_SELECTOR_H__

#include <linux/fs.h>
#include <linux/types.h>

#include <drm/ane_accel.h>

#include "ane_drv.h"

/* Indices into ane_selectors[]: control 0..16, then direct-path 0..8. */
enum ane_selector_id {
	ANE_SEL_CTL_DEVICE_OPEN,
	ANE_SEL_CTL_DEVICE_CLOSE,
	ANE_SEL_CTL_SEND_REQUEST,
	ANE_SEL_CTL_PROGRAM_CREATE,
	ANE_SEL_CTL_PROGRAM_PREPARE,
	ANE_SEL_CTL_PROGRAM_UNPREPARE,
	ANE_SEL_CTL_PROGRAM_DESTROY,
	ANE_SEL_CTL_GET_STATUS,
	ANE_SEL_CTL_PROGRAM_CREATE_INSTANCE,
	ANE_SEL_CTL_CHAINING_PREPARE,
	ANE_SEL_CTL_GET_VERSION,
	ANE_SEL_CTL_REGISTER_DWP,
	ANE_SEL_CTL_UNREGISTER_DWP,
	ANE_SEL_CTL_GET_DWP_ITEM,
	ANE_SEL_CTL_COMPLETE_DWP_ITEM,
	ANE_SEL_CTL_RELEASE_DWP_BUFFERS,
	ANE_SEL_CTL_LOAD_FIRMWARE,
	ANE_SEL_DP_DEVICE_OPEN,
	ANE_SEL_DP_DEVICE_CLOSE,
	ANE_SEL_DP_SEND_REQUEST,
	ANE_SEL_DP_OUTPUT_SET_ENQUEUE,
	ANE_SEL_DP_INPUTS_READY,
	ANE_SEL_DP_MEMORY_MAP,
	ANE_SEL_DP_MEMORY_UNMAP,
	ANE_SEL_DP_SESSION_HINT,
	ANE_SEL_DP_CHAINING_SET_ACTIVE,
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
 * @copy_in: copies the inputs in when a plain copy_from_user() of all of
 *	them is not how (NULL for most); same contract: 0 or -EFAULT.
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
	int (*copy_in)(void *kdata, const void __user *uarg, unsigned int size);
};

extern const struct ane_selector ane_selectors[ANE_SEL_COUNT];

static inline u32 ane_selector_size(const struct ane_selector *s)
{
	return s->scalar_in * sizeof(u64) + s->struct_in +
	       s->scalar_out * sizeof(u64) + s->struct_out;
}

const struct ane_selector *ane_selector_find(unsigned int cmd);
long ane_selector_ioctl(struct file *filp, const struct ane_selector *sel,
			unsigned long arg);
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
int ane_send_request_copy_in(void *kdata, const void __user *uarg,
			     unsigned int size);
int ane_sel_send_request(struct ane_file *af, const struct ane_selector *sel,
			 void *args);
int ane_sel_program_create(struct ane_file *af, const struct ane_selector *sel,
			   void *args);
int ane_sel_program_prepare(struct ane_file *af, const struct ane_selector *sel,
			    void *args);
int ane_sel_program_unprepare(struct ane_file *af, const struct ane_selector *sel,
			      void *args);
int ane_sel_program_destroy(struct ane_file *af, const struct ane_selector *sel,
			    void *args);
int ane_sel_program_create_instance(struct ane_file *af,
				    const struct ane_selector *sel, void *args);
int ane_sel_memory_map(struct ane_file *af, const struct ane_selector *sel,
		       void *args);
int ane_sel_memory_unmap(struct ane_file *af, const struct ane_selector *sel,
			 void *args);
int ane_map_args_check(const struct drm_ane_memory_map_args *a);

/* The resident submission model (ane_chain.c). */
int ane_sel_chaining_prepare(struct ane_file *af,
			     const struct ane_selector *sel, void *args);
int ane_sel_output_set_enqueue(struct ane_file *af,
			       const struct ane_selector *sel, void *args);
int ane_sel_inputs_ready(struct ane_file *af, const struct ane_selector *sel,
			 void *args);
int ane_sel_session_hint(struct ane_file *af, const struct ane_selector *sel,
			 void *args);
int ane_sel_chaining_set_active(struct ane_file *af,
				const struct ane_selector *sel, void *args);

/* Debug work processor, selectors 11-15 (ane_dwp.c). */
int ane_sel_register_dwp(struct ane_file *af, const struct ane_selector *sel,
			 void *args);
int ane_sel_unregister_dwp(struct ane_file *af, const struct ane_selector *sel,
			   void *args);
int ane_sel_get_dwp_item(struct ane_file *af, const struct ane_selector *sel,
			 void *args);
int ane_sel_complete_dwp_item(struct ane_file *af,
			      const struct ane_selector *sel, void *args);
int ane_sel_release_dwp_buffers(struct ane_file *af,
				const struct ane_selector *sel, void *args);
void ane_dwp_file_fini(struct ane_file *af);

int ane_file_init(struct ane_device *adev, struct ane_file *af);
void ane_file_fini(struct ane_file *af);

#endif /* __ANE_SELECTOR_H__ */
