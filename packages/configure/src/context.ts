import {
  RemoteInput,
  parseBooleanInput,
  readRemoteInputs,
  type ActionIO,
  type RemoteInputs
} from '@remote-builder-actions/core/step';

/** Inputs of actions/configure/action.yml: the remote ones every action has, then configure's own. */
export const Input = {
  ...RemoteInput,
  Use: 'use',
  SetupBuildx: 'setup-buildx'
} as const;
export type Input = (typeof Input)[keyof typeof Input];

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

export interface Inputs extends RemoteInputs {
  use: boolean;
  'setup-buildx': boolean;
}

/** Reads and validates every input; throws InputError (naming the input and the fix) before anything is assigned. */
export function getInputs(io: Pick<ActionIO, 'getInput' | 'env'>): Inputs {
  const remote = readRemoteInputs(io, DEFAULT_TIMEOUT_MS);
  return {
    ...remote,
    use: parseBooleanInput(io.getInput(Input.Use), true, Input.Use),
    'setup-buildx': parseBooleanInput(io.getInput(Input.SetupBuildx), true, Input.SetupBuildx)
  };
}
