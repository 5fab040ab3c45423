import {describe, expect, test} from '@jest/globals';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {
  type CliOptions,
  describeBackends,
  emulatorOptsFromCli,
  formatLedger,
  parseCliArgs,
  runCli
} from '../src/cli.js';

const DEFAULTS: CliOptions = {help: false, port: 0, quiet: false};

describe('parseCliArgs', () => {
  test.each<[number, string[], Partial<CliOptions>]>([
    [1, [], {}],
    [2, ['--port', '8080'], {port: 8080}],
    [3, ['--port=8080', '--profiles=p.json'], {port: 8080, profilesPath: 'p.json'}],
    [
      4,
      ['--api-key', 'k1', '--docker-socket', '/var/run/docker.sock'],
      {apiKey: 'k1', dockerSocket: '/var/run/docker.sock'}
    ],
    [5, ['--latency-ms', '25', '--idle-timeout-ms', '0'], {latencyMs: 25, idleTimeoutMs: 0}],
    [6, ['--host', '0.0.0.0', '--quiet'], {host: '0.0.0.0', quiet: true}],
    [7, ['-h'], {help: true}],
    [
      8,
      ['--docker-socket-arm64', '/arm.sock', '--docker-socket-amd64=/amd.sock'],
      {dockerSocketByArch: {arm64: '/arm.sock', amd64: '/amd.sock'}}
    ],
    [
      9,
      ['--buildkit-api', 'no-info', '--buildkit-version=v0.10.6'],
      {buildkitApi: 'no-info', buildkitVersion: 'v0.10.6'}
    ],
    [10, ['--builder-ids', 'uuid'], {builderIds: 'uuid'}]
  ])('%d: %j', (_n, argv, expected) => {
    expect(parseCliArgs(argv)).toEqual({...DEFAULTS, ...expected});
  });

  test.each<[number, string[], RegExp]>([
    [1, ['--bogus'], /Unknown option --bogus/],
    [11, ['--prot', '8080'], /^Unknown option --prot; did you mean --port\?$/],
    [12, ['--profile=p.json'], /^Unknown option --profile=p\.json; did you mean --profiles\?$/],
    [2, ['--port'], /needs a value/],
    [3, ['--port', '--quiet'], /needs a value/],
    [4, ['--port', '70000'], /integer from 0 to 65535/],
    [5, ['--latency-ms', '-5'], /needs a value|integer/],
    [6, ['--idle-timeout-ms', '1.5'], /integer/],
    [7, ['--profiles='], /needs a value/],
    [8, ['--docker-socket-arm64'], /needs a value/],
    [
      9,
      ['--buildkit-api', 'grpc'],
      /^Option --buildkit-api must be one of control, no-info, preface-only, got "grpc"$/
    ],
    [10, ['--builder-ids=guid'], /^Option --builder-ids must be one of prefixed, uuid, numeric, got "guid"$/]
  ])('%d: rejects %j', (_n, argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(message);
  });
});

describe('emulatorOptsFromCli', () => {
  test('without a file: one default amd64 profile and the default key', () => {
    expect(emulatorOptsFromCli({...DEFAULTS, port: 8080})).toEqual({
      port: 8080,
      profiles: [{name: 'default', architectures: ['amd64']}]
    });
  });

  test('file keys plus --api-key, and every option passed on', () => {
    const opts = emulatorOptsFromCli(
      {
        ...DEFAULTS,
        apiKey: 'cli',
        host: '127.0.0.2',
        dockerSocket: '/d.sock',
        dockerSocketByArch: {arm64: '/arm.sock'},
        latencyMs: 5,
        idleTimeoutMs: 9,
        buildkitApi: 'preface-only'
      },
      {profiles: [{name: 'x'}], apiKeys: [{key: 'file', scopes: ['builders']}]}
    );
    expect(opts).toEqual({
      port: 0,
      host: '127.0.0.2',
      profiles: [{name: 'x'}],
      apiKeys: [
        {key: 'file', scopes: ['builders']},
        {key: 'cli', scopes: ['ci', 'cache', 'builders']}
      ],
      dockerSocket: '/d.sock',
      dockerSocketByArch: {arm64: '/arm.sock'},
      latencyMs: 5,
      idleTimeoutMs: 9,
      buildkit: {api: 'preface-only'}
    });
  });
});

test.each<[number, Parameters<typeof describeBackends>[0], string]>([
  [1, {}, 'BuildKit v0.13.2 Control API (Info, ListWorkers)'],
  [
    4,
    {buildkit: {api: 'no-info', version: 'v0.10.6'}},
    'BuildKit v0.10.6 Control API without Info (as BuildKit < 0.11)'
  ],
  [5, {buildkit: {api: 'preface-only'}}, 'HTTP/2 preface only (no gRPC call answered)'],
  [2, {dockerSocket: '/d.sock'}, 'dockerd BuildKit at /d.sock'],
  [
    3,
    {dockerSocket: '/d.sock', dockerSocketByArch: {arm64: '/a.sock'}},
    'arm64: /a.sock; other builders: dockerd BuildKit at /d.sock'
  ]
])('describeBackends %d', (_n, opts, line) => {
  expect(describeBackends(opts)).toBe(line);
});

test('formatLedger marks builders left assigned', () => {
  const base = {profile: 'p', profileId: 'bp', size: '16x32' as const, arch: 'amd64' as const, pricePerMinute: 0.06};
  const text = formatLedger(
    [
      {
        ...base,
        builderId: 'bld_a',
        assignedAt: 0,
        readyAt: 10,
        terminatedAt: 60_000,
        reason: 'teardown',
        billedMs: 60_000,
        cost: 0.06
      },
      {
        ...base,
        builderId: 'bld_b',
        assignedAt: 0,
        terminatedAt: 1000,
        reason: 'emulator-shutdown',
        billedMs: 1000,
        cost: 0.001
      }
    ],
    0.061
  );
  expect(text).toContain('bld_a  p  16x32  amd64  ready +10 ms  billed 60.0 s  $0.060000  terminated: teardown');
  expect(text).toContain('bld_b  p  16x32  amd64  never ready');
  expect(text).toContain('LEFT ASSIGNED');
  expect(text).toContain('2 builder(s), 1 left assigned, total $0.061000');
});

describe('runCli', () => {
  test('starts from a profiles file, prints the URL and key, and the ledger at the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-emu-cli-'));
    try {
      const file = join(dir, 'profiles.json');
      writeFileSync(
        file,
        JSON.stringify({profiles: [{name: 'ci', size: '32x64'}], apiKeys: [{key: 'k-file', scopes: []}]})
      );
      const out: string[] = [];
      let stop!: () => void;
      const stopped = new Promise<void>(r => (stop = r));
      const run = runCli(
        ['--profiles', file, '--quiet'],
        {out: l => out.push(l), err: l => out.push(`ERR ${l}`)},
        stopped
      );
      await new Promise<void>(r => {
        const poll = (): void => (out.some(l => l.includes('Press Ctrl+C')) ? r() : void setTimeout(poll, 5));
        poll();
      });
      const url = /listening on (\S+)/.exec(out[0] ?? '')?.[1];
      const res = await fetch(`${url}/api/v1/builder-profiles`, {headers: {Authorization: 'Bearer k-file'}});
      expect((await res.json()) as unknown).toMatchObject({builder_profiles: [{name: 'ci', size: '32x64'}]});
      expect(out.join('\n')).toContain('API key:      k-file');
      stop();
      expect(await run).toBe(0);
      expect(out.at(-1)).toContain('0 builder(s), 0 left assigned');
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  });

  test('usage errors exit 2, help exits 0', async () => {
    const out: string[] = [];
    const io = {out: (l: string) => out.push(l), err: (l: string) => out.push(l)};
    expect(await runCli(['--nope'], io)).toBe(2);
    expect(out[0]).toBe('Unknown option --nope');
    expect(await runCli(['--help'], io)).toBe(0);
    expect(out.at(-1)).toMatch(/^Usage:/);
    expect(await runCli(['--profiles', '/no/such/file.json'], io)).toBe(2);
    expect(out.at(-1)).toMatch(/Failed to read emulator config/);
  });
});
