#!/bin/bash
# A/B of recorder variants on the hand-off path (issue 29; BENCHMARKS.md,
# "per-cpu batches"): scripts/bench-handoff.c (two threads pinned on one
# cpu handing a futex back and forth) run untraced and under
# `locktrace record --calls blocking` with each variant's environment, the
# variants alternated in an order that rotates from round to round.  Per
# run: the median and 10th percentile of the CPU nanoseconds per hand-off
# over its 100 ms windows (the first 0.5 s left out), and the recorder's
# events and losses; then per variant the median over rounds and its
# difference to the first traced variant within each round.
#
#   scripts/bench-handoff.sh [ROUNDS=10] NAME=ENV ... (ENV: VAR=VALUE[,VAR=VALUE])
#   e.g. scripts/bench-handoff.sh 10 base=LOCKTRACE_X=0 x=LOCKTRACE_X=1
# LT=PATH among a variant's words runs that locktrace binary (another
# build) instead of $LT (build/locktrace); CALLS=all records every call
# (the default here: CALLS=blocking); ARG=WORD adds WORD to the recorder's
# options (ARG=--stacks).  THREADS=N in the environment (default 2) runs
# bench-handoff -t N: a ring of N threads, each waiting for the others'
# turns (with a few hundred, every wait lasts 1 ms or more: the waits
# --stacks copies).
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-10}
THREADS=${THREADS:-2}
shift || true
LT=${LT:-build/locktrace}
W=$(mktemp -d /tmp/bench-handoff.XXXXXX)
trap 'rm -rf "$W"' EXIT
cc -O2 -pthread -o "$W/handoff" scripts/bench-handoff.c || exit 1
names=(untraced) envs=("")
for a in "$@"; do
	names+=("${a%%=*}")
	envs+=("$(echo "${a#*=}" | tr , ' ')")
done
nv=${#names[@]}
for ((r = 0; r < ROUNDS; r++)); do
	for ((k = 0; k < nv; k++)); do
		i=$(((k + r) % nv))
		rm -f "$W/t.lt"
		if [ "$i" = 0 ]; then
			"$W/handoff" -t "$THREADS" -d 2.5 >"$W/out" 2>&1
		else
			lt=$LT calls=blocking extra=() ev=()
			for w in ${envs[$i]}; do
				case $w in
				LT=*) lt=${w#LT=} ;;
				CALLS=*) calls=${w#CALLS=} ;;
				ARG=*) extra+=("${w#ARG=}") ;;
				*) ev+=("$w") ;;
				esac
			done
			env "${ev[@]}" "$lt" record --calls "$calls" "${extra[@]}" --no-status -o "$W/t.lt" -- \
				"$W/handoff" -t "$THREADS" -d 2.5 >"$W/out" 2>&1
		fi
		st=$(grep -o 'cpu_ns_per_handoff=[0-9]*' "$W/out" | tail -n +6 | cut -d= -f2 | sort -n |
			awk '{ a[NR] = $1 } END { if (NR) printf "%d\t%d", a[int(NR / 2) + 1], a[int(NR / 10) + 1]; else printf "0\t0" }')
		ev=$(sed -n 's/.* \([0-9]*\) events, \([0-9]*\) lost.*/\1\t\2/p' "$W/out")
		printf '%d\t%s\t%s\t%s\n' "$r" "${names[$i]}" "$st" "${ev:-	}"
	done
done | tee "$W/runs.tsv"
python3 - "$W/runs.tsv" "${names[@]}" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split('\t')
    runs[f[0]][f[1]] = (int(f[2]), f[5] if len(f) > 5 else '')
names = sys.argv[2:]
ref = names[1] if len(names) > 1 else None
print('variant\tCPU ns per hand-off, median [min-max]\tminus %s in the same round: median, rounds below' % ref)
for n in names:
    v = [r[n][0] for r in runs.values() if n in r and r[n][0]]
    lost = sum(int(r[n][1] or 0) for r in runs.values() if n in r)
    line = '%s\t%.0f [%d-%d]' % (n, statistics.median(v), min(v), max(v)) if v else n + '\t-'
    if ref and n != ref:
        d = [r[n][0] - r[ref][0] for r in runs.values() if n in r and ref in r and r[n][0] and r[ref][0]]
        if d:
            line += '\t%+.0f, %d/%d' % (statistics.median(d), sum(x < 0 for x in d), len(d))
    if n != 'untraced':
        line += '\tlost %d' % lost
    print(line)
PY
