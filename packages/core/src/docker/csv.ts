/** Options of parseCsv: the subset of csv-parse 5 that docker's actions use. */
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
  constructor(message: string) {
    super(message);
    this.name = 'CsvError';
  }
}

const RECORD_DELIMITERS = ['\r\n', '\n', '\r'];
const TRIMABLE = new Set(['\r', '\n', '\f', ' ', '\t']);

/**
 * Parses CSV records the way csv-parse 5 does with `relax_column_count` (records of any length), which is
 * what @docker/actions-toolkit builds its list inputs and attribute checks on. The record delimiter is
 * discovered from the first line break (`\r\n`, `\n` or `\r`) and used for the rest of the text.
 */
export function parseCsv(text: string, opts: CsvOpts = {}): string[][] {
  const delimiter = opts.delimiter ?? ',';
  const quote = opts.quote === false ? undefined : (opts.quote ?? '"');
  const trim = opts.trim ?? false;
  const comment = opts.comment && opts.comment !== '' ? opts.comment : undefined;
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoting = false;
  let wasQuoting = false;
  let escaping = false;
  let commenting = false;
  let rowDelimiter: string | undefined;

  const discover = (at: number): string | undefined => RECORD_DELIMITERS.find(d => text.startsWith(d, at));
  const isRowDelimiterAt = (at: number): boolean =>
    rowDelimiter !== undefined ? text.startsWith(rowDelimiter, at) : discover(at) !== undefined;
  const endField = (): void => {
    record.push(trim && !wasQuoting ? field.trimEnd() : field);
    field = '';
    wasQuoting = false;
  };
  const endRecord = (): void => {
    records.push(record);
    record = [];
  };

  for (let i = 0; i < text.length; i++) {
    if (!quoting && rowDelimiter === undefined) rowDelimiter = discover(i);
    const ch = text[i] as string;
    if (escaping) {
      escaping = false;
    } else {
      if (quote !== undefined && quoting && text.startsWith(quote, i) && i + quote.length < text.length) {
        if (text.startsWith(quote, i + quote.length)) {
          escaping = true;
          i += quote.length - 1;
          continue;
        }
      }
      if (!commenting && quote !== undefined && text.startsWith(quote, i)) {
        if (quoting) {
          const next = i + quote.length;
          const closes =
            next >= text.length ||
            text.startsWith(delimiter, next) ||
            isRowDelimiterAt(next) ||
            (comment !== undefined && text.startsWith(comment, next)) ||
            (trim && TRIMABLE.has(text[next] as string));
          if (closes) {
            quoting = false;
            wasQuoting = true;
            i += quote.length - 1;
            continue;
          }
          if (!opts.relaxQuotes) throw new CsvError(`invalid closing quote at offset ${i}`);
          quoting = false;
          wasQuoting = true;
          field = quote + field;
        } else if (field.length !== 0) {
          if (!opts.relaxQuotes) throw new CsvError(`invalid opening quote at offset ${i}`);
        } else {
          quoting = true;
          i += quote.length - 1;
          continue;
        }
      }
      if (!quoting) {
        const rd = rowDelimiter !== undefined && text.startsWith(rowDelimiter, i) ? rowDelimiter : undefined;
        if (rd !== undefined) {
          const blank = !wasQuoting && record.length === 0 && field.length === 0;
          if (!(commenting && blank) && !(opts.skipEmptyLines && blank)) {
            endField();
            endRecord();
          }
          commenting = false;
          i += rd.length - 1;
          continue;
        }
        if (commenting) continue;
        if (
          comment !== undefined &&
          (!opts.commentNoInfix || (record.length === 0 && field.length === 0)) &&
          text.startsWith(comment, i)
        ) {
          commenting = true;
          continue;
        }
        if (text.startsWith(delimiter, i)) {
          endField();
          i += delimiter.length - 1;
          continue;
        }
      }
    }
    const leading = trim && !quoting && field.length === 0 && TRIMABLE.has(ch);
    const afterQuote = trim && wasQuoting;
    if (!leading && !afterQuote) {
      field += ch;
    } else if (afterQuote && !TRIMABLE.has(ch)) {
      throw new CsvError(`non-blank character after a closing quote at offset ${i}`);
    }
  }
  if (quoting) throw new CsvError('a quote is not closed');
  if (wasQuoting || record.length !== 0 || field.length !== 0) {
    endField();
    endRecord();
  }
  return records;
}
