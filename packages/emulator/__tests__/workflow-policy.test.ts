// Our rules for every workflow we ship or run (.github/workflows/, examples/, the examples' local actions):
// - every `uses:` of another repository's action is pinned to a full commit SHA, with the version in a
//   comment (`uses: owner/repo@<40 hex> # v1.2.3`), so a moved tag cannot change what runs;
// - every job says its own `permissions:` (least privilege per job; the workflow's default may be `{}`);
// - no `${{ }}` expression inside a `run:` script: a value is passed through `env:` and read as "$NAME",
//   so that a value with shell syntax in it (a branch name, a title, a step output) is never run.
// Our own actions in the examples are the exception to pinning: they are written as
// `<owner>/remote-builder-actions/actions/<name>@v1`, the placeholder a user replaces (README: Pinning).
// And for .github/workflows/, what a token can reach (SECURITY.md: Supply chain):
// - every actions/checkout keeps no credentials in .git/config (persist-credentials: false);
// - a job with a write permission (or the OIDC token that publishes) runs no dependency code: no npm, npx,
//   node or script of the repository, no local action, no setup-node; it uses no npm cache, and neither does
//   any other job of a workflow that writes or publishes;
// - no `if:` trusts github.actor (whoever triggered the run), and no workflow reads an npm token;
// - only release.yml publishes to npm: with provenance, from a job with id-token: write that needs the release
//   job, whose environment a maintainer approves and which needs the checks of scripts/release-check.mjs.
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
  uses?: string;
  with?: Record<string, unknown>;
  if?: string;
}
interface Job {
  permissions?: unknown;
  steps?: Step[];
  uses?: string;
  needs?: string | string[];
  environment?: string | {name: string};
  if?: string;
}
interface Workflow {
  jobs?: Record<string, Job>;
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

const GITHUB_WORKFLOWS = ymlIn(join(ROOT, '.github/workflows'));
const loadWorkflow = (file: string): Workflow => parse(readFileSync(file, 'utf8')) as Workflow;

/** The permissions a job may write with: `contents`, `packages`, … (id-token separately), or all. */
export function writePermissions(permissions: unknown): string[] {
  if (permissions === 'write-all') return ['all'];
  if (permissions === null || typeof permissions !== 'object') return [];
  return Object.entries(permissions as Record<string, unknown>)
    .filter(([, level]) => level === 'write')
    .map(([scope]) => scope);
}

/** Why a step runs code that came with the dependencies or the checkout (undefined when it runs none). */
export function dependencyCode(step: Step): string | undefined {
  if (typeof step.uses === 'string') {
    if (step.uses.startsWith('./')) return `uses the local action ${step.uses}`;
    if (step.uses.startsWith('actions/setup-node@')) return 'sets up node for npm';
    return undefined;
  }
  const m = /(^|[\s;&|(])(npm|npx|node|tsx|yarn|pnpm|bash scripts\/|sh scripts\/|\.\/)/m.exec(step.run ?? '');
  return m ? `runs ${(m[2] as string).trim()}` : undefined;
}

const stepName = (step: Step, i: number): string => `step ${i + 1} (${step.uses ?? (step.run ?? '').split('\n')[0]})`;
const needsOf = (job: Job): string[] => (job.needs === undefined ? [] : [job.needs].flat());
const environmentOf = (job: Job): string | undefined =>
  typeof job.environment === 'string' ? job.environment : job.environment?.name;
/** The jobs a job waits for, directly or through another. */
function allNeeds(jobs: Record<string, Job>, id: string, seen = new Set<string>()): Set<string> {
  for (const need of needsOf(jobs[id] ?? {})) {
    if (!seen.has(need)) {
      seen.add(need);
      allNeeds(jobs, need, seen);
    }
  }
  return seen;
}

/** What a workflow does against the supply-chain rules above (none: []). */
export function tokenProblems(doc: Workflow): string[] {
  const problems: string[] = [];
  const jobs = doc.jobs ?? {};
  const writes = Object.values(jobs).some(
    j =>
      writePermissions(j.permissions).length > 0 || (j.permissions as Record<string, unknown>)?.['id-token'] === 'write'
  );
  for (const [id, job] of Object.entries(jobs)) {
    const write = writePermissions(job.permissions).filter(s => s !== 'id-token');
    const oidc = (job.permissions as Record<string, unknown> | undefined)?.['id-token'] === 'write';
    if (typeof job.if === 'string' && /github\.actor\b/.test(job.if))
      problems.push(`job ${id}: if: trusts github.actor, who triggered the run: gate on the pull request's author`);
    (job.steps ?? []).forEach((step, i) => {
      const where = `job ${id} ${stepName(step, i)}`;
      if (step.uses?.startsWith('actions/checkout@') && step.with?.['persist-credentials'] !== false)
        problems.push(`${where}: checkout keeps the token in .git/config: add persist-credentials: false`);
      if (step.uses?.startsWith('actions/setup-node@') && writes) {
        if (step.with?.cache !== undefined)
          problems.push(`${where}: an npm cache in a workflow that writes or publishes: remove cache:`);
        if (step.with?.['package-manager-cache'] !== false)
          problems.push(`${where}: add package-manager-cache: false (no npm cache where a job writes or publishes)`);
      }
      if (typeof step.if === 'string' && /github\.actor\b/.test(step.if))
        problems.push(`${where}: if: trusts github.actor: gate on the pull request's author`);
      const code = dependencyCode(step);
      if (write.length > 0 && code)
        problems.push(
          `${where}: ${code} in a job that can write ${write.join(', ')}: run it in a job without a write token`
        );
      if (oidc && code && !(step.uses?.startsWith('actions/setup-node@') || /^\s*npm publish\b/m.test(step.run ?? '')))
        problems.push(
          `${where}: ${code} in a job with id-token: write: only npm publish of ready tarballs belongs there`
        );
      if (/NPM_TOKEN|NODE_AUTH_TOKEN/.test(JSON.stringify(step)))
        problems.push(`${where}: reads an npm token: publish with npm's trusted publishing (id-token: write) instead`);
    });
  }
  return problems;
}

describe('supply-chain policy of .github/workflows/', () => {
  test.each(GITHUB_WORKFLOWS.map(f => [relative(ROOT, f), f]))('%s: what its tokens can reach', (_, file) => {
    expect(tokenProblems(loadWorkflow(file))).toEqual([]);
  });

  // Each rule, on a workflow that breaks it (and the same workflow without the break).
  const checkout = {
    uses: 'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1',
    with: {'persist-credentials': false}
  };
  const push: Job = {permissions: {contents: 'write'}, steps: [checkout, {run: 'git push origin HEAD'}]};
  test.each<[string, Workflow, string]>([
    [
      'checkout with credentials',
      {jobs: {a: {permissions: {contents: 'read'}, steps: [{uses: checkout.uses}]}}},
      'checkout keeps the token in .git/config'
    ],
    [
      'npm ci beside a write token',
      {jobs: {a: {...push, steps: [checkout, {run: 'npm ci --strict-allow-scripts'}, {run: 'git push'}]}}},
      'step 2 (npm ci --strict-allow-scripts): runs npm in a job that can write contents'
    ],
    [
      'a repository script beside a write token',
      {jobs: {a: {...push, steps: [checkout, {run: 'set -e\nbash scripts/x.sh'}]}}},
      'runs bash scripts/ in a job that can write contents'
    ],
    [
      'a local action beside a write token',
      {jobs: {a: {permissions: 'write-all', steps: [{uses: './actions/build-push'}]}}},
      'uses the local action ./actions/build-push in a job that can write all'
    ],
    [
      'an npm cache in a workflow that publishes',
      {
        jobs: {
          a: {permissions: {contents: 'read'}, steps: [{uses: 'actions/setup-node@x', with: {cache: 'npm'}}]},
          b: {permissions: {'id-token': 'write'}, steps: [{run: 'npm publish x.tgz --provenance'}]}
        }
      },
      'an npm cache in a workflow that writes or publishes'
    ],
    [
      'a build beside the OIDC token',
      {jobs: {a: {permissions: {'id-token': 'write'}, steps: [{run: 'npm run bundle'}]}}},
      'runs npm in a job with id-token: write'
    ],
    [
      'an npm token',
      {
        jobs: {
          a: {permissions: {}, steps: [{run: 'npm whoami', env: {NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}'}} as Step]}
        }
      },
      'reads an npm token'
    ],
    [
      'github.actor as the gate',
      {jobs: {a: {permissions: {}, if: "github.actor == 'dependabot[bot]'", steps: []}}},
      'trusts github.actor'
    ]
  ])('%s is found', (_, doc, problem) => {
    expect(tokenProblems(doc)).toEqual(expect.arrayContaining([expect.stringContaining(problem)]));
  });

  test('the same jobs within the rules pass', () => {
    expect(
      tokenProblems({
        jobs: {
          build: {permissions: {contents: 'read'}, steps: [checkout, {run: 'npm ci'}, {run: 'npm run bundle'}]},
          push: {...push, needs: 'build', if: "github.event.pull_request.user.login == 'dependabot[bot]'"},
          publish: {
            needs: ['build', 'push'],
            permissions: {'id-token': 'write'},
            steps: [
              {uses: 'actions/setup-node@x', with: {'node-version': 24, 'package-manager-cache': false}},
              {run: 'npm publish a.tgz --provenance'}
            ]
          }
        }
      })
    ).toEqual([]);
  });

  test('only release.yml publishes to npm, after the approved release and its checks, with provenance', () => {
    const publishing = GITHUB_WORKFLOWS.filter(f => /\bnpm publish\b/.test(readFileSync(f, 'utf8')));
    expect(publishing.map(f => relative(ROOT, f))).toEqual(['.github/workflows/release.yml']);
    const {jobs = {}} = loadWorkflow(join(ROOT, '.github/workflows/release.yml'));
    const [publishId, publish] = Object.entries(jobs).find(([, j]) =>
      (j.steps ?? []).some(s => /\bnpm publish\b/.test(s.run ?? ''))
    ) as [string, Job];
    const [releaseId, release] = Object.entries(jobs).find(([, j]) =>
      (j.steps ?? []).some(s => /\bgh release create\b/.test(s.run ?? ''))
    ) as [string, Job];
    const [checkId, check] = Object.entries(jobs).find(([, j]) =>
      (j.steps ?? []).some(s => /scripts\/release-check\.mjs --tag "\$TAG" --commit "\$COMMIT"/.test(s.run ?? ''))
    ) as [string, Job];

    expect(allNeeds(jobs, publishId)).toEqual(new Set([releaseId, checkId]));
    expect(publish.permissions).toEqual({'id-token': 'write'});
    for (const s of publish.steps ?? []) {
      if (/\bnpm publish\b/.test(s.run ?? '')) expect(s.run).toMatch(/npm publish \S+\.tgz[^\n]*\\?\n?\s*--provenance/);
    }
    expect(environmentOf(publish)).toBe('npm');

    expect(environmentOf(release)).toBe('release');
    expect(release.permissions).toEqual({contents: 'write'});
    expect(allNeeds(jobs, releaseId)).toEqual(new Set([checkId]));

    // The checks come first, on main's whole history, before any dependency code runs.
    const steps = check.steps ?? [];
    const checkout = steps.find(s => s.uses?.startsWith('actions/checkout@'));
    expect(checkout?.with).toEqual({'persist-credentials': false, 'fetch-depth': 0});
    const at = (re: RegExp): number => steps.findIndex(s => re.test(s.run ?? ''));
    expect(at(/release-check\.mjs/)).toBeGreaterThanOrEqual(0);
    expect(at(/release-check\.mjs/)).toBeLessThan(at(/^npm ci\b/));
    expect(at(/npm run bundle/)).toBeGreaterThan(at(/^npm ci\b/));
    expect(check.permissions).toEqual({contents: 'read'});
  });

  test('dependabot-dist.yml builds without a token and pushes from a job that runs no dependency code', () => {
    const {jobs = {}} = loadWorkflow(join(ROOT, '.github/workflows/dependabot-dist.yml'));
    const writing = Object.entries(jobs).filter(([, j]) => writePermissions(j.permissions).length > 0);
    expect(writing.map(([id]) => id)).toEqual(['push']);
    expect(needsOf(jobs.push as Job)).toEqual(['build']);
    expect((jobs.build as Job).steps?.some(s => /npm run bundle/.test(s.run ?? ''))).toBe(true);
    for (const job of Object.values(jobs)) {
      expect(job.if).toContain("github.event.pull_request.user.login == 'dependabot[bot]'");
    }
  });
});
