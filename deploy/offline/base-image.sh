#!/usr/bin/env bash
# Builds a Debian bookworm base image from Debian's own packages (debootstrap + `docker import`),
# for machines that reach Debian's mirror but no container registry. The compose files' images
# are then built on it: `DOCKLAKE_BASE_IMAGE=docklake/debian:bookworm`.
# Usage: deploy/offline/base-image.sh [image tag]   (idempotent: an existing tag is kept)
set -euo pipefail
tag="${1:-docklake/debian:bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
log() { printf '[base-image] %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

if docker image inspect "$tag" >/dev/null 2>&1; then
  log "$tag exists"
  exit 0
fi
command -v debootstrap >/dev/null || {
  log "installing debootstrap"
  $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}
root="$(mktemp -d)"
trap '$SUDO rm -rf "$root"' EXIT
log "debootstrap bookworm (minbase) from $mirror"
$SUDO debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || { tail -20 "$root.log" >&2; exit 1; }
rm -f "$root.log"
# as Debian's official images do: no recommends, no caches, apt lists cleared
printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' | $SUDO tee "$root/etc/apt/apt.conf.d/90docklake" >/dev/null
$SUDO rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
# the certificate authorities this host adds to Debian's (a TLS-inspecting proxy's, say): the
# images' pip reaches PyPI the way this host does once ca-certificates is installed in them
$SUDO mkdir -p "$root/usr/local/share/ca-certificates"
for crt in /usr/local/share/ca-certificates/*.crt; do
  [ -e "$crt" ] && $SUDO cp "$crt" "$root/usr/local/share/ca-certificates/"
done
$SUDO tar -C "$root" -c . | docker import -c 'CMD ["bash"]' -c 'ENV LANG=C.UTF-8' \
  -c 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' - "$tag" >/dev/null
log "built $tag ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1/1e6}'))"
