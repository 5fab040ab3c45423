import {randomBytes} from 'node:crypto';
import {ENDPOINT_FRONTS} from './builder-endpoint.js';
import {CI_ROUTE_NAMES} from './ci-route-names.js';

/** API routes a fault can target; 'any' matches every /api/v1 request, unknown routes included. */
export const FAULT_ROUTES = [
  'assign',
  'details',
  'teardown',
  'profiles',
  'cache-reset',
  ...CI_ROUTE_NAMES,
  'any'
] as const;
export type FaultRoute = (typeof FAULT_ROUTES)[number];

/**
 * How a builder's TLS front behaves: a profile's `front`, or a builder fault (which wins over the profile).
 * 'wrong-server-cert' presents a server certificate for another host name; the others are EndpointFront
 * (builder-endpoint.ts): keep-open, close-after-handshake, reset-after-handshake, close-idle,
 * refuse-client-cert, drop-client-cert, no-http2, never-answer.
 */
export const BUILDER_FRONTS = [...ENDPOINT_FRONTS, 'wrong-server-cert'] as const;
export type BuilderFront = (typeof BUILDER_FRONTS)[number];

/** True for a behaviour that is a TLS front. */
export function isBuilderFront(value: unknown): value is BuilderFront {
  return (BUILDER_FRONTS as readonly unknown[]).includes(value);
}

/** Builder behaviours a fault can impose on builders assigned after it is added. */
export const BUILDER_BEHAVIOURS = [
  'never-ready',
  'fail',
  'fail-after-ms',
  'missing-pem',
  'malformed-pem',
  'tls-refuse',
  'tls-wrong-ca',
  ...BUILDER_FRONTS
] as const;
export type BuilderBehaviour = (typeof BUILDER_BEHAVIOURS)[number];

/**
 * ApiFaultRule changes how the emulator answers matching API requests.
 * - action 'respond' (the default when `status` or `body` is set): answer with status (default 500), body and headers.
 * - action 'reset': destroy the socket without answering.
 * - action 'hang': never answer (until the emulator closes).
 * - with neither action, status nor body, the rule only adds `delayMs` and the request proceeds normally.
 * `processFirst` performs the real request first and then applies the fault (a lost response).
 */
export interface ApiFaultRule {
  route: FaultRoute;
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  action?: 'respond' | 'reset' | 'hang';
  /** How many requests the rule applies to; unlimited when absent. */
  times?: number;
  processFirst?: boolean;
  /** Only requests naming this builder in their path. */
  builderId?: string;
  /** Only requests about this profile (by name): assign's profile_name, a builder's profile, a cache reset's profile. */
  profile?: string;
  /**
   * Entries added to the `builder_instances` of the real answer (the request is processed): an odd but legal
   * assign answer, e.g. `[{"id": ""}, null, 7]` next to the builders really assigned (and billed).
   */
  appendEntries?: unknown[];
}

/**
 * BuilderFaultRule changes builders assigned afterwards (one use of `times` per builder).
 * - 'never-ready': stays pending (until markReady).
 * - 'fail': goes to 'failed' when it would have become ready.
 * - 'fail-after-ms': becomes ready, then fails `afterMs` (default 1000) later.
 * - 'missing-pem': ready, but the details omit ca, client_cert and client_key.
 * - 'malformed-pem': ready, but the three PEM strings have a corrupt body.
 * - 'tls-refuse': ready, but `host` points to a port nobody listens on.
 * - 'tls-wrong-ca': ready, but `ca` is a CA that did not sign the server certificate.
 * - a BuilderFront: ready, behind that TLS front ('close-idle' closes after `idleMs`, default 200).
 */
export interface BuilderFaultRule {
  route: 'builder';
  behaviour: BuilderBehaviour;
  afterMs?: number;
  /** 'close-idle' only: how long a connection may stay silent after the handshake. */
  idleMs?: number;
  profile?: string;
  times?: number;
}

/** A fault rule: an API fault or a builder behaviour. */
export type FaultRule = ApiFaultRule | BuilderFaultRule;

/** A rule as stored, with its id. */
export type StoredFault = FaultRule & {id: string};

/** What a request is about, for matching API faults. */
export interface FaultRequestInfo {
  /** The matched route, or 'unknown'. */
  route: Exclude<FaultRoute, 'any'> | 'unknown';
  builderId?: string;
  profile?: string;
}

/** Validates a rule received as JSON; throws an Error naming the bad field. */
export function parseFaultRule(input: unknown): FaultRule {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new Error('Fault rule must be a JSON object');
  }
  const r = input as Record<string, unknown>;
  const optional = (field: string, ok: (v: unknown) => boolean, what: string): void => {
    if (r[field] !== undefined && !ok(r[field])) throw new Error(`Fault rule "${field}" must be ${what}`);
  };
  const isString = (v: unknown): boolean => typeof v === 'string';
  const isNonNegative = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const isPositiveInt = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 1;
  optional('times', isPositiveInt, 'a positive integer');
  optional('profile', isString, 'a string');
  if (r.route === 'builder') {
    if (!(BUILDER_BEHAVIOURS as readonly unknown[]).includes(r.behaviour)) {
      throw new Error(`Fault rule "behaviour" must be one of ${BUILDER_BEHAVIOURS.join(', ')}`);
    }
    optional('afterMs', isNonNegative, 'a non-negative number');
    optional('idleMs', v => isNonNegative(v) && (v as number) > 0, 'a positive number');
    return pick(r, ['route', 'behaviour', 'afterMs', 'idleMs', 'profile', 'times']) as unknown as BuilderFaultRule;
  }
  if (!(FAULT_ROUTES as readonly unknown[]).includes(r.route)) {
    throw new Error(`Fault rule "route" must be one of ${[...FAULT_ROUTES, 'builder'].join(', ')}`);
  }
  optional('status', v => Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 599, 'an HTTP status');
  optional('body', isString, 'a string');
  optional(
    'headers',
    v => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(isString),
    'an object of strings'
  );
  optional('delayMs', isNonNegative, 'a non-negative number');
  optional('action', v => v === 'respond' || v === 'reset' || v === 'hang', "'respond', 'reset' or 'hang'");
  optional('processFirst', v => typeof v === 'boolean', 'a boolean');
  optional('builderId', isString, 'a string');
  optional('appendEntries', Array.isArray, 'an array');
  return pick(r, [
    'route',
    'status',
    'body',
    'headers',
    'delayMs',
    'action',
    'times',
    'processFirst',
    'builderId',
    'profile',
    'appendEntries'
  ]) as unknown as ApiFaultRule;
}

function pick(r: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (r[k] !== undefined) out[k] = r[k];
  return out;
}

/** True for a rule that changes builders rather than API responses. */
export function isBuilderFault(rule: FaultRule): rule is BuilderFaultRule {
  return rule.route === 'builder';
}

/** FaultInjector holds the active fault rules; the first matching rule with uses left applies. */
export class FaultInjector {
  readonly #rules: {rule: StoredFault; left: number}[] = [];

  /** Adds a rule (validated) and returns its id. */
  add(rule: FaultRule): string {
    const parsed = parseFaultRule(rule);
    const id = `flt_${randomBytes(6).toString('hex')}`;
    this.#rules.push({rule: {...parsed, id}, left: parsed.times ?? Infinity});
    return id;
  }

  /** Removes one rule; false when unknown. */
  remove(id: string): boolean {
    const i = this.#rules.findIndex(r => r.rule.id === id);
    if (i < 0) return false;
    this.#rules.splice(i, 1);
    return true;
  }

  clear(): void {
    this.#rules.length = 0;
  }

  /** Active rules with their remaining uses (null = unlimited). */
  list(): (StoredFault & {remaining: number | null})[] {
    return this.#rules.map(r => ({...r.rule, remaining: Number.isFinite(r.left) ? r.left : null}));
  }

  /** Takes one use of the first API rule matching the request. */
  takeApiFault(info: FaultRequestInfo): (ApiFaultRule & {id: string}) | undefined {
    const hit = this.#rules.find(({rule, left}) => {
      if (left <= 0 || isBuilderFault(rule)) return false;
      if (rule.route !== 'any' && rule.route !== info.route) return false;
      if (rule.builderId !== undefined && rule.builderId !== info.builderId) return false;
      if (rule.profile !== undefined && rule.profile !== info.profile) return false;
      return true;
    });
    return hit ? (this.#consume(hit) as ApiFaultRule & {id: string}) : undefined;
  }

  /** Takes one use of the first builder rule for a builder of `profile`. */
  takeBuilderFault(profile: string): (BuilderFaultRule & {id: string}) | undefined {
    const hit = this.#rules.find(
      ({rule, left}) => left > 0 && isBuilderFault(rule) && (rule.profile === undefined || rule.profile === profile)
    );
    return hit ? (this.#consume(hit) as BuilderFaultRule & {id: string}) : undefined;
  }

  #consume(entry: {rule: StoredFault; left: number}): StoredFault {
    entry.left -= 1;
    if (entry.left <= 0) this.remove(entry.rule.id);
    return entry.rule;
  }
}
