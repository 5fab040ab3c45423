#!/usr/bin/env bash
# Stops exactly the processes scripts/e2e-up.sh started (the PIDs recorded in .e2e/*.pid): the registry,
# then dockerd (which stops the containerd it started). A Docker engine or registry that e2e-up found
# running is left alone. Keeps the package installs and the busybox cache; --purge also removes the
# registry's data and the logs.
#
# Usage: sudo bash scripts/e2e-down.sh [--purge]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${E2E_STATE_DIR:-$ROOT/.e2e}"
PURGE=0
case "${1:-}" in
  --purge) PURGE=1 ;;
  '') ;;
  *)
    echo "usage: $0 [--purge]" >&2
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

if [ ! -d "$STATE" ]; then
  log "nothing to stop: no $STATE"
  exit 0
fi
rm -f "$STATE/env.json"
stop registry docker-registry 10
stop dockerd dockerd 40
if [ "$PURGE" = 1 ] && [ "$status" = 0 ]; then
  log "purging registry data and logs"
  rm -rf "$STATE/registry-data" "$STATE"/*.log "$STATE/registry.yml" "$STATE/daemon.json"
fi
log "done in $(elapsed) s"
exit "$status"
