import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, readdir, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {parseBuilderEndpoint} from '../../src/lifecycle/builder-endpoint.js';
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

function setup(exec: FakeExec, over: Partial<BuildxSetupOpts> = {}): {setup: BuildxSetup; created: number[]} {
  const created: number[] = [];
  const logger = new RecordingLogger();
  const s = new BuildxSetup({
    buildx: new Buildx({exec, logger}),
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
  return {setup: s, created};
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
});
