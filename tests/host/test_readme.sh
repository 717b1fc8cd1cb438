#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# README.md as a new user reads it: its first screen names the two commands
# that set everything up (make demo, make check); it stays short; every
# message it quotes (the indented lines after "<!-- messages -->") is one
# the code prints, so that none can drift from it; and its quick start
# (the block after "<!-- vm: quick start -->") runs as written, as root, in
# the VM: the tree is built already, so `make` is left out, and the paths
# are the VM's.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh

readme=${README:-README.md}
first_screen=$(head -n 24 "$readme")
tap_contains "README's first screen: make demo" "$first_screen" $'\nmake demo '
tap_contains "README's first screen: make check" "$first_screen" $'\nmake check '
lines=$(wc -l < "$readme")
tap_check "README is at most 250 lines ($lines)" test "$lines" -le 250

# The quoted messages, one per line.
awk '/^<!-- messages -->$/ { on = 1; next } on && /^    / { print substr($0, 5); next } { on = 0 }' \
	"$readme" > build/readme-messages.txt
tap_check "README quotes messages ($(wc -l < build/readme-messages.txt))" test -s build/readme-messages.txt

# Every string literal of the code that prints them: C (adjacent literals
# joined, escapes undone) and shell ("..." on one line). Each becomes a
# pattern in which printf conversions and shell expansions stand for any
# text. A quoted line must be one or two such literals in a row, after at
# most two "word: " prefixes (the loader's "iterkit: tasks: ", status's
# "module:   "). Literals with fewer than 15 fixed characters are left out:
# they would match anything.
perl -e '
use strict; use warnings;
my (@lits, %macro, %src);
for my $f (@ARGV) {
	open(my $fh, "<", $f) or die "$f: $!";
	local $/; $src{$f} = <$fh>;
	$macro{$1} = $2 while $f =~ /\.[ch]$/ && $src{$f} =~ /^#define\s+([A-Z_][A-Z0-9_]*)\s+"([^"\\\n]*)"\s*$/mg;
}
for my $f (@ARGV) {
	my $src = $src{$f};
	if ($f =~ /\.h$/) {
		next;
	} elsif ($f =~ /\.c$/) {
		# A run of literals, and of macros that stand for one, as the compiler joins them.
		while ($src =~ /((?:"(?:[^"\\\n]|\\.)*"\s*(?:[A-Z_][A-Z0-9_]*\s*(?="))?)+)/g) {
			my $run = $1; my $s = "";
			while ($run =~ /"((?:[^"\\\n]|\\.)*)"|([A-Z_][A-Z0-9_]*)/g) {
				$s .= defined $1 ? $1 : ($macro{$2} // "%s");
			}
			$s =~ s/\\n//g; $s =~ s/\\(["\\])/$1/g;
			push @lits, [$s, "c"];
		}
	} else {
		push @lits, [$1, "sh"] while $src =~ /"((?:[^"\\\n]|\\.)*)"/g;
	}
}
my @pats;
for (@lits) {
	my ($s, $kind) = @$_;
	my $hole = $kind eq "c" ? qr/%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|j|t)?[diouxXcsp]/
				: qr/\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*/;
	my @parts = split /($hole)/, $s;
	my ($re, $fixed, $longest) = ("", 0, "");
	for my $p (@parts) {
		if ($p =~ /^$hole$/) { $re .= ".+?"; next }
		$p =~ s/%%/%/g if $kind eq "c";
		$fixed += length $p;
		$longest = $p if length $p > length $longest;
		$re .= quotemeta $p;
	}
	push @pats, [$re, $longest] if $fixed >= 15;
}
open(my $in, "<", "build/readme-messages.txt") or die;
while (my $line = <$in>) {
	chomp $line;
	my @cand = grep { index($line, $_->[1]) >= 0 } @pats;
	my $ok = 0;
	PAIR: for my $a (@cand) {
		for my $b (undef, @cand) {
			my $re = "^(?:[a-z][a-z-]*:\\s+){0,2}" . $a->[0] . (defined $b ? $b->[0] : "") . "\$";
			if ($line =~ /$re/) { $ok = 1; last PAIR }
		}
	}
	print $ok ? "ok" : "missing", "\t$line\n";
}' module/*.[ch] userspace/*.[ch] scripts/*.sh examples/*/*.c > build/readme-messages.checked
while IFS=$'\t' read -r verdict msg; do
	if [ "$verdict" = ok ]; then
		tap_ok "README's message is the code's: ${msg:0:90}"
	else
		tap_fail "README's message is the code's: ${msg:0:90}"
		tap_diag "no string of module/, userspace/, scripts/ or examples/ prints: $msg"
	fi
done < build/readme-messages.checked

# The quick start, in the VM.
quick=$(awk '/^<!-- vm: quick start -->$/ { f = 1; next } f && /^```sh$/ { on = 1; next }
	on && /^```$/ { exit } on { print }' "$readme")
tap_check "README has its quick start" test -n "$quick"
script=$(printf '%s\n' "$quick" | sed -e 's/[[:space:]]*#.*//' -e '/^make\( \|$\)/d' -e 's/^sudo //' \
	-e 's|module/iterkit\.ko|/iterkit/iterkit.ko|' -e 's|\./iterkit|iterkit|')
out=$(tests/vm/run --timeout 600 -- "set -e
$(printf '%s\n' "$script" | sed 's/.*/echo "# \$ &"; &/')
echo quick-start-done" 2>&1)
rc=$?
tap_eq "README's quick start runs in the VM, every command exits 0" "$rc/$(grep -c '^quick-start-done' <<<"$out")" "0/1" ||
	tap_diag "$(tail -n 30 <<<"$out")"
tap_contains "... iterkit status finds the module loaded" "$out" "module:        loaded"
demo=$(sed -n '/^# \$ iterkit demo$/,/^# \$ /p' <<<"$out")
tap_check "... iterkit demo: PASS lines and no FAIL" sh -c "grep -q '^PASS ' <<'EOF'
$demo
EOF
! grep -q '^FAIL ' <<'EOF'
$demo
EOF"
tap_done
