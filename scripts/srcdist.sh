#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Copies iterkit's source files (no build products) into DIR, for package
# builds that must not touch the work tree.
set -eu
dest=$1
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dest"
cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$dest"
else
	tar --exclude=./build --exclude=./.git --exclude=./iterkit --exclude='*.ko' \
		--exclude='*.o' --exclude='*.mod*' --exclude='.*.cmd' -cf - . | tar -xf - -C "$dest"
fi
