import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm, stat} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {createCertDir, writeBuilderCerts} from '../../src/certs/cert-store.js';
import {InputError} from '../../src/errors.js';
import {postCleanup, type PostCleanupOpts} from '../../src/provisioning/post-cleanup.js';
import {loadBuilderState, MemoryStateStore, saveBuilderState, State, type BuilderState} from '../../src/state.js';
import {FakeBuilderApi, hangUntilAborted, httpError} from '../fakes/fake-builder-api.js';
import {FakeExec, subcommand} from '../fakes/fake-exec.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {TEST_PEMS} from '../fakes/pems.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'post-cleanup-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

interface Harness {
  api: FakeBuilderApi;
  exec: FakeExec;
  logger: RecordingLogger;
  store: MemoryStateStore;
  apiUrls: string[];
  opts: PostCleanupOpts;
}

function harness(state: BuilderState | string | undefined, over: Partial<PostCleanupOpts> = {}): Harness {
  const api = new FakeBuilderApi();
  const exec = new FakeExec();
  const logger = new RecordingLogger();
  const store = new MemoryStateStore();
  if (typeof state === 'string') store.save(State.Builder, state);
  else if (state) saveBuilderState(store, state);
  const apiUrls: string[] = [];
  const opts: PostCleanupOpts = {
    logger,
    state: store,
    // A failed rm makes Buildx forget the builder's local state: never in ~/.docker.
    buildx: new Buildx({exec, logger, env: {BUILDX_CONFIG: join(tmpdir(), `rb-test-buildx-${process.pid}`)}}),
    makeApi: url => {
      apiUrls.push(url);
      return api;
    },
    ...over
  };
  return {api, exec, logger, store, apiUrls, opts};
}

async function stateWithCerts(over: Partial<BuilderState> = {}): Promise<BuilderState> {
  const certDir = await createCertDir(root);
  writeBuilderCerts(certDir, 'b1', {ca: TEST_PEMS.ca, cert: TEST_PEMS.cert, key: TEST_PEMS.key});
  return {
    v: 1,
    builderName: 'rb',
    builderIds: ['b0', 'b1', 'b2'],
    tornDownIds: ['b0'],
    certDir,
    apiUrl: 'https://api.example.com',
    profile: 'amd',
    buildxCreated: true,
    ...over
  };
}

const exists = async (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false
  );

describe('postCleanup', () => {
  test('no state → nothing to do', async () => {
    const h = harness(undefined);
    expect(await postCleanup(h.opts)).toEqual({
      hadState: false,
      teardown: {tornDown: [], alreadyGone: [], failed: []},
      maybeBilled: []
    });
    expect(h.logger.messages('info')).toEqual(['Nothing to clean up: main assigned no builder.']);
    expect(h.logger.messages('warning')).toEqual([]);
    expect(h.exec.calls).toEqual([]);
    expect(h.apiUrls).toEqual([]);
  });

  test('unreadable state → a warning, nothing done', async () => {
    const h = harness('{not json');
    expect(await postCleanup(h.opts)).toEqual({
      hadState: false,
      teardown: {tornDown: [], alreadyGone: [], failed: []},
      maybeBilled: []
    });
    expect(h.logger.messages('warning')).toEqual([
      'Cannot read the state main saved (the saved state "builder" is not JSON); nothing can be cleaned up from here'
    ]);
    expect(h.exec.calls).toEqual([]);
    expect(h.apiUrls).toEqual([]);
  });

  test('full cleanup: buildx rm, certificates removed, pending builders torn down, state updated', async () => {
    const state = await stateWithCerts();
    const h = harness(state);
    const res = await postCleanup(h.opts);
    expect(res).toEqual({
      hadState: true,
      teardown: {tornDown: ['b1', 'b2'], alreadyGone: [], failed: []},
      maybeBilled: []
    });
    // No `buildx inspect` first: it stalls 20 s on an endpoint that accepts TCP but never answers.
    expect(h.exec.argvs).toEqual([['buildx', 'rm', 'rb']]);
    expect(h.exec.calls.map(c => c.opts.timeoutMs)).toEqual([5000]);
    expect(await exists(state.certDir)).toBe(false);
    expect(h.apiUrls).toEqual(['https://api.example.com']);
    expect(h.api.tornDown).toEqual(['b1', 'b2']);
    expect(loadBuilderState(h.store)?.tornDownIds).toEqual(['b0', 'b1', 'b2']);
    expect(h.logger.groups).toEqual(['Removing buildx builder "rb" and b1, b2']);
    expect([...h.logger.messages('info')].sort()).toEqual(
      ['Removed buildx builder "rb"', `Removed ${state.certDir}`, 'Builder b1 torn down', 'Builder b2 torn down'].sort()
    );
    expect(h.logger.messages('warning')).toEqual([]);
  });

  test('rmTimeoutMs bounds rm', async () => {
    const h = harness(await stateWithCerts(), {limits: {budgetMs: 30000, rmMs: 1234}});
    await postCleanup(h.opts);
    expect(h.exec.calls.map(c => c.opts.timeoutMs)).toEqual([1234]);
  });

  test('buildx builder already gone → said, no warning', async () => {
    const h = harness(await stateWithCerts());
    h.exec.handler = c => (subcommand(c.args) === 'rm' ? {exitCode: 1, stderr: 'ERROR: no builder "rb" found'} : {});
    await postCleanup(h.opts);
    expect(h.exec.argvs).toEqual([['buildx', 'rm', 'rb']]);
    expect(h.logger.messages('info')).toContain('buildx builder "rb" is already gone');
    expect(h.logger.messages('warning')).toEqual([]);
  });

  test('a stalled buildx rm falls back to forgetting the record; teardown is not held up', async () => {
    const h = harness(await stateWithCerts());
    h.exec.handler = c => (subcommand(c.args) === 'rm' ? {exitCode: 143, killed: 'timeout'} : {});
    const forgotten: string[] = [];
    h.opts.buildx.forget = (name: string) => {
      forgotten.push(name);
      return true;
    };
    const res = await postCleanup(h.opts);
    expect(forgotten).toEqual(['rb']);
    expect(h.logger.messages('info')).toContain(
      'buildx rm "rb" stalled; removed its record from buildx\'s store instead'
    );
    expect(res.teardown.tornDown).toEqual(['b1', 'b2']);
    expect(h.logger.messages('warning')).toEqual([]);
  });

  test('buildx never created → no docker call at all', async () => {
    const h = harness(await stateWithCerts({buildxCreated: false}));
    const res = await postCleanup(h.opts);
    expect(h.exec.calls).toEqual([]);
    expect(res.teardown.tornDown).toEqual(['b1', 'b2']);
  });

  test('a failing buildx rm only warns; the rest still runs', async () => {
    const state = await stateWithCerts();
    const h = harness(state);
    h.exec.handler = c => (subcommand(c.args) === 'rm' ? {exitCode: 1, stderr: 'ERROR: permission denied\n'} : {});
    const res = await postCleanup(h.opts);
    expect(h.logger.messages('warning')).toEqual(['Failed to remove buildx builder "rb": ERROR: permission denied']);
    expect(res).toEqual({
      hadState: true,
      teardown: {tornDown: ['b1', 'b2'], alreadyGone: [], failed: []},
      maybeBilled: []
    });
    expect(await exists(state.certDir)).toBe(false);
  });

  test('docker itself failing to run only warns', async () => {
    const h = harness(await stateWithCerts());
    h.exec.handler = () => Promise.reject(new Error('spawn docker EACCES'));
    const res = await postCleanup(h.opts);
    expect(h.logger.messages('warning')).toEqual(['spawn docker EACCES']);
    expect(res.teardown.tornDown).toEqual(['b1', 'b2']);
  });

  test('no cert dir recorded → no removal attempted', async () => {
    const h = harness(await stateWithCerts({certDir: ''}));
    await postCleanup(h.opts);
    expect(h.logger.groups).toEqual(['Removing buildx builder "rb" and b1, b2']);
    expect(h.logger.messages('info').some(m => m.startsWith('Removed /'))).toBe(false);
  });

  test('an already removed cert dir is fine', async () => {
    const state = await stateWithCerts();
    await rm(state.certDir, {recursive: true});
    const h = harness(state);
    await postCleanup(h.opts);
    expect(h.logger.messages('warning')).toEqual([]);
  });

  test('every builder already torn down by main → no API client made', async () => {
    const h = harness(await stateWithCerts({builderIds: ['b1', 'b2'], tornDownIds: ['b2', 'b1']}));
    expect(await postCleanup(h.opts)).toEqual({
      hadState: true,
      teardown: {tornDown: [], alreadyGone: [], failed: []},
      maybeBilled: []
    });
    expect(h.apiUrls).toEqual([]);
    expect(h.logger.messages('info')).toContain('Every builder was already torn down by main.');
  });

  test('no builder assigned → says so, no API client made', async () => {
    const h = harness(await stateWithCerts({builderIds: [], tornDownIds: [], buildxCreated: false}));
    await postCleanup(h.opts);
    expect(h.apiUrls).toEqual([]);
    expect(h.logger.messages('info')).toContain('No builder was assigned.');
  });

  test('404 counts as gone and is recorded as torn down', async () => {
    const h = harness(await stateWithCerts());
    h.api.onTeardown('b2', {alreadyGone: true});
    const res = await postCleanup(h.opts);
    expect(res.teardown).toEqual({tornDown: ['b1'], alreadyGone: ['b2'], failed: []});
    expect(loadBuilderState(h.store)?.tornDownIds).toEqual(['b0', 'b1', 'b2']);
  });

  test('makeApi throwing (no credentials) → every pending id reported as maybe billed, loudly', async () => {
    const h = harness(await stateWithCerts(), {
      makeApi: () => {
        throw new InputError('api-key', "is required outside the service's own runners");
      }
    });
    const res = await postCleanup(h.opts);
    const why = 'Input "api-key": is required outside the service\'s own runners';
    expect(res).toEqual({
      hadState: true,
      teardown: {
        tornDown: [],
        alreadyGone: [],
        failed: [
          {id: 'b1', error: why},
          {id: 'b2', error: why}
        ]
      },
      maybeBilled: ['b1', 'b2']
    });
    expect(h.logger.messages('warning')).toEqual([
      `Builder b1 could not be torn down and MAY STILL BE BILLED: ${why}. Tear it down in the web UI (builders of profile "amd").`,
      `Builder b2 could not be torn down and MAY STILL BE BILLED: ${why}. Tear it down in the web UI (builders of profile "amd").`
    ]);
    expect(loadBuilderState(h.store)?.tornDownIds).toEqual(['b0']);
  });

  test('teardown failing → maybe billed, profile unknown when the state has none', async () => {
    const {profile: _p, ...noProfile} = await stateWithCerts({builderIds: ['b1'], tornDownIds: []});
    const clock = new FakeClock();
    const h = harness(noProfile, {limits: {budgetMs: 100, rmMs: 5000}, clock});
    // The second round hangs until the budget, on the injected clock, cuts it.
    h.api.onTeardown('b1', httpError('tear down builder', 503, 'busy'), arg => {
      const hung = hangUntilAborted<{alreadyGone: boolean}>(arg);
      clock.advance(100);
      return hung;
    });
    const res = await postCleanup(h.opts);
    expect(res.maybeBilled).toEqual(['b1']);
    // No time for a pause: one last immediate round, cut by the budget; both answers are reported.
    const error = 'Failed to tear down builder: HTTP 503: busy; then no answer within the teardown budget of 100 ms';
    expect(res.teardown.failed).toEqual([{id: 'b1', error}]);
    expect(h.api.tornDown).toEqual(['b1', 'b1']);
    expect(h.logger.messages('warning')).toEqual([
      `Builder b1 could not be torn down and MAY STILL BE BILLED: ${error}. Tear it down in the web UI (builders of profile "unknown").`
    ]);
  });

  test('running post twice is safe: the second run has nothing left to tear down', async () => {
    const h = harness(await stateWithCerts());
    await postCleanup(h.opts);
    const second = await postCleanup(h.opts);
    expect(second).toEqual({hadState: true, teardown: {tornDown: [], alreadyGone: [], failed: []}, maybeBilled: []});
    expect(h.api.tornDown).toEqual(['b1', 'b2']);
  });

  test('never throws', async () => {
    const h = harness(await stateWithCerts());
    h.exec.handler = () => {
      throw new Error('sync boom');
    };
    h.api.onTeardown('b1', new Error('x'), new Error('y'), new Error('z'));
    await expect(postCleanup({...h.opts, limits: {budgetMs: 100, rmMs: 5000}})).resolves.toMatchObject({
      hadState: true,
      maybeBilled: ['b1']
    });
  });
});
