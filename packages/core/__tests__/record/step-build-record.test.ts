import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {BuildRecordReport} from '../../src/report/run-record.js';
import {StepBuildRecord, type StepBuildRecordOpts} from '../../src/record/step-build-record.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'step-build-record-'));
});
afterEach(async () => {
  await rm(dir, {recursive: true, force: true});
});

function record(over: Partial<StepBuildRecordOpts> = {}) {
  const exec = new FakeExec();
  const logger = new RecordingLogger();
  const reports: BuildRecordReport[] = [];
  const r = new StepBuildRecord({
    buildx: (args, o) => exec.run('docker', args, o),
    logger,
    clock: new FakeClock(),
    env: {},
    dir,
    configDir: () => join(dir, 'buildx'),
    buildxVersion: '0.29.1',
    summary: true,
    readMetadata: () => ({'buildx.build.ref': 'rb/rb0/abcdefghijkl'}),
    upload: async () => ({artifactId: 1}),
    ...over
  });
  return {r, exec, logger, publish: () => r.publish({buildRecord: rep => void reports.push(rep)}), reports};
}

describe('StepBuildRecord', () => {
  test('a cancelled step exports nothing and says so in the record', async () => {
    const cancelled = new AbortController();
    cancelled.abort(new Error('SIGTERM'));
    const s = record({signal: cancelled.signal});
    await s.r.exportFrom('rb');
    await s.publish();
    expect(s.exec.calls).toEqual([]);
    expect(s.reports).toEqual([{skipped: 'the step was cancelled', entries: [], warnings: [], exportMs: 0}]);
  });

  test('DOCKER_BUILD_SUMMARY=false: no history call, no upload, "Build summary disabled"', async () => {
    const s = record({summary: false});
    await s.r.exportFrom('rb');
    await s.publish();
    expect(s.exec.calls).toEqual([]);
    expect(s.reports).toEqual([{skipped: 'Build summary disabled', entries: [], warnings: []}]);
    expect(s.logger.messages('info')).toEqual(['No build record: Build summary disabled']);
  });

  test('an uploader that throws after all is the upload error, not a failed step', async () => {
    const exec = new FakeExec(async c => {
      if (c.args[2] === 'export') {
        await writeFile(c.args[c.args.indexOf('--output') + 1] as string, 'x');
      }
      return c.args[2] === 'inspect' ? {stdout: '{"Status":"completed"}'} : {};
    });
    const s = record({
      buildx: (args, o) => exec.run('docker', args, o),
      upload: async () => Promise.reject(new Error('socket hang up'))
    });
    await s.r.exportFrom('rb');
    await s.publish();
    expect(s.reports[0]).toMatchObject({fileName: 'ABCDEF.dockerbuild', upload: {error: 'socket hang up'}});
  });

  test("history's own errors are printed as untrusted text: the build may have put commands in them", async () => {
    const exec = new FakeExec(async c => {
      if (c.args[2] === 'export') {
        await writeFile(c.args[c.args.indexOf('--output') + 1] as string, 'x');
      }
      return c.args[2] === 'inspect' ? {exitCode: 1, stderr: 'ERROR: ##[save-state name=builder;]x\n'} : {};
    });
    const s = record({buildx: (args, o) => exec.run('docker', args, o)});
    await s.r.exportFrom('rb');
    await s.publish();
    const lines = s.logger.lines.filter(l => l.message.includes('##[save-state'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter(l => l.level !== 'untrusted' && l.level !== 'warning' && l.level !== 'debug')).toEqual([]);
  });
});
