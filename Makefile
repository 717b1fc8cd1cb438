# SPDX-License-Identifier: GPL-2.0
# iterkit: `make` builds the module, the BPF programs and the loader for the
# kernel named by KVER (default: the running kernel if its headers are here,
# else the newest installed headers). `make demo` and `make check` also set
# up what is missing and run everything in a VM.

KVER ?= $(shell scripts/kver.sh 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := build
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
VERSION := $(shell cat VERSION)

# vmlinux.h comes from the target kernel's BTF; the running kernel's as a fallback.
VMLINUX_BTF ?= $(firstword $(wildcard $(KDIR)/vmlinux) /sys/kernel/btf/vmlinux)

# Kernels from 6.19 are built with -fms-extensions, and their vmlinux.h embeds
# structs as anonymous members ("struct slock_owned;"): without the flag
# clang drops those members, and with -Werror it stops.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-fms-extensions -Wno-microsoft-anon-tag \
	-I$(BUILD) -Ibpf -I/usr/include/$(shell gcc -dumpmachine)
USER_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(BUILD) -Iuserspace \
	-DITERKIT_VERSION='"$(VERSION)"'
# libbpf 1.4 is linked in statically (bookworm's shared libbpf1 is 1.1); libelf/zlib stay shared.
USER_LIBS := -Wl,-Bstatic -lbpf -Wl,-Bdynamic -lelf -lz -lzstd

LOADER_PROGS := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))
LOADER_SKELS := $(patsubst %,$(BUILD)/bpf/%.skel.h,$(LOADER_PROGS))
LOADER_SRCS := $(wildcard userspace/*.c)

TEST_PROGS := $(patsubst tests/progs/%.bpf.c,%,$(wildcard tests/progs/*.bpf.c))
TEST_SKELS := $(patsubst %,$(BUILD)/tests/progs/%.skel.h,$(TEST_PROGS))
KSFT_SRCS := $(wildcard tests/kselftest/*.c)
KSFT_BINS := $(patsubst tests/kselftest/%.c,$(BUILD)/tests/%,$(KSFT_SRCS))
HELPER_BINS := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(wildcard tests/helpers/*.c))
VERIFIER_OBJS := $(patsubst tests/verifier/%.bpf.c,$(BUILD)/tests/verifier/%.bpf.o,\
	$(wildcard tests/verifier/*.bpf.c))
VERIFIER_RUNNER := $(if $(wildcard tests/verifier/runner.c),$(BUILD)/tests/verifier-runner)
KSFT_DIR ?= /var/cache/iterkit/linux-src/tools/testing/selftests

.PHONY: all module loader tests test-bins clean demo check check-debug deps deb rpm
.DELETE_ON_ERROR:
.SECONDARY:

all: module loader

module:
	@test -d $(KDIR) || { echo "iterkit: no kernel build tree at $(KDIR); install the kernel's headers (Debian: linux-headers-$(or $(KVER),\$$(uname -r))) or run scripts/install-deps.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	@sh scripts/check-btf.sh module/iterkit.ko

loader: iterkit

$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/iterkit.bpf.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/tests/progs/%.bpf.o: tests/progs/%.bpf.c bpf/iterkit.bpf.h $(wildcard tests/progs/*.h) $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -Itests/progs -c $< -o $@

# The documentation's example programs, compiled as written: each block
# marked "<!-- test: NAME -->" becomes $(BUILD)/examples/NAME.c, which a
# tests/verifier file includes; <iterkit/iterkit.bpf.h> resolves as installed.
EXAMPLE_DOCS := README.md docs/walker-task.md docs/walker-cgroup.md
EXAMPLES := $(patsubst %,$(BUILD)/examples/%.c,readme_example readme_direct readme_walkers \
	walker_task walker_cgroup)

$(BUILD)/examples/%.c: $(EXAMPLE_DOCS) tests/verifier/example.sh
	@mkdir -p $(@D)
	sh tests/verifier/example.sh $* $(EXAMPLE_DOCS) > $@

$(BUILD)/include/iterkit/iterkit.bpf.h: bpf/iterkit.bpf.h
	@mkdir -p $(@D)
	cp $< $@

$(BUILD)/tests/verifier/%.bpf.o: tests/verifier/%.bpf.c bpf/iterkit.bpf.h $(wildcard tests/verifier/*.h) \
		$(BUILD)/vmlinux.h $(EXAMPLES) $(BUILD)/include/iterkit/iterkit.bpf.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -Itests/verifier -I$(BUILD)/include -c $< -o $@

%.skel.h: %.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@

iterkit: $(LOADER_SRCS) $(wildcard userspace/*.h) $(LOADER_SKELS)
	$(CC) $(USER_CFLAGS) -Ibpf -I$(BUILD)/bpf $(LOADER_SRCS) -o $@ $(USER_LIBS)

tests: all test-bins $(BUILD)/tests/iterkit-nobtf.ko $(BUILD)/tests/iterkit-badbtf.ko

# The test programs alone, without the module and the loader (check-debug
# builds them with BUILD=build/debug against the debug kernel).
test-bins: $(KSFT_BINS) $(HELPER_BINS) $(VERIFIER_OBJS) $(VERIFIER_RUNNER)

# Broken copies of the module for the life-cycle test: no BTF at all, and
# BTF the kernel cannot parse. Both must be refused by iterkit's init.
# MODULE_KO: the module they are made from (check-debug passes its own).
MODULE_KO ?= module/iterkit.ko
MODULE_KO_DEP := $(if $(filter module/iterkit.ko,$(MODULE_KO)),module,$(MODULE_KO))

$(BUILD)/tests/iterkit-nobtf.ko: $(MODULE_KO_DEP)
	@mkdir -p $(@D)
	objcopy --remove-section=.BTF $(MODULE_KO) $@

$(BUILD)/tests/iterkit-badbtf.ko: $(MODULE_KO_DEP)
	@mkdir -p $(@D)
	objcopy --dump-section .BTF=$@.btf $(MODULE_KO)
	head -c 64 $@.btf > $@.btf.cut
	objcopy --update-section .BTF=$@.btf.cut $(MODULE_KO) $@
	rm -f $@.btf $@.btf.cut

$(BUILD)/tests/%: tests/kselftest/%.c $(TEST_SKELS) $(wildcard tests/kselftest/*.h tests/progs/*.h)
	@test -f $(KSFT_DIR)/kselftest_harness.h || \
		{ echo "no kselftest_harness.h: run scripts/install-deps.sh test"; exit 1; }
	$(CC) $(USER_CFLAGS) -Wno-sign-compare -Wno-clobbered -I$(BUILD)/tests/progs -Itests/progs -I$(KSFT_DIR) -Itests/kselftest $< -o $@ $(USER_LIBS) -lpthread

# Programs the tests drive (not suites themselves): tests/helpers/<h>.c.
$(BUILD)/tests/helpers/%: tests/helpers/%.c $(TEST_SKELS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(BUILD)/tests/progs -Itests/helpers $< -o $@ $(USER_LIBS) -lpthread

# Objects with deliberately wrong expectations: the runner's own test.
VERIFIER_SELFTEST_OBJS := $(patsubst tests/verifier-selftest/%.bpf.c,\
	$(BUILD)/tests/verifier-selftest/%.bpf.o,$(wildcard tests/verifier-selftest/*.bpf.c))
test-bins: $(VERIFIER_SELFTEST_OBJS)

$(BUILD)/tests/verifier-selftest/%.bpf.o: tests/verifier-selftest/%.bpf.c bpf/iterkit.bpf.h \
		tests/verifier/verifier.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -Itests/verifier -c $< -o $@

$(BUILD)/tests/verifier-runner: tests/verifier/runner.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $< -o $@ $(USER_LIBS)

# Packages, built from a clean copy of the sources under build/pkg/.
PKG := $(BUILD)/pkg
deb:
	rm -rf $(PKG)/deb && mkdir -p $(PKG)/deb
	scripts/srcdist.sh $(PKG)/deb/iterkit-$(VERSION)
	cd $(PKG)/deb/iterkit-$(VERSION) && dpkg-buildpackage -us -uc -b
	@ls $(PKG)/deb/*.deb

rpm:
	rm -rf $(PKG)/rpm && mkdir -p $(PKG)/rpm/SOURCES
	scripts/srcdist.sh $(PKG)/rpm/iterkit-$(VERSION)
	tar -C $(PKG)/rpm -czf $(PKG)/rpm/SOURCES/iterkit-$(VERSION).tar.gz iterkit-$(VERSION)
	rpmbuild -ba --nodeps --define "_topdir $(CURDIR)/$(PKG)/rpm" iterkit.spec
	@ls $(PKG)/rpm/RPMS/*/*.rpm $(PKG)/rpm/SRPMS/*.rpm

deps:
	scripts/install-deps.sh

demo:
	scripts/install-deps.sh build vm
	$(MAKE) all
	tests/vm/run -- 'insmod iterkit.ko && iterkit demo'

check:
	scripts/install-deps.sh
	$(MAKE) tests
	tests/run-all.sh

# The guest suites at full strength in a debug kernel (KASAN, lockdep,
# PROVE_RCU, UBSAN, kmemleak, ...), built once and cached; see
# tests/check-debug.sh.
check-debug:
	scripts/install-deps.sh build vm test debug
	tests/check-debug.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD) iterkit
