// The harness CLI (runHarnessCli, in-process: its streams, environment and folder injected; one test runs it as a
// user does, node --import tsx cli.ts), over an action that registers secrets with every spelling of add-mask the
// runner reads and prints them in every form it can: nothing secret may reach the output.
import {spawn} from 'node:child_process';
import {generateKeyPairSync} from 'node:crypto';
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {runHarnessCli} from '../../src/harness/harness-cli.js';
import {escapeData, escapeLegacy, escapeProperty, PLAIN} from './fixtures/leaky-action/secrets.js';
import {fixture} from './fixture.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const CLI = join(ROOT, 'packages/emulator/src/harness/cli.ts');

/** Runs the CLI in-process from the root; resolves with its exit code and everything it printed (stdout, then stderr). */
async function harness(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{code: number; output: string}> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runHarnessCli({
    argv: args,
    env,
    cwd: ROOT,
    stdout: {write: (text: string) => out.push(text)},
    stderr: {write: (text: string) => err.push(text)},
    onInterrupt: () => undefined
  });
  return {code, output: [...out, ...err].join('')};
}

/** Runs the CLI as a user does (node --import tsx cli.ts, from the root); resolves as harness() does. */
function spawnHarness(args: string[]): Promise<{code: number | null; output: string}> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe']
    });
    const chunks: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => errors.push(c));
    child.once('error', fail);
    child.once('close', code => done({code, output: Buffer.concat([...chunks, ...errors]).toString('utf8')}));
  });
}

/**
 * Every form of a secret to search for, derived here and not from the harness: the value, each line, and for
 * each of them the JSON, URL, workflow-command (data, property, ##[), hex, XML and quoted forms and base64.
 */
function forms(secret: string): string[] {
  const lines = secret
    .split(/[\r\n]+/)
    .map(l => l.trim())
    .filter(l => l !== '');
  const found = new Set<string>();
  for (const v of [secret, ...lines]) {
    found.add(v);
    found.add(JSON.stringify(v).slice(1, -1));
    found.add(encodeURIComponent(v));
    found.add(escapeData(v));
    found.add(escapeProperty(v));
    found.add(escapeLegacy(v));
    found.add(Buffer.from(v).toString('base64'));
    found.add(Buffer.from(v).toString('hex'));
    found.add(v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    found.add(v.replace(/"/g, '\\"'));
  }
  // Inside a longer base64 text (the fixture prints base64 of prefix + secret + "trailer"): the characters
  // of the 3-byte groups that lie wholly within the secret.
  const bytes = Buffer.byteLength(secret);
  for (const prefix of ['', 'a', 'ab']) {
    const encoded = Buffer.from(`${prefix}${secret}trailer`).toString('base64');
    const first = Math.ceil(prefix.length / 3);
    const last = Math.floor((prefix.length + bytes) / 3);
    if (last > first) found.add(encoded.slice(first * 4, last * 4));
  }
  return [...found].filter(f => f.trim() !== '');
}

describe('harness CLI: secrets', () => {
  let pem: string;
  const apiKey = 'rb_cli_test_api_key_5e0c1d';
  let run: {code: number; output: string};

  beforeAll(async () => {
    pem = generateKeyPairSync('ec', {namedCurve: 'P-256'}).privateKey.export({type: 'pkcs8', format: 'pem'}) as string;
    run = await harness([
      '--action',
      fixture('leaky-action'),
      '--post',
      '--input',
      `api-key=${apiKey}`,
      '--env',
      `PAYLOAD=${pem}`
    ]);
  }, 60_000);

  test('the steps ran and reported, and what is not secret is shown', () => {
    expect(run.code).toBe(1);
    expect(run.output).toContain('[main] visible-marker: the api key is ***');
    expect(run.output).toMatch(/^main: failed \(exit 1\)/m);
    expect(run.output).toMatch(/^post: succeeded \(exit 0\)/m);
    expect(run.output).toContain('[post] post sees ***');
    expect(run.output).toContain("GITHUB_ENV: Invalid format '***'");
  });

  test('no add-mask line is shown, in either syntax', () => {
    expect(run.output).not.toMatch(/add-mask/i);
  });

  test.each([
    ['the PEM private key', () => pem],
    ['the api-key input', () => apiKey],
    ...Object.entries(PLAIN).map(([name, value]) => [name, () => value] as const)
  ])('%s appears in no form', (_name, secret) => {
    const leaked = forms(secret()).filter(f => run.output.includes(f));
    expect(leaked).toEqual([]);
  });
});

describe('harness CLI: job', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'harness-cli-job-'));
    writeFileSync(join(work, 'Dockerfile'), 'FROM scratch\n');
  });
  afterAll(() => rmSync(work, {recursive: true, force: true}));

  test('runs an example as it is against an embedded emulator, and renders its job summary', async () => {
    const run = await harness(['job', 'examples/configure-custom-step.yml', '--emulator', '--workspace', work]);
    expect(run).toMatchObject({code: 0});
    expect(run.output).toContain(
      '── Step 1: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1: skipped, checkout is a no-op here'
    );
    expect(run.output).toContain('── Step 2 (builder): configure (main) ──');
    expect(run.output).toMatch(/── builder: configure \(post\) ──\n {2}Remote builders: configure\n {2}═+/);
    expect(run.output).toMatch(/^ {2}steps\.builder\.outputs\.name=remote-builder-/m);
    expect(run.output).toContain('Job image succeeded.');
    // One platform, one builder.
    expect(run.output).toContain('Emulator ledger: 1 builder(s) assigned, all torn down.');
    // configure builds nothing, so it has no build record to upload.
    expect(run.output).toContain('Emulator artifact service: 0 artifact(s).');
    // The emulator's API key stood in for secrets.REMOTE_BUILDER_API_KEY: never shown.
    expect(run.output).not.toContain('harness-emulator-key');
  }, 60_000);

  test('refuses what it does not run in one line, before any step', async () => {
    const file = join(work, 'matrix.yml');
    writeFileSync(
      file,
      'name: m\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        v: [1, 2]\n    steps:\n      - run: echo ran\n'
    );
    const run = await harness(['job', file]);
    expect(run.code).toBe(1);
    expect(run.output.trim()).toBe(
      `harness: ${file} job a: "strategy:" (matrix) is not supported by the runner harness: write one combination's values into the job`
    );
  }, 60_000);
});

describe('harness CLI: its manners', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'harness-cli-manners-'));
  });
  afterAll(() => rmSync(work, {recursive: true, force: true}));

  // prettier-ignore
  test.each([
    [1, ['--acton', 'dist/configure'], 'harness: unknown option "--acton" for "harness"; did you mean --action?\nRun "npm run harness -- --help" for usage.'],
    [2, ['job', 'examples/bake.yml', '--emulatr'], 'harness: unknown option "--emulatr" for "job"; did you mean --emulator?\nRun "npm run harness -- job --help" for usage.'],
    [3, ['jbo', 'examples/bake.yml'], 'harness: unknown command "jbo"; did you mean job?\nRun "npm run harness -- --help" for usage.'],
    [4, ['job'], 'harness: missing the workflow file: job <workflow.yml>\nRun "npm run harness -- job --help" for usage.'],
    [5, ['job', 'examples/bake.yml', '--timeout', 'soon'], 'harness: --timeout expects a number of milliseconds above 0, got "soon"\nRun "npm run harness -- job --help" for usage.']
  ])('%i: a bad command line is refused in words, with the closest command or option (exit 2)', async (_n, args, message) => {
    const run = await harness(args);
    expect(run).toEqual({code: 2, output: `${message}\n`});
  }, 60_000);

  test('run as a user runs it, a bad command line exits 2 with the message', async () => {
    const run = await spawnHarness(['--acton', 'dist/configure']);
    expect(run).toEqual({
      code: 2,
      output:
        'harness: unknown option "--acton" for "harness"; did you mean --action?\nRun "npm run harness -- --help" for usage.\n'
    });
  }, 60_000);

  test('--help lists every option of the command, with what it does', async () => {
    const top = await harness(['--help']);
    const job = await harness(['job', '--help']);
    expect(top.code).toBe(0);
    expect(job.code).toBe(0);
    for (const option of ['--action DIR', '--input NAME=VALUE', '--post', '--inherit-env', 'job <workflow.yml>'])
      expect(top.output).toContain(option);
    for (const option of [
      '--job ID',
      '--workspace DIR',
      '--emulator',
      '--fake-docker',
      '--secret NAME=VALUE',
      '--var',
      '--debug'
    ])
      expect(job.output).toContain(option);
    expect(job.output).toContain('npm run harness -- job examples/build-push.yml --emulator --workspace examples/app');
  }, 60_000);

  test('an example run from the root, which has no app, says which workspace the examples build', async () => {
    const run = await harness(['job', 'examples/bake.yml', '--emulator']);
    expect(run.output).toContain(
      'The workspace is this repository, which has no app to build: the examples build examples/app (--workspace examples/app).'
    );
  }, 60_000);

  test('a --workspace that does not exist is refused before anything runs', async () => {
    const missing = join(work, 'no-such-repo');
    const run = await harness(['job', 'examples/build-push.yml', '--emulator', '--workspace', missing]);
    expect(run.code).toBe(2);
    expect(run.output).toContain(`harness: the workspace ${missing} is not a folder`);
    expect(existsSync(missing)).toBe(false);
  }, 60_000);

  test("warns of an unexpected input as the runner does, names the caller's variables it drops, keys buildx's cache by mirror", async () => {
    const file = join(work, 'job.yml');
    writeFileSync(
      file,
      [
        'on: push',
        'jobs:',
        '  a:',
        '    runs-on: ubuntu-latest',
        '    steps:',
        '      - run: echo "tool cache $RUNNER_TOOL_CACHE"',
        '      - uses: ./actions/configure',
        '        with:',
        '          profile_name: x',
        ''
      ].join('\n')
    );
    const cache = join(work, 'cache');
    const env = {...process.env, XDG_CACHE_HOME: cache, DOCKER_HOST: 'tcp://caller-docker:2376'};
    const mirror = 'https://buildx-mirror.example/docker/buildx';
    const run = await harness(
      ['job', file, '--workspace', work, '--env', `REMOTE_BUILDER_BUILDX_RELEASES_URL=${mirror}`],
      env
    );
    expect(run.output).toMatch(
      /^ {2}Warning: Unexpected input\(s\) 'profile_name', valid inputs are \[[^\]]*'profile-name'/m
    );
    expect(run.output).toMatch(
      /^Environment: the steps get PATH and HOME of this shell and --env; .* among them DOCKER_HOST\b/m
    );
    expect(run.output).not.toContain('caller-docker');
    const line = /^ {2}tool cache (\S+)$/m.exec(run.output)?.[1];
    expect(line).toMatch(
      new RegExp(`^${cache}/remote-builder-actions/harness-tool-cache/mirror-buildx-mirror\\.example-[0-9a-f]{12}$`)
    );
    // Without a mirror (a job of the echo step alone: the tool cache is the job's, set for every step).
    const echo = join(work, 'echo.yml');
    writeFileSync(
      echo,
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "tool cache $RUNNER_TOOL_CACHE"\n'
    );
    const github = await harness(['job', echo, '--workspace', work], env);
    expect(/^ {2}tool cache (\S+)$/m.exec(github.output)?.[1]).toBe(
      join(cache, 'remote-builder-actions/harness-tool-cache/github')
    );
  }, 120_000);
});
