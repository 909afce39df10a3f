#!/usr/bin/env bash
# The unit suites (no root, no BPF: everything but the *_live suites, the
# root-only path tests and the bench smoke test) built with AddressSanitizer
# and UndefinedBehaviorSanitizer (make unit-asan; .ci/run).  Leak detection
# is off: Criterion's runner and the tests' fixtures keep what they
# allocate until exit; a memory error or undefined behaviour fails the run.
# verdict_deadlock/linear_time_on_a_big_table is left to the normal build:
# it asserts a wall-clock bound (1 s for 200,000 threads) that the
# sanitizers' 3-5x slowdown would break; its memory is checked by the other
# verdict tests.  The unwind suite is too: it unwinds threads blocked in
# libc's read(), which ASan replaces with its own interceptor, so the frames
# it expects are not there.
set -uo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec build/asan/run-tests --jobs 1 --short-filename \
	--filter '!(*_live/*|bench_smoke/*|sec_paths/*|unwind/*|verdict_deadlock/linear_time_on_a_big_table)' "$@"
