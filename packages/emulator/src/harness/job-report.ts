import {labelSimulated} from '../demo/demo-run.js';
import {summaryToText} from '../demo/summary-text.js';
import type {LogMasker} from './log-masker.js';
import type {WorkflowJobResult} from './workflow-job.js';

export interface JobReportOpts {
  /** The job's masker: every line is masked with it (before and after the Markdown is rendered). */
  masker: LogMasker;
  /** The fake docker stood in: mark its made-up digests "(simulated)", as the demo does. */
  simulated?: boolean;
}

/**
 * The job summary (every step's GITHUB_STEP_SUMMARY, in the order the steps ran) rendered as text the way the
 * demo renders it, then the steps' outputs and the job's outcome.
 */
export function formatJobReport(job: WorkflowJobResult, opts: JobReportOpts): string[] {
  const mask = (text: string): string => opts.masker.mask(text);
  const lines: string[] = ['', '━━ Job summary ━━'];
  const withSummary = job.steps.filter(s => (s.result?.summary ?? '').trim() !== '');
  if (withSummary.length === 0) lines.push('  (no step wrote a job summary)');
  for (const step of withSummary) {
    lines.push('', `── ${step.label}: ${step.title} ──`);
    // Masked before rendering (the Markdown's own forms) and after (entities it decodes).
    for (const line of summaryToText(mask(step.result?.summary ?? ''))) {
      lines.push(line === '' ? '' : `  ${mask(opts.simulated ? labelSimulated(line) : line)}`);
    }
  }
  const outputs = Object.entries(job.outputs).flatMap(([id, values]) =>
    Object.entries(values).map(([name, value]) => `  steps.${id}.outputs.${name}=${value.split('\n').join('\n    ')}`)
  );
  if (outputs.length > 0) lines.push('', '━━ Step outputs ━━', ...outputs.map(mask));
  lines.push('');
  lines.push(job.failedStep ? `Job ${job.jobId} FAILED at step ${job.failedStep}.` : `Job ${job.jobId} succeeded.`);
  return lines;
}
