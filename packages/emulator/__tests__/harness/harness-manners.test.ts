// The harness's runner fidelity at the lowest level: the runner's unexpected-input warning, the line on the
// caller's environment, the buildx tool cache per mirror, and the embedded emulator's builders per platform.
import {join} from 'node:path';
import {describe, expect, test} from '@jest/globals';
import {callerEnvNotice} from '../../src/harness/caller-env.js';
import {jobProfiles} from '../../src/harness/job-profiles.js';
import {toolCacheDir} from '../../src/harness/tool-cache-dir.js';
import {readWorkflow, REPO_ROOT, type Workflow} from '../../src/harness/workflow-file.js';
import {planJob, unexpectedInputs, type PlannedStep} from '../../src/harness/workflow-job.js';

/** The planned steps of a one-job workflow whose only step uses our build-push action `with` these inputs. */
function buildPushSteps(...withs: Record<string, string>[]): PlannedStep[] {
  const workflow = {
    on: 'push',
    jobs: {b: {'runs-on': 'ubuntu-latest', steps: withs.map(w => ({uses: './actions/build-push', with: w}))}}
  } as unknown as Workflow;
  return planJob(workflow, 'w.yml').steps;
}

describe('unexpectedInputs: the runner warning for a with: key the action does not declare', () => {
  test("names each unknown key and every valid input, in the runner's words", () => {
    const [step] = buildPushSteps({profile_name: 'x', 'profile-name': 'y', Tags: 'a'});
    if (step?.kind !== 'action') throw new Error('expected an action step');
    const valid = Object.keys(step.manifest.inputs);
    expect(unexpectedInputs(step.manifest, step.step)).toEqual([
      `Unexpected input(s) 'profile_name', valid inputs are ['${valid.join("', '")}']`
    ]);
    expect(valid).toContain('profile-name');
  });

  test('says nothing when every key is an input', () => {
    const [step] = buildPushSteps({'profile-name': 'y'});
    if (step?.kind !== 'action') throw new Error('expected an action step');
    expect(unexpectedInputs(step.manifest, step.step)).toEqual([]);
  });
});

describe('callerEnvNotice', () => {
  test('counts what is not passed and names the variables a build reads, never their values', () => {
    const line = callerEnvNotice({
      parent: {
        PATH: '/bin',
        HOME: '/h',
        DOCKER_HOST: 'tcp://secret-host',
        LANG: 'C',
        REMOTE_BUILDER_API_URL: 'u',
        TZ: 'x'
      },
      inherit: false,
      given: {TZ: 'UTC'}
    });
    expect(line).toBe(
      'Environment: the steps get PATH and HOME of this shell and --env; its 3 other variable(s) are not passed, ' +
        'among them DOCKER_HOST, REMOTE_BUILDER_API_URL (as on a runner: pass one with --env NAME=value, all with --inherit-env).'
    );
    expect(line).not.toContain('secret-host');
  });

  test('with --inherit-env says everything is passed', () => {
    expect(callerEnvNotice({parent: {DOCKER_HOST: 'x'}, inherit: true, given: {}})).toMatch(
      /every variable of this shell/
    );
  });
});

describe('toolCacheDir: one buildx cache per source', () => {
  test('GitHub, and each mirror its own folder', () => {
    const root = '/cache';
    const github = toolCacheDir(root, undefined);
    const mirrorA = toolCacheDir(root, 'https://mirror.example/buildx');
    const mirrorB = toolCacheDir(root, 'https://other.example/buildx');
    expect(github).toBe(join(root, 'github'));
    expect(toolCacheDir(root, '')).toBe(github);
    expect(mirrorA).toMatch(/^\/cache\/mirror-mirror\.example-[0-9a-f]{12}$/);
    expect(new Set([github, mirrorA, mirrorB]).size).toBe(3);
    // The same mirror, written with a trailing slash, is the same cache.
    expect(toolCacheDir(root, 'https://mirror.example/buildx/')).toBe(mirrorA);
  });
});

describe('jobProfiles: the embedded emulator gives a job the builders it asks for', () => {
  test('a job of one platform gets one builder, with the size the step names', () => {
    const {profiles, notes} = jobProfiles(buildPushSteps({'profile-name': 'p', 'builder-size': '32x64'}));
    expect(profiles).toEqual([
      {name: 'p', architectures: ['amd64'], buildersPerAssignment: 1, readyDelayMs: 1000, size: '32x64'}
    ]);
    expect(notes).toEqual(['  profile p: one amd64 builder, 32x64 (step ./actions/build-push names no platforms)']);
  });

  test('amd64 and arm64 get a builder each, and the line says why two', () => {
    const {profiles, notes} = jobProfiles(buildPushSteps({'profile-name': 'p', platforms: 'linux/amd64,linux/arm64'}));
    expect(profiles[0]).toMatchObject({architectures: ['amd64', 'arm64'], buildersPerAssignment: 2});
    expect(notes[0]).toBe(
      '  profile p: an amd64 and an arm64 builder (step ./actions/build-push asks for linux/amd64,linux/arm64)'
    );
  });

  test('arm64 alone is one arm64 builder; a list of profiles is a profile each', () => {
    const {profiles} = jobProfiles(buildPushSteps({'profile-name': 'a, b', platforms: 'linux/arm64'}));
    expect(profiles.map(p => [p.name, p.architectures, p.buildersPerAssignment])).toEqual([
      ['a', ['arm64'], 1],
      ['b', ['arm64'], 1]
    ]);
  });

  test('each example: two builders only for multi-arch', () => {
    const builders = Object.fromEntries(
      ['build-push', 'bake', 'multi-arch', 'configure-custom-step'].map(id => {
        const file = join(REPO_ROOT, 'examples', `${id}.yml`);
        const {profiles} = jobProfiles(planJob(readWorkflow(file), file).steps);
        return [id, profiles.map(p => p.buildersPerAssignment)];
      })
    );
    expect(builders).toEqual({'build-push': [1], bake: [1], 'multi-arch': [2], 'configure-custom-step': [1]});
  });
});
