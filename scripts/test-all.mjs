#!/usr/bin/env node
// `npm run test:all`: every suite in one jest run (jest.all.config.js: the unit and integration tests and the
// fault suites as two projects on two workers), then the failed test files named by suite, so one failure
// never hides another. Arguments go to jest (`npm run test:all -- -t retry`). Exit code: 0 when all passed, else 1.
import {spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {join, relative} from 'node:path';

const root = join(import.meta.dirname, '..');
const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
const scratch = mkdtempSync(join(tmpdir(), 'test-all-'));
const results = join(scratch, 'results.json');
/** The suites of the run: jest.all.config.js's projects, told apart by folder. */
const suites = [
  {name: 'fault suites', script: 'test:faults', has: path => path.includes('/__faults__/')},
  {name: 'unit and integration', script: 'test', has: () => true}
];
const suiteOf = path => suites.find(s => s.has(path));

const started = Date.now();
const res = spawnSync(
  process.execPath,
  [jest, '-c', 'jest.all.config.js', '--json', `--outputFile=${results}`, ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim(),
      NODE_NO_WARNINGS: '1'
    }
  }
);
const secs = ((Date.now() - started) / 1000).toFixed(0);
const report = existsSync(results) ? JSON.parse(readFileSync(results, 'utf8')) : undefined;
rmSync(scratch, {recursive: true, force: true});

/** The closing line CI reads: "N passed, N failed" alone on a line, after one word with a colon. */
const tally = report ? `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed\n` : '';
if (res.status === 0 && report?.success) {
  process.stdout.write(`\ntest:all: every suite passed in ${secs} s\n${tally}`);
  process.exit(0);
}
const lines = [];
for (const suite of suites) {
  const failed = (report?.testResults ?? []).filter(r => r.status === 'failed' && suiteOf(r.name) === suite);
  if (failed.length === 0) continue;
  lines.push(`  ${suite.name} (alone: npm run ${suite.script}):`);
  for (const f of failed) {
    const tests = f.assertionResults.filter(a => a.status === 'failed');
    // A file that failed to run (no test failed): the first line of why.
    const cause = f.message.split('\n').find(l => l.trim() !== '' && !l.includes('Test suite failed to run'));
    const why = tests.length > 0 ? `${tests.length} failed` : `did not run: ${cause?.trim() ?? 'see above'}`;
    lines.push(`    - ${relative(root, f.name)}: ${why}`);
    // Each failed test by its full name (describe › test), as `-t` takes it to run it alone.
    for (const t of tests) lines.push(`        ✕ ${[...t.ancestorTitles, t.title].join(' › ')}`);
  }
}
if (lines.length === 0)
  lines.push(`  jest exited ${res.status ?? res.signal} without naming a failed file (see above)`);
process.stderr.write(`\ntest:all: failed after ${secs} s:\n${lines.join('\n')}\n${tally}`);
process.exit(1);
