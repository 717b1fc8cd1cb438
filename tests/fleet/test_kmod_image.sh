#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KMM kmod image end to end, for an amd64 and an arm64 kernel
# (a Debian 12 and a Debian 13 one by default; FLEET_KERNELS to choose):
# make kmod-image; the image's layout, its
# module signed and indexed by depmod; pushed to Debian's docker-registry
# on 127.0.0.1 and pulled back by digest with skopeo; the pulled image
# unpacked into a VM of that kernel, where the KMM worker's steps are
# replayed as it runs them (copy /opt/lib/modules/<release> to /tmp/opt,
# modprobe -vd /tmp/opt iterkit), then the image's iterkit demo, then
# modprobe -rvd once the demo's programs are gone.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
. tests/pkg/lib.sh
. scripts/kernel-prep.sh
. scripts/prebuilt.sh
# The certificate the images are signed with (scripts/prebuilt.sh: signing_pair).
cert=${MODULE_SIGNING_CERT:-build/modules-debs/key/signing_key.x509.pem}
kernels=${FLEET_KERNELS:-6.12.95+deb12-cloud-amd64 7.3.4+deb13-cloud-arm64}
cache=${ITERKIT_CACHE:-/var/cache/iterkit}
work=$(mktemp -d "${TMPDIR:-/tmp}/iterkit-fleet.XXXXXX")
registry_pid=
cleanup() {
	[ -z "$registry_pid" ] || kill "$registry_pid" 2> /dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# -- a registry on 127.0.0.1, on a free port --
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
reg=127.0.0.1:$port
cat > "$work/registry.yml" <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $work/registry
http:
  addr: $reg
EOF
docker-registry serve "$work/registry.yml" > "$work/registry.log" 2>&1 &
registry_pid=$!
for _ in $(seq 100); do
	curl -fsS "http://$reg/v2/" > /dev/null 2>&1 && break
	sleep 0.1
done
tap_check "docker-registry answers on $reg/v2/" curl -fsS "http://$reg/v2/" -o /dev/null ||
	tap_diag "$(tail -n 5 "$work/registry.log")"
sk() { skopeo --insecure-policy "$@"; }

for k in $kernels; do
	tag=${k//+/_}
	arch=$(karch "$k")
	read -r _ suite <<<"$(prebuilt_kernels "$k")"
	out=$(scripts/kmod-image.sh "$k" 2>&1)
	tap_eq "$k: make kmod-image exits 0" "$?" 0 || { tap_diag "$(tail -n 5 <<<"$out")"; continue; }
	oci=build/kmod-image/$tag/oci
	layout=$(cat "build/kmod-image/$tag/layout.txt")
	tap_contains "$k: the image has /opt/lib/modules/$k/iterkit.ko" "$layout" "/opt/lib/modules/$k/iterkit.ko "
	tap_contains "$k: the image has depmod's modules.dep.bin" "$layout" "/opt/lib/modules/$k/modules.dep.bin "
	tap_contains "$k: the image has the loader" "$layout" "/usr/sbin/iterkit "

	# -- push, then pull back by digest --
	ref=$reg/iterkit-kmod:$tag
	out=$(sk copy --quiet --dest-tls-verify=false --digestfile "$work/pushed" "oci:$oci:$tag" "docker://$ref" 2>&1)
	tap_eq "$k: skopeo pushes the image to $ref" "$?" 0 || tap_diag "$out"
	pushed=$(cat "$work/pushed" 2> /dev/null)
	remote=$(sk inspect --tls-verify=false --format '{{.Digest}} {{.Architecture}} {{index .Labels "io.iterkit.kernel"}}' "docker://$ref" 2>&1)
	tap_eq "$k: the registry serves the pushed digest, for $arch, labelled with the kernel" "$remote" "$pushed $arch $k"
	rm -rf "$work/pulled"
	out=$(sk copy --quiet --src-tls-verify=false "docker://$reg/iterkit-kmod@$pushed" "oci:$work/pulled:$tag" 2>&1)
	tap_eq "$k: skopeo pulls it back by digest" "$?" 0 || tap_diag "$out"
	got=$(sk inspect --format '{{.Digest}}' "oci:$work/pulled:$tag" 2>&1)
	tap_eq "$k: the pulled manifest has the pushed digest" "$got" "$pushed"
	rootfs=$work/rootfs-$tag
	rm -rf "$rootfs"
	umoci raw unpack --image "$work/pulled:$tag" "$rootfs" > "$work/unpack.log" 2>&1
	tap_eq "$k: umoci unpacks the pulled image" "$?" 0 || tap_diag "$(tail -n 3 "$work/unpack.log")"
	ko=$rootfs/opt/lib/modules/$k/iterkit.ko

	# -- the module in it: this kernel's, signed, with its BTF --
	tap_eq "$k: the module's vermagic is the kernel's" "$(modinfo -F vermagic "$ko" 2>&1 | cut -d' ' -f1)" "$k"
	tap_eq "$k: the module is signed with the project's key" "$(modinfo -F signer "$ko" 2>&1)" \
		"$(openssl x509 -in "$cert" -noout -subject -nameopt multiline | sed -n 's/^ *commonName *= //p')"
	out=$(ko_sig_verify "$ko" "$cert")
	tap_eq "$k: its signature verifies against the certificate" "$?" 0 || tap_diag "$out"

	# -- the KMM worker's steps, replayed in a VM of this kernel --
	[ -f "$cache/vmlinuz-$k" ] || { tap_fail "$k: no kernel image $cache/vmlinuz-$k for the VM"; continue; }
	sysenv=()
	# An arm64 guest's busybox comes from the sysroot the image's loader
	# was built against (make kmod-image prepared it).
	[ "$arch" = amd64 ] ||
		sysenv=(ITERKIT_SYSROOT="$(scripts/sysroot.sh path "$(sysroot_of "$k" "$(suite_root "$suite")")")")
	out=$(env KVER="$k" "${sysenv[@]}" tests/vm/run --ko "$ko" --loader /dev/null --tests /nonexistent \
		--kernel "$cache/vmlinuz-$k" --add "$rootfs:/kmod" --timeout 900 -- "
		set -e
		img=/kmod
		mkdir -p \$img/proc \$img/sys \$img/dev \$img/tmp \$img/boot
		mount -t proc proc \$img/proc
		mount -o rbind /sys \$img/sys
		mount -o bind /dev \$img/dev
		cp /boot/config-$k \$img/boot/ 2> /dev/null || true
		chroot \$img /bin/sh -c 'mkdir -p /tmp/opt/lib/modules && cp -R /opt/lib/modules/$k /tmp/opt/lib/modules/'
		echo '== load'
		chroot \$img /sbin/modprobe -vd /tmp/opt iterkit
		echo \"== loaded: \$(grep -c '^iterkit ' /proc/modules)\"
		echo '== demo'
		chroot \$img /usr/sbin/iterkit demo
		echo '== unload'
		# The demo's programs drop their hold on the module after an RCU
		# grace period: a worker unloads once nothing uses it.
		i=0
		while [ \"\$(cat /sys/module/iterkit/refcnt)\" != 0 ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
		chroot \$img /sbin/modprobe -rvd /tmp/opt iterkit
		echo \"== loaded after unload: \$(grep -c '^iterkit ' /proc/modules)\"
	" 2>&1)
	rc=$?
	tap_eq "$k: the worker replay in the VM exits 0" "$rc" 0 || tap_diag "$(tail -n 20 <<<"$out")"
	tap_contains "$k: modprobe -vd /tmp/opt inserts the image's module" "$out" "insmod /tmp/opt/lib/modules/$k/iterkit.ko"
	tap_contains "$k: the module is then loaded" "$out" "== loaded: 1"
	tap_contains "$k: the image's iterkit demo passes kit_num" "$out" "PASS kit_num"
	tap_contains "$k: the image's iterkit demo passes kit_task" "$out" "PASS kit_task"
	tap_contains "$k: modprobe -rvd removes it" "$out" "rmmod iterkit"
	tap_contains "$k: the module is gone after" "$out" "== loaded after unload: 0"
done
tap_done
