import type {BuilderSize} from '../billing/price-table.js';
import {parseBuildxVersion, type BuildxVersionRequest} from '../buildx-install/buildx-version.js';
import {parseInputList} from '../docker/input-list.js';
import {
  parseBooleanInput,
  parseBuilderSizeInput,
  parseFallbackMode,
  parseProfileNames,
  parseRetries,
  parseTimeoutMs,
  resolveApiUrl,
  type FallbackMode
} from '../inputs.js';
import {resolveCredentials, type Credentials} from '../credentials.js';
import type {ActionIO} from '../adapters/action-io.js';

/** Inputs every action has (action.yml names): what provisioning reads. */
export const RemoteInput = {
  ProfileName: 'profile-name',
  ApiKey: 'api-key',
  ApiUrl: 'api-url',
  Timeout: 'timeout',
  BuilderSize: 'builder-size',
  BuildxVersion: 'buildx-version'
} as const;

/** Inputs of the build actions (build-push, bake): the remote ones, the `builder` escape hatch, fallback, retries. */
export const BuildStepInput = {
  ...RemoteInput,
  Builder: 'builder',
  Fallback: 'fallback',
  Retries: 'retries'
} as const;

/** Outputs the build actions set about their attempts, builders and cache. */
export const BuildStepOutput = {
  Attempts: 'attempts',
  TimeToReady: 'time-to-ready',
  CachedSteps: 'cached-steps',
  CacheRatio: 'cache-ratio'
} as const;

/** State keys of the build actions besides core's State.Builder. */
export const BuildStepState = {
  /** The private folder holding the iidfile, the metadata file and the secret files. */
  TmpDir: 'tmpDir'
} as const;

/** Default `timeout` of the build actions (spec §4.6): 10 minutes. */
export const BUILD_STEP_TIMEOUT_MS = 600000;

/** The remote inputs, parsed (keys are the action.yml names). */
export interface RemoteInputs {
  'profile-name': string[];
  'api-url': string;
  timeout: number;
  /** The builders' size for the cost in the job summary, when given. */
  'builder-size'?: BuilderSize;
  credentials: Credentials;
  /** The buildx the step's docker calls run with: the runner's, latest, or a release. */
  'buildx-version': BuildxVersionRequest;
}

/** The build actions' inputs of provisioning, parsed. */
export interface BuildStepInputs {
  builder: string;
  /** [] when `builder` is set: no builder is assigned then. */
  'profile-name': string[];
  /** '' when `builder` is set. */
  'api-url': string;
  timeout: number;
  /** What to do when no remote builder can be had for service reasons: fail, or build on a local builder. */
  fallback: FallbackMode;
  /** Extra builds after an infrastructure failure. */
  retries: number;
  /** The builders' size for the cost in the summary, when given. */
  'builder-size'?: BuilderSize;
  /** Undefined when `builder` is set. */
  credentials?: Credentials;
  /** The buildx the step's docker calls run with: the runner's, latest, or a release. */
  'buildx-version': BuildxVersionRequest;
}

type InputSource = Pick<ActionIO, 'getInput' | 'env'>;

/** Reads the remote inputs; throws InputError (naming the input and the fix) before anything is assigned. */
export function readRemoteInputs(io: InputSource, defaultTimeoutMs: number): RemoteInputs {
  return {
    'profile-name': parseProfileNames(io.getInput(RemoteInput.ProfileName), RemoteInput.ProfileName),
    'api-url': resolveApiUrl(io.getInput(RemoteInput.ApiUrl), io.env, RemoteInput.ApiUrl),
    timeout: parseTimeoutMs(io.getInput(RemoteInput.Timeout), defaultTimeoutMs, RemoteInput.Timeout),
    ...builderSize(io),
    credentials: resolveCredentials(io.getInput(RemoteInput.ApiKey), io.env, RemoteInput.ApiKey),
    'buildx-version': parseBuildxVersion(io.getInput(RemoteInput.BuildxVersion))
  };
}

/**
 * Reads the build actions' provisioning inputs. With `builder` set nothing is assigned, so the profile,
 * the API URL and the key are neither read nor required.
 */
export function readBuildStepInputs(io: InputSource, defaultTimeoutMs = BUILD_STEP_TIMEOUT_MS): BuildStepInputs {
  const builder = io.getInput(BuildStepInput.Builder);
  const remote = builder === '';
  return {
    builder,
    'profile-name': remote ? parseProfileNames(io.getInput(RemoteInput.ProfileName), RemoteInput.ProfileName) : [],
    'api-url': remote ? resolveApiUrl(io.getInput(RemoteInput.ApiUrl), io.env, RemoteInput.ApiUrl) : '',
    timeout: parseTimeoutMs(io.getInput(RemoteInput.Timeout), defaultTimeoutMs, RemoteInput.Timeout),
    fallback: parseFallbackMode(io.getInput(BuildStepInput.Fallback), BuildStepInput.Fallback),
    retries: parseRetries(io.getInput(BuildStepInput.Retries), BuildStepInput.Retries),
    ...builderSize(io),
    credentials: remote ? resolveCredentials(io.getInput(RemoteInput.ApiKey), io.env, RemoteInput.ApiKey) : undefined,
    'buildx-version': parseBuildxVersion(io.getInput(RemoteInput.BuildxVersion))
  };
}

function builderSize(io: InputSource): {'builder-size'?: BuilderSize} {
  const size = parseBuilderSizeInput(io.getInput(RemoteInput.BuilderSize), RemoteInput.BuilderSize);
  return size ? {'builder-size': size} : {};
}

/** Readers of docker's list and boolean inputs, as docker's actions read them (booleans default to false). */
export function dockerInputReaders<N extends string>(
  io: InputSource
): {list: (name: N, opts?: Parameters<typeof parseInputList>[1]) => string[]; bool: (name: N) => boolean} {
  return {
    list: (name, opts = {}) => parseInputList(io.getInput(name), opts),
    bool: name => parseBooleanInput(io.getInput(name), false, name)
  };
}
