# SPDX-License-Identifier: GPL-2.0
# Builds module/iterkit.ko for one kernel: what `make module` and DKMS run
# (dkms.conf's MAKE starts with a plain `make -f scripts/module.mk`, so dkms
# can add -j and, for clang-built kernels, LLVM=1; both reach kbuild).
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: module
module:
	+@bash scripts/build-module.sh build "$(KVER)" "$(KDIR)"
