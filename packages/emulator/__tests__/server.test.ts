import {afterAll, afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import http from 'node:http';
import {ManualClock} from '../src/clock.js';
import {Emulator} from '../src/emulator.js';
import {assign, call, details, handshakeWith, KEY, waitFor} from './support.js';

let emu: Emulator;

beforeAll(async () => {
  emu = await Emulator.start({profiles: [{name: 'p'}, {name: 'q'}]});
});
afterAll(() => emu.close());
afterEach(() => emu.reset());

/** A raw request that reports a reset instead of throwing. */
function rawRequest(
  target: Emulator,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 2000
): Promise<{status: number; body: string} | {error: string}> {
  return new Promise(resolve => {
    const url = new URL(path, target.url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent: false,
        headers: {
          Authorization: `Bearer ${KEY}`,
          ...(payload ? {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload)} : {})
        }
      },
      res => {
        let text = '';
        res.on('data', c => (text += c));
        res.on('end', () => resolve({status: res.statusCode ?? 0, body: text}));
      }
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', e => resolve({error: (e as NodeJS.ErrnoException).code ?? e.message}));
    req.end(payload);
  });
}

describe('API faults', () => {
  test('respond: status, body and headers, limited by times', async () => {
    const id = emu.addFault({route: 'profiles', status: 503, body: 'busy', headers: {'Retry-After': '1'}, times: 1});
    const res = await call(emu, 'GET', '/api/v1/builder-profiles');
    expect(res).toMatchObject({status: 503, text: 'busy'});
    expect(res.headers.get('retry-after')).toBe('1');
    expect(emu.requests()[0]).toMatchObject({status: 503, faultId: id});
    expect((await call(emu, 'GET', '/api/v1/builder-profiles')).status).toBe(200);
  });

  test('respond with only a status gets a default JSON error body', async () => {
    emu.addFault({route: 'details', status: 500});
    const res = await call(emu, 'GET', '/api/v1/builders/bld_x/details');
    expect(res.status).toBe(500);
    expect(res.json).toEqual({error: {code: 'injected_fault', message: expect.stringMatching(/^Fault flt_/)}});
  });

  test('reset destroys the socket', async () => {
    emu.addFault({route: 'assign', action: 'reset', times: 1});
    expect(await rawRequest(emu, 'POST', '/api/v1/builders/assign', {profile_name: 'p'})).toEqual({
      error: 'ECONNRESET'
    });
    expect(emu.requests()[0]).toMatchObject({route: 'assign', status: 0, profile: 'p'});
    expect(emu.ledger().filter(e => e.profile === 'p')).toHaveLength(0);
  });

  test('processFirst assigns for real and loses the response', async () => {
    const before = emu.assignedBuilders().length;
    emu.addFault({route: 'assign', processFirst: true, status: 502, times: 1});
    expect((await call(emu, 'POST', '/api/v1/builders/assign', {body: {profile_name: 'p'}})).status).toBe(502);
    expect(emu.assignedBuilders()).toHaveLength(before + 1);
  });

  test('processFirst with reset tears down for real', async () => {
    const [id] = await assign(emu, 'p');
    emu.addFault({route: 'teardown', processFirst: true, action: 'reset', builderId: id});
    expect(await rawRequest(emu, 'DELETE', `/api/v1/builders/${id}/teardown`)).toEqual({error: 'ECONNRESET'});
    expect(emu.ledger().find(e => e.builderId === id)).toMatchObject({reason: 'teardown'});
  });

  test('hang never answers until the emulator closes', async () => {
    const log: string[] = [];
    const local = await Emulator.start({profiles: [{name: 'p'}], log: line => log.push(line)});
    local.addFault({route: 'any', action: 'hang'});
    const pending = rawRequest(local, 'GET', '/api/v1/builder-profiles');
    // The emulator has decided to hang the request; only the close below ends it (a reset, not an answer).
    await waitFor(() => log.includes('GET /api/v1/builder-profiles -> no response'));
    await local.close();
    expect(await pending).toEqual({error: 'ECONNRESET'});
    expect(local.requests()[0]).toMatchObject({status: 0, route: 'profiles'});
  });

  test('delayMs alone slows the request down but answers normally', async () => {
    const clock = new ManualClock();
    const local = await Emulator.start({profiles: [{name: 'p'}], clock});
    try {
      local.addFault({route: 'profiles', delayMs: 40, times: 1});
      const answered = call(local, 'GET', '/api/v1/builder-profiles');
      // The delay is a timer on the emulator's clock: the answer waits for it (39 ms are not enough).
      await waitFor(() => clock.pendingTimers() === 1);
      clock.advance(39);
      expect(clock.pendingTimers()).toBe(1);
      clock.advance(1);
      expect((await answered).status).toBe(200);
    } finally {
      await local.close();
    }
  });

  test('filters: builderId, profile and any', async () => {
    const [a] = await assign(emu, 'p');
    const [b] = await assign(emu, 'q');
    emu.addFault({route: 'details', builderId: a, status: 500});
    emu.addFault({route: 'any', profile: 'q', status: 429});
    expect((await call(emu, 'GET', `/api/v1/builders/${a}/details`)).status).toBe(500);
    expect((await call(emu, 'GET', `/api/v1/builders/${b}/details`)).status).toBe(429);
    expect((await call(emu, 'POST', '/api/v1/builders/assign', {body: {profile_name: 'q'}})).status).toBe(429);
    expect((await call(emu, 'POST', '/api/v1/builders/assign', {body: {profile_name: 'p'}})).status).toBe(200);
  });
});

describe('builder faults through the API', () => {
  test.each<[number, 'never-ready' | 'fail', string]>([
    [1, 'never-ready', 'pending'],
    [2, 'fail', 'failed']
  ])('%d: %s → %s', async (_n, behaviour, status) => {
    emu.addFault({route: 'builder', behaviour, times: 1});
    const [id] = await assign(emu, 'p');
    expect((await details(emu, id!)).status).toBe(status);
  });

  test('fail-after-ms: ready, then failed once afterMs have passed on the emulator clock', async () => {
    const clock = new ManualClock();
    const local = await Emulator.start({profiles: [{name: 'p'}], clock});
    try {
      local.addFault({route: 'builder', behaviour: 'fail-after-ms', afterMs: 30, times: 1});
      const [id] = await assign(local, 'p');
      const d = await details(local, id!);
      expect(d.status).toBe('ready');
      clock.advance(29);
      expect((await details(local, id!)).status).toBe('ready');
      clock.advance(1);
      expect((await details(local, id!)).status).toBe('failed');
      expect(await handshakeWith(d.metadata)).toMatchObject({ok: false});
    } finally {
      await local.close();
    }
  });

  test('tls-wrong-ca makes the handshake fail verification', async () => {
    emu.addFault({route: 'builder', behaviour: 'tls-wrong-ca', times: 1});
    const [id] = await assign(emu, 'p');
    const {metadata: m} = await details(emu, id!);
    const r = await handshakeWith(m);
    expect(r.ok ? '' : r.error).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });

  test('missing-pem, malformed-pem and tls-refuse are visible in the details', async () => {
    emu.addFault({route: 'builder', behaviour: 'missing-pem', times: 1});
    emu.addFault({route: 'builder', behaviour: 'malformed-pem', times: 1});
    emu.addFault({route: 'builder', behaviour: 'tls-refuse', times: 1});
    const [missing] = await assign(emu, 'p');
    const [malformed] = await assign(emu, 'p');
    const [refused] = await assign(emu, 'p');
    expect((await details(emu, missing!)).metadata).toEqual({host: expect.stringMatching(/^127\.0\.0\.1:\d+$/)});
    expect((await details(emu, malformed!)).metadata.ca).toContain('corrupted by the emulator');
    const {metadata: m} = await details(emu, refused!);
    expect(await handshakeWith(m)).toEqual({
      ok: false,
      error: 'ECONNREFUSED'
    });
  });
});

test('bodies over 1 MiB are refused with 413', async () => {
  const res = await call(emu, 'POST', '/api/v1/builders/assign', {body: {profile_name: 'x'.repeat(1024 * 1024 + 1)}});
  expect(res.status).toBe(413);
});
