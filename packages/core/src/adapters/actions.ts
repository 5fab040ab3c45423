// The only module of core that imports @actions/*: it maps core's seams onto the runner.
import * as core from '@actions/core';
import type {ActionIO, JobSummary} from '../provisioning/action-io.js';
import type {Logger} from '../logger.js';
import type {StateStore} from '../state.js';

/** Logger on the runner's log: groups fold, secrets are masked line by line. */
export const actionsLogger: Logger = {
  debug: m => core.debug(m),
  info: m => core.info(m),
  warning: (m, properties) => core.warning(m, properties),
  error: m => core.error(m),
  group: (title, fn) => core.group(title, fn),
  setSecret: v => core.setSecret(v)
};

/** State for this action's post step (GITHUB_STATE → STATE_*). */
export const actionsStateStore: StateStore = {
  save: (key, value) => core.saveState(key, value),
  get: key => core.getState(key)
};

/** ActionIO on @actions/core. */
export function actionsIO(): ActionIO {
  return {
    logger: actionsLogger,
    state: actionsStateStore,
    env: process.env,
    getInput: name => core.getInput(name),
    setOutput: (name, value) => core.setOutput(name, value),
    exportVariable: (name, value) => core.exportVariable(name, value),
    setFailed: message => core.setFailed(message),
    writeSummary: (s: JobSummary) => writeSummary(s),
    writeMarkdownSummary: async (markdown: string) => {
      if (!process.env['GITHUB_STEP_SUMMARY']) return;
      await core.summary.addRaw(markdown, true).write();
    }
  };
}

async function writeSummary(s: JobSummary): Promise<void> {
  if (!process.env['GITHUB_STEP_SUMMARY']) return;
  const [header = [], ...rows] = s.table;
  let summary = core.summary
    .addHeading(s.heading, 3)
    .addTable([header.map(h => ({data: h, header: true})), ...rows.map(r => r.map(c => ({data: escapeHtml(c)})))]);
  for (const note of s.notes ?? []) summary = summary.addRaw(`<p>${escapeHtml(note)}</p>`, true);
  await summary.write();
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
