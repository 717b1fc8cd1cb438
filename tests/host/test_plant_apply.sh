#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The breaks that tests/plant/run and tests/mutants/run make are run by hand:
# each must still apply to the tree as it is now, or the next run by hand
# proves nothing. Planted bugs apply with git apply; each mutant's edit must
# change its file.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh

for p in tests/plant/*.patch; do
	tap_check "planted bug $(basename "$p" .patch) applies" git apply --check "$p"
done

source <(sed -n '/^MUTANTS=(/,/^)/p' tests/mutants/run)
for m in "${MUTANTS[@]}"; do
	IFS='|' read -r name file subst _ <<<"$m"
	tmp=$(mktemp)
	cp "$file" "$tmp"
	perl -0pi -e "$subst" "$tmp"
	tap_check "mutant $name changes $file" sh -c '! cmp -s "$1" "$2"' _ "$file" "$tmp"
	rm -f "$tmp"
done
tap_done
