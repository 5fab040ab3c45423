import {readFile} from 'node:fs/promises';
import type {ApiKey} from './auth.js';
import type {ProfileConfig} from './profiles.js';

/** EmulatorConfigFile is the JSON profiles file of the CLI: `{"profiles": [...], "apiKeys": [...]}`. */
export interface EmulatorConfigFile {
  profiles: ProfileConfig[];
  apiKeys?: ApiKey[];
}

/**
 * Reads and shape-checks a profiles file. Profile and key details are validated later by Emulator.start,
 * which names the bad field.
 */
export async function loadEmulatorConfig(path: string): Promise<EmulatorConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`Failed to read emulator config ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`Failed to parse emulator config ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseEmulatorConfig(parsed, path);
}

/** Shape-checks a parsed config; `source` names it in errors. */
export function parseEmulatorConfig(value: unknown, source = 'config'): EmulatorConfigFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`Invalid emulator config ${source}: expected a JSON object with "profiles"`);
  }
  const {profiles, apiKeys} = value as {profiles?: unknown; apiKeys?: unknown};
  if (!Array.isArray(profiles) || !profiles.every(p => typeof p === 'object' && p !== null && !Array.isArray(p))) {
    throw new Error(`Invalid emulator config ${source}: "profiles" must be a list of objects`);
  }
  if (apiKeys !== undefined && (!Array.isArray(apiKeys) || !apiKeys.every(k => typeof k === 'object' && k !== null))) {
    throw new Error(`Invalid emulator config ${source}: "apiKeys" must be a list of {key, scopes} objects`);
  }
  const config: EmulatorConfigFile = {profiles: profiles as ProfileConfig[]};
  if (apiKeys !== undefined) config.apiKeys = apiKeys as ApiKey[];
  return config;
}
