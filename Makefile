# SPDX-License-Identifier: GPL-2.0-only
#
# ane: out-of-tree kernel module, libane, tools and tests.
#
#   make            build ane.ko, libane (shared, static, .pc), tools, tests
#   make run        set up what is missing, build, boot the VM, run the demo
#   make check      host tests, KUnit and VM tests; last line "N passed, N failed, N skipped"
#   make lint       docs checks; checkpatch --strict, sparse, kernel-doc over kernel code
#   make install    install libane, headers, anectl, ane-run, aned and its units and default
#                   policy, udev rule, manual pages and the module source for DKMS (DESTDIR, PREFIX)
#   make install-bench  the benchmarks and the fuzzer (needs OpenBLAS and oneDNN)
#   make dist       $(B)/ane-VERSION.tar.gz, a release tarball that builds
#
# KDIR defaults to the running kernel's build directory, and falls back to
# the installed bookworm-backports 6.12 headers when the running kernel
# has none.

SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
B ?= $(SRC)/build

KVER ?= $(shell uname -r)
ifeq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
KVER := $(shell $(SRC)/tools/scripts/setup-deps.sh --kver 2>/dev/null)
endif
KDIR ?= /lib/modules/$(KVER)/build

CC ?= cc
AR ?= ar
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(PREFIX)/share/man

ANE_VERSION := 0.1.0
ANE_SOVERSION := 0

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wformat=2
CFLAGS ?= -O2 -g
ANE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -I$(SRC)/uapi -I$(SRC)/lib -I$(SRC)/tests \
	-DANE_VERSION='"$(ANE_VERSION)"'
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

LIB_SRCS := $(wildcard $(SRC)/lib/*.c) $(wildcard $(SRC)/lib/onnx/*.c)
LIB_HDRS := $(wildcard $(SRC)/lib/*.h) $(wildcard $(SRC)/lib/onnx/*.h) \
	$(SRC)/uapi/drm/ane_accel.h

# The ONNX front end (lib/onnx/, Documentation/accel/ane/onnx.rst) reads
# models with protobuf-c: C generated at build time by protoc-c from the
# onnx.proto that Debian's libonnx-dev installs (never committed), and
# libprotobuf-c.
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
GEN := $(B)/gen
PROTOBUF_LIBS := $(or $(shell pkg-config --libs libprotobuf-c 2>/dev/null),-lprotobuf-c)
# What `make install` installs (the programs a user runs), and what only
# `make install-bench` does: the benchmarks and the fuzzer (ane-mathbench
# needs OpenBLAS and oneDNN, which make install must not).
TOOLS := anectl ane-run
BENCH_TOOLS := ane-bench ane-mathbench ane-netbench ane-fuzz
HOST_TESTS := $(notdir $(basename $(wildcard $(SRC)/tests/host/*_test.c)))
VM_TESTS := $(notdir $(basename $(wildcard $(SRC)/tests/vm/*_test.c)))

# The compute engine's math (firmware/hw/engine/) builds here as plain
# userspace C for the host tests and ane-mathbench, with what the kernel's
# CC_FLAGS_FPU allows on x86_64 (SSE2, no AVX); its integer half
# (ane_math_plan.c, ane_math_split.c and the strided copy, ane_math_copy.c,
# and the gather, ane_math_gather.c) is built without FPU registers, as in
# the kernel, and so are the specification's operation checks
# (firmware/spec/ane_op_check.c), which it links with.  On
# x86_64 the GEMM's AVX2 path (ane_math_avx2.c) is built with
# -mavx2 -mfma -mf16c and ane_math.c and ane_math_gemm.c with
# -DANE_MATH_AVX2 to call it, and its AVX-512 path (ane_math_avx512.c)
# with -mavx512f -mavx512bw -mavx512vl as well and -DANE_MATH_AVX512; each
# runs only when the program selects it (ane_math_set_isa()).  The row
# operations' AVX2 + F16C loops (ane_math_rows_avx2.c) are built without
# -mfma (the same bits as the SSE2 loops) and called by ane_math_rows.c,
# built with -DANE_MATH_AVX2, on either wide path; its elementwise loop
# sixteen wide (ane_math_rows_avx512.c) on the AVX-512 path.
ENGINE_SRCS := $(wildcard $(SRC)/firmware/hw/engine/*.c) $(SRC)/firmware/spec/ane_op_check.c
ENGINE_HDRS := $(wildcard $(SRC)/firmware/hw/engine/*.h) $(SRC)/firmware/spec/ane_isa.h
ENGINE_OBJS := $(addprefix $(B)/engine/,$(notdir $(ENGINE_SRCS:.c=.o)))
ENGINE_SAN_OBJS := $(addprefix $(B)/san/engine/,$(notdir $(ENGINE_SRCS:.c=.o)))
ENGINE_INC := -I$(SRC)/firmware/hw/engine
ifeq ($(shell uname -m),x86_64)
ENGINE_CFLAGS_ane_math := -msse2 -mno-avx -DANE_MATH_AVX2 -DANE_MATH_AVX512
ENGINE_CFLAGS_ane_math_gemm := -msse2 -mno-avx -DANE_MATH_AVX2 -DANE_MATH_AVX512
ENGINE_CFLAGS_ane_math_rows := -msse2 -mno-avx -DANE_MATH_AVX2 -DANE_MATH_AVX512
ENGINE_CFLAGS_ane_math_pool := -msse2 -mno-avx -DANE_MATH_AVX2 -DANE_MATH_AVX512
ENGINE_CFLAGS_ane_math_conv_rows := -msse2 -mno-avx -DANE_MATH_AVX2 -DANE_MATH_AVX512
# REDUCE has one path: SSE2 scalar, no contraction (the same bits anywhere).
ENGINE_CFLAGS_ane_math_reduce := -msse2 -mno-avx -ffp-contract=off
ENGINE_CFLAGS_ane_math_fn := -msse2 -mno-avx
ENGINE_CFLAGS_ane_math_rows_avx2 := -msse2 -mavx2 -mf16c
# AVX-512 F has FMA even without -mfma: no contraction, the same bits.
ENGINE_CFLAGS_ane_math_rows_avx512 := -msse2 -mavx2 -mf16c -mavx512f -mavx512bw -mavx512vl \
	-ffp-contract=off
ENGINE_CFLAGS_ane_math_avx2 := -msse2 -mavx2 -mfma -mf16c
ENGINE_CFLAGS_ane_math_avx512 := -msse2 -mavx2 -mfma -mf16c -mavx512f -mavx512bw -mavx512vl
ENGINE_CFLAGS_ane_math_conv_avx512 := $(ENGINE_CFLAGS_ane_math_avx512)
ENGINE_CFLAGS_ane_math_conv1_avx512 := $(ENGINE_CFLAGS_ane_math_avx512)
ENGINE_CFLAGS_ane_math_pack_avx512 := $(ENGINE_CFLAGS_ane_math_avx512)
ENGINE_CFLAGS_ane_math_plan := -mgeneral-regs-only
ENGINE_CFLAGS_ane_op_check := -mgeneral-regs-only
ENGINE_CFLAGS_ane_math_copy := -mgeneral-regs-only
ENGINE_CFLAGS_ane_math_gather := -mgeneral-regs-only
ENGINE_CFLAGS_ane_math_split := -mgeneral-regs-only
endif
# The kernel's program-image validator and task-descriptor decoder, built
# unchanged for the host tests through a few stand-in kernel headers
# (tests/host/kshim), so the host tests check the very code the kernel runs.
KIMAGE_SRCS := $(SRC)/driver/ane_image.c $(SRC)/firmware/spec/ane_td.c
KIMAGE_OBJS := $(patsubst $(SRC)/%.c,$(B)/kshim/%.o,$(KIMAGE_SRCS))
KIMAGE_SAN_OBJS := $(patsubst $(SRC)/%.c,$(B)/san/kshim/%.o,$(KIMAGE_SRCS))
KIMAGE_CFLAGS := -I$(SRC)/tests/host/kshim -I$(SRC)

# Built only through pattern rules: keep them, they are not intermediates.
.SECONDARY: $(ENGINE_OBJS) $(ENGINE_SAN_OBJS) $(KIMAGE_OBJS) $(KIMAGE_SAN_OBJS)

# libsystemd (sd-bus): aned and libane's broker client (lib/ane_broker.c).
# Static links of libane.a take it as needed: only what calls the broker
# client depends on it.
SYSTEMD_LIBS := $(or $(shell pkg-config --libs libsystemd 2>/dev/null),-lsystemd)
LIBANE_LINK = $(1) $(PROTOBUF_LIBS) -Wl,--as-needed $(SYSTEMD_LIBS) -Wl,--no-as-needed

OPENBLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
OPENBLAS_LIBS := $(or $(shell pkg-config --libs openblas 2>/dev/null),-lopenblas)

LIB_OBJS := $(patsubst $(SRC)/lib/%.c,$(B)/lib/%.o,$(LIB_SRCS)) $(B)/lib/onnx.pb-c.o
LIB_SAN_OBJS := $(patsubst $(SRC)/lib/%.c,$(B)/san/lib/%.o,$(LIB_SRCS)) \
	$(B)/san/lib/onnx.pb-c.o
LIBSO := $(B)/lib/libane.so.$(ANE_VERSION)

.PHONY: all module lib tools user-tools bench-tools tests deps run check lint install \
	install-bench uninstall uninstall-bench clean check-host check-kunit check-vm FORCE

all: module lib tools tests

deps:
	@$(SRC)/tools/scripts/setup-deps.sh

# ---------------------------------------------------------------- module
# Say what is missing before the compiler does: no headers at all, or
# headers of a kernel without the accel subsystem (before 6.12, or built
# without CONFIG_DRM_ACCEL).
module:
	@test -e "$(KDIR)/Makefile" || { \
		echo "ane: no kernel build directory at KDIR=$(KDIR)." >&2; \
		echo "ane: install the headers of a Linux 6.12+ kernel with CONFIG_DRM_ACCEL=y" >&2; \
		echo "ane: (Debian bookworm: 'make deps' installs linux-headers-amd64 from bookworm-backports)," >&2; \
		echo "ane: or name them with KDIR=/path/to/build or KVER=version." >&2; \
		exit 1; }
	@grep -qs '^CONFIG_DRM_ACCEL=y' "$(KDIR)/include/config/auto.conf" || \
	 grep -qs '^CONFIG_DRM_ACCEL=y' "$(KDIR)/.config" || { \
		echo "ane: the kernel at KDIR=$(KDIR) has no CONFIG_DRM_ACCEL=y (ane needs Linux 6.12+ with the accel subsystem)." >&2; \
		echo "ane: Debian bookworm: 'make deps' installs the bookworm-backports 6.12 kernel and headers; boot it, or pass KVER=." >&2; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(SRC) CONFIG_DRM_ACCEL_ANE=m $(if $(ANE_WERROR),ANE_WERROR=y) modules

# ---------------------------------------------------------------- libane
lib: $(LIBSO) $(B)/lib/libane.a $(B)/lib/libane.pc

$(GEN)/onnx.pb-c.c: $(ONNX_PROTO)
	@test -r $< || { echo "ane: no $< (Debian: apt-get install libonnx-dev, or make deps)" >&2; exit 1; }
	@mkdir -p $(@D)
	protoc-c --proto_path=$(<D) --c_out=$(@D) $<

$(GEN)/onnx.pb-c.h: $(GEN)/onnx.pb-c.c

ONNX_INC := -I$(GEN) -I$(SRC)/lib/onnx

$(B)/lib/onnx.pb-c.o: $(GEN)/onnx.pb-c.c
	$(CC) $(CFLAGS) $(ANE_CFLAGS) -I$(GEN) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/san/lib/onnx.pb-c.o: $(GEN)/onnx.pb-c.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(SAN_FLAGS) -I$(GEN) -fPIC -c -o $@ $<

$(B)/lib/%.o: $(SRC)/lib/%.c $(LIB_HDRS) $(GEN)/onnx.pb-c.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ONNX_INC) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/san/lib/%.o: $(SRC)/lib/%.c $(LIB_HDRS) $(GEN)/onnx.pb-c.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ONNX_INC) $(SAN_FLAGS) -fPIC -c -o $@ $<

# The exported symbols and their version (LIBANE_0.1): lib/libane.map.
$(LIBSO): $(LIB_OBJS) $(SRC)/lib/libane.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libane.so.$(ANE_SOVERSION) \
		-Wl,--version-script=$(SRC)/lib/libane.map \
		-Wl,--no-undefined -o $@ $(LIB_OBJS) $(PROTOBUF_LIBS) $(SYSTEMD_LIBS) -lm
	ln -sf libane.so.$(ANE_VERSION) $(B)/lib/libane.so.$(ANE_SOVERSION)
	ln -sf libane.so.$(ANE_SOVERSION) $(B)/lib/libane.so

$(B)/lib/libane.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/san/lib/libane.a: $(LIB_SAN_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/lib/libane.pc: $(SRC)/lib/libane.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(ANE_VERSION)|' $< > $@

$(B)/engine/%.o: $(SRC)/firmware/hw/engine/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_CFLAGS_$*) -c -o $@ $<

$(B)/san/engine/%.o: $(SRC)/firmware/hw/engine/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(SAN_FLAGS) $(ENGINE_CFLAGS_$*) -c -o $@ $<

# The specification's operation checks, linked with the engine.
$(B)/engine/%.o: $(SRC)/firmware/spec/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_CFLAGS_$*) -c -o $@ $<

$(B)/san/engine/%.o: $(SRC)/firmware/spec/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(SAN_FLAGS) $(ENGINE_CFLAGS_$*) -c -o $@ $<

# ---------------------------------------------------------------- tools
tools: user-tools bench-tools
user-tools: $(addprefix $(B)/tools/,$(TOOLS)) $(B)/tools/aned
bench-tools: $(addprefix $(B)/tools/,$(BENCH_TOOLS))

# Every tool parses its arguments through tools/common/ane_opt.c (getopt_long,
# the usage error, numbers with their range); the tools with --json
# (anectl and the benches) write and read it through tools/common/ane_json.c and
# json-c (libjson-c-dev).  libane itself never links json-c.
JSONC_LIBS := $(or $(shell pkg-config --libs json-c 2>/dev/null),-ljson-c)
OPT_OBJ := $(B)/tools/ane_opt.o
JSON_OBJ := $(B)/tools/ane_json.o
$(OPT_OBJ) $(JSON_OBJ): $(B)/tools/%.o: $(SRC)/tools/common/%.c $(SRC)/tools/common/%.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) -c -o $@ $<
COMMON_INC := -I$(SRC)/tools/common
# The engine's userspace build and the image runner, shared by ane-run,
# ane-mathbench, ane-netbench and the host tests.
EHOST := $(SRC)/tools/engine-host
EHOST_INC := -I$(EHOST)

# Tools link libane statically so they run anywhere (including the VM).
# Each has its folder: tools/<program>/ (the benches in tools/bench/).

# anectl's commands are in three files (anectl.c, anectl_doctor.c, anectl_top.c).
ANECTL_SRCS := $(addprefix $(SRC)/tools/anectl/,anectl.c anectl_doctor.c anectl_top.c)
$(B)/tools/anectl: $(ANECTL_SRCS) $(SRC)/tools/anectl/anectl.h $(OPT_OBJ) $(JSON_OBJ) \
		$(B)/lib/libane.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(COMMON_INC) -o $@ $(ANECTL_SRCS) $(OPT_OBJ) $(JSON_OBJ) \
		$(call LIBANE_LINK,$(B)/lib/libane.a) $(JSONC_LIBS) -lm

# ane-bench: tools/bench/ane-bench.c and its benchmarks, bench_*.c (bench.h says which).
BENCH_SRCS := $(SRC)/tools/bench/ane-bench.c $(wildcard $(SRC)/tools/bench/bench_*.c)
$(B)/tools/ane-bench: $(BENCH_SRCS) $(SRC)/tools/bench/bench.h $(OPT_OBJ) $(JSON_OBJ) \
		$(B)/lib/libane.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(COMMON_INC) -I$(SRC)/tools/bench -o $@ $(BENCH_SRCS) \
		$(OPT_OBJ) $(JSON_OBJ) $(call LIBANE_LINK,$(B)/lib/libane.a) $(JSONC_LIBS) -lm

# ane-fuzz: tools/fuzz/ane-fuzz.c and its parts (fuzz.h says which).
FUZZ_SRCS := $(wildcard $(SRC)/tools/fuzz/*.c)
$(B)/tools/ane-fuzz: $(FUZZ_SRCS) $(SRC)/tools/fuzz/fuzz.h $(OPT_OBJ) $(B)/lib/libane.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(COMMON_INC) -I$(SRC)/tools/fuzz -o $@ $(FUZZ_SRCS) \
		$(OPT_OBJ) $(call LIBANE_LINK,$(B)/lib/libane.a) -lm

# The broker daemon (Documentation/accel/ane/broker.rst).  aned_paths.h:
# the default policy it reads when /etc/aned/policy.conf does not exist,
# where install puts it ($(DATADIR)/ane/aned-policy.conf); rewritten (and
# aned rebuilt) only when DATADIR changes.
ANED_SRCS := $(wildcard $(SRC)/tools/aned/*.c)
$(B)/tools/aned_paths.h: FORCE
	@mkdir -p $(@D)
	@echo '#define ANED_VENDOR_POLICY "$(DATADIR)/ane/aned-policy.conf"' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(B)/tools/aned: $(ANED_SRCS) $(SRC)/tools/aned/aned_policy.h $(SRC)/tools/aned/aned.h \
		$(B)/tools/aned_paths.h $(OPT_OBJ) $(B)/lib/libane.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(COMMON_INC) -I$(SRC)/tools/aned -I$(B)/tools -o $@ $(ANED_SRCS) \
		$(OPT_OBJ) $(B)/lib/libane.a $(PROTOBUF_LIBS) $(SYSTEMD_LIBS) -lm

# The engine's benchmark, against OpenBLAS (libopenblas-dev) and oneDNN
# (libdnnl-dev, OpenMP runtime: -lgomp for omp_set_num_threads()).
# Its parts, in tools/bench/: ane-mathbench.c (the kernels), ane-mathbench-json.c
# (their --json), ane-mathbench-cores.c (one operation over threads),
# ane-mathbench-rows.c (the row normalizations), ane-mathbench-cpu.c (the
# CPU's micro-architecture).
MATHBENCH_SRCS := $(addprefix $(SRC)/tools/bench/,ane-mathbench.c ane-mathbench-json.c \
	ane-mathbench-cores.c ane-mathbench-rows.c ane-mathbench-cpu.c)
$(B)/tools/ane-mathbench: $(MATHBENCH_SRCS) $(SRC)/tools/bench/ane-mathbench.h \
		$(B)/tools/engine_host.o $(OPT_OBJ) $(JSON_OBJ) $(EHOST)/engine_host.h \
		$(ENGINE_OBJS) $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) $(OPENBLAS_CFLAGS) $(COMMON_INC) $(EHOST_INC) -o $@ \
		$(MATHBENCH_SRCS) $(B)/tools/engine_host.o $(OPT_OBJ) $(JSON_OBJ) $(ENGINE_OBJS) \
		$(OPENBLAS_LIBS) -ldnnl -lgomp $(JSONC_LIBS) -lm

# Real networks on the engine's userspace build: libane builds the image,
# tools/engine-host/ane_netrun.c runs it with the firmware's task-descriptor decoding
# (KIMAGE_OBJS) and the engine (GPL: the engine is linked here, never into
# libane).  The host tests link the runner too (netrun_test).
NETRUN_OBJ := $(B)/tools/ane_netrun.o $(B)/tools/ane_netrun_exec.o $(B)/tools/engine_host.o
NETRUN_SAN_OBJ := $(B)/san/tools/ane_netrun.o $(B)/san/tools/ane_netrun_exec.o \
	$(B)/san/tools/engine_host.o

# The engine's userspace build on the host (tools/engine-host/): ISA
# choice, threads, and the image runner.
$(B)/tools/engine_host.o: $(EHOST)/engine_host.c $(EHOST)/engine_host.h $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) -c -o $@ $<

$(B)/san/tools/engine_host.o: $(EHOST)/engine_host.c $(EHOST)/engine_host.h $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) $(SAN_FLAGS) -c -o $@ $<

$(filter-out %/engine_host.o,$(NETRUN_OBJ)): $(B)/tools/%.o: $(EHOST)/%.c $(EHOST)/ane_netrun.h $(ENGINE_HDRS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) -I$(SRC) -c -o $@ $<

$(filter-out %/engine_host.o,$(NETRUN_SAN_OBJ)): $(B)/san/tools/%.o: $(EHOST)/%.c $(EHOST)/ane_netrun.h $(ENGINE_HDRS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) -I$(SRC) $(SAN_FLAGS) -c -o $@ $<

# ane-netbench: the networks and their runs (tools/bench/ane-netbench.c),
# its JSON (ane-netbench-json.c).
NETBENCH_SRCS := $(addprefix $(SRC)/tools/bench/,ane-netbench.c ane-netbench-json.c)
$(B)/tools/ane-netbench: $(NETBENCH_SRCS) $(SRC)/tools/bench/ane-netbench.h $(NETRUN_OBJ) \
		$(OPT_OBJ) $(JSON_OBJ) $(ENGINE_OBJS) $(KIMAGE_OBJS) \
		$(B)/lib/libane.a $(EHOST)/ane_netrun.h $(ENGINE_HDRS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) $(COMMON_INC) $(EHOST_INC) -o $@ $(NETBENCH_SRCS) \
		$(NETRUN_OBJ) $(OPT_OBJ) $(JSON_OBJ) $(ENGINE_OBJS) $(KIMAGE_OBJS) \
		$(call LIBANE_LINK,$(B)/lib/libane.a) $(JSONC_LIBS) -lm

# ane-run (tools/ane-run/): its demo networks, and ONNX models (ane-run-onnx.c,
# .npy files in ane-run-npy.c) with engine segments on the device, the CPU
# reference or the engine's userspace build (--engine host: the netrun objects).
ANE_RUN_SRCS := $(addprefix $(SRC)/tools/ane-run/,ane-run.c ane-run-onnx.c ane-run-npy.c)
$(B)/tools/ane-run: $(ANE_RUN_SRCS) $(SRC)/tools/ane-run/ane-run.h \
		$(SRC)/tools/ane-run/ane-run-npy.h $(NETRUN_OBJ) $(OPT_OBJ) $(ENGINE_OBJS) \
		$(KIMAGE_OBJS) $(B)/lib/libane.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(COMMON_INC) $(EHOST_INC) -o $@ $(ANE_RUN_SRCS) $(NETRUN_OBJ) $(OPT_OBJ) \
		$(ENGINE_OBJS) $(KIMAGE_OBJS) $(call LIBANE_LINK,$(B)/lib/libane.a) -lm

# ---------------------------------------------------------------- tests
tests: $(B)/tests/onnx-suite $(addprefix $(B)/tests/host/,$(HOST_TESTS)) \
	$(addprefix $(B)/tests/host-san/,$(HOST_TESTS)) \
	$(addprefix $(B)/tests/vm/,$(VM_TESTS))

$(B)/kshim/%.o: $(SRC)/%.c $(SRC)/driver/ane_image.h $(SRC)/firmware/spec/ane_td.h $(SRC)/firmware/spec/ane_isa.h $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(KIMAGE_CFLAGS) -c -o $@ $<

$(B)/san/kshim/%.o: $(SRC)/%.c $(SRC)/driver/ane_image.h $(SRC)/firmware/spec/ane_td.h $(SRC)/firmware/spec/ane_isa.h $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(KIMAGE_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(B)/tests/host/%: $(SRC)/tests/host/%.c $(B)/lib/libane.a $(ENGINE_OBJS) $(KIMAGE_OBJS) \
		$(NETRUN_OBJ) $(LIB_HDRS) $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) $(ONNX_INC) -I$(SRC) -I$(SRC)/tools/aned -o $@ $< \
		$(ENGINE_OBJS) $(KIMAGE_OBJS) $(NETRUN_OBJ) \
		$(call LIBANE_LINK,$(B)/lib/libane.a) -lm

$(B)/tests/host-san/%: $(SRC)/tests/host/%.c $(B)/san/lib/libane.a $(ENGINE_SAN_OBJS) \
		$(KIMAGE_SAN_OBJS) $(NETRUN_SAN_OBJ) $(LIB_HDRS) $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) $(ONNX_INC) -I$(SRC) -I$(SRC)/tools/aned $(SAN_FLAGS) \
		-o $@ $< $(ENGINE_SAN_OBJS) $(KIMAGE_SAN_OBJS) $(NETRUN_SAN_OBJ) \
		$(call LIBANE_LINK,$(B)/san/lib/libane.a) -lm

# ONNX's own test suite on the engine's userspace build (tests/onnx/).
$(B)/tests/onnx-suite: $(SRC)/tests/onnx/onnx_suite.c $(B)/lib/libane.a $(ENGINE_OBJS) \
		$(KIMAGE_OBJS) $(NETRUN_OBJ) $(LIB_HDRS) $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) -Wno-format-truncation $(ENGINE_INC) $(ONNX_INC) -I$(SRC) -o $@ $< \
		$(ENGINE_OBJS) $(KIMAGE_OBJS) $(NETRUN_OBJ) \
		$(call LIBANE_LINK,$(B)/lib/libane.a) -lm

# json-c for the test that parses anectl --json (top_test).
$(B)/tests/vm/%: $(SRC)/tests/vm/%.c $(B)/lib/libane.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ONNX_INC) -o $@ $< $(call LIBANE_LINK,$(B)/lib/libane.a) \
		-Wl,--as-needed $(JSONC_LIBS) -Wl,--no-as-needed -lm

# ---------------------------------------------------------------- run/check
# What a person reads: the build goes to $(RUN_LOG) (its last lines on the
# screen if it fails), the VM's console to $(RUN_CONSOLE) (on the screen
# only when something failed, or with V=1); at most 60 lines otherwise.
ANE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/ane
RUN_LOG := $(ANE_CACHE)/run/build.log
RUN_CONSOLE := $(ANE_CACHE)/run/console.log
run: deps
	@mkdir -p $(dir $(RUN_LOG))
	@echo "ane: building (make all; the full log: $(RUN_LOG))"
	@$(MAKE) --no-print-directory -C $(SRC) all >$(RUN_LOG) 2>&1 || { \
		tail -n 30 $(RUN_LOG); \
		echo "ane: the build failed; the full log: $(RUN_LOG)"; exit 1; }
	@echo "ane: booting the VM (its console: $(RUN_CONSOLE))"
	@$(SRC)/tools/vm/ane-vm $(if $(filter 1,$(V)),,--quiet) --log $(RUN_CONSOLE) \
		--bin $(B)/tools/anectl --bin $(B)/tools/ane-run \
		-- 'anectl info && ane-run mlp && ane-run conv'

check: deps
	$(MAKE) -C $(SRC) all ANE_WERROR=y
	@$(SRC)/tests/check.sh

check-host: lib tests
	@$(SRC)/tests/check.sh host

# The uapi header alone under every C and C++ standard (also in check-host).
.PHONY: check-uapi
check-uapi:
	@$(SRC)/tests/host/uapi-header.sh

check-kunit:
	@$(SRC)/tests/check.sh kunit

check-vm: all
	@$(SRC)/tests/check.sh vm

# The VM suites under the debug kernel (built once, cached).
.PHONY: check-vm-debug
check-vm-debug: all
	@$(SRC)/tests/check.sh vm-debug

lint: deps
	@$(SRC)/tools/scripts/lint.sh

# ---------------------------------------------------------------- dist
# make dist: $(DISTDIR)/ane-VERSION.tar.gz, the tree's files (git's
# tracked files in a checkout, else everything but build/) under
# ane-VERSION/, reproducible (sorted, owner 0, the last commit's time,
# gzip -n).  It builds as the tree does (tests/host/dist.sh).
DISTDIR ?= $(B)
DIST := ane-$(ANE_VERSION)
.PHONY: dist
dist:
	@mkdir -p $(DISTDIR)
	@cd $(SRC) && if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(SRC)" ]; then \
		git ls-files; else find . -type f ! -path './build/*' ! -path './.git/*' \
		! -name '*.o' ! -name '*.ko' ! -name '.*.cmd' ! -name '*.mod*' \
		! -name 'Module.symvers' ! -name 'modules.order' | sed 's|^\./||'; fi | \
		while read -r f; do [ -f "$$f" ] && echo "$$f"; done | LC_ALL=C sort >$(DISTDIR)/$(DIST).files
	@test -s $(DISTDIR)/$(DIST).files || { echo "ane: make dist: no files found in $(SRC)" >&2; exit 1; }
	@cd $(SRC) && tar --transform 's|^|$(DIST)/|' --owner=0 --group=0 --numeric-owner \
		--mtime=@$$(git log -1 --format=%ct 2>/dev/null || date +%s) \
		-cf - -T $(DISTDIR)/$(DIST).files | gzip -n -9 >$(DISTDIR)/$(DIST).tar.gz
	@rm -f $(DISTDIR)/$(DIST).files
	@echo "$(DISTDIR)/$(DIST).tar.gz"

# ---------------------------------------------------------------- install
# UDEVRULESDIR: the udev rule (accel nodes for the render group, 0660);
# /usr/lib/udev/rules.d for a package install (PREFIX=/usr), else the
# administrator's /etc/udev/rules.d.  MODSRCDIR: the module's source tree
# as DKMS expects it (`dkms add $(MODSRCDIR)`).
UDEVRULESDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/udev/rules.d,/etc/udev/rules.d)
# SYSTEMDUNITDIR: aned.service and aned.socket (ExecStart names SBINDIR);
# the default policy goes to $(DATADIR)/ane/aned-policy.conf, which aned
# reads while there is no /etc/aned/policy.conf (an administrator's copy).
SYSTEMDUNITDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/systemd/system,/etc/systemd/system)
MODSRCDIR ?= /usr/src/ane-$(ANE_VERSION)
# Manual pages (roff sources in Documentation/accel/ane/man/).
MAN1 := anectl.1 ane-run.1
MAN1_BENCH := ane-bench.1 ane-mathbench.1 ane-netbench.1 ane-fuzz.1
MAN3 := libane.3
MAN5 := aned-policy.conf.5
MAN8 := aned.8
MODSRC_FILES := Kbuild Kconfig dkms.conf \
	$(patsubst $(SRC)/%,%,$(wildcard $(SRC)/driver/*.[ch] \
	$(SRC)/firmware/*.[ch] $(SRC)/firmware/*/*.[ch] $(SRC)/firmware/*/*/*.[ch] \
	$(SRC)/uapi/drm/*.h \
	$(SRC)/tests/kunit/*.c))

install: lib user-tools
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/libane/drm $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(SBINDIR) $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(DATADIR)/ane
	install -m 0755 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf libane.so.$(ANE_VERSION) $(DESTDIR)$(LIBDIR)/libane.so.$(ANE_SOVERSION)
	ln -sf libane.so.$(ANE_SOVERSION) $(DESTDIR)$(LIBDIR)/libane.so
	install -m 0644 $(B)/lib/libane.a $(DESTDIR)$(LIBDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(ANE_VERSION)|' \
	    $(SRC)/lib/libane.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/libane.pc
	install -m 0644 $(SRC)/lib/libane.h $(SRC)/lib/libane_net.h $(DESTDIR)$(INCLUDEDIR)/libane/
	install -m 0644 $(SRC)/uapi/drm/ane_accel.h $(DESTDIR)$(INCLUDEDIR)/libane/drm/
	install -m 0755 $(addprefix $(B)/tools/,$(TOOLS)) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(SRC)/tools/udev/70-ane.rules $(DESTDIR)$(UDEVRULESDIR)/
	install -m 0755 $(B)/tools/aned $(DESTDIR)$(SBINDIR)/
	sed -e 's|@SBINDIR@|$(SBINDIR)|' $(SRC)/tools/aned/aned.service \
		> $(DESTDIR)$(SYSTEMDUNITDIR)/aned.service
	install -m 0644 $(SRC)/tools/aned/aned.socket $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 0644 $(SRC)/tools/aned/policy.conf $(DESTDIR)$(DATADIR)/ane/aned-policy.conf
	install -m 0644 $(addprefix $(SRC)/Documentation/accel/ane/man/,$(MAN1)) \
		$(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(addprefix $(SRC)/Documentation/accel/ane/man/,$(MAN3)) \
		$(DESTDIR)$(MANDIR)/man3/
	install -m 0644 $(addprefix $(SRC)/Documentation/accel/ane/man/,$(MAN5)) \
		$(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(addprefix $(SRC)/Documentation/accel/ane/man/,$(MAN8)) \
		$(DESTDIR)$(MANDIR)/man8/
	cd $(SRC) && for f in $(MODSRC_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(MODSRCDIR)/$$f || exit 1; \
	done

# The benchmarks and the fuzzer, with their manual pages: developers'
# tools, apart from make install (ane-mathbench needs OpenBLAS and oneDNN).
install-bench: bench-tools
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(addprefix $(B)/tools/,$(BENCH_TOOLS)) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(addprefix $(SRC)/Documentation/accel/ane/man/,$(MAN1_BENCH)) \
		$(DESTDIR)$(MANDIR)/man1/

uninstall-bench:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(BENCH_TOOLS)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(MAN1_BENCH))

# Removes exactly what install put there (same PREFIX, DESTDIR, ...).
uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libane.so.$(ANE_VERSION) \
		$(DESTDIR)$(LIBDIR)/libane.so.$(ANE_SOVERSION) \
		$(DESTDIR)$(LIBDIR)/libane.so $(DESTDIR)$(LIBDIR)/libane.a \
		$(DESTDIR)$(LIBDIR)/pkgconfig/libane.pc \
		$(DESTDIR)$(INCLUDEDIR)/libane/libane.h \
		$(DESTDIR)$(INCLUDEDIR)/libane/libane_net.h \
		$(DESTDIR)$(INCLUDEDIR)/libane/drm/ane_accel.h \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(TOOLS)) \
		$(DESTDIR)$(UDEVRULESDIR)/70-ane.rules \
		$(DESTDIR)$(SBINDIR)/aned $(DESTDIR)$(SYSTEMDUNITDIR)/aned.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/aned.socket \
		$(DESTDIR)$(DATADIR)/ane/aned-policy.conf \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(MAN1)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(MAN3)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(MAN5)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(MAN8))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/libane/drm $(DESTDIR)$(INCLUDEDIR)/libane 2>/dev/null
	-rmdir $(DESTDIR)$(DATADIR)/ane 2>/dev/null
	rm -rf $(DESTDIR)$(MODSRCDIR)

clean:
	-$(MAKE) -C $(KDIR) M=$(SRC) clean 2>/dev/null
	-$(MAKE) -C $(KDIR) M=$(SRC)/tests/vm/asahi-stub clean 2>/dev/null
	rm -rf $(B)
