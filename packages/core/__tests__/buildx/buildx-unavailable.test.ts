import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx, BuildxError} from '../../src/buildx/buildx.js';
import {BuildxUnavailableError, INSTALL_BUILDX_ALTERNATIVE} from '../../src/buildx/buildx-unavailable.js';
import {NodeExec} from '../../src/exec.js';

/**
 * Real processes: fake `docker` scripts that answer `docker buildx version` as docker does without the
 * buildx plugin (docker/cli cmd/docker/docker.go: before v28 and since), a dev build, and no docker at all.
 */
let dir: string;
const script = (name: string, body: string): string => {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-docker-'));
});
afterAll(() => rmSync(dir, {recursive: true, force: true}));

const version = (docker: string): Promise<unknown> =>
  new Buildx({docker, exec: new NodeExec()}).version().catch((e: unknown) => e);

describe('docker buildx version against fake docker CLIs', () => {
  test('docker 27 without buildx: docker’s whole reason and the fix', async () => {
    const docker = script(
      'docker27',
      `echo "docker: '$1' is not a docker command." >&2; echo "See 'docker --help'" >&2; exit 1`
    );
    const e = await version(docker);
    expect(e).toBeInstanceOf(BuildxUnavailableError);
    expect((e as BuildxUnavailableError).reason).toBe('no-buildx');
    expect((e as Error).message).toBe(
      "docker buildx is not available: docker has no buildx plugin (docker says: docker: 'buildx' is not a docker command. See 'docker --help'): " +
        'install the buildx plugin on the runner (https://docs.docker.com/go/buildx/), or run the job on a runner that has it (GitHub-hosted Ubuntu runners do)'
    );
  });

  test('docker 28 without buildx', async () => {
    const docker = script(
      'docker28',
      `printf "docker: unknown command: docker %s\\n\\nRun 'docker --help' for more information\\n" "$1" >&2; exit 1`
    );
    const e = await version(docker);
    expect((e as BuildxUnavailableError).reason).toBe('no-buildx');
    expect((e as Error).message).toMatch(
      /docker has no buildx plugin \(docker says: docker: unknown command: docker buildx Run 'docker --help' for more information\)/
    );
  });

  test('no docker at that path: never "cancelled", the spawn error kept', async () => {
    const e = await version(join(dir, 'no-such-docker'));
    expect((e as BuildxUnavailableError).reason).toBe('no-docker');
    expect((e as Error).message).toMatch(
      /^docker buildx is not available: the Docker CLI \(".*no-such-docker"\) is not on PATH \(.*ENOENT\)/
    );
    expect((e as Error).message).not.toMatch(/cancel/i);
  });

  test('a buildx that fails otherwise keeps every line of its error', async () => {
    const docker = script(
      'broken',
      `echo "fork/exec /usr/libexec/docker/cli-plugins/docker-buildx: exec format error" >&2; echo "extra" >&2; exit 1`
    );
    const e = await version(docker);
    expect(e).toBeInstanceOf(BuildxError);
    expect((e as BuildxUnavailableError).reason).toBe('broken');
    expect((e as Error).message).toMatch(
      /failed \(fork\/exec \/usr\/libexec\/docker\/cli-plugins\/docker-buildx: exec format error extra\)/
    );
  });

  test('a dev build of buildx reports its commit, which passes every gate', async () => {
    const docker = script('dev', `echo "github.com/docker/buildx 1a2b3c4 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"`);
    await expect(version(docker)).resolves.toBe('1a2b3c4');
  });
});

describe('the ways out suggested are only those that fix it', () => {
  const configureWays = `${INSTALL_BUILDX_ALTERNATIVE}, or set "setup-buildx: false" to only assign the builders`;

  test('without docker, installing buildx is not suggested (the plugin needs the Docker CLI)', () => {
    const e = new BuildxUnavailableError({
      reason: 'no-docker',
      detail: 'spawn docker ENOENT',
      alternative: configureWays
    });
    expect(e.message).toBe(
      'docker buildx is not available: the Docker CLI ("docker") is not on PATH (spawn docker ENOENT): run the job on a ' +
        'runner with the Docker CLI and its buildx plugin (GitHub-hosted Ubuntu runners have both), or set "setup-buildx: false" ' +
        'to only assign the builders'
    );
    const alone = new BuildxUnavailableError({
      reason: 'no-docker',
      detail: 'ENOENT',
      alternative: INSTALL_BUILDX_ALTERNATIVE
    });
    expect(alone.message).not.toContain('buildx-version');
  });

  test('docker without its buildx plugin: installing one is suggested', () => {
    const e = new BuildxUnavailableError({reason: 'no-buildx', detail: 'unknown command', alternative: configureWays});
    expect(e.message).toMatch(
      /\(GitHub-hosted Ubuntu runners do\), or set "buildx-version: latest" to install one, or set "setup-buildx: false" to only assign the builders$/
    );
  });
});
