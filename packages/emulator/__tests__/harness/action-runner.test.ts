import {existsSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {runAction} from '../../src/harness/action-runner.js';
import {fixture, isRunning} from './fixture.js';

const fast = {termAfterMs: 200, killAfterMs: 200};

describe('runAction', () => {
  let workDir: string;
  beforeAll(async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), 'harness-test-'));
  });
  afterAll(async () => {
    await rm(workDir, {recursive: true, force: true});
  });

  test('names inputs like the runner and starts from a clean env', async () => {
    process.env.HARNESS_LEAK_CHECK = 'leaked';
    try {
      const result = await runAction({
        script: fixture('report-env.mjs'),
        inputs: {'profile-name': 'p1', 'my input': 'v', timeout: '1000'},
        env: {EXTRA: '1', GITHUB_REPOSITORY: 'me/repo'},
        workDir
      });
      expect(result).toMatchObject({exitCode: 0, failed: false, timedOut: false});
      const env = JSON.parse(result.outputs.env) as Record<string, string>;
      expect(env).toMatchObject({
        'INPUT_PROFILE-NAME': 'p1',
        INPUT_MY_INPUT: 'v',
        INPUT_TIMEOUT: '1000',
        EXTRA: '1',
        GITHUB_REPOSITORY: 'me/repo',
        GITHUB_ACTIONS: 'true',
        CI: 'true',
        RUNNER_OS: 'Linux',
        RUNNER_ARCH: 'X64',
        RUNNER_TEMP: path.join(workDir, 'runner-temp'),
        GITHUB_WORKSPACE: path.join(workDir, 'workspace'),
        GITHUB_SERVER_URL: 'https://github.com'
      });
      expect(result.outputs['profile-name']).toBe('p1');
      expect(result.outputs.cwd).toBe(path.join(workDir, 'workspace'));
      for (const file of ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY']) {
        expect(env[file]).toContain(path.join(workDir, 'runner-temp', '_runner_file_commands'));
      }
      expect(env).not.toHaveProperty('HARNESS_LEAK_CHECK');
      expect(env).not.toHaveProperty('NODE_OPTIONS');

      const inherited = await runAction({script: fixture('report-env.mjs'), inheritEnv: true, workDir});
      expect(JSON.parse(inherited.outputs.env)).toHaveProperty('HARNESS_LEAK_CHECK', 'leaked');
    } finally {
      delete process.env.HARNESS_LEAK_CHECK;
    }
  });

  test('parses outputs, state, env, path, summary, annotations and masks', async () => {
    const result = await runAction({script: fixture('commands.mjs'), workDir});
    expect(result).toMatchObject({exitCode: 0, failed: false, fileCommandErrors: []});
    expect(result.outputs).toEqual({multi: 'line1\nline2', plain: 'a=b', empty: '', logged: 'from the log'});
    expect(result.state).toEqual({builder: '{"builderId":"b-1"}', fromLog: 'planted'});
    expect(result.exportedEnv).toEqual({EXPORTED_FROM_MAIN: 'yes'});
    expect(result.path).toEqual(['/opt/fake/bin']);
    expect(result.summary).toContain('<h1>Build</h1>');
    expect(result.masks).toEqual(['s3cr3t-value']);
    expect(result.annotations).toEqual([
      {level: 'error', message: 'bad thing', properties: {file: 'src/a.ts', line: '3', title: 'Build, failed: twice'}},
      {level: 'warning', message: 'careful: 50%\nsecond line', properties: {}},
      {level: 'notice', message: 'fyi', properties: {}},
      {level: 'debug', message: 'internals', properties: {}},
      {level: 'warning', message: 'from stderr', properties: {}}
    ]);
    expect(result.rawFiles.output).toMatch(/^multi<<ghadelimiter_[0-9a-f-]+\nline1\nline2\nghadelimiter_/);
    expect(result.stdout).toContain('the token is s3cr3t-value');
  });

  test('a failed step exits 1 and keeps what it saved', async () => {
    const result = await runAction({script: fixture('fail.mjs'), workDir});
    expect(result).toMatchObject({exitCode: 1, signal: null, failed: true, state: {builder: 'b-failed'}});
    expect(result.annotations).toEqual([
      {level: 'error', message: 'Failed to assign builder: HTTP 503: unavailable', properties: {}}
    ]);
  });

  test('kills the process tree after timeoutMs', async () => {
    const result = await runAction({script: fixture('wait.mjs'), inputs: {mode: 'ignore'}, timeoutMs: 400, workDir});
    expect(result).toMatchObject({exitCode: null, signal: 'SIGKILL', timedOut: true, failed: true});
    expect(result.signalsSent).toEqual([expect.objectContaining({signal: 'SIGKILL', reason: 'timeout'})]);
    // (What a killed step saved is kept: shown by the cancel test below, which signals only once it says
    // `ready`; here a loaded machine may not even have started the script within the 400 ms.)
  });

  test('sends a signal at a time', async () => {
    const result = await runAction({
      script: fixture('wait.mjs'),
      signals: [{signal: 'SIGTERM', afterMs: 300}],
      workDir
    });
    expect(result).toMatchObject({exitCode: null, signal: 'SIGTERM', timedOut: false, failed: true});
    expect(result.durationMs).toBeGreaterThanOrEqual(300);
  });

  test('sends a signal when an output line matches', async () => {
    const result = await runAction({
      script: fixture('wait.mjs'),
      inputs: {mode: 'exit'},
      signals: [{signal: 'SIGINT', whenOutputMatches: /^ready$/g}],
      workDir
    });
    expect(result).toMatchObject({exitCode: 7, signal: null, failed: true});
    expect(result.stdout).toContain('got SIGINT');
    expect(result.signalsSent).toEqual([expect.objectContaining({signal: 'SIGINT', reason: 'planned'})]);
  });

  test('cancelLikeRunner escalates to SIGTERM, then SIGKILLs the tree', async () => {
    const result = await runAction({
      script: fixture('wait.mjs'),
      inputs: {mode: 'ignore', grandchild: 'true'},
      signals: [{signal: 'SIGINT', whenOutputMatches: /ready/}],
      cancelLikeRunner: true,
      cancelTimings: fast,
      workDir
    });
    expect(result).toMatchObject({exitCode: null, signal: 'SIGKILL', timedOut: false, failed: true});
    expect(result.state).toEqual({builder: 'b-waiting'});
    expect(result.stdout).toContain('got SIGINT\ngot SIGTERM\n');
    const [int, term, kill] = result.signalsSent;
    expect(result.signalsSent.map(s => [s.signal, s.reason])).toEqual([
      ['SIGINT', 'planned'],
      ['SIGTERM', 'escalation'],
      ['SIGKILL', 'escalation']
    ]);
    expect(term.atMs - int.atMs).toBeGreaterThanOrEqual(190);
    expect(kill.atMs - term.atMs).toBeGreaterThanOrEqual(190);
    const grandchild = Number(/grandchild (\d+)/.exec(result.stdout)?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    expect(isRunning(grandchild)).toBe(false);
  });

  test('cancelLikeRunner stops escalating once the process exits', async () => {
    const cancel = new AbortController();
    const result = await runAction({
      script: fixture('wait.mjs'),
      inputs: {mode: 'exit'},
      cancelLikeRunner: true,
      cancelTimings: fast,
      cancel: cancel.signal,
      onLine: line => line === 'ready' && cancel.abort(),
      workDir
    });
    expect(result).toMatchObject({exitCode: 7, signal: null});
    expect(result.signalsSent).toEqual([expect.objectContaining({signal: 'SIGINT', reason: 'cancel'})]);
  });

  test('kill SIGKILLs the tree at once', async () => {
    const kill = new AbortController();
    const result = await runAction({
      script: fixture('wait.mjs'),
      inputs: {mode: 'ignore'},
      kill: kill.signal,
      onLine: line => line === 'ready' && kill.abort(),
      workDir
    });
    expect(result).toMatchObject({signal: 'SIGKILL', timedOut: false});
    expect(result.signalsSent).toEqual([expect.objectContaining({signal: 'SIGKILL', reason: 'forced'})]);
  });

  test('removes a work dir it created, and reports a node that does not start', async () => {
    const result = await runAction({script: fixture('report-env.mjs')});
    const runnerTemp = (JSON.parse(result.outputs.env) as Record<string, string>).RUNNER_TEMP;
    expect(existsSync(path.dirname(runnerTemp))).toBe(false);
    await expect(runAction({script: fixture('report-env.mjs'), node: '/nonexistent/node', workDir})).rejects.toThrow(
      'Failed to start /nonexistent/node'
    );
  });
});
