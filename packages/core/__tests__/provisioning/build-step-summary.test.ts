import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, readdirSync, writeFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {readBuildStepInputs} from '../../src/provisioning/action-inputs.js';
import {BuildStep} from '../../src/provisioning/build-step.js';
import {BAKE_DEFINITION_FILE, readBakeDefinition} from '../../src/report/bake-definition-file.js';
import {loadRun} from '../../src/report/run-recorder.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {buildStepHarness, REMOTE} from './build-step-harness.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'build-step-summary-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

describe("a build step's early failures and bake's definition, for post's job summary", () => {
  test('a missing buildx: recorded as a failure in the local checks, nothing assigned', async () => {
    const h = buildStepHarness({root, inputs: REMOTE});
    h.deps.exec = new FakeExec(() => ({exitCode: 127, stderr: 'docker: not found'}));
    await expect(h.run(async () => undefined)).rejects.toThrow(/docker buildx is not available/);
    expect(h.api.assignCalls).toEqual([]);
    const run = loadRun(h.io.state);
    expect(run).toMatchObject({action: 'build-push', outcome: 'failure', phase: 'local checks', builders: []});
    expect(run?.errorTail?.join('\n')).toMatch(/docker buildx is not available/);
  });

  test("the action's own check failing (a missing bake file) is recorded the same way", async () => {
    const h = buildStepHarness({root, inputs: REMOTE});
    const missing = async (): Promise<never> => {
      throw new Error('Failed to resolve the bake definition: open docker-bake.hcl: no such file or directory');
    };
    await expect(h.run(async () => undefined, missing, 'bake')).rejects.toThrow(/no such file/);
    expect(loadRun(h.io.state)).toMatchObject({action: 'bake', phase: 'local checks', outcome: 'failure'});
  });

  test('a bad input is recorded before the step opens', () => {
    const h = buildStepHarness({root, inputs: {...REMOTE, retries: 'many'}});
    expect(() => BuildStep.readInputs(h.io, 'bake', () => readBuildStepInputs(h.io))).toThrow(/retries/);
    expect(loadRun(h.io.state)).toMatchObject({action: 'bake', phase: 'inputs', outcome: 'failure'});
  });

  test("close keeps bake's definition (post reads it, then removes the folder) and removes everything else", async () => {
    const h = buildStepHarness({root, inputs: REMOTE});
    const step = await BuildStep.open(h.deps, {
      action: 'bake',
      inputs: {...readBuildStepInputs(h.io), 'github-token': ''}
    });
    writeFileSync(join(step.files.dir, 'secret-npm'), 'npm-secret-value');
    step.saveBakeDefinition('{"target": {}}');
    step.close();
    expect(readdirSync(step.files.dir)).toEqual([BAKE_DEFINITION_FILE]);
    expect(readBakeDefinition(step.files.dir)).toEqual({text: '{"target": {}}', unreadBytes: 0});
  });

  test('with DOCKER_BUILD_SUMMARY=false no definition is kept and the folder goes', async () => {
    const h = buildStepHarness({root, inputs: REMOTE});
    h.io.env['DOCKER_BUILD_SUMMARY'] = 'false';
    const step = await BuildStep.open(h.deps, {
      action: 'bake',
      inputs: {...readBuildStepInputs(h.io), 'github-token': ''}
    });
    step.saveBakeDefinition('{"target": {}}');
    step.close();
    expect(existsSync(step.files.dir)).toBe(false);
  });
});
