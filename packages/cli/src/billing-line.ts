import {readFileSync} from 'node:fs';
import path from 'node:path';
import {billBuilder, formatDuration, totalBill, type RunRecord} from '@remote-builder-actions/core';

/**
 * The one line the `builder` commands print after a teardown: what the builders of the run were billed (spec §3:
 * assignment → teardown), how many, and the cost when the size is known (--builder-size, or the service's details);
 * never a guessed cost. With `simulated`, it says the build was the fake docker's.
 */
export function billingLine(run: RunRecord, opts: {simulated?: boolean} = {}): string {
  const builders = run.builders.length;
  const simulated = opts.simulated
    ? ' docker was the recording fake docker (packages/emulator/fake-docker): its builds were SIMULATED.'
    : '';
  if (builders === 0) return `Billed: nothing, no builder was assigned.${simulated}`;
  const bills = run.builders.map(b => billBuilder(b, run.endedAt));
  const total = totalBill(bills);
  const bound = total.bound === 'exact' ? '' : total.bound === 'about' ? 'about ' : `${total.bound.replace('-', ' ')} `;
  const time = `${bound}${formatDuration(total.billedMs)}`;
  const what = `${builders} builder${builders === 1 ? '' : 's'} for ${time}${builders === 1 ? '' : ' in all'}`;
  if (total.cost !== undefined) {
    const sizes = [...new Set(run.builders.map(b => `${b.size}${b.multiArch ? ' multi-arch' : ''}`))].join(', ');
    return `Billed: ${what}, ${total.cost.toFixed(4)} USD (${sizes}).${simulated}`;
  }
  const why = [...new Set(total.unknown.map(u => u.why))].join(', ');
  return `Billed: ${what}; cost unknown (${why}): pass --builder-size, the profile's size in the web UI.${simulated}`;
}

/**
 * Whether `docker` on `env`'s PATH is this repository's recording fake docker (packages/emulator/fake-docker), whose
 * builds are simulated: the first `docker` found, read for the fake's marker.
 */
export function isFakeDocker(env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    let text: string;
    try {
      text = readFileSync(path.join(dir, 'docker'), 'utf8').slice(0, 400);
    } catch {
      continue;
    }
    return text.includes('A recording stand-in for the docker CLI (see fake-docker.mjs)');
  }
  return false;
}
