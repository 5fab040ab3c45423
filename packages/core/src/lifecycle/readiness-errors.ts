/** The builder reported `failed` (or was terminated) while we waited, or its details can never be used. */
export class BuilderFailedError extends Error {
  constructor(
    readonly builderId: string,
    message: string
  ) {
    super(message);
    this.name = 'BuilderFailedError';
  }
}

/** The builder was not ready by the deadline. */
export class BuilderTimeoutError extends Error {
  constructor(
    readonly builderId: string,
    message: string,
    /**
     * Set when what kept the builder from being ready at the deadline was the service failing (5xx, no
     * answer, refused connections) rather than the builder still starting: a longer timeout would not help.
     */
    readonly serviceFailure?: string,
    /** With serviceFailure: the last request got no answer at all (slow or down: we cannot tell which). */
    readonly serviceSilent = false
  ) {
    super(message);
    this.name = 'BuilderTimeoutError';
  }
}

/**
 * The message for a timed-out provision: "raise the timeout" when the builder was still starting; when the
 * service kept failing until the deadline, a longer timeout would not help, and the message says so; when
 * it stopped answering, we cannot tell a slow service from a down one, so the advice names both.
 */
export function explainTimeout(e: unknown, timeoutMs: number, timeoutInput: string): unknown {
  if (!(e instanceof BuilderTimeoutError)) return e;
  // A CLI flag (`--timeout`) is named as typed; an action input as `the "timeout" input`.
  const setting = timeoutInput.startsWith('-') ? timeoutInput : `the "${timeoutInput}" input`;
  const advice =
    e.serviceFailure === undefined
      ? `raise ${setting} if the profile needs longer to start`
      : e.serviceSilent
        ? `the service did not answer its last request, so raise ${setting} only if the service is slow rather than down, and check the service's status if it persists`
        : `the service kept failing until then, so a longer "${timeoutInput}" would not help: try again later, and check the service's status if it persists`;
  return new Error(`${e.message}. Timed out after ${timeoutMs} ms: ${advice}`, {cause: e});
}
