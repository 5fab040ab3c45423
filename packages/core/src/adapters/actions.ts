/**
 * The module of core that talks to the runner: it maps core's seams onto the runner's protocol. It does not
 * import @actions/core (the project's listed library for this): that package's entry statically imports its
 * OIDC client, hence @actions/http-client, undici and tunnel, ~450 KiB of a 705 KiB bundle evaluated at every
 * start though no step asks for an ID token. With undici also loaded only on use (proxies, buildx downloads),
 * configure's bundle went from 708 to 231 KiB and its cold start (spawn → first API request) from ~140 to
 * ~85 ms (docs/performance.md). runner-protocol.ts and step-summary.ts write what @actions/core 3.0.1 writes, byte
 * for byte (their tests hold the expected strings). @actions/tool-cache stays, in its lazily loaded chunk.
 */
import {EOL} from 'node:os';
import type {ActionIO} from './action-io.js';
import type {Logger} from '../logger.js';
import type {StateStore} from '../state.js';
import {annotationProperties, issueCommand, setKeyValue, untrustedOutput, writeLine} from './runner-protocol.js';
import {appendStepSummary} from './step-summary.js';

/**
 * Logger on the runner's log: groups fold, secrets are masked line by line; untrusted text is printed with
 * workflow commands suspended, and every line of ours resumes them first (runner-protocol.ts).
 */
export const actionsLogger: Logger = {
  debug: m => issueCommand('debug', {}, m),
  info: m => writeLine(m),
  untrusted: m => untrustedOutput.print(m),
  warning: (m, properties) => issueCommand('warning', annotationProperties(properties), m),
  error: m => issueCommand('error', {}, m),
  group: async (title, fn) => {
    issueCommand('group', {}, title);
    try {
      return await fn();
    } finally {
      issueCommand('endgroup', {}, '');
    }
  },
  setSecret: v => issueCommand('add-mask', {}, v)
};

/** State for this action's post step (GITHUB_STATE → STATE_*). */
export const actionsStateStore: StateStore = {
  save: (key, value) => setKeyValue('STATE', key, value),
  get: key => process.env[`STATE_${key}`] || ''
};

/** An input as the runner passes it: INPUT_<name, spaces as '_', upper case>, trimmed; '' when unset. */
export function getInput(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] || '').trim();
}

/** ActionIO on the runner. */
export function actionsIO(): ActionIO {
  return {
    logger: actionsLogger,
    state: actionsStateStore,
    env: process.env,
    getInput: name => getInput(name),
    setOutput: (name, value) => setKeyValue('OUTPUT', name, value),
    exportVariable: (name, value) => {
      process.env[name] = value;
      setKeyValue('ENV', name, value);
    },
    setFailed: message => {
      process.exitCode = 1;
      actionsLogger.error(message);
    },
    writeMarkdownSummary: (markdown: string) => appendStepSummary(markdown + EOL)
  };
}
