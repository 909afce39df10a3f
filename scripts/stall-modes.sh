#!/usr/bin/env bash
# Does the flight recorder's stall rule catch the same stalls with
# --calls blocking as with --calls all?  Runs every bundled workload that
# stalls (or is hung already) under
#   locktrace record -p PID --ring 16M --stall 2 --calls MODE
# in both modes, and the busy or idle ones that must not trigger, and
# prints one line per workload and mode: whether the rule fired and how
# long after recording began.  A measurement for BENCHMARKS.md (the
# default --calls of the flight recorder), not a test.  Needs root and
# `make all`.
#
#   scripts/stall-modes.sh [--window SECONDS] [--wait SECONDS] [--only ERE] [--stream]
#   (--only: just the workloads whose name matches ERE; --stream: the
#   streamed form, --ring-stream, instead of the kernel-side units)
set -uo pipefail
cd "$(dirname "$0")/.."
WINDOW=2 WAIT=15 ONLY= FORM=()
while [ $# -gt 0 ]; do
	case $1 in
	--window) WINDOW=$2; shift ;;
	--wait) WAIT=$2; shift ;;
	--only) ONLY=$2; shift ;;
	--stream) FORM=(--ring-stream) ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "stall-modes: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "stall-modes: needs root (BPF)" >&2; exit 1; }
[ -x build/locktrace ] || { echo "stall-modes: run make all first" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/stallmodes.XXXXXX")
KIDS=()
trap 'for p in "${KIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$W"' EXIT

WL=build/workloads
CASES=(
	"stall|deadlock|$WL/deadlock --no-wait"
	"stall|lost_wakeup|$WL/lost_wakeup --no-wait"
	"stall|convoy|$WL/convoy -t 16 --no-wait"
	"stall|jvm_like|$WL/jvm_like -s 2 --no-wait"
	"stall|demo --stall io|$WL/demo -t 64 -d 60 --stall io --no-wait"
	"stall|demo --stall lost-wakeup|$WL/demo -t 64 -d 60 --stall lost-wakeup --no-wait"
)
for m in mutex errorcheck recursive robust pi rwlock-writer rwlock-readers sem cond-acquire barrier; do
	CASES+=("stall|glibc_locks --mode $m|$WL/glibc_locks --mode $m --no-wait")
done
# threads parked on a condition variable with no signal pending, nothing
# handed through and the mutex free are an idle pool's shape, no lock wait
# (commit e98406f, issue 25: an idle node --inspect pool): quiet
CASES+=("quiet|glibc_locks --mode cond|$WL/glibc_locks --mode cond --no-wait")
# pthread_join is waiting for a thread, not for a lock: the locks rule
# must not fire on it
CASES+=("quiet|glibc_locks --mode join|$WL/glibc_locks --mode join --no-wait")
[ -x "$WL/ocaml_holder" ] && CASES+=("stall|ocaml_holder|$WL/ocaml_holder -t 20 --no-wait")
# OCaml 5 (built with the compilers of ../shared/tools where present)
for v in 5.2.0 5.4.0+dev; do
	[ -x "$WL/ocaml-$v/ocaml5_locks" ] || continue
	CASES+=("stall|ocaml5_locks hold ($v)|$WL/ocaml-$v/ocaml5_locks hold -t 20")
	CASES+=("stall|ocaml5_locks deadlock ($v)|$WL/ocaml-$v/ocaml5_locks deadlock")
	CASES+=("quiet|ocaml5_locks busy ($v)|$WL/ocaml-$v/ocaml5_locks busy -t 8")
done
if [ -x /usr/bin/python3 ]; then
	CASES+=("stall|gil_holder.py|/usr/bin/python3 tests/workloads/gil_holder.py -t 19")
	CASES+=("stall|gil_holder.py --lock-deadlock|/usr/bin/python3 tests/workloads/gil_holder.py --lock-deadlock")
	# every thread queues for the GIL and every one makes progress
	CASES+=("quiet|gil_holder.py --busy|/usr/bin/python3 tests/workloads/gil_holder.py --busy -t 8")
fi
if [ -x /usr/bin/java ] && [ -f "$WL/java/JavaLocks.class" ]; then
	for m in deadlock spin convoy compiled; do
		CASES+=("stall|JavaLocks $m|/usr/bin/java -cp $WL/java JavaLocks $m")
	done
fi
CASES+=(
	"quiet|idle|$WL/idle -t 8 -d 60 --no-wait"
	"quiet|mutex_contention|$WL/mutex_contention -t 4 -n 100000000 --no-wait"
	"quiet|condvar_pingpong|$WL/condvar_pingpong -n 100000000 --no-wait"
	"quiet|select_reader|$WL/select_reader -n 10000000 --no-wait"
)

wait_line() { # file ERE seconds: 0 when a line matches
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# one workload, one mode: "fired after S s" or "no trigger in N s"
run_case() {
	local cmd=$1 mode=$2 out=$W/wl.out err=$W/lt.err t0 t1 wpid lpid
	: >"$out"
	: >"$err"
	# shellcheck disable=SC2086
	$cmd >"$out" 2>&1 </dev/null &
	wpid=$!
	KIDS+=("$wpid")
	if ! wait_line "$out" '^ready' 60; then
		kill -9 "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		echo "workload not ready"
		return
	fi
	build/locktrace record -p "$wpid" -o "$W/t.ltrace" -f --no-status --ring 16M \
		--stall "$WINDOW" --calls "$mode" "${FORM[@]}" 2>"$err" &
	lpid=$!
	KIDS+=("$lpid")
	wait_line "$err" 'recording' 30
	t0=$(date +%s.%N)
	if wait_line "$err" 'stall detected' "$WAIT"; then
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "fired after %.1f s\n", b - a }'
	else
		echo "no trigger in $WAIT s"
	fi
	kill -INT "$lpid" 2>/dev/null
	wait "$lpid" 2>/dev/null
	kill -9 "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	rm -f "$W"/t*.ltrace
}

echo "stall rule locks, --stall $WINDOW, --ring 16M ${FORM[*]:-(kernel-side units)}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %-8s %-22s %-22s %s\n' workload expect "--calls all" "--calls blocking" same
for c in "${CASES[@]}"; do
	IFS='|' read -r expect name cmd <<<"$c"
	[ -z "$ONLY" ] || [[ $name =~ $ONLY ]] || continue
	a=$(run_case "$cmd" all)
	b=$(run_case "$cmd" blocking)
	same=yes
	[ "${a%% *}" = "${b%% *}" ] || same=NO
	printf '%-34s %-8s %-22s %-22s %s\n' "$name" "$expect" "$a" "$b" "$same"
done
