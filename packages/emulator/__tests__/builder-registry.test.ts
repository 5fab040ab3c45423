import {afterEach, describe, expect, test} from '@jest/globals';
import {X509Certificate} from 'node:crypto';
import {readFileSync} from 'node:fs';
import net from 'node:net';
import type {BuilderMetadata} from '../src/builder.js';
import tls from 'node:tls';
import {BuilderRegistry, formatHost, newBuilderId, unusedPort, WRONG_SERVER_NAME} from '../src/builder-registry.js';
import {type BuildkitBackend, HandshakeOnlyBackend} from '../src/buildkit-backend.js';
import {ManualClock} from '../src/clock.js';
import {FaultInjector} from '../src/faults.js';
import {Ledger} from '../src/ledger.js';
import type {BuilderArch} from '../src/pricing.js';
import {type ProfileConfig, resolveProfile} from '../src/profiles.js';
import {handshake, waitFor} from './support.js';

/** The server certificate the listener at `port` presents (not verified), reached as `servername`. */
function serverCertificate(
  port: number,
  servername: string | undefined,
  m: BuilderMetadata
): Promise<import('node:crypto').X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      ...(servername ? {servername} : {}),
      ca: m.ca,
      cert: m.client_cert,
      key: m.client_key,
      rejectUnauthorized: false
    });
    socket.once('secureConnect', () => {
      resolve(socket.getPeerX509Certificate() as import('node:crypto').X509Certificate);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

let registry: BuilderRegistry | undefined;
afterEach(async () => {
  await registry?.closeAll('emulator-shutdown');
});

function setup() {
  const clock = new ManualClock();
  const faults = new FaultInjector();
  const ledger = new Ledger({clock});
  registry = new BuilderRegistry({clock, ledger, faults, backend: new HandshakeOnlyBackend(), idleTimeoutMs: 60_000});
  return {clock, faults, ledger, registry};
}

async function assignOne(config: ProfileConfig = {name: 'p'}): Promise<BuilderMetadata & {id: string}> {
  const [builder] = await (registry as BuilderRegistry).assign(resolveProfile(config));
  return {id: builder!.id, ...builder!.details().metadata};
}

describe('newBuilderId', () => {
  test('each form: prefixed hex, a UUID in either case, a 12-digit number', () => {
    expect(newBuilderId()).toMatch(/^bld_[0-9a-f]{16}$/);
    const uuids = Array.from({length: 40}, () => newBuilderId('uuid'));
    for (const id of uuids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i);
    // Half upper-cased, at random: 40 draws all of one case would happen once in 2^39.
    expect(new Set(uuids.map(id => id === id.toLowerCase()))).toEqual(new Set([true, false]));
    expect(newBuilderId('numeric')).toMatch(/^[1-9]\d{11}$/);
  });
});

describe('BuilderRegistry', () => {
  test('assigns builders with fresh material and a working mTLS listener', async () => {
    const {ledger} = setup();
    const builders = await registry!.assign(resolveProfile({name: 'p', buildersPerAssignment: 3}));
    expect(builders.map(b => b.id)).toEqual([
      expect.stringMatching(/^bld_[0-9a-f]{16}$/),
      expect.any(String),
      expect.any(String)
    ]);
    expect(new Set(builders.map(b => b.id)).size).toBe(3);
    const m = builders[0]!.details().metadata;
    expect(m.host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await handshake({host: m.host, ca: m.ca, cert: m.client_cert, key: m.client_key})).toMatchObject({ok: true});
    expect(ledger.assigned()).toHaveLength(3);
    expect(registry!.get(builders[1]!.id)).toBe(builders[1]);
  });

  test("the 'tcp' host format", async () => {
    setup();
    expect((await assignOne({name: 'p', hostFormat: 'tcp'})).host).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    expect(formatHost('bare', 5)).toBe('127.0.0.1:5');
  });

  test("'missing-pem' omits the PEM fields", async () => {
    setup().faults.add({route: 'builder', behaviour: 'missing-pem'});
    const m = await assignOne();
    expect(Object.keys(m).sort()).toEqual(['host', 'id']);
  });

  test("'malformed-pem' corrupts the PEM bodies", async () => {
    setup().faults.add({route: 'builder', behaviour: 'malformed-pem'});
    const m = await assignOne();
    expect(m.ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(() => new X509Certificate(m.ca as string)).toThrow();
    expect(m.client_key).toMatch(/^-----BEGIN PRIVATE KEY-----\n@@/);
  });

  test("'tls-refuse' points host at a closed port", async () => {
    setup().faults.add({route: 'builder', behaviour: 'tls-refuse'});
    const m = await assignOne();
    expect(await handshake({host: m.host, ca: m.ca, cert: m.client_cert, key: m.client_key})).toEqual({
      ok: false,
      error: 'ECONNREFUSED'
    });
  });

  test("'tls-wrong-ca' returns a CA that did not sign the server certificate", async () => {
    setup().faults.add({route: 'builder', behaviour: 'tls-wrong-ca'});
    const m = await assignOne();
    const r = await handshake({host: m.host, ca: m.ca, cert: m.client_cert, key: m.client_key});
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });

  test('hostName goes into host (both formats) and the server certificate; the listener stays on 127.0.0.1', async () => {
    setup();
    const name = 'builder.remote-builder.test';
    const bare = await assignOne({name: 'p', hostName: name});
    expect(bare.host).toMatch(/^builder\.remote-builder\.test:\d+$/);
    expect((await assignOne({name: 'p', hostName: name, hostFormat: 'tcp'})).host).toMatch(
      /^tcp:\/\/builder\.remote-builder\.test:\d+$/
    );
    expect(formatHost('tcp', 5, 'b.test')).toBe('tcp://b.test:5');
    const port = Number(bare.host.split(':')[1]);
    const cert = await serverCertificate(port, name, bare);
    expect(cert.subjectAltName).toBe(`IP Address:127.0.0.1, DNS:localhost, DNS:${name}`);
  });

  test("'tls-refuse' with a hostName points at a closed port under that name", async () => {
    setup().faults.add({route: 'builder', behaviour: 'tls-refuse'});
    expect((await assignOne({name: 'p', hostName: 'b.test'})).host).toMatch(/^b\.test:\d+$/);
  });

  test("'wrong-server-cert': the server certificate is signed by the CA but names another host", async () => {
    setup().faults.add({route: 'builder', behaviour: 'wrong-server-cert'});
    const m = await assignOne();
    const r = await handshake({host: m.host, ca: m.ca, cert: m.client_cert, key: m.client_key});
    expect(r).toEqual({ok: false, error: 'ERR_TLS_CERT_ALTNAME_INVALID'});
    const cert = await serverCertificate(Number(m.host.split(':')[1]), undefined, m);
    expect(cert.subjectAltName).toBe(`DNS:${WRONG_SERVER_NAME}`);
  });

  test('the front comes from the profile, and a front fault wins over it', async () => {
    const {faults} = setup();
    const [byProfile] = await registry!.assign(resolveProfile({name: 'p', front: 'close-after-handshake'}));
    expect(byProfile?.endpoint?.front).toBe('close-after-handshake');
    faults.add({route: 'builder', behaviour: 'never-answer', times: 1});
    const [byFault] = await registry!.assign(resolveProfile({name: 'p', front: 'close-after-handshake'}));
    expect(byFault?.endpoint?.front).toBe('never-answer');
    // A fault that is no front leaves the profile's front alone.
    faults.add({route: 'builder', behaviour: 'tls-wrong-ca', times: 1});
    const [other] = await registry!.assign(resolveProfile({name: 'p', front: 'refuse-client-cert'}));
    expect(other?.endpoint?.front).toBe('refuse-client-cert');
  });

  test("'close-idle' runs on the registry's clock with the fault's idleMs (else the profile's)", async () => {
    const {clock, faults} = setup();
    faults.add({route: 'builder', behaviour: 'close-idle', idleMs: 1000, times: 1});
    const m = await assignOne({name: 'p', frontIdleMs: 50});
    const socket = tls.connect({
      host: '127.0.0.1',
      port: Number(m.host.split(':')[1]),
      ca: m.ca,
      cert: m.client_cert,
      key: m.client_key
    });
    const closed = new Promise(resolve => socket.once('close', resolve));
    socket.on('error', () => undefined);
    await new Promise(resolve => socket.once('secureConnect', resolve));
    await waitFor(() => registry!.get(m.id)?.openConnections === 1);
    // The idle timer is armed on the registry's clock: had the profile's 50 ms applied, it fired within 999 ms.
    const armed = clock.pendingTimers();
    clock.advance(999);
    expect(clock.pendingTimers()).toBe(armed);
    clock.advance(1);
    expect(clock.pendingTimers()).toBe(armed - 1);
    await closed;
    await waitFor(() => registry!.get(m.id)?.openConnections === 0);
  });

  test('builder faults apply per builder, filtered by profile', async () => {
    setup().faults.add({route: 'builder', behaviour: 'never-ready', profile: 'p', times: 1});
    const builders = await registry!.assign(resolveProfile({name: 'p', buildersPerAssignment: 2}));
    expect(builders.map(b => b.status)).toEqual(['pending', 'ready']);
    expect((await registry!.assign(resolveProfile({name: 'q'})))[0]?.status).toBe('ready');
  });

  test("a backend selector serves each builder's connections with the backend of its architecture", async () => {
    const clock = new ManualClock();
    /** The architectures whose backend served a connection, in order; `served` fires on each. */
    const servedBy: BuilderArch[] = [];
    let served = (): void => undefined;
    const nextServe = (): Promise<void> => new Promise(r => (served = r));
    const backendFor = (arch: BuilderArch): BuildkitBackend => ({
      kind: arch,
      serve: client => {
        servedBy.push(arch);
        client.destroy();
        served();
      }
    });
    registry = new BuilderRegistry({
      clock,
      ledger: new Ledger({clock}),
      faults: new FaultInjector(),
      backend: backendFor,
      idleTimeoutMs: 60_000
    });
    const builders = await registry.assign(
      resolveProfile({name: 'p', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2})
    );
    expect(builders.map(b => b.arch)).toEqual(['amd64', 'arm64']);
    for (const i of [1, 0]) {
      const m = builders[i]!.details().metadata;
      const next = nextServe();
      await handshake({host: m.host, ca: m.ca, cert: m.client_cert, key: m.client_key});
      await next;
    }
    expect(servedBy).toEqual(['arm64', 'amd64']);
  });

  test('closeAll terminates everything and refuses new assignments', async () => {
    const {ledger} = setup();
    const m = await assignOne();
    await registry!.closeAll('emulator-shutdown');
    expect(ledger.entries()[0]).toMatchObject({reason: 'emulator-shutdown'});
    expect(await handshake({host: m.host, ca: m.ca, cert: m.client_cert, key: m.client_key})).toEqual({
      ok: false,
      error: 'ECONNREFUSED'
    });
    await expect(registry!.assign(resolveProfile({name: 'p'}))).rejects.toThrow(/closed/);
  });
});

test('unusedPort: below the ephemeral range (no listener lands there, no connection meets itself), and refused', async () => {
  const port = await unusedPort();
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  expect(port).toBeGreaterThanOrEqual(1024);
  expect(port).toBeLessThan(low);
  const refused = await new Promise<string>(resolve => {
    const s = net.connect(port, '127.0.0.1', () => resolve('connected'));
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
  });
  expect(refused).toBe('ECONNREFUSED');
});
