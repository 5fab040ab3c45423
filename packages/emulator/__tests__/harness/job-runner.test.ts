import {mkdtemp, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {runMainAndPost} from '../../src/harness/job-runner.js';
import {fixture} from './fixture.js';

describe('runMainAndPost', () => {
  let workDir: string;
  beforeEach(async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), 'harness-job-'));
  });
  afterEach(async () => {
    await rm(workDir, {recursive: true, force: true});
  });

  test('post gets the inputs, main state as STATE_*, GITHUB_ENV exports and GITHUB_PATH', async () => {
    const lines: string[] = [];
    const job = await runMainAndPost({
      main: fixture('commands.mjs'),
      post: fixture('report-env.mjs'),
      inputs: {'profile-name': 'p1'},
      env: {JOB_LEVEL: 'j'},
      workDir,
      onLine: (line, _stream, step) => lines.push(`${step}: ${line}`)
    });
    expect(job.workDir).toBe(workDir);
    expect(job.main.failed).toBe(false);
    expect(job.post).toMatchObject({failed: false, outputs: {'profile-name': 'p1', builder: '{"builderId":"b-1"}'}});
    const env = JSON.parse(job.post.outputs.env) as Record<string, string>;
    expect(env).toMatchObject({
      STATE_builder: '{"builderId":"b-1"}',
      EXPORTED_FROM_MAIN: 'yes',
      JOB_LEVEL: 'j',
      'INPUT_PROFILE-NAME': 'p1'
    });
    expect(env.PATH.split(path.delimiter)[0]).toBe('/opt/fake/bin');
    // Fresh command files per step: nothing of main's leaks into post's.
    expect(job.post.outputs).not.toHaveProperty('multi');
    expect(job.post.rawFiles.state).toBe('');
    expect(lines).toContain('main: the token is s3cr3t-value');
  });

  test('post runs after main failed', async () => {
    const job = await runMainAndPost({main: fixture('fail.mjs'), post: fixture('report-env.mjs'), workDir});
    expect(job.main).toMatchObject({exitCode: 1, failed: true});
    expect(job.post).toMatchObject({exitCode: 0, failed: false, outputs: {builder: 'b-failed'}});
  });

  test('post runs, unsignalled, after a cancelled main was killed', async () => {
    const job = await runMainAndPost({
      main: fixture('wait.mjs'),
      post: fixture('report-env.mjs'),
      inputs: {mode: 'ignore'},
      signals: [{signal: 'SIGINT', whenOutputMatches: /ready/}],
      cancelLikeRunner: true,
      cancelTimings: {termAfterMs: 100, killAfterMs: 100},
      workDir
    });
    expect(job.main).toMatchObject({signal: 'SIGKILL', failed: true});
    expect(job.post).toMatchObject({exitCode: 0, signalsSent: [], outputs: {builder: 'b-waiting'}});
  });
});
