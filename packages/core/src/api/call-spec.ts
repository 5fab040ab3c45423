import type {ApiCall} from '../errors.js';
import type {HttpMethod} from './http-transport.js';

/** Per-call options: abort with `signal` (rejects with the signal's reason); `timeoutMs` per attempt instead of the engine's. */
export interface CallOpts {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** One logical API call: what to send, how to retry, what to say when it fails. */
export interface CallSpec extends CallOpts {
  /** Who sends it, for debug logs, e.g. `BuildersClient.assignBuilder`. */
  method: string;
  call: ApiCall;
  httpMethod: HttpMethod;
  /** Path below the base URL, path params already encoded (see pathParam). */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Whether repeating the request is harmless; decides which failures are retried. */
  idempotent: boolean;
  retry: boolean;
  notFoundHint?: string;
  /** Added to the 401/403 hints: which scopes the call needs. */
  scopeHint?: string;
  /** For calls that are not idempotent: what to check when the request may have been processed without an answer. */
  unknownOutcomeHint?: string;
}
