// The job summary's HTML, written by hand as @actions/core 3.0.1's summary writes it.
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, expect, test} from '@jest/globals';
import type {JobSummary} from '../../src/provisioning/action-io.js';
import {appendStepSummary, jobSummaryHtml} from '../../src/adapters/step-summary.js';

// prettier-ignore
test.each([
  ['header and rows; cells escaped, headers not', {heading: 'Builders', table: [['<b>Name</b>', 'State'], ['a & b', '<ok>']]},
    '<h3>Builders</h3>\n<table><tr><th><b>Name</b></th><th>State</th></tr><tr><td>a &amp; b</td><td>&lt;ok&gt;</td></tr></table>\n'],
  ['an empty cell is an open tag', {heading: 'H', table: [['x', ''], ['', 'y']]},
    '<h3>H</h3>\n<table><tr><th>x</th><th></tr><tr><td><td>y</td></tr></table>\n'],
  ['no table rows', {heading: 'H', table: []}, '<h3>H</h3>\n<table><tr></table>\n'],
  ['notes as escaped paragraphs', {heading: 'H', table: [['k']], notes: ['1 < 2', 'b']},
    '<h3>H</h3>\n<table><tr><th>k</th></tr></table>\n<p>1 &lt; 2</p>\n<p>b</p>\n']
] as [string, JobSummary, string][])('%s', (_name, summary, html) => {
  expect(jobSummaryHtml(summary)).toBe(html);
});

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
