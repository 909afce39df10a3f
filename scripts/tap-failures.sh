#!/usr/bin/env bash
# Prints the failed tests of a Criterion TAP report (run-tests --tap=FILE):
# each "not ok" line and the indented message lines under it, so that the
# end of a long test run's output says which tests failed and why (a CI
# log is often read from its end only).  Used by run-tests.sh and
# run-live-asan.sh.  Usage: scripts/tap-failures.sh TAPFILE [WHO]
tap=${1:?usage: tap-failures.sh TAPFILE [WHO]}
who=${2:-run-tests}
[ -s "$tap" ] || exit 0
n=$(grep -c '^not ok' "$tap" || true)
[ "$n" -gt 0 ] || exit 0
echo "$who: $n test(s) failed (Criterion's TAP report):"
awk '/^not ok/ { keep = 1; print; next } keep && /^[ \t]/ { print; next } { keep = 0 }' "$tap"
