// Appending to the job summary file as @actions/core 3.0.1's summary does.
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, expect, test} from '@jest/globals';
import {appendStepSummary} from '../../src/adapters/step-summary.js';

const dir = mkdtempSync(join(tmpdir(), 'step-summary-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));

test('appends to GITHUB_STEP_SUMMARY, and does nothing without it', async () => {
  const file = join(dir, 'summary.md');
  writeFileSync(file, 'a\n');
  await appendStepSummary('b\n', {GITHUB_STEP_SUMMARY: file});
  await appendStepSummary('c\n', {});
  expect(readFileSync(file, 'utf8')).toBe('a\nb\n');
});

test('a summary file that cannot be accessed is an error naming it', async () => {
  const file = join(dir, 'missing', 'summary.md');
  await expect(appendStepSummary('x', {GITHUB_STEP_SUMMARY: file})).rejects.toThrow(
    `Unable to access summary file: '${file}'. Check if the file has correct read/write permissions.`
  );
});
