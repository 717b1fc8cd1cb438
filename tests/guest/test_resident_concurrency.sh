#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Resident programs (`iterkit load`) are shared: every iterkit that runs one
# writes its inputs into the same .bss and reads the same records. Here walks
# with different inputs run at the same time, and each must see only its own:
# `tasks --pid P` lists P's one thread in every document, never another
# process, while walks of every task and of other pids run beside it. Then a
# walk killed while it runs must leave the program usable. A few hundred
# processes make each walk of every task long enough that walkers queue on
# the program's lock, as on a busy host.
. /iterkit/tests/tap.sh
cd /iterkit || exit 1
TMP=/tmp/resident-concurrency
ROUNDS=${RESIDENT_ROUNDS:-300}
rm -rf "$TMP"
mkdir -p "$TMP"
kmsg_mark test_resident_concurrency

sleeper1=
sleeper2=
crowd=
teardown() {
	[ -n "$sleeper1" ] && kill "$sleeper1" 2>/dev/null
	[ -n "$sleeper2" ] && kill "$sleeper2" 2>/dev/null
	[ -n "$crowd" ] && kill $crowd 2>/dev/null
	iterkit unload > /dev/null 2>&1
	rm -rf "$TMP"
}
trap teardown EXIT

sleep 1000 &
sleeper1=$!
sleep 1000 &
sleeper2=$!
i=0
while [ $i -lt 400 ]; do
	sleep 1000 &
	crowd="$crowd $!"
	i=$((i + 1))
done

tap_check "iterkit load" sh -c 'iterkit load > /dev/null'

# The task entries of FILE's JSON documents, one per line ({"pid":N,), in order.
entries() { grep -o '{"pid":[0-9]*,' "$1"; }

# check_only PID FILE N: FILE holds N documents, each listing PID alone.
check_only() {
	docs=$(grep -o '"count":' "$2" | wc -l)
	mine=$(entries "$2" | grep -cx "{\"pid\":$1,")
	others=$(entries "$2" | grep -vcx "{\"pid\":$1,")
	tap_eq "tasks --pid $1 beside other walks: $3 of $3 documents list $1 alone" \
		"$docs documents, $mine with $1, $others other tasks" \
		"$3 documents, $3 with $1, 0 other tasks" ||
		tap_diag "$(entries "$2" | grep -vx "{\"pid\":$1," | head -n 5)"
}

iterkit tasks --pid "$sleeper1" --json --repeat "$ROUNDS" > "$TMP/p1" 2> "$TMP/p1.err" &
w1=$!
iterkit tasks --pid "$sleeper2" --json --repeat "$ROUNDS" > "$TMP/p2" 2> "$TMP/p2.err" &
w2=$!
iterkit tasks --json --repeat "$ROUNDS" > "$TMP/all" 2> "$TMP/all.err" &
w3=$!
iterkit tasks --threads --json --repeat "$ROUNDS" > /dev/null 2> "$TMP/threads.err" &
w4=$!
iterkit tasks --json --repeat "$ROUNDS" > /dev/null 2> "$TMP/all2.err" &
w5=$!
f=0
for w in $w1 $w2 $w3 $w4 $w5; do wait "$w" || f=$((f + 1)); done
tap_eq "five concurrent resident walks exit 0" "$f" 0 ||
	tap_diag "$(cat "$TMP"/*.err)"
check_only "$sleeper1" "$TMP/p1" "$ROUNDS"
check_only "$sleeper2" "$TMP/p2" "$ROUNDS"
# The walks of every task saw both sleepers each time: never a --pid walk's view.
tap_eq "tasks beside --pid walks: every document lists every task" \
	"$(grep -o '"count":' "$TMP/all" | wc -l) $(entries "$TMP/all" | grep -cx "{\"pid\":$sleeper1,")" \
	"$ROUNDS $ROUNDS"

# The same, made certain: two walks of different pids come back for their
# second run while the program's lock is held by someone else, queue behind
# it (two waiters in /proc/locks), and then each must run with its own inputs.
dir=$(ls -d /sys/fs/bpf/iterkit/*/tasks 2>/dev/null | head -n 1)
iterkit tasks --pid "$sleeper1" --json --repeat 2 --interval 8 > "$TMP/q1" 2> "$TMP/q1.err" &
q1=$!
iterkit tasks --pid "$sleeper2" --json --repeat 2 --interval 8 > "$TMP/q2" 2> "$TMP/q2.err" &
q2=$!
i=0
while { ! grep -q '"count":' "$TMP/q1" || ! grep -q '"count":' "$TMP/q2"; } &&
	[ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
mkfifo "$TMP/hold"
/iterkit/tests/helpers/hold_lock "$dir" < "$TMP/hold" > "$TMP/held" 2>&1 &
holder=$!
exec 8> "$TMP/hold"
i=0
while [ "$(grep -c -- '-> FLOCK' /proc/locks)" -lt 2 ] && kill -0 "$q1" 2>/dev/null && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
tap_eq "two walks queued behind a held lock" \
	"$(cat "$TMP/held"), $(grep -c -- '-> FLOCK' /proc/locks) waiting" "locked, 2 waiting" ||
	tap_diag "$(cat /proc/locks)"
exec 8>&-
wait "$holder"
f=0
for w in $q1 $q2; do wait "$w" || f=$((f + 1)); done
tap_eq "both queued walks exit 0" "$f" 0 || tap_diag "$(cat "$TMP"/q*.err)"
check_only "$sleeper1" "$TMP/q1" 2
check_only "$sleeper2" "$TMP/q2" 2

# A walk killed in the middle of its runs: the lock goes with it, and the
# next walk gets its own answer.
iterkit tasks --json --repeat 1000000 > "$TMP/victim" 2>&1 &
victim=$!
i=0
while [ ! -s "$TMP/victim" ] && [ $i -lt 600 ]; do	# its first walk is out
	sleep 0.1
	i=$((i + 1))
done
kill -9 "$victim"
wait "$victim" 2>/dev/null
timeout 120 iterkit tasks --pid "$sleeper1" --json --repeat 3 > "$TMP/after" 2> "$TMP/after.err"
tap_eq "after a walk killed mid-run, the next one exits 0" "$?" 0 || tap_diag "$(cat "$TMP/after.err")"
check_only "$sleeper1" "$TMP/after" 3

tap_check "iterkit unload" sh -c 'iterkit unload > /dev/null'
tap_log_clean "kernel log clean" test_resident_concurrency
tap_done
