#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-debug`: builds (once, cached) the debug kernel of
# scripts/debug-kernel.sh, builds iterkit and its tests against it, boots it
# with panic_on_warn and runs every guest suite at full strength: 10 million
# fuzzed constructor calls, 5 minutes of churn, 200 module life cycles, every
# program type. Any KASAN, lockdep, RCU, UBSAN, kmemleak or other kernel
# report fails the run and is printed. Ends with the figures and
# "N passed, M failed".
#
#   tests/check-debug.sh [--plant NAME] [SUITE...]   (default: every guest suite)
#
# --plant NAME builds the module with tests/plant/NAME.patch applied: a bug
# put in on purpose, which the run must catch (tests/plant/run does that for
# each of them). The tree's own sources are never touched.
#
# Scale (environment): FUZZ_CALLS (10000000), CHURN_SECS (300),
# LIFECYCLE_CYCLES (200), CONTEXT_SECS (60).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
plant=
if [ "${1:-}" = --plant ]; then
	plant=tests/plant/$2.patch
	[ -f "$plant" ] || { echo "check-debug: no planted bug $plant" >&2; exit 2; }
	shift 2
fi
out=build/debug
log=$out/check-debug.log
mkdir -p "$out"
: > "$log"
start=$(date +%s)

say() { echo "check-debug: $*" | tee -a "$log"; }

kdir=$(scripts/debug-kernel.sh) || { say "the debug kernel did not build"; exit 1; }
kernel=$kdir/arch/x86/boot/bzImage
krel=$(cat "$kdir/include/config/kernel.release")
ksecs=$(cat "$kdir/iterkit-build-time" 2>/dev/null || echo 0)
say "debug kernel $krel in $kdir (its first build took $((ksecs / 60)) min $((ksecs % 60)) s on $(nproc) cores)"

# The module, from a copy of the sources, so the tree's own module/iterkit.ko
# (built for the stock kernel) stays as it is.
rm -rf "$out/mod"
mkdir -p "$out/mod"
make -s install-dkms-src DKMS_SRC="$out/mod" > /dev/null
if [ -n "$plant" ]; then
	patch -s -d "$out/mod" -p1 < "$plant" || { say "$plant does not apply"; exit 1; }
	say "planted bug: $plant"
fi
rm -f "$out"/mod/module/*.o "$out"/mod/module/*.ko "$out"/mod/module/*.mod* \
	"$out"/mod/module/.*.cmd "$out"/mod/module/modules.order
if ! bash "$out/mod/scripts/build-module.sh" build "$krel" "$kdir" > "$out/module-build.log" 2>&1; then
	cat "$out/module-build.log"
	say "building the module against the debug kernel failed"
	exit 1
fi
ko=$out/mod/module/iterkit.ko
readelf -S "$ko" | grep -q '[[:space:]]\.BTF[[:space:]]' || { say "$ko has no BTF"; exit 1; }

# The loader (CO-RE; the tree's own build) and the tests, against the debug
# kernel's vmlinux.
make -s all > "$out/loader-build.log" 2>&1 || { cat "$out/loader-build.log"; exit 1; }
if ! make -s BUILD="$out" KDIR="$kdir" MODULE_KO="$ko" \
		MODULE_FEATURES="$out/mod/build/kbuild/$krel/features" test-bins \
		"$out/tests/iterkit-nobtf.ko" "$out/tests/iterkit-badbtf.ko" > "$out/tests-build.log" 2>&1; then
	cat "$out/tests-build.log"
	say "building the tests against the debug kernel failed"
	exit 1
fi

env="FUZZ_CALLS=${FUZZ_CALLS:-10000000} CHURN_SECS=${CHURN_SECS:-300}"
env="$env LIFECYCLE_CYCLES=${LIFECYCLE_CYCLES:-200} CONTEXT_SECS=${CONTEXT_SECS:-60}"
env="$env CGROUP_CHURN_SECS=${CGROUP_CHURN_SECS:-30}"
# kmemleak: forget what boot left suspect; after all suites, two scans (it
# reports objects unreferenced for at least 5 s).
guest="ml=/sys/kernel/debug/kmemleak
echo scan > \$ml; echo clear > \$ml
$env sh /iterkit/tests/run-all.sh $*
sleep 6; echo scan > \$ml; echo scan > \$ml
echo \"# kmemleak: \$(grep -c 'unreferenced object' \$ml) suspected leaks at the end\"
head -n 80 \$ml | sed 's/^/# kmemleak: /'"
say "running the guest suites in the debug kernel ($env)"
tests/vm/run --kernel "$kernel" --ko "$ko" --tests "$out/tests" --mem 3072 \
	--append "panic_on_warn=1 loglevel=5 log_buf_len=16M watchdog_thresh=30" \
	--timeout "${ITERKIT_DEBUG_TIMEOUT:-7200}" -- "$guest" 2>&1 | tee -a "$log"
vmrc=${PIPESTATUS[0]}
cp build/vm/console.log "$out/console.log"
[ "$vmrc" = 0 ] || echo "not ok - the debug VM run failed (status $vmrc; a panic_on_warn panic ends it)" | tee -a "$log"

# Kernel reports anywhere in the console log of the run: the kernel's own
# splat headers (a WARN with panic_on_warn ends in a panic, also caught).
pat='WARNING:|(^|[^[:alnum:]])BUG[: ]|Oops|general protection|Kernel panic|KASAN|UBSAN:|refcount_t:|list_(add|del) corruption|ODEBUG:|INFO: rcu|rcu: INFO:|detected stall|soft lockup|blocked for more than|suspicious RCU usage|possible recursive locking|possible circular locking|inconsistent lock state|new suspected memory leaks'
reports=$(grep -cE "$pat" "$out/console.log")
leaks=$(sed -n 's/^# kmemleak: \([0-9]*\) suspected leaks at the end$/\1/p' "$log" | tail -n 1)
if [ "$reports" -gt 0 ]; then
	echo "# kernel reports in the console log ($out/console.log):" | tee -a "$log"
	grep -nE -A 30 "$pat" "$out/console.log" | head -n 400 | sed 's/^/#   /' | tee -a "$log"
	echo "not ok - $reports kernel reports in the debug kernel's log" | tee -a "$log"
fi
if [ "${leaks:-x}" != 0 ]; then
	echo "not ok - kmemleak: ${leaks:-unknown} suspected leaks at the end" | tee -a "$log"
	reports=$((reports + ${leaks:-1}))
fi

fig() { sed -n "s/^# $1: \([0-9]*\).*/\1/p" "$log" | tail -n 1; }
pass=$(grep -E '^ok ' "$log" | grep -vc '# SKIP')
skip=$(grep -E '^ok ' "$log" | grep -c '# SKIP')
fail=$(grep -cE '^not ok' "$log")
secs=$(($(date +%s) - start))
echo
say "calls fuzzed: $(fig 'calls fuzzed')"
say "walks under churn: $(fig 'walks under churn')"
say "life-cycle cycles: $(fig 'life-cycle cycles')"
say "program-type walks: $(sed -n 's/^# program types: \([0-9]*\) walks.*/\1/p' "$log" | tail -n 1)"
say "reports found: $reports"
say "run took $((secs / 60)) min $((secs % 60)) s"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped" | tee -a "$log"
else
	echo "$pass passed, $fail failed" | tee -a "$log"
fi
[ "$fail" -eq 0 ] && [ "$reports" -eq 0 ]
