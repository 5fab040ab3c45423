import {describe, expect, test} from '@jest/globals';
import {Builder, type BuilderOpts} from '../src/builder.js';
import type {BuilderEndpoint} from '../src/builder-endpoint.js';
import {ManualClock} from '../src/clock.js';
import {Ledger} from '../src/ledger.js';
import {resolveProfile} from '../src/profiles.js';

const METADATA = {host: '127.0.0.1:1', ca: 'CA', client_cert: 'CERT', client_key: 'KEY'};

function make(overrides: Partial<BuilderOpts> & {readyDelayMs?: number} = {}) {
  const clock = new ManualClock({now: 1_000_000});
  const ledger = new Ledger({clock});
  const builder = new Builder({
    id: 'bld_1',
    profile: resolveProfile({name: 'p', readyDelayMs: overrides.readyDelayMs ?? 100}),
    arch: 'amd64',
    clock,
    ledger,
    idleTimeoutMs: 10_000,
    readyMetadata: METADATA,
    ...overrides
  });
  return {clock, ledger, builder, entry: () => ledger.entries()[0]};
}

describe('Builder', () => {
  test('is pending with empty metadata, then ready after the profile delay', () => {
    const {clock, builder, entry} = make();
    expect(builder.details()).toEqual({
      id: 'bld_1',
      status: 'pending',
      arch: 'amd64',
      profile_name: 'p',
      metadata: {host: '', ca: '', client_cert: '', client_key: ''}
    });
    clock.advance(99);
    expect(builder.status).toBe('pending');
    clock.advance(1);
    expect(builder.details()).toMatchObject({status: 'ready', metadata: METADATA});
    expect(entry()?.readyAt).toBe(1_000_100);
  });

  test('readiness counts from the assignment time', () => {
    const {builder} = make({assignedAt: 1_000_000 - 100});
    expect(builder.status).toBe('ready');
  });

  test("'never-ready' stays pending until markReady", () => {
    const {clock, builder} = make({behaviour: 'never-ready'});
    clock.advance(5000);
    expect(builder.status).toBe('pending');
    builder.markReady();
    expect(builder.status).toBe('ready');
  });

  test("'fail' fails instead of becoming ready", () => {
    const {clock, builder, entry} = make({behaviour: 'fail'});
    clock.advance(100);
    expect(builder.details()).toMatchObject({status: 'failed', metadata: {host: '', ca: ''}});
    expect(entry()).toMatchObject({failedAt: 1_000_100});
    expect(entry()?.readyAt).toBeUndefined();
    expect(() => builder.markReady()).toThrow(/failed/);
  });

  test("'fail-after-ms' is ready, then fails", () => {
    const {clock, builder} = make({behaviour: 'fail-after-ms', failAfterMs: 50});
    clock.advance(100);
    expect(builder.status).toBe('ready');
    clock.advance(50);
    expect(builder.status).toBe('failed');
  });

  test('terminates itself after the idle time-out; API activity restarts it', async () => {
    const {clock, builder, entry} = make();
    clock.advance(9_000);
    builder.touch();
    clock.advance(9_000);
    expect(builder.status).toBe('ready');
    clock.advance(1_000);
    expect(builder.status).toBe('terminated');
    expect(entry()).toMatchObject({terminatedAt: 1_019_000, reason: 'idle-timeout', billedMs: 19_000});
  });

  test('open connections hold off the idle time-out', () => {
    const {clock, builder} = make();
    builder.connectionsChanged(1);
    clock.advance(60_000);
    expect(builder.status).toBe('ready');
    builder.connectionsChanged(0);
    clock.advance(10_000);
    expect(builder.status).toBe('terminated');
  });

  test('a non-positive idle time-out disables it', () => {
    const {clock, builder} = make({idleTimeoutMs: 0});
    clock.advance(10 * 60 * 60_000);
    expect(builder.status).toBe('ready');
    expect(clock.pendingTimers()).toBe(0);
  });

  test('terminate is idempotent, stops timers and blocks further transitions', async () => {
    const {clock, builder, entry} = make();
    await builder.terminate('teardown');
    await builder.terminate('emulator-shutdown');
    expect(entry()).toMatchObject({reason: 'teardown'});
    expect(clock.pendingTimers()).toBe(0);
    expect(builder.details()).toMatchObject({status: 'terminated', metadata: {host: ''}});
    expect(() => builder.markFailed()).toThrow(/terminated/);
  });
});

describe('Builder.setEndpointMode', () => {
  test('passes the mode to the listener while the builder lives; the status does not change', () => {
    const modes: string[] = [];
    const endpoint = {
      setMode: (m: string) => modes.push(m),
      close: async () => undefined
    } as unknown as BuilderEndpoint;
    const {clock, builder} = make({endpoint});
    clock.advance(100);
    builder.setEndpointMode('silent');
    builder.setEndpointMode('kill');
    expect(modes).toEqual(['silent', 'kill']);
    expect(builder.status).toBe('ready');
  });

  test('throws without a listener, and once failed or terminated', async () => {
    expect(() => make().builder.setEndpointMode('silent')).toThrow(
      'Builder bld_1 has no listener (its host is a closed port)'
    );
    const endpoint = {setMode: () => undefined, close: async () => undefined} as unknown as BuilderEndpoint;
    const failed = make({endpoint}).builder;
    failed.markFailed();
    expect(() => failed.setEndpointMode('kill')).toThrow('Builder bld_1 is failed; its listener is closed');
    const gone = make({endpoint}).builder;
    await gone.terminate('teardown');
    expect(() => gone.setEndpointMode('normal')).toThrow('Builder bld_1 is terminated; its listener is closed');
  });
});
