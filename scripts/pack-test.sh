#!/usr/bin/env bash
# The published packages, as a user gets them: packs core, cli and emulator (`npm pack -w`, their prepack
# builds lib/ and bundle/), checks what each tarball holds (LICENSE, README, the build, the bundles' licences),
# installs EACH tarball alone into its own empty project with our scope's registry unreachable (cli and
# emulator, bundled, install offline with nothing beside them; core takes its dependencies from the npm
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
  rm -f "$root"/packages/{core,cli,emulator}/LICENSE
}
trap cleanup EXIT

step "node $(node --version) ($(command -v node)), npm $(npm --version)"
step "npm pack (core, cli, emulator)"
mkdir -p "$work/tarballs" "$work/state" "$work/fake-docker-state"
npm pack --silent --pack-destination "$work/tarballs" \
  -w @remote-builder-actions/core -w @remote-builder-actions/cli -w @remote-builder-actions/emulator >/dev/null
ls -1 "$work/tarballs"
version="$(node -p "require('$root/package.json').version")"
declare -A must_ship=(
  [core]="package.json README.md LICENSE lib/index.js lib/index.d.ts lib/ci.js lib/adapters/actions.js"
  [cli]="package.json README.md LICENSE bin/remote-builder.js bundle/index.js bundle/licenses.txt bundle/modules.json"
  [emulator]="package.json README.md LICENSE bin/remote-builder-emulator.js bundle/index.js bundle/licenses.txt bundle/modules.json fake-docker/docker"
)
for name in core cli emulator; do
  tarball="$work/tarballs/remote-builder-actions-$name-$version.tgz"
  [ -f "$tarball" ] || fail "no $(basename "$tarball") (every package is at the root's version $version?): $(ls "$work/tarballs")"
  # What ships: the build outputs, never the TypeScript sources or the tests.
  listing="$(tar -tzf "$tarball")"
  if grep -Eq '^package/(src|__tests__|__faults__|__e2e__)/' <<<"$listing"; then
    fail "$tarball ships sources or tests: $(grep -E '^package/(src|__)' <<<"$listing" | head -3 | tr '\n' ' ')"
  fi
  for file in ${must_ship[$name]}; do
    grep -qx "package/$file" <<<"$listing" || fail "$(basename "$tarball") lacks $file"
  done
  tar -xzOf "$tarball" package/LICENSE | cmp -s - LICENSE || fail "$(basename "$tarball")'s LICENSE is not the root's"
  echo "$(basename "$tarball"): $(wc -l <<<"$listing") files, with ${must_ship[$name]}"
done
for built in packages/core/lib packages/cli/bundle packages/emulator/bundle packages/{core,cli,emulator}/LICENSE; do
  [ ! -e "$built" ] || fail "$built is still there after npm pack (postpack should remove it)"
done

step "the bundles' licences (scripts/bundle-licenses.mjs checkBundle)"
for name in cli emulator; do
  mkdir -p "$work/unpacked/$name"
  tar -xzf "$work/tarballs/remote-builder-actions-$name-$version.tgz" -C "$work/unpacked/$name"
  node --input-type=module -e "
    import {checkBundle} from '$root/scripts/bundle-licenses.mjs';
    const problems = checkBundle('$work/unpacked/$name/package/bundle', '$root');
    if (problems.length > 0) throw new Error(problems.join('\n'));
    console.log('$name: bundle/licenses.txt covers every package its bundle inlines');
  "
done

# Each tarball alone in an empty project. Our scope's registry is a closed loopback port, so a dependency on
# another of our packages (not yet published) fails the install; cli and emulator install offline (their
# bundles need nothing but Node), and each project's lock must hold no package of our scope but its own.
for name in core cli emulator; do
  step "npm install the $name tarball alone into an empty project"
  mkdir -p "$work/$name"
  cd "$work/$name"
  printf '{"name": "pack-test-%s", "private": true, "type": "module"}\n' "$name" >package.json
  offline=()
  [ "$name" = core ] || offline=(--offline)
  npm install --no-audit --no-fund --loglevel=error "${offline[@]}" \
    --@remote-builder-actions:registry=http://127.0.0.1:9/ "$work/tarballs/remote-builder-actions-$name-$version.tgz"
  node -e "
    const {packages} = require('./package-lock.json');
    const installed = Object.keys(packages).filter(p => p !== '');
    const ours = installed.filter(p => p.includes('node_modules/@remote-builder-actions/'));
    if (ours.join() !== 'node_modules/@remote-builder-actions/$name') throw new Error('our packages installed: ' + ours);
    if ('$name' !== 'core' && installed.length !== 1) throw new Error('$name brought dependencies: ' + installed);
    console.log('$name: ' + installed.length + ' package(s) installed, ours: ' + ours);
  "
  cd "$root"
done
bin="$work/cli/node_modules/.bin"
emulator_bin="$work/emulator/node_modules/.bin"
cd "$work/core"

step "the SDK from plain Node"
node -e "import('@remote-builder-actions/core')"
node --input-type=module -e "
  import {BuildersClient, PROJECT_VERSION} from '@remote-builder-actions/core';
  import * as actions from '@remote-builder-actions/core/actions';
  import * as ci from '@remote-builder-actions/core/ci';
  import {runHook, StepRun} from '@remote-builder-actions/core/step';
  if (typeof runHook !== 'function' || typeof StepRun !== 'function') throw new Error('./step lacks runHook or StepRun');
  if (typeof BuildersClient !== 'function') throw new Error('BuildersClient is not exported');
  if (typeof ci.ApiClient !== 'function' || typeof ci.CiClient !== 'function') throw new Error('./ci lacks ApiClient or CiClient');
  if (Object.keys(actions).length === 0 || Object.keys(ci).length === 0) throw new Error('a subpath exports nothing');
  console.log('core', PROJECT_VERSION, 'imported, with ./actions, ./ci and ./step');
"
[ -f node_modules/@remote-builder-actions/core/lib/index.d.ts ] || fail "core ships no lib/index.d.ts"

step "remote-builder --version"
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
    fake_docker="$work/emulator/node_modules/@remote-builder-actions/emulator/fake-docker"
    [ -x "$fake_docker/docker" ] || fail "the emulator package ships no fake-docker/docker"
    export PATH="$fake_docker:$PATH" FAKE_DOCKER_DIR="$work/fake-docker-state"
    # As the README gives it: the fake's `buildx ls` marks the builder the CLI set BUILDX_BUILDER to, and shows each
    # node running only after a mutual-TLS handshake with it.
    run_command=(docker buildx ls)
    echo "docker: the fake docker of the installed emulator package ($fake_docker/docker)"
    ;;
  real)
    emulator_args+=(--docker-socket "${DOCKER_SOCKET:-/var/run/docker.sock}")
    run_command=(docker buildx ls)
    echo "docker: $(command -v docker), $(docker buildx version)"
    ;;
  *) fail "PACK_TEST_DOCKER must be auto, fake or real, not \"$docker_mode\"" ;;
esac
"$emulator_bin/remote-builder-emulator" "${emulator_args[@]}" >"$work/emulator.log" 2>&1 &
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
