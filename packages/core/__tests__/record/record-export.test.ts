import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {ExecResult} from '../../src/exec.js';
import {GrpcStatusError} from '../../src/net/grpc-call.js';
import type {RecordNode} from '../../src/record/buildkit-history.js';
import {NoRecordError, type DirectRecordExport} from '../../src/record/grpc-record-export.js';
import {MANIFEST_MEDIA_TYPE} from '../../src/record/record-bundle.js';
import {
  DIRECT_EXPORT_BOUND_MS,
  exportRecord,
  RECORD_EXPORT_BOUND_MS,
  type RecordExportOpts
} from '../../src/record/record-export.js';
import {exportPlan} from '../../src/record/record-plan.js';
import type {RecordRef} from '../../src/record/record-refs.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeExec, type ExecCall} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-export-'));
});
afterEach(async () => {
  await rm(dir, {recursive: true, force: true});
});

const REF_A: RecordRef = {builder: 'rb', node: 'rb0', ref: 'aaaaaaaaaaaa'};
const REF_B: RecordRef = {builder: 'rb', node: 'rb0', ref: 'bbbbbbbbbbbb'};

/** `buildx history export` as a BuildKit with these records answers it: writes --output. */
function historyExec(
  opts: {export?: (c: ExecCall) => Partial<ExecResult> | Promise<Partial<ExecResult>>} = {}
): FakeExec {
  return new FakeExec(async c => {
    const [, , sub] = c.args;
    if (sub === 'export') {
      if (opts.export) return opts.export(c);
      await writeFile(c.args[c.args.indexOf('--output') + 1] as string, 'gzip');
      return {};
    }
    return {exitCode: 1, stderr: 'unexpected'};
  });
}

function run(exec: FakeExec, clock: FakeClock, logger: RecordingLogger, over: Partial<RecordExportOpts> = {}) {
  return exportRecord({
    buildx: (args, o) => exec.run('docker', args, o),
    logger,
    clock,
    builder: 'rb',
    refs: [REF_A, REF_B],
    plan: exportPlan('0.29.1'),
    dir,
    repository: 'octo/app',
    endedAt: clock.now(),
    ...over
  });
}

const exports = (exec: FakeExec) => exec.argvs.filter(a => a[2] === 'export');

describe('exportRecord', () => {
  test('buildx >= 0.24: one export of every ref with --finalize, no wait, and no other buildx call', async () => {
    const clock = new FakeClock(1000);
    const exec = historyExec();
    const r = await run(exec, clock, new RecordingLogger());
    expect(exports(exec)).toEqual([
      [
        'buildx',
        'history',
        'export',
        '--builder',
        'rb',
        '--output',
        join(dir, 'octo~app~AAAAAA+1.dockerbuild'),
        '--finalize',
        'aaaaaaaaaaaa',
        'bbbbbbbbbbbb'
      ]
    ]);
    expect(clock.sleeps).toEqual([]);
    expect(r).toMatchObject({fileName: 'octo~app~AAAAAA+1.dockerbuild', sizeBytes: 4, warnings: []});
    expect(exec.argvs).toEqual(exports(exec));
    // The facts are read from the file after the teardown (record-facts.ts): here only refs and nodes.
    expect(r.entries).toEqual([
      {ref: 'aaaaaaaaaaaa', node: 'rb0'},
      {ref: 'bbbbbbbbbbbb', node: 'rb0'}
    ]);
  });

  test('buildx 0.23: no --finalize; waits what is left of 3 s after the build ended', async () => {
    const clock = new FakeClock(5000);
    const exec = historyExec();
    const r = await run(exec, clock, new RecordingLogger(), {plan: exportPlan('0.23.0'), endedAt: 4000});
    expect(clock.sleeps).toEqual([2000]);
    expect(exports(exec)[0]).not.toContain('--finalize');
    expect(r.fileName).toBeDefined();
  });

  test('a ref built on two nodes: buildx < 0.33 says only one node is exported; >= 0.33 exports both', async () => {
    const refs = [REF_A, {...REF_A, node: 'rb1'}];
    const clock = new FakeClock();
    const old = await run(historyExec(), clock, new RecordingLogger(), {refs, plan: exportPlan('0.29.1')});
    expect(old.warnings).toEqual([
      expect.stringMatching(/^build AAAAAA ran on nodes rb0, rb1: buildx < 0\.33 exports one node's record/)
    ]);
    expect(old.entries).toEqual([expect.objectContaining({ref: 'aaaaaaaaaaaa', node: 'rb0,rb1'})]);
    const now = await run(historyExec(), clock, new RecordingLogger(), {refs, plan: exportPlan('0.33.0')});
    expect(now.warnings).toEqual([]);
  });

  test('no ref (docker: "requires a build reference"): nothing runs', async () => {
    const clock = new FakeClock();
    const exec = historyExec();
    const r = await run(exec, clock, new RecordingLogger(), {refs: []});
    expect(r).toMatchObject({skipped: 'Build summary requires a build reference', entries: []});
    expect(exec.calls).toEqual([]);
  });

  test('history turned off on the builder: no record of any ref; one info line, no warning', async () => {
    const clock = new FakeClock();
    const exec = new FakeExec(c => ({
      exitCode: 1,
      stderr: `ERROR: no record found for ref "${c.args[c.args.length - 1]}"\n`
    }));
    const logger = new RecordingLogger();
    const r = await run(exec, clock, logger);
    expect(r.skipped).toMatch(/^No build record on builder "rb": its BuildKit keeps no history/);
    expect(r.filePath).toBeUndefined();
    expect(logger.messages('warning')).toEqual([]);
  });

  test('the export fails: one warning line, buildx output as untrusted text, no file', async () => {
    const clock = new FakeClock();
    const exec = historyExec({
      export: () => ({exitCode: 1, stderr: 'ERROR: failed to export: connection reset\n'})
    });
    const logger = new RecordingLogger();
    const r = await run(exec, clock, logger);
    expect(logger.messages('warning')).toEqual([
      'Build record not exported: buildx history export failed: ERROR: failed to export: connection reset; the builder is torn down as usual'
    ]);
    expect(r).toMatchObject({
      skipped: expect.stringContaining('connection reset'),
      warnings: [expect.stringContaining('connection reset')]
    });
    expect(r.filePath).toBeUndefined();
    expect(r.entries).toHaveLength(2);
    expect(logger.messages('untrusted')).toEqual(['ERROR: failed to export: connection reset']);
  });

  test('an export that hangs is stopped at the bound: one warning line, the caller goes on', async () => {
    const clock = new FakeClock();
    const exec = historyExec({
      export: c =>
        new Promise(resolve => {
          c.opts.signal?.addEventListener('abort', () => resolve({exitCode: -1, killed: 'aborted'}));
          clock.advance(5000);
        })
    });
    const logger = new RecordingLogger();
    const r = await run(exec, clock, logger, {boundMs: 5000});
    expect(logger.messages('warning')).toEqual([
      'Build record not exported: it did not finish within 5 s; the builder is torn down as usual'
    ]);
    expect(r.skipped).toContain('did not finish within 5 s');
    expect(exports(exec)[0]?.length).toBeGreaterThan(0);
  });

  describe('our builders: the records read from their BuildKit directly first', () => {
    const NODES: RecordNode[] = [
      {name: 'rb0', hostname: '127.0.0.1', port: 1, platforms: ['linux/amd64'], pems: {ca: '', cert: '', key: ''}}
    ];
    /** A direct export that found every ref asked on node rb0 (one record, an empty bundle body). */
    const found: DirectRecordExport = async o => ({
      bundle: {
        blobs: new Map(),
        records: [{mediaType: MANIFEST_MEDIA_TYPE, digest: `sha256:${'1'.repeat(64)}`, size: 2}]
      },
      records: o.refs.map(ref => ({ref, node: 'rb0'})),
      missing: []
    });

    test('it succeeds: the file is written, no buildx runs, every node counts', async () => {
      const exec = historyExec();
      const asked: string[][] = [];
      const r = await run(exec, new FakeClock(), new RecordingLogger(), {
        nodes: NODES,
        configDir: '/cfg',
        direct: async o => (asked.push(o.refs), found(o))
      });
      expect(asked).toEqual([['aaaaaaaaaaaa', 'bbbbbbbbbbbb']]);
      expect(exec.calls).toEqual([]);
      expect(r).toMatchObject({
        fileName: 'octo~app~AAAAAA+1.dockerbuild',
        refs: ['aaaaaaaaaaaa', 'bbbbbbbbbbbb'],
        warnings: []
      });
      expect(r.sizeBytes).toBeGreaterThan(0);
      expect(r.entries).toEqual([
        {ref: 'aaaaaaaaaaaa', node: 'rb0'},
        {ref: 'bbbbbbbbbbbb', node: 'rb0'}
      ]);
    });

    test('it fails (a BuildKit without the history API): one untrusted line, then buildx exports', async () => {
      const exec = historyExec();
      const logger = new RecordingLogger();
      const r = await run(exec, new FakeClock(), logger, {
        nodes: NODES,
        direct: async () => {
          throw new GrpcStatusError('/moby.buildkit.v1.Control/ListenBuildHistory', 12, 'unknown method');
        }
      });
      expect(logger.messages('untrusted')).toEqual([
        'The record could not be read from BuildKit directly (/moby.buildkit.v1.Control/ListenBuildHistory answered gRPC status 12 (unknown method)): buildx exports it'
      ]);
      expect(exports(exec)).toHaveLength(1);
      expect(r.fileName).toBe('octo~app~AAAAAA+1.dockerbuild');
    });

    test('every node answered and none has a record: no build record, and buildx is not asked', async () => {
      const exec = historyExec();
      const r = await run(exec, new FakeClock(), new RecordingLogger(), {
        nodes: NODES,
        direct: async () => {
          throw new NoRecordError('no record found');
        }
      });
      expect(r.skipped).toMatch(/^No build record on builder "rb": its BuildKit keeps no history/);
      expect(exec.calls).toEqual([]);
    });

    test('it hangs: abandoned after DIRECT_EXPORT_BOUND_MS, and buildx has the rest of the bound', async () => {
      const clock = new FakeClock();
      const exec = historyExec();
      const timeouts: (number | undefined)[] = [];
      exec.handler = async c => {
        timeouts.push(c.opts.timeoutMs);
        await writeFile(c.args[c.args.indexOf('--output') + 1] as string, 'gzip');
        return {};
      };
      const r = await run(exec, clock, new RecordingLogger(), {
        nodes: NODES,
        direct: o =>
          new Promise((_, reject) => {
            o.signal.addEventListener('abort', () => reject(new Error('aborted')));
            clock.advance(DIRECT_EXPORT_BOUND_MS);
          })
      });
      expect(timeouts).toEqual([RECORD_EXPORT_BOUND_MS - DIRECT_EXPORT_BOUND_MS]);
      expect(r.fileName).toBe('octo~app~AAAAAA+1.dockerbuild');
    });
  });
});
