// A job summary (GITHUB_STEP_SUMMARY: Markdown with some HTML, as @actions/core writes it) rendered as
// plain text for a terminal: headings underlined, tables aligned in columns, emphasis and tags dropped.

import {alignTable} from './align-table.js';

const ENTITIES: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' '};

/**
 * The summary as terminal lines (no trailing blank lines, never two blank lines in a row). Fenced code blocks
 * (an error, the build inputs, a bake definition; also inside a quote) are shown verbatim and indented, without
 * their fences; a quote's lines start with "│".
 */
export function summaryToText(summary: string): string[] {
  const lines: string[] = [];
  let prose: string[] = [];
  let fence: string | undefined;
  const flushProse = (): void => {
    lines.push(...proseToText(prose.join('\n')));
    prose = [];
  };
  for (const raw of summary.split('\n')) {
    const quote = /^ {0,3}>\s?/.exec(raw);
    const body = quote ? raw.slice(quote[0].length) : raw;
    if (fence !== undefined) {
      // CommonMark: a fence closes on a run of the same character at least as long.
      if (body.trim().startsWith(fence) && /^(`+|~+)$/.test(body.trim())) fence = undefined;
      else lines.push(`${quote ? '│ ' : ''}    ${body.trimEnd()}`);
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(body);
    if (open) {
      flushProse();
      fence = open[1];
      continue;
    }
    prose.push(raw);
  }
  flushProse();
  return squeezeBlank(lines);
}

/** Markdown (and some HTML) outside code blocks: headings underlined, tables aligned, quotes marked with "│". */
function proseToText(text: string): string[] {
  const lines: string[] = [];
  let table: string[][] = [];
  const flushTable = (): void => {
    if (table.length > 0) lines.push('', ...alignTable(table), '');
    table = [];
  };
  for (const raw of htmlToMarkdown(text).split('\n')) {
    const quote = /^ {0,3}>\s?/.exec(raw);
    const line = (quote ? raw.slice(quote[0].length) : raw).trimEnd();
    if (line.trimStart().startsWith('|')) {
      const cells = pipeCells(line);
      if (!cells.every(c => /^:?-{3,}:?$/.test(c))) table.push(cells.map(inline));
      continue;
    }
    flushTable();
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const title = inline(heading[2] ?? '');
      lines.push('', title, (heading[1]!.length <= 3 ? '═' : '─').repeat(Math.max(title.length, 3)));
    } else if (quote && line.trim() !== '') {
      lines.push(`│ ${inline(line)}`);
    } else {
      lines.push(inline(line));
    }
  }
  flushTable();
  return lines;
}

/** HTML tables, headings, paragraphs and details as the Markdown equivalents; other tags dropped. */
function htmlToMarkdown(text: string): string {
  return (
    text
      .replace(/<table>([\s\S]*?)<\/table>/gi, (_m, body: string) => `\n${htmlTable(body)}\n`)
      .replace(/<h([1-6])>([\s\S]*?)<\/h\1>/gi, (_m, level: string, t: string) => `\n${'#'.repeat(+level)} ${t}\n`)
      .replace(/<summary>([\s\S]*?)<\/summary>/gi, (_m, t: string) => `\n▸ ${t}\n`)
      .replace(/<\/?(p|div|details|ul|ol)>/gi, '\n')
      .replace(/<li>/gi, '\n- ')
      .replace(/<br\s*\/?>/gi, '\n')
      // A tag, not an escaped `\<` of text (markdown.ts mdText).
      .replace(/(?<!\\)<[^>]+>/g, '')
  );
}

function htmlTable(body: string): string {
  const rows = [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/gi)].map(row =>
    [...(row[1] ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/gi)].map(cell => cell[1]!.replace(/\|/g, '/'))
  );
  return rows.map(cells => `| ${cells.join(' | ')} |`).join('\n');
}

function pipeCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map(c => c.trim());
}

/** Emphasis, code spans, links, backslash escapes and entities of one line (its tags are gone: see htmlToMarkdown). */
function inline(text: string): string {
  return text
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(^|\s)_(\S(?:.*?\S)?)_(?=\s|$)/g, '$1$2')
    .replace(/\[((?:[^\]\\]|\\.)+)\]\(([^)]+)\)/g, '$1 ($2)')
    .replace(/\\([\\`*_{}[\]<>()#+!|~-])/g, '$1')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_m, name: string) => ENTITIES[name] ?? '');
}

function squeezeBlank(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.trim() === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line.trim() === '' ? '' : line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}
