import {readFile} from 'node:fs/promises';
import {closest} from '@remote-builder-actions/cli';
import type {ApiKey} from './auth.js';
import {PROFILE_CONFIG_KEYS, type ProfileConfig} from './profiles.js';

const FILE_KEYS = ['profiles', 'apiKeys'] as const;
const API_KEY_KEYS = ['key', 'scopes'] as const;

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
  refuseUnknownKeys(value, FILE_KEYS, `Invalid emulator config ${source}`, 'the file');
  profiles.forEach((p: Record<string, unknown>, i) => {
    const name = typeof p.name === 'string' ? `profile ${JSON.stringify(p.name)}` : `profile ${i + 1}`;
    refuseUnknownKeys(p, PROFILE_CONFIG_KEYS, `Invalid emulator config ${source}, ${name}`, 'a profile');
  });
  (apiKeys ?? []).forEach((k: object, i: number) =>
    refuseUnknownKeys(k, API_KEY_KEYS, `Invalid emulator config ${source}, API key ${i + 1}`, 'an API key')
  );
  const config: EmulatorConfigFile = {profiles: profiles as ProfileConfig[]};
  if (apiKeys !== undefined) config.apiKeys = apiKeys as ApiKey[];
  return config;
}

/**
 * Throws for the first key of `value` that is not one of `keys`, naming it, the closest key when one is close, and
 * every key `what` takes: a misspelt key ("readyDelay") would otherwise be ignored without a word.
 */
function refuseUnknownKeys(value: object, keys: readonly string[], where: string, what: string): void {
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    const guess = closest(key, keys);
    throw new Error(
      `${where}: unknown key ${JSON.stringify(key)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}; ` +
        `the keys of ${what}: ${keys.join(', ')}`
    );
  }
}
