#!/bin/sh
# Prints the kernel release iterkit builds for: $KVER if set, else the running
# kernel when its headers are installed, else the newest installed headers
# (of the cloud flavour when there are any).
set -eu
if [ -n "${KVER:-}" ]; then echo "$KVER"; exit 0; fi
if [ -d "/lib/modules/$(uname -r)/build" ]; then uname -r; exit 0; fi
# Among installed headers, the cloud flavour's first: scripts/install-deps.sh
# installs those and the test VM boots that kernel; the matrix installs other
# flavours' headers (generic, rt) beside them, which must not take over.
all=$(ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' | sort -V)
k=$(printf '%s\n' "$all" | grep -- '-cloud-' | tail -n 1)
[ -n "$k" ] || k=$(printf '%s\n' "$all" | tail -n 1)
if [ -z "$k" ]; then
	echo "no kernel headers found: install linux-headers-\$(uname -r) (or run scripts/install-deps.sh)" >&2
	exit 1
fi
echo "$k"
