import type {ActionRunResult} from './action-runner.js';
import {LogMasker} from './log-masker.js';

export interface RunReportOpts {
  /** First word of the status line, e.g. 'main' or 'post'. */
  title?: string;
  /** Append the step's stdout and stderr. */
  logs?: boolean;
  /** Print the job summary's Markdown (default true; the job command renders it as text instead). */
  summary?: boolean;
  /**
   * The job's masker, holding the secrets known before the step (an `api-key` input, `secrets.*`); the step's
   * own `::add-mask::` values are added to it. Default: a new one with only the step's.
   */
  masker?: LogMasker;
}

/**
 * Formats a step's result for people. Like the runner's log, and more thoroughly, it prints every secret as
 * `***`: each `::add-mask::` value of the step (and each line of it) and the masker's known secrets, in every
 * encoding LogMasker knows, in every field; `::add-mask::` lines are left out of the logs. Use the result's own
 * fields when the exact values matter.
 */
export function formatRunReport(result: ActionRunResult, opts: RunReportOpts = {}): string {
  const log = opts.masker ?? new LogMasker();
  for (const value of result.masks) log.addSecret(value);
  // Registers what the parser skipped too (an add-mask inside a stop-commands block, in any syntax).
  const stdout = log.log(result.stdout.trimEnd());
  const stderr = log.log(result.stderr.trimEnd());
  const mask = (text: string): string => log.mask(text);
  const lines = [`${opts.title ?? 'step'}: ${status(result)}`];

  if (result.signalsSent.length > 0) {
    lines.push(`  signals: ${result.signalsSent.map(s => `${s.signal} at ${s.atMs} ms (${s.reason})`).join(', ')}`);
  }
  section(lines, 'outputs', keyValues(result.outputs, mask));
  section(lines, 'state', keyValues(result.state, mask));
  section(lines, 'exported env', keyValues(result.exportedEnv, mask));
  section(lines, 'path', result.path.map(mask));
  section(
    lines,
    'annotations',
    result.annotations.map(a => {
      const props = Object.entries(a.properties).map(([k, v]) => mask(`${k}=${v}`));
      return `${a.level}: ${indent(mask(a.message))}${props.length > 0 ? ` (${props.join(', ')})` : ''}`;
    })
  );
  const masks = new Set(result.masks.filter(m => m.trim() !== '')).size;
  if (masks > 0) lines.push(`  masks: ${masks} value(s) registered`);
  section(lines, 'file command errors', result.fileCommandErrors.map(mask));
  if ((opts.summary ?? true) && result.summary.trim() !== '') {
    section(lines, 'summary', mask(result.summary.trimEnd()).split('\n'));
  }
  if (opts.logs) {
    if (stdout !== '') section(lines, 'stdout', stdout.split('\n'));
    if (stderr !== '') section(lines, 'stderr', stderr.split('\n'));
  }
  // Once more over the whole text: a secret across two fields' joins (a multi-line value) is masked too.
  return mask(lines.join('\n'));
}

/** "succeeded (exit 0) in 120 ms", "failed (killed by SIGTERM) in …", … */
export function status(result: ActionRunResult): string {
  const outcome = result.timedOut
    ? `timed out, killed by ${result.signal ?? 'SIGKILL'}`
    : result.signal !== null
      ? `killed by ${result.signal}`
      : `exit ${result.exitCode}`;
  return `${result.failed ? 'failed' : 'succeeded'} (${outcome}) in ${result.durationMs} ms`;
}

function section(lines: string[], title: string, items: string[]): void {
  if (items.length === 0) return;
  lines.push(`  ${title}:`);
  for (const item of items) lines.push(`    ${item}`);
}

function keyValues(values: Record<string, string>, mask: (text: string) => string): string[] {
  return Object.entries(values).map(([name, value]) => `${name}=${indent(mask(value))}`);
}

/** Continues a multi-line value under its first line. */
function indent(text: string): string {
  return text.split('\n').join('\n      ');
}
