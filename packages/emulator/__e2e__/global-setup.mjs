/* global fetch */
// Before any e2e test file: is the environment scripts/e2e-up.sh sets up there and answering? If not, ONE
// line says what is missing and how to set it up, and the run exits 1 (instead of every file failing alike).
// e2e-env.ts (requireE2eEnv) still checks everything in detail per file.
import {existsSync, readFileSync} from 'node:fs';
import http from 'node:http';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const HOW =
  'set it up with `sudo bash scripts/e2e-up.sh` (`--check` tells whether this machine can), stop it with `sudo bash scripts/e2e-down.sh`';

/** Why the environment is not usable, or undefined when dockerd and the registry answer. */
export async function e2eEnvProblem(stateDir = process.env.E2E_STATE_DIR ?? join(ROOT, '.e2e')) {
  const file = join(stateDir, 'env.json');
  if (!existsSync(file)) return `no ${file}`;
  let state;
  try {
    state = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return `${file} is not JSON (${e.message})`;
  }
  const ping = await unixGet(state.dockerSocket, '/_ping').catch(e => ({status: 0, body: e.message}));
  if (ping.status !== 200)
    return `dockerd does not answer on ${state.dockerSocket} (${ping.body.trim() || `HTTP ${ping.status}`})`;
  const registry = await fetch(`http://${state.registry}/v2/`, {signal: AbortSignal.timeout(5000)}).catch(e => e);
  if (registry instanceof Error) return `the registry does not answer on ${state.registry} (${registry.message})`;
  if (registry.status !== 200) return `the registry on ${state.registry} answers HTTP ${registry.status}`;
  return undefined;
}

export default async function globalSetup() {
  const problem = await e2eEnvProblem();
  if (problem === undefined) return;
  process.stderr.write(`e2e: the end-to-end environment is not up (${problem}): ${HOW}.\n`);
  process.exit(1);
}

function unixGet(socketPath, path) {
  return new Promise((resolvePromise, reject) => {
    if (typeof socketPath !== 'string') return reject(new Error('env.json names no dockerSocket'));
    const req = http.get({socketPath, path, headers: {Host: 'docker'}, timeout: 5000}, res => {
      const chunks = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => resolvePromise({status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8')}));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}
