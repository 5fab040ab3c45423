import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, readFileSync} from 'node:fs';
import {mkdtemp, readFile, rm, stat} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {BuilderNodesDownError, Buildx} from '../../src/buildx/buildx.js';
import {ApiError, PartialAssignError} from '../../src/errors.js';
import {
  BuilderLifecycle,
  nodeName,
  type BuilderLifecycleOpts,
  type ProvisionOpts
} from '../../src/lifecycle/builder-lifecycle.js';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import {BuilderFailedError, BuilderTimeoutError, type PollSchedule} from '../../src/lifecycle/readiness.js';
import {RunRecorder} from '../../src/report/run-recorder.js';
import {loadBuilderState, State, type BuilderState} from '../../src/state.js';
import {
  assigned,
  deferred,
  FakeBuilderApi,
  httpError,
  pendingDetails,
  readyDetails
} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {ManualClock} from '../fakes/manual-clock.js';
import {keepingBuildxStore} from '../fakes/buildx-store-exec.js';
import {FakeExec, subcommand, type ExecHandler} from '../fakes/fake-exec.js';
import {FakeProbe} from '../fakes/fake-probe.js';
import {TEST_PEMS} from '../fakes/pems.js';
import {RecordingLogger} from '../fakes/recording-logger.js';
import {RecordingStateStore} from '../fakes/recording-state-store.js';
import {failure} from '../fakes/failure.js';

const schedule: PollSchedule = {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400};
const API_URL = 'https://api.example.com';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'lifecycle-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

/**
 * A lifecycle on fakes. Its buildx keeps its store in the test's folder as buildx does (the calls a handler
 * lets succeed change buildx's records), unless `buildxStore` is false: then no record is ever there to write.
 */
function harness(over: Partial<BuilderLifecycleOpts> = {}, {buildxStore = true} = {}) {
  const events: string[] = [];
  const api = new FakeBuilderApi(events);
  const store = new RecordingStateStore(events);
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const probe = new FakeProbe();
  const exec = new FakeExec();
  const buildxConfig = join(root, 'buildx');
  const handle = (h: ExecHandler): void => {
    exec.handler = buildxStore ? keepingBuildxStore(buildxConfig, h) : h;
  };
  handle(c => {
    events.push(`docker:${subcommand(c.args)}`);
    return {};
  });
  const lifecycle = new BuilderLifecycle({
    api,
    apiUrl: API_URL,
    state: store,
    logger,
    clock,
    probe: probe.probe,
    // buildx's files in the test's folder: a failed rm deletes what it left there, never in ~/.docker.
    buildx: new Buildx({exec, logger, env: {BUILDX_CONFIG: buildxConfig}}),
    certRoot: root,
    builderName: 'rb',
    schedule,
    inFlightGraceMs: 200,
    teardownLimits: {budgetMs: 2000, rmMs: 5000},
    ...over
  });
  const provision = (o: Partial<ProvisionOpts> = {}) =>
    lifecycle.provision({profiles: ['amd'], timeoutMs: 10_000, setupBuildx: true, use: true, ...o});
  const state = (): BuilderState => loadBuilderState(store) as BuilderState;
  return {events, api, store, clock, logger, probe, exec, handle, lifecycle, provision, state};
}

/** [name, endpoint, platforms, key] of each node in buildx's record of builder rb. */
function storedNodes(): [string, string, string[], string][] {
  const record = JSON.parse(readFileSync(join(root, 'buildx', 'instances', 'rb'), 'utf8')) as {
    Nodes: {
      Name: string;
      Endpoint: string;
      Platforms: {os: string; architecture: string}[] | null;
      DriverOpts: {key: string};
    }[];
  };
  return record.Nodes.map(n => [
    n.Name,
    n.Endpoint,
    (n.Platforms ?? []).map(p => `${p.os}/${p.architecture}`),
    n.DriverOpts.key
  ]);
}

const certsOf = (certDir: string, id: string) => ({
  cacert: join(certDir, id, 'ca.pem'),
  cert: join(certDir, id, 'cert.pem'),
  key: join(certDir, id, 'key.pem')
});
const driverOpt = (certDir: string, id: string) =>
  `cacert=${join(certDir, id, 'ca.pem')},cert=${join(certDir, id, 'cert.pem')},key=${join(certDir, id, 'key.pem')}`;

describe('BuilderLifecycle.provision: success', () => {
  test('one builder: assign → buildx create (placeholder node) → ready → certs on disk → its node in the record → bootstrap', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1'))
      .onDetails('b1', pendingDetails({status: 'pending'}), readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    const res = await h.provision();
    const certDir = res.certDir;
    expect(dirname(certDir)).toBe(root);
    expect(res).toEqual({
      name: 'rb',
      profile: 'amd',
      builderIds: ['b1'],
      nodes: [
        {
          name: 'b1',
          builderId: 'b1',
          endpoint: 'tcp://10.0.0.1:1234',
          platforms: ['linux/amd64'],
          certs: certsOf(certDir, 'b1')
        }
      ],
      platforms: ['linux/amd64'],
      certDir,
      timeToReadyMs: 100,
      buildxCreated: true,
      ready: [expect.objectContaining({id: 'b1', arch: 'amd64'})]
    });
    // The builder is created right after the assignment, its one node a placeholder (no platform); the ready
    // builder's node takes its place in buildx's record, without a process.
    expect(h.exec.argvs).toEqual([
      [
        'buildx',
        'create',
        '--name',
        'rb',
        '--node',
        'b1',
        '--driver',
        'remote',
        '--driver-opt',
        driverOpt(certDir, 'b1'),
        '--use',
        'tcp://127.0.0.1:1'
      ],
      ['buildx', 'inspect', '--bootstrap', '--builder', 'rb']
    ]);
    expect(h.exec.calls.map(c => c.opts.timeoutMs)).toEqual([10_000, 9900]);
    expect(storedNodes()).toEqual([['b1', 'tcp://10.0.0.1:1234', ['linux/amd64'], join(certDir, 'b1', 'key.pem')]]);
    expect(await readFile(join(certDir, 'b1', 'key.pem'), 'utf8')).toBe(TEST_PEMS.key);
    expect(await readFile(join(certDir, 'b1', 'ca.pem'), 'utf8')).toBe(TEST_PEMS.ca);
    expect(await readFile(join(certDir, 'b1', 'cert.pem'), 'utf8')).toBe(TEST_PEMS.cert);
    expect((await stat(certDir)).mode & 0o777).toBe(0o700);
    expect(h.state()).toEqual({
      v: 1,
      builderName: 'rb',
      builderIds: ['b1'],
      tornDownIds: [],
      certDir,
      apiUrl: API_URL,
      profile: 'amd',
      buildxCreated: true
    });
    expect(h.api.teardownCalls).toEqual([]);
  });

  test('three builders: the first ready takes the placeholder node, the others join its record; one bootstrap; platforms are the union', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2', 'b3'))
      .onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}))
      .onDetails('b2', pendingDetails(), readyDetails('10.0.0.2:1234', {arch: 'arm64'}))
      .onDetails('b3', readyDetails('10.0.0.3', {arch: 'amd64'}));
    const res = await h.provision();
    const certDir = res.certDir;
    expect(res.builderIds).toEqual(['b1', 'b2', 'b3']);
    expect(res.platforms).toEqual(['linux/amd64', 'linux/arm64']);
    expect(res.nodes.map(n => [n.name, n.endpoint, n.platforms])).toEqual([
      ['b1', 'tcp://10.0.0.1:1234', ['linux/amd64']],
      ['b2', 'tcp://10.0.0.2:1234', ['linux/arm64']],
      ['b3', 'tcp://10.0.0.3:2376', ['linux/amd64']]
    ]);
    // One create, of the placeholder, before any builder is ready; one bootstrap after all; no process between.
    expect(h.exec.argvs).toEqual([
      [
        'buildx',
        'create',
        '--name',
        'rb',
        '--node',
        'b1',
        '--driver',
        'remote',
        '--driver-opt',
        driverOpt(certDir, 'b1'),
        '--use',
        'tcp://127.0.0.1:1'
      ],
      ['buildx', 'inspect', '--bootstrap', '--builder', 'rb']
    ]);
    // In the order they were ready (b1 and b3 at the first poll, b2 at the second); buildx drops b3's
    // platform from b1, which has it too (validateDuplicates).
    expect(storedNodes()).toEqual([
      ['b1', 'tcp://10.0.0.1:1234', [], join(certDir, 'b1', 'key.pem')],
      ['b3', 'tcp://10.0.0.3:2376', ['linux/amd64'], join(certDir, 'b3', 'key.pem')],
      ['b2', 'tcp://10.0.0.2:1234', ['linux/arm64'], join(certDir, 'b2', 'key.pem')]
    ]);
    for (const id of ['b1', 'b2', 'b3']) {
      for (const file of ['ca.pem', 'cert.pem', 'key.pem'])
        expect((await stat(join(certDir, id, file))).mode & 0o777).toBe(0o600);
    }
    expect(h.state().builderIds).toEqual(['b1', 'b2', 'b3']);
    expect(h.logger.messages('info')).toContain('Assigned 3 builders: b1, b2, b3');
  });

  test('three builders and no record of buildx to write: the placeholder builder is made anew by the first ready, the others --append', async () => {
    const h = harness({}, {buildxStore: false});
    h.api
      .onAssign('amd', assigned('b1', 'b2', 'b3'))
      .onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}))
      .onDetails('b2', pendingDetails(), readyDetails('10.0.0.2:1234', {arch: 'arm64'}))
      .onDetails('b3', readyDetails('10.0.0.3', {arch: 'amd64'}));
    const res = await h.provision();
    const certDir = res.certDir;
    expect(res.platforms).toEqual(['linux/amd64', 'linux/arm64']);
    // The placeholder's builder removed and created by the first builder ready; the others append once it
    // exists (in any order: they run together); one bootstrap after all.
    const argvs = h.exec.argvs;
    const appends = argvs.slice(3, 5).sort((a, b) => (a[6] ?? '').localeCompare(b[6] ?? ''));
    expect([...argvs.slice(0, 3), ...appends, ...argvs.slice(5)]).toEqual([
      [
        'buildx',
        'create',
        '--name',
        'rb',
        '--node',
        'b1',
        '--driver',
        'remote',
        '--driver-opt',
        driverOpt(certDir, 'b1'),
        '--use',
        'tcp://127.0.0.1:1'
      ],
      ['buildx', 'rm', 'rb'],
      [
        'buildx',
        'create',
        '--name',
        'rb',
        '--node',
        'b1',
        '--driver',
        'remote',
        '--driver-opt',
        driverOpt(certDir, 'b1'),
        '--platform',
        'linux/amd64',
        '--use',
        'tcp://10.0.0.1:1234'
      ],
      [
        'buildx',
        'create',
        '--name',
        'rb',
        '--append',
        '--node',
        'b2',
        '--driver',
        'remote',
        '--driver-opt',
        driverOpt(certDir, 'b2'),
        '--platform',
        'linux/arm64',
        'tcp://10.0.0.2:1234'
      ],
      [
        'buildx',
        'create',
        '--name',
        'rb',
        '--append',
        '--node',
        'b3',
        '--driver',
        'remote',
        '--driver-opt',
        driverOpt(certDir, 'b3'),
        '--platform',
        'linux/amd64',
        'tcp://10.0.0.3:2376'
      ],
      ['buildx', 'inspect', '--bootstrap', '--builder', 'rb']
    ]);
    expect(h.state().buildxCreated).toBe(true);
  });

  test('state is saved right after the assignment answers, before the buildx create and the first details request', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    await h.provision();
    // The buildx builder's create starts before the first details request.
    expect(h.events.slice(0, 5)).toEqual([
      'save:builder:[]',
      'assign:amd',
      'save:builder:[b1,b2]',
      'docker:create',
      'details:b1'
    ]);
    // buildxCreated is saved once that create ended, before the next docker call (the nodes need none).
    expect(h.events.filter(e => !e.startsWith('details:'))).toEqual([
      'save:builder:[]',
      'assign:amd',
      'save:builder:[b1,b2]',
      'docker:create',
      'save:builder:[b1,b2]',
      'docker:inspect'
    ]);
    expect(h.store.saves.map(v => (JSON.parse(v) as BuilderState).buildxCreated)).toEqual([false, false, true]);
  });

  test('setupBuildx false → no docker call; the certificates are still written', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234'));
    const res = await h.provision({setupBuildx: false});
    expect(h.exec.calls).toEqual([]);
    expect(res.buildxCreated).toBe(false);
    expect(h.state().buildxCreated).toBe(false);
    expect(await readFile(res.nodes[0]!.certs.key, 'utf8')).toBe(TEST_PEMS.key);
  });

  test('use false → no --use', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234'));
    await h.provision({use: false});
    expect(h.exec.argvs[0]).not.toContain('--use');
  });

  test('without a name, the builder is called remote-builder-<8 hex>', async () => {
    const h = harness({builderName: undefined});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234'));
    const res = await h.provision({setupBuildx: false});
    expect(res.name).toMatch(/^remote-builder-[0-9a-f]{8}$/);
    expect(h.state().builderName).toBe(res.name);
  });

  test('no profile → an error before anything is assigned', async () => {
    const h = harness();
    await expect(h.provision({profiles: []})).rejects.toHaveProperty('message', 'no builder profile given');
    expect(h.api.assignCalls).toEqual([]);
  });
});

describe('BuilderLifecycle.provision: failures tear everything down', () => {
  test('the state write in the assignment callback fails → the assigned builder is torn down and the failure reported', async () => {
    // GITHUB_STATE gone, a full disk: the run record's write, the first in the callback, throws.
    const store = new RecordingStateStore();
    const save = store.save.bind(store);
    const broken = 'Missing file at path: /runner/_temp/_runner_file_commands/save_state_x';
    store.save = (key, value) => {
      if (key === State.Run && value.includes('"b1"')) throw new Error(broken);
      save(key, value);
    };
    const recorder = new RunRecorder({action: 'build-push', state: store, summary: true});
    const h = harness({state: store, events: {assigned: (p, i, at) => recorder.assigned(p, i, at)}});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1'));
    const e = await failure(h.provision());
    expect(e.message).toBe(broken);
    expect(h.api.tornDown).toEqual(['b1']);
    expect(h.logger.messages('info')).toContain(`Tearing down b1 after: ${broken}`);
    expect(loadBuilderState(store)).toMatchObject({builderIds: ['b1'], tornDownIds: ['b1']});
  });

  test('readiness timeout → every builder torn down, the timeout thrown', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2', 'b3'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', pendingDetails())
      .onDetails('b3', readyDetails('10.0.0.3:1'));
    const e = await failure(h.provision({timeoutMs: 1000}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe('Builder b2 was not ready in time: details lack host, ca, client_cert, client_key');
    expect([...h.api.tornDown].sort()).toEqual(['b1', 'b2', 'b3']);
    expect([...h.state().tornDownIds].sort()).toEqual(['b1', 'b2', 'b3']);
    // b1 and b3 became nodes of the builder made after the assignment when their details were complete; the
    // buildx builder goes with the teardown.
    expect(h.exec.argvs.map(a => [subcommand(a), a.at(-1)])).toEqual([
      ['create', 'tcp://127.0.0.1:1'],
      ['rm', 'rb']
    ]);
    expect(h.logger.messages('info')).toEqual(
      expect.arrayContaining([
        'Set node b1 of buildx builder "rb" to tcp://10.0.0.1:1',
        'Added node b3 to buildx builder "rb"'
      ])
    );
    expect(existsSync(join(root, 'buildx', 'instances', 'rb'))).toBe(false);
  });

  test('several builders share one progress line every 10 s while they wait, not one line each', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', pendingDetails());
    await failure(h.provision({timeoutMs: 25_000}));
    const progress = h.logger.messages('info').filter(m => m.startsWith('Still waiting'));
    expect(progress).toHaveLength(2);
    for (const line of progress) expect(line).toMatch(/1 of 2 builders ready \(b1 ready; b2 pending/);
    expect(progress[0]).toMatch(/after 10 s of 25 s/);
    expect(progress[1]).toMatch(/after 20 s of 25 s/);
  });

  test('one of three fails → all three torn down, the failure thrown', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2', 'b3'))
      .onDetails('b1', pendingDetails())
      .onDetails('b2', pendingDetails(), pendingDetails({status: 'failed'}))
      .onDetails('b3', pendingDetails());
    const e = await failure(h.provision());
    expect(e).toBeInstanceOf(BuilderFailedError);
    expect(e.message).toBe('Builder b2 failed to start (status "failed")');
    expect([...h.api.tornDown].sort()).toEqual(['b1', 'b2', 'b3']);
    // The others stopped polling at once: no details request after the failure.
    const atFailure = h.api.detailsCalls.length;
    await new Promise(resolve => setTimeout(resolve, 20));
    expect(h.api.detailsCalls.length).toBe(atFailure);
    expect(atFailure).toBeLessThanOrEqual(9);
    expect(h.state()).toMatchObject({builderIds: ['b1', 'b2', 'b3'], buildxCreated: false});
    expect([...h.state().tornDownIds].sort()).toEqual(['b1', 'b2', 'b3']);
  });

  test('buildx create failing → teardown, no fallback to the next profile', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onAssign('arm', assigned('b9')).onDetails('b1', readyDetails('10.0.0.1:1'));
    h.handle(c => (subcommand(c.args) === 'create' ? {exitCode: 1, stderr: 'ERROR: invalid driver opt\n'} : {}));
    const e = await failure(h.provision({profiles: ['amd', 'arm']}));
    expect(e.message).toBe('Failed to create buildx builder "rb" (node b1): ERROR: invalid driver opt');
    expect(h.api.assignCalls.map(c => c.profile)).toEqual(['amd']);
    expect(h.api.tornDown).toEqual(['b1']);
    expect(h.state()).toMatchObject({builderIds: ['b1'], tornDownIds: ['b1'], buildxCreated: false});
    // The early create's failure alone failed nothing: the ready builder's own create did. Nothing was
    // created, so nothing is removed.
    expect(h.exec.argvs.map(a => [subcommand(a), a.at(-1)])).toEqual([
      ['create', 'tcp://127.0.0.1:1'],
      ['create', 'tcp://10.0.0.1:1']
    ]);
    expect(h.logger.messages('debug')).toContain(
      'BuildxRecord: creating the builder before any was ready failed (Failed to create buildx builder "rb" (node b1): ERROR: invalid driver opt); the first node creates it'
    );
  });

  // --append runs only when buildx's record is not ours to write (here: none where we look).
  test('buildx create --append failing → teardown, no fallback to the next profile', async () => {
    const h = harness({}, {buildxStore: false});
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onAssign('arm', assigned('b9'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', readyDetails('10.0.0.2:1'))
      .onDetails('b9', readyDetails('10.0.0.9:1'));
    h.handle(c => (c.args.includes('--append') ? {exitCode: 1, stderr: 'ERROR: failed to append\n'} : {}));
    // A local buildx failure would repeat on any profile (like a failed create, which does not fall back),
    // but the append error's message lacks "buildx builder", so worthFallingBack() lets it fall back.
    const outcome = await h.provision({profiles: ['amd', 'arm']}).then(
      r => `provisioned from profile "${r.profile}"`,
      (err: Error) => err.message
    );
    expect({outcome, assigned: h.api.assignCalls.map(c => c.profile)}).toEqual({
      outcome: 'Failed to append node b2 to buildx builder "rb": ERROR: failed to append',
      assigned: ['amd']
    });
  });

  test('buildx create --append failing → the builder created by the first node is removed, all torn down', async () => {
    const h = harness({}, {buildxStore: false});
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    h.handle(c => (c.args.includes('--append') ? {exitCode: 1, stderr: 'ERROR: failed to append\n'} : {}));
    const e = await failure(h.provision());
    expect(e.message).toBe('Failed to append node b2 to buildx builder "rb": ERROR: failed to append');
    // The placeholder's builder, removed and created anew by b1 (no record to write), b2's append, the rm.
    expect(h.exec.argvs.map(a => [subcommand(a), a.at(-1)])).toEqual([
      ['create', 'tcp://127.0.0.1:1'],
      ['rm', 'rb'],
      ['create', 'tcp://10.0.0.1:1'],
      ['create', 'tcp://10.0.0.2:1'],
      ['rm', 'rb']
    ]);
    expect([...h.api.tornDown].sort()).toEqual(['b1', 'b2']);
    expect(h.state()).toMatchObject({tornDownIds: ['b1', 'b2'], buildxCreated: false});
  });

  test('bootstrap failing → teardown, buildx rm, no fallback', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onAssign('arm', assigned('b9')).onDetails('b1', readyDetails('10.0.0.1:1'));
    h.handle(c => (c.args.includes('--bootstrap') ? {exitCode: 1, stderr: 'ERROR: tls: bad certificate\n'} : {}));
    const e = await failure(h.provision({profiles: ['amd', 'arm']}));
    expect(e.message).toBe('Failed to bootstrap buildx builder "rb": ERROR: tls: bad certificate');
    expect(h.exec.argvs).toEqual([
      expect.arrayContaining(['create']),
      ['buildx', 'inspect', '--bootstrap', '--builder', 'rb'],
      ['buildx', 'rm', 'rb']
    ]);
    expect(h.api.assignCalls.map(c => c.profile)).toEqual(['amd']);
    expect(h.state()).toMatchObject({tornDownIds: ['b1'], buildxCreated: false});
  });

  // buildx < 0.22 exits 0 when a node failed to boot while another booted (docker/buildx#3062): handled as the
  // failure >= 0.22 reports (the test above): teardown, buildx rm, no other profile, nothing built.
  test('bootstrap exiting 0 with a node not running (buildx < 0.22) → the same as a failed bootstrap', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onAssign('arm', assigned('b9'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    h.handle(c =>
      c.args.includes('--bootstrap')
        ? {
            stdout:
              'Name:   rb\nDriver: remote\n\nNodes:\nName:      b1\nEndpoint:  tcp://10.0.0.1:1\nStatus:    running\n\nName:      b2\nEndpoint:  tcp://10.0.0.2:1\nStatus:    inactive\n',
            stderr: '#2 [b2 internal] waiting for connection\n#2 ERROR: context deadline exceeded\n'
          }
        : {}
    );
    const e = await failure(h.provision({profiles: ['amd', 'arm']}));
    expect(e).toBeInstanceOf(BuilderNodesDownError);
    expect(e.message).toMatch(
      /^Failed to bootstrap buildx builder "rb": node b2 \(tcp:\/\/10\.0\.0\.2:1\) is inactive \(its boot printed: ERROR: context deadline exceeded\)\. No build is started while a node is down/
    );
    expect(h.exec.argvs.map(subcommand)).toEqual(['create', 'inspect', 'rm']);
    expect(h.api.assignCalls.map(c => c.profile)).toEqual(['amd']);
    expect(h.state()).toMatchObject({tornDownIds: ['b1', 'b2'], buildxCreated: false});
  });

  test('a failed buildx rm after a failure only warns and leaves buildxCreated for post', async () => {
    // No record of buildx where we look (Buildx.rm cannot delete one instead): the placeholder's builder is
    // removed for b1's create, then the teardown's rm fails.
    const h = harness({}, {buildxStore: false});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1'));
    let rms = 0;
    h.handle(c => {
      const sub = subcommand(c.args);
      if (sub === 'create' || (sub === 'rm' && ++rms === 1)) return {};
      return {exitCode: 1, stderr: `ERROR: ${sub} failed\n`};
    });
    const e = await failure(h.provision());
    expect(e.message).toBe('Failed to bootstrap buildx builder "rb": ERROR: inspect failed');
    expect(h.logger.messages('warning')).toContain('Failed to remove buildx builder "rb": ERROR: rm failed');
    expect(h.state().buildxCreated).toBe(true);
  });

  test('a teardown that fails during cleanup is left for post, with a warning', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1'))
      .onDetails('b1', pendingDetails({status: 'failed'}))
      .onTeardown('b1', ...Array.from({length: 30}, () => httpError('tear down builder', 503, 'down')));
    await expect(h.provision()).rejects.toBeInstanceOf(BuilderFailedError);
    // Rounds until the teardown budget ends (fake time), not a fixed count.
    expect(h.api.tornDown.length).toBeGreaterThanOrEqual(3);
    expect(new Set(h.api.tornDown)).toEqual(new Set(['b1']));
    expect(h.state()).toMatchObject({builderIds: ['b1'], tornDownIds: []});
    expect(h.logger.messages('warning')).toContain(
      'Builder b1 could not be torn down and may still be billed: Failed to tear down builder: HTTP 503: down. The post step will try again.'
    );
  });
});

describe('BuilderLifecycle.provision again (a replacement after release)', () => {
  test('keeps every id for post, makes a new buildx builder, and removes the released certificates', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1'), assigned('b2'))
      .onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}))
      .onDetails('b2', readyDetails('10.0.0.2:1234', {arch: 'amd64'}));
    const first = await h.provision();
    await h.lifecycle.release();
    const second = await h.provision();
    expect(second.builderIds).toEqual(['b2']);
    expect(second.name).not.toBe(first.name);
    expect(h.state()).toMatchObject({builderIds: ['b1', 'b2'], tornDownIds: ['b1']});
    await expect(stat(first.certDir)).rejects.toThrow();
    expect((await stat(second.certDir)).isDirectory()).toBe(true);
  });
});

describe('BuilderLifecycle.provision: odd assignment answers', () => {
  test('bad entries next to good ones: the good builders are saved and torn down, the error quotes the bad entry', async () => {
    const h = harness();
    const partial = new PartialAssignError({
      call: 'assign builder',
      status: 200,
      hint: 'unexpected response: builder_instances[1] is {"id":""}: not a builder with a non-empty string id',
      assignedIds: ['b1', 'b3']
    });
    h.api.onAssign('amd', partial);
    const e = await failure(h.provision());
    expect(e).toBe(partial);
    expect(e.message).toContain('builder_instances[1] is {"id":""}');
    // Saved before anything else could fail, then torn down.
    expect(h.state()).toMatchObject({builderIds: ['b1', 'b3'], tornDownIds: ['b1', 'b3']});
    expect([...h.api.tornDown].sort()).toEqual(['b1', 'b3']);
    expect(h.logger.messages('warning')).toEqual([]);
  });

  test.each([500, 502, 504])(
    'assign answered %d: a warning that a builder may have been assigned and billed; nothing to tear down',
    async status => {
      const h = harness();
      h.api.onAssign('amd', httpError('assign builder', status));
      await failure(h.provision());
      expect(h.logger.messages('warning')).toEqual([
        `The assignment from profile "amd" failed with HTTP ${status}, which does not say whether a builder was assigned first; if the service processed it, a builder may be billed until its idle time-out: check the builders in the web UI`
      ]);
      expect(h.api.teardownCalls).toEqual([]);
    }
  );

  test.each([400, 404, 409, 503])('assign answered %d: the service did not assign; no warning', async status => {
    const h = harness();
    h.api.onAssign('amd', httpError('assign builder', status));
    await failure(h.provision());
    expect(h.logger.messages('warning')).toEqual([]);
  });

  test('an unreadable 2xx answer: the may-be-billed warning', async () => {
    const h = harness();
    h.api.onAssign('amd', new ApiError({call: 'assign builder', status: 200, hint: 'unexpected response: x'}));
    await failure(h.provision());
    expect(h.logger.messages('warning')).toEqual([
      'The assignment from profile "amd" got an answer that could not be read (HTTP 200); if the service processed it, a builder may be billed until its idle time-out: check the builders in the web UI'
    ]);
  });

  test('cancelled in the build-up while a teardown fails: the message names what may still be billed', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onDetails('b1', pendingDetails())
      .onDetails('b2', pendingDetails())
      .onTeardown('b2', ...Array.from({length: 40}, () => httpError('tear down builder', 401)));
    const controller = new AbortController();
    h.clock.onSleep = () => controller.abort(new CancelledError('Cancelled by SIGINT'));
    const e = await failure(h.provision({signal: controller.signal}));
    expect(e).toBeInstanceOf(CancelledError);
    expect(e.message).toBe(
      'Cancelled by SIGINT while waiting for builders to be ready; torn down: b1; NOT torn down, may still be billed: b2 (Failed to tear down builder: HTTP 401); the post step will try again, else tear them down in the web UI'
    );
  });
});

describe('BuilderLifecycle.provision: profile fallback', () => {
  test('first profile 404 → the second is used', async () => {
    const h = harness();
    h.api
      .onAssign('amd', httpError('assign builder', 404, 'no such profile'))
      .onAssign('arm', assigned('b2'))
      .onDetails('b2', readyDetails('10.0.0.2:1', {arch: 'arm64'}));
    const res = await h.provision({profiles: ['amd', 'arm']});
    expect(res).toMatchObject({profile: 'arm', builderIds: ['b2'], platforms: ['linux/arm64']});
    expect(h.api.teardownCalls).toEqual([]);
    expect(h.logger.messages('warning')).toEqual([
      'Profile "amd" gave no ready builder (Failed to assign builder: HTTP 404: no such profile); trying "arm"'
    ]);
    expect(h.state()).toMatchObject({builderIds: ['b2'], tornDownIds: [], profile: 'arm'});
  });

  test('first profile never ready → its builders torn down (recorded), the second used', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1'))
      .onAssign('arm', assigned('b2'))
      .onDetails('b1', pendingDetails())
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    const res = await h.provision({profiles: ['amd', 'arm'], timeoutMs: 1000});
    expect(res).toMatchObject({profile: 'arm', builderIds: ['b2'], buildxCreated: true});
    expect(h.api.tornDown).toEqual(['b1']);
    expect(h.events.indexOf('teardown:b1')).toBeLessThan(h.events.indexOf('assign:arm'));
    expect(h.state()).toMatchObject({
      builderIds: ['b1', 'b2'],
      tornDownIds: ['b1'],
      profile: 'arm',
      buildxCreated: true
    });
    // Each profile's assignment made the buildx builder; b1 never ready, its builder went with its teardown.
    expect(
      h.exec.argvs.map(a => [subcommand(a), a.includes('--node') ? a[a.indexOf('--node') + 1] : '', a.at(-1)])
    ).toEqual([
      ['create', 'b1', 'tcp://127.0.0.1:1'],
      ['rm', '', 'rb'],
      ['create', 'b2', 'tcp://127.0.0.1:1'],
      ['inspect', '', 'rb']
    ]);
    expect(storedNodes().map(n => n.slice(0, 2))).toEqual([['b2', 'tcp://10.0.0.2:1']]);
  });

  test('every profile failing → one error naming each', async () => {
    const h = harness();
    const last = httpError('assign builder', 503, 'overloaded');
    h.api
      .onAssign('amd', httpError('assign builder', 404))
      .onAssign('arm', assigned('b2'))
      .onAssign('big', last)
      .onDetails('b2', pendingDetails({status: 'failed'}));
    const e = await failure(h.provision({profiles: ['amd', 'arm', 'big']}));
    expect(e.message).toBe(
      'profile "amd": Failed to assign builder: HTTP 404; profile "arm": Builder b2 failed to start (status "failed"); Failed to assign builder: HTTP 503: overloaded'
    );
    expect(e.cause).toBe(last);
    expect(h.api.tornDown).toEqual(['b2']);
  });

  test('an assignment sent without an answer warns that a builder may be billed, then falls back', async () => {
    const h = harness();
    h.api
      .onAssign('amd', new ApiError({call: 'assign builder', code: 'ETIMEDOUT'}))
      .onAssign('arm', assigned('b2'))
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    await h.provision({profiles: ['amd', 'arm'], setupBuildx: false});
    expect(h.logger.messages('warning')[0]).toBe(
      'The assignment from profile "amd" was sent but got no answer (ETIMEDOUT); if the service processed it, a builder may be billed until its idle time-out: check the builders in the web UI'
    );
  });

  test('an assignment provably not sent does not warn about billing', async () => {
    const h = harness();
    h.api
      .onAssign('amd', new ApiError({call: 'assign builder', code: 'ECONNREFUSED', notSent: true}))
      .onAssign('arm', assigned('b2'))
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    await h.provision({profiles: ['amd', 'arm'], setupBuildx: false});
    expect(h.logger.messages('warning')).toEqual([
      'Profile "amd" gave no ready builder (Failed to assign builder: ECONNREFUSED); trying "arm"'
    ]);
  });

  test('each profile gets its own deadline', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1'))
      .onAssign('arm', assigned('b2'))
      .onDetails('b1', pendingDetails())
      .onDetails('b2', pendingDetails(), pendingDetails(), readyDetails('10.0.0.2:1'));
    const res = await h.provision({profiles: ['amd', 'arm'], timeoutMs: 500, setupBuildx: false});
    expect(res.timeToReadyMs).toBe(200);
  });
});

describe('BuilderLifecycle.provision: cancellation', () => {
  test('cancelled while the assignment is in flight → waits for the answer, tears the late builders down, CancelledError', async () => {
    const clock = new ManualClock();
    const h = harness({clock});
    const answer = deferred<ReturnType<typeof assigned>>();
    const sent = deferred<void>();
    h.api.onAssign('amd', () => {
      sent.resolve();
      return answer.promise;
    });
    const controller = new AbortController();
    const run = failure(h.provision({profiles: ['amd', 'arm'], signal: controller.signal}));
    await sent.promise;
    expect(h.api.assignCalls).toHaveLength(1);
    controller.abort(new CancelledError('Cancelled by SIGINT'));
    // The request itself is not cancelled: it may already be processed.
    expect(h.api.assignCalls[0]?.signal?.aborted).toBe(false);
    // The answer comes 30 ms into the 200 ms grace (the clock's time, not the machine's).
    await untilSleeping(clock);
    await clock.advance(30);
    answer.resolve(assigned('b1', 'b2'));
    const e = await run;
    expect(e).toBeInstanceOf(CancelledError);
    expect(e.message).toBe('Cancelled by SIGINT while assigning a builder from profile "amd"; torn down: b1, b2');
    expect(h.api.tornDown).toEqual(['b1', 'b2']);
    expect(h.api.detailsCalls).toEqual([]);
    expect(h.api.assignCalls.map(c => c.profile)).toEqual(['amd']);
    expect(h.state()).toMatchObject({builderIds: ['b1', 'b2'], tornDownIds: ['b1', 'b2']});
  });

  test('cancelled while the assignment is in flight and no answer within the grace → a warning, CancelledError', async () => {
    const clock = new ManualClock();
    const h = harness({inFlightGraceMs: 50, clock});
    const sent = deferred<void>();
    h.api.onAssign('amd', () => {
      sent.resolve();
      return new Promise(() => undefined);
    });
    const controller = new AbortController();
    const run = failure(h.provision({signal: controller.signal}));
    // Cancelled once the assignment is in flight, however slow the machine is to get there.
    await sent.promise;
    controller.abort(new CancelledError('Cancelled by SIGTERM'));
    await untilSleeping(clock);
    await clock.advance(49);
    expect(h.logger.messages('warning')).toEqual([]);
    await clock.advance(1);
    const e = await run;
    expect(e).toBeInstanceOf(CancelledError);
    expect(h.logger.messages('warning')).toEqual([
      'The assignment from profile "amd" did not answer within 50 ms of cancellation; if the service processed it, a builder may still be billed: check the builders in the web UI'
    ]);
    expect(h.api.assignCalls[0]?.signal?.aborted).toBe(true);
    expect(h.api.teardownCalls).toEqual([]);
  });

  test('cancelled before anything started → CancelledError, nothing assigned', async () => {
    const h = harness();
    const e = await failure(h.provision({signal: AbortSignal.abort(new CancelledError('Cancelled by SIGINT'))}));
    expect(e).toBeInstanceOf(CancelledError);
    expect(e.message).toBe('Cancelled by SIGINT before assigning from profile "amd"; nothing was assigned');
    expect(h.api.assignCalls).toEqual([]);
  });

  test('cancelled during readiness → every builder torn down, CancelledError, no fallback', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onAssign('arm', assigned('b9'))
      .onDetails('b1', pendingDetails())
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    const controller = new AbortController();
    h.clock.onSleep = (_ms, i) => {
      if (i === 2) controller.abort(new CancelledError('Cancelled by SIGINT'));
    };
    const e = await failure(h.provision({profiles: ['amd', 'arm'], signal: controller.signal}));
    expect(e).toBeInstanceOf(CancelledError);
    expect(e.message).toBe('Cancelled by SIGINT while waiting for builders to be ready; torn down: b1, b2');
    expect([...h.api.tornDown].sort()).toEqual(['b1', 'b2']);
    expect(h.api.assignCalls.map(c => c.profile)).toEqual(['amd']);
    // b2 became the node of the builder made after the assignment when its details were complete; the buildx
    // builder goes with the teardown.
    expect(h.exec.argvs.map(a => [subcommand(a), a.at(-1)])).toEqual([
      ['create', 'tcp://127.0.0.1:1'],
      ['rm', 'rb']
    ]);
    expect(h.logger.messages('info')).toContain('Set node b2 of buildx builder "rb" to tcp://10.0.0.2:1');
    expect([...h.state().tornDownIds].sort()).toEqual(['b1', 'b2']);
  });

  test('cancelled between buildx create and bootstrap → teardown and buildx rm, CancelledError', async () => {
    const h = harness();
    const controller = new AbortController();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1'));
    h.handle(c => {
      if (subcommand(c.args) === 'create') controller.abort(new CancelledError('Cancelled by SIGINT'));
      return {};
    });
    const e = await failure(h.provision({signal: controller.signal}));
    expect(e).toBeInstanceOf(CancelledError);
    expect(h.exec.argvs.map(subcommand)).toEqual(['create', 'rm']);
    expect(h.api.tornDown).toEqual(['b1']);
    expect(h.state()).toMatchObject({tornDownIds: ['b1'], buildxCreated: false});
  });
  test('cancelled while buildx create runs (the command is killed) → teardown, nothing left created', async () => {
    const h = harness();
    const controller = new AbortController();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1'));
    h.handle(c => {
      if (subcommand(c.args) !== 'create') return {};
      expect(c.opts.signal).toBe(controller.signal);
      controller.abort(new CancelledError('Cancelled by SIGINT'));
      return {exitCode: 128, killed: 'aborted'};
    });
    await expect(h.provision({profiles: ['amd', 'arm'], signal: controller.signal})).rejects.toBeInstanceOf(Error);
    expect(h.api.assignCalls.map(c => c.profile)).toEqual(['amd']);
    expect(h.api.tornDown).toEqual(['b1']);
    expect(h.state()).toMatchObject({tornDownIds: ['b1'], buildxCreated: false});
  });
});

describe('BuilderLifecycle: events', () => {
  test('phases, the assignment, each ready builder and the teardown are announced in order', async () => {
    const told: string[] = [];
    const h = harness({
      events: {
        phase: p => told.push(`phase ${p}`),
        assigned: (profile, instances) => told.push(`assigned ${profile} ${instances.map(i => i.id).join(',')}`),
        ready: (id, details) => told.push(`ready ${id} ${details.arch ?? '-'}`),
        tornDown: r => told.push(`torn down ${r.tornDown.join(',')}`)
      }
    });
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1', {arch: 'amd64'}));
    await h.provision();
    await h.lifecycle.release();
    expect(told).toEqual([
      'phase assign',
      'assigned amd b1',
      'phase readiness',
      'ready b1 amd64',
      'phase buildx setup',
      'torn down b1'
    ]);
  });
});

describe('BuilderLifecycle.release', () => {
  test('before provision → nothing to do', async () => {
    const h = harness();
    expect(await h.lifecycle.release()).toEqual({tornDown: [], alreadyGone: [], failed: []});
    expect(h.api.teardownCalls).toEqual([]);
  });

  test('after provision → tears down every builder once, then nothing is left', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', readyDetails('10.0.0.2:1'))
      .onTeardown('b2', {alreadyGone: true});
    await h.provision({setupBuildx: false});
    expect(await h.lifecycle.release()).toEqual({tornDown: ['b1'], alreadyGone: ['b2'], failed: []});
    expect(h.state().tornDownIds).toEqual(['b1', 'b2']);
    expect(await h.lifecycle.release()).toEqual({tornDown: [], alreadyGone: [], failed: []});
    expect(h.api.tornDown).toEqual(['b1', 'b2']);
  });
});

describe('BuilderLifecycle.release: client keys', () => {
  test('the certificates of each builder torn down (or already gone) are removed with it; a failed one keeps its own', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1', 'b2', 'b3'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', readyDetails('10.0.0.2:1'))
      .onDetails('b3', readyDetails('10.0.0.3:1'))
      .onTeardown('b2', {alreadyGone: true})
      .onTeardown('b3', httpError('tear down builder', 401));
    const {certDir} = await h.provision({setupBuildx: false});
    const report = await h.lifecycle.release({budgetMs: 1000, rmMs: 1000});
    expect(report.failed.map(f => f.id)).toEqual(['b3']);
    expect(existsSync(join(certDir, 'b1'))).toBe(false);
    expect(existsSync(join(certDir, 'b2'))).toBe(false);
    expect(existsSync(join(certDir, 'b3', 'key.pem'))).toBe(true);
  });
});

describe('BuilderLifecycle: the buildx builder made right after the assignment', () => {
  const PLACEHOLDER = 'tcp://127.0.0.1:1';
  const record = (): string => join(root, 'buildx', 'instances', 'rb');
  /** [subcommand, last argument] of each docker call. */
  const calls = (h: ReturnType<typeof harness>): string[][] => h.exec.argvs.map(a => [subcommand(a), a.at(-1) ?? '']);

  test('success, then release: the builder made early holds the ready node and goes with the teardown', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1'));
    await h.provision();
    expect(storedNodes().map(n => n.slice(0, 2))).toEqual([['b1', 'tcp://10.0.0.1:1']]);
    await h.lifecycle.release();
    expect(calls(h)).toEqual([
      ['create', PLACEHOLDER],
      ['inspect', 'rb'],
      ['rm', 'rb']
    ]);
    expect(existsSync(record())).toBe(false);
    expect(h.state()).toMatchObject({tornDownIds: ['b1'], buildxCreated: false});
  });

  test('its create failing fails nothing: the first ready builder creates the builder, as without it', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1'));
    h.handle(c => (c.args.at(-1) === PLACEHOLDER ? {exitCode: 1, stderr: 'ERROR: no space left on device\n'} : {}));
    const res = await h.provision();
    expect(res.buildxCreated).toBe(true);
    expect(storedNodes().map(n => n.slice(0, 2))).toEqual([['b1', 'tcp://10.0.0.1:1']]);
    expect(h.logger.messages('debug')).toContain(
      'BuildxRecord: creating the builder before any was ready failed (Failed to create buildx builder "rb" (node b1): ERROR: no space left on device); the first node creates it'
    );
    expect(h.logger.messages('warning')).toEqual([]);
    await h.lifecycle.release();
    expect(calls(h)).toEqual([
      ['create', PLACEHOLDER],
      ['create', 'tcp://10.0.0.1:1'],
      ['inspect', 'rb'],
      ['rm', 'rb']
    ]);
    expect(existsSync(record())).toBe(false);
  });

  test('cancelled while its create runs, killed after buildx saved the builder: the teardown removes it', async () => {
    const h = harness();
    const controller = new AbortController();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', pendingDetails());
    // buildx wrote the builder's record, then the command was killed (its `--use` not done).
    const buildxSaves = keepingBuildxStore(join(root, 'buildx'), () => ({}));
    h.handle(async c => {
      if (subcommand(c.args) !== 'create') return {};
      await buildxSaves(c);
      controller.abort(new CancelledError('Cancelled by SIGINT'));
      return {exitCode: 128, killed: 'aborted'};
    });
    const e = await failure(h.provision({signal: controller.signal}));
    expect(e).toBeInstanceOf(CancelledError);
    expect(calls(h)).toEqual([
      ['create', PLACEHOLDER],
      ['rm', 'rb']
    ]);
    expect(existsSync(record())).toBe(false);
    expect(h.state()).toMatchObject({tornDownIds: ['b1'], buildxCreated: false});
  });

  test('timed out with no builder ever ready: the teardown removes it', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', pendingDetails());
    const e = await failure(h.provision({timeoutMs: 1000}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(calls(h)).toEqual([
      ['create', PLACEHOLDER],
      ['rm', 'rb']
    ]);
    expect(existsSync(record())).toBe(false);
    expect(h.state()).toMatchObject({tornDownIds: ['b1'], buildxCreated: false});
  });
});

describe('nodeName', () => {
  // prettier-ignore
  test.each<[number, string, number, string]>([
    [1, 'b1', 0, 'b1'],
    [2, '3f2a9c1e-0000-4000-8000-00000000abcd', 0, 'node-3f2a9c1e-0000-4000-8000-00000000abcd'],
    [9, 'a1B2-C3', 0, 'a1b2-c3'],
    [10, '4815162342', 1, 'node-4815162342'],
    [11, '_7', 0, 'node-7'],
    [3, 'abc/def', 0, 'abc-def'],
    [4, 'builder:1.2', 1, 'builder-1.2'],
    [5, '--x', 0, 'x'],
    [6, '.hidden', 0, 'hidden'],
    [7, '@@@', 3, 'node-3'],
    [8, '', 2, 'node-2']
  ])('[%d] builder id %o (index %d) → %o', (_n, id, index, expected) => {
    expect(nodeName(id, index)).toBe(expected);
  });
});

describe('BuilderLifecycle.provision: each builder is set up the moment it is ready', () => {
  /** [subcommand, append?, node] of each docker call. */
  const calls = (h: ReturnType<typeof harness>): string[][] =>
    h.exec.argvs.map(a => [subcommand(a), a.includes('--append') ? 'append' : '', a[a.indexOf('--node') + 1] ?? '']);

  test('the builder ready first takes the placeholder node while the other is still starting; the other joins once ready', async () => {
    const clock = new ManualClock();
    const h = harness({clock});
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onDetails('b1', pendingDetails(), readyDetails('10.0.0.1:1'))
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    const run = h.provision();
    // No time passes: b1 is still starting when b2 becomes the builder's node (named after index 0 until then).
    await until(() => h.logger.messages('info').includes('Set node b2 of buildx builder "rb" to tcp://10.0.0.2:1'));
    expect(calls(h)).toEqual([['create', '', 'b1']]);
    expect(storedNodes().map(n => n.slice(0, 2))).toEqual([['b2', 'tcp://10.0.0.2:1']]);
    expect(h.api.detailsCount('b1')).toBe(1);
    expect(h.state().buildxCreated).toBe(true);
    await clock.advance(schedule.intervalMs);
    const res = await run;
    expect(calls(h)).toEqual([
      ['create', '', 'b1'],
      ['inspect', '', 'buildx']
    ]);
    expect(storedNodes().map(n => n.slice(0, 2))).toEqual([
      ['b2', 'tcp://10.0.0.2:1'],
      ['b1', 'tcp://10.0.0.1:1']
    ]);
    // Node names and the nodes' order follow the assignment, whatever order they became ready in.
    expect(res.nodes.map(n => [n.name, n.builderId])).toEqual([
      ['b1', 'b1'],
      ['b2', 'b2']
    ]);
  });

  test('a node that cannot be set up ends the wait for the others at once; every builder is torn down', async () => {
    const clock = new ManualClock();
    const h = harness({clock});
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onDetails('b1', pendingDetails())
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    h.handle(c => (subcommand(c.args) === 'create' ? {exitCode: 1, stderr: 'ERROR: invalid driver opt\n'} : {}));
    // Settles without the clock moving: b1's wait does not run to the deadline.
    const e = await failure(h.provision());
    expect(e.message).toBe('Failed to create buildx builder "rb" (node b2): ERROR: invalid driver opt');
    expect(h.api.detailsCount('b1')).toBe(1);
    expect([...h.api.tornDown].sort()).toEqual(['b1', 'b2']);
    // The early create (its node named after index 0) failed too, which alone failed nothing.
    expect(calls(h)).toEqual([
      ['create', '', 'b1'],
      ['create', '', 'b2']
    ]);
  });

  test('a builder failing while a node is being created: the create ends before the teardown, then the buildx builder is removed', async () => {
    const clock = new ManualClock();
    const h = harness({clock});
    h.api
      .onAssign('amd', assigned('b1', 'b2'))
      .onDetails('b1', readyDetails('10.0.0.1:1'))
      .onDetails('b2', pendingDetails(), pendingDetails({status: 'failed'}));
    const gate = deferred<void>();
    h.handle(async c => {
      h.events.push(`docker:${subcommand(c.args)}`);
      if (subcommand(c.args) === 'create') await gate.promise;
      return {};
    });
    const run = failure(h.provision());
    await until(() => h.exec.calls.length === 1);
    await clock.advance(schedule.intervalMs);
    // b2 has failed; the create in flight is waited for before anything is torn down.
    await until(() => h.api.detailsCount('b2') === 2);
    expect(h.api.teardownCalls).toEqual([]);
    gate.resolve();
    const e = await run;
    expect(e).toBeInstanceOf(BuilderFailedError);
    expect(calls(h).map(c => c[0])).toEqual(['create', 'rm']);
    expect([...h.api.tornDown].sort()).toEqual(['b1', 'b2']);
    expect(h.state()).toMatchObject({buildxCreated: false, tornDownIds: expect.arrayContaining(['b1', 'b2'])});
  });
});

/** Yields (no time passes) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; !done(); i++) {
    if (i > 10_000) throw new Error('until: the condition never held');
    await new Promise(resolve => setImmediate(resolve));
  }
}

/** Yields (no time passes) until something sleeps on the clock: the code under test reached its timer. */
async function untilSleeping(clock: ManualClock): Promise<void> {
  for (let i = 0; clock.pending + clock.pendingTimers === 0; i++) {
    if (i > 10_000) throw new Error('nothing slept on the clock');
    await new Promise(resolve => setImmediate(resolve));
  }
}
