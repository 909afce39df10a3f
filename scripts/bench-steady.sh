#!/usr/bin/env bash
# Where the CPU of a steady recording goes (issue 29; BENCHMARKS.md,
# 2026-12-05 "every call: the collector or the programs?"): the demo
# (-t 64) runs, `locktrace record -p` attaches, and over WINDOW seconds of
# steady recording (from 1 s after its "recording" line) this prints the
# CPU time of the recorder's threads and of the demo's threads
# (/proc/PID/task/*/schedstat, ns), and, when kernel.bpf_stats_enabled is
# 1, each program's runs and ns per run in the window (bpftool; its own
# run, about 1 s under load, falls inside the program window, not the CPU
# one; the programs are those of the recorder's links).  The summary line
# of the recorder follows (its events and losses).
#
#   scripts/bench-steady.sh [--window S=3] [LOCKTRACE=build/locktrace] [RECORD OPTIONS...]
#   e.g. scripts/bench-steady.sh build/locktrace --calls all
# Environment: DEMO_PFX, LT_PFX: words before the demo and the recorder
# (taskset -c 0).  Needs root.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
WIN=3
if [ "${1-}" = --window ]; then
	WIN=$2
	shift 2
fi
LT=build/locktrace
if [ $# -gt 0 ] && [[ $1 != -* ]]; then
	LT=$1
	shift
fi
D=$(mktemp -d /tmp/bench-steady.XXXXXX)
trap 'rm -rf "$D"' EXIT
# shellcheck disable=SC2086
${DEMO_PFX:-} build/workloads/demo -t 64 -d $((WIN + 30)) --no-wait >"$D/demo.out" 2>&1 &
DP=$!
sleep 1
# shellcheck disable=SC2086
${LT_PFX:-} "$LT" record -p "$DP" -o "$D/t.ltrace" -d 600 --no-status "$@" 2>"$D/err" &
RP=$!
for _ in $(seq 600); do
	grep -q 'recording' "$D/err" 2>/dev/null && break
	sleep 0.05
done
sleep 1
cpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
progs() {
	[ "$(sysctl -n kernel.bpf_stats_enabled)" = 1 ] || return 0
	# the recorder's own programs (its links' fdinfo), not another's
	local ids
	ids=$(grep -h '^prog_id:' /proc/"$RP"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u | tr '\n' ' ')
	bpftool prog show -j 2>/dev/null | IDS="$ids" python3 -c '
import json, os, sys
ids = set(os.environ["IDS"].split())
for p in json.load(sys.stdin):
    if str(p["id"]) in ids and "run_cnt" in p:
        print(p["id"], p["name"], p["run_cnt"], p.get("run_time_ns", 0))'
}
progs >"$D/p0"
c0=$(cpu $RP) d0=$(cpu $DP) t0=$(date +%s.%N)
sleep "$WIN"
c1=$(cpu $RP) d1=$(cpu $DP) t1=$(date +%s.%N)
progs >"$D/p1"
kill -INT $RP
wait $RP
kill $DP 2>/dev/null
wait $DP 2>/dev/null
awk -v c0="$c0" -v c1="$c1" -v d0="$d0" -v d1="$d1" -v t0="$t0" -v t1="$t1" 'BEGIN {
	printf "window %.2f s: recorder %.4f CPU-s, demo %.4f CPU-s\n", t1 - t0, (c1 - c0) / 1e9, (d1 - d0) / 1e9 }'
join <(sort "$D/p0") <(sort "$D/p1") |
	awk '{ n = $6 - $3; t = $7 - $4; if (n > 0) printf "  %s runs %d ns/run %.0f total %.1f ms\n", $2, n, t / n, t / 1e6 }'
grep -E ' events, ' "$D/err" | head -1
