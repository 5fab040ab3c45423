// Our own retry code, not a library's: Retry-After capped by a deadline, and "provably unsent" retries of non-idempotent calls.
export interface RetryPolicyOpts {
  /** Attempts in total, the first one included (default 4). 1 disables retries. */
  maxAttempts: number;
  /** Backoff ceiling of the first retry; doubles per retry (default 200 ms). */
  baseDelayMs: number;
  /** Largest backoff ceiling (default 5000 ms). */
  maxDelayMs: number;
  /** Largest wait a Retry-After header may ask for (default 30000 ms); longer asks are shortened to it. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicyOpts> = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30000
});

/** What went wrong with one attempt, as far as retrying is concerned. */
export interface AttemptFailure {
  /** HTTP status when a response arrived. */
  status?: number;
  /** Transport error code when none arrived. */
  code?: string;
  /** True when the request provably never left this process. */
  notSent?: boolean;
}

export interface RetryPolicyInit extends Partial<RetryPolicyOpts> {
  /** Source of jitter in [0, 1); defaults to Math.random. */
  random?: () => number;
}

/** Transport codes that are never worth another attempt: the caller gave up, or the client was closed. */
// A proxy that refuses our credentials or the tunnel, or a proxy variable we cannot use, answers the same again.
const FINAL_CODES = new Set([
  'EABORTED',
  'ECLOSED',
  'EINVALIDURL',
  'EPROTOCOL',
  'EPROXYAUTH',
  'EPROXYFORBIDDEN',
  'EPROXYCONFIG'
]);

/**
 * RetryPolicy decides whether a failed attempt is retried and how long to wait first:
 * exponential backoff with full jitter, or the server's Retry-After (capped).
 */
export class RetryPolicy {
  readonly opts: Readonly<RetryPolicyOpts>;
  readonly #random: () => number;

  constructor(init: RetryPolicyInit = {}) {
    const {random, ...rest} = init;
    const opts: RetryPolicyOpts = {...DEFAULT_RETRY_POLICY};
    for (const [k, v] of Object.entries(rest) as [keyof RetryPolicyOpts, number | undefined][]) {
      if (v !== undefined) opts[k] = v;
    }
    if (!Number.isInteger(opts.maxAttempts) || opts.maxAttempts < 1) {
      throw new RangeError(`RetryPolicy: maxAttempts must be an integer >= 1, got ${opts.maxAttempts}`);
    }
    for (const k of ['baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
      if (!Number.isFinite(opts[k]) || opts[k] < 0)
        throw new RangeError(`RetryPolicy: ${k} must be >= 0, got ${opts[k]}`);
    }
    this.opts = Object.freeze(opts);
    this.#random = random ?? Math.random;
  }

  /**
   * Whether a failure may be retried. Idempotent calls retry on transport errors, 408, 429 and 5xx (but 501/505).
   * Non-idempotent calls retry only when the request cannot have been processed: 429, 503 or a provably unsent request.
   */
  isRetryable(failure: AttemptFailure, idempotent: boolean): boolean {
    const {status} = failure;
    if (status === undefined) {
      if (failure.code !== undefined && FINAL_CODES.has(failure.code)) return false;
      return idempotent || failure.notSent === true;
    }
    if (status === 429 || status === 503) return true;
    if (!idempotent) return false;
    return status === 408 || (status >= 500 && status <= 599 && status !== 501 && status !== 505);
  }

  /** Full-jitter backoff before retry number `retry` (1 = first retry): uniform in [0, min(max, base·2^(retry-1))). */
  backoffMs(retry: number): number {
    const ceiling = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** Math.max(0, retry - 1));
    const r = Math.min(Math.max(this.#random(), 0), 1);
    return Math.floor(r * ceiling);
  }

  /** Wait before retry number `retry`: the server's Retry-After when it gave a valid one (capped), else backoff. */
  delayMs(retry: number, retryAfter: string | undefined, nowMs: number): number {
    const asked = parseRetryAfterMs(retryAfter, nowMs);
    if (asked !== undefined) return Math.min(asked, this.opts.maxRetryAfterMs);
    return this.backoffMs(retry);
  }
}

/**
 * Milliseconds a Retry-After header value asks for: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
 * Dates in the past give 0; anything unparsable gives undefined.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // HTTP-dates start with a day name; V8's Date.parse would also take things like "-3" or "1.5".
  if (!/^[A-Za-z]/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
