// End to end: the bundled build-push action, main then post, on a real BuildKit reached through a TLS front
// that closes idle connections (a load balancer with an idle time-out; the emulator's 'close-idle' front).
// The readiness check's own connection sends nothing and is closed by such a front; buildx's connections
// talk at once and are served. Needs scripts/e2e-up.sh.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {randomBytes} from 'node:crypto';
import tls from 'node:tls';
import type {ProfileConfig} from '../src/index.js';
import {
  actionJob,
  allTornDown,
  assignedIds,
  mustSucceed,
  requireE2eEnv,
  runMain,
  runPost,
  type E2eEmulator,
  type E2eEnv,
  type Workspace
} from './e2e-env.js';

const PROFILE = 'e2e-front-close-idle';
const IDLE_MS = 200;
const PROFILES: ProfileConfig[] = [
  {name: PROFILE, architectures: ['amd64'], readyDelayMs: 300, front: 'close-idle', frontIdleMs: IDLE_MS}
];

let env: E2eEnv;
let emu: E2eEmulator;
const workspaces: Workspace[] = [];

beforeAll(async () => {
  env = await requireE2eEnv();
  emu = await env.startEmulator({profiles: PROFILES});
});

afterAll(async () => {
  if (emu) {
    console.log(`tls-front e2e ledger:\n${emu.ledgerText()}`);
    await emu.close();
  }
  for (const ws of workspaces) ws.cleanup();
});

/** Calls the emulator's API with the e2e key. */
async function api(method: string, path: string, body?: unknown): Promise<{status: number; json: unknown}> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${emu.apiKey}`,
      Accept: 'application/json',
      ...(body ? {'Content-Type': 'application/json'} : {})
    },
    ...(body ? {body: JSON.stringify(body)} : {})
  });
  const text = await res.text();
  return {status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined};
}

interface Metadata {
  host: string;
  ca: string;
  client_cert: string;
  client_key: string;
}

describe('build-push (bundled) through a TLS front that closes idle connections', () => {
  test('the front closes a connection that stays silent after the handshake', async () => {
    const assigned = await api('POST', '/api/v1/builders/assign', {profile_name: PROFILE});
    expect(assigned.status).toBe(200);
    const id = (assigned.json as {builder_instances: {id: string}[]}).builder_instances[0]?.id as string;
    let m: Metadata | undefined;
    while (!m) {
      const details = (await api('GET', `/api/v1/builders/${id}/details`)).json as {status: string; metadata: Metadata};
      if (details.status === 'ready') m = details.metadata;
      else await new Promise(resolve => setTimeout(resolve, 100));
    }
    const [host, port] = m.host.split(':');
    const events: string[] = [];
    const started = Date.now();
    await new Promise<void>(resolve => {
      const socket = tls.connect({host, port: Number(port), ca: m.ca, cert: m.client_cert, key: m.client_key});
      socket.on('secureConnect', () => events.push('secure'));
      socket.on('data', () => events.push('data'));
      socket.on('end', () => events.push('end'));
      socket.on('error', (e: NodeJS.ErrnoException) => events.push(`error:${e.code}`));
      socket.on('close', () => resolve());
    });
    expect(events).toEqual(['secure', 'end']);
    // Closed by the idle timer (less a little for timer rounding), not at once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS - 10);
    expect((await api('DELETE', `/api/v1/builders/${id}/teardown`)).status).toBeLessThan(300);
  });

  test('one build, pushed: readiness passes the front, the build is served through it, the builder is torn down', async () => {
    const ws = env.workspace('front');
    workspaces.push(ws);
    const run = randomBytes(6).toString('hex');
    const ctx = ws.context('front', {run: `echo built-${run} > /built.txt && uname -m > /arch.txt`});
    const repo = env.registry.uniqueRepo('front');
    const ref = env.registry.ref(repo, 'v1');
    const job = actionJob({
      action: 'build-push',
      emulator: emu,
      workspace: ws,
      job: 'front',
      inputs: {timeout: '120000', 'profile-name': PROFILE, context: ctx.dir, push: 'true', tags: ref}
    });

    const main = mustSucceed('build-push main', await runMain(job));
    const ids = assignedIds(main);
    expect(ids).toHaveLength(1);
    // Billing stops when the build ends: main tears down.
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    const post = mustSucceed('build-push post', await runPost(job, main));
    expect(post.annotations.filter(a => a.level === 'warning' || a.level === 'error')).toEqual([]);

    const manifest = await env.registry.requireManifest(repo, 'v1');
    expect(main.outputs['digest']).toBe(manifest.digest);
    expect(await env.registry.readFile(repo, 'v1', '/built.txt', 'linux/amd64')).toBe(`built-${run}\n`);
    expect(emu.stillAssigned()).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([]);
    console.log(`tls front: pushed ${ref} at ${manifest.digest} in ${main.durationMs} ms (main)`);
  });
});
