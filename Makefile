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

MULTIARCH := $(shell gcc -dumpmachine)

# vmlinux.h for the BPF programs comes from a declared source, never from
# whatever kernel the build machine runs: VMLINUX_H=<file> when given (the
# packages name theirs), else the target kernel's headers: their vmlinux
# (Debian 6.12.16+) or vmlinux.h (Fedora/RHEL kernel-devel), else Debian's
# linux-bpf-dev. build/vmlinux.h follows when that choice changes (KVER).
VMLINUX_H ?= $(firstword $(wildcard $(KDIR)/vmlinux $(KDIR)/vmlinux.h \
	/usr/include/$(MULTIARCH)/linux/bpf/vmlinux.h))

# __TARGET_ARCH_<arch> for the BPF programs' tracing macros: the target
# kernel's architecture (its .config), else the build machine's, in the
# kernel's names.
BUILD_ARCH := $(patsubst x86_64,x86,$(patsubst i%86,x86,$(patsubst aarch64%,arm64,\
	$(patsubst s390x,s390,$(patsubst ppc64%,powerpc,$(patsubst riscv64,riscv,\
	$(patsubst loongarch64,loongarch,$(shell uname -m))))))))
KERNEL_ARCH := $(shell sed -n 's/^CONFIG_\(X86\|ARM64\)=y$$/\1/p' $(KDIR)/.config 2>/dev/null | tr A-Z a-z)
BPF_ARCH ?= $(or $(KERNEL_ARCH),$(BUILD_ARCH))

# Cross builds (a kernel of another architecture than the build machine's,
# e.g. arm64 headers unpacked by scripts/sysroot.sh): the loader and the
# tests are built with <triplet>-gcc, against SYSROOT (that architecture's
# libc, libbpf, libelf, zlib and zstd; tests/vm/run copies the libraries
# from there into the VM) or else the multiarch libraries installed here.
ifneq ($(BPF_ARCH),$(BUILD_ARCH))
CROSS_TRIPLET := $(patsubst arm64,aarch64-linux-gnu,$(patsubst x86,x86_64-linux-gnu,$(BPF_ARCH)))
MULTIARCH := $(CROSS_TRIPLET)
ifeq ($(origin CC),default)
CC := $(CROSS_TRIPLET)-gcc
endif
OBJCOPY ?= $(CROSS_TRIPLET)-objcopy
SYSROOT ?=
CROSS_FLAGS := $(if $(SYSROOT),--sysroot=$(SYSROOT))
endif
OBJCOPY ?= objcopy

# Kernels from 6.19 are built with -fms-extensions, and their vmlinux.h embeds
# structs as anonymous members ("struct slock_owned;"): without the flag
# clang drops those members, and with -Werror it stops.
# The source tree's path is mapped to "." in debug info and BTF line info (the
# light skeletons embed it in the loader): packages built in two places are
# the same bytes.
PREFIX_MAP := -ffile-prefix-map=$(CURDIR)=.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	-fms-extensions -Wno-microsoft-anon-tag $(PREFIX_MAP) \
	-I$(BUILD) -Ibpf -I$(SYSROOT)/usr/include/$(MULTIARCH)
USER_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(BUILD) -Iuserspace -Ibpf \
	-DITERKIT_VERSION='"$(VERSION)"' $(PREFIX_MAP) $(CROSS_FLAGS)
# Header dependencies of every C and BPF object (and of the programs built in
# one step): a changed header rebuilds what includes it.
DEPFLAGS = -MMD -MP -MF $@.d -MT $@
# libbpf 1.4 is linked in statically (bookworm's shared libbpf1 is 1.1); libelf/zlib stay shared.
USER_LIBS := -Wl,-Bstatic -lbpf -Wl,-Bdynamic -lelf -lz -lzstd

LOADER_PROGS := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))
# The loader links libbpf (BTF, pins, object info, test runs) and embeds
# light skeletons: their relocations and kfunc lookups run in the kernel,
# which spares each run a parse of vmlinux BTF (docs/performance.md).
LOADER_LSKELS := $(patsubst %,$(BUILD)/bpf/%.lskel.h,$(LOADER_PROGS))
LOADER_SKELS := $(LOADER_LSKELS) $(BUILD)/bpf/progs_id.h
LOADER_SRCS := $(wildcard userspace/*.c)
LOADER_OBJS := $(patsubst userspace/%.c,$(BUILD)/userspace/%.o,$(LOADER_SRCS))

TEST_PROGS := $(patsubst tests/progs/%.bpf.c,%,$(wildcard tests/progs/*.bpf.c))
TEST_SKELS := $(patsubst %,$(BUILD)/tests/progs/%.skel.h,$(TEST_PROGS))
KSFT_SRCS := $(wildcard tests/kselftest/*.c)
KSFT_BINS := $(patsubst tests/kselftest/%.c,$(BUILD)/tests/%,$(KSFT_SRCS))
HELPER_BINS := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(wildcard tests/helpers/*.c))
VERIFIER_OBJS := $(patsubst tests/verifier/%.bpf.c,$(BUILD)/tests/verifier/%.bpf.o,\
	$(wildcard tests/verifier/*.bpf.c))
VERIFIER_RUNNER := $(if $(wildcard tests/verifier/runner.c),$(BUILD)/tests/verifier-runner)
KSFT_DIR ?= $(or $(ITERKIT_CACHE),/var/cache/iterkit)/linux-src/tools/testing/selftests

# What the -dkms packages ship in /usr/src/iterkit-<version>: the module's
# sources and what builds them (dkms.conf is installed by the packaging).
DKMS_FILES := VERSION Kbuild module/Kbuild $(filter-out %.mod.c,$(wildcard module/*.c)) \
	$(wildcard module/*.h) bpf/iterkit_defs.h scripts/module.mk scripts/build-module.sh \
	scripts/pahole-redup.sh scripts/kit-btf.c
.PHONY: all module loader pkgconfig tests test-bins examples loader-examples unit clean demo check check-debug check-mutants check-pkg check-release matrix deps deb rpm release modules-debs kmod-image check-fleet bench bench-progs flake-hunt
.DELETE_ON_ERROR:
.SECONDARY:

all: module loader

module:
	+@$(MAKE) -f scripts/module.mk KVER=$(KVER) KDIR=$(KDIR)

loader: iterkit

# The name of the chosen source, rewritten only when it changes, so that
# build/vmlinux.h is remade for another kernel and only then.
$(BUILD)/vmlinux.src: FORCE
	@mkdir -p $(@D)
	@test -n "$(VMLINUX_H)" || { echo "iterkit: no vmlinux.h source: none of $(KDIR)/vmlinux, $(KDIR)/vmlinux.h, /usr/include/$(MULTIARCH)/linux/bpf/vmlinux.h exists; install the kernel's headers (Debian: linux-headers-$(KVER), or linux-bpf-dev) or pass VMLINUX_H=<file>" >&2; exit 1; }
	@echo "$(abspath $(VMLINUX_H))" | cmp -s - $@ || echo "$(abspath $(VMLINUX_H))" > $@

$(BUILD)/vmlinux.h: $(BUILD)/vmlinux.src
	@mkdir -p $(@D)
	@case "$(VMLINUX_H)" in \
	*.h) echo "  VMLINUX.H $(VMLINUX_H)"; cp "$(VMLINUX_H)" $@ ;; \
	*) echo "  VMLINUX.H $(VMLINUX_H) (bpftool btf dump)"; $(BPFTOOL) btf dump file "$(VMLINUX_H)" format c > $@ ;; \
	esac

.PHONY: FORCE
FORCE:

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/iterkit.bpf.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/tests/progs/%.bpf.o: tests/progs/%.bpf.c bpf/iterkit.bpf.h $(wildcard tests/progs/*.h) $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -Itests/progs -c $< -o $@

# The documentation's example programs, compiled as written: each block
# marked "<!-- test: NAME -->" becomes $(BUILD)/examples/NAME.c, which a
# tests/verifier file includes; <iterkit/iterkit.bpf.h> resolves as installed.
EXAMPLE_DOCS := README.md docs/iterators.md docs/walker-task.md docs/walker-cgroup.md
EXAMPLES := $(patsubst %,$(BUILD)/examples/%.c,readme_example readme_direct readme_walkers \
	walker_task walker_cgroup walker_cgroup_at)

$(BUILD)/examples/%.c: $(EXAMPLE_DOCS) tests/verifier/example.sh
	@mkdir -p $(@D)
	sh tests/verifier/example.sh $* $(EXAMPLE_DOCS) > $@

# The installed headers (iterkit-dev), as programs outside the tree see them.
INSTALLED_HEADERS := $(patsubst bpf/%,$(BUILD)/include/iterkit/%,bpf/iterkit.bpf.h bpf/iterkit_defs.h)
$(BUILD)/include/iterkit/%.h: bpf/%.h
	@mkdir -p $(@D)
	cp $< $@

# iterkit.pc: pkg-config's entry for the headers, whose Cflags make
# <iterkit/iterkit.bpf.h> resolve, with the version of VERSION. `make
# pkgconfig` makes the installed one (under PREFIX, /usr), which iterkit-dev
# and iterkit-devel ship; the build tree's names the headers above, for the
# examples' build (PKG_CONFIG_PATH=$(BUILD)/pkgconfig).
PREFIX ?= /usr
PC_SUBST = sed -e 's|@PREFIX@|$(1)|' -e 's|@VERSION@|$(VERSION)|' $< > $@
pkgconfig: $(BUILD)/iterkit.pc
$(BUILD)/iterkit.pc: packaging/iterkit.pc.in VERSION
	@mkdir -p $(@D)
	$(call PC_SUBST,$(PREFIX))
$(BUILD)/pkgconfig/iterkit.pc: packaging/iterkit.pc.in VERSION
	@mkdir -p $(@D)
	$(call PC_SUBST,$(CURDIR)/$(BUILD))

$(BUILD)/tests/verifier/%.bpf.o: tests/verifier/%.bpf.c bpf/iterkit.bpf.h $(wildcard tests/verifier/*.h) \
		$(BUILD)/vmlinux.h $(EXAMPLES) $(INSTALLED_HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -Itests/verifier -I$(BUILD)/include -c $< -o $@

%.skel.h: %.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@

%.lskel.h: %.bpf.o
	$(BPFTOOL) gen skeleton -L $< name $(notdir $*)_bpf > $@

# Names the pin directory of `iterkit load`: programs of another build are never reused.
$(BUILD)/bpf/progs_id.h: $(LOADER_LSKELS)
	printf '#define KIT_PROGS_ID "%s"\n' "$$(cat $^ | sha1sum | cut -c1-12)" > $@

# The skeletons are made before any object is compiled; from then on the
# objects' dependency files name the headers each includes.
$(BUILD)/userspace/%.o: userspace/%.c | $(LOADER_SKELS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) -Ibpf -I$(BUILD)/bpf -c $< -o $@

# The loader takes libelf and zstd in statically too where that links
# (Debian 12's archives do; Debian 13's libelf.a lacks elfutils' own helpers,
# Fedora ships none): with only libc and zlib to load (Debian forbids an
# embedded zlib), it starts about as fast as before it linked libbpf. Tried
# when the loader is linked.
LOADER_STATIC_ALL := -Wl,-Bstatic -lbpf -lelf -lzstd -Wl,-Bdynamic -lz
LOADER_LIBS = $(shell printf 'void *btf__parse_split(const char *, void *);\nint main(void) { return !btf__parse_split("", 0); }\n' | \
	$(CC) $(CROSS_FLAGS) -x c - -o /dev/null $(LOADER_STATIC_ALL) >/dev/null 2>&1 && echo '$(LOADER_STATIC_ALL)' || echo '$(USER_LIBS)')

iterkit: $(LOADER_OBJS)
	$(CC) $(CROSS_FLAGS) $(CFLAGS) $(LOADER_OBJS) -o $@ $(LDFLAGS) $(LOADER_LIBS)

# Unit tests of the loader's parts (output, JSON, options, numbers,
# versions, the tree and path builders), run on the host under ASan and
# UBSan by tests/host/test_unit.sh. Each links the whole loader but main(),
# built once with the sanitizers.
UNIT_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
UNIT_OBJS := $(patsubst userspace/%.c,$(BUILD)/unit/obj/%.o,$(filter-out userspace/iterkit.c,$(LOADER_SRCS)))
$(BUILD)/unit/obj/%.o: userspace/%.c | $(LOADER_SKELS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(UNIT_SAN) $(DEPFLAGS) -Ibpf -I$(BUILD)/bpf -c $< -o $@
$(BUILD)/unit/%: tests/unit/%.c $(UNIT_OBJS) | $(LOADER_SKELS)
	@mkdir -p $(@D)
	@test -f $(KSFT_DIR)/kselftest_harness.h || \
		{ echo "no kselftest_harness.h: run scripts/install-deps.sh test"; exit 1; }
	$(CC) $(USER_CFLAGS) $(UNIT_SAN) $(DEPFLAGS) -Wno-sign-compare -Wno-clobbered -Ibpf -I$(BUILD)/bpf -I$(KSFT_DIR) \
		$< $(UNIT_OBJS) -o $@ $(USER_LIBS)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/*.c))
# The unit tests' dependency files of earlier builds name common.c, now
# cli.c: nothing to make for it, the tests are linked anew.
userspace/common.c:
unit: $(UNIT_BINS)

# The unit tests run on the build machine (tests/host/test_unit.sh): a
# cross build leaves them out, as the matrix runs only the guest suites.
tests: all test-bins $(if $(CROSS_TRIPLET),,unit) $(BUILD)/tests/iterkit-nobtf.ko $(BUILD)/tests/iterkit-badbtf.ko \
	$(BUILD)/tests/iterkit-nowalkers.ko $(BUILD)/tests/iterkit-otherversion.ko

# The test programs alone, without the module and the loader (check-debug
# builds them with BUILD=build/debug against the debug kernel).
test-bins: $(KSFT_BINS) $(HELPER_BINS) $(VERIFIER_OBJS) $(VERIFIER_RUNNER) examples

# The programs of examples/, each copied out of the tree and built by its own
# Makefile as a user builds it, this tree's headers and iterkit.pc standing
# in for the installed ones (in $(BUILD)/user-examples/), then made ready
# for the VM (in $(BUILD)/tests/examples/, for tests/guest/test_examples.sh).
# vmlinux.h comes from the kernel's vmlinux as the examples make it, or
# else the tree's. A cross build gives them the target's compiler, tracing
# macros and libbpf (pkg-config in SYSROOT), and the VM the target's
# bpftool (SYSROOT's, from scripts/sysroot.sh add); as pkg-config puts
# SYSROOT before every directory it names, the headers' one is also given
# as INCLUDES there.
USER_EXAMPLES := $(patsubst examples/%/Makefile,%,$(wildcard examples/*/Makefile))
ifdef CROSS_TRIPLET
EXAMPLES_CROSS := ARCH=$(BPF_ARCH) CC=$(CC) CPPFLAGS="$(CROSS_FLAGS)" LDFLAGS="$(CROSS_FLAGS)" \
	INCLUDES=-I$(CURDIR)/$(BUILD)/include \
	PKG_CONFIG="env PKG_CONFIG_SYSROOT_DIR=$(SYSROOT) PKG_CONFIG_LIBDIR=$(SYSROOT)/usr/lib/$(MULTIARCH)/pkgconfig:$(SYSROOT)/usr/share/pkgconfig pkg-config"
EXAMPLES_STAGE := CC="$(CC) $(CROSS_FLAGS)" GUEST_BPFTOOL=$(SYSROOT)/usr/sbin/bpftool
endif
examples: $(BUILD)/tests/examples/.staged
$(BUILD)/tests/examples/.staged: $(wildcard examples/*/* tests/examples/*) \
		$(INSTALLED_HEADERS) $(BUILD)/pkgconfig/iterkit.pc $(BUILD)/vmlinux.h
	rm -rf $(BUILD)/user-examples && mkdir -p $(BUILD)/user-examples
	for e in $(USER_EXAMPLES); do \
		cmp -s examples/$$e/Makefile examples/minimal/Makefile || \
			{ echo "examples/$$e/Makefile: every example's Makefile is examples/minimal/Makefile" >&2; exit 1; }; \
		cp -r examples/$$e $(BUILD)/user-examples/ && \
		PKG_CONFIG_PATH=$(CURDIR)/$(BUILD)/pkgconfig $(MAKE) -C $(BUILD)/user-examples/$$e \
			CLANG=$(CLANG) BPFTOOL=$(BPFTOOL) $(EXAMPLES_CROSS) $(if $(wildcard $(KDIR)/vmlinux),\
			VMLINUX_BTF=$(KDIR)/vmlinux,VMLINUX_H=$(CURDIR)/$(BUILD)/vmlinux.h) || exit 1; \
	done
	BPFTOOL=$(BPFTOOL) $(EXAMPLES_STAGE) tests/examples/stage.sh $(BUILD)/user-examples $(BUILD)/tests/examples
	touch $@

# The Go and Rust loaders of examples/threads (examples/threads-go with
# cilium/ebpf, examples/threads-rs with libbpf-rs), built from Debian 13's
# packages in the trixie build root by tests/examples/build-loaders.sh (in
# $(BUILD)/user-loaders/), made ready for the VM in $(BUILD)/tests/loaders/,
# with their guest suite (tests/examples/test_loaders.sh). Only a build on
# this machine for its own architecture makes them; the matrix builds in
# build roots or for arm64 and leaves them and their suite out.
ifeq ($(CROSS_TRIPLET)$(ITERKIT_ROOT),)
tests: $(BUILD)/tests/test_loaders.sh
endif
loader-examples: $(BUILD)/tests/test_loaders.sh
$(BUILD)/tests/test_loaders.sh: tests/examples/test_loaders.sh tests/examples/build-loaders.sh \
		$(wildcard examples/threads/* examples/threads-go/* examples/threads-rs/* examples/threads-rs/*/*) \
		examples/threads-rs/.cargo/config.toml $(INSTALLED_HEADERS) $(BUILD)/pkgconfig/iterkit.pc \
		$(BUILD)/vmlinux.h
	PKG_CONFIG_PATH=$(CURDIR)/$(BUILD)/pkgconfig VMLINUX_H=$(CURDIR)/$(BUILD)/vmlinux.h \
		tests/examples/build-loaders.sh $(BUILD)/user-loaders $(BUILD)/tests/loaders
	cp $< $@

# Broken copies of the module for the life-cycle test: no BTF at all, and
# BTF the kernel cannot parse. Both must be refused by iterkit's init.
# MODULE_KO: the module they are made from (check-debug passes its own).
MODULE_KO ?= module/iterkit.ko
MODULE_KO_DEP := $(if $(filter module/iterkit.ko,$(MODULE_KO)),module,$(MODULE_KO))

$(BUILD)/tests/iterkit-nobtf.ko: $(MODULE_KO_DEP)
	@mkdir -p $(@D)
	$(OBJCOPY) --remove-section=.BTF $(MODULE_KO) $@

# A module of a version the loader does not speak: the same module, its
# .modinfo saying 9.9 (same length, so nothing else moves).
$(BUILD)/tests/iterkit-otherversion.ko: $(MODULE_KO_DEP)
	@mkdir -p $(@D)
	$(OBJCOPY) --dump-section .modinfo=$@.modinfo $(MODULE_KO)
	grep -q 'version=$(VERSION)' $@.modinfo
	sed 's/version=$(VERSION)/version=$(subst 0,9,$(subst 1,9,$(VERSION)))/' $@.modinfo > $@.modinfo.new
	$(OBJCOPY) --update-section .modinfo=$@.modinfo.new $(MODULE_KO) $@
	rm -f $@.modinfo $@.modinfo.new

$(BUILD)/tests/iterkit-badbtf.ko: $(MODULE_KO_DEP)
	@mkdir -p $(@D)
	$(OBJCOPY) --dump-section .BTF=$@.btf $(MODULE_KO)
	head -c 64 $@.btf > $@.btf.cut
	$(OBJCOPY) --update-section .BTF=$@.btf.cut $(MODULE_KO) $@
	rm -f $@.btf $@.btf.cut

$(BUILD)/tests/%: tests/kselftest/%.c $(TEST_SKELS) $(wildcard tests/kselftest/*.h tests/progs/*.h)
	@test -f $(KSFT_DIR)/kselftest_harness.h || \
		{ echo "no kselftest_harness.h: run scripts/install-deps.sh test"; exit 1; }
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -Wno-sign-compare -Wno-clobbered -I$(BUILD)/tests/progs -Itests/progs -I$(KSFT_DIR) -Itests/kselftest $< -o $@ $(USER_LIBS) -lpthread

# The module as kernels 6.4-6.6 build it, without the walkers: the loader's
# test checks what `iterkit demo` and the walk commands do then. Built from
# a copy of the sources (mtimes kept), never mixed with module/'s objects.
NOWALKERS := $(BUILD)/nowalkers
$(BUILD)/tests/iterkit-nowalkers.ko: $(DKMS_FILES)
	@mkdir -p $(@D)
	$(MAKE) -s install-dkms-src DKMS_SRC=$(CURDIR)/$(NOWALKERS)
	+ITERKIT_WITHOUT=WALKERS $(MAKE) -C $(NOWALKERS) -f scripts/module.mk KVER=$(KVER) KDIR=$(KDIR)
	cp $(NOWALKERS)/module/iterkit.ko $@

# The kernel features the module under test was built with, as
# scripts/build-module.sh decided them: the tests gate on this copy
# (tests/kselftest/kit_features.h), never on the kernel's version.
MODULE_FEATURES ?= build/kbuild/$(KVER)/features
$(BUILD)/tests/features: $(MODULE_KO_DEP)
	@mkdir -p $(@D)
	cp $(MODULE_FEATURES) $@
test-bins: $(BUILD)/tests/features

# Programs the tests drive (not suites themselves): tests/helpers/<h>.c.
$(BUILD)/tests/helpers/%: tests/helpers/%.c $(TEST_SKELS) $(wildcard tests/helpers/*.h tests/progs/*.h)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -I$(BUILD)/tests/progs -Itests/progs -Itests/helpers $< -o $@ $(USER_LIBS) -lpthread

# Objects with deliberately wrong expectations: the runner's own test.
VERIFIER_SELFTEST_OBJS := $(patsubst tests/verifier-selftest/%.bpf.c,\
	$(BUILD)/tests/verifier-selftest/%.bpf.o,$(wildcard tests/verifier-selftest/*.bpf.c))
test-bins: $(VERIFIER_SELFTEST_OBJS)

$(BUILD)/tests/verifier-selftest/%.bpf.o: tests/verifier-selftest/%.bpf.c bpf/iterkit.bpf.h \
		tests/verifier/verifier.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -Itests/verifier -c $< -o $@

$(BUILD)/tests/verifier-runner: tests/verifier/runner.c tests/kselftest/kit_features.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Itests/kselftest $< -o $@ $(USER_LIBS)

# Benchmarks (make bench): BPF programs and runners from bench/, built into
# build/tests/bench/ so that the test VM carries them; bench/run boots it.
BENCH_PROGS := $(patsubst bench/%.bpf.c,%,$(wildcard bench/*.bpf.c))
BENCH_OBJS := $(patsubst %,$(BUILD)/tests/bench/%.bpf.o,$(BENCH_PROGS))
BENCH_SKELS := $(patsubst %,$(BUILD)/bench/%.skel.h,$(BENCH_PROGS))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/tests/bench/%,$(filter-out %.bpf.c,$(wildcard bench/*.c)))

$(BUILD)/tests/bench/%.bpf.o: bench/%.bpf.c bpf/iterkit.bpf.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/bench/%.skel.h: $(BUILD)/tests/bench/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BUILD)/tests/bench/%: bench/%.c $(BENCH_SKELS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -I$(BUILD)/bench -I$(BUILD)/bpf $< -o $@ $(USER_LIBS)

$(BUILD)/tests/bench/guest.sh: bench/guest.sh
	@mkdir -p $(@D)
	cp $< $@

bench-progs: all $(BENCH_OBJS) $(BENCH_BINS) $(BUILD)/tests/bench/guest.sh

bench:
	bench/run

.PHONY: install-dkms-src print-dkms-files
print-dkms-files:
	@echo $(DKMS_FILES)
install-dkms-src:
	@test -n "$(DKMS_SRC)" || { echo "usage: make install-dkms-src DKMS_SRC=<dir>" >&2; exit 1; }
	for f in $(DKMS_FILES); do \
		case $$f in *.sh) m=0755 ;; *) m=0644 ;; esac; \
		install -D -m $$m $$f $(DKMS_SRC)/$$f || exit 1; \
	done

# Packages, built from a clean copy of the sources under build/pkg/.
# DEB_ARCH=<arch> (e.g. arm64) cross-builds the loader package for it
# (dpkg-buildpackage -a): install-deps.sh adds the architecture to dpkg and
# installs the build dependencies for it. DEB_SUFFIX=+deb12 appends to the
# binary packages' version (make release: one per Debian release).
PKG := $(BUILD)/pkg
# Tarballs whose bytes depend on the files alone: sorted, owned by root, no
# modes u+rw, go=r (and x where any x), every time SOURCE_DATE_EPOCH (else the commit's).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
REPRO_TAR := --sort=name --owner=0 --group=0 --numeric-owner --mode=u+rwX,go=rX \
	--mtime=@$(SOURCE_DATE_EPOCH) --clamp-mtime --format=gnu
deb:
	scripts/install-deps.sh pkg $(if $(DEB_ARCH),cross-$(DEB_ARCH))
	rm -rf $(PKG)/deb && mkdir -p $(PKG)/deb
	scripts/srcdist.sh $(PKG)/deb/iterkit-$(VERSION)
	cd $(PKG)/deb/iterkit-$(VERSION) && DEB_SUFFIX=$(DEB_SUFFIX) dpkg-buildpackage -us -uc -b $(if $(DEB_ARCH),-a $(DEB_ARCH))
	@ls $(PKG)/deb/*.deb

# On Debian, rpmbuild cannot see Fedora's build dependencies (--nodeps): the
# same tools come from install-deps.sh, vmlinux.h from linux-bpf-dev, and
# _modulesloaddir (systemd-rpm-macros on Fedora) is given. Debian's
# brp-compress needs bash (read -d) but is run with /bin/sh: run it with bash;
# it has no find-debuginfo to strip the loader, as Fedora's build does.
# With SOURCE_DATE_EPOCH set (make release) the build time, file times and
# build host are fixed, so two builds of one commit are the same bytes; the
# source RPM is made apart, for the binary ones would record its checksum,
# and it holds the build directory's path.
# RPM_ARCH=aarch64 cross-builds the loader's RPM for arm64 (no %check: its
# binary cannot run here), against the arm64 libraries install-deps.sh adds.
RPM_ARCH ?=
RPM_CROSS = $(if $(filter aarch64,$(RPM_ARCH)),--target aarch64 --nocheck \
	--define "kit_make_args BPF_ARCH=arm64 CC=aarch64-linux-gnu-gcc OBJCOPY=aarch64-linux-gnu-objcopy")
RPM_MULTIARCH = $(if $(filter aarch64,$(RPM_ARCH)),aarch64-linux-gnu,$(MULTIARCH))
RPM_STRIP = $(if $(filter aarch64,$(RPM_ARCH)),aarch64-linux-gnu-strip,strip)
rpm:
	@case "$(RPM_ARCH)" in ""|aarch64) ;; *) echo "make rpm: RPM_ARCH is aarch64 or unset (this machine's)" >&2; exit 1 ;; esac
	scripts/install-deps.sh pkg $(if $(RPM_ARCH),cross-arm64)
	rm -rf $(PKG)/rpm && mkdir -p $(PKG)/rpm/SOURCES
	scripts/srcdist.sh $(PKG)/rpm/iterkit-$(VERSION)
	tar -C $(PKG)/rpm $(REPRO_TAR) -cf - iterkit-$(VERSION) | gzip -n9 > $(PKG)/rpm/SOURCES/iterkit-$(VERSION).tar.gz
	rpmbuild -bb --nodeps --define "_topdir $(CURDIR)/$(PKG)/rpm" \
		--define "_buildhost reproducible" --define "use_source_date_epoch_as_buildtime 1" \
		--define "clamp_mtime_to_source_date_epoch 1" \
		--define "vmlinux_h /usr/include/$(RPM_MULTIARCH)/linux/bpf/vmlinux.h" \
		--define "_modulesloaddir /usr/lib/modules-load.d" \
		--define "__os_install_post bash /usr/lib/rpm/brp-compress /usr; $(RPM_STRIP) --strip-unneeded %{buildroot}%{_sbindir}/iterkit" \
		$(RPM_CROSS) iterkit.spec
	rpmbuild -bs --nodeps --define "_topdir $(CURDIR)/$(PKG)/rpm" iterkit.spec
	@ls $(PKG)/rpm/RPMS/*/*.rpm $(PKG)/rpm/SRPMS/*.rpm

# rpmlint on what `make rpm` built (RPM_DIR=<dir> for another build), with
# the filters of packaging/, each justified there.
RPM_DIR ?= $(PKG)/rpm
.PHONY: rpmlint
rpmlint:
	scripts/rpmlint.sh $(RPM_DIR)

# Everything a release publishes, from the committed tree, signed with
# SIGNING_KEY=<fingerprint> from the caller's keyring (scripts/release.sh,
# docs/release.md).
release:
	scripts/install-deps.sh build pkg release cross-arm64
	scripts/release.sh

# Prebuilt, signed module packages for the kernels of
# packaging/prebuilt/kernels (KERNELS="<kver>..." for some), with their
# metapackages and iterkit-mok; MODULE_SIGNING_KEY and MODULE_SIGNING_CERT
# sign them (scripts/modules-debs.sh, docs/fleet.md).
modules-debs:
	scripts/install-deps.sh build pkg arm64
	scripts/modules-debs.sh $(KERNELS)

# The OCI image KMM loads iterkit from, for one kernel of
# packaging/prebuilt/kernels, KVER=<release> (scripts/kmod-image.sh,
# docs/fleet.md).
kmod-image:
	scripts/install-deps.sh build pkg arm64 fleet
	scripts/kmod-image.sh $(KVER)

# The fleet's artefacts end to end: the KMM Module against KMM's CRD, kmod
# images for amd64 and arm64 pushed to a registry on 127.0.0.1 and pulled
# back by digest, the KMM worker's steps replayed in the VM (tests/fleet/).
check-fleet:
	scripts/install-deps.sh build vm pkg arm64 fleet
	tests/run-all.sh --fleet

# make release twice from fresh clones (byte-identical), the next version on
# top, every signature checked, dnf reading the repository (tests/release/run).
check-release:
	scripts/install-deps.sh build pkg release cross-arm64
	tests/release/run

deps:
	scripts/install-deps.sh

demo:
	scripts/install-deps.sh build vm
	$(MAKE) all
	tests/vm/run -- 'insmod iterkit.ko && iterkit demo'

# Each step's time goes into tests/run-all.sh's table of phases.
check:
	@t0=$$(date +%s%3N) && scripts/install-deps.sh && t1=$$(date +%s%3N) && \
	$(MAKE) tests && t2=$$(date +%s%3N) && \
	ITERKIT_PHASES="deps $$((t1 - t0)) build $$((t2 - t1))" tests/run-all.sh

# Every guest suite ROUNDS times (20), two VMs at a time: how often each
# test failed (tests/flake-hunt; HOST=1 adds the host suites that boot VMs).
ROUNDS ?= 20
flake-hunt:
	scripts/install-deps.sh build vm test
	$(MAKE) tests
	tests/flake-hunt --rounds $(ROUNDS) $(if $(HOST),--host)

# Small breaks of the loader, the BPF programs, the test helpers and the
# system test, each in a copy of the tree: every one must turn the suite that
# owns it red on the named check (tests/mutants/run; by hand, not in CI).
# MUTANTS="walk-only-pid1 ..." runs some.
check-mutants:
	scripts/install-deps.sh build vm test pkg system
	$(MAKE) tests
	tests/mutants/run $(MUTANTS)

# The packages, for real: on this Debian 12 host, and in overlays of the
# trixie build root (Debian 13, Ubuntu-like and Fedora-like installs).
# PKG_SUITES="test_trixie_arm64 ..." runs only those suites of tests/pkg/.
check-pkg:
	scripts/install-deps.sh build vm test pkg arm64 qemu-user
	$(MAKE) all
	tests/run-all.sh --pkg $(PKG_SUITES)

# Every kernel of tests/matrix/kernels (KERNELS="<kver>..." for some),
# each built with its own toolchain and booted in the VM.
matrix:
	scripts/install-deps.sh
	tests/matrix/run $(KERNELS)

# The guest suites at full strength in a debug kernel (KASAN, lockdep,
# PROVE_RCU, UBSAN, kmemleak, ...), built once and cached; see
# tests/check-debug.sh.
check-debug:
	scripts/install-deps.sh build vm test debug
	tests/check-debug.sh

# Booted Debian 12 and 13 systems under QEMU with Secure Boot: apt install,
# DKMS on a kernel upgrade, MOK signing, reboots, purge (tests/system/run;
# STORIES="bookworm" or "trixie" for one). Disk images are cached.
.PHONY: system-test
system-test:
	scripts/install-deps.sh build vm pkg system release cross-arm64
	tests/system/run $(STORIES)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD) iterkit

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d)
