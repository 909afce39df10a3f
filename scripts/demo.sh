#!/usr/bin/env bash
# make demo: start the bundled 64-thread demo workload in its stalling mode,
# attach locktrace to it by PID while it runs into the hang, and show what
# was recorded.  Needs root (BPF).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${LT_DEMO_DIR:-demo-out}
mkdir -p "$out"
trace="$out/demo.ltrace"
rm -f "$trace" "$out/demo.perfetto-trace"

if [ "$(id -u)" -ne 0 ]; then
	echo "make demo: locktrace needs root or CAP_BPF+CAP_PERFMON; run: sudo make demo" >&2
	exit 1
fi

echo "== starting the demo workload: 64 threads sharing a runtime lock, stalling mode (--stall io)"
build/workloads/demo -t 64 -d 30 --stall io --no-wait >"$out/workload.txt" 2>&1 &
wl=$!
trap 'kill -9 $wl 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q '^ready' "$out/workload.txt" && break; sleep 0.1; done
echo "   pid $wl; ground truth in $out/workload.txt"

echo "== locktrace -p $wl -d 6 -o $trace"
build/locktrace -p "$wl" -d 6 -o "$trace"

echo
echo "== what the workload says happened"
grep -E '^(lock|stall|stalled)' "$out/workload.txt" || true
echo
echo "== the last events of the trace (locktrace dump $trace | tail)"
build/locktrace dump "$trace" | tail -n 12
if [ -f "$out/demo.perfetto-trace" ]; then
	echo
	echo "Perfetto timeline: $out/demo.perfetto-trace"
	echo "  open https://ui.perfetto.dev and use 'Open trace file', or: trace_processor $out/demo.perfetto-trace"
fi

echo
echo "== the report: which thread waits on which lock, since when, who holds or woke it (locktrace report $trace)"
build/locktrace report "$trace"
