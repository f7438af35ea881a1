/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host <-> engine-controller ABI: boot handshake, channel table,
 * rings, the sCSneControllerCmdHdr command header and the command bodies
 * (seed ch. 29 and 30).  A pure ABI header: shared by the driver and the
 * firmware, it holds layouts and numbers only, no code of either side.
 *
 * Versioned by ANE_FW_ABI_MAJOR/MINOR: a major mismatch refuses the boot,
 * a minor mismatch warns and continues (the seed's four dispositions).
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef __ANE_FW_ABI_H__
#define __ANE_FW_ABI_H__

#include <linux/build_bug.h>
#include <linux/types.h>

#define ANE_FW_ABI_MAJOR		1
/* 1.1: ane_fw_bar.sid; 1.2: chains compute; 1.3: wait events, EVENT_SIGNAL */
#define ANE_FW_ABI_MINOR		3
#define ANE_FW_ABI_VERSION		(ANE_FW_ABI_MAJOR << 16 | ANE_FW_ABI_MINOR)
/* Every ring in the channel table carries this version (ch. 29). */
#define ANE_FW_RING_VERSION		0x00020001

/* ------------------------------------------------------------------ boot */

/*
 * Scratch registers (ANE_REG_SCRATCH(n)) during bring-up, Table 29.3:
 *
 *   host:  SCR_ARGS_LO/HI = device address of struct ane_fw_boot_args,
 *          SCR_BOOT = ANE_FW_BOOT_COLD or _WARM, RVBAR = boot address,
 *          then CPU_CTRL = RUN (release reset).
 *   fw:    SCR_BOOT = ANE_FW_BOOT_ALIVE            (handshake 1)
 *   fw:    SCR_CHTBL_LO/HI = channel table address,
 *          SCR_BOOT = ANE_FW_BOOT_CHANNELS         (handshake 2)
 *   host:  walks and checks the table, SCR_BOOT = ANE_FW_BOOT_RESOLVED,
 *          doorbell ANE_FW_DB_BOOT
 *   fw:    marks every channel ready, SCR_ACK = ANE_FW_MAGIC1 (handshake 3)
 *
 * Each firmware step also raises ANE_HOST_IRQ_BOOT.  A refused boot
 * leaves SCR_BOOT = ANE_FW_BOOT_FAILED and the reason in SCR_ERROR.
 */
#define ANE_FW_SCR_ARGS_LO		0
#define ANE_FW_SCR_ARGS_HI		1
#define ANE_FW_SCR_ERROR		2
#define ANE_FW_SCR_ACK			3
#define ANE_FW_SCR_RESTARTS		4	/* fw: restart count */
#define ANE_FW_SCR_CHTBL_LO		5
#define ANE_FW_SCR_CHTBL_HI		6
#define ANE_FW_SCR_BOOT			7
#define ANE_FW_SCR_HEARTBEAT		8	/* fw: messages handled */

#define ANE_FW_BOOT_COLD		0
#define ANE_FW_BOOT_WARM		1
#define ANE_FW_BOOT_ALIVE		0xa11e0001
#define ANE_FW_BOOT_CHANNELS		0xc4a70002
#define ANE_FW_BOOT_RESOLVED		0x4e570003
#define ANE_FW_BOOT_FAILED		0xfa110000
#define ANE_FW_BOOT_CRASHED		0xc7a50000
#define ANE_FW_MAGIC1			0x414e4531	/* "ANE1" */

/* SCR_ERROR codes of a refused boot. */
enum ane_fw_boot_error {
	ANE_FW_BOOT_E_NONE = 0,
	ANE_FW_BOOT_E_ARGS = 1,		/* boot args unreadable or bad magic */
	ANE_FW_BOOT_E_CHIP = 2,		/* chip revision mismatch */
	ANE_FW_BOOT_E_PROTO = 3,	/* protocol major mismatch */
	ANE_FW_BOOT_E_HEAP = 4,		/* heap <= 2x framework reservation */
	ANE_FW_BOOT_E_SHARED = 5,	/* shared region too small */
	ANE_FW_BOOT_E_VECTOR = 6,	/* reset vector is not the image's */
	ANE_FW_BOOT_E_RING = 7,		/* a ring failed its version check */
};

/* Doorbell bits the host writes to ANE_REG_FW_DOORBELL. */
#define ANE_FW_DB_BOOT			BIT(0)	/* boot handshake progress */
#define ANE_FW_DB_H2T			BIT(1)	/* BUF_H2T has messages */
#define ANE_FW_DB_IO			BIT(2)	/* IO has messages */
#define ANE_FW_DB_DCHAIN		BIT(3)	/* DATA_CHAIN_H2T has messages */
#define ANE_FW_DB_CONSUMED		BIT(4)	/* host drained a full T2H ring */
/* Raised by the engine (hardware), never by the host. */
#define ANE_FW_DB_ENGINE		BIT(31)

/* Interrupt bits the firmware stores to the host doorbell target. */
#define ANE_HOST_IRQ_BOOT		BIT(0)
#define ANE_HOST_IRQ_T2H		BIT(1)
#define ANE_HOST_IRQ_IO_T2H		BIT(2)
#define ANE_HOST_IRQ_DEBUG		BIT(3)
#define ANE_HOST_IRQ_TERMINAL		BIT(4)
#define ANE_HOST_IRQ_CRASH		BIT(5)

#define ANE_FW_ARGS_MAGIC		0x414e4542	/* "ANEB" */
#define ANE_FW_NUM_DOORBELLS		3
/* Test: the firmware stalls before publishing the channel table. */
#define ANE_FW_ARGS_STALL_CHTBL		BIT(0)

/**
 * struct ane_fw_doorbell - a host doorbell target (register, bit)
 * @reg: offset in the ANE bank the firmware stores to.
 * @bits: value stored (the interrupt bits).
 */
struct ane_fw_doorbell {
	__u32 reg;
	__u32 bits;
};

/**
 * struct ane_fw_boot_args - what the host passes at the reset vector
 * @magic: %ANE_FW_ARGS_MAGIC.
 * @abi_version: the host's %ANE_FW_ABI_VERSION.
 * @chip_rev: chip revision the host read from ANE_REG_CHIP_REV.
 * @boot_count: host's count of boots of this device (for logs).
 * @shared_iova: device address of the shared region (channels, rings).
 * @shared_size: its size.
 * @heap_iova: device address of the firmware heap arena.
 * @heap_size: its size.
 * @fw_reservation: framework reservation; heap must exceed twice it.
 * @flags: ANE_FW_ARGS_* (fault injection for tests).
 * @idle_poll_us: how long the idle firmware watches for a doorbell before
 *	it waits for the interrupt (0: it waits at once).
 * @doorbell: the three host doorbell targets: [0] inference client
 *	(IO_T2H), [1] control (T2H, boot, crash), [2] telemetry (DEBUG,
 *	TERMINAL).
 */
struct ane_fw_boot_args {
	__u32 magic;
	__u32 abi_version;
	__u32 chip_rev;
	__u32 boot_count;
	__u64 shared_iova;
	__u64 shared_size;
	__u64 heap_iova;
	__u64 heap_size;
	__u64 fw_reservation;
	__u32 flags;
	__u32 idle_poll_us;
	struct ane_fw_doorbell doorbell[ANE_FW_NUM_DOORBELLS];
};

/* --------------------------------------------------------------- channels */

/* The eight channels of ch. 29, in table order. */
enum ane_fw_chan {
	ANE_FW_CH_SHAREDMALLOC,
	ANE_FW_CH_TERMINAL,
	ANE_FW_CH_BUF_H2T,
	ANE_FW_CH_BUF_T2H,
	ANE_FW_CH_IO,
	ANE_FW_CH_IO_T2H,
	ANE_FW_CH_DEBUG,
	ANE_FW_CH_DATA_CHAIN_H2T,
	ANE_FW_NUM_CHANNELS
};

#define ANE_FW_CHAN_H2T			1	/* host produces */
#define ANE_FW_CHAN_T2H			2	/* firmware produces */
#define ANE_FW_CHAN_MEM			3	/* plain shared memory */

#define ANE_FW_CHTBL_MAGIC		0x4348544c	/* "CHTL" */
#define ANE_FW_CHAN_NAME_LEN		16

/**
 * struct ane_fw_channel_desc - one channel in the published table
 * @name: "SHAREDMALLOC", "TERMINAL", "BUF_H2T", ...
 * @direction: ANE_FW_CHAN_*.
 * @version: %ANE_FW_RING_VERSION for rings, 0 for plain memory.
 * @slot_size: bytes per ring slot (maxCmdBufSize of the channel).
 * @nslots: ring slots, a power of two; 0 for plain memory.
 * @iova: device address of the ring header, or of the memory.
 * @size: bytes at @iova.
 */
struct ane_fw_channel_desc {
	char name[ANE_FW_CHAN_NAME_LEN];
	__u32 direction;
	__u32 version;
	__u32 slot_size;
	__u32 nslots;
	__u64 iova;
	__u64 size;
};

/**
 * struct ane_fw_channel_table - the channel-description table
 * @magic: %ANE_FW_CHTBL_MAGIC.
 * @abi_version: the firmware's %ANE_FW_ABI_VERSION.
 * @chip_rev: the chip revision the firmware booted on.
 * @count: %ANE_FW_NUM_CHANNELS.
 * @restart_count: firmware restarts since the device was created.
 * @pad: zero.
 * @chan: the channels, indexed by &enum ane_fw_chan.
 */
struct ane_fw_channel_table {
	__u32 magic;
	__u32 abi_version;
	__u32 chip_rev;
	__u32 count;
	__u32 restart_count;
	__u32 pad[3];
	struct ane_fw_channel_desc chan[ANE_FW_NUM_CHANNELS];
};

/**
 * struct ane_fw_ring_hdr - the header in front of every ring's slots
 * @version: %ANE_FW_RING_VERSION.
 * @slot_size: bytes per slot.
 * @nslots: number of slots (a power of two).
 * @pad0: zero.
 * @head: producer index, free running; slot = head % nslots.
 * @pad1: keeps @head and @tail in separate cache lines.
 * @tail: consumer index, free running.  Full when head - tail == nslots.
 * @space_wanted: set by the producer of a T2H ring that found it full and
 *	holds messages back; the consumer, having advanced @tail, clears it
 *	and rings %ANE_FW_DB_CONSUMED.  Each side writes its index (or the
 *	flag) before a full barrier and reads the other's after it, so a
 *	drain is never missed.  Without it the host rings nothing.  On an
 *	H2T ring the roles swap: the host, finding it full, sets the flag;
 *	the firmware, having advanced @tail, clears it and raises the
 *	ring's answer interrupt (IO_T2H for IO, T2H for the others).
 * @pad2: zero.
 *
 * Slot data starts at the header address + sizeof(struct ane_fw_ring_hdr).
 * Each slot holds one message: struct ane_fw_cmd_hdr and its body.
 */
struct ane_fw_ring_hdr {
	__u32 version;
	__u32 slot_size;
	__u32 nslots;
	__u32 pad0;
	__u32 head;
	__u32 pad1[11];
	__u32 tail;
	__u32 space_wanted;
	__u32 pad2[14];
};

/* ---------------------------------------------------------------- header */

/**
 * struct ane_fw_cmd_hdr - sCSneControllerCmdHdr (Table 30.1, 24 bytes)
 * @id: command id (&enum ane_fw_cmd_id on the execution-loop channel and
 *	for notifications, &enum ane_fw_ctl_id on the control channels);
 *	replies set %ANE_FW_ID_REPLY.
 * @size: bytes of the body that follows.
 * @priority: 0..7: 0-1 system (realtime), 2-7 application.
 * @program_id: program slot, -1 when none.
 * @process_id: process instance, -1 when none.
 * @procedure_id: index into the program's procedure table.
 */
struct ane_fw_cmd_hdr {
	__u32 id;
	__u32 size;
	__u32 priority;
	__s32 program_id;
	__s32 process_id;
	__u32 procedure_id;
};

#define ANE_FW_ID_REPLY			0x80000000u
#define ANE_FW_ID_INVALID		0xffffffffu	/* ECSneCmdId_Invalid */

/* Limits of the header fields (ch. 30, the ExeLoop argument validator). */
#define ANE_FW_NUM_PRIORITIES		8	/* fwPriority < 8 */
#define ANE_FW_SYSTEM_PRIORITIES	2	/* 0..1 realtime band */
#define ANE_FW_MAX_PROGRAMS		144	/* programId < 144 */
#define ANE_FW_MAX_PROCEDURES		288	/* procId < 288 */
#define ANE_FW_MAX_PROCESSES		288

/*
 * ECSneCmdId, the wire vocabulary (Table 30.5), by family.  Used on the
 * execution-loop channel (IO) and for every firmware-to-host notification.
 * Names are the seed's; within a family the seed gives only the fast-path
 * numbers (0x2d, 0x204, 0x209, 0x20a, 0x20c, 0x211, 0x212, 0x404, 0x7000,
 * 0xff00), the others are this ABI's order of the family's names.
 */
enum ane_fw_cmd_id {
	ANE_CMD_DEBUG_COMMAND_DATA_CHECK	= 0x0000,
	/* 0x01..0x34: control, config, power, debug */
	ANE_CMD_START				= 0x0001,
	ANE_CMD_STOP				= 0x0002,
	ANE_CMD_RESET				= 0x0003,
	ANE_CMD_CONFIG_GET			= 0x0004,
	ANE_CMD_CONFIG_GET_EXT			= 0x0005,
	ANE_CMD_PRINT_ENABLE			= 0x0006,
	ANE_CMD_BUILDINFO			= 0x0007,
	ANE_CMD_BOOT				= 0x0008,
	ANE_CMD_PING				= 0x0009,
	ANE_CMD_TIMEPROFILE_START		= 0x000a,
	ANE_CMD_TIMEPROFILE_STOP		= 0x000b,
	ANE_CMD_TIMEPROFILE_GET			= 0x000c,
	ANE_CMD_POWER_DOWN			= 0x000d,
	ANE_CMD_POWER_DEVICE_ON			= 0x000e,
	ANE_CMD_POWER_DEVICE_OFF		= 0x000f,
	ANE_CMD_PMU_BASE_SET			= 0x0010,
	ANE_CMD_DYNAMIC_POWERGATE_SET		= 0x0011,
	ANE_CMD_IPC_ENDPOINT_SET		= 0x0012,
	ANE_CMD_IPC_ENDPOINT_UNSET		= 0x0013,
	ANE_CMD_CH_BUFFER_POOL_SET		= 0x0014,
	ANE_CMD_CH_BUFFER_RECYCLE		= 0x0015,
	ANE_CMD_CH_PROPERTY_READ		= 0x0016,
	ANE_CMD_CH_PROPERTY_WRITE		= 0x0017,
	ANE_CMD_TRACE_ENABLE			= 0x0018,
	ANE_CMD_RESOURCE_INFO_GET		= 0x0019,
	ANE_CMD_STATS_BUFFER_SIZE_GET		= 0x001a,
	ANE_CMD_SUSPEND				= 0x001b,
	ANE_CMD_DSID_SET			= 0x001c,
	ANE_CMD_MCACHE_SIZE_GET			= 0x001d,
	ANE_CMD_SECURE_MODE_START		= 0x001e,
	ANE_CMD_SECURE_MODE_STOP		= 0x001f,
	ANE_CMD_EXCLAVE_MODE_START		= 0x0020,
	ANE_CMD_EXCLAVE_MODE_STOP		= 0x0021,
	ANE_CMD_QUIESCE_STATE			= 0x0022,
	ANE_CMD_CPU_LOAD_GET			= 0x0023,
	ANE_CMD_CH_DATA_FILE_LOAD2		= 0x002d,
	ANE_CMD_FAMILY_CONTROL_LAST		= 0x0034,
	/* 0x100..0x108: channel notifications, firmware to host */
	ANE_CMD_CH_ERROR_NOTIFICATION		= 0x0100,
	ANE_CMD_CH_POWER_CONTROL		= 0x0101,
	ANE_CMD_CH_SIGNPOST			= 0x0102,
	ANE_CMD_CH_SIGNPOST_GROUP		= 0x0103,
	ANE_CMD_CH_SIGNPOST64			= 0x0104,
	ANE_CMD_CH_SIGNPOST64_GROUP		= 0x0105,
	ANE_CMD_CH_RESET_NOTIFICATION		= 0x0106,
	ANE_CMD_CPU_LOAD_NOTIFICATION		= 0x0107,
	ANE_CMD_SECURE_MODE_RESUME		= 0x0108,
	/* 0x200..0x212: program, process, procedure call */
	ANE_CMD_LOAD_PROGRAM			= 0x0200,
	ANE_CMD_UNLOAD_PROGRAM			= 0x0201,
	ANE_CMD_CREATE_PROCESS			= 0x0202,
	ANE_CMD_TERMINATE_PROCESS		= 0x0203,
	ANE_CMD_PROCEDURE_CALL			= 0x0204,
	ANE_CMD_LOAD_AFPP			= 0x0205,
	ANE_CMD_UNLOAD_AFPP			= 0x0206,
	ANE_CMD_PROGRAM_INTERFACE_VERSION_CHECK	= 0x0207,
	ANE_CMD_PROCEDURE_CALL_CACHE_REQUEST	= 0x0208,
	ANE_CMD_CACHE_REQUEST_TRIGGER		= 0x0209,
	ANE_CMD_CACHE_REQUEST_SUBMIT		= 0x020a,
	ANE_CMD_CACHE_REQUEST_INVALIDATE	= 0x020b,
	ANE_CMD_PROCEDURE_CALL_WITH_CUSTOM_BARS	= 0x020c,
	ANE_CMD_PREMAP_BUFFER			= 0x020d,
	ANE_CMD_FORCE_DISABLE_CACHE_REQUESTS	= 0x020e,
	ANE_CMD_CACHE_REQUEST_RECYCLE		= 0x020f,
	ANE_CMD_TIME_MANAGEMENT_SYNC_ERROR	= 0x0210,
	ANE_CMD_PROCEDURE_CALL_WITH_EVENTS	= 0x0211,
	ANE_CMD_PROCEDURE_CALL_VERIFY		= 0x0212,
	/* 0x300..0x305: events */
	ANE_CMD_SET_ACTIVE_CACHE_REQUEST_IN_GROUP = 0x0300,
	ANE_CMD_PROGRAM_EVENT			= 0x0301,
	ANE_CMD_USER_EVENT			= 0x0302,
	ANE_CMD_DBG_EVENT			= 0x0303,
	ANE_CMD_DATA_CHAINING_EVENT		= 0x0304,
	ANE_CMD_PREFETCH_DSID_EVENT		= 0x0305,
	/* 0x400..0x404: id handshakes */
	ANE_CMD_SECURE_MODE_EVENT		= 0x0400,
	ANE_CMD_REQUEST_PROGRAM_ID		= 0x0401,
	ANE_CMD_RETURN_PROGRAM_ID		= 0x0402,
	ANE_CMD_REQUEST_PROCESS_ID		= 0x0403,
	ANE_CMD_RETURN_PROCESS_ID		= 0x0404,
	/* outliers */
	ANE_CMD_INFERENCE_CALL			= 0x7000,
	ANE_CMD_BACK_CHANNEL_RPC		= 0xff00,
};

/*
 * The dispatched command index (CAneControllerStringsH11 order, 0x00..0x5c,
 * Table C.15), used on the control channels BUF_H2T and DATA_CHAIN_H2T.
 * The seed fixes 0x1e, 0x1f, 0x41, 0x45..0x48, 0x4a, 0x4d, 0x4f, 0x5a and
 * 0x5b; the rest are this ABI's.
 */
enum ane_fw_ctl_id {
	ANE_CTL_START				= 0x01,
	ANE_CTL_STOP				= 0x02,
	ANE_CTL_PRINT_ENABLE			= 0x06,
	ANE_CTL_BUILDINFO			= 0x07,
	ANE_CTL_PING				= 0x09,
	ANE_CTL_TIME_SYNC			= 0x0c,
	ANE_CTL_CONFIG_GET			= 0x0d,
	ANE_CTL_PMU_BASE_SET			= 0x12,
	ANE_CTL_IPC_ENDPOINT_SET		= 0x16,
	ANE_CTL_IPC_ENDPOINT_UNSET		= 0x17,
	ANE_CTL_CH_PROPERTY_WRITE		= 0x1e,
	ANE_CTL_CH_PROPERTY_READ		= 0x1f,
	ANE_CTL_RESOURCE_INFO_GET		= 0x22,
	ANE_CTL_STATS_BUFFER_SIZE_GET		= 0x23,
	ANE_CTL_DEFAULT_SETTINGS_SET		= 0x25,
	ANE_CTL_MCACHE_POWER_ON			= 0x27,
	ANE_CTL_SHARED_EVENT_INIT		= 0x2a,
	ANE_CTL_EVENT_SIGNAL			= 0x2b,	/* ABI 1.3 */
	ANE_CTL_SECURE_MODE_START		= 0x30,
	ANE_CTL_SECURE_MODE_STOP		= 0x31,
	ANE_CTL_LOAD_PROGRAM			= 0x38,
	ANE_CTL_UNLOAD_PROGRAM			= 0x39,
	ANE_CTL_CREATE_PROCESS			= 0x3a,
	ANE_CTL_TERMINATE_PROCESS		= 0x3b,
	ANE_CTL_PROCEDURE_CALL			= 0x41,
	ANE_CTL_CACHE_REQUEST_INSTALL		= 0x45,
	ANE_CTL_CACHE_REQUEST_TRIGGER		= 0x46,
	ANE_CTL_CACHE_REQUEST_RECYCLE		= 0x47,
	ANE_CTL_CACHE_REQUEST_INVALIDATE	= 0x48,
	ANE_CTL_CACHE_REQUEST_OUTPUT_SET	= 0x49,	/* ABI 1.2 */
	ANE_CTL_PREMAP_BUFFER			= 0x4a,
	ANE_CTL_FORCE_DISABLE_CACHE_REQUESTS	= 0x4d,
	ANE_CTL_SET_ACTIVE_CACHE_REQUEST_IN_GROUP = 0x4f,
	ANE_CTL_INFERENCE_CALL			= 0x5a,
	ANE_CTL_BACK_CHANNEL_RPC		= 0x5b,
	ANE_CTL_COUNT				= 0x5d,	/* 93 dispatched ids */
};

/* --------------------------------------------------------------- replies */

/* Status of a reply or completion (the firmware's inline return values). */
enum ane_fw_status {
	ANE_FW_ST_OK = 0,
	ANE_FW_ST_INVALID = 1,		/* failed argument validation */
	ANE_FW_ST_UNSUPPORTED = 2,	/* id not handled on this channel */
	ANE_FW_ST_NOT_READY = 3,	/* endpoint/channel/loop not ready */
	ANE_FW_ST_NOT_RUNNING = 4,	/* process not running: dropped */
	ANE_FW_ST_WRONG_STATE = 5,	/* cache request in the wrong state */
	ANE_FW_ST_BUSY = 6,		/* a bounded pool or queue is full */
	ANE_FW_ST_TIMEOUT = 7,		/* deadline abort */
	ANE_FW_ST_FAULT = 8,		/* DART translation fault */
	ANE_FW_ST_NOENT = 9,		/* no such program/handle/slot */
	ANE_FW_ST_RESET = 10,		/* host: cancelled by a firmware reset */
	ANE_FW_ST_NOMEM = 11,		/* firmware memory allocation failed */
	ANE_FW_ST_TOO_BIG = 12,		/* operands exceed the staging cap */
	ANE_FW_ST_CANCELED = 13,	/* a wait event failed or went away */
};

/**
 * struct ane_fw_reply - body of a reply (id | %ANE_FW_ID_REPLY)
 * @seq: ring index of the request (its correlation tag).
 * @status: &enum ane_fw_status.
 * @len: bytes of reply data following this struct.
 * @pad: zero.
 */
struct ane_fw_reply {
	__u32 seq;
	__s32 status;
	__u32 len;
	__u32 pad;
};

/* ----------------------------------------------------- control commands */

/**
 * struct ane_fw_endpoint_set - body of IPC_ENDPOINT_SET
 * @endpoint: 0xe400 (the RTBuddy endpoint).
 * @type: %ANE_FW_ENDPOINT_DATA_CHAINING for the execution loop.
 */
struct ane_fw_endpoint_set {
	__u32 endpoint;
	__u32 type;
};

#define ANE_FW_ENDPOINT_ID		0xe400
#define ANE_FW_ENDPOINT_DATA_CHAINING	3

/**
 * struct ane_fw_time_sync - body of TIME_SYNC
 * @host_ns: host monotonic time at the send.
 */
struct ane_fw_time_sync {
	__u64 host_ns;
};

/**
 * struct ane_fw_pmu_base - body of PMU_BASE_SET
 * @base: PMU aperture base (0x2_8e08_c000 on the M1).
 */
struct ane_fw_pmu_base {
	__u64 base;
};

/**
 * struct ane_fw_property - body of CH_PROPERTY_READ/WRITE ({regAddr, regValue})
 * @reg_addr: property register address (byte offset, multiple of 4).
 * @reg_value: value written, or read back in the reply.
 * @pad: zero.
 */
struct ane_fw_property {
	__u64 reg_addr;
	__u32 reg_value;
	__u32 pad;
};

/* Firmware property registers (byte offsets). */
#define ANE_FW_PROP_DEADLINE_MS		0x00	/* software deadline */
#define ANE_FW_PROP_CTX_SWITCH_LAT	0x04	/* default setting */
#define ANE_FW_PROP_MAX_INFLIGHT	0x08	/* requests in flight bound */
#define ANE_FW_PROP_TRACE		0x0c	/* signposts on completion */
#define ANE_FW_PROP_DATA_FILE_LOAD	0x10	/* engine flag for 0x2d */
#define ANE_FW_PROP_ENGINE_DELAY_US	0x14	/* emulated engine latency */
#define ANE_FW_NUM_PROPS		16

/*
 * The software deadline's value: the firmware's own until the host writes
 * %ANE_FW_PROP_DEADLINE_MS at boot, and the most the host writes there.
 */
#define ANE_FW_DEADLINE_DEFAULT_MS	2000
#define ANE_FW_DEADLINE_MAX_MS		600000

/**
 * struct ane_fw_resource_info - reply data of RESOURCE_INFO_GET
 * @num_engines: engines.
 * @max_cache_requests: resident cache requests (maxCacheRequest).
 * @max_cache_inputs: trigger input buffers (16).
 * @max_procedures: procedures per program.
 * @max_programs: program slots (144).
 * @max_inflight: requests in flight on the firmware.
 * @num_hw_queues: hardware task queues.
 * @pad: zero.
 */
struct ane_fw_resource_info {
	__u32 num_engines;
	__u32 max_cache_requests;
	__u32 max_cache_inputs;
	__u32 max_procedures;
	__u32 max_programs;
	__u32 max_inflight;
	__u32 num_hw_queues;
	__u32 pad;
};

/**
 * struct ane_fw_default_settings - body of DEFAULT_SETTINGS_SET
 * @ctx_switch_latency_us: context-switch latency threshold.
 * @pad: zero.
 */
struct ane_fw_default_settings {
	__u32 ctx_switch_latency_us;
	__u32 pad;
};

/**
 * struct ane_fw_shared_event_init - body of SHARED_EVENT_INIT
 * @num_events: active shared events, below 2 (sharedEventsActiveNbr < 2).
 * @pad: zero.
 * @iova: device address of the shared-event page, 0 for none.
 */
struct ane_fw_shared_event_init {
	__u32 num_events;
	__u32 pad;
	__u64 iova;
};

#define ANE_FW_MAX_SHARED_EVENTS	2	/* sharedEventsActiveNbr < 2 */

/*
 * The firmware's events, what a wait record names (ABI 1.3): the host's
 * event slots 0 .. %ANE_FW_NUM_EVENTS - 1, and the active shared events,
 * ANE_FW_EVENT_SHARED(0) .. (num_events - 1) of SHARED_EVENT_INIT.  Each
 * holds a value that only grows and the status of its last signal; a
 * wait record (id, value) holds its call until the event's value reaches
 * the record's.  Slots and shared events are zero after a boot, a shared
 * event when SHARED_EVENT_INIT activates it.
 */
#define ANE_FW_NUM_EVENTS		1024
#define ANE_FW_EVENT_SHARED_BIT		0x8000000000000000ULL
#define ANE_FW_EVENT_SHARED(n)		(ANE_FW_EVENT_SHARED_BIT | (n))

/**
 * struct ane_fw_event_signal - body of EVENT_SIGNAL (0x2b, BUF_H2T)
 * @id: a host event slot or an active shared event (see above).
 * @value: the event's new value; a lower one than it holds changes
 *	nothing (the value only grows), nonzero.
 * @status: %ANE_FW_ST_OK, or the failure every call waiting on the
 *	event up to @value ends with (%ANE_FW_ST_CANCELED).
 * @pad: zero.
 *
 * Signals the event: each call whose wait records are all reached is
 * queued to run; one waiting on a failed event completes with the
 * failure, without running.
 */
struct ane_fw_event_signal {
	__u64 id;
	__u64 value;
	__s32 status;
	__u32 pad;
};

/**
 * struct ane_fw_stats_sizes - reply data of STATS_BUFFER_SIZE_GET
 * @hdr: header bytes (0x28).
 * @ev_desc: per-event descriptor bytes (0x14).
 * @dbg: per-debug-event record bytes (0x10).
 * @per_engine: per-engine descriptor bytes (0x20).
 */
struct ane_fw_stats_sizes {
	__u32 hdr;
	__u32 ev_desc;
	__u32 dbg;
	__u32 per_engine;
};

#define ANE_FW_STATS_HDR_SIZE		0x28
#define ANE_FW_STATS_EVDESC_SIZE	0x14
#define ANE_FW_STATS_DBG_SIZE		0x10
#define ANE_FW_STATS_ENGINE_SIZE	0x20
#define ANE_FW_STATS_MAGIC		0x0101
#define ANE_FW_STATS_MAX_ENGINES	32

/**
 * struct ane_fw_stats_hdr - the 0x28-byte stats header (Table 29.9)
 * @magic: %ANE_FW_STATS_MAGIC.
 * @pad0: zero.
 * @timing: per-call timing, firmware timebase (ns).
 * @call_word0: word from the call object (the request's ring index).
 * @reserved: cleared.
 * @call_word1: word from the call object (the procedure index).
 * @counter: per-call counter (requests completed so far).
 * @desc_bytes: descriptor-area byte length, total size - 0x28.
 */
struct ane_fw_stats_hdr {
	__u16 magic;
	__u16 pad0;
	__u64 timing;
	__u32 call_word0;
	__u64 reserved;
	__u32 call_word1;
	__u64 counter;
	__u32 desc_bytes;
} __packed;

/**
 * struct ane_fw_stats_engine - per-engine descriptor (0x20)
 * @engine_id: engine identifier.
 * @engine_type: engine type.
 * @call_index: call index.
 * @engine_index: engine index.
 * @counters: the 16-byte counter quad (latency ns, events).
 */
struct ane_fw_stats_engine {
	__u32 engine_id;
	__u32 engine_type;
	__u32 call_index;
	__u32 engine_index;
	__u32 counters[4];
};

/**
 * struct ane_fw_premap - body of PREMAP_BUFFER
 * @nbr_of_buffers: must be 1.
 * @pad: zero.
 * @addr: device address (firmware aperture); nonzero.
 * @size: bytes; nonzero.
 */
struct ane_fw_premap {
	__u32 nbr_of_buffers;
	__u32 pad;
	__u64 addr;
	__u64 size;
};

/**
 * struct ane_fw_load_program - body of LOAD_PROGRAM (hdr.program_id = slot)
 * @proc_nbr: procedures of the program, 1..%ANE_FW_MAX_PROCEDURES.
 * @flags: zero.
 * @image_iova: device address of the validated image, 0 for none.
 * @image_size: its size.
 */
struct ane_fw_load_program {
	__u32 proc_nbr;
	__u32 flags;
	__u64 image_iova;
	__u64 image_size;
};

/* ------------------------------------------------------ procedure calls */

/* Limits of Tables 29.4, 30.3 and 30.4. */
#define ANE_FW_MAX_CUSTOM_BARS		32
#define ANE_FW_MAX_SIGNAL_EVENTS	16
#define ANE_FW_MAX_WAIT_EVENTS		16
#define ANE_FW_MAX_EXEC_ORDER		128
#define ANE_FW_OUTPUT_BUFFER_SETS	1
#define ANE_FW_EVENT_MASKS		1
#define ANE_FW_TD_PARTITIONS		1
#define ANE_FW_MAX_TRIGGER_INPUTS	16
#define ANE_FW_MAX_TASK_QUEUE		255	/* 1..255, 0 reserved */

#define ANE_CUSTOM_BAR_GENERIC		1
#define ANE_CUSTOM_BAR_HW_32BIT		1
/* DART streams a custom bar may name (struct ane_fw_bar.sid). */
#define ANE_FW_NUM_STREAMS		16

/* struct ane_fw_event.type: the wait records come first, then the signals. */
#define ANE_FW_EVENT_WAIT		1
#define ANE_FW_EVENT_SIGNAL		2

/**
 * struct ane_fw_event - wait or signal event record (24 bytes)
 * @type: %ANE_FW_EVENT_WAIT or %ANE_FW_EVENT_SIGNAL.
 * @target_mask: the event masks it belongs to, a nonzero mask of the
 *	call's @nbr_event_masks (one on this generation: exactly 1).
 * @id: event id: for a wait record, a host event slot below
 *	%ANE_FW_NUM_EVENTS or an active ANE_FW_EVENT_SHARED(n); for a
 *	signal record, the host's (the firmware counts it).
 * @value: value to wait for (nonzero: the call runs once the event's
 *	value reaches it) or to signal.
 */
struct ane_fw_event {
	__u32 type;
	__u32 target_mask;
	__u64 id;
	__u64 value;
};

/**
 * struct ane_fw_bar - a custom buffer-access register
 * @type: %ANE_CUSTOM_BAR_GENERIC.
 * @config: %ANE_CUSTOM_BAR_HW_32BIT.
 * @bar_id: register slot, below %ANE_FW_MAX_CUSTOM_BARS: for a program
 *	loaded with an image, the image's bar slot (&struct ane_img_bar.slot).
 * @sid: the DART stream the engine reaches the buffer through, below
 *	%ANE_FW_NUM_STREAMS: 0 (the base context) for the driver's buffers,
 *	such as the image's weights and constants; the client's isolation
 *	stream for its inputs, outputs and intermediate buffer.  Was a zero
 *	pad before ABI 1.1, so 0 keeps its old meaning.
 * @value: buffer base (device address in @sid's context, below 4 GB).
 * @buf_size: buffer size in bytes; for an image's bar slot at least the
 *	slot's &struct ane_img_bar.size.
 */
struct ane_fw_bar {
	__u32 type;
	__u32 config;
	__u32 bar_id;
	__u32 sid;
	__u64 value;
	__u64 buf_size;
};

/**
 * struct ane_fw_proc_call - sCSneCmdProcedureCall (the fixed part)
 * @nbr_output_buffer_sets: exactly 1.
 * @nbr_wait_events: wait events following the bars.
 * @nbr_signal_events: signal events following the wait events.
 * @nbr_custom_bars: custom bars following this struct, <= 32.
 * @nbr_td_partitions: task-descriptor partitions, 1 on the M1.
 * @nbr_event_masks: exactly 1.
 * @nbr_custom_exec_order: u32 entries at @custom_exec_order_offset.
 * @custom_exec_order_offset: byte offset in the body of the array.
 * @sub_network_custom_exec_order: must be 0 with signal events.
 * @task_queue: task-queue (network) id, 1..255.
 * @stats_buffer: device address of the stats buffer, 0 for none.
 * @stats_size: its size, 0 for none.
 *
 * The body continues with struct ane_fw_bar[nbr_custom_bars], then
 * struct ane_fw_event[nbr_wait_events + nbr_signal_events].
 */
struct ane_fw_proc_call {
	__u32 nbr_output_buffer_sets;
	__u32 nbr_wait_events;
	__u32 nbr_signal_events;
	__u32 nbr_custom_bars;
	__u32 nbr_td_partitions;
	__u32 nbr_event_masks;
	__u32 nbr_custom_exec_order;
	__u32 custom_exec_order_offset;
	__u32 sub_network_custom_exec_order;
	__u32 task_queue;
	__u64 stats_buffer;
	__u64 stats_size;
};

/* The copy container bounds a whole procedure-call body. */
#define ANE_FW_PROC_CALL_MAX_BODY					\
	(sizeof(struct ane_fw_proc_call) +				\
	 ANE_FW_MAX_CUSTOM_BARS * sizeof(struct ane_fw_bar) +		\
	 (ANE_FW_MAX_WAIT_EVENTS + ANE_FW_MAX_SIGNAL_EVENTS) *		\
	 sizeof(struct ane_fw_event) + ANE_FW_MAX_EXEC_ORDER * 4)

/**
 * struct ane_fw_program_event - PROGRAM_EVENT: a request completed
 * @seq: IO ring index of the request.
 * @status: &enum ane_fw_status.
 * @exec_ns: engine time of the request.
 * @task_queue: its task queue.
 * @hw_queue: the hardware queue it ran on.
 * @counter: requests completed by the firmware so far.
 */
struct ane_fw_program_event {
	__u32 seq;
	__s32 status;
	__u64 exec_ns;
	__u32 task_queue;
	__u32 hw_queue;
	__u64 counter;
};

/* ---------------------------------------------------------- data chaining */

#define ANE_FW_MAX_CACHE_REQUESTS	16	/* maxCacheRequest */
#define ANE_FW_MAX_CHAIN_GROUPS		4
#define ANE_FW_MAX_CHAIN_OUTPUTS	16	/* a procedure's outputs */

enum ane_fw_buffer_type {
	ANE_FW_BUF_INPUT = 1,
	ANE_FW_BUF_OUTPUT = 2,	/* eCSneBufferDescriptorType_OutputBuffer */
};

/**
 * struct ane_fw_buf_desc - a data-chaining buffer descriptor
 * @type: &enum ane_fw_buffer_type.
 * @output_set_id: below the request's output sets.
 * @addr: device address; its high 32 bits must be zero.
 * @size: bytes.
 */
struct ane_fw_buf_desc {
	__u32 type;
	__u32 output_set_id;
	__u64 addr;
	__u64 size;
};

/**
 * struct ane_fw_cr_install - body of CACHE_REQUEST_INSTALL (0x45)
 * @procedure: procedure the chain runs.
 * @nbr_output_sets: output sets, %ANE_FW_OUTPUT_BUFFER_SETS.
 * @nbr_input_buffers: inputs per trigger, <= 16.
 * @group: buffer-sharing group, below %ANE_FW_MAX_CHAIN_GROUPS.
 *
 * The reply data is a __u64 cacheHandler.
 */
struct ane_fw_cr_install {
	__u32 procedure;
	__u32 nbr_output_sets;
	__u32 nbr_input_buffers;
	__u32 group;
};

/**
 * struct ane_fw_cr_trigger - body of CACHE_REQUEST_TRIGGER (0x46, 0x209)
 * @cache_handler: the handle from install.
 * @exec_timestamp: strictly increasing per request.
 * @nbr_input_buffers: entries of @inputs, <= 16.
 * @output_set_id: output set the run writes.
 * @inputs: the input buffers.
 */
struct ane_fw_cr_trigger {
	__u64 cache_handler;
	__u64 exec_timestamp;
	__u32 nbr_input_buffers;
	__u32 output_set_id;
	struct ane_fw_buf_desc inputs[ANE_FW_MAX_TRIGGER_INPUTS];
};

/**
 * struct ane_fw_cr_recycle - body of CACHE_REQUEST_RECYCLE (0x47)
 * @cache_handler: the handle.
 * @buffer: the consumed output buffer.
 */
struct ane_fw_cr_recycle {
	__u64 cache_handler;
	struct ane_fw_buf_desc buffer;
};

/**
 * struct ane_fw_cr_output_set - body of CACHE_REQUEST_OUTPUT_SET (0x49)
 * @cache_handler: the handle.
 * @output_set_id: the set, below %ANE_FW_OUTPUT_BUFFER_SETS.
 * @sid: the DART stream of @buffers, @intermediate and the trigger's
 *	input buffers, below %ANE_FW_NUM_STREAMS.
 * @nbr_buffers: entries of @buffers: the procedure's outputs, in output
 *	index order.
 * @pad: zero.
 * @intermediate: the intermediate buffer, all zero for none.
 * @buffers: the output buffers (%ANE_FW_BUF_OUTPUT, below 4 GB).
 *
 * Enqueues the output set the next trigger writes.  The set must be
 * available: after install, or consumed (its run completed), which this
 * command recycles as 0x47 would.  When a run completes its output set
 * becomes the chain's *previous* set, which the next trigger may name as
 * an input (%ANE_FW_BUF_OUTPUT descriptor): data chaining, no host copy.
 * ABI 1.2.
 */
struct ane_fw_cr_output_set {
	__u64 cache_handler;
	__u32 output_set_id;
	__u32 sid;
	__u32 nbr_buffers;
	__u32 pad;
	struct ane_fw_buf_desc intermediate;
	struct ane_fw_buf_desc buffers[ANE_FW_MAX_CHAIN_OUTPUTS];
};

/**
 * struct ane_fw_cr_handle - body of INVALIDATE (0x48)
 * @cache_handler: the handle.
 */
struct ane_fw_cr_handle {
	__u64 cache_handler;
};

/**
 * struct ane_fw_cr_group_select - body of SET_ACTIVE_..._IN_GROUP (0x4f)
 * @cache_handler: the member to make active.
 * @group: its group.
 * @pad: zero.
 */
struct ane_fw_cr_group_select {
	__u64 cache_handler;
	__u32 group;
	__u32 pad;
};

/**
 * struct ane_fw_cr_force_disable - body of FORCE_DISABLE_CACHE_REQUESTS
 * @disable: must be 1 (the firmware admits only true).
 * @pad: zero.
 */
struct ane_fw_cr_force_disable {
	__u32 disable;
	__u32 pad;
};

/**
 * struct ane_fw_chain_event - DATA_CHAINING_EVENT: a trigger completed
 * @cache_handler: the chain.
 * @exec_timestamp: the trigger's timestamp.
 * @status: &enum ane_fw_status.
 * @output_set_id: the output set now holding the result.
 * @seq: ring index of the trigger (ABI 1.2): on IO_T2H it answers a
 *	0x209 trigger as PROGRAM_EVENT answers a procedure call.
 * @pad: zero.
 * @exec_ns: engine time of the run (ABI 1.2).
 */
struct ane_fw_chain_event {
	__u64 cache_handler;
	__u64 exec_timestamp;
	__s32 status;
	__u32 output_set_id;
	__u32 seq;
	__u32 pad;
	__u64 exec_ns;
};

/* ----------------------------------------------------- back channel, ids */

#define ANE_FW_RPC_MAGIC		0x55aa55aa
#define ANE_FW_RPC_MAX_PAYLOAD		0x800000
#define ANE_FW_RPC_SLOTS		8

/**
 * struct ane_fw_rpc - BACK_CHANNEL_RPC body (0xff00, either direction)
 * @magic: %ANE_FW_RPC_MAGIC.
 * @len: payload bytes, <= %ANE_FW_RPC_MAX_PAYLOAD.
 * @payload: device address of the payload (sid 0).
 * @slot: RPCEventMap slot (firmware-initiated calls).
 * @result: checksum of the payload, filled in by the receiver.
 */
struct ane_fw_rpc {
	__u32 magic;
	__u32 len;
	__u64 payload;
	__u32 slot;
	__u32 result;
};

/**
 * struct ane_fw_process_id - body of RETURN_PROCESS_ID (0x404)
 * @process_id: the process returned (made idle).
 * @pad: zero.
 */
struct ane_fw_process_id {
	__u32 process_id;
	__u32 pad;
};

/* ------------------------------------------------------- notifications */

/**
 * struct ane_fw_error_note - CH_ERROR_NOTIFICATION
 * @error_index: opaque error index (the cause, ANE_FW_ERR_*).
 * @cmd_id: the command that caused it, or %ANE_FW_ID_INVALID.
 * @seq: its ring index.
 * @chan: its channel.
 */
struct ane_fw_error_note {
	__u32 error_index;
	__u32 cmd_id;
	__u32 seq;
	__u32 chan;
};

#define ANE_FW_ERR_RING_FULL		1
#define ANE_FW_ERR_BAD_HEADER		2
#define ANE_FW_ERR_DART_FAULT		3
#define ANE_FW_ERR_QUEUE_ABORT		4

/**
 * struct ane_fw_reset_note - CH_RESET_NOTIFICATION
 * @first_tq: first task queue the reset spans.
 * @last_tq: last task queue the reset spans.
 * @reason: ANE_FW_EXC_* of the fault.
 * @restart_count: restarts so far.
 */
struct ane_fw_reset_note {
	__u32 first_tq;
	__u32 last_tq;
	__u32 reason;
	__u32 restart_count;
};

/**
 * struct ane_fw_signpost - CH_SIGNPOST
 * @code: signpost code (the command id).
 * @arg: argument (the request's ring index).
 * @ts_ns: firmware timestamp.
 */
struct ane_fw_signpost {
	__u32 code;
	__u32 arg;
	__u64 ts_ns;
};

/* ------------------------------------------------------------ crash dump */

/* Exception classes the platform handler stringifies (ch. 29). */
enum ane_fw_exc_class {
	ANE_FW_EXC_NMI = 0,
	ANE_FW_EXC_IRQ = 1,
	ANE_FW_EXC_FIQ = 2,
	ANE_FW_EXC_SYNC = 3,	/* synchronous abort: failed invariants */
};

/* Dump sections, pulled by the host one DBG_EVENT message each. */
enum ane_fw_dump_section {
	ANE_FW_DUMP_HEADER = 1,
	ANE_FW_DUMP_REGS = 2,
	ANE_FW_DUMP_CMD_RING = 3,
	ANE_FW_DUMP_TASKS = 4,
	ANE_FW_DUMP_END = 5,
};

#define ANE_FW_DUMP_MAGIC		0x504d5544	/* "DUMP" */
#define ANE_FW_DUMP_REASON_LEN		96
#define ANE_FW_DUMP_NAME_LEN		16
#define ANE_FW_DUMP_CMD_RING		32

/**
 * struct ane_fw_dump_header - first dump section
 * @magic: %ANE_FW_DUMP_MAGIC.
 * @exc_class: &enum ane_fw_exc_class.
 * @restart_count: restarts so far, this crash included.
 * @cpu: processor (hardware thread) id.
 * @in_irq: 1 if the fault occurred in interrupt context.
 * @fsm_state: execution-loop state at the fault.
 * @task: faulting task's name.
 * @reason: the failed invariant, as text.
 * @uptime_ns: firmware time since boot.
 */
struct ane_fw_dump_header {
	__u32 magic;
	__u32 exc_class;
	__u32 restart_count;
	__u32 cpu;
	__u32 in_irq;
	__u32 fsm_state;
	char task[ANE_FW_DUMP_NAME_LEN];
	char reason[ANE_FW_DUMP_REASON_LEN];
	__u64 uptime_ns;
};

/**
 * struct ane_fw_dump_regs - emulated exception and cache registers
 * @esr: exception syndrome.
 * @far: fault address.
 * @elr: exception link (the handler that failed, as a code address).
 * @l2c_err: cache-controller error status.
 * @l2c_addr: cache-controller error address.
 * @fabric: S3_3_C15_C8_0 at the fault.
 * @x: general-purpose registers x0..x30.
 */
struct ane_fw_dump_regs {
	__u64 esr;
	__u64 far;
	__u64 elr;
	__u64 l2c_err;
	__u64 l2c_addr;
	__u64 fabric;
	__u64 x[31];
};

/**
 * struct ane_fw_dump_cmd - one entry of the recent-command ring
 * @id: command id.
 * @chan: channel it arrived on.
 * @seq: its ring index.
 * @status: &enum ane_fw_status it got (or -1 while running).
 * @hdr: the command header.
 * @ts_ns: when it was dispatched.
 */
struct ane_fw_dump_cmd {
	__u32 id;
	__u32 chan;
	__u32 seq;
	__s32 status;
	struct ane_fw_cmd_hdr hdr;
	__u64 ts_ns;
};

/**
 * struct ane_fw_dump_task - one task in the task-list section
 * @name: task name.
 * @state: &enum ane_fw_task_state.
 * @handled: messages handled.
 * @queued: messages waiting in its two queues.
 * @pad: zero.
 */
struct ane_fw_dump_task {
	char name[ANE_FW_DUMP_NAME_LEN];
	__u32 state;
	__u32 handled;
	__u32 queued;
	__u32 pad;
};

/* Scheduler task states of Table 29.1. */
enum ane_fw_task_state {
	ANE_FW_TASK_RUNNABLE = 0,
	ANE_FW_TASK_SUSPENDED = 1,
	ANE_FW_TASK_WAITING = 2,
	ANE_FW_TASK_SEMWAIT = 3,
	ANE_FW_TASK_BLOCKED = 4,
};

/**
 * struct ane_fw_dump_section_hdr - prefix of each DBG_EVENT dump message
 * @section: &enum ane_fw_dump_section.
 * @index: section number within this dump.
 * @len: bytes following.
 * @pad: zero.
 */
struct ane_fw_dump_section_hdr {
	__u32 section;
	__u32 index;
	__u32 len;
	__u32 pad;
};

/* ----------------------------------------------------------- status page */

#define ANE_FW_STATUS_MAGIC		0x53544154	/* "STAT" */
#define ANE_FW_STATUS_TASKS		12
#define ANE_FW_STATUS_POOLS		8

/* The engine's instruction sets, in ane_fw_status_page.engine_isa. */
#define ANE_FW_ENGINE_ISA_SSE2		0	/* SSE2 kernels only */
#define ANE_FW_ENGINE_ISA_AVX2		1	/* the GEMM on AVX2 + FMA + F16C */
#define ANE_FW_ENGINE_ISA_AVX512	2	/* the GEMM on AVX-512 F/BW/VL */
#define ANE_FW_ENGINE_ISAS		3

/**
 * struct ane_fw_pool_info - capacity of one kernel-object pool
 * @name: pool name.
 * @total: slots.
 * @avail: free slots.
 * @pad: zero.
 */
struct ane_fw_pool_info {
	char name[ANE_FW_DUMP_NAME_LEN];
	__u32 total;
	__u32 avail;
	__u64 pad;
};

/**
 * struct ane_fw_status_page - what CONFIG_GET writes to SHAREDMALLOC
 * @magic: %ANE_FW_STATUS_MAGIC.
 * @fsm_state: execution-loop state.
 * @secure: secure phase asserted.
 * @restart_count: firmware restarts.
 * @ntasks: entries of @tasks.
 * @npools: entries of @pools.
 * @inflight: requests in flight on the engine.
 * @pending: requests queued in the scheduler.
 * @completed: requests completed.
 * @dropped_not_running: calls to processes not running, dropped.
 * @rejected: commands rejected by validation.
 * @deadline_aborts: queues aborted by the software deadline.
 * @chain_dropped: triggers dropped in the wrong state.
 * @ring_full: times a T2H ring was full (the message waited).
 * @uptime_ns: time since boot.
 * @tasks: the task list.
 * @pools: the object pools.
 * @engine_isa: the instruction set the engine runs (ANE_FW_ENGINE_ISA_*),
 *	picked at boot: the widest the CPU has.
 * @engine_pad: zero.
 * @engine_ops: operations the engine completed on each instruction set.
 * @events_signaled: signal events of completed procedure calls
 *	(PROCEDURE_CALL_WITH_EVENTS), each signaled once with its call's end.
 * @waiting: procedure calls held by their wait records (ABI 1.3).
 * @waiting_pad: zero.
 */
struct ane_fw_status_page {
	__u32 magic;
	__u32 fsm_state;
	__u32 secure;
	__u32 restart_count;
	__u32 ntasks;
	__u32 npools;
	__u32 inflight;
	__u32 pending;
	__u64 completed;
	__u64 dropped_not_running;
	__u64 rejected;
	__u64 deadline_aborts;
	__u64 chain_dropped;
	__u64 ring_full;
	__u64 uptime_ns;
	struct ane_fw_dump_task tasks[ANE_FW_STATUS_TASKS];
	struct ane_fw_pool_info pools[ANE_FW_STATUS_POOLS];
	__u32 engine_isa;
	__u32 engine_pad;
	__u64 engine_ops[ANE_FW_ENGINE_ISAS];
	__u64 events_signaled;
	__u32 waiting;
	__u32 waiting_pad;
};

/* Layout checks: the wire never changes silently. */
static_assert(sizeof(struct ane_fw_cmd_hdr) == 24);
static_assert(sizeof(struct ane_fw_event) == 24);
static_assert(sizeof(struct ane_fw_event_signal) == 24);
static_assert(sizeof(struct ane_fw_ring_hdr) == 128);
static_assert(sizeof(struct ane_fw_stats_hdr) == ANE_FW_STATS_HDR_SIZE);
static_assert(sizeof(struct ane_fw_stats_engine) == ANE_FW_STATS_ENGINE_SIZE);
static_assert(sizeof(struct ane_fw_property) == 16);
static_assert(sizeof(struct ane_fw_channel_desc) == 48);
static_assert(sizeof(struct ane_fw_proc_call) == 56);

#endif /* __ANE_FW_ABI_H__ */
