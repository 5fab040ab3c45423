// Secret hygiene: every byte a step writes where the runner or later steps can read it (stdout, stderr,
// GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV, the job summary) is searched for the API key and for each line
// of each client key the emulator handed out. `::add-mask::` commands are the one place a secret may appear.
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import type {ActionRunResult} from '@remote-builder-actions/emulator';

/** A hit: which secret (first characters only), in which step and which stream. */
export interface Leak {
  step: string;
  where: string;
  secret: string;
}

/** The secrets to look for: the API key(s) and every non-armour line (8+ chars) of every client key. */
export function secretsOf(apiKeys: string[], clientKeys: string[]): string[] {
  const lines = clientKeys.flatMap(k =>
    k
      .split(/\r?\n/)
      .map(l => l.trim())
      .filter(l => l.length >= 8 && !/^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(l))
  );
  return [...new Set([...apiKeys.filter(k => k !== ''), ...lines])];
}

/** The streams of a step that are scanned, without `::add-mask::` lines. */
export function scannedStreams(r: ActionRunResult): Record<string, string> {
  const unmasked = (text: string): string =>
    text
      .split('\n')
      .filter(l => !l.trimStart().startsWith('::add-mask::'))
      .join('\n');
  return {
    stdout: unmasked(r.stdout),
    stderr: unmasked(r.stderr),
    GITHUB_OUTPUT: r.rawFiles.output,
    GITHUB_STATE: r.rawFiles.state,
    GITHUB_ENV: r.rawFiles.env,
    GITHUB_STEP_SUMMARY: r.rawFiles.summary
  };
}

/** Totals of one worker process (one test file at a time). */
const totals = {steps: 0, bytes: 0, secrets: 0, leaks: [] as Leak[]};

/** Scans steps for secrets and counts what it scanned. */
export function scanSteps(steps: {label: string; result: ActionRunResult}[], secrets: string[]): Leak[] {
  const leaks: Leak[] = [];
  for (const {label, result} of steps) {
    totals.steps++;
    for (const [where, text] of Object.entries(scannedStreams(result))) {
      totals.bytes += Buffer.byteLength(text);
      for (const s of secrets) {
        if (text.includes(s)) leaks.push({step: label, where, secret: `${s.slice(0, 6)}…`});
      }
    }
  }
  totals.secrets += secrets.length;
  totals.leaks.push(...leaks);
  return leaks;
}

/**
 * Prints this file's totals and, when the faults run's global setup gave a folder (FAULTS_SCAN_DIR), records
 * them there for the global teardown to add up.
 */
export function reportScan(suite: string): void {
  const line = `secret scan [${suite}]: ${totals.steps} steps, ${totals.bytes} bytes, ${totals.secrets} secret values looked for, ${totals.leaks.length} hits`;
  console.log(line);
  const dir = process.env['FAULTS_SCAN_DIR'];
  if (dir) {
    mkdirSync(dir, {recursive: true});
    writeFileSync(join(dir, `${suite}.json`), JSON.stringify({suite, ...totals}));
  }
}
