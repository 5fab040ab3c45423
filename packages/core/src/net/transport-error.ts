export interface TransportErrorOpts {
  /** ECONNREFUSED, ECONNRESET, ETIMEDOUT (our timeout), EABORTED, ENOTFOUND, ECLOSED, … */
  code: string;
  /** True only when the request provably never left this process (no connection was established). */
  notSent: boolean;
  cause?: unknown;
}

/** TransportError is a request that got no complete response. */
export class TransportError extends Error {
  readonly code: string;
  readonly notSent: boolean;

  constructor(message: string, opts: TransportErrorOpts) {
    super(message, {cause: opts.cause});
    this.name = 'TransportError';
    this.code = opts.code;
    this.notSent = opts.notSent;
  }
}
