// The documentation against the actions' action.yml:
// - each actions/<name>/README.md has, under "## Inputs", a table row for EVERY input (docker's too) whose
//   Default cell is the action.yml default (`value`, or — / free text without a literal when there is none),
//   and, under "## Outputs", a row for every output; and no row for something action.yml lacks;
// - every YAML snippet in README.md and the actions' READMEs that uses one of our actions passes only inputs
//   it has, and gives the API URL (`api-url`, or REMOTE_BUILDER_API_URL in the snippet), unless it builds on
//   an existing `builder`.
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, test} from '@jest/globals';
import {parse} from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  inputs: Record<string, {default?: unknown; required?: boolean; description?: string}>;
  outputs: Record<string, {description?: string}>;
}

const ACTIONS = readdirSync(join(ROOT, 'actions'), {withFileTypes: true})
  .filter(d => d.isDirectory())
  .map(d => d.name)
  .sort();

const manifest = (name: string): Manifest => {
  const doc = parse(readFileSync(join(ROOT, 'actions', name, 'action.yml'), 'utf8')) as Partial<Manifest>;
  return {inputs: doc.inputs ?? {}, outputs: doc.outputs ?? {}};
};

/** The lines of a markdown document between `## <title>` and the next `## ` heading. */
function section(markdown: string, title: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex(l => l.trim() === `## ${title}`);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Table rows whose first cell is a `name`: name → the other cells. */
function tableRows(lines: string[]): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of lines) {
    const m = /^\|\s*`([a-z][a-z0-9-]*)`\s*\|(.*)\|\s*$/.exec(line.trim());
    if (!m) continue;
    const cells = (m[2] as string).split(/(?<!\\)\|/).map(c => c.trim());
    if (rows.has(m[1] as string)) throw new Error(`the table lists \`${m[1]}\` twice`);
    rows.set(m[1] as string, cells);
  }
  return rows;
}

/** Problems of a Default cell against the action.yml default. */
function defaultProblem(name: string, yamlDefault: unknown, cell: string): string | undefined {
  if (yamlDefault === undefined) {
    // No default in action.yml: the cell may say "—" or explain (e.g. env `REMOTE_BUILDER_API_URL`), but not
    // show a literal value as if it were the default.
    if (/^`[^`]*`$/.test(cell)) return `${name}: README shows the default ${cell}, action.yml has none`;
    return undefined;
  }
  const want = `\`${String(yamlDefault)}\``;
  return cell === want ? undefined : `${name}: README default is ${cell || '(empty)'}, action.yml says ${want}`;
}

describe.each(ACTIONS)('actions/%s/README.md', name => {
  const readme = readFileSync(join(ROOT, 'actions', name, 'README.md'), 'utf8');
  const {inputs, outputs} = manifest(name);

  test('its Inputs table lists every input of action.yml, with the same default and a description', () => {
    const rows = tableRows(section(readme, 'Inputs'));
    expect([...rows.keys()].sort()).toEqual(Object.keys(inputs).sort());
    const problems: string[] = [];
    for (const [input, spec] of Object.entries(inputs)) {
      const [cell = '', description = ''] = rows.get(input) ?? [];
      const p = defaultProblem(input, spec.default, cell);
      if (p) problems.push(p);
      if (description.length < 5) problems.push(`${input}: no description`);
    }
    expect(problems).toEqual([]);
  });

  test('its Outputs table lists every output of action.yml, with a description', () => {
    const rows = tableRows(section(readme, 'Outputs'));
    expect([...rows.keys()].sort()).toEqual(Object.keys(outputs).sort());
    for (const [output, [description = ''] = []] of rows)
      expect({output, description}).not.toEqual({output, description: ''});
  });
});

test('the table check fails on a missing row and on a wrong default', () => {
  const md = [
    '## Inputs',
    '',
    '| Input | Default | Description |',
    '| --- | --- | --- |',
    '| `push` | `true` | Push. |'
  ];
  const rows = tableRows(section(md.join('\n'), 'Inputs'));
  expect([...rows.keys()]).toEqual(['push']);
  expect(defaultProblem('push', 'false', rows.get('push')![0]!)).toBe(
    'push: README default is `true`, action.yml says `false`'
  );
  expect(defaultProblem('tags', undefined, '`latest`')).toMatch(/action\.yml has none/);
  expect(defaultProblem('api-url', undefined, 'env `REMOTE_BUILDER_API_URL`')).toBeUndefined();
});

/** Our actions, published or local: `<owner>/remote-builder-actions/actions/<name>@v1` or `./actions/<name>`. */
const OURS = /(?:\/remote-builder-actions\/actions\/|^\.\/actions\/)([a-z-]+)(?:@|$)/;

interface Snippet {
  file: string;
  line: number;
  text: string;
}

/** The ```yaml blocks of a markdown file, and the + and context lines of its ```diff blocks. */
function yamlSnippets(file: string, markdown: string): Snippet[] {
  const out: Snippet[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(yaml|yml|diff)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j] as string); j++) body.push(lines[j] as string);
    const text =
      open[1] === 'diff'
        ? body
            .filter(l => !l.startsWith('-'))
            .map(l => (l.startsWith('+') ? ` ${l.slice(1)}` : l))
            .join('\n')
        : body.join('\n');
    out.push({file, line: i + 1, text});
    i = j;
  }
  return out;
}

/** Every `{uses, with}` object in a parsed snippet. */
function stepsIn(node: unknown): {uses: string; with?: Record<string, unknown>}[] {
  if (Array.isArray(node)) return node.flatMap(stepsIn);
  if (node === null || typeof node !== 'object') return [];
  const o = node as Record<string, unknown>;
  const own = typeof o['uses'] === 'string' ? [o as {uses: string; with?: Record<string, unknown>}] : [];
  return [...own, ...Object.values(o).flatMap(stepsIn)];
}

/** Problems of one snippet: unknown inputs, a missing API URL. */
function snippetProblems(s: Snippet): string[] {
  if (!OURS.test(s.text)) return [];
  const where = `${s.file}:${s.line}`;
  let doc: unknown;
  try {
    doc = parse(s.text.replace(/^(\s*)\.\.\.$/gm, ''));
  } catch (e) {
    return [`${where}: not valid YAML: ${(e as Error).message.split('\n')[0]}`];
  }
  const problems: string[] = [];
  for (const step of stepsIn(doc)) {
    const m = OURS.exec(step.uses);
    if (!m) continue;
    const action = m[1] as string;
    if (!ACTIONS.includes(action)) {
      problems.push(`${where}: uses ${step.uses}, but there is no actions/${action}`);
      continue;
    }
    const given = Object.keys(step.with ?? {});
    const {inputs} = manifest(action);
    for (const k of given) if (!(k in inputs)) problems.push(`${where}: "${k}" is not an input of actions/${action}`);
    const onExistingBuilder = given.includes('builder');
    if (!onExistingBuilder && !given.includes('api-url') && !s.text.includes('REMOTE_BUILDER_API_URL')) {
      problems.push(
        `${where}: ${action} without api-url (or REMOTE_BUILDER_API_URL in env): the service has no default URL`
      );
    }
  }
  return problems;
}

const DOCS = ['README.md', ...ACTIONS.map(a => `actions/${a}/README.md`)];

test.each(DOCS)('every snippet of %s that uses our actions gives valid inputs and the API URL', doc => {
  const snippets = yamlSnippets(doc, readFileSync(join(ROOT, doc), 'utf8'));
  expect(snippets.flatMap(snippetProblems)).toEqual([]);
});

test('the snippet check catches a snippet without api-url and an input the action lacks', () => {
  const bad: Snippet = {
    file: 'x.md',
    line: 3,
    text: '- uses: o/remote-builder-actions/actions/build-push@v1\n  with:\n    profile-name: p\n    api-key: k\n    tagz: a'
  };
  expect(snippetProblems(bad)).toEqual([
    'x.md:3: "tagz" is not an input of actions/build-push',
    'x.md:3: build-push without api-url (or REMOTE_BUILDER_API_URL in env): the service has no default URL'
  ]);
  const diff = yamlSnippets(
    'd.md',
    '```diff\n-     - uses: docker/build-push-action@v6\n+     - uses: o/remote-builder-actions/actions/build-push@v1\n        with:\n+         api-url: https://x\n          tags: a\n```\n'
  );
  expect(diff.flatMap(snippetProblems)).toEqual([]);
});
