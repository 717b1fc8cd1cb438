#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-loaders.sh BUILT VM: examples/threads-go (cilium/ebpf) and
# examples/threads-rs (libbpf-rs), the Go and Rust loaders of
# examples/threads, built as a Debian 13 user builds them, from Debian's
# own packages and offline: Go in GOPATH mode over /usr/share/gocode (as
# dh-golang builds), cargo from /usr/share/cargo/registry (the examples'
# .cargo/config.toml, as dh-cargo builds). On this Debian 12 machine that
# happens in the trixie build root (scripts/buildroot.sh), which gets the
# packages first. Copies of the three directories go to BUILT; VM is made
# the directory the test VM runs them from (tests/examples/test_loaders.sh):
# threads-go (static), threads-rs and the libraries it runs with, trixie's
# dynamic loader included (the VM's are Debian 12's).
#   EXAMPLES         where the examples are (default: this tree's)
#   KVER, VMLINUX_H  the vmlinux.h the BPF program is built with (as
#                    examples/threads/Makefile takes them)
#   PKG_CONFIG_PATH  where iterkit.pc is, if not installed
# Go's build cache and cargo's target directory are kept in
# $ITERKIT_CACHE (go-build, cargo-target).
#   build-loaders.sh --packages   what the build root needs
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${ITERKIT_CACHE:-/var/cache/iterkit}
PACKAGES="golang-go golang-github-cilium-ebpf-dev cargo librust-libbpf-rs-dev
	librust-libbpf-cargo-dev clang llvm bpftool libbpf-dev pkgconf make"
if [ "${1:-}" = --packages ]; then
	echo $PACKAGES
	exit 0
fi
built=$(realpath -m "${1:?usage: build-loaders.sh BUILT VM}")
vm=$(realpath -m "${2:?usage: build-loaders.sh BUILT VM}")

if [ "${ITERKIT_ROOT:-}" != trixie ]; then
	# shellcheck disable=SC2086
	"$top/scripts/buildroot.sh" install trixie $PACKAGES
	exec "$top/scripts/buildroot.sh" run trixie -- env EXAMPLES="${EXAMPLES:-}" KVER="${KVER:-}" \
		VMLINUX_H="${VMLINUX_H:-}" PKG_CONFIG_PATH="${PKG_CONFIG_PATH:-}" bash "$0" "$built" "$vm"
fi

rm -rf "$built"
mkdir -p "$built"
ex=${EXAMPLES:-$top/examples}
cp -r "$ex/threads" "$ex/threads-go" "$ex/threads-rs" "$built/"
# Empty ones would stand for the default (examples/threads/Makefile).
[ -n "${KVER:-}" ] || unset KVER
[ -n "${VMLINUX_H:-}" ] || unset VMLINUX_H
export BPF2GO_CFLAGS
BPF2GO_CFLAGS=$(pkg-config --cflags iterkit)

t0=$(date +%s%3N)
(
	cd "$built/threads-go"
	export GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS= CGO_ENABLED=0 \
		GOCACHE=$cache/go-build
	go generate
	go build
)
t1=$(date +%s%3N)
(
	cd "$built/threads-rs"
	CARGO_TARGET_DIR=$cache/cargo-target cargo build --release --quiet
	cp "$cache/cargo-target/release/threads-rs" .
)
t2=$(date +%s%3N)
echo "build-loaders: threads-go $((t1 - t0)) ms ($(go version | cut -d' ' -f3)," \
	"cilium/ebpf $(dpkg-query -W -f '${Version}' golang-github-cilium-ebpf-dev))," \
	"threads-rs $((t2 - t1)) ms (rustc $(rustc --version | cut -d' ' -f2)," \
	"libbpf-rs $(dpkg-query -W -f '${Version}' librust-libbpf-rs-dev))"

rm -rf "$vm"
mkdir -p "$vm/threads-go" "$vm/threads-rs" "$vm/lib"
cp "$built/threads-go/threads-go" "$vm/threads-go/"
cp "$built/threads-rs/threads-rs" "$vm/threads-rs/"
for lib in $(ldd "$vm/threads-rs/threads-rs" | grep -o '/[^ ]*'); do
	cp -L "$lib" "$vm/lib/"
done
