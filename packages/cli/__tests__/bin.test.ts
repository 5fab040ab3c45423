// The real bin/remote-builder.js (tsx loading the TypeScript entry) as a child process.
import {afterAll, beforeAll, expect, test} from '@jest/globals';
import {spawn} from 'node:child_process';
import {existsSync, readdirSync, rmSync} from 'node:fs';
import {Emulator} from '@remote-builder-actions/emulator';
import {BIN, dockerBuilders, sandbox, waitFor, type Sandbox} from './helpers.js';

const KEY = 'rb_bin_key_5d4c3b';
let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await Emulator.start({profiles: [{name: 'amd'}], apiKeys: [{key: KEY, scopes: ['ci', 'cache', 'builders']}]});
  box = sandbox(emu, KEY);
});
afterAll(async () => {
  await emu?.close();
  if (box) rmSync(box.dir, {recursive: true, force: true});
});

interface Proc {
  stdout: string;
  stderr: string;
  kill(signal: NodeJS.Signals): void;
  done: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
}

function bin(args: string[], env: NodeJS.ProcessEnv = box.env): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {env, cwd: box.dir, stdio: ['ignore', 'pipe', 'pipe']});
  const proc: Proc = {
    stdout: '',
    stderr: '',
    kill: signal => child.kill(signal),
    done: new Promise(resolve => child.on('close', (code, signal) => resolve({code, signal})))
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (proc.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (proc.stderr += d));
  return proc;
}

// One run that succeeds (exit 0, its JSON on stdout) and one stopped by a signal (below): the bin's wiring. What
// --version prints and that a usage error exits 2 are runCli's, tested in-process in cli.test.ts.
test('a JSON listing: exit 0, the JSON on stdout', async () => {
  const stacks = bin(['stacks', 'list', '--json']);
  expect(await stacks.done).toEqual({code: 0, signal: null});
  expect(JSON.parse(stacks.stdout)).toEqual([{id: 'stk_ec2_default', kind: 'ec2', name: 'default'}]);
  expect(stacks.stderr).toBe('');
});

test('builder run: SIGINT to the CLI reaches the command, the builder is torn down, exit 130', async () => {
  const before = emu.ledger().length;
  const run = bin([
    'builder',
    'run',
    '--profile',
    'amd',
    '--',
    process.execPath,
    '-e',
    'console.log("started " + process.env.BUILDX_BUILDER); setInterval(() => {}, 1000)'
  ]);
  await waitFor(() => run.stdout.includes('started'));
  expect(emu.assignedBuilders()).toHaveLength(1);
  run.kill('SIGINT');
  expect(await run.done).toEqual({code: 130, signal: null});
  expect(run.stdout).toMatch(/^started remote-builder-[0-9a-f]{8}\n$/);
  expect(run.stderr).toContain('Passing SIGINT to');
  expect(emu.assignedBuilders()).toEqual([]);
  expect(emu.ledger().slice(before)).toEqual([expect.objectContaining({reason: 'teardown'})]);
  expect(dockerBuilders(box)).toEqual({});
  expect(existsSync(box.stateDir) ? readdirSync(box.stateDir).filter(f => f.endsWith('.json')) : []).toEqual([]);
}, 40000);
