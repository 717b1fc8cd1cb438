# SPDX-License-Identifier: GPL-2.0
# cgroupfs helpers for the guest suites (POSIX sh, busybox).

# Waits (up to 20 s) until no removed cgroup is still being released:
# until then a walk yields it and cgroupfs no longer shows it. Fails when
# some are still dying.
wait_no_dying() {
	_i=0
	while [ "$(sed -n 's/^nr_dying_descendants //p' /sys/fs/cgroup/cgroup.stat)" != 0 ]; do
		[ $_i -lt 200 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
