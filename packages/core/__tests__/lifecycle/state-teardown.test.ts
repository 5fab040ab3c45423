// The one teardown from a builder state (main, post and `builder down`), and its limits.
import {describe, expect, test} from '@jest/globals';
import {BuildxError} from '../../src/buildx/buildx-error.js';
import {noTeardown, tearDownState, type TeardownReport} from '../../src/lifecycle/teardown.js';
import {teardownLimits} from '../../src/lifecycle/teardown-limits.js';
import {pendingBuilderIds, type BuilderState} from '../../src/state.js';
import {FakeBuilderApi, httpError} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

function state(over: Partial<BuilderState> = {}): BuilderState {
  return {
    v: 1,
    builderName: 'rb',
    builderIds: ['b1', 'b2', 'b3'],
    tornDownIds: ['b1'],
    certDir: '/tmp/certs',
    apiUrl: 'https://api.example.com',
    buildxCreated: true,
    ...over
  };
}

/** A buildx whose rm answers `rm` and records what it was asked. */
function fakeBuildx(rm: () => Promise<'removed' | 'absent'>, forgets = true) {
  const calls: string[] = [];
  return {
    calls,
    buildx: {
      rm: async (name: string, o: {timeoutMs?: number} = {}) => {
        calls.push(`rm ${name} ${o.timeoutMs}`);
        return rm();
      },
      forget: (name: string) => {
        calls.push(`forget ${name}`);
        return forgets;
      }
    }
  };
}

const LIMITS = {budgetMs: 1000, rmMs: 700};

describe('pendingBuilderIds', () => {
  test('the ids assigned and not torn down, in assignment order; none without a state', () => {
    expect(pendingBuilderIds(state())).toEqual(['b2', 'b3']);
    expect(pendingBuilderIds(state({tornDownIds: ['b3', 'b2', 'b1']}))).toEqual([]);
    expect(pendingBuilderIds(undefined)).toEqual([]);
  });
});

describe('tearDownState', () => {
  test('tears down only the pending builders and removes the buildx builder; the state records both', async () => {
    const api = new FakeBuilderApi().onTeardown('b3', {alreadyGone: true});
    const b = fakeBuildx(async () => 'removed');
    const s = state();
    const saves: string[] = [];
    const told: TeardownReport[] = [];
    const out = await tearDownState(s, {
      api: () => api,
      buildx: b.buildx,
      logger: new RecordingLogger(),
      clock: new FakeClock(),
      limits: LIMITS,
      save: () => saves.push(JSON.stringify({ids: s.tornDownIds, buildx: s.buildxCreated})),
      onTornDown: r => void told.push(r)
    });
    expect(out).toEqual({report: {tornDown: ['b2'], alreadyGone: ['b3'], failed: []}, buildx: 'removed'});
    expect(api.tornDown).toEqual(['b2', 'b3']);
    expect(b.calls).toEqual(['rm rb 700']);
    expect(s).toMatchObject({tornDownIds: ['b1', 'b2', 'b3'], buildxCreated: false});
    expect(told).toEqual([{tornDown: ['b2'], alreadyGone: ['b3'], failed: []}]);
    // Saved once the ids are recorded and once the buildx builder is gone (in either order).
    expect(saves).toHaveLength(2);
    expect(saves.at(-1)).toBe(JSON.stringify({ids: ['b1', 'b2', 'b3'], buildx: false}));
  });

  test('a client that cannot be made fails every pending builder with its message, and asks nothing', async () => {
    const s = state({buildxCreated: false});
    const out = await tearDownState(s, {
      api: () => {
        throw new Error('api-key is required');
      },
      buildx: fakeBuildx(async () => 'removed').buildx,
      logger: new RecordingLogger(),
      limits: LIMITS
    });
    expect(out).toEqual({
      report: {
        tornDown: [],
        alreadyGone: [],
        failed: [
          {id: 'b2', error: 'api-key is required'},
          {id: 'b3', error: 'api-key is required'}
        ]
      },
      buildx: 'none'
    });
    expect(s.tornDownIds).toEqual(['b1']);
  });

  test('an rm that stalls forgets the builder instead; any other failure is warned about and kept', async () => {
    const logger = new RecordingLogger();
    const stalled = fakeBuildx(async () => {
      throw new BuildxError('Failed to remove buildx builder "rb": no answer within 700 ms', {timedOut: true});
    });
    const s = state({tornDownIds: ['b1', 'b2', 'b3']});
    const out = await tearDownState(s, {
      api: () => new FakeBuilderApi(),
      buildx: stalled.buildx,
      logger,
      limits: LIMITS
    });
    expect(out).toEqual({report: noTeardown(), buildx: 'forgotten'});
    expect(stalled.calls).toEqual(['rm rb 700', 'forget rb']);
    expect(logger.messages('info')).toEqual([
      'buildx rm "rb" stalled; removed its record from buildx\'s store instead'
    ]);
    expect(s.buildxCreated).toBe(false);

    const failing = fakeBuildx(async () => {
      throw new BuildxError('Failed to remove buildx builder "rb": permission denied');
    });
    const kept = state({tornDownIds: ['b1', 'b2', 'b3']});
    const warned = new RecordingLogger();
    const res = await tearDownState(kept, {
      api: () => new FakeBuilderApi(),
      buildx: failing.buildx,
      logger: warned,
      limits: LIMITS
    });
    expect(res.buildx).toBe('failed');
    expect(failing.calls).toEqual(['rm rb 700']);
    expect(warned.messages('warning')).toEqual(['Failed to remove buildx builder "rb": permission denied']);
    expect(kept.buildxCreated).toBe(true);
  });

  test('what the caller refuses is left alone: no request, no rm', async () => {
    const api = new FakeBuilderApi();
    const b = fakeBuildx(async () => 'removed');
    const s = state();
    const out = await tearDownState(s, {
      api: () => api,
      buildx: b.buildx,
      logger: new RecordingLogger(),
      limits: LIMITS,
      builders: false,
      buildxBuilder: false
    });
    expect(out).toEqual({report: noTeardown(), buildx: 'none'});
    expect(api.teardownCalls).toEqual([]);
    expect(b.calls).toEqual([]);
    expect(s).toMatchObject({tornDownIds: ['b1'], buildxCreated: true});
  });

  test('a failed teardown request is reported, not recorded as torn down', async () => {
    const api = new FakeBuilderApi().onTeardown('b2', httpError('tear down builder', 401));
    const s = state({buildxCreated: false});
    const out = await tearDownState(s, {
      api: () => api,
      buildx: fakeBuildx(async () => 'absent').buildx,
      logger: new RecordingLogger(),
      clock: new FakeClock(),
      limits: LIMITS
    });
    expect(out.report.tornDown).toEqual(['b3']);
    expect(out.report.failed.map(f => f.id)).toEqual(['b2']);
    expect(s.tornDownIds).toEqual(['b1', 'b3']);
  });
});

describe('teardownLimits', () => {
  test('one set of limits: main 15 s, post 30 s, cancelled 5 s; buildx rm 5 s, cancelled what docker leaves', () => {
    expect(teardownLimits('main', {})).toEqual({budgetMs: 15000, rmMs: 5000});
    expect(teardownLimits('post', {})).toEqual({budgetMs: 30000, rmMs: 5000});
    // 5 s less docker's kill grace (2 s) and the pipes' drain (150 ms).
    expect(teardownLimits('cancelled', {})).toEqual({budgetMs: 5000, rmMs: 2850});
  });

  test('REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS sets the budget of main and post, not of a cancelled step', () => {
    const env = {REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS: '4000'};
    expect(teardownLimits('main', env).budgetMs).toBe(4000);
    expect(teardownLimits('post', env).budgetMs).toBe(4000);
    expect(teardownLimits('cancelled', env).budgetMs).toBe(5000);
    expect(() => teardownLimits('post', {REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS: '10'})).toThrow(
      'REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS'
    );
  });
});
