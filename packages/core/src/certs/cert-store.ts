// Ours, not a library: a 0700/0600 folder per job in RUNNER_TEMP and buildx's remote-driver paths is all we need.
import {chmod, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
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

/** Writes one builder's PEMs into `<certDir>/<builderId>/` (0700) as ca.pem, cert.pem, key.pem (0600). */
export async function writeBuilderCerts(certDir: string, builderId: string, pems: BuilderPems): Promise<NodeCertPaths> {
  const dir = join(certDir, safeName(builderId));
  await mkdir(dir, {recursive: true, mode: 0o700});
  await chmod(dir, 0o700);
  const paths: NodeCertPaths = {cacert: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem')};
  await Promise.all([
    writePrivate(paths.cacert, pems.ca),
    writePrivate(paths.cert, pems.cert),
    writePrivate(paths.key, pems.key)
  ]);
  return paths;
}

/** Removes the certificate folder; a missing folder is fine. */
export async function removeCertDir(certDir: string): Promise<void> {
  await rm(certDir, {recursive: true, force: true});
}

async function writePrivate(path: string, pem: string): Promise<void> {
  const text = pem.endsWith('\n') ? pem : `${pem}\n`;
  await writeFile(path, text, {mode: 0o600});
  await chmod(path, 0o600);
}

/** A builder id as a single path segment. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || '_';
}
