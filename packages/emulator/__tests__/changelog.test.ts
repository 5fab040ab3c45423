// CHANGELOG.md and scripts/changelog-entry.mjs, which the release workflow turns into release notes.
import {readFileSync} from 'node:fs';
import {dirname, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, test} from '@jest/globals';
// @ts-expect-error: a plain ESM script without type declarations
import {changelogEntry} from '../../../scripts/changelog-entry.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const entry = changelogEntry as (text: string, version: string) => string | undefined;

describe('changelogEntry', () => {
  const text = [
    '# Changelog',
    '## [Unreleased]',
    '',
    '## [1.1.0] - 2026-12-01',
    '### Fixed',
    '- a thing',
    '',
    '## [1.0.0] - 2026-11-26',
    'First.',
    '',
    '[1.1.0]: https://example.invalid/1.1.0'
  ].join('\n');

  test.each([
    ['1.1.0', '### Fixed\n- a thing'],
    ['1.0.0', 'First.'],
    ['1.0', undefined],
    ['2.0.0', undefined]
  ])('%s', (version, body) => {
    expect(entry(text, version)).toBe(body);
  });

  test('the packages’ version has a release entry', () => {
    const {version} = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {version: string};
    expect(entry(readFileSync(resolve(ROOT, 'CHANGELOG.md'), 'utf8'), version)).toMatch(/\S/);
  });
});
