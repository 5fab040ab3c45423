import {describe, expect, test} from '@jest/globals';
import type {ActionRunResult} from '../../src/harness/action-runner.js';
import {formatRunReport} from '../../src/harness/run-report.js';

function result(overrides: Partial<ActionRunResult>): ActionRunResult {
  return {
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 120,
    stdout: '',
    stderr: '',
    outputs: {},
    state: {},
    exportedEnv: {},
    path: [],
    summary: '',
    annotations: [],
    masks: [],
    fileCommandErrors: [],
    failed: false,
    signalsSent: [],
    rawFiles: {output: '', state: '', env: '', path: '', summary: ''},
    ...overrides
  };
}

describe('formatRunReport', () => {
  test('a quiet success is one line', () => {
    expect(formatRunReport(result({}), {title: 'main'})).toBe('main: succeeded (exit 0) in 120 ms');
  });

  test('prints every channel, masking registered values', () => {
    const text = formatRunReport(
      result({
        exitCode: null,
        signal: 'SIGKILL',
        failed: true,
        signalsSent: [
          {signal: 'SIGINT', atMs: 10, reason: 'cancel'},
          {signal: 'SIGKILL', atMs: 30, reason: 'escalation'}
        ],
        outputs: {id: 'tok-123', multi: 'a\nb'},
        state: {builder: '{"id":"b-1"}'},
        exportedEnv: {X: '1'},
        path: ['/opt/bin'],
        annotations: [{level: 'warning', message: 'leaked tok-123', properties: {file: 'a.ts', title: 'tok-123'}}],
        masks: ['tok-123', 'tok'],
        fileCommandErrors: ["GITHUB_ENV: Invalid format 'x'"],
        summary: '## Build\nok\n',
        stdout: '::add-mask::late%0Asecond-line\nusing tok-123\nand dG9rLTEyMw== and second-line\n'
      }),
      {title: 'post', logs: true}
    );
    expect(text).toBe(
      [
        'post: failed (killed by SIGKILL) in 120 ms',
        '  signals: SIGINT at 10 ms (cancel), SIGKILL at 30 ms (escalation)',
        '  outputs:',
        '    id=***',
        '    multi=a',
        '      b',
        '  state:',
        '    builder={"id":"b-1"}',
        '  exported env:',
        '    X=1',
        '  path:',
        '    /opt/bin',
        '  annotations:',
        '    warning: leaked *** (file=a.ts, title=***)',
        '  masks: 2 value(s) registered',
        '  file command errors:',
        "    GITHUB_ENV: Invalid format 'x'",
        '  summary:',
        '    ## Build',
        '    ok',
        '  stdout:',
        '    using ***',
        '    and *** and ***'
      ].join('\n')
    );
  });

  test.each([
    [
      1,
      {timedOut: true, signal: 'SIGKILL', exitCode: null, failed: true},
      'step: failed (timed out, killed by SIGKILL)'
    ],
    [2, {exitCode: 1, failed: true}, 'step: failed (exit 1)']
  ] as const)('%i: status %j', (_n, overrides, start) => {
    expect(formatRunReport(result(overrides))).toMatch(new RegExp(`^${start.replace(/[()]/g, '\\$&')} in 120 ms`));
  });
});
