#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fails (and removes the module) when a built iterkit.ko has no .BTF
# section: the kernel would load it and silently register no kfuncs.
ko=${1:-module/iterkit.ko}
if readelf -S "$ko" 2>/dev/null | grep -q '[[:space:]]\.BTF[[:space:]]'; then
	exit 0
fi
rm -f "$ko"
echo "iterkit: $ko was built without BTF, so its kfuncs could not be registered; build against kernel headers that ship vmlinux (Debian: linux-headers from bookworm-backports 6.12.16 or newer)" >&2
exit 1
