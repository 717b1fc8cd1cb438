#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds (once) and caches a bootable Debian disk image for `make system-test`:
#
#   tests/system/image.sh RELEASE       prints the image's directory
#   tests/system/image.sh --key RELEASE prints its cache key only
#
# RELEASE is bookworm (Debian 12) or trixie (Debian 13). The image is a raw
# GPT disk: an EFI system partition with Debian's signed shim and grub (as
# \EFI\BOOT\BOOTX64.EFI, the path firmware boots without boot entries) and
# an ext4 root made by mmdebstrap, with systemd, the release's stock signed
# kernel and its headers (bookworm: the generic flavour servers and desktops
# run; trixie: the cloud flavour), grub-efi (update-grub runs in the guest on
# kernel installs), mokutil, and the test agent (tests/system/agent) on the
# second serial port. No loop device: `mkfs.ext4 -d`, `mkfs.vfat -C` +
# mtools, sfdisk on a plain file.
#
# The guest has no network, so everything a story installs with apt is
# downloaded into the image's apt cache, with the package lists, while it
# is built: the packages iterkit's .debs depend on (from debian/control)
# and the newer kernel's image and headers from the release's backports.
#
# Cache: $ITERKIT_CACHE/system/RELEASE-KEY/disk.img, KEY a hash of this
# recipe (this file, the agent, the dependency lines of debian/control and
# the mirror), so a changed recipe can never boot a stale image. Built
# under a lock; downloads are kept in $ITERKIT_CACHE/system/debs/ for the
# next build.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${ITERKIT_CACHE:-/var/cache/iterkit}
MIRROR=${ITERKIT_MIRROR:-http://deb.debian.org/debian}

key_only=
offline_root=
case ${1:-} in
--key) key_only=1; shift ;;
--offline) offline_root=$2; shift 2 ;;
esac
rel=${1:?usage: image.sh [--key] bookworm|trixie}

# What iterkit's packages depend on, as debian/control declares it (the
# substitution variables aside; of alternatives the first, which apt
# picks), and what its loader links.
iterkit_deps() {
	sed -n '/^Depends:/{s/^Depends://;s/\${[^}]*}//g;s/([^)]*)//g;s/|[^,]*//g;s/,/ /g;p}' "$top/debian/control" |
		tr ' ' '\n' | grep -v '^$' | sort -u | tr '\n' ' '
	echo "dkms libelf1 zlib1g libzstd1"
}

case $rel in
bookworm)
	# Stock bookworm and its backports only (no -updates or -security):
	# the kernels are then exactly the stock 6.1 and backports' 6.12.
	sources=("deb $MIRROR bookworm main" "deb $MIRROR bookworm-backports main")
	backports=bookworm-backports
	flavour=amd64
	;;
trixie)
	sources=("deb $MIRROR trixie main" "deb $MIRROR trixie-backports main")
	backports=trixie-backports
	flavour=cloud-amd64
	;;
*) echo "image.sh: unknown release '$rel' (bookworm, trixie)" >&2; exit 2 ;;
esac

# Installed in the image: a booted Debian system with the stock kernel of
# its flavour and its headers (a DKMS user has them), the Secure Boot chain, and what
# the test itself uses in the guest (binutils: readelf on the installed
# module; openssl: a key of another signer; curl: README's commands that add
# the repository; busybox: its httpd serves the repository on 127.0.0.1).
base_pkgs="systemd-sysv udev kmod apt initramfs-tools e2fsprogs dosfstools procps
	linux-image-$flavour linux-headers-$flavour
	grub-efi-amd64 grub-efi-amd64-signed shim-signed mokutil
	xz-utils zstd binutils openssl curl busybox"
# Downloaded only: what the guest's apt installs offline.
offline_pkgs="$(iterkit_deps)"
offline_kernel="linux-image-$flavour linux-headers-$flavour"

# What the guest's two apt commands will fetch, downloaded into the root's
# /var/cache/iterkit-offline: the story is played in a throw-away overlay of
# the root (iterkit's dependencies installed, without recommends as the
# guest's apt is set up, then the backports kernel resolved against that),
# so the downloads are what the guest's own apt asks for, no more, no less.
if [ -n "$offline_root" ]; then
	offline=$CACHE/system/debs/$rel-offline
	ov=$(mktemp -d "$CACHE/system/.offline-$rel.XXXXXX")
	# shellcheck disable=SC2016
	unshare --mount --propagation private -- bash -euc '
		r=$1 ov=$2 bpo=$3 deps=$4 kernel=$5 cache=$6
		mkdir -p "$ov"/upper "$ov"/work "$ov"/m
		mount -t overlay overlay -o "lowerdir=$r,upperdir=$ov/upper,workdir=$ov/work" "$ov/m"
		mount -t proc proc "$ov/m/proc"
		mount --rbind /dev "$ov/m/dev"
		mount -t tmpfs tmpfs "$ov/m/tmp"
		mount --bind "$r/var/cache/iterkit-offline" "$ov/m/var/cache/iterkit-offline"
		apt=(chroot "$ov/m" env DEBIAN_FRONTEND=noninteractive apt-get -q -y
			-o Dir::Cache::archives=/var/cache/iterkit-offline -o APT::Install-Recommends=false)
		# What an earlier build downloaded is reused (apt checks its hash).
		fetch() {
			"${apt[@]}" --print-uris "$@" | sed -n "s/^.[^ ]* \([^ ]*\.deb\) .*/\1/p" |
				while read -r f; do
					[ ! -f "$cache/$f" ] || cp "$cache/$f" "$r/var/cache/iterkit-offline/"
				done
			"${apt[@]}" "$@"
		}
		fetch install $deps
		fetch install --download-only -t "$bpo" $kernel
	' _ "$offline_root" "$ov" "$backports" "$offline_pkgs" "$offline_kernel" "$offline" >&2
	rc=$?
	rm -rf --one-file-system "$ov"
	exit $rc
fi

key=$(
	{
		cat "$0" "$top/tests/system/agent" "$top/tests/system/iterkit-agent.service"
		echo "$rel $MIRROR ${sources[*]} $offline_pkgs $flavour"
	} | sha256sum | cut -c1-16
)
if [ -n "$key_only" ]; then
	echo "$rel-$key"
	exit 0
fi
dir=$CACHE/system/$rel-$key
[ -f "$dir/disk.img" ] && [ -f "$dir/info" ] && { echo "$dir"; exit 0; }

mkdir -p "$CACHE/system"
exec 9> "$CACHE/system/.lock-$rel"
flock 9
[ -f "$dir/disk.img" ] && [ -f "$dir/info" ] && { echo "$dir"; exit 0; }
# unmount_under DIR: every mount under DIR, deepest first (none is fine).
unmount_under() {
	local m
	for m in $(awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
		umount -l "$m"
	done
}
# Holding the lock, any other build of this release is one that was killed:
# its mounts and files go.
for old in "$CACHE/system/.build-$rel."* "$CACHE/system/.offline-$rel."* "$CACHE/system/$rel-"*.new; do
	[ -d "$old" ] || continue
	unmount_under "$old"
	rm -rf --one-file-system "$old"
done

log() { echo "image.sh: $rel: $*" >&2; }
t0=$SECONDS
work=$(mktemp -d "$CACHE/system/.build-$rel.XXXXXX")
# mmdebstrap mounts /proc, /sys and /dev in the root while it works: never
# remove through a mount that an interrupted build left behind.
cleanup() {
	unmount_under "$work"
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
root=$work/root
debs=$CACHE/system/debs/$rel
offline=$CACHE/system/debs/$rel-offline
mkdir -p "$debs" "$offline"

root_uuid=$(cat /proc/sys/kernel/random/uuid)
esp_id=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ' | tr a-f A-F)
esp_uuid=${esp_id:0:4}-${esp_id:4:4}
cmdline="console=ttyS0,115200n8 systemd.firstboot=off"

log "mmdebstrap (downloads kept in $debs)"
# shellcheck disable=SC2086
mmdebstrap --quiet --mode=root --variant=apt \
	--include="$(echo $base_pkgs | tr ' ' ,)" \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--skip=essential/unlink --skip=cleanup/apt --skip=cleanup/reproducible \
	--setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
	--setup-hook="sync-in $debs /var/cache/apt/archives/" \
	--customize-hook="sync-out /var/cache/apt/archives $debs" \
	--customize-hook='chroot "$1" apt-get clean' \
	--customize-hook='rm -f "$1"/etc/apt/apt.conf.d/99mmdebstrap' \
	--customize-hook="mkdir -p \"\$1\"/var/cache/iterkit-offline/partial" \
	--customize-hook="$top/tests/system/image.sh --offline \"\$1\" $rel" \
	--customize-hook="sync-out /var/cache/iterkit-offline $offline" \
	--customize-hook='mv "$1"/var/cache/iterkit-offline/*.deb "$1"/var/cache/apt/archives/ && rm -rf "$1"/var/cache/iterkit-offline' \
	"$rel" "$root" "${sources[@]}" >&2

log "configuring the system"
echo "iterkit-$rel" > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 iterkit-%s\n' "$rel" > "$root/etc/hosts"
# A fixed machine id: no first-boot setup on each story's first boot.
printf '%s\n' "$(echo "$rel-$key" | md5sum | cut -c1-32)" > "$root/etc/machine-id"
cat > "$root/etc/fstab" <<EOF
UUID=$root_uuid / ext4 errors=remount-ro 0 1
UUID=$esp_uuid /boot/efi vfat umask=0077 0 1
EOF
mkdir -p "$root/boot/efi"
# apt installs Depends only, as on minimal and container-built systems: the
# stories then prove that iterkit's own Depends are enough, and the guest
# does not unpack, under emulation, what dkms and the kernels merely
# recommend (the generic flavour's headers and image, a second DKMS build
# and initramfs per kernel, g++, gnupg, apparmor).
echo 'APT::Install-Recommends "false";' > "$root/etc/apt/apt.conf.d/50no-recommends"
# The initramfs of a kernel installed in the guest holds the drivers of the
# disk it boots from (MODULES=dep, initramfs-tools' setting for a machine
# that knows its hardware) rather than most of the kernel's: minutes less
# per kernel under emulation. iterkit is not in any initramfs: the iterkit
# package's modules-load.d entry loads it from the root file system. (The
# stock kernel's initramfs was made in the chroot, where dep cannot work.)
echo 'MODULES=dep' > "$root/etc/initramfs-tools/conf.d/modules-dep.conf"
# No network, no background apt or dpkg: nothing competes with the story
# for dpkg's lock or the two emulated CPUs.
for t in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer man-db.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$t"
done
install -m 0755 "$top/tests/system/agent" "$root/usr/local/sbin/iterkit-agent"
install -m 0644 "$top/tests/system/iterkit-agent.service" "$root/etc/systemd/system/iterkit-agent.service"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/iterkit-agent.service "$root/etc/systemd/system/multi-user.target.wants/"
# root logs in on the console without a password (debugging a story);
# Debian 13's minimal root has no passwd package to do it with.
sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow" 2> /dev/null ||
	sed -i 's/^root:[^:]*:/root::/' "$root/etc/passwd"

# grub: the menu on the serial console, no wait. The first grub.cfg is
# written here (grub-mkconfig needs the root device, which a chroot does
# not have); update-grub rewrites it in the guest on every kernel install.
sed -i -e 's/^GRUB_TIMEOUT=.*/GRUB_TIMEOUT=0/' \
	-e "s/^GRUB_CMDLINE_LINUX_DEFAULT=.*/GRUB_CMDLINE_LINUX_DEFAULT=\"$cmdline\"/" "$root/etc/default/grub"
echo 'GRUB_DISABLE_OS_PROBER=true' >> "$root/etc/default/grub"
kver=$(basename "$(ls -d "$root"/lib/modules/* | sort -V | tail -n 1)")
[ -f "$root/boot/vmlinuz-$kver" ] && [ -f "$root/boot/initrd.img-$kver" ] ||
	{ log "no /boot/vmlinuz-$kver or initrd.img-$kver in the root"; exit 1; }
cat > "$root/boot/grub/grub.cfg" <<EOF
set timeout=0
menuentry 'Debian GNU/Linux, with Linux $kver' {
	search --no-floppy --fs-uuid --set=root $root_uuid
	linux /boot/vmlinuz-$kver root=UUID=$root_uuid ro $cmdline
	initrd /boot/initrd.img-$kver
}
EOF

# The EFI system partition: shim (signed by Microsoft), which loads grub
# (signed by Debian) beside it, which reads the root's /boot/grub/grub.cfg.
shim=$root/usr/lib/shim/shimx64.efi.signed
[ -f "$shim" ] || shim=$root/usr/lib/shim/shimx64.efi.signed.latest
mm=$root/usr/lib/shim/mmx64.efi.signed
grub=$root/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed
for f in "$shim" "$mm" "$grub"; do [ -f "$f" ] || { log "missing $f"; exit 1; }; done
cat > "$work/grub-esp.cfg" <<EOF
search --no-floppy --fs-uuid --set=root $root_uuid
set prefix=(\$root)/boot/grub
configfile \$prefix/grub.cfg
EOF
esp=$work/esp.img
esp_mib=64
mkfs.vfat -C -F 32 -n ESP -i "$esp_id" "$esp" $((esp_mib * 1024)) > /dev/null
mmd -i "$esp" ::/EFI ::/EFI/BOOT
mcopy -i "$esp" "$shim" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$esp" "$mm" ::/EFI/BOOT/mmx64.efi
mcopy -i "$esp" "$grub" ::/EFI/BOOT/grubx64.efi
mcopy -i "$esp" "$work/grub-esp.cfg" ::/EFI/BOOT/grub.cfg

# The root file system: what the image holds plus room for a second kernel,
# its headers and the module builds. Features grub 2.06 (bookworm) reads.
log "mkfs.ext4 -d"
root_mib=6144
rootimg=$work/root.img
mkfs.ext4 -q -F -d "$root" -U "$root_uuid" -L root -O ^metadata_csum_seed,^orphan_file \
	-E root_owner=0:0 "$rootimg" "${root_mib}M"

# GPT: 1 MiB, the ESP, the root, 1 MiB for the backup table.
disk=$work/disk.img
truncate -s $((1 + esp_mib + root_mib + 1))M "$disk"
sfdisk -q "$disk" <<EOF
label: gpt
unit: sectors
start=2048, size=$((esp_mib * 2048)), type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="EFI system partition"
start=$(((1 + esp_mib) * 2048)), size=$((root_mib * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="root"
EOF
dd if="$esp" of="$disk" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$rootimg" of="$disk" bs=1M seek=$((1 + esp_mib)) conv=notrunc,sparse status=none

mkdir -p "$dir.new"
mv "$disk" "$dir.new/disk.img"
{
	echo "release=$rel"
	echo "key=$key"
	echo "kernel=$kver"
	echo "root_uuid=$root_uuid"
	echo "built=$(date -u +%FT%TZ)"
	echo "build_seconds=$((SECONDS - t0))"
	echo "dkms=$(cd "$root"/var/cache/apt/archives && ls dkms_*.deb 2>/dev/null)"
	echo "offline_debs=$(ls "$root"/var/cache/apt/archives/*.deb | wc -l)"
} > "$dir.new/info"
rm -rf "$dir"
mv "$dir.new" "$dir"
log "built in $((SECONDS - t0)) s: $dir"
echo "$dir"
