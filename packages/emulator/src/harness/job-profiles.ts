import {isBuilderSize} from '../pricing.js';
import type {ProfileConfig} from '../profiles.js';
import type {PlannedStep} from './workflow-job.js';

/** The profiles the harness's embedded emulator serves for a job, and a line saying why each has its builders. */
export interface JobProfiles {
  profiles: ProfileConfig[];
  /** One line per profile: its architectures and builders, and what in the job asked for them. */
  notes: string[];
}

/** Time from assignment until a builder is ready, as a service's warm pool would take. */
const READY_DELAY_MS = 1000;

/** A literal input of a step (an expression is left out: it is not known before the step runs). */
function literal(step: PlannedStep, input: string): string | undefined {
  const value = step.step.with?.[input];
  if (value === undefined || value === null) return undefined;
  const text = String(value).trim();
  return text === '' || text.includes('${{') ? undefined : text;
}

/**
 * A profile for each profile-name the job's steps name (`default` when none): one amd64 builder, as a profile of one
 * architecture assigns; amd64 + arm64 with a builder each when a step using it asks for linux/arm64 and another
 * platform in `platforms:` (an arm64 builder alone when it asks for arm64 only). The size is the step's
 * `builder-size` when it names one, so the job summary's cost is the emulator's.
 */
export function jobProfiles(steps: readonly PlannedStep[]): JobProfiles {
  const wanted = new Map<string, {arm64: boolean; amd64: boolean; size?: string; why: string}>();
  for (const step of steps) {
    if (step.kind !== 'action') continue;
    const names = (literal(step, 'profile-name') ?? '')
      .split(/[,\n]/)
      .map(n => n.trim())
      .filter(n => n !== '');
    const platforms = literal(step, 'platforms') ?? '';
    const arm64 = /\barm64\b|aarch64/.test(platforms);
    const amd64 = platforms === '' || /\bamd64\b|x86_64/.test(platforms) || !arm64;
    for (const name of names) {
      const seen = wanted.get(name);
      const why =
        platforms === '' ? `step ${step.label} names no platforms` : `step ${step.label} asks for ${platforms}`;
      wanted.set(name, {
        arm64: (seen?.arm64 ?? false) || arm64,
        amd64: seen ? seen.amd64 || amd64 : amd64,
        size: seen?.size ?? literal(step, 'builder-size'),
        why: seen ? `${seen.why}; ${why}` : why
      });
    }
  }
  if (wanted.size === 0) wanted.set('default', {arm64: false, amd64: true, why: 'the job names no profile'});
  const profiles: ProfileConfig[] = [];
  const notes: string[] = [];
  for (const [name, w] of wanted) {
    const architectures = [...(w.amd64 ? ['amd64' as const] : []), ...(w.arm64 ? ['arm64' as const] : [])];
    const profile: ProfileConfig = {
      name,
      architectures,
      buildersPerAssignment: architectures.length,
      readyDelayMs: READY_DELAY_MS
    };
    if (isBuilderSize(w.size)) profile.size = w.size;
    profiles.push(profile);
    const builders = architectures.length === 1 ? `one ${architectures[0]} builder` : 'an amd64 and an arm64 builder';
    notes.push(`  profile ${name}: ${builders}${profile.size ? `, ${profile.size}` : ''} (${w.why})`);
  }
  return {profiles, notes};
}
