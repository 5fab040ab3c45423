// The licences of what the bundles inline (scripts/bundle-licenses.mjs): every committed dist/ bundle names each
// third-party package it holds, with its licence text, in its licenses.txt; and the check itself, on a small
// hand-made bundle, fails for each way a bundle and its licences can part.
import {appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {
  apacheLicenseText,
  bundleContents,
  checkBundle,
  headerComments,
  moduleTableIds,
  writeBundleLicenses
  // @ts-expect-error: a plain ESM script without type declarations
} from '../../../scripts/bundle-licenses.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Contents {
  entry: number | null;
  externals: number[];
  packages: Map<string, {own: boolean; license: string}>;
  modules: Map<number, Set<string>>;
}
const contents = bundleContents as (stats: unknown, root: string) => Contents;
const check = checkBundle as (dir: string, root: string) => string[];
const write = writeBundleLicenses as (stats: unknown, dir: string, root: string) => unknown;
const tableIds = moduleTableIds as (code: string) => number[];
const headers = headerComments as (code: string) => string[];
const apacheText = apacheLicenseText as () => string;

const committed = readdirSync(join(ROOT, 'dist'), {withFileTypes: true})
  .filter(d => d.isDirectory() && !d.name.startsWith('.'))
  .flatMap(d => ['main', 'post'].map(hook => `dist/${d.name}/${hook}`));

test.each(committed)('%s: licenses.txt has the licence of every package the bundle inlines', dir => {
  expect(check(join(ROOT, dir), ROOT)).toEqual([]);
});

test('every action has committed bundles', () => {
  expect(committed).toEqual(expect.arrayContaining(['dist/build-push/main', 'dist/bake/post', 'dist/configure/main']));
});

describe('a hand-made bundle', () => {
  // root/node_modules/alpha (a LICENSE), beta (none: package.json's licence only), gamma (a LICENSE and a NOTICE);
  // root/packages/own (our code). Bundle: index.js defines modules 11 (alpha), 12 (beta and gamma, concatenated)
  // and 13 (an external); 10 is the entry, inlined at the top level; 1.index.js, a chunk, defines 21 (alpha).
  let root: string;
  let out: string;
  const stats = (): unknown => {
    const file = (p: string): string => join(root, p);
    const mod = (id: number | null, path: string, more: object = {}): object => ({
      id,
      chunks: [1],
      name: `./${path}`,
      identifier: `javascript/auto|${file(path)}`,
      nameForCondition: file(path),
      ...more
    });
    return {
      modules: [
        mod(10, 'packages/own/src/main.js', {depth: 0}),
        mod(11, 'node_modules/alpha/lib/a.js'),
        mod(12, 'node_modules/beta/index.js + 1 modules', {
          nameForCondition: file('node_modules/beta/index.js'),
          modules: [mod(null, 'node_modules/beta/index.js'), mod(null, 'node_modules/gamma/index.js')]
        }),
        {id: 13, chunks: [1], name: 'external "node:fs"', identifier: 'external node-commonjs "node:fs"'},
        mod(21, 'node_modules/alpha/lib/b.js'),
        {id: null, chunks: [1], name: 'webpack/runtime/ensure chunk', moduleType: 'runtime'},
        mod(null, 'node_modules/delta/index.js', {chunks: [], orphan: true})
      ]
    };
  };
  const files = {
    'package.json': JSON.stringify({name: 'fixture', private: true}),
    'packages/own/package.json': JSON.stringify({name: '@remote-builder-actions/own', version: '1.0.0'}),
    'node_modules/alpha/package.json': JSON.stringify({name: 'alpha', version: '1.2.3', license: 'MIT'}),
    'node_modules/alpha/LICENSE': 'MIT License\n\nCopyright (c) alpha authors\n',
    'node_modules/alpha/lib/package.json': JSON.stringify({type: 'module'}),
    'node_modules/beta/package.json': JSON.stringify({name: 'beta', version: '0.0.1', licenses: [{type: 'ISC'}]}),
    'node_modules/gamma/package.json': JSON.stringify({name: 'gamma', version: '2.0.0', license: 'Apache-2.0'}),
    'node_modules/gamma/LICENSE.txt': 'Apache License, Version 2.0 (gamma)\n',
    'node_modules/gamma/NOTICE': 'gamma\nCopyright gamma authors\n',
    // Headers: beta's copyright is nowhere else; gamma's is in its NOTICE already; alpha's a.js has no copyright.
    'node_modules/beta/index.js':
      '"use strict";\n// Copyright 2008 Beta Inc.  All rights reserved.\n//\n// Redistribution is permitted.\n\n' +
      'module.exports = 1;\n/** Reads a varint. Copyright 2008 Beta Inc. */\n',
    'node_modules/gamma/index.js': '/*\n * Copyright gamma authors\n * Licensed under Apache-2.0\n */\nexport {};\n',
    'node_modules/alpha/lib/a.js': '// Reads a thing.\nexport const a = 1;\n'
  };
  const bundle = {
    'index.js': 'import{createRequire as e}from"module";var t={11:e=>{e.exports=1},12:(e,t,r)=>{},13:e=>{}};' + 'x();',
    '1.index.js':
      'export const id = 1;\nexport const ids = [1];\nexport const modules = {\n\n/***/ 21:\n/***/ ((module) => {})\n};\n',
    'package.json': '{"type":"module"}'
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'bundle-licenses-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), {recursive: true});
      writeFileSync(join(root, path), text);
    }
    out = join(root, 'dist', 'own');
    mkdirSync(out, {recursive: true});
    for (const [name, text] of Object.entries(bundle)) writeFileSync(join(out, name), text);
    write(stats(), out, root);
  });
  afterEach(() => rmSync(root, {recursive: true, force: true}));

  test('what it holds: concatenated modules count for each package, runtime and orphan modules not at all', () => {
    const {entry, externals, packages, modules} = contents(stats(), root);
    expect(entry).toBe(10);
    expect(externals).toEqual([13]);
    expect(Object.fromEntries([...modules].map(([id, keys]) => [id, [...keys]]))).toEqual({
      10: ['@remote-builder-actions/own@1.0.0'],
      11: ['alpha@1.2.3'],
      12: ['beta@0.0.1', 'gamma@2.0.0'],
      21: ['alpha@1.2.3']
    });
    expect(Object.fromEntries([...packages].map(([key, p]) => [key, [p.license, p.own]]))).toEqual({
      '@remote-builder-actions/own@1.0.0': ['', true],
      'alpha@1.2.3': ['MIT', false],
      'beta@0.0.1': ['ISC', false],
      'gamma@2.0.0': ['Apache-2.0', false]
    });
  });

  test('licenses.txt: each third-party package with its licence files, or a word that it ships none', () => {
    const text = readFileSync(join(out, 'licenses.txt'), 'utf8');
    expect(text).toContain(
      'alpha 1.2.3\nLicense: MIT\n' + '-'.repeat(80) + '\nMIT License\n\nCopyright (c) alpha authors\n'
    );
    expect(text).toContain('beta 0.0.1\nLicense: ISC\n');
    expect(text).toContain('The package ships no licence file; its package.json declares the licence ISC.');
    expect(text).toContain(
      'LICENSE.txt:\nApache License, Version 2.0 (gamma)\n\nNOTICE:\ngamma\nCopyright gamma authors\n'
    );
    expect(text).not.toContain('@remote-builder-actions/own');
    expect(text).toContain('the code of remote-builder-actions, Copyright 2026 The remote-builder-actions authors,');
    expect(check(out, root)).toEqual([]);
  });

  test('licenses.txt: the copyright headers of the inlined files that the licence files do not already hold', () => {
    const text = readFileSync(join(out, 'licenses.txt'), 'utf8');
    const beta = text.slice(text.indexOf('beta 0.0.1\n'), text.indexOf('gamma 2.0.0\n'));
    expect(beta).toContain(
      'Notices in the headers of its files that this bundle inlines:\n\n' +
        'Copyright 2008 Beta Inc.  All rights reserved.\n\nRedistribution is permitted.\n'
    );
    expect(beta).not.toContain('Reads a varint'); // a comment after the code starts is not a header
    const gamma = text.slice(text.indexOf('gamma 2.0.0\n'));
    expect(gamma).not.toContain('Notices in the headers'); // its NOTICE holds that copyright already
    expect(text).not.toContain('Reads a thing');
    expect(text).not.toContain(apacheText().slice(0, 200)); // no package needs the Apache text here
  });

  test('a package that declares Apache-2.0 and ships no copy: the licence text at the end, and the check wants it', () => {
    writeFileSync(
      join(root, 'node_modules/beta/package.json'),
      JSON.stringify({name: 'beta', version: '0.0.1', license: '(Apache-2.0 AND BSD-3-Clause)'})
    );
    write(stats(), out, root);
    const text = readFileSync(join(out, 'licenses.txt'), 'utf8');
    expect(text).toContain(
      'beta 0.0.1\nLicense: (Apache-2.0 AND BSD-3-Clause)\n' +
        '-'.repeat(80) +
        "\nThe package ships no licence file; its package.json declares the licence (Apache-2.0 AND BSD-3-Clause).\nThe Apache License, Version 2.0's text is at the end of this file.\n"
    );
    expect(apacheText()).toMatch(/^ +Apache License\n +Version 2\.0, January 2004\n[^]*END OF TERMS AND CONDITIONS$/);
    expect(text.endsWith(`${'-'.repeat(80)}\n${apacheText()}\n\n`)).toBe(true);
    expect(check(out, root)).toEqual([]);
    cut('licenses.txt', 'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
    expect(check(out, root)).toEqual([
      expect.stringContaining("licenses.txt lacks the Apache License, Version 2.0's text for beta 0.0.1")
    ]);
  });

  test('a third-party package without any licence is refused at bundle time', () => {
    writeFileSync(join(root, 'node_modules/beta/package.json'), JSON.stringify({name: 'beta', version: '0.0.1'}));
    expect(() => write(stats(), out, root)).toThrow(/beta@0\.0\.1 has no "license" in its package\.json/);
  });

  const cut = (file: string, text: string): void => {
    const path = join(out, file);
    const before = readFileSync(path, 'utf8');
    expect(before).toContain(text);
    writeFileSync(path, before.replace(text, ''));
  };
  // prettier-ignore
  test.each<[string, () => void, RegExp]>([
    ['a package left out of licenses.txt', () => cut('licenses.txt', 'alpha 1.2.3\n'), /licenses\.txt lacks alpha 1\.2\.3, which the bundle inlines/],
    ['a licence text left out', () => cut('licenses.txt', 'Copyright gamma authors'), /lacks the licence text of gamma 2\.0\.0 \(node_modules\/gamma\)/],
    ['the word on a missing licence file left out', () => cut('licenses.txt', 'ships no licence file'), /lacks the licence text of beta 0\.0\.1/],
    ['another licence id', () => cut('licenses.txt', 'License: ISC'), /does not give beta 0\.0\.1 the licence ISC/],
    ['a bundle file changed after modules.json', () => appendFileSync(join(out, 'index.js'), ';y()'), /modules\.json was not written with these bundle files/],
    ['a chunk added after modules.json', () => writeFileSync(join(out, '2.index.js'), 'export const modules = {31: () => {}};'), /was not written with these bundle files.*\n.*does not account for modules 31/],
    ['a module gone from the bundle', () => cut('1.index.js', '/***/ 21:\n/***/ ((module) => {})'), /was not written with these bundle files.*\n.*lists modules 21 the bundle lacks/],
    ['no modules.json', () => rmSync(join(out, 'modules.json')), /ENOENT.*modules\.json.*rebuild it with npm run bundle/]
  ])('fails on %s', (_, damage, problem) => {
    damage();
    expect(check(out, root).join('\n')).toMatch(problem);
  });
});

test.each<[string, string, string[]]>([
  ['line comments, a blank line between two headers', '// a\n// b\n\n// c\ncode();', ['a\nb', 'c']],
  ['after #! and "use strict"', '#!/usr/bin/env node\n"use strict";\n// Copyright x\nf();', ['Copyright x']],
  ['a block comment with stars', '/*!\n * Copyright y\n *\n * MIT\n */\n// then\nf();', ['Copyright y\n\nMIT', 'then']],
  ['nothing before the code', 'f(); // Copyright z', []]
])('headerComments: %s', (_, code, blocks) => {
  expect(headers(code)).toEqual(blocks);
});

test.each<[string, string, number[]]>([
  [
    'a minified entry file',
    'import{x}from"m";var t={770:(e,t,r)=>{r(218)},218:function(e){}};var n={a:1};f({3:()=>1});',
    [770, 218]
  ],
  [
    'a chunk file',
    'export const id = 5;\nexport const modules = {\n/***/ 7712:\n/***/ ((module) => {}),\n"9": () => {}\n};',
    [7712, 9]
  ],
  [
    'an unminified entry file',
    '/******/ var __webpack_modules__ = ({\n\n/***/ 6752:\n/***/ ((module) => {\n})\n});',
    [6752]
  ],
  ['no module table', 'var t={};var n={1:2};console.log(1);', []]
])('moduleTableIds: %s', (_, code, ids) => {
  expect(tableIds(code)).toEqual(ids);
});
