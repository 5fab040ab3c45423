// The shape of packages/core that docs/architecture.md draws, checked on the sources: folders in layers
// (imports only point down), no import circle, no source file over 300 lines, and entry points that name
// what they export. Imports are read as text: our sources use `import … from './x.js'` and `import('./x.js')`.
import {describe, expect, test} from '@jest/globals';
import {readdirSync, readFileSync, statSync} from 'node:fs';
import {dirname, join, relative, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * The folders of core from the bottom up; a file may import from its own layer or a lower one. The files at
 * the top of src/ form the base layer ('.'), except the entry points, which sit above everything; only the
 * price table (billing/, pure data) lies below it.
 */
const LAYERS = [
  'billing',
  '.',
  'net',
  'api',
  'docker',
  'buildx-install',
  'buildx',
  'certs',
  'lifecycle',
  'report',
  'record',
  'adapters',
  'provisioning'
] as const;

/** The modules package.json's `exports` name (and early.ts, the actions' first import). */
const ENTRY_POINTS = ['index.ts', 'step.ts', 'ci.ts', 'early.ts'];

const MAX_LINES = 300;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC);
const rel = (file: string): string => relative(SRC, file);
/** Each file's imports of other core sources (relative specifiers only; packages are not ours). */
const imports = new Map(
  files.map(file => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(m => m[1] ?? '');
    const targets = specifiers.map(s => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
    return [file, [...new Set(targets.filter(t => files.includes(t)))]] as const;
  })
);
const isEntry = (file: string): boolean => ENTRY_POINTS.includes(rel(file));
const folderOf = (file: string): string => (rel(file).includes('/') ? (rel(file).split('/')[0] ?? '.') : '.');

describe('packages/core/src', () => {
  test('every folder is in a layer', () => {
    const folders = new Set(files.map(folderOf));
    expect([...folders].filter(f => !(LAYERS as readonly string[]).includes(f))).toEqual([]);
  });

  test('imports point down the layers, never up', () => {
    const layer = (file: string): number => (LAYERS as readonly string[]).indexOf(folderOf(file));
    const up: string[] = [];
    for (const [file, targets] of imports) {
      if (isEntry(file)) continue;
      for (const t of targets) {
        if (isEntry(t) || layer(t) > layer(file)) up.push(`${rel(file)} -> ${rel(t)}`);
      }
    }
    expect(up).toEqual([]);
  });

  test('no import circle', () => {
    // Tarjan's strongly connected components: every component of more than one file is a circle.
    let next = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    const visit = (v: string): void => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const w of imports.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) !== index.get(v)) return;
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(rel(w));
      } while (w !== v);
      if (component.length > 1) circles.push(component.sort());
    };
    for (const f of files) if (!index.has(f)) visit(f);
    expect(circles).toEqual([]);
  });

  test(`no source file over ${MAX_LINES} lines`, () => {
    const long = files
      .map(f => ({file: rel(f), lines: readFileSync(f, 'utf8').split('\n').length - 1}))
      .filter(f => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  test('the entry points name what they export (no `export *`)', () => {
    const star = ENTRY_POINTS.filter(e => files.includes(join(SRC, e))).filter(e =>
      /^export \* from/m.test(readFileSync(join(SRC, e), 'utf8'))
    );
    expect(star).toEqual([]);
  });
});
