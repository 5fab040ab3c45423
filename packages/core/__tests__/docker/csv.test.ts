import {describe, expect, test} from '@jest/globals';
import {readFileSync} from 'node:fs';
import {parseCsv, CsvError} from '../../src/docker/csv.js';
import {OPTION_SETS, outcome, runCorpus} from './csv-corpus.js';

interface Fixture {
  seed: number;
  count: number;
  chunk: number;
  optionSets: unknown[];
  legacyDigests: string[];
  digests: string[];
  sample: [number, number, string, string][];
  diverged: [number, number, string, string, string][];
}

const fixture = JSON.parse(readFileSync(new URL('./fixtures/csv-corpus.json', import.meta.url), 'utf8')) as Fixture;

/**
 * csv-parse costs 50-200 µs a call (it builds its options and state each time), so by default the test runs
 * the first CHUNKS chunks of the corpus (5000 cases, besides the sample and the divergent cases above);
 * CSV_CORPUS=full runs all of it (as was done to replace the parser).
 */
const CHUNKS = process.env['CSV_CORPUS'] === 'full' ? fixture.digests.length : 5;

/** The first chunk whose digest differs, to point at the cases to look at. */
function firstDifference(got: string[], want: string[]): string {
  const i = got.findIndex((d, n) => d !== want[n]);
  return i < 0 && got.length === want.length ? 'none' : `chunk ${i} (cases ${i * fixture.chunk}…)`;
}

describe('parseCsv on the seeded corpus', () => {
  test('the option sets are the ones the fixture was recorded with', () => {
    expect(OPTION_SETS).toEqual(fixture.optionSets);
  });

  test('the readable sample reads as the former parser read it', () => {
    for (const [, opts, text, result] of fixture.sample) {
      expect([text, outcome(parseCsv, text, OPTION_SETS[opts]!)]).toEqual([text, result]);
    }
  });

  test('where csv-parse 7 and the former parser part, parseCsv reads as csv-parse 7 (docker)', () => {
    for (const [, opts, text, , csvParse] of fixture.diverged) {
      expect([text, outcome(parseCsv, text, OPTION_SETS[opts]!)]).toEqual([text, csvParse]);
    }
  });

  test(`the first ${CHUNKS * fixture.chunk} of ${fixture.count} cases read as recorded`, () => {
    const got = runCorpus(parseCsv, {...fixture, count: Math.min(fixture.count, CHUNKS * fixture.chunk)});
    // The former parser's results on every case outside divergent(); then every case, as csv-parse 7 reads it.
    expect(firstDifference(got.legacyDigests, fixture.legacyDigests.slice(0, CHUNKS))).toBe('none');
    expect(firstDifference(got.digests, fixture.digests.slice(0, CHUNKS))).toBe('none');
  }, 180_000);
});

describe('parseCsv errors', () => {
  test.each([
    ['"open', {}, 'CSV_QUOTE_NOT_CLOSED', /^Malformed CSV \(line 1\): a quote is not closed; close it/],
    ['a"b', {}, 'INVALID_OPENING_QUOTE', /invalid opening quote: a quote inside an unquoted field; quote the whole/],
    ['"a"b', {}, 'CSV_INVALID_CLOSING_QUOTE', /invalid closing quote: a quoted field must end at a delimiter/],
    ['x\n"a" x', {trim: true}, 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE', /\(line 2\): non-blank character after/]
  ])('%j %j: %s', (text, opts, code, message) => {
    let err: unknown;
    try {
      parseCsv(text, opts);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CsvError);
    expect((err as CsvError).code).toBe(code);
    expect((err as CsvError).message).toMatch(message);
  });

  test('the message says on which line', () => {
    expect(() => parseCsv('a,b\n"c')).toThrow(/^Malformed CSV \(line 2\): a quote is not closed/);
  });

  test('relaxQuotes keeps stray quotes; an unclosed one still fails', () => {
    expect(parseCsv('a"b,"c"d', {relaxQuotes: true})).toEqual([['a"b', '"c"d']]);
    expect(() => parseCsv('"x', {relaxQuotes: true})).toThrow(CsvError);
  });
});
