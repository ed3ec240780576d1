#!/usr/bin/env bash
# Installs everything docklake needs on a fresh Debian machine, idempotently:
#   - Debian packages (docker.io, tesseract; for the tests also postgresql and the headless
#     browser chromium + chromium-driver that tests/browser/test_browser_ui.py drives with selenium, and
#     docker-compose, which checks compose.yaml),
#   - a .venv with the project and its pinned dependencies,
#   - CRIU for memory snapshots (scripts/build-criu.sh: built from Debian's source when missing),
#   - a running Docker engine (dockerd is started when none answers, experimental),
#   - the sandbox base image (scripts/build-sandbox-image.sh), when the engine lacks it.
# Usage: scripts/bootstrap.sh [run|test]
set -euo pipefail
mode="${1:-run}"
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
data_dir="${DOCKLAKE_DATA_DIR:-$here/.docklake}"
mkdir -p "$data_dir"
log() { printf '[bootstrap] %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

apt_pkgs=(docker.io tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd)
# test mode: PostgreSQL, the browser the UI tests drive, and LibreOffice Writer with Arabic and
# Hebrew fonts, which writes the right-to-left PDFs the RTL test reads
if [ "$mode" = test ]; then
  apt_pkgs+=(postgresql chromium chromium-driver docker-compose libreoffice-writer-nogui fonts-noto-core)
fi
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # postgresql's package starts a cluster of its own; the tests run their own.
  if [[ " ${missing[*]} " == *" postgresql "* ]]; then
    $SUDO service postgresql stop >/dev/null 2>&1 || true
  fi
fi

# Python environment: rebuilt when pyproject.toml changes. It must be a real directory in this
# checkout with its own interpreter: a link, or an environment made elsewhere (its interpreter
# outside the checkout), would run someone else's packages, so it is refused and rebuilt.
py="${PYTHON:-python3}"
if [ -L .venv ]; then
  log "refusing .venv: it is a symbolic link ($(readlink .venv)), not an environment in this checkout; rebuilding it"
  rm -f .venv
elif [ -e .venv ]; then
  prefix="$(.venv/bin/python -c 'import sys; print(sys.prefix)' 2>/dev/null || true)"
  if [ "$(readlink -f "$prefix" 2>/dev/null)" != "$(readlink -f "$here/.venv")" ]; then
    log "refusing .venv: its interpreter's environment is ${prefix:-unusable}, not $here/.venv; rebuilding it"
    rm -rf .venv
  fi
fi
stamp=".venv/.docklake-installed"
want="$(sha256sum pyproject.toml constraints.txt | sha256sum | cut -c1-16)"
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "installing the Python environment into .venv (first time: a few minutes)"
  [ -x .venv/bin/python ] || "$py" -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -c constraints.txt -e '.[test]'
  echo "$want" > "$stamp"
fi

# The newest Tensorlake SDK (sandboxes only; PTY, tunnels, live resize) beside the one pyproject.toml
# pins (the last with Document AI): an environment of its own, which tests/sandbox/test_newest_sdk.py
# runs its scripts in. Rebuilt when tests/newest-sdk.txt changes.
if [ "$mode" = test ]; then
  sdk_want="$(sha256sum tests/newest-sdk.txt | cut -c1-16)"
  if [ ! -x .venv-sdk/bin/python ] || [ "$(cat .venv-sdk/.docklake-installed 2>/dev/null)" != "$sdk_want" ]; then
    log "installing the newest Tensorlake SDK into .venv-sdk ($(grep -v '^#' tests/newest-sdk.txt | xargs))"
    [ -x .venv-sdk/bin/python ] || "$py" -m venv .venv-sdk
    .venv-sdk/bin/pip install -q -r tests/newest-sdk.txt
    echo "$sdk_want" > .venv-sdk/.docklake-installed
  fi
fi

# CRIU for memory snapshots (scripts/build-criu.sh; skipped when a recent one answers). Without
# it everything else works and memory snapshots answer 400 with the reason.
bash scripts/build-criu.sh || log "WARNING: CRIU could not be built; memory snapshots will be unavailable"

# Docker engine: use one that answers, else start dockerd. The engine bootstrap starts is
# experimental (checkpoints, for memory snapshots) with docker-init named by its real path (CRIU
# cannot restore the bind mount of a symbolic link). One that answers is kept as it is, except
# one that an earlier bootstrap started without those flags and that runs no container: it is
# restarted with them. Any other keeps its flags; memory snapshots then say why they are off.
marker=/run/docklake-dockerd.pid
init_path="$(readlink -f "$(command -v docker-init 2>/dev/null || echo /usr/bin/docker-init)")"
dockerd_flags=(--experimental --init-path "$init_path")
ours() { # the pid of a dockerd that a bootstrap started (its marker, or its log in a .docklake dir)
  local pid
  pid="$(cat /var/run/docker.pid 2>/dev/null || cat "$marker" 2>/dev/null || true)"
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  if [ "$(cat "$marker" 2>/dev/null)" = "$pid" ] || [[ "$(readlink "/proc/$pid/fd/1" 2>/dev/null)" == */.docklake/dockerd.log ]]; then
    echo "$pid"
  else
    return 1
  fi
}
start_dockerd() {
  $SUDO nohup dockerd "${dockerd_flags[@]}" "$@" >"$data_dir/dockerd.log" 2>&1 &
  echo $! | $SUDO tee "$marker" >/dev/null
  for _ in $(seq 1 60); do
    docker version >/dev/null 2>&1 && break
    sleep 0.5
  done
}
stop_dockerd() { # $1: its pid
  $SUDO kill "$1" 2>/dev/null || true
  for _ in $(seq 1 40); do
    [ -d "/proc/$1" ] || break
    sleep 0.5
  done
}
if docker version >/dev/null 2>&1 && [ "$(docker info --format '{{.ExperimentalBuild}}' 2>/dev/null)" != true ]; then
  if pid="$(ours)" && [ -z "$(docker ps -q)" ]; then
    log "restarting the dockerd bootstrap started (pid $pid) with ${dockerd_flags[*]}"
    stop_dockerd "$pid"
  else
    log "the Docker engine that answers is not experimental: memory snapshots will be unavailable"
  fi
fi
if ! docker version >/dev/null 2>&1; then
  log "no Docker engine answers; starting dockerd"
  start_dockerd
  if ! docker version >/dev/null 2>&1; then
    log "dockerd did not come up with default networking; retrying without bridge/iptables"
    if pid="$(ours)"; then stop_dockerd "$pid"; fi
    sleep 1
    start_dockerd --bridge=none --iptables=false
  fi
  # Nothing that runs today needs the engine yet: say so loudly, but do not stop the service.
  docker version >/dev/null 2>&1 || log "WARNING: dockerd failed to start (see $data_dir/dockerd.log); sandboxes will be unavailable"
fi

# Sandbox base image (docklake/sandbox-base), built from Debian packages when the engine lacks
# it; the script itself returns at once when the image is present.
if docker version >/dev/null 2>&1; then
  DOCKLAKE_DATA_DIR="$data_dir" bash scripts/build-sandbox-image.sh ||
    log "WARNING: building the sandbox base image failed; sandboxes will be unavailable"
else
  log "WARNING: no Docker engine answers; the sandbox base image is not built"
fi
log "ready"
