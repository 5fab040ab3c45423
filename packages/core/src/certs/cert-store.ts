// Ours, not a library: a 0700/0600 folder per job in RUNNER_TEMP and buildx's remote-driver paths is all we need.
import {chmodSync, mkdirSync, writeFileSync} from 'node:fs';
import {chmod, mkdir, mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {NodeCertPaths} from '../buildx/buildx-args.js';

/** PEM material of one builder, from its details. */
export interface BuilderPems {
  ca: string;
  cert: string;
  key: string;
}

/**
 * Creates the private folder that holds every builder's certificates: `<root>/remote-builder-XXXXXX`,
 * mode 0700. `root` is RUNNER_TEMP on a runner (cleared after each job), else the OS temp dir.
 */
export async function createCertDir(root: string | undefined): Promise<string> {
  const base = root && root !== '' ? root : tmpdir();
  await mkdir(base, {recursive: true});
  const dir = await mkdtemp(join(base, 'remote-builder-'));
  await chmod(dir, 0o700);
  return dir;
}

/**
 * Writes one builder's PEMs into `<certDir>/<builderId>/` (0700) as ca.pem, cert.pem, key.pem (0600).
 * Synchronous on purpose: three small local files take well under a millisecond, where eight thread-pool
 * round trips waited behind the TLS work that runs beside them (~10 ms before `buildx create` could start).
 */
export function writeBuilderCerts(certDir: string, builderId: string, pems: BuilderPems): NodeCertPaths {
  const dir = join(certDir, safeName(builderId));
  mkdirSync(dir, {recursive: true, mode: 0o700});
  chmodSync(dir, 0o700);
  const paths = builderCertPaths(certDir, builderId);
  writePrivate(paths.cacert, pems.ca);
  writePrivate(paths.cert, pems.cert);
  writePrivate(paths.key, pems.key);
  return paths;
}

/** Where writeBuilderCerts puts one builder's certificates (nothing is written). */
export function builderCertPaths(certDir: string, builderId: string): NodeCertPaths {
  const dir = join(certDir, safeName(builderId));
  return {cacert: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem')};
}

/**
 * Removes one builder's certificates (its client key above all) once it is torn down: later steps of the job
 * must not find a key that outlived its builder. A missing folder is fine.
 */
export async function removeBuilderCerts(certDir: string, builderId: string): Promise<void> {
  await rm(join(certDir, safeName(builderId)), {recursive: true, force: true});
}

/** Removes the certificate folder; a missing folder is fine. */
export async function removeCertDir(certDir: string): Promise<void> {
  await rm(certDir, {recursive: true, force: true});
}

function writePrivate(path: string, pem: string): void {
  const text = pem.endsWith('\n') ? pem : `${pem}\n`;
  writeFileSync(path, text, {mode: 0o600});
  chmodSync(path, 0o600);
}

/** A builder id as a single path segment. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || '_';
}
