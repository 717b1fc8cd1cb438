#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rpmlint on iterkit's RPMs and spec with packaging/iterkit.rpmlintrc, minus
# the filters this rpmlint did not use (it reports those as errors, and
# which it uses depends on its version and on the rpm that built the RPMs).
#   scripts/rpmlint.sh RPM_DIR     (RPM_DIR holds RPMS/ and SRPMS/)
set -u
dir=${1:?usage: rpmlint.sh RPM_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
rc=$(mktemp)
trap 'rm -f "$rc"' EXIT
cp "$top/packaging/iterkit.rpmlintrc" "$rc"
run() { rpmlint -r "$rc" "$dir"/RPMS/*/*.rpm "$dir"/SRPMS/*.rpm "$top/iterkit.spec" 2>&1; }
out=$(run)
unused=$(echo "$out" | sed -n 's/.*E: unused-rpmlintrc-filter "\(.*\)"$/\1/p')
if [ -n "$unused" ]; then
	echo "$unused" | while IFS= read -r f; do
		grep -vF "addFilter(r\"$f\")" "$rc" > "$rc.new"
		mv "$rc.new" "$rc"
	done
	out=$(run)
fi
echo "$out"
echo "$out" | grep -q ' 0 errors, 0 warnings'
