/**
 * JSON as Go's encoding/json writes it, so that what we write for buildx's formats is byte for byte what buildx
 * writes: objects keep their keys' order (a Go struct's field order; a Go map's keys are sorted by whoever
 * builds the Map), `<`, `>`, `&`, U+2028 and U+2029 are escaped as \u00XX / \u20XX, control characters as Go
 * escapes them, and int64 values are exact (bigint, or a number literal kept as read).
 */
export type GoValue =
  null | boolean | number | bigint | string | GoNumber | Uint8Array | GoValue[] | Map<string, GoValue>;

/** A JSON number literal kept as it was read (Go re-encodes integers and the floats it wrote the same). */
export class GoNumber {
  constructor(readonly literal: string) {}
}

/** `json.Marshal` (no indent) or `json.MarshalIndent(v, "", indent)`. */
export function goJson(value: GoValue, indent = ''): string {
  const out: string[] = [];
  write(value, indent, '', out);
  return out.join('');
}

function write(v: GoValue, indent: string, at: string, out: string[]): void {
  if (v === null) out.push('null');
  else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
  else if (typeof v === 'number') out.push(Number.isFinite(v) ? String(v) : 'null');
  else if (typeof v === 'bigint') out.push(v.toString());
  else if (typeof v === 'string') out.push(goString(v));
  else if (v instanceof GoNumber) out.push(v.literal);
  else if (v instanceof Uint8Array) out.push(`"${Buffer.from(v).toString('base64')}"`);
  else if (Array.isArray(v)) {
    if (v.length === 0) return void out.push('[]');
    const inner = at + indent;
    out.push('[');
    v.forEach((item, i) => {
      if (i > 0) out.push(',');
      if (indent) out.push('\n', inner);
      write(item, indent, inner, out);
    });
    if (indent) out.push('\n', at);
    out.push(']');
  } else {
    if (v.size === 0) return void out.push('{}');
    const inner = at + indent;
    out.push('{');
    let first = true;
    for (const [key, item] of v) {
      if (!first) out.push(',');
      first = false;
      if (indent) out.push('\n', inner);
      out.push(goString(key), indent ? ': ' : ':');
      write(item, indent, inner, out);
    }
    if (indent) out.push('\n', at);
    out.push('}');
  }
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f'
};

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string as Go quotes it (HTML-safe, as json.Marshal's default; lone surrogates become U+FFFD). */
export function goString(s: string): string {
  const safe = s.replace(LONE_SURROGATE, '\ufffd');
  // eslint-disable-next-line no-control-regex -- JSON's control characters are what it names
  return `"${safe.replace(/["\\\u0000-\u001f<>&\u2028\u2029]/g, (c: string) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/** A Go map[string]V as encoding/json orders it: keys sorted by their bytes. */
export function goMap<V>(entries: Iterable<[string, V]>, value: (v: V) => GoValue): Map<string, GoValue> {
  const sorted = [...entries].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return new Map(sorted.map(([k, v]) => [k, value(v)]));
}
