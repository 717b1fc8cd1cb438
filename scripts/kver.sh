#!/bin/sh
# Prints the kernel release iterkit builds for: $KVER if set, else the running
# kernel when its headers are installed, else the newest installed headers.
set -eu
if [ -n "${KVER:-}" ]; then echo "$KVER"; exit 0; fi
if [ -d "/lib/modules/$(uname -r)/build" ]; then uname -r; exit 0; fi
k=$(ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' | sort -V | tail -n 1)
if [ -z "$k" ]; then
	echo "no kernel headers found: install linux-headers-\$(uname -r) (or run scripts/install-deps.sh)" >&2
	exit 1
fi
echo "$k"
