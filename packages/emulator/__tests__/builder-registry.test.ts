import {afterEach, describe, expect, test} from '@jest/globals';
import {X509Certificate} from 'node:crypto';
import type {BuilderMetadata} from '../src/builder.js';
import {BuilderRegistry, formatHost} from '../src/builder-registry.js';
import {HandshakeOnlyBackend} from '../src/buildkit-backend.js';
import {ManualClock} from '../src/clock.js';
import {FaultInjector} from '../src/faults.js';
import {Ledger} from '../src/ledger.js';
import {type ProfileConfig, resolveProfile} from '../src/profiles.js';
import {handshake} from './support.js';

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

  test('builder faults apply per builder, filtered by profile', async () => {
    setup().faults.add({route: 'builder', behaviour: 'never-ready', profile: 'p', times: 1});
    const builders = await registry!.assign(resolveProfile({name: 'p', buildersPerAssignment: 2}));
    expect(builders.map(b => b.status)).toEqual(['pending', 'ready']);
    expect((await registry!.assign(resolveProfile({name: 'q'})))[0]?.status).toBe('ready');
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
