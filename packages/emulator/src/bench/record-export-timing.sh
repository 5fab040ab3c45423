#!/usr/bin/env bash
# How long `buildx history export` holds a builder after a build, measured against a real BuildKit: the
# export the build actions run just before the teardown (with --finalize, buildx >= 0.24), against docker's
# post step on buildx < 0.24 (a 3 s sleep, then the export). Median of RUNS (default 10) small builds, each
# new (a unique build arg), on BUILDER (default: docker's default builder; any buildx builder works, a remote
# one included). Needs docker with buildx >= 0.24 (e.g. after `E2E_SET=newest scripts/e2e-up.sh`).
# Usage: bash packages/emulator/src/bench/record-export-timing.sh [RUNS]
set -euo pipefail
RUNS="${1:-10}"
BUILDER="${BUILDER:-default}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf 'FROM scratch\nARG N\nLABEL n=$N\n' > "$work/Dockerfile"
ms() { date +%s%3N; }
finalize=()
no_finalize=()
for i in $(seq 1 "$RUNS"); do
  docker buildx build --builder "$BUILDER" --quiet --build-arg "N=$RANDOM$i$$" --metadata-file "$work/meta.json" "$work" > /dev/null
  ref="$(sed -n 's/.*"buildx.build.ref": *"[^"]*\/\([^"/]*\)".*/\1/p' "$work/meta.json")"
  t0=$(ms)
  docker buildx history export --builder "$BUILDER" --finalize --output "$work/r.dockerbuild" "$ref"
  finalize+=($(($(ms) - t0)))
  size=$(stat -c %s "$work/r.dockerbuild")
  docker buildx build --builder "$BUILDER" --quiet --build-arg "N=$RANDOM$i$$" --metadata-file "$work/meta.json" "$work" > /dev/null
  ref="$(sed -n 's/.*"buildx.build.ref": *"[^"]*\/\([^"/]*\)".*/\1/p' "$work/meta.json")"
  t0=$(ms)
  docker buildx history export --builder "$BUILDER" --output "$work/r.dockerbuild" "$ref"
  no_finalize+=($(($(ms) - t0)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
echo "buildx $(docker buildx version | awk '{print $2}'), builder $BUILDER, $RUNS runs, record ~${size} bytes"
echo "export --finalize (ours, buildx >= 0.24): median $(median "${finalize[@]}") ms [${finalize[*]}]"
echo "export without --finalize: median $(median "${no_finalize[@]}") ms; docker on buildx < 0.24 adds its 3000 ms sleep before it"
