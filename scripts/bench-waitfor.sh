#!/usr/bin/env bash
# Wait-for benchmark (not a test): `locktrace snapshot -p PID` following a
# chain through 3 processes on a host with 500 extra idle processes.
# Target (issue 23): under 1 s.
#
#   scripts/bench-waitfor.sh [RUNS=5] [IDLE=500]
#
# Starts IDLE `sleep` processes (each with its fds: the /proc/*/fd scan reads
# them all) and the chain `sleep | cat | cat | cat`, then times the snapshot of
# the last `cat` RUNS times: it follows the pipes into the two other `cat`s
# (the `sleep` at the head sleeps on a timer and is not followed).  Checks that
# the snapshot followed exactly those 3 processes, prints wall time per run
# (median, min, max), each process's "took", the host's process count and the
# load average before and after (this machine is shared: say the load).
# Needs root (other processes' /proc/PID/fd).  Kills only what it started.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
nidle=${2:-500}
if [ "$(id -u)" -ne 0 ]; then
	echo "bench-waitfor: needs root (the /proc/*/fd scan of other processes)" >&2
	exit 1
fi
make -s build/locktrace >&2 # its progress lines off the table (stdout)

dir=$(mktemp -d /tmp/locktrace-bench-wf.XXXXXX)
idle=()
chain_pid=
cleanup() {
	# only the processes this script started: the sleeps and the chain's
	# process group
	for p in "${idle[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	[ -n "$chain_pid" ] && kill -9 -- "-$chain_pid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'echo "bench-waitfor: failed at line $LINENO" >&2' ERR

for _ in $(seq "$nidle"); do
	sleep 3600 </dev/null >/dev/null 2>&1 &
	idle+=("$!")
	disown "$!" # no "Killed" line for each at the cleanup
done
# the chain in its own process group (setsid), so the cleanup kills just it
setsid bash -c 'echo $$ >'"$dir"'/chain.pgid; exec bash -c "sleep 3600 | cat | cat | cat >/dev/null"' \
	</dev/null >/dev/null 2>&1 &
disown "$!"
for _ in $(seq 100); do [ -s "$dir/chain.pgid" ] && break; sleep 0.05; done
chain_pid=$(cat "$dir/chain.pgid")
# the chain's three cats
last=
cats=()
for _ in $(seq 100); do
	mapfile -t cats < <(pgrep -g "$chain_pid" -x cat | sort -n)
	[ "${#cats[@]}" -eq 3 ] && break
	sleep 0.05
done
if [ "${#cats[@]}" -ne 3 ]; then
	echo "bench-waitfor: the chain did not start (cats: ${cats[*]:-none})" >&2
	exit 1
fi
# the last cat writes to /dev/null; the others to a pipe
for c in "${cats[@]}"; do
	if [ "$(readlink "/proc/$c/fd/1")" = /dev/null ]; then last=$c; fi
done
[ -n "$last" ] || { echo "bench-waitfor: no cat of the chain writes to /dev/null" >&2; exit 1; }
sleep 1 # let every cat block in read()

procs_now=(/proc/[0-9]*) # a glob: a process exiting meanwhile is no error
nproc_host=${#procs_now[@]}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
walls=()
tooks=()
for r in $(seq "$runs"); do
	t0=$(date +%s%N)
	build/locktrace snapshot -p "$last" >"$dir/out.$r" 2>&1 || {
		cat "$dir/out.$r" >&2
		exit 1
	}
	t1=$(date +%s%N)
	walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')")
	while read -r ms; do tooks+=("$ms"); done < <(sed -n 's/.*, took \([0-9.]*\) ms$/\1/p' "$dir/out.$r")
	n=$(sed -n 's/^note: followed the wait-for edges of process [0-9]* into: //p' "$dir/out.$r" |
		tr ',' '\n' | grep -c . || true)
	if [ "$n" -ne 3 ]; then
		echo "bench-waitfor: run $r followed $n processes, not 3 (chain: ${cats[*]}):" >&2
		grep -v '^ *#' "$dir/out.$r" | head -40 >&2
		exit 1
	fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

stats() { # median min max of the arguments
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}
read -r wmed wmin wmax < <(stats "${walls[@]}")
read -r tmed tmin tmax < <(stats "${tooks[@]}")
met=met
awk -v m="$wmed" 'BEGIN { exit !(m < 1.0) }' || met="**not met**"

echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, kernel $(uname -r); $nproc_host processes on the host ($nidle extra idle sleeps + the chain)"
echo "load average $load_before before, $load_after after"
echo "chain: sleep | cat | cat | cat (cats ${cats[*]}); snapshot -p $last (the last) followed 3 processes in every run"
echo
echo "| what | runs | median | min | max | target |"
echo "|---|---|---|---|---|---|"
echo "| \`snapshot -p\` through 3 processes, wall (s) | $runs | $wmed | $wmin | $wmax | < 1 s: $met |"
echo "| each process's snapshot, its \"took\" (ms; includes its /proc/*/fd scan) | ${#tooks[@]} | $tmed | $tmin | $tmax | |"
