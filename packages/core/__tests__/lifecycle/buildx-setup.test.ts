import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {appendNodesToStore} from '../../src/buildx/buildx-store.js';
import {parseBuilderEndpoint} from '../../src/lifecycle/builder-endpoint.js';
import type {BuildkitInfo, BuildkitInfoCall} from '../../src/lifecycle/buildkit-info.js';
import {BuildxSetup, type BuildxSetupOpts} from '../../src/lifecycle/buildx-setup.js';
import type {ReadyBuilder} from '../../src/lifecycle/readiness.js';
import {deferred} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeExec, subcommand} from '../fakes/fake-exec.js';
import {TEST_PEMS} from '../fakes/pems.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

let certDir: string;
beforeEach(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'buildx-setup-test-'));
});
afterEach(async () => {
  await rm(certDir, {recursive: true, force: true});
});

const ready = (id: string, host: string): ReadyBuilder => ({
  id,
  endpoint: parseBuilderEndpoint(host),
  platforms: ['linux/amd64'],
  pems: {ca: TEST_PEMS.ca, cert: TEST_PEMS.cert, key: TEST_PEMS.key},
  detailsRequests: 1
});

function setup(
  exec: FakeExec,
  over: Partial<BuildxSetupOpts> = {},
  env?: Record<string, string>
): {setup: BuildxSetup; created: number[]; logger: RecordingLogger} {
  const created: number[] = [];
  const logger = new RecordingLogger();
  const s = new BuildxSetup({
    buildx: new Buildx({exec, logger, env}),
    clock: new FakeClock(),
    logger,
    builderName: 'rb',
    certDir,
    nodeNames: ['n0', 'n1', 'n2'],
    setupBuildx: true,
    use: false,
    deadline: 60_000,
    onCreated: () => created.push(exec.calls.length),
    ...over
  });
  return {setup: s, created, logger};
}

/** [create|append, node] of each buildx call. */
const nodesOf = (exec: FakeExec): string[][] =>
  exec.argvs.map(a => [a.includes('--append') ? 'append' : subcommand(a), a[a.indexOf('--node') + 1] ?? '']);

async function files(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/** Yields until `done()` holds. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await done()); i++) {
    if (i > 10_000) throw new Error('until: the condition never held');
    await new Promise(resolve => setImmediate(resolve));
  }
}

describe('BuildxSetup', () => {
  test('the first builder added creates the builder, whatever its index; no append starts before the create ends', async () => {
    const gate = deferred<void>();
    const exec = new FakeExec(async c => {
      if (!c.args.includes('--append')) await gate.promise;
      return {};
    });
    const {setup: s, created} = setup(exec);
    s.add(ready('b2', '10.0.0.2:1'), 2);
    s.add(ready('b0', '10.0.0.1:1'), 0);
    // Both certificates written and the create running: the append still waits on it.
    await until(async () => exec.calls.length === 1 && (await files(join(certDir, 'n0'))).length === 3);
    for (let i = 0; i < 20; i++) await new Promise(r => setImmediate(r));
    expect(nodesOf(exec)).toEqual([['create', 'n2']]);
    gate.resolve();
    const nodes = await s.nodes();
    expect(nodesOf(exec)).toEqual([
      ['create', 'n2'],
      ['append', 'n0']
    ]);
    expect(created).toEqual([1]);
    // By builder index, named by index.
    expect(nodes.map(n => [n.name, n.builderId])).toEqual([
      ['n0', 'b0'],
      ['n2', 'b2']
    ]);
  });

  test('a failed create fails the setup: `failed` aborts with it, no append runs, nodes() rejects', async () => {
    const exec = new FakeExec(c => (c.args.includes('--append') ? {} : {exitCode: 1, stderr: 'ERROR: bad\n'}));
    const {setup: s, created} = setup(exec);
    s.add(ready('b0', '10.0.0.1:1'), 0);
    s.add(ready('b1', '10.0.0.2:1'), 1);
    await expect(s.nodes()).rejects.toThrow('Failed to create buildx builder "rb" (node n0): ERROR: bad');
    expect((s.failed.reason as Error).message).toBe('Failed to create buildx builder "rb" (node n0): ERROR: bad');
    expect(nodesOf(exec)).toEqual([['create', 'n0']]);
    expect(created).toEqual([]);
  });

  test('halted: nothing more is written nor run', async () => {
    const exec = new FakeExec();
    const {setup: s} = setup(exec);
    await s.halt();
    s.add(ready('b0', '10.0.0.1:1'), 0);
    await s.halt();
    expect({calls: exec.calls.length, files: await readdir(certDir)}).toEqual({calls: 0, files: []});
  });

  test('without buildx only the certificates are written', async () => {
    const exec = new FakeExec();
    const {setup: s} = setup(exec, {setupBuildx: false});
    s.add(ready('b0', '10.0.0.1:1'), 0);
    const [node] = await s.nodes();
    expect(exec.calls).toEqual([]);
    expect(node?.certs.cacert).toBe(join(certDir, 'n0', 'ca.pem'));
    expect((await readdir(join(certDir, 'n0'))).sort()).toEqual(['ca.pem', 'cert.pem', 'key.pem']);
  });

  describe("nodes after the first join by a direct write of buildx's record", () => {
    /** What buildx 0.13–0.36 writes for createNodeArgs' argv (store.NodeGroup), from the create call. */
    const record = (args: string[]): object => {
      const opt = (name: string): string => args[args.indexOf(name) + 1] ?? '';
      const opts = Object.fromEntries(
        opt('--driver-opt')
          .split(',')
          .map(kv => kv.split('='))
      );
      return {
        Name: opt('--name'),
        Driver: 'remote',
        Nodes: [
          {
            Name: opt('--node'),
            Endpoint: args[args.length - 1],
            Platforms: args.includes('--platform') ? [{architecture: 'amd64', os: 'linux'}] : null,
            DriverOpts: opts,
            Flags: null,
            Files: null
          }
        ],
        Dynamic: false
      };
    };
    let config: string;
    beforeEach(async () => {
      config = join(certDir, 'buildx-config');
      await mkdir(join(config, 'instances'), {recursive: true});
    });
    /** A buildx whose create writes its record as buildx does. */
    const buildxWritingRecords = (): FakeExec =>
      new FakeExec(async c => {
        if (subcommand(c.args) === 'create' && !c.args.includes('--append')) {
          await writeFile(join(config, 'instances', 'rb'), JSON.stringify(record(c.args)));
        }
        return {};
      });

    test('no `create --append` runs: the nodes that waited for the create are in the record, in one write', async () => {
      const exec = buildxWritingRecords();
      const writes: string[][] = [];
      const appendNodes: typeof appendNodesToStore = opts => {
        writes.push(opts.nodes.map(n => n.name));
        return appendNodesToStore(opts);
      };
      const {setup: s} = setup(exec, {appendNodes}, {BUILDX_CONFIG: config});
      s.add(ready('b1', '10.0.0.2:1'), 1);
      s.add(ready('b0', '10.0.0.1:1'), 0);
      s.add(ready('b2', '10.0.0.3:1'), 2);
      await s.nodes();
      expect(nodesOf(exec)).toEqual([['create', 'n1']]);
      expect(writes).toEqual([['n0', 'n2']]);
      const stored = JSON.parse(await readFile(join(config, 'instances', 'rb'), 'utf8')) as {
        Nodes: {Name: string; Endpoint: string; DriverOpts: Record<string, string>}[];
      };
      // The creator first; the others in the order they were added.
      expect(stored.Nodes.map(n => [n.Name, n.Endpoint, n.DriverOpts['cacert']])).toEqual([
        ['n1', 'tcp://10.0.0.2:1', join(certDir, 'n1', 'ca.pem')],
        ['n0', 'tcp://10.0.0.1:1', join(certDir, 'n0', 'ca.pem')],
        ['n2', 'tcp://10.0.0.3:1', join(certDir, 'n2', 'ca.pem')]
      ]);
    });

    test('prepare() creates the builder before any is ready; the first added takes its placeholder node, no process', async () => {
      const exec = buildxWritingRecords();
      const {setup: s, created, logger} = setup(exec, {use: true}, {BUILDX_CONFIG: config});
      s.prepare();
      await new Promise(resolve => setImmediate(resolve));
      expect(exec.argvs).toEqual([
        [
          'buildx',
          'create',
          '--name',
          'rb',
          '--node',
          'n0',
          '--driver',
          'remote',
          '--driver-opt',
          `cacert=${join(certDir, 'n0', 'ca.pem')},cert=${join(certDir, 'n0', 'cert.pem')},key=${join(certDir, 'n0', 'key.pem')}`,
          '--use',
          'tcp://127.0.0.1:1'
        ]
      ]);
      s.add(ready('b1', '10.0.0.2:1'), 1);
      s.add(ready('b0', '10.0.0.1:1'), 0);
      await s.nodes();
      // The builder existed (the state told so) once the placeholder's create ended; no process after it.
      expect({created, calls: exec.argvs.length}).toEqual({created: [1], calls: 1});
      const stored = JSON.parse(await readFile(join(config, 'instances', 'rb'), 'utf8')) as {
        Nodes: {Name: string; Endpoint: string; Platforms: unknown; DriverOpts: Record<string, string>}[];
      };
      expect(stored.Nodes.map(n => [n.Name, n.Endpoint, n.Platforms, n.DriverOpts['key']])).toEqual([
        // buildx drops a platform the next node also has from the nodes before it (validateDuplicates).
        ['n1', 'tcp://10.0.0.2:1', [], join(certDir, 'n1', 'key.pem')],
        ['n0', 'tcp://10.0.0.1:1', [{architecture: 'amd64', os: 'linux'}], join(certDir, 'n0', 'key.pem')]
      ]);
      expect(logger.messages('info')).toEqual([
        'Set node n1 of buildx builder "rb" to tcp://10.0.0.2:1',
        'Added node n0 to buildx builder "rb"'
      ]);
    });

    test('prepare() and a record not ours to write → the builder is removed and created anew for the first added', async () => {
      const exec = new FakeExec(async c => {
        if (subcommand(c.args) === 'create' && !c.args.includes('--append')) {
          await writeFile(join(config, 'instances', 'rb'), JSON.stringify({...record(c.args), Dynamic: true}));
        }
        return {};
      });
      const {setup: s} = setup(exec, {}, {BUILDX_CONFIG: config});
      s.prepare();
      s.add(ready('b0', '10.0.0.1:1'), 0);
      s.add(ready('b1', '10.0.0.2:1'), 1);
      await s.nodes();
      const what = (a: string[]): string[] => [
        a.includes('--append') ? 'append' : subcommand(a),
        a.includes('--node') ? a[a.indexOf('--node') + 1]! : '',
        a[a.length - 1]!
      ];
      expect(exec.argvs.map(what)).toEqual([
        ['create', 'n0', 'tcp://127.0.0.1:1'],
        ['rm', '', 'rb'],
        ['create', 'n0', 'tcp://10.0.0.1:1'],
        ['append', 'n1', 'tcp://10.0.0.2:1']
      ]);
    });

    test("prepare()'s create failing is no failure of the setup: the first added creates the builder", async () => {
      const exec = new FakeExec(c =>
        c.args.at(-1) === 'tcp://127.0.0.1:1' ? {exitCode: 1, stderr: 'ERROR: bad\n'} : {}
      );
      const {setup: s, created, logger} = setup(exec, {}, {BUILDX_CONFIG: config});
      s.prepare();
      s.add(ready('b1', '10.0.0.2:1'), 1);
      s.add(ready('b0', '10.0.0.1:1'), 0);
      await s.nodes();
      expect(s.failed.aborted).toBe(false);
      expect(exec.argvs.map(a => [a.includes('--append') ? 'append' : subcommand(a), a.at(-1)])).toEqual([
        ['create', 'tcp://127.0.0.1:1'],
        ['create', 'tcp://10.0.0.2:1'],
        ['append', 'tcp://10.0.0.1:1']
      ]);
      // onCreated once, for the builder that exists: after b1's create (the second call).
      expect(created).toEqual([2]);
      expect(logger.messages('debug')).toContain(
        'BuildxRecord: creating the builder before any was ready failed (Failed to create buildx builder "rb" (node n0): ERROR: bad); the first node creates it'
      );
    });

    test('a record that is not what we expect → `create --append` for that node and every later one', async () => {
      const exec = new FakeExec(async c => {
        if (subcommand(c.args) === 'create' && !c.args.includes('--append')) {
          await writeFile(join(config, 'instances', 'rb'), JSON.stringify({...record(c.args), Dynamic: true}));
        }
        return {};
      });
      const {setup: s, logger} = setup(exec, {}, {BUILDX_CONFIG: config});
      s.add(ready('b0', '10.0.0.1:1'), 0);
      s.add(ready('b1', '10.0.0.2:1'), 1);
      s.add(ready('b2', '10.0.0.3:1'), 2);
      await s.nodes();
      expect(nodesOf(exec).sort()).toEqual([
        ['append', 'n1'],
        ['append', 'n2'],
        ['create', 'n0']
      ]);
      expect(logger.messages('debug').filter(l => l.includes('appending with `buildx create --append`'))).toHaveLength(
        1
      );
    });
  });

  describe('inspect()', () => {
    const versions =
      (byHost: Record<string, string>): BuildkitInfoCall =>
      async o =>
        byHost[o.hostname] ? {version: byHost[o.hostname] as string} : {why: `no answer from ${o.hostname}`};

    test('every node told its BuildKit version → no `buildx inspect --bootstrap`; nodes by index', async () => {
      const exec = new FakeExec();
      const {setup: s, logger} = setup(exec, {buildkitInfo: versions({'10.0.0.1': 'v0.13.2', '10.0.0.2': 'v0.26.1'})});
      const [b0, b1] = [ready('b0', '10.0.0.1:1'), ready('b1', '10.0.0.2:1')];
      s.add(b1, 1);
      s.add(b0, 0);
      s.ready(b0, 0);
      s.ready(b1, 1);
      await s.nodes();
      const inspected = await s.inspect();
      expect(exec.argvs.filter(a => a.includes('--bootstrap'))).toEqual([]);
      expect(inspected).toEqual({
        name: 'rb',
        driver: 'remote',
        nodes: [
          {
            name: 'n0',
            endpoint: 'tcp://10.0.0.1:1',
            status: 'running',
            buildkit: 'v0.13.2',
            platforms: ['linux/amd64']
          },
          {name: 'n1', endpoint: 'tcp://10.0.0.2:1', status: 'running', buildkit: 'v0.26.1', platforms: ['linux/amd64']}
        ]
      });
      expect(logger.messages('info')).toContain('Node n1: BuildKit v0.26.1 at tcp://10.0.0.2:1, linux/amd64');
    });

    test('one node without a version → buildx boots the builder and its output is what counts', async () => {
      const exec = new FakeExec(c =>
        c.args.includes('--bootstrap')
          ? {
              stdout:
                'Name: rb\nDriver: remote\n\nName: n0\nStatus: running\nBuildKit version: v0.12.5\nPlatforms: linux/amd64*\n\nName: n1\nStatus: running\nBuildKit version: v0.12.5\nPlatforms: linux/amd64*\n'
            }
          : {}
      );
      const {setup: s, logger} = setup(exec, {buildkitInfo: versions({'10.0.0.1': 'v0.13.2'})});
      const [b0, b1] = [ready('b0', '10.0.0.1:1'), ready('b1', '10.0.0.2:1')];
      for (const [i, b] of [b0, b1].entries()) {
        s.add(b, i);
        s.ready(b, i);
      }
      await s.nodes();
      const inspected = await s.inspect();
      expect(exec.argvs.filter(a => a.includes('--bootstrap'))).toHaveLength(1);
      expect(inspected.nodes.map(n => n.buildkit)).toEqual(['v0.12.5', 'v0.12.5']);
      expect(logger.text).toContain('no answer from 10.0.0.2; booting with buildx');
    });

    test("add() returns what readiness may take as proof: the Info call's `proved`, only when it is asked", async () => {
      const proved: Record<string, BuildkitInfo> = {
        '10.0.0.1': {version: 'v0.13.2', proved: true},
        '10.0.0.2': {why: 'UNIMPLEMENTED', proved: true},
        '10.0.0.3': {why: 'connection refused', proved: false},
        '10.0.0.4': {version: 'v0.13.2'}
      };
      const {setup: s} = setup(new FakeExec(), {buildkitInfo: async o => proved[o.hostname] as BuildkitInfo});
      const proofs = ['10.0.0.1:1', '10.0.0.2:1', '10.0.0.3:1', '10.0.0.4:1'].map((host, i) =>
        s.add(ready(`b${i}`, host), i)
      );
      expect(await Promise.all(proofs)).toEqual([true, true, false, false]);
      await s.nodes();
      const {setup: without} = setup(new FakeExec(), {
        setupBuildx: false,
        buildkitInfo: async () => proved['10.0.0.1']!
      });
      expect(without.add(ready('b0', '10.0.0.1:1'), 0)).toBeUndefined();
      await without.nodes();
    });

    test('asked when added; asked again once ready only if it did not answer before', async () => {
      const exec = new FakeExec();
      const asked: string[] = [];
      const answers: Record<string, BuildkitInfo[]> = {
        '10.0.0.1': [{version: 'v0.13.2'}],
        '10.0.0.2': [{why: 'connection refused'}, {version: 'v0.13.2'}]
      };
      const {setup: s} = setup(exec, {
        buildkitInfo: async o => {
          asked.push(o.hostname);
          return answers[o.hostname]?.shift() ?? {why: 'asked too often'};
        }
      });
      const [b0, b1] = [ready('b0', '10.0.0.1:1'), ready('b1', '10.0.0.2:1')];
      s.add(b0, 0);
      s.add(b1, 1);
      expect(asked).toEqual(['10.0.0.1', '10.0.0.2']);
      s.ready(b0, 0);
      s.ready(b1, 1);
      await s.nodes();
      const inspected = await s.inspect();
      expect(asked.sort()).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.2']);
      expect(inspected.nodes.map(n => n.buildkit)).toEqual(['v0.13.2', 'v0.13.2']);
      expect(exec.argvs.filter(a => a.includes('--bootstrap'))).toEqual([]);
    });
  });
});
