// The bundled actions the fault suites run. Each suite iterates over ACTIONS, so another action (bake)
// joins every applicable scenario with one entry here.
import {existsSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const FAKE_DOCKER_BIN = join(ROOT, 'packages/emulator/fake-docker');
/**
 * The dist/ folder whose bundles the suites run: REMOTE_BUILDER_FAULTS_DIST when set (e.g. bundles built from
 * a clean worktree of the last commit while the sources here are being edited), else this checkout's dist/.
 */
export const DIST = resolve(process.env['REMOTE_BUILDER_FAULTS_DIST'] || join(ROOT, 'dist'));

/** An action under test, and what sets it apart from the others. */
export interface ActionUnderTest {
  name: string;
  /** dist/<action>/main/index.js */
  main: string;
  /** dist/<action>/post/index.js */
  post: string;
  /** Inputs every run needs besides api-url, api-key, profile-name and timeout. */
  inputs: Record<string, string>;
  /** Main runs a build after the builder is ready (a build can fail or be interrupted). */
  builds: boolean;
  /** Main tears the builders down when its work is done (build actions); otherwise post does (configure). */
  tearsDownInMain: boolean;
  /** Has the `fallback` input (local builder when no remote one can be had). */
  fallback: boolean;
  /** Checks the `platforms` input before assigning. */
  platforms: boolean;
  /** Checks the `call` input before assigning. */
  call: boolean;
  /** Refuses `push` + `load` before assigning when buildx is older than 0.13 (which refuses the pair). */
  checksPushAndLoad?: boolean;
  /** main's error when the build command fails (fake docker FAKE_DOCKER_FAIL=build|bake). */
  buildFailure?: RegExp;
  /** main's error when a signal stops the build. */
  cancelledInBuild?: (signal: string) => RegExp;
  /** The FAKE_DOCKER_FAIL / FAKE_DOCKER_HANG name of the build command: build or bake. */
  buildCommand?: 'build' | 'bake';
  /** Files the workspace needs before main runs (e.g. a bake file). */
  workspace?: Record<string, string>;
}

const dist = (action: string, hook: 'main' | 'post'): string => join(DIST, action, hook, 'index.js');

export const CONFIGURE: ActionUnderTest = {
  name: 'configure',
  main: dist('configure', 'main'),
  post: dist('configure', 'post'),
  inputs: {},
  builds: false,
  tearsDownInMain: false,
  fallback: false,
  platforms: false,
  call: false
};

export const BUILD_PUSH: ActionUnderTest = {
  name: 'build-push',
  main: dist('build-push', 'main'),
  post: dist('build-push', 'post'),
  inputs: {context: '.', tags: 'user/app:faults'},
  // The fake docker reads the context's Dockerfile as BuildKit does: 3 build steps (WORKDIR, COPY, RUN).
  workspace: {Dockerfile: 'FROM alpine:3.20\nWORKDIR /src\nCOPY . .\nRUN ./build.sh\n'},
  builds: true,
  tearsDownInMain: true,
  fallback: true,
  platforms: true,
  call: true,
  checksPushAndLoad: true,
  buildFailure: /buildx failed with: ERROR: fake docker: build failed/,
  cancelledInBuild: signal => new RegExp(`Cancelled by ${signal} during the build; the build was stopped`),
  buildCommand: 'build'
};

/** bake: flip `call` or `checksPushAndLoad` once it has that input or check. */
export const BAKE: ActionUnderTest = {
  name: 'bake',
  main: dist('bake', 'main'),
  post: dist('bake', 'post'),
  inputs: {source: '.'},
  workspace: {'docker-bake.hcl': 'target "default" {\n  tags = ["user/app:faults"]\n}\n'},
  builds: true,
  tearsDownInMain: true,
  fallback: true,
  platforms: false,
  call: false,
  buildCommand: 'bake',
  buildFailure: /buildx bake failed with/,
  cancelledInBuild: s => new RegExp(`Cancelled by ${s} during the bake; the bake was stopped`)
};

/** Every action the suites run; another one joins with one entry here. */
export const ACTIONS: ActionUnderTest[] = [CONFIGURE, BUILD_PUSH, BAKE];

/** configure and `build`, not the other build action. */
export const configureAnd =
  (build: ActionUnderTest) =>
  (a: ActionUnderTest): boolean =>
    a === CONFIGURE || a === build;

/**
 * A group of cases that take core's path shared by every action (inputs, assignment, readiness, buildx setup,
 * teardown, post) runs each case on configure (tears down in post, builds nothing) and ONE build action:
 * build-push and bake in turn, so both bundles meet every kind of case. build-push and bake share that path up
 * to the build; a case that names its actions (appliesTo) keeps them.
 */
export function onePerKind<T extends {appliesTo?: (a: ActionUnderTest) => boolean}>(group: T[]): T[] {
  return group.map((c, i) => (c.appliesTo ? c : {...c, appliesTo: configureAnd(i % 2 === 0 ? BUILD_PUSH : BAKE)}));
}

/**
 * A group of cases that fail (or are absorbed) in main on core's shared path before the build (inputs, assignment,
 * readiness, buildx setup): every action takes that path the same way and main tears down what it assigned, so
 * one run proves it. Each case runs on ONE action, configure, build-push and bake in turn, so every bundle meets
 * the group; a case that names its actions (appliesTo) keeps them. Where the actions differ (configure tears
 * down in post after a success, a build action in main), onePerKind keeps configure and a build action.
 */
export function oneEach<T extends {appliesTo?: (a: ActionUnderTest) => boolean}>(group: T[]): T[] {
  return group.map((c, i) => (c.appliesTo ? c : {...c, appliesTo: (a: ActionUnderTest) => a === ACTIONS[i % 3]}));
}

/**
 * For a group of build-only cases on a path the build actions share (around each one's own build command): the
 * first case (the group's control) on both, the others on build-push and bake in turn.
 */
export const buildsInTurn =
  (i: number) =>
  (a: ActionUnderTest): boolean =>
    a.builds && (i === 0 || a === (i % 2 === 1 ? BUILD_PUSH : BAKE));

/** Fails fast, naming the fix, when a bundle is missing. */
export function requireBundles(actions: ActionUnderTest[] = ACTIONS): void {
  for (const a of actions) {
    for (const f of [a.main, a.post]) {
      if (!existsSync(f)) {
        const how = process.env['REMOTE_BUILDER_FAULTS_DIST']
          ? `node scripts/bundle.mjs --out ${DIST}`
          : 'npm run bundle';
        throw new Error(`${f} is missing: run \`${how}\` first`);
      }
    }
  }
}
