#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Copies iterkit's source files (no build products) into DIR, for package
# builds that must not touch the work tree.
set -eu
dest=$1
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dest"
cd "$top"
# A tree that is its own git work tree copies what git tracks; a copy inside
# another's build directory (make release's) copies all it has.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
	git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$dest"
else
	tar --exclude=./build --exclude=./.git --exclude=./iterkit --exclude='*.ko' \
		--exclude='*.o' --exclude='*.mod*' --exclude='.*.cmd' -cf - . | tar -xf - -C "$dest"
fi
