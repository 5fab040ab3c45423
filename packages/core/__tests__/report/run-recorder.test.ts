import {describe, expect, test} from '@jest/globals';
import {renderRunReport} from '../../src/report/run-report.js';
import {closeRun, loadRun, RESULT_LIST_CAP, RunRecorder} from '../../src/report/run-recorder.js';
import {MemoryStateStore, State} from '../../src/state.js';
import {readyDetails} from '../fakes/fake-builder-api.js';
import {TEST_PEMS} from '../fakes/pems.js';

function recorder(over: Partial<ConstructorParameters<typeof RunRecorder>[0]> = {}) {
  const state = new MemoryStateStore();
  let t = Date.UTC(2026, 10, 23, 12, 0, 0);
  const tick = (ms: number): void => {
    t += ms;
  };
  const r = new RunRecorder({action: 'build-push', state, summary: true, now: () => t, ...over});
  return {state, r, tick, now: () => t};
}

describe('RunRecorder', () => {
  test('saves nothing until something happens (bad input fails before: post reports nothing)', () => {
    const {state} = recorder();
    expect(state.get(State.Run)).toBe('');
    expect(loadRun(state)).toBeUndefined();
  });

  test('records billing from assignment to teardown, the arch and size the service reported, and the attempts', () => {
    const {state, r, tick} = recorder({sizeHint: '16x32'});
    r.phase('assign');
    r.assigned('fast', [{id: 'b1'}, {id: 'b2', size: '32x64'} as {id: string}]);
    tick(4000);
    r.ready('b1', readyDetails('10.0.0.1:1', {arch: 'amd64'}));
    r.ready('b2', readyDetails('10.0.0.2:1', {arch: 'amd64,arm64'}));
    r.attempt({n: 1, builderIds: ['b1', 'b2'], outcome: 'success', buildMs: 60_000});
    tick(61_000);
    r.tornDown({tornDown: ['b1'], alreadyGone: ['b2'], failed: []});
    r.finish('success');
    const run = loadRun(state);
    expect(run).toMatchObject({
      action: 'build-push',
      outcome: 'success',
      summary: true,
      builders: [
        {
          id: 'b1',
          profile: 'fast',
          size: '16x32',
          arch: 'amd64',
          multiArch: false,
          buildMs: 60_000,
          teardown: 'torn-down'
        },
        {id: 'b2', profile: 'fast', size: '32x64', arch: 'amd64,arm64', multiArch: true, teardown: 'already-gone'}
      ]
    });
    expect(run?.phase).toBeUndefined();
    const b1 = run?.builders[0];
    expect((b1?.tornDownAt ?? 0) - (b1?.assignedAt ?? 0)).toBe(65_000);
  });

  test('billing counts from the assignment request when known: never under-reported', () => {
    const {state, r, now} = recorder();
    const requestedAt = now() - 700;
    r.assigned('p', [{id: 'b1'}], requestedAt);
    expect(loadRun(state)?.builders[0]?.assignedAt).toBe(requestedAt);
  });

  test('never saves a client key or the API key, even when an error quotes them', () => {
    const {state, r} = recorder({secrets: ['rb_api_key_123456']});
    r.assigned('p', [{id: 'b1'}]);
    r.ready('b1', readyDetails('10.0.0.1:1'));
    const keyLine = TEST_PEMS.key.split('\n')[1] as string;
    r.finish('failure', new Error(`boom rb_api_key_123456\nthe key was ${keyLine}\nlast line`));
    const raw = state.get(State.Run);
    expect(raw).not.toContain('rb_api_key_123456');
    expect(raw).not.toContain(keyLine);
    expect(raw).not.toContain('PRIVATE KEY');
    expect(loadRun(state)?.errorTail).toEqual(['boom ***', 'the key was ***', 'last line']);
  });

  test('a main killed mid-build: post reports it cancelled in its phase, still billed builders torn down by post', () => {
    const {state, r, tick, now} = recorder();
    r.assigned('p', [{id: 'b1'}]);
    r.phase('build');
    tick(10_000);
    const run = loadRun(state);
    expect(run).toBeDefined();
    const closed = closeRun(run!, {tornDown: ['b1'], alreadyGone: [], failed: []}, now());
    expect(closed).toMatchObject({outcome: 'cancelled', phase: 'build', builders: [{id: 'b1', teardown: 'torn-down'}]});
    expect(closed).not.toHaveProperty('summary');
    expect(renderRunReport(closed)).toMatch(/Cancelled.*in phase `build`/);
  });

  test('a teardown post could not do: the report flags the builder as still billed', () => {
    const {state, r, now} = recorder();
    r.assigned('p', [{id: 'b1'}]);
    r.finish('failure', new Error('x'));
    const closed = closeRun(
      loadRun(state)!,
      {tornDown: [], alreadyGone: [], failed: [{id: 'b1', error: 'HTTP 500'}]},
      now()
    );
    expect(closed.builders[0]?.teardown).toBe('failed');
    expect(renderRunReport(closed)).toMatch(/b1/);
  });

  test("setup (start → build, and each retry's replacement) apart from build and push time (summed over attempts)", () => {
    const {state, r, tick} = recorder();
    tick(10_000);
    r.phase('build');
    tick(30_000);
    r.attempt({n: 1, builderIds: [], outcome: 'infrastructure', buildMs: 30_000});
    tick(5_000);
    r.phase('build');
    tick(20_000);
    r.attempt({n: 2, builderIds: [], outcome: 'success', buildMs: 20_000});
    r.finish('success');
    expect(loadRun(state)?.timing).toEqual({setupMs: 15_000, buildMs: 50_000});
  });

  test('configure: setUp ends the setup once; a build outside the attempts adds its time', () => {
    const {state, r, tick} = recorder({action: 'configure'});
    tick(8_000);
    r.setUp();
    tick(1_000);
    r.setUp();
    r.built(2_000);
    expect(loadRun(state)?.timing).toEqual({setupMs: 8_000, buildMs: 2_000});
  });

  test('the result is saved with tags and targets cut at RESULT_LIST_CAP and the rest counted', () => {
    const {state, r} = recorder();
    const tags = Array.from({length: RESULT_LIST_CAP + 2}, (_, i) => `u/a:${i}`);
    r.result({builder: 'b', image: {digest: 'sha256:d', tags}});
    expect(loadRun(state)?.result).toEqual({
      builder: 'b',
      image: {digest: 'sha256:d', tags: tags.slice(0, RESULT_LIST_CAP), moreTags: 2}
    });
    const targets = Array.from({length: RESULT_LIST_CAP + 1}, (_, i) => ({name: `t${i}`, platforms: []}));
    r.result({targets});
    expect(loadRun(state)?.result).toEqual({targets: targets.slice(0, RESULT_LIST_CAP), moreTargets: 1});
  });

  test('an unreadable saved record is ignored', () => {
    const state = new MemoryStateStore();
    state.save(State.Run, '{not json');
    expect(loadRun(state)).toBeUndefined();
    state.save(State.Run, '{"action":"bake"}');
    expect(loadRun(state)).toBeUndefined();
  });
});
