import type {ActionRunResult} from './action-runner.js';

export interface RunReportOpts {
  /** First word of the status line, e.g. 'main' or 'post'. */
  title?: string;
  /** Append the step's stdout and stderr. */
  logs?: boolean;
}

/**
 * Formats a step's result for people. Like the runner's log, it prints every `::add-mask::` value as `***`
 * (longest first); use the result's own fields when the exact values matter.
 */
export function formatRunReport(result: ActionRunResult, opts: RunReportOpts = {}): string {
  const masks = [...new Set(result.masks.filter(mask => mask !== ''))].sort((a, b) => b.length - a.length);
  const mask = (text: string): string => masks.reduce((acc, secret) => acc.split(secret).join('***'), text);
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
      const props = Object.entries(a.properties).map(([k, v]) => `${k}=${v}`);
      return `${a.level}: ${indent(mask(a.message))}${props.length > 0 ? ` (${props.join(', ')})` : ''}`;
    })
  );
  if (masks.length > 0) lines.push(`  masks: ${masks.length} value(s) registered`);
  section(lines, 'file command errors', result.fileCommandErrors.map(mask));
  if (result.summary.trim() !== '') section(lines, 'summary', mask(result.summary.trimEnd()).split('\n'));
  if (opts.logs) {
    if (result.stdout !== '') section(lines, 'stdout', mask(result.stdout.trimEnd()).split('\n'));
    if (result.stderr !== '') section(lines, 'stderr', mask(result.stderr.trimEnd()).split('\n'));
  }
  return lines.join('\n');
}

function status(result: ActionRunResult): string {
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
