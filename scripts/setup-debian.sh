#!/usr/bin/env bash
# Installs the Debian packages the service needs (ffmpeg, yt-dlp, gallery-dl) when they are
# missing, and the freshest yt-dlp and gallery-dl this machine can reach (see install_fresh).
# With --test it also installs what the test suite and benchmark use (Chromium, nginx) and starts
# the local PostgreSQL server when it is down. Runs apt-get as root, or through sudo.
#
#   bash scripts/setup-debian.sh                 # install what is missing, refresh the media tools
#   bash scripts/setup-debian.sh --update-tools  # only bring yt-dlp and gallery-dl up to date (run it monthly)
#   bash scripts/setup-debian.sh --update-yt-dlp # the same (its older name)
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
# Whether as_root can work: this user is root, or sudo is there.
can_be_root() { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null; }

# Debian's suite with the newest yt-dlp and gallery-dl (architecture all, pure Python, both run on
# Debian 12 too). YTDLP_SUITE is the older name of TOOLS_SUITE.
TOOLS_SUITE="${TOOLS_SUITE:-${YTDLP_SUITE:-trixie-backports}}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# Each tool's virtual environment when it comes from PyPI.
YTDLP_VENV="${YTDLP_VENV:-/opt/yt-dlp}"
GALLERY_DL_VENV="${GALLERY_DL_VENV:-/opt/gallery-dl}"

installed_version() { "$1" --version 2>/dev/null || echo none; }

# The tool's own channel: its release on PyPI in a virtual environment of its own. Fails within
# seconds where PyPI is out of reach.
#   install_from_pypi <program> <pip requirement> <venv>
install_from_pypi() {
  local program=$1 requirement=$2 venv=$3
  python3 -c "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/$program/', timeout=5)" 2>/dev/null || return 1
  as_root python3 -m venv "$venv" >/dev/null 2>&1 || return 1
  as_root "$venv/bin/pip" install -q --upgrade --timeout 15 "$requirement" || return 1
  as_root ln -sf "$venv/bin/$program" "/usr/local/bin/$program"
}

# Debian's newest package: the .deb alone is fetched from $TOOLS_SUITE with package lists kept in a
# private folder, so the machine's sources stay as they are and nothing else is upgraded from that
# suite; its dependencies (python3-requests, -urllib3, -websockets, ... without versions) come
# from the machine's own suite.
#   install_from_debian_suite <package>
install_from_debian_suite() {
  local package=$1 work
  work=$(mktemp -d)
  # apt's download sandbox (user _apt) must be able to write there.
  chmod 755 "$work"
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR $TOOLS_SUITE main" >"$work/sources.list"
  local apt_private=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Dir::State::status=/dev/null)
  local ok=1
  if as_root apt-get -qq "${apt_private[@]}" update >/dev/null 2>&1 &&
    (cd "$work" && as_root apt-get -qq "${apt_private[@]}" download "$package" >/dev/null 2>&1); then
    local deb version
    deb=$(ls "$work/${package}"_*.deb)
    version=$(dpkg-deb -f "$deb" Version)
    if dpkg --compare-versions "$version" gt "$(dpkg-query -W -f '${Version}' "$package" 2>/dev/null || echo 0)"; then
      as_root apt-get update -qq
      DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$deb" >/dev/null && ok=0
    else
      ok=0
    fi
  fi
  rm -rf "$work"
  return "$ok"
}

# PyPI first, else Debian's $TOOLS_SUITE, else the machine's own suite (with a loud warning).
#   install_fresh <program> <pip requirement> <venv> <the service's setting for its path>
install_fresh() {
  local program=$1 requirement=$2 venv=$3 path_setting=$4
  echo "Bringing $program up to date (now: $(installed_version "$program"))"
  if install_from_pypi "$program" "$requirement" "$venv"; then
    echo "$program $(installed_version "$program") from PyPI in $venv"
  elif install_from_debian_suite "$program"; then
    echo "$program $(installed_version "$program") from Debian $TOOLS_SUITE"
  else
    command -v "$program" >/dev/null || { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$program" >/dev/null; }
    local why="neither PyPI nor Debian's $TOOLS_SUITE could be reached"
    can_be_root || why="installing needs root, and $(id -un) is not root and has no sudo"
    cat >&2 <<EOF

!!! WARNING: $why, so $program stays at
!!! $(installed_version "$program"). A $program older than a few months fails on the platforms it reads.
!!! Run "bash scripts/setup-debian.sh --update-tools" again as root or with sudo where the network allows, or point
!!! $path_setting at a current $program.

EOF
  fi
}

# The oldest Node the service runs on (pg-boss, its queue, needs 22.12), and the line brought in
# when the machine's is older: Debian 12 ships Node 18 and Debian 13 Node 20, both past their end.
NODE_FLOOR=22.12.0
NODE_LINE="${NODE_LINE:-24}"
NODE_PREFIX="${NODE_PREFIX:-/opt/media-api-node}"

node_is_supported() {
  local version
  version=$(node --version 2>/dev/null) || return 1
  dpkg --compare-versions "${version#v}" ge "$NODE_FLOOR"
}

# Node's official binary for this machine, from the npm registry (the package node-linux-<arch>,
# which npm itself reaches), unpacked into $NODE_PREFIX and linked as /usr/local/bin/node, ahead
# of Debian's /usr/bin/node on the PATH. npm itself stays Debian's (or the machine's).
#   ensure_node
ensure_node() {
  node_is_supported && return 0
  command -v npm >/dev/null || {
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends npm >/dev/null
  }
  local arch work tarball
  case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "No Node binary of the npm registry for $(uname -m): install Node $NODE_FLOOR or newer by hand." >&2 && exit 1 ;;
  esac
  echo "Node $(node --version 2>/dev/null || echo none) is older than $NODE_FLOOR: installing Node $NODE_LINE in $NODE_PREFIX"
  work=$(mktemp -d)
  tarball=$(cd "$work" && npm pack --silent "node-linux-$arch@$NODE_LINE")
  as_root rm -rf "$NODE_PREFIX"
  as_root mkdir -p "$NODE_PREFIX"
  as_root tar -xzf "$work/$tarball" -C "$NODE_PREFIX" --strip-components=1 --no-same-owner
  as_root chmod -R a+rX "$NODE_PREFIX"
  as_root ln -sf "$NODE_PREFIX/bin/node" /usr/local/bin/node
  rm -rf "$work"
  hash -r
  node_is_supported || { echo "Node in $NODE_PREFIX did not run" >&2 && exit 1; }
  echo "Node $(node --version) in $NODE_PREFIX, linked as /usr/local/bin/node"
}

install_fresh_tools() {
  install_fresh yt-dlp "yt-dlp[default]" "$YTDLP_VENV" YTDLP_PATH
  install_fresh gallery-dl gallery-dl "$GALLERY_DL_VENV" GALLERY_DL_PATH
}

case "${1:-}" in
--update-tools | --update-yt-dlp)
  install_fresh_tools
  exit 0
  ;;
esac

ensure_node

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

install_fresh_tools

if [ "${1:-}" = "--test" ] && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "Starting PostgreSQL"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  # The tests connect as postgres to the database test with trust auth on 127.0.0.1.
  as_root su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname = 'test'\" | grep -q 1 || createdb test" || true
fi
