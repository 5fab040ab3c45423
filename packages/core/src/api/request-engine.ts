import {abortReason, systemClock, type Clock} from '../clock.js';
import {ApiError} from '../errors.js';
import type {CallSpec} from './call-spec.js';
import {nullLogger, type Logger} from '../logger.js';
import {USER_AGENT} from '../version.js';
import {bodyExcerpt} from './body-excerpt.js';
import {serviceMessage} from './service-message.js';
import {SDK_INPUT_NAMES, type ApiInputNames} from './input-names.js';
import {answeredPlainHttp, transportApiError, transportFailure, withAttempts} from './transport-failure.js';
import {NodeHttpTransport, type HttpResponse, type HttpTransport} from './http-transport.js';
import type {ReadResult} from './response-readers.js';
import {doubledPrefixHint, statusHint} from './status-hint.js';
import {parseRetryAfterMs, RetryPolicy, type RetryPolicyOpts} from './retry-policy.js';

export interface RequestEngineOpts {
  /** Service root, e.g. `https://api.example.com` or `https://host/prefix/`; `/api/v1/…` is appended. */
  baseUrl: string;
  /** API key, sent as `Authorization: Bearer <token>`; never logged nor put into messages. */
  token: string;
  transport?: HttpTransport;
  clock?: Clock;
  logger?: Logger;
  /** Per attempt: connect, request and whole response (default 15000 ms). */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicyOpts>;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  userAgent?: string;
  /**
   * How hints name the URL, the key and the profile to fix: the SDK's own names by default (`baseUrl`, `token`);
   * the actions pass their inputs (ACTION_INPUT_NAMES), the CLI its flags.
   */
  inputNames?: Partial<ApiInputNames>;
}

export {ACTION_INPUT_NAMES, SDK_INPUT_NAMES, type ApiInputNames} from './input-names.js';

/** What a client of the service is built from: the engine's options, or an engine shared with another client. */
export type ClientOpts = RequestEngineOpts | {engine: RequestEngine};

/** The last response of a call and how many attempts it took. */
export interface Sent {
  res: HttpResponse;
  attempts: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 15000;

/**
 * RequestEngine sends the calls of the service's clients: it adds the API key and user agent, retries
 * transient failures with exponential backoff and full jitter (honouring Retry-After), retries calls that
 * are not idempotent only when the service cannot have processed them, and turns every failure into an
 * ApiError that names the call and says what to do (status hints, proxy and network hints, attempts).
 * An aborted signal rejects with its reason.
 */
export class RequestEngine {
  readonly #token: string;
  readonly #base: string;
  readonly #transport: HttpTransport;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #policy: RetryPolicy;
  readonly #userAgent: string;
  readonly #names: ApiInputNames;
  /** Per request line: the last outcome logged and how many answers since said the same (see #debugOutcome). */
  readonly #lastOutcome = new Map<string, {outcome: string; same: number}>();

  constructor(opts: RequestEngineOpts) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new TypeError(`API client: baseUrl "${opts.baseUrl}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`API client: baseUrl "${opts.baseUrl}" must be an http or https URL`);
    }
    const timeoutMs = validTimeout(opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, 'requestTimeoutMs');
    this.#base = url.origin + url.pathname.replace(/\/+$/, '');
    this.#token = opts.token;
    this.#clock = opts.clock ?? systemClock;
    this.#transport = opts.transport ?? new NodeHttpTransport({clock: this.#clock});
    this.#logger = opts.logger ?? nullLogger;
    this.#timeoutMs = timeoutMs;
    this.#policy = new RetryPolicy({...opts.retry, random: opts.random});
    this.#userAgent = opts.userAgent ?? USER_AGENT;
    this.#names = {...SDK_INPUT_NAMES, ...opts.inputNames};
    if (this.#token !== '') this.#logger.setSecret(this.#token);
  }

  /** The engine of a client's options: the one given, or a new one. */
  static of(opts: ClientOpts): RequestEngine {
    return 'engine' in opts ? opts.engine : new RequestEngine(opts);
  }

  /** The base URL without a trailing slash, for hints. */
  get baseUrl(): string {
    return this.#base;
  }

  /** How hints name the settings to fix. */
  get inputNames(): Readonly<ApiInputNames> {
    return this.#names;
  }

  /**
   * Debug logging says what changed, not every poll: a request line is logged when its outcome (a status or
   * a network error code) differs from the last one logged for the same line, with how many answers in
   * between said the same; a wait that polls one builder's details 4 times a second for minutes logs a few
   * lines, not hundreds.
   */
  #debugOutcome(method: string, target: string, outcome: string, detail: string): void {
    const last = this.#lastOutcome.get(target);
    if (last?.outcome === outcome) {
      last.same++;
      return;
    }
    const since = last && last.same > 0 ? ` (after ${last.same} more of ${last.outcome})` : '';
    this.#lastOutcome.set(target, {outcome, same: 0});
    this.#logger.debug(`${method}: ${target} → ${outcome} ${detail}${since}`);
  }

  /** Sends one call, fails on a non-2xx status, and reads the body with `reader`. */
  async call<T>(spec: CallSpec, reader: (body: string) => ReadResult<T>, extraHint?: string): Promise<T> {
    const sent = await this.send(spec);
    this.throwUnlessOk(spec, sent);
    return this.read(spec, sent, reader(sent.res.body), extraHint);
  }

  /** Sends one call, retrying as the policy allows; resolves with the last response whatever its status. */
  async send(spec: CallSpec): Promise<Sent> {
    const {signal} = spec;
    const query = spec.query ? `?${new URLSearchParams(spec.query).toString()}` : '';
    const logTarget = `${spec.httpMethod} ${spec.path}${query}`;
    const headers: Record<string, string> = {Accept: 'application/json', 'User-Agent': this.#userAgent};
    if (this.#token !== '') headers.Authorization = `Bearer ${this.#token}`;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['Content-Type'] = 'application/json';
    }
    const maxAttempts = spec.retry ? this.#policy.opts.maxAttempts : 1;
    const timeoutMs = validTimeout(spec.timeoutMs ?? this.#timeoutMs, 'timeoutMs');
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortReason(signal);
      const started = this.#clock.now();
      let res: HttpResponse;
      try {
        res = await this.#transport.request({
          method: spec.httpMethod,
          url: this.#base + spec.path + query,
          headers: {...headers},
          body,
          timeoutMs,
          signal
        });
      } catch (e) {
        if (signal?.aborted) throw abortReason(signal);
        const failure = transportFailure(e);
        this.#debugOutcome(spec.method, logTarget, failure.code, `in ${this.#clock.now() - started} ms`);
        // A plain-HTTP server answers every TLS handshake the same way: not retried.
        const retryable = this.#policy.isRetryable(failure, spec.idempotent) && !answeredPlainHttp(failure);
        if (attempt < maxAttempts && retryable) {
          await this.#backoff(spec, attempt, maxAttempts, undefined);
          continue;
        }
        throw transportApiError(failure, {
          call: spec.call,
          base: this.#base,
          names: this.#names,
          attempts: attempt,
          timeoutMs,
          unknownOutcomeHint: spec.unknownOutcomeHint
        });
      }
      const size = Buffer.byteLength(res.body);
      this.#debugOutcome(
        spec.method,
        logTarget,
        String(res.status),
        `in ${this.#clock.now() - started} ms (${size} bytes)`
      );
      if (
        !isOk(res.status) &&
        attempt < maxAttempts &&
        this.#policy.isRetryable({status: res.status}, spec.idempotent)
      ) {
        await this.#backoff(spec, attempt, maxAttempts, header(res, 'retry-after'));
        continue;
      }
      return {res, attempts: attempt};
    }
  }

  /** Throws the ApiError of a non-2xx answer: status, body excerpt, a hint of what to do, Retry-After. */
  throwUnlessOk(spec: CallSpec, {res, attempts}: Sent): void {
    if (isOk(res.status)) return;
    throw new ApiError({
      call: spec.call,
      status: res.status,
      // The service's message when its body has one, not the raw JSON around it.
      bodyExcerpt: this.#excerpt(serviceMessage(res.body) ?? res.body),
      hint: withAttempts(
        (res.status === 404 ? doubledPrefixHint(this.#base, this.#names) : undefined) ??
          statusHint(spec, res.status, this.#names, header(res, 'location')),
        attempts
      ),
      retryAfterMs: parseRetryAfterMs(header(res, 'retry-after'), this.#clock.now())
    });
  }

  /** Unwraps a reader's result; an unusable 2xx body becomes an "unexpected response" ApiError. */
  read<T>(spec: CallSpec, {res}: Sent, result: ReadResult<T>, extraHint?: string, showBody = true): T {
    if (result.ok) return result.value;
    const hint = `unexpected response: ${result.reason}${extraHint ? `; ${extraHint}` : ''}`;
    throw new ApiError({
      call: spec.call,
      status: res.status,
      bodyExcerpt: showBody ? this.#excerpt(res.body) : undefined,
      hint
    });
  }

  /** Closes the transport (also an injected one): keep-alive sockets no longer hold the process open. */
  close(): void {
    this.#transport.close();
  }

  async #backoff(spec: CallSpec, attempt: number, maxAttempts: number, retryAfter: string | undefined): Promise<void> {
    const delay = this.#policy.delayMs(attempt, retryAfter, this.#clock.now());
    this.#logger.debug(`${spec.method}: retrying in ${delay} ms (attempt ${attempt + 1} of ${maxAttempts})`);
    await this.#clock.sleep(delay, spec.signal);
  }

  #excerpt(body: string): string | undefined {
    return bodyExcerpt(body, [this.#token]) || undefined;
  }
}

/** A path parameter, encoded; throws a TypeError for values that cannot name anything. */
export function pathParam(name: string, value: string): string {
  // '.' and '..' (even percent-encoded) are dot segments that URL parsing would resolve away.
  if (value === '' || value === '.' || value === '..')
    throw new TypeError(`API client: ${name} "${value}" is not valid`);
  return encodeURIComponent(value);
}

function validTimeout(ms: number, name: string): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`API client: ${name} must be > 0, got ${ms}`);
  return ms;
}

function isOk(status: number): boolean {
  return status >= 200 && status <= 299;
}

function header(res: HttpResponse, name: string): string | undefined {
  for (const [k, v] of Object.entries(res.headers)) {
    if (k.toLowerCase() === name) return v;
  }
  return undefined;
}
