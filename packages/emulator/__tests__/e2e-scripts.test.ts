// scripts/e2e-up.sh --check changes nothing on the machine (apt configuration, apt lists, dpkg status,
// binfmt_misc, the state folder), even on its apt path; scripts/e2e-down.sh reverts what .e2e/undo.log
// records; `npm run test:e2e` without the environment prints one line and exits 1.
import {afterEach, describe, expect, test} from '@jest/globals';
import {spawn} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const temps: string[] = [];

afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, {recursive: true, force: true});
});

function temp(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `e2e-scripts-${label}-`));
  temps.push(dir);
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {cwd: ROOT, env: {...process.env, ...env}, stdio: ['ignore', 'pipe', 'pipe']});
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', code => {
      clearTimeout(timer);
      resolvePromise({code, stdout, stderr});
    });
  });
}

/** Path → mode, size and content hash (files), or mode (folders), of everything under `dir`. */
function tree(dir: string, withContent: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (path: string): void => {
    let st;
    try {
      st = statSync(path);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      out[path] = `dir ${st.mode.toString(8)}`;
      for (const e of readdirSync(path)) walk(join(path, e));
      return;
    }
    const hash =
      withContent && st.size < 50_000_000
        ? createHash('sha256').update(readFileSync(path)).digest('hex')
        : `${st.mtimeMs}`;
    out[path] = `${st.mode.toString(8)} ${st.size} ${hash}`;
  };
  walk(dir);
  return out;
}

/** What --check must leave as it was. */
function systemSnapshot(stateDir: string): Record<string, unknown> {
  const binfmt = '/proc/sys/fs/binfmt_misc';
  return {
    etcApt: tree('/etc/apt', true),
    aptLists: tree('/var/lib/apt/lists', false),
    dpkgStatus: existsSync('/var/lib/dpkg/status')
      ? createHash('sha256').update(readFileSync('/var/lib/dpkg/status')).digest('hex')
      : 'none',
    binfmt: existsSync(binfmt) ? readdirSync(binfmt).sort() : 'none',
    stateDir: tree(stateDir, true)
  };
}

/** An apt configuration whose only source is a file: mirror that does not exist (no network is used). */
function fakeAptEtc(): string {
  const etc = temp('apt-etc');
  mkdirSync(join(etc, 'sources.list.d'), {recursive: true});
  mkdirSync(join(etc, 'preferences.d'), {recursive: true});
  writeFileSync(
    join(etc, 'sources.list.d', 'debian.sources'),
    `Types: deb\nURIs: file:${join(etc, 'no-such-mirror', 'debian')}\nSuites: bookworm\nComponents: main\n` +
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
  );
  return etc;
}

describe('scripts/e2e-up.sh --check', () => {
  test.each([
    ['oldest', 'with nothing to install (or not root)', ''],
    ['oldest', 'on its apt path (a package to install; the private apt run fails on an unreachable mirror)', 'hello'],
    ['newest', 'on its apt path (a package to install; the private apt run fails on an unreachable mirror)', 'hello']
  ])('E2E_SET=%s: changes nothing on the machine %s; exit 0 or 3 with its reason', async (set, _label, extra) => {
    const state = join(temp('state'), '.e2e');
    const env = {
      E2E_SET: set,
      E2E_STATE_DIR: state,
      E2E_APT_ETC: fakeAptEtc(),
      E2E_EXTRA_PACKAGES: extra,
      // No dockerd there: own mode, as on the project's machines.
      E2E_DOCKER_SOCKET: join(temp('sock'), 'docker.sock')
    };
    const before = systemSnapshot(state);
    const res = await run('bash', ['scripts/e2e-up.sh', '--check'], env);
    expect(systemSnapshot(state)).toEqual(before);
    expect(existsSync(state)).toBe(false);
    if (res.code === 0) {
      expect(extra).toBe('');
      expect(res.stdout).toMatch(/^e2e: this machine can be set up \(own mode, /m);
    } else {
      expect({code: res.code, stderr: res.stderr}).toEqual({
        code: 3,
        stderr: expect.stringMatching(/^\[e2e-up\] cannot set up the end-to-end environment: .+$/m)
      });
    }
    if (extra !== '' && process.getuid?.() === 0) {
      expect(res.stderr).toMatch(/cannot set up the end-to-end environment: apt-get update (failed|could not fetch)/);
      expect(res.stdout).toMatch(/private copy of the apt configuration/);
    }
  });
});

test('scripts/e2e-up.sh with an unknown E2E_SET exits 2 before changing anything', async () => {
  const state = join(temp('state'), '.e2e');
  const res = await run('bash', ['scripts/e2e-up.sh', '--check'], {E2E_SET: 'latest', E2E_STATE_DIR: state});
  expect({code: res.code, stderr: res.stderr}).toEqual({
    code: 2,
    stderr: 'E2E_SET must be oldest or newest (got "latest")\n'
  });
  expect(existsSync(state)).toBe(false);
});

describe('scripts/e2e-down.sh', () => {
  /** A state folder whose undo.log records files e2e-up wrote, a file it replaced and a list it fetched. */
  function fakeSetup(): {state: string; sys: string; created: string; replaced: string; list: string} {
    const sys = temp('sys');
    const state = join(temp('state'), '.e2e');
    mkdirSync(join(state, 'backup'), {recursive: true});
    mkdirSync(join(state, 'cache'), {recursive: true});
    const created = join(sys, 'e2e-trixie.sources');
    const replaced = join(sys, 'e2e-trixie');
    const list = join(sys, 'deb.debian.org_debian_dists_trixie_InRelease');
    writeFileSync(created, 'written by e2e-up\n');
    writeFileSync(replaced, 'written by e2e-up\n');
    writeFileSync(join(state, 'backup', 'e2e-trixie'), 'the admin’s own\n');
    writeFileSync(list, 'fetched by e2e-up\n');
    writeFileSync(join(state, 'cache', 'busybox-arm64'), 'elf');
    writeFileSync(join(state, 'env.json'), '{}');
    writeFileSync(
      join(state, 'undo.log'),
      [
        `file ${created}`,
        `restore ${replaced} ${join(state, 'backup', 'e2e-trixie')}`,
        `list ${list}`,
        'packages e2e-scripts-test-no-such-package:amd64'
      ].join('\n') + '\n'
    );
    return {state, sys, created, replaced, list};
  }

  test('reverts each recorded change, newest first, then removes the state folder', async () => {
    const s = fakeSetup();
    const res = await run('bash', ['scripts/e2e-down.sh'], {E2E_STATE_DIR: s.state});
    expect({code: res.code, stderr: res.stderr}).toEqual({code: 0, stderr: ''});
    expect(existsSync(s.created)).toBe(false);
    expect(readFileSync(s.replaced, 'utf8')).toBe('the admin’s own\n');
    expect(existsSync(s.list)).toBe(false);
    expect(existsSync(s.state)).toBe(false);
    // Newest first: the packages (recorded last) before the list, the list before the sources.
    const order = ['packages e2e-up installed are already gone', `removing ${s.created}`].map(t =>
      res.stdout.indexOf(t)
    );
    expect(order[0]).toBeGreaterThanOrEqual(0);
    expect(order[1]).toBeGreaterThan(order[0]!);
  });

  test('--keep-packages keeps the packages, their apt files and the download cache, and the record of them', async () => {
    const s = fakeSetup();
    const res = await run('bash', ['scripts/e2e-down.sh', '--keep-packages'], {E2E_STATE_DIR: s.state});
    expect({code: res.code, stderr: res.stderr}).toEqual({code: 0, stderr: ''});
    expect(readFileSync(s.created, 'utf8')).toBe('written by e2e-up\n');
    expect(existsSync(s.list)).toBe(true);
    expect(existsSync(join(s.state, 'env.json'))).toBe(false);
    expect(existsSync(join(s.state, 'cache', 'busybox-arm64'))).toBe(true);
    expect(readFileSync(join(s.state, 'undo.log'), 'utf8').trim().split('\n')).toEqual([
      `file ${s.created}`,
      `restore ${s.replaced} ${join(s.state, 'backup', 'e2e-trixie')}`,
      `list ${s.list}`,
      'packages e2e-scripts-test-no-such-package:amd64'
    ]);
  });
});

describe('npm run test:e2e without its environment', () => {
  test('prints one line on how to set it up and exits 1, running no test file', async () => {
    const state = temp('no-env');
    // jest's own bin, as `npx jest` runs it, without npx's start (~0.7 s of CPU).
    const res = await run(process.execPath, [join(ROOT, 'node_modules/jest/bin/jest.js'), '-c', 'jest.e2e.config.js'], {
      E2E_STATE_DIR: state,
      NODE_OPTIONS: '--experimental-vm-modules',
      NODE_NO_WARNINGS: '1'
    });
    const lines = `${res.stdout}${res.stderr}`.split('\n').filter(l => l.trim() !== '' && !/^npm warn /.test(l));
    expect({code: res.code, lines}).toEqual({
      code: 1,
      lines: [
        `e2e: the end-to-end environment is not up (no ${join(state, 'env.json')}): set it up with ` +
          '`sudo bash scripts/e2e-up.sh` (`--check` tells whether this machine can), stop it with ' +
          '`sudo bash scripts/e2e-down.sh`.'
      ]
    });
  });
});
