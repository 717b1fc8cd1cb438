#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `iterkit cgroups --json` against the cgroupfs directory tree (ids are the
# directories' inode numbers) for every order, plus the CLI's errors; and
# no kernel report meanwhile.
. ./tap.sh
. ./cgroup.sh
kmsg_mark test_kit_cgroup

CG=/sys/fs/cgroup
T=$CG/kit_cgroup_gt
TMP=/tmp/kit_cgroup_gt.$$

# Kills every process in the test tree (cgroup.kill), waits until the
# tree is empty, removes it; fails when anything is left behind.
cleanup() {
	[ -d "$T" ] || return 0
	echo 1 > "$T/cgroup.kill" 2>/dev/null
	i=0
	while grep -q 'populated 1' "$T/cgroup.events" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	for d in $(find "$T" -depth -type d 2>/dev/null); do rmdir "$d"; done
	rm -f "$TMP".*
	[ ! -d "$T" ]
}
trap cleanup EXIT

# The walks below are compared with cgroupfs: start once every cgroup
# removed before (by earlier suites) is released.
tap_check "no removed cgroup still being released" wait_no_dying

mkdir -p "$T"
for a in c0 c1 c2; do
	for b in c0 c1 c2; do mkdir -p "$T/$a/$b"; done
done
mkdir -p "$T/c1/c2/c0/c1"

# Two processes in c2/c1 (counted in the kernel with css_task).
sleep 1000 &
echo $! > "$T/c2/c1/cgroup.procs"
sh -c 'sleep 1000' &
echo $! > "$T/c2/c1/cgroup.procs"

# "id path" lines of a cgroups --json run, in walk order.
walk() {
	iterkit cgroups --json --root "$1" --order "$2" |
		sed -n 's/^{"id":\([0-9]*\),.*"path":"\([^"]*\)"}.*/\1 \2/p'
}

# "id path" of the directory $1 (path below the cgroup2 mount).
dir_entry() {
	rel=${1#"$CG"}
	echo "$(stat -c %i "$1") ${rel:-/}"
}

check_order() {
	root=$1 order=$2 name=$3
	walk "$root" "$order" > "$TMP.got"
	case $order in
	pre | post) find "$root" -type d ;;
	children) find "$root" -mindepth 1 -maxdepth 1 -type d ;;
	self) echo "$root" ;;
	up)
		d=$root
		while :; do
			echo "$d"
			[ "$d" = "$CG" ] && break
			d=$(dirname "$d")
		done
		;;
	esac | while read -r d; do dir_entry "$d"; done > "$TMP.want"
	if [ "$order" = up ]; then
		# Exact sequence: self, parent, ..., root.
		tap_eq "$name: $order matches the directory chain" "$(cat "$TMP.got")" "$(cat "$TMP.want")"
	else
		tap_eq "$name: $order yields exactly the directories" \
			"$(sort "$TMP.got")" "$(sort "$TMP.want")"
	fi
}

# Parents before children (pre) or after them (post), in the JSON itself,
# over every directory below root (an empty walk is no proof of order).
check_shape() {
	root=$1 order=$2 name=$3
	iterkit cgroups --json --root "$root" --order "$order" |
		sed -n 's/^{"id":\([0-9]*\),"level":[0-9]*,"parent":\([0-9]*\),.*/\1 \2/p' > "$TMP.pairs"
	tap_eq "$name: $order walk has every directory" "$(wc -l < "$TMP.pairs")" \
		"$(find "$root" -type d | wc -l)"
	bad=$(awk -v order="$order" '
			{ id[NR] = $1; par[NR] = $2; pos[$1] = NR }
			END {
				for (i = 1; i <= NR; i++) {
					if (!(par[i] in pos)) continue
					if (order == "pre" && pos[par[i]] > i) print id[i]
					if (order == "post" && pos[par[i]] < i) print id[i]
				}
				if (order == "pre" && NR && par[1] in pos) print "first"
				if (order == "post" && NR && par[NR] in pos) print "last"
			}' "$TMP.pairs")
	tap_eq "$name: $order puts parents $( [ "$order" = pre ] && echo before || echo after) children" "$bad" ""
}

for order in pre post up children self; do
	check_order "$CG" "$order" "root"
	check_order "$T" "$order" "tree"
	check_order "$T/c1/c2" "$order" "nested"
done
for order in pre post; do
	check_shape "$CG" "$order" "root"
	check_shape "$T/c1" "$order" "nested"
done

# Children come in creation order (the kernel appends new cgroups).
tap_eq "children in creation order" "$(walk "$T" children | cut -d' ' -f2)" \
	"$(printf '%s\n' /kit_cgroup_gt/c0 /kit_cgroup_gt/c1 /kit_cgroup_gt/c2)"

# --root by id, by absolute path and by path below the mount agree.
id=$(stat -c %i "$T/c0")
tap_eq "--root ID equals --root PATH" "$(walk "$id" pre)" "$(walk "$T/c0" pre)"
tap_eq "--root relative path" "$(walk kit_cgroup_gt/c0 pre)" "$(walk "$T/c0" pre)"

procs=$(iterkit cgroups --json --root "$T/c2/c1" --order self |
	sed -n 's/.*"procs":\([-0-9]*\),.*/\1/p')
tap_eq "member processes counted in the kernel" "$procs" 2
procs=$(iterkit cgroups --json --root "$T/c2/c0" --order self |
	sed -n 's/.*"procs":\([-0-9]*\),.*/\1/p')
tap_eq "empty cgroup has no processes" "$procs" 0

# The default view: an indented tree, the start first.
out=$(iterkit cgroups --root "$T/c1")
tap_contains "tree view starts with the root line" "$(echo "$out" | head -n 1)" "c1  (id $(stat -c %i "$T/c1"), level 2"
tap_contains "tree view indents children" "$out" "
  c0  (id $(stat -c %i "$T/c1/c0"), level 3"

# A start deeper than the ancestors one run of the program keeps (64): found
# by id, with its whole path, every level up to the root yielded.
deep=deep
i=1
while [ $i -lt 140 ]; do
	deep="$deep/d"
	i=$((i + 1))
done
mkdir -p "$T/$deep"
id=$(stat -c %i "$T/$deep")
tap_contains "a cgroup 140 levels below the test tree: found by id, with its path" \
	"$(iterkit cgroups --json --root "$id" --order self 2>&1)" "\"path\":\"/kit_cgroup_gt/$deep\""
tap_eq "--order up from it yields every level to the root" \
	"$(iterkit cgroups --json --root "$id" --order up | grep -c '"id":')" \
	"$(($(echo "/kit_cgroup_gt/$deep" | tr -cd / | wc -c) + 1))"
tap_contains "--host text view of it names its path" \
	"$(iterkit cgroups --host --root "$id" --order self 2>&1)" ")  /kit_cgroup_gt/$deep"

# Errors: one line, exit 1 for a missing cgroup, 2 for bad usage.
check_error() {
	name=$1 want_rc=$2 want_msg=$3
	shift 3
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	lines=$(echo "$err" | wc -l)
	if [ "$rc" = "$want_rc" ] && [ "$lines" = 1 ]; then
		tap_contains "$name" "$err" "$want_msg"
	else
		tap_fail "$name"
		tap_diag "rc $rc (want $want_rc), $lines lines: $err"
	fi
}
check_error "no such path: exit 1" 1 "no such cgroup" iterkit cgroups --root /no/such/cgroup
check_error "no such id: exit 1" 1 "no such cgroup" iterkit cgroups --root 1099511627776
check_error "file is not a cgroup: exit 1" 1 "no such cgroup" iterkit cgroups --root "$T/cgroup.procs"
gone=$(stat -c %i "$T/c0/c2")
rmdir "$T/c0/c2"
check_error "removed cgroup id: exit 1" 1 "no such cgroup" iterkit cgroups --root "$gone"
check_error "bad order: exit 2" 2 "--order must be one of" iterkit cgroups --order sideways
check_error "missing value: exit 2" 2 "needs a value" iterkit cgroups --root
check_error "stray argument: exit 2" 2 "unexpected argument" iterkit cgroups extra

wait_no_dying
out=$(iterkit demo 2>&1 | grep kit_cgroup)
tap_contains "demo verdict" "$out" "PASS kit_cgroup"

# Nothing may leak into later suites: no process, no cgroup.
tap_check "test tree and its processes removed" cleanup
tap_log_clean "kernel log clean" test_kit_cgroup
tap_done
