// A recording stand-in for `docker buildx`, for tests, benchmarks and the demo on machines without Docker.
// It keeps builders where buildx does (below) and appends every call to $FAKE_DOCKER_DIR/calls.jsonl.
// `buildx inspect --bootstrap` is real where it matters: it opens a mutual-TLS connection to every node
// with the node's --driver-opt cacert/cert/key files, as buildx's remote driver does.
// Faults: FAKE_DOCKER_FAIL=create,append,bootstrap,rm,build,version (comma list) makes those exit 1;
// FAKE_DOCKER_HANG=rm,... makes them hang until killed; FAKE_DOCKER_BUILD_MS delays `buildx build`/`bake`
// (after the first progress vertices, before the build steps).
// `create` is a remote-driver create; `create-local` a docker-container one (the local fallback builder).
// `buildx build`/`bake` print `#0 building with "<builder>" instance using remote driver` to stderr first
// (before any fault), then write --metadata-file (containerimage.digest, image.name from --tag) and --iidfile.
// FAKE_DOCKER_BUILD_WARNINGS=<file>: build checks in the metadata, and buildx's local state (./build-checks.mjs).
// FAKE_DOCKER_BUILDX_VERSION sets the version `buildx version` reports (default 0.13.1);
// FAKE_DOCKER_BUILDKIT_VERSION the `BuildKit version:` of every node in `inspect --bootstrap` (default
// v0.13.2; empty = not printed).
// Version-dependent faults (by FAKE_DOCKER_BUILDX_VERSION, see buildxSince): FAKE_DOCKER_NODE_DOWN=<node,...>
// nodes that do not answer: `inspect --bootstrap` does not dial them, they are inactive and their boot fails;
// buildx < 0.22 still exits 0 (the node printed `Status: inactive`) when another node booted in the same run
// (FAKE_DOCKER_NODE_BOOTING=<node,...>: nodes not running until booted, which boot fine), and fails when every
// node it booted failed; >= 0.22 fails whenever one failed (docker/buildx#3062). FAKE_DOCKER_BROKEN_BUILDERS=
// <name,...> builders buildx cannot load: `rm` fails; below 0.36 the builder stays, from 0.36 it is removed
// anyway (docker/buildx#3934). The builders are where buildx keeps them, in its config dir (BUILDX_CONFIG,
// else $DOCKER_CONFIG/buildx, else ~/.docker/buildx: give a test its own DOCKER_CONFIG): instances/<name>, in
// buildx's format (./buildx-store.mjs), is the builder for every command, so a node added by editing it is
// seen like one of `create --append`; activity/<name> (create), removed with refs/<name>/ by a successful rm;
// only what buildx does not store stays in $FAKE_DOCKER_DIR/builders.json: the builders `create` made and `rm`
// did not remove, with their --use. `docker info`: the engine's image
// store with FAKE_DOCKER_IMAGE_STORE=containerd|classic (DriverStatus as Docker 26-29 print it); without it, no
// engine is reachable (with --format, exit 0 and the error in ServerErrors, as the docker CLI does). A build
// loaded (--load) into the containerd store by buildx >= 0.24 writes the manifest digest to --iidfile and no
// containerimage.config.digest (docker/buildx#3136).
// Progress: after the `#0` line a build or bake prints buildx's plain progress to stderr (progress.mjs; the
// shape of the real captures in packages/core/__tests__/docker/fixtures/): load build definition,
// metadata, .dockerignore, `[1/N] FROM`, build context, the build steps, exporting (and pushing with --push).
// A build reads its context's Dockerfile as BuildKit does (dockerfile.mjs: --file, else Dockerfile or
// dockerfile in the context; not a Git/HTTP context or stdin): without one it fails as buildx does ("failed to
// read dockerfile: open Dockerfile: no such file or directory"); with one, its FROM and its RUN, COPY, ADD and
// WORKDIR steps are the progress's. A bake's targets print the canned `[2/4] WORKDIR`, `[3/4] COPY`,
// `[4/4] RUN`. The first build on a buildx builder is cold (steps
// `DONE`), later ones warm (steps `CACHED`): a builder is its --builder name and its nodes' endpoints
// (a builder re-created under the same name on a new node is cold again), remembered in
// $FAKE_DOCKER_DIR/warm-builders.json once a build there ran its steps (it succeeded, or printed a
// FAKE_DOCKER_BUILD_FAIL_OUTPUT failure; a hung build does not warm it). A bake of several targets
// prefixes the vertex names with the target (`[app 2/4] WORKDIR /src`), as buildx does.
// Flaky builds: with FAKE_DOCKER_BUILD_HANG_TIMES or FAKE_DOCKER_BUILD_FAIL_TIMES set, the builds and bakes
// (not `--print`, nor those FAKE_DOCKER_FAIL/HANG stopped) are numbered across processes in
// $FAKE_DOCKER_DIR/builds.count. FAKE_DOCKER_BUILD_HANG_TIMES=N: builds 1..N print their first vertices
// and a RUN step that started, then go silent until killed (a builder that died under a build); with
// FAKE_DOCKER_BUILD_HANG_FAIL_BUILDERS=<emulator URL> such a build then fails its builder's nodes on that
// emulator (POST /_emulator/builders/<node>/fail): the builder dies strictly after the build started.
// FAKE_DOCKER_BUILD_FAIL_TIMES=M: the M builds after those (N+1..N+M) print a whole failed buildx run of
// kind FAKE_DOCKER_BUILD_FAIL_OUTPUT (failure-outputs.mjs: stream-lost, the default, push-reset,
// registry-502, user-run-exit, registry-401, unknown) and exit 1. Later builds succeed.
// `buildx bake` resolves the bake files (fake-bake.mjs): `--print` prints the definition as JSON (fault
// name `print`); a bake writes --metadata-file with one entry per target and fails with "exec format
// error" when a target asks for an architecture no node of its builder has. Each call records its argv,
// pid, cwd, BUILDX_METADATA_WARNINGS and a sha256 of BUILDX_BAKE_GIT_AUTH_TOKEN (never the token), DOCKER_CONFIG,
// and with FAKE_DOCKER_BUILDX=plugin (see ./docker) the buildx plugin the call went through.
// Build history (./build-history.mjs): every build and bake target gets a ref, left in buildx's refs folder
// for each node that builds it and in the metadata's `buildx.build.ref`; `buildx history inspect|export` read
// the records per buildx version (none below 0.23); FAKE_DOCKER_HISTORY_OFF=1: BuildKit keeps no history.
// FAKE_DOCKER_BUILD_STUBBORN_CHILD=1: `buildx build` starts a child that ignores SIGTERM and SIGINT and holds
// stdout (as buildx, the docker CLI's plugin process, can), which prints `stubborn child <pid> …` once its
// handlers are set; then both hang (the fake docker itself dies on SIGTERM, the child lives 120 s at most).
// Each command loads only the modules it uses (below, by command): a call is a process start, and loading all
// of them (node:crypto, node:child_process, node:zlib and the helpers) cost every call ~45 ms of CPU.
import {appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {basename, join} from 'node:path';
import {buildxConfigDir, buildxRecords, fakeBuilder} from './buildx-store.mjs';

const sha256 = text => process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex');
const args = process.argv.slice(2);
const cmd = args[1];
const isBuild = cmd === 'build' || (cmd === 'bake' && !args.includes('--print'));
const {endBuild, history, newRef, startBuild} = isBuild || cmd === 'history' ? await import('./build-history.mjs') : {};
const {bakeFiles, parseBakeArgv, resolveBake} = cmd === 'bake' ? await import('./fake-bake.mjs') : {};
const {addBakeChecks, addBuildChecks} = isBuild ? await import('./build-checks.mjs') : {};
const {FAILURE_KINDS, failureOutput} = isBuild ? await import('./failure-outputs.mjs') : {};
const {bakeProgress, buildProgress} = isBuild ? await import('./progress.mjs') : {};
const {dockerfileSteps, findDockerfile, missingDockerfileOutput} =
  cmd === 'build' ? await import('./dockerfile.mjs') : {};

const dir = process.env.FAKE_DOCKER_DIR || join(process.env.RUNNER_TEMP || '/tmp', 'fake-docker');
mkdirSync(dir, {recursive: true});
const token = process.env.BUILDX_BAKE_GIT_AUTH_TOKEN;
const record = {
  at: Date.now(),
  pid: process.pid,
  argv: args,
  cwd: process.cwd(),
  ...(process.env.BUILDX_METADATA_WARNINGS ? {metadataWarnings: process.env.BUILDX_METADATA_WARNINGS} : {}),
  ...(token ? {gitAuthTokenSha256: sha256(token)} : {}),
  ...(process.env.DOCKER_CONFIG ? {dockerConfig: process.env.DOCKER_CONFIG} : {}),
  ...(process.env.FAKE_DOCKER_PLUGIN ? {plugin: process.env.FAKE_DOCKER_PLUGIN} : {})
};
appendFileSync(join(dir, 'calls.jsonl'), JSON.stringify(record) + '\n');

const fail = new Set((process.env.FAKE_DOCKER_FAIL || '').split(',').filter(Boolean));
const hang = new Set((process.env.FAKE_DOCKER_HANG || '').split(',').filter(Boolean));
const storePath = join(dir, 'builders.json');
const load = () => (existsSync(storePath) ? JSON.parse(readFileSync(storePath, 'utf8')) : {});
// Like buildx's store, writers take a lock, so concurrent `create --append` calls all land.
const lockPath = join(dir, 'builders.lock');
const withLock = fn => {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lockPath);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST' || i > 2000) throw e;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lockPath, {recursive: true, force: true});
  }
};
const store = b => writeFileSync(storePath, JSON.stringify(b, null, 2));
// The builders are buildx's records (see the header); builders.json keeps only {<name>: {use}} of each
// builder `create` made and `rm` did not remove, in creation order.
const records = buildxRecords(buildxConfigDir());
/** The builder `name` ({nodes, use}), or undefined. */
const builderOf = name => {
  const r = records.read(name);
  return r && {...fakeBuilder(r), use: load()[r.Name]?.use};
};
/** Every builder by name, in the order they were created (records made by hand last). */
const allBuilders = () => {
  const made = load();
  const order = r => Object.keys(made).indexOf(r.Name) >>> 0;
  const list = records.list().sort((a, b) => order(a) - order(b));
  return Object.fromEntries(list.map(r => [r.Name, {...fakeBuilder(r), use: made[r.Name]?.use}]));
};
const die = msg => {
  process.stderr.write(`ERROR: ${msg}\n`);
  process.exit(1);
};
const flag = name => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
/** Every value of a repeatable flag. */
const flags = name => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
const maybeFault = op => {
  if (hang.has(op)) setInterval(() => undefined, 1000);
  else if (fail.has(op)) die(`fake docker: ${op} failed as requested (FAKE_DOCKER_FAIL)`);
  return hang.has(op);
};

// The progress and the flaky builds (see the header).
const builderName = flag('--builder') || 'default';
// FAKE_DOCKER_BUILD_PRINT=<file>: its lines follow the `#0` line of a build or bake verbatim, as what a build
// can make buildx print (a `--call outline` of the user's Dockerfile, a plugin or credential helper talking).
const building = () => {
  process.stderr.write(`#0 building with "${builderName}" instance using remote driver\n`);
  const print = process.env.FAKE_DOCKER_BUILD_PRINT;
  if (print) process.stderr.write(readFileSync(print, 'utf8'));
};
const hangTimes = Number(process.env.FAKE_DOCKER_BUILD_HANG_TIMES || 0);
const failTimes = Number(process.env.FAKE_DOCKER_BUILD_FAIL_TIMES || 0);
const failKind = process.env.FAKE_DOCKER_BUILD_FAIL_OUTPUT || 'stream-lost';
/** 'hang', 'fail' or undefined (a good build) for this build, numbered across processes. */
const flaky = () => {
  if (hangTimes <= 0 && failTimes <= 0) return undefined;
  const countPath = join(dir, 'builds.count');
  const n = withLock(() => {
    const next = (existsSync(countPath) ? Number(readFileSync(countPath, 'utf8')) : 0) + 1;
    writeFileSync(countPath, String(next));
    return next;
  });
  if (n <= hangTimes) return 'hang';
  return n <= hangTimes + failTimes ? 'fail' : undefined;
};
// A builder's cache lives on its nodes: the same name on another endpoint is another, cold, builder.
const warmPath = join(dir, 'warm-builders.json');
let cacheKey;
const builderKey = () =>
  (cacheKey ??= withLock(() =>
    [builderName, ...(builderOf(builderName)?.nodes ?? []).map(n => n.endpoint).sort()].join(' ')
  ));
const readWarm = () => (existsSync(warmPath) ? JSON.parse(readFileSync(warmPath, 'utf8')) : []);
// (The lock is not re-entrant: the key is taken before.)
const isWarm = () => {
  const key = builderKey();
  return withLock(() => readWarm().includes(key));
};
const warmUp = () => {
  const key = builderKey();
  withLock(() => {
    const keys = readWarm();
    if (!keys.includes(key)) writeFileSync(warmPath, JSON.stringify([...keys, key], null, 2));
  });
};
/** Prints a whole failed buildx run of kind $FAKE_DOCKER_BUILD_FAIL_OUTPUT and exits 1; its records end failed. */
const failBuild = (refs = []) => {
  const output = failureOutput(failKind);
  const error =
    output
      .split('\n')
      .filter(l => l.startsWith('ERROR: '))
      .pop()
      ?.slice('ERROR: '.length) || 'failed';
  for (const ref of refs) endBuild({dir, ref, error, withLock});
  process.stderr.write(output);
  warmUp();
  process.exit(1);
};
/**
 * Prints the vertices of a build that went silent and waits to be killed; with
 * FAKE_DOCKER_BUILD_HANG_FAIL_BUILDERS, then fails the builder's nodes on that emulator (they died under it).
 */
const hangBuild = async progress => {
  process.stderr.write(progress.hung);
  setInterval(() => undefined, 1000);
  const emulator = process.env.FAKE_DOCKER_BUILD_HANG_FAIL_BUILDERS;
  if (!emulator) return;
  for (const {node} of builderOf(builderName)?.nodes ?? []) {
    const url = `${emulator.replace(/\/+$/, '')}/_emulator/builders/${encodeURIComponent(node)}/fail`;
    const res = await globalThis.fetch(url, {method: 'POST'}).catch(e => ({ok: false, status: e.message}));
    if (!res.ok) process.stderr.write(`fake docker: failing builder ${node} at ${url} failed: ${res.status}\n`);
  }
};
/**
 * The nodes of the builder a build for `platforms` runs on (build-history.mjs): those with one of their
 * architectures, else the first (no platform asked, or none matches: buildx's default).
 */
const buildNodes = platforms => {
  const nodes = builderOf(builderName)?.nodes ?? [];
  const names = nodes.map(n => n.node);
  if (names.length === 0) return [`${builderName}0`];
  const archs = new Set((platforms || []).map(p => p.split('/')[1]));
  const on = nodes.filter(n => (n.platforms || '').split(',').some(p => archs.has(p.split('/')[1])));
  return on.length > 0 ? on.map(n => n.node) : [names[0]];
};
/** Starts the record of one build (its ref on every node that builds it); returns {ref, value} for the metadata. */
const startRecord = (name, platforms) => {
  const ref = newRef();
  return {ref, value: startBuild({dir, builder: builderName, nodes: buildNodes(platforms), ref, name, withLock})};
};
/** 'registry' (a push), 'docker' (a load) or undefined, from buildx's --push/--load/--output forms. */
const exporterOf = outputs => {
  if (outputs.some(o => /(^|,)type=registry\b|(^|,)push=true\b/.test(o))) return 'registry';
  return outputs.some(o => /(^|,)type=docker\b/.test(o)) ? 'docker' : undefined;
};
if (isBuild && failTimes > 0 && failureOutput(failKind) === undefined) {
  die(`fake docker: FAKE_DOCKER_BUILD_FAIL_OUTPUT="${failKind}" is not one of ${FAILURE_KINDS.join(', ')}`);
}

if (args[0] === 'info') {
  dockerInfo();
  process.exit(0);
}
if (args[0] !== 'buildx') die(`fake docker only knows "docker buildx", got: ${args.join(' ')}`);

if (cmd === 'version') {
  if (!maybeFault('version'))
    console.log(`github.com/docker/buildx v${process.env.FAKE_DOCKER_BUILDX_VERSION || '0.13.1'} fake-docker`);
} else if (cmd === 'create') {
  const append = args.includes('--append');
  const op = append ? 'append' : flag('--driver') === 'remote' ? 'create' : 'create-local';
  if (!maybeFault(op)) {
    const name = flag('--name');
    // A remote node's endpoint is the last argument; a docker-container builder (the local fallback) has none.
    const endpoint = flag('--driver') === 'remote' ? args[args.length - 1] : 'unix:///var/run/docker.sock';
    const spec = {name, append, endpoint, node: flag('--node'), driver: flag('--driver')};
    const error = withLock(() => {
      const failed = records.create({...spec, platforms: flags('--platform'), driverOpts: flags('--driver-opt')});
      if (!failed && !append) store({...load(), [name]: {use: args.includes('--use')}});
      return failed;
    });
    if (error) die(error);
    console.log(name);
  }
} else if (cmd === 'inspect') {
  const name = flag('--builder');
  const builder = builderOf(name);
  if (!builder) die(`no builder "${name}" found`);
  if (args.includes('--bootstrap')) {
    if (!maybeFault('bootstrap')) await bootstrap(name, builder, bootNodes(builder));
  } else {
    console.log(`Name:   ${name}\nDriver: ${builder.nodes[0]?.driver || 'remote'}`);
  }
} else if (cmd === 'rm') {
  const name = args[args.length - 1];
  if (!maybeFault('rm')) {
    const broken = listEnv('FAKE_DOCKER_BROKEN_BUILDERS').includes(name);
    const error = withLock(() => {
      if (!builderOf(name)) return `no builder "${name}" found`;
      // A builder buildx cannot load: kept below 0.36, removed anyway from 0.36 (docker/buildx#3934).
      if (broken && !buildxSince(36)) return 'broken';
      records.remove(name);
      const builders = load();
      delete builders[name];
      store(builders);
      return broken ? 'broken' : undefined;
    });
    if (error === 'broken') {
      process.stderr.write(
        `failed to remove ${name}: fake docker: cannot load builder "${name}" (FAKE_DOCKER_BROKEN_BUILDERS)\n`
      );
      die('failed to remove one or more builders');
    }
    if (error) die(error);
  }
} else if (cmd === 'bake' && args.includes('--print')) {
  if (!maybeFault('print')) {
    try {
      console.log(JSON.stringify(resolveBake(parseBakeArgv(args.slice(2)), process.cwd()), null, 2));
    } catch (e) {
      die(e.message);
    }
  }
} else if (cmd === 'bake') {
  building();
  if (!maybeFault('bake')) {
    let definition;
    let files;
    try {
      const bakeOpts = parseBakeArgv(args.slice(2));
      definition = resolveBake(bakeOpts, process.cwd());
      files = bakeFiles(bakeOpts, process.cwd()).map(f => ({name: basename(f), size: statSync(f).size}));
    } catch (e) {
      die(e.message);
    }
    const outcome = flaky();
    const started = Object.fromEntries(
      Object.entries(definition.target).map(([name, t]) => [name, startRecord(name, t.platforms)])
    );
    const refs = Object.values(started).map(r => r.ref);
    if (outcome === 'fail') failBuild(refs);
    const targets = Object.fromEntries(
      Object.entries(definition.target).map(([name, t]) => [
        name,
        {dockerfile: basename(t.dockerfile), tags: t.tags || [], exporter: exporterOf(t.output || [])}
      ])
    );
    const progress = bakeProgress({warm: isWarm(), files, targets, seed: builderName});
    process.stderr.write(progress.head);
    if (outcome === 'hang') await hangBuild(progress);
    else {
      const ms = Number(process.env.FAKE_DOCKER_BUILD_MS || 0);
      if (ms > 0) await new Promise(r => setTimeout(r, ms));
      const nodes = builderOf(builderName)?.nodes ?? [];
      const archs = new Set(
        nodes
          .flatMap(n => (n.platforms || '').split(','))
          .filter(Boolean)
          .map(p => p.split('/')[1])
      );
      for (const [name, t] of Object.entries(definition.target)) {
        const bad = (t.platforms || []).find(p => archs.size > 0 && !archs.has(p.split('/')[1]));
        if (bad) {
          const error = `target ${name}: failed to solve: process "/bin/sh -c true" did not complete successfully: exec format error (${bad})`;
          for (const ref of refs) endBuild({dir, ref, error, withLock});
          die(error);
        }
      }
      const meta = flag('--metadata-file');
      if (meta) {
        const out = {};
        for (const [name, t] of Object.entries(definition.target)) {
          out[name] = {
            'buildx.build.ref': started[name].value,
            'containerimage.config.digest': 'sha256:' + sha256(`config:${name}`),
            'containerimage.digest': 'sha256:' + sha256(`image:${name}`),
            ...(t.tags && t.tags.length > 0 ? {'image.name': t.tags.join(',')} : {})
          };
        }
        writeFileSync(meta, JSON.stringify(out));
        addBakeChecks(meta, definition.target, out);
      }
      for (const ref of refs) endBuild({dir, ref, withLock});
      process.stderr.write(progress.body);
      warmUp();
    }
  }
} else if (cmd === 'build' && process.env.FAKE_DOCKER_BUILD_STUBBORN_CHILD === '1') {
  console.log(`#0 building with "${builderName}" instance using remote driver`);
  const child =
    'process.on("SIGTERM", () => {}); process.on("SIGINT", () => {}); setTimeout(() => {}, 120000);' +
    'console.log(`stubborn child ${process.pid} holds stdout and ignores SIGTERM and SIGINT`);';
  const {spawn} = process.getBuiltinModule('node:child_process');
  spawn(process.execPath, ['-e', child], {stdio: ['ignore', 'inherit', 'inherit']});
  setInterval(() => undefined, 1000);
} else if (cmd === 'build') {
  building();
  // The build context's Dockerfile, as BuildKit reads it: none fails the build; its steps are the progress's.
  const dockerfile = findDockerfile(args.slice(2));
  if (dockerfile && dockerfile.text === undefined) {
    process.stderr.write(`${missingDockerfileOutput(dockerfile.name)}\n`);
    process.exit(1);
  }
  if (!maybeFault(cmd)) {
    const outcome = flaky();
    const started = startRecord(
      flag('--target') || 'default',
      flags('--platform').flatMap(p => p.split(','))
    );
    if (outcome === 'fail') failBuild([started.ref]);
    const tags = args.flatMap((a, i) => (a === '--tag' ? [args[i + 1]] : []));
    const outputs = [
      ...(args.includes('--push') ? ['type=registry'] : []),
      ...(args.includes('--load') ? ['type=docker'] : []),
      ...args.flatMap((a, i) => (a === '--output' || a === '-o' ? [args[i + 1]] : []))
    ];
    const file = flag('--file') || flag('-f');
    const progress = buildProgress({
      warm: isWarm(),
      dockerfile: file ? basename(file) : 'Dockerfile',
      parsed: dockerfile ? dockerfileSteps(dockerfile.text) : undefined,
      tags,
      exporter: exporterOf(outputs),
      seed: builderName
    });
    process.stderr.write(progress.head);
    if (outcome === 'hang') await hangBuild(progress);
    else {
      const ms = Number(process.env.FAKE_DOCKER_BUILD_MS || 0);
      if (ms > 0) await new Promise(r => setTimeout(r, ms));
      // Loaded into the containerd image store by buildx >= 0.24: the image id is the manifest digest and the
      // config digest key is dropped (docker/buildx#3136).
      const manifestId =
        outputs.some(o => /(^|,)type=docker\b/.test(o)) &&
        process.env.FAKE_DOCKER_IMAGE_STORE === 'containerd' &&
        buildxSince(24);
      const meta = flag('--metadata-file');
      if (meta)
        writeFileSync(
          meta,
          JSON.stringify({
            'buildx.build.ref': started.value,
            ...(manifestId ? {} : {'containerimage.config.digest': 'sha256:' + '2'.repeat(64)}),
            'containerimage.digest': 'sha256:' + '0'.repeat(64),
            ...(tags.length > 0 ? {'image.name': tags.join(',')} : {})
          })
        );
      if (meta) addBuildChecks(meta, started.value, args);
      const iid = flag('--iidfile');
      if (iid) writeFileSync(iid, 'sha256:' + (manifestId ? '0' : '1').repeat(64));
      endBuild({dir, ref: started.ref, withLock});
      process.stderr.write(progress.body);
      warmUp();
    }
  }
} else if (cmd === 'ls') {
  await ls();
} else if (cmd === 'history') {
  const res = history({dir, args: args.slice(2), since: buildxSince, builderOf});
  if (res.error) die(res.error);
  process.stdout.write(res.stdout);
} else {
  die(`fake docker does not implement "buildx ${cmd}"`);
}

async function bootstrap(name, builder, down = new Set()) {
  console.log(`Name:   ${name}\nDriver: ${builder.nodes[0]?.driver || 'remote'}`);
  for (const n of builder.nodes) {
    if (down.has(n.node)) {
      const configured = (n.platforms || '').split(',').filter(Boolean);
      console.log(
        `\nName:      ${n.node}\nEndpoint:  ${n.endpoint}\nStatus:    inactive\n` +
          (configured.length > 0 ? `Platforms: ${configured.map(p => `${p}*`).join(', ')}` : '')
      );
      continue;
    }
    // Only remote nodes are dialled; a docker-container node "boots" at once.
    if (n.driver === 'remote') await handshake(n, 20000).catch(e => die(`node ${n.node}: ${e.message}`));
    const bk = process.env.FAKE_DOCKER_BUILDKIT_VERSION ?? 'v0.13.2';
    console.log(
      `\nName:      ${n.node}\nEndpoint:  ${n.endpoint}\nStatus:    running\n` +
        (bk ? `BuildKit version: ${bk}\n` : '') +
        `Platforms: ${
          n.platforms
            ? n.platforms
                .split(',')
                .map(p => `${p}*`)
                .join(', ')
            : 'linux/amd64'
        }`
    );
  }
}

// `buildx ls` as buildx prints it (commands/ls.go), by the version `buildx version` reports: before 0.13 a
// flat table (nodes indented by two spaces, the current builder "name *"); from 0.13 docker's table formatter
// (column width at least 10, 3 spaces apart) with each node under its builder behind ` \_ `, the current
// builder "name*", and `--format json`: one line per builder and one more per node until 0.21, then one per
// builder, with "Current" from 0.24. The current builder is BUILDX_BUILDER, else the last one created with
// --use, else docker's `default` (listed after the others, sorted by name, as docker's context builder). A remote node is "running"
// when a mutual-TLS handshake with it succeeds, else "inactive" (buildx's remote driver). Buildx 0.18+
// shortens a node's platforms past 4; the fake's nodes have fewer, so they are printed whole.
async function ls() {
  const [major, minor] = (process.env.FAKE_DOCKER_BUILDX_VERSION || '0.13.1').replace(/^v/, '').split('.').map(Number);
  const since = m => major > 0 || minor >= m;
  if (!since(13) && args.some(a => a === '--format' || a.startsWith('--format='))) die('unknown flag: --format');
  const format = flag('--format') ?? args.find(a => a.startsWith('--format='))?.slice('--format='.length) ?? 'table';
  if (format !== 'table' && format !== 'json') die(`fake docker: buildx ls --format ${format} is not implemented`);
  const bk = process.env.FAKE_DOCKER_BUILDKIT_VERSION ?? 'v0.13.2';
  let stored;
  try {
    stored = withLock(allBuilders);
  } catch (e) {
    die(e.message);
  }
  const names = Object.keys(stored).sort();
  const lastUsed = Object.keys(stored)
    .filter(n => stored[n].use)
    .pop();
  const current = process.env.BUILDX_BUILDER || lastUsed || 'default';
  if (current !== 'default' && !stored[current]) die(`no builder "${current}" found`);
  const builders = [];
  const docker = [
    {
      name: 'default',
      driver: 'docker',
      nodes: [
        {
          name: 'default',
          endpoint: 'default',
          status: 'running',
          version: bk,
          platforms: ['linux/amd64', 'linux/386'],
          configured: []
        }
      ]
    }
  ];
  for (const name of names) {
    const nodes = await Promise.all(
      stored[name].nodes.map(async n => {
        const running =
          n.driver !== 'remote' ||
          (await handshake(n, 10000).then(
            () => true,
            () => false
          ));
        const configured = (n.platforms || '').split(',').filter(Boolean);
        return {
          name: n.node,
          endpoint: n.endpoint,
          status: running ? 'running' : 'inactive',
          version: running ? bk : '',
          platforms: running ? (configured.length > 0 ? configured : ['linux/amd64']) : configured,
          configured,
          ...(n.driver === 'remote' ? {driverOpts: {cacert: n.cacert, cert: n.cert, key: n.key}} : {})
        };
      })
    );
    builders.push({name, driver: stored[name].nodes[0]?.driver || 'remote', nodes});
  }
  builders.push(...docker);
  const platformsOf = n => n.platforms.map(p => (n.configured.includes(p) ? `${p}*` : p)).join(', ');
  if (format === 'json') {
    for (const b of builders) {
      const json = JSON.stringify({
        Name: b.name,
        Driver: b.driver,
        LastActivity: '0001-01-01T00:00:00Z',
        Dynamic: false,
        Nodes: b.nodes.map(n => ({
          Name: n.name,
          Endpoint: n.endpoint,
          ...(n.driverOpts ? {DriverOpts: n.driverOpts} : {}),
          Status: n.status,
          ...(n.version ? {Version: n.version} : {}),
          ...(n.platforms.length > 0 ? {Platforms: n.platforms} : {})
        })),
        ...(since(24) ? {Current: b.name === current} : {})
      });
      for (let i = 0; i <= (since(21) ? 0 : b.nodes.length); i++) console.log(json);
    }
    return;
  }
  const header = ['NAME/NODE', 'DRIVER/ENDPOINT', 'STATUS', 'BUILDKIT', 'PLATFORMS'];
  const rows = [header];
  for (const b of builders) {
    const mark = b.name === current ? (since(13) ? '*' : ' *') : '';
    rows.push([b.name + mark, b.driver, '', '', '']);
    const indent = since(13) ? ' \\_ ' : '  ';
    for (const n of b.nodes) {
      rows.push([indent + n.name, (since(13) ? indent : '') + n.endpoint, n.status, n.version, platformsOf(n)]);
    }
  }
  process.stdout.write(since(13) ? tabulate(rows, 10, 3) : tabulate(rows, 0, 1));
}

/** Go's text/tabwriter with `minWidth` and `padding` (every cell but a line's last is padded, empty ones too). */
function tabulate(rows, minWidth, padding) {
  const widths = [];
  for (const r of rows)
    r.slice(0, -1).forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length + padding, minWidth)));
  return rows.map(r => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]) : c)).join('') + '\n').join('');
}

/**
 * A mutual-TLS handshake with a remote node (its --driver-opt files), as buildx's remote driver connects; after
 * `timeoutMs` it fails as buildx does ("context deadline exceeded").
 */
async function handshake(n, timeoutMs) {
  // Loaded here, not at the top: node:tls costs every other call of the fake docker ~30 ms of CPU.
  const {connect} = await import('node:tls');
  return new Promise((resolve, reject) => {
    const url = new URL(n.endpoint);
    const s = connect({
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port),
      ca: readFileSync(n.cacert),
      cert: readFileSync(n.cert),
      key: readFileSync(n.key),
      ALPNProtocols: ['h2']
    });
    const t = setTimeout(() => {
      s.destroy();
      reject(new Error('context deadline exceeded'));
    }, timeoutMs);
    s.once('secureConnect', () => {
      clearTimeout(t);
      s.destroy();
      resolve();
    });
    s.once('error', e => {
      clearTimeout(t);
      reject(e);
    });
  });
}

/** FAKE_DOCKER_BUILDX_VERSION (default 0.13.1) is 0.<minor> or later. */
function buildxSince(minor) {
  const [major, m] = (process.env.FAKE_DOCKER_BUILDX_VERSION || '0.13.1').replace(/^v/, '').split('.').map(Number);
  return major > 0 || m >= minor;
}

function listEnv(name) {
  return (process.env[name] || '').split(',').filter(Boolean);
}

/**
 * Boots the builder's nodes as buildx's Builder.Boot does (see the header): the nodes of
 * FAKE_DOCKER_NODE_DOWN and FAKE_DOCKER_NODE_BOOTING are the ones booted, a vertex each on stderr (named
 * after its node when several boot). Dies when buildx would fail; else returns the nodes left down.
 */
function bootNodes(builder) {
  const downs = listEnv('FAKE_DOCKER_NODE_DOWN');
  const booting = listEnv('FAKE_DOCKER_NODE_BOOTING');
  const toBoot = builder.nodes.map(n => n.node).filter(n => downs.includes(n) || booting.includes(n));
  const failed = toBoot.filter(n => downs.includes(n));
  toBoot.forEach((n, i) => {
    const vertex = toBoot.length > 1 ? `[${n} internal]` : '[internal]';
    const end = failed.includes(n) ? 'ERROR: context deadline exceeded' : 'DONE 0.1s';
    process.stderr.write(`#${i + 1} ${vertex} waiting for connection\n#${i + 1} ${end}\n\n`);
  });
  if (failed.length > 0 && (buildxSince(22) || failed.length === toBoot.length)) die('context deadline exceeded');
  return new Set(failed);
}

/** `docker info` (see the header): `--format` templates of `{{json .Field}}` / `{{.Field}}`, else a short text. */
function dockerInfo() {
  const store = process.env.FAKE_DOCKER_IMAGE_STORE;
  const unreachable =
    'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?';
  if (store !== undefined && store !== 'containerd' && store !== 'classic') {
    die(`fake docker: FAKE_DOCKER_IMAGE_STORE="${store}" is not containerd or classic`);
  }
  const info = !store
    ? {ServerErrors: [unreachable], DriverStatus: null, Driver: ''}
    : store === 'containerd'
      ? {DriverStatus: [['driver-type', 'io.containerd.snapshotter.v1']], Driver: 'overlayfs'}
      : {
          DriverStatus: [
            ['Backing Filesystem', 'extfs'],
            ['Supports d_type', 'true'],
            ['Using metacopy', 'false'],
            ['Native Overlay Diff', 'true'],
            ['userxattr', 'false']
          ],
          Driver: 'overlay2'
        };
  const format = flag('--format') ?? flag('-f');
  if (format === undefined) {
    if (!store) die(unreachable);
    process.stdout.write(`Server:\n Storage Driver: ${info.Driver}\n`);
    for (const [k, v] of info.DriverStatus) process.stdout.write(`  ${k}: ${v}\n`);
    return;
  }
  if (!store) process.stderr.write(`${unreachable}\n`);
  // Fields of Go's system.Info: nil slices print as null.
  const value = field => (field in info ? info[field] : field === 'ServerErrors' ? null : '');
  console.log(
    format.replace(/\{\{\s*(json\s+)?\.(\w+)\s*\}\}/g, (_m, json, field) =>
      json ? JSON.stringify(value(field)) : String(value(field))
    )
  );
}
