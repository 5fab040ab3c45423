import {afterAll, afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {X509Certificate} from 'node:crypto';
import tls from 'node:tls';
import {CONTROL_INFO_PATH, CONTROL_LIST_WORKERS_PATH} from '../src/buildkit-control.js';
import {ManualClock} from '../src/clock.js';
import {Emulator, type EmulatorOpts} from '../src/emulator.js';
import {type ClientPems, decodeInfoResponse, decodeListWorkersResponse, grpcCall, openSession} from './grpc-client.js';
import {assign, call, details, handshake, KEY, waitFor} from './support.js';

let emu: Emulator;

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [
      {name: 'single'},
      {name: 'trio', architectures: ['amd64', 'arm64'], buildersPerAssignment: 3, size: '32x64'},
      {name: 'multi', id: 'bp_multi', architectures: ['amd64', 'arm64']},
      {name: 'slow', readyDelayMs: 400},
      ...Array.from({length: 25}, (_, i) => ({name: `extra-${i + 1}`}))
    ],
    apiKeys: [
      {key: KEY, scopes: ['ci', 'cache', 'builders']},
      {key: 'ci-only', scopes: ['ci', 'cache']},
      {key: 'unrestricted', scopes: []}
    ]
  });
});
afterAll(() => emu.close());
afterEach(() => emu.reset());

describe('authentication', () => {
  test.each<[number, string | null, number]>([
    [1, null, 401],
    [2, 'wrong', 401],
    [3, 'ci-only', 403],
    [4, 'unrestricted', 200],
    [5, KEY, 200]
  ])('%d: key %s → %d', async (_n, key, status) => {
    const res = await call(emu, 'GET', '/api/v1/builder-profiles', {key});
    expect(res.status).toBe(status);
    if (status !== 200) expect(res.json).toEqual({error: {code: expect.any(String), message: expect.any(String)}});
  });

  test('401 carries WWW-Authenticate; assign with a bad key assigns nothing', async () => {
    const before = emu.ledger().length;
    const res = await call(emu, 'POST', '/api/v1/builders/assign', {key: null, body: {profile_name: 'single'}});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(emu.ledger()).toHaveLength(before);
  });
});

describe('assign', () => {
  test('one builder, ready at once, with valid PEMs and a working mTLS endpoint', async () => {
    const [id] = await assign(emu, 'single');
    expect(id).toMatch(/^bld_[0-9a-f]+$/);
    const d = await details(emu, id!);
    expect(d).toMatchObject({id, status: 'ready', arch: 'amd64', profile_name: 'single'});
    const {host, ca, client_cert, client_key} = d.metadata;
    expect(host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(new X509Certificate(ca!).ca).toBe(true);
    expect(new X509Certificate(client_cert!).checkIssued(new X509Certificate(ca!))).toBe(true);
    expect(client_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(await handshake({host, ca, cert: client_cert, key: client_key})).toEqual({ok: true, alpn: 'h2'});
    expect(await handshake({host, ca})).toMatchObject({ok: false});
  });

  test("three builders alternate architectures; another builder's client cert is refused", async () => {
    const ids = await assign(emu, 'trio');
    expect(ids).toHaveLength(3);
    const all = await Promise.all(ids.map(id => details(emu, id)));
    expect(all.map(d => d.arch)).toEqual(['amd64', 'arm64', 'amd64']);
    const [a, b] = all.map(d => d.metadata);
    expect(await handshake({host: a!.host, ca: a!.ca, cert: b!.client_cert, key: b!.client_key})).toMatchObject({
      ok: false
    });
  });

  test('a profile with both architectures and one builder gives a multi-arch builder', async () => {
    const [id] = await assign(emu, 'multi');
    expect((await details(emu, id!)).arch).toBe('amd64,arm64');
  });

  test.each<[number, unknown, string | null, number]>([
    [1, {profile_name: 'nope'}, 'application/json', 404],
    [2, {profile_name: ''}, 'application/json', 400],
    [3, {}, 'application/json', 400],
    [4, '[1]', 'application/json', 400],
    [5, '{not json', 'application/json', 400],
    [6, {profile_name: 'single'}, 'text/plain', 415],
    [7, {profile_name: 'single'}, null, 415],
    [8, {profile_name: 'single'}, 'application/json; charset=utf-8', 200]
  ])('%d: body %j as %s → %d', async (_n, body, contentType, status) => {
    const res = await call(emu, 'POST', '/api/v1/builders/assign', {body, contentType});
    expect(res.status).toBe(status);
  });

  test('pending while the profile delay runs, then ready at exactly assignment + delay', async () => {
    const clock = new ManualClock();
    const local = await Emulator.start({profiles: [{name: 'slow', readyDelayMs: 5000}], clock});
    try {
      const [id] = await assign(local, 'slow');
      expect(await details(local, id!)).toMatchObject({
        status: 'pending',
        metadata: {host: '', ca: '', client_cert: '', client_key: ''}
      });
      clock.advance(4999);
      expect((await details(local, id!)).status).toBe('pending');
      clock.advance(1);
      const ready = await details(local, id!);
      expect(ready.status).toBe('ready');
      expect(
        await handshake({
          host: ready.metadata.host,
          ca: ready.metadata.ca,
          cert: ready.metadata.client_cert,
          key: ready.metadata.client_key
        })
      ).toMatchObject({ok: true});
      const entry = local.ledger()[0]!;
      expect(entry.readyAt! - entry.assignedAt).toBe(5000);
    } finally {
      await local.close();
    }
  });

  test('with the system clock too', async () => {
    const [id] = await assign(emu, 'slow');
    await waitFor(() => emu.ledger().find(e => e.builderId === id)?.readyAt !== undefined);
    expect((await details(emu, id!)).status).toBe('ready');
    // How long after the assignment is the ManualClock test's above; here only that the system clock's timer fired.
    const entry = emu.ledger().find(e => e.builderId === id)!;
    expect(entry.readyAt).toBeGreaterThanOrEqual(entry.assignedAt);
  });
});

describe('teardown', () => {
  test('terminates, closes the listener, then 404', async () => {
    const [id] = await assign(emu, 'single');
    const {metadata} = await details(emu, id!);
    const res = await call(emu, 'DELETE', `/api/v1/builders/${id}/teardown`);
    expect(res).toMatchObject({status: 200, json: {id, status: 'terminated'}});
    expect(await details(emu, id!)).toMatchObject({status: 'terminated', metadata: {host: '', ca: ''}});
    expect((await call(emu, 'DELETE', `/api/v1/builders/${id}/teardown`)).status).toBe(404);
    expect(
      await handshake({host: metadata.host, ca: metadata.ca, cert: metadata.client_cert, key: metadata.client_key})
    ).toEqual({ok: false, error: 'ECONNREFUSED'});
    expect(emu.ledger().find(e => e.builderId === id)).toMatchObject({reason: 'teardown'});
    expect(emu.assignedBuilders().some(e => e.builderId === id)).toBe(false);
  });

  test('unknown builders are 404 for details and teardown', async () => {
    expect((await call(emu, 'GET', '/api/v1/builders/bld_nope/details')).status).toBe(404);
    expect((await call(emu, 'DELETE', '/api/v1/builders/bld_nope/teardown')).status).toBe(404);
  });
});

describe('builder profiles', () => {
  test('pagination', async () => {
    const first = await call(emu, 'GET', '/api/v1/builder-profiles');
    expect(first.json).toMatchObject({page: 1, per_page: 20, total: 29});
    expect(first.json.builder_profiles).toHaveLength(20);
    expect(first.json.builder_profiles[2]).toEqual({
      id: 'bp_multi',
      name: 'multi',
      architectures: ['amd64', 'arm64'],
      size: '16x32'
    });
    const second = await call(emu, 'GET', '/api/v1/builder-profiles?page=2&per_page=20');
    expect(second.json.builder_profiles).toHaveLength(9);
    const big = await call(emu, 'GET', '/api/v1/builder-profiles?per_page=500');
    expect(big.json).toMatchObject({per_page: 100});
    expect((await call(emu, 'GET', '/api/v1/builder-profiles?page=0')).status).toBe(400);
    expect((await call(emu, 'GET', '/api/v1/builder-profiles?per_page=x')).status).toBe(400);
  });

  test('cache reset', async () => {
    const res = await call(emu, 'POST', '/api/v1/builder-profiles/bp_multi/cache/reset');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({id: 'bp_multi', cache_reset_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\.\d{3}Z$/)});
    expect((await call(emu, 'POST', '/api/v1/builder-profiles/bp_nope/cache/reset')).status).toBe(404);
  });
});

describe('routing and the request log', () => {
  test('unknown routes 404, wrong methods 405, runner endpoints served', async () => {
    expect((await call(emu, 'GET', '/api/v1/nothing')).status).toBe(404);
    expect((await call(emu, 'GET', '/elsewhere')).status).toBe(404);
    const wrong = await call(emu, 'PUT', '/api/v1/builder-profiles');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect((await call(emu, 'GET', '/api/v1/runners')).status).toBe(200);
  });

  test('records every API request with route, builder and profile, at the time of its clock', async () => {
    const T0 = Date.UTC(2026, 0, 16, 12, 0, 0);
    const clock = new ManualClock({now: T0});
    const local = await Emulator.start({profiles: [{name: 'single'}], clock});
    try {
      const [id] = await assign(local, 'single');
      clock.advance(1500);
      await details(local, id!);
      await call(local, 'GET', '/api/v1/nothing');
      const log = local.requests();
      expect(log.map(r => [r.method, r.path, r.status, r.route, r.at])).toEqual([
        ['POST', '/api/v1/builders/assign', 200, 'assign', T0],
        ['GET', `/api/v1/builders/${id}/details`, 200, 'details', T0 + 1500],
        ['GET', '/api/v1/nothing', 404, 'unknown', T0 + 1500]
      ]);
      expect(log[0]?.profile).toBe('single');
      expect(log[1]).toMatchObject({builderId: id, profile: 'single'});
    } finally {
      await local.close();
    }
  });

  test('latency is added to every API response, on its clock', async () => {
    const clock = new ManualClock();
    const local = await Emulator.start({profiles: [{name: 'single'}], clock});
    try {
      local.setLatency(40);
      let answered = false;
      const res = call(local, 'GET', '/api/v1/builder-profiles').then(r => ((answered = true), r));
      // The request has arrived and waits on a 40 ms timer of the emulator's clock, which does not move by itself.
      await waitFor(() => clock.pendingTimers() === 1);
      clock.advance(39);
      expect(clock.pendingTimers()).toBe(1);
      expect(answered).toBe(false);
      clock.advance(1);
      expect((await res).status).toBe(200);
      expect(clock.pendingTimers()).toBe(0);
    } finally {
      await local.close();
    }
    expect(() => emu.setLatency(-1)).toThrow();
  });
});

describe('lifecycle', () => {
  test('idle builders time out and say so in the log', async () => {
    const lines: string[] = [];
    const local = await Emulator.start({profiles: [{name: 'p'}], idleTimeoutMs: 60, log: l => lines.push(l)});
    try {
      const [idle] = await assign(local, 'p');
      await waitFor(() => local.assignedBuilders().length === 0);
      expect(local.ledger()[0]).toMatchObject({builderId: idle, reason: 'idle-timeout'});
      expect((await details(local, idle!)).status).toBe('terminated');
      expect(lines).toEqual([
        'POST /api/v1/builders/assign -> 200',
        `builder ${idle} terminated after its idle time-out`,
        `GET /api/v1/builders/${idle}/details -> 200`
      ]);
    } finally {
      await local.close();
    }
  });

  test('ledger costs follow the clock; multi-arch costs double', async () => {
    const clock = new ManualClock({now: 1_700_000_000_000});
    const local = await Emulator.start({
      profiles: [{name: 'one'}, {name: 'both', architectures: ['amd64', 'arm64'], size: '64x128'}],
      clock
    });
    try {
      const [a] = await assign(local, 'one');
      const [b] = await assign(local, 'both');
      clock.advance(60_000);
      await call(local, 'DELETE', `/api/v1/builders/${a}/teardown`);
      clock.advance(30_000);
      expect(local.ledger()).toEqual([
        expect.objectContaining({builderId: a, pricePerMinute: 0.06, billedMs: 60_000, cost: 0.06, reason: 'teardown'}),
        expect.objectContaining({builderId: b, arch: 'amd64,arm64', pricePerMinute: 0.48, billedMs: 90_000, cost: 0.72})
      ]);
      expect(local.assignedBuilders().map(e => e.builderId)).toEqual([b]);
      expect(local.totalCost()).toBe(0.78);
      await local.close();
      expect(local.assignedBuilders()).toEqual([]);
      expect(local.ledger()[1]).toMatchObject({reason: 'emulator-shutdown', terminatedAt: 1_700_000_090_000});
    } finally {
      await local.close();
    }
  });

  test('markReady and markFailed drive builders by hand', async () => {
    const local = await Emulator.start({profiles: [{name: 'p', readyDelayMs: 3_600_000}]});
    try {
      const [a, b] = [...(await assign(local, 'p')), ...(await assign(local, 'p'))];
      local.markReady(a!);
      expect((await details(local, a!)).status).toBe('ready');
      local.markFailed(b!);
      expect((await details(local, b!)).status).toBe('failed');
      expect(local.ledger()[1]?.failedAt).toBeDefined();
      expect(() => local.markReady('bld_nope')).toThrow(/No builder/);
    } finally {
      await local.close();
    }
  });

  test('rejects bad options', async () => {
    await expect(Emulator.start({profiles: [{name: 'a'}, {name: 'a'}]})).rejects.toThrow(/Duplicate/);
    await expect(Emulator.start({profiles: [], apiKeys: []})).rejects.toThrow(/API key/);
  });
});

describe('builders without a dockerd (option buildkit)', () => {
  const started: Emulator[] = [];
  afterEach(() => Promise.all(started.splice(0).map(e => e.close())));

  /** An emulator with one multi-arch builder assigned: its port and client material. */
  async function builderOf(buildkit?: EmulatorOpts['buildkit']) {
    const local = await Emulator.start({profiles: [{name: 'multi', architectures: ['amd64', 'arm64']}], buildkit});
    started.push(local);
    const [id] = await assign(local, 'multi');
    const {host, ca, client_cert, client_key} = (await details(local, id!)).metadata;
    return {port: Number(host.split(':')[1]), pems: {ca: ca!, cert: client_cert!, key: client_key!}};
  }

  /** Info and ListWorkers on one session: the gRPC status of Info, the version and platforms ListWorkers gives. */
  async function controlCalls(port: number, pems: ClientPems) {
    const session = openSession(port, pems);
    try {
      const info = await grpcCall(session, CONTROL_INFO_PATH);
      const [worker] = decodeListWorkersResponse((await grpcCall(session, CONTROL_LIST_WORKERS_PATH)).message!);
      return {
        info: {grpcStatus: info.grpcStatus, ...(info.message ? decodeInfoResponse(info.message) : {})},
        workers: {version: worker?.BuildkitVersion?.version, platforms: worker?.platforms}
      };
    } finally {
      session.destroy();
    }
  }

  const BOTH = [
    {Architecture: 'amd64', OS: 'linux'},
    {Architecture: 'arm64', OS: 'linux'}
  ];

  test.each<[number, EmulatorOpts['buildkit'], object]>([
    [
      1,
      undefined,
      {
        info: {grpcStatus: '0', buildkitVersion: expect.objectContaining({version: 'v0.13.2'})},
        workers: {version: 'v0.13.2', platforms: BOTH}
      }
    ],
    [
      2,
      {api: 'no-info', version: 'v0.10.6'},
      {info: {grpcStatus: '12'}, workers: {version: 'v0.10.6', platforms: BOTH}}
    ]
  ])('%d: %j → Control API answers', async (_n, buildkit, expected) => {
    const {port, pems} = await builderOf(buildkit);
    expect(await controlCalls(port, pems)).toEqual(expected);
  });

  test("'preface-only': the server's preface and nothing else, while 'control' answers the same bytes", async () => {
    const control = await builderOf({api: 'control'});
    expect(await rawCall(control.port, control.pems, {end: false})).toContainEqual({type: FRAME.headers, stream: 1});
    const prefaceOnly = await builderOf({api: 'preface-only'});
    expect(await rawCall(prefaceOnly.port, prefaceOnly.pems, {end: true})).toEqual([{type: FRAME.settings, stream: 0}]);
  });
});

const FRAME = {headers: 1, settings: 4} as const;

/**
 * Sends HTTP/2's client preface and a gRPC call to Control/Info as raw bytes (HPACK literals), then ends
 * its side (`end`) and reads to the end, or reads until the answer's HEADERS frame. Resolves with the
 * frames the server sent (type and stream).
 */
function rawCall(port: number, pems: ClientPems, opts: {end: boolean}): Promise<{type: number; stream: number}[]> {
  const literal = (index: number, value: string): Buffer =>
    Buffer.concat([Buffer.from([index, value.length]), Buffer.from(value, 'latin1')]);
  const block = Buffer.concat([
    Buffer.from([0x83, 0x87]), // :method POST, :scheme https (static table 3 and 7)
    literal(0x04, CONTROL_INFO_PATH), // :path (4), literal without indexing
    literal(0x01, 'builder'), // :authority (1)
    Buffer.from([0x0f, 0x10]), // content-type (31 = 15 + 16)
    literal(0, 'application/grpc').subarray(1)
  ]);
  // END_STREAM and END_HEADERS, stream 1
  const head = Buffer.from([0, block.length >> 8, block.length & 0xff, FRAME.headers, 0x5, 0, 0, 0, 1]);
  const preface = Buffer.concat([
    Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
    Buffer.from([0, 0, 0, FRAME.settings, 0, 0, 0, 0, 0])
  ]);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({host: '127.0.0.1', port, ...pems, ALPNProtocols: ['h2']});
    let bytes = Buffer.alloc(0);
    const frames = (): {type: number; stream: number}[] => {
      const out = [];
      for (let at = 0; at + 9 <= bytes.length; at += 9 + bytes.readUIntBE(at, 3)) {
        out.push({type: bytes[at + 3]!, stream: bytes.readUInt32BE(at + 5) & 0x7fffffff});
      }
      return out;
    };
    socket.on('error', reject);
    socket.once('secureConnect', () => {
      socket.write(Buffer.concat([preface, head, block]));
      if (opts.end) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (!opts.end && frames().some(f => f.type === FRAME.headers && f.stream === 1)) {
        socket.destroy();
        resolve(frames());
      }
    });
    socket.on('end', () => resolve(frames()));
  });
}
