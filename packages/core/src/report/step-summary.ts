import {renderDockerSummary, type DockerSummaryOpts} from './docker-summary.js';
import type {RunRecord} from './run-record.js';
import {renderRunReport} from './run-report.js';
import {byteLength, cutText, formatBytes, SUMMARY_BUDGET_BYTES} from './summary-size.js';

export type StepSummaryOpts = DockerSummaryOpts;

/**
 * The one job summary block of a step, as post writes it. A build step (build-push, bake): docker's
 * "Docker Build summary" sections (the build record's link, the table of builds, the error of the last failed
 * build, the build inputs, bake's definition), then ours (renderRunReport: the outcome, time, result, builders
 * with their bill, attempts, cache, the step's error), then a separator, as docker ends its summary. configure
 * builds nothing: ours alone. The block stays under GitHub's 1,024 KiB limit (SUMMARY_BUDGET_BYTES): the long
 * parts are cut with a note, and anything still over is cut at the end. Pure.
 */
export function renderStepSummary(r: RunRecord, opts: StepSummaryOpts = {}): string {
  const ours = renderRunReport(r);
  if (r.action === 'configure') return fit(ours);
  const docker = renderDockerSummary(r, opts, SUMMARY_BUDGET_BYTES - byteLength(ours) - 1024);
  return fit(`${docker.join('\n')}\n\n${ours}\n---\n`);
}

/** A last bound, should a part the renderers do not cut (never expected) be huge. */
function fit(summary: string): string {
  const cut = cutText(summary, SUMMARY_BUDGET_BYTES - 1024);
  if (cut.cutBytes === 0) return summary;
  return `${cut.text}\n\n_Cut: the last ${formatBytes(cut.cutBytes)} of this summary are not shown, to keep it under GitHub's 1,024 KiB limit._\n`;
}
