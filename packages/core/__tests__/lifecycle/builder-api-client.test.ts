// createBuilderApiClient: one client, the assignment with its own (longer) limit, the other calls with the
// per-request limit. Against a loopback server that never answers, so each call ends at its own limit.
import * as http from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, expect, test} from '@jest/globals';
import {createBuilderApiClient, type ClosableBuilderApi} from '../../src/lifecycle/builder-api-client.js';
import {ApiError} from '../../src/errors.js';
import {failure} from '../fakes/failure.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

/** A server that takes every request and never answers. */
async function silentServer(): Promise<{url: string}> {
  const server = http.createServer(() => undefined);
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`};
}

/** The actions' client of a silent server, with REMOTE_BUILDER_REQUEST_TIMEOUT_MS `requestMs`. */
async function client(requestMs: number, assignTimeoutMs: number): Promise<ClosableBuilderApi> {
  const {url} = await silentServer();
  const api = createBuilderApiClient({
    apiUrl: url,
    token: 'k',
    env: {REMOTE_BUILDER_REQUEST_TIMEOUT_MS: String(requestMs)},
    assignTimeoutMs
  });
  cleanups.push(() => api.close());
  return api;
}

test('the assignment is cut at assignTimeoutMs, details and teardown at REMOTE_BUILDER_REQUEST_TIMEOUT_MS', async () => {
  const api = await client(50, 120);
  const assign = await failure(api.assignBuilder('p'), ApiError);
  const details = await failure(api.getBuilderDetails('b1', {retry: false}), ApiError);
  const teardown = await failure(api.teardownBuilder('b1', {retry: false}), ApiError);
  expect(assign.hint).toMatch(/^no answer within 120 ms\b/);
  expect(details.hint).toBe('no answer within 50 ms');
  expect(teardown.hint).toBe('no answer within 50 ms');
});

test('an assignTimeoutMs below the per-request limit does not shorten the assignment', async () => {
  const api = await client(80, 10);
  expect((await failure(api.assignBuilder('p'), ApiError)).hint).toMatch(/^no answer within 80 ms\b/);
});
