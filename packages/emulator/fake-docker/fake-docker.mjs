// A recording stand-in for `docker buildx`, for tests, benchmarks and the demo on machines without Docker.
// It keeps builders in $FAKE_DOCKER_DIR/builders.json and appends every call to $FAKE_DOCKER_DIR/calls.jsonl.
// `buildx inspect --bootstrap` is real where it matters: it opens a mutual-TLS connection to every node
// with the node's --driver-opt cacert/cert/key files, as buildx's remote driver does.
// Faults: FAKE_DOCKER_FAIL=create,append,bootstrap,rm,build,version (comma list) makes those exit 1;
// FAKE_DOCKER_HANG=rm,... makes them hang until killed; FAKE_DOCKER_BUILD_MS delays `buildx build`.
// `create` is a remote-driver create; `create-local` a docker-container one (the local fallback builder).
// `buildx build`/`bake` print a `#0 building with "<builder>"` line first (before any fault), then write
// --metadata-file (containerimage.digest, image.name from --tag) and --iidfile. FAKE_DOCKER_BUILDX_VERSION
// sets the version `buildx version` reports (default 0.13.1); FAKE_DOCKER_BUILDKIT_VERSION the
// `BuildKit version:` of every node in `inspect --bootstrap` (default v0.13.2; empty = not printed).
// `buildx bake` resolves the bake files (fake-bake.mjs): `--print` prints the definition as JSON (fault
// name `print`); a bake writes --metadata-file with one entry per target and fails with "exec format
// error" when a target asks for an architecture no node of its builder has. Each call records its argv,
// cwd, BUILDX_METADATA_WARNINGS and a sha256 of BUILDX_BAKE_GIT_AUTH_TOKEN (never the token).
// FAKE_DOCKER_BUILD_STUBBORN_CHILD=1: `buildx build` starts a child that ignores SIGTERM and SIGINT and holds
// stdout (as buildx, the docker CLI's plugin process, can), which prints `stubborn child <pid> …` once its
// handlers are set; then both hang (the fake docker itself dies on SIGTERM, the child lives 120 s at most).
import {spawn} from 'node:child_process';
import {createHash} from 'node:crypto';
import {appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {connect} from 'node:tls';
import {parseBakeArgv, resolveBake} from './fake-bake.mjs';

const dir = process.env.FAKE_DOCKER_DIR || join(process.env.RUNNER_TEMP || '/tmp', 'fake-docker');
mkdirSync(dir, {recursive: true});
const args = process.argv.slice(2);
const token = process.env.BUILDX_BAKE_GIT_AUTH_TOKEN;
const record = {
  at: Date.now(),
  argv: args,
  cwd: process.cwd(),
  ...(process.env.BUILDX_METADATA_WARNINGS ? {metadataWarnings: process.env.BUILDX_METADATA_WARNINGS} : {}),
  ...(token ? {gitAuthTokenSha256: createHash('sha256').update(token).digest('hex')} : {})
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
const die = msg => {
  process.stderr.write(`ERROR: ${msg}\n`);
  process.exit(1);
};
const flag = name => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const maybeFault = op => {
  if (hang.has(op)) setInterval(() => undefined, 1000);
  else if (fail.has(op)) die(`fake docker: ${op} failed as requested (FAKE_DOCKER_FAIL)`);
  return hang.has(op);
};

if (args[0] !== 'buildx') die(`fake docker only knows "docker buildx", got: ${args.join(' ')}`);
const cmd = args[1];

if (cmd === 'version') {
  if (!maybeFault('version'))
    console.log(`github.com/docker/buildx v${process.env.FAKE_DOCKER_BUILDX_VERSION || '0.13.1'} fake-docker`);
} else if (cmd === 'create') {
  const append = args.includes('--append');
  const op = append ? 'append' : flag('--driver') === 'remote' ? 'create' : 'create-local';
  if (!maybeFault(op)) {
    const name = flag('--name');
    // A remote node's endpoint is the last argument; a docker-container builder (the local fallback) has none.
    const remote = flag('--driver') === 'remote';
    const node = flag('--node') || `${flag('--name')}0`;
    const endpoint = remote ? args[args.length - 1] : 'unix:///var/run/docker.sock';
    const opts = Object.fromEntries((flag('--driver-opt') || '').split(',').map(kv => kv.split('=')));
    const error = withLock(() => {
      const builders = load();
      if (append && !builders[name]) return `no builder "${name}" found`;
      if (!append && builders[name]) {
        return `existing instance for "${name}" but no append mode, specify the node name to make changes for existing instances`;
      }
      const entry = {node, endpoint, platforms: flag('--platform') || '', driver: flag('--driver'), ...opts};
      builders[name] = append
        ? {...builders[name], nodes: [...builders[name].nodes, entry]}
        : {nodes: [entry], use: args.includes('--use')};
      store(builders);
      return undefined;
    });
    if (error) die(error);
    console.log(name);
  }
} else if (cmd === 'inspect') {
  const name = flag('--builder');
  const builder = load()[name];
  if (!builder) die(`no builder "${name}" found`);
  if (args.includes('--bootstrap')) {
    if (!maybeFault('bootstrap')) await bootstrap(name, builder);
  } else {
    console.log(`Name:   ${name}\nDriver: ${builder.nodes[0]?.driver || 'remote'}`);
  }
} else if (cmd === 'rm') {
  const name = args[args.length - 1];
  if (!maybeFault('rm')) {
    const error = withLock(() => {
      const builders = load();
      if (!builders[name]) return `no builder "${name}" found`;
      delete builders[name];
      store(builders);
      return undefined;
    });
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
  console.log(`#0 building with "${flag('--builder') || 'default'}" instance using remote driver`);
  if (!maybeFault('bake')) {
    let definition;
    try {
      definition = resolveBake(parseBakeArgv(args.slice(2)), process.cwd());
    } catch (e) {
      die(e.message);
    }
    const ms = Number(process.env.FAKE_DOCKER_BUILD_MS || 0);
    if (ms > 0) await new Promise(r => setTimeout(r, ms));
    const builderName = flag('--builder') || 'default';
    const nodes = load()[builderName]?.nodes ?? [];
    const archs = new Set(
      nodes
        .flatMap(n => (n.platforms || '').split(','))
        .filter(Boolean)
        .map(p => p.split('/')[1])
    );
    for (const [name, t] of Object.entries(definition.target)) {
      const bad = (t.platforms || []).find(p => archs.size > 0 && !archs.has(p.split('/')[1]));
      if (bad)
        die(
          `target ${name}: failed to solve: process "/bin/sh -c true" did not complete successfully: exec format error (${bad})`
        );
    }
    const meta = flag('--metadata-file');
    if (meta) {
      const out = {};
      for (const [name, t] of Object.entries(definition.target)) {
        out[name] = {
          'buildx.build.ref': `${builderName}/node/fakebuildref-${name}`,
          'containerimage.config.digest': 'sha256:' + createHash('sha256').update(`config:${name}`).digest('hex'),
          'containerimage.digest': 'sha256:' + createHash('sha256').update(`image:${name}`).digest('hex'),
          ...(t.tags && t.tags.length > 0 ? {'image.name': t.tags.join(',')} : {})
        };
      }
      writeFileSync(meta, JSON.stringify(out));
    }
    for (const name of Object.keys(definition.target)) console.log(`#1 [${name}] DONE 0.0s`);
  }
} else if (cmd === 'build' && process.env.FAKE_DOCKER_BUILD_STUBBORN_CHILD === '1') {
  console.log(`#0 building with "${flag('--builder') || 'default'}" instance using remote driver`);
  const child =
    'process.on("SIGTERM", () => {}); process.on("SIGINT", () => {}); setTimeout(() => {}, 120000);' +
    'console.log(`stubborn child ${process.pid} holds stdout and ignores SIGTERM and SIGINT`);';
  spawn(process.execPath, ['-e', child], {stdio: ['ignore', 'inherit', 'inherit']});
  setInterval(() => undefined, 1000);
} else if (cmd === 'build') {
  console.log(`#0 building with "${flag('--builder') || 'default'}" instance using remote driver`);
  if (!maybeFault(cmd)) {
    const ms = Number(process.env.FAKE_DOCKER_BUILD_MS || 0);
    if (ms > 0) await new Promise(r => setTimeout(r, ms));
    const meta = flag('--metadata-file');
    const tags = args.flatMap((a, i) => (a === '--tag' ? [args[i + 1]] : []));
    if (meta)
      writeFileSync(
        meta,
        JSON.stringify({
          'buildx.build.ref': `${flag('--builder') || 'default'}/node/fakebuildref`,
          'containerimage.config.digest': 'sha256:' + '2'.repeat(64),
          'containerimage.digest': 'sha256:' + '0'.repeat(64),
          ...(tags.length > 0 ? {'image.name': tags.join(',')} : {})
        })
      );
    const iid = flag('--iidfile');
    if (iid) writeFileSync(iid, 'sha256:' + '1'.repeat(64));
    console.log('#1 DONE 0.0s');
  }
} else {
  die(`fake docker does not implement "buildx ${cmd}"`);
}

async function bootstrap(name, builder) {
  console.log(`Name:   ${name}\nDriver: ${builder.nodes[0]?.driver || 'remote'}`);
  for (const n of builder.nodes) {
    const url = new URL(n.endpoint);
    // Only remote nodes are dialled; a docker-container node "boots" at once.
    await new Promise((resolve, reject) => {
      if (n.driver !== 'remote') return resolve();
      const s = connect({
        host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: Number(url.port),
        ca: readFileSync(n.cacert),
        cert: readFileSync(n.cert),
        key: readFileSync(n.key),
        ALPNProtocols: ['h2']
      });
      const t = setTimeout(() => reject(new Error('context deadline exceeded')), 20000);
      s.once('secureConnect', () => {
        clearTimeout(t);
        s.destroy();
        resolve();
      });
      s.once('error', e => {
        clearTimeout(t);
        reject(e);
      });
    }).catch(e => die(`node ${n.node}: ${e.message}`));
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
