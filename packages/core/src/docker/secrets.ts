// Ours, not docker's Build.generateSecret*: its errors can echo a secret; ours never do, and files are 0600.
import {randomBytes} from 'node:crypto';
import {existsSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import type {Logger} from '../logger.js';
import {registerSecret} from '../register-secret.js';

/** An entry of `secrets`, `secret-files` or `secret-envs` that is not KEY=VALUE, or a missing secret file. */
export class SecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretError';
  }
}

/**
 * Splits KEY=VALUE at the first '=' (docker's Build.parseSecretKvp). The error never carries the value:
 * docker's does ("<kvp> is not a valid secret"), which can print a secret.
 */
export function parseSecretKvp(kvp: string): [string, string] {
  const at = kvp.indexOf('=');
  const key = at < 0 ? '' : kvp.slice(0, at);
  const value = at < 0 ? '' : kvp.slice(at + 1);
  if (key === '' || value === '') {
    const what = key !== '' ? `"${key}" has an empty value` : 'an entry has no KEY= part';
    throw new SecretError(`${what}: use KEY=VALUE, one per line`);
  }
  return [key, value];
}

/** True when `secrets` already holds a GIT_AUTH_TOKEN (then github-token is not added). */
export function hasGitAuthTokenSecret(secrets: string[]): boolean {
  return secrets.some(s => s.startsWith('GIT_AUTH_TOKEN='));
}

/** `id=KEY,env=ENVNAME` for a `secret-envs` entry. */
export function resolveSecretEnv(kvp: string): string {
  const [key, env] = parseSecretKvp(kvp);
  return `id=${key},env=${env}`;
}

export interface SecretStoreOpts {
  /** Private folder (0700) the secret files go to; removed after the build. */
  dir: string;
  /** Secret values are registered with it so the log masks them. */
  logger?: Logger;
  /** File name for the next secret; default `secret-<random>`. Tests pass a fixed one. */
  nextFileName?: () => string;
}

/**
 * SecretStore turns `secrets` and `secret-files` entries into `--secret id=KEY,src=FILE` values, as
 * docker's Build.resolveSecretString / resolveSecretFile do (actions-toolkit 0.92, build-push v7.3.0): a
 * value goes to a file of its own, mode 0600, in a private folder; a secret file is passed by its own path.
 */
export class SecretStore {
  private readonly opts: SecretStoreOpts;

  constructor(opts: SecretStoreOpts) {
    this.opts = opts;
  }

  /** `secrets` entry KEY=VALUE → `id=KEY,src=<file holding VALUE>`; the value is masked from now on. */
  resolveString(kvp: string): string {
    const [key, value] = parseSecretKvp(kvp);
    if (this.opts.logger) registerSecret(this.opts.logger, value);
    const file = this.nextPath();
    writeFileSync(file, value, {mode: 0o600});
    return `id=${key},src=${file}`;
  }

  /**
   * `secret-files` entry KEY=PATH → `id=KEY,src=PATH`. Docker's v6 copied the file; v7 (actions-toolkit
   * 0.86, "preserve original paths for file secrets") passes the path as given.
   */
  resolveFile(kvp: string): string {
    const [key, path] = parseSecretKvp(kvp);
    if (!existsSync(path)) throw new SecretError(`secret file ${path} not found`);
    return `id=${key},src=${path}`;
  }

  private nextPath(): string {
    const name = this.opts.nextFileName ? this.opts.nextFileName() : `secret-${randomBytes(8).toString('hex')}`;
    return join(this.opts.dir, name);
  }
}
