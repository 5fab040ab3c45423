import {describe, expect, test} from '@jest/globals';
import {BUILDER_BEHAVIOURS, BUILDER_FRONTS, FaultInjector, isBuilderFront, parseFaultRule} from '../src/faults.js';

describe('parseFaultRule', () => {
  test('keeps only known fields', () => {
    expect(parseFaultRule({route: 'assign', status: 503, extra: 1})).toEqual({route: 'assign', status: 503});
    expect(parseFaultRule({route: 'builder', behaviour: 'fail-after-ms', afterMs: 10, status: 1})).toEqual({
      route: 'builder',
      behaviour: 'fail-after-ms',
      afterMs: 10
    });
  });

  test.each<[number, unknown, RegExp]>([
    [1, null, /JSON object/],
    [2, {route: 'nope'}, /"route"/],
    [3, {route: 'assign', status: 42}, /"status"/],
    [4, {route: 'assign', action: 'explode'}, /"action"/],
    [5, {route: 'assign', times: 0}, /"times"/],
    [6, {route: 'assign', headers: {a: 1}}, /"headers"/],
    [7, {route: 'details', delayMs: -5}, /"delayMs"/],
    [8, {route: 'builder', behaviour: 'melt'}, /"behaviour"/],
    [9, {route: 'builder', behaviour: 'fail', afterMs: 'soon'}, /"afterMs"/],
    [10, {route: 'builder', behaviour: 'close-idle', idleMs: 0}, /"idleMs" must be a positive number/],
    [11, {route: 'builder', behaviour: 'close-idle', idleMs: '1s'}, /"idleMs"/]
  ])('%d: rejects %j', (_n, input, message) => {
    expect(() => parseFaultRule(input)).toThrow(message);
  });
});

test.each([
  'keep-open',
  'close-after-handshake',
  'reset-after-handshake',
  'close-idle',
  'refuse-client-cert',
  'wrong-server-cert',
  'never-answer'
])('the TLS front %s is a builder behaviour', front => {
  expect(BUILDER_FRONTS).toContain(front);
  expect(BUILDER_BEHAVIOURS).toContain(front);
  expect(isBuilderFront(front)).toBe(true);
  expect(parseFaultRule({route: 'builder', behaviour: front, idleMs: 30})).toEqual({
    route: 'builder',
    behaviour: front,
    idleMs: 30
  });
});

test('lifecycle and metadata behaviours are no fronts', () => {
  expect(isBuilderFront('tls-wrong-ca')).toBe(false);
  expect(isBuilderFront('never-ready')).toBe(false);
});

describe('FaultInjector', () => {
  test('the first matching rule with uses left applies, then expires', () => {
    const faults = new FaultInjector();
    const once = faults.add({route: 'assign', status: 503, times: 1});
    const always = faults.add({route: 'any', status: 500});
    expect(faults.takeApiFault({route: 'assign'})?.id).toBe(once);
    expect(faults.takeApiFault({route: 'assign'})?.id).toBe(always);
    expect(faults.list().map(f => f.id)).toEqual([always]);
    expect(faults.list()[0]?.remaining).toBeNull();
  });

  test('builderId and profile filters', () => {
    const faults = new FaultInjector();
    const byBuilder = faults.add({route: 'details', builderId: 'bld_1', status: 500});
    const byProfile = faults.add({route: 'teardown', profile: 'p', action: 'reset'});
    expect(faults.takeApiFault({route: 'details', builderId: 'bld_2'})).toBeUndefined();
    expect(faults.takeApiFault({route: 'details', builderId: 'bld_1'})?.id).toBe(byBuilder);
    expect(faults.takeApiFault({route: 'teardown', profile: 'q'})).toBeUndefined();
    expect(faults.takeApiFault({route: 'teardown', profile: 'p'})?.id).toBe(byProfile);
  });

  test('builder rules are taken per builder and never match API requests', () => {
    const faults = new FaultInjector();
    const id = faults.add({route: 'builder', behaviour: 'never-ready', profile: 'p', times: 2});
    expect(faults.takeApiFault({route: 'assign', profile: 'p'})).toBeUndefined();
    expect(faults.takeBuilderFault('q')).toBeUndefined();
    expect(faults.takeBuilderFault('p')?.id).toBe(id);
    expect(faults.takeBuilderFault('p')?.id).toBe(id);
    expect(faults.takeBuilderFault('p')).toBeUndefined();
  });

  test('remove and clear', () => {
    const faults = new FaultInjector();
    const id = faults.add({route: 'profiles', status: 500});
    faults.add({route: 'profiles', status: 502});
    expect(faults.remove(id)).toBe(true);
    expect(faults.remove(id)).toBe(false);
    faults.clear();
    expect(faults.list()).toEqual([]);
  });
});
