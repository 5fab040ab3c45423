// The API client against the emulator serving HTTPS with its private CA, through a real forward proxy.
import {afterEach, expect, test} from '@jest/globals';
import {Emulator} from '@remote-builder-actions/emulator';
import {ApiClient} from '../../src/api/api-client.js';
import {NodeHttpTransport} from '../../src/api/http-transport.js';
import {API_HOST, cleanups, runCleanups, startProxy} from './net-helpers.js';

afterEach(runCleanups);

const KEY = 'rb_proxy_key_0a1b2c';

async function httpsEmulator(): Promise<Emulator> {
  const emu = await Emulator.start({
    profiles: [{name: 'p', readyDelayMs: 0}],
    apiKeys: [{key: KEY, scopes: ['builders']}],
    https: {hostnames: [API_HOST]}
  });
  cleanups.push(() => emu.close());
  return emu;
}

test('the emulator serves HTTPS with a certificate for the name, signed by the CA it exposes', async () => {
  const emu = await httpsEmulator();
  expect(emu.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(emu.apiCaCert).toMatch(/^-----BEGIN CERTIFICATE-----/);
  // Its own address is in the certificate too: a direct client that trusts the CA needs no proxy.
  const direct = new ApiClient({baseUrl: emu.url, token: KEY, transport: new NodeHttpTransport({ca: emu.apiCaCert})});
  cleanups.push(() => direct.close());
  expect((await direct.builders.listBuilderProfiles()).map(p => p.name)).toEqual(['p']);
});

test('assign, details and teardown through the proxy; every call is tunnelled', async () => {
  const emu = await httpsEmulator();
  const proxy = await startProxy();
  const port = new URL(emu.url).port;
  const api = new ApiClient({
    baseUrl: `https://${API_HOST}:${port}`,
    token: KEY,
    transport: new NodeHttpTransport({env: {HTTPS_PROXY: proxy.url}, ca: emu.apiCaCert})
  });
  cleanups.push(() => api.close());
  const assigned = await api.builders.assignBuilder('p');
  const id = assigned.builder_instances[0]?.id as string;
  expect(id).toBeTruthy();
  await api.builders.getBuilderDetails(id);
  await api.builders.teardownBuilder(id);
  expect(emu.requests().map(r => r.route)).toEqual(['assign', 'details', 'teardown']);
  expect(emu.assignedBuilders()).toEqual([]);
  // One keep-alive tunnel carried the three calls.
  expect(proxy.tunnels()).toEqual([`${API_HOST}:${port}`]);
});
