#!/usr/bin/env bash
# make demo: start the bundled 64-thread demo workload in its stalling mode,
# attach locktrace to it by PID before it runs into the hang, let the
# flight recorder catch the stall, and show the Perfetto timeline's path and
# the report.  Needs root (BPF).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${LT_DEMO_DIR:-demo-out}
mkdir -p "$out"
trace="$out/demo.ltrace"
rm -f "$out"/demo*.ltrace "$out"/demo*.perfetto-trace "$out/gate"

if [ "$(id -u)" -ne 0 ]; then
	echo "make demo: locktrace needs root or CAP_BPF+CAP_PERFMON; run: sudo make demo" >&2
	exit 1
fi

# The workload waits for one line on stdin before it starts working, so
# that locktrace is attached before the hang (it stalls 1-2 s after the
# start).  A fifo held open here is that stdin.
mkfifo "$out/gate"
exec 3<>"$out/gate"
wl=""
lt=""
cleanup() {
	[ -n "$lt" ] && kill "$lt" 2>/dev/null || true
	# reaped here, quietly: else bash reports the job "Killed" as it exits
	[ -n "$wl" ] && { kill -9 "$wl" 2>/dev/null; wait "$wl" 2>/dev/null; } || true
	exec 3>&- || true
	rm -f "$out/gate"
}
trap cleanup EXIT

echo "== starting the demo workload: 64 threads sharing a runtime lock, stalling mode (--stall io)"
build/workloads/demo -t 64 --stall io <"$out/gate" >"$out/workload.txt" 2>&1 &
wl=$!
for _ in $(seq 100); do grep -q '^ready' "$out/workload.txt" && break; sleep 0.1; done
echo "   pid $wl; its ground truth goes to $out/workload.txt"

echo "== locktrace -p $wl --ring 64M --stall 2 -o $trace"
echo "   (flight recorder: keeps the recent past in memory, writes it when the process stalls)"
build/locktrace -p "$wl" --ring 64M --stall 2 -o "$trace" --no-status 2> >(tee "$out/locktrace.txt" >&2) &
lt=$!
for _ in $(seq 200); do grep -q 'recording process' "$out/locktrace.txt" 2>/dev/null && break; sleep 0.1; done
echo go >&3
wait "$lt"
lt=""

echo
echo "== what the workload says happened (its own ground truth)"
grep -E '^(lock name=rtlock|stall |stalled)' "$out/workload.txt" || true
echo
echo "== the last events of the trace (locktrace dump $trace | tail)"
build/locktrace dump "$trace" | tail -n 8

echo
echo "== the report: which thread waits on which lock, since when, who holds or woke it (locktrace report $trace)"
build/locktrace report "$trace"

# last, so the demo ends with where the timeline is and how to open it
if [ -f "$out/demo.perfetto-trace" ]; then
	echo
	echo "Perfetto timeline: $out/demo.perfetto-trace"
	echo "  open https://ui.perfetto.dev and use 'Open trace file', or: trace_processor $out/demo.perfetto-trace"
fi
