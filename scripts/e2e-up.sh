#!/usr/bin/env bash
# Sets up what the end-to-end tests need: a dockerd whose embedded BuildKit has every exporter (Debian's
# docker.io with the containerd image store), docker-buildx, a second dockerd on the classic image store
# (overlay2, as GitHub's ubuntu-latest has) for `load`, a third on the containerd store for the emulator's
# arm64 builders (one BuildKit per node), a buildx of the other version for `buildx-version`, a plain-HTTP
# registry on 127.0.0.1:5000, QEMU for arm64 RUN steps, and static busybox binaries for amd64 and arm64.
# See shared/reference/buildkit-e2e.md for the facts behind each step.
#
# Usage: sudo [E2E_SET=oldest|newest] bash scripts/e2e-up.sh [--check]
#   E2E_SET   which Docker and buildx (own mode): oldest (default) = trixie's docker.io 26.1 + docker-buildx
#             0.13, the oldest supported; newest = sid's docker.io 28.5 + docker-buildx 0.29 with trixie's
#             containerd, the newest Debian has. To switch, run scripts/e2e-down.sh first, without
#             --keep-packages (the sets' tini packages conflict: apt cannot swap one set for the other).
#   --check   only tell whether this machine can be set up (exit 0) or not (exit 3, reason on stderr).
#             Read-only: it reads /etc/apt (E2E_APT_ETC) and the dpkg status, and runs apt in a private
#             temporary copy of the apt configuration and lists (the mirror is contacted, nothing is written
#             outside that temporary folder, which is removed on exit).
#
# Two modes, chosen by what answers on the docker socket:
#   own      no Docker engine runs (Debian bookworm, as on the project's machines and CI): install the
#            packages, start dockerd and record its PID in .e2e/; e2e-down stops it.
#   system   a Docker engine already answers (e.g. a GitHub-hosted runner): use it; it must have the
#            containerd image store (E2E_RECONFIGURE_DOCKER=1 lets this script enable it and restart
#            the engine with systemctl). Only the registry, QEMU, busybox, the classic-store and arm64
#            dockerds and the other buildx (trixie's) are set up here.
# Safe to run again: what already runs is reused. State: .e2e/ (E2E_STATE_DIR), env.json is what the
# tests read (the measured versions, the image stores, the set); undo.log records each change to the system
# (apt files written, packages installed, apt lists fetched, binfmt_misc mounted or enabled, the classic
# and arm64 engines' bridges, /etc/docker/daemon.json changed) so that e2e-down undoes exactly those and
# nothing that was there before.
#
# Exit codes: 0 ready; 1 setup failed; 3 this machine cannot be set up (not root, apt unreachable, a
# package would move libc6 or systemd, an unsupported system).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${E2E_STATE_DIR:-$ROOT/.e2e}"
CACHE="${E2E_CACHE_DIR:-$STATE/cache}"
SOCK="${E2E_DOCKER_SOCKET:-/var/run/docker.sock}"
REGISTRY_ADDR="127.0.0.1:5000"
# The apt configuration --check copies (and debian_mirror reads); a test may point it at a fake one.
APT_ETC="${E2E_APT_ETC:-/etc/apt}"
# Extra apt options: empty for the system's apt; --check sets a private configuration (private_apt).
APT_OPTS=()
# Packages no install here may upgrade, downgrade or remove.
PROTECTED='^(libc6|libc-bin|libc6-dev|libc-dev-bin|locales|systemd|systemd-sysv|libsystemd0|libsystemd-shared|udev|libudev1)$'

# The toolchain set (own mode): the packages named with their suite, the suites added beside bookworm, the
# only packages that may come from those suites, the versions that count as installed, and the suite of the
# buildx of the other version (for the buildx-version test).
E2E_SET="${E2E_SET:-oldest}"
case "$E2E_SET" in
  oldest)
    SET_PACKAGES=(docker.io/trixie docker-buildx/trixie containerd/bookworm runc/bookworm)
    NEWER_SUITES=(trixie)
    FROM_NEWER='^(docker\.io|docker-buildx|docker-cli)$'
    DOCKER_RANGE=(26 27) BUILDX_RANGE=(0.13 0.14) CONTAINERD_RANGE=(1.6 1.7)
    OTHER_BUILDX_SUITE=sid
    ;;
  newest)
    # Docker 28 needs containerd >= 1.7.27 upstream (bookworm has 1.6); sid's runc needs a newer libc.
    # tini comes along from sid (docker.io depends on tini-static there).
    SET_PACKAGES=(docker.io/sid docker-buildx/sid containerd/trixie runc/bookworm)
    NEWER_SUITES=(trixie sid)
    FROM_NEWER='^(docker\.io|docker-buildx|docker-cli|containerd|tini|tini-static)$'
    DOCKER_RANGE=(28 29) BUILDX_RANGE=(0.29 0.30) CONTAINERD_RANGE=(1.7 1.8)
    OTHER_BUILDX_SUITE=trixie
    ;;
  *)
    echo "E2E_SET must be oldest or newest (got \"$E2E_SET\")" >&2
    exit 2
    ;;
esac
CLASSIC_BRIDGE=e2e-classic0
CLASSIC_BRIDGE_CIDR=172.30.213.1/24
ARM64_BRIDGE=e2e-arm64-0
ARM64_BRIDGE_CIDR=172.30.214.1/24

CHECK_ONLY=0
case "${1:-}" in
  --check) CHECK_ONLY=1 ;;
  '') ;;
  -h | --help)
    sed -n '2,31p' "$0"
    exit 0
    ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac

T0=$(date +%s%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
log() { printf '[e2e-up %6ss] %s\n' "$(elapsed)" "$*"; }
# This machine cannot be set up: a reason, exit 3.
cannot() {
  printf '[e2e-up] cannot set up the end-to-end environment: %s\n' "$*" >&2
  exit 3
}
# Setup went wrong: exit 1.
fail() {
  printf '[e2e-up] FAILED after %ss: %s\n' "$(elapsed)" "$*" >&2
  exit 1
}

# Appends one change to the system to $STATE/undo.log (e2e-down reads it, newest first).
record() { printf '%s\n' "$*" >>"$STATE/undo.log"; }
# The files of the apt lists folder, one per line (to record what an apt-get update added).
list_files() { find /var/lib/apt/lists -maxdepth 1 -type f ! -name lock 2>/dev/null | sort; }

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
# The PID recorded in $STATE/NAME.pid when that process still runs the expected program, else nothing.
recorded_pid() {
  local name=$1 comm=$2 pid
  [ -f "$STATE/$name.pid" ] || return 0
  pid=$(cat "$STATE/$name.pid")
  if pid_alive "$pid" && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ]; then echo "$pid"; fi
}
docker_ping() {
  if command -v curl >/dev/null; then
    curl -fsS --max-time 3 --unix-socket "$SOCK" http://docker/_ping >/dev/null 2>&1
  else
    [ -S "$SOCK" ] && timeout 5 docker -H "unix://$SOCK" version >/dev/null 2>&1
  fi
}
registry_ping() { curl -fsS --max-time 3 "http://$REGISTRY_ADDR/v2/" >/dev/null 2>&1; }
docker_cli() { docker -H "unix://$SOCK" "$@"; }
# The engine stores images in containerd (BuildKit then has the image, oci and docker exporters).
containerd_store() { docker_cli info --format '{{json .DriverStatus}}' 2>/dev/null | grep -q 'io.containerd.snapshotter'; }
# Waits up to $1 seconds for command "${@:2}" to succeed.
wait_for() {
  local secs=$1
  shift
  local end=$((SECONDS + secs))
  until "$@"; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.2
  done
}

# ---------------------------------------------------------------- preflight
[ "$(id -u)" = 0 ] || cannot "run as root (sudo bash scripts/e2e-up.sh): it installs packages, mounts binfmt_misc and starts dockerd"
[ -r /etc/os-release ] || cannot "no /etc/os-release: unknown system"
# shellcheck disable=SC1091
. /etc/os-release
OS_ID="${ID:-unknown}"
CODENAME="${VERSION_CODENAME:-unknown}"
NATIVE_ARCH="$(dpkg --print-architecture 2>/dev/null || echo unknown)"
case "$NATIVE_ARCH" in
  amd64) OTHER_ARCH=arm64 QEMU_NAME=qemu-aarch64 ;;
  arm64) OTHER_ARCH=amd64 QEMU_NAME=qemu-x86_64 ;;
  *) cannot "this machine is $NATIVE_ARCH; the tests need an amd64 or arm64 Debian or Ubuntu" ;;
esac
command -v apt-get >/dev/null || cannot "no apt-get: a Debian or Ubuntu machine is needed"

if docker_ping && [ -z "$(recorded_pid dockerd dockerd)" ]; then
  MODE=system
else
  MODE=own
  if [ "$OS_ID" != debian ] || [ "$CODENAME" != bookworm ]; then
    cannot "starting an own dockerd is set up for Debian bookworm (this is $OS_ID $CODENAME); start a Docker engine with the containerd image store and run this again"
  fi
fi

# The packages this mode needs: NAME or NAME/SUITE (the form apt-get is given).
if [ "$MODE" = own ]; then
  WANT=("${SET_PACKAGES[@]}" busybox-static docker-registry openssl qemu-user-static binfmt-support curl iproute2)
  command -v docker >/dev/null || WANT+=("docker-cli/${SET_PACKAGES[0]#*/}")
else
  # debian-archive-keyring: the other buildx comes from Debian's archive (see other_buildx).
  WANT=(busybox-static docker-registry qemu-user-static binfmt-support curl iproute2 debian-archive-keyring)
fi
# Extra apt arguments, always installed (for trying the refusal: E2E_EXTRA_PACKAGES=libc6/trixie).
read -ra EXTRA <<<"${E2E_EXTRA_PACKAGES:-}"

# Installed packages (name:arch), sorted.
installed_names() { dpkg-query -W -f='${db:Status-Status} ${binary:Package}\n' 2>/dev/null | awk '$1 == "installed" { print $2 }' | sort; }
installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
# Whether installed package $1's version is in [$2, $3).
version_in() {
  local v
  v=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null) || return 1
  dpkg --compare-versions "$v" ge "$2" && dpkg --compare-versions "$v" lt "$3"
}
# The entries of WANT not installed yet (in own mode, a docker.io, docker-buildx or containerd outside the
# set's versions counts as missing): installing only these leaves what is already there (openssl, curl, ...)
# at its version.
missing_packages() {
  local w
  for w in "${WANT[@]}"; do
    if ! installed "${w%%/*}"; then
      echo "$w"
    elif [ "$MODE" = own ] && [ "${w%%/*}" = docker.io ] && ! version_in docker.io "${DOCKER_RANGE[@]}"; then
      echo "$w"
    elif [ "$MODE" = own ] && [ "${w%%/*}" = docker-buildx ] && ! version_in docker-buildx "${BUILDX_RANGE[@]}"; then
      echo "$w"
    elif [ "$MODE" = own ] && [ "${w%%/*}" = containerd ] && ! version_in containerd "${CONTAINERD_RANGE[@]}"; then
      echo "$w"
    fi
  done
  if [ "${#EXTRA[@]}" -gt 0 ]; then printf '%s\n' "${EXTRA[@]}"; fi
}

# Mirror of the system's Debian sources (trixie and the private arm64 run use the same one).
debian_mirror() {
  local uri
  uri=$(grep -hE '^[[:space:]]*URIs:' "$APT_ETC"/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' |
    grep -E '/debian/?$' | head -n1 || true)
  if [ -z "$uri" ] && [ -f "$APT_ETC/sources.list" ]; then
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\// && $i ~ /\/debian\/?$/) { print $i; exit } }' \
      "$APT_ETC/sources.list" || true)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

# A private apt configuration for --check in $PRIVATE: copies of $APT_ETC's sources and preferences,
# empty lists and cache, the real dpkg status (read only). Sets APT_OPTS; the folder goes on exit.
private_apt() {
  PRIVATE=$(mktemp -d "${TMPDIR:-/tmp}/e2e-check.XXXXXX")
  trap 'rm -rf "$PRIVATE"' EXIT
  local etc="$PRIVATE/etc"
  mkdir -p "$etc/sources.list.d" "$etc/preferences.d" "$PRIVATE/lists/partial" "$PRIVATE/cache/archives/partial"
  touch "$etc/sources.list" "$etc/preferences"
  [ ! -f "$APT_ETC/sources.list" ] || cp "$APT_ETC/sources.list" "$etc/sources.list"
  [ ! -f "$APT_ETC/preferences" ] || cp "$APT_ETC/preferences" "$etc/preferences"
  find "$APT_ETC/sources.list.d" -maxdepth 1 -type f \( -name '*.list' -o -name '*.sources' \) \
    -exec cp {} "$etc/sources.list.d/" \; 2>/dev/null || true
  find "$APT_ETC/preferences.d" -maxdepth 1 -type f -exec cp {} "$etc/preferences.d/" \; 2>/dev/null || true
  APT_OPTS=(-o "Dir::Etc::SourceList=$etc/sources.list" -o "Dir::Etc::SourceParts=$etc/sources.list.d"
    -o "Dir::Etc::Preferences=$etc/preferences" -o "Dir::Etc::PreferencesParts=$etc/preferences.d"
    -o "Dir::State::Lists=$PRIVATE/lists" -o "Dir::Cache=$PRIVATE/cache" -o APT::Sandbox::User=root)
}

# Adds Debian suite $1 beside bookworm, pinned at 100 so that only what is named with /$1 comes from it.
add_suite_source() {
  local suite=$1 mirror
  mirror=$(debian_mirror)
  local src=/etc/apt/sources.list.d/e2e-$suite.sources pin=/etc/apt/preferences.d/e2e-$suite
  if [ "$CHECK_ONLY" = 1 ]; then
    src="$PRIVATE/etc/sources.list.d/e2e-$suite.sources" pin="$PRIVATE/etc/preferences.d/e2e-$suite"
  fi
  local want_src="Types: deb
URIs: $mirror
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
  local want_pin="# Only what is named with /$suite comes from $suite (docker.io, docker-buildx, ... for the e2e tests).
Package: *
Pin: release n=$suite
Pin-Priority: 100"
  if [ "$(cat "$src" 2>/dev/null)" != "$want_src" ] || [ "$(cat "$pin" 2>/dev/null)" != "$want_pin" ]; then
    log "adding the $suite suite ($mirror) at pin priority 100: $src, $pin"
    local f
    for f in "$src" "$pin"; do
      [ "$CHECK_ONLY" = 1 ] && continue
      mkdir -p "$STATE/backup"
      if [ -e "$f" ]; then
        cp -p "$f" "$STATE/backup/$(basename "$f")"
        record "restore $f $STATE/backup/$(basename "$f")"
      else
        record "file $f"
      fi
    done
    printf '%s\n' "$want_src" >"$src"
    printf '%s\n' "$want_pin" >"$pin"
  fi
}

apt_update() {
  log "apt-get update${APT_OPTS[*]:+ (private copy of the apt configuration and lists)}"
  local out before=''
  [ "$CHECK_ONLY" = 1 ] || before=$(list_files)
  if ! out=$(timeout 180 apt-get "${APT_OPTS[@]}" update 2>&1); then
    printf '%s\n' "$out" | tail -n 5 >&2
    cannot "apt-get update failed: the package mirror is unreachable"
  fi
  if printf '%s\n' "$out" | grep -qE '^(W|E): (Failed to fetch|Some index files failed)'; then
    printf '%s\n' "$out" | grep -E '^(W|E):' >&2
    # On a machine with other repositories (system mode), one unreachable source need not matter.
    [ "$MODE" = system ] || cannot "apt-get update could not fetch every index: the package mirror is unreachable"
  fi
  if [ "$CHECK_ONLY" != 1 ]; then
    local f
    while IFS= read -r f; do [ -z "$f" ] || record "list $f"; done < <(comm -13 <(printf '%s\n' "$before") <(list_files))
  fi
}

# Refuses (exit 3) when installing "$@" would remove anything, touch a protected package, or (own mode)
# take from a newer suite anything but the set's packages (FROM_NEWER).
check_simulation() {
  local sim line pkg ver bad=() pkgs=() vers=()
  if ! sim=$(apt-get "${APT_OPTS[@]}" -s -q install -y --no-install-recommends "${APT_TARGET[@]}" "$@" 2>&1); then
    printf '%s\n' "$sim" | tail -n 15 >&2
    cannot "apt-get cannot install the packages (simulation failed, see above)"
  fi
  while IFS= read -r line; do
    case "$line" in
      Remv\ *)
        if [ "$MODE" = own ]; then bad+=("would remove ${line#Remv }"); else log "note: apt removes ${line#Remv }"; fi
        continue
        ;;
      Inst\ *) ;;
      *) continue ;;
    esac
    pkg=$(awk '{print $2}' <<<"$line")
    pkg=${pkg%%:*}
    ver=$(sed -E 's/^Inst [^ ]+ (\[[^]]*\] )?\(([^ ]+) .*/\2/' <<<"$line")
    if [[ "$pkg" =~ $PROTECTED ]]; then
      bad+=("would move $pkg to $ver")
    elif [ "$MODE" = own ] && ! [[ "$pkg" =~ $FROM_NEWER ]]; then
      pkgs+=("$pkg")
      vers+=("$pkg=$ver")
    fi
  done <<<"$sim"
  if [ "${#pkgs[@]}" -gt 0 ]; then
    # One madison call for all: "name | version | mirror suite/component arch Packages".
    local from_bookworm
    from_bookworm=$(apt-cache "${APT_OPTS[@]}" madison "${pkgs[@]}" |
      awk -F'|' '$3 ~ / bookworm(-updates|-security|-backports)?\// { gsub(/ /, "", $1); gsub(/ /, "", $2); print $1 "=" $2 }')
    for ver in "${vers[@]}"; do
      grep -qxF "$ver" <<<"$from_bookworm" || bad+=("would take ${ver%%=*} ${ver#*=} from outside bookworm")
    done
  fi
  if [ "${#bad[@]}" -gt 0 ]; then
    printf '  %s\n' "${bad[@]}" >&2
    cannot "installing the e2e packages would move packages that must stay put (see above); nothing was installed"
  fi
}

install_packages() {
  local missing=()
  mapfile -t missing < <(missing_packages)
  if [ "${#missing[@]}" = 0 ]; then
    log "packages already installed: ${WANT[*]%%/*}"
    return
  fi
  log "to install: ${missing[*]}"
  APT_TARGET=()
  if [ "$MODE" = own ]; then
    local suite
    for suite in "${NEWER_SUITES[@]}"; do add_suite_source "$suite"; done
    APT_TARGET=(-t bookworm)
  fi
  apt_update
  check_simulation "${missing[@]}"
  if [ "$CHECK_ONLY" = 1 ]; then return; fi
  log "apt-get install ${APT_TARGET[*]} ${missing[*]}"
  local out before
  before=$(installed_names)
  if ! out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${APT_TARGET[@]}" "${missing[@]}" 2>&1); then
    printf '%s\n' "$out" | tail -n 20 >&2
    fail "apt-get install failed"
  fi
  # Every package this install added (dependencies too): e2e-down purges exactly these.
  local added
  added=$(comm -13 <(printf '%s\n' "$before") <(installed_names) | tr '\n' ' ')
  [ -z "${added// /}" ] || record "packages $added"
  mapfile -t missing < <(missing_packages)
  [ "${#missing[@]}" = 0 ] || fail "still missing after apt-get install: ${missing[*]}"
  for w in "${WANT[@]}"; do printf '  %-18s %s\n' "${w%%/*}" "$(dpkg-query -W -f='${Version}' "${w%%/*}")"; done
}

if [ "$CHECK_ONLY" = 1 ]; then
  private_apt
  if [ "$MODE" = system ] && ! containerd_store && [ "${E2E_RECONFIGURE_DOCKER:-}" != 1 ]; then
    cannot "the Docker engine on $SOCK does not use the containerd image store (E2E_RECONFIGURE_DOCKER=1 lets e2e-up enable it)"
  fi
  install_packages
  # The other architecture's busybox comes from the mirror too.
  if [ -z "$(missing_packages)" ] && [ ! -s "$CACHE/busybox-$OTHER_ARCH" ]; then apt_update; fi
  echo "e2e: this machine can be set up ($MODE mode, $OS_ID $CODENAME $NATIVE_ARCH$([ "$MODE" = system ] || echo ", set $E2E_SET"))"
  exit 0
fi

# System mode: the engine and buildx are the runner's (buildx 0.3x on GitHub's runners): the other is trixie's.
if [ "$MODE" = system ]; then E2E_SET=system OTHER_BUILDX_SUITE=trixie; fi
log "mode: $MODE ($OS_ID $CODENAME $NATIVE_ARCH), set $E2E_SET, state in $STATE"
mkdir -p "$STATE" "$CACHE"
# The dockerd of one set runs: switching needs it stopped (e2e-down), or the tests would see the old engine.
if [ -n "$(recorded_pid dockerd dockerd)" ] && [ "$(cat "$STATE/set" 2>/dev/null || echo oldest)" != "$E2E_SET" ]; then
  fail "the dockerd of the $(cat "$STATE/set" 2>/dev/null || echo oldest) set runs; run scripts/e2e-down.sh first, then E2E_SET=$E2E_SET bash scripts/e2e-up.sh"
fi
# `e2e-down --keep-packages` of the other set kept its docker.io: apt cannot swap the sets (sid's docker.io
# pulls tini-static, which Breaks trixie's tini), so a plain e2e-down must purge it first.
if [ "$MODE" = own ] && grep -qE '^packages .*(^| )docker\.io( |$)' "$STATE/undo.log" 2>/dev/null &&
  installed docker.io && ! version_in docker.io "${DOCKER_RANGE[@]}"; then
  fail "docker.io $(dpkg-query -W -f='${Version}' docker.io), which e2e-up installed for another set, is still installed (kept by e2e-down --keep-packages); run scripts/e2e-down.sh (without --keep-packages), then E2E_SET=$E2E_SET bash scripts/e2e-up.sh"
fi
echo "$E2E_SET" >"$STATE/set"
rm -f "$STATE/env.json"

# ---------------------------------------------------------------- packages
install_packages
for tool in docker docker-registry update-binfmts curl dpkg-deb; do
  command -v "$tool" >/dev/null || fail "$tool is not on PATH after the install"
done

# ---------------------------------------------------------------- QEMU (binfmt_misc)
if ! mountpoint -q /proc/sys/fs/binfmt_misc; then
  log "mounting binfmt_misc"
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || fail "cannot mount binfmt_misc"
  record "binfmt-mount /proc/sys/fs/binfmt_misc"
fi
if ! grep -qx enabled "/proc/sys/fs/binfmt_misc/$QEMU_NAME" 2>/dev/null; then
  log "update-binfmts --enable $QEMU_NAME"
  # Only worth undoing when the entry stays: a purge of qemu-user-static (if installed here) removes it anyway.
  record "binfmt-enable $QEMU_NAME"
  update-binfmts --enable "$QEMU_NAME" >/dev/null 2>&1 || update-binfmts --enable >/dev/null 2>&1 || true
  if ! grep -qx enabled "/proc/sys/fs/binfmt_misc/$QEMU_NAME" 2>/dev/null && command -v systemctl >/dev/null; then
    systemctl restart systemd-binfmt >/dev/null 2>&1 || true
  fi
fi
grep -qx enabled "/proc/sys/fs/binfmt_misc/$QEMU_NAME" 2>/dev/null ||
  fail "$QEMU_NAME is not registered in binfmt_misc (is qemu-user-static installed?)"
grep -q '^flags:.*F' "/proc/sys/fs/binfmt_misc/$QEMU_NAME" ||
  fail "$QEMU_NAME is registered without the F (fix-binary) flag: RUN steps in $OTHER_ARCH containers would not find it"
log "QEMU ready: $QEMU_NAME enabled ($(sed -n 's/^interpreter //p' "/proc/sys/fs/binfmt_misc/$QEMU_NAME"))"

# ---------------------------------------------------------------- busybox for both architectures
is_elf() { [ -s "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
native_busybox() {
  local f
  f=$(dpkg -L busybox-static | grep -E '/bin/busybox$' | head -n1)
  if [ -z "$f" ] || [ ! -x "$f" ]; then fail "busybox-static installs no bin/busybox"; fi
  install -m 0755 "$f" "$CACHE/busybox-$NATIVE_ARCH"
}
# Downloads busybox-static for $OTHER_ARCH with a private apt run (no dpkg --add-architecture).
foreign_busybox() {
  local dir="$CACHE/apt-$OTHER_ARCH" mirror keyring suite
  if [ "$OS_ID" = debian ]; then
    mirror=$(debian_mirror)
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  else
    keyring=/usr/share/keyrings/ubuntu-archive-keyring.gpg
    if [ "$OTHER_ARCH" = arm64 ]; then mirror=http://ports.ubuntu.com/ubuntu-ports; else mirror=http://archive.ubuntu.com/ubuntu; fi
    mirror="${E2E_FOREIGN_MIRROR:-$mirror}"
  fi
  suite="$CODENAME"
  rm -rf "$dir"
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/sources.list.d" "$dir/deb" "$dir/x"
  echo "deb [arch=$OTHER_ARCH signed-by=$keyring] $mirror $suite main" >"$dir/sources.list"
  local opts=(-q -o "APT::Architecture=$OTHER_ARCH" -o "APT::Architectures::=$OTHER_ARCH"
    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o Dir::State::status=/dev/null
    -o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/sources.list.d"
    -o APT::Sandbox::User=root)
  log "downloading busybox-static:$OTHER_ARCH ($mirror $suite) with a private apt run"
  timeout 180 apt-get "${opts[@]}" update >"$dir/update.log" 2>&1 ||
    { tail -n 5 "$dir/update.log" >&2; cannot "cannot fetch the $OTHER_ARCH package index"; }
  (cd "$dir/deb" && timeout 180 apt-get "${opts[@]}" download "busybox-static/$suite") >"$dir/download.log" 2>&1 ||
    { tail -n 5 "$dir/download.log" >&2; fail "cannot download busybox-static:$OTHER_ARCH"; }
  dpkg-deb -x "$dir"/deb/busybox-static_*.deb "$dir/x"
  local f
  f=$(find "$dir/x" -path '*/bin/busybox' -type f | head -n1)
  [ -n "$f" ] || fail "busybox-static:$OTHER_ARCH holds no bin/busybox"
  install -m 0755 "$f" "$CACHE/busybox-$OTHER_ARCH"
  rm -rf "$dir"
}
native_busybox
if is_elf "$CACHE/busybox-$OTHER_ARCH"; then
  log "busybox-$OTHER_ARCH cached in $CACHE"
else
  foreign_busybox
fi
is_elf "$CACHE/busybox-$OTHER_ARCH" || fail "no $OTHER_ARCH busybox"
log "busybox: $CACHE/busybox-amd64, $CACHE/busybox-arm64"

# ---------------------------------------------------------------- dockerd
if [ "$MODE" = own ]; then
  pid=$(recorded_pid dockerd dockerd)
  if [ -n "$pid" ] && docker_ping; then
    log "dockerd already running (PID $pid): reusing it"
  else
    [ -z "$pid" ] || fail "dockerd PID $pid runs but does not answer on $SOCK; run scripts/e2e-down.sh first"
    printf '%s\n' '{"features":{"containerd-snapshotter":true},"iptables":false,"ip-masq":false}' >"$STATE/daemon.json"
    log "starting dockerd ($(dockerd --version)) on $SOCK, log $STATE/dockerd.log"
    setsid dockerd --config-file "$STATE/daemon.json" -H "unix://$SOCK" --pidfile "$STATE/dockerd.daemon.pid" \
      >>"$STATE/dockerd.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$STATE/dockerd.pid"
    if ! wait_for 60 docker_ping; then
      tail -n 20 "$STATE/dockerd.log" >&2
      pid_alive "$pid" || rm -f "$STATE/dockerd.pid"
      fail "dockerd did not answer on $SOCK within 60 s (log above)"
    fi
    log "dockerd up (PID $pid)"
  fi
else
  log "a Docker engine already answers on $SOCK ($(docker_cli version --format '{{.Server.Version}}' 2>/dev/null)): using it"
  if ! containerd_store; then
    if [ "${E2E_RECONFIGURE_DOCKER:-}" != 1 ] || ! command -v systemctl >/dev/null; then
      cannot "the Docker engine on $SOCK does not use the containerd image store, without which BuildKit has no image exporter (--push, --load fail); add \"features\":{\"containerd-snapshotter\":true} to /etc/docker/daemon.json and restart it, or set E2E_RECONFIGURE_DOCKER=1 to let this script do it"
    fi
    log "enabling the containerd image store in /etc/docker/daemon.json and restarting docker"
    mkdir -p /etc/docker "$STATE/backup"
    if [ -e /etc/docker/daemon.json ]; then
      cp -p /etc/docker/daemon.json "$STATE/backup/daemon.json"
      record "docker-config restore /etc/docker/daemon.json $STATE/backup/daemon.json"
    else
      record "docker-config file /etc/docker/daemon.json"
    fi
    node -e '
      const fs = require("fs"); const f = "/etc/docker/daemon.json";
      const c = fs.existsSync(f) && fs.readFileSync(f, "utf8").trim() ? JSON.parse(fs.readFileSync(f, "utf8")) : {};
      c.features = {...c.features, "containerd-snapshotter": true};
      fs.writeFileSync(f, JSON.stringify(c, null, 2) + "\n");' || fail "cannot update /etc/docker/daemon.json"
    systemctl restart docker || fail "systemctl restart docker failed"
    wait_for 60 docker_ping || fail "docker did not come back on $SOCK"
  fi
fi
containerd_store || fail "dockerd on $SOCK does not use the containerd image store"
DOCKER_VERSION=$(docker_cli version --format '{{.Server.Version}}')
DOCKER_CLIENT_VERSION=$(docker_cli version --format '{{.Client.Version}}')
CONTAINERD_VERSION=$(docker_cli version --format '{{range .Server.Components}}{{if eq .Name "containerd"}}{{.Version}}{{end}}{{end}}' 2>/dev/null || true)
# As the plugin reports it (`github.com/docker/buildx 0.13.1+ds1 …`): Debian's builds carry +ds1.
BUILDX_VERSION=$(docker buildx version 2>/dev/null | awk '{print $2}') || true
[ -n "$BUILDX_VERSION" ] || fail "docker buildx does not run (is docker-buildx installed?)"
BUILDX_PLUGIN=$(docker info --format '{{range .ClientInfo.Plugins}}{{if eq .Name "buildx"}}{{.Path}}{{end}}{{end}}' 2>/dev/null || true)
if [ "$MODE" = own ]; then
  case "$DOCKER_VERSION" in
    "${DOCKER_RANGE[0]}".*) ;;
    *) fail "dockerd is $DOCKER_VERSION, not the $E2E_SET set's ${DOCKER_RANGE[0]}.x" ;;
  esac
  dpkg --compare-versions "$BUILDX_VERSION" ge "${BUILDX_RANGE[0]}" && dpkg --compare-versions "$BUILDX_VERSION" lt "${BUILDX_RANGE[1]}" ||
    fail "docker buildx is $BUILDX_VERSION ($BUILDX_PLUGIN), not the $E2E_SET set's ${BUILDX_RANGE[0]}.x"
fi

# ---------------------------------------------------------------- more dockerds: classic store (load), arm64
# Each has its own bridge, data-root, exec-root (so its own containerd), pidfile and socket under $STATE/NAME,
# so that it leaves the first engine's docker0 alone (shared/reference/buildkit-e2e.md).
#  classic  on the classic image store (no containerd-snapshotter, overlay2), as GitHub's ubuntu-latest has:
#           `load` is tested into it (DOCKER_HOST).
#  arm64    on the containerd image store: the emulator's arm64 builders proxy to its BuildKit, so that the two
#           nodes of a multi-arch assignment have a BuildKit each, as the service's one VM per builder
#           (buildx >= 0.16 gives all nodes of a build one build ref: on one shared BuildKit they collide).
engine_ping() { curl -fsS --max-time 3 --unix-socket "$1" http://docker/_ping >/dev/null 2>&1; }
# start_engine NAME TITLE BRIDGE CIDR SNAPSHOTTER: starts dockerd NAME (TITLE in messages) on
# $STATE/NAME/docker.sock, on the containerd image store when SNAPSHOTTER is true; reuses the one running.
start_engine() {
  local name=$1 title=$2 bridge=$3 cidr=$4 snapshotter=$5
  local dir="$STATE/$1" sock="$STATE/$1/docker.sock" pid storage=''
  command -v dockerd >/dev/null || fail "no dockerd on PATH for the $title dockerd"
  pid=$(recorded_pid "$name-dockerd" dockerd)
  if [ -n "$pid" ] && engine_ping "$sock"; then
    log "$title dockerd already running (PID $pid): reusing it"
    return
  fi
  [ -z "$pid" ] || fail "$title dockerd PID $pid runs but does not answer on $sock; run scripts/e2e-down.sh first"
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    log "creating bridge $bridge ($cidr) for the $title dockerd"
    ip link add name "$bridge" type bridge || fail "cannot create bridge $bridge"
    record "link $bridge"
    ip addr add "$cidr" dev "$bridge" || fail "cannot give $bridge the address $cidr"
    ip link set "$bridge" up || fail "cannot bring $bridge up"
  fi
  mkdir -p "$dir/data" "$dir/exec"
  [ "$snapshotter" = true ] || storage='
  "storage-driver": "overlay2",'
  cat >"$dir/daemon.json" <<EOF
{
  "features": {"containerd-snapshotter": $snapshotter},$storage
  "bridge": "$bridge",
  "iptables": false,
  "ip-masq": false,
  "data-root": "$dir/data",
  "exec-root": "$dir/exec",
  "pidfile": "$dir/dockerd.pid",
  "hosts": ["unix://$sock"]
}
EOF
  log "starting the $title dockerd on $sock, log $STATE/$name-dockerd.log"
  setsid dockerd --config-file "$dir/daemon.json" >>"$STATE/$name-dockerd.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$STATE/$name-dockerd.pid"
  if ! wait_for 60 engine_ping "$sock"; then
    tail -n 20 "$STATE/$name-dockerd.log" >&2
    pid_alive "$pid" || rm -f "$STATE/$name-dockerd.pid"
    fail "the $title dockerd did not answer on $sock within 60 s (log above)"
  fi
  log "$title dockerd up (PID $pid)"
}

CLASSIC="$STATE/classic"
CLASSIC_SOCK="$CLASSIC/docker.sock"
classic_cli() { docker -H "unix://$CLASSIC_SOCK" "$@"; }
start_engine classic classic-store "$CLASSIC_BRIDGE" "$CLASSIC_BRIDGE_CIDR" false
CLASSIC_VERSION=$(classic_cli version --format '{{.Server.Version}}')
CLASSIC_DRIVER=$(classic_cli info --format '{{.Driver}}')
if classic_cli info --format '{{json .DriverStatus}}' 2>/dev/null | grep -q 'io.containerd.snapshotter'; then
  fail "the engine on $CLASSIC_SOCK uses the containerd image store; it must use the classic one"
fi

ARM64="$STATE/arm64"
ARM64_SOCK="$ARM64/docker.sock"
arm64_cli() { docker -H "unix://$ARM64_SOCK" "$@"; }
start_engine arm64 arm64-builder "$ARM64_BRIDGE" "$ARM64_BRIDGE_CIDR" true
ARM64_VERSION=$(arm64_cli version --format '{{.Server.Version}}')
arm64_cli info --format '{{json .DriverStatus}}' 2>/dev/null | grep -q 'io.containerd.snapshotter' ||
  fail "the engine on $ARM64_SOCK does not use the containerd image store"

# ---------------------------------------------------------------- a buildx of the other version
# For `buildx-version`: Debian's docker-buildx of the other suite, unpacked (nothing installed). The tests put
# it into a tool cache (RUNNER_TOOL_CACHE) as the release of that version.
other_buildx() {
  local suite=$OTHER_BUILDX_SUITE dir="$CACHE/apt-buildx-$OTHER_BUILDX_SUITE" mirror=http://deb.debian.org/debian
  [ "$OS_ID" != debian ] || mirror=$(debian_mirror)
  rm -rf "$dir"
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/sources.list.d" "$dir/preferences.d" "$dir/deb" "$dir/x"
  # When the system's apt already lists that suite (the newest set adds trixie and sid), `apt-get download`
  # only fetches the .deb into $dir/deb; otherwise a private apt run fetches the suite's index first.
  if [ "$MODE" = own ] && (cd "$dir/deb" && timeout 180 apt-get -q -o APT::Sandbox::User=root download "docker-buildx/$suite") >"$dir/download.log" 2>&1; then
    log "downloaded docker-buildx/$suite with the system's apt lists"
  else
    other_buildx_private "$suite" "$dir" "$mirror"
  fi
  dpkg-deb -x "$dir"/deb/docker-buildx_*.deb "$dir/x"
  local f
  f=$(find "$dir/x" -path '*/cli-plugins/docker-buildx' -type f | head -n1)
  [ -n "$f" ] || fail "docker-buildx/$suite holds no cli-plugins/docker-buildx"
  mkdir -p "$CACHE/buildx-$suite"
  install -m 0755 "$f" "$CACHE/buildx-$suite/docker-buildx"
  rm -rf "$dir"
}
# Downloads docker-buildx/$1 into $2/deb with a private apt configuration and lists (in $2) for mirror $3.
other_buildx_private() {
  local suite=$1 dir=$2 mirror=$3
  rm -f "$dir"/deb/*
  touch "$dir/preferences"
  echo "deb [arch=$NATIVE_ARCH signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$dir/sources.list"
  local opts=(-q -o "APT::Architecture=$NATIVE_ARCH" -o "APT::Architectures::=$NATIVE_ARCH"
    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o Dir::State::status=/dev/null
    -o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/sources.list.d"
    -o "Dir::Etc::Preferences=$dir/preferences" -o "Dir::Etc::PreferencesParts=$dir/preferences.d"
    -o APT::Sandbox::User=root)
  log "downloading docker-buildx/$suite ($mirror) with a private apt run"
  timeout 180 apt-get "${opts[@]}" update >"$dir/update.log" 2>&1 ||
    { tail -n 5 "$dir/update.log" >&2; fail "cannot fetch the $suite package index"; }
  (cd "$dir/deb" && timeout 180 apt-get "${opts[@]}" download "docker-buildx/$suite") >"$dir/download.log" 2>&1 ||
    { tail -n 5 "$dir/download.log" >&2; fail "cannot download docker-buildx/$suite"; }
}
OTHER_BUILDX="$CACHE/buildx-$OTHER_BUILDX_SUITE/docker-buildx"
if [ -x "$OTHER_BUILDX" ]; then log "buildx of $OTHER_BUILDX_SUITE cached in $OTHER_BUILDX"; else other_buildx; fi
OTHER_BUILDX_REPORTS=$("$OTHER_BUILDX" version 2>/dev/null | awk '{print $2}') || true
[ -n "$OTHER_BUILDX_REPORTS" ] || fail "$OTHER_BUILDX does not run"
# The release it stands for in a tool cache (0.29.1 for 0.29.1+ds1).
OTHER_BUILDX_VERSION=$(sed -E 's/^v?([0-9]+\.[0-9]+\.[0-9]+).*/\1/' <<<"$OTHER_BUILDX_REPORTS")
log "other buildx: $OTHER_BUILDX_REPORTS ($OTHER_BUILDX)"

# ---------------------------------------------------------------- registry
pid=$(recorded_pid registry docker-registry)
# Where a service manager runs (e.g. Ubuntu), installing docker-registry starts its service on :5000.
if [ -z "$pid" ] && command -v systemctl >/dev/null && systemctl is-active --quiet docker-registry 2>/dev/null; then
  wait_for 15 registry_ping || true
fi
if [ -n "$pid" ] && registry_ping; then
  log "registry already running on $REGISTRY_ADDR (PID $pid): reusing it"
elif [ -z "$pid" ] && registry_ping; then
  log "a registry not started by this script already answers on $REGISTRY_ADDR: using it"
else
  [ -z "$pid" ] || fail "registry PID $pid runs but does not answer on $REGISTRY_ADDR; run scripts/e2e-down.sh first"
  mkdir -p "$STATE/registry-data"
  cat >"$STATE/registry.yml" <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $STATE/registry-data
  delete:
    enabled: true
http:
  addr: $REGISTRY_ADDR
EOF
  log "starting docker-registry on $REGISTRY_ADDR, log $STATE/registry.log"
  setsid docker-registry serve "$STATE/registry.yml" >>"$STATE/registry.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$STATE/registry.pid"
  if ! wait_for 30 registry_ping; then
    tail -n 20 "$STATE/registry.log" >&2
    pid_alive "$pid" || rm -f "$STATE/registry.pid"
    fail "the registry did not answer on $REGISTRY_ADDR within 30 s (log above)"
  fi
  log "registry up (PID $pid)"
fi

# ---------------------------------------------------------------- state for the tests
SETUP_SECONDS=$(elapsed)
cat >"$STATE/env.json.tmp" <<EOF
{
  "set": "$E2E_SET",
  "mode": "$MODE",
  "dockerSocket": "$SOCK",
  "dockerVersion": "$DOCKER_VERSION",
  "dockerClientVersion": "$DOCKER_CLIENT_VERSION",
  "containerdVersion": "$CONTAINERD_VERSION",
  "imageStore": "containerd",
  "buildxVersion": "$BUILDX_VERSION",
  "buildxPlugin": "$BUILDX_PLUGIN",
  "classicEngine": {"dockerSocket": "$CLASSIC_SOCK", "dockerVersion": "$CLASSIC_VERSION", "imageStore": "classic", "storageDriver": "$CLASSIC_DRIVER"},
  "arm64Engine": {"dockerSocket": "$ARM64_SOCK", "dockerVersion": "$ARM64_VERSION", "imageStore": "containerd"},
  "otherBuildx": {"version": "$OTHER_BUILDX_VERSION", "reports": "$OTHER_BUILDX_REPORTS", "binary": "$OTHER_BUILDX", "suite": "$OTHER_BUILDX_SUITE"},
  "registry": "$REGISTRY_ADDR",
  "busybox": {"amd64": "$CACHE/busybox-amd64", "arm64": "$CACHE/busybox-arm64"},
  "qemu": "$QEMU_NAME",
  "setupSeconds": $SETUP_SECONDS,
  "writtenAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
EOF
mv "$STATE/env.json.tmp" "$STATE/env.json"
# Readable for the tests (the classic and arm64 engines' folders are left as dockerd made them).
find "$STATE" \( -path "$CLASSIC" -o -path "$ARM64" \) -prune -o -exec chmod a+rX {} +
chmod a+rx "$CLASSIC" "$ARM64"
log "ready ($E2E_SET): dockerd $DOCKER_VERSION (containerd image store), buildx $BUILDX_VERSION, classic-store dockerd $CLASSIC_VERSION ($CLASSIC_DRIVER) on $CLASSIC_SOCK, arm64-builder dockerd $ARM64_VERSION on $ARM64_SOCK, other buildx $OTHER_BUILDX_REPORTS, registry $REGISTRY_ADDR; state $STATE/env.json"
log "setup took ${SETUP_SECONDS} s"
