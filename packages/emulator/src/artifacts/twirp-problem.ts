import type {HttpResult} from '../http.js';

/** Twirp's error codes the artifact service answers with, and their HTTP statuses (twitchtv/twirp, errors.go). */
export enum TwirpCode {
  InvalidArgument = 'invalid_argument',
  Unauthenticated = 'unauthenticated',
  PermissionDenied = 'permission_denied',
  NotFound = 'not_found',
  BadRoute = 'bad_route',
  AlreadyExists = 'already_exists',
  FailedPrecondition = 'failed_precondition',
  ResourceExhausted = 'resource_exhausted',
  Internal = 'internal',
  Unavailable = 'unavailable'
}

const STATUS: Record<TwirpCode, number> = {
  [TwirpCode.InvalidArgument]: 400,
  [TwirpCode.Unauthenticated]: 401,
  [TwirpCode.PermissionDenied]: 403,
  [TwirpCode.NotFound]: 404,
  [TwirpCode.BadRoute]: 404,
  [TwirpCode.AlreadyExists]: 409,
  [TwirpCode.FailedPrecondition]: 412,
  [TwirpCode.ResourceExhausted]: 429,
  [TwirpCode.Internal]: 500,
  [TwirpCode.Unavailable]: 503
};

/** The Twirp code of an HTTP status (for injected faults given as a status). */
export function twirpCodeOf(status: number): TwirpCode {
  const exact = (Object.keys(STATUS) as TwirpCode[]).find(code => STATUS[code] === status);
  if (exact !== undefined) return exact;
  return status >= 500 ? TwirpCode.Internal : TwirpCode.InvalidArgument;
}

/**
 * TwirpProblem is a call the artifact service refuses: Twirp's JSON error `{"code", "msg"}` with the code's status.
 * @actions/artifact retries 429 and 500/502/503/504 and puts `msg` in its error (`Failed request: (409) Conflict: <msg>`).
 */
export class TwirpProblem extends Error {
  constructor(
    readonly code: TwirpCode,
    message: string,
    readonly status = STATUS[code]
  ) {
    super(message);
    this.name = 'TwirpProblem';
  }

  toResult(): HttpResult {
    return {status: this.status, body: {code: this.code, msg: this.message}};
  }
}
