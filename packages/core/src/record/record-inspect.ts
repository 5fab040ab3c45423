import type {BuildRecordEntry} from '../report/run-record.js';

/** The fields of `buildx history inspect --format json` the record reads (Go field names, as buildx prints them). */
interface InspectJson {
  Name?: unknown;
  Ref?: unknown;
  Status?: unknown;
  /** Nanoseconds (Go's time.Duration). */
  Duration?: unknown;
  NumCompletedSteps?: unknown;
  NumTotalSteps?: unknown;
  NumCachedSteps?: unknown;
  Error?: {Message?: unknown; Name?: unknown; Logs?: unknown} | null;
}

/**
 * One build's entry from `buildx history inspect --format json` output, for the ref and nodes asked (the
 * output's own Ref wins when it has one). The error is docker's: the message, else the failed step's name
 * and logs; none for a cancelled build. Throws when the output is not a JSON object.
 */
export function parseHistoryInspect(stdout: string, ref: string, node?: string): BuildRecordEntry {
  const parsed: unknown = JSON.parse(stdout);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('buildx history inspect printed no JSON object');
  }
  const j = parsed as InspectJson;
  const entry: BuildRecordEntry = {ref: str(j.Ref) ?? ref};
  if (node !== undefined) entry.node = node;
  const name = str(j.Name);
  if (name !== undefined) entry.name = name;
  const status = str(j.Status);
  if (status !== undefined) entry.status = status;
  if (typeof j.Duration === 'number') entry.durationMs = Math.round(j.Duration / 1e6);
  if (typeof j.NumCachedSteps === 'number') entry.numCachedSteps = j.NumCachedSteps;
  if (typeof j.NumTotalSteps === 'number') entry.numTotalSteps = j.NumTotalSteps;
  if (typeof j.NumCompletedSteps === 'number') entry.numCompletedSteps = j.NumCompletedSteps;
  const error = j.Error && status !== 'canceled' ? errorText(j.Error) : undefined;
  if (error) entry.error = error;
  return entry;
}

function errorText(e: NonNullable<InspectJson['Error']>): string | undefined {
  const message = str(e.Message);
  if (message) return message;
  const name = str(e.Name);
  const logs = Array.isArray(e.Logs) ? e.Logs.filter(l => typeof l === 'string').join('\n') : '';
  return name && logs ? `=> ${name}\n${logs}` : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
