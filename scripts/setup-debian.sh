#!/usr/bin/env bash
# Installs the Debian packages the service needs (ffmpeg, yt-dlp) when they are missing, and the
# freshest yt-dlp this machine can reach (see install_fresh_yt_dlp).
# With --test it also installs what the test suite and benchmark use (Chromium, nginx) and starts
# the local PostgreSQL server when it is down. Runs apt-get as root, or through sudo.
#
#   bash scripts/setup-debian.sh                 # install what is missing, refresh yt-dlp
#   bash scripts/setup-debian.sh --update-yt-dlp # only bring yt-dlp up to date (run it monthly)
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian's suite with the newest yt-dlp (architecture all, pure Python, runs on Debian 12 too).
YTDLP_SUITE="${YTDLP_SUITE:-trixie-backports}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
YTDLP_VENV="${YTDLP_VENV:-/opt/yt-dlp}"

installed_yt_dlp() { yt-dlp --version 2>/dev/null || echo none; }

# yt-dlp's own channel: the release on PyPI in a virtual environment of its own. Fails within
# seconds where PyPI is out of reach.
install_from_pypi() {
  python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/yt-dlp/", timeout=5)' 2>/dev/null || return 1
  as_root python3 -m venv "$YTDLP_VENV" >/dev/null 2>&1 || return 1
  as_root "$YTDLP_VENV/bin/pip" install -q --upgrade --timeout 15 "yt-dlp[default]" || return 1
  as_root ln -sf "$YTDLP_VENV/bin/yt-dlp" /usr/local/bin/yt-dlp
}

# Debian's newest package: the .deb alone is fetched from $YTDLP_SUITE with package lists kept in a
# private folder, so the machine's sources stay as they are and nothing else is upgraded from that
# suite; its dependencies (python3-requests, -urllib3, -websockets, ... without versions) come
# from the machine's own suite.
install_from_debian_suite() {
  local work
  work=$(mktemp -d)
  # apt's download sandbox (user _apt) must be able to write there.
  chmod 755 "$work"
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR $YTDLP_SUITE main" >"$work/sources.list"
  local apt_private=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Dir::State::status=/dev/null)
  local ok=1
  if as_root apt-get -qq "${apt_private[@]}" update >/dev/null 2>&1 &&
    (cd "$work" && as_root apt-get -qq "${apt_private[@]}" download yt-dlp >/dev/null 2>&1); then
    local deb
    deb=$(ls "$work"/yt-dlp_*.deb)
    local version
    version=$(dpkg-deb -f "$deb" Version)
    if dpkg --compare-versions "$version" gt "$(dpkg-query -W -f '${Version}' yt-dlp 2>/dev/null || echo 0)"; then
      as_root apt-get update -qq
      DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$deb" >/dev/null && ok=0
    else
      ok=0
    fi
  fi
  rm -rf "$work"
  return "$ok"
}

install_fresh_yt_dlp() {
  echo "Bringing yt-dlp up to date (now: $(installed_yt_dlp))"
  if install_from_pypi; then
    echo "yt-dlp $(installed_yt_dlp) from PyPI in $YTDLP_VENV"
  elif install_from_debian_suite; then
    echo "yt-dlp $(installed_yt_dlp) from Debian $YTDLP_SUITE"
  else
    command -v yt-dlp >/dev/null || { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends yt-dlp >/dev/null; }
    cat >&2 <<EOF

!!! WARNING: neither PyPI nor Debian's $YTDLP_SUITE could be reached, so yt-dlp stays at
!!! $(installed_yt_dlp). A yt-dlp older than a few months fails on YouTube and other platforms.
!!! Run "bash scripts/setup-debian.sh --update-yt-dlp" again where the network allows, or point
!!! YTDLP_PATH at a current yt-dlp.

EOF
  fi
}

if [ "${1:-}" = "--update-yt-dlp" ]; then
  install_fresh_yt_dlp
  exit 0
fi

packages=()
command -v ffmpeg >/dev/null || packages+=(ffmpeg)
if [ "${1:-}" = "--test" ]; then
  command -v chromium >/dev/null || packages+=(chromium)
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || packages+=(nginx-light)
  command -v pg_ctlcluster >/dev/null || packages+=(postgresql)
  # Node 25 and later (the contract suite runs Node 26) are linked against libatomic.
  dpkg -s libatomic1 >/dev/null 2>&1 || packages+=(libatomic1)
fi

if [ "${#packages[@]}" -gt 0 ]; then
  echo "Installing Debian packages: ${packages[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

install_fresh_yt_dlp

if [ "${1:-}" = "--test" ] && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "Starting PostgreSQL"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  # The tests connect as postgres to the database test with trust auth on 127.0.0.1.
  as_root su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname = 'test'\" | grep -q 1 || createdb test" || true
fi
