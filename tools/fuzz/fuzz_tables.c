// SPDX-License-Identifier: MIT
/*
 * ane-fuzz: the operations (the 26 selectors and the rest) and the DRM core
 * ioctls of <drm/drm.h> the fuzzer draws from.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "fuzz.h"

/* ------------------------------------------------------------ the ops */

const struct seldesc sels[26] = {
	{ "ctl.DeviceOpen", DRM_IOCTL_ANE_CTL_DEVICE_OPEN, 0 },
	{ "ctl.DeviceClose", DRM_IOCTL_ANE_CTL_DEVICE_CLOSE, 0 },
	{ "ctl.SendRequest", DRM_IOCTL_ANE_CTL_SEND_REQUEST, 0 },
	{ "ctl.ProgramCreate", DRM_IOCTL_ANE_CTL_PROGRAM_CREATE, 0 },
	{ "ctl.ProgramPrepare", DRM_IOCTL_ANE_CTL_PROGRAM_PREPARE, 0 },
	{ "ctl.ProgramUnprepare", DRM_IOCTL_ANE_CTL_PROGRAM_UNPREPARE, 0 },
	{ "ctl.ProgramDestroy", DRM_IOCTL_ANE_CTL_PROGRAM_DESTROY, 0 },
	{ "ctl.GetStatus", DRM_IOCTL_ANE_CTL_GET_STATUS, 0 },
	{ "ctl.ProgramCreateInstance", DRM_IOCTL_ANE_CTL_PROGRAM_CREATE_INSTANCE, 0 },
	{ "ctl.ChainingPrepare", DRM_IOCTL_ANE_CTL_CHAINING_PREPARE, 0 },
	{ "ctl.GetVersion", DRM_IOCTL_ANE_CTL_GET_VERSION, 0 },
	{ "ctl.RegisterDWP", DRM_IOCTL_ANE_CTL_REGISTER_DWP, 0 },
	{ "ctl.UnregisterDWP", DRM_IOCTL_ANE_CTL_UNREGISTER_DWP, 0 },
	{ "ctl.GetDWPItem", DRM_IOCTL_ANE_CTL_GET_DWP_ITEM, 0 },
	{ "ctl.CompleteDWPItem", DRM_IOCTL_ANE_CTL_COMPLETE_DWP_ITEM, 0 },
	{ "ctl.ReleaseDWPBuffers", DRM_IOCTL_ANE_CTL_RELEASE_DWP_BUFFERS, 0 },
	{ "ctl.LoadFirmware", DRM_IOCTL_ANE_CTL_LOAD_FIRMWARE, 0 },
	{ "dp.DeviceOpen", DRM_IOCTL_ANE_DP_DEVICE_OPEN, 1 },
	{ "dp.DeviceClose", DRM_IOCTL_ANE_DP_DEVICE_CLOSE, 1 },
	{ "dp.SendRequest", DRM_IOCTL_ANE_DP_SEND_REQUEST, 1 },
	{ "dp.OutputSetEnqueue", DRM_IOCTL_ANE_DP_OUTPUT_SET_ENQUEUE, 1 },
	{ "dp.InputsReady", DRM_IOCTL_ANE_DP_INPUTS_READY, 1 },
	{ "dp.MemoryMap", DRM_IOCTL_ANE_DP_MEMORY_MAP, 1 },
	{ "dp.MemoryUnMap", DRM_IOCTL_ANE_DP_MEMORY_UNMAP, 1 },
	{ "dp.SessionHint", DRM_IOCTL_ANE_DP_SESSION_HINT, 1 },
	{ "dp.ChainingSetActive", DRM_IOCTL_ANE_DP_CHAINING_SET_ACTIVE, 1 },
};

static const char *const op_names_fixed[] = {
	[OP_OPEN] = "open", [OP_CLOSE] = "close", [OP_DUP] = "dup",
	[OP_SHARE] = "share",
	[OP_SURFACE_CREATE] = "ane.SurfaceCreate", [OP_DMA] = "ane.Dma",
	[OP_GET_FAULT] = "ane.GetFault", [OP_DRM] = "drm",
	[OP_SYNCOBJ] = "syncobj", [OP_PRIME] = "prime", [OP_RAW] = "raw",
	[OP_MMAP] = "mmap", [OP_MUNMAP] = "munmap", [OP_TOUCH] = "touch",
	[OP_READ] = "read", [OP_RUN] = "run", [OP_FORK] = "fork",
	[OP_REAP] = "reap", [OP_FDINFO] = "fdinfo", [OP_SYSFS] = "sysfs",
	[OP_WRONG_SIZE] = "wrong-size", [OP_INJECT] = "inject",
	[OP_METHOD] = "ane.Method", [OP_PROG_SHARE] = "ane.ProgramShare",
	[OP_CAPS_DROP] = "ane.CapsDrop", [OP_METHOD_BUF] = "ane.MethodBuf",
};

const char *op_name(int op)
{
	if (op >= OP_SEL0 && op < OP_SEL0 + 26)
		return sels[op - OP_SEL0].name;
	if (op >= 0 && op < OP_COUNT && op_names_fixed[op])
		return op_names_fixed[op];
	return "?";
}

int op_by_name(const char *s)
{
	int i;

	for (i = 0; i < OP_COUNT; i++)
		if (!strcmp(op_name(i), s))
			return i;
	return -1;
}

/* Relative weights of the workers' operations. */
unsigned int op_weight(int op)
{
	if (op >= OP_SEL0 && op < OP_SEL0 + 26) {
		switch (op - OP_SEL0) {
		case S_CTL_OPEN: case S_DP_OPEN: return 6;
		case S_CTL_SEND: case S_CREATE: case S_PREPARE: return 10;
		case S_DESTROY: case S_MAP: case S_UNMAP: return 6;
		case S_UNPREPARE: case S_INSTANCE: case S_STATUS: return 4;
		default: return 2;
		}
	}
	switch (op) {
	case OP_OPEN: return 5;
	case OP_CLOSE: return 3;
	case OP_DUP: case OP_SHARE: return 2;
	case OP_SURFACE_CREATE: return 8;
	case OP_DMA: return 5;
	case OP_GET_FAULT: return 2;
	case OP_METHOD: return 2;
	case OP_PROG_SHARE: return 4;
	case OP_CAPS_DROP: return 1;
	case OP_METHOD_BUF: return 2;
	case OP_DRM: return 12;
	case OP_SYNCOBJ: return 6;
	case OP_PRIME: return 4;
	case OP_RAW: return 6;
	case OP_MMAP: return 5;
	case OP_MUNMAP: return 3;
	case OP_TOUCH: return 4;
	case OP_READ: return 4;
	case OP_RUN: return 5;
	case OP_FORK: return 1;
	case OP_REAP: return 1;
	case OP_FDINFO: return 2;
	case OP_SYSFS: return 2;
	case OP_WRONG_SIZE: return 3;
	default: return 0;
	}
}

/* ------------------------------------------------------------ DRM core */

#define D(n, g) { DRM_IOCTL_##n, #n, g }

const struct drmio drm_ios[] = {
	D(VERSION, G_VERSION), D(GET_UNIQUE, G_UNIQUE), D(GET_MAGIC, G_ZERO),
	D(IRQ_BUSID, G_ZERO), D(GET_MAP, G_ZERO), D(GET_CLIENT, G_ZERO),
	D(GET_STATS, G_ZERO), D(SET_VERSION, G_ZERO), D(MODESET_CTL, G_ZERO),
	D(GEM_CLOSE, G_GEM_CLOSE), D(GEM_FLINK, G_FLINK),
	D(GEM_OPEN, G_GEM_OPEN), D(GET_CAP, G_GET_CAP),
	D(SET_CLIENT_CAP, G_SET_CAP), D(SET_UNIQUE, G_ZERO),
	D(AUTH_MAGIC, G_ZERO), D(BLOCK, G_ZERO), D(UNBLOCK, G_ZERO),
	D(CONTROL, G_ZERO), D(ADD_MAP, G_ZERO), D(ADD_BUFS, G_ZERO),
	D(MARK_BUFS, G_ZERO), D(INFO_BUFS, G_ZERO), D(MAP_BUFS, G_ZERO),
	D(FREE_BUFS, G_ZERO), D(RM_MAP, G_ZERO), D(SET_SAREA_CTX, G_ZERO),
	D(GET_SAREA_CTX, G_ZERO), D(SET_MASTER, G_ZERO),
	D(DROP_MASTER, G_ZERO), D(ADD_CTX, G_ZERO), D(RM_CTX, G_ZERO),
	D(MOD_CTX, G_ZERO), D(GET_CTX, G_ZERO), D(SWITCH_CTX, G_ZERO),
	D(NEW_CTX, G_ZERO), D(RES_CTX, G_ZERO), D(ADD_DRAW, G_ZERO),
	D(RM_DRAW, G_ZERO), D(DMA, G_ZERO), D(LOCK, G_ZERO),
	D(UNLOCK, G_ZERO), D(FINISH, G_ZERO),
	D(PRIME_HANDLE_TO_FD, G_PRIME_TO_FD),
	D(PRIME_FD_TO_HANDLE, G_PRIME_TO_HANDLE),
	D(AGP_ACQUIRE, G_ZERO), D(AGP_RELEASE, G_ZERO), D(AGP_ENABLE, G_ZERO),
	D(AGP_INFO, G_ZERO), D(AGP_ALLOC, G_ZERO), D(AGP_FREE, G_ZERO),
	D(AGP_BIND, G_ZERO), D(AGP_UNBIND, G_ZERO), D(SG_ALLOC, G_ZERO),
	D(SG_FREE, G_ZERO), D(WAIT_VBLANK, G_ZERO),
	D(CRTC_GET_SEQUENCE, G_ZERO), D(CRTC_QUEUE_SEQUENCE, G_ZERO),
	D(UPDATE_DRAW, G_ZERO), D(MODE_GETRESOURCES, G_ZERO),
	D(MODE_GETCRTC, G_ZERO), D(MODE_SETCRTC, G_ZERO),
	D(MODE_CURSOR, G_ZERO), D(MODE_GETGAMMA, G_ZERO),
	D(MODE_SETGAMMA, G_ZERO), D(MODE_GETENCODER, G_ZERO),
	D(MODE_GETCONNECTOR, G_ZERO), D(MODE_ATTACHMODE, G_ZERO),
	D(MODE_DETACHMODE, G_ZERO), D(MODE_GETPROPERTY, G_ZERO),
	D(MODE_SETPROPERTY, G_ZERO), D(MODE_GETPROPBLOB, G_ZERO),
	D(MODE_GETFB, G_ZERO), D(MODE_ADDFB, G_ZERO), D(MODE_RMFB, G_ZERO),
	D(MODE_PAGE_FLIP, G_ZERO), D(MODE_DIRTYFB, G_ZERO),
	D(MODE_CREATE_DUMB, G_DUMB), D(MODE_MAP_DUMB, G_ZERO),
	D(MODE_DESTROY_DUMB, G_ZERO), D(MODE_GETPLANERESOURCES, G_ZERO),
	D(MODE_GETPLANE, G_ZERO), D(MODE_SETPLANE, G_ZERO),
	D(MODE_ADDFB2, G_ZERO), D(MODE_OBJ_GETPROPERTIES, G_ZERO),
	D(MODE_OBJ_SETPROPERTY, G_ZERO), D(MODE_CURSOR2, G_ZERO),
	D(MODE_ATOMIC, G_ZERO), D(MODE_CREATEPROPBLOB, G_ZERO),
	D(MODE_DESTROYPROPBLOB, G_ZERO),
	D(SYNCOBJ_CREATE, G_SO_CREATE), D(SYNCOBJ_DESTROY, G_SO_DESTROY),
	D(SYNCOBJ_HANDLE_TO_FD, G_SO_TO_FD),
	D(SYNCOBJ_FD_TO_HANDLE, G_SO_TO_HANDLE),
	D(SYNCOBJ_WAIT, G_SO_WAIT), D(SYNCOBJ_RESET, G_SO_ARRAY),
	D(SYNCOBJ_SIGNAL, G_SO_ARRAY), D(MODE_CREATE_LEASE, G_ZERO),
	D(MODE_LIST_LESSEES, G_ZERO), D(MODE_GET_LEASE, G_ZERO),
	D(MODE_REVOKE_LEASE, G_ZERO), D(SYNCOBJ_TIMELINE_WAIT, G_SO_TWAIT),
	D(SYNCOBJ_QUERY, G_SO_TARRAY), D(SYNCOBJ_TRANSFER, G_SO_TRANSFER),
	D(SYNCOBJ_TIMELINE_SIGNAL, G_SO_TARRAY), D(MODE_GETFB2, G_ZERO),
#ifdef DRM_IOCTL_SYNCOBJ_EVENTFD
	D(SYNCOBJ_EVENTFD, G_SO_EVENTFD),
#endif
#ifdef DRM_IOCTL_MODE_CLOSEFB
	D(MODE_CLOSEFB, G_ZERO),
#endif
};

#undef D

_Static_assert(sizeof(drm_ios) / sizeof(drm_ios[0]) == N_DRM_IOS,
	       "N_DRM_IOS is the number of entries of drm_ios[]");
