#!/bin/bash
# What one piece of the recorder's BPF work costs on this machine (BENCHMARKS.md,
# "what one piece of BPF work costs here"): builds scripts/bench-prims.bpf.c and
# scripts/bench-prims.c and runs them as root; ~10 s for 7 rounds.
#   scripts/bench-prims.sh [ROUNDS=7]
# Needs build/vmlinux.h (make) and clang, libbpf (scripts/install-deps.sh).
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
if [ ! -f build/vmlinux.h ]; then
	echo "bench-prims: build/vmlinux.h is missing: run make first" >&2
	exit 1
fi
W=$(mktemp -d /tmp/bench-prims.XXXXXX)
trap 'rm -rf "$W"' EXIT
clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ibuild -c scripts/bench-prims.bpf.c -o "$W/prims.bpf.o"
cc -O2 -Wall scripts/bench-prims.c $(pkg-config --cflags --libs libbpf 2>/dev/null || echo -lbpf) -o "$W/prims"
echo "# $(date -u '+%F %H:%M UTC'), $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$W/prims" "$W/prims.bpf.o" "$ROUNDS"
