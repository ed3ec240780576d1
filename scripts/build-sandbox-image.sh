#!/usr/bin/env bash
# Builds the sandbox base image from Debian bookworm packages, with no container registry:
# `apt-get download` the debs of Python 3.11 (python3.11-minimal + libpython3.11-stdlib and
# their dependencies) and busybox-static into a cache dir, `dpkg-deb -x` them into a rootfs,
# add busybox applet links, users, CA bundle and the usual mount points, then `docker import`.
# Idempotent: does nothing when the engine already has the image (pass --rebuild to force).
# The image has no apt, dpkg or perl; its shell and coreutils are busybox.
# Usage: scripts/build-sandbox-image.sh [--rebuild]
set -euo pipefail
image="docklake/sandbox-base:2"

here="$(cd "$(dirname "$0")/.." && pwd)"
data_dir="${DOCKLAKE_DATA_DIR:-$here/.docklake}"
work="$data_dir/sandbox-image"
debs="$work/debs"
log() { printf '[sandbox-image] %s\n' "$*" >&2; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

rebuild=0
if [ "${1:-}" = --rebuild ]; then rebuild=1; fi
if [ "$rebuild" = 0 ] && docker image inspect "$image" >/dev/null 2>&1; then
  log "$image is present; nothing to do"
  exit 0
fi
docker version >/dev/null 2>&1 || { log "no Docker engine answers; cannot build $image"; exit 1; }

# Root is needed for the rootfs (root-owned files, chown, chroot): re-run under sudo otherwise.
if [ "$(id -u)" != 0 ]; then
  exec sudo DOCKLAKE_DATA_DIR="$data_dir" bash "$0" "$@"
fi
mkdir -p "$debs"
# One build at a time per data dir (two bootstraps may run at once).
exec 9>"$work/.lock"
flock 9
if [ "$rebuild" = 0 ] && docker image inspect "$image" >/dev/null 2>&1; then
  log "$image was built meanwhile; nothing to do"
  exit 0
fi
t_all="$(now)"
old_id="$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)"

# --- 1. Resolve the package set --------------------------------------------------------------
# The roots, then their Depends/Pre-Depends recursively, taking the first alternative of an
# "a | b" group (libpython3.11-stdlib: media-types | mime-support; the latter pulls perl).
# Recommends and Suggests are not followed, nor are the packages in `skip`: they serve only
# dpkg and maintainer scripts (readline-common wants "dpkg | install-info", dpkg wants tar, ...),
# and the image has no package manager. ca-certificates is fetched alone, for its PEM files (it
# depends on openssl, debconf and perl, for the postinst that builds the bundle).
roots=(python3.11-minimal libpython3.11-stdlib busybox-static)
skip=(dpkg install-info tar debconf perl-base)

resolve() {  # sets pkgs
  mapfile -t pkgs < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "${roots[@]}" 2>/dev/null |
    awk -v roots="${roots[*]}" -v skip="${skip[*]}" '
      # A block is "name" then "  Depends: x" lines; " |Depends: x" starts an or-group whose last
      # member comes without the bar, so only the first member of a group is kept.
      /^[^ ]/ { pkg = $1; in_or = 0; next }
      /^ [ |](Pre)?Depends: / {
        bar = ($0 ~ /^ \|/)
        if (!in_or && $2 !~ /^</) deps[pkg] = deps[pkg] " " $2
        in_or = bar
      }
      END {
        split(skip, s, " "); for (i in s) skipped[s[i]] = 1
        n = split(roots, q, " ")
        for (i = 1; i <= n; i++) {
          p = q[i]
          if (p in want || p in skipped) continue
          want[p] = 1; print p
          m = split(deps[p], d, " "); for (j = 1; j <= m; j++) q[++n] = d[j]
        }
      }' | sort)
}

plan() {  # sets pkgs, files (the .deb names) and fetch (the packages the cache lacks); fails
          # when apt cannot download every package (lists missing or stale)
  resolve
  [ "${#pkgs[@]}" -gt "${#roots[@]}" ] || return 1
  local uris line f
  mapfile -t uris < <(apt-get download --print-uris "${pkgs[@]}" ca-certificates 2>/dev/null)
  [ "${#uris[@]}" -eq "$((${#pkgs[@]} + 1))" ] || return 1
  files=() fetch=()
  for line in "${uris[@]}"; do
    f="$(awk '{ print $2 }' <<<"$line")"
    files+=("$f")
    [ -s "$debs/$f" ] || fetch+=("${f%%_*}")
  done
}

download() {
  [ "${#fetch[@]}" -gt 0 ] || return 0
  log "downloading ${#fetch[@]} debs into $debs"
  # The cache dir belongs to root, so apt's _apt sandbox user could not write it.
  (cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${fetch[@]}" >/dev/null)
}

# A fresh machine may have no apt lists (only dpkg's status, which gives no download URIs), and
# old lists name versions the mirror no longer has: then update once and plan again.
t="$(now)"
updated=0
if ! plan; then
  log "apt lists lack some packages; running apt-get update"
  apt-get update -qq && updated=1
  plan || { log "cannot resolve or download ${roots[*]} and their dependencies"; exit 1; }
fi
log "packages (${#pkgs[@]} + ca-certificates): ${pkgs[*]}"
log "resolve: $(took "$t")"

# --- 2. Download what the cache lacks ---------------------------------------------------------
t="$(now)"
if ! download; then
  [ "$updated" = 0 ] || exit 1
  log "apt-get download failed; running apt-get update and retrying"
  apt-get update -qq
  plan && download || { log "cannot download the packages"; exit 1; }
fi
for f in "${files[@]}"; do
  [ -s "$debs/$f" ] || { log "missing $debs/$f after download"; exit 1; }
done
# Keep the cache to the current versions.
for f in "$debs"/*.deb; do
  [[ " ${files[*]} " == *" ${f##*/} "* ]] || rm -f "$f"
done
log "download (${#fetch[@]} of ${#files[@]} debs fetched, $(du -sh "$debs" | cut -f1) cache): $(took "$t")"

# --- 3. Extract into a rootfs -----------------------------------------------------------------
t="$(now)"
tmp="$(mktemp -d "$work/build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
root="$tmp/rootfs"
mkdir -p "$root"
for f in "${files[@]}"; do
  case "$f" in
    ca-certificates_*)
      # Only the Mozilla PEM files; the bundle is their concatenation (as update-ca-certificates does).
      mkdir -p "$tmp/ca" "$root/etc/ssl/certs"
      dpkg-deb -x "$debs/$f" "$tmp/ca"
      cat "$tmp/ca"/usr/share/ca-certificates/mozilla/*.crt > "$root/etc/ssl/certs/ca-certificates.crt"
      ;;
    *) dpkg-deb -x "$debs/$f" "$root" ;;
  esac
done
log "extract: $(took "$t")"

# --- 4. Shape the filesystem ------------------------------------------------------------------
t="$(now)"
rm -rf "$root"/usr/share/{doc,man,info,lintian,bug,locale,binfmts,initramfs-tools}
# glibc's iconv modules (8 MB): Python's codecs do not use them; UTF-8 and ASCII are built into glibc.
rm -rf "$root"/usr/lib/*-linux-gnu/gconv
# busybox applets as links to /bin/busybox, where no package put a real file.
while read -r applet; do
  case "$applet" in linuxrc) continue ;; esac
  [ -e "$root/$applet" ] || [ -L "$root/$applet" ] && continue
  mkdir -p "$root/$(dirname "$applet")"
  ln -s /bin/busybox "$root/$applet"
done < <("$root/bin/busybox" --list-full)
ln -sf python3.11 "$root/usr/bin/python3"
# OpenSSL's default CA paths (the openssl package would ship these links).
mkdir -p "$root/usr/lib/ssl"
ln -sf /etc/ssl/certs "$root/usr/lib/ssl/certs"
ln -sf /etc/ssl/certs/ca-certificates.crt "$root/usr/lib/ssl/cert.pem"
cat > "$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:user:/workspace:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat > "$root/etc/group" <<'EOF'
root:x:0:
user:x:1000:
nogroup:x:65534:
EOF
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n' > "$root/etc/nsswitch.conf"
# Docker bind-mounts these over the files; they exist so the layout is complete without it.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
: > "$root/etc/resolv.conf"
echo sandbox > "$root/etc/hostname"
mkdir -p "$root"/{proc,sys,dev,run,root,tmp,var/tmp,workspace}
chmod 1777 "$root/tmp" "$root/var/tmp"
chmod 700 "$root/root"
# /workspace is writable by every user, like /tmp: sandboxes run as root with every capability
# dropped (no CAP_DAC_OVERRIDE), and a process may also run as user 1000.
chmod 1777 "$root/workspace"
# The dynamic linker's cache (ld.so.conf.d comes with libc6).
ldconfig -r "$root"
# Byte-compile the standard library once here: the root is read-only in a sandbox, so without
# .pyc files every python3 start would compile what it imports again.
chroot "$root" /usr/bin/python3.11 -m compileall -q /usr/lib/python3.11 >/dev/null
log "shape (busybox links, users, ldconfig, compileall): $(took "$t")"

# --- 5. Import ------------------------------------------------------------------------------------
t="$(now)"
tar --numeric-owner -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'WORKDIR /workspace' \
  --change 'LABEL docklake.image=base' \
  --change 'CMD ["/bin/sh"]' \
  - "$image" >/dev/null
rm -rf "$tmp"
trap - EXIT
# A rebuild leaves the previous image untagged: remove it (kept if a container still uses it).
if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect -f '{{.Id}}' "$image")" ]; then
  docker rmi "$old_id" >/dev/null 2>&1 || true
fi
log "import: $(took "$t")"

# --- 6. Verify ----------------------------------------------------------------------------------
t="$(now)"
docker run --rm --network none "$image" \
  python3 -c "import ssl, sqlite3, asyncio, subprocess, json, http.server; print('ok')"
docker run --rm --network none "$image" sh -c 'ls / && id'
log "verify: $(took "$t")"
size="$(docker image inspect -f '{{.Size}}' "$image")"
log "built $image ($((size / 1000000)) MB) in $(took "$t_all")"
