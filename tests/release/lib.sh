# SPDX-License-Identifier: GPL-2.0
# Releases for the tests (tests/release/run, and the repository stories of
# tests/system/run): made with `make release` in fresh clones of the commit
# under test, signed with a throw-away key, kept in build/release-test/.
#
#   rel_prepare        $REL_DIR, $REL_REV (the commit: HEAD, or HEAD with
#                      the work tree's changes to tracked files), the keys
#                      ($GNUPGHOME, $REL_FPR; $REL_OTHER_FPR signs nothing
#                      a user trusts; MODULE_SIGNING_KEY and _CERT, the
#                      prebuilt modules' pair)
#   rel_build NAME REV UMASK LOCALE TZ
#                      make release in $REL_DIR/NAME (log: NAME.log)
#   rel_build_next     release B in $REL_DIR/b: the next patch version
#                      ($REL_NEXT), committed, with PREVIOUS=A
#   rel_built          marks A and B as those of $REL_REV
#   rel_ensure         A and B, built unless those of this commit are there
#   rel_dnf_check DIR  dnf in the Fedora-like root reads DIR's repository
REL_DIR=$top/build/release-test

rel_prepare() {
	mkdir -p "$REL_DIR"
	REL_REV=$(git stash create 2> /dev/null)
	REL_REV=${REL_REV:-$(git rev-parse HEAD)}
	# Not directly under build/*/: gpg's *.d directories would look like make's dependency files there.
	export GNUPGHOME=$REL_DIR/keys/gnupg
	if ! gpg --batch --list-secret-keys release@iterkit.invalid > /dev/null 2>&1; then
		rm -rf "$GNUPGHOME"
		mkdir -m 700 -p "$GNUPGHOME"
		gpg --batch --quiet --passphrase '' --quick-gen-key 'iterkit test release <release@iterkit.invalid>' \
			rsa3072 sign 30d 2> "$REL_DIR/gpg.log" &&
			gpg --batch --quiet --passphrase '' --quick-gen-key 'someone else <other@iterkit.invalid>' \
				rsa3072 sign 30d 2>> "$REL_DIR/gpg.log" || return 1
	fi
	# The pair that signs the prebuilt modules, one for every release here.
	export MODULE_SIGNING_KEY=$REL_DIR/keys/module/signing_key.pem
	export MODULE_SIGNING_CERT=$REL_DIR/keys/module/signing_key.x509.pem
	if [ ! -f "$MODULE_SIGNING_KEY" ] || [ ! -f "$MODULE_SIGNING_CERT" ]; then
		mkdir -p "$REL_DIR/keys/module"
		openssl req -new -x509 -newkey rsa:3072 -nodes -utf8 -sha256 -days 30 -batch \
			-subj "/CN=iterkit test release module signing key/" \
			-addext "basicConstraints=critical,CA:FALSE" -addext "extendedKeyUsage=codeSigning" \
			-keyout "$MODULE_SIGNING_KEY" -out "$MODULE_SIGNING_CERT" 2>> "$REL_DIR/gpg.log" || return 1
	fi
	REL_FPR=$(gpg --batch --with-colons --list-secret-keys release@iterkit.invalid | awk -F: '$1 == "fpr" { print $10; exit }')
	REL_OTHER_FPR=$(gpg --batch --with-colons --list-secret-keys other@iterkit.invalid | awk -F: '$1 == "fpr" { print $10; exit }')
	[ -n "$REL_FPR" ] && [ -n "$REL_OTHER_FPR" ]
}

# rel_clone DIR REV: a clone of this repository at REV (which may be a
# commit only this repository's objects hold: the clone shares them).
rel_clone() {
	rm -rf "$1"
	mkdir -p "$(dirname "$1")"
	git clone -q --shared "$top" "$1" && git -C "$1" checkout -q "$2"
}

rel_build() {	# rel_build NAME REV UMASK LOCALE TZ
	local d=$REL_DIR/$1
	mkdir -p "$(dirname "$d")"
	rel_clone "$d" "$2" > "$d.log" 2>&1 || return 1
	(cd "$d" && umask "$3" && LC_ALL=$4 TZ=$5 make release SIGNING_KEY="$REL_FPR") >> "$d.log" 2>&1
}

rel_build_next() {
	local d=$REL_DIR/b cur
	cur=$(git -C "$REL_DIR/a" show HEAD:VERSION)
	REL_NEXT=${cur%.*}.$((${cur##*.} + 1))
	{
		rel_clone "$d" "$(git -C "$REL_DIR/a" rev-parse HEAD)" &&
			(cd "$d" && scripts/new-version.sh "$REL_NEXT" "Patch release (made by the release test)." &&
				git -c user.name=iterkit -c user.email=iterkit@users.noreply.github.com \
					commit -q -am "iterkit $REL_NEXT")
	} > "$d.log" 2>&1 || return 1
	(cd "$d" && make release SIGNING_KEY="$REL_FPR" PREVIOUS="$REL_DIR/a/build/release") >> "$d.log" 2>&1
}

# rel_built: A and B of $REL_REV are in place (rel_ensure reuses them).
rel_built() {
	echo "$REL_REV $REL_FPR" > "$REL_DIR/.built"
}

rel_ensure() {
	rel_prepare || return 1
	local stamp="$REL_REV $REL_FPR"
	if [ "$(cat "$REL_DIR/.built" 2> /dev/null)" = "$stamp" ] &&
		[ -f "$REL_DIR/a/build/release/SHA256SUMS" ] && [ -f "$REL_DIR/b/build/release/SHA256SUMS" ]; then
		REL_NEXT=$(cat "$REL_DIR/b/VERSION")
		return 0
	fi
	rm -f "$REL_DIR/.built"
	rel_build a "$REL_REV" 022 C.UTF-8 UTC || return 1
	rel_build_next || return 1
	rel_built
}

rel_dnf_check() {	# rel_dnf_check RELEASE_DIR
	local r=$1 ov out
	local why
	why=$(pkg_step "dnf in the trixie root" scripts/buildroot.sh install trixie dnf) ||
		{ tap_fail "dnf installed in the trixie root: $why"; return 1; }
	ov=$(overlay_new release-dnf)
	fedora_like trixie "$ov"
	in_root trixie "$ov" sh -c "mkdir -p /etc/yum.repos.d
		sed 's|^baseurl=.*|baseurl=file://$r/rpm|; s|^gpgkey=.*|gpgkey=file://$r/iterkit-archive-keyring.asc|' \
			$r/rpm/iterkit.repo > /etc/yum.repos.d/iterkit.repo"
	out=$(in_root trixie "$ov" dnf -y -q --releasever=42 --disablerepo='*' --enablerepo=iterkit \
		repoquery --qf '%{name}-%{version}-%{release}.%{arch}' 2>&1)
	tap_eq "dnf repoquery (Fedora-like root, repo_gpgcheck=1): the repository's 8 packages" \
		"$(printf '%s\n' "$out" | grep -c '^iterkit')" 8 || tap_diag "$out"
	tap_contains "... iterkit-dkms of both versions" "$out" "iterkit-dkms-$REL_NEXT-1.noarch"
	# The same repository with repomd.xml changed after it was signed.
	out=$(in_root trixie "$ov" sh -c "cp -r $r/rpm /tmp/bad && dnf clean all -q && sed -i 's/<revision>/<revision>1/' /tmp/bad/repodata/repomd.xml;
		sed -i 's|^baseurl=.*|baseurl=file:///tmp/bad|' /etc/yum.repos.d/iterkit.repo;
		dnf -y --releasever=42 --disablerepo='*' --enablerepo=iterkit repoquery iterkit-dkms" 2>&1)
	tap_contains "dnf refuses the repository whose repomd.xml was changed after signing" \
		"$out" "repomd.xml GPG signature verification error: Bad GPG signature"
	tap_eq "... and lists none of its packages" "$(printf '%s\n' "$out" | grep -c '^iterkit-dkms')" 0 || tap_diag "$out"
	rm -rf "$ov"
}
