/** Which API call failed; used in messages and to choose the fix we suggest. */
export type ApiCall =
  | 'assign builder'
  | 'get builder details'
  | 'tear down builder'
  | 'list builder profiles'
  | 'reset builder profile cache'
  | string;

export interface ApiErrorOpts {
  call: ApiCall;
  /** HTTP status, or undefined when no response arrived (network error, timeout). */
  status?: number;
  /** First bytes of the response body, secrets already excluded. */
  bodyExcerpt?: string;
  /** What the user should do about it. */
  hint?: string;
  /** Network error code (ECONNREFUSED, ECONNRESET, ETIMEDOUT, …) when no response arrived. */
  code?: string;
  /** True when the request provably never reached the service (safe to retry even when not idempotent). */
  notSent?: boolean;
  /** The wait a Retry-After header of the answer asked for, in ms (uncapped). */
  retryAfterMs?: number;
  cause?: unknown;
}

/** ApiError is every failure of a call to the service: it says what failed, with what status, and what to do. */
export class ApiError extends Error {
  readonly call: ApiCall;
  readonly status?: number;
  readonly bodyExcerpt?: string;
  readonly hint?: string;
  readonly code?: string;
  readonly notSent: boolean;
  readonly retryAfterMs?: number;

  constructor(opts: ApiErrorOpts) {
    const what = opts.status !== undefined ? `HTTP ${opts.status}` : (opts.code ?? 'network error');
    const body = opts.bodyExcerpt ? `: ${opts.bodyExcerpt}` : '';
    const hint = opts.hint ? ` (${opts.hint})` : '';
    super(`Failed to ${opts.call}: ${what}${body}${hint}`, {cause: opts.cause});
    this.name = 'ApiError';
    this.call = opts.call;
    this.status = opts.status;
    this.bodyExcerpt = opts.bodyExcerpt;
    this.hint = opts.hint;
    this.code = opts.code;
    this.notSent = opts.notSent ?? false;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

/**
 * An assignment answer that lists some usable builders next to entries that are not (an empty id, null, a
 * number). The usable ones are assigned and billed: the caller must record and tear them down.
 */
export class PartialAssignError extends ApiError {
  /** The ids of the usable entries, in answer order. */
  readonly assignedIds: string[];
  constructor(opts: ApiErrorOpts & {assignedIds: string[]}) {
    super(opts);
    this.name = 'PartialAssignError';
    this.assignedIds = opts.assignedIds;
  }
}

/** InputError is bad user input, caught before anything is assigned. The message names the input and the fix. */
export class InputError extends Error {
  readonly input: string;
  constructor(input: string, message: string) {
    super(`Input "${input}": ${message}`);
    this.name = 'InputError';
    this.input = input;
  }
}

/** Message of any thrown value. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
