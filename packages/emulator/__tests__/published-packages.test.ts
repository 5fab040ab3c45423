// The npm packages' manifests (scripts/pack-test.sh checks the tarballs themselves): where they come from, how
// they publish, what ships, and that the bundled ones (cli, emulator) need nothing installed beside them.
import {createHash} from 'node:crypto';
import {existsSync, readFileSync, readdirSync} from 'node:fs';
import {dirname, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {expect, test} from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  name: string;
  private?: boolean;
  license: string;
  repository?: {type: string; url: string; directory: string};
  publishConfig?: object;
  files: string[];
  dependencies?: Record<string, string>;
  scripts: Record<string, string>;
}
const manifest = (name: string): Manifest =>
  JSON.parse(readFileSync(resolve(ROOT, 'packages', name, 'package.json'), 'utf8')) as Manifest;
const published = ['core', 'cli', 'emulator'];

// Who holds the copyright: LICENSE's appendix line, and every package.json's author.
const HOLDER = 'The remote-builder-actions authors';
const COPYRIGHT_LINE = /^ {3}Copyright (\d{4}) (.+)$/m;

test('LICENSE is the Apache License 2.0, verbatim (https://www.apache.org/licenses/LICENSE-2.0.txt) but for the copyright line of its appendix', () => {
  const text = readFileSync(resolve(ROOT, 'LICENSE'), 'utf8');
  expect(COPYRIGHT_LINE.exec(text)?.slice(1)).toEqual(['2026', HOLDER]);
  const template = text.replace(COPYRIGHT_LINE, '   Copyright [yyyy] [name of copyright owner]');
  expect(createHash('sha256').update(template).digest('hex')).toBe(
    'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30'
  );
  expect((JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as Manifest).license).toBe('Apache-2.0');
});

test.each(['.', ...readdirSync(resolve(ROOT, 'packages')).map(name => `packages/${name}`)])(
  '%s/package.json: licensed Apache-2.0, by the holder LICENSE names',
  dir => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, dir, 'package.json'), 'utf8')) as Manifest & {author?: string};
    expect({license: pkg.license, author: pkg.author}).toEqual({license: 'Apache-2.0', author: HOLDER});
  }
);

test.each(published)('%s: public, with provenance, from its folder of this repository, licensed Apache-2.0', name => {
  const pkg = manifest(name);
  expect(pkg.name).toBe(`@remote-builder-actions/${name}`);
  expect(pkg.private).toBeUndefined();
  expect(pkg.license).toBe('Apache-2.0');
  expect(pkg.publishConfig).toEqual({access: 'public', provenance: true});
  expect(pkg.repository).toEqual({...manifest('core').repository, directory: `packages/${name}`});
  expect(pkg.repository?.url).toMatch(/^git\+https:\/\/github\.com\/[^/]+\/remote-builder-actions\.git$/);
});

test.each(published)('%s: ships its README and the LICENSE its prepack copies from the root', name => {
  const pkg = manifest(name);
  expect(pkg.files).toEqual(expect.arrayContaining(['README.md', 'LICENSE']));
  expect(existsSync(resolve(ROOT, 'packages', name, 'README.md'))).toBe(true);
  expect(pkg.scripts.prepack).toBe(`node ../../scripts/pack-build.mjs ${name}`);
});

test.each(['cli', 'emulator'])('%s: a bundle, so no runtime dependencies to install', name => {
  const pkg = manifest(name);
  expect(pkg.files).toContain('bundle');
  expect(pkg.dependencies ?? {}).toEqual({});
});
