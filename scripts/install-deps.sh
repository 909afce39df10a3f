#!/usr/bin/env bash
# Installs, from Debian's archive only, what building and testing locktrace
# needs and is not installed yet.  Idempotent: does nothing (and needs no
# network) when everything is present.
set -euo pipefail

# bpftrace: the independent reference of the differential test;
# libclang-rt-14-dev: the libFuzzer and sanitizer runtimes (make fuzz, make unit-asan);
# man-db: man -l on the generated pages; dpkg-dev: dpkg-shlibdeps (make deb)
# xz-utils: unpacks the OCaml 5 compilers of ../shared/tools (priority standard, not
# on every minimal image)
# golang-go: builds the Go workloads (tests/workloads/go)
# postgresql: a real database server for the application-lock tests (test_pgwait_live.c
#   runs its own initdb in a temp dir; the default cluster the package may create is unused)
# postgresql-server-dev-15: PostgreSQL 15's server headers, against which a unit test
#   (test_appwait.c) checks the shared-memory offsets locktrace reads holders with
# python3: Debian's CPython, a program we did not write, for the CPython models'
#   live tests (not on a minbase system)
# libpython3.11-dev: Debian's CPython headers (Include/internal), from which
#   tests/gen/cpython_layout.c takes the offsets the CPython models' tables are
#   checked against (the pyenv builds' headers are used too where present)
# gdb: tests/gen/ocaml5_layout.sh reads the OCaml 5 systhreads layout from the
#   DWARF of the programs the real OCaml 5 compilers built
# libc6-dbg: glibc's debug symbols, which name libc's internal frames
#   (start_thread, clone3, __lll_lock_wait) in stacks; without them those
#   frames are unnamed and locktrace says so
# sqlite3: Debian's SQLite shell, whose busy handler retries a database's fcntl lock
#   between sleeps (test_waitfor_live.c)
# nodejs: a real node (/usr/bin/node) for test_node_live.c's idle pool test; Debian's
#   libnode.so.108 is stripped, so the inspector test, whose ground truth is the symbol
#   start_io_thread_semaphore, skips there, saying so (nodesource's node has it)
# strace: a tracer the wait-for tests follow (strace -p's wait4 on its tracee)
#   and a tool the overhead benchmark compares with
# procps: ps, and pidwait(1), whose pidfd polls the wait-for tests follow (a
#   minimal Debian 12 image has no procps)
pkgs=(make gcc clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev
      pkg-config libcriterion-dev protobuf-compiler ocaml-nox bpftrace
      default-jdk-headless libclang-rt-14-dev xz-utils golang-go postgresql postgresql-server-dev-15
      libc6-dbg python3 libpython3.11-dev gdb man-db dpkg-dev nodejs sqlite3 strace procps)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}" >&2
	echo "install-deps: run as root (or: sudo apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
