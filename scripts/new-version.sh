#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Starts a new version: writes it into VERSION, iterkit.spec, and an entry
# on top of debian/changelog, the spec's %changelog and CHANGELOG.md, each
# saying TEXT. Commit the result and `make release` it (docs/release.md).
#   scripts/new-version.sh VERSION TEXT
set -euo pipefail
cd "$(dirname "$0")/.."
new=${1:?usage: scripts/new-version.sh VERSION TEXT}
text=${2:?usage: scripts/new-version.sh VERSION TEXT}
old=$(cat VERSION)
[[ $new =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "new-version: '$new' is not MAJOR.MINOR.PATCH" >&2; exit 1; }
dpkg --compare-versions "$new" gt "$old" || { echo "new-version: $new is not newer than $old" >&2; exit 1; }
who="iterkit developers <iterkit@users.noreply.github.com>"
now=${SOURCE_DATE_EPOCH:-$(date +%s)}

echo "$new" > VERSION
{
	printf 'iterkit (%s) unstable; urgency=medium\n\n' "$new"
	printf '%s\n' "$text" | fold -s -w 72 | sed 's/ *$//; 1s/^/  * /; 2,$s/^/    /'
	printf '\n -- %s  %s\n\n' "$who" "$(LC_ALL=C date -u -R -d "@$now")"
	cat debian/changelog
} > debian/changelog.new && mv debian/changelog.new debian/changelog
sed -i "s/^Version: .*/Version:        $new/" iterkit.spec
entry=$(printf '* %s %s - %s-1\n' "$(LC_ALL=C date -u -d "@$now" '+%a %b %d %Y')" "$who" "$new"
	printf '%s\n' "$text" | fold -s -w 72 | sed 's/ *$//; 1s/^/- /; 2,$s/^/  /')
awk -v e="$entry" '{ print } /^%changelog$/ { print e; print "" }' iterkit.spec > iterkit.spec.new && mv iterkit.spec.new iterkit.spec
awk -v v="$new" -v d="$(date -u -d "@$now" +%F)" -v t="$text" '
	!done && /^## / { print "## " v " (" d ")\n\n" t "\n"; done = 1 }
	{ print }' CHANGELOG.md > CHANGELOG.md.new && mv CHANGELOG.md.new CHANGELOG.md
echo "iterkit $old -> $new: VERSION, debian/changelog, iterkit.spec, CHANGELOG.md"
