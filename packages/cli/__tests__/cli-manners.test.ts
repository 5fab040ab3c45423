// The CLI's manners (issue 15 §6, §3): cheap local checks before any assignment, one error prefix, our own
// messages for options and numbers, a failing `builder down` for an unknown name, file-system errors that say
// what to fix, no action wording ("main"/"post"), and the readiness progress line of `builder up`.
import {afterAll, afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {existsSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {Emulator} from '@remote-builder-actions/emulator';
import {ManualClock} from '../../core/__tests__/fakes/manual-clock.js';
import type {CliDeps} from '../src/context.js';
import {cli, sandbox, start, waitFor, type Sandbox} from './helpers.js';
import {InProcessDocker} from './in-process-docker.js';

const KEY = 'rb_manners_key_9f8e7d';
const PREFIX = 'remote-builder: error: ';
let emu: Emulator;
let box: Sandbox | undefined;
let docker: InProcessDocker;

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [{name: 'amd'}, {name: 'slow', readyDelayMs: 600000}],
    apiKeys: [{key: KEY, scopes: ['ci', 'cache', 'builders']}]
  });
});
afterAll(async () => {
  await emu?.close();
});
afterEach(async () => {
  const left = emu.assignedBuilders().map(e => e.builderId);
  for (const id of left) {
    await fetch(`${emu.url}/api/v1/builders/${id}/teardown`, {
      method: 'DELETE',
      headers: {Authorization: `Bearer ${KEY}`}
    });
  }
  if (box) rmSync(box.dir, {recursive: true, force: true});
  box = undefined;
  expect(left).toEqual([]);
});

/** A sandbox, and a fresh in-process docker (in-process-docker.ts; `fail`: its subcommands that fail). */
function fresh(extraEnv: NodeJS.ProcessEnv = {}, fail: string[] = []): Sandbox {
  box = sandbox(emu, KEY, {REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS: '3000', ...extraEnv});
  docker = new InProcessDocker({fail});
  return box;
}

/** runCli with the in-process docker. */
const rb = (argv: string[], env: NodeJS.ProcessEnv, deps: Partial<CliDeps> = {}) =>
  cli(argv, env, {exec: docker, ...deps});

const assigns = (): number => emu.requests().filter(r => r.route === 'assign').length;

/** Every line of stderr that reports an error ("error:" anywhere in it). */
const errorLines = (stderr: string): string[] => stderr.split('\n').filter(l => /\berror:/i.test(l));

describe('checked locally, before anything is assigned', () => {
  test.each<[string, (b: Sandbox) => string[], number, RegExp]>([
    [
      'a malformed platform',
      () => ['builder', 'up', '--profile', 'amd', '--platforms', 'linux/amd64x'],
      2,
      /--platforms: "linux\/amd64x" is not a platform/
    ],
    [
      'a command that is not on PATH',
      () => ['builder', 'run', '--profile', 'amd', '--', 'no-such-command-h9'],
      127,
      /Cannot run "no-such-command-h9": it is not found on PATH/
    ],
    [
      'a mistyped option',
      () => ['builder', 'up', '--profile', 'amd', '--jsn'],
      2,
      /unknown option "--jsn" for "builder up"; did you mean --json\?\nRun "remote-builder builder up --help" for usage\./
    ],
    [
      'a forgotten option value',
      () => ['builder', 'up', '--profile', '--json'],
      2,
      /missing the value of --profile \(the next argument, "--json", is an option/
    ],
    [
      '--timeout abc',
      () => ['builder', 'up', '--profile', 'amd', '--timeout', 'abc'],
      2,
      /--timeout must be a whole number of milliseconds from 1 to 21600000, got "abc"/
    ],
    [
      '--timeout -1',
      () => ['builder', 'up', '--profile', 'amd', '--timeout', '-1'],
      2,
      /--timeout must be a whole number of milliseconds from 1 to 21600000, got "-1"/
    ],
    [
      '--timeout 1e3',
      () => ['builder', 'run', '--profile', 'amd', '--timeout', '1e3', '--', 'true'],
      2,
      /--timeout must be a whole number of milliseconds from 1 to 21600000, got "1e3"/
    ],
    [
      'a certificate folder that is a file',
      b => {
        writeFileSync(join(b.dir, 'certs-file'), '');
        return ['builder', 'up', '--profile', 'amd', '--cert-dir', join(b.dir, 'certs-file')];
      },
      1,
      /cannot create the folder \S*certs-file: a file is in the way where a folder is needed: move it away, or use another path \(EEXIST\)/
    ],
    [
      'a state folder under a file',
      b => {
        writeFileSync(join(b.dir, 'state-file-not-dir'), '');
        return ['builder', 'up', '--profile', 'amd'];
      },
      1,
      /cannot create the folder \S*state-file-not-dir\/remote-builder\S*: a part of the path is a file, not a folder/
    ]
  ])('%s: refused with the error prefix, no assign', async (_what, argv, code, message) => {
    const b = fresh();
    if (_what === 'a state folder under a file') b.env.XDG_STATE_HOME = join(b.dir, 'state-file-not-dir');
    const before = assigns();
    const r = await rb(argv(b), b.env);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
    expect(assigns()).toBe(before);
    const errors = errorLines(r.stderr);
    expect(errors.length).toBeGreaterThan(0);
    for (const line of errors) expect(line.startsWith(PREFIX)).toBe(true);
  });
});

describe('builder down', () => {
  test('--name naming no builder exits 1 and lists the builders that are up', async () => {
    const b = fresh();
    const up = await rb(['builder', 'up', '--profile', 'amd', '--name', 'kept-one', '--no-use'], b.env);
    expect(up.code).toBe(0);
    const down = await rb(['builder', 'down', '--name', 'nope'], b.env);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`${PREFIX}no builder "nope" is up; builders that are up: kept-one`);
    expect(emu.assignedBuilders()).toHaveLength(1);
    expect((await rb(['builder', 'down', '--name', 'kept-one'], b.env)).code).toBe(0);
    const none = await rb(['builder', 'down', '--name', 'kept-one'], b.env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`${PREFIX}no builder "kept-one" is up; no builder is up`);
  });

  test('without --name, nothing up is still not an error', async () => {
    const b = fresh();
    const down = await rb(['builder', 'down'], b.env);
    expect(down.code).toBe(0);
    expect(down.stderr).toContain('No builder is up');
  });
});

describe('wording and progress', () => {
  test('builder up prints the readiness progress line while it waits (fake clock moved by the test)', async () => {
    const b = fresh();
    const clock = new ManualClock(1_000_000);
    const before = emu.ledger().length;
    const run = start(['builder', 'up', '--profile', 'slow', '--timeout', '60000'], b.env, {clock, exec: docker});
    await waitFor(() => run.stderr.text.includes('==> Waiting for 1 builder to be ready') && clock.pending > 0);
    // Move time a second at a time, each step once the previous poll is asleep again, until the line shows.
    const progress = (): string[] => run.stderr.text.split('\n').filter(l => l.startsWith('Still waiting after'));
    while (progress().length === 0 && clock.now() < 1_000_000 + 30_000) {
      const sleeps = clock.sleeps.length;
      await clock.advance(1000);
      await waitFor(() => clock.sleeps.length > sleeps || progress().length > 0);
    }
    expect(progress()[0]).toMatch(/^Still waiting after 1\d s of 60 s: /);
    run.signals.send('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(emu.ledger().slice(before)).toEqual([expect.objectContaining({profile: 'slow', reason: 'teardown'})]);
    expect(existsSync(b.stateDir) ? readdirSync(b.stateDir).filter(f => f.endsWith('.json')) : []).toEqual([]);
  });

  test('no "main" or "post" (action words) in what up, down and a failed up print', async () => {
    const b = fresh();
    const outputs: string[] = [];
    const up = await rb(['builder', 'up', '--profile', 'amd', '--name', 'words'], b.env);
    outputs.push(up.stderr, (await rb(['builder', 'down', '--name', 'words'], b.env)).stderr);
    outputs.push((await rb(['builder', 'down'], b.env)).stderr);
    writeFileSync(join(b.dir, 'certs-file'), '');
    outputs.push(
      (await rb(['builder', 'up', '--profile', 'amd', '--cert-dir', join(b.dir, 'certs-file')], b.env)).stderr
    );
    const slow = await rb(['builder', 'up', '--profile', 'slow', '--timeout', '300'], b.env);
    expect(slow.stderr).toMatch(/Timed out after 300 ms: raise --timeout if the profile needs longer to start/);
    outputs.push(slow.stderr);
    // A teardown the service refuses: the retry is "builder down", not a post step.
    emu.addFault({route: 'teardown', status: 400});
    const refused = await rb(['builder', 'up', '--profile', 'slow', '--timeout', '300', '--name', 'kept'], b.env);
    emu.clearFaults();
    expect(refused.stderr).toContain('may still be billed');
    expect(refused.stderr).toContain('Run "remote-builder builder down --name kept" to try again.');
    outputs.push(refused.stderr);
    const retry = await rb(['builder', 'down', '--name', 'kept'], b.env);
    expect(retry.code).toBe(0);
    outputs.push(retry.stderr);
    expect(up.code).toBe(0);
    for (const text of outputs) expect(text).not.toMatch(/\b(main|post)\b/i);
  });
});

describe("the CLI's own words, and the two API URL mistakes explained", () => {
  test.each<[number, (b: Sandbox) => string[], NodeJS.ProcessEnv, string[], string]>([
    [
      1,
      () => ['builder', 'up', '--profile', 'nosuch'],
      {},
      [],
      'unknown builder profile "nosuch": check --profile against the builder profiles in the web UI; or --api-url'
    ],
    [
      2,
      () => ['builder', 'up', '--profile', 'amd'],
      {},
      ['version'],
      'check or reinstall the buildx plugin on this machine (https://docs.docker.com/go/buildx/)'
    ],
    [
      3,
      () => ['profiles', 'list'],
      {REMOTE_BUILDER_API_KEY: 'rb_wrong_key_000'},
      [],
      'check the API key (--api-key or REMOTE_BUILDER_API_KEY): it is missing, wrong or revoked'
    ]
  ])(
    '%d: core messages name the flags and "this machine", not the action inputs and "the runner"',
    async (_n, argv, env, fail, message) => {
      const b = fresh(env, fail);
      const r = await rb(argv(b), b.env);
      expect(r.code).toBe(1);
      expect(errorLines(r.stderr)).toEqual([expect.stringContaining(message)]);
      expect(r.stderr).not.toMatch(/(?<!-)\b(profile-name|api-url|api-key)\b|\brunner\b/);
    }
  );

  test('an https:// URL to the (plain HTTP) emulator: said so, with the http:// URL to use; one attempt', async () => {
    const b = fresh({REMOTE_BUILDER_API_URL: emu.url.replace(/^http:/, 'https:')});
    const r = await rb(['profiles', 'list'], b.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `${PREFIX}Failed to list builder profiles: EPROTO (the server at ${emu.url.replace(/^http:/, 'https:')} answered in plain HTTP, not TLS: use ${emu.url})\n`
    );
  });

  test('an --api-url that ends in /api/v1: the 404 says to drop the suffix, before anything is assigned', async () => {
    const b = fresh();
    const before = assigns();
    const r = await rb(['builder', 'up', '--profile', 'amd', '--api-url', `${emu.url}/api/v1`], b.env);
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      expect.stringContaining(
        `(--api-url ${emu.url}/api/v1 ends in /api/v1, which every endpoint path already starts with, so this request went to /api/v1/api/v1/…: drop the suffix and use ${emu.url})`
      )
    ]);
    expect(assigns()).toBe(before);
  });
});
