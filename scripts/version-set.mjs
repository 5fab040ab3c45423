#!/usr/bin/env node
// One version for the whole project: the root package.json's. `npm run version:set -- X.Y.Z` writes it into the
// root and every workspace package.json, their ranges on each other (^X.Y.Z) and packages/core/src/version.ts
// (PROJECT_VERSION, the User-Agent and `remote-builder --version`), then brings package-lock.json along
// (npm install --package-lock-only). `--check` changes nothing and exits 1 when a file disagrees with the root.
import {execFileSync} from 'node:child_process';
import {readFileSync, readdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

export const VERSION_TS = 'packages/core/src/version.ts';
const SCOPE = '@remote-builder-actions/';
const VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const VERSION_LINE = /^export const PROJECT_VERSION = '[^']*';$/m;
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

/** The files version:set writes, relative to the repository root: package.json files, then version.ts. */
export function versionFiles(root) {
  const packages = readdirSync(join(root, 'packages'), {withFileTypes: true})
    .filter(d => d.isDirectory())
    .map(d => `packages/${d.name}/package.json`)
    .sort();
  return ['package.json', ...packages, VERSION_TS];
}

/** The files whose text must change to carry `version`: a Map of path -> new text (empty when all agree). */
export function versionEdits(version, texts) {
  if (!VERSION.test(version)) throw new Error(`version:set: "${version}" is not a version like 1.2.3 or 1.2.3-rc.1`);
  const edits = new Map();
  for (const [path, text] of texts) {
    let next;
    if (path.endsWith('package.json')) {
      const json = JSON.parse(text);
      if ('version' in json || path === 'package.json') json.version = version;
      for (const field of DEPENDENCY_FIELDS) {
        for (const name of Object.keys(json[field] ?? {})) {
          if (name.startsWith(SCOPE)) json[field][name] = `^${version}`;
        }
      }
      next = `${JSON.stringify(json, null, 2)}\n`;
    } else {
      if (!VERSION_LINE.test(text))
        throw new Error(`version:set: ${path} has no line "export const PROJECT_VERSION = '…';"`);
      next = text.replace(VERSION_LINE, `export const PROJECT_VERSION = '${version}';`);
    }
    if (next !== text) edits.set(path, next);
  }
  return edits;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const texts = new Map(versionFiles(root).map(p => [p, readFileSync(join(root, p), 'utf8')]));
  const arg = process.argv[2];
  if (arg === undefined || arg === '--check') {
    const version = JSON.parse(texts.get('package.json')).version;
    const edits = versionEdits(version, texts);
    if (edits.size > 0) {
      process.stderr.write(
        `version:set: ${[...edits.keys()].join(', ')} disagree with package.json's version ${version}: ` +
          `run npm run version:set -- ${version}\n`
      );
      process.exit(1);
    }
    console.log(`every package and ${VERSION_TS} are at ${version}`);
  } else {
    const edits = versionEdits(arg, texts);
    for (const [path, text] of edits) writeFileSync(join(root, path), text);
    console.log(`version ${arg}: ${edits.size === 0 ? 'nothing to change' : [...edits.keys()].join(', ')}`);
    // The lock records each workspace's version and ranges; npm ci refuses a lock that disagrees.
    execFileSync(
      'npm',
      ['install', '--package-lock-only', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'],
      {
        cwd: root,
        stdio: 'inherit'
      }
    );
  }
}
