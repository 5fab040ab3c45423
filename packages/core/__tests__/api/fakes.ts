import {abortReason, systemClock, type Clock, type Deadline, type DeadlineOpts} from '../../src/clock.js';
import type {Logger} from '../../src/logger.js';
import {TransportError, type HttpRequest, type HttpResponse, type HttpTransport} from '../../src/api/http-transport.js';

/** One scripted answer: a response, a transport error, or a function of the request. */
export type Step = HttpResponse | TransportError | ((req: HttpRequest) => HttpResponse | Promise<HttpResponse>);

/** FakeTransport records requests and replays scripted steps in order; an unscripted request fails the test. */
export class FakeTransport implements HttpTransport {
  readonly requests: HttpRequest[] = [];
  closed = false;
  readonly #steps: Step[];

  constructor(...steps: Step[]) {
    this.#steps = steps;
  }

  push(...steps: Step[]): this {
    this.#steps.push(...steps);
    return this;
  }

  get remaining(): number {
    return this.#steps.length;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    this.requests.push(req);
    const step = this.#steps.shift();
    if (step === undefined) throw new Error(`FakeTransport: unscripted request ${req.method} ${req.url}`);
    if (step instanceof TransportError) throw step;
    if (typeof step === 'function') return step(req);
    return step;
  }

  close(): void {
    this.closed = true;
  }
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {status, headers: {'content-type': 'application/json', ...headers}, body: JSON.stringify(body)};
}

/** A plain-text response. */
export function text(status: number, body: string, headers: Record<string, string> = {}): HttpResponse {
  return {status, headers: {'content-type': 'text/plain', ...headers}, body};
}

export function transportError(code: string, notSent: boolean): TransportError {
  return new TransportError(`fake ${code}`, {code, notSent});
}

/**
 * FakeClock records every sleep and returns at once (time advances by the slept amount). Its deadlines run
 * on real timers (the time limits of these tests are the transports', which they do not reach).
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  /** Called at the start of every sleep, e.g. to abort a controller. */
  onSleep?: (ms: number) => void;

  constructor(public t = Date.UTC(2026, 0, 1, 12, 0, 0)) {}

  now(): number {
    return this.t;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    this.onSleep?.(ms);
    if (signal?.aborted) throw abortReason(signal);
    this.t += ms;
  }

  deadline(ms: number | undefined, opts?: DeadlineOpts): Deadline {
    return systemClock.deadline(ms, opts);
  }
}

/** RecordingLogger keeps every line per level, and the secrets it was given. */
export class RecordingLogger implements Logger {
  readonly lines: {level: string; message: string}[] = [];
  readonly secrets: string[] = [];

  debug(message: string): void {
    this.lines.push({level: 'debug', message});
  }
  info(message: string): void {
    this.lines.push({level: 'info', message});
  }
  untrusted(message: string): void {
    this.lines.push({level: 'untrusted', message});
  }
  warning(message: string): void {
    this.lines.push({level: 'warning', message});
  }
  error(message: string): void {
    this.lines.push({level: 'error', message});
  }
  group<T>(_title: string, fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  setSecret(value: string): void {
    this.secrets.push(value);
  }

  get text(): string {
    return this.lines.map(l => l.message).join('\n');
  }
}
