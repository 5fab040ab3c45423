import {CsvError as CsvParseError, parse, type Options} from 'csv-parse/sync';

/** Options of parseCsv: the subset of csv-parse that docker's actions use. */
export interface CsvOpts {
  /** Field delimiter; default ','. */
  delimiter?: string;
  /** Quote character; default '"'; false disables quoting. The escape character is the quote itself (`""`). */
  quote?: string | false;
  /** Trim blanks around fields (outside quotes), like csv-parse `trim`. */
  trim?: boolean;
  /** Keep stray quotes inside unquoted fields instead of failing, like csv-parse `relax_quotes`. */
  relaxQuotes?: boolean;
  /** Emit no record for an empty line. */
  skipEmptyLines?: boolean;
  /** Comment character: the rest of the line is ignored. */
  comment?: string;
  /** Only a comment character at the start of a record starts a comment. */
  commentNoInfix?: boolean;
}

/** A malformed CSV text (only raised when relaxQuotes is off, or for an unclosed quote). */
export class CsvError extends Error {
  /** csv-parse's error code, e.g. CSV_QUOTE_NOT_CLOSED. */
  readonly code: string;
  constructor(message: string, code = 'CSV_ERROR') {
    super(message);
    this.name = 'CsvError';
    this.code = code;
  }
}

/** Our wording of csv-parse's errors, and what to do about each. */
const MESSAGES: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quote is not closed; close it, or write a literal quote as ""',
  CSV_INVALID_CLOSING_QUOTE: 'invalid closing quote: a quoted field must end at a delimiter or line break',
  INVALID_OPENING_QUOTE: 'invalid opening quote: a quote inside an unquoted field; quote the whole field',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'non-blank character after a closing quote'
};

/**
 * Parses CSV records with csv-parse and `relax_column_count` (records of any length), as
 * @docker/actions-toolkit does for its list inputs and attribute checks (src/util.ts Util.getList,
 * src/buildx/build.ts). The record delimiter is discovered from the first line break (`\r\n`, `\n` or `\r`).
 */
export function parseCsv(text: string, opts: CsvOpts = {}): string[][] {
  const options: Options = {
    columns: false,
    relax_column_count: true,
    delimiter: opts.delimiter ?? ',',
    quote: opts.quote === false ? null : (opts.quote ?? '"'),
    trim: opts.trim ?? false,
    relax_quotes: opts.relaxQuotes ?? false,
    skip_empty_lines: opts.skipEmptyLines ?? false,
    comment: opts.comment,
    comment_no_infix: opts.commentNoInfix ?? false
  };
  try {
    return parse(text, options) as string[][];
  } catch (e) {
    if (!(e instanceof CsvParseError)) throw e;
    const line = (e as CsvParseError & {lines?: number}).lines;
    const where = line ? ` (line ${line})` : '';
    throw new CsvError(`Malformed CSV${where}: ${MESSAGES[e.code] ?? e.message}`, e.code);
  }
}
