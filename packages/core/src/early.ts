// What an action's first import needs to start its `buildx version` before the rest of the bundle loads
// (see buildx/early-version.ts). Import nothing else here: whatever this module imports loads first.
export {startEarlyBuildxVersion} from './buildx/early-version.js';
export {yamlBoolean} from './yaml-boolean.js';

/** An action input as @actions/core reads it (`INPUT_<NAME>`, spaces as '_'), trimmed; '' when unset. */
export function earlyInput(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}
