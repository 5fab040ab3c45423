import {
  parseBooleanInput,
  parseBuilderSizeInput,
  parseProfileNames,
  parseTimeoutMs,
  resolveApiUrl,
  resolveCredentials,
  type ActionIO,
  type BuilderSize,
  type Credentials
} from '@remote-builder-actions/core';

/** Inputs of actions/configure/action.yml. */
export enum Input {
  ProfileName = 'profile-name',
  ApiKey = 'api-key',
  ApiUrl = 'api-url',
  Timeout = 'timeout',
  Use = 'use',
  SetupBuildx = 'setup-buildx',
  BuilderSize = 'builder-size'
}

/** Outputs of actions/configure/action.yml. */
export enum Output {
  Name = 'name',
  Platforms = 'platforms',
  BuilderIds = 'builder-ids',
  Nodes = 'nodes',
  TimeToReady = 'time-to-ready'
}

/** Default `timeout` of the configure action (spec §4.6): 5 minutes. */
export const DEFAULT_TIMEOUT_MS = 300000;

export interface Inputs {
  'profile-name': string[];
  'api-url': string;
  timeout: number;
  use: boolean;
  'setup-buildx': boolean;
  /** The builders' size for the cost in the job summary, when given. */
  'builder-size'?: BuilderSize;
  credentials: Credentials;
}

/** Reads and validates every input; throws InputError (naming the input and the fix) before anything is assigned. */
export function getInputs(io: Pick<ActionIO, 'getInput' | 'env'>): Inputs {
  return {
    'profile-name': parseProfileNames(io.getInput(Input.ProfileName), Input.ProfileName),
    'api-url': resolveApiUrl(io.getInput(Input.ApiUrl), io.env, Input.ApiUrl),
    timeout: parseTimeoutMs(io.getInput(Input.Timeout), DEFAULT_TIMEOUT_MS, Input.Timeout),
    use: parseBooleanInput(io.getInput(Input.Use), true, Input.Use),
    'setup-buildx': parseBooleanInput(io.getInput(Input.SetupBuildx), true, Input.SetupBuildx),
    ...sizeOf(parseBuilderSizeInput(io.getInput(Input.BuilderSize), Input.BuilderSize)),
    credentials: resolveCredentials(io.getInput(Input.ApiKey), io.env, Input.ApiKey)
  };
}

function sizeOf(size: BuilderSize | undefined): {'builder-size'?: BuilderSize} {
  return size ? {'builder-size': size} : {};
}
