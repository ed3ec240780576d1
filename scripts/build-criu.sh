#!/usr/bin/env bash
# CRIU for memory snapshots (Docker checkpoints), built from Debian's source package into
# /usr/local/sbin/criu, which comes before /usr/sbin on dockerd's PATH. Debian bookworm ships
# CRIU 3.17, which fails on this kernel ("vdso: Failed to fill self vdso symtable"); trixie's
# 4.1.1 needs glibc 2.38 as a binary and, built here, cannot checkpoint a process holding a TCP
# socket on kernels from 6.16 on (getsockopt SO_PASSCRED on an inet socket: EOPNOTSUPP), which
# 4.2 fixed. So the newest source of unstable is built against bookworm's own libraries: its
# build dependencies come from bookworm, nothing of the host is upgraded (libcap's headers are
# unpacked privately: its -dev package would upgrade libcap2), and only the source tarball comes
# from unstable, through a private apt configuration (the host's sources stay as they are),
# checked by apt against the signed index. About 35 s on 2 cores; skipped when a CRIU of at
# least $want already answers. Also writes /etc/criu/runc.conf (the options runc gives CRIU)
# with `tcp-close` when there is none: a checkpoint then drops the sandbox's open TCP
# connections (the service's keep-alive ones to its daemon) instead of failing on them.
# Usage: scripts/build-criu.sh  (run by scripts/bootstrap.sh; DOCKLAKE_DATA_DIR: where it builds)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
data_dir="${DOCKLAKE_DATA_DIR:-$here/.docklake}"
work="$data_dir/criu-build"
want=4.2
log() { printf '[build-criu] %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

version_ok() { # $1 at least $want
  [ -n "$1" ] && [ "$(printf '%s\n%s\n' "$want" "$1" | sort -V | head -1)" = "$want" ]
}

runc_conf() {
  if [ ! -e /etc/criu/runc.conf ]; then
    $SUDO mkdir -p /etc/criu
    printf '# written by docklake scripts/build-criu.sh: checkpoints drop open TCP connections\ntcp-close\n' |
      $SUDO tee /etc/criu/runc.conf >/dev/null
  elif ! grep -qx 'tcp-close' /etc/criu/runc.conf; then
    log "WARNING: /etc/criu/runc.conf has no tcp-close: a sandbox with an open TCP connection cannot be checkpointed"
  fi
}

have="$(criu --version 2>/dev/null | awk '/^Version:/ {print $2}' || true)"
if version_ok "$have"; then
  runc_conf
  exit 0
fi
log "building CRIU (found: ${have:-none}; memory snapshots need $want or later here)"
start=$(date +%s)

# build dependencies from bookworm, refusing anything that would upgrade an installed package
deps=(build-essential pkg-config libbsd-dev libnet1-dev libnl-3-dev libprotobuf-c-dev libprotobuf-dev
      protobuf-c-compiler protobuf-compiler uuid-dev)
missing=()
for p in "${deps[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  upgrades="$(apt-get install -s --no-install-recommends "${missing[@]}" | awk '/^Inst [^ ]+ \[/ {print $2}')"
  if [ -n "$upgrades" ]; then
    log "refusing: installing CRIU's build dependencies would upgrade $(echo $upgrades)"
    exit 1
  fi
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/sysroot"
cd "$work"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian unstable main" \
  > apt/sources.list
apt_private=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
             -o APT::Sandbox::User=root)
apt-get "${apt_private[@]}" update -qq
version="$(apt-cache "${apt_private[@]}" showsrc criu | awk '/^Version:/ {print $2}' | sort -V | tail -1)"
upstream="${version%-*}"
upstream="${upstream#*:}"
if ! version_ok "$upstream"; then
  log "unstable has CRIU ${version:-nothing}, older than $want"
  exit 1
fi
# only the upstream tarball is needed (a mirror without the Debian part makes apt-get fail:
# the tarball it did fetch, checked against the signed index, is what counts)
apt-get "${apt_private[@]}" source --download-only -qq "criu=$version" >/dev/null 2>&1 || true
tarball="criu_${upstream}.orig.tar.xz"
[ -s "$tarball" ] || { log "could not download $tarball"; exit 1; }
tar xf "$tarball"
# libcap's headers, from bookworm like the rest (the host's own apt configuration)
apt-cache policy libcap-dev | grep -q 'Candidate: [0-9]' || $SUDO apt-get update -qq
apt-get -o APT::Sandbox::User=root download -qq libcap-dev >/dev/null
dpkg-deb -x libcap-dev_*.deb sysroot
cd "criu-$upstream"
CPATH="$work/sysroot/usr/include" LIBRARY_PATH="$work/sysroot/usr/lib/x86_64-linux-gnu" \
  make -j"$(nproc)" criu >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; exit 1; }
criu/criu check >/dev/null 2>&1 || log "WARNING: criu check reports missing kernel features ($(criu/criu check 2>&1 | tail -1))"
$SUDO install -m 0755 criu/criu /usr/local/sbin/criu
runc_conf
cd "$here"
rm -rf "$work"
log "installed CRIU $upstream at /usr/local/sbin/criu in $(( $(date +%s) - start )) s"
