#!/usr/bin/env bash
# Runs every test: the Criterion binary holds the unit tests (no root) and
# the integration tests (root: real BPF against bundled workloads; without
# root they are skipped, each saying why).  One job at a time: the
# integration tests start processes and measure exact counts, and this
# machine has two cores.  Ends with Criterion's summary line; when a test
# failed, the failed tests and their messages follow it, so that the end of
# a long log (all a CI page may keep) says what failed.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "run-tests: not root: the BPF integration tests will be skipped (run as root for all)" >&2
fi
tap=$(mktemp "${TMPDIR:-/tmp}/locktrace-tap.XXXXXX")
trap 'rm -f "$tap"' EXIT
build/tests/run-tests --jobs 1 --short-filename --tap="$tap" "$@"
status=$?
if [ "$status" -ne 0 ] && [ -s "$tap" ]; then
	echo "run-tests: failed (Criterion's TAP report):"
	# "not ok" lines and the indented message lines under each
	awk '/^not ok/ { keep = 1; print; next } keep && /^[ \t]/ { print; next } { keep = 0 }' "$tap"
fi
exit "$status"
