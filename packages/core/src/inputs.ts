import {InputError} from './errors.js';
import {isLoopback} from './loopback.js';
import {yamlBoolean} from './yaml-boolean.js';
import {parseBuilderSize} from './billing/builder-size.js';
import {BUILDER_SIZES, type BuilderSize} from './billing/price-table.js';

/** Environment variables the actions read. */
export enum Env {
  ApiKey = 'REMOTE_BUILDER_API_KEY',
  ApiUrl = 'REMOTE_BUILDER_API_URL',
  RunnerToken = 'REMOTE_BUILDER_RUNNER_TOKEN',
  /** Per-request time limit of the API client in ms (default 15000); mainly for tests against a local emulator. */
  RequestTimeoutMs = 'REMOTE_BUILDER_REQUEST_TIMEOUT_MS',
  /** Budget of each teardown in ms: main's after a failure (default 15000), post's and `builder down`'s (30000). */
  TeardownTimeoutMs = 'REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS',
  /** How long after the assignment a details 404 means "not visible yet" rather than "gone", in ms (default 10000). */
  Details404GraceMs = 'REMOTE_BUILDER_DETAILS_404_GRACE_MS',
  /**
   * Where `buildx-version` downloads buildx from, instead of https://github.com/docker/buildx (same layout:
   * `<url>/releases/latest`, `<url>/releases/download/v<version>/<asset>`): a mirror, or a local fake in tests.
   */
  BuildxReleasesUrl = 'REMOTE_BUILDER_BUILDX_RELEASES_URL'
}

/** Longest timeout accepted: a GitHub-hosted job cannot run longer than 6 hours. */
export const MAX_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/**
 * Parses `profile-name`: one profile, or a comma- or newline-separated list tried in order.
 */
export function parseProfileNames(raw: string, input = 'profile-name'): string[] {
  const names = raw
    .split(/[,\n]/)
    .map(s => s.trim())
    .filter(s => s !== '');
  if (names.length === 0) {
    throw new InputError(
      input,
      'is required: set it to the name of a builder profile from the web UI (or a comma-separated list to try in order)'
    );
  }
  for (const n of names) {
    if (n.length > 200 || hasControlChars(n)) {
      throw new InputError(
        input,
        `"${n.slice(0, 40)}" is not a profile name: use the name shown for the builder profile in the web UI`
      );
    }
  }
  if (new Set(names).size !== names.length) throw new InputError(input, `lists a profile twice: ${names.join(', ')}`);
  return names;
}

/** Parses a timeout in milliseconds: a positive whole number no larger than MAX_TIMEOUT_MS. */
export function parseTimeoutMs(raw: string, fallbackMs: number, input = 'timeout'): number {
  const text = raw.trim();
  if (text === '') return fallbackMs;
  if (!/^\d+$/.test(text)) {
    throw new InputError(input, `"${raw}" is not a number of milliseconds: use a whole number such as ${fallbackMs}`);
  }
  const ms = Number(text);
  if (ms <= 0) throw new InputError(input, `must be greater than 0 milliseconds (default ${fallbackMs})`);
  if (ms > MAX_TIMEOUT_MS) {
    throw new InputError(
      input,
      `${ms} ms is longer than a job can run (${MAX_TIMEOUT_MS} ms = 6 h): it is milliseconds, e.g. ${fallbackMs} for ${fallbackMs / 60000} minutes`
    );
  }
  return ms;
}

/**
 * The API base URL from the `api-url` input, else REMOTE_BUILDER_API_URL. Must be https, except for
 * loopback hosts (the local emulator). There is no default: the service's address is not guessed.
 */
export function resolveApiUrl(inputValue: string, env: NodeJS.ProcessEnv, input = 'api-url'): string {
  const raw = inputValue.trim() || (env[Env.ApiUrl] ?? '').trim();
  if (raw === '') {
    throw new InputError(
      input,
      `is required: set the ${input} input or the ${Env.ApiUrl} environment variable to the service's base URL`
    );
  }
  // Credentials in the URL are refused, and never echoed back in a message.
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) {
    throw new InputError(input, 'must not contain credentials: pass the key as api-key');
  }
  // What the messages quote: anything up to an '@' may be credentials, parsable or not.
  const shown = redactUserinfo(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InputError(input, `"${shown}" is not a URL: use the service's base URL, e.g. https://api.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError(input, `"${shown}" must start with https://`);
  }
  if (url.username || url.password)
    throw new InputError(input, 'must not contain credentials: pass the key as api-key');
  if (url.search || url.hash) throw new InputError(input, `"${shown}" must not have a query or fragment`);
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new InputError(
      input,
      `"${shown}" uses plain http to a non-loopback host, which would send the API key unencrypted: use https://`
    );
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * `raw` with everything before its last '@' (after the scheme, if any) replaced by `***`: an api-url that
 * does not parse may still hold a key (`https://user:pa/ss@host`, `user:key@host`).
 */
export function redactUserinfo(raw: string): string {
  const at = raw.lastIndexOf('@');
  if (at < 0) return raw;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(raw)?.[0] ?? '';
  return `${scheme}***${raw.slice(at)}`;
}

/** Longest per-request time limit REMOTE_BUILDER_REQUEST_TIMEOUT_MS may set: 10 minutes. */
export const MAX_API_REQUEST_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * The API client's per-request time limit: REMOTE_BUILDER_REQUEST_TIMEOUT_MS when set (a whole number of
 * milliseconds, 1 to 600000), else `fallback` (the client's DEFAULT_REQUEST_TIMEOUT_MS, 15000).
 */
export function resolveRequestTimeoutMs(env: NodeJS.ProcessEnv, fallback: number): number {
  return envMilliseconds(env, Env.RequestTimeoutMs, {
    min: 1,
    fallback,
    what: 'a request time limit'
  });
}

/**
 * A whole number of milliseconds from `min` to MAX_API_REQUEST_TIMEOUT_MS read from the variable `name`, or
 * `fallback` when it is unset or blank; anything else is an InputError naming the variable, the range and the
 * default.
 */
export function envMilliseconds(
  env: NodeJS.ProcessEnv,
  name: Env,
  opts: {min: number; fallback: number; what: string}
): number {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return opts.fallback;
  const ms = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(ms >= opts.min && ms <= MAX_API_REQUEST_TIMEOUT_MS)) {
    throw new InputError(
      name,
      `"${raw}" is not ${opts.what}: use a whole number of milliseconds from ${opts.min} to ${MAX_API_REQUEST_TIMEOUT_MS}, or unset it for the default ${opts.fallback}`
    );
  }
  return ms;
}

/** What to do when no remote builder can be had: fail (`none`) or build on a local buildx builder (`local`). */
export type FallbackMode = 'none' | 'local';

/** Parses the `fallback` input: `none` (default) or `local`. */
export function parseFallbackMode(raw: string, input = 'fallback'): FallbackMode {
  const v = raw.trim().toLowerCase();
  if (v === '' || v === 'none') return 'none';
  if (v === 'local') return 'local';
  throw new InputError(
    input,
    `"${raw}" is not a fallback: use none (fail when no remote builder can be had) or local (build on this runner instead)`
  );
}

/** Parses a boolean input the way @actions/core does (YAML 1.2 core schema), with the input named on error. */
export function parseBooleanInput(raw: string, fallback: boolean, input: string): boolean {
  const v = raw.trim();
  if (v === '') return fallback;
  const parsed = yamlBoolean(v);
  if (parsed !== undefined) return parsed;
  throw new InputError(input, `"${raw}" is not a boolean: use true or false`);
}

function hasControlChars(s: string): boolean {
  return [...s].some(c => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

/** Most extra builds the `retries` input may ask for: each can cost a whole build on a new builder. */
export const MAX_RETRIES = 5;

/** Parses `retries`: extra builds after an infrastructure failure, 0 to MAX_RETRIES (default 1). */
export function parseRetries(raw: string, input = 'retries'): number {
  const text = raw.trim();
  if (text === '') return 1;
  if (!/^\d+$/.test(text) || Number(text) > MAX_RETRIES) {
    throw new InputError(
      input,
      `"${raw}" is not a number of retries: use a whole number from 0 (never retry) to ${MAX_RETRIES}; the default is 1`
    );
  }
  return Number(text);
}

/**
 * Parses `builder-size`, the size of the profile's builders for the cost in the job summary (the service
 * does not report it): empty for unknown, else a row of the price table such as "32x64" or "32 vCPU".
 */
export function parseBuilderSizeInput(raw: string, input = 'builder-size'): BuilderSize | undefined {
  if (raw.trim() === '') return undefined;
  const size = parseBuilderSize(raw);
  if (size === undefined) {
    throw new InputError(
      input,
      `"${raw}" is not a builder size of the price table: use one of ${BUILDER_SIZES.join(', ')} (vCPU x GB RAM, as set on the builder profile), or leave it empty`
    );
  }
  return size;
}

/**
 * Default of REMOTE_BUILDER_DETAILS_404_GRACE_MS: for this long after the assignment answered, a details 404
 * means "not visible yet", not "gone": the spec says nothing of consistency, and a service whose reads lag its
 * writes (replicas, caches) answers 404 for a fresh id for a moment. Past it, a 404 means the builder is gone
 * and fails at once.
 */
export const DEFAULT_DETAILS_404_GRACE_MS = 10_000;

/**
 * How long after the assignment a details 404 is "not visible yet": REMOTE_BUILDER_DETAILS_404_GRACE_MS when set
 * (0 to 600000 ms; 0 treats every 404 as gone), else 10000. For a service whose reads lag its writes longer.
 */
export function resolveDetails404GraceMs(env: NodeJS.ProcessEnv): number {
  return envMilliseconds(env, Env.Details404GraceMs, {
    min: 0,
    fallback: DEFAULT_DETAILS_404_GRACE_MS,
    what: 'a grace period'
  });
}

/**
 * The buildx releases URL from REMOTE_BUILDER_BUILDX_RELEASES_URL, or undefined (GitHub's docker/buildx). Must be
 * https, except for loopback hosts: the checksums come from the same place as the binaries, so plain http
 * would let anyone on the path swap both.
 */
export function resolveBuildxReleasesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = (env[Env.BuildxReleasesUrl] ?? '').trim();
  if (raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  const secure = url?.protocol === 'https:' || (url?.protocol === 'http:' && isLoopback(url.hostname));
  if (!url || !secure || url.username || url.password || url.search || url.hash) {
    // A URL with credentials is not echoed back.
    const shown = url && (url.username || url.password) ? 'a URL with credentials' : `"${raw}"`;
    throw new InputError(
      Env.BuildxReleasesUrl,
      `${shown} is not a buildx releases URL: use the https URL of a docker/buildx mirror laid out as ` +
        `https://github.com/docker/buildx (http only to a loopback host), or unset it to download from GitHub`
    );
  }
  return url.toString().replace(/\/+$/, '');
}
