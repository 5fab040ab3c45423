import {describe, expect, test} from '@jest/globals';
import {readFileSync, realpathSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {systemClock, timerDeadline, type Clock, type Deadline, type DeadlineOpts} from '../src/clock.js';
import {KILL_GRACE_MS, lastLine, NodeExec, PIPE_DRAIN_MS, type ExecResult} from '../src/exec.js';
import {killsWithoutPid} from './fakes/kills-without-pid.js';
import {RecordingLogger} from './fakes/recording-logger.js';

const node = process.execPath;
/** `sh -c script`: a child that costs a few ms to start, where a node child costs ~100 ms of CPU. */
const sh = (script: string, ...args: string[]): [string, string[]] => ['sh', ['-c', script, 'sh', ...args]];
/** sh tree.sh hang|exit: prints `grandchild <pid>` of a sleep that ignores SIGTERM/SIGINT and holds the pipes. */
const TREE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/exec/tree.sh');
/** node --import tsx exit-mid-command.ts: exits while NodeExec runs `tree.sh hang`, after printing the grandchild's pid. */
const EXIT_MID_COMMAND = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/exec/exit-mid-command.ts');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Injected kill grace, pipe drain and time limit, held by HeldClock until the test fires them (unique values). */
const GRACE_MS = 987_654;
const DRAIN_MS = 876_543;
const LIMIT_MS = 765_432;

/**
 * The system clock, except deadlines of `held` durations: those wait until the test fires them, so a test
 * decides when the kill grace or the pipe drain ends instead of sleeping through it.
 */
class HeldClock implements Clock {
  readonly #held = new Set<{ms: number; fire: () => void}>();
  readonly #waiters: {ms: number; resolve: () => void}[] = [];
  constructor(private readonly held: number[]) {}

  now(): number {
    return systemClock.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }

  deadline(ms: number | undefined, opts?: DeadlineOpts): Deadline {
    if (ms === undefined || !this.held.includes(ms)) return systemClock.deadline(ms, opts);
    return timerDeadline(
      (m, signal) =>
        new Promise<void>((resolve, reject) => {
          const timer = {ms: m, fire: resolve};
          this.#held.add(timer);
          signal.addEventListener('abort', () => {
            this.#held.delete(timer);
            reject(new Error('released'));
          });
          for (const w of this.#waiters.filter(w => w.ms === m)) w.resolve();
        }),
      ms,
      opts
    );
  }

  /** Resolves once a timer of `ms` is pending. */
  scheduled(ms: number): Promise<void> {
    if ([...this.#held].some(t => t.ms === ms)) return Promise.resolve();
    return new Promise(resolve => this.#waiters.push({ms, resolve}));
  }

  pending(ms: number): number {
    return [...this.#held].filter(t => t.ms === ms).length;
  }

  /** Ends the pending timers of `ms` now. */
  fire(ms: number): void {
    for (const t of [...this.#held]) {
      if (t.ms !== ms) continue;
      this.#held.delete(t);
      t.fire();
    }
  }
}

/** Tracks whether a run has resolved yet. */
function tracked(run: Promise<ExecResult>): {run: Promise<ExecResult>; settled: () => boolean} {
  let done = false;
  void run.then(() => (done = true));
  return {run, settled: () => done};
}

/** One macrotask turn: lets pending I/O callbacks and promise chains run. */
const turn = (): Promise<void> => new Promise(resolve => setImmediate(resolve));

/** A logger that calls `onLine` with every line the command prints (e.g. to act once it says `armed`). */
function lineLogger(onLine: (line: string) => void): RecordingLogger {
  const logger = new RecordingLogger();
  logger.untrusted = onLine;
  return logger;
}

describe('NodeExec', () => {
  test('captures stdout and stderr and the exit code 0', async () => {
    const res = await new NodeExec().run(...sh('printf "out1\\nout2\\n"; printf "err1\\n" >&2'));
    expect(res).toEqual({exitCode: 0, stdout: 'out1\nout2\n', stderr: 'err1\n'});
  });

  // prettier-ignore
  test.each<[number, number]>([
    [1, 1],
    [2, 3],
    [3, 125]
  ])('[%d] reports exit code %d', async (_n, code) => {
    const res = await new NodeExec().run(...sh(`printf bye >&2; exit ${code}`));
    expect(res).toEqual({exitCode: code, stdout: '', stderr: 'bye'});
  });

  test('passes argv verbatim, without a shell', async () => {
    const args = ['a b', '$HOME', '"q"', "'s'", '; echo no', '*'];
    const res = await new NodeExec().run(...sh('printf "%s\\n" "$@"', ...args));
    expect(res.stdout).toBe(args.map(a => `${a}\n`).join(''));
  });

  test('merges env over process.env and honours cwd', async () => {
    const cwd = realpathSync(tmpdir());
    const res = await new NodeExec().run(...sh('printf "%s\\n" "$RB_TEST_VAR" "${PATH:+set}" "$(pwd -P)"'), {
      env: {RB_TEST_VAR: 'hello'},
      cwd
    });
    expect(res.stdout).toBe(`hello\nset\n${cwd}\n`);
  });

  test('the command does not get the API key variables, from process.env or env', async () => {
    process.env['REMOTE_BUILDER_API_KEY'] = 'rb_key_in_env';
    try {
      // `env` prints the environment it was given, one NAME=value a line.
      const res = await new NodeExec().run('env', [], {env: {'INPUT_API-KEY': 'rb_key_input'}});
      const names = res.stdout.split('\n').map(l => l.split('=')[0] as string);
      expect(names).toContain('PATH');
      expect(names.filter(k => /API.KEY|RUNNER_TOKEN/i.test(k))).toEqual([]);
    } finally {
      delete process.env['REMOTE_BUILDER_API_KEY'];
    }
  });

  test('kills the command when timeoutMs ends, and not before', async () => {
    let armed!: () => void;
    const running = new Promise<void>(resolve => (armed = resolve));
    const logger = lineLogger(line => line === 'armed' && armed());
    const clock = new HeldClock([LIMIT_MS]);
    const {run, settled} = tracked(
      new NodeExec({logger, clock}).run(...sh('echo armed; exec sleep 1000'), {timeoutMs: LIMIT_MS})
    );
    // The command runs and its time limit is pending: the run cannot settle before the limit ends.
    await Promise.all([running, clock.scheduled(LIMIT_MS)]);
    await turn();
    expect(settled()).toBe(false);
    clock.fire(LIMIT_MS);
    expect(await run).toEqual({exitCode: 143, stdout: 'armed\n', stderr: '', killed: 'timeout'});
  });

  test('escalates to SIGKILL when the kill grace ends, not before, when the command ignores SIGTERM', async () => {
    // Abort only once the child says its SIGTERM handler is installed.
    const controller = new AbortController();
    let termSeen!: () => void;
    const term = new Promise<void>(resolve => (termSeen = resolve));
    const logger = lineLogger(line => {
      if (line === 'armed') controller.abort();
      if (line === 'term') termSeen();
    });
    const clock = new HeldClock([GRACE_MS]);
    const {run, settled} = tracked(
      new NodeExec({logger, clock, killGraceMs: GRACE_MS}).run(
        // The shell waits on its sleeps with `wait`, which a trapped signal interrupts: it says so and goes on
        // (its own `Terminated` notes about the sleeps go to /dev/null).
        ...sh("exec 2>/dev/null; trap 'echo term' TERM; echo armed; while :; do sleep 1 & wait $!; done"),
        {signal: controller.signal}
      )
    );
    // The SIGTERM arrived and was ignored, and the grace is running: nothing is settled until it ends.
    await Promise.all([term, clock.scheduled(GRACE_MS)]);
    await turn();
    expect(settled()).toBe(false);
    clock.fire(GRACE_MS);
    expect(await run).toEqual({exitCode: 137, stdout: 'armed\nterm\n', stderr: '', killed: 'aborted'});
  });

  test('kills the command (SIGTERM) when the signal aborts; one that stops on it never waits for the kill grace', async () => {
    const controller = new AbortController();
    const logger = lineLogger(line => line === 'armed' && controller.abort(new Error('stop')));
    const clock = new HeldClock([GRACE_MS]);
    const res = await new NodeExec({logger, clock, killGraceMs: GRACE_MS}).run(...sh('echo armed; exec sleep 1000'), {
      signal: controller.signal
    });
    expect(res).toEqual({exitCode: 143, stdout: 'armed\n', stderr: '', killed: 'aborted'});
    expect(clock.pending(GRACE_MS)).toBe(0);
  });

  test('an already aborted signal kills the command at once', async () => {
    const res = await new NodeExec().run('sleep', ['1000'], {signal: AbortSignal.abort()});
    expect(res.killed).toBe('aborted');
    expect(res.exitCode).toBe(143);
  });

  test('a command that finishes in time is not marked killed, its time limit is cleared, and a later abort is harmless', async () => {
    const controller = new AbortController();
    const clock = new HeldClock([LIMIT_MS]);
    const res = await new NodeExec({clock}).run(...sh('printf ok'), {
      timeoutMs: LIMIT_MS,
      signal: controller.signal
    });
    expect(clock.pending(LIMIT_MS)).toBe(0);
    controller.abort();
    expect(res).toEqual({exitCode: 0, stdout: 'ok', stderr: ''});
  });

  test('a missing command resolves with exit code 127 and the spawn error', async () => {
    const res = await new NodeExec().run('rb-no-such-command-xyz', ['--version']);
    expect(res).toEqual({
      exitCode: 127,
      stdout: '',
      stderr: 'rb-no-such-command-xyz: spawn rb-no-such-command-xyz ENOENT',
      spawnError: 'ENOENT'
    });
  });

  test('a command that never started is not reported killed, nor signalled, even when the signal had aborted', async () => {
    const killed = killsWithoutPid();
    try {
      const res = await new NodeExec().run('rb-no-such-command-xyz', [], {signal: AbortSignal.abort()});
      expect(res).toEqual({
        exitCode: 127,
        stdout: '',
        stderr: 'rb-no-such-command-xyz: spawn rb-no-such-command-xyz ENOENT',
        spawnError: 'ENOENT'
      });
    } finally {
      killed.restore();
    }
    // Node 20 signals an uninitialized pid for a child that did not start: seen as 0, our own process group.
    expect(killed.signals).toEqual([]);
  });

  test('echoes output lines to the logger as untrusted (partial last line included) and debug-logs the argv', async () => {
    const logger = new RecordingLogger();
    await new NodeExec({logger}).run(...sh('printf "a\\n\\nb"; printf "e\\n" >&2; sleep 0.02; printf "c\\nd"'));
    expect(logger.messages('debug')).toEqual([expect.stringMatching(/^NodeExec\.run: sh -c printf "a/)]);
    expect(logger.messages('untrusted').sort()).toEqual(['a', 'bc', 'd', 'e']);
    expect(logger.messages('info')).toEqual([]);
  });

  test('logged: the caller printed the command line, so it is not debug-logged a second time', async () => {
    const logger = new RecordingLogger();
    const res = await new NodeExec({logger}).run(...sh('echo out'), {logged: true});
    expect(res.exitCode).toBe(0);
    expect(logger.messages('debug')).toEqual([]);
    expect(logger.messages('untrusted')).toEqual(['out']);
  });

  test('silent: nothing is echoed', async () => {
    const logger = new RecordingLogger();
    const res = await new NodeExec({logger}).run(...sh('echo quiet; echo hush >&2'), {silent: true});
    expect(res.stdout).toBe('quiet\n');
    expect(logger.lines).toEqual([expect.objectContaining({level: 'debug'})]);
  });
});

/** No such process, or a zombie (killed, not yet reaped by whoever inherited it): it holds no pipe and runs nothing. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw e;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * Resolves once the process is gone (polling every 20 ms). No time limit of its own: a process that was
 * SIGKILLed goes however loaded the machine is, and one that was not fails the test at jest's testTimeout.
 */
async function untilGone(pid: number): Promise<void> {
  while (!gone(pid)) await new Promise(resolve => setTimeout(resolve, 20));
}

/** A logger that reports the grandchild's pid the moment tree.sh prints it. */
function treeLogger(onGrandchild?: (pid: number) => void): {logger: RecordingLogger; pid: () => number} {
  const logger = new RecordingLogger();
  let pid = 0;
  const untrusted = logger.untrusted.bind(logger);
  logger.untrusted = (message: string) => {
    untrusted(message);
    const m = /^grandchild (\d+)$/.exec(message);
    if (m) {
      pid = Number(m[1]);
      onGrandchild?.(pid);
    }
  };
  return {logger, pid: () => pid};
}

describe('NodeExec: the process tree', () => {
  test('abort stops the whole tree: a grandchild that ignores SIGTERM and holds the pipes is SIGKILLed', async () => {
    const controller = new AbortController();
    const {logger, pid} = treeLogger(() => controller.abort());
    const clock = new HeldClock([GRACE_MS]);
    const {run, settled} = tracked(
      new NodeExec({logger, clock, killGraceMs: GRACE_MS}).run('sh', [TREE, 'hang'], {signal: controller.signal})
    );
    await clock.scheduled(GRACE_MS);
    await turn();
    // The SIGTERM did not reach the grandchild's sleep: it lives, and the run waits for the grace to end.
    expect(pid()).toBeGreaterThan(0);
    expect(gone(pid())).toBe(false);
    expect(settled()).toBe(false);
    clock.fire(GRACE_MS);
    // The command itself died of the SIGTERM; the grandchild outlived it until the group's SIGKILL.
    expect(await run).toEqual({exitCode: 143, stdout: `grandchild ${pid()}\n`, stderr: '', killed: 'aborted'});
    await untilGone(pid());
  });

  test('the time limit stops the whole tree the same way', async () => {
    const clock = new HeldClock([GRACE_MS, LIMIT_MS]);
    // The limit ends once the grandchild runs, as the abort above does.
    const {logger, pid} = treeLogger(() => clock.fire(LIMIT_MS));
    const {run, settled} = tracked(
      new NodeExec({logger, clock, killGraceMs: GRACE_MS}).run('sh', [TREE, 'hang'], {timeoutMs: LIMIT_MS})
    );
    await clock.scheduled(GRACE_MS);
    await turn();
    expect(pid()).toBeGreaterThan(0);
    expect(gone(pid())).toBe(false);
    expect(settled()).toBe(false);
    clock.fire(GRACE_MS);
    expect(await run).toEqual({exitCode: 143, stdout: `grandchild ${pid()}\n`, stderr: '', killed: 'timeout'});
    await untilGone(pid());
  });

  test('by default the grace is KILL_GRACE_MS and the drain PIPE_DRAIN_MS', async () => {
    const controller = new AbortController();
    const {logger, pid} = treeLogger(() => controller.abort());
    const clock = new HeldClock([KILL_GRACE_MS, PIPE_DRAIN_MS]);
    const {run, settled} = tracked(
      new NodeExec({logger, clock}).run('sh', [TREE, 'hang'], {signal: controller.signal})
    );
    await clock.scheduled(KILL_GRACE_MS);
    expect(settled()).toBe(false);
    clock.fire(KILL_GRACE_MS);
    // SIGKILLed: the group's pipes close at once, or the drain (PIPE_DRAIN_MS) ends the wait.
    void clock.scheduled(PIPE_DRAIN_MS).then(() => clock.fire(PIPE_DRAIN_MS));
    expect((await run).killed).toBe('aborted');
    await untilGone(pid());
  });

  test('a command that exits while a grandchild holds the pipes resolves when the pipe drain ends', async () => {
    const {logger, pid} = treeLogger();
    const clock = new HeldClock([DRAIN_MS]);
    try {
      const {run, settled} = tracked(new NodeExec({logger, clock, pipeDrainMs: DRAIN_MS}).run('sh', [TREE, 'exit']));
      // The command has exited; its grandchild holds the pipes, so only the drain's end settles the run.
      await clock.scheduled(DRAIN_MS);
      await turn();
      expect(settled()).toBe(false);
      clock.fire(DRAIN_MS);
      expect(await run).toEqual({exitCode: 0, stdout: `grandchild ${pid()}\n`, stderr: ''});
      // Resolved while the grandchild (60 s of sleep) still runs: nothing waited for its pipes to close.
      expect(gone(pid())).toBe(false);
    } finally {
      if (pid() > 0 && !gone(pid())) process.kill(pid(), 'SIGKILL');
    }
    await untilGone(pid());
  });

  test('our process exiting while a command runs takes the command’s whole group with it', async () => {
    const res = await new NodeExec().run(node, ['--import', 'tsx', EXIT_MID_COMMAND], {cwd: ROOT, timeoutMs: 20000});
    const pid = Number(/^grandchild (\d+)$/m.exec(res.stdout)?.[1] ?? 0);
    expect({exitCode: res.exitCode, reported: pid > 0, stderr: res.stderr}).toEqual({
      exitCode: 0,
      reported: true,
      stderr: ''
    });
    try {
      await untilGone(pid);
    } finally {
      if (!gone(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  test('output written just before the command exits is all read', async () => {
    const res = await new NodeExec().run(...sh('head -c 1048576 /dev/zero | tr "\\0" x; printf end >&2; exit 3'));
    expect({exitCode: res.exitCode, length: res.stdout.length, stderr: res.stderr}).toEqual({
      exitCode: 3,
      length: 1 << 20,
      stderr: 'end'
    });
  });
});

describe('lastLine', () => {
  // prettier-ignore
  test.each<[number, string, string, string]>([
    [1, 'first\nsecond\n', 'out', 'second'],
    [2, '  only  \n\n', '', 'only'],
    [3, '', 'stdout line 1\nstdout line 2\n', 'stdout line 2'],
    [4, '\n \n', 'from stdout', 'from stdout'],
    [5, '', '', 'no output'],
    [6, 'a\r\nERROR: boom\r\n', '', 'ERROR: boom']
  ])('[%d] stderr %o, stdout %o → %o', (_n, stderr, stdout, expected) => {
    expect(lastLine({stderr, stdout})).toBe(expected);
  });
});
