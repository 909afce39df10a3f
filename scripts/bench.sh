#!/usr/bin/env bash
# make bench: what locktrace costs the process it traces, next to what a user
# would otherwise run (bpftrace, perf trace, strace), measured in one
# invocation so that the ratios come from interleaved runs on the same
# machine state.  Results go into BENCHMARKS.md between the bench markers
# (the hand-written analysis around them is kept); --smoke does one short
# round of everything, writes nothing into the repository and installs
# nothing, so that `make test` can keep this script working.
#
#   scripts/bench.sh [--smoke] [--rounds N] [--seconds S] [--no-install]
#                    [--out FILE] [--keep DIR] [--tools LIST] [--parts LIST]
#
# --tools: a subset of untraced,floor,floorsched,locktrace,ltblocking,bpftrace,perf,
# strace (ltblocking: locktrace record --calls blocking; floorsched: the floor on
# the scheduler tracepoints only; floor:
# empty BPF programs on locktrace's tracepoints, the cost of attaching
# alone, built from scripts/bench-floor*.c); --parts: of
# overhead,onoff,collector,profile,snapshot,rtsnap,smallsnap,report,convert,multi8
# (for quick experiments: the results file is only written when everything ran).
# onoff: the same tools (those built on BPF) attached and detached in
# alternation inside one long run of the demo, --rounds cycles
# (scripts/bench-onoff.sh, which can also be run alone).
# A tool ltb_NAME (for experiments) is ltblocking run with the words of
# $LT_BENCH_ENV_NAME before it (through env: VAR=VALUE, or a command such as
# "nice -n 19") and those of $LT_BENCH_ARGS_NAME as more options (-b 1M).
#
# Environment: LT_BENCH_BPFTRACE, LT_BENCH_PERF, LT_BENCH_STRACE override
# where each tool is found (a path that does not exist makes it "missing").
#
# Every figure printed comes from a run made here; a tool that is missing or
# fails is reported as such in the tables, never left out.  Needs root.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SMOKE=0 ROUNDS=7 SECS=5 INSTALL=1 OUT=BENCHMARKS.md KEEP=
TOOLS_ARG=untraced,floor,floorsched,locktrace,ltblocking,bpftrace,perf,strace
PARTS=overhead,onoff,collector,profile,snapshot,rtsnap,smallsnap,report,convert,multi8
PARTIAL=0 OUT_SET=0
THREADS=64
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) SMOKE=1 ;;
	--rounds) ROUNDS=$2; shift ;;
	--seconds) SECS=$2; shift ;;
	--no-install) INSTALL=0 ;;
	--out) OUT=$2; OUT_SET=1; shift ;;
	--keep) KEEP=$2; shift ;;
	--tools) TOOLS_ARG=$2; PARTIAL=1; shift ;;
	--parts) PARTS=$2; PARTIAL=1; shift ;;
	-h|--help) sed -n '2,/^set /{/^set /d;p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ "$SMOKE" = 1 ]; then
	# one pair per tool, ~1 s each; never touch the repository's results
	ROUNDS=1 SECS=1 INSTALL=0
	OUT=
fi
# a partial run does not replace the published results unless asked to
[ "$PARTIAL" = 1 ] && [ "$OUT_SET" = 0 ] && OUT=
case $ROUNDS$SECS in *[!0-9]*) echo "bench: --rounds and --seconds take integers" >&2; exit 2 ;; esac

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (BPF, perf and ptrace of another process); run: sudo make bench" >&2
	exit 1
fi
for f in build/locktrace build/workloads/demo build/workloads/gen_events build/workloads/many_threads \
	build/workloads/deadlock build/workloads/shared_locks; do
	[ -x "$f" ] || { echo "bench: $f is missing; run make all first" >&2; exit 1; }
done

# Private copies of the binaries: others may rebuild build/ while this runs.
W=$(mktemp -d "${TMPDIR:-/tmp}/ltbench.XXXXXX")
mkdir -p "$W/bin"
cp build/locktrace build/workloads/demo build/workloads/gen_events build/workloads/many_threads \
	build/workloads/deadlock build/workloads/shared_locks "$W/bin/"
LT=$W/bin/locktrace
RES=$W/results.tsv
: >"$RES"
CHILDREN=()
STATS_WAS= # kernel.bpf_stats_enabled before the profile part turned it on
# Whether PID is still a child of this shell: the pids in CHILDREN were
# reaped long ago, most of them, and pid numbers come round again (32768 here,
# with other sessions forking): a kill -9 by number alone once took down
# another session's workload as this bench ended.
ours() {
	local s
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	set -- $s
	[ "${2:-}" = "$$" ]
}
cleanup() {
	# only in the script itself: a subshell (the run guard) that gets a
	# signal as it starts runs this trap too, and would take the workload
	# and $W with it
	if [ "$BASHPID" = "$$" ]; then
		for p in "${CHILDREN[@]}"; do ours "$p" && kill -9 "$p" 2>/dev/null; done
		[ -n "$STATS_WAS" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
		if [ -n "$KEEP" ]; then
			mkdir -p "$KEEP" && cp -r "$W"/. "$KEEP"/ && echo "bench: work files kept in $KEEP"
		fi
		rm -rf "$W"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s\n' "$*"; }
now() { date +%s.%N; }
TCK=$(getconf CLK_TCK)

# ---------------------------------------------------------------- tools
BPFTRACE=${LT_BENCH_BPFTRACE-$(command -v bpftrace || true)}
PERF=${LT_BENCH_PERF-$(command -v perf || true)}
STRACE=${LT_BENCH_STRACE-$(command -v strace || true)}
GTIME=/usr/bin/time

missing_pkgs() {
	local m=()
	[ -z "${LT_BENCH_BPFTRACE+x}" ] && ! [ -x "$BPFTRACE" ] && m+=(bpftrace)
	[ -z "${LT_BENCH_PERF+x}" ] && ! [ -x "$PERF" ] && m+=(linux-perf)
	[ -z "${LT_BENCH_STRACE+x}" ] && ! [ -x "$STRACE" ] && m+=(strace)
	[ -x "$GTIME" ] || m+=(time)
	echo "${m[@]}"
}
pk=$(missing_pkgs)
if [ -n "$pk" ]; then
	if [ "$INSTALL" = 1 ]; then
		say "== installing from Debian: $pk"
		export DEBIAN_FRONTEND=noninteractive
		# shellcheck disable=SC2086
		if ! { apt-get install -y -qq --no-install-recommends $pk >/dev/null 2>&1 ||
			{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $pk >/dev/null; }; }; then
			say "bench: installing $pk failed; those tools are reported as missing"
		fi
		[ -z "${LT_BENCH_BPFTRACE+x}" ] && BPFTRACE=$(command -v bpftrace || true)
		[ -z "${LT_BENCH_PERF+x}" ] && PERF=$(command -v perf || true)
		[ -z "${LT_BENCH_STRACE+x}" ] && STRACE=$(command -v strace || true)
	else
		say "== not installing what is missing ($pk): $([ "$SMOKE" = 1 ] && echo "a smoke run installs nothing" || echo --no-install)"
	fi
fi
[ -x "$GTIME" ] || GTIME=
# The floor configuration: empty programs on the same tracepoints, built
# here (clang and libbpf are build dependencies of locktrace anyway).
FLOOR=
FLOOR_ERR=
if clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ibuild -c scripts/bench-floor.bpf.c \
	-o "$W/bin/floor.bpf.o" 2>"$W/floor.err" &&
	clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -DSCHED_ONLY -Ibuild \
		-c scripts/bench-floor.bpf.c -o "$W/bin/floorsched.bpf.o" 2>>"$W/floor.err" &&
	cc -O2 scripts/bench-floor.c $(pkg-config --cflags --libs libbpf 2>/dev/null || echo -lbpf) \
		-o "$W/bin/bench-floor" 2>>"$W/floor.err"; then
	FLOOR=$W/bin/bench-floor
else
	FLOOR_ERR="cannot build scripts/bench-floor: $(head -c 200 "$W/floor.err" | tr '\n\t' '  ')"
fi
avail() { # tool -> 0 if it can be run
	case $1 in
	untraced|locktrace|ltblocking|ltb_*) return 0 ;;
	floor|floorsched) [ -n "$FLOOR" ] ;;
	bpftrace) [ -n "$BPFTRACE" ] && [ -x "$BPFTRACE" ] ;;
	perf) [ -n "$PERF" ] && [ -x "$PERF" ] ;;
	strace) [ -n "$STRACE" ] && [ -x "$STRACE" ] ;;
	esac
}
# bpftrace and perf trace read tracepoint formats from tracefs, which a
# fresh machine does not mount (locktrace itself does not need it).
if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null && say "== mounted tracefs on /sys/kernel/tracing (bpftrace, perf trace)"
fi
if ! mountpoint -q /sys/kernel/debug; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
fi

# The calls locktrace records (README: futex family, select/poll/epoll,
# socket read/write family), for perf trace and strace.
# Debian 12's perf (6.1) and strace (6.1) do not know the futex2 calls
# futex_wake/futex_wait/futex_requeue (Linux 6.7); the demo does not use them.
SYSCALLS=futex,futex_waitv,select,pselect6,poll,ppoll,epoll_wait,epoll_pwait,epoll_pwait2,read,readv,recvfrom,recvmsg,recvmmsg,write,writev,sendto,sendmsg,sendmmsg

# ---------------------------------------------------------------- helpers
# Starts "$@" with stdout+stderr into $1's file and stdin on a fifo that
# stays closed (the workload's start gate) until open_gate.
start_gated() {
	local out=$1; shift
	local fifo=$W/gate.$$.$RANDOM
	mkfifo "$fifo"
	exec {GATE_FD}<>"$fifo"
	"$@" <"$fifo" >"$out" 2>&1 &
	WL_PID=$!
	CHILDREN+=("$WL_PID")
	GATE_PATH=$fifo # removed at the gate: by then the child has opened it
}
open_gate() {
	echo >&"$GATE_FD"
	close_gate
}
close_gate() { # without opening it: the run failed
	exec {GATE_FD}>&-
	rm -f "$GATE_PATH"
}
# wait_for FILE ERE SECONDS [PID]: 0 when a line matches, 1 on timeout or
# when PID has exited.
wait_for() {
	local f=$1 re=$2 t=$3 pid=${4:-} i n
	n=$(awk -v t="$t" 'BEGIN { print int(t * 20) }')
	for ((i = 0; i < n; i++)); do
		grep -qE "$re" "$f" 2>/dev/null && return 0
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			grep -qE "$re" "$f" 2>/dev/null
			return
		fi
		sleep 0.05
	done
	return 1
}
# The process that GNU time started (or the pid itself without GNU time).
real_pid() {
	local p=$1 c i
	[ -z "$GTIME" ] && { echo "$p"; return; }
	for ((i = 0; i < 100; i++)); do
		c=$(cat "/proc/$p/task/$p/children" 2>/dev/null)
		[ -n "$c" ] && { echo "${c%% *}"; return; }
		kill -0 "$p" 2>/dev/null || break
		sleep 0.02
	done
	echo "$p"
}
cpu_ticks() { # utime+stime of a live process, in clock ticks
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'
}
# Waits until the number of perf_event / bpf fds of PID is non-zero and has
# not changed for 0.5 s: what bpftrace and perf trace hold once attached.
wait_attached() {
	local pid=$1 t=$2 last=-1 same=0 n i lim
	lim=$(awk -v t="$t" 'BEGIN { print int(t * 10) }')
	for ((i = 0; i < lim; i++)); do
		kill -0 "$pid" 2>/dev/null || return 1
		n=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -cE 'perf_event|bpf-prog')
		if [ "$n" -gt 0 ] && [ "$n" = "$last" ]; then
			same=$((same + 1))
			[ "$same" -ge 5 ] && return 0
		else
			same=0
		fi
		last=$n
		sleep 0.1
	done
	return 1
}
# Lets a tool finish on its own (locktrace and strace stop when the target
# exits; bpftrace and perf trace keep draining what is buffered): waits
# until it exits or uses no cpu for 1 s, then SIGINT, then SIGKILL.
finish_tool() {
	local tp=$1 pid=$2 last=-1 idle=0 c i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$tp" 2>/dev/null || return 0
		c=$(cpu_ticks "$pid")
		if [ -n "$c" ] && [ "$c" = "$last" ]; then
			idle=$((idle + 1))
			[ "$idle" -ge 10 ] && break
		else
			idle=0
		fi
		last=$c
		sleep 0.1
	done
	kill -INT "$pid" 2>/dev/null
	for ((i = 0; i < 300; i++)); do
		kill -0 "$tp" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$pid" "$tp" 2>/dev/null
	return 1
}
time_field() { # GNU time -v file, field label
	sed -n "s/^[[:space:]]*$2: *//p" "$1" 2>/dev/null | head -1
}
fsize() { stat -c %s "$1" 2>/dev/null || echo 0; }
# CPU seconds a tool used from the gate on: its total (GNU time) minus what
# it had used at the gate; without GNU time, the last sample taken while
# it still ran (a tool that exits with its target may be gone by then).
cpu_after() { # ticks-at-gate ticks-at-end total-seconds
	awk -v a="$1" -v b="$2" -v tot="$3" -v t="$TCK" -v g="$GTIME" 'BEGIN {
		if (g != "" && tot > 0) v = tot - a / t; else if (b >= a) v = (b - a) / t; else v = 0
		printf "%.2f", v }'
}

# Results: one TSV line per run:
#  tool round status rate iters secs events syscalls lost bytes cpu_total cpu_window window_s rss_kb note
record() { printf '%s\n' "$(IFS=$'\t'; echo "$*")" >>"$RES"; }

# ------------------------------------------------- one traced workload run
# run_one TOOL ROUND: the demo for SECS seconds after its gate, with TOOL
# attached by pid to its already-created threads (demo --early).
run_one() {
	local tool=$1 round=$2 d=$W/run.$1.$2
	mkdir -p "$d"
	local wl=$d/workload.out tp= pid= ok=1 note= st
	start_gated "$wl" "$W/bin/demo" -t "$THREADS" -d "$SECS" --early
	if ! wait_for "$wl" '^ready' 60 "$WL_PID"; then
		record "$tool" "$round" failed 0 0 0 0 0 0 0 0 0 0 0 "workload did not start"
		kill -9 "$WL_PID" 2>/dev/null
		close_gate
		return
	fi
	local wpid=$WL_PID tw=()
	[ -n "$GTIME" ] && tw=("$GTIME" -v -o "$d/time")
	case $tool in
	untraced) ;;
	floor|floorsched)
		"${tw[@]}" "$FLOOR" "$W/bin/$tool.bpf.o" >"$d/out" 2>"$d/err" &
		tp=$!
		wait_for "$d/out" '^attached' 60 "$tp" || { ok=0; note="did not attach: $(head -c 200 "$d/err" | tr '\n\t' '  ')"; }
		;;
	locktrace|ltblocking|ltb_*)
		local calls=all venv=() vargs=()
		[ "$tool" != locktrace ] && calls=blocking
		if [[ $tool == ltb_* ]]; then
			# a variant for experiments: LT_BENCH_ENV_<name> (environment) and
			# LT_BENCH_ARGS_<name> (more options) of the tool ltb_<name>
			local ev=LT_BENCH_ENV_${tool#ltb_} av=LT_BENCH_ARGS_${tool#ltb_}
			read -r -a venv <<<"${!ev:-}"
			read -r -a vargs <<<"${!av:-}"
		fi
		env "${venv[@]}" "${tw[@]}" "$LT" record -p "$wpid" -o "$d/trace.ltrace" -d 600 --no-status --calls "$calls" "${vargs[@]}" 2>"$d/err" &
		tp=$!
		wait_for "$d/err" '^locktrace \(pid [0-9]+\): recording' 60 "$tp" || { ok=0; note="did not start: $(head -c 200 "$d/err" | tr '\n\t' '  ')"; }
		;;
	bpftrace)
		"${tw[@]}" "$BPFTRACE" -o "$d/out" "$ROOT/scripts/bench-events.bt" "$wpid" 2>"$d/err" >/dev/null &
		tp=$!
		pid=$(real_pid "$tp")
		# its output is buffered, so "attached" is read from its fds
		wait_attached "$pid" 90 || { ok=0; note="did not attach: $(grep -v RLIMIT_MEMLOCK "$d/err" | head -c 200 | tr '\n\t' '  ')"; }
		;;
	perf)
		"${tw[@]}" "$PERF" trace -p "$wpid" -e "$SYSCALLS" -o "$d/out" 2>"$d/err" >/dev/null &
		tp=$!
		pid=$(real_pid "$tp")
		wait_attached "$pid" 90 || { ok=0; note="did not attach: $(head -c 200 "$d/err" | tr '\n\t' '  ')"; }
		;;
	strace)
		"${tw[@]}" "$STRACE" -f -p "$wpid" -e trace="$SYSCALLS" -o "$d/out" 2>"$d/err" &
		tp=$!
		# "Process PID attached with N threads" once all are stopped
		wait_for "$d/err" 'attached' 60 "$tp" ||
			{ ok=0; note="did not attach: $(head -c 200 "$d/err" | tr '\n\t' '  ')"; }
		;;
	esac
	[ -n "$tp" ] && CHILDREN+=("$tp")
	[ -n "$tp" ] && [ -z "$pid" ] && pid=$(real_pid "$tp")
	if [ "$ok" = 0 ]; then
		[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
		kill -9 "$wpid" 2>/dev/null
		close_gate
		wait "$wpid" 2>/dev/null
		[ -n "$tp" ] && wait "$tp" 2>/dev/null
		record "$tool" "$round" failed 0 0 0 0 0 0 0 0 0 0 0 "$note"
		return
	fi
	local c0=0 c1=0 t0 t1
	[ -n "$pid" ] && c0=$(cpu_ticks "$pid")
	t0=$(now)
	open_gate
	# a stuck run must not hang the bench
	# (its sleep must not outlive it: it would hold our stdout open)
	(trap - EXIT
	 trap 'kill $s 2>/dev/null; exit 0' TERM
	 sleep $((SECS * 20 + 60)) & s=$!
	 wait $s && kill -9 "$wpid" 2>/dev/null) >/dev/null 2>&1 &
	local guard=$!
	wait "$wpid"
	st=$?
	t1=$(now)
	[ -n "$pid" ] && c1=$(cpu_ticks "$pid")
	kill "$guard" 2>/dev/null
	wait "$guard" 2>/dev/null
	if [ -n "$tp" ] && ! finish_tool "$tp" "$pid"; then
		note="had to be killed"
	fi
	[ -n "$tp" ] && wait "$tp" 2>/dev/null
	local done_line iters secs rate
	done_line=$(grep '^done ' "$wl" | tail -1)
	iters=$(sed -n 's/.*iterations=\([0-9]*\).*/\1/p' <<<"$done_line")
	secs=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' <<<"$done_line")
	if [ "$st" != 0 ] || [ -z "$iters" ]; then
		record "$tool" "$round" failed 0 0 0 0 0 0 0 0 0 0 0 "workload exit $st ${note}"
		return
	fi
	rate=$(awk -v n="$iters" -v s="$secs" 'BEGIN { printf "%.1f", n / s }')
	local events=0 sysc=0 lost=0 bytes=0 cpu_total=0 rss=0 status=ok
	case $tool in
	locktrace|ltblocking|ltb_*)
		local sum
		sum=$(grep -E '^locktrace: .* events, ' "$d/err" | tail -1)
		events=$(sed -n 's/.*, \([0-9]*\) events, \([0-9]*\) lost,.*/\1/p' <<<"$sum")
		lost=$(sed -n 's/.*, \([0-9]*\) events, \([0-9]*\) lost,.*/\2/p' <<<"$sum")
		sysc=$(grep -E '^  events:' "$d/err" | tail -1 | sed -n 's/.* exit \([0-9]*\).*/\1/p')
		bytes=$(fsize "$d/trace.ltrace")
		[ -z "$events" ] && { status=failed; note="no summary: $(tail -c 200 "$d/err" | tr '\n\t' '  ')"; }
		# the largest full trace is kept for the conversion benchmark
		if [ "$tool" = locktrace ] && [ "$(fsize "$d/trace.ltrace")" -gt "$(fsize "$W/demo.ltrace")" ]; then
			mv "$d/trace.ltrace" "$W/demo.ltrace"
			echo "$events" >"$W/demo.events"
		fi
		;;
	bpftrace)
		events=$(grep -cE '^[ENXSWT] [0-9]' "$d/out")
		sysc=$(grep -cE '^X [0-9]' "$d/out")
		lost=$(awk '/^Lost [0-9]+ events/ { s += $2 } END { print s + 0 }' "$d/out")
		bytes=$(fsize "$d/out")
		;;
	perf)
		# one line per system call (entry and exit together); a call cut
		# in two by a switch prints "[continued]" for its second half
		events=$(grep -E '\): ' "$d/out" | grep -vc '\[continued\]')
		sysc=$events
		lost=$(awk '/LOST [0-9]+ events/ { for (i = 1; i < NF; i++) if ($i == "LOST") s += $(i + 1) } END { print s + 0 }' "$d/out" "$d/err")
		bytes=$(fsize "$d/out")
		;;
	strace)
		# one line per call; a call interrupted by another thread's
		# output prints "<unfinished ...>" and "<... resumed>": count once
		events=$(grep -vE '^[0-9]+ +(\+\+\+|---)|resumed>' "$d/out" | grep -c .)
		sysc=$events
		lost=0 # ptrace stops the thread: nothing can be dropped
		bytes=$(fsize "$d/out")
		;;
	esac
	if [ "$tool" != untraced ]; then
		[ "${events:-0}" -gt 0 ] || [[ "$tool" == floor* ]] || { status=failed; note="${note:+$note; }no events captured"; }
		if [ -n "$GTIME" ] && [ -s "$d/time" ]; then
			cpu_total=$(awk -v u="$(time_field "$d/time" 'User time (seconds)')" \
				-v s="$(time_field "$d/time" 'System time (seconds)')" 'BEGIN { printf "%.2f", u + s }')
			rss=$(time_field "$d/time" 'Maximum resident set size (kbytes)')
		fi
	fi
	local cw win
	cw=$(cpu_after "$c0" "$c1" "$cpu_total")
	win=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	record "$tool" "$round" "$status" "$rate" "$iters" "$secs" "${events:-0}" "${sysc:-0}" "${lost:-0}" \
		"${bytes:-0}" "$cpu_total" "$cw" "$win" "${rss:-0}" "$note"
	printf '   %-9s round %d: %s it/s, %s events, %s lost%s\n' "$tool" "$round" "$rate" "${events:-0}" \
		"${lost:-0}" "${note:+ ($note)}"
	rm -rf "$d"
}

# ------------------------------------------------------------ stats helpers
# stat_line: reads numbers, prints "median min max n"
stat_line() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "- - - 0"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.10g %.10g %.10g %d\n", m, v[1], v[NR], NR }'
}
col() { # tool column -> values of ok runs
	awk -F'\t' -v t="$1" -v c="$2" '$1 == t && $3 == "ok" { print $c }' "$RES"
}
ratios() { # tool -> traced/untraced throughput, one per round with both ok
	awk -F'\t' -v t="$1" '$3 == "ok" && $1 == "untraced" { u[$2] = $4 }
		$3 == "ok" && $1 == t { x[$2] = $4 }
		END { for (r in x) if (r in u && u[r] > 0) printf "%.4f\n", x[r] / u[r] }' "$RES"
}
# Result files of one row per run, KEY in column 1 and the exit status in 2:
# key_runs FILE KEY: "runs ok"; key_stat FILE KEY EXPR: stat_line of the awk
# expression EXPR ('$3', '$5 / 1024') over the ok runs; key_last FILE KEY COL:
# column COL of KEY's last row.
key_runs() { awk -F'\t' -v k="$2" '$1 == k { n++; ok += $2 == 0 } END { print n + 0, ok + 0 }' "$1"; }
key_stat() { awk -F'\t' -v k="$2" '$1 == k && $2 == 0 { print '"$3"' }' "$1" | stat_line; }
key_last() { awk -F'\t' -v k="$2" -v c="$3" '$1 == k { l = $c } END { print l }' "$1"; }
fmt3() { awk -v m="$1" -v a="$2" -v b="$3" -v p="$4" 'BEGIN {
	if (m == "-") { print "-"; exit }
	printf "%." p "f [" "%." p "f–%." p "f]\n", m, a, b }'; }

# ===================================================================== run
IFS=, read -r -a TOOLS <<<"$TOOLS_ARG"
part() { [[ ",$PARTS," == *",$1,"* ]]; }
MACHINE="$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")"
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
T_START=$(date +%s)
say "== locktrace bench: $MACHINE"
say "   $ROUNDS round(s) x ${#TOOLS[@]} configurations, demo -t $THREADS -d $SECS --early; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

for tool in floor floorsched bpftrace perf strace; do
	avail "$tool" || say "   $tool: $([[ "$tool" == floor* ]] && echo "$FLOOR_ERR" || echo "missing (not installed)")"
done
MULTI_ROUNDS=$ROUNDS
part overhead || ROUNDS=0
for ((r = 0; r < ROUNDS; r++)); do
	say "== round $((r + 1))/$ROUNDS"
	# the order rotates each round so that no tool always runs first
	# (after an idle pause) or last
	for ((k = 0; k < ${#TOOLS[@]}; k++)); do
		tool=${TOOLS[$(((k + r) % ${#TOOLS[@]}))]}
		if ! avail "$tool"; then
			if [[ "$tool" == floor* ]]; then
				record "$tool" "$r" failed 0 0 0 0 0 0 0 0 0 0 0 "$FLOOR_ERR"
			else
				record "$tool" "$r" missing 0 0 0 0 0 0 0 0 0 0 0 "not installed"
			fi
			continue
		fi
		run_one "$tool" "$r"
	done
done

# ------------------------------- on/off: attached and detached in one run
# scripts/bench-onoff.sh with this run's binaries and the tools of --tools it
# knows (those built on BPF; "untraced" becomes its noise row).
ONOFF_MD=$W/onoff.md
: >"$ONOFF_MD"
if part onoff; then
	ot=untraced
	for tool in "${TOOLS[@]}"; do
		case $tool in
		floor|floorsched) [ -n "$FLOOR" ] && ot+=,$tool ;;
		locktrace|ltblocking|ltb_*) ot+=,$tool ;;
		esac
	done
	oargs=(--bin "$W/bin" --tools "$ot" --md "$ONOFF_MD" --cycles "$MULTI_ROUNDS")
	[ "$SMOKE" = 1 ] && oargs+=(--smoke)
	[ -n "$KEEP" ] && oargs+=(--keep "$W/onoff") # kept with the rest
	bash scripts/bench-onoff.sh "${oargs[@]}" || say "   bench-onoff.sh failed (exit $?)"
fi

# -------------------------------------- collector: zero-loss event rate
say "== collector: gen_events under locktrace record"
GEN_SECS=$((SMOKE ? 1 : 4))
GENRES=$W/gen.tsv
: >"$GENRES"
gen_run() { # threads ring-option-or-empty
	local t=$1 ring=$2 d=$W/gen.$1.${2:-default}
	mkdir -p "$d"
	start_gated "$d/wl.out" "$W/bin/gen_events" -t "$t" -d "$GEN_SECS"
	wait_for "$d/wl.out" '^ready' 30 "$WL_PID" || { kill -9 "$WL_PID"; close_gate; return; }
	local wpid=$WL_PID tw=()
	[ -n "$GTIME" ] && tw=("$GTIME" -v -o "$d/time")
	# shellcheck disable=SC2086
	"${tw[@]}" "$LT" record -p "$wpid" -o "$d/t.ltrace" -d 600 --no-status ${ring:+-b $ring} 2>"$d/err" &
	local tp=$!
	CHILDREN+=("$tp")
	wait_for "$d/err" '^locktrace \(pid [0-9]+\): recording' 60 "$tp" || { kill -9 "$wpid" "$tp"; close_gate; return; }
	local pid c0 c1
	pid=$(real_pid "$tp")
	c0=$(cpu_ticks "$pid")
	open_gate
	wait "$wpid"
	c1=$(cpu_ticks "$pid")
	wait "$tp"
	local sum events lost secs sysc cpu cw
	sum=$(grep -E '^locktrace: .* events, ' "$d/err" | tail -1)
	events=$(sed -n 's/.*, \([0-9]*\) events, \([0-9]*\) lost,.*/\1/p' <<<"$sum")
	lost=$(sed -n 's/.*, \([0-9]*\) events, \([0-9]*\) lost,.*/\2/p' <<<"$sum")
	secs=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$d/wl.out")
	sysc=$(sed -n 's/.*syscalls=\([0-9]*\).*/\1/p' "$d/wl.out")
	cpu=0
	[ -s "$d/time" ] && cpu=$(awk -v u="$(time_field "$d/time" 'User time (seconds)')" \
		-v s="$(time_field "$d/time" 'System time (seconds)')" 'BEGIN { printf "%.2f", u + s }')
	cw=$(cpu_after "$c0" "$c1" "$cpu")
	local bytes
	bytes=$(fsize "$d/t.ltrace")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "${ring:-16M}" "${events:-0}" "${lost:-0}" \
		"${secs:-0}" "${sysc:-0}" "$cw" "$cpu" "$bytes" >>"$GENRES"
	printf '   -t %s ring %s: %s events in %s s (%s/s), %s lost, collector %s cpu-s in the window\n' "$t" \
		"${ring:-16M}" "${events:-0}" "${secs:-0}" \
		"$(awk -v e="${events:-0}" -v s="${secs:-1}" 'BEGIN { printf "%.0f", e / s }')" "${lost:-0}" "$cw"
	rm -rf "$d"
}
if ! part collector; then
	:
elif [ "$SMOKE" = 1 ]; then
	gen_run 1 ""
else
	for t in 1 2; do
		gen_run "$t" ""
		gen_run "$t" ""
	done
	gen_run 2 256M
fi

# ------------------------------------- where the time goes (kernel side)
PROF=$W/prof.txt
: >"$PROF"
if [ "$SMOKE" = 0 ] && part profile && command -v bpftool >/dev/null; then
	say "== where the time goes: a locktrace run per --calls mode with kernel.bpf_stats_enabled=1"
	STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
	sysctl -qw kernel.bpf_stats_enabled=1
	for calls in all blocking; do
	d=$W/prof
	rm -rf "$d"
	mkdir -p "$d"
	start_gated "$d/wl.out" "$W/bin/demo" -t "$THREADS" -d "$SECS" --early
	if wait_for "$d/wl.out" '^ready' 60 "$WL_PID"; then
		wpid=$WL_PID
		"$LT" record -p "$wpid" -o "$d/t.ltrace" -d 600 --no-status --calls "$calls" 2>"$d/err" &
		tp=$!
		CHILDREN+=("$tp")
		if wait_for "$d/err" '^locktrace \(pid [0-9]+\): recording' 60 "$tp"; then
			open_gate
			wait "$wpid"
			# the counters of this recorder's programs (their ids from its
			# fds: Debian's bpftool does not list owner pids), read before
			# it exits
			for id in $(sed -n 's/^prog_id:[[:space:]]*//p' /proc/"$tp"/fdinfo/* 2>/dev/null | sort -un); do
				bpftool prog show id "$id" 2>/dev/null | awk '
					/^[0-9]+:/ { for (i = 1; i < NF; i++) {
						if ($i == "name") name = $(i + 1)
						if ($i == "run_time_ns") rt = $(i + 1)
						if ($i == "run_cnt") rc = $(i + 1) }
						if (name != "") printf "%s\t%s\t%s\n", name, rc + 0, rt + 0 }'
			done | sort -t$'\t' -k3,3nr >"$PROF.$calls"
			echo "$(sed -n 's/.*iterations=\([0-9]*\).*/\1/p' "$d/wl.out") $(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$d/wl.out")" >"$PROF.$calls.run"
			wait "$tp"
		else
			kill -9 "$wpid" "$tp" 2>/dev/null
			close_gate
		fi
	else
		kill -9 "$WL_PID" 2>/dev/null
		close_gate
	fi
	done
	sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
	STATS_WAS=
fi

# ------------------------------------------- snapshot of 1,000 threads
SNAPRES=$W/snap.tsv
: >"$SNAPRES"
d=$W/snap
mkdir -p "$d"
if part snapshot; then
	say "== snapshot of a 1,000-thread process"
	start_gated "$d/wl.out" "$W/bin/many_threads" -t 1000
	if wait_for "$d/wl.out" '^ready' 120 "$WL_PID"; then
		for ((i = 0; i < (SMOKE ? 1 : 5); i++)); do
			for fmt in text json; do
				[ "$SMOKE" = 1 ] && [ "$fmt" = json ] && continue
				sargs=()
				[ "$fmt" = json ] && sargs=(--json)
				tw=()
				[ -n "$GTIME" ] && tw=("$GTIME" -v -o "$d/time")
				rm -f "$d/time"
				t0=$(now)
				"${tw[@]}" "$LT" snapshot -p "$WL_PID" "${sargs[@]}" >"$d/out" 2>"$d/err"
				rc=$?
				t1=$(now)
				cpu=0 rss=0
				if [ -s "$d/time" ]; then
					cpu=$(awk -v u="$(time_field "$d/time" 'User time (seconds)')" \
						-v s="$(time_field "$d/time" 'System time (seconds)')" 'BEGIN { printf "%.2f", u + s }')
					rss=$(time_field "$d/time" 'Maximum resident set size (kbytes)')
				fi
				printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$fmt" "$rc" \
					"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" "$cpu" "$rss" "$(fsize "$d/out")" >>"$SNAPRES"
				[ "$rc" = 0 ] || say "   snapshot failed ($rc): $(head -c 300 "$d/err")"
			done
		done
		open_gate
	else
		say "   many_threads did not start"
		kill -9 "$WL_PID" 2>/dev/null
		close_gate
	fi
	wait "$WL_PID" 2>/dev/null
fi

# ------------------------- snapshot of runtime-lock processes (35 threads)
# An OCaml 4.13 program and a CPython 3.11 one, each with 34 waiters queued
# on the runtime lock whose holder sleeps in read(): the lock models' cost;
# a 25-thread CPython one (python25), whose every thread's Python stack and
# name the thread model reads; and a JVM (Debian's OpenJDK 17) with 25
# application threads, 24 of them blocked entering the monitor the 25th
# holds while it sleeps: the HotSpot model's (VMStructs tables, thread
# names, monitor owners, Java frames).
RTSNAP=$W/rtsnap.tsv
: >"$RTSNAP"
if part rtsnap; then
	say "== snapshot of runtime-lock processes"
	for rt in ocaml python python25 java; do
		if [ "$rt" = ocaml ]; then
			[ -x build/workloads/ocaml_holder ] || { say "   ocaml_holder not built"; continue; }
			build/workloads/ocaml_holder -t 34 --no-wait >"$W/rt.$rt.out" 2>&1 &
		elif [ "$rt" = java ]; then
			[ -x /usr/bin/java ] || { say "   /usr/bin/java missing"; continue; }
			[ -f build/workloads/java/JavaLocks.class ] || { say "   JavaLocks not built"; continue; }
			/usr/bin/java -cp build/workloads/java JavaLocks convoy -w 24 >"$W/rt.$rt.out" 2>&1 &
		else
			[ -x /usr/bin/python3 ] || { say "   /usr/bin/python3 missing"; continue; }
			/usr/bin/python3 tests/workloads/gil_holder.py -t "$([ "$rt" = python ] && echo 34 || echo 23)" \
				>"$W/rt.$rt.out" 2>&1 &
		fi
		RT_PID=$!
		CHILDREN+=("$RT_PID")
		if wait_for "$W/rt.$rt.out" '^ready' 60 "$RT_PID"; then
			sleep 1
			for ((i = 0; i < (SMOKE ? 1 : 5); i++)); do
				t0=$(now)
				"$LT" snapshot -p "$RT_PID" >"$W/rt.$rt.snap" 2>&1
				rc=$?
				t1=$(now)
				first=$(grep -m1 -E '^(CONVOY|LOCK WAIT|DEADLOCK|IDLE|OK)' "$W/rt.$rt.snap" | cut -c1-60)
				pyf=$(grep -cE '^    (py |java) ' "$W/rt.$rt.snap")
				printf '%s\t%s\t%s\t%s\t%s\n' "$rt" "$rc" \
					"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" "$first" "$pyf" >>"$RTSNAP"
			done
		else
			say "   $rt workload did not start"
		fi
		kill -9 "$RT_PID" 2>/dev/null
		wait "$RT_PID" 2>/dev/null
	done
fi

# ----------------------- report of 10,000 threads each on its own futex
# A crafted trace (tests/lib/gen_trace.c): every thread waited once on its own
# futex, was woken, and waits on it again at the end: 10,000 locks, 10,000
# findings.  The text report used to take minutes (target: under 2 s).
REPRES=$W/report.tsv
: >"$REPRES"
if part report; then
	say "== report of 10,000 threads each on its own futex"
	if cc -O2 -std=gnu11 -D_GNU_SOURCE -DLT_GEN_MAIN -Iinclude -Isrc/base -Itests/lib tests/lib/gen_trace.c build/liblocktrace.a \
		$(pkg-config --libs libbpf libelf libdw zlib 2>/dev/null || echo -lbpf -lelf -ldw -lz) -lpthread \
		-o "$W/bin/gen_trace" 2>"$W/gen.err" && "$W/bin/gen_trace" "$W/own.ltrace" 10000 &&
		"$W/bin/gen_trace" "$W/ownsym.ltrace" 10000 woken symbols; then
		for ((i = 0; i < (SMOKE ? 1 : 5); i++)); do
			for fmt in text json text+symbols json+symbols; do
				rargs=()
				[ "${fmt%+symbols}" = json ] && rargs=(--json)
				tr=$W/own.ltrace
				[ "$fmt" != "${fmt%+symbols}" ] && tr=$W/ownsym.ltrace
				t0=$(now)
				"$LT" report "${rargs[@]}" "$tr" >"$W/own.out" 2>"$W/own.err"
				rc=$?
				t1=$(now)
				printf '%s\t%s\t%s\t%s\n' "$fmt" "$rc" \
					"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" "$(fsize "$W/own.out")" >>"$REPRES"
			done
		done
	else
		say "   cannot build or run tests/lib/gen_trace.c: $(head -c 300 "$W/gen.err")"
	fi
fi

# ------------------------- snapshot of small processes, symbol cache cold/warm
# Most of a small snapshot is loading symbol tables and debug information
# (libc's DWARF is MBs to decompress); they are kept per build-id between
# runs (src/proc/symcache.h).  Cold: an empty cache directory; warm: one filled
# by an unmeasured run.  The deadlock workload (3 threads) and a JVM of 25
# threads (JavaLocks deadlock -w 4: a deadlocked pair, 4 threads behind it
# and the JVM's own), where Java is installed.
SMALLRES=$W/smallsnap.tsv
: >"$SMALLRES"
small_snap() { # name pid: cold and warm runs into $SMALLRES
	local name=$1 pid=$2 i cache t0 t1 rc nt
	nt=$(ls "/proc/$pid/task" | wc -l)
	LOCKTRACE_CACHE_DIR=$W/symcache.$name "$LT" snapshot -p "$pid" >/dev/null 2>&1
	for ((i = 0; i < (SMOKE ? 1 : 5); i++)); do
		for cache in cold warm; do
			local dir=$W/symcache.$name
			[ "$cache" = cold ] && dir=$W/symcache.$name.cold.$i
			t0=$(now)
			LOCKTRACE_CACHE_DIR=$dir "$LT" snapshot -p "$pid" >"$W/small.out" 2>&1
			rc=$?
			t1=$(now)
			printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$nt" "$cache" "$rc" \
				"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >>"$SMALLRES"
		done
	done
}
if part smallsnap; then
	say "== snapshot of small processes (symbol cache cold and warm)"
	"$W/bin/deadlock" --no-wait >"$W/dl.out" 2>&1 &
	DL_PID=$!
	CHILDREN+=("$DL_PID")
	if wait_for "$W/dl.out" '^ready' 30 "$DL_PID"; then
		small_snap deadlock "$DL_PID"
	else
		say "   deadlock did not start"
	fi
	kill -9 "$DL_PID" 2>/dev/null
	wait "$DL_PID" 2>/dev/null
	if [ -x /usr/bin/java ] && [ -f build/workloads/java/JavaLocks.class ]; then
		/usr/bin/java -cp build/workloads/java JavaLocks deadlock -w 4 >"$W/jvm.out" 2>&1 </dev/null &
		JVM_PID=$!
		CHILDREN+=("$JVM_PID")
		if wait_for "$W/jvm.out" '^ready' 60 "$JVM_PID"; then
			small_snap jvm "$JVM_PID"
		else
			say "   the JVM did not start: $(head -c 200 "$W/jvm.out")"
		fi
		kill -9 "$JVM_PID" 2>/dev/null
		wait "$JVM_PID" 2>/dev/null
	else
		say "   no /usr/bin/java or JavaLocks not built: the JVM row is not measured"
	fi
fi

# ------------------------- several processes: 8 contending on one shared lock
# shared_locks --mode contend -P 8 --hold 0: 8 processes (a parent and the 7
# it forks after its gate) each take one process-shared mutex in a memfd
# MULTI_N times, holding it for no time: every acquisition is contended, a
# futex call and a switch or two.  Untraced, then launched under `locktrace
# record` (which follows the forks: one trace of 8 processes), alternating;
# the workload times itself from its gate to its last child's exit.
MULTIRES=$W/multi.tsv
: >"$MULTIRES"
MULTI_N=$((SMOKE ? 500 : 20000))
multi_run() { # round traced(0|1)
	local d=$W/multi.$1.$2 rc secs sum events lost procs
	mkdir -p "$d"
	if [ "$2" = 1 ]; then
		"$LT" record -o "$d/t.ltrace" --no-status -- "$W/bin/shared_locks" --mode contend -P 8 \
			-n "$MULTI_N" --hold 0 --no-wait >"$d/wl.out" 2>"$d/err"
	else
		"$W/bin/shared_locks" --mode contend -P 8 -n "$MULTI_N" --hold 0 --no-wait >"$d/wl.out" 2>"$d/err"
	fi
	rc=$?
	secs=$(sed -n 's/^done .*seconds=\([0-9.]*\).*/\1/p' "$d/wl.out")
	sum=$(grep -E '^locktrace: .* events, ' "$d/err" | tail -1)
	events=$(sed -n 's/.*, \([0-9]*\) events, \([0-9]*\) lost,.*/\1/p' <<<"$sum")
	lost=$(sed -n 's/.*, \([0-9]*\) events, \([0-9]*\) lost,.*/\2/p' <<<"$sum")
	procs=$(sed -n 's/.*: \([0-9]*\) processes (.*/\1/p' <<<"$sum")
	[ -z "$secs" ] && [ "$rc" = 0 ] && rc=1
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$rc" "${secs:-0}" "${events:-0}" "${lost:-0}" \
		"${procs:-1}" "$(fsize "$d/t.ltrace")" >>"$MULTIRES"
	say "   round $1 $([ "$2" = 1 ] && echo traced || echo untraced): ${secs:-failed} s${events:+, $events events, $lost lost, $procs processes}"
	rm -rf "$d"
}
MULTI_DATE=
if part multi8; then
	say "== several processes: 8 contending on one shared lock"
	MULTI_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
	for ((r = 0; r < (SMOKE ? 1 : MULTI_ROUNDS); r++)); do
		if [ $((r % 2)) = 0 ]; then multi_run "$r" 0; multi_run "$r" 1
		else multi_run "$r" 1; multi_run "$r" 0; fi
	done
fi

# ------------------------------------------------- conversion to Perfetto
CONV="pending: no \`locktrace convert\` in this build"
CONV_CMD=
if ! part convert; then
	CONV="not measured in this run (--parts)"
elif "$LT" convert --help >/dev/null 2>&1; then
	say "== conversion to Perfetto"
	if [ ! -s "$W/demo.ltrace" ]; then
		CONV="not measured: no locktrace trace from the runs above"
	else
		ev=$(cat "$W/demo.events")
		CONV_CMD="locktrace convert TRACE -o OUT.perfetto-trace"
		t0=$(now)
		if [ -n "$GTIME" ]; then
			"$GTIME" -v -o "$W/conv.time" "$LT" convert "$W/demo.ltrace" -o "$W/demo.perfetto-trace" >"$W/conv.out" 2>&1
		else
			"$LT" convert "$W/demo.ltrace" -o "$W/demo.perfetto-trace" >"$W/conv.out" 2>&1
		fi
		rc=$?
		t1=$(now)
		if [ "$rc" = 0 ] && [ -s "$W/demo.perfetto-trace" ]; then
			CONV=$(awk -v e="$ev" -v a="$t0" -v b="$t1" -v ib="$(fsize "$W/demo.ltrace")" \
				-v ob="$(fsize "$W/demo.perfetto-trace")" -v rss="$(time_field "$W/conv.time" 'Maximum resident set size (kbytes)')" \
				'BEGIN { printf "%d events (%.1f MB trace) in %.2f s: %.0f events/s; Perfetto output %.1f bytes/event (%.1f MB); peak RSS %.0f MB", e, ib / 1e6, b - a, e / (b - a), ob / e, ob / 1e6, rss / 1024 }')
		else
			CONV="failed (exit $rc): $(head -c 300 "$W/conv.out" | tr '\n' ' ')"
		fi
	fi
fi
say "   $CONV"

# ================================================================= report
T_END=$(date +%s)
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
REPORT=$W/report.md
{
	echo "Measured $DATE on $MACHINE; load average $LOAD_BEFORE before, $LOAD_AFTER after"
	echo "(whatever else runs on the machine shares its cores). The whole bench took $((T_END - T_START)) s."
	echo
	echo "### Overhead on the demo workload"
	echo
	echo "Workload: \`demo -t $THREADS -d $SECS --early\` (64 threads, nonblocking socketpairs, select, 8 KiB copies,"
	echo "runtime lock released around each blocking call; the threads exist before the tool attaches and start"
	echo "at the gate, once the tool is attached). $ROUNDS round(s); in each round every configuration runs once,"
	echo "in an order that rotates from round to round. Ratio: iterations/s traced over iterations/s of the"
	echo "untraced run of the same round; median [min–max] over rounds."
	echo
	echo "| tool | runs ok | throughput ratio | iterations/s | events/run | syscalls/iteration | lost/run | bytes/event | CPU s after gate | CPU s total | peak RSS MB |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for tool in "${TOOLS[@]}"; do
		n_ok=$(col "$tool" 4 | wc -l)
		n_all=$(awk -F'\t' -v t="$tool" '$1 == t' "$RES" | wc -l)
		if [ "$n_ok" = 0 ]; then
			why=$(awk -F'\t' -v t="$tool" '$1 == t { print $3 ": " $15; exit }' "$RES")
			echo "| $tool | 0/$n_all | $why | | | | | | | | |"
			continue
		fi
		read -r rm ra rb _ <<<"$(ratios "$tool" | stat_line)"
		read -r im ia ib _ <<<"$(col "$tool" 4 | stat_line)"
		if [ "$tool" = untraced ]; then
			echo "| untraced | $n_ok/$n_all | 1 | $(fmt3 "$im" "$ia" "$ib" 0) | | | | | | | |"
			continue
		fi
		read -r em ea eb _ <<<"$(col "$tool" 7 | stat_line)"
		read -r sm sa sb _ <<<"$(awk -F'\t' -v t="$tool" '$1 == t && $3 == "ok" && $5 > 0 { print $8 / $5 }' "$RES" | stat_line)"
		read -r lm la lb _ <<<"$(col "$tool" 9 | stat_line)"
		read -r bm ba bb _ <<<"$(awk -F'\t' -v t="$tool" '$1 == t && $3 == "ok" && $7 > 0 { print $10 / $7 }' "$RES" | stat_line)"
		read -r cm ca cb _ <<<"$(col "$tool" 12 | stat_line)"
		read -r tm ta tb _ <<<"$(col "$tool" 11 | stat_line)"
		read -r xm xa xb _ <<<"$(col "$tool" 14 | awk '{ print $1 / 1024 }' | stat_line)"
		name=$tool
		case $tool in
		floor|floorsched)
			what="floor: empty programs on the same tracepoints"
			[ "$tool" = floorsched ] && what="floor: empty programs on the scheduler tracepoints only (those of --calls blocking)"
			echo "| $what | $n_ok/$n_all | $(fmt3 "$rm" "$ra" "$rb" 3) | $(fmt3 "$im" "$ia" "$ib" 0) | - | - | - | - | $(fmt3 "$cm" "$ca" "$cb" 2) | $(fmt3 "$tm" "$ta" "$tb" 2) | $(fmt3 "$xm" "$xa" "$xb" 1) |"
			continue ;;
		locktrace) name="locktrace record -p" ;;
		ltblocking) name="locktrace record -p --calls blocking" ;;
		bpftrace) name="bpftrace (scripts/bench-events.bt)" ;;
		perf) name="perf trace -p" ;;
		strace) name="strace -f -p" ;;
		esac
		echo "| $name | $n_ok/$n_all | $(fmt3 "$rm" "$ra" "$rb" 3) | $(fmt3 "$im" "$ia" "$ib" 0) | $(fmt3 "$em" "$ea" "$eb" 0) | $(fmt3 "$sm" "$sa" "$sb" 1) | $(fmt3 "$lm" "$la" "$lb" 0) | $(fmt3 "$bm" "$ba" "$bb" 1) | $(fmt3 "$cm" "$ca" "$cb" 2) | $(fmt3 "$tm" "$ta" "$tb" 2) | $(fmt3 "$xm" "$xa" "$xb" 1) |"
	done
	echo
	failed=$(awk -F'\t' '$3 != "ok" { printf "%s round %d: %s (%s); ", $1, $2 + 1, $3, $15 }' "$RES")
	[ -n "$failed" ] && echo "Runs not counted: ${failed%; }." && echo
	echo "Units: *events* are what each tool writes: locktrace and bpftrace one per syscall entry, syscall exit,"
	echo "switch and wake-up; perf trace and strace one line per system call (entry and exit together)."
	echo "*syscalls/iteration*: completed calls recorded (locktrace: exit events; bpftrace: exit lines) per"
	echo "workload iteration, the figure comparable across tools (a tool that drops events records fewer)."
	echo "With \`--calls blocking\` locktrace records only the calls a thread slept in or woke another"
	echo "thread from (their entries written at that moment, returns when the thread runs again), so its"
	echo "*syscalls/iteration* counts those, not every call."
	echo "perf trace and strace trace only the system calls; locktrace and bpftrace"
	echo "also the scheduler. *CPU s after gate*: the tool's user+system time from the gate to its exit (CPU"
	echo "spent by BPF programs in the target's context is not in it; it shows as lower throughput);"
	echo "*total* adds start-up (BTF loading, bpftrace's compilation) and the final drain. strace cannot lose"
	echo "events (it stops the thread). *floor*: programs that return at once, attached to the tracepoints"
	echo "locktrace uses (scripts/bench-floor.bpf.c): what attaching alone costs, a bound for any tracer"
	echo "built on them; the second floor leaves out the two system-call tracepoints, as \`--calls blocking\`"
	echo "does."
	echo
	echo "Commands (PID = the workload):"
	echo
	echo '```'
	echo "build/workloads/demo -t $THREADS -d $SECS --early          # waits at its gate until the tool is attached"
	echo "bench-floor floor.bpf.o                                      # scripts/bench-floor.c, .bpf.c"
	echo "locktrace record -p PID -o FILE --no-status                  # default settings: 16 MiB ring"
	echo "locktrace record -p PID -o FILE --no-status --calls blocking # no syscall tracepoints"
	echo "bpftrace -o FILE scripts/bench-events.bt PID"
	echo "perf trace -p PID -e $SYSCALLS -o FILE"
	echo "strace -f -p PID -e trace=$SYSCALLS -o FILE"
	echo '```'
	echo
	echo "Each tool runs under \`/usr/bin/time -v\` (CPU total, peak RSS)."
	echo
	if [ -s "$ONOFF_MD" ]; then
		sed 's/^### /#### /' "$ONOFF_MD"
		echo
	fi
	echo "### Collector: events per second with zero loss"
	echo
	echo "\`gen_events -t T -d $GEN_SECS\` (FUTEX_WAKE in a tight loop on every thread: 2 events per call) under"
	echo "\`locktrace record -p PID [-b RING]\`. Events/s over the generator's run; *capacity* = events per"
	echo "CPU-second of the collector from the gate to its exit (the rate it could drain with a whole core)."
	echo
	echo "| threads | ring | events | events/s | lost | collector CPU s | capacity (events/CPU-s) | bytes/event |"
	echo "|---|---|---|---|---|---|---|---|"
	awk -F'\t' '{ eps = 0; if ($5 > 0) eps = $3 / $5
		capt = "-"; if ($7 > 0) capt = sprintf("%.1fM", $3 / $7 / 1e6)
		bpe = 0; if ($3 > 0) bpe = $9 / $3
		printf "| %s | %s | %d | %.2fM | %d | %.2f | %s | %.1f |\n", $1, $2, $3, eps / 1e6, $4, $7, capt, bpe }' "$GENRES"
	best=$(awk -F'\t' '$4 == 0 && $5 > 0 { e = $3 / $5; if (e > b) { b = e; r = $2; t = $1 } } END { if (b) printf "%.2fM events/s (-t %s, ring %s)", b / 1e6, t, r; else print "none without loss" }' "$GENRES")
	echo
	echo "Highest rate with zero loss: $best."
	for calls in all blocking; do
		[ -s "$PROF.$calls" ] || continue
		read -r iters_prof secs_prof <"$PROF.$calls.run"
		echo
		echo "### Where the time goes: kernel side, \`--calls $calls\`"
		echo
		echo "One more locktrace run (\`--calls $calls\`) on the demo workload with \`sysctl kernel.bpf_stats_enabled=1\`"
		echo "(counters from \`bpftool prog show\`; the counting itself costs a little): ${iters_prof:-?} iterations in ${secs_prof:-?} s;"
		echo "*per iteration*: runs and CPU time per workload iteration."
		echo
		echo "| program | runs | ns/run | total ms | % of the run's 2-core time | runs/iteration | µs/iteration |"
		echo "|---|---|---|---|---|---|---|"
		awk -F'\t' -v s="${secs_prof:-1}" -v it="${iters_prof:-0}" -v nc="$(nproc)" '{ printf "| %s | %d | %.0f | %.1f | %.2f%% | %s | %s |\n", $1, $2, $2 ? $3 / $2 : 0, $3 / 1e6, $3 / (s * 1e9 * nc) * 100, it ? sprintf("%.1f", $2 / it) : "-", it ? sprintf("%.2f", $3 / it / 1e3) : "-" }' "$PROF.$calls"
	done
	echo
	echo "### Snapshot of a 1,000-thread process"
	echo
	echo "\`many_threads -t 1000\` (threads asleep in condvar, futex, read and nanosleep), then"
	echo "\`locktrace snapshot -p PID [--json]\`:"
	echo
	echo "| output | runs | wall s | CPU s | peak RSS MB | output bytes |"
	echo "|---|---|---|---|---|---|"
	for fmt in text json; do
		read -r n okn <<<"$(key_runs "$SNAPRES" "$fmt")"
		[ "$n" = 0 ] && continue
		read -r wm wa wb _ <<<"$(key_stat "$SNAPRES" "$fmt" '$3')"
		read -r cm ca cb _ <<<"$(key_stat "$SNAPRES" "$fmt" '$4')"
		read -r xm xa xb _ <<<"$(key_stat "$SNAPRES" "$fmt" '$5 / 1024')"
		ob=$(key_last "$SNAPRES" "$fmt" 6)
		echo "| $fmt | $okn/$n | $(fmt3 "$wm" "$wa" "$wb" 2) | $(fmt3 "$cm" "$ca" "$cb" 2) | $(fmt3 "$xm" "$xa" "$xb" 1) | $ob |"
	done
	echo
	echo "### Snapshot of runtime-lock processes"
	echo
	echo "35 threads each: \`ocaml_holder -t 34\` (OCaml 4.13, Debian's ocaml-nox) and"
	echo "\`gil_holder.py -t 34\` (Debian's python3.11), 34 waiters queued on the runtime lock"
	echo "whose holder sleeps in read(); python25: \`gil_holder.py -t 23\` (25 threads);"
	echo "\`locktrace snapshot -p PID\` (target: under 0.5 s; each Python thread's stack and name"
	echo "are read too: rt frames is how many Python or Java frames the snapshot shows)."
	echo "java: \`JavaLocks convoy -w 24\` on Debian's OpenJDK 17, 25 application threads (about 45"
	echo "with the JVM's own), 24 blocked entering the monitor the 25th holds asleep (target: under 1 s):"
	echo
	echo "| process | runs | wall s | rt frames | first line |"
	echo "|---|---|---|---|---|"
	for rt in ocaml python python25 java; do
		read -r n okn <<<"$(key_runs "$RTSNAP" "$rt")"
		[ "$n" = 0 ] && { echo "| $rt | not run | - | - | - |"; continue; }
		read -r wm wa wb _ <<<"$(key_stat "$RTSNAP" "$rt" '$3')"
		fl=$(key_last "$RTSNAP" "$rt" 4)
		pf=$(key_last "$RTSNAP" "$rt" 5)
		echo "| $rt | $okn/$n | $(fmt3 "$wm" "$wa" "$wb" 3) | ${pf:--} | \`$fl...\` |"
	done
	echo
	echo "### Snapshot of small processes"
	echo
	echo "\`locktrace snapshot -p PID\` of the \`deadlock\` workload and of a JVM (\`JavaLocks deadlock -w 4\`: a"
	echo "deadlocked pair and four threads blocked behind it, beside the JVM's own), with the symbol cache"
	echo "(src/proc/symcache.h) empty (*cold*, as the first run on a machine) and filled by an earlier run"
	echo "(*warm*). Targets (on an idle machine): a 3-thread process under 0.2 s, a 25-thread JVM under 0.5 s."
	echo
	echo "| process | threads | cache | runs | wall s |"
	echo "|---|---|---|---|---|"
	for name in deadlock jvm; do
		for cache in cold warm; do
			n=$(awk -F'\t' -v p="$name" -v c="$cache" '$1 == p && $3 == c' "$SMALLRES" | wc -l)
			[ "$n" = 0 ] && { echo "| $name | - | $cache | not run | - |"; continue; }
			okn=$(awk -F'\t' -v p="$name" -v c="$cache" '$1 == p && $3 == c && $4 == 0' "$SMALLRES" | wc -l)
			nt=$(awk -F'\t' -v p="$name" '$1 == p { print $2; exit }' "$SMALLRES")
			read -r wm wa wb _ <<<"$(awk -F'\t' -v p="$name" -v c="$cache" '$1 == p && $3 == c && $4 == 0 { print $5 }' "$SMALLRES" | stat_line)"
			echo "| $name | $nt | $cache | $okn/$n | $(fmt3 "$wm" "$wa" "$wb" 3) |"
		done
	done
	echo
	echo "### Report of 10,000 threads each on its own futex"
	echo
	echo "A crafted trace (\`tests/lib/gen_trace.c\`, $(fsize "$W/own.ltrace") bytes): 10,000 threads each waited once on"
	echo "its own futex, were woken, and wait on it again at the end: 10,000 locks and as many findings;"
	echo "\`locktrace report [--json] TRACE\` (target: under 2 s; the text report took minutes before issue 15);"
	echo "+symbols: the same with a SYMBOLS section naming the word after each futex, so that every"
	echo "lock is named by a look-up inside a named object:"
	echo
	echo "| output | runs | wall s | output bytes |"
	echo "|---|---|---|---|"
	for fmt in text json text+symbols json+symbols; do
		read -r n okn <<<"$(key_runs "$REPRES" "$fmt")"
		[ "$n" = 0 ] && { echo "| $fmt | not run | - | - |"; continue; }
		read -r wm wa wb _ <<<"$(key_stat "$REPRES" "$fmt" '$3')"
		bytes=$(key_last "$REPRES" "$fmt" 4)
		echo "| $fmt | $okn/$n | $(fmt3 "$wm" "$wa" "$wb" 2) | $bytes |"
	done
	echo
	echo "### Several processes: 8 contending on one shared lock"
	echo
	if [ -z "$MULTI_DATE" ]; then
		echo "Not measured in this run (--parts)."
	else
		echo "\`shared_locks --mode contend -P 8 -n $MULTI_N --hold 0\`: a parent and the 7 processes it forks each take"
		echo "one process-shared mutex (in a memfd) $MULTI_N times and release it at once: lock-bound, its contended"
		echo "acquisitions and releases are futex calls and switches; untraced, and launched under \`locktrace record -- ...\` (forks followed: one trace"
		echo "of 8 processes; the kernel filter is one hash lookup per event of another process, whatever their"
		echo "number), alternating. Throughput: acquisitions/s from the workload's gate to its last process's exit;"
		echo "ratio: traced over the untraced run of the same round; median [min–max]. Measured $MULTI_DATE."
		echo
		echo "| run | runs ok | acquisitions/s | throughput ratio | processes in the trace | events/run | lost/run | bytes/event |"
		echo "|---|---|---|---|---|---|---|---|"
		for tr in 0 1; do
			n=$(awk -F'\t' -v t="$tr" '$2 == t' "$MULTIRES" | wc -l)
			okn=$(awk -F'\t' -v t="$tr" '$2 == t && $3 == 0' "$MULTIRES" | wc -l)
			read -r tm ta tb _ <<<"$(awk -F'\t' -v t="$tr" -v k="$MULTI_N" '$2 == t && $3 == 0 && $4 > 0 { printf "%.0f\n", 8 * k / $4 }' "$MULTIRES" | stat_line)"
			if [ "$tr" = 0 ]; then
				echo "| untraced | $okn/$n | $(fmt3 "$tm" "$ta" "$tb" 0) | 1 | - | - | - | - |"
				continue
			fi
			read -r rm ra rb _ <<<"$(awk -F'\t' '$3 == 0 && $4 > 0 { s[$1, $2] = $4 }
				END { for (k in s) { split(k, p, SUBSEP); if (p[2] == 1 && ((p[1], 0) in s)) printf "%.4f\n", s[p[1], 0] / s[k] } }' "$MULTIRES" | stat_line)"
			read -r pm _ _ _ <<<"$(awk -F'\t' '$2 == 1 && $3 == 0 { print $7 }' "$MULTIRES" | stat_line)"
			read -r em _ _ _ <<<"$(awk -F'\t' '$2 == 1 && $3 == 0 { print $5 }' "$MULTIRES" | stat_line)"
			read -r lm _ _ _ <<<"$(awk -F'\t' '$2 == 1 && $3 == 0 { print $6 }' "$MULTIRES" | stat_line)"
			read -r bm _ _ _ <<<"$(awk -F'\t' '$2 == 1 && $3 == 0 && $5 > 0 { printf "%.1f\n", $8 / $5 }' "$MULTIRES" | stat_line)"
			echo "| locktrace record (8 processes) | $okn/$n | $(fmt3 "$tm" "$ta" "$tb" 0) | $(fmt3 "$rm" "$ra" "$rb" 2) | $pm | $em | $lm | $bm |"
		done
	fi
	echo
	echo "### Conversion to Perfetto"
	echo
	if [ -n "$CONV_CMD" ]; then
		echo "\`$CONV_CMD\` on the largest demo trace of the runs above: $CONV."
	else
		echo "$CONV."
	fi
	echo
	echo "### Targets"
	echo
	read -r rm ra rb rn <<<"$(ratios locktrace | stat_line)"
	lt_lost=$(col locktrace 9 | awk '{ s += $1 } END { print s + 0 }')
	lt_bpe=$(awk -F'\t' '$1 == "locktrace" && $3 == "ok" { e += $7; b += $10 } END { if (e) printf "%.1f", b / e; else print "-" }' "$RES")
	verdict() { [ "$1" = 1 ] && echo "met" || echo "**not met**"; }
	ok_ratio=$(awk -v m="$rm" 'BEGIN { v = m != "-" && m + 0 >= 0.90; print v }')
	beats=1
	for other in bpftrace perf; do
		read -r om _ _ on <<<"$(ratios "$other" | stat_line)"
		[ "$on" = 0 ] && continue
		awk -v a="$rm" -v b="$om" 'BEGIN { if (a != "-" && a + 0 > b + 0) exit 0; exit 1 }' || beats=0
	done
	read -r fm fa fb fn <<<"$(ratios floor | stat_line)"
	echo "| target | measured | |"
	echo "|---|---|---|"
	[ "$fn" != 0 ] && echo "| (bound) empty programs on the same tracepoints | ratio median $fm [$fa–$fb] | what attaching alone costs here |"
	read -r fm fa fb fn <<<"$(ratios floorsched | stat_line)"
	[ "$fn" != 0 ] && echo "| (bound) empty programs on the scheduler tracepoints only | ratio median $fm [$fa–$fb] | the same for \`--calls blocking\` |"
	echo "| throughput ratio ≥ 0.90 (default: every call) | median $rm over $rn round(s) | $(verdict "$ok_ratio") |"
	read -r bm ba bb bn <<<"$(ratios ltblocking | stat_line)"
	if [ "$bn" != 0 ]; then
		bl_lost=$(col ltblocking 9 | awk '{ s += $1 } END { print s + 0 }')
		echo "| throughput ratio ≥ 0.90 with \`--calls blocking\` | median $bm [$ba–$bb] over $bn round(s), $bl_lost lost | $(verdict "$(awk -v m="$bm" 'BEGIN { v = m != "-" && m + 0 >= 0.90; print v }')") |"
	fi
	echo "| zero lost events at default settings | $lt_lost lost in all runs | $(verdict "$([ "$lt_lost" = 0 ] && [ "$rn" != 0 ] && echo 1)") |"
	echo "| better than bpftrace and perf trace in the same run | median ratios above | $(verdict "$beats") |"
	echo "| ≤ 16 bytes/event on disk | $lt_bpe | $(verdict "$(awk -v b="$lt_bpe" 'BEGIN { v = b != "-" && b + 0 <= 16; print v }')") |"
	for row in "deadlock 0.2 3-thread process" "jvm 0.5 25-thread JVM"; do
		read -r name lim what <<<"$row"
		read -r sm _ sb sn <<<"$(awk -F'\t' -v p="$name" '$1 == p && $3 == "cold" && $4 == 0 { print $5 }' "$SMALLRES" | stat_line)"
		[ "$sn" = 0 ] && continue
		echo "| snapshot of a $what < $lim s (cold symbol cache) | median $sm s, max $sb s | $(verdict "$(awk -v m="$sm" -v l="$lim" 'BEGIN { print m + 0 < l + 0 }')") |"
	done
	gbest=$(awk -F'\t' '$4 == 0 && $5 > 0 { e = $3 / $5; if (e > b) b = e } END { print b + 0 }' "$GENRES")
	echo "| collector ≥ 2M events/s with zero loss | $(awk -v b="$gbest" 'BEGIN { printf "%.2fM", b / 1e6 }') | $(verdict "$(awk -v b="$gbest" 'BEGIN { v = b + 0 >= 2e6; print v }')") |"
} >"$REPORT"

# machine-readable lines (the smoke test reads the locktrace one)
for tool in "${TOOLS[@]}"; do
	[ "$tool" = untraced ] && continue
	if [ "$(col "$tool" 4 | wc -l)" = 0 ]; then
		st=$(awk -F'\t' -v t="$tool" '$1 == t { print $3; exit }' "$RES")
		say "RESULT tool=$tool status=${st:-missing}"
		continue
	fi
	read -r rm ra rb _ <<<"$(ratios "$tool" | stat_line)"
	read -r lm _ _ _ <<<"$(col "$tool" 9 | stat_line)"
	read -r em _ _ _ <<<"$(col "$tool" 7 | stat_line)"
	say "RESULT tool=$tool status=ok ratio=$rm min=$ra max=$rb events=$em lost=$lm"
done

echo
cat "$REPORT"
if [ -n "$OUT" ]; then
	begin='<!-- bench:begin (scripts/bench.sh writes what is between these markers) -->'
	end='<!-- bench:end -->'
	if [ -f "$OUT" ] && grep -qF "$begin" "$OUT" && grep -qF "$end" "$OUT"; then
		awk -v b="$begin" -v e="$end" -v f="$REPORT" '
			$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
			$0 == e { skip = 0 }
			!skip' "$OUT" >"$W/out.md" && cp "$W/out.md" "$OUT"
	else
		{ echo "# Benchmarks"; echo; echo "$begin"; cat "$REPORT"; echo "$end"; } >"$OUT"
	fi
	say "bench: results written to $OUT"
fi
exit 0
