import {expect, test} from '@jest/globals';
import {ProxiedRequests} from '../../src/api/proxied-requests.js';
import {systemClock} from '../../src/clock.js';
import type {HttpRequest} from '../../src/api/http-transport.js';
import type {ProxyChoice} from '../../src/net/proxy-env.js';

// Port 9 (discard) on loopback: nothing may be dialled there, since both cases end before any connection.
const proxy: ProxyChoice = {url: new URL('http://127.0.0.1:9'), origin: 'http://127.0.0.1:9', variable: 'HTTPS_PROXY'};
const url = new URL('https://127.0.0.1:8443/api/v1/builders/assign');
const request = (signal?: AbortSignal): HttpRequest => ({
  method: 'POST',
  url: url.toString(),
  headers: {},
  body: '{}',
  timeoutMs: 1000,
  signal
});

test.each([
  ['closed before the proxy code loaded', 'ECLOSED', 'the HTTP transport is closed', true],
  ['aborted before the proxy code loaded', 'EABORTED', 'the request was aborted', false]
])('a request %s fails as not sent, without dialling the proxy', async (_why, code, message, close) => {
  const requests = new ProxiedRequests({maxResponseBytes: 1024, clock: systemClock});
  const signal = close ? undefined : AbortSignal.abort();
  if (close) requests.close();
  await expect(requests.request(request(signal), url, proxy, '127.0.0.1:8443')).rejects.toMatchObject({
    name: 'TransportError',
    code,
    message,
    notSent: true
  });
});
