// The licences of what an ncc bundle inlines: licenses.txt (for people) and modules.json (for the check) beside
// the bundle, computed from the webpack stats ncc writes with --stats-out.
// Why not ncc's own `--license licenses.txt`: ncc runs license-webpack-plugin with its default perChunkOutput, so
// every chunk writes its own list to that one file name and the last chunk wins. A bundle with dynamic-import chunks
// (ours: 377.index.js, 805.index.js) ends up listing only those chunks' packages, never the main chunk's.
// modules.json maps every webpack module id of the bundle to the packages whose files it holds, and records the
// sha256 of every file written with it, so checkBundle() can prove it belongs to the bundle beside it.
// Beside each package's licence files, licenses.txt carries the notices in the headers of the files the bundle
// inlines when the licence files do not already hold them (@bufbuild/protobuf ships no licence file; its files carry
// Buf's Apache-2.0 header and, for the code derived from Google's protobuf, Google's copyright with the BSD-3-Clause
// terms), and the full Apache License 2.0 text (from this repository's LICENSE) for a package that declares it but
// ships no copy: both licences require the notices and the licence text to go with a redistribution.
import {createHash} from 'node:crypto';
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs';
import {dirname, join, relative, sep} from 'node:path';
import ts from 'typescript';

export const LICENSES_FILE = 'licenses.txt';
export const MANIFEST_FILE = 'modules.json';
const RULE = '='.repeat(80);
const LICENCE_FILE = /^(licen[cs]e|copying|notice)([-._].*)?$/i;
const CODE_FILE = /\.([cm]?js|ts|json|map)$/i;
const APACHE_TITLE = 'Apache License, Version 2.0';
const APACHE_HEADING = `The text of the ${APACHE_TITLE}, for the packages above that declare it and ship no copy`;
const APACHE_POINTER = `The ${APACHE_TITLE}'s text is at the end of this file.`;
const NOTICES_HEADING = 'Notices in the headers of its files that this bundle inlines:';

/**
 * What a bundle holds, from ncc's webpack stats: the packages (ours and third-party) and, per module id, their keys.
 * @param {object} stats the JSON ncc writes with --stats-out
 * @param {string} root the repository root: packages under it outside node_modules/ are our own
 */
export function bundleContents(stats, root) {
  const packages = new Map(); // name@version -> {name, version, license, dirs, own}
  const modules = new Map(); // id -> Set of name@version
  const externals = [];
  let entry = null;
  const byDir = new Map();
  for (const mod of stats.modules ?? []) {
    if ((mod.chunks ?? []).length === 0 || mod.moduleType === 'runtime') continue; // orphans are inside another
    if (mod.id === null || mod.id === undefined) throw new Error(`bundle-licenses: module ${mod.name} has no id`);
    if (mod.depth === 0) entry = mod.id;
    if (/^external /.test(mod.identifier ?? '')) {
      externals.push(mod.id);
      continue;
    }
    const keys = new Set();
    for (const file of resources(mod)) {
      const pkg = packageOf(dirname(file), byDir);
      const key = `${pkg.name}@${pkg.version}`;
      const rel = relative(root, pkg.dir);
      const known = packages.get(key) ?? {
        name: pkg.name,
        version: pkg.version,
        license: licenseId(pkg.json),
        dirs: new Set(),
        files: new Set(),
        own: !rel.startsWith('..') && !rel.split(sep).includes('node_modules')
      };
      known.dirs.add(rel.split(sep).join('/'));
      known.files.add(file);
      packages.set(key, known);
      keys.add(key);
    }
    if (keys.size === 0) throw new Error(`bundle-licenses: module ${mod.id} (${mod.name}) has no source file`);
    modules.set(mod.id, keys);
  }
  if (modules.size === 0) throw new Error('bundle-licenses: the stats list no bundled module (ncc --stats-out?)');
  return {entry, packages, modules, externals};
}

/** The source files of a module: its own, or each inner module's when webpack concatenated several into one. */
function resources(mod) {
  if (mod.modules?.length) return mod.modules.flatMap(resources);
  return mod.nameForCondition ? [mod.nameForCondition] : [];
}

/** The nearest package.json with a name, upwards from dir (as Node and license-webpack-plugin find a package). */
function packageOf(dir, cache) {
  const seen = [];
  for (let d = dir; ; d = dirname(d)) {
    const hit = cache.get(d);
    if (hit) return remember(hit);
    seen.push(d);
    const file = join(d, 'package.json');
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, 'utf8'));
      if (json.name) return remember({name: json.name, version: json.version ?? '0.0.0', dir: d, json});
    }
    if (dirname(d) === d) throw new Error(`bundle-licenses: no package.json with a name above ${dir}`);
  }
  function remember(pkg) {
    for (const d of seen) cache.set(d, pkg);
    return pkg;
  }
}

/** The SPDX expression a package.json declares (`license`, or the old `licenses` array), or '' when none. */
export function licenseId(json) {
  if (typeof json.license === 'string') return json.license;
  if (json.license?.type) return json.license.type;
  if (Array.isArray(json.licenses)) return json.licenses.map(l => l.type ?? l).join(' OR ');
  return '';
}

/** The licence files a package ships (LICENSE*, LICENCE*, COPYING*, NOTICE*), as [file name, text], sorted. */
export function licenseFiles(dir) {
  return readdirSync(dir, {withFileTypes: true})
    .filter(e => e.isFile() && LICENCE_FILE.test(e.name) && !CODE_FILE.test(e.name))
    .map(e => e.name)
    .sort()
    .map(name => [name, readFileSync(join(dir, name), 'utf8').replace(/\r\n/g, '\n').trim()]);
}

/**
 * The comment blocks at the top of a source file (after a #! line and "use strict"), each as plain text without
 * the comment markers: where a file's copyright and licence header is.
 */
export function headerComments(code) {
  let rest = code.replace(/^#![^\n]*\n/, '');
  const blocks = [];
  let lines = [];
  const flush = () => {
    if (lines.length > 0) blocks.push(lines.join('\n').trim());
    lines = [];
  };
  for (;;) {
    rest = rest.replace(/^\s*(['"])use strict\1;?/, '');
    const blank = /^[ \t]*\r?\n/.test(rest); // after a // line: the next line is empty
    rest = rest.replace(/^\s+/, '');
    if (blank) flush();
    if (rest.startsWith('//')) {
      const end = rest.indexOf('\n');
      lines.push(
        rest
          .slice(2, end < 0 ? undefined : end)
          .replace(/^ ?/, '')
          .trimEnd()
      );
      rest = end < 0 ? '' : rest.slice(end + 1);
    } else if (rest.startsWith('/*')) {
      flush();
      const end = rest.indexOf('*/');
      if (end < 0) break;
      lines.push(
        ...rest
          .slice(2, end)
          .replace(/^[*!]/, '')
          .split('\n')
          .map(l => l.replace(/^\s*\* ?/, '').trimEnd())
      );
      flush();
      rest = rest.slice(end + 2);
    } else break;
  }
  flush();
  return blocks.filter(b => b !== '');
}

/**
 * The copyright notices in the headers of a package's inlined files that its licence files do not already hold:
 * each distinct header with a copyright line found neither in licenceText nor in an earlier header, in the order
 * of the sorted file names.
 */
export function fileNotices(files, licenceText) {
  const notices = [];
  for (const file of [...files].sort()) {
    if (!existsSync(file)) continue;
    for (const block of headerComments(readFileSync(file, 'utf8'))) {
      const copyrights = block.split('\n').filter(l => /copyright/i.test(l));
      if (copyrights.length === 0 || notices.includes(block)) continue;
      // A block whose copyright lines a licence file or an earlier notice already gives (a doc comment that
      // repeats the header's owner) adds nothing.
      if (copyrights.every(l => licenceText.includes(l.trim()) || notices.some(n => n.includes(l.trim())))) continue;
      notices.push(block);
    }
  }
  return notices;
}

/** The terms of the Apache License 2.0, from this repository's LICENSE (its appendix is a how-to, not terms). */
export function apacheLicenseText() {
  const text = readFileSync(new URL('../LICENSE', import.meta.url), 'utf8').replace(/\r\n/g, '\n');
  const end = text.indexOf('END OF TERMS AND CONDITIONS');
  if (!/Apache License\s+Version 2\.0/.test(text) || end < 0)
    throw new Error('bundle-licenses: LICENSE is not the Apache License 2.0 text with its END OF TERMS AND CONDITIONS');
  return text
    .slice(0, end + 'END OF TERMS AND CONDITIONS'.length)
    .replace(/^\s*\n/, '')
    .trimEnd();
}

/** True when an SPDX expression names Apache-2.0. */
const declaresApache = license => /(^|[\s(])Apache-2\.0([\s)]|$)/.test(license);

/** licenses.txt: every third-party package of the bundle, by name then version, with its licence text. */
export function renderLicenses(packages, root) {
  const parts = [
    'Third-party software inlined in this bundle (index.js and its numbered chunk files), with its licences.',
    'The rest is the code of remote-builder-actions, Copyright 2026 The remote-builder-actions authors, licensed',
    'Apache-2.0 (LICENSE at the root of its repository).',
    ''
  ];
  const third = [...packages.values()].filter(p => !p.own).sort(byNameVersion);
  let apache = false;
  for (const pkg of third) {
    if (pkg.license === '') {
      throw new Error(
        `bundle-licenses: ${pkg.name}@${pkg.version} has no "license" in its package.json: find its licence ` +
          'and make sure it may be bundled before shipping it'
      );
    }
    const dir = join(root, [...pkg.dirs][0]);
    const files = licenseFiles(dir);
    parts.push(RULE, `${pkg.name} ${pkg.version}`, `License: ${pkg.license}`, '-'.repeat(80));
    if (files.length === 0) {
      parts.push(`The package ships no licence file; its package.json declares the licence ${pkg.license}.`);
      if (declaresApache(pkg.license)) {
        parts.push(APACHE_POINTER);
        apache = true;
      }
    }
    if (files.length > 0) {
      parts.push(files.map(([name, text]) => (files.length > 1 ? `${name}:\n${text}` : text)).join('\n\n'));
    }
    const notices = fileNotices(pkg.files ?? [], files.map(([, text]) => text).join('\n'));
    if (notices.length > 0) parts.push('', NOTICES_HEADING, '', notices.join('\n\n'));
    parts.push('');
  }
  if (apache) parts.push(RULE, APACHE_HEADING, '-'.repeat(80), apacheLicenseText(), '');
  return `${parts.join('\n')}\n`;
}

function byNameVersion(a, b) {
  return a.name === b.name ? (a.version < b.version ? -1 : 1) : a.name < b.name ? -1 : 1;
}

/** sha256 of every file in a bundle folder but the two this module writes. */
export function bundleFileHashes(dir) {
  const hashes = {};
  for (const name of readdirSync(dir).sort()) {
    if (name === LICENSES_FILE || name === MANIFEST_FILE) continue;
    hashes[name] = createHash('sha256')
      .update(readFileSync(join(dir, name)))
      .digest('hex');
  }
  return hashes;
}

/** Writes licenses.txt and modules.json into outDir, the folder ncc wrote the bundle into. */
export function writeBundleLicenses(stats, outDir, root) {
  const {entry, packages, modules, externals} = bundleContents(stats, root);
  writeFileSync(join(outDir, LICENSES_FILE), renderLicenses(packages, root));
  const manifest = {
    about: 'Written by scripts/bundle-licenses.mjs with the bundle: what each module id holds; checked by a test.',
    files: bundleFileHashes(outDir),
    entry,
    externals: externals.sort((a, b) => a - b),
    packages: Object.fromEntries(
      [...packages.entries()]
        .sort(([, a], [, b]) => byNameVersion(a, b))
        .map(([key, p]) => [
          key,
          {
            license: p.license,
            own: p.own,
            dirs: [...p.dirs].sort(),
            modules: [...modules]
              .filter(([, keys]) => keys.has(key))
              .map(([id]) => id)
              .sort((a, b) => a - b)
          }
        ])
    )
  };
  // One line per array: the module lists stay short to read and to diff.
  const json = JSON.stringify(manifest, null, 1).replace(
    /\[([^[\]{}]*)\]/g,
    (_, items) => `[${items.replace(/\s*\n\s*/g, '')}]`
  );
  writeFileSync(join(outDir, MANIFEST_FILE), `${json}\n`);
  return manifest;
}

/**
 * The module ids a bundle file defines: the keys of its webpack module tables (index.js's `var t={770:(e,t,r)=>…}`,
 * unminified `var __webpack_modules__ = ({…})`, a chunk's `export const modules = {…}`), read with TypeScript's parser.
 */
export function moduleTableIds(code) {
  const file = ts.createSourceFile('bundle.js', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const ids = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const decl of statement.declarationList.declarations) {
      const init = decl.initializer && unparenthesized(decl.initializer);
      if (!init || !ts.isObjectLiteralExpression(init) || init.properties.length === 0) continue;
      const table = init.properties.every(
        p =>
          ts.isPropertyAssignment(p) &&
          (ts.isNumericLiteral(p.name) || (ts.isStringLiteral(p.name) && /^\d+$/.test(p.name.text))) &&
          isFunction(p.initializer)
      );
      if (table) ids.push(...init.properties.map(p => Number(p.name.text)));
    }
  }
  return ids;
}

function unparenthesized(node) {
  while (ts.isParenthesizedExpression(node)) node = node.expression;
  return node;
}

function isFunction(node) {
  const fn = unparenthesized(node);
  return ts.isArrowFunction(fn) || ts.isFunctionExpression(fn);
}

/**
 * Problems with the licences of the bundle in dir (none: []): modules.json must be the one written with these very
 * files and account for every module they define, and licenses.txt must carry each third-party package it names,
 * with the licence text of the installed package when node_modules holds that version.
 */
export function checkBundle(dir, root) {
  const problems = [];
  const inRoot = relative(root, dir);
  const where = inRoot === '' || inRoot.startsWith('..') ? dir : inRoot;
  let manifest;
  let licenses;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8'));
    licenses = readFileSync(join(dir, LICENSES_FILE), 'utf8');
  } catch (e) {
    return [`${where}: ${e.message} (rebuild it with npm run bundle)`];
  }
  const files = bundleFileHashes(dir);
  if (JSON.stringify(files) !== JSON.stringify(manifest.files ?? {})) {
    problems.push(`${where}: ${MANIFEST_FILE} was not written with these bundle files (rebuild with npm run bundle)`);
  }
  const claimed = new Set([manifest.entry, ...(manifest.externals ?? [])]);
  for (const p of Object.values(manifest.packages ?? {})) for (const id of p.modules) claimed.add(id);
  const defined = new Set(
    Object.keys(files)
      .filter(f => f.endsWith('.js'))
      .flatMap(f => moduleTableIds(readFileSync(join(dir, f), 'utf8')))
  );
  const unclaimed = [...defined].filter(id => !claimed.has(id));
  if (unclaimed.length > 0) problems.push(`${where}: ${MANIFEST_FILE} does not account for modules ${unclaimed}`);
  const absent = [...claimed].filter(id => id !== manifest.entry && !defined.has(id));
  if (absent.length > 0) problems.push(`${where}: ${MANIFEST_FILE} lists modules ${absent} the bundle lacks`);

  const sections = new Map(
    licenses
      .split(`${RULE}\n`)
      .slice(1)
      .map(s => [s.slice(0, s.indexOf('\n')), s])
  );
  for (const [key, p] of Object.entries(manifest.packages ?? {})) {
    if (p.own) continue;
    const version = key.slice(key.lastIndexOf('@') + 1);
    const name = key.slice(0, key.lastIndexOf('@'));
    const section = sections.get(`${name} ${version}`);
    if (!section) {
      problems.push(`${where}: ${LICENSES_FILE} lacks ${name} ${version}, which the bundle inlines`);
      continue;
    }
    if (!section.includes(`\nLicense: ${p.license}\n`)) {
      problems.push(`${where}: ${LICENSES_FILE} does not give ${name} ${version} the licence ${p.license}`);
    }
    for (const rel of p.dirs) {
      const pkgDir = join(root, rel);
      if (!existsSync(join(pkgDir, 'package.json'))) continue;
      if (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version !== version) continue;
      const texts = licenseFiles(pkgDir);
      const missing = texts.filter(([, text]) => !section.includes(text));
      if (missing.length > 0 || (texts.length === 0 && !section.includes('ships no licence file'))) {
        problems.push(`${where}: ${LICENSES_FILE} lacks the licence text of ${name} ${version} (${rel})`);
      }
      if (
        texts.length === 0 &&
        declaresApache(p.license) &&
        !(
          section.includes(APACHE_POINTER) &&
          licenses.includes(`${APACHE_HEADING}\n${'-'.repeat(80)}\n${apacheLicenseText()}\n`)
        )
      ) {
        problems.push(
          `${where}: ${LICENSES_FILE} lacks the ${APACHE_TITLE}'s text for ${name} ${version}, which ships no copy`
        );
      }
    }
  }
  return problems;
}
