import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {BuildRecordReport} from '../../src/report/run-record.js';
import {StepBuildRecord, type StepBuildRecordOpts} from '../../src/record/step-build-record.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';
import {readDockerbuild} from '../../../emulator/src/testing/dockerbuild-file.js';
import {writeFixture} from './dockerbuild-fixture.js';

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
      return {};
    });
    const s = record({
      buildx: (args, o) => exec.run('docker', args, o),
      upload: async () => Promise.reject(new Error('socket hang up'))
    });
    await s.r.exportFrom('rb');
    await s.publish();
    expect(s.reports[0]).toMatchObject({fileName: 'ABCDEF.dockerbuild', upload: {error: 'socket hang up'}});
    // A file buildx wrote that we cannot read is still uploaded: only its facts are missing, with a line.
    expect(s.reports[0]?.warnings).toEqual([
      expect.stringMatching(/^the builds' facts could not be read from ABCDEF\.dockerbuild: not gzip-compressed/)
    ]);
  });

  test("history's own errors are printed as untrusted text: the build may have put commands in them", async () => {
    const exec = new FakeExec(() => ({exitCode: 1, stderr: 'ERROR: ##[save-state name=builder;]x\n'}));
    const s = record({buildx: (args, o) => exec.run('docker', args, o)});
    await s.r.exportFrom('rb');
    await s.publish();
    const lines = s.logger.lines.filter(l => l.message.includes('##[save-state'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter(l => l.level !== 'untrusted' && l.level !== 'warning' && l.level !== 'debug')).toEqual([]);
  });

  describe('builds on several builder sets (a retry on new builders): one file of every record', () => {
    /** A step whose `history export` writes a real record file of the refs asked, except for `corrupt` builders. */
    function step(corrupt: string[] = [], failing: string[] = []) {
      let current = '';
      const uploads: {name: string; refs: unknown[]}[] = [];
      const exec = new FakeExec(async c => {
        if (c.args[2] !== 'export') return {exitCode: 1, stderr: 'unexpected'};
        const builder = c.args[c.args.indexOf('--builder') + 1] as string;
        if (failing.includes(builder)) return {exitCode: 1, stderr: 'ERROR: connection refused\n'};
        const output = c.args[c.args.indexOf('--output') + 1] as string;
        if (corrupt.includes(builder)) await writeFile(output, 'cut short');
        else writeFixture(output, [{ref: `${builder}ref0123456789`}]);
        return {};
      });
      const s = record({
        buildx: (args, o) => exec.run('docker', args, o),
        repository: 'octo/app',
        readMetadata: () => ({'buildx.build.ref': `${current}/${current}0/${current}ref0123456789`}),
        upload: async u => {
          uploads.push({name: u.name, refs: readDockerbuild(u.filePath).records.map(r => r['Ref'])});
          return {artifactId: 1};
        }
      });
      const exportFrom = async (builder: string) => {
        current = builder;
        await s.r.exportFrom(builder);
      };
      return {...s, exportFrom, uploads};
    }

    const cases: {
      name: string;
      builders: string[];
      corrupt?: string[];
      failing?: string[];
      upload: {name: string; refs: string[]}[];
      warnings: RegExp[];
    }[] = [
      {
        name: 'two builder sets: both records, named after both refs',
        builders: ['bx', 'by'],
        upload: [{name: 'octo~app~BXREF0+1.dockerbuild', refs: ['bxref0123456789', 'byref0123456789']}],
        warnings: []
      },
      {
        name: 'three builder sets, in the order they built',
        builders: ['bz', 'bx', 'by'],
        upload: [
          {name: 'octo~app~BZREF0+2.dockerbuild', refs: ['bzref0123456789', 'bxref0123456789', 'byref0123456789']}
        ],
        warnings: []
      },
      {
        name: "a corrupt file: a warning, and the others' records uploaded, named after theirs",
        builders: ['bx', 'by', 'bz'],
        corrupt: ['bx'],
        upload: [{name: 'octo~app~BYREF0+1.dockerbuild', refs: ['byref0123456789', 'bzref0123456789']}],
        warnings: [
          /^the record of builder "bx" \(octo~app~BXREF0\.dockerbuild\) is left out of the record file: not gzip-compressed/
        ]
      },
      {
        name: "the first export failed: the second one's file alone, under its docker name",
        builders: ['bx', 'by'],
        failing: ['bx'],
        upload: [{name: 'octo~app~BYREF0.dockerbuild', refs: ['byref0123456789']}],
        warnings: [/^buildx history export failed: ERROR: connection refused$/]
      }
    ];

    test.each(cases)('$name', async c => {
      const s = step(c.corrupt, c.failing);
      for (const b of c.builders) await s.exportFrom(b);
      await s.publish();
      expect(s.uploads).toEqual(c.upload);
      expect(s.reports[0]?.warnings).toEqual(c.warnings.map(w => expect.stringMatching(w)));
      expect(s.reports[0]?.fileName).toBe(c.upload[0]?.name);
      // Every file the exports and the merge wrote is gone after the upload.
      expect((await readdir(dir)).filter(f => f.endsWith('.dockerbuild'))).toEqual([]);
    });

    test('every file corrupt: nothing uploaded, the record says why', async () => {
      const s = step(['bx', 'by']);
      await s.exportFrom('bx');
      await s.exportFrom('by');
      await s.publish();
      expect(s.uploads).toEqual([]);
      expect(s.reports[0]?.skipped).toBe('The build record could not be exported: no exported file could be read');
      expect(s.reports[0]?.warnings).toHaveLength(2);
      expect(s.logger.messages('warning')).toHaveLength(2);
    });
  });
});
