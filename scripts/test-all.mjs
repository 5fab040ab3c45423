#!/usr/bin/env node
// Runs every suite of `npm run test:all` even when an earlier one fails, then names each failed suite,
// so one failure never hides another. Exit code: 0 when all passed, else 1.
import {spawnSync} from 'node:child_process';

const suites = [
  {name: 'unit and integration', script: 'test'},
  {name: 'fault suites', script: 'test:faults'}
];
const extra = process.argv.slice(2);
const failed = [];
for (const suite of suites) {
  process.stdout.write(`\n==== npm run ${suite.script} (${suite.name})\n`);
  const started = Date.now();
  const res = spawnSync('npm', ['run', suite.script, ...(extra.length ? ['--', ...extra] : [])], {stdio: 'inherit'});
  const secs = ((Date.now() - started) / 1000).toFixed(0);
  if (res.status !== 0)
    failed.push(`${suite.name} (npm run ${suite.script}): exit ${res.status ?? res.signal} after ${secs} s`);
  else process.stdout.write(`==== ${suite.name}: passed in ${secs} s\n`);
}
if (failed.length > 0) {
  process.stderr.write(
    `\ntest:all: ${failed.length} of ${suites.length} suites failed:\n${failed.map(f => `  - ${f}`).join('\n')}\n`
  );
  process.exit(1);
}
process.stdout.write(`\ntest:all: all ${suites.length} suites passed\n`);
