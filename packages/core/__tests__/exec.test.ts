import {describe, expect, test} from '@jest/globals';
import {realpathSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {lastLine, NodeExec} from '../src/exec.js';
import {RecordingLogger} from './fakes/recording-logger.js';

const node = process.execPath;
const js = (code: string): string[] => ['-e', code];

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

  test('escalates to SIGKILL 2 s after SIGTERM when the command ignores SIGTERM', async () => {
    // Abort only once the child says its SIGTERM handler is installed.
    const controller = new AbortController();
    let armedAt = 0;
    const logger = new RecordingLogger();
    logger.info = (message: string) => {
      if (message === 'armed') {
        armedAt = Date.now();
        controller.abort();
      }
    };
    const res = await new NodeExec({logger}).run(
      node,
      js('process.on("SIGTERM", () => {}); console.log("armed"); setInterval(() => {}, 1000);'),
      {
        signal: controller.signal
      }
    );
    expect(res).toEqual({exitCode: 137, stdout: 'armed\n', stderr: '', killed: 'aborted'});
    const elapsed = Date.now() - armedAt;
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(5000);
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
      stderr: 'rb-no-such-command-xyz: spawn rb-no-such-command-xyz ENOENT'
    });
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

  test('silent: nothing is echoed', async () => {
    const logger = new RecordingLogger();
    const res = await new NodeExec({logger}).run(node, js('console.log("quiet"); console.error("hush")'), {
      silent: true
    });
    expect(res.stdout).toBe('quiet\n');
    expect(logger.messages('info')).toEqual([]);
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
