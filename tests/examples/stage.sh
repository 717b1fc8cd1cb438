#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stage.sh BUILT VM: from BUILT, the examples as their own Makefiles built
# them (BUILT/<name>/<name> and BUILT/<name>/.output/<name>.bpf.o), makes VM
# the directory the test VM runs them from (tests/guest/test_examples.sh):
# VM/<name>/{<name>,<name>.bpf.o}, the bpftool that built them
# (VM/bin/bpftool), the test's thread holder (VM/bin/hold_threads), and the
# shared libraries of all of them (VM/lib: the VM has only busybox). Run it
# where the examples were built (the host or a build root), so that the
# libraries are that system's. For a VM of another architecture, CC is the
# cross compiler, GUEST_BPFTOOL that architecture's bpftool, and the
# libraries are left to tests/vm/run (it takes them from the sysroot).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
built=${1:?usage: stage.sh BUILT VM}
vm=${2:?usage: stage.sh BUILT VM}
rm -rf "$vm"
mkdir -p "$vm/bin" "$vm/lib"
for d in "$built"/*/; do
	n=$(basename "$d")
	# Only the examples their Makefile builds (not threads-go, threads-rs).
	[ -f "$d/Makefile" ] || continue
	[ -x "$d/$n" ] || { echo "stage.sh: $d$n was not built" >&2; exit 1; }
	mkdir -p "$vm/$n"
	cp "$d/$n" "$d/.output/$n.bpf.o" "$vm/$n/"
done
cp "${GUEST_BPFTOOL:-$(command -v "${BPFTOOL:-bpftool}")}" "$vm/bin/bpftool"
${CC:-cc} -O2 -Wall -pthread "$top/tests/examples/hold_threads.c" -o "$vm/bin/hold_threads"
[ -z "${GUEST_BPFTOOL:-}" ] || exit 0
for b in "$vm"/*/*; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	ldd "$b" | grep -o '=> /[^ ]*' | cut -c4- | while read -r lib; do
		cp -L "$lib" "$vm/lib/"
	done
done
