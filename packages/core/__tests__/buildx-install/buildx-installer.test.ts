// The installer end to end over real loopback HTTP: a fake of GitHub's docker/buildx releases, the real
// @actions/tool-cache on a temporary RUNNER_TOOL_CACHE, and a fake `docker` that runs the plugin it finds in
// $DOCKER_CONFIG/cli-plugins as the real CLI does.
import {afterEach, beforeEach, describe, expect, jest, test} from '@jest/globals';
import {execFile} from 'node:child_process';
import {createHash} from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs';
import {tmpdir} from 'node:os';
import {delimiter, join} from 'node:path';
import {promisify} from 'node:util';
import {actionsToolCache} from '../../src/adapters/tool-cache.js';
import {BuildxInstallError} from '../../src/buildx-install/buildx-install-error.js';
import {BuildxInstaller, type BuildxInstallerOpts} from '../../src/buildx-install/buildx-installer.js';
import {buildxPlatform} from '../../src/buildx-install/buildx-platform.js';
import {BuildxReleases} from '../../src/buildx-install/buildx-releases.js';
import {DirToolCache} from '../../src/buildx-install/dir-tool-cache.js';
import {ReleaseHttp} from '../../src/buildx-install/release-http.js';
import {removeInstalledBuildx} from '../../src/provisioning/step-buildx.js';
import {FakeBuildxReleases, writeFakeDocker} from '../../../emulator/src/testing/fake-buildx-releases.js';
import {ForwardProxy} from '../../../emulator/src/testing/forward-proxy.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const run = promisify(execFile);
const HOST = buildxPlatform();
const ASSET = FakeBuildxReleases.assetName('0.19.3', HOST);

let root: string;
let fake: FakeBuildxReleases;
let env: Record<string, string>;
let docker: string;
/** The workflow commands @actions/tool-cache wrote (its core.debug lines), kept out of the test log. */
let toolCacheCommands: string[];
const saved = {RUNNER_TOOL_CACHE: process.env['RUNNER_TOOL_CACHE'], RUNNER_TEMP: process.env['RUNNER_TEMP']};

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'buildx-install-'));
  env = {
    RUNNER_TOOL_CACHE: join(root, 'tool-cache'),
    RUNNER_TEMP: join(root, 'temp'),
    DOCKER_CONFIG: join(root, 'home', '.docker')
  };
  // @actions/tool-cache reads these from process.env at each call.
  process.env['RUNNER_TOOL_CACHE'] = env['RUNNER_TOOL_CACHE'];
  process.env['RUNNER_TEMP'] = env['RUNNER_TEMP'];
  docker = writeFakeDocker(join(root, 'bin'));
  toolCacheCommands = [];
  const write = process.stdout.write.bind(process.stdout);
  jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    if (typeof chunk === 'string' && chunk.startsWith('::')) {
      toolCacheCommands.push(chunk.trimEnd());
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof process.stdout.write);
  fake = await FakeBuildxReleases.start({versions: ['0.19.3', '0.18.0']});
});

afterEach(async () => {
  jest.restoreAllMocks();
  await fake.close();
  rmSync(root, {recursive: true, force: true});
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

function installer(opts: Partial<BuildxInstallerOpts> & {http?: ReleaseHttp; baseUrl?: string} = {}): BuildxInstaller {
  const {http, baseUrl, ...rest} = opts;
  return new BuildxInstaller({
    toolCache: actionsToolCache,
    releases: new BuildxReleases({baseUrl: baseUrl ?? fake.baseUrl, http: http ?? new ReleaseHttp({env})}),
    platform: HOST,
    env,
    ...rest
  });
}

/** `docker ARGS` with the fake docker first on PATH and `extra` over the test's env. */
async function dockerRun(args: string[], extra: Record<string, string>): Promise<string> {
  const res = await run(docker, args, {
    env: {PATH: `${join(root, 'bin')}${delimiter}${process.env['PATH']}`, HOME: join(root, 'home'), ...env, ...extra}
  });
  return res.stdout.trim();
}

async function installError(p: Promise<unknown>): Promise<BuildxInstallError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(BuildxInstallError);
  return err as BuildxInstallError;
}

function cachedVersions(): string[] {
  const dir = join(env['RUNNER_TOOL_CACHE'] as string, 'docker-buildx');
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('a release', () => {
  test('is downloaded (checksums first), verified, cached, and runs as `docker buildx` through the returned env', async () => {
    const logger = new RecordingLogger();
    const got = await installer({logger}).install({kind: 'release', version: '0.19.3'});

    expect(got.version).toBe('0.19.3');
    expect(got.fromCache).toBe(false);
    expect(got.env).toEqual({DOCKER_CONFIG: got.dockerConfig});
    expect(got.pluginPath).toBe(join(got.dockerConfig, 'cli-plugins', 'docker-buildx'));
    expect(got.dockerConfig.startsWith(env['RUNNER_TEMP'] as string)).toBe(true);
    expect(readFileSync(got.cachedPath)).toEqual(FakeBuildxReleases.assetBody('0.19.3', HOST));
    expect(statSync(got.pluginPath).mode & 0o111).toBe(0o111);
    expect(cachedVersions()).toEqual(['0.19.3']);
    // The cache was asked first and missed, then filled: @actions/tool-cache's own account of it.
    const missed = toolCacheCommands.findIndex(c => c === '::debug::not found');
    const cached = toolCacheCommands.findIndex(c => c === '::debug::Caching tool docker-buildx 0.19.3 ' + HOST.arch);
    expect(missed).toBeGreaterThanOrEqual(0);
    expect(cached).toBeGreaterThan(missed);
    // checksums.txt, then the asset through GitHub's redirect to its objects host.
    expect(fake.requests.map(r => `${r.status} ${r.path}`)).toEqual([
      '302 /docker/buildx/releases/download/v0.19.3/checksums.txt',
      '200 /objects/v0.19.3/checksums.txt',
      `302 /docker/buildx/releases/download/v0.19.3/${ASSET}`,
      `200 /objects/v0.19.3/${ASSET}`
    ]);
    expect(logger.text).toContain(`Verified ${ASSET}: sha256 ${FakeBuildxReleases.assetSha256('0.19.3', HOST)}`);
    // Nothing left of the download in RUNNER_TEMP but the private DOCKER_CONFIG.
    expect(readdirSync(env['RUNNER_TEMP'] as string)).toEqual([got.dockerConfig.split('/').pop()]);

    expect(await dockerRun(['buildx', 'version'], got.env)).toMatch(
      /^github\.com\/docker\/buildx v0\.19\.3 [0-9a-f]{7}$/
    );
    // Without the env, the runner's docker has no buildx here.
    await expect(dockerRun(['buildx', 'version'], {})).rejects.toThrow(/'buildx' is not a docker command/);
  });

  test('a second install is a cache hit: no request at all, a new private DOCKER_CONFIG', async () => {
    expect(installer().cached('0.19.3')).toBe(false);
    const first = await installer().install({kind: 'release', version: '0.19.3'});
    expect(installer().cached('0.19.3')).toBe(true);
    expect(installer().cached('0.18.0')).toBe(false);
    const before = fake.requests.length;
    const second = await installer().install({kind: 'release', version: '0.19.3'});

    expect(second.fromCache).toBe(true);
    expect(fake.requests.length).toBe(before);
    expect(second.cachedPath).toBe(first.cachedPath);
    expect(second.dockerConfig).not.toBe(first.dockerConfig);
    expect(await dockerRun(['buildx', 'version'], second.env)).toContain('v0.19.3');
  });

  test('what DirToolCache cached, @actions/tool-cache finds (same layout), and the other way round', async () => {
    const viaDir = installer({toolCache: new DirToolCache(env['RUNNER_TOOL_CACHE'] as string)});
    await viaDir.install({kind: 'release', version: '0.19.3'});
    const hit = await installer().install({kind: 'release', version: '0.19.3'});
    expect(hit.fromCache).toBe(true);

    await installer().install({kind: 'release', version: '0.18.0'});
    const count = fake.requests.length;
    const hit2 = await viaDir.install({kind: 'release', version: '0.18.0'});
    expect(hit2.fromCache).toBe(true);
    expect(fake.requests.length).toBe(count);
  });

  test('a version that was never released: HTTP 404 with the URL and where to look', async () => {
    const err = await installError(installer().install({kind: 'release', version: '0.99.0'}));
    expect(err.status).toBe(404);
    expect(err.url).toBe(`${fake.baseUrl}/releases/download/v0.99.0/checksums.txt`);
    expect(err.message).toBe(
      `Failed to download checksums.txt of buildx v0.99.0 from ${err.url}: HTTP 404 (redirected to ${new URL(fake.baseUrl).host}) ` +
        `(check that v0.99.0 is a buildx release at ${fake.baseUrl}/releases, or leave buildx-version empty to use the runner's buildx)`
    );
    expect(cachedVersions()).toEqual([]);
  });
});

describe('latest', () => {
  test("follows the server's releases/latest redirect, then installs that release", async () => {
    fake.latest = '0.18.0';
    const logger = new RecordingLogger();
    const got = await installer({logger}).install({kind: 'latest'});
    expect(got.version).toBe('0.18.0');
    expect(fake.requests[0]).toEqual({path: '/docker/buildx/releases/latest', status: 302});
    expect(logger.messages('info')).toContain('buildx-version latest is v0.18.0');
    expect(await dockerRun(['buildx', 'version'], got.env)).toContain('v0.18.0');
  });

  test('asks again every time (latest moves), then hits the cache for the version', async () => {
    await installer().install({kind: 'latest'});
    const count = fake.requests.length;
    const again = await installer().install({kind: 'latest'});
    expect(again.fromCache).toBe(true);
    expect(fake.requests.slice(count)).toEqual([{path: '/docker/buildx/releases/latest', status: 302}]);
  });

  test('a failing releases/latest: HTTP status, URL and the fix (pin a version)', async () => {
    fake.fault = {kind: 'status', status: 503, file: 'latest'};
    const err = await installError(installer().install({kind: 'latest'}));
    expect(err.message).toBe(
      `Failed to find the latest buildx release from ${fake.baseUrl}/releases/latest: HTTP 503 ` +
        `(the release server failed: re-run the job, or leave buildx-version empty to use the runner's buildx)`
    );
  });
});

describe('verification', () => {
  test('a wrong checksum is an error naming the file and both digests; nothing is cached or installed', async () => {
    fake.fault = {kind: 'wrong-checksum', file: ASSET};
    const listed = readChecksumLine();
    const err = await installError(installer().install({kind: 'release', version: '0.19.3'}));
    const actual = FakeBuildxReleases.assetSha256('0.19.3', HOST);
    expect(err.failure).toBe('checksum');
    expect(err.message).toContain(
      `Checksum mismatch for ${ASSET} from ${fake.baseUrl}/releases/download/v0.19.3/${ASSET}`
    );
    expect(err.message).toContain(`checksums.txt says sha256 ${listed}`);
    expect(err.message).toContain(`has sha256 ${actual}`);
    expect(listed).not.toBe(actual);
    expect(cachedVersions()).toEqual([]);
    expect(readdirSync(env['RUNNER_TEMP'] as string)).toEqual([]);

    // Once the release is sound again, the next install downloads it afresh (nothing bad was cached).
    fake.fault = undefined;
    const got = await installer().install({kind: 'release', version: '0.19.3'});
    expect(got.fromCache).toBe(false);
  });

  test('a checksums.txt without a line for the asset is an error naming the file and both digests', async () => {
    fake.fault = {kind: 'missing-checksum', file: ASSET};
    const err = await installError(installer().install({kind: 'release', version: '0.19.3'}));
    expect(err.failure).toBe('checksum');
    expect(err.message).toContain(`Cannot verify ${ASSET}`);
    expect(err.message).toContain(
      `(expected sha256: none, downloaded sha256: ${FakeBuildxReleases.assetSha256('0.19.3', HOST)})`
    );
    expect(cachedVersions()).toEqual([]);
  });

  /** The digest the faulty checksums.txt lists for ASSET, read as a client would. */
  function readChecksumLine(): string {
    // Recomputed here the way the fake does, so the test does not trust the installer to report it.
    return createHashHex(`not ${ASSET}`);
  }
});

describe('HTTP faults', () => {
  test('404 on the asset: the asset URL, the status and the fix', async () => {
    fake.fault = {kind: 'not-found', file: ASSET};
    const err = await installError(installer().install({kind: 'release', version: '0.19.3'}));
    expect(err.status).toBe(404);
    expect(err.url).toBe(`${fake.baseUrl}/releases/download/v0.19.3/${ASSET}`);
    expect(err.message).toContain(`Failed to download buildx v0.19.3 from ${err.url}: HTTP 404`);
    expect(err.message).toContain(`with an asset ${ASSET}`);
  });

  test('500 on checksums.txt: the status and "re-run"; the asset is not even asked for', async () => {
    fake.fault = {kind: 'status', status: 500, file: 'checksums.txt'};
    const err = await installError(installer().install({kind: 'release', version: '0.19.3'}));
    expect(err.status).toBe(500);
    expect(err.failure).toBe('http');
    expect(err.message).toContain('HTTP 500');
    expect(err.message).toContain('the release server failed: re-run the job');
    expect(fake.requestsFor(ASSET)).toEqual([]);
  });

  test('a body that stops mid-way fails once the idle timeout passes on the clock, naming the stall', async () => {
    fake.fault = {kind: 'slow-body', file: ASSET};
    // Time moves only once the asset's first bytes are out: checksums.txt and the redirects cannot time out.
    const clock = new FakeClock();
    fake.onSlowBodyStarted = () => clock.advance(60_000);
    const http = new ReleaseHttp({env, clock});
    const err = await installError(installer({http}).install({kind: 'release', version: '0.19.3'}));
    expect(err.failure).toBe('network');
    expect(err.message).toContain(
      `Failed to download buildx v0.19.3 from ${fake.baseUrl}/releases/download/v0.19.3/${ASSET}: no data for 60000 ms`
    );
    expect(err.message).toContain('check the runner');
    expect(cachedVersions()).toEqual([]);
    // Every request's watch is released.
    expect(clock.pendingTimers).toBe(0);
  });

  test('a cancelled step stops a download in flight', async () => {
    fake.fault = {kind: 'slow-body', file: ASSET};
    const controller = new AbortController();
    fake.onSlowBodyStarted = () => controller.abort(new Error('step cancelled'));
    const err = await installError(
      installer().install({kind: 'release', version: '0.19.3'}, {signal: controller.signal})
    );
    expect(err.message).toContain(
      `Failed to download buildx v0.19.3 from ${fake.baseUrl}/releases/download/v0.19.3/${ASSET}: cancelled`
    );
    expect(readdirSync(env['RUNNER_TEMP'] as string)).toEqual([]);
  });

  test('no server: the network error and the proxy variables to check', async () => {
    const base = fake.baseUrl;
    await fake.close();
    const err = await installError(installer({baseUrl: base}).install({kind: 'release', version: '0.19.3'}));
    expect(err.failure).toBe('network');
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.message).toContain("check the runner's network and proxy settings (HTTPS_PROXY, NO_PROXY)");
    fake = await FakeBuildxReleases.start();
  });

  test('goes through the proxy of http_proxy, every hop (the name resolves only at the proxy)', async () => {
    const {port} = new URL(fake.baseUrl);
    const proxy = await ForwardProxy.start({hosts: {'github.remote-builder.test': '127.0.0.1'}});
    try {
      env['http_proxy'] = proxy.url;
      const got = await installer({baseUrl: `http://github.remote-builder.test:${port}/docker/buildx`}).install({
        kind: 'latest'
      });
      expect(got.version).toBe('0.19.3');
      const target = `github.remote-builder.test:${port}`;
      // releases/latest (not followed), then checksums.txt and the asset, each redirected once.
      expect(proxy.tunnels()).toEqual([target, target, target, target, target]);
      expect(fake.requests.length).toBe(5);
    } finally {
      await proxy.close();
    }
  });
});

describe('the private DOCKER_CONFIG', () => {
  test("keeps the user's logins, builders, contexts and other plugins; shadows their old buildx; changes nothing of theirs", async () => {
    const user = env['DOCKER_CONFIG'] as string;
    const extra = join(root, 'extra-plugins');
    mkdirSync(join(user, 'cli-plugins'), {recursive: true});
    mkdirSync(join(user, 'contexts', 'meta'), {recursive: true});
    mkdirSync(extra);
    const config = {
      auths: {'registry.example': {auth: 'dXNlcjpwYXNz'}},
      credsStore: 'pass',
      cliPluginsExtraDirs: [extra]
    };
    writeFileSync(join(user, 'config.json'), JSON.stringify(config));
    writeExecutable(join(user, 'cli-plugins', 'docker-buildx'), 'echo "github.com/docker/buildx v0.10.0 old"');
    writeExecutable(join(user, 'cli-plugins', 'docker-compose'), 'echo compose');
    writeExecutable(join(extra, 'docker-buildx'), 'echo "github.com/docker/buildx v0.9.0 extra"');
    writeExecutable(join(extra, 'docker-scan'), 'echo scan');
    const userBefore = readFileSync(join(user, 'config.json'), 'utf8');
    expect(await dockerRun(['buildx', 'version'], {})).toContain('v0.10.0');

    const got = await installer().install({kind: 'release', version: '0.19.3'});
    const dir = got.dockerConfig;

    expect(await dockerRun(['buildx', 'version'], got.env)).toContain('v0.19.3');
    const copied = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(copied).toEqual({auths: config.auths, credsStore: 'pass'});
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(dir, 'cli-plugins')).sort()).toEqual(['docker-buildx', 'docker-compose', 'docker-scan']);
    expect(lstatSync(join(dir, 'cli-plugins', 'docker-compose')).isSymbolicLink()).toBe(true);
    // A builder buildx records through the private config is the user's builder.
    expect(lstatSync(join(dir, 'buildx')).isSymbolicLink()).toBe(true);
    writeFileSync(join(dir, 'buildx', 'current'), 'rb-builder');
    expect(readFileSync(join(user, 'buildx', 'current'), 'utf8')).toBe('rb-builder');
    expect(existsSync(join(dir, 'contexts', 'meta'))).toBe(true);

    expect(readFileSync(join(user, 'config.json'), 'utf8')).toBe(userBefore);
    expect(await dockerRun(['buildx', 'version'], {})).toContain('v0.10.0');

    // What post does with it (removeInstalledBuildx): the private folder goes, the user's entries stay.
    removeInstalledBuildx({logger: new RecordingLogger()}, dir);
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(join(user, 'buildx', 'current'), 'utf8')).toBe('rb-builder');
    expect(existsSync(join(user, 'cli-plugins', 'docker-compose'))).toBe(true);
  });

  test('a user without any DOCKER_CONFIG yet gets one with a buildx store, and no config.json is invented', async () => {
    const got = await installer().install({kind: 'release', version: '0.19.3'});
    expect(existsSync(join(env['DOCKER_CONFIG'] as string, 'buildx'))).toBe(true);
    expect(existsSync(join(got.dockerConfig, 'config.json'))).toBe(false);
    expect(readdirSync(join(got.dockerConfig, 'cli-plugins'))).toEqual(['docker-buildx']);
  });
});

function writeExecutable(path: string, line: string): void {
  writeFileSync(path, `#!/bin/sh\n${line}\n`);
  chmodSync(path, 0o755);
}

function createHashHex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
