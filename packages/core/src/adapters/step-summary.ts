/**
 * The job summary (GITHUB_STEP_SUMMARY) as @actions/core 3.0.1's `summary` appends it: once the file is known
 * to be readable and writable. Unlike @actions/core's shared buffer, text of a failed write is not carried into
 * the next one.
 */
import {constants} from 'node:fs';
import {access, appendFile} from 'node:fs/promises';

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
