import {describe, expect, test} from '@jest/globals';
import {readFileSync, realpathSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {KILL_GRACE_MS, lastLine, NodeExec, PIPE_DRAIN_MS, type ExecResult, type ExecTimers} from '../src/exec.js';
import {killsWithoutPid} from './fakes/kills-without-pid.js';
import {RecordingLogger} from './fakes/recording-logger.js';

const node = process.execPath;
const js = (code: string): string[] => ['-e', code];
/** sh tree.sh hang|exit: prints `grandchild <pid>` of a sleep that ignores SIGTERM/SIGINT and holds the pipes. */
const TREE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/exec/tree.sh');
/** node --import tsx exit-mid-command.ts: exits while NodeExec runs `tree.sh hang`, after printing the grandchild's pid. */
const EXIT_MID_COMMAND = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/exec/exit-mid-command.ts');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Injected kill grace and pipe drain, held by HeldTimers until the test fires them (unique values). */
const GRACE_MS = 987_654;
const DRAIN_MS = 876_543;

/**
 * Real timers, except those of `held` durations: those wait until the test fires them, so a test decides
 * when the kill grace or the pipe drain ends instead of sleeping through it.
 */
class HeldTimers implements ExecTimers {
  readonly #held = new Map<number, {ms: number; fn: () => void}>();
  readonly #waiters: {ms: number; resolve: () => void}[] = [];
  #next = -1;
  constructor(private readonly held: number[]) {}

  setTimeout(fn: () => void, ms: number): unknown {
    if (!this.held.includes(ms)) return setTimeout(fn, ms);
    const id = this.#next--;
    this.#held.set(id, {ms, fn});
    for (const w of this.#waiters.filter(w => w.ms === ms)) w.resolve();
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number' && handle < 0) this.#held.delete(handle);
    else clearTimeout(handle as NodeJS.Timeout);
  }

  /** Resolves once a timer of `ms` is pending. */
  scheduled(ms: number): Promise<void> {
    if ([...this.#held.values()].some(t => t.ms === ms)) return Promise.resolve();
    return new Promise(resolve => this.#waiters.push({ms, resolve}));
  }

  pending(ms: number): number {
    return [...this.#held.values()].filter(t => t.ms === ms).length;
  }

  /** Ends the pending timers of `ms` now. */
  fire(ms: number): void {
    for (const [id, t] of [...this.#held]) {
      if (t.ms !== ms) continue;
      this.#held.delete(id);
      t.fn();
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

describe('NodeExec', () => {
  test('captures stdout and stderr and the exit code 0', async () => {
    const res = await new NodeExec().run(
      node,
      js('process.stdout.write("out1\\nout2\\n"); process.stderr.write("err1\\n");')
    );
    expect(res).toEqual({exitCode: 0, stdout: 'out1\nout2\n', stderr: 'err1\n'});
  });

  // prettier-ignore
  test.each<[number, number]>([
    [1, 1],
    [2, 3],
    [3, 125]
  ])('[%d] reports exit code %d', async (_n, code) => {
    const res = await new NodeExec().run(node, js(`process.stderr.write("bye"); process.exit(${code});`));
    expect(res).toEqual({exitCode: code, stdout: '', stderr: 'bye'});
  });

  test('passes argv verbatim, without a shell', async () => {
    const args = ['a b', '$HOME', '"q"', "'s'", '; echo no', '*'];
    const res = await new NodeExec().run(node, [
      ...js('process.stdout.write(JSON.stringify(process.argv.slice(1)))'),
      ...args
    ]);
    expect(JSON.parse(res.stdout)).toEqual(args);
  });

  test('merges env over process.env and honours cwd', async () => {
    const cwd = realpathSync(tmpdir());
    const res = await new NodeExec().run(
      node,
      js('process.stdout.write(JSON.stringify([process.env.RB_TEST_VAR, !!process.env.PATH, process.cwd()]))'),
      {
        env: {RB_TEST_VAR: 'hello'},
        cwd
      }
    );
    expect(JSON.parse(res.stdout)).toEqual(['hello', true, cwd]);
  });

  test('kills the command after timeoutMs', async () => {
    const started = Date.now();
    const res = await new NodeExec().run(node, js('setInterval(() => {}, 1000);'), {timeoutMs: 300});
    expect(res).toEqual({exitCode: 143, stdout: '', stderr: '', killed: 'timeout'});
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2000);
  });

  test('escalates to SIGKILL when the kill grace ends, not before, when the command ignores SIGTERM', async () => {
    // Abort only once the child says its SIGTERM handler is installed.
    const controller = new AbortController();
    let termSeen!: () => void;
    const term = new Promise<void>(resolve => (termSeen = resolve));
    const logger = new RecordingLogger();
    logger.info = (message: string) => {
      if (message === 'armed') controller.abort();
      if (message === 'term') termSeen();
    };
    const timers = new HeldTimers([GRACE_MS]);
    const {run, settled} = tracked(
      new NodeExec({logger, timers, killGraceMs: GRACE_MS}).run(
        node,
        js('process.on("SIGTERM", () => console.log("term")); console.log("armed"); setInterval(() => {}, 1000);'),
        {signal: controller.signal}
      )
    );
    // The SIGTERM arrived and was ignored, and the grace is running: nothing is settled until it ends.
    await Promise.all([term, timers.scheduled(GRACE_MS)]);
    await turn();
    expect(settled()).toBe(false);
    timers.fire(GRACE_MS);
    expect(await run).toEqual({exitCode: 137, stdout: 'armed\nterm\n', stderr: '', killed: 'aborted'});
  });

  test('a command that stops on SIGTERM never waits for the kill grace', async () => {
    const controller = new AbortController();
    const logger = new RecordingLogger();
    logger.info = (message: string) => {
      if (message === 'armed') controller.abort();
    };
    const timers = new HeldTimers([GRACE_MS]);
    const res = await new NodeExec({logger, timers, killGraceMs: GRACE_MS}).run(
      node,
      js('console.log("armed"); setInterval(() => {}, 1000);'),
      {signal: controller.signal}
    );
    expect(res).toEqual({exitCode: 143, stdout: 'armed\n', stderr: '', killed: 'aborted'});
    expect(timers.pending(GRACE_MS)).toBe(0);
  });

  test('kills the command when the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 200);
    const started = Date.now();
    const res = await new NodeExec().run(node, js('setInterval(() => {}, 1000);'), {signal: controller.signal});
    expect(res).toEqual({exitCode: 143, stdout: '', stderr: '', killed: 'aborted'});
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('an already aborted signal kills the command at once', async () => {
    const res = await new NodeExec().run(node, js('setInterval(() => {}, 1000);'), {signal: AbortSignal.abort()});
    expect(res.killed).toBe('aborted');
    expect(res.exitCode).toBe(143);
  });

  test('a command that finishes in time is not marked killed, and a later abort is harmless', async () => {
    const controller = new AbortController();
    const res = await new NodeExec().run(node, js('process.stdout.write("ok")'), {
      timeoutMs: 10000,
      signal: controller.signal
    });
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

  test('echoes output lines to the logger (partial last line included) and debug-logs the argv', async () => {
    const logger = new RecordingLogger();
    await new NodeExec({logger}).run(
      node,
      js(
        'process.stdout.write("a\\n\\nb"); setTimeout(() => process.stdout.write("c\\nd"), 20); process.stderr.write("e\\n")'
      )
    );
    expect(logger.messages('debug')).toEqual([expect.stringMatching(/^NodeExec\.run: .+ -e process\.stdout\.write/)]);
    expect(logger.messages('info').sort()).toEqual(['a', 'bc', 'd', 'e']);
  });

  test('logged: the caller printed the command line, so it is not debug-logged a second time', async () => {
    const logger = new RecordingLogger();
    const res = await new NodeExec({logger}).run(node, js('console.log("out")'), {logged: true});
    expect(res.exitCode).toBe(0);
    expect(logger.messages('debug')).toEqual([]);
    expect(logger.messages('info')).toEqual(['out']);
  });

  test('silent: nothing is echoed', async () => {
    const logger = new RecordingLogger();
    const res = await new NodeExec({logger}).run(node, js('console.log("quiet"); console.error("hush")'), {
      silent: true
    });
    expect(res.stdout).toBe('quiet\n');
    expect(logger.messages('info')).toEqual([]);
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

/** Polls until the process is gone; false if it is still there after `withinMs`. */
async function goneWithin(pid: number, withinMs = 5000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!gone(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  return true;
}

/** A logger that reports the grandchild's pid the moment tree.sh prints it. */
function treeLogger(onGrandchild?: (pid: number) => void): {logger: RecordingLogger; pid: () => number} {
  const logger = new RecordingLogger();
  let pid = 0;
  const info = logger.info.bind(logger);
  logger.info = (message: string) => {
    info(message);
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
    const timers = new HeldTimers([GRACE_MS]);
    const {run, settled} = tracked(
      new NodeExec({logger, timers, killGraceMs: GRACE_MS}).run('sh', [TREE, 'hang'], {signal: controller.signal})
    );
    await timers.scheduled(GRACE_MS);
    await turn();
    // The SIGTERM did not reach the grandchild's sleep: it lives, and the run waits for the grace to end.
    expect(pid()).toBeGreaterThan(0);
    expect(gone(pid())).toBe(false);
    expect(settled()).toBe(false);
    timers.fire(GRACE_MS);
    // The command itself died of the SIGTERM; the grandchild outlived it until the group's SIGKILL.
    expect(await run).toEqual({exitCode: 143, stdout: `grandchild ${pid()}\n`, stderr: '', killed: 'aborted'});
    expect(await goneWithin(pid())).toBe(true);
  });

  test('the time limit stops the whole tree the same way', async () => {
    const {logger, pid} = treeLogger();
    const timers = new HeldTimers([GRACE_MS]);
    const {run, settled} = tracked(
      new NodeExec({logger, timers, killGraceMs: GRACE_MS}).run('sh', [TREE, 'hang'], {timeoutMs: 200})
    );
    await timers.scheduled(GRACE_MS);
    await turn();
    expect(pid()).toBeGreaterThan(0);
    expect(settled()).toBe(false);
    timers.fire(GRACE_MS);
    expect(await run).toEqual({exitCode: 143, stdout: `grandchild ${pid()}\n`, stderr: '', killed: 'timeout'});
    expect(await goneWithin(pid())).toBe(true);
  });

  test('by default the grace is KILL_GRACE_MS and the drain PIPE_DRAIN_MS', async () => {
    const controller = new AbortController();
    const {logger, pid} = treeLogger(() => controller.abort());
    const timers = new HeldTimers([KILL_GRACE_MS, PIPE_DRAIN_MS]);
    const {run, settled} = tracked(
      new NodeExec({logger, timers}).run('sh', [TREE, 'hang'], {signal: controller.signal})
    );
    await timers.scheduled(KILL_GRACE_MS);
    expect(settled()).toBe(false);
    timers.fire(KILL_GRACE_MS);
    // SIGKILLed: the group's pipes close at once, or the drain (PIPE_DRAIN_MS) ends the wait.
    void timers.scheduled(PIPE_DRAIN_MS).then(() => timers.fire(PIPE_DRAIN_MS));
    expect((await run).killed).toBe('aborted');
    expect(await goneWithin(pid())).toBe(true);
  });

  test('a command that exits while a grandchild holds the pipes resolves when the pipe drain ends', async () => {
    const {logger, pid} = treeLogger();
    const timers = new HeldTimers([DRAIN_MS]);
    try {
      const {run, settled} = tracked(new NodeExec({logger, timers, pipeDrainMs: DRAIN_MS}).run('sh', [TREE, 'exit']));
      // The command has exited; its grandchild holds the pipes, so only the drain's end settles the run.
      await timers.scheduled(DRAIN_MS);
      await turn();
      expect(settled()).toBe(false);
      timers.fire(DRAIN_MS);
      expect(await run).toEqual({exitCode: 0, stdout: `grandchild ${pid()}\n`, stderr: ''});
      // Resolved while the grandchild (60 s of sleep) still runs: nothing waited for its pipes to close.
      expect(gone(pid())).toBe(false);
    } finally {
      if (pid() > 0 && !gone(pid())) process.kill(pid(), 'SIGKILL');
    }
    expect(await goneWithin(pid())).toBe(true);
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
      expect(await goneWithin(pid)).toBe(true);
    } finally {
      if (!gone(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  test('output written just before the command exits is all read', async () => {
    const res = await new NodeExec().run(
      node,
      js('process.stdout.write("x".repeat(1 << 20)); process.stderr.write("end"); process.exitCode = 3;')
    );
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
