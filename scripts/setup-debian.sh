#!/usr/bin/env bash
# Installs the Debian packages the service needs (ffmpeg, yt-dlp) when they are missing.
# With --test it also installs what the test suite and benchmark use (Chromium, nginx) and starts
# the local PostgreSQL server when it is down. Runs apt-get as root, or through sudo.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

packages=()
command -v ffmpeg >/dev/null || packages+=(ffmpeg)
command -v yt-dlp >/dev/null || packages+=(yt-dlp)
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

if [ "${1:-}" = "--test" ] && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "Starting PostgreSQL"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  # The tests connect as postgres to the database test with trust auth on 127.0.0.1.
  as_root su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname = 'test'\" | grep -q 1 || createdb test" || true
fi
