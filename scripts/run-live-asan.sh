#!/usr/bin/env bash
# The live suites (root, real BPF) with the locktrace CLI built with
# AddressSanitizer and UndefinedBehaviorSanitizer (make live-asan): every
# `locktrace` the tests start is build/asan/locktrace; the tests, the
# workloads and the in-process library calls are the normal build.  Not
# part of make test (it would double its time; .ci/run runs it after make
# test); run it as root, after `make all build/tests/run-tests
# build/asan/locktrace` (make live-asan builds them first).
#
# The tests name the CLI as build/locktrace (relative to the checkout), so
# the run happens in a shadow tree under /tmp: the checkout's entries as
# symlinks, build/ a folder of symlinks to build/'s entries but with
# build/locktrace -> build/asan/locktrace, and next to the tree a link to
# the checkout's ../shared (the tests find the OCaml 5 compilers and
# trace_processor in ../shared/tools: without it they would skip).
# Sanitizer reports also go to files (log_path): a report fails the run
# even where a test accepts a failing CLI (bad input, a refused output),
# and each is printed.
#
# Left out: install_live (it runs make install / make deb, which would
# rebuild build/locktrace in the shadow tree) and bench_smoke (timings of
# the normal build).  Extra arguments go to run-tests (e.g. --filter
# 'record_live/*' to run one suite; the default filter is every live suite
# and sec_paths).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
if [ "$(id -u)" != 0 ]; then
	echo "run-live-asan.sh: the live suites need root (BPF programs, other processes' memory): run it as root" >&2
	exit 2
fi
for f in build/asan/locktrace build/tests/run-tests build/locktrace; do
	if [ ! -x "$f" ]; then
		echo "run-live-asan.sh: $f is not built: make all build/tests/run-tests build/asan/locktrace (or make live-asan)" >&2
		exit 2
	fi
done
base=$(mktemp -d /tmp/lt-live-asan.XXXXXX) || exit 1
trap 'rm -rf "$base"' EXIT
shadow=$base/tree
mkdir "$shadow" || exit 1
if [ -d "$top/../shared" ]; then
	ln -s "$(cd "$top/../shared" && pwd)" "$base/shared"
fi
for e in "$top"/* "$top"/.[!.]*; do
	[ -e "$e" ] || continue
	name=$(basename "$e")
	[ "$name" = build ] || [ "$name" = .git ] && continue
	ln -s "$e" "$shadow/$name"
done
mkdir "$shadow/build"
for e in "$top"/build/*; do
	name=$(basename "$e")
	[ "$name" = locktrace ] && continue
	ln -s "$e" "$shadow/build/$name"
done
ln -s "$top/build/asan/locktrace" "$shadow/build/locktrace"
mkdir "$shadow/sanitizer-logs"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$shadow/sanitizer-logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$shadow/sanitizer-logs/ubsan"
# every *_live suite but install_live, and sec_paths
suites=$(build/tests/run-tests --list 2>&1 | sed -n 's/^\([a-z0-9_]*\): [0-9]* tests\?$/\1/p' |
	grep -E '_live$|^sec_paths$' | grep -vx install_live | paste -sd'|')
if [ -z "$suites" ]; then
	echo "run-live-asan.sh: build/tests/run-tests --list names no live suite" >&2
	exit 1
fi
filter=('--filter' "@($suites)/*")
for a in "$@"; do
	case $a in --filter|--filter=*) filter=() ;; esac
done
cd "$shadow" || exit 1
build/tests/run-tests --jobs 1 --short-filename --tap="$base/tap" "${filter[@]}" "$@"
status=$?
# which tests failed, at the end of the output
"$top/scripts/tap-failures.sh" "$base/tap" run-live-asan.sh
reports=("$shadow"/sanitizer-logs/*)
if [ -e "${reports[0]}" ]; then
	for r in "${reports[@]}"; do
		echo "=== sanitizer report $r:" >&2
		cat "$r" >&2
	done
	echo "run-live-asan.sh: ${#reports[@]} sanitizer report(s) from build/asan/locktrace" >&2
	exit 1
fi
exit "$status"
