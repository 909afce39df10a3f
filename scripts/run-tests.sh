#!/usr/bin/env bash
# Runs every test: the Criterion binary holds the unit tests (no root) and
# the integration tests (root: real BPF against bundled workloads; without
# root they are skipped, each saying why).  One job at a time: the
# integration tests start processes and measure exact counts, and this
# machine has two cores.  Ends with Criterion's summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "run-tests: not root: the BPF integration tests will be skipped (run as root for all)" >&2
fi
exec build/tests/run-tests --jobs 1 --short-filename "$@"
