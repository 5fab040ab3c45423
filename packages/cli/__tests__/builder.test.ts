// builder up, down and run against the emulator (loopback HTTP and mutual TLS). docker is the in-process stand-in
// (in-process-docker.ts) and the command of `builder run` a scripted one (fake-command.ts), except in the
// end-to-end tests (describe 'end to end'), which run the recording fake docker and real commands.
import {afterAll, afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {existsSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {join} from 'node:path';
import {Emulator} from '@remote-builder-actions/emulator';
import {ManualClock} from '../../core/__tests__/fakes/manual-clock.js';
import {formatAge} from '../src/commands/builder-ls.js';
import type {CliDeps} from '../src/context.js';
import {execFile} from 'node:child_process';
import {promisify} from 'node:util';
import {FakeCommand, type Script} from './fake-command.js';
import {cli, dockerBuilders, dockerCalls, FAKE_DOCKER_BIN, sandbox, start, waitFor, type Sandbox} from './helpers.js';
import {InProcessDocker} from './in-process-docker.js';

const KEY = 'rb_builder_key_1a2b3c';
let emu: Emulator;
let box: Sandbox;
let docker: InProcessDocker;

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [
      {name: 'amd'},
      {name: 'multi', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2},
      {name: 'multi-32', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2, size: '32x64'},
      {name: 'slow', readyDelayMs: 120000}
    ],
    apiKeys: [{key: KEY, scopes: ['ci', 'cache', 'builders']}]
  });
});
afterAll(async () => {
  await emu?.close();
});
afterEach(async () => {
  emu.clearFaults();
  // Every test leaves nothing assigned behind; a failed one must not leave its builders to the next.
  const left = emu.assignedBuilders().map(e => e.builderId);
  for (const id of left) {
    await fetch(`${emu.url}/api/v1/builders/${id}/teardown`, {
      method: 'DELETE',
      headers: {Authorization: `Bearer ${KEY}`}
    });
  }
  if (box) rmSync(box.dir, {recursive: true, force: true});
  expect(left).toEqual([]);
});

/** A sandbox, and a fresh in-process docker (`fail`: its subcommands that fail). */
function fresh(extraEnv: NodeJS.ProcessEnv = {}, fail: string[] = []): Sandbox {
  // A refused teardown is retried until this budget ends: short, so those cases end quickly.
  box = sandbox(emu, KEY, {REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS: '3000', ...extraEnv});
  docker = new InProcessDocker({fail});
  return box;
}

/** runCli with the in-process docker. */
const rb = (argv: string[], env: NodeJS.ProcessEnv = box.env, deps: Partial<CliDeps> = {}) =>
  cli(argv, env, {exec: docker, ...deps});
/** `builder run --profile <profile>` of a scripted command (process.execPath: found on any PATH). */
const runScripted = (profile: string, script: Script, deps: Partial<CliDeps> = {}) => {
  const command = new FakeCommand(script);
  const run = start(['builder', 'run', '--profile', profile, '--', process.execPath, 'arg'], box.env, {
    exec: docker,
    spawn: command,
    ...deps
  });
  return {command, run};
};

const stateFiles = (b: Sandbox) =>
  existsSync(b.stateDir) ? readdirSync(b.stateDir).filter(f => f.endsWith('.json')) : [];
const certDirs = (b: Sandbox) => {
  const dir = join(b.stateDir, 'certs');
  return existsSync(dir) ? readdirSync(dir) : [];
};
const ledgerOf = (ids: string[]) => emu.ledger().filter(e => ids.includes(e.builderId));

describe('end to end: the recording fake docker, real commands', () => {
  const ls = async (b: Sandbox, env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> =>
    (await promisify(execFile)(join(FAKE_DOCKER_BIN, 'docker'), ['buildx', 'ls', ...args], {env: {...b.env, ...env}}))
      .stdout;

  test('up prints the name, saves state and certificates, creates the buildx builder (docker buildx ls shows it); down undoes it all', async () => {
    const b = fresh();
    const up = await cli(['builder', 'up', '--profile', 'amd'], b.env);
    expect(up.code).toBe(0);
    const name = up.stdout.trim();
    expect(name).toMatch(/^remote-builder-[0-9a-f]{8}$/);
    expect(up.stderr).toContain('==> Assigning a builder from profile "amd"');
    expect(up.stderr).toContain(
      `Builder "${name}" is up: profile "amd", 1 node, linux/amd64 (docker's default builder).`
    );
    expect(up.stderr).toContain(`Tear it down with: remote-builder builder down --name ${name}`);

    const state = JSON.parse(readFileSync(join(b.stateDir, `${name}.json`), 'utf8'));
    expect(state.builder).toMatchObject({builderName: name, apiUrl: emu.url, buildxCreated: true, profile: 'amd'});
    const ids: string[] = state.builder.builderIds;
    expect(ids).toHaveLength(1);
    expect(emu.assignedBuilders().map(e => e.builderId)).toEqual(ids);
    expect(state.builder.certDir.startsWith(join(b.stateDir, 'certs'))).toBe(true);
    expect(readdirSync(join(state.builder.certDir, ids[0]!)).sort()).toEqual(['ca.pem', 'cert.pem', 'key.pem']);
    expect(JSON.stringify(state)).not.toContain('PRIVATE KEY');

    // The one place that pins the sequence of docker calls of `builder up`.
    const calls = dockerCalls(b);
    // The buildx builder made while the builder booted, with a placeholder node that the builder's node
    // replaced in buildx's record; its BuildKit told its version (Control/Info): no `buildx inspect --bootstrap`.
    expect(calls.map(c => c.slice(0, 2).join(' '))).toEqual(['buildx version', 'buildx create']);
    expect(calls[1]).toContain('--use');
    expect(calls[1]?.at(-1)).toBe('tcp://127.0.0.1:1');
    expect(Object.keys(dockerBuilders(b))).toEqual([name]);
    expect(dockerBuilders(b)[name]?.nodes.map(n => [n.node, n.endpoint])).toEqual([
      [ids[0]!.toLowerCase(), expect.stringMatching(/^tcp:\/\/127\.0\.0\.1:\d{2,}$/)]
    ]);

    // docker buildx ls (the recording fake docker) shows the builder the CLI made, as the buildx version it
    // reports prints it: a flat table before 0.13, nodes under builders since; JSON.
    const id = ids[0]!;
    const endpoint = dockerBuilders(b)[name]?.nodes[0]?.endpoint as string;
    const pad = (text: string, width: number) => text.padEnd(width);
    // docker's table formatter: columns at least 10 wide, 3 spaces apart; the current builder marked "*".
    const w = [
      Math.max(id.length + 4, name.length + 1, 9) + 3,
      endpoint.length + 4 + 3,
      'running'.length + 3,
      'BUILDKIT'.length + 3
    ];
    expect(await ls(b, {FAKE_DOCKER_BUILDX_VERSION: '0.13.1'})).toBe(
      [
        pad('NAME/NODE', w[0]!) +
          pad('DRIVER/ENDPOINT', w[1]!) +
          pad('STATUS', w[2]!) +
          pad('BUILDKIT', w[3]!) +
          'PLATFORMS',
        pad(`${name}*`, w[0]!) + pad('remote', w[1]!) + pad('', w[2]!) + pad('', w[3]!),
        pad(` \\_ ${id}`, w[0]!) +
          pad(` \\_ ${endpoint}`, w[1]!) +
          pad('running', w[2]!) +
          pad('v0.13.2', w[3]!) +
          'linux/amd64*',
        pad('default', w[0]!) + pad('docker', w[1]!) + pad('', w[2]!) + pad('', w[3]!),
        pad(' \\_ default', w[0]!) +
          pad(' \\_ default', w[1]!) +
          pad('running', w[2]!) +
          pad('v0.13.2', w[3]!) +
          'linux/amd64, linux/386',
        ''
      ].join('\n')
    );
    const flat = (await ls(b, {FAKE_DOCKER_BUILDX_VERSION: '0.12.1'})).split('\n');
    expect(flat[1]).toMatch(new RegExp(`^${name} \\* +remote +$`));
    expect(flat[2]).toMatch(new RegExp(`^  ${id} +${endpoint} running v0\\.13\\.2 +linux/amd64\\*$`));
    // BUILDX_BUILDER (as "builder run" sets it) names the current builder.
    expect((await ls(b, {FAKE_DOCKER_BUILDX_VERSION: '0.13.1', BUILDX_BUILDER: 'default'})).split('\n')[3]).toMatch(
      /^default\* +docker/
    );
    const json = (await ls(b, {FAKE_DOCKER_BUILDX_VERSION: '0.24.0'}, '--format', 'json')).trim().split('\n');
    expect(json.map(l => JSON.parse(l))).toEqual([
      expect.objectContaining({
        Name: name,
        Driver: 'remote',
        Current: true,
        Nodes: [expect.objectContaining({Name: id, Endpoint: endpoint, Status: 'running', Platforms: ['linux/amd64']})]
      }),
      expect.objectContaining({Name: 'default', Driver: 'docker', Current: false})
    ]);
    // Before 0.21 a line per builder and one more per node, without "Current".
    const older = (await ls(b, {FAKE_DOCKER_BUILDX_VERSION: '0.20.0'}, '--format', 'json')).trim().split('\n');
    expect(older.map(l => JSON.parse(l).Name)).toEqual([name, name, 'default', 'default']);
    expect(JSON.parse(older[0]!)).not.toHaveProperty('Current');

    const down = await cli(['builder', 'down'], b.env);
    expect(down.code).toBe(0);
    expect(down.stdout).toBe(`Builder "${name}" is down.\n`);
    expect(down.stderr).toContain(`Removed buildx builder "${name}"`);
    expect(stateFiles(b)).toEqual([]);
    expect(certDirs(b)).toEqual([]);
    expect(dockerBuilders(b)).toEqual({});
    expect(ledgerOf(ids)).toEqual([expect.objectContaining({reason: 'teardown'})]);
    expect(up.stderr + down.stderr).not.toContain(KEY);
    // One line after the teardown: what was billed; no size given, so no cost (never a guessed one).
    expect(down.stderr).toMatch(
      /^Billed: 1 builder for \d+\.\d s; cost unknown \(size unknown\): pass --builder-size, the profile's size in the web UI\.$/m
    );
  });

  test('builder run: the command sees the builder through docker buildx (fake docker build)', async () => {
    const b = fresh();
    const r = await cli(
      ['builder', 'run', '--profile', 'amd', '--', 'docker', 'buildx', 'build', '-t', 'app:dev', '.'],
      b.env,
      {
        cwd: b.dir
      }
    );
    expect(r.code).toBe(0);
    const build = dockerCalls(b).find(c => c[1] === 'build');
    expect(build).toEqual(['buildx', 'build', '-t', 'app:dev', '.']);
    // The fake docker built nothing: the line after the teardown says so.
    expect(r.stderr).toMatch(
      /^Billed: 1 builder for \d+\.\d s; cost unknown \(size unknown\).*\. docker was the recording fake docker \(packages\/emulator\/fake-docker\): its builds were SIMULATED\.$/m
    );
    expect(dockerBuilders(b)).toEqual({});
    expect(stateFiles(b)).toEqual([]);
  });
});

describe('builder up and down', () => {
  test('--builder-size: the line after teardown has the cost, as the service bills it', async () => {
    const b = fresh();
    const up = await rb(['builder', 'up', '--profile', 'multi-32', '--builder-size', '32x64'], b.env);
    expect(up.code).toBe(0);
    const down = await rb(['builder', 'down'], b.env);
    expect(down.code).toBe(0);
    const line = /^Billed: 2 builders for (\d+\.\d) s in all, (\d+\.\d{4}) USD \(32x64\)\.$/m.exec(down.stderr);
    expect(line).not.toBeNull();
    // The emulator's ledger prices the same sizes per minute (32x64: 0.12 USD): the CLI's total is within a
    // request's time of it.
    const ledger = emu.ledger().slice(-2);
    const cost = ledger.reduce((sum, e) => sum + e.cost, 0);
    expect(Math.abs(Number(line?.[2]) - cost)).toBeLessThan(0.001);
  });

  test('--builder-size that is no size: refused before anything is assigned', async () => {
    const b = fresh();
    const up = await rb(['builder', 'up', '--profile', 'amd', '--builder-size', '3x6'], b.env);
    expect(up.code).toBe(2);
    expect(up.stderr).toContain(
      '--builder-size "3x6" is not a builder size: one of 16x32, 32x64, 64x128, 96x192, 192x384'
    );
    expect(emu.assignedBuilders()).toEqual([]);
  });

  test('--json, --name, --no-use and --platforms on a two-builder profile', async () => {
    const b = fresh();
    const up = await rb(
      [
        'builder',
        'up',
        '--profile',
        'multi',
        '--name',
        'my.builder',
        '--no-use',
        '--platforms',
        'amd64,linux/arm64',
        '--json'
      ],
      b.env
    );
    expect(up.code).toBe(0);
    const info = JSON.parse(up.stdout);
    expect(info).toMatchObject({
      name: 'my.builder',
      profile: 'multi',
      platforms: ['linux/amd64', 'linux/arm64'],
      stateFile: join(b.stateDir, 'my.builder.json'),
      use: false
    });
    expect(info.builderIds).toHaveLength(2);
    expect(info.nodes.map((n: {endpoint: string}) => n.endpoint)).toEqual([
      expect.stringMatching(/^tcp:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^tcp:\/\/127\.0\.0\.1:\d+$/)
    ]);
    // One create, of the builder with a placeholder node while the builders boot; each node then written
    // into its record (the first in the placeholder's place), no --use anywhere.
    const creates = docker.calls.filter(c => c[1] === 'create');
    expect(creates.map(c => [c.includes('--append'), c.includes('--use'), c.at(-1)])).toEqual([
      [false, false, 'tcp://127.0.0.1:1']
    ]);
    expect(
      docker.builders
        .get('my.builder')
        ?.nodes.map(n => n.endpoint)
        .sort()
    ).toEqual(info.nodes.map((n: {endpoint: string}) => n.endpoint).sort());

    const down = await rb(['builder', 'down', '--name', 'my.builder', '--json'], b.env);
    expect(down.code).toBe(0);
    expect(JSON.parse(down.stdout)).toEqual({
      name: 'my.builder',
      tornDown: expect.arrayContaining(info.builderIds),
      alreadyGone: [],
      maybeBilled: []
    });
  });

  test('--state-file and --cert-dir put the files where asked', async () => {
    const b = fresh();
    const up = await rb(
      ['builder', 'up', '--profile', 'amd', '--state-file', 'here/state.json', '--cert-dir', 'certs-here'],
      b.env,
      {cwd: b.dir}
    );
    expect(up.code).toBe(0);
    expect(existsSync(join(b.dir, 'here/state.json'))).toBe(true);
    expect(readdirSync(join(b.dir, 'certs-here'))).toHaveLength(1);
    const down = await rb(['builder', 'down', '--state-file', join(b.dir, 'here/state.json')], b.env);
    expect(down.code).toBe(0);
    expect(existsSync(join(b.dir, 'here/state.json'))).toBe(false);
    expect(readdirSync(join(b.dir, 'certs-here'))).toEqual([]);
  });

  test('up refuses a name that is already up, before assigning anything', async () => {
    const b = fresh();
    expect((await rb(['builder', 'up', '--profile', 'amd', '--name', 'twice'], b.env)).code).toBe(0);
    const assigns = emu.requests().filter(r => r.route === 'assign').length;
    const again = await rb(['builder', 'up', '--profile', 'amd', '--name', 'twice'], b.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('builder "twice" is already up');
    expect(emu.requests().filter(r => r.route === 'assign').length).toBe(assigns);
    expect((await rb(['builder', 'down', '--name', 'twice'], b.env)).code).toBe(0);
  });

  test('down: nothing up is fine, a name that is not up is not; several up need --name', async () => {
    const b = fresh();
    expect(await rb(['builder', 'down'], b.env)).toEqual({
      code: 0,
      stdout: '',
      stderr: `No builder is up (${b.stateDir}).\n`
    });
    const ghost = await rb(['builder', 'down', '--name', 'ghost'], b.env);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toBe(`remote-builder: error: no builder "ghost" is up; no builder is up (${b.stateDir})\n`);
    await rb(['builder', 'up', '--profile', 'amd', '--name', 'one'], b.env);
    await rb(['builder', 'up', '--profile', 'amd', '--name', 'two'], b.env);
    const which = await rb(['builder', 'down'], b.env);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain('2 builders are up (one, two): say which with --name');
    expect((await rb(['builder', 'down', '--name', 'one'], b.env)).code).toBe(0);
    expect((await rb(['builder', 'down'], b.env)).stdout).toBe('Builder "two" is down.\n');
  });

  test('a platform the profile lacks fails and tears down', async () => {
    const b = fresh();
    const up = await rb(['builder', 'up', '--profile', 'amd', '--platforms', 'linux/arm64'], b.env);
    expect(up.code).toBe(1);
    // The actions' guard and wording (was: 'profile "amd" gives linux/amd64 but not linux/arm64: …').
    expect(up.stderr).toMatch(
      /error: --platforms asks for arm64, but no node of builder "remote-builder-[0-9a-f]{8}" offers it \(it has amd64, 386\); builds for it would fail with "exec format error"\. Fix: enable arm64 on builder profile "amd" in the web UI, or leave it out of --platforms/
    );
    expect(up.stdout).toBe('');
    expect(stateFiles(b)).toEqual([]);
    expect(certDirs(b)).toEqual([]);
    expect(docker.builders.size).toBe(0);
  });

  test('a malformed platform fails before assigning: nothing billed', async () => {
    const b = fresh();
    const assigns = emu.requests().filter(r => r.route === 'assign').length;
    const ledger = emu.ledger().length;
    const up = await rb(['builder', 'up', '--profile', 'amd', '--platforms', 'linux/amd64x'], b.env);
    expect(up.code).toBe(2);
    expect(up.stderr).toContain('error: --platforms: "linux/amd64x" is not a platform: use os/arch[/variant]');
    expect(emu.requests().filter(r => r.route === 'assign').length).toBe(assigns);
    expect(emu.ledger().length).toBe(ledger);
    expect(stateFiles(b)).toEqual([]);
  });

  test('the guard reads platforms as the actions do: linux/arm64/v8, linux/386 and linux/x86_64 pass on amd64+arm64', async () => {
    const b = fresh();
    const up = await rb(
      [
        'builder',
        'up',
        '--profile',
        'multi',
        '--name',
        'guard',
        '--platforms',
        'linux/arm64/v8,linux/386,linux/x86_64'
      ],
      b.env
    );
    expect(up.stderr).not.toContain('error:');
    expect(up.code).toBe(0);
    expect((await rb(['builder', 'down', '--name', 'guard'], b.env)).code).toBe(0);
  });

  test('no docker buildx: fails before assigning', async () => {
    const b = fresh({}, ['version']);
    const assigns = emu.requests().filter(r => r.route === 'assign').length;
    const up = await rb(['builder', 'up', '--profile', 'amd'], b.env);
    expect(up.code).toBe(1);
    expect(up.stderr).toMatch(/error: docker buildx is not available: /);
    expect(emu.requests().filter(r => r.route === 'assign').length).toBe(assigns);
  });

  test('not ready in time: exit 1 naming --timeout, torn down', async () => {
    const b = fresh();
    const up = await rb(['builder', 'up', '--profile', 'slow', '--timeout', '400'], b.env);
    expect(up.code).toBe(1);
    // The actions' timeout hint (explainTimeout), naming the flag.
    expect(up.stderr).toMatch(/Timed out after 400 ms: raise --timeout if the profile needs longer to start/);
    expect(stateFiles(b)).toEqual([]);
  });

  test('an unknown profile: exit 1 with the fix', async () => {
    const b = fresh();
    const up = await rb(['builder', 'up', '--profile', 'nope'], b.env);
    expect(up.code).toBe(1);
    expect(up.stderr).toMatch(/Failed to assign builder: HTTP 404: .*unknown builder profile "nope"/);
    expect(stateFiles(b)).toEqual([]);
  });

  test.each<[NodeJS.Signals, number]>([
    ['SIGINT', 130],
    ['SIGTERM', 143]
  ])('%s while waiting for the builder: torn down, exit %d', async (signal, code) => {
    const b = fresh();
    const before = emu.ledger().length;
    const run = start(['builder', 'up', '--profile', 'slow'], b.env, {exec: docker});
    await waitFor(() => emu.ledger().length > before && run.stderr.text.includes('Waiting for'));
    run.signals.send(signal);
    const r = await run.done;
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(`Received ${signal}: stopping; assigned builders are torn down first`);
    expect(r.stdout).toBe('');
    const entry = emu.ledger().slice(before);
    expect(entry).toEqual([expect.objectContaining({profile: 'slow', reason: 'teardown'})]);
    expect(stateFiles(b)).toEqual([]);
    expect(certDirs(b)).toEqual([]);
    expect(run.signals.listenerCount('SIGINT')).toBe(0);
  });

  test('a failed teardown keeps the state so down can be run again', async () => {
    const b = fresh();
    const name = (await rb(['builder', 'up', '--profile', 'amd'], b.env)).stdout.trim();
    emu.addFault({route: 'teardown', status: 500});
    const down = await rb(['builder', 'down'], b.env);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/MAY STILL BE BILLED/);
    expect(down.stderr).toContain(`run "remote-builder builder down --name ${name}" again`);
    expect(stateFiles(b)).toEqual([`${name}.json`]);
    expect(docker.builders.size).toBe(0);
    emu.clearFaults();
    const again = await rb(['builder', 'down'], b.env);
    expect(again.code).toBe(0);
    expect(stateFiles(b)).toEqual([]);
  });

  test('down without an API key still removes buildx and certificates, and keeps the state', async () => {
    const b = fresh();
    await rb(['builder', 'up', '--profile', 'amd'], b.env);
    const down = await rb(['builder', 'down'], {...b.env, REMOTE_BUILDER_API_KEY: ''});
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/"--api-key": is required/);
    expect(docker.builders.size).toBe(0);
    expect(certDirs(b)).toEqual([]);
    expect(stateFiles(b)).toHaveLength(1);
    expect((await rb(['builder', 'down'], b.env)).code).toBe(0);
  });
});

describe('builder run', () => {
  test('runs the command with BUILDX_BUILDER, exits with its code, always tears down', async () => {
    const b = fresh();
    const {command, run} = runScripted('amd', {
      onStart: (started, end) => {
        started.opts.stdout.write('output of the command\n');
        end({code: 7, signal: null});
      }
    });
    const r = await run.done;
    expect(r.code).toBe(7);
    expect(command.started).toMatchObject({command: process.execPath, args: ['arg'], opts: {cwd: process.cwd()}});
    const env = command.started?.opts.env ?? {};
    // The user's command gets the builder, never the API key.
    expect(b.env['REMOTE_BUILDER_API_KEY']).toBe(KEY);
    expect(env['REMOTE_BUILDER_API_KEY']).toBeUndefined();
    expect(env['PATH']).toBe(b.env['PATH']);
    const name = env['BUILDX_BUILDER'];
    expect(name).toMatch(/^remote-builder-[0-9a-f]{8}$/);
    expect(r.stdout).toBe('output of the command\n');
    expect(r.stderr).toContain(`(BUILDX_BUILDER=${name})`);
    expect(r.stderr).toContain('exited with 7');
    expect(r.stderr).toContain(`==> Bringing builder "${name}" down`);
    expect(docker.calls.find(c => c[1] === 'create')).not.toContain('--use');
    expect(docker.builders.size).toBe(0);
    expect(stateFiles(b)).toEqual([]);
    expect(certDirs(b)).toEqual([]);
  });

  test('a command not found on PATH: exit 127 before anything is assigned', async () => {
    const b = fresh();
    const assigns = emu.requests().filter(r => r.route === 'assign').length;
    const ledger = emu.ledger().length;
    const r = await rb(['builder', 'run', '--profile', 'amd', '--', 'no-such-command-xyz'], b.env);
    expect(r.code).toBe(127);
    expect(r.stderr).toContain('error: Cannot run "no-such-command-xyz": it is not found on PATH');
    expect(emu.requests().filter(q => q.route === 'assign').length).toBe(assigns);
    expect(emu.ledger().length).toBe(ledger);
    // The cheap checks come first: not even docker was run.
    expect(docker.calls).toEqual([]);
    expect(stateFiles(b)).toEqual([]);
  });

  test('a command path that is not executable: exit 127 before anything is assigned', async () => {
    const b = fresh();
    const assigns = emu.requests().filter(r => r.route === 'assign').length;
    const r = await rb(['builder', 'run', '--profile', 'amd', '--', './missing.sh'], b.env, {cwd: b.dir});
    expect(r.code).toBe(127);
    expect(r.stderr).toContain(`Cannot run "./missing.sh": no executable file at ${join(b.dir, 'missing.sh')}`);
    expect(emu.requests().filter(q => q.route === 'assign').length).toBe(assigns);
  });

  test.each<[NodeJS.Signals, number]>([
    ['SIGINT', 130],
    ['SIGTERM', 143]
  ])('%s is passed to the command, then the builder is torn down (exit %d)', async (signal, code) => {
    const b = fresh();
    let running = false;
    const {command, run} = runScripted('amd', {onStart: () => (running = true)});
    await waitFor(() => running);
    expect(emu.assignedBuilders()).toHaveLength(1);
    run.signals.send(signal);
    const r = await run.done;
    expect(r.code).toBe(code);
    expect(command.signals).toEqual([signal]);
    expect(r.stderr).toContain(`Passing ${signal} to ${process.execPath}`);
    expect(r.stderr).toContain(`was killed by ${signal}`);
    expect(docker.builders.size).toBe(0);
    expect(stateFiles(b)).toEqual([]);
    expect(emu.ledger().at(-1)).toMatchObject({reason: 'teardown'});
  });

  test('a command that ignores the signal is killed, then torn down', async () => {
    const b = fresh();
    let running = false;
    const {command, run} = runScripted(
      'amd',
      {
        onStart: () => (running = true),
        onSignal: (signal, _started, end) => {
          if (signal === 'SIGKILL') end({code: null, signal});
        }
      },
      {killAfterMs: 300}
    );
    await waitFor(() => running);
    run.signals.send('SIGINT');
    run.signals.send('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(137);
    expect(command.signals).toEqual(['SIGINT', 'SIGINT', 'SIGKILL']);
    expect(r.stderr).toContain('Received SIGINT again: still cleaning up so nothing stays billed');
    expect(r.stderr).toContain('is still running: killing it');
    expect(stateFiles(b)).toEqual([]);
  });

  test('SIGINT before the builder is ready: the command never runs', async () => {
    const b = fresh();
    const before = emu.ledger().length;
    const {command, run} = runScripted('slow', {});
    await waitFor(() => emu.ledger().length > before);
    run.signals.send('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('==> Running');
    expect(command.started).toBeUndefined();
    expect(stateFiles(b)).toEqual([]);
  });

  test('a command that succeeds but leaves a builder billed exits 1', async () => {
    const b = fresh();
    const {run} = runScripted('amd', {
      onStart: (_started, end) => {
        emu.addFault({route: 'teardown', status: 500});
        end({code: 0, signal: null});
      }
    });
    const r = await run.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/may still be billed: run "remote-builder builder down --name remote-builder-/);
    emu.clearFaults();
    expect((await rb(['builder', 'down'], b.env)).code).toBe(0);
  });
});

describe('builder ls', () => {
  test.each<[number, number, string]>([
    [1, 0, '0s'],
    [2, 59999, '59s'],
    [3, 60000, '1m'],
    [4, 3723000, '1h 2m'],
    [5, 90000000, '1d 1h'],
    [6, -5000, '0s']
  ])('%d: formatAge(%d) is %j', (_n, ms, age) => {
    expect(formatAge(ms)).toBe(age);
  });

  test("lists this machine's builders with profile, ids, age and whether the service still has them assigned", async () => {
    const b = fresh();
    expect(await rb(['builder', 'ls'], b.env)).toEqual({
      code: 0,
      stdout: '',
      stderr: `No builder is up (${b.stateDir}).\n`
    });
    expect((await rb(['builder', 'up', '--profile', 'amd', '--name', 'one'], b.env)).code).toBe(0);
    expect((await rb(['builder', 'up', '--profile', 'multi', '--name', 'two', '--no-use'], b.env)).code).toBe(0);
    const state = (name: string) => JSON.parse(readFileSync(join(b.stateDir, `${name}.json`), 'utf8'));
    const [one, two] = [state('one'), state('two')];
    const [twoA, twoB] = two.builder.builderIds as string[];
    // Seen 1 h 2 min 3 s after "two" was brought up (so "one", up before it, shows 1h 2m too unless a loaded
    // machine took a minute between them); one of the two builders of "two" torn down behind its back.
    const clock = new ManualClock(Date.parse(two.createdAt) + 3723000);
    await fetch(`${emu.url}/api/v1/builders/${twoB}/teardown`, {
      method: 'DELETE',
      headers: {Authorization: `Bearer ${KEY}`}
    });
    const table = await rb(['builder', 'ls'], b.env, {clock});
    expect(table.code).toBe(0);
    expect(table.stderr).toBe('');
    const rows = table.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^NAME +PROFILE +BUILDER IDS +AGE +ASSIGNED$/);
    expect(rows[1]).toMatch(new RegExp(`^one +amd +${one.builder.builderIds[0]} +1h 2m +yes$`));
    expect(rows[2]).toMatch(new RegExp(`^two +multi +${twoA},${twoB} +1h 2m +1 of 2$`));
    expect(rows).toHaveLength(3);

    const listed = JSON.parse((await rb(['builder', 'ls', '--json'], b.env, {clock})).stdout);
    expect(listed[1]).toEqual({
      name: 'two',
      profile: 'multi',
      builderIds: [twoA, twoB],
      createdAt: two.createdAt,
      ageSeconds: Math.floor((clock.now() - Date.parse(two.createdAt)) / 1000),
      stateFile: join(b.stateDir, 'two.json'),
      builders: [
        {id: twoA, assigned: true, status: 'ready'},
        {id: twoB, assigned: false, status: 'terminated', why: 'its status is "terminated"'}
      ]
    });

    // A service that cannot answer: "?" and a warning, not a guess.
    emu.addFault({route: 'details', status: 500, builderId: one.builder.builderIds[0]});
    const unknown = await rb(['builder', 'ls'], b.env);
    expect(unknown.code).toBe(0);
    expect(unknown.stdout.split('\n')[1]).toMatch(/ \?$/);
    expect(unknown.stderr).toMatch(
      new RegExp(
        `^remote-builder: warning: Could not ask the service about ${one.builder.builderIds[0]} \\(builder "one"\\): Failed to get builder details: HTTP 500`
      )
    );
    emu.clearFaults();
    expect((await rb(['builder', 'down', '--name', 'one'], b.env)).code).toBe(0);
    expect((await rb(['builder', 'down', '--name', 'two'], b.env)).code).toBe(0);
  });
});
