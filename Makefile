# SPDX-License-Identifier: GPL-2.0-only
#
# ane: out-of-tree kernel module, libane, tools and tests.
#
#   make            build ane.ko, libane (shared, static, .pc), tools, tests
#   make run        set up what is missing, build, boot the VM, run the demo
#   make check      host tests, KUnit and VM tests; last line "N passed, N failed"
#   make lint       checkpatch --strict, sparse and kernel-doc over kernel code
#   make install    install libane, headers and tools (DESTDIR, PREFIX)
#
# KDIR defaults to the running kernel's build directory, and falls back to
# the installed bookworm-backports 6.12 headers when the running kernel
# has none.

SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
B ?= $(SRC)/build

KVER ?= $(shell uname -r)
ifeq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
KVER := $(shell $(SRC)/tools/setup-deps.sh --kver 2>/dev/null)
endif
KDIR ?= /lib/modules/$(KVER)/build

CC ?= cc
AR ?= ar
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin

ANE_VERSION := 0.1.0
ANE_SOVERSION := 0

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wformat=2
CFLAGS ?= -O2 -g
ANE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -I$(SRC)/uapi -I$(SRC)/lib -I$(SRC)/tests
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

LIB_SRCS := $(wildcard $(SRC)/lib/*.c)
LIB_HDRS := $(wildcard $(SRC)/lib/*.h) $(SRC)/uapi/drm/ane_accel.h
TOOLS := anectl ane-bench ane-mathbench ane-run
HOST_TESTS := $(notdir $(basename $(wildcard $(SRC)/tests/host/*_test.c)))
VM_TESTS := $(notdir $(basename $(wildcard $(SRC)/tests/vm/*_test.c)))

# The compute engine's math (firmware/engine/) builds here as plain
# userspace C for the host tests and ane-mathbench, with what the kernel's
# CC_FLAGS_FPU allows on x86_64 (SSE2, no AVX); its integer half
# (ane_math_plan.c) is built without FPU registers, as in the kernel.  On
# x86_64 the GEMM's AVX2 path (ane_math_avx2.c) is built with
# -mavx2 -mfma -mf16c and ane_math.c with -DANE_MATH_AVX2 to call it; it
# runs only when the program selects it (ane_math_set_isa()).
ENGINE_SRCS := $(wildcard $(SRC)/firmware/engine/*.c)
ENGINE_HDRS := $(wildcard $(SRC)/firmware/engine/*.h)
ENGINE_OBJS := $(patsubst $(SRC)/firmware/engine/%.c,$(B)/engine/%.o,$(ENGINE_SRCS))
ENGINE_SAN_OBJS := $(patsubst $(SRC)/firmware/engine/%.c,$(B)/san/engine/%.o,$(ENGINE_SRCS))
ENGINE_INC := -I$(SRC)/firmware/engine
ifeq ($(shell uname -m),x86_64)
ENGINE_CFLAGS_ane_math := -msse2 -mno-avx -DANE_MATH_AVX2
ENGINE_CFLAGS_ane_math_avx2 := -msse2 -mavx2 -mfma -mf16c
ENGINE_CFLAGS_ane_math_plan := -mgeneral-regs-only
endif
# The kernel's program-image validator and task-descriptor decoder, built
# unchanged for the host tests through a few stand-in kernel headers
# (tests/host/kshim), so the host tests check the very code the kernel runs.
KIMAGE_SRCS := $(SRC)/driver/ane_image.c $(SRC)/firmware/ane_td.c
KIMAGE_OBJS := $(patsubst $(SRC)/%.c,$(B)/kshim/%.o,$(KIMAGE_SRCS))
KIMAGE_SAN_OBJS := $(patsubst $(SRC)/%.c,$(B)/san/kshim/%.o,$(KIMAGE_SRCS))
KIMAGE_CFLAGS := -I$(SRC)/tests/host/kshim -I$(SRC)

# Built only through pattern rules: keep them, they are not intermediates.
.SECONDARY: $(ENGINE_OBJS) $(ENGINE_SAN_OBJS) $(KIMAGE_OBJS) $(KIMAGE_SAN_OBJS)

OPENBLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
OPENBLAS_LIBS := $(or $(shell pkg-config --libs openblas 2>/dev/null),-lopenblas)

LIB_OBJS := $(patsubst $(SRC)/lib/%.c,$(B)/lib/%.o,$(LIB_SRCS))
LIB_SAN_OBJS := $(patsubst $(SRC)/lib/%.c,$(B)/san/lib/%.o,$(LIB_SRCS))
LIBSO := $(B)/lib/libane.so.$(ANE_VERSION)

.PHONY: all module lib tools tests deps run check lint install clean \
	check-host check-kunit check-vm

all: module lib tools tests

deps:
	@$(SRC)/tools/setup-deps.sh

# ---------------------------------------------------------------- module
module:
	@test -e "$(KDIR)/Makefile" || { \
		echo "No kernel build directory (KDIR=$(KDIR)); run 'make deps'." >&2; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(SRC) CONFIG_DRM_ACCEL_ANE=m modules

# ---------------------------------------------------------------- libane
lib: $(LIBSO) $(B)/lib/libane.a $(B)/lib/libane.pc

$(B)/lib/%.o: $(SRC)/lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/san/lib/%.o: $(SRC)/lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(SAN_FLAGS) -fPIC -c -o $@ $<

$(LIBSO): $(LIB_OBJS)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libane.so.$(ANE_SOVERSION) \
		-Wl,--no-undefined -o $@ $^
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

$(B)/engine/%.o: $(SRC)/firmware/engine/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_CFLAGS_$*) -c -o $@ $<

$(B)/san/engine/%.o: $(SRC)/firmware/engine/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(SAN_FLAGS) $(ENGINE_CFLAGS_$*) -c -o $@ $<

# ---------------------------------------------------------------- tools
tools: $(addprefix $(B)/tools/,$(TOOLS))

# Tools link libane statically so they run anywhere (including the VM).
$(B)/tools/%: $(SRC)/tools/%.c $(B)/lib/libane.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) -o $@ $< $(B)/lib/libane.a -lm

# The engine's benchmark, against OpenBLAS (libopenblas-dev).
$(B)/tools/ane-mathbench: $(SRC)/tools/ane-mathbench.c $(ENGINE_OBJS) $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) $(OPENBLAS_CFLAGS) -o $@ $< \
		$(ENGINE_OBJS) $(OPENBLAS_LIBS) -lm

# ---------------------------------------------------------------- tests
tests: $(addprefix $(B)/tests/host/,$(HOST_TESTS)) \
	$(addprefix $(B)/tests/host-san/,$(HOST_TESTS)) \
	$(addprefix $(B)/tests/vm/,$(VM_TESTS))

$(B)/kshim/%.o: $(SRC)/%.c $(SRC)/driver/ane_image.h $(SRC)/firmware/ane_td.h $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(KIMAGE_CFLAGS) -c -o $@ $<

$(B)/san/kshim/%.o: $(SRC)/%.c $(SRC)/driver/ane_image.h $(SRC)/firmware/ane_td.h $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(KIMAGE_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(B)/tests/host/%: $(SRC)/tests/host/%.c $(B)/lib/libane.a $(ENGINE_OBJS) $(KIMAGE_OBJS) \
		$(LIB_HDRS) $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) -I$(SRC) -o $@ $< $(ENGINE_OBJS) \
		$(KIMAGE_OBJS) $(B)/lib/libane.a -lm

$(B)/tests/host-san/%: $(SRC)/tests/host/%.c $(B)/san/lib/libane.a $(ENGINE_SAN_OBJS) \
		$(KIMAGE_SAN_OBJS) $(LIB_HDRS) $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) $(ENGINE_INC) -I$(SRC) $(SAN_FLAGS) -o $@ $< \
		$(ENGINE_SAN_OBJS) $(KIMAGE_SAN_OBJS) $(B)/san/lib/libane.a -lm

$(B)/tests/vm/%: $(SRC)/tests/vm/%.c $(B)/lib/libane.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ANE_CFLAGS) -o $@ $< $(B)/lib/libane.a -lm

# ---------------------------------------------------------------- run/check
run: deps
	$(MAKE) -C $(SRC) all
	$(SRC)/tools/vm/ane-vm --bin $(B)/tools/anectl --bin $(B)/tools/ane-run \
		-- 'anectl info && ane-run mlp && ane-run conv'

check: deps
	$(MAKE) -C $(SRC) all
	@$(SRC)/tests/check.sh

check-host: lib tests
	@$(SRC)/tests/check.sh host

check-kunit:
	@$(SRC)/tests/check.sh kunit

check-vm: all
	@$(SRC)/tests/check.sh vm

lint: deps
	@$(SRC)/tools/lint.sh

# ---------------------------------------------------------------- install
install: lib tools
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/libane/drm $(DESTDIR)$(BINDIR)
	install -m 0755 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf libane.so.$(ANE_VERSION) $(DESTDIR)$(LIBDIR)/libane.so.$(ANE_SOVERSION)
	ln -sf libane.so.$(ANE_SOVERSION) $(DESTDIR)$(LIBDIR)/libane.so
	install -m 0644 $(B)/lib/libane.a $(DESTDIR)$(LIBDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(ANE_VERSION)|' \
	    $(SRC)/lib/libane.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/libane.pc
	install -m 0644 $(SRC)/lib/libane.h $(DESTDIR)$(INCLUDEDIR)/libane/
	install -m 0644 $(SRC)/uapi/drm/ane_accel.h $(DESTDIR)$(INCLUDEDIR)/libane/drm/
	install -m 0755 $(addprefix $(B)/tools/,$(TOOLS)) $(DESTDIR)$(BINDIR)/

clean:
	-$(MAKE) -C $(KDIR) M=$(SRC) clean 2>/dev/null
	rm -rf $(B)
