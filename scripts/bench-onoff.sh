#!/usr/bin/env bash
# What a tracer costs the demo, measured inside one long run: the recorder is
# attached and detached in alternation while the demo prints its iteration
# count every --window milliseconds (100), and the throughput of each attached stretch
# is compared with that of the untraced stretches just before and just
# after it.  On a shared machine whose speed drifts from minute to minute
# this pairs each traced stretch with untraced ones seconds away, instead
# of with a separate run of the demo (scripts/bench.sh --parts overhead).
#
#   scripts/bench-onoff.sh [--smoke] [--cycles N] [--on S] [--off S]
#                          [--window MS] [--tools LIST] [--bin DIR]
#                          [--md FILE] [--keep DIR]
#   scripts/bench-onoff.sh --analyze DIR [--md FILE]
#
# The timeline: demo -t 64 --window MS starts; after a warm-up second,
#   off, tool 1, off, tool 2, off, ..., tool k, off      (one cycle)
# repeated N times, the order of the tools rotating from cycle to cycle so
# that none always follows the same one.  A tool's phase has three parts:
#   start-up  from its launch to its ready line (BPF loaded, attached);
#   steady    from the ready line to the stop request (SIGINT), S seconds;
#   drain     from the stop request to its exit (the trace written).
# An off phase lasts S seconds, from the previous tool's exit to the next
# launch.  Ratio of a phase: its iterations/s over the mean of the
# iterations/s of the off phases before and after it.  The tool "untraced"
# runs nothing during its phase: its ratios are the method's own noise, the
# smallest difference it can resolve.  Start-up and drain are reported as
# what attaching costs once: their length and the workload seconds lost in
# them (length x (1 - ratio)).
#
# --tools: of untraced,floor,floorsched,locktrace,ltblocking,ltb_NAME (as in
# scripts/bench.sh: ltb_NAME is locktrace record --calls blocking with the
# words of $LT_BENCH_ENV_NAME before it and those of $LT_BENCH_ARGS_NAME
# after it, e.g. LT_BENCH_ARGS_ring="--ring 256M"; $LT_BENCH_BIN_NAME, if
# set, is the locktrace binary it runs instead, to compare two builds in one
# run).  --bin DIR: use
# locktrace, demo, bench-floor and floor*.bpf.o from DIR (scripts/bench.sh
# passes its private copies); otherwise copies of build/ are taken and the
# floor is built here.  --md FILE: the markdown section goes there (default:
# printed at the end).  --smoke: one cycle of 1 s phases with untraced and
# one traced tool only, locktrace if asked for (a few seconds; `make test`
# runs it through bench.sh --smoke).
#
# --analyze DIR: the analysis again, of the files a run kept (--keep DIR,
# or bench.sh --keep DIR: DIR/onoff); needs no root and runs nothing.
#
# Prints one line per phase as it goes and, at the end, a machine-readable
#   ONOFF tool=T status=ok|failed ratio=MEDIAN min=.. max=.. q1=.. q3=.. sd=.. wmed=.. n=..
# line per tool (wmed: the median ratio of window medians).  Needs root,
# except --analyze.
set -uo pipefail
cd "$(dirname "$0")/.."

SMOKE=0 CYCLES=8 ON=3 OFF=3 WIN=100 THREADS=64 BIN= MD= KEEP= ANALYZE=
TOOLS_ARG=untraced,floorsched,floor,locktrace,ltblocking
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) SMOKE=1 ;;
	--cycles) CYCLES=${2-}; shift ;;
	--on) ON=${2-}; shift ;;
	--off) OFF=${2-}; shift ;;
	--window) WIN=${2-}; shift ;;
	--tools) TOOLS_ARG=${2-}; shift ;;
	--bin) BIN=${2-}; shift ;;
	--md) MD=${2-}; shift ;;
	--keep) KEEP=${2-}; shift ;;
	--analyze) ANALYZE=${2-}; shift ;;
	-h|--help) sed -n '2,/^set /{/^set /d;p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench-onoff: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ "$SMOKE" = 1 ]; then
	CYCLES=1 ON=1 OFF=1
	# the null configuration and the first traced one asked for
	first=
	IFS=, read -r -a tl <<<"$TOOLS_ARG"
	for t in "${tl[@]}"; do [ "$t" != untraced ] && [ -z "$first" ] && first=$t; done
	[[ ",$TOOLS_ARG," == *,locktrace,* ]] && first=locktrace
	TOOLS_ARG=untraced${first:+,$first}
fi
num_re='^[0-9]+(\.[0-9]+)?$'
[[ $CYCLES =~ ^[1-9][0-9]*$ ]] || { echo "bench-onoff: --cycles takes a positive integer" >&2; exit 2; }
[[ $ON =~ $num_re ]] && [[ $OFF =~ $num_re ]] ||
	{ echo "bench-onoff: --on and --off take seconds (e.g. 3 or 0.5)" >&2; exit 2; }
[[ $WIN =~ ^[1-9][0-9]*$ ]] || { echo "bench-onoff: --window takes milliseconds (a positive integer)" >&2; exit 2; }
IFS=, read -r -a TOOLS <<<"$TOOLS_ARG"
for t in "${TOOLS[@]}"; do
	case $t in
	untraced|floor|floorsched|locktrace|ltblocking|ltb_?*) ;;
	*) echo "bench-onoff: unknown tool '$t' (untraced, floor, floorsched, locktrace, ltblocking, ltb_NAME)" >&2
	   exit 2 ;;
	esac
done
if [ -n "$ANALYZE" ] && ! [ -s "$ANALYZE/phases.tsv" -a -s "$ANALYZE/demo.out" ]; then
	echo "bench-onoff: $ANALYZE has no phases.tsv and demo.out (the files --keep DIR keeps)" >&2
	exit 2
fi
if [ -z "$ANALYZE" ] && [ "$(id -u)" -ne 0 ]; then
	echo "bench-onoff: needs root (it loads BPF programs); run it with sudo" >&2
	exit 1
fi
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench-onoff: needs bash 5 (\$EPOCHREALTIME)" >&2; exit 1; }

W=$(mktemp -d "${TMPDIR:-/tmp}/ltonoff.XXXXXX")
# our children still running (a pid is dropped once waited for: it may be
# reused by someone else's process)
DPID= CUR_TP=
cleanup() {
	# only in the script itself (no subshell is signalled any more, but a
	# subshell that gets a signal as it starts runs this trap too)
	if [ "$BASHPID" = "$$" ]; then
		for p in $DPID $CUR_TP; do kill -9 "$p" 2>/dev/null; done
		if [ -n "$KEEP" ]; then
			mkdir -p "$KEEP" && cp -r "$W"/. "$KEEP"/ && echo "bench-onoff: work files kept in $KEEP"
		fi
		rm -rf "$W"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Private copies: others may rebuild build/ while this runs.
if [ -z "$BIN" ] && [ -z "$ANALYZE" ]; then
	BIN=$W/bin
	mkdir -p "$BIN"
	for f in build/locktrace build/workloads/demo; do
		[ -x "$f" ] || { echo "bench-onoff: $f is missing; run make all first" >&2; exit 1; }
		cp "$f" "$BIN/"
	done
	need_floor=0
	for t in "${TOOLS[@]}"; do [[ $t == floor* ]] && need_floor=1; done
	if [ "$need_floor" = 1 ]; then
		clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ibuild -c scripts/bench-floor.bpf.c \
			-o "$BIN/floor.bpf.o" 2>"$W/floor.err" &&
			clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -DSCHED_ONLY -Ibuild \
				-c scripts/bench-floor.bpf.c -o "$BIN/floorsched.bpf.o" 2>>"$W/floor.err" &&
			cc -O2 scripts/bench-floor.c $(pkg-config --cflags --libs libbpf 2>/dev/null || echo -lbpf) \
				-o "$BIN/bench-floor" 2>>"$W/floor.err" ||
			echo "bench-onoff: cannot build scripts/bench-floor: $(head -c 200 "$W/floor.err" | tr '\n\t' '  ')"
	fi
fi
LT=$BIN/locktrace

# ------------------------------------------------------------ helpers
# Waits without a process of its own (a sleep(1) per poll would be CPU
# taken from the workload): a read with a timeout on a fifo nobody writes.
mkfifo "$W/nap"
exec {NAP}<>"$W/nap"
nap() { read -r -t "$1" -u "$NAP" _; }
# wait_line FILE ERE SECONDS PID: 0 once a line of FILE matches (polled
# every 5 ms, with bash builtins only), 1 on timeout or when PID exits.
wait_line() {
	local f=$1 re=$2 lim=$3 pid=$4 fd line acc= end
	end=$((${EPOCHREALTIME/./} + ${lim%.*} * 1000000))
	exec {fd}<"$f" || return 1
	while :; do
		while IFS= read -r -u "$fd" line; do
			acc+=$line
			[[ $acc =~ $re ]] && { exec {fd}<&-; return 0; }
			acc=
		done
		acc+=$line # a line not finished yet
		[[ $acc =~ $re ]] && { exec {fd}<&-; return 0; }
		if ! kill -0 "$pid" 2>/dev/null || [ "${EPOCHREALTIME/./}" -gt "$end" ]; then
			while IFS= read -r -u "$fd" line || [ -n "$line" ]; do
				acc+=$line
				[[ $acc =~ $re ]] && { exec {fd}<&-; return 0; }
				acc=
			done
			exec {fd}<&-
			return 1
		fi
		nap 0.005
	done
}
fsize() { stat -c %s "$1" 2>/dev/null || echo 0; }

say() { printf '%s\n' "$*"; }
DEMO_GONE=
if [ -n "$ANALYZE" ]; then
	cp "$ANALYZE/phases.tsv" "$ANALYZE/demo.out" "$W/"
	PH=$W/phases.tsv
	# the tools in their first order, the run's figures from its meta file
	# (older runs kept none: the off phases' bounds are taken from the phases)
	IFS=, read -r -a TOOLS <<<"$(awk -F'\t' '!s[$1]++ { printf "%s%s", n++ ? "," : "", $1 }' "$PH")"
	CYCLES=$(awk -F'\t' '$2 + 1 > c { c = $2 + 1 } END { print c + 0 }' "$PH")
	LOAD_BEFORE=unknown LOAD_AFTER=unknown DATE="(analysed again from $ANALYZE)"
	T0=$(awk -F'\t' -v off="$OFF" 'NR == 1 { printf "%d", $3 - off * 1e6 }' "$PH")
	T1=$(awk -F'\t' -v off="$OFF" '{ l = $6 } END { printf "%d", l + off * 1e6 }' "$PH")
	# shellcheck disable=SC1091
	[ -f "$ANALYZE/meta" ] && . "$ANALYZE/meta"
else
# ------------------------------------------------------------ the demo
# Its -d outlasts the plan; it is stopped at the end.
NT=${#TOOLS[@]}
PLAN=$(awk -v c="$CYCLES" -v k="$NT" -v on="$ON" -v off="$OFF" 'BEGIN { printf "%d", c * k * (on + off + 30) + off + 60 }')
: >"$W/demo.out" # before the child opens it: wait_line reads it at once
"$BIN/demo" -t "$THREADS" -d "$PLAN" --window "$WIN" --no-wait >"$W/demo.out" 2>&1 &
DPID=$!
if ! wait_line "$W/demo.out" '^tick ' 60 "$DPID"; then
	echo "bench-onoff: the demo did not start: $(head -c 300 "$W/demo.out")" >&2
	exit 1
fi
PH=$W/phases.tsv # tool cycle launch ready stop exit status events lost note (times in µs)
: >"$PH"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
say "== on/off: demo -t $THREADS --window $WIN (pid $DPID); $CYCLES cycle(s) of ${TOOLS_ARG//,/, }; ${ON} s on, ${OFF} s off; load average now: $LOAD_BEFORE"
nap "$([ "$SMOKE" = 1 ] && echo 0.3 || echo 1)" # warm-up, not counted
T0=${EPOCHREALTIME/./} # µs, no fork
nap "$OFF"

# phase TOOL CYCLE: one attach/steady/detach of TOOL, then an off phase.
phase() {
	local tool=$1 cyc=$2 d=$W/ph.$1.$2 tp= ready_re= ready_f= ok=1 note= st
	local tl tr ts tx events=0 lost=0 status=ok
	mkdir -p "$d"
	: >"$d/out"
	: >"$d/err"
	tl=${EPOCHREALTIME/./} # µs, no fork
	case $tool in
	untraced) ;;
	floor|floorsched)
		if [ -x "$BIN/bench-floor" ]; then
			"$BIN/bench-floor" "$BIN/$tool.bpf.o" >"$d/out" 2>"$d/err" &
			tp=$!
			ready_re='^attached' ready_f=$d/out
		else
			ok=0 note="no bench-floor"
		fi
		;;
	locktrace|ltblocking|ltb_*)
		local calls=all venv=() vargs=() lt=$LT
		[ "$tool" != locktrace ] && calls=blocking
		if [[ $tool == ltb_* ]]; then
			local ev=LT_BENCH_ENV_${tool#ltb_} av=LT_BENCH_ARGS_${tool#ltb_} bv=LT_BENCH_BIN_${tool#ltb_}
			read -r -a venv <<<"${!ev:-}"
			read -r -a vargs <<<"${!av:-}"
			[ -n "${!bv:-}" ] && lt=${!bv}
		fi
		env "${venv[@]}" "$lt" record -p "$DPID" -o "$d/t.ltrace" -d 600 --no-status --calls "$calls" \
			"${vargs[@]}" 2>"$d/err" &
		tp=$!
		ready_re='^locktrace \(pid [0-9]+\): recording' ready_f=$d/err
		;;
	esac
	CUR_TP=$tp
	if [ "$ok" = 1 ] && [ -n "$tp" ] && ! wait_line "$ready_f" "$ready_re" 60 "$tp"; then
		ok=0 note="did not start: $(head -c 200 "$d/err" | tr '\n\t' '  ')"
	fi
	tr=${EPOCHREALTIME/./} # µs, no fork
	[ "$ok" = 1 ] && nap "$ON"
	ts=${EPOCHREALTIME/./} # µs, no fork
	if [ -n "$tp" ]; then
		if [ "$ok" = 1 ]; then
			kill -INT "$tp" 2>/dev/null
			# a drain that hangs must not hang the bench: polled with
			# builtins (a guard subshell killed while it starts runs the
			# EXIT trap, with its cleanup, in bash 5.2)
			local lim=$((${EPOCHREALTIME/./} + 120000000))
			local stl
			while read -r stl 2>/dev/null <"/proc/$tp/stat" && [[ $stl != *") Z "* ]]; do
				[ "${EPOCHREALTIME/./}" -gt "$lim" ] && { kill -9 "$tp"; break; }
				nap 0.01
			done
			wait "$tp"
			st=$?
			[ "$st" != 0 ] && ok=0 note="exit status $st: $(tail -c 200 "$d/err" | tr '\n\t' '  ')"
		else
			kill -9 "$tp" 2>/dev/null
			wait "$tp" 2>/dev/null
		fi
	fi
	tx=${EPOCHREALTIME/./} # µs, no fork
	CUR_TP=
	if ! kill -0 "$DPID" 2>/dev/null; then
		# what came before is still measured; this phase is not
		wait "$DPID"
		st=$?
		DEMO_GONE="the demo exited in cycle $((cyc + 1)) during $tool, $([ "$st" -gt 128 ] &&
			echo "killed by signal $((st - 128))" || echo "status $st"); the phases after it were not run"
		DPID=
		say "   $DEMO_GONE"
		# its launch still ends the off phase before it
		printf '%s\t%s\t%s\t%s\t%s\t%s\tfailed\t0\t0\tthe demo exited\n' "$tool" "$cyc" "$tl" "$tr" "$ts" "$tx" >>"$PH"
		rm -rf "$d"
		return 1
	fi
	if [ "$ok" = 1 ] && [[ $tool == l* ]]; then
		local sum
		sum=$(grep -E '^locktrace: .* events, ' "$d/err" | tail -1)
		events=$(sed -n 's/.*, \([0-9]*\) events, \([0-9]*\) lost,.*/\1/p' <<<"$sum")
		lost=$(sed -n 's/.*, \([0-9]*\) events, \([0-9]*\) lost,.*/\2/p' <<<"$sum")
		[ -z "$events" ] && ok=0 note="no summary: $(tail -c 200 "$d/err" | tr '\n\t' '  ')"
	fi
	[ "$ok" = 1 ] || status=failed
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$cyc" "$tl" "$tr" "$ts" "$tx" "$status" \
		"${events:-0}" "${lost:-0}" "$note" >>"$PH"
	printf '   cycle %d %-11s start-up %5.2f s, steady %5.2f s, drain %5.2f s%s\n' "$cyc" "$tool" \
		"$(((tr - tl) / 1000))e-3" "$(((ts - tr) / 1000))e-3" "$(((tx - ts) / 1000))e-3" \
		"$([ "$status" = ok ] && [ "$events" != 0 ] && echo ", $events events, $lost lost")${note:+ ($note)}"
	rm -rf "$d"
	nap "$OFF"
	return 0
}
for ((c = 0; c < CYCLES; c++)); do
	for ((k = 0; k < NT; k++)); do
		phase "${TOOLS[$(((k + c) % NT))]}" "$c" || break 2
	done
done
T1=${EPOCHREALTIME/./} # µs, no fork
if [ -n "$DPID" ]; then
	kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
for v in T0 T1 DATE LOAD_BEFORE LOAD_AFTER CYCLES ON OFF WIN THREADS DEMO_GONE; do
	printf '%s=%q\n' "$v" "${!v}"
done >"$W/meta"
fi

# ------------------------------------------------------------ analysis
# iterations at time x: linear between the two ticks around it
grep '^tick ' "$W/demo.out" | sed 's/^tick t=\([0-9.]*\) iterations=\([0-9]*\)/\1 \2/' >"$W/ticks"
RATIOS=$W/ratios.tsv # tool cycle part ratio seconds lost_s
awk -v t0="$T0" -v win="$WIN" '
	FNR == 1 { f++ }
	f == 1 { tt[++nt] = $1 * 1e6; it[nt] = $2; next }
	f == 2 { n++; tool[n] = $1; cyc[n] = $2; tl[n] = $3; tr[n] = $4; ts[n] = $5; tx[n] = $6; ok[n] = $7 == "ok" }
	function iter_at(x,   lo, hi, mid) {
		if (x <= tt[1]) return it[1]
		if (x >= tt[nt]) return it[nt]
		lo = 1; hi = nt
		while (hi - lo > 1) { mid = int((lo + hi) / 2); if (tt[mid] <= x) lo = mid; else hi = mid }
		return it[lo] + (it[hi] - it[lo]) * (x - tt[lo]) / (tt[hi] - tt[lo])
	}
	function rate(a, b) { return b > a ? (iter_at(b) - iter_at(a)) / ((b - a) / 1e6) : -1 }
	# the median of the rates of the windows wholly inside [a, b]: a stall
	# of the machine (whole windows without progress) weighs as one window
	function wmed(a, b,   i, j, k, m, x) {
		m = 0
		for (i = 1; i < nt; i++)
			if (tt[i] >= a && tt[i + 1] <= b && tt[i + 1] > tt[i]) {
				x = (it[i + 1] - it[i]) / ((tt[i + 1] - tt[i]) / 1e6)
				for (j = ++m; j > 1 && w[j - 1] > x; j--) w[j] = w[j - 1]
				w[j] = x
			}
		if (m == 0) return -1
		return m % 2 ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2
	}
	function covered(a, b) { return a >= tt[1] && b <= tt[nt] }
	END {
		for (i = 1; i <= n; i++) {
			# off phases: before = from the previous exit (or T0), after = up to the next launch
			ob = i == 1 ? t0 : tx[i - 1]
			ab = tl[i]
			oa = tx[i]
			aa = i < n ? tl[i + 1] : tt[nt]
			if (!ok[i] || !covered(ob, aa)) continue
			rb = rate(ob, ab); ra = rate(oa, aa)
			if (rb <= 0 || ra <= 0) continue
			ref = (rb + ra) / 2
			# the neighbours compared with each other: the drift across the phase
			printf "%s\t%s\tsteady\t%.4f\t%.3f\t0\n", tool[i], cyc[i], rate(tr[i], ts[i]) / ref, (ts[i] - tr[i]) / 1e6
			if (tool[i] != "untraced") {
				for (p = 0; p < 2; p++) {
					a = p ? ts[i] : tl[i]; b = p ? tx[i] : tr[i]
					r = rate(a, b)
					if (r < 0) continue
					printf "%s\t%s\t%s\t%.4f\t%.3f\t%.3f\n", tool[i], cyc[i], p ? "drain" : "startup",
						r / ref, (b - a) / 1e6, (b - a) / 1e6 * (1 - r / ref)
				}
			}
			printf "%s\t%s\tdrift\t%.4f\t0\t0\n", tool[i], cyc[i], ra / rb
			mb = wmed(ob, ab); ma = wmed(oa, aa); ms = wmed(tr[i], ts[i])
			if (mb > 0 && ma > 0 && ms >= 0)
				printf "%s\t%s\tsteadymed\t%.4f\t0\t0\n", tool[i], cyc[i], ms / ((mb + ma) / 2)
		}
	}' "$W/ticks" "$PH" >"$RATIOS"

# stat5 [DECIMALS]: numbers on stdin -> "median min max q1 q3 n"
stat5() {
	sort -g | awk -v d="${1:-3}" '{ v[NR] = $1 } END {
		if (NR == 0) { print "- - - - - 0"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		# quartiles: linear between order statistics
		for (k = 1; k <= 3; k += 2) {
			p = (NR - 1) * k / 4 + 1; lo = int(p); fr = p - lo
			q[k] = lo < NR ? v[lo] + (v[lo + 1] - v[lo]) * fr : v[NR]
		}
		f = "%." d "f "
		printf f f f f f "%d\n", m, v[1], v[NR], q[1], q[3], NR }'
}
sdev() { awk '{ s += $1; q += $1 * $1; n++ } END { if (n < 2) print "-"; else printf "%.3f\n", sqrt((q - s * s / n) / (n - 1)) }'; }
pick() { awk -F'\t' -v t="$1" -v p="$2" -v c="$3" '$1 == t && $3 == p { print $c }' "$RATIOS"; }

# untraced rate over the whole run, and per window (the time series' own scatter)
STALLED=$(awk 'NR > 1 && $1 > p { z += $2 == n; c++ } { p = $1; n = $2 } END { printf "%.0f", c ? 100 * z / c : 0 }' "$W/ticks")
read -r RATE_MED RATE_MIN RATE_MAX _ <<<"$(awk -v w="$WIN" 'NR > 1 && $1 > p { printf "%.0f\n", ($2 - n) / ($1 - p) } { p = $1; n = $2 }' "$W/ticks" | stat5 0)"

{
	echo "### On/off: the recorder attached and detached in one run of the demo"
	echo
	echo "Measured $DATE on $(nproc) cores, kernel $(uname -r); load average $LOAD_BEFORE before, $LOAD_AFTER after;"
	echo "$(((T1 - T0) / 1000000)) s. \`demo -t $THREADS --window $WIN\` (one process for the whole run), $CYCLES cycle(s) of"
	echo "off ${OFF} s, tool, off ${OFF} s, next tool, ... (order rotating per cycle), each tool attached for ${ON} s"
	echo "of steady state (\`scripts/bench-onoff.sh\`). *steady ratio*: iterations/s from the recorder's"
	echo "ready line to the stop request, over the mean of the off phases before and after it; *untraced* runs"
	echo "nothing in its phase (the method's noise). *drift*: the off phase after over the one before."
	echo "median [min–max] (interquartile range) over cycles. Demo per ${WIN} ms window over the run:"
	echo "median $RATE_MED iterations/s [$RATE_MIN–$RATE_MAX], $STALLED% of the windows without one iteration. *window"
	echo "medians*: the same ratio from the median of the phase's windows over those of its neighbours (a stall"
	echo "of the machine counts as a few windows, not as its whole length)."
	echo
	echo "| configuration | cycles ok | steady ratio | IQR | window medians | drift (after/before) | start-up s | lost in start-up (s of work) | drain s | lost in drain (s of work) | events/phase | lost events |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for t in "${TOOLS[@]}"; do
		n_all=$(awk -F'\t' -v t="$t" '$1 == t' "$PH" | wc -l)
		n_ok=$(pick "$t" steady 4 | wc -l)
		if [ "$n_ok" = 0 ]; then
			why=$(awk -F'\t' -v t="$t" '$1 == t && $7 != "ok" { print $10; exit }' "$PH")
			echo "| $t | 0/$n_all | failed: ${why:-no ticks} | | | | | | | | | |"
			continue
		fi
		read -r m a b q1 q3 _ <<<"$(pick "$t" steady 4 | stat5)"
		read -r dm da db _ <<<"$(pick "$t" drift 4 | stat5)"
		read -r wm wa wb _ <<<"$(pick "$t" steadymed 4 | stat5)"
		if [ "$t" = untraced ]; then
			echo "| untraced (noise) | $n_ok/$n_all | $m [$a–$b] | $q1–$q3 | $wm [$wa–$wb] | $dm [$da–$db] | - | - | - | - | - | - |"
			continue
		fi
		read -r sm sa sb _ <<<"$(pick "$t" startup 5 | stat5 2)"
		read -r slm _ _ _ <<<"$(pick "$t" startup 6 | stat5 2)"
		read -r xm xa xb _ <<<"$(pick "$t" drain 5 | stat5 2)"
		read -r xlm _ _ _ <<<"$(pick "$t" drain 6 | stat5 2)"
		read -r em _ _ _ <<<"$(awk -F'\t' -v t="$t" '$1 == t && $7 == "ok" { print $8 }' "$PH" | stat5 0)"
		lsum=$(awk -F'\t' -v t="$t" '$1 == t && $7 == "ok" { s += $9 } END { print s + 0 }' "$PH")
		name=$t
		for e in LT_BENCH_ENV LT_BENCH_ARGS; do
			v=${e}_${t#ltb_}
			[[ $t == ltb_* ]] && [ -n "${!v:-}" ] && name+=" \`${!v}\`"
		done
		[[ $t == floor* ]] && em=- lsum=-
		echo "| $name | $n_ok/$n_all | $m [$a–$b] | $q1–$q3 | $wm [$wa–$wb] | $dm [$da–$db] | $sm [$sa–$sb] | $slm | $xm [$xa–$xb] | $xlm | $em | $lsum |"
	done
	nsd=$(pick untraced steady 4 | sdev)
	nn=$(pick untraced steady 4 | wc -l)
	if [ "$nsd" != - ]; then
		echo
		echo "The method's noise: the untraced phases' ratios have a standard deviation of $nsd over $nn cycles;"
		echo "a median over $nn cycles is known to about ±$(awk -v s="$nsd" -v n="$nn" 'BEGIN { printf "%.3f", 2 * 1.25 * s / sqrt(n) }')"
		echo "(2 standard errors of a median, 1.25 σ/√n); two rows closer than about $(awk -v s="$nsd" -v n="$nn" 'BEGIN { printf "%.3f", sqrt(2) * 2 * 1.25 * s / sqrt(n) }') are not told apart."
	fi
	[ -n "$DEMO_GONE" ] && echo && echo "**Cut short:** $DEMO_GONE."
	failed=$(awk -F'\t' '$7 != "ok" { printf "%s cycle %d: %s; ", $1, $2 + 1, $10 }' "$PH")
	[ -n "$failed" ] && echo && echo "Phases not counted: ${failed%; }."
} >"$W/section.md"

for t in "${TOOLS[@]}"; do
	n_ok=$(pick "$t" steady 4 | wc -l)
	if [ "$n_ok" = 0 ]; then
		say "ONOFF tool=$t status=failed"
		continue
	fi
	read -r m a b q1 q3 nn <<<"$(pick "$t" steady 4 | stat5)"
	read -r wm _ <<<"$(pick "$t" steadymed 4 | stat5)"
	say "ONOFF tool=$t status=ok ratio=$m min=$a max=$b q1=$q1 q3=$q3 sd=$(pick "$t" steady 4 | sdev) wmed=$wm n=$nn"
done
if [ -n "$MD" ]; then
	cp "$W/section.md" "$MD"
else
	echo
	cat "$W/section.md"
fi
exit 0
