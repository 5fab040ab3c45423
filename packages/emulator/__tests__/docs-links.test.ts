// The documentation a user reads (README.md, docs/, the actions' and packages' READMEs, CONTRIBUTING,
// SECURITY, CHANGELOG) holds no dead end:
// - every relative link names a file of the repository, and every #anchor a heading of that file (GitHub's
//   slugs);
// - every `npm run <script>` in a code block is a script of package.json, and every `scripts/…`,
//   `packages/…`, `examples/…` or `docs/…` path a command names exists;
// - every YAML snippet parses (a fragment of a steps list too).
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {dirname, join, relative, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, test} from '@jest/globals';
import {parse} from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const mdIn = (dir: string): string[] =>
  existsSync(join(ROOT, dir))
    ? readdirSync(join(ROOT, dir))
        .filter(f => f.endsWith('.md'))
        .map(f => join(dir, f))
    : [];

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  'CHANGELOG.md',
  ...mdIn('docs'),
  ...['configure', 'build-push', 'bake'].map(a => `actions/${a}/README.md`),
  ...['core', 'cli', 'emulator'].map(p => `packages/${p}/README.md`),
  'examples/README.md'
].filter(f => existsSync(join(ROOT, f)));

/** GitHub's heading anchor: lowercase, punctuation dropped (but - and _), spaces to hyphens; repeats get -1, -2. */
export function slugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = (m[1] as string)
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase();
    const base = text
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The text outside fenced code blocks, and the fenced blocks with their language. */
function split(markdown: string): {prose: string; blocks: {lang: string; code: string}[]} {
  const prose: string[] = [];
  const blocks: {lang: string; code: string}[] = [];
  let block: {lang: string; lines: string[]; indent: number} | undefined;
  for (const line of markdown.split('\n')) {
    const fence = /^(\s*)```\s*([\w-]*)/.exec(line);
    if (fence && !block) {
      block = {lang: fence[2] as string, lines: [], indent: (fence[1] as string).length};
    } else if (fence && block) {
      blocks.push({lang: block.lang, code: block.lines.map(l => l.slice(block?.indent)).join('\n')});
      block = undefined;
    } else if (block) block.lines.push(line);
    else prose.push(line.replace(/`[^`]*`/g, ''));
  }
  return {prose: prose.join('\n'), blocks};
}

const text = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const scripts = Object.keys((JSON.parse(text('package.json')) as {scripts: Record<string, string>}).scripts);

describe.each(DOCS.map(f => [f]))('%s', file => {
  const {prose, blocks} = split(text(file));

  test('every relative link and anchor resolves', () => {
    const dead: string[] = [];
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const to = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
      if (!existsSync(to)) {
        dead.push(`${target}: no file ${relative(ROOT, to)}`);
        continue;
      }
      if (anchor !== undefined && to.endsWith('.md') && !slugs(readFileSync(to, 'utf8')).has(anchor)) {
        dead.push(`${target}: no heading #${anchor} in ${relative(ROOT, to)}`);
      }
    }
    expect(dead).toEqual([]);
  });

  test('every npm script and repository path a command names exists', () => {
    const bad: string[] = [];
    for (const b of blocks.filter(b => ['sh', 'bash', 'shell', 'console', ''].includes(b.lang))) {
      for (const m of b.code.matchAll(/\bnpm run ([\w:-]+)/g)) {
        if (!scripts.includes(m[1] as string)) bad.push(`npm run ${m[1]}: no such script in package.json`);
      }
      for (const m of b.code.matchAll(/(?:^|[\s"'=])((?:scripts|packages|examples|docs)\/[\w./-]+)/gm)) {
        const p = (m[1] as string).replace(/[.,:;]+$/, '');
        if (!existsSync(join(ROOT, p))) bad.push(`${p}: no such path`);
      }
    }
    expect(bad).toEqual([]);
  });

  test('every YAML snippet parses', () => {
    const bad: string[] = [];
    for (const b of blocks.filter(b => b.lang === 'yaml' || b.lang === 'yml')) {
      const lines = b.code.split('\n');
      const indent = Math.min(...lines.filter(l => l.trim() !== '').map(l => /^ */.exec(l)?.[0].length ?? 0));
      try {
        parse(lines.map(l => l.slice(indent)).join('\n'));
      } catch (e) {
        bad.push(`${(e as Error).message.split('\n')[0]} in:\n${b.code.slice(0, 200)}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

test('slugs follow GitHub', () => {
  expect([...slugs('# A b\n## `builder` and profile-name\n## A b\n## What: cost & time?\n```\n# not\n```')]).toEqual([
    'a-b',
    'builder-and-profile-name',
    'a-b-1',
    'what-cost--time'
  ]);
});
