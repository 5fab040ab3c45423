/**
 * The job summary (GITHUB_STEP_SUMMARY) as @actions/core 3.0.1's `summary` writes it: the same HTML for a
 * heading, a table and raw text, each followed by an EOL, appended once the file is known to be readable and
 * writable. Unlike @actions/core's shared buffer, text of a failed write is not carried into the next one.
 */
import {constants} from 'node:fs';
import {access, appendFile} from 'node:fs/promises';
import {EOL} from 'node:os';
import type {JobSummary} from '../provisioning/action-io.js';

/** `<tag>content</tag>`; `<tag>` alone for empty content, as @actions/core's `wrap` does. */
function wrap(tag: string, content: string): string {
  return content ? `<${tag}>${content}</${tag}>` : `<${tag}>`;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A JobSummary as HTML: an h3, a table whose first row is the header (cells escaped, headers not), notes as <p>. */
export function jobSummaryHtml(s: JobSummary): string {
  const [header = [], ...rows] = s.table;
  const tr = (cells: string[]): string => wrap('tr', cells.join(''));
  const body = [tr(header.map(h => wrap('th', h))), ...rows.map(r => tr(r.map(c => wrap('td', escapeHtml(c)))))];
  let html = `${wrap('h3', s.heading)}${EOL}${wrap('table', body.join(''))}${EOL}`;
  for (const note of s.notes ?? []) html += `<p>${escapeHtml(note)}</p>${EOL}`;
  return html;
}

/** Appends `text` to the job summary; nothing off a runner (no GITHUB_STEP_SUMMARY). */
export async function appendStepSummary(text: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const file = env['GITHUB_STEP_SUMMARY'];
  if (!file) return;
  try {
    await access(file, constants.R_OK | constants.W_OK);
  } catch {
    throw new Error(`Unable to access summary file: '${file}'. Check if the file has correct read/write permissions.`);
  }
  await appendFile(file, text, {encoding: 'utf8'});
}
