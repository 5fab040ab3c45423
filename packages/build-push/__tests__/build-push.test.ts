import {describe, expect, test} from '@jest/globals';
import {mkdtempSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {
  MemoryStateStore,
  loadRun,
  type ActionIO,
  type Exec,
  type ExecOpts,
  type ExecResult,
  type Logger
} from '@remote-builder-actions/core/step';
import {buildPush} from '../src/build-push.js';

interface Recorded {
  io: ActionIO;
  lines: string[];
  outputs: Record<string, string>;
  /** What main wrote to the job summary (post writes the step's block: none here). */
  summaries: string[];
}

function fakeIO(inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}): Recorded {
  const lines: string[] = [];
  const outputs: Record<string, string> = {};
  const summaries: string[] = [];
  const logger: Logger = {
    debug: m => lines.push(`debug: ${m}`),
    info: m => lines.push(m),
    untrusted: m => lines.push(`untrusted: ${m}`),
    warning: m => lines.push(`warning: ${m}`),
    error: m => lines.push(`error: ${m}`),
    group: (_t, fn) => fn(),
    setSecret: () => undefined
  };
  const io: ActionIO = {
    logger,
    state: new MemoryStateStore(),
    env: {
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_REF: 'refs/heads/main',
      RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'bp-')),
      ...env
    },
    getInput: n => (inputs[n] ?? '').trim(),
    setOutput: (n, v) => (outputs[n] = v),
    exportVariable: () => undefined,
    writeMarkdownSummary: async m => void summaries.push(m),
    setFailed: () => undefined
  };
  return {io, lines, outputs, summaries};
}

/** A docker that answers version and inspect, and writes the iidfile and metadata file on build. */
class FakeDocker implements Exec {
  readonly calls: string[][] = [];
  constructor(private readonly inspect: string) {}
  async run(_cmd: string, args: string[], _opts?: ExecOpts): Promise<ExecResult> {
    this.calls.push(args);
    if (args[1] === 'version') return {exitCode: 0, stdout: 'github.com/docker/buildx v0.13.1 abc\n', stderr: ''};
    if (args[1] === 'inspect') return {exitCode: 0, stdout: this.inspect, stderr: ''};
    const flag = (f: string) => args[args.indexOf(f) + 1] as string;
    writeFileSync(flag('--iidfile'), 'sha256:iid');
    writeFileSync(flag('--metadata-file'), JSON.stringify({'containerimage.digest': 'sha256:dig'}));
    return {exitCode: 0, stdout: '', stderr: ''};
  }
}

describe('buildPush on a shared builder (builder input)', () => {
  test('nodes report no platforms: the guard is skipped with a debug line and the build runs', async () => {
    const docker = new FakeDocker('Name: shared\nDriver: remote\n\nName: n0\nEndpoint: tcp://h:1\nStatus: running\n');
    const r = fakeIO({builder: 'shared', context: '.', platforms: 'linux/arm64'});
    const res = await buildPush({io: r.io, exec: docker});
    expect(r.lines).toContain(
      'debug: Cannot check "platforms" against builder "shared": its nodes report no platforms'
    );
    expect(res.digest).toBe('sha256:dig');
    // From the metadata file the build wrote: printed as untrusted text.
    expect(r.lines).toEqual(
      expect.arrayContaining(['untrusted: ImageID: sha256:iid', 'untrusted: Digest: sha256:dig'])
    );
    expect(r.outputs).toEqual({
      imageid: 'sha256:iid',
      digest: 'sha256:dig',
      metadata: '{\n  "containerimage.digest": "sha256:dig"\n}'
    });
    // No BuildKit version reported: no default provenance, as docker's BuildKit.versionSatisfies decides.
    expect(docker.calls[2]).not.toContain('--attest');
    const build = docker.calls[2] as string[];
    expect(build.slice(0, 2)).toEqual(['buildx', 'build']);
    expect(build[build.indexOf('--builder') + 1]).toBe('shared');
    expect(build[build.length - 1]).toBe('.');
  });

  test('platform guard on a shared builder names the missing architecture and the fix', async () => {
    const docker = new FakeDocker(
      'Name: shared\nDriver: remote\n\nName: n0\nBuildKit version: v0.13.2\nPlatforms: linux/amd64*\n'
    );
    const r = fakeIO({builder: 'shared', context: '.', platforms: 'linux/amd64,linux/arm64'});
    await expect(buildPush({io: r.io, exec: docker})).rejects.toThrow(
      /^Input "platforms" asks for arm64 \(platforms linux\/amd64,linux\/arm64\), but no node of builder "shared" offers it \(it has amd64, 386\).*use a builder with a arm64 node .*, or leave it out of "platforms"$/
    );
    expect(docker.calls.some(c => c[1] === 'build')).toBe(false);
  });

  test('builder next to profile-name (the migration trap): a warning saying what happens, nothing assigned', async () => {
    const docker = new FakeDocker('Name: builder-1\nDriver: docker-container\n\nName: n0\nPlatforms: linux/amd64*\n');
    const r = fakeIO({builder: 'builder-1', 'profile-name': 'ci', context: '.'});
    const res = await buildPush({io: r.io, exec: docker});
    expect(res.builderName).toBe('builder-1');
    const warnings = r.lines.filter(l => l.startsWith('warning: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'Both "builder" and "profile-name" are set: the build runs on builder "builder-1" (the "builder" input) and NO remote builder is assigned from "profile-name" (ci)'
    );
    expect(warnings[0]).toContain('remove the "builder" input to build on a remote builder from "profile-name"');
  });

  test('a builder that does not exist: the error names the input and the fix', async () => {
    const docker: Exec = {
      run: async (_c, args) =>
        args[1] === 'version'
          ? {exitCode: 0, stdout: 'github.com/docker/buildx v0.13.1 abc\n', stderr: ''}
          : {exitCode: 1, stdout: '', stderr: 'ERROR: no builder "nope" found'}
    };
    const r = fakeIO({builder: 'nope', context: '.'});
    await expect(buildPush({io: r.io, exec: docker})).rejects.toThrow(/Input "builder": .*no builder "nope" found/);
  });
});

describe("buildPush: load into the runner's engine", () => {
  test('two platforms loaded into a classic image store: refused before anything is assigned', async () => {
    const calls: string[][] = [];
    const docker: Exec = {
      run: async (_c, args) => {
        calls.push(args);
        if (args[1] === 'version') return {exitCode: 0, stdout: 'github.com/docker/buildx v0.29.1 abc\n', stderr: ''};
        if (args[0] === 'info')
          return {
            exitCode: 0,
            stdout: '{"ServerErrors":null,"DriverStatus":[["Backing Filesystem","extfs"]]}',
            stderr: ''
          };
        return {exitCode: 1, stdout: '', stderr: 'unexpected call'};
      }
    };
    const assigned: string[] = [];
    const r = fakeIO({
      'profile-name': 'ci',
      'api-url': 'https://api.example.com',
      'api-key': 'k',
      context: '.',
      load: 'true',
      platforms: 'linux/amd64,linux/arm64'
    });
    await expect(
      buildPush({
        io: r.io,
        exec: docker,
        makeApi: () => {
          assigned.push('api');
          throw new Error('no API call may be made');
        }
      })
    ).rejects.toThrow(
      /Input "load": .*needs its containerd image store, and this engine uses the classic one.*Nothing was assigned/s
    );
    expect(assigned).toEqual([]);
    expect(calls.map(c => c.slice(0, 2).join(' '))).toEqual(['buildx version', 'info --format']);
  });
});

describe('job summary record', () => {
  test('main writes no summary; it records the digest, image id, tags and build time for post', async () => {
    const docker = new FakeDocker('Name: shared\nDriver: remote\n\nName: n0\nPlatforms: linux/amd64*\n');
    const r = fakeIO({builder: 'shared', context: '.', tags: 'a/b:1\na/b:latest'});
    await buildPush({io: r.io, exec: docker});
    expect(r.summaries).toEqual([]);
    const run = loadRun(r.io.state);
    expect(run).toMatchObject({
      action: 'build-push',
      outcome: 'success',
      summary: true,
      builders: [],
      result: {builder: 'shared', image: {digest: 'sha256:dig', imageId: 'sha256:iid', tags: ['a/b:1', 'a/b:latest']}}
    });
    expect(run?.timing?.buildMs).toEqual(expect.any(Number));
    expect(run?.timing?.setupMs).toEqual(expect.any(Number));
  });

  test('DOCKER_BUILD_SUMMARY=false: the record tells post to write no summary; the outputs are still set', async () => {
    const docker = new FakeDocker('Name: shared\nDriver: remote\n\nName: n0\nPlatforms: linux/amd64*\n');
    const r = fakeIO({builder: 'shared', context: '.'}, {DOCKER_BUILD_SUMMARY: 'false'});
    await buildPush({io: r.io, exec: docker});
    expect(r.summaries).toEqual([]);
    expect(loadRun(r.io.state)?.summary).toBe(false);
    expect(r.outputs['digest']).toBe('sha256:dig');
  });
});
