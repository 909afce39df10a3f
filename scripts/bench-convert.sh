#!/usr/bin/env bash
# Conversion benchmark (not a test): record the bundled demo workload (64
# threads around a runtime lock) for a few seconds, then convert the trace to
# Perfetto on one cpu (taskset -c 0), best of three runs.  Prints events per
# second (target: at least 3 million) and output bytes per event (target: at
# most 40).  Needs root (the recording).
#
#   scripts/bench-convert.sh [SECONDS=5] [TRACE]
#
# With TRACE (an existing .ltrace) it skips the recording.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-5}
dir=$(mktemp -d /tmp/locktrace-bench.XXXXXX)
wl=
cleanup() {
	[ -n "$wl" ] && kill -9 "$wl" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

make -s build/locktrace build/workloads/demo

if [ $# -ge 2 ]; then
	trace=$2
else
	if [ "$(id -u)" -ne 0 ]; then
		echo "bench-convert: recording needs root (or give an existing trace: $0 SECONDS TRACE)" >&2
		exit 1
	fi
	trace="$dir/demo.ltrace"
	build/workloads/demo -t 64 -d $((secs + 5)) --no-wait >"$dir/workload.txt" 2>&1 &
	wl=$!
	for _ in $(seq 100); do grep -q '^ready' "$dir/workload.txt" && break; sleep 0.05; done
	echo "== recording the demo workload (64 threads, pid $wl) for $secs s"
	build/locktrace record -p "$wl" -d "$secs" -o "$trace" --no-status -q
	kill -9 "$wl" 2>/dev/null || true
	wait "$wl" 2>/dev/null || true
	wl=
fi

out="$dir/out.perfetto-trace"
best_wall= best_cpu= events=
TIMEFORMAT='%R %U %S' # bash's time: wall, user, system seconds
for run in 1 2 3; do
	rm -f "$out"
	{ time taskset -c 0 build/locktrace convert "$trace" -o "$out" 2>"$dir/err.txt"; } \
		2>"$dir/time.txt" || { cat "$dir/err.txt" >&2; exit 1; }
	read -r wall user sys <"$dir/time.txt"
	# the summary line gives the event count
	events=$(sed -n 's/^locktrace: wrote .*: \([0-9]*\) events.*/\1/p' "$dir/err.txt")
	read -r best_wall best_cpu < <(awk -v w="$wall" -v c="$(awk -v u="$user" -v s="$sys" \
		'BEGIN { print u + s }')" -v bw="$best_wall" -v bc="$best_cpu" 'BEGIN {
		if (bw == "" || w < bw) bw = w
		if (bc == "" || c < bc) bc = c
		print bw, bc }')
done

raw_bytes=$(stat -c %s "$trace")
out_bytes=$(stat -c %s "$out")
awk -v n="$events" -v w="$best_wall" -v c="$best_cpu" -v rb="$raw_bytes" -v ob="$out_bytes" 'BEGIN {
	printf "trace:   %d events, %.1f MB raw (%.1f bytes/event)\n", n, rb / 1e6, rb / n
	printf "convert: best of 3 on one cpu: %.3f s wall, %.3f s cpu\n", w, c
	printf "speed:   %.2f M events/s wall, %.2f M events/s cpu (target >= 3)\n", n / w / 1e6, n / c / 1e6
	printf "size:    %.1f MB Perfetto, %.1f bytes/event (target <= 40)\n", ob / 1e6, ob / n
}'
