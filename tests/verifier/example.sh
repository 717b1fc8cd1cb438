#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prints the code block that follows "<!-- test: NAME -->" in the given
# Markdown files, so the verifier tests compile the documentation's examples
# exactly as a reader sees them. Fails when there is no such block.
#   tests/verifier/example.sh NAME FILE.md...
name=$1
shift
awk -v marker="<!-- test: $name -->" '
	done { next }
	$0 == marker { armed = 1; next }
	armed && !inblock && /^```/ { inblock = 1; next }
	armed && inblock && /^```/ { done = 1; next }
	armed && inblock { print }
	armed && !inblock && !/^[[:space:]]*$/ { armed = 0 }
	END { if (!done) { print "example.sh: no block marked \"" marker "\"" > "/dev/stderr"; exit 1 } }
' "$@"
