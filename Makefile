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

# __TARGET_ARCH_<arch> for the BPF programs' tracing macros: the build
# machine's architecture, in the kernel's names.
BPF_ARCH := $(patsubst x86_64,x86,$(patsubst i%86,x86,$(patsubst aarch64%,arm64,\
	$(patsubst s390x,s390,$(patsubst ppc64%,powerpc,$(patsubst riscv64,riscv,\
	$(patsubst loongarch64,loongarch,$(shell uname -m))))))))

# Kernels from 6.19 are built with -fms-extensions, and their vmlinux.h embeds
# structs as anonymous members ("struct slock_owned;"): without the flag
# clang drops those members, and with -Werror it stops.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	-fms-extensions -Wno-microsoft-anon-tag \
	-I$(BUILD) -Ibpf -I/usr/include/$(MULTIARCH)
USER_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(BUILD) -Iuserspace \
	-DITERKIT_VERSION='"$(VERSION)"'
# libbpf 1.4 is linked in statically (bookworm's shared libbpf1 is 1.1); libelf/zlib stay shared.
USER_LIBS := -Wl,-Bstatic -lbpf -Wl,-Bdynamic -lelf -lz -lzstd

LOADER_PROGS := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))
# The loader embeds light skeletons: relocations and kfunc lookups happen in
# the kernel, so it needs neither libbpf nor libelf at run time.
LOADER_LSKELS := $(patsubst %,$(BUILD)/bpf/%.lskel.h,$(LOADER_PROGS))
LOADER_SKELS := $(LOADER_LSKELS) $(BUILD)/bpf/progs_id.h
LOADER_SRCS := $(wildcard userspace/*.c)

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
DKMS_FILES := Kbuild module/Kbuild $(filter-out %.mod.c,$(wildcard module/*.c)) \
	$(wildcard module/*.h) scripts/module.mk scripts/build-module.sh \
	scripts/pahole-redup.sh scripts/kit-btf.c
.PHONY: all module loader tests test-bins clean demo check check-debug check-pkg matrix deps deb rpm bench bench-progs
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

%.lskel.h: %.bpf.o
	$(BPFTOOL) gen skeleton -L $< name $(notdir $*)_bpf > $@

# Names the pin directory of `iterkit load`: programs of another build are never reused.
$(BUILD)/bpf/progs_id.h: $(LOADER_LSKELS)
	printf '#define KIT_PROGS_ID "%s"\n' "$$(cat $^ | sha1sum | cut -c1-12)" > $@

iterkit: $(LOADER_SRCS) $(wildcard userspace/*.h) $(LOADER_SKELS)
	$(CC) $(USER_CFLAGS) $(CFLAGS) $(CPPFLAGS) -Ibpf -I$(BUILD)/bpf $(LOADER_SRCS) -o $@ $(LDFLAGS)

tests: all test-bins $(BUILD)/tests/iterkit-nobtf.ko $(BUILD)/tests/iterkit-badbtf.ko \
	$(BUILD)/tests/iterkit-nowalkers.ko

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

# The module as kernels 6.4-6.6 build it, without the walkers: the loader's
# test checks what `iterkit demo` and the walk commands do then. Built from
# a copy of the sources (mtimes kept), never mixed with module/'s objects.
NOWALKERS := $(BUILD)/nowalkers
$(BUILD)/tests/iterkit-nowalkers.ko: $(DKMS_FILES)
	@mkdir -p $(@D)
	$(MAKE) -s install-dkms-src DKMS_SRC=$(CURDIR)/$(NOWALKERS)
	+$(MAKE) -C $(NOWALKERS) -f scripts/module.mk KVER=$(KVER) KDIR=$(KDIR) iterkit_walkers=
	cp $(NOWALKERS)/module/iterkit.ko $@

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

# Benchmarks (make bench): BPF programs and runners from bench/, built into
# build/tests/bench/ so that the test VM carries them; bench/run boots it.
BENCH_PROGS := $(patsubst bench/%.bpf.c,%,$(wildcard bench/*.bpf.c))
BENCH_OBJS := $(patsubst %,$(BUILD)/tests/bench/%.bpf.o,$(BENCH_PROGS))
BENCH_SKELS := $(patsubst %,$(BUILD)/bench/%.skel.h,$(BENCH_PROGS))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/tests/bench/%,$(filter-out %.bpf.c,$(wildcard bench/*.c)))

$(BUILD)/tests/bench/%.bpf.o: bench/%.bpf.c bpf/iterkit.bpf.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/%.skel.h: $(BUILD)/tests/bench/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BUILD)/tests/bench/%: bench/%.c $(BENCH_SKELS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(BUILD)/bench $< -o $@ $(USER_LIBS)

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
PKG := $(BUILD)/pkg
deb:
	scripts/install-deps.sh pkg
	rm -rf $(PKG)/deb && mkdir -p $(PKG)/deb
	scripts/srcdist.sh $(PKG)/deb/iterkit-$(VERSION)
	cd $(PKG)/deb/iterkit-$(VERSION) && dpkg-buildpackage -us -uc -b
	@ls $(PKG)/deb/*.deb

# On Debian, rpmbuild cannot see Fedora's build dependencies (--nodeps): the
# same tools come from install-deps.sh, vmlinux.h from linux-bpf-dev, and
# _modulesloaddir (systemd-rpm-macros on Fedora) is given. Debian's
# brp-compress needs bash (read -d) but is run with /bin/sh: run it with bash;
# it has no find-debuginfo to strip the loader, as Fedora's build does.
rpm:
	scripts/install-deps.sh pkg
	rm -rf $(PKG)/rpm && mkdir -p $(PKG)/rpm/SOURCES
	scripts/srcdist.sh $(PKG)/rpm/iterkit-$(VERSION)
	tar -C $(PKG)/rpm -czf $(PKG)/rpm/SOURCES/iterkit-$(VERSION).tar.gz iterkit-$(VERSION)
	rpmbuild -ba --nodeps --define "_topdir $(CURDIR)/$(PKG)/rpm" \
		--define "vmlinux_h /usr/include/$(MULTIARCH)/linux/bpf/vmlinux.h" \
		--define "_modulesloaddir /usr/lib/modules-load.d" \
		--define "__os_install_post bash /usr/lib/rpm/brp-compress /usr; strip --strip-unneeded %{buildroot}%{_sbindir}/iterkit" \
		iterkit.spec
	@ls $(PKG)/rpm/RPMS/*/*.rpm $(PKG)/rpm/SRPMS/*.rpm

# rpmlint on what `make rpm` built (RPM_DIR=<dir> for another build), with
# the filters of packaging/, each justified there.
RPM_DIR ?= $(PKG)/rpm
.PHONY: rpmlint
rpmlint:
	scripts/rpmlint.sh $(RPM_DIR)

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

# The packages, for real: on this Debian 12 host, and in overlays of the
# trixie build root (Debian 13, Ubuntu-like and Fedora-like installs).
check-pkg:
	scripts/install-deps.sh
	$(MAKE) all
	tests/run-all.sh --pkg

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
	scripts/install-deps.sh build vm pkg system
	tests/system/run $(STORIES)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD) iterkit
