import {abortReason} from '../../src/clock.js';
import {ApiError} from '../../src/errors.js';
import type {AssignResponse, BuilderDetails, BuilderMetadata} from '../../src/api/types.js';
import type {BuilderApi} from '../../src/api/builder-api.js';
import {TEST_PEMS} from './pems.js';

type Answer<T, A> = T | Error | ((arg: A) => T | Promise<T>);
export type AssignStep = Answer<AssignResponse, {profile: string; signal?: AbortSignal}>;
export type DetailsStep = Answer<BuilderDetails, {id: string; signal?: AbortSignal}>;
export type TeardownStep = Answer<{alreadyGone: boolean}, {id: string; signal?: AbortSignal}>;

/**
 * FakeBuilderApi answers from scripts keyed by profile (assign) or builder id (details, teardown).
 * Every call is recorded and pushed onto `events` (shareable with a RecordingStateStore) as
 * `assign:<profile>`, `details:<id>`, `teardown:<id>`. Scripts are consumed in order; the last
 * details step repeats forever. Unscripted assigns and details fail the call; unscripted teardowns succeed.
 */
export class FakeBuilderApi implements BuilderApi {
  readonly assignCalls: {profile: string; signal?: AbortSignal}[] = [];
  readonly detailsCalls: {id: string; signal?: AbortSignal; retry?: boolean}[] = [];
  readonly teardownCalls: {id: string; signal?: AbortSignal; retry?: boolean}[] = [];
  readonly #assign = new Map<string, AssignStep[]>();
  readonly #details = new Map<string, DetailsStep[]>();
  readonly #teardown = new Map<string, TeardownStep[]>();

  constructor(readonly events: string[] = []) {}

  onAssign(profile: string, ...steps: AssignStep[]): this {
    this.#assign.set(profile, [...(this.#assign.get(profile) ?? []), ...steps]);
    return this;
  }

  onDetails(id: string, ...steps: DetailsStep[]): this {
    this.#details.set(id, [...(this.#details.get(id) ?? []), ...steps]);
    return this;
  }

  onTeardown(id: string, ...steps: TeardownStep[]): this {
    this.#teardown.set(id, [...(this.#teardown.get(id) ?? []), ...steps]);
    return this;
  }

  async assignBuilder(profile: string, opts: {signal?: AbortSignal} = {}): Promise<AssignResponse> {
    this.assignCalls.push({profile, signal: opts.signal});
    this.events.push(`assign:${profile}`);
    const step = this.#assign.get(profile)?.shift();
    if (step === undefined) throw new Error(`FakeBuilderApi: unscripted assign of profile "${profile}"`);
    return answer(step, {profile, signal: opts.signal});
  }

  async getBuilderDetails(id: string, opts: {signal?: AbortSignal; retry?: boolean} = {}): Promise<BuilderDetails> {
    this.detailsCalls.push({id, ...opts});
    this.events.push(`details:${id}`);
    const steps = this.#details.get(id);
    if (!steps || steps.length === 0) throw new Error(`FakeBuilderApi: unscripted details of builder "${id}"`);
    const step = steps.length > 1 ? (steps.shift() as DetailsStep) : steps[0];
    return answer(step as DetailsStep, {id, signal: opts.signal});
  }

  async teardownBuilder(
    id: string,
    opts: {signal?: AbortSignal; retry?: boolean} = {}
  ): Promise<{alreadyGone: boolean}> {
    this.teardownCalls.push({id, signal: opts.signal, ...(opts.retry !== undefined ? {retry: opts.retry} : {})});
    this.events.push(`teardown:${id}`);
    const step = this.#teardown.get(id)?.shift() ?? {alreadyGone: false};
    return answer(step, {id, signal: opts.signal});
  }

  /** Ids passed to teardownBuilder, in call order. */
  get tornDown(): string[] {
    return this.teardownCalls.map(c => c.id);
  }

  detailsCount(id: string): number {
    return this.detailsCalls.filter(c => c.id === id).length;
  }
}

async function answer<T, A>(step: Answer<T, A>, arg: A): Promise<T> {
  if (step instanceof Error) throw step;
  if (typeof step === 'function') return (step as (a: A) => T | Promise<T>)(arg);
  return structuredClone(step);
}

/** An assignment answer with these builder ids. */
export function assigned(...ids: string[]): AssignResponse {
  return {builder_instances: ids.map(id => ({id}))};
}

/** Details of a ready builder: every field present (dummy but well-formed PEMs). */
export function readyDetails(
  host: string,
  extra: Partial<BuilderDetails> = {},
  metadata: Partial<BuilderMetadata> = {}
): BuilderDetails {
  return {
    ...extra,
    metadata: {host, ca: TEST_PEMS.ca, client_cert: TEST_PEMS.cert, client_key: TEST_PEMS.key, ...metadata}
  };
}

/** Details of a builder still starting: no host, no TLS material. */
export function pendingDetails(extra: Partial<BuilderDetails> = {}): BuilderDetails {
  return {...extra, metadata: {host: '', ca: '', client_cert: '', client_key: ''}};
}

/** An ApiError with an HTTP status, as the client throws it. */
export function httpError(call: string, status: number, bodyExcerpt?: string): ApiError {
  return new ApiError({call, status, ...(bodyExcerpt ? {bodyExcerpt} : {})});
}

/** A promise the test settles by hand. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(e: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {promise, resolve, reject};
}

/** A step that never answers unless its signal aborts (then it rejects with the reason). */
export function hangUntilAborted<T>(arg: {signal?: AbortSignal}): Promise<T> {
  return new Promise<T>((_resolve, reject) => {
    const signal = arg.signal;
    if (!signal) return;
    if (signal.aborted) return reject(abortReason(signal));
    signal.addEventListener('abort', () => reject(abortReason(signal)), {once: true});
  });
}
