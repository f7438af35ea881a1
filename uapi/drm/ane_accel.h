/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * Userspace ABI of the emulated Apple Neural Engine (ane) DRM accel driver.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_ACCEL_H__
#define __ANE_ACCEL_H__

#include <drm/drm.h>

#ifdef __KERNEL__
#include <linux/build_bug.h>
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: ane selector ABI
 *
 * The M1 Neural Engine driver exposes two user-client selector spaces: the
 * *control* client (17 selectors, 0..16) and the *direct-path* client
 * (9 selectors, 0..8).  Each selector is one ioctl here.  Its argument
 * struct is exactly the selector's size tuple from the M1 dispatch arrays,
 * laid out in this order:
 *
 * 1. the scalar inputs, one __u64 each;
 * 2. the structure input;
 * 3. the scalar outputs, one __u64 each;
 * 4. the structure output.
 *
 * The driver refuses any ioctl whose encoded size differs from the tuple
 * with -EINVAL before the selector handler runs: there is no zero
 * extension or truncation, and no size-based overloading.
 *
 * A file becomes a control or a direct-path client at its first
 * DeviceOpen, issued through that space's ioctl.  From then on:
 *
 * - selectors of the other space fail with -EBADRQC;
 * - any selector other than DeviceOpen before DeviceOpen fails with
 *   -ENOTCONN;
 * - a second DeviceOpen fails with -EISCONN;
 * - after DeviceClose every selector fails with -ESHUTDOWN (the seed's
 *   closed-or-closing client state, 0xe00002c5).
 *
 * The seed's kIOReturnBadArgument (0xe00002c2) maps to -EINVAL and
 * kIOReturnUnsupported (0xe00002c7) to -EOPNOTSUPP.  Reserved fields and
 * padding must be zero on input (-EINVAL otherwise) and are zero on
 * output.
 */

/** @ANE_UAPI_VERSION: version of this interface, returned by GetVersion. */
#define ANE_UAPI_VERSION		1

/* Sizes of the selector tuples (Tables 27.2 and 27.4). */
#define ANE_DEVICE_INFO_SIZE		104
#define ANE_SEND_REQUEST_IN_SIZE	2376
#define ANE_SEND_REQUEST_OUT_SIZE	40
#define ANE_MEMORY_MAP_SIZE		2080
#define ANE_INPUTS_READY_SIZE		3104

/** @ANE_USAGE_STANDARD: DeviceOpen usage type of a standard client. */
#define ANE_USAGE_STANDARD		1
/** @ANE_USAGE_UNSUPPORTED: DeviceOpen usage type the M1 refuses. */
#define ANE_USAGE_UNSUPPORTED		2

/** @ANE_HW_VERSION: the engine version DeviceOpen reports (0x20). */
#define ANE_HW_VERSION			0x20
/** @ANE_HW_VERSION_EXT: second half of the reported version pair. */
#define ANE_HW_VERSION_EXT		256
/** @ANE_NUM_ENGINES: engines per device on this generation. */
#define ANE_NUM_ENGINES			1
/** @ANE_CPU_SUBTYPE: program-ABI gate reported by DeviceOpen. */
#define ANE_CPU_SUBTYPE			4

/** @ANE_MAX_DOORBELL: doorbell indices must be below this. */
#define ANE_MAX_DOORBELL		32
/** @ANE_REQ_MAX_SURFACES: surface references in one send request. */
#define ANE_REQ_MAX_SURFACES		293
/** @ANE_REQ_MAX_SIGNAL_EVENTS: OUT_SYNCOBJ entries (signal events) of a request. */
#define ANE_REQ_MAX_SIGNAL_EVENTS	16
/** @ANE_REQ_MAX_EVENTS: IN and OUT syncobjs and shared events of a request (-E2BIG beyond). */
#define ANE_REQ_MAX_EVENTS		16
/** @ANE_DEV_MAX_WAITING: requests of a device waiting on events (-EBUSY beyond). */
#define ANE_DEV_MAX_WAITING		32
/** @ANE_FILE_MAX_WAITING: requests of one client waiting on events (-EDQUOT beyond). */
#define ANE_FILE_MAX_WAITING		16
/** @ANE_MAP_MAX_SURFACES: surfaces one memory-map request describes. */
#define ANE_MAP_MAX_SURFACES		85

/**
 * struct drm_ane_device_info_in - DeviceOpen input (ANEDeviceInfo, 104 B)
 * @usage_type: client profile: %ANE_USAGE_STANDARD opens;
 *	%ANE_USAGE_UNSUPPORTED gets -EOPNOTSUPP (the seed's code 24); any
 *	other value gets -EINVAL.
 * @pad: must be zero.
 * @callback: callback function pointer or board id (the M1 client passes
 *	0x1111222233334444); opaque, echoed back.
 * @receiver_context: receiver context pointer; opaque, echoed back.
 * @timeout: client timeout (the M1 client passes 0x2710 = 10000); echoed.
 * @reserved: must be zero.
 */
struct drm_ane_device_info_in {
	__u8 usage_type;
	__u8 pad[7];
	__u64 callback;
	__u64 receiver_context;
	__u64 timeout;
	__u64 reserved[9];
};

/**
 * struct drm_ane_device_info_out - DeviceOpen output (ANEDeviceInfo, 104 B)
 * @token: session token; every later request of this client holds it.
 * @callback: echo of the input @callback.
 * @receiver_context: echo of the input @receiver_context.
 * @timeout: echo of the input @timeout.
 * @reserved0: zero.
 * @ane_version: engine version, %ANE_HW_VERSION (0x20 = 32).
 * @ane_version_ext: second half of the version pair, %ANE_HW_VERSION_EXT.
 * @num_engines: number of engines, %ANE_NUM_ENGINES.
 * @reserved1: zero.
 * @cpu_subtype: CPU subtype, %ANE_CPU_SUBTYPE.
 */
struct drm_ane_device_info_out {
	__u64 token;
	__u64 callback;
	__u64 receiver_context;
	__u64 timeout;
	__u64 reserved0[5];
	__u32 ane_version;
	__u32 ane_version_ext;
	__u64 num_engines;
	__u64 reserved1;
	__u64 cpu_subtype;
};

/**
 * struct drm_ane_device_open - selector 0 (both spaces): 0 / 104 / 0 / 104
 * @in: the client's device-info header.
 * @out: the device descriptor and session token.
 */
struct drm_ane_device_open {
	struct drm_ane_device_info_in in;
	struct drm_ane_device_info_out out;
};

/**
 * struct drm_ane_surface_ref - one surface of a send request
 * @handle: GEM handle of the surface (a syncobj handle for
 *	%ANE_SURFACE_OUT_SYNCOBJ and %ANE_SURFACE_IN_SYNCOBJ, a shared event
 *	id for %ANE_SURFACE_IN_SHARED_EVENT); 0 ends the list.
 * @kind: one of &enum drm_ane_surface_kind.
 * @bar: for inputs and outputs, the procedure's input or output index it
 *	provides (each index exactly once); otherwise zero.
 * @reserved: must be zero.
 */
struct drm_ane_surface_ref {
	__u32 handle;
	__u8 kind;
	__u8 bar;
	__u16 reserved;
};

/**
 * enum drm_ane_surface_kind - role of a surface in a request
 * @ANE_SURFACE_NONE: unused entry.
 * @ANE_SURFACE_INPUT: read by the program.
 * @ANE_SURFACE_OUTPUT: written by the program.
 * @ANE_SURFACE_INTERMEDIATE: scratch space of the program (optional: the
 *	driver provides one when the request names none).
 * @ANE_SURFACE_OUT_SYNCOBJ: not a surface: a DRM syncobj whose fence is
 *	replaced by the request's completion fence; each is a signal event
 *	of the request's procedure call, at most
 *	%ANE_REQ_MAX_SIGNAL_EVENTS per request (-E2BIG beyond).
 * @ANE_SURFACE_CHAINED: in ProgramInputsReady only: an output surface of
 *	the chain's previous run, read by the engine where that run wrote
 *	it (data chaining, no host copy).
 * @ANE_SURFACE_IN_SYNCOBJ: not a surface: a DRM syncobj whose fence the
 *	request waits for before the engine reads its inputs (a wait event
 *	of its procedure call, held by the firmware); the syncobj must have
 *	a fence (-EINVAL); a fence that ends in error fails the request
 *	with that error, one not ended after the module parameter
 *	wait_timeout_ms (default 10 s) with -ETIMEDOUT.  IN and OUT
 *	syncobjs and shared events together: at most %ANE_REQ_MAX_EVENTS
 *	(-E2BIG beyond).
 * @ANE_SURFACE_IN_SHARED_EVENT: not a surface: @handle is the id of the
 *	shared event this client activated (%ANE_METHOD_SHARED_EVENT_ACTIVATE,
 *	else -ENOENT), at most once: the request waits for its first ring
 *	after the submission (%ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING with
 *	ANE_DOORBELL_SHARED_EVENT()); deactivated first, the request fails
 *	with -ECANCELED.
 */
enum drm_ane_surface_kind {
	ANE_SURFACE_NONE = 0,
	ANE_SURFACE_INPUT = 1,
	ANE_SURFACE_OUTPUT = 2,
	ANE_SURFACE_INTERMEDIATE = 3,
	ANE_SURFACE_OUT_SYNCOBJ = 4,
	ANE_SURFACE_CHAINED = 5,
	ANE_SURFACE_IN_SYNCOBJ = 6,
	ANE_SURFACE_IN_SHARED_EVENT = 7
};

/**
 * struct drm_ane_request - ProgramSendRequest input (2376 B, Table 27.6)
 * @token: program or instance token minted at create time.
 * @sequence: request sequence number (0, then 1 on the next submit).
 * @qos_class: quality-of-service class (the M1 client passes 5).
 * @exec_priority: execution priority (the M1 client passes 21).
 * @procedure: index into the program's procedure table.
 * @io_category: io category (the M1 client passes 2).
 * @surfaces: input, output and intermediate surfaces; unused entries
 *	are all-zero.
 */
struct drm_ane_request {
	__u64 token;
	__u64 sequence;
	__u32 qos_class;
	__u32 exec_priority;
	__u32 procedure;
	__u32 io_category;
	struct drm_ane_surface_ref surfaces[ANE_REQ_MAX_SURFACES];
};

/**
 * struct drm_ane_request_result - ProgramSendRequest output (40 B)
 * @sequence: the request's sequence number.
 * @token: echo of the request's token.
 * @seqno: driver sequence number that the completion event carries.
 * @reserved0: zero.
 * @status: submission status, 0 when queued.
 * @reserved1: zero.
 */
struct drm_ane_request_result {
	__u64 sequence;
	__u64 token;
	__u64 seqno;
	__u64 reserved0;
	__u32 status;
	__u32 reserved1;
};

/**
 * struct drm_ane_send_request - selector 2 (both spaces): 1 / 2376 / 0 / 40
 * @doorbell: doorbell index, below %ANE_MAX_DOORBELL; the submit rings
 *	the mask 1 << @doorbell.
 * @in: the request.
 * @out: the submission result.
 */
struct drm_ane_send_request {
	__u64 doorbell;
	struct drm_ane_request in;
	struct drm_ane_request_result out;
};

/**
 * struct drm_ane_program_create - control selector 3: 0 / 32 / 0 / 0
 * @image: user pointer to the program image.
 * @image_size: size of the image in bytes.
 * @token_ptr: user pointer to a __u64 that receives the program token
 *	(the selector has no output of its own).
 * @flags: must be zero.
 */
struct drm_ane_program_create {
	__u64 image;
	__u64 image_size;
	__u64 token_ptr;
	__u64 flags;
};

/** @ANE_PREPARE_EXACT_PRIORITY: prepare flag: the priority as given, 0 included. */
#define ANE_PREPARE_EXACT_PRIORITY	0x1u

/**
 * struct drm_ane_program_prepare_args - program residency arguments (56 B)
 * @token: program token.
 * @flags: %ANE_PREPARE_EXACT_PRIORITY or zero (zero for unprepare).
 * @queue_depth: requests the program may have in flight, 0 for default.
 * @priority: scheduling priority, 0..7; 0 is the default (5) unless
 *	@flags has %ANE_PREPARE_EXACT_PRIORITY.  0 and 1 are the real-time
 *	band: they need %ANE_CAP_REALTIME, and 0 also
 *	%ANE_CAP_SYSTEM_PRIORITY, else -EPERM.
 * @program_slot: firmware program slot (output; must be zero on input).
 * @process_id: firmware process id (output; must be zero on input).
 * @num_procedures: procedures of the loaded program (output).
 * @reserved: must be zero.
 */
struct drm_ane_program_prepare_args {
	__u64 token;
	__u64 flags;
	__u32 queue_depth;
	__u32 priority;
	__u32 program_slot;
	__u32 process_id;
	__u32 num_procedures;
	__u32 reserved[5];
};

/**
 * struct drm_ane_program_prepare - control selector 4: 0 / 56 / 0 / 56
 * @in: what to prepare.
 * @out: the prepared program's firmware slot and process.
 */
struct drm_ane_program_prepare {
	struct drm_ane_program_prepare_args in;
	struct drm_ane_program_prepare_args out;
};

/**
 * struct drm_ane_program_unprepare - control selector 5: 0 / 56 / 0 / 0
 * @in: the program to unprepare; only @in.token and @in.flags are read,
 *	every other field must be zero.
 */
struct drm_ane_program_unprepare {
	struct drm_ane_program_prepare_args in;
};

/**
 * struct drm_ane_program_destroy - control selector 6: 0 / 16 / 0 / 0
 * @token: program or instance token.
 * @flags: must be zero.
 */
struct drm_ane_program_destroy {
	__u64 token;
	__u64 flags;
};

/**
 * struct drm_ane_status - GetStatus output (32 B)
 * @fw_state: &enum drm_ane_fw_state of the device's firmware.
 * @client_flags: ANE_CLIENT_* bits of the calling client.
 * @requests_submitted: requests this client submitted.
 * @requests_completed: requests of this client that completed.
 * @dart_faults: translation faults charged to this client.
 * @last_error: errno (positive) of the client's last failed request, or 0.
 */
struct drm_ane_status {
	__u32 fw_state;
	__u32 client_flags;
	__u64 requests_submitted;
	__u64 requests_completed;
	__u32 dart_faults;
	__u32 last_error;
};

/**
 * enum drm_ane_fw_state - firmware state reported by GetStatus
 * @ANE_FW_STATE_OFF: not booted.
 * @ANE_FW_STATE_BOOTING: boot handshake in progress.
 * @ANE_FW_STATE_READY: accepting commands.
 * @ANE_FW_STATE_RECOVERING: crashed or failed to boot; being brought
 *	back, at once or after a backoff (Documentation/accel/ane/recovery.rst).
 * @ANE_FW_STATE_DEAD: recovery gave up (eight boots failed in a row);
 *	channel not ready until a privileged reboot.
 * @ANE_FW_STATE_SUSPENDED: powered down while idle (runtime PM); the next
 *	command powers it up again, with every prepared program
 *	(Documentation/accel/ane/power.rst).
 */
enum drm_ane_fw_state {
	ANE_FW_STATE_OFF = 0,
	ANE_FW_STATE_BOOTING = 1,
	ANE_FW_STATE_READY = 2,
	ANE_FW_STATE_RECOVERING = 3,
	ANE_FW_STATE_DEAD = 4,
	ANE_FW_STATE_SUSPENDED = 5
};

/** @ANE_CLIENT_CONTROL: the client opened through the control space. */
#define ANE_CLIENT_CONTROL		0x1u
/** @ANE_CLIENT_DIRECT: the client opened through the direct-path space. */
#define ANE_CLIENT_DIRECT		0x2u
/** @ANE_CLIENT_PRIVILEGED: the client holds %ANE_CAP_PRIV_VM (privileged-VM-access). */
#define ANE_CLIENT_PRIVILEGED		0x4u
/** @ANE_CLIENT_CAPS_SHIFT: client_flags bits 31..16 are the capability set. */
#define ANE_CLIENT_CAPS_SHIFT		16

/**
 * DOC: ane capabilities
 *
 * Each open file has a capability set, fixed at open(2) from the opener's
 * credentials and the driver's policy (Documentation/accel/ane/security.rst)
 * and never widened; %DRM_IOCTL_ANE_CAPS_DROP removes bits irreversibly.
 * They are the Linux form of the entitlements of the seed's Listing 27.6
 * and Table 27.7, and of the privileged-VM-access check of Table 27.5.
 * GetStatus reports the set in bits 31..16 of @client_flags.
 */
/** @ANE_CAP_OPEN: DeviceOpen (com.apple.ane.iokit-user-access); else -EACCES. */
#define ANE_CAP_OPEN			0x001u
/** @ANE_CAP_DATA_CHAINING: the resident data-chaining selectors. */
#define ANE_CAP_DATA_CHAINING		0x002u
/** @ANE_CAP_REALTIME: program priorities 0 and 1, the real-time band. */
#define ANE_CAP_REALTIME		0x004u
/** @ANE_CAP_SYSTEM_PRIORITY: priority 0, the level the driver's own commands use. */
#define ANE_CAP_SYSTEM_PRIORITY		0x008u
/** @ANE_CAP_MEMORY: surfaces and DART mappings (SurfaceCreate, MemoryMapRequest). */
#define ANE_CAP_MEMORY			0x010u
/** @ANE_CAP_DATA: the engine-DMA view of memory (%DRM_IOCTL_ANE_DMA). */
#define ANE_CAP_DATA			0x020u
/** @ANE_CAP_CLIENT_HINTS: per-client hints (SessionHintRequest). */
#define ANE_CAP_CLIENT_HINTS		0x040u
/** @ANE_CAP_COALITION_HINTS: hints that apply beyond the client. */
#define ANE_CAP_COALITION_HINTS		0x080u
/** @ANE_CAP_PRIV_VM: privileged-VM-access: the debug work processor, raw methods. */
#define ANE_CAP_PRIV_VM			0x100u
/** @ANE_CAP_ALL: every capability bit defined. */
#define ANE_CAP_ALL			0x1ffu

/**
 * struct drm_ane_get_status - control selector 7: 0 / 0 / 0 / 32
 * @out: the status.
 */
struct drm_ane_get_status {
	struct drm_ane_status out;
};

/**
 * struct drm_ane_program_create_instance - control selector 8: 0 / 32 / 0 / 0
 * @program: token of the program the instance shares code with.
 * @weights: GEM handle of a surface holding the instance's own weights,
 *	0 to share the program's.
 * @token_ptr: user pointer to a __u64 that receives the instance token.
 * @flags: must be zero.
 * @reserved: must be zero.
 */
struct drm_ane_program_create_instance {
	__u64 program;
	__u32 weights;
	__u32 flags;
	__u64 token_ptr;
	__u64 reserved;
};

/** @ANE_CHAIN_INVALIDATE: ChainingPrepare tears down the chain @token. */
#define ANE_CHAIN_INVALIDATE		0x1u
/** @ANE_CHAIN_IN_GROUP: ChainingPrepare puts the chain in a sharing group. */
#define ANE_CHAIN_IN_GROUP		0x2u
/** @ANE_CHAIN_GROUP_SHIFT: the group (0..3) is flags bits 5..4. */
#define ANE_CHAIN_GROUP_SHIFT		4
/** @ANE_CHAIN_GROUP: the flags of sharing group @g (0..3). */
#define ANE_CHAIN_GROUP(g)		(ANE_CHAIN_IN_GROUP | (g) << ANE_CHAIN_GROUP_SHIFT)
/** @ANE_CHAIN_MAX_GROUPS: sharing groups of one program. */
#define ANE_CHAIN_MAX_GROUPS		4
/** @ANE_CHAIN_MAX_INPUTS: trigger input buffers (Table 29.4). */
#define ANE_CHAIN_MAX_INPUTS		16
/** @ANE_CHAIN_OUTPUT_SETS: output buffer sets of a chain (exactly one). */
#define ANE_CHAIN_OUTPUT_SETS		1

/**
 * struct drm_ane_chaining_prepare - control selector 9: 0 / 16 / 0 / 24
 * @token: program token (a prepared program of this client); with
 *	%ANE_CHAIN_INVALIDATE, the cache handle of the chain to tear down.
 * @procedure: procedure to chain: content type 0 or 3 (zero with
 *	%ANE_CHAIN_INVALIDATE).
 * @flags: 0, %ANE_CHAIN_GROUP(g), or %ANE_CHAIN_INVALIDATE alone.
 * @cache_handle: the firmware cache-request handle (output) that the
 *	direct-path selectors 3, 4 and 8 name.
 * @max_inputs: trigger input buffers the chain takes: the procedure's
 *	inputs (output).
 * @max_outputs: output buffer sets of the chain, %ANE_CHAIN_OUTPUT_SETS
 *	(output).
 * @reserved: zero.
 */
struct drm_ane_chaining_prepare {
	__u64 token;
	__u32 procedure;
	__u32 flags;
	__u64 cache_handle;
	__u32 max_inputs;
	__u32 max_outputs;
	__u64 reserved;
};

/**
 * struct drm_ane_get_version - control selector 10: 0 / 0 / 1 / 0
 * @version: bits 63..32 %ANE_UAPI_VERSION, bits 31..16 the hardware
 *	version (0x60), bits 15..0 the hardware minor version (17).
 */
struct drm_ane_get_version {
	__u64 version;
};

/**
 * struct drm_ane_register_dwp - control selector 11: 0 / 24 / 0 / 0
 * @buffer: GEM handle of the buffer debug items are copied into.
 * @flags: must be zero.
 * @size: usable size of @buffer in bytes.
 * @reserved: must be zero.
 */
struct drm_ane_register_dwp {
	__u32 buffer;
	__u32 flags;
	__u64 size;
	__u64 reserved;
};

/**
 * struct drm_ane_dwp_item - control selectors 13 and 14: 2 / 0 / 0 / 0
 * @item: debug item identifier.
 * @arg: for Get, the offset in the registered buffer to copy the item to;
 *	for Complete, the completion status.
 */
struct drm_ane_dwp_item {
	__u64 item;
	__u64 arg;
};

/**
 * struct drm_ane_load_firmware - control selector 16: 3 / 0 / 0 / 0
 * @image: firmware image address.
 * @size: firmware image size.
 * @flags: load flags.
 *
 * Inactive on this generation, as on the M1: always -EOPNOTSUPP.
 */
struct drm_ane_load_firmware {
	__u64 image;
	__u64 size;
	__u64 flags;
};

/**
 * struct drm_ane_output_set_enqueue - direct selector 3: 0 / 40 / 0 / 0
 * @cache_handle: chain the output set belongs to.
 * @output_set: output set index, below %ANE_CHAIN_OUTPUT_SETS.
 * @num_surfaces: surfaces in @surfaces: the procedure's outputs.
 * @surfaces: user pointer to an array of @num_surfaces
 *	&struct drm_ane_surface_ref, each %ANE_SURFACE_OUTPUT with @bar the
 *	output index (each once).
 * @flags: must be zero.
 * @reserved: must be zero.
 */
struct drm_ane_output_set_enqueue {
	__u64 cache_handle;
	__u32 output_set;
	__u32 num_surfaces;
	__u64 surfaces;
	__u64 flags;
	__u64 reserved;
};

/**
 * struct drm_ane_inputs_ready - direct selector 4: 0 / 3104 / 0 / 0
 * @cache_handle: chain to trigger.
 * @exec_timestamp: strictly increasing per chain (the first above 0).
 * @num_inputs: entries of @inputs in use, at most
 *	%ANE_CHAIN_MAX_INPUTS: the procedure's inputs.
 * @flags: must be zero.
 * @inputs: the trigger's input surfaces, @bar the input index (each
 *	once): %ANE_SURFACE_INPUT, or %ANE_SURFACE_CHAINED for an output
 *	surface of the chain's previous run; the rest all zero.
 * @reserved: must be zero.
 *
 * The run completes with a %DRM_ANE_EVENT_CHAIN_COMPLETE event.
 */
struct drm_ane_inputs_ready {
	__u64 cache_handle;
	__u64 exec_timestamp;
	__u32 num_inputs;
	__u32 flags;
	struct drm_ane_surface_ref inputs[16];
	__u8 reserved[2952];
};

/**
 * struct drm_ane_map_surface - one surface of a memory-map request
 * @handle: GEM handle.
 * @usage: usage code of Table 28.5.
 * @offset: byte offset into the surface, 16 KB aligned.
 * @size: bytes to map, 0 for the rest of the surface.
 */
struct drm_ane_map_surface {
	__u32 handle;
	__u32 usage;
	__u64 offset;
	__u64 size;
};

/**
 * struct drm_ane_memory_map_args - MemoryMapRequest body (2080 B)
 * @num_surfaces: entries of @surfaces in use, 1..%ANE_MAP_MAX_SURFACES;
 *	the rest must be all-zero.  Every surface of one request has the
 *	same @surfaces.usage.
 * @direction: DMA direction of the mapping: 0 none, 1 to the device (the
 *	engine reads), 2 from the device (the engine writes), 3 both.
 * @flags: must be zero.
 * @iova: for unmap, the device address to unmap; zero for map.
 * @surfaces: the surfaces, mapped contiguously in this order.
 * @reserved: must be zero.
 */
struct drm_ane_memory_map_args {
	__u32 num_surfaces;
	__u32 direction;
	__u64 flags;
	__u64 iova;
	struct drm_ane_map_surface surfaces[ANE_MAP_MAX_SURFACES];
	__u64 reserved[2];
};

/**
 * struct drm_ane_memory_map - direct selector 5: 1 / 2080 / 1 / 0
 * @token: session token from DeviceOpen.
 * @in: what to map.
 * @iova: the engine-visible device address (output).
 */
struct drm_ane_memory_map {
	__u64 token;
	struct drm_ane_memory_map_args in;
	__u64 iova;
};

/**
 * struct drm_ane_memory_unmap - direct selector 6: 0 / 2080 / 0 / 0
 * @in: what to unmap; @in.iova names the mapping.
 */
struct drm_ane_memory_unmap {
	struct drm_ane_memory_map_args in;
};

/**
 * enum drm_ane_session_hint_kind - what a SessionHintRequest tells
 * @ANE_HINT_RATE: the runs per second the client expects to submit
 *	(0: no expectation); at most %ANE_HINT_RATE_MAX.  Each run the client
 *	starts keeps the engine powered for two expected intervals.
 * @ANE_HINT_BURST_US: the client will submit back to back for this many
 *	microseconds from now (0 ends a burst); at most
 *	%ANE_HINT_BURST_MAX_US.  The engine is powered up now and kept
 *	powered until the burst ends.
 */
enum drm_ane_session_hint_kind {
	ANE_HINT_RATE = 1,
	ANE_HINT_BURST_US = 2
};

/** @ANE_HINT_RATE_MAX: the highest %ANE_HINT_RATE applied. */
#define ANE_HINT_RATE_MAX		100000
/** @ANE_HINT_BURST_MAX_US: the longest %ANE_HINT_BURST_US applied. */
#define ANE_HINT_BURST_MAX_US		1000000

/**
 * struct drm_ane_session_hint - direct selector 7: 0 / 16 / 0 / 24
 * @hint: &enum drm_ane_session_hint_kind.
 * @flags: must be zero.
 * @value: hint value.
 * @applied: the value the driver applied: @value clamped to the hint's
 *	maximum (output).
 * @previous: the value it replaced (output).
 * @reserved: zero.
 */
struct drm_ane_session_hint {
	__u32 hint;
	__u32 flags;
	__u64 value;
	__u64 applied;
	__u64 previous;
	__u64 reserved;
};

/**
 * struct drm_ane_chaining_set_active - direct selector 8: 0 / 32 / 0 / 0
 * @cache_handle: chain of the group to make its active member.
 * @group: buffer-sharing group, below %ANE_CHAIN_MAX_GROUPS: the chain's.
 * @procedure: the procedure to make active: the chain's.
 * @flags: must be zero.
 * @reserved: must be zero.
 *
 * Only the active member of a group may be triggered.
 */
struct drm_ane_chaining_set_active {
	__u64 cache_handle;
	__u32 group;
	__u32 procedure;
	__u64 flags;
	__u64 reserved;
};

/**
 * DOC: ane driver ioctls
 *
 * Besides the selectors, the driver has ioctls of its own at
 * DRM_COMMAND_BASE + 0x30 and up.  They follow DRM's usual rules (DRM's
 * core handles their sizes), and every reserved field must be zero.
 *
 * - %DRM_IOCTL_ANE_SURFACE_CREATE makes a surface: a GEM object whose every
 *   16 KB engine page is one physically contiguous, 16 KB-aligned frame.
 *   Close it with %DRM_IOCTL_GEM_CLOSE; share it with PRIME.
 * - %DRM_IOCTL_ANE_DMA reads or writes memory *as the engine would* for the
 *   calling client: through its DART isolation context.  It is how
 *   userspace observes the translation (and its faults) directly.
 * - %DRM_IOCTL_ANE_GET_FAULT returns the client's newest DART fault record.
 * - %DRM_IOCTL_ANE_CAPS_DROP removes capabilities from the file for good.
 *
 * %DRM_IOCTL_ANE_DMA and %DRM_IOCTL_ANE_GET_FAULT need an open client
 * (after DeviceOpen, before DeviceClose), like the selectors.
 */

/**
 * struct drm_ane_surface_create - create a surface
 * @size: bytes; rounded up to 16 KB (a sub-page surface takes a whole
 *	page); at most 1 GiB.
 * @flags: must be zero.
 * @handle: the GEM handle (output).
 * @offset: the fake offset to mmap() the surface at (output).
 * @reserved: must be zero.
 */
struct drm_ane_surface_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 offset;
	__u64 reserved;
};

/** @ANE_DMA_WRITE: &struct drm_ane_dma writes memory instead of reading. */
#define ANE_DMA_WRITE			0x1u
/** @ANE_DMA_MAX_SIZE: largest single &struct drm_ane_dma transfer. */
#define ANE_DMA_MAX_SIZE		(16u << 20)

/**
 * struct drm_ane_dma - engine DMA through the client's isolation context
 * @iova: device address.
 * @size: bytes, 1 .. %ANE_DMA_MAX_SIZE.
 * @data: user pointer to @size bytes to fill (read) or take (write).
 * @flags: 0 to read memory, %ANE_DMA_WRITE to write it.
 * @reserved: must be zero.
 *
 * A translation fault fails the call with -ENXIO; the fault record is
 * then available from %DRM_IOCTL_ANE_GET_FAULT.
 */
struct drm_ane_dma {
	__u64 iova;
	__u64 size;
	__u64 data;
	__u32 flags;
	__u32 reserved;
};

/**
 * enum drm_ane_fault_code - DART fault codes (the record's @hw_error)
 * @ANE_FAULT_NONE: no fault.
 * @ANE_FAULT_L2_INVALID: no L2 table descriptor for the address.
 * @ANE_FAULT_L3_INVALID: no valid leaf PTE for the address.
 * @ANE_FAULT_APERTURE: the address is outside 0..0xe0000000.
 * @ANE_FAULT_CEILING: the address is at or above 4 GiB.
 * @ANE_FAULT_STREAM: the stream is disabled or has no valid table base.
 */
enum drm_ane_fault_code {
	ANE_FAULT_NONE = 0,
	ANE_FAULT_L2_INVALID = 1,
	ANE_FAULT_L3_INVALID = 2,
	ANE_FAULT_APERTURE = 3,
	ANE_FAULT_CEILING = 4,
	ANE_FAULT_STREAM = 5
};

/**
 * struct drm_ane_dart_fault - an IODARTErrorInfo-shaped fault record
 * @seq: device-wide fault number, from 1; 0 when there is no record.
 * @address: the faulting device address.
 * @hw_status: the raw DART error-status word (bit 31 flag, bit 30 write,
 *	bits 27..24 stream id, bits 7..0 code).
 * @hw_error: &enum drm_ane_fault_code.
 * @hw_class: 1 translation, 2 aperture, 3 stream.
 * @is_write: 0 read fault, 1 write fault.
 * @sid: stream id of the faulting agent.
 * @ttbr_index: translation-table base index.
 * @l2_index: L2 index of the walk.
 * @l3_index: L3 index of the walk.
 * @axi_id: AXI ids; slot 0 holds the stream id.
 * @ctx_id: the isolation context the stream was bound to.
 * @reserved: zero.
 */
struct drm_ane_dart_fault {
	__u64 seq;
	__u64 address;
	__u32 hw_status;
	__u32 hw_error;
	__u32 hw_class;
	__u32 is_write;
	__u32 sid;
	__u32 ttbr_index;
	__u32 l2_index;
	__u32 l3_index;
	__u32 axi_id[4];
	__u32 ctx_id;
	__u32 reserved;
};

/**
 * struct drm_ane_get_fault - the client's newest DART fault
 * @flags: must be zero.
 * @count: faults charged to this client (output).
 * @fault: the newest record (output; @fault.seq is 0 if none is kept).
 */
struct drm_ane_get_fault {
	__u32 flags;
	__u32 count;
	struct drm_ane_dart_fault fault;
};

/**
 * enum drm_ane_method - the methods of ch. 27 Table 27.5 the driver serves
 * @ANE_METHOD_POWER_ON: power the engine up now and keep it up for this
 *	file (its power hold) until POWER_OFF or close.  @result: 1.
 * @ANE_METHOD_POWER_OFF: drop this file's power hold, if any, and power
 *	the engine down now unless something else keeps it up.  @result: 1
 *	if it is powered down now, else 0.
 * @ANE_METHOD_IS_POWERED: @result: 1 if the engine is powered up, else 0.
 * @ANE_METHOD_ADD_PERSISTENT_CLIENT: keep the device resident (powered)
 *	while this file is a persistent client; -EALREADY if it is one.
 * @ANE_METHOD_REMOVE_PERSISTENT_CLIENT: no longer; -ENOENT if it was not.
 * @ANE_METHOD_SET_POWER_MANAGEMENT: @value 1 lets the engine power down
 *	when idle, 0 keeps it up (the device's power/control ``auto`` and
 *	``on``).  %ANE_CAP_PRIV_VM.
 * @ANE_METHOD_SET_DYNAMIC_POWER_GATING: @value 1 powers an idle engine
 *	down after the hysteresis time, 0 never for idleness.
 *	%ANE_CAP_PRIV_VM.
 * @ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME: @value the idle time in
 *	ms before power-down, 0 .. %ANE_POWER_HYSTERESIS_MAX_MS (the
 *	device's power/autosuspend_delay_ms).  %ANE_CAP_PRIV_VM.
 * @ANE_METHOD_SET_THROTTLING_PERCENTAGE: @value 1..100: the engine runs at
 *	that percent of its speed (its work takes 100 / @value times as
 *	long; sysfs throttle_percent).  %ANE_CAP_PRIV_VM.
 * @ANE_METHOD_SET_DART_CACHE_TTL: @value 0 .. %ANE_DART_CACHE_TTL_MAX_MS:
 *	how long, in ms, a surface's cached request mapping that no request
 *	uses stays mapped in its client's DART context (0: until the handle
 *	is closed, the default).  @result: the previous setting.
 *	%ANE_CAP_PRIV_VM.
 * @ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS: unmap the cached request
 *	mappings no request uses: @value 0 this file's, 1 every client's
 *	(%ANE_CAP_PRIV_VM).  @result: how many were unmapped.
 * @ANE_METHOD_UNMAP_DART_BUFFERS: unmap a client's DART buffers that no
 *	request uses (its MemoryMapRequest mappings and cached request
 *	mappings): @value 0 this file's, else the client id of
 *	%ANE_METHOD_GET_CLIENTS_INFO (another client's: %ANE_CAP_PRIV_VM;
 *	unknown: -ESRCH).  @result: how many were unmapped.
 * @ANE_METHOD_READ_ANE_REGISTER: @value ANE_METHOD_REG(bank, offset, 0):
 *	@result the register's value.  %ANE_CAP_PRIV_VM.
 * @ANE_METHOD_WRITE_ANE_REGISTER: @value ANE_METHOD_REG(bank, offset,
 *	value): write a register of the writable set (-EACCES for any
 *	other).  %ANE_CAP_PRIV_VM.
 * @ANE_METHOD_SEND_COMMAND: %DRM_IOCTL_ANE_METHOD_BUF only: a raw firmware
 *	control command (header and body) sent on the control ring; the
 *	reply data comes back in the buffer.  %ANE_CAP_PRIV_VM.
 * @ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING: @value 1..4: ring that
 *	firmware doorbell (ANE_FW_DB_H2T .. ANE_FW_DB_CONSUMED): the firmware
 *	looks at that ring again.  %ANE_CAP_PRIV_VM.  @value
 *	ANE_DOORBELL_SHARED_EVENT(id): ring the caller's shared event
 *	(no capability; -ENOENT if it is not the caller's), releasing the
 *	requests that wait for it; @result: its rings since activation.
 * @ANE_METHOD_SHARED_EVENT_ACTIVATE: activate the firmware's shared event
 *	for this file (until DEACTIVATE or close); @value 0; @result its id,
 *	%ANE_SHARED_EVENT_ID.  Fewer than 2 are active (the firmware's
 *	sharedEventsActiveNbr < 2): -EBUSY while one is.
 *	%ANE_CAP_DATA_CHAINING.
 * @ANE_METHOD_SHARED_EVENT_DEACTIVATE: @value the id: deactivate it;
 *	requests still waiting on it fail with -ECANCELED.  -ENOENT if it is
 *	not this file's active shared event.
 * @ANE_METHOD_GET_CLIENTS_INFO: %DRM_IOCTL_ANE_METHOD_BUF only: one
 *	&struct drm_ane_client_info per client.
 * @ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS: %DRM_IOCTL_ANE_METHOD_BUF
 *	only: one &struct drm_ane_shmem_info per surface handle.
 * @ANE_METHOD_SHOW_MODEL_MEMORY_STATUS: %DRM_IOCTL_ANE_METHOD_BUF only:
 *	one &struct drm_ane_model_info per program or instance.
 * @ANE_METHOD_LOAD_FIRMWARE: -EOPNOTSUPP, as selector 16 on the M1.
 * @ANE_METHOD_FORGET_FIRMWARE: -EOPNOTSUPP: the firmware is the driver's.
 * @ANE_METHOD_EXCLAVE_CYCLE: -EOPNOTSUPP, as on a machine without the
 *	secure world; so are the five other exclave methods.
 * @ANE_METHOD_EXCLAVE_LOAD: as @ANE_METHOD_EXCLAVE_CYCLE.
 * @ANE_METHOD_EXCLAVE_EVALUATE: as @ANE_METHOD_EXCLAVE_CYCLE.
 * @ANE_METHOD_EXCLAVE_UNLOAD: as @ANE_METHOD_EXCLAVE_CYCLE.
 * @ANE_METHOD_EXCLAVE_READ_PROPERTY: as @ANE_METHOD_EXCLAVE_CYCLE.
 * @ANE_METHOD_EXCLAVE_WRITE_PROPERTY: as @ANE_METHOD_EXCLAVE_CYCLE.
 *
 * Any other number is -EINVAL.
 */
enum drm_ane_method {
	ANE_METHOD_POWER_ON = 1,
	ANE_METHOD_POWER_OFF = 2,
	ANE_METHOD_IS_POWERED = 3,
	ANE_METHOD_ADD_PERSISTENT_CLIENT = 4,
	ANE_METHOD_REMOVE_PERSISTENT_CLIENT = 5,
	ANE_METHOD_SET_POWER_MANAGEMENT = 6,
	ANE_METHOD_SET_DYNAMIC_POWER_GATING = 7,
	ANE_METHOD_SET_POWER_GATING_HYSTERESIS_TIME = 8,
	ANE_METHOD_SET_THROTTLING_PERCENTAGE = 9,
	ANE_METHOD_SET_DART_CACHE_TTL = 10,
	ANE_METHOD_FLUSH_INACTIVE_DART_MAPPINGS = 11,
	ANE_METHOD_UNMAP_DART_BUFFERS = 12,
	ANE_METHOD_READ_ANE_REGISTER = 13,
	ANE_METHOD_WRITE_ANE_REGISTER = 14,
	ANE_METHOD_SEND_COMMAND = 15,
	ANE_METHOD_FW_SHARED_EVENT_DOORBELL_RING = 16,
	ANE_METHOD_GET_CLIENTS_INFO = 17,
	ANE_METHOD_SHOW_SHARED_MEMORY_ALLOCATIONS = 18,
	ANE_METHOD_SHOW_MODEL_MEMORY_STATUS = 19,
	ANE_METHOD_SHARED_EVENT_ACTIVATE = 20,
	ANE_METHOD_SHARED_EVENT_DEACTIVATE = 21,
	ANE_METHOD_LOAD_FIRMWARE = 32,
	ANE_METHOD_FORGET_FIRMWARE = 33,
	ANE_METHOD_EXCLAVE_CYCLE = 48,
	ANE_METHOD_EXCLAVE_LOAD = 49,
	ANE_METHOD_EXCLAVE_EVALUATE = 50,
	ANE_METHOD_EXCLAVE_UNLOAD = 51,
	ANE_METHOD_EXCLAVE_READ_PROPERTY = 52,
	ANE_METHOD_EXCLAVE_WRITE_PROPERTY = 53
};

/* The longest power-gating hysteresis time a method may set, in ms. */
#define ANE_POWER_HYSTERESIS_MAX_MS	600000
/* The longest DART cache time-to-live a method may set, in ms. */
#define ANE_DART_CACHE_TTL_MAX_MS	3600000

/* The id of the shared event, as ANE_METHOD_SHARED_EVENT_ACTIVATE returns it. */
#define ANE_SHARED_EVENT_ID		1
/* FWSharedEventDoorbellRing's @value that rings shared event @id. */
#define ANE_DOORBELL_SHARED_EVENT(id)	((1ULL << 32) | (__u32)(id))

/*
 * The @value of the register methods: bank (&enum ane_hw_bank of
 * firmware/spec/ane_regs.h) in bits 63..56, byte offset in 55..32, the
 * value written in 31..0 (0 for a read).
 */
#define ANE_METHOD_REG(bank, off, val) \
	(((__u64)(bank) << 56) | ((__u64)(off) << 32) | (__u32)(val))

/* The longest command SendCommand takes, header included, in bytes. */
#define ANE_METHOD_CMD_MAX		4096

/* The records of the diagnostics methods a buffer may ask for at most. */
#define ANE_METHOD_MAX_RECORDS		4096

/**
 * struct drm_ane_method_buf - a method of Table 27.5 with a buffer
 * @method: &enum drm_ane_method: %ANE_METHOD_SEND_COMMAND or a
 *	diagnostics method (any other: -EINVAL).
 * @flags: must be zero.
 * @ptr: user address of the buffer.
 * @size: its size in bytes.  SEND_COMMAND: the command, a
 *	&struct ane_fw_cmd_hdr and its body (whose size the header's
 *	must match, else -EBADMSG), %ANE_METHOD_CMD_MAX bytes at most
 *	(-E2BIG) and no longer than a ring slot (-EMSGSIZE); the reply data
 *	overwrites it.  Diagnostics: 0 asks for @total only,
 *	else room for one record at least (-EINVAL).
 * @len: bytes written to the buffer (output).
 * @count: records written (output; diagnostics).
 * @total: records there are, even if the buffer held fewer (output).
 * @result: the method's answer (output; 0 for these).
 * @reserved: must be zero.
 *
 * Without %ANE_CAP_PRIV_VM the diagnostics show the caller's own file
 * only; with it, every client of the device.
 */
struct drm_ane_method_buf {
	__u32 method;
	__u32 flags;
	__u64 ptr;
	__u32 size;
	__u32 len;
	__u32 count;
	__u32 total;
	__u64 result;
	__u64 reserved[2];
};

/* &drm_ane_client_info.flags */
#define ANE_CLIENT_INFO_SELF		0x1u	/* the calling file */
#define ANE_CLIENT_INFO_POWER_HOLD	0x2u	/* PowerOn holds the engine */
#define ANE_CLIENT_INFO_PERSISTENT	0x4u	/* a persistent client */

/**
 * struct drm_ane_client_info - a GetClientsInfo record: one open file
 * @client_id: the DRM client id (fdinfo drm-client-id).
 * @pid: the opener's thread-group id, in the caller's pid namespace
 *	(0 if not visible there).
 * @uid: the opener's effective uid, in the caller's user namespace.
 * @caps: its %ANE_CAP_* set.
 * @state: 0 opened, 1 after DeviceOpen, 2 after DeviceClose.
 * @space: 0 control, 1 direct path (after DeviceOpen).
 * @flags: ANE_CLIENT_INFO_*.
 * @programs: programs and instances it holds.
 * @mappings: its MemoryMapRequest mappings.
 * @cached_mappings: its surfaces' cached request mappings.
 * @pad: zero.
 * @submitted: requests it submitted.
 * @completed: requests of it that completed.
 * @engine_ns: engine time of those.
 */
struct drm_ane_client_info {
	__u64 client_id;
	__u32 pid;
	__u32 uid;
	__u32 caps;
	__u32 state;
	__u32 space;
	__u32 flags;
	__u32 programs;
	__u32 mappings;
	__u32 cached_mappings;
	__u32 pad;
	__u64 submitted;
	__u64 completed;
	__u64 engine_ns;
};

/* &drm_ane_shmem_info.flags */
#define ANE_SHMEM_IMPORTED		0x1u	/* a dma-buf of another device */
#define ANE_SHMEM_EXPORTED		0x2u	/* exported as a dma-buf */

/**
 * struct drm_ane_shmem_info - a ShowSharedMemoryAllocations record
 * @client_id: the client holding the handle.
 * @size: the surface's size in bytes.
 * @handle: its GEM handle in that client.
 * @flags: ANE_SHMEM_*.
 */
struct drm_ane_shmem_info {
	__u64 client_id;
	__u64 size;
	__u32 handle;
	__u32 flags;
};

/* &drm_ane_model_info.flags */
#define ANE_MODEL_PREPARED		0x1u	/* loaded into the firmware */
#define ANE_MODEL_INSTANCE		0x2u	/* an instance of a program */
#define ANE_MODEL_ATTACHED		0x4u	/* attached from another client */

/**
 * struct drm_ane_model_info - a ShowModelMemoryStatus record
 * @client_id: the client holding the program.
 * @token: its program token (0 for another client's).
 * @image_bytes: the program image in device memory.
 * @inter_bytes: its intermediate buffer (0 if none).
 * @weights_bytes: an instance's own weights surface (0 if none).
 * @slot: firmware program slot, -1 when not prepared.
 * @fw_pid: firmware process id, -1 when not prepared.
 * @flags: ANE_MODEL_*.
 * @inflight: its requests in flight.
 */
struct drm_ane_model_info {
	__u64 client_id;
	__u64 token;
	__u64 image_bytes;
	__u64 inter_bytes;
	__u64 weights_bytes;
	__s32 slot;
	__s32 fw_pid;
	__u32 flags;
	__u32 inflight;
};

/**
 * struct drm_ane_method_args - one method of Table 27.5
 * @method: &enum drm_ane_method.
 * @flags: must be zero.
 * @value: the method's argument (0 for those without one).
 * @result: the method's answer (output; 0 for those without one).
 * @reserved: must be zero.
 *
 * A method answers on any open file of the device, before or after
 * DeviceOpen, in either space; the ones that set the device's policy need
 * %ANE_CAP_PRIV_VM, POWER_ON and ADD_PERSISTENT_CLIENT %ANE_CAP_OPEN
 * (-EPERM).  Documentation/accel/ane/power.rst.
 */
struct drm_ane_method_args {
	__u32 method;
	__u32 flags;
	__u64 value;
	__u64 result;
	__u64 reserved[2];
};

/**
 * struct drm_ane_caps_drop - drop capabilities from this file, for good
 * @drop: %ANE_CAP_* bits to remove (0 removes nothing: a query).
 * @caps: the file's capability set after the drop (output).
 * @flags: must be zero.
 * @reserved: must be zero.
 *
 * Any file may call it, before or after DeviceOpen; a bit once dropped
 * never comes back on this file or on any duplicate of it (dup(2),
 * SCM_RIGHTS: they are the same open file).  A broker drops what the
 * client it hands the file to must not have.  Unknown bits in @drop,
 * non-zero @flags or @reserved: -EINVAL.
 */
struct drm_ane_caps_drop {
	__u32 drop;
	__u32 caps;
	__u32 flags;
	__u32 reserved;
};

#define DRM_ANE_SURFACE_CREATE		0x30
#define DRM_ANE_DMA			0x31
#define DRM_ANE_GET_FAULT		0x32
#define DRM_ANE_CAPS_DROP		0x38
#define DRM_ANE_METHOD			0x3c
#define DRM_ANE_METHOD_BUF		0x3d

#define DRM_IOCTL_ANE_SURFACE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_SURFACE_CREATE, struct drm_ane_surface_create)
#define DRM_IOCTL_ANE_DMA \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_DMA, struct drm_ane_dma)
#define DRM_IOCTL_ANE_GET_FAULT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_GET_FAULT, struct drm_ane_get_fault)
#define DRM_IOCTL_ANE_CAPS_DROP \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_CAPS_DROP, struct drm_ane_caps_drop)
#define DRM_IOCTL_ANE_METHOD \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_METHOD, struct drm_ane_method_args)
#define DRM_IOCTL_ANE_METHOD_BUF \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_METHOD_BUF, struct drm_ane_method_buf)

/**
 * DOC: ane program hand-off
 *
 * A control client prepares a program and exports it as a file descriptor
 * with %DRM_IOCTL_ANE_PROGRAM_EXPORT; it passes the descriptor to a
 * direct-path client in another process (over a unix socket, by fork or
 * exec), which attaches it with %DRM_IOCTL_ANE_PROGRAM_ATTACH and gets a
 * program token of its own that its selectors name.  Attaching succeeds
 * only for the exporter's identity: the same effective uid in the same
 * user namespace, on the same device.  Anyone else gets -EACCES and
 * learns nothing about the program.  See
 * Documentation/accel/ane/resident.rst.
 */

/**
 * struct drm_ane_program_export - export a prepared program
 * @token: the control client's program token (not an instance); the
 *	program must be prepared.
 * @flags: must be zero.
 * @fd: the export file descriptor, close-on-exec (output; must be zero
 *	on input).
 * @reserved: must be zero.
 */
struct drm_ane_program_export {
	__u64 token;
	__u32 flags;
	__s32 fd;
	__u64 reserved;
};

/** @ANE_ATTACH_DETACH: &struct drm_ane_program_attach detaches @token. */
#define ANE_ATTACH_DETACH		0x1u

/**
 * struct drm_ane_program_attach - attach an exported program, or detach
 * @fd: a descriptor from %DRM_IOCTL_ANE_PROGRAM_EXPORT; zero with
 *	%ANE_ATTACH_DETACH.
 * @flags: 0 to attach, %ANE_ATTACH_DETACH to detach @token.
 * @token: the attached program's token in the calling client (output;
 *	must be zero on input); with %ANE_ATTACH_DETACH the input: the
 *	attached program to drop.
 * @num_procedures: procedures of the program (output; zero on input).
 * @reserved: must be zero.
 */
struct drm_ane_program_attach {
	__s32 fd;
	__u32 flags;
	__u64 token;
	__u32 num_procedures;
	__u32 reserved;
};

#define DRM_ANE_PROGRAM_EXPORT		0x39
#define DRM_ANE_PROGRAM_ATTACH		0x3a

#define DRM_IOCTL_ANE_PROGRAM_EXPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_PROGRAM_EXPORT, struct drm_ane_program_export)
#define DRM_IOCTL_ANE_PROGRAM_ATTACH \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_PROGRAM_ATTACH, struct drm_ane_program_attach)

/**
 * DOC: ane program image
 *
 * A compiled program is one little-endian image that ProgramCreate takes
 * from userspace and the kernel validates byte for byte before the
 * firmware ever sees it.  Every offset is from the start of the image and
 * every section lies inside it, after the header, without overlapping
 * another.  The alignment scales of the M1 apply: tables start on the
 * 16-byte DMA granule, the task-descriptor section on a 256-byte segment,
 * and the weights and constants sections -- which are mapped through the
 * DART on their own -- on a 16 KB page.
 *
 * - &struct ane_img_header: magic, version, the section table.
 * - &struct ane_img_procedure[num_procedures]: each procedure's task
 *   descriptors (one partition on this generation) and register writes.
 * - &struct ane_img_td[num_tds]: the 35-word register block of a task,
 *   one engine operation each.
 * - &struct ane_img_rw[num_rws]: the 44-byte register-write records that
 *   bind a task's operand registers to buffer-access-register (bar)
 *   slots and offsets, i.e. to DRAM-tile operands.
 * - &struct ane_img_bar[num_bars]: at most 32 bar slots, each with its
 *   usage code of Table 28.5 and the bytes it must provide.
 * - weights and constants: raw fp16 data the program reads.
 */

/** @ANE_IMG_MAGIC: "ANE1" */
#define ANE_IMG_MAGIC			0x31454e41u
/** @ANE_IMG_VERSION_MAJOR: images of another major version are refused. */
#define ANE_IMG_VERSION_MAJOR		1
/*
 * Minor 1 adds the execute orders, minor 2 the operand layouts of a
 * matmul (ANE_TD_SRC0_LAYOUT ..), minor 3 the strided copy (op 8,
 * ANE_TD_COPY_SRC_STRIDE ..), minor 4 the reduction (op 9: its kind in
 * ANE_TD_SUBOP, its axes in ANE_TD_FLAGS), the log-softmax over W
 * (normalization kind 2) and layer normalization's epsilon
 * (ANE_TD_NORM_EPS, word 4 of op 7; zero: 1e-5, as before), the unary
 * math activations 7-26 (ANE_TD_ACT; 20-26 parametric: an activation
 * task's ANE_TD_ACT_ALPHA and ANE_TD_ACT_BETA) and the elementwise
 * division and power (ANE_TD_SUBOP 5 and 6) and the gather (op 10:
 * rows of its first source picked by the int16 indices of its second),
 * each in fields or values that were reserved (zero, or refused) before.
 */
/** @ANE_IMG_VERSION_MINOR: newer minor versions are accepted. */
#define ANE_IMG_VERSION_MINOR		4
/** @ANE_IMG_MAX_SIZE: largest image. */
#define ANE_IMG_MAX_SIZE		(256u << 20)
/** @ANE_IMG_MAX_PROCEDURES: procedure ids are below 288 (ch. 30). */
#define ANE_IMG_MAX_PROCEDURES		288
/** @ANE_IMG_MAX_TDS: task descriptors in one image. */
#define ANE_IMG_MAX_TDS			4096
/** @ANE_IMG_MAX_RWS: register-write records in one image. */
#define ANE_IMG_MAX_RWS			16384
/** @ANE_IMG_MAX_BARS: buffer-access-register slots. */
#define ANE_IMG_MAX_BARS		32
/** @ANE_IMG_MAX_IO: inputs or outputs of one procedure. */
#define ANE_IMG_MAX_IO			16
/** @ANE_IMG_MAX_EXEC_ORDER: entries of one procedure's execute order. */
#define ANE_IMG_MAX_EXEC_ORDER		128
/** @ANE_IMG_MAX_EXEC_TABLE: entries of an image's execute-order table. */
#define ANE_IMG_MAX_EXEC_TABLE		16384
/**
 * ANE_IMG_EXEC() - an execute-order entry, a run of task descriptors
 * @start: the run's first, relative to &ane_img_procedure.first_td.
 * @n: how many, in image order; 0: to the procedure's end.
 */
#define ANE_IMG_EXEC(start, n)		((__u32)(start) | (__u32)(n) << 16)
/** @ANE_TD_WORDS: words of a task descriptor's register block. */
#define ANE_TD_WORDS			35

/**
 * struct ane_img_header - program image header (128 bytes, at offset 0)
 * @magic: %ANE_IMG_MAGIC.
 * @version_major: %ANE_IMG_VERSION_MAJOR.
 * @version_minor: any; newer than %ANE_IMG_VERSION_MINOR is accepted.
 * @header_size: sizeof(struct ane_img_header).
 * @flags: must be zero.
 * @image_size: bytes of the whole image; equals ProgramCreate's size.
 * @num_procedures: 1 .. %ANE_IMG_MAX_PROCEDURES.
 * @procedures_offset: table of &struct ane_img_procedure, 16-byte aligned.
 * @num_tds: 1 .. %ANE_IMG_MAX_TDS.
 * @tds_offset: table of &struct ane_img_td, 256-byte aligned.
 * @num_rws: 0 .. %ANE_IMG_MAX_RWS.
 * @rws_offset: table of &struct ane_img_rw, 16-byte aligned (0 if none).
 * @num_bars: 0 .. %ANE_IMG_MAX_BARS.
 * @bars_offset: table of &struct ane_img_bar, 16-byte aligned (0 if none).
 * @weights_offset: weights section, 16 KB aligned (0 if none).
 * @weights_size: bytes of weights.
 * @constants_offset: constants section, 16 KB aligned (0 if none).
 * @constants_size: bytes of constants.
 * @intermediate_size: scratch bytes the program needs at run time.
 * @num_exec_order: entries of the execute-order table, 0 ..
 *	%ANE_IMG_MAX_EXEC_TABLE (minor version 1; zero before).
 * @exec_order_offset: the execute-order table, __u32 ANE_IMG_EXEC()
 *	entries, 16-byte aligned (0 if none).
 * @reserved: must be zero.
 */
struct ane_img_header {
	__u32 magic;
	__u16 version_major;
	__u16 version_minor;
	__u32 header_size;
	__u32 flags;
	__u64 image_size;
	__u32 num_procedures;
	__u32 procedures_offset;
	__u32 num_tds;
	__u32 tds_offset;
	__u32 num_rws;
	__u32 rws_offset;
	__u32 num_bars;
	__u32 bars_offset;
	__u64 weights_offset;
	__u64 weights_size;
	__u64 constants_offset;
	__u64 constants_size;
	__u64 intermediate_size;
	__u32 num_exec_order;
	__u32 exec_order_offset;
	__u32 reserved[6];
};

/**
 * struct ane_img_procedure - one procedure (32 bytes)
 * @first_td: index of its first task descriptor.
 * @num_tds: its task descriptors, at least 1, run in order.
 * @first_rw: index of its first register-write record.
 * @num_rws: its register-write records.
 * @num_inputs: input surfaces a request provides, 0 .. %ANE_IMG_MAX_IO.
 * @num_outputs: output surfaces, 1 .. %ANE_IMG_MAX_IO.
 * @partitions: task-descriptor partitions; exactly 1 on this generation.
 * @content_type: procedure content type: 0, 3 or 4 (ch. 30).
 * @exec_order_first: the first entry of its execute order in the image's
 *	execute-order table.
 * @exec_order_count: entries of its execute order, 0 .. %ANE_IMG_MAX_EXEC_ORDER
 *	(minor version 1; zero before): the runs of task descriptors a call
 *	of the procedure executes, in that order, each entry an
 *	ANE_IMG_EXEC() of the procedure's task descriptors; 0: all of them,
 *	once, in image order.  The runs of one order total at most
 *	%ANE_IMG_MAX_TDS task descriptors.
 */
struct ane_img_procedure {
	__u32 first_td;
	__u32 num_tds;
	__u32 first_rw;
	__u32 num_rws;
	__u16 num_inputs;
	__u16 num_outputs;
	__u32 partitions;
	__u32 content_type;
	__u16 exec_order_first;
	__u16 exec_order_count;
};

/**
 * enum ane_td_word - the words of a task descriptor's register block
 * @ANE_TD_OP: the operation (1 conv, 2 matmul, 3 elementwise,
 *	4 activation, 5 pooling, 6 softmax over C, 7 normalization over W,
 *	8 strided copy (minor version 3), 9 reduction (minor version 4),
 *	10 gather (minor version 4)).
 * @ANE_TD_ACT: the fused activation (0 none, 1 relu, 2 relu6, 3 sigmoid,
 *	4 tanh, 5 gelu, 6 gelu with the tanh form; minor version 4: 7 silu,
 *	8 exp, 9 log, 10 sqrt, 11 reciprocal, 12 erf, 13 abs, 14 neg,
 *	15 softplus, 16 softsign, 17 hard-swish, 18 sin, 19 cos, and the
 *	parametric 20 elu, 21 selu, 22 leaky relu, 23 clip, 24 hard sigmoid,
 *	25 celu, 26 thresholded relu, which only an activation task (op 4)
 *	may name).
 * @ANE_TD_SUBOP: elementwise operation (0 add, 1 sub, 2 mul, 3 max,
 *	4 min; minor version 4: 5 div, 6 pow), pooling kind, normalization
 *	kind (0 softmax, 1 layer normalization, 2 log-softmax (minor
 *	version 4)) or reduction kind (0 sum, 1 mean, 2 max, 3 min,
 *	4 product, 5 sum of squares, 6 L1, 7 L2, 8 log of the sum,
 *	9 log of the sum of exponentials).
 * @ANE_TD_FLAGS: operation flags (matmul transpose-B, average pooling
 *	including padding); a reduction's axes (bit 0 N, 1 C, 2 H, 3 W;
 *	at least one, no other bit).
 * @ANE_TD_STRIDE_H: vertical stride (conv, pooling).
 * @ANE_TD_STRIDE_W: horizontal stride.
 * @ANE_TD_DILATION_H: vertical dilation (conv).
 * @ANE_TD_DILATION_W: horizontal dilation.
 * @ANE_TD_PAD_TOP: zero padding above.
 * @ANE_TD_PAD_BOTTOM: below.
 * @ANE_TD_PAD_LEFT: left.
 * @ANE_TD_PAD_RIGHT: right.
 * @ANE_TD_GROUPS: convolution groups.
 * @ANE_TD_KERNEL_H: pooling window height.
 * @ANE_TD_KERNEL_W: pooling window width.
 * @ANE_TD_SRC0_DIMS: N, C, H, W of the first source (4 words).
 * @ANE_TD_SRC1_DIMS: second source or weights (4 words).
 * @ANE_TD_BIAS_DIMS: bias (4 words, all zero for none).
 * @ANE_TD_DST_DIMS: destination (4 words).
 * @ANE_TD_SRC0_LAYOUT: the first source's layout, ANE_TD_LAYOUT() (minor
 *	version 2; zero: dense).
 * @ANE_TD_SRC1_LAYOUT: the second source's.
 * @ANE_TD_BIAS_LAYOUT: the bias's.
 * @ANE_TD_DST_LAYOUT: the destination's.
 * @ANE_TD_COPY_SRC_STRIDE: a copy's source strides N, C, H, W, in
 *	elements, each a __s32 (4 words, 4-7; minor version 3): negative
 *	walks backwards, 0 repeats an element.
 * @ANE_TD_COPY_SRC_OFFSET: the element of the source's binding at which
 *	its view's element [0][0][0][0] is (word 8).
 * @ANE_TD_COPY_DST_STRIDE: a copy's destination strides N, C, H, W, each
 *	0 .. 2^31 - 1 as a __s32, no two elements at one address (4 words,
 *	9-12).
 * @ANE_TD_COPY_DST_OFFSET: the element of the destination's binding at
 *	which its view's element [0][0][0][0] is (word 13).
 * @ANE_TD_NORM_EPS: a layer normalization's epsilon, the bits of an fp32
 *	that is finite and greater than zero (word 4 of op 7, minor version
 *	4); zero: 1e-5, and zero for the other normalization kinds.
 * @ANE_TD_ACT_ALPHA: an activation task's (op 4) alpha, the fp32 bit
 *	pattern, finite (minor version 4; word 4): elu, selu and celu's
 *	alpha (celu's not zero), leaky relu's slope, clip's lower bound,
 *	hard sigmoid's slope, thresholded relu's threshold.  Zero for every
 *	other operation and activation.
 * @ANE_TD_ACT_BETA: its beta, likewise (word 5): selu's scale (gamma),
 *	clip's upper bound, hard sigmoid's offset; zero for the others.
 *
 * Unused words must be zero.  Tensors are NCHW fp16, dense unless a
 * matmul's operand names a layout: its row stride R (elements between
 * rows, 0 for W, else at least W) and plane stride P (elements between
 * its C planes, 0 for H * R, else at least W); element [n][c][h][w] is
 * then at n * C * P + c * P + h * R + w.  Only a matmul's operands have
 * a layout; an absent operand's word is zero.  Where each operand starts
 * is bound by the procedure's register-write records.
 *
 * A copy (op 8) moves the elements of a view of its source's binding
 * into a view of its destination's, the fp16 bits unchanged: destination
 * element [n][c][h][w] (its extents ANE_TD_DST_DIMS, equal to
 * ANE_TD_SRC0_DIMS) is at element D + n * dN + c * dC + h * dH + w * dW
 * of the destination's binding, and takes source element S + n * sN +
 * c * sC + h * sH + w * sW of the source's, S and D the offset words and
 * the strides the stride words, the source's signed.  Every element
 * either view reaches lies inside its register write's length, and the
 * destination's elements outside the view are not written.  Its ACT,
 * SUBOP, FLAGS and word 14 are zero, and it has no second source, bias or
 * layout words.
 *
 * A reduction (op 9) combines the elements of its source along the axes
 * ANE_TD_FLAGS names: its destination's extents are the source's with
 * 1 along each of them.  Its words 4-14 are zero, and it has no second
 * source, bias or layout words; its ACT is 0 .. 19.
 *
 * A gather (op 10) takes rows of its source, the table [N, C, H, W], at
 * the indices its second source holds, [1, 1, 1, K]: each of those 2-byte
 * elements is an int16 in two's complement, not an fp16 (a register
 * write of 2 * K bytes binds them), a negative one counting from the end
 * (i + H).  Destination [N, C, K, W] element [n][c][k][w] is the table's
 * [n][c][i][w], the fp16 bits unchanged, i index k; an index outside
 * [-H, H) writes a row of NaN (0x7e00) and reads nothing.  H is at most
 * 32767.  Words 1-14 are zero; it has no bias or layout words, and the
 * destination overlaps neither source.
 */
enum ane_td_word {
	ANE_TD_OP = 0,
	ANE_TD_ACT = 1,
	ANE_TD_SUBOP = 2,
	ANE_TD_FLAGS = 3,
	ANE_TD_STRIDE_H = 4,
	ANE_TD_STRIDE_W = 5,
	ANE_TD_DILATION_H = 6,
	ANE_TD_DILATION_W = 7,
	ANE_TD_PAD_TOP = 8,
	ANE_TD_PAD_BOTTOM = 9,
	ANE_TD_PAD_LEFT = 10,
	ANE_TD_PAD_RIGHT = 11,
	ANE_TD_GROUPS = 12,
	ANE_TD_KERNEL_H = 13,
	ANE_TD_KERNEL_W = 14,
	ANE_TD_SRC0_DIMS = 15,
	ANE_TD_SRC1_DIMS = 19,
	ANE_TD_BIAS_DIMS = 23,
	ANE_TD_DST_DIMS = 27,
	ANE_TD_SRC0_LAYOUT = 31,
	ANE_TD_SRC1_LAYOUT = 32,
	ANE_TD_BIAS_LAYOUT = 33,
	ANE_TD_DST_LAYOUT = 34,
	ANE_TD_COPY_SRC_STRIDE = 4,
	ANE_TD_COPY_SRC_OFFSET = 8,
	ANE_TD_COPY_DST_STRIDE = 9,
	ANE_TD_COPY_DST_OFFSET = 13,
	ANE_TD_NORM_EPS = 4,
	ANE_TD_ACT_ALPHA = 4,
	ANE_TD_ACT_BETA = 5
};

/**
 * ANE_TD_LAYOUT() - an operand layout word of a task descriptor
 * @row: row stride in elements, 0 .. 65535 (0: the operand's W).
 * @plane: plane stride in elements, 0 .. 65535 (0: H times the row stride).
 */
#define ANE_TD_LAYOUT(row, plane)	((__u32)(row) | (__u32)(plane) << 16)
/** @ANE_TD_LAYOUT_ROW: the row stride of a layout word. */
#define ANE_TD_LAYOUT_ROW(w)		((__u32)(w) & 0xffffu)
/** @ANE_TD_LAYOUT_PLANE: the plane stride of a layout word. */
#define ANE_TD_LAYOUT_PLANE(w)		((__u32)(w) >> 16)

/**
 * struct ane_img_td - a task descriptor (144 bytes)
 * @words: the 35-word register block, &enum ane_td_word.
 * @pad: must be zero (keeps descriptors on the 16-byte granule).
 */
struct ane_img_td {
	__u32 words[ANE_TD_WORDS];
	__u32 pad;
};

/**
 * enum ane_td_operand - the operand registers a register write binds
 * @ANE_TD_REG_SRC0: first source.
 * @ANE_TD_REG_SRC1: second source or weights.
 * @ANE_TD_REG_BIAS: bias.
 * @ANE_TD_REG_DST: destination.
 */
enum ane_td_operand {
	ANE_TD_REG_SRC0 = 0,
	ANE_TD_REG_SRC1 = 1,
	ANE_TD_REG_BIAS = 2,
	ANE_TD_REG_DST = 3
};

/**
 * struct ane_img_rw - a register-write record (44 bytes)
 * @td: the task descriptor (index in the image) whose register is written;
 *	inside the record's procedure.
 * @reg: the operand register, &enum ane_td_operand; each operand a task
 *	uses is written exactly once.
 * @bar: the bar slot supplying the base address.
 * @flags: must be zero.
 * @offset_lo: byte offset into the bar's buffer, low half; 16-byte aligned.
 * @offset_hi: high half.
 * @length_lo: bytes the operand spans from there, low half; at least the
 *	bytes it reaches (its dense size, or with a layout from its first
 *	element to the end of its last), and inside the bar.
 * @length_hi: high half.
 * @reserved: must be zero.
 */
struct ane_img_rw {
	__u32 td;
	__u32 reg;
	__u32 bar;
	__u32 flags;
	__u32 offset_lo;
	__u32 offset_hi;
	__u32 length_lo;
	__u32 length_hi;
	__u32 reserved[3];
};

/**
 * struct ane_img_bar - a buffer-access-register binding (24 bytes)
 * @slot: 0 .. 31, each used once.
 * @usage: usage code of Table 28.5: 1 input, 2 output, 7 intermediate,
 *	8 weights, 11 constants (9, program text, is the driver's own).
 * @io_index: for inputs and outputs, the request's input or output index;
 *	otherwise zero.
 * @reserved: must be zero.
 * @size: bytes the buffer must provide: for weights and constants at most
 *	their section's size, for intermediates at most intermediate_size.
 */
struct ane_img_bar {
	__u32 slot;
	__u32 usage;
	__u32 io_index;
	__u32 reserved;
	__u64 size;
};

/** @DRM_ANE_EVENT_REQUEST_COMPLETE: &struct drm_ane_event_complete. */
#define DRM_ANE_EVENT_REQUEST_COMPLETE	0x80000001
/*
 * DRM_ANE_EVENT_CHAIN_COMPLETE: &struct drm_ane_event_complete of a
 * chained run (ProgramInputsReady): the token is the cache handle, the
 * sequence the exec timestamp, the seqno the chain's run number from 1.
 */
#define DRM_ANE_EVENT_CHAIN_COMPLETE	0x80000002

/**
 * struct drm_ane_event_complete - a request completed (read from the file)
 * @base: type %DRM_ANE_EVENT_REQUEST_COMPLETE, length sizeof(*this).
 * @token: the request's program or instance token.
 * @sequence: the request's sequence number.
 * @seqno: the driver sequence number ProgramSendRequest returned.
 * @status: 0, or a negative errno: -ENXIO a DART translation fault,
 *	-ETIMEDOUT aborted at the firmware's deadline, -EIO the firmware
 *	crashed or was reset, -EINVAL the engine refused an operation,
 *	-ECANCELED the program was destroyed first.
 * @reserved: zero.
 * @exec_ns: engine time the request took.
 */
struct drm_ane_event_complete {
	struct drm_event base;
	__u64 token;
	__u64 sequence;
	__u64 seqno;
	__s32 status;
	__u32 reserved;
	__u64 exec_ns;
};

/*
 * ioctl numbers.  Control selector N is DRM_COMMAND_BASE + N, direct-path
 * selector N is DRM_COMMAND_BASE + 0x20 + N.  Selectors whose sizes are
 * all zero are plain _IO requests.
 */
#define ANE_CTL_BASE			0x00
#define ANE_DP_BASE			0x20

#define DRM_ANE_CTL_DEVICE_OPEN		(ANE_CTL_BASE + 0)
#define DRM_ANE_CTL_DEVICE_CLOSE	(ANE_CTL_BASE + 1)
#define DRM_ANE_CTL_SEND_REQUEST	(ANE_CTL_BASE + 2)
#define DRM_ANE_CTL_PROGRAM_CREATE	(ANE_CTL_BASE + 3)
#define DRM_ANE_CTL_PROGRAM_PREPARE	(ANE_CTL_BASE + 4)
#define DRM_ANE_CTL_PROGRAM_UNPREPARE	(ANE_CTL_BASE + 5)
#define DRM_ANE_CTL_PROGRAM_DESTROY	(ANE_CTL_BASE + 6)
#define DRM_ANE_CTL_GET_STATUS		(ANE_CTL_BASE + 7)
#define DRM_ANE_CTL_PROGRAM_CREATE_INSTANCE (ANE_CTL_BASE + 8)
#define DRM_ANE_CTL_CHAINING_PREPARE	(ANE_CTL_BASE + 9)
#define DRM_ANE_CTL_GET_VERSION		(ANE_CTL_BASE + 10)
#define DRM_ANE_CTL_REGISTER_DWP	(ANE_CTL_BASE + 11)
#define DRM_ANE_CTL_UNREGISTER_DWP	(ANE_CTL_BASE + 12)
#define DRM_ANE_CTL_GET_DWP_ITEM	(ANE_CTL_BASE + 13)
#define DRM_ANE_CTL_COMPLETE_DWP_ITEM	(ANE_CTL_BASE + 14)
#define DRM_ANE_CTL_RELEASE_DWP_BUFFERS	(ANE_CTL_BASE + 15)
#define DRM_ANE_CTL_LOAD_FIRMWARE	(ANE_CTL_BASE + 16)

#define DRM_ANE_DP_DEVICE_OPEN		(ANE_DP_BASE + 0)
#define DRM_ANE_DP_DEVICE_CLOSE		(ANE_DP_BASE + 1)
#define DRM_ANE_DP_SEND_REQUEST		(ANE_DP_BASE + 2)
#define DRM_ANE_DP_OUTPUT_SET_ENQUEUE	(ANE_DP_BASE + 3)
#define DRM_ANE_DP_INPUTS_READY		(ANE_DP_BASE + 4)
#define DRM_ANE_DP_MEMORY_MAP		(ANE_DP_BASE + 5)
#define DRM_ANE_DP_MEMORY_UNMAP		(ANE_DP_BASE + 6)
#define DRM_ANE_DP_SESSION_HINT		(ANE_DP_BASE + 7)
#define DRM_ANE_DP_CHAINING_SET_ACTIVE	(ANE_DP_BASE + 8)

#define DRM_IOCTL_ANE_CTL_DEVICE_OPEN \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_CTL_DEVICE_OPEN, struct drm_ane_device_open)
#define DRM_IOCTL_ANE_CTL_DEVICE_CLOSE \
	DRM_IO(DRM_COMMAND_BASE + DRM_ANE_CTL_DEVICE_CLOSE)
#define DRM_IOCTL_ANE_CTL_SEND_REQUEST \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_CTL_SEND_REQUEST, struct drm_ane_send_request)
#define DRM_IOCTL_ANE_CTL_PROGRAM_CREATE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_CTL_PROGRAM_CREATE, struct drm_ane_program_create)
#define DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_CTL_PROGRAM_PREPARE, struct drm_ane_program_prepare)
#define DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_CTL_PROGRAM_UNPREPARE, struct drm_ane_program_unprepare)
#define DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_CTL_PROGRAM_DESTROY, struct drm_ane_program_destroy)
#define DRM_IOCTL_ANE_CTL_GET_STATUS \
	DRM_IOR(DRM_COMMAND_BASE + DRM_ANE_CTL_GET_STATUS, struct drm_ane_get_status)
#define DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_CTL_PROGRAM_CREATE_INSTANCE, \
		struct drm_ane_program_create_instance)
#define DRM_IOCTL_ANE_CTL_CHAINING_PREPARE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_CTL_CHAINING_PREPARE, struct drm_ane_chaining_prepare)
#define DRM_IOCTL_ANE_CTL_GET_VERSION \
	DRM_IOR(DRM_COMMAND_BASE + DRM_ANE_CTL_GET_VERSION, struct drm_ane_get_version)
#define DRM_IOCTL_ANE_CTL_REGISTER_DWP \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_CTL_REGISTER_DWP, struct drm_ane_register_dwp)
#define DRM_IOCTL_ANE_CTL_UNREGISTER_DWP \
	DRM_IO(DRM_COMMAND_BASE + DRM_ANE_CTL_UNREGISTER_DWP)
#define DRM_IOCTL_ANE_CTL_GET_DWP_ITEM \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_CTL_GET_DWP_ITEM, struct drm_ane_dwp_item)
#define DRM_IOCTL_ANE_CTL_COMPLETE_DWP_ITEM \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_CTL_COMPLETE_DWP_ITEM, struct drm_ane_dwp_item)
#define DRM_IOCTL_ANE_CTL_RELEASE_DWP_BUFFERS \
	DRM_IO(DRM_COMMAND_BASE + DRM_ANE_CTL_RELEASE_DWP_BUFFERS)
#define DRM_IOCTL_ANE_CTL_LOAD_FIRMWARE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_CTL_LOAD_FIRMWARE, struct drm_ane_load_firmware)

#define DRM_IOCTL_ANE_DP_DEVICE_OPEN \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_DP_DEVICE_OPEN, struct drm_ane_device_open)
#define DRM_IOCTL_ANE_DP_DEVICE_CLOSE \
	DRM_IO(DRM_COMMAND_BASE + DRM_ANE_DP_DEVICE_CLOSE)
#define DRM_IOCTL_ANE_DP_SEND_REQUEST \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_DP_SEND_REQUEST, struct drm_ane_send_request)
#define DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_DP_OUTPUT_SET_ENQUEUE, struct drm_ane_output_set_enqueue)
#define DRM_IOCTL_ANE_DP_INPUTS_READY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_DP_INPUTS_READY, struct drm_ane_inputs_ready)
#define DRM_IOCTL_ANE_DP_MEMORY_MAP \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_DP_MEMORY_MAP, struct drm_ane_memory_map)
#define DRM_IOCTL_ANE_DP_MEMORY_UNMAP \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_DP_MEMORY_UNMAP, struct drm_ane_memory_unmap)
#define DRM_IOCTL_ANE_DP_SESSION_HINT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ANE_DP_SESSION_HINT, struct drm_ane_session_hint)
#define DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ANE_DP_CHAINING_SET_ACTIVE, \
		struct drm_ane_chaining_set_active)

/*
 * Sizes: each selector struct is exactly its seed tuple, checked at compile
 * time in every language this header serves: static_assert in the kernel
 * and in C++11 and later; elsewhere (C from C90 on, C++98) a struct tag
 * per check whose one member is an array of negative size if a struct's
 * size is wrong.  No libc header is needed.
 */
#if defined(__KERNEL__) || (defined(__cplusplus) && __cplusplus >= 201103L)
#define __ANE_SIZE_CHECK(t, n) static_assert(sizeof(t) == (n), #t " size")
#else
#define __ANE_SIZE_CHECK(t, n) __ANE_SIZE_CHECK_AT(t, n, __LINE__)
#define __ANE_SIZE_CHECK_AT(t, n, l) __ANE_SIZE_CHECK_NAMED(t, n, l)
#define __ANE_SIZE_CHECK_NAMED(t, n, l) \
	struct __ane_size_check_ ## l { char ok[sizeof(t) == (n) ? 1 : -1]; }
#endif

__ANE_SIZE_CHECK(struct drm_ane_device_info_in, ANE_DEVICE_INFO_SIZE);
__ANE_SIZE_CHECK(struct drm_ane_device_info_out, ANE_DEVICE_INFO_SIZE);
__ANE_SIZE_CHECK(struct drm_ane_device_open, 0 * 8 + 104 + 0 * 8 + 104);
__ANE_SIZE_CHECK(struct drm_ane_surface_ref, 8);
__ANE_SIZE_CHECK(struct drm_ane_request, ANE_SEND_REQUEST_IN_SIZE);
__ANE_SIZE_CHECK(struct drm_ane_request_result, ANE_SEND_REQUEST_OUT_SIZE);
__ANE_SIZE_CHECK(struct drm_ane_send_request, 1 * 8 + 2376 + 0 * 8 + 40);
__ANE_SIZE_CHECK(struct drm_ane_program_create, 32);
__ANE_SIZE_CHECK(struct drm_ane_program_prepare_args, 56);
__ANE_SIZE_CHECK(struct drm_ane_program_prepare, 56 + 56);
__ANE_SIZE_CHECK(struct drm_ane_program_unprepare, 56);
__ANE_SIZE_CHECK(struct drm_ane_program_destroy, 16);
__ANE_SIZE_CHECK(struct drm_ane_status, 32);
__ANE_SIZE_CHECK(struct drm_ane_get_status, 32);
__ANE_SIZE_CHECK(struct drm_ane_program_create_instance, 32);
__ANE_SIZE_CHECK(struct drm_ane_chaining_prepare, 16 + 24);
__ANE_SIZE_CHECK(struct drm_ane_get_version, 1 * 8);
__ANE_SIZE_CHECK(struct drm_ane_register_dwp, 24);
__ANE_SIZE_CHECK(struct drm_ane_dwp_item, 2 * 8);
__ANE_SIZE_CHECK(struct drm_ane_load_firmware, 3 * 8);
__ANE_SIZE_CHECK(struct drm_ane_output_set_enqueue, 40);
__ANE_SIZE_CHECK(struct drm_ane_inputs_ready, ANE_INPUTS_READY_SIZE);
__ANE_SIZE_CHECK(struct drm_ane_map_surface, 24);
__ANE_SIZE_CHECK(struct drm_ane_memory_map_args, ANE_MEMORY_MAP_SIZE);
__ANE_SIZE_CHECK(struct drm_ane_memory_map, 1 * 8 + 2080 + 1 * 8);
__ANE_SIZE_CHECK(struct drm_ane_memory_unmap, 2080);
__ANE_SIZE_CHECK(struct drm_ane_session_hint, 16 + 24);
__ANE_SIZE_CHECK(struct drm_ane_chaining_set_active, 32);
__ANE_SIZE_CHECK(struct drm_ane_surface_create, 32);
__ANE_SIZE_CHECK(struct drm_ane_dma, 32);
__ANE_SIZE_CHECK(struct drm_ane_dart_fault, 72);
__ANE_SIZE_CHECK(struct drm_ane_get_fault, 80);
__ANE_SIZE_CHECK(struct drm_ane_event_complete, 48);
__ANE_SIZE_CHECK(struct drm_ane_caps_drop, 16);
__ANE_SIZE_CHECK(struct ane_img_header, 128);
__ANE_SIZE_CHECK(struct ane_img_procedure, 32);
__ANE_SIZE_CHECK(struct ane_img_td, 144);
__ANE_SIZE_CHECK(struct ane_img_rw, 44);
__ANE_SIZE_CHECK(struct ane_img_bar, 24);
__ANE_SIZE_CHECK(struct drm_ane_method_args, 40);
__ANE_SIZE_CHECK(struct drm_ane_method_buf, 56);
__ANE_SIZE_CHECK(struct drm_ane_client_info, 72);
__ANE_SIZE_CHECK(struct drm_ane_shmem_info, 24);
__ANE_SIZE_CHECK(struct drm_ane_model_info, 56);
__ANE_SIZE_CHECK(struct drm_ane_program_export, 24);
__ANE_SIZE_CHECK(struct drm_ane_program_attach, 24);

#undef __ANE_SIZE_CHECK
#undef __ANE_SIZE_CHECK_AT
#undef __ANE_SIZE_CHECK_NAMED

#if defined(__cplusplus)
}
#endif

#endif /* __ANE_ACCEL_H__ */
