// Our rules for every workflow we ship or run (.github/workflows/, examples/, the examples' local actions):
// - every `uses:` of another repository's action is pinned to a full commit SHA, with the version in a
//   comment (`uses: owner/repo@<40 hex> # v1.2.3`), so a moved tag cannot change what runs;
// - every job says its own `permissions:` (least privilege per job; the workflow's default may be `{}`);
// - no `${{ }}` expression inside a `run:` script: a value is passed through `env:` and read as "$NAME",
//   so that a value with shell syntax in it (a branch name, a title, a step output) is never run.
// Our own actions in the examples are the exception to pinning: they are written as
// `<owner>/remote-builder-actions/actions/<name>@v1`, the placeholder a user replaces (README: Pinning).
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {dirname, join, relative, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, test} from '@jest/globals';
import {parse} from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const ymlIn = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter(f => /\.ya?ml$/.test(f))
        .map(f => join(dir, f))
    : [];

const localActions = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, {withFileTypes: true})
        .filter(d => d.isDirectory())
        .map(d => join(dir, d.name, 'action.yml'))
        .filter(f => existsSync(f))
    : [];

const WORKFLOWS = [...ymlIn(join(ROOT, '.github/workflows')), ...ymlIn(join(ROOT, 'examples'))];
const FILES = [...WORKFLOWS, ...localActions(join(ROOT, 'examples/.ci'))];

/** One `uses:` line's problem, or undefined when it follows the rules. */
export function usesProblem(line: string): string | undefined {
  const m = /^\s*(?:-\s+)?uses:\s*(['"]?)([^\s'"#]+)\1\s*(?:#\s*(.*))?$/.exec(line);
  if (!m) return undefined;
  const ref = m[2] as string;
  const comment = (m[3] ?? '').trim();
  if (ref.startsWith('./') || ref.startsWith('docker://')) return undefined;
  if (/^<owner>\/remote-builder-actions\/actions\/[a-z-]+@v\d+$/.test(ref)) return undefined;
  const at = ref.lastIndexOf('@');
  if (at < 0) return `"${ref}" has no ref: pin it to a full commit SHA (owner/repo@<sha> # vX.Y.Z)`;
  if (!/^[0-9a-f]{40}$/.test(ref.slice(at + 1)))
    return `"${ref}" is not pinned to a full commit SHA: use ${ref.slice(0, at)}@<40-hex sha> # ${ref.slice(at + 1)}`;
  if (!/^v\d+(\.\d+){0,2}\b/.test(comment))
    return `"${ref}" has no version comment: end the line with "# vX.Y.Z", the tag that SHA is`;
  return undefined;
}

interface Step {
  run?: string;
}
interface Job {
  permissions?: unknown;
  steps?: Step[];
  uses?: string;
}

describe('workflow policy', () => {
  test('finds the files it checks', () => {
    const names = FILES.map(f => relative(ROOT, f));
    expect(names).toEqual(expect.arrayContaining(['.github/workflows/ci.yml', 'examples/build-push.yml']));
  });

  test.each([
    ['      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1', undefined],
    ['  uses: ./actions/bake', undefined],
    ['        uses: <owner>/remote-builder-actions/actions/bake@v1', undefined],
    ['      - uses: actions/checkout@v4', 'not pinned to a full commit SHA'],
    ['      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1', 'no version comment'],
    ['      - uses: actions/checkout', 'has no ref']
  ])('usesProblem(%j)', (line, problem) => {
    if (problem === undefined) expect(usesProblem(line)).toBeUndefined();
    else expect(usesProblem(line)).toContain(problem);
  });

  test.each(FILES.map(f => [relative(ROOT, f), f]))('%s: every uses: is pinned by SHA with its version', (_, file) => {
    const problems = readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => [i + 1, usesProblem(line)] as const)
      .filter(([, p]) => p !== undefined)
      .map(([n, p]) => `line ${n}: ${p}`);
    expect(problems).toEqual([]);
  });

  test.each(WORKFLOWS.map(f => [relative(ROOT, f), f]))(
    '%s: each job has permissions and no run: holds an expression',
    (_, file) => {
      const doc = parse(readFileSync(file, 'utf8')) as {jobs?: Record<string, Job>};
      const problems: string[] = [];
      for (const [id, job] of Object.entries(doc.jobs ?? {})) {
        if (job.permissions === undefined)
          problems.push(`job ${id}: no permissions: (give it the least it needs, e.g. contents: read)`);
        (job.steps ?? []).forEach((step, i) => {
          if (typeof step.run === 'string' && step.run.includes('${{'))
            problems.push(`job ${id} step ${i + 1}: run: holds \${{ }}: pass the value through env: and use "$NAME"`);
        });
      }
      expect(problems).toEqual([]);
    }
  );
});
