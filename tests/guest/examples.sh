# SPDX-License-Identifier: GPL-2.0
# Shared by the examples' suites (test_examples.sh, test_loaders.sh).

# run CMD...: CMD's stdout in $out, stderr in $err, status in $rc.
run() {
	"$@" > /tmp/ex.out 2> /tmp/ex.err
	rc=$?
	out=$(cat /tmp/ex.out)
	err=$(cat /tmp/ex.err)
}

# unload: rmmod iterkit once nothing holds it. A BPF program that used its
# kfuncs drops its reference after an RCU grace period, not at exit.
unload() {
	i=0
	while [ "$(cat /sys/module/iterkit/refcnt 2>/dev/null)" != 0 ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rmmod iterkit
}

# load_nowalkers WHAT: inserts the module as built for kernels before 6.7
# (iterkit-nowalkers.ko), for the checks WHAT names; status 0 when it is
# loaded. `make tests` builds it, with iterkit-otherversion.ko; check-debug's
# build (test-bins) and the package tests' staging make neither, so only
# there may it be missing, and WHAT is skipped.
load_nowalkers() {
	_nw=/iterkit/tests/iterkit-nowalkers.ko
	if [ -f $_nw ]; then
		insmod $_nw && return 0
		tap_fail "insmod iterkit-nowalkers.ko"
	elif [ -f /iterkit/tests/iterkit-otherversion.ko ]; then
		tap_fail "$1: $_nw is missing from a \`make tests\` build, which makes it"
	else
		tap_skip "$1" "no $_nw in this build (check-debug and the package tests build none)"
	fi
	return 1
}
