#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kbuild's $(PAHOLE) for iterkit's module: runs pahole as kbuild asked, then
# one more dedup pass over the module BTF it wrote (kit-btf redup), before
# resolve_btfids numbers the kfuncs. pahole linked against libbpf < 1.6
# (Debian 13's 1.30 with libbpf 1.5) leaves gcc-14-built modules of
# Linux >= 6.15 with their own copy of task_struct, cgroup and all they
# reach; the second pass merges them into vmlinux's.
# Needs ITERKIT_PAHOLE (the real pahole) and ITERKIT_KIT_BTF (kit-btf),
# which scripts/build-module.sh sets.
set -e
"${ITERKIT_PAHOLE:-pahole}" "$@"

encode= base= detached= elf=
while [ $# -gt 0 ]; do
	case $1 in
	-J | --btf_encode) encode=1 ;;
	--btf_base) base=$2; shift ;;
	--btf_base=*) base=${1#*=} ;;
	--btf_encode_detached=*) encode=1; detached=${1#*=} ;;
	-*) ;;
	*) elf=$1 ;;
	esac
	shift
done
[ -n "$encode" ] && [ -n "$base" ] && [ -n "$ITERKIT_KIT_BTF" ] || exit 0

# A pass that cannot run (no libbpf.so.1) is not fatal here: the build's
# check of the finished module decides whether its BTF is usable.
redup() {
	"$ITERKIT_KIT_BTF" redup "$@" ||
		echo "iterkit: no second BTF dedup pass (kit-btf redup failed); the module's BTF is checked after the build" >&2
}

if [ -n "$detached" ]; then
	# Linux 7.x (scripts/gen-btf.sh): raw split BTF against the full base.
	redup "$base" "$detached"
	exit 0
fi

# Older kernels: pahole wrote .BTF (and maybe a distilled .BTF.base) into
# the module itself.
tmp=$elf.iterkit-btf
trap 'rm -f "$tmp" "$tmp.base"' EXIT
# (objcopy exits 0 even when the section is missing: look at the file.)
${OBJCOPY:-objcopy} --dump-section .BTF="$tmp" "$elf"
${OBJCOPY:-objcopy} --dump-section .BTF.base="$tmp.base" "$elf" 2>/dev/null
if [ -s "$tmp.base" ]; then
	redup "$base" "$tmp" "$tmp.base"
	${OBJCOPY:-objcopy} --update-section .BTF="$tmp" --update-section .BTF.base="$tmp.base" "$elf"
else
	redup "$base" "$tmp"
	${OBJCOPY:-objcopy} --update-section .BTF="$tmp" "$elf"
fi
