// Shared helpers of the CLI tests: captured streams, a signal source to send signals from, and a runner of
// runCli against the emulator with the recording fake docker on PATH.
import {EventEmitter} from 'node:events';
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import type {Emulator} from '@remote-builder-actions/emulator';
import {runCli} from '../src/cli.js';
import type {CliDeps} from '../src/context.js';
import {buildxConfigDir, buildxRecords, fakeBuilder} from '../../emulator/fake-docker/buildx-store.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const FAKE_DOCKER_BIN = join(ROOT, 'packages/emulator/fake-docker');
export const BIN = join(ROOT, 'packages/cli/bin/remote-builder.js');

/** A stream that keeps what is written. */
export class Capture {
  readonly chunks: string[] = [];
  /** Called after every write, e.g. to wait for a line. */
  onWrite?: () => void;
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    this.onWrite?.();
    return true;
  }
  get text(): string {
    return this.chunks.join('');
  }
}

/** A SignalSource the test sends signals from. */
export class FakeSignals extends EventEmitter {
  send(signal: NodeJS.Signals): void {
    this.emit(signal, signal);
  }
}

export interface Sandbox {
  dir: string;
  env: NodeJS.ProcessEnv;
  stateDir: string;
  dockerDir: string;
}

/** A temp folder with the environment of a shell using the emulator and the fake docker. */
export function sandbox(emu: Emulator, key: string, extraEnv: NodeJS.ProcessEnv = {}): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'rb-cli-'));
  // A build context: the fake docker reads its Dockerfile, as BuildKit does (the steps of its canned progress).
  writeFileSync(join(dir, 'Dockerfile'), 'FROM alpine:3.20\nWORKDIR /src\nCOPY . .\nRUN ./build.sh\n');
  const env: NodeJS.ProcessEnv = {
    PATH: `${FAKE_DOCKER_BIN}:${process.env.PATH ?? ''}`,
    HOME: dir,
    // Where docker looks with HOME=dir, said outright: core finds buildx's records by it (not by HOME).
    DOCKER_CONFIG: join(dir, '.docker'),
    XDG_STATE_HOME: join(dir, 'state'),
    FAKE_DOCKER_DIR: join(dir, 'docker'),
    REMOTE_BUILDER_API_URL: emu.url,
    REMOTE_BUILDER_API_KEY: key,
    ...extraEnv
  };
  return {dir, env, stateDir: join(dir, 'state', 'remote-builder'), dockerDir: join(dir, 'docker')};
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Started {
  stdout: Capture;
  stderr: Capture;
  signals: FakeSignals;
  done: Promise<CliRun>;
}

/** Starts runCli with captured streams and fake signals; `done` settles with the exit code and output. */
export function start(argv: string[], env: NodeJS.ProcessEnv, deps: Partial<CliDeps> = {}): Started {
  const stdout = new Capture();
  const stderr = new Capture();
  const signals = new FakeSignals();
  const done = runCli(argv, {env, stdout, stderr, signals, progressIntervalMs: 0, ...deps}).then(code => ({
    code,
    stdout: stdout.text,
    stderr: stderr.text
  }));
  return {stdout, stderr, signals, done};
}

/** Runs runCli to the end. */
export function cli(argv: string[], env: NodeJS.ProcessEnv, deps: Partial<CliDeps> = {}): Promise<CliRun> {
  return start(argv, env, deps).done;
}

/** Resolves once `cond` holds (polling every 10 ms); no limit of its own: jest's test timeout ends a wait that never holds. */
export async function waitFor(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise(r => setTimeout(r, 10).unref());
}

/** The argv of every fake docker call so far. */
export function dockerCalls(box: Sandbox): string[][] {
  const file = join(box.dockerDir, 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map(l => (JSON.parse(l) as {argv: string[]}).argv);
}

/** The buildx builders the fake docker knows: buildx's records in the sandbox's DOCKER_CONFIG, by name. */
export function dockerBuilders(box: Sandbox): Record<string, ReturnType<typeof fakeBuilder>> {
  const records = buildxRecords(buildxConfigDir({DOCKER_CONFIG: box.env['DOCKER_CONFIG']})).list();
  return Object.fromEntries(records.map(r => [r.Name, fakeBuilder(r)]));
}
