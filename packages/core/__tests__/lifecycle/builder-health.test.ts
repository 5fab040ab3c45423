import {describe, expect, test} from '@jest/globals';
import type {BuilderDetails} from '../../src/api/types.js';
import {ApiError} from '../../src/errors.js';
import {parseBuilderEndpoint} from '../../src/lifecycle/builder-endpoint.js';
import {checkBuilderHealth, type BuilderHealth} from '../../src/lifecycle/builder-health.js';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import type {ReadyBuilder} from '../../src/lifecycle/readiness.js';
import {TlsProbeError} from '../../src/lifecycle/tls-probe.js';
import {
  FakeBuilderApi,
  hangUntilAborted,
  httpError,
  pendingDetails,
  readyDetails,
  type DetailsStep
} from '../fakes/fake-builder-api.js';
import {FakeProbe, rejected, unreachable, type ProbeStep} from '../fakes/fake-probe.js';
import {TEST_PEMS} from '../fakes/pems.js';
import type {Clock} from '../../src/clock.js';
import {FakeClock} from '../fakes/fake-clock.js';

const pems = {ca: TEST_PEMS.ca, cert: TEST_PEMS.cert, key: TEST_PEMS.key};
const builder: ReadyBuilder = {
  id: 'b1',
  endpoint: parseBuilderEndpoint('10.0.0.1:1234'),
  platforms: [],
  pems,
  detailsRequests: 3
};
const HOST = '10.0.0.1:1234';
const WHERE = '10.0.0.1:1234';

function check(
  details: DetailsStep,
  probeStep?: ProbeStep,
  opts: {signal?: AbortSignal; timeoutMs?: number; clock?: Clock} = {}
): {result: Promise<BuilderHealth>; api: FakeBuilderApi; probe: FakeProbe} {
  const api = new FakeBuilderApi().onDetails('b1', details);
  const probe = new FakeProbe();
  if (probeStep) probe.on('10.0.0.1', probeStep);
  return {result: checkBuilderHealth(builder, {api, probe: probe.probe, ...opts}), api, probe};
}

describe('checkBuilderHealth', () => {
  test('ready details and an accepted probe → ready; one details request, one probe with the known material', async () => {
    const c = check(readyDetails(HOST, {status: 'ready'}));
    await expect(c.result).resolves.toEqual({ready: true});
    expect(c.api.detailsCalls.map(d => [d.id, d.retry, d.signal instanceof AbortSignal])).toEqual([
      ['b1', false, true]
    ]);
    expect(c.probe.calls).toEqual([{hostname: '10.0.0.1', port: 1234, pems, timeoutMs: 5000}]);
  });

  test('timeoutMs is the limit of the probe too', async () => {
    const c = check(readyDetails(HOST), undefined, {timeoutMs: 1500});
    await expect(c.result).resolves.toEqual({ready: true});
    expect(c.probe.calls.map(p => p.timeoutMs)).toEqual([1500]);
  });

  const newPem = (label: string): string => `-----BEGIN ${label}-----\nMIIBotherBodyLine\n-----END ${label}-----\n`;

  test.each<[string, DetailsStep, BuilderHealth]>([
    ['no status, complete details', readyDetails(HOST), {ready: true}],
    ['status "Ready", host as tcp://', readyDetails(`tcp://${HOST}`, {status: 'Ready'}), {ready: true}],
    [
      'other client material from the same service',
      readyDetails(HOST, {status: 'ready'}, {client_cert: newPem('CERTIFICATE'), client_key: newPem('PRIVATE KEY')}),
      {ready: true}
    ],
    [
      'status pending',
      readyDetails(HOST, {status: 'pending'}),
      {ready: false, why: 'its status is "pending", not "ready"'}
    ],
    ['status failed', readyDetails(HOST, {status: 'failed'}), {ready: false, why: 'its status is "failed"'}],
    ['status error', readyDetails(HOST, {status: 'error'}), {ready: false, why: 'its status is "error"'}],
    ['status terminated', pendingDetails({status: 'terminated'}), {ready: false, why: 'its status is "terminated"'}],
    ['status deleted', readyDetails(HOST, {status: 'deleted'}), {ready: false, why: 'its status is "deleted"'}],
    [
      'HTTP 404',
      httpError('get builder details', 404),
      {ready: false, why: 'the service no longer knows it (details answered HTTP 404)'}
    ],
    [
      'HTTP 410',
      httpError('get builder details', 410),
      {ready: false, why: 'the service no longer knows it (details answered HTTP 410)'}
    ],
    [
      'HTTP 503',
      httpError('get builder details', 503, 'upstream down'),
      {ready: false, why: 'its details could not be read: Failed to get builder details: HTTP 503: upstream down'}
    ],
    [
      'a network error',
      new ApiError({call: 'get builder details', code: 'ECONNRESET'}),
      {ready: false, why: 'its details could not be read: Failed to get builder details: ECONNRESET'}
    ],
    ['no host', readyDetails('', {status: 'ready'}), {ready: false, why: 'its details lack host'}],
    [
      'no PEMs',
      readyDetails(HOST, {status: 'ready'}, {ca: '', client_cert: '  ', client_key: ''}),
      {ready: false, why: 'its details lack ca, client_cert, client_key'}
    ],
    [
      'no metadata at all',
      {status: 'ready'} as unknown as BuilderDetails,
      {ready: false, why: 'its details lack host, ca, client_cert, client_key'}
    ],
    [
      'a null answer',
      null as unknown as BuilderDetails,
      {ready: false, why: 'its details answer is not a JSON object'}
    ],
    [
      'a malformed PEM',
      readyDetails(HOST, {}, {ca: 'not a pem'}),
      {ready: false, why: 'its details carry a malformed ca: not a PEM block'}
    ],
    [
      'an unusable host',
      readyDetails('http://10.0.0.1:1234'),
      {
        ready: false,
        why: 'its details carry an unusable host: the builder host "http://10.0.0.1:1234" uses http://; expected tcp://'
      }
    ],
    [
      'a builder that moved',
      readyDetails('10.0.0.9:1234'),
      {ready: false, why: 'its details now name 10.0.0.9:1234 instead of 10.0.0.1:1234'}
    ],
    [
      'another port',
      readyDetails('10.0.0.1'),
      {ready: false, why: 'its details now name 10.0.0.1:2376 instead of 10.0.0.1:1234'}
    ]
  ])('%#: %s', async (_name, details, expected) => {
    const c = check(details);
    await expect(c.result).resolves.toEqual(expected);
    expect(c.api.detailsCalls).toHaveLength(1);
    // The probe runs only once the details are fine.
    expect(c.probe.calls).toHaveLength(expected.ready ? 1 : 0);
  });

  test.each<[string, Error]>([
    ['unreachable', unreachable(WHERE)],
    ['rejected', rejected(WHERE)],
    ['timeout', new TlsProbeError('timeout', `the builder at ${WHERE} never completed a TLS handshake within 5000 ms`)],
    ['aborted, not by us', new TlsProbeError('aborted', `TLS check of ${WHERE} was cancelled`)],
    ['not a TlsProbeError', new Error('boom')]
  ])('%#: probe failure (%s) → not ready, with the probe message', async (_name, error) => {
    const c = check(readyDetails(HOST, {status: 'ready'}), error);
    await expect(c.result).resolves.toEqual({
      ready: false,
      why: `the TLS check of ${WHERE} failed: ${error.message}`
    });
  });

  test('a details request with no answer → not ready at the time limit on the clock', async () => {
    const clock = new FakeClock();
    // The service holds the request while the clock passes the limit.
    const hang = (arg: {signal?: AbortSignal}): Promise<never> => {
      const held = hangUntilAborted<never>(arg);
      clock.advance(20);
      return held;
    };
    const c = check(hang, undefined, {timeoutMs: 20, clock});
    await expect(c.result).resolves.toEqual({
      ready: false,
      why: 'the details request got no answer within 20 ms'
    });
    expect(c.api.detailsCalls[0]?.signal?.aborted).toBe(true);
    expect(c.probe.calls).toEqual([]);
  });

  test('aborted before: throws the abort reason, calls nothing', async () => {
    const ctl = new AbortController();
    ctl.abort(new CancelledError('Cancelled by SIGTERM'));
    const c = check(readyDetails(HOST), undefined, {signal: ctl.signal});
    await expect(c.result).rejects.toBe(ctl.signal.reason);
    expect(c.api.detailsCalls).toEqual([]);
    expect(c.probe.calls).toEqual([]);
  });

  test('aborted during the details request: throws the abort reason, no probe', async () => {
    const ctl = new AbortController();
    const reason = new CancelledError('Cancelled by SIGINT');
    const c = check(
      arg => {
        ctl.abort(reason);
        return hangUntilAborted(arg);
      },
      undefined,
      {signal: ctl.signal}
    );
    await expect(c.result).rejects.toBe(reason);
    expect(c.probe.calls).toEqual([]);
  });

  test('aborted during the probe: throws the abort reason, not the probe error', async () => {
    const ctl = new AbortController();
    const reason = new CancelledError('Cancelled by SIGINT');
    const c = check(
      readyDetails(HOST),
      opts => {
        expect(opts.signal).toBe(ctl.signal);
        ctl.abort(reason);
        throw new TlsProbeError('aborted', `TLS check of ${WHERE} was cancelled`);
      },
      {signal: ctl.signal}
    );
    await expect(c.result).rejects.toBe(reason);
  });
});
