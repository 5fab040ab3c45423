/**
 * The runner's secret masking, after actions/runner `SecretMasker` and `ValueEncoders` (registered in
 * `HostContext`): every value is also masked in each encoded form an encoder gives, every occurrence (even
 * overlapping ones) becomes `***`. Like the runner, there is no minimum length: a registered value of one
 * character is masked everywhere. Beyond the runner, the forms a value takes inside a workflow command (data,
 * property and `##[` escapes), base64 at any byte offset inside a longer base64 text, base64url and hex.
 * https://github.com/actions/runner/blob/main/src/Sdk/DTLogging/Logging/ValueEncoders.cs
 */

/** Turns a value into another form it may be printed in; '' when it does not apply. */
export type ValueEncoder = (value: string) => string;

const base64 = (bytes: Buffer): string => bytes.toString('base64');
const base64url = (bytes: Buffer): string => bytes.toString('base64url');

/**
 * Base64 of the value's bytes from `shift` on, as the runner's Base64StringEscapeShift1/2: a value that starts 1
 * or 2 bytes into a 3-byte group (`user:password`) is encoded from the next group on.
 */
function shifted(value: string, shift: number, encode: (bytes: Buffer) => string): string {
  const bytes = Buffer.from(value, 'utf8');
  return encode(bytes.length > shift ? bytes.subarray(shift) : bytes);
}

/**
 * Only the complete 3-byte groups from `shift` on: the characters that do not depend on what comes before or
 * after the value, so the value is found in the middle of a longer base64 text too (the runner's padded form
 * matches only at its end).
 */
function wholeGroups(value: string, shift: number, encode: (bytes: Buffer) => string): string {
  const bytes = Buffer.from(value, 'utf8').subarray(shift);
  const whole = bytes.length - (bytes.length % 3);
  return whole >= 3 ? encode(bytes.subarray(0, whole)) : '';
}

/** Uri.EscapeDataString: everything but A-Z a-z 0-9 - . _ ~ as %XX. */
function uriDataEscape(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** PowerShell may print `a&b&c` as `a&b&` and `c` (ValueEncoders.PowerShellPre/PostAmpersandEscape); sections of 6+. */
function powerShellSections(value: string): [string, string] {
  if (!value.includes('&')) return ['', ''];
  const plus = value.indexOf('&+');
  const pre = plus >= 0 ? value.slice(0, plus + 2) : value.slice(0, value.lastIndexOf('&') + 1);
  const post = plus >= 0 ? value.slice(plus + 3) : value.slice(value.lastIndexOf('&') + 1);
  return [pre.length >= 6 ? pre : '', post.length >= 6 ? post : ''];
}

const jsonEscape = (value: string): string => JSON.stringify(value).slice(1, -1);

/** The runner's encoders, in HostContext's order, then ours. */
export const VALUE_ENCODERS: Readonly<Record<string, ValueEncoder>> = {
  base64: v => shifted(v, 0, base64),
  base64Shift1: v => shifted(v, 1, base64),
  base64Shift2: v => shifted(v, 2, base64),
  commandLineArgument: v => v.replace(/"/g, '\\"'),
  expressionString: v => v.replace(/'/g, "''"),
  jsonString: jsonEscape,
  uriData: uriDataEscape,
  xmlData: v =>
    v
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;'),
  trimDoubleQuotes: v => (v.length > 8 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : ''),
  powerShellPreAmpersand: v => powerShellSections(v)[0],
  powerShellPostAmpersand: v => powerShellSections(v)[1],
  // Ours: a workflow command's data (`::warning::…`), its properties (`title=…`) and the `##[` syntax.
  commandData: v => v.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'),
  commandProperty: v =>
    v.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/:/g, '%3A').replace(/,/g, '%2C'),
  legacyCommand: v =>
    v.replace(/%/g, '%25').replace(/;/g, '%3B').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/]/g, '%5D'),
  // Ours: JSON as Go and others write it (`<`, `>`, `&`, non-ASCII as \uXXXX), and HTML's apostrophe.
  jsonAscii: v =>
    jsonEscape(v).replace(/[<>&\u007f-\uffff]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  htmlData: v =>
    v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
  // Ours: encodeURIComponent as JavaScript writes it, and form encoding (space as +).
  uriComponent: v => encodeURIComponent(v),
  formData: v => new URLSearchParams({v}).toString().slice(2),
  // Ours: base64 inside a longer base64 text, base64url (JWTs, URLs) and hex.
  base64Inner0: v => wholeGroups(v, 0, base64),
  base64Inner1: v => wholeGroups(v, 1, base64),
  base64Inner2: v => wholeGroups(v, 2, base64),
  base64url: v => shifted(v, 0, base64url),
  base64urlInner1: v => wholeGroups(v, 1, base64url),
  base64urlInner2: v => wholeGroups(v, 2, base64url),
  hex: v => Buffer.from(v, 'utf8').toString('hex')
};

/** The value and every encoded form of it, without duplicates or empty strings. */
export function encodedForms(value: string): string[] {
  const forms = new Set<string>([value]);
  for (const encode of Object.values(VALUE_ENCODERS)) {
    const encoded = encode(value);
    if (encoded !== '') forms.add(encoded);
  }
  return [...forms];
}

/** The value, then each of its lines trimmed, as the runner registers a secret and an `::add-mask::` value. */
export function secretParts(value: string): string[] {
  if (value.trim() === '') return [];
  const lines = value
    .split(/[\r\n]+/)
    .map(line => line.trim())
    .filter(line => line !== '');
  return [...new Set([value, value.trim(), ...lines])];
}

/** SecretMasker holds the values to hide and hides them, in every registered form, in any text. */
export class SecretMasker {
  private readonly originals = new Set<string>();
  private readonly forms = new Set<string>();

  /** Registers a secret: the value and each of its lines, each in every encoded form. Blank values are ignored. */
  add(value: string): void {
    for (const part of secretParts(value)) {
      if (this.originals.has(part)) continue;
      this.originals.add(part);
      for (const form of encodedForms(part)) this.forms.add(form);
    }
  }

  /** How many values (secrets and their lines) are registered. */
  get size(): number {
    return this.originals.size;
  }

  /** Replaces every occurrence of every registered form with `***`; overlapping occurrences become one. */
  mask(text: string): string {
    if (text === '' || this.forms.size === 0) return text;
    const ranges: [number, number][] = [];
    for (const form of this.forms) {
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) ranges.push([at, at + form.length]);
    }
    if (ranges.length === 0) return text;
    ranges.sort((a, b) => a[0] - b[0]);
    let out = '';
    let from = 0;
    let current = ranges[0] as [number, number];
    for (const range of ranges.slice(1)) {
      if (range[0] <= current[1]) {
        current[1] = Math.max(current[1], range[1]);
        continue;
      }
      out += `${text.slice(from, current[0])}***`;
      from = current[1];
      current = range;
    }
    return `${out}${text.slice(from, current[0])}***${text.slice(current[1])}`;
  }
}
