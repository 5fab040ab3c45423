import {afterAll, beforeAll, expect, test} from '@jest/globals';
import {Emulator} from '../src/emulator.js';
import {assign, call, handshake} from './support.js';

let emu: Emulator;

beforeAll(async () => {
  emu = await Emulator.start({profiles: [{name: 'p', readyDelayMs: 3_600_000}]});
});
afterAll(() => emu.close());

const admin = (method: string, path: string, body?: unknown) =>
  call(emu, method, `/_emulator${path}`, {body, key: null});

test('health needs no key', async () => {
  expect(await admin('GET', '/health')).toMatchObject({status: 200, json: {status: 'ok'}});
});

test('faults: add, list, remove, clear, validate', async () => {
  const added = await admin('POST', '/faults', {route: 'profiles', status: 500, times: 2});
  expect(added.json).toEqual({id: expect.stringMatching(/^flt_/)});
  expect((await admin('GET', '/faults')).json.faults).toEqual([
    {id: added.json.id, route: 'profiles', status: 500, times: 2, remaining: 2}
  ]);
  expect((await call(emu, 'GET', '/api/v1/builder-profiles')).status).toBe(500);
  expect((await admin('DELETE', `/faults/${added.json.id}`)).status).toBe(200);
  expect((await admin('DELETE', `/faults/${added.json.id}`)).status).toBe(404);
  await admin('POST', '/faults', {route: 'any', status: 500});
  expect((await admin('DELETE', '/faults')).status).toBe(200);
  expect((await call(emu, 'GET', '/api/v1/builder-profiles')).status).toBe(200);
  const bad = await admin('POST', '/faults', {route: 'nowhere'});
  expect(bad.status).toBe(400);
  expect(bad.json.error.message).toMatch(/"route"/);
});

test('builders: ready, fail, 404 and 409', async () => {
  const [a, b] = [...(await assign(emu, 'p')), ...(await assign(emu, 'p'))];
  expect((await admin('POST', `/builders/${a}/ready`)).json).toMatchObject({id: a, status: 'ready'});
  expect((await admin('POST', `/builders/${b}/fail`)).json).toMatchObject({id: b, status: 'failed'});
  expect((await admin('POST', `/builders/${b}/ready`)).status).toBe(409);
  expect((await admin('POST', '/builders/bld_nope/ready')).status).toBe(404);
  expect((await admin('GET', `/builders/${a}/ready`)).status).toBe(405);
});

test('ledger, requests, profiles and reset', async () => {
  await call(emu, 'GET', '/api/v1/builder-profiles');
  const ledger = await admin('GET', '/ledger');
  expect(ledger.json).toEqual({
    entries: emu.ledger().map(() => expect.any(Object)),
    assigned: 2,
    totalCost: expect.any(Number)
  });
  expect((await admin('GET', '/requests')).json.requests.length).toBeGreaterThan(0);
  expect((await admin('GET', '/profiles')).json.profiles[0]).toMatchObject({
    name: 'p',
    id: expect.stringMatching(/^bp_/)
  });
  await admin('POST', '/faults', {route: 'any', status: 500});
  expect(await admin('POST', '/reset')).toMatchObject({status: 200});
  expect(emu.requests()).toEqual([]);
  expect(emu.faults()).toEqual([]);
  expect(emu.ledger()).toHaveLength(2);
});

test('builders: endpoint mode silent, normal, kill; 400, 404, 405 and 409', async () => {
  const [id] = await assign(emu, 'p');
  await admin('POST', `/builders/${id}/ready`);
  const details = emu.builderDetails(id!)!;
  const host = details.metadata.host;
  const tlsOpts = {host, ca: details.metadata.ca, cert: details.metadata.client_cert, key: details.metadata.client_key};
  expect(await handshake(tlsOpts)).toMatchObject({ok: true});

  expect(await admin('POST', `/builders/${id}/endpoint`, {mode: 'silent'})).toMatchObject({
    status: 200,
    json: {id, mode: 'silent'}
  });
  expect(await admin('POST', `/builders/${id}/endpoint`, {mode: 'normal'})).toMatchObject({status: 200});
  expect(await handshake(tlsOpts)).toMatchObject({ok: true});
  expect(await admin('POST', `/builders/${id}/endpoint`, {mode: 'kill'})).toMatchObject({status: 200});
  expect(await handshake(tlsOpts)).toEqual({ok: false, error: 'ECONNREFUSED'});
  // The service has not noticed: the builder is still ready.
  expect(emu.builderDetails(id!)?.status).toBe('ready');
  const conflict = await admin('POST', `/builders/${id}/endpoint`, {mode: 'normal'});
  expect(conflict.status).toBe(409);
  expect(conflict.json.error.message).toBe('The endpoint was killed; it cannot become normal');

  const bad = await admin('POST', `/builders/${id}/endpoint`, {mode: 'loud'});
  expect(bad.status).toBe(400);
  expect(bad.json.error.message).toBe('Body must be {"mode": "normal"|"silent"|"kill"}');
  expect((await admin('POST', `/builders/${id}/endpoint`)).status).toBe(400);
  expect((await admin('POST', '/builders/bld_nope/endpoint', {mode: 'kill'})).status).toBe(404);
  expect((await admin('GET', `/builders/${id}/endpoint`)).status).toBe(405);
});

test('latency', async () => {
  // Sets the emulator's latency (its effect on the responses: emulator.test.ts, on a ManualClock).
  expect((await admin('PUT', '/latency', {ms: 25})).json).toEqual({ms: 25});
  expect((await admin('GET', '/latency')).json).toEqual({ms: 25});
  expect(emu.latency()).toBe(25);
  expect((await admin('PUT', '/latency', {ms: -1})).status).toBe(400);
  expect(emu.latency()).toBe(25);
  await admin('PUT', '/latency', {ms: 0});
  expect(emu.latency()).toBe(0);
});

test('unknown admin routes 404', async () => {
  expect((await admin('GET', '/nope')).status).toBe(404);
  expect((await admin('POST', '/health')).status).toBe(405);
});
