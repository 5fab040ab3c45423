// `npm run demo` as a child process (the fake docker forced, so the run is the same on every machine): it
// exits 0, runs the three actions' jobs, says the builds are simulated before the first job and at the end,
// prints every summary (digests labelled simulated) and the ledger with which figure is the bill, says where a
// cost comes from, hides debug lines unless asked, tears every builder down and never prints a line twice in a row.
import {describe, expect, test} from '@jest/globals';
import {spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {DIST, requireBundles} from './kit/actions.js';

/** The demo runs the bundles of the checkout it is in: the one whose dist/ the suites run (kit/actions.ts). */
const CHECKOUT = dirname(DIST);
const DEMO = join(CHECKOUT, 'packages/emulator/src/demo.ts');

interface DemoRun {
  code: number | null;
  lines: string[];
  stderr: string;
}

function runDemoChild(args: string[]): Promise<DemoRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', DEMO, ...args], {
      cwd: CHECKOUT,
      env: {...process.env, NODE_OPTIONS: ''},
      stdio: ['ignore', 'pipe', 'pipe']
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', code => resolve({code, lines: stdout.replace(/\n$/, '').split('\n'), stderr}));
  });
}

function indexOf(lines: string[], pattern: RegExp, from = 0): number {
  return lines.findIndex((l, i) => i >= from && pattern.test(l));
}

describe('npm run demo (fake docker)', () => {
  test('runs configure (+ a build step), build-push and bake; summaries, ledger, all torn down, said simulated', async () => {
    requireBundles();
    if (!existsSync(DEMO)) throw new Error(`${DEMO} is missing: REMOTE_BUILDER_FAULTS_DIST must be a checkout's dist/`);
    const run = await runDemoChild(['--fake-docker']);
    const text = run.lines.join('\n');
    expect({code: run.code, stderr: run.stderr}).toEqual({code: 0, stderr: ''});

    // Said up front (before the first job) and again in the last lines.
    const firstJob = indexOf(run.lines, /^━━ Job 1\/3: configure ━━$/);
    expect(firstJob).toBeGreaterThan(0);
    expect(indexOf(run.lines, /SIMULATED/)).toBeLessThan(firstJob);
    expect(run.lines.slice(-3).join('\n')).toMatch(/SIMULATED by the fake docker/);

    // The three jobs, in order, each step succeeded; the custom step ran between configure's main and post.
    const order = [
      /^── configure \(main\) ──$/,
      /^── run: docker buildx build ──$/,
      /^── configure \(post\) ──$/,
      /^── build-push \(main\) ──$/,
      /^── build-push \(post\) ──$/,
      /^── bake \(main\) ──$/,
      /^── bake \(post\) ──$/
    ];
    let at = 0;
    for (const header of order) {
      const i = indexOf(run.lines, header, at);
      expect({header: header.source, found: i >= at}).toEqual({header: header.source, found: true});
      at = i + 1;
    }
    expect(run.lines.filter(l => /^ {2}✓ succeeded \(exit 0\)/.test(l))).toHaveLength(order.length);
    expect(text).not.toMatch(/FAILED/);
    // The builds reached buildx (the fake docker's first progress line names the builder).
    expect(run.lines.filter(l => /#0 building with "remote-builder-[0-9a-f]+" instance/.test(l))).toHaveLength(3);

    // Every step's summary, rendered as text (no Markdown or HTML left), after the jobs.
    const summaries = indexOf(run.lines, /^━━ Job summaries ━━$/);
    expect(summaries).toBeGreaterThan(at);
    // One block per step, as docker's actions write: post writes it (billing ends there), main writes none.
    for (const job of ['configure', 'build-push', 'bake']) {
      expect(indexOf(run.lines, new RegExp(`^── ${job}: post ──$`), summaries)).toBeGreaterThan(summaries);
      expect(indexOf(run.lines, new RegExp(`^── ${job}: main ──$`), summaries)).toBe(-1);
    }
    // With the image's digest and tags, and setup time apart from build and push time.
    expect(indexOf(run.lines, /^\s*Time: setup \d.* · build and push \d/, summaries)).toBeGreaterThan(summaries);
    const summaryText = run.lines.slice(summaries).join('\n');
    expect(summaryText).not.toMatch(/<\/?(table|tr|td|th|h3|p)>|\*\*|^\s*\|/m);

    // The ledger: five builders (two for each job that builds two platforms, one for bake's amd64 targets), each
    // torn down by an action, and a total.
    const ledger = indexOf(run.lines, /^━━ Billing ledger ━━$/);
    expect(ledger).toBeGreaterThan(summaries);
    const rows = run.lines.slice(ledger).filter(l => /^ {2}bld_/.test(l));
    expect(rows).toHaveLength(5);
    const perJob = Object.fromEntries(
      ['configure', 'build-push', 'bake'].map(job => [job, rows.filter(r => r.split(/\s+/)[2] === job).length])
    );
    expect(perJob).toEqual({configure: 2, 'build-push': 2, bake: 1});
    expect(indexOf(run.lines, /profile "demo-amd64" gives 1 amd64 builder to bake/)).toBeLessThan(firstJob);
    for (const r of rows) expect(r).toMatch(/ min {2}\$\d+\.\d{4} {2}teardown$/);
    expect(text).toMatch(/Total: 5 builder\(s\), \d+\.\d{3} builder-minutes, \$\d+\.\d{4}/);
    expect(text).toMatch(/Every builder \(5\) was torn down by the actions\./);
    expect(run.lines[run.lines.length - 1]).toMatch(/^Demo succeeded in \d+\.\d s\.$/);

    // No line twice in a row (blank ones included), and no `[command]` line repeated as a debug line.
    // One exception: `buildx create` and `buildx create --append` each print the builder's name, one after the other.
    const repeats = run.lines.flatMap((l, i) =>
      i > 0 && l === run.lines[i - 1] && !/^\s+remote-builder-[0-9a-f]{8}$/.test(l) ? [`${i}: ${l}`] : []
    );
    expect(repeats).toEqual([]);
    // Indented by the step and by the group the command runs in.
    const commands = run.lines.flatMap(l => /^\s+\[command\](.*)$/.exec(l)?.[1] ?? []);
    expect(commands).toHaveLength(2);
    expect(run.lines.filter(l => commands.some(c => l.trim() === `##[debug]NodeExec.run: ${c}`))).toEqual([]);
    // Debug lines only on request (--debug), and the run says how to ask for them.
    expect(run.lines.filter(l => /##\[debug\]/.test(l))).toEqual([]);
    expect(indexOf(run.lines, /npm run demo -- --debug shows them/)).toBeLessThan(firstJob);

    // Where a cost comes from, before the first job; which figure is the bill, after the ledger.
    expect(indexOf(run.lines, /^Costs: .*"builder-size: 16x32".*0\.06 USD per minute/)).toBeLessThan(firstJob);
    const bill = indexOf(run.lines, /^Which figure is the bill: the ledger/, ledger);
    expect(bill).toBeGreaterThan(ledger);
    for (const job of ['configure', 'build-push', 'bake']) {
      expect(run.lines[indexOf(run.lines, new RegExp(`^ {2}${job}: ledger \\$`), bill)]).toMatch(
        /ledger \$\d+\.\d{4}; job summary \$\d+\.\d{4}/
      );
    }
    // The fake docker's digests are labelled as simulated wherever a summary shows one.
    const digests = run.lines.slice(summaries, ledger).filter(l => /sha256:[0-9a-f]{12}/.test(l));
    expect(digests.length).toBeGreaterThan(0);
    for (const l of digests) expect(l).toMatch(/sha256:[0-9a-f]+ \(simulated\)/);
  });
});
