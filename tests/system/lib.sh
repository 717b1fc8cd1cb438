# SPDX-License-Identifier: GPL-2.0
# The host's side of `make system-test`: boots a story's disk under QEMU
# (q35, OVMF from Debian's ovmf; with Secure Boot, the Microsoft-keyed
# variable store and SMM), and drives the guest's agent (tests/system/agent)
# through the second serial port. The first serial port is the guest's
# console, kept per boot in $SYS_DIR/console-N.log.
#
#   sys_story_init DIR IMAGE FIRMWARE   FIRMWARE: sb (Secure Boot) or plain;
#                                       status 1 (the reason on stderr) when
#                                       the overlay or the variable store
#                                       cannot be made
#   sys_boot                            starts QEMU, waits for the agent
#   sys_cmd TIMEOUT SCRIPT              runs SCRIPT as root in the guest:
#                                       $SYS_OUT, $SYS_RC (124: no answer)
#   sys_poweroff                        shuts the guest down, waits for QEMU
#   sys_console_tail                    the console since the last command
OVMF_DIR=${ITERKIT_OVMF_DIR:-/usr/share/OVMF}
SYS_MEM=${ITERKIT_SYSTEM_MEM:-2048}
# The time a boot may take to reach the agent: firmware, shim, grub, the
# kernel and systemd under TCG on a loaded 2-core machine.
SYS_BOOT_TIMEOUT=${ITERKIT_SYSTEM_BOOT_TIMEOUT:-600}

sys_story_init() {
	SYS_DIR=$1
	local image=$2
	SYS_FW=$3
	local vars
	rm -rf "$SYS_DIR"
	mkdir -p "$SYS_DIR" || return 1
	qemu-img create -q -f qcow2 -F raw -b "$image" "$SYS_DIR/disk.qcow2" || return 1
	case $SYS_FW in
	sb)
		SYS_CODE=$OVMF_DIR/OVMF_CODE_4M.ms.fd
		vars=$OVMF_DIR/OVMF_VARS_4M.ms.fd
		;;
	plain)
		SYS_CODE=$OVMF_DIR/OVMF_CODE_4M.fd
		vars=$OVMF_DIR/OVMF_VARS_4M.fd
		;;
	*) echo "sys_story_init: unknown firmware '$SYS_FW' (sb, plain)" >&2; return 1 ;;
	esac
	[ -f "$SYS_CODE" ] || { echo "no firmware $SYS_CODE (Debian's ovmf)" >&2; return 1; }
	cp "$vars" "$SYS_DIR/vars.fd" || return 1
	SYS_BOOTS=0
	SYS_PID=
	SYS_SEQ=0
	SYS_CONSOLE=
	SYS_MARK=0
}

# The payload disk: a file system made from a directory (no loop device),
# attached read-only as the second virtio disk, label iterkit-pkgs.
sys_payload() {	# sys_payload DIR
	rm -f "$SYS_DIR/payload.img"
	mkfs.ext4 -q -F -d "$1" -L iterkit-pkgs "$SYS_DIR/payload.img" "$(($(du -sm "$1" | cut -f1) * 2 + 32))M" > /dev/null
}

sys_accel() {
	if [ "${ITERKIT_ACCEL:-tcg}" = kvm ]; then echo "-accel kvm -cpu host"; else echo "-accel tcg -cpu max"; fi
}

sys_boot() {
	local t0=$SECONDS smm=off
	SYS_BOOTS=$((SYS_BOOTS + 1))
	SYS_CONSOLE=$SYS_DIR/console-$SYS_BOOTS.log
	SYS_MARK=0
	rm -f "$SYS_DIR/agent.in" "$SYS_DIR/agent.out" "$SYS_DIR/agent.log"
	mkfifo "$SYS_DIR/agent.in" "$SYS_DIR/agent.out"
	: > "$SYS_DIR/agent.log"
	cat "$SYS_DIR/agent.out" >> "$SYS_DIR/agent.log" &
	SYS_READER=$!
	local secure=()
	if [ "$SYS_FW" = sb ]; then
		smm=on
		secure=(-global driver=cfi.pflash01,property=secure,value=on)
	fi
	# cache=unsafe: the guest's fsyncs (dpkg makes thousands) do not reach
	# the host's disk; the overlay is thrown away after the story anyway.
	local payload=()
	[ -f "$SYS_DIR/payload.img" ] &&
		payload=(-drive "if=virtio,format=raw,readonly=on,file=$SYS_DIR/payload.img")
	# shellcheck disable=SC2046
	qemu-system-x86_64 -machine q35,smm=$smm $(sys_accel) -smp 2 -m "$SYS_MEM" \
		"${secure[@]}" \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$SYS_CODE" \
		-drive "if=pflash,format=raw,unit=1,file=$SYS_DIR/vars.fd" \
		-drive "if=virtio,format=qcow2,cache=unsafe,file=$SYS_DIR/disk.qcow2" "${payload[@]}" \
		-nic none -display none -monitor none -no-reboot \
		-serial "file:$SYS_CONSOLE" -serial "pipe:$SYS_DIR/agent" \
		> "$SYS_DIR/qemu-$SYS_BOOTS.log" 2>&1 &
	SYS_PID=$!
	SYS_KERNEL=
	while [ $((SECONDS - t0)) -lt "$SYS_BOOT_TIMEOUT" ]; do
		SYS_KERNEL=$(sed -n 's/.*@@AGENT-READY \(.*\)@@.*/\1/p' "$SYS_DIR/agent.log" | tail -n 1)
		[ -n "$SYS_KERNEL" ] && break
		kill -0 "$SYS_PID" 2> /dev/null || break
		sleep 1
	done
	SYS_BOOT_SECONDS=$((SECONDS - t0))
	[ -n "$SYS_KERNEL" ] && return 0
	sys_kill
	return 1
}

sys_kill() {
	[ -n "${SYS_PID:-}" ] || return 0
	kill "$SYS_PID" 2> /dev/null
	wait "$SYS_PID" 2> /dev/null
	wait "$SYS_READER" 2> /dev/null
	SYS_PID=
}

sys_cmd() {	# sys_cmd TIMEOUT SCRIPT
	local timeout=$1 script=$2 id t0=$SECONDS
	SYS_SEQ=$((SYS_SEQ + 1))
	id=c$SYS_SEQ
	SYS_MARK=$(wc -l < "$SYS_CONSOLE" 2> /dev/null || echo 0)
	SYS_OUT=
	SYS_RC=124
	if [ -z "$SYS_PID" ] || ! kill -0 "$SYS_PID" 2> /dev/null; then
		SYS_OUT="(the guest is not running)"
		return 124
	fi
	printf '%s %s\n' "$id" "$(printf '%s\n' "$script" | base64 -w 0)" > "$SYS_DIR/agent.in"
	while [ $((SECONDS - t0)) -lt "$timeout" ]; do
		if grep -aq "@@AGENT-END $id rc=" "$SYS_DIR/agent.log"; then
			SYS_RC=$(sed -n "s/.*@@AGENT-END $id rc=\([0-9]*\)@@.*/\1/p" "$SYS_DIR/agent.log" | tail -n 1)
			SYS_OUT=$(awk -v id="$id" '
				$0 ~ "@@AGENT-OUT " id "@@" { on = 1; next }
				on { print; exit }' "$SYS_DIR/agent.log" | tr -d '\r' | base64 -d 2> /dev/null)
			SYS_CMD_SECONDS=$((SECONDS - t0))
			return "$SYS_RC"
		fi
		kill -0 "$SYS_PID" 2> /dev/null || { SYS_OUT="(the guest stopped: QEMU exited)"; break; }
		sleep 1
	done
	SYS_CMD_SECONDS=$((SECONDS - t0))
	[ -n "$SYS_OUT" ] || SYS_OUT="(no answer from the guest within ${timeout}s)"
	return 124
}

# Powers the guest off (QEMU exits with it: -no-reboot covers a reboot too).
sys_poweroff() {
	local t0=$SECONDS
	[ -n "$SYS_PID" ] || return 0
	printf 'p%s %s\n' "$SYS_SEQ" "$(printf 'systemctl poweroff\n' | base64 -w 0)" > "$SYS_DIR/agent.in"
	while kill -0 "$SYS_PID" 2> /dev/null && [ $((SECONDS - t0)) -lt 300 ]; do sleep 1; done
	local rc=0
	kill -0 "$SYS_PID" 2> /dev/null && rc=1
	sys_kill
	SYS_POWEROFF_SECONDS=$((SECONDS - t0))
	return $rc
}

# The guest console from a little before the last command on (at most 60 lines).
sys_console_tail() {
	[ -f "$SYS_CONSOLE" ] || return 0
	local from=$((SYS_MARK > 10 ? SYS_MARK - 10 : 1))
	sed -n "$from,\$p" "$SYS_CONSOLE" | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' | tail -n 60
}
