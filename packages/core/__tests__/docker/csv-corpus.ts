import {createHash} from 'node:crypto';
import type {CsvOpts} from '../../src/docker/csv.js';

/**
 * A seeded corpus of random CSV texts, used to prove that parseCsv (csv-parse underneath) reads every one
 * of them exactly as our former hand-written parser did. Its results are pinned in
 * fixtures/csv-corpus.json: one digest per chunk of cases plus a readable sample.
 */

/** The option sets our callers pass (input-list, attestations, bake-definition) and a few neighbours. */
export const OPTION_SETS: CsvOpts[] = [
  {},
  {trim: true},
  {skipEmptyLines: true},
  {relaxQuotes: true, skipEmptyLines: true},
  {relaxQuotes: true, skipEmptyLines: true, quote: false},
  {relaxQuotes: true, skipEmptyLines: true, comment: '#', commentNoInfix: false},
  {relaxQuotes: true, skipEmptyLines: true, comment: '#', commentNoInfix: true},
  {relaxQuotes: true, quote: false, trim: true},
  {relaxQuotes: true, quote: false, skipEmptyLines: true},
  {relaxQuotes: true, trim: true}
];

/** mulberry32: a small, fast, seeded PRNG; returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// prettier-ignore
const TOKENS = [
  'a', 'b', 'xyz', ' ', ' ', '  ', '\t', ',', ',', ',', '"', '"', '"', '""', '\n', '\n', '\r\n', '\r', '#', '=',
  'type=local', 'é', '日本', '🐳', '\\', '\u00a0', '\f', "'", 'k=v'
];

/** One random text: half free-form token soup, half CSV-shaped records (quoted fields, escaped quotes). */
export function corpusText(rnd: () => number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  if (rnd() < 0.5) {
    let s = '';
    const n = Math.floor(rnd() * 20);
    for (let i = 0; i < n; i++) s += pick(TOKENS);
    return s;
  }
  const records: string[] = [];
  const nrec = 1 + Math.floor(rnd() * 3);
  for (let r = 0; r < nrec; r++) {
    const fields: string[] = [];
    const nf = Math.floor(rnd() * 4);
    for (let f = 0; f < nf; f++) {
      let v = '';
      const len = Math.floor(rnd() * 4);
      for (let i = 0; i < len; i++) v += pick(TOKENS.filter(t => t !== '"' && t !== '""'));
      const style = rnd();
      if (style < 0.35) v = `"${v.replace(/"/g, '""')}"`;
      else if (style < 0.45) v = `${pick([' ', '', '  '])}"${v}${pick(['""', ''])}"${pick([' ', '', 'x'])}`;
      else v = v.replace(/[,"\n\r]/g, '');
      fields.push(v);
    }
    records.push(fields.join(pick([',', ',', ', '])));
  }
  return records.join(pick(['\n', '\n', '\r\n', '\r'])) + pick(['', '', '\n', '\r\n', ' ']);
}

/** The result of one parse, as a comparable string: the records as JSON, or `!` and the kind of error. */
export function outcome(parse: (text: string, opts: CsvOpts) => string[][], text: string, opts: CsvOpts): string {
  try {
    return JSON.stringify(parse(text, opts));
  } catch (e) {
    const m =
      /invalid closing quote|invalid opening quote|non-blank character after a closing quote|a quote is not closed/i.exec(
        (e as Error).message
      );
    return `!${m ? m[0].toLowerCase() : (e as Error).message}`;
  }
}

export interface CorpusCase {
  index: number;
  text: string;
  opts: number;
  result: string;
}

/**
 * Where csv-parse 7 (docker's parser) and the former parser (modelled on csv-parse 5) part: with trim, csv-parse 7
 * strips every ECMAScript blank (7.0.0, "align trim with ECMAScript whitespace", #483) where csv-parse 5 stripped
 * space, tab, CR, LF and FF; and it rejects a multi-byte blank (U+00A0, U+3000…) after a closing quote.
 * The corpus's only such blank is U+00A0.
 */
export function divergent(text: string, opts: CsvOpts): boolean {
  return opts.trim === true && text.includes('\u00a0');
}

export interface CorpusDigests {
  /** One digest per chunk over every case. */
  digests: string[];
  /** The same over the cases that are not divergent(): those the former parser must agree on. */
  legacyDigests: string[];
}

/** Runs `count` seeded cases through parse; calls back per case and returns the digests of each chunk. */
export function runCorpus(
  parse: (text: string, opts: CsvOpts) => string[][],
  spec: {seed: number; count: number; chunk: number},
  each?: (c: CorpusCase) => void
): CorpusDigests {
  const rnd = prng(spec.seed);
  const out: CorpusDigests = {digests: [], legacyDigests: []};
  let all = createHash('sha256');
  let legacy = createHash('sha256');
  for (let index = 0; index < spec.count; index++) {
    const text = corpusText(rnd);
    const opts = Math.floor(rnd() * OPTION_SETS.length);
    const result = outcome(parse, text, OPTION_SETS[opts] as CsvOpts);
    const line = `${JSON.stringify(text)}\t${opts}\t${result}\n`;
    all.update(line);
    if (!divergent(text, OPTION_SETS[opts] as CsvOpts)) legacy.update(line);
    each?.({index, text, opts, result});
    if ((index + 1) % spec.chunk === 0 || index + 1 === spec.count) {
      out.digests.push(all.digest('hex').slice(0, 16));
      out.legacyDigests.push(legacy.digest('hex').slice(0, 16));
      all = createHash('sha256');
      legacy = createHash('sha256');
    }
  }
  return out;
}
