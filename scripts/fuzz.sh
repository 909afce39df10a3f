#!/usr/bin/env bash
# The libFuzzer harnesses of tests/fuzz (built by `make fuzz`):
#
#   scripts/fuzz.sh check [SECONDS]        replay the seed corpus, then fuzz each
#                                          harness SECONDS (default 5): make test
#   scripts/fuzz.sh run SECONDS [NAME...]  fuzz longer, keeping what is found in
#                                          build/fuzz/work/NAME (docs/fuzzing.md)
#
# New inputs go to a scratch corpus, never into tests/fuzz/corpus; a crash
# leaves its input in build/fuzz/crash-* and makes this exit 1.  Each run
# ends with a line "fuzz NAME: N executions in S s, no crash".
set -uo pipefail
cd "$(dirname "$0")/.."

mode=${1:-check}
secs=${2:-5}
shift $(($# > 2 ? 2 : $#))
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(trace snapjson pbread)
case $secs in ''|*[!0-9]*) echo "fuzz: SECONDS must be a whole number" >&2; exit 2 ;; esac
# ASan's leak check at exit would flag what a harness's callee keeps in
# static caches; UBSan stops at the first report (-fno-sanitize-recover)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

fail=0
for n in "${names[@]}"; do
	bin=build/fuzz/fuzz_$n
	seeds=tests/fuzz/corpus/$n
	[ -x "$bin" ] || { echo "fuzz: $bin is missing: run make fuzz" >&2; exit 1; }
	[ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds" >&2; exit 1; }
	if [ "$mode" = check ]; then
		work=$(mktemp -d "${TMPDIR:-/tmp}/lt-fuzz-$n.XXXXXX")
		if ! "$bin" -runs=0 -artifact_prefix=build/fuzz/crash-$n- "$seeds" >"$work/replay.log" 2>&1; then
			echo "fuzz $n: the seed corpus crashes it:" >&2
			tail -30 "$work/replay.log" >&2
			fail=1
			continue
		fi
	elif [ "$mode" = run ]; then
		work=build/fuzz/work/$n
		mkdir -p "$work"
	else
		echo "fuzz: unknown mode $mode (check or run)" >&2
		exit 2
	fi
	mkdir -p "$work/corpus"
	cp -n "$seeds"/* "$work/corpus/" 2>/dev/null
	log=$work/fuzz.log
	nice -n 19 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-artifact_prefix=build/fuzz/crash-$n- "$work/corpus" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | awk '{ print $2 }')
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{ print $2 }')
	if [ $rc -ne 0 ]; then
		echo "fuzz $n: FAILED (exit $rc); input in build/fuzz/crash-$n-*:" >&2
		grep -E 'ERROR|runtime error|SUMMARY|==[0-9]+==' "$log" | head -20 >&2
		fail=1
	else
		echo "fuzz $n: ${execs:-?} executions in $secs s, coverage ${cov:-?} edges, no crash"
	fi
	[ "$mode" = check ] && rm -rf "$work"
done
exit $fail
