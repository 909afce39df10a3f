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
[ "$status" -ne 0 ] && scripts/tap-failures.sh "$tap" run-tests
# The skips, counted by reason, so that a green run says what it did not
# check; "test was skipped" is Criterion's word for a test the filter left out.
if [ -s "$tap" ]; then
	skips=$(grep -E '^ok .* # SKIP ' "$tap" | grep -v '# SKIP test was skipped$' | sed 's/.* # SKIP //')
	if [ -n "$skips" ]; then
		echo "run-tests: $(printf '%s\n' "$skips" | wc -l) test(s) skipped, by reason:"
		printf '%s\n' "$skips" | sort | uniq -c | sort -rn | sed 's/^/run-tests:   /'
	fi
	noroot=$(printf '%s\n' "$skips" | grep -c '^needs root' || true)
	if [ "$noroot" -gt 0 ]; then
		echo "run-tests: *** NOT ROOT: $noroot live test(s) did NOT run: they load BPF and read other"
		echo "run-tests: *** processes' memory; run make test as root to check what they hold ***"
	fi
fi
exit "$status"
