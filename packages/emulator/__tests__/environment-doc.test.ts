// docs/environment.md has a row for every REMOTE_BUILDER_*, DOCKER_BUILD_* and BUILDX_* environment variable
// the actions, the CLI and the SDK read or set: a name the code uses as a string ('NAME'), reads from an
// environment (env.NAME, env['NAME']) or sets in one ({NAME: …}).
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {expect, test} from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PACKAGES = ['core', 'build-push', 'bake', 'configure', 'cli'];
const NAME = String.raw`(?:REMOTE_BUILDER|DOCKER_BUILD|BUILDX)_[A-Z0-9_]+`;
const USES = [
  new RegExp(String.raw`['"\x60](${NAME})['"\x60]`, 'g'),
  new RegExp(String.raw`\benv\.(${NAME})\b`, 'g'),
  new RegExp(String.raw`\benv\[['"](${NAME})['"]\]`, 'g'),
  new RegExp(String.raw`[{,]\s*(${NAME}):`, 'g')
];

function sources(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap(e =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []
  );
}

/** Every variable name the code reads or sets, with the first file that does. */
export function variablesInCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const pkg of PACKAGES) {
    for (const file of sources(join(ROOT, 'packages', pkg, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const re of USES) {
        for (const m of text.matchAll(re)) if (!found.has(m[1] as string)) found.set(m[1] as string, file);
      }
    }
  }
  return found;
}

test('the scan finds the variables it must (a broken scan would pass anything)', () => {
  expect([...variablesInCode().keys()]).toEqual(
    expect.arrayContaining(['REMOTE_BUILDER_API_KEY', 'DOCKER_BUILD_SUMMARY', 'BUILDX_METADATA_WARNINGS'])
  );
});

test('docs/environment.md has a row for every variable the code reads or sets', () => {
  const doc = readFileSync(join(ROOT, 'docs/environment.md'), 'utf8');
  const rows = new Set(
    doc
      .split('\n')
      .filter(l => l.startsWith('| `'))
      .flatMap(l => [...(l.split('|')[1] ?? '').matchAll(/`([A-Z0-9_]+)`/g)].map(m => m[1] as string))
  );
  const missing = [...variablesInCode()]
    .filter(([name]) => !rows.has(name))
    .map(([name, file]) => `${name} (${file.slice(ROOT.length + 1)})`);
  expect(missing).toEqual([]);
});
