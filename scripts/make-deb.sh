#!/usr/bin/env bash
# make-deb.sh ROOT VERSION ARCH OUT.deb: turns ROOT (what `make install
# DESTDIR=ROOT PREFIX=/usr` wrote) into a Debian binary package with
# dpkg-deb: man pages compressed, the binary stripped, the documentation in
# /usr/share/doc/locktrace, the runtime dependencies computed by
# dpkg-shlibdeps from the libraries the binary links (libbpf1, libelf1,
# libdw1, zlib1g, libc6), libc6-dbg recommended (frame names inside libc).
# Called by `make deb`.
set -euo pipefail

root=$1 version=$2 arch=$3 out=$4
[ -x "$root/usr/bin/locktrace" ] || { echo "make-deb: $root/usr/bin/locktrace missing (run make deb)" >&2; exit 1; }
for t in dpkg-deb dpkg-shlibdeps; do
	command -v "$t" >/dev/null || { echo "make-deb: $t not found: apt-get install dpkg-dev (scripts/install-deps.sh)" >&2; exit 1; }
done

strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/locktrace"
gzip -9n "$root"/usr/share/man/man8/*.8

doc=$root/usr/share/doc/locktrace
install -d "$doc/docs"
install -m 0644 README.md "$doc/"
install -m 0644 docs/*.md "$doc/docs/"
gzip -9n "$doc/README.md" "$doc"/docs/*.md
cat > "$doc/copyright" <<'EOT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: locktrace

Files: *
Copyright: the locktrace authors
License: MIT
EOT
printf 'locktrace (%s) unstable; urgency=medium\n\n  * Built from the locktrace source tree (make deb).\n\n -- locktrace <locktrace@invalid>  %s\n' \
	"$version" "$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")" \
	| gzip -9n > "$doc/changelog.Debian.gz"

# dpkg-shlibdeps wants a debian/control beside it: a minimal one in a
# scratch directory
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/debian"
printf 'Source: locktrace\n\nPackage: locktrace\nArchitecture: any\n' > "$tmp/debian/control"
bin=$(realpath "$root/usr/bin/locktrace")
depends=$(cd "$tmp" && dpkg-shlibdeps -O -e "$bin" 2>"$tmp/err" | sed -n 's/^shlibs:Depends=//p') || true
if [ -z "$depends" ]; then
	echo "make-deb: dpkg-shlibdeps found no dependencies of $bin:" >&2
	cat "$tmp/err" >&2
	exit 1
fi

install -d "$root/DEBIAN"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
cat > "$root/DEBIAN/control" <<EOT
Package: locktrace
Version: $version
Architecture: $arch
Maintainer: locktrace <locktrace@invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: libc6-dbg
Section: admin
Priority: optional
Description: show why the threads of a Linux process are stuck (eBPF)
 locktrace attaches to a running, possibly hung, process with eBPF and shows
 which thread waits on which lock, since when, who last held or woke it, and
 what led up to it, without stopping, ptracing or signalling it: a snapshot
 of every thread, a recording (or a flight recorder that writes a trace when
 the process stalls), a report of what is wrong, and a Perfetto timeline.
 Needs Linux 6.x with BTF, and root (or CAP_BPF and CAP_PERFMON) to record.
EOT
chmod -R u=rwX,go=rX "$root"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "make-deb: wrote $out"
