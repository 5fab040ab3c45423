// One version for the project (scripts/version-set.mjs, `npm run version:set -- X.Y.Z`): the root package.json's,
// carried by every workspace package.json, their ranges on each other and packages/core/src/version.ts.
import {readFileSync} from 'node:fs';
import {dirname, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {expect, test} from '@jest/globals';
// @ts-expect-error: a plain ESM script without type declarations
import {VERSION_TS, versionEdits, versionFiles} from '../../../scripts/version-set.mjs';
import {PROJECT_VERSION} from '../../core/src/version.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const edits = versionEdits as (version: string, texts: Map<string, string>) => Map<string, string>;
const files = (versionFiles as (root: string) => string[])(ROOT);
const rootVersion = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {version: string}).version;

test('every package, their ranges on each other and version.ts carry the root package.json’s version', () => {
  expect(files).toEqual(
    expect.arrayContaining(['packages/core/package.json', 'packages/cli/package.json', VERSION_TS])
  );
  const texts = new Map(files.map(p => [p, readFileSync(resolve(ROOT, p), 'utf8')]));
  // On failure: npm run version:set -- <the root's version>
  expect([...edits(rootVersion, texts).keys()]).toEqual([]);
  expect(PROJECT_VERSION).toBe(rootVersion);
});

const json = (o: object): string => `${JSON.stringify(o, null, 2)}\n`;
const texts = new Map([
  ['package.json', json({name: 'root', version: '1.0.0', private: true})],
  [
    'packages/a/package.json',
    json({
      name: '@remote-builder-actions/a',
      version: '1.0.0',
      dependencies: {'@remote-builder-actions/core': '^0.9.0', semver: '^7.0.0'},
      devDependencies: {'@remote-builder-actions/core': '^1.0.0'}
    })
  ],
  ['packages/b/package.json', json({name: '@remote-builder-actions/b', version: '1.1.0'})],
  [VERSION_TS, "/** x */\nexport const PROJECT_NAME = 'p';\nexport const PROJECT_VERSION = '1.0.0';\n"]
]);

test('version:set writes the version, the ranges on our own packages only, and version.ts', () => {
  const next = edits('2.0.0-rc.1', texts);
  expect([...next.keys()]).toEqual([...texts.keys()]);
  expect(JSON.parse(next.get('packages/a/package.json') ?? '')).toEqual({
    name: '@remote-builder-actions/a',
    version: '2.0.0-rc.1',
    dependencies: {'@remote-builder-actions/core': '^2.0.0-rc.1', semver: '^7.0.0'},
    devDependencies: {'@remote-builder-actions/core': '^2.0.0-rc.1'}
  });
  expect(next.get(VERSION_TS)).toBe(
    "/** x */\nexport const PROJECT_NAME = 'p';\nexport const PROJECT_VERSION = '2.0.0-rc.1';\n"
  );
});

test('a file off the version, and only it, needs an edit', () => {
  expect([...edits('1.0.0', texts).keys()]).toEqual(['packages/a/package.json', 'packages/b/package.json']);
});

test.each([
  ['v1.0.0', /"v1\.0\.0" is not a version like 1\.2\.3/],
  ['1.0', /"1\.0" is not a version/]
])('version:set refuses %s', (version, error) => {
  expect(() => edits(version, texts)).toThrow(error);
});

test('version:set refuses a version.ts it cannot edit', () => {
  const broken = new Map([[VERSION_TS, 'export const PROJECT_VERSION = "1.0.0";\n']]);
  expect(() => edits('1.0.0', broken)).toThrow(/version\.ts has no line "export const PROJECT_VERSION = '…';"/);
});
