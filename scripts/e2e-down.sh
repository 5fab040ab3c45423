#!/usr/bin/env bash
# Undoes what scripts/e2e-up.sh did, and only that: stops the processes it started (the PIDs recorded in
# .e2e/*.pid: the registry, then the classic-store, arm64 and first dockerd, each of which stops the containerd
# it started), then reverts, newest first, each change it recorded in .e2e/undo.log: the bridges of the classic
# and arm64 engines deleted, /etc/docker/daemon.json restored (and docker restarted),
# binfmt_misc entries it enabled disabled and the mount it made unmounted, the packages it installed purged
# (never one that was there before: the purge is simulated first and refused if it would take anything
# else), the apt lists its update fetched and the apt sources/preferences it wrote removed (or restored
# when it replaced one). Then .e2e/ goes. A Docker engine or registry that e2e-up found running is left alone.
# Works for either toolchain set (E2E_SET of e2e-up); afterwards e2e-up may set up the other one.
#
# Usage: sudo bash scripts/e2e-down.sh [--keep-packages]
#   --keep-packages  keep the packages, the apt sources and lists that came with them and the download cache
#                    (.e2e/cache), so the next e2e-up needs no network; a later e2e-down still removes them.
# Exit codes: 0 done; 1 something could not be undone (what is left is named, and kept in .e2e/undo.log).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${E2E_STATE_DIR:-$ROOT/.e2e}"
KEEP_PACKAGES=0
case "${1:-}" in
  --keep-packages) KEEP_PACKAGES=1 ;;
  # --purge was the old way to remove the registry data and logs; that is what happens now anyway.
  --purge | '') ;;
  *)
    echo "usage: $0 [--keep-packages]" >&2
    exit 2
    ;;
esac

T0=$(date +%s%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
log() { printf '[e2e-down %5ss] %s\n' "$(elapsed)" "$*"; }

status=0
# stop NAME COMM SECONDS: SIGTERM the recorded PID if it still runs COMM, wait, then SIGKILL.
stop() {
  local name=$1 comm=$2 secs=$3 file="$STATE/$1.pid" pid
  if [ ! -f "$file" ]; then
    log "$name: not started by e2e-up (no $file)"
    return
  fi
  pid=$(cat "$file")
  if ! kill -0 "$pid" 2>/dev/null; then
    log "$name: PID $pid already gone"
    rm -f "$file"
    return
  fi
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$comm" ]; then
    log "$name: PID $pid is no longer $comm; leaving it alone"
    rm -f "$file"
    return
  fi
  log "$name: stopping PID $pid"
  if ! kill -TERM "$pid" 2>/dev/null; then
    log "$name: cannot signal PID $pid (run as root: sudo bash scripts/e2e-down.sh)"
    status=1
    return
  fi
  local end=$((SECONDS + secs))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name: PID $pid still running after ${secs} s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  if kill -0 "$pid" 2>/dev/null; then
    log "$name: PID $pid survived SIGKILL"
    status=1
  else
    log "$name: stopped"
    rm -f "$file"
  fi
}

# undo WORDS...: reverts one undo.log entry; adds it to `kept` when it is to be kept (or could not be undone).
RESTART_DOCKER=0
kept=()
undo() {
  local kind=$1
  shift
  case "$kind" in
    docker-config)
      if [ "$1" = restore ]; then
        log "restoring $2"
        cp -p "$3" "$2" || { log "cannot restore $2 from $3"; status=1; kept+=("$kind $*"); return; }
      else
        log "removing $2 (e2e-up created it)"
        rm -f "$2"
      fi
      RESTART_DOCKER=1
      ;;
    binfmt-enable)
      if [ -e "/proc/sys/fs/binfmt_misc/$1" ]; then
        log "disabling binfmt_misc entry $1"
        update-binfmts --disable "$1" >/dev/null 2>&1 || echo 0 >"/proc/sys/fs/binfmt_misc/$1" || {
          log "cannot disable $1"
          status=1
        }
      fi
      ;;
    link)
      if ip link show "$1" >/dev/null 2>&1; then
        log "deleting bridge $1 (e2e-up created it)"
        ip link delete "$1" || { log "cannot delete bridge $1"; status=1; kept+=("$kind $*"); }
      fi
      ;;
    binfmt-mount)
      if mountpoint -q "$1"; then
        log "unmounting $1"
        umount "$1" || { log "cannot unmount $1"; status=1; kept+=("$kind $*"); }
      fi
      ;;
    packages)
      if [ "$KEEP_PACKAGES" = 1 ]; then
        log "keeping the packages e2e-up installed: $*"
        kept+=("$kind $*")
        return
      fi
      purge_packages "$@" || { status=1; kept+=("$kind $*"); }
      ;;
    file | restore | list)
      if [ "$KEEP_PACKAGES" = 1 ]; then
        kept+=("$kind $*")
        return
      fi
      case "$kind" in
        file) log "removing $1 (e2e-up created it)" && rm -f "$1" ;;
        restore) log "restoring $1" && cp -p "$2" "$1" ;;
        list) rm -f "$1" ;;
      esac
      ;;
    *) log "unknown undo.log entry kept: $kind $*" && kept+=("$kind $*") ;;
  esac
}

# Purges exactly the packages e2e-up installed (name:arch), after a simulation shows nothing else goes.
purge_packages() {
  local sim others
  local -A mine=()
  for p in "$@"; do mine[${p%%:*}]=1; done
  # Only those still installed.
  local present=()
  for p in "$@"; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] && present+=("$p")
  done
  if [ "${#present[@]}" = 0 ]; then
    log "packages e2e-up installed are already gone"
    return 0
  fi
  if ! sim=$(apt-get -s -q purge "${present[@]}" 2>&1); then
    printf '%s\n' "$sim" | tail -n 10 >&2
    log "apt-get cannot purge ${present[*]}"
    return 1
  fi
  others=$(awk '$1 == "Purg" || $1 == "Remv" { print $2 }' <<<"$sim" | while read -r p; do
    [ -n "${mine[${p%%:*}]:-}" ] || echo "$p"
  done)
  if [ -n "$others" ]; then
    log "refusing to purge: it would also remove packages e2e-up did not install: $(tr '\n' ' ' <<<"$others")"
    return 1
  fi
  log "purging the ${#present[@]} package(s) e2e-up installed: ${present[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${present[@]}" >"$STATE/purge.log" 2>&1 || {
    tail -n 20 "$STATE/purge.log" >&2
    log "apt-get purge failed"
    return 1
  }
}

if [ ! -d "$STATE" ]; then
  log "nothing to undo: no $STATE"
  exit 0
fi
rm -f "$STATE/env.json"
stop registry docker-registry 10
stop classic-dockerd dockerd 40
stop arm64-dockerd dockerd 40
stop dockerd dockerd 40

if [ -f "$STATE/undo.log" ]; then
  mapfile -t entries < <(tac "$STATE/undo.log")
  for entry in "${entries[@]}"; do
    [ -n "$entry" ] || continue
    read -ra words <<<"$entry"
    undo "${words[@]}"
  done
else
  log "no $STATE/undo.log: e2e-up changed nothing outside $STATE (or ran before it kept one)"
fi
if [ "$RESTART_DOCKER" = 1 ] && command -v systemctl >/dev/null; then
  log "restarting docker with its previous configuration"
  systemctl restart docker || { log "systemctl restart docker failed"; status=1; }
fi

if [ "$status" != 0 ]; then
  # Keep what is needed to try again: the PID files and the entries not undone.
  printf '%s\n' "${kept[@]}" | tac >"$STATE/undo.log"
  log "not everything could be undone (see above); kept $STATE for another try"
elif [ "$KEEP_PACKAGES" = 1 ] && [ "${#kept[@]}" -gt 0 -o -d "$STATE/cache" ]; then
  find "$STATE" -mindepth 1 -maxdepth 1 ! -name cache ! -name backup -exec rm -rf {} +
  if [ "${#kept[@]}" -gt 0 ]; then printf '%s\n' "${kept[@]}" | tac >"$STATE/undo.log"; fi
  log "removed $STATE except the download cache and what --keep-packages keeps (listed in $STATE/undo.log)"
else
  rm -rf "$STATE"
  log "removed $STATE"
fi
log "done in $(elapsed) s"
exit "$status"
