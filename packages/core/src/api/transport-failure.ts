import {ApiError, type ApiCall} from '../errors.js';
import {isLoopback} from '../loopback.js';
import {ProxyError} from '../net/proxy-error.js';
import {TransportError} from './http-transport.js';
import type {ApiInputNames} from './input-names.js';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** A request that got no complete answer: the transport's code, whether it provably was not sent, the cause. */
export interface TransportFailure {
  code: string;
  notSent: boolean;
  cause: unknown;
}

export function transportFailure(e: unknown): TransportFailure {
  if (e instanceof TransportError) return {code: e.code, notSent: e.notSent, cause: e};
  const code = (e as {code?: unknown} | null)?.code;
  return {code: typeof code === 'string' && code !== '' ? code : 'ENETWORK', notSent: false, cause: e};
}

/** A TLS error from a server that answered in plain HTTP (OpenSSL's "wrong version number"). */
export function answeredPlainHttp(failure: TransportFailure): boolean {
  const message = failure.cause instanceof Error ? failure.cause.message : '';
  return failure.code === 'EPROTO' && /wrong version number/i.test(message);
}

export interface TransportApiErrorOpts {
  call: ApiCall;
  /** The service root the call went to. */
  base: string;
  names: Readonly<ApiInputNames>;
  attempts: number;
  timeoutMs: number;
  /** For calls that are not idempotent: what to check when the request may have been processed. */
  unknownOutcomeHint?: string;
}

/** The ApiError of a call whose last attempt got no answer, with a hint that says what to check. */
export function transportApiError(failure: TransportFailure, o: TransportApiErrorOpts): ApiError {
  let hint: string | undefined;
  // A failure on the way through the proxy says which proxy and what to check: keep it whole.
  if (failure.cause instanceof ProxyError) hint = failure.cause.message;
  else if (answeredPlainHttp(failure)) hint = plainHttpHint(o.base, o.names);
  else if (failure.code === 'ETIMEDOUT') hint = `no answer within ${o.timeoutMs} ms`;
  else if (UNREACHABLE_CODES.has(failure.code))
    hint = `cannot reach ${new URL(o.base).origin}: check the API URL and the network`;
  else if (failure.code === 'ECONNRESET') hint = 'the connection was closed before the response was complete';
  if (o.unknownOutcomeHint && !failure.notSent) hint = hint ? `${hint}; ${o.unknownOutcomeHint}` : o.unknownOutcomeHint;
  return new ApiError({
    call: o.call,
    code: failure.code,
    notSent: failure.notSent,
    hint: withAttempts(hint, o.attempts),
    cause: failure.cause
  });
}

/** A TLS handshake that got plain HTTP back: the URL says https, the server speaks http. */
export function plainHttpHint(base: string, names: Readonly<ApiInputNames>): string {
  const url = new URL(base);
  const plain = `http://${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  const fix = isLoopback(url.hostname)
    ? `use ${plain}`
    : `set ${names.apiUrl} to the service's HTTPS address (plain http:// is accepted only to a loopback host, such as a local emulator)`;
  return `the server at ${url.origin} answered in plain HTTP, not TLS: ${fix}`;
}

export function withAttempts(hint: string | undefined, attempts: number): string | undefined {
  if (attempts <= 1) return hint;
  const gaveUp = `gave up after ${attempts} attempts`;
  return hint ? `${hint}; ${gaveUp}` : gaveUp;
}
