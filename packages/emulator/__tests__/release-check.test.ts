// scripts/release-check.mjs, the release workflow's first step: which tags may be released, decided against a
// scratch git repository (main, a side branch, release tags, a major tag), as the workflow's checkout holds them.
import {execFileSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {
  compareVersions,
  gitIn,
  releaseProblems,
  releaseVersion
  // @ts-expect-error: a plain ESM script without type declarations
} from '../../../scripts/release-check.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

type Git = (...args: string[]) => string | {status: number; stderr: string};
interface Opts {
  tag: string;
  commit: string;
  main: string;
  packageVersion: string;
  changelog: string;
  git: Git;
}
const problemsOf = releaseProblems as (opts: Opts) => string[];
const version = releaseVersion as (tag: string) => [number, number, number] | undefined;
const compare = compareVersions as (a: number[], b: number[]) => number;

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null'
};

describe('releaseVersion and compareVersions', () => {
  test.each([
    ['v1.2.3', [1, 2, 3]],
    ['v10.0.0', [10, 0, 0]],
    ['v1.2', undefined],
    ['v1', undefined],
    ['1.2.3', undefined],
    ['v1.02.3', undefined],
    ['v1.2.3-rc.1', undefined],
    ['v1.2.3x', undefined]
  ])('releaseVersion(%j)', (tag, parsed) => {
    expect(version(tag)).toEqual(parsed);
  });

  test.each([
    [[1, 10, 0], [1, 9, 9], 1],
    [[1, 2, 3], [1, 2, 3], 0],
    [[1, 2, 3], [1, 2, 10], -1],
    [[2, 0, 0], [1, 99, 99], 1]
  ])('compareVersions(%j, %j) has the sign %d', (a, b, sign) => {
    expect(Math.sign(compare(a, b))).toBe(sign);
  });
});

describe('releaseProblems on a scratch repository', () => {
  let dir: string;
  let git: Git;
  const sha: Record<string, string> = {};
  const run = (...args: string[]): string =>
    execFileSync('git', args, {cwd: dir, env: GIT_ENV, encoding: 'utf8'}).trim();
  const commit = (name: string): void => {
    writeFileSync(join(dir, 'file.txt'), `${name}\n`);
    run('add', 'file.txt');
    run('commit', '-q', '-m', name);
    sha[name] = run('rev-parse', 'HEAD');
  };
  const dated = (v: string): string => `# Changelog\n\n## [Unreleased]\n\n## [${v}] - 2026-12-01\n\n- a fix\n`;
  const check = (over: Partial<Opts> & {tag: string; commit: string}): string[] =>
    problemsOf({main: 'main', packageVersion: over.tag.slice(1), changelog: dated(over.tag.slice(1)), git, ...over});

  // main: c1 - c2 - c3 - c4; side: c2 - s1 (never merged). Tags: v1.0.0 = c1, v1.1.0 = c2, v1 = c2,
  // v1.2.0 = c3 (being released), v1.3.0 = c4 (not released yet), v2.0.0 = c4, v1.1.1 = s1.
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'release-check-'));
    git = gitIn(dir) as Git;
    run('init', '-q', '-b', 'main');
    commit('c1');
    run('tag', 'v1.0.0');
    commit('c2');
    run('tag', 'v1.1.0');
    run('tag', 'v1');
    run('checkout', '-q', '-b', 'side');
    commit('s1');
    run('tag', 'v1.1.1');
    run('checkout', '-q', 'main');
    commit('c3');
    run('tag', 'v1.2.0');
    commit('c4');
    run('tag', 'v2.0.0');
  });
  afterAll(() => rmSync(dir, {recursive: true, force: true}));

  test('the newest tag of its major, on main, after the major tag: released', () => {
    expect(check({tag: 'v1.2.0', commit: sha.c3 as string})).toEqual([]);
  });

  test('a first release of a new major (no vX yet) on main: released', () => {
    expect(check({tag: 'v2.0.0', commit: sha.c4 as string})).toEqual([]);
  });

  test('a re-run after the major tag moved to the release (vX at the commit itself): released', () => {
    run('tag', '-f', 'v1', sha.c3 as string);
    try {
      expect(check({tag: 'v1.2.0', commit: sha.c3 as string})).toEqual([]);
    } finally {
      run('tag', '-f', 'v1', sha.c2 as string);
    }
  });

  test('a commit that is not on main is refused, whoever tagged it', () => {
    const problems = check({tag: 'v1.1.1', commit: sha.s1 as string});
    expect(problems.some(p => p.includes(`commit ${sha.s1} is not on main`))).toBe(true);
  });

  test('a tag older than another of its major is refused, naming the newer ones', () => {
    run('tag', 'v1.10.0', sha.c4 as string);
    try {
      const problems = check({tag: 'v1.2.0', commit: sha.c3 as string});
      expect(problems).toEqual([expect.stringContaining('tag v1.2.0 is older than v1.10.0: the major tag v1')]);
    } finally {
      run('tag', '-d', 'v1.10.0');
    }
  });

  test('a higher major does not hold back a fix of the older one', () => {
    // v2.0.0 exists at c4; a v1.2.1 on main after v1 is still released (it moves v1, not v2).
    run('tag', 'v1.2.1', sha.c4 as string);
    try {
      expect(check({tag: 'v1.2.1', commit: sha.c4 as string})).toEqual([]);
    } finally {
      run('tag', '-d', 'v1.2.1');
    }
  });

  test('a major tag that is not an ancestor of the commit is refused (vX never moves back)', () => {
    run('tag', '-f', 'v1', sha.c4 as string);
    try {
      const problems = check({tag: 'v1.2.0', commit: sha.c3 as string});
      expect(problems).toEqual([expect.stringContaining(`the major tag v1 points at ${sha.c4}`)]);
    } finally {
      run('tag', '-f', 'v1', sha.c2 as string);
    }
  });

  test('a tag that does not point at the run’s commit is refused', () => {
    const problems = check({tag: 'v1.2.0', commit: sha.c4 as string});
    expect(problems).toEqual([expect.stringContaining(`tag v1.2.0 points at ${sha.c3}, not at ${sha.c4}`)]);
  });

  test('main or the commit missing from the checkout: says to fetch the whole history', () => {
    expect(check({tag: 'v1.2.0', commit: sha.c3 as string, main: 'origin/main'})).toEqual([
      expect.stringContaining('origin/main is not in this repository: check out with fetch-depth: 0')
    ]);
    expect(check({tag: 'v1.2.0', commit: '0'.repeat(40)})).toEqual([
      expect.stringContaining('is not in this repository: check out with fetch-depth: 0')
    ]);
  });

  test.each([
    ['another version in package.json', {packageVersion: '1.1.0'}, 'is not the version in package.json (v1.1.0)'],
    [
      'an undated changelog entry',
      {changelog: '## [1.2.0] - Unreleased\n\n- a fix\n'},
      'it says "## [1.2.0] - Unreleased"'
    ],
    ['no changelog entry', {changelog: '## [Unreleased]\n'}, 'has no dated entry "## [1.2.0] - YYYY-MM-DD" (none)']
  ])('%s is refused', (_, over, problem) => {
    expect(check({tag: 'v1.2.0', commit: sha.c3 as string, ...over})).toEqual([expect.stringContaining(problem)]);
  });

  test('a name that is not vX.Y.Z is refused before anything else', () => {
    expect(check({tag: 'v1.2.0-rc.1', commit: sha.c3 as string})).toEqual([
      expect.stringContaining('is not a release tag vX.Y.Z')
    ]);
  });

  test('the script, as the workflow runs it: exit 1 with each problem as an error annotation', () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({version: '1.2.0'}));
    writeFileSync(join(dir, 'CHANGELOG.md'), '## [1.2.0] - Unreleased\n');
    const script = join(ROOT, 'scripts/release-check.mjs');
    const ok = (tag: string, commit: string): {status: number; stderr: string} => {
      try {
        execFileSync(process.execPath, [script, '--tag', tag, '--commit', commit, '--main', 'main', '--dir', dir], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe']
        });
        return {status: 0, stderr: ''};
      } catch (e) {
        const err = e as {status: number; stderr: string};
        return {status: err.status, stderr: err.stderr};
      }
    };
    const refused = ok('v1.2.0', sha.c3 as string);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^::error::release-check: CHANGELOG.md has no dated entry/m);
    writeFileSync(join(dir, 'CHANGELOG.md'), '## [1.2.0] - 2026-12-01\n');
    expect(ok('v1.2.0', sha.c3 as string)).toEqual({status: 0, stderr: ''});
    expect(ok('', sha.c3 as string).status).toBe(2);
  });
});
