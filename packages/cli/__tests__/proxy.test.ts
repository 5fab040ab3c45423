// The CLI behind a forward proxy: the emulator's own CLI serves the API over HTTPS for a name only the proxy
// resolves, its CA goes in NODE_EXTRA_CA_CERTS, HTTPS_PROXY names the proxy. NODE_EXTRA_CA_CERTS is read when
// node starts, so the run that gets through is the real bin/remote-builder.js; the refused tunnel, which never
// reaches TLS, is runCli in-process with HTTPS_PROXY in its environment (the one the CLI reads proxies from).
import {afterAll, beforeAll, expect, test} from '@jest/globals';
import {spawn} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {runCli as runEmulatorCli} from '@remote-builder-actions/emulator';
import {ForwardProxy} from '../../emulator/src/testing/forward-proxy.js';
import {BIN, cli} from './helpers.js';

const API_HOST = 'api.remote-builder.test';
const KEY = 'rb_cli_proxy_key_7e6d5c';

let dir: string;
let caFile: string;
let apiUrl: string;
let stopEmulator: () => void;
let emulatorDone: Promise<number>;
const emulatorOut: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rb-cli-proxy-'));
  caFile = join(dir, 'api-ca.pem');
  const stop = new Promise<void>(resolve => (stopEmulator = resolve));
  let started!: () => void;
  const listening = new Promise<void>(resolve => (started = resolve));
  emulatorDone = runEmulatorCli(
    ['--https', API_HOST, '--ca-out', caFile, '--api-key', KEY, '--quiet'],
    {
      out: line => {
        emulatorOut.push(line);
        if (line.startsWith('Press Ctrl+C')) started();
      },
      err: line => emulatorOut.push(line)
    },
    stop
  );
  await Promise.race([listening, emulatorDone.then(code => Promise.reject(new Error(`emulator exited ${code}`)))]);
  const port = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(emulatorOut.join('\n'))?.[1];
  if (!port) throw new Error(`no HTTPS URL in:\n${emulatorOut.join('\n')}`);
  apiUrl = `https://${API_HOST}:${port}`;
});

afterAll(async () => {
  stopEmulator?.();
  await emulatorDone;
  if (dir) rmSync(dir, {recursive: true, force: true});
});

function bin(args: string[], env: NodeJS.ProcessEnv): Promise<{code: number | null; stdout: string; stderr: string}> {
  const child = spawn(process.execPath, [BIN, ...args], {env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe']});
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise(resolve => child.on('close', code => resolve({code, stdout, stderr})));
}

function env(proxy: ForwardProxy): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    XDG_STATE_HOME: join(dir, 'state'),
    REMOTE_BUILDER_API_URL: apiUrl,
    REMOTE_BUILDER_API_KEY: KEY,
    HTTPS_PROXY: proxy.url,
    NODE_EXTRA_CA_CERTS: caFile
  };
}

test('the emulator CLI wrote the CA it serves HTTPS with and says how to trust it', () => {
  expect(readFileSync(caFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
  expect(emulatorOut).toContain(`  API CA:       ${caFile}  (clients: NODE_EXTRA_CA_CERTS=${caFile})`);
});

test('profiles list through HTTPS_PROXY, trusting the private CA from NODE_EXTRA_CA_CERTS', async () => {
  const proxy = await ForwardProxy.start({hosts: {[API_HOST]: '127.0.0.1'}});
  try {
    const run = await bin(['profiles', 'list', '--json'], env(proxy));
    expect(run).toMatchObject({code: 0, stderr: ''});
    expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({name: 'default'})]);
    expect(proxy.tunnels()).toEqual([new URL(apiUrl).host]);
  } finally {
    await proxy.close();
  }
}, 60000);

test('a proxy that refuses the tunnel: the command fails with the proxy refusal', async () => {
  const proxy = await ForwardProxy.start({hosts: {[API_HOST]: '127.0.0.1'}, mode: 'refuse'});
  try {
    const run = await cli(['profiles', 'list'], env(proxy));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Failed to list builder profiles: EPROXYFORBIDDEN');
    expect(proxy.log().length).toBeGreaterThan(0);
    expect(proxy.log().every(e => e.status === 403)).toBe(true);
  } finally {
    await proxy.close();
  }
}, 60000);
