#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boots the test VM with 1,000 extra processes and times `iterkit tasks --json`
# against reading the same fields (pid, ppid, uid, state, threads, comm) from
# /proc/PID/stat and /proc/PID/status with a small C reader. Prints both
# times per run (clock: /proc/uptime, 10 ms steps, over RUNS runs) and their ratio.
#   bench/tasks-vs-proc.sh [RUNS]    (default 20 runs of each; needs `make tests`)
set -e
cd "$(dirname "$0")/.."
runs=${1:-20}
case $runs in '' | *[!0-9]*) echo "tasks-vs-proc: RUNS must be a number" >&2; exit 2 ;; esac

exec tests/vm/run --timeout 900 -- "
insmod iterkit.ko || exit 1
[ -x tests/helpers/proc_tasks ] || { echo "tasks-vs-proc: run make tests first"; exit 1; }
i=0
while [ \$i -lt 1000 ]; do sleep 100000 & i=\$((i + 1)); done
sleep 1
procs=\$(ls -d /proc/[0-9]* | wc -l)
ms() { awk '{ printf \"%d\", \$1 * 1000 }' /proc/uptime; }  # busybox date has no %N
iterkit tasks --json > /tmp/kit.json; tests/helpers/proc_tasks > /tmp/proc.json
t0=\$(ms); i=0
while [ \$i -lt $runs ]; do iterkit tasks --json > /tmp/kit.json; i=\$((i + 1)); done
t1=\$(ms); i=0
while [ \$i -lt $runs ]; do tests/helpers/proc_tasks > /tmp/proc.json; i=\$((i + 1)); done
t2=\$(ms)
kit=\$(( (t1 - t0) * 1000 / $runs )); proc=\$(( (t2 - t1) * 1000 / $runs ))
echo \"processes in /proc: \$procs; tasks in iterkit output: \$(grep -c '\"pid\"' /tmp/kit.json); in /proc reader output: \$(grep -c '\"pid\"' /tmp/proc.json)\"
echo \"iterkit tasks --json: \$kit us per run ($runs runs)\"
echo \"/proc reader (stat + status): \$proc us per run ($runs runs)\"
[ \$kit -gt 0 ] && echo \"ratio /proc / iterkit: \$(awk -v a=\$proc -v b=\$kit 'BEGIN { printf \"%.2f\", a / b }')\"
"
