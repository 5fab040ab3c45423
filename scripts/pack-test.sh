#!/usr/bin/env bash
# The published packages, as a user gets them: packs core, cli and emulator (`npm pack -w`, their prepack
# builds lib/ and bundle/), installs the tarballs into an empty project (their dependencies from the npm
# registry), imports the SDK from plain Node, starts the installed emulator on a free loopback port and runs
# the installed CLI against it: builder up, builder run -- docker buildx ls (inspect with the fake docker),
# builder down, and the SDK's README example. Then every builder in the emulator's ledger must be torn down.
# Docker: PACK_TEST_DOCKER=real uses the machine's docker and serves the builders from its dockerd's BuildKit
# (emulator --docker-socket, DOCKER_SOCKET or /var/run/docker.sock); PACK_TEST_DOCKER=fake puts the emulator
# package's fake docker (fake-docker/, shipped with it) first on PATH; auto (default): real when that
# dockerd answers, else fake.
# Usage: bash scripts/pack-test.sh   (KEEP=1 keeps the temporary folder for a look afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
started=$SECONDS

step() { printf '\n==== pack-test (%d s): %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  echo "pack-test: $*" >&2
  exit 1
}

work="$(mktemp -d "${TMPDIR:-/tmp}/pack-test.XXXXXX")"
emulator_pid=""
cleanup() {
  if [ -n "$emulator_pid" ] && kill -0 "$emulator_pid" 2>/dev/null; then kill "$emulator_pid" 2>/dev/null || true; fi
  if [ "${KEEP:-}" = 1 ]; then echo "pack-test: kept $work"; else rm -rf "$work"; fi
  # A failed prepack leaves its output (postpack runs only after a pack that worked).
  rm -rf "$root/packages/core/lib" "$root/packages/cli/bundle" "$root/packages/emulator/bundle"
}
trap cleanup EXIT

step "node $(node --version) ($(command -v node)), npm $(npm --version)"
step "npm pack (core, cli, emulator)"
mkdir -p "$work/tarballs" "$work/project" "$work/state" "$work/fake-docker-state"
npm pack --silent --pack-destination "$work/tarballs" \
  -w @remote-builder-actions/core -w @remote-builder-actions/cli -w @remote-builder-actions/emulator >/dev/null
ls -1 "$work/tarballs"
for name in core cli emulator; do
  tarball="$(ls "$work"/tarballs/remote-builder-actions-"$name"-*.tgz)"
  # What ships: the build outputs, never the TypeScript sources or the tests.
  listing="$(tar -tzf "$tarball")"
  if grep -Eq '^package/(src|__tests__|__faults__|__e2e__)/' <<<"$listing"; then
    fail "$tarball ships sources or tests: $(grep -E '^package/(src|__)' <<<"$listing" | head -3 | tr '\n' ' ')"
  fi
  echo "$(basename "$tarball"): $(wc -l <<<"$listing") files"
done
for built in packages/core/lib packages/cli/bundle packages/emulator/bundle; do
  [ ! -e "$built" ] || fail "$built is still there after npm pack (postpack should remove it)"
done

step "npm install the tarballs into an empty project"
cd "$work/project"
printf '{"name": "pack-test", "private": true, "type": "module"}\n' >package.json
npm install --no-audit --no-fund --loglevel=error "$work"/tarballs/*.tgz
bin="$work/project/node_modules/.bin"

step "the SDK from plain Node"
node -e "import('@remote-builder-actions/core')"
node --input-type=module -e "
  import {BuildersClient, PROJECT_VERSION} from '@remote-builder-actions/core';
  import * as actions from '@remote-builder-actions/core/actions';
  import * as ci from '@remote-builder-actions/core/ci';
  if (typeof BuildersClient !== 'function') throw new Error('BuildersClient is not exported');
  if (typeof ci.ApiClient !== 'function' || typeof ci.CiClient !== 'function') throw new Error('./ci lacks ApiClient or CiClient');
  if (Object.keys(actions).length === 0 || Object.keys(ci).length === 0) throw new Error('a subpath exports nothing');
  console.log('core', PROJECT_VERSION, 'imported, with ./actions and ./ci');
"
[ -f node_modules/@remote-builder-actions/core/lib/index.d.ts ] || fail "core ships no lib/index.d.ts"

step "remote-builder --version"
version="$(node -p "require('$root/packages/cli/package.json').version")"
[ "$("$bin/remote-builder" --version)" = "remote-builder $version" ] ||
  fail "remote-builder --version printed \"$("$bin/remote-builder" --version)\", not \"remote-builder $version\""
echo "remote-builder $version"

step "remote-builder-emulator on a free loopback port"
key="pack-test-key-$RANDOM$RANDOM"
emulator_args=(--host 127.0.0.1 --port 0 --api-key "$key" --quiet)
docker_mode="${PACK_TEST_DOCKER:-auto}"
if [ "$docker_mode" = auto ]; then
  docker_mode=fake
  if [ -S "${DOCKER_SOCKET:-/var/run/docker.sock}" ] && docker info >/dev/null 2>&1 && docker buildx version >/dev/null 2>&1; then
    docker_mode=real
  fi
fi
case "$docker_mode" in
  fake)
    fake_docker="$work/project/node_modules/@remote-builder-actions/emulator/fake-docker"
    [ -x "$fake_docker/docker" ] || fail "the emulator package ships no fake-docker/docker"
    export PATH="$fake_docker:$PATH" FAKE_DOCKER_DIR="$work/fake-docker-state"
    # The fake has no `buildx ls`, nor reads BUILDX_BUILDER: `inspect --bootstrap --builder "$BUILDX_BUILDER"` shows the
    # builder the CLI set it to, after a mutual-TLS handshake with each of its nodes.
    run_command=(sh -c 'docker buildx inspect --bootstrap --builder "$BUILDX_BUILDER"')
    echo "docker: the fake docker of the installed emulator package ($fake_docker/docker)"
    ;;
  real)
    emulator_args+=(--docker-socket "${DOCKER_SOCKET:-/var/run/docker.sock}")
    run_command=(docker buildx ls)
    echo "docker: $(command -v docker), $(docker buildx version)"
    ;;
  *) fail "PACK_TEST_DOCKER must be auto, fake or real, not \"$docker_mode\"" ;;
esac
"$bin/remote-builder-emulator" "${emulator_args[@]}" >"$work/emulator.log" 2>&1 &
emulator_pid=$!
url=""
for _ in $(seq 1 600); do # the emulator prints its URL once it listens (at most 60 s)
  url="$(sed -n 's/^Remote-builder emulator listening on \(http:\/\/127\.0\.0\.1:[0-9]*\)$/\1/p' "$work/emulator.log")"
  [ -n "$url" ] && break
  kill -0 "$emulator_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || fail "the emulator did not start: $(cat "$work/emulator.log")"
echo "emulator at $url (pid $emulator_pid)"

export REMOTE_BUILDER_API_URL="$url" REMOTE_BUILDER_API_KEY="$key" XDG_STATE_HOME="$work/state"
cli() {
  echo "\$ remote-builder $*"
  local rc=0
  "$bin/remote-builder" "$@" || rc=$?
  [ "$rc" = 0 ] || fail "remote-builder $* exited $rc"
}

step "the installed CLI against it"
cli builder up --profile default --name pack-test
cli builder run --profile default -- "${run_command[@]}"
cli builder down --name pack-test

step "the SDK's README example (packages/core/README.md) against it"
node --input-type=module -e "
  import {BuildersClient} from '@remote-builder-actions/core';
  const api = new BuildersClient({baseUrl: process.env.REMOTE_BUILDER_API_URL, token: process.env.REMOTE_BUILDER_API_KEY});
  const {builder_instances} = await api.assignBuilder('default');
  try {
    for (const {id} of builder_instances) {
      const details = await api.getBuilderDetails(id);
      console.log(id, details.status, details.arch, details.metadata.host);
    }
  } finally {
    for (const {id} of builder_instances) await api.teardownBuilder(id);
  }
"

step "every builder torn down (emulator ledger)"
node --input-type=module -e "
  const res = await fetch('$url/_emulator/ledger');
  if (!res.ok) throw new Error('GET /_emulator/ledger: HTTP ' + res.status);
  const {entries} = await res.json();
  const open = entries.filter(e => e.reason !== 'teardown');
  for (const e of entries) console.log('  ' + e.builderId + '  ' + e.profile + '  ' + (e.reason ?? 'ASSIGNED'));
  if (entries.length !== 3) throw new Error('expected 3 builders (up, run, SDK), the ledger has ' + entries.length);
  if (open.length > 0) throw new Error(open.length + ' builder(s) not torn down: ' + open.map(e => e.builderId));
"
kill "$emulator_pid"
wait "$emulator_pid" || fail "the emulator exited $? on SIGTERM: $(cat "$work/emulator.log")"
emulator_pid=""
grep -q ' 0 left assigned' "$work/emulator.log" || fail "the emulator's closing ledger: $(cat "$work/emulator.log")"

step "passed"
