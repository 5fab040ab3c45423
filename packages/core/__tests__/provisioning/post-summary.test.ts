import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {InputError} from '../../src/errors.js';
import {readStepInputs} from '../../src/provisioning/early-failure.js';
import {runPostStep} from '../../src/provisioning/post-step.js';
import {BAKE_DEFINITION_FILE} from '../../src/report/bake-definition-file.js';
import type {SummaryInputsSpec} from '../../src/report/build-inputs.js';
import {RunRecorder} from '../../src/report/run-recorder.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {FakeExec} from '../fakes/fake-exec.js';

const SPEC: SummaryInputsSpec = {
  names: ['files', 'timeout', 'secrets', 'api-key'],
  lists: {files: {}},
  hidden: ['api-key'],
  secretKeys: ['secrets']
};

const GITHUB_ENV = {GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'octo/app', GITHUB_RUN_ID: '77'};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'post-summary-test-'));
});
afterEach(() => {
  rmSync(dir, {recursive: true, force: true});
});

function post(io: FakeActionIO, names: {tmpDirState?: string} = {}) {
  const deps = {io, buildx: new Buildx({exec: new FakeExec(), logger: io.logger})};
  return runPostStep(deps, {apiKeyInput: 'api-key', summaryInputs: SPEC, ...names});
}

describe("post's job summary", () => {
  test('a bad input: post writes the short failure block, with the inputs as given and no secret', async () => {
    const inputs = {
      files: 'docker-bake.hcl',
      timeout: 'ten',
      secrets: 'NPM=npm-secret-value',
      'api-key': 'rb_live_key_1234'
    };
    const io = new FakeActionIO(inputs, GITHUB_ENV);
    expect(() =>
      readStepInputs(io, {action: 'bake', secretInputs: ['api-key']}, () => {
        throw new InputError('timeout', 'must be a number of minutes (got "ten")');
      })
    ).toThrow();
    await post(io);
    expect(io.markdownSummaries).toHaveLength(1);
    const summary = io.markdownSummaries[0] as string;
    expect(summary).toContain('## Docker Build summary\n\nNo build record: the step ended before one was exported.\n');
    expect(summary).toContain(
      ['```yaml', 'files:', '  - docker-bake.hcl', 'timeout: ten', 'secrets:', '  - NPM', '```'].join('\n')
    );
    expect(summary).toContain('❌ **Failed** in phase `inputs`');
    expect(summary).toContain('Nothing was assigned: **nothing was billed**. Fix the input the error names');
    expect(summary).toContain('#### Error in phase `inputs`');
    expect(summary).toContain('must be a number of minutes (got "ten")');
    expect(summary).not.toContain('npm-secret-value');
    expect(summary).not.toContain('rb_live_key_1234');
  });

  test('DOCKER_BUILD_SUMMARY=false for main: no summary at all', async () => {
    const io = new FakeActionIO({}, {DOCKER_BUILD_SUMMARY: 'false'});
    expect(() =>
      readStepInputs(io, {action: 'build-push', secretInputs: []}, () => {
        throw new InputError('push', 'is not a boolean');
      })
    ).toThrow();
    await post(io);
    expect(io.markdownSummaries).toEqual([]);
  });

  test("bake: the definition main left in its folder is read before the folder goes; the record's link", async () => {
    const io = new FakeActionIO({files: 'docker-bake.hcl'}, GITHUB_ENV);
    const folder = join(dir, 'bake-x');
    mkdirSync(folder);
    writeFileSync(join(folder, BAKE_DEFINITION_FILE), '{\n  "target": {"app": {}}\n}\n');
    io.state.save('tmpDir', folder);
    const recorder = new RunRecorder({action: 'bake', state: io.state, summary: true});
    recorder.buildRecord({
      fileName: 'octo~app~ABCDEF.dockerbuild',
      sizeBytes: 2048,
      entries: [{ref: 'abcdef123', name: 'app', status: 'completed'}],
      warnings: [],
      upload: {artifactId: 9}
    });
    recorder.finish('success');
    await post(io, {tmpDirState: 'tmpDir'});
    expect(existsSync(folder)).toBe(false);
    const summary = io.markdownSummaries[0] as string;
    expect(summary).toContain('](https://github.com/octo/app/actions/runs/77/artifacts/9) (2 KiB');
    expect(summary).toContain(
      [
        '<details><summary><strong>Bake definition</strong></summary>',
        '',
        '```json',
        '{',
        '  "target": {"app": {}}',
        '}',
        '```'
      ].join('\n')
    );
  });
});
