// The build record in a build step (assigned-builder.ts, shared-builder.ts, build-step.ts): exported from the
// builders before their teardown, uploaded after it, recorded for the job summary; never failing the step.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, readdirSync} from 'node:fs';
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {DirectRecordExport} from '../../src/record/grpc-record-export.js';
import {MANIFEST_MEDIA_TYPE} from '../../src/record/record-bundle.js';
import {TEST_PEMS} from '../fakes/pems.js';
import {Buildx} from '../../src/buildx/buildx.js';
import {ApiError} from '../../src/errors.js';
import {BuildCommandError} from '../../src/provisioning/build-attempts.js';
import type {UploadRecord} from '../../src/record/step-build-record.js';
import {loadRun} from '../../src/report/run-recorder.js';
import {assigned, httpError, readyDetails} from '../fakes/fake-builder-api.js';
import {subcommand, type ExecCall} from '../fakes/fake-exec.js';
import {readDockerbuild} from '../../../emulator/src/testing/dockerbuild-file.js';
import {writeFixture} from '../record/dockerbuild-fixture.js';
import {buildStepHarness, INSPECT, REMOTE} from './build-step-harness.js';

/** The refs of a `buildx history export` argv: the positional arguments after `export`. */
function historyExportRefs(args: string[]): string[] {
  const rest = args.slice(args.indexOf('export') + 1);
  return rest.filter((a, i) => !a.startsWith('-') && !['--builder', '--output'].includes(rest[i - 1] ?? ''));
}

let root: string;
let config: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'build-step-record-'));
  config = join(root, 'buildx-config');
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

/** What buildx leaves for a build: its ref in the refs folder, before the build runs. */
async function leaveRef(node: string, ref: string, builder = 'rb'): Promise<void> {
  await mkdir(join(config, 'refs', builder, node), {recursive: true});
  await writeFile(join(config, 'refs', builder, node, ref), '{}');
}

interface Opts {
  version?: string;
  inputs?: Record<string, string>;
  exportFails?: string;
  env?: Record<string, string>;
  /** `history export` writes a real record file of the refs asked (else a 6-byte stand-in). */
  realFiles?: boolean;
  /** How the records are read from the builders' BuildKit (default: the harness's, a BuildKit without the API). */
  direct?: DirectRecordExport;
}

/** A build step whose buildx is `version`, answering `buildx history` as a BuildKit with the refs left. */
function harness(o: Opts = {}) {
  const uploaded: {name: string; existed: boolean; retentionDays?: number}[] = [];
  /** The refs of the records in each uploaded file (realFiles only). */
  const uploadedRefs: unknown[][] = [];
  const upload: UploadRecord = async u => {
    h.events.push('upload');
    uploaded.push({name: u.name, existed: existsSync(u.filePath), retentionDays: u.retentionDays});
    if (o.realFiles) uploadedRefs.push(readDockerbuild(u.filePath).records.map(r => r['Ref']));
    return {artifactId: 7};
  };
  const h = buildStepHarness({root, inputs: o.inputs ?? REMOTE, uploadRecord: upload, exportRecordDirect: o.direct});
  Object.assign(h.io.env, {GITHUB_REPOSITORY: 'octo/app', ...o.env});
  h.exec.handler = async (c: ExecCall) => {
    const sub = subcommand(c.args) === 'history' ? `history ${c.args[2]}` : subcommand(c.args);
    h.events.push(`docker:${sub}`);
    if (sub === 'version') return {stdout: `github.com/docker/buildx v${o.version ?? '0.29.1'} abc\n`};
    if (sub === 'inspect') return {stdout: INSPECT};
    if (sub === 'history export') {
      if (o.exportFails) return {exitCode: 1, stderr: o.exportFails};
      const output = c.args[c.args.indexOf('--output') + 1] as string;
      if (!o.realFiles) await writeFile(output, 'record');
      else
        writeFixture(
          output,
          // Each a completed build of 0.5 s and 2 steps, as BuildKit records one.
          historyExportRefs(c.args).map(ref => ({
            ref,
            record: {CreatedAt: {seconds: 10}, CompletedAt: {seconds: 10, nanos: 5e8}, numTotalSteps: 2}
          }))
        );
    }
    return {};
  };
  h.deps.buildx = new Buildx({exec: h.exec, logger: h.io.logger, env: {BUILDX_CONFIG: config}});
  return {...h, uploaded, uploadedRefs};
}

const READY = readyDetails('10.0.0.1:1234', {arch: 'amd64'});

describe('the build record of a step on assigned builders', () => {
  test('exported before the teardown, uploaded after it, the file then removed; the record has it', async () => {
    const h = harness({env: {DOCKER_BUILD_RECORD_RETENTION_DAYS: '3'}, realFiles: true});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', READY);
    await h.run(async () => {
      await leaveRef('b1', 'qwertyuiopasdf');
      h.events.push('build');
      return 'built';
    });
    const after = h.events.slice(h.events.indexOf('build'));
    // The export alone holds the builder: no other buildx call before the teardown (the facts come from the file).
    expect(after.slice(1, 3)).toEqual(['docker:history export', 'teardown:b1']);
    expect(after.indexOf('upload')).toBeGreaterThan(after.indexOf('teardown:b1'));
    expect(h.uploaded).toEqual([{name: 'octo~app~QWERTY.dockerbuild', existed: true, retentionDays: 3}]);
    const record = loadRun(h.io.state)?.buildRecord;
    expect(record).toMatchObject({
      fileName: 'octo~app~QWERTY.dockerbuild',
      sizeBytes: expect.any(Number),
      entries: [{ref: 'qwertyuiopasdf', node: 'b1', status: 'completed', durationMs: 500, numTotalSteps: 2}],
      upload: {artifactId: 7}
    });
    expect(existsSync(join(root, 'octo~app~QWERTY.dockerbuild'))).toBe(false);
  });

  test("read from the builders' BuildKit directly: our nodes' endpoints and TLS material, no buildx history call", async () => {
    const asked: {nodes: unknown; refs: string[]}[] = [];
    const direct: DirectRecordExport = async o => {
      h.events.push('direct export');
      asked.push({nodes: o.nodes, refs: o.refs});
      return {
        bundle: {
          blobs: new Map(),
          records: [{mediaType: MANIFEST_MEDIA_TYPE, digest: `sha256:${'2'.repeat(64)}`, size: 2}]
        },
        records: o.refs.map(ref => ({ref, node: 'b1'})),
        missing: []
      };
    };
    const h = harness({direct});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', READY);
    await h.run(async () => {
      await leaveRef('b1', 'directref1234');
      h.events.push('build');
    });
    const after = h.events.slice(h.events.indexOf('build'));
    expect(after.slice(1, 3)).toEqual(['direct export', 'teardown:b1']);
    expect(h.events).not.toContain('docker:history export');
    expect(asked).toEqual([
      {
        refs: ['directref1234'],
        nodes: [
          {
            name: 'b1',
            hostname: '10.0.0.1',
            port: 1234,
            platforms: ['linux/amd64'],
            pems: {ca: TEST_PEMS.ca, cert: TEST_PEMS.cert, key: TEST_PEMS.key}
          }
        ]
      }
    ]);
    expect(h.uploaded).toEqual([{name: 'octo~app~DIRECT.dockerbuild', existed: true, retentionDays: undefined}]);
  });

  test("a failed build: its record is exported before the teardown too, and the build's error is the step's", async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', READY);
    const err = await h
      .run(async () => {
        await leaveRef('b1', 'failedbuildref');
        throw new BuildCommandError('buildx failed with: exit code: 1', 'ERROR: process "/bin/sh -c false"');
      })
      .catch((e: unknown) => e as Error);
    expect(err.message).toBe('buildx failed with: exit code: 1');
    const exported = h.events.indexOf('docker:history export');
    expect(exported).toBeGreaterThan(-1);
    expect(h.events.indexOf('teardown:b1')).toBeGreaterThan(exported);
    expect(h.events.indexOf('upload')).toBeGreaterThan(h.events.indexOf('teardown:b1'));
    expect(loadRun(h.io.state)?.buildRecord?.fileName).toBe('octo~app~FAILED.dockerbuild');
  });

  test('the export fails: the builder is torn down all the same, the step succeeds, one warning line', async () => {
    const h = harness({exportFails: 'ERROR: no such builder\n'});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', READY);
    await expect(h.run(async () => leaveRef('b1', 'someref123456'))).resolves.toBeUndefined();
    expect(h.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
    expect(h.io.logger.messages('warning')).toEqual([
      'Build record not exported: buildx history export failed: ERROR: no such builder; the builder is torn down as usual'
    ]);
    expect(h.io.logger.text.match(/no such builder/g)).toHaveLength(2); // the warning, and buildx's own line
    expect(h.uploaded).toEqual([]);
    expect(loadRun(h.io.state)).toMatchObject({outcome: 'success', buildRecord: {skipped: expect.any(String)}});
  });

  test('a builder lost and replaced: the lost one is exported before its teardown, then the new one', async () => {
    const h = harness({inputs: {...REMOTE, retries: '1'}, realFiles: true});
    h.api.onAssign('amd', assigned('b1'), assigned('b2'));
    h.api.onDetails('b1', READY, httpError('get builder details', 404));
    h.api.onDetails('b2', readyDetails('10.0.0.2:1234', {arch: 'amd64'}));
    await h.run(async (target, ctx) => {
      await leaveRef(`b${ctx.attempt}`, `attempt${ctx.attempt}refxxxx`, target.name);
      if (ctx.attempt === 1) {
        throw new BuildCommandError(
          'buildx failed',
          'ERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF\n'
        );
      }
      return 'built';
    });
    const order = h.events.filter(e => /^(docker:history export|teardown:|upload)/.test(e));
    expect(order).toEqual(['docker:history export', 'teardown:b1', 'docker:history export', 'teardown:b2', 'upload']);
    // One file of both builder sets' records, named after both refs.
    expect(h.uploaded).toEqual([{name: 'octo~app~ATTEMP+1.dockerbuild', existed: true}]);
    expect(h.uploadedRefs).toEqual([['attempt1refxxxx', 'attempt2refxxxx']]);
    expect(loadRun(h.io.state)?.buildRecord).toMatchObject({fileName: 'octo~app~ATTEMP+1.dockerbuild', warnings: []});
    expect(readdirSync(root).filter(f => f.endsWith('.dockerbuild'))).toEqual([]);
  });

  test('DOCKER_BUILD_RECORD_UPLOAD=false: exported and summarised, nothing uploaded', async () => {
    const h = harness({env: {DOCKER_BUILD_RECORD_UPLOAD: 'false'}});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', READY);
    await h.run(async () => leaveRef('b1', 'someref123456'));
    expect(h.uploaded).toEqual([]);
    expect(loadRun(h.io.state)?.buildRecord).toMatchObject({
      fileName: 'octo~app~SOMERE.dockerbuild',
      upload: {skipped: 'DOCKER_BUILD_RECORD_UPLOAD=false'}
    });
  });

  test("buildx 0.13.1: no history call, one line in docker's words, the record says why", async () => {
    const h = harness({version: '0.13.1'});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', READY);
    await h.run(async () => leaveRef('b1', 'someref123456'));
    expect(h.events.filter(e => e.startsWith('docker:history'))).toEqual([]);
    expect(h.io.logger.messages('info').filter(m => m.startsWith('No build record'))).toEqual([
      expect.stringMatching(
        /^No build record: Build summary requires Buildx >= 0\.23\.0 \(this step runs buildx 0\.13\.1;/
      )
    ]);
    expect(loadRun(h.io.state)?.buildRecord?.skipped).toMatch(/^Build summary requires Buildx >= 0\.23\.0/);
  });
});

describe('the build record of a step on a local fallback builder', () => {
  test('exported before the local builder is removed, uploaded after', async () => {
    const h = harness({inputs: {...REMOTE, fallback: 'local'}});
    const unavailable = new ApiError({call: 'assign', status: 503});
    h.api.onAssign('amd', unavailable, unavailable, unavailable, unavailable);
    await h.run(async target => leaveRef(target.nodes[0]?.node ?? 'n0', 'fallbackref123', target.name));
    expect(h.events.filter(e => /history export|docker:rm|upload/.test(e))).toEqual([
      'docker:history export',
      'docker:rm',
      'upload'
    ]);
    expect(h.uploaded.map(u => u.name)).toEqual(['octo~app~FALLBA.dockerbuild']);
  });
});

describe('the build record of a step on a shared builder', () => {
  test('exported after the build from the builder, which stays; uploaded', async () => {
    const h = harness({inputs: {builder: 'rb'}});
    await h.run(async () => leaveRef('rb0', 'sharedref12345'));
    const events = h.events.filter(e => /history|upload|docker:rm/.test(e));
    expect(events).toEqual(['docker:history export', 'upload']);
    expect(h.uploaded.map(u => u.name)).toEqual(['octo~app~SHARED.dockerbuild']);
  });
});
