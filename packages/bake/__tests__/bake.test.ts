import {describe, expect, test} from '@jest/globals';
import {mkdtempSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {
  MemoryStateStore,
  loadRun,
  parseBakeDefinition,
  versionAtLeast,
  type ActionIO,
  type Exec,
  type ExecOpts,
  type ExecResult,
  type Logger
} from '@remote-builder-actions/core/step';
import {bake} from '../src/bake.js';
import {targetResults} from '../src/summary.js';

interface Recorded {
  io: ActionIO;
  lines: string[];
  outputs: Record<string, string>;
  /** What main wrote to the job summary (post writes the step's block: none here). */
  summaries: string[];
  secrets: string[];
}

function fakeIO(inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}): Recorded {
  const lines: string[] = [];
  const outputs: Record<string, string> = {};
  const summaries: string[] = [];
  const secrets: string[] = [];
  const logger: Logger = {
    debug: m => lines.push(`debug: ${m}`),
    info: m => lines.push(m),
    untrusted: m => lines.push(`untrusted: ${m}`),
    warning: m => lines.push(`warning: ${m}`),
    error: m => lines.push(`error: ${m}`),
    group: (_t, fn) => fn(),
    setSecret: v => void secrets.push(v)
  };
  const io: ActionIO = {
    logger,
    state: new MemoryStateStore(),
    env: {
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_REF: 'refs/heads/main',
      RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'bake-')),
      ...env
    },
    getInput: n => (inputs[n] ?? '').trim(),
    setOutput: (n, v) => (outputs[n] = v),
    exportVariable: () => undefined,
    writeMarkdownSummary: async m => void summaries.push(m),
    setFailed: () => undefined
  };
  return {io, lines, outputs, summaries, secrets};
}

const TWO_TARGETS = {
  group: {default: {targets: ['api', 'web']}},
  target: {
    api: {context: '.', dockerfile: 'api.Dockerfile', platforms: ['linux/amd64'], tags: ['u/api:1']},
    web: {context: '.', dockerfile: 'web.Dockerfile', platforms: ['linux/amd64', 'linux/arm64'], tags: ['u/web:1']}
  }
};

interface Call {
  args: string[];
  opts: ExecOpts | undefined;
}

/** A docker that answers version, `bake --print`, inspect, and writes a metadata file on bake. */
class FakeDocker implements Exec {
  readonly calls: Call[] = [];
  constructor(
    private readonly inspect: string,
    private readonly definition: unknown = TWO_TARGETS,
    private readonly fail: {print?: string; bake?: string} = {},
    private readonly buildxVersion = '0.19.1'
  ) {}
  async run(_cmd: string, args: string[], opts?: ExecOpts): Promise<ExecResult> {
    this.calls.push({args, opts});
    if (args[1] === 'version') {
      return {exitCode: 0, stdout: `github.com/docker/buildx v${this.buildxVersion} abc\n`, stderr: ''};
    }
    // buildx < 0.17.0 has no `bake --allow`.
    if (args[1] === 'bake' && args.includes('--allow') && !versionAtLeast(this.buildxVersion, '0.17.0')) {
      return {exitCode: 1, stdout: '', stderr: 'unknown flag: --allow\n'};
    }
    if (args[1] === 'inspect') return {exitCode: 0, stdout: this.inspect, stderr: ''};
    if (args.includes('--print')) {
      if (this.fail.print) return {exitCode: 1, stdout: '', stderr: `ERROR: ${this.fail.print}\n`};
      return {exitCode: 0, stdout: JSON.stringify(this.definition), stderr: ''};
    }
    const meta = args[args.indexOf('--metadata-file') + 1] as string;
    writeFileSync(
      meta,
      JSON.stringify({api: {'containerimage.digest': 'sha256:api'}, web: {'containerimage.digest': 'sha256:web'}})
    );
    if (this.fail.bake) return {exitCode: 1, stdout: '', stderr: `#1 ...\nERROR: ${this.fail.bake}\n`};
    return {exitCode: 0, stdout: '', stderr: ''};
  }
  call(match: (c: Call) => boolean): Call | undefined {
    return this.calls.find(match);
  }
}

const BOTH =
  'Name: shared\nDriver: remote\n\nName: n0\nBuildKit version: v0.13.2\nPlatforms: linux/amd64*\n\nName: n1\nBuildKit version: v0.13.2\nPlatforms: linux/arm64*\n';
const AMD64 =
  'Name: shared\nDriver: remote\n\nName: n0\nBuildKit version: v0.13.2\nPlatforms: linux/amd64*, linux/386\n';

describe('bake on a shared builder (builder input)', () => {
  test('resolves the definition with --print, bakes on the builder, sets metadata, records the targets for the summary', async () => {
    const docker = new FakeDocker(BOTH);
    const r = fakeIO(
      {builder: 'shared', source: '.', targets: 'api\nweb', set: '*.tags=u/x:1', 'github-token': 'ghs_tok'},
      {GITHUB_EVENT_PATH: '/no/such/event.json'}
    );
    const res = await bake({io: r.io, exec: docker});

    const print = docker.call(c => c.args.includes('--print')) as Call;
    expect(print.args).toEqual(['buildx', 'bake', '--set', '*.tags=u/x:1', '--print', 'api', 'web']);
    expect(print.opts).toMatchObject({cwd: '.', env: {BUILDX_BAKE_GIT_AUTH_TOKEN: 'ghs_tok'}});
    const run = docker.call(c => c.args[1] === 'bake' && !c.args.includes('--print')) as Call;
    const meta = run.args[run.args.indexOf('--metadata-file') + 1] as string;
    expect(run.args).toEqual([
      'buildx',
      'bake',
      '--allow',
      'fs=*',
      '--set',
      '*.tags=u/x:1',
      '--metadata-file',
      meta,
      '--set',
      `api.attest=type=provenance,mode=max,builder-id=https://github.com/o/r/actions/runs/0/attempts/1`,
      '--set',
      `web.attest=type=provenance,mode=max,builder-id=https://github.com/o/r/actions/runs/0/attempts/1`,
      '--builder',
      'shared',
      'api',
      'web'
    ]);
    expect(run.opts).toMatchObject({
      cwd: '.',
      env: {BUILDX_METADATA_WARNINGS: 'true', BUILDX_BAKE_GIT_AUTH_TOKEN: 'ghs_tok'}
    });
    expect(JSON.parse(r.outputs['metadata'] as string)).toEqual({
      api: {'containerimage.digest': 'sha256:api'},
      web: {'containerimage.digest': 'sha256:web'}
    });
    expect(r.secrets).toContain('ghs_tok');
    // The definition and the metadata are the user's files' and the build's: printed as untrusted text.
    expect(r.lines).toContain(`untrusted: ${JSON.stringify(TWO_TARGETS)}`);
    expect(r.lines).toContain(`untrusted: ${r.outputs['metadata']}`);
    expect(r.lines.filter(l => l.includes('containerimage.digest') && !l.startsWith('untrusted: '))).toEqual([]);
    expect(res.builderName).toBe('shared');
    // main writes no summary: post writes the step's one block from this record.
    expect(r.summaries).toEqual([]);
    expect(loadRun(r.io.state)?.result).toEqual({
      builder: 'shared',
      targets: [
        {name: 'api', platforms: ['linux/amd64'], digest: 'sha256:api'},
        {name: 'web', platforms: ['linux/amd64', 'linux/arm64'], digest: 'sha256:web'}
      ]
    });
  });

  test('platform guard: names the target, the missing architecture and the fix; nothing is baked', async () => {
    const docker = new FakeDocker(AMD64);
    const r = fakeIO({builder: 'shared', source: '.'});
    await expect(bake({io: r.io, exec: docker})).rejects.toThrow(
      /^Bake target "web" asks for arm64 \(platforms linux\/amd64,linux\/arm64\), but no node of builder "shared" offers it \(it has amd64, 386\); builds for it would fail with "exec format error"\. Fix: use a builder with a arm64 node .*, or drop arm64 from the target's platforms \(in the bake file, or with the "set" input, e\.g\. "web\.platform=linux\/amd64"\)$/
    );
    expect(docker.calls.some(c => c.args[1] === 'bake' && !c.args.includes('--print'))).toBe(false);
  });

  test('builder next to profile-name (the migration trap): a warning saying what happens, nothing assigned', async () => {
    const docker = new FakeDocker(BOTH);
    const r = fakeIO({builder: 'shared', 'profile-name': 'ci', source: '.'});
    const res = await bake({io: r.io, exec: docker});
    expect(res.builderName).toBe('shared');
    const warnings = r.lines.filter(l => l.startsWith('warning: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'Both "builder" and "profile-name" are set: the build runs on builder "shared" (the "builder" input) and NO remote builder is assigned from "profile-name" (ci)'
    );
    expect(warnings[0]).toContain('or remove "profile-name" to keep building on "shared"');
  });

  test('nodes report no platforms: the guard is skipped with a debug line (a builder the user gave)', async () => {
    const docker = new FakeDocker('Name: shared\nDriver: remote\n\nName: n0\nStatus: running\n');
    const r = fakeIO({builder: 'shared', source: '.'});
    await bake({io: r.io, exec: docker});
    expect(r.lines).toContain(
      'debug: Cannot check the targets\' platforms against builder "shared": its nodes report no platforms'
    );
    // No BuildKit version: no default provenance, as docker's BuildKit.versionSatisfies decides.
    const run = docker.call(c => c.args[1] === 'bake' && !c.args.includes('--print')) as Call;
    expect(run.args.join(' ')).not.toContain('attest');
  });

  test('a definition that cannot be resolved fails before the bake, naming the inputs to check', async () => {
    const docker = new FakeDocker(BOTH, TWO_TARGETS, {print: 'failed to find target nope'});
    const r = fakeIO({builder: 'shared', source: '.', targets: 'nope'});
    await expect(bake({io: r.io, exec: docker})).rejects.toThrow(
      /Failed to resolve the bake definition \(docker buildx bake --print nope\): ERROR: failed to find target nope\. Check "files", "targets", "set", "source" and "workdir"/
    );
    expect(docker.calls.filter(c => c.args[1] === 'bake')).toHaveLength(1);
  });

  test('bake --print has a time limit of its own: a definition that hangs fails with the inputs to check', async () => {
    class HangingPrint extends FakeDocker {
      override async run(cmd: string, args: string[], opts?: ExecOpts): Promise<ExecResult> {
        if (!args.includes('--print')) return super.run(cmd, args, opts);
        this.calls.push({args, opts});
        return {exitCode: 143, stdout: '', stderr: '', killed: 'timeout'};
      }
    }
    const docker = new HangingPrint(BOTH);
    const r = fakeIO({builder: 'shared', source: '.'});
    // The limit is 2 minutes (PRINT_TIMEOUT_MS), written out here as the message must say it.
    await expect(bake({io: r.io, exec: docker})).rejects.toThrow(
      'Resolving the bake definition (docker buildx bake --print) did not finish within 120 s: check that "source" and "files" can be read from this runner'
    );
    expect(docker.call(c => c.args.includes('--print'))?.opts?.timeoutMs).toBe(120_000);
  });

  test('a definition without targets fails before the bake', async () => {
    const docker = new FakeDocker(BOTH, {group: {}, target: {}});
    const r = fakeIO({builder: 'shared', source: '.'});
    await expect(bake({io: r.io, exec: docker})).rejects.toThrow(/no target: there is nothing to build/);
  });

  test("a failed bake: metadata is still set (as docker does), the error is docker's", async () => {
    const docker = new FakeDocker(BOTH, TWO_TARGETS, {bake: 'failed to solve: exit code 1'});
    const r = fakeIO({builder: 'shared', source: '.'});
    await expect(bake({io: r.io, exec: docker})).rejects.toThrow(
      'buildx bake failed with: ERROR: failed to solve: exit code 1'
    );
    expect(r.outputs['metadata']).toContain('sha256:web');
    expect(r.summaries).toEqual([]);
  });

  test('call needs buildx >= 0.16.0: fails before the definition is resolved', async () => {
    const docker = new FakeDocker(BOTH);
    docker.run = async (_cmd, args, opts) => {
      docker.calls.push({args, opts});
      return {exitCode: 0, stdout: 'github.com/docker/buildx v0.15.1 abc\n', stderr: ''};
    };
    const r = fakeIO({builder: 'shared', source: '.', call: 'check'});
    await expect(bake({io: r.io, exec: docker})).rejects.toThrow(/Input "call": buildx >= 0.16.0 is required/);
    expect(docker.calls.map(c => c.args[1])).toEqual(['version']);
  });

  test('allow on buildx < 0.17.0: no bake call carries --allow; one warning names the input and the version', async () => {
    const docker = new FakeDocker(BOTH, TWO_TARGETS, {}, '0.16.2');
    const r = fakeIO({builder: 'shared', source: '.', allow: 'network.host'});
    await bake({io: r.io, exec: docker});
    const bakes = docker.calls.filter(c => c.args[1] === 'bake');
    expect(bakes).toHaveLength(2);
    expect(bakes.some(c => c.args.includes('--allow'))).toBe(false);
    const warnings = r.lines.filter(l => l.startsWith('warning: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^warning: The input 'allow' is only supported by buildx >= 0\.17\.0 \(bake --allow\); it is ignored\./
    );
  });

  test('source is the directory bake runs in (v7): both calls run there, with no positional argument', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-src-'));
    const docker = new FakeDocker(BOTH);
    const r = fakeIO({builder: 'shared', source: dir});
    await bake({io: r.io, exec: docker});
    const bakes = docker.calls.filter(c => c.args[1] === 'bake');
    expect(bakes.map(c => c.opts?.cwd)).toEqual([dir, dir]);
    expect(bakes.map(c => c.args[2])).toEqual(['--print', '--allow']);
    expect(r.lines.filter(l => l.startsWith('warning: '))).toEqual([]);
  });

  test('workdir (v6) still works, with one deprecation warning naming source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-workdir-'));
    const docker = new FakeDocker(BOTH);
    const r = fakeIO({builder: 'shared', source: '.', workdir: dir});
    await bake({io: r.io, exec: docker});
    expect(docker.calls.filter(c => c.args[1] === 'bake').map(c => c.opts?.cwd)).toEqual([dir, dir]);
    expect(r.lines.filter(l => l.startsWith('warning: '))).toEqual([
      `warning: Input "workdir" is deprecated: docker/bake-action v7 removed it; set "source: ${dir}" instead. Until then bake runs in "${dir}".`
    ]);
  });

  test('DOCKER_BUILD_SUMMARY=false: the record tells post to write no summary, metadata still set', async () => {
    const docker = new FakeDocker(BOTH);
    const r = fakeIO({builder: 'shared', source: '.'}, {DOCKER_BUILD_SUMMARY: 'false'});
    await bake({io: r.io, exec: docker});
    expect(r.summaries).toEqual([]);
    expect(loadRun(r.io.state)?.summary).toBe(false);
    expect(r.outputs['metadata']).toBeDefined();
  });
});

describe('targetResults', () => {
  test('each target with its platforms and digest; none for a target the metadata does not name', () => {
    const definition = parseBakeDefinition(JSON.stringify({target: {a: {platforms: ['linux/amd64']}, b: {}}}));
    expect(targetResults(definition, {a: {'containerimage.digest': 'sha256:a'}})).toEqual([
      {name: 'a', platforms: ['linux/amd64'], digest: 'sha256:a'},
      {name: 'b', platforms: []}
    ]);
  });
});
