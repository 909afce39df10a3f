#!/usr/bin/env bash
# Checks the README's contract the way a user meets it: a fresh Debian 12
# root (debootstrap --variant=minbase bookworm) with only git, gcc, make and
# ca-certificates added, a clean clone of this repository, then, as root
# inside the root (chroot): `make test` and `make demo`.  Prints the time
# each step took and the result; exits non-zero when either fails.
#
#   scripts/fresh-debian.sh [--commit REV] [--with-shared DIR] [--keep] [--dir DIR]
#
#   --commit REV       the commit to test (default: HEAD of this checkout;
#                      only committed work is tested: it is a clean clone)
#   --with-shared DIR  copy DIR (e.g. ../shared) beside the clone, as CI has
#                      it; without it the tests that need ../shared/tools
#                      skip with their reason
#   --keep             leave the root in place afterwards (mounts are undone
#                      either way)
#   --dir DIR          where to build the root (default: a new directory
#                      under /var/tmp)
#
# Needs root, debootstrap (Debian: apt-get install debootstrap) and the
# network.  The Debian mirror is the one this machine's apt sources use: no
# mirror is named here.  The kernel is the host's (a chroot shares it), so
# BPF, BTF and the tracepoints are the host's; what the root brings is the
# user space of a fresh Debian 12 machine.
set -euo pipefail
# bash reads a script while it runs it: the body is one block, read whole
# before it starts, so that editing this file cannot change a run under way
{

here=$(cd "$(dirname "$0")/.." && pwd)
commit=HEAD
shared=
keep=0
root=
while [ $# -gt 0 ]; do
	case $1 in
	--commit) commit=$2; shift 2 ;;
	--with-shared) shared=$(cd "$2" && pwd); shift 2 ;;
	--keep) keep=1; shift ;;
	--dir) root=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "fresh-debian: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

die() { echo "fresh-debian: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, mount, chroot)"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
rev=$(git -C "$here" rev-parse --verify "$commit^{commit}") || die "no commit '$commit' in $here"

# The mirror: the first Debian archive URI in this machine's apt sources
# that serves bookworm (deb822 .sources files or one-line .list files).
mirror_for() { # $1: suite
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		awk -v s="$1" '
			/^[[:space:]]*$/ { if (u != "" && ok) { print u; done = 1; exit } u = ""; ok = 0; next }
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
			END { if (!done && u != "" && ok) print u }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		awk -v s="$1" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++;
			if ($(i + 1) == s) { print $i; exit } }' "$f"
	done
}
mirror=$(mirror_for bookworm | head -1)
[ -n "$mirror" ] || die "no bookworm source in /etc/apt/sources.list{,.d}: give this machine a Debian 12 apt source"
security=$(mirror_for bookworm-security | head -1)

[ -n "$root" ] || root=$(mktemp -d /var/tmp/locktrace-fresh.XXXXXX)
mkdir -p "$root"
chmod 755 "$root" # a machine's / (mktemp made it 0700: apt's _apt and the tests' nobody need it)
root=$(cd "$root" && pwd)
log() { printf '%s fresh-debian: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

mounts=()
cleanup() {
	local i rc=$?
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -R "${mounts[i]}" 2>/dev/null || umount -lR "${mounts[i]}" 2>/dev/null ||
			echo "fresh-debian: could not unmount ${mounts[i]}" >&2
	done
	if [ "$keep" -eq 0 ] && ! grep -q " $root/" /proc/mounts; then
		rm -rf --one-file-system "$root"
	else
		echo "fresh-debian: the root is left in $root" >&2
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mnt() { # mount ... TARGET: mounts and remembers TARGET for the clean-up
	local target=${*: -1}
	mkdir -p "$target"
	mount "$@"
	mounts+=("$target")
}

t0=$(date +%s)
log "debootstrap bookworm (minbase + git gcc make ca-certificates) from $mirror into $root"
debootstrap --variant=minbase --include=git,gcc,make,ca-certificates \
	bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
	die "debootstrap failed: see $root.debootstrap.log"
rm -f "$root.debootstrap.log"
{
	echo "deb $mirror bookworm main"
	echo "deb $mirror bookworm-updates main"
	[ -z "$security" ] || echo "deb $security bookworm-security main"
} >"$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"
t1=$(date +%s)
log "root ready in $((t1 - t0)) s"

# The root a mount of its own, as a booted machine's / is: a chroot into a
# plain directory has no mount at /, and `unshare -m --propagation private`
# (a test's private mount namespace) fails there with EINVAL.
mnt --bind "$root" "$root"
# What BPF and the tests need, as a booted Debian 12 has it: /proc, /sys
# (BTF in /sys/kernel/btf), the BPF file system, the cgroup hierarchy,
# /dev and /dev/pts.  tracefs is not mounted (a fresh machine may not have
# it): the tests that need it mount it themselves.
mnt -t proc proc "$root/proc"
mnt -t sysfs sysfs "$root/sys"
mnt -t bpf bpf "$root/sys/fs/bpf"
mnt --rbind /sys/fs/cgroup "$root/sys/fs/cgroup"
mount --make-rslave "$root/sys/fs/cgroup"
mnt --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"

git clone -q --no-hardlinks "$here" "$root/root/locktrace"
git -C "$root/root/locktrace" -c advice.detachedHead=false checkout -q "$rev"
if [ -n "$shared" ]; then
	cp -a "$shared" "$root/root/shared"
	log "copied $shared to /root/shared (beside the clone)"
fi
log "testing $(git -C "$here" log -1 --format='%h %s' "$rev")"

in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "cd /root/locktrace && $1"
}
result=0
log "make test"
t2=$(date +%s)
in_root 'make test' || result=1
t3=$(date +%s)
log "make test: $([ $result -eq 0 ] && echo passed || echo FAILED) in $((t3 - t2)) s"
demo=0
log "make demo"
in_root 'make demo' || demo=1
t4=$(date +%s)
log "make demo: $([ $demo -eq 0 ] && echo passed || echo FAILED) in $((t4 - t3)) s"

echo
echo "fresh-debian: commit $(git -C "$here" rev-parse --short "$rev"), ../shared $([ -n "$shared" ] && echo copied || echo absent)"
echo "fresh-debian: root $((t1 - t0)) s, make test $((t3 - t2)) s, make demo $((t4 - t3)) s, total $((t4 - t0)) s"
if [ $result -eq 0 ] && [ $demo -eq 0 ]; then
	echo "fresh-debian: PASS"
else
	echo "fresh-debian: FAIL (make test: $([ $result -eq 0 ] && echo ok || echo failed), make demo: $([ $demo -eq 0 ] && echo ok || echo failed))"
	exit 1
fi
exit
}
