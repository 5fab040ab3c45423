// Runners behind an HTTP(S) proxy: the bundled actions with HTTPS_PROXY pointing at a real forward proxy, the API
// served over HTTPS under a name only the proxy resolves (api.remote-builder.test) with a private CA given as
// NODE_EXTRA_CA_CERTS. Checked: the calls are tunnelled, the builder is reached directly (as buildx does), the
// proxy's refusals and failures are named in the error, nothing is left billed, no secret (proxy password
// included) is shown. No test lets a step resolve a .test name itself: this machine must not query DNS.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {Emulator, type ProfileConfig} from '@remote-builder-actions/emulator';
import {ForwardProxy, type ForwardProxyOpts} from '../src/testing/forward-proxy.js';
import {BUILD_PUSH, CONFIGURE, requireBundles, type ActionUnderTest} from './kit/actions.js';
import {API_KEY, PROFILES, removeJob, runJob, type JobResult} from './kit/job.js';
import {describeJob} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

const API_HOST = 'api.remote-builder.test';
const PROXY_USER = 'ci-runner';
const PROXY_PASSWORD = 'pr0xy-s3cret-9f2e';

/** An address of this machine the proxy rules do not bypass (not 127.*, not localhost) that needs no DNS. */
const UNBYPASSED = '0.0.0.0';

interface ProxyRun {
  emu: Emulator;
  proxy: ForwardProxy;
  job: JobResult;
  /** `api.remote-builder.test:PORT` */
  apiTarget: string;
  /** Everything the job printed. */
  all: string;
}

interface ProxyRunOpts {
  action: ActionUnderTest;
  proxy?: ForwardProxyOpts;
  /** The job's env from the proxy and the CA file; default HTTPS_PROXY + NODE_EXTRA_CA_CERTS. */
  env?: (proxy: ForwardProxy, caFile: string) => Record<string, string>;
  inputs?: Record<string, string>;
  profiles?: ProfileConfig[];
}

const standardEnv = (proxy: ForwardProxy, caFile: string): Record<string, string> => ({
  HTTPS_PROXY: proxy.url,
  NODE_EXTRA_CA_CERTS: caFile
});

/** Runs one job against a fresh HTTPS emulator behind a fresh forward proxy, then checks the shared invariants. */
async function proxyRun(opts: ProxyRunOpts, check: (run: ProxyRun) => void): Promise<void> {
  const emu = await Emulator.start({
    profiles: opts.profiles ?? PROFILES,
    apiKeys: [{key: API_KEY, scopes: ['builders']}],
    https: {hostnames: [API_HOST]}
  });
  const proxy = await ForwardProxy.start({hosts: {[API_HOST]: '127.0.0.1'}, ...opts.proxy});
  const dir = mkdtempSync(join(tmpdir(), 'faults-proxy-ca-'));
  let job: JobResult | undefined;
  try {
    const caFile = join(dir, 'api-ca.pem');
    writeFileSync(caFile, emu.apiCaCert ?? '');
    const port = new URL(emu.url).port;
    const env = (opts.env ?? standardEnv)(proxy, caFile);
    job = await runJob({
      action: opts.action,
      emu,
      inputs: {'api-url': `https://${API_HOST}:${port}`, ...opts.inputs},
      env
    });
    const all = describeJob(job);
    // Post never fails; no builder, certificate or secret is left; nothing stays billed.
    for (const p of job.posts) {
      expect({exit: p.exitCode, log: all}).toMatchObject({exit: 0});
      expect(p.annotations.filter(a => a.level === 'error')).toEqual([]);
    }
    expect(job.buildersLeft).toEqual([]);
    expect(job.leaks).toEqual([]);
    expect(job.certs.modeProblems).toEqual([]);
    expect(job.certs.leftAfterPost).toBe(false);
    // Shown nowhere but in the add-mask commands that hide it (the runner consumes them, never prints them).
    const shown = all
      .split('\n')
      .filter(l => !/^\s*::add-mask::/.test(l))
      .join('\n');
    expect(shown).not.toContain(PROXY_PASSWORD);
    expect({live: emu.assignedBuilders().map(e => e.builderId), log: all}).toMatchObject({live: []});
    check({emu, proxy, job, apiTarget: `${API_HOST}:${port}`, all});
  } finally {
    await proxy.close();
    await emu.close();
    rmSync(dir, {recursive: true, force: true});
    if (job) removeJob(job);
  }
}

/** main succeeded, one builder was assigned and torn down, and every CONNECT went to the API. */
function succeededThroughProxy({emu, proxy, job, apiTarget, all}: ProxyRun): void {
  expect({exit: job.main?.exitCode, log: all}).toMatchObject({exit: 0});
  expect(job.error).toBe('');
  expect(emu.ledger()).toEqual([expect.objectContaining({reason: 'teardown'})]);
  const routes = emu.requests().map(r => r.route);
  expect(routes[0]).toBe('assign');
  expect(routes).toContain('teardown');
  // Every API call went through a tunnel to the API, and nothing else did: the readiness check and buildx
  // reach the builder directly. Keep-alive tunnels carry several calls.
  const tunnels = proxy.tunnels();
  expect(tunnels.length).toBeGreaterThanOrEqual(1);
  expect(tunnels.length).toBeLessThanOrEqual(routes.length);
  expect(proxy.log()).toEqual(tunnels.map(target => expect.objectContaining({method: 'CONNECT', target, status: 200})));
  expect(new Set(tunnels)).toEqual(new Set([apiTarget]));
}

/** main failed before anything reached the service: nothing assigned, the error names the proxy. */
function refusedByProxy(error: RegExp): (run: ProxyRun) => void {
  return ({emu, job, all}) => {
    expect({exit: job.main?.exitCode, log: all}).toMatchObject({exit: 1});
    expect(job.error).toMatch(error);
    expect(emu.requests()).toEqual([]);
    expect(emu.ledger()).toEqual([]);
  };
}

beforeAll(() => requireBundles([CONFIGURE, BUILD_PUSH]));
afterAll(() => reportScan('proxy'));

// What only shows through the bundles: each step process honours HTTPS_PROXY / https_proxy and
// NODE_EXTRA_CA_CERTS (read at process start), main and post each tunnel, the builder is reached directly, and
// the proxy's password is shown nowhere, on success and on a refusal. The rules and the errors are core's,
// in-process: net/proxy-env.test.ts (which variable, NO_PROXY and the loopback bypass, as @actions/http-client),
// api/http-transport.test.ts (407 without credentials, 403, the proxy down, an untrusted CA: each error's
// words), net/api-over-proxy.test.ts (assign, details and teardown tunnelled through the emulator's HTTPS).
describe('behind a proxy', () => {
  test.concurrent(
    'build-push: HTTPS_PROXY and a private CA in NODE_EXTRA_CA_CERTS: the API is tunnelled, the builder (at an address the proxy rules do not bypass) reached directly, as buildx does',
    async () => {
      await proxyRun({action: BUILD_PUSH, profiles: [{name: 'p', readyDelayMs: 150, hostName: UNBYPASSED}]}, run => {
        succeededThroughProxy(run);
        // buildx is told the address: by its create, or by the write that sets the node made before any was ready.
        const creates = run.job.dockerCalls.filter(c => c[1] === 'create').map(c => c.join(' '));
        const set = run.all.split('\n').filter(l => l.includes('Set node'));
        expect([...creates, ...set].join('\n')).toContain(`tcp://${UNBYPASSED}:`);
      });
    }
  );

  test.concurrent(
    'configure: lower-case https_proxy with credentials: Proxy-Authorization from main and post, and the password shown nowhere',
    async () => {
      await proxyRun(
        {
          action: CONFIGURE,
          proxy: {auth: {username: PROXY_USER, password: PROXY_PASSWORD}},
          env: (proxy, caFile) => ({
            https_proxy: proxy.urlWith(PROXY_USER, PROXY_PASSWORD),
            NODE_EXTRA_CA_CERTS: caFile
          })
        },
        run => {
          succeededThroughProxy(run);
          // main and post are separate processes: each opens its own tunnel (configure tears down in post).
          expect(run.proxy.tunnels().length).toBeGreaterThanOrEqual(2);
          expect(run.proxy.log().every(e => e.user === PROXY_USER)).toBe(true);
        }
      );
    }
  );

  test.concurrent('configure: 407 for wrong credentials, named by variable, the password shown nowhere', async () => {
    await proxyRun(
      {
        action: CONFIGURE,
        proxy: {auth: {username: PROXY_USER, password: 'the-right-one'}},
        env: (proxy, caFile) => ({
          HTTPS_PROXY: proxy.urlWith(PROXY_USER, PROXY_PASSWORD),
          NODE_EXTRA_CA_CERTS: caFile
        })
      },
      refusedByProxy(
        /the proxy http:\/\/127\.0\.0\.1:\d+ refused the tunnel .*\(HTTP 407 .*\): check HTTPS_PROXY's credentials/
      )
    );
  });
});
